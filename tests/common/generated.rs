//! A generated archive in the `warc/YYYY/MM/DD/HH/<pld>/` layout, written with
//! `ldwarc_archive::archive::ArchiveWriter` the way a crawl writes it: rounds in several hours (across
//! days, months and years) over several pay-level domains; request + response (or revisit) +
//! optional metadata per fetch; Turtle, JSON-LD, RDF/XML, N-Triples and HTML bodies; 301/302/303
//! redirects and 404s; identical-payload revisits (some of another URL, most of an original in
//! an earlier hour's partition), 304 revisits, resource records and non-ASCII IRIs.
//!
//! No two URLs differ only by case: `ldwarc query --match exact` (deliberately, unlike pywb)
//! also requires the stored URL to equal the query's in path and query case-sensitively, so
//! such pairs would make the pywb comparison differ by design. `generate` asserts it.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_warc::{Block, PayloadKind, WarcHeader, profiles, record_header, sha1_digest};

/// A small deterministic generator: the test web's SplitMix64, with the helpers tests use.
#[derive(Debug, Clone)]
pub struct Rng(ldwarc_testweb::SplitMix64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Self(ldwarc_testweb::SplitMix64::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// A random element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a URL answers.
#[derive(Debug, Clone, Copy)]
enum Answer {
    /// 200 with an RDF (or HTML) body of this media type.
    Ok(&'static str),
    /// A redirect with this status to this target.
    Redirect(u16, &'static str),
    /// 404.
    NotFound,
    /// Serves the same body as another URL (a mirror), so its fetches become revisits of
    /// that URL's captures.
    Mirror(&'static str),
}

/// The URLs crawled. Mixed case, `www`/`www2`, `https`, ports, IPs, reordered query
/// arguments, upper-case percent-escapes, IDN hosts and non-ASCII paths; no two differ only by
/// case.
#[rustfmt::skip]
const URLS: &[(&str, Answer)] = &[
    ("http://example.org/", Answer::Ok("text/html")),
    ("http://example.org/resource/Berlin", Answer::Ok("text/turtle")),
    ("http://example.org/resource/Berlin/", Answer::Ok("text/turtle")),
    ("http://example.org/resource/Berlinale", Answer::Ok("application/ld+json")),
    ("http://www.example.org/resource/Berlin", Answer::Mirror("http://example.org/resource/Berlin")),
    ("https://example.org/resource/Paris", Answer::Ok("application/ld+json")),
    ("http://example.org/resource/Paris", Answer::Redirect(301, "https://example.org/resource/Paris")),
    ("http://example.org/page/Berlin", Answer::Redirect(303, "http://example.org/data/berlin.ttl")),
    ("http://example.org/data/berlin.ttl", Answer::Ok("text/turtle")),
    ("http://example.org/data/berlin.jsonld", Answer::Ok("application/ld+json")),
    ("http://example.org/sparql?query=SELECT%20*&format=json", Answer::Ok("application/sparql-results+json")),
    ("http://example.org/sparql?format=xml&query=ASK%20%7B%7D", Answer::Ok("application/sparql-results+xml")),
    ("http://example.org/search?q=Linked+Data&page=2", Answer::Ok("text/html")),
    ("http://example.org/emoji/😀.ttl", Answer::Ok("text/turtle")),
    ("http://example.org/café/données.ttl", Answer::Ok("text/turtle")),
    ("http://sub.deep.example.org/x", Answer::Ok("application/n-triples")),
    ("http://data.example.com/id/42", Answer::Redirect(302, "http://data.example.com/id/42.rdf")),
    ("http://data.example.com/id/42.rdf", Answer::Ok("application/rdf+xml")),
    ("http://data.example.com/id/43", Answer::Ok("application/rdf+xml")),
    ("http://data.example.com:8080/id/42", Answer::Ok("text/turtle")),
    ("https://data.example.com:443/id/44", Answer::Ok("application/n-triples")),
    ("http://example.com/", Answer::Ok("text/html")),
    ("http://de.dbpedia.org/resource/München", Answer::Ok("text/turtle")),
    ("http://dbpedia.org/resource/Caf%C3%A9", Answer::Ok("text/turtle")),
    ("http://dbpedia.org/resource/Tim_Berners-Lee", Answer::Redirect(303, "http://dbpedia.org/data/Tim_Berners-Lee.ttl")),
    ("http://dbpedia.org/data/Tim_Berners-Lee.ttl", Answer::Ok("text/turtle")),
    ("http://dbpedia.org/data/Tim_Berners-Lee.json", Answer::Ok("application/json")),
    ("http://dbpedia.org/data/Tim_Berners-Lee.ntriples", Answer::Mirror("http://dbpedia.org/data/Tim_Berners-Lee.ttl")),
    ("http://例え.jp/データ/東京", Answer::Ok("text/turtle")),
    ("http://192.0.2.44/void.ttl", Answer::Ok("text/turtle")),
    ("http://www2.bbc.co.uk/nature/species/Lion", Answer::Ok("application/rdf+xml")),
    ("http://bbc.co.uk/nature/species/Tiger", Answer::Ok("application/rdf+xml")),
    ("http://www.bbc.co.uk/things/abc123.jsonld", Answer::Ok("application/ld+json")),
    ("http://w3.org/ns/dcat", Answer::Redirect(301, "https://www.w3.org/ns/dcat")),
    ("https://www.w3.org/ns/dcat", Answer::Ok("text/turtle")),
    ("https://www.w3.org/ns/dcat.ttl", Answer::Mirror("https://www.w3.org/ns/dcat")),
    ("https://www.w3.org/1999/02/22-rdf-syntax-ns", Answer::Ok("application/rdf+xml")),
    ("http://example.net/missing.ttl", Answer::NotFound),
    ("http://example.net/gone/Thing", Answer::NotFound),
    ("http://example.net/", Answer::Ok("text/html")),
];

/// The crawl hours (UTC): across a day boundary, month ends, a leap day and years.
const HOURS: &[(i32, u32, u32, u32)] = &[
    (2023, 1, 15, 10),
    (2023, 1, 15, 11),
    (2023, 6, 30, 23),
    (2023, 12, 31, 23),
    (2024, 1, 1, 0),
    (2024, 2, 29, 12),
    (2024, 3, 1, 0),
    (2025, 7, 4, 8),
    (2025, 7, 4, 9),
    (2025, 11, 21, 17),
];

/// One indexable record the generator wrote.
#[derive(Debug, Clone)]
pub struct GenCapture {
    /// `WARC-Target-URI`.
    pub url: String,
    /// `WARC-Date`.
    pub time: DateTime<Utc>,
    /// `WARC-Type`.
    pub record_type: &'static str,
    /// HTTP status (none for resource and metadata records).
    pub status: Option<u16>,
    /// The payload: for an identical-payload revisit, the original's payload.
    pub payload: Vec<u8>,
    /// For a revisit: `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`.
    pub refers_to: Option<(String, DateTime<Utc>)>,
    /// For an identical-payload revisit: the original's file (relative to the root).
    pub original_file: Option<String>,
    /// `WARC-Profile` of a revisit.
    pub profile: Option<&'static str>,
    /// File relative to the archive root (`warc/…`).
    pub file: String,
    /// Offset of the record in its file.
    pub offset: u64,
}

/// What `generate` wrote.
#[derive(Debug, Clone)]
pub struct GeneratedArchive {
    /// Every indexable record, in writing order.
    pub captures: Vec<GenCapture>,
}

/// The latest response with a given payload digest: the original revisits point at.
#[derive(Debug, Clone)]
struct Original {
    url: String,
    date: String,
    time: DateTime<Utc>,
    record_id: String,
    file: String,
}

fn body_for(url: &str, answer: Answer, version: u32) -> (u16, &'static str, Vec<u8>) {
    match answer {
        Answer::Ok(mime) => {
            let text = match mime {
                "text/turtle" => format!(
                    "@prefix ex: <http://example.org/ns#> .\n<{url}> ex:version {version} ;\n  ex:label \"Stand {version} — é日本😀\"@de .\n"
                ),
                "application/ld+json" | "application/json" => format!(
                    "{{\"@context\": {{\"ex\": \"http://example.org/ns#\"}}, \"@id\": \"{url}\", \"ex:version\": {version}, \"ex:label\": \"Größe {version}\"}}\n"
                ),
                "application/n-triples" => {
                    format!("<{url}> <http://example.org/ns#version> \"{version}\" .\n")
                }
                "text/html" => format!(
                    "<!DOCTYPE html>\n<html><head><title>v{version}</title><link rel=\"alternate\" type=\"text/turtle\" href=\"{url}.ttl\"></head><body>Version {version}</body></html>\n"
                ),
                _ => format!(
                    "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"http://example.org/ns#\"><rdf:Description rdf:about=\"{url}\"><ex:version>{version}</ex:version></rdf:Description></rdf:RDF>\n"
                ),
            };
            (200, mime, text.into_bytes())
        }
        Answer::Redirect(status, target) => (
            status,
            "text/html",
            format!("<a href=\"{target}\">moved</a>\n").into_bytes(),
        ),
        Answer::NotFound => (
            404,
            "text/plain",
            b"Not Found: no such resource.\n".to_vec(),
        ),
        Answer::Mirror(_) => unreachable!("mirrors are resolved first"),
    }
}

fn response_head(status: u16, mime: &str, length: usize, location: Option<&str>) -> String {
    let charset = if mime.starts_with("text/") || mime.contains("json") {
        "; charset=utf-8"
    } else {
        ""
    };
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {mime}{charset}\r\nContent-Length: {length}\r\nServer: gen/1.0\r\n",
        ldwarc_testweb::reason_phrase(status)
    );
    if let Some(location) = location {
        head.push_str(&format!("Location: {location}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// The request-line target: path and query with non-ASCII bytes percent-encoded.
fn request_target(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |slash| &rest[slash..]);
    let mut target = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_graphic() {
            target.push(byte as char);
        } else {
            target.push_str(&format!("%{byte:02X}"));
        }
    }
    target
}

/// The host of a URL (without port).
pub fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    authority.split(':').next().unwrap_or(authority)
}

fn id_of(header: &WarcHeader) -> String {
    header.record_id().expect("record id").to_string()
}

fn answer_of(url: &str) -> Answer {
    URLS.iter()
        .find(|(u, _)| *u == url)
        .map(|(_, a)| *a)
        .expect("known URL")
}

/// Writes the archive under `root` (`root/warc/…`) and returns its indexable records.
pub fn generate(root: &Path, seed: u64) -> GeneratedArchive {
    let mut lower: HashMap<String, &str> = HashMap::new();
    for (url, _) in URLS {
        if let Some(other) = lower.insert(url.to_lowercase(), url) {
            panic!("{url} and {other} differ only by case");
        }
    }
    let options = ArchiveWriterOptions {
        hostname: "gen.invalid".into(),
        operator: Some("ldwarc tests".into()),
        ..ArchiveWriterOptions::default()
    };
    let (mut writer, recoveries) = ArchiveWriter::open(root, options).expect("archive writer");
    assert!(recoveries.is_empty());
    let mut rng = Rng::new(seed);
    let mut captures = Vec::new();
    let mut versions: HashMap<&str, u32> = HashMap::new();
    let mut originals: HashMap<String, Original> = HashMap::new();

    for (round, &(year, month, day, hour)) in HOURS.iter().enumerate() {
        let start = Utc
            .with_ymd_and_hms(year, month, day, hour, 0, 0)
            .single()
            .expect("valid hour");
        // Which URLs this round fetches, at even seconds (so midpoints of two captures fall
        // on whole seconds: closest ties), with a random fraction.
        let mut fetches: Vec<(DateTime<Utc>, &str)> = Vec::new();
        for (url, _) in URLS {
            if round == 0 || rng.chance(0.8) {
                let second = 2 * rng.below(1799) as i64;
                let micros = rng.below(1_000_000) as i64;
                let time = start + TimeDelta::seconds(second) + TimeDelta::microseconds(micros);
                fetches.push((time, url));
                // Now and then the same URL twice in one second (equal 14-digit timestamps).
                if rng.chance(0.05) && micros < 900_000 {
                    fetches.push((time + TimeDelta::microseconds(50_000), url));
                }
            }
        }
        fetches.sort();
        for (time, url) in fetches {
            let source = match answer_of(url) {
                Answer::Mirror(of) => of,
                _ => url,
            };
            let version = versions.entry(source).or_insert(0);
            if rng.chance(0.35) {
                *version += 1;
            }
            let (status, mime, body) = body_for(source, answer_of(source), *version);
            let location = match answer_of(source) {
                Answer::Redirect(_, target) => Some(target),
                _ => None,
            };
            fetch(
                &mut writer,
                &mut rng,
                &mut captures,
                &mut originals,
                url,
                time,
                (status, mime, &body, location),
            );
        }
        // Resource records (a dataset description imported as a file, DNS answers).
        let time = start + TimeDelta::seconds(3599);
        let void = format!(
            "@prefix void: <http://rdfs.org/ns/void#> .\n<http://example.org/void#ds> void:triples {} .\n",
            100 + round
        );
        resource(
            &mut writer,
            &mut captures,
            "http://example.org/void/dataset.ttl",
            "text/turtle",
            time,
            void.into_bytes(),
        );
        if round % 3 == 0 {
            resource(
                &mut writer,
                &mut captures,
                "dns:example.org",
                "text/dns",
                time - TimeDelta::seconds(1),
                format!(
                    "{} \nexample.org.\t300\tIN\tA\t192.0.2.{round}\n",
                    start.format("%Y%m%d%H%M%S")
                )
                .into_bytes(),
            );
        }
        writer
            .close_stale(start + TimeDelta::hours(1))
            .expect("close the hour's files");
    }
    writer.close().expect("close the archive writer");
    GeneratedArchive { captures }
}

#[allow(clippy::too_many_arguments)]
fn fetch(
    writer: &mut ArchiveWriter,
    rng: &mut Rng,
    captures: &mut Vec<GenCapture>,
    originals: &mut HashMap<String, Original>,
    url: &str,
    time: DateTime<Utc>,
    (status, mime, body, location): (u16, &str, &[u8], Option<&str>),
) {
    let digest = sha1_digest(body);
    let mut request = record_header("request", time, Some(url));
    request.push("Content-Type", "application/http; msgtype=request");
    let request_block = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: text/turtle, application/ld+json;q=0.9, */*;q=0.1\r\nUser-Agent: ldwarc-test/1.0\r\n\r\n",
        request_target(url),
        host_of(url)
    );
    let original = originals.get(&digest).cloned();
    let (mut response, block, record_type, profile, refers) = match &original {
        Some(original) => {
            let mut revisit = record_header("revisit", time, Some(url));
            revisit.push("Content-Type", "application/http; msgtype=response");
            revisit.push("WARC-Refers-To", original.record_id.clone());
            revisit.push("WARC-Refers-To-Target-URI", original.url.clone());
            revisit.push("WARC-Refers-To-Date", original.date.clone());
            let (profile, head) = if original.url == url && rng.chance(0.15) {
                (
                    profiles::SERVER_NOT_MODIFIED,
                    "HTTP/1.1 304 Not Modified\r\nETag: \"v\"\r\nServer: gen/1.0\r\n\r\n"
                        .to_string(),
                )
            } else {
                revisit.push("WARC-Payload-Digest", digest.clone());
                (
                    profiles::IDENTICAL_PAYLOAD_DIGEST,
                    response_head(status, mime, body.len(), location),
                )
            };
            revisit.push("WARC-Profile", profile);
            (
                revisit,
                Block::from_bytes(head.into_bytes(), PayloadKind::None).expect("revisit block"),
                "revisit",
                Some(profile),
                Some((original.url.clone(), original.time)),
            )
        }
        None => {
            let mut response = record_header("response", time, Some(url));
            response.push("Content-Type", "application/http; msgtype=response");
            let mut bytes = response_head(status, mime, body.len(), location).into_bytes();
            bytes.extend_from_slice(body);
            (
                response,
                Block::from_bytes(bytes, PayloadKind::Http).expect("response block"),
                "response",
                None,
                None,
            )
        }
    };
    response.push("WARC-IP-Address", "192.0.2.7");
    response.push("WARC-Concurrent-To", id_of(&request));
    request.push("WARC-Concurrent-To", id_of(&response));
    let response_id = id_of(&response);
    let mut records = vec![
        (
            request,
            Block::from_bytes(request_block.into_bytes(), PayloadKind::Http).expect("request"),
        ),
        (response, block),
    ];
    // Metadata: crawl facts as WARC fields (not indexed), or provenance as JSON (indexed).
    let metadata = match rng.below(6) {
        0 => Some((
            "application/warc-fields",
            format!("fetchTimeMs: {}\r\nvia: {url}\r\n", 5 + rng.below(900)).into_bytes(),
        )),
        1 => Some((
            "application/json",
            format!(
                "{{\"fetchTimeMs\": {}, \"round\": \"{}\"}}\n",
                rng.below(900),
                time.format("%Y%m%d%H")
            )
            .into_bytes(),
        )),
        _ => None,
    };
    if let Some((content_type, bytes)) = &metadata {
        let mut header = record_header("metadata", time, Some(url));
        header.push("Content-Type", *content_type);
        header.push("WARC-Concurrent-To", response_id.clone());
        records.push((
            header,
            Block::from_bytes(bytes.clone(), PayloadKind::None).expect("metadata"),
        ));
    }
    let stored = writer
        .write_capture(host_of(url), records)
        .expect("write capture");
    let written = &stored[1];
    if record_type == "response" {
        originals.insert(
            digest,
            Original {
                url: url.to_string(),
                date: written.header.date().expect("date").to_string(),
                time,
                record_id: response_id,
                file: written.file.clone(),
            },
        );
    }
    captures.push(GenCapture {
        url: url.to_string(),
        time,
        record_type,
        status: Some(if profile == Some(profiles::SERVER_NOT_MODIFIED) {
            304
        } else {
            status
        }),
        payload: if profile == Some(profiles::SERVER_NOT_MODIFIED) {
            Vec::new()
        } else {
            body.to_vec()
        },
        refers_to: refers,
        original_file: original
            .filter(|_| profile == Some(profiles::IDENTICAL_PAYLOAD_DIGEST))
            .map(|o| o.file),
        profile,
        file: written.file.clone(),
        offset: written.offset,
    });
    if let Some((content_type, bytes)) = metadata
        && content_type != "application/warc-fields"
    {
        let record = &stored[2];
        captures.push(GenCapture {
            url: url.to_string(),
            time,
            record_type: "metadata",
            status: None,
            payload: bytes,
            refers_to: None,
            original_file: None,
            profile: None,
            file: record.file.clone(),
            offset: record.offset,
        });
    }
}

fn resource(
    writer: &mut ArchiveWriter,
    captures: &mut Vec<GenCapture>,
    url: &str,
    mime: &str,
    time: DateTime<Utc>,
    body: Vec<u8>,
) {
    let mut header = record_header("resource", time, Some(url));
    header.push("Content-Type", mime);
    let block = Block::from_bytes(body.clone(), PayloadKind::WholeBlock).expect("resource");
    let host = if url.starts_with("dns:") {
        "example.org"
    } else {
        host_of(url)
    };
    let stored = writer
        .write_capture(host, vec![(header, block)])
        .expect("write resource");
    captures.push(GenCapture {
        url: url.to_string(),
        time,
        record_type: "resource",
        status: None,
        payload: body,
        refers_to: None,
        original_file: None,
        profile: None,
        file: stored[0].file.clone(),
        offset: stored[0].offset,
    });
}
