//! Key-ordered scans of many captures that read the doc store in document order.
//!
//! In an index made before key-sorted segments, documents are stored in the order they were
//! indexed (crawl order), not by key; the server's streamed scans read any index this way.
//! Fetching documents in key order jumps between doc-store blocks, and every jump
//! decompresses a whole block for one capture. A bulk scan instead walks the key terms
//! first, collecting a window of document ids, then reads that window in document order
//! (every block decompressed once per window) while other threads turn the records read
//! into what the caller wants (decoded captures, CDX lines), each tagged with its place in
//! key order. Whole-range scans of a key-sorted index go through `sorted` instead.

use std::io;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use tantivy::schema::IndexRecordOption;
use tantivy::schema::document::{DeserializeError, DocumentDeserialize, DocumentDeserializer};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, DocId, DocSet, Searcher, SegmentReader, TERMINATED};

use super::blocks::vint;
use super::{Capture, CaptureIndex, decode_capture, index_error};

/// Captures per window: bounds memory (about 300 bytes each in stored form, as much again
/// as CDX lines) while keeping the number of times one block is decompressed small (once
/// per window it has a capture of).
const WINDOW: usize = 1 << 18;

/// Records a reading thread passes on at once: enough that passing them between threads
/// costs little, few enough that every thread gets work early.
const BATCH: usize = 2048;

/// Windows of at most this many captures (the first of a streamed scan, or all of an exact
/// query) are read through the index reader's shared cache of decompressed blocks.
const CACHED_READS: usize = 64;

/// Fewer captures than this are read on the calling thread (threads cost more).
const PARALLEL_FETCH: usize = 4096;

/// Stored forms (see `record_codec`) of some captures, each with its position in key
/// order within its window.
pub(crate) type RecordBatch = Vec<(u32, Vec<u8>)>;

/// What the reading threads made of one window's records, and the window's key groups.
pub(crate) struct FetchedWindow<T> {
    /// One result per [`RecordBatch`], in no particular order.
    pub(crate) parts: Vec<T>,
    /// End (exclusive, in key-order positions) of each key's group of captures.
    pub(crate) group_ends: Vec<usize>,
}

impl<T> FetchedWindow<T> {
    /// Number of captures in the window.
    pub(crate) fn len(&self) -> usize {
        self.group_ends.last().copied().unwrap_or(0)
    }
}

/// A stored document reduced to its one stored field, the capture's stored form.
struct StoredData(Vec<u8>);

impl DocumentDeserialize for StoredData {
    fn deserialize<'de, D>(mut deserializer: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        match deserializer.next_field::<Vec<u8>>()? {
            Some((_, bytes)) => Ok(StoredData(bytes)),
            None => Err(DeserializeError::custom("no stored capture")),
        }
    }
}

/// The capture's stored form of document `doc`. Read from the document's bytes as the doc
/// store holds them when they have the layout tantivy gives a document whose one stored
/// value is bytes — a count of values (1), the field number, the bytes type code and the
/// length-prefixed bytes — because tantivy's own deserialiser copies a bytes value one byte
/// at a time (a third of a whole-index export). Anything else goes through tantivy.
pub(crate) fn stored_form(
    store: &StoreReader,
    doc: DocId,
    data: tantivy::schema::Field,
) -> tantivy::Result<Vec<u8>> {
    let document = store.get_document_bytes(doc)?;
    match stored_bytes_of(&document, data.field_id()) {
        Some(form) => Ok(form.to_vec()),
        None => store.get::<StoredData>(doc).map(|StoredData(form)| form),
    }
}

/// The bytes value of a serialised document holding exactly one value, a bytes value of
/// field `field`; `None` for any other layout.
pub(super) fn stored_bytes_of(document: &[u8], field: u32) -> Option<&[u8]> {
    const BYTES_TYPE_CODE: u8 = 4;
    let (values, rest) = vint(document)?;
    let (field_bytes, rest) = rest.split_first_chunk::<4>()?;
    let (&type_code, rest) = rest.split_first()?;
    let (length, rest) = vint(rest)?;
    let usable = values == 1
        && u32::from_le_bytes(*field_bytes) == field
        && type_code == BYTES_TYPE_CODE
        && u64::try_from(rest.len()).ok() == Some(length);
    usable.then_some(rest)
}

