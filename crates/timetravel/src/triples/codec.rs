//! Variable-length integers for the triple index file: small numbers (term-number gaps,
//! version numbers) take one byte, which with gzip on top keeps the index compact.

/// Appends `value` as LEB128.
pub(crate) fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a signed value (zigzag, then LEB128).
pub(crate) fn put_signed(out: &mut Vec<u8>, value: i64) {
    put(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// Appends a length-prefixed string.
pub(crate) fn put_str(out: &mut Vec<u8>, text: &str) {
    put(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Reads values back from a decoded index file; every read fails cleanly on truncated or
/// damaged input (the error says at which byte).
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    fn damaged(&self, what: &str) -> String {
        format!("damaged at byte {} of the decoded index ({what})", self.at)
    }

    /// Takes `len` raw bytes.
    pub(crate) fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| self.damaged("truncated"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    /// Reads a LEB128 value.
    pub(crate) fn get(&mut self) -> Result<u64, String> {
        let mut value: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| self.damaged("truncated number"))?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.damaged("number too long"))
    }

    /// Reads a value that must fit a `u32`.
    pub(crate) fn get_u32(&mut self) -> Result<u32, String> {
        let value = self.get()?;
        u32::try_from(value).map_err(|_| self.damaged("number out of range"))
    }

    /// Reads a count of items that each take at least one byte (so a damaged count cannot
    /// make the reader allocate more than the file holds).
    pub(crate) fn get_count(&mut self) -> Result<usize, String> {
        let value = self.get()?;
        usize::try_from(value)
            .ok()
            .filter(|&n| n <= self.bytes.len() - self.at)
            .ok_or_else(|| self.damaged("count larger than the file"))
    }

    /// Reads a zigzag-encoded signed value.
    pub(crate) fn get_signed(&mut self) -> Result<i64, String> {
        let raw = self.get()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// Reads a length-prefixed UTF-8 string.
    pub(crate) fn get_str(&mut self) -> Result<&'a str, String> {
        let len = self.get_count()?;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes).map_err(|_| self.damaged("text is not UTF-8"))
    }

    /// Whether every byte was read.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_round_trip() {
        let mut out = Vec::new();
        for value in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put(&mut out, value);
        }
        for value in [0i64, -1, 1, i64::MIN, i64::MAX, -1_700_000_000_000_000] {
            put_signed(&mut out, value);
        }
        put_str(&mut out, "<http://example.org/é>");
        let mut reader = Reader::new(&out);
        for value in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(reader.get().unwrap(), value);
        }
        for value in [0i64, -1, 1, i64::MIN, i64::MAX, -1_700_000_000_000_000] {
            assert_eq!(reader.get_signed().unwrap(), value);
        }
        assert_eq!(reader.get_str().unwrap(), "<http://example.org/é>");
        assert!(reader.at_end());
        assert!(reader.get().unwrap_err().contains("truncated"));
    }

    #[test]
    fn a_damaged_count_is_refused_before_allocating() {
        let mut out = Vec::new();
        put(&mut out, 1 << 40);
        assert!(Reader::new(&out).get_count().is_err());
    }
}
