//! Pages for people, rendered on the server (no scripts): search by URL or prefix, a URL's
//! timeline with graph changes marked, a capture page (archived header fields, triples as a
//! table, the capture in other syntaxes), a diff page between two captures, and a dataset
//! overview (pay-level domains, documents, captures and changes per month).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;

use ldwarc_core::archive::pay_level_domain;
use ldwarc_core::index::Capture;
use ldwarc_core::index::query::{CdxQuery, MatchType, run_query};
use ldwarc_core::replay::{
    ArchivedResponse, HistoryChange, Pick, ReplayDate, history, is_replayable,
};
use ldwarc_rdf::{OutputFormat, ParsedGraph, diff as graph_diff};

use super::memento::{MementoSet, archived_url, http_date};
use super::replay::{encode_component, memento};
use super::{AppState, State as AppStateRef, base_url, blocking, response};

/// Most rows a page lists.
const PAGE_ROWS: usize = 2_000;

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;max-width:90em}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;\
vertical-align:top;font-size:90%}code,td.term{font-family:monospace;word-break:break-all}\
tr.changed{background:#fff3c4}tr.first{background:#e3f1ff}tr.added{background:#e6ffe6}\
tr.removed{background:#ffe6e6}.strip{display:flex;gap:2px;margin:1em 0}.strip a{display:block;\
width:10px;height:24px;background:#bbb}.strip a.changed,.strip a.first{background:#d08c00}\
nav a{margin-right:1em}";

fn page(title: &str, body: &str) -> Response {
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} — ldwarc</title>\
         <style>{STYLE}</style></head><body><nav><a href=\"/\">search</a><a href=\"/overview\">\
         overview</a></nav><h1>{}</h1>\n{body}</body></html>\n",
        escape(title),
        escape(title)
    );
    let mut response = response(
        StatusCode::OK,
        "text/html; charset=utf-8",
        html.into_bytes(),
    );
    // The pages use no scripts and load nothing from elsewhere.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"),
    );
    response
}

fn error_page(status: StatusCode, message: &str) -> Response {
    let mut response = page("Not available", &format!("<p>{}</p>", escape(message)));
    *response.status_mut() = status;
    response
}

const SEARCH_FORM: &str = "<form action=\"/search\" method=\"get\"><input name=\"url\" size=\"60\" \
placeholder=\"http://example.org/resource/Berlin\"> <label><input type=\"checkbox\" name=\"match\" \
value=\"prefix\"> prefix</label> <button>search</button></form>";

/// `GET /`.
pub(crate) async fn home() -> Response {
    page(
        "Archive",
        &format!(
            "<p>Find the captures of a URL, or of every URL starting with a prefix.</p>{SEARCH_FORM}\
             <p>Machine interfaces: <code>/cdx</code> (pywb CDX API), <code>/cdx/search/cdx</code> \
             (IA dialect), <code>/web/{{timestamp}}/{{url}}</code>, <code>/timemap/link/{{url}}</code>.</p>"
        ),
    )
}

/// The parameters pages take.
#[derive(Debug, Deserialize)]
pub(crate) struct PageParams {
    url: Option<String>,
    #[serde(rename = "match")]
    match_type: Option<String>,
    ts: Option<String>,
    from: Option<String>,
    to: Option<String>,
}

fn url_param(params: &PageParams) -> Result<String, Box<Response>> {
    let text = params.url.as_deref().unwrap_or("").trim();
    if text.is_empty() {
        return Err(Box::new(error_page(StatusCode::BAD_REQUEST, "give a url")));
    }
    archived_url(text, None).map_err(|m| Box::new(error_page(StatusCode::BAD_REQUEST, &m)))
}

