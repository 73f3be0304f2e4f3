//! `ldwarc monitor` on two nodes sharing one PostgreSQL state store (a real server on
//! loopback) over the loopback test web: documents on two pay-level domains that change on
//! known schedules (A every simulated day, B every 4th, E every 2nd, D never), one
//! `--once --now day-k` cycle per simulated day run by node n1 or n2 in turn, and on some days
//! by both at once. Asserts that the shared cycle lock refuses a cycle while another node's
//! runs (one clear line naming the holder) and that cycles never overlap; that every due URL
//! is fetched exactly once per day across both nodes; that a node SIGKILLed mid-cycle
//! neither blocks the other (its lock dies with its session) nor loses anything (the other
//! fetches the day's URLs again); that change detection compares with the
//! shared observations (no false detection, every download of A a change, although
//! consecutive downloads come from different nodes and roots); that the schedule converges
//! by change rate as on one node; and that each node writes valid WARC files, named after
//! it, under its own root.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeZone, Utc};
use common::{assert_warcs_valid, ldwarc, run};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_crawl::monitor::{MonitorTables, PgMonitorTable};
use ldwarc_dynamics::schedule::{ChangeHistory, write_histories};
use ldwarc_testweb::postgres as postgres_server;
use ldwarc_testweb::{Doc, Host, Resource, Term, TestWebServer, Triple, Web};

const DAYS: usize = 28;
const DAY: f64 = 86_400.0;

/// (host, path, changes every N days (0: never))
const DOCS: [(&str, &str, usize); 4] = [
    ("obs.example", "/a", 1),
    ("obs.example", "/b", 4),
    ("obs.example", "/d", 0),
    ("two.example", "/e", 2),
];

/// Days on which both nodes run a cycle at the same moment.
const BOTH: [usize; 4] = [0, 5, 11, 20];

/// The day node n1 is SIGKILLed mid-cycle and n2 runs the cycle again.
const KILLED: usize = 14;

fn url(host: &str, path: &str) -> String {
    format!("http://{host}{path}")
}

fn version(period: usize, day: usize) -> usize {
    day.checked_div(period).unwrap_or(0)
}

fn web() -> Web {
    let mut web = Web::new();
    for (name, path, period) in DOCS {
        let epochs = (0..DAYS)
            .map(|day| {
                vec![Triple::new(
                    Term::iri(url(name, path)),
                    Term::iri("http://example.org/vocab#version"),
                    Term::literal(format!("{path} version {}", version(period, day))),
                )]
            })
            .collect();
        web.hosts
            .entry(name.to_string())
            .or_insert_with(|| Host {
                latency: Duration::from_millis(5),
                ..Host::default()
            })
            .resources
            .insert(path.to_string(), Resource::Document(Doc { epochs }));
    }
    web
}

fn day_start(day: usize) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::days(day as i64)
}

fn truth() -> Vec<ChangeHistory> {
    let start = day_start(0).timestamp() as f64;
    DOCS.iter()
        .map(|&(host, path, period)| {
            let changes = (1..DAYS)
                .filter(|&d| version(period, d) != version(period, d - 1))
                .map(|d| start + d as f64 * DAY)
                .collect();
            ChangeHistory::new(url(host, path), start, start + DAYS as f64 * DAY, changes).unwrap()
        })
        .collect()
}

struct Nodes {
    database: String,
    roots: [PathBuf; 2],
    port: u16,
    truth: PathBuf,
}

impl Nodes {
    /// `ldwarc monitor --once` on node `n{index + 1}` for `day`.
    fn command(&self, index: usize, day: usize) -> Command {
        let mut command = ldwarc();
        command
            .arg("monitor")
            .arg("--root")
            .arg(&self.roots[index])
            .args([
                "--state",
                &self.database,
                "--node",
                &format!("n{}", index + 1),
            ])
            .args([
                "--once",
                "--format",
                "json",
                "--strategy",
                "fix",
                "--hops",
                "0",
            ])
            .args([
                "--initial-interval",
                "2d",
                "--delay",
                "200ms",
                "--timeout",
                "10s",
            ])
            .args(common::loopback_resolve(self.port))
            .arg("--now")
            .arg(day_start(day).to_rfc3339())
            .arg("--truth")
            .arg(&self.truth)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (host, path, _) in DOCS {
            command.arg(url(host, path));
        }
        command
    }

    fn spawn(&self, index: usize, day: usize) -> Child {
        self.command(index, day).spawn().unwrap()
    }
}

/// A cycle's JSON lines, or `None` when it was refused because another node's cycle ran.
fn outcome(output: Output, what: &str) -> Option<Vec<serde_json::Value>> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        assert!(
            stderr.contains("another monitor cycle is running"),
            "{what} failed: {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        return None;
    }
    Some(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
    )
}

