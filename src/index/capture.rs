//! Captures: the index entries read from WARC records, with the fields and conventions of
//! `cdxj-indexer` (which records, which mime, status and digest).

use std::io::{self, BufRead, Read, Seek};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::surt::surt;
use crate::warc::digest::{BlockDigester, HeadEndScanner, canonical_digest};
use crate::warc::http::{self, HttpHead};
use crate::warc::summary::into_read_error;
use crate::warc::time::{parse_warc_date, wayback_timestamp};
use crate::warc::{ReadError, Record, WarcReader};

/// Record types that become captures (as `cdxj-indexer` indexes by default).
pub const INDEXED_TYPES: &[&str] = &["response", "revisit", "resource", "metadata"];

/// One capture: an indexable record and where it lies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capture {
    /// SURT of the URL.
    pub urlkey: String,
    /// 14-digit UTC timestamp.
    pub timestamp: String,
    /// Full-precision UTC time in microseconds since the Unix epoch.
    pub time_micros: i64,
    /// The exact target URI as archived.
    pub url: String,
    /// Media type (`warc/revisit` for revisits).
    pub mime: Option<String>,
    /// HTTP status.
    pub status: Option<u16>,
    /// Payload digest in ldwarc's spelling (`sha1:` + Base32).
    pub digest: Option<String>,
    /// Record length in its file.
    pub length: u64,
    /// Record offset in its file.
    pub offset: u64,
    /// File path relative to the archive root's `warc/` directory.
    pub filename: String,
    /// `WARC-Type`.
    pub record_type: String,
    /// `Location` of a redirect response.
    pub redirect: Option<String>,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// For a revisit: `WARC-Refers-To-Target-URI`.
    pub refers_to_url: Option<String>,
    /// For a revisit: `WARC-Refers-To-Date` as a 14-digit timestamp.
    pub refers_to_timestamp: Option<String>,
    /// For a revisit: where its original payload lies, once resolved.
    pub original: Option<RecordLocation>,
}

/// Where a record lies: file (relative to `warc/`), offset and length.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordLocation {
    /// File relative to the archive's `warc/` directory.
    pub filename: String,
    /// Offset of the record.
    pub offset: u64,
    /// Length of the record.
    pub length: u64,
}

/// Reads every capture of one file, starting at `start` (the end of what an earlier run
/// indexed). Returns the offset just past the last complete record, where the next
/// incremental run starts.
pub fn read_captures(
    path: &Path,
    filename: &str,
    start: u64,
    mut on_capture: impl FnMut(Capture),
    mut on_error: impl FnMut(ReadError),
) -> io::Result<u64> {
    let file = std::fs::File::open(path)?;
    let mut reader = WarcReader::at_offset(file, start)?;
    let mut end = start;
    while let Some(next) = reader.next_record() {
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                on_error(error);
                continue;
            }
        };
        let capture = capture_of(&mut record, filename);
        let finished = record.finish();
        match (capture, finished) {
            (Ok(capture), Ok(record_end)) => {
                if let Some(length) = record_end.span.length {
                    end = end.max(record_end.span.offset + length);
                }
                if let Some(mut capture) = capture {
                    capture.length = record_end.span.length.unwrap_or(0);
                    on_capture(capture);
                }
                if let Some(damage) = record_end.damage {
                    on_error(damage);
                }
            }
            (Err(error), _) | (_, Err(error)) => on_error(error),
        }
    }
    Ok(end)
}

