//! Hostile requests against `ldwarc serve`, each refused with the right status: path
//! traversal, URLs of the live web (a loopback "live" server counts every connection it gets:
//! none may arrive), proxy-style absolute-form targets and `CONNECT`, writes, bodies,
//! oversized targets and heads, malformed requests, bad CDX parameters, over-costly queries,
//! slow and idle clients (the head deadline), the token rule, and the sandbox on raw replay.

use crate::common;
use crate::serve_server;

use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{generated, ldwarc, run, stdout_ok};
use serve_server::{LdwarcServer, send_raw};

fn archive() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    generated::generate(&root, 0xC0FFEE);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    (dir, root)
}

/// A loopback listener standing for the live web: counts the connections it accepts.
fn live_web() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (port, hits)
}

fn status_of(server: &LdwarcServer, raw: &str) -> u16 {
    server
        .send(raw.as_bytes())
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"))
        .status
}

#[test]
fn hostile_requests_are_refused() {
    let (_dir, root) = archive();
    let server = LdwarcServer::start(&root, &["--max-cdx-rows", "50", "--head-timeout", "2s"]);
    traversal(&server, &root);
    live_web_is_never_fetched(&server);
    methods_bodies_and_sizes(&server);
    malformed(&server);
    cdx_parameters(&server);
    raw_replay_is_sandboxed(&server);
    slow_and_idle_clients_are_cut(&server);
}

fn traversal(server: &LdwarcServer, root: &std::path::Path) {
    // Something secret beside the archive's warc/ tree.
    std::fs::write(root.join("secret.txt"), "top secret").expect("write");
    for path in [
        "/../secret.txt",
        "/web/../../secret.txt",
        "/web/20240101id_/../../secret.txt",
        "/web/20240101id_/file:///etc/passwd",
        "/web/20240101id_/file:/etc/passwd",
        "/web/20240101id_/ftp://example.org/x",
        "/timemap/link/..%2F..%2Fsecret.txt",
        "/web/20240101id_/http://example.org/../../../../etc/passwd",
        "/web/20240101id_/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2f..%2fsecret.txt",
        "/cdx?url=../../secret.txt",
    ] {
        let response = server.get(path);
        assert!(
            matches!(response.status, 200 | 400 | 404),
            "{path}: {}",
            response.status
        );
        assert!(
            !response.text().contains("top secret"),
            "{path} leaked a file"
        );
        assert!(
            !response.text().contains("root:x:0"),
            "{path} leaked /etc/passwd"
        );
        if response.status == 200 {
            // Only the CDX API answers 200 here, and with nothing.
            assert!(path.starts_with("/cdx"), "{path}");
            assert_eq!(response.text(), "", "{path}");
        }
    }
    assert_eq!(
        server.get("/web/20240101id_/file:///etc/passwd").status,
        400
    );
}

fn live_web_is_never_fetched(server: &LdwarcServer) {
    let (port, hits) = live_web();
    let live = format!("http://127.0.0.1:{port}/page");
    for path in [
        format!("/web/{live}"),
        format!("/web/20240101id_/{live}"),
        format!("/web/20240101/{live}"),
        format!("/timemap/link/{live}"),
        format!("/cdx?url={live}"),
        format!("/timeline?url={live}"),
        format!("/capture?url={live}&ts=2024"),
    ] {
        let response = server.get(&path);
        assert!(
            matches!(response.status, 200 | 404),
            "{path}: {}",
            response.status
        );
    }
    // Proxy-style requests naming the live host.
    assert_eq!(
        status_of(
            server,
            &format!("GET {live} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")
        ),
        400
    );
    let connect = status_of(
        server,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    );
    assert!(matches!(connect, 400 | 405), "CONNECT: {connect}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the server connected to the live web"
    );
}

