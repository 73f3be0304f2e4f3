//! Embedded data against other processors: a test web of HTML pages whose only links are in
//! their embedded data (RDFa `rel`/`property`/`typeof` IRIs, JSON-LD `@id`s, Microdata
//! `itemprop` links) plus an RDF twin announced by `<link rel="alternate">` is crawled; the
//! crawl reaches every page, and each page's `ldwarc replay` is isomorphic (rdflib, blank
//! nodes included) to the union of what pyRdfa3 (RDFa), rdflib (JSON-LD and Turtle script
//! blocks) and microdata-rdf-streaming-parser (Microdata) extract from the same bytes.
//! The tools come from `.ci/setup-interop.sh`; a missing one fails the test.

use std::path::PathBuf;
use std::process::Command;

use ldwarc_testweb::{Resource, StaticFile, TestWebServer, Web};

use crate::common::{ldwarc, manifest_dir, run, stdout_ok, venv_bin};

/// Starts the crawl; RDFa Core with prefixes, datatypes, languages, chaining, blank nodes.
const RDFA_PAGE: &str = r##"<!DOCTYPE html>
<html prefix="ex: http://vocab.example/ dc: http://purl.org/dc/terms/" lang="en">
<head><title>RDFa start</title></head>
<body about="" typeof="ex:Page">
  <h1 property="dc:title">The start page</h1>
  <p>Plain link, not data: <a href="http://pages.example/never">never</a>.</p>
  <p property="dc:created" datatype="xsd:date" content="2024-01-31">31 January</p>
  <p lang="de" property="dc:description">Eine Seite mit <em>Daten</em>.</p>
  <div rel="ex:author">
    <span typeof="ex:Person"><span property="ex:name">Ann</span>
      <a rel="ex:homepage" href="/lite">her page</a></span>
  </div>
  <div property="ex:tags" inlist="">one</div><div property="ex:tags" inlist="">two</div>
  <div rel="ex:next" resource="http://pages.example/jsonld"></div>
</body></html>"##;

/// RDFa Lite: `vocab`, `typeof`, `property` with `href`, `resource`.
const LITE_PAGE: &str = r##"<!DOCTYPE html><html><head><title>Lite</title></head>
<body vocab="http://schema.org/" resource="#me" typeof="Person">
  <div class="card"><span property="name">Ann Example</span>,
    <span property="jobTitle">archivist</span></div>
  <div property="address" typeof="PostalAddress">
    <span property="addressLocality">Lyon</span></div>
  <a property="url" href="http://pages.example/jsonld">data</a>
  <footer><a href="/never">a plain link</a></footer>
</body></html>"##;

/// JSON-LD blocks (nested nodes, blank nodes, an inline context) and a Turtle block.
const JSON_LD_PAGE: &str = r##"<!DOCTYPE html><html><head><title>JSON-LD</title>
<script type="application/ld+json">
{"@context": {"@vocab": "http://schema.org/", "next": {"@id": "http://vocab.example/next", "@type": "@id"}},
 "@id": "http://pages.example/jsonld", "@type": "WebPage", "name": "JSON-LD page",
 "next": "/microdata",
 "author": {"@type": "Person", "name": "Bo", "knows": {"name": "Cy"}}}
</script>
<script type="application/ld+json">
[{"@id": "_:x", "http://vocab.example/rank": 3},
 {"@id": "http://pages.example/jsonld", "http://vocab.example/rated": {"@id": "_:x"}}]
</script>
<script type="text/turtle">
@prefix ex: <http://vocab.example/> .
<> ex:keywords ("a" "b") ; ex:seeAlso [ ex:label "anonymous"@en ] .
</script>
</head><body><p>Nothing here</p><a href="/never">never</a></body></html>"##;

/// Microdata: `itemid`, nested items, `itemref`, element value rules, `content` on any
/// element.
const MICRODATA_PAGE: &str = r##"<!DOCTYPE html><html><body>
<div itemscope itemtype="http://schema.org/Event" itemid="http://pages.example/microdata#event"
     itemref="where">
  <span itemprop="name">Reading</span>
  <time itemprop="startDate" datetime="2024-05-01T19:00:00Z">May 1st</time>
  <meta itemprop="eventStatus" content="scheduled">
  <link itemprop="url" href="/mixed">
  <div itemprop="performer" itemscope itemtype="http://schema.org/Person">
    <span itemprop="name">Di</span> <img itemprop="image" src="di.png" alt="">
  </div>
  <div itemprop="offers" itemscope itemtype="http://schema.org/Offer">
    <span itemprop="price" content="13.00">$13.00</span>
    <div itemprop="validFrom" content="2024-04-01">from 1 April</div>
  </div>
</div>
<p id="where" itemprop="location">Hall 2</p>
<a href="/never">never</a>
</body></html>"##;

/// All three syntaxes in one page, the shape of a real shop page.
const MIXED_PAGE: &str = r##"<!DOCTYPE html><html prefix="og: http://ogp.me/ns#"><head>
<meta property="og:title" content="Mixed page">
<meta property="og:url" content="http://pages.example/mixed">
<script type="application/ld+json">
{"@context": {"@vocab": "http://schema.org/"}, "@type": "Product", "name": "Lamp",
 "offers": {"@type": "Offer", "price": "12.50", "priceCurrency": "EUR"}}
