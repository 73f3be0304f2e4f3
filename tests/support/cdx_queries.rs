//! The CDX query generator shared by `tests/query_vs_pywb.rs` and `tests/serve_vs_pywb.rs`: a fixed-seed mix of every match type, `from`/`to`,
//! `closest` with ties, `sort=reverse`, limits, filters, field lists and output formats, and
//! hand-picked queries. `Query::path(prefix)` is the request for pywb (`/<coll>/cdx`) or for
//! `ldwarc serve` (`/cdx`): the same parameters.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::generated::{self, Rng};
use crate::common::query_encode;
use serde_json::Value;

/// A capture of the export: what queries are built from.
#[derive(Debug, Clone)]
pub struct Row {
    pub timestamp: String,
    pub url: String,
}

/// The captures of a CDXJ export, as rows.
pub fn rows_of_export(export: &str) -> Vec<Row> {
    export
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            let _urlkey = parts.next();
            let timestamp = parts.next().expect("timestamp").to_string();
            let json: Value = serde_json::from_str(parts.next().expect("json")).expect("json");
            Row {
                timestamp,
                url: json["url"].as_str().expect("url").to_string(),
            }
        })
        .collect()
}

/// The distinct timestamps of each URL of the Web (not `dns:`: only those are queried by
/// URL), sorted.
pub fn web_timestamps_by_url(rows: &[Row]) -> BTreeMap<String, Vec<String>> {
    let mut by_url: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in rows {
        by_url
            .entry(row.url.clone())
            .or_default()
            .push(row.timestamp.clone());
    }
    for stamps in by_url.values_mut() {
        stamps.sort();
        stamps.dedup();
    }
    by_url.retain(|url, _| url.starts_with("http"));
    by_url
}

#[derive(Debug, Clone, Default)]
pub struct Query {
    pub url: String,
    pub match_type: Option<&'static str>,
    pub from: Option<String>,
    pub to: Option<String>,
    pub closest: Option<String>,
    pub reverse: bool,
    pub limit: Option<usize>,
    pub filters: Vec<String>,
    pub fields: Option<Vec<&'static str>>,
    pub cdxj: bool,
}

impl Query {
    /// The same query as `ldwarc query` arguments over the archive at `root`.
    pub fn ldwarc_args(&self, root: &Path) -> Vec<String> {
        let mut args = vec![
            "query".to_string(),
            self.url.clone(),
            "--root".into(),
            root.display().to_string(),
        ];
        if let Some(m) = self.match_type {
            args.push(format!("--match={m}"));
        }
        if let Some(v) = &self.from {
            args.push(format!("--from={v}"));
        }
        if let Some(v) = &self.to {
            args.push(format!("--to={v}"));
        }
        if let Some(v) = &self.closest {
            args.push(format!("--closest={v}"));
        }
        if self.reverse {
            args.push("--sort=reverse".into());
        }
        if let Some(v) = self.limit {
            args.push(format!("--limit={v}"));
        }
        for filter in &self.filters {
            args.push(format!("--filter={filter}"));
        }
        if let Some(fields) = &self.fields {
            args.push(format!("--fields={}", fields.join(",")));
        }
        args.push(format!(
            "--output={}",
            if self.cdxj { "cdxj" } else { "json" }
        ));
        args
    }

    /// The CDX request under `prefix` (`/<coll>/cdx` for pywb, `/cdx` for ldwarc serve).
    pub fn path(&self, prefix: &str) -> String {
        let mut path = format!("{prefix}?url={}", query_encode(&self.url));
        let mut param = |name: &str, value: &str| {
            path.push_str(&format!("&{name}={}", query_encode(value)));
        };
        if let Some(m) = self.match_type {
            param("matchType", m);
        }
        if let Some(v) = &self.from {
            param("from", v);
        }
        if let Some(v) = &self.to {
            param("to", v);
        }
        if let Some(v) = &self.closest {
            param("closest", v);
        }
        if self.reverse {
            param("sort", "reverse");
        }
        if let Some(v) = self.limit {
            param("limit", &v.to_string());
        }
        for filter in &self.filters {
            param("filter", filter);
        }
        if let Some(fields) = &self.fields {
            param("fl", &fields.join(","));
        }
        param("output", if self.cdxj { "cdxj" } else { "json" });
        param("nosource", "true");
        param("allowFuzzy", "0");
        path
    }
}

/// Python's `urllib.parse.quote(s.encode('utf-8'), safe=':/')`.
pub fn py_quote(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"_.-~:/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// One answer row: (urlkey, timestamp) for CDXJ output, and the JSON object.
pub type Answer = Vec<(Option<(String, String)>, Value)>;

pub fn parse_answer(text: &str, cdxj: bool, quote_url: bool, what: &str) -> Answer {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (prefix, json) = if cdxj {
                let mut parts = line.splitn(3, ' ');
                let urlkey = parts.next().unwrap_or_default().to_string();
                let timestamp = parts.next().unwrap_or_default().to_string();
                (Some((urlkey, timestamp)), parts.next().unwrap_or_default())
            } else {
                (None, line)
            };
            let mut value: Value = serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("{what}: bad JSON {line:?}: {e}"));
            if quote_url
                && let Some(url) = value.get_mut("url")
                && let Some(text) = url.as_str()
                && !text.is_ascii()
            {
                *url = Value::from(py_quote(text));
            }
            // `ldwarc query --format json` writes status, offset and length as numbers (one
            // shape per field across ldwarc's commands); pywb's CDX API writes them as text.
            // The values are compared, so numbers become their text.
            if let Some(object) = value.as_object_mut() {
                for field in ["status", "offset", "length"] {
                    if let Some(number) = object.get(field).and_then(Value::as_u64) {
                        object.insert(field.to_string(), Value::from(number.to_string()));
                    }
                }
            }
            (prefix, value)
        })
        .collect()
}

