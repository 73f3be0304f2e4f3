//! Failed fetches are reported by cause: a refused port, a host that does not resolve, a
//! server that never answers, a TLS handshake with a server that speaks plain HTTP, and an
//! error status. Each is counted in the JSON summary, named on stderr, and an unreachable
//! robots.txt still excludes its host (RFC 9309) but the crawl log says why. A crawl whose
//! seeds all failed exits with status 1; one good seed makes it 0.

use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

use common::{ldwarc, run};
use ldwarc_state::{Change, StateStore};

/// A port nothing listens on (bound, then closed).
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A server that accepts connections and answers each with `answer`: `None` never answers
/// (the connection is held until the peer gives up).
fn start_server(answer: fn(&str) -> Option<String>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || respond(stream, answer));
        }
    });
    port
}

fn respond(mut stream: TcpStream, answer: fn(&str) -> Option<String>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    // A TLS ClientHello never ends in an empty line: answer whatever came first.
    while !head.ends_with(b"\r\n\r\n") && head.len() < 4096 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
        if head.first() == Some(&0x16) && head.len() >= 5 {
            break;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let path = text.split_whitespace().nth(1).unwrap_or("").to_string();
    match answer(&path) {
        Some(response) => {
            let _ = stream.write_all(response.as_bytes());
        }
        None => std::thread::sleep(Duration::from_secs(30)),
    }
}

fn plain_http(path: &str) -> Option<String> {
    let (status, body) = match path {
        "/robots.txt" => ("200 OK", "User-agent: *\nAllow: /\n"),
        "/good" => (
            "200 OK",
            "<http://good.example/good> <http://www.w3.org/2000/01/rdf-schema#label> \"ok\" .\n",
        ),
        _ => ("404 Not Found", "no\n"),
    };
    Some(format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/n-triples\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
}

fn silent(_path: &str) -> Option<String> {
    None
}

fn crawl(root: &Path, resolve: &[String], seeds: &[String]) -> std::process::Output {
    let mut command = ldwarc();
    command.arg("crawl").arg("--root").arg(root).args([
        "--delay",
        "0s",
        "--hops",
        "0",
        "--timeout",
        "2s",
        "--format",
        "json",
    ]);
    for rule in resolve {
        command.arg("--resolve").arg(rule);
    }
    run(command.args(seeds))
}

#[test]
fn every_failure_is_reported_by_cause() {
    let web = start_server(plain_http);
    let hang = start_server(silent);
    let refused = closed_port();
    let resolve = vec![
        format!("refused.example=127.0.0.1:{refused}"),
        format!("hang.example=127.0.0.1:{hang}"),
        format!("tls.example=127.0.0.1:{web}"),
        format!("good.example=127.0.0.1:{web}"),
    ];
    let failing = vec![
        "http://refused.example/doc".to_string(),
        "http://nowhere.invalid/doc".to_string(),
        "http://hang.example/doc".to_string(),
        "https://tls.example/doc".to_string(),
        "http://good.example/missing".to_string(),
    ];
    let root = tempfile::tempdir().unwrap();
    let output = crawl(root.path(), &resolve, &failing);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no seed could be fetched"), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    let by_cause = &summary["failures"]["by_cause"];
    for cause in ["connect", "dns", "timeout", "tls", "http-status"] {
        assert_eq!(by_cause[cause], 1, "{cause}: {summary}");
    }
    assert_eq!(summary["failures"]["seeds_tried"], 5, "{summary}");
    assert_eq!(summary["failures"]["seeds_fetched"], 0, "{summary}");
    let listed = summary["failures"]["listed"].as_array().unwrap();
    assert_eq!(listed.len(), 5, "{summary}");
    // robots.txt is where the network failures show first; the 404 is the document's.
    for failed in listed {
        let url = failed["url"].as_str().unwrap();
        let kind = failed["kind"].as_str().unwrap();
        let expected_kind = if url.ends_with("/missing") {
            "document"
        } else {
            "robots"
        };
        assert_eq!(kind, expected_kind, "{failed}");
        assert!(
            stderr.contains(&format!(
                "failed ({}): {kind} {url}: ",
                failed["cause"].as_str().unwrap()
            )),
            "{url} not on stderr: {stderr}"
        );
    }
    assert!(stderr.contains("connection refused") || stderr.contains("Connection refused"));

    // The excluded documents say why their host was treated as disallowed.
    let store = StateStore::open(&root.path().join("state")).unwrap();
    let log = store.fetch_log(None).unwrap();
    for url in &failing[..4] {
        let row = log
            .iter()
            .find(|e| &e.url == url)
            .unwrap_or_else(|| panic!("{url} not logged"));
        assert_eq!(row.change, Change::Excluded, "{url}");
        let error = row.error.as_deref().unwrap_or("");
        assert!(
            error.starts_with("disallowed: robots.txt unavailable ("),
            "{url}: {error}"
        );
    }

    // One seed that can be fetched: exit 0, the others still reported.
    let root = tempfile::tempdir().unwrap();
    let mut seeds = failing.clone();
    seeds.push("http://good.example/good".into());
    let output = crawl(root.path(), &resolve, &seeds);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).unwrap();
    assert_eq!(summary["failures"]["seeds_fetched"], 1, "{summary}");
    assert_eq!(summary["failures"]["listed"].as_array().unwrap().len(), 5);
}
