//! Reading an archived HTTP response back: the record at a file and offset under
//! `<root>/warc`, split into the HTTP head as received and the payload bytes as archived.

use ldwarc_warc::RecordType;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use ldwarc_archive::archive::OPEN_SUFFIX;
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
    /// True when the payload was longer than the cap and was cut, or when the file ends
    /// inside the record (the payload is then what the file holds of it).
    pub truncated: bool,
}

impl ArchivedResponse {
    /// Whether the payload hashes to `digest` (`sha1:…` and the other algorithms WARC files
    /// use); `None` when that cannot be told: an algorithm ldwarc does not compute, a
    /// malformed value, a payload cut at the read limit, or one stored chunked (writers
    /// disagree on whether the digest covers the chunked or the de-chunked bytes).
    pub fn matches_digest(&self, digest: &str) -> Option<bool> {
        use ldwarc_warc::digest::{DigestValue, Hasher};
        let chunked = self
            .head
            .header("transfer-encoding")
            .is_some_and(|coding| coding.to_ascii_lowercase().contains("chunked"));
        if self.truncated || chunked {
            return None;
        }
        let expected = DigestValue::parse(digest)?;
        let mut hasher = Hasher::new(expected.algorithm);
        hasher.update(&self.payload);
        Some(hasher.finish() == expected)
    }
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
    let file = File::open(&path).map_err(|e| at_record(&path, offset, e.to_string()))?;
    read_response_in(&file, &path, offset, 0, max_payload)
}

/// WARC files kept open for one scan over many records (a snapshot, a dataset diff), so
/// that each record costs a positioned read, not a path lookup, an open and a close. At
/// most `capacity` files stay open, the least recently used closed first. Not for
/// long-lived use: a file replaced on disk after it was opened is still read as it was.
pub struct OpenWarcFiles {
    capacity: usize,
    files: Mutex<OpenFiles>,
}

#[derive(Default)]
struct OpenFiles {
    /// By root, then by file name relative to its `warc/` directory.
    by_root: HashMap<PathBuf, HashMap<String, OpenFile>>,
    /// Counts lookups, to tell which file was used least recently.
    clock: u64,
}

struct OpenFile {
    file: Arc<File>,
    path: PathBuf,
    last_used: u64,
}

/// Files one scan keeps open by default: few enough beside the usual limit of 1,024
/// descriptors per process, enough for the files a URL-ordered scan alternates between.
const SCAN_OPEN_FILES: usize = 64;

impl OpenWarcFiles {
    /// For one scan: at most 64 files open.
    pub fn for_scan() -> OpenWarcFiles {
        OpenWarcFiles::new(SCAN_OPEN_FILES)
    }

    /// Keeps at most `capacity` files open (at least one).
    pub fn new(capacity: usize) -> OpenWarcFiles {
        OpenWarcFiles {
            capacity: capacity.max(1),
            files: Mutex::new(OpenFiles::default()),
        }
    }

    /// [`read_response`] through the files kept open, of the record at `offset` stored in
    /// about `record_length` bytes (from the index; 0 if not known), which sizes the reads.
    pub fn read_response(
        &self,
        root: &Path,
        filename: &str,
        (offset, record_length): (u64, u64),
        max_payload: usize,
    ) -> io::Result<ArchivedResponse> {
        let (file, path) = self.file(root, filename, offset)?;
        read_response_in(&file, &path, offset, record_length, max_payload)
    }

    fn file(&self, root: &Path, filename: &str, offset: u64) -> io::Result<(Arc<File>, PathBuf)> {
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        files.clock += 1;
        let now = files.clock;
        if let Some(open) = files
            .by_root
            .get_mut(root)
            .and_then(|names| names.get_mut(filename))
        {
            open.last_used = now;
            return Ok((open.file.clone(), open.path.clone()));
        }
        // Opened under the lock: two threads asking for one file open it once.
        let path = warc_path(root, filename)?;
        let file =
            Arc::new(File::open(&path).map_err(|e| at_record(&path, offset, e.to_string()))?);
        if files.open() >= self.capacity {
            files.close_least_recently_used();
        }
        files.by_root.entry(root.to_path_buf()).or_default().insert(
            filename.to_string(),
            OpenFile {
                file: file.clone(),
                path: path.clone(),
                last_used: now,
            },
        );
        Ok((file, path))
    }
}

