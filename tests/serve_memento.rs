//! Memento (RFC 7089) conformance of `ldwarc serve`, rule by rule, on a generated archive:
//! the TimeGate (302 + `Vary: accept-datetime` + `Link` original/timegate/timemap; latest
//! without `Accept-Datetime`; 400 for an unparseable date; 404 without Memento headers for a
//! URL never captured), mementos (`Memento-Datetime` equal to the URI-M's datetime, `Link`
//! with original, timegate, timemap and first/last/prev/next memento, no `Vary:
//! accept-datetime`, no `Vary` at all on `id_`; an inexact timestamp redirects to the URI-M),
//! TimeMaps (link format and JSON, no `Vary`, 404 when never captured), and content
//! negotiation of RDF mementos (`Vary: accept`).

use crate::common;
use crate::serve_server;

use std::collections::BTreeMap;

use common::{HttpResponse, generated, ldwarc, run, stdout_ok};
use serve_server::{LdwarcServer, parse_links};

const BERLIN: &str = "http://example.org/resource/Berlin";

fn http_date_of(timestamp: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(timestamp, "%Y%m%d%H%M%S")
        .expect("14-digit timestamp")
        .and_utc()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

struct Fixture {
    _dir: tempfile::TempDir,
    server: LdwarcServer,
    /// Distinct capture timestamps of Berlin, oldest first.
    stamps: Vec<String>,
    /// The URL captured at each timestamp (Berlin's SURT also holds `www.` captures):
    /// what `rel="original"` names.
    urls: BTreeMap<String, String>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    generated::generate(&root, 0xC0FFEE);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    let server = LdwarcServer::start(&root, &[]);
    let timemap = server.get(&format!("/timemap/json/{BERLIN}"));
    assert_eq!(timemap.status, 200, "{}", timemap.text());
    let mut stamps: Vec<String> = Vec::new();
    let mut urls = BTreeMap::new();
    for line in timemap.text().lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let stamp = v["timestamp"].as_str().expect("timestamp").to_string();
        let url = v["url"].as_str().expect("url").to_string();
        urls.entry(stamp.clone()).or_insert(url);
        stamps.push(stamp);
    }
    stamps.dedup();
    assert!(
        stamps.len() >= 3,
        "Berlin needs at least 3 mementos: {stamps:?}"
    );
    Fixture {
        _dir: dir,
        server,
        stamps,
        urls,
    }
}

/// `rel` value → (URI, datetime) of a `Link` header, one entry per relation type.
fn links_by_rel(response: &HttpResponse) -> BTreeMap<String, Vec<(String, Option<String>)>> {
    let mut map: BTreeMap<String, Vec<(String, Option<String>)>> = BTreeMap::new();
    for (rel, uri, datetime) in parse_links(response.header("link").unwrap_or("")) {
        for one in rel.split(' ') {
            map.entry(one.to_string())
                .or_default()
                .push((uri.clone(), datetime.clone()));
        }
    }
    map
}

fn base(server: &LdwarcServer) -> String {
    format!("http://127.0.0.1:{}", server.port)
}

/// `original` names the URL as captured (`original`), `timegate` and `timemap` the request's.
fn assert_resource_links(
    server: &LdwarcServer,
    response: &HttpResponse,
    original: &str,
    what: &str,
) {
    let links = links_by_rel(response);
    assert_eq!(
        links["original"],
        vec![(original.to_string(), None)],
        "{what}"
    );
    assert_eq!(
        links["timegate"][0].0,
        format!("{}/web/{BERLIN}", base(server)),
        "{what}"
    );
    assert_eq!(
        links["timemap"][0].0,
        format!("{}/timemap/link/{BERLIN}", base(server)),
        "{what}"
    );
    assert!(
        response
            .header("link")
            .unwrap_or("")
            .contains("rel=\"timemap\"; type=\"application/link-format\""),
        "{what}: the timemap link names its type"
    );
}

#[test]
fn memento_rules() {
    let fixture = fixture();
    timegate_rules(&fixture);
    memento_headers(&fixture);
    inexact_timestamps_redirect(&fixture);
    timemap_rules(&fixture);
    content_negotiation(&fixture);
    error_cases(&fixture);
}

