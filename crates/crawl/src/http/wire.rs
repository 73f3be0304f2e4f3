//! Reading a response off the connection under a deadline: a small buffered reader, the head
//! (bounded by `max_head`), and the body by its framing (bounded by `max_body`), turning every
//! way a body can end early into a [`Truncation`].

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{Instant, timeout_at};

use super::Truncation;
use super::body::Body;
use super::head::{Framing, snippet};
use ldwarc_warc::digest::HeadEndScanner;

/// Bytes asked of the connection per read.
const READ_SIZE: usize = 64 * 1024;
/// Longest chunk-size line (with extensions) we accept.
const MAX_CHUNK_LINE: usize = 8 * 1024;

/// Why no more bytes came.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The peer closed the connection.
    Eof,
    /// The deadline passed.
    Timeout,
    /// The connection failed (reset, TLS error, …).
    Failed(io::Error),
}

/// A buffered reader over a connection whose every read ends at one deadline.
pub(crate) struct Incoming<S> {
    stream: S,
    buf: Vec<u8>,
    pos: usize,
    deadline: Instant,
}

impl<S: AsyncRead + Unpin> Incoming<S> {
    pub fn new(stream: S, deadline: Instant) -> Self {
        Incoming {
            stream,
            buf: Vec::new(),
            pos: 0,
            deadline,
        }
    }

    /// The bytes read but not yet consumed.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    pub fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }

    /// The connection and any bytes read but not consumed.
    pub fn into_parts(self) -> (S, Vec<u8>) {
        let rest = self.buf[self.pos..].to_vec();
        (self.stream, rest)
    }

    /// Reads more bytes into the buffer.
    pub async fn fill(&mut self) -> Result<(), Stop> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos >= READ_SIZE {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.reserve(READ_SIZE);
        match timeout_at(self.deadline, self.stream.read_buf(&mut self.buf)).await {
            Err(_) => Err(Stop::Timeout),
            Ok(Ok(0)) => Err(Stop::Eof),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(Stop::Failed(error)),
        }
    }

    /// The next line without its line end (LF or CRLF); `Ok(None)` when it is longer than `max`.
    async fn read_line(&mut self, max: usize) -> Result<Option<Vec<u8>>, Stop> {
        loop {
            if let Some(newline) = memchr::memchr(b'\n', self.buffered()) {
                let line = self.buffered()[..newline].to_vec();
                self.consume(newline + 1);
                let line = line.strip_suffix(b"\r").map(<[u8]>::to_vec).unwrap_or(line);
                return Ok((line.len() <= max).then_some(line));
            }
            // One byte more than `max` may be the CR of a CRLF whose LF is still coming.
            if self.buffered().len() > max + 1 {
                return Ok(None);
            }
            self.fill().await?;
        }
    }
}

/// Why no response head could be read.
#[derive(Debug)]
pub(crate) enum HeadError {
    Timeout,
    TooLarge,
    /// The connection closed before a single byte came.
    NoResponse,
    Malformed(String),
    Failed(io::Error),
}

/// Reads one response head (status line to empty line) and returns its bytes as received,
/// leaving what follows buffered. Empty lines before the status line are skipped.
pub(crate) async fn read_head<S: AsyncRead + Unpin>(
    incoming: &mut Incoming<S>,
    max_head: usize,
) -> Result<Vec<u8>, HeadError> {
    let mut skipped = 0usize;
    let mut scanned = 0usize;
    let mut scanner = HeadEndScanner::default();
    loop {
        while let Some(b'\r' | b'\n') = incoming.buffered().first() {
            incoming.consume(1);
            skipped += 1;
        }
        let data = incoming.buffered();
        let prefix_len = data.len().min(5);
        if data[..prefix_len] != b"HTTP/"[..prefix_len] {
            return Err(HeadError::Malformed(format!(
                "response does not start with HTTP/: \"{}\"",
                snippet(data)
            )));
        }
        let unscanned = data.get(scanned..).unwrap_or_default();
        if let Some(end) = scanner.feed(unscanned).map(|at| scanned + at) {
            if end + skipped > max_head {
                return Err(HeadError::TooLarge);
            }
            let head = data[..end].to_vec();
            incoming.consume(end);
            return Ok(head);
        }
        if data.len() + skipped > max_head {
            return Err(HeadError::TooLarge);
        }
        scanned = data.len();
        let received = data.len() + skipped;
        match incoming.fill().await {
            Ok(()) => {}
            Err(Stop::Eof) if received == 0 => return Err(HeadError::NoResponse),
            Err(Stop::Eof) => {
                return Err(HeadError::Malformed(format!(
                    "connection closed after {received} bytes, before the end of the response head"
                )));
            }
            Err(Stop::Timeout) => return Err(HeadError::Timeout),
            Err(Stop::Failed(error)) => return Err(HeadError::Failed(error)),
        }
    }
}

