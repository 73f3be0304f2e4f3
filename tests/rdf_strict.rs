//! Documents declared N-Triples or N-Quads are read as exactly that. The W3C N-Triples
//! negative syntax tests that are valid Turtle (relative IRIs, `@prefix`, `@base`, object and
//! predicate-object lists, single-quoted and long strings, bare numbers) are rejected by
//! `ldwarc parse` with exit 2 naming the file and line, where they used to be read as Turtle
//! without a word. Replay still reads a capture mislabelled `application/n-triples` (servers
//! do that), but says so: a warning on stderr, `X-Ldwarc-Rdf-Warning` from the server.

use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};
use crate::serve_server::LdwarcServer;
use crate::warc_fixture::{Exchange, write_archive};

/// A valid first line, so that the error must name line 2.
const GOOD_LINE: &str = "<http://example/s> <http://example/p> <http://example/o> .\n";

/// The second line of each case, named after the W3C test it is the kind of.
const TURTLE_ONLY: &[(&str, &str)] = &[
    (
        "nt-syntax-bad-uri-06",
        "<s> <http://example/p> <http://example/o> .",
    ),
    (
        "nt-syntax-bad-uri-07",
        "<http://example/s> <p> <http://example/o> .",
    ),
    (
        "nt-syntax-bad-uri-08",
        "<http://example/s> <http://example/p> <o> .",
    ),
    (
        "nt-syntax-bad-uri-09",
        "<http://example/s> <http://example/p> \"foo\"^^<dt> .",
    ),
    ("nt-syntax-bad-prefix-01", "@prefix : <http://example/> ."),
    ("nt-syntax-bad-base-01", "@base <http://example/> ."),
    (
        "nt-syntax-bad-struct-01",
        "<http://example/s> <http://example/p> <http://example/o>, <http://example/o2> .",
    ),
    (
        "nt-syntax-bad-struct-02",
        "<http://example/s> <http://example/p> <http://example/o>; <http://example/p2> <http://example/o2> .",
    ),
    (
        "nt-syntax-bad-string-03",
        "<http://example/s> <http://example/p> 'string' .",
    ),
    (
        "nt-syntax-bad-string-04",
        "<http://example/s> <http://example/p> '''string''' .",
    ),
    (
        "nt-syntax-bad-string-05",
        "<http://example/s> <http://example/p> \"\"\"string\"\"\" .",
    ),
    (
        "nt-syntax-bad-num-01",
        "<http://example/s> <http://example/p> 1 .",
    ),
    (
        "nt-syntax-bad-num-02",
        "<http://example/s> <http://example/p> 1.0 .",
    ),
    (
        "nt-syntax-bad-num-03",
        "<http://example/s> <http://example/p> 1.0e0 .",
    ),
];

fn parse(path: &Path, extra: &[&str]) -> std::process::Output {
    run(ldwarc()
        .arg("parse")
        .arg(path)
        .args(["--base", "http://example/"])
        .args(extra))
}

#[test]
fn turtle_only_syntax_is_not_ntriples() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, line) in TURTLE_ONLY {
        let text = format!("{GOOD_LINE}{line}\n");
        // The same text is Turtle: the strict reader is what refuses it.
        let turtle = dir.path().join(format!("{name}.ttl"));
        std::fs::write(&turtle, &text).unwrap();
        stdout_ok(&parse(&turtle, &[]), name);

        let ntriples = dir.path().join(format!("{name}.nt"));
        std::fs::write(&ntriples, &text).unwrap();
        let output = parse(&ntriples, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name}: printed a graph");
        assert!(
            stderr.contains(&format!("{name}.nt: not valid N-Triples: ")),
            "{name}: {stderr}"
        );
        assert!(stderr.contains("line 2"), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");

        // Declared by media type, whatever the file is called.
        let output = parse(&turtle, &["--media-type", "application/n-triples"]);
        assert_eq!(output.status.code(), Some(2), "{name} by media type");
    }
}

#[test]
fn strict_ntriples_and_nquads_still_read_what_is_valid() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ntriples = dir.path().join("good.nt");
    std::fs::write(&ntriples, format!("# comment\n{GOOD_LINE}")).unwrap();
    let printed = stdout_ok(&parse(&ntriples, &[]), "good.nt");
    assert_eq!(printed, GOOD_LINE);

    let nquads = dir.path().join("good.nq");
    let quad = "<http://example/s> <http://example/p> <http://example/o> <http://example/g> .\n";
    std::fs::write(&nquads, quad).unwrap();
    assert_eq!(stdout_ok(&parse(&nquads, &[]), "good.nq"), quad);

    let bad = dir.path().join("bad.nq");
    std::fs::write(
        &bad,
        format!("{quad}{quad}<http://example/s> <http://example/p> 1 .\n"),
    )
    .unwrap();
    let output = parse(&bad, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.nq: not valid N-Quads: "), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
}

const DATE: &str = "2024-03-01T12:00:00Z";
const STAMP: &str = "20240301120000";
const URL: &str = "http://example.org/mislabelled.nt";
const TURTLE: &[u8] = b"@prefix ex: <http://example.org/> .\nex:a ex:p ex:b, ex:c .\n";

#[test]
fn replay_reads_mislabelled_ntriples_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    write_archive(
        &root,
        &[Exchange::ok(URL, DATE, "application/n-triples", TURTLE)],
    );
    let output = run(ldwarc()
        .args(["replay", "--root"])
        .arg(&root)
        .arg(format!("{URL}@{STAMP}")));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let graph = stdout_ok(&output, "replay");
    assert_eq!(graph.lines().count(), 2, "{graph}");
    assert!(
        stderr.contains(&format!(
            "{URL}: declared application/n-triples but is not; read as text/turtle"
        )),
        "{stderr}"
    );

    let server = LdwarcServer::start(&root, &[]);
    let answer = server.get_with(
        &format!("/web/{STAMP}/{URL}"),
        &[("Accept", "application/n-triples")],
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.text().lines().count(), 2, "{}", answer.text());
    assert_eq!(
        answer.header("x-ldwarc-rdf-warning"),
        Some("declared application/n-triples but is not; read as text/turtle")
    );
    assert!(answer.header("x-ldwarc-rdf-error").is_none());
}

#[test]
fn a_large_file_is_read_whole_and_an_error_names_its_line_in_the_whole_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Over 1 MiB, so that the file is parsed in pieces; blank nodes recur all over it.
    let lines: Vec<String> = (0..40_000)
        .map(|i| format!("_:x{} <http://example/p{}> \"{i}\" .\n", i % 100, i % 7))
        .collect();
    let text = lines.concat();
    assert!(text.len() > 1 << 20);
    let big = dir.path().join("big.nt");
    std::fs::write(&big, &text).unwrap();
    // Labels by first appearance: x0 … x99 appear in that order.
    assert_eq!(
        stdout_ok(&parse(&big, &[]), "big.nt"),
        text.replace("_:x", "_:b")
    );

    let mut broken_lines = lines;
    broken_lines.insert(
        30_000,
        "<http://example/s> <http://example/p> 1 .\n".to_string(),
    );
    let broken = dir.path().join("broken.nt");
    std::fs::write(&broken, broken_lines.concat()).unwrap();
    let output = parse(&broken, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "printed a graph");
    assert!(
        stderr.contains("broken.nt: not valid N-Triples: ")
            && stderr.contains("at line 30001, column 39"),
        "{stderr}"
    );
}
