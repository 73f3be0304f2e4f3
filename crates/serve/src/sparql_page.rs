//! `/sparql` in a browser: a request whose `Accept` prefers `text/html` gets a query form (a
//! query, a date, example queries) and, with a query, its results as a table whose IRIs link
//! to the mementos, at the query's date, of the archived documents they name (an IRI with a
//! fragment names the document without it). The query runs exactly as the API runs it — the
//! same checks, the same worker process with the same memory share, time limit and number
//! of workers at once — and the page shows at most [`HTML_ROWS`] results (the worker is
//! stopped past them, and the page says the table was cut).

use std::collections::HashMap;
use std::time::Instant;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use maud::{Markup, html};

use ldwarc_timetravel::replay::ReplayDate;
use ldwarc_timetravel::sparql::worker::{WorkerEnd, WorkerLimits, run_worker};
use ldwarc_timetravel::sparql::{GraphSyntax, ResultsFormat};

use super::memento::accept_ranges;
use super::pages::{error_page, page};
use super::sparql::{
    MAX_WORKERS, Params, Refused, SPARQL_SHARE, WorkerSlot, date_of, graph, query_form, results,
    worker_command, worker_outcome,
};
use super::{AppState, State};

/// Most results a page shows.
pub(crate) const HTML_ROWS: usize = 1_000;

/// Example queries offered on the form: (what it shows, the query).
const EXAMPLES: &[(&str, &str)] = &[
    (
        "Ten statements",
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 10",
    ),
    (
        "Statements per document",
        "SELECT ?document (COUNT(*) AS ?statements)\nWHERE { GRAPH ?document { ?s ?p ?o } }\nGROUP BY ?document\nORDER BY DESC(?statements)\nLIMIT 50",
    ),
    (
        "Classes and their instances",
        "SELECT ?class (COUNT(DISTINCT ?x) AS ?instances)\nWHERE { ?x a ?class }\nGROUP BY ?class\nORDER BY DESC(?instances)\nLIMIT 50",
    ),
    (
        "Labels",
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nSELECT ?thing ?label WHERE { ?thing rdfs:label ?label } LIMIT 100",
    ),
];

/// The types `/sparql` answers in (results and graphs).
const ANSWERED: &[&str] = &[
    "application/sparql-results+json",
    "application/json",
    "application/sparql-results+xml",
    "application/xml",
    "text/csv",
    "text/tab-separated-values",
    "application/n-triples",
    "text/turtle",
    "text/plain",
];

/// Whether the client prefers an HTML page to every SPARQL results and RDF type: it names
/// `text/html` (or XHTML) with a weight above that of every type `/sparql` answers in that it
/// names (`*/*` and `text/*` included), as browsers do.
pub(crate) fn wants_html(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut html = 0;
    let mut other = 0;
    for (range, weight) in accept_ranges(accept) {
        if range == "text/html" || range == "application/xhtml+xml" {
            html = html.max(weight);
        } else if range == "*/*" || range == "text/*" || ANSWERED.contains(&range.as_str()) {
            other = other.max(weight);
        }
    }
    html > 0 && html > other
}