/// Window sizes of a scan, in captures: the first, then each `growth` times the last, up
/// to `max`; and how a window is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Windows {
    pub(crate) first: usize,
    pub(crate) growth: usize,
    pub(crate) max: usize,
    /// Windows of at least this many captures are read on all cores.
    pub(crate) parallel_from: usize,
}

impl Windows {
    /// Every window of the same size.
    pub(crate) fn fixed(size: usize) -> Self {
        Windows::growing(size, 1, size)
    }

    /// Windows from `first` captures, each `growth` times the last, up to `max`.
    pub(crate) fn growing(first: usize, growth: usize, max: usize) -> Self {
        Windows {
            first,
            growth,
            max,
            parallel_from: PARALLEL_FETCH,
        }
    }
}

/// Document ids of the window being collected, and where each lands in key order.
#[derive(Default)]
struct Pending {
    /// (segment ordinal << 32 | doc id, position in key order).
    docs: Vec<(u64, u32)>,
    group_ends: Vec<usize>,
}

/// Documents of one segment to read, sorted by doc id, with their key-order positions.
struct ReadJob<'a> {
    ordinal: usize,
    docs: &'a [(u64, u32)],
}

impl CaptureIndex {
    /// The index directory (for messages).
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Every capture whose urlkey lies in `[start, end)` (`end` = `None`: no upper bound),
    /// window by window in key order: each window's records go through `read` (on all
    /// cores), then the window to `visit`; `visit` returning `Break` ends the scan.
    pub(crate) fn scan_stored<T: Send>(
        &self,
        start: &str,
        end: Option<&str>,
        read: impl Fn(RecordBatch) -> io::Result<T> + Sync,
        visit: impl FnMut(FetchedWindow<T>) -> io::Result<ControlFlow<()>>,
    ) -> io::Result<()> {
        self.scan_stored_in_windows(start, end, Windows::fixed(WINDOW), read, visit)
    }

