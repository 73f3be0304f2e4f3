//! A synthetic Linked Data archive in the `warc/YYYY/MM/DD/HH/<pld>/` layout, for the index
//! crash test (`tests/index_crash.rs`) and the index benchmark (`benches/index_throughput.rs`,
//! which includes this file by path).
//!
//! Every file (one per hour and pay-level domain) starts with a `warcinfo` record and then
//! holds `captures_per_file` captures: a `response` with a small Turtle body, or a `revisit`
//! when the document did not change since its capture in the previous hour's file (its
//! original lies in another partition), optionally each followed by its `request`. The
//! captures of a file are spread over its hour at microsecond precision.
//!
//! Which URL a capture slot holds is a pure function of (pld, hour, slot), so the archive is
//! the same on every run except for record ids: document `k` of a PLD is captured in hours
//! `k / half - 1` and `k / half` (`half` = captures_per_file / 2), and a few "hot" documents
//! in every hour, which gives lookups with many captures.
//!
//! With `imported`, a plain `.warc` under `warc/imported/` holds originals dated before the
//! first hour that revisits in the hour files refer to: files are read in path order, so an
//! indexer meets those revisits before their originals.
#![allow(dead_code)]

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{Archive, file_name};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{
    Block, PayloadKind, WarcWriter, profiles, record_header, sha1_digest, warcinfo_record,
};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Hour partitions, starting at 2026-01-01T00.
    pub hours: usize,
    /// Pay-level domains per hour (one file each).
    pub plds: usize,
    /// Captures (response or revisit records) per file.
    pub captures_per_file: usize,
    /// Documents captured in every hour (the first slots of each file).
    pub hot_documents: usize,
    /// Also write a `request` record after each response.
    pub requests: bool,
    /// Also write `warc/imported/other-tool.warc` (uncompressed, as another tool might drop
    /// it) with responses dated before the archive's first hour, which a revisit at the end
    /// of every later file refers to: originals that sort after their revisits.
    pub imported: bool,
    /// gzip level of the records.
    pub gzip_level: u32,
    /// Writer threads.
    pub threads: usize,
}