</script>
</head><body>
<nav><a href="/never">home</a></nav>
<div itemscope itemtype="http://schema.org/Review">
  <span itemprop="reviewBody">Bright.</span>
  <link itemprop="sameAs" href="http://pages.example/twin">
</div>
</body></html>"##;

/// Announces its RDF twin; a little RDFa of its own.
const TWIN_PAGE: &str = r##"<!DOCTYPE html><html><head>
<link rel="alternate" type="text/turtle" href="/twin.ttl">
</head><body vocab="http://schema.org/"><p typeof="Thing"><span property="name">twin</span></p>
</body></html>"##;

/// Reached only through the twin.
const TWIN_TURTLE: &str =
    "<http://pages.example/twin> <http://vocab.example/next> <http://pages.example/end> .\n";

const END_PAGE: &str = r##"<!DOCTYPE html><html><body prefix="ex: http://vocab.example/">
<p about="#end" property="ex:done" datatype="xsd:boolean">true</p></body></html>"##;

const PAGES: &[(&str, &str)] = &[
    ("http://pages.example/start", RDFA_PAGE),
    ("http://pages.example/lite", LITE_PAGE),
    ("http://pages.example/jsonld", JSON_LD_PAGE),
    ("http://pages.example/microdata", MICRODATA_PAGE),
    ("http://pages.example/mixed", MIXED_PAGE),
    ("http://pages.example/twin", TWIN_PAGE),
    ("http://pages.example/end", END_PAGE),
];

fn web() -> Web {
    let mut web = Web::new();
    for (url, body) in PAGES {
        let page = StaticFile::new("text/html; charset=utf-8", *body);
        web.insert(url, Resource::Static(page)).unwrap();
    }
    let twin = StaticFile::new("text/turtle", TWIN_TURTLE);
    web.insert("http://pages.example/twin.ttl", Resource::Static(twin))
        .unwrap();
    let never = StaticFile::new("text/html", "<p>must not be crawled</p>");
    web.insert("http://pages.example/never", Resource::Static(never))
        .unwrap();
    web.seeds = vec!["http://pages.example/start".into()];
    web
}

/// The Node.js packages `.ci/setup-interop.sh` installs (`$LDWARC_NPM_TOOLS`, else
/// `<crate>/.npm-tools`).
fn npm_tools() -> PathBuf {
    let dir = std::env::var_os("LDWARC_NPM_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".npm-tools"));
    assert!(
        dir.join("node_modules/microdata-rdf-streaming-parser")
            .is_dir(),
        "microdata-rdf-streaming-parser is missing from {}: run `bash .ci/setup-interop.sh`",
        dir.display()
    );
    dir
}

#[test]
fn crawled_pages_replay_as_pyrdfa_rdflib_and_microdata_parser_extract_them() {
    let tools = npm_tools();
    let server = TestWebServer::start(web()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "10", "--timeout", "10s"])
        .args(crate::common::loopback_resolve(server.port()))
        .arg("http://pages.example/start"));
    stdout_ok(&output, "ldwarc crawl");

    let work = tempfile::tempdir().unwrap();
    let mut jobs = Vec::new();
    for (index, (url, body)) in PAGES.iter().enumerate() {
        let replayed = run(ldwarc()
            .arg("replay")
            .arg("--root")
            .arg(root.path())
            .args(["--format", "nq"])
            .arg(url));
        let replayed = stdout_ok(&replayed, &format!("replay {url} (was it crawled?)"));
        let actual = work.path().join(format!("{index}.replay.nq"));
        std::fs::write(&actual, replayed).unwrap();
        let page = work.path().join(format!("{index}.html"));
        std::fs::write(&page, body).unwrap();
        let microdata = run(Command::new("node")
            .env("LDWARC_NPM_TOOLS", &tools)
            .arg(manifest_dir().join("tests/support/microdata_rdf.js"))
            .arg(&page)
            .arg(url));
        let microdata = stdout_ok(&microdata, &format!("microdata-rdf-streaming-parser {url}"));
        let microdata_file = work.path().join(format!("{index}.microdata.nq"));
        std::fs::write(&microdata_file, microdata).unwrap();
        jobs.push(serde_json::json!({
            "name": url, "page": page, "base": url, "microdata": microdata_file, "actual": actual,
        }));
    }
    let jobs_file = work.path().join("jobs.json");
    std::fs::write(&jobs_file, serde_json::to_vec(&jobs).unwrap()).unwrap();
    let compared = run(Command::new(venv_bin("python"))
        .arg(manifest_dir().join("tests/support/embedded_reference.py"))
        .arg(&jobs_file));
    let report = stdout_ok(&compared, "embedded_reference.py (pyRdfa3, rdflib)");
    println!("{report}");
    assert!(
        report.trim_end().ends_with(&format!("ok {}", PAGES.len())),
        "{report}"
    );
    for (url, _) in PAGES {
        let line = report
            .lines()
            .find(|line| line.starts_with(&format!("{url}: ")))
            .unwrap();
        assert!(
            !line.ends_with("replay 0"),
            "{url} replayed no data: {line}"
        );
    }
    let never = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .arg("http://pages.example/never"));
    assert_eq!(
        never.status.code(),
        Some(2),
        "a plain <a href> was followed"
    );
}

