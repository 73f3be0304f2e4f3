//! A generated archive of people and their employers over many crawls, for the versioned
//! triple index: `documents` Turtle documents of `people_per_document` people each (type,
//! name, employer, age: four statements a person), crawled `versions` times one day apart.
//! At each crawl a fraction of the documents changes (some of their people move to another
//! employer and age by a year); unchanged documents are archived as identical-payload
//! revisits, as a crawl writes them. Deterministic for a seed. Returns the truth: each
//! person's employer at each version and the time each document was captured.
//!
//! Used by the `when`/`/tpf` tests and the BEAR-style benchmark (included by path).
#![allow(dead_code)]

use std::path::Path;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{Block, PayloadKind, WarcHeader, profiles, record_header, sha1_digest};

/// Schema.org, the vocabulary of the generated documents.
pub const SCHEMA: &str = "http://schema.org/";

/// The size and churn of a generated archive.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Documents (URLs).
    pub documents: usize,
    /// People per document (four statements each).
    pub people_per_document: usize,
    /// Crawls, one day apart.
    pub versions: usize,
    /// Fraction of the documents that change at each crawl after the first.
    pub changed_documents: f64,
    /// Fraction of a changed document's people that change employer.
    pub changed_people: f64,
    /// Distinct employers.
    pub employers: usize,
    /// Seed of the generator.
    pub seed: u64,
}

/// What was archived.
#[derive(Debug, Clone)]
pub struct Generated {
    /// `capture_times[version][document]`.
    pub capture_times: Vec<Vec<DateTime<Utc>>>,
    /// `employer[version][document][person]`.
    pub employer: Vec<Vec<Vec<usize>>>,
    /// Bytes of WARC files written (gzipped records).
    pub warc_bytes: u64,
}

/// The first crawl's start.
pub fn base_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 3, 1, 0, 0, 0)
        .single()
        .expect("valid time")
}

/// The URL of document `d`.
pub fn document_url(d: usize) -> String {
    format!("http://people.example.org/team/{d}")
}

/// The IRI of person `p` of document `d`.
pub fn person_iri(d: usize, p: usize) -> String {
    format!("http://people.example.org/person/{d}-{p}")
}

/// The IRI of employer `e`.
pub fn employer_iri(e: usize) -> String {
    format!("http://org.example.org/org/{e}")
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

fn body(d: usize, employers: &[usize], ages: &[usize], heights: bool) -> Vec<u8> {
    let mut text = String::with_capacity(employers.len() * 160);
    text.push_str("@prefix schema: <http://schema.org/> .\n");
    for (p, (employer, age)) in employers.iter().zip(ages).enumerate() {
        text.push_str(&format!(
            "<{}> a schema:Person ;\n  schema:name \"Person {d}-{p}\" ;\n  schema:worksFor <{}> ;\n  schema:age {age}",
            person_iri(d, p),
            employer_iri(*employer)
        ));
        if heights {
            let unit = if p % 2 == 0 { "CMT" } else { "INH" };
            text.push_str(&format!(
                " ;\n  schema:height [ a schema:PropertyValue ; schema:value {} ; schema:unitCode \"{unit}\" ]",
                100 + age
            ));
        }
        text.push_str(" .\n");
    }
    text.into_bytes()
}

fn http_head(length: usize) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle; charset=utf-8\r\nContent-Length: {length}\r\n\r\n"
    )
}