/// Filters that behave the same on both sides (see the module comment on `url`).
pub const FILTERS: &[&str] = &[
    "status:200",
    "=status:200",
    "!=status:200",
    "~status:3",
    "!~status:2",
    "=status:",
    "!=status:",
    "=status:304",
    "statuscode:40",
    "mime:turtle",
    "=mime:warc/revisit",
    "!=mime:warc/revisit",
    "~mime:application/.*json",
    "~mime:text",
    "m:json",
    "!mimetype:html",
    "=mime:",
    "~url:https",
    "url:example",
    "u:/resource/",
    "!url:dbpedia",
    "original:.ttl",
    "~url:http://[a-z.]*example\\.(org|com)/",
    "filename:/07/",
    "~filename:2024/",
    "!~filename:2023/0",
    "f:example.org/",
    "digest:sha1:A",
    "~digest:sha1:[A-M]",
    "!digest:Q",
    "d:sha1:",
    "~length:[45]",
    "s:5",
    "l:4",
    "~offset:1",
    "o:0",
    "~timestamp:2024",
    "t:0704",
    "!t:2023",
    "k:berlin",
    "~urlkey:org,example\\)/",
    "~k:(uk|jp),",
    "warc/revisit",
    "!warc/revisit",
    "\"status\": \"30",
    "=foo:",
    "foo:x",
];

/// Fields a query may select: those ldwarc prints by default.
pub const FIELDS: &[&str] = ldwarc_archive::index::query::DEFAULT_FIELDS;

pub const DOMAINS: &[&str] = &[
    "*.example.org",
    "*.org",
    "*.com",
    "*.example.com",
    "*.dbpedia.org",
    "*.co.uk",
    "*.bbc.co.uk",
    "*.jp",
    "*.net",
    "*.w3.org",
    "*.nowhere.invalid",
];

/// Some variant of `url` that SURT (and ldwarc's case-sensitive check) treat as the same.
pub fn same_url_variant(url: &str, rng: &mut Rng) -> String {
    let (scheme, rest) = url.split_once("://").expect("absolute URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match rng.below(5) {
        0 => format!(
            "{}://{rest}",
            if scheme == "http" { "https" } else { "http" }
        ),
        1 if !host.starts_with("www") && host.contains('.') && !host.contains(':') => {
            format!("{scheme}://www.{rest}")
        }
        2 if host.is_ascii() => format!("{scheme}://{}{path}", host.to_ascii_uppercase()),
        _ => url.to_string(),
    }
}

/// A prefix of `url` cut after its host, not inside a percent-escape.
pub fn url_prefix(url: &str, rng: &mut Rng) -> String {
    let host_end = url
        .char_indices()
        .filter(|(_, c)| *c == '/')
        .nth(2)
        .map_or(url.len(), |(i, _)| i);
    let cuts: Vec<usize> = url
        .char_indices()
        .map(|(i, _)| i)
        .chain([url.len()])
        .filter(|&i| i > host_end)
        .filter(|&i| {
            // Not right after '%' or '%X'.
            let mut last_two = url[..i].chars().rev().take(2);
            last_two.all(|c| c != '%')
        })
        .collect();
    if cuts.is_empty() {
        return url.to_string();
    }
    url[..*rng.pick(&cuts)].to_string()
}

/// A partial timestamp: a prefix of 4–14 digits of `ts`, sometimes with its last digit moved.
pub fn partial(ts: &str, rng: &mut Rng) -> String {
    let len = 4 + rng.below(11);
    let mut text = ts[..len].to_string();
    if rng.chance(0.3) {
        let last = text.pop().expect("digit").to_digit(10).expect("digit");
        let moved = (last + 1 + rng.below(2) as u32 * 8) % 10;
        text.push(char::from_digit(moved, 10).expect("digit"));
    }
    text
}

pub fn seconds(ts: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(ts, "%Y%m%d%H%M%S")
        .expect("14-digit timestamp")
        .and_utc()
        .timestamp()
}

pub fn timestamp_of(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .expect("valid time")
        .format("%Y%m%d%H%M%S")
        .to_string()
}

