//! SPARQL 1.1 queries over the archive as it stood at a date: the dataset `snapshot` selects
//! (one named graph per document, named by its URL) is loaded into oxigraph's in-memory store
//! and queried there (measured faster to load and to query than `spareval` over an `oxrdf`
//! dataset); the dataset comes from the versioned triple index when the archive root has a
//! current one, else from replaying the WARC files (the same dataset either way); results
//! are written in the W3C result formats (JSON, XML, CSV, TSV),
//! as an aligned table for people, or as N-Triples/Turtle for CONSTRUCT and DESCRIBE.
//!
//! No query reaches the network: a query with SERVICE is refused as the client's error.

mod from_index;
mod load;
mod nesting;
mod results;
pub mod worker;

use std::io::Write;

use oxigraph::sparql::{QueryEvaluationError, QueryResults, SparqlEvaluator};
use spargebra::{Query, SparqlParser};

use crate::replay::ReplayError;

pub use from_index::{load_dataset_at, load_dataset_from_index};
pub use load::{ArchiveDataset, DatasetSource, LoadLimits, StatementBudget, load_dataset};
pub use nesting::MAX_QUERY_NESTING;
/// Stops a dataset build or an evaluation when cancelled (from another thread).
pub use oxigraph::sparql::CancellationToken;
pub use results::{GraphSyntax, ResultsFormat};

/// Why a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum SparqlError {
    /// The query text is not SPARQL 1.1 (with the position of the error, 1-based).
    #[error("query syntax error at line {line}, column {column}: {message}")]
    Syntax {
        /// Line of the error.
        line: usize,
        /// Column of the error (in characters).
        column: usize,
        /// What was expected there.
        message: String,
    },
    /// The query nests deeper than [`MAX_QUERY_NESTING`] levels: refused before it is parsed,
    /// since parsing and evaluating it would recurse that deep.
    #[error(
        "the query nests deeper than {MAX_QUERY_NESTING} levels at line {line}, column {column} \
         (brackets, operator and path chains, UNION, OPTIONAL, MINUS, sub-selects and triple \
         patterns side by side each count): simplify it"
    )]
    TooDeep {
        /// Line where the limit is passed.
        line: usize,
        /// Column where the limit is passed (in characters).
        column: usize,
    },
    /// The query is well-formed but not acceptable (a bad base IRI, shared blank nodes).
    #[error("query: {0}")]
    Query(String),
    /// The archive could not be read.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// The dataset at the date is larger than the limit allows.
    #[error("the dataset at that date holds more than {0} statements, the limit")]
    TooLarge(u64),
    /// The memory budget has no room for the dataset now (other work holds it).
    #[error("the memory budget has no room for the dataset at that date now")]
    OverBudget,
    /// The answer has more results (solutions, or triples of a graph) than allowed.
    #[error(
        "the query has more than {0} results, the most allowed: narrow it (LIMIT, a FILTER, a \
         smaller scope)"
    )]
    TooManyResults(u64),
    /// The work was cancelled (a time limit passed).
    #[error("the query was cancelled")]
    Cancelled,
    /// Evaluation failed (a SERVICE call, a result set too large for memory, …).
    #[error("query evaluation: {0}")]
    Evaluation(String),
    /// The results format does not fit the query form (e.g. CSV for CONSTRUCT).
    #[error("{0}")]
    Format(String),
    /// Writing the results failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl SparqlError {
    /// Whether the error lies in the query or its options (the client's to fix), not in the
    /// archive or the machine.
    pub fn is_client_error(&self) -> bool {
        matches!(
            self,
            SparqlError::Syntax { .. }
                | SparqlError::TooDeep { .. }
                | SparqlError::Query(_)
                | SparqlError::Format(_)
        )
    }
}

impl From<QueryEvaluationError> for SparqlError {
    fn from(error: QueryEvaluationError) -> Self {
        match error {
            QueryEvaluationError::Cancelled => SparqlError::Cancelled,
            other => SparqlError::Evaluation(other.to_string()),
        }
    }
}

