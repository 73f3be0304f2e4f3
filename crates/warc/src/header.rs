//! The WARC header block: version line plus named fields, order and repeats preserved.

use std::fmt::Write as _;

/// Fields allowed to appear more than once in one record: by the WARC 1.1 standard, and
/// `WARC-Protocol` by the IIPC WARC extensions (one per protocol layer, e.g. `h2` and
/// `tls/1.3`).
pub const REPEATABLE_FIELDS: &[&str] = &["WARC-Concurrent-To", "WARC-Protocol"];

/// The header of one WARC record: the version line (`WARC/1.1`) and its named fields.
///
/// Field names compare case-insensitively; the original spelling, order and repeated
/// fields are kept so a record reads back exactly as it was written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WarcHeader {
    /// The version token without the `WARC/` prefix, e.g. `1.1` (`ARC` for ARC records).
    pub version: String,
    /// `(name, value)` pairs in file order.
    pub fields: Vec<(String, String)>,
}

impl WarcHeader {
    /// An empty header of the given version (e.g. `"1.1"`).
    pub fn new(version: &str) -> Self {
        Self {
            version: version.to_string(),
            fields: Vec::new(),
        }
    }

    /// The first value of `name`, compared case-insensitively.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in file order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.fields
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Appends a field, keeping any earlier field of the same name.
    pub fn push(&mut self, name: &str, value: impl Into<String>) {
        self.fields.push((name.to_string(), value.into()));
    }

    /// Replaces the first field of `name` (removing later repeats), or appends it.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self
            .fields
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(first) => {
                self.fields[first].1 = value;
                let mut index = 0;
                self.fields.retain(|(n, _)| {
                    let keep = index <= first || !n.eq_ignore_ascii_case(name);
                    index += 1;
                    keep
                });
            }
            None => self.push(name, value),
        }
    }

    /// Removes every field of `name`.
    pub fn remove(&mut self, name: &str) {
        self.fields.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }

    /// `WARC-Type`, e.g. `response`.
    pub fn record_type(&self) -> Option<&str> {
        self.get("WARC-Type")
    }

    /// `WARC-Target-URI` with the angle brackets some writers (wget, WARC/0.17) put around it removed.
    pub fn target_uri(&self) -> Option<&str> {
        self.get("WARC-Target-URI").map(strip_angle_brackets)
    }

    /// `WARC-Record-ID` as written (normally `<urn:uuid:…>`).
    pub fn record_id(&self) -> Option<&str> {
        self.get("WARC-Record-ID")
    }

    /// `WARC-Date` as written.
    pub fn date(&self) -> Option<&str> {
        self.get("WARC-Date")
    }

    /// `WARC-Date` read as a UTC time (any precision WARC 1.0/1.1 and common writers use);
    /// `None` when the field is absent or cannot be read as a date.
    pub fn date_time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.date().and_then(crate::time::parse_warc_date)
    }

    /// The record's `WARC-Type` as a [`RecordType`](crate::RecordType) (`None` when absent).
    pub fn warc_type(&self) -> Option<crate::RecordType> {
        self.record_type().map(crate::RecordType::parse)
    }

    /// `Content-Length` parsed as a byte count; `None` when absent or not a number.
    pub fn content_length(&self) -> Option<u64> {
        self.get("Content-Length")
            .and_then(|v| v.trim().parse::<u64>().ok())
    }

    /// `Content-Type` as written.
    pub fn content_type(&self) -> Option<&str> {
        self.get("Content-Type")
    }

    /// Serialises the header block including the blank line that ends it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = String::with_capacity(64 + self.fields.len() * 48);
        let _ = write!(text, "WARC/{}\r\n", self.version);
        for (name, value) in &self.fields {
            let _ = write!(text, "{name}: {value}\r\n");
        }
        text.push_str("\r\n");
        text.into_bytes()
    }
}

/// Removes one pair of `<` `>` around a value, as wget and WARC/0.17 writers add to URIs.
pub fn strip_angle_brackets(value: &str) -> &str {
    value
        .strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(value)
}

/// Why a header block could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderParseError {
    /// The first line is not `WARC/<version>`.
    NotWarc(String),
    /// A line that is neither `Name: value` nor a continuation.
    BadLine(String),
}

/// Parses a header block (everything up to, not including, the blank line).
///
/// Lines may end in CRLF or bare LF; lines starting with a space or tab continue the
/// previous field's value (folding), as the WARC grammar allows.
pub fn parse_header_block(block: &[u8]) -> Result<WarcHeader, HeaderParseError> {
    let text = String::from_utf8_lossy(block);
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let first = lines.next().unwrap_or("");
    let version = first
        .trim_end()
        .strip_prefix("WARC/")
        .ok_or_else(|| HeaderParseError::NotWarc(shorten(first)))?;
    let mut header = WarcHeader::new(version);
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            match header.fields.last_mut() {
                Some((_, value)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                None => return Err(HeaderParseError::BadLine(shorten(line))),
            }
            continue;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| HeaderParseError::BadLine(shorten(line)))?;
        let name = name.trim();
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c.is_control()) {
            return Err(HeaderParseError::BadLine(shorten(line)));
        }
        header.push(name, value.trim());
    }
    Ok(header)
}

fn shorten(line: &str) -> String {
    let mut end = line.len().min(80);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_repeats_folding_and_lf_only_lines() {
        let block = b"WARC/1.0\nWARC-Type: request\r\nWARC-Concurrent-To: <urn:a>\nWARC-Concurrent-To: <urn:b>\nX-Long: one\n  two\n";
        let header = parse_header_block(block).expect("valid header");
        assert_eq!(header.version, "1.0");
        assert_eq!(
            header.get_all("warc-concurrent-to").collect::<Vec<_>>(),
            vec!["<urn:a>", "<urn:b>"]
        );
        assert_eq!(header.get("X-Long"), Some("one two"));
    }

    #[test]
    fn typed_date_and_type_read_the_written_fields() {
        let header = parse_header_block(
            b"WARC/1.1\r\nWARC-Type: revisit\r\nWARC-Date: 2024-03-15T10:20:30.123456Z\r\n",
        )
        .expect("valid header");
        assert_eq!(
            header.date_time().map(|t| t.timestamp_micros()),
            Some(1_710_498_030_123_456)
        );
        assert_eq!(header.warc_type(), Some(crate::RecordType::Revisit));
        let undated = parse_header_block(b"WARC/1.1\r\nWARC-Date: 15/03/2024\r\n").unwrap();
        assert_eq!(undated.date_time(), None);
        assert_eq!(undated.warc_type(), None);
    }

    #[test]
    fn rejects_non_warc_first_line() {
        assert!(matches!(
            parse_header_block(b"HTTP/1.1 200 OK\r\n"),
            Err(HeaderParseError::NotWarc(_))
        ));
    }

    #[test]
    fn set_replaces_first_and_drops_repeats() {
        let mut header = WarcHeader::new("1.1");
        header.push("A", "1");
        header.push("B", "2");
        header.push("a", "3");
        header.set("A", "9");
        assert_eq!(
            header.fields,
            vec![("A".into(), "9".into()), ("B".into(), "2".into())]
        );
    }

    #[test]
    fn strips_brackets_from_target_uri() {
        let mut header = WarcHeader::new("1.0");
        header.push("WARC-Target-URI", "<http://example.org/>");
        assert_eq!(header.target_uri(), Some("http://example.org/"));
    }
}
