//! End-to-end tests of the test web server over real loopback connections, with a raw client.

use std::collections::BTreeSet;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use chrono::Utc;

use super::*;

/// A response as read off the wire.
#[derive(Debug)]
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

fn parse_response(bytes: &[u8]) -> Response {
    let end = memchr::memmem::find(bytes, b"\r\n\r\n").expect("complete head") + 4;
    let head = std::str::from_utf8(&bytes[..end]).unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Response {
        status,
        headers,
        body: bytes[end..].to_vec(),
    }
}

/// Sends a raw request and reads until the server closes.
fn raw(addr: SocketAddr, request: &str) -> Response {
    let mut stream = connect(addr);
    stream.write_all(request.as_bytes()).unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    parse_response(&bytes)
}

/// GET `url` (absolute, no port) in origin form with a `Host` header and extra header lines.
fn get(server: &TestWebServer, url: &str, extra: &[(&str, &str)]) -> Response {
    request(server, "GET", url, extra)
}

fn request(server: &TestWebServer, method: &str, url: &str, extra: &[(&str, &str)]) -> Response {
    let (host, path) = split_url(url).unwrap();
    let mut text =
        format!("{method} {path} HTTP/1.1\r\nHost: {host}:80\r\nUser-Agent: ldwarc-test\r\n");
    for (name, value) in extra {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    raw(server.addr(), &text)
}

fn fixture_server() -> TestWebServer {
    TestWebServer::start(Web::fixture().unwrap()).unwrap()
}

const ALICE: &str = "http://people.delta.example/alice";

/// (subject, predicate, object) strings of a parsed graph, blank nodes as `_`.
type Shape = BTreeSet<(String, String, String)>;

fn sophia_term_string<T: sophia::api::term::Term>(term: T) -> String {
    use sophia::api::term::TermKind;
    match term.kind() {
        TermKind::Iri => term.iri().unwrap().as_str().to_string(),
        TermKind::Literal => format!("\"{}\"", term.lexical_form().unwrap()),
        _ => "_".to_string(),
    }
}

fn our_term_string(term: &Term) -> String {
    match term {
        Term::Iri(iri) => iri.clone(),
        Term::Literal(text) => format!("\"{text}\""),
        Term::Blank(_) => "_".to_string(),
    }
}

fn parse_with_sophia(syntax: Syntax, body: &str) -> Shape {
    use sophia::api::prelude::*;
    use sophia::api::term::SimpleTerm;
    let triples: Vec<[SimpleTerm<'static>; 3]> = match syntax {
        Syntax::Turtle => sophia::turtle::parser::turtle::parse_str(body)
            .collect_triples()
            .unwrap(),
        Syntax::NTriples => sophia::turtle::parser::nt::parse_str(body)
            .collect_triples()
            .unwrap(),
        Syntax::RdfXml => sophia::xml::parser::parse_str(body)
            .collect_triples()
            .unwrap(),
        Syntax::NQuads | Syntax::JsonLd => {
            let quads: Vec<sophia::api::quad::Spog<SimpleTerm<'static>>> =
                if syntax == Syntax::NQuads {
                    sophia::turtle::parser::nq::parse_str(body)
                        .collect_quads()
                        .unwrap()
                } else {
                    sophia::jsonld::parser::parse_str(body)
                        .collect_quads()
                        .unwrap()
                };
            assert!(quads.iter().all(|(_, g)| g.is_none()));
            quads.into_iter().map(|(t, _)| t).collect()
        }
        Syntax::Html => unreachable!(),
    };
    triples
        .into_iter()
        .map(|[s, p, o]| {
            (
                sophia_term_string(s),
                sophia_term_string(p),
                sophia_term_string(o),
            )
        })
        .collect()
}

#[test]
fn every_rdf_syntax_parses_to_the_same_graph() {
    let server = fixture_server();
    let Some(Resource::Document(doc)) = server.web().resource(ALICE) else {
        panic!("alice is a document");
    };
    let expected: Shape = doc
        .graph(0)
        .iter()
        .map(|t| {
            (
                our_term_string(&t.s),
                our_term_string(&t.p),
                our_term_string(&t.o),
            )
        })
        .collect();
    for syntax in Syntax::ALL.into_iter().filter(|s| *s != Syntax::Html) {
        let response = get(&server, ALICE, &[("Accept", syntax.media_type())]);
        assert_eq!(response.status, 200);
        assert_eq!(response.header("Content-Type"), Some(syntax.content_type()));
        assert_eq!(
            parse_with_sophia(syntax, &response.text()),
            expected,
            "{syntax:?}"
        );
    }
}

#[test]
fn content_negotiation_honours_q_values_and_refuses_the_unacceptable() {
    let server = fixture_server();
    let response = get(
        &server,
        ALICE,
        &[(
            "Accept",
            "text/turtle;q=0.5, application/rdf+xml;q=0.9, */*;q=0.1",
        )],
    );
    assert_eq!(response.header("Content-Type"), Some("application/rdf+xml"));
    assert_eq!(response.header("Vary"), Some("Accept"));
    assert_eq!(
        response.header("Content-Length"),
        Some(response.body.len().to_string().as_str())
    );
    let html = get(&server, ALICE, &[]);
    assert_eq!(
        html.header("Content-Type"),
        Some("text/html; charset=utf-8")
    );
    assert!(
        html.text()
            .contains("<a href=\"http://people.delta.example/bob#me\">")
    );
    assert!(
        html.text()
            .contains("<a href=\"http://vocab.delta.example/ns#knows\">")
    );
    let refused = get(&server, ALICE, &[("Accept", "image/png")]);
    assert_eq!(refused.status, 406);
    // Different representations have different validators.
    let turtle = get(&server, ALICE, &[("Accept", "text/turtle")]);
    assert_ne!(turtle.header("ETag"), response.header("ETag"));
}

#[test]
fn see_other_and_redirects_point_at_absolute_urls() {
    let server = fixture_server();
    let first = get(&server, "http://data.alpha.example/resource/item2", &[]);
    assert_eq!(first.status, 303);
    assert_eq!(
        first.header("Location"),
        Some("http://data.alpha.example/alias/item2")
    );
    let second = get(&server, "http://data.alpha.example/alias/item2", &[]);
    assert_eq!(
        second.header("Location"),
        Some("http://data.alpha.example/doc/item2")
    );
    let moved = get(&server, "http://www.alpha.example/old-about", &[]);
    assert_eq!(moved.status, 301);
    assert_eq!(
        moved.header("Location"),
        Some("http://www.alpha.example/about")
    );
    let found = get(&server, "http://beta.example/datasets/latest", &[]);
    assert_eq!(found.status, 302);
}

#[test]
fn conditional_requests_get_304() {
    let server = fixture_server();
    let accept = ("Accept", "text/turtle");
    let first = get(&server, ALICE, &[accept]);
    let etag = first.header("ETag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    let last_modified = first.header("Last-Modified").unwrap().to_string();
    assert_eq!(last_modified, "Mon, 01 Jan 2024 00:00:00 GMT");
    let by_etag = get(&server, ALICE, &[accept, ("If-None-Match", &etag)]);
    assert_eq!(by_etag.status, 304);
    assert!(by_etag.body.is_empty());
    assert_eq!(by_etag.header("ETag"), Some(etag.as_str()));
    let by_date = get(
        &server,
        ALICE,
        &[accept, ("If-Modified-Since", &last_modified)],
    );
    assert_eq!(by_date.status, 304);
    let older = get(
        &server,
        ALICE,
        &[
            accept,
            ("If-Modified-Since", "Sun, 31 Dec 2023 00:00:00 GMT"),
        ],
    );
    assert_eq!(older.status, 200);
    let other_tag = get(&server, ALICE, &[accept, ("If-None-Match", "\"nope\"")]);
    assert_eq!(other_tag.status, 200);
}

#[test]
fn epoch_switch_changes_content_etag_and_last_modified() {
    let server = fixture_server();
    let accept = ("Accept", "application/n-triples");
    let before = get(&server, ALICE, &[accept]);
    server.set_epoch(1);
    assert_eq!(server.epoch(), 1);
    let after = get(&server, ALICE, &[accept]);
    assert!(before.text().contains("\"Alice\""));
    assert!(after.text().contains("\"Alice Ames\""));
    assert_ne!(before.header("ETag"), after.header("ETag"));
    assert_eq!(
        after.header("Last-Modified"),
        Some("Tue, 02 Jan 2024 00:00:00 GMT")
    );
    // A document without an epoch-1 variant is unchanged, validators included.
    let bob_before = {
        server.set_epoch(0);
        get(&server, "http://people.delta.example/bob", &[accept])
    };
    server.set_epoch(1);
    let bob_after = get(&server, "http://people.delta.example/bob", &[accept]);
    assert_eq!(bob_before.body, bob_after.body);
    assert_eq!(bob_before.header("ETag"), bob_after.header("ETag"));
    assert_eq!(
        bob_before.header("Last-Modified"),
        bob_after.header("Last-Modified")
    );
    let old_etag = before.header("ETag").unwrap();
    assert_eq!(
        get(&server, ALICE, &[accept, ("If-None-Match", old_etag)]).status,
        200
    );
}

#[test]
fn absolute_form_requests_make_it_a_proxy() {
    let server = fixture_server();
    let request = "GET http://beta.example/catalog HTTP/1.1\r\nHost: beta.example\r\nAccept: text/turtle\r\n\r\n";
    let response = raw(server.addr(), request);
    assert_eq!(response.status, 200);
    assert!(response.text().contains("<http://beta.example/catalog#it>"));
    let log = server.requests();
    assert_eq!(log[0].target, "http://beta.example/catalog");
    assert_eq!(log[0].url(), "http://beta.example/catalog");
}

#[test]
fn unknown_hosts_paths_and_methods() {
    let server = fixture_server();
    assert_eq!(get(&server, "http://nowhere.example/", &[]).status, 404);
    assert_eq!(
        get(&server, "http://beta.example/datasets/removed", &[]).status,
        404
    );
    assert_eq!(request(&server, "POST", ALICE, &[]).status, 405);
    let head = request(&server, "HEAD", ALICE, &[("Accept", "text/turtle")]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_ne!(head.header("Content-Length"), Some("0"));
    assert_eq!(raw(server.addr(), "\x16\x03\x01 hello\r\n\r\n").status, 400);
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(70_000));
    let mut stream = connect(server.addr());
    // The server may answer and close before the whole request is written.
    let _ = stream.write_all(huge.as_bytes());
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    assert!(
        bytes.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn request_log_records_time_headers_status_and_bytes() {
    let server = fixture_server();
    let before = Utc::now();
    let started = Instant::now();
    let response = get(&server, ALICE, &[("Accept", "text/turtle")]);
    get(&server, "http://data.alpha.example/resource/dataset", &[]);
    let after = Utc::now();
    let log = server.requests();
    assert_eq!(log.len(), 2);
    let first = &log[0];
    assert!(before <= first.received_at && first.received_at <= log[1].received_at);
    assert!(log[1].received_at <= after);
    assert!(first.received_instant >= started && first.received_instant <= log[1].received_instant);
    assert_eq!(first.method, "GET");
    assert_eq!(first.host, "people.delta.example");
    assert_eq!(first.path, "/alice");
    assert_eq!(first.header("accept"), Some("text/turtle"));
    assert_eq!(first.header("User-Agent"), Some("ldwarc-test"));
    assert_eq!(first.status, Some(200));
    assert!(first.bytes_sent > response.body.len() as u64);
    assert_eq!(log[1].status, Some(303));
    server.clear_log();
    assert!(server.requests().is_empty());
}

fn single_host_server(robots: Robots, resources: Vec<(&str, Resource)>) -> TestWebServer {
    let mut web = Web::new();
    let mut host = Host {
        robots,
        ..Host::default()
    };
    for (path, resource) in resources {
        host.resources.insert(path.to_string(), resource);
    }
    host.resources.insert(
        "/doc".to_string(),
        Resource::Document(Doc::new(vec![Triple::new(
            Term::iri("http://h.example/doc#it"),
            Term::iri("http://h.example/doc#p"),
            Term::literal("x"),
        )])),
    );
    web.hosts.insert("h.example".to_string(), host);
    TestWebServer::start(web).unwrap()
}

/// Reads from `stream` until `limit` bytes, EOF, an error or `timeout` in all; returns the
/// bytes and the error kind, if any (`TimedOut` when the time ran out).
fn read_some(
    stream: &mut TcpStream,
    limit: usize,
    timeout: Duration,
) -> (Vec<u8>, Option<ErrorKind>) {
    let deadline = Instant::now() + timeout;
    let mut bytes = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    while bytes.len() < limit {
        let Some(left) = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        else {
            return (bytes, Some(ErrorKind::TimedOut));
        };
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buffer) {
            Ok(0) => return (bytes, None),
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
            Err(e) => return (bytes, Some(e.kind())),
        }
    }
    (bytes, None)
}

fn open(server: &TestWebServer, path: &str) -> TcpStream {
    let mut stream = connect(server.addr());
    let request = format!("GET {path} HTTP/1.1\r\nHost: h.example\r\nAccept: text/turtle\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    stream
}

fn is_timeout(kind: Option<ErrorKind>) -> bool {
    matches!(kind, Some(ErrorKind::WouldBlock | ErrorKind::TimedOut))
}

#[test]
fn robots_variants() {
    let text = single_host_server(
        Robots::Text("User-agent: *\nDisallow: /x/\n".into()),
        vec![],
    );
    let response = get(&text, "http://h.example/robots.txt", &[]);
    assert_eq!(
        (response.status, response.text().as_str()),
        (200, "User-agent: *\nDisallow: /x/\n")
    );
    assert_eq!(
        response.header("Content-Type"),
        Some("text/plain; charset=utf-8")
    );
    let none = single_host_server(Robots::None, vec![]);
    assert_eq!(get(&none, "http://h.example/robots.txt", &[]).status, 404);
    let error = single_host_server(Robots::Status(500), vec![]);
    assert_eq!(get(&error, "http://h.example/robots.txt", &[]).status, 500);
    let huge = single_host_server(Robots::Huge(600_000), vec![]);
    let response = get(&huge, "http://h.example/robots.txt", &[]);
    assert!(response.body.len() >= 600_000);
    assert!(
        response
            .text()
            .starts_with("User-agent: *\nDisallow: /no-such-path/")
    );
    let hang = single_host_server(Robots::Hang, vec![]);
    let mut stream = open(&hang, "/robots.txt");
    let (bytes, kind) = read_some(&mut stream, 1, Duration::from_millis(300));
    assert!(bytes.is_empty() && is_timeout(kind), "{kind:?}");
}

#[test]
fn latency_delays_the_head() {
    let mut web = Web::fixture().unwrap();
    web.hosts.get_mut("people.delta.example").unwrap().latency = Duration::from_millis(200);
    let server = TestWebServer::start(web).unwrap();
    let started = Instant::now();
    assert_eq!(get(&server, ALICE, &[]).status, 200);
    assert!(started.elapsed() >= Duration::from_millis(200));
}

#[test]
fn hangs_hang() {
    let server = single_host_server(
        Robots::None,
        vec![
            ("/before", Resource::Hostile(Hostile::HangBeforeHead)),
            ("/after", Resource::Hostile(Hostile::HangAfterHead)),
        ],
    );
    let mut stream = open(&server, "/before");
    let (bytes, kind) = read_some(&mut stream, 1, Duration::from_millis(300));
    assert!(bytes.is_empty() && is_timeout(kind));
    let mut stream = open(&server, "/after");
    let (bytes, kind) = read_some(&mut stream, 10_000, Duration::from_millis(300));
    assert!(is_timeout(kind));
    let response = parse_response(&bytes);
    assert_eq!(response.header("Content-Length"), Some("1000"));
    assert!(response.body.is_empty());
}

#[test]
fn endless_and_trickling_bodies() {
    let server = single_host_server(
        Robots::None,
        vec![
            ("/endless", Resource::Hostile(Hostile::EndlessBody)),
            (
                "/slow",
                Resource::Hostile(Hostile::Trickle {
                    bytes_per_sec: 1000,
                }),
            ),
        ],
    );
    let mut stream = open(&server, "/endless");
    let (bytes, kind) = read_some(&mut stream, 2 << 20, Duration::from_secs(10));
    assert_eq!(kind, None);
    assert!(bytes.len() >= 2 << 20);
    assert_eq!(
        parse_response(&bytes).header("Transfer-Encoding"),
        Some("chunked")
    );
    drop(stream);
    let mut stream = open(&server, "/slow");
    let (bytes, kind) = read_some(&mut stream, usize::MAX, Duration::from_millis(700));
    assert!(is_timeout(kind));
    let response = parse_response(&bytes);
    let declared: usize = response.header("Content-Length").unwrap().parse().unwrap();
    assert!(declared >= 64 * 1024);
    assert!(
        !response.body.is_empty() && response.body.len() < 1500,
        "{}",
        response.body.len()
    );
}

#[test]
fn gzip_bomb_inflates_beyond_100_mb() {
    let server = single_host_server(
        Robots::None,
        vec![("/bomb", Resource::Hostile(Hostile::GzipBomb))],
    );
    let response = get(&server, "http://h.example/bomb", &[]);
    assert_eq!(response.header("Content-Encoding"), Some("gzip"));
    assert_eq!(
        response.header("Content-Type"),
        Some("text/turtle; charset=utf-8")
    );
    assert!(response.body.len() < 4 << 20);
    let mut decoder = flate2::read::GzDecoder::new(response.body.as_slice());
    let mut buffer = vec![0u8; 1 << 20];
    let mut inflated = 0usize;
    while inflated <= 100 << 20 {
        let n = decoder.read(&mut buffer).unwrap();
        assert!(n > 0, "ended after {inflated} bytes");
        inflated += n;
    }
}

#[test]
fn redirect_loop_and_broken_turtle() {
    let server = single_host_server(
        Robots::None,
        vec![
            ("/loop", Resource::Hostile(Hostile::RedirectLoop)),
            ("/utf8", Resource::Hostile(Hostile::InvalidUtf8)),
            ("/broken", Resource::Hostile(Hostile::MalformedRdf)),
        ],
    );
    let looping = get(&server, "http://h.example/loop", &[]);
    assert_eq!(looping.status, 302);
    assert_eq!(looping.header("Location"), Some("http://h.example/loop"));
    let invalid = get(&server, "http://h.example/utf8", &[]);
    assert_eq!(invalid.status, 200);
    assert!(std::str::from_utf8(&invalid.body).is_err());
    assert!(invalid.text().contains("<http://h.example/doc>"));
    let broken = get(&server, "http://h.example/broken", &[]);
    let text = broken.text();
    assert!(text.contains(
        "<http://h.example/broken#it> <http://h.example/broken#seeAlso> <http://h.example/doc> ."
    ));
    {
        use sophia::api::prelude::*;
        use sophia::api::term::SimpleTerm;
        let parsed: Result<Vec<[SimpleTerm<'static>; 3]>, _> =
            sophia::turtle::parser::turtle::parse_str(&text).collect_triples();
        assert!(parsed.is_err());
    }
}

#[test]
fn resets_garbage_and_huge_heads() {
    let server = single_host_server(
        Robots::None,
        vec![
            ("/reset", Resource::Hostile(Hostile::Reset)),
            ("/reset-mid", Resource::Hostile(Hostile::ResetMidBody)),
            ("/garbage", Resource::Hostile(Hostile::Garbage)),
            ("/huge-head", Resource::Hostile(Hostile::HugeHead)),
        ],
    );
    let mut stream = open(&server, "/reset");
    let (bytes, kind) = read_some(&mut stream, usize::MAX, Duration::from_secs(5));
    assert!(bytes.is_empty());
    assert_eq!(kind, Some(ErrorKind::ConnectionReset));
    let mut stream = open(&server, "/reset-mid");
    let (bytes, kind) = read_some(&mut stream, usize::MAX, Duration::from_secs(5));
    assert_eq!(kind, Some(ErrorKind::ConnectionReset));
    if !bytes.is_empty() {
        let response = parse_response(&bytes);
        assert_eq!(response.header("Content-Length"), Some("100000"));
        assert!(response.body.len() < 100_000);
    }
    let mut stream = open(&server, "/garbage");
    let (bytes, _) = read_some(&mut stream, usize::MAX, Duration::from_secs(5));
    assert!(bytes.len() >= 1024 && !bytes.starts_with(b"HTTP/"));
    let mut stream = open(&server, "/huge-head");
    let (bytes, kind) = read_some(&mut stream, usize::MAX, Duration::from_secs(10));
    assert_eq!(kind, None);
    let head_end = memchr::memmem::find(&bytes, b"\r\n\r\n").unwrap();
    assert!(head_end > 4 << 20, "head of {head_end} bytes");
    let statuses: Vec<Option<u16>> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![None, Some(200), None, Some(200)]);
}

#[test]
fn too_many_requests_once_per_path() {
    let server = single_host_server(
        Robots::None,
        vec![(
            "/busy",
            Resource::Hostile(Hostile::TooManyRequests {
                retry_after_secs: 2,
            }),
        )],
    );
    let first = get(&server, "http://h.example/busy", &[]);
    assert_eq!(first.status, 429);
    assert_eq!(first.header("Retry-After"), Some("2"));
    let second = get(
        &server,
        "http://h.example/busy",
        &[("Accept", "text/turtle")],
    );
    assert_eq!(second.status, 200);
    assert!(second.text().contains("served after 429"));
    server.reset_rate_limits();
    assert_eq!(get(&server, "http://h.example/busy", &[]).status, 429);
}

#[test]
fn stop_closes_the_listener_and_hanging_connections() {
    let mut server = single_host_server(
        Robots::None,
        vec![("/hang", Resource::Hostile(Hostile::HangBeforeHead))],
    );
    let addr = server.addr();
    let mut hanging = open(&server, "/hang");
    std::thread::sleep(Duration::from_millis(50));
    server.stop();
    server.stop();
    let (_, kind) = read_some(&mut hanging, usize::MAX, Duration::from_secs(5));
    assert!(
        !is_timeout(kind),
        "the hanging connection was closed: {kind:?}"
    );
    assert!(TcpStream::connect(addr).is_err());
}

#[test]
fn generated_web_is_served() {
    let web = Web::generate(GenSpec {
        plds: 5,
        max_docs_per_pld: 10,
        power_law_exponent: 1.0,
        links_per_doc: 2,
        latency: Duration::ZERO,
        seed: 42,
    });
    let seed = web.seeds[0].clone();
    let server = TestWebServer::start(web).unwrap();
    let response = get(&server, &seed, &[("Accept", "text/turtle")]);
    assert_eq!(response.status, 200);
    assert!(response.text().contains("#hasDocument>") || response.text().contains("#title>"));
}
