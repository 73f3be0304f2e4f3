//! Linked Data in HTML end to end: a crawl of pages whose only links are in their embedded
//! data (RDFa, a JSON-LD block, Microdata) and an RDF twin announced by `<link
//! rel="alternate">` reaches every page and never follows plain `<a href>`s; each page's
//! replay is the graph `ldwarc parse` extracts from the same bytes; `ldwarc parse` errors.

use std::io::Write;
use std::process::Stdio;

use ldwarc_rdf::{NoContexts, Syntax, canonical_hash, parse_graph};
use ldwarc_testweb::{Resource, StaticFile, TestWebServer, Web};

use crate::common::{ldwarc, run, stdout_ok};

const RDFA_PAGE: &str = r#"<!DOCTYPE html>
<html prefix="ex: http://vocab.example/"><head><title>start</title></head>
<body about="" typeof="ex:Page">
  <p>Plain link, not data: <a href="http://pages.example/never">never</a>.</p>
  <div rel="ex:next" resource="http://pages.example/jsonld"></div>
</body></html>"#;

const JSON_LD_PAGE: &str = r#"<!DOCTYPE html><html><head>
<script type="application/ld+json">
{"@id": "http://pages.example/jsonld", "http://vocab.example/next": {"@id": "/microdata"}}
</script>
<script type="application/ld+json">{ this block is broken </script>
</head><body><a href="/never">never</a></body></html>"#;

const MICRODATA_PAGE: &str = r#"<!DOCTYPE html><html><body>
<div itemscope itemtype="http://schema.org/WebPage">
  <span itemprop="name">Microdata page</span>
  <link itemprop="relatedLink" href="http://pages.example/twin">
</div></body></html>"#;

const TWIN_PAGE: &str = r#"<!DOCTYPE html><html><head>
<link rel="alternate" type="text/turtle" href="/twin.ttl">
</head><body><p>The data is elsewhere.</p></body></html>"#;

const TWIN_TURTLE: &str = "<http://pages.example/twin> <http://vocab.example/done> true .\n";

const PAGES: &[(&str, &str, &str)] = &[
    (
        "http://pages.example/start",
        "text/html; charset=utf-8",
        RDFA_PAGE,
    ),
    ("http://pages.example/jsonld", "text/html", JSON_LD_PAGE),
    (
        "http://pages.example/microdata",
        "text/html",
        MICRODATA_PAGE,
    ),
    ("http://pages.example/twin", "text/html", TWIN_PAGE),
    ("http://pages.example/twin.ttl", "text/turtle", TWIN_TURTLE),
];

fn web() -> Web {
    let mut web = Web::new();
    for (url, content_type, body) in PAGES {
        web.insert(url, Resource::Static(StaticFile::new(content_type, *body)))
            .unwrap();
    }
    web.insert(
        "http://pages.example/never",
        Resource::Static(StaticFile::new("text/html", "<p>must not be crawled</p>")),
    )
    .unwrap();
    web.seeds = vec!["http://pages.example/start".into()];
    web
}

/// The graph of a document, for comparison by canonical hash.
fn hash_of(nquads: &[u8]) -> String {
    let parsed = parse_graph(nquads, &[Syntax::NQuads], "http://x.example/", &NoContexts).unwrap();
    canonical_hash(&parsed.graph).hex
}

#[test]
fn a_crawl_follows_embedded_data_and_replays_page_graphs() {
    let server = TestWebServer::start(web()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "10", "--timeout", "10s"])
        .args(crate::common::loopback_resolve(server.port()))
        .arg("http://pages.example/start"));
    stdout_ok(&output, "ldwarc crawl");

    // The twin's page has no data of its own: it was crawled (its alternate was followed)
    // but is no RDF document.
    let twin = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .arg("http://pages.example/twin"));
    assert_eq!(twin.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&twin.stderr);
    assert!(stderr.contains("no embedded RDF"), "{stderr}");
    for (url, content_type, body) in PAGES.iter().filter(|(url, ..)| !url.ends_with("/twin")) {
        let replayed = run(ldwarc()
            .arg("replay")
            .arg("--root")
            .arg(root.path())
            .args(["--format", "nq"])
            .arg(url));
        let replayed = stdout_ok(&replayed, &format!("replay {url}"));
        let mut parse = ldwarc()
            .arg("parse")
            .arg("-")
            .args([
                "--base",
                url,
                "--media-type",
                content_type,
                "--format",
                "nq",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        parse
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        let parsed = parse.wait_with_output().unwrap();
        let parsed = stdout_ok(&parsed, &format!("parse {url}"));
        assert!(!parsed.is_empty(), "{url}: no data");
        assert_eq!(
            hash_of(replayed.as_bytes()),
            hash_of(parsed.as_bytes()),
            "{url}: replay\n{replayed}\nparse\n{parsed}"
        );
    }
    let history = run(ldwarc()
        .arg("history")
        .arg("--root")
        .arg(root.path())
        .args(["--format", "json"])
        .arg("http://pages.example/microdata"));
    let history = stdout_ok(&history, "history");
    let entry: serde_json::Value = serde_json::from_str(history.lines().next().unwrap()).unwrap();
    assert_eq!(entry["change"], "first", "{history}");
    assert_eq!(entry["statements"], 3, "{history}");
    let snapshot = run(ldwarc()
        .arg("snapshot")
        .arg("--root")
        .arg(root.path())
        .arg("@2999"));
    let snapshot = stdout_ok(&snapshot, "snapshot");
    assert!(
        snapshot.contains("<http://vocab.example/next> <http://pages.example/microdata> <http://pages.example/jsonld> ."),
        "{snapshot}"
    );
    let metadata = warc_text(root.path());
    assert!(
        metadata.contains(
            "rdf-embedded: rdfa 2, microdata 0, json-ld 0 (0 blocks), turtle 0 (0 blocks)"
        ),
        "the crawl log does not say what the start page's syntaxes gave"
    );
    let never = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .arg("http://pages.example/never"));
    assert_eq!(
        never.status.code(),
        Some(2),
        "a plain <a href> was followed"
    );
}

