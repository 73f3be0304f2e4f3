//! Captures: the index entries read from WARC records, with the fields and conventions of
//! `cdxj-indexer` (which records, which mime, status and digest).

use std::io::{self, BufRead, Read, Seek};
use std::path::Path;

use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::{Deserialize, Serialize};

use ldwarc_surt::surt;
use ldwarc_warc::digest::{BlockDigester, HeadEndScanner, canonical_digest};
use ldwarc_warc::http::{self, HttpHead};
use ldwarc_warc::summary::into_read_error;
use ldwarc_warc::time::{parse_warc_date, wayback_timestamp};
use ldwarc_warc::{ReadError, Record, RecordType, WarcReader};

/// Record types that become captures (as `cdxj-indexer` indexes by default).
pub const INDEXED_TYPES: &[RecordType] = &[
    RecordType::Response,
    RecordType::Revisit,
    RecordType::Resource,
    RecordType::Metadata,
];

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
    /// `WARC-Type` (stored and printed by its name).
    pub record_type: RecordType,
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
/// incremental run starts. A record the file cuts short is a capture (with the bytes there
/// are, as cdxj-indexer indexes it) but not complete: the returned offset stays before it.
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
    // Each record waits for the next, which may be the other half of its exchange.
    let mut pairing = Pairing::default();
    while let Some(next) = reader.next_record() {
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                pairing.flush(&mut on_capture);
                on_error(error);
                continue;
            }
        };
        let mut exchange = Exchange::of(&record.header);
        let capture = match exchange.as_mut() {
            Some(exchange) if exchange.is_request => {
                exchange.request = read_request(&mut record);
                Ok(None)
            }
            _ => capture_of(&mut record, filename),
        };
        let finished = record.finish();
        match (capture, finished) {
            (_, Ok(record_end)) if record_end.span.length.is_none() => {
                pairing.flush(&mut on_capture);
                on_error(super::unaddressable::whole_stream_error());
                return Ok(end);
            }
            (Err(error), Ok(record_end)) => {
                if let Some(length) = record_end.span.length
                    && record_end.cut_short.is_none()
                {
                    end = end.max(record_end.span.offset + length);
                }
                pairing.flush(&mut on_capture);
                on_error(error);
            }
            (Ok(capture), Ok(record_end)) => {
                if let Some(length) = record_end.span.length
                    && record_end.cut_short.is_none()
                {
                    end = end.max(record_end.span.offset + length);
                }
                let capture = capture.map(|mut capture| {
                    capture.length = record_end.span.length.unwrap_or(0);
                    capture
                });
                pairing.next(capture, exchange, &mut on_capture);
                if let Some(damage) = record_end.damage {
                    on_error(damage);
                }
            }
            (Err(error), _) | (_, Err(error)) => {
                pairing.flush(&mut on_capture);
                on_error(error);
            }
        }
    }
    pairing.flush(&mut on_capture);
    Ok(end)
}

/// What pairing a response with its request needs of a record of either type.
struct Exchange {
    is_request: bool,
    /// `WARC-Target-URI`, `WARC-Record-ID` and `WARC-Concurrent-To` as written.
    target_uri: Option<String>,
    record_id: Option<String>,
    concurrent_to: Option<String>,
    /// A request's method and body, when it has an HTTP head.
    request: Option<super::post_key::Request>,
}

impl Exchange {
    /// The exchange fields of a `response` or `request` record; `None` for other records.
    fn of(header: &ldwarc_warc::WarcHeader) -> Option<Exchange> {
        let is_request = match header.record_type()? {
            "request" => true,
            "response" => false,
            _ => return None,
        };
        Some(Exchange {
            is_request,
            target_uri: header.get("WARC-Target-URI").map(str::to_string),
            record_id: header.record_id().map(str::to_string),
            concurrent_to: header.get("WARC-Concurrent-To").map(str::to_string),
            request: None,
        })
    }

    /// Whether `later`, the record right after this one, is the other half of this
    /// exchange (cdxj-indexer's rule): the same target, `later` concurrent to this one, one
    /// a request and the other a response.
    fn pairs_with(&self, later: &Exchange) -> bool {
        self.is_request != later.is_request
            && self.target_uri == later.target_uri
            && later.concurrent_to.is_some()
            && later.concurrent_to == self.record_id
    }
}

/// Captures held back one record, so that a POST or PUT response gets the key of the
/// request beside it (before or after it).
#[derive(Default)]
struct Pairing {
    held: Option<(Option<Capture>, Option<Exchange>)>,
}

