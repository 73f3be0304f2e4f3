//! The HTTP message heads stored inside `request`, `response` and `revisit` blocks.

use crate::RecordType;

/// A parsed HTTP request or response head.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HttpHead {
    /// The status code of a response.
    pub status: Option<u16>,
    /// The method of a request.
    pub method: Option<String>,
    /// The protocol token (`HTTP/1.1`).
    pub protocol: String,
    /// Header fields in order, repeats kept.
    pub headers: Vec<(String, String)>,
}

impl HttpHead {
    /// The first value of a header, compared case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        crate::http::header_value(&self.headers, name)
    }

    /// The media type of `Content-Type`, lower-cased, parameters removed.
    pub fn mime(&self) -> Option<String> {
        self.header("Content-Type").map(media_type)
    }
}

/// The first value of header `name` in `headers`, compared case-insensitively.
pub fn header_value<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The bare media type of a `Content-Type` value: lower-cased, parameters removed.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether a WARC `Content-Type` says the block is an HTTP message.
pub fn is_http_block(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|ct| media_type(ct) == "application/http")
}

/// Whether a record's block is read for an HTTP head when it is indexed, as cdxj-indexer
/// (warcio) reads it: a response or revisit of an `http:` or `https:` URI with a non-empty
/// block, whatever its WARC `Content-Type` says. `ldwarc ls` shows a status for these
/// records only, so it agrees with `ldwarc cdx`.
pub fn indexes_http_head(
    record_type: &RecordType,
    target_uri: &str,
    content_length: Option<u64>,
) -> bool {
    matches!(record_type, RecordType::Response | RecordType::Revisit)
        && (target_uri.starts_with("http:") || target_uri.starts_with("https:"))
        && content_length.is_some_and(|n| n > 0)
}

/// The HTTP head at the start of a block as the index reads it: as leniently as
/// [`parse_head_lenient`], and a head the block ends inside of (no empty line after it)
/// still gives its status and fields.
pub fn parse_indexed_head(bytes: &[u8]) -> Option<HttpHead> {
    parse_head_lenient(bytes)
        .or_else(|| {
            let mut terminated = bytes.to_vec();
            terminated.extend_from_slice(b"\r\n\r\n");
            parse_head_lenient(&terminated)
        })
        .map(|(head, _)| head)
}

/// Parses the head at the start of `bytes` (which may hold more than the head).
/// Returns the head and its length including the blank line, or `None` if `bytes` does not
/// start with a complete HTTP head.
pub fn parse_head(bytes: &[u8]) -> Option<(HttpHead, usize)> {
    parse_head_with(bytes, true)
}

/// Like [`parse_head`], but as lenient as warcio with `verify_http=False` (what pywb and
/// cdxj-indexer use): a response's first token need not be `HTTP/…` (`HTTPX/1.1 200 OK`).
pub fn parse_head_lenient(bytes: &[u8]) -> Option<(HttpHead, usize)> {
    parse_head_with(bytes, false)
}

fn parse_head_with(bytes: &[u8], strict: bool) -> Option<(HttpHead, usize)> {
    let end = head_end(bytes)?;
    let text = String::from_utf8_lossy(&bytes[..end]);
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let first = lines.next()?;
    let mut head = HttpHead::default();
    let mut parts = first.splitn(3, ' ');
    let first_token = parts.next()?;
    let second = parts.next().unwrap_or("");
    let looks_like_status = second.len() == 3 && second.bytes().all(|b| b.is_ascii_digit());
    if first_token.starts_with("HTTP/") || (!strict && looks_like_status) {
        head.protocol = first_token.to_string();
        head.status = second.trim().parse().ok();
        head.status?;
    } else {
        head.method = Some(first_token.to_string());
        head.protocol = parts.next().unwrap_or("").trim().to_string();
        if !head.protocol.starts_with("HTTP/") {
            return None;
        }
    }
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = head.headers.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            head.headers
                .push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Some((head, end))
}

/// Length of the head including its blank line (CRLF or bare LF line ends).
fn head_end(bytes: &[u8]) -> Option<usize> {
    let mut scanner = super::digest::HeadEndScanner::default();
    scanner.feed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_and_request_heads() {
        let (head, len) = parse_head(b"HTTP/1.1 303 See Other\r\nLocation: /x\r\nContent-Type: Text/Turtle; charset=utf-8\r\n\r\nbody")
            .expect("response head");
        assert_eq!(head.status, Some(303));
        assert_eq!(head.header("location"), Some("/x"));
        assert_eq!(head.mime().as_deref(), Some("text/turtle"));
        assert_eq!(len, 82);
        let (request, _) = parse_head(b"GET /a HTTP/1.1\r\nHost: h\r\n\r\n").expect("request head");
        assert_eq!(request.method.as_deref(), Some("GET"));
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nunterminated").is_none());
        assert!(parse_head(b"HTTP/1.1 abc OK\r\n\r\n").is_none());
    }
}
