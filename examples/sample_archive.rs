//! Writes the small sample archive kept in `fixtures/sample-archive` (run once; the output is
//! committed): a few Linked Data captures with a 303 redirect, Turtle and JSON-LD responses,
//! request records, metadata, and a revisit.
//!
//! `cargo run --example sample_archive -- fixtures/sample-archive`

use std::io;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{Block, PayloadKind, WarcHeader, profiles, record_header};

fn main() -> io::Result<()> {
    let root = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/sample-archive".into());
    let options = ArchiveWriterOptions {
        hostname: "sample".into(),
        operator: Some("ldwarc developers".into()),
        ..ArchiveWriterOptions::default()
    };
    let (mut writer, _) = ArchiveWriter::open(&root, options)?;
    let t0 = Utc
        .with_ymd_and_hms(2026, 11, 21, 10, 0, 0)
        .single()
        .expect("valid date");
    let alice = "<http://example.org/people/alice#me> <http://xmlns.com/foaf/0.1/name> \"Alice\" ;\n  <http://xmlns.com/foaf/0.1/knows> <http://data.example.net/bob> .\n";
    capture(
        &mut writer,
        t0,
        "http://example.org/people/alice",
        303,
        "text/plain",
        b"See Other",
        Some("http://example.org/people/alice.ttl"),
    )?;
    let first = capture(
        &mut writer,
        t0 + TimeDelta::seconds(2),
        "http://example.org/people/alice.ttl",
        200,
        "text/turtle",
        alice.as_bytes(),
        None,
    )?;
    let bob = r#"{"@context": {"name": "http://xmlns.com/foaf/0.1/name"}, "@id": "http://data.example.net/bob", "name": "Bob"}"#;
    capture(
        &mut writer,
        t0 + TimeDelta::seconds(4),
        "http://data.example.net/bob",
        200,
        "application/ld+json",
        bob.as_bytes(),
        None,
    )?;
    revisit(
        &mut writer,
        t0 + TimeDelta::minutes(30),
        "http://example.org/people/alice.ttl",
        alice.as_bytes(),
        &first,
    )?;
    writer.close()?;
    Ok(())
}

fn http_response(status: u16, mime: &str, body: &[u8], location: Option<&str>) -> Vec<u8> {
    let reason = if status == 303 { "See Other" } else { "OK" };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(location) = location {
        head.push_str(&format!("Location: {location}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn request(uri: &str) -> Vec<u8> {
    let (host, path) = uri
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(h, p)| (h.to_string(), format!("/{p}")))
        .unwrap_or_default();
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/turtle, application/ld+json;q=0.9\r\nUser-Agent: ldwarc/0.1\r\n\r\n").into_bytes()
}

fn capture(
    writer: &mut ArchiveWriter,
    date: DateTime<Utc>,
    uri: &str,
    status: u16,
    mime: &str,
    body: &[u8],
    location: Option<&str>,
) -> io::Result<WarcHeader> {
    let mut response = record_header("response", date, Some(uri));
    response.push("Content-Type", "application/http; msgtype=response");
    let response_id = response.record_id().unwrap_or_default().to_string();
    let mut request_header = record_header("request", date, Some(uri));
    request_header.push("Content-Type", "application/http; msgtype=request");
    request_header.push("WARC-Concurrent-To", response_id.clone());
    let mut metadata = record_header("metadata", date, Some(uri));
    metadata.push("Content-Type", "application/warc-fields");
    metadata.push("WARC-Concurrent-To", response_id);
    let host = uri
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    let stored = writer.write_capture(
        host,
        vec![
            (
                response,
                Block::from_bytes(
                    http_response(status, mime, body, location),
                    PayloadKind::Http,
                )?,
            ),
            (
                request_header,
                Block::from_bytes(request(uri), PayloadKind::Http)?,
            ),
            (
                metadata,
                Block::from_bytes(
                    b"hops: 0\r\nfetch-duration-ms: 12\r\n".to_vec(),
                    PayloadKind::None,
                )?,
            ),
        ],
    )?;
    Ok(stored[0].header.clone())
}

fn revisit(
    writer: &mut ArchiveWriter,
    date: DateTime<Utc>,
    uri: &str,
    body: &[u8],
    original: &WarcHeader,
) -> io::Result<()> {
    let full = http_response(200, "text/turtle", body, None);
    let head_len = full
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(full.len(), |p| p + 4);
    let mut header = record_header("revisit", date, Some(uri));
    header.push("Content-Type", "application/http; msgtype=response");
    header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
    header.push("WARC-Refers-To", original.record_id().unwrap_or_default());
    header.push("WARC-Refers-To-Target-URI", uri);
    header.push(
        "WARC-Refers-To-Date",
        original
            .date()
            .map(str::to_string)
            .unwrap_or_else(|| format_warc_date(date)),
    );
    header.push(
        "WARC-Payload-Digest",
        original.get("WARC-Payload-Digest").unwrap_or_default(),
    );
    header.push("WARC-Truncated", "length");
    let host = uri
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    writer.write_capture(
        host,
        vec![(
            header,
            Block::from_bytes(full[..head_len].to_vec(), PayloadKind::None)?,
        )],
    )?;
    Ok(())
}
