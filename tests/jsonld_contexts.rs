//! A JSON-LD document whose remote context did not serve is replayed with the context
//! treated as empty, and the warning says what really happened: the context was never
//! captured ("is not in the archive"), or its capture is not a context (not JSON, JSON
//! without `@context`, an error status), with the capture's date. And a node identifier
//! that has the form of a keyword (`"@id": "@ignoreMe"`, the W3C JSON-LD toRdf test e122) is
//! ignored with the statements naming it, where `@` and `@foo.bar` are ordinary IRIs.

use crate::common::{ldwarc, run};
use crate::warc_fixture::{Exchange, write_archive};

const DATE: &str = "2024-03-01T12:00:00Z";
const LATER: &str = "2024-03-02T12:00:00Z";
const STAMP: &str = "20240302120000";

fn document(context: &str) -> Vec<u8> {
    format!(
        r#"{{"@context": "{context}", "@id": "http://example.org/alice", "name": "Alice", "http://example.org/age": 42}}"#
    )
    .into_bytes()
}

#[test]
fn a_context_that_fails_to_load_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let json_ld = "application/ld+json";
    let mut not_found = Exchange::ok("http://example.org/gone.jsonld", DATE, json_ld, b"gone");
    not_found.status = 404;
    write_archive(
        &root,
        &[
            Exchange::ok(
                "http://example.org/broken.jsonld",
                DATE,
                json_ld,
                b"<html>oops</html>",
            ),
            Exchange::ok(
                "http://example.org/plain.jsonld",
                DATE,
                json_ld,
                br#"{"name": "x"}"#,
            ),
            not_found,
            Exchange::ok(
                "http://example.org/a",
                LATER,
                json_ld,
                &document("http://example.org/broken.jsonld"),
            ),
            Exchange::ok(
                "http://example.org/b",
                LATER,
                json_ld,
                &document("http://example.org/never.jsonld"),
            ),
            Exchange::ok(
                "http://example.org/c",
                LATER,
                json_ld,
                &document("http://example.org/plain.jsonld"),
            ),
            Exchange::ok(
                "http://example.org/d",
                LATER,
                json_ld,
                &document("http://example.org/gone.jsonld"),
            ),
        ],
    );
    let cases = [
        (
            "a",
            "JSON-LD context http://example.org/broken.jsonld was captured at \
             2024-03-01T12:00:00Z but is not JSON: expected value at line 1 column 1; \
             terms it defines were dropped",
        ),
        (
            "b",
            "JSON-LD context http://example.org/never.jsonld is not in the archive; \
             terms it defines were dropped",
        ),
        (
            "c",
            "JSON-LD context http://example.org/plain.jsonld was captured at \
             2024-03-01T12:00:00Z but is JSON without an @context member; terms it defines \
             were dropped",
        ),
        (
            "d",
            "JSON-LD context http://example.org/gone.jsonld was captured at \
             2024-03-01T12:00:00Z with status 404, not a context; terms it defines were dropped",
        ),
    ];
    for (path, warning) in cases {
        let url = format!("http://example.org/{path}");
        let output = run(ldwarc()
            .args(["replay", "--root"])
            .arg(&root)
            .arg(format!("{url}@{STAMP}")));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{url}: {stderr}");
        assert!(
            stderr.contains(&format!("ldwarc: warning: {url}: {warning}")),
            "{url}: {stderr}"
        );
        // The absolute property still came through, the context's term did not.
        let graph = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            graph.trim(),
            "<http://example.org/alice> <http://example.org/age> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
            "{url}"
        );
    }
}

#[test]
fn keyword_like_node_identifiers_are_ignored() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("e122.jsonld");
    std::fs::write(
        &file,
        r#"{
  "@id": "http://example.org/",
  "http://example.com/vocab/p": [
    {"@id": "@"},
    {"@id": "@foo.bar"},
    {"@id": "@ignoreMe", "http://example.com/vocab/q": "dropped with its node"}
  ],
  "http://example.com/vocab/r": {"@id": "@ignoreMe"}
}"#,
    )
    .unwrap();
    let output = run(ldwarc()
        .arg("parse")
        .arg(&file)
        .args(["--base", "http://example.org/"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let mut lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(String::from)
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "<http://example.org/> <http://example.com/vocab/p> <http://example.org/@> .",
            "<http://example.org/> <http://example.com/vocab/p> <http://example.org/@foo.bar> .",
        ]
    );
}

/// A context's `@base` that is no IRI (a space in it) loses only the statements whose IRIs
/// needed it: the rest of the document is read, with a warning naming the value; the
/// processor alone would refuse the whole document.
#[test]
fn an_invalid_base_drops_the_relative_iris_not_the_document() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("page.jsonld");
    std::fs::write(
        &file,
        r#"{"@context": {"@base": "http://example.org/a b/", "name": "http://schema.org/name"},
            "@graph": [{"@id": "relative", "name": "needs the base"},
                       {"@id": "http://example.org/abs", "name": "absolute"},
                       {"@id": "http://example.org/abs", "http://schema.org/knows": {"@id": "friend"}}]}"#,
    )
    .expect("write the document");
    let output = run(ldwarc().arg("parse").arg(&file));
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(
        stdout,
        "<http://example.org/abs> <http://schema.org/name> \"absolute\" .\n"
    );
    let stderr = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        stderr.contains(r#"JSON-LD @base "http://example.org/a b/" is not an IRI"#),
        "{stderr}"
    );
}
