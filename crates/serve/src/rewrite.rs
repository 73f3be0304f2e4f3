//! Archived HTML with its links rewritten into the archive, so a person can browse an
//! archived site: every URL-valued attribute of a start tag (`href`, `src`, `action`, …) is
//! resolved against the page (or its `<base href>`) and pointed at
//! `/web/{timestamp}/{absolute URL}`, where the server picks the capture closest to the
//! page's. Done on the server, for static pages, as pywb's rewriter does for them: scripts,
//! styles, `srcset` and frames are left as they are. Everything but the rewritten attribute
//! values is copied byte for byte, whatever the page's encoding (the markup is ASCII).

use url::Url;

/// Attributes whose value is one URL.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "poster",
    "background",
    "cite",
    "longdesc",
    "data",
];

/// Elements whose content is text up to their end tag, not markup.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp", "noscript"];

/// `html` (the page at `page_url`, captured at `timestamp`) with its links into the archive.
pub(crate) fn rewrite_html(html: &[u8], page_url: &str, timestamp: &str) -> Vec<u8> {
    let mut rewriter = Rewriter {
        html,
        out: Vec::with_capacity(html.len() + html.len() / 8),
        at: 0,
        base: Url::parse(page_url).ok(),
        timestamp,
    };
    rewriter.run();
    rewriter.out
}

struct Rewriter<'a> {
    html: &'a [u8],
    out: Vec<u8>,
    /// Bytes before `at` are handled.
    at: usize,
    base: Option<Url>,
    timestamp: &'a str,
}

impl Rewriter<'_> {
    fn run(&mut self) {
        while let Some(offset) = find(&self.html[self.at..], b"<") {
            self.copy_to(self.at + offset);
            let rest = &self.html[self.at..];
            if rest.starts_with(b"<!--") {
                let end = find(&rest[4..], b"-->").map_or(rest.len(), |e| e + 7);
                self.copy_to(self.at + end);
            } else if rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
                self.start_tag();
            } else {
                self.copy_to(self.at + 1);
            }
        }
        self.copy_to(self.html.len());
    }

    fn copy_to(&mut self, end: usize) {
        let end = end.min(self.html.len());
        self.out.extend_from_slice(&self.html[self.at..end]);
        self.at = end;
    }

    /// A start tag at `at`: copied with its URL attributes rewritten; the content of a raw
    /// text element is then copied up to its end tag.
    fn start_tag(&mut self) {
        let bytes = self.html;
        let mut i = self.at + 1;
        while i < bytes.len() && is_name_byte(bytes[i]) {
            i += 1;
        }
        let name = String::from_utf8_lossy(&bytes[self.at + 1..i]).to_ascii_lowercase();
        self.copy_to(i);
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            self.copy_to(i);
            match bytes.get(i) {
                None => return,
                Some(b'>') => {
                    self.copy_to(i + 1);
                    break;
                }
                Some(b'/') => {
                    i += 1;
                    continue;
                }
                Some(_) => {}
            }
            let attribute_start = i;
            while i < bytes.len()
                && !matches!(bytes[i], b'=' | b'>' | b'/')
                && !bytes[i].is_ascii_whitespace()
            {
                i += 1;
            }
            let attribute =
                String::from_utf8_lossy(&bytes[attribute_start..i]).to_ascii_lowercase();
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.get(j) != Some(&b'=') {
                self.copy_to(i.max(attribute_start + 1));
                i = self.at;
                continue;
            }
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            let (value_start, value_end, next) = match bytes.get(j) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let end = find(&bytes[j + 1..], &[quote]).map_or(bytes.len(), |e| j + 1 + e);
                    (j + 1, end, (end + 1).min(bytes.len()))
                }
                _ => {
                    let mut end = j;
                    while end < bytes.len()
                        && bytes[end] != b'>'
                        && !bytes[end].is_ascii_whitespace()
                    {
                        end += 1;
                    }
                    (j, end, end)
                }
            };
            let value = &bytes[value_start..value_end];
            let rewritten = URL_ATTRIBUTES
                .contains(&attribute.as_str())
                .then(|| self.archive_link(&name, value))
                .flatten();
            match rewritten {
                Some(new_value) => {
                    self.copy_to(attribute_start);
                    self.out.extend_from_slice(&bytes[attribute_start..i]);
                    self.out.extend_from_slice(b"=\"");
                    self.out
                        .extend_from_slice(escape_attribute(&new_value).as_bytes());
                    self.out.push(b'"');
                    self.at = next;
                }
                None => self.copy_to(next),
            }
            i = next;
        }
        if RAW_TEXT.contains(&name.as_str()) {
            let closing = format!("</{name}");
            let rest = &self.html[self.at..];
            let end = find_ignore_case(rest, closing.as_bytes()).map_or(rest.len(), |e| e);
            self.copy_to(self.at + end);
        }
    }

    /// The archive URL for a link, or `None` to leave it (fragments, `javascript:`, `data:`,
    /// `mailto:`, anything not http(s), values that are not UTF-8). A `<base href>` becomes
    /// the base of the links after it.
    fn archive_link(&mut self, element: &str, value: &[u8]) -> Option<String> {
        let text = decode_entities(std::str::from_utf8(value).ok()?);
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            return None;
        }
        let target = match &self.base {
            Some(base) => base.join(text).ok()?,
            None => Url::parse(text).ok()?,
        };
        if !matches!(target.scheme(), "http" | "https") {
            return None;
        }
        if element == "base" {
            self.base = Some(target.clone());
        }
        Some(format!("/web/{}/{}", self.timestamp, target))
    }
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b':' | b'_')
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignore_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// The character references URLs in attributes use.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    text.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

