//! The state-store test suite, written once against [`StateBackend`] and run on both the
//! embedded SQLite store and a real PostgreSQL server; plus the PostgreSQL lease tests (two
//! nodes as two connections).

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};

use super::*;
use ldwarc_testweb::postgres::shared_server;

fn at(seconds: i64, micros: u32) -> DateTime<Utc> {
    Utc.timestamp_opt(1_795_000_000 + seconds, micros * 1000)
        .unwrap()
}

fn entry(url: &str, hops: u32) -> FrontierEntry {
    FrontierEntry {
        url: url.into(),
        hops,
        round: 2,
        inlinks: 3,
        via: Some("http://seed.example/".into()),
        path: "LR".into(),
        redirects: 1,
    }
}

fn record(n: u64) -> RecordRef {
    RecordRef {
        record_id: format!("<urn:uuid:{n}>"),
        file: format!("2026/11/21/10/example.org/x-{n}.warc.gz"),
        offset: 1 << 33,
        length: n,
    }
}

fn fetched(url: &str, second: i64, change: Change) -> FetchLogEntry {
    FetchLogEntry {
        url: url.into(),
        time: at(second, 123_456),
        round: 1,
        hops: 2,
        kind: "document".into(),
        status: Some(200),
        duration: Some(Duration::from_millis(250)),
        bytes: Some(5_000_000_000),
        digest: Some("sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".into()),
        change,
        error: None,
        content_type: Some("text/turtle".into()),
        outlinks: Some(17),
        record: Some(record(7)),
    }
}

fn failed(url: &str, second: i64) -> FetchLogEntry {
    FetchLogEntry {
        status: None,
        duration: None,
        bytes: None,
        digest: None,
        error: Some("connection refused".into()),
        content_type: None,
        outlinks: None,
        record: None,
        ..fetched(url, second, Change::Failed)
    }
}

/// Every operation of a backend. `make` opens the same (initially empty) store each call.
pub(super) fn suite<B: StateBackend>(make: impl Fn() -> B) {
    crawl_lifecycle(&mut make());
    transaction_round_trip(&mut make());
    failed_transaction_rolls_back(&mut make());
    frontier_survives_reopening(&make);
    url_state_is_upserted(&mut make());
    shorter_paths_lower_hop_counts(&mut make());
}

