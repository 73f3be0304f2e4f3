//! Request bytes: the GET head as sent and as archived (without proxy credentials), the
//! `Host` value, and the proxy `CONNECT` request.

use data_encoding::BASE64;
use url::{Position, Url};

/// A GET request head as written to the connection and as it may be archived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RequestHead {
    /// Exactly the bytes written.
    pub sent: Vec<u8>,
    /// `sent` without the `Proxy-Authorization` line, which must never be archived.
    pub archived: Vec<u8>,
}

/// Header fields the client writes itself; the caller's copies are ignored.
const OWN_FIELDS: [&str; 3] = ["host", "connection", "proxy-authorization"];

/// Builds `GET` for `url`: origin-form target, or absolute-form when going through an HTTP
/// proxy (`absolute_form`), then `Host`, the caller's `headers` in order, the proxy's
/// `Proxy-Authorization` if any, and `Connection: close`. CR, LF and NUL in caller headers
/// become spaces, so no caller value can inject a line.
pub(crate) fn get_request(
    url: &Url,
    headers: &[(String, String)],
    absolute_form: bool,
    proxy_authorization: Option<&str>,
) -> RequestHead {
    let target = if absolute_form {
        format!(
            "{}://{}",
            url.scheme(),
            &url[Position::BeforeHost..Position::AfterQuery]
        )
    } else {
        url[Position::BeforePath..Position::AfterQuery].to_string()
    };
    let mut archived = format!("GET {target} HTTP/1.1\r\nHost: {}\r\n", host_header(url));
    for (name, value) in headers {
        if OWN_FIELDS
            .iter()
            .any(|own| name.trim().eq_ignore_ascii_case(own))
        {
            continue;
        }
        archived.push_str(&format!("{}: {}\r\n", one_line(name), one_line(value)));
    }
    let mut sent = archived.clone();
    if let Some(credentials) = proxy_authorization {
        sent.push_str(&format!("Proxy-Authorization: {credentials}\r\n"));
    }
    for head in [&mut sent, &mut archived] {
        head.push_str("Connection: close\r\n\r\n");
    }
    RequestHead {
        sent: sent.into_bytes(),
        archived: archived.into_bytes(),
    }
}

/// `host[:port]` for the `Host` field: the port only when it is not the scheme's default,
/// IPv6 literals in brackets, international names in punycode (as the url crate keeps them).
pub(crate) fn host_header(url: &Url) -> &str {
    &url[Position::BeforeHost..Position::AfterPort]
}

/// `host:port` of `url`, always with the port, as a `CONNECT` target.
pub(crate) fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(443);
    format!("{host}:{port}")
}

/// `CONNECT authority HTTP/1.1` asking a proxy for a tunnel.
pub(crate) fn connect_request(authority: &str, proxy_authorization: Option<&str>) -> Vec<u8> {
    let mut request = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if let Some(credentials) = proxy_authorization {
        request.push_str(&format!("Proxy-Authorization: {credentials}\r\n"));
    }
    request.push_str("\r\n");
    request.into_bytes()
}

/// `Basic …` credentials from the user information of a proxy URL, if it has any.
pub(crate) fn proxy_authorization(proxy: &Url) -> Option<String> {
    if proxy.username().is_empty() && proxy.password().is_none() {
        return None;
    }
    let mut pair = percent_decode(proxy.username());
    pair.push(b':');
    pair.extend(percent_decode(proxy.password().unwrap_or_default()));
    Some(format!("Basic {}", BASE64.encode(&pair)))
}

/// Decodes `%XX` escapes (the url crate keeps user information percent-encoded).
fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = bytes
            .get(i + 1..i + 3)
            .filter(|_| bytes[i] == b'%')
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

/// `text` with CR, LF and NUL replaced by spaces.
fn one_line(text: &str) -> String {
    text.replace(['\r', '\n', '\0'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn fields(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn origin_form_request_in_order() {
        let head = get_request(
            &url("http://Example.ORG:80/a%20b/c?q=1&r#frag"),
            &fields(&[
                ("User-Agent", "ua"),
                ("host", "evil"),
                ("Accept", "x\r\nInjected: y"),
            ]),
            false,
            None,
        );
        assert_eq!(
            String::from_utf8(head.sent.clone()).unwrap(),
            "GET /a%20b/c?q=1&r HTTP/1.1\r\nHost: example.org\r\nUser-Agent: ua\r\n\
             Accept: x  Injected: y\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(head.sent, head.archived);
    }

    #[test]
    fn host_header_has_port_only_when_not_default() {
        assert_eq!(host_header(&url("https://a.example:443/")), "a.example");
        assert_eq!(
            host_header(&url("https://a.example:8443/")),
            "a.example:8443"
        );
        assert_eq!(host_header(&url("http://u:p@[::1]:8080/")), "[::1]:8080");
        assert_eq!(
            host_header(&url("http://bücher.example/")),
            "xn--bcher-kva.example"
        );
        assert_eq!(authority(&url("https://[::1]/")), "[::1]:443");
        assert_eq!(authority(&url("https://a.example:8443/")), "a.example:8443");
    }

    #[test]
    fn absolute_form_keeps_credentials_out_of_the_archive() {
        let proxy = url("http://us%65r:p%40ss@proxy:3128");
        let credentials = proxy_authorization(&proxy).unwrap();
        assert_eq!(
            credentials,
            format!("Basic {}", BASE64.encode(b"user:p@ss"))
        );
        let head = get_request(
            &url("http://user:secret@a.example:8080/x?y#z"),
            &[],
            true,
            Some(&credentials),
        );
        let sent = String::from_utf8(head.sent).unwrap();
        assert!(
            sent.starts_with("GET http://a.example:8080/x?y HTTP/1.1\r\n"),
            "{sent}"
        );
        assert!(sent.contains("\r\nProxy-Authorization: Basic "));
        let archived = String::from_utf8(head.archived).unwrap();
        assert_eq!(
            archived,
            "GET http://a.example:8080/x?y HTTP/1.1\r\nHost: a.example:8080\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(proxy_authorization(&url("http://proxy:1")), None);
        assert_eq!(
            connect_request("a.example:443", None),
            b"CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n"
        );
    }
}
