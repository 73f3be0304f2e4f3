//! The capture index on disk (tantivy): one document per capture, keyed by SURT, with the
//! indexing checkpoint stored in the same commit as the documents it covers.

use ldwarc_warc::RecordType;
use std::collections::BTreeMap;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::directory::MmapDirectory;
use tantivy::postings::SegmentPostings;
use tantivy::schema::{FAST, Field, IndexRecordOption, STORED, STRING, Schema, Value};
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{
    DocAddress, DocId, DocSet, Index, IndexReader, IndexSettings, IndexSortByField, IndexWriter,
    Order, ReloadPolicy, Searcher, SegmentReader, TERMINATED, TantivyDocument, Term,
};

use super::capture::Capture;
use super::record_codec::{decode_capture, encode_capture_into};

mod blocks;
mod bulk;
mod sorted;
pub(crate) use bulk::{FetchedWindow, RecordBatch, Windows};
pub(crate) use sorted::{SortedPart, SortedScan};
#[cfg(test)]
mod compression_tests;

/// Errors of the capture index, with the index directory in the message.
pub type Result<T> = std::result::Result<T, io::Error>;

fn index_error(dir: &Path, error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{}: {error}", dir.display()))
}

/// How far each WARC file has been indexed. Stored as the commit payload, so it always
/// matches the documents it covers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Format version of the payload.
    pub version: u32,
    /// Per file (relative to `warc/`): where its indexed part ends.
    pub files: BTreeMap<String, FileMark>,
}

/// How much of one file is indexed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMark {
    /// Offset just past the last complete record read (where an incremental run resumes).
    pub end: u64,
    /// The file's size when it was read: an unchanged size means nothing new to index.
    pub size: u64,
    /// A fingerprint of the bytes just before `end` (`tail_fingerprint` in the indexer):
    /// a file that grew with these bytes changed was rewritten, not appended to. Absent in
    /// indexes made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<u64>,
    /// The file's modification time then (nanoseconds since the Unix epoch): a file of the
    /// same size modified since has its `tail` compared (a copy restored from a backup).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<u64>,
}

impl FileMark {
    /// The mark of `path` read up to `end` when it was `size` bytes long, with the
    /// fingerprint of its bytes before `end` and its modification time (none if they cannot
    /// be read now).
    pub fn of_file(path: &Path, end: u64, size: u64) -> FileMark {
        FileMark {
            end,
            size,
            tail: super::indexer::tail_fingerprint(path, end).ok(),
            modified: std::fs::metadata(path)
                .ok()
                .and_then(|m| modified_nanos(&m)),
        }
    }
}

/// A file's modification time in nanoseconds since the Unix epoch, where the system gives it.
pub(crate) fn modified_nanos(meta: &std::fs::Metadata) -> Option<u64> {
    let since = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    u64::try_from(since.as_nanos()).ok()
}

#[derive(Clone, Copy)]
struct Fields {
    urlkey: Field,
    filename: Field,
    data: Field,
    /// Set only on revisits whose original was not found when they were indexed: the
    /// record's location, so the document can be found and replaced once it resolves.
    unresolved: Field,
}

/// The field of the capture's SURT key.
const URLKEY: &str = "urlkey";

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    // A fast field as well: segments are sorted by it (see `sorted`).
    let urlkey = builder.add_text_field(URLKEY, STRING | FAST);
    let filename = builder.add_text_field("filename", STRING);
    let data = builder.add_bytes_field("data", STORED);
    let unresolved = builder.add_text_field("unresolved", STRING);
    (
        builder.build(),
        Fields {
            urlkey,
            filename,
            data,
            unresolved,
        },
    )
}

/// Uncompressed size of a doc-store block of a new index.
const DOC_STORE_BLOCK_BYTES: usize = 16 * 1024;

