//! `ldwarc extract` against `warcio extract` (every record of the pywb sample archive and of
//! a file ldwarc writes, in all three modes), `-` for standard input in `ls`, `check` and
//! `extract`, `ls --fields`, `--format` and the deprecated `--json`, and bad arguments.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{ldwarc, pywb_sample_warcs, run, stdout_ok, venv_bin};
use ldwarc_warc::{Block, PayloadKind, WarcWriter, record_header, warcinfo_record};
use serde_json::Value;

const MODES: [&str; 3] = ["", "--payload", "--headers"];

/// Runs `command` with `input` on its standard input.
fn run_with_stdin(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may stop reading early (an error): a broken pipe is its answer.
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("command output");
    writer.join().expect("writer thread");
    output
}

/// The record offsets `ldwarc ls` reports for `path`.
fn offsets(path: &Path) -> Vec<u64> {
    let output = run(ldwarc()
        .args(["ls", "--format", "json", "--fields", "offset"])
        .arg(path));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).expect("json line");
            assert_eq!(value.as_object().map(|o| o.len()), Some(1), "{line}");
            value["offset"].as_u64().expect("offset")
        })
        .collect()
}

/// `warcio extract` output for each (file, offset, mode), run in one Python process:
/// `Some(bytes)` where warcio succeeded, `None` where it raised.
fn warcio_extract(jobs: &[(PathBuf, u64, &str)]) -> Vec<Option<Vec<u8>>> {
    let script = r#"
import sys, io, json
from warcio.extractor import Extractor
results = []
for path, offset, mode in json.load(sys.stdin):
    buffer = io.BytesIO()
    real = sys.stdout
    sys.stdout = io.TextIOWrapper(buffer)
    try:
        Extractor(path, offset).extract(mode == "--payload", mode == "--headers")
        sys.stdout.flush()
        results.append(buffer.getvalue().hex())
    except BaseException:
        results.append(None)
    finally:
        sys.stdout = real
print(json.dumps(results))
"#;
    let input: Vec<(String, u64, &str)> = jobs
        .iter()
        .map(|(p, o, m)| (p.display().to_string(), *o, *m))
        .collect();
    let output = run_with_stdin(
        Command::new(venv_bin("python")).args(["-c", script]),
        serde_json::to_string(&input).expect("json").as_bytes(),
    );
    let text = stdout_ok(&output, "warcio extract");
    let results: Vec<Option<String>> = serde_json::from_str(&text).expect("warcio results");
    assert_eq!(results.len(), jobs.len());
    results
        .into_iter()
        .map(|r| r.map(|hex| from_hex(&hex)))
        .collect()
}

fn from_hex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

fn ldwarc_extract(path: &Path, offset: u64, mode: &str) -> Output {
    let mut command = ldwarc();
    command.arg("extract").arg(path).arg(offset.to_string());
    if !mode.is_empty() {
        command.arg(mode);
    }
    run(&mut command)
}

/// Compares ldwarc with warcio on every record of `files`; returns how many agreed.
fn compare_with_warcio(files: &[PathBuf]) -> (usize, BTreeMap<String, usize>) {
    let mut jobs = Vec::new();
    for file in files {
        for offset in offsets(file) {
            for mode in MODES {
                jobs.push((file.clone(), offset, mode));
            }
        }
    }
    let expected = warcio_extract(&jobs);
    let mut agreed = 0;
    let mut warcio_failed = BTreeMap::new();
    for ((file, offset, mode), expected) in jobs.iter().zip(expected) {
        let output = ldwarc_extract(file, *offset, mode);
        let what = format!("{} {offset} {mode:?}", file.display());
        match expected {
            Some(bytes) => {
                assert!(output.status.success(), "{what}: {output:?}");
                assert!(
                    output.stdout == bytes,
                    "{what}: ldwarc wrote {:?}\nwarcio wrote {:?}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&bytes)
                );
                agreed += 1;
            }
            None => {
                // What warcio cannot read, ldwarc refuses with one line and status 2.
                assert_eq!(output.status.code(), Some(2), "{what}: {output:?}");
                assert_eq!(String::from_utf8_lossy(&output.stderr).lines().count(), 1);
                let name = file
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned();
                *warcio_failed.entry(name).or_insert(0) += 1;
            }
        }
    }
    (agreed, warcio_failed)
}

