//! Triple Pattern Fragments (the Linked Data Fragments interface) over the versioned triple
//! index, Memento-enabled as the Linked Data Fragments server is:
//!
//! | path | what |
//! |---|---|
//! | `/tpf?subject=&predicate=&object=&page=` | the fragment as the archive holds it now; its `Link` names the TimeGate |
//! | `/tpf/timegate?…` | the TimeGate: `Accept-Datetime` → 302 to the dated fragment |
//! | `/tpf/{14-digit timestamp}?…` | the fragment at that date, with `Memento-Datetime` |
//! | `/tpf/{partial date}?…` | 302 to the dated fragment at the end of that period |
//!
//! A dated fragment's date is the time of the latest capture at or before the date asked
//! for (the dataset changes only at captures), so every date between two captures shares one
//! memento. Each page carries the data (the matching triples of the union of the documents,
//! each once), the metadata (`hydra:totalItems`, `void:triples`) and the controls (a
//! `hydra:search` form with a `hydra:IriTemplate`, `hydra:first`/`next`/`previous`). In the
//! syntaxes with named graphs the metadata and controls are in the graph `<page#metadata>`,
//! whose `foaf:primaryTopic` is the fragment, so clients tell them from the data.
//!
//! Blank nodes are answered as skolem IRIs under `{base}/.well-known/genid/` naming their
//! capture (see `TripleIndex::at_skolemised`), and such IRIs in a request's subject or
//! object stand for their blank nodes, so clients join through blank nodes; one whose
//! capture is not the one in force at the fragment's date matches nothing (an empty
//! fragment).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use chrono::{DateTime, Utc};

use ldwarc_rdf::{Graph, OutputFormat, write_graph};
use ldwarc_timetravel::replay::{ReplayArchive, ReplayDate};
use ldwarc_timetravel::triples::{GENID_PATH, TripleIndex, TriplePattern, Unavailable, index_path};
use ldwarc_warc::time::{parse_wayback_timestamp, wayback_timestamp};

use super::memento::{asked_datetime_or_400, format_http_date};
use super::{AppState, State as AppStateRef, base_url, blocking, text_response};

/// Triples per page, as the Linked Data Fragments server pages.
pub(crate) const PAGE_SIZE: usize = 100;

const HYDRA: &str = "http://www.w3.org/ns/hydra/core#";
const VOID: &str = "http://rdfs.org/ns/void#";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
const FOAF_PRIMARY_TOPIC: &str = "http://xmlns.com/foaf/0.1/primaryTopic";

/// The indexes read, with their files' modification times when read.
type Loaded = (Vec<Option<SystemTime>>, Arc<Vec<TripleIndex>>);

/// The triple indexes of the served roots, read when first asked for and again when a
/// root's index file changes (`ldwarc index --triples` run meanwhile).
#[derive(Default)]
pub(crate) struct TripleIndexes {
    roots: Vec<PathBuf>,
    loaded: Mutex<Option<Loaded>>,
}

impl TripleIndexes {
    /// The indexes of `roots` (none read yet).
    pub(crate) fn new(roots: Vec<PathBuf>) -> Self {
        TripleIndexes {
            roots,
            loaded: Mutex::new(None),
        }
    }

    /// The indexes, read again when a file changed, or the status and message of the
    /// refusal. The message names no file of the server: a missing index is 404 with
    /// [`Unavailable::Missing`]; a damaged one is logged with its path and answered 500.
    fn load(&self) -> Result<Arc<Vec<TripleIndex>>, (StatusCode, String)> {
        let stamps: Vec<Option<SystemTime>> = self
            .roots
            .iter()
            .map(|root| {
                std::fs::metadata(index_path(root))
                    .and_then(|m| m.modified())
                    .ok()
            })
            .collect();
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((known, indexes)) = loaded.as_ref()
            && *known == stamps
        {
            return Ok(indexes.clone());
        }
        let mut indexes = Vec::new();
        for root in &self.roots {
            let index = match TripleIndex::open_if_built(root) {
                Ok(Some(index)) => index,
                Ok(None) => {
                    return Err((StatusCode::NOT_FOUND, Unavailable::Missing.to_string()));
                }
                Err(error) => {
                    tracing::error!(%error, "triple index not readable");
                    return Err((
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the triple index is not readable".to_string(),
                    ));
                }
            };
            tracing::info!(
                root = %root.display(),
                entries = index.entry_count(),
                terms = index.term_count(),
                bytes = index.memory_estimate(),
                "triple index read (held outside the memory budget)"
            );
            indexes.push(index);
        }
        let indexes = Arc::new(indexes);
        *loaded = Some((stamps, indexes.clone()));
        Ok(indexes)
    }

