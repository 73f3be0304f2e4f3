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
        while pending.len() < MAX_HTTP_HEAD {
            let chunk = self.fill_buf()?;
            if chunk.is_empty() {
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
        Ok(match http::parse_head_lenient(&pending) {
            Some((head, len)) if len == pending.len() => HttpProbe::Read {
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
