//! `ldwarc index` + `ldwarc cdx` against `cdxj-indexer -s --dir-root <root>/warc <root>/warc`
//! on (a) the pywb 2.10.0 sample archive's WARC and ARC files, dropped under `warc/sample/` as
//! files written by other tools, and (b) a generated archive in the `YYYY/MM/DD/HH/<pld>`
//! layout (see `common/generated.rs`): the same lines in the same order, JSON compared
//! parsed, digests normalised to one spelling (`cdxj-indexer` copies `WARC-Payload-Digest`
//! verbatim, e.g. hex SHA-1 in `example2.warc.gz`; ldwarc writes `sha1:` + Base32).
//!
//! Also: a second `ldwarc index` adds nothing, `ldwarc index --verify` finds no discrepancy,
//! `--format cdx11` has the legend first, 11 fields per line, byte order, and the captures of
//! the CDXJ export (and of `cdxj-indexer -11`), and a `URL-PREFIX` export is the full export
//! filtered by SURT prefix (SURTs of the prefixes from the Python `surt` package).

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{generated, ldwarc, pywb_sample_warcs, run, stdout_ok, venv_bin};
use ldwarc_warc::canonical_digest;
use serde_json::Value;

/// The sample file gzipped as a whole: neither tool can index it past its first record.
const WHOLE_FILE_GZIP: &str = "example-bad.warc.gz.bad";

/// One CDXJ line, parsed.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    urlkey: String,
    timestamp: String,
    json: Value,
}

/// Parses CDXJ, normalising `digest` to `sha1:` + upper-case Base32.
fn parse_cdxj(text: &str, what: &str) -> Vec<Line> {
    text.lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let (Some(urlkey), Some(timestamp), Some(json)) =
                (parts.next(), parts.next(), parts.next())
            else {
                panic!("{what}: not a CDXJ line: {line:?}");
            };
            let mut json: Value = serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("{what}: bad JSON in {line:?}: {e}"));
            if let Some(digest) = json.get_mut("digest") {
                let text = digest.as_str().expect("digest is a string").to_string();
                *digest = Value::from(canonical_digest(&text));
            }
            Line {
                urlkey: urlkey.to_string(),
                timestamp: timestamp.to_string(),
                json,
            }
        })
        .collect()
}

fn assert_same_lines(ours: &[Line], theirs: &[Line], what: &str) {
    let differing: Vec<String> = ours
        .iter()
        .zip(theirs)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .take(5)
        .map(|(i, (a, b))| {
            format!(
                "line {}:\n  ldwarc:       {a:?}\n  cdxj-indexer: {b:?}",
                i + 1
            )
        })
        .collect();
    assert!(
        differing.is_empty() && ours.len() == theirs.len(),
        "{what}: ldwarc cdx ({} lines) differs from cdxj-indexer ({} lines):\n{}",
        ours.len(),
        theirs.len(),
        differing.join("\n")
    );
}

fn ldwarc_ok(args: &[&str], root: &Path) -> String {
    let output = run(ldwarc().args(args).arg("--root").arg(root));
    stdout_ok(&output, &format!("ldwarc {}", args.join(" ")))
}

