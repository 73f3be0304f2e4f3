//! `/web/…`: mementos at `/web/{timestamp}{modifier}/{url}` and the TimeGate at `/web/{url}`.
//!
//! - `id_` (and any other two-letter modifier: nothing is rewritten) answers the archived
//!   status and payload bytes, the archived header fields as `X-Archive-Orig-*`, archived
//!   redirects pointing back into the archive, and `Content-Security-Policy: sandbox`.
//! - Without a modifier an RDF capture is served in the syntax `Accept` prefers (its own
//!   syntax on a tie), a browser gets the capture page, anything else the raw answer.
//! - A timestamp that is not a memento's own redirects (302) to the closest memento's URI.
//! - `/web/*/{url}` (and `/web/2024*/{url}`) redirect to the timeline page.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use ldwarc_warc::RecordType;

use ldwarc_archive::index::Capture;
use ldwarc_rdf::{OutputFormat, ParsedGraph, Syntax, decode_content, mislabelled, write_graph};
use ldwarc_timetravel::replay::{
    ArchivedResponse, MAX_PAYLOAD_BYTES, Pick, ReplayDate, ReplayError, pick_capture,
    read_response, redirect_target,
};

use super::memento::{MementoSet, accept_ranges, archived_url, asked_datetime_or_400, http_date};
use super::rewrite::rewrite_html;
use super::{
    AppState, State as AppStateRef, archive_failure, base_url, blocking, inline, pages,
    text_response,
};

/// What a path under `/web/` asks for.
#[derive(Debug, PartialEq, Eq)]
enum WebPath<'a> {
    Memento {
        timestamp: &'a str,
        modifier: &'a str,
        rest: &'a str,
    },
    Listing {
        rest: &'a str,
    },
    TimeGate {
        rest: &'a str,
    },
}

fn parse_web_path(rest: &str) -> WebPath<'_> {
    let Some((first, after)) = rest.split_once('/') else {
        return WebPath::TimeGate { rest };
    };
    let digits = first.bytes().take_while(u8::is_ascii_digit).count();
    let (stamp, tail) = first.split_at(digits);
    let modifier_ok = |m: &str| {
        m.is_empty()
            || (m.len() == 3 && m.ends_with('_') && m[..2].bytes().all(|b| b.is_ascii_lowercase()))
    };
    if (1..=14).contains(&digits) && modifier_ok(tail) {
        return WebPath::Memento {
            timestamp: stamp,
            modifier: tail,
            rest: after,
        };
    }
    if let Some(modifier) = tail.strip_prefix('*')
        && digits <= 14
        && modifier_ok(modifier)
    {
        return WebPath::Listing { rest: after };
    }
    WebPath::TimeGate { rest }
}

/// `GET /web/…`.
pub(crate) async fn web(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let rest = uri.path().strip_prefix("/web/").unwrap_or("").to_string();
    let query = uri.query().map(String::from);
    let base = base_url(&headers, state.bind);
    let (kind, url_part) = match parse_web_path(&rest) {
        WebPath::Memento {
            timestamp,
            modifier,
            rest,
        } => (
            Some((timestamp.to_string(), modifier.to_string())),
            rest.to_string(),
        ),
        WebPath::Listing { rest } => {
            return match archived_url(rest, query.as_deref()) {
                Ok(url) => redirect(&format!("/timeline?url={}", encode_component(&url))),
                Err(message) => text_response(StatusCode::BAD_REQUEST, &format!("{message}\n")),
            };
        }
        WebPath::TimeGate { rest } => (None, rest.to_string()),
    };
    let url = match archived_url(&url_part, query.as_deref()) {
        Ok(url) => url,
        Err(message) => return text_response(StatusCode::BAD_REQUEST, &format!("{message}\n")),
    };
    match kind {
        // Raw bytes and redirects: one lookup and one record read (at most
        // MAX_PAYLOAD_BYTES), cheaper on this thread than handed to a blocking one.
        Some((timestamp, modifier)) if !modifier.is_empty() => inline(&state, |state| {
            memento(state, &headers, base, url, &timestamp, &modifier)
        }),
        None => inline(&state, |state| timegate(state, &headers, base, url)),
        // Negotiated mementos parse and serialise RDF: off the async threads, time-limited.
        Some((timestamp, modifier)) => {
            blocking(&state, move |state| {
                memento(state, &headers, base, url, &timestamp, &modifier)
            })
            .await
        }
    }
}

