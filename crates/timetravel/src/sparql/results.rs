//! Writing answers: the W3C SPARQL 1.1 result formats (through `sparesults`), an aligned
//! table for people, and N-Triples or Turtle for the graphs of CONSTRUCT and DESCRIBE.

use std::io::Write;

use ldwarc_rdf::{Graph, OutputFormat};
use oxigraph::sparql::{QuerySolutionIter, QueryTripleIter};
use sparesults::{QueryResultsFormat, QueryResultsSerializer};

use super::{Answered, SparqlError};

/// How SELECT and ASK answers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultsFormat {
    /// SPARQL 1.1 Query Results JSON (`application/sparql-results+json`).
    Json,
    /// SPARQL Query Results XML (`application/sparql-results+xml`).
    Xml,
    /// SPARQL 1.1 Query Results CSV (`text/csv`): values only, no term types.
    Csv,
    /// SPARQL 1.1 Query Results TSV (`text/tab-separated-values`): terms in Turtle syntax.
    Tsv,
    /// Aligned columns for people (terms in N-Triples syntax; unbound cells empty).
    Table,
}

impl ResultsFormat {
    /// The media type of the format (the table is plain text).
    pub fn media_type(self) -> &'static str {
        match self.w3c() {
            Some(format) => format.media_type(),
            None => "text/plain",
        }
    }

    fn w3c(self) -> Option<QueryResultsFormat> {
        match self {
            ResultsFormat::Json => Some(QueryResultsFormat::Json),
            ResultsFormat::Xml => Some(QueryResultsFormat::Xml),
            ResultsFormat::Csv => Some(QueryResultsFormat::Csv),
            ResultsFormat::Tsv => Some(QueryResultsFormat::Tsv),
            ResultsFormat::Table => None,
        }
    }
}

/// How CONSTRUCT and DESCRIBE graphs are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphSyntax {
    /// N-Triples, one triple per line as it is produced.
    NTriples,
    /// Turtle with prefixes (the graph is gathered first).
    Turtle,
}

impl GraphSyntax {
    /// The media type of the syntax.
    pub fn media_type(self) -> &'static str {
        match self {
            GraphSyntax::NTriples => "application/n-triples",
            GraphSyntax::Turtle => "text/turtle",
        }
    }
}

/// One more result counted against `max`: refused past it.
fn count(rows: &mut u64, max: u64) -> Result<(), SparqlError> {
    if *rows >= max {
        return Err(SparqlError::TooManyResults(max));
    }
    *rows += 1;
    Ok(())
}

pub(super) fn write_solutions(
    solutions: QuerySolutionIter<'_>,
    format: ResultsFormat,
    max: u64,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
    let variables = solutions.variables().to_vec();
    let Some(w3c) = format.w3c() else {
        return write_table(solutions, max, out);
    };
    let mut serializer =
        QueryResultsSerializer::from_format(w3c).serialize_solutions_to_writer(out, variables)?;
    let mut rows = 0;
    for solution in solutions {
        let solution = solution?;
        count(&mut rows, max)?;
        serializer.serialize(&solution)?;
    }
    serializer.finish()?;
    Ok(Answered { rows })
}

pub(super) fn write_boolean(
    value: bool,
    format: ResultsFormat,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
    match format.w3c() {
        Some(w3c) => {
            QueryResultsSerializer::from_format(w3c).serialize_boolean_to_writer(out, value)?;
        }
        None => writeln!(out, "{value}")?,
    }
    Ok(Answered { rows: 1 })
}

pub(super) fn write_graph(
    triples: QueryTripleIter<'_>,
    syntax: GraphSyntax,
    max: u64,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
    let mut rows = 0;
    match syntax {
        GraphSyntax::NTriples => {
            for triple in triples {
                let triple = triple?;
                count(&mut rows, max)?;
                writeln!(out, "{triple} .")?;
            }
        }
        GraphSyntax::Turtle => {
            let mut graph = Graph::new();
            let mut seen = 0;
            for triple in triples {
                let triple = triple?;
                count(&mut seen, max)?;
                graph.insert_spelled(
                    &triple.subject.to_string(),
                    &triple.predicate.to_string(),
                    &triple.object.to_string(),
                    None,
                );
            }
            rows = graph.len() as u64;
            ldwarc_rdf::write_graph(&graph, OutputFormat::Turtle, None, out)
                .map_err(|e| SparqlError::Evaluation(format!("writing Turtle: {e}")))?;
        }
    }
    Ok(Answered { rows })
}

/// The table: a header of `?variable` names, a rule, then one line per solution, columns
/// padded to their widest cell (all rows are gathered first to know the widths).
fn write_table(
    solutions: QuerySolutionIter<'_>,
    max: u64,
    out: &mut dyn Write,
) -> Result<Answered, SparqlError> {
    let variables = solutions.variables().to_vec();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut counted = 0;
    for solution in solutions {
        let solution = solution?;
        count(&mut counted, max)?;
        rows.push(
            variables
                .iter()
                .map(|v| solution.get(v).map_or(String::new(), |t| t.to_string()))
                .collect(),
        );
    }
    let header: Vec<String> = variables.iter().map(|v| v.to_string()).collect();
    let widths: Vec<usize> = (0..variables.len())
        .map(|i| {
            rows.iter()
                .map(|row| row[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    writeln!(out, "{}", line(&header))?;
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    writeln!(out, "{}", line(&rule))?;
    for row in &rows {
        writeln!(out, "{}", line(row))?;
    }
    Ok(Answered {
        rows: rows.len() as u64,
    })
}