fn timegate_rules(fixture: &Fixture) {
    let server = &fixture.server;
    let stamps = &fixture.stamps;
    for stamp in stamps {
        let response = server.get_with(
            &format!("/web/{BERLIN}"),
            &[("Accept-Datetime", &http_date_of(stamp))],
        );
        assert_eq!(
            response.status,
            302,
            "TimeGate @ {stamp}: {}",
            response.text()
        );
        assert_eq!(response.header("vary"), Some("accept-datetime"));
        assert_eq!(
            response.header("location"),
            Some(format!("{}/web/{stamp}/{BERLIN}", base(server)).as_str())
        );
        assert!(
            response.header("memento-datetime").is_none(),
            "a TimeGate is not a memento"
        );
        assert_resource_links(server, &response, &fixture.urls[stamp], "TimeGate");
        let links = links_by_rel(&response);
        let chosen = (
            format!("{}/web/{stamp}/{BERLIN}", base(server)),
            Some(http_date_of(stamp)),
        );
        assert!(
            links["memento"].contains(&chosen),
            "TimeGate links the memento: {links:?}"
        );
        assert!(
            links.contains_key("first") && links.contains_key("last"),
            "{links:?}"
        );
    }
    // No Accept-Datetime: the latest memento.
    let latest = server.get(&format!("/web/{BERLIN}"));
    assert_eq!(latest.status, 302);
    let last = fixture.stamps.last().expect("a memento");
    assert!(
        latest
            .header("location")
            .is_some_and(|l| l.contains(&format!("/web/{last}/")))
    );
    // Before the first: the first; far after: the last.
    let early = server.get_with(
        &format!("/web/{BERLIN}"),
        &[("Accept-Datetime", "Thu, 01 Jan 1998 00:00:00 GMT")],
    );
    assert!(
        early
            .header("location")
            .is_some_and(|l| l.contains(&format!("/web/{}/", fixture.stamps[0])))
    );
}

fn memento_headers(fixture: &Fixture) {
    let server = &fixture.server;
    let stamps = &fixture.stamps;
    for (index, stamp) in stamps.iter().enumerate() {
        for modifier in ["", "id_"] {
            let path = format!("/web/{stamp}{modifier}/{BERLIN}");
            let response = server.get_with(&path, &[("Accept", "text/turtle")]);
            let what = format!("memento {path}");
            assert_eq!(response.status, 200, "{what}: {}", response.text());
            assert_eq!(
                response.header("memento-datetime"),
                Some(http_date_of(stamp).as_str()),
                "{what}"
            );
            assert!(
                !response
                    .header("vary")
                    .unwrap_or("")
                    .to_ascii_lowercase()
                    .contains("accept-datetime"),
                "{what}: a memento does not vary by Accept-Datetime"
            );
            if modifier == "id_" {
                assert!(
                    response.header("vary").is_none(),
                    "{what}: raw mementos carry no Vary"
                );
                assert_eq!(response.header("content-security-policy"), Some("sandbox"));
            }
            assert_resource_links(server, &response, &fixture.urls[stamp], &what);
            let links = links_by_rel(&response);
            let uri = |s: &str| format!("{}/web/{s}{modifier}/{BERLIN}", base(server));
            let dated = |s: &str| (uri(s), Some(http_date_of(s)));
            assert_eq!(links["first"], vec![dated(&stamps[0])], "{what}");
            assert_eq!(
                links["last"],
                vec![dated(stamps.last().expect("last"))],
                "{what}"
            );
            assert!(
                links["memento"].contains(&dated(stamp)),
                "{what}: links itself"
            );
            match index {
                0 => assert!(!links.contains_key("prev"), "{what}: the first has no prev"),
                _ => assert_eq!(links["prev"], vec![dated(&stamps[index - 1])], "{what}"),
            }
            if index + 1 == stamps.len() {
                assert!(!links.contains_key("next"), "{what}: the last has no next");
            } else {
                assert_eq!(links["next"], vec![dated(&stamps[index + 1])], "{what}");
            }
        }
    }
}

fn inexact_timestamps_redirect(fixture: &Fixture) {
    let server = &fixture.server;
    let first = &fixture.stamps[0];
    // A year before the first capture: the closest memento is the first.
    let year: i32 = first[..4].parse().expect("year");
    let response = server.get(&format!("/web/{}id_/{BERLIN}", year - 1));
    assert_eq!(response.status, 302);
    assert_eq!(
        response.header("location"),
        Some(format!("{}/web/{first}id_/{BERLIN}", base(server)).as_str())
    );
    assert!(response.header("memento-datetime").is_none());
    assert!(response.header("vary").is_none());
}