/// A query-string component, percent-encoded.
pub(crate) fn encode_component(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn redirect(location: &str) -> Response {
    let mut response = text_response(StatusCode::FOUND, "");
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

fn insert(response: &mut Response, name: HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

/// The replayable captures of `url`, or the answer when there are none.
fn captures_or_404(state: &AppState, url: &str) -> Result<Vec<Capture>, Box<Response>> {
    match state.captures(url) {
        Ok(captures) if captures.is_empty() => Err(Box::new(text_response(
            StatusCode::NOT_FOUND,
            &format!("{url}: not in this archive\n"),
        ))),
        Ok(captures) => Ok(captures),
        Err(error) => Err(Box::new(text_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("{error}\n"),
        ))),
    }
}

/// The TimeGate: 302 to the memento closest to `Accept-Datetime` (or the latest).
fn timegate(state: &AppState, headers: &HeaderMap, base: String, url: String) -> Response {
    let at = match asked_datetime_or_400(headers) {
        Ok(at) => at,
        Err(answer) => return *answer,
    };
    let captures = match captures_or_404(state, &url) {
        Ok(captures) => captures,
        Err(response) => return *response,
    };
    let Some(chosen) =
        pick_capture(&captures, &ReplayDate::from_instant(at), Pick::Closest).cloned()
    else {
        return text_response(
            StatusCode::NOT_FOUND,
            &format!("{url}: not in this archive\n"),
        );
    };
    let set = MementoSet::new(base, url, captures);
    let position = set.position_of(&chosen.timestamp).unwrap_or(0);
    let mut response = redirect(&set.memento_uri(&chosen.timestamp, ""));
    insert(&mut response, header::VARY, "accept-datetime");
    insert(&mut response, header::LINK, &set.link_header(position, ""));
    response
}

/// A memento: the capture closest to `timestamp`, or a redirect to its exact URI-M.
pub(crate) fn memento(
    state: &AppState,
    headers: &HeaderMap,
    base: String,
    url: String,
    timestamp: &str,
    modifier: &str,
) -> Response {
    let Ok(date) = ReplayDate::parse(timestamp) else {
        return text_response(
            StatusCode::BAD_REQUEST,
            &format!("{timestamp}: not a timestamp\n"),
        );
    };
    let captures = match captures_or_404(state, &url) {
        Ok(captures) => captures,
        Err(response) => return *response,
    };
    let Some(chosen) = pick_capture(&captures, &date, Pick::Closest).cloned() else {
        return text_response(
            StatusCode::NOT_FOUND,
            &format!("{url}: not in this archive\n"),
        );
    };
    let set = MementoSet::new(base, url, captures);
    let position = set.position_of(&chosen.timestamp).unwrap_or(0);
    if chosen.timestamp != timestamp {
        let mut response = redirect(&set.memento_uri(&chosen.timestamp, modifier));
        insert(
            &mut response,
            header::LINK,
            &set.link_header(position, modifier),
        );
        return response;
    }
    let archived = match archived_response(state, &chosen, modifier.is_empty()) {
        Ok(archived) => archived,
        Err(error) => {
            let what = format!("{} at {}", chosen.url, chosen.timestamp);
            return archive_failure(state, StatusCode::BAD_GATEWAY, &what, &error);
        }
    };
    let mut response = if modifier.is_empty() {
        negotiated(state, headers, &set, &chosen, archived)
    } else {
        raw(&set, &chosen, archived, modifier)
    };
    insert(
        &mut response,
        HeaderName::from_static("memento-datetime"),
        &http_date(&chosen.timestamp),
    );
    insert(
        &mut response,
        header::LINK,
        &set.link_header(position, modifier),
    );
    response
}

/// The archived response of a memento. A `304` revisit (server-not-modified) replayed raw
/// is its own record, the exchange archived; otherwise a revisit reads its original.
fn archived_response(
    state: &AppState,
    capture: &Capture,
    negotiated: bool,
) -> Result<ArchivedResponse, ReplayError> {
    if !negotiated && capture.record_type == RecordType::Revisit && capture.status == Some(304) {
        let root = state.archive.root_of(&capture.filename);
        return read_response(root, &capture.filename, capture.offset, MAX_PAYLOAD_BYTES)
            .map_err(ReplayError::io);
    }
    state.archive.response(capture)
}

/// The archived answer as it was: status, payload bytes, header fields as `X-Archive-Orig-*`.
fn raw(
    set: &MementoSet,
    capture: &Capture,
    archived: ArchivedResponse,
    modifier: &str,
) -> Response {
    let status = archived
        .head
        .status
        .or(capture.status)
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::OK);
    let mut response = Response::new(Body::from(archived.payload));
    *response.status_mut() = status;
    for (name, value) in &archived.head.headers {
        let Ok(name) = HeaderName::from_bytes(format!("x-archive-orig-{name}").as_bytes()) else {
            continue;
        };
        if let Ok(value) = HeaderValue::from_bytes(value.as_bytes()) {
            response.headers_mut().append(name, value);
        }
    }
    for name in [header::CONTENT_TYPE, header::CONTENT_ENCODING] {
        if let Some(value) = archived.head.header(name.as_str()) {
            insert(&mut response, name, value);
        }
    }
    if let Some(target) = redirect_target(capture) {
        let location = format!("{}/web/{}{modifier}/{target}", set.base, capture.timestamp);
        insert(&mut response, header::LOCATION, &location);
    }
    // Archived HTML or scripts must not act in the server's origin.
    insert(&mut response, header::CONTENT_SECURITY_POLICY, "sandbox");
    response
}

/// The capture in the syntax `Accept` asks for, the capture page for a browser, or the raw
/// answer for redirects, errors and payloads that are not RDF.
fn negotiated(
    state: &AppState,
    headers: &HeaderMap,
    set: &MementoSet,
    capture: &Capture,
    archived: ArchivedResponse,
) -> Response {
    let status = archived.head.status.or(capture.status);
    if !status.is_some_and(|s| (200..300).contains(&s)) {
        return raw(set, capture, archived, "");
    }
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*")
        .to_string();
    // An archived web page is itself for a browser (its embedded data, if any, is offered
    // to RDF clients below); a page without data is itself for everyone.
    let html_capture = is_html(archived.head.header("content-type"));
    if html_capture && prefers_html(&accept) {
        return browsable_page(set, capture, archived);
    }
    let parsed = match state.archive.parse(capture, &archived) {
        Ok(parsed) => parsed,
        Err(ReplayError::NotRdf { .. } | ReplayError::Rdf(_)) if html_capture => {
            return browsable_page(set, capture, archived);
        }
        Err(ReplayError::NotRdf { .. } | ReplayError::Rdf(_) | ReplayError::Decode { .. }) => {
            return raw(set, capture, archived, "");
        }
        Err(error) => {
            let what = format!("{} at {}", capture.url, capture.timestamp);
            return archive_failure(state, StatusCode::BAD_GATEWAY, &what, &error);
        }
    };
    // Nobody waits for a page or a serialisation of this graph any more.
    if super::abandon::abandoned() {
        tracing::info!(url = %capture.url, "memento stopped: its answer was given up");
        return super::too_slow(state.limits.request_time);
    }
    let not_graph = not_a_graph(&parsed, archived.head.header("content-type"));
    // A person sees a broken document's statements with the error said; a program is
    // served it as archived, never as a graph it is not (or only part of).
    let html = prefers_html(&accept);
    if let Some(reason) = not_graph
        && !(html && parsed.error.is_some())
    {
        let mut response = raw(set, capture, archived, "");
        insert(&mut response, HeaderName::from_static(RDF_ERROR), &reason);
        insert(&mut response, header::VARY, "accept");
        return response;
    }
    // Served as what it really is, but a mislabelled capture says so.
    let note = mislabelled(archived.head.header("content-type"), parsed.syntax);
    if html {
        // A 304 revisit's page shows the exchange archived, not only its original's.
        let revisit = (capture.record_type == RecordType::Revisit && capture.status == Some(304))
            .then(|| archived_response(state, capture, false).ok())
            .flatten();
        let page = pages::capture_page(set, capture, &archived, &parsed, revisit.as_ref());
        let mut response = super::response(
            StatusCode::OK,
            "text/html; charset=utf-8",
            page.into_bytes(),
        );
        insert(&mut response, header::VARY, "accept");
        if let Some(note) = &note {
            insert(&mut response, HeaderName::from_static(RDF_WARNING), note);
        }
        return response;
    }
    // Named graphs are offered only in the syntaxes that keep them.
    let fits = |f: &OutputFormat| f.has_graphs() || !parsed.graph.has_named_graphs();
    let mut offered: Vec<OutputFormat> = OutputFormat::ALL
        .into_iter()
        .filter(|f| f.syntax() == parsed.syntax && fits(f))
        .collect();
    offered.extend(
        OutputFormat::ALL
            .into_iter()
            .filter(|f| f.syntax() != parsed.syntax && fits(f)),
    );
    let Some(format) = OutputFormat::negotiate(&accept, &offered) else {
        let types: Vec<&str> = offered.iter().map(|f| f.media_type()).collect();
        let mut response = text_response(
            StatusCode::NOT_ACCEPTABLE,
            &format!("this memento is available as {}\n", types.join(", ")),
        );
        insert(&mut response, header::VARY, "accept");
        return response;
    };
    let mut body = Vec::new();
    if let Err(error) = write_graph(&parsed.graph, format, Some(&capture.url), &mut body) {
        return text_response(StatusCode::NOT_ACCEPTABLE, &format!("{error}\n"));
    }
    let content_type = format!("{}; charset=utf-8", format.media_type());
    let mut response = super::response(StatusCode::OK, &content_type, body);
    insert(&mut response, header::VARY, "accept");
    if let Some(note) = &note {
        insert(&mut response, HeaderName::from_static(RDF_WARNING), note);
    }
    response
}

/// Whether a `Content-Type` is HTML or XHTML.
fn is_html(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
    })
}

