//! Starting nodes of a shared crawl the way people do: joiners started before the crawl
//! exists wait for it (for a bounded time, then fail with a clear message), and seeds given
//! to a second node without `--join` do not start a second, impolite crawl beside a running
//! one.

use crate::cluster::{counts, finished, node, responses, setup, warc_files};
use crate::common;

use ldwarc_testweb::postgres as postgres_server;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

#[test]
fn join_gives_up_after_its_wait_with_a_clear_message() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("join_wait");
    let root = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let output = common::ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--state", &database, "--node", "j1", "--join"])
        .args(["--join-wait", "1s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(started.elapsed() >= Duration::from_secs(1), "did not wait");
    assert!(
        stderr.contains("no unfinished crawl to join after waiting 1 s"),
        "{stderr}"
    );
}

#[test]
fn a_joiner_started_first_waits_for_the_crawl_and_works_on_it() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("join_first");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let joiner = node(&database, "n2", roots[1].path(), &server, &[]);
    std::thread::sleep(Duration::from_millis(1500));
    let first = node(&database, "n1", roots[0].path(), &server, &seeds);
    finished(first, "n1");
    finished(joiner, "n2");
    let mut all = Vec::new();
    for root in &roots {
        all.extend(responses(&warc_files(root.path())));
    }
    let captured = counts(&all);
    assert_eq!(
        captured.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "captured URLs differ from those within 2 hops"
    );
    let crawls: i64 = postgres::Client::connect(&database, postgres::NoTls)
        .unwrap()
        .query_one("SELECT count(*) FROM crawls", &[])
        .unwrap()
        .get(0);
    assert_eq!(crawls, 1, "the joiner started a crawl of its own");
}

#[test]
fn a_second_crawl_beside_a_running_one_needs_force() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("second_crawl");
    let (_, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let first = node(&database, "n1", roots[0].path(), &server, &seeds);
    // Wait until n1 holds a live lease: its crawl is running.
    let mut client = postgres::Client::connect(&database, postgres::NoTls).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < deadline, "n1 never held a lease");
        let live: i64 = client
            .query_one(
                "SELECT count(*) FROM pld_leases WHERE holder = 'n1' AND expires_at > now()",
                &[],
            )
            .map(|row| row.get(0))
            .unwrap_or(0);
        if live > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = common::ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(roots[1].path())
        .args(["--state", &database, "--node", "n2"])
        .args(&seeds)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is running (nodes n1 hold leases)") && stderr.contains("--join"),
        "{stderr}"
    );
    assert!(warc_files(roots[1].path()).is_empty());
    finished(first, "n1");
    let crawls: i64 = client
        .query_one("SELECT count(*) FROM crawls", &[])
        .unwrap()
        .get(0);
    assert_eq!(crawls, 1, "a second crawl was started");
}
