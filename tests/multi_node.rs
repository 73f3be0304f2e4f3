//! Three `ldwarc crawl` nodes over one PostgreSQL frontier (a real server on loopback) and
//! the generated loopback test web: every document captured exactly once across the three
//! roots, per-PLD spacing kept across nodes by the server's clock, the node's name in every
//! WARC file name; then one node SIGKILLed mid-crawl, its PLDs finished by the others after
//! the lease lapses, nothing lost and nothing captured twice beyond its requests in flight.

use crate::cluster::{
    MAX_PLDS, assert_repeats_only_at_takeovers, assert_spacing, counts, finish_three, finished,
    responses, setup, start_three, wait_for_crawl, wait_until_busy, warc_files,
};
use crate::common;

use ldwarc_testweb::postgres as postgres_server;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;
use std::time::{Duration, Instant};

use ldwarc_surt::pay_level_domain;
use ldwarc_testweb::{GenSpec, TestWebServer, Web};

#[test]
fn three_nodes_capture_every_document_once_and_keep_politeness() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("multi_node");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let children = start_three(&database, &roots, &server, &seeds);
    let summaries = finish_three(children);

    let mut all = Vec::new();
    for (index, root) in roots.iter().enumerate() {
        let files = warc_files(root.path());
        let node = format!("n{}", index + 1);
        for file in &files {
            let name = file.file_name().unwrap().to_string_lossy();
            assert!(
                name.ends_with(&format!("-{node}.warc.gz")),
                "{name} does not carry the node name {node}"
            );
        }
        common::assert_warcs_valid(&files);
        let captured = responses(&files);
        assert!(
            !captured.is_empty(),
            "node {node} captured nothing: {summaries:?}"
        );
        all.extend(captured);
    }
    let captured = counts(&all);
    for (url, count) in &captured {
        assert_eq!(*count, 1, "{url} captured {count} times");
    }
    assert_eq!(
        captured.keys().cloned().collect::<BTreeSet<_>>(),
        expected,
        "captured URLs differ from those within 2 hops"
    );
    let requests = server.requests();
    let documents = requests.iter().filter(|r| r.path != "/robots.txt");
    assert_eq!(
        documents.count(),
        expected.len(),
        "one request per document"
    );
    assert_spacing(&requests);
    for summary in &summaries {
        assert_eq!(summary["lease_lost"], 0, "{summary}");
    }
}

#[test]
fn a_killed_node_is_taken_over_after_its_leases_lapse() {
    let pg = postgres_server::shared_server();
    let database = pg.fresh_database("multi_node_kill");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut children = start_three(&database, &roots, &server, &seeds);

    // Kill n3 once it has committed some fetches, mid-crawl.
    wait_until_busy(&database, Some("n3"));
    let mut client = postgres::Client::connect(&database, postgres::NoTls).unwrap();
    let mut killed = children.pop().unwrap();
    killed.kill().unwrap();
    killed.wait().unwrap();
    let killed_at = Instant::now();
    let orphaned: Vec<String> = client
        .query(
            "SELECT l.pld FROM pld_leases l WHERE l.holder = 'n3'
               AND EXISTS (SELECT 1 FROM frontier f
                           WHERE f.crawl = l.crawl AND f.pld = l.pld AND NOT f.done)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    for (child, name) in children.into_iter().zip(["n1", "n2"]) {
        finished(child, name);
    }

    // Nothing lost: every document is in one of the three roots (n3's open files included).
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
    // Captured twice only if n3 had it in flight at the kill: at most one per PLD it held.
    let twice: Vec<&String> = captured
        .iter()
        .filter(|(_, count)| **count > 1)
        .map(|(url, _)| url)
        .collect();
    assert!(twice.len() <= MAX_PLDS, "captured twice: {twice:?}");
    let requests = server.requests();
    assert_repeats_only_at_takeovers(&requests);
    // n3's PLDs with work left were taken over, only after the lease lapsed.
    assert!(
        !orphaned.is_empty(),
        "n3 held no PLD with work left at the kill"
    );
    for pld in &orphaned {
        let first_after = requests
            .iter()
            .filter(|r| pay_level_domain(&r.host) == *pld && r.received_instant > killed_at)
            .map(|r| r.received_instant)
            .min();
        let first = first_after.unwrap_or_else(|| panic!("{pld}: nobody finished its work"));
        assert!(
            first - killed_at >= Duration::from_millis(500),
            "{pld} taken over {:?} after the kill, before its lease lapsed",
            first - killed_at
        );
    }
    assert_spacing(&requests);
}

/// A size of the benchmark from the environment (`LDWARC_BENCH_*`), or `default` when unset;
/// a value that does not parse stops the benchmark instead of measuring something else.
fn bench_setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    let variable = format!("LDWARC_BENCH_{name}");
    match std::env::var(&variable) {
        Ok(value) => value
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{variable}={value:?} is not a valid value")),
        Err(_) => default,
    }
}

