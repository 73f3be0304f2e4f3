//! Headless Chromium (Debian `chromium`, started by the test; a missing browser fails the
//! test, it never skips) loads the timeline and the diff page of a URL with three captures
//! (the `ldwarc demo` archive: crawled three times, its graph changed once) from `ldwarc
//! serve`, and the test asserts what the rendered DOM shows. A second test drives Chromium
//! through the DevTools protocol (`tests/support/cdp_page.js`, Node's WebSocket) over every
//! page of the generated archive of `serve_charts`: no console message at all (a script
//! error, a CSP violation, a failed load), no horizontal scrolling on a phone-sized screen,
//! the charts' points as the archive dictates, and the SPARQL form filled in and submitted
//! with its button. Screenshots are kept under `target/serve-artefacts/` as test artefacts.

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

/// What Chromium showed of one page ([`cdp_page`]).
struct Shown {
    console: Vec<String>,
    /// Where the focus went at each Tab (`tag where href`), when Tabs were asked for.
    focus: Vec<String>,
    phone_width: u32,
    html: String,
}

/// Loads `url` in Chromium through the DevTools protocol (optionally filling in and
/// submitting the SPARQL form with `submit`'s query and date), screenshots it as
/// `artefacts/page-NAME.png`, and reports its console messages, phone width and DOM.
fn cdp_page(profile: &Path, name: &str, url: &str, submit: Option<(&str, &str)>) -> Shown {
    cdp_page_tabbed(profile, name, url, submit, 0)
}

/// [`cdp_page`], then the Tab key pressed `tabs` times.
fn cdp_page_tabbed(
    profile: &Path,
    name: &str,
    url: &str,
    submit: Option<(&str, &str)>,
    tabs: usize,
) -> Shown {
    // Named apart from the screenshots of the test above (the two run at once).
    let shot = artefacts().join(format!("page-{name}.png"));
    // A screenshot left by an earlier run must not pass for this one.
    let _ = std::fs::remove_file(&shot);
    // A profile of its own: the previous page's browser may still be closing.
    let profile = profile.join(name);
    std::fs::create_dir_all(&profile).expect("profile directory");
    let mut command = Command::new("node");
    command
        .env("CDP_TABS", tabs.to_string())
        .arg("--experimental-websocket")
        .arg(manifest_dir().join("tests/support/cdp_page.js"))
        .arg(chromium())
        .arg(&profile)
        .arg(url)
        .arg(&shot);
    if let Some((query, at)) = submit {
        command.arg(query).arg(at);
    }
    let output = run(&mut command);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name}: {url}: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "{}",
        shot.display()
    );
    let (report, html) = stdout.split_once("HTML\n").expect("a DOM");
    let console = report
        .lines()
        .filter_map(|l| l.strip_prefix("CONSOLE "))
        .map(String::from)
        .collect();
    let focus = report
        .lines()
        .filter_map(|l| l.strip_prefix("FOCUS "))
        .map(String::from)
        .collect();
    let phone_width = report
        .lines()
        .find_map(|l| l.strip_prefix("PHONE-WIDTH "))
        .and_then(|w| w.trim().parse().ok())
        .expect("a phone width");
    Shown {
        console,
        focus,
        phone_width,
        html: html.to_string(),
    }
}