    /// Every capture whose urlkey lies in `[start, end)`, decoded, handed to `visit` in
    /// urlkey order (captures of one key in segment, then document order); `visit` returning
    /// `Break` ends the scan. Windows start small and grow, so a scan that stops after a few
    /// captures reads little, and a long one decompresses each block a few times at most.
    /// Windows stop growing at 4,096 captures (about 1 MB): a streamed answer whose client
    /// stops reading holds one window while it waits.
    pub fn scan_range_until(
        &self,
        start: &str,
        end: Option<&str>,
        visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> io::Result<()> {
        // Each window is read on the calling thread (the server runs many such scans at
        // once; reading threads would each keep memory of their own while a client stalls).
        let windows = Windows {
            parallel_from: usize::MAX,
            ..Windows::growing(64, 4, 1 << 12)
        };
        self.scan_decoded(start, end, windows, visit)
    }

    /// [`CaptureIndex::scan_range_until`] with windows sized and read as `windows` says.
    /// Captures are decoded one at a time as `visit` takes them: a scan whose visitor
    /// waits (a streamed answer whose client stops reading) holds one window of stored
    /// forms, not of decoded captures.
    pub(crate) fn scan_decoded(
        &self,
        start: &str,
        end: Option<&str>,
        windows: Windows,
        mut visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> io::Result<()> {
        self.scan_stored_in_windows(start, end, windows, Ok, |window| {
            let mut in_order: Vec<Vec<u8>> = vec![Vec::new(); window.len()];
            for (position, record) in window.parts.into_iter().flatten() {
                in_order[position as usize] = record;
            }
            for record in in_order {
                let capture = decode_capture(&record)
                    .ok_or_else(|| index_error(&self.dir, "undecodable capture document"))?;
                if visit(capture).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            Ok(ControlFlow::Continue(()))
        })
    }

    /// [`CaptureIndex::scan_stored`] with windows sized by `windows` (whole keys each).
    pub(crate) fn scan_stored_in_windows<T: Send>(
        &self,
        start: &str,
        end: Option<&str>,
        windows: Windows,
        read: impl Fn(RecordBatch) -> io::Result<T> + Sync,
        mut visit: impl FnMut(FetchedWindow<T>) -> io::Result<ControlFlow<()>>,
    ) -> io::Result<()> {
        let searcher = self.reader.searcher();
        let segments = searcher.segment_readers();
        let mut inverted = Vec::with_capacity(segments.len());
        for segment in segments {
            inverted.push(
                segment
                    .inverted_index(self.fields.urlkey)
                    .map_err(|e| index_error(&self.dir, e))?,
            );
        }
        let mut streams = Vec::with_capacity(segments.len());
        for index in &inverted {
            let mut builder = index.terms().range().ge(start.as_bytes());
            if let Some(end) = end {
                builder = builder.lt(end.as_bytes());
            }
            streams.push(builder.into_stream()?);
        }
        // Streams not yet at their end; the key being collected, copied (no allocation per
        // key) so the streams holding it can move on.
        let mut live: Vec<bool> = streams.iter_mut().map(|s| s.advance()).collect();
        let mut key: Vec<u8> = Vec::new();
        let mut pending = Pending::default();
        let mut window = windows.first;
        loop {
            let smallest = (0..streams.len())
                .filter(|&ordinal| live[ordinal])
                .min_by(|&a, &b| streams[a].key().cmp(streams[b].key()));
            let Some(smallest) = smallest else { break };
            key.clear();
            key.extend_from_slice(streams[smallest].key());
            for ordinal in smallest..streams.len() {
                if !live[ordinal] || streams[ordinal].key() != key.as_slice() {
                    continue;
                }
                let term_info = streams[ordinal].value();
                let mut postings = inverted[ordinal]
                    .read_postings_from_terminfo(term_info, IndexRecordOption::Basic)?;
                let alive = segments[ordinal].alive_bitset();
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if alive.is_none_or(|bits| bits.is_alive(doc)) {
                        let position = pending.docs.len() as u32;
                        pending
                            .docs
                            .push((((ordinal as u64) << 32) | u64::from(doc), position));
                    }
                    doc = postings.advance();
                }
                live[ordinal] = streams[ordinal].advance();
            }
            if pending.group_ends.last() != Some(&pending.docs.len()) {
                pending.group_ends.push(pending.docs.len());
            }
            if pending.docs.len() >= window {
                window = (window * windows.growth).min(windows.max);
                let window = self.fetch(&searcher, std::mem::take(&mut pending), windows, &read)?;
                if visit(window)?.is_break() {
                    return Ok(());
                }
            }
        }
        if !pending.docs.is_empty() {
            let window = self.fetch(&searcher, pending, windows, &read)?;
            let _ = visit(window)?;
        }
        Ok(())
    }

    /// Reads the documents of `pending` in document order and hands them to `read` in
    /// batches, on all cores when there are many.
    fn fetch<T: Send>(
        &self,
        searcher: &Searcher,
        mut pending: Pending,
        windows: Windows,
        read: &(impl Fn(RecordBatch) -> io::Result<T> + Sync),
    ) -> io::Result<FetchedWindow<T>> {
        pending.docs.sort_unstable_by_key(|&(address, _)| address);
        let segments = searcher.segment_readers();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parallel = threads > 1 && pending.docs.len() >= windows.parallel_from;
        let runs = if parallel { threads } else { 1 };
        let jobs = read_jobs(&pending.docs, runs);
        let parts = if pending.docs.len() <= CACHED_READS {
            vec![read(self.read_cached(searcher, &pending.docs)?)?]
        } else if parallel {
            self.read_in_parallel(segments, &jobs, threads, read)?
        } else {
            let mut parts = Vec::new();
            for job in &jobs {
                self.read_job(&segments[job.ordinal], job, &mut |batch| {
                    parts.push(read(batch)?);
                    Ok(())
                })?;
            }
            parts
        };
        Ok(FetchedWindow {
            parts,
            group_ends: pending.group_ends,
        })
    }

    /// Reads a few documents through the searcher's doc-store readers, whose cache of
    /// decompressed blocks is shared by every scan and lookup of this reader: a server
    /// answering exact queries finds the blocks of popular URLs decompressed already,
    /// instead of opening a store reader and decompressing a block per query.
    fn read_cached(&self, searcher: &Searcher, docs: &[(u64, u32)]) -> io::Result<RecordBatch> {
        let mut batch = Vec::with_capacity(docs.len());
        for &(address, position) in docs {
            let (ordinal, doc) = ((address >> 32) as u32, address as DocId);
            let StoredData(record) = searcher
                .doc::<StoredData>(DocAddress::new(ordinal, doc))
                .map_err(|e| index_error(&self.dir, e))?;
            batch.push((position, record));
        }
        Ok(batch)
    }

    /// Runs the read jobs on up to `threads` threads, while `threads` others apply `read`
    /// to the batches as they come (one core reading a segment in sequence keeps the
    /// others busy turning its records into results).
    fn read_in_parallel<T: Send>(
        &self,
        segments: &[SegmentReader],
        jobs: &[ReadJob<'_>],
        threads: usize,
        read: &(impl Fn(RecordBatch) -> io::Result<T> + Sync),
    ) -> io::Result<Vec<T>> {
        let (sender, receiver) = sync_channel::<RecordBatch>(threads * 2);
        // Shared by the consumers only: once they all stop (even on an error), sending
        // fails and the readers stop too instead of waiting on a full channel.
        let receiver = Arc::new(Mutex::new(receiver));
        let next_job = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let readers: Vec<_> = (0..threads.min(jobs.len()))
                .map(|_| {
                    let sender = sender.clone();
                    let next_job = &next_job;
                    scope.spawn(move || self.read_jobs_into(segments, jobs, next_job, &sender))
                })
                .collect();
            drop(sender);
            let consumers: Vec<_> = (0..threads)
                .map(|_| {
                    let receiver = Arc::clone(&receiver);
                    scope.spawn(move || consume(&receiver, read))
                })
                .collect();
            drop(receiver);
            let mut parts = Vec::new();
            let mut failure = None;
            for handle in consumers {
                match joined(handle) {
                    Ok(mut done) => parts.append(&mut done),
                    Err(error) => failure = failure.or(Some(error)),
                }
            }
            for handle in readers {
                if let Err(error) = joined(handle) {
                    failure = failure.or(Some(error));
                }
            }
            match failure {
                Some(error) => Err(error),
                None => Ok(parts),
            }
        })
    }

    /// Takes jobs from `jobs` (the next one at `next_job`) until none is left, sending
    /// their records in batches.
    fn read_jobs_into(
        &self,
        segments: &[SegmentReader],
        jobs: &[ReadJob<'_>],
        next_job: &AtomicUsize,
        sender: &SyncSender<RecordBatch>,
    ) -> io::Result<()> {
        while let Some(job) = jobs.get(next_job.fetch_add(1, Ordering::Relaxed)) {
            self.read_job(&segments[job.ordinal], job, &mut |batch| {
                sender
                    .send(batch)
                    .map_err(|_| io::Error::other("the threads reading captures stopped"))
            })?;
        }
        Ok(())
    }

    /// Reads one job's documents, handing them to `deliver` in batches of [`BATCH`].
    fn read_job(
        &self,
        segment: &SegmentReader,
        job: &ReadJob<'_>,
        deliver: &mut dyn FnMut(RecordBatch) -> io::Result<()>,
    ) -> io::Result<()> {
        // One cached block suffices: documents come in order, each block's consecutively.
        let store = segment.get_store_reader(1)?;
        let mut batch = Vec::with_capacity(BATCH.min(job.docs.len()));
        let mut add = |position: u32, record: Vec<u8>| -> io::Result<()> {
            batch.push((position, record));
            if batch.len() == BATCH {
                deliver(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))?;
            }
            Ok(())
        };
        for &(address, position) in job.docs {
            let record = stored_form(&store, address as DocId, self.fields.data)
                .map_err(|e| index_error(&self.dir, e))?;
            add(position, record)?;
        }
        if !batch.is_empty() {
            deliver(batch)?;
        }
        Ok(())
    }
}

/// Splits documents sorted by address into read jobs: the documents of each segment in
/// runs of about 1/`runs` of all.
fn read_jobs<'a>(docs: &'a [(u64, u32)], runs: usize) -> Vec<ReadJob<'a>> {
    let run = docs.len().div_ceil(runs.max(1)).max(1);
    let mut jobs = Vec::new();
    for segment_docs in docs.chunk_by(|a, b| a.0 >> 32 == b.0 >> 32) {
        let ordinal = (segment_docs[0].0 >> 32) as usize;
        jobs.extend(
            segment_docs
                .chunks(run)
                .map(|docs| ReadJob { ordinal, docs }),
        );
    }
    jobs
}

