//! Records the index cannot point at. A WARC gzipped as one whole stream has no offset a
//! reader can seek to for one record (replay opens a record at its offset), and a record
//! whose `WARC-Date` is no date has no time to be found by: neither is indexed, and each
//! is reported instead of being stored with an offset or a date that would mislead.

use ldwarc_warc::reader::ReadError;

/// The start of the message for a file gzipped as one whole stream.
pub const WHOLE_STREAM: &str = "gzipped as one whole stream";

/// The error reported once for a file gzipped as one whole stream.
pub fn whole_stream_error() -> ReadError {
    ReadError {
        offset: 0,
        message: format!(
            "{WHOLE_STREAM}: its records are not individually addressable, so none is \
             indexed; recompress it with one gzip member per record (e.g. `warcio recompress`)"
        ),
    }
}

/// Whether a read error is [`whole_stream_error`].
pub fn is_whole_stream_error(error: &ReadError) -> bool {
    error.message.starts_with(WHOLE_STREAM)
}

/// The error for a record whose `WARC-Date` is missing or not a date.
pub fn undated_error(offset: u64, date: Option<&str>, url: &str) -> ReadError {
    let date = match date {
        Some(text) => format!("WARC-Date {text:?} is not a date"),
        None => "no WARC-Date".to_string(),
    };
    ReadError {
        offset,
        message: format!("{date}: the record of {url} is not indexed"),
    }
}