fn methods_bodies_and_sizes(server: &LdwarcServer) {
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
        let response = server
            .send(format!("{method} /cdx?url=x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes())
            .expect("send");
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("GET, HEAD"), "{method}");
    }
    assert_eq!(
        status_of(
            server,
            "GET /cdx?url=x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        ),
        413
    );
    let long = format!("/cdx?url={}", "a".repeat(10_000));
    assert_eq!(server.get(&long).status, 414);
    let many: Vec<(String, String)> = (0..80)
        .map(|i| (format!("X-Filler-{i}"), "v".into()))
        .collect();
    let refs: Vec<(&str, &str)> = many.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(server.get_with("/", &refs).status, 431);
    let big = "b".repeat(20_000);
    assert_eq!(server.get_with("/", &[("X-Big", &big)]).status, 431);
    // A head far beyond any limit: hyper refuses it before it is parsed.
    let huge = "h".repeat(2_000_000);
    let status = server
        .send(format!("GET / HTTP/1.1\r\nHost: x\r\nX-Huge: {huge}\r\n\r\n").as_bytes())
        .map(|r| r.status)
        .unwrap_or(431);
    assert_eq!(status, 431, "a 2 MB head");
}

fn malformed(server: &LdwarcServer) {
    for raw in [
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
        "GET /\u{7f}x HTTP/1.1\r\nHost: x\r\n\r\n",
    ] {
        let response = send_raw(server.port, raw.as_bytes());
        let status = response.as_ref().map(|r| r.status);
        assert!(matches!(status, Ok(400 | 505)), "{raw:?}: {status:?}");
        // A protocol error says what was wrong, as every other refusal does.
        let response = response.expect("an answer");
        assert!(!response.body.is_empty(), "{raw:?}: empty body");
        assert_eq!(
            response.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{raw:?}"
        );
    }
    // RFC 9112 §3.2: more than one Host field is a 400, with a reason.
    let two_hosts = send_raw(
        server.port,
        b"GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n",
    )
    .expect("send");
    assert_eq!(two_hosts.status, 400);
    assert!(two_hosts.text().contains("Host"), "{}", two_hosts.text());
    // Still serving afterwards.
    assert_eq!(server.get("/").status, 200);
}

fn cdx_parameters(server: &LdwarcServer) {
    for query in [
        "",
        "url=",
        "url=x&limit=abc",
        "url=x&output=xml",
        "url=x&matchType=everything",
        "url=x&filter=~url:(",
        "url=x&from=yesterday",
        "url=x&sort=closest",
        "url=x&resumeKey=%%%",
        "url=x&sort=reverse&resumeKey=AAAA",
    ] {
        let response = server.get(&format!("/cdx?{query}"));
        assert_eq!(response.status, 400, "/cdx?{query}: {}", response.text());
    }
    // Over the query-cost limit (the server runs with --max-cdx-rows 50): orders other than
    // the index's hold the whole selection in memory.
    for order in ["sort=reverse", "closest=2024", "limit=-100"] {
        let response = server.get(&format!("/cdx?url=*.org&{order}"));
        assert_eq!(response.status, 403, "{order}: {}", response.text());
    }
    // ... while answers in index order stream, whatever their size.
    let all = server.get("/cdx?url=*.org");
    assert_eq!(all.status, 200, "{}", all.text());
    assert!(all.text().lines().count() > 50, "{}", all.text());
    assert!(all.body.len() > 64 * 1024, "large enough to stream");
    assert_eq!(all.header("transfer-encoding"), Some("chunked"));
    assert_eq!(all.header("content-type"), Some("text/x-cdxj"));
    // The streamed answer equals the same rows paged through with resume keys.
    let paged = page_through(server, "/cdx?url=*.org&limit=40&showResumeKey=true");
    let streamed: Vec<String> = all.text().lines().map(String::from).collect();
    assert_eq!(paged, streamed);
    let bad_date = server.get_with(
        "/web/http://example.org/",
        &[("Accept-Datetime", "\u{1}\u{2}")],
    );
    assert!(matches!(bad_date.status, 400), "{}", bad_date.status);
}

/// Every row of a paged CDX query, following `showResumeKey` keys to the end.
fn page_through(server: &LdwarcServer, first: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut path = first.to_string();
    for _ in 0..1000 {
        let page = server.get(&path);
        assert_eq!(page.status, 200, "{path}: {}", page.text());
        let text = page.text();
        match text.split_once("\n\n") {
            Some((page_rows, key)) => {
                rows.extend(page_rows.lines().map(String::from));
                path = format!("{first}&resumeKey={}", key.trim());
            }
            None => {
                rows.extend(text.lines().map(String::from));
                return rows;
            }
        }
    }
    panic!("{first}: more than 1000 pages");
}

fn raw_replay_is_sandboxed(server: &LdwarcServer) {
    let home = server.get("/timemap/json/http://example.org/");
    assert_eq!(home.status, 200, "{}", home.text());
    let first: serde_json::Value =
        serde_json::from_str(home.text().lines().next().expect("a memento")).expect("json");
    let stamp = first["timestamp"].as_str().expect("timestamp");
    for path in [
        format!("/web/{stamp}id_/http://example.org/"),
        format!("/web/{stamp}/http://example.org/"),
    ] {
        let response = server.get_with(&path, &[("Accept", "text/html")]);
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(
            response.header("content-security-policy"),
            Some("sandbox"),
            "{path}"
        );
        assert_eq!(
            response.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
}

/// The server runs with --head-timeout 2: a head trickled in, or an idle keep-alive
/// connection, is closed after about 2 s, and the server keeps serving.
fn slow_and_idle_clients_are_cut(server: &LdwarcServer) {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let closed_after = |stream: &mut std::net::TcpStream| {
        let started = Instant::now();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut rest = Vec::new();
        let outcome = stream.read_to_end(&mut rest);
        assert!(
            outcome.is_ok() || rest.is_empty(),
            "closed without an answer: {outcome:?}"
        );
        started.elapsed()
    };
    let mut slow = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
        .expect("write");
    let waited = closed_after(&mut slow);
    assert!(
        waited < Duration::from_secs(6),
        "a stalled head held the connection {waited:?}"
    );

    // Slowloris: a byte every 250 ms never completes the head, and does not move the
    // deadline on; the connection is closed within the bound while others are served.
    let mut loris = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    let started = Instant::now();
    let head = b"GET /cdx?url=example.org/ HTTP/1.1\r\nHost: x\r\nX-Padding: ";
    let mut sent = 0;
    let trickled_for = loop {
        let byte = head.get(sent).copied().unwrap_or(b'a');
        if loris.write_all(&[byte]).is_err() || started.elapsed() > Duration::from_secs(15) {
            break started.elapsed();
        }
        sent += 1;
        if sent % 4 == 0 {
            let normal = server.get("/cdx?url=example.org/");
            assert_eq!(normal.status, 200, "a normal request while a head trickles");
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let mut answer = Vec::new();
    let _ = loris.read_to_end(&mut answer);
    assert!(
        trickled_for < Duration::from_secs(6),
        "a trickled head held the connection {trickled_for:?} ({sent} bytes)"
    );
    assert!(
        answer.is_empty() || answer.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&answer)
    );

    let mut idle = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    idle.write_all(b"GET /cdx?url=example.org/nothing HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("write");
    let mut answer = [0u8; 4096];
    let n = idle.read(&mut answer).expect("an answer");
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    let waited = closed_after(&mut idle);
    assert!(
        (Duration::from_secs(1)..Duration::from_secs(6)).contains(&waited),
        "an idle keep-alive connection was closed after {waited:?}"
    );
    assert_eq!(server.get("/").status, 200);
}

#[test]
fn tokens_guard_the_server() {
    let (_dir, root) = archive();
    // Refused: a non-loopback bind without a token.
    let output = run(ldwarc()
        .args(["serve", "--bind", "0.0.0.0:0", "--root"])
        .arg(&root)
        .env_remove("LDWARC_SERVE_TOKEN"));
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--token"));

    let server = LdwarcServer::start(&root, &["--token", "s3cret"]);
    assert_eq!(server.get("/").status, 401);
    assert_eq!(
        server
            .get_with("/", &[("Authorization", "Bearer wrong")])
            .status,
        401
    );
    assert_eq!(
        server
            .get_with("/", &[("Authorization", "Bearer s3cret")])
            .status,
        200
    );
    let with_query = server.get("/?token=s3cret");
    assert_eq!(with_query.status, 200);
    assert!(
        with_query
            .header("set-cookie")
            .is_some_and(|c| c.starts_with("ldwarc_token=s3cret"))
    );
    assert_eq!(
        server
            .get_with("/", &[("Cookie", "ldwarc_token=s3cret")])
            .status,
        200
    );
}

/// Kilobytes of a `/proc/PID/status` field (`VmRSS`, `VmHWM`).
fn memory_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// A CDX answer of 100,000 lines (tens of MB) is streamed: it starts before the scan ends
/// (the server runs with --max-cdx-rows 1000, so it cannot hold the selection), a client
/// that stops reading holds the producer back instead of piling the answer up in memory,
/// and the server's peak memory grows by a small part of the answer's size.
#[test]
fn large_cdx_answers_stream_in_bounded_memory() {
    use crate::synthetic_archive::{Spec, generate};
    use std::io::{Read, Write};
    use std::time::Duration;
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let spec = Spec {
        hours: 20,
        plds: 10,
        captures_per_file: 500,
        hot_documents: 5,
        requests: false,
        imported: false,
        gzip_level: 1,
        threads: 2,
    };
    let generated = generate(&root, &spec).expect("generate");
    assert_eq!(generated.captures, 100_000);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    let server = LdwarcServer::start(&root, &["--max-cdx-rows", "1000"]);
    let query = "/cdx?url=example.org&matchType=domain";
    // Warm up (index readers, thread pools) before the baseline is taken.
    assert_eq!(server.get("/cdx?url=example.org/nothing").status, 200);
    // Anonymous memory: the index is memory-mapped, and the scan maps its pages in.
    let baseline = memory_kb(server.pid(), "RssAnon");
    let baseline_peak = memory_kb(server.pid(), "VmHWM");

    let mut client = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    client
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!("GET {query} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    client.write_all(request.as_bytes()).expect("write");
    let mut first = vec![0u8; 16 * 1024];
    let n = client.read(&mut first).expect("the first bytes");
    let head = String::from_utf8_lossy(&first[..n]).to_string();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    // The client reads nothing for a while: the producer must wait, not buffer the rest.
    std::thread::sleep(Duration::from_secs(2));
    let stalled = memory_kb(server.pid(), "RssAnon");
    let mut rest = Vec::new();
    client.read_to_end(&mut rest).expect("the rest");
    let after = memory_kb(server.pid(), "RssAnon");
    let peak = memory_kb(server.pid(), "VmHWM");

    let mut raw = first[..n].to_vec();
    raw.extend_from_slice(&rest);
    let answer = serve_server::parse_response(&raw).expect("a complete chunked answer");
    assert_eq!(answer.status, 200);
    let lines = answer.text().lines().count() as u64;
    assert_eq!(lines, generated.captures, "every capture, one line each");
    let answer_kb = answer.body.len() as u64 / 1024;
    assert!(answer_kb > 20 * 1024, "a large answer: {answer_kb} KB");
    let stalled_growth = stalled.saturating_sub(baseline);
    let after_growth = after.saturating_sub(baseline);
    let peak_growth = peak.saturating_sub(baseline_peak);
    assert!(
        stalled_growth < answer_kb / 8,
        "{stalled_growth} KB more while the client read nothing ({answer_kb} KB answer)"
    );
    assert!(
        after_growth < answer_kb / 8,
        "{after_growth} KB more after the answer ({answer_kb} KB)"
    );
    // The peak counts the mapped index pages too; a materialised answer would add its own
    // size (and its captures') on top.
    assert!(
        peak_growth < answer_kb / 2,
        "peak {peak_growth} KB over the baseline for a {answer_kb} KB answer"
    );
    // The server keeps answering (and bounded queries are still refused over the limit).
    assert_eq!(server.get(&format!("{query}&sort=reverse")).status, 403);
}

/// A SPARQL query as a `POST` body (`application/sparql-query`).
fn post_sparql(server: &LdwarcServer, query: &str) -> crate::common::HttpResponse {
    let request = format!(
        "POST /sparql?at=2030 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{query}",
        query.len()
    );
    server
        .send(request.as_bytes())
        .unwrap_or_else(|e| panic!("POST /sparql ({} bytes): {e}", query.len()))
}

/// Query text nesting `levels` deep in each way the parser or the evaluator recurses on:
/// `(what, query)`.
fn deep_queries(levels: usize) -> Vec<(&'static str, String)> {
    let deep = |prefix: &str, unit: &str, inner: &str, close: &str, suffix: &str| {
        format!(
            "{prefix}{}{inner}{}{suffix}",
            unit.repeat(levels),
            close.repeat(levels)
        )
    };
    vec![
        ("parentheses", deep("SELECT (", "(", "1", ")", " AS ?x) {}")),
        ("braces", deep("ASK ", "{", "", "}", "")),
        (
            "sub-selects",
            deep("ASK ", "{ SELECT * WHERE ", "{}", "}", ""),
        ),
        ("negations", deep("ASK { FILTER(", "!(", "true", ")", ") }")),
        (
            "negated paths",
            deep("ASK { ?s ", "!", "<a:p>", "", " ?o }"),
        ),
        (
            "inverse paths",
            deep("ASK { ?s ", "^(", "<a:p>", ")", " ?o }"),
        ),
        (
            "path steps",
            deep("ASK { ?s <a:p>", "/<a:p>", "", "", " ?o }"),
        ),
        ("unions", deep("ASK { {} ", "UNION {} ", "", "", "}")),
    ]
}

/// Queries nested 1,000, 10,000 and 100,000 levels deep (which overflowed the stack and
/// killed the server) are refused before they are parsed: 400 naming the limit (a body over
/// 64 KiB is refused 413 before it is read as a query). The server answers `/cdx` after each.
#[test]
fn deeply_nested_sparql_queries_are_refused_and_the_server_lives() {
    let (_dir, root) = archive();
    let server = LdwarcServer::start(&root, &[]);
    for levels in [1_000, 10_000, 100_000] {
        for (what, query) in deep_queries(levels) {
            let response = post_sparql(&server, &query);
            if query.len() > 64 * 1024 {
                assert_eq!(response.status, 413, "{what} × {levels}");
            } else {
                assert_eq!(
                    response.status,
                    400,
                    "{what} × {levels}: {}",
                    response.text()
                );
                assert!(
                    response
                        .text()
                        .starts_with("the query nests deeper than 256 levels at line 1, column "),
                    "{what} × {levels}: {}",
                    response.text()
                );
            }
            assert_eq!(
                server.get("/cdx?url=example.org/nothing").status,
                200,
                "after {what} × {levels}"
            );
        }
    }
    // As a GET too.
    let (_, query) = &deep_queries(1_000)[0];
    let encoded: String = url::form_urlencoded::byte_serialize(query.as_bytes()).collect();
    let response = server.get(&format!("/sparql?query={encoded}&at=2030"));
    assert_eq!(response.status, 400, "{}", response.text());
    assert_eq!(server.get("/cdx?url=example.org/nothing").status, 200);
}

/// `ldwarc sparql` refuses the same queries with exit status 2 and one line (it aborted on
/// a stack overflow at 10,000 parentheses).
#[test]
fn deeply_nested_queries_are_refused_by_the_sparql_command() {
    let (dir, root) = archive();
    for levels in [10_000, 100_000] {
        for (what, query) in deep_queries(levels) {
            let file = dir.path().join("query.rq");
            std::fs::write(&file, &query).expect("write the query");
            let output = run(ldwarc()
                .args(["sparql", "--at", "2030", "--root"])
                .arg(&root)
                .arg(format!("@{}", file.display())));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{what} × {levels}: {stderr}");
            assert!(
                stderr.starts_with("ldwarc: error: ")
                    && stderr.contains("the query nests deeper than 256 levels"),
                "{what} × {levels}: {stderr}"
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
        }
    }
}

/// `n` integers as a VALUES block for `variable`.
fn values(variable: &str, n: usize) -> String {
    let numbers: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    format!("VALUES ?{variable} {{ {} }}", numbers.join(" "))
}

/// A query whose ORDER BY holds 100⁴ solutions built from its own VALUES (no archive data):
/// it reached 6.5 GB.
fn sorted_values_product() -> String {
    format!(
        "SELECT * WHERE {{ {} {} {} {} }} ORDER BY ?a ?b ?c ?d",
        values("a", 100),
        values("b", 100),
        values("c", 100),
        values("d", 100)
    )
}

/// A query counting 100⁴ solutions: long, in little memory.
fn counted_values_product() -> String {
    format!(
        "SELECT (COUNT(*) AS ?n) WHERE {{ {} {} {} {} }}",
        values("a", 100),
        values("b", 100),
        values("c", 100),
        values("d", 100)
    )
}

/// The processes whose parent is `pid` (the server's SPARQL workers).
fn children_of(pid: u32) -> Vec<u32> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …: the name may hold spaces, so read after its ')'.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if parent == Some(pid) {
            children.push(child);
        }
    }
    children
}

/// Resident kilobytes of `pid`, none once it is gone.
fn resident_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Samples the server's resident memory, and its own with its workers', every 0.1 s until
/// dropped; the peaks seen (KB).
struct MemoryWatch {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<(u64, u64)>>,
}

impl MemoryWatch {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let (mut server, mut together) = (0, 0);
            while !stopped.load(Ordering::SeqCst) {
                let own = resident_kb(pid).unwrap_or(0);
                let workers: u64 = children_of(pid).into_iter().filter_map(resident_kb).sum();
                server = server.max(own);
                together = together.max(own + workers);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            (server, together)
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// The peaks: the server alone, the server with its workers.
    fn peaks(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .take()
            .expect("running")
            .join()
            .expect("the watch")
    }
}

/// Waits (at most 5 s) until the server has no worker left.
fn workers_gone(server: &LdwarcServer) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(5) {
        if children_of(server.pid()).is_empty() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// `/sparql` within `--memory-budget` and `--request-timeout`: a query whose evaluation holds
/// more than a worker's share of the budget is stopped and refused (403), one past the time
/// limit is stopped at the limit (503, its worker gone), a cartesian product over the archive
/// is streamed and cut at the limit, eight at once are two running and six refused at once
/// (503, Retry-After), SERVICE is 400. Throughout, `/cdx` answers and the server with its
/// workers stays within the budget + 200 MB.
#[test]
fn sparql_queries_are_bounded_in_memory_and_time() {
    use std::time::{Duration, Instant};
    let (_dir, root) = archive();
    let budget_mib = 256;
    let server = LdwarcServer::start(
        &root,
        &["--memory-budget", "256MiB", "--request-timeout", "3s"],
    );
    let watch = MemoryWatch::start(server.pid());
    let cdx = || assert_eq!(server.get("/cdx?url=example.org/nothing").status, 200);

    // ORDER BY over 100⁴ solutions: stopped at the worker's share, a quarter of the budget.
    let started = Instant::now();
    let sorted = post_sparql(&server, &sorted_values_product());
    assert_eq!(sorted.status, 403, "{}", sorted.text());
    assert!(
        sorted
            .text()
            .starts_with("the query needed more than 64 MiB of memory"),
        "{}",
        sorted.text()
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(workers_gone(&server), "the worker was stopped");
    cdx();

    // Counting 100⁴ solutions: stopped at the time limit, the work with the answer.
    let started = Instant::now();
    let counted = post_sparql(&server, &counted_values_product());
    assert_eq!(counted.status, 503, "{}", counted.text());
    assert_eq!(counted.header("retry-after"), Some("2"));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(workers_gone(&server), "the work stopped at the time limit");
    cdx();

    // A cartesian product over the archive's statements streams and is cut at the limit
    // (nothing ever holds the whole answer).
    let cartesian = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";
    let request = format!(
        "POST /sparql?at=2030 HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{cartesian}",
        cartesian.len()
    );
    let mut client = std::net::TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    client
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    std::io::Write::write_all(&mut client, request.as_bytes()).expect("write");
    let mut received = Vec::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match std::io::Read::read(&mut client, &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if received.len() < 4096 {
                    received.extend_from_slice(&buffer[..n]);
                }
                cdx_if_due(&server);
            }
        }
    }
    let head = String::from_utf8_lossy(&received[..received.len().min(512)]).to_string();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    assert!(
        workers_gone(&server),
        "the product stopped at the time limit"
    );
    cdx();

    // Eight heavy queries at once: two run, six are refused at once.
    let query = counted_values_product();
    let answers: Vec<(u16, String, Option<String>, Duration)> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let started = Instant::now();
                    let answer = post_sparql(&server, &query);
                    let retry = answer.header("retry-after").map(String::from);
                    (answer.status, answer.text(), retry, started.elapsed())
                })
            })
            .collect();
        runs.into_iter()
            .map(|run| run.join().expect("a client"))
            .collect()
    });
    let busy: Vec<_> = answers
        .iter()
        .filter(|(_, text, _, _)| text.contains("as many SPARQL queries as it runs at once"))
        .collect();
    assert_eq!(busy.len(), 6, "{answers:?}");
    for (status, _, retry, took) in &busy {
        assert_eq!(*status, 503);
        assert_eq!(retry.as_deref(), Some("2"));
        assert!(*took < Duration::from_secs(2), "refused after {took:?}");
    }
    assert!(workers_gone(&server));
    cdx();

    // SERVICE would reach another endpoint: refused.
    let service = post_sparql(
        &server,
        "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
    );
    assert_eq!(service.status, 400, "{}", service.text());
    assert!(
        service
            .text()
            .starts_with("query: SERVICE is not supported"),
        "{}",
        service.text()
    );

    let (server_kb, together_kb) = watch.peaks();
    let bound_kb = (budget_mib + 200) * 1024;
    assert!(server_kb < bound_kb, "the server peaked at {server_kb} KB");
    assert!(
        together_kb < bound_kb,
        "the server and its workers peaked at {together_kb} KB"
    );
}