/// How a read that stopped early marks the body; `until_close` bodies end normally at EOF, and
/// at a TLS close without `close_notify`, which many servers do.
fn truncation(stop: Stop, until_close: bool) -> Option<Truncation> {
    match stop {
        Stop::Timeout => Some(Truncation::Time),
        Stop::Eof if until_close => None,
        Stop::Failed(error) if until_close && error.kind() == io::ErrorKind::UnexpectedEof => None,
        Stop::Eof | Stop::Failed(_) => Some(Truncation::Disconnect),
    }
}

/// Reads the body after a head into `body`, never more than `max_body` bytes. Returns how the
/// body was cut short, if it was; the only error is failing to store the bytes.
pub(crate) async fn read_body<S: AsyncRead + Unpin>(
    incoming: &mut Incoming<S>,
    framing: Framing,
    max_body: u64,
    body: &mut Body,
) -> io::Result<Option<Truncation>> {
    match framing {
        Framing::None => Ok(None),
        Framing::Length(length) => {
            let copied = copy_exact(incoming, length.min(max_body), body).await?;
            Ok(copied
                .err()
                .or((length > max_body).then_some(Truncation::Length)))
        }
        Framing::UntilClose => read_until_close(incoming, max_body, body).await,
        Framing::Chunked => read_chunked(incoming, max_body, body).await,
    }
}

/// Copies exactly `count` bytes into `body`; `Ok(Err(_))` says how it stopped early.
async fn copy_exact<S: AsyncRead + Unpin>(
    incoming: &mut Incoming<S>,
    count: u64,
    body: &mut Body,
) -> io::Result<Result<(), Truncation>> {
    let mut left = count;
    while left > 0 {
        if incoming.buffered().is_empty()
            && let Err(stop) = incoming.fill().await
        {
            return Ok(Err(
                truncation(stop, false).unwrap_or(Truncation::Disconnect)
            ));
        }
        let take = incoming
            .buffered()
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        body.append(&incoming.buffered()[..take])?;
        incoming.consume(take);
        left -= take as u64;
    }
    Ok(Ok(()))
}

async fn read_until_close<S: AsyncRead + Unpin>(
    incoming: &mut Incoming<S>,
    max_body: u64,
    body: &mut Body,
) -> io::Result<Option<Truncation>> {
    loop {
        let room = max_body - body.len();
        let data = incoming.buffered();
        if data.len() as u64 > room {
            let room = usize::try_from(room).unwrap_or(usize::MAX);
            body.append(&data[..room])?;
            return Ok(Some(Truncation::Length));
        }
        body.append(data)?;
        let taken = data.len();
        incoming.consume(taken);
        if let Err(stop) = incoming.fill().await {
            return Ok(truncation(stop, true));
        }
    }
}

/// De-chunks the body; extensions and trailers are dropped, and a malformed chunk ends the
/// body as a disconnect with what was read so far.
async fn read_chunked<S: AsyncRead + Unpin>(
    incoming: &mut Incoming<S>,
    max_body: u64,
    body: &mut Body,
) -> io::Result<Option<Truncation>> {
    loop {
        let size = match incoming.read_line(MAX_CHUNK_LINE).await {
            Ok(Some(line)) => match parse_chunk_size(&line) {
                Some(size) => size,
                None => return Ok(Some(Truncation::Disconnect)),
            },
            Ok(None) => return Ok(Some(Truncation::Disconnect)),
            Err(stop) => return Ok(truncation(stop, false)),
        };
        if size == 0 {
            skip_trailers(incoming).await;
            return Ok(None);
        }
        let room = max_body - body.len();
        if let Err(cut) = copy_exact(incoming, size.min(room), body).await? {
            return Ok(Some(cut));
        }
        if size > room {
            return Ok(Some(Truncation::Length));
        }
        match incoming.read_line(0).await {
            Ok(Some(_)) => {}
            Ok(None) => return Ok(Some(Truncation::Disconnect)),
            Err(stop) => return Ok(truncation(stop, false)),
        }
    }
}

