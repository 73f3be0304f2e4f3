//! Differential test of `index::surt` against the Python `surt` package (0.3.1), the
//! canonicaliser pywb and cdxj-indexer use.
//!
//! A seeded generator produces well over 20,000 URLs (random web and Linked Data
//! style URLs plus a list of hand-picked edge cases). They are written to a temp
//! file, one hex-encoded UTF-8 string a line, and `surt.surt()` is run over all of
//! them in one Python process. Every key must be identical; where Python raises,
//! `try_surt` must report an error too.
//!
//! Python is `$LDWARC_VENV/bin/python` if `LDWARC_VENV` is set, else
//! `<crate>/.venv/bin/python`. The test fails (it never skips) when that
//! interpreter or its `surt` package is missing.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use ldwarc_surt::{surt, try_surt};

const SEED: u64 = 0x5EED_0000_5A27;
const RANDOM_URLS: usize = 30_000;

const PY_DRIVER: &str = r#"
import sys, surt
out = []
with open(sys.argv[1]) as f:
    for line in f:
        url = bytes.fromhex(line.strip()).decode('utf-8')
        try:
            out.append(surt.surt(url).encode('utf-8').hex())
        except Exception as e:
            out.append('!' + type(e).__name__)
sys.stdout.write('\n'.join(out) + '\n')
"#;

fn python() -> PathBuf {
    let venv = match std::env::var_os("LDWARC_VENV") {
        Some(v) => PathBuf::from(v),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv"),
    };
    let py = venv.join("bin").join("python");
    assert!(
        py.exists(),
        "surt interop test needs the Python `surt` package: no interpreter at {} \
         (create the venv with `python3 -m venv .venv && .venv/bin/pip install surt==0.3.1`, \
         or point LDWARC_VENV at a venv that has it)",
        py.display()
    );
    py
}

fn hex(s: &str) -> String {
    let mut h = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        let _ = write!(h, "{b:02x}");
    }
    h
}

fn unhex(s: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = s
        .as_bytes()
        .chunks(2)
        .map(|pair| match *pair {
            [h, l] => Some(((h as char).to_digit(16)? * 16 + (l as char).to_digit(16)?) as u8),
            _ => None,
        })
        .collect();
    String::from_utf8(bytes?).ok()
}

// --- the generator -----------------------------------------------------------

const SCHEMES: &[&str] = &[
    "http://",
    "http://",
    "http://",
    "https://",
    "https://",
    "HTTP://",
    "Https://",
    "",
    "",
    "ftp://",
    "http:",
    "http:/",
    "http:///",
    "http:////",
    "https://http://",
    "http://https://",
    "http://http://",
    "ws://",
    "file://",
    "hTTp://",
];

const PLAIN_HOSTS: &[&str] = &[
    "example.com",
    "Example.COM",
    "example.org",
    "dbpedia.org",
    "xmlns.com",
    "www.w3.org",
    "schema.org",
    "id.loc.gov",
    "data.europa.eu",
    "sub.domain.co.uk",
    "a-b.example.net",
    "localhost",
    "EXAMPLE.com.",
    ".example.com",
    "example..com",
    "a...b.com",
    "x.y.z.w.v",
    "purl.org",
    "wikidata.org",
    "en.wikipedia.org",
    "192-168-0-1.example",
    "host_name.com",
    "%65xample.com",
    "ex%2Eample.com",
    "exa%2525mple.com",
    "ex%ample.com",
    "a.b",
];

const WWW: &[&str] = &[
    "www.",
    "WWW.",
    "www2.",
    "www10.",
    "www.www.",
    "wwwx.",
    "www-1.",
    "www1.www2.",
    "ww.",
    "www",
    "www0.",
];

