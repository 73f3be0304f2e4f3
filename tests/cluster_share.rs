//! A fair share of PLDs per node: three nodes started without `--max-plds` (whose default
//! would let the first node take every PLD before the others join) each fetch a fair part of
//! the crawl, by the test web's request log and each node's WARC files; every document is
//! still captured once and the per-PLD spacing holds across nodes.

use crate::common;
use crate::multi_node::{
    assert_spacing, counts, finished, responses, setup, wait_for_crawl, warc_files,
};

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Stdio};

use ldwarc_testweb::TestWebServer;
use ldwarc_testweb::postgres::shared_server;

/// A node with the defaults for `--max-plds` and `--concurrency`; `seeds` empty means
/// `--join`.
fn node(
    database: &str,
    name: &str,
    root: &Path,
    server: &TestWebServer,
    seeds: &[String],
) -> Child {
    let mut command = common::ldwarc();
    command
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args(["--state", database, "--node", name])
        .args(["--delay", "0.3s", "--hops", "2", "--timeout", "10s"])
        .args(["--lease-ttl", "2s", "--format", "json", "--resolve"])
        .arg(format!("*.example=127.0.0.1:{}", server.port()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if seeds.is_empty() {
        command.arg("--join");
    } else {
        command.args(seeds);
    }
    command.spawn().unwrap()
}

#[test]
fn nodes_joining_a_running_crawl_get_a_fair_share_of_its_plds() {
    let pg = shared_server();
    let database = pg.fresh_database("cluster_share");
    let (expected, seeds, server) = setup();
    let roots: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let first = node(&database, "n1", roots[0].path(), &server, &seeds);
    wait_for_crawl(&database);
    let others = [
        node(&database, "n2", roots[1].path(), &server, &[]),
        node(&database, "n3", roots[2].path(), &server, &[]),
    ];
    let mut summaries = vec![finished(first, "n1")];
    for (child, name) in others.into_iter().zip(["n2", "n3"]) {
        summaries.push(finished(child, name));
    }

    let mut all = Vec::new();
    let mut per_node = Vec::new();
    for root in &roots {
        let captured = responses(&warc_files(root.path()));
        per_node.push(captured.len());
        all.extend(captured);
    }
    // A fair share of 8 PLDs among 3 nodes is 3: each node works on at least one PLD for a
    // while, so each captures a good part of the ~100 documents, none nearly all of them.
    for (index, captured) in per_node.iter().enumerate() {
        assert!(
            *captured >= expected.len() / 10,
            "node n{} captured {captured} of {} documents ({per_node:?}): {summaries:?}",
            index + 1,
            expected.len()
        );
    }
    let captured = counts(&all);
    for (url, count) in &captured {
        assert_eq!(*count, 1, "{url} captured {count} times");
    }
    assert_eq!(captured.keys().cloned().collect::<BTreeSet<_>>(), expected);
    assert_spacing(&server.requests());
}