/// The form, or a query's results under it.
pub(crate) async fn answer(state: State, params: Params) -> Response {
    let at_text = params.at.clone().unwrap_or_default();
    let form = |query: &str| query_form_markup(query, &at_text);
    let refuse = |status: StatusCode, query: &str, message: &str| {
        let mut response = page(
            "SPARQL",
            html! {
                p class="warning" role="alert" { (message) }
                (form(query))
            },
        );
        *response.status_mut() = status;
        response
    };
    if let Some(name) = &params.unsupported {
        return refuse(
            StatusCode::BAD_REQUEST,
            "",
            &format!("{name} is not supported: the dataset is the archive at a date"),
        );
    }
    let text = match params.queries.as_slice() {
        [] => return page("SPARQL", form("")),
        [text] => text.clone(),
        _ => return refuse(StatusCode::BAD_REQUEST, "", "more than one query"),
    };
    // An empty date field is "now", as no date is.
    let mut dated = Params {
        at: params.at.clone().filter(|at| !at.trim().is_empty()),
        ..Params::default()
    };
    dated.scope = params.scope.clone();
    let date = match date_of(&dated, &HeaderMap::new()) {
        Ok(date) => date,
        Err(message) => return refuse(StatusCode::BAD_REQUEST, &text, &message),
    };
    let scope = match dated.scope() {
        Ok(scope) => scope,
        Err(message) => return refuse(StatusCode::BAD_REQUEST, &text, &message),
    };
    let query_kind = match query_form(&text).await {
        Ok(kind) => kind,
        Err(Refused::Client(message)) => return refuse(StatusCode::BAD_REQUEST, &text, &message),
        Err(Refused::Server(message)) => {
            return refuse(StatusCode::INTERNAL_SERVER_ERROR, &text, &message);
        }
        Err(Refused::Panicked) => return super::panics::internal_error(),
    };
    let returns_graph = query_kind.returns_graph();
    let Some(program) = state.sparql_worker.clone() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &text,
            "this server cannot run SPARQL queries: it found no program to run them with",
        );
    };
    let Some(slot) = WorkerSlot::take(&state) else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &text,
            &format!(
                "the server is answering as many SPARQL queries as it runs at once ({MAX_WORKERS}): retry later"
            ),
        );
    };
    let share = state.budget.limit() / SPARQL_SHARE;
    let Some(reservation) = state.budget.reserve(share) else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            &text,
            "the server's memory budget has no room for another SPARQL query now: retry later",
        );
    };
    let output = if returns_graph {
        graph(GraphSyntax::NTriples)
    } else {
        results(ResultsFormat::Tsv)
    };
    let command = worker_command(&program, &state.roots, &date, &scope, output, returns_graph);
    let limits = WorkerLimits {
        memory: share as u64,
        deadline: Some(Instant::now() + state.limits.request_time),
        abandoned: None,
    };
    let request_time = state.limits.request_time;
    let query = text.clone();
    let request = super::panics::current_request();
    let ran = tokio::task::spawn_blocking(move || {
        super::panics::caught(&request, || {
            let _held = (slot, reservation);
            let mut out: Vec<u8> = Vec::new();
            // A header line (SELECT) and the rows shown, and one more to know there were more.
            let wanted = HTML_ROWS + 2;
            let end = run_worker(command, query.as_bytes(), &limits, &mut |chunk| {
                out.extend_from_slice(chunk);
                out.iter().filter(|b| **b == b'\n').count() < wanted
            });
            (end, out)
        })
    })
    .await;
    let (end, out) = match ran {
        Ok(Some(done)) => done,
        Ok(None) | Err(_) => return super::panics::internal_error(),
    };
    let cut = match end {
        Ok(WorkerEnd::Abandoned) => true,
        Ok(end) => match worker_outcome(end, share, request_time, &text) {
            Ok(()) => false,
            Err(failure) => return refuse(failure.status, &text, failure.message.trim_end()),
        },
        Err(error) => {
            tracing::error!(%error, "could not start a SPARQL worker");
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
        }
    };
    let body = String::from_utf8_lossy(&out);
    let table = if returns_graph {
        Table::from_ntriples(&body)
    } else {
        Table::from_tsv(&body)
    };
    let form = form(&text);
    // The links need an index lookup per distinct document: blocking work.
    super::blocking(&state, move |state| {
        let mut links = Links::new(state, &date);
        page(
            "SPARQL",
            html! {
                (form)
                h2 id="results" { "Results" }
                (table.render(&mut links, cut))
            },
        )
    })
    .await
}

/// The query form: the query, the date, the submit button and the example queries (links
/// that fill the form, so they work without scripts).
fn query_form_markup(query: &str, at: &str) -> Markup {
    html! {
        form id="sparql-form" action="/sparql" method="get" {
            label for="query" { "Query (SPARQL 1.1; the default graph is every document, "
                "each document also a named graph)" }
            textarea id="query" name="query" rows="10" required { (query) }
            label for="at" { "Date (the dataset as it stood then: 2024, 2024-03-15, "
                "20240315120000; empty: now)" }
            input id="at" name="at" type="text" value=(at) size="24" inputmode="numeric";
            " "
            button type="submit" { "Run query" }
        }
        details open[query.is_empty()] {
            summary { "Example queries" }
            ul class="examples" {
                @for (what, example) in EXAMPLES {
                    li {
                        a href={ "/sparql?query=" (super::replay::encode_component(example)) } { (what) }
                        pre { code { (example) } }
                    }
                }
            }
        }
    }
}

/// One term of a result, as the worker wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Iri(String),
    Other(String),
    Unbound,
}

impl Term {
    fn parse(text: &str) -> Term {
        let text = text.trim();
        if text.is_empty() {
            Term::Unbound
        } else if let Some(iri) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
            Term::Iri(iri.to_string())
        } else {
            Term::Other(unescape(text))
        }
    }
}

/// TSV's and N-Triples' escapes of a literal, undone for reading (`\t`, `\n`, `\r`, `\\`).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Results as a table.
#[derive(Debug, PartialEq, Eq)]
struct Table {
    head: Vec<String>,
    rows: Vec<Vec<Term>>,
    /// An ASK answer.
    boolean: Option<bool>,
}