/// An archived HTML page as the archived answer, its links rewritten into the archive
/// ([`rewrite_html`]) so that it can be browsed; `Content-Encoding` undone to do so. A
/// payload that cannot be decoded is served as archived.
fn browsable_page(set: &MementoSet, capture: &Capture, mut archived: ArchivedResponse) -> Response {
    let encoding = archived.head.header("content-encoding").map(String::from);
    let Ok(decoded) = decode_content(encoding.as_deref(), &archived.payload, MAX_PAYLOAD_BYTES)
    else {
        return raw(set, capture, archived, "");
    };
    archived.payload = rewrite_html(&decoded, &capture.url, &capture.timestamp);
    let mut response = raw(set, capture, archived, "");
    response.headers_mut().remove(header::CONTENT_ENCODING);
    response
}

/// The header naming why a negotiated memento was served as archived instead of as a graph.
pub(crate) const RDF_ERROR: &str = "x-ldwarc-rdf-error";

/// The header naming why a negotiated memento's graph was read in another syntax than its
/// `Content-Type` declares (a server's mislabelling, recovered by sniffing).
pub(crate) const RDF_WARNING: &str = "x-ldwarc-rdf-warning";

/// Why a parsed capture is not served as a graph: its RDF did not parse whole (a partial
/// graph would pass for the document), or it yielded no statement from a payload not
/// declared as RDF (plain JSON read as JSON-LD, generic XML): not RDF at all.
fn not_a_graph(parsed: &ParsedGraph, content_type: Option<&str>) -> Option<String> {
    if let Some(error) = &parsed.error {
        return Some(format!(
            "the {} payload does not parse whole: {}",
            parsed.syntax.name(),
            error.replace(['\r', '\n'], " ")
        ));
    }
    let declared_rdf = content_type
        .and_then(Syntax::from_media_type)
        .is_some_and(|_| !content_type.is_some_and(is_generic_xml));
    (parsed.graph.is_empty() && !declared_rdf).then(|| {
        format!(
            "no RDF statement in a payload of type {}",
            content_type.unwrap_or("none")
        )
    })
}