/// The URLs a cycle report says were downloaded.
fn fetched(report: &serde_json::Value) -> Vec<String> {
    report["urls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["fetched"] == true)
        .map(|u| u["url"].as_str().unwrap().to_string())
        .collect()
}

/// Document requests (robots.txt left out) the server logged since `from`, by URL.
fn requested(server: &TestWebServer, from: usize) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for request in server.requests().iter().skip(from) {
        if request.path != "/robots.txt" {
            *counts.entry(url(&request.host, &request.path)).or_default() += 1;
        }
    }
    counts
}

/// Whether `database` holds a started cycle that has not finished.
fn cycle_running(database: &str) -> bool {
    let Ok(mut client) = postgres::Client::connect(database, postgres::NoTls) else {
        return false;
    };
    client
        .query("SELECT 1 FROM monitor_cycles WHERE finished IS NULL", &[])
        .map(|rows| !rows.is_empty())
        .unwrap_or(false)
}

/// Day `day`: n1 is SIGKILLed once its cycle has started; n2 then runs the day's cycle (as
/// soon as PostgreSQL has dropped the dead session's lock) and fetches every URL n1 may
/// have requested, n1 having committed nothing. Returns n2's downloads.
fn killed_cycle(nodes: &Nodes, server: &TestWebServer, day: usize, from: usize) -> usize {
    let mut first = nodes.spawn(0, day);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cycle_running(&nodes.database) {
        assert!(Instant::now() < deadline, "n1's cycle never started");
        assert!(
            first.try_wait().unwrap().is_none(),
            "n1 ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let lines = loop {
        let output = nodes.spawn(1, day).wait_with_output().unwrap();
        if let Some(lines) = outcome(output, &format!("day {day} node n2 after the kill")) {
            break lines;
        }
        assert!(
            Instant::now() < deadline,
            "the dead node's lock outlived it"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let downloads: BTreeSet<String> = fetched(&lines[0]).into_iter().collect();
    assert!(
        !downloads.is_empty(),
        "day {day}: nothing due after the kill"
    );
    let requests = requested(server, from);
    assert!(
        requests.values().all(|&n| n <= 2),
        "day {day}: more than the killed node's request and n2's: {requests:?}"
    );
    assert_eq!(
        requests.keys().cloned().collect::<BTreeSet<_>>(),
        downloads,
        "day {day}: n2 must fetch again everything the killed cycle did not commit"
    );
    downloads.len()
}

fn interval(members: &[ldwarc_crawl::monitor::Member], target: &str) -> f64 {
    members
        .iter()
        .find(|m| m.url == target)
        .unwrap_or_else(|| panic!("{target} not monitored"))
        .state
        .interval
        / DAY
}

fn node_files(root: &Path, node: &str) -> Vec<PathBuf> {
    let files = walk_warc_files(&root.join("warc")).unwrap();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(
            name.ends_with(&format!("-{node}.warc.gz")),
            "{name} does not carry the node name {node}"
        );
    }
    files
}

#[test]
fn two_monitor_nodes_share_one_schedule_and_take_turns() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("monitor_nodes");
    let server = TestWebServer::start(web()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let truth_file = dir.path().join("truth.jsonl");
    write_histories(std::fs::File::create(&truth_file).unwrap(), &truth()).unwrap();
    let nodes = Nodes {
        database: database.clone(),
        roots: [dir.path().join("root1"), dir.path().join("root2")],
        port: server.port(),
        truth: truth_file,
    };

    // While any session holds the shared cycle lock, a node's cycle is refused, naming it.
    {
        let mut holder = PgMonitorTable::connect(&database, "holder").unwrap();
        holder.lock().unwrap();
        let output = run(&mut nodes.command(0, 0));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("another monitor cycle is running"),
            "{stderr}"
        );
        assert!(stderr.contains("ldwarc monitor holder"), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
    assert!(server.requests().is_empty(), "a refused cycle fetched");

    let mut last_truth: Vec<serde_json::Value> = Vec::new();
    let mut by_node = [0usize; 2];
    for day in 0..DAYS {
        server.set_epoch(day);
        let from = server.requests().len();
        if day == KILLED {
            by_node[1] += killed_cycle(&nodes, &server, day, from);
            continue;
        }
        let runs: Vec<(usize, Output)> = if BOTH.contains(&day) {
            let children = [nodes.spawn(0, day), nodes.spawn(1, day)];
            children
                .into_iter()
                .enumerate()
                .map(|(i, child)| (i, child.wait_with_output().unwrap()))
                .collect()
        } else {
            let index = day % 2;
            vec![(index, nodes.spawn(index, day).wait_with_output().unwrap())]
        };
        let mut downloads: Vec<String> = Vec::new();
        let mut ran = 0;
        for (index, output) in runs {
            let Some(lines) = outcome(output, &format!("day {day} node n{}", index + 1)) else {
                continue;
            };
            ran += 1;
            by_node[index] += fetched(&lines[0]).len();
            downloads.extend(fetched(&lines[0]));
            last_truth = lines[1..].iter().map(|l| l["truth"].clone()).collect();
        }
        assert!(ran >= 1, "day {day}: no node ran a cycle");
        // Every due URL fetched once across both nodes, by the node that reported it.
        let unique: BTreeSet<&String> = downloads.iter().collect();
        assert_eq!(unique.len(), downloads.len(), "day {day}: {downloads:?}");
        let requests = requested(&server, from);
        assert!(
            requests.values().all(|&n| n == 1),
            "day {day}: a URL requested twice: {requests:?}"
        );
        assert_eq!(
            requests.keys().collect::<BTreeSet<_>>(),
            unique,
            "day {day}: requests and reported downloads differ"
        );
        if day == 0 {
            assert_eq!(
                downloads.len(),
                DOCS.len(),
                "day 0: every kernel URL is due"
            );
        }
    }
    assert!(
        by_node.iter().all(|&n| n > 0),
        "both nodes downloaded: {by_node:?}"
    );

    // Cycles never overlapped: each started after the previous one finished (the killed one
    // never finished and committed nothing).
    let mut table = PgMonitorTable::connect(&database, "checker").unwrap();
    let all_cycles = table.cycles().unwrap();
    assert!(all_cycles.len() > DAYS, "{} cycles", all_cycles.len());
    let cycles: Vec<_> = all_cycles.iter().filter(|c| c.finished.is_some()).collect();
    assert_eq!(all_cycles.len() - cycles.len(), 1, "only the killed cycle");
    for pair in cycles.windows(2) {
        let finished = pair[0].finished.clone().unwrap();
        assert!(
            pair[1].started >= finished,
            "cycle {} started at {} before cycle {} finished at {finished}",
            pair[1].cycle,
            pair[1].started,
            pair[0].cycle
        );
    }
    let ran_on: BTreeSet<Option<String>> = table
        .cycle_nodes()
        .unwrap()
        .into_iter()
        .map(|(_, node)| node)
        .collect();
    assert_eq!(
        ran_on,
        BTreeSet::from([Some("n1".to_string()), Some("n2".to_string())])
    );

    // Change detection used the shared observations: no false detection, and every download
    // of A (changed daily) a change, whichever node made the previous one.
    println!("url                        changes downloads detected recall precision");
    for s in &last_truth {
        println!(
            "  {:<26} {:>5} {:>8} {:>8} {:>7} {:>7}",
            s["url"].as_str().unwrap(),
            s["changes"],
            s["downloads"],
            s["detected"],
            format!("{:.3}", s["recall"].as_f64().unwrap_or(f64::NAN)),
            format!("{:.3}", s["precision"].as_f64().unwrap_or(f64::NAN)),
        );
        assert_eq!(
            s["false_detections"], 0,
            "a change that did not happen: {s}"
        );
    }
    let score = |name: &str| {
        last_truth
            .iter()
            .find(|s| s["url"] == name)
            .unwrap_or_else(|| panic!("no score for {name}"))
            .clone()
    };
    assert_eq!(score(&url("obs.example", "/a"))["precision"], 1.0);
    assert_eq!(score(&url("obs.example", "/d"))["detected"], 0);
    assert!(score("all")["recall"].as_f64().unwrap() > 0.3);

    // The shared schedule converges by change rate, as on one node.
    let members = table.members().unwrap();
    let a = interval(&members, &url("obs.example", "/a"));
    let b = interval(&members, &url("obs.example", "/b"));
    let d = interval(&members, &url("obs.example", "/d"));
    let e = interval(&members, &url("two.example", "/e"));
    println!("intervals after {DAYS} days (days): a {a:.2}, e {e:.2}, b {b:.2}, d {d:.2}");
    assert_eq!(a, 1.0, "A changes daily");
    assert!(a < b && b < d, "a {a}, b {b}, d {d}");
    assert!(e < d, "e {e}, d {d}");
    assert!(d > 4.0, "D never changes: growing toward 180 days ({d})");

    // Each node archived under its own root, in valid files named after it.
    for (index, root) in nodes.roots.iter().enumerate() {
        let files = node_files(root, &format!("n{}", index + 1));
        assert!(!files.is_empty(), "node n{} wrote nothing", index + 1);
        assert_warcs_valid(&files);
    }
}
