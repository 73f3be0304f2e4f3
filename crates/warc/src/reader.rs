//! Streaming record reader: WARC 0.17–1.1 and ARC v1/v2, gzip-per-record, plain, or
//! whole-file gzip; every record with its byte offset and length, bodies streamed.

use std::fs::File;
use std::io::{self, BufRead, Read, Seek};
use std::path::Path;

use super::arc;
use super::header::{WarcHeader, parse_header_block};
use super::record::HttpProbe;
use super::source::{Source, SourceError};

/// Longest header block accepted before the record is treated as damaged.
const MAX_HEADER_BYTES: usize = 1024 * 1024;

/// The container format of the file being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// WARC records.
    Warc,
    /// ARC records (converted to WARC-style headers, version `ARC`).
    Arc,
}

/// A problem found while reading, located by byte offset in the file.
#[derive(Debug, Clone, thiserror::Error)]
#[error("offset {offset}: {message}")]
pub struct ReadError {
    /// Offset in the file where the problem was found (the damaged record or member).
    pub offset: u64,
    /// What is wrong, and where reading resumed.
    pub message: String,
}

impl ReadError {
    fn new(offset: u64, message: impl Into<String>) -> Self {
        Self {
            offset,
            message: message.into(),
        }
    }
}

impl From<ReadError> for io::Error {
    fn from(error: ReadError) -> Self {
        io::Error::new(io::ErrorKind::InvalidData, error)
    }
}

/// Where a record lies in its file, known once the record has been read to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordSpan {
    /// Offset of the record (of its gzip member, for gzip files).
    pub offset: u64,
    /// Bytes from `offset` to the end of the record (its gzip member, for gzip files);
    /// `None` when the file is gzipped as a whole and records are not addressable.
    pub length: Option<u64>,
}

/// What the reader saw after a record's block.
#[derive(Debug, Clone)]
pub struct RecordEnd {
    /// Where the record lies.
    pub span: RecordSpan,
    /// The bytes that followed the block (normally `\r\n\r\n`; `\n` for ARC).
    pub trailer: Vec<u8>,
    /// Damage found at the end of an otherwise complete record (a wrong Content-Length, or
    /// bytes after the block), or the file cut inside it: the record was read as far as
    /// its bytes go, reading resumed after it.
    pub damage: Option<ReadError>,
    /// Bytes of the block missing because the file ends inside the record (0 when only the
    /// record end or the gzip trailer is missing); `None` for a record read to its end.
    /// Such a record is kept, as warcio and cdxj-indexer keep it: its span runs to the end
    /// of the file.
    pub cut_short: Option<u64>,
    /// Further gzip members the record went on in after its first (0 for a record in one
    /// member): such a record is read as one stream, as decompressing the file would read
    /// it; WARC recommends one member per record.
    pub split_members: u64,
}

struct Current {
    offset: u64,
    addressable: bool,
    cross_members: bool,
    remaining: u64,
    /// The block length the header declares.
    declared: u64,
    format: FileFormat,
    /// Block bytes missing because the file ends inside the record (see [`RecordEnd::cut_short`]).
    cut_short: Option<u64>,
}

/// Where the bytes of a record being read ran out.
enum Exhausted {
    /// More bytes are available.
    No,
    /// At the end of a gzip member followed by another record (or by something that is not
    /// a gzip member).
    MemberEnd,
    /// At the end of the file, or inside a gzip member the file cuts short (the error
    /// saying so).
    FileEnd(Option<SourceError>),
}

/// Reads records one after another from a WARC or ARC file.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut reader = ldwarc_warc::WarcReader::open("example.warc.gz")?;
/// while let Some(record) = reader.next_record() {
///     let mut record = record?;
///     let mut body = Vec::new();
///     std::io::Read::read_to_end(&mut record, &mut body)?;
///     let end = record.finish()?;
///     println!("{} {:?}", end.span.offset, record_type(&end));
/// }
/// # fn record_type(_: &ldwarc_warc::RecordEnd) {}
/// # Ok(()) }
/// ```
pub struct WarcReader<R> {
    source: Source<R>,
    format: Option<FileFormat>,
    current: Option<Current>,
    whole_file_gzip: bool,
    finished: bool,
    /// Further gzip members the record being read went on in (see
    /// [`RecordEnd::split_members`]).
    members_crossed: u64,
}

impl WarcReader<File> {
    /// Opens a file for reading.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::new(File::open(path)?)
    }
}

impl<R: Read + Seek> WarcReader<R> {
    /// Reads from `inner`, starting at its current position.
    pub fn new(inner: R) -> io::Result<Self> {
        Ok(Self {
            source: Source::new(inner)?,
            format: None,
            current: None,
            whole_file_gzip: false,
            finished: false,
            members_crossed: 0,
        })
    }

    /// Reads starting at `offset` (for random access to one record).
    pub fn at_offset(mut inner: R, offset: u64) -> io::Result<Self> {
        inner.seek(io::SeekFrom::Start(offset))?;
        Self::new(inner)
    }