/// Runs `ldwarc index`, returning the numbers of captures added and of revisits it reports
/// unresolved.
/// Runs `ldwarc index`: captures added and revisits unresolved, having checked that the exit
/// status is 1 exactly when damaged places were reported.
fn index(root: &Path) -> (u64, u64) {
    let output = run(ldwarc().arg("index").arg("--root").arg(root));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let summary = stdout
        .lines()
        .find(|l| l.starts_with("indexed "))
        .unwrap_or_else(|| panic!("no summary line in ldwarc index output:\n{stdout}"));
    // "indexed F of N files: A captures added, U revisits unresolved, D damaged places"
    let count = |label: &str| -> u64 {
        summary
            .split([':', ','])
            .find(|part| part.trim().ends_with(label))
            .and_then(|part| part.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {label:?} count in {summary:?}"))
    };
    let damaged = count("damaged places");
    assert_eq!(
        output.status.code(),
        Some(if damaged > 0 { 1 } else { 0 }),
        "{summary}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (count("captures added"), count("revisits unresolved"))
}

fn cdxj_indexer(root: &Path, extra: &[&str]) -> String {
    let warc = root.join("warc");
    let output = run(Command::new(venv_bin("cdxj-indexer"))
        .args(extra)
        .arg("-s")
        .arg("--dir-root")
        .arg(&warc)
        .arg(&warc));
    stdout_ok(&output, "cdxj-indexer")
}

/// The keys cdxj-indexer gives POST and PUT captures with `--post-append` (as pywb, py-wacz
/// and browsertrix index them), by filename and offset (JSON-quoted). Only the keys are taken
/// from that run: in it, cdxj-indexer digests the payload of a record without a
/// `WARC-Payload-Digest` after reading it, so as the empty payload.
fn post_keys(root: &Path) -> std::collections::HashMap<(String, String), String> {
    parse_cdxj(
        &cdxj_indexer(root, &["--post-append"]),
        "cdxj-indexer --post-append",
    )
    .into_iter()
    .filter(|line| line.urlkey.contains("__wb_method="))
    .map(|line| {
        let at = (
            line.json["filename"].to_string(),
            line.json["offset"].to_string(),
        );
        (at, line.urlkey)
    })
    .collect()
}

/// SURTs from the Python `surt` package (what cdxj-indexer and pywb use).
fn python_surts(urls: &[&str]) -> Vec<String> {
    let output = run(Command::new(venv_bin("python"))
        .arg("-c")
        .arg("import sys, surt\nfor u in sys.argv[1:]: print(surt.surt(u))")
        .args(urls));
    stdout_ok(&output, "python surt")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A CDX-11 line's fields with the digest normalised.
fn cdx11_fields(line: &str) -> Vec<String> {
    let mut fields: Vec<String> = line.split(' ').map(str::to_string).collect();
    assert_eq!(
        fields.len(),
        11,
        "CDX-11 line with {} fields: {line:?}",
        fields.len()
    );
    if fields[5] != "-" {
        fields[5] = canonical_digest(&format!("sha1:{}", fields[5]));
    }
    fields
}

/// The CDX-11 fields a CDXJ line implies (`r` and `M` unknown: `-`).
fn cdx11_of_cdxj(line: &Line) -> Vec<String> {
    let field = |name: &str| {
        line.json
            .get(name)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map_or_else(|| "-".to_string(), str::to_string)
    };
    vec![
        line.urlkey.clone(),
        line.timestamp.clone(),
        field("url"),
        field("mime"),
        field("status"),
        field("digest"),
        "-".into(),
        "-".into(),
        field("length"),
        field("offset"),
        field("filename"),
    ]
}

/// Everything the test checks on one archive root. Returns the CDX-11 lines.
///
/// `with_indexer_cdx11`: also compare with `cdxj-indexer -11`, which (1.5.0) crashes with
/// `AttributeError: 'NoneType' object has no attribute 'split'` on a capture without a
/// digest, such as a `server-not-modified` revisit without `WARC-Payload-Digest`.
fn check_archive(
    root: &Path,
    prefixes: &[&str],
    with_indexer_cdx11: bool,
) -> (Vec<Vec<String>>, u64) {
    let (added, unresolved) = index(root);
    assert!(added > 0, "the first ldwarc index added nothing");
    assert_eq!(index(root), (0, 0), "a second ldwarc index added captures");

    // CDXJ: line for line what cdxj-indexer writes.
    let ours_text = ldwarc_ok(&["cdx"], root);
    let ours = parse_cdxj(&ours_text, "ldwarc cdx");
    let post_keys = post_keys(root);
    let mut theirs = parse_cdxj(&cdxj_indexer(root, &[]), "cdxj-indexer");
    for line in &mut theirs {
        if let Some(key) = post_keys.get(&(
            line.json["filename"].to_string(),
            line.json["offset"].to_string(),
        )) {
            line.urlkey.clone_from(key);
        }
    }
    theirs.sort_by(|a, b| (&a.urlkey, &a.timestamp).cmp(&(&b.urlkey, &b.timestamp)));
    let mut ours_sorted = parse_cdxj(&ours_text, "ldwarc cdx");
    ours_sorted.sort_by(|a, b| (&a.urlkey, &a.timestamp).cmp(&(&b.urlkey, &b.timestamp)));
    assert_eq!(ours.len() as u64, added);
    assert_same_lines(&ours_sorted, &theirs, &root.display().to_string());
    let raw: Vec<&str> = ours_text.lines().collect();
    assert!(
        raw.windows(2).all(|w| w[0].as_bytes() <= w[1].as_bytes()),
        "ldwarc cdx is not byte-sorted"
    );

    // --verify: exit 0, every capture checked, nothing wrong.
    let output = run(ldwarc().args(["index", "--verify", "--root"]).arg(root));
    let stdout = stdout_ok(&output, "ldwarc index --verify");
    assert_eq!(
        stdout,
        format!("verified {added} captures: 0 discrepancies\n"),
        "ldwarc index --verify"
    );

    // CDX-11: legend, 11 fields, byte order, the CDXJ export's captures.
    let cdx11_text = ldwarc_ok(&["cdx", "--format", "cdx11"], root);
    let mut lines = cdx11_text.lines();
    assert_eq!(lines.next(), Some(" CDX N b a m s k r M S V g"));
    let body: Vec<&str> = lines.collect();
    assert!(
        body.windows(2).all(|w| w[0].as_bytes() <= w[1].as_bytes()),
        "ldwarc cdx --format cdx11 is not byte-sorted (LC_ALL=C)"
    );
    let cdx11: Vec<Vec<String>> = body.iter().map(|l| cdx11_fields(l)).collect();
    let mut without_redirect: Vec<Vec<String>> = cdx11
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f[6] = "-".into();
            f
        })
        .collect();
    without_redirect.sort();
    let mut from_cdxj: Vec<Vec<String>> = ours.iter().map(cdx11_of_cdxj).collect();
    from_cdxj.sort();
    assert_eq!(
        without_redirect, from_cdxj,
        "CDX-11 and CDXJ exports hold different captures"
    );
    if with_indexer_cdx11 {
        // cdxj-indexer -11 (which always writes `-` for the redirect) agrees too.
        let mut theirs11: Vec<Vec<String>> = cdxj_indexer(root, &["-11"])
            .lines()
            .filter(|l| !l.starts_with(" CDX"))
            .map(cdx11_fields)
            .collect();
        for fields in &mut theirs11 {
            let at = (format!("{:?}", fields[10]), format!("{:?}", fields[9]));
            if let Some(key) = post_keys.get(&at) {
                fields[0].clone_from(key);
            }
        }
        theirs11.sort();
        assert_eq!(
            without_redirect, theirs11,
            "ldwarc CDX-11 vs cdxj-indexer -11"
        );
    }

    // URL-PREFIX exports: the full export filtered by SURT prefix.
    let surts = python_surts(prefixes);
    assert_eq!(surts.len(), prefixes.len());
    for (prefix, surt) in prefixes.iter().zip(surts) {
        let mut key = surt;
        if prefix.ends_with('/') && !key.ends_with('/') {
            key.push('/');
        }
        let expected: Vec<&str> = raw
            .iter()
            .copied()
            .filter(|l| l.starts_with(&key))
            .collect();
        let got_text = ldwarc_ok(&["cdx", prefix], root);
        let got: Vec<&str> = got_text.lines().collect();
        assert!(
            !expected.is_empty(),
            "prefix {prefix} ({key}) selects nothing"
        );
        assert_eq!(got, expected, "ldwarc cdx {prefix} (SURT prefix {key})");
    }
    (cdx11, unresolved)
}

#[test]
fn sample_archive_equals_cdxj_indexer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let sample = root.join("warc/sample");
    std::fs::create_dir_all(&sample).expect("mkdir");
    let mut copied = 0;
    for entry in std::fs::read_dir(pywb_sample_warcs()).expect("list sample") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if name == WHOLE_FILE_GZIP {
            continue;
        }
        std::fs::copy(&path, sample.join(&name)).expect("copy sample file");
        copied += 1;
    }
    assert_eq!(copied, 16, "sample archive files");
    check_archive(
        root,
        &[
            "http://www.iana.org/_css/",
            "example.com/",
            "http://httpbin.org/anything",
            "iana.org/domains",
        ],
        true,
    );
}

