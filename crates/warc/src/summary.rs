//! One-line summaries of records, as `ldwarc ls` prints them.

use std::io::{BufRead, Read, Seek};

use serde::Serialize;

use super::digest::canonical_digest;
use super::header::WarcHeader;
use super::http::{self, media_type};
use super::reader::{ReadError, Record, RecordEnd, WarcReader};
use super::record_type::RecordType;

/// How much of a block is read to find an HTTP head.
const HEAD_PEEK_BYTES: usize = 64 * 1024;

/// What `ldwarc ls` shows about one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordSummary {
    /// Offset of the record in its file.
    pub offset: u64,
    /// Length of the record in its file (`None` for whole-file gzip).
    pub length: Option<u64>,
    /// `WARC-Type`.
    #[serde(rename = "type")]
    pub record_type: String,
    /// `WARC-Date` as written.
    pub date: String,
    /// `WARC-Target-URI` (brackets removed).
    pub target_uri: Option<String>,
    /// HTTP status of a response or revisit.
    pub status: Option<u16>,
    /// Media type: the HTTP `Content-Type` for HTTP blocks, else the WARC `Content-Type`.
    pub mime: Option<String>,
    /// `WARC-Payload-Digest` in ldwarc's spelling.
    pub payload_digest: Option<String>,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
}

/// Reads a record's header and the start of its block into a summary; the caller still
/// finishes the record to learn its length.
pub fn summarize<R: Read + Seek>(record: &mut Record<'_, R>) -> Result<RecordSummary, ReadError> {
    let header = record.header.clone();
    // The status is the one `ldwarc cdx` indexes: of responses and revisits only, read as
    // the index reads it (so never the status-like token of a request line).
    let indexed = http::indexes_http_head(
        &RecordType::from_exact(header.record_type().unwrap_or("")),
        header.target_uri().unwrap_or(""),
        header.content_length(),
    );
    let (status, http_mime) = if indexed || http::is_http_block(header.content_type()) {
        let head = peek_head(record)?;
        let parsed = if indexed {
            http::parse_indexed_head(&head)
        } else {
            http::parse_head(&head).map(|(head, _)| head)
        };
        match parsed {
            Some(head) => (head.status.filter(|_| indexed), head.mime()),
            None => (None, None),
        }
    } else {
        (None, None)
    };
    Ok(summary_from(&header, record.offset, status, http_mime))
}

fn summary_from(
    header: &WarcHeader,
    offset: u64,
    status: Option<u16>,
    http_mime: Option<String>,
) -> RecordSummary {
    let mime = http_mime.or_else(|| {
        let own = header
            .get(super::arc::ARC_CONTENT_TYPE)
            .or(header.content_type())?;
        Some(media_type(own))
    });
    RecordSummary {
        offset,
        length: None,
        record_type: header.record_type().unwrap_or("").to_string(),
        date: header.date().unwrap_or("").to_string(),
        target_uri: header.target_uri().map(str::to_string),
        status,
        mime,
        payload_digest: header.get("WARC-Payload-Digest").map(canonical_digest),
        record_id: header.record_id().map(str::to_string),
    }
}

/// Reads up to 64 KiB of the block, stopping once an HTTP head is complete.
fn peek_head<R: Read + Seek>(record: &mut Record<'_, R>) -> Result<Vec<u8>, ReadError> {
    let mut head = Vec::new();
    let mut scanner = super::digest::HeadEndScanner::default();
    while head.len() < HEAD_PEEK_BYTES {
        let chunk = record.fill_buf().map_err(into_read_error)?;
        if chunk.is_empty() {
            break;
        }
        let take = chunk.len().min(HEAD_PEEK_BYTES - head.len());
        head.extend_from_slice(&chunk[..take]);
        let found = scanner.feed(&chunk[..take]).is_some();
        record.consume(take);
        if found {
            break;
        }
    }
    Ok(head)
}

/// Turns an I/O error from reading a record into the reader's error, keeping a wrapped [`ReadError`] as it was.
pub fn into_read_error(error: std::io::Error) -> ReadError {
    match error.into_inner() {
        Some(inner) => match inner.downcast::<ReadError>() {
            Ok(read_error) => *read_error,
            Err(other) => ReadError {
                offset: 0,
                message: other.to_string(),
            },
        },
        None => ReadError {
            offset: 0,
            message: "read error".to_string(),
        },
    }
}

/// Summarises every record of a reader, calling `on_record` for each and `on_error` for
/// each damaged place (reading continues after damage).
pub fn summarize_all<R: Read + Seek>(
    reader: &mut WarcReader<R>,
    mut on_record: impl FnMut(RecordSummary),
    mut on_error: impl FnMut(ReadError),
) {
    while let Some(next) = reader.next_record() {
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                on_error(error);
                continue;
            }
        };
        let summary = summarize(&mut record);
        let end: Result<RecordEnd, ReadError> = record.finish();
        match (summary, end) {
            (Ok(mut summary), Ok(end)) => {
                summary.length = end.span.length;
                on_record(summary);
                if let Some(damage) = end.damage {
                    on_error(damage);
                }
            }
            (Err(error), _) | (_, Err(error)) => on_error(error),
        }
    }
}