/// The benchmark's web: `LDWARC_BENCH_PLDS` PLDs (default 300), the biggest with
/// `LDWARC_BENCH_DOCS` documents (default 900, some 20,000 in all), [`bench_latency`] per
/// answer.
fn bench_web() -> Web {
    Web::generate(GenSpec {
        plds: bench_setting("PLDS", 300),
        max_docs_per_pld: bench_setting("DOCS", 900),
        power_law_exponent: 0.6,
        links_per_doc: 3,
        latency: bench_latency(),
        seed: 5,
    })
}

/// The latency of every answer of the benchmark's web (`LDWARC_BENCH_LATENCY_MS`, default 20).
fn bench_latency() -> Duration {
    Duration::from_millis(bench_setting("LATENCY_MS", 20))
}

/// Each node's `--concurrency` (`LDWARC_BENCH_CONCURRENCY`, default 64) and `--max-plds`
/// (`LDWARC_BENCH_MAX_PLDS`, default 8): holding 8 PLDs at a time, one node fetches at most
/// 8 / delay documents a second (32 at 0.25 s), about a third of the default web's
/// politeness bound, so the bound is reachable only with more nodes.
fn bench_node_limits() -> (usize, usize) {
    (
        bench_setting("CONCURRENCY", 64),
        bench_setting("MAX_PLDS", 8),
    )
}

/// The node counts to run (`LDWARC_BENCH_NODES`, comma-separated, default `1,2,4`).
fn bench_node_counts() -> Vec<usize> {
    let Ok(list) = std::env::var("LDWARC_BENCH_NODES") else {
        return vec![1, 2, 4];
    };
    list.split(',')
        .map(|n| match n.trim().parse() {
            Ok(count) if count > 0 => count,
            _ => panic!("LDWARC_BENCH_NODES={list:?}: {n:?} is not a node count"),
        })
        .collect()
}

/// The crawl's hop limit in the benchmark: far enough to reach the whole generated web.
const BENCH_HOPS: usize = 20;

/// The politeness bound: no crawl of `web` finishes before its biggest PLD is drained at
/// one request per delay; returns (documents, documents of the biggest PLD).
fn politeness_bound(web: &Web) -> (usize, usize) {
    let documents = web.urls_within_hops(&web.seeds, BENCH_HOPS, 0);
    let mut per_pld: BTreeMap<String, usize> = BTreeMap::new();
    for url in &documents {
        let host = url.split('/').nth(2).unwrap_or("");
        *per_pld.entry(pay_level_domain(host)).or_default() += 1;
    }
    (
        documents.len(),
        per_pld.values().copied().max().unwrap_or(0),
    )
}

/// What one benchmark run cost the database: committed transactions and statements executed.
struct DatabaseWork {
    transactions: i64,
    statements: i64,
}

/// The database's counters so far: `pg_stat_database.xact_commit`, and the calls
/// `pg_stat_statements` counted in this database (every statement, `BEGIN` and `COMMIT`
/// included), leaving out the benchmark's own reads of both views.
fn database_work(client: &mut postgres::Client) -> DatabaseWork {
    let row = client
        .query_one(
            "SELECT (SELECT xact_commit FROM pg_stat_database
                     WHERE datname = current_database()),
                    (SELECT coalesce(sum(calls), 0)::BIGINT FROM pg_stat_statements
                     WHERE dbid = (SELECT oid FROM pg_database
                                   WHERE datname = current_database())
                       AND query NOT LIKE '%pg_stat_%')",
            &[],
        )
        .unwrap();
    DatabaseWork {
        transactions: row.get(0),
        statements: row.get(1),
    }
}