#[test]
fn generated_archive_equals_cdxj_indexer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let archive = generated::generate(root, 0x1D_3A2C);
    let hours: std::collections::BTreeSet<&str> = archive
        .captures
        .iter()
        .map(|c| &c.file[..c.file.rfind('/').unwrap_or(0)])
        .collect();
    assert!(hours.len() >= 30, "partitions: {hours:?}");
    for kind in ["response", "revisit", "resource", "metadata"] {
        assert!(
            archive.captures.iter().any(|c| c.record_type == kind),
            "no {kind} record generated"
        );
    }
    let (cdx11, unresolved) = check_archive(
        root,
        &[
            "http://example.org/resource/Berlin",
            "http://dbpedia.org/",
            "https://www.w3.org/ns/",
            "example.org/sparql?",
            "http://例え.jp/",
            "http://data.example.com:8080/",
            "http://example.org/café/",
        ],
        false,
    );
    // Files are written in time order, so every revisit (including the `server-not-modified`
    // ones without a payload digest, resolved by Refers-To-Target-URI and -Date) finds its
    // original while indexing.
    assert_eq!(unresolved, 0, "revisits left unresolved by ldwarc index");
    // The CDX-11 `r` field carries the redirect target of 3xx captures (cdxj-indexer writes
    // none; OpenWayback reads it).
    for fields in &cdx11 {
        let redirect = matches!(fields[4].as_str(), "301" | "302" | "303");
        assert_eq!(
            fields[6] != "-",
            redirect,
            "redirect field of {}",
            fields.join(" ")
        );
    }
    assert_eq!(cdx11.len(), archive.captures.len());
}