/// What a query returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryForm {
    /// SELECT: a table of solutions.
    Select,
    /// ASK: true or false.
    Ask,
    /// CONSTRUCT: a graph.
    Construct,
    /// DESCRIBE: a graph.
    Describe,
}

impl QueryForm {
    /// Whether the query returns a graph rather than a result table or boolean.
    pub fn returns_graph(self) -> bool {
        matches!(self, QueryForm::Construct | QueryForm::Describe)
    }
}

/// Which graph a query's default graph is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DefaultGraph {
    /// The union (RDF merge) of every document's graph.
    #[default]
    Union,
    /// The empty graph: patterns must name their graph with GRAPH.
    Empty,
}

/// A parsed SPARQL 1.1 query.
#[derive(Clone, Debug)]
pub struct SparqlQuery {
    query: Query,
}

impl SparqlQuery {
    /// Parses `text`; relative IRIs resolve against `base` when given. A query nesting deeper
    /// than [`MAX_QUERY_NESTING`] is refused before it is parsed. Parse on a thread with
    /// [`QUERY_STACK_BYTES`] of stack ([`on_query_stack`]): the parser recurses per level.
    pub fn parse(text: &str, base: Option<&str>) -> Result<Self, SparqlError> {
        if let Some((line, column)) = nesting::too_deep_at(text) {
            return Err(SparqlError::TooDeep { line, column });
        }
        let mut parser = SparqlParser::new();
        if let Some(base) = base {
            parser = parser
                .with_base_iri(base)
                .map_err(|e| SparqlError::Query(format!("base IRI {base}: {e}")))?;
        }
        match parser.clone().parse_query(text) {
            // The query parsed, so the bare word SERVICE is the keyword: the query would ask
            // another endpoint, and no query reaches the network.
            Ok(_) if nesting::has_keyword(text, "SERVICE") => Err(SparqlError::Query(
                "SERVICE is not supported: queries are answered from the archive alone, never \
                 from other endpoints"
                    .to_string(),
            )),
            Ok(query) => Ok(SparqlQuery { query }),
            // An update parses as one: say what is wrong with it instead of the query
            // parser's "expected CONSTRUCT".
            Err(_) if parser.parse_update(text).is_ok() => Err(SparqlError::Query(
                "SPARQL Update (INSERT, DELETE, LOAD, CLEAR …) is not supported: the archive is \
                 read-only; give a SELECT, ASK, CONSTRUCT or DESCRIBE query"
                    .to_string(),
            )),
            Err(error) => Err(syntax_error(&error.to_string())),
        }
    }

    /// The query form.
    pub fn form(&self) -> QueryForm {
        match self.query {
            Query::Select { .. } => QueryForm::Select,
            Query::Ask { .. } => QueryForm::Ask,
            Query::Construct { .. } => QueryForm::Construct,
            Query::Describe { .. } => QueryForm::Describe,
        }
    }
}

/// Stack of a thread that parses, evaluates or drops a query: what a query nesting
/// [`MAX_QUERY_NESTING`] levels deep needs in a debug build, measured by
/// `the_query_stack_holds_the_deepest_queries_accepted` (which parses and evaluates such
/// queries on a quarter of it), with a margin of four. Only the pages a query touches are
/// ever used.
pub const QUERY_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Runs `work` on a thread of its own with [`QUERY_STACK_BYTES`] of stack, and returns what
/// it returns; a panic in `work` goes on in the caller.
pub fn on_query_stack<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, SparqlError> {
    on_stack(QUERY_STACK_BYTES, work)
}

fn on_stack<T: Send>(bytes: usize, work: impl FnOnce() -> T + Send) -> Result<T, SparqlError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("ldwarc-sparql".into())
            .stack_size(bytes)
            .spawn_scoped(scope, work)
            .map_err(|e| SparqlError::Io(std::io::Error::other(format!("a query thread: {e}"))))?;
        match thread.join() {
            Ok(value) => Ok(value),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The parser's message (`error at L:C: expected …`) as a positioned error.
fn syntax_error(message: &str) -> SparqlError {
    let positioned = message.strip_prefix("error at ").and_then(|rest| {
        let (position, expected) = rest.split_once(": ")?;
        let (line, column) = position.split_once(':')?;
        Some((line.parse().ok()?, column.parse().ok()?, expected))
    });
    match positioned {
        Some((line, column, expected)) => SparqlError::Syntax {
            line,
            column,
            message: expected.to_string(),
        },
        None => SparqlError::Query(message.to_string()),
    }
}

/// How a query's answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputChoice {
    /// For SELECT and ASK.
    pub results: ResultsFormat,
    /// For CONSTRUCT and DESCRIBE.
    pub graph: GraphSyntax,
}