const IDN_HOSTS: &[&str] = &[
    "bücher.de",
    "BÜCHER.de",
    "münchen.de",
    "пример.рф",
    "ПРИМЕР.РФ",
    "例え.jp",
    "中国.cn",
    "ελληνικά.gr",
    "faß.de",
    "straße.de",
    "İstanbul.tr",
    "ıi.tr",
    "ＥＸＡＭＰＬＥ．com",
    "ｂüｃｈｅｒ。de",
    "日本｡jp",
    "xn--bcher-kva.de",
    "xn--bücher.de",
    "a\u{200d}b.com",
    "a\u{200c}b.com",
    "so\u{00ad}ft.com",
    "\u{00ad}.com",
    "مثال.إختبار",
    "a\u{0627}.com",
    "\u{05d0}\u{05d1}.il",
    "\u{05d0}1\u{05d1}.il",
    "\u{0627}\u{0644}1.com",
    "cafe\u{0301}.fr",
    "café.fr",
    "ǅ.com",
    "ﬁ.com",
    "☃.net",
    "\u{e000}.com",
    "\u{fffd}.com",
    "\u{1f600}.com",
    "ⅷ.com",
    "①.com",
    "\u{2126}.com",
    "\u{212b}.com",
    "ᄀ\u{1161}.kr",
    "한국.kr",
    "\u{1100}\u{1161}\u{11a8}.kr",
    "%C3%BC.de",
    "b%C3%BCcher.de",
    "%E4%BE%8B.jp",
    "%FF.com",
    "%FFexample.com",
    "b%FCcher.de",
    "%C3%28.com",
    "\u{3002}.com",
    "a\u{3002}\u{3002}b.com",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.ü.com",
    "ü.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com",
    "üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü.de",
    "www.bücher.de",
    "\u{1c90}.ge",
    "\u{0130}.com",
    "\u{03a3}\u{03c3}\u{03c2}.gr",
    "\u{0f73}.bt",
    "\u{ff21}\u{ff22}.com",
    "\u{2488}.com",
    "\u{fb2a}.il",
    "a\u{0308}\u{0301}.de",
    "\u{0041}\u{030a}.se",
    "é.",
    "é..com",
    "\u{fe0f}x.com",
];

const IP_HOSTS: &[&str] = &[
    "1.2.3.4",
    "192.168.0.1",
    "127.0.0.1",
    "010.0.0.1",
    "0300.0250.0.1",
    "0x7f.0.0.1",
    "3232235777",
    "2130706433",
    "0",
    "00",
    "080",
    "1.2.3",
    "1.2",
    "10.1",
    "256.1.1.1",
    "1.2.3.256",
    "1.2.3.4.5",
    "99999999999",
    "4294967296",
    "4294967297",
    "08.1.2.3",
    "1.2.3.08",
    "1.08.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "1.16777215",
    "1.16777216",
    "1.2.65535",
    "1.2.65536",
    "017.1",
    "0777.1.1.1",
    "00000000012.1.1.1",
    "1.2.3.4.",
    "1..2.3.4",
    "1.2.3.4%0A",
    "%31.2.3.4",
    "１.２.３.４",
    "１２３",
    "0.1",
    "07.1.2.3",
    "1.2.3.0x4",
    "1e3.1.1.1",
    "18446744073709551617",
    "99999999999999999999999",
];

const IPV6_HOSTS: &[&str] = &[
    "[::1]",
    "[2001:DB8::1]",
    "[fe80::1%25eth0]",
    "[fe80::1%eTh0]",
    "[::ffff:1.2.3.4]",
    "[::1",
    "[::1]x",
    "x[::1]",
    "[]",
    "[::1]:8080",
    "[v1.fe80::a+en1]",
    "[2001:db8::]",
];

const USERINFO: &[&str] = &[
    "user@",
    "user:pass@",
    "User:P%40ss@",
    "a@b@",
    ":@",
    "@",
    "us er@",
    "ü@",
];

const PORTS: &[&str] = &[
    ":80",
    ":443",
    ":8080",
    ":0",
    ":00080",
    ":65535",
    ":1",
    ":",
    "::",
    ":8443",
    ":080",
    ":0443",
    ":65536",
    ":abc",
    ":-1",
    ":8080:9090",
    ":99999999999999999999",
    ":８０",
];

