//! The command line: argument parsing and output only; every command calls into the library.

mod crawl_commands;
mod dates;
mod describe;
mod docs;
mod extract_command;
mod flags;
mod help;
mod hints;
mod index_commands;
mod logging;
mod monitor_commands;
mod object_roots;
mod output;
mod parse_command;
mod plan_commands;
mod replay_commands;
mod schedule_commands;
mod serve_commands;
mod sparql_command;
mod stats_commands;
mod verify;
mod wacz_commands;
mod warc_commands;
mod when_command;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// ldwarc: archive the Web of Linked Data over time.
#[derive(Debug, Parser)]
#[command(
    name = "ldwarc",
    version,
    about = "Archive the Web of Linked Data over time",
    long_about = "ldwarc captures RDF documents into standard WARC files, indexes every capture by URL \
                  and time, rebuilds graphs as they were on any date, and serves the archive to Wayback \
                  and Memento tools.\n\nEverything is in UTC."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    log: logging::LogArgs,
}

pub use flags::{RootArg, RootsArg};

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate WARC/ARC files: framing, gzip members, mandatory fields, digests, revisits.
    #[command(
        long_about = "Validate WARC/ARC files: framing, gzip member boundaries, mandatory header \
        fields and their placement per record type, block and payload digests, revisit fields.\n\n\
        Prints one line per problem (file:offset: severity: message) and a summary line. Exits 1 \
        when an error is found (or a warning, with --strict), 2 when a file cannot be opened.\n\n\
        Without PATH, checks every file under <root>/warc."
    )]
    Check(warc_commands::CheckArgs),
    /// List records: offset, length, type, date, status, mime, payload digest, target URI.
    #[command(
        long_about = "List the records of WARC/ARC files, one line each: offset, length, type, \
        date, HTTP status, mime type, payload digest and target URI (`-` where absent), or the --fields \
        chosen; with --format json, one JSON object per line. Without PATH, lists every file under \
        <root>/warc; `-` reads standard input."
    )]
    Ls(warc_commands::LsArgs),
    /// Write one record (or its headers, or its payload) as warcio extract does.
    Extract(extract_command::ExtractArgs),
    /// Bring the capture index up to date with the WARC tree (incremental), or rebuild or verify it.
    #[command(
        long_about = "Bring the capture index under <root>/index up to date with the WARC files under \
        <root>/warc: new files and files that grew since the last run are read; running it twice adds \
        nothing; a killed run resumes exactly where its last commit stopped. --rebuild reads every file \
        again on all cores. --verify proves the index and the files agree and that every revisit \
        resolves to its original, listing what does not (exit 1)."
    )]
    Index(index_commands::IndexArgs),
    /// Export the index as byte-sorted CDXJ (as cdxj-indexer writes) or CDX-11, streamed.
    #[command(
        long_about = "Export the capture index as CDXJ (the lines cdxj-indexer --dir-root <root>/warc \
        writes for the same files) or as CDX-11 with its legend line (what OpenWayback and OutbackCDX \
        read), byte-sorted and streamed. Filenames are relative to <root>/warc. With URL-PREFIX, only \
        captures under that prefix. --format parquet --output DIR writes Parquet files in Common \
        Crawl's cc-index-table layout instead, adding only what is new on each run (docs/columnar.md)."
    )]
    Cdx(index_commands::CdxArgs),
    /// Find captures by URL and time, with the pywb CDX server's semantics.
    #[command(
        long_about = "Find captures by URL and time with the semantics of pywb's CDX server: match \
        types exact/prefix/host/domain (also implied by *.host and prefix*), --from/--to with pywb's \
        padding, --closest (the earlier capture wins ties), reverse order, --limit, filters and field \
        selection. Unlike pywb, an exact match also requires the stored URL to equal the query URL \
        case-sensitively (SURT folds case; Linked Data URIs are case-sensitive)."
    )]
    Query(index_commands::QueryArgs),
    /// Crawl Linked Data politely into the archive: content negotiation, rounds, robots.txt.
    #[command(
        long_about = "Crawl Linked Data into the archive, as the DyLDO observatory crawls: breadth-first \
        rounds up to --hops from the seeds, per-PLD queues polled round-robin with at most one request \
        per pay-level domain at a time and --delay between two (or robots.txt's Crawl-delay, if larger), \
        robots.txt obeyed (RFC 9309), redirects followed in the same round (each hop its own capture), \
        every RDF syntax parsed for links. Every fetch is written as request + response (or revisit) + \
        metadata records, indexed as it is written, and logged in <root>/state. A crawl killed at any \
        point continues with --resume. Options can also be set under [crawl] in <root>/ldwarc.toml; \
        flags win. Progress is shown on a terminal; the summary goes to stderr, or to stdout with --format json."
    )]
    Crawl(crawl_commands::CrawlArgs),
    /// The RDF graph of a URL as it was at a date (revisits and redirects resolved).
    #[command(
        long_about = "Print the RDF graph of URL as the archive had it at DATE: the latest capture at \
        or before DATE (--pick closest: the nearest on either side, as pywb picks, the earlier winning \
        ties). DATE is a 1-14 digit Wayback timestamp or ISO 8601; it is UTC unless it carries an \
        offset, and a partial date means the end of its period (20240315 and 2024-03-15 both mean \
        2024-03-15T23:59:59Z). Revisits resolve to their original payload; archived redirects \
        (301/302/303/307/308) are followed to the target's capture for the same date; the payload \
        is parsed by its Content-Type, with sniffing as fallback; JSON-LD contexts come from the \
        archive, then from the bundled set, never from the live web. The capture used (timestamp, \
        file, offset) is printed on stderr. --raw writes the archived payload bytes instead."
    )]
    Replay(replay_commands::ReplayArgs),
    /// Every capture of a URL with status, digest, and whether its RDF graph changed.
    #[command(
        long_about = "List every capture of URL, oldest first: timestamp, HTTP status, record type, \
        payload digest, statements, the first 16 hex digits of the graph's RDFC-1.0 canonical hash \
        (SHA-256; marked ~ when the graph was too symmetric for RDFC-1.0 and an approximate hash \
        was used) and the change: first, changed (the graph differs from the previous graph), \
        same-graph (other bytes, same graph: a re-serialisation or blank-node relabelling), \
        unchanged (same bytes), redirect, or no-graph (an error status or a payload that is not RDF)."
    )]
    History(replay_commands::HistoryArgs),
    /// The dataset as of a date: one named graph per document, as N-Quads or TriG, streamed.
    #[command(
        long_about = "Write every document in the archive (or under --prefix, on --host, in --domain) \
        as it stood at DATE, as N-Quads with the document URL as graph name (or TriG), as DyLDO \
        publishes its snapshots. A URL is a document at DATE when its latest capture at or before DATE \
        is a successful RDF answer; redirecting URLs are left out (their target is a document under \
        its own URL). Blank nodes are kept apart per document. Output is streamed: a snapshot larger \
        than memory works. Exits 1 when a document could not be read or parsed (each is reported)."
    )]
    Snapshot(replay_commands::SnapshotArgs),
    /// The archive as VoID + DCAT 3: a catalogue of its datasets, one per domain and crawl day.
    #[command(
        long_about = "Print the archive's description in VoID and DCAT 3 (what `ldwarc serve` answers \
        at /.well-known/void): a dcat:Catalog with one dcat:DatasetSeries per pay-level domain and \
        one dcat:Dataset per crawl day of that domain (a UTC day with captures of it), standing for \
        the domain's documents as `ldwarc snapshot` has them at the end of that day. Each dataset \
        carries dct:issued, dct:temporal, VoID statistics (triples, entities, distinct subjects and \
        objects, properties, class and property partitions), its documents (dct:source) and their \
        mementos (prov:wasDerivedFrom), and an N-Quads gzip distribution at the server's \
        /download/DAY/PLD.nq.gz. --base is the URL the archive is served at. Exits 1 when a \
        document could not be read or parsed (each is reported)."
    )]
    Describe(describe::DescribeArgs),
    /// Statements added and removed between two captures, two dates, or two RDF files.
    #[command(
        long_about = "URL@DATE1 [URL@]DATE2: the statements removed and added between the graphs \
        of two captures, as RDF Patch (D and A lines), N-Triples with - and + prefixes, or SPARQL \
        Update. Statements without blank nodes are compared directly; statements with blank nodes \
        are compared as canonical units (each set of statements connected through blank nodes), so \
        a relabelled but equal structure is not a change and adding one structure does not show the \
        others as removed and re-added. Removed statements carry the blank node labels `ldwarc \
        replay --format nt` prints for the old capture. A structure too symmetric for canonical \
        labelling is compared approximately, and the diff says so on stderr.\n\n@DATE1 @DATE2: \
        every document (or those under --prefix, on --host, in --domain) as added, removed, changed \
        or unchanged, with statement counts (--triples for the statements themselves).\n\n\
        FILE1 FILE2: the same for two local RDF files (syntax by extension, then sniffing)."
    )]
    Diff(replay_commands::DiffArgs),
    /// The intervals during which the statements matching a triple pattern held, per document.
    #[command(
        long_about = "PATTERN is a triple pattern: three terms in Turtle syntax (IRIs in angle \
        brackets, literals, numbers, `a`) or variables (?name). For each statement of each document \
        matching it, prints the intervals during which the document held it: from the capture that \
        added it until the capture that removed it (a change, a redirect, an error status or a \
        payload that is not RDF), or until now. --from and --to keep the intervals overlapping that \
        window. Answers come from the versioned triple index (`ldwarc index --triples`) without \
        reading any WARC file."
    )]
    When(when_command::WhenArgs),
    /// A SPARQL 1.1 query over the dataset as of a date: each document a named graph.
    #[command(
        long_about = "Answer a SPARQL 1.1 query (SELECT, ASK, CONSTRUCT or DESCRIBE) over the \
        dataset as it stood at DATE: the documents `ldwarc snapshot @DATE` writes (or those under \
        --prefix, on --host, in --domain), each one a named graph named by its URL, the default \
        graph their union (--default-graph empty: the empty graph). The dataset is built in memory \
        from the archive for each run; nothing is written. SELECT and ASK print an aligned table, \
        or the W3C SPARQL 1.1 results formats (--format json, xml, csv, tsv); CONSTRUCT and \
        DESCRIBE print N-Triples or Turtle (--format ttl). QUERY is the query text, @FILE reads \
        it from a file, - from standard input. A syntax error is reported with its line and \
        column before the archive is read. SERVICE is not supported: no query reaches the \
        network. Exits 1 when a document could not be read or parsed (each is reported)."
    )]
    Sparql(sparql_command::SparqlArgs),
    /// Parse RDF files or HTML/XHTML pages (RDFa, Microdata, JSON-LD) to any RDF syntax.
    Parse(parse_command::ParseArgs),
    /// A self-contained tour: serve a sample Linked Data web on loopback, crawl it three times, replay.
    #[command(
        long_about = "Serve the bundled sample Linked Data web on loopback (no network needed), \
        crawl it in three epochs between which documents change into DIR, and print what history, \
        replay and diff show, then how to go on."
    )]
    Demo {
        /// Directory for the demo archive (must be empty or absent).
        #[arg(default_value = "ldwarc-demo")]
        dir: PathBuf,
    },
    /// Change statistics of the archive: per-URL change rates, ages, lifetimes, Weibull fit, plots.
    Stats(stats_commands::StatsArgs),
    /// Replay change histories against re-crawl strategies: recall, precision, downloads.
    Simulate(schedule_commands::SimulateArgs),
    /// The observatory loop: re-crawl a kernel and its segment as the strategy says, detect changes, adapt.
    #[command(
        long_about = "Monitor a kernel of seed URLs (stored once, always kept) and the adaptive segment \
        of documents within --hops links of it, as the DyLDO observatory does: each cycle downloads the \
        URLs the re-crawl strategy says are due through the crawler (same politeness, WARC output and \
        crawl log as ldwarc crawl, no link following), detects changes by payload bytes and by canonical \
        RDF graph, and adapts each URL's interval. Every cycle's crawl-time estimate and actual time go \
        to stderr and to the monitor_cycles table. --once runs one cycle (for cron); otherwise a cycle \
        runs every --every. Cycles never overlap (a lock under <root>/state); a killed cycle loses \
        nothing but its own uncommitted downloads, which the next cycle repeats. See docs/scheduling.md."
    )]
    Monitor(monitor_commands::MonitorArgs),
    /// Serve the archive: CDX API, Wayback-style replay, Memento TimeGate/TimeMaps, pages.
    Serve(serve_commands::ServeArgs),
    /// Finalise WARC files a killed writer left open (*.warc.gz.open): keep complete records, cut the tail.
    Recover(warc_commands::RecoverArgs),
    /// Plan re-crawling from the change models: (α, β)-currency periods and bandwidth.
    Plan(plan_commands::PlanArgs),
    /// Package the archive (or a selection) as a WACZ file: WARCs, CDXJ index, pages, datapackage.
    Export(wacz_commands::ExportArgs),
    /// Bring a WACZ package's WARC files into the archive (hashes checked) and index them.
    Import(wacz_commands::ImportArgs),
    /// Write man pages and shell completions generated from this command line definition.
    #[command(hide = true)]
    GenDocs {
        /// Output directory.
        #[arg(long, default_value = "man")]
        out: PathBuf,
    },
}

