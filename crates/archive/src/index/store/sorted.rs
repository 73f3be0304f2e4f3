//! Scans of an index whose segments hold their documents in urlkey order.
//!
//! An index made with [`super::CaptureIndex::open`] sorts every segment by urlkey (tantivy
//! sorts a segment when it is written and keeps merged segments sorted), so the captures of
//! a key range are one run of documents per segment. A whole-index scan then reads each
//! doc-store block once, in file order, with no term walk; the key range is cut into parts
//! that threads read independently, each part whole keys of every segment.

use std::io;

use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, Searcher, SegmentReader};

use super::blocks::{BlockReader, StoreBlocks};
use super::bulk::{stored_bytes_of, stored_form};
use super::{Capture, CaptureIndex, decode_capture, index_error};

/// The documents of one key range: per segment (by ordinal), a run of document ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortedPart {
    /// (segment ordinal, first document, end document) of each segment with documents in
    /// the range.
    pub(crate) runs: Vec<(u32, DocId, DocId)>,
}

impl SortedPart {
    /// Documents in the part, deleted ones included.
    pub(crate) fn len(&self) -> usize {
        self.runs
            .iter()
            .map(|&(_, from, to)| (to - from) as usize)
            .sum()
    }
}

impl CaptureIndex {
    /// Documents (deleted ones included) whose urlkey lies in `[start, end)`, in a
    /// key-sorted index: two term lookups per segment.
    pub(crate) fn documents_in_range(&self, start: &str, end: Option<&str>) -> io::Result<usize> {
        let searcher = self.reader.searcher();
        let bounds = self.range_bounds(searcher.segment_readers(), start, end)?;
        Ok(bounds.iter().map(|&(from, to)| (to - from) as usize).sum())
    }

    /// Per segment, the documents whose urlkey lies in `[start, end)`: `(first, end)`.
    fn range_bounds(
        &self,
        segments: &[SegmentReader],
        start: &str,
        end: Option<&str>,
    ) -> io::Result<Vec<(DocId, DocId)>> {
        let mut bounds = Vec::with_capacity(segments.len());
        for segment in segments {
            let from = self.first_doc_from(segment, start)?;
            let to = match end {
                Some(end) => self.first_doc_from(segment, end)?.max(from),
                None => segment.max_doc(),
            };
            bounds.push((from, to));
        }
        Ok(bounds)
    }

    /// Whether every segment of the index holds its documents in urlkey order (indexes made
    /// before key-sorted segments do not).
    pub(crate) fn is_sorted_by_key(&self) -> bool {
        self.index
            .settings()
            .sort_by_field
            .as_ref()
            .is_some_and(|sort| sort.field == super::URLKEY && sort.order == tantivy::Order::Asc)
    }

    /// The documents whose urlkey lies in `[start, end)` cut into parts of about `size`
    /// documents in key order, each made of whole keys; an empty range gives no part.
    pub(crate) fn sorted_parts(
        &self,
        searcher: &Searcher,
        start: &str,
        end: Option<&str>,
        size: usize,
    ) -> io::Result<Vec<SortedPart>> {
        let segments = searcher.segment_readers();
        let bounds = self.range_bounds(segments, start, end)?;
        let splitters = self.splitters(segments, &bounds, size)?;
        let mut parts = Vec::with_capacity(splitters.len() + 1);
        let mut starts: Vec<DocId> = bounds.iter().map(|&(from, _)| from).collect();
        for key in splitters.iter().map(Some).chain([None]) {
            let mut runs = Vec::new();
            for (ordinal, segment) in segments.iter().enumerate() {
                let part_end = match key {
                    Some(key) => self
                        .first_doc_from(segment, key)?
                        .clamp(starts[ordinal], bounds[ordinal].1),
                    None => bounds[ordinal].1,
                };
                if part_end > starts[ordinal] {
                    runs.push((ordinal as u32, starts[ordinal], part_end));
                }
                starts[ordinal] = part_end;
            }
            if !runs.is_empty() {
                parts.push(SortedPart { runs });
            }
        }
        Ok(parts)
    }

    /// Keys cutting the ranges `bounds` (per segment) into parts of about `size` documents:
    /// the keys of every so many documents of the segment with the most.
    fn splitters(
        &self,
        segments: &[SegmentReader],
        bounds: &[(DocId, DocId)],
        size: usize,
    ) -> io::Result<Vec<String>> {
        let total: usize = bounds.iter().map(|&(from, to)| (to - from) as usize).sum();
        let Some((largest, &(from, to))) = bounds
            .iter()
            .enumerate()
            .max_by_key(|(_, (from, to))| to - from)
        else {
            return Ok(Vec::new());
        };
        let parts = total.div_ceil(size.max(1));
        if parts <= 1 {
            return Ok(Vec::new());
        }
        let step = ((to - from) as usize).div_ceil(parts).max(1);
        let keys = segments[largest]
            .fast_fields()
            .str(super::URLKEY)
            .map_err(|e| index_error(&self.dir, e))?
            .ok_or_else(|| index_error(&self.dir, "no urlkey column in a key-sorted segment"))?;
        let mut splitters: Vec<String> = Vec::with_capacity(parts);
        for doc in (from as usize + step..to as usize).step_by(step) {
            let Some(ord) = keys.term_ords(doc as DocId).next() else {
                continue;
            };
            let mut key = String::new();
            keys.ord_to_str(ord, &mut key)?;
            if splitters.last() != Some(&key) {
                splitters.push(key);
            }
        }
        Ok(splitters)
    }

