//! `ldwarc sparql`: a SPARQL 1.1 query over the dataset as it stood at a date, over
//! [`ldwarc_timetravel::sparql`].

use std::io::{self, Read, Write};

use clap::Args;

use super::RootsArg;
use super::flags;
use super::output;
use super::replay_commands::ScopeArgs;
use ldwarc_timetravel::replay::ReplayDate;
use ldwarc_timetravel::sparql::{
    DatasetSource, DefaultGraph, GraphSyntax, LoadLimits, OutputChoice, ResultsFormat, SparqlError,
    SparqlQuery, answer, load_dataset_at, on_query_stack,
    worker::{self, WorkerEnd, WorkerLimits, run_worker},
};
use ldwarc_timetravel::triples::TripleIndex;

/// Arguments of `ldwarc sparql`.
#[derive(Debug, Args)]
pub struct SparqlArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// The dataset as it stood at DATE, instead of @DATE before the query (same date forms as
    /// replay, now included; a leading @ is allowed).
    #[arg(long, value_name = "DATE")]
    at: Option<String>,
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
    /// Memory the query may hold, its dataset and its evaluation together (an ORDER BY,
    /// GROUP BY or DISTINCT holds every solution it orders or groups): past it the query is
    /// stopped with an error (exit status 2). Sizes take units (512MiB, 8GiB).
    #[arg(long, default_value = "4GiB", value_name = "SIZE", value_parser = flags::size)]
    max_memory: u64,
    /// Most results (solutions, or triples of CONSTRUCT and DESCRIBE) written: past it the
    /// query stops with an error (exit status 2) after writing that many. No limit by default.
    #[arg(long, value_name = "N", value_parser = flags::positive_count)]
    max_results: Option<usize>,
    /// Run as the process that evaluates a query for another ldwarc (`ldwarc sparql` and
    /// `ldwarc serve` start it, watch its memory and time, and read its answer): the query on
    /// standard input, exit status 2 for a bad query, 3 past --max-results, 4 on a failure.
    #[arg(long, hide = true)]
    worker: bool,
    /// @DATE (unless --at is given), then the query: its text, @FILE to read it from FILE,
    /// or - to read it from standard input.
    #[arg(value_name = "[@DATE] QUERY|@FILE|-", num_args = 1..=2, required = true)]
    positional: Vec<String>,
}