/// `GET /search?url=…[&match=prefix]`: the captured URLs with their capture counts.
pub(crate) async fn search(
    State(state): State<AppStateRef>,
    Query(params): Query<PageParams>,
) -> Response {
    let url = match url_param(&params) {
        Ok(url) => url,
        Err(response) => return *response,
    };
    let prefix = params.match_type.as_deref() == Some("prefix");
    blocking(&state, move |state| {
        let query = CdxQuery {
            match_type: Some(if prefix {
                MatchType::Prefix
            } else {
                MatchType::Exact
            }),
            ..CdxQuery::new(&url)
        };
        let captures = match run_query(state.archive.merged_index(), &query) {
            Ok(captures) => captures,
            Err(e) => return error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        };
        let mut by_url: BTreeMap<String, (usize, String, String)> = BTreeMap::new();
        for capture in captures.iter().filter(|c| is_replayable(c)) {
            let entry = by_url.entry(capture.url.clone()).or_insert((
                0,
                capture.timestamp.clone(),
                capture.timestamp.clone(),
            ));
            entry.0 += 1;
            entry.1 = entry.1.clone().min(capture.timestamp.clone());
            entry.2 = entry.2.clone().max(capture.timestamp.clone());
        }
        let mut rows = String::new();
        for (found, (count, first, last)) in by_url.iter().take(PAGE_ROWS) {
            let _ = write!(
                rows,
                "<tr><td class=\"term\"><a href=\"/timeline?url={}\">{}</a></td><td>{count}</td>\
                 <td>{}</td><td>{}</td></tr>",
                encode_component(found),
                escape(found),
                escape(&http_date(first)),
                escape(&http_date(last))
            );
        }
        let body = format!(
            "{SEARCH_FORM}<p>{} URLs{} match <code>{}</code>.</p><table><tr><th>URL</th>\
             <th>captures</th><th>first</th><th>last</th></tr>{rows}</table>",
            by_url.len(),
            if by_url.len() > PAGE_ROWS {
                " (first 2,000 shown)"
            } else {
                ""
            },
            escape(&url)
        );
        page("Search", &body)
    })
    .await
}

/// `GET /timeline?url=…`: every capture of a URL, graph changes marked.
pub(crate) async fn timeline(
    State(state): State<AppStateRef>,
    Query(params): Query<PageParams>,
) -> Response {
    let url = match url_param(&params) {
        Ok(url) => url,
        Err(response) => return *response,
    };
    blocking(&state, move |state| timeline_page(state, &url)).await
}

fn timeline_page(state: &AppState, url: &str) -> Response {
    let entries = match history(&state.archive, url) {
        Ok(entries) => entries,
        Err(error) => return error_page(StatusCode::NOT_FOUND, &error.to_string()),
    };
    let mut strip = String::new();
    let mut rows = String::new();
    let mut changes = 0;
    let mut previous_graph: Option<String> = None;
    for entry in entries.iter().take(PAGE_ROWS) {
        let capture = &entry.capture;
        let class = entry.change.label();
        let capture_link = format!(
            "/capture?url={}&amp;ts={}",
            encode_component(&capture.url),
            capture.timestamp
        );
        let _ = write!(
            strip,
            "<a class=\"{class}\" href=\"{capture_link}\" title=\"{} {class}\"></a>",
            capture.timestamp
        );
        let diff_link = match (&entry.change, &previous_graph) {
            (HistoryChange::Changed | HistoryChange::SameGraph, Some(before)) => format!(
                "<a class=\"diff\" href=\"/diff?url={}&amp;from={before}&amp;to={}\">diff</a>",
                encode_component(url),
                capture.timestamp
            ),
            _ => String::new(),
        };
        if matches!(entry.change, HistoryChange::Changed) {
            changes += 1;
        }
        let detail = match &entry.change {
            HistoryChange::Redirect(target) => format!("→ {}", escape(target)),
            HistoryChange::NoGraph(reason) => escape(reason),
            _ => String::new(),
        };
        let _ = write!(
            rows,
            "<tr class=\"{class}\"><td><a href=\"{capture_link}\">{}</a></td><td>{}</td><td>{class}</td>\
             <td>{}</td><td>{diff_link}</td><td>{detail}</td></tr>",
            escape(&http_date(&capture.timestamp)),
            capture.status.map_or("-".into(), |s| s.to_string()),
            entry.statements.map_or("-".into(), |n| n.to_string()),
        );
        if entry.graph_hash.is_some() {
            previous_graph = Some(capture.timestamp.clone());
        }
    }
    let body = format!(
        "<p class=\"summary\"><code>{}</code>: {} captures, {changes} graph changes. \
         <a href=\"/timemap/link/{}\">TimeMap</a></p><div class=\"strip\">{strip}</div>\
         <table id=\"timeline\"><tr><th>captured</th><th>status</th><th>change</th><th>statements</th>\
         <th></th><th></th></tr>{rows}</table>",
        escape(url),
        entries.len(),
        escape(url)
    );
    page("Timeline", &body)
}