#[test]
fn parse_reports_per_syntax_and_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, JSON_LD_PAGE).unwrap();
    let output = run(ldwarc().arg("parse").arg(&page).args([
        "--base",
        "http://pages.example/jsonld",
        "--report",
        "--format",
        "nt",
    ]));
    let stdout = stdout_ok(&output, "parse --report");
    assert!(
        stdout.contains("<http://pages.example/microdata>"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("script block 2 (application/ld+json)"),
        "{stderr}"
    );
    assert!(stderr.contains("json-ld 1 (2 blocks)"), "{stderr}");

    let missing = run(ldwarc().arg("parse").arg(dir.path().join("absent.ttl")));
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("absent.ttl"));

    let not_rdf = dir.path().join("notes.txt");
    std::fs::write(&not_rdf, "just some words").unwrap();
    let refused = run(ldwarc().arg("parse").arg(&not_rdf));
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("notes.txt"));

    let bad_base = run(ldwarc()
        .arg("parse")
        .arg(&page)
        .args(["--base", "relative/x"]));
    assert_eq!(bad_base.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_base.stderr).contains("--base relative/x"));

    let bad_format = run(ldwarc().arg("parse").arg(&page).args(["--format", "html"]));
    assert_eq!(bad_format.status.code(), Some(2));
}

/// Every WARC file under the root, inflated and concatenated.
fn warc_text(root: &std::path::Path) -> String {
    use std::io::Read;
    let mut text = String::new();
    for entry in walkdir::WalkDir::new(root.join("warc")) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        let mut inflated = Vec::new();
        if entry.path().to_string_lossy().ends_with(".gz") {
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut inflated)
                .unwrap();
        } else {
            inflated = bytes;
        }
        text.push_str(&String::from_utf8_lossy(&inflated));
    }
    text
}
