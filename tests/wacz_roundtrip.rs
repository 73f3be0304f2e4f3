//! WACZ 1.1.1: `ldwarc export --wacz` of a generated archive passes py-wacz's `wacz
//! validate`, every resource's size and SHA-256 (read back with Python's zipfile) match
//! `datapackage.json`, `pages.jsonl` lists every captured document (titled from its graph
//! where it has a title); `ldwarc import` of it gives an archive whose `ldwarc cdx` export
//! equals the original's; a WACZ made by py-wacz (`wacz create`, as browsertrix-crawler
//! packages) imports and indexes as its WARC does; a damaged package is refused and
//! changes nothing.

use crate::common;
use crate::warc_fixture;

use std::collections::BTreeSet;
use std::path::Path;

use common::{generate_indexed, ldwarc, pywb_bin, pywb_sample_warcs, run, stdout_ok, venv_bin};
use serde_json::Value;
use warc_fixture::{Exchange, write_archive};

/// Reads a package with Python's zipfile: every resource checked against datapackage.json
/// (size, SHA-256), the compression of archive/ entries, and the pages.
const INSPECT: &str = r#"
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
package = json.loads(z.read("datapackage.json"))
digest = json.loads(z.read("datapackage-digest.json"))
bad = []
if digest["hash"] != "sha256:" + hashlib.sha256(z.read("datapackage.json")).hexdigest():
    bad.append("datapackage.json digest")
listed = {r["path"] for r in package["resources"]}
for r in package["resources"]:
    data = z.read(r["path"])
    if "sha256:" + hashlib.sha256(data).hexdigest() != r["hash"] or len(data) != r["bytes"]:
        bad.append(r["path"])
for info in z.infolist():
    if info.filename.startswith("archive/") and info.compress_type != zipfile.ZIP_STORED:
        bad.append("compressed " + info.filename)
    if info.filename not in listed and not info.filename.startswith("datapackage"):
        bad.append("unlisted " + info.filename)
pages = [json.loads(l) for l in z.read("pages/pages.jsonl").decode().splitlines()]
print(json.dumps({"bad": bad, "version": package["wacz_version"], "pages": pages,
                  "warcs": sorted(p for p in listed if p.startswith("archive/"))}))
"#;

fn inspect(package: &Path) -> Value {
    let output = run(std::process::Command::new(venv_bin("python"))
        .args(["-c", INSPECT])
        .arg(package));
    serde_json::from_str(stdout_ok(&output, "inspect the WACZ").trim()).expect("JSON")
}

fn validate(package: &Path) {
    let output = run(std::process::Command::new(pywb_bin("wacz"))
        .args(["validate", "-f"])
        .arg(package));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && text.contains("Validation succeeded"),
        "wacz validate {}: {text}{}",
        package.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn cdx(root: &Path) -> String {
    stdout_ok(
        &run(ldwarc().arg("cdx").arg("--root").arg(root)),
        "ldwarc cdx",
    )
}

#[test]
fn wacz_export_validates_and_imports_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let (_, export) = generate_indexed(&root, 0x3ACE);
    let package = dir.path().join("archive.wacz");
    stdout_ok(
        &run(ldwarc()
            .args(["export", "--root"])
            .arg(&root)
            .arg("--wacz")
            .arg(&package)),
        "ldwarc export --wacz",
    );
    validate(&package);
    let inspected = inspect(&package);
    assert_eq!(inspected["bad"], serde_json::json!([]), "{inspected}");
    assert_eq!(inspected["version"], "1.1.1");
    let pages = inspected["pages"].as_array().expect("pages");
    assert_eq!(pages[0]["format"], "json-pages-1.0");
    let listed: BTreeSet<&str> = pages[1..]
        .iter()
        .filter_map(|p| p["url"].as_str())
        .collect();
    let documents: BTreeSet<String> = export
        .lines()
        .filter_map(|line| {
            let (_, json) = line.split_once(" {")?;
            let row: Value = serde_json::from_str(&format!("{{{json}")).ok()?;
            row["status"]
                .as_str()
                .filter(|s| s.starts_with('2'))
                .and(row["url"].as_str().map(String::from))
        })
        .collect();
    assert!(documents.len() > 10);
    for url in &documents {
        assert!(listed.contains(url.as_str()), "{url} is not a page");
    }

    let imported = dir.path().join("imported");
    stdout_ok(
        &run(ldwarc()
            .args(["import", "--root"])
            .arg(&imported)
            .arg(&package)),
        "ldwarc import",
    );
    assert_eq!(cdx(&imported), export, "the imported archive's index");
    // Again: the files are there already, so nothing is written.
    let again = run(ldwarc()
        .args(["import", "--root"])
        .arg(&imported)
        .arg(&package));
    assert_eq!(again.status.code(), Some(2), "{again:?}");
}

