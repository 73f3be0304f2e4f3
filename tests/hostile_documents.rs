//! Documents built to exhaust a parser, through the real binary: an entity bomb ("billion
//! laughs") and 200,000 levels of nesting in RDF/XML and HTML end in a clear refusal or a
//! bounded answer, fast and in bounded memory (peak RSS taken from the kernel with `wait4`).

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{ldwarc, run, stdout_ok};
use crate::warc_fixture::{Exchange, write_archive};

/// What a finished `ldwarc` run gave, with its peak resident set.
struct Finished {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
    peak_rss_mb: u64,
}

/// Runs `ldwarc ARGS` with its output in files of `dir`, and reaps it with `wait4` to read the
/// peak resident set of that process alone (tests running at the same time do not count).
fn measured(dir: &Path, args: &[&str]) -> Finished {
    let stdout_path = dir.join("stdout");
    let stderr_path = dir.join("stderr");
    let started = Instant::now();
    #[expect(
        clippy::zombie_processes,
        reason = "reaped below with wait4, which also gives its peak RSS"
    )]
    let child = ldwarc()
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value; `wait4` fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped (`child` is never waited on by std).
    let reaped = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    let elapsed = started.elapsed();
    assert_eq!(reaped, pid, "wait4 failed");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Finished {
        code,
        stdout: std::fs::read_to_string(stdout_path).unwrap(),
        stderr: std::fs::read_to_string(stderr_path).unwrap(),
        elapsed,
        // Linux reports kilobytes.
        peak_rss_mb: u64::try_from(usage.ru_maxrss).unwrap() / 1024,
    }
}

/// The classic document: ten nested entities of ten references each (941 bytes that expand
/// to three gigabytes).
fn billion_laughs() -> String {
    let mut doc = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n");
    doc.push_str("  <!ENTITY lol \"lol\">\n");
    for level in 1..10 {
        let previous = match level {
            1 => "lol".to_string(),
            _ => format!("lol{}", level - 1),
        };
        let value = format!("&{previous};").repeat(10);
        doc.push_str(&format!("  <!ENTITY lol{level} \"{value}\">\n"));
    }
    doc.push_str(
        "]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
         xmlns:ex=\"http://example.org/\">\n<rdf:Description rdf:about=\"http://example.org/s\">\
         <ex:p>&lol9;</ex:p></rdf:Description>\n</rdf:RDF>\n",
    );
    doc
}

#[test]
fn billion_laughs_rdf_xml_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lol.rdf");
    std::fs::write(&file, billion_laughs()).unwrap();
    let done = measured(dir.path(), &["parse", file.to_str().unwrap()]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stdout.is_empty(), "{}", done.stdout);
    assert_eq!(done.stderr.lines().count(), 1, "{}", done.stderr);
    assert!(
        done.stderr.contains("lol.rdf")
            && done.stderr.contains("XML entity references at byte ")
            && done
                .stderr
                .contains("(1 MiB plus ten times the document): refused"),
        "{}",
        done.stderr
    );
    assert!(done.elapsed < Duration::from_secs(1), "{:?}", done.elapsed);
    assert!(done.peak_rss_mb < 100, "peak RSS {} MB", done.peak_rss_mb);

    // Abbreviating namespaces with entities, as the W3C RDF/XML tests do, still works.
    let file = dir.path().join("ns.rdf");
    std::fs::write(
        &file,
        "<!DOCTYPE rdf:RDF [<!ENTITY ex \"http://example.org/\">]>\n\
         <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"&ex;\">\
         <rdf:Description rdf:about=\"&ex;s\"><ex:p rdf:resource=\"&ex;o\"/></rdf:Description>\
         </rdf:RDF>\n",
    )
    .unwrap();
    let output = run(ldwarc().arg("parse").arg(&file));
    assert_eq!(
        stdout_ok(&output, "parse ns.rdf"),
        "<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n"
    );
}

#[test]
fn an_archived_billion_laughs_replays_as_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let url = "http://example.org/lol.rdf";
    let body = billion_laughs();
    let exchange = Exchange::ok(
        url,
        "2024-03-01T12:00:00Z",
        "application/rdf+xml",
        body.as_bytes(),
    );
    write_archive(&root, &[exchange]);
    let target = format!("{url}@20240301120000");
    let done = measured(
        dir.path(),
        &["replay", "--root", root.to_str().unwrap(), &target],
    );
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stdout.is_empty(), "{}", done.stdout);
    assert!(
        done.stderr.contains("XML entity references at byte "),
        "{}",
        done.stderr
    );
    assert!(done.elapsed < Duration::from_secs(5), "{:?}", done.elapsed);
    assert!(done.peak_rss_mb < 200, "peak RSS {} MB", done.peak_rss_mb);
}

