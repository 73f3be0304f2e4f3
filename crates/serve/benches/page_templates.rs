//! Which compiled-template engine renders the server's pages: maud (HTML written as Rust
//! macros) against askama (Jinja-like templates compiled at build time), on the page shape the
//! server renders most rows of (a timeline table of 2,000 captures with links and hostile
//! text), next to the hand-escaped string building both replace. All three must produce the
//! same bytes, so the comparison is of equal work.
//!
//! `cargo bench -p ldwarc-serve --bench page_templates`

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use askama::Template;
use maud::html;

struct Row {
    timestamp: String,
    class: &'static str,
    link: String,
    status: u16,
    detail: String,
}

fn rows(count: usize) -> Vec<Row> {
    (0..count)
        .map(|n| Row {
            timestamp: format!("2024{:02}{:02}120000", 1 + n % 12, 1 + n % 28),
            class: ["first", "changed", "same", "unchanged"][n % 4],
            link: format!("/capture?url=http%3A%2F%2Fexample.org%2F{n}&ts=2024"),
            status: 200,
            detail: format!("<b>\"redirect\" & {n}</b>"),
        })
        .collect()
}

#[derive(Template)]
#[template(
    ext = "html",
    source = "<table id=\"timeline\">{% for row in rows %}<tr class=\"{{ row.class }}\"><td><a href=\"{{ row.link }}\">{{ row.timestamp }}</a></td><td>{{ row.status }}</td><td>{{ row.detail }}</td></tr>{% endfor %}</table>"
)]
struct AskamaTimeline<'a> {
    rows: &'a [Row],
}

fn with_askama(rows: &[Row]) -> String {
    AskamaTimeline { rows }.render().expect("askama renders")
}

fn with_maud(rows: &[Row]) -> String {
    html! {
        table id="timeline" {
            @for row in rows {
                tr class=(row.class) {
                    td { a href=(row.link) { (row.timestamp) } }
                    td { (row.status) }
                    td { (row.detail) }
                }
            }
        }
    }
    .into_string()
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn with_strings(rows: &[Row]) -> String {
    let mut out = String::from("<table id=\"timeline\">");
    for row in rows {
        let _ = write!(
            out,
            "<tr class=\"{}\"><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            row.class,
            escape(&row.link),
            escape(&row.timestamp),
            row.status,
            escape(&row.detail)
        );
    }
    out.push_str("</table>");
    out
}

/// Best of several rounds, each long enough to time.
fn time(render: impl Fn(&[Row]) -> String, rows: &[Row]) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..7 {
        let start = Instant::now();
        for _ in 0..50 {
            black_box(render(black_box(rows)));
        }
        best = best.min(start.elapsed() / 50);
    }
    best
}

fn main() {
    let rows = rows(2_000);
    let reference = with_strings(&rows);
    // askama writes &#34; / &#38; style entities for some characters; compare after decoding
    // the entities both engines may choose differently.
    let normalise = |s: String| {
        s.replace("&#34;", "&quot;")
            .replace("&#38;", "&amp;")
            .replace("&#60;", "&lt;")
            .replace("&#62;", "&gt;")
    };
    assert_eq!(
        normalise(with_maud(&rows)),
        reference,
        "maud output differs"
    );
    assert_eq!(
        normalise(with_askama(&rows)),
        reference,
        "askama output differs"
    );
    println!(
        "timeline table, 2,000 rows, {} KB, best of 7 × 50 renders",
        reference.len() / 1024
    );
    for (engine, took) in [
        ("maud", time(with_maud, &rows)),
        ("askama", time(with_askama, &rows)),
        ("format! + escape", time(with_strings, &rows)),
    ] {
        println!(
            "{engine:>18}: {:>8.1} µs per page",
            took.as_secs_f64() * 1e6
        );
    }
}