fn sample_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(pywb_sample_warcs())
        .expect("sample dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(files.len() >= 17, "{files:?}");
    files
}

#[test]
fn extract_equals_warcio_on_every_pywb_sample_record() {
    let (agreed, warcio_failed) = compare_with_warcio(&sample_files());
    assert!(agreed >= 1200, "only {agreed} extractions compared");
    // warcio reads only the whole-file gzip's first record by offset; nothing else fails.
    assert_eq!(
        warcio_failed.keys().collect::<Vec<_>>(),
        vec!["example-bad.warc.gz.bad"],
        "{warcio_failed:?}"
    );
}

/// `<a> <b> "br" .\n` as Python's `brotli.compress` (the reference encoder) writes it.
const BROTLI_BODY: &[u8] =
    b"\x0b\x07\x80\x3c\x61\x3e\x20\x3c\x62\x3e\x20\x22\x62\x72\x22\x20\x2e\x0a\x03";

/// A small file in ldwarc's own writing, gzip per record or plain.
fn write_ldwarc_file(path: &Path, gzip: bool) {
    let date = chrono::DateTime::parse_from_rfc3339("2024-03-15T10:00:00Z")
        .expect("date")
        .to_utc();
    let file = std::fs::File::create(path).expect("create");
    let mut writer = WarcWriter::new(file, 0);
    if !gzip {
        writer = writer.with_compression(None);
    }
    let (info, block) =
        warcinfo_record("t.warc", date, &[("software", "test".into())]).expect("warcinfo");
    writer.write_record(info, block).expect("write");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"<a> <b> \"gzip\" .\n").expect("compress");
    let gz = gz.finish().expect("compress");
    let bodies: [(&str, &str, Vec<u8>); 4] = [
        (
            "response",
            "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n",
            b"<a> <b> <c> .\n".to_vec(),
        ),
        (
            "response",
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nX-Folded: one\r\n two\r\n\r\n",
            gz,
        ),
        (
            "request",
            "GET /a HTTP/1.1\r\nAccept: text/turtle\r\n\r\n",
            Vec::new(),
        ),
        ("revisit", "HTTP/1.1 304 Not Modified\r\n\r\n", Vec::new()),
    ];
    for (record_type, head, body) in bodies {
        let mut header = record_header(record_type, date, Some("http://example.org/a"));
        let msgtype = if record_type == "request" {
            "request"
        } else {
            "response"
        };
        header.push(
            "Content-Type",
            format!("application/http; msgtype={msgtype}"),
        );
        let block = [head.as_bytes(), &body].concat();
        let kind = if record_type == "revisit" {
            PayloadKind::None
        } else {
            PayloadKind::Http
        };
        let block = Block::from_bytes(block, kind).expect("block");
        writer.write_record(header, block).expect("write");
    }
    let mut header = record_header("resource", date, Some("urn:x:resource"));
    header.push("Content-Type", "text/plain");
    let block =
        Block::from_bytes(b"plain resource".to_vec(), PayloadKind::WholeBlock).expect("block");
    writer.write_record(header, block).expect("write");
    writer.flush().expect("flush");
}

#[test]
fn extract_equals_warcio_on_files_ldwarc_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gzip = dir.path().join("t.warc.gz");
    let plain = dir.path().join("t.warc");
    write_ldwarc_file(&gzip, true);
    write_ldwarc_file(&plain, false);
    let (agreed, warcio_failed) = compare_with_warcio(&[gzip.clone(), plain]);
    assert_eq!(agreed, 2 * 6 * MODES.len());
    assert!(warcio_failed.is_empty(), "{warcio_failed:?}");
    // The payload of the gzip-encoded response is the decoded content.
    let second = offsets(&gzip)[2];
    let payload = ldwarc_extract(&gzip, second, "--payload");
    assert_eq!(
        stdout_ok(&payload, "extract --payload"),
        "<a> <b> \"gzip\" .\n"
    );
}

