//! The compact stored form of a capture: tab-separated fields (values never hold tabs or
//! newlines: those are percent-escaped), which the index's zstd doc store compresses well.

use ldwarc_warc::RecordType;
use std::borrow::Cow;

use super::capture::{Capture, RecordLocation};
use super::cdxj::CdxFields;

const FIELDS: usize = 18;

fn needs_escape(value: &str) -> bool {
    memchr::memchr3(b'\t', b'\n', b'%', value.as_bytes()).is_some()
}

fn push_escaped(out: &mut Vec<u8>, value: &str) {
    if !needs_escape(value) {
        out.extend_from_slice(value.as_bytes());
        return;
    }
    for byte in value.bytes() {
        match byte {
            b'%' => out.extend_from_slice(b"%25"),
            b'\t' => out.extend_from_slice(b"%09"),
            b'\n' => out.extend_from_slice(b"%0A"),
            other => out.push(other),
        }
    }
}

fn unescape(value: &str) -> String {
    if value.contains('%') {
        value
            .replace("%09", "\t")
            .replace("%0A", "\n")
            .replace("%25", "%")
    } else {
        value.to_string()
    }
}

fn push_number(out: &mut Vec<u8>, value: impl Into<i128>) {
    let value: i128 = value.into();
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Encodes a capture for the doc store.
#[cfg(test)]
pub fn encode_capture(capture: &Capture) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    encode_capture_into(capture, &mut out);
    out
}

/// Appends the encoding of a capture to `out` (no allocation beyond `out` growing).
pub fn encode_capture_into(capture: &Capture, out: &mut Vec<u8>) {
    let tab = |out: &mut Vec<u8>| out.push(b'\t');
    push_escaped(out, &capture.urlkey);
    tab(out);
    out.extend_from_slice(capture.timestamp.as_bytes());
    tab(out);
    push_number(out, capture.time_micros);
    tab(out);
    push_escaped(out, &capture.url);
    tab(out);
    push_escaped(out, capture.mime.as_deref().unwrap_or(""));
    tab(out);
    if let Some(status) = capture.status {
        push_number(out, status);
    }
    tab(out);
    push_escaped(out, capture.digest.as_deref().unwrap_or(""));
    tab(out);
    push_number(out, capture.length);
    tab(out);
    push_number(out, capture.offset);
    tab(out);
    push_escaped(out, &capture.filename);
    tab(out);
    push_escaped(out, capture.record_type.as_str());
    tab(out);
    push_escaped(out, capture.redirect.as_deref().unwrap_or(""));
    tab(out);
    push_escaped(out, capture.record_id.as_deref().unwrap_or(""));
    tab(out);
    push_escaped(out, capture.refers_to_url.as_deref().unwrap_or(""));
    tab(out);
    push_escaped(out, capture.refers_to_timestamp.as_deref().unwrap_or(""));
    tab(out);
    if let Some(original) = &capture.original {
        push_escaped(out, &original.filename);
        tab(out);
        push_number(out, original.offset);
        tab(out);
        push_number(out, original.length);
    } else {
        tab(out);
        tab(out);
    }
}

/// The fields CDX lines show, borrowed from what [`encode_capture_into`] wrote (copied only
/// where a value was escaped); `None` for anything else.
pub fn cdx_fields<'a>(bytes: &'a [u8]) -> Option<CdxFields<'a>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut parts = [""; FIELDS];
    let mut count = 0;
    let mut start = 0;
    // Tabs found with memchr (CDX export reads every capture through here).
    for tab in memchr::memchr_iter(b'\t', bytes).chain([bytes.len()]) {
        *parts.get_mut(count)? = text.get(start..tab)?;
        count += 1;
        start = tab + 1;
    }
    if count != FIELDS {
        return None;
    }
    // Most records hold no escape at all: one search over the record instead of one per
    // field.
    let escaped = memchr::memchr(b'%', bytes).is_some();
    let field = |s: &'a str| -> Cow<'a, str> {
        if escaped && s.contains('%') {
            Cow::Owned(unescape(s))
        } else {
            Cow::Borrowed(s)
        }
    };
    let optional = |s: &'a str| (!s.is_empty()).then(|| field(s));
    Some(CdxFields {
        urlkey: field(parts[0]),
        timestamp: parts[1],
        url: field(parts[3]),
        mime: optional(parts[4]),
        status: if parts[5].is_empty() {
            None
        } else {
            Some(parts[5].parse().ok()?)
        },
        digest: optional(parts[6]),
        length: parts[7].parse().ok()?,
        offset: parts[8].parse().ok()?,
        filename: field(parts[9]),
        redirect: optional(parts[11]),
    })
}

