//! `/sparql`: the SPARQL 1.1 Protocol over the dataset as it stood at a date — the documents
//! `ldwarc snapshot` selects, each a named graph, the default graph their union. The query comes
//! as `GET ?query=`, as a `POST` body of `application/sparql-query`, or as a form-encoded
//! `POST` body; the date as `?at=` (any replay date form) or `Accept-Datetime` (else now); the
//! scope as `?prefix=`, `?host=` or `?domain=`. Results are negotiated by `Accept`. The work
//! runs within the request time limit: past it, the build or evaluation is cancelled and the
//! answer is 503. The dataset's statements are reserved in the server's memory budget
//! ([`STATEMENT_BYTES`] each) before they are loaded: a dataset the budget has no room for
//! now is refused with 503 and `Retry-After`, one larger than the whole budget with 503 and
//! advice to narrow it. The dataset comes from the served root's triple index when it is
//! current, else from the WARC files (the same dataset either way).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use ldwarc_core::replay::{ReplayDate, Scope};
use ldwarc_core::sparql::{
    CancellationToken, DefaultGraph, GraphSyntax, LoadLimits, OutputChoice, ResultsFormat,
    SparqlError, SparqlQuery, StatementBudget, answer, load_dataset_at, on_query_stack,
};

use super::budget::{self, MemoryBudget, Reservation};
use super::memento::{BAD_ACCEPT_DATETIME, accept_ranges, asked_datetime};
use super::{AppState, panics, response, text_response, too_slow};

/// Bytes one statement of a query's dataset is counted for in the memory budget: the
/// loaded in-memory store holds about 350 bytes a statement with its terms
/// (`benches/sparql_load.rs`); the rest is room for the evaluation's own tables.
pub const STATEMENT_BYTES: u64 = 600;

/// The statements of one query's dataset, reserved in the server's memory budget and
/// returned when the answer is done.
struct BudgetedStatements {
    budget: Arc<MemoryBudget>,
    held: Mutex<Option<Reservation>>,
}

impl StatementBudget for BudgetedStatements {
    fn reserve(&self, statements: u64) -> bool {
        let bytes =
            usize::try_from(statements.saturating_mul(STATEMENT_BYTES)).unwrap_or(usize::MAX);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        match held.as_mut() {
            Some(reservation) => reservation.grow(bytes),
            None => {
                *held = self.budget.reserve(bytes);
                held.is_some()
            }
        }
    }
}

/// Largest `POST` body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// `GET /sparql`.
pub(crate) async fn get_endpoint(
    State(state): State<super::State>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let params = Params::parse(query.as_deref().unwrap_or(""));
    endpoint(state, headers, params).await
}

/// `POST /sparql`: the query as the body (`application/sparql-query`) or in a form.
pub(crate) async fn post_endpoint(
    State(state): State<super::State>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    if body.len() > MAX_BODY_BYTES {
        return text_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a query body may hold at most {MAX_BODY_BYTES} bytes\n"),
        );
    }
    let mut params = Params::parse(query.as_deref().unwrap_or(""));
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let Ok(text) = std::str::from_utf8(&body) else {
        return text_response(StatusCode::BAD_REQUEST, "the body is not UTF-8\n");
    };
    match content_type.as_str() {
        "application/sparql-query" => params.queries.push(text.to_string()),
        "application/x-www-form-urlencoded" => params.merge(Params::parse(text)),
        _ => {
            return text_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "POST a query as application/sparql-query or application/x-www-form-urlencoded\n",
            );
        }
    }
    endpoint(state, headers, params).await
}

/// The protocol parameters of one request.
#[derive(Debug, Default)]
struct Params {
    queries: Vec<String>,
    at: Option<String>,
    scope: Vec<(String, String)>,
    unsupported: Option<String>,
}

impl Params {
    fn parse(form: &str) -> Params {
        let mut params = Params::default();
        for (name, value) in url::form_urlencoded::parse(form.as_bytes()) {
            match name.as_ref() {
                "query" => params.queries.push(value.into_owned()),
                "at" => params.at = Some(value.into_owned()),
                "prefix" | "host" | "domain" => {
                    params.scope.push((name.into_owned(), value.into_owned()));
                }
                "default-graph-uri"
                | "named-graph-uri"
                | "update"
                | "using-graph-uri"
                | "using-named-graph-uri" => params.unsupported = Some(name.into_owned()),
                _ => {}
            }
        }
        params
    }

    fn merge(&mut self, other: Params) {
        self.queries.extend(other.queries);
        self.at = other.at.or(self.at.take());
        self.scope.extend(other.scope);
        self.unsupported = other.unsupported.or(self.unsupported.take());
    }