#[test]
fn wacz_pages_have_titles_from_the_graph() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    write_archive(
        &root,
        &[
            Exchange::ok(
                "http://example.org/berlin",
                "2024-01-01T00:00:00Z",
                "text/turtle",
                "<http://example.org/berlin> <http://www.w3.org/2000/01/rdf-schema#label> \"a label\" ;\n\
                 <http://purl.org/dc/terms/title> \"Berlin \\\"Mitte\\\"\"@de .\n"
                    .as_bytes(),
            ),
            Exchange::ok(
                "http://example.org/untitled",
                "2024-01-01T00:00:01Z",
                "text/turtle",
                b"<http://example.org/x> <http://example.org/p> 1 .\n",
            ),
        ],
    );
    let package = dir.path().join("small.wacz");
    stdout_ok(
        &run(ldwarc()
            .args(["export", "--root"])
            .arg(&root)
            .arg("--wacz")
            .arg(&package)
            .args(["--url", "http://example.org/berlin"])),
        "ldwarc export --wacz --url",
    );
    validate(&package);
    let inspected = inspect(&package);
    let pages = inspected["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 2, "header and one document: {pages:?}");
    assert_eq!(pages[1]["url"], "http://example.org/berlin");
    assert_eq!(pages[1]["title"], "Berlin \"Mitte\"");
    assert_eq!(pages[1]["ts"], "2024-01-01T00:00:00Z");
    // The scope flags of snapshot and diff choose the same captures here.
    for (flag, value, expected) in [
        (
            "--prefix",
            "http://example.org/b",
            vec!["http://example.org/berlin"],
        ),
        (
            "--host",
            "example.org",
            vec!["http://example.org/berlin", "http://example.org/untitled"],
        ),
        (
            "--domain",
            "example.org",
            vec!["http://example.org/berlin", "http://example.org/untitled"],
        ),
    ] {
        let scoped = dir.path().join(format!("scoped{flag}.wacz"));
        stdout_ok(
            &run(ldwarc()
                .args(["export", "--root"])
                .arg(&root)
                .arg("--wacz")
                .arg(&scoped)
                .args([flag, value])),
            &format!("ldwarc export --wacz {flag} {value}"),
        );
        let inspected = inspect(&scoped);
        let mut urls: Vec<&str> = inspected["pages"].as_array().expect("pages")[1..]
            .iter()
            .filter_map(|p| p["url"].as_str())
            .collect();
        urls.sort_unstable();
        assert_eq!(urls, expected, "export {flag} {value}");
    }
    let nothing = run(ldwarc()
        .args(["export", "--root"])
        .arg(&root)
        .arg("--wacz")
        .arg(dir.path().join("none.wacz"))
        .args(["--url", "http://example.org/none"]));
    assert_eq!(nothing.status.code(), Some(2), "{nothing:?}");
    assert!(!dir.path().join("none.wacz").exists());
}

