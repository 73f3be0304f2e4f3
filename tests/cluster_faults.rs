//! Three `ldwarc crawl` nodes over one PostgreSQL frontier while one of them has a bad day,
//! judged from the test web's own request log: a node stopped (SIGSTOP) for longer than its
//! lease lifetime, and a node whose database connections hang (its PostgreSQL backends
//! stopped). In both, no two requests to one PLD come closer than the delay whichever nodes
//! sent them, every document within the hop limit is captured, and a URL is fetched twice
//! only if it was in flight when its lease was taken over.

use crate::common;
use crate::multi_node::{
    MAX_PLDS, assert_spacing, counts, finished, node, responses, setup, wait_for_crawl, warc_files,
};

use ldwarc_testweb::postgres as postgres_server;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::time::{Duration, Instant};

/// Longer than the nodes' lease lifetime (2 s), so the other nodes take the PLDs over.
const FAULT: Duration = Duration::from_secs(5);

/// Sends `signal` (`STOP`, `CONT`) to a process.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Blocks until n3 holds a PLD with work left and some fetches are logged: mid-crawl.
fn wait_until_n3_is_busy(database: &str) {
    let mut client = postgres::Client::connect(database, postgres::NoTls).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "n3 never fetched anything");
        let held: i64 = client
            .query_one(
                "SELECT count(*) FROM pld_leases l WHERE l.holder = 'n3'
                   AND EXISTS (SELECT 1 FROM frontier f
                               WHERE f.crawl = l.crawl AND f.pld = l.pld AND NOT f.done)",
                &[],
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

/// Starts n1 with the seeds, then n2 and n3 joining; each connects as application `nX`, so
/// its PostgreSQL backends can be found in `pg_stat_activity`.
fn start_three(
    database: &str,
    roots: &[tempfile::TempDir],
    server: &ldwarc_testweb::TestWebServer,
    seeds: &[String],
) -> Vec<Child> {
    let url = |name: &str| format!("{database}?application_name={name}");
    let first = node(&url("n1"), "n1", roots[0].path(), server, seeds);
    wait_for_crawl(database);
    vec![
        first,
        node(&url("n2"), "n2", roots[1].path(), server, &[]),
        node(&url("n3"), "n3", roots[2].path(), server, &[]),
    ]
}

/// Waits for every node; returns n3's standard error.
fn finish_all(children: Vec<Child>) -> String {
    let mut n3_stderr = String::new();
    for (child, name) in children.into_iter().zip(["n1", "n2", "n3"]) {
        if name == "n3" {
            let output = child.wait_with_output().unwrap();
            n3_stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert!(
                output.status.success(),
                "n3 failed ({}):\n{}\n{n3_stderr}",
                output.status,
                String::from_utf8_lossy(&output.stdout)
            );
        } else {
            finished(child, name);
        }
    }
    n3_stderr
}

/// What every fault must leave: politeness across nodes and nothing lost. A document is
/// fetched twice only for a PLD taken over with a fetch not yet committed, at most one per
/// PLD the faulty node held, and, when the node's database hung, only if the node fetched it
/// before its lease deadline (its first request before `uncommitted_until`).
fn assert_whole_and_polite(
    roots: &[tempfile::TempDir],
    expected: &BTreeSet<String>,
    server: &ldwarc_testweb::TestWebServer,
    uncommitted_until: Option<Instant>,
) {
    let requests = server.requests();
    assert_spacing(&requests);
    let mut all = Vec::new();
    for root in roots {
        let files = warc_files(root.path());
        common::assert_warcs_valid(&files);
        all.extend(responses(&files));
    }
    let captured = counts(&all);
    assert_eq!(
        &captured.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "captured URLs differ from those within 2 hops"
    );
    let mut requested: BTreeMap<String, usize> = BTreeMap::new();
    for request in requests.iter().filter(|r| r.path != "/robots.txt") {
        *requested.entry(request.url()).or_default() += 1;
    }
    let repeated: Vec<_> = requested.iter().filter(|(_, count)| **count > 1).collect();
    assert!(requested.values().all(|count| *count <= 2), "{repeated:?}");
    // A node sends a PLD its next request only after the previous fetch's commit, so at a
    // takeover at most the one uncommitted fetch per PLD it held is repeated.
    assert!(repeated.len() <= MAX_PLDS, "requested twice: {repeated:?}");
    match uncommitted_until {
        None => {}
        Some(until) => {
            for (url, _) in &repeated {
                let first = requests
                    .iter()
                    .filter(|r| r.url() == **url)
                    .map(|r| r.received_instant)
                    .min()
                    .unwrap();
                assert!(
                    first < until,
                    "{url} requested twice, the first time {:?} after the lease deadline",
                    first - until
                );
            }
        }
    }
}

#[test]
fn a_node_stopped_past_its_lease_lifetime_sends_nothing_when_it_resumes() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("fault_sigstop");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children = start_three(&database, &roots, &server, &seeds);
    wait_until_n3_is_busy(&database);

    let n3 = children[2].id();
    signal(n3, "STOP");
    std::thread::sleep(FAULT);
    signal(n3, "CONT");
    let resumed = Instant::now();

    finish_all(children);
    assert_whole_and_polite(&roots, &expected, &server, None);
    // The others went on while n3 was stopped (its PLDs among theirs).
    let during = server
        .requests()
        .iter()
        .filter(|r| r.received_instant > resumed - FAULT && r.received_instant < resumed)
        .count();
    assert!(during > 0, "nobody crawled while n3 was stopped");
}

