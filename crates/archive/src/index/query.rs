//! CDX queries with the semantics of pywb's CDX server: match types and their key ranges,
//! `from`/`to` padding, `closest` ordering (earlier capture wins ties), reverse, limit,
//! filters and field selection.

use chrono::{Datelike, NaiveDate, TimeZone, Utc};

use super::capture::Capture;
use super::cdxj::{JsonObject, cdxj_line};
use super::merged::CaptureSource;
use ldwarc_surt::{SurtOptions, surt, surt_with};

/// How the query URL selects keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MatchType {
    /// The URL itself (and, unlike pywb, only captures whose URL matches case-exactly).
    Exact,
    /// Every URL starting with the query URL.
    Prefix,
    /// Every URL of the host.
    Host,
    /// Every URL of the host and its subdomains.
    Domain,
}

/// Result ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum SortOrder {
    /// Ascending by key and time (the default).
    Ascending,
    /// Descending.
    Reverse,
    /// By distance to `closest` (the default when `closest` is given).
    Closest,
}

/// A `--filter` expression: `[!][=|~]field:value`, or a value matched against the whole line.
#[derive(Debug, Clone)]
pub struct Filter {
    negate: bool,
    kind: FilterKind,
    field: Option<String>,
    value: String,
}

#[derive(Debug, Clone)]
enum FilterKind {
    Contains,
    Exact,
    Regex(regex::Regex),
}

impl Filter {
    /// Parses a filter as pywb does; an invalid regular expression is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (negate, rest) = match text.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mode, rest) = match rest.chars().next() {
            Some('=') => ('=', &rest[1..]),
            Some('~') => ('~', &rest[1..]),
            _ => (' ', rest),
        };
        let (field, value) = match rest.split_once(':') {
            Some((field, value)) => (Some(canonical_field(field).to_string()), value.to_string()),
            None => (None, rest.to_string()),
        };
        let kind = match mode {
            '=' => FilterKind::Exact,
            '~' => FilterKind::Regex(
                super::pattern_cache::compiled(&format!("^(?:{value})"))
                    .map_err(|e| format!("filter {text:?}: {e}"))?,
            ),
            _ => FilterKind::Contains,
        };
        Ok(Self {
            negate,
            kind,
            field,
            value,
        })
    }

    fn matches(&self, capture: &Capture) -> bool {
        let subject = match &self.field {
            Some(field) => field_value(capture, field).unwrap_or_default(),
            None => cdxj_line(capture),
        };
        let hit = match &self.kind {
            FilterKind::Contains => subject.contains(&self.value),
            FilterKind::Exact => subject == self.value,
            FilterKind::Regex(regex) => regex.is_match(&subject),
        };
        hit != self.negate
    }
}

/// pywb's field aliases (`s` is length there, by a quirk of its alias table).
pub fn canonical_field(name: &str) -> &str {
    match name {
        "u" | "original" => "url",
        "statuscode" => "status",
        "m" | "mimetype" => "mime",
        "l" | "s" => "length",
        "o" => "offset",
        "d" => "digest",
        "t" => "timestamp",
        "k" => "urlkey",
        "f" => "filename",
        other => other,
    }
}

/// A capture's field as the CDX server shows it (`None` when absent).
pub fn field_value(capture: &Capture, field: &str) -> Option<String> {
    match canonical_field(field) {
        "urlkey" => Some(capture.urlkey.clone()),
        "timestamp" => Some(capture.timestamp.clone()),
        "url" => Some(capture.url.clone()),
        "mime" => capture.mime.clone(),
        "status" => capture.status.map(|s| s.to_string()),
        "digest" => capture.digest.clone(),
        "length" => Some(capture.length.to_string()),
        "offset" => Some(capture.offset.to_string()),
        "filename" => Some(capture.filename.clone()),
        "redirect" => capture.redirect.clone(),
        _ => None,
    }
}

