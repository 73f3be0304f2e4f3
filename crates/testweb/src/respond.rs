//! Answers one request: routing by host and path, robots.txt, content-negotiated documents with
//! validators and conditional requests, and redirects. Hostile behaviours live in `hostile`.

use std::io;

use chrono::{DateTime, Duration as ChronoDuration, TimeZone, Utc};
use sha1::{Digest as _, Sha1};

use super::conneg::negotiate;
use super::hostile;
use super::http::{self, RequestHead};
use super::model::{Doc, Resource, Robots, StaticFile};
use super::server::Exchange;
use super::syntax::Syntax;

/// `Last-Modified` of a document in served epoch `served_epoch`: midnight UTC on 2024-01-01
/// plus that many days, so it only moves when the served graph does.
pub fn epoch_last_modified(served_epoch: usize) -> DateTime<Utc> {
    let base = Utc
        .with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    let days = i64::try_from(served_epoch).unwrap_or(i64::MAX / 86_400_000);
    base + ChronoDuration::days(days.min(100_000))
}

/// The ETag of a representation: a quoted hash of the bytes served.
pub fn entity_tag(body: &[u8]) -> String {
    let digest = Sha1::digest(body);
    format!("\"{}\"", data_encoding::HEXLOWER.encode(&digest[..10]))
}

/// Answers the request of `exchange`.
pub(crate) async fn dispatch(mut exchange: Exchange) -> io::Result<()> {
    if !matches!(exchange.head.method.as_str(), "GET" | "HEAD") {
        let headers = [("Allow", "GET, HEAD".to_string())];
        return exchange
            .respond(405, &headers, b"GET and HEAD only\n")
            .await;
    }
    let shared = exchange.shared();
    let Some(host) = shared.web.hosts.get(&exchange.host) else {
        return exchange.respond_text(404, "no such host\n").await;
    };
    if !host.latency.is_zero() {
        tokio::time::sleep(host.latency).await;
    }
    if exchange.path == "/robots.txt" {
        return serve_robots(exchange, &host.robots).await;
    }
    match host.resources.get(&exchange.path) {
        None => exchange.respond_text(404, "not found\n").await,
        Some(Resource::Document(doc)) => serve_document(&mut exchange, doc).await,
        Some(Resource::SeeOther(target)) => redirect(&mut exchange, 303, target).await,
        Some(Resource::Redirect(status, target)) => redirect(&mut exchange, *status, target).await,
        Some(Resource::Hostile(behaviour)) => hostile::serve(exchange, behaviour).await,
        Some(Resource::Static(file)) => serve_static(&mut exchange, file).await,
    }
}

/// An absolute `Location` for a target that may be a path on the same host.
pub(crate) fn absolute_location(host: &str, target: &str) -> String {
    if target.starts_with('/') {
        format!("http://{host}{target}")
    } else {
        target.to_string()
    }
}

async fn redirect(exchange: &mut Exchange, status: u16, target: &str) -> io::Result<()> {
    let location = absolute_location(&exchange.host, target);
    let body = format!("See {location}\n");
    let headers = [
        ("Location", location),
        ("Content-Type", "text/plain; charset=utf-8".to_string()),
    ];
    exchange.respond(status, &headers, body.as_bytes()).await
}

/// A robots.txt of at least `size` bytes whose rules disallow only paths that do not exist.
pub fn huge_robots_text(size: usize) -> String {
    let mut text = String::with_capacity(size + 64);
    text.push_str("User-agent: *\n");
    let mut line = 0usize;
    while text.len() < size {
        text.push_str(&format!("Disallow: /no-such-path/{line:08}/\n"));
        line += 1;
    }
    text
}

async fn serve_robots(mut exchange: Exchange, robots: &Robots) -> io::Result<()> {
    let plain = [("Content-Type", "text/plain; charset=utf-8".to_string())];
    match robots {
        Robots::None => exchange.respond_text(404, "no robots.txt\n").await,
        Robots::Text(text) => exchange.respond(200, &plain, text.as_bytes()).await,
        Robots::Status(status) => {
            exchange
                .respond_text(*status, "robots.txt unavailable\n")
                .await
        }
        Robots::Huge(size) => {
            let text = huge_robots_text(*size);
            exchange.respond(200, &plain, text.as_bytes()).await
        }
        Robots::Hang => {
            exchange.wait_for_client_close().await;
            Ok(())
        }
        Robots::Redirect(target) => {
            let headers = [("Location", target.clone())];
            exchange.respond(301, &headers, b"").await
        }
    }
}