impl SparqlArgs {
    /// The date and the query argument: `@DATE QUERY`, or `QUERY` with `--at DATE`.
    fn date_and_query(&self) -> io::Result<(ReplayDate, &str)> {
        let (date, query) = match (self.positional.as_slice(), &self.at) {
            ([query], Some(at)) => (super::dates::at("--at", at), query),
            ([date, query], None) => (super::dates::at("@DATE", date), query),
            ([_, _], Some(_)) => {
                return Err(invalid(
                    "the date is given twice: give @DATE before the query or --at DATE".into(),
                ));
            }
            _ => {
                return Err(invalid(
                    "give the date: @DATE before the query, or --at DATE".into(),
                ));
            }
        };
        Ok((date.map_err(invalid)?, query))
    }
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
/// The error is kept inside (a worker's exit status tells its kind).
fn to_io(error: SparqlError) -> io::Error {
    match error {
        SparqlError::Io(error) => error,
        other if other.is_client_error() || matches!(other, SparqlError::TooManyResults(_)) => {
            io::Error::new(io::ErrorKind::InvalidInput, other)
        }
        other => io::Error::other(other),
    }
}

/// The triple index of the one root given, when it has one that can be read (an unreadable
/// one is warned about: the WARC files still answer).
fn single_root_triple_index(roots: &RootsArg) -> Option<TripleIndex> {
    let [root] = roots.roots.as_slice() else {
        return None;
    };
    TripleIndex::open_if_built(root).unwrap_or_else(|error| {
        tracing::warn!(target: super::logging::CLI_TARGET, "{error}");
        None
    })
}

/// `ldwarc sparql`: the query is checked here, then evaluated by a worker process (this
/// program with `--worker`) whose memory is watched: one past `--max-memory` is killed, and
/// the command fails with exit status 2 saying so. Its answer is copied to standard output as
/// it comes, its messages to standard error.
pub fn sparql_command(args: SparqlArgs) -> io::Result<i32> {
    if args.worker {
        return Ok(work(args));
    }
    let (date, query) = args.date_and_query()?;
    let (text, source) = read_query(query)?;
    // The query is checked before the archive is read: a typo costs no dataset build.
    // Parsed and dropped on the query stack: both recurse once per level of nesting.
    let form = on_query_stack(|| SparqlQuery::parse(&text, None).map(|query| query.form()))
        .and_then(|parsed| parsed)
        .map_err(|e| invalid(format!("{source}: {}", to_io(e))))?;
    output_choice(args.format, form.returns_graph())?;
    let program = ldwarc_timetravel::sparql::worker::this_program()
        .map_err(|e| io::Error::other(format!("finding this program to run the query: {e}")))?;
    let mut command = std::process::Command::new(program);
    command.args(worker_arguments(&args, &date));
    let limits = WorkerLimits {
        memory: args.max_memory,
        deadline: None,
        abandoned: None,
    };
    let mut out = io::stdout().lock();
    let mut write_failed = None;
    let end = run_worker(command, text.as_bytes(), &limits, &mut |chunk| match out
        .write_all(chunk)
        .and_then(|()| out.flush())
    {
        Ok(()) => true,
        Err(error) => {
            write_failed = Some(error);
            false
        }
    })
    .map_err(|e| io::Error::other(format!("starting the query's worker process: {e}")))?;
    if let Some(error) = write_failed {
        return Err(error);
    }
    match end {
        WorkerEnd::Exited { status, stderr } => {
            // The worker logs as this process does (the same flags): its lines pass as they are.
            io::stderr().write_all(stderr.as_bytes())?;
            match status.code() {
                Some(code) if code == worker::EXIT_TOO_MANY_RESULTS => Ok(2),
                Some(code) if code == worker::EXIT_FAILED => Ok(2),
                Some(code) => Ok(code),
                None => Err(io::Error::other(format!(
                    "the query's worker process ended abnormally ({status})"
                ))),
            }
        }
        WorkerEnd::OverMemory { .. } => Err(invalid(format!(
            "the query needed more than {} of memory (--max-memory), its dataset and its \
             evaluation together: narrow it (LIMIT, a FILTER, --prefix, --host or --domain), or \
             give a larger --max-memory",
            size_text(args.max_memory)
        ))),
        WorkerEnd::TimedOut | WorkerEnd::Abandoned => Ok(0),
    }
}

/// The arguments that run `args` as a worker, the query on standard input.
fn worker_arguments(args: &SparqlArgs, date: &ReplayDate) -> Vec<String> {
    let mut arguments = super::logging::child_arguments();
    arguments.extend(["sparql".to_string(), "--worker".to_string()]);
    for root in &args.root.roots {
        arguments.push(format!("--root={}", root.display()));
    }
    // The instant, not what was written: `now` is the same second for the worker.
    arguments.push(format!("--at={}", date.timestamp()));
    arguments.extend(args.scope.arguments());
    if let Some(format) = args.format
        && let Some(value) = clap::ValueEnum::to_possible_value(&format)
    {
        arguments.push(format!("--format={}", value.get_name()));
    }
    if let Some(value) = clap::ValueEnum::to_possible_value(&args.default_graph) {
        arguments.push(format!("--default-graph={}", value.get_name()));
    }
    if let Some(max) = args.max_results {
        arguments.push(format!("--max-results={max}"));
    }
    arguments.push("-".to_string());
    arguments
}

/// A size for people: whole MiB or GiB when it is one, else bytes.
fn size_text(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(1024 * MIB) {
        format!("{}GiB", bytes / (1024 * MIB))
    } else if bytes.is_multiple_of(MIB) {
        format!("{}MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// `ldwarc sparql --worker`: answers on a thread whose stack holds the deepest query accepted
/// (parsing and evaluating recurse once per level of the query's nesting), and says how it
/// ended by its exit status.
fn work(args: SparqlArgs) -> i32 {
    // A worker whose parent is gone (killed, or gave up) stops too.
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    }
    let result = on_query_stack(move || query_command(args)).map_err(to_io);
    match result.and_then(|answered| answered) {
        Ok(code) => code,
        Err(error) => {
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
            let sparql = error
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<SparqlError>());
            if matches!(sparql, Some(SparqlError::TooManyResults(_))) {
                worker::EXIT_TOO_MANY_RESULTS
            } else if error.kind() == io::ErrorKind::InvalidInput {
                worker::EXIT_BAD_QUERY
            } else {
                worker::EXIT_FAILED
            }
        }
    }
}

fn query_command(args: SparqlArgs) -> io::Result<i32> {
    let (date, query) = args.date_and_query()?;
    let (text, source) = read_query(query)?;
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
    let mut report = |line: &str| tracing::warn!(target: super::logging::NOTICE_TARGET, "{line}");
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
    let answered = answer(
        &query,
        &dataset,
        default_graph,
        output,
        None,
        args.max_results.map(|max| max as u64),
        &mut out,
    )
    .map_err(to_io)?;
    out.flush()?;
    spinner.finish_and_clear();
    let summary = &dataset.summary;
    tracing::info!(
        target: super::logging::NOTICE_TARGET, "dataset as of {} ({}): {}, {} ({} left out); {}",
        date.timestamp(),
        match dataset.source {
            DatasetSource::TripleIndex => "from the triple index",
            DatasetSource::Replay => "replayed from the WARC files",
        },
        output::count(summary.documents as u64, "document"),
        output::count(dataset.len() as u64, "statement"),
        summary.failed,
        output::count(
            answered.rows as u64,
            if query.form().returns_graph() {
                "triple"
            } else {
                "result"
            }
        )
    );
    if dataset.skipped_statements > 0 {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{} statements left out: their terms have no SPARQL form",
            dataset.skipped_statements
        );
    }
    Ok(if summary.failed > 0 { 1 } else { 0 })
}

/// `ldwarc sparql`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const SPARQL_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc sparql --at 2024-03-15 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'",
            "statements in the dataset that day",
        ),
        (
            "ldwarc sparql --at 2024 --format json @people.rq",
            "a query from a file, W3C JSON results",
        ),
        (
            "ldwarc sparql --at 202406 --default-graph empty 'SELECT ?g WHERE { GRAPH ?g { ?s a ?t } }'",
            "which documents say what",
        ),
    ],
    exit_status: &[
        (
            "1",
            "a document could not be read or parsed (each is reported; the answer is given without it)",
        ),
        (
            "2",
            "bad arguments or input, a query syntax error (its line and column), or an unreadable archive",
        ),
    ],
    environment: &[],
    files: super::help::ROOT_FILES,
};
