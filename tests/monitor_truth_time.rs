//! `ldwarc monitor --truth` scores each download at its capture's own WARC-Date, not at the
//! cycle's clock: a document that changed after the cycle started but before it was fetched
//! is a detected change, not a false detection.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use common::{ldwarc, run};
use ldwarc_dynamics::schedule::{ChangeHistory, write_histories};
use ldwarc_state::StateStore;
use ldwarc_testweb::{Doc, Host, Resource, Term, TestWebServer, Triple, Web};

const HOST: &str = "truth.example";

fn url(path: &str) -> String {
    format!("http://{HOST}{path}")
}

fn triple(path: &str, version: &str) -> Vec<Triple> {
    vec![Triple::new(
        Term::iri(url(path)),
        Term::iri("http://example.org/vocab#version"),
        Term::literal(version),
    )]
}

/// `/still` never changes; `/moving` changes in epoch 1.
fn web() -> Web {
    let mut host = Host::default();
    host.resources.insert(
        "/still".into(),
        Resource::Document(Doc {
            epochs: vec![triple("/still", "one")],
        }),
    );
    host.resources.insert(
        "/moving".into(),
        Resource::Document(Doc {
            epochs: vec![triple("/moving", "one"), triple("/moving", "two")],
        }),
    );
    let mut web = Web::new();
    web.hosts.insert(HOST.to_string(), host);
    web
}

fn monitor(
    root: &std::path::Path,
    port: u16,
    truth: Option<&std::path::Path>,
) -> Vec<serde_json::Value> {
    let mut command = ldwarc();
    command
        .arg("monitor")
        .arg("--root")
        .arg(root)
        .args([
            "--once",
            "--format",
            "json",
            "--strategy",
            "fix",
            "--hops",
            "0",
        ])
        .args(["--initial-interval", "1s", "--min-interval", "1s"])
        .args(["--delay", "3s", "--timeout", "10s"])
        .arg("--resolve")
        .arg(format!("{HOST}=127.0.0.1:{port}"))
        .arg(url("/still"))
        .arg(url("/moving"));
    if let Some(truth) = truth {
        command.arg("--truth").arg(truth);
    }
    let output = run(&mut command);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn truth_is_scored_at_each_captures_warc_date() {
    let server = TestWebServer::start(web()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let start = Utc::now().timestamp() as f64 - 10.0;
    let first = monitor(root.path(), server.port(), None);
    assert_eq!(first[0]["fetched"], 2, "{first:?}");

    std::thread::sleep(Duration::from_millis(500));
    server.set_epoch(1);
    // The truth: /moving changes 1 s from now. The next cycle starts before that, and sends
    // no request to the host before the --delay (3 s) after the first cycle's last one, so
    // it fetches /moving after the change.
    let change = Utc::now().timestamp_micros() as f64 / 1e6 + 1.0;
    let histories = vec![
        ChangeHistory::new(url("/still"), start, start + 3600.0, vec![]).unwrap(),
        ChangeHistory::new(url("/moving"), start, start + 3600.0, vec![change]).unwrap(),
    ];
    let truth = root.path().join("truth.jsonl");
    write_histories(std::fs::File::create(&truth).unwrap(), &histories).unwrap();

    let second = monitor(root.path(), server.port(), Some(&truth));
    // The premise: the cycle's clock is before the change, the fetch of /moving after it.
    let clock = chrono::DateTime::parse_from_rfc3339(second[0]["clock"].as_str().unwrap())
        .unwrap()
        .timestamp() as f64;
    assert!(
        clock < change,
        "the cycle started late: {clock} vs {change}"
    );
    let store = StateStore::open(&root.path().join("state")).unwrap();
    let fetched_at = store
        .fetch_log(second[0]["crawl"].as_i64())
        .unwrap()
        .into_iter()
        .find(|e| e.url == url("/moving"))
        .map(|e| e.time.timestamp_micros() as f64 / 1e6)
        .unwrap();
    assert!(
        fetched_at > change,
        "/moving fetched at {fetched_at}, before {change}"
    );
    assert_eq!(second[0]["fetched"], 2, "{second:?}");
    assert_eq!(second[0]["changed"], 1, "{second:?}");
    let score = |name: &str| {
        second
            .iter()
            .find(|line| line["truth"]["url"] == name)
            .map(|line| line["truth"].clone())
            .unwrap_or_else(|| panic!("no truth line for {name}: {second:?}"))
    };
    let moving = score(&url("/moving"));
    assert_eq!(moving["changes"], 1, "{moving}");
    assert_eq!(moving["detected"], 1, "{moving}");
    assert_eq!(moving["false_detections"], 0, "{moving}");
    let all = score("all");
    assert_eq!(all["false_detections"], 0, "{all}");
    assert_eq!(all["recall"], 1.0, "{all}");
}