    /// Reads starting at `offset` with buffers sized for one record of about
    /// `record_length` bytes as stored (0: not known): for reading one record at a time, as
    /// replay does, where most records are a few KiB. The first read takes the record and
    /// little more (at most 16 KiB); a longer record is read on in further reads.
    pub fn at_offset_for_record(mut inner: R, offset: u64, record_length: u64) -> io::Result<Self> {
        const MAX_BUFFER: usize = 16 * 1024;
        let stored = usize::try_from(record_length)
            .ok()
            .filter(|&length| length > 0)
            .map_or(MAX_BUFFER, |length| length.min(MAX_BUFFER));
        // Decompressed records are a few times their stored size.
        let decoded = stored.saturating_mul(4).min(MAX_BUFFER);
        inner.seek(io::SeekFrom::Start(offset))?;
        Ok(Self {
            source: Source::with_buffers(inner, stored, decoded)?,
            format: None,
            current: None,
            whole_file_gzip: false,
            finished: false,
            members_crossed: 0,
        })
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.source.is_gzip()
    }

    /// True once records were found sharing a gzip member (a whole-file gzip): their
    /// offsets are then positions in the decompressed stream and cannot be used to seek.
    pub fn is_whole_file_gzip(&self) -> bool {
        self.whole_file_gzip
    }

    /// The format detected from the first record, once one was read.
    pub fn format(&self) -> Option<FileFormat> {
        self.format
    }

