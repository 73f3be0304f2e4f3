//! The byte source under the record reader: raw bytes of a plain file, or the decompressed
//! bytes of a multi-member gzip file with the compressed offset of every member boundary.
//!
//! Gzip framing is parsed here (not by `flate2::GzDecoder`) so that every member's start and
//! end offset is known exactly and damage can be located and skipped.

use std::io::{self, Read, Seek, SeekFrom};

use flate2::{Decompress, FlushDecompress, Status};

const INPUT_BUFFER: usize = 256 * 1024;
/// Longest FNAME / FCOMMENT accepted in a gzip header.
const MAX_GZIP_STRING: usize = 64 * 1024;

/// A problem in the byte framing, located by its offset in the file.
#[derive(Debug)]
pub(crate) enum SourceError {
    /// Bytes at a member boundary that do not start a gzip member.
    NotGzip { offset: u64 },
    /// The file ends inside a gzip member.
    Truncated { member: u64 },
    /// The deflate stream or the trailer of a member is damaged.
    Corrupt { member: u64, message: String },
    /// The underlying read failed.
    Io { offset: u64, source: io::Error },
}

impl SourceError {
    pub(crate) fn offset(&self) -> u64 {
        match self {
            Self::NotGzip { offset } | Self::Io { offset, .. } => *offset,
            Self::Truncated { member } | Self::Corrupt { member, .. } => *member,
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            Self::NotGzip { .. } => "bytes that do not start a gzip member".to_string(),
            Self::Truncated { .. } => "gzip member is truncated (file ends inside it)".to_string(),
            Self::Corrupt { message, .. } => format!("damaged gzip member: {message}"),
            Self::Io { source, .. } => format!("read error: {source}"),
        }
    }
}

type Result<T> = std::result::Result<T, SourceError>;

/// A raw-deflate decompressor taken from a per-thread spare (and given back when dropped):
/// reading record after record at random offsets, as replay does, then sets up zlib's
/// state once per thread instead of once per record. Every member resets it first.
struct Inflater(Option<Decompress>);

thread_local! {
    static SPARE_INFLATER: std::cell::Cell<Option<Decompress>> = const { std::cell::Cell::new(None) };
}

impl Inflater {
    fn new() -> Self {
        let spare = SPARE_INFLATER.with(|spare| spare.take());
        Inflater(Some(spare.unwrap_or_else(|| Decompress::new(false))))
    }
}

impl std::ops::Deref for Inflater {
    type Target = Decompress;
    fn deref(&self) -> &Decompress {
        self.0
            .as_ref()
            .expect("an inflater holds its decompressor until dropped")
    }
}

impl std::ops::DerefMut for Inflater {
    fn deref_mut(&mut self) -> &mut Decompress {
        self.0
            .as_mut()
            .expect("an inflater holds its decompressor until dropped")
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        if let Some(inflater) = self.0.take() {
            SPARE_INFLATER.with(|spare| spare.set(Some(inflater)));
        }
    }
}

struct GzipState {
    inflater: Inflater,
    output: Box<[u8]>,
    out_pos: usize,
    out_len: usize,
    crc: crc32fast::Hasher,
    member_size: u64,
    /// Compressed offset of the member being decoded, if inside one.
    member_start: Option<u64>,
    members_started: u64,
    /// A member whose data was decoded whole but whose trailer the file cuts short: the
    /// data is handed out first, then this error.
    pending_error: Option<SourceError>,
}

/// Decoded bytes of a WARC/ARC file with knowledge of gzip member boundaries.
pub(crate) struct Source<R> {
    inner: R,
    input: Box<[u8]>,
    in_pos: usize,
    in_len: usize,
    /// File offset of `input[0]`.
    input_offset: u64,
    eof: bool,
    gzip: Option<GzipState>,
    /// Decoded bytes consumed so far (the logical stream position).
    decoded_pos: u64,
}

impl<R: Read + Seek> Source<R> {
    /// Opens `inner` at its current position, sniffing gzip by its magic bytes.
    pub(crate) fn new(inner: R) -> io::Result<Self> {
        Self::with_buffers(inner, INPUT_BUFFER, INPUT_BUFFER)
    }

