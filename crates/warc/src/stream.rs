//! Reading a WARC from a stream that cannot seek (a pipe, standard input).

use std::io::{self, Read, Seek, SeekFrom};

/// How many of the most recently read bytes are kept, so that the reader can step back a
/// little (to look past a damaged record, or at the padding at a file's end).
const HISTORY: usize = 8 * 1024 * 1024;

/// Makes a forward-only stream usable by [`crate::WarcReader`]: seeking forward reads and
/// drops bytes, seeking back is possible within the last 8 MiB read, and positions count
/// bytes from where the stream was wrapped, so record offsets are those of the file the
/// stream carries.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let stdin = std::io::stdin().lock();
/// let mut reader = ldwarc_warc::WarcReader::new(ldwarc_warc::ForwardOnly::new(stdin))?;
/// while let Some(record) = reader.next_record() {
///     let record = record?;
///     println!("{} {}", record.offset, record.record_type());
/// }
/// # Ok(()) }
/// ```
pub struct ForwardOnly<R> {
    inner: R,
    /// Bytes read from `inner` most recently; `history[0]` is at offset `history_start`.
    history: Vec<u8>,
    history_start: u64,
    /// The position the next read returns bytes from (behind the end of `history` after a
    /// seek back).
    pos: u64,
}

impl<R: Read> ForwardOnly<R> {
    /// Wraps `inner`; its current position counts as offset 0.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            history: Vec::new(),
            history_start: 0,
            pos: 0,
        }
    }

    fn read_end(&self) -> u64 {
        self.history_start + self.history.len() as u64
    }

    /// Reads new bytes from the stream into the history; 0 at the end of the stream.
    fn read_more(&mut self, want: usize) -> io::Result<usize> {
        if self.history.len() > 2 * HISTORY {
            let drop = self.history.len() - HISTORY;
            self.history.drain(..drop);
            self.history_start += drop as u64;
        }
        let old = self.history.len();
        self.history.resize(old + want.max(8192), 0);
        let result = loop {
            match self.inner.read(&mut self.history[old..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let n = *result.as_ref().unwrap_or(&0);
        self.history.truncate(old + n);
        result
    }
}

impl<R: Read> Read for ForwardOnly<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.read_end() && self.read_more(buf.len())? == 0 {
            return Ok(0);
        }
        let start = usize::try_from(self.pos - self.history_start).unwrap_or(usize::MAX);
        let available = &self.history[start..];
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> Seek for ForwardOnly<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::Current(delta) => self.pos.checked_add_signed(delta),
            SeekFrom::End(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "the input is a stream: its end is not known in advance",
                ));
            }
        };
        let Some(target) = target else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the stream",
            ));
        };
        if target < self.history_start {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "the input is a stream and cannot go back to offset {target} \
                     (only the last {} MiB read are kept)",
                    HISTORY / (1024 * 1024)
                ),
            ));
        }
        while self.read_end() < target {
            let want = usize::try_from(target - self.read_end()).unwrap_or(usize::MAX);
            if self.read_more(want.min(HISTORY))? == 0 {
                break;
            }
        }
        // Past the end of the stream, like a file: later reads return nothing.
        self.pos = target.min(self.read_end());
        Ok(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeks_forward_by_reading_and_back_within_history() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut stream = ForwardOnly::new(&data[..]);
        let mut buf = [0u8; 10];
        stream.seek(SeekFrom::Start(50_000)).expect("forward");
        stream.read_exact(&mut buf).expect("read");
        assert_eq!(&buf[..], &data[50_000..50_010]);
        stream
            .seek(SeekFrom::Start(3))
            .expect("back within history");
        stream.read_exact(&mut buf).expect("read");
        assert_eq!(&buf[..], &data[3..13]);
        assert_eq!(stream.stream_position().expect("position"), 13);
        assert!(stream.seek(SeekFrom::End(0)).is_err());
    }
}