/// Decompressed doc-store blocks a reader keeps, in bytes over all segments. Lookups
/// through one open index (a replay server) find recently read blocks here instead of
/// decompressing them again, which with Zstandard also means creating a decompression
/// context per block. Filled only as blocks are read, so short commands pay nothing.
pub const DOC_STORE_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// How the stored captures of a new index are compressed. Tantivy records the choice in
/// the index's meta file and reads either, so indexes made with the other keep working.
///
/// The default is Zstandard: LZ4 made the index half as large again, while a larger cache
/// of decompressed blocks gave Zstandard lookups most of LZ4's speed
/// (`benches/docstore_compression.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DocStoreCompression {
    /// LZ4 blocks: fast to decompress, with no context to set up per block.
    Lz4,
    /// Zstandard (level 3) blocks: smaller, but each cold block read creates a
    /// decompression context.
    #[default]
    Zstd,
}

impl DocStoreCompression {
    fn compressor(self) -> Compressor {
        match self {
            DocStoreCompression::Lz4 => Compressor::Lz4,
            DocStoreCompression::Zstd => Compressor::Zstd(ZstdCompressor::default()),
        }
    }

    /// How the index's meta file names it.
    pub fn name(self) -> &'static str {
        match self {
            DocStoreCompression::Lz4 => "lz4",
            DocStoreCompression::Zstd => "zstd",
        }
    }
}

/// How a new index orders the documents of each segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DocOrder {
    /// By urlkey: a key range is one run of documents per segment, so an export reads
    /// each doc-store block once, in order (`sorted`). Costs indexing time (tantivy
    /// reorders each segment it writes) and a key column (`docs/benchmarks.md`).
    #[default]
    ByKey,
    /// In the order captures were indexed (indexes made by earlier versions).
    AsIndexed,
}

/// The capture index under `<root>/index`.
pub struct CaptureIndex {
    dir: std::path::PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl CaptureIndex {
    /// Opens the index in `dir`, creating an empty one if there is none. A new index
    /// compresses its stored captures with [`DocStoreCompression::default`] and keeps each
    /// segment in key order; an existing one keeps the layout recorded in its meta file,
    /// whichever it is.
    pub fn open(dir: &Path) -> Result<Self> {
        Self::open_or_create_with(dir, DocStoreCompression::default(), DocOrder::ByKey)
    }

    /// Opens the index in `dir`, creating an empty one laid out as `compression` and
    /// `order` say if there is none (an existing index keeps its own layout). For
    /// benchmarks and tests comparing layouts.
    pub fn open_or_create_with(
        dir: &Path,
        compression: DocStoreCompression,
        order: DocOrder,
    ) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let (schema, fields) = schema();
        let directory = MmapDirectory::open(dir).map_err(|e| index_error(dir, e))?;
        let exists = Index::exists(&directory).map_err(|e| index_error(dir, e))?;
        let index = if exists {
            Index::open(directory).map_err(|e| index_error(dir, e))?
        } else {
            // A lookup decompresses one doc-store block per capture found: 16 KB blocks
            // cost ~7% more space than 64 KB ones (about 95 bytes per capture) and cut
            // the median lookup time by about a third (benches/index_throughput.rs).
            let settings = IndexSettings {
                docstore_compression: compression.compressor(),
                docstore_blocksize: DOC_STORE_BLOCK_BYTES,
                sort_by_field: (order == DocOrder::ByKey).then(|| IndexSortByField {
                    field: URLKEY.into(),
                    order: Order::Asc,
                }),
                ..IndexSettings::default()
            };
            Index::builder()
                .schema(schema)
                .settings(settings)
                .open_or_create(directory)
                .map_err(|e| index_error(dir, e))?
        };
        Self::with_index(dir, index, fields)
    }

