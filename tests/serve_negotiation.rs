//! Negotiated mementos (`/web/{timestamp}/{url}` without a modifier) only for what is RDF:
//! a plain JSON capture is served as archived (not an empty Turtle graph), a broken Turtle
//! file as archived with the parse error named (not a partial graph passed off as the
//! document; a person's capture page shows its statements under a warning), and a 406
//! carries `Vary: accept` like every negotiated answer.

use crate::serve_server;
use crate::warc_fixture;

use serve_server::LdwarcServer;
use warc_fixture::{Exchange, write_archive};

const DATE: &str = "2024-03-01T12:00:00Z";
const STAMP: &str = "20240301120000";
const JSON: &[u8] = b"{\"name\": \"Berlin\", \"population\": 3850809}\n";
const BROKEN: &[u8] = b"<http://example.org/a> <http://example.org/p> \"one\" .\n\
<http://example.org/b> <http://example.org/p> \"two\" ;; oops <<< .\n\
<http://example.org/c> <http://example.org/p> \"three\" .\n";
const GOOD: &[u8] = b"<http://example.org/a> <http://example.org/p> \"one\" .\n";

#[test]
fn only_rdf_is_negotiated() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    write_archive(
        &root,
        &[
            Exchange::ok(
                "http://example.org/data.json",
                DATE,
                "application/json",
                JSON,
            ),
            Exchange::ok("http://example.org/broken.ttl", DATE, "text/turtle", BROKEN),
            Exchange::ok("http://example.org/good.ttl", DATE, "text/turtle", GOOD),
        ],
    );
    let server = LdwarcServer::start(&root, &[]);
    let get = |url: &str, accept: &str| {
        server.get_with(&format!("/web/{STAMP}/{url}"), &[("Accept", accept)])
    };

    for accept in ["text/turtle", "*/*", "application/ld+json"] {
        let json = get("http://example.org/data.json", accept);
        assert_eq!(json.status, 200, "{accept}: {}", json.text());
        assert_eq!(
            json.body, JSON,
            "data.json for {accept} is not the archived payload"
        );
        assert_eq!(json.header("content-type"), Some("application/json"));
        assert!(json.header("x-ldwarc-rdf-error").is_some(), "{accept}");
        assert_eq!(json.header("vary"), Some("accept"));

        let broken = get("http://example.org/broken.ttl", accept);
        assert_eq!(broken.status, 200, "{accept}: {}", broken.text());
        assert_eq!(broken.body, BROKEN, "broken.ttl for {accept}");
        let error = broken.header("x-ldwarc-rdf-error").unwrap_or("");
        assert!(
            error.contains("does not parse whole"),
            "{accept}: {error:?}"
        );
    }

    let page = get("http://example.org/broken.ttl", "text/html");
    assert_eq!(page.status, 200);
    assert!(
        page.text().contains("does not parse whole"),
        "{}",
        page.text()
    );

    let good = get("http://example.org/good.ttl", "application/n-triples");
    assert_eq!(good.status, 200);
    assert!(good.header("x-ldwarc-rdf-error").is_none());
    assert!(good.text().contains("\"one\""), "{}", good.text());

    let refused = get("http://example.org/good.ttl", "image/png");
    assert_eq!(refused.status, 406, "{}", refused.text());
    assert_eq!(refused.header("vary"), Some("accept"), "406 without Vary");
    assert!(!refused.text().is_empty());
}
