//! `ldwarc plan crawl-time --nodes/--cycle`: resource planning across crawler nodes on a
//! workload file whose answers can be worked out by hand.

use crate::common;

use serde_json::Value;

/// 12 domains of 10 URLs, 1 s per fetch, 1 s crawl delay: 120 s of fetching, 19 s for a
/// domain alone.
fn workload_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("plds.jsonl");
    let lines: String = (0..12)
        .map(|i| {
            format!("{{\"pld\":\"site{i}.example\",\"delay\":1,\"urls\":10,\"fetch_time\":1}}\n")
        })
        .collect();
    std::fs::write(&path, lines).expect("write the workload");
    path
}

fn plan_json(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let plds = workload_file(dir.path());
    let output = common::run(
        common::ldwarc()
            .args([
                "plan",
                "crawl-time",
                "--format",
                "json",
                "--connections",
                "2",
                "--plds",
            ])
            .arg(&plds)
            .args(args),
    );
    let text = common::stdout_ok(&output, "ldwarc plan crawl-time");
    serde_json::from_str(text.trim()).expect("one JSON object")
}

#[test]
fn nodes_divide_the_cycle_and_the_plan_finds_the_fewest() {
    let one = plan_json(&[]);
    assert_eq!(one["estimate_seconds"], 60.0, "{one}");

    let three = plan_json(&["--nodes", "3"]);
    let cluster = &three["cluster"];
    assert_eq!(cluster["nodes"], 3);
    // 120 s of fetching over 6 always-busy connections.
    assert_eq!(cluster["leased_seconds"], 20.0, "{three}");
    assert!(cluster["partitioned_seconds"].as_f64().expect("number") >= 20.0);

    // 30 s needs 120/30 = 4 connections: 2 nodes of 2.
    let plan = plan_json(&["--cycle", "30s"]);
    assert_eq!(plan["node_plan"]["fits"]["nodes"], 2, "{plan}");
    assert_eq!(plan["node_plan"]["floor_seconds"], 19.0);

    // Below the politeness floor no cluster fits, and the answer says why.
    let floor = plan_json(&["--cycle", "15s"]);
    assert!(floor["node_plan"]["fits"].is_null(), "{floor}");
    let reason = floor["node_plan"]["reason"].as_str().expect("a reason");
    assert!(reason.contains("slowest domain"), "{reason}");
}

#[test]
fn text_output_names_the_node_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plds = workload_file(dir.path());
    let output = common::run(
        common::ldwarc()
            .args([
                "plan",
                "crawl-time",
                "--connections",
                "2",
                "--cycle",
                "30s",
                "--plds",
            ])
            .arg(&plds),
    );
    let text = common::stdout_ok(&output, "ldwarc plan crawl-time");
    assert!(
        text.lines()
            .any(|line| line.starts_with("nodes needed") && line.contains(" 2 for a 30s cycle")),
        "{text}"
    );
}