/// Decodes what [`encode_capture`] wrote; `None` for anything else.
pub fn decode_capture(bytes: &[u8]) -> Option<Capture> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut parts = [""; FIELDS];
    let mut fields = text.split('\t');
    for part in &mut parts {
        *part = fields.next()?;
    }
    if fields.next().is_some() {
        return None;
    }
    // Most records hold no escape at all: one search over the record instead of one per
    // field (snapshots decode every capture of the index).
    let escaped = memchr::memchr(b'%', bytes).is_some();
    let unescape = |s: &str| if escaped { unescape(s) } else { s.to_string() };
    let optional = |s: &str| (!s.is_empty()).then(|| unescape(s));
    Some(Capture {
        urlkey: unescape(parts[0]),
        timestamp: parts[1].to_string(),
        time_micros: parts[2].parse().ok()?,
        url: unescape(parts[3]),
        mime: optional(parts[4]),
        status: if parts[5].is_empty() {
            None
        } else {
            Some(parts[5].parse().ok()?)
        },
        digest: optional(parts[6]),
        length: parts[7].parse().ok()?,
        offset: parts[8].parse().ok()?,
        filename: unescape(parts[9]),
        record_type: RecordType::from_exact(&unescape(parts[10])),
        redirect: optional(parts[11]),
        record_id: optional(parts[12]),
        refers_to_url: optional(parts[13]),
        refers_to_timestamp: optional(parts[14]),
        original: if parts[15].is_empty() {
            None
        } else {
            Some(RecordLocation {
                filename: unescape(parts[15]),
                offset: parts[16].parse().ok()?,
                length: parts[17].parse().ok()?,
            })
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_awkward_values() {
        let capture = Capture {
            urlkey: "org,example)/a%20b".into(),
            timestamp: "20261121100000".into(),
            time_micros: 1_795_255_200_000_123,
            url: "http://example.org/a%20b\tc".into(),
            mime: None,
            status: Some(303),
            digest: Some("sha1:ABC".into()),
            length: 10,
            offset: 20,
            filename: "2026/11/21/10/example.org/x.warc.gz".into(),
            record_type: RecordType::Response,
            redirect: Some("http://example.org/b".into()),
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: Some(RecordLocation {
                filename: "a.warc.gz".into(),
                offset: 5,
                length: 6,
            }),
        };
        assert_eq!(
            decode_capture(&encode_capture(&capture)),
            Some(capture.clone())
        );
        assert_eq!(
            cdx_fields(&encode_capture(&capture)),
            Some(CdxFields::of(&capture))
        );
        assert_eq!(decode_capture(b"garbage"), None);
        let bare = Capture {
            time_micros: -1_234_567,
            status: None,
            digest: None,
            redirect: None,
            original: None,
            refers_to_url: Some("http://example.org/%\n".into()),
            ..capture
        };
        assert_eq!(decode_capture(&encode_capture(&bare)), Some(bare.clone()));
        assert_eq!(
            cdx_fields(&encode_capture(&bare)),
            Some(CdxFields::of(&bare))
        );
        assert_eq!(cdx_fields(b"garbage"), None);
    }
}