    /// Like [`Source::new`] with an input buffer of `input` bytes (at least 512) and an
    /// output buffer of `output` bytes (at least 4 KiB): small buffers suit reading one
    /// short record at a random offset, where zeroing two 256 KiB buffers, and reading far
    /// past the record, would cost more than the read.
    pub(crate) fn with_buffers(mut inner: R, input: usize, output: usize) -> io::Result<Self> {
        let (input, output) = (input.max(512), output.max(4096));
        let start = inner.stream_position()?;
        let mut source = Self {
            inner,
            input: vec![0; input].into_boxed_slice(),
            in_pos: 0,
            in_len: 0,
            input_offset: start,
            eof: false,
            gzip: None,
            // For a plain file the logical position is the file offset; a gzip source
            // counts decoded bytes from where it was opened.
            decoded_pos: start,
        };
        let magic = source
            .peek_raw(2)
            .map_err(|e| io::Error::other(e.describe()))?;
        if magic.starts_with(&[0x1f, 0x8b]) {
            source.decoded_pos = 0;
            source.gzip = Some(GzipState {
                inflater: Inflater::new(),
                output: vec![0; output].into_boxed_slice(),
                out_pos: 0,
                out_len: 0,
                crc: crc32fast::Hasher::new(),
                member_size: 0,
                member_start: None,
                members_started: 0,
                pending_error: None,
            });
        }
        Ok(source)
    }