impl Table {
    /// SPARQL TSV results: a header of `?variables`, then one row per solution (an ASK
    /// answer is one line, `true` or `false`).
    fn from_tsv(body: &str) -> Table {
        let mut lines = body.lines();
        let first = lines.next().unwrap_or("");
        let trimmed = first.trim();
        if trimmed == "true" || trimmed == "false" {
            return Table {
                head: Vec::new(),
                rows: Vec::new(),
                boolean: Some(trimmed == "true"),
            };
        }
        let head: Vec<String> = first
            .split('\t')
            .filter(|h| !h.is_empty())
            .map(|h| h.trim_start_matches('?').to_string())
            .collect();
        let rows = lines
            .take(HTML_ROWS)
            .map(|line| line.split('\t').map(Term::parse).collect())
            .collect();
        Table {
            head,
            rows,
            boolean: None,
        }
    }

    /// N-Triples: one statement a line, subject, predicate and object.
    fn from_ntriples(body: &str) -> Table {
        let rows = body
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .take(HTML_ROWS)
            .map(|line| {
                let line = line.trim();
                let line = line.strip_suffix('.').unwrap_or(line).trim_end();
                let mut parts = line.splitn(3, ' ');
                let subject = parts.next().unwrap_or("");
                let predicate = parts.next().unwrap_or("");
                let object = parts.next().unwrap_or("");
                vec![
                    Term::parse(subject),
                    Term::parse(predicate),
                    Term::parse(object),
                ]
            })
            .collect();
        Table {
            head: vec!["subject".into(), "predicate".into(), "object".into()],
            rows,
            boolean: None,
        }
    }

    fn render(&self, links: &mut Links<'_>, cut: bool) -> Markup {
        if let Some(answer) = self.boolean {
            return html! { p class="answer" { "Answer: " strong { (answer) } } };
        }
        html! {
            p class="summary" {
                (self.rows.len()) " results"
                @if cut { " (the first " (HTML_ROWS) " are shown: narrow the query or use the API)" }
                "."
            }
            table id="sparql-results" {
                tr { @for name in &self.head { th scope="col" { (name) } } }
                @for row in &self.rows {
                    tr {
                        @for term in row {
                            td class="term" {
                                @match term {
                                    Term::Iri(iri) => {
                                        @if let Some(href) = links.href(iri) {
                                            a href=(href) { (iri) }
                                        } @else {
                                            (iri)
                                        }
                                    }
                                    Term::Other(text) => (text),
                                    Term::Unbound => {}
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Links from IRIs to the mementos of the documents they name, at the query's date: only
/// for documents the archive holds (one index lookup per distinct document).
struct Links<'a> {
    state: &'a AppState,
    timestamp: String,
    known: HashMap<String, bool>,
}

impl<'a> Links<'a> {
    fn new(state: &'a AppState, date: &ReplayDate) -> Self {
        Links {
            state,
            timestamp: date.timestamp(),
            known: HashMap::new(),
        }
    }

    fn href(&mut self, iri: &str) -> Option<String> {
        let document = iri.split('#').next().unwrap_or(iri);
        if !(document.starts_with("http://") || document.starts_with("https://")) {
            return None;
        }
        let state = self.state;
        let archived = *self
            .known
            .entry(document.to_string())
            .or_insert_with(|| state.captures(document).is_ok_and(|c| !c.is_empty()));
        archived.then(|| format!("/web/{}/{document}", self.timestamp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, value.parse().unwrap());
        headers
    }

    #[test]
    fn browsers_get_html_and_clients_their_results() {
        assert!(wants_html(&accept(
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
        )));
        assert!(wants_html(&accept("text/html")));
        assert!(!wants_html(&accept("*/*")));
        assert!(!wants_html(&accept("application/sparql-results+json")));
        assert!(!wants_html(&accept(
            "application/sparql-results+json, text/html;q=0.5"
        )));
        assert!(!wants_html(&HeaderMap::new()));
    }

    #[test]
    fn tsv_and_ntriples_become_tables() {
        let table = Table::from_tsv(
            "?s\t?label\n<http://e.org/a#x>\t\"tab\\there\"@en\n<http://e.org/b>\t\n",
        );
        assert_eq!(table.head, vec!["s", "label"]);
        assert_eq!(
            table.rows,
            vec![
                vec![
                    Term::Iri("http://e.org/a#x".into()),
                    Term::Other("\"tab\there\"@en".into())
                ],
                vec![Term::Iri("http://e.org/b".into()), Term::Unbound],
            ]
        );
        assert_eq!(Table::from_tsv("true\n").boolean, Some(true));
        let graph = Table::from_ntriples(
            "<http://e.org/a> <http://e.org/p> \"a b .\" .\n_:b0 <http://e.org/p> <http://e.org/c> .\n",
        );
        assert_eq!(graph.rows.len(), 2);
        assert_eq!(graph.rows[0][2], Term::Other("\"a b .\"".into()));
        assert_eq!(graph.rows[1][0], Term::Other("_:b0".into()));
    }
}
