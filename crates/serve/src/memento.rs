//! Memento (RFC 7089): HTTP dates, `Accept-Datetime`, the `Link` headers of TimeGates and
//! mementos, and the TimeMaps at `/timemap/link/{url}` (`application/link-format`) and
//! `/timemap/json/{url}` (pywb's: one CDX JSON object per memento).

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use chrono::{DateTime, Utc};

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::query::{QueryOutput, render};
use ldwarc_warc::time::parse_wayback_timestamp;

use super::{State as AppStateRef, archive_failure, base_url, blocking, response, text_response};

/// A 14-digit timestamp as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub(crate) fn http_date(timestamp: &str) -> String {
    parse_wayback_timestamp(timestamp)
        .map(format_http_date)
        .unwrap_or_default()
}

/// An instant as an HTTP date.
pub(crate) fn format_http_date(at: DateTime<Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// Parses `Accept-Datetime` (an HTTP date, RFC 7231 IMF-fixdate, taken as UTC).
pub(crate) fn parse_accept_datetime(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if !text.ends_with("GMT") {
        return None;
    }
    DateTime::parse_from_rfc2822(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// What an `Accept-Datetime` header that is not an HTTP date gets told.
pub(crate) const BAD_ACCEPT_DATETIME: &str =
    "Accept-Datetime is not an HTTP date (e.g. Tue, 20 Mar 2001 20:35:00 GMT)";

/// [`asked_datetime`], or the 400 answer a header that is not an HTTP date gets.
pub(crate) fn asked_datetime_or_400(headers: &HeaderMap) -> Result<DateTime<Utc>, Box<Response>> {
    asked_datetime(headers).map_err(|()| {
        Box::new(text_response(
            StatusCode::BAD_REQUEST,
            &format!("{BAD_ACCEPT_DATETIME}\n"),
        ))
    })
}

/// The instant a request asks for: its `Accept-Datetime`, or now when it sends none; `Err`
/// when the header is not an HTTP date.
pub(crate) fn asked_datetime(headers: &axum::http::HeaderMap) -> Result<DateTime<Utc>, ()> {
    match headers.get("accept-datetime") {
        None => Ok(Utc::now()),
        Some(value) => value
            .to_str()
            .ok()
            .and_then(parse_accept_datetime)
            .ok_or(()),
    }
}

/// The media ranges of an `Accept` header with their weights (q × 1000; 1000 without q),
/// lower-cased, in the header's order.
pub(crate) fn accept_ranges(accept: &str) -> impl Iterator<Item = (String, u16)> + '_ {
    accept.split(',').map(|item| {
        let mut parts = item.split(';');
        let range = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let weight = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .filter_map(|q| q.trim().parse::<f64>().ok())
            .map(|q| (q.clamp(0.0, 1.0) * 1000.0) as u16)
            .next()
            .unwrap_or(1000);
        (range, weight)
    })
}

/// The mementos of one URL (one per distinct second, oldest first) and where the archive
/// serves it: everything needed for `Link` headers and TimeMaps.
pub(crate) struct MementoSet {
    /// `http://host` of the server.
    pub base: String,
    /// The original resource (URI-R).
    pub url: String,
    /// Replayable captures, one per 14-digit timestamp, oldest first.
    pub captures: Vec<Capture>,
}

impl MementoSet {
    /// The set for `url` from its captures (oldest first), keeping the first of each second.
    pub fn new(base: String, url: String, mut captures: Vec<Capture>) -> Self {
        captures.dedup_by(|later, earlier| later.timestamp == earlier.timestamp);
        Self {
            base,
            url,
            captures,
        }
    }

    /// URI-M of a timestamp with a replay modifier (`""` or `"id_"`).
    pub fn memento_uri(&self, timestamp: &str, modifier: &str) -> String {
        format!("{}/web/{timestamp}{modifier}/{}", self.base, self.url)
    }

    /// URI-G.
    pub fn timegate_uri(&self) -> String {
        format!("{}/web/{}", self.base, self.url)
    }

    /// URI-T of the link-format TimeMap.
    pub fn timemap_uri(&self) -> String {
        format!("{}/timemap/link/{}", self.base, self.url)
    }

    /// `original` (the URL as captured, which may differ from the request's in scheme or
    /// host), `timegate` and `timemap` links.
    fn resource_links(&self, original: &str) -> Vec<String> {
        vec![
            format!("<{original}>; rel=\"original\""),
            format!("<{}>; rel=\"timegate\"", self.timegate_uri()),
            format!(
                "<{}>; rel=\"timemap\"; type=\"application/link-format\"",
                self.timemap_uri()
            ),
        ]
    }

    /// The `Link` header of the memento at `position` (or of a TimeGate pointing at it):
    /// original, timegate, timemap, and first/last/prev/next/this memento.
    pub fn link_header(&self, position: usize, modifier: &str) -> String {
        let original = self.captures.get(position).map_or(&self.url, |c| &c.url);
        let mut links = self.resource_links(original);
        let last = self.captures.len().saturating_sub(1);
        let mut marked: Vec<(usize, Vec<&str>)> = Vec::new();
        let mut mark =
            |index: usize, rel: &'static str| match marked.iter_mut().find(|(i, _)| *i == index) {
                Some((_, rels)) => rels.push(rel),
                None => marked.push((index, vec![rel])),
            };
        mark(0, "first");
        mark(last, "last");
        if position > 0 {
            mark(position - 1, "prev");
        }
        if position < last {
            mark(position + 1, "next");
        }
        mark(position, "");
        marked.sort_by_key(|(index, _)| *index);
        for (index, rels) in marked {
            let Some(capture) = self.captures.get(index) else {
                continue;
            };
            let mut rel: Vec<&str> = rels.into_iter().filter(|r| !r.is_empty()).collect();
            rel.push("memento");
            links.push(format!(
                "<{}>; rel=\"{}\"; datetime=\"{}\"",
                self.memento_uri(&capture.timestamp, modifier),
                rel.join(" "),
                http_date(&capture.timestamp)
            ));
        }
        links.join(", ")
    }

    /// The position of a capture's second among the mementos.
    pub fn position_of(&self, timestamp: &str) -> Option<usize> {
        self.captures.iter().position(|c| c.timestamp == timestamp)
    }

    /// The link-format TimeMap.
    pub fn link_timemap(&self) -> String {
        let (Some(first), Some(last)) = (self.captures.first(), self.captures.last()) else {
            return String::new();
        };
        let mut lines = vec![format!(
            "<{}>; rel=\"self\"; type=\"application/link-format\"; from=\"{}\"; until=\"{}\"",
            self.timemap_uri(),
            http_date(&first.timestamp),
            http_date(&last.timestamp)
        )];
        lines.extend(
            self.resource_links(&last.url)
                .into_iter()
                .filter(|l| !l.contains("\"timemap\"")),
        );
        let count = self.captures.len();
        for (index, capture) in self.captures.iter().enumerate() {
            let rel = match (index == 0, index + 1 == count) {
                (true, true) => "first last memento",
                (true, false) => "first memento",
                (false, true) => "last memento",
                (false, false) => "memento",
            };
            lines.push(format!(
                "<{}>; rel=\"{rel}\"; datetime=\"{}\"",
                self.memento_uri(&capture.timestamp, ""),
                http_date(&capture.timestamp)
            ));
        }
        let mut text = lines.join(",\n");
        text.push('\n');
        text
    }

    /// The JSON TimeMap: pywb's, one CDX JSON object per memento.
    pub fn json_timemap(&self) -> String {
        let mut text = String::new();
        for capture in &self.captures {
            text.push_str(&render(capture, QueryOutput::Json, None));
            text.push('\n');
        }
        text
    }
}

/// The archived URL named by the rest of a request path (after `/web/{timestamp}/` or
/// `/timemap/link/`) and the request's query string. Schemeless URLs are `http://`; only
/// `http` and `https` URLs are archived.
pub(crate) fn archived_url(rest: &str, query: Option<&str>) -> Result<String, String> {
    let mut url = if rest.starts_with("http%3A") || rest.starts_with("https%3A") {
        percent_decode(rest)
    } else {
        rest.to_string()
    };
    // Some clients collapse `//` in paths.
    for scheme in ["http:", "https:"] {
        if let Some(after) = url.strip_prefix(scheme)
            && !after.starts_with("//")
            && after.starts_with('/')
        {
            url = format!("{scheme}/{after}");
        }
    }
    if !url.contains("://") {
        url = format!("http://{url}");
    }
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    let parsed = url::Url::parse(&url).map_err(|e| format!("{url}: not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("{url}: only http and https URLs are archived"));
    }
    // Hosts as captured: IPv6 in canonical form, international names in punycode.
    Ok(ldwarc_archive::index::url_form::lookup_form(&url).into_owned())
}

fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| text.to_string())
}

