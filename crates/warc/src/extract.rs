//! One record's bytes as `warcio extract` writes them: the whole record, its headers, or
//! its payload.
//!
//! warcio does not copy the record verbatim: it parses the WARC header (and the HTTP head,
//! for HTTP records) and writes them back in its own normal form (`Name: value` lines
//! ending in CRLF, continuation lines joined, lines without a colon dropped, ARC header
//! lines as five WARC-style fields), then the rest of the block as stored. Its payload is
//! the content a browser would see: de-chunked and with `Content-Encoding` (gzip, deflate,
//! brotli) undone. This module reproduces those bytes so the output can be compared with
//! warcio's and used where warcio's is expected.

use crate::RecordType;
use std::io::{self, BufRead, BufReader, Read, Write};

/// Which part of the record [`extract`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExtractPart {
    /// The WARC header, the HTTP head (if any), then the rest of the block as stored.
    #[default]
    Record,
    /// The WARC header and the HTTP head only.
    Headers,
    /// The payload: the block after the HTTP head, de-chunked and decoded.
    Payload,
}

const WARC_VERSIONS: [&str; 4] = ["WARC/1.1", "WARC/1.0", "WARC/0.17", "WARC/0.18"];
const ARC_FIELDS: [&str; 5] = [
    "uri",
    "ip-address",
    "archive-date",
    "content-type",
    "length",
];

/// A status line and header fields, as warcio holds them.
#[derive(Debug, Default)]
struct Head {
    protocol: String,
    status: String,
    fields: Vec<(String, String)>,
}

impl Head {
    fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Replaces the last field of `name`, as warcio's `replace_header` does.
    fn replace_last(&mut self, name: &str, value: String) {
        if let Some(field) = self
            .fields
            .iter_mut()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            field.1 = value;
        }
    }

    fn is_empty(&self) -> bool {
        self.status.is_empty() && self.fields.is_empty()
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut text = self.protocol.clone();
        if !text.is_empty() && !self.status.is_empty() {
            text.push(' ');
        }
        text.push_str(&self.status);
        if !text.is_empty() {
            text.push_str("\r\n");
        }
        for (name, value) in &self.fields {
            text.push_str(name);
            text.push_str(": ");
            text.push_str(value);
            text.push_str("\r\n");
        }
        text.push_str("\r\n");
        text.into_bytes()
    }
}

/// Writes one part of the record that starts at the current position of `input` (a plain
/// or gzip-per-record WARC or ARC file, positioned at a record's offset) to `out`.
///
/// Fails with [`io::ErrorKind::InvalidData`] when no WARC or ARC record starts there.
pub fn extract(input: impl Read, part: ExtractPart, out: &mut impl Write) -> io::Result<()> {
    let mut raw = BufReader::with_capacity(64 * 1024, input);
    if raw.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        // Like warcio: one gzip member, the one holding the record.
        let member = flate2::bufread::GzDecoder::new(raw);
        let mut member = BufReader::new(member);
        extract_plain(&mut member, part, out)?;
        verify_member_end(&mut member)
    } else {
        extract_plain(&mut raw, part, out)
    }
}

/// What may follow a record in its gzip member (normally the two line ends) and still be read
/// to reach the member's checksum; a member holding more (a whole file compressed as one) is
/// not read further.
const MEMBER_TAIL_BYTES: u64 = 1 << 20;

/// Reads the rest of the record's gzip member, so that its checksum and length are checked:
/// damaged data inflates to wrong bytes that often only the checksum reveals.
fn verify_member_end(member: &mut impl BufRead) -> io::Result<()> {
    io::copy(&mut member.take(MEMBER_TAIL_BYTES), &mut io::sink())
        .map(|_| ())
        .map_err(|e| io::Error::new(e.kind(), format!("gzip member: {e}")))
}

