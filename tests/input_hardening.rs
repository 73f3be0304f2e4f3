//! Hostile input the archive takes in (issue 38): WACZ packages made by others are imported
//! all or nothing (a refusal exits 2, names the package and the resource, and leaves the
//! archive byte-identical), a crawl of a site linking ever more new URLs keeps its frontier
//! within its bounds and reports what it left out, a document whose parse fails is archived
//! and done, and `check` reports the `.open` files a killed crawl left.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::{ldwarc, run, stdout_ok, venv_bin};
use flate2::Compression;
use flate2::write::GzEncoder;
use ldwarc_state::StateStore;
use ldwarc_testweb::{Doc, Hostile, Resource, Term, TestWebServer, Triple, Web};
use sha1::{Digest, Sha1};

/// One small uncompressed WARC file: one `resource` record of `url`.
fn warc(url: &str) -> Vec<u8> {
    let body = format!("<{url}> <http://purl.org/dc/terms/title> \"t\" .\n");
    let id = hex(&Sha1::digest(url.as_bytes()));
    format!(
        "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{}-{}-{}-{}-{}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\n\
         Content-Type: text/turtle\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..32],
        body.len()
    )
    .into_bytes()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file and folder below `root`, with the SHA-1 of each file's content.
fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut all = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.expect("walk");
        let relative = entry
            .path()
            .strip_prefix(root)
            .expect("below")
            .to_path_buf();
        let hash = if entry.file_type().is_file() {
            hex(&Sha1::digest(std::fs::read(entry.path()).expect("read")))
        } else {
            "folder".into()
        };
        all.insert(relative, hash);
    }
    all
}

/// Writes the test packages with Python's zipfile (any entry name, symbolic links, deflated
/// entries): each resource listed in datapackage.json with the hash and size given, and a
/// correct datapackage-digest.json.
const PACKAGES: &str = r#"
import hashlib, json, sys, zipfile, os
out, old, new = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
def sha(b): return "sha256:" + hashlib.sha256(b).hexdigest()
def package(name, parts):
    resources = []
    with zipfile.ZipFile(os.path.join(out, name), "w") as z:
        for part in parts:
            path, data = part["path"], part["data"]
            info = zipfile.ZipInfo(path)
            info.compress_type = zipfile.ZIP_DEFLATED if part.get("deflate") else zipfile.ZIP_STORED
            if part.get("symlink"):
                info.create_system = 3
                info.external_attr = (0o120777 << 16)
            z.writestr(info, data)
            resources.append({"path": path, "hash": part.get("hash", sha(data)),
                              "bytes": len(data)})
        meta = json.dumps({"profile": "data-package", "wacz_version": "1.1.1",
                           "resources": resources}).encode()
        z.writestr("datapackage.json", meta)
        z.writestr("datapackage-digest.json",
                   json.dumps({"path": "datapackage.json", "hash": sha(meta)}))
package("good.wacz", [{"path": "archive/new.warc", "data": new}])
package("bad-hash.wacz", [{"path": "archive/a.warc", "data": new},
                          {"path": "archive/b.warc", "data": new + b"\r\n", "hash": sha(b"x")}])
package("text.wacz", [{"path": "archive/x.warc.gz", "data": b"hello, not a WARC file\n"}])
package("html.wacz", [{"path": "archive/x.warc", "data": b"<!DOCTYPE html><p>hi</p>\n"}])
package("random.wacz", [{"path": "archive/x.warc.gz", "data": hashlib.sha512(b"r").digest() * 64}])
package("symlink.wacz", [{"path": "archive/x.warc", "data": b"/etc/passwd", "symlink": True}])
package("bomb.wacz", [{"path": "archive/bomb.warc", "data": bytes(64 << 20), "deflate": True}])
package("traversal.wacz", [{"path": "archive/../../evil.warc", "data": new}])
package("backslash.wacz", [{"path": "archive\\..\\evil.warc", "data": new}])
package("drive.wacz", [{"path": "C:/evil.warc", "data": new}])
package("renamed.wacz", [{"path": "archive/renamed.warc", "data": old}])
"#;

