//! A segment's doc store read block by block with one Zstandard context per reader.
//!
//! Tantivy's store reader creates a decompression context for every block it reads, and
//! creating one asks the processor for its features (`cpuid`), which on a virtual machine
//! is a trip to the hypervisor: for a scan of every capture, about a tenth of the time. It
//! also seeks its skip index for every document. A scan that reads runs of consecutive
//! documents instead reads the store's block list once and decompresses each block with a
//! context it keeps.
//!
//! The layout read here is that of tantivy's doc store (version 2, Zstandard blocks); a
//! store of any other layout, or one whose block list does not add up, is left to
//! tantivy's reader ([`StoreBlocks::open`] gives `None`).

use std::io;
use std::ops::Range;

use tantivy::directory::OwnedBytes;
use tantivy::index::SegmentComponent;
use tantivy::{DocId, Segment, SegmentReader};

/// Bytes of the doc store's footer: format version (u32), where the block list starts
/// (u64), compressor id (u8), 15 reserved bytes.
const FOOTER_BYTES: usize = 28;
/// The doc-store format whose block layout this module reads.
const DOC_STORE_VERSION: u32 = 2;
/// Tantivy's id of Zstandard block compression.
const ZSTD_COMPRESSOR: u8 = 4;
/// Largest decompressed block believed: blocks close at 16 KiB, past the document that
/// crosses it, and a capture's stored form is well under a mebibyte.
const MAX_BLOCK_BYTES: usize = 16 * 1024 * 1024;

/// One compressed block: its documents and where its bytes lie.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    docs: Range<DocId>,
    bytes: Range<usize>,
}

/// The blocks of one segment's doc store.
pub(crate) struct StoreBlocks {
    data: OwnedBytes,
    blocks: Vec<Block>,
}

/// What a reading thread keeps between blocks: the decompression context and the last
/// block decompressed.
pub(crate) struct BlockReader {
    context: zstd::bulk::Decompressor<'static>,
    block: Vec<u8>,
    /// The block in `block`, if any: its store (where the store's data lies) and its index
    /// there.
    current: Option<(usize, usize)>,
}

impl BlockReader {
    pub(crate) fn new() -> io::Result<Self> {
        Ok(BlockReader {
            context: zstd::bulk::Decompressor::new()?,
            block: Vec::new(),
            current: None,
        })
    }
}

impl StoreBlocks {
    /// The blocks of `segment`'s doc store, or `None` when the store is not in the layout
    /// this module reads, or `segment` is no longer among `segments` (the index's segments
    /// as its meta file lists them now).
    pub(crate) fn open(segments: &[Segment], segment: &SegmentReader) -> io::Result<Option<Self>> {
        let id = segment.segment_id();
        let Some(stored) = segments.iter().find(|s| s.id() == id) else {
            return Ok(None);
        };
        let file = stored
            .open_read(SegmentComponent::Store)
            .map_err(io::Error::other)?
            .read_bytes()?;
        Ok(Self::parse(file, segment.max_doc()))
    }

    /// Splits a store file into its blocks; `None` unless it is a version-2 Zstandard store
    /// whose block list covers its data and its `max_doc` documents exactly.
    fn parse(file: OwnedBytes, max_doc: DocId) -> Option<Self> {
        let body_len = file.len().checked_sub(FOOTER_BYTES)?;
        let footer = &file.as_slice()[body_len..];
        let version = u32::from_le_bytes(footer[0..4].try_into().ok()?);
        let list_start =
            usize::try_from(u64::from_le_bytes(footer[4..12].try_into().ok()?)).ok()?;
        if version != DOC_STORE_VERSION || footer[12] != ZSTD_COMPRESSOR || list_start > body_len {
            return None;
        }
        let blocks = block_list(&file.as_slice()[list_start..body_len])?;
        let covers_docs = blocks.first().is_none_or(|b| b.docs.start == 0)
            && blocks.last().map_or(0, |b| b.docs.end) == max_doc;
        let covers_bytes = blocks.first().is_none_or(|b| b.bytes.start == 0)
            && blocks.last().map_or(0, |b| b.bytes.end) == list_start;
        let contiguous = blocks.windows(2).all(|pair| {
            pair[0].docs.end == pair[1].docs.start && pair[0].bytes.end == pair[1].bytes.start
        });
        let sound = blocks
            .iter()
            .all(|b| b.docs.start < b.docs.end && b.bytes.start + 4 <= b.bytes.end);
        (covers_docs && covers_bytes && contiguous && sound).then(|| StoreBlocks {
            data: file.slice(0..list_start),
            blocks,
        })
    }

