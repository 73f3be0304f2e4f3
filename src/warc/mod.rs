//! ldwarc's own thin WARC layer: the record model, a streaming reader that reports every
//! record's byte offset and length, a per-record gzip writer, and digests.
//!
//! Built on `flate2` rather than the `warc` crate, which truncates large records on write and
//! collapses repeated headers.

pub mod arc;
mod arc_url;
pub mod digest;
pub mod header;
pub mod http;
pub mod reader;
mod sniff;
mod source;
pub mod summary;
pub mod time;
pub mod validate;
pub mod writer;

pub use digest::{BlockDigester, BlockDigests, DigestValue, canonical_digest, sha1_digest};
pub use header::WarcHeader;
pub use reader::{FileFormat, ReadError, Record, RecordEnd, RecordSpan, WarcReader};
pub use writer::{
    Block, BlockBuilder, PayloadKind, WarcWriter, WrittenRecord, profiles, record_header,
    warcinfo_record,
};
