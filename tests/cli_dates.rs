//! One date syntax: every dated command takes `URL@DATE`, `@DATE` or `--at DATE` (as it
//! applies), `now` included, and answers the same for each spelling; a date that cannot be
//! read is one line about that argument, exit 2, whichever command it was given to.

use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};
use crate::warc_fixture::{Exchange, write_archive};

const DOC: &str = "http://dates.example/doc";

/// Two captures of one document: `old` in January 2024, `new` in June 2024.
fn archive(root: &Path) {
    write_archive(
        root,
        &[
            Exchange::ok(
                DOC,
                "2024-01-01T00:00:00Z",
                "text/turtle",
                b"<http://dates.example/doc#it> <http://dates.example/v> \"old\" .\n",
            ),
            Exchange::ok(
                DOC,
                "2024-06-01T00:00:00Z",
                "text/turtle",
                b"<http://dates.example/doc#it> <http://dates.example/v> \"new\" .\n",
            ),
        ],
    );
}

fn out(root: &Path, args: &[&str]) -> String {
    stdout_ok(
        &run(ldwarc().args(args).arg("--root").arg(root)),
        &args.join(" "),
    )
}

#[test]
fn every_spelling_of_a_date_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let root = dir.path();
    let march = format!("{DOC}@2024-03-01");
    let old_graph = "<http://dates.example/doc#it> <http://dates.example/v> \"old\" .\n";
    let new_graph = "<http://dates.example/doc#it> <http://dates.example/v> \"new\" .\n";

    // replay: URL@DATE and --at DATE (with or without @), now the latest.
    assert_eq!(out(root, &["replay", &march]), old_graph);
    assert_eq!(out(root, &["replay", DOC, "--at", "20240301"]), old_graph);
    assert_eq!(out(root, &["replay", DOC, "--at", "@2024-03"]), old_graph);
    assert_eq!(out(root, &["replay", &format!("{DOC}@now")]), new_graph);
    assert_eq!(out(root, &["replay", DOC, "--at", "now"]), new_graph);

    // snapshot: @DATE, DATE and --at DATE.
    let old_quad = "<http://dates.example/doc#it> <http://dates.example/v> \"old\" <http://dates.example/doc> .\n";
    let new_quad = "<http://dates.example/doc#it> <http://dates.example/v> \"new\" <http://dates.example/doc> .\n";
    assert_eq!(out(root, &["snapshot", "@2024-03-01"]), old_quad);
    assert_eq!(out(root, &["snapshot", "2024-03-01"]), old_quad);
    assert_eq!(out(root, &["snapshot", "--at", "2024-03-01"]), old_quad);
    assert_eq!(out(root, &["snapshot", "@now"]), new_quad);
    assert_eq!(out(root, &["snapshot", "--at", "now"]), new_quad);

    // sparql: @DATE before the query, or --at DATE.
    let query = "SELECT ?o WHERE { ?s ?p ?o }";
    let csv = |value: &str| format!("o\r\n{value}\r\n");
    for args in [
        vec!["sparql", "--format", "csv", "@2024-03-01", query],
        vec!["sparql", "--format", "csv", "--at", "2024-03-01", query],
    ] {
        assert_eq!(out(root, &args), csv("old"), "{args:?}");
    }
    assert_eq!(
        out(root, &["sparql", "--format", "csv", "@now", query]),
        csv("new")
    );

    // query: --closest, --from and --to take the same forms.
    let timestamps = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["query", DOC, "--format", "json"];
        full.extend_from_slice(args);
        out(root, &full)
            .lines()
            .map(|line| {
                let capture: serde_json::Value = serde_json::from_str(line).unwrap();
                capture["timestamp"].as_str().unwrap().to_string()
            })
            .collect()
    };
    let (january, june) = ("20240101000000", "20240601000000");
    assert_eq!(timestamps(&["--closest", "2024-02-01"]), [january, june]);
    assert_eq!(timestamps(&["--closest", "@2024-05"]), [june, january]);
    assert_eq!(timestamps(&["--closest", "now"]), [june, january]);
    assert_eq!(timestamps(&["--from", "2024-02", "--to", "now"]), [june]);
    assert_eq!(
        timestamps(&["--from", "@2023", "--to", "@2024-03"]),
        [january]
    );

    // history: --from and --to keep the captures in range.
    let listed = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["history", DOC, "--format", "json"];
        full.extend_from_slice(args);
        out(root, &full)
            .lines()
            .map(|line| {
                let entry: serde_json::Value = serde_json::from_str(line).unwrap();
                format!(
                    "{} {}",
                    entry["timestamp"].as_str().unwrap(),
                    entry["change"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        listed(&["--from", "2024-02"]),
        [format!("{june} changed")],
        "the change is still counted from the capture before"
    );
    assert_eq!(listed(&["--to", "@2024-03"]), [format!("{january} first")]);
    assert_eq!(listed(&["--from", "2023", "--to", "now"]).len(), 2);

    // cdx: --from and --to keep the lines of captures in range, in every format.
    let cdx_times = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["cdx"];
        full.extend_from_slice(args);
        out(root, &full)
            .lines()
            .filter(|line| !line.starts_with(' '))
            .map(|line| line.split(' ').nth(1).unwrap().to_string())
            .collect()
    };
    assert_eq!(cdx_times(&[]), [january, june]);
    assert_eq!(cdx_times(&["--from", "2024-02"]), [june]);
    assert_eq!(
        cdx_times(&["--to", "@2024-05", "--format", "cdx11"]),
        [january]
    );
    assert_eq!(
        cdx_times(&["--from", "20240601000000", "--to", "now"]),
        [june]
    );
    let json = out(root, &["cdx", "--format", "json", "--to", "2024-01"]);
    assert_eq!(json.lines().count(), 1, "{json}");
    assert!(
        json.contains(&format!("\"timestamp\":\"{january}\"")),
        "{json}"
    );

    // diff: URL@DATE with DATE or now; @DATE @now.
    let patch = "TX .\nD <http://dates.example/doc#it> <http://dates.example/v> \"old\" .\n\
                 A <http://dates.example/doc#it> <http://dates.example/v> \"new\" .\nTC .\n";
    assert_eq!(out(root, &["diff", &march, "now"]), patch);
    assert_eq!(out(root, &["diff", &march, "@2024-07"]), patch);
    let dataset = out(root, &["diff", "@2024-03-01", "@now"]);
    assert!(
        dataset.starts_with(&format!("changed   +1 -1  {DOC}\n")),
        "{dataset}"
    );
}

#[test]
fn an_unreadable_date_is_an_error_about_that_argument() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let bad = "15/03/2024";
    let at_url = format!("{DOC}@{bad}");
    let at_bad = format!("@{bad}");
    let at_2024 = format!("{DOC}@2024");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["replay", &at_url], "URL@DATE"),
        (vec!["replay", DOC, "--at", bad], "--at"),
        (vec!["snapshot", &at_bad], "@DATE"),
        (vec!["snapshot", "--at", bad], "--at"),
        (vec!["sparql", &at_bad, "ASK {}"], "@DATE"),
        (vec!["sparql", "--at", bad, "ASK {}"], "--at"),
        (vec!["query", DOC, "--closest", bad], "--closest"),
        (vec!["query", DOC, "--from", bad], "--from"),
        (vec!["query", DOC, "--to", bad], "--to"),
        (vec!["history", DOC, "--from", bad], "--from"),
        (vec!["cdx", "--from", bad], "--from"),
        (vec!["cdx", "--to", bad], "--to"),
        (vec!["history", DOC, "--to", bad], "--to"),
        (vec!["diff", &at_url, "now"], "URL@DATE1"),
        (vec!["diff", &at_2024, bad], "[URL@]DATE2"),
        (vec!["diff", &at_bad, "@now"], "@DATE1"),
        (vec!["diff", "@2024", &at_bad], "@DATE2"),
        (vec!["when", "?s ?p ?o", "--from", bad], "--from"),
        (vec!["export", "--wacz", "out.wacz", "--to", bad], "--to"),
    ];
    for (args, argument) in cases {
        let output = run(ldwarc()
            .args(&args)
            .arg("--root")
            .arg(dir.path())
            .current_dir(dir.path()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "ldwarc: error: {argument}: \"{bad}\" is not a date"
            )),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    assert!(!dir.path().join("out.wacz").exists());
}