/// Whether the index under `root` records segments sorted by urlkey.
fn sorted_by_key(root: &Path) -> bool {
    let meta: Value = serde_json::from_slice(
        &std::fs::read(root.join("index/meta.json")).expect("index meta file"),
    )
    .expect("meta file is JSON");
    meta["index_settings"]["sort_by_field"]
        == serde_json::json!({"field": "urlkey", "order": "Asc"})
}

#[test]
fn an_index_in_indexing_order_exports_the_same_and_a_rebuild_sorts_it() {
    use ldwarc_archive::index::CaptureIndex;
    use ldwarc_archive::index::store::{DocOrder, DocStoreCompression};

    let dir = tempfile::tempdir().expect("temp dir");
    let (sorted_root, old_root) = (dir.path().join("sorted"), dir.path().join("old"));
    std::fs::create_dir_all(&old_root).expect("old root");
    generated::generate(&sorted_root, 0x50_27ED);
    // The same files under both roots (two generated archives differ in record ids).
    let copied = run(Command::new("cp")
        .arg("-r")
        .arg(sorted_root.join("warc"))
        .arg(old_root.join("warc")));
    assert!(copied.status.success(), "cp -r of the WARC tree");
    // An index laid out as earlier versions made them, filled by an ordinary run.
    drop(
        CaptureIndex::open_or_create_with(
            &old_root.join("index"),
            DocStoreCompression::Zstd,
            DocOrder::AsIndexed,
        )
        .expect("index in indexing order"),
    );
    let (added, _) = index(&old_root);
    assert!(added > 300, "{added} captures");
    assert_eq!(index(&sorted_root).0, added);
    assert!(!sorted_by_key(&old_root) && sorted_by_key(&sorted_root));
    let exports = |root: &Path| -> Vec<String> {
        ["cdxj", "cdx11"]
            .iter()
            .map(|format| ldwarc_ok(&["cdx", "--format", format], root))
            .collect()
    };
    let expected = exports(&sorted_root);
    assert!(expected[0].lines().count() as u64 >= added);
    assert!(
        exports(&old_root) == expected,
        "exports of the two layouts differ"
    );
    // An incremental run keeps the old layout; a rebuild makes the index key-sorted.
    assert_eq!(index(&old_root).0, 0);
    assert!(!sorted_by_key(&old_root));
    let rebuilt = ldwarc_ok(&["index", "--rebuild"], &old_root);
    assert!(
        rebuilt.contains(&format!("{added} captures added")),
        "{rebuilt}"
    );
    assert!(sorted_by_key(&old_root), "rebuilt index is key-sorted");
    assert!(
        exports(&old_root) == expected,
        "export after the rebuild differs"
    );
    let verify = ldwarc_ok(&["index", "--verify"], &old_root);
    assert!(!verify.is_empty());
}
