//! Twins: URLs sharing a SURT key (query arguments in another order; another case) captured in
//! the same second each replay as themselves through `id_`, negotiated mementos, TimeGates,
//! TimeMaps and the timeline, and `rel="original"` names the URL as captured, not as requested.

use crate::common;
use crate::serve_server;
use crate::warc_fixture;

use common::HttpResponse;
use serve_server::{LdwarcServer, parse_links};
use warc_fixture::{Exchange, write_archive};

/// The twins, each with the distinctive statement of its Turtle body.
const TWINS: &[&str] = &[
    "http://example.org/search?q=alice&lang=en",
    "http://example.org/search?lang=en&q=alice",
    "http://example.org/CaseTest",
    "http://example.org/casetest",
];

fn body(index: usize) -> Vec<u8> {
    format!("<http://example.org/thing> <http://example.org/twin> \"twin {index}\" .\n")
        .into_bytes()
}

fn original_of(response: &HttpResponse) -> Vec<String> {
    parse_links(response.header("link").unwrap_or(""))
        .into_iter()
        .filter(|(rel, _, _)| rel == "original")
        .map(|(_, uri, _)| uri)
        .collect()
}

#[test]
fn twins_replay_as_themselves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    // Every twin in the same second, then again a day later with the same body: a timeline
    // that mixed them would show changes that never happened.
    let mut exchanges = Vec::new();
    for day in ["01", "02"] {
        for (index, url) in TWINS.iter().enumerate() {
            exchanges.push(Exchange::ok(
                url,
                &format!("2024-01-{day}T00:00:00.{}00000Z", index + 1),
                "text/turtle",
                &body(index),
            ));
        }
    }
    write_archive(&root, &exchanges);
    let server = LdwarcServer::start(&root, &[]);
    for (index, url) in TWINS.iter().enumerate() {
        let expected = body(index);
        let raw = server.get(&format!("/web/20240101000000id_/{url}"));
        assert_eq!(raw.status, 200, "{url}: {}", raw.text());
        assert_eq!(
            raw.text(),
            String::from_utf8_lossy(&expected),
            "id_ of {url}"
        );
        assert_eq!(original_of(&raw), vec![url.to_string()], "{url}");

        let turtle = server.get_with(
            &format!("/web/20240102000000/{url}"),
            &[("Accept", "application/n-triples")],
        );
        assert_eq!(turtle.status, 200, "{url}: {}", turtle.text());
        assert!(
            turtle.text().contains(&format!("\"twin {index}\"")),
            "negotiated memento of {url}: {}",
            turtle.text()
        );

        // Asked for over https: the memento is the http capture, and says so.
        let https = url.replace("http://", "https://");
        let gate = server.get_with(
            &format!("/web/{https}"),
            &[("Accept-Datetime", "Mon, 01 Jan 2024 00:00:00 GMT")],
        );
        assert_eq!(gate.status, 302, "{https}: {}", gate.text());
        let location = gate.header("location").expect("Location").to_string();
        assert!(
            location.ends_with(&format!("/web/20240101000000/{https}")),
            "{location}"
        );
        assert_eq!(
            original_of(&gate),
            vec![url.to_string()],
            "TimeGate of {https}"
        );
        let path = location.split_once("127.0.0.1").map(|(_, p)| p).unwrap();
        let path = &path[path.find('/').unwrap()..];
        let followed = server.get_with(path, &[("Accept", "application/n-triples")]);
        assert!(
            followed.text().contains(&format!("\"twin {index}\"")),
            "{path}: {}",
            followed.text()
        );

        let timemap = server.get(&format!("/timemap/link/{url}"));
        assert_eq!(timemap.status, 200);
        let mementos = parse_links(&timemap.text())
            .into_iter()
            .filter(|(rel, _, _)| rel.contains("memento"))
            .count();
        assert_eq!(mementos, 2, "{url}: {}", timemap.text());

        let timeline = server.get(&format!("/timeline?url={}", common::query_encode(url)));
        assert_eq!(timeline.status, 200);
        assert!(
            timeline.text().contains("2 captures, 0 graph changes"),
            "timeline of {url}: {}",
            timeline.text()
        );
    }
}
