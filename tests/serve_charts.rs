//! The pages people look at, over HTTP, on a generated archive whose every figure is known:
//! three documents of two pay-level domains captured in five crawls over four weeks, their
//! graphs changing at known captures. The calendar (days, a day's captures), the timeline's
//! chart of statements (a point per capture, the changes marked and linked to their diffs),
//! the overview's weekly charts (a bar per week with captures, one per week with changes),
//! its crawls linked to the dataset at each, a PLD page (a point per document with a rate,
//! the planner's interval), the dataset at a date (documents, statements, changes since the
//! previous crawl), and `/sparql` in a browser (the form; a query's results as a table whose
//! IRIs link to the mementos of their documents).

use crate::serve_server;
use crate::warc_fixture;

use std::time::{Duration, Instant};

use serve_server::LdwarcServer;
use warc_fixture::{Exchange, write_archive};

/// The document whose graph changes at the third and fifth crawls.
pub const A: &str = "http://alpha.example/doc/a";
/// Never changes.
pub const B: &str = "http://alpha.example/doc/b";
/// Changes at the second and fourth crawls.
pub const C: &str = "http://beta.example/c";

/// The five crawls (2024-01-01 is a Monday: crawls 1 and 2 share a week).
const CRAWLS: [&str; 5] = [
    "2024-01-01T00:00:0",
    "2024-01-02T00:00:0",
    "2024-01-09T00:00:0",
    "2024-01-16T00:00:0",
    "2024-01-23T00:00:0",
];

/// A's graph with `version` and `n` counter statements (`n` + 1 statements).
fn a_graph(version: &str, n: usize) -> String {
    let mut text = format!("<{A}#it> <http://alpha.example/ns#version> \"{version}\" .\n");
    for i in 1..=n {
        text.push_str(&format!("<{A}#it> <http://alpha.example/ns#n> {i} .\n"));
    }
    text
}

fn c_graph(version: &str, n: usize) -> String {
    let mut text = format!("<{C}#it> <http://alpha.example/ns#version> \"{version}\" .\n");
    for i in 1..=n {
        text.push_str(&format!("<{C}#it> <http://alpha.example/ns#n> {i} .\n"));
    }
    text
}

/// Writes and indexes the archive the page tests read.
pub fn chart_archive(root: &std::path::Path) {
    let ttl = "text/turtle";
    let at = |crawl: usize, second: usize| format!("{}{second}Z", CRAWLS[crawl]);
    let b = format!("<{B}#it> <http://www.w3.org/2000/01/rdf-schema#label> \"B\" .\n");
    // A: v1 v1 v2 v2 v3 (+ v3 again half an hour later, in the same crawl).
    let a = [
        a_graph("1", 1),
        a_graph("1", 1),
        a_graph("2", 2),
        a_graph("2", 2),
        a_graph("3", 3),
    ];
    let c = [
        c_graph("c1", 0),
        c_graph("c2", 1),
        c_graph("c2", 1),
        c_graph("c3", 2),
        c_graph("c3", 2),
    ];
    let mut exchanges = Vec::new();
    for crawl in 0..5 {
        exchanges.push(Exchange::ok(A, &at(crawl, 1), ttl, a[crawl].as_bytes()));
        if crawl % 2 == 0 {
            exchanges.push(Exchange::ok(B, &at(crawl, 2), ttl, b.as_bytes()));
        }
        exchanges.push(Exchange::ok(C, &at(crawl, 3), ttl, c[crawl].as_bytes()));
    }
    exchanges.push(Exchange::ok(
        A,
        "2024-01-23T00:30:00Z",
        ttl,
        a[4].as_bytes(),
    ));
    write_archive(root, &exchanges);
}

/// The page at `path`, asserted 200.
pub fn page(server: &LdwarcServer, path: &str) -> String {
    let response = server.get(path);
    assert_eq!(response.status, 200, "{path}: {}", response.text());
    response.text()
}

