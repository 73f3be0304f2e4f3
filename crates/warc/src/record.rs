//! The parsed view of a record being read: its type, its HTTP head (read lazily from the
//! start of the block) and its payload (the block after that head).

use std::io::{self, BufRead, Read, Seek};

use super::digest::HeadEndScanner;
use super::http::{self, HttpHead};
use super::reader::Record;
use super::record_type::RecordType;

/// Longest HTTP head looked for at the start of a block; a longer one is not parsed.
const MAX_HTTP_HEAD: usize = 1024 * 1024;

/// What is known about the HTTP head at the start of the block, once looked for.
#[derive(Debug, Default)]
pub(crate) enum HttpProbe {
    /// The block has not been looked at.
    #[default]
    NotRead,
    /// The block was looked at: the head if one was found, and the block bytes read while
    /// looking that belong to the payload (all of them when no head was found).
    Read {
        head: Option<HttpHead>,
        pending: Vec<u8>,
        pos: usize,
    },
}

impl<'a, R: Read + Seek> Record<'a, R> {
    /// The record's `WARC-Type` (an empty [`RecordType::Unknown`] when the field is absent).
    pub fn record_type(&self) -> RecordType {
        RecordType::parse(self.header.record_type().unwrap_or(""))
    }

    /// The HTTP request or response head at the start of the block of a `request`,
    /// `response` or `revisit` record whose block is an HTTP message (`Content-Type:
    /// application/http`, or an `http:`/`https:` target URI); `None` for other records
    /// and for blocks that do not start with a parsable head (such as a revisit stored
    /// without one).
    ///
    /// The head is read on the first call. Call it before reading the block through
    /// [`Read`]: once block bytes were taken, the head is no longer looked for. The bytes
    /// after the head are then read with [`Record::payload`].
    pub fn http(&mut self) -> io::Result<Option<&HttpHead>> {
        if matches!(self.http, HttpProbe::NotRead) {
            self.http = self.probe_http()?;
        }
        match &self.http {
            HttpProbe::Read { head, .. } => Ok(head.as_ref()),
            HttpProbe::NotRead => Ok(None),
        }
    }

    /// The payload: the block without its HTTP head (the whole block when it has none),
    /// as stored: ldwarc stores bodies de-chunked, other writers may not, and any
    /// `Content-Encoding` is kept.
    ///
    /// Looks for the HTTP head first if [`Record::http`] was not called.
    pub fn payload(&mut self) -> io::Result<Payload<'_, 'a, R>> {
        self.http()?;
        Ok(Payload { record: self })
    }

    fn probe_http(&mut self) -> io::Result<HttpProbe> {
        let untouched = self.header.content_length() == Some(self.remaining());
        let uri_is_http = self
            .header
            .target_uri()
            .is_some_and(|uri| uri.starts_with("http:") || uri.starts_with("https:"));
        let candidate = self.record_type().may_hold_http()
            && (http::is_http_block(self.header.content_type()) || uri_is_http);
        let mut pending = Vec::new();
        if !candidate || !untouched {
            return Ok(HttpProbe::Read {
                head: None,
                pending,
                pos: 0,
            });
        }
        let mut scanner = HeadEndScanner::default();
        let mut block_ended = false;
        while pending.len() < MAX_HTTP_HEAD {
            let chunk = self.fill_buf()?;
            if chunk.is_empty() {
                block_ended = true;
                break;
            }
            let take = chunk.len().min(MAX_HTTP_HEAD - pending.len());
            let found = scanner.feed(&chunk[..take]);
            let take = found.unwrap_or(take);
            pending.extend_from_slice(&chunk[..take]);
            self.consume(take);
            if found.is_some() {
                break;
            }
        }
        // Some writers count the blank line that ends the head as part of the record's end
        // (the block stops after the last header line): the block's end ends the head too.
        let parsed = match http::parse_head_lenient(&pending) {
            Some((head, len)) if len == pending.len() => Some(head),
            None if block_ended && pending.ends_with(b"\n") => {
                let terminated = [pending.as_slice(), b"\r\n"].concat();
                http::parse_head_lenient(&terminated)
                    .filter(|(_, len)| *len == terminated.len())
                    .map(|(head, _)| head)
            }
            _ => None,
        };
        Ok(match parsed {
            Some(head) => HttpProbe::Read {
                head: Some(head),
                pending: Vec::new(),
                pos: 0,
            },
            _ => HttpProbe::Read {
                head: None,
                pending,
                pos: 0,
            },
        })
    }
}

/// The payload of a record as a [`Read`] stream; see [`Record::payload`].
pub struct Payload<'p, 'a, R> {
    record: &'p mut Record<'a, R>,
}

impl<R: Read + Seek> Read for Payload<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let HttpProbe::Read { pending, pos, .. } = &mut self.record.http
            && *pos < pending.len()
        {
            let n = (pending.len() - *pos).min(buf.len());
            buf[..n].copy_from_slice(&pending[*pos..*pos + n]);
            *pos += n;
            return Ok(n);
        }
        self.record.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

    use super::*;
    use crate::WarcReader;

    fn record(record_type: &str, block: &[u8]) -> Vec<u8> {
        let mut bytes = format!(
            "WARC/1.1\r\nWARC-Type: {record_type}\r\nWARC-Target-URI: http://a.example/\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .into_bytes();
        bytes.extend_from_slice(block);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }

    /// (type, status or method, payload) of every record.
    fn read_all(file: Vec<u8>) -> Vec<(RecordType, Option<String>, Vec<u8>)> {
        let mut reader = WarcReader::new(Cursor::new(file)).expect("reader");
        let mut seen = Vec::new();
        while let Some(next) = reader.next_record() {
            let mut record = next.expect("record");
            let head = record.http().expect("http").cloned();
            let what = head.map(|h| {
                h.status
                    .map_or_else(|| h.method.unwrap_or_default(), |s| s.to_string())
            });
            let mut payload = Vec::new();
            record
                .payload()
                .expect("payload")
                .read_to_end(&mut payload)
                .expect("read");
            seen.push((record.record_type(), what, payload));
        }
        seen
    }

    #[test]
    fn heads_are_parsed_and_payloads_follow_them() {
        let file = [
            record(
                "response",
                b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8bxx",
            ),
            record("request", b"GET / HTTP/1.1\r\nHost: a.example\r\n"),
            record("revisit", b""),
            record("response", b"not an HTTP message"),
            record("resource", b"HTTP/1.1 200 OK\r\n\r\nkept"),
        ]
        .concat();
        let seen = read_all(file);
        assert_eq!(
            seen,
            vec![
                (
                    RecordType::Response,
                    Some("200".into()),
                    b"\x1f\x8bxx".to_vec()
                ),
                (RecordType::Request, Some("GET".into()), Vec::new()),
                (RecordType::Revisit, None, Vec::new()),
                (RecordType::Response, None, b"not an HTTP message".to_vec()),
                (
                    RecordType::Resource,
                    None,
                    b"HTTP/1.1 200 OK\r\n\r\nkept".to_vec()
                ),
            ]
        );
    }

    #[test]
    fn no_head_is_looked_for_once_the_block_was_read() {
        let file = record("response", b"HTTP/1.1 204 No Content\r\n\r\n");
        let mut reader = WarcReader::new(Cursor::new(file)).expect("reader");
        let mut record = reader.next_record().expect("one record").expect("record");
        let mut first = [0u8; 4];
        record.read_exact(&mut first).expect("read");
        assert!(record.http().expect("http").is_none());
    }
}
