//! `ldwarc sparql`: a SPARQL 1.1 query over the dataset as it stood at a date, over
//! [`ldwarc_core::sparql`].

use std::io::{self, Read, Write};

use clap::Args;

use super::RootsArg;
use super::output;
use super::replay_commands::ScopeArgs;
use ldwarc_core::replay::ReplayDate;
use ldwarc_core::sparql::{
    DatasetSource, DefaultGraph, GraphSyntax, LoadLimits, OutputChoice, ResultsFormat, SparqlError,
    SparqlQuery, answer, load_dataset_at, on_query_stack,
};
use ldwarc_core::triples::TripleIndex;

/// Arguments of `ldwarc sparql`.
#[derive(Debug, Args)]
pub struct SparqlArgs {
    #[command(flatten)]
    root: RootsArg,
    /// The dataset as it stood at DATE (same date forms as replay; a leading @ is allowed).
    #[arg(long, value_name = "DATE")]
    at: String,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Output of SELECT and ASK: W3C SPARQL results JSON, XML, CSV or TSV, or an aligned table
    /// (the default); of CONSTRUCT and DESCRIBE: N-Triples (the default) or Turtle.
    #[arg(long, value_enum, value_name = "table|json|xml|csv|tsv|nt|ttl")]
    format: Option<SparqlFormat>,
    /// The default graph: the union of all documents' graphs, or empty (then patterns name
    /// their graph with GRAPH). A query's own FROM/FROM NAMED clauses win.
    #[arg(long, value_enum, default_value = "union", value_name = "union|empty")]
    default_graph: DefaultGraphArg,
    /// The query text, @FILE to read it from FILE, or - to read it from standard input.
    #[arg(value_name = "QUERY|@FILE|-")]
    query: String,
}

/// `--format` of `ldwarc sparql`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SparqlFormat {
    /// Aligned columns for people.
    Table,
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL Query Results XML.
    Xml,
    /// SPARQL 1.1 Query Results CSV.
    Csv,
    /// SPARQL 1.1 Query Results TSV.
    Tsv,
    /// N-Triples (CONSTRUCT, DESCRIBE).
    Nt,
    /// Turtle (CONSTRUCT, DESCRIBE).
    Ttl,
}

/// `--default-graph` of `ldwarc sparql`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DefaultGraphArg {
    /// The union of every document's graph.
    Union,
    /// The empty graph.
    Empty,
}

/// The output the query form and `--format` call for; an error when they do not fit.
fn output_choice(
    format: Option<SparqlFormat>,
    returns_graph: bool,
) -> Result<OutputChoice, io::Error> {
    let results = match format {
        None | Some(SparqlFormat::Table) => ResultsFormat::Table,
        Some(SparqlFormat::Json) => ResultsFormat::Json,
        Some(SparqlFormat::Xml) => ResultsFormat::Xml,
        Some(SparqlFormat::Csv) => ResultsFormat::Csv,
        Some(SparqlFormat::Tsv) => ResultsFormat::Tsv,
        Some(SparqlFormat::Nt | SparqlFormat::Ttl) if !returns_graph => {
            return Err(invalid(
                "--format nt and ttl are for CONSTRUCT and DESCRIBE; SELECT and ASK print table, json, xml, csv or tsv".into(),
            ));
        }
        Some(_) => ResultsFormat::Table,
    };
    let graph = match format {
        None | Some(SparqlFormat::Nt) => GraphSyntax::NTriples,
        Some(SparqlFormat::Ttl) => GraphSyntax::Turtle,
        Some(other) if returns_graph => {
            return Err(invalid(format!(
                "--format {}: CONSTRUCT and DESCRIBE print a graph, as nt or ttl",
                format!("{other:?}").to_lowercase()
            )));
        }
        Some(_) => GraphSyntax::NTriples,
    };
    Ok(OutputChoice { results, graph })
}

/// The query text and where it came from (for messages).
fn read_query(argument: &str) -> io::Result<(String, String)> {
    if argument == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| invalid(format!("reading the query from standard input: {e}")))?;
        return Ok((text, "standard input".into()));
    }
    match argument.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map(|text| (text, path.to_string()))
            .map_err(|e| invalid(format!("{path}: {e}"))),
        None => Ok((argument.to_string(), "the query".into())),
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// A query error as the command reports it: the client's mistakes are bad input (exit 2).
fn to_io(error: SparqlError) -> io::Error {
    match error {
        SparqlError::Io(error) => error,
        other if other.is_client_error() => invalid(other.to_string()),
        other => io::Error::other(other.to_string()),
    }
}

/// The triple index of the one root given, when it has one that can be read (an unreadable
/// one is warned about: the WARC files still answer).
fn single_root_triple_index(roots: &RootsArg) -> Option<TripleIndex> {
    let [root] = roots.roots.as_slice() else {
        return None;
    };
    TripleIndex::open_if_built(root).unwrap_or_else(|error| {
        output::suspend_progress(|| eprintln!("ldwarc: warning: {error}"));
        None
    })
}

/// `ldwarc sparql`: on a thread whose stack holds the deepest query accepted (parsing and
/// evaluating recurse once per level of the query's nesting).
pub fn sparql_command(args: SparqlArgs) -> io::Result<i32> {
    on_query_stack(move || query_command(args)).map_err(to_io)?
}

fn query_command(args: SparqlArgs) -> io::Result<i32> {
    let date_text = args.at.strip_prefix('@').unwrap_or(&args.at);
    let date = ReplayDate::parse(date_text).map_err(|e| invalid(format!("--at: {e}")))?;
    let (text, source) = read_query(&args.query)?;
    // The query is checked before the archive is read: a typo costs no dataset build.
    let query =
        SparqlQuery::parse(&text, None).map_err(|e| invalid(format!("{source}: {}", to_io(e))))?;
    let output = output_choice(args.format, query.form().returns_graph())?;
    let default_graph = match args.default_graph {
        DefaultGraphArg::Union => DefaultGraph::Union,
        DefaultGraphArg::Empty => DefaultGraph::Empty,
    };
    let archive = args.root.open()?;
    let triples = single_root_triple_index(&args.root);
    let spinner = output::spinner("sparql");
    spinner.set_message(format!("building the dataset as of {}", date.timestamp()));
    let mut report = |line: &str| output::suspend_progress(|| eprintln!("ldwarc: {line}"));
    let dataset = load_dataset_at(
        &archive,
        triples.as_ref(),
        &args.scope.scope(),
        &date,
        &LoadLimits::default(),
        &mut report,
    )
    .map_err(to_io)?;
    spinner.set_message(format!("querying {} statements", dataset.len()));
    let mut out = output::stdout();
    let answered =
        answer(&query, &dataset, default_graph, output, None, &mut out).map_err(to_io)?;
    out.flush()?;
    spinner.finish_and_clear();
    let summary = &dataset.summary;
    eprintln!(
        "ldwarc: dataset as of {} ({}): {} documents, {} statements ({} left out); {} {}",
        date.timestamp(),
        match dataset.source {
            DatasetSource::TripleIndex => "from the triple index",
            DatasetSource::Replay => "replayed from the WARC files",
        },
        summary.documents,
        dataset.len(),
        summary.failed,
        answered.rows,
        if query.form().returns_graph() {
            "triples"
        } else {
            "results"
        }
    );
    if dataset.skipped_statements > 0 {
        eprintln!(
            "ldwarc: warning: {} statements left out: their terms have no SPARQL form",
            dataset.skipped_statements
        );
    }
    Ok(if summary.failed > 0 { 1 } else { 0 })
}