/// Asks `/cdx` once a second while a long answer is read: it must answer meanwhile.
fn cdx_if_due(server: &LdwarcServer) {
    use std::sync::atomic::AtomicU64;
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if LAST.swap(now, Ordering::SeqCst) != now {
        assert_eq!(server.get("/cdx?url=example.org/nothing").status, 200);
    }
}

/// `ldwarc sparql` within `--max-memory` and `--max-results`: exit status 2, one line saying
/// which bound and what to do; the results within the bound are written.
#[test]
fn the_sparql_command_is_bounded_in_memory_and_results() {
    let (dir, root) = archive();
    let file = dir.path().join("sorted.rq");
    std::fs::write(&file, sorted_values_product()).expect("write the query");
    let started = std::time::Instant::now();
    let output = run(ldwarc()
        .args(["sparql", "--at", "2030", "--max-memory", "64MiB", "--root"])
        .arg(&root)
        .arg(format!("@{}", file.display())));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "ldwarc: error: the query needed more than 64MiB of memory (--max-memory), its dataset and its evaluation together: narrow it (LIMIT, a FILTER, --prefix, --host or --domain), or give a larger --max-memory"
        ]
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));

    let output = run(ldwarc()
        .args([
            "sparql",
            "--at",
            "2030",
            "--format",
            "csv",
            "--max-results",
            "3",
            "--root",
        ])
        .arg(&root)
        .arg(format!(
            "SELECT ?a WHERE {{ {} }} ORDER BY ?a",
            values("a", 10)
        )));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "a\r\n1\r\n2\r\n3\r\n"
    );
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "ldwarc: error: the query has more than 3 results, the most allowed: narrow it (LIMIT, a FILTER, a smaller scope)"
        ]
    );
    // Within the bound, the answer is whole and the exit status 0.
    let output = run(ldwarc()
        .args([
            "sparql",
            "--at",
            "2030",
            "--format",
            "csv",
            "--max-results",
            "10",
            "--root",
        ])
        .arg(&root)
        .arg(format!(
            "SELECT ?a WHERE {{ {} }} ORDER BY ?a",
            values("a", 10)
        )));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 11);

    // SERVICE: exit status 2 before the archive is read.
    let output = run(ldwarc()
        .args(["sparql", "--at", "2030", "--root"])
        .arg(&root)
        .arg("SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("SERVICE is not supported"), "{stderr}");
}

/// A query that computes for long before it writes anything is stopped when its client goes
/// away, not at the time limit: a disconnected client held a worker (one of the two) and a
/// quarter of the budget until the deadline.
#[test]
fn a_sparql_worker_stops_when_its_client_goes_away() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let (_dir, root) = archive();
    let server = LdwarcServer::start(&root, &["--request-timeout", "60s"]);
    let query = counted_values_product();
    let mut client = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    write!(
        client,
        "POST /sparql?at=2030 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sparql-query\r\nContent-Length: {}\r\n\r\n{query}",
        query.len()
    )
    .unwrap();
    // The worker starts and computes (it writes nothing before its count is done).
    let started = Instant::now();
    while children_of(server.pid()).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no worker started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !children_of(server.pid()).is_empty(),
        "the worker still counts"
    );
    drop(client);
    let left = Instant::now();
    assert!(
        workers_gone(&server),
        "the worker outlived its client by 5 s"
    );
    assert!(left.elapsed() < Duration::from_secs(5));
    assert_eq!(server.get("/cdx?url=example.org/nothing").status, 200);
}
