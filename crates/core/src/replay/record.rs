//! Reading an archived HTTP response back: the record at a file and offset under
//! `<root>/warc`, split into the HTTP head as received and the payload bytes as archived.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use crate::archive::OPEN_SUFFIX;
use ldwarc_warc::WarcReader;
use ldwarc_warc::http::{HttpHead, parse_head};

/// Heads longer than this are not HTTP heads ldwarc wrote or would replay.
const MAX_HEAD_BYTES: usize = 1 << 20;

/// An archived HTTP response: its head and (up to the caller's cap) its payload.
#[derive(Clone, Debug)]
pub struct ArchivedResponse {
    /// The response head as received.
    pub head: HttpHead,
    /// The payload bytes exactly as archived (any `Content-Encoding` still applied).
    pub payload: Vec<u8>,
    /// True when the payload was longer than the cap and was cut.
    pub truncated: bool,
}

/// The path of a file named relative to `<root>/warc`, or of its `.open` twin while a crawl
/// is still writing it. Names that would leave the WARC tree are refused.
pub fn warc_path(root: &Path, filename: &str) -> io::Result<PathBuf> {
    let relative = Path::new(filename);
    let escapes = relative.is_absolute()
        || relative
            .components()
            .any(|part| !matches!(part, std::path::Component::Normal(_)));
    if escapes || filename.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{filename}: not a file name inside the archive's warc/ directory"),
        ));
    }
    let path = root.join("warc").join(relative);
    if path.exists() {
        return Ok(path);
    }
    let open = path.with_file_name(format!(
        "{}{OPEN_SUFFIX}",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    ));
    Ok(if open.exists() { open } else { path })
}

/// Reads the HTTP response (or revisit, or resource) record at `offset` of `filename`: the
/// head, and at most `max_payload` payload bytes.
pub fn read_response(
    root: &Path,
    filename: &str,
    offset: u64,
    max_payload: usize,
) -> io::Result<ArchivedResponse> {
    let path = warc_path(root, filename)?;
    let at = |message: String| io::Error::other(format!("{}:{offset}: {message}", path.display()));
    let file = File::open(&path).map_err(|e| at(e.to_string()))?;
    let mut reader = WarcReader::at_offset_small(file, offset).map_err(|e| at(e.to_string()))?;
    let mut stored = reader
        .next_record()
        .ok_or_else(|| at("no record at this offset".into()))?
        .map_err(|e| at(e.to_string()))?;
    let mut head_bytes = Vec::new();
    let (head, head_length) = loop {
        let available = stored.fill_buf().map_err(|e| at(e.to_string()))?;
        if available.is_empty() {
            return Err(at("the record holds no complete HTTP head".into()));
        }
        let taken = available.len().min(64 * 1024);
        head_bytes.extend_from_slice(&available[..taken]);
        stored.consume(taken);
        if let Some(found) = parse_head(&head_bytes) {
            break found;
        }
        if head_bytes.len() > MAX_HEAD_BYTES {
            return Err(at("HTTP head longer than 1 MiB".into()));
        }
    };
    let mut payload = head_bytes.split_off(head_length);
    let mut truncated = payload.len() > max_payload;
    payload.truncate(max_payload);
    let remaining = max_payload.saturating_sub(payload.len()) as u64;
    stored
        .by_ref()
        .take(remaining)
        .read_to_end(&mut payload)
        .map_err(|e| at(e.to_string()))?;
    if !truncated && payload.len() == max_payload {
        let mut probe = [0u8; 1];
        truncated = stored.read(&mut probe).map_err(|e| at(e.to_string()))? > 0;
    }
    Ok(ArchivedResponse {
        head,
        payload,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_leaving_the_warc_tree_are_refused() {
        let root = Path::new("/tmp/archive");
        for bad in ["../x.warc.gz", "/etc/passwd", "a/../../b", ""] {
            let err = warc_path(root, bad).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(
            warc_path(root, "2024/01/01/00/x/a.warc.gz").unwrap(),
            Path::new("/tmp/archive/warc/2024/01/01/00/x/a.warc.gz")
        );
    }
}
