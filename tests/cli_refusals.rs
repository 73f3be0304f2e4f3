//! Refusals before anything is created: `index` and every command that reads an archive,
//! given a folder that is not one (no `warc/`), and a crawl with no usable seed, exit 2 with
//! one line and leave the folder as it was; a crawl into a new folder still makes the
//! archive, and `serve --bind localhost:PORT` resolves the name.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use crate::common::{ldwarc, run};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn reading_a_folder_that_is_not_an_archive_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let commands: [&[&str]; 13] = [
        &["index"],
        &["index", "--rebuild"],
        &["cdx"],
        &["query", "http://a.example/"],
        &["replay", "http://a.example/"],
        &["history", "http://a.example/"],
        &["snapshot", "@now"],
        &["diff", "@2024", "@now"],
        &["diff", "http://a.example/@2024", "now"],
        &["sparql", "@now", "ASK {}"],
        &["when", "?s ?p ?o"],
        &["stats"],
        &["export", "--wacz", "out.wacz"],
    ];
    for args in commands {
        let output = run(ldwarc()
            .current_dir(dir.path())
            .env_remove("LDWARC_ROOT")
            .args(args)
            .args(["--root", "."]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "ldwarc: error: archive root .: not an archive (no warc/ folder); crawl or import \
             into it first\n",
            "{args:?}"
        );
        assert_eq!(listing(dir.path()), ["notes.txt"], "{args:?} created files");
    }
}

#[test]
fn a_crawl_without_a_usable_seed_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("new");
    for (seeds, message) in [
        (
            &["example.org"][..],
            "ldwarc: error: no usable seed: \"example.org\" is not an http(s) URL (write \
             http://example.org or https://example.org)\n",
        ),
        (
            &["example.org", "ftp://files.example/x"][..],
            "ldwarc: error: no usable seed: none of the 2 seeds is an http(s) URL; the first, \
             \"example.org\" is not an http(s) URL (write http://example.org or \
             https://example.org)\n",
        ),
        (
            &[][..],
            "ldwarc: error: no seed URLs given (pass URLs, @FILE, or seeds in ldwarc.toml)\n",
        ),
    ] {
        let output = run(ldwarc().arg("crawl").arg("--root").arg(&root).args(seeds));
        assert_eq!(output.status.code(), Some(2), "{seeds:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), message);
        assert!(!root.exists(), "{seeds:?} created {}", root.display());
    }
}

#[test]
fn a_crawl_into_a_new_folder_makes_an_archive_the_readers_accept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("new");
    // A seed on a closed port: the crawl runs, fetches nothing (exit 1), and the archive is
    // there, empty.
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(&root)
        .arg(format!("http://127.0.0.1:{}/", crate::common::free_port())));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(root.join("warc").is_dir());
    let index = run(ldwarc().arg("index").arg("--root").arg(&root));
    assert_eq!(index.status.code(), Some(0), "{index:?}");
    let cdx = run(ldwarc().arg("cdx").arg("--root").arg(&root));
    assert_eq!(cdx.status.code(), Some(0), "{cdx:?}");
    assert!(cdx.stdout.is_empty());
}

#[test]
fn serve_binds_a_host_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("warc")).unwrap();
    let index = run(ldwarc().arg("index").arg("--root").arg(dir.path()));
    assert_eq!(index.status.code(), Some(0), "{index:?}");
    let port = crate::common::free_port();
    let mut child = ldwarc()
        .arg("serve")
        .arg("--root")
        .arg(dir.path())
        .arg("--bind")
        .arg(format!("localhost:{port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .strip_prefix("ldwarc serve: listening on http://")
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string);
    let answer = address.as_deref().map(|address| {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .write_all(b"GET /cdx?url=http://a.example/ HTTP/1.0\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    });
    let _ = child.kill();
    let _ = child.wait();
    let address = address.unwrap_or_else(|| panic!("not listening: {line:?}"));
    assert!(
        address == format!("127.0.0.1:{port}") || address == format!("[::1]:{port}"),
        "{address}"
    );
    let answer = answer.unwrap();
    assert!(answer.starts_with("HTTP/1.0 200 OK\r\n"), "{answer}");
}