fn extract_plain(
    input: &mut impl BufRead,
    part: ExtractPart,
    out: &mut impl Write,
) -> io::Result<()> {
    let (header, record_type, uri, length) = read_record_header(input)?;
    let mut block = input.take(length.unwrap_or(u64::MAX));
    let http = if length != Some(0)
        && matches!(
            RecordType::from_exact(&record_type),
            RecordType::Response | RecordType::Request | RecordType::Revisit
        )
        && (uri.starts_with("http:") || uri.starts_with("https:"))
    {
        parse_head(&mut block, None, None)?.filter(|head| !head.is_empty())
    } else {
        None
    };
    match part {
        ExtractPart::Payload => {
            let mut rest = Vec::new();
            block.read_to_end(&mut rest)?;
            whole_block(length, block.limit())?;
            out.write_all(&content(rest, http.as_ref()))
        }
        ExtractPart::Record | ExtractPart::Headers => {
            out.write_all(&header.to_bytes())?;
            if let Some(http) = &http {
                out.write_all(&http.to_bytes())?;
            }
            if part == ExtractPart::Record {
                io::copy(&mut block, out)?;
                whole_block(length, block.limit())?;
            }
            Ok(())
        }
    }
}

/// Fails when a block read to its end held fewer bytes than its `Content-Length`: the file
/// ends inside the record, or its gzip member does (a record split over several members,
/// which `extract` reads one of, as warcio does). What was read is not the record.
fn whole_block(length: Option<u64>, missing: u64) -> io::Result<()> {
    match length {
        Some(length) if missing > 0 => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the record's block ends after {} of its {length} bytes (the file or the \
                 record's gzip member ends inside it)",
                length - missing
            ),
        )),
        _ => Ok(()),
    }
}

/// The record header, its type, target URI and the block length warcio limits reading to.
fn read_record_header(input: &mut impl BufRead) -> io::Result<(Head, String, String, Option<u64>)> {
    let first = read_line(input)?;
    let text = decode(&first);
    let line = py_rstrip(&text);
    if line.is_empty() {
        return Err(not_a_record(&text));
    }
    let upper = line.to_uppercase();
    if let Some(version) = WARC_VERSIONS.iter().find(|v| upper.starts_with(*v)) {
        let mut header = parse_head(input, Some(line), Some(*version))?.unwrap_or_default();
        let record_type = header.get("WARC-Type").unwrap_or("").to_string();
        let mut uri = header.get("WARC-Target-URI").unwrap_or("").to_string();
        if uri.len() >= 2 && uri.starts_with('<') && uri.ends_with('>') {
            uri = uri[1..uri.len() - 1].to_string();
            header.replace_last("WARC-Target-URI", uri.clone());
        }
        if uri.contains(' ') {
            uri = uri.replace(' ', "%20");
            header.replace_last("WARC-Target-URI", uri.clone());
        }
        let length = header.get("Content-Length").map(|l| block_length(l, 0));
        return Ok((header, record_type, uri, length));
    }
    let mut extra = 0;
    if line.starts_with("filedesc://") {
        for _ in 0..2 {
            extra += decode(&read_line(input)?).chars().count() as i64;
        }
    }
    let mut parts: Vec<&str> = line.rsplitn(5, ' ').collect();
    if parts.len() != ARC_FIELDS.len() {
        return Err(not_a_record(&text));
    }
    parts.reverse();
    let header = Head {
        protocol: "WARC/1.0".into(),
        status: String::new(),
        fields: ARC_FIELDS
            .iter()
            .zip(parts)
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
    };
    let uri = header.get("uri").unwrap_or("").to_string();
    let record_type = if uri.starts_with("filedesc://") {
        "arc_header"
    } else {
        "response"
    };
    let length = Some(block_length(header.get("length").unwrap_or(""), extra));
    Ok((header, record_type.to_string(), uri, length))
}

fn not_a_record(line: &str) -> io::Error {
    let preview: String = line.trim_end().chars().take(40).collect();
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("no WARC or ARC record starts here (found {preview:?})"),
    )
}

/// A declared length minus the bytes already read; unreadable or negative lengths count
/// as an empty block, as warcio counts them.
fn block_length(declared: &str, already_read: i64) -> u64 {
    let declared = declared.trim();
    let digits = declared.strip_prefix('+').unwrap_or(declared);
    match digits.parse::<i64>() {
        Ok(n) if n - already_read >= 0 && !digits.starts_with('-') => (n - already_read) as u64,
        _ => 0,
    }
}

