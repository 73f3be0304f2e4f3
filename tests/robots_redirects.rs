//! robots.txt redirecting to itself: fetched once per crawl, not once per allowed redirect,
//! and the loop counts as no robots.txt (RFC 9309 §2.3.1.2), so the host is crawled.

use crate::common::{ldwarc, run, stdout_ok};
use ldwarc::testweb::{Doc, Resource, Robots, Term, TestWebServer, Triple, Web};

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
        .args(["--delay", "0", "--hops", "0", "--timeout", "5"])
        .arg("--resolve")
        .arg(format!("*.example=127.0.0.1:{}", server.port()))
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