const PATH_SEGMENTS: &[&str] = &[
    "resource",
    "Resource",
    "Paris",
    "page",
    "Index.HTML",
    "index.html",
    "data.ttl",
    "foaf",
    "0.1",
    "Person",
    "1999",
    "02",
    "22-rdf-syntax-ns",
    "n79021164.html",
    "a b",
    "a+b",
    "%7Euser",
    "~user",
    "%7euser",
    "ü",
    "日本",
    "%E6%97%A5",
    "%zz",
    "%",
    "%2",
    "%252F",
    "%2F",
    "%2f",
    "%3F",
    "%3f",
    "%23",
    "%2525",
    "%25",
    ".",
    "..",
    "",
    "",
    "%2E",
    "%2e%2E",
    "...",
    "page.aspx",
    "Default.ASPX",
    "(S(abcdefghijklmnopqrstuvwx))",
    "(0123456789abcdefghijklmn)",
    "(a(0123456789ABCDEFGHIJKLMN)b(abcdefghijklmnopqrstuvwx))",
    "(abc)",
    ";jsessionid=0123456789ABCDEF0123456789ABCDEF",
    "x;y=z",
    "%00",
    "%0A",
    "%09",
    "%20",
    "%C3%A9",
    "%c3%a9",
    "%FF",
    "%e2%82",
    "\u{00e9}",
    "Straße",
    "\u{1f600}",
    "@",
    ":",
    "*",
    "!$&'()*+,;=",
    "\"<>\\^`{|}",
    "%7B%7D",
    "AbC%41",
    "%%41",
    "%%%",
    "foo.aspx?x",
    "%3Fq=1",
    "a%2Fb",
    "#",
    "?",
];

const QUERY_KEYS: &[&str] = &[
    "a",
    "A",
    "b",
    "id",
    "ID",
    "q",
    "format",
    "lang",
    "x",
    "",
    "%41",
    "a%3Db",
    "k%26v",
    "ü",
    "page",
    "sort",
    "Z",
    "zz",
    "a b",
    "a+b",
    "%",
    "%zz",
    "name",
    "jsessionid",
];

const QUERY_VALUES: &[&str] = &[
    "1",
    "2",
    "10",
    "",
    "Turtle",
    "TEXT/HTML",
    "a b",
    "a+b",
    "%20",
    "%2520",
    "%26",
    "%3D",
    "ü",
    "%C3%BC",
    "%FF",
    "x=y",
    "?",
    "/",
    "#",
    "%23",
    "http://example.com/",
    "a%zz",
    "%",
    "Value",
];

fn random_alnum(rng: &mut StdRng, n: usize, alpha_only: bool) -> String {
    const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let set = if alpha_only { &ALNUM[10..] } else { ALNUM };
    (0..n)
        .map(|_| char::from(*set.choose(rng).unwrap_or(&b'a')))
        .collect()
}

fn session_arg(rng: &mut StdRng) -> String {
    // Mostly the exact id lengths the package strips, sometimes one off.
    let jitter: isize = match rng.random_range(0..8) {
        0 => -1,
        1 => 1,
        _ => 0,
    };
    let id32 = random_alnum(rng, (32 + jitter) as usize, false);
    let id24 = random_alnum(rng, (24 + jitter) as usize, true);
    let name8 = random_alnum(rng, 8, true);
    match rng.random_range(0..9) {
        0 => format!("jsessionid={id32}"),
        1 => format!("JSESSIONID={id32}"),
        2 => format!("PHPSESSID={id32}"),
        3 => format!("phpsessid={id32}"),
        4 => format!("sid={id32}"),
        5 => format!("xsid={id32}"),
        6 => format!("ASPSESSIONID{name8}={id24}"),
        7 => format!("CFID={}&CFTOKEN={name8}", rng.random_range(0..100000)),
        _ => format!("cfid={}&cftoken=", rng.random_range(0..100)),
    }
}