pub fn generate_query(
    rng: &mut Rng,
    rows: &[Row],
    by_url: &BTreeMap<String, Vec<String>>,
) -> Query {
    let urls: Vec<&String> = by_url.keys().collect();
    let url = (*rng.pick(&urls)).clone();
    let stamps = &by_url[&url];
    let mut query = Query::default();
    match rng.below(10) {
        0..=2 => {
            query.url = same_url_variant(&url, rng);
            query.match_type = rng.chance(0.5).then_some("exact");
        }
        3 => {
            query.url = format!("{}*", url_prefix(&url, rng));
        }
        4 => {
            query.url = url_prefix(&url, rng);
            query.match_type = Some("prefix");
        }
        5 => {
            query.url = if rng.chance(0.5) {
                url.clone()
            } else {
                generated::host_of(&url).to_string()
            };
            query.match_type = Some("host");
        }
        6 => {
            query.url = rng.pick(DOMAINS).to_string();
        }
        7 => {
            query.url = url.clone();
            query.match_type = Some("domain");
        }
        8 => {
            // Nothing there, or a literal `*` under an explicit match type.
            query.url = match rng.below(3) {
                0 => "http://nowhere.invalid/x".into(),
                1 => format!("{}*", url_prefix(&url, rng)),
                _ => "http://example.org/resource/*".into(),
            };
            query.match_type = Some(*rng.pick(&["exact", "prefix", "host"]));
        }
        _ => {
            query.url = url.clone();
        }
    }
    let any_ts = |rng: &mut Rng| rows[rng.below(rows.len())].timestamp.clone();
    if rng.chance(0.3) {
        let ts = if rng.chance(0.7) {
            rng.pick(stamps).clone()
        } else {
            any_ts(rng)
        };
        query.from = Some(partial(&ts, rng));
    }
    if rng.chance(0.3) {
        let ts = if rng.chance(0.7) {
            rng.pick(stamps).clone()
        } else {
            any_ts(rng)
        };
        query.to = Some(partial(&ts, rng));
    }
    if rng.chance(0.35) {
        query.closest = Some(match rng.below(4) {
            // Half-way between two captures of the URL: a tie the earlier one wins.
            0 | 1 if stamps.len() >= 2 => {
                let i = rng.below(stamps.len() - 1);
                let (a, b) = (seconds(&stamps[i]), seconds(&stamps[i + 1]));
                timestamp_of(a + (b - a) / 2)
            }
            2 => {
                let ts = rng.pick(stamps).clone();
                partial(&ts, rng)
            }
            _ => rng.pick(stamps).clone(),
        });
    }
    query.reverse = rng.chance(0.25);
    if rng.chance(0.5) {
        query.limit = Some(1 + rng.below(5));
    }
    for _ in 0..[0, 0, 1, 1, 1, 2][rng.below(6)] {
        query.filters.push(rng.pick(FILTERS).to_string());
    }
    if rng.chance(0.2) {
        let mut fields: Vec<&'static str> = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let field = *rng.pick(FIELDS);
            if !fields.contains(&field) {
                fields.push(field);
            }
        }
        query.fields = Some(fields);
    }
    query.cdxj = rng.chance(0.3);
    query
}

/// Hand-picked queries: SURT equivalences, non-HTTP schemes, quirks of from/to padding.
pub fn fixed_queries() -> Vec<Query> {
    let url = |url: &str| Query {
        url: url.to_string(),
        ..Query::default()
    };
    let berlin = "http://example.org/resource/Berlin";
    vec![
        url("dns:example.org"),
        url(&format!("{berlin}#fragment")),
        url("HTTP://EXAMPLE.ORG/resource/Berlin"),
        url("example.org/resource/Berlin"),
        url("http://example.org:80/resource/Berlin"),
        url("https://www.example.org/resource/Berlin/"),
        url("http://example.org/sparql?query=SELECT%20*&format=json"),
        url("http://example.org/sparql?format=json&query=SELECT%20*"),
        url("http://example.org/resource/Berlin*"),
        url("http://example.org/resource/Berlin/*"),
        url("example.org/sparql?*"),
        url("*.example.org"),
        url("*.org"),
        Query {
            match_type: Some("host"),
            ..url("http://data.example.com:8080/")
        },
        Query {
            match_type: Some("host"),
            ..url("192.0.2.44")
        },
        Query {
            match_type: Some("domain"),
            ..url("http://sub.deep.example.org/")
        },
        Query {
            to: Some("2023011".into()),
            ..url("*.example.org")
        },
        Query {
            from: Some("2024022".into()),
            to: Some("20240301".into()),
            ..url(berlin)
        },
        Query {
            closest: Some("2024".into()),
            limit: Some(3),
            ..url(berlin)
        },
        Query {
            closest: Some("20240229".into()),
            reverse: true,
            ..url("*.org")
        },
        Query {
            reverse: true,
            limit: Some(1),
            ..url("*.com")
        },
        Query {
            closest: Some("now".into()),
            limit: Some(4),
            ..url("*.example.org")
        },
        Query {
            filters: vec!["!=mime:warc/revisit".into(), "~status:[23]".into()],
            ..url("http://dbpedia.org/*")
        },
        Query {
            fields: Some(vec!["timestamp", "urlkey"]),
            cdxj: true,
            ..url(berlin)
        },
        Query {
            fields: Some(vec!["urlkey", "timestamp"]),
            ..url(berlin)
        },
    ]
}
