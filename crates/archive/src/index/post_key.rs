//! The index key of a POST or PUT capture, as pywb and cdxj-indexer (`--post-append`, which
//! py-wacz, ArchiveWeb.page and browsertrix use) give it: the target URI with
//! `__wb_method=<method>` and the request body, read as a query, appended. Replay tools look
//! such captures up by that key, so two POSTs to one URL with different bodies stay apart.
//!
//! The body is read by its media type: a form (`application/x-www-form-urlencoded`) as it is,
//! percent-decoded; JSON (and `text/plain` that is JSON) flattened to `name=value` pairs;
//! anything else as `__wb_post_data=` and its Base64. The query is cut at 4,096 characters.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The longest query kept from a body, in characters (cdxj-indexer's limit).
const MAX_QUERY_CHARS: usize = 4096;

/// What is read of a body whose request gives no `Content-Length`.
const BODY_WITHOUT_LENGTH: usize = 8192;

/// The request half of a request/response pair, as far as the key needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// The method as the request line spells it.
    pub(crate) method: String,
    /// The request's `Content-Type`.
    pub(crate) content_type: Option<String>,
    /// The request's `Content-Length`, as written.
    pub(crate) content_length: Option<String>,
    /// The body (what the record holds after the HTTP head).
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// Whether captures of this request get a method key (POST and PUT, in any case).
    pub(crate) fn keyed(&self) -> bool {
        self.method.eq_ignore_ascii_case("POST") || self.method.eq_ignore_ascii_case("PUT")
    }

    /// `url` with the method and the body's query appended, the URL that is then SURT-ed
    /// into the key.
    pub(crate) fn keyed_url(&self, url: &str) -> String {
        // Only the exact spellings have their body read; `post` is keyed by its name only.
        let query = if self.method == "POST" || self.method == "PUT" {
            self.body_query()
        } else {
            None
        };
        let mut keyed = String::with_capacity(url.len() + 32);
        keyed.push_str(url);
        keyed.push(if url.contains('?') { '&' } else { '?' });
        keyed.push_str("__wb_method=");
        keyed.push_str(&self.method);
        if let Some(query) = query.filter(|query| !query.is_empty()) {
            keyed.push('&');
            keyed.push_str(&query);
        }
        keyed
    }

    /// The body as a query; `None` when the `Content-Length` is not a number.
    fn body_query(&self) -> Option<String> {
        let length = match &self.content_length {
            None => BODY_WITHOUT_LENGTH,
            Some(text) => match text.trim().parse::<i64>() {
                Ok(length) => usize::try_from(length).unwrap_or(0),
                Err(_) => return None,
            },
        };
        let body = &self.body[..self.body.len().min(length)];
        let mime = self.content_type.as_deref().unwrap_or("");
        let query = if mime.starts_with("application/x-www-form-urlencoded") {
            match std::str::from_utf8(body) {
                Ok(text) => unquote_plus(text),
                Err(_) => binary(body),
            }
        } else if mime.starts_with("application/json") {
            json_query(body).unwrap_or_default()
        } else if mime.starts_with("text/plain") {
            json_query(body).unwrap_or_else(|| binary(body))
        } else {
            binary(body)
        };
        Some(query.chars().take(MAX_QUERY_CHARS).collect())
    }
}

/// A body that is not read as a query: `__wb_post_data=` and its Base64.
fn binary(body: &[u8]) -> String {
    format!("__wb_post_data={}", data_encoding::BASE64.encode(body))
}

/// A form body decoded: `+` as a space, `%XX` escapes as the bytes they stand for (read as
/// UTF-8, an invalid sequence as U+FFFD).
fn unquote_plus(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(at + 1..at + 3)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                match hex {
                    Some(value) => {
                        out.push(value);
                        at += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            _ => out.push(byte),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A JSON body flattened: each scalar as `name=value`, named by the innermost object key
/// above it (array items take their array's name), a repeated name as `name.2_`,
/// `name.3_`, …, in document order, form-encoded. A body of one JSON value per line is read
/// line by line. `None` if it is not JSON.
fn json_query(body: &[u8]) -> Option<String> {
    let mut pairs = Pairs::default();
    if flatten(body, &mut pairs).is_err() {
        if !body.contains(&b'\n') {
            return None;
        }
        pairs = Pairs::default();
        for line in body.split(|&b| b == b'\n') {
            flatten(line, &mut pairs).ok()?;
        }
    }
    let mut query = String::new();
    for (name, value) in &pairs.list {
        if !query.is_empty() {
            query.push('&');
        }
        quote_plus(name, &mut query);
        query.push('=');
        quote_plus(value, &mut query);
    }
    Some(query)
}

fn flatten(text: &[u8], pairs: &mut Pairs) -> Result<(), serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    Flatten { pairs, name: "" }.deserialize(&mut deserializer)?;
    deserializer.end()
}

/// Flattened pairs, in document order, names made unique.
#[derive(Default)]
struct Pairs {
    list: Vec<(String, String)>,
    /// The last number given to each repeated name.
    repeats: std::collections::HashMap<String, usize>,
}

impl Pairs {
    fn add(&mut self, name: &str, value: String) {
        if name.is_empty() {
            return;
        }
        let taken = self.list.iter().any(|(taken, _)| taken == name);
        let name = if taken {
            let count = self.repeats.entry(name.to_string()).or_insert(1);
            *count += 1;
            format!("{name}.{count}_")
        } else {
            name.to_string()
        };
        match self.list.iter_mut().find(|(taken, _)| *taken == name) {
            Some(pair) => pair.1 = value,
            None => self.list.push((name, value)),
        }
    }
}

/// Reads one JSON value into [`Pairs`] under `name`, in document order.
struct Flatten<'a, 'n> {
    pairs: &'a mut Pairs,
    name: &'n str,
}

impl<'de> DeserializeSeed<'de> for Flatten<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Flatten<'_, '_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        self.pairs
            .add(self.name, if value { "True" } else { "False" }.to_string());
        Ok(())
    }

    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        self.pairs.add(self.name, value.to_string());
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        self.pairs.add(self.name, value.to_string());
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        self.pairs.add(self.name, python_float(value));
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        self.pairs.add(self.name, value.to_string());
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.pairs.add(self.name, "None".to_string());
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items
            .next_element_seed(Flatten {
                pairs: self.pairs,
                name: self.name,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        while let Some(name) = entries.next_key::<String>()? {
            entries.next_value_seed(Flatten {
                pairs: self.pairs,
                name: &name,
            })?;
        }
        Ok(())
    }
}

/// A number as Python's `str` writes a float: the shortest digits that read back, fixed
/// between 1e-4 and 1e16 (with `.0` when whole), else in exponent form (`1e+16`, `1.5e-05`).
fn python_float(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".to_string()
        } else if value > 0.0 {
            "inf".to_string()
        } else {
            "-inf".to_string()
        };
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..16).contains(&exponent) {
        let fixed = format!("{value}");
        if fixed.contains('.') {
            fixed
        } else {
            format!("{fixed}.0")
        }
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    }
}

