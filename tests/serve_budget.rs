//! The memory budget of `ldwarc serve`: CDX queries that buffer their rows (`sort=reverse`,
//! `closest=`) are answered 503 with `Retry-After` when their rows do not fit the budget and
//! complete otherwise; `limit=-N` and `sort=reverse&limit=N` keep only N rows, so they are
//! answered under any budget; and a query whose client goes away stops its scan.

use crate::common;
use crate::serve_server;
use crate::synthetic_archive::{Spec, generate};

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{ldwarc, run, stdout_ok};
use serve_server::LdwarcServer;

/// An indexed synthetic archive of `hours * plds * per_file` captures.
fn archive(hours: usize, plds: usize, per_file: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let spec = Spec {
        hours,
        plds,
        captures_per_file: per_file,
        hot_documents: 5,
        requests: false,
        imported: false,
        gzip_level: 1,
        threads: 2,
    };
    let generated = generate(&root, &spec).expect("generate");
    assert_eq!(generated.captures, (hours * plds * per_file) as u64);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    (dir, root)
}

fn lines(response: &common::HttpResponse) -> Vec<String> {
    response.text().lines().map(String::from).collect()
}

const DOMAIN: &str = "/cdx?url=example.org&matchType=domain";

#[test]
fn buffered_queries_fit_the_budget_or_are_refused_with_retry_after() {
    let (_dir, root) = archive(4, 2, 1000);
    // 3 MiB: one streamed answer's pieces (under 2 MiB) and about a thousand buffered rows.
    let tight = LdwarcServer::start(&root, &["--memory-budget", "3MiB"]);
    let ascending = tight.get(DOMAIN);
    assert_eq!(ascending.status, 200, "{}", ascending.text());
    let all = lines(&ascending);
    assert_eq!(all.len(), 8000, "index order streams under any budget");

    for order in ["sort=reverse", "closest=20260101020000&sort=closest"] {
        let refused = tight.get(&format!("{DOMAIN}&{order}"));
        assert_eq!(refused.status, 503, "{order}: {}", refused.text());
        assert_eq!(refused.header("retry-after"), Some("2"), "{order}");
        assert!(
            refused.text().contains("memory budget"),
            "{}",
            refused.text()
        );
    }
    // The last N rows are all a tail query keeps: answered, and exactly the tail.
    let last = tight.get(&format!("{DOMAIN}&limit=-7"));
    assert_eq!(last.status, 200, "{}", last.text());
    assert_eq!(lines(&last), all[all.len() - 7..].to_vec());
    let reverse_three = tight.get(&format!("{DOMAIN}&sort=reverse&limit=3"));
    assert_eq!(reverse_three.status, 200, "{}", reverse_three.text());
    let mut expected: Vec<String> = all[all.len() - 3..].to_vec();
    expected.reverse();
    assert_eq!(lines(&reverse_three), expected);
    // A refused query returned what it had reserved: the server still answers them.
    let again = tight.get(&format!("{DOMAIN}&limit=-7"));
    assert_eq!(lines(&again), lines(&last));
    drop(tight);

    // Under the default budget the same queries are answered whole.
    let roomy = LdwarcServer::start(&root, &[]);
    let reverse = roomy.get(&format!("{DOMAIN}&sort=reverse"));
    assert_eq!(reverse.status, 200, "{}", reverse.text());
    let mut expected = all.clone();
    expected.reverse();
    assert_eq!(lines(&reverse), expected);
    let closest = roomy.get(&format!("{DOMAIN}&closest=20260101020000&sort=closest"));
    assert_eq!(closest.status, 200, "{}", closest.text());
    let mut closest_rows = lines(&closest);
    assert_eq!(closest_rows.len(), all.len());
    closest_rows.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(closest_rows, sorted, "the same rows in another order");
}

#[test]
fn a_budget_below_one_answer_is_refused_at_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    // An (empty) archive: the root is accepted, so the budget is what is refused.
    std::fs::create_dir(dir.path().join("warc")).expect("warc/");
    let output = run(ldwarc()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--memory-budget",
            "1KB",
            "--root",
        ])
        .arg(dir.path()));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("memory budget of 1000 bytes"), "{stderr}");
}

/// A client that sends a buffering query and goes away: the server stops the scan (its
/// debug log says so, with fewer rows kept than the selection holds) and answers the next
/// request at once.
#[test]
fn a_client_that_goes_away_stops_the_query() {
    let (dir, root) = archive(20, 5, 1000);
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let mut child = ldwarc()
        .env("RUST_LOG", "ldwarc_serve=debug")
        .args([
            "--log-format",
            "json",
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--root",
        ])
        .arg(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start ldwarc serve");
    let port = serve_server::read_listening_port(&mut child);
    let server = KillOnDrop(child);

    let mut client = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let request = format!("GET {DOMAIN}&sort=reverse HTTP/1.1\r\nHost: x\r\n\r\n");
    client.write_all(request.as_bytes()).expect("write");
    std::thread::sleep(Duration::from_millis(50));
    drop(client);

    let deadline = Instant::now() + Duration::from_secs(30);
    let stopped = loop {
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("nobody waits")) {
            break line.to_string();
        }
        assert!(Instant::now() < deadline, "no stop in the log:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let event: serde_json::Value = serde_json::from_str(&stopped).expect("a JSON log line");
    let kept = event["kept"]
        .as_u64()
        .unwrap_or_else(|| panic!("no kept rows in {stopped}"));
    assert!(
        kept < 100_000,
        "stopped after keeping {kept} of 100000 rows"
    );
    // Stopped for good: the log says nothing more of that query, and the server answers.
    let mut answer = String::new();
    let mut next = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    next.write_all(
        b"GET /cdx?url=example.org/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .expect("write");
    next.read_to_string(&mut answer).expect("read");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(server);
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