fn crawl_lifecycle<B: StateBackend>(store: &mut B) {
    assert_eq!(store.crawls().unwrap(), vec![]);
    assert_eq!(store.unfinished_crawl().unwrap(), None);
    let first = store.start_crawl(at(0, 0), r#"{"seeds":1}"#).unwrap();
    let second = store.start_crawl(at(60, 0), "{}").unwrap();
    assert!(second > first);
    store.set_round(first, 4).unwrap();
    let crawls = store.crawls().unwrap();
    assert_eq!(crawls.len(), 2);
    assert_eq!(
        crawls[0],
        CrawlRun {
            id: first,
            started: at(0, 0).to_rfc3339(),
            finished: None,
            round: 4,
            options: r#"{"seeds":1}"#.into(),
        }
    );
    // The latest unfinished crawl is the one to resume.
    assert_eq!(store.unfinished_crawl().unwrap().unwrap().id, second);
    store.finish_crawl(second, at(120, 0)).unwrap();
    assert_eq!(store.unfinished_crawl().unwrap().unwrap().id, first);
    let third = store.start_crawl(at(180, 0), "{}").unwrap();
    store.abandon_unfinished(third, at(181, 0)).unwrap();
    let crawls = store.crawls().unwrap();
    assert_eq!(crawls[0].finished, Some(at(181, 0).to_rfc3339()));
    assert_eq!(crawls[1].finished, Some(at(120, 0).to_rfc3339()));
    assert_eq!(crawls[2].finished, None);
    assert_eq!(store.unfinished_crawl().unwrap().unwrap().id, third);
    store.finish_crawl(third, at(240, 0)).unwrap();
    assert_eq!(store.unfinished_crawl().unwrap(), None);
}

fn transaction_round_trip<B: StateBackend>(store: &mut B) {
    let crawl = store.start_crawl(at(300, 0), "{}").unwrap();
    let other = store.start_crawl(at(301, 0), "{}").unwrap();
    let log = vec![
        fetched("http://a.example/1", 1, Change::New),
        failed("http://a.example/2", 2),
        fetched("http://a.example/3", 3, Change::Changed),
        fetched("http://a.example/4", 4, Change::Unchanged),
        FetchLogEntry {
            kind: "robots".into(),
            ..fetched("http://a.example/robots.txt", 0, Change::Excluded)
        },
    ];
    let state = UrlState {
        digest: Some("sha1:X".into()),
        date: Some("2026-11-21T10:00:00Z".into()),
        record: Some(record(9)),
        etag: Some("\"v1\"".into()),
        last_modified: Some("Sat, 21 Nov 2026 10:00:00 GMT".into()),
    };
    let seen_inside = store
        .transaction(|t| {
            for entry in &log {
                t.log_fetch(crawl, entry)?;
            }
            t.log_fetch(other, &fetched("http://b.example/", 9, Change::New))?;
            t.set_url_state("http://a.example/1", &state)?;
            t.url_state("http://a.example/1")
        })
        .unwrap();
    assert_eq!(seen_inside.as_ref(), Some(&state));
    // Order of writing (not of time), every field, durations and record refs included.
    assert_eq!(store.fetch_log(Some(crawl)).unwrap(), log);
    assert_eq!(store.fetch_log(Some(other)).unwrap().len(), 1);
    let all = store.fetch_log(None).unwrap();
    assert_eq!(all.len(), log.len() + 1);
    assert_eq!(all.last().unwrap().url, "http://b.example/");
    assert_eq!(store.url_state("http://a.example/1").unwrap(), Some(state));
    assert_eq!(store.url_state("http://a.example/none").unwrap(), None);
    // A duration that is not a whole number of milliseconds survives to the microsecond.
    let odd = FetchLogEntry {
        duration: Some(Duration::from_micros(12_345)),
        ..fetched("http://a.example/odd", 5, Change::New)
    };
    store.transaction(|t| t.log_fetch(other, &odd)).unwrap();
    let back = store.fetch_log(Some(other)).unwrap().pop().unwrap();
    let error = back
        .duration
        .unwrap()
        .abs_diff(Duration::from_micros(12_345));
    assert!(error < Duration::from_micros(1), "{back:?}");
}

fn failed_transaction_rolls_back<B: StateBackend>(store: &mut B) {
    let crawl = store.start_crawl(at(400, 0), "{}").unwrap();
    let result: BackendResult<()> = store.transaction(|t| {
        t.enqueue(crawl, &[entry("http://c.example/", 0)])?;
        t.log_fetch(crawl, &fetched("http://c.example/", 1, Change::New))?;
        t.set_url_state(
            "http://c.example/",
            &UrlState {
                digest: Some("sha1:Y".into()),
                date: None,
                record: None,
                etag: None,
                last_modified: None,
            },
        )?;
        Err(BackendError::Aborted("test".into()))
    });
    assert!(
        matches!(result, Err(BackendError::Aborted(_))),
        "{result:?}"
    );
    assert_eq!(store.frontier(crawl).unwrap(), (vec![], vec![]));
    assert_eq!(store.fetch_log(Some(crawl)).unwrap(), vec![]);
    assert_eq!(store.url_state("http://c.example/").unwrap(), None);
}

fn frontier_survives_reopening<B: StateBackend>(make: &impl Fn() -> B) {
    let crawl;
    {
        let mut store = make();
        crawl = store.start_crawl(at(500, 0), "{}").unwrap();
        let seed = FrontierEntry {
            via: None,
            path: String::new(),
            redirects: 0,
            ..entry("http://d.example/", 0)
        };
        store
            .transaction(|t| {
                t.enqueue(
                    crawl,
                    &[
                        seed.clone(),
                        entry("http://d.example/z", 1),
                        entry("http://e.example/a", 1),
                    ],
                )?;
                // Already queued: left alone, whatever the new entry says.
                t.enqueue(crawl, &[entry("http://d.example/z", 9)])?;
                t.mark_done(crawl, "http://d.example/")
            })
            .unwrap();
    }
    let mut reopened = make();
    let (queued, done) = reopened.frontier(crawl).unwrap();
    assert_eq!(
        queued,
        vec![
            entry("http://d.example/z", 1),
            entry("http://e.example/a", 1)
        ]
    );
    assert_eq!(done, vec!["http://d.example/".to_string()]);
    // Another crawl's frontier is separate.
    assert_eq!(reopened.frontier(crawl + 1000).unwrap(), (vec![], vec![]));
}

/// A URL reached again by a shorter path takes that path's hops, path and referrer (done or
/// not); a longer path changes nothing, and the round, in-links and done flag stay.
fn shorter_paths_lower_hop_counts<B: StateBackend>(store: &mut B) {
    let crawl = store.start_crawl(at(700, 0), "{}").unwrap();
    let long = |url: &str| FrontierEntry {
        path: "LLLL".into(),
        via: Some("http://far.example/".into()),
        redirects: 0,
        ..entry(url, 4)
    };
    let short = |url: &str| FrontierEntry {
        hops: 2,
        round: 7,
        inlinks: 9,
        path: "LL".into(),
        via: Some("http://near.example/".into()),
        redirects: 0,
        ..entry(url, 2)
    };
    store
        .transaction(|t| {
            t.enqueue(
                crawl,
                &[long("http://g.example/q"), long("http://g.example/d")],
            )?;
            t.mark_done(crawl, "http://g.example/d")
        })
        .unwrap();
    store
        .transaction(|t| {
            // The batch names one URL twice: the shorter entry counts.
            t.enqueue(
                crawl,
                &[
                    short("http://g.example/q"),
                    FrontierEntry {
                        hops: 5,
                        ..long("http://g.example/q")
                    },
                    short("http://g.example/d"),
                ],
            )?;
            t.enqueue(
                crawl,
                &[FrontierEntry {
                    hops: 3,
                    ..long("http://g.example/q")
                }],
            )
        })
        .unwrap();
    let (queued, done) = store.frontier(crawl).unwrap();
    let lowered = FrontierEntry {
        hops: 2,
        path: "LL".into(),
        via: Some("http://near.example/".into()),
        ..long("http://g.example/q")
    };
    assert_eq!(queued, vec![lowered]);
    assert_eq!(done, vec!["http://g.example/d".to_string()]);
}

fn url_state_is_upserted<B: StateBackend>(store: &mut B) {
    let first = UrlState {
        digest: Some("sha1:1".into()),
        date: Some("2026-11-21T10:00:00Z".into()),
        record: Some(record(1)),
        etag: Some("\"1\"".into()),
        last_modified: None,
    };
    let second = UrlState {
        digest: Some("sha1:2".into()),
        date: Some("2026-11-22T10:00:00Z".into()),
        record: None,
        etag: None,
        last_modified: Some("Sun, 22 Nov 2026 10:00:00 GMT".into()),
    };
    store
        .transaction(|t| t.set_url_state("http://f.example/", &first))
        .unwrap();
    store
        .transaction(|t| t.set_url_state("http://f.example/", &second))
        .unwrap();
    assert_eq!(store.url_state("http://f.example/").unwrap(), Some(second));
}

#[test]
fn suite_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    suite(|| StateStore::open(dir.path()).unwrap());
}

