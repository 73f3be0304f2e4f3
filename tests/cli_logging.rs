//! Every message goes through the log: with `--log-format json` every line a command writes on
//! stderr is a JSON object (the error that ends a command too), and with `-q` a command that
//! succeeds writes nothing there; its data stays on stdout either way.

use std::path::Path;
use std::process::Output;

use crate::common::{ldwarc, run};
use crate::warc_fixture::{Exchange, write_archive};
use ldwarc_testweb::{TestWebServer, Web};

const DOC: &str = "http://logging.example/doc";

fn archive(root: &Path) {
    write_archive(
        root,
        &[
            Exchange::ok(
                DOC,
                "2024-01-01T00:00:00Z",
                "text/turtle",
                b"<http://logging.example/doc#it> <http://logging.example/v> \"old\" .\n",
            ),
            Exchange::ok(
                DOC,
                "2024-06-01T00:00:00Z",
                "text/turtle",
                b"<http://logging.example/doc#it> <http://logging.example/v> \"new\" .\n",
            ),
        ],
    );
    // The triple index too, as a plain `index` leaves it: each command's data is then the
    // same run after run (an `index` that adds versions says so).
    crate::common::stdout_ok(
        &crate::common::run(crate::common::ldwarc().args(["index", "--root"]).arg(root)),
        "ldwarc index",
    );
}

/// The commands run against the archive at `root`, each printing data on stdout (dated in
/// the future rather than `now`, whose second the output would show, so runs compare).
fn commands(root: &Path) -> Vec<Vec<String>> {
    let root = root.display().to_string();
    let with_root = |args: &[&str]| {
        let mut full: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        full.extend(["--root".to_string(), root.clone()]);
        full
    };
    vec![
        with_root(&["replay", &format!("{DOC}@2024-03")]),
        with_root(&["snapshot", "@2030"]),
        with_root(&["history", DOC]),
        with_root(&["query", DOC]),
        with_root(&["cdx"]),
        with_root(&["check"]),
        with_root(&["ls"]),
        with_root(&["index"]),
        with_root(&["diff", &format!("{DOC}@2024-03"), "2030"]),
        with_root(&["diff", "@2024-03", "@2030"]),
        with_root(&["sparql", "@2030", "SELECT * WHERE { ?s ?p ?o }"]),
        with_root(&["stats"]),
    ]
}

fn run_with(global: &[&str], args: &[String]) -> Output {
    run(ldwarc().env_remove("RUST_LOG").args(global).args(args))
}

fn assert_json_lines(stderr: &str, what: &str) -> Vec<serde_json::Value> {
    stderr
        .lines()
        .map(|line| {
            let event: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: not a JSON line: {line:?}: {e}"));
            assert!(event["message"].is_string(), "{what}: {line}");
            assert!(event["level"].is_string(), "{what}: {line}");
            event
        })
        .collect()
}

#[test]
fn json_and_quiet_hold_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    for args in commands(dir.path()) {
        let what = args.join(" ");
        let plain = run_with(&[], &args);
        assert!(plain.status.success(), "{what}: {plain:?}");
        let json = run_with(&["--log-format", "json"], &args);
        assert!(json.status.success(), "{what}: {json:?}");
        assert_json_lines(&String::from_utf8_lossy(&json.stderr), &what);
        // The data is the same whatever the log looks like (`check` and `ls` print their
        // report there; stats and the rest their data).
        assert_eq!(plain.stdout, json.stdout, "{what}");
        let quiet = run_with(&["-q"], &args);
        assert!(quiet.status.success(), "{what}: {quiet:?}");
        assert_eq!(
            String::from_utf8_lossy(&quiet.stderr),
            "",
            "{what}: -q wrote on stderr"
        );
    }
}

#[test]
fn a_crawl_logs_only_json_and_nothing_when_quiet() {
    let web = Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web).unwrap();
    for (global, json) in [
        (&["--log-format", "json", "-v"][..], true),
        (&["-q"][..], false),
    ] {
        let root = tempfile::tempdir().unwrap();
        let output = run(ldwarc()
            .env_remove("RUST_LOG")
            .args(global)
            .arg("crawl")
            .arg("--root")
            .arg(root.path())
            .args(["--delay", "0s", "--hops", "1", "--timeout", "10s"])
            .args(crate::common::loopback_resolve(server.port()))
            .args(&seeds));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{global:?}: {stderr}");
        if json {
            let events = assert_json_lines(&stderr, "crawl");
            // The summary, written on stderr in text, is a JSON event here.
            assert!(
                events.iter().any(|e| e["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("crawl 1 done in"))),
                "{stderr}"
            );
        } else {
            assert_eq!(stderr, "", "crawl -q wrote on stderr");
        }
    }
}

#[test]
fn the_error_that_ends_a_command_is_a_json_line_too() {
    let dir = tempfile::tempdir().unwrap();
    archive(dir.path());
    let root = dir.path().display().to_string();
    for (args, message) in [
        (
            vec![
                "replay",
                "--root",
                &root,
                "http://logging.example/doc@15/03/2024",
            ],
            "URL@DATE: \"15/03/2024\" is not a date",
        ),
        (
            vec!["replay", "--root", &root, "--no-such-flag", DOC],
            "unexpected argument '--no-such-flag' found",
        ),
        (
            // A syntax error whose parser's message spans lines.
            vec!["sparql", "--root", &root, "@now", "ASK {"],
            "the query: query syntax error at line 1, column 6: expected one of",
        ),
        (
            vec!["snapshot", "--root", &root, "@now", "--format", "xml"],
            "--format xml: expected nq, nq.gz, trig, json or hdt",
        ),
    ] {
        for global in [
            &["--log-format", "json"][..],
            &["-q", "--log-format=json"][..],
        ] {
            let output = run(ldwarc().env_remove("RUST_LOG").args(global).args(&args));
            assert_eq!(output.status.code(), Some(2), "{args:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            let events = assert_json_lines(&stderr, &args.join(" "));
            assert_eq!(events.len(), 1, "{stderr}");
            assert_eq!(events[0]["level"], "ERROR", "{stderr}");
            assert!(
                events[0]["message"].as_str().unwrap().starts_with(message),
                "{stderr}"
            );
        }
        // In text, the same error is one `ldwarc: error:` line.
        let output = run(ldwarc().env_remove("RUST_LOG").args(&args));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("ldwarc: error: {message}")),
            "{stderr}"
        );
    }
}
