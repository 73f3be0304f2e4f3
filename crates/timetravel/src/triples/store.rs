//! The triple index in memory and on disk: one gzip-compressed file under
//! `<root>/triples/`, written whole to a temporary name and renamed into place, so a reader
//! sees either the previous index or the new one.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use super::codec::{Reader, put, put_signed, put_str};

/// First bytes of the decoded file; a new layout gets a new number.
const MAGIC: &[u8] = b"ldwarc-triples 2\n";

/// The first bytes every layout shares, before its number.
const MAGIC_FAMILY: &[u8] = b"ldwarc-triples ";

/// Where the triple index of a root lies.
pub fn index_path(root: &Path) -> PathBuf {
    root.join("triples").join("triples.bin.gz")
}

/// One capture of a document: a version of its graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// Capture time, microseconds since the Unix epoch (UTC).
    pub time_micros: i64,
    /// The capture's WARC file, relative to `warc/`.
    pub filename: String,
    /// The capture's record offset in that file.
    pub offset: u64,
    /// What the capture gave its document.
    pub state: VersionState,
    /// The document put statements in named graphs of its own (TriG, N-Quads, JSON-LD
    /// `@graph` with an `@id`): the index keeps its statements as triples, so a dataset
    /// that needs those graph names reads this version from its WARC record.
    pub own_graphs: bool,
}

/// What one capture gave its document, as `ldwarc snapshot` decides it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum VersionState {
    /// A document with its whole graph.
    #[default]
    Document,
    /// A document whose graph is partial: a parse error (the message) after some
    /// statements.
    Partial(String),
    /// Not a document: a redirect, an error status, a payload that is not RDF.
    NotDocument,
    /// Should have been a document but could not be read or parsed (the reason); holds
    /// nothing.
    Failed(String),
}

impl VersionState {
    fn code(&self) -> u8 {
        match self {
            VersionState::Document => 0,
            VersionState::Partial(_) => 1,
            VersionState::NotDocument => 2,
            VersionState::Failed(_) => 3,
        }
    }

    fn message(&self) -> Option<&str> {
        match self {
            VersionState::Partial(message) | VersionState::Failed(message) => Some(message),
            VersionState::Document | VersionState::NotDocument => None,
        }
    }
}

impl Version {
    /// The capture time in whole seconds, as replay compares dates.
    pub fn seconds(&self) -> i64 {
        self.time_micros.div_euclid(1_000_000)
    }
}

/// A document URL and its captures, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentVersions {
    /// The document URL.
    pub url: String,
    /// Its captures, oldest first.
    pub versions: Vec<Version>,
}

impl DocumentVersions {
    /// The number of the version holding at `seconds` (the latest captured at or before).
    pub fn version_at(&self, seconds: i64) -> Option<u32> {
        let count = self.versions.partition_point(|v| v.seconds() <= seconds);
        count.checked_sub(1).map(|n| n as u32)
    }
}

/// One statement of one document and the versions at which it appeared and disappeared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) subject: u32,
    pub(crate) predicate: u32,
    pub(crate) object: u32,
    pub(crate) doc: u32,
    /// Ascending version numbers: added at the first, removed at the second, added again
    /// at the third, …
    pub(crate) toggles: Vec<u32>,
}

impl Entry {
    /// Whether the statement is in version `version` of its document.
    pub(crate) fn holds_in(&self, version: u32) -> bool {
        self.toggles.partition_point(|&t| t <= version) % 2 == 1
    }
}

/// The versioned triple index of one archive root.
#[derive(Clone, Debug, Default)]
pub struct TripleIndex {
    /// The state of the capture index the triple index was built from (see
    /// [`super::capture_stamp`]): the triple index answers for the archive only while the
    /// capture index still has this stamp.
    pub(crate) stamp: String,
    /// Term spellings (N-Triples) by number.
    pub(crate) terms: Vec<Box<str>>,
    /// Documents by number.
    pub(crate) docs: Vec<DocumentVersions>,
    /// Sorted by subject, predicate, object, document.
    pub(crate) entries: Vec<Entry>,
    /// Entry positions sorted by predicate, object, subject; sorted when a pattern first
    /// needs it (a pattern with a bound subject never does), so opening stays cheap.
    pub(crate) by_predicate: OnceLock<Vec<u32>>,
    /// Entry positions sorted by object, subject, predicate; sorted when first needed.
    pub(crate) by_object: OnceLock<Vec<u32>>,
}