/// The capture of a record, or `None` when the record is not indexed.
fn capture_of<R: Read + Seek>(
    record: &mut Record<'_, R>,
    filename: &str,
) -> Result<Option<Capture>, ReadError> {
    let header = record.header.clone();
    let record_type = header.record_type().unwrap_or("").to_string();
    if !INDEXED_TYPES.contains(&record_type.as_str()) {
        return Ok(None);
    }
    let warc_type = header.content_type().map(str::trim);
    if matches!(record_type.as_str(), "resource" | "metadata")
        && warc_type == Some("application/warc-fields")
    {
        return Ok(None);
    }
    let Some(url) = header.target_uri().map(str::to_string) else {
        return Ok(None);
    };
    let time = header
        .date()
        .and_then(parse_warc_date)
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let has_http = matches!(record_type.as_str(), "response" | "revisit")
        && (url.starts_with("http:") || url.starts_with("https:"))
        && header.content_length().is_some_and(|n| n > 0);
    let declared = header.get("WARC-Payload-Digest").map(canonical_digest);
    let need_digest = declared.is_none() && record_type != "revisit";
    let (head, computed) = read_head_and_digest(record, has_http, need_digest)?;
    let mime = if record_type == "revisit" {
        Some("warc/revisit".to_string())
    } else if record_type == "response" {
        head.as_ref()
            .and_then(|h| h.header("Content-Type"))
            .map(cut_mime)
    } else {
        header
            .get(crate::warc::arc::ARC_CONTENT_TYPE)
            .or(warc_type)
            .map(cut_mime)
    };
    let status = head.as_ref().and_then(|h| h.status);
    let redirect = head
        .as_ref()
        .filter(|h| h.status.is_some_and(|s| (300..400).contains(&s)))
        .and_then(|h| h.header("Location"))
        .map(str::to_string);
    Ok(Some(Capture {
        urlkey: surt(&url),
        timestamp: wayback_timestamp(time),
        time_micros: time.timestamp_micros(),
        url,
        mime: mime.filter(|m| !m.is_empty()),
        status,
        digest: declared.or(computed),
        length: 0,
        offset: record.offset,
        filename: filename.to_string(),
        record_type,
        redirect,
        record_id: header.record_id().map(str::to_string),
        refers_to_url: header
            .get("WARC-Refers-To-Target-URI")
            .map(|u| crate::warc::header::strip_angle_brackets(u).to_string()),
        refers_to_timestamp: header
            .get("WARC-Refers-To-Date")
            .and_then(parse_warc_date)
            .map(wayback_timestamp),
        original: None,
    }))
}

/// The media type as `cdxj-indexer` writes it: cut at the first `;` or white space.
fn cut_mime(value: &str) -> String {
    value
        .split([';', ' ', '\t'])
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Reads the HTTP head (when the block has one) and, if asked, the SHA-1 of the payload.
fn read_head_and_digest<R: Read + Seek>(
    record: &mut Record<'_, R>,
    has_http: bool,
    need_digest: bool,
) -> Result<(Option<HttpHead>, Option<String>), ReadError> {
    let mut head_bytes = Vec::new();
    let mut scanner = HeadEndScanner::default();
    let mut head_done = !has_http;
    let mut digester = need_digest.then(|| BlockDigester::sha1(has_http, !has_http));
    loop {
        if head_done && digester.is_none() {
            break;
        }
        let chunk = record.fill_buf().map_err(into_read_error)?;
        if chunk.is_empty() {
            break;
        }
        if !head_done {
            let take = chunk.len().min(64 * 1024 - head_bytes.len());
            head_bytes.extend_from_slice(&chunk[..take]);
            head_done = scanner.feed(&chunk[..take]).is_some() || head_bytes.len() >= 64 * 1024;
        }
        if let Some(digester) = digester.as_mut() {
            digester.update(chunk);
        }
        let n = chunk.len();
        record.consume(n);
    }
    let head = if has_http {
        http::parse_head_lenient(&head_bytes)
            .or_else(|| {
                // A head cut short by the end of the block still gives status and type.
                let mut terminated = head_bytes.clone();
                terminated.extend_from_slice(b"\r\n\r\n");
                http::parse_head_lenient(&terminated)
            })
            .map(|(head, _)| head)
    } else {
        None
    };
    let digest = digester.map(|d| {
        // An HTTP head that never ends leaves no payload: warcio (and so cdxj-indexer) then
        // digests the empty payload.
        d.finish()
            .payload
            .map_or_else(|| crate::warc::sha1_digest(b""), |p| p.to_canonical())
    });
    Ok((head, digest))
}
