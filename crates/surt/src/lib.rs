//! SURT keys (Sort-friendly URI Reordering Transform) for the CDXJ index.
//!
//! This module owns the URL canonicalisation that turns a captured URL into the
//! sort key of an index line. [`surt`] is bit-compatible with `surt.surt(url)` of
//! the Python `surt` package 0.3.1 with its default options (the call pywb and
//! cdxj-indexer make), running on CPython 3.11: the Google-style canonicaliser,
//! then the Internet Archive one, then the reordered host. That includes the
//! package's quirks, which are kept on purpose so that keys match indexes built by
//! the Python tools:
//!
//! * the fragment is dropped; user-info is dropped; default ports (80 for
//!   `http`, 443 for `https`) are dropped, others kept as `host:port)`;
//! * percent-escapes are decoded repeatedly (`%2541` becomes `A`) and then
//!   re-escaped once, so `%3F` in a path becomes a literal `?` and `%26` in a query
//!   becomes a separator;
//! * hosts are IDNA-2003 encoded (CPython's `encodings.idna`, nameprep with
//!   Unicode 3.2 tables), trailing dots and doubled dots are squeezed, one leading
//!   `www.` / `www<digits>.` label is removed (not for `dns:`), and all-digit or
//!   dotted-numeric hosts are normalised as glibc's `inet_aton` reads them
//!   (`http://3232235777/` and `http://0300.0250.1.1/` both become `1,1,168,192)`);
//! * paths get `.`/`..` segments resolved, empty segments removed and the trailing
//!   slash stripped; path and query are lower-cased (escapes included); query
//!   arguments are sorted bytewise; some session ids (jsessionid, phpsessid, sid,
//!   aspsessionid, cfid/cftoken, ASP.NET `(S(...))` path ids) are removed;
//! * URLs without a host (`dns:`, `urn:`, `mailto:`, ...) keep their scheme:
//!   `urn:ISBN:123` becomes `urn:isbn:123`; `filedesc...` is returned as is; the
//!   empty string becomes `-`.
//!
//! The Python package raises on two kinds of input: only whitespace, and a port
//! that is not a number in 0..=65535. [`try_surt`] reports those as
//! [`SurtError`]; [`surt`] never fails and returns a documented fallback key.
//!
//! [`SurtOptions`] with [`surt_with`] offers deliberate deviations (all off by
//! default), e.g. keeping the case of paths, which matters for Linked Data.
//!
//! The nameprep and normalisation tables at the end of this file (`mod tables`)
//! are generated from CPython's own `stringprep` and `unicodedata` data, so that
//! IDNA hosts come out exactly as CPython encodes them.
//!
//! The other URL key of the archive, the pay-level domain of a host ([`pay_level_domain`],
//! [`pld_of_url`], by the Public Suffix List), is in [`domain`].

#![warn(missing_docs)]

pub mod domain;

pub use domain::{pay_level_domain, pld_of_url};

use std::fmt;

/// Deliberate deviations from the Python `surt` defaults. Every field is `false`
/// by default, and the default value gives exactly [`surt`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SurtOptions {
    /// Keep the case of the path instead of lower-casing it (Linked Data URIs are
    /// case-sensitive: `/resource/Paris` and `/resource/paris` are different).
    pub keep_path_case: bool,
    /// Keep the case of the query instead of lower-casing it.
    pub keep_query_case: bool,
    /// Keep query arguments in their original order instead of sorting them.
    pub keep_query_order: bool,
    /// Keep session ids (jsessionid, phpsessid, sid, aspsessionid, cfid/cftoken
    /// and ASP.NET path ids) instead of removing them.
    pub keep_session_ids: bool,
    /// Keep a leading `www.` / `www<digits>.` host label.
    pub keep_www: bool,
    /// Keep a trailing `/` at the end of a non-root path.
    pub keep_trailing_slash: bool,
}

/// Inputs on which the Python `surt` package raises an exception instead of
/// returning a key. [`surt`] and [`surt_with`] map them to a fallback key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SurtError {
    /// The input is not empty but consists only of ASCII whitespace (Python
    /// raises `AttributeError`). The fallback key is `-`, as for the empty string.
    Blank,
    /// The authority has a port that is not a decimal number in `0..=65535`
    /// (Python raises `ValueError`). The fallback key keeps the port text,
    /// escaped and lower-cased, after the host: `http://a.com:x/` gives `com,a:x)/`.
    InvalidPort(String),
}

impl fmt::Display for SurtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurtError::Blank => f.write_str("URL consists only of whitespace"),
            SurtError::InvalidPort(p) => write!(f, "invalid port {p:?}"),
        }
    }
}

impl std::error::Error for SurtError {}

/// The SURT key of `url`, identical to `surt.surt(url)` of the Python `surt`
/// package 0.3.1 with default options. Never panics; for the inputs on which the
/// Python package raises, returns the fallback described in [`SurtError`].
///
/// ```
/// # use ldwarc_surt::surt;
/// assert_eq!(surt("http://www.Example.com:80/a/../B/?z=1&a=2#top"), "com,example)/b?a=2&z=1");
/// ```
pub fn surt(url: &str) -> String {
    surt_with(url, &SurtOptions::default())
}

/// Like [`surt`], with the deviations selected in `opts`.
pub fn surt_with(url: &str, opts: &SurtOptions) -> String {
    run(url, opts).0
}

/// Like [`surt`], but reports the inputs on which the Python package raises.
pub fn try_surt(url: &str) -> Result<String, SurtError> {
    try_surt_with(url, &SurtOptions::default())
}

/// Like [`surt_with`], but reports the inputs on which the Python package raises.
pub fn try_surt_with(url: &str, opts: &SurtOptions) -> Result<String, SurtError> {
    match run(url, opts) {
        (key, None) => Ok(key),
        (_, Some(e)) => Err(e),
    }
}

/// Port of the authority, as far as the parser got.
enum Port {
    None,
    Number(u32),
    /// Not a number in range; kept verbatim for the fallback key.
    Invalid(Vec<u8>),
}

/// A URL split into the parts the canonicalisers work on. An empty `Vec`
/// stands for an absent part (the Python code treats both alike).
struct Parts {
    scheme: Vec<u8>,
    host: Vec<u8>,
    port: Port,
    path: Vec<u8>,
    query: Vec<u8>,
}

fn run(url: &str, opts: &SurtOptions) -> (String, Option<SurtError>) {
    let raw = url.as_bytes();
    if raw.is_empty() {
        return ("-".to_owned(), None);
    }
    if raw.starts_with(b"filedesc") {
        return (url.to_owned(), None);
    }
    let Some(mut parts) = parse(raw) else {
        return ("-".to_owned(), Some(SurtError::Blank));
    };
    let error = match &parts.port {
        Port::Invalid(p) => Some(SurtError::InvalidPort(
            String::from_utf8_lossy(p).into_owned(),
        )),
        _ => None,
    };
    google_canonicalize(&mut parts);
    ia_canonicalize(&mut parts, opts);
    (render(&parts), error)
}

// ---------------------------------------------------------------------------
// Parsing (handyurl.parse)
// ---------------------------------------------------------------------------

/// What Python's `bytes.strip()` removes.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Length of a leading `scheme` if it is followed by `:`.
fn scheme_len(u: &[u8]) -> Option<usize> {
    if !u.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = u
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        .count();
    (u.get(n) == Some(&b':')).then_some(n)
}

fn split_once_at(s: &[u8], sep: u8) -> (&[u8], Option<&[u8]>) {
    match memchr::memchr(sep, s) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    }
}

fn parse(raw: &[u8]) -> Option<Parts> {
    let start = raw.iter().position(|&b| !is_py_space(b))?;
    let end = raw.iter().rposition(|&b| !is_py_space(b))? + 1;
    let mut u: Vec<u8> = raw[start..end]
        .iter()
        .copied()
        .filter(|&b| !matches!(b, b'\n' | b'\r' | b'\t'))
        .collect();
    if u.is_empty() {
        return None;
    }
    if scheme_len(&u).is_none() {
        u.splice(0..0, b"http://".iter().copied());
    }
    // `http://https://host` is reduced to the last of the leading protocols.
    let mut pos = 0;
    let mut last = 0..0;
    loop {
        let rest = &u[pos..];
        let n = if rest.starts_with(b"http://") {
            7
        } else if rest.starts_with(b"https://") {
            8
        } else {
            break;
        };
        last = pos..pos + n;
        pos += n;
    }
    if pos > last.len() {
        u.drain(..last.start);
    }

    let slen = scheme_len(&u)?;
    let scheme = u[..slen].to_vec();
    let rest = &u[slen + 1..];
    let stop = |b: &u8| matches!(b, b'/' | b'?' | b'#');
    let (netloc, after): (&[u8], &[u8]) = match rest.strip_prefix(b"//") {
        Some(r) => {
            let n = r.iter().position(stop).unwrap_or(r.len());
            (&r[..n], &r[n..])
        }
        None => (&[], rest),
    };
    let p_end = after
        .iter()
        .position(|&b| b == b'?' || b == b'#')
        .unwrap_or(after.len());
    let mut path = after[..p_end].to_vec();
    let query = match after.get(p_end) {
        Some(&b'?') => {
            let q = &after[p_end + 1..];
            q[..memchr::memchr(b'#', q).unwrap_or(q.len())].to_vec()
        }
        _ => Vec::new(),
    };

    // urllib's SplitResult.hostname / .port on the authority.
    let mut netloc = netloc;
    while let Some(n) = netloc.strip_suffix(b":") {
        netloc = n;
    }
    let hostinfo = match memchr::memrchr(b'@', netloc) {
        Some(i) => &netloc[i + 1..],
        None => netloc,
    };
    let (hostname, port_text): (&[u8], &[u8]) = match memchr::memchr(b'[', hostinfo) {
        Some(i) => {
            let (h, rest) = split_once_at(&hostinfo[i + 1..], b']');
            let port = rest.and_then(|r| split_once_at(r, b':').1).unwrap_or(&[]);
            (h, port)
        }
        None => {
            let (h, p) = split_once_at(hostinfo, b':');
            (h, p.unwrap_or(&[]))
        }
    };
    let port = parse_port(port_text);
    let mut host = match memchr::memchr(b'%', hostname) {
        Some(i) => {
            let mut h = hostname[..i].to_ascii_lowercase();
            h.extend_from_slice(&hostname[i..]);
            h
        }
        None => hostname.to_ascii_lowercase(),
    };

    // `http:////host/...` and `http:host/...`: the first path segment is the host.
    if scheme.starts_with(b"http") && host.is_empty() && !path.is_empty() {
        let trimmed = &path[path.iter().position(|&b| b != b'/').unwrap_or(path.len())..];
        let (h, rest) = split_once_at(trimmed, b'/');
        host = h.to_vec();
        let mut p = vec![b'/'];
        p.extend_from_slice(rest.unwrap_or(&[]));
        path = p;
    }
    Some(Parts {
        scheme,
        host,
        port,
        path,
        query,
    })
}

fn parse_port(text: &[u8]) -> Port {
    if text.is_empty() {
        return Port::None;
    }
    if !text.iter().all(u8::is_ascii_digit) {
        return Port::Invalid(text.to_vec());
    }
    let mut v: u32 = 0;
    for &d in text {
        v = v * 10 + u32::from(d - b'0');
        if v > 65535 {
            return Port::Invalid(text.to_vec());
        }
    }
    if v == 0 { Port::None } else { Port::Number(v) }
}

// ---------------------------------------------------------------------------
// GoogleURLCanonicalizer
// ---------------------------------------------------------------------------

fn google_canonicalize(p: &mut Parts) {
    if !p.query.is_empty() {
        p.query = escape_once(&unescape_repeatedly(&p.query));
    }
    if !p.host.is_empty() {
        let mut host = unescape_repeatedly(&p.host);
        let idn = if host.is_ascii() {
            None
        } else {
            idna::encode(&decode_utf8_ignore(&host))
        };
        if let Some(ascii) = idn {
            host = ascii;
        }
        let host = squeeze_dots(&host);
        p.host = match attempt_ip_formats(&host) {
            Some(ip) => ip,
            None => escape_once(&host.to_ascii_lowercase()),
        };
    }
    let mut path = unescape_repeatedly(&p.path);
    if !p.host.is_empty() {
        path = normalize_path(&path);
    }
    p.path = escape_once(&path);
}

/// `bytes.decode('utf-8', 'ignore')`: drop every invalid sequence.
fn decode_utf8_ignore(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for chunk in b.utf8_chunks() {
        s.push_str(chunk.valid());
    }
    s
}

/// `replace(b'..', b'.')` (one non-overlapping pass) then `strip(b'.')`.
fn squeeze_dots(h: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(h.len());
    let mut i = 0;
    while i < h.len() {
        if h[i] == b'.' && h.get(i + 1) == Some(&b'.') {
            out.push(b'.');
            i += 2;
        } else {
            out.push(h[i]);
            i += 1;
        }
    }
    let s = out.iter().position(|&b| b != b'.').unwrap_or(out.len());
    let e = out.iter().rposition(|&b| b != b'.').map_or(s, |e| e + 1);
    out[s..e].to_vec()
}