impl TripleIndex {
    /// Opens the index of `root` for reading. Fails with a [`super::RootUnavailable`] of
    /// kind `NotFound` when none was built, with a message naming the file when it is
    /// damaged.
    pub fn open(root: &Path) -> io::Result<TripleIndex> {
        match Self::open_if_built(root)? {
            Some(index) => Ok(index),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                super::RootUnavailable {
                    root: root.display().to_string(),
                    reason: super::Unavailable::Missing,
                },
            )),
        }
    }

    /// The index of `root`, or `None` when none was built.
    pub fn open_if_built(root: &Path) -> io::Result<Option<TripleIndex>> {
        let path = index_path(root);
        let Some(bytes) = read_decoded(&path)? else {
            return Ok(None);
        };
        let mut index = decode(&bytes).map_err(|e| invalid(&path, &e))?;
        index.sort_orders();
        Ok(Some(index))
    }

    /// The index of `root` to be extended: `None` when none was built or when it has the
    /// layout of another ldwarc version (then it is rebuilt from the captures: it is derived
    /// data).
    pub(crate) fn open_for_update(root: &Path) -> io::Result<Option<TripleIndex>> {
        let path = index_path(root);
        let Some(bytes) = read_decoded(&path)? else {
            return Ok(None);
        };
        if is_other_layout(&bytes) {
            tracing::info!(
                "{}: triple index of another layout; building it anew",
                path.display()
            );
            return Ok(None);
        }
        let mut index = decode(&bytes).map_err(|e| invalid(&path, &e))?;
        index.sort_orders();
        Ok(Some(index))
    }

    /// The stamp of the capture index this index was built from.
    pub fn stamp(&self) -> &str {
        &self.stamp
    }

    /// Bytes the index takes in memory once every access order is sorted, estimated: the
    /// entries with their version lists, the two position orders, the term spellings and the
    /// documents' versions (with the allocator's overhead per allocation).
    pub fn memory_estimate(&self) -> u64 {
        const PER_ALLOCATION: usize = 16;
        let entries: usize = self
            .entries
            .iter()
            .map(|e| std::mem::size_of::<Entry>() + e.toggles.len() * 4 + PER_ALLOCATION)
            .sum();
        let orders = self.entries.len() * 2 * 4;
        let terms: usize = self
            .terms
            .iter()
            .map(|t| std::mem::size_of::<Box<str>>() + t.len() + PER_ALLOCATION)
            .sum();
        let docs: usize = self
            .docs
            .iter()
            .map(|d| {
                d.url.len() + d.versions.len() * (std::mem::size_of::<Version>() + PER_ALLOCATION)
            })
            .sum();
        (entries + orders + terms + docs) as u64
    }

    /// Number of documents.
    pub fn document_count(&self) -> usize {
        self.docs.len()
    }

    /// Number of (statement, document) entries, each with its history.
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// The documents and their versions.
    pub fn documents(&self) -> &[DocumentVersions] {
        &self.docs
    }

    /// Sorts the entries by subject, predicate, object and document (the other access
    /// orders are derived when first needed).
    pub(crate) fn sort_orders(&mut self) {
        let entries = &mut self.entries;
        if !entries.is_sorted_by_key(|e| (e.subject, e.predicate, e.object, e.doc)) {
            entries.sort_unstable_by_key(|e| (e.subject, e.predicate, e.object, e.doc));
        }
        self.by_predicate = OnceLock::new();
        self.by_object = OnceLock::new();
    }

    /// Entry positions by predicate, object, subject.
    pub(crate) fn predicate_order(&self) -> &[u32] {
        self.by_predicate
            .get_or_init(|| self.positions_by(|e| (e.predicate, e.object, e.subject, e.doc)))
    }

    /// Entry positions by object, subject, predicate.
    pub(crate) fn object_order(&self) -> &[u32] {
        self.by_object
            .get_or_init(|| self.positions_by(|e| (e.object, e.subject, e.predicate, e.doc)))
    }

    fn positions_by(&self, key: impl Fn(&Entry) -> (u32, u32, u32, u32)) -> Vec<u32> {
        let mut positions: Vec<u32> = (0..self.entries.len() as u32).collect();
        positions.sort_unstable_by_key(|&i| key(&self.entries[i as usize]));
        positions
    }

    /// Writes the index of `root` (to a temporary file renamed into place).
    pub(crate) fn save(&self, root: &Path) -> io::Result<u64> {
        let path = index_path(root);
        let dir = path.parent().unwrap_or(root);
        fs::create_dir_all(dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
        let mut temp = ldwarc_archive::output_file::shared_temp_file(dir)?;
        {
            let mut gz = GzEncoder::new(
                io::BufWriter::new(temp.as_file_mut()),
                Compression::default(),
            );
            gz.write_all(&encode(self))?;
            gz.finish()?.flush()?;
        }
        temp.as_file().sync_all()?;
        let size = temp.as_file().metadata()?.len();
        temp.persist(&path).map_err(|e| {
            io::Error::new(e.error.kind(), format!("{}: {}", path.display(), e.error))
        })?;
        Ok(size)
    }
}