#[test]
fn suite_on_postgres() {
    let server = shared_server();
    let url = server.fresh_database("suite");
    suite(|| PgStateStore::connect(&url).unwrap());
}

#[test]
fn sqlite_holds_every_lease_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = StateStore::open(dir.path()).unwrap();
    let crawl = StateBackend::start_crawl(&mut store, at(0, 0), "{}").unwrap();
    StateBackend::transaction(&mut store, |t| {
        t.enqueue(
            crawl,
            &[
                entry("http://a.example/1", 1),
                entry("http://www.a.example/2", 1),
                entry("http://b.example/", 1),
            ],
        )?;
        t.mark_done_fenced("me", crawl, "http://b.example/")
    })
    .unwrap();
    let plds = store
        .claim_plds("me", crawl, 10, Duration::from_secs(1))
        .unwrap();
    assert_eq!(plds, vec!["a.example".to_string()]);
}

/// A crawl with queued URLs on `plds` PLDs (two URLs each).
fn leased_crawl(store: &mut PgStateStore, plds: usize) -> i64 {
    let crawl = store.start_crawl(at(0, 0), "{}").unwrap();
    let entries: Vec<FrontierEntry> = (0..plds)
        .flat_map(|n| {
            [
                entry(&format!("http://pld{n}.example/a"), 1),
                entry(&format!("http://www.pld{n}.example/b"), 1),
            ]
        })
        .collect();
    store.transaction(|t| t.enqueue(crawl, &entries)).unwrap();
    crawl
}

