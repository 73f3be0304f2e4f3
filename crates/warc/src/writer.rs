//! Strict WARC/1.1 writer: one gzip member per record, digests computed while the block
//! streams in, each record's offset and length returned as written.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use chrono::{DateTime, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;

use super::digest::{BlockDigester, BlockDigests};
use super::header::WarcHeader;
use super::http;
use super::time::format_warc_date;

/// Blocks larger than this are spooled to a temporary file instead of memory.
pub const DEFAULT_SPILL_BYTES: usize = 8 * 1024 * 1024;

/// The version ldwarc writes.
pub const WARC_VERSION: &str = "1.1";

/// How the payload of a block is delimited, which decides `WARC-Payload-Digest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    /// An HTTP message: the payload is the body after the head.
    Http,
    /// The block is the payload (`resource` records).
    WholeBlock,
    /// No payload digest (`warcinfo`, `metadata`, revisit heads).
    None,
}

/// A record block ready to be written: its bytes (in memory or spooled) and its digests.
pub struct Block {
    storage: Storage,
    digests: BlockDigests,
}

enum Storage {
    Memory(Vec<u8>),
    Spooled(File),
}

impl Block {
    /// A block from bytes in memory.
    pub fn from_bytes(bytes: Vec<u8>, kind: PayloadKind) -> io::Result<Self> {
        let mut builder = BlockBuilder::new(kind);
        builder.write_all(&bytes)?;
        builder.finish()
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.digests.length
    }

    /// Whether the block is empty.
    pub fn is_empty(&self) -> bool {
        self.digests.length == 0
    }

    /// The digests computed while the block was built.
    pub fn digests(&self) -> &BlockDigests {
        &self.digests
    }

    fn copy_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        match &mut self.storage {
            Storage::Memory(bytes) => out.write_all(bytes),
            Storage::Spooled(file) => {
                file.seek(SeekFrom::Start(0))?;
                let copied = io::copy(&mut file.take(self.digests.length), out)?;
                if copied != self.digests.length {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "spooled block shrank before it was written",
                    ));
                }
                Ok(())
            }
        }
    }
}

/// Builds a [`Block`] from bytes written to it, computing digests on the way and spilling
/// to a temporary file past a size threshold, so a large body never sits in memory.
pub struct BlockBuilder {
    kind: PayloadKind,
    digester: BlockDigester,
    memory: Vec<u8>,
    spool: Option<File>,
    spill_bytes: usize,
    head: Vec<u8>,
}

impl BlockBuilder {
    /// A builder with the default spill threshold.
    pub fn new(kind: PayloadKind) -> Self {
        Self::with_spill(kind, DEFAULT_SPILL_BYTES)
    }

    /// A builder that spills to a temporary file past `spill_bytes`.
    pub fn with_spill(kind: PayloadKind, spill_bytes: usize) -> Self {
        Self {
            kind,
            digester: BlockDigester::sha1(
                kind == PayloadKind::Http,
                kind == PayloadKind::WholeBlock,
            ),
            memory: Vec::new(),
            spool: None,
            spill_bytes,
            head: Vec::new(),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.digester.length()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.digester.length() == 0
    }

    /// Finishes the block. An HTTP block must carry a complete head and must not declare
    /// `Transfer-Encoding: chunked` (ldwarc stores bodies de-chunked).
    pub fn finish(mut self) -> io::Result<Block> {
        self.flush()?;
        let digests = self.digester.finish();
        if self.kind == PayloadKind::Http {
            let (head, _) = http::parse_head(&self.head).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "HTTP block has no complete HTTP head",
                )
            })?;
            let chunked = head.headers.iter().any(|(n, v)| {
                n.eq_ignore_ascii_case("Transfer-Encoding")
                    && v.to_ascii_lowercase().contains("chunked")
            });
            if chunked {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "HTTP block declares Transfer-Encoding: chunked; store the de-chunked body without that header",
                ));
            }
        }
        let storage = match self.spool {
            Some(file) => Storage::Spooled(file),
            None => Storage::Memory(self.memory),
        };
        Ok(Block { storage, digests })
    }
}