/// The decoded bytes of the index file, `None` when there is none.
fn read_decoded(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let mut bytes = Vec::new();
    GzDecoder::new(io::BufReader::new(file))
        .read_to_end(&mut bytes)
        .map_err(|e| invalid(path, &e.to_string()))?;
    Ok(Some(bytes))
}

fn invalid(path: &Path, detail: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        UnreadableTripleIndex {
            path: path.to_path_buf(),
            detail: detail.to_string(),
        },
    )
}

/// A triple index file that cannot be read: damaged, cut short or of another layout. It is
/// derived from the captures, so building it again from the WARC files repairs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableTripleIndex {
    /// The index file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub detail: String,
}

impl std::fmt::Display for UnreadableTripleIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: not a readable triple index ({})",
            self.path.display(),
            self.detail
        )
    }
}

impl std::error::Error for UnreadableTripleIndex {}

/// Whether `bytes` (decoded) is a triple index of another layout than this one.
pub(crate) fn is_other_layout(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC_FAMILY) && !bytes.starts_with(MAGIC)
}

/// The file layout: magic, the capture index stamp, terms, file names, documents with their versions, then the
/// entries in subject order with the subject as a gap from the previous entry's and the
/// toggles as gaps.
fn encode(index: &TripleIndex) -> Vec<u8> {
    let mut out = Vec::with_capacity(index.entries.len() * 8);
    out.extend_from_slice(MAGIC);
    put_str(&mut out, &index.stamp);
    put(&mut out, index.terms.len() as u64);
    for term in &index.terms {
        put_str(&mut out, term);
    }
    let mut files: Vec<&str> = index
        .docs
        .iter()
        .flat_map(|d| d.versions.iter().map(|v| v.filename.as_str()))
        .collect();
    files.sort_unstable();
    files.dedup();
    put(&mut out, files.len() as u64);
    for file in &files {
        put_str(&mut out, file);
    }
    put(&mut out, index.docs.len() as u64);
    for doc in &index.docs {
        put_str(&mut out, &doc.url);
        put(&mut out, doc.versions.len() as u64);
        let mut previous = 0i64;
        for version in &doc.versions {
            put_signed(&mut out, version.time_micros - previous);
            previous = version.time_micros;
            let file = files.binary_search(&version.filename.as_str()).unwrap_or(0);
            put(&mut out, file as u64);
            put(&mut out, version.offset);
            put(
                &mut out,
                u64::from(version.state.code() | u8::from(version.own_graphs) << 2),
            );
            if let Some(message) = version.state.message() {
                put_str(&mut out, message);
            }
        }
    }
    put(&mut out, index.entries.len() as u64);
    let mut previous_subject = 0u32;
    for entry in &index.entries {
        put(&mut out, u64::from(entry.subject - previous_subject));
        previous_subject = entry.subject;
        put(&mut out, u64::from(entry.predicate));
        put(&mut out, u64::from(entry.object));
        put(&mut out, u64::from(entry.doc));
        put(&mut out, entry.toggles.len() as u64);
        let mut previous = 0u32;
        for &toggle in &entry.toggles {
            put(&mut out, u64::from(toggle - previous));
            previous = toggle;
        }
    }
    out
}