fn timemap_rules(fixture: &Fixture) {
    let server = &fixture.server;
    let response = server.get(&format!("/timemap/link/{BERLIN}"));
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("content-type"),
        Some("application/link-format")
    );
    // A TimeMap is the same whatever the request's Accept or Accept-Datetime.
    assert!(response.header("vary").is_none(), "TimeMaps carry no Vary");
    let text = response.text();
    let links = parse_links(&text);
    assert_eq!(links[0].0, "self");
    assert_eq!(
        links[0].1,
        format!("{}/timemap/link/{BERLIN}", base(server))
    );
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains(&format!("from=\"{}\"", http_date_of(&fixture.stamps[0]))))
    );
    assert!(
        links
            .iter()
            .any(|(rel, uri, _)| rel == "timegate"
                && *uri == format!("{}/web/{BERLIN}", base(server)))
    );
    assert!(links.iter().any(|(rel, uri, _)| rel == "original"
        && Some(uri) == fixture.stamps.last().map(|s| &fixture.urls[s])));
    let mementos: Vec<(String, String)> = links
        .iter()
        .filter(|(rel, _, _)| rel.ends_with("memento"))
        .map(|(rel, uri, dt)| {
            (
                rel.clone(),
                format!("{uri} {}", dt.clone().unwrap_or_default()),
            )
        })
        .collect();
    assert_eq!(mementos.len(), fixture.stamps.len());
    assert_eq!(mementos[0].0, "first memento");
    assert_eq!(mementos[mementos.len() - 1].0, "last memento");
    for (stamp, (_, line)) in fixture.stamps.iter().zip(&mementos) {
        assert_eq!(
            line,
            &format!(
                "{}/web/{stamp}/{BERLIN} {}",
                base(server),
                http_date_of(stamp)
            )
        );
    }
    let json = server.get(&format!("/timemap/json/{BERLIN}"));
    assert_eq!(json.status, 200);
    assert!(json.header("vary").is_none(), "TimeMaps carry no Vary");
    assert_eq!(json.text().lines().count(), fixture.stamps.len());
}

fn content_negotiation(fixture: &Fixture) {
    let server = &fixture.server;
    let stamp = &fixture.stamps[0];
    let path = format!("/web/{stamp}/{BERLIN}");
    for (accept, media_type) in [
        ("text/turtle", "text/turtle"),
        ("application/ld+json", "application/ld+json"),
        ("application/n-triples", "application/n-triples"),
        ("application/rdf+xml", "application/rdf+xml"),
        (
            "application/n-triples;q=0.5, text/turtle;q=0.9",
            "text/turtle",
        ),
    ] {
        let response = server.get_with(&path, &[("Accept", accept)]);
        assert_eq!(response.status, 200, "{accept}: {}", response.text());
        assert_eq!(
            response.header("content-type"),
            Some(format!("{media_type}; charset=utf-8").as_str()),
            "{accept}"
        );
        assert_eq!(response.header("vary"), Some("accept"), "{accept}");
        assert!(response.header("memento-datetime").is_some(), "{accept}");
        assert!(!response.body.is_empty(), "{accept}");
    }
    let jsonld = server.get_with(&path, &[("Accept", "application/ld+json")]);
    let parsed: serde_json::Value = serde_json::from_slice(&jsonld.body).expect("JSON-LD is JSON");
    assert!(parsed.is_array() || parsed.is_object());
    let ntriples = server
        .get_with(&path, &[("Accept", "application/n-triples")])
        .text();
    assert!(
        ntriples
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_end().ends_with('.')),
        "{ntriples}"
    );
    let refused = server.get_with(&path, &[("Accept", "image/png")]);
    assert_eq!(refused.status, 406);
    let browser = server.get_with(
        &path,
        &[(
            "Accept",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        )],
    );
    assert_eq!(browser.status, 200);
    assert_eq!(
        browser.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(browser.text().contains("<h2>Statements</h2>"));
    // HEAD answers the same head without a body.
    let head = server
        .send(format!("HEAD {path} HTTP/1.1\r\nHost: x\r\nAccept: text/turtle\r\nConnection: close\r\n\r\n").as_bytes())
        .expect("HEAD");
    assert_eq!(head.status, 200);
    assert!(head.header("memento-datetime").is_some());
    assert!(head.body.is_empty());
}

fn error_cases(fixture: &Fixture) {
    let server = &fixture.server;
    let never = "http://example.org/never/captured";
    for path in [
        format!("/web/{never}"),
        format!("/web/20240101/{never}"),
        format!("/web/20240101id_/{never}"),
    ] {
        let response = server.get_with(
            &path,
            &[("Accept-Datetime", "Mon, 01 Jan 2024 00:00:00 GMT")],
        );
        assert_eq!(response.status, 404, "{path}");
        for header in ["link", "vary", "memento-datetime"] {
            assert!(
                response.header(header).is_none(),
                "{path}: 404 carries no {header}"
            );
        }
    }
    for path in [
        format!("/timemap/link/{never}"),
        format!("/timemap/json/{never}"),
    ] {
        assert_eq!(server.get(&path).status, 404, "{path}");
    }
    for bad in [
        "yesterday",
        "2024-01-01",
        "Mon, 99 Jan 2024 00:00:00 GMT",
        "",
    ] {
        let response = server.get_with(&format!("/web/{BERLIN}"), &[("Accept-Datetime", bad)]);
        assert_eq!(response.status, 400, "Accept-Datetime {bad:?}");
        assert!(response.header("vary").is_none() && response.header("link").is_none());
    }
    assert_eq!(server.get(&format!("/timemap/xml/{BERLIN}")).status, 404);
}
