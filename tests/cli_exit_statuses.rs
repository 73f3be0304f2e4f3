//! Every failure status a command's help documents (its EXIT STATUS section, which the man
//! pages carry too) is what the command exits with in a case that calls for it: one case per
//! documented status and command, and no case exits with a status its help does not list.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::{ldwarc, run};
use crate::warc_fixture::{Exchange, write_archive};

/// The subcommands `ldwarc --help` lists (`help` aside), with `plan`'s own.
fn commands() -> Vec<String> {
    let help = run(ldwarc().arg("--help"));
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let mut names: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help" && *name != "plan")
        .map(str::to_string)
        .collect();
    names.extend(["plan currency".to_string(), "plan crawl-time".to_string()]);
    names
}

/// The non-zero statuses the help of `command` documents.
fn documented_failures(command: &str) -> BTreeSet<i32> {
    let help = run(ldwarc().args(command.split(' ')).arg("--help"));
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let statuses: BTreeSet<i32> = text
        .lines()
        .skip_while(|l| *l != "EXIT STATUS:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .filter(|&code| code != 0)
        .collect();
    assert!(!statuses.is_empty(), "{command}: no EXIT STATUS in\n{text}");
    statuses
}

const DOC: &str = "http://status.example/doc";
const PARTIAL: &str = "http://status.example/partial";

/// The files the cases read, under `dir`.
fn fixtures(dir: &Path) {
    // An archive with a document, one whose Turtle breaks off halfway (a partial graph) and
    // one that is no RDF at all (left out of a dataset: a document that could not be parsed).
    write_archive(
        &dir.join("good"),
        &[
            Exchange::ok(
                DOC,
                "2024-01-01T00:00:00Z",
                "text/turtle",
                b"<http://status.example/doc#it> <http://status.example/v> \"one\" .\n",
            ),
            Exchange::ok(
                PARTIAL,
                "2024-01-01T00:00:00Z",
                "text/turtle",
                b"<http://status.example/p#it> <http://status.example/v> \"one\" .\n\
                  <http://status.example/p#it> <http://status.example/v> \"two\" ;;;; broken\n",
            ),
            Exchange::ok(
                "http://status.example/broken",
                "2024-01-01T00:00:00Z",
                "text/turtle",
                b"@@@@ not Turtle at all\n",
            ),
        ],
    );
    // The same archive, its WARC file cut after indexing: the captures cannot be read.
    write_archive(
        &dir.join("cut"),
        &[Exchange::ok(
            DOC,
            "2024-01-01T00:00:00Z",
            "text/turtle",
            b"<http://status.example/doc#it> <http://status.example/v> \"one\" .\n",
        )],
    );
    let warc = dir.join("cut/warc/fixture.warc");
    let bytes = std::fs::read(&warc).unwrap();
    std::fs::write(&warc, &bytes[..50]).unwrap();
    // A WARC file whose only record ends before its declared length.
    let truncated = b"WARC/1.1\r\nWARC-Type: resource\r\n\
        WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n\
        WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Length: 100\r\n\r\nabc";
    std::fs::write(dir.join("truncated.warc"), truncated).unwrap();
    std::fs::create_dir_all(dir.join("damaged/warc")).unwrap();
    std::fs::write(dir.join("damaged/warc/truncated.warc"), truncated).unwrap();
    std::fs::create_dir_all(dir.join("not-archive")).unwrap();
    std::fs::create_dir_all(dir.join("full")).unwrap();
    std::fs::write(dir.join("full/notes.txt"), "mine").unwrap();
    std::fs::write(
        dir.join("old.nt"),
        "<http://a.example/s> <http://a.example/p> \"1\" .\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("new.nt"),
        "<http://a.example/s> <http://a.example/p> \"2\" .\n",
    )
    .unwrap();
    std::fs::write(dir.join("not.wacz"), "not a zip").unwrap();
}

#[test]
fn every_documented_failure_status_is_what_the_command_exits_with() {
    let dir = tempfile::tempdir().unwrap();
    fixtures(dir.path());
    let closed_seed = format!("http://127.0.0.1:{}/", crate::common::free_port());
    let partial_at = format!("{PARTIAL}@2024");
    // (command, status, arguments after the command), run in `dir`.
    let cases: Vec<(&str, i32, Vec<&str>)> = vec![
        ("check", 1, vec!["truncated.warc"]),
        ("check", 2, vec!["missing.warc"]),
        ("ls", 1, vec!["truncated.warc"]),
        ("ls", 2, vec!["missing.warc"]),
        ("extract", 2, vec!["missing.warc", "0"]),
        ("index", 1, vec!["--root", "damaged"]),
        ("index", 2, vec!["--root", "not-archive"]),
        ("cdx", 2, vec!["--root", "not-archive"]),
        (
            "query",
            2,
            vec![DOC, "--from", "15/03/2024", "--root", "good"],
        ),
        ("crawl", 1, vec!["--root", "crawled", &closed_seed]),
        ("crawl", 2, vec!["--root", "never", "example.org"]),
        ("replay", 1, vec![&partial_at, "--root", "good"]),
        (
            "replay",
            2,
            vec!["http://status.example/doc@15/03/2024", "--root", "good"],
        ),
        ("history", 1, vec![PARTIAL, "--root", "good"]),
        ("history", 2, vec![DOC, "--root", "not-archive"]),
        ("snapshot", 1, vec!["@now", "--root", "good"]),
        ("snapshot", 2, vec!["@15/03/2024", "--root", "good"]),
        ("diff", 1, vec!["--exit-code", "old.nt", "new.nt"]),
        ("diff", 2, vec!["@15/03/2024", "@now", "--root", "good"]),
        ("when", 2, vec!["?s ?p", "--root", "good"]),
        ("sparql", 1, vec!["@now", "ASK {}", "--root", "good"]),
        ("sparql", 2, vec!["@now", "SELECT {", "--root", "good"]),
        ("parse", 2, vec!["missing.ttl"]),
        ("demo", 2, vec!["full"]),
        ("describe", 1, vec!["--root", "good"]),
        ("describe", 2, vec!["--root", "not-archive"]),
        ("stats", 1, vec!["--root", "cut"]),
        ("stats", 2, vec!["--root", "not-archive"]),
        ("simulate", 2, vec!["--histories", "missing.jsonl"]),
        (
            "monitor",
            2,
            vec!["--root", "never", "--once", "example.org"],
        ),
        (
            "serve",
            2,
            vec!["--root", "good", "--bind", "nonsense:99999"],
        ),
        ("recover", 2, vec!["--root", "missing"]),
        ("plan currency", 2, vec!["--alpha", "2"]),
        ("plan crawl-time", 2, vec!["--nodes", "0"]),
        (
            "export",
            2,
            vec!["--wacz", "out.wacz", "--root", "not-archive"],
        ),
        ("import", 2, vec!["not.wacz", "--root", "good"]),
    ];
    let mut covered: BTreeMap<&str, BTreeSet<i32>> = BTreeMap::new();
    for (command, status, args) in &cases {
        let output = run(ldwarc()
            .current_dir(dir.path())
            .env_remove("LDWARC_ROOT")
            .env_remove("RUST_LOG")
            .args(command.split(' '))
            .args(args));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(*status),
            "ldwarc {command} {args:?}: {stderr}"
        );
        if *status == 2 {
            assert!(
                stderr
                    .lines()
                    .last()
                    .is_some_and(|l| l.starts_with("ldwarc: error: ")),
                "ldwarc {command} {args:?}: {stderr}"
            );
        }
        covered.entry(command).or_default().insert(*status);
    }
    for command in commands() {
        let documented = documented_failures(&command);
        let tried = covered.get(command.as_str()).cloned().unwrap_or_default();
        assert_eq!(
            tried, documented,
            "ldwarc {command}: the statuses its help documents and those tried differ"
        );
    }
    // Refusals created nothing.
    assert!(!dir.path().join("never").exists());
    assert!(!dir.path().join("not-archive/index").exists());
}
