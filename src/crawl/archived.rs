//! Reading a payload back from the archive: when a server answers 304 Not Modified, the
//! links of the document come from its archived original, so an unchanged web is still
//! crawled to its full depth.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

use crate::archive::OPEN_SUFFIX;
use crate::store::RecordRef;
use crate::warc::WarcReader;
use crate::warc::http::{HttpHead, parse_head};

/// The HTTP head and the first `max` payload bytes of an archived response.
pub fn payload_prefix(
    root: &Path,
    record: &RecordRef,
    max: usize,
) -> io::Result<(HttpHead, Vec<u8>)> {
    let path = root.join("warc").join(&record.file);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => File::open(path.with_file_name(format!(
                "{}{OPEN_SUFFIX}",
                path.file_name().and_then(|n| n.to_str()).unwrap_or_default()
            )))?,
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let at = |message: String| {
        io::Error::other(format!("{}:{}: {message}", path.display(), record.offset))
    };
    let mut reader = WarcReader::at_offset(file, record.offset)?;
    let mut stored = reader
        .next_record()
        .ok_or_else(|| at("no record at this offset".into()))?
        .map_err(|e| at(e.to_string()))?;
    // The head is at most a few KiB; read until it is complete.
    let mut head_bytes = Vec::new();
    let head = loop {
        let available = stored.fill_buf()?;
        if available.is_empty() {
            return Err(at("the record holds no complete HTTP head".into()));
        }
        let taken = available.len().min(64 * 1024);
        head_bytes.extend_from_slice(&available[..taken]);
        stored.consume(taken);
        if let Some((head, length)) = parse_head(&head_bytes) {
            break (head, length);
        }
        if head_bytes.len() > 1024 * 1024 {
            return Err(at("HTTP head longer than 1 MiB".into()));
        }
    };
    let (head, head_length) = head;
    let mut payload = head_bytes.split_off(head_length);
    payload.truncate(max);
    let remaining = max.saturating_sub(payload.len()) as u64;
    stored.by_ref().take(remaining).read_to_end(&mut payload)?;
    Ok((head, payload))
}
