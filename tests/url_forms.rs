//! One spelling of a host for capture and lookup: a crawl of `http://[::1]:PORT/x` is found by
//! `query`, `replay` and the TimeMap when asked for `http://[0:0:0:0:0:0:0:1]:PORT/x`; an
//! international host is captured, looked up and written in punycode (TimeMaps included);
//! and no WARC directory name holds a `:`.

use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::time::Duration;

use crate::serve_server::LdwarcServer;
use common::{ldwarc, run, stdout_ok};

const IDN: &str = "bücher.example";
const PUNYCODE: &str = "xn--bcher-kva.example";

/// A plain HTTP server on `address` answering `/robots.txt` and any other path with a
/// one-triple N-Triples document about `http://{authority}{path}`.
fn start_server(address: &str, authority: fn(u16) -> String) -> u16 {
    let listener = TcpListener::bind(address).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            respond(stream, &authority(port));
        }
    });
    port
}

fn respond(mut stream: TcpStream, authority: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
    let body = if path == "/robots.txt" {
        "User-agent: *\nAllow: /\n".to_string()
    } else {
        format!(
            "<http://{authority}{path}> <http://www.w3.org/2000/01/rdf-schema#label> \"served\" .\n"
        )
    };
    let _ = stream.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/n-triples\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
}

fn directories(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root.join("warc"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_spelling_of_a_host_finds_its_captures() {
    let v6 = start_server("[::1]:0", |port| format!("[::1]:{port}"));
    let idn = start_server("127.0.0.1:0", |port| format!("{PUNYCODE}:{port}"));
    let root = tempfile::tempdir().unwrap();
    let short = format!("http://[::1]:{v6}/x");
    let long = format!("http://[0:0:0:0:0:0:0:1]:{v6}/x");
    let unicode = format!("http://{IDN}:{idn}/doc");
    let ascii = format!("http://{PUNYCODE}:{idn}/doc");
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args([
            "--delay",
            "0s",
            "--hops",
            "0",
            "--timeout",
            "10s",
            "--format",
            "json",
        ])
        .arg("--resolve")
        .arg(format!("{PUNYCODE}=127.0.0.1"))
        .arg(&long)
        .arg(&unicode));
    let summary = stdout_ok(&output, "ldwarc crawl");
    assert!(summary.contains("\"captures\":4"), "{summary}");

    let dirs = directories(root.path());
    assert!(dirs.iter().all(|d| !d.contains(':')), "{dirs:?}");
    assert!(dirs.iter().any(|d| d == "--1"), "{dirs:?}");
    assert!(dirs.iter().any(|d| d == PUNYCODE), "{dirs:?}");

    for (asked, captured) in [
        (&long, &short),
        (&short, &short),
        (&unicode, &ascii),
        (&ascii, &ascii),
    ] {
        let output = run(ldwarc()
            .args(["query", "--root"])
            .arg(root.path())
            .arg(asked));
        let rows = stdout_ok(&output, "ldwarc query");
        assert!(rows.contains(captured.as_str()), "query {asked}: {rows:?}");
        let output = run(ldwarc()
            .args(["replay", "--root"])
            .arg(root.path())
            .arg(asked));
        let graph = stdout_ok(&output, "ldwarc replay");
        assert!(
            graph.contains(&format!("<{captured}>")) && graph.contains("\"served\""),
            "replay {asked}: {graph:?}"
        );
    }

    let server = LdwarcServer::start(root.path(), &[]);
    let requests = [
        (format!("/timemap/link/{long}"), short.clone()),
        (
            format!("/timemap/link/http://b%C3%BCcher.example:{idn}/doc"),
            ascii.clone(),
        ),
    ];
    for (path, captured) in requests {
        let response = server.get(&path);
        let body = response.text();
        assert_eq!(response.status, 200, "{path}: {body}");
        assert!(
            body.contains(&format!("<{captured}>; rel=\"original\"")),
            "{path}: {body}"
        );
        assert!(
            !body.contains("%C3") && !body.contains('ü'),
            "{path}: {body}"
        );
    }
}