/// Appends `text` form-encoded as Python's `quote_plus` does: letters, digits and `_.-~`
/// as they are, a space as `+`, every other byte as `%XX`.
fn quote_plus(text: &str, out: &mut String) {
    for &byte in text.as_bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(char::from(b"0123456789ABCDEF"[usize::from(byte >> 4)]));
                out.push(char::from(b"0123456789ABCDEF"[usize::from(byte & 15)]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, content_type: Option<&str>, body: &[u8]) -> Request {
        Request {
            method: method.to_string(),
            content_type: content_type.map(str::to_string),
            content_length: Some(body.len().to_string()),
            body: body.to_vec(),
        }
    }

    #[test]
    fn bodies_are_read_as_queries_by_their_media_type() {
        let url = "http://example.com/api";
        let form = request(
            "POST",
            Some("application/x-www-form-urlencoded; charset=UTF-8"),
            b"a=b+c&d=%C3%A9",
        );
        assert_eq!(
            form.keyed_url(url),
            "http://example.com/api?__wb_method=POST&a=b c&d=é"
        );
        let json = request(
            "POST",
            Some("application/json"),
            br#"{"z": 1, "a": [true, null, 1.5, 1e20], "o": {"z": "x y"}}"#,
        );
        assert_eq!(
            json.keyed_url("http://example.com/api?x=1"),
            "http://example.com/api?x=1&__wb_method=POST&z=1&a=True&a.2_=None&a.3_=1.5&a.4_=1e%2B20&z.2_=x+y"
        );
        let binary = request("PUT", Some("application/octet-stream"), &[0, 1, 2, 255]);
        assert_eq!(
            binary.keyed_url(url),
            "http://example.com/api?__wb_method=PUT&__wb_post_data=AAEC/w=="
        );
        // Not JSON: nothing from a JSON body, Base64 from a text one.
        let broken = request("POST", Some("application/json"), b"{");
        assert_eq!(
            broken.keyed_url(url),
            "http://example.com/api?__wb_method=POST"
        );
        let text = request("POST", Some("text/plain"), b"{");
        assert_eq!(
            text.keyed_url(url),
            "http://example.com/api?__wb_method=POST&__wb_post_data=ew=="
        );
        // JSON lines.
        let lines = request("POST", Some("application/json"), b"{\"a\": 1}\n{\"a\": 2}");
        assert_eq!(
            lines.keyed_url(url),
            "http://example.com/api?__wb_method=POST&a=1&a.2_=2"
        );
        // A method spelled otherwise is keyed by its name, its body unread.
        let lower = request("post", Some("application/x-www-form-urlencoded"), b"a=b");
        assert!(lower.keyed());
        assert_eq!(
            lower.keyed_url(url),
            "http://example.com/api?__wb_method=post"
        );
        assert!(!request("GET", None, b"").keyed());
    }

    #[test]
    fn the_length_bounds_the_body_and_the_query_is_cut() {
        let mut short = request(
            "POST",
            Some("application/x-www-form-urlencoded"),
            b"a=bcdef",
        );
        short.content_length = Some("3".to_string());
        assert_eq!(
            short.keyed_url("http://e.x/"),
            "http://e.x/?__wb_method=POST&a=b"
        );
        short.content_length = Some("x".to_string());
        assert_eq!(
            short.keyed_url("http://e.x/"),
            "http://e.x/?__wb_method=POST"
        );
        let long = request(
            "POST",
            Some("application/x-www-form-urlencoded"),
            &[b'a'; 5000],
        );
        assert_eq!(
            long.keyed_url("http://e.x/").len(),
            "http://e.x/?__wb_method=POST&".len() + MAX_QUERY_CHARS
        );
    }

    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (value, text) in [
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (-2.5e-7, "-2.5e-07"),
            (123456.789, "123456.789"),
        ] {
            assert_eq!(python_float(value), text, "{value}");
        }
    }
}