/// Waits until the overview shows its charts (the figures are computed off the request).
pub fn overview_with_charts(server: &LdwarcServer) -> String {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let html = page(server, "/overview");
        if !html.contains("class=\"computing\"") {
            return html;
        }
        assert!(Instant::now() < deadline, "the charts never came: {html}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The markup of the element with `id` (from its start tag to the next `</svg>` or
/// `</table>`).
pub fn element<'a>(html: &'a str, id: &str, end: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id}: {html}"));
    let rest = &html[start..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

fn encode(text: &str) -> String {
    crate::common::query_encode(text)
}

#[test]
fn calendar_shows_each_captured_day_and_a_days_captures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &[]);

    let html = page(&server, &format!("/calendar?url={}", encode(A)));
    assert!(html.contains("6 captures on 5 days"), "{html}");
    assert!(html.contains("<h2 id=\"y2024\">2024</h2>"), "{html}");
    // Twelve months of 2024, five days with captures in January.
    assert_eq!(
        html.matches("<table class=\"month\">").count(),
        12,
        "{html}"
    );
    assert_eq!(html.matches("<td class=\"captured\">").count(), 5, "{html}");
    // A day with one capture links to its page; the day with two to their list.
    assert!(
        html.contains(&format!(
            "href=\"/capture?url={}&amp;ts=20240109000001\"",
            encode(A)
        )),
        "{html}"
    );
    let day = format!("/calendar?url={}&day=20240123", encode(A));
    assert!(html.contains(&day.replace('&', "&amp;")), "{html}");
    let list = page(&server, &day);
    assert!(list.contains("2 captures on 2024-01-23"), "{list}");
    assert_eq!(list.matches(">memento</a>").count(), 2, "{list}");
    assert!(
        list.contains(&format!("href=\"/web/20240123003000/{A}\"")),
        "{list}"
    );
    // Linked from the timeline.
    let timeline = page(&server, &format!("/timeline?url={}", encode(A)));
    assert!(
        timeline.contains(&format!("href=\"/calendar?url={}\"", encode(A))),
        "{timeline}"
    );
    // A URL never captured, or a day that is not one, is the client's error.
    let never = server.get(&format!("/calendar?url={}", encode("http://none.example/")));
    assert_eq!(never.status, 404, "{}", never.text());
    let bad = server.get(&format!("/calendar?url={}&day=2024", encode(A)));
    assert_eq!(bad.status, 400, "{}", bad.text());
}

#[test]
fn timeline_chart_has_a_point_per_graph_and_links_changes_to_diffs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &[]);

    let html = page(&server, &format!("/timeline?url={}", encode(A)));
    let chart = element(&html, "statements-chart", "</svg>");
    assert_eq!(chart.matches("<circle class=\"point").count(), 6, "{chart}");
    assert_eq!(
        chart.matches("<circle class=\"point changed\"").count(),
        2,
        "{chart}"
    );
    // Each change links to the diff with the capture before it.
    for (from, to) in [
        ("20240102000001", "20240109000001"),
        ("20240116000001", "20240123000001"),
    ] {
        let link = format!(
            "<a href=\"/diff?url={}&amp;from={from}&amp;to={to}\"",
            encode(A)
        );
        assert!(chart.contains(&link), "{link} in {chart}");
    }
    assert!(
        chart.contains("4 statements, graph changed (diff)"),
        "{chart}"
    );
    // The changes painted again on top (the capture half an hour after the last change would
    // hide it), links the keyboard skips.
    assert_eq!(
        chart
            .matches("tabindex=\"-1\" aria-hidden=\"true\"><circle class=\"mark changed\"")
            .count(),
        2,
        "{chart}"
    );
    assert!(html.contains("name=\"viewport\""), "{html}");
}