    /// The first document of `segment` whose urlkey is `key` or after it (the segment's
    /// document count when there is none).
    fn first_doc_from(&self, segment: &SegmentReader, key: &str) -> io::Result<DocId> {
        let inverted = segment
            .inverted_index(self.fields.urlkey)
            .map_err(|e| index_error(&self.dir, e))?;
        let mut terms = inverted.terms().range().ge(key.as_bytes()).into_stream()?;
        if !terms.advance() {
            return Ok(segment.max_doc());
        }
        let postings =
            inverted.read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)?;
        Ok(postings.doc())
    }

    /// Hands the stored form of every live document of `part` to `visit`, segment by
    /// segment, each segment's in document (so key) order.
    pub(crate) fn read_sorted_part(
        &self,
        scan: &SortedScan,
        part: &SortedPart,
        visit: &mut dyn FnMut(u32, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut reader = None;
        for &(ordinal, from, to) in &part.runs {
            let segment = scan.searcher.segment_reader(ordinal);
            let alive = segment.alive_bitset();
            let live = |doc: DocId| alive.is_none_or(|bits| bits.is_alive(doc));
            let store = segment.get_store_reader(1)?;
            let Some(blocks) = &scan.stores[ordinal as usize] else {
                // A store laid out otherwise: through tantivy, a document at a time.
                for doc in (from..to).filter(|&doc| live(doc)) {
                    let record = stored_form(&store, doc, self.fields.data)
                        .map_err(|e| index_error(&self.dir, e))?;
                    visit(ordinal, &record)?;
                }
                continue;
            };
            let reader = match &mut reader {
                Some(reader) => reader,
                None => reader.insert(BlockReader::new()?),
            };
            blocks
                .visit(
                    reader,
                    from..to,
                    live,
                    &mut |doc, document| match stored_bytes_of(
                        document,
                        self.fields.data.field_id(),
                    ) {
                        Some(record) => visit(ordinal, record),
                        None => {
                            let record = stored_form(&store, doc, self.fields.data)
                                .map_err(|e| index_error(&self.dir, e))?;
                            visit(ordinal, &record)
                        }
                    },
                )
                .map_err(|e| index_error(&self.dir, e))?;
        }
        Ok(())
    }

    /// What a key-sorted scan reads through: one view of the index and its segments' block
    /// lists (`None` where a store is left to tantivy).
    pub(crate) fn sorted_scan(&self) -> io::Result<SortedScan> {
        let searcher = self.reader.searcher();
        let segments = searcher
            .index()
            .searchable_segments()
            .map_err(|e| index_error(&self.dir, e))?;
        let mut stores = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            let store = StoreBlocks::open(&segments, segment);
            stores.push(store.map_err(|e| index_error(&self.dir, e))?);
        }
        Ok(SortedScan { searcher, stores })
    }
}

/// Captures a part of a decoded scan holds: bounds memory (a few hundred bytes each).
const DECODED_PART: usize = 4096;

/// Ranges of fewer documents than this are scanned through the reader's shared cache of
/// decompressed blocks instead: reading every segment's block list costs more than a
/// lookup, and repeated lookups find their blocks in that cache.
pub(crate) const SORTED_SCAN_FROM: usize = 16_384;

impl CaptureIndex {
    /// [`CaptureIndex::scan_range`] of a key-sorted index: parts of whole keys read one
    /// after another, each doc-store block decompressed once; within a part the captures of
    /// one key come in segment, then document order, as a lookup has them.
    pub(crate) fn scan_sorted(
        &self,
        start: &str,
        end: Option<&str>,
        visit: &mut dyn FnMut(Capture),
    ) -> io::Result<()> {
        let scan = self.sorted_scan()?;
        for part in self.sorted_parts(&scan.searcher, start, end, DECODED_PART)? {
            let mut captures = Vec::with_capacity(part.len());
            let mut segments = 0;
            let mut segment = None;
            self.read_sorted_part(&scan, &part, &mut |ordinal, record| {
                if segment != Some(ordinal) {
                    segment = Some(ordinal);
                    segments += 1;
                }
                let capture = decode_capture(record)
                    .ok_or_else(|| index_error(&self.dir, "undecodable capture document"))?;
                captures.push(capture);
                Ok(())
            })?;
            if segments > 1 {
                // Each segment's run is in key order: a stable sort merges them, keeping
                // segment order among the captures of one key.
                captures.sort_by(|a, b| a.urlkey.cmp(&b.urlkey));
            }
            captures.into_iter().for_each(&mut *visit);
        }
        Ok(())
    }
}

/// One view of a key-sorted index for a whole scan (see [`CaptureIndex::sorted_scan`]).
pub(crate) struct SortedScan {
    pub(crate) searcher: Searcher,
    stores: Vec<Option<StoreBlocks>>,
}