fn random_char(rng: &mut StdRng) -> char {
    match rng.random_range(0..6) {
        0 => char::from(rng.random_range(0x21u8..0x7f)),
        1 => char::from(rng.random_range(0u8..0x21)),
        2 => char::from_u32(rng.random_range(0x80..0x800)).unwrap_or('x'),
        3 => char::from_u32(rng.random_range(0x800..0xd800)).unwrap_or('x'),
        4 => char::from_u32(rng.random_range(0xe000..0x11_0000)).unwrap_or('x'),
        _ => *['%', '/', '?', '#', '&', '=', '.', ':', '@', '[', ']']
            .choose(rng)
            .unwrap_or(&'%'),
    }
}

fn host(rng: &mut StdRng) -> String {
    let mut h = String::new();
    if rng.random_bool(0.25) {
        h.push_str(WWW.choose(rng).unwrap_or(&""));
    }
    let pick = rng.random_range(0..100);
    let base = if pick < 45 {
        PLAIN_HOSTS.choose(rng)
    } else if pick < 70 {
        IDN_HOSTS.choose(rng)
    } else if pick < 90 {
        IP_HOSTS.choose(rng)
    } else {
        IPV6_HOSTS.choose(rng)
    };
    h.push_str(base.unwrap_or(&"example.com"));
    if rng.random_bool(0.05) {
        let at = rng.random_range(0..=h.len());
        if h.is_char_boundary(at) {
            h.insert(at, random_char(rng));
        }
    }
    h
}

fn path(rng: &mut StdRng) -> String {
    let mut p = String::new();
    for _ in 0..rng.random_range(0..7) {
        p.push('/');
        if rng.random_bool(0.08) {
            let n = rng.random_range(1..12);
            p.push_str(&random_alnum(rng, n, false));
        } else {
            p.push_str(PATH_SEGMENTS.choose(rng).unwrap_or(&"x"));
        }
    }
    if rng.random_bool(0.3) {
        p.push('/');
    }
    if rng.random_bool(0.03) {
        p.push_str("//");
    }
    p
}

fn query(rng: &mut StdRng) -> String {
    let n = if rng.random_bool(0.1) {
        rng.random_range(20..60)
    } else {
        rng.random_range(0..6)
    };
    let mut args: Vec<String> = Vec::new();
    for _ in 0..n {
        let r = rng.random_range(0..100);
        if r < 8 {
            args.push(session_arg(rng));
        } else if r < 14 {
            args.push(String::new());
        } else if r < 20 {
            args.push(QUERY_KEYS.choose(rng).unwrap_or(&"k").to_string());
        } else {
            let k = QUERY_KEYS.choose(rng).unwrap_or(&"k");
            let v = QUERY_VALUES.choose(rng).unwrap_or(&"v");
            args.push(format!("{k}={v}"));
        }
        // Repeated keys: sometimes the same argument twice in a row.
        let repeat = rng.random_bool(0.1);
        if let (true, Some(last)) = (repeat, args.last().cloned()) {
            args.push(last);
        }
    }
    args.join("&")
}

