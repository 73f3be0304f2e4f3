//! `/sparql`: the SPARQL 1.1 Protocol over the dataset as it stood at a date — the documents
//! `ldwarc snapshot` selects, each a named graph, the default graph their union. The query comes
//! as `GET ?query=`, as a `POST` body of `application/sparql-query`, or as a form-encoded
//! `POST` body; the date as `?at=` (any replay date form) or `Accept-Datetime` (else now); the
//! scope as `?prefix=`, `?host=` or `?domain=`. Results are negotiated by `Accept`.
//!
//! The query is checked here (its nesting, its syntax, SERVICE), then answered by a worker
//! process, `ldwarc sparql --worker` (the same program), whose answer is streamed to the
//! client as it writes it. The evaluator cannot be stopped or bounded from inside (it holds
//! every solution an ORDER BY sorts, and builds cartesian products without asking), so the
//! worker is, from outside: at most [`MAX_WORKERS`] run at once (more are refused at once with
//! 503 and `Retry-After`), each reserving a [`SPARQL_SHARE`]th of the server's memory budget
//! before it starts (no room: 503 and `Retry-After`); a worker is killed when its memory passes
//! that share (403), at the request time limit (503) or when the client goes away; past
//! [`MAX_RESULTS`] results it stops (the answer is cut short).

use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use ldwarc_timetravel::replay::{ReplayDate, Scope};
use ldwarc_timetravel::sparql::worker::{self, WorkerEnd, WorkerLimits, run_worker};
use ldwarc_timetravel::sparql::{
    GraphSyntax, OutputChoice, QueryForm, ResultsFormat, SparqlQuery, on_query_stack,
};

use super::budget;
use super::memento::{BAD_ACCEPT_DATETIME, accept_ranges, asked_datetime};
use super::stream::{self, Failure};
use super::{panics, text_response};

/// The part of the server's memory budget one query's worker may hold: a quarter. With
/// [`MAX_WORKERS`] at once, SPARQL queries hold at most half the budget, the rest stays for
/// the other requests.
pub const SPARQL_SHARE: usize = 4;

/// Most `/sparql` workers running at once (each may keep a core busy).
pub const MAX_WORKERS: usize = 2;

/// Most results (solutions, or triples of CONSTRUCT and DESCRIBE) one answer holds: past
/// them the worker stops and the answer is cut short.
pub const MAX_RESULTS: u64 = 1_000_000;

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
pub(crate) struct Params {
    pub(crate) queries: Vec<String>,
    pub(crate) at: Option<String>,
    pub(crate) scope: Vec<(String, String)>,
    pub(crate) unsupported: Option<String>,
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