/// Brotli is compared with the reference decoder's output, not with warcio: the warcio of
/// the interop venv fails on brotli bodies (it sets an attribute the `brotli` module's
/// decompressor does not have).
#[test]
fn extract_payload_undoes_brotli() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("br.warc.gz");
    let mut writer = WarcWriter::new(std::fs::File::create(&path).expect("create"), 0);
    let mut header = record_header(
        "response",
        chrono::Utc::now(),
        Some("http://example.org/br"),
    );
    header.push("Content-Type", "application/http; msgtype=response");
    let block = [
        b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n".as_slice(),
        BROTLI_BODY,
    ]
    .concat();
    let block = Block::from_bytes(block, PayloadKind::Http).expect("block");
    writer.write_record(header, block).expect("write");
    writer.flush().expect("flush");
    drop(writer);
    let payload = ldwarc_extract(&path, 0, "--payload");
    assert_eq!(
        stdout_ok(&payload, "extract --payload"),
        "<a> <b> \"br\" .\n"
    );
    let record = ldwarc_extract(&path, 0, "");
    // The whole record keeps the body as stored.
    assert!(record.status.success(), "{record:?}");
    let stored = [b"Content-Encoding: br\r\n\r\n".as_slice(), BROTLI_BODY].concat();
    assert!(record.stdout.ends_with(&stored), "{record:?}");
}

#[test]
fn stdin_reads_like_the_file() {
    for file in sample_files() {
        let bytes = std::fs::read(&file).expect("read sample");
        for command in [["ls", "--format", "json"], ["check", "--format", "json"]] {
            let from_file = run(ldwarc().args(command).arg(&file));
            let from_stdin = run_with_stdin(ldwarc().args(command).arg("-"), &bytes);
            let name = file.display().to_string();
            let from_file_text = String::from_utf8_lossy(&from_file.stdout).replace(&name, "-");
            assert_eq!(
                String::from_utf8_lossy(&from_stdin.stdout),
                from_file_text,
                "{command:?} {name}"
            );
            assert_eq!(from_stdin.status.code(), from_file.status.code(), "{name}");
        }
    }
    let iana = pywb_sample_warcs().join("iana.warc.gz");
    let bytes = std::fs::read(&iana).expect("read");
    let listed = offsets(&iana);
    for offset in [
        listed[1],
        listed[listed.len() / 2],
        listed[listed.len() - 1],
    ] {
        for mode in MODES {
            let mut args = vec!["extract".to_string(), "-".into(), offset.to_string()];
            if !mode.is_empty() {
                args.push(mode.into());
            }
            let from_stdin = run_with_stdin(ldwarc().args(&args), &bytes);
            let from_file = ldwarc_extract(&iana, offset, mode);
            assert!(from_file.status.success(), "{from_file:?}");
            assert!(mode == "--payload" || !from_file.stdout.is_empty());
            assert_eq!(from_stdin.stdout, from_file.stdout, "{offset} {mode}");
        }
    }
}