#[test]
fn two_nodes_claiming_at_once_never_share_a_pld() {
    let server = shared_server();
    let url = server.fresh_database("claims");
    let crawl = leased_crawl(&mut PgStateStore::connect(&url).unwrap(), 40);
    let start = std::sync::Barrier::new(2);
    let claimed: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ["node-a", "node-b"]
            .into_iter()
            .map(|node| {
                let (url, start) = (&url, &start);
                scope.spawn(move || {
                    let mut store = PgStateStore::connect(url).unwrap();
                    start.wait();
                    let mut mine = Vec::new();
                    loop {
                        let got = store
                            .claim_plds(node, crawl, 3, Duration::from_secs(600))
                            .unwrap();
                        if got.is_empty() {
                            return mine;
                        }
                        mine.extend(got);
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let a: BTreeSet<_> = claimed[0].iter().cloned().collect();
    let b: BTreeSet<_> = claimed[1].iter().cloned().collect();
    assert_eq!(a.len(), claimed[0].len(), "node-a claimed a PLD twice");
    assert_eq!(b.len(), claimed[1].len(), "node-b claimed a PLD twice");
    assert!(a.is_disjoint(&b), "{a:?} and {b:?} overlap");
    assert_eq!(a.len() + b.len(), 40);
}

/// Two nodes' stores on a fresh database of `server` named after `name`, a crawl with one PLD
/// (`pld0.example`, two URLs) and node "a" holding its lease for `ttl`: (a, b, crawl, [pld]).
fn one_pld_leased_by_a(
    server: &ldwarc_testweb::postgres::PgServer,
    name: &str,
    ttl: Duration,
) -> (PgStateStore, PgStateStore, i64, Vec<String>) {
    let url = server.fresh_database(name);
    let mut node_a = PgStateStore::connect(&url).unwrap();
    let node_b = PgStateStore::connect(&url).unwrap();
    let crawl = leased_crawl(&mut node_a, 1);
    let pld = vec!["pld0.example".to_string()];
    assert_eq!(node_a.claim_plds("a", crawl, 5, ttl).unwrap(), pld);
    (node_a, node_b, crawl, pld)
}

#[test]
fn an_expired_lease_is_taken_over_and_the_old_holder_is_fenced_off() {
    let short = Duration::from_millis(300);
    let server = shared_server();
    let (mut node_a, mut node_b, crawl, pld) = one_pld_leased_by_a(&server, "takeover", short);
    assert_eq!(
        node_b.claim_plds("b", crawl, 5, short).unwrap(),
        Vec::<String>::new()
    );
    // While the lease holds, a's fenced writes commit.
    node_a
        .transaction(|t| {
            t.log_fetch_fenced(
                "a",
                crawl,
                &fetched("http://pld0.example/a", 1, Change::New),
            )
        })
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        node_b
            .claim_plds("b", crawl, 5, Duration::from_secs(600))
            .unwrap(),
        pld
    );
    let result = node_a.transaction(|t| {
        t.enqueue(crawl, &[entry("http://pld0.example/new", 2)])?;
        t.log_fetch_fenced(
            "a",
            crawl,
            &fetched("http://www.pld0.example/b", 2, Change::New),
        )?;
        t.mark_done_fenced("a", crawl, "http://www.pld0.example/b")
    });
    match result {
        Err(error) => {
            assert!(error.is_lease_lost(), "{error}");
            assert!(error.to_string().contains("pld0.example"), "{error}");
        }
        Ok(()) => panic!("a node that lost its lease committed"),
    }
    // Nothing of a's failed transaction was written.
    assert_eq!(node_b.fetch_log(Some(crawl)).unwrap().len(), 1);
    let (queued, done) = node_b.frontier(crawl).unwrap();
    assert_eq!(queued.len(), 2);
    assert!(done.is_empty());
    assert_eq!(
        node_a.renew("a", crawl, &pld, short).unwrap(),
        Vec::<String>::new()
    );
    // The new holder writes, renews and releases.
    node_b
        .transaction(|t| t.mark_done_fenced("b", crawl, "http://www.pld0.example/b"))
        .unwrap();
    assert_eq!(
        node_b
            .renew("b", crawl, &pld, Duration::from_secs(600))
            .unwrap(),
        pld
    );
    node_a.release("a", crawl, &pld).unwrap();
    assert_eq!(
        node_b.leases(crawl).unwrap()[0].holder.as_deref(),
        Some("b")
    );
    node_b.release("b", crawl, &pld).unwrap();
    assert_eq!(
        node_b.leases(crawl).unwrap(),
        vec![PldLease {
            pld: "pld0.example".into(),
            holder: None,
            live: false,
        }]
    );
    assert_eq!(node_a.claim_plds("a", crawl, 5, short).unwrap(), pld);
}

/// A lease that ran out with nobody claiming it is still its holder's to commit under: the
/// holder's fetch counts and its URL is done, so no node fetches it a second time. Once
/// another node claims the PLD, the same commit is refused.
#[test]
fn a_lapsed_lease_nobody_claimed_still_fences_for_its_holder() {
    let short = Duration::from_millis(200);
    let server = shared_server();
    let (mut node_a, mut node_b, crawl, pld) = one_pld_leased_by_a(&server, "lapsed_fence", short);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !node_b.leases(crawl).unwrap()[0].live,
        "the lease did not lapse"
    );
    node_a
        .transaction(|t| {
            t.log_fetch_fenced(
                "a",
                crawl,
                &fetched("http://pld0.example/a", 1, Change::New),
            )?;
            t.mark_done_fenced("a", crawl, "http://pld0.example/a")
        })
        .unwrap();
    let (queued, done) = node_b.frontier(crawl).unwrap();
    assert_eq!(done, ["http://pld0.example/a"]);
    assert_eq!(queued.len(), 1);
    assert_eq!(
        node_b
            .claim_plds("b", crawl, 5, Duration::from_secs(600))
            .unwrap(),
        pld
    );
    let result =
        node_a.transaction(|t| t.mark_done_fenced("a", crawl, "http://www.pld0.example/b"));
    assert!(result.is_err_and(|e| e.is_lease_lost()));
    assert_eq!(node_b.fetch_log(Some(crawl)).unwrap().len(), 1);
}

/// A renewal updating a lease row while a commit (holding its fence lock) enqueues links
/// into that row's PLD deadlocked: the commit's insert of the existing lease row waited
/// for the renewal, and the renewal for the fence lock. Enqueueing now leaves existing
/// lease rows alone, so it does not wait for a renewal at all.
#[test]
fn enqueueing_links_does_not_wait_for_a_lease_renewal_in_flight() {
    let server = shared_server();
    let url = server.fresh_database("renewal_wait");
    let mut node = PgStateStore::connect(&url).unwrap();
    let crawl = leased_crawl(&mut node, 2);
    let ttl = Duration::from_secs(60);
    assert_eq!(node.claim_plds("a", crawl, 5, ttl).unwrap().len(), 2);
    let mut renewal = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    let mut in_flight = renewal.transaction().unwrap();
    in_flight
        .execute(
            "UPDATE pld_leases SET expires_at = expires_at WHERE crawl = $1 AND pld = $2",
            &[&crawl, &"pld1.example"],
        )
        .unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let result = node.transaction(|t| {
                t.log_fetch_fenced(
                    "a",
                    crawl,
                    &fetched("http://pld0.example/a", 1, Change::New),
                )?;
                t.enqueue(
                    crawl,
                    &[
                        entry("http://pld1.example/linked", 2),
                        entry("http://pld9.example/new", 2),
                    ],
                )
            });
            done.send(result.map_err(|e| e.to_string())).unwrap();
        });
        let outcome = finished.recv_timeout(Duration::from_secs(5));
        in_flight.rollback().unwrap();
        assert_eq!(
            outcome.expect("the commit waited for the renewal in flight"),
            Ok(())
        );
    });
    let plds: Vec<String> = node
        .leases(crawl)
        .unwrap()
        .into_iter()
        .map(|l| l.pld)
        .collect();
    assert_eq!(plds, ["pld0.example", "pld1.example", "pld9.example"]);
}