    pub(crate) fn scope(&self) -> Result<Scope, String> {
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

/// The request checked, then answered off the async threads within the time limit. A browser
/// (`Accept` preferring `text/html`) gets the query form and a results page instead.
async fn endpoint(state: super::State, headers: HeaderMap, params: Params) -> Response {
    if super::sparql_page::wants_html(&headers) {
        return super::sparql_page::answer(state, params).await;
    }
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
    let form = match query_form(&text).await {
        Ok(form) => form,
        Err(Refused::Client(message)) => return bad(&message),
        Err(Refused::Server(message)) => {
            return text_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{message}\n"));
        }
        Err(Refused::Panicked) => return panics::internal_error(),
    };
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    let Some(output) = negotiate(accept, form.returns_graph()) else {
        return text_response(
            StatusCode::NOT_ACCEPTABLE,
            if form.returns_graph() {
                "this query returns a graph: accept application/n-triples or text/turtle\n"
            } else {
                "accept application/sparql-results+json, application/sparql-results+xml, text/csv or text/tab-separated-values\n"
            },
        );
    };
    let returns_graph = form.returns_graph();
    let media_type = if returns_graph {
        output.graph.media_type()
    } else {
        output.results.media_type()
    };
    let Some(program) = state.sparql_worker.clone() else {
        return text_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "this server cannot run SPARQL queries: it found no program to run them with\n",
        );
    };
    let Some(slot) = WorkerSlot::take(&state) else {
        return budget::refusal_saying(&format!(
            "the server is answering as many SPARQL queries as it runs at once ({MAX_WORKERS}): \
             retry later\n"
        ));
    };
    let share = state.budget.limit() / SPARQL_SHARE;
    let Some(reservation) = state.budget.reserve(share) else {
        return budget::refusal_saying(
            "the server's memory budget is held by other requests and has no room for another \
             SPARQL query now: retry later\n",
        );
    };
    let command = worker_command(&program, &state.roots, &date, &scope, output, returns_graph);
    let limits = WorkerLimits {
        memory: share as u64,
        deadline: Some(Instant::now() + state.limits.request_time),
        abandoned: None,
    };
    let request_time = state.limits.request_time;
    let mut answer = stream::streamed(&state, media_type, move |_, out| {
        let _held = (slot, reservation);
        let limits = WorkerLimits {
            abandoned: Some(out.abandoned_probe()),
            ..limits
        };
        let end = run_worker(command, text.as_bytes(), &limits, &mut |chunk| {
            out.buffer().extend_from_slice(chunk);
            out.flush_if_full()
        })
        .map_err(|error| {
            tracing::error!(%error, "could not start a SPARQL worker");
            Failure::new(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n")
        })?;
        worker_outcome(end, share, request_time, &text)
    })
    .await;
    if let Ok(vary) = "accept, accept-datetime".parse() {
        answer.headers_mut().insert(header::VARY, vary);
    }
    answer
}

/// Why a query was refused before it ran.
pub(crate) enum Refused {
    /// The client's error (400): the message.
    Client(String),
    /// The server's (500): the message.
    Server(String),
    /// The check panicked (logged; 500).
    Panicked,
}

/// The form of `text` (SELECT, ASK, CONSTRUCT, DESCRIBE), or why it is refused. Parsed, and
/// dropped, on a thread of its own: the parser and the drop of a parsed query recurse once
/// per level of nesting. Only the query's form leaves that thread.
pub(crate) async fn query_form(text: &str) -> Result<QueryForm, Refused> {
    let checked = text.to_string();
    let request = panics::current_request();
    let parsed = tokio::task::spawn_blocking(move || {
        panics::caught(&request, || {
            on_query_stack(|| SparqlQuery::parse(&checked, None).map(|query| query.form()))
                .and_then(|parsed| parsed)
        })
    })
    .await;
    match parsed {
        Ok(Some(Ok(form))) => Ok(form),
        Ok(Some(Err(error))) if error.is_client_error() => Err(Refused::Client(error.to_string())),
        Ok(Some(Err(error))) => Err(Refused::Server(error.to_string())),
        Ok(None) | Err(_) => Err(Refused::Panicked),
    }
}

/// A worker's share for people: in MiB from 1 MiB on, else in KiB.
fn share_text(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{} MiB", bytes / (1024 * 1024))
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// The start of a query, for the log: at most 200 bytes.
fn excerpt(query: &str) -> &str {
    let mut end = query.len().min(200);
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    &query[..end]
}

/// One of the [`MAX_WORKERS`] places for a running worker, given back when dropped.
pub(crate) struct WorkerSlot(super::State);

impl WorkerSlot {
    /// A place, or none when every one is taken.
    pub(crate) fn take(state: &super::State) -> Option<WorkerSlot> {
        state
            .sparql_workers
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |running| {
                (running < MAX_WORKERS).then_some(running + 1)
            })
            .ok()
            .map(|_| WorkerSlot(state.clone()))
    }
}

impl Drop for WorkerSlot {
    fn drop(&mut self) {
        self.0.sparql_workers.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `ldwarc sparql --worker` for this query, its answer written as `output` asks.
pub(crate) fn worker_command(
    program: &Path,
    roots: &[std::path::PathBuf],
    date: &ReplayDate,
    scope: &Scope,
    output: OutputChoice,
    returns_graph: bool,
) -> Command {
    let mut command = Command::new(program);
    command.args(["sparql", "--worker"]);
    for root in roots {
        command.arg(format!("--root={}", root.display()));
    }
    command.arg(format!("--at={}", date.timestamp()));
    match scope {
        Scope::All => {}
        Scope::Prefix(prefix) => {
            command.arg(format!("--prefix={prefix}"));
        }
        Scope::Host(host) => {
            command.arg(format!("--host={host}"));
        }
        Scope::Domain(domain) => {
            command.arg(format!("--domain={domain}"));
        }
    }
    let format = if returns_graph {
        match output.graph {
            GraphSyntax::NTriples => "nt",
            GraphSyntax::Turtle => "ttl",
        }
    } else {
        match output.results {
            ResultsFormat::Json => "json",
            ResultsFormat::Xml => "xml",
            ResultsFormat::Csv => "csv",
            ResultsFormat::Tsv => "tsv",
            ResultsFormat::Table => "table",
        }
    };
    command.arg(format!("--format={format}"));
    command.arg(format!("--max-results={MAX_RESULTS}"));
    command.arg("-");
    command
}

/// How a worker's end is answered: nothing more when it wrote its answer, else why not.
pub(crate) fn worker_outcome(
    end: WorkerEnd,
    share: usize,
    request_time: std::time::Duration,
    query: &str,
) -> Result<(), Failure> {
    match end {
        WorkerEnd::Exited { status, stderr } => {
            for line in stderr.lines() {
                tracing::debug!("sparql worker: {line}");
            }
            let said = stderr
                .lines()
                .rev()
                .find_map(|line| line.strip_prefix("ldwarc: error: "))
                .unwrap_or("the query failed");
            match status.code() {
                Some(0 | 1) => Ok(()),
                Some(worker::EXIT_BAD_QUERY) => {
                    Err(Failure::new(StatusCode::BAD_REQUEST, format!("{said}\n")))
                }
                Some(worker::EXIT_TOO_MANY_RESULTS) => {
                    Err(Failure::new(StatusCode::FORBIDDEN, format!("{said}\n")))
                }
                _ => {
                    let query = excerpt(query);
                    tracing::error!(%status, %query, "a SPARQL worker failed: {stderr}");
                    Err(Failure::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the query failed\n",
                    ))
                }
            }
        }
        WorkerEnd::OverMemory { seen } => {
            let query = excerpt(query);
            tracing::warn!(seen, share, %query, "a SPARQL query passed its memory share");
            Err(Failure::new(
                StatusCode::FORBIDDEN,
                format!(
                    "the query needed more than {} of memory, its share of this server's \
                     memory budget (its dataset and its evaluation together: an ORDER BY, \
                     GROUP BY or DISTINCT holds every solution): narrow it (LIMIT, a FILTER, \
                     prefix=, host= or domain=)\n",
                    share_text(share)
                ),
            ))
        }
        WorkerEnd::TimedOut => Err(Failure::retry_later(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the request took longer than {} s; narrow the query\n",
                request_time.as_secs_f64()
            ),
        )),
        WorkerEnd::Abandoned => Ok(()),
    }
}

/// The date of the request: `at=`, else `Accept-Datetime`, else now.
pub(crate) fn date_of(params: &Params, headers: &HeaderMap) -> Result<ReplayDate, String> {
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

pub(crate) const fn results(format: ResultsFormat) -> OutputChoice {
    OutputChoice {
        results: format,
        graph: GraphSyntax::NTriples,
    }
}

pub(crate) const fn graph(syntax: GraphSyntax) -> OutputChoice {
    OutputChoice {
        results: ResultsFormat::Json,
        graph: syntax,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_told_in_mib_or_kib() {
        assert_eq!(share_text(80 * 1024 * 1024), "80 MiB");
        assert_eq!(share_text(512 * 1024), "512 KiB");
    }

    #[test]
    fn logged_queries_are_cut_at_a_character_boundary() {
        assert_eq!(excerpt("SELECT * {}"), "SELECT * {}");
        assert_eq!(excerpt(&"é".repeat(150)), "é".repeat(100));
        assert_eq!(excerpt(&"a".repeat(300)).len(), 200);
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