/// The size in a chunk-size line (`hex[;extensions]`), or `None` when malformed.
fn parse_chunk_size(line: &[u8]) -> Option<u64> {
    let end = memchr::memchr(b';', line).unwrap_or(line.len());
    let hex = std::str::from_utf8(line[..end].trim_ascii()).ok()?;
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Reads and drops trailer fields up to the empty line; the body is already complete, so
/// trouble here is ignored.
async fn skip_trailers<S: AsyncRead + Unpin>(incoming: &mut Incoming<S>) {
    // Bounded so that an endless trailer cannot keep the fetch going.
    for _ in 0..256 {
        match incoming.read_line(MAX_CHUNK_LINE).await {
            Ok(Some(line)) if !line.is_empty() => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn incoming(bytes: &[u8]) -> Incoming<&[u8]> {
        Incoming::new(bytes, Instant::now() + Duration::from_secs(5))
    }

    async fn body_of(bytes: &[u8], framing: Framing, max: u64) -> (Vec<u8>, Option<Truncation>) {
        let mut body = Body::new();
        let cut = read_body(&mut incoming(bytes), framing, max, &mut body)
            .await
            .unwrap();
        (body.prefix(usize::MAX).unwrap(), cut)
    }

    #[test]
    fn chunk_sizes() {
        assert_eq!(parse_chunk_size(b"1a"), Some(26));
        assert_eq!(parse_chunk_size(b"A ; name=value"), Some(10));
        assert_eq!(parse_chunk_size(b""), None);
        assert_eq!(parse_chunk_size(b"0x10"), None);
        assert_eq!(parse_chunk_size(b"-1"), None);
        assert_eq!(parse_chunk_size(b"fffffffffffffffffffff"), None);
    }

    #[tokio::test]
    async fn chunked_bodies() {
        let ok = b"3;ext=1\r\nabc\r\n2\nde\n0\r\nTrailer: x\r\n\r\n";
        assert_eq!(
            body_of(ok, Framing::Chunked, 100).await,
            (b"abcde".to_vec(), None)
        );
        let cut = b"3\r\nabc\r\n2\r\nde\r\n";
        assert_eq!(
            body_of(cut, Framing::Chunked, 100).await,
            (b"abcde".to_vec(), Some(Truncation::Disconnect))
        );
        let garbage = b"3\r\nabc\r\nzz\r\nmore";
        assert_eq!(
            body_of(garbage, Framing::Chunked, 100).await,
            (b"abc".to_vec(), Some(Truncation::Disconnect))
        );
        let no_crlf = b"3\r\nabcXX\r\n0\r\n\r\n";
        assert_eq!(
            body_of(no_crlf, Framing::Chunked, 100).await,
            (b"abc".to_vec(), Some(Truncation::Disconnect))
        );
        assert_eq!(
            body_of(ok, Framing::Chunked, 4).await,
            (b"abcd".to_vec(), Some(Truncation::Length))
        );
        assert_eq!(
            body_of(ok, Framing::Chunked, 5).await,
            (b"abcde".to_vec(), None)
        );
    }

    #[tokio::test]
    async fn length_and_close_delimited_bodies() {
        assert_eq!(
            body_of(b"hello", Framing::Length(5), 5).await,
            (b"hello".to_vec(), None)
        );
        assert_eq!(
            body_of(b"hel", Framing::Length(5), 10).await,
            (b"hel".to_vec(), Some(Truncation::Disconnect))
        );
        assert_eq!(
            body_of(b"hello", Framing::Length(5), 2).await,
            (b"he".to_vec(), Some(Truncation::Length))
        );
        assert_eq!(
            body_of(b"hello", Framing::UntilClose, 5).await,
            (b"hello".to_vec(), None)
        );
        assert_eq!(
            body_of(b"hello!", Framing::UntilClose, 5).await,
            (b"hello".to_vec(), Some(Truncation::Length))
        );
        assert_eq!(
            body_of(b"hello", Framing::None, 5).await,
            (Vec::new(), None)
        );
    }

    #[tokio::test]
    async fn heads_are_bounded_and_checked() {
        let mut ok = incoming(b"\r\nHTTP/1.1 200 OK\r\nA: b\r\n\r\nbody");
        assert_eq!(
            read_head(&mut ok, 100).await.unwrap(),
            b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n"
        );
        assert_eq!(ok.buffered(), b"body");
        assert!(matches!(
            read_head(&mut incoming(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\n"), 10).await,
            Err(HeadError::TooLarge)
        ));
        assert!(matches!(
            read_head(&mut incoming(b"<html>"), 100).await,
            Err(HeadError::Malformed(_))
        ));
        assert!(matches!(
            read_head(&mut incoming(b"HT"), 100).await,
            Err(HeadError::Malformed(_))
        ));
        assert!(matches!(
            read_head(&mut incoming(b""), 100).await,
            Err(HeadError::NoResponse)
        ));
    }
}
