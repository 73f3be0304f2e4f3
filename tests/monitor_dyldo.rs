//! `ldwarc monitor --strategy dyldo` on the loopback test web: the DyLDO observatory's adaptive
//! scheme (a weekly snapshot; a document that changed in two consecutive snapshots of its
//! interval is taken 2, 4, 8, up to 16 times a week). The clock is simulated (`--now`): each
//! `--once` cycle runs at the earliest time a monitored URL is due, with the test web's epoch
//! set to the hour. `/hot` changes every hour, `/slow` every 3 days, `/still` never. Asserts,
//! from the monitor's own observation log, that every gap between two downloads is the one the
//! rule gives for the changes seen before it, and where each document ends.

use crate::common;

use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};
use common::{ldwarc, run};
use ldwarc_crawl::monitor::MonitorTable;
use ldwarc_testweb::{Doc, Host, Resource, Term, TestWebServer, Triple, Web};

const HOST: &str = "dyldo.example";
const HOUR: f64 = 3600.0;
const DAY: f64 = 86_400.0;
const WEEK: f64 = 7.0 * DAY;
/// Simulated span: 30 days, in hours (one test-web epoch per hour).
const HOURS: usize = 30 * 24;

/// (path, changes every N hours (0: never))
const DOCS: [(&str, usize); 3] = [("/hot", 1), ("/slow", 72), ("/still", 0)];

fn url(path: &str) -> String {
    format!("http://{HOST}{path}")
}

fn web() -> Web {
    let mut host = Host::default();
    for (path, period) in DOCS {
        let epochs = (0..=HOURS)
            .map(|hour| {
                let version = hour.checked_div(period).unwrap_or(0);
                vec![Triple::new(
                    Term::iri(url(path)),
                    Term::iri("http://example.org/vocab#version"),
                    Term::literal(format!("{path} version {version}")),
                )]
            })
            .collect();
        host.resources
            .insert(path.to_string(), Resource::Document(Doc { epochs }));
    }
    let mut web = Web::new();
    web.hosts.insert(HOST.to_string(), host);
    web
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 0, 0, 0).unwrap()
}

fn cycle(root: &Path, port: u16, at: f64) {
    let now = DateTime::<Utc>::from_timestamp(at as i64, 0).unwrap();
    let mut command = ldwarc();
    command
        .arg("monitor")
        .arg("--root")
        .arg(root)
        .args(["--once", "--format", "json", "--strategy", "dyldo"])
        .args(["--hops", "0", "--delay", "50ms", "--timeout", "10s"])
        .arg("--resolve")
        .arg(format!("{HOST}=127.0.0.1:{port}"))
        .arg("--now")
        .arg(now.to_rfc3339());
    for (path, _) in DOCS {
        command.arg(url(path));
    }
    let output = run(&mut command);
    assert!(
        output.status.success(),
        "cycle at {now}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The gaps (days) DyLDO §6 gives after each observed state, written out independently of
/// the library: the interval halves when the last two snapshots at the current interval both
/// changed, at most four times; it never grows back.
fn expected_gaps(changed: &[bool]) -> Vec<f64> {
    let mut level = 0u32;
    let mut streak = 0u32;
    let mut gaps = Vec::new();
    for &c in changed {
        streak = if c { streak + 1 } else { 0 };
        if streak >= 2 && level < 4 {
            level += 1;
            streak = 0;
        }
        gaps.push(7.0 / f64::from(1u32 << level));
    }
    gaps
}

#[test]
fn dyldo_moves_documents_that_keep_changing_up_to_16_snapshots_a_week() {
    let server = TestWebServer::start(web()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let origin = start().timestamp() as f64;
    let horizon = origin + HOURS as f64 * HOUR;
    let mut at = origin;
    let mut cycles = 0;
    while at <= horizon {
        server.set_epoch(((at - origin) / HOUR).floor() as usize);
        cycle(&root, server.port(), at);
        cycles += 1;
        let members = MonitorTable::open(&root.join("state"))
            .unwrap()
            .members()
            .unwrap();
        at = members
            .iter()
            .filter_map(|m| m.state.next_due)
            .fold(f64::INFINITY, f64::min);
        assert!(at.is_finite(), "no URL due after cycle {cycles}");
    }
    let table = MonitorTable::open(&root.join("state")).unwrap();
    let observations = table.observations().unwrap();
    let members = table.members().unwrap();
    println!("{cycles} cycles over {} days", HOURS / 24);
    let mut finals = Vec::new();
    for (path, _) in DOCS {
        let mut mine: Vec<_> = observations.iter().filter(|o| o.url == url(path)).collect();
        mine.sort_by(|a, b| a.at.total_cmp(&b.at));
        assert!(
            mine[0].first && mine[1..].iter().all(|o| !o.first),
            "{path}"
        );
        let gaps: Vec<f64> = mine.windows(2).map(|w| (w[1].at - w[0].at) / DAY).collect();
        // The first download is compared with nothing and counts as unchanged.
        let states: Vec<bool> = mine.iter().map(|o| !o.first && o.changed).collect();
        let expected = expected_gaps(&states);
        println!(
            "{path}: gaps (days) {:?}",
            gaps.iter().map(|g| format!("{g:.4}")).collect::<Vec<_>>()
        );
        assert_eq!(gaps.len() + 1, mine.len());
        for (i, (gap, want)) in gaps.iter().zip(&expected).enumerate() {
            assert!(
                (gap - want).abs() < 1e-6,
                "{path}: gap {i} is {gap} d, DyLDO gives {want} d after {:?}",
                &states[..=i]
            );
        }
        let member = members.iter().find(|m| m.url == url(path)).unwrap();
        finals.push(member.state.interval / DAY);
    }
    // /hot: 7, 7 (two changes), 3.5, 3.5, 1.75, 1.75, 0.875, 0.875, then 16 a week (10.5 h)
    // to the end; /slow changes every 3 days: seen at 7 d and 3.5 d in every snapshot, at
    // 1.75 d in every other one, so it stays at 4 a week; /still stays weekly.
    assert_eq!(finals, vec![WEEK / 16.0 / DAY, 1.75, 7.0]);
    let hot: Vec<f64> = {
        let mut mine: Vec<_> = observations
            .iter()
            .filter(|o| o.url == url("/hot"))
            .collect();
        mine.sort_by(|a, b| a.at.total_cmp(&b.at));
        mine.windows(2).map(|w| (w[1].at - w[0].at) / DAY).collect()
    };
    assert_eq!(
        hot[..9],
        [7.0, 7.0, 3.5, 3.5, 1.75, 1.75, 0.875, 0.875, 0.4375]
    );
    assert!(hot.len() > 15, "{hot:?}");
}