    /// Hands the stored bytes of every document in `docs` that `wanted` accepts to
    /// `visit`, in document order, decompressing each block once (the reader's last block
    /// is reused).
    pub(crate) fn visit(
        &self,
        reader: &mut BlockReader,
        docs: Range<DocId>,
        wanted: impl Fn(DocId) -> bool,
        visit: &mut dyn FnMut(DocId, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut at = self.blocks.partition_point(|b| b.docs.end <= docs.start);
        while let Some(block) = self.blocks.get(at).filter(|b| b.docs.start < docs.end) {
            let id = (self.data.as_slice().as_ptr() as usize, at);
            if reader.current != Some(id) {
                reader.current = None;
                self.decompress(block, reader)?;
                reader.current = Some(id);
            }
            let offsets = DocOffsets::of(&reader.block, block.docs.len())
                .ok_or_else(|| corrupt("a doc-store block's document offsets"))?;
            for doc in docs.start.max(block.docs.start)..docs.end.min(block.docs.end) {
                if wanted(doc) {
                    let range = offsets
                        .range((doc - block.docs.start) as usize)
                        .ok_or_else(|| corrupt("a doc-store document's offset"))?;
                    visit(doc, &reader.block[range])?;
                }
            }
            at += 1;
        }
        Ok(())
    }

    fn decompress(&self, block: &Block, reader: &mut BlockReader) -> io::Result<()> {
        let compressed = &self.data.as_slice()[block.bytes.clone()];
        let (size, frame) = compressed.split_at(4);
        let size = u32::from_le_bytes(size.try_into().map_err(io::Error::other)?) as usize;
        // The size before the frame is only a claim of the file: checked against the frame's
        // own header (and bounded) before that much memory is reserved.
        let in_frame = zstd::zstd_safe::get_frame_content_size(frame)
            .ok()
            .flatten();
        if size > MAX_BLOCK_BYTES || in_frame.is_some_and(|declared| declared != size as u64) {
            return Err(corrupt("a doc-store block's size"));
        }
        reader.block.clear();
        reader.block.reserve(size);
        let written = reader
            .context
            .decompress_to_buffer(frame, &mut reader.block)?;
        if written != size {
            return Err(corrupt("a doc-store block's size"));
        }
        Ok(())
    }
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("unreadable: {what}"))
}

/// The table at the end of a decompressed block: the start of each document (u32 each),
/// then the number of documents (u32).
struct DocOffsets<'a> {
    table: &'a [u8],
    /// Where the table starts: the end of the last document.
    table_start: usize,
}

impl<'a> DocOffsets<'a> {
    fn of(block: &'a [u8], docs: usize) -> Option<Self> {
        let count_at = block.len().checked_sub(4)?;
        let count = u32::from_le_bytes(block[count_at..].try_into().ok()?) as usize;
        let table_start = count_at.checked_sub(count.checked_mul(4)?)?;
        (count == docs).then(|| DocOffsets {
            table: &block[table_start..count_at],
            table_start,
        })
    }