impl OpenFiles {
    fn open(&self) -> usize {
        self.by_root.values().map(HashMap::len).sum()
    }

    fn close_least_recently_used(&mut self) {
        let oldest = self
            .by_root
            .iter()
            .flat_map(|(root, names)| {
                names
                    .iter()
                    .map(move |(name, open)| (open.last_used, root, name))
            })
            .min_by_key(|(last_used, _, _)| *last_used)
            .map(|(_, root, name)| (root.clone(), name.clone()));
        if let Some((root, name)) = oldest
            && let Some(names) = self.by_root.get_mut(&root)
        {
            names.remove(&name);
        }
    }
}

/// A file read at positions of its own, so that threads can share one open file.
struct PositionedFile<'a> {
    file: &'a File,
    position: u64,
}

impl Read for PositionedFile<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let read = std::os::unix::fs::FileExt::read_at(self.file, buf, self.position)?;
        #[cfg(windows)]
        let read = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.position)?;
        self.position += read as u64;
        Ok(read)
    }
}

impl Seek for PositionedFile<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let invalid = || io::Error::new(io::ErrorKind::InvalidInput, "seek before the start");
        self.position = match to {
            SeekFrom::Start(at) => at,
            SeekFrom::Current(delta) => self
                .position
                .checked_add_signed(delta)
                .ok_or_else(invalid)?,
            SeekFrom::End(delta) => {
                let length = self.file.metadata()?.len();
                length.checked_add_signed(delta).ok_or_else(invalid)?
            }
        };
        Ok(self.position)
    }
}

fn at_record(path: &Path, offset: u64, message: String) -> io::Error {
    io::Error::other(format!("{}:{offset}: {message}", path.display()))
}

/// The `WARC-Type` of the record at `offset` of a file named relative to `<root>/warc`: a
/// check that a record the index cites is still there (a revisit, whose payload is read from
/// elsewhere, is otherwise never read).
pub fn record_type_at(root: &Path, filename: &str, offset: u64) -> io::Result<RecordType> {
    let path = warc_path(root, filename)?;
    let at = |message: String| at_record(&path, offset, message);
    let file = File::open(&path).map_err(|e| at(e.to_string()))?;
    let mut reader = WarcReader::at_offset(file, offset).map_err(|e| at(e.to_string()))?;
    let record = reader
        .next_record()
        .ok_or_else(|| at("no record at this offset".into()))?
        .map_err(|e| at(e.to_string()))?;
    Ok(RecordType::from_exact(
        record.header.get("WARC-Type").unwrap_or(""),
    ))
}

/// [`read_response`] from a file already open at `path`.
fn read_response_in(
    file: &File,
    path: &Path,
    offset: u64,
    record_length: u64,
    max_payload: usize,
) -> io::Result<ArchivedResponse> {
    let at = |message: String| at_record(path, offset, message);
    let source = PositionedFile { file, position: 0 };
    let mut reader = WarcReader::at_offset_for_record(source, offset, record_length)
        .map_err(|e| at(e.to_string()))?;
    let mut stored = reader
        .next_record()
        .ok_or_else(|| at("no record at this offset".into()))?
        .map_err(|e| at(e.to_string()))?;
    if stored.record_type() == RecordType::Resource {
        // A resource record's block is the resource itself (a file imported, a DNS answer):
        // it stands for a successful answer of its own Content-Type.
        let head = HttpHead {
            status: Some(200),
            method: None,
            protocol: "HTTP/1.1".to_string(),
            headers: stored
                .header
                .get("Content-Type")
                .map(|kind| vec![("Content-Type".to_string(), kind.to_string())])
                .unwrap_or_default(),
        };
        let (payload, truncated) =
            read_payload(&mut stored, Vec::new(), max_payload).map_err(|e| at(e.to_string()))?;
        let cut_short = warn_if_cut_short(stored.cut_short(), path, offset);
        return Ok(ArchivedResponse {
            head,
            payload,
            truncated: truncated || cut_short,
        });
    }
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
    let (payload, truncated) =
        read_payload(&mut stored, head_bytes.split_off(head_length), max_payload)
            .map_err(|e| at(e.to_string()))?;
    let cut_short = warn_if_cut_short(stored.cut_short(), path, offset);
    Ok(ArchivedResponse {
        head,
        payload,
        truncated: truncated || cut_short,
    })
}

