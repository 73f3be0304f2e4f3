//! Three `ldwarc crawl` nodes over one PostgreSQL frontier while PostgreSQL itself stops for
//! longer than the lease lifetime and starts again: the nodes wait for it (instead of exiting
//! with a database error) and finish the crawl, every document within the hop limit
//! captured, no two requests to one PLD closer than the delay by the test web's request
//! log, and a document fetched twice only for a PLD that had a request in flight then.

use crate::common;
use crate::multi_node::{
    MAX_PLDS, assert_spacing, counts, finished, node, responses, setup, wait_for_crawl, warc_files,
};

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use ldwarc_testweb::postgres::private_server;

/// Longer than the nodes' lease lifetime (2 s): every lease lapses during the outage.
const OUTAGE: Duration = Duration::from_secs(5);

/// Blocks until the crawl is well under way (some fetches committed).
fn wait_until_busy(database: &str) {
    let mut client = postgres::Client::connect(database, postgres::NoTls).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "the crawl never got going");
        let logged: i64 = client
            .query_one("SELECT count(*) FROM fetches", &[])
            .unwrap()
            .get(0);
        if logged >= 15 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn nodes_wait_for_postgresql_to_come_back_and_finish_the_crawl() {
    let pg = private_server();
    let database = pg.fresh_database("outage");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let first = node(&database, "n1", roots[0].path(), &server, &seeds);
    wait_for_crawl(&database);
    let children = vec![
        first,
        node(&database, "n2", roots[1].path(), &server, &[]),
        node(&database, "n3", roots[2].path(), &server, &[]),
    ];
    wait_until_busy(&database);

    pg.stop();
    let stopped = Instant::now();
    std::thread::sleep(OUTAGE);
    pg.start_again();
    let restarted = Instant::now();
    for child in &children {
        assert!(
            std::fs::metadata(format!("/proc/{}", child.id())).is_ok(),
            "a node exited while PostgreSQL was away"
        );
    }
    for (child, name) in children.into_iter().zip(["n1", "n2", "n3"]) {
        finished(child, name);
    }

    let requests = server.requests();
    assert_spacing(&requests);
    let mut all = Vec::new();
    for root in &roots {
        let files = warc_files(root.path());
        common::assert_warcs_valid(&files);
        all.extend(responses(&files));
    }
    assert_eq!(
        counts(&all).keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "captured URLs differ from those within 2 hops"
    );
    let mut requested: BTreeMap<String, usize> = BTreeMap::new();
    for request in requests.iter().filter(|r| r.path != "/robots.txt") {
        *requested.entry(request.url()).or_default() += 1;
    }
    let repeated: Vec<_> = requested.iter().filter(|(_, count)| **count > 1).collect();
    assert!(requested.values().all(|count| *count <= 2), "{repeated:?}");
    // At most the requests in flight when the database went: one per held PLD.
    assert!(
        repeated.len() <= 3 * MAX_PLDS,
        "requested twice: {repeated:?}"
    );
    // Crawling went on after the restart.
    let after = requests
        .iter()
        .filter(|r| r.received_instant > restarted)
        .count();
    assert!(
        after > 0,
        "nothing fetched after the restart ({:?} outage)",
        restarted - stopped
    );
}