impl Spec {
    /// The capture-index benchmarks' corpus: about `captures` captures in 10 hourly
    /// partitions of 4 PLDs, 50 hot documents, gzip level 6, written on `threads` threads.
    pub fn index_benchmark(captures: usize, threads: usize) -> Self {
        const HOURS: usize = 10;
        const PLDS: usize = 4;
        Spec {
            hours: HOURS,
            plds: PLDS,
            captures_per_file: captures.div_ceil(HOURS * PLDS),
            hot_documents: 50,
            requests: false,
            imported: false,
            gzip_level: 6,
            threads,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// The files, sorted by path.
    pub files: Vec<PathBuf>,
    /// Captures (indexable records) written.
    pub captures: u64,
    /// Of which revisits.
    pub revisits: u64,
    /// Bytes on disk.
    pub bytes: u64,
}

/// One generated file: path, captures, revisits, bytes.
type FileStats = (PathBuf, u64, u64, u64);

/// The first hour of the archive.
pub fn base_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
        .single()
        .expect("valid date")
}

/// The pay-level domain number `p`.
pub fn pld_name(p: usize) -> String {
    format!("lod{p:03}.example.org")
}

/// The URL of document `k` of PLD `p` (Linked-Data-like: mixed case, some queries).
pub fn document_url(p: usize, k: u64) -> String {
    let pld = pld_name(p);
    match k % 5 {
        0 => format!("http://data.{pld}/resource/Thing_{k}"),
        1 => format!("http://{pld}/id/Person/{k}#me"),
        2 => format!("https://www.{pld}/page/{k}?format=ttl&lang=en"),
        3 => format!("http://data.{pld}/Dataset/{k}/Void.ttl"),
        _ => format!("https://sparql.{pld}/describe?uri=urn%3Ax%3A{k}"),
    }
}

/// The URL of hot document `i` of PLD `p`.
pub fn hot_url(p: usize, i: usize) -> String {
    format!("http://{}/hot/Doc{i}", pld_name(p))
}

/// Cold documents of a PLD captured in `hour`, by slot (after the hot ones).
fn cold_document(spec: &Spec, hour: usize, slot: usize) -> u64 {
    let half = (cold_per_file(spec) / 2).max(1) as u64;
    hour as u64 * half + slot as u64
}

fn cold_per_file(spec: &Spec) -> usize {
    spec.captures_per_file - spec.hot_documents.min(spec.captures_per_file)
}

/// The time of capture `slot` in the file of `hour`.
pub fn capture_time(spec: &Spec, hour: usize, slot: usize) -> DateTime<Utc> {
    let step = 3_600_000_000 / spec.captures_per_file.max(1) as i64;
    base_time()
        + TimeDelta::hours(hour as i64)
        + TimeDelta::microseconds(slot as i64 * step + (slot as i64 * 7919) % step.max(1))
}

/// Document version: how many times it has changed by `hour` (each changes every 1–4 hours).
fn version(id: u64, hour: usize) -> u64 {
    hour as u64 / (1 + id % 4)
}

/// A Turtle body of 4–13 triples.
fn body(url: &str, id: u64, version: u64) -> Vec<u8> {
    let mut x = id
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(version.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let subject = url.split('#').next().unwrap_or(url);
    let mut text = String::from(
        "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n@prefix dct: <http://purl.org/dc/terms/> .\n",
    );
    text.push_str(&format!(
        "<{subject}> dct:modified \"v{version}\" ;\n  foaf:name \"Thing {id}\"@en .\n"
    ));
    for i in 0..(2 + next() % 10) {
        let v = next();
        match i % 3 {
            0 => text.push_str(&format!(
                "<{subject}> foaf:knows <http://people{}.example.net/p/{v:x}> .\n",
                v % 97
            )),
            1 => text.push_str(&format!("<{subject}> dct:extent {} .\n", v % 100_000)),
            _ => text.push_str(&format!("<{subject}> dct:subject _:b{} .\n", v % 1000)),
        }
    }
    text.into_bytes()
}

fn http_response(body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// The document in a capture slot: (id for content, URL, hour of an earlier capture of it
/// that may hold the same version).
fn slot_document(spec: &Spec, p: usize, hour: usize, slot: usize) -> (u64, String, Option<usize>) {
    if slot < spec.hot_documents {
        // Captured every hour: the original is the first capture of the current version.
        let id = 1_000_000_000 + slot as u64;
        let first = version(id, hour) * (1 + id % 4);
        return (
            id,
            hot_url(p, slot),
            (first < hour as u64).then_some(first as usize),
        );
    }
    let cold = slot - spec.hot_documents;
    let k = cold_document(spec, hour, cold);
    let half = (cold_per_file(spec) / 2).max(1) as u64;
    // Captured at hours k/half - 1 and k/half: this is the second capture if hour == k/half.
    let previous = (hour as u64 == k / half && hour > 0).then(|| hour - 1);
    (k, document_url(p, k), previous)
}

/// The URL captured in `slot` of the file of (`p`, `hour`).
pub fn slot_url(spec: &Spec, p: usize, hour: usize, slot: usize) -> String {
    slot_document(spec, p, hour, slot).1
}

/// The slot of document `(p, id)` in the file of `hour`.
fn slot_of(spec: &Spec, hour: usize, id: u64) -> usize {
    if id >= 1_000_000_000 {
        return (id - 1_000_000_000) as usize;
    }
    let half = (cold_per_file(spec) / 2).max(1) as u64;
    spec.hot_documents + (id - hour as u64 * half) as usize
}

/// Writes the archive under `root/warc`.
pub fn generate(root: &Path, spec: &Spec) -> io::Result<Generated> {
    let jobs: Vec<(usize, usize)> = (0..spec.hours)
        .flat_map(|h| (0..spec.plds).map(move |p| (h, p)))
        .collect();
    let threads = spec.threads.max(1).min(jobs.len().max(1));
    let results: Vec<io::Result<Vec<FileStats>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let jobs = &jobs;
                scope.spawn(move || {
                    jobs.iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&(h, p)| write_file(root, spec, h, p))
                        .collect::<io::Result<Vec<_>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("generator thread"))
            .collect()
    });
    let mut generated = Generated::default();
    if spec.imported {
        let (path, captures, bytes) = write_imported(root, spec)?;
        generated.files.push(path);
        generated.captures += captures;
        generated.bytes += bytes;
    }
    for result in results {
        for (path, captures, revisits, bytes) in result? {
            generated.files.push(path);
            generated.captures += captures;
            generated.revisits += revisits;
            generated.bytes += bytes;
        }
    }
    generated.files.sort();
    Ok(generated)
}

fn write_file(root: &Path, spec: &Spec, hour: usize, p: usize) -> io::Result<FileStats> {
    let archive = Archive::new(root);
    let pld = pld_name(p);
    let start = base_time() + TimeDelta::hours(hour as i64);
    let dir = archive.partition_dir(start, &pld);
    fs::create_dir_all(&dir)?;
    let name = file_name("ldwarc", start, (hour * spec.plds + p) as u32, "bench");
    let path = dir.join(&name);
    let file = File::create(&path)?;
    let mut writer = WarcWriter::new(BufWriter::with_capacity(1 << 20, file), 0)
        .with_compression(Some(spec.gzip_level));
    let (header, block) = warcinfo_record(
        &name,
        start,
        &[("software", "ldwarc synthetic archive".to_string())],
    )?;
    writer.write_record(header, block)?;
    let (mut captures, mut revisits) = (0u64, 0u64);
    for slot in 0..spec.captures_per_file {
        let (id, url, previous) = slot_document(spec, p, hour, slot);
        let time = capture_time(spec, hour, slot);
        let content = body(&url, id, version(id, hour));
        let unchanged = previous.filter(|&h| version(id, h) == version(id, hour));
        captures += 1;
        if let Some(original_hour) = unchanged {
            revisits += 1;
            let original_time = capture_time(spec, original_hour, slot_of(spec, original_hour, id));
            let full = http_response(&content);
            let head_len = full.len() - content.len();
            let mut header = record_header("revisit", time, Some(&url));
            header.push("Content-Type", "application/http; msgtype=response");
            header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
            header.push("WARC-Refers-To-Target-URI", url.as_str());
            header.push("WARC-Refers-To-Date", format_warc_date(original_time));
            header.push("WARC-Payload-Digest", sha1_digest(&content));
            header.push("WARC-Truncated", "length");
            writer.write_record(
                header,
                Block::from_bytes(full[..head_len].to_vec(), PayloadKind::None)?,
            )?;
        } else {
            let mut header = record_header("response", time, Some(&url));
            header.push("Content-Type", "application/http; msgtype=response");
            let written = writer.write_record(
                header,
                Block::from_bytes(http_response(&content), PayloadKind::Http)?,
            )?;
            if spec.requests {
                let host = url.split('/').nth(2).unwrap_or("");
                let path = url.splitn(4, '/').nth(3).unwrap_or("");
                let request =
                    format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/turtle\r\n\r\n");
                let mut header = record_header("request", time, Some(&url));
                header.push("Content-Type", "application/http; msgtype=request");
                if let Some(id) = written.header.record_id() {
                    header.push("WARC-Concurrent-To", id);
                }
                writer.write_record(
                    header,
                    Block::from_bytes(request.into_bytes(), PayloadKind::Http)?,
                )?;
            }
        }
    }
    if spec.imported && hour > 0 {
        let (url, id, original_time) = imported_document(p, hour % IMPORTED_DOCUMENTS);
        let content = body(&url, id, 0);
        let full = http_response(&content);
        let head_len = full.len() - content.len();
        let mut header = record_header("revisit", start + TimeDelta::minutes(59), Some(&url));
        header.push("Content-Type", "application/http; msgtype=response");
        header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
        header.push("WARC-Refers-To-Target-URI", url.as_str());
        header.push("WARC-Refers-To-Date", format_warc_date(original_time));
        header.push("WARC-Payload-Digest", sha1_digest(&content));
        writer.write_record(
            header,
            Block::from_bytes(full[..head_len].to_vec(), PayloadKind::None)?,
        )?;
        captures += 1;
        revisits += 1;
    }
    writer.flush()?;
    let bytes = writer.position();
    writer
        .into_inner()
        .into_inner()
        .map_err(|e| e.into_error())?
        .sync_all()?;
    Ok((path, captures, revisits, bytes))
}

const IMPORTED_DOCUMENTS: usize = 3;

/// Imported document `i` of PLD `p`: URL, content id, and the time of its latest copy.
fn imported_document(p: usize, i: usize) -> (String, u64, DateTime<Utc>) {
    (
        format!("http://{}/imported/Doc{i}", pld_name(p)),
        2_000_000_000 + i as u64,
        base_time() - TimeDelta::hours(6) + TimeDelta::seconds(i as i64),
    )
}

/// `warc/imported/other-tool.warc`: two identical responses of each imported document, an
/// hour apart (revisits refer to the later one), uncompressed.
fn write_imported(root: &Path, spec: &Spec) -> io::Result<(PathBuf, u64, u64)> {
    let dir = root.join("warc").join("imported");
    fs::create_dir_all(&dir)?;
    let path = dir.join("other-tool.warc");
    let file = File::create(&path)?;
    let mut writer = WarcWriter::new(BufWriter::new(file), 0).with_compression(None);
    let mut captures = 0;
    for p in 0..spec.plds {
        for i in 0..IMPORTED_DOCUMENTS {
            let (url, id, latest) = imported_document(p, i);
            for time in [latest - TimeDelta::hours(1), latest] {
                let mut header = record_header("response", time, Some(&url));
                header.push("Content-Type", "application/http; msgtype=response");
                writer.write_record(
                    header,
                    Block::from_bytes(http_response(&body(&url, id, 0)), PayloadKind::Http)?,
                )?;
                captures += 1;
            }
        }
    }
    writer.flush()?;
    let bytes = writer.position();
    Ok((path, captures, bytes))
}
