//! `ldwarc demo`: a tour that needs no network. It serves the bundled sample Linked Data web
//! (`fixtures/testweb`, compiled in) on loopback, crawls it in three epochs between which
//! documents change, and shows what `history`, `replay` and `diff` make of the archive.

use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use chrono::Utc;

use ldwarc_crawl::{CrawlOptions, crawl};
use ldwarc_rdf::{DiffFormat, OutputFormat, diff, write_graph};
use ldwarc_testweb::{TestWebServer, Web};
use ldwarc_timetravel::replay::{Pick, ReplayArchive, ReplayDate, Scope, diff_dataset, history};

/// The document the tour follows: it changes in epochs 1 and 2 and has a blank node.
const FOLLOWED: &str = "http://people.delta.example/alice";

/// Politeness delay of the demo crawls (loopback only, so it can be short).
const DEMO_DELAY: Duration = Duration::from_millis(50);

/// Runs the tour into `dir` (created; it must be absent, empty, or an earlier demo's archive,
/// which is replaced), narrating on `out`.
pub fn run_demo(dir: &Path, out: &mut dyn Write) -> io::Result<()> {
    prepare_dir(dir)?;
    let web = Web::fixture().map_err(io::Error::other)?;
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web)?;
    writeln!(
        out,
        "Serving the sample Linked Data web (7 hosts, 4 pay-level domains) on 127.0.0.1:{}.\n\
         Crawling it into {} three times; documents change between the crawls.\n",
        server.port(),
        dir.display()
    )?;
    let mut crawl_times = Vec::new();
    for epoch in 0..3 {
        server.set_epoch(epoch);
        wait_for_next_second();
        let mut options = CrawlOptions::new(dir);
        options.seeds = seeds.clone();
        options.delay = DEMO_DELAY;
        options.timeout = Duration::from_secs(10);
        options.connect_timeout = Duration::from_secs(5);
        options.resolve = vec![format!("*.example=127.0.0.1:{}", server.port())];
        let summary = crawl(options, &|_| {}).map_err(io::Error::other)?;
        let finished = Utc::now();
        writeln!(
            out,
            "crawl {}: {} captures ({} revisits), {} failed, {} excluded by robots.txt, in {:.1} s",
            epoch + 1,
            summary.captures,
            summary.revisits,
            summary.failed,
            summary.excluded,
            summary.seconds
        )?;
        crawl_times.push(ReplayDate::from_instant(finished));
    }
    let archive = ReplayArchive::open(dir).map_err(io::Error::from)?;
    // Every command shown names the archive, so that it runs as printed.
    let root = shell_word(&dir.display().to_string());
    show_history(&archive, &root, out)?;
    show_replay(&archive, &root, &crawl_times[0], out)?;
    show_diff(&archive, &root, &crawl_times, out)?;
    show_next_steps(&root, &crawl_times, out)
}

/// `text` as one word for a POSIX shell: as it is when it holds nothing the shell reads
/// specially, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:,@%=".contains(&b));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Marks a directory as a demo archive, which a later demo run may replace.
const MARKER: &str = "LDWARC-DEMO";

/// What a demo run creates inside its directory.
const DEMO_CONTENTS: &[&str] = &[MARKER, "warc", "index", "state"];

