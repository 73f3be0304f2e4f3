//! A response body of bounded memory: held in RAM up to 8 MiB, then spooled to an anonymous
//! temporary file.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Bodies up to this many bytes stay in memory; longer ones move to a temporary file.
pub const BODY_MEMORY_LIMIT: usize = 8 * 1024 * 1024;

/// Response body bytes exactly as the server sent them (de-chunked, never content-decoded).
pub struct Body {
    memory: Vec<u8>,
    spool: Option<File>,
    len: u64,
    memory_limit: usize,
}

impl Default for Body {
    fn default() -> Self {
        Body::with_memory_limit(BODY_MEMORY_LIMIT)
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Body")
            .field("len", &self.len)
            .field("spooled", &self.is_spooled())
            .finish()
    }
}

impl Body {
    /// An empty body.
    pub fn new() -> Self {
        Body::default()
    }

    /// A body holding `bytes` (in memory, whatever their length).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Body {
            len: bytes.len() as u64,
            memory: bytes,
            ..Body::default()
        }
    }

    /// An empty body that spools to disk beyond `memory_limit` bytes.
    pub(crate) fn with_memory_limit(memory_limit: usize) -> Self {
        Body {
            memory: Vec::new(),
            spool: None,
            len: 0,
            memory_limit,
        }
    }

    /// Number of bytes in the body.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the body has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the body was moved to a temporary file.
    pub fn is_spooled(&self) -> bool {
        self.spool.is_some()
    }

    /// Appends `data`, moving everything to a temporary file once the memory limit is passed.
    pub(crate) fn append(&mut self, data: &[u8]) -> io::Result<()> {
        if self.spool.is_none() && self.memory.len() + data.len() > self.memory_limit {
            let mut file = tempfile::tempfile()?;
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.spool = Some(file);
        }
        match &mut self.spool {
            Some(file) => {
                // A reader may have moved the file position; appends always go to the end.
                file.seek(SeekFrom::End(0))?;
                file.write_all(data)?;
            }
            None => self.memory.extend_from_slice(data),
        }
        self.len += data.len() as u64;
        Ok(())
    }

    /// A reader over the whole body from its first byte.
    pub fn reader(&mut self) -> io::Result<impl Read + '_> {
        let reader: Box<dyn Read + '_> = match &mut self.spool {
            Some(file) => {
                file.seek(SeekFrom::Start(0))?;
                Box::new(Read::take(file, self.len))
            }
            None => Box::new(self.memory.as_slice()),
        };
        Ok(reader)
    }

    /// The first `max` bytes of the body (all of it when shorter).
    pub fn prefix(&mut self, max: usize) -> io::Result<Vec<u8>> {
        let want = (max as u64).min(self.len);
        let mut prefix = Vec::with_capacity(usize::try_from(want).unwrap_or(0));
        self.reader()?.take(want).read_to_end(&mut prefix)?;
        Ok(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(body: &mut Body) -> Vec<u8> {
        let mut bytes = Vec::new();
        body.reader().unwrap().read_to_end(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn small_bodies_stay_in_memory() {
        let mut body = Body::new();
        assert!(body.is_empty());
        body.append(b"hello ").unwrap();
        body.append(b"world").unwrap();
        assert_eq!(body.len(), 11);
        assert!(!body.is_spooled());
        assert_eq!(read_all(&mut body), b"hello world");
        assert_eq!(body.prefix(5).unwrap(), b"hello");
        assert_eq!(body.prefix(100).unwrap(), b"hello world");
        assert_eq!(Body::from_bytes(b"abc".to_vec()).prefix(2).unwrap(), b"ab");
    }

    #[test]
    fn large_bodies_spool_to_a_file_and_read_back_whole() {
        let mut body = Body::with_memory_limit(10);
        let mut expected = Vec::new();
        for i in 0..50u8 {
            let piece = [i; 7];
            body.append(&piece).unwrap();
            expected.extend_from_slice(&piece);
            if i == 3 {
                // Reading in the middle must not disturb later appends.
                assert_eq!(read_all(&mut body), expected);
            }
        }
        assert!(body.is_spooled());
        assert_eq!(body.len(), 350);
        assert_eq!(read_all(&mut body), expected);
        assert_eq!(read_all(&mut body), expected, "a second reader starts over");
        assert_eq!(body.prefix(9).unwrap(), &expected[..9]);
        assert!(format!("{body:?}").contains("spooled: true"));
    }
}