impl Pairing {
    /// Takes the next record's capture (if it is one) and exchange fields (if it has any),
    /// handing on what is settled.
    fn next(
        &mut self,
        mut capture: Option<Capture>,
        exchange: Option<Exchange>,
        on_capture: &mut impl FnMut(Capture),
    ) {
        let Some((mut earlier_capture, earlier)) = self.held.take() else {
            self.held = Some((capture, exchange));
            return;
        };
        match (earlier, exchange) {
            (Some(earlier), Some(later)) if earlier.pairs_with(&later) => {
                let (request, response) = if earlier.is_request {
                    (&earlier, capture.as_mut())
                } else {
                    (&later, earlier_capture.as_mut())
                };
                if let Some(response) = response
                    && let Some(key) = method_key(request)
                {
                    response.urlkey = key;
                }
                // A record pairs once: the one after these starts afresh.
                for capture in [earlier_capture, capture].into_iter().flatten() {
                    on_capture(capture);
                }
            }
            (_, exchange) => {
                if let Some(earlier_capture) = earlier_capture {
                    on_capture(earlier_capture);
                }
                self.held = Some((capture, exchange));
            }
        }
    }

    /// Hands on the held capture: no record can pair with it any more.
    fn flush(&mut self, on_capture: &mut impl FnMut(Capture)) {
        if let Some((Some(capture), _)) = self.held.take() {
            on_capture(capture);
        }
    }
}

/// The key of a response to `request`, if the request is a POST or PUT.
fn method_key(request: &Exchange) -> Option<String> {
    let body = request.request.as_ref().filter(|body| body.keyed())?;
    let url = request.target_uri.as_deref()?;
    let url = url_as_indexed(ldwarc_warc::header::strip_angle_brackets(url));
    Some(surt(&body.keyed_url(&url)))
}

/// The largest request body read for a key (a JSON body beyond it is not read as JSON).
const MAX_REQUEST_BODY: usize = 1 << 20;

/// A request record's method, `Content-Type`, `Content-Length` and body, when its block
/// starts with an HTTP request head.
fn read_request<R: Read + Seek>(record: &mut Record<'_, R>) -> Option<super::post_key::Request> {
    let has_http = record.header.content_length().is_some_and(|n| n > 0)
        && record
            .header
            .target_uri()
            .is_some_and(|uri| uri.starts_with("http:") || uri.starts_with("https:"));
    if !has_http {
        return None;
    }
    let mut block = Vec::new();
    let mut scanner = HeadEndScanner::default();
    let mut body_from = None;
    loop {
        let chunk = record.fill_buf().ok()?;
        if chunk.is_empty() {
            break;
        }
        let take = chunk.len().min(64 * 1024 + MAX_REQUEST_BODY - block.len());
        if body_from.is_none() {
            body_from = scanner.feed(&chunk[..take]).map(|at| block.len() + at);
        }
        block.extend_from_slice(&chunk[..take]);
        let n = chunk.len();
        record.consume(n);
        let head_given_up = body_from.is_none() && block.len() >= 64 * 1024;
        let body_full = body_from.is_some_and(|from| block.len() - from >= MAX_REQUEST_BODY);
        if head_given_up || body_full {
            break;
        }
    }
    let (head, head_len) = http::parse_head_lenient(&block)?;
    let method = head.method.clone()?;
    if !(method.eq_ignore_ascii_case("POST") || method.eq_ignore_ascii_case("PUT")) {
        return Some(super::post_key::Request {
            method,
            content_type: None,
            content_length: None,
            body: Vec::new(),
        });
    }
    let body = block.get(head_len..).unwrap_or_default().to_vec();
    Some(super::post_key::Request {
        method,
        content_type: head.header("Content-Type").map(str::to_string),
        content_length: head.header("Content-Length").map(str::to_string),
        body,
    })
}

/// The capture of a record, or `None` when the record is not indexed.
fn capture_of<R: Read + Seek>(
    record: &mut Record<'_, R>,
    filename: &str,
) -> Result<Option<Capture>, ReadError> {
    // Everything needed from the WARC header is taken before the block is read (which
    // borrows the record), without copying the whole header.
    let header = &record.header;
    // Only the exact spellings are indexed, as cdxj-indexer does.
    let Some(record_type) = header
        .record_type()
        .map(RecordType::from_exact)
        .filter(|t| INDEXED_TYPES.contains(t))
    else {
        return Ok(None);
    };
    let warc_type = header.content_type().map(str::trim);
    if matches!(record_type, RecordType::Resource | RecordType::Metadata)
        && warc_type == Some("application/warc-fields")
    {
        return Ok(None);
    }
    let Some(url) = header.target_uri().map(url_as_indexed) else {
        return Ok(None);
    };
    let Some(time) = header.date_time() else {
        return Err(super::unaddressable::undated_error(
            record.offset,
            header.date(),
            &url,
        ));
    };
    let has_http = http::indexes_http_head(&record_type, &url, header.content_length());
    let declared = header
        .get("WARC-Payload-Digest")
        .map(canonical_payload_digest);
    let need_digest = declared.is_none() && record_type != RecordType::Revisit;
    let header_mime = if matches!(record_type, RecordType::Revisit | RecordType::Response) {
        None
    } else {
        header
            .get(ldwarc_warc::arc::ARC_CONTENT_TYPE)
            .or(warc_type)
            .map(cut_mime)
    };
    let record_id = header.record_id().map(str::to_string);
    let refers_to_url = header
        .get("WARC-Refers-To-Target-URI")
        .map(|u| url_as_indexed(ldwarc_warc::header::strip_angle_brackets(u)));
    let refers_to_timestamp = header
        .get("WARC-Refers-To-Date")
        .and_then(parse_warc_date)
        .map(timestamp_of);
    let (head, computed) = read_head_and_digest(record, has_http, need_digest)?;
    let mime = match record_type {
        RecordType::Revisit => Some("warc/revisit".to_string()),
        RecordType::Response => head
            .as_ref()
            .and_then(|h| h.header("Content-Type"))
            .map(cut_mime),
        _ => header_mime,
    };
    let status = head.as_ref().and_then(|h| h.status);
    let redirect = head
        .as_ref()
        .filter(|h| h.status.is_some_and(|s| (300..400).contains(&s)))
        .and_then(|h| h.header("Location"))
        // An empty Location is no target: stored as absent, as the index codec reads it.
        .filter(|location| !location.is_empty())
        .map(str::to_string);
    Ok(Some(Capture {
        urlkey: surt(&url),
        timestamp: timestamp_of(time),
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
        record_id,
        refers_to_url,
        refers_to_timestamp,
        original: None,
    }))
}