/// `GET /capture?url=…&ts=…`.
pub(crate) async fn capture(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    Query(params): Query<PageParams>,
) -> Response {
    let url = match url_param(&params) {
        Ok(url) => url,
        Err(response) => return *response,
    };
    let timestamp = params.ts.clone().unwrap_or_else(|| "2999".into());
    let base = base_url(&headers, state.bind);
    // The page is what `/web/{ts}/{url}` shows a browser.
    let mut browser = HeaderMap::new();
    browser.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
    blocking(&state, move |state| {
        memento(state, &browser, base, url, &timestamp, "")
    })
    .await
}

/// Rows of a header-field table.
fn header_rows(archived: &ArchivedResponse) -> String {
    let mut rows = String::new();
    for (name, value) in &archived.head.headers {
        let _ = write!(
            rows,
            "<tr><th>{}</th><td class=\"term\">{}</td></tr>",
            escape(name),
            escape(value)
        );
    }
    rows
}

/// Links to the previous and next mementos of the set, for stepping through captures.
fn capture_navigation(set: &MementoSet, capture: &Capture) -> String {
    let Some(position) = set.position_of(&capture.timestamp) else {
        return String::new();
    };
    let link = |index: usize, label: &str, rel: &str| {
        set.captures.get(index).map_or(String::new(), |other| {
            format!(
                "<a rel=\"{rel}\" href=\"/capture?url={}&amp;ts={}\">{label} {}</a>",
                encode_component(&set.url),
                other.timestamp,
                escape(&http_date(&other.timestamp))
            )
        })
    };
    let previous = position
        .checked_sub(1)
        .map_or(String::new(), |p| link(p, "←", "prev"));
    format!(
        "<p class=\"captures\">{previous} <span>capture {} of {}</span> {}</p>",
        position + 1,
        set.captures.len(),
        link(position + 1, "→", "next")
    )
}

/// The capture page: header fields, triples, other syntaxes, and links to the previous and
/// next captures. `revisit` is the archived `304` exchange when the capture is a
/// server-not-modified revisit (then `archived` and `parsed` are its original's).
pub(crate) fn capture_page(
    set: &MementoSet,
    capture: &Capture,
    archived: &ArchivedResponse,
    parsed: &ParsedGraph,
    revisit: Option<&ArchivedResponse>,
) -> String {
    let mut headers = header_rows(revisit.unwrap_or(archived));
    let revisit_note = revisit.map_or(String::new(), |_| {
        let original = capture
            .refers_to_timestamp
            .as_deref()
            .map_or("an earlier capture".to_string(), |t| {
                format!(
                    "the capture of <a href=\"/capture?url={}&amp;ts={t}\">{}</a>",
                    encode_component(&set.url),
                    escape(&http_date(t))
                )
            });
        headers.push_str(&format!(
            "<tr><th colspan=\"2\">header fields of the original</th></tr>{}",
            header_rows(archived)
        ));
        format!(
            "<p class=\"revisit\">A revisit: the server answered <strong>304 Not Modified</strong>, \
             so the document was unchanged since {original}; its statements are shown.</p>"
        )
    });
    let graph = &parsed.graph;
    let mut triples = String::new();
    for quad in graph.quads().iter().take(PAGE_ROWS) {
        let terms: Vec<String> = quad
            .terms()
            .map(|t| format!("<td class=\"term\">{}</td>", escape(graph.term(t))))
            .collect();
        let _ = write!(triples, "<tr>{}</tr>", terms.join(""));
    }
    let shown = graph.len().min(PAGE_ROWS);
    let cut = if graph.len() > PAGE_ROWS {
        format!(
            "<p class=\"cut\">The first {shown} of {} statements are shown; every one is in \
             the syntaxes above.</p>",
            graph.len()
        )
    } else {
        String::new()
    };
    // A document with named graphs is offered only in the syntaxes that keep them.
    let syntaxes: Vec<String> = OutputFormat::ALL
        .iter()
        .filter(|f| f.has_graphs() || !graph.has_named_graphs())
        .map(|f| {
            format!(
                "<a href=\"/render?url={}&amp;ts={}&amp;format={}\">{}</a>",
                encode_component(&capture.url),
                capture.timestamp,
                f.name(),
                f.name()
            )
        })
        .collect();
    let warning = parsed.error.as_ref().map_or(String::new(), |error| {
        format!(
            "<p class=\"warning\"><strong>This payload does not parse whole</strong> as {}: {}. \
             The statements before the error are shown.</p>",
            parsed.syntax.name(),
            escape(error)
        )
    });
    let body = format!(
        "{navigation}{warning}{revisit_note}<p><code>{url}</code> as captured {date} (HTTP {status}, {syntax}, {count} statements).</p>\
         <p>Other syntaxes: {links} · <a href=\"{raw}\">archived bytes</a> · <a href=\"/timeline?url={enc}\">timeline</a></p>\
         <h2>Archived header fields</h2><table>{headers}</table>\
         <h2>Statements</h2><table id=\"triples\"><tr><th>subject</th><th>predicate</th><th>object</th></tr>{triples}</table>{cut}",
        navigation = capture_navigation(set, capture),
        url = escape(&capture.url),
        date = escape(&http_date(&capture.timestamp)),
        status = revisit
            .unwrap_or(archived)
            .head
            .status
            .map_or("-".into(), |s| s.to_string()),
        syntax = parsed.syntax.name(),
        count = graph.len(),
        links = syntaxes.join(" "),
        raw = escape(&set.memento_uri(&capture.timestamp, "id_")),
        enc = encode_component(&capture.url),
    );
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Capture — ldwarc</title>\
         <style>{STYLE}</style></head><body><nav><a href=\"/\">search</a><a href=\"/overview\">overview</a>\
         </nav><h1>Capture</h1>\n{body}</body></html>\n"
    );
    html
}