/// `ldwarc demo`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
const DEMO_HELP: help::Sections = help::Sections {
    examples: &[("ldwarc demo", "the offline tour, into ./ldwarc-demo")],
    exit_status: &[(
        "2",
        "DIR is not empty and not an earlier demo's archive (nothing in it is touched), or \
         the demo could not run",
    )],
    environment: &[],
    files: &[("ldwarc-demo/", "the demo's archive (replaced on each run)")],
};

/// Runs the command line; returns the process exit status.
pub fn run() -> i32 {
    let parsed = command().try_get_matches().and_then(|matches| {
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).map(|cli| (cli, matches))
    });
    let (mut cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return usage_error(error),
    };
    logging::init(&cli.log);
    flags::emit_deprecations();
    if let Err(error) = object_roots::resolve(&mut cli.command, &matches) {
        tracing::error!(target: logging::CLI_TARGET, "{error}");
        return 2;
    }
    if let Err(error) = require_archives(&cli.command) {
        tracing::error!(target: logging::CLI_TARGET, "{}", hints::message(&error));
        return 2;
    }
    let result = match cli.command {
        Command::Check(args) => warc_commands::check(args),
        Command::Ls(args) => warc_commands::ls(args),
        Command::Extract(args) => extract_command::extract(args),
        Command::Recover(args) => warc_commands::recover(args),
        Command::Crawl(args) => crawl_commands::crawl_command(args),
        Command::Index(args) => index_commands::index(args),
        Command::Cdx(args) => index_commands::cdx(args),
        Command::Query(args) => index_commands::query(args),
        Command::Plan(args) => plan_commands::plan(args),
        Command::Replay(args) => replay_commands::replay(args),
        Command::Serve(args) => serve_commands::serve(args),
        Command::Export(args) => wacz_commands::export(args),
        Command::Import(args) => wacz_commands::import(args),
        Command::Stats(args) => stats_commands::stats(args),
        Command::Simulate(args) => schedule_commands::simulate(args),
        Command::Monitor(args) => monitor_commands::monitor(args),
        Command::History(args) => replay_commands::history_command(args),
        Command::Snapshot(args) => replay_commands::snapshot_command(args),
        Command::Describe(args) => describe::describe_command(args),
        Command::Diff(args) => replay_commands::diff_command(args),
        Command::When(args) => when_command::when_command(args),
        Command::Sparql(args) => sparql_command::sparql_command(args),
        Command::Parse(args) => parse_command::parse_command(args),
        Command::Demo { dir } => {
            let mut out = std::io::stdout();
            crate::demo::run_demo(&dir, &mut out).map(|()| 0)
        }
        Command::GenDocs { out } => docs::generate(&out).map(|()| 0),
    };
    match result {
        Ok(code) => code,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(error) => {
            // One line, whatever the message (a parser's may span several): scripts and log
            // collectors read the first line of stderr.
            let message: Vec<String> = hints::message(&error)
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_string)
                .collect();
            tracing::error!(target: logging::CLI_TARGET, "{}", message.join(" "));
            2
        }
    }
}