/// Parses a status line (read here unless given) and header fields as warcio's
/// `StatusAndHeadersParser` does; `None` when the stream is at its end.
fn parse_head(
    input: &mut impl BufRead,
    first: Option<&str>,
    known_protocol: Option<&str>,
) -> io::Result<Option<Head>> {
    let owned;
    let first = match first {
        Some(first) => first,
        None => {
            let raw = read_line(input)?;
            if raw.is_empty() {
                return Ok(None);
            }
            owned = decode(&raw);
            py_rstrip(&owned)
        }
    };
    let mut head = Head::default();
    if first.is_empty() {
        return Ok(Some(head));
    }
    let (protocol, rest) = match known_protocol {
        Some(protocol) => (protocol.to_string(), first.get(protocol.len()..)),
        None => match first.split_once(' ') {
            Some((protocol, rest)) => (protocol.to_string(), Some(rest)),
            None => (first.to_string(), None),
        },
    };
    head.protocol = protocol;
    head.status = rest.map_or(String::new(), |r| py_strip(r).to_string());
    let mut line = next_line(input)?;
    while !line.is_empty() {
        let mut field = line.split_once(':').map(|(n, v)| {
            (
                n.trim_end_matches([' ', '\t']).to_string(),
                py_lstrip(v).to_string(),
            )
        });
        let mut next = next_line(input)?;
        while next.starts_with([' ', '\t']) {
            if let Some((_, value)) = field.as_mut() {
                value.push_str(&next);
            }
            next = next_line(input)?;
        }
        head.fields.extend(field);
        line = next;
    }
    Ok(Some(head))
}

fn next_line(input: &mut impl BufRead) -> io::Result<String> {
    let raw = read_line(input)?;
    Ok(py_rstrip(&decode(&raw)).to_string())
}

fn read_line(input: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    input.read_until(b'\n', &mut line)?;
    Ok(line)
}

/// A header line as text: UTF-8 if it is, else ISO-8859-1 (what warcio does).
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// Python's notion of whitespace (`str.isspace`), which also counts the separators
/// U+001C–U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

fn py_rstrip(text: &str) -> &str {
    text.trim_end_matches(py_space)
}

fn py_lstrip(text: &str) -> &str {
    text.trim_start_matches(py_space)
}

fn py_strip(text: &str) -> &str {
    py_lstrip(py_rstrip(text))
}

/// The payload as warcio's `content_stream()` gives it.
fn content(rest: Vec<u8>, http: Option<&Head>) -> Vec<u8> {
    let Some(http) = http else {
        return rest;
    };
    let encoding = http
        .get("content-encoding")
        .map(str::to_lowercase)
        .filter(|e| matches!(e.as_str(), "gzip" | "deflate" | "br"));
    let body = if http.get("transfer-encoding") == Some("chunked") {
        dechunk(&rest)
    } else {
        rest
    };
    match encoding {
        Some(encoding) => decode_content(body, &encoding),
        None => body,
    }
}

/// Removes chunked transfer coding; where the chunk framing breaks, the rest is taken as
/// it is (warcio's best-guess fallback for bodies that say chunked but are not).
fn dechunk(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut at = 0;
    while at < data.len() {
        let line_end = data[at..]
            .iter()
            .take(64)
            .position(|&b| b == b'\n')
            .map_or((at + 64).min(data.len()), |i| at + i + 1);
        let line = &data[at..line_end];
        let size = line
            .strip_suffix(b"\r\n")
            .and_then(|l| l.split(|&b| b == b';').next())
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(parse_hex)
            .filter(|&size| size <= 1 << 31);
        let Some(size) = size else {
            out.extend_from_slice(&data[at..]);
            return out;
        };
        at = line_end;
        if size == 0 {
            let final_crlf = data.get(at..at + 2);
            at = (at + 2).min(data.len());
            if final_crlf != Some(b"\r\n") {
                out.extend_from_slice(line);
                out.extend_from_slice(&data[at..]);
            }
            return out;
        }
        let end = (at + size as usize).min(data.len());
        let chunk = &data[at..end];
        at = end;
        if chunk.len() < size as usize {
            out.extend_from_slice(chunk);
            return out;
        }
        let crlf = data.get(at..at + 2);
        at = (at + 2).min(data.len());
        if crlf != Some(b"\r\n") {
            out.extend_from_slice(line);
            out.extend_from_slice(chunk);
            out.extend_from_slice(&data[at..]);
            return out;
        }
        out.extend_from_slice(chunk);
    }
    out
}

/// A chunk size as Python's `int(text, 16)` reads it.
fn parse_hex(text: &str) -> Option<u64> {
    let text = py_strip(text);
    let text = text.strip_prefix('+').unwrap_or(text);
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() {
        return None;
    }
    let digits: String = digits.replace('_', "");
    u64::from_str_radix(&digits, 16).ok()
}