#[test]
fn overview_pld_and_dataset_pages_show_the_archives_figures() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &[]);

    let html = overview_with_charts(&server);
    // A weekly chart per PLD: alpha has the most captures (10), beta next (5).
    let alpha = element(&html, "weeks-0", "</svg>");
    assert!(alpha.contains("alpha.example: captures"), "{alpha}");
    assert_bars(alpha, 4, 2);
    assert!(alpha.contains("week of 2024-01-01: 3 captures"), "{alpha}");
    assert!(
        alpha.contains("week of 2024-01-22: 1 graph changes"),
        "{alpha}"
    );
    let beta = element(&html, "weeks-1", "</svg>");
    assert_bars(beta, 4, 2);
    assert!(
        html.contains("3 documents captured twice or more; 2 seen to change, 1 never."),
        "{html}"
    );
    assert!(html.contains("id=\"rates-chart\""), "{html}");
    // Five crawls, each linked to the dataset at its end.
    let crawls = element(&html, "crawls", "</table>");
    assert_eq!(crawls.matches("href=\"/dataset?at=").count(), 5, "{crawls}");
    assert!(
        crawls.contains("href=\"/dataset?at=20240109000003\""),
        "{crawls}"
    );

    // The dataset at the third crawl: A changed since the second, B and C did not.
    let dataset = page(&server, "/dataset?at=20240109000003");
    assert!(dataset.contains("3 documents, 6 statements."), "{dataset}");
    assert!(dataset.contains("1 documents changed, 0 new."), "{dataset}");
    let rows = element(&dataset, "dataset", "</table>");
    assert_eq!(rows.matches("<tr class=\"changed\">").count(), 1, "{rows}");
    assert_eq!(rows.matches("<tr class=\"same\">").count(), 2, "{rows}");
    // The first crawl has none before it.
    let first = page(&server, "/dataset?at=20240101");
    assert!(first.contains("3 documents, 4 statements."), "{first}");
    assert!(first.contains("No crawl before this one."), "{first}");
    let bad = server.get("/dataset?at=yesterday");
    assert_eq!(bad.status, 400, "{}", bad.text());

    // The PLD page: a point per document with a rate (A changes, B does not).
    assert!(html.contains("href=\"/pld?name=alpha.example\""), "{html}");
    let pld = page(&server, "/pld?name=alpha.example");
    let chart = element(&pld, "pld-rates-chart", "</svg>");
    assert_eq!(chart.matches("<circle class=\"point").count(), 2, "{chart}");
    assert!(pld.contains("2 documents, 2 graph changes seen"), "{pld}");
    assert!(
        pld.contains("Re-crawl interval the planner would give"),
        "{pld}"
    );
    let unknown = server.get("/pld?name=none.example");
    assert_eq!(unknown.status, 404, "{}", unknown.text());
}

#[test]
fn sparql_in_a_browser_is_a_form_and_a_table_of_linked_results() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &["--request-timeout", "20s"]);
    let browser = [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")];

    let form = server.get_with("/sparql", &browser);
    assert_eq!(form.status, 200, "{}", form.text());
    let html = form.text();
    assert!(html.contains("<label for=\"query\">"), "{html}");
    assert!(html.contains("<label for=\"at\">"), "{html}");
    assert!(
        html.contains("<textarea id=\"query\" name=\"query\""),
        "{html}"
    );
    assert_eq!(html.matches("href=\"/sparql?query=").count(), 4, "{html}");
    // An API client still gets the protocol's refusal.
    let api = server.get("/sparql");
    assert_eq!(api.status, 400, "{}", api.text());

    let query = "SELECT ?s ?o WHERE { ?s <http://alpha.example/ns#version> ?o } ORDER BY ?o";
    let results = server.get_with(
        &format!("/sparql?query={}&at=2024-01-10", encode(query)),
        &browser,
    );
    assert_eq!(results.status, 200, "{}", results.text());
    let html = results.text();
    let table = element(&html, "sparql-results", "</table>");
    assert_eq!(
        table.matches("<tr>").count(),
        3,
        "a head and two rows: {table}"
    );
    assert!(
        table.contains(&format!("<a href=\"/web/20240110235959/{A}\">{A}#it</a>")),
        "{table}"
    );
    assert!(table.contains("&quot;2&quot;"), "{table}");
    assert!(table.contains("&quot;c2&quot;"), "{table}");
    // The form keeps the query and the date.
    assert!(html.contains("value=\"2024-01-10\""), "{html}");
    // A bad query is shown on the page, as the API's 400.
    let bad = server.get_with(&format!("/sparql?query={}", encode("SELECT * {")), &browser);
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert!(bad.text().contains("role=\"alert\""), "{}", bad.text());
}