/// `GET /render?url=…&ts=…&format=ttl`: a memento in a named syntax (links from pages).
pub(crate) async fn render(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    Query(params): Query<RenderParams>,
) -> Response {
    let url = match archived_url(params.url.trim(), None) {
        Ok(url) => url,
        Err(m) => return error_page(StatusCode::BAD_REQUEST, &m),
    };
    let Some(format) = OutputFormat::ALL
        .into_iter()
        .find(|f| f.name() == params.format)
    else {
        return error_page(
            StatusCode::BAD_REQUEST,
            "format is one of nt, ttl, nq, trig, jsonld, rdfxml",
        );
    };
    let base = base_url(&headers, state.bind);
    let mut accept = HeaderMap::new();
    accept.insert(
        header::ACCEPT,
        HeaderValue::from_static(format.media_type()),
    );
    let timestamp = params.ts.clone();
    blocking(&state, move |state| {
        memento(state, &accept, base, url, &timestamp, "")
    })
    .await
}

/// The parameters of `/render`.
#[derive(Debug, Deserialize)]
pub(crate) struct RenderParams {
    url: String,
    ts: String,
    format: String,
}

/// `GET /diff?url=…&from=…&to=…`: the statements removed and added between two captures.
pub(crate) async fn diff(
    State(state): State<AppStateRef>,
    Query(params): Query<PageParams>,
) -> Response {
    let url = match url_param(&params) {
        Ok(url) => url,
        Err(response) => return *response,
    };
    let (Some(from), Some(to)) = (params.from.clone(), params.to.clone()) else {
        return error_page(StatusCode::BAD_REQUEST, "give from and to timestamps");
    };
    blocking(&state, move |state| diff_page(state, &url, &from, &to)).await
}

fn diff_page(state: &AppState, url: &str, from: &str, to: &str) -> Response {
    let document = |stamp: &str| {
        let date = ReplayDate::parse(stamp)?;
        state
            .archive
            .document(url, &date, Pick::Closest)
            .map_err(|e| e.to_string())
    };
    let (old, new) = match (document(from), document(to)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => return error_page(StatusCode::NOT_FOUND, &e),
    };
    let changes = graph_diff(&old.parsed.graph, &new.parsed.graph);
    let mut rows = String::new();
    for (class, sign, quads) in [
        ("removed", "−", &changes.removed),
        ("added", "+", &changes.added),
    ] {
        for quad in quads.iter().take(PAGE_ROWS) {
            let terms: Vec<String> = quad
                .terms()
                .map(|t| format!("<td class=\"term\">{}</td>", escape(t)))
                .collect();
            let _ = write!(
                rows,
                "<tr class=\"{class}\"><td>{sign}</td>{}</tr>",
                terms.join("")
            );
        }
    }
    let old_stamp = &old.resolution.capture.timestamp;
    let new_stamp = &new.resolution.capture.timestamp;
    let body = format!(
        "<p class=\"summary\"><code>{}</code> from {} to {}: {} removed, {} added, {} unchanged.</p>\
         <p><a href=\"/timeline?url={}\">timeline</a></p><table id=\"diff\"><tr><th></th><th>subject</th>\
         <th>predicate</th><th>object</th></tr>{rows}</table>",
        escape(url),
        escape(&http_date(old_stamp)),
        escape(&http_date(new_stamp)),
        changes.removed_count(),
        changes.added_count(),
        changes.unchanged,
        encode_component(url)
    );
    page("Diff", &body)
}

