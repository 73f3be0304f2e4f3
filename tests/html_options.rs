//! Reading pages as their server and the user say: the `charset` of the HTTP `Content-Type`
//! decodes a page that declares nothing (a Latin-1 page crawled and replayed, and given to
//! `ldwarc parse --media-type`), and `--syntax` keeps one embedding of a page that has three
//! (`parse`, `replay`, `snapshot`).

use std::io::Write;
use std::process::Stdio;

use ldwarc_testweb::{Resource, StaticFile, TestWebServer, Web};

use crate::common::{ldwarc, run, stdout_ok};

/// "Café Müller" in ISO-8859-1, with no charset declared in the page.
fn latin1_page() -> Vec<u8> {
    let mut page = b"<!DOCTYPE html><html><body vocab=\"http://schema.org/\" resource=\"#shop\" typeof=\"Store\"><span property=\"name\">Caf".to_vec();
    page.push(0xE9);
    page.extend_from_slice(b" M");
    page.push(0xFC);
    page.extend_from_slice(b"ller</span></body></html>");
    page
}

const THREE_SYNTAXES: &str = r##"<!DOCTYPE html><html><head>
<script type="application/ld+json">{"@id": "http://shop.example/three#j", "http://schema.org/name": "from json-ld"}</script>
</head><body>
<p about="#r" property="http://schema.org/name">from rdfa</p>
<div itemscope itemtype="http://schema.org/Thing" itemid="http://shop.example/three#m"><span itemprop="name">from microdata</span></div>
</body></html>"##;

fn web() -> Web {
    let mut web = Web::new();
    let latin1 = StaticFile::new("text/html; charset=ISO-8859-1", latin1_page());
    web.insert("http://shop.example/latin1", Resource::Static(latin1))
        .unwrap();
    let three = StaticFile::new("text/html", THREE_SYNTAXES);
    web.insert("http://shop.example/three", Resource::Static(three))
        .unwrap();
    web.seeds = vec![
        "http://shop.example/latin1".into(),
        "http://shop.example/three".into(),
    ];
    web
}

fn parse_stdin(body: &[u8], args: &[&str]) -> std::process::Output {
    let mut child = ldwarc()
        .arg("parse")
        .arg("-")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(body).unwrap();
    child.wait_with_output().unwrap()
}

const NAME: &str = "<http://schema.org/name>";

#[test]
fn content_type_charset_decodes_pages_and_syntax_keeps_one_embedding() {
    let server = TestWebServer::start(web()).unwrap();
    let root = tempfile::tempdir().unwrap();
    let crawl = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "1", "--timeout", "10s"])
        .args(crate::common::loopback_resolve(server.port()))
        .args(["http://shop.example/latin1", "http://shop.example/three"]));
    stdout_ok(&crawl, "ldwarc crawl");

    let replayed = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .arg("http://shop.example/latin1"));
    let replayed = stdout_ok(&replayed, "replay latin1");
    let expected = format!("<http://shop.example/latin1#shop> {NAME} \"Café Müller\" .");
    assert!(replayed.contains(&expected), "{replayed}");

    let parsed = parse_stdin(
        &latin1_page(),
        &[
            "--base",
            "http://shop.example/latin1",
            "--media-type",
            "text/html; charset=iso-8859-1",
        ],
    );
    assert!(stdout_ok(&parsed, "parse latin1").contains(&expected));
    // Without the header the bytes are not UTF-8: the name is not "Café Müller".
    let undeclared = parse_stdin(
        &latin1_page(),
        &[
            "--base",
            "http://shop.example/latin1",
            "--media-type",
            "text/html",
        ],
    );
    assert!(!stdout_ok(&undeclared, "parse latin1 as UTF-8").contains(&expected));

    let names = |text: &str| -> Vec<String> {
        let mut found: Vec<String> = text
            .lines()
            .filter(|line| line.contains(NAME))
            .filter_map(|line| line.split('"').nth(1).map(str::to_string))
            .collect();
        found.sort();
        found
    };
    for (syntax, wanted) in [
        ("rdfa", vec!["from rdfa"]),
        ("microdata", vec!["from microdata"]),
        ("jsonld", vec!["from json-ld"]),
        ("rdfa,jsonld", vec!["from json-ld", "from rdfa"]),
    ] {
        let parsed = parse_stdin(
            THREE_SYNTAXES.as_bytes(),
            &[
                "--base",
                "http://shop.example/three",
                "--media-type",
                "text/html",
                "--syntax",
                syntax,
            ],
        );
        assert_eq!(
            names(&stdout_ok(&parsed, "parse --syntax")),
            wanted,
            "{syntax}"
        );
        let replayed = run(ldwarc()
            .arg("replay")
            .arg("--root")
            .arg(root.path())
            .args(["--syntax", syntax])
            .arg("http://shop.example/three"));
        assert_eq!(
            names(&stdout_ok(&replayed, "replay --syntax")),
            wanted,
            "{syntax}"
        );
    }
    let all = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .arg("http://shop.example/three"));
    assert_eq!(
        names(&stdout_ok(&all, "replay")),
        ["from json-ld", "from microdata", "from rdfa"]
    );
    let snapshot = run(ldwarc()
        .arg("snapshot")
        .arg("--root")
        .arg(root.path())
        .args(["--syntax", "microdata", "@2999"]));
    let snapshot = stdout_ok(&snapshot, "snapshot --syntax microdata");
    assert_eq!(names(&snapshot), ["from microdata"], "{snapshot}");

    let bad = run(ldwarc()
        .arg("replay")
        .arg("--root")
        .arg(root.path())
        .args(["--syntax", "rdfa,gopher"])
        .arg("http://shop.example/three"));
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("gopher"));
}
