//! CDXJ and CDX-11 lines, byte-compatible with `cdxj-indexer` (CDXJ) and with what
//! OpenWayback / OutbackCDX read (CDX-11).

use std::fmt::Write as _;

use super::capture::Capture;

/// The legend line of a CDX-11 file.
pub const CDX11_LEGEND: &str = " CDX N b a m s k r M S V g";

/// A CDXJ line (without newline): `urlkey timestamp {json}` with the JSON keys and spelling
/// `cdxj-indexer` writes (all values strings, absent values omitted).
pub fn cdxj_line(capture: &Capture) -> String {
    let mut object =
        JsonObject::after_prefix(&format!("{} {} ", capture.urlkey, capture.timestamp));
    object.field("url", &capture.url);
    if let Some(mime) = &capture.mime {
        object.field("mime", mime);
    }
    if let Some(status) = capture.status {
        object.field("status", &status.to_string());
    }
    if let Some(digest) = &capture.digest {
        object.field("digest", digest);
    }
    object.field("length", &capture.length.to_string());
    object.field("offset", &capture.offset.to_string());
    object.field("filename", &capture.filename);
    object.finish()
}

/// A flat JSON object of string values written as Python's `json.dumps` writes one
/// (`", "` and `": "` separators, non-ASCII escaped), after an optional line prefix.
pub struct JsonObject {
    text: String,
    empty: bool,
}

impl JsonObject {
    /// An object that follows `prefix` on its line.
    pub fn after_prefix(prefix: &str) -> Self {
        let mut text = String::with_capacity(prefix.len() + 224);
        text.push_str(prefix);
        text.push('{');
        Self { text, empty: true }
    }

    /// Appends `"name": "value"`.
    pub fn field(&mut self, name: &str, value: &str) {
        if !self.empty {
            self.text.push_str(", ");
        }
        self.empty = false;
        push_json_string(&mut self.text, name);
        self.text.push_str(": ");
        push_json_string(&mut self.text, value);
    }

    /// The finished line.
    pub fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// A CDX-11 line: `urlkey timestamp url mime status digest redirect meta length offset filename`,
/// `-` for absent values, the digest without its `sha1:` label.
pub fn cdx11_line(capture: &Capture) -> String {
    let dash = |value: Option<&str>| match value {
        Some(v) if !v.is_empty() => cdx_token(v),
        _ => "-".to_string(),
    };
    let status = capture.status.map(|s| s.to_string());
    let digest = capture
        .digest
        .as_deref()
        .map(|d| d.rsplit(':').next().unwrap_or(d).to_string());
    format!(
        "{} {} {} {} {} {} {} - {} {} {}",
        capture.urlkey,
        capture.timestamp,
        cdx_token(&capture.url),
        dash(capture.mime.as_deref()),
        dash(status.as_deref()),
        dash(digest.as_deref()),
        dash(capture.redirect.as_deref()),
        capture.length,
        capture.offset,
        cdx_token(&capture.filename)
    )
}

/// CDX fields are separated by spaces: escape any inside a value.
fn cdx_token(value: &str) -> String {
    value
        .replace(' ', "%20")
        .replace('\n', "%0A")
        .replace('\r', "%0D")
}

/// Appends `value` as a JSON string the way Python's `json.dumps` writes it by default:
/// non-ASCII escaped as `\uXXXX` (surrogate pairs above U+FFFF).
pub fn push_json_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Capture {
        Capture {
            urlkey: "com,example)/?example=1".into(),
            timestamp: "20140103030321".into(),
            time_micros: 0,
            url: "http://example.com?example=1".into(),
            mime: Some("text/html".into()),
            status: Some(200),
            digest: Some("sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A".into()),
            length: 1043,
            offset: 333,
            filename: "example.warc.gz".into(),
            record_type: "response".into(),
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    #[test]
    fn cdxj_matches_cdxj_indexer_spelling() {
        assert_eq!(
            cdxj_line(&sample()),
            r#"com,example)/?example=1 20140103030321 {"url": "http://example.com?example=1", "mime": "text/html", "status": "200", "digest": "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A", "length": "1043", "offset": "333", "filename": "example.warc.gz"}"#
        );
    }

    #[test]
    fn cdx11_has_eleven_fields() {
        let line = cdx11_line(&sample());
        assert_eq!(
            line,
            "com,example)/?example=1 20140103030321 http://example.com?example=1 text/html 200 B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A - - 1043 333 example.warc.gz"
        );
        assert_eq!(line.split(' ').count(), 11);
    }

    #[test]
    fn json_escapes_like_python() {
        let mut out = String::new();
        push_json_string(&mut out, "é\"\\\u{1F600}\u{7f}\u{1}");
        assert_eq!(out, r#""\u00e9\"\\\ud83d\ude00\u007f\u0001""#);
    }
}