/// Whether the request's validators match: `If-None-Match` decides when present, else
/// `If-Modified-Since`.
fn not_modified(head: &RequestHead, etag: &str, last_modified: DateTime<Utc>) -> bool {
    if let Some(tags) = head.header("if-none-match") {
        return tags
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag);
    }
    head.header("if-modified-since")
        .and_then(http::parse_http_date)
        .is_some_and(|since| last_modified <= since)
}

/// Picks a syntax for the request and serializes `doc` in it; `None` when nothing the client
/// accepts can express the graph.
fn representation(exchange: &Exchange, doc: &Doc) -> Option<(Syntax, Vec<u8>)> {
    let graph = doc.graph(exchange.epoch);
    let url = exchange.url();
    let accept = exchange.head.header("accept");
    let mut available = Syntax::ALL.to_vec();
    while let Some(syntax) = negotiate(accept, &available) {
        match syntax.serialize(graph, &url) {
            Some(body) => return Some((syntax, body)),
            None => available.retain(|s| *s != syntax),
        }
    }
    None
}

/// Serves a document by content negotiation, with `ETag`, `Last-Modified` and 304s.
pub(crate) async fn serve_document(exchange: &mut Exchange, doc: &Doc) -> io::Result<()> {
    let Some((syntax, body)) = representation(exchange, doc) else {
        let types: Vec<&str> = Syntax::ALL.iter().map(|s| s.media_type()).collect();
        let headers = [
            ("Vary", "Accept".to_string()),
            ("Content-Type", "text/plain; charset=utf-8".to_string()),
        ];
        let text = format!("not acceptable; available: {}\n", types.join(", "));
        return exchange.respond(406, &headers, text.as_bytes()).await;
    };
    let etag = entity_tag(&body);
    let last_modified = epoch_last_modified(doc.served_epoch(exchange.epoch));
    let validators = [
        ("Vary", "Accept".to_string()),
        ("ETag", etag.clone()),
        ("Last-Modified", http::http_date(last_modified)),
    ];
    if not_modified(&exchange.head, &etag, last_modified) {
        exchange.send_head(304, &validators).await?;
        return exchange.finish().await;
    }
    let mut headers = validators.to_vec();
    headers.push(("Content-Type", syntax.content_type().to_string()));
    exchange.respond(200, &headers, &body).await
}

/// Serves a static file's bytes for the current epoch, with validators and 304s.
async fn serve_static(exchange: &mut Exchange, file: &StaticFile) -> io::Result<()> {
    let body = file.body(exchange.epoch);
    let etag = entity_tag(body);
    let last_modified = epoch_last_modified(file.served_epoch(exchange.epoch));
    let validators = [
        ("ETag", etag.clone()),
        ("Last-Modified", http::http_date(last_modified)),
    ];
    if not_modified(&exchange.head, &etag, last_modified) {
        exchange.send_head(304, &validators).await?;
        return exchange.finish().await;
    }
    let mut headers = validators.to_vec();
    headers.push(("Content-Type", file.content_type.clone()));
    exchange.respond(200, &headers, body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_modified_moves_by_a_day_per_epoch() {
        assert_eq!(
            http::http_date(epoch_last_modified(0)),
            "Mon, 01 Jan 2024 00:00:00 GMT"
        );
        assert_eq!(
            http::http_date(epoch_last_modified(2)),
            "Wed, 03 Jan 2024 00:00:00 GMT"
        );
    }

    #[test]
    fn validators_decide_not_modified() {
        let etag = "\"abc\"";
        let lm = epoch_last_modified(1);
        let head = |name: &str, value: &str| RequestHead {
            method: "GET".into(),
            target: "/".into(),
            headers: vec![(name.into(), value.into())],
        };
        assert!(not_modified(
            &head("If-None-Match", "\"x\", \"abc\""),
            etag,
            lm
        ));
        assert!(not_modified(&head("If-None-Match", "W/\"abc\""), etag, lm));
        assert!(!not_modified(&head("If-None-Match", "\"x\""), etag, lm));
        let later = http::http_date(epoch_last_modified(3));
        let earlier = http::http_date(epoch_last_modified(0));
        assert!(not_modified(&head("If-Modified-Since", &later), etag, lm));
        assert!(!not_modified(
            &head("If-Modified-Since", &earlier),
            etag,
            lm
        ));
        assert!(!not_modified(
            &head("If-Modified-Since", "garbage"),
            etag,
            lm
        ));
    }

    #[test]
    fn huge_robots_is_big_and_harmless() {
        let text = huge_robots_text(100_000);
        assert!(text.len() >= 100_000);
        let robot = texting_robots::Robot::new("ldwarc", text.as_bytes()).unwrap();
        assert!(robot.allowed("http://a.example/doc/x"));
    }
}
