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

/// Rewrites a package with Python: `datapackage.json` with another `wacz_version` (or
/// as it was, `-`), `datapackage-digest.json` with a `signedData` made as the WACZ Signing
/// and Verification spec says (an ECDSA P-256 key of Python's `cryptography`), and, with
/// `old`, the index as earlier ldwarc versions wrote it (`indexes/index.cdxj`).
const RESIGN: &str = r#"
import base64, gzip, hashlib, json, sys, zipfile
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
src, dst, mode, version, layout = sys.argv[1:6]
z = zipfile.ZipFile(src)
files = {i.filename: (i, z.read(i.filename)) for i in z.infolist()}
package = json.loads(files["datapackage.json"][1])
if layout == "old":
    lines = gzip.decompress(files.pop("indexes/index.cdx.gz")[1])
    info = files.pop("indexes/index.idx")[0]
    info.filename = "indexes/index.cdxj"
    files[info.filename] = (info, lines)
    package["resources"] = [r for r in package["resources"] if not r["path"].startswith("indexes/")]
    package["resources"].append({"name": "index.cdxj", "path": "indexes/index.cdxj",
        "hash": "sha256:" + hashlib.sha256(lines).hexdigest(), "bytes": len(lines)})
if version != "-":
    package["wacz_version"] = version
data = json.dumps(package, indent=2).encode()
files["datapackage.json"] = (files["datapackage.json"][0], data)
h = "sha256:" + hashlib.sha256(data).hexdigest()
digest = {"path": "datapackage.json", "hash": h}
if mode != "none":
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.sign(h.encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    signature = der if mode == "der" else r.to_bytes(32, "big") + s.to_bytes(32, "big")
    if mode == "bad":
        signature = bytes([signature[0] ^ 1]) + signature[1:]
    spki = key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)
    signed = {"hash": h, "created": "2024-01-01T00:00:00Z", "software": "test",
              "version": "0.1.0", "signature": base64.b64encode(signature).decode(),
              "publicKey": base64.b64encode(spki).decode()}
    if mode == "other-hash":
        signed["hash"] = "sha256:" + "0" * 64
    if mode == "domain":
        del signed["publicKey"]
        signed.update(domain="archive.example", domainCert="-----BEGIN CERTIFICATE-----")
    digest["signedData"] = signed
files["datapackage-digest.json"] = (files["datapackage-digest.json"][0], json.dumps(digest).encode())
out = zipfile.ZipFile(dst, "w")
for info, data in files.values():
    out.writestr(info, data)
out.close()
"#;

/// One package variant: (signature, version, index layout, refusal, note on stderr).
type Case<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// Signed packages (WACZ Signing and Verification): an anonymous ECDSA P-256 signature,
/// as WebCrypto (r‖s) or DER writes it, is verified and the package imports; one that does
/// not verify, or signs another hash, is refused (exit 2) and writes nothing; a domain
/// signature is said to be NOT verified. WACZ 1.0.0 imports; an unknown version is refused
/// naming it; a package of an earlier ldwarc (`indexes/index.cdxj`) imports as before.
#[test]
fn signed_and_versioned_packages() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let body = b"<http://data.example/doc> <http://purl.org/dc/terms/title> \"Doc\" .\n";
    let url = "http://data.example/doc.ttl";
    write_archive(
        &root,
        &[Exchange::ok(
            url,
            "2024-01-01T00:00:00Z",
            "text/turtle",
            body,
        )],
    );
    let package = dir.path().join("plain.wacz");
    stdout_ok(
        &run(ldwarc()
            .args(["export", "--root"])
            .arg(&root)
            .arg("--wacz")
            .arg(&package)),
        "ldwarc export --wacz",
    );
    let expected = cdx(&root);
    let cases: [Case; 9] = [
        // (signature, version, layout, refusal, note)
        (
            "raw",
            "-",
            "new",
            None,
            Some("anonymous signature verified (ECDSA P-256"),
        ),
        (
            "der",
            "-",
            "new",
            None,
            Some("anonymous signature verified (ECDSA P-256"),
        ),
        (
            "bad",
            "-",
            "new",
            Some("does not verify with its publicKey"),
            None,
        ),
        (
            "other-hash",
            "-",
            "new",
            Some("the signature (signedData) is of another"),
            None,
        ),
        (
            "domain",
            "-",
            "new",
            None,
            Some("is present and NOT verified"),
        ),
        ("none", "1.0.0", "new", None, None),
        (
            "none",
            "2.0.0",
            "new",
            Some("WACZ version \"2.0.0\": ldwarc imports WACZ 1.0.0"),
            None,
        ),
        ("none", "-", "old", None, None),
        (
            "raw",
            "-",
            "old",
            None,
            Some("anonymous signature verified"),
        ),
    ];
    for (n, (mode, version, layout, refusal, note)) in cases.iter().enumerate() {
        let changed = dir.path().join(format!("case-{n}-{mode}.wacz"));
        // Python's `cryptography` is in the pywb venv (pinned by .ci/setup-interop.sh).
        let made = run(std::process::Command::new(pywb_bin("python"))
            .args(["-c", RESIGN])
            .arg(&package)
            .arg(&changed)
            .args([mode, version, layout]));
        assert!(made.status.success(), "{made:?}");
        let target = dir.path().join(format!("import-{n}"));
        let output = run(ldwarc()
            .args(["import", "--root"])
            .arg(&target)
            .arg(&changed));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let case = format!("{mode} {version} {layout}");
        match refusal {
            Some(message) => {
                assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
                assert!(stderr.contains(message), "{case}: {stderr}");
                assert!(stderr.contains(&changed.display().to_string()), "{stderr}");
                assert!(!target.join("warc").exists(), "{case}: files written");
            }
            None => {
                assert_eq!(output.status.code(), Some(0), "{case}: {stderr}");
                assert_eq!(cdx(&target), expected, "{case}");
                match note {
                    Some(note) => assert!(stderr.contains(note), "{case}: {stderr}"),
                    None => assert!(!stderr.contains("signature"), "{case}: {stderr}"),
                }
            }
        }
    }
}
