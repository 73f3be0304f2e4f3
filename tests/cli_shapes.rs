//! Output shapes shared across commands: a field has one JSON type wherever it appears
//! (`status`, `offset`, `length` numbers; `timestamp`, `digest`, `url`, `filename` strings),
//! tables have a header row, and counts of one are singular.

use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};
use crate::warc_fixture::{Exchange, write_archive};

const DOC: &str = "http://shapes.example/doc";

fn archive(root: &Path) {
    write_archive(
        root,
        &[Exchange::ok(
            DOC,
            "2024-01-01T00:00:00Z",
            "text/turtle",
            b"<http://shapes.example/doc#it> <http://shapes.example/v> \"one\" .\n",
        )],
    );
}

fn out(root: &Path, args: &[&str]) -> String {
    stdout_ok(
        &run(ldwarc().args(args).arg("--root").arg(root)),
        &args.join(" "),
    )
}

#[test]
fn shared_fields_have_one_json_type() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let query: serde_json::Value =
        serde_json::from_str(out(dir.path(), &["query", DOC, "--format", "json"]).trim()).unwrap();
    let history: serde_json::Value =
        serde_json::from_str(out(dir.path(), &["history", DOC, "--format", "json"]).trim())
            .unwrap();
    let cdx: serde_json::Value =
        serde_json::from_str(out(dir.path(), &["cdx", "--format", "json"]).trim()).unwrap();
    assert_eq!(query, cdx, "query and cdx give a capture one shape");
    assert_eq!(query["status"], 200, "{query}");
    assert_eq!(history["status"], 200, "{history}");
    assert_eq!(query["offset"], 0, "{query}");
    assert_eq!(query["offset"], history["offset"]);
    assert!(query["length"].is_u64(), "{query}");
    for field in ["timestamp", "digest", "url", "filename"] {
        assert!(query[field].is_string(), "{field}: {query}");
        assert_eq!(query[field], history[field], "{field}");
    }
    assert_eq!(query["timestamp"], "20240101000000");
    // Fields chosen by their pywb aliases keep the types.
    let chosen: serde_json::Value = serde_json::from_str(
        out(
            dir.path(),
            &[
                "query",
                DOC,
                "--format",
                "json",
                "--fields",
                "statuscode,o,url",
            ],
        )
        .trim(),
    )
    .unwrap();
    assert_eq!(
        chosen,
        serde_json::json!({"statuscode": 200, "o": 0, "url": DOC})
    );
}

#[test]
fn history_has_a_header_row_above_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let text = out(dir.path(), &["history", DOC]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "TIMESTAMP",
            "STATUS",
            "TYPE",
            "DIGEST",
            "STATEMENTS",
            "GRAPH",
            "CHANGE"
        ]
    );
    // Each column starts where its heading does.
    let row = lines[1];
    for (heading, value) in [("STATUS", "200"), ("TYPE", "response"), ("CHANGE", "first")] {
        assert_eq!(lines[0].find(heading), row.find(value), "{heading}\n{text}");
    }
}

#[test]
fn counts_of_one_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let sparql = run(ldwarc()
        .args(["sparql", "@now", "ASK { ?s ?p ?o }", "--root"])
        .arg(dir.path()));
    let stderr = String::from_utf8_lossy(&sparql.stderr);
    assert!(
        stderr.ends_with(": 1 document, 1 statement (0 left out); 1 result\n"),
        "{stderr}"
    );
    let snapshot = run(ldwarc()
        .args(["snapshot", "@now", "--root"])
        .arg(dir.path()));
    let stderr = String::from_utf8_lossy(&snapshot.stderr);
    assert!(stderr.contains(": 1 document, 1 statement ("), "{stderr}");

    // A crawl of one seed on a closed port: one request (robots.txt), one round.
    let root = dir.path().join("crawl");
    let crawl = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(&root)
        .arg(format!("http://127.0.0.1:{}/", crate::common::free_port())));
    let stderr = String::from_utf8_lossy(&crawl.stderr);
    let summary = stderr
        .lines()
        .find(|l| l.starts_with("ldwarc: crawl 1 done in"))
        .unwrap_or_else(|| panic!("no summary: {stderr}"));
    assert!(
        summary.contains(" s: 1 request, 0 captures (0 revisits), "),
        "{summary}"
    );
    assert!(summary.ends_with(", 1 round"), "{summary}");
}