    fn scope(&self) -> Result<Scope, String> {
        match self.scope.as_slice() {
            [] => Ok(Scope::All),
            [(name, value)] => Ok(match name.as_str() {
                "prefix" => Scope::Prefix(value.clone()),
                "host" => Scope::Host(value.clone()),
                _ => Scope::Domain(value.clone()),
            }),
            _ => Err("give at most one of prefix, host and domain".into()),
        }
    }
}

/// The request checked, then answered off the async threads within the time limit.
async fn endpoint(state: super::State, headers: HeaderMap, params: Params) -> Response {
    let bad = |message: &str| text_response(StatusCode::BAD_REQUEST, &format!("{message}\n"));
    if let Some(name) = &params.unsupported {
        return bad(&format!(
            "{name} is not supported: the dataset is the archive at a date (use FROM/FROM NAMED or GRAPH in the query)"
        ));
    }
    let text = match params.queries.as_slice() {
        [text] => text.clone(),
        [] => return bad("no query: give query= (or POST it)"),
        _ => return bad("more than one query"),
    };
    let date = match date_of(&params, &headers) {
        Ok(date) => date,
        Err(message) => return bad(&message),
    };
    let scope = match params.scope() {
        Ok(scope) => scope,
        Err(message) => return bad(&message),
    };
    // Parsed on a thread of its own: the parser recurses once per level of nesting.
    let request = panics::current_request();
    let parsed = tokio::task::spawn_blocking(move || {
        panics::caught(&request, || {
            on_query_stack(|| SparqlQuery::parse(&text, None)).and_then(|parsed| parsed)
        })
    })
    .await;
    let query = match parsed {
        Ok(Some(Ok(query))) => query,
        Ok(Some(Err(error))) if error.is_client_error() => return bad(&error.to_string()),
        Ok(Some(Err(error))) => {
            return text_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{error}\n"));
        }
        Ok(None) | Err(_) => return panics::internal_error(),
    };
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    let Some(output) = negotiate(accept, query.form().returns_graph()) else {
        return text_response(
            StatusCode::NOT_ACCEPTABLE,
            if query.form().returns_graph() {
                "this query returns a graph: accept application/n-triples or text/turtle\n"
            } else {
                "accept application/sparql-results+json, application/sparql-results+xml, text/csv or text/tab-separated-values\n"
            },
        );
    };
    let limit = state.limits.request_time;
    run_within(state, limit, move |state, token| {
        on_query_stack(|| answer_at(state, &query, &scope, &date, output, token)).unwrap_or_else(
            |error| text_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{error}\n")),
        )
    })
    .await
}

/// The date of the request: `at=`, else `Accept-Datetime`, else now.
fn date_of(params: &Params, headers: &HeaderMap) -> Result<ReplayDate, String> {
    if let Some(at) = &params.at {
        return ReplayDate::parse(at.strip_prefix('@').unwrap_or(at))
            .map_err(|e| format!("at: {e}"));
    }
    asked_datetime(headers)
        .map(ReplayDate::from_instant)
        .map_err(|()| BAD_ACCEPT_DATETIME.to_string())
}

/// The output `Accept` asks for: the acceptable type of highest weight (the first of equal
/// weights); `*/*` or no header is JSON for results, N-Triples for graphs.
fn negotiate(accept: &str, returns_graph: bool) -> Option<OutputChoice> {
    let offers: &[(&str, OutputChoice)] = if returns_graph {
        &[
            ("application/n-triples", graph(GraphSyntax::NTriples)),
            ("text/turtle", graph(GraphSyntax::Turtle)),
            ("text/plain", graph(GraphSyntax::NTriples)),
        ]
    } else {
        &[
            (
                "application/sparql-results+json",
                results(ResultsFormat::Json),
            ),
            ("application/json", results(ResultsFormat::Json)),
            (
                "application/sparql-results+xml",
                results(ResultsFormat::Xml),
            ),
            ("application/xml", results(ResultsFormat::Xml)),
            ("text/csv", results(ResultsFormat::Csv)),
            ("text/tab-separated-values", results(ResultsFormat::Tsv)),
        ]
    };
    let mut best: Option<(u16, OutputChoice)> = None;
    for (range, weight) in accept_ranges(accept) {
        if weight == 0 {
            continue;
        }
        let offer = if range == "*/*" || range.is_empty() {
            offers.first()
        } else if let Some(family) = range.strip_suffix("/*") {
            offers
                .iter()
                .find(|(media, _)| media.starts_with(&format!("{family}/")))
        } else {
            offers.iter().find(|(media, _)| *media == range)
        };
        if let Some((_, choice)) = offer
            && best.is_none_or(|(w, _)| weight > w)
        {
            best = Some((weight, *choice));
        }
    }
    best.map(|(_, choice)| choice)
}

const fn results(format: ResultsFormat) -> OutputChoice {
    OutputChoice {
        results: format,
        graph: GraphSyntax::NTriples,
    }
}

