//! A parser that panics on one document fails that document only: every command over the
//! archive reports it (with the URL and "parser panicked"), goes on with the others and
//! exits 1, never 101. The panic is injected (debug builds only) by
//! `LDWARC_TEST_PARSER_PANIC`: a parser panics on a document holding those bytes.

use std::process::{Command, Output};

use crate::common::{ldwarc, run};
use crate::warc_fixture::{Exchange, write_archive};

const MARKER: &str = "PANIC-IN-THE-PARSER";
const GOOD: &str = "http://data.example/good";
const BAD: &str = "http://data.example/bad";
const LATER: &str = "http://data.example/later";

fn with_panic(command: &mut Command) -> Output {
    run(command.env("LDWARC_TEST_PARSER_PANIC", MARKER))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_parser_panic_fails_one_document_and_every_command_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let document = |version: u32, extra: &str| {
        format!("{extra}<#x> <http://ex.org/version> \"{version}\" .\n").into_bytes()
    };
    let mut exchanges = Vec::new();
    for (day, bad) in [(1, ""), (2, &format!("# {MARKER}\n")[..])] {
        let date = format!("2026-01-0{day}T00:00:00Z");
        for (url, extra) in [(GOOD, ""), (BAD, bad), (LATER, "")] {
            let body = document(day, extra);
            exchanges.push(Exchange::ok(url, &date, "text/turtle", &body));
        }
    }
    write_archive(root, &exchanges);
    let root_arg =
        |command: &mut Command| -> Output { with_panic(command.arg("--root").arg(root)) };

    let snapshot = root_arg(ldwarc().args(["snapshot", "@20260102"]));
    let (stdout, stderr) = (text(&snapshot.stdout), text(&snapshot.stderr));
    assert_eq!(snapshot.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(BAD) && stderr.contains("text/turtle parser panicked"),
        "{stderr}"
    );
    assert!(!stderr.contains("RUST_BACKTRACE"), "{stderr}");
    for url in [GOOD, LATER] {
        assert!(
            stdout.contains(&format!(
                "<{url}#x> <http://ex.org/version> \"2\" <{url}> ."
            )),
            "{url}: {stdout}"
        );
    }
    assert!(!stdout.contains(BAD), "{stdout}");

    let diff = root_arg(ldwarc().args(["diff", "@20260101", "@20260102"]));
    let stdout = text(&diff.stdout);
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff.stderr));
    assert!(stdout.contains("1 failed documents"), "{stdout}");
    assert!(stdout.contains("2 changed"), "{stdout}");

    let history = root_arg(ldwarc().args(["history", BAD]));
    let stderr = text(&history.stderr);
    assert_eq!(history.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("parser panicked"), "{stderr}");

    let stats = root_arg(ldwarc().args(["stats", "--format", "json"]));
    assert_eq!(stats.status.code(), Some(1), "{}", text(&stats.stderr));
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(report["summary"]["failed"], 1, "{report}");
    assert!(
        report["failures"][0]
            .as_str()
            .is_some_and(|failure| failure.contains(BAD) && failure.contains("panicked")),
        "{report}"
    );

    // One document asked for: reported as that document's error, as a document that does not
    // parse is.
    let replay = root_arg(ldwarc().args(["replay", &format!("{BAD}@20260102")]));
    let stderr = text(&replay.stderr);
    assert!(
        stderr.contains(BAD) && stderr.contains("text/turtle parser panicked"),
        "{stderr}"
    );
    assert_eq!(replay.status.code(), Some(2), "{stderr}");
    let replay = root_arg(ldwarc().args(["replay", &format!("{GOOD}@20260102")]));
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay.stderr));
}

#[test]
fn parse_reports_the_file_whose_parser_panicked() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.ttl");
    std::fs::write(&file, format!("# {MARKER}\n<s> <p> <o> .\n")).unwrap();
    let output = with_panic(ldwarc().arg("parse").arg(&file));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.ttl") && stderr.contains("text/turtle parser panicked"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