/// Each hostile package is refused with exit status 2, a message naming the package and the
/// resource or entry, and the archive unchanged to the byte; a good package then imports,
/// and the same content under another package and file name is refused.
#[test]
fn refused_packages_leave_the_archive_byte_identical() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    std::fs::create_dir_all(root.join("warc/2024")).expect("dir");
    let old = warc("http://old.example/");
    std::fs::write(root.join("warc/2024/old.warc"), &old).expect("write");
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&root)),
        "ldwarc index",
    );
    let packages = dir.path().join("packages");
    std::fs::create_dir_all(&packages).expect("dir");
    let (old_file, new_file) = (dir.path().join("old.warc"), dir.path().join("new.warc"));
    std::fs::write(&old_file, &old).expect("write");
    std::fs::write(&new_file, warc("http://new.example/")).expect("write");
    let made = run(std::process::Command::new(venv_bin("python"))
        .args(["-c", PACKAGES])
        .arg(&packages)
        .arg(&old_file)
        .arg(&new_file));
    assert!(made.status.success(), "{made:?}");

    let before = tree(&root);
    for (name, why) in [
        (
            "bad-hash",
            "archive/b.warc does not match its hash in datapackage.json",
        ),
        (
            "text",
            "archive/x.warc.gz: not a WARC file: offset 0: not a WARC",
        ),
        (
            "html",
            "archive/x.warc: not a WARC file: offset 0: not a WARC",
        ),
        ("random", "archive/x.warc.gz: not a WARC file"),
        ("symlink", "archive/x.warc: a symbolic link"),
        ("bomb", "archive/bomb.warc: inflates from"),
        ("traversal", "unsafe entry name \"archive/../../evil.warc\""),
        (
            "backslash",
            "unsafe entry name \"archive\\\\..\\\\evil.warc\"",
        ),
        ("drive", "unsafe entry name \"C:/evil.warc\""),
        (
            "renamed",
            "archive/renamed.warc: already in the archive as warc/2024/old.warc",
        ),
    ] {
        let package = packages.join(format!("{name}.wacz"));
        let output = run(ldwarc().args(["import", "--root"]).arg(&root).arg(&package));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        let expected = format!("ldwarc: error: {}: ", package.display());
        assert!(stderr.starts_with(&expected), "{name}: {stderr}");
        assert!(stderr.contains(why), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert_eq!(tree(&root), before, "{name} changed the archive");
    }

    let good = packages.join("good.wacz");
    let imported = stdout_ok(
        &run(ldwarc().args(["import", "--root"]).arg(&root).arg(&good)),
        "ldwarc import",
    );
    assert_eq!(
        imported.trim(),
        format!(
            "imported 1 WARC files from {}: 1 captures added",
            good.display()
        )
    );
    // The same package under another name: its WARC file is in the archive already.
    let copy = packages.join("copy-of-good.wacz");
    std::fs::copy(&good, &copy).expect("copy");
    let before = tree(&root);
    let again = run(ldwarc().args(["import", "--root"]).arg(&root).arg(&copy));
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "archive/new.warc: already in the archive as warc/imported/good/new.warc \
             (same SHA-256): the package was imported before, nothing to do"
        ),
        "{stderr}"
    );
    assert_eq!(tree(&root), before);
}

/// A seed linking 80 new URLs (40 on each of two PLDs) under `--max-links 50
/// --max-frontier-per-pld 10 --max-frontier 15`: the frontier in the state store holds 15
/// URLs, at most 10 of a PLD, and the report counts the 66 left out, 30 of them over
/// `--max-links`.
#[test]
fn the_frontier_stays_within_its_bounds_and_reports_what_it_dropped() {
    let see_also = "http://www.w3.org/2000/01/rdf-schema#seeAlso";
    let seed = "http://a.example/0";
    let links = (1..=40)
        .map(|n| format!("http://a.example/{n}"))
        .chain((1..=40).map(|n| format!("http://b.example/{n}")));
    let triples = links
        .map(|link| Triple::new(Term::iri(seed), Term::iri(see_also), Term::iri(link)))
        .collect();
    let mut web = Web::new();
    web.insert(seed, Resource::Document(Doc::new(triples)))
        .expect("insert");
    let server = TestWebServer::start(web).expect("test web");
    let root = tempfile::tempdir().expect("temp dir");
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "1", "--format", "json"])
        .args(["--follow-predicate", see_also])
        .args(["--max-links", "50", "--max-frontier-per-pld", "10"])
        .args(["--max-frontier", "15"])
        .args(common::loopback_resolve(server.port()))
        .arg(seed));
    let text = stdout_ok(&output, "ldwarc crawl");
    let summary: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON summary");
    let dropped = &summary["dropped"];
    assert_eq!(dropped["over_max_links"], 30, "{summary}");
    let over_pld = dropped["over_max_frontier_per_pld"]
        .as_u64()
        .expect("count");
    let over_total = dropped["over_max_frontier"].as_u64().expect("count");
    assert_eq!(over_pld + over_total, 36, "{summary}");

    let store = StateStore::open(&root.path().join("state")).expect("state store");
    let crawl = summary["crawl"].as_i64().expect("crawl id");
    let (queued, done) = store.frontier(crawl).expect("frontier");
    assert!(queued.is_empty(), "{queued:?}");
    assert_eq!(done.len(), 15, "{done:?}");
    for pld in ["a.example", "b.example"] {
        let of_pld = done.iter().filter(|url| url.contains(pld)).count();
        assert!(of_pld <= 10, "{of_pld} URLs of {pld}: {done:?}");
    }
    assert_eq!(summary["requests"].as_u64().map(|n| n >= 15), Some(true));
}

