//! Minimal HTTP/1.1 for the test web: reading and parsing a bounded request head (origin-form
//! and absolute-form targets), building response heads, and HTTP dates.

use chrono::{DateTime, Utc};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The largest request head the server reads.
pub const MAX_REQUEST_HEAD: usize = 64 * 1024;

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// The method, e.g. `GET`.
    pub method: String,
    /// The request target exactly as sent (`/path` or `http://host/path`).
    pub target: String,
    /// Header fields in the order sent.
    pub headers: Vec<(String, String)>,
}

/// The outcome of reading a request head.
#[derive(Debug)]
pub enum HeadRead {
    /// A complete, parseable head.
    Complete(RequestHead),
    /// More than [`MAX_REQUEST_HEAD`] bytes without the end of the head.
    TooLarge,
    /// Bytes that are not an HTTP request head.
    Malformed,
    /// The client closed (or failed) before sending a complete head.
    Closed,
}

impl RequestHead {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        ldwarc_warc::http::header_value(&self.headers, name)
    }

    /// The host (lower case, no port) and the normalised path plus query the request is for:
    /// from an absolute-form target if there is one, else from the target and `Host`.
    pub fn host_and_path(&self) -> (String, String) {
        let target = self.target.as_str();
        let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return super::model::split_url(target).unwrap_or_default();
        }
        let host = self.header("host").map(strip_port).unwrap_or_default();
        let path = if target.starts_with('/') {
            super::model::split_url(&format!("http://placeholder{target}"))
                .map_or_else(|| target.to_string(), |(_, path)| path)
        } else {
            target.to_string()
        };
        (host, path)
    }
}

/// A `Host` header value without its port, lower case, without a trailing dot.
fn strip_port(host: &str) -> String {
    let host = host.trim();
    let name = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(host)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        }
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The length of the head in `buffer` including its blank line, if it is complete.
fn head_end(buffer: &[u8]) -> Option<usize> {
    if let Some(at) = memchr::memmem::find(buffer, b"\r\n\r\n") {
        return Some(at + 4);
    }
    memchr::memmem::find(buffer, b"\n\n").map(|at| at + 2)
}

/// Reads one request head, at most [`MAX_REQUEST_HEAD`] bytes.
pub async fn read_request_head(stream: &mut TcpStream) -> HeadRead {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = head_end(&buffer) {
            return parse_request_head(&buffer[..end])
                .map_or(HeadRead::Malformed, HeadRead::Complete);
        }
        if buffer.len() > MAX_REQUEST_HEAD {
            return HeadRead::TooLarge;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return HeadRead::Closed,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Parses a request head (request line and header fields).
pub fn parse_request_head(bytes: &[u8]) -> Option<RequestHead> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    let mut request_line = lines.next()?.split_whitespace();
    let method = request_line.next()?.to_string();
    let target = request_line.next()?.to_string();
    let version = request_line.next()?;
    if !version.starts_with("HTTP/") || request_line.next().is_some() {
        return None;
    }
    let mut headers = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    Some(RequestHead {
        method,
        target,
        headers,
    })
}

/// The reason phrase for a status code.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A response head: status line, the given fields, then `Date`, `Server` and
/// `Connection: close` (every connection carries one exchange).
pub fn response_head(status: u16, headers: &[(&str, String)]) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Date: {}\r\n", http_date(Utc::now())));
    head.push_str("Server: ldwarc-testweb\r\nConnection: close\r\n\r\n");
    head.into_bytes()
}

/// An IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
pub fn http_date(time: DateTime<Utc>) -> String {
    time.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// Parses an IMF-fixdate (or any RFC 2822 date); `None` if it is not one.
pub fn parse_http_date(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc2822(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> RequestHead {
        parse_request_head(text.as_bytes()).unwrap()
    }

    #[test]
    fn origin_form_uses_the_host_header_without_port() {
        let h = head(
            "GET /a/b?x=1 HTTP/1.1\r\nHost: Data.Alpha.Example:8080\r\nAccept: text/turtle\r\n\r\n",
        );
        assert_eq!(h.method, "GET");
        assert_eq!(h.header("accept"), Some("text/turtle"));
        assert_eq!(
            h.host_and_path(),
            ("data.alpha.example".to_string(), "/a/b?x=1".to_string())
        );
    }

    #[test]
    fn absolute_form_uses_the_target() {
        let h = head("GET http://beta.example:80/catalog HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n");
        assert_eq!(
            h.host_and_path(),
            ("beta.example".to_string(), "/catalog".to_string())
        );
    }

    #[test]
    fn bad_heads_are_refused() {
        assert!(parse_request_head(b"\x16\x03\x01\x02\r\n\r\n").is_none());
        assert!(parse_request_head(b"GET /\r\n\r\n").is_none());
        assert!(parse_request_head(b"GET / HTTP/1.1\r\nno colon\r\n\r\n").is_none());
        assert_eq!(strip_port("[::1]:80"), "[::1]");
    }

    #[test]
    fn http_dates_round_trip() {
        let t = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(http_date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert!(parse_http_date("yesterday").is_none());
    }
}