    /// The next record, an error about damage (after which reading resumes at the next
    /// intact record), or `None` at the end of the file.
    pub fn next_record(&mut self) -> Option<Result<Record<'_, R>, ReadError>> {
        if self.finished {
            return None;
        }
        if self.current.is_some()
            && let Err(error) = self.finish_current()
        {
            return Some(Err(error));
        }
        if self.finished {
            // The record just finished was cut short by the end of the file.
            return None;
        }
        match self.begin_record() {
            Ok(Some(header)) => Some(Ok(Record {
                header,
                offset: self.current.as_ref().map_or(0, |c| c.offset),
                reader: self,
                http: HttpProbe::default(),
            })),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(error) => Some(Err(error)),
        }
    }

    fn begin_record(&mut self) -> Result<Option<WarcHeader>, ReadError> {
        self.members_crossed = 0;
        let (offset, addressable) = match self.locate_record_start()? {
            Some(start) => start,
            None => return Ok(None),
        };
        let cross_members = !addressable || self.whole_file_gzip;
        let first_line = match self.read_line(cross_members, offset)? {
            Some(line) => line,
            None => return Ok(None),
        };
        let format = match self.format {
            Some(format) => format,
            None => {
                let format = if first_line.starts_with(b"WARC/") {
                    FileFormat::Warc
                } else if first_line.starts_with(b"filedesc:")
                    || arc::looks_like_arc_header(&first_line)
                {
                    // An ARC file starts with `filedesc:`; a reader opened at the offset of
                    // a later ARC record (random access) sees that record's header line.
                    FileFormat::Arc
                } else {
                    let message = match super::sniff::foreign_compression(&first_line) {
                        Some(name) => format!(
                            "not a WARC or ARC record: the file is {name}-compressed, which \
                             ldwarc does not read (decompress it, or recompress it with gzip)"
                        ),
                        None => format!(
                            "not a WARC or ARC record: starts with {:?}",
                            preview(&first_line)
                        ),
                    };
                    let error = ReadError::new(offset, message);
                    return Err(self.resync_after(error, offset));
                };
                self.format = Some(format);
                format
            }
        };
        let header = match format {
            FileFormat::Warc => self.read_warc_header(first_line, cross_members, offset),
            FileFormat::Arc => match arc::parse_arc_header_line(&first_line) {
                Ok(header) => Ok(header),
                Err(error) => {
                    return Err(self.skip_arc_garbage(offset, error.to_string(), cross_members));
                }
            },
        };
        let header = match header {
            Ok(header) => header,
            Err(error) => return Err(self.resync_after(error, offset)),
        };
        let Some(mut remaining) = header.content_length() else {
            let error = ReadError::new(offset, "record has no valid Content-Length");
            return Err(self.resync_after(error, offset));
        };
        if format == FileFormat::Arc && header.record_type() == Some("warcinfo") {
            // An ARC `filedesc` block always holds the version and field-spec lines, even
            // when the declared length stops short of them (example.arc declares 75 bytes
            // for 76 bytes of lines; bad.arc declares -1). warcio and pywb read both lines
            // whole, and so does ldwarc, so offsets and lengths agree with theirs.
            if let Some(lines) = self.peek_lines_len(2, cross_members)? {
                remaining = remaining.max(lines);
            }
        }
        self.current = Some(Current {
            offset,
            addressable,
            cross_members,
            remaining,
            declared: remaining,
            format,
            cut_short: None,
        });
        Ok(Some(header))
    }

    /// Finds where the next record starts: `(offset, addressable)`, or `None` at the end.
    fn locate_record_start(&mut self) -> Result<Option<(u64, bool)>, ReadError> {
        loop {
            let boundary = self.source.boundary().map_err(|e| self.source_error(e))?;
            let Some(raw) = boundary else {
                self.whole_file_gzip = true;
                self.skip_blank_bytes(true)?;
                if self.fill(true)?.is_empty() {
                    return Ok(None);
                }
                return Ok(Some((self.source.decoded_pos(), false)));
            };
            if self.source.is_gzip() {
                match self.source.begin_member() {
                    Ok(true) => {}
                    Ok(false) => return Ok(None),
                    Err(SourceError::NotGzip { offset }) if self.trailing_padding(offset)? => {
                        return Ok(None);
                    }
                    Err(error) => return Err(self.source_error(error)),
                }
                // An empty member, or one holding only blank lines, is skipped.
                self.skip_blank_bytes(false)?;
                if self.fill(false)?.is_empty() {
                    continue;
                }
                return Ok(Some((raw, true)));
            }
            self.skip_blank_bytes(false)?;
            let raw = self.source.boundary().map_err(|e| self.source_error(e))?;
            if self.fill(false)?.is_empty() {
                return Ok(None);
            }
            return Ok(raw.map(|raw| (raw, true)));
        }
    }

    /// Whether everything from `offset` to the end of the file is zero bytes or whitespace
    /// (padding some tools leave), which ends the file cleanly.
    fn trailing_padding(&mut self, offset: u64) -> Result<bool, ReadError> {
        self.source
            .is_padding_from(offset)
            .map_err(|e| ReadError::new(offset, format!("read error: {e}")))
    }

    fn fill(&mut self, cross: bool) -> Result<&[u8], ReadError> {
        match self.source.fill_buf(cross) {
            Ok(_) => {}
            Err(error) => return Err(self.source_error(error)),
        }
        self.source.fill_buf(cross).map_err(|_| unreachable_error())
    }

    fn skip_blank_bytes(&mut self, cross: bool) -> Result<(), ReadError> {
        loop {
            let chunk = self.fill(cross)?;
            if chunk.is_empty() {
                return Ok(());
            }
            let blank = chunk
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
            let whole = blank == chunk.len();
            self.source.consume(blank);
            if !whole {
                return Ok(());
            }
        }
    }

    /// Reads one line including its LF; `None` at end of data.
    fn read_line(&mut self, cross: bool, offset: u64) -> Result<Option<Vec<u8>>, ReadError> {
        let mut line = Vec::new();
        loop {
            if self.fill(cross)?.is_empty() {
                // A header some writer split over two gzip members goes on in the next.
                if !cross && self.next_member_continues()? {
                    continue;
                }
                return Ok(if line.is_empty() { None } else { Some(line) });
            }
            let chunk = self.fill(cross)?;
            match memchr::memchr(b'\n', chunk) {
                Some(end) => {
                    line.extend_from_slice(&chunk[..=end]);
                    self.source.consume(end + 1);
                    return Ok(Some(line));
                }
                None => {
                    line.extend_from_slice(chunk);
                    let n = chunk.len();
                    self.source.consume(n);
                }
            }
            if line.len() > MAX_HEADER_BYTES {
                let error = ReadError::new(offset, "header line longer than 1 MiB");
                return Err(self.resync_after(error, offset));
            }
        }
    }

    /// After an ARC line that is not a record header, skips lines up to the next one that
    /// is, so reading continues there; returns the error describing what was skipped.
    fn skip_arc_garbage(&mut self, offset: u64, message: String, cross: bool) -> ReadError {
        let mut skipped = 0usize;
        loop {
            let at = self.source.decoded_pos();
            let line = match self.peek_line(cross) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(error) => return error,
            };
            if arc::looks_like_arc_header(&line) || skipped > MAX_HEADER_BYTES {
                return ReadError::new(offset, format!("{message}; skipped to offset {at}"));
            }
            skipped += line.len();
            self.source.consume(line.len());
        }
        ReadError::new(offset, format!("{message}; no further records"))
    }

    /// The length of the next `count` lines (LF included) without consuming them, when the
    /// buffer holds all of them.
    fn peek_lines_len(&mut self, count: usize, cross: bool) -> Result<Option<u64>, ReadError> {
        let chunk = self.fill(cross)?;
        let mut end = 0;
        for _ in 0..count {
            match memchr::memchr(b'\n', &chunk[end..]) {
                Some(newline) => end += newline + 1,
                None => return Ok(None),
            }
        }
        Ok(Some(end as u64))
    }

    /// The next line (up to 64 KiB) without consuming it, when the buffer holds all of it.
    fn peek_line(&mut self, cross: bool) -> Result<Option<Vec<u8>>, ReadError> {
        let chunk = self.fill(cross)?;
        if chunk.is_empty() {
            return Ok(None);
        }
        let end = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |i| i + 1);
        Ok(Some(chunk[..end.min(64 * 1024)].to_vec()))
    }

    fn read_warc_header(
        &mut self,
        first_line: Vec<u8>,
        cross: bool,
        offset: u64,
    ) -> Result<WarcHeader, ReadError> {
        let mut block = first_line;
        loop {
            let Some(line) = self.read_line(cross, offset)? else {
                return Err(ReadError::new(
                    offset,
                    "record header ends before its blank line",
                ));
            };
            if line.iter().all(|b| matches!(b, b'\r' | b'\n')) {
                break;
            }
            block.extend_from_slice(&line);
            if block.len() > MAX_HEADER_BYTES {
                return Err(ReadError::new(offset, "record header larger than 1 MiB"));
            }
        }
        parse_header_block(&block).map_err(|e| ReadError::new(offset, format!("{e:?}")))
    }

    /// Reads block bytes of the current record into `buf`.
    fn read_block(&mut self, buf: &mut [u8]) -> Result<usize, ReadError> {
        let chunk = self.block_chunk()?;
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        self.consume_block(n);
        Ok(n)
    }

    /// The next block bytes of the current record, straight from the decoder's buffer.
    fn block_chunk(&mut self) -> Result<&[u8], ReadError> {
        let Some(current) = self.current.as_ref() else {
            return Ok(&[]);
        };
        if current.remaining == 0 {
            return Ok(&[]);
        }
        let (cross, remaining, offset) = (current.cross_members, current.remaining, current.offset);
        match self.exhausted(cross)? {
            Exhausted::No => {}
            Exhausted::FileEnd(_) if self.cut_short_here(offset)? => {
                if let Some(current) = self.current.as_mut() {
                    current.cut_short = Some(remaining);
                    current.remaining = 0;
                }
                return Ok(&[]);
            }
            Exhausted::FileEnd(Some(error)) => return Err(self.source_error(error)),
            Exhausted::MemberEnd | Exhausted::FileEnd(None) => {
                let error = ReadError::new(
                    offset,
                    format!("record block ends {remaining} bytes before its Content-Length"),
                );
                self.current = None;
                return Err(self.resync_after(error, offset));
            }
        }
        let chunk = self
            .source
            .fill_buf(cross)
            .map_err(|_| unreachable_error())?;
        let n = chunk
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        Ok(&chunk[..n])
    }

    /// Whether the current record's bytes ran out here, continuing into the next gzip member
    /// when the record goes on there.
    fn exhausted(&mut self, cross: bool) -> Result<Exhausted, ReadError> {
        loop {
            match self.source.fill_buf(cross) {
                Ok([]) => {}
                Ok(_) => return Ok(Exhausted::No),
                Err(error @ SourceError::Truncated { .. }) => {
                    return Ok(Exhausted::FileEnd(Some(error)));
                }
                Err(error) => return Err(self.source_error(error)),
            }
            if !self.source.is_gzip() || cross {
                return Ok(Exhausted::FileEnd(None));
            }
            if self.next_member_continues()? {
                continue;
            }
            return Ok(if self.source.at_end().map_err(|e| self.source_error(e))? {
                Exhausted::FileEnd(None)
            } else {
                Exhausted::MemberEnd
            });
        }
    }

    /// At the end of a gzip member inside a record: whether the next member goes on with
    /// the record (some writers split a record over several members; decompressed they are
    /// one stream, as warcio and fastwarc read them) rather than starting the next record.
    /// If so, the reader is inside that member; if not, it is left at the member boundary.
    fn next_member_continues(&mut self) -> Result<bool, ReadError> {
        if !self.source.is_gzip() {
            return Ok(false);
        }
        // While the first line of a file is read its format is not known yet.
        let format = self.format.unwrap_or(FileFormat::Warc);
        let Some(raw) = self.source.boundary().map_err(|e| self.source_error(e))? else {
            return Ok(false);
        };
        let continues = match self.source.begin_member() {
            Ok(true) => match self.source.fill_buf(false) {
                Ok([]) | Err(_) => false,
                Ok(next) => match format {
                    FileFormat::Warc => {
                        !(next.starts_with(b"WARC/")
                            || (next.len() < 5 && b"WARC/".starts_with(next)))
                    }
                    FileFormat::Arc => {
                        let line = memchr::memchr(b'\n', next).map_or(next, |end| &next[..=end]);
                        !arc::looks_like_arc_header(line)
                    }
                },
            },
            Ok(false) | Err(_) => false,
        };
        if continues {
            self.members_crossed += 1;
            return Ok(true);
        }
        // Whatever follows is read (or reported) as what comes after this record.
        self.source
            .seek_raw(raw)
            .map_err(|e| ReadError::new(raw, format!("read error: {e}")))?;
        Ok(false)
    }

    /// The file ends inside the record at `offset`: whether to keep it cut short (no later
    /// record is found in what was read as its block, or as its gzip member: damaged deflate
    /// data can run on over the members after it) rather than report it and resume at that
    /// later record. If kept, the reader stays at the end of the file.
    fn cut_short_here(&mut self, offset: u64) -> Result<bool, ReadError> {
        if self.whole_file_gzip {
            return Ok(true);
        }
        let here = self.source.raw_read_end();
        let later = self
            .find_next_record_start(offset + 1)
            .map_err(|e| ReadError::new(offset, format!("read error: {e}")))?;
        self.source
            .seek_raw(here)
            .map_err(|e| ReadError::new(here, format!("read error: {e}")))?;
        Ok(later.is_none())
    }

    fn consume_block(&mut self, amount: usize) {
        if let Some(current) = self.current.as_mut() {
            let amount = amount.min(usize::try_from(current.remaining).unwrap_or(usize::MAX));
            current.remaining -= amount as u64;
            self.source.consume(amount);
        }
    }

    /// Skips what is left of the current record and checks how it ends.
    fn finish_current(&mut self) -> Result<RecordEnd, ReadError> {
        while self.current.as_ref().is_some_and(|c| c.remaining > 0) {
            let n = self.block_chunk()?.len();
            self.consume_block(n);
        }
        let Some(mut current) = self.current.take() else {
            return Err(ReadError::new(0, "no record in progress"));
        };
        let block_end = self.source.decoded_pos();
        let trailer = if current.cut_short.is_some() {
            Vec::new()
        } else {
            self.read_trailer(&mut current)?
        };
        // Where the record's gzip member ends (`None` inside it); a member whose data is
        // whole but whose trailer the file cuts off still ends the file inside the record.
        let mut member_end = None;
        if current.cut_short.is_none() && self.source.is_gzip() {
            match self.source.boundary() {
                Ok(boundary) => member_end = Some(boundary),
                Err(SourceError::Truncated { .. }) if self.cut_short_here(current.offset)? => {
                    current.cut_short = Some(0);
                }
                Err(error) => return Err(self.source_error(error)),
            }
        }
        let mut end = RecordEnd {
            span: RecordSpan {
                offset: current.offset,
                length: None,
            },
            trailer,
            damage: None,
            cut_short: current.cut_short,
            split_members: std::mem::take(&mut self.members_crossed),
        };
        if let Some(missing) = current.cut_short {
            // Nothing follows: the record runs to the end of the file, as warcio counts it.
            self.finished = true;
            if current.addressable && !self.whole_file_gzip {
                end.span.length = Some(self.source.raw_read_end().saturating_sub(current.offset));
            }
            let inside = if self.source.is_gzip() {
                " inside its gzip member"
            } else {
                ""
            };
            let message = if missing == 0 {
                format!(
                    "record is truncated: the file ends{inside} after its block, without the \
                     record's end"
                )
            } else {
                format!(
                    "record is truncated: the file ends{inside} {missing} bytes before the end \
                     of its block (Content-Length {}); read as far as its bytes go",
                    current.declared
                )
            };
            end.damage = Some(ReadError::new(current.offset, message));
            return Ok(end);
        }
        if !self.source.is_gzip() {
            // Plain files: the length runs to the end of the block, as warcio counts it.
            end.span.length = Some(block_end - current.offset);
            end.damage = self.check_plain_continuation(&current, &end.trailer);
            return Ok(end);
        }
        match member_end.flatten() {
            Some(member_end) if current.addressable => {
                end.span.length = Some(member_end - current.offset);
            }
            Some(_) => {}
            None => self.end_inside_member(&current, &mut end)?,
        }
        Ok(end)
    }

    /// A record ended inside a gzip member: either the file is gzipped as a whole (the next
    /// record follows in the same member) or the Content-Length was too small.
    fn end_inside_member(
        &mut self,
        current: &Current,
        end: &mut RecordEnd,
    ) -> Result<(), ReadError> {
        let next = self.fill(false)?;
        let next_record = match current.format {
            FileFormat::Warc => next.starts_with(b"WARC/"),
            FileFormat::Arc => !next.is_empty(),
        };
        if next_record {
            self.whole_file_gzip = true;
            return Ok(());
        }
        let mut extra = 0u64;
        loop {
            let n = self.fill(false)?.len();
            if n == 0 {
                break;
            }
            extra += n as u64;
            self.source.consume(n);
        }
        if current.addressable
            && let Some(member_end) = self.source.boundary().map_err(|e| self.source_error(e))?
        {
            end.span.length = Some(member_end - current.offset);
        }
        end.damage = Some(ReadError::new(
            current.offset,
            format!(
                "{extra} unexpected bytes after the record block inside its gzip member \
                 (Content-Length too small?)"
            ),
        ));
        Ok(())
    }

    fn read_trailer(&mut self, current: &mut Current) -> Result<Vec<u8>, ReadError> {
        let mut trailer = Vec::with_capacity(4);
        while trailer.len() < 4 {
            let next = self
                .source
                .fill_buf(current.cross_members)
                .map(|chunk| chunk.first().copied());
            let first = match next {
                Ok(first) => first,
                Err(SourceError::Truncated { .. }) if self.cut_short_here(current.offset)? => {
                    // The block is whole; the file ends inside the member after it.
                    current.cut_short = Some(0);
                    break;
                }
                Err(error) => return Err(self.source_error(error)),
            };
            match first {
                Some(byte @ (b'\r' | b'\n')) => {
                    trailer.push(byte);
                    self.source.consume(1);
                }
                _ => break,
            }
        }
        Ok(trailer)
    }

    /// In a plain file the next bytes must start a record (or the file must end); if not,
    /// the damage is described and reading resumes at the next record.
    fn check_plain_continuation(&mut self, current: &Current, trailer: &[u8]) -> Option<ReadError> {
        if let Err(error) = self.skip_blank_bytes(false) {
            return Some(error);
        }
        let next = match self.fill(false) {
            Ok(next) => next,
            Err(error) => return Some(error),
        };
        let looks_like_record = match current.format {
            FileFormat::Warc => {
                next.starts_with(b"WARC/") || (next.len() < 5 && b"WARC/".starts_with(next))
            }
            FileFormat::Arc => true,
        };
        if next.is_empty() || looks_like_record {
            return None;
        }
        let at = self.source.decoded_pos();
        let error = ReadError::new(
            current.offset,
            format!(
                "record block is not followed by a record end (found {:?} after it); \
                 Content-Length wrong or garbage at offset {at}",
                preview(trailer)
            ),
        );
        Some(self.resync_after(error, current.offset))
    }

    fn source_error(&mut self, error: SourceError) -> ReadError {
        let offset = error.offset();
        let read_error = ReadError::new(offset, error.describe());
        self.current = None;
        if let SourceError::Io { .. } = error {
            self.finished = true;
            return read_error;
        }
        self.resync_after(read_error, offset)
    }

    /// Moves past damage at `offset` to the next place a record can start, and says where
    /// reading resumes in the error message.
    fn resync_after(&mut self, mut error: ReadError, offset: u64) -> ReadError {
        self.current = None;
        match self.find_next_record_start(offset + 1) {
            Ok(Some(resume)) => {
                error
                    .message
                    .push_str(&format!("; resuming at offset {resume}"));
                if let Err(e) = self.source.seek_raw(resume) {
                    error.message.push_str(&format!(" (seek failed: {e})"));
                    self.finished = true;
                }
            }
            Ok(None) => {
                // The error may already say so (a header that ran to the end of the file).
                if !error.message.ends_with("; no further records") {
                    error.message.push_str("; no further records");
                }
                self.finished = true;
            }
            Err(e) => {
                error
                    .message
                    .push_str(&format!("; cannot read further: {e}"));
                self.finished = true;
            }
        }
        error
    }

    /// The next raw offset at or after `from` where an intact record seems to start.
    fn find_next_record_start(&mut self, from: u64) -> io::Result<Option<u64>> {
        if self.whole_file_gzip {
            return Ok(None);
        }
        let mut from = from;
        loop {
            let candidate = match (self.source.is_gzip(), self.format) {
                (true, _) => self.source.find_raw(from, &[0x1f, 0x8b, 0x08])?,
                (false, Some(FileFormat::Arc)) => None,
                // A record starts with a `WARC/<major>.<minor>` line (not necessarily
                // after a newline: garbage before it may end anywhere).
                (false, _) => self.source.find_raw(from, b"WARC/")?,
            };
            let Some(candidate) = candidate else {
                return Ok(None);
            };
            let starts_record = if self.source.is_gzip() {
                self.member_starts_record(candidate)?
            } else {
                is_version_line(&self.source.peek_raw_at(candidate, 32)?)
            };
            if starts_record {
                return Ok(Some(candidate));
            }
            from = candidate + 1;
        }
    }

    /// Whether the gzip member at `offset` decodes to the start of a record.
    fn member_starts_record(&mut self, offset: u64) -> io::Result<bool> {
        self.source.seek_raw(offset)?;
        match self.source.begin_member() {
            Ok(true) => {}
            _ => return Ok(false),
        }
        let mut head = Vec::new();
        while head.len() < 16 {
            match self.source.fill_buf(false) {
                Ok([]) => break,
                Ok(chunk) => {
                    let n = chunk.len().min(16 - head.len());
                    head.extend_from_slice(&chunk[..n]);
                    self.source.consume(n);
                }
                Err(_) => return Ok(false),
            }
        }
        Ok(match self.format {
            Some(FileFormat::Arc) => !head.is_empty() && !head.starts_with(b"WARC/"),
            _ => head.starts_with(b"WARC/"),
        })
    }
}