/// A target URI as the index keeps it: spaces (which no URI holds, but some writers leave
/// in `WARC-Target-URI`) as `%20`, as warcio reads them and so cdxj-indexer and pywb index
/// them; nothing else is changed.
fn url_as_indexed(uri: &str) -> String {
    uri.replace(' ', "%20")
}

/// [`wayback_timestamp`] without parsing a format string for every record (the common
/// four-digit years; others go through chrono).
fn timestamp_of(time: DateTime<Utc>) -> String {
    let year = time.year();
    if !(0..=9999).contains(&year) {
        return wayback_timestamp(time);
    }
    let mut digits = [0u8; 14];
    let mut put = |at: usize, width: usize, mut value: u32| {
        for i in (at..at + width).rev() {
            digits[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year as u32);
    put(4, 2, time.month());
    put(6, 2, time.day());
    put(8, 2, time.hour());
    put(10, 2, time.minute());
    // A leap second (chrono's second 59 with nanoseconds past 1e9) formats as 60.
    put(
        12,
        2,
        time.second() + u32::from(time.nanosecond() >= 1_000_000_000),
    );
    digits.iter().map(|&d| d as char).collect()
}

/// A payload digest in ldwarc's spelling; values already spelled that way (what ldwarc
/// writes) are taken as they are instead of being decoded and encoded again.
fn canonical_payload_digest(value: &str) -> String {
    let trimmed = value.trim();
    if let Some(base32) = trimmed.strip_prefix("sha1:")
        && base32.len() == 32
        && base32
            .bytes()
            .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
    {
        return trimmed.to_string();
    }
    canonical_digest(value)
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
        http::parse_indexed_head(&head_bytes)
    } else {
        None
    };
    let digest = digester.map(|d| {
        // An HTTP head that never ends leaves no payload: warcio (and so cdxj-indexer) then
        // digests the empty payload.
        d.finish()
            .payload
            .map_or_else(|| ldwarc_warc::sha1_digest(b""), |p| p.to_canonical())
    });
    Ok((head, digest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_fast_path_agrees_with_chrono() {
        use chrono::TimeZone;
        for (y, mo, d, h, mi, s) in [
            (2026, 1, 1, 0, 0, 0),
            (1999, 12, 31, 23, 59, 59),
            (1, 2, 3, 4, 5, 6),
            (9999, 12, 31, 23, 59, 59),
        ] {
            let time = Utc
                .with_ymd_and_hms(y, mo, d, h, mi, s)
                .single()
                .expect("date");
            assert_eq!(timestamp_of(time), wayback_timestamp(time));
        }
        for text in [
            "2016-12-31T23:59:60Z",
            "2026-11-21T10:00:00.123456Z",
            "1970-01-01T00:00:00Z",
            "0099-05-05T05:05:05Z",
        ] {
            if let Some(time) = parse_warc_date(text) {
                assert_eq!(timestamp_of(time), wayback_timestamp(time), "{text}");
            }
        }
        let far = Utc
            .with_ymd_and_hms(12345, 1, 1, 0, 0, 0)
            .single()
            .expect("date");
        assert_eq!(timestamp_of(far), wayback_timestamp(far));
    }

    #[test]
    fn payload_digest_fast_path_agrees_with_the_general_one() {
        for value in [
            "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A",
            " sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A ",
            "sha1:b2ltwwpuoyah7uipq7zupq4vmbsvc36a",
            "SHA1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A",
            "sha1:0ed73b5a833e1bd9f7e8b9bfe8e5c3ee30da2f2c",
            "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36",
            "md5:whatever",
        ] {
            assert_eq!(
                canonical_payload_digest(value),
                canonical_digest(value),
                "{value}"
            );
        }
    }
}
