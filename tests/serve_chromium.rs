//! Headless Chromium (Debian `chromium`, started by the test; a missing browser fails the
//! test, it never skips) loads the timeline and the diff page of a URL with three captures
//! (the `ldwarc demo` archive: crawled three times, its graph changed once) from `ldwarc
//! serve`, and the test asserts what the rendered DOM shows. Screenshots are kept under
//! `target/serve-artefacts/` as test artefacts.

use crate::common;
use crate::serve_server;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{ldwarc, manifest_dir, run, stdout_ok};
use serve_server::LdwarcServer;

const URL: &str = "http://beta.example/datasets/d1";

/// The Chromium binary; panics when it is not installed.
fn chromium() -> PathBuf {
    for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(candidate).exists() {
            return PathBuf::from(candidate);
        }
    }
    panic!("chromium is missing: install the Debian package `chromium` (see .ci/run)");
}

/// Runs headless Chromium on `url` with `mode` (`--dump-dom` or `--screenshot=…`).
fn chromium_run(profile: &Path, mode: &str, url: &str) -> String {
    let output = run(Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--window-size=1280,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(mode)
        .arg(url));
    assert!(
        output.status.success(),
        "chromium {mode} {url} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn artefacts() -> PathBuf {
    let dir = manifest_dir().join("target").join("serve-artefacts");
    std::fs::create_dir_all(&dir).expect("artefact directory");
    dir
}

fn encode(text: &str) -> String {
    common::query_encode(text)
}

#[test]
fn chromium_shows_timeline_and_diff() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("demo");
    stdout_ok(&run(ldwarc().arg("demo").arg(&root)), "ldwarc demo");
    let server = LdwarcServer::start(&root, &[]);
    let base = format!("http://127.0.0.1:{}", server.port);
    let profile = dir.path().join("chromium-profile");
    let shots = artefacts();

    // The timeline: three captures, the change marked, a link to its diff.
    let timeline_url = format!("{base}/timeline?url={}", encode(URL));
    let dom = chromium_run(&profile, "--dump-dom", &timeline_url);
    assert!(dom.contains("<h1>Timeline</h1>"), "{dom}");
    assert!(dom.contains("3 captures, 1 graph changes"), "{dom}");
    assert_eq!(
        dom.matches("<tr class=\"").count(),
        3,
        "three capture rows: {dom}"
    );
    assert_eq!(dom.matches("<tr class=\"changed\">").count(), 1, "{dom}");
    assert_eq!(dom.matches("class=\"diff\"").count(), 1, "{dom}");
    let shot = shots.join("timeline.png");
    // A screenshot left by an earlier run must not pass for this one.
    let _ = std::fs::remove_file(&shot);
    chromium_run(
        &profile,
        &format!("--screenshot={}", shot.display()),
        &timeline_url,
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "{}",
        shot.display()
    );

    // The diff page the timeline links to.
    let diff_path = dom
        .split("class=\"diff\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a diff link")
        .replace("&amp;", "&");
    let diff_url = format!("{base}{diff_path}");
    let dom = chromium_run(&profile, "--dump-dom", &diff_url);
    assert!(dom.contains("<h1>Diff</h1>"), "{dom}");
    let added = dom.matches("<tr class=\"added\">").count();
    let removed = dom.matches("<tr class=\"removed\">").count();
    assert!(added >= 1, "the change added statements: {dom}");
    assert!(
        dom.contains(&format!("{added} added")) && dom.contains(&format!("{removed} removed")),
        "{dom}"
    );
    assert!(
        dom.contains("vocab.delta.example/ns#version"),
        "the version statement changed: {dom}"
    );
    let shot = shots.join("diff.png");
    // A screenshot left by an earlier run must not pass for this one.
    let _ = std::fs::remove_file(&shot);
    chromium_run(
        &profile,
        &format!("--screenshot={}", shot.display()),
        &diff_url,
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "{}",
        shot.display()
    );
}
