//! Exact hop counts when a URL is first reached by a longer cross-host path: a seed links
//! to a slow host and to a fast chain of hosts, both leading to one document; the chain
//! reaches it first, at the hop limit, the slow host later by a path two hops shorter. The
//! document's hop count must drop and its links, cut off at the limit, must be followed:
//! every frontier row holds the breadth-first count and every URL within `--hops` is
//! fetched, with the embedded store, with PostgreSQL, and with two nodes on PostgreSQL;
//! and with the embedded store when the shorter path turns up after `--resume`.

use crate::cluster::{finished, wait_for_crawl};
use crate::common::{self, stdout_ok};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use ldwarc_testweb::postgres::shared_server;
use ldwarc_testweb::{Doc, Resource, Term, TestWebServer, Triple, Web};

const HOPS: usize = 4;

/// A document linking to `targets` (the predicate is no link: not an http IRI).
fn linking(from: &str, targets: &[&str]) -> Resource {
    Resource::Document(Doc::new(
        targets
            .iter()
            .map(|to| {
                Triple::new(
                    Term::iri(from),
                    Term::iri("urn:ldwarc:test:next"),
                    Term::iri(*to),
                )
            })
            .collect(),
    ))
}

/// Seed `a` links to `slow` (3 s per answer) and to the chain `c1 → c2 → c3`; `slow` and
/// `c3` both link to `t`, which leads on to `u → w → z`. Breadth-first: `t` is 2 hops away,
/// `u` 3, `w` 4, `z` 5 (beyond the limit); through the chain `t` is 4 hops away.
fn web() -> Web {
    let mut web = Web::new();
    let pages: [(&str, &[&str]); 9] = [
        (
            "http://a.example/s",
            &["http://slow.example/x", "http://c1.example/x"],
        ),
        ("http://slow.example/x", &["http://t.example/t"]),
        ("http://c1.example/x", &["http://c2.example/x"]),
        ("http://c2.example/x", &["http://c3.example/x"]),
        ("http://c3.example/x", &["http://t.example/t"]),
        ("http://t.example/t", &["http://u.example/u"]),
        ("http://u.example/u", &["http://w.example/w"]),
        ("http://w.example/w", &["http://z.example/z"]),
        ("http://z.example/z", &[]),
    ];
    for (url, targets) in pages {
        web.insert(url, linking(url, targets)).unwrap();
    }
    web.hosts.get_mut("slow.example").unwrap().latency = Duration::from_secs(3);
    web.seeds = vec!["http://a.example/s".into()];
    web
}

/// The breadth-first hop count of every URL the crawl must fetch.
fn expected(web: &Web) -> BTreeMap<String, u32> {
    let reach = web.reach(&web.seeds, HOPS, 0);
    let hops: BTreeMap<String, u32> = reach
        .hops
        .iter()
        .map(|(url, hops)| (url.clone(), *hops as u32))
        .collect();
    // The web is what this test says it is.
    assert_eq!(hops.get("http://t.example/t"), Some(&2));
    assert_eq!(hops.get("http://w.example/w"), Some(&4));
    assert!(!hops.contains_key("http://z.example/z"));
    hops
}

fn crawl_command(root: &Path, server: &TestWebServer) -> std::process::Command {
    let mut command = common::ldwarc();
    command
        .arg("crawl")
        .arg("--root")
        .arg(root)
        .args(["--delay", "0.05s", "--timeout", "10s", "--format", "json"])
        .args(["--hops", &HOPS.to_string()])
        .args(common::loopback_resolve(server.port()));
    command
}

/// Documents requested (robots.txt left out), each once.
fn assert_fetched_once(server: &TestWebServer, expected: &BTreeMap<String, u32>) {
    let fetched = requested(server);
    let wanted: BTreeMap<String, usize> = expected.keys().map(|url| (url.clone(), 1)).collect();
    assert_eq!(fetched, wanted, "documents requested (and how often)");
}

/// `rows` (frontier URL and hops) are the breadth-first ones, and `t_fetched_at` (the hops
/// the crawl log gives `t`'s fetch) shows the premise held: the longer path came first.
fn assert_rows(rows: BTreeMap<String, u32>, expected: &BTreeMap<String, u32>, t_fetched_at: u32) {
    assert_eq!(t_fetched_at, 4, "t was first reached through the chain");
    assert_eq!(&rows, expected, "frontier rows and their hop counts");
}

#[test]
fn a_shorter_path_lowers_hops_and_follows_links_with_the_embedded_store() {
    let web = web();
    let expected = expected(&web);
    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = common::run(crawl_command(root.path(), &server).arg("http://a.example/s"));
    stdout_ok(&output, "ldwarc crawl");
    assert_fetched_once(&server, &expected);
    let (rows, t_fetched_at) = sqlite_rows(root.path());
    assert_rows(rows, &expected, t_fetched_at);
}