/// A CDX query.
#[derive(Debug, Clone)]
pub struct CdxQuery {
    /// The URL (may be `*.host` or end in `*` when `match_type` is not given).
    pub url: String,
    /// Explicit match type; `None` infers it from the URL as pywb does.
    pub match_type: Option<MatchType>,
    /// Earliest timestamp (1–14 digits, padded down).
    pub from: Option<String>,
    /// Latest timestamp (1–14 digits, padded up).
    pub to: Option<String>,
    /// Order by distance to this timestamp.
    pub closest: Option<String>,
    /// Ordering.
    pub sort: SortOrder,
    /// At most this many results (none: all).
    pub limit: Option<usize>,
    /// All must match.
    pub filters: Vec<Filter>,
    /// Drop a capture whose first N timestamp digits and status equal the previous kept one's.
    pub collapse_time: Option<usize>,
}

impl CdxQuery {
    /// A query for `url` with defaults for everything else.
    pub fn new(url: &str) -> Self {
        Self {
            url: url.to_string(),
            match_type: None,
            from: None,
            to: None,
            closest: None,
            sort: SortOrder::Ascending,
            limit: None,
            filters: Vec::new(),
            collapse_time: None,
        }
    }

    /// The match type and the URL it applies to, inferring `*.host` (domain) and `prefix*`;
    /// the URL's host is spelt as captures spell it ([`lookup_form`](super::url_form::lookup_form)).
    pub fn effective(&self) -> (MatchType, String) {
        let url = super::url_form::lookup_form(&self.url);
        if let Some(match_type) = self.match_type {
            return (match_type, url.into_owned());
        }
        if let Some(host) = url.strip_prefix("*.") {
            return (MatchType::Domain, host.to_string());
        }
        if let Some(prefix) = url.strip_suffix('*') {
            return (MatchType::Prefix, prefix.to_string());
        }
        (MatchType::Exact, url.into_owned())
    }
}

/// The urlkey range `[start, end)` of a match type, as pywb's `calc_search_range`.
pub fn key_range(url: &str, match_type: MatchType) -> (String, String) {
    let mut start = surt(&super::url_form::lookup_form(url));
    match match_type {
        MatchType::Exact => {
            let end = format!("{start}!");
            (start, end)
        }
        MatchType::Prefix => {
            if url.ends_with('/') && !start.ends_with('/') {
                start.push('/');
            }
            if url.ends_with('?') && !start.ends_with('?') {
                start.push('?');
            }
            let end = increment_last_char(&start);
            (start, end)
        }
        MatchType::Host => {
            let host = start.split(")/").next().unwrap_or("").to_string();
            (format!("{host})/"), format!("{host}*"))
        }
        MatchType::Domain => {
            let host = start.split(")/").next().unwrap_or("").to_string();
            let start = if host.contains(',') {
                format!("{host})/")
            } else {
                format!("{host},")
            };
            (start, format!("{host}-"))
        }
    }
}

/// The key range of a URL prefix (for `ldwarc cdx PREFIX`).
pub fn key_range_for_prefix(prefix: &str) -> (String, Option<String>) {
    let (start, end) = key_range(prefix, MatchType::Prefix);
    (start, Some(end))
}

fn increment_last_char(key: &str) -> String {
    let mut chars: Vec<char> = key.chars().collect();
    match chars.pop() {
        Some(last) => {
            let next = char::from_u32(last as u32 + 1).unwrap_or(char::MAX);
            chars.push(next);
            chars.into_iter().collect()
        }
        None => String::new(),
    }
}

const PAD_DOWN: &str = "10000101000000";
const PAD_UP: &str = "29991231235959";

/// Pads a partial timestamp the way pywb pads `from` (down) and `to` (up).
fn pad(text: &str, pad: &str) -> String {
    if text.len() >= pad.len() {
        return text.to_string();
    }
    format!("{text}{}", &pad[text.len()..])
}