#[test]
fn browsertrix_style_wacz_imports_and_damage_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let warc = pywb_sample_warcs().join("example.warc.gz");
    let package = dir.path().join("crawl.wacz");
    let created = run(std::process::Command::new(pywb_bin("wacz"))
        .args(["create", "--detect-pages", "-o"])
        .arg(&package)
        .arg(&warc));
    assert!(created.status.success(), "{created:?}");

    // The same WARC indexed directly, for comparison.
    let direct = dir.path().join("direct");
    std::fs::create_dir_all(direct.join("warc/imported/crawl")).expect("dir");
    std::fs::copy(&warc, direct.join("warc/imported/crawl/example.warc.gz")).expect("copy");
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(&direct)),
        "ldwarc index",
    );
    let imported = dir.path().join("imported");
    stdout_ok(
        &run(ldwarc()
            .args(["import", "--root"])
            .arg(&imported)
            .arg(&package)),
        "ldwarc import of a py-wacz package",
    );
    let expected = cdx(&direct);
    assert!(expected.lines().count() >= 2, "{expected}");
    assert_eq!(cdx(&imported), expected);

    // One byte of the WARC changed inside the package: refused, nothing written.
    let mut bytes = std::fs::read(&package).expect("read");
    let warc_bytes = std::fs::read(&warc).expect("read the WARC");
    let stored_at = bytes
        .windows(64)
        .position(|w| w == &warc_bytes[..64])
        .expect("the WARC stored in the package");
    bytes[stored_at + 100] ^= 0xff;
    let damaged = dir.path().join("damaged.wacz");
    std::fs::write(&damaged, &bytes).expect("write");
    let fresh = dir.path().join("fresh");
    let refused = run(ldwarc()
        .args(["import", "--root"])
        .arg(&fresh)
        .arg(&damaged));
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("damaged.wacz"), "{stderr}");
    assert!(
        !fresh.exists(),
        "{} created: {:?}",
        fresh.display(),
        walk(&fresh)
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A package of the captures since a date holds, in its index, the originals its revisits
/// refer to (captured earlier): pywb, serving the package's `archive/` with its
/// `indexes/index.cdxj`, replays the revisit with the original's payload, and `pages.jsonl`
/// lists the document the revisit shows.
#[test]
fn a_package_since_a_date_indexes_the_originals_of_its_revisits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let url = "http://data.example/doc.ttl";
    let body = b"<http://data.example/doc> <http://purl.org/dc/terms/title> \"Doc\" .\n";
    let original_date = "2024-01-01T00:00:00Z";
    let digest = crate::warc_fixture::sha1_payload_digest(body);
    let original = Exchange {
        payload_digest: Some(digest.clone()),
        ..Exchange::ok(url, original_date, "text/turtle", body)
    };
    // The payload unchanged a month later, recorded as a revisit of the first capture.
    let revisit = Exchange {
        body: Vec::new(),
        revisit_of: Some((url.to_string(), original_date.to_string())),
        payload_digest: Some(digest),
        ..Exchange::ok(url, "2024-02-01T00:00:00Z", "text/turtle", b"")
    };
    // Another document answered 304 to a conditional request a month later.
    let other = "http://data.example/other.ttl";
    let other_body = b"<http://data.example/other> <http://purl.org/dc/terms/title> \"O\" .\n";
    let not_modified = Exchange::not_modified(other, "2024-02-01T00:00:00Z", original_date);
    write_archive(
        &root,
        &[
            original,
            revisit,
            Exchange::ok(other, original_date, "text/turtle", other_body),
            not_modified,
        ],
    );
    let package = dir.path().join("since.wacz");
    stdout_ok(
        &run(ldwarc()
            .args(["export", "--from", "2024-02-01", "--wacz"])
            .arg(&package)
            .arg("--root")
            .arg(&root)),
        "ldwarc export --from",
    );
    validate(&package);
    let report = inspect(&package);
    assert_eq!(report["bad"], serde_json::json!([]), "{report}");
    let pages: Vec<&str> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["url"].as_str())
        .collect();
    assert_eq!(pages, [url, other], "{report}");

    // The index is what py-wacz writes: gzip blocks (read whole, the CDXJ lines) and a
    // block index.
    let unpacked = dir.path().join("unpacked");
    stdout_ok(
        &run(std::process::Command::new(venv_bin("python"))
            .args([
                "-c",
                "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
            ])
            .arg(&package)
            .arg(&unpacked)),
        "unzip the package",
    );
    let mut lines = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::MultiGzDecoder::new(
            std::fs::File::open(unpacked.join("indexes/index.cdx.gz")).unwrap(),
        ),
        &mut lines,
    )
    .unwrap();
    assert_eq!(
        lines.lines().count(),
        4,
        "the revisits and their originals:\n{lines}"
    );
    let first_key = lines.lines().next().unwrap().split(" {").next().unwrap();
    let block_index = std::fs::read_to_string(unpacked.join("indexes/index.idx")).unwrap();
    let blocks: Vec<&str> = block_index.lines().collect();
    assert_eq!(blocks.len(), 2, "{block_index}");
    assert_eq!(
        blocks[0],
        r#"!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}"#
    );
    let size = std::fs::metadata(unpacked.join("indexes/index.cdx.gz"))
        .unwrap()
        .len();
    assert!(
        blocks[1].starts_with(&format!(
            "{first_key} {{\"offset\": 0, \"length\": {size}, \"digest\": \"sha256:"
        )),
        "{block_index}"
    );
    // pywb's own unpacking finds that index, copies the WARC files and replays from them.
    let home = dir.path().join("pywb");
    std::fs::create_dir(&home).unwrap();
    for args in [
        vec!["init".to_string(), "pkg".to_string()],
        vec![
            "add".to_string(),
            "--unpack-wacz".to_string(),
            "pkg".to_string(),
            package.display().to_string(),
        ],
    ] {
        let output = run(std::process::Command::new(pywb_bin("wb-manager"))
            .args(&args)
            .current_dir(&home));
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "wb-manager {args:?}: {log}");
        assert!(!log.contains("does not contain any indices"), "{log}");
    }
    let collection = home.join("collections/pkg");
    let index = collection.join("indexes/index.cdxj");
    let unpacked_lines = std::fs::read_to_string(&index).unwrap();
    assert_eq!(unpacked_lines.lines().count(), 4, "{unpacked_lines}");
    let pywb = common::Pywb::start(&[common::PywbCollection {
        name: "pkg",
        index: &index,
        archive_dir: &collection.join("archive"),
    }]);
    let answer = pywb.get(&format!("/pkg/20240201000000id_/{url}"));
    assert_eq!(answer.status, 200, "{}\n{}", answer.text(), pywb.log());
    assert_eq!(answer.body, body, "{}\n{}", answer.text(), pywb.log());
}