const fn graph(syntax: GraphSyntax) -> OutputChoice {
    OutputChoice {
        results: ResultsFormat::Json,
        graph: syntax,
    }
}

/// Runs `work` on a blocking thread; past `limit` the token is cancelled (the work stops at
/// its next check) and the client gets 503 at once.
async fn run_within(
    state: super::State,
    limit: Duration,
    work: impl FnOnce(&AppState, CancellationToken) -> Response + Send + 'static,
) -> Response {
    let token = CancellationToken::new();
    let given = token.clone();
    let request = panics::current_request();
    let task = tokio::task::spawn_blocking(move || {
        panics::caught(&request, || work(&state, given)).unwrap_or_else(panics::internal_error)
    });
    match tokio::time::timeout(limit, task).await {
        Ok(Ok(response)) => response,
        Ok(Err(_cancelled)) => panics::internal_error(),
        Err(_elapsed) => {
            token.cancel();
            too_slow(limit)
        }
    }
}

/// Builds the dataset and answers the query (on a blocking thread).
fn answer_at(
    state: &AppState,
    query: &SparqlQuery,
    scope: &Scope,
    date: &ReplayDate,
    output: OutputChoice,
    token: CancellationToken,
) -> Response {
    // The most statements the whole budget could hold: more is refused at once.
    let max_statements = state.budget.limit() as u64 / STATEMENT_BYTES;
    let limits = LoadLimits {
        max_statements: Some(max_statements),
        cancel: Some(token.clone()),
        budget: Some(Arc::new(BudgetedStatements {
            budget: state.budget.clone(),
            held: Mutex::new(None),
        })),
    };
    let mut report = |line: &str| tracing::warn!("sparql dataset: {line}");
    let triples = state.triples.single();
    let triples = triples.as_ref().and_then(|indexes| indexes.first());
    let result = load_dataset_at(&state.archive, triples, scope, date, &limits, &mut report)
        .and_then(|dataset| {
            let mut body = Vec::new();
            answer(
                query,
                &dataset,
                DefaultGraph::Union,
                output,
                Some(token),
                &mut body,
            )?;
            Ok(body)
        });
    match result {
        Ok(body) => {
            let media_type = if query.form().returns_graph() {
                output.graph.media_type()
            } else {
                output.results.media_type()
            };
            let mut answer = response(StatusCode::OK, media_type, body);
            if let Ok(vary) = "accept, accept-datetime".parse() {
                answer.headers_mut().insert(header::VARY, vary);
            }
            answer
        }
        Err(SparqlError::TooLarge(max)) => text_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "the dataset at that date holds more than {max} statements, more than this server's memory budget holds; narrow it with prefix=, host= or domain=\n"
            ),
        ),
        Err(SparqlError::OverBudget) => budget::refusal_saying(
            "the server's memory budget is held by other requests and has no room for the dataset at that date now: retry later, or narrow it with prefix=, host= or domain=\n",
        ),
        Err(SparqlError::Cancelled) => too_slow(state.limits.request_time),
        Err(error) if error.is_client_error() => {
            text_response(StatusCode::BAD_REQUEST, &format!("{error}\n"))
        }
        Err(error) => text_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{error}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_reserved_in_the_budget_until_the_dataset_is_dropped() {
        let budget = MemoryBudget::new(10 * STATEMENT_BYTES as usize);
        let statements = BudgetedStatements {
            budget: budget.clone(),
            held: Mutex::new(None),
        };
        assert!(statements.reserve(6));
        assert!(statements.reserve(4), "6 + 4 statements fill the budget");
        assert!(!statements.reserve(1), "the eleventh does not fit");
        assert_eq!(budget.used(), 10 * STATEMENT_BYTES as usize);
        // Another request finds no room while this one holds the budget.
        let other = BudgetedStatements {
            budget: budget.clone(),
            held: Mutex::new(None),
        };
        assert!(!other.reserve(1));
        drop(statements);
        assert_eq!(budget.used(), 0);
        assert!(other.reserve(10));
    }

    #[test]
    fn accept_picks_the_heaviest_known_type() {
        let pick = |accept: &str| negotiate(accept, false).map(|c| c.results);
        assert_eq!(pick("*/*"), Some(ResultsFormat::Json));
        assert_eq!(
            pick("text/csv;q=0.5, text/tab-separated-values"),
            Some(ResultsFormat::Tsv)
        );
        assert_eq!(pick("text/*"), Some(ResultsFormat::Csv));
        assert_eq!(pick("image/png"), None);
        let graph = |accept: &str| negotiate(accept, true).map(|c| c.graph);
        assert_eq!(graph("text/turtle"), Some(GraphSyntax::Turtle));
        assert_eq!(graph("application/sparql-results+json"), None);
    }
}
