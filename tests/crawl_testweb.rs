//! `ldwarc crawl` against the fixture Linked Data web on loopback: exactly the documents
//! within the hop limit, robots.txt obeyed, per-PLD delay kept (by the server's clock), 303
//! chains archived hop by hop, revisits on an unchanged web, changes caught after an epoch
//! switch, every file valid for warcio, every capture in the index, and the same through the
//! proxy option.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{ldwarc, run, stdout_ok};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_state::{Change, StateStore};
use ldwarc_testweb::{TestWebServer, Web};
use ldwarc_warc::WarcReader;

const DELAY: f64 = 0.3;

fn crawl(root: &Path, network: &[String], seeds: &[String]) -> serde_json::Value {
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args([
            "--delay",
            &format!("{DELAY}s"),
            "--hops",
            "2",
            "--timeout",
            "10s",
            "--format",
            "json",
        ])
        .args(network)
        .args(seeds));
    let text = stdout_ok(&output, "ldwarc crawl");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("summary {text:?}: {e}"))
}

/// (WARC-Type, target URI, HTTP status) of every record under `root/warc`, and the files.
type RecordSummary = (String, String, Option<u16>, Option<String>);

fn read_records(root: &Path) -> (Vec<RecordSummary>, Vec<std::path::PathBuf>) {
    let files = walk_warc_files(&root.join("warc")).unwrap();
    (records_of(&files), files)
}

fn records_of(files: &[std::path::PathBuf]) -> Vec<RecordSummary> {
    let mut all = Vec::new();
    for file in files {
        let mut reader = WarcReader::open(file).unwrap();
        while let Some(record) = reader.next_record() {
            let mut record = record.unwrap();
            let kind = record.header.record_type().unwrap_or("").to_string();
            let uri = record.header.target_uri().unwrap_or("").to_string();
            let profile = record.header.get("WARC-Profile").map(str::to_string);
            let mut block = Vec::new();
            std::io::Read::read_to_end(&mut record, &mut block).unwrap();
            let status = if matches!(kind.as_str(), "response" | "revisit") {
                ldwarc_warc::http::parse_head(&block).and_then(|(h, _)| h.status)
            } else {
                None
            };
            record.finish().unwrap();
            all.push((kind, uri, status, profile));
        }
    }
    all
}

fn warcio_check(files: &[std::path::PathBuf]) {
    common::assert_warcs_valid(files);
}