/// Refuses a command that reads an archive (or, as `index`, only adds to one) when a root
/// it names is not one, before anything is opened or created. `diff` checks when it reads
/// the archive (two files need none); `check` and `ls` read the files they are given.
fn require_archives(command: &Command) -> std::io::Result<()> {
    match command {
        Command::Index(args) => args.root.require_archive(),
        Command::Cdx(args) => args.root.require_archives(),
        Command::Query(args) => args.root.require_archives(),
        Command::Replay(args) => args.root.require_archives(),
        Command::History(args) => args.root.require_archives(),
        Command::Snapshot(args) => args.root.require_archives(),
        Command::Describe(args) => args.root.require_archives(),
        Command::When(args) => args.root.require_archives(),
        Command::Sparql(args) => args.root.require_archives(),
        Command::Stats(args) => args.root.require_archives(),
        Command::Serve(args) => args.roots.require_archives(),
        Command::Export(args) => args.roots.require_archives(),
        _ => Ok(()),
    }
}

/// Reports a command line clap refused, on one line (scripts and logs read the first line
/// of stderr); help and version requests are printed as clap prints them.
fn usage_error(error: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    // The command line was not understood, so the log is set up from what can be read of it
    // (-q, --log-format json) for the error to come out as every other message does.
    logging::init_from_raw(std::env::args_os());
    let line = one_line(&error.render().to_string());
    let message = line.strip_prefix("error: ").unwrap_or(&line);
    tracing::error!(target: logging::CLI_TARGET, "{message}");
    2
}

/// clap's error text on one line: the message and its tip, without the usage block.
fn one_line(rendered: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !line.is_empty() {
            parts.push(line);
        }
    }
    parts.join("; ")
}

/// The clap definition, for generating man pages and completions.
pub fn command() -> clap::Command {
    help::attach(<Cli as clap::CommandFactory>::command())
}