fn decode(bytes: &[u8]) -> Result<TripleIndex, String> {
    let mut reader = Reader::new(bytes);
    if reader.take(MAGIC.len()).ok() != Some(MAGIC) {
        return Err("not an ldwarc triple index of this version".into());
    }
    let stamp = reader.get_str()?.to_string();
    let term_count = reader.get_count()?;
    let mut terms = Vec::with_capacity(term_count);
    for _ in 0..term_count {
        terms.push(Box::from(reader.get_str()?));
    }
    let file_count = reader.get_count()?;
    let mut files = Vec::with_capacity(file_count);
    for _ in 0..file_count {
        files.push(reader.get_str()?.to_string());
    }
    let doc_count = reader.get_count()?;
    let mut docs = Vec::with_capacity(doc_count);
    for _ in 0..doc_count {
        let url = reader.get_str()?.to_string();
        let version_count = reader.get_count()?;
        let mut versions = Vec::with_capacity(version_count);
        let mut time = 0i64;
        for _ in 0..version_count {
            time = time.wrapping_add(reader.get_signed()?);
            // A file number, not a count: it may exceed the bytes left (an index with no
            // entries after its documents).
            let file = usize::try_from(reader.get()?)
                .ok()
                .and_then(|n| files.get(n))
                .ok_or("file number out of range")?;
            let offset = reader.get()?;
            let flags = reader.get()?;
            let state = match flags & 3 {
                0 => VersionState::Document,
                1 => VersionState::Partial(reader.get_str()?.to_string()),
                2 => VersionState::NotDocument,
                _ => VersionState::Failed(reader.get_str()?.to_string()),
            };
            versions.push(Version {
                time_micros: time,
                filename: file.clone(),
                offset,
                state,
                own_graphs: flags & 4 != 0,
            });
        }
        docs.push(DocumentVersions { url, versions });
    }
    let entry_count = reader.get_count()?;
    let mut entries = Vec::with_capacity(entry_count);
    let mut subject = 0u32;
    for _ in 0..entry_count {
        subject = subject
            .checked_add(reader.get_u32()?)
            .ok_or("subject number out of range")?;
        let (predicate, object, doc) = (reader.get_u32()?, reader.get_u32()?, reader.get_u32()?);
        let toggle_count = reader.get_count()?;
        let mut toggles = Vec::with_capacity(toggle_count);
        let mut toggle = 0u32;
        for _ in 0..toggle_count {
            toggle = toggle
                .checked_add(reader.get_u32()?)
                .ok_or("version number out of range")?;
            toggles.push(toggle);
        }
        let doc_versions = docs.get(doc as usize).map_or(0, |d| d.versions.len());
        let in_range = |id: u32| (id as usize) < terms.len();
        if !(in_range(subject) && in_range(predicate) && in_range(object))
            || toggles.last().is_some_and(|&t| t as usize >= doc_versions)
            || toggles.is_empty()
        {
            return Err("an entry refers to a term, document or version not in the index".into());
        }
        entries.push(Entry {
            subject,
            predicate,
            object,
            doc,
            toggles,
        });
    }
    if !reader.at_end() {
        return Err("bytes after the last entry".into());
    }
    Ok(TripleIndex {
        stamp,
        terms,
        docs,
        entries,
        by_predicate: OnceLock::new(),
        by_object: OnceLock::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captures in many WARC files and no statement (none of them RDF): the file number of
    /// the last versions is larger than the bytes after it, and must still read back.
    #[test]
    fn an_index_without_statements_over_many_files_reads_back() {
        let docs = (0..3)
            .map(|d| DocumentVersions {
                url: format!("http://e.org/{d}"),
                versions: (0..40)
                    .map(|v| Version {
                        time_micros: 1_700_000_000_000_000 + v,
                        filename: format!("f{d}-{v:02}.warc.gz"),
                        offset: 0,
                        state: VersionState::NotDocument,
                        own_graphs: false,
                    })
                    .collect(),
            })
            .collect();
        let index = TripleIndex {
            stamp: "captures=120".into(),
            docs,
            ..TripleIndex::default()
        };
        let decoded = decode(&encode(&index)).unwrap();
        assert_eq!(decoded.docs, index.docs);
        assert_eq!(decoded.stamp, index.stamp);
    }
}