    /// Whether the file is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        self.gzip.is_some()
    }

    /// Offset in the file of the next undecoded raw byte.
    pub(crate) fn raw_pos(&self) -> u64 {
        self.input_offset + self.in_pos as u64
    }

    /// Offset in the file just past the raw bytes read so far: the file's length once it
    /// has been read to its end.
    pub(crate) fn raw_read_end(&self) -> u64 {
        self.input_offset + self.in_len as u64
    }

    /// Whether no raw bytes are left to read.
    pub(crate) fn at_end(&mut self) -> Result<bool> {
        Ok(self.peek_raw(1)?.is_empty())
    }

    /// The logical (decoded) position.
    pub(crate) fn decoded_pos(&self) -> u64 {
        self.decoded_pos
    }

    /// Makes at least `n` raw bytes available unless the file ends; returns what is available.
    fn peek_raw(&mut self, n: usize) -> Result<&[u8]> {
        if self.in_len - self.in_pos < n && !self.eof {
            self.input.copy_within(self.in_pos..self.in_len, 0);
            self.input_offset += self.in_pos as u64;
            self.in_len -= self.in_pos;
            self.in_pos = 0;
            while self.in_len < n.min(self.input.len()) && !self.eof {
                let offset = self.input_offset + self.in_len as u64;
                let read = self
                    .inner
                    .read(&mut self.input[self.in_len..])
                    .map_err(|source| SourceError::Io { offset, source })?;
                if read == 0 {
                    self.eof = true;
                }
                self.in_len += read;
            }
        }
        Ok(&self.input[self.in_pos..self.in_len])
    }

    /// Raw bytes available now, refilling when empty.
    fn raw_chunk(&mut self) -> Result<&[u8]> {
        if self.in_pos == self.in_len {
            self.peek_raw(1)?;
        }
        Ok(&self.input[self.in_pos..self.in_len])
    }

    /// Parses a gzip member header at the current raw position.
    /// `Ok(false)` means the file ended cleanly at a member boundary.
    fn start_member(&mut self) -> Result<bool> {
        let start = self.raw_pos();
        let head = self.peek_raw(10)?;
        if head.is_empty() {
            return Ok(false);
        }
        if head.len() < 10 {
            // The file ends inside the first bytes of a gzip header (even after one byte).
            let magic: &[u8] = &[0x1f, 0x8b, 0x08];
            return if magic.starts_with(&head[..head.len().min(3)]) {
                Err(SourceError::Truncated { member: start })
            } else {
                Err(SourceError::NotGzip { offset: start })
            };
        }
        if head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 {
            return Err(SourceError::NotGzip { offset: start });
        }
        let flags = head[3];
        self.in_pos += 10;
        if flags & 0x04 != 0 {
            let len = self.peek_raw(2)?;
            if len.len() < 2 {
                return Err(SourceError::Truncated { member: start });
            }
            let extra = u16::from_le_bytes([len[0], len[1]]) as usize;
            self.skip_raw(2 + extra, start)?;
        }
        for flag in [0x08u8, 0x10] {
            if flags & flag != 0 {
                self.skip_zero_terminated(start)?;
            }
        }
        if flags & 0x02 != 0 {
            self.skip_raw(2, start)?;
        }
        let gzip = self
            .gzip
            .as_mut()
            .expect("start_member is only called on gzip sources");
        gzip.inflater.reset(false);
        gzip.crc = crc32fast::Hasher::new();
        gzip.member_size = 0;
        gzip.member_start = Some(start);
        gzip.members_started += 1;
        Ok(true)
    }

    fn skip_raw(&mut self, mut n: usize, member: u64) -> Result<()> {
        while n > 0 {
            let chunk = self.raw_chunk()?.len();
            if chunk == 0 {
                return Err(SourceError::Truncated { member });
            }
            let step = chunk.min(n);
            self.in_pos += step;
            n -= step;
        }
        Ok(())
    }

    fn skip_zero_terminated(&mut self, member: u64) -> Result<()> {
        let mut skipped = 0;
        loop {
            let chunk = self.raw_chunk()?;
            if chunk.is_empty() {
                return Err(SourceError::Truncated { member });
            }
            if let Some(zero) = memchr::memchr(0, chunk) {
                self.in_pos += zero + 1;
                return Ok(());
            }
            skipped += chunk.len();
            self.in_pos = self.in_len;
            if skipped > MAX_GZIP_STRING {
                return Err(SourceError::Corrupt {
                    member,
                    message: "gzip header string is unterminated".into(),
                });
            }
        }
    }

    /// Decodes more of the current member into the output buffer.
    /// Returns `Ok(true)` if bytes were produced, `Ok(false)` if the member ended.
    fn inflate_more(&mut self) -> Result<bool> {
        loop {
            let member = match self.gzip.as_ref().and_then(|g| g.member_start) {
                Some(member) => member,
                None => return Ok(false),
            };
            if let Some(error) = self.gzip.as_mut().and_then(|g| g.pending_error.take()) {
                return Err(error);
            }
            if self.in_pos == self.in_len {
                self.peek_raw(1)?;
            }
            let gzip = self.gzip.as_mut().expect("inflate_more on gzip source");
            let input = &self.input[self.in_pos..self.in_len];
            let before_in = gzip.inflater.total_in();
            let before_out = gzip.inflater.total_out();
            let status = gzip
                .inflater
                .decompress(input, &mut gzip.output, FlushDecompress::None)
                .map_err(|e| SourceError::Corrupt {
                    member,
                    message: e.to_string(),
                })?;
            let consumed = (gzip.inflater.total_in() - before_in) as usize;
            let produced = (gzip.inflater.total_out() - before_out) as usize;
            self.in_pos += consumed;
            gzip.out_pos = 0;
            gzip.out_len = produced;
            gzip.crc.update(&gzip.output[..produced]);
            gzip.member_size += produced as u64;
            if status == Status::StreamEnd {
                match self.finish_member(member) {
                    Ok(()) => return Ok(produced > 0),
                    // The data is whole, only the trailer is cut: hand out the data, and
                    // report the cut when it has been read.
                    Err(error @ SourceError::Truncated { .. }) if produced > 0 => {
                        if let Some(gzip) = self.gzip.as_mut() {
                            gzip.pending_error = Some(error);
                        }
                        return Ok(true);
                    }
                    Err(error) => return Err(error),
                }
            }
            if produced > 0 {
                return Ok(true);
            }
            if consumed == 0 && self.in_pos == self.in_len && self.eof {
                return Err(SourceError::Truncated { member });
            }
        }
    }

    fn finish_member(&mut self, member: u64) -> Result<()> {
        let trailer = self.peek_raw(8)?;
        if trailer.len() < 8 {
            return Err(SourceError::Truncated { member });
        }
        let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
        let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        self.in_pos += 8;
        let gzip = self.gzip.as_mut().expect("finish_member on gzip source");
        gzip.member_start = None;
        let actual_crc = std::mem::take(&mut gzip.crc).finalize();
        if actual_crc != crc || size != gzip.member_size as u32 {
            return Err(SourceError::Corrupt {
                member,
                message: "CRC32 or length in the gzip trailer does not match the data".into(),
            });
        }
        Ok(())
    }

    /// Decoded bytes available now. With `cross_members`, a member end is passed silently
    /// and decoding continues with the next member; without it, an empty slice is returned
    /// at the end of the current member.
    pub(crate) fn fill_buf(&mut self, cross_members: bool) -> Result<&[u8]> {
        if self.gzip.is_none() {
            return self.raw_chunk();
        }
        loop {
            let (has_output, in_member) = {
                let gzip = self.gzip.as_ref().expect("checked above");
                (gzip.out_pos < gzip.out_len, gzip.member_start.is_some())
            };
            if has_output {
                break;
            }
            if in_member {
                if self.inflate_more()? {
                    continue;
                }
                if !cross_members {
                    break;
                }
                continue;
            }
            if !cross_members || !self.start_member()? {
                break;
            }
        }
        let gzip = self.gzip.as_ref().expect("checked above");
        Ok(&gzip.output[gzip.out_pos..gzip.out_len])
    }

    /// Marks `n` bytes of the last `fill_buf` as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        self.decoded_pos += n as u64;
        match self.gzip.as_mut() {
            Some(gzip) => gzip.out_pos += n,
            None => self.in_pos += n,
        }
    }

    /// If the logical position is at a member boundary, the file offset of that boundary.
    /// Plain files are always "at a boundary". Finishes a member whose data is exhausted.
    pub(crate) fn boundary(&mut self) -> Result<Option<u64>> {
        if self.gzip.is_none() {
            return Ok(Some(self.raw_pos()));
        }
        loop {
            let gzip = self.gzip.as_ref().expect("checked above");
            if gzip.out_pos < gzip.out_len {
                return Ok(None);
            }
            if gzip.member_start.is_none() {
                return Ok(Some(self.raw_pos()));
            }
            if self.inflate_more()? {
                return Ok(None);
            }
        }
    }

    /// At a boundary: starts the next member. `Ok(false)` at a clean end of file.
    pub(crate) fn begin_member(&mut self) -> Result<bool> {
        match &self.gzip {
            Some(gzip) if gzip.member_start.is_none() => self.start_member(),
            _ => Ok(true),
        }
    }

    /// Whether the file holds only zero bytes or whitespace from `offset` to its end (at
    /// most 4 KiB of it: padding some tools leave). Leaves the source at `offset`.
    pub(crate) fn is_padding_from(&mut self, offset: u64) -> io::Result<bool> {
        self.inner.seek(SeekFrom::Start(offset))?;
        let mut tail = Vec::new();
        (&mut self.inner).take(4097).read_to_end(&mut tail)?;
        self.seek_raw(offset)?;
        Ok(tail.len() <= 4096
            && tail
                .iter()
                .all(|b| matches!(b, 0 | b'\r' | b'\n' | b' ' | b'\t')))
    }

    /// Repositions at raw file offset `offset`, forgetting all buffered state; the next
    /// read starts a new member (gzip) or reads raw bytes from there (plain).
    pub(crate) fn seek_raw(&mut self, offset: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(offset))?;
        self.input_offset = offset;
        self.in_pos = 0;
        self.in_len = 0;
        self.eof = false;
        match self.gzip.as_mut() {
            Some(gzip) => {
                gzip.out_pos = 0;
                gzip.out_len = 0;
                gzip.member_start = None;
                gzip.pending_error = None;
            }
            // A plain file's logical position is its file offset, also after a seek.
            None => self.decoded_pos = offset,
        }
        Ok(())
    }

    /// Up to `len` raw bytes at file offset `offset`, read from the file directly. Leaves
    /// the source positioned arbitrarily: call [`Self::seek_raw`] after.
    pub(crate) fn peek_raw_at(&mut self, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        self.inner.seek(SeekFrom::Start(offset))?;
        let mut bytes = Vec::with_capacity(len);
        (&mut self.inner).take(len as u64).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Finds the first occurrence of `needle` at or after raw offset `from`, reading the file
    /// directly. Leaves the source positioned arbitrarily: call [`Self::seek_raw`] after.
    pub(crate) fn find_raw(&mut self, from: u64, needle: &[u8]) -> io::Result<Option<u64>> {
        self.inner.seek(SeekFrom::Start(from))?;
        let finder = memchr::memmem::Finder::new(needle);
        let mut window: Vec<u8> = Vec::with_capacity(INPUT_BUFFER + needle.len());
        let mut window_offset = from;
        let mut chunk = vec![0u8; INPUT_BUFFER];
        loop {
            let read = self.inner.read(&mut chunk)?;
            if read == 0 {
                return Ok(None);
            }
            window.extend_from_slice(&chunk[..read]);
            if let Some(found) = finder.find(&window) {
                return Ok(Some(window_offset + found as u64));
            }
            let keep = needle.len().saturating_sub(1).min(window.len());
            let drop = window.len() - keep;
            window.drain(..drop);
            window_offset += drop as u64;
        }
    }
}
