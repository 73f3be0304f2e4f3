//! Answers that time out (`--request-timeout`): the 503 carries `Retry-After` as the memory
//! budget's refusals do, and the work behind a page given up stops instead of running on
//! for nobody: a timeline of many captures stops reading them once its answer is a 503
//! (the server logs how many it read).

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::ldwarc;
use crate::serve_server::{get_with, read_listening_port};
use crate::warc_fixture::{Exchange, write_archive};

const URL: &str = "http://example.org/slow";
const CAPTURES: usize = 600;
/// Statements in each capture: reading all captures takes about ten times the timeout on
/// a 2-core machine (a debug build read 300 captures of 400 statements within 0.3 s).
const STATEMENTS: usize = 1000;

/// One capture a minute, each a different graph of `STATEMENTS` statements (so each is parsed).
fn exchanges() -> Vec<Exchange> {
    (0..CAPTURES)
        .map(|index| {
            let body: String = (0..STATEMENTS)
                .map(|line| {
                    format!(
                        "<http://example.org/s{line}> <http://example.org/p> \"version {index} line {line}\" .\n"
                    )
                })
                .collect();
            let date = format!(
                "2024-01-01T{:02}:{:02}:00Z",
                index / 60,
                index % 60
            );
            Exchange::ok(URL, &date, "application/n-triples", body.as_bytes())
        })
        .collect()
}

#[test]
fn a_timed_out_page_says_when_to_retry_and_stops_its_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    write_archive(&root, &exchanges());
    let mut child = ldwarc()
        .env("RUST_LOG", "ldwarc_serve=info")
        .arg("serve")
        .arg("--root")
        .arg(&root)
        .args(["--bind", "127.0.0.1:0", "--request-timeout", "100ms"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ldwarc serve");
    let port = read_listening_port(&mut child);
    let stderr = child.stderr.take().expect("stderr");
    let (lines_tx, lines_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });

    let started = Instant::now();
    let answer = get_with(port, &format!("/timeline?url={URL}"), &[]);
    let waited = started.elapsed();
    assert_eq!(answer.status, 503, "{}", answer.text());
    assert_eq!(answer.header("retry-after"), Some("2"));
    assert!(
        answer.text().contains("took longer than 0.1 s"),
        "{}",
        answer.text()
    );
    assert!(waited < Duration::from_secs(5), "answered after {waited:?}");

    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let read = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = lines_rx.recv_timeout(left) else {
            panic!("the timeline's work did not report stopping; stderr: {seen:#?}");
        };
        if line.contains("timeline stopped") {
            let count = line
                .split("captures_read=")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|digits| digits.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("no count in {line:?}"));
            break count;
        }
        seen.push(line);
    };
    assert!(
        read < CAPTURES,
        "the timeline read all {CAPTURES} captures for an answer given up"
    );
    let _ = child.kill();
    let _ = child.wait();
}
