//! Pages for people, rendered on the server (no scripts): search by URL or prefix, a URL's
//! timeline with graph changes marked (a chart of its statements over time and a table), a
//! capture page (archived header fields, triples as a table, the capture in other syntaxes),
//! a diff page between two captures, and a dataset overview (pay-level domains, documents,
//! captures and changes per month, with the charts of [`super::chart_pages`]). Every page has
//! a viewport and a layout that reads on a phone, headings in order, and labelled controls.

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Deserialize;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::query::{CdxQuery, MatchType, run_query};
use ldwarc_rdf::{OutputFormat, ParsedGraph, diff as graph_diff};
use ldwarc_surt::pay_level_domain;
use ldwarc_timetravel::replay::{
    ArchivedResponse, HistoryChange, Pick, ReplayDate, history_until, is_replayable,
};

use super::memento::{MementoSet, archived_url, http_date};
use super::replay::{encode_component, memento};
use super::{AppState, State as AppStateRef, base_url, blocking, response, svg};

/// Most rows a page lists.
pub(crate) const PAGE_ROWS: usize = 2_000;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;max-width:90em;\
line-height:1.4}@media(max-width:40em){body{margin:.5em}table{display:block;overflow-x:auto}}\
a:focus,button:focus,input:focus,textarea:focus{outline:3px solid #1a5fb4;outline-offset:1px}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;\
vertical-align:top;font-size:90%}code,td.term{font-family:monospace;word-break:break-all}\
tr.changed{background:#fff3c4}tr.first{background:#e3f1ff}tr.added{background:#e6ffe6}\
tr.removed{background:#ffe6e6}.strip{display:flex;gap:2px;margin:1em 0}.strip a{display:block;\
width:10px;height:24px;background:#bbb}.strip a.changed,.strip a.first{background:#d08c00}\
nav a{margin-right:1em}figure.chart{margin:1em 0;max-width:52em}svg.chart{width:100%;\
height:auto;font-size:11px}svg .axis{stroke:#333}svg .grid{stroke:#e4e4e4}svg .bar{fill:#8fb3d9}\
svg .bar.changes{fill:#d08c00}svg .line{fill:none;stroke:#1a5fb4;stroke-width:1.5}\
svg .line.fit{stroke:#a51d2d}svg .point{fill:#1a5fb4}svg .point.changed,svg .point.first,svg .mark{\
fill:#d08c00}svg .band{fill:#a51d2d;opacity:.15}svg .tick,svg .label{fill:#333}\
svg a:focus .point{stroke:#000;stroke-width:3}table.month{display:inline-table;margin:0 1em 1em 0}\
table.month td,table.month th{text-align:right;min-width:1.6em}td.captured{background:#d7e7f7}\
td.captured a{display:block;font-weight:bold}textarea{width:100%;max-width:60em;font-family:\
monospace}label{display:block;margin:.5em 0 .2em}label.inline{display:inline}pre{white-space:pre-wrap}input,textarea{max-width:100%;box-sizing:border-box}code{overflow-wrap:\
anywhere}";

/// A whole page: every value reaches the HTML through maud, which escapes it.
pub(crate) fn document(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " — ldwarc" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                nav aria-label="site" {
                    a href="/" { "search" } a href="/overview" { "overview" }
                    a href="/sparql" { "SPARQL" }
                }
                main {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// A page answered 200 with the pages' security policy (no scripts, nothing from elsewhere).
pub(crate) fn page(title: &str, body: Markup) -> Response {
    let mut response = response(
        StatusCode::OK,
        "text/html; charset=utf-8",
        document(title, body).into_string().into_bytes(),
    );
    // The pages use no scripts and load nothing from elsewhere.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'"),
    );
    response
}

/// A page saying why the request could not be answered, with `status`.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    let mut response = page("Not available", html! { p { (message) } });
    *response.status_mut() = status;
    response
}

fn search_form() -> Markup {
    html! {
        form action="/search" method="get" {
            label for="search-url" { "URL" }
            input id="search-url" name="url" size="60" placeholder="http://example.org/resource/Berlin";
            " "
            label class="inline" { input type="checkbox" name="match" value="prefix"; " prefix" }
            " "
            button { "search" }
        }
    }
}

/// `GET /`.
pub(crate) async fn home() -> Response {
    page(
        "Archive",
        html! {
            p { "Find the captures of a URL, or of every URL starting with a prefix." }
            (search_form())
            p {
                "Machine interfaces: " code { "/cdx" } " (pywb CDX API), "
                code { "/cdx/search/cdx" } " (IA dialect), " code { "/web/{timestamp}/{url}" }
                ", " code { "/timemap/link/{url}" } "."
            }
        },
    )
}

/// `GET /favicon.ico`: no icon, said with 204 — browsers ask for it on every page, and a 404
/// is an error in their console.
pub(crate) async fn favicon() -> Response {
    response(StatusCode::NO_CONTENT, "image/x-icon", Vec::new())
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
    /// `/calendar`: one day, `YYYYMMDD`.
    pub(crate) day: Option<String>,
}

/// The archived URL a page is about (`url=`), or the page saying why not.
pub(crate) fn url_param(params: &PageParams) -> Result<String, Box<Response>> {
    let text = params.url.as_deref().unwrap_or("").trim();
    if text.is_empty() {
        return Err(Box::new(error_page(StatusCode::BAD_REQUEST, "give a url")));
    }
    archived_url(text, None).map_err(|m| Box::new(error_page(StatusCode::BAD_REQUEST, &m)))
}

/// The link to a capture's page.
pub(crate) fn capture_href(url: &str, timestamp: &str) -> String {
    format!("/capture?url={}&ts={timestamp}", encode_component(url))
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
        let cut = if by_url.len() > PAGE_ROWS {
            " (first 2,000 shown)"
        } else {
            ""
        };
        page(
            "Search",
            html! {
                (search_form())
                p { (by_url.len()) " URLs" (cut) " match " code { (url) } "." }
                table {
                    tr { th { "URL" } th { "captures" } th { "first" } th { "last" } }
                    @for (found, (count, first, last)) in by_url.iter().take(PAGE_ROWS) {
                        tr {
                            td class="term" {
                                a href={ "/timeline?url=" (encode_component(found)) } { (found) }
                            }
                            td { (count) }
                            td { (http_date(first)) }
                            td { (http_date(last)) }
                        }
                    }
                }
            },
        )
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

/// One row of a timeline: what the page shows of a capture.
struct TimelineRow<'a> {
    timestamp: &'a str,
    class: &'a str,
    link: String,
    status: String,
    statements: String,
    /// The timestamp of the last earlier capture with a graph, when this one can be diffed.
    diff_from: Option<String>,
    detail: String,
}

fn timeline_page(state: &AppState, url: &str) -> Response {
    let entries = match history_until(&state.archive, url, &super::abandon::abandoned) {
        Ok(entries) => entries,
        Err(error) => return error_page(StatusCode::NOT_FOUND, &error.to_string()),
    };
    if super::abandon::abandoned() {
        tracing::info!(
            url,
            captures_read = entries.len(),
            "timeline stopped: its answer was given up"
        );
        return super::too_slow(state.limits.request_time);
    }
    let mut rows = Vec::new();
    let mut changes = 0;
    let mut previous_graph: Option<String> = None;
    for entry in entries.iter().take(PAGE_ROWS) {
        let capture = &entry.capture;
        if matches!(entry.change, HistoryChange::Changed) {
            changes += 1;
        }
        let diff_from = match entry.change {
            HistoryChange::Changed | HistoryChange::SameGraph => previous_graph.clone(),
            _ => None,
        };
        rows.push(TimelineRow {
            timestamp: &capture.timestamp,
            class: entry.change.label(),
            link: capture_href(&capture.url, &capture.timestamp),
            status: capture.status.map_or("-".into(), |s| s.to_string()),
            statements: entry.statements.map_or("-".into(), |n| n.to_string()),
            diff_from,
            detail: match &entry.change {
                HistoryChange::Redirect(target) => format!("→ {target}"),
                HistoryChange::NoGraph(reason) => reason.clone(),
                HistoryChange::Unreadable(error) => {
                    tracing::warn!(url = %capture.url, timestamp = %capture.timestamp, %error,
                        "could not read the archive");
                    if state.public {
                        "the archived record could not be read".to_string()
                    } else {
                        error.clone()
                    }
                }
                _ => String::new(),
            },
        });
        if entry.graph_hash.is_some() {
            previous_graph = Some(capture.timestamp.clone());
        }
    }
    let encoded = encode_component(url);
    let chart = statements_chart(&entries[..entries.len().min(PAGE_ROWS)], &rows, &encoded);
    page(
        "Timeline",
        html! {
            p class="summary" {
                code { (url) } ": " (entries.len()) " captures, " (changes) " graph changes. "
                a href={ "/calendar?url=" (encoded) } { "calendar" } " · "
                a href={ "/timemap/link/" (url) } { "TimeMap" }
            }
            @if let Some(chart) = chart {
                h2 { "Statements over time" }
                (chart)
            }
            h2 { "Captures" }
            div class="strip" {
                @for row in &rows {
                    a class=(row.class) href=(row.link) title={ (row.timestamp) " " (row.class) } {}
                }
            }
            table id="timeline" {
                tr {
                    th { "captured" } th { "status" } th { "change" } th { "statements" } th {} th {}
                }
                @for row in &rows {
                    tr class=(row.class) {
                        td { a href=(row.link) { (http_date(row.timestamp)) } }
                        td { (row.status) }
                        td { (row.class) }
                        td { (row.statements) }
                        td {
                            @if let Some(before) = &row.diff_from {
                                a class="diff"
                                    href={ "/diff?url=" (encoded) "&from=" (before) "&to=" (row.timestamp) }
                                    { "diff" }
                            }
                        }
                        td { (row.detail) }
                    }
                }
            }
        },
    )
}

/// The statements of each capture with a graph over time, one point each; the points where
/// the graph changed are marked and link to the diff with the capture before, the others to
/// their capture page. `None` when no capture has a graph.
fn statements_chart(
    entries: &[ldwarc_timetravel::replay::HistoryEntry],
    rows: &[TimelineRow<'_>],
    encoded: &str,
) -> Option<Markup> {
    let day = |micros: i64| micros as f64 / 86_400e6;
    let mut marks = Vec::new();
    for (entry, row) in entries.iter().zip(rows) {
        let Some(statements) = entry.statements else {
            continue;
        };
        let changed = matches!(entry.change, HistoryChange::Changed);
        let href = match (&row.diff_from, changed) {
            (Some(before), true) => {
                format!("/diff?url={encoded}&from={before}&to={}", row.timestamp)
            }
            _ => row.link.clone(),
        };
        marks.push(svg::Mark {
            x: day(entry.capture.time_micros),
            y: statements as f64,
            title: format!(
                "{}: {statements} statements{}",
                http_date(row.timestamp),
                if changed {
                    ", graph changed (diff)"
                } else {
                    ""
                }
            ),
            href: Some(href),
            class: if changed { "changed" } else { "" },
        });
    }
    if marks.is_empty() {
        return None;
    }
    let mut chart = svg::Chart::new(
        "statements-chart",
        "Statements over time",
        "captured (UTC)",
        "statements",
    );
    chart.description = format!(
        "{} captures with a graph; {} marked where the graph changed, each linking to its diff.",
        marks.len(),
        marks.iter().filter(|m| m.class == "changed").count()
    );
    chart.fit_x(marks.iter().map(|m| m.x));
    chart.fit_y_from_zero(marks.iter().map(|m| m.y));
    chart.x_ticks = svg::date_ticks(chart.x_range, 5);
    chart.layers.push(svg::Layer::Line(
        "",
        marks.iter().map(|m| (m.x, m.y)).collect(),
    ));
    // The changes on top: a capture moments after a change would hide it.
    let changes = marks
        .iter()
        .filter(|m| m.class == "changed")
        .cloned()
        .collect();
    chart.layers.push(svg::Layer::Points(marks));
    chart.layers.push(svg::Layer::Overlay(changes));
    Some(chart.render())
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
fn header_rows(archived: &ArchivedResponse) -> Markup {
    html! {
        @for (name, value) in &archived.head.headers {
            tr { th { (name) } td class="term" { (value) } }
        }
    }
}

/// Links to the previous and next mementos of the set, for stepping through captures.
fn capture_navigation(set: &MementoSet, capture: &Capture) -> Markup {
    let Some(position) = set.position_of(&capture.timestamp) else {
        return html! {};
    };
    let link = |index: Option<usize>, label: &str, rel: &str| {
        let other = index.and_then(|i| set.captures.get(i));
        html! {
            @if let Some(other) = other {
                a rel=(rel) href=(capture_href(&set.url, &other.timestamp)) {
                    (label) " " (http_date(&other.timestamp))
                }
            }
        }
    };
    html! {
        p class="captures" {
            (link(position.checked_sub(1), "←", "prev"))
            " " span { "capture " (position + 1) " of " (set.captures.len()) } " "
            (link(Some(position + 1), "→", "next"))
        }
    }
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
    let graph = &parsed.graph;
    // A document with named graphs is offered only in the syntaxes that keep them.
    let syntaxes: Vec<&OutputFormat> = OutputFormat::ALL
        .iter()
        .filter(|f| f.has_graphs() || !graph.has_named_graphs())
        .collect();
    let status = revisit
        .unwrap_or(archived)
        .head
        .status
        .map_or("-".into(), |s| s.to_string());
    let encoded = encode_component(&capture.url);
    let body = html! {
        (capture_navigation(set, capture))
        @if let Some(error) = &parsed.error {
            p class="warning" {
                strong { "This payload does not parse whole" } " as " (parsed.syntax.name())
                ": " (error) ". The statements before the error are shown."
            }
        }
        @if revisit.is_some() {
            p class="revisit" {
                "A revisit: the server answered " strong { "304 Not Modified" }
                ", so the document was unchanged since "
                @if let Some(original) = capture.refers_to_timestamp.as_deref() {
                    "the capture of " a href=(capture_href(&set.url, original)) { (http_date(original)) }
                } @else {
                    "an earlier capture"
                }
                "; its statements are shown."
            }
        }
        p {
            code { (capture.url) } " as captured " (http_date(&capture.timestamp)) " (HTTP "
            (status) ", " (parsed.syntax.name()) ", " (graph.len()) " statements)."
        }
        p {
            "Other syntaxes: "
            @for (n, format) in syntaxes.iter().enumerate() {
                @if n > 0 { " " }
                a href={ "/render?url=" (encoded) "&ts=" (capture.timestamp) "&format=" (format.name()) } {
                    (format.name())
                }
            }
            " · " a href=(set.memento_uri(&capture.timestamp, "id_")) { "archived bytes" }
            " · " a href={ "/timeline?url=" (encoded) } { "timeline" }
        }
        h2 { "Archived header fields" }
        table {
            (header_rows(revisit.unwrap_or(archived)))
            @if revisit.is_some() {
                tr { th colspan="2" { "header fields of the original" } }
                (header_rows(archived))
            }
        }
        h2 { "Statements" }
        table id="triples" {
            tr { th { "subject" } th { "predicate" } th { "object" } }
            @for quad in graph.quads().iter().take(PAGE_ROWS) {
                tr { @for term in quad.terms() { td class="term" { (graph.term(term)) } } }
            }
        }
        @if graph.len() > PAGE_ROWS {
            p class="cut" {
                "The first " (PAGE_ROWS) " of " (graph.len())
                " statements are shown; every one is in the syntaxes above."
            }
        }
    };
    document("Capture", body).into_string()
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
    let old_stamp = &old.resolution.capture.timestamp;
    let new_stamp = &new.resolution.capture.timestamp;
    let sides = [
        ("removed", "−", &changes.removed),
        ("added", "+", &changes.added),
    ];
    page(
        "Diff",
        html! {
            p class="summary" {
                code { (url) } " from " (http_date(old_stamp)) " to " (http_date(new_stamp)) ": "
                (changes.removed_count()) " removed, " (changes.added_count()) " added, "
                (changes.unchanged) " unchanged."
            }
            p { a href={ "/timeline?url=" (encode_component(url)) } { "timeline" } }
            table id="diff" {
                tr { th {} th { "subject" } th { "predicate" } th { "object" } }
                @for (class, sign, quads) in sides {
                    @for quad in quads.iter().take(PAGE_ROWS) {
                        tr class=(class) {
                            td { (sign) }
                            @for term in quad.terms() { td class="term" { (term) } }
                        }
                    }
                }
            }
        },
    )
}

/// Figures of the whole archive, computed once.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overview {
    /// Captures in the index when computed: the figures are recomputed when it differs.
    key: u64,
    captures: usize,
    documents: usize,
    /// PLD → (documents, captures).
    plds: BTreeMap<String, (usize, usize)>,
    /// `YYYY-MM` → (captures, changes).
    months: BTreeMap<String, (usize, usize)>,
}

impl Overview {
    fn compute(state: &AppState) -> std::io::Result<Overview> {
        let mut overview = Overview {
            key: state.archive.merged_index().len(),
            ..Overview::default()
        };
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

/// The overview's figures of the index as it is: computed again when the index changed.
fn current_overview(state: &AppState) -> std::io::Result<std::sync::Arc<Overview>> {
    let key = state.archive.merged_index().len();
    let cached = state
        .overview
        .lock()
        .map_or_else(|p| p.into_inner().clone(), |o| o.clone());
    if let Some(overview) = cached.filter(|o| o.key == key) {
        return Ok(overview);
    }
    let computed = std::sync::Arc::new(Overview::compute(state)?);
    if let Ok(mut slot) = state.overview.lock() {
        *slot = Some(computed.clone());
    }
    Ok(computed)
}

/// `GET /overview`.
pub(crate) async fn overview(State(state): State<AppStateRef>) -> Response {
    let figures = super::aggregates::current(&state);
    blocking(&state, move |state| {
        let overview = match current_overview(state) {
            Ok(overview) => overview,
            Err(e) => return error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        };
        let mut plds: Vec<(&String, &(usize, usize))> = overview.plds.iter().collect();
        plds.sort_by(|a, b| b.1.1.cmp(&a.1.1).then(a.0.cmp(b.0)));
        let month_rows = &overview.months;
        page(
            "Overview",
            html! {
                p class="summary" {
                    (overview.plds.len()) " pay-level domains, " (overview.documents)
                    " documents, " (overview.captures) " captures."
                }
                (super::chart_pages::overview_charts(&figures))
                h2 { "Pay-level domains" }
                table {
                    tr { th { "PLD" } th { "documents" } th { "captures" } th { "URLs" } }
                    @for (pld, (documents, captures)) in plds.iter().take(PAGE_ROWS) {
                        tr {
                            td { a href={ "/pld?name=" (encode_component(pld)) } { (pld) } }
                            td { (documents) }
                            td { (captures) }
                            td {
                                a href={ "/search?url=" (encode_component(&format!("http://{pld}/"))) "&match=prefix" } {
                                    "search"
                                }
                            }
                        }
                    }
                }
                h2 { "Over time" }
                table {
                    tr { th { "month" } th { "captures" } th { "changed payloads" } }
                    @for (month, (captures, changes)) in month_rows {
                        tr { td { (month) } td { (captures) } td { (changes) } }
                    }
                }
            },
        )
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_in_text_and_attributes() {
        let hostile = "<script>\"&'";
        let html = error_page_body(hostile);
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;&quot;&amp;'"), "{html}");
        let link = html! { a href=(capture_href(hostile, "2024")) { (hostile) } }.into_string();
        assert!(
            link.starts_with("<a href=\"/capture?url=%3Cscript%3E"),
            "{link}"
        );
        assert!(link.contains("&amp;ts=2024\">&lt;script&gt;"), "{link}");
    }

    fn error_page_body(message: &str) -> String {
        document("Not available", html! { p { (message) } }).into_string()
    }
}
