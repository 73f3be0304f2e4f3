//! ldwarc against warcio on every WARC and ARC file of the pywb 2.10.0 sample archive:
//! `ldwarc ls --json` reports the record offsets and lengths `warcio index` reports, random
//! access through the library lands on the same records, and `ldwarc check` agrees with
//! `warcio check` on which files carry a bad digest.

use crate::common;

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use common::{ldwarc, pywb_sample_warcs, run, venv_bin};
use ldwarc_warc::WarcReader;
use serde_json::Value;

/// The file gzipped as a whole (one gzip member for all records) in the sample archive.
const WHOLE_FILE_GZIP: &str = "example-bad.warc.gz.bad";

/// Every file of the sample archive the brief names, so a missing one fails loudly.
const EXPECTED_FILES: &[&str] = &[
    "bad.arc",
    "dupes.warc.gz",
    "example-bad.warc.gz.bad",
    "example-extra.warc",
    "example-url-agnostic-orig.warc.gz",
    "example-url-agnostic-revisit.warc.gz",
    "example-wget-1-14.warc.gz",
    "example-wpull.warc.gz",
    "example.arc",
    "example.arc.gz",
    "example.warc",
    "example.warc.gz",
    "example2.warc.gz",
    "httpbin-resource.warc.gz",
    "iana.warc.gz",
    "missing-status-text.warc",
    "post-test.warc.gz",
];

/// One record as both tools list it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    offset: u64,
    length: Option<i64>,
    record_type: String,
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// All WARC and ARC files of the sample archive: plain, gzip, ARC and the whole-file gzip.
fn sample_files() -> Vec<PathBuf> {
    let dir = pywb_sample_warcs();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| {
            let name = file_name(path);
            [".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.gz.bad"]
                .iter()
                .any(|ext| name.ends_with(ext))
        })
        .collect();
    files.sort();
    let names: BTreeSet<String> = files.iter().map(|p| file_name(p)).collect();
    for expected in EXPECTED_FILES {
        assert!(
            names.contains(*expected),
            "sample archive {} lacks {expected}; found {names:?}",
            dir.display()
        );
    }
    files
}

fn json_lines(text: &str, what: &str) -> Vec<Value> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: not a JSON line ({e}): {line:?}"))
        })
        .collect()
}

/// `ldwarc ls --json FILE`. Damaged files make it exit 1 (after listing every readable
/// record); anything else (a panic, a usage error) fails the test.
fn ldwarc_ls(path: &Path) -> Vec<Listed> {
    let output = run(ldwarc().arg("ls").args(["--format", "json"]).arg(path));
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "ldwarc ls --json {} exited with {:?}\nstderr: {}",
        path.display(),
        code,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("ldwarc ls prints UTF-8");
    json_lines(&stdout, "ldwarc ls --json")
        .into_iter()
        .map(|record| Listed {
            offset: record["offset"]
                .as_u64()
                .unwrap_or_else(|| panic!("ldwarc ls: offset is not a number in {record}")),
            length: match &record["length"] {
                Value::Null => None,
                value => Some(
                    value
                        .as_i64()
                        .unwrap_or_else(|| panic!("ldwarc ls: bad length in {record}")),
                ),
            },
            record_type: record["type"].as_str().unwrap_or("").to_string(),
        })
        .collect()
}

