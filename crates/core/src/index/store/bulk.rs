//! Key-ordered scans of many captures that read the doc store in document order.
//!
//! Documents are stored in the order they were indexed (crawl order), not by key. Fetching
//! them in key order jumps between doc-store blocks, and every jump decompresses a whole
//! block for one capture. A bulk scan instead walks the key terms first, collecting a
//! window of document ids, then fetches that window in document order on all cores (every
//! block decompressed once per window), and hands the window over in key order.

use std::io;
use std::ops::ControlFlow;

use tantivy::schema::document::{DeserializeError, DocumentDeserialize, DocumentDeserializer};
use tantivy::schema::{IndexRecordOption, OwnedValue};
use tantivy::{DocId, DocSet, SegmentReader, TERMINATED};

use super::{Capture, CaptureIndex, decode_capture, index_error};
use crate::replay::parallel::parallel_map;

/// Captures per window: bounds memory (about 300 bytes each in stored form) while keeping
/// the number of times one block is decompressed small (once per window it has a capture of).
const WINDOW: usize = 1 << 18;

/// The captures of consecutive urlkeys in stored form, in key order.
pub(crate) struct StoredWindow {
    /// Stored forms (see `record_codec`), grouped by key in key order.
    records: Vec<Vec<u8>>,
    /// End (exclusive) in `records` of each key's group.
    group_ends: Vec<usize>,
}

impl StoredWindow {
    /// The groups of captures of one urlkey each, in key order.
    pub(crate) fn groups(&self) -> impl Iterator<Item = &[Vec<u8>]> {
        let mut start = 0;
        self.group_ends.iter().map(move |&end| {
            let group = &self.records[start..end];
            start = end;
            group
        })
    }

    /// Splits the window into about `parts` runs of whole groups with similar numbers of
    /// captures, in order.
    pub(crate) fn split(&self, parts: usize) -> Vec<Vec<&[Vec<u8>]>> {
        let target = self.records.len().div_ceil(parts.max(1)).max(1);
        let mut runs = Vec::with_capacity(parts);
        let mut run: Vec<&[Vec<u8>]> = Vec::new();
        let mut in_run = 0;
        for group in self.groups() {
            in_run += group.len();
            run.push(group);
            if in_run >= target {
                runs.push(std::mem::take(&mut run));
                in_run = 0;
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
        runs
    }
}

/// A stored document reduced to its one stored field, the capture's stored form.
struct StoredData(Vec<u8>);

impl DocumentDeserialize for StoredData {
    fn deserialize<'de, D>(mut deserializer: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        while let Some((_, value)) = deserializer.next_field::<OwnedValue>()? {
            if let OwnedValue::Bytes(bytes) = value {
                return Ok(StoredData(bytes));
            }
        }
        Err(DeserializeError::custom("no stored capture"))
    }
}

/// Window sizes of a scan, in captures: the first, then each `growth` times the last, up
/// to `max`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Windows {
    pub(crate) first: usize,
    pub(crate) growth: usize,
    pub(crate) max: usize,
}

impl Windows {
    /// Every window of the same size.
    pub(crate) fn fixed(size: usize) -> Self {
        Windows {
            first: size,
            growth: 1,
            max: size,
        }
    }
}

/// Fewer captures than this are fetched on the calling thread (threads cost more).
const PARALLEL_FETCH: usize = 4096;

/// Document ids of the window being collected, and where each lands in key order.
#[derive(Default)]
struct Pending {
    /// (segment ordinal << 32 | doc id, position in key order).
    docs: Vec<(u64, u32)>,
    group_ends: Vec<usize>,
}