/// Whether `bytes` start with a WARC version line: `WARC/` digits `.` digits, then CRLF or LF.
fn is_version_line(bytes: &[u8]) -> bool {
    let Some(rest) = bytes.strip_prefix(b"WARC/") else {
        return false;
    };
    let digits = |b: &[u8]| b.iter().take_while(|c| c.is_ascii_digit()).count();
    let major = digits(rest);
    if major == 0 || rest.get(major) != Some(&b'.') {
        return false;
    }
    let rest = &rest[major + 1..];
    let minor = digits(rest);
    minor > 0 && (rest[minor..].starts_with(b"\r\n") || rest[minor..].starts_with(b"\n"))
}

fn unreachable_error() -> ReadError {
    ReadError::new(0, "internal: buffer state changed between reads")
}

fn preview(bytes: &[u8]) -> String {
    let end = bytes.len().min(40);
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// One record being read: its header, and its block as a [`Read`] stream.
pub struct Record<'a, R> {
    /// The record header (for ARC records, WARC-style fields derived from the ARC header line).
    pub header: WarcHeader,
    /// Offset of the record in the file (see [`RecordSpan`]).
    pub offset: u64,
    reader: &'a mut WarcReader<R>,
    /// The HTTP head, once looked for by [`Record::http`].
    pub(crate) http: HttpProbe,
}

