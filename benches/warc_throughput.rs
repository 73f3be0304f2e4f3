//! WARC throughput benchmark (issue #2).
//!
//! Generates a file of at least 100,000 records (default 100,000; `LDWARC_BENCH_RECORDS`),
//! then prints, measured in the same run on the same file:
//! - write throughput of ldwarc's writer (MB/s of uncompressed input at gzip level 6; target ≥ 80);
//! - read + verify of every block and payload digest: ldwarc in-process, `ldwarc check`
//!   end to end, `fastwarc check -p` (PyPI), and `zcat | wc -c` as the decompression floor.
//!   Target: ldwarc at least as fast as fastwarc.
//!
//! Run with `cargo bench --bench warc_throughput`. Needs `.venv` from `.ci/setup-interop.sh`.

#[allow(dead_code)]
mod support;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use chrono::{TimeZone, Utc};
use ldwarc_warc::validate::check_path;
use ldwarc_warc::{Block, PayloadKind, WarcWriter, record_header, warcinfo_record};
use support::{time_command, venv_bin};

fn main() {
    let records: usize = std::env::var("LDWARC_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bench.warc.gz");
    let (input_bytes, write_secs) = generate(&path, records);
    let file_bytes = std::fs::metadata(&path).expect("bench file").len();
    let mb = |bytes: u64| bytes as f64 / 1e6;
    println!(
        "file: {records} records, {:.1} MB uncompressed, {:.1} MB gzip",
        mb(input_bytes),
        mb(file_bytes)
    );
    println!(
        "write  ldwarc (gzip level 6)   {:>9.0} records/s {:>7.1} MB/s uncompressed input   (target >= 80 MB/s)",
        records as f64 / write_secs,
        mb(input_bytes) / write_secs
    );

    let start = Instant::now();
    let report = check_path(&path).expect("readable bench file");
    let ours = start.elapsed().as_secs_f64();
    assert_eq!(report.records as usize, records + 1, "every record read");
    assert_eq!(
        report.problems.len(),
        0,
        "no problems: {:?}",
        report.problems.first()
    );
    print_read("ldwarc (library)", records, input_bytes, file_bytes, ours);

    let ldwarc = env_binary();
    let cli = time_command(Command::new(&ldwarc).arg("check").arg("--quiet").arg(&path));
    print_read("ldwarc check (CLI)", records, input_bytes, file_bytes, cli);

    let fastwarc = venv_bin("fastwarc");
    let peer = time_command(
        Command::new(&fastwarc)
            .args(["check", "-p", "-q"])
            .arg(&path),
    );
    print_read("fastwarc check -p", records, input_bytes, file_bytes, peer);

    let warcio = venv_bin("warcio");
    let warcio_secs = time_command(Command::new(&warcio).arg("check").arg(&path));
    print_read(
        "warcio check",
        records,
        input_bytes,
        file_bytes,
        warcio_secs,
    );

    let zcat = time_command(
        Command::new("sh")
            .arg("-c")
            .arg(format!("zcat '{}' | wc -c", path.display())),
    );
    print_read("zcat | wc -c", records, input_bytes, file_bytes, zcat);
    println!(
        "ldwarc check vs fastwarc check -p: {:.2}x as fast (target >= 1.00x); vs warcio check: {:.1}x",
        peer / cli,
        warcio_secs / cli
    );
}

fn print_read(name: &str, records: usize, input: u64, file: u64, secs: f64) {
    println!(
        "read   {name:<24} {:>9.0} records/s {:>7.1} MB/s uncompressed {:>7.1} MB/s gzip  ({secs:.2} s)",
        records as f64 / secs,
        input as f64 / 1e6 / secs,
        file as f64 / 1e6 / secs
    );
}

fn env_binary() -> PathBuf {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/ldwarc");
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet", "--bin", "ldwarc"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo build");
    assert!(status.success(), "release build of ldwarc failed");
    target
}

/// Writes request/response pairs of Linked-Data-like documents; returns the uncompressed
/// bytes handed to the writer and the seconds spent writing.
fn generate(path: &Path, records: usize) -> (u64, f64) {
    let file = File::create(path).expect("create bench file");
    let mut writer = WarcWriter::new(BufWriter::with_capacity(1 << 20, file), 0);
    let base = Utc
        .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date");
    let mut input = 0u64;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut elapsed = 0.0;
    let (header, block) = warcinfo_record(
        "bench.warc.gz",
        base,
        &[("software", "ldwarc bench".to_string())],
    )
    .expect("warcinfo");
    writer.write_record(header, block).expect("write warcinfo");
    for index in 0..records / 2 {
        let uri = format!("http://data{}.example.org/resource/{index}", index % 500);
        let date = base + chrono::TimeDelta::seconds(index as i64);
        let document = turtle_document(&uri, &mut seed);
        let mut response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/turtle; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            document.len()
        )
        .into_bytes();
        response.extend_from_slice(document.as_bytes());
        let request = format!("GET /resource/{index} HTTP/1.1\r\nHost: data{}.example.org\r\nAccept: text/turtle\r\n\r\n", index % 500).into_bytes();
        let start = Instant::now();
        let mut header = record_header("response", date, Some(&uri));
        header.push("Content-Type", "application/http; msgtype=response");
        input += (header.to_bytes().len() + response.len()) as u64;
        let written = writer
            .write_record(
                header,
                Block::from_bytes(response, PayloadKind::Http).expect("block"),
            )
            .expect("write response");
        let mut header = record_header("request", date, Some(&uri));
        header.push("Content-Type", "application/http; msgtype=request");
        if let Some(id) = written.header.record_id() {
            header.push("WARC-Concurrent-To", id);
        }
        input += (header.to_bytes().len() + request.len()) as u64;
        writer
            .write_record(
                header,
                Block::from_bytes(request, PayloadKind::Http).expect("block"),
            )
            .expect("write request");
        elapsed += start.elapsed().as_secs_f64();
    }
    let start = Instant::now();
    writer.flush().expect("flush");
    elapsed += start.elapsed().as_secs_f64();
    (input, elapsed)
}

/// A Turtle document of 20–400 triples with some randomness so it compresses like real data.
fn turtle_document(subject: &str, seed: &mut u64) -> String {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let triples = 20 + (next() % 380) as usize;
    let mut text = String::from(
        "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n@prefix ex: <http://example.org/vocab#> .\n",
    );
    for i in 0..triples {
        let value = next();
        match i % 4 {
            0 => text.push_str(&format!(
                "<{subject}> foaf:knows <http://people{}.example.net/p/{value:x}> .\n",
                value % 97
            )),
            1 => text.push_str(&format!(
                "<{subject}> ex:value \"{}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
                value % 100_000
            )),
            2 => text.push_str(&format!(
                "<{subject}> ex:label \"Label {value:016x} in English\"@en .\n"
            )),
            _ => text.push_str(&format!(
                "<{subject}> ex:seeAlso _:b{} .\n_:b{} ex:note \"note {}\" .\n",
                value % 1000,
                value % 1000,
                value % 7919
            )),
        }
    }
    text
}