#[test]
fn chromium_renders_every_page_cleanly_and_submits_the_sparql_form() {
    use crate::serve_charts::{A, chart_archive, element, overview_with_charts};
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    chart_archive(&root);
    let server = LdwarcServer::start(&root, &["--request-timeout", "20s"]);
    let base = format!("http://127.0.0.1:{}", server.port);
    let profile = dir.path().join("profile");
    // The overview's charts are computed off the request: wait until they are there.
    overview_with_charts(&server);

    // The detector sees console messages (else a clean page would prove nothing).
    let canary = cdp_page(
        &profile,
        "canary",
        "data:text/html,<title>t</title><script>console.error('canary')</script>",
        None,
    );
    assert!(
        canary.console.iter().any(|m| m.contains("canary")),
        "{:?}",
        canary.console
    );

    let a = encode(A);
    let pages = [
        ("home", "/".to_string(), "Archive"),
        ("search", format!("/search?url={a}"), "Search"),
        ("timeline", format!("/timeline?url={a}"), "Timeline"),
        ("calendar", format!("/calendar?url={a}"), "Calendar"),
        (
            "calendar-day",
            format!("/calendar?url={a}&day=20240123"),
            "Captures of a day",
        ),
        (
            "capture",
            format!("/capture?url={a}&ts=20240109000001"),
            "Capture",
        ),
        (
            "diff",
            format!("/diff?url={a}&from=20240102000001&to=20240109000001"),
            "Diff",
        ),
        ("overview", "/overview".to_string(), "Overview"),
        (
            "pld",
            "/pld?name=alpha.example".to_string(),
            "Pay-level domain alpha.example",
        ),
        (
            "dataset",
            "/dataset?at=20240109000003".to_string(),
            "Dataset at a date",
        ),
        ("sparql", "/sparql".to_string(), "SPARQL"),
    ];
    for (name, path, title) in &pages {
        let shown = cdp_page(&profile, name, &format!("{base}{path}"), None);
        assert!(shown.console.is_empty(), "{name}: {:?}", shown.console);
        assert!(
            shown.html.contains(&format!("<h1>{title}</h1>")),
            "{name}: {}",
            shown.html
        );
        assert!(
            shown.phone_width <= 390,
            "{name} scrolls sideways on a phone: {} px",
            shown.phone_width
        );
        match *name {
            "timeline" => {
                let chart = element(&shown.html, "statements-chart", "</svg>");
                assert_eq!(chart.matches("<circle class=\"point").count(), 6, "{chart}");
                assert_eq!(
                    chart.matches("class=\"point changed\"").count(),
                    2,
                    "{chart}"
                );
            }
            "overview" => {
                for id in ["weeks-0", "weeks-1"] {
                    let chart = element(&shown.html, id, "</svg>");
                    assert_eq!(
                        chart.matches("class=\"bar captures\"").count(),
                        4,
                        "{chart}"
                    );
                    assert_eq!(chart.matches("class=\"bar changes\"").count(), 2, "{chart}");
                }
                assert!(shown.html.contains("id=\"rates-chart\""), "{}", shown.html);
            }
            "pld" => {
                let chart = element(&shown.html, "pld-rates-chart", "</svg>");
                assert_eq!(chart.matches("<circle class=\"point").count(), 2, "{chart}");
            }
            "calendar" => {
                assert_eq!(shown.html.matches("<td class=\"captured\">").count(), 5);
            }
            _ => {}
        }
    }

    // The keyboard reaches the timeline chart's points: Tab from the top of the page passes
    // the navigation and the summary's links, then each point of the chart in turn.
    let shown = cdp_page_tabbed(
        &profile,
        "timeline-keyboard",
        &format!("{base}/timeline?url={a}"),
        None,
        12,
    );
    let points: Vec<&String> = shown
        .focus
        .iter()
        .filter(|f| f.starts_with("a in-chart "))
        .collect();
    assert_eq!(points.len(), 6, "{:?}", shown.focus);
    assert!(
        points[2].contains("/diff?url="),
        "the third point is the first change: {:?}",
        shown.focus
    );

    // The form, filled in and submitted with its button, shows the results at that date.
    let query = "SELECT ?s ?o WHERE { ?s <http://alpha.example/ns#version> ?o } ORDER BY ?o";
    let shown = cdp_page(
        &profile,
        "sparql-results",
        &format!("{base}/sparql"),
        Some((query, "2024-01-10")),
    );
    assert!(shown.console.is_empty(), "{:?}", shown.console);
    let table = element(&shown.html, "sparql-results", "</table>");
    assert_eq!(table.matches("<tr>").count(), 3, "{table}");
    assert!(
        table.contains(&format!("<a href=\"/web/20240110235959/{A}\">{A}#it</a>")),
        "{table}"
    );
    assert!(table.contains("\"c2\""), "{table}");
}
