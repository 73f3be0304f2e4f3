//! Response heads: finding where a head ends, parsing the status line and header fields
//! leniently (LF-only lines, obsolete folding, non-UTF-8 bytes), deciding how the body is framed,
//! and dropping the `chunked` coding from a head whose body we store de-chunked.

/// A parsed response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedHead {
    pub status: u16,
    /// Header fields in order, repeats kept, folded lines joined with one space.
    pub headers: Vec<(String, String)>,
}

/// How the body after a head is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// No body (1xx, 204, 304).
    None,
    /// `Transfer-Encoding` ending in `chunked`.
    Chunked,
    /// `Content-Length`.
    Length(u64),
    /// Everything until the server closes the connection.
    UntilClose,
}

/// Splits `raw` into lines, each keeping its line end.
fn raw_lines(raw: &[u8]) -> impl Iterator<Item = &[u8]> {
    raw.split_inclusive(|&b| b == b'\n')
}

/// A line without its line end (LF or CRLF).
fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn is_continuation(line: &[u8]) -> bool {
    matches!(line.first(), Some(b' ' | b'\t'))
}

/// Parses a head as received (status line, header lines, empty line). The status line is
/// checked strictly (it decides how the body is framed); the fields are read as the archive
/// reads stored heads (`warc::http::parse_head`: LF or CRLF, folding, lossy UTF-8).
pub(crate) fn parse_head(raw: &[u8]) -> Result<ParsedHead, String> {
    let status_line = raw_lines(raw).map(trim_line_end).next().unwrap_or_default();
    let status = parse_status_line(status_line)?;
    let (head, _) = ldwarc_warc::http::parse_head(raw)
        .ok_or_else(|| format!("incomplete response head \"{}\"", snippet(raw)))?;
    Ok(ParsedHead {
        status,
        headers: head.headers,
    })
}

/// The status code of `HTTP/1.x NNN reason`.
fn parse_status_line(line: &[u8]) -> Result<u16, String> {
    let malformed = || format!("bad status line \"{}\"", snippet(line));
    let rest = line.strip_prefix(b"HTTP/").ok_or_else(malformed)?;
    let space = memchr::memchr(b' ', rest).ok_or_else(malformed)?;
    let version = &rest[..space];
    if !version.starts_with(b"1.") {
        return Err(format!(
            "unsupported HTTP version in status line \"{}\"",
            snippet(line)
        ));
    }
    let rest = rest[space..].trim_ascii_start();
    let code = rest.get(..3).ok_or_else(malformed)?;
    let follows_ok = rest.get(3).is_none_or(|b| b.is_ascii_whitespace());
    if !code.iter().all(u8::is_ascii_digit) || !follows_ok || code[0] == b'0' {
        return Err(malformed());
    }
    Ok(code
        .iter()
        .fold(0u16, |n, digit| n * 10 + u16::from(digit - b'0')))
}

/// The first bytes of `bytes`, escaped for a one-line message.
pub(crate) fn snippet(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(60)];
    let more = if bytes.len() > shown.len() { "…" } else { "" };
    format!("{}{more}", shown.escape_ascii())
}

/// All values of header `name` (case-insensitive), split at commas, trimmed, empty ones dropped.
fn list_values<'a>(
    headers: &'a [(String, String)],
    name: &'a str,
) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .flat_map(|(_, value)| value.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// How the body of a response with `status` and `headers` is delimited (RFC 9112 §6.3).
pub(crate) fn framing(status: u16, headers: &[(String, String)]) -> Result<Framing, String> {
    if status < 200 || status == 204 || status == 304 {
        return Ok(Framing::None);
    }
    let codings: Vec<&str> = list_values(headers, "transfer-encoding").collect();
    if let Some(last) = codings.last() {
        // Transfer-Encoding overrides Content-Length; without a final chunked, read to close.
        return Ok(if last.eq_ignore_ascii_case("chunked") {
            Framing::Chunked
        } else {
            Framing::UntilClose
        });
    }
    let mut length = None;
    for value in list_values(headers, "content-length") {
        let parsed = value
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| value.parse::<u64>().ok())
            .flatten()
            .ok_or_else(|| format!("invalid Content-Length \"{value}\""))?;
        if length.is_some_and(|known| known != parsed) {
            return Err("conflicting Content-Length values".to_string());
        }
        length = Some(parsed);
    }
    Ok(length.map_or(Framing::UntilClose, Framing::Length))
}