/// A Drupal-7-shaped page: the same markup means other statements in RDFa 1.0 (`@property`
/// with child elements is an XML literal, `@href` beside `@property` is not its value, no
/// initial context, no `@vocab`, `@src` names the subject).
const RDFA_1_0_BODY: &str = r##"<head><title>Node</title></head>
<body>
<div about="/node/1" typeof="foaf:Document sioc:Item">
  <h2 property="dc:title">A <em>first</em> node</h2>
  <span property="dc:date" datatype="xsd:dateTime" content="2010-01-01T00:00:00+00:00">1 Jan</span>
  <a property="dc:creator" href="/user/1">admin</a>
  <a rel="license" href="http://creativecommons.org/licenses/by/3.0/">CC</a>
  <span property="schema:name">from the initial context</span>
  <div vocab="http://schema.org/"><span property="name">a vocab term</span></div>
  <div rel="sioc:has_creator"><span about="/user/1" property="foaf:name">Ada</span></div>
  <img src="/logo.png" property="dc:description" content="a logo"/>
</div>
<p resource="/node/2" property="dc:title" lang="en">Two</p>
</body></html>"##;

/// `ldwarc parse --syntax rdfa` of a page, and pyRdfa3's graph of the same file, compared
/// with rdflib (isomorphism); returns ldwarc's statements, sorted.
fn rdfa_like_pyrdfa(dir: &std::path::Path, name: &str, page: &str) -> Vec<String> {
    let base = "http://drupal.example/node/1";
    let file = dir.join(format!("{name}.html"));
    std::fs::write(&file, page).unwrap();
    let output = run(ldwarc()
        .arg("parse")
        .arg(&file)
        .args(["--base", base, "--syntax", "rdfa"]));
    let actual = stdout_ok(&output, &format!("parse {name}"));
    let actual_file = dir.join(format!("{name}.nt"));
    std::fs::write(&actual_file, &actual).unwrap();
    let script = r#"
import sys
from pyRdfa import Options, pyRdfa
from rdflib import Graph
from rdflib.compare import isomorphic, to_isomorphic
page, base, actual = sys.argv[1:4]
expected = pyRdfa(Options(embedded_rdf=False), base=base, media_type="text/html").graph_from_source(page)
got = Graph().parse(actual, format="nt")
if not isomorphic(expected, got):
    e, g = to_isomorphic(expected), to_isomorphic(got)
    print("only pyRdfa:", sorted(" ".join(x.n3() for x in t) for t in set(e) - set(g)))
    print("only ldwarc:", sorted(" ".join(x.n3() for x in t) for t in set(g) - set(e)))
    sys.exit(1)
print("ok", len(got))
"#;
    let compared = run(Command::new(venv_bin("python"))
        .arg("-c")
        .arg(script)
        .arg(&file)
        .arg(base)
        .arg(&actual_file));
    stdout_ok(&compared, &format!("pyRdfa3 against ldwarc on {name}"));
    let mut lines: Vec<String> = actual.lines().map(str::to_string).collect();
    lines.sort_unstable();
    lines
}

#[test]
fn rdfa_1_0_pages_are_read_as_pyrdfa_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let namespaces = "xmlns:dc=\"http://purl.org/dc/terms/\" \
                      xmlns:foaf=\"http://xmlns.com/foaf/0.1/\" \
                      xmlns:sioc=\"http://rdfs.org/sioc/ns#\"";
    let old =
        format!("<!DOCTYPE html>\n<html version=\"XHTML+RDFa 1.0\" {namespaces}>\n{RDFA_1_0_BODY}");
    let new = format!("<!DOCTYPE html>\n<html {namespaces}>\n{RDFA_1_0_BODY}");
    let old = rdfa_like_pyrdfa(dir.path(), "rdfa10", &old);
    let new = rdfa_like_pyrdfa(dir.path(), "rdfa11", &new);
    // `@href` beside `@property`: the subject in RDFa 1.0, the value in RDFa 1.1.
    let creator = "<http://purl.org/dc/terms/creator>";
    let admin = format!("<http://drupal.example/user/1> {creator} \"admin\" .");
    assert!(old.contains(&admin), "{old:#?}");
    let linked =
        format!("<http://drupal.example/node/1> {creator} <http://drupal.example/user/1> .");
    assert!(new.contains(&linked), "{new:#?}");
    assert!(
        old.iter().any(|line| line.contains("A <em xmlns:dc=")
            && line.ends_with("^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .")),
        "{old:#?}"
    );
    assert!(
        !old.iter().any(|line| line.contains("schema.org")),
        "{old:#?}"
    );
}
