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
use tantivy::{DocId, Searcher, SegmentReader};

/// Bytes of the doc store's footer: format version (u32), where the block list starts
/// (u64), compressor id (u8), 15 reserved bytes.
const FOOTER_BYTES: usize = 28;
/// The doc-store format whose block layout this module reads.
const DOC_STORE_VERSION: u32 = 2;
/// Tantivy's id of Zstandard block compression.
const ZSTD_COMPRESSOR: u8 = 4;

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
    /// Index (in its `StoreBlocks`) of the block in `block`, if any.
    current: Option<usize>,
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
    /// this module reads.
    pub(crate) fn open(searcher: &Searcher, segment: &SegmentReader) -> io::Result<Option<Self>> {
        let id = segment.segment_id();
        let segments = searcher
            .index()
            .searchable_segments()
            .map_err(io::Error::other)?;
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
            if reader.current != Some(at) {
                reader.current = None;
                self.decompress(block, reader)?;
                reader.current = Some(at);
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