/// Warns that the record at `offset` of `path` is cut short by the end of its file (its
/// payload is replayed as far as the bytes go); whether it is.
fn warn_if_cut_short(missing: Option<u64>, path: &Path, offset: u64) -> bool {
    let Some(missing) = missing else {
        return false;
    };
    tracing::warn!(
        "{}:{offset}: the record is truncated (the file ends {missing} bytes before the end \
         of its block): read as far as its bytes go",
        path.display()
    );
    true
}

/// The rest of a record's block after the bytes already read (`payload`), cut at `max_payload`
/// bytes; whether it was cut.
fn read_payload(
    stored: &mut impl Read,
    mut payload: Vec<u8>,
    max_payload: usize,
) -> io::Result<(Vec<u8>, bool)> {
    let mut truncated = payload.len() > max_payload;
    payload.truncate(max_payload);
    let remaining = max_payload.saturating_sub(payload.len()) as u64;
    stored.by_ref().take(remaining).read_to_end(&mut payload)?;
    if !truncated && payload.len() == max_payload {
        let mut probe = [0u8; 1];
        truncated = stored.read(&mut probe)? > 0;
    }
    Ok((payload, truncated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldwarc_warc::WarcHeader;
    use ldwarc_warc::writer::{Block, PayloadKind, WarcWriter};

    /// Writes `files` gzip WARC files of `per_file` responses each under `root/warc`; returns
    /// (file name, offset, body) of every record.
    fn write_archive(root: &Path, files: usize, per_file: usize) -> Vec<(String, u64, String)> {
        std::fs::create_dir_all(root.join("warc")).unwrap();
        let mut records = Vec::new();
        for f in 0..files {
            let name = format!("part-{f:02}.warc.gz");
            let mut writer = WarcWriter::new(Vec::new(), 0);
            for r in 0..per_file {
                let body =
                    format!("<http://example.org/{f}/{r}> <http://example.org/p> \"{r}\" .\n");
                let http = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/n-triples\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let mut header = WarcHeader::new("WARC/1.1");
                header.set("WARC-Type", "response");
                header.set("WARC-Target-URI", format!("http://example.org/{f}/{r}"));
                header.set("Content-Type", "application/http; msgtype=response");
                let block = Block::from_bytes(http.into_bytes(), PayloadKind::Http).unwrap();
                let written = writer.write_record(header, block).unwrap();
                records.push((name.clone(), written.offset, body));
            }
            std::fs::write(root.join("warc").join(&name), writer.into_inner()).unwrap();
        }
        records
    }

    #[test]
    fn files_kept_open_read_what_a_fresh_open_reads_with_few_descriptors() {
        let dir = tempfile::tempdir().unwrap();
        let records = write_archive(dir.path(), 7, 30);
        let files = OpenWarcFiles::new(3);
        // Records in an order that alternates between files, read from four threads at once.
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by_key(|&n| (n * 37) % records.len());
        std::thread::scope(|scope| {
            for part in order.chunks(order.len().div_ceil(4)) {
                let (files, records, root) = (&files, &records, dir.path());
                scope.spawn(move || {
                    for &n in part {
                        let (name, offset, body) = &records[n];
                        let kept = files
                            .read_response(root, name, (*offset, 0), 1 << 20)
                            .unwrap();
                        let fresh = read_response(root, name, *offset, 1 << 20).unwrap();
                        assert_eq!(kept.payload, body.as_bytes(), "{name}:{offset}");
                        assert_eq!(kept.payload, fresh.payload);
                        assert_eq!(kept.head.status, Some(200));
                        let open = files.files.lock().unwrap().open();
                        assert!(open <= 3, "{open} files open");
                    }
                });
            }
        });
        assert_eq!(files.files.lock().unwrap().open(), 3);
    }

    #[test]
    fn a_missing_file_kept_open_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        write_archive(dir.path(), 1, 1);
        let files = OpenWarcFiles::for_scan();
        let error = files
            .read_response(dir.path(), "gone.warc.gz", (12, 0), 1024)
            .unwrap_err();
        assert!(error.to_string().contains("gone.warc.gz:12: "), "{error}");
        let error = files
            .read_response(dir.path(), "part-00.warc.gz", (1 << 30, 0), 1024)
            .unwrap_err();
        assert!(
            error.to_string().contains("part-00.warc.gz:1073741824: "),
            "{error}"
        );
    }

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