    /// The indexes when each covers every capture of its root's capture index as `archive`
    /// sees it; else the status and message of the refusal: 404 when one was never built,
    /// 503 when one is older than its capture index (the fragments would silently miss the
    /// captures indexed since). The messages name no file or command of the server.
    pub(crate) fn get(
        &self,
        archive: &ReplayArchive,
    ) -> Result<Arc<Vec<TripleIndex>>, (StatusCode, String)> {
        let indexes = self.load()?;
        let merged = archive.merged_index();
        for (root, index) in self.roots.iter().zip(indexes.iter()) {
            let Some(capture_index) = merged
                .roots()
                .zip(merged.indexes())
                .find_map(|(r, i)| (r == root.as_path()).then_some(i))
            else {
                continue;
            };
            match index.is_current_for(capture_index) {
                Ok(true) => {}
                Ok(false) => {
                    return Err((
                        StatusCode::SERVICE_UNAVAILABLE,
                        Unavailable::Stale.to_string(),
                    ));
                }
                Err(error) => {
                    tracing::error!(%error, "capture index not readable");
                    return Err((
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the capture index is not readable".to_string(),
                    ));
                }
            }
        }
        Ok(indexes)
    }

    /// Logs, at start-up, each root's triple index file and its size: the indexes are read
    /// when first asked for and held outside the memory budget (a few times the file's size).
    pub(crate) fn log_sizes(&self) {
        for root in &self.roots {
            let path = index_path(root);
            match std::fs::metadata(&path) {
                Ok(meta) => tracing::info!(
                    file = %path.display(),
                    bytes = meta.len(),
                    "triple index for /tpf and /sparql (held outside the memory budget once read)"
                ),
                Err(_) => tracing::info!(
                    root = %root.display(),
                    "no triple index: /tpf answers 404, /sparql replays the WARC files"
                ),
            }
        }
    }
}

/// `/tpf`: the fragment now.
pub(crate) async fn fragment(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let base = base_url(&headers, state.bind);
    blocking(&state, move |state| {
        let now = Utc::now().timestamp();
        answer(state, &headers, &base, &uri, None, now)
    })
    .await
}

/// `/tpf/timegate` and `/tpf/{timestamp}`.
pub(crate) async fn dated(
    State(state): State<AppStateRef>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let base = base_url(&headers, state.bind);
    let rest = uri.path().strip_prefix("/tpf/").unwrap_or("").to_string();
    blocking(&state, move |state| {
        if rest == "timegate" {
            return timegate(state, &headers, &base, &uri);
        }
        match dated_seconds(&rest) {
            Some(seconds) => answer(state, &headers, &base, &uri, Some(&rest), seconds),
            None => match ReplayDate::parse(&rest) {
                // A partial date (`2024`, `202402`, `2024-02`) stands for the end of its
                // period, as `snapshot @2024-02` and `sparql --at` read it: 302 to that
                // instant's dated fragment.
                Ok(date) => {
                    let location = format!(
                        "{base}/tpf/{}{}",
                        date.timestamp(),
                        query_suffix(&uri)
                    );
                    let mut response =
                        text_response(StatusCode::FOUND, &format!("{location}\n"));
                    insert(&mut response, header::LOCATION, &location);
                    response
                }
                Err(_) => text_response(
                    StatusCode::NOT_FOUND,
                    "a dated fragment is /tpf/{14-digit UTC timestamp} (a partial date such as 2024-02 redirects to the end of its period), the TimeGate /tpf/timegate\n",
                ),
            },
        }
    })
    .await
}