#[test]
fn ls_fields_and_formats() {
    let file = pywb_sample_warcs().join("example.warc.gz");
    let text = stdout_ok(
        &run(ldwarc()
            .args(["ls", "--fields", "type,status,uri"])
            .arg(&file)),
        "ls --fields",
    );
    let first_lines: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        first_lines,
        vec![
            "warcinfo\t-\t-",
            "response\t200\thttp://example.com?example=1"
        ]
    );
    let json = stdout_ok(
        &run(ldwarc()
            .args(["ls", "--format", "json", "--fields", "offset,digest,file"])
            .arg(&file)),
        "ls --fields json",
    );
    let second: Value =
        serde_json::from_str(json.lines().nth(1).expect("two lines")).expect("json");
    assert_eq!(second["offset"], 333);
    assert_eq!(
        second["payload_digest"],
        "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A"
    );
    assert_eq!(second["file"], file.display().to_string());
    assert_eq!(second.as_object().map(|o| o.len()), Some(3));

    let formatted = run(ldwarc().args(["ls", "--format", "json"]).arg(&file));
    let jsonl = run(ldwarc().args(["ls", "--format", "jsonl"]).arg(&file));
    let deprecated = run(ldwarc().args(["ls", "--json"]).arg(&file));
    assert!(formatted.stderr.is_empty());
    assert_eq!(deprecated.stdout, formatted.stdout);
    assert_eq!(jsonl.stdout, formatted.stdout);
    assert_eq!(
        String::from_utf8_lossy(&deprecated.stderr),
        "ldwarc: warning: deprecated: --json is now --format json\n"
    );
    let check = run(ldwarc().args(["check", "--format", "json"]).arg(&file));
    let check_deprecated = run(ldwarc().args(["check", "--json"]).arg(&file));
    assert_eq!(check.stdout, check_deprecated.stdout);
    assert!(
        String::from_utf8_lossy(&check_deprecated.stderr)
            .contains("deprecated: --json is now --format json")
    );
    let summary: Value = serde_json::from_str(
        String::from_utf8_lossy(&check.stdout)
            .lines()
            .last()
            .expect("summary"),
    )
    .expect("json");
    assert_eq!(summary["summary"], true);
    assert_eq!(summary["files"], 1);
}

/// A command-line usage error: exit status 2 and a message that names `needle`.
fn assert_usage_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    assert!(output.stdout.is_empty());
}

/// Exit status 2 and one line on stderr that contains `needle`.
fn assert_refused(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_files_offsets_and_arguments_are_refused() {
    let file = pywb_sample_warcs().join("example.warc");
    assert_refused(
        &run(ldwarc().args(["extract", "/nonexistent/x.warc", "0"])),
        "/nonexistent/x.warc",
    );
    assert_refused(&ldwarc_extract(&file, 999_999, ""), "offset 999999");
    assert_refused(&ldwarc_extract(&file, 10, "--payload"), "offset 10");
    assert_usage_error(&run(ldwarc().args(["extract"]).arg(&file).arg("-4")), "-4");
    assert_refused(
        &run_with_stdin(ldwarc().args(["extract", "-", "5000"]), b"WARC/1.1\r\n"),
        "offset 5000",
    );
    assert_usage_error(
        &run(ldwarc()
            .args(["extract", "--payload", "--headers"])
            .arg(&file)
            .arg("0")),
        "--headers",
    );
    assert_usage_error(
        &run(ldwarc().args(["ls", "--fields", "bogus"]).arg(&file)),
        "bogus",
    );
    assert_refused(
        &run_with_stdin(ldwarc().args(["ls", "-", "-"]), b""),
        "only once",
    );
    assert_usage_error(
        &run(ldwarc().args(["ls", "--format", "csv"]).arg(&file)),
        "csv",
    );
}

/// A gzip member whose checksum does not match its data: the whole record inflates, and the
/// damage shows only at its end. Nothing of it reaches standard output, in any mode, from a
/// file or from standard input.
#[test]
fn a_record_failing_its_gzip_checksum_writes_nothing() {
    let body = "<http://e.org/s> <http://e.org/p> \"o\" .\n".repeat(200);
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let record = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n\
         WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://e.org/d\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
        http.len()
    );
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(record.as_bytes()).unwrap();
    let mut member = encoder.finish().unwrap();
    let crc_at = member.len() - 8;
    member[crc_at] ^= 0xff;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("damaged.warc.gz");
    std::fs::write(&file, &member).unwrap();

    for mode in MODES {
        let mut args = vec!["extract"];
        if !mode.is_empty() {
            args.push(mode);
        }
        let from_file = run(ldwarc().args(&args).arg(&file).arg("0"));
        let from_stdin = run_with_stdin(ldwarc().args(&args).args(["-", "0"]), &member);
        for output in [from_file, from_stdin] {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{mode}: {stderr}");
            assert!(
                output.stdout.is_empty(),
                "{mode}: {} bytes written",
                output.stdout.len()
            );
            assert!(stderr.contains("offset 0"), "{mode}: {stderr}");
        }
    }
}