    /// Removes the index in `dir` if it was made before indexes were sorted by key (a
    /// rebuild then creates a key-sorted one; tantivy cannot sort an existing index).
    /// Holds the index's writer lock meanwhile, so a running indexer is never pulled from
    /// under; returns whether an index was removed.
    pub fn discard_if_unsorted(dir: &Path) -> Result<bool> {
        if !dir.join("meta.json").exists() {
            return Ok(false);
        }
        let index = Self::open(dir)?;
        if index.is_sorted_by_key() {
            return Ok(false);
        }
        let batch = index.batch()?;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let is_lock = name.to_string_lossy().starts_with(".tantivy-")
                && name.to_string_lossy().ends_with(".lock");
            if !is_lock && entry.file_type()?.is_file() {
                std::fs::remove_file(entry.path())?;
            }
        }
        drop(batch);
        tracing::info!(index = %dir.display(), "removed an index made before key-sorted indexes, to rebuild it");
        Ok(true)
    }

    /// Opens the index in `dir` for reading only: creates nothing and takes no writer lock,
    /// so an archive on a read-only mount or owned by another user reads the same. A
    /// directory without an index (or no directory) reads as an empty index.
    pub fn open_read_only(dir: &Path) -> Result<Self> {
        let (schema, fields) = schema();
        let index = match super::read_only::open_index(dir)? {
            Some(index) => index,
            None => Index::create_in_ram(schema),
        };
        Self::with_index(dir, index, fields)
    }

    fn with_index(dir: &Path, index: Index, fields: Fields) -> Result<Self> {
        let reader = Self::reader(dir, &index, DOC_STORE_CACHE_BYTES)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
        })
    }

    /// A reader whose doc-store readers together cache about `cache_bytes` of decompressed
    /// blocks (tantivy's cache is per segment; never fewer than its default 100 blocks).
    fn reader(dir: &Path, index: &Index, cache_bytes: usize) -> Result<IndexReader> {
        let segments = index
            .searchable_segment_ids()
            .map_err(|e| index_error(dir, e))?
            .len()
            .max(1);
        let blocks = (cache_bytes / DOC_STORE_BLOCK_BYTES / segments).max(100);
        index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(blocks)
            .try_into()
            .map_err(|e| super::read_only::index_error(dir, &e))
    }

    /// Replaces the reader by one caching about `cache_bytes` of decompressed doc-store
    /// blocks (the default is [`DOC_STORE_CACHE_BYTES`]); for benchmarks comparing sizes.
    pub fn set_doc_store_cache(&mut self, cache_bytes: usize) -> Result<()> {
        self.reader = Self::reader(&self.dir, &self.index, cache_bytes)?;
        Ok(())
    }

    /// The checkpoint of the last commit.
    pub fn checkpoint(&self) -> Result<Checkpoint> {
        let metas = self
            .index
            .load_metas()
            .map_err(|e| index_error(&self.dir, e))?;
        match metas.payload {
            None => Ok(Checkpoint::default()),
            Some(payload) => serde_json::from_str(&payload)
                .map_err(|e| index_error(&self.dir, format!("unreadable checkpoint: {e}"))),
        }
    }

    /// Turns captures into index documents (on any thread).
    pub(crate) fn document_builder(&self) -> DocumentBuilder {
        DocumentBuilder {
            fields: self.fields,
        }
    }

    /// A writer adding captures; nothing is visible until [`IndexBatch::commit`].
    pub fn batch(&self) -> Result<IndexBatch<'_>> {
        let writer = self
            .index
            .writer(128 * 1024 * 1024)
            .map_err(|e| super::read_only::index_error(&self.dir, &e))?;
        Ok(IndexBatch {
            index: self,
            writer,
        })
    }

    /// Reloads the reader to see the latest commit.
    pub fn reload(&self) -> Result<()> {
        self.reader
            .reload()
            .map_err(|e| super::read_only::index_error(&self.dir, &e))
    }

    /// Every capture whose urlkey lies in `[start, end)` (`end` = `None`: no upper bound),
    /// handed to `visit` in urlkey order (captures of one key in no particular order).
    pub fn scan_range(
        &self,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(Capture),
    ) -> Result<()> {
        if self.is_sorted_by_key()
            && self.documents_in_range(start, end)? >= sorted::SORTED_SCAN_FROM
        {
            return self.scan_sorted(start, end, &mut visit);
        }
        // Nothing waits on a client here: windows of 4,096 captures are read on all cores.
        let windows = Windows::growing(64, 4, 1 << 12);
        self.scan_decoded(start, end, windows, |capture| {
            visit(capture);
            std::ops::ControlFlow::Continue(())
        })
    }

    /// Revisits stored before their original could be found.
    pub fn unresolved_revisits(&self) -> Result<Vec<Capture>> {
        let mut found = Vec::new();
        self.scan_terms(self.fields.unresolved, "", None, |c| {
            found.push(c);
            ControlFlow::Continue(())
        })?;
        Ok(found)
    }

    /// Every capture with a term of `field` in `[start, end)`, in term order.
    fn scan_terms(
        &self,
        field: Field,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> Result<()> {
        let searcher = self.reader.searcher();
        let mut per_segment = Vec::new();
        for segment in searcher.segment_readers() {
            let inverted = segment
                .inverted_index(field)
                .map_err(|e| index_error(&self.dir, e))?;
            let store = segment.get_store_reader(8)?;
            per_segment.push((segment, inverted, store));
        }
        // Merge the segments' term streams so keys come out in order across segments.
        let mut streams = Vec::new();
        for (_, inverted, _) in &per_segment {
            let mut builder = inverted.terms().range().ge(start.as_bytes());
            if let Some(end) = end {
                builder = builder.lt(end.as_bytes());
            }
            streams.push(builder.into_stream()?);
        }
        let mut heads: Vec<Option<Vec<u8>>> = streams
            .iter_mut()
            .map(|s| {
                if s.advance() {
                    Some(s.key().to_vec())
                } else {
                    None
                }
            })
            .collect();
        while let Some(smallest) = heads.iter().flatten().min().cloned() {
            for (index, head) in heads.iter_mut().enumerate() {
                if head.as_deref() != Some(smallest.as_slice()) {
                    continue;
                }
                let (segment, inverted, store) = &per_segment[index];
                let term_info = streams[index].value().clone();
                let mut postings =
                    inverted.read_postings_from_terminfo(&term_info, IndexRecordOption::Basic)?;
                let fetch = |doc: DocId| store.get(doc);
                if self
                    .visit_postings(segment, &fetch, &mut postings, &mut visit)?
                    .is_break()
                {
                    return Ok(());
                }
                *head = if streams[index].advance() {
                    Some(streams[index].key().to_vec())
                } else {
                    None
                };
            }
        }
        Ok(())
    }

    /// The captures stored under exactly `urlkey`.
    pub fn lookup(&self, urlkey: &str) -> Result<Vec<Capture>> {
        self.lookup_in(&self.reader.searcher(), urlkey)
    }

    /// The index as committed now, unaffected by later commits.
    pub(crate) fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            index: self,
            searcher: self.reader.searcher(),
        }
    }

    fn lookup_in(&self, searcher: &Searcher, urlkey: &str) -> Result<Vec<Capture>> {
        let term = Term::from_field_text(self.fields.urlkey, urlkey);
        let mut captures = Vec::new();
        for (ordinal, segment) in (0u32..).zip(searcher.segment_readers()) {
            let inverted = segment
                .inverted_index(self.fields.urlkey)
                .map_err(|e| index_error(&self.dir, e))?;
            let Some(mut postings) = inverted.read_postings(&term, IndexRecordOption::Basic)?
            else {
                continue;
            };
            // The searcher's own store readers keep an LRU of decompressed blocks shared by
            // every lookup through this searcher: a replay server asking for the same URLs
            // again skips the zstd decompression (and a new decompression context) each time.
            let fetch = |doc: DocId| searcher.doc(DocAddress::new(ordinal, doc));
            let _always_continues =
                self.visit_postings(segment, &fetch, &mut postings, &mut |c| {
                    captures.push(c);
                    ControlFlow::Continue(())
                })?;
        }
        Ok(captures)
    }

    /// Hands every live document of `postings` to `visit`; a document that does not decode
    /// is an error naming the index.
    fn visit_postings(
        &self,
        segment: &SegmentReader,
        fetch: &impl Fn(DocId) -> tantivy::Result<TantivyDocument>,
        postings: &mut SegmentPostings,
        visit: &mut impl FnMut(Capture) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>> {
        let alive = segment.alive_bitset();
        let mut doc = postings.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|bits| bits.is_alive(doc)) {
                let document = fetch(doc).map_err(|e| index_error(&self.dir, e))?;
                let capture = document
                    .get_first(self.fields.data)
                    .and_then(|v| v.as_bytes())
                    .and_then(decode_capture)
                    .ok_or_else(|| index_error(&self.dir, "undecodable capture document"))?;
                if visit(capture).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            doc = postings.advance();
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Number of live captures.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether the index holds no capture.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A fixed view of the committed index.
pub(crate) struct Snapshot<'a> {
    index: &'a CaptureIndex,
    searcher: Searcher,
}

impl Snapshot<'_> {
    /// The captures stored under exactly `urlkey` in this view.
    pub(crate) fn lookup(&self, urlkey: &str) -> Result<Vec<Capture>> {
        self.index.lookup_in(&self.searcher, urlkey)
    }

    /// Whether the view holds no capture.
    pub(crate) fn is_empty(&self) -> bool {
        self.searcher.num_docs() == 0
    }
}