/// Applies `read` to batches from `receiver` until the readers are done.
fn consume<T>(
    receiver: &Mutex<Receiver<RecordBatch>>,
    read: &impl Fn(RecordBatch) -> io::Result<T>,
) -> io::Result<Vec<T>> {
    let mut parts = Vec::new();
    loop {
        let next = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return Err(io::Error::other("a thread reading captures failed")),
        };
        match next {
            Ok(batch) => parts.push(read(batch)?),
            Err(_) => return Ok(parts),
        }
    }
}

/// The result of a scoped thread, its panic re-raised here.
fn joined<R>(handle: std::thread::ScopedJoinHandle<'_, R>) -> R {
    match handle.join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

#[cfg(test)]
mod tests {
    use super::{StoredData, stored_bytes_of, stored_form};
    use tantivy::schema::{STORED, STRING, Schema};
    use tantivy::{Index, TantivyDocument};

    #[test]
    fn stored_forms_read_directly_equal_what_tantivy_deserialises() {
        let mut builder = Schema::builder();
        let key = builder.add_text_field("key", STRING);
        let data = builder.add_bytes_field("data", STORED);
        let index = Index::create_in_ram(builder.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        // Lengths around the one- and two-byte length prefixes, and one spanning blocks.
        let lengths = [0usize, 1, 127, 128, 16_383, 16_384, 40_000];
        for (n, &length) in lengths.iter().enumerate() {
            let mut document = TantivyDocument::new();
            document.add_text(key, format!("k{n}"));
            let value: Vec<u8> = (0..length).map(|i| (i * 7 + n) as u8).collect();
            document.add_bytes(data, &value);
            writer.add_document(document).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let store = searcher.segment_reader(0).get_store_reader(1).unwrap();
        for (doc, &length) in (0u32..).zip(&lengths) {
            let direct = stored_form(&store, doc, data).unwrap();
            let StoredData(through_tantivy) = store.get::<StoredData>(doc).unwrap();
            assert_eq!(direct.len(), length);
            assert_eq!(direct, through_tantivy, "document {doc}");
            let bytes = store.get_document_bytes(doc).unwrap();
            assert!(
                stored_bytes_of(&bytes, data.field_id()).is_some(),
                "document {doc}"
            );
        }
    }

    #[test]
    fn other_document_layouts_are_left_to_tantivy() {
        // One value of field 3, type code 4 (bytes), length 2: "hi".
        let good = [0x81, 3, 0, 0, 0, 4, 0x82, b'h', b'i'];
        assert_eq!(stored_bytes_of(&good, 3), Some(&b"hi"[..]));
        assert_eq!(stored_bytes_of(&good, 2), None, "another field");
        let mut two_values = good;
        two_values[0] = 0x82;
        assert_eq!(stored_bytes_of(&two_values, 3), None);
        let mut text = good;
        text[5] = 0;
        assert_eq!(stored_bytes_of(&text, 3), None, "a text value");
        assert_eq!(stored_bytes_of(&good[..8], 3), None, "cut short");
        let mut unterminated = good;
        unterminated[6] = 0x02;
        assert_eq!(stored_bytes_of(&unterminated, 3), None);
        assert_eq!(stored_bytes_of(&[], 3), None);
        assert_eq!(stored_bytes_of(&[0xff; 64], 3), None);
    }
}