fn response(time: DateTime<Utc>, url: &str, content: &[u8]) -> (WarcHeader, Block) {
    let mut header = record_header("response", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    let mut bytes = http_head(content.len()).into_bytes();
    bytes.extend_from_slice(content);
    (
        header,
        Block::from_bytes(bytes, PayloadKind::Http).expect("response block"),
    )
}

fn revisit(
    time: DateTime<Utc>,
    url: &str,
    content: &[u8],
    original: DateTime<Utc>,
) -> (WarcHeader, Block) {
    let mut header = record_header("revisit", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
    header.push("WARC-Refers-To-Target-URI", url);
    header.push("WARC-Refers-To-Date", format_warc_date(original));
    header.push("WARC-Payload-Digest", sha1_digest(content));
    header.push("WARC-Truncated", "length");
    let head = http_head(content.len()).into_bytes();
    (
        header,
        Block::from_bytes(head, PayloadKind::None).expect("revisit block"),
    )
}

/// Writes the archive under `root`.
pub fn generate(root: &Path, spec: &Spec) -> Generated {
    generate_shaped(root, spec, false, 0..spec.versions)
}

/// Writes only the crawls `versions` of the archive `spec` describes under `root` (adding
/// WARC files to what is there): the crawls before are generated and not written, so
/// writing `0..n` then `n..spec.versions` gives the archive [`generate`] writes, grown in
/// two steps. Returns the truth of every version up to the range's end.
pub fn generate_versions(root: &Path, spec: &Spec, versions: std::ops::Range<usize>) -> Generated {
    generate_shaped(root, spec, false, versions)
}

/// Writes the archive under `root`, each person also with a height: a blank node
/// `[ a schema:PropertyValue ; schema:value 100 + age ; schema:unitCode "CMT" | "INH" ]`
/// (three more statements a person, the value changing with the age).
pub fn generate_with_heights(root: &Path, spec: &Spec) -> Generated {
    generate_shaped(root, spec, true, 0..spec.versions)
}

fn generate_shaped(
    root: &Path,
    spec: &Spec,
    heights: bool,
    written: std::ops::Range<usize>,
) -> Generated {
    let (mut writer, _) =
        ArchiveWriter::open(root, ArchiveWriterOptions::default()).expect("archive writer");
    let mut rng = Rng(spec.seed);
    let people = spec.people_per_document;
    let mut employers: Vec<Vec<usize>> = (0..spec.documents)
        .map(|_| (0..people).map(|_| rng.below(spec.employers)).collect())
        .collect();
    let mut ages: Vec<Vec<usize>> = (0..spec.documents)
        .map(|_| (0..people).map(|_| 20 + rng.below(40)).collect())
        .collect();
    let mut originals: Vec<Option<(Vec<u8>, DateTime<Utc>)>> = vec![None; spec.documents];
    let mut generated = Generated {
        capture_times: Vec::new(),
        employer: Vec::new(),
        warc_bytes: 0,
    };
    // Spread one crawl's captures over 20 hours of its day.
    let step_ms = (72_000_000 / spec.documents.max(1)).max(1) as i64;
    for version in 0..written.end.min(spec.versions) {
        let write = written.contains(&version);
        let day = base_time() + TimeDelta::days(version as i64);
        let mut times = Vec::with_capacity(spec.documents);
        for d in 0..spec.documents {
            if version > 0 && rng.chance(spec.changed_documents) {
                let mut moved = false;
                for p in 0..people {
                    if rng.chance(spec.changed_people) {
                        employers[d][p] =
                            (employers[d][p] + 1 + rng.below(spec.employers - 1)) % spec.employers;
                        ages[d][p] += 1;
                        moved = true;
                    }
                }
                if !moved {
                    let p = rng.below(people);
                    employers[d][p] = (employers[d][p] + 1) % spec.employers;
                    ages[d][p] += 1;
                }
            }
            let time = day + TimeDelta::milliseconds(step_ms * d as i64 + 7);
            let url = document_url(d);
            let content = body(d, &employers[d], &ages[d], heights);
            let record = match &originals[d] {
                Some((known, first)) if *known == content => {
                    write.then(|| revisit(time, &url, &content, *first))
                }
                _ => {
                    let record = write.then(|| response(time, &url, &content));
                    originals[d] = Some((content, time));
                    record
                }
            };
            if let Some(record) = record {
                writer
                    .write_capture("people.example.org", vec![record])
                    .expect("write a capture");
            }
            times.push(time);
        }
        generated.capture_times.push(times);
        generated.employer.push(employers.clone());
    }
    writer.close().expect("close the archive");
    generated.warc_bytes = walkdir::WalkDir::new(root.join("warc"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    generated
}