#[test]
fn rdf_xml_nested_200k_levels_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.rdf");
    let levels = 100_000;
    let mut doc = String::from(
        "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
         xmlns:ex=\"http://example.org/\">",
    );
    doc.push_str(&"<rdf:Description><ex:p>".repeat(levels));
    doc.push_str(&"</ex:p></rdf:Description>".repeat(levels));
    doc.push_str("</rdf:RDF>\n");
    std::fs::write(&file, &doc).unwrap();
    let done = measured(dir.path(), &["parse", file.to_str().unwrap()]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert_eq!(done.stderr.lines().count(), 1, "{}", done.stderr);
    // The 2049th level: the root, 1023 pairs of 23 bytes, then the 1024th pair's `ex:p`.
    let at = doc.find("<rdf:Description>").unwrap() + 23 * 1023 + 17;
    assert!(
        done.stderr.contains(&format!(
            "XML elements nested deeper than 2048 levels at byte {at}: refused"
        )),
        "{}",
        done.stderr
    );
    assert!(done.elapsed < Duration::from_secs(2), "{:?}", done.elapsed);
    assert!(done.peak_rss_mb < 200, "peak RSS {} MB", done.peak_rss_mb);
}

#[test]
fn html_nested_200k_levels_keeps_what_comes_before_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.html");
    let mut page = String::from(
        "<html><head><script type=\"application/ld+json\">\
         {\"@id\": \"http://example.org/s\", \"http://example.org/p\": \"before\"}</script>\
         </head><body>",
    );
    page.push_str(&"<div>".repeat(200_000));
    page.push_str(
        "<script type=\"application/ld+json\">\
         {\"@id\": \"http://example.org/s\", \"http://example.org/p\": \"after\"}</script>",
    );
    std::fs::write(&file, &page).unwrap();
    let done = measured(dir.path(), &["parse", file.to_str().unwrap()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(
        done.stdout,
        "<http://example.org/s> <http://example.org/p> \"before\" .\n"
    );
    // The depth passes 1024 in the second 4 KiB piece; the parser stops after it.
    assert!(
        done.stderr.contains(
            "deep.html: elements nested deeper than 1024: the page after byte 8192 was not read"
        ),
        "{}",
        done.stderr
    );
    // Quadratic parsing took 7.6 s at 50,000 levels in a release build.
    assert!(done.elapsed < Duration::from_secs(5), "{:?}", done.elapsed);
    assert!(done.peak_rss_mb < 200, "peak RSS {} MB", done.peak_rss_mb);
}

#[test]
fn json_ld_nested_200k_levels_is_refused_alone_and_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let levels = 200_000;
    let deep = format!(
        "{}\"x\"{}",
        "{\"http://example.org/p\": ".repeat(levels),
        "}".repeat(levels)
    );
    let file = dir.path().join("deep.jsonld");
    std::fs::write(&file, &deep).unwrap();
    let done = measured(dir.path(), &["parse", file.to_str().unwrap()]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    // The 257th `{`, after 256 openings of 25 bytes.
    assert!(
        done.stderr
            .contains("JSON nested deeper than 256 levels at byte 6400"),
        "{}",
        done.stderr
    );
    assert!(done.elapsed < Duration::from_secs(2), "{:?}", done.elapsed);

    // In a page, the deep block alone is lost (read leniently first, as it is no JSON to
    // serde_json's depth limit either); the page's other block is kept.
    let page = dir.path().join("deep.html");
    std::fs::write(
        &page,
        format!(
            "<html><head><script type=\"application/ld+json\">{deep}</script>\
             <script type=\"application/ld+json\">\
             {{\"@id\": \"http://example.org/s\", \"http://example.org/p\": \"kept\"}}</script>\
             </head></html>"
        ),
    )
    .unwrap();
    let done = measured(dir.path(), &["parse", page.to_str().unwrap()]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(
        done.stdout,
        "<http://example.org/s> <http://example.org/p> \"kept\" .\n"
    );
    assert!(
        done.stderr.contains(
            "script block 1 (application/ld+json): JSON nested deeper than 256 levels at byte 6400"
        ),
        "{}",
        done.stderr
    );
    assert!(done.elapsed < Duration::from_secs(5), "{:?}", done.elapsed);
}
