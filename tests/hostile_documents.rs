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

/// Runs `ldwarc ARGS` with its output in files of `dir`, and samples its peak resident set
/// (`VmHWM` of its own `/proc/PID/status`, a high-water mark) every 5 ms until it exits.
/// `ru_maxrss` from `wait4` cannot serve: a spawned child starts from its parent's peak (the
/// test binary's, hundreds of MB while other tests run), which exec keeps.
fn measured(dir: &Path, args: &[&str]) -> Finished {
    let stdout_path = dir.join("stdout");
    let stderr_path = dir.join("stderr");
    let started = Instant::now();
    let mut child = ldwarc()
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let status = loop {
        if let Some(kb) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|status| high_water_kb(&status))
        {
            peak_kb = peak_kb.max(kb);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    Finished {
        code: status.code(),
        stdout: std::fs::read_to_string(stdout_path).unwrap(),
        stderr: std::fs::read_to_string(stderr_path).unwrap(),
        elapsed,
        peak_rss_mb: peak_kb / 1024,
    }
}

/// `VmHWM` of a `/proc/PID/status` text, in kB.
fn high_water_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
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

/// A crawl that meets an entity bomb archives it, logs the refusal and goes on to the rest of
/// the site, quickly and in bounded memory (it once grew to 6 GB and was never archived).
#[test]
fn a_crawl_archives_a_billion_laughs_and_goes_on() {
    use ldwarc_state::StateStore;
    use ldwarc_testweb::{Doc, Resource, StaticFile, Term, TestWebServer, Triple, Web};

    let link = |from: &str, to: &str| {
        Triple::new(
            Term::iri(from),
            Term::iri("http://www.w3.org/2000/01/rdf-schema#seeAlso"),
            Term::iri(to),
        )
    };
    let start = "http://lol.example/start";
    let bomb = "http://lol.example/lol.rdf";
    let after = "http://lol.example/after";
    let mut web = Web::new();
    web.insert(
        start,
        Resource::Document(Doc::new(vec![link(start, bomb), link(start, after)])),
    )
    .unwrap();
    web.insert(
        bomb,
        Resource::Static(StaticFile::new("application/rdf+xml", billion_laughs())),
    )
    .unwrap();
    web.insert(
        after,
        Resource::Document(Doc::new(vec![link(after, start)])),
    )
    .unwrap();
    web.seeds = vec![start.into()];
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "2", "--format", "json"])
        .args(crate::common::loopback_resolve(server.port()))
        .arg(start));
    let summary: serde_json::Value =
        serde_json::from_str(stdout_ok(&output, "ldwarc crawl").trim()).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let peak_mb = summary["peak_rss_bytes"].as_u64().unwrap() >> 20;
    assert!(peak_mb < 300, "peak RSS {peak_mb} MB");

    let store = StateStore::open(&root.path().join("state")).unwrap();
    let log = store.fetch_log(None).unwrap();
    let bomb_entries: Vec<_> = log.iter().filter(|e| e.url == bomb).collect();
    assert_eq!(bomb_entries.len(), 1, "{bomb_entries:?}");
    let error = bomb_entries[0].error.clone().unwrap_or_default();
    assert!(error.contains("XML entity references"), "{error}");
    assert!(log.iter().any(|e| e.url == after && e.error.is_none()));

    // The bomb itself is in the archive, as a 200 capture.
    let cdx = run(ldwarc().args(["cdx", "--root"]).arg(root.path()).arg(bomb));
    let lines = stdout_ok(&cdx, "ldwarc cdx");
    let captured: Vec<&str> = lines
        .lines()
        .filter(|l| {
            l.contains(r#""status": "200""#) && l.contains(r#""url": "http://lol.example/lol.rdf""#)
        })
        .collect();
    assert_eq!(captured.len(), 1, "{lines}");
}

/// An archived entity bomb through the server (a negotiated memento, a `/capture` page) and
/// the triple index: each ends in a bounded answer while the server keeps answering `/cdx`
/// within its budget (these drove `serve` to 4 GB and `index --triples` past 4 GB).
#[test]
fn an_archived_billion_laughs_costs_the_server_and_the_triple_index_nothing() {
    use crate::serve_server::LdwarcServer;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let url = "http://example.org/lol.rdf";
    let exchange = Exchange::ok(
        url,
        "2024-03-01T12:00:00Z",
        "application/rdf+xml",
        billion_laughs().as_bytes(),
    );
    write_archive(&root, &[exchange]);

    let started = Instant::now();
    let done = measured(
        dir.path(),
        &["index", "--triples", "--root", root.to_str().unwrap()],
    );
    assert!(done.elapsed < Duration::from_secs(10), "{:?}", done.elapsed);
    assert!(done.peak_rss_mb < 300, "peak RSS {} MB", done.peak_rss_mb);
    assert!(
        done.stderr.contains("XML entity references at byte "),
        "{}",
        done.stderr
    );

    let server = LdwarcServer::start(&root, &["--memory-budget", "256MiB"]);
    let memento = server.get_with(
        &format!("/web/20240301120000/{url}"),
        &[("Accept", "text/turtle")],
    );
    // Turtle cannot be made of it: the capture is answered as archived, unexpanded.
    assert_eq!(memento.status, 200);
    assert_eq!(memento.text(), billion_laughs());
    let page = server.get(&format!("/capture?url={url}&ts=20240301120000"));
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(
        !page.text().contains("lollollol"),
        "the page expanded the entity"
    );
    assert_eq!(server.get("/cdx?url=example.org/lol.rdf").status, 200);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let peak_mb = high_water_kb(&status).unwrap() / 1024;
    assert!(peak_mb < 256 + 200, "the server peaked at {peak_mb} MB");
    assert!(started.elapsed() < Duration::from_secs(30));
}