/// Seconds of a timestamp for `closest`, with pywb's rules: missing parts go to the end of
/// their period, out-of-range parts are clamped, junk becomes the maximum.
pub fn closest_seconds(text: &str) -> i64 {
    let padded = pad(text, "299912");
    let extract = |start: usize, end: usize, min: u32, max: u32| -> u32 {
        match padded.get(start..end) {
            Some(part) if padded.len() >= end => part
                .trim()
                .parse::<i64>()
                .map_or(max, |v| v.clamp(min as i64, max as i64) as u32),
            _ => max,
        }
    };
    let year = extract(0, 4, 1900, 2999) as i32;
    let month = extract(4, 6, 1, 12);
    let days = days_in_month(year, month);
    let day = extract(6, 8, 1, days);
    let hour = extract(8, 10, 0, 23);
    let minute = extract(10, 12, 0, 59);
    let second = extract(12, 14, 0, 59);
    NaiveDate::from_ymd_opt(year, month, day)
        .and_then(|d| d.and_hms_opt(hour, minute, second))
        .map_or(i64::MAX, |t| Utc.from_utc_datetime(&t).timestamp())
}

fn days_in_month(year: i32, month: u32) -> u32 {
    let next = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)
    };
    next.and_then(|d| d.pred_opt()).map_or(28, |d| d.day())
}

/// Runs a query against an index (one root's, or several roots' merged).
pub fn run_query(
    index: &(impl CaptureSource + ?Sized),
    query: &CdxQuery,
) -> std::io::Result<Vec<Capture>> {
    let (match_type, url) = query.effective();
    let (start, end) = key_range(&url, match_type);
    let mut captures = Vec::new();
    index.scan_captures(&start, Some(&end), &mut |capture| captures.push(capture))?;
    // Keys ascending, then the line bytes, as a byte-sorted CDXJ file has them.
    let mut rows: Vec<(String, Capture)> =
        captures.into_iter().map(|c| (cdxj_line(&c), c)).collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut captures: Vec<Capture> = rows.into_iter().map(|(_, c)| c).collect();
    if match_type == MatchType::Exact {
        // SURT folds case; Linked Data URIs are case-sensitive.
        let identity = case_sensitive_key(&url);
        // A POST or PUT capture's key holds its method and body, which its URL does not:
        // the key matched, as pywb matches it.
        captures.retain(|c| case_sensitive_key(&c.url) == identity || keyed_by_method(c));
    }
    Ok(apply(captures, query))
}

/// Whether a capture's key has a method and request body appended to its URL (see
/// `post_key`).
fn keyed_by_method(capture: &Capture) -> bool {
    capture.urlkey.contains("__wb_method=") && !capture.url.contains("__wb_method=")
}

/// The SURT of a URL with path and query case kept: equal for URLs pywb treats as the same
/// except for case.
pub fn case_sensitive_key(url: &str) -> String {
    surt_with(
        url,
        &SurtOptions {
            keep_path_case: true,
            keep_query_case: true,
            ..SurtOptions::default()
        },
    )
}

/// Filters, time range, collapsing, ordering and limit, in pywb's order.
pub fn apply(mut captures: Vec<Capture>, query: &CdxQuery) -> Vec<Capture> {
    captures.retain(|c| query.filters.iter().all(|f| f.matches(c)));
    if let Some(from) = &query.from {
        let from = pad(from, PAD_DOWN);
        captures.retain(|c| c.timestamp >= from);
    }
    if let Some(to) = &query.to {
        let to = pad(to, PAD_UP);
        captures.retain(|c| c.timestamp <= to);
    }
    if let Some(digits) = query.collapse_time {
        let mut last: Option<(String, Option<u16>)> = None;
        captures.retain(|c| {
            let key = (
                c.timestamp.chars().take(digits).collect::<String>(),
                c.status,
            );
            let keep = last.as_ref() != Some(&key);
            if keep {
                last = Some(key);
            }
            keep
        });
    }
    if let Some(closest) = &query.closest {
        // pywb reads `closest=now` as the current time.
        let target = if closest == "now" {
            Utc::now().timestamp()
        } else {
            closest_seconds(closest)
        };
        // A stable sort: on equal distance the earlier capture stays first.
        captures.sort_by_key(|c| (closest_seconds(&c.timestamp) - target).abs());
    } else if query.sort == SortOrder::Reverse {
        captures.reverse();
    }
    if let Some(limit) = query.limit {
        captures.truncate(limit);
    }
    captures
}

/// Output formats of `ldwarc query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum QueryOutput {
    /// `urlkey timestamp {json}`.
    Cdxj,
    /// One JSON object per line.
    Json,
    /// Space-separated fields (`-` when absent).
    Text,
}