/// `warcio index -f offset,length,warc-type FILE`: every value is a string. Returns the
/// records and whether warcio exited successfully.
fn warcio_index(path: &Path) -> (Vec<Listed>, bool, String) {
    let output = run(std::process::Command::new(venv_bin("warcio"))
        .args(["index", "-f", "offset,length,warc-type"])
        .arg(path));
    let stdout = String::from_utf8(output.stdout).expect("warcio index prints UTF-8");
    let records = json_lines(&stdout, "warcio index")
        .into_iter()
        .map(|record| {
            let number = |key: &str| -> Option<i64> {
                record[key].as_str().map(|text| {
                    text.parse()
                        .unwrap_or_else(|e| panic!("warcio index: {key} {text:?}: {e}"))
                })
            };
            Listed {
                offset: number("offset")
                    .and_then(|o| u64::try_from(o).ok())
                    .unwrap_or_else(|| panic!("warcio index: no offset in {record}")),
                length: number("length"),
                record_type: record["warc-type"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect();
    (
        records,
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn ls_offsets_and_lengths_equal_warcio_index() {
    let files = sample_files();
    let mut compared = 0;
    for path in &files {
        let name = file_name(path);
        let ours = ldwarc_ls(path);
        let (theirs, warcio_ok, warcio_stderr) = warcio_index(path);
        if name == WHOLE_FILE_GZIP {
            // Documented difference: this file is ONE gzip member holding every record.
            // warcio reads the first record, then stops with ArchiveLoadFailed ("non-chunked
            // gzip file detected"), exit 1, after printing that record with a meaningless
            // negative length (-3219). ldwarc reads all six records, warns that the file is
            // gzipped as a whole, and reports offsets as positions in the decompressed
            // stream with no length (records are not addressable in such a file). So:
            // warcio's one record must be ldwarc's first, and ldwarc's offsets must equal
            // what warcio reports for the decompressed stream (checked below).
            assert!(!warcio_ok, "warcio index unexpectedly read {name}");
            assert!(
                warcio_stderr.contains("non-chunked gzip"),
                "warcio index failed on {name} for another reason:\n{warcio_stderr}"
            );
            assert_eq!(theirs.len(), 1, "warcio index on {name}: {theirs:?}");
            assert_eq!(
                (theirs[0].offset, theirs[0].record_type.as_str()),
                (ours[0].offset, ours[0].record_type.as_str()),
                "{name}: first record"
            );
            assert_eq!(ours.len(), 6, "{name}: ldwarc lists {ours:?}");
            assert!(
                ours.iter().all(|r| r.length.is_none()),
                "{name}: a whole-file gzip has no addressable lengths, ldwarc says {ours:?}"
            );
            compare_with_decompressed(path, &ours);
            compared += 1;
            continue;
        }
        assert!(warcio_ok, "warcio index failed on {name}:\n{warcio_stderr}");
        assert!(!ours.is_empty(), "ldwarc lists no record of {name}");
        // No exceptions needed for the other files: even the damaged ones (bad.arc with
        // lengths -1 and abc, example.warc with a short Content-Length at 4061,
        // example-extra.warc, missing-status-text.warc) list identically.
        assert_eq!(
            ours, theirs,
            "{name}: ldwarc ls (left) and warcio index (right) disagree"
        );
        compared += 1;
    }
    assert_eq!(compared, EXPECTED_FILES.len());
}

/// The whole-file gzip, decompressed to a plain `.warc`: warcio reads that, and its offsets
/// must be the decompressed-stream offsets ldwarc reported for the gzip file.
fn compare_with_decompressed(path: &Path, ours: &[Listed]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("decompressed.warc");
    let mut decoder = flate2::read::MultiGzDecoder::new(File::open(path).expect("open"));
    let mut out = File::create(&plain).expect("create");
    io::copy(&mut decoder, &mut out).expect("decompress");
    drop(out);
    let (theirs, ok, stderr) = warcio_index(&plain);
    assert!(ok, "warcio index on the decompressed file:\n{stderr}");
    let theirs: Vec<(u64, &str)> = theirs
        .iter()
        .map(|r| (r.offset, r.record_type.as_str()))
        .collect();
    let ours: Vec<(u64, &str)> = ours
        .iter()
        .map(|r| (r.offset, r.record_type.as_str()))
        .collect();
    assert_eq!(ours, theirs, "whole-file gzip vs its decompressed stream");
    // And ldwarc lists the decompressed file exactly as warcio does, lengths included.
    let plain_ours = ldwarc_ls(&plain);
    let (plain_theirs, _, _) = warcio_index(&plain);
    assert_eq!(plain_ours, plain_theirs, "decompressed whole-file gzip");
}

/// Random access through the library: opening each file at each offset warcio reports
/// yields that record, with the same type and length.
#[test]
fn random_access_at_warcio_offsets() {
    for path in sample_files() {
        let name = file_name(&path);
        if name == WHOLE_FILE_GZIP {
            continue; // not addressable (see above)
        }
        let (records, ok, stderr) = warcio_index(&path);
        assert!(ok, "warcio index failed on {name}:\n{stderr}");
        for expected in records {
            let file = File::open(&path).expect("open sample");
            let mut reader = WarcReader::at_offset(file, expected.offset)
                .unwrap_or_else(|e| panic!("{name}@{}: {e}", expected.offset));
            let mut record = reader
                .next_record()
                .unwrap_or_else(|| panic!("{name}@{}: no record", expected.offset))
                .unwrap_or_else(|e| panic!("{name}@{}: {e}", expected.offset));
            assert_eq!(
                record.header.record_type(),
                Some(expected.record_type.as_str()),
                "{name}@{}",
                expected.offset
            );
            let mut block = Vec::new();
            record
                .read_to_end(&mut block)
                .unwrap_or_else(|e| panic!("{name}@{}: block: {e}", expected.offset));
            let end = record
                .finish()
                .unwrap_or_else(|e| panic!("{name}@{}: end: {e}", expected.offset));
            assert_eq!(end.span.offset, expected.offset, "{name}");
            assert_eq!(
                end.span.length.map(|l| l as i64),
                expected.length,
                "{name}@{}: length",
                expected.offset
            );
        }
    }
}

/// Files `ldwarc check --json` reports a digest mismatch in.
fn ldwarc_digest_failures(files: &[PathBuf]) -> BTreeSet<String> {
    let output = run(ldwarc().arg("check").args(["--format", "json"]).args(files));
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "ldwarc check exited with {:?}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let lines = json_lines(&stdout, "ldwarc check --json");
    let summary = lines
        .iter()
        .find(|line| line["summary"] == Value::Bool(true))
        .expect("ldwarc check --json prints a summary object");
    assert_eq!(
        summary["files"].as_u64(),
        Some(files.len() as u64),
        "ldwarc check did not check every file: {summary}"
    );
    assert_eq!(summary["unreadable"].as_u64(), Some(0), "{summary}");
    lines
        .iter()
        .filter(|line| {
            line["message"]
                .as_str()
                .is_some_and(|m| m.to_ascii_lowercase().contains("digest mismatch"))
        })
        .map(|line| {
            file_name(Path::new(
                line["file"].as_str().expect("problem names its file"),
            ))
        })
        .collect()
}

/// Files `warcio check` prints a "digest failed" line for. Its output names a file on an
/// unindented line, then indents the records and messages about it.
fn warcio_digest_failures(files: &[PathBuf]) -> BTreeSet<String> {
    let output = run(std::process::Command::new(venv_bin("warcio"))
        .arg("check")
        .args(files));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let mut current: Option<String> = None;
    let mut failed = BTreeSet::new();
    for line in stdout.lines() {
        if !line.starts_with(char::is_whitespace) && !line.trim().is_empty() {
            current = Some(file_name(Path::new(line.trim())));
        } else if line.contains("digest failed") {
            let file = current
                .clone()
                .unwrap_or_else(|| panic!("warcio check: failure before a file name: {line}"));
            failed.insert(file);
        }
    }
    // warcio exits 1 when anything failed (a digest, or a file it cannot read).
    assert_eq!(
        output.status.success(),
        failed.is_empty() && !stdout.contains("saw exception"),
        "warcio check exit status vs its output:\n{stdout}"
    );
    failed
}

#[test]
fn check_agrees_with_warcio_on_bad_digests() {
    let files = sample_files();
    let ours = ldwarc_digest_failures(&files);
    let theirs = warcio_digest_failures(&files);
    assert!(
        theirs.contains("example-extra.warc"),
        "warcio check should fail example-extra.warc's payload digest: {theirs:?}"
    );
    assert_eq!(
        ours, theirs,
        "files with digest failures: ldwarc check (left) vs warcio check (right)"
    );
}