#[test]
fn overview_figures_follow_the_index_as_it_grows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &[]);
    let before = overview_with_charts(&server);
    assert!(before.contains("3 documents, 14 captures."), "{before}");
    assert!(before.contains("5 crawls"), "{before}");

    // A sixth crawl of C, a week later, indexed while the server runs.
    warc_fixture::write_warc_file(
        &root,
        "later.warc",
        &[Exchange::ok(
            C,
            "2024-01-30T00:00:03Z",
            "text/turtle",
            c_graph("c4", 3).as_bytes(),
        )],
    );
    crate::common::stdout_ok(
        &crate::common::run(
            crate::common::ldwarc()
                .arg("index")
                .arg("--root")
                .arg(&root),
        ),
        "ldwarc index",
    );
    // The server reloads its index every 30 s; then the next overview recomputes.
    let deadline = Instant::now() + Duration::from_secs(90);
    let after = loop {
        let html = overview_with_charts(&server);
        if html.contains("6 crawls") {
            break html;
        }
        assert!(
            Instant::now() < deadline,
            "the figures never followed: {html}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(after.contains("3 documents, 15 captures."), "{after}");
    let beta = element(&after, "weeks-1", "</svg>");
    assert_bars(beta, 5, 3);
}

#[test]
fn the_diff_page_matches_blank_nodes_as_ldwarc_diff_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let url = "http://gamma.example/blank";
    // The blank node is relabelled (no change); a statement about an IRI changes.
    let old = b"_:x <http://gamma.example/p> \"1\" .\n<http://gamma.example/s> <http://gamma.example/q> \"a\" .\n";
    let new = b"_:renamed <http://gamma.example/p> \"1\" .\n<http://gamma.example/s> <http://gamma.example/q> \"b\" .\n";
    write_archive(
        &root,
        &[
            Exchange::ok(url, "2024-01-01T00:00:00Z", "application/n-triples", old),
            Exchange::ok(url, "2024-01-08T00:00:00Z", "application/n-triples", new),
        ],
    );
    let server = LdwarcServer::start(&root, &[]);
    let timeline = page(&server, &format!("/timeline?url={}", encode(url)));
    let link = format!(
        "/diff?url={}&from=20240101000000&to=20240108000000",
        encode(url)
    );
    assert!(
        timeline.contains(&format!(
            "class=\"diff\" href=\"{}\"",
            link.replace('&', "&amp;")
        )),
        "{timeline}"
    );
    let html = page(&server, &link);
    assert!(
        html.contains("1 removed, 1 added, 1 unchanged."),
        "only the changed statement differs: {html}"
    );
    let rows = element(&html, "diff", "</table>");
    assert!(rows.contains("&quot;a&quot;"), "{rows}");
    assert!(rows.contains("&quot;b&quot;"), "{rows}");
    // What `ldwarc diff` says of the same captures.
    let cli = crate::common::run(
        crate::common::ldwarc()
            .arg("diff")
            .arg(format!("{url}@20240101000000"))
            .args(["20240108000000", "--format", "nt", "--root"])
            .arg(&root),
    );
    let text = String::from_utf8_lossy(&cli.stdout);
    assert_eq!(
        text.lines().filter(|l| l.starts_with('-')).count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with('+')).count(),
        1,
        "{text}"
    );
}

/// The weekly chart `svg` has `captures` capture bars and `changes` graph-change bars.
fn assert_bars(svg: &str, captures: usize, changes: usize) {
    assert_eq!(
        svg.matches("<rect class=\"bar captures\"").count(),
        captures,
        "{svg}"
    );
    assert_eq!(
        svg.matches("<rect class=\"bar changes\"").count(),
        changes,
        "{svg}"
    );
}