/// A node's renewal must not wait for its own fenced commit: a commit held up by the
/// database (row locks of another node's transaction) would otherwise stall the renewal of
/// every lease the node holds until they lapse. A claim by another node still cannot move
/// the fenced lease.
#[test]
fn a_fenced_commit_holds_off_claims_but_not_its_nodes_renewal() {
    let server = shared_server();
    let url = server.fresh_database("fence_renewal");
    let mut node = PgStateStore::connect(&url).unwrap();
    let mut lease_thread = PgStateStore::connect(&url).unwrap();
    let mut other = PgStateStore::connect(&url).unwrap();
    let crawl = leased_crawl(&mut node, 1);
    let pld = vec!["pld0.example".to_string()];
    let short = Duration::from_millis(300);
    assert_eq!(node.claim_plds("a", crawl, 5, short).unwrap(), pld);
    let (fenced, renew) = std::sync::mpsc::channel();
    let (renewed, outcome) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let lease_thread = &mut lease_thread;
        let pld_renewed = &pld;
        scope.spawn(move || {
            renew.recv().unwrap();
            let result = lease_thread.renew("a", crawl, pld_renewed, Duration::from_secs(600));
            renewed.send(result.map_err(|e| e.to_string())).unwrap();
        });
        node.transaction(|t| {
            t.fence("a", crawl, "http://pld0.example/a")?;
            fenced.send(()).unwrap();
            let renewal = outcome.recv_timeout(Duration::from_secs(5));
            assert_eq!(
                renewal.expect("the renewal waited for the fenced commit"),
                Ok(pld.clone())
            );
            // Past the short lease's first expiry, and renewed: still not claimable.
            std::thread::sleep(Duration::from_millis(400));
            assert_eq!(
                other.claim_plds("b", crawl, 5, short).unwrap(),
                Vec::<String>::new()
            );
            Ok(())
        })
        .unwrap();
    });
}