/// Escape everything but printable ASCII other than `#` and `%` (upper-case hex).
fn escape_once(b: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(b.len());
    for &c in b {
        if c <= 0x20 || c >= 0x7f || c == b'#' || c == b'%' {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
    out
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `unquote_to_bytes` applied until nothing changes. Decoding `%XY` never
/// touches another escape, so the result does not depend on the order in which
/// escapes are decoded; decoding at the end of the output as soon as one is
/// complete gives the same fixpoint as repeated passes, in linear time.
fn unescape_repeatedly(b: &[u8]) -> Vec<u8> {
    if memchr::memchr(b'%', b).is_none() {
        return b.to_vec();
    }
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    for &c in b {
        out.push(c);
        while let [.., b'%', h, l] = out[..] {
            let (Some(h), Some(l)) = (hex_val(h), hex_val(l)) else {
                break;
            };
            out.truncate(out.len() - 3);
            out.push(h << 4 | l);
        }
    }
    out
}

/// Resolve `.` and `..`, drop empty segments but keep a trailing slash. A `..`
/// above the root is kept (and a later `..` removes it again, as in Python).
fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    for seg in path.split(|&b| b == b'/').skip(1) {
        match seg {
            b"." => {}
            b".." => {
                if kept.pop().is_none() {
                    kept.push(b"..");
                }
            }
            _ => kept.push(seg),
        }
    }
    let mut out = vec![b'/'];
    if let Some((last, init)) = kept.split_last() {
        for seg in init.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(seg);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

fn dotted_quad(v: u32) -> Vec<u8> {
    let [a, b, c, d] = v.to_be_bytes();
    format!("{a}.{b}.{c}.{d}").into_bytes()
}

/// `attemptIPFormats`: an all-digit host is an address modulo 2^32; a host that
/// looks like dotted decimal or dotted octal is given to the resolver, which
/// (glibc) parses it as `inet_aton` does; anything else is not an address.
fn attempt_ip_formats(host: &[u8]) -> Option<Vec<u8>> {
    if host.is_empty() {
        return None;
    }
    if host.iter().all(u8::is_ascii_digit) {
        let v = host.iter().fold(0u32, |acc, &d| {
            acc.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
        return Some(dotted_quad(v));
    }
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let first = parts[0];
    let decimal = first[0] != b'0' && parts.iter().all(|p| p.iter().all(u8::is_ascii_digit));
    let octal = first[0] == b'0'
        && parts
            .iter()
            .all(|p| p.iter().all(|&b| (b'0'..=b'7').contains(&b)));
    if !(decimal || octal) {
        return None;
    }
    inet_aton(&parts).map(dotted_quad)
}

/// glibc `inet_aton` on parts made of ASCII digits only.
fn inet_aton(parts: &[&[u8]]) -> Option<u32> {
    let mut vals = Vec::with_capacity(4);
    for p in parts {
        let (digits, radix) = if p.len() > 1 && p[0] == b'0' {
            (&p[1..], 8u64)
        } else {
            (*p, 10u64)
        };
        let mut v: u64 = 0;
        for &d in digits {
            let d = u64::from(d - b'0');
            if d >= radix {
                return None;
            }
            v = v * radix + d;
            if v > 0xffff_ffff {
                return None;
            }
        }
        vals.push(v);
    }
    let (last, init) = vals.split_last()?;
    if init.iter().any(|&v| v > 0xff) {
        return None;
    }
    let max: u64 = [0xffff_ffff, 0xff_ffff, 0xffff, 0xff][init.len()];
    if *last > max {
        return None;
    }
    let mut addr: u64 = 0;
    for (i, v) in init.iter().enumerate() {
        addr |= v << (24 - 8 * i);
    }
    u32::try_from(addr | last).ok()
}

// ---------------------------------------------------------------------------
// IAURLCanonicalizer
// ---------------------------------------------------------------------------

fn ia_canonicalize(p: &mut Parts, opts: &SurtOptions) {
    p.host.make_ascii_lowercase();
    if !p.host.is_empty() && p.scheme != b"dns" && !opts.keep_www {
        let digits = p
            .host
            .get(3..)
            .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
        if p.host.starts_with(b"www") && p.host.get(3 + digits) == Some(&b'.') {
            p.host.drain(..4 + digits);
        }
    }
    if let Port::Number(n) = p.port {
        let scheme = p.scheme.to_ascii_lowercase();
        if (scheme == b"http" && n == 80) || (scheme == b"https" && n == 443) {
            p.port = Port::None;
        }
    }
    if !p.path.is_empty() {
        if !opts.keep_path_case {
            p.path.make_ascii_lowercase();
        }
        if !opts.keep_session_ids {
            strip_path_session_id(&mut p.path);
        }
        if !opts.keep_trailing_slash && p.path.len() > 1 && p.path.ends_with(b"/") {
            p.path.pop();
        }
    }
    if !p.query.is_empty() {
        if !opts.keep_session_ids {
            strip_query_session_id(&mut p.query);
        }
        if !opts.keep_query_case {
            p.query.make_ascii_lowercase();
        }
        if !opts.keep_query_order {
            p.query = alpha_reorder_query(&p.query);
        }
    }
}

fn eq_ignore_case(a: &[u8], lit: &[u8]) -> bool {
    a.len() >= lit.len() && a[..lit.len()].eq_ignore_ascii_case(lit)
}

/// Length of `\([0-9a-z]{24}\)` at the start of `s` (case-insensitive).
fn aspnet_id(s: &[u8]) -> Option<usize> {
    (s.len() >= 26
        && s[0] == b'('
        && s[1..25].iter().all(u8::is_ascii_alphanumeric)
        && s[25] == b')')
        .then_some(26)
}

/// Length of `[a-z]\([0-9a-z]{24}\)` at the start of `s`.
fn aspnet_unit(s: &[u8]) -> Option<usize> {
    if !s.first()?.is_ascii_alphabetic() {
        return None;
    }
    aspnet_id(&s[1..]).map(|n| n + 1)
}

/// Length of `\((?:[a-z]\([0-9a-z]{24}\))+\)/` at the start of `s`.
fn aspnet_multi_id(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'(') {
        return None;
    }
    let mut i = 1;
    while let Some(n) = aspnet_unit(&s[i..]) {
        i += n;
    }
    (i > 1 && s.get(i..i + 2) == Some(b")/")).then_some(i + 2)
}

/// Length of `\([0-9a-z]{24}\)/` at the start of `s`.
fn aspnet_bare_id(s: &[u8]) -> Option<usize> {
    let n = aspnet_id(s)?;
    (s.get(n) == Some(&b'/')).then_some(n + 1)
}

/// `[^?]+\.aspx.*` matches the whole of `s`.
fn aspx_tail(s: &[u8]) -> bool {
    let limit = memchr::memchr(b'?', s).unwrap_or(s.len());
    (1..=limit).any(|k| eq_ignore_case(&s[k..], b".aspx"))
}

fn strip_path_session_id(path: &mut Vec<u8>) {
    for id_len in [aspnet_multi_id as Matcher, aspnet_bare_id] {
        let found = (1..=path.len()).rev().find_map(|i| {
            if path[i - 1] != b'/' {
                return None;
            }
            let n = id_len(&path[i..])?;
            aspx_tail(&path[i + n..]).then_some((i, n))
        });
        if let Some((i, n)) = found {
            path.drain(i..i + n);
        }
    }
}

/// Length of a match at the start of the input, if there is one.
type Matcher = fn(&[u8]) -> Option<usize>;

/// Length of one query session id at the start of `s`, for each of the patterns.
fn query_session_patterns() -> [Matcher; 5] {
    fn fixed(s: &[u8], key: &[u8], n: usize) -> Option<usize> {
        let v = s.get(key.len()..key.len() + n)?;
        (eq_ignore_case(s, key) && v.iter().all(u8::is_ascii_alphanumeric)).then_some(key.len() + n)
    }
    fn non_amp_run(s: &[u8]) -> usize {
        memchr::memchr(b'&', s).unwrap_or(s.len())
    }
    [
        |s| fixed(s, b"jsessionid=", 32),
        |s| fixed(s, b"phpsessid=", 32),
        |s| fixed(s, b"sid=", 32),
        |s| {
            let key = b"aspsessionid";
            let name = s.get(key.len()..key.len() + 8)?;
            let val = s.get(key.len() + 9..key.len() + 33)?;
            (eq_ignore_case(s, key)
                && name.iter().all(u8::is_ascii_alphabetic)
                && s[key.len() + 8] == b'='
                && val.iter().all(u8::is_ascii_alphabetic))
            .then_some(key.len() + 33)
        },
        |s| {
            if !eq_ignore_case(s, b"cfid=") {
                return None;
            }
            let a = non_amp_run(&s[5..]);
            let rest = &s[5 + a..];
            if a == 0 || !eq_ignore_case(rest, b"&cftoken=") {
                return None;
            }
            let b = non_amp_run(&rest[9..]);
            (b > 0).then_some(5 + a + 9 + b)
        },
    ]
}

fn strip_query_session_id(query: &mut Vec<u8>) {
    for pat in query_session_patterns() {
        let q = &*query;
        let found = (0..=q.len()).rev().find_map(|p| {
            let n = pat(&q[p..])?;
            let e = p + n;
            (e == q.len() || q[e] == b'&').then_some((p, e))
        });
        if let Some((p, e)) = found {
            let mut out = q[..p].to_vec();
            if e < q.len() {
                out.extend_from_slice(&q[e + 1..]);
            }
            *query = out;
        }
    }
}

fn alpha_reorder_query(q: &[u8]) -> Vec<u8> {
    if q.len() <= 1 {
        return q.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = q
        .split(|&b| b == b'&')
        .map(|a| split_once_at(a, b'='))
        .collect();
    args.sort();
    let mut out = Vec::with_capacity(q.len());
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if let Some(v) = v {
            out.push(b'=');
            out.extend_from_slice(v);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Output (handyurl.geturl_bytes with surt=True, with_scheme=False)
// ---------------------------------------------------------------------------

fn render(p: &Parts) -> String {
    let mut s: Vec<u8> = Vec::with_capacity(p.host.len() + p.path.len() + p.query.len() + 16);
    if p.host.is_empty() {
        s.extend_from_slice(&p.scheme);
        s.push(b':');
    } else {
        for (i, label) in p.host.rsplit(|&b| b == b'.').enumerate() {
            if i > 0 {
                s.push(b',');
            }
            s.extend_from_slice(label);
        }
        match &p.port {
            Port::None => {}
            Port::Number(n) => s.extend_from_slice(format!(":{n}").as_bytes()),
            Port::Invalid(t) => {
                s.push(b':');
                s.extend_from_slice(&escape_once(t).to_ascii_lowercase());
            }
        }
        s.push(b')');
    }
    if !p.path.is_empty() {
        s.extend_from_slice(&p.path);
    } else if !p.query.is_empty() {
        s.push(b'/');
    }
    if !p.query.is_empty() {
        s.push(b'?');
        s.extend_from_slice(&p.query);
    }
    match String::from_utf8(s) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}
// ---------------------------------------------------------------------------
// IDNA 2003 as CPython's `encodings.idna` codec does it
// ---------------------------------------------------------------------------

/// `str.encode('idna')` of CPython 3.11: nameprep (RFC 3491) with the quirks of
/// CPython's implementation, then punycode. `None` where Python raises.
mod idna {
    use super::tables;
    use std::sync::OnceLock;

    /// Encode a host name; `None` if CPython's codec raises `UnicodeError`.
    pub(super) fn encode(s: &str) -> Option<Vec<u8>> {
        if s.is_empty() {
            return Some(Vec::new());
        }
        if s.is_ascii() {
            let labels: Vec<&str> = s.split('.').collect();
            let (last, init) = labels.split_last()?;
            if init.iter().any(|l| l.is_empty() || l.len() > 63) || last.len() > 63 {
                return None;
            }
            return Some(s.as_bytes().to_vec());
        }
        let mut labels: Vec<&str> = s.split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}']).collect();
        let trailing_dot = labels.last().is_some_and(|l| l.is_empty());
        if trailing_dot {
            labels.pop();
        }
        let mut out = Vec::with_capacity(s.len() + 8);
        for (i, label) in labels.iter().enumerate() {
            if i > 0 {
                out.push(b'.');
            }
            out.extend_from_slice(&to_ascii(label)?);
        }
        if trailing_dot {
            out.push(b'.');
        }
        Some(out)
    }

    fn to_ascii(label: &str) -> Option<Vec<u8>> {
        let ok_len = |n: usize| (1..64).contains(&n);
        if label.is_ascii() {
            return ok_len(label.len()).then(|| label.as_bytes().to_vec());
        }
        let prepped = nameprep(label)?;
        if prepped.iter().all(|&c| c < 0x80) {
            let b: Vec<u8> = prepped.iter().map(|&c| c as u8).collect();
            return ok_len(b.len()).then_some(b);
        }
        if prepped.starts_with(&['x' as u32, 'n' as u32, '-' as u32, '-' as u32]) {
            return None;
        }
        let mut out = b"xn--".to_vec();
        punycode(&prepped, &mut out, 63)?;
        ok_len(out.len()).then_some(out)
    }

    /// RFC 3491 nameprep exactly as CPython's `encodings.idna.nameprep`.
    fn nameprep(label: &str) -> Option<Vec<u32>> {
        let t = tables();
        let mut mapped = Vec::with_capacity(label.len());
        for c in label.chars() {
            let c = u32::from(c);
            if t.b1.binary_search(&c).is_ok() {
                continue;
            }
            match t.b2.get(c) {
                Some(m) => mapped.extend_from_slice(m),
                None => mapped.push(c),
            }
        }
        let norm = nfkc(t, &mapped);
        if norm.iter().any(|&c| in_ranges(&t.prohibited, c)) {
            return None;
        }
        let randal = |c: &u32| in_ranges(&t.randal, *c);
        if norm.iter().any(randal) {
            if norm.iter().any(|&c| in_ranges(&t.lcat, c)) {
                return None;
            }
            if !(norm.first().is_some_and(randal) && norm.last().is_some_and(randal)) {
                return None;
            }
        }
        Some(norm)
    }

    const S_BASE: u32 = 0xAC00;
    const L_BASE: u32 = 0x1100;
    const V_BASE: u32 = 0x1161;
    const T_BASE: u32 = 0x11A7;
    const L_COUNT: u32 = 19;
    const V_COUNT: u32 = 21;
    const T_COUNT: u32 = 28;
    const N_COUNT: u32 = V_COUNT * T_COUNT;
    const S_COUNT: u32 = L_COUNT * N_COUNT;

    /// `unicodedata.ucd_3_2_0.normalize('NFKC', s)` of CPython: Unicode 3.2
    /// decompositions, but the combining classes and composition pairs of the
    /// current database, and CPython's own composition loop.
    fn nfkc(t: &Tables, s: &[u32]) -> Vec<u32> {
        let mut d: Vec<u32> = Vec::with_capacity(s.len() + 4);
        for &c in s {
            if (S_BASE..S_BASE + S_COUNT).contains(&c) {
                let i = c - S_BASE;
                d.push(L_BASE + i / N_COUNT);
                d.push(V_BASE + (i % N_COUNT) / T_COUNT);
                let trail = i % T_COUNT;
                if trail != 0 {
                    d.push(T_BASE + trail);
                }
            } else if let Some(m) = t.nfkd.get(c) {
                d.extend_from_slice(m);
            } else {
                d.push(c);
            }
        }
        // Canonical ordering: stable sort of every run of non-starters.
        let mut i = 0;
        while i < d.len() {
            if t.ccc(d[i]) == 0 {
                i += 1;
                continue;
            }
            let start = i;
            while i < d.len() && t.ccc(d[i]) != 0 {
                i += 1;
            }
            d[start..i].sort_by_key(|&c| t.ccc(c));
        }
        // Composition, following CPython's nfc_nfkc() step by step.
        let len = d.len();
        let mut out = Vec::with_capacity(len);
        let mut skipped: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < len {
            if let Some(k) = skipped.iter().position(|&s| s == i) {
                skipped.swap_remove(k);
                i += 1;
                continue;
            }
            let code = d[i];
            if (L_BASE..L_BASE + L_COUNT).contains(&code)
                && i + 1 < len
                && (V_BASE..V_BASE + V_COUNT).contains(&d[i + 1])
            {
                let mut s = S_BASE + ((code - L_BASE) * V_COUNT + (d[i + 1] - V_BASE)) * T_COUNT;
                i += 2;
                if i < len && T_BASE < d[i] && d[i] < T_BASE + T_COUNT {
                    s += d[i] - T_BASE;
                    i += 1;
                }
                out.push(s);
                continue;
            }
            if !t.is_first(code) {
                out.push(code);
                i += 1;
                continue;
            }
            let mut cur = code;
            let mut comb = 0u8;
            let mut i1 = i + 1;
            while i1 < len {
                let code1 = d[i1];
                let comb1 = t.ccc(code1);
                if comb != 0 {
                    if comb1 == 0 {
                        break;
                    }
                    if comb >= comb1 {
                        i1 += 1;
                        continue;
                    }
                }
                match t.compose(cur, code1) {
                    Some(c) => {
                        cur = c;
                        skipped.push(i1);
                        i1 += 1;
                        if !t.is_first(cur) {
                            break;
                        }
                    }
                    None => {
                        if comb1 == 0 {
                            break;
                        }
                        comb = comb1;
                        i1 += 1;
                    }
                }
            }
            out.push(cur);
            i += 1;
        }
        out
    }

    /// RFC 3492 encoder (what CPython's `punycode` codec produces). Appends to
    /// `out`; `None` if the result would exceed `max` bytes.
    fn punycode(input: &[u32], out: &mut Vec<u8>, max: usize) -> Option<()> {
        const BASE: u64 = 36;
        let digit = |d: u64| -> u8 {
            if d < 26 {
                b'a' + d as u8
            } else {
                b'0' + (d - 26) as u8
            }
        };
        let adapt = |delta: u64, first: bool, numchars: u64| -> u64 {
            let mut delta = if first { delta / 700 } else { delta / 2 };
            delta += delta / numchars;
            let mut k = 0;
            while delta > 455 {
                delta /= 35;
                k += BASE;
            }
            k + (BASE * delta) / (delta + 38)
        };
        let basic = input.iter().filter(|&&c| c < 0x80).count();
        out.extend(input.iter().filter(|&&c| c < 0x80).map(|&c| c as u8));
        if basic > 0 {
            out.push(b'-');
        }
        let (mut n, mut delta, mut bias, mut h) = (0x80u64, 0u64, 72u64, basic);
        while h < input.len() {
            let m = u64::from(input.iter().copied().filter(|&c| u64::from(c) >= n).min()?);
            delta = delta.checked_add((m - n).checked_mul(h as u64 + 1)?)?;
            n = m;
            for &c in input {
                let c = u64::from(c);
                if c < n {
                    delta += 1;
                }
                if c == n {
                    let mut q = delta;
                    let mut k = BASE;
                    loop {
                        let t = k.saturating_sub(bias).clamp(1, 26);
                        if q < t {
                            break;
                        }
                        out.push(digit(t + (q - t) % (BASE - t)));
                        q = (q - t) / (BASE - t);
                        k += BASE;
                    }
                    out.push(digit(q));
                    if out.len() > max {
                        return None;
                    }
                    bias = adapt(delta, h == basic, h as u64 + 1);
                    delta = 0;
                    h += 1;
                }
            }
            delta += 1;
            n += 1;
        }
        Some(())
    }

    fn in_ranges(r: &[(u32, u32)], c: u32) -> bool {
        match r.binary_search_by(|&(a, _)| a.cmp(&c)) {
            Ok(_) => true,
            Err(0) => false,
            Err(i) => c < r[i - 1].1,
        }
    }

    /// A code point -> code points mapping, sorted by key.
    #[derive(Default)]
    struct Mapping {
        keys: Vec<u32>,
        spans: Vec<(u32, u32)>,
        data: Vec<u32>,
    }

    impl Mapping {
        fn get(&self, c: u32) -> Option<&[u32]> {
            let i = self.keys.binary_search(&c).ok()?;
            let (a, b) = *self.spans.get(i)?;
            self.data.get(a as usize..b as usize)
        }
        fn push(&mut self, key: u32, value: &[u32]) {
            let a = self.data.len() as u32;
            self.data.extend_from_slice(value);
            self.keys.push(key);
            self.spans.push((a, self.data.len() as u32));
        }
    }

    #[derive(Default)]
    struct Tables {
        b1: Vec<u32>,
        b2: Mapping,
        nfkd: Mapping,
        ccc: Vec<(u32, u32, u8)>,
        comp: Vec<((u32, u32), u32)>,
        firsts: Vec<u32>,
        prohibited: Vec<(u32, u32)>,
        randal: Vec<(u32, u32)>,
        lcat: Vec<(u32, u32)>,
    }

    impl Tables {
        fn ccc(&self, c: u32) -> u8 {
            match self.ccc.binary_search_by(|&(a, _, _)| a.cmp(&c)) {
                Ok(i) => self.ccc[i].2,
                Err(0) => 0,
                Err(i) => {
                    let (_, end, v) = self.ccc[i - 1];
                    if c < end { v } else { 0 }
                }
            }
        }
        fn is_first(&self, c: u32) -> bool {
            self.firsts.binary_search(&c).is_ok()
        }
        fn compose(&self, a: u32, b: u32) -> Option<u32> {
            let i = self.comp.binary_search_by(|&(k, _)| k.cmp(&(a, b))).ok()?;
            Some(self.comp[i].1)
        }
    }

    fn tables() -> &'static Tables {
        static T: OnceLock<Tables> = OnceLock::new();
        T.get_or_init(|| unpack().unwrap_or_default())
    }

    /// Reader of the packed varint blobs of `mod tables`.
    struct Blob<'a> {
        b: &'a [u8],
        i: usize,
    }

    impl Blob<'_> {
        fn new(s: &str) -> Blob<'_> {
            Blob {
                b: s.as_bytes(),
                i: 0,
            }
        }
        fn more(&self) -> bool {
            self.i < self.b.len()
        }
        fn next(&mut self) -> Option<u32> {
            let mut n: u32 = 0;
            loop {
                let c = *self.b.get(self.i)?;
                self.i += 1;
                let v = match c {
                    b'0'..=b'9' => c - b'0',
                    b'A'..=b'Z' => c - b'A' + 10,
                    b'a'..=b'z' => c - b'a' + 36,
                    b'+' => 62,
                    b'/' => 63,
                    _ => return None,
                };
                n = n.checked_mul(32)?.checked_add(u32::from(v & 31))?;
                if v < 32 {
                    return Some(n);
                }
            }
        }
        fn signed(&mut self, base: u32) -> Option<u32> {
            let z = self.next()?;
            let d = if z & 1 == 0 {
                i64::from(z >> 1)
            } else {
                -i64::from(z >> 1) - 1
            };
            u32::try_from(i64::from(base) + d).ok()
        }
    }

    fn unpack_mapping(s: &str) -> Option<Mapping> {
        let mut m = Mapping::default();
        let mut r = Blob::new(s);
        let mut prev_end = 0u32;
        while r.more() {
            let cp = prev_end.checked_add(r.next()?)?;
            let header = r.next()?;
            if header == 0 {
                let (n, step) = (r.next()?, r.next()?);
                let first_target = r.signed(cp)?;
                for k in 0..n {
                    let src = cp.checked_add(k.checked_mul(step)?)?;
                    m.push(src, &[first_target.checked_add(src - cp)?]);
                }
                prev_end = cp.checked_add(n.checked_sub(1)?.checked_mul(step)?)? + 1;
            } else {
                let mut v = Vec::with_capacity(header as usize);
                for _ in 0..header {
                    v.push(r.signed(cp)?);
                }
                m.push(cp, &v);
                prev_end = cp + 1;
            }
        }
        Some(m)
    }

    fn unpack_ranges(s: &str) -> Option<Vec<(u32, u32)>> {
        let mut v = Vec::new();
        let mut r = Blob::new(s);
        let mut prev = 0u32;
        while r.more() {
            let a = prev.checked_add(r.next()?)?;
            let b = a.checked_add(r.next()?)?;
            v.push((a, b));
            prev = b;
        }
        Some(v)
    }

    fn unpack() -> Option<Tables> {
        let mut t = Tables::default();
        let mut r = Blob::new(tables::B1);
        while r.more() {
            t.b1.push(r.next()?);
        }
        t.b2 = unpack_mapping(tables::B2)?;
        t.nfkd = unpack_mapping(tables::NFKD)?;
        let mut r = Blob::new(tables::CCC);
        let mut prev = 0u32;
        while r.more() {
            let a = prev.checked_add(r.next()?)?;
            let b = a.checked_add(r.next()?)?;
            let v = u8::try_from(r.next()?).ok()?;
            t.ccc.push((a, b, v));
            prev = b;
        }
        let mut r = Blob::new(tables::COMP);
        let mut prev = 0u32;
        while r.more() {
            let c = prev.checked_add(r.next()?)?;
            let (a, b) = (r.signed(c)?, r.signed(c)?);
            t.comp.push(((a, b), c));
            prev = c;
        }
        t.comp.sort_unstable();
        t.firsts = t.comp.iter().map(|&((a, _), _)| a).collect();
        t.firsts.dedup();
        t.prohibited = unpack_ranges(tables::PROHIBITED)?;
        t.randal = unpack_ranges(tables::RANDAL)?;
        t.lcat = unpack_ranges(tables::LCAT)?;
        Some(t)
    }

    #[cfg(test)]
    pub(super) fn self_check() -> (usize, usize, usize) {
        let t = unpack().expect("tables unpack");
        (t.b2.keys.len(), t.nfkd.keys.len(), t.comp.len())
    }

    #[cfg(test)]
    pub(super) fn nfkc_for_test(s: &str) -> String {
        let v: Vec<u32> = s.chars().map(u32::from).collect();
        nfkc(tables(), &v)
            .into_iter()
            .filter_map(char::from_u32)
            .collect()
    }

    #[cfg(test)]
    pub(super) fn nameprep_for_test(s: &str) -> Option<String> {
        nameprep(s).map(|v| v.into_iter().filter_map(char::from_u32).collect())
    }
}

/// Packed Unicode data for nameprep, generated by a script that reads CPython's
/// `stringprep` and `unicodedata` (3.2.0 decompositions, current classes and pairs).
mod tables {
    // Generated by gen_tables.py from CPython 3.11.7 (unicodedata 14.0.0); do not edit by hand.
    // Counts: B2=2055 NFKD=5143 COMP=941
    /// Packed code points mapped to nothing (RFC 3454 table B.1).
    #[rustfmt::skip]
    pub(super) const B1: &str = "bDwFcW6cWBcWCcWDeWBeWCeWDeZ0X/m0X/m1X/m2X/m3X/m4X/m5X/m6X/m7X/m8X/m9X/mAX/mBX/mCX/mDX/mEX/mFX/tV";
    /// Packed case-fold mapping (RFC 3454 B.2 as computed by CPython).
    #[rustfmt::skip]
    pub(super) const B2: &str = concat!(
        "Y10Q1Y0YQ011XmEA0N1Y01071Y002cNcNX00O2212iDzE103222082212t6jL00N221011dH003221011mN1011j40022210",
        "11iS001121021iQ001122011aU0011iK0011iM001121011iQ0011iU1011j60011j2001123011j60011jA1011jC003221",
        "011jK001121011jK201121011jK001121021jI002221011jM00112301127011400112101140011210114009222092212",
        "uBnO00114002221011c10011ZF00K221011e3109227011rYM001121011g50011rYG201121011i50011aA0011aE00522d",
        "M011d8XA02223011232XrJZU4011d86011YC1031YA1011a01021ZU03YIeFeT00H1Y01091Y043XAgFgTH0112C011G0011",
        "XR0011XH0011P0011B0011H0011T0011XB10C221011ZB0011YV0011YT1011ZN0011ZV101121011ZB001122031e300G1b",
        "000X01Y0XG0H2290R221011U0072220XG2220X61Z0XG2Y39YuO0X61kc01011kc05011kc0sI0YG1Yhz00061GYaQ0XB1bx",
        "V2031bxVg00YB2212lYRjs902lY5juT02lY1juR02lXVjuT02lZHjzN0011ZJ22lYLlYL10XG229081F8061FA081F8081F8",
        "061F22juLkZP13juPkZTkb313juTka1kb513jv1ka5kX72042F8081FG2dVjyD02dVjyF02dVjyH02dVjyJ02dVjyL02dVjy",
        "N02dVjyP02dVjyR02eFjyT02eFjyV02eFjz102eFjz302eFjz502eFjz702eFjz902eFjzB02cVjzD02cVjzF02cVjzH02cV",
        "jzJ02cVjzL02cVjzN02cVjzP02cVjzR02dFjzT02dFjzV02dFj+102dFj+302dFj+502dFj+702dFj+902dFj+B02ZVj+D02",
        "ZVj+F02ZVj+H02ZVj+J02ZVj+L02ZVj+N02ZVj+P02ZVj+R02aFj+T02aFj+V02aFj/102aFj/302aFj/502aFj/702aFj/9",
        "02aFj/B22a3j/H02kW3j/J02kWFj/L12kW9kd703kWBkd9j/R0021F0021aJ02kWLkW51011kW932aRkWH02kWNkWJ02kXBk",
        "WL12kWTke703kWVke9kWR0041bB02kX9kX553kXHkiJkj303kXJkiLkj322kXPkf703kXRkiTkf90021F0021c763kXPkjJk",
        "k303kXRkjLkk302kY5kj112kY1kg703kY3kjTkg90021F0021cV0011D52dBkZH02kYJkZJ02kYBkZL12kYPkh703kYRkh9k",
        "ZR0021dV0021dR02kZ5ka5bB2mZBmZ9YP011mfT02mb5mfV3011lgN12mbHmg51011mg50011mg70011mg92011mgD0011mg",
        "F0011mgB2011mgD02mgFmgD2031mgH0011mgJ0011mgL22mgPmh503mgPmhNmh902mgRmh91011mgJ1011krP1011mgR1011",
        "mhT0011maB0021miJ2021miL0011XO0011miBA011kuL0011ktT5011mk1Q0G1X0J0112vI0Q1XKXvG0XG1Z0XG01121011q",
        "/D0011dkB0011q+D203221011rXN0011q/P0011rXT0011rXR10112201128021rZT00XI228022240112XpU3vmHvm1vmV1",
        "2vn3vlR12vmBvlTA2vmVvnT02vn5vnV02tyBvo102vnBvo302vnHvo502vnJvo502vnHvo702vnVvo922vnJvo702vnPvo90",
        "2tyVvoB32voFvnB03voBvoHvnD03vo9voJvnF03voNvoLvnH03vnVvoNvnJK2vpHvqF03vpTvpJvqH03vpRvpLvqJ03vq9vp",
        "NvqL72vq7vpR02vqDvpT02t/JvpV02vqJvq102vqPvq302vqNvq502vqJvq502vqPvq702t/Vvq902vqVvqB02vr5vqD02vr",
        "3vqF02vr9t/D02vr7t/F12vs1vr324vs5ex1vrLvrT03vs7vrFvvH02vs7vsB02vs3vqV12vs5vrL12vs3vs302vs5vs182v",
        "sDvsT13vsHvsHvsN02vsJvsF12vsHvsB02vsBvtLyp20N22J0E22a7072230V22A02221011YbW700522401121011YooF20",
        "22230A221011Yoq70011YoqT0011YoqL0011Yoq10011Yoq71011Yon30011YooJ0011Yon90011Xw0008221011YV0011Yo",
        "q50011YbZF002226011250222S0112quA2ZzfJZzfJ02ZzfLZzfF02ZzfNZzfB03ZzfPZzfPZzfJ03ZzfRZzfRZzfF02Zzf3",
        "Zzf102Zzf5Zzf3C2ZwvTZwvP02ZwvVZwwT02Zww1ZwwJ02ZwvFZwvV02Zww5ZwwJXW90Q1Y0Xc50X81YGa80X41YGaS0B1YE",
        "10F1YE1071YE1021YEXtA0XJ1a0Y/D0X01Y0ri00X01Y0vj00Q1dfvTQ0Q1dfz5Q0Q1dgWDQ022dgZL0011dgZL2011dgZL2",
        "021dgZL2041dgZL1081dgZLQ0Q1dgcTQ021dgg51041dgg52081dgg51071dgg5R021dgjD1041dgjD1051dgjD1011dgjD3",
        "071dgjDR0Q1dgmLQ0Q1dgpTQ0Q1dgt5Q0Q1dgwDQ0Q1dgzLQ0Q1dhWTU0H1dflD0011dfm10071dflDI011dfmVE0H1dfp10",
        "011dfpL0071dfp1I011dfqJE0H1dfsL0011dft90071dfsLI011dfu7E0H1dfw90011dfwT0071dfw9I011dfxRE0H1dfzT0",
        "011df+H0071dfzTI011df/Fag40X21Y4",
    );
    /// Packed full compatibility decomposition, Unicode 3.2 (no Hangul).
    #[rustfmt::skip]
    pub(super) const NFKD: &str = concat!(
        "b0011dV72eFXc01011aH42eTXbA2021dV02f7XaQ0011XmE22fFXcU0011eF0011aL13eLluGeF03eNluEeL03eLluCeJ12d",
        "TXa002dVXa002e1Xa002e3Xa002e5Xa802e7XaA12e7Xc002e5XZG02e7XZG02e9XZG02eBXZQ02e5XZ802e7XZ802e9XZ80",
        "2eBXZI12e5XZ402e5XYS02e7XYS02e9XYS02eBXYS02eDXZ422e7XYE02e9XYE02eBXYE02eDXYO02e7XY822dTXY002dVXY",
        "002e1XY002e3XY002e5XY802e7XYA12e7Xa002e5XXG02e7XXG02e9XXG02eBXXQ02e5XX802e7XX802e9XX802eBXXI12e5",
        "XX402e5XWS02e7XWS02e9XWS02eBXWS02eDXX422e7XWE02e9XWE02eBXWE02eDXWO02e7XW812eBXWI02hTXW802fVXW602",
        "i1XW802g3XW602i5XY802g7XY602i5/M02g7/K02i9/K02gB/I02iD/Q02gF/O02iHXW002gJ/U02iJ/S02gL/Q22iP/402g",
        "R/202iT/402gV/202j1/202h3/002j5XX002h7XWU02j9/402hB/202j9+C02hB+A02jD+G02hF+E02jH+E02hJ+C02jLXWA",
        "02hNXW802jNzS02hPzQ22jTzM02hVzK02k1zK02i3zI02k5zK02i7zI02k9/K02iB/I02kDzE12kHkF02iJiH02kJyS02iLy",
        "Q02kL/202iN/012kPyG02iRyE02kT+O02iV+M02l1yU02j3yS02l5eF02j7eH22l9xS02jBxQ02lD+402jF+202lHyA02jJy",
        "802t6jL22lPxG02jRxE02lTxG02jVxE02m1xM02k3xK22m3wQ02k5wO02m7z202k9z002mBx802kDx602mDwE02kFwC02mHw",
        "C02kJwA02mLyI02kNyG02mPwO02kRwM02mRyA02kTy802mVwG02l1wE22n5vM02l7vK02n9vK02lBvI02nDvK02lFvI02nHv",
        "O02lJvM02nLvM02lNvK02nPxC02lRxA02nPuS02lRuQ02nPuO02lRuM02nTv002nTuG02lVuE02o1uO02m3uM02o5uU02m7u",
        "S0011mNX02r1tM02p3tKD2rJsO02pLsMJ3tVsJqG03u1qLqE03s3qNqC02tLtP02tNrR02rPrT02tNtV02tPs102rRs302uN",
        "pU02sPpS02uBpQ02sDpO02u3pM02s5pK02tRpI02rTpG03tVp6oU03s1p4oS03u3p2oK03s5p0oI03u7oUp603s9oSp403uB",
        "oQoA03sDoOo813vPoKoC03tRoIoA03vToEo803tVoCo602nNo402lPo222vToC02tVoA02vPo802tRo602vLpS02tNpQ03vP",
        "pOnG03tRpMnE02ZDnS02g6nQ02uBnO02wPvD02wRtF02uTtH02wPmQ02uRmO22wJmG02uLmE03xHn0mE03vJmUmC02pBmA02",
        "nDm802oBm602mDm402xTmU02vVmS02y1mU02w3mS02xTmM02vVmK02y1mM02w3mK02xTmE02vVmC02y1mE02w3mC02xPm602",
        "vRm402xTm602vVm402xRlU02vTlS02xVlU02w1lS02xTlM02vVlK02y1lM02w3lK02y9mS02wBmQ02yBmO02wDmM22zBkS02",
        "xDkQ62+9k202yBk002+5lU02y7lS03zLjSjK03xNjQjI03zPjEjG03xRjCjE02zTjI02xVjG03+1jEj803y3jCj602zHj402",
        "xJj2ZS011XaF0011aL0011XaF0011Xa10011ZL0011ZJ0011Z90011XZV0011XZTV2XhFYS02XhHYS02XhJZ002XhLaQ02Xh",
        "NYE02XhPYS2011dP0011Xd90011XcT0011XcL0011aTYR021ZV1011YV02ZNa5XF011hL52XrJZ93011Xq552Xs7e503Xs9d",
        "Pe702Me90011XiV02QeD02SeF02UeH12X6eL12XEeP02XKeR03YIeFeTP2X1g302Bg502AgL02GgN02IgP02KgR03XAgFgTP",
        "2X1i302Bi502PiL02FiN029iP1011XR0011XH0011YP02YRj302YTiN0011T0011XBP011ZB0021YV1011bN0011ZVA2XAlV",
        "02X8lH12X0m3321lT42SmL02MmP02XAmFA21n5V21p5M2XLqV02XNqH12XVr3321qT42Y3rL02Y9rP02XLrFN23sD023sFY9",
        "2gLxL02eNxND2hVyJ02g1yL02i3yJ02g5yL22i1yV02g3z1223z3023z502iBz702gDz902iDzB02gFzD22iJzR02gLzT02i",
        "NzN02gPzP02iFzR02gHzT223+3023+502hT+702fV+902iL+J02gN+L02iP+F02gR+H02iT+D02gV+F02iP+N02gR+P22iP+",
        "V02gR/1aD2Y39aQ2AZ2028Z202Y8Z0024Z002Y8YSYE2aR102YR302b0502YR7Y72XAcN121cRG21dToL21X6721M221GX32",
        "a5XN02a5XP02a5XR02ZTXT02ZLXV02ZLY102Z5Y302YVY5ZB27P029MF2ZLXV02ZLY112YVY5YJ21I224CX22a5XP02a5XR0",
        "2ZTXT22Z5Y3d921S227P029MF2ZLXV02ZLY1XM23a6XL27N027P02BMZR23SZN21XA621S023S127F039HKZU27N027P02BM",
        "aD21V125P037RX50292YK2XK1ZV2XK1X82Z1a502Z3ZNXE0111XM21d8921cK421cA421c0421bMC2YHaO9231127102ZOK0",
        "3ZMBI02ZMG03ZKFE72V1H21Y8921XK421XA421X0421MC2YH7ZC21GZkP2kxTjjL02kvVjjN02kxVjlL02kw1jlN02ky3jk1",
        "02kw5jk302ky7jj902kw9jjB03ky9jk1jmD03kwBjk3jmF02kyBjm502kwDjm702kyFjkH02kwHjkJ02kyJjjP02kwLjjR02",
        "kyNjkH02kwPjkJ02kyRjk902kwTjkB03kyTjmVjn703kwVjn1jn903kz1jn3jn903kx3jn5jnB02kz5jkL02kx7jkN02kz9j",
        "kJ02kxBjkL03kzDjl9jnB03kxFjlBjnD02kzFjnD02kxHjnF02kzHjnN02kxJjnP02kzJjnL02kxLjnN02kzNjm102kxPjm3",
        "02kzRjnR02kxTjnT02kzVjm102ky1jm302k+3jlN02ky5jlP02k+5jlN02ky7jlP03k+9joBjoP03kyBjoDjoR02k+9joT02",
        "kyBjoV02k+DjmT02kyFjmV02k+Hjm502kyJjm702k+Jjn502kyLjn703k+Njn9jp703kyPjnBjp902k+RjmH02kyTjmJ02k+",
        "VjmT02kz1jmV02k/1jpP02kz3jpR02k/5jpH02kz7jpJ02k/9jnT02kzBjnV02k/BjpP02kzDjpR02k/Fjo502kzHjo702k/",
        "JjnD02kzLjnF02k/NjnP02kzPjnR03k/PjqHjqL03kzRjqJjqN03k/TjqLjqB03kzVjqNjqD03lW1jqNjqV03k+3jqPjr103",
        "lW5jqRjr103k+7jqTjr302lW7jr502k+9jr702lWBjqT02k+DjqV02lWBjr102k+Djr302lWFjpD02k+HjpF03lWJjpHjrF0",
        "3k+LjpJjrH02lWNjoP02k+PjoR02lWPjrH02k+RjrJ02lWTjpT02k+VjpV03lX1js5jrP03k/3js7jrR03lX5jrJjrT03k/7",
        "jrLjrV03lX9jq9js103k/BjqBjs302lXBjs502k/Djs702lXFjqH02k/HjqJ02lXJjpP02k/LjpR02lXNjq502k/Pjq702lX",
        "PjqR02k/RjqT02lXTjq702k/Vjq902lY1jqH02lW3jqJ03lY5jt9jtD03lW7jtBjtF03lY9jtBjt303lWBjtDjt502lYBjtH",
        "02lWDjtJ02lYFjrL02lWHjrN02lYHjtV02lWJju102lYLju102lWNju302lYPjtN02lWRjtP02lYTjtT02lWVjtV02lZ1js9",
        "02lX3jsB02lZ3ju502lX5ju702lZ7ju702lX9ju902lZ9juD02lXBjuF02lZBjuR02lXDjuT02lZFjsT02lXHjsV02lZJjs5",
        "02lXLjs702lYRjs902lY5juT02lY1juR02lXVjuT02lZHjzN02lYFjv742lbTjtP02lZVjtR02lc1jvH02la3jvJ03lc5jw3",
        "jw503la7jw5jw703lc9jw7jwB03laBjw9jwD03lcDjwBjvT03laFjwDjvV03lcHjwFjwD03laJjwHjwF03lcLjuHjwJ03laN",
        "juJjwL03lcPjwFjwP03laRjwHjwR03lcTjwJjwV03laVjwLjx103ld1jwNjwH03lb3jwPjwJ03ld5jwRjx103lb7jwTjx303",
        "ld9jv5jwV03lbBjv7jx102ld5jv902lb7jvB02ld9jx102lbBjx302ldDjxH02lbFjxJ03ldHjxNjxP03lbJjxPjxR03ldLj",
        "xRjxV03lbNjxTjy103ldPjxVjxH03lbRjy1jxJ03ldTjy3jy103lbVjy5jy303le1jw5jy703lc3jw7jy902ldTjxT02lbVj",
        "xV02le1jwD02lc3jwF02ldPjwH02lbRjwJ02ldTjy902lbVjyB03le1jyRjyT03lc3jyTjyV03le5jyVjz303lc7jz1jz503",
        "le9jz3jyL03lcBjz5jyN03leDjz7jz503lcFjz9jz703leHjx9jzB03lcJjxBjzD03leLjxTjzH03lcNjxVjzJ03lePjy1jz",
        "N03lcRjy3jzP03leTjy5jz903lcVjy7jzB03lf1jy9jzP03ld3jyBjzR03lf5jyDjxT03ld7jyFjxV02leTjy102lcVjy302",
        "lf1jzP02ld3jzR03lf5jyPj+D03ld7jyRj+F03lf9jyTj+J03ldBjyVj+L03lfDjz1j+503ldFjz3j+703lfHjz5j+L03ldJ",
        "jz7j+N03lfLjz9jyP03ldNjzBjyR02lfHj/302ldJj/502lfLjz102ldNjz302lfPj+P02ldRj+R02lfTj/902ldVj/B62jq",
        "Tj+P02jqVj+P03jr1j+TkW303jr3j+TkW503jr5j/1kW503jr7j/1kW703jr9j/5jy703jrBj/5jy902jtDj/902jtFj/903",
        "jtHj/DkWJ03jtJj/DkWL03jtLj/HkWL03jtNj/HkWN03jtPj/LjyN03jtRj/LjyP02jrLj/P02jrNj/P03jrPj/TkX303jrR",
        "j/TkX503jrTkW1kX503jrVkW1kX722ju5kW902ju7kW903ju9kWDkXJ03juBkWDkXL03juDkWHkXL03juFkWHkXN22jsHkWP",
        "02jsJkWP03jsLkWTkY303jsNkWTkY503jsPkX1kY503jsRkX1kY703jsTkX5j+703jsVkX5j+902jv1kX902jv3kX903jv5k",
        "XDkYJ03jv7kXDkYL03jv9kXHkYL03jvBkXHkYN03jvDkXLj+N03jvFkXLj+P02jtDkXP02jtFkXP03jtHkXTkZ303jtJkXTk",
        "Z503jtLkY1kZ503jtNkY1kZ703jtPkY5j/703jtRkY5j/902jvTkY902jvVkY903jw1kYDkZJ03jw3kYDkZL03jw5kYHkZL0",
        "3jw7kYHkZN03jw9kYLj/N03jwBkYLj/P02ju1kYP02ju3kYP03ju5kYTka303ju7kYTka503ju9kZ1ka503juBkZ1ka722jw",
        "HkZ902jwJkZ903jwLkZDkaJ03jwNkZDkaL03jwPkZHkaL03jwRkZHkaN22juLkZP02juNkZP03juPkZTkb303juRkZTkb503",
        "juTka1kb503juVka1kb703jv1ka5kX703jv3ka5kX912jx7ka913jxBkaDkbL13jxFkaHkbN13jxJkaLkXP02jvDkaP02jvF",
        "kaP03jvHkaTkc303jvJkaTkc503jvLkb1kc503jvNkb1kc703jvPkb5kY703jvRkb5kY902jxTkb902jxVkb903jy1kbDkcJ",
        "03jy3kbDkcL03jy5kbHkcL03jy7kbHkcN03jy9kbLkYN03jyBkbLkYP02jxTkcV02jxVkcV02jxPkd302jxRkd302jxPkd70",
        "2jxRkd702jxPkdB02jxRkdB02jxHkdF02jxJkdF02jx9kdJ02jxBkdJ02jx5kdN02jx7kdN23jyTkcPkZL03jyVkcPkZN04j",
        "z1kcTke3kZP04jz3kcTke5kZR04jz5kd1ke5kZT04jz7kd1ke7kZV04jz9kd5ka7ka104jzBkd5ka9ka303j/Dkd9ka503j/",
        "Fkd9ka704j/HkdDkeJka904j/JkdDkeLkaB04j/LkdHkeLkaD04j/NkdHkeNkaF04j/PkdLkaNkaH04j/RkdLkaPkaJ03jzH",
        "kdPkaL03jzJkdPkaN04jzLkdTkf3kaP04jzNkdTkf5kaR04jzPke1kf5kaT04jzRke1kf7kaV04jzTke5kb7kb104jzVke5k",
        "b9kb303kW1ke9kb503kW3ke9kb704kW5keDkfJkb904kW7keDkfLkbB04kW9keHkfLkbD04kWBkeHkfNkbF04kWDkeLkbNkb",
        "H04kWFkeLkbPkbJ03jzDkePkbL03jzFkePkbN04jzHkeTkg3kbP04jzJkeTkg5kbR04jzLkf1kg5kbT04jzNkf1kg7kbV04j",
        "zPkf5kc7kc104jzRkf5kc9kc303j/Tkf9kc503j/Vkf9kc704kW1kfDkgJkc904kW3kfDkgLkcB04kW5kfHkgLkcD04kW7kf",
        "HkgNkcF04kW9kfLkcNkcH04kWBkfLkcPkcJ02j/TkgJ02j/VkgP03kW1kh3kcP02kW3kcR03kW5kh5kcT12kW9kd703kWBkd",
        "9kd302kYDkh302kYFkh902kYHkhJ02kYJkhJ02kYLkdD02lvPkgJ0011kW902lvTkgN02lvVkdR03lw1khHkdT03kWLki3kd",
        "P02kWNkdR03kWPki5kdT12kWTke703kWVke9ke302kZ5kiF02kZ7kiF02kZ5kiJ02kZ7kiJ02kZ9keD03lwPkhJkiP03lwRk",
        "hLkiP03lwTkhNkeP02kXDkiJ02kXFkiP03kXHkiJkj303kXJkiLkj322kXPkf703kXRkiTkf902kZTkj302kZVkj902ka1kj",
        "J02ka3kjJ13lxPkiHkjP03lxRkiJkjP03lxTkiLkfP02kXLkjJ02kXNkjP03kXPkjJkk303kXRkjLkk302kY5kj102kY7kj1",
        "02kY1kg703kY3kjTkg902ka5kk302ka7kk902ka9kkJ02kaBkkJ02kaLkjF03lyPkk9kkP03lyRkkBkkP0011luT23kYHkl3",
        "kgP02kYJkgR03kYLkl5kgT12kYPkh703kYRkh9kh302kbHklF02kbJklF02kb1klJ02kb3klJ02kb5khD02lzPklN02lzRkk",
        "J1011lzV0011l+10011l+30011l+50011l+70011l+90011l+B0011l+D0011l+F0011l+H0011l+J6011152l/Dkk7C011l",
        "/B02l/Dl/D03l/Fl/Fl/F8011mWT32110333312110333342mXLmXL12mXRkpH82mWFmWF02mWHmYD02mYFmWJD4Y9Y9Y9Y9",
        "7011mZTG011mZV0011mWF2061mZV0011maT0011vE0011mZT0021mb90011mX100A1maV0011mbT0011uE0011maT0021mc9",
        "P2mbBmZ9YN3mfTmj1mfP03mfVmj3meR0011mhT02mb5mhV13mg3mjBmfB03mg5mjDmf10011ltD12mbHmi50011mg50011mi",
        "50011mi70011mi90011mgB0011l+F0011miD0011miF0011miB0011mgD1011miD02miFmgD2031miH0011miJ0011miL22m",
        "iPmj503miPmjNmj902miRmj91011miJ1011ktP1011miR1011mjT02mkJlY10021mkJ1011miJ0021mkL1011mkB0011mi90",
        "041js90011miV3011kuJ0011kwL0011kvT0011j24011mm10021mk30021mjT93mo3mTmnV03mo3mVmo103mo7n1mnV03mo7",
        "n3mo103mo7n5mo303mo7n7mo503moFn9mo503mo9nBmo703moJnDmo503moHnFmo703moFnHmo903moDnJmoB02moRnL0011",
        "mnD02mnFmnF03mnHmnHmnH02mnJmmP0011mmR02mmTmnN03mmVmnPmnP04mn1mnRmnRmnR02mnTmmV0011mn102mn3mo103m",
        "n5mo3mo30011mnV0021moJ0011mo30011mmD02mmFmmF03mmHmmHmmH02mmJmlP0011mlR02mlTmmN03mlVmmPmmP04mm1mm",
        "RmmRmmR02mmTmlV0011mm102mm3mn103mm5mn3mn30011mmV0021mnJ0011mn3Q2Jlc302Hlc5I2XJldBU26lf902ClfB026",
        "lfDXK21liN421lj1221lj7N21lkN121lkR521103333121103333G29lmH221lmN223lmT121ln1M2nY5loF121loJA2XVlp",
        "902nZ3lpB02nZ1lpD02NlpF02NlpH223lpN023lpP223lpV023lq162BlqF02BlqH223lqN023lqP223lqV023lr1X22Jlt7",
        "029lt9029ltB027ltDXG2c7lwF02c7lwH02b1lwJ02b1lwL62ZFlx302ZFlx502ZFlx702ZFlx9XR021cjUfL091oYT02oZF",
        "oZH02oZHoZH02oZJoZH02oZLoZH02oZNoZH02oZPoZH02oZRoZH02oZToZH02oZVoZH02oa1oZH02oa1oa503oaNoa5oaL03",
        "oaPoa5oaN03oaRoa5oaP03oaToa5oaR03oaVoa5oaT03ob1oa5oaV03ob3oa5ob103ob5oa5ob303ob7oa5ob504ob9oaNoa",
        "Pob704obBoaPoaPob904obDoaRoaPobB04obFoaToaPobD04obHoaVoaPobF04obJob1oaPobH04obLob3oaPobJ04obNob5",
        "oaPobL04obPob7oaPobN04obRob9oaPobP04obTob9obDobR02obDobJ02obDobL02obDobN02obDobP02obDobR02obDobT",
        "02obDobV02obDoc102obDoc303obVoc1oc503oc1oc1oc703oc3oc1oc903oc5oc1ocB03oc7oc1ocD03oc9oc1ocF03ocBo",
        "c1ocH03ocDoc1ocJ03ocFoc1ocL03ocHoc1ocN03ocHocLocP03od7oZLod503od9oZLod703odBoZLod903odDoZLodB03o",
        "dFoZLodD03odHoZLodF03odJoZLodH03odLoZLodJ03odNoZLodL03odPoZLodN03odRoZLodP03odToZLodR03odVoZLodT",
        "03oe1oZLodV03oe3oZLoe103oe5oZLoe303oe7oZLoe503oe9oZLoe703oeBoZLoe903oeDoZLoeB03oeFoZLoeD03oeHoZL",
        "oeF03oeJoZLoeH03oeLoZLoeJ03oeNoZLoeL03oePoZLoeN00Q1od900Q1ocT0011ohJXf14Z+1Z+1Z+1Z+1Z73rZJrZJrZD",
        "02rZFrZF03rZHrZHrZHZ522pw7+2011+oSYJ011XugOC011lm00011loE0011lp80011lpO0011lrA0011lu00011luC0011",
        "lvI0011lx40011nZC0011nbM0011nc00011ndC0011neI0011nfQ0011nj20011nkA0011nkU0011nuI0011n+C0011oW200",
        "11oWA0011oY40011oYK0011oa80011ob00011ocG0011ofM0011ogO0011oiC0011pxI0011qW00011qyM0011q+20011q+G",
        "0011q/40011rW60011raS0011sYK0011sbI0011sj00011skC0011slG0011smQ0011sq40011sq80011tgQ0011thC0011t",
        "i20011tiQ0011tq00011tqE0011tqM0011txU0011tyG0011tz80011tzM0011uXE0011uYE0011uZG0011ueE0011viM001",
        "1vlG0011vmO0011w+U0011w/60011xaA0011xb80011xc00011xd80011xfK0011xfS0011xwG0011xxU0011xzS0011zzA0",
        "011+XC0011+YO0011+cA0011+dO0011+e80011+eK0011+hQ0011+i20011+k00011XWnC0011XXj80011XXjU0011XXk600",
        "11XXkC0011XXkQ0011XXlS0011XXlU0011XXqU0011XYYC0011XYYK0011XYtO0011XYuA0011XYxC0011XYxO0011XYy800",
        "11XYyM0011XZYA0011XZYM0011XZmS0011XZn80011XZq80011XZr80011XZu40011XacS0011Xad80011Xae80011XayK00",
        "11XbaE0011XbaO0011Xbm20011XbrE0011Xbu80011XclQ0011Xcu20011XdxS0011XdzG0011XeX00011Xea40011XeeA00",
        "11XeeU0011Xef80011Xeh80011XelU0011XemG0011Xfc20011XfcE0011XfcU0011XfdE0011XfeC0011Xff80011XffE00",
        "11XfkA0011XfkG0011XfkQ0011Xhi20011XhjS0011Xih40011XihQ0011Xij60011Xi+Q0011Xi/I0011XjZU0011XjcO00",
        "11Xkg40011Xkh00011XkhS0011Xkk00011Xkm80011XkyK0011XkzA0011XlXE0011XlmS0011XloO0011Xl/O0011XmX000",
        "11XmX80011XmkU0011XmwC0011XnY40011XnYE0011XnYM0011Xoz00011XozG0011Xpd60011XpmO0011XpmS0011XppO00",
        "11Xpw80011Xpx00011Xpx60011XpxI0011XqXK0011XqZM0011Xqa00011XqaQ0011Xql60011XqoA0011XqoG0011XqzS00",
        "11Xq+00011Xq/40011XrkQ0011XrnO0011Xro40011XrsE0011Xrt00011Xrt40011XrtM0011XrvG0011Xso40011Xth200",
        "11XthK0011XtjU0011Xtl80011XtlM0011Xtm80011XtmE0011XtoS0011Xtp20011Xtq20011XtqA0011Xtr20011XtsM00",
        "11XttI0011Xtu00011XtxK0011XtyG0011XtyMXA011tzVXL011Y71011nmI0021nmMH21aQ121aM121aI121aE121aA121a",
        "6121a2121ZU121ZQ121ZM121ZI121ZE221Z8121Z4121Z0621YI023YI121YC023YC121Y6023Y6121Y0023Y0121XQ023XQ",
        "M2aRA62udL302udN3121902XDX9C21X5121X9121XD121XH121XL121XP121XT121Y1121Y5121Y9121YD121YH221YN121Y",
        "R121YV621ZD023ZD121ZJ023ZJ121ZP023ZP121ZV023ZV121a5023a5M2aRbL22FbR02FbT02FbV02Fc1321c902aNZDXH0",
        "21mZ10011luH0011mZ30021luH0031mZ70061luJ0011mYB0031mZL0011mY500A1mZN00L1l+R0011mW70021mb10021lvV",
        "0011lvP0011lvN0011lvF0011lv90011lv70011mb30011lv30011lv10021mb70011mb50021mb30011maT0011maR0051m",
        "aP0011maL0011maF0011mZT0011mZH0011mZ90021lv10031mYP0021mW50011mW10021l/H0011l/F0011l+T0011l+P301",
        "1kcS0011klI0011kdA0011oqC0011kd80011kfC0011kd60011XXvI0011khU0011kdS0011kcA0011puO0011ov40011knM",
        "Z03uzFmlVuzD03uzHmlTuzF03uzJmlTuzH03uzLmlRuzJ03uzNmlRuzL03uzPmlRuzN03uzRmlPuzP03uzTmlNuzR03uzVml",
        "NuzT03u+1mlLuzV03u+3mlLu+103u+5mlLu+303u+7mlLu+503u+9mlLu+704u+BmmRmgPu+904u+DmmPmgRu+B04u+FmmPm",
        "gTu+D04u+HmmNmgVu+F04u+JmmNmh1u+H04u+LmmNmh3u+J04u+NmmLmh5u+L04u+PmmJmh7u+N04u+RmmJmh9u+P04u+Tmm",
        "HmhBu+R04u+VmmHmhDu+T04u/1mmHmhFu+V04u/3mmHmhHu/104u/5mmHmhJu/304u/7mmVmgRu/533u/Fj+0u/D03u/HkcM",
        "u/F03u/Jj+Eu/H03u/LohGu/J03u/Nkd0u/L03u/PlqGu/N03u/RjzQu/P03u/Tlq8u/R03u/VkZAu/T03vW1mnGu/V03vW3",
        "wjSvW103vW5/a0vW303vW7zWGvW503vW9wlMvW703vWBXlw6vW903vWDol0vWB03vWFvxAvWD03vWHw/IvWF03vWJwjEvWH0",
        "3vWLXZmMvWJ03vWNmzIvWL03vWPXWa8vWN03vWRXjcMvWP03vWTXZoCvWR03vWVmdOvWT03vX1kgKvWV03vX3na4vX103vX5",
        "qoMvX303vX7XYgEvX503vX9ki8vX703vXBXjeIvX903vXDmnAvXB03vXFXZoQvXD03vXHkj0vXF03vXJXdwGvXH03vXLXdx0",
        "vXJD2vXTvXV02vXVvXV02vY1vXV02vY3vXV02vY5vXV02vY7vXV02vY9vXV02vYBvXV02vYDvXV02vYDvYJ02vYFvYJ02vYH",
        "vYJ02vYJvYJ02vYLvYJ02vYNvYJ0011mrV0021mrT0031mrR0011mrP0021mrN0051mrL02msRmmP02msPmmR02msPmmT02m",
        "sNmmV02msNmn102msNmn302msLmn502msJmn702msJmn902msHmnB02msHmnD02msHmnF02msHmnH02msHmnJ4011ju00011",
        "kWM0011juE0011obG0011kX00011lkG0011jtQ0011lk80011jzA0011mhG0011wdS0011++00011ywG0011wfM0011Xlq60",
        "011of00011vrA0011wvI0011wdE0011XZgM0011mtI0011/+80011XjWM0011XZiC0011mXO0011XZpU0011XXfQ0011pjG0",
        "011XkyQ0011leQ0011mj40011zaI0011XosA0011kd00011llE0011yi00011jsC0011juG0011jsA0011rpU0011mqM0011",
        "mf40011qkQ0011qhM0011XYZE0011kb80011XjXI0011mgA0011pcO02vdRvdL02vdTvdL02vdVvdL02ve1vdL02ve1ve902",
        "ve3ve902ve5ve902ve7ve902ve9ve902veBve902veDve902veFve902veHve902veJve902veJveT02veTwaG02veTwaE02",
        "veTwaC02veTwaA02veTwa802veTwa602veTwa402veTwa202veTwa003vfFvfHwZU03vfHvfHwZS03vfJvfHwZQ4011XYR00",
        "11XYP0011XYN0011XYL0021XYJ0011XYH0011XYF0011XYD0011XYB0011XY90011XY70011XY50011XY30011XY10011XXV",
        "0011XXT0011XXP0011XXN0011XXL0061XXJ0011XXF0011XXB0011XX70011XX30051XWV0011XWT0011XWR0061XWP0041X",
        "WN15XbRXZ1XcBXW7XZF04XbTXXBXYNXbV05XbVXWTXYJXcFXbV03Xc1XWDXXF05XbVXZHXX1Xb9XcL03Xc1XX3Xa703XbVXb",
        "PXX506XbTXaRXbFXWLXZTXcR04XbVXWNXbPXWN03XbTXXBXaV03XbVXWRXYJ03XbVXcDXY104Xc1XY5XaHXa704Xc3XXVXY5",
        "XX104Xc5Xd9XY1XXL04Xc7XdBXXNXZ104Xc5XdDXc9XdD04Xc7XdFXaBXX904Xc9XYPXYFXXB06XcBXdJXYFXb7XdJXXD02X",
        "cDXYD06XcFXYFXcBXdNXYNXZ906XcHXYHXZ9XXJXaRXYL05XcJXYJXYFXb7XaT04XcHXdTXYTXZF06XcJXdVXYVXZHXb1XYB",
        "06XcLXYTXbTXe1XdBXYP04XcNXYRXXTXaR03XcLXXVXc503XcJXZ3Xb504XcLXY3Xa5Xe704XcJXdLXcVXZ705XcLXYPXbTX",
        "Y7XZV05XcJXZDXYRXd3XeF03XcDXYTXc103XcFXYVXbL04Xc9XeLXYFXcL03XbTXeNXcR03XbRXePXZL02XbTXZ702XbRXbJ",
        "03XbLXcBXc103XbLXeBXcB06XbNXf1XYTXcVXZFXc504XbPXf3XYVXcF05XbRXf7XZ1Xa1Xa306XbNXf7XeNXd9XcBXa504X",
        "bPXf9XdVXa703XbRXfBXdP03XbTXfFXaB06XbPXf1XaHXcTXcJXfH04XbRXeVXZDXcL06XbTXfLXd1XdPXePXaH03XbVXaNX",
        "a305XbRXeDXdDXZJXaL03XbTXfPXdJ04XbVXfRXcPXcB03Xc1XaRXd904Xc3XfVXaDXe105Xc5Xg1XZTXe7Xg304Xc7Xg5XZ",
        "VXdP05Xc3Xg5XfHXaJXd904Xc5Xg9Xb5XdB02Xc7XaN05Xc9XgBXaPXdFXgD03XcBXa9XbB03XcDXaBXaT04Xc9XfTXf7XbB",
        "03XcBXfVXbH03XcDXe3XdB03XcFXbLXfD05XcHXb7XeVXbVXb704XcHXfHXbLXb902XcJXbT06XcLXbVXdLXh1XaRXbT03Xc",
        "JXfVXh305XcLXg1Xh5Xe7XbH04XcNXb1Xe9Xc304XcJXb3XeBXh903XcLXb5Xc703XcJXgRXbP04XcDXeRXeHXcB02XcFXcH",
        "04XcFXe1XhHXbD05XcHXbFXdTXhLXcH02XcHXd906XcJXc5XeRXg9XhPXc503XcFXf7XeT02voF+s202voF+s002voF+rU02",
        "voF+rS02voF+rQ02voF+rO02voF+rM02voF+rK02voF+rI02voF+rG03vp1vp3+rE03vp3vp3+rC03vp5vp3+rA03vp7vp3+",
        "r803vp9vp3+r603vpBvp3+r403vpDvp3+r203vpFvp3+r003vpHvp3+qU03vpJvp3+qS03vpJvpN+qQ03vpLvpN+qO03vpNv",
        "pN+qM03vpPvpN+qK03vpRvpN+qI03vmHvo1vmV02vmRvn102vp3vnR03vn3vn5vm302vmBvnT02vmBvn542rlGtfA02vh2mn",
        "002owKx+C02vf0ypQ04wgMrv0jvMXYxU02vmVvpT02vn5vpV02tyBvq102vnBvq302vnHvq502vpJvq502vpHvq702vpVvq9",
        "03vo9voDvnN04vnRvoBvoFvnP02vnJvq702vnPvq902tyVvqB02tz1voB02vo1voD02vo7voF02vqFvnB03voBvqHvnD03vq",
        "9vqJvnF03vqNvqLvnH03vpVvqNvnJ02tzHvoH02voHvoJ02vp5voL02voPvoN02vp5voN02voNvoP02tzTvoR02voTvoT02v",
        "pJvoV02vp5vp103vp3vp3vsP03vpPvp5vsR02vp7vsT03vpDvp9vsV03vpBvpBvsV03vq1vpDvt102vpFvt303vpLvpHvt50",
        "3vpJev3vp704vpLev5vp9vtB02vrHvqF03vpTvrJvqH03vrRvrLvqJ03vs9vrNvqL03vpLvqNvqH05vpNvqPvqJevHvpL06v",
        "pPvqRvqLevJvpNvtP02vpVvpP02vq5vpR02t/BvpT02vqBvpV02vq7vrR02vqDvrT02t/JvrV02vqJvs102vqPvs302vsNvs",
        "502vqJvs502vqPvs702t/Vvs902vqVvsB02vr5vsD02vt3vsF02vr9uXD02vt7uXF04vs1vv7vr9vv702vu1vr302vs1vs10",
        "2vs3vs104vu5ex1vrLvrT03vu7vrFvvH02vs7vuB02vu3vqV02vs3vsH02vu5vtL02vs5vrR02vu3vu302vu5vu102vs7vrL",
        "02vs7vs502vs9vs503vsBvs5vsL02vsDvrL02vsDvt303vsFvsNvsH03vsHvsDvsJ02vuDvuT04vsFvwJvsLvwJ03vuHvuHv",
        "uN02vuJvuF02vsFvsH02vuHvsB02vuBvtL22vwTvWA02vwTvW802vwTvW602vwTvW402vwTvW202vwTvW002vwTu/U02vwTu",
        "/S02vwTu/Q03vxFvxHu/O03vxHvxHu/M03vxJvxHu/K03vxLvxHu/I03vxNvxHu/G03vxPvxHu/E03vxRvxHu/C03vxTvxHu",
        "/A03vxVvxHu/803vy1vxHu/603vy1vy5u/403vy3vy5u/203vy5vy5u/003vy7vy5u+U03vy9vy5u+S03vyBvy5u+Q03vyDv",
        "y5u+O03vyFvy5u+M03vyHvy5u+K03vyJvy5u+I03vyJvyPu+G03vyLvyPu+EXne1011XshF0011YfWP0011XrZF0011XsZL0",
        "011YbZ50011Yrj50011Yoo10011XisL0011XisN0011YlxF0011XppH0011Ynu70011Yly70011YhnD0011YXg90011XyuJ0",
        "011Xvj10011XurD0011XuXJ0011Xqe70011Ydn30011Yb/J0011YaZP0011YYpH0011XwjL0011XpwT0011XloH0011YrfH0",
        "011YowD0011YdXH0011YZm50011Xvl30011Xjm30011Yjz10011YapD0011XvrB0011XtxV0011YhbN0011XxqR0011XumF0",
        "011YjbR0011YfX30011YbxV0011YZYT0011XqbR0011YqwD0011YptD0011Ypb10011YgcN0011YdbR0011YZo30011YXaN0",
        "011Xyp50011XvoT0011XvjJ0011XrqF0011XnWB0011XkyJ0011XjpV0011YWgT0011X/xP0011XzvP0011Xwt90011XpZL0",
        "011Xji10011XtcL0011Ymc50011YjZT0011X+k70011XyiD0011YZk70011YWdP0011XseB0011Xnb30011Ymd30011YkkH0",
        "011YdpH0011Ybt50011YbZT0011X+XV0011XznH0011XnmB0011YpdV0011XyiF0011YptF0011YpuH0011X/pJ0011XzvH0",
        "011XwsD0011Xnk70011XszJ0011YheN0011YdrJ0011XtbT0011Yro90011YktF0011YiqR0011YYzJ0011YX/30011YpaN0",
        "011YWcH0011YqwB0011YixP0011YrrJ0011YcfN0011Yf/10011X+aF0011YowF0011YmmR0011YXcN0011Xwo90011Xti90",
        "011YcxB0011Xqy10011YckJ0011Yhd90011XxeT0011Ygz90011YYX10011YriH0011YqWT0011YpwV0011YelH0011X+f70",
        "011XxmP0011XtgL0011XpwT0011YpeJ0011YopR0011YmWR0011YjfB0011YfxR0011YauB0011YWbL0011XnzH0011XlnP0",
        "011Xjl10011XjhL0011YpkT0011Yfi90011YdX90011XrYL0011YjnJ0011Yh/T0011YhuV0011YglD0011YbcT0011YaaJ0",
        "011YYmL0011X/yL0011Xzw30011XyoF0011Xrd30011XwgL0011XqtD0011Xpb10011Ypu90011YplJ0011Yok10011YajD0",
        "011XujR0011XtlD0011YjjH0011YiwR0011YhYH0011Yc/D0011X+sF0011YZZ30011Yri70011YngV0011Yky50011Yj/10",
        "011YiuV0011YY/L0011YYq90011XzX90011XysJ0011XptP0011XnhN0011XncL0011XmvN0011YrYJ0011YWWF0011XqW50",
        "011XnlV0011YijF0011Yrp70011Yqk10011YkyR0011YktR0011YgY90011YdxP0011YZ/30011YXtT0011XwiB0011XqqD0",
        "011XjZD0011YfpP0011XnvF0011YppR0011YfaP0011YezB0011YceH0011YboT0011YYy50011YYd70011YWs50011X+hT0",
        "011Xmt30011Yqc70011Yhw70011XnrL0011YqwH0011YkhN0011Yb+N0011XrgP0011YjaP0011Yif90011Yey50011YZb70",
        "011XnrB0011Ypx70011YoyT0011YktJ0011YfyP0011Yff50011YepJ0011YclR0011YYzR0011YYW50011XzcP0011XunF0",
        "011XumD0011XqXP0011XnmF0011YpgN0011Ybp30011YoyV0011YaXR0011YYrD0011Xv/B0011XnqR0011XkvL0011Xjr70",
        "011YfbP0011YcYJ0011XyWR0011X/oN0011X/jF0011X+sD0011YZpJ0011Yas30011Xtg70011YrpP0011XxiF0011Ypy90",
        "011Yp/H0011YjrL0011YhoT0011X+oP0011YldT0011YckD0011Yfr30011XriN0011XuxN0011XnxN0011XudT0011YjpF0",
        "011YqiN0011YoaP2011YmxB1011YfvR2011YqZD0011YZkN0011YXqP0011YWjN0011YWhL0011YWh90011YWeN0011XniB0",
        "011X+rT0011Xzc11011XwWR1011XtoJ2011Xq+P0011XqoH3011XmpL0011XmoT0011Xmm70011XkdH2011Yre30011YqqJ0",
        "011Yqk90011YpsJ0011YpqV0011Ypk70011YofH0011YoZ10011YnyV0011Ym/H0011Ymv30011YkzD0011YkyR0011YiwH0",
        "011YijB0011Yih10011YiaR0011Ygl30011YgbV0011Yfx30011YexT0011YciR0011YcYN0011Ybo90011YajJ0011YaXR0",
        "011YZYF0011YWxJ0011YWmR0011YWm70011YWmB0011YWlT0011YWlJ0011YWl70021YWi90011YWX70011X/z70011X/fB0",
        "011X+c50011X+aT0011X+XF0011XzkF0011XzbB0011XycT0011Xx+70011Xx+90011XxWF0011XuqV0011XuiL0011Xts10",
        "011XtoJ0011Xsv10011XsrP0011XrgV0011XrYT0011Xnu90011XncJ0011XnYTaL2ZzfJZzfJ02ZzfLZzfF02ZzfNZzfB03",
        "ZzfPZzfPZzfJ03ZzfRZzfRZzfF02Zzf3Zzf102Zzf5Zzf3C2ZwvTZwvP02ZwvVZwwT02Zww1ZwwJ02ZwvFZwvV02Zww5ZwwJ",
        "52Zwq7ZwsH12ZwoPZwsF0011ZwpR0011Zwr10021ZwqT0031ZwqH0011ZwpT0011ZwpR0011ZzlR02Zwq1ZwsH02Zwq3ZwsH",
        "03Zwq5ZwsVZwsL03Zwq7Zwt1ZwsL02ZwrRZwtD02ZwrTZwtD02ZwrVZwt702ZwrVZwt902ZwrVZwtB02ZwrVZwtD02ZwrVZw",
        "tF02ZwrVZwtH02ZwrVZwtJ12ZwrVZwtN02ZwrVZwtP02ZwrVZwtR02ZwrVZwtT02ZwrVZwtV12ZwrVZwu312ZwrVZwu702Zw",
        "rVZwu912ZwrVZwuD02ZwrVZwuF12ZwrVZwuJ02ZwrVZwuL02ZwrVZwuN02ZwrVZwuP02ZwrVZwuR02ZwtBZwv302ZwtLZwuP",
        "02Zwt3ZwuR02ZwsJZwuT02ZwtTZwt50011ZwjT0011ZwjV0011ZwjD0011ZwjF0011ZwjH0011ZwjJ0011ZwjF0011ZwjH00",
        "11ZwjJ0011ZwjL0011ZwjJ0011ZwjL0011ZwjN0011ZwjP0011Zwk70011Zwk90011ZwkB0011ZwkD0011Zwk50011Zwk700",
        "11Zwk90011ZwkB0011ZwkP0011ZwkR0011ZwkT0011ZwkV0011ZwiB0011ZwiD0011ZwiF0011ZwiH0011ZwiF0011ZwiH00",
        "11ZwiJ0011ZwiL0011ZwkR0011ZwkT0011ZwkV0011Zwl10011Zwl50011Zwl70011Zwl90011ZwlB0011Zwl70011Zwl900",
        "11ZwlB0021ZwlD0011ZwlF0011ZwlH0011ZwlJ0011Zwl90011ZwlB0011ZwlF0011ZwlH0011ZwlF0011ZwlH0011ZwlV00",
        "11Zwm10011Zwl30011Zwl50011ZwlL0011ZwlN0011Zwk90011ZwkB0011ZwkD0011ZwkF0011Zwk50011Zwk70011Zwk900",
        "11ZwkB0011Zwk50011Zwk70011Zwk90011ZwkB0011ZwkH0011ZwkJ0011ZwkL0011ZwkN0011Zwk70021Zwk90011ZwkB00",
        "11ZwkD0011ZwkF02ZwiTZwqV02ZwiVZwr10011Zwk90011ZwkB0011ZwkD0011ZwkF0011ZwkN0011ZwkP0011ZwkR0011Zw",
        "kT0011ZwjN0011ZwjP02ZwjRZwrN02ZwjTZwrPX1011ZwoB0011ZwoD0011ZwoF0011ZwoH0011ZwmV0011Zwn10011Zwn50",
        "011Zwn70011Zwn50011Zwn702ZwnBZwsH0011Zwn50011Zwn70011ZwnL0011ZwnN0011ZwnH0011ZwnJ0011Zwn70011Zwn",
        "90011ZwnB0011ZwnD0011ZwvT0011ZwvV03ZwvVZwvBZwy503Zww1ZwvDZwy703Zww3ZwvFZwnD03Zww5ZwvHZwnF03Zww7Z",
        "wvJZwwB03Zww9ZwvLZwwD03ZwwBZwvNZwoH03ZwwDZwvPZwoJ03ZwwFZwvRZwoN03ZwwHZwvTZwoP03ZwwJZwvVZwoN03Zww",
        "LZww1ZwoP03ZwwNZww3ZwoB03ZwwPZww5ZwoD03ZwwRZww7ZwoF03ZwwTZww9ZwwV03ZwwVZwwBZwx103Zwx1ZwwDZwx3001",
        "1ZwoV0011Zwp10011Zwp30011Zwp503ZwxBZwwNZwz703ZwxDZwwPZwz703ZwxFZwwRZwxP03ZwxHZwwTZwxJ03ZwxJZwwVZ",
        "wxJ02ZwzPZwzH02ZwzRZwzH02ZwzTZwzH02ZwzVZwy502Zw+1ZwxV02Zw+3ZwxV02Zw+1ZwzT02Zw+3ZwzT02Zw+5ZwzT02Z",
        "w+7ZwyH02Zw+9ZwyB02Zw+BZwyB02Zw+BZw+902Zw+DZwyP02Zw+FZwyJ02Zw+HZwyJ02Zw+HZw+F02Zw+JZwz102Zw+JZw+",
        "L02Zw+LZwz502Zw+LZw+P02Zw+NZw+P02Zw+PZwzB02Zw+HZw+V02Zw+JZw+V02Zw+LZw+V02Zw+NZwzJ02Zw+LZw/502Zw+",
        "NZwzN02Zw+NZw/B02Zw+PZw/B02Zw+RZw/B02Zw+TZwzV02Zw+TZw/H02Zw+VZw+302Zw+VZw+502Zw+VZw/P02Zw/1Zw+90",
        "2Zw/1Zw/T02Zw/3Zw+D02Zw+NZxW102Zw+PZxW102Zw+RZxW102Zw+TZw+L02Zw+VZw+F02Zw/1Zw+F02Zw/1ZxWB02Zw/3Z",
        "w+T02Zw/5Zw+N02Zw/7Zw+N02Zw/7ZxWV02Zw/9ZxWN02Zw/BZxWN02Zw/DZxWN02Zw/FZw/D02Zw/HZw/D02Zw/JZw/702Z",
        "w/LZw/702Zw/LZxX502Zw/NZxX502Zw/PZxX502Zw/RZw/P02Zw/TZw/J02Zw/VZw/J02Zw/VZxXH02ZxW1ZxXH02ZxW3ZxX",
        "H02ZxW5ZxW502ZxW7Zw/V02ZxW9Zw/V02ZxW9ZxXT02ZxWBZxXT02ZxWDZxXT02ZxWFZxWH02ZxWHZxWB02ZxWJZxWB02ZxW",
        "JZxY902ZxWLZxWP02ZxWNZxWJ02ZxWPZxWJ02ZxWLZxYH02ZxWNZxYH02ZxWPZxYH02ZxWRZxX502ZxWTZxWV02ZxWVZxWV0",
        "2ZxYLZw+L02ZxYLZw+N02ZxX7Zw+P03Z+ZRZxX3ZxWP03Z+ZTZxX3ZxWR03Z+ZVZxX3ZxWT03Z+a1ZxX3ZxWV03Z+a3ZxX3Z",
        "xX103Z+a5ZxX3Zw/503ZxXJZxWVZxZ503ZxXLZxX1ZxZ503ZxXNZxX3ZxY103ZxXPZxX5ZxY103ZxXRZxX7ZxXT03ZxXTZxX",
        "9ZxXT02Zxa3ZxZH02Zxa5ZxZH02Zxa7ZxYD02Zxa9ZxYD02ZxaBZxY902ZxaDZxY902ZxaBZxZT02ZxaDZxZT02ZxaFZxYP0",
        "2ZxaHZxYP02ZxaJZxYL02ZxaLZxYL02ZxaLZxa902ZxaNZxa902ZxaPZxZ502ZxaRZxZ502ZxaTZxZ102ZxaVZxZ102ZxZLZ",
        "xZ502ZxZNZxZ502ZxZNZxZ902ZxZPZxZ902ZxZPZxbH02ZxZRZxZP02ZxZTZxZP02ZxZVZxZJ02Zxa1ZxZJ02Zxa1ZxZV02Z",
        "xa3ZxZP02Zxa5ZxZP02Zxa5Zxc102Zxa7Zxa702Zxa7ZxbH02Zxa9ZxbH02ZxaBZxaD02ZxaDZxaD02ZxaFZxa902ZxaHZxa",
        "902ZxaDZxXV02ZxaDZxbV02ZxaFZxbV02ZxaHZxaR02ZxaJZxaR02ZxaLZxaN02ZxaNZxaN03ZxaPZxa5ZxcL03ZxaRZxa7Z",
        "xcL03ZxaTZxa9ZxcL03ZxaVZxaBZxb903Zxb1ZxaDZxb702Zxd7ZxcV02Zxd9ZxcV02ZxdBZxcV02ZxdDZxbJ02ZxdFZxbH0",
        "2ZxdDZxd902ZxdFZxd902ZxdHZxd902ZxdJZxbT02ZxdLZxbR02ZxdLZxc102ZxdLZxdJ02ZxdNZxc502ZxdNZxdP02ZxdPZ",
        "xc902ZxdPZxdT02ZxdRZxcD02ZxdJZxe102ZxdLZxe102ZxdNZxe102ZxdPZxcL02ZxdNZxe702ZxdPZxe702ZxdRZxcR02Z",
        "xdRZxeF02ZxdTZxeF02ZxdVZxeF02Zxe1Zxd302Zxe1ZxeL02Zxe1Zxd702Zxe1ZxeR02Zxe3ZxdB02Zxe3ZxeV02Zxe5Zxd",
        "F02ZxdPZxf302ZxdRZxf302ZxdTZxf302ZxdVZxdN02ZxdVZxf902Zxe1ZxdR02Zxe1ZxfF02Zxe3ZxfF02Zxe5ZxfF02Zxe",
        "7Zxe502Zxe9Zxe502Zxe9ZxfP02ZxeBZxfP02ZxeDZxfP02ZxeFZxeD02ZxeHZxeB02ZxeHZxg302ZxeJZxg302ZxeLZxg30",
        "2ZxeNZxeN02ZxeNZxgB02ZxePZxgB02ZxeRZxgB02ZxeTZxeV02ZxeVZxeT02ZxeVZxgL02Zxf1Zxf502Zxf3ZxcH02ZxeVZ",
        "xgR02Zxf1ZxgR02Zxf3ZxgR02Zxf5ZxfF02Zxf7ZxfD03Zxf9ZxeLZxfJ03ZxfBZxeNZxfH02ZxhHZxfN02ZxhJZxfL02Zxh",
        "HZxfR02ZxhJZxfP02ZxhJZxfV02ZxhLZxfT02Zxh7Zxg302Zxh9Zxg102Zxh9Zxg702ZxhBZxg502ZxgFZxgD02ZxgHZxgD0",
        "2ZxgHZxgF02ZxgFZxgH02ZxgHZxgF02ZxgBZxgL02ZxgDZxgJ03Zxh3Zxg7Zxg103Zxh5Zxg7Zxg303Zxh7Zxg7Zxg502Zxh",
        "RZxgN02ZxhTZxgN02ZxhRZxgR02ZxhTZxgR02ZxhTZxgV02ZxhVZxgV02ZxiFZxh302ZxiHZxh302ZxiHZxh702ZxiJZxh70",
        "2Zxj3ZxhB02Zxj5ZxhB02Zxj9ZxhF02ZxjBZxhF02Zxj9ZxhJ02ZxjBZxhJ02ZxiVZxhN02Zxj1ZxhN02Zxj1ZxhR02Zxj3Z",
        "xhR02Zxj9ZxjP02ZxjBZxjP02ZxjDZxjP02ZxjFZxiD02ZxjHZxjN02ZxjLZxjP02ZxjJZxjR02ZxjJZxjT02ZxjJZxiF02Z",
        "xjLZxiF02ZxjJZxiJ02ZxjLZxiJ02ZxjLZxiN02ZxjNZxiN02Zxk7ZxiR02Zxk9ZxiR02Zxk9ZxiV02ZxkBZxiV02ZxkRZxj",
        "302ZxkTZxj302Zxl1Zxj702Zxl3Zxj702Zxl1ZxjB02Zxl3ZxjB02ZxkNZxjF02ZxkPZxjF02ZxkPZxjJ02ZxkRZxjJ02Zxl",
        "1ZxlH02Zxl3ZxlH02Zxl5ZxlH02Zxl7Zxk502Zxl9ZxlF02ZxlDZxlH02ZxlBZxlJ02ZxlBZxlL02ZxlHZxm102ZxlJZxm10",
        "2ZxlLZxm102ZxlNZxkL02ZxlRZxkJ02ZxlRZxkL02ZxlNZxkR02Zxm1ZxmF02Zxm3ZxmF02Zxm5ZxmF02Zxm5ZxmL02Zxm7Z",
        "xmL02Zxm9ZxmL02Zxm5Zxl902Zxm5ZxlB02Zxn9Zxl102ZxnBZxl3I3ZxoBZxo7ZxmL03ZxoDZxo7Zxo903ZxoFZxo9ZxoB0",
        "3ZxoHZxoBZxmR03ZxoJZxoBZxmT03ZxoLZxmVZxoH03ZxoNZxn1ZxoH03ZxoPZxn3ZxoH03ZxoNZxn5ZxoL03ZxoPZxn7Zxo",
        "N03ZxoPZxn9ZxmV03ZxoRZxnBZxn303ZxoHZxoTZxoV03ZxoJZxp1ZxoV03ZxoLZxp3Zxn903ZxoNZxnJZxp303ZxoPZxnLZ",
        "xp503ZxoRZxnNZxp903ZxoTZxnPZxnP03ZxoVZxnRZxnR03ZxoTZxpDZxpD03ZxoVZxpFZxpF03Zxp1Zxo1Zxo103Zxp5Zxp",
        "JZxo303Zxp7ZxpLZxo503Zxp9ZxpPZxnT03ZxpBZxo9ZxpN03ZxpDZxoBZxpP03ZxpFZxoDZxoD03ZxpHZxoFZxoF03ZxpFZ",
        "xq1Zxo903ZxpHZxq1ZxoJ03ZxpJZxq3ZxoL03ZxpJZxoNZxq703ZxpLZxoPZxq903ZxpNZxoRZxoR03ZxpPZxoTZxoJ03Zxp",
        "NZxqHZxoV03ZxpPZxp1Zxp103ZxpRZxp3Zxp303ZxpTZxp5ZxoT03ZxpTZxp7Zxp703ZxpVZxp9ZxoV03Zxq1ZxpBZxp303Z",
        "xpLZxqRZxpD03ZxpNZxqTZxpF03ZxpNZxpHZxr103ZxpPZxpJZxpJ03ZxpNZxr5ZxpL03ZxpPZxr7ZxpD03ZxpRZxr9ZxpH0",
        "3ZxpTZxrDZxrD03ZxpVZxrFZxrF03Zxq1ZxrDZxpV03Zxq3ZxrFZxq103Zxq5Zxq3ZxrJ03Zxq7Zxq5ZxrL03Zxq7ZxrNZxr",
        "P03Zxq9ZxrPZxq903ZxqBZxrRZxq103ZxqDZxrVZxrT03ZxqFZxs1ZxqF03ZxqHZxrVZxs303ZxqJZxs1ZxqJ23ZxqPZxsBZ",
        "xs703ZxqNZxqRZxsD03ZxqPZxqTZxqT03ZxqTZxsFZxqV03ZxqVZxsHZxqP03Zxr1ZxsLZxr303Zxr3ZxsNZxr503Zxr5Zxs",
        "PZxqV03Zxr7Zxr9ZxqV03Zxr9ZxrBZxr303Zxr3ZxrDZxrD03Zxr5ZxrFZxrF03ZxtBZxsVZxr703Zxt9Zxt5Zxr903ZxtBZ",
        "xt7ZxrD03ZxtDZxt5ZxrD03ZxtFZxt7ZxrH03ZxtHZxrRZxrH03ZxtJZxrTZxrL03ZxtHZxrVZxrL03ZxtJZxtHZxrP03Zxt",
        "LZxs3ZxrR03Zxt9ZxtJZxrT03Zxt7ZxtNZxrT03ZxtBZxtPZxrV03Zxt9ZxtRZxs103ZxsFZxtVZxs303ZxsHZxsFZxs503Z",
        "xs7Zxu1Zxs703Zxs9Zxu5Zxs903ZxsBZxsLZxsB03ZxsNZxsNZxsD03ZxsVZxsPZxsF03ZxsPZxuBZxsH03Zxt3ZxsTZxuD0",
        "3Zxt1ZxuFZxsV03ZxtPZxt1ZxsN03Zxt7Zxt3ZxsP03Zxt3ZxuNZxuL03Zxt7ZxuLZxsT03ZxtBZxuRZxt903ZxtFZxtBZxt",
        "B03ZxtFZxuVZxtD03ZxtDZxv1ZxuV03Zxv3Zxv1Zxt703Zxv3Zxv5Zxt903ZxtLZxv7ZxtB03ZxtVZxtNZxtD03ZxvJZxv9Z",
        "xtF03ZxtVZxtRZxtR03ZxuLZxvFZxtT03ZxuVZxtVZxtV03Zxv5ZxvFZxtN03Zxu1ZxvLZxtPX83ZxxLZxwNZxnR03ZxwTZx",
        "wPZxnT04ZxyLZxwRZxwRZxwL04ZxyNZxwVZxyLZxy304ZxwTZxyDZxwTZxy904ZxxVZxx1ZxxNZxwV04Zxy9Zxy5ZxwRZxx3",
        "04ZxxRZxx5ZxwPZxwV04ZxwVZxy9Zxx7Zxx503Zxy7Zxx9ZxwV0IZxy9ZxxBZxx1Z+zJZxz5ZxxBZxxBZxx5Z+zJZxy1ZxxB",
        "ZxwVZxx5Z+zJZxx3ZxyDZxxBZxx908ZxyTZxxDZ+zLZxyTZxxDZxz7ZxxDZxx704ZxyLZxoVZxz9ZxxFXJ2Z/W3Z/W30011Z",
        "lXP0011ZlXT0011Z+z70011Z+z90021Z/WP0011Z+xN0011Z+xL0021ZdY90021ZdYL0021ZdZ50021ZdZD0041ZdZ942Z/Y",
        "HZzq702Z/YJZzq902Z/YLZzqB02Z/YNZzqD0011Z++R0011Z++T0011Z++V0011Z/Y70011ZdaV0011Z/Y71011Z/XH0011Z",
        "/XL0011Z/XD0011Z/ZB0011Zla70021Z/Z10011Z+zV0011Z+zT0021ZdaH0011Z/ZN0011Z/ZJ0021Z/ZD0011Z/ZB0011Z",
        "/YF0011Z/YD0011Z/YH1011Z/WN0021Z/a90011Z/YL42Z/aVZyY902ZyZ1ZyYB02Z/b3ZyYB12Z/b7ZyYD12Z/bBZyYF02Z",
        "yZDZyYH02Z/bFZyYH02ZyZHZyYJ02Z/bJZyYJ02ZyZLZyYL02Z/bNZyYL02ZyZPZyYN02Z/bRZyYN02ZyZTZyYP0011ZybT0",
        "2ZybJZyYR02ZybLZyYT02ZybNZyYT02ZybPZyYV02ZyZPZyZ102ZyZRZyZ302ZybVZyZ302Zyc1ZyZ502ZyZTZyZ902ZyZVZ",
        "yZB02Zya1ZyZD02Zya3ZyZF0011ZycB0021ZycD0011ZycF0011ZycH0021ZycJ0021ZycL0011ZycN0011ZycP0021ZycR0",
        "011ZycT0011ZycV0021Zyd10011Zyd30011Zyd50021Zyd70011Zyd90011ZydB0021ZydD0011ZydF0011ZydH0021ZydJ0",
        "021ZydL0021ZydN0021ZydP0021ZydR0011ZydT0011ZydV0021Zye10011Zye30011Zye50021Zye70011Zye90011ZyeB0",
        "021ZyeD0011ZyeF0011ZyeH0021ZyeJ0011ZyeL0011ZyeN0021ZyeP0011ZyeR0011ZyeT0021ZyeV0011Zyf10011Zyf30",
        "021Zyf50011Zyf70011Zyf90011ZyfB0011ZyeV0011Zyf10011Zyf30021Zyf50011Zyf70011Zyf90021ZyfB0011ZyfD0",
        "011ZyfF0021ZyfH0011ZyfJ0011ZyfL0021ZyfN0011ZyfP0011ZyfR0021ZyfT0011ZyfV0011Zyg10021Zyg30011Zyg50",
        "011Zyg70021Zyg90021ZygB0021ZygD0011ZygF0011ZygH0011ZygJ03Zyh1ZyiRZyg303Zyh3ZyiTZyg503Zyh5ZyiVZyg",
        "503Zyh7Zyj1Zyg703Zyh9Zyj3Zyg703ZyhBZyj5Zyg902ZyhDZyj702ZyhFZyj940YU1Z/jV0021ZgzJ0011ZdrT0021ZdrB",
        "0011Zds50011ZdcJ0011Zdd70011ZdiB0011Zdi90011Zdi70011Zdi50011Zdi30011ZdeH0011ZdeF0011ZdeD0011ZdgN",
        "0011Zdd70011ZdiT0011ZdiR0011ZdiP0011ZdiN0021ZdiL0011ZdiJ0011ZdiH0011ZdiF0011ZdiD0011ZdiB0011Zdi9",
        "0011Zdi70011Zdi50011Zdi30011Zdi10011ZdhV0011ZdhR0011ZdhP0011ZdhN0061ZdhL0011ZdhH0011ZdhD0011Zdh9",
        "0011Zdh50051Zdh10011ZdgV0011ZdgT0061ZdgR0011ZdgP0011ZdgJ0021Zdm90011ZtZV0021Ztg10011Zs/H0011Ztg3",
        "0021Zs/H0031Ztg70061Zs/J0011ZtfB0031ZtgL0011Ztf500A1ZtgN3061Ztc12061Ztc52061Ztc92031ZtcD3021Z/pR",
        "0011Z/pB02Z/y5Z+jT0011Z/pR0011Z/pV0011ZlpP1011ZjkB0041ZlbH0011ZjaP0011ZjY5XqhF2DE02DC03FAS03H8S0",
        "3J6S03L4S03N2SYM23bB023bD037bFaT037bHaV03BbJaV03BbLb1nV0Q1dfxT00Q1dfxH00Q1df/50071df+P10I1df+P00",
        "Q1dgYD00Q1dgY10022dgbL0011dgbL2011dgbL2021dgbL2041dgbL1081dgbL0041dgb91022dgb90031dgb91021dgb910",
        "B1dgb900Q1dgeT00Q1dgeH0021dgi51041dgi52081dgi51071dgi510Q1dghP0021dglD1041dglD1051dglD1011dglD30",
        "71dglD10Q1dgl100Q1dgoL00Q1dgo900Q1dgrT00Q1dgrH00Q1dgv500Q1dguP00Q1dgyD00Q1dgy100Q1dg/L00Q1dg/900",
        "Q1dhYT00Q1dhYH40H1dfnD0011dfo10071dfnD0011cwhJ00P1dfn10011cwjH0011dfoD0011dfo90011dfo70011dfnH00",
        "11dfnT0011dfo100H1dfr10011dfrL0071dfr10011cwl700P1dfqL0011cwn50011dfs10011dfrT0011dfrR0011dfr500",
        "11dfrH0011dfrL00H1dfuL0011dfv90071dfuL0011cwoR00P1dfu90011cwqP0011dfvL0011dfvH0011dfvF0011dfuP00",
        "11dfv50011dfv900H1dfy90011dfyT0071dfy90011cwsF00P1dfxT0011cwuD0011dfz90011dfz50011dfz30011dfyD00",
        "11dfyP0011dfyT00H1df/T0011dgWH0071df/T0011cww300P1df/H0011cwy10011dgWT0011dgWP0011dgWN0011dgW100",
        "11dgWD0011dgWH40A1dhvR00A1dhwF00A1dhx300A1dhxN00A1dhyBYeW0011gqy50011gqyH0011gqy10011Zxk10011gqg",
        "70011gqbD0011gqaL0011gqW90011gpuR0011gpsV0011gpo50011gppN0011hXsR0011Zuz50011gpi10011gphL0011gpg",
        "N0011gpfJ0011ZvlB0011hXrJ0011gpgP0011gpeF0011ZviL0011gpdV0011gpd70011gqqP0011gpcR0011gpcB0011XpZ",
        "P0011gpYF0011gpXL0011hXpV0011go+90011gozL0011gowV0011gowN0011hXmT0011gorR0011gorP0011goq50011goo",
        "R0021goo70011gon70011gok50011gojN0011goj70011gohN0011goh50011goh30011goh50011goh70011ZtWF0011gZy",
        "90011gocN0011gobF0011Zsj90011goaR0011goaH0011goZ90011gnvR0011goW90011gn/B0011gnzD0011gnvR0011gnq",
        "L0011gnp30011gnkV0011gnk10011gni10011gni30011gngR0011gnfP0011gnfB0011gneF0011gmp90011gnaB0011gmp",
        "B0011gm/P0011gmzL0011gpaH0011gls50011gme70011gmbT0011gmaD0011gmiJ0011gmY70011gmYB0011glwN0011Znt",
        "90011glsF0011gls70011glrB0011glq50011glpN0011gllP0011ZmxF0011ZmtD0011gldB0011glaF0011glZP0011gle",
        "P0011gk/V0011hWtH0011ZolR0011gks10011gkoN0011gkoP0011Zlg70011gkgJ0011gkfB0011gkeF0011gkdP0011Zkr",
        "H0011gkd50011gkcP0011giq10011gkb50011hWl90011gkXD0011gkWJ0011gjxH0011gj+P0011ZjfD0011gjpH0011Zjf",
        "D0011gjmV0011gjn70011gjm70021gjfV0011hWb70011gjeD0011gjbP0011gjaH0011gjXR0011hWYB0011ZhmB0011hWW",
        "R0011gizL0011gizH0011gizD0011giy70011XglP0011giv30011ZgrV0011Zgs10011fxf30011git30011git50011g/y",
        "T0011ZYzT0011YhhR0011gipD0011gioT0011g/xF0011gim30011giiV0011giiD0011gigB0011giXT0011g/sD0011g/u",
        "B0011giWT0011ZeyV0011ghzR0011ghrR0011ghrL0011ghrJ0011ghrP0011ghoV0011ghnP0011ghlJ0011ghmH0011ghl",
        "T0011ghj10011ghhR0011ghhL0011ghg30011ghfF0011ghbD0011ghW70011gg+30011ggsD0011ZcwN0011ggtN0011ggx",
        "R0011ggr50011ggpH0011ggjH0011ZciP0011ggfP0011gglL0011ggnF0011g/f70011ggbJ0011ggaB0011ggYF0011gga",
        "T0011g/bL0011gftH0011gfrP0011ZahV0011gfkF0011gez70011gfe70011g+x90011gfZR0011g+yF0011g++P0011gpp",
        "V0011gppR0011gez70011gfZH0011fyYH0011gwlR0011gey10011gexR0011gexH0011getP0011geuH0011ZYnJ0011g+v",
        "90011gek90011gerL0011geeT0011gebP0011ZYdB0011gebB0011geiB0011gdz30011g+qJ0011gdwB0011gdqB0011gdl",
        "V0011gda50011ZXaH0011gdX30011g+jB0011gcyR0011ZWaH0011gcvP0011g+g70011gcu10011gcr90021gcpL0011Y/c",
        "J0011Zj+P0011Y+/T0011gcgN0011Y+ZT0011gcZP0011gcYV0011gcfD0011gb+H0011gby30011gbuJ0011gby10011gbv",
        "J0011gbuN0011gbtV0011Yz+F0011gbz50011gbjH0011gbfL0011gzzD0011gbZV0011gba90011YzZN0011gbn90011gaw",
        "10011Yyx30011Yyu50011gaqN0011gajJ0011galB0011galJ0011gztV0011gaiP0011gafL0011gag30011gacP0011Zv/",
        "B0011gZzD0011YxhJ0011gZu30011gwt70011gZlF0011gZkN0011gZj30011YvnL0011gZg70011gZeV0011Yu/10011Yun",
        "50011gYwR0011gYvR0011gzdR0011gYuB0011gzd70011gzd90011gYkD0011gYj50011gYhT0011gYgN0011gYcF0011gzX",
        "F0011gYWV0011YslT0011gX/F0011Ysg90011gXyF0011ZhvJ0011gXoJ0011YqvJ0011Yqu70011YqlH0011gyq30011gyp",
        "D0011gXaN0011YqaR0011YqaV0011YqYJ0011YqX10021gXYD0011gXYF0011gW/R0011gymV0011gWxT0011gym90011gyh",
        "B0011YooV0011gWlV0011gWi50011gWe70011gycR0011YnoN0011f//P0011YnhJ0011YneV0011f/yD0011f/sN0011gyY",
        "H0011f/nH0011f/mV0011f/mN0011YlzV0011YlhB0011YlhD0011f/h10011gxrR0011YkxB0011f+vN0011f+vJ0011gxp",
        "P0011Ykk90011f+f70011gxiD0011f+dV0011f+eB0011f+cJ0011Yi+90011f+WH0011gxcN0011fzwD0011fzsP0011fzo",
        "L0011gxZP0011YhqJ0011YhoN0011gxXL0011YhfN0011fy/N0011YhZH0011fy+50011fytT0011fyt90011Ygg10011Ygb",
        "H0011fynP0011YfzB0011fymT0011ZZY10011gwwN0011fyiV0011fydV0011gwtH0011fyaD0011glj10011YezV0011Yez",
        "50011ZY/B0011ZY+R0011fxuJ0011fxuF0011fq+T0011gwo50011fxlR0011fxm90011fxl70011gpjT0011fxk30011fxk",
        "10011fxjF0011fxgV0011YdbL0011fxh50011fxdN0011fxZD0011fw+R0011fxdH0011fwzV0011fwxD0011fwqF0011fxa",
        "P0011fwzD0011fwzB0011fwyD0011YcsR0011YcZJ0011Ycj10011gwdN0011fwhD0011fwhB0011fwf70011YY+10011fwa",
        "F0011Ybe10011gwb10011gwaR0011Ya/T0011YajT0011gwaD0011fvs50011fvrF0011fvqR0011fvqP0011fvmR0011fvo",
        "V0011fvgL0011fvjF0011fva30011fvf70011fvb30011fvZF0011gscF0011fuzT0011fuxV0011gvyH0011fus50011fus",
        "10011YXrR0011fukT0011fukH0011gvv50011fuiT0011hYmT0011YWnP0011YWcB0011gvmT0011gvmD0011ftoT0011ftk",
        "50011ftaD0011fstP0011X+oL0011fsoH0011fsn70011fshL0011fsbV0011XzgH0011Zuz90011fsWT0011fsXT0011fr+",
        "N0011ZulT0011frmJ0011frgD0011XwWR0011Xv/70011fqqR0011fql30011fqj50011XvhD0011fqiL0011fpwT0021fpn",
        "10011fpsR0011fo/30011fozD0011Xs/50011foc50011gubJ0011foZH0011XsdJ0011guWN0011fnoV0011gka30011fnj",
        "30011Xqh10011XpzP0011gtuJ0011gtu50011fnXJ0011Xo/10011gtqJ0011XosD0011fm/50011fm/70011fmzD0011Xoa",
        "L0011fmnV0011gtiV0011fmjL0011fmbR0011fma70011fmWH0011gtZJ0011XljH0011fllF0011fkyL0011fkmT0011gsp",
        "T0011gso10011fkgF0011Xiq30011gsnH0011XimP0011XiW90011Xhu50011fjrJ0011gshV0011fjnR0011fjnJ0011fjn",
        "70011fjmL0011fjm90011fjk10011XgXP",
    );
    /// Packed canonical combining classes (CPython's current UCD).
    #[rustfmt::skip]
    pub(super) const CCC: &str = concat!(
        "u0Ld601d804cS01d801cO05cS02cA04cS02cA0BcS05104cS08d601dG01d603cS03d602cS13d604cS01d601d802cS01d6",
        "01d902dA01d902dA01d90Dd6eJ5d6e91cS04d601cS03d601cU01cS06d606cS02d601cS02d601cU01d401d601A01B01C0",
        "1D01E01F01G01H01I02J01K01L01M11N11O01P11d601cS11IY88d601U01V01X0XG1R01S01T01U01V01X001X101X202d6",
        "02cS05d601cS02d601cSG1X3Z57d624d601cS01d622d611cS02d601cSX31X4U1d601cS02d601cS02d603cS01d602cS01",
        "d601cS03d601cS01d601cS01d601cS01d601cS02d6b07d601cS01d691cSO4d619d613d615d6XB3cSXS1d603cS04d6XA5",
        "d605cS0Ed611cS02d601cS02d601cS03d603cS01R01S01T03d601cS02d602cS05d6XS17G1931d601cS02d6Z717G19XG1",
        "d6XT17G19ZE17G19ZE17G19ZV19ZE17G1971YK01YRZ517G19ZD29G19ZS19ZD2Z7019D4ZBZC2ZM019D4ZQYC2cSR1cS11c",
        "S11cOXN1a101a211a454a221a212d601912d6XU1cSZG17129YI1cSsF3d6zK29U19aT19A1d6cB1d4aF1cU01d601cScR1d",
        "601cSY719K8d621cSXG5d606cS02d601cS12cS02d602cS05d601cS04d6Z517F19X61d601cS07d6XM29XQ17B29Y317aO3",
        "d611105cS02d604cS01d617141cS61d632d6c62d601cS07d601cS02d601dA01cM01cS01cA0X5d601d802d401cS01cQ01",
        "d601d901cS01d601cSsG2d602104d603102d641d632101d601cS01d602104cS01d6Y/U3d6aD19Z0X0d6nA1cQ01d401d8",
        "01cU02d0Z928zkK1d64Ad6X02d6YG2d6eK19X519aN19RId6XP3cSX519YV17C19dF1d612d601cS22d652d611d6XK19dM1",
        "9pvG1Qu17d607cS02d6+D1cSd21cSaL5d6XqI1cS11d6X81d601101cS419b51d601cSnT4d6i32d6aP2cS03d601cS01d60",
        "4cSXH1d601cS01d601cSc019X919E19XP19017Y53d6XG29XU17YC19917ZA19017bI17019YG27G19O7d635d6cD19317N1",
        "d6Z319017dR19017ZU19ZM19017ZJ19eD19017e229417aS19YJ19I19YH19j519e217129YH19pgO51XR7d6XbP26pbC11b",
        "c62cO03131d205cO88cS25d602cSU4d6aK3d6ZjR7d61Hd627d612d615d6e57d6hN1d6XT4d6Xl07cSZD6d6017",
    );
    /// Packed canonical composition pairs (CPython's current UCD).
    #[rustfmt::skip]
    pub(super) const COMP: &str = concat!(
        "c0dTXa01dVXa01e1Xa01e3Xa01e5Xa81e7XaA2e7Xc01e5XZG1e7XZG1e9XZG1eBXZQ1e5XZ81e7XZ81e9XZ81eBXZI2e5XZ",
        "41e5XYS1e7XYS1e9XYS1eBXYS1eDXZ43e7XYE1e9XYE1eBXYE1eDXYO1e7XY83dTXY01dVXY01e1XY01e3XY01e5XY81e7XY",
        "A2e7Xa01e5XXG1e7XXG1e9XXG1eBXXQ1e5XX81e7XX81e9XX81eBXXI2e5XX41e5XWS1e7XWS1e9XWS1eBXWS1eDXX43e7XW",
        "E1e9XWE1eBXWE1eDXWO1e7XW82eBXWI1hTXW81fVXW61i1XW81g3XW61i5XY81g7XY61i5/M1g7/K1i9/K1gB/I1iD/Q1gF/",
        "O1iHXW01gJ/U1iJ/S1gL/Q3iP/41gR/21iT/41gV/21j1/21h3/01j5XX01h7XWU1j9/41hB/21j9+C1hB+A1jD+G1hF+E1j",
        "H+E1hJ+C1jLXWA1hNXW81jNzS1hPzQ3jTzM1hVzK1k1zK1i3zI1k5zK1i7zI1k9/K1iB/I1kDzE4kJyS1iLyQ1kL/21iN/02",
        "kPyG1iRyE1kT+O1iV+M1l1yU1j3yS5l9xS1jBxQ1lD+41jF+21lHyA1jJy84lPxG1jRxE1lTxG1jVxE1m1xM1k3xK3m3wQ1k",
        "5wO1m7z21k9z01mBx81kDx61mDwE1kFwC1mHwC1kJwA1mLyI1kNyG1mPwO1kRwM1mRyA1kTy81mVwG1l1wE3n5vM1l7vK1n9",
        "vK1lBvI1nDvK1lFvI1nHvO1lJvM1nLvM1lNvK1nPxC1lRxA1nPuS1lRuQ1nPuO1lRuM1nTv01nTuG1lVuE1o1uO1m3uM1o5u",
        "U1m7uSX2r1tM1p3tKErJsO1pLsMTuNpU1sPpS1uBpQ1sDpO1u3pM1s5pK1tRpI1rTpG1lHoU1jJoS1lLoK1jNoI1lPp61jRp",
        "41lToA1jVo82nJoC1lLoA1aCo81aCo61nNo41lPo23vToC1tVoA1vPo81tRo61vLpS1tNpQ13nG13nE1ZDnS1g6nQ1uBnO4w",
        "PmQ1uRmO3wJmG1uLmE1p9mE1nBmC1pBmA1nDm81oBm61mDm41xTmU1vVmS1y1mU1w3mS1xTmM1vVmK1y1mM1w3mK1xTmE1vV",
        "mC1y1mE1w3mC1xPm61vRm41xTm61vVm41xRlU1vTlS1xVlU1w1lS1xTlM1vVlK1y1lM1w3lK1y9mS1wBmQ1yBmO1wDmM3zBk",
        "S1xDkQ7+9k21yBk01+5lU1y7lS1r7jK1p9jI1rDjG1pFjE1zTjI1xVjG13j813j61zHj41xJj2gIXjPe71Me92QeD1SeF1Ue",
        "H2X6eL2XEeP1XKeR1ZKeTQX1g31Bg51AgL1GgN1IgP1KgR1XMgTQX1i31Bi51PiL1FiN19iP51j313iNXCXAlV1X8lH2X0m3",
        "41lT5SmL1MmP1XAmFB1n5X01p5NXLqV1XNqH2XVr341qT5Y3rL1Y9rP1XLrFO3sD13sFYAgLxL1eNxNEhVyJ1g1yL1i3yJ1g",
        "5yL3i1yV1g3z133z313z51iBz71gDz91iDzB1gFzD3iJzR1gLzT1iNzN1gPzP1iFzR1gHzT33+313+51hT+71fV+91iL+J1g",
        "N+L1iP+F1gR+H1iT+D1gV+F1iP+N1gR+P3iP+V1gR/1f9AZ218Z21Y8Z014Z01Y8YSaQXAcN21cRH1dToM1X681M31GaN7P1",
        "9MhS1S37P19MY83a6XM7N17P1BMZS3SZO1XA71S13S27F11KZV7N17P1BMaE1V25P11X5192o81GYt01YU21YQ21YM21YI21",
        "YE41Y6X91B21F33L13N21RrTkxTjjL1kvVjjN1kxVjlL1kw1jlN1ky3jk11kw5jk31ky7jj91kw9jjB1kq1jmD1ko3jmF1ky",
        "Bjm51kwDjm71kyFjkH1kwHjkJ1kyJjjP1kwLjjR1kyNjkH1kwPjkJ1kyRjk91kwTjkB1km3jn71km3jn91km7jn91km7jnB1",
        "kz5jkL1kx7jkN1kz9jkJ1kxBjkL1j/7jnB1j/7jnD1kzFjnD1kxHjnF1kzHjnN1kxJjnP1kzJjnL1kxLjnN1kzNjm11kxPjm",
        "31kzRjnR1kxTjnT1kzVjm11ky1jm31k+3jlN1ky5jlP1k+5jlN1ky7jlP1krTjoP1kpVjoR1k+9joT1kyBjoV1k+DjmT1kyF",
        "jmV1k+Hjm51kyJjm71k+Jjn51kyLjn713jp713jp91k+RjmH1kyTjmJ1k+VjmT1kz1jmV1k/1jpP1kz3jpR1k/5jpH1kz7jp",
        "J1k/9jnT1kzBjnV1k/BjpP1kzDjpR1k/Fjo51kzHjo71k/JjnD1kzLjnF1k/NjnP1kzPjnR1ktDjqL1krFjqN1ktHjqB1krJ",
        "jqD1km7jqV1km7jr11kmBjr11kmBjr31lW7jr51k+9jr71lWBjqT1k+DjqV1lWBjr11k+Djr31lWFjpD1k+HjpF13jrF13jr",
        "H1lWNjoP1k+PjoR1lWPjrH1k+RjrJ1lWTjpT1k+VjpV1kmJjrP1kmJjrR1kmBjrT1kmBjrV1Bjs11Bjs31lXBjs51k/Djs71",
        "lXFjqH1k/HjqJ1lXJjpP1k/LjpR1lXNjq51k/Pjq71lXPjqR1k/RjqT1lXTjq71k/Vjq91lY1jqH1lW3jqJ1kmVjtD1kmVjt",
        "F1kmVjt31kmVjt51lYBjtH1lWDjtJ1lYFjrL1lWHjrN1lYHjtV1lWJju11lYLju11lWNju31lYPjtN1lWRjtP1lYTjtT1lWV",
        "jtV1lZ1js91lX3jsB1lZ3ju51lX5ju71lZ7ju71lX9ju91lZ9juD1lXBjuF1lZBjuR1lXDjuT1lZFjsT1lXHjsV1lZJjs51l",
        "XLjs71lYRjs91lY5juT1lY1juR1lXVjuT2knNjv75lbTjtP1lZVjtR1lc1jvH1la3jvJ1k+3jw51ky5jw71k+7jwB1ky9jwD",
        "1k+BjvT1kyDjvV1k+FjwD1kyHjwF1NjwJ1NjwL1kwNjwP1kwNjwR1kwRjwV1kwRjx11kwVjwH1kwVjwJ1kx3jx11kx3jx31X",
        "BjwV1XBjx11ld5jv91lb7jvB1ld9jx11lbBjx31ldDjxH1lbFjxJ1k/7jxP1kz9jxR1k/BjxV1kzDjy11k/FjxH1kzHjxJ1k",
        "/Jjy11kzLjy31Rjy71Rjy91ldTjxT1lbVjxV1le1jwD1lc3jwF1ldPjwH1lbRjwJ1ldTjy91lbVjyB1k/NjyT1kzPjyV1k/R",
        "jz31kzTjz51k/VjyL1k+1jyN1lW3jz51k+5jz71NjzB1NjzD1kpJjzH1kpJjzJ1kpNjzN1kpNjzP1kpRjz91kpRjzB1kpVjz",
        "P1kpVjzR1kq3jxT1kq3jxV1leTjy11lcVjy31lf1jzP1ld3jzR1kpHj+D1kpHj+F1kpLj+J1kpLj+L1kpPj+51kpPj+71kpT",
        "j+L1kpTj+N1kq1jyP1kq1jyR1lfHj/31ldJj/51lfLjz11ldNjz31lfPj+P1ldRj+R1lfTj/91ldVj/B7jqTj+P1jqVj+P13",
        "kW313kW517kW517kW71Bjy71Bjy91jtDj/91jtFj/913kWJ13kWL17kWL17kWN1BjyN1BjyP1jrLj/P1jrNj/P13kX313kX5",
        "17kX517kX73ju5kW91ju7kW913kXJ13kXL17kXL17kXN3jsHkWP1jsJkWP13kY313kY517kY517kY71Bj+71Bj+91jv1kX91",
        "jv3kX913kYJ13kYL17kYL17kYN1Bj+N1Bj+P1jtDkXP1jtFkXP13kZ313kZ517kZ517kZ71Bj/71Bj/91jvTkY91jvVkY913",
        "kZJ13kZL17kZL17kZN1Bj/N1Bj/P1ju1kYP1ju3kYP13ka313ka517ka517ka73jwHkZ91jwJkZ913kaJ13kaL17kaL17kaN",
        "3juLkZP1juNkZP13kb313kb517kb517kb71BkX71BkX92jx7ka923kbL27kbN2BkXP1jvDkaP1jvFkaP13kc313kc517kc51",
        "7kc71BkY71BkY91jxTkb91jxVkb913kcJ13kcL17kcL17kcN1BkYN1BkYP1jxTkcV2jxPkd32jxPkd72jxPkdB2jxHkdF2jx",
        "9kdJ2jx5kdN4dVkZL1dVkZN1dVkZP1dVkZR1dVkZT1dVkZV1dVka11dVka31dVka51dVka71dVka91dVkaB1dVkaD1dVkaF1",
        "dVkaH1dVkaJ1cVkaL1cVkaN1cVkaP1cVkaR1cVkaT1cVkaV1cVkb11cVkb31cVkb51cVkb71cVkb91cVkbB1cVkbD1cVkbF1",
        "cVkbH1cVkbJ1ZVkbL1ZVkbN1ZVkbP1ZVkbR1ZVkbT1ZVkbV1ZVkc11ZVkc31ZVkc51ZVkc71ZVkc91ZVkcB1ZVkcD1ZVkcF1",
        "ZVkcH1ZVkcJ1j/TkgJ1j/VkgP1a3kcP1kW3kcR1kWFkcT2kW9kd711kd31kYDkh31kYFkh91kYHkhJ2kYLkdD5lnHkdT1aRk",
        "dP1kWNkdR1kXBkdT2kWTke711ke31kZ5kiF2kZ5kiJ2kZ9keD1RkiP1TkiP1VkeP1kXDkiJ1kXFkiP1kWFkj34kXPkf71kWP",
        "kf91kZTkj31kZVkj91ka1kjJ3Y2kjP1Y0kjP1XUkfP1kXLkjJ1kXNkjP1kXDkk32kY5kj11kY7kj11kY1kg71kXNkg91ka5k",
        "k31ka7kk91ka9kkJ2kaLkjF1lq9kkP5dBkgP1kYJkgR1kYBkgT2kYPkh711kh31kbHklF2kb1klJ2kb5khDiUJlc31Hlc5JX",
        "JldBV6lf91ClfB16lfDXL1liN51lj131lj7O1lkN21lkRR9lmH31lmN33lmT21ln1NnY5loF21loJBXVlp91nZ3lpB1nZ1lp",
        "D1NlpF1NlpH33lpN13lpP33lpV13lq17BlqF1BlqH33lqN13lqP33lqV13lr1X3Jlt719lt919ltB17ltDXHc7lwF1c7lwH1",
        "b1lwJ1b1lwL7ZFlx31ZFlx51ZFlx71ZFlx9ZgV1aQ21aM21aI21aE21aA21a621a221ZU21ZQ21ZM21ZI21ZE31Z821Z421Z",
        "071YI13YI21YC13YC21Y613Y621Y013Y021XQ13XQNaRAA19E1X521X921XD21XH21XL21XP21XT21Y121Y521Y921YD21YH",
        "31YN21YR21YV71ZD13ZD21ZJ13ZJ21ZP13ZP21ZV13ZV21a513a5NaRbL3FbR1FbT1FbV1Fc141c9XtyS1Y021XSFBUa36D1",
        "6FmS7P19MhF3115N291dS3L13NxT5F",
    );
    /// Packed RFC 3454 tables C.1.2, C.2.2, C.3-C.9.
    #[rustfmt::skip]
    pub(super) const PROHIBITED: &str = concat!(
        "a0X1qV2yR1XH1ZxG1iD1X/HGO8XF566Zy0C41Xh/Vce0XcGX0eF1dP7XqhJ8hq32X//U2X//U2X//U2X//U2X//U2X//U2X/",
        "/U2X//U2X//U2X//U2X//U2X//U211UZ0X/xUaWW2",
    );
    /// Packed bidi R/AL (table D.1).
    #[rustfmt::skip]
    pub(super) const RANDAL: &str = "XjU11121CR55X61311Q5BX231Z57172J51E211RYJX6B1cYT1XsuD11A1D151112121ZCX1hBIY02XMX8DZJ51a7";
    /// Packed bidi L (table D.2).
    #[rustfmt::skip]
    pub(super) const LCAT: &str = concat!(
        "Y1Q6QXF1A1415N1V1f91ISYU2927E2E591aB1B113111K1XC1X6Aa37Y51X6226GX1X6271X711xP11XL3484317A2DH2182",
        "22M171134436222A142134C27A6422M1712121243O4117A23E11711131M17121534811231F15AI218222M17122432116",
        "222A142134BI11633143211123233381342123313A1FCE318131N1A1574R24AI218131N1A15411522129271124AI2181",
        "31N1G435313A1824AI21I3O1911278368I3CXG12C78DX521122112164171311112214129125119A22X2O2R11115A1X2K",
        "15124XI81621XGX215121141617OY8X6AX9214YQ5Y45YI671XV11142711142X711142V111427111427171N1V1114271X",
        "71J6SX3YLCpMAQ5YHFD14EI329IED13FXN7812B7113AX6A6YO8X9XgNaS4YQ6M262X626281111111V2XL1711331734264",
        "D5317H1Z21D1a21412A11356111111413173355MX4jIY5Q1e6YEYuR3P975254YM631YQ145X84YU1X8XOXD3X4SS3XIFC4",
        "XF1ZN4Z32V1cjMYAqj6YQXaDXxJgz4YYScnE2XRaL7C5XW9Q6QBYP36262623v3V14CRbLX62X6XozIdMAX73XT39G27U4XG",
        "n2YL1Y7122122241C1114121Y11428171S141511371gI4f2gXMXfsNqf9mUuXl2X//U2X//U",
    );
}
#[cfg(test)]
mod tests {
    use super::*;

    /// Expected keys produced by `surt.surt()` of the Python package 0.3.1.
    const PYTHON_KEYS: &[(&str, &str)] = &[
        ("", "-"),
        ("-", "-)/"),
        (
            "http://www.Example.com:80/a/../B/?z=1&a=2#top",
            "com,example)/b?a=2&z=1",
        ),
        ("http://www.example.com/", "com,example)/"),
        ("https://example.com:443/", "com,example)/"),
        ("https://example.com:8443/Path/", "com,example:8443)/path"),
        ("http://example.com:443/", "com,example:443)/"),
        ("http://user:pass@Example.com/", "com,example)/"),
        ("www.example.com/Index.HTML", "com,example)/index.html"),
        ("dns:www.Example.com", "dns:www.example.com"),
        ("urn:ISBN:0451450523", "urn:isbn:0451450523"),
        ("mailto:Foo@Example.COM", "mailto:foo@example.com"),
        ("filedesc://IA-001.arc.gz", "filedesc://IA-001.arc.gz"),
        ("localhost:8080/foo", "localhost:8080/foo"),
        ("http://3232235777/", "1,1,168,192)/"),
        ("http://0300.0250.1.1/", "1,1,168,192)/"),
        ("http://1.2.3/", "3,0,2,1)/"),
        ("http://0x7f.1/", "1,0x7f)/"),
        ("http://1.2.3.256/", "256,3,2,1)/"),
        ("http://bücher.de/", "de,xn--bcher-kva)/"),
        ("http://www.ＢÜＣＨＥＲ。de/", "de,xn--bcher-kva)/"),
        ("http://faß.de/", "de,fass)/"),
        ("http://%FFexample.com/", "com,example)/"),
        ("http://[2001:DB8::1]:8080/x", "2001:db8::1:8080)/x"),
        ("http://[fe80::1%25eth0]/", "fe80::1%25eth0)/"),
        (
            "http://example.com/?a=1&JSESSIONID=0123456789abcdef0123456789ABCDEF",
            "com,example)/?&a=1",
        ),
        (
            "http://example.com/?jsessionid=0123456789abcdef0123456789ABCDEF&b=2",
            "com,example)/?b=2",
        ),
        (
            "http://example.com/x/(S(abcdefghijklmnopqrstuvwx))/Page.aspx",
            "com,example)/x/page.aspx",
        ),
        (
            "http://example.com/x/(0123456789abcdefghijklmn)/default.aspx?a=1",
            "com,example)/x/default.aspx?a=1",
        ),
        (
            "http://example.com/?b=2&a&a=&a=1&A=0",
            "com,example)/?a&a=&a=0&a=1&b=2",
        ),
        ("http://example.com/?q=%26x%3Dy", "com,example)/?q=&x=y"),
        ("http://example.com/a%3Fb/%2541", "com,example)/a?b/a"),
        ("http://example.com/../../x/./y//z/", "com,example)/x/y/z"),
        ("HTTP:////Example.com/A", "HTTP://example.com/a"),
        ("http:////Example.com/A", "com,example)/a"),
        ("http://https://example.com/", "com,example)/"),
        ("http:///", "http:/"),
        ("http://www5.www.Ex.com./", "com,ex,www)/"),
        ("http://example..com..", "com,example)/"),
        ("http://example.com/?", "com,example)/"),
        ("  http://example.com/a b\tc", "com,example)/a%20bc"),
        (
            "http://dbpedia.org/resource/Paris",
            "org,dbpedia)/resource/paris",
        ),
        (
            "http://example.com/caf%C3%A9/日本",
            "com,example)/caf%c3%a9/%e6%97%a5%e6%9c%ac",
        ),
    ];

    #[test]
    fn matches_python_package() {
        for (url, want) in PYTHON_KEYS {
            assert_eq!(surt(url), *want, "surt({url:?})");
            assert_eq!(try_surt(url).as_deref(), Ok(*want), "try_surt({url:?})");
        }
    }

    #[test]
    fn python_errors_are_reported_and_have_fallbacks() {
        assert_eq!(try_surt(" \t\n"), Err(SurtError::Blank));
        assert_eq!(surt(" \t\n"), "-");
        assert_eq!(
            try_surt("http://example.com:abc/x"),
            Err(SurtError::InvalidPort("abc".into()))
        );
        assert_eq!(surt("http://example.com:abc/x"), "com,example:abc)/x");
        assert_eq!(
            try_surt("http://example.com:99999/"),
            Err(SurtError::InvalidPort("99999".into()))
        );
        assert_eq!(surt("http://example.com:99999/"), "com,example:99999)/");
    }

    #[test]
    fn options_deviate_only_where_asked() {
        let o = |f: fn(&mut SurtOptions)| {
            let mut o = SurtOptions::default();
            f(&mut o);
            o
        };
        let ld = "http://www.DBpedia.org/resource/Caf%c3%a9_Paris/?B=1&a=2";
        assert_eq!(surt_with(ld, &SurtOptions::default()), surt(ld));
        assert_eq!(
            surt_with(ld, &o(|o| o.keep_path_case = true)),
            "org,dbpedia)/resource/Caf%C3%A9_Paris?a=2&b=1"
        );
        assert_eq!(
            surt_with(ld, &o(|o| o.keep_query_case = true)),
            "org,dbpedia)/resource/caf%c3%a9_paris?B=1&a=2"
        );
        assert_eq!(
            surt_with(ld, &o(|o| o.keep_query_order = true)),
            "org,dbpedia)/resource/caf%c3%a9_paris?b=1&a=2"
        );
        assert_eq!(
            surt_with(ld, &o(|o| o.keep_www = true)),
            "org,dbpedia,www)/resource/caf%c3%a9_paris?a=2&b=1"
        );
        assert_eq!(
            surt_with(ld, &o(|o| o.keep_trailing_slash = true)),
            "org,dbpedia)/resource/caf%c3%a9_paris/?a=2&b=1"
        );
        let sid = "http://e.com/?x=1&jsessionid=0123456789abcdef0123456789ABCDEF";
        assert_eq!(surt(sid), "com,e)/?&x=1");
        assert_eq!(
            surt_with(sid, &o(|o| o.keep_session_ids = true)),
            "com,e)/?jsessionid=0123456789abcdef0123456789abcdef&x=1"
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(unescape_repeatedly(b"%%2541%4"), b"%A%4");
        assert_eq!(escape_once(b"a b#%\x7f\xff~"), b"a%20b%23%25%7F%FF~");
        assert_eq!(normalize_path(b"/../../x"), b"/x");
        assert_eq!(normalize_path(b"/.."), b"/..");
        assert_eq!(normalize_path(b"/a//b/"), b"/a/b/");
        assert_eq!(squeeze_dots(b"..a...b.."), b"a..b");
        assert_eq!(
            attempt_ip_formats(b"1.16777215"),
            Some(b"1.255.255.255".to_vec())
        );
        assert_eq!(attempt_ip_formats(b"1.16777216"), None);
        assert_eq!(attempt_ip_formats(b"017.1"), Some(b"15.0.0.1".to_vec()));
        assert_eq!(attempt_ip_formats(b"08.1"), None);
        assert_eq!(alpha_reorder_query(b"b&a=&a"), b"a&a=&b");
    }

    #[test]
    fn tables_unpack() {
        assert_eq!(idna::self_check(), (2055, 5143, 941));
    }

    /// Expected values from CPython 3.11's `unicodedata.ucd_3_2_0.normalize`
    /// and `encodings.idna.nameprep`.
    #[test]
    fn nameprep_matches_cpython() {
        for (s, want) in [
            ("\u{fb01}", "fi"),
            ("a\u{301}", "\u{e1}"),
            ("\u{1100}\u{1161}\u{11a8}", "\u{ac01}"),
            ("\u{1100}\u{1161}\u{11c3}", "\u{ac00}\u{11c3}"),
            ("a\u{316}\u{301}", "\u{e1}\u{316}"),
            ("\u{212b}", "\u{c5}"),
        ] {
            assert_eq!(idna::nfkc_for_test(s), want, "NFKC {s:?}");
        }
        for (s, want) in [
            ("Faß", Some("fass")),
            ("\u{627}a", None),
            ("\u{627}\u{628}", Some("\u{627}\u{628}")),
            ("\u{e000}", None),
            ("X\u{ad}Y", Some("xy")),
            ("\u{1c90}", Some("\u{10d0}")),
            ("\u{130}", Some("i\u{307}")),
        ] {
            assert_eq!(
                idna::nameprep_for_test(s).as_deref(),
                want,
                "nameprep {s:?}"
            );
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let long = "%25".repeat(10_000);
        for u in [
            "http://[",
            "http://]",
            "http://@",
            "http://:",
            "http://%",
            "a:",
            ":",
            "::::",
            "http://\u{200d}/",
            "http://\u{e000}.\u{301}/",
            "http://0.0.0.0.0/",
            &long,
            "http://\u{10ffff}\u{fdd0}.xn--/",
            "filedesc",
            "\u{0}",
            "http://a.com:0/",
        ] {
            let _ = surt(u);
        }
    }
}