/// The frontier rows with their hops, and the hops of `t`'s fetch in the crawl log, of the
/// embedded store under `root`.
fn sqlite_rows(root: &Path) -> (BTreeMap<String, u32>, u32) {
    let connection = rusqlite::Connection::open(root.join("state").join("state.sqlite")).unwrap();
    let mut statement = connection
        .prepare("SELECT url, hops FROM frontier")
        .unwrap();
    let rows = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<BTreeMap<String, u32>, _>>()
        .unwrap();
    let t_fetched_at = connection
        .query_row(
            "SELECT hops FROM fetches WHERE url = 'http://t.example/t'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    (rows, t_fetched_at)
}

/// The frontier rows with their hops, and the hops of `t`'s fetch in the crawl log.
fn postgres_rows(database: &str) -> (BTreeMap<String, u32>, u32) {
    let mut client = postgres::Client::connect(database, postgres::NoTls).unwrap();
    let rows = client
        .query("SELECT url, hops FROM frontier", &[])
        .unwrap()
        .iter()
        .map(|row| (row.get::<_, String>(0), row.get::<_, i64>(1) as u32))
        .collect();
    let t_fetched_at = client
        .query_one(
            "SELECT hops FROM fetches WHERE url = 'http://t.example/t'",
            &[],
        )
        .unwrap()
        .get::<_, i64>(0) as u32;
    (rows, t_fetched_at)
}

/// A node of a shared crawl: with the seed, or joining.
fn shared_node(
    database: &str,
    name: &str,
    root: &Path,
    server: &TestWebServer,
    seed: bool,
) -> Child {
    let mut command = crawl_command(root, server);
    command
        .args(["--state", database, "--node", name, "--lease-ttl", "2s"])
        .args(["--max-plds", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if seed {
        command.arg("http://a.example/s");
    } else {
        command.arg("--join");
    }
    command.spawn().unwrap()
}

#[test]
fn a_shorter_path_lowers_hops_and_follows_links_on_postgres() {
    let web = web();
    let expected = expected(&web);
    let server = TestWebServer::start(web).unwrap();
    let pg = shared_server();
    let database = pg.fresh_database("hops_one");
    let root = tempfile::tempdir().unwrap();
    finished(
        shared_node(&database, "n1", root.path(), &server, true),
        "n1",
    );
    assert_fetched_once(&server, &expected);
    let (rows, t_fetched_at) = postgres_rows(&database);
    assert_rows(rows, &expected, t_fetched_at);
}

#[test]
fn a_shorter_path_lowers_hops_and_follows_links_across_nodes() {
    let web = web();
    let expected = expected(&web);
    let server = TestWebServer::start(web).unwrap();
    let pg = shared_server();
    let database = pg.fresh_database("hops_two");
    let roots = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let first = shared_node(&database, "n1", roots[0].path(), &server, true);
    wait_for_crawl(&database);
    let second = shared_node(&database, "n2", roots[1].path(), &server, false);
    finished(first, "n1");
    finished(second, "n2");
    assert_fetched_once(&server, &expected);
    let (rows, t_fetched_at) = postgres_rows(&database);
    assert_rows(rows, &expected, t_fetched_at);
}

/// The documents requested (robots.txt left out) and how often.
fn requested(server: &TestWebServer) -> BTreeMap<String, usize> {
    let mut fetched: BTreeMap<String, usize> = BTreeMap::new();
    for request in server.requests() {
        if request.path != "/robots.txt" {
            *fetched.entry(request.url()).or_default() += 1;
        }
    }
    fetched
}

/// The URLs in the crawl log of the embedded store under `root` (empty while it does not
/// exist yet).
fn logged_fetches(root: &Path) -> Vec<String> {
    let Ok(connection) = rusqlite::Connection::open_with_flags(
        root.join("state").join("state.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return Vec::new();
    };
    let Ok(mut statement) = connection.prepare("SELECT url FROM fetches") else {
        return Vec::new();
    };
    statement
        .query_map([], |row| row.get(0))
        .and_then(|rows| rows.collect())
        .unwrap_or_default()
}

/// The crawl is killed once `t` is fetched through the chain, while the slow host still
/// answers the request that leads to `t` by the shorter path; `--resume` asks the slow host
/// again, and the shorter path must lower `t`'s count and follow its stored links as it does
/// within one run: the same documents as an uninterrupted crawl, breadth-first counts.
#[test]
fn a_shorter_path_found_after_a_restart_lowers_hops_and_follows_stored_links() {
    let web = web();
    let expected = expected(&web);
    let uninterrupted = {
        let server = TestWebServer::start(web.clone()).unwrap();
        let root = tempfile::tempdir().unwrap();
        let output = common::run(crawl_command(root.path(), &server).arg("http://a.example/s"));
        stdout_ok(&output, "ldwarc crawl (uninterrupted)");
        requested(&server)
    };

    let server = TestWebServer::start(web).unwrap();
    let root = tempfile::tempdir().unwrap();
    let mut child = crawl_command(root.path(), &server)
        .arg("http://a.example/s")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let logged = loop {
        let logged = logged_fetches(root.path());
        if logged.iter().any(|url| url == "http://t.example/t") {
            break logged;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "t was not fetched within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let before_kill = requested(&server);
    assert!(
        !logged.iter().any(|url| url == "http://slow.example/x"),
        "the slow host answered before the kill: the test's premise failed"
    );
    // Requested before the kill but not logged: in flight, so asked again after it (the
    // slow host's robots.txt takes its 3 s first, so this is usually none).
    let in_flight: Vec<String> = before_kill
        .into_keys()
        .filter(|url| !logged.contains(url))
        .collect();

    let output = common::run(crawl_command(root.path(), &server).arg("--resume"));
    stdout_ok(&output, "ldwarc crawl --resume");
    let after = requested(&server);
    let once: BTreeMap<String, usize> = uninterrupted.keys().map(|url| (url.clone(), 1)).collect();
    assert_eq!(
        once, uninterrupted,
        "the uninterrupted crawl fetches each once"
    );
    let mut wanted = once;
    for url in in_flight {
        *wanted.entry(url).or_default() += 1;
    }
    assert_eq!(after, wanted, "documents requested across the restart");
    assert_eq!(
        uninterrupted.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );

    let (rows, t_fetched_at) = sqlite_rows(root.path());
    assert_rows(rows, &expected, t_fetched_at);
}
