//! Bodies for the answers hyper gives on its own. A request hyper cannot parse (not HTTP/1.x,
//! a broken header line, a head too large) never reaches a handler: hyper answers it `400`
//! (or `431`, `414`, `505`) with an empty body and closes. The connection wrapper
//! ([`super::listener`]) hands each head the server writes to [`explained`], which gives such
//! an answer a plain-text body saying what was wrong, as every other refusal has.

/// The bytes to write instead of `bytes` when they are a whole response head hyper wrote for
/// a request it could not parse: the same status with a `text/plain` reason. `None` for
/// anything else (every answer of the application carries `Content-Type` or
/// `X-Content-Type-Options`, which hyper's own lack).
pub(crate) fn explained(bytes: &[u8]) -> Option<Vec<u8>> {
    // hyper's heads are short; the application's longer ones need no look.
    if bytes.len() > 512 || !bytes.starts_with(b"HTTP/1.") || !bytes.ends_with(b"\r\n\r\n") {
        return None;
    }
    let head = std::str::from_utf8(bytes).ok()?;
    let lower = head.to_ascii_lowercase();
    if lower.matches("\r\n\r\n").count() != 1
        || !lower.contains("\r\ncontent-length: 0\r\n")
        || lower.contains("\r\ncontent-type:")
        || lower.contains("\r\nx-content-type-options:")
    {
        return None;
    }
    let status: u16 = head.get(9..12)?.parse().ok()?;
    let reason = match status {
        400 => "malformed request: not an HTTP/1.x request this server can parse\n",
        408 => "no complete request head in time\n",
        414 => "request target too long\n",
        431 => "request head too large\n",
        505 => "HTTP version not supported: use HTTP/1.1\n",
        _ => return None,
    };
    let start = lower.find("\r\ncontent-length: 0\r\n")?;
    let end = start + "\r\ncontent-length: 0".len();
    let mut out = String::with_capacity(head.len() + reason.len() + 64);
    out.push_str(&head[..start]);
    out.push_str("\r\ncontent-type: text/plain; charset=utf-8\r\nx-content-type-options: nosniff");
    out.push_str(&format!("\r\ncontent-length: {}", reason.len()));
    out.push_str(&head[end..]);
    out.push_str(reason);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_own_heads_get_a_reason() {
        let bare = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 13:53:08 GMT\r\n\r\n";
        let text = String::from_utf8(explained(bare).expect("explained")).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("content-type: text/plain"));
        assert!(body.starts_with("malformed request"));
        // The application's answers are left alone.
        let ours =
            b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(explained(ours), None);
        let nosniff = b"HTTP/1.1 304 Not Modified\r\nx-content-type-options: nosniff\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(explained(nosniff), None);
        let with_body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nx";
        assert_eq!(explained(with_body), None);
    }
}