/// A document whose parse fails is archived (its capture in the crawl log, with the parse
/// error) and marked done in the stored frontier, so a resumed crawl does not fetch it again.
#[test]
fn a_document_whose_parse_fails_is_archived_and_done() {
    let seed = "http://a.example/start";
    let bad = "http://bad.example/x";
    let mut web = Web::new();
    web.insert(
        seed,
        Resource::Document(Doc::new(vec![Triple::new(
            Term::iri(seed),
            Term::iri("http://www.w3.org/2000/01/rdf-schema#seeAlso"),
            Term::iri(bad),
        )])),
    )
    .expect("insert");
    web.insert(bad, Resource::Hostile(Hostile::MalformedRdf))
        .expect("insert");
    let server = TestWebServer::start(web).expect("test web");
    let root = tempfile::tempdir().expect("temp dir");
    let output = run(ldwarc()
        .arg("crawl")
        .arg("--root")
        .arg(root.path())
        .args(["--delay", "0.05s", "--hops", "1", "--format", "json"])
        .args([
            "--follow-predicate",
            "http://www.w3.org/2000/01/rdf-schema#seeAlso",
        ])
        .args(common::loopback_resolve(server.port()))
        .arg(seed));
    let text = stdout_ok(&output, "ldwarc crawl");
    let summary: serde_json::Value = serde_json::from_str(text.trim()).expect("JSON summary");
    let store = StateStore::open(&root.path().join("state")).expect("state store");
    let crawl = summary["crawl"].as_i64().expect("crawl id");
    let (queued, done) = store.frontier(crawl).expect("frontier");
    assert!(queued.is_empty(), "{queued:?}");
    assert!(done.iter().any(|url| url == bad), "{done:?}");
    let log = store.fetch_log(Some(crawl)).expect("log");
    let entries: Vec<_> = log.iter().filter(|e| e.url == bad).collect();
    assert_eq!(entries.len(), 1, "fetched once: {entries:?}");
    assert!(entries[0].error.is_some(), "{entries:?}");
    assert!(entries[0].record.is_some(), "archived: {entries:?}");
}

/// `check` reports each `.open` file as a warning naming it and the `ldwarc recover`
/// command (exit 0, 1 with `--strict`), also for a directory holding nothing else; after
/// `recover` the file is checked as any other.
#[test]
fn check_reports_open_files_and_suggests_recover() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    std::fs::create_dir_all(root.join("warc/2024")).expect("dir");
    // One whole record (a gzip member, as crawls write them) and the start of the next.
    let open = root.join("warc/2024/crawl.warc.gz.open");
    let member = |bytes: &[u8]| {
        let mut gzip = GzEncoder::new(Vec::new(), Compression::default());
        gzip.write_all(bytes).expect("gzip");
        gzip.finish().expect("gzip")
    };
    let mut bytes = member(&warc("http://a.example/"));
    let next = member(&warc("http://b.example/"));
    bytes.extend_from_slice(&next[..next.len() / 2]);
    std::fs::write(&open, &bytes).expect("write");
    let warning = format!(
        "{}:0: warning: unfinished WARC file (its writer is still running, or was killed); \
         `ldwarc recover --root {}` keeps its complete records and cuts the rest",
        open.display(),
        root.display()
    );
    let summary =
        "checked 0 files, 0 records, 0 digests: 0 errors, 1 warnings, 1 unfinished (.open) files";
    let by_root = run(ldwarc().arg("check").arg("--root").arg(&root));
    assert_eq!(
        String::from_utf8_lossy(&by_root.stdout),
        format!("{warning}\n{summary}\n")
    );
    assert_eq!(by_root.status.code(), Some(0), "{by_root:?}");
    let strict = run(ldwarc().args(["check", "--strict", "--root"]).arg(&root));
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
    let by_dir = run(ldwarc().arg("check").arg(root.join("warc")));
    assert_eq!(
        String::from_utf8_lossy(&by_dir.stdout),
        format!("{warning}\n{summary}\n"),
        "{by_dir:?}"
    );
    assert_eq!(by_dir.status.code(), Some(0), "{by_dir:?}");

    stdout_ok(
        &run(ldwarc().arg("recover").arg("--root").arg(&root)),
        "ldwarc recover",
    );
    let after = run(ldwarc().arg("check").arg("--root").arg(&root));
    let text = String::from_utf8_lossy(&after.stdout);
    assert!(!text.contains("unfinished"), "{text}");
    assert!(text.contains("crawl.warc.gz:0: warning: the first record is not a warcinfo record"));
    assert!(
        text.ends_with("checked 1 files, 1 records, 0 digests: 0 errors, 1 warnings\n"),
        "{text}"
    );
    assert_eq!(after.status.code(), Some(0));
}
