//! Reading a payload back from the archive: when a server answers 304 Not Modified, the
//! links of the document come from its archived original, so an unchanged web is still
//! crawled to its full depth.

use std::io;
use std::path::Path;

use ldwarc_state::RecordRef;
use ldwarc_timetravel::replay::read_response;
use ldwarc_warc::http::HttpHead;

/// The HTTP head and the first `max` payload bytes of an archived response.
pub fn payload_prefix(
    root: &Path,
    record: &RecordRef,
    max: usize,
) -> io::Result<(HttpHead, Vec<u8>)> {
    let response = read_response(root, &record.file, record.offset, max)?;
    Ok((response.head, response.payload))
}