#[test]
fn plds_without_queued_urls_are_not_claimed() {
    let server = shared_server();
    let url = server.fresh_database("drained");
    let mut store = PgStateStore::connect(&url).unwrap();
    let crawl = leased_crawl(&mut store, 2);
    store
        .transaction(|t| {
            t.mark_done(crawl, "http://pld1.example/a")?;
            t.mark_done(crawl, "http://www.pld1.example/b")
        })
        .unwrap();
    let claimed = store
        .claim_plds("a", crawl, 5, Duration::from_secs(60))
        .unwrap();
    assert_eq!(claimed, vec!["pld0.example".to_string()]);
    // A fence on a PLD nobody leased fails too.
    let result = store.transaction(|t| t.mark_done_fenced("a", crawl, "http://other.example/"));
    assert!(result.is_err_and(|e| e.is_lease_lost()));
}

#[test]
fn claims_tell_a_lapsed_lease_from_a_free_or_released_one() {
    let server = shared_server();
    let url = server.fresh_database("lapsed");
    let mut store = PgStateStore::connect(&url).unwrap();
    let crawl = leased_crawl(&mut store, 2);
    let short = Duration::from_millis(200);
    // Never held: not lapsed.
    let first = store.claim_leases("a", crawl, 2, short).unwrap();
    assert_eq!(first.len(), 2);
    assert!(first.iter().all(|claim| !claim.lapsed), "{first:?}");
    // pld0 released with a short cool-down, pld1 left to run out while held.
    store
        .release_after("a", crawl, &[("pld0.example".to_string(), short)])
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let mut second = store
        .claim_leases("b", crawl, 2, Duration::from_secs(60))
        .unwrap();
    second.sort_by(|x, y| x.pld.cmp(&y.pld));
    assert_eq!(
        second,
        vec![
            super::Claim {
                pld: "pld0.example".into(),
                lapsed: false
            },
            super::Claim {
                pld: "pld1.example".into(),
                lapsed: true
            },
        ]
    );
}