/// Default fields of JSON and text output.
pub const DEFAULT_FIELDS: &[&str] = &[
    "urlkey",
    "timestamp",
    "url",
    "mime",
    "status",
    "digest",
    "length",
    "offset",
    "filename",
];

/// Renders one capture in an output format; `fields` selects and orders fields.
pub fn render(capture: &Capture, output: QueryOutput, fields: Option<&[String]>) -> String {
    let names: Vec<&str> = match fields {
        Some(fields) => fields.iter().map(String::as_str).collect(),
        None => DEFAULT_FIELDS.to_vec(),
    };
    let object_of = |prefix: &str, names: &mut dyn Iterator<Item = &str>| {
        let mut object = JsonObject::after_prefix(prefix);
        for name in names {
            if let Some(value) = field_value(capture, name) {
                object.field(name, &value);
            }
        }
        object.finish()
    };
    match (output, fields) {
        (QueryOutput::Cdxj, None) => cdxj_line(capture),
        (QueryOutput::Cdxj, Some(_)) => object_of(
            &format!("{} {} ", capture.urlkey, capture.timestamp),
            &mut names
                .iter()
                .copied()
                .filter(|f| !matches!(*f, "urlkey" | "timestamp")),
        ),
        (QueryOutput::Json, _) => object_of("", &mut names.iter().copied()),
        (QueryOutput::Text, _) => names
            .iter()
            .map(|name| field_value(capture, name).unwrap_or_else(|| "-".into()))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_pads_to_end_of_period() {
        let end_2014 = Utc
            .with_ymd_and_hms(2014, 12, 31, 23, 59, 59)
            .single()
            .map(|t| t.timestamp());
        assert_eq!(Some(closest_seconds("2014")), end_2014);
        assert_eq!(Some(closest_seconds("2014abc")), end_2014);
        let feb = Utc
            .with_ymd_and_hms(2014, 2, 28, 23, 59, 59)
            .single()
            .map(|t| t.timestamp());
        assert_eq!(Some(closest_seconds("20140231")), feb);
    }

    #[test]
    fn closest_now_is_the_current_time() {
        let capture = |timestamp: &str| Capture {
            urlkey: "org,example)/".into(),
            timestamp: timestamp.into(),
            time_micros: 0,
            url: "http://example.org/".into(),
            mime: None,
            status: None,
            digest: None,
            length: 0,
            offset: 0,
            filename: String::new(),
            record_type: ldwarc_warc::RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        };
        // Now lies between the two: the year-2990 capture is farther from now than 2020's,
        // though nearer the year 2999 an unparsed "now" would stand for.
        let captures = vec![capture("20200101000000"), capture("29900101000000")];
        let query = CdxQuery {
            closest: Some("now".into()),
            ..CdxQuery::new("http://example.org/")
        };
        let order: Vec<String> = apply(captures, &query)
            .into_iter()
            .map(|c| c.timestamp)
            .collect();
        assert_eq!(order, ["20200101000000", "29900101000000"]);
    }

    #[test]
    fn padding_of_from_and_to() {
        assert_eq!(pad("2014", PAD_DOWN), "20140101000000");
        assert_eq!(pad("2014", PAD_UP), "20141231235959");
        assert_eq!(pad("2014012", PAD_UP), "20140121235959");
    }

    #[test]
    fn filters_parse_like_pywb() {
        let filter = Filter::parse("!~status:2").expect("valid");
        assert!(filter.negate);
        assert!(matches!(filter.kind, FilterKind::Regex(_)));
        assert_eq!(filter.field.as_deref(), Some("status"));
        assert_eq!(
            Filter::parse("s:10").expect("valid").field.as_deref(),
            Some("length")
        );
        assert!(Filter::parse("~url:(").is_err());
    }

    #[test]
    fn increments_last_char() {
        assert_eq!(
            increment_last_char("com,example)/path/"),
            "com,example)/path0"
        );
        assert_eq!(
            increment_last_char("com,example)/path?"),
            "com,example)/path@"
        );
    }
}