impl CaptureIndex {
    /// The index directory (for messages).
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Every capture whose urlkey lies in `[start, end)` (`end` = `None`: no upper bound) in
    /// stored form, handed to `visit` window by window in key order (captures of one key in
    /// no particular order); `visit` returning `Break` ends the scan.
    pub(crate) fn scan_stored(
        &self,
        start: &str,
        end: Option<&str>,
        visit: impl FnMut(StoredWindow) -> io::Result<ControlFlow<()>>,
    ) -> io::Result<()> {
        self.scan_stored_in_windows(start, end, Windows::fixed(WINDOW), visit)
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
        mut visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> io::Result<()> {
        let windows = Windows {
            first: 64,
            growth: 4,
            max: 1 << 12,
        };
        self.scan_stored_in_windows(start, end, windows, |window| {
            for record in window.records {
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
    pub(crate) fn scan_stored_in_windows(
        &self,
        start: &str,
        end: Option<&str>,
        windows: Windows,
        mut visit: impl FnMut(StoredWindow) -> io::Result<ControlFlow<()>>,
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
        let mut heads: Vec<Option<Vec<u8>>> = streams
            .iter_mut()
            .map(|s| s.advance().then(|| s.key().to_vec()))
            .collect();
        let mut pending = Pending::default();
        let mut window = windows.first;
        while let Some(smallest) = heads.iter().flatten().min().cloned() {
            for (ordinal, head) in heads.iter_mut().enumerate() {
                if head.as_deref() != Some(smallest.as_slice()) {
                    continue;
                }
                let term_info = streams[ordinal].value().clone();
                let mut postings = inverted[ordinal]
                    .read_postings_from_terminfo(&term_info, IndexRecordOption::Basic)?;
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
                *head = streams[ordinal]
                    .advance()
                    .then(|| streams[ordinal].key().to_vec());
            }
            if pending.group_ends.last() != Some(&pending.docs.len()) {
                pending.group_ends.push(pending.docs.len());
            }
            if pending.docs.len() >= window {
                window = (window * windows.growth).min(windows.max);
                let window = self.fetch(segments, std::mem::take(&mut pending))?;
                if visit(window)?.is_break() {
                    return Ok(());
                }
            }
        }
        if !pending.docs.is_empty() {
            let window = self.fetch(segments, pending)?;
            let _ = visit(window)?;
        }
        Ok(())
    }

    /// Reads the documents of `pending` in document order on all cores.
    fn fetch(&self, segments: &[SegmentReader], mut pending: Pending) -> io::Result<StoredWindow> {
        pending.docs.sort_unstable_by_key(|&(address, _)| address);
        let threads = if pending.docs.len() < PARALLEL_FETCH {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        };
        let chunk = pending.docs.len().div_ceil(threads).max(1);
        let parts: Vec<&[(u64, u32)]> = pending.docs.chunks(chunk).collect();
        let fetched = parallel_map(&parts, |part| self.fetch_part(segments, part));
        let mut records = vec![Vec::new(); pending.docs.len()];
        for part in fetched {
            for (position, record) in part? {
                records[position as usize] = record;
            }
        }
        Ok(StoredWindow {
            records,
            group_ends: pending.group_ends,
        })
    }

    /// Reads one run of documents sorted by address, each segment through its own store
    /// reader so consecutive documents share one decompressed block.
    fn fetch_part(
        &self,
        segments: &[SegmentReader],
        part: &[(u64, u32)],
    ) -> io::Result<Vec<(u32, Vec<u8>)>> {
        let mut out = Vec::with_capacity(part.len());
        let mut stores: Vec<Option<tantivy::store::StoreReader>> =
            segments.iter().map(|_| None).collect();
        for &(address, position) in part {
            let ordinal = (address >> 32) as usize;
            let doc = address as DocId;
            let store = match &mut stores[ordinal] {
                Some(store) => store,
                slot @ None => slot.insert(segments[ordinal].get_store_reader(1)?),
            };
            let StoredData(bytes) = store
                .get::<StoredData>(doc)
                .map_err(|e| index_error(&self.dir, e))?;
            out.push((position, bytes));
        }
        Ok(out)
    }
}
