//! SIGKILL a crawl at random points, `--resume` it each time, and check that nothing was lost
//! or duplicated beyond the requests in flight at each kill: every document within the hop
//! limit archived, every WARC file valid, the index in agreement with the files.

use crate::common;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use common::{assert_warcs_valid, ldwarc, run};
use ldwarc_archive::archive::walk_warc_files;
use ldwarc_crawl::archiver_queue_len;
use ldwarc_state::StateStore;
use ldwarc_testweb::{GenSpec, TestWebServer, Web};
use rand::{Rng, SeedableRng};

const CONCURRENCY: usize = 8;
const KILLS: usize = 10;

#[test]
fn killed_crawls_resume_without_loss_or_duplicates() {
    let web = Web::generate(GenSpec {
        plds: 24,
        max_docs_per_pld: 200,
        power_law_exponent: 1.0,
        links_per_doc: 3,
        latency: Duration::from_millis(3),
        seed: 7,
    });
    let seeds = web.seeds.clone();
    let expected = web.urls_within_hops(&seeds, 1, 0);
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let seeds_file = root.path().join("seeds.txt");
    std::fs::write(&seeds_file, seeds.join("\n")).unwrap();
    let crawl = |resume: bool| {
        let mut command = ldwarc();
        command
            .arg("crawl")
            .arg("--root")
            .arg(root.path())
            .args(["--delay", "0.03s", "--hops", "1", "--timeout", "5s"])
            .args(["--concurrency", &CONCURRENCY.to_string()])
            .args(common::loopback_resolve(server.port()))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if resume {
            command.arg("--resume");
        } else {
            command.arg(format!("@{}", seeds_file.display()));
        }
        command
    };

    let mut random = rand::rngs::StdRng::seed_from_u64(42);
    let mut kills = 0;
    let mut resume = false;
    let mut finished = false;
    while kills < KILLS {
        let mut child = crawl(resume).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(random.random_range(100..600)));
        if child.try_wait().unwrap().is_some() {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "crawl failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            finished = true;
            break;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        resume = true;
    }
    if !finished {
        let output = run(&mut crawl(true));
        assert!(
            output.status.success(),
            "final --resume failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(
        kills, KILLS,
        "the crawl ended before {KILLS} kills; slow it down"
    );

    // Requests per document URL, by the server's log (robots.txt is fetched again after each
    // restart by design: its cache lives in memory).
    let mut requests: BTreeMap<String, usize> = BTreeMap::new();
    for request in server.requests() {
        if request.path != "/robots.txt" {
            *requests.entry(request.url()).or_default() += 1;
        }
    }
    for url in &expected {
        assert!(requests.contains_key(url), "{url} never requested");
    }
    // A kill loses the requests in flight, the documents fetched but waiting for the archiver
    // (its queue, bounded by the concurrency) and the one it is committing: each is fetched
    // again after the resume, and nothing else is.
    let lost_per_kill = CONCURRENCY + archiver_queue_len(CONCURRENCY) + 1;
    let repeated: usize = requests.values().map(|n| n - 1).sum();
    assert!(
        repeated <= kills * lost_per_kill,
        "{repeated} repeated requests after {kills} kills of {CONCURRENCY} in flight \
         (at most {lost_per_kill} each)"
    );

    // Every document archived, every file valid.
    let files = walk_warc_files(&root.path().join("warc")).unwrap();
    assert_warcs_valid(&files);
    let store = StateStore::open(&root.path().join("state")).unwrap();
    let log = store.fetch_log(None).unwrap();
    for url in &expected {
        assert!(
            log.iter().any(|e| &e.url == url && e.record.is_some()),
            "{url} has no archived capture in the crawl log"
        );
    }
    assert!(store.unfinished_crawl().unwrap().is_none());

    // The index agrees with the files, and finds every document.
    let output = run(ldwarc()
        .args(["index", "--verify", "--root"])
        .arg(root.path()));
    assert!(
        output.status.success(),
        "index --verify: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let output = run(ldwarc().args(["cdx", "--root"]).arg(root.path()));
    let cdx = String::from_utf8_lossy(&output.stdout);
    for url in &expected {
        assert!(
            cdx.contains(&format!("\"url\": \"{url}\"")),
            "{url} not in the index"
        );
    }
}