#[test]
fn a_node_whose_database_hangs_stops_fetching_before_its_leases_lapse() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("fault_db_hang");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children = start_three(&database, &roots, &server, &seeds);
    wait_until_n3_is_busy(&database);

    // Every backend serving n3 stops: its statements neither answer nor fail.
    let mut client = postgres::Client::connect(&database, postgres::NoTls).unwrap();
    let backends: Vec<i32> = client
        .query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'n3'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(!backends.is_empty(), "n3 has no PostgreSQL connection");
    // n3's last renewal came before the freeze: its requests stop ¾ TTL after it at most.
    let deadline = Instant::now() + Duration::from_millis(1500);
    for pid in &backends {
        signal(pid.unsigned_abs(), "STOP");
    }
    std::thread::sleep(FAULT);
    for pid in &backends {
        signal(pid.unsigned_abs(), "CONT");
    }

    let n3_stderr = finish_all(children);
    assert_whole_and_polite(&roots, &expected, &server, Some(deadline));
    // n3 was fetching when its database froze: that fetch's commit, answered after the
    // thaw, finds the PLD taken over and writes nothing (its request was before the deadline,
    // as the request log above shows; later ones wait for that commit or the deadline).
    assert!(
        n3_stderr.contains("lost its lease on"),
        "n3's commit after the freeze was not fenced:\n{n3_stderr}"
    );
}

#[test]
fn a_killed_nodes_committed_captures_are_indexed_by_recover() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("fault_recover");
    let (_, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut children = start_three(&database, &roots, &server, &seeds);
    wait_until_n3_is_busy(&database);
    let mut killed = children.pop().unwrap();
    killed.kill().unwrap();
    killed.wait().unwrap();
    for (child, name) in children.into_iter().zip(["n1", "n2"]) {
        finished(child, name);
    }

    let output = common::run(
        common::ldwarc()
            .arg("recover")
            .arg("--root")
            .arg(roots[2].path()),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "ldwarc recover: {stdout}");
    assert!(stdout.contains("indexed "), "{stdout}");

    // Every capture n3 committed to the shared crawl log is in n3's index now.
    let mut client = postgres::Client::connect(&database, postgres::NoTls).unwrap();
    let committed: BTreeSet<String> = client
        .query(
            "SELECT url FROM fetches WHERE record_id IS NOT NULL AND warc_file LIKE '%-n3.warc.gz'",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(
        !committed.is_empty(),
        "n3 committed nothing before the kill"
    );
    let output = common::run(
        common::ldwarc()
            .arg("cdx")
            .arg("--root")
            .arg(roots[2].path()),
    );
    assert!(output.status.success());
    let indexed: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.splitn(3, ' ').nth(2))
        .filter_map(|json| serde_json::from_str::<serde_json::Value>(json).ok())
        .filter_map(|fields| fields["url"].as_str().map(str::to_string))
        .collect();
    let missing: Vec<&String> = committed.difference(&indexed).collect();
    assert!(missing.is_empty(), "committed but not indexed: {missing:?}");
}