/// Builds the index document of a capture; cheap to copy into reading threads, so that
/// encoding happens in parallel.
#[derive(Clone, Copy)]
pub(crate) struct DocumentBuilder {
    fields: Fields,
}

impl DocumentBuilder {
    /// The document of `capture`; `scratch` is a reusable encoding buffer.
    pub(crate) fn build(&self, capture: &Capture, scratch: &mut Vec<u8>) -> TantivyDocument {
        scratch.clear();
        encode_capture_into(capture, scratch);
        let mut document = TantivyDocument::with_capacity(
            capture.urlkey.len() + capture.filename.len() + scratch.len() + 64,
        );
        document.add_text(self.fields.urlkey, &capture.urlkey);
        document.add_text(self.fields.filename, &capture.filename);
        document.add_bytes(self.fields.data, scratch);
        if capture.record_type == RecordType::Revisit && capture.original.is_none() {
            document.add_text(self.fields.unresolved, unresolved_term(capture));
        }
        document
    }
}

/// The `unresolved` term of a revisit: its location, unique in the archive.
fn unresolved_term(capture: &Capture) -> String {
    format!("{}\n{}", capture.filename, capture.offset)
}

/// Captures being added to the index.
pub struct IndexBatch<'a> {
    index: &'a CaptureIndex,
    writer: IndexWriter,
}

