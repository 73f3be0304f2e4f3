//! What the tests of shared crawls (several `ldwarc crawl` nodes over one PostgreSQL
//! frontier and the generated loopback test web) have in common: starting nodes and waiting
//! for them, reading what they captured, and judging the web server's request log.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ldwarc_archive::archive::{OPEN_SUFFIX, walk_warc_files};
use ldwarc_surt::pay_level_domain;
use ldwarc_testweb::{GenSpec, LoggedRequest, TestWebServer, Web};
use ldwarc_warc::WarcReader;

pub(crate) const DELAY: f64 = 0.3;
pub(crate) const LEASE_TTL: &str = "2s";
pub(crate) const MAX_PLDS: usize = 2;

/// A web of 8 PLDs, about 100 documents, the biggest PLD about 24.
fn web() -> Web {
    Web::generate(GenSpec {
        plds: 8,
        max_docs_per_pld: 24,
        power_law_exponent: 0.5,
        links_per_doc: 3,
        latency: Duration::from_millis(5),
        seed: 9,
    })
}

/// The command of one node: `--delay 0.3s --hops 2 --lease-ttl 2s`, a User-Agent naming the
/// node (so the request log tells which node sent what); `seeds` empty means `--join`.
pub(crate) fn node_command(
    database: &str,
    name: &str,
    root: &Path,
    server: &TestWebServer,
    seeds: &[String],
) -> Command {
    let mut command = common::ldwarc();
    command
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args(["--state", database, "--node", name])
        .args([
            "--delay",
            &format!("{DELAY}s"),
            "--hops",
            "2",
            "--timeout",
            "10s",
        ])
        .args(["--lease-ttl", LEASE_TTL])
        .args(["--user-agent", &format!("ldwarc/test (node {name})")])
        .args(["--format", "json"])
        .args(common::loopback_resolve(server.port()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if seeds.is_empty() {
        command.arg("--join");
    } else {
        command.args(seeds);
    }
    command
}

/// Starts one node holding at most [`MAX_PLDS`] PLDs; `seeds` empty means `--join`.
pub(crate) fn node(
    database: &str,
    name: &str,
    root: &Path,
    server: &TestWebServer,
    seeds: &[String],
) -> Child {
    node_command(database, name, root, server, seeds)
        .args(["--max-plds", &MAX_PLDS.to_string()])
        .spawn()
        .unwrap()
}

/// Waits for a node; panics with its output unless it succeeded. Returns its summary.
pub(crate) fn finished(child: Child, name: &str) -> serde_json::Value {
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node {name} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{name}: {stdout:?}: {e}"))
}

/// Blocks until the shared store has a crawl, so that the other nodes can join it.
pub(crate) fn wait_for_crawl(database: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(mut client) = postgres::Client::connect(database, postgres::NoTls) {
            let started = client
                .query("SELECT 1 FROM crawls", &[])
                .map(|rows| !rows.is_empty())
                .unwrap_or(false);
            if started {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the first node never started a crawl in {database}");
}

/// Every WARC file of a root, including those a killed node left open.
pub(crate) fn warc_files(root: &Path) -> Vec<PathBuf> {
    let mut files = walk_warc_files(&root.join("warc")).unwrap_or_default();
    let mut pending = vec![root.join("warc")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(OPEN_SUFFIX) {
                files.push(path);
            }
        }
    }
    files
}

/// Target URIs of the response records of documents (robots.txt left out), read up to any
/// damaged tail.
pub(crate) fn responses(files: &[PathBuf]) -> Vec<String> {
    let mut uris = Vec::new();
    for file in files {
        let mut reader = WarcReader::open(file).unwrap();
        while let Some(Ok(mut record)) = reader.next_record() {
            let kind = record.header.record_type().unwrap_or("").to_string();
            let uri = record.header.target_uri().unwrap_or("").to_string();
            if std::io::copy(&mut record, &mut std::io::sink()).is_err() || record.finish().is_err()
            {
                break;
            }
            if matches!(kind.as_str(), "response" | "revisit") && !uri.ends_with("/robots.txt") {
                uris.push(uri);
            }
        }
    }
    uris
}

/// How often each URL occurs.
pub(crate) fn counts(uris: &[String]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for uri in uris {
        *counts.entry(uri.clone()).or_default() += 1;
    }
    counts
}

/// Per PLD, by the server's clock, no two requests (robots.txt included) closer than the
/// delay, whichever nodes sent them.
pub(crate) fn assert_spacing(requests: &[LoggedRequest]) {
    assert_spaced(requests, DELAY);
}

/// Per PLD, by the server's clock, no two requests closer than `delay` seconds (with 2 ms of
/// slack for the time between the crawler's clock reading and the server's reading of the
/// finished request head).
pub(crate) fn assert_spaced(requests: &[LoggedRequest], delay: f64) {
    let mut by_pld: BTreeMap<String, Vec<(Instant, String)>> = BTreeMap::new();
    for request in requests {
        by_pld
            .entry(pay_level_domain(&request.host))
            .or_default()
            .push((request.received_instant, request.url()));
    }
    for (pld, mut times) in by_pld {
        times.sort();
        for pair in times.windows(2) {
            let gap = pair[1].0 - pair[0].0;
            assert!(
                gap + Duration::from_millis(2) >= Duration::from_secs_f64(delay),
                "{pld}: two requests {gap:?} apart: {pair:?}"
            );
        }
    }
}

/// The documents a crawl must capture, and the web's server.
pub(crate) fn setup() -> (BTreeSet<String>, Vec<String>, TestWebServer) {
    let web = web();
    let seeds = web.seeds.clone();
    let reach = web.reach(&seeds, 2, 0);
    let expected: BTreeSet<String> = reach.hops.keys().cloned().collect();
    assert!(expected.len() > 60, "{} URLs", expected.len());
    (expected, seeds, TestWebServer::start(web).unwrap())
}

/// Starts n1 with the seeds, then (once its crawl exists) n2 and n3 joining, each with
/// `start`; each connects as application `nX`, so its PostgreSQL backends can be found in
/// `pg_stat_activity`.
pub(crate) fn start_three_with(
    database: &str,
    roots: &[tempfile::TempDir],
    server: &TestWebServer,
    seeds: &[String],
    start: fn(&str, &str, &Path, &TestWebServer, &[String]) -> Child,
) -> Vec<Child> {
    let url = |name: &str| format!("{database}?application_name={name}");
    let first = start(&url("n1"), "n1", roots[0].path(), server, seeds);
    wait_for_crawl(database);
    vec![
        first,
        start(&url("n2"), "n2", roots[1].path(), server, &[]),
        start(&url("n3"), "n3", roots[2].path(), server, &[]),
    ]
}

/// [`start_three_with`] [`node`].
pub(crate) fn start_three(
    database: &str,
    roots: &[tempfile::TempDir],
    server: &TestWebServer,
    seeds: &[String],
) -> Vec<Child> {
    start_three_with(database, roots, server, seeds, node)
}

/// Waits for n1, n2 and n3 (in that order); returns their summaries.
pub(crate) fn finish_three(children: Vec<Child>) -> Vec<serde_json::Value> {
    children
        .into_iter()
        .zip(["n1", "n2", "n3"])
        .map(|(child, name)| finished(child, name))
        .collect()
}

/// Blocks until the crawl is well under way: some fetches committed and, with `holder`,
/// that node holding a PLD with work left (not merely cooling down after its last URL).
pub(crate) fn wait_until_busy(database: &str, holder: Option<&str>) {
    let mut client = postgres::Client::connect(database, postgres::NoTls).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            Instant::now() < deadline,
            "the crawl never got going ({holder:?})"
        );
        let held: i64 = client
            .query_one(
                "SELECT count(*) FROM pld_leases l WHERE ($1::TEXT IS NULL OR l.holder = $1)
                   AND EXISTS (SELECT 1 FROM frontier f
                               WHERE f.crawl = l.crawl AND f.pld = l.pld AND NOT f.done)",
                &[&holder],
            )
            .unwrap()
            .get(0);
        let logged: i64 = client
            .query_one("SELECT count(*) FROM fetches", &[])
            .unwrap()
            .get(0);
        if held > 0 && logged >= 15 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What the roots captured, by URL (n3's open files included), after checking that every
/// WARC file is valid and that the URLs are exactly `expected`.
pub(crate) fn assert_captured(
    roots: &[tempfile::TempDir],
    expected: &BTreeSet<String>,
) -> BTreeMap<String, usize> {
    let mut all = Vec::new();
    for root in roots {
        let files = warc_files(root.path());
        // A node that never held a PLD with work left wrote no file; the URL set below
        // still has to come out whole from the others.
        if !files.is_empty() {
            common::assert_warcs_valid(&files);
        }
        all.extend(responses(&files));
    }
    let captured = counts(&all);
    assert_eq!(
        &captured.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "captured URLs differ from those within 2 hops"
    );
    captured
}

/// How often each document (robots.txt left out) was requested.
pub(crate) fn requested(requests: &[LoggedRequest]) -> BTreeMap<String, usize> {
    let documents: Vec<String> = requests
        .iter()
        .filter(|r| r.path != "/robots.txt")
        .map(LoggedRequest::url)
        .collect();
    counts(&documents)
}

/// The node that sent a request: the User-Agent [`node_command`] gives each node.
fn sender(request: &LoggedRequest) -> &str {
    request.header("user-agent").unwrap_or("")
}

/// A document is requested twice only when its first request was in flight at a takeover:
/// that request is the last its node sent to the PLD before another node's first request
/// there (a node sends a PLD its next request only after the previous fetch's commit, so a
/// takeover can leave at most that one fetch uncommitted). Never three times. Returns the
/// documents requested twice.
pub(crate) fn assert_repeats_only_at_takeovers(requests: &[LoggedRequest]) -> Vec<String> {
    let mut by_time: Vec<&LoggedRequest> = requests.iter().collect();
    by_time.sort_by_key(|r| r.received_instant);
    let repeated: Vec<String> = requested(requests)
        .into_iter()
        .filter(|(_, count)| *count > 1)
        .map(|(url, count)| {
            assert_eq!(count, 2, "{url} requested {count} times");
            url
        })
        .collect();
    for url in &repeated {
        let first = by_time
            .iter()
            .position(|r| r.url() == *url)
            .expect("a repeated URL was requested");
        let pld = pay_level_domain(&by_time[first].host);
        let next = by_time[first + 1..]
            .iter()
            .find(|r| pay_level_domain(&r.host) == pld)
            .expect("the second request comes later");
        assert_ne!(
            sender(next),
            sender(by_time[first]),
            "{url} requested twice, though its node's next request to {pld} was its own ({}): \
             no takeover came between",
            next.url()
        );
    }
    repeated
}