    /// The bytes of document `n` of the block.
    fn range(&self, n: usize) -> Option<Range<usize>> {
        let offset = |i: usize| -> Option<usize> {
            let bytes = self.table.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes(bytes.try_into().ok()?) as usize)
        };
        let start = offset(n)?;
        let end = if (n + 1) * 4 < self.table.len() {
            offset(n + 1)?
        } else {
            self.table_start
        };
        (start <= end && end <= self.table_start).then_some(start..end)
    }
}

/// The block list of a doc store (tantivy's skip index): layers of checkpoint blocks, the
/// last layer listing every block. `None` if it does not parse.
fn block_list(list: &[u8]) -> Option<Vec<Block>> {
    let (layers, mut rest) = vint(list)?;
    let mut ends = Vec::with_capacity(usize::try_from(layers).ok()?.min(64));
    for _ in 0..layers {
        let (end, after) = vint(rest)?;
        ends.push(usize::try_from(end).ok()?);
        rest = after;
    }
    let Some(&last_end) = ends.last() else {
        return Some(Vec::new());
    };
    let last_start = if ends.len() >= 2 {
        ends[ends.len() - 2]
    } else {
        0
    };
    let mut layer = rest.get(last_start..last_end)?;
    let mut blocks = Vec::new();
    while !layer.is_empty() {
        let (count, after) = vint(layer)?;
        layer = after;
        if count == 0 {
            continue;
        }
        let (first_doc, after) = vint(layer)?;
        let (first_byte, after) = vint(after)?;
        layer = after;
        let mut doc = DocId::try_from(first_doc).ok()?;
        let mut byte = usize::try_from(first_byte).ok()?;
        for _ in 0..count {
            let (docs, after) = vint(layer)?;
            let (bytes, after) = vint(after)?;
            layer = after;
            let doc_end = doc.checked_add(DocId::try_from(docs).ok()?)?;
            let byte_end = byte.checked_add(usize::try_from(bytes).ok()?)?;
            blocks.push(Block {
                docs: doc..doc_end,
                bytes: byte..byte_end,
            });
            doc = doc_end;
            byte = byte_end;
        }
    }
    Some(blocks)
}

