//! Three `ldwarc crawl` nodes over one PostgreSQL frontier while PostgreSQL itself stops for
//! longer than the lease lifetime and starts again: the nodes wait for it (instead of exiting
//! with a database error) and finish the crawl, every document within the hop limit
//! captured, no two requests to one PLD closer than the delay by the test web's request
//! log, and a document fetched twice only if it was in flight at a takeover.

use crate::cluster::{
    assert_captured, assert_repeats_only_at_takeovers, assert_spacing, finish_three, setup,
    start_three, wait_until_busy,
};

use std::time::{Duration, Instant};

use ldwarc_testweb::postgres::private_server;

/// Longer than the nodes' lease lifetime (2 s): every lease lapses during the outage.
const OUTAGE: Duration = Duration::from_secs(5);

#[test]
fn nodes_wait_for_postgresql_to_come_back_and_finish_the_crawl() {
    let pg = private_server();
    let database = pg.fresh_database("outage");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children = start_three(&database, &roots, &server, &seeds);
    wait_until_busy(&database, None);

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
    finish_three(children);

    let requests = server.requests();
    assert_spacing(&requests);
    assert_captured(&roots, &expected);
    assert_repeats_only_at_takeovers(&requests);
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
