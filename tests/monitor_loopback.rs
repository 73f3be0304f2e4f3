//! `ldwarc monitor` on the loopback test web: documents that change on known schedules (A
//! every simulated day, B every 4th, C every 16th, D never, and a segment document S, linked
//! from A, every 2nd), one `--once` cycle per simulated day with `--now` and the server's
//! epoch set to the day. Asserts that intervals converge toward the true rates, that recall
//! and precision against the ground truth are what the schedules allow, that a second
//! monitor is refused while a cycle runs, that a monitor killed mid-cycle loses nothing the
//! next cycle does not repeat (and leaves valid WARC files), and that the crawl-time
//! estimates are within ±20 % of the actual time for at least 80 % of the cycles.

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use common::{assert_warcs_valid, ldwarc, run};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_crawl::monitor::{CycleLock, MonitorTable};
use ldwarc_dynamics::schedule::{ChangeHistory, write_histories};
use ldwarc_testweb::{Doc, Host, Resource, Term, TestWebServer, Triple, Web};

const DAYS: usize = 56;
const DAY: f64 = 86_400.0;
const HOST: &str = "obs.example";
const SEE_ALSO: &str = "http://www.w3.org/2000/01/rdf-schema#seeAlso";

/// (path, changes every N days (0: never), in the kernel)
const DOCS: [(&str, usize, bool); 5] = [
    ("/a", 1, true),
    ("/b", 4, true),
    ("/c", 16, true),
    ("/d", 0, true),
    ("/s", 2, false),
];

fn url(path: &str) -> String {
    format!("http://{HOST}{path}")
}

fn version(period: usize, day: usize) -> usize {
    day.checked_div(period).unwrap_or(0)
}

fn web() -> Web {
    let mut host = Host {
        latency: Duration::from_millis(40),
        ..Host::default()
    };
    for (path, period, _) in DOCS {
        let epochs = (0..DAYS)
            .map(|day| {
                let mut triples = vec![Triple::new(
                    Term::iri(url(path)),
                    Term::iri("http://example.org/vocab#version"),
                    Term::literal(format!("{path} version {}", version(period, day))),
                )];
                if path == "/a" {
                    triples.push(Triple::new(
                        Term::iri(url(path)),
                        Term::iri(SEE_ALSO),
                        Term::iri(url("/s")),
                    ));
                }
                triples
            })
            .collect();
        host.resources
            .insert(path.to_string(), Resource::Document(Doc { epochs }));
    }
    let mut web = Web::new();
    web.hosts.insert(HOST.to_string(), host);
    web
}

fn day_start(day: usize) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::days(day as i64)
}

fn truth() -> Vec<ChangeHistory> {
    let start = day_start(0).timestamp() as f64;
    DOCS.iter()
        .map(|&(path, period, _)| {
            let changes = (1..DAYS)
                .filter(|&d| version(period, d) != version(period, d - 1))
                .map(|d| start + d as f64 * DAY)
                .collect();
            ChangeHistory::new(url(path), start, start + DAYS as f64 * DAY, changes).unwrap()
        })
        .collect()
}

struct Monitor {
    root: std::path::PathBuf,
    port: u16,
    truth: std::path::PathBuf,
}

impl Monitor {
    fn command(&self, day: usize) -> Command {
        let mut command = ldwarc();
        command
            .arg("monitor")
            .arg("--root")
            .arg(&self.root)
            .args([
                "--once",
                "--format",
                "json",
                "--strategy",
                "fix",
                "--hops",
                "1",
                // The triple index update after each cycle shifts the time between the
                // cycles' processes, which these crawl-time estimates are measured against.
                "--no-triples",
            ])
            .args([
                "--delay",
                "300ms",
                "--timeout",
                "10s",
                "--follow-predicate",
                SEE_ALSO,
            ])
            .args(common::loopback_resolve(self.port))
            .arg("--now")
            .arg(day_start(day).to_rfc3339())
            .arg("--truth")
            .arg(&self.truth);
        for (path, _, kernel) in DOCS {
            if kernel {
                command.arg(url(path));
            }
        }
        command
    }