/// Tantivy's variable-length integer: 7 bits a byte, least significant first, the last
/// byte marked by its high bit.
pub(super) fn vint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (at, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * at);
        if byte & 0x80 != 0 {
            return Some((value, &bytes[at + 1..]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store::{DocOrder, DocStoreCompression};
    use crate::index::test_indexes::index_in_four_parts;

    /// Every document of every segment as tantivy's store reader gives it.
    fn through_tantivy(searcher: &tantivy::Searcher) -> Vec<Vec<Vec<u8>>> {
        searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                let store = segment.get_store_reader(0).unwrap();
                (0..segment.max_doc())
                    .map(|doc| store.get_document_bytes(doc).unwrap().to_vec())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn blocks_read_directly_equal_what_tantivy_reads() {
        // Both layouts, every store read with one reader: what was decompressed for one
        // store must never be taken for another's block of the same number.
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let indexes = [
            index_in_four_parts(
                dirs[0].path(),
                DocStoreCompression::Zstd,
                DocOrder::ByKey,
                1000,
            ),
            index_in_four_parts(
                dirs[1].path(),
                DocStoreCompression::Zstd,
                DocOrder::AsIndexed,
                1000,
            ),
        ];
        let mut stores = Vec::new();
        let mut expected = Vec::new();
        for index in &indexes {
            let searcher = index.reader.searcher();
            expected.extend(through_tantivy(&searcher));
            for segment in searcher.segment_readers() {
                let store =
                    StoreBlocks::open(&searcher.index().searchable_segments().unwrap(), segment)
                        .unwrap();
                stores.push(store.expect("a zstd store of the known layout"));
            }
        }
        assert!(stores.len() >= 2);
        assert!(
            stores.iter().any(|store| store.blocks.len() > 5),
            "stores of many blocks"
        );
        let visited = |store: &StoreBlocks,
                       reader: &mut BlockReader,
                       docs: Range<DocId>,
                       wanted: &dyn Fn(DocId) -> bool| {
            let mut got = Vec::new();
            store
                .visit(reader, docs, wanted, &mut |doc, bytes| {
                    got.push((doc, bytes.to_vec()));
                    Ok(())
                })
                .unwrap();
            got
        };
        let mut reader = BlockReader::new().unwrap();
        for _round in 0..2 {
            for (store, want) in stores.iter().zip(&expected) {
                let got = visited(store, &mut reader, 0..want.len() as DocId, &|_| true);
                let want: Vec<(DocId, Vec<u8>)> = (0..).zip(want.iter().cloned()).collect();
                assert!(got == want, "whole stores");
            }
        }
        for (store, want) in stores.iter().zip(&expected).rev() {
            let (from, to) = (want.len() / 3, want.len() / 3 * 2);
            let docs = from as DocId..to as DocId;
            let got = visited(store, &mut reader, docs.clone(), &|doc| doc % 3 == 0);
            let want: Vec<(DocId, Vec<u8>)> = docs
                .zip(want[from..to].iter().cloned())
                .filter(|(doc, _)| doc % 3 == 0)
                .collect();
            assert!(got == want, "a middle range, filtered");
        }
    }

    #[test]
    fn stores_of_another_layout_are_left_to_tantivy() {
        let dir = tempfile::tempdir().unwrap();
        let index =
            index_in_four_parts(dir.path(), DocStoreCompression::Lz4, DocOrder::ByKey, 1000);
        let searcher = index.reader.searcher();
        for segment in searcher.segment_readers() {
            assert!(
                StoreBlocks::open(&searcher.index().searchable_segments().unwrap(), segment)
                    .unwrap()
                    .is_none(),
                "LZ4 blocks"
            );
        }
    }

    #[test]
    fn a_damaged_block_list_or_footer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let index =
            index_in_four_parts(dir.path(), DocStoreCompression::Zstd, DocOrder::ByKey, 1000);
        let searcher = index.reader.searcher();
        let segment = &searcher.segment_readers()[0];
        let stored = searcher
            .index()
            .searchable_segments()
            .unwrap()
            .into_iter()
            .find(|s| s.id() == segment.segment_id())
            .unwrap();
        let file = stored
            .open_read(SegmentComponent::Store)
            .unwrap()
            .read_bytes()
            .unwrap()
            .to_vec();
        let max_doc = segment.max_doc();
        let parse = |bytes: Vec<u8>, max_doc| {
            StoreBlocks::parse(OwnedBytes::new(bytes), max_doc).map(|s| s.blocks.len())
        };
        assert!(parse(file.clone(), max_doc).is_some_and(|blocks| blocks > 5));
        assert_eq!(
            parse(file.clone(), max_doc + 1),
            None,
            "documents not all listed"
        );
        let footer = file.len() - FOOTER_BYTES;
        let mut version = file.clone();
        version[footer] = 1;
        assert_eq!(parse(version, max_doc), None, "another format version");
        let mut list_start = file.clone();
        list_start[footer + 4] ^= 0x01;
        assert_eq!(parse(list_start, max_doc), None, "block list moved");
        let start = u64::from_le_bytes(file[footer + 4..footer + 12].try_into().unwrap()) as usize;
        let mut truncated = file[..start + (footer - start) / 2].to_vec();
        truncated.extend_from_slice(&file[footer..]);
        assert_eq!(parse(truncated, max_doc), None, "block list cut short");
        assert_eq!(
            parse(file[..FOOTER_BYTES - 1].to_vec(), max_doc),
            None,
            "no footer"
        );
        // A block whose size claim is damaged is an error naming it (checked against the
        // frame before anything is reserved).
        let mut claim = file.clone();
        claim[0..4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let store = StoreBlocks::parse(OwnedBytes::new(claim), max_doc).expect("list intact");
        let mut reader = BlockReader::new().unwrap();
        let read = store.visit(&mut reader, 0..1, |_| true, &mut |_, _| Ok(()));
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
