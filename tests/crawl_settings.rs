//! One set of crawl options for `crawl`, `monitor` and `<root>/ldwarc.toml`: a bad key or
//! value in the file stops either command with one line naming the file and the key, the
//! same check refuses the same value as a flag of either command, and a renamed key still
//! works with a deprecation note.

use crate::common;

use std::path::Path;

use common::{ldwarc, run};

/// A root holding only `ldwarc.toml` with this `[crawl]` table.
fn root_with(table: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ldwarc.toml"),
        format!("[crawl]\n{table}\n"),
    )
    .unwrap();
    dir
}

fn entries(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `ldwarc ARGS --root ROOT`; asserts exit status 2, one line on stderr holding every
/// one of `named`, and nothing created under the root.
fn refused(root: &Path, args: &[&str], named: &[&str]) {
    let before = entries(root);
    let output = run(ldwarc().args(args).arg("--root").arg(root));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    for name in named {
        assert!(stderr.contains(name), "{args:?}: {name} not in {stderr}");
    }
    assert_eq!(entries(root), before, "{args:?} created files");
}

#[test]
fn a_bad_key_or_value_in_the_file_stops_crawl_and_monitor() {
    let unknown = root_with("hops = 1\nhopz = 2");
    for command in ["crawl", "monitor"] {
        refused(
            unknown.path(),
            &[command, "http://a.example/"],
            &["ldwarc.toml", "hopz", "unknown key"],
        );
    }
    for (table, key, why) in [
        ("concurrency = 0", "concurrency", "must be at least 1"),
        ("gzip-level = 10", "gzip-level", "must be 0 to 9"),
        ("max-body = \"12XB\"", "max-body", "unknown size unit"),
        ("delay = \"400d\"", "delay", "365 days"),
        ("max-plds = 0", "max-plds", "must be at least 1"),
    ] {
        let root = root_with(table);
        for command in ["crawl", "monitor"] {
            refused(
                root.path(),
                &[command, "http://a.example/"],
                &["ldwarc.toml", key, why],
            );
        }
    }
}

#[test]
fn crawl_and_monitor_refuse_the_same_flag_values() {
    let root = tempfile::tempdir().unwrap();
    for command in ["crawl", "monitor"] {
        for (flag, value, why) in [
            ("--concurrency", "0", "must be at least 1"),
            ("--gzip-level", "10", "must be 0 to 9"),
            ("--max-file-bytes", "99999999TiB", "too large"),
            ("--connect-timeout", "2y", "unknown unit"),
            ("--node", "a b", "node name"),
        ] {
            refused(
                root.path(),
                &[command, flag, value, "http://a.example/"],
                &[flag, why],
            );
        }
    }
}

#[test]
fn a_renamed_key_still_works_with_a_note() {
    // `conditional = false` is now `no-conditional = true`; the crawl then stops at its
    // first real check (a join without a shared store), before it creates anything.
    let root = root_with("conditional = false");
    let output = run(ldwarc()
        .args(["crawl", "--join", "http://a.example/", "--root"])
        .arg(root.path()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("deprecated")
            && stderr.contains("the key conditional is now no-conditional"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--join and --crawl-id need --state"),
        "{stderr}"
    );
}

#[test]
fn a_bare_number_of_seconds_still_works_with_a_note_in_both_commands() {
    let root = tempfile::tempdir().unwrap();
    // Each run stops at a check made after the flags were read: the note comes first.
    for (args, error) in [
        (
            vec!["crawl", "--delay", "3", "--join", "http://a.example/"],
            "--join and --crawl-id need --state",
        ),
        (
            vec![
                "monitor",
                "--delay",
                "3",
                "--lease-ttl",
                "4s",
                "--state",
                "postgres://nobody@127.0.0.1:9/none",
                "http://a.example/",
            ],
            "--lease-ttl 4.0 s must be at least 1.5 × --delay",
        ),
    ] {
        let output = run(ldwarc().args(&args).arg("--root").arg(root.path()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("deprecated: a duration without a unit ('3') is read as seconds"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(error), "{args:?}: {stderr}");
    }
}
