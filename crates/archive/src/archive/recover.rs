//! Finalising WARC files a killed writer left open: keep every complete record, cut the
//! incomplete tail, rename the file to its final name.

use std::fs::{self, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::OPEN_SUFFIX;
use ldwarc_warc::WarcReader;

/// What recovering one file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// The final path of the recovered file (`None` if it held no complete record and was removed).
    pub path: Option<PathBuf>,
    /// The `.open` path it was found under.
    pub open_path: PathBuf,
    /// Complete records kept.
    pub records_kept: u64,
    /// Bytes cut from the tail.
    pub tail_bytes: u64,
    /// Offset where the cut tail started.
    pub tail_offset: u64,
}

/// Recovers every `*.open` file below `warc_dir`.
pub fn recover_open_files(warc_dir: &Path) -> io::Result<Vec<Recovery>> {
    let mut recoveries = Vec::new();
    for path in find_open_files(warc_dir) {
        recoveries.push(recover_file(&path)?);
    }
    Ok(recoveries)
}

/// The `*.open` files below `dir` (WARC files a writer has not finished: a crawl still
/// running, or one that was killed), sorted by path; none when `dir` does not exist.
/// `check` reports them, since no other command reads them.
pub fn find_open_files(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut open_files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_file() && e.file_name().to_string_lossy().ends_with(OPEN_SUFFIX)
        })
        .map(|e| e.into_path())
        .collect();
    open_files.sort();
    open_files
}

/// Recovers one `.open` file: truncates it after its last complete record and renames it.
pub fn recover_file(open_path: &Path) -> io::Result<Recovery> {
    let mut reader = WarcReader::open(open_path)?;
    let plain = !reader.is_gzip();
    let mut good_end = 0u64;
    let mut records_kept = 0u64;
    while let Some(next) = reader.next_record() {
        let Ok(record) = next else { continue };
        if let Ok(end) = record.finish()
            && end.damage.is_none()
            && let Some(length) = end.span.length
        {
            // In a plain file the span ends with the block (as warcio counts it): the
            // record's closing CRLF CRLF follows and is part of what is kept.
            let trailer = if plain { end.trailer.len() as u64 } else { 0 };
            good_end = good_end.max(end.span.offset + length + trailer);
            records_kept += 1;
        }
    }
    let file_len = fs::metadata(open_path)?.len();
    let name = open_path.to_string_lossy();
    let final_path = PathBuf::from(name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name).to_string());
    let recovery = Recovery {
        path: (records_kept > 0).then(|| final_path.clone()),
        open_path: open_path.to_path_buf(),
        records_kept,
        tail_bytes: file_len - good_end.min(file_len),
        tail_offset: good_end,
    };
    if records_kept == 0 {
        fs::remove_file(open_path)?;
        return Ok(recovery);
    }
    let file = OpenOptions::new().write(true).open(open_path)?;
    file.set_len(good_end)?;
    file.sync_all()?;
    fs::rename(open_path, &final_path)?;
    Ok(recovery)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain (uncompressed) file keeps its last whole record with its closing CRLF CRLF;
    /// the span of a plain record ends with its block, and cutting there left a record that
    /// `check` calls damaged.
    #[test]
    fn a_plain_file_keeps_the_end_of_its_last_record() {
        let body = "<http://a.example/> <http://purl.org/dc/terms/title> \"t\" .\n";
        let record = format!(
            "WARC/1.1\r\nWARC-Type: resource\r\n\
             WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.example/\r\n\
             Content-Type: text/turtle\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        );
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("x.warc.open");
        fs::write(&open, format!("{record}WARC/1.1\r\nWARC-Type: resp")).unwrap();
        let recovery = recover_file(&open).unwrap();
        assert_eq!(recovery.records_kept, 1);
        let kept = dir.path().join("x.warc");
        assert_eq!(recovery.path.as_deref(), Some(kept.as_path()));
        assert_eq!(fs::read_to_string(&kept).unwrap(), record);
    }
}
