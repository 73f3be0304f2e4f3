//! The capture page: previous/next navigation between captures, a `304` revisit shown as
//! what it is (its own status and header fields, and which capture it confirms), a cut
//! statement table that says so, and render links that all work for a document with named
//! graphs (only the syntaxes that keep graphs are offered).

use crate::serve_server;
use crate::warc_fixture;

use serve_server::LdwarcServer;
use warc_fixture::{Exchange, write_archive};

const DOC: &str = "http://example.org/doc.ttl";
const BIG: &str = "http://example.org/big.ttl";
const TRIG: &str = "http://example.org/graphs.trig";
const DAYS: [&str; 3] = [
    "2024-01-01T00:00:00Z",
    "2024-01-02T00:00:00Z",
    "2024-01-03T00:00:00Z",
];
const STAMPS: [&str; 3] = ["20240101000000", "20240102000000", "20240103000000"];

fn archive(root: &std::path::Path) {
    let body = b"<http://example.org/a> <http://example.org/p> \"v1\" .\n";
    let mut big = String::new();
    for n in 0..2500 {
        big.push_str(&format!(
            "<http://example.org/s{n}> <http://example.org/p> {n} .\n"
        ));
    }
    let trig = b"<http://example.org/g> { <http://example.org/a> <http://example.org/p> 1 . }\n\
<http://example.org/b> <http://example.org/p> 2 .\n";
    let mut not_modified = Exchange::ok(DOC, DAYS[2], "text/turtle", b"");
    not_modified.status = 304;
    not_modified.headers = vec![("ETag".into(), "\"v1\"".into())];
    not_modified.revisit_of = Some((DOC.into(), DAYS[1].into()));
    write_archive(
        root,
        &[
            Exchange::ok(DOC, DAYS[0], "text/turtle", body),
            Exchange::ok(DOC, DAYS[1], "text/turtle", body),
            not_modified,
            Exchange::ok(BIG, DAYS[0], "text/turtle", big.as_bytes()),
            Exchange::ok(TRIG, DAYS[0], "application/trig", trig),
        ],
    );
}

fn page(server: &LdwarcServer, url: &str, stamp: &str) -> String {
    let response = server.get(&format!("/capture?url={url}&ts={stamp}"));
    assert_eq!(response.status, 200, "{url} {stamp}: {}", response.text());
    response.text()
}

#[test]
fn capture_pages_navigate_and_say_what_they_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    archive(&root);
    let server = LdwarcServer::start(&root, &[]);

    let middle = page(&server, DOC, STAMPS[1]);
    assert!(
        middle.contains(&format!(
            "rel=\"prev\" href=\"/capture?url=http%3A%2F%2Fexample.org%2Fdoc.ttl&amp;ts={}\"",
            STAMPS[0]
        )),
        "{middle}"
    );
    assert!(
        middle.contains(&format!("&amp;ts={}\">→", STAMPS[2])),
        "{middle}"
    );
    assert!(middle.contains("capture 2 of 3"), "{middle}");
    let first = page(&server, DOC, STAMPS[0]);
    assert!(!first.contains("rel=\"prev\""), "{first}");

    let revisit = page(&server, DOC, STAMPS[2]);
    assert!(revisit.contains("304 Not Modified"), "{revisit}");
    assert!(revisit.contains("HTTP 304"), "{revisit}");
    assert!(
        revisit.contains("&quot;v1&quot;"),
        "the 304's own ETag: {revisit}"
    );
    assert!(revisit.contains(&format!("ts={}", STAMPS[1])), "{revisit}");
    assert!(!revisit.contains("rel=\"next\""), "{revisit}");

    let big = page(&server, BIG, STAMPS[0]);
    assert!(
        big.contains("The first 2000 of 2500 statements"),
        "cut without saying so"
    );
    assert!(!page(&server, DOC, STAMPS[0]).contains("The first"));

    let graphs = page(&server, TRIG, STAMPS[0]);
    let renders: Vec<String> = graphs
        .split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|href| href.starts_with("/render?"))
        .map(|href| href.replace("&amp;", "&"))
        .collect();
    assert_eq!(renders.len(), 3, "nq, trig, jsonld only: {renders:?}");
    for render in &renders {
        let response = server.get(render);
        assert_eq!(response.status, 200, "{render}: {}", response.text());
    }
    let turtle = server.get(&format!("/render?url={TRIG}&ts={}&format=ttl", STAMPS[0]));
    assert_eq!(turtle.status, 406, "{}", turtle.text());
    assert_eq!(turtle.header("vary"), Some("accept"));
}

/// An archived HTML page replayed without a modifier has its links rewritten into the
/// archive, and they lead to the linked page's capture; `id_` stays byte for byte.
#[test]
fn archived_html_is_browsable() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let index = b"<html><head><title>Site</title></head><body>\
<a href=\"page2.html\">relative</a> <a href=\"/site/page2.html#part\">rooted</a> \
<a href=\"http://elsewhere.example/\">away</a></body></html>";
    let page2 = b"<html><body><p>the second page</p></body></html>";
    write_archive(
        &root,
        &[
            Exchange::ok(
                "http://example.org/site/",
                DAYS[0],
                "text/html; charset=utf-8",
                index,
            ),
            Exchange::ok(
                "http://example.org/site/page2.html",
                "2024-01-01T00:01:00Z",
                "text/html",
                page2,
            ),
        ],
    );
    let server = LdwarcServer::start(&root, &[]);
    let browser = [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    let page = server.get_with(
        &format!("/web/{}/http://example.org/site/", STAMPS[0]),
        &browser,
    );
    assert_eq!(page.status, 200, "{}", page.text());
    let text = page.text();
    let into_archive = format!("/web/{}/http://example.org/site/page2.html", STAMPS[0]);
    assert!(
        text.contains(&format!("<a href=\"{into_archive}\">relative</a>")),
        "{text}"
    );
    assert!(
        text.contains(&format!("<a href=\"{into_archive}#part\">rooted</a>")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "<a href=\"/web/{}/http://elsewhere.example/\">",
            STAMPS[0]
        )),
        "{text}"
    );
    assert_eq!(page.header("content-security-policy"), Some("sandbox"));

    // The link leads to page 2's capture (a minute later: a redirect to its own URI-M).
    let followed = server.get_with(&into_archive, &browser);
    assert_eq!(followed.status, 302, "{}", followed.text());
    let location = followed.header("location").expect("Location").to_string();
    assert!(location.contains("/web/20240101000100/"), "{location}");
    let path = &location[location.find("/web/").unwrap()..];
    let second = server.get_with(path, &browser);
    assert_eq!(second.status, 200);
    assert!(
        second.text().contains("the second page"),
        "{}",
        second.text()
    );

    let raw = server.get(&format!("/web/{}id_/http://example.org/site/", STAMPS[0]));
    assert_eq!(raw.body, index, "id_ is the archived payload");
}
