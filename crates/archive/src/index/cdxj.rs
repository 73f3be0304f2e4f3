//! CDXJ and CDX-11 lines, byte-compatible with `cdxj-indexer` (CDXJ) and with what
//! OpenWayback / OutbackCDX read (CDX-11).

use std::borrow::Cow;
use std::fmt::Write as _;

use super::capture::Capture;

/// The legend line of a CDX-11 file.
pub const CDX11_LEGEND: &str = " CDX N b a m s k r M S V g";

/// A CDXJ line (without newline): `urlkey timestamp {json}` with the JSON keys and spelling
/// `cdxj-indexer` writes (all values strings, absent values omitted).
pub fn cdxj_line(capture: &Capture) -> String {
    let mut line = String::with_capacity(256);
    push_cdxj_line(&CdxFields::of(capture), &mut line);
    line
}

/// The fields of a capture that CDX lines show, borrowed (from a [`Capture`] or from the
/// index's stored form), so lines can be rendered without building a [`Capture`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxFields<'a> {
    /// SURT of the URL.
    pub urlkey: Cow<'a, str>,
    /// 14-digit timestamp.
    pub timestamp: &'a str,
    /// The URL as archived.
    pub url: Cow<'a, str>,
    /// Media type.
    pub mime: Option<Cow<'a, str>>,
    /// HTTP status.
    pub status: Option<u16>,
    /// Payload digest.
    pub digest: Option<Cow<'a, str>>,
    /// Record length.
    pub length: u64,
    /// Record offset.
    pub offset: u64,
    /// File relative to `warc/`.
    pub filename: Cow<'a, str>,
    /// Redirect target.
    pub redirect: Option<Cow<'a, str>>,
}

impl<'a> CdxFields<'a> {
    /// The fields of `capture`.
    pub fn of(capture: &'a Capture) -> Self {
        CdxFields {
            urlkey: Cow::Borrowed(&capture.urlkey),
            timestamp: &capture.timestamp,
            url: Cow::Borrowed(&capture.url),
            mime: capture.mime.as_deref().map(Cow::Borrowed),
            status: capture.status,
            digest: capture.digest.as_deref().map(Cow::Borrowed),
            length: capture.length,
            offset: capture.offset,
            filename: Cow::Borrowed(&capture.filename),
            redirect: capture.redirect.as_deref().map(Cow::Borrowed),
        }
    }
}

/// Appends the CDXJ line of `fields` (without newline) to `out`.
pub fn push_cdxj_line(fields: &CdxFields<'_>, out: &mut String) {
    // The keys need no escaping: written as they come out of `push_json_string`.
    out.push_str(&fields.urlkey);
    out.push(' ');
    out.push_str(fields.timestamp);
    out.push_str(" {\"url\": ");
    push_json_string(out, &fields.url);
    if let Some(mime) = &fields.mime {
        out.push_str(", \"mime\": ");
        push_json_string(out, mime);
    }
    let mut number = [0u8; 20];
    let mut push_number = |out: &mut String, key: &str, value: u64| {
        out.push_str(key);
        out.push_str(decimal(value, &mut number));
        out.push('"');
    };
    if let Some(status) = fields.status {
        push_number(out, ", \"status\": \"", status.into());
    }
    if let Some(digest) = &fields.digest {
        out.push_str(", \"digest\": ");
        push_json_string(out, digest);
    }
    push_number(out, ", \"length\": \"", fields.length);
    push_number(out, ", \"offset\": \"", fields.offset);
    out.push_str(", \"filename\": ");
    push_json_string(out, &fields.filename);
    out.push('}');
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
    let mut line = String::with_capacity(256);
    push_cdx11_line(&CdxFields::of(capture), &mut line);
    line
}

/// Appends the CDX-11 line of `fields` (without newline) to `out`.
pub fn push_cdx11_line(fields: &CdxFields<'_>, out: &mut String) {
    let dash = |out: &mut String, value: Option<&str>| match value {
        Some(v) if !v.is_empty() => push_cdx_token(out, v),
        _ => out.push('-'),
    };
    let mut number = [0u8; 20];
    out.push_str(&fields.urlkey);
    out.push(' ');
    out.push_str(fields.timestamp);
    out.push(' ');
    push_cdx_token(out, &fields.url);
    out.push(' ');
    dash(out, fields.mime.as_deref());
    out.push(' ');
    dash(out, fields.status.map(|s| decimal(s.into(), &mut number)));
    out.push(' ');
    let digest = fields
        .digest
        .as_deref()
        .map(|d| d.rsplit(':').next().unwrap_or(d));
    dash(out, digest);
    out.push(' ');
    dash(out, fields.redirect.as_deref());
    out.push_str(" - ");
    out.push_str(decimal(fields.length, &mut number));
    out.push(' ');
    out.push_str(decimal(fields.offset, &mut number));
    out.push(' ');
    push_cdx_token(out, &fields.filename);
}

/// `value` in decimal, written into `buffer`.
fn decimal(mut value: u64, buffer: &mut [u8; 20]) -> &str {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    std::str::from_utf8(&buffer[at..]).unwrap_or("0")
}

/// Appends `value` as a CDX token (see [`cdx_token`]).
fn push_cdx_token(out: &mut String, value: &str) {
    if value.contains([' ', '\n', '\r']) {
        out.push_str(&cdx_token(value));
    } else {
        out.push_str(value);
    }
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
    // Most values are printable ASCII with nothing to escape: copied in runs, not by char.
    let mut rest = value;
    while !rest.is_empty() {
        let run = rest
            .bytes()
            .position(|byte| !PLAIN_JSON[usize::from(byte)])
            .unwrap_or(rest.len());
        out.push_str(&rest[..run]);
        rest = &rest[run..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = &rest[c.len_utf8()..];
        push_json_char(out, c);
    }
    out.push('"');
}

/// Bytes a JSON string holds as they are: printable ASCII but `"` and `\`. A table, as
/// `ldwarc cdx` checks every byte of every URL and file name against it.
const PLAIN_JSON: [bool; 256] = {
    let mut plain = [false; 256];
    let mut byte = 0x20;
    while byte <= 0x7e {
        plain[byte] = byte != b'"' as usize && byte != b'\\' as usize;
        byte += 1;
    }
    plain
};

/// One character of a JSON string that is not printable ASCII, or `"` or `\`, escaped as
/// cdxj-indexer (Python's `json.dumps`) writes it.
fn push_json_char(out: &mut String, c: char) {
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
            record_type: ldwarc_warc::RecordType::Response,
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