/// `application/xml` and `text/xml`: RDF/XML only when the document says so.
fn is_generic_xml(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/xml" || essence == "text/xml"
}

/// Whether `Accept` names an HTML type at least as strongly as any RDF type it names.
fn prefers_html(accept: &str) -> bool {
    let mut html = 0u16;
    let mut rdf = 0u16;
    for (range, weight) in accept_ranges(accept) {
        if range == "text/html" || range == "application/xhtml+xml" {
            html = html.max(weight);
        } else if OutputFormat::from_accept(&range).is_some() && !range.contains('*') {
            rdf = rdf.max(weight);
        }
    }
    html > 0 && html >= rdf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_paths() {
        assert_eq!(
            parse_web_path("20240101id_/http://e.org/a"),
            WebPath::Memento {
                timestamp: "20240101",
                modifier: "id_",
                rest: "http://e.org/a"
            }
        );
        assert_eq!(
            parse_web_path("20240101000000/e.org/"),
            WebPath::Memento {
                timestamp: "20240101000000",
                modifier: "",
                rest: "e.org/"
            }
        );
        assert_eq!(
            parse_web_path("*/http://e.org/"),
            WebPath::Listing {
                rest: "http://e.org/"
            }
        );
        assert_eq!(
            parse_web_path("2024*/http://e.org/"),
            WebPath::Listing {
                rest: "http://e.org/"
            }
        );
        assert_eq!(
            parse_web_path("http://e.org/a"),
            WebPath::TimeGate {
                rest: "http://e.org/a"
            }
        );
        assert_eq!(
            parse_web_path("192.0.2.1/a"),
            WebPath::TimeGate {
                rest: "192.0.2.1/a"
            }
        );
        assert_eq!(
            parse_web_path("123456789012345/http://e.org/"),
            WebPath::TimeGate {
                rest: "123456789012345/http://e.org/"
            }
        );
    }

    #[test]
    fn browsers_get_html_rdf_clients_get_rdf() {
        assert!(prefers_html(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(!prefers_html("text/turtle"));
        assert!(!prefers_html("text/turtle, text/html;q=0.5"));
        assert!(!prefers_html("*/*"));
        assert!(prefers_html("text/html"));
    }
}