fn prepare_dir(dir: &Path) -> io::Result<()> {
    let context = |e: io::Error| io::Error::other(format!("{}: {e}", dir.display()));
    if dir.exists() {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(context)? {
            names.push(entry.map_err(context)?.file_name());
        }
        let earlier_demo = names.iter().any(|n| n == MARKER)
            && names.iter().all(|n| DEMO_CONTENTS.iter().any(|d| n == *d));
        if !names.is_empty() && !earlier_demo {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: not empty; give the demo a new directory",
                    dir.display()
                ),
            ));
        }
        for name in names {
            let path = dir.join(name);
            if path.is_dir() {
                std::fs::remove_dir_all(&path).map_err(context)?;
            } else {
                std::fs::remove_file(&path).map_err(context)?;
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(context)?;
    std::fs::write(
        dir.join(MARKER),
        "An archive made by `ldwarc demo`; running the demo again replaces it.\n",
    )
    .map_err(context)
}

/// Captures are dated to the second: starting each crawl in a new second keeps every crawl's
/// captures apart from the previous one's when replaying by date.
fn wait_for_next_second() {
    let nanos = Utc::now().timestamp_subsec_nanos();
    std::thread::sleep(Duration::from_nanos(u64::from(
        1_000_000_000 - nanos.min(999_999_999),
    )));
}

fn show_history(archive: &ReplayArchive, root: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "\n$ ldwarc history --root {root} {FOLLOWED}")?;
    for entry in history(archive, FOLLOWED).map_err(io::Error::from)? {
        writeln!(
            out,
            "  {}  {}  {:<8}  {:>3} statements  {}",
            entry.capture.timestamp,
            entry.capture.status.map_or("-".into(), |s| s.to_string()),
            entry.capture.record_type,
            entry.statements.unwrap_or(0),
            entry.change.label()
        )?;
    }
    Ok(())
}

fn show_replay(
    archive: &ReplayArchive,
    root: &str,
    first: &ReplayDate,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "\n$ ldwarc replay --root {root} {FOLLOWED}@{} --format ttl    (as it was after the first crawl)",
        first.timestamp()
    )?;
    let document = archive
        .document(FOLLOWED, first, Pick::Before)
        .map_err(io::Error::from)?;
    let mut text = Vec::new();
    write_graph(
        &document.parsed.graph,
        OutputFormat::Turtle,
        Some(FOLLOWED),
        &mut text,
    )
    .map_err(io::Error::other)?;
    for line in String::from_utf8_lossy(&text).lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn show_diff(
    archive: &ReplayArchive,
    root: &str,
    times: &[ReplayDate],
    out: &mut dyn Write,
) -> io::Result<()> {
    let (first, last) = (&times[0], &times[times.len() - 1]);
    writeln!(
        out,
        "\n$ ldwarc diff --root {root} {FOLLOWED}@{} {}    (RDF Patch: D removed, A added)",
        first.timestamp(),
        last.timestamp()
    )?;
    let old = archive
        .document(FOLLOWED, first, Pick::Before)
        .map_err(io::Error::from)?;
    let new = archive
        .document(FOLLOWED, last, Pick::Before)
        .map_err(io::Error::from)?;
    let difference = diff(&old.parsed.graph, &new.parsed.graph);
    let mut text = Vec::new();
    difference.write(DiffFormat::Patch, &mut text)?;
    for line in String::from_utf8_lossy(&text).lines() {
        writeln!(out, "  {line}")?;
    }
    writeln!(
        out,
        "\n$ ldwarc diff --root {root} @{} @{}    (every document)",
        first.timestamp(),
        last.timestamp()
    )?;
    let mut lines = Vec::new();
    let summary = diff_dataset(archive, &Scope::All, first, last, &mut |document| {
        if document.change.label() != "unchanged" {
            let (added, removed) = document
                .diff
                .as_ref()
                .map_or((0, 0), |d| (d.added_count(), d.removed_count()));
            lines.push(format!(
                "  {:<9} +{added} -{removed}  {}",
                document.change.label(),
                document.url
            ));
        }
    })
    .map_err(io::Error::from)?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "  {} added, {} removed, {} changed, {} unchanged documents",
        summary.added, summary.removed, summary.changed, summary.unchanged
    )
}

fn show_next_steps(root: &str, times: &[ReplayDate], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "\nThe archive is in {root} (WARC files under warc/, the index under index/).\n\
         Go on with:\n  \
         ldwarc history --root {root} http://beta.example/datasets/d1\n  \
         ldwarc snapshot --root {root} @{} --domain delta.example\n  \
         ldwarc query --root {root} 'http://people.delta.example/*'\n  \
         ldwarc check --root {root}\n\
         Archive real Linked Data with `ldwarc crawl --root DIR SEED-URL...` (see `man ldwarc-crawl`).",
        times[1].timestamp()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_only_when_the_shell_would_read_them() {
        assert_eq!(shell_word("/tmp/ldwarc-demo"), "/tmp/ldwarc-demo");
        assert_eq!(shell_word("/tmp/my tour"), "'/tmp/my tour'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }
}