#[test]
fn crawl_of_the_fixture_web() {
    let web = Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let reach = web.reach(&seeds, 2, 0);
    let server = TestWebServer::start(web).unwrap();
    let network = common::loopback_resolve(server.port());
    let root = tempfile::tempdir().unwrap();
    let summary = crawl(root.path(), &network, &seeds);
    let requests = server.requests();

    // Every URL within the hop limit requested exactly once; nothing else but robots.txt.
    let mut requested: BTreeMap<String, usize> = BTreeMap::new();
    for request in requests.iter().filter(|r| r.path != "/robots.txt") {
        *requested.entry(request.url()).or_default() += 1;
    }
    let expected: BTreeSet<String> = reach.hops.keys().cloned().collect();
    assert_eq!(
        requested.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "requested URLs differ from those within 2 hops"
    );
    for (url, count) in &requested {
        assert_eq!(*count, 1, "{url} requested {count} times");
    }
    for url in &reach.disallowed {
        assert!(!requested.contains_key(url), "robots.txt disallows {url}");
    }
    assert!(
        !reach.disallowed.is_empty(),
        "the fixture web must test robots.txt"
    );

    // Politeness by the server's clock: per PLD, requests at least DELAY apart.
    crate::cluster::assert_spaced(&requests, DELAY);

    // Every request archived: request + response + metadata, 303 hops included.
    let (records, files) = read_records(root.path());
    warcio_check(&files);
    let responses: BTreeMap<&str, Option<u16>> = records
        .iter()
        .filter(|r| r.0 == "response")
        .map(|r| (r.1.as_str(), r.2))
        .collect();
    for url in &expected {
        assert!(responses.contains_key(url.as_str()), "{url} not archived");
    }
    assert!(
        responses.values().any(|s| *s == Some(303)),
        "the 303 hops are archived"
    );
    let count = |kind: &str| records.iter().filter(|r| r.0 == kind).count();
    assert_eq!(count("request"), count("response"));
    assert_eq!(count("metadata"), count("response"));
    assert_eq!(
        summary["captures"].as_u64().unwrap() as usize,
        count("response")
    );

    // The index finds every capture.
    for url in &expected {
        let output = run(ldwarc().args(["query", "--root"]).arg(root.path()).arg(url));
        let text = stdout_ok(&output, "ldwarc query");
        assert!(text.contains(url.as_str()), "index lacks {url}: {text}");
    }

    // The crawl log has one row per request.
    let store = StateStore::open(&root.path().join("state")).unwrap();
    let log = store.fetch_log(None).unwrap();
    assert_eq!(log.len(), requests.len() + reach.disallowed.len());
    assert_eq!(
        log.iter().filter(|e| e.change == Change::Excluded).count(),
        reach.disallowed.len()
    );

    // An unchanged web: only revisits, small on disk.
    let before: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    server.clear_log();
    let second = crawl(root.path(), &network, &seeds);
    let (records_after, files_after) = read_records(root.path());
    warcio_check(&files_after);
    let new_files: Vec<_> = files_after
        .iter()
        .filter(|f| !files.contains(f))
        .cloned()
        .collect();
    let new_records = records_of(&new_files);
    assert_eq!(records_after.len(), records.len() + new_records.len());
    let new_main: Vec<_> = new_records
        .iter()
        .filter(|r| matches!(r.0.as_str(), "response" | "revisit"))
        .collect();
    let revisits = new_main.iter().filter(|r| r.0 == "revisit").count();
    let fresh_responses: Vec<_> = new_main
        .iter()
        .filter(|r| r.0 == "response" && !r.1.ends_with("/robots.txt"))
        .filter(|r| !matches!(r.2, Some(301..=308)))
        .collect();
    if !fresh_responses.is_empty() {
        let log = StateStore::open(&root.path().join("state"))
            .unwrap()
            .fetch_log(None)
            .unwrap();
        for entry in log
            .iter()
            .filter(|e| fresh_responses.iter().any(|r| r.1 == e.url))
        {
            eprintln!(
                "{} {} {:?} {:?} {:?}",
                entry.url, entry.hops, entry.status, entry.change, entry.kind
            );
        }
        panic!("unchanged documents written as responses: {fresh_responses:?}");
    }
    assert!(revisits >= reach.documents.len(), "{revisits} revisits");
    let after: u64 = files_after
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let per_capture = (after - before) / second["captures"].as_u64().unwrap();
    assert!(
        per_capture < 2048,
        "{per_capture} bytes per unchanged capture"
    );

    // Epoch 1: changed documents become responses again, with the log saying so.
    server.set_epoch(1);
    crawl(root.path(), &network, &seeds);
    let log = store.fetch_log(None).unwrap();
    let last_crawl: Vec<_> = log.iter().rev().take(requests.len()).collect();
    assert!(
        last_crawl.iter().any(|e| e.change == Change::Changed),
        "epoch 1 changes some documents"
    );
    assert!(last_crawl.iter().any(|e| e.change == Change::Unchanged));
}

#[test]
fn crawl_through_the_proxy_option() {
    let web = Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let expected = web.urls_within_hops(&seeds, 1, 0);
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args([
            "--delay",
            "0.05s",
            "--hops",
            "1",
            "--proxy",
            &server.proxy_url(),
        ])
        .args(&seeds));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let requests = server.requests();
    assert!(
        requests.iter().all(|r| r.target.starts_with("http://")),
        "absolute-form requests"
    );
    let (records, files) = read_records(root.path());
    warcio_check(&files);
    for url in &expected {
        assert!(
            records.iter().any(|r| r.0 == "response" && &r.1 == url),
            "{url} not archived through the proxy"
        );
    }
}
