//! SPARQL 1.1 queries over the archive as it stood at a date: the dataset `snapshot` selects
//! (one named graph per document, named by its URL) is loaded into oxigraph's in-memory store
//! and queried there (measured faster to load and to query than `spareval` over an `oxrdf`
//! dataset); the dataset comes from the versioned triple index when the archive root has a
//! current one, else from replaying the WARC files (the same dataset either way); results
//! are written in the W3C result formats (JSON, XML, CSV, TSV),
//! as an aligned table for people, or as N-Triples/Turtle for CONSTRUCT and DESCRIBE.
//!
//! No query reaches the network: SERVICE has no handler and fails.

mod from_index;
mod load;
mod results;

use std::io::Write;

use oxigraph::sparql::{QueryEvaluationError, QueryResults, SparqlEvaluator};
use spargebra::{Query, SparqlParser};

use crate::replay::ReplayError;

pub use from_index::{load_dataset_at, load_dataset_from_index};
pub use load::{ArchiveDataset, DatasetSource, LoadLimits, StatementBudget, load_dataset};
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
            SparqlError::Syntax { .. } | SparqlError::Query(_) | SparqlError::Format(_)
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
    /// Parses `text`; relative IRIs resolve against `base` when given.
    pub fn parse(text: &str, base: Option<&str>) -> Result<Self, SparqlError> {
        let mut parser = SparqlParser::new();
        if let Some(base) = base {
            parser = parser
                .with_base_iri(base)
                .map_err(|e| SparqlError::Query(format!("base IRI {base}: {e}")))?;
        }
        match parser.clone().parse_query(text) {
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
/// evaluation (a request past its time limit).
pub fn answer(
    query: &SparqlQuery,
    dataset: &ArchiveDataset,
    default_graph: DefaultGraph,
    output: OutputChoice,
    cancel: Option<CancellationToken>,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
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
            results::write_solutions(solutions, output.results, out)
        }
        QueryResults::Boolean(value) => results::write_boolean(value, output.results, out),
        QueryResults::Graph(triples) => results::write_graph(triples, output.graph, out),
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