/// `GET /timemap/{link|json}/{url}`.
pub(crate) async fn timemap(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let rest = uri.path().strip_prefix("/timemap/").unwrap_or("");
    let Some((kind, rest)) = rest.split_once('/') else {
        return text_response(
            StatusCode::NOT_FOUND,
            "use /timemap/link/{url} or /timemap/json/{url}\n",
        );
    };
    let json = match kind {
        "link" => false,
        "json" => true,
        _ => {
            return text_response(
                StatusCode::NOT_FOUND,
                "use /timemap/link/{url} or /timemap/json/{url}\n",
            );
        }
    };
    let url = match archived_url(rest, uri.query()) {
        Ok(url) => url,
        Err(message) => return text_response(StatusCode::BAD_REQUEST, &format!("{message}\n")),
    };
    let base = base_url(&headers, state.bind);
    blocking(&state, move |state| {
        let captures = match state.captures(&url) {
            Ok(captures) => captures,
            Err(error) => {
                return archive_failure(state, StatusCode::INTERNAL_SERVER_ERROR, &url, &error);
            }
        };
        if captures.is_empty() {
            return text_response(StatusCode::NOT_FOUND, &format!("{url}: never captured\n"));
        }
        let set = MementoSet::new(base, url, captures);
        if json {
            response(
                StatusCode::OK,
                "text/x-ndjson",
                set.json_timemap().into_bytes(),
            )
        } else {
            response(
                StatusCode::OK,
                "application/link-format",
                set.link_timemap().into_bytes(),
            )
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(timestamp: &str) -> Capture {
        Capture {
            urlkey: "org,example)/a".into(),
            timestamp: timestamp.into(),
            time_micros: 0,
            url: "http://example.org/a".into(),
            mime: None,
            status: Some(200),
            digest: None,
            length: 0,
            offset: 0,
            filename: "f".into(),
            record_type: ldwarc_warc::RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    fn set(stamps: &[&str]) -> MementoSet {
        MementoSet::new(
            "http://h".into(),
            "http://example.org/a".into(),
            stamps.iter().map(|s| capture(s)).collect(),
        )
    }

    #[test]
    fn dates_round_trip() {
        assert_eq!(http_date("19941106084937"), "Sun, 06 Nov 1994 08:49:37 GMT");
        let at = parse_accept_datetime("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(format_http_date(at), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert!(parse_accept_datetime("1994-11-06").is_none());
        assert!(parse_accept_datetime("Sun, 06 Nov 1994 08:49:37 +0200").is_none());
    }

    #[test]
    fn links_mark_first_last_prev_next() {
        let set = set(&[
            "20240101000000",
            "20240102000000",
            "20240103000000",
            "20240103000000",
        ]);
        assert_eq!(set.captures.len(), 3, "one memento per second");
        let link = set.link_header(1, "");
        assert!(
            link.contains("<http://example.org/a>; rel=\"original\""),
            "{link}"
        );
        assert!(link.contains("<http://h/web/http://example.org/a>; rel=\"timegate\""));
        assert!(link.contains("rel=\"timemap\""));
        assert!(link.contains(
            "<http://h/web/20240101000000/http://example.org/a>; rel=\"first prev memento\"; datetime=\"Mon, 01 Jan 2024 00:00:00 GMT\""
        ), "{link}");
        assert!(link.contains("20240102000000/http://example.org/a>; rel=\"memento\""));
        assert!(link.contains("20240103000000/http://example.org/a>; rel=\"last next memento\""));
        let only = self::set(&["20240101000000"]).link_header(0, "id_");
        assert!(
            only.contains("20240101000000id_/http://example.org/a>; rel=\"first last memento\""),
            "{only}"
        );
    }

    #[test]
    fn timemap_lists_every_memento() {
        let text = set(&["20240101000000", "20240102000000"]).link_timemap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(lines[0].starts_with("<http://h/timemap/link/http://example.org/a>; rel=\"self\""));
        assert!(lines[3].contains("rel=\"first memento\""));
        assert!(
            lines[4].ends_with("rel=\"last memento\"; datetime=\"Tue, 02 Jan 2024 00:00:00 GMT\"")
        );
    }

    #[test]
    fn archived_urls_are_web_urls() {
        assert_eq!(
            archived_url("http://e.org/a", Some("b=1")).unwrap(),
            "http://e.org/a?b=1"
        );
        assert_eq!(archived_url("e.org/a", None).unwrap(), "http://e.org/a");
        assert_eq!(
            archived_url("https:/e.org/a", None).unwrap(),
            "https://e.org/a"
        );
        assert_eq!(
            archived_url("http%3A%2F%2Fe.org%2Fa", None).unwrap(),
            "http://e.org/a"
        );
        assert!(archived_url("file:///etc/passwd", None).is_err());
        assert!(archived_url("ftp://e.org/", None).is_err());
    }
}
