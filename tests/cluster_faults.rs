//! Three `ldwarc crawl` nodes over one PostgreSQL frontier while one of them has a bad day,
//! judged from the test web's own request log: a node stopped (SIGSTOP) for longer than its
//! lease lifetime, and a node whose database connections hang (its PostgreSQL backends
//! stopped). In both, no two requests to one PLD come closer than the delay whichever nodes
//! sent them, every document within the hop limit is captured, and a URL is fetched twice
//! only if it was in flight when its lease was taken over.

use crate::cluster::{
    assert_captured, assert_repeats_only_at_takeovers, assert_spacing, finish_three, finished,
    setup, start_three, wait_until_busy,
};
use crate::common;

use ldwarc_testweb::postgres as postgres_server;

use std::collections::BTreeSet;
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
    assert_captured(roots, expected);
    let repeated = assert_repeats_only_at_takeovers(&requests);
    match uncommitted_until {
        None => {}
        Some(until) => {
            for url in &repeated {
                let first = requests
                    .iter()
                    .filter(|r| r.url() == *url)
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
    wait_until_busy(&database, Some("n3"));

    let n3 = children[2].id();
    signal(n3, "STOP");
    std::thread::sleep(FAULT);
    signal(n3, "CONT");
    let resumed = Instant::now();

    finish_three(children);
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
    wait_until_busy(&database, Some("n3"));

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

    finish_three(children);
    // n3 was fetching when its database froze: that fetch's commit, answered after the thaw,
    // counts if nobody claimed the PLD meanwhile and is refused if somebody did, who then
    // fetches the URL again (n3's request was before the deadline, which the request log
    // shows; later ones wait for that commit or the deadline).
    assert_whole_and_polite(&roots, &expected, &server, Some(deadline));
}

#[test]
fn a_killed_nodes_committed_captures_are_indexed_by_recover() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("fault_recover");
    let (_, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut children = start_three(&database, &roots, &server, &seeds);
    wait_until_busy(&database, Some("n3"));
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