/// The instant of a 14-digit timestamp in a dated fragment's path.
fn dated_seconds(text: &str) -> Option<i64> {
    (text.len() == 14 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| parse_wayback_timestamp(text))
        .flatten()
        .filter(|t| wayback_timestamp(*t) == text)
        .map(|t| t.timestamp())
}

fn query_suffix(uri: &Uri) -> String {
    uri.query().map(|q| format!("?{q}")).unwrap_or_default()
}

fn insert(response: &mut Response, name: HeaderName, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

/// 302 to the dated fragment answering for `Accept-Datetime` (now when absent).
fn timegate(state: &AppState, headers: &HeaderMap, base: &str, uri: &Uri) -> Response {
    let asked = match asked_datetime_or_400(headers) {
        Ok(at) => at,
        Err(answer) => return *answer,
    };
    let indexes = match state.triples.get(&state.archive) {
        Ok(indexes) => indexes,
        Err((status, message)) => return text_response(status, &format!("{message}\n")),
    };
    let seconds = memento_seconds(&indexes, asked.timestamp());
    let Some(at) = DateTime::<Utc>::from_timestamp(seconds, 0) else {
        return text_response(StatusCode::BAD_REQUEST, "Accept-Datetime out of range\n");
    };
    let query = query_suffix(uri);
    let location = format!("{base}/tpf/{}{query}", wayback_timestamp(at));
    let mut response = text_response(StatusCode::FOUND, &format!("{location}\n"));
    insert(&mut response, header::LOCATION, &location);
    insert(&mut response, header::VARY, "accept-datetime");
    insert(
        &mut response,
        header::LINK,
        &format!("<{base}/tpf{query}>; rel=\"original\""),
    );
    response
}

/// The memento date for `asked`: the latest capture at or before it, or `asked` itself
/// when there was none yet (the empty dataset).
fn memento_seconds(indexes: &[TripleIndex], asked: i64) -> i64 {
    indexes
        .iter()
        .flat_map(|index| index.documents())
        .filter_map(|doc| {
            doc.version_at(asked)
                .map(|v| doc.versions[v as usize].seconds())
        })
        .max()
        .unwrap_or(asked)
}

/// The request's pattern and page.
struct Request {
    pattern: TriplePattern,
    page: usize,
    /// The pattern's parameters as given, for the page links.
    parameters: Vec<(&'static str, String)>,
}

fn parse_request(uri: &Uri) -> Result<Request, String> {
    let mut subject = None;
    let mut predicate = None;
    let mut object = None;
    let mut page = 1usize;
    for (name, value) in url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes()) {
        match name.as_ref() {
            "subject" => subject = Some(value.into_owned()),
            "predicate" => predicate = Some(value.into_owned()),
            "object" => object = Some(value.into_owned()),
            "page" => {
                page = value
                    .parse()
                    .ok()
                    .filter(|&p| p >= 1)
                    .ok_or_else(|| format!("page={value}: expected a page number from 1"))?;
            }
            _ => {}
        }
    }
    let pattern = TriplePattern::from_fragment_parameters(
        subject.as_deref(),
        predicate.as_deref(),
        object.as_deref(),
    )?;
    let parameters = [
        ("subject", subject),
        ("predicate", predicate),
        ("object", object),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.filter(|v| !v.is_empty()).map(|v| (name, v)))
    .collect();
    Ok(Request {
        pattern,
        page,
        parameters,
    })
}

/// Percent-encodes everything but the unreserved characters, as a URI Template's simple
/// expansion does, so that the page links are the URLs clients build from the template.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The request URL as an IRI: the few characters HTTP lets through in a request target but
/// an IRI forbids are percent-encoded (clients send these already encoded, so the page's URL
/// stays the one they asked for).
fn iri_safe(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c <= ' ' || matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '\\' | '^' | '`') {
            let mut bytes = [0u8; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn page_url(fragment: &str, parameters: &[(&str, String)], page: usize) -> String {
    let mut pairs: Vec<String> = parameters
        .iter()
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect();
    if page > 1 {
        pairs.push(format!("page={page}"));
    }
    if pairs.is_empty() {
        fragment.to_string()
    } else {
        format!("{fragment}?{}", pairs.join("&"))
    }
}

/// Answers one page of a fragment at `seconds`; `dated` is the memento's timestamp.
fn answer(
    state: &AppState,
    headers: &HeaderMap,
    base: &str,
    uri: &Uri,
    dated: Option<&str>,
    seconds: i64,
) -> Response {
    let request = match parse_request(uri) {
        Ok(request) => request,
        Err(message) => return text_response(StatusCode::BAD_REQUEST, &format!("{message}\n")),
    };
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    let offered = [
        OutputFormat::Turtle,
        OutputFormat::TriG,
        OutputFormat::NQuads,
        OutputFormat::NTriples,
        OutputFormat::JsonLd,
    ];
    let Some(format) = OutputFormat::negotiate(accept, &offered) else {
        let types: Vec<&str> = offered.iter().map(|f| f.media_type()).collect();
        return text_response(
            StatusCode::NOT_ACCEPTABLE,
            &format!("fragments are available as {}\n", types.join(", ")),
        );
    };
    let indexes = match state.triples.get(&state.archive) {
        Ok(indexes) => indexes,
        Err((status, message)) => return text_response(status, &format!("{message}\n")),
    };
    let triples = matching_triples(&indexes, &request.pattern, seconds, base);
    let dataset = match dated {
        Some(stamp) => format!("{base}/tpf/{stamp}"),
        None => format!("{base}/tpf"),
    };
    let this_page = iri_safe(&format!(
        "{base}{}",
        uri.path_and_query().map_or("/tpf", |p| p.as_str())
    ));
    let page = Page {
        dataset: &dataset,
        fragment: page_url(&dataset, &request.parameters, 1),
        this_page,
        request: &request,
        total: triples.len(),
        metadata_graph: format.has_graphs(),
    };
    let graph = page.graph(&triples);
    let mut body = Vec::new();
    if let Err(error) = write_graph(&graph, format, None, &mut body) {
        return text_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{error}\n"));
    }
    let mut response = super::response(
        StatusCode::OK,
        &format!("{}; charset=utf-8", format.media_type()),
        body,
    );
    let query = query_suffix(uri);
    insert(&mut response, header::VARY, "accept");
    match dated {
        None => insert(
            &mut response,
            header::LINK,
            &format!("<{base}/tpf/timegate{query}>; rel=\"timegate\""),
        ),
        Some(_) => {
            let at = DateTime::<Utc>::from_timestamp(seconds, 0).unwrap_or_default();
            insert(
                &mut response,
                HeaderName::from_static("memento-datetime"),
                &format_http_date(at),
            );
            insert(
                &mut response,
                header::LINK,
                &format!(
                    "<{base}/tpf{query}>; rel=\"original\", <{base}/tpf/timegate{query}>; rel=\"timegate\""
                ),
            );
        }
    }
    response
}

/// The triples matching at `seconds` in any document of any root, each once, in index
/// order, blank nodes as skolem IRIs under `{base}/.well-known/genid/` (clients joining
/// through a blank node ask the next pattern with that IRI, which stands for it again).
fn matching_triples(
    indexes: &[TripleIndex],
    pattern: &TriplePattern,
    seconds: i64,
    base: &str,
) -> Vec<[String; 3]> {
    let prefix = format!("{base}{GENID_PATH}");
    let mut seen = HashSet::new();
    let mut triples = Vec::new();
    for index in indexes {
        for found in index.at_skolemised(pattern, seconds, &prefix) {
            if seen.insert(found.clone()) {
                triples.push(found);
            }
        }
    }
    triples
}

/// One page of a fragment: where it is and what it holds.
struct Page<'a> {
    dataset: &'a str,
    fragment: String,
    this_page: String,
    request: &'a Request,
    total: usize,
    metadata_graph: bool,
}

impl Page<'_> {
    /// The page's data, metadata and controls as one graph.
    fn graph(&self, triples: &[[String; 3]]) -> Graph {
        let mut graph = Graph::new();
        let start = (self.request.page - 1).saturating_mul(PAGE_SIZE);
        for [s, p, o] in triples.iter().skip(start).take(PAGE_SIZE) {
            graph.insert_spelled(s, p, o, None);
        }
        let metadata = format!("<{}#metadata>", self.this_page);
        let name = self.metadata_graph.then_some(metadata.as_str());
        let mut add = |s: &str, p: &str, o: &str| {
            graph.insert_spelled(s, p, o, name);
        };
        let iri = |text: &str| format!("<{text}>");
        let dataset = iri(&format!("{}#dataset", self.dataset));
        let fragment = iri(&self.fragment);
        let page = iri(&self.this_page);
        let hydra = |local: &str| format!("<{HYDRA}{local}>");
        let void = |local: &str| format!("<{VOID}{local}>");
        let rdf_type = format!("<{RDF}type>");
        if self.metadata_graph {
            add(&metadata, &format!("<{FOAF_PRIMARY_TOPIC}>"), &fragment);
        }
        // The dataset and its search form (the controls).
        add(&dataset, &rdf_type, &void("Dataset"));
        add(&dataset, &rdf_type, &hydra("Collection"));
        add(&dataset, &void("subset"), &fragment);
        add(&dataset, &hydra("search"), "_:search");
        let template = format!("\"{}{{?subject,predicate,object}}\"", self.dataset);
        add("_:search", &hydra("template"), &template);
        add(
            "_:search",
            &hydra("variableRepresentation"),
            &hydra("ExplicitRepresentation"),
        );
        for (node, variable) in [
            ("_:subject", "subject"),
            ("_:predicate", "predicate"),
            ("_:object", "object"),
        ] {
            add("_:search", &hydra("mapping"), node);
            add(node, &hydra("variable"), &format!("\"{variable}\""));
            add(node, &hydra("property"), &format!("<{RDF}{variable}>"));
        }
        // The fragment and this page (the metadata); the page last, so that a client
        // looking for what `void:subset` this page finds the fragment.
        let count = format!("\"{}\"^^<{XSD_INTEGER}>", self.total);
        add(&fragment, &rdf_type, &hydra("PartialCollectionView"));
        add(&fragment, &hydra("totalItems"), &count);
        add(&fragment, &void("triples"), &count);
        let pages = self.total.div_ceil(PAGE_SIZE).max(1);
        let link = |n: usize| iri(&page_url(self.dataset, &self.request.parameters, n));
        add(&page, &hydra("first"), &link(1));
        if self.request.page > 1 {
            add(
                &page,
                &hydra("previous"),
                &link((self.request.page - 1).min(pages)),
            );
        }
        if self.request.page < pages {
            add(&page, &hydra("next"), &link(self.request.page + 1));
        }
        add(&page, &hydra("totalItems"), &count);
        add(&page, &void("triples"), &count);
        add(&fragment, &void("subset"), &page);
        graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_links_encode_as_uri_templates_do() {
        let parameters = vec![
            ("subject", "http://e.org/a b".to_string()),
            (
                "object",
                "\"x\"^^http://www.w3.org/2001/XMLSchema#integer".to_string(),
            ),
        ];
        assert_eq!(
            page_url("http://h/tpf", &parameters, 2),
            "http://h/tpf?subject=http%3A%2F%2Fe.org%2Fa%20b&object=%22x%22%5E%5Ehttp%3A%2F%2Fwww.w3.org%2F2001%2FXMLSchema%23integer&page=2"
        );
        assert_eq!(page_url("http://h/tpf", &[], 1), "http://h/tpf");
    }

    #[test]
    fn dated_paths_take_exact_timestamps_only() {
        assert_eq!(dated_seconds("20240301060000"), Some(1_709_272_800));
        assert_eq!(dated_seconds("2024030106000"), None);
        assert_eq!(dated_seconds("20241301060000"), None);
        assert_eq!(dated_seconds("timegat3000000"), None);
    }
}