/// Undoes a content coding; data that does not decode from its first byte is kept as it
/// is, and a coding that breaks later keeps what decoded before the break.
fn decode_content(data: Vec<u8>, encoding: &str) -> Vec<u8> {
    let attempt = |reader: &mut dyn Read| {
        let mut out = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Some(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(_) if out.is_empty() => return None,
                Err(_) => return Some(out),
            }
        }
    };
    let decoded = match encoding {
        "gzip" => attempt(&mut flate2::read::GzDecoder::new(&data[..])),
        "deflate" => attempt(&mut flate2::read::ZlibDecoder::new(&data[..]))
            .or_else(|| attempt(&mut flate2::read::DeflateDecoder::new(&data[..]))),
        _ => attempt(&mut brotli_decompressor::Decompressor::new(&data[..], 4096)),
    };
    decoded.unwrap_or(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(record: &[u8], part: ExtractPart) -> Vec<u8> {
        let mut out = Vec::new();
        extract(record, part, &mut out).expect("extracts");
        out
    }

    #[test]
    fn normalises_heads_and_keeps_the_rest_of_the_block() {
        let body = b"HTTP/1.1 200 OK\nContent-Type: text/plain\nX-Fold: a\n  b\nno colon\n\nhello";
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://a.example/ x>\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        record.extend_from_slice(body);
        record.extend_from_slice(b"\r\n\r\n");
        let headers = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/%20x\r\n\
             Content-Length: {}\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Fold: a  b\r\n\r\n",
            body.len()
        );
        assert_eq!(
            String::from_utf8_lossy(&run(&record, ExtractPart::Headers)),
            headers
        );
        assert_eq!(
            run(&record, ExtractPart::Record),
            [headers.as_bytes(), b"hello"].concat()
        );
        assert_eq!(run(&record, ExtractPart::Payload), b"hello");
    }

    /// A record whose block ends early, in the file or in its gzip member (a record split
    /// over two members), is an error, never the part of it that was there.
    #[test]
    fn a_block_cut_short_is_an_error_not_a_shorter_record() {
        let body = b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n<a:s> <a:p> <a:o> .\n";
        let mut record = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        record.extend_from_slice(body);
        record.extend_from_slice(b"\r\n\r\n");
        let gzip = |bytes: &[u8]| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(bytes).expect("compress");
            gz.finish().expect("compress")
        };
        let cut = record.len() - 20;
        let split = [gzip(&record[..cut]), gzip(&record[cut..])].concat();
        for (what, file) in [("plain", record[..cut].to_vec()), ("split", split)] {
            for part in [ExtractPart::Record, ExtractPart::Payload] {
                let mut out = Vec::new();
                let error = extract(&file[..], part, &mut out).unwrap_err();
                assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof, "{what}");
                assert!(
                    error.to_string().contains(&format!(
                        "ends after {} of its {} bytes",
                        body.len() - 16,
                        body.len()
                    )),
                    "{what}: {error}"
                );
            }
        }
        // The head alone does not need the whole block.
        assert!(!run(&gzip(&record), ExtractPart::Headers).is_empty());
    }

    #[test]
    fn payload_is_dechunked_and_decoded() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"decoded body").expect("compress");
        let gz = gz.finish().expect("compress");
        let mut chunked = format!("{:x}\r\n", gz.len()).into_bytes();
        chunked.extend_from_slice(&gz);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        let head = Head {
            protocol: "HTTP/1.1".into(),
            status: "200 OK".into(),
            fields: vec![
                ("Transfer-Encoding".into(), "chunked".into()),
                ("Content-Encoding".into(), "GZIP".into()),
            ],
        };
        assert_eq!(content(chunked, Some(&head)), b"decoded body");
        assert_eq!(dechunk(b"not chunked at all"), b"not chunked at all");
        assert_eq!(decode_content(b"plain".to_vec(), "gzip"), b"plain");
    }

    #[test]
    fn refuses_what_is_not_a_record() {
        let mut out = Vec::new();
        let error = extract(&b"hello world\r\n"[..], ExtractPart::Record, &mut out)
            .expect_err("not a record");
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(extract(&b""[..], ExtractPart::Record, &mut out).is_err());
    }
}