/// One benchmark run: `nodes` nodes over a fresh database; returns (seconds, documents,
/// the database's work).
fn bench_run(nodes: usize, pg: &postgres_server::PgServer, delay: f64) -> (f64, u64, DatabaseWork) {
    let database = pg.fresh_database("multi_node_bench");
    let web = bench_web();
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web).unwrap();
    let roots: Vec<tempfile::TempDir> = (0..nodes).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut client = postgres::Client::connect(&database, postgres::NoTls).unwrap();
    assert!(
        pg.has_statement_statistics(),
        "the benchmark counts statements with pg_stat_statements, which the PostgreSQL \
         server binaries in use lack (Debian's postgresql package ships it)"
    );
    client
        .batch_execute("CREATE EXTENSION pg_stat_statements")
        .unwrap();
    let before = database_work(&mut client);
    let (concurrency, max_plds) = bench_node_limits();
    let started = Instant::now();
    let spawn = |index: usize, seeds: &[String]| {
        let mut command = common::ldwarc();
        command
            .arg("crawl")
            .arg("--root")
            .arg(roots[index].path())
            .args(["--state", &database, "--node", &format!("b{index}")])
            .args(["--delay", &format!("{delay}s"), "--lease-ttl", "4s"])
            .args(["--concurrency", &concurrency.to_string()])
            .args(["--max-plds", &max_plds.to_string()])
            .args(["--hops", &BENCH_HOPS.to_string()])
            .args(["--format", "json"])
            .args(common::loopback_resolve(server.port()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if seeds.is_empty() {
            command.arg("--join");
        }
        command.args(seeds).spawn().unwrap()
    };
    let mut children = vec![spawn(0, &seeds)];
    wait_for_crawl(&database);
    for index in 1..nodes {
        children.push(spawn(index, &[]));
    }
    let mut documents = 0;
    for (index, child) in children.into_iter().enumerate() {
        let summary = finished(child, &format!("b{index}"));
        documents += summary["captures"]
            .as_u64()
            .expect("the crawl summary counts captures");
    }
    let seconds = started.elapsed().as_secs_f64();
    // Statistics reach pg_stat_database within a second of each backend's last transaction.
    std::thread::sleep(Duration::from_millis(1500));
    let after = database_work(&mut client);
    let work = DatabaseWork {
        // The benchmark's own read of the counters is one transaction.
        transactions: after.transactions - before.transactions - 1,
        statements: after.statements - before.statements,
    };
    (seconds, documents, work)
}

/// `benches/multi_node.sh` runs this: crawl throughput with 1, 2 and 4 nodes (processes)
/// on a generated loopback web with latency (sizes from `LDWARC_BENCH_*`), next to the
/// politeness bound (all documents / (biggest PLD's documents × delay)), with PostgreSQL
/// transactions and statements (queries) per document, as a table.
#[test]
#[ignore = "benchmark: run benches/multi_node.sh"]
fn benchmark_multi_node_throughput() {
    let pg = postgres_server::shared_server();
    let delay: f64 = bench_setting("DELAY", 0.25);
    let web = bench_web();
    let (documents, biggest) = politeness_bound(&web);
    let bound = documents as f64 / (biggest as f64 * delay);
    let (concurrency, max_plds) = bench_node_limits();
    println!(
        "web: {} PLDs, {documents} documents within {BENCH_HOPS} hops, biggest PLD {biggest}, \
         {latency:?} per answer; delay {delay} s; politeness bound {bound:.1} documents/s; \
         per node: --concurrency {concurrency} --max-plds {max_plds}",
        web.hosts.len(),
        latency = bench_latency(),
    );
    println!(
        "| nodes | captures (robots.txt included) | seconds | documents/s | politeness bound | share of bound | PostgreSQL transactions | transactions/document | statements | statements/document |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for nodes in bench_node_counts() {
        let (seconds, captured, work) = bench_run(nodes, &pg, delay);
        let rate = documents as f64 / seconds;
        let per_document = |count: i64| count as f64 / documents.max(1) as f64;
        println!(
            "| {nodes} | {captured} | {seconds:.1} | {rate:.1} | {bound:.1} | {:.2} | {} | {:.1} | {} | {:.1} |",
            rate / bound,
            work.transactions,
            per_document(work.transactions),
            work.statements,
            per_document(work.statements),
        );
    }
}
