//! robots.txt redirecting to itself: fetched once per crawl, not once per allowed redirect,
//! and the loop counts as no robots.txt (RFC 9309 §2.3.1.2), so the host is crawled; and a
//! far-future `Retry-After` capped by `--max-retry-after`.

use crate::common::{ldwarc, run, stdout_ok};
use ldwarc_testweb::{Doc, Resource, Robots, Term, TestWebServer, Triple, Web};

#[test]
fn a_robots_txt_redirecting_to_itself_is_fetched_once() {
    let mut web = Web::new();
    let doc = Resource::Document(Doc::new(vec![Triple::new(
        Term::iri("http://loop.example/doc"),
        Term::iri("http://www.w3.org/2000/01/rdf-schema#label"),
        Term::iri("http://loop.example/other"),
    )]));
    web.insert("http://loop.example/doc", doc).unwrap();
    web.hosts.get_mut("loop.example").unwrap().robots = Robots::Redirect("/robots.txt".into());
    web.seeds = vec!["http://loop.example/doc".into()];
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0s", "--hops", "0", "--timeout", "5s"])
        .args(crate::common::loopback_resolve(server.port()))
        .arg("http://loop.example/doc"));
    stdout_ok(&output, "ldwarc crawl");
    let requests = server.requests();
    let robots = requests
        .iter()
        .filter(|r| r.host == "loop.example" && r.path == "/robots.txt")
        .count();
    assert_eq!(robots, 1, "robots.txt requests: {requests:?}");
    assert!(
        requests
            .iter()
            .any(|r| r.host == "loop.example" && r.path == "/doc"),
        "the document was fetched: {requests:?}"
    );
}

/// A `Retry-After` ten years ahead waits `--max-retry-after`, not ten years (nor the default
/// hour): the URL is retried and the crawl ends.
#[test]
fn a_far_future_retry_after_is_capped_by_max_retry_after() {
    use ldwarc_state::StateStore;
    use ldwarc_testweb::Hostile;
    use std::time::{Duration, Instant};

    let mut web = Web::new();
    let busy = "http://busy.example/x";
    let retry_after_secs = 10 * 365 * 86_400;
    web.insert(
        busy,
        Resource::Hostile(Hostile::TooManyRequests { retry_after_secs }),
    )
    .unwrap();
    web.seeds = vec![busy.into()];
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0s", "--hops", "0", "--timeout", "5s"])
        .args(["--max-retry-after", "1s"])
        .args(crate::common::loopback_resolve(server.port()))
        .arg(busy)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start ldwarc crawl");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the crawl still waits after 120 s: Retry-After was not capped");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{status:?}");
    let log = StateStore::open_read_only(&root.path().join("state"))
        .unwrap()
        .fetch_log(None)
        .unwrap();
    let statuses: Vec<Option<u16>> = log
        .iter()
        .filter(|e| e.url == busy)
        .map(|e| e.status)
        .collect();
    assert_eq!(statuses, vec![Some(429), Some(200)], "429, then the retry");
}

/// The longest monitor period the command line accepts: the loop says when the next cycle
/// comes and sleeps, instead of panicking after its first cycle (longer periods are refused
/// by the command line, see cli_vocabulary).
#[test]
fn a_monitor_period_beyond_the_calendar_sleeps_instead_of_panicking() {
    use std::io::{BufRead, BufReader};

    let root = tempfile::tempdir().unwrap();
    let mut child = ldwarc()
        .arg("monitor")
        .arg("--root")
        .arg(root.path())
        // The longest period the command line accepts (about 99.7 years).
        .args(["--every", "5200w", "--timeout", "2s"])
        .arg("http://127.0.0.1:9/")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start ldwarc monitor");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    for line in stderr.lines() {
        let line = line.unwrap();
        let sleeping = line.starts_with("ldwarc: next monitor cycle at");
        seen.push(line);
        if sleeping {
            break;
        }
    }
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.last()
            .is_some_and(|l| l.starts_with("ldwarc: next monitor cycle at")),
        "{seen:#?}"
    );
    assert!(still_running, "the monitor exited: {seen:#?}");
    assert!(!seen.iter().any(|l| l.contains("panicked")), "{seen:#?}");
}
