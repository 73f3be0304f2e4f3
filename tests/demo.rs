//! `ldwarc demo`: the README's first command works without network, crawls three epochs into a
//! valid archive, and shows a history with changes, a replayed graph and a diff.

use std::path::Path;

use crate::common;

use common::{assert_warcs_valid, ldwarc, run, stdout_ok};
use ldwarc_archive::archive::walk_warc_files;

#[test]
fn demo_crawls_three_epochs_and_shows_history_replay_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    // A space in the path: the commands printed must quote it to run as printed.
    let target = dir.path().join("my tour");
    let output = run(ldwarc().arg("demo").arg(&target));
    let text = stdout_ok(&output, "ldwarc demo");
    for crawl in ["crawl 1:", "crawl 2:", "crawl 3:"] {
        assert!(text.contains(crawl), "{text}");
    }
    let history: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("$ ldwarc history"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(history.len(), 3, "one capture per crawl: {text}");
    assert!(history[0].ends_with("first"), "{history:?}");
    assert!(
        history[1].ends_with("changed") && history[2].ends_with("changed"),
        "{history:?}"
    );
    // The first crawl's Alice, in Turtle.
    assert!(text.contains("\"Alice\""), "{text}");
    // Alice's name changed and she came to know Dave; her blank node did not move.
    assert!(text.contains("D <http://people.delta.example/alice#me> <http://vocab.delta.example/ns#name> \"Alice\" ."), "{text}");
    assert!(text.contains("A <http://people.delta.example/alice#me> <http://vocab.delta.example/ns#knows> <http://people.delta.example/dave#me> ."), "{text}");
    let patch: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("$ ldwarc diff --root") || !l.contains(" http"))
        .skip(1)
        .take_while(|l| !l.starts_with('$'))
        .collect();
    assert!(patch.iter().all(|l| !l.contains("Chess club")), "{patch:?}");
    assert!(text.contains("changed   +"), "{text}");
    assert!(
        text.contains("ldwarc serve") || text.contains("Go on with"),
        "{text}"
    );

    // Every command it shows runs as printed, from anywhere.
    let commands: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("$ ")
                .or_else(|| l.strip_prefix("  ldwarc ").map(|_| l.trim()))
        })
        .map(|l| l.split("    (").next().unwrap())
        .collect();
    assert_eq!(commands.len(), 8, "{text}");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_ldwarc")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let elsewhere = tempfile::tempdir().unwrap();
    for command in commands {
        let output = run(std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .env("PATH", &path)
            .env_remove("LDWARC_ROOT")
            .current_dir(elsewhere.path()));
        assert_eq!(
            output.status.code(),
            Some(0),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!output.stdout.is_empty(), "{command}");
    }

    let files = walk_warc_files(&target.join("warc")).unwrap();
    assert!(!files.is_empty());
    assert_warcs_valid(&files);

    // A second run replaces its own earlier archive, and refuses any other non-empty directory.
    let again = run(ldwarc().arg("demo").arg(&target));
    stdout_ok(&again, "ldwarc demo, again");
    assert_eq!(
        history_len(&target),
        3,
        "the earlier archive was replaced, not added to"
    );
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let refused = run(ldwarc().arg("demo").arg(&other));
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not empty"));
    assert_eq!(
        std::fs::read_to_string(other.join("notes.txt")).unwrap(),
        "mine"
    );
}

fn history_len(root: &std::path::Path) -> usize {
    let output = run(ldwarc()
        .args(["history", "--root"])
        .arg(root)
        .arg("http://people.delta.example/alice"));
    // Less the header row.
    stdout_ok(&output, "ldwarc history").lines().count() - 1
}