    fn once(&self, day: usize) -> Vec<serde_json::Value> {
        let output = run(&mut self.command(day));
        assert!(
            output.status.success(),
            "day {day}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[test]
fn monitor_converges_detects_changes_and_estimates_crawl_time() {
    let server = TestWebServer::start(web()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let truth_file = dir.path().join("truth.jsonl");
    write_histories(std::fs::File::create(&truth_file).unwrap(), &truth()).unwrap();
    let monitor = Monitor {
        root: dir.path().join("archive"),
        port: server.port(),
        truth: truth_file,
    };
    let state_dir = monitor.root.join("state");

    // A held lock refuses a cycle with one clear line.
    {
        let _held = CycleLock::acquire(&state_dir).unwrap();
        let output = run(&mut monitor.command(0));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("another monitor cycle is running"),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }

    // Day 0: start a cycle (four kernel documents, ~1.5 s), try a second monitor while it
    // runs, then SIGKILL the first mid-crawl.
    server.set_epoch(0);
    let mut first = monitor
        .command(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let second = run(&mut monitor.command(0));
    assert!(
        !second.status.success()
            && String::from_utf8_lossy(&second.stderr).contains("another monitor cycle is running"),
        "a second monitor ran beside the first: {}",
        String::from_utf8_lossy(&second.stderr)
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        first.try_wait().unwrap().is_none(),
        "the cycle ended before the kill"
    );
    first.kill().unwrap();
    first.wait().unwrap();
    {
        let table = MonitorTable::open(&state_dir).unwrap();
        let cycles = table.cycles().unwrap();
        assert_eq!(cycles.len(), 1);
        assert_eq!(
            cycles[0].finished, None,
            "the killed cycle committed nothing"
        );
        assert!(table.observations().unwrap().is_empty());
    }
    // The next cycle repeats the killed one's work.
    let lines = monitor.once(0);
    let report = &lines[0];
    assert_eq!(report["due"], 4, "{report}");
    assert_eq!(report["fetched"], 4, "{report}");
    assert_eq!(report["joined"], 1, "S joins the segment: {report}");

    let mut reports = vec![report.clone()];
    let mut last = lines;
    for day in 1..DAYS {
        server.set_epoch(day);
        last = monitor.once(day);
        reports.push(last[0].clone());
    }

    // Intervals converge toward the true rates.
    let table = MonitorTable::open(&state_dir).unwrap();
    let members = table.members().unwrap();
    let interval = |path: &str| {
        members
            .iter()
            .find(|m| m.url == url(path))
            .unwrap_or_else(|| panic!("{path} not monitored"))
            .state
            .interval
            / DAY
    };
    println!("intervals after {DAYS} days (days):");
    for (path, period, _) in DOCS {
        println!("  {path} (changes every {period} d): {:.2}", interval(path));
    }
    assert_eq!(interval("/a"), 1.0, "A changes daily");
    assert!(interval("/a") < interval("/b"));
    assert!(interval("/b") < interval("/c"));
    assert!(interval("/c") < interval("/d"));
    assert!(
        interval("/d") >= 10.0,
        "D never changes: growing toward 180 days"
    );
    assert!(interval("/s") <= 3.0, "S changes every 2 days");
    assert!(!members.iter().find(|m| m.url == url("/s")).unwrap().kernel);

    // Recall and precision against the ground truth.
    let scores: Vec<&serde_json::Value> = last[1..].iter().map(|l| &l["truth"]).collect();
    println!("url                    changes downloads detected recall precision");
    for s in &scores {
        println!(
            "  {:<22} {:>5} {:>8} {:>8} {:>7} {:>7}",
            s["url"].as_str().unwrap(),
            s["changes"],
            s["downloads"],
            s["detected"],
            format!("{:.3}", s["recall"].as_f64().unwrap_or(f64::NAN)),
            format!("{:.3}", s["precision"].as_f64().unwrap_or(f64::NAN)),
        );
    }
    let score = |name: &str| *scores.iter().find(|s| s["url"] == name).unwrap();
    for s in &scores {
        assert_eq!(
            s["false_detections"], 0,
            "a change detected that did not happen: {s}"
        );
    }
    assert_eq!(
        score(&url("/a"))["precision"],
        1.0,
        "every download of A finds a change"
    );
    assert_eq!(score(&url("/d"))["detected"], 0);
    assert!(score(&url("/a"))["recall"].as_f64().unwrap() > 0.4);
    let all = score("all");
    assert!(all["recall"].as_f64().unwrap() > 0.3, "{all}");
    assert!(all["precision"].as_f64().unwrap() > 0.5, "{all}");

    // Crawl-time estimates within ±20 % for at least 80 % of the cycles that crawled.
    let crawled: Vec<&serde_json::Value> = reports.iter().filter(|r| r["due"] != 0).collect();
    let within = crawled
        .iter()
        .filter(|r| r["estimate_error"].as_f64().unwrap().abs() <= 0.2)
        .count();
    println!("cycle  due  estimate  paper  actual  error");
    for r in &crawled {
        println!(
            "  {:>3} {:>4} {:>8.2} {:>6.2} {:>7.2} {:>+6.1}%",
            r["cycle"],
            r["due"],
            r["estimate"]["estimate"].as_f64().unwrap(),
            r["estimate"]["paper"].as_f64().unwrap(),
            r["actual_s"].as_f64().unwrap(),
            100.0 * r["estimate_error"].as_f64().unwrap()
        );
    }
    println!("within ±20 %: {within} of {} cycles", crawled.len());
    assert!(
        within * 5 >= crawled.len() * 4,
        "only {within} of {} estimates within ±20 %",
        crawled.len()
    );

    // Every WARC file (the killed crawl's included, recovered) is valid.
    let files = walk_warc_files(&monitor.root.join("warc")).unwrap();
    assert!(!files.is_empty());
    assert_warcs_valid(&files);
}
