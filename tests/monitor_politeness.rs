//! Politeness across monitor cycles and processes: `ldwarc monitor` in loop mode, with
//! cycles longer than `--every` (so each starts right after the last), against a two-host
//! test web. The server's request log shows no two requests to a host closer than `--delay`,
//! across cycle boundaries and into a later `ldwarc crawl` process, and robots.txt fetched
//! once per host for all of it (its cache lifetime is 24 hours).

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use common::{ldwarc, run, stdout_ok};
use ldwarc_testweb::{Doc, Host, Resource, Robots, Term, TestWebServer, Triple, Web};

const HOSTS: [&str; 2] = ["a.example", "b.example"];
const PATHS: [&str; 3] = ["/1", "/2", "/3"];
const DELAY: f64 = 1.0;
const CYCLES: usize = 4;

fn web() -> Web {
    let mut web = Web::new();
    for host in HOSTS {
        let mut resources = BTreeMap::new();
        for path in PATHS {
            let triples = vec![Triple::new(
                Term::iri(format!("http://{host}{path}")),
                Term::iri("http://www.w3.org/2000/01/rdf-schema#label"),
                Term::literal(format!("{host}{path}")),
            )];
            resources.insert(
                path.to_string(),
                Resource::Document(Doc {
                    epochs: vec![triples],
                }),
            );
        }
        web.hosts.insert(
            host.to_string(),
            Host {
                robots: Robots::Text("User-agent: *\nAllow: /\n".into()),
                latency: Duration::from_millis(20),
                resources,
            },
        );
    }
    web
}

fn urls() -> Vec<String> {
    HOSTS
        .iter()
        .flat_map(|host| PATHS.iter().map(move |path| format!("http://{host}{path}")))
        .collect()
}

#[test]
fn no_host_is_contacted_within_the_delay_across_cycles_and_processes() {
    let server = TestWebServer::start(web()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let delay = format!("{DELAY}s");
    let mut child = ldwarc()
        .arg("monitor")
        .arg("--root")
        .arg(root.path())
        .args([
            "--format",
            "json",
            "--strategy",
            "fix",
            "--hops",
            "0",
            "--every",
            "1s",
        ])
        .args(["--initial-interval", "1s", "--min-interval", "1s"])
        .args(["--delay", &delay, "--timeout", "10s"])
        .args(common::loopback_resolve(server.port()))
        .args(urls())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ldwarc monitor");
    let stdout = child.stdout.take().unwrap();
    let mut cycles = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        if value.get("cycle").is_some() {
            cycles.push(value);
            if cycles.len() == CYCLES {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(cycles.len(), CYCLES, "the monitor stopped early");
    for cycle in &cycles {
        assert_eq!(cycle["fetched"], 6, "{cycle}");
        assert!(
            cycle["cycle_s"].as_f64().unwrap() > 1.0,
            "a cycle shorter than --every: {cycle}"
        );
    }

    // A crawl in a new process right after the monitor.
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--hops", "0", "--delay", &delay])
        .args(common::loopback_resolve(server.port()))
        .arg("http://a.example/1"));
    stdout_ok(&output, "ldwarc crawl");

    let log = server.requests();
    let mut by_host: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for request in &log {
        by_host
            .entry(request.host.as_str())
            .or_default()
            .push(request);
    }
    let floor = Duration::from_secs_f64(DELAY) - Duration::from_millis(20);
    for (host, mut requests) in by_host {
        requests.sort_by_key(|r| r.received_instant);
        let robots = requests.iter().filter(|r| r.path == "/robots.txt").count();
        if robots != 1 {
            let store = ldwarc_state::StateStore::open(&root.path().join("state")).unwrap();
            let rows: Vec<String> = store
                .fetch_log(None)
                .unwrap()
                .iter()
                .filter(|e| e.url.contains(host))
                .map(|e| {
                    format!(
                        "{} {} {:?} {:?} {:?}",
                        e.time, e.url, e.status, e.change, e.error
                    )
                })
                .collect();
            panic!("{host}: robots.txt fetched {robots} times; crawl log: {rows:#?}");
        }
        let expected = 1 + PATHS.len() * CYCLES + usize::from(host == "a.example");
        assert_eq!(requests.len(), expected, "{host}");
        for pair in requests.windows(2) {
            let gap = pair[1].received_instant - pair[0].received_instant;
            assert!(
                gap >= floor,
                "{host}: {} then {} only {gap:?} apart",
                pair[0].path,
                pair[1].path
            );
        }
    }
}
