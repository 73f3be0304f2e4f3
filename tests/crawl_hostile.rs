//! `ldwarc crawl` against hostile servers: hanging connections, endless bodies, a gzip bomb,
//! redirect loops, invalid UTF-8, malformed RDF, a huge robots.txt, a hanging robots.txt,
//! resets, garbage, a huge head and 429 with Retry-After. The crawl finishes, logs each
//! failure, keeps the good documents, writes valid WARC files and stays under a memory bound.

use crate::common;

use std::time::{Duration, Instant};

use common::{assert_warcs_valid, ldwarc, run, stdout_ok};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_state::{Change, StateStore};
use ldwarc_testweb::{Doc, Hostile, Resource, Robots, Term, TestWebServer, Triple, Web};

/// Peak memory the crawl may use: its bodies are capped and spooled, its decoding is capped.
const MEMORY_BOUND: u64 = 300 * 1024 * 1024;

fn doc(links: &[&str]) -> Resource {
    let triples = links
        .iter()
        .map(|link| {
            Triple::new(
                Term::iri("http://good.example/start"),
                Term::iri("http://www.w3.org/2000/01/rdf-schema#seeAlso"),
                Term::iri(*link),
            )
        })
        .collect();
    Resource::Document(Doc::new(triples))
}

fn hostile_web() -> (Web, Vec<(String, &'static str)>) {
    let cases: Vec<(&str, Hostile, &str)> = vec![
        ("hang", Hostile::HangBeforeHead, "within 3s"),
        ("hang-after-head", Hostile::HangAfterHead, "truncated"),
        ("endless", Hostile::EndlessBody, "truncated (length)"),
        (
            "trickle",
            Hostile::Trickle {
                bytes_per_sec: 2000,
            },
            "truncated (time)",
        ),
        ("bomb", Hostile::GzipBomb, "exceeds the limit"),
        ("loop", Hostile::RedirectLoop, "redirect"),
        ("utf8", Hostile::InvalidUtf8, ""),
        ("malformed", Hostile::MalformedRdf, ""),
        ("reset", Hostile::Reset, ""),
        (
            "reset-mid-body",
            Hostile::ResetMidBody,
            "truncated (disconnect)",
        ),
        ("garbage", Hostile::Garbage, ""),
        ("huge-head", Hostile::HugeHead, "head"),
        (
            "busy",
            Hostile::TooManyRequests {
                retry_after_secs: 1,
            },
            "",
        ),
    ];
    let mut web = Web::new();
    let mut urls = Vec::new();
    for (name, behaviour, expected_error) in cases {
        let url = format!("http://{name}.example/x");
        web.insert(&url, Resource::Hostile(behaviour)).unwrap();
        urls.push((url, expected_error));
    }
    let mut links: Vec<&str> = urls.iter().map(|(u, _)| u.as_str()).collect();
    links.push("http://huge-robots.example/doc");
    links.push("http://hanging-robots.example/doc");
    web.insert("http://good.example/start", doc(&links))
        .unwrap();
    web.insert("http://huge-robots.example/doc", doc(&[]))
        .unwrap();
    web.insert("http://hanging-robots.example/doc", doc(&[]))
        .unwrap();
    web.hosts.get_mut("huge-robots.example").unwrap().robots = Robots::Huge(20 * 1024 * 1024);
    web.hosts.get_mut("hanging-robots.example").unwrap().robots = Robots::Hang;
    web.seeds = vec!["http://good.example/start".into()];
    (web, urls)
}

#[test]
fn hostile_servers_never_stop_a_crawl() {
    let (web, cases) = hostile_web();
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.1s", "--hops", "1", "--timeout", "3s"])
        .args(["--max-body", "1000000", "--format", "json"])
        .args(common::loopback_resolve(server.port()))
        .arg("http://good.example/start"));
    let text = stdout_ok(&output, "ldwarc crawl");
    let summary: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "the crawl took {:?}",
        started.elapsed()
    );
    let peak = summary["peak_rss_bytes"]
        .as_u64()
        .expect("peak RSS reported");
    assert!(peak < MEMORY_BOUND, "peak RSS {} MB", peak / 1024 / 1024);

    let store = StateStore::open(&root.path().join("state")).unwrap();
    let log = store.fetch_log(None).unwrap();
    let mut mismatches = Vec::new();
    for (url, expected_error) in &cases {
        let entries: Vec<_> = log.iter().filter(|e| &e.url == url).collect();
        assert!(!entries.is_empty(), "{url} not in the crawl log");
        let errors: Vec<String> = entries.iter().filter_map(|e| e.error.clone()).collect();
        if !expected_error.is_empty() && !errors.iter().any(|e| e.contains(expected_error)) {
            mismatches.push(format!(
                "{url}: expected {expected_error:?}, logged {errors:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    let failed = |url: &str| {
        log.iter()
            .filter(|e| e.url == url)
            .all(|e| e.change == Change::Failed || e.error.is_some())
    };
    for url in [
        "http://hang.example/x",
        "http://reset.example/x",
        "http://garbage.example/x",
    ] {
        assert!(failed(url), "{url} must be logged as failed");
    }
    // Malformed and invalid documents keep the links read before the error.
    for url in ["http://malformed.example/x", "http://utf8.example/x"] {
        let entry = log.iter().find(|e| e.url == url).unwrap();
        assert!(entry.error.is_some(), "{url}: the parse error is logged");
    }
    // 429 with Retry-After: retried, and the retry succeeded.
    let busy: Vec<_> = log
        .iter()
        .filter(|e| e.url == "http://busy.example/x")
        .collect();
    assert_eq!(
        busy.iter().map(|e| e.status).collect::<Vec<_>>(),
        vec![Some(429), Some(200)],
        "429 then a retry"
    );
    // A huge robots.txt is read (its first 500 KiB) and the host crawled; a hanging one
    // disallows the host after the timeout.
    let doc_of = |url: &str| log.iter().find(|e| e.url == url).map(|e| e.change);
    assert_eq!(doc_of("http://huge-robots.example/doc"), Some(Change::New));
    assert_eq!(
        doc_of("http://hanging-robots.example/doc"),
        Some(Change::Excluded)
    );

    // Every file is valid.
    let files = walk_warc_files(&root.path().join("warc")).unwrap();
    assert_warcs_valid(&files);
}