fn random_url(rng: &mut StdRng) -> String {
    let kind = rng.random_range(0..100);
    let mut u = String::new();
    if kind < 4 {
        // Schemes without an authority.
        let pre = [
            "dns:",
            "DNS:",
            "urn:",
            "urn:ISBN:",
            "urn:uuid:",
            "mailto:",
            "filedesc:",
            "filedesc://",
            "data:",
            "javascript:",
            "about:",
            "tel:",
            "tag:",
            "localhost:",
            "x-y+z.1:",
            "dns://",
        ]
        .choose(rng)
        .unwrap_or(&"urn:");
        u.push_str(pre);
        match rng.random_range(0..4) {
            0 => u.push_str(&host(rng)),
            1 => u.push_str(&random_alnum(rng, 12, false)),
            2 => {}
            _ => u.push_str("Foo:Bar/Baz%20Qux"),
        }
        u.push_str(&path(rng));
    } else {
        u.push_str(SCHEMES.choose(rng).unwrap_or(&"http://"));
        if rng.random_bool(0.07) {
            u.push_str(USERINFO.choose(rng).unwrap_or(&""));
        }
        if !rng.random_bool(0.02) {
            u.push_str(&host(rng));
        }
        if rng.random_bool(0.15) {
            u.push_str(PORTS.choose(rng).unwrap_or(&""));
        }
        u.push_str(&path(rng));
    }
    if rng.random_bool(0.5) {
        u.push('?');
        u.push_str(&query(rng));
    }
    if rng.random_bool(0.15) {
        u.push_str(
            ["#", "#frag", "#a?b", "#/x/../y", "#%41", "##"]
                .choose(rng)
                .unwrap_or(&"#"),
        );
    }
    // Noise: whitespace at the ends, control characters or random characters inside.
    if rng.random_bool(0.05) {
        u.insert_str(
            0,
            [" ", "\t", "\n ", "\u{b}", "\u{c}"]
                .choose(rng)
                .unwrap_or(&" "),
        );
    }
    if rng.random_bool(0.05) {
        u.push_str([" ", "\r\n", "\t", "  \u{c}"].choose(rng).unwrap_or(&" "));
    }
    if rng.random_bool(0.08) {
        for _ in 0..rng.random_range(1..4) {
            let c = random_char(rng);
            let at = rng.random_range(0..=u.len());
            if u.is_char_boundary(at) {
                u.insert(at, c);
            }
        }
    }
    if kind >= 98 {
        u = u.to_uppercase();
    }
    u
}

const EDGE_CASES: &[&str] = &[
    "",
    " ",
    "\t",
    "\n",
    " \u{b}\u{c} ",
    "-",
    "filedesc",
    "filedescX",
    "filedesc://x.arc",
    " filedesc://x",
    "http://",
    "https://",
    "http:",
    "http:/",
    "http:///",
    "http:////",
    "http:///?",
    "http://?",
    "http://#",
    "http://:80",
    "http://:8080/foo/bar",
    "http://@/",
    "http://[::",
    "http://[",
    "http://]",
    "dns:",
    "dns:www.Example.com",
    "DNS:WWW.X.COM",
    "dns://www.example.com/",
    "urn:ISBN:0451450523",
    "urn:uuid:6E8BC430-9C3A-11D9",
    "mailto:Foo@Example.COM",
    "localhost:8080/foo",
    "localhost",
    "Example.com",
    "example.com:8080",
    "1.2.3.4:80",
    "foo:?a=B",
    "foo:#x",
    "x:",
    "a:b:c",
    "http://example.com/?",
    "http://example.com/?#",
    "http://example.com/a?&",
    "http://e.com/?=",
    "http://e.com/?&&",
    "http://e.com/?a&a=&a=1&a",
    "http://e.com/?b=1&a=2&b=0",
    "http://e.com/?a=1&jsessionid=0123456789abcdef0123456789ABCDEF",
    "http://e.com/?jsessionid=0123456789abcdef0123456789ABCDEF",
    "http://e.com/?jsessionid=0123456789abcdef0123456789ABCDEF&",
    "http://e.com/x/(S(abcdefghijklmnopqrstuvwx))/page.aspx",
    "http://e.com/x/(a(abcdefghijklmnopqrstuvwx)f(abcdefghijklmnopqrstuvwx))/Page.ASPX?a",
    "http://e.com/x/(0123456789abcdefghijklmn)/default.aspx",
    "http://e.com/x/(0123456789abcdefghijklmn)/default.aspxfoo",
    "http://e.com/x/(0123456789abcdefghijklmn)/?.aspx",
    "http://www.example.com/a/../../b/./c//d/",
    "http://e.com/../../../x",
    "http://e.com/a/b/../../..",
    "http://e.com/%2E%2E/x",
    "http://e.com/a%2Fb%2F..%2Fc",
    "http://e.com/a%3Fb?c%3Fd",
    "http://e.com/%25252525",
    "http://e.com/%",
    "HTTP:////Example.com/A",
    "http:Example.com/A",
    "https://http://x.com/",
    "http://https://x.com/",
    "http://http://http://x.com/",
    "HTTP://http://x.com/",
    "http://user:pass@Example.com:8080/",
    "http://user@www.example.com/",
    "http://bücher.de/Ä",
    "http://www.ＢÜＣＨＥＲ。de/",
    "http://%FF/a",
    "http://%FFexample.com/",
    "http://[2001:DB8::1]:8080/x",
    "http://[::ffff:1.2.3.4]/",
    "http://1.2.3.4%0A/",
    "http://example.com:abc/",
    "http://example.com:99999/",
    "http://example.com:-1/",
    "http://example.com:65535/",
    "http://example.com:65536/",
    "http://example.com:0/",
    "http://example.com::/",
    "http://e.com:80:80/",
    "https://e.com:443/",
    "https://e.com:80/",
    "http://e.com:443/",
    "HTTPS://e.com:00443/",
    "ftp://e.com:21/",
    "http://www5.www.Ex.com./",
    "http://www./",
    "http://www/",
    "http://wwwww.x.com/",
    "http://..",
    "http://.../a",
    "http://a..b/",
    "http://a...b/",
    "http://3232235777/",
    "http://0300.0250.0.1/",
    "http://0x7f.1/",
    "http://1.2.3/",
    "http://dbpedia.org/resource/Paris",
    "http://dbpedia.org/resource/PARIS",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
    "https://schema.org/Person",
    "http://xmlns.com/foaf/0.1/Person",
    "http://example.org/data.ttl?format=TURTLE",
    "http://example.org/%7Euser/Caf%C3%A9?q=%C3%A9#x",
    "http://e.com/a b/c?d e",
    "  http://e.com/\t\r\n",
    "http://e.com/\u{0}",
    "http://e\u{0}.com/",
];