impl Write for BlockBuilder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.kind == PayloadKind::Http
            && self.digester.length() < 64 * 1024
            && self.head.len() < 64 * 1024
        {
            let take = buf.len().min(64 * 1024 - self.head.len());
            self.head.extend_from_slice(&buf[..take]);
        }
        self.digester.update(buf);
        match &mut self.spool {
            Some(file) => file.write_all(buf)?,
            None if self.memory.len() + buf.len() > self.spill_bytes => {
                let mut file = tempfile::tempfile()?;
                file.write_all(&self.memory)?;
                file.write_all(buf)?;
                self.memory = Vec::new();
                self.spool = Some(file);
            }
            None => self.memory.extend_from_slice(buf),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.spool {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

/// Where a record was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenRecord {
    /// Offset of the record's first byte (its gzip member) in the file.
    pub offset: u64,
    /// Bytes written for the record: its whole gzip member, or in a plain file its header
    /// and block (the CRLF CRLF that follows is not counted, as readers report it).
    pub length: u64,
    /// The header as written, including the fields the writer filled in.
    pub header: WarcHeader,
}

/// Writes WARC/1.1 records.
pub struct WarcWriter<W: Write> {
    out: W,
    position: u64,
    compression: Option<Compression>,
}

impl<W: Write> WarcWriter<W> {
    /// A gzip writer (level 6) whose output already holds `position` bytes.
    pub fn new(out: W, position: u64) -> Self {
        Self {
            out,
            position,
            compression: Some(Compression::new(6)),
        }
    }

    /// Sets the gzip level (0–9), or `None` for an uncompressed `.warc`.
    pub fn with_compression(mut self, level: Option<u32>) -> Self {
        self.compression = level.map(|l| Compression::new(l.min(9)));
        self
    }

    /// Bytes written so far (including the starting position).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Writes one record. The writer sets `Content-Length`, `WARC-Block-Digest`, and
    /// `WARC-Payload-Digest` (unless given, as revisits give the original's), and adds
    /// `WARC-Record-ID` / `WARC-Date` when missing.
    pub fn write_record(
        &mut self,
        mut header: WarcHeader,
        mut block: Block,
    ) -> io::Result<WrittenRecord> {
        complete_header(&mut header, &block)?;
        let head = header.to_bytes();
        let offset = self.position;
        let mut counter = CountingWriter {
            inner: &mut self.out,
            count: 0,
        };
        match self.compression {
            Some(level) => {
                let mut gzip = GzEncoder::new(&mut counter, level);
                gzip.write_all(&head)?;
                block.copy_to(&mut gzip)?;
                gzip.write_all(b"\r\n\r\n")?;
                gzip.finish()?;
            }
            None => {
                counter.write_all(&head)?;
                block.copy_to(&mut counter)?;
            }
        }
        // In a plain file the record's length runs to the end of its block, not counting
        // the CRLF CRLF after it, as readers (ldwarc's and warcio's) report it.
        let length = counter.count;
        if self.compression.is_none() {
            counter.write_all(b"\r\n\r\n")?;
        }
        self.position += counter.count;
        Ok(WrittenRecord {
            offset,
            length,
            header,
        })
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Returns the underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

fn complete_header(header: &mut WarcHeader, block: &Block) -> io::Result<()> {
    if header.record_type().is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "record has no WARC-Type",
        ));
    }
    header.version = WARC_VERSION.to_string();
    if header.record_id().is_none() {
        header.push("WARC-Record-ID", new_record_id());
    }
    if header.date().is_none() {
        header.push("WARC-Date", format_warc_date(Utc::now()));
    }
    let digests = block.digests();
    header.set("WARC-Block-Digest", digests.block.to_canonical());
    if header.get("WARC-Payload-Digest").is_none()
        && let Some(payload) = &digests.payload
    {
        header.push("WARC-Payload-Digest", payload.to_canonical());
    }
    header.set("Content-Length", digests.length.to_string());
    Ok(())
}

/// A fresh `<urn:uuid:…>` record id.
pub fn new_record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4())
}

/// A header with the fields every record starts with, in ldwarc's order.
pub fn record_header(
    record_type: &str,
    date: DateTime<Utc>,
    target_uri: Option<&str>,
) -> WarcHeader {
    let mut header = WarcHeader::new(WARC_VERSION);
    header.push("WARC-Type", record_type);
    header.push("WARC-Record-ID", new_record_id());
    header.push("WARC-Date", format_warc_date(date));
    if let Some(uri) = target_uri {
        header.push("WARC-Target-URI", uri);
    }
    header
}

/// Revisit profiles of WARC 1.1.
pub mod profiles {
    /// The payload is identical to an earlier capture's.
    pub const IDENTICAL_PAYLOAD_DIGEST: &str =
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
    /// The server answered 304 Not Modified to a conditional request.
    pub const SERVER_NOT_MODIFIED: &str =
        "http://netpreserve.org/warc/1.1/revisit/server-not-modified";
}

/// The `warcinfo` record that opens every file ldwarc writes.
pub fn warcinfo_record(
    filename: &str,
    date: DateTime<Utc>,
    fields: &[(&str, String)],
) -> io::Result<(WarcHeader, Block)> {
    let mut header = record_header("warcinfo", date, None);
    header.push("WARC-Filename", filename);
    header.push("Content-Type", "application/warc-fields");
    let mut body = String::new();
    for (name, value) in fields {
        body.push_str(name);
        body.push_str(": ");
        body.push_str(value);
        body.push_str("\r\n");
    }
    Ok((
        header,
        Block::from_bytes(body.into_bytes(), PayloadKind::None)?,
    ))
}

struct CountingWriter<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