/// `raw` with the `chunked` coding taken out of its `Transfer-Encoding` fields (the line goes
/// away when nothing else is left), for a body that is stored de-chunked.
pub(crate) fn without_chunked_coding(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut lines = raw_lines(raw).peekable();
    if let Some(status_line) = lines.next() {
        out.extend_from_slice(status_line);
    }
    while let Some(line) = lines.next() {
        if !is_transfer_encoding(line) {
            out.extend_from_slice(line);
            continue;
        }
        let line_end: &[u8] = if line.ends_with(b"\r\n") {
            b"\r\n"
        } else {
            b"\n"
        };
        let mut value = field_value(line).to_vec();
        while let Some(folded) = lines.next_if(|next| is_continuation(next)) {
            value.push(b',');
            value.extend_from_slice(trim_line_end(folded));
        }
        let kept: Vec<&[u8]> = value
            .split(|&b| b == b',')
            .map(<[u8]>::trim_ascii)
            .filter(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case(b"chunked"))
            .collect();
        if !kept.is_empty() {
            out.extend_from_slice(b"Transfer-Encoding: ");
            out.extend_from_slice(&kept.join(&b", "[..]));
            out.extend_from_slice(line_end);
        }
    }
    out
}

fn is_transfer_encoding(line: &[u8]) -> bool {
    !is_continuation(line)
        && memchr::memchr(b':', line).is_some_and(|colon| {
            line[..colon]
                .trim_ascii()
                .eq_ignore_ascii_case(b"transfer-encoding")
        })
}

fn field_value(line: &[u8]) -> &[u8] {
    let line = trim_line_end(line);
    memchr::memchr(b':', line).map_or(&[], |colon| &line[colon + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_lenient_heads() {
        let raw = b"HTTP/1.0 404 Not Found\nServer: x\n  folded\tmore\nbogus line\nX-Latin: caf\xe9\nSet-Cookie: a\r\nSet-Cookie: b\n\n";
        let head = parse_head(raw).unwrap();
        assert_eq!(head.status, 404);
        assert_eq!(
            head.headers,
            headers(&[
                ("Server", "x folded\tmore"),
                ("X-Latin", "caf\u{fffd}"),
                ("Set-Cookie", "a"),
                ("Set-Cookie", "b"),
            ])
        );
        assert_eq!(parse_head(b"HTTP/1.1 200\r\n\r\n").unwrap().status, 200);
    }

    #[test]
    fn rejects_bad_status_lines() {
        for bad in [
            &b"HTTP/1.1 2000 OK\r\n\r\n"[..],
            b"HTTP/1.1 abc OK\r\n\r\n",
            b"HTTP/2 200 OK\r\n\r\n",
            b"HTTP/1.1\r\n\r\n",
            b"ICY 200 OK\r\n\r\n",
            b"HTTP/1.1 099 x\r\n\r\n",
        ] {
            assert!(parse_head(bad).is_err(), "{}", bad.escape_ascii());
        }
    }

    #[test]
    fn framing_follows_rfc_9112() {
        let none: Vec<(String, String)> = Vec::new();
        assert_eq!(framing(204, &none), Ok(Framing::None));
        assert_eq!(
            framing(304, &headers(&[("Content-Length", "5")])),
            Ok(Framing::None)
        );
        assert_eq!(framing(200, &none), Ok(Framing::UntilClose));
        assert_eq!(
            framing(
                200,
                &headers(&[("Content-Length", "5"), ("content-length", "5, 5")])
            ),
            Ok(Framing::Length(5))
        );
        assert!(
            framing(
                200,
                &headers(&[("Content-Length", "5"), ("Content-Length", "6")])
            )
            .is_err()
        );
        assert!(framing(200, &headers(&[("Content-Length", "-1")])).is_err());
        assert!(framing(200, &headers(&[("Content-Length", "+5")])).is_err());
        assert!(
            framing(
                200,
                &headers(&[("Content-Length", "99999999999999999999999")])
            )
            .is_err()
        );
        assert_eq!(
            framing(
                200,
                &headers(&[
                    ("Content-Length", "x"),
                    ("Transfer-Encoding", "gzip, Chunked")
                ])
            ),
            Ok(Framing::Chunked)
        );
        assert_eq!(
            framing(200, &headers(&[("Transfer-Encoding", "gzip")])),
            Ok(Framing::UntilClose)
        );
    }

    #[test]
    fn chunked_coding_is_removed_from_the_raw_head() {
        let raw = b"HTTP/1.1 200 OK\r\nDate: x\r\ntransfer-encoding : chunked\r\nX: y\r\n\r\n";
        assert_eq!(
            without_chunked_coding(raw),
            b"HTTP/1.1 200 OK\r\nDate: x\r\nX: y\r\n\r\n"
        );
        let other = b"HTTP/1.1 200 OK\nTransfer-Encoding: gzip,\n chunked\nX: y\n\n";
        assert_eq!(
            without_chunked_coding(other),
            b"HTTP/1.1 200 OK\nTransfer-Encoding: gzip\nX: y\n\n"
        );
    }
}