fn urls() -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut v: Vec<String> = EDGE_CASES.iter().map(|s| s.to_string()).collect();
    for _ in 0..RANDOM_URLS {
        v.push(random_url(&mut rng));
    }
    v
}

#[test]
fn surt_matches_python_package() {
    let urls = urls();
    assert!(urls.len() >= 20_000);

    let mut input = tempfile::NamedTempFile::new().expect("create temp file");
    for u in &urls {
        writeln!(input, "{}", hex(u)).expect("write temp file");
    }
    input.flush().expect("flush temp file");

    let py = python();
    let out = Command::new(&py)
        .arg("-c")
        .arg(PY_DRIVER)
        .arg(input.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", py.display()));
    assert!(
        out.status.success(),
        "{} failed ({}); is the `surt` package installed in that venv?\n{}",
        py.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("python output is not UTF-8");
    let expected: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        expected.len(),
        urls.len(),
        "python returned a different number of lines"
    );

    let mut mismatches = Vec::new();
    let mut python_errors = 0;
    for (url, want) in urls.iter().zip(&expected) {
        let got = try_surt(url);
        let plain = surt(url);
        let ok = if let Some(exc) = want.strip_prefix('!') {
            python_errors += 1;
            match &got {
                Err(_) => true,
                Ok(k) => {
                    mismatches.push(format!(
                        "{url:?}\n    python raised {exc}\n    rust   {k:?}"
                    ));
                    continue;
                }
            }
        } else {
            let want = unhex(want).expect("python output line is not hex UTF-8");
            match &got {
                Ok(k) if *k == want && plain == want => true,
                _ => {
                    mismatches.push(format!("{url:?}\n    python {want:?}\n    rust   {got:?}"));
                    continue;
                }
            }
        };
        debug_assert!(ok);
    }
    if !mismatches.is_empty() {
        eprintln!(
            "{} of {} URLs differ; first 20:",
            mismatches.len(),
            urls.len()
        );
        for m in mismatches.iter().take(20) {
            eprintln!("  {m}");
        }
    }
    eprintln!(
        "{} URLs compared ({} on which Python raises)",
        urls.len(),
        python_errors
    );
    assert_eq!(
        mismatches.len(),
        0,
        "SURT keys differ from the Python package"
    );
}