impl IndexBatch<'_> {
    /// Adds one capture.
    pub fn add(&mut self, capture: &Capture) -> Result<()> {
        let document = self
            .index
            .document_builder()
            .build(capture, &mut Vec::with_capacity(256));
        self.add_document(document)
    }

    /// Adds a document made by [`CaptureIndex::document_builder`].
    pub(crate) fn add_document(&mut self, document: TantivyDocument) -> Result<()> {
        self.writer
            .add_document(document)
            .map_err(|e| index_error(&self.index.dir, e))?;
        Ok(())
    }

    /// Replaces a revisit stored unresolved by the same capture with its original set.
    pub fn replace_unresolved(&mut self, capture: &Capture) -> Result<()> {
        self.writer.delete_term(Term::from_field_text(
            self.index.fields.unresolved,
            &unresolved_term(capture),
        ));
        self.add(capture)
    }

    /// Removes every capture of a file (before re-indexing a file that shrank).
    pub fn remove_file(&mut self, filename: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.index.fields.filename, filename));
    }

    /// Removes every capture.
    pub fn remove_all(&mut self) -> Result<()> {
        self.writer
            .delete_all_documents()
            .map_err(|e| index_error(&self.index.dir, e))?;
        Ok(())
    }

    /// Commits everything added so far together with `checkpoint`: both become visible
    /// atomically, so an interrupted run resumes exactly from the last commit.
    pub fn commit(&mut self, checkpoint: &Checkpoint) -> Result<()> {
        let payload = serde_json::to_string(checkpoint).map_err(io::Error::other)?;
        let mut prepared = self
            .writer
            .prepare_commit()
            .map_err(|e| index_error(&self.index.dir, e))?;
        prepared.set_payload(&payload);
        prepared
            .commit()
            .map_err(|e| index_error(&self.index.dir, e))?;
        super::permissions::share_meta_files(&self.index.dir)?;
        self.index.reload()
    }

    /// Waits for background merges and releases the writer.
    pub fn finish(self) -> Result<()> {
        let dir = self.index.dir.clone();
        self.writer
            .wait_merging_threads()
            .map_err(|e| index_error(&dir, e))?;
        // Merges rewrite `.managed.json` after the last commit.
        super::permissions::share_meta_files(&dir)
    }
}