fn escape_attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(html: &str) -> String {
        String::from_utf8(rewrite_html(
            html.as_bytes(),
            "http://example.org/dir/page.html",
            "20240101000000",
        ))
        .unwrap()
    }

    #[test]
    fn links_point_into_the_archive() {
        assert_eq!(
            rewritten(
                "<a href=\"other.html\">x</a> <A HREF='/top?a=1&amp;b=2'>y</A> <img src=https://cdn.example/i.png alt=\"\">"
            ),
            "<a href=\"/web/20240101000000/http://example.org/dir/other.html\">x</a> \
             <A HREF=\"/web/20240101000000/http://example.org/top?a=1&amp;b=2\">y</A> \
             <img src=\"/web/20240101000000/https://cdn.example/i.png\" alt=\"\">"
        );
    }

    #[test]
    fn base_fragments_schemes_scripts_and_comments() {
        let html = "<base href=\"http://example.org/other/\"><a href=\"x\">x</a>\
                    <a href=\"#top\">t</a><a href=\"mailto:a@b\">m</a><a href=\"javascript:go()\">j</a>\
                    <!-- <a href=\"c\"> --><script>var s = '<a href=\"s\">';</script><p title=\"href=x\">";
        assert_eq!(
            rewritten(html),
            "<base href=\"/web/20240101000000/http://example.org/other/\">\
             <a href=\"/web/20240101000000/http://example.org/other/x\">x</a>\
             <a href=\"#top\">t</a><a href=\"mailto:a@b\">m</a><a href=\"javascript:go()\">j</a>\
             <!-- <a href=\"c\"> --><script>var s = '<a href=\"s\">';</script><p title=\"href=x\">"
        );
    }

    #[test]
    fn broken_markup_is_copied() {
        for html in [
            "<",
            "<a",
            "<a href",
            "<a href=",
            "<a href=\"x",
            "a < b > c",
            "<!--",
            "<a/b=c>",
        ] {
            let out = rewrite_html(html.as_bytes(), "http://e.org/", "2024");
            assert!(!out.is_empty(), "{html:?}");
        }
        assert_eq!(rewritten("a < b > c"), "a < b > c");
        // Not UTF-8 outside attributes: copied as it is.
        let latin1 = b"<p>caf\xe9</p><a href=\"x\">";
        let out = rewrite_html(latin1, "http://e.org/", "2024");
        assert!(out.starts_with(b"<p>caf\xe9</p><a href=\"/web/2024/http://e.org/x\">"));
    }
}