/// What an answered query produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Answered {
    /// Solutions (SELECT), 1 (ASK) or triples (CONSTRUCT, DESCRIBE) written.
    pub rows: u64,
}

/// Evaluates `query` over `dataset` and writes the answer to `out`. The query's own FROM and
/// FROM NAMED clauses, when it has them, win over `default_graph`. `cancel` stops the
/// evaluation (a request past its time limit). Past `max_results` results (solutions or
/// triples) the answer stops with [`SparqlError::TooManyResults`], after writing that many.
pub fn answer(
    query: &SparqlQuery,
    dataset: &ArchiveDataset,
    default_graph: DefaultGraph,
    output: OutputChoice,
    cancel: Option<CancellationToken>,
    max_results: Option<u64>,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
    let max = max_results.unwrap_or(u64::MAX);
    let mut evaluator = SparqlEvaluator::new();
    if let Some(token) = cancel {
        evaluator = evaluator.with_cancellation_token(token);
    }
    let mut prepared = evaluator.for_query(query.query.clone());
    if default_graph == DefaultGraph::Union && prepared.dataset().is_default_dataset() {
        prepared.dataset_mut().set_default_graph_as_union();
    }
    match prepared.on_store(&dataset.store).execute()? {
        QueryResults::Solutions(solutions) => {
            results::write_solutions(solutions, output.results, max, out)
        }
        QueryResults::Boolean(value) => results::write_boolean(value, output.results, out),
        QueryResults::Graph(triples) => results::write_graph(triples, output.graph, max, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_name_line_and_column() {
        let error = SparqlQuery::parse("SELECT ?s\nWHERE { ?s ?p ?o ) }", None).unwrap_err();
        match error {
            SparqlError::Syntax { line, column, .. } => assert_eq!((line, column), (2, 21)),
            other => panic!("not a syntax error: {other}"),
        }
    }

    /// The deepest query of each kind the nesting check accepts: `unit` repeated as often as
    /// fits between `prefix` and `inner`, each repetition closed by `close` before `suffix`.
    fn deepest_accepted(
        prefix: &str,
        unit: &str,
        inner: &str,
        close: &str,
        suffix: &str,
    ) -> String {
        let query = |n: usize| {
            format!(
                "{prefix}{}{inner}{}{suffix}",
                unit.repeat(n),
                close.repeat(n)
            )
        };
        let n = (1..)
            .find(|&n| nesting::too_deep_at(&query(n)).is_some())
            .unwrap()
            - 1;
        assert!(n > 10, "{prefix}{unit}: only {n} accepted");
        query(n)
    }

    /// Every kind of deep query the check accepts, at its deepest.
    fn deepest_queries() -> Vec<String> {
        vec![
            deepest_accepted("SELECT (", "(", "1", ")", " AS ?x) {}"),
            deepest_accepted("ASK ", "{", "", "}", ""),
            deepest_accepted("ASK ", "{ SELECT * WHERE ", "{}", "}", ""),
            deepest_accepted("ASK { FILTER(", "!(", "true", ")", ") }"),
            deepest_accepted("ASK { FILTER(", "1 + ", "1 = 2", "", ") }"),
            deepest_accepted("ASK { FILTER(", "true && ", "true", "", ") }"),
            deepest_accepted("ASK { ?s ", "^(", "<a:p>", ")", " ?o }"),
            deepest_accepted("ASK { ?s <a:p>", "/<a:p>", "", "", " ?o }"),
            deepest_accepted("ASK { ?s <a:p>", "|<a:p>", "", "", " ?o }"),
            deepest_accepted("ASK { ?s <a:p>", "/(<a:p>", "", ")", " ?o }"),
            deepest_accepted("ASK { {} ", "UNION {} ", "", "", "}"),
            deepest_accepted("ASK { ?s ?p ?o ", "OPTIONAL { ?s ?p ?o } ", "", "", "}"),
            deepest_accepted("ASK { ?s ?p ?o ", "MINUS { ?s ?p ?o } ", "", "", "}"),
            deepest_accepted("ASK { ", "?s <a:p> ?o . ", "", "", "}"),
        ]
    }

    /// Parses and evaluates each of [`deepest_queries`] over a one-statement dataset on a
    /// thread with `stack` bytes of stack.
    fn parse_and_evaluate_deepest(stack: usize) {
        for text in deepest_queries() {
            on_stack(stack, || {
                let query = SparqlQuery::parse(&text, None)
                    .unwrap_or_else(|e| panic!("{e}: {}", &text[..80.min(text.len())]));
                let store = oxigraph::store::Store::new().unwrap();
                let node = |iri: &str| oxigraph::model::NamedNode::new(iri).unwrap();
                store
                    .insert(&oxigraph::model::Quad::new(
                        node("a:s"),
                        node("a:p"),
                        node("a:s"),
                        node("a:g"),
                    ))
                    .unwrap();
                let dataset = ArchiveDataset::new(store, load::DatasetSource::Replay);
                let output = OutputChoice {
                    results: ResultsFormat::Json,
                    graph: GraphSyntax::NTriples,
                };
                let mut out = Vec::new();
                answer(
                    &query,
                    &dataset,
                    DefaultGraph::Union,
                    output,
                    None,
                    None,
                    &mut out,
                )
                .unwrap();
            })
            .unwrap();
        }
    }

    #[test]
    fn the_query_stack_holds_the_deepest_queries_accepted() {
        parse_and_evaluate_deepest(QUERY_STACK_BYTES / 4);
    }

    /// Measures the stack the deepest accepted queries need: run with
    /// `LDWARC_QUERY_STACK=BYTES` and `--ignored`; a stack too small aborts the test binary.
    #[test]
    #[ignore = "a measurement: aborts when the stack given is too small"]
    fn measure_the_query_stack() {
        let bytes = std::env::var("LDWARC_QUERY_STACK")
            .unwrap()
            .parse()
            .unwrap();
        parse_and_evaluate_deepest(bytes);
    }

    #[test]
    fn queries_nesting_too_deep_are_refused_before_parsing() {
        for query in [
            format!(
                "SELECT ({}1{} AS ?x) {{}}",
                "(".repeat(100_000),
                ")".repeat(100_000)
            ),
            format!("ASK {{ ?s {}<a:p> ?o }}", "^".repeat(10_000)),
        ] {
            let error = on_stack(256 * 1024, || SparqlQuery::parse(&query, None))
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(error, SparqlError::TooDeep { line: 1, .. }),
                "{error}"
            );
            assert!(error.is_client_error());
        }
    }

    #[test]
    fn service_is_refused_as_the_clients_error() {
        let error = SparqlQuery::parse(
            "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
            None,
        )
        .unwrap_err();
        assert!(error.is_client_error());
        assert!(
            error
                .to_string()
                .starts_with("query: SERVICE is not supported"),
            "{error}"
        );
        let named = "SELECT ?service WHERE { ?service <a:p> \"SERVICE\" }";
        assert!(SparqlQuery::parse(named, None).is_ok());
    }

    #[test]
    fn forms_are_told_apart() {
        let update = SparqlQuery::parse("INSERT DATA { <a:b> <a:c> <a:d> }", None).unwrap_err();
        assert!(update.to_string().contains("not supported"), "{update}");
        let form = |q: &str| SparqlQuery::parse(q, None).unwrap().form();
        assert_eq!(form("ASK { ?s ?p ?o }"), QueryForm::Ask);
        assert_eq!(form("CONSTRUCT WHERE { ?s ?p ?o }"), QueryForm::Construct);
        assert_eq!(form("DESCRIBE <http://ex.org/>"), QueryForm::Describe);
        assert_eq!(form("SELECT * { ?s ?p ?o }"), QueryForm::Select);
    }
}
