//! The host spelling shared by capture and lookup. The crawler records URLs as the WHATWG
//! URL parser writes them: IPv6 literals in their canonical form (RFC 5952: `[::1]`, never
//! `[0:0:0:0:0:0:0:1]`) and international host names in punycode (UTS #46). A URL looked up
//! (`query`, `replay`, the CDX and Memento APIs) has its host put into that same form first,
//! so every spelling of a host finds its captures; the rest of the URL is left as written,
//! for the SURT canonicaliser to treat exactly as the Python `surt` package does.

use std::borrow::Cow;

/// `url` with its host written as the crawler writes it; unchanged when it already is, or
/// when `url` is not an `http`/`https` URL with a host that the WHATWG parser accepts.
///
/// ```
/// # use ldwarc_archive::index::url_form::lookup_form;
/// assert_eq!(lookup_form("http://[0:0:0:0:0:0:0:1]:8080/x"), "http://[::1]:8080/x");
/// assert_eq!(lookup_form("http://bücher.example/B?q"), "http://xn--bcher-kva.example/B?q");
/// assert_eq!(lookup_form("http://Example.org/A"), "http://Example.org/A");
/// ```
pub fn lookup_form(url: &str) -> Cow<'_, str> {
    let Some(span) = host_span(url) else {
        return Cow::Borrowed(url);
    };
    let parsed = match url::Url::parse(url.trim()) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => parsed,
        _ => return Cow::Borrowed(url),
    };
    let Some(host) = parsed.host_str() else {
        return Cow::Borrowed(url);
    };
    let written = &url[span.clone()];
    if written.eq_ignore_ascii_case(host) || written.trim_end_matches('.') == host {
        return Cow::Borrowed(url);
    }
    Cow::Owned(format!("{}{host}{}", &url[..span.start], &url[span.end..]))
}

/// Where the host is written in `url` (`scheme://[userinfo@]HOST[:port]…`), as byte offsets.
fn host_span(url: &str) -> Option<std::ops::Range<usize>> {
    let scheme_end = url.find("://")?;
    let start = scheme_end + 3;
    let rest = &url[start..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_len];
    let host_start = authority.rfind('@').map_or(0, |at| at + 1);
    let host_and_port = &authority[host_start..];
    let host_len = if host_and_port.starts_with('[') {
        host_and_port.find(']').map(|end| end + 1)?
    } else {
        host_and_port.rfind(':').unwrap_or(host_and_port.len())
    };
    if host_len == 0 {
        return None;
    }
    Some(start + host_start..start + host_start + host_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_literals_take_their_canonical_form() {
        for long in [
            "http://[0:0:0:0:0:0:0:1]:8080/x",
            "http://[0000:0000::0001]:8080/x",
            "http://[::1]:8080/x",
        ] {
            assert_eq!(lookup_form(long), "http://[::1]:8080/x", "{long}");
        }
        assert_eq!(
            lookup_form("https://u:p@[2001:DB8:0:0:0:0:0:1]/a?b#c"),
            "https://u:p@[2001:db8::1]/a?b#c"
        );
    }

    #[test]
    fn international_hosts_become_punycode_and_the_rest_stays() {
        assert_eq!(
            lookup_form("http://Bücher.example:81/Ä%20b?x=Ü"),
            "http://xn--bcher-kva.example:81/Ä%20b?x=Ü"
        );
        assert_eq!(
            lookup_form("http://b%C3%BCcher.example/"),
            "http://xn--bcher-kva.example/"
        );
    }

    #[test]
    fn other_urls_are_left_alone() {
        for url in [
            "http://Example.ORG/Path",
            "example.org/path",
            "urn:isbn:123",
            "ftp://[0:0:0:0:0:0:0:1]/",
            "http://example.org./x",
            "http:///nohost",
            "",
        ] {
            assert_eq!(lookup_form(url), url, "{url}");
        }
    }
}