/// Figures of the whole archive, computed once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overview {
    captures: usize,
    documents: usize,
    /// PLD → (documents, captures).
    plds: BTreeMap<String, (usize, usize)>,
    /// `YYYY-MM` → (captures, changes).
    months: BTreeMap<String, (usize, usize)>,
}

impl Overview {
    fn compute(state: &AppState) -> std::io::Result<Overview> {
        let mut overview = Overview::default();
        let mut group: Vec<Capture> = Vec::new();
        state
            .archive
            .merged_index()
            .scan_range("", None, |capture| {
                if !is_replayable(&capture) {
                    return;
                }
                if group.first().is_some_and(|g| g.urlkey != capture.urlkey) {
                    overview.add_document(std::mem::take(&mut group));
                }
                group.push(capture);
            })?;
        overview.add_document(group);
        Ok(overview)
    }

    fn add_document(&mut self, mut captures: Vec<Capture>) {
        let Some(first) = captures.first() else {
            return;
        };
        let host = url::Url::parse(&first.url)
            .ok()
            .and_then(|u| u.host_str().map(String::from))
            .unwrap_or_default();
        let pld = self.plds.entry(pay_level_domain(&host)).or_default();
        pld.0 += 1;
        pld.1 += captures.len();
        self.documents += 1;
        self.captures += captures.len();
        captures.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
        let mut last_digest: HashMap<&str, Option<&str>> = HashMap::new();
        for capture in &captures {
            let month = format!(
                "{}-{}",
                &capture.timestamp[..4.min(capture.timestamp.len())],
                capture.timestamp.get(4..6).unwrap_or("??")
            );
            let entry = self.months.entry(month).or_default();
            entry.0 += 1;
            let previous = last_digest.insert(&capture.url, capture.digest.as_deref());
            if previous.is_some_and(|d| d != capture.digest.as_deref()) {
                entry.1 += 1;
            }
        }
    }
}

/// `GET /overview`.
pub(crate) async fn overview(State(state): State<AppStateRef>) -> Response {
    blocking(&state, |state| {
        let overview = match state.overview.get() {
            Some(overview) => overview.clone(),
            None => match Overview::compute(state) {
                Ok(computed) => state.overview.get_or_init(|| computed).clone(),
                Err(e) => return error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            },
        };
        let mut plds: Vec<(&String, &(usize, usize))> = overview.plds.iter().collect();
        plds.sort_by(|a, b| b.1.1.cmp(&a.1.1).then(a.0.cmp(b.0)));
        let mut pld_rows = String::new();
        for (pld, (documents, captures)) in plds.iter().take(PAGE_ROWS) {
            let _ = write!(
                pld_rows,
                "<tr><td><a href=\"/search?url={}&amp;match=prefix\">{}</a></td><td>{documents}</td><td>{captures}</td></tr>",
                encode_component(&format!("http://{pld}/")),
                escape(pld)
            );
        }
        let mut month_rows = String::new();
        for (month, (captures, changes)) in &overview.months {
            let _ = write!(month_rows, "<tr><td>{month}</td><td>{captures}</td><td>{changes}</td></tr>");
        }
        let body = format!(
            "<p class=\"summary\">{} pay-level domains, {} documents, {} captures.</p>\
             <h2>Pay-level domains</h2><table><tr><th>PLD</th><th>documents</th><th>captures</th></tr>{pld_rows}</table>\
             <h2>Over time</h2><table><tr><th>month</th><th>captures</th><th>changed payloads</th></tr>{month_rows}</table>",
            overview.plds.len(),
            overview.documents,
            overview.captures
        );
        page("Overview", &body)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
