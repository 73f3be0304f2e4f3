//! The compact stored form of a capture: tab-separated fields (values never hold tabs or
//! newlines: those are percent-escaped), which the index's zstd doc store compresses well.

use super::capture::{Capture, RecordLocation};

const FIELDS: usize = 18;

fn escape(value: &str) -> std::borrow::Cow<'_, str> {
    if value.contains(['\t', '\n', '%']) {
        value
            .replace('%', "%25")
            .replace('\t', "%09")
            .replace('\n', "%0A")
            .into()
    } else {
        value.into()
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

fn opt(value: Option<&str>) -> std::borrow::Cow<'_, str> {
    value.map_or("".into(), escape)
}

/// Encodes a capture for the doc store.
pub fn encode_capture(capture: &Capture) -> Vec<u8> {
    let status = capture.status.map(|s| s.to_string()).unwrap_or_default();
    let fields: [std::borrow::Cow<'_, str>; FIELDS] = [
        escape(&capture.urlkey),
        capture.timestamp.as_str().into(),
        capture.time_micros.to_string().into(),
        escape(&capture.url),
        opt(capture.mime.as_deref()),
        status.into(),
        opt(capture.digest.as_deref()),
        capture.length.to_string().into(),
        capture.offset.to_string().into(),
        escape(&capture.filename),
        escape(&capture.record_type),
        opt(capture.redirect.as_deref()),
        opt(capture.record_id.as_deref()),
        opt(capture.refers_to_url.as_deref()),
        opt(capture.refers_to_timestamp.as_deref()),
        opt(capture.original.as_ref().map(|o| o.filename.as_str())),
        capture
            .original
            .as_ref()
            .map(|o| o.offset.to_string())
            .unwrap_or_default()
            .into(),
        capture
            .original
            .as_ref()
            .map(|o| o.length.to_string())
            .unwrap_or_default()
            .into(),
    ];
    fields.join("\t").into_bytes()
}

/// Decodes what [`encode_capture`] wrote; `None` for anything else.
pub fn decode_capture(bytes: &[u8]) -> Option<Capture> {
    let text = std::str::from_utf8(bytes).ok()?;
    let parts: Vec<&str> = text.split('\t').collect();
    if parts.len() != FIELDS {
        return None;
    }
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
        record_type: unescape(parts[10]),
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
            record_type: "response".into(),
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
        assert_eq!(decode_capture(&encode_capture(&capture)), Some(capture));
        assert_eq!(decode_capture(b"garbage"), None);
    }
}
