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
    /// bytes after the block): the record was read as declared, reading resumed after it.
    pub damage: Option<ReadError>,
}

struct Current {
    offset: u64,
    addressable: bool,
    cross_members: bool,
    remaining: u64,
    format: FileFormat,
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
                Err(message) => return Err(self.skip_arc_garbage(offset, message, cross_members)),
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
            format,
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
            let chunk = self.fill(cross)?;
            if chunk.is_empty() {
                return Ok(if line.is_empty() { None } else { Some(line) });
            }
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
        if self.fill(cross)?.is_empty() {
            let error = ReadError::new(
                offset,
                format!("record block ends {remaining} bytes before its Content-Length"),
            );
            self.current = None;
            return Err(self.resync_after(error, offset));
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
        let Some(current) = self.current.take() else {
            return Err(ReadError::new(0, "no record in progress"));
        };
        let block_end = self.source.decoded_pos();
        let trailer = self.read_trailer(&current)?;
        let mut end = RecordEnd {
            span: RecordSpan {
                offset: current.offset,
                length: None,
            },
            trailer,
            damage: None,
        };
        if !self.source.is_gzip() {
            // Plain files: the length runs to the end of the block, as warcio counts it.
            end.span.length = Some(block_end - current.offset);
            end.damage = self.check_plain_continuation(&current, &end.trailer);
            return Ok(end);
        }
        match self.source.boundary().map_err(|e| self.source_error(e))? {
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

    fn read_trailer(&mut self, current: &Current) -> Result<Vec<u8>, ReadError> {
        let mut trailer = Vec::with_capacity(4);
        while trailer.len() < 4 {
            let chunk = self.fill(current.cross_members)?;
            match chunk.first() {
                Some(&byte @ (b'\r' | b'\n')) => {
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