impl<R: Read + Seek> Record<'_, R> {
    /// Block bytes not read yet.
    pub fn remaining(&self) -> u64 {
        self.reader.current.as_ref().map_or(0, |c| c.remaining)
    }

    /// Block bytes missing because the file ends inside this record, once reading the
    /// block reached the cut (see [`RecordEnd::cut_short`]): the block read is then shorter
    /// than its Content-Length.
    pub fn cut_short(&self) -> Option<u64> {
        self.reader.current.as_ref().and_then(|c| c.cut_short)
    }

    /// Skips the rest of the block and returns where the record ends.
    pub fn finish(self) -> Result<RecordEnd, ReadError> {
        self.reader.finish_current()
    }
}

impl<R: Read + Seek> Read for Record<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read_block(buf).map_err(io::Error::from)
    }
}

/// Block bytes without copying: `fill_buf` hands out the decoder's own buffer.
impl<R: Read + Seek> BufRead for Record<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.block_chunk().map_err(io::Error::from)
    }

    fn consume(&mut self, amount: usize) {
        self.reader.consume_block(amount);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Write};

    fn record(uri: &str, body: &[u8]) -> Vec<u8> {
        let mut bytes = format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:{uri}>\r\n\
             WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: {uri}\r\n\
             Content-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        encoder.write_all(bytes).expect("compress to memory");
        encoder.finish().expect("compress to memory")
    }

    /// Every record read: (offset, target URI, block, end), and every error.
    type Seen = (u64, String, Vec<u8>, RecordEnd);

    fn read_all(bytes: &[u8]) -> (Vec<Seen>, Vec<ReadError>) {
        let mut reader = WarcReader::new(Cursor::new(bytes.to_vec())).expect("reader");
        let (mut records, mut errors) = (Vec::new(), Vec::new());
        while let Some(next) = reader.next_record() {
            let mut record = match next {
                Ok(record) => record,
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            };
            let uri = record.header.target_uri().unwrap_or("").to_string();
            let mut block = Vec::new();
            if let Err(error) = io::Read::read_to_end(&mut record, &mut block) {
                errors.push(ReadError::new(0, error.to_string()));
                continue;
            }
            let offset = record.offset;
            match record.finish() {
                Ok(end) => records.push((offset, uri, block, end)),
                Err(error) => errors.push(error),
            }
        }
        (records, errors)
    }

    const BODY: &[u8] = b"<http://a.example/s> <http://a.example/p> \"a value long enough\" .\n";

    /// A record some writer split over two gzip members, at every byte of it: read as one
    /// record spanning both members, the records around it untouched.
    #[test]
    fn a_record_split_over_two_gzip_members_is_one_record() {
        let first = gzip(&record("http://a.example/1", BODY));
        let middle = record("http://a.example/2", BODY);
        let last = gzip(&record("http://a.example/3", BODY));
        for cut in 1..middle.len() {
            let (head, tail) = (gzip(&middle[..cut]), gzip(&middle[cut..]));
            let mut file = first.clone();
            for part in [&head, &tail, &last] {
                file.extend_from_slice(part);
            }
            let (records, errors) = read_all(&file);
            assert!(errors.is_empty(), "cut {cut}: {errors:?}");
            let seen: Vec<(u64, Option<u64>, &str)> = records
                .iter()
                .map(|(offset, uri, _, end)| (*offset, end.span.length, uri.as_str()))
                .collect();
            let split_at = first.len() as u64;
            // Cut inside the record end, the block is whole in the first member: the
            // record ends there and the second member holds only line ends (skipped).
            let block_end = middle.len() - 4;
            let middle_length = if cut >= block_end {
                head.len()
            } else {
                head.len() + tail.len()
            } as u64;
            assert_eq!(
                seen,
                vec![
                    (0, Some(first.len() as u64), "http://a.example/1"),
                    (split_at, Some(middle_length), "http://a.example/2"),
                    (
                        split_at + (head.len() + tail.len()) as u64,
                        Some(last.len() as u64),
                        "http://a.example/3"
                    ),
                ],
                "cut {cut}"
            );
            assert!(
                records.iter().all(|(_, _, block, _)| block == BODY),
                "cut {cut}"
            );
            assert_eq!(
                records[1].3.split_members,
                u64::from(cut < block_end),
                "cut {cut}"
            );
            assert!(records.iter().all(|r| r.3.cut_short.is_none()));
        }
    }

    /// A record's member followed by a member that starts a record: the short block is
    /// damage, the next record is read (not taken for the rest of the block).
    #[test]
    fn a_member_that_starts_a_record_does_not_continue_the_one_before() {
        let mut short = record("http://a.example/1", BODY);
        let at = short.len() - BODY.len() - 4;
        short.truncate(at + 10);
        let mut file = gzip(&short);
        let second_at = file.len() as u64;
        file.extend(gzip(&record("http://a.example/2", BODY)));
        let (records, errors) = read_all(&file);
        assert_eq!(records.len(), 1, "{errors:?}");
        assert_eq!(records[0].0, second_at);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].offset, 0);
        assert!(
            errors[0].message.contains("before its Content-Length"),
            "{errors:?}"
        );
    }

    /// What a decoder makes of the start of a gzip member (as much as it can decode).
    fn gunzip_prefix(bytes: &[u8]) -> Vec<u8> {
        let mut decoded = Vec::new();
        let _ = io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut decoded);
        decoded
    }

    /// The file ends inside the last record's block: the record is kept with the bytes
    /// there are, its span running to the end of the file, and said to be truncated.
    #[test]
    fn a_record_cut_short_by_the_end_of_the_file_is_kept() {
        let first = record("http://a.example/1", BODY);
        let second = record("http://a.example/2", BODY);
        let header_len = second.len() - BODY.len() - 4;
        let member = gzip(&second);
        let cases = [
            (false, header_len + 1),
            (false, header_len + 20),
            (false, second.len() - 5),
            (true, member.len() - 30),
            (true, member.len() - 20),
            (true, member.len() - 9),
            (true, member.len() - 1),
        ];
        for (gzipped, kept) in cases {
            let (mut file, tail, decoded) = if gzipped {
                (gzip(&first), &member, gunzip_prefix(&member[..kept]))
            } else {
                (first.clone(), &second, second[..kept].to_vec())
            };
            assert!(
                decoded.len() > header_len,
                "{gzipped} {kept}: the header is whole"
            );
            let expected_block = &decoded[header_len..decoded.len().min(header_len + BODY.len())];
            let second_at = file.len() as u64;
            file.extend_from_slice(&tail[..kept]);
            let (records, errors) = read_all(&file);
            assert!(errors.is_empty(), "{gzipped} {kept}: {errors:?}");
            assert_eq!(records.len(), 2, "{gzipped} {kept}");
            let (offset, _, block, end) = &records[1];
            assert_eq!(*offset, second_at);
            assert_eq!(end.span.length, Some(file.len() as u64 - second_at));
            assert_eq!(block.as_slice(), expected_block, "{gzipped} {kept}");
            let missing = end.cut_short.expect("cut short");
            assert_eq!(missing, (BODY.len() - block.len()) as u64);
            let damage = end.damage.as_ref().expect("the cut is reported");
            assert_eq!(damage.offset, second_at);
            assert!(damage.message.contains("truncated"), "{damage}");
        }
    }

    /// The whole block is there but the gzip trailer is cut: the record is kept.
    #[test]
    fn a_gzip_member_cut_in_its_trailer_keeps_its_record() {
        let mut file = gzip(&record("http://a.example/1", BODY));
        file.truncate(file.len() - 3);
        let (records, errors) = read_all(&file);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].2, BODY);
        assert_eq!(records[0].3.cut_short, Some(0));
        assert_eq!(records[0].3.span.length, Some(file.len() as u64));
    }

    /// In a plain file a declared length running past later records is damage, not a cut:
    /// reading resumes at the next record.
    #[test]
    fn a_plain_block_running_over_later_records_is_not_a_cut() {
        let first = record("http://a.example/1", BODY);
        let wrong = String::from_utf8(first.clone()).expect("ASCII").replace(
            &format!("Content-Length: {}", BODY.len()),
            "Content-Length: 100000",
        );
        let mut file = wrong.into_bytes();
        let second_at = file.len() as u64;
        file.extend(record("http://a.example/2", BODY));
        let (records, errors) = read_all(&file);
        assert_eq!(records.len(), 1, "{errors:?}");
        assert_eq!(records[0].0, second_at);
        assert!(records[0].3.cut_short.is_none());
        assert_eq!(errors.len(), 1, "{errors:?}");
    }
}