/// On PostgreSQL a shorter path to a fetched document follows its stored links again, in
/// the enqueuing transaction: a link cut off at the limit is queued, a link known with more
/// hops is lowered, a link still beyond the limit stays out.
#[test]
fn a_shorter_path_follows_stored_links_on_postgres() {
    let server = shared_server();
    let url = server.fresh_database("shorter_links");
    let mut store = PgStateStore::connect(&url).unwrap();
    store.follow_shorter_paths(3);
    let crawl = store.start_crawl(at(800, 0), "{}").unwrap();
    let at_hops = |url: &str, hops: u32| FrontierEntry {
        path: "L".repeat(hops as usize),
        via: None,
        redirects: 0,
        ..entry(url, hops)
    };
    store
        .transaction(|t| {
            t.enqueue(
                crawl,
                &[
                    at_hops("http://h.example/doc", 3),
                    at_hops("http://k.example/known", 3),
                ],
            )?;
            t.mark_done(crawl, "http://h.example/doc")?;
            t.record_links(
                crawl,
                "http://h.example/doc",
                &[
                    ("http://k.example/known".into(), 'L'),
                    ("http://m.example/cut".into(), 'L'),
                ],
            )?;
            t.mark_done(crawl, "http://k.example/known")?;
            t.record_links(
                crawl,
                "http://k.example/known",
                &[("http://n.example/far".into(), 'L')],
            )
        })
        .unwrap();
    store
        .transaction(|t| t.enqueue(crawl, &[at_hops("http://h.example/doc", 1)]))
        .unwrap();
    let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    let hops: BTreeSet<(String, i64)> = client
        .query("SELECT url, hops FROM frontier WHERE crawl = $1", &[&crawl])
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let expected: BTreeSet<(String, i64)> = [
        ("http://h.example/doc", 1),
        ("http://k.example/known", 2),
        ("http://m.example/cut", 2),
        ("http://n.example/far", 3),
    ]
    .into_iter()
    .map(|(url, hops)| (url.to_string(), hops))
    .collect();
    assert_eq!(hops, expected);
}
