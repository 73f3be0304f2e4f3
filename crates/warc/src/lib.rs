//! ldwarc's own thin WARC layer: the record model, a streaming reader that reports every
//! record's byte offset and length, a per-record gzip writer, and digests.
//!
//! Built on `flate2` rather than the `warc` crate, which truncates large records on write and
//! collapses repeated headers. It depends on no other part of ldwarc and can be used alone.
//!
//! - [`WarcReader`] reads WARC 0.17–1.1 and ARC files (plain, gzip per record, or gzipped
//!   as a whole); each [`Record`] has its [`WarcHeader`], its [`RecordType`], its HTTP head
//!   ([`Record::http`]) and its payload ([`Record::payload`]), and ends with the offset and
//!   length of the record in the file. [`ForwardOnly`] reads from a pipe.
//! - [`WarcWriter`] writes records, one gzip member each, with their digests.
//! - [`validate`] checks files; [`extract`] writes one record as `warcio extract` does.
//!
//! ```
//! use std::io::{Cursor, Read};
//! use ldwarc_warc::{Block, PayloadKind, RecordType, WarcReader, WarcWriter, record_header};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Write one response record into memory…
//! let mut writer = WarcWriter::new(Vec::new(), 0);
//! let mut header = record_header("response", chrono::Utc::now(), Some("http://example.org/"));
//! header.push("Content-Type", "application/http; msgtype=response");
//! let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n<a> <b> <c> .\n";
//! writer.write_record(header, Block::from_bytes(http.to_vec(), PayloadKind::Http)?)?;
//! let file = writer.into_inner();
//!
//! // …and read it back.
//! let mut reader = WarcReader::new(Cursor::new(file))?;
//! while let Some(record) = reader.next_record() {
//!     let mut record = record?;
//!     assert_eq!(record.record_type(), RecordType::Response);
//!     let status = record.http()?.and_then(|head| head.status);
//!     assert_eq!(status, Some(200));
//!     let mut payload = Vec::new();
//!     record.payload()?.read_to_end(&mut payload)?;
//!     assert_eq!(payload, b"<a> <b> <c> .\n");
//!     let end = record.finish()?;
//!     println!("record at offset {}, {:?} bytes", end.span.offset, end.span.length);
//! }
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod arc;
mod arc_url;
pub mod digest;
pub mod extract;
pub mod header;
pub mod http;
pub mod reader;
mod record;
mod record_type;
mod sniff;
mod source;
mod stream;
pub mod summary;
pub mod time;
pub mod validate;
pub mod writer;

pub use digest::{BlockDigester, BlockDigests, DigestValue, canonical_digest, sha1_digest};
pub use header::WarcHeader;
pub use http::HttpHead;
pub use reader::{FileFormat, ReadError, Record, RecordEnd, RecordSpan, WarcReader};
pub use record::Payload;
pub use record_type::RecordType;
pub use stream::ForwardOnly;
pub use writer::{
    Block, BlockBuilder, PayloadKind, WarcWriter, WrittenRecord, profiles, record_header,
    warcinfo_record,
};
