//! `ldwarc replay`, `history`, `snapshot` and `diff`: argument parsing and output over
//! [`ldwarc_timetravel::replay`].

use ldwarc_warc::RecordType;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::RootsArg;
use super::{flags, output};
use ldwarc_rdf::{
    DiffFormat, EmbeddedSyntaxes, Graph, OutputFormat, SNIFF_LEN, Syntax, choose_syntaxes, diff,
    mislabelled, parse_graph, write_graph,
};
use ldwarc_timetravel::replay::{
    Document, DocumentChange, DocumentDiff, Pick, ReplayArchive, ReplayDate, Scope, SnapshotFormat,
    diff_dataset, history, snapshot,
};

impl RootsArg {
    /// Opens the roots for replay.
    pub fn open(&self) -> io::Result<ReplayArchive> {
        self.require_archives()?;
        ReplayArchive::open_many(&self.roots).map_err(io::Error::from)
    }
}

/// Arguments of `ldwarc replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// URL@DATE: DATE is a 1-14 digit Wayback timestamp, ISO 8601 (UTC unless it has an
    /// offset; a partial date means the end of its period) or now. URL alone means the latest
    /// capture.
    #[arg(value_name = "URL@DATE")]
    target: String,
    /// The date, instead of @DATE after the URL (the URL is then taken whole, @ and all).
    #[arg(long, value_name = "DATE")]
    at: Option<String>,
    /// Output syntax of the graph (default: nt, or nq when the document has named graphs;
    /// json is JSON-LD).
    #[arg(long, value_name = "nt|ttl|nq|trig|jsonld|json|rdfxml")]
    format: Option<OutputFormat>,
    /// Write the archived payload bytes as they were served (Content-Encoding kept).
    #[arg(long, conflicts_with = "format")]
    raw: bool,
    /// Which capture answers: the latest at or before DATE, or the closest on either side.
    #[arg(long, default_value = "before", value_name = "before|closest")]
    pick: Pick,
    /// HTML pages: keep only these embedded syntaxes (comma-separated).
    #[arg(long, value_name = "rdfa,microdata,jsonld,turtle", default_value = EMBEDDED_ALL)]
    syntax: EmbeddedSyntaxes,
}

/// Every embedded syntax, the default of `--syntax`.
const EMBEDDED_ALL: &str = "rdfa,microdata,jsonld,turtle";

/// Arguments of `ldwarc history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// The URL whose captures to list.
    url: String,
    /// Only captures at or after this date (a partial date: from the start of its period);
    /// each change is still the change since the capture before, listed or not.
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Only captures at or before this date (a partial date: to the end of its period).
    #[arg(long, value_name = "DATE")]
    to: Option<String>,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// The part of the archive a dataset command covers.
#[derive(Debug, Clone, Args)]
pub struct ScopeArgs {
    /// Only URLs starting with this prefix.
    #[arg(long, value_name = "URL", conflicts_with_all = ["host", "domain"])]
    prefix: Option<String>,
    /// Only URLs on this host.
    #[arg(long, value_name = "HOST", conflicts_with = "domain")]
    host: Option<String>,
    /// Only URLs on this domain and its subdomains (e.g. a pay-level domain).
    #[arg(long, value_name = "DOMAIN")]
    domain: Option<String>,
}

impl ScopeArgs {
    /// The options as given, to pass them on (`--prefix=URL`).
    pub(super) fn arguments(&self) -> Vec<String> {
        [
            ("prefix", &self.prefix),
            ("host", &self.host),
            ("domain", &self.domain),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some(format!("--{name}={}", value.as_ref()?)))
        .collect()
    }

    /// The scope the options name (the whole archive when none is given).
    pub(super) fn scope(&self) -> Scope {
        if let Some(prefix) = &self.prefix {
            Scope::Prefix(prefix.clone())
        } else if let Some(host) = &self.host {
            Scope::Host(host.clone())
        } else if let Some(domain) = &self.domain {
            Scope::Domain(domain.clone())
        } else {
            Scope::All
        }
    }
}

/// Arguments of `ldwarc snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// @DATE: the dataset as it stood then (same date forms as replay, now included).
    #[arg(
        value_name = "@DATE",
        required_unless_present = "at",
        conflicts_with = "at"
    )]
    date: Option<String>,
    /// The date, instead of @DATE.
    #[arg(long, value_name = "DATE")]
    at: Option<String>,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Output: N-Quads (graph name = document URL), nq.gz (the same, gzip), TriG, json (JSON
    /// Lines: one `{"document": URL, "graph": expanded JSON-LD}` object per document), or hdt
    /// (HDT 1.0: the distinct triples of all documents; HDT has no named graphs, so which
    /// document said what is not kept). nq.gz and hdt are binary: they need -o FILE, or
    /// -o - with standard output not a terminal.
    #[arg(long, default_value = "nq", value_name = "nq|nq.gz|trig|json|hdt")]
    format: String,
    /// Write to FILE instead of standard output (replaced only when complete; - is stdout).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// HTML pages: keep only these embedded syntaxes (comma-separated).
    #[arg(long, value_name = "rdfa,microdata,jsonld,turtle", default_value = EMBEDDED_ALL)]
    syntax: EmbeddedSyntaxes,
}

/// Arguments of `ldwarc diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// URL@DATE1, @DATE1 (the whole dataset or --prefix/--host/--domain), or an RDF file.
    #[arg(value_name = "URL@DATE1")]
    old: String,
    /// [URL@]DATE2 (the same URL when omitted), @DATE2, or an RDF file.
    #[arg(value_name = "[URL@]DATE2")]
    new: String,
    /// Output: RDF Patch (A/D lines), N-Triples with +/- prefixes, SPARQL Update, or json
    /// (graph diffs: one object with the removed and added statements as N-Triples; dataset
    /// diffs: one object per document and a final summary object).
    #[arg(
        long,
        value_enum,
        default_value = "patch",
        value_name = "patch|nt|sparql|json"
    )]
    format: DiffOutput,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Dataset diffs: also print each changed document's statements.
    #[arg(long)]
    triples: bool,
    /// Dataset diffs: also list unchanged documents.
    #[arg(long)]
    all: bool,
    /// Deprecated: use --format json.
    #[arg(long, hide = true)]
    json: bool,
    /// Exit with status 1 when there are differences (as diff(1) does).
    #[arg(long)]
    exit_code: bool,
}

/// What `ldwarc diff` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DiffOutput {
    /// RDF Patch: `D` and `A` lines.
    Patch,
    /// N-Triples lines prefixed `-` and `+`.
    Nt,
    /// SPARQL Update (DELETE DATA / INSERT DATA).
    Sparql,
    /// JSON for programs.
    #[value(alias = "jsonl")]
    Json,
}

impl DiffArgs {
    fn output(&self) -> DiffOutput {
        super::flags::format_or_json(Some(self.format), self.json, DiffOutput::Json, self.format)
    }

    fn is_json(&self) -> bool {
        self.output() == DiffOutput::Json
    }

    /// The statement syntax of the text outputs (JSON carries N-Triples).
    fn statement_format(&self) -> DiffFormat {
        match self.output() {
            DiffOutput::Patch => DiffFormat::Patch,
            DiffOutput::Sparql => DiffFormat::Sparql,
            DiffOutput::Nt | DiffOutput::Json => DiffFormat::NTriples,
        }
    }
}

/// `URL@DATE` as [`super::dates::split_url`] reads it, the error as bad input.
fn split_target(argument: &str, target: &str) -> Result<(String, Option<ReplayDate>), io::Error> {
    super::dates::split_url(argument, target).map_err(invalid)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// `ldwarc replay`.
pub fn replay(args: ReplayArgs) -> io::Result<i32> {
    let (url, date) = match &args.at {
        Some(at) => (
            args.target.clone(),
            super::dates::at("--at", at).map_err(invalid)?,
        ),
        None => {
            let (url, date) = split_target("URL@DATE", &args.target)?;
            (url, date.unwrap_or_else(super::dates::now))
        }
    };
    let archive = args.root.open()?.with_embedded_syntaxes(args.syntax);
    let resolution = archive.resolve(&url, &date, args.pick)?;
    for hop in &resolution.redirects {
        tracing::info!(
            target: super::logging::NOTICE_TARGET, "{} redirected ({}) at {} [{} offset {}]",
            hop.url,
            hop.status.unwrap_or(0),
            hop.timestamp,
            file_of(&archive, &hop.filename),
            hop.offset
        );
    }
    let capture = &resolution.capture;
    tracing::info!(
        target: super::logging::NOTICE_TARGET, "{} captured {} [{} offset {}]{}",
        capture.url,
        capture.timestamp,
        file_of(&archive, &capture.filename),
        capture.offset,
        match (&capture.refers_to_timestamp, &capture.record_type) {
            (Some(original), RecordType::Revisit) => format!(", a revisit of {original}"),
            _ => String::new(),
        }
    );
    let mut out = output::stdout();
    if args.raw {
        let response = archive.response(capture)?;
        out.write_all(&response.payload)?;
        out.flush()?;
        return Ok(0);
    }
    let (is_revisit, digest) = (
        capture.record_type == RecordType::Revisit,
        capture.digest.clone(),
    );
    // A revisit's payload comes from its original: check that the revisit itself is there.
    let revisit_missing = if is_revisit {
        let root = archive.root_of(&capture.filename);
        match ldwarc_timetravel::replay::record_type_at(root, &capture.filename, capture.offset) {
            Ok(RecordType::Revisit) => None,
            Ok(kind) => Some(format!(
                "a {:?} record is there, not the revisit",
                kind.as_str()
            )),
            Err(error) => Some(error.to_string()),
        }
    } else {
        None
    };
    if let Some(problem) = &revisit_missing {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{} {}: the revisit record the index cites cannot be read ({problem}); \
             the graph below is its original's",
            capture.url, capture.timestamp
        );
    }
    let document = archive.document_of(resolution)?;
    let capture = &document.resolution.capture;
    // A revisit's payload is its original's, whose digest the revisit may not carry.
    let altered = !is_revisit
        && digest
            .as_deref()
            .is_some_and(|digest| document.response.matches_digest(digest) == Some(false));
    if altered {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{} {}: the payload does not match its recorded digest {}: the \
             record was altered or damaged after it was written",
            capture.url,
            capture.timestamp,
            capture.digest.as_deref().unwrap_or("-")
        );
    }
    report_parse(&archive, &document);
    report_mislabelled(&document);
    let format = args
        .format
        .unwrap_or(if document.parsed.graph.has_named_graphs() {
            OutputFormat::NQuads
        } else {
            OutputFormat::NTriples
        });
    write_graph(
        &document.parsed.graph,
        format,
        Some(document.url()),
        &mut out,
    )
    .map_err(|e| io::Error::other(format!("{}: {e}", document.url())))?;
    out.flush()?;
    // A partial graph, an altered record or a missing revisit is printed, but scripts must
    // be able to tell.
    Ok(
        if altered || revisit_missing.is_some() || document.parsed.error.is_some() {
            1
        } else {
            0
        },
    )
}

/// Where a capture's file is, for messages: `warc/<file>` with one root, and with several
/// also the root holding it.
fn file_of(archive: &ReplayArchive, filename: &str) -> String {
    if archive.roots().len() == 1 {
        format!("warc/{filename}")
    } else {
        format!("{}/warc/{filename}", archive.root_of(filename).display())
    }
}

/// A document read by a fallback syntax (N-Triples that is really Turtle) is replayed, as
/// real servers mislabel documents, but never silently.
fn report_mislabelled(document: &Document) {
    let content_type = document.response.head.header("content-type");
    if let Some(note) = mislabelled(content_type, document.parsed.syntax) {
        tracing::warn!(target: super::logging::CLI_TARGET, "{}: {note}", document.url());
    }
}

fn report_parse(archive: &ReplayArchive, document: &Document) {
    let (parsed, url) = (&document.parsed, document.url());
    if let Some(error) = &parsed.error {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{url}: partial graph ({} statements before: {error})",
            parsed.graph.len()
        );
    }
    for context in &parsed.missing_contexts {
        let trouble = archive.context_trouble(context, &document.resolution.capture);
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{url}: JSON-LD context {context} {trouble}; terms it defines were dropped"
        );
    }
}

/// `ldwarc history`.
pub fn history_command(args: HistoryArgs) -> io::Result<i32> {
    let from = args
        .from
        .as_deref()
        .map(|text| super::dates::from("--from", text).map(|date| date.timestamp()))
        .transpose()
        .map_err(invalid)?;
    let to = args
        .to
        .as_deref()
        .map(|text| super::dates::at("--to", text).map(|date| date.timestamp()))
        .transpose()
        .map_err(invalid)?;
    let archive = args.root.open()?;
    let mut entries = history(&archive, &args.url)?;
    // Timestamps are 14 digits: their order as text is their order in time.
    entries.retain(|entry| {
        let at = entry.capture.timestamp.as_str();
        from.as_deref().is_none_or(|from| at >= from) && to.as_deref().is_none_or(|to| at <= to)
    });
    let mut unreadable = false;
    for entry in &entries {
        if let ldwarc_timetravel::replay::HistoryChange::Unreadable(error) = &entry.change {
            unreadable = true;
            tracing::warn!(
                target: super::logging::CLI_TARGET, "{} {}: unreadable: {error}",
                entry.capture.url, entry.capture.timestamp
            );
        }
        if let Some(error) = &entry.partial {
            tracing::warn!(
                target: super::logging::CLI_TARGET, "{} {}: partial graph ({} statements before: {error})",
                entry.capture.url,
                entry.capture.timestamp,
                entry.statements.unwrap_or(0)
            );
        }
    }
    let mut out = output::stdout();
    // The digest column is as wide as its widest value, for the header to sit above it.
    let digest_width = entries
        .iter()
        .map(|e| e.capture.digest.as_deref().map_or(1, str::len))
        .max()
        .unwrap_or(0)
        .max("DIGEST".len());
    if !args.output.is_json() && !entries.is_empty() {
        let header = format!(
            "{:<14}  {:<6}  {:<8}  {:<digest_width$}  {:>10}  {:<17}  CHANGE",
            "TIMESTAMP", "STATUS", "TYPE", "DIGEST", "STATEMENTS", "GRAPH"
        );
        writeln!(out, "{header}")?;
    }
    for entry in &entries {
        let capture = &entry.capture;
        let hash = entry.graph_hash.as_ref();
        let detail = match &entry.change {
            ldwarc_timetravel::replay::HistoryChange::Redirect(target) => target.clone(),
            ldwarc_timetravel::replay::HistoryChange::NoGraph(reason)
            | ldwarc_timetravel::replay::HistoryChange::Unreadable(reason) => reason.clone(),
            _ => String::new(),
        };
        if args.output.is_json() {
            let object = serde_json::json!({
                "timestamp": capture.timestamp,
                "url": capture.url,
                "status": capture.status,
                "type": capture.record_type,
                "digest": capture.digest,
                "statements": entry.statements,
                "graph_hash": hash.map(|h| h.hex.clone()),
                "graph_hash_exact": hash.map(|h| h.exact),
                "change": entry.change.label(),
                "detail": (!detail.is_empty()).then_some(detail),
                "filename": capture.filename,
                "offset": capture.offset,
                "partial": entry.partial,
            });
            writeln!(out, "{object}")?;
        } else {
            let line = format!(
                "{}  {:<6}  {:<8}  {:<digest_width$}  {:>10}  {:<17}  {:<10}{}",
                capture.timestamp,
                capture.status.map_or("-".to_string(), |s| s.to_string()),
                capture.record_type,
                capture.digest.as_deref().unwrap_or("-"),
                entry.statements.map_or("-".to_string(), |n| n.to_string()),
                hash.map_or("-".to_string(), |h| {
                    format!(
                        "{}{}",
                        &h.hex[..16.min(h.hex.len())],
                        if h.exact { "" } else { "~" }
                    )
                }),
                entry.change.label(),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!("  {detail}")
                }
            );
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    out.flush()?;
    // Partial graphs and unreadable records are listed, but scripts must be able to tell (as
    // `replay` does).
    Ok(
        if unreadable || entries.iter().any(|e| e.partial.is_some()) {
            1
        } else {
            0
        },
    )
}

/// `ldwarc snapshot`.
pub fn snapshot_command(args: SnapshotArgs) -> io::Result<i32> {
    let date = match (&args.date, &args.at) {
        (_, Some(at)) => super::dates::at("--at", at),
        (Some(date), None) => super::dates::at("@DATE", date),
        (None, None) => Err("give the date: @DATE or --at DATE".to_string()),
    }
    .map_err(invalid)?;
    let format = match args.format.as_str() {
        "nq" | "nquads" | "n-quads" => SnapshotFormat::NQuads,
        "nq.gz" => SnapshotFormat::NQuadsGzip,
        "trig" => SnapshotFormat::TriG,
        "json" | "jsonl" => SnapshotFormat::JsonLines,
        "hdt" => SnapshotFormat::Hdt,
        other => {
            return Err(invalid(format!(
                "--format {other}: expected nq, nq.gz, trig, json or hdt"
            )));
        }
    };
    if matches!(format, SnapshotFormat::Hdt | SnapshotFormat::NQuadsGzip) {
        binary_output_allowed(&args.format, args.output.as_deref())?;
    }
    let archive = args.root.open()?.with_embedded_syntaxes(args.syntax);
    let mut report = |line: &str| tracing::warn!(target: super::logging::NOTICE_TARGET, "{line}");
    // `-o -` is standard output, as no -o.
    let to_file = args.output.as_deref().filter(|p| !flags::is_stdio(p));
    let progress = match to_file {
        None => output::for_data_on_stdout(|| output::counter("statements written")),
        Some(_) => output::counter("statements written"),
    };
    // The progress counts lines: binary output has none.
    let counted = !matches!(format, SnapshotFormat::Hdt | SnapshotFormat::NQuadsGzip);
    let mut write = |out: &mut dyn Write| -> io::Result<_> {
        let mut counting = output::CountingWriter::new(out, progress.clone());
        let out: &mut dyn Write = if counted {
            &mut counting
        } else {
            counting.get_mut()
        };
        let summary = snapshot(
            &archive,
            &args.scope.scope(),
            &date,
            format,
            out,
            &mut report,
        )?;
        out.flush()?;
        Ok(summary)
    };
    let summary = match to_file {
        None => write(&mut output::stdout())?,
        Some(path) => ldwarc_archive::output_file::write_replacing(path, write)?,
    };
    progress.finish_and_clear();
    if let Some(hdt) = &summary.hdt {
        tracing::info!(
            target: super::logging::NOTICE_TARGET, "HDT: {} ({} subjects, {} predicates, {} objects)",
            output::count(hdt.triples, "distinct triple"),
            hdt.subjects,
            hdt.predicates,
            hdt.objects
        );
    }
    tracing::info!(
        target: super::logging::NOTICE_TARGET, "snapshot as of {}: {}, {} ({} URLs not documents then, {} left out, {} partial)",
        date.timestamp(),
        output::count(summary.documents, "document"),
        output::count(summary.statements, "statement"),
        summary.not_documents,
        summary.failed,
        summary.partial
    );
    Ok(if summary.failed > 0 { 1 } else { 0 })
}

/// Refuses binary output (`--format hdt`, `nq.gz`) without `-o`, or to a terminal: as
/// `cdx --format parquet` wants its folder named, a binary snapshot wants its file named,
/// and `-o -` sends it down a pipe.
fn binary_output_allowed(format: &str, output: Option<&Path>) -> io::Result<()> {
    use std::io::IsTerminal;
    match output {
        None => Err(invalid(format!(
            "--format {format} is binary: give -o FILE (or -o - to send it down a pipe)"
        ))),
        Some(path) if flags::is_stdio(path) && io::stdout().is_terminal() => Err(invalid(format!(
            "--format {format} is binary: not written to a terminal; give -o FILE"
        ))),
        Some(_) => Ok(()),
    }
}

/// Whether a diff argument reads as a file path rather than `URL@DATE`, `@DATE` or a date
/// (a file that happens to be named `2025` does not make `2025` a path).
fn looks_like_a_path(argument: &str) -> bool {
    !argument.contains('@')
        && (argument.contains('/') || argument.contains('.'))
        && ReplayDate::parse(argument).is_err()
}

/// `ldwarc diff`.
pub fn diff_command(args: DiffArgs) -> io::Result<i32> {
    let (old_is_file, new_is_file) = (
        Path::new(&args.old).is_file(),
        Path::new(&args.new).is_file(),
    );
    let mut documents_failed = false;
    let differs = if old_is_file && new_is_file {
        diff_files(&args)?
    } else if (old_is_file && looks_like_a_path(&args.new))
        || (new_is_file && looks_like_a_path(&args.old))
    {
        // A local file beside a path that is not one: that was meant as a file too.
        let (missing, file) = if old_is_file {
            (&args.new, &args.old)
        } else {
            (&args.old, &args.new)
        };
        return Err(invalid(format!(
            "{missing}: no such file (comparing with the file {file})"
        )));
    } else if args.old.starts_with('@') {
        let (differs, failed) = diff_dates(&args)?;
        documents_failed = failed > 0;
        differs
    } else {
        diff_captures(&args)?
    };
    // A document that could not be read is a problem to report, and with --exit-code it may
    // have changed: either way 1.
    Ok(if documents_failed || (args.exit_code && differs) {
        1
    } else {
        0
    })
}

fn diff_files(args: &DiffArgs) -> io::Result<bool> {
    let old = read_rdf_file(Path::new(&args.old))?;
    let new = read_rdf_file(Path::new(&args.new))?;
    print_graph_diff(&old, &new, args)
}

fn print_graph_diff(old: &Graph, new: &Graph, args: &DiffArgs) -> io::Result<bool> {
    let difference = diff(old, new);
    if let Some(reason) = difference.approximation() {
        tracing::warn!(target: super::logging::CLI_TARGET, "approximate diff: {reason}");
    }
    let mut out = output::stdout();
    if args.is_json() {
        let mut lines = Vec::new();
        difference.write(DiffFormat::NTriples, &mut lines)?;
        let text = String::from_utf8_lossy(&lines);
        let statements = |sign: &str| -> Vec<&str> {
            text.lines()
                .filter_map(|line| line.strip_prefix(sign))
                .map(str::trim_start)
                .collect()
        };
        let object = serde_json::json!({
            "removed": statements("-"),
            "added": statements("+"),
            "approximate": difference.approximation().is_some(),
        });
        writeln!(out, "{object}")?;
    } else {
        difference.write(args.statement_format(), &mut out)?;
    }
    out.flush()?;
    Ok(!difference.is_empty())
}

/// Parses a local RDF file, its syntax from the extension with sniffing as fallback; the
/// base IRI is its `file://` URL.
fn read_rdf_file(path: &Path) -> io::Result<Graph> {
    let bytes =
        std::fs::read(path).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let content_type = Syntax::all()
        .into_iter()
        .find(|s| s.extensions().contains(&extension))
        .map(|s| s.media_type());
    let syntaxes = choose_syntaxes(content_type, &bytes[..bytes.len().min(SNIFF_LEN)]);
    let absolute = std::fs::canonicalize(path)?;
    let base = url::Url::from_file_path(&absolute)
        .map(String::from)
        .unwrap_or_else(|()| "file:///".to_string());
    let parsed = parse_graph(&bytes, &syntaxes, &base, &ldwarc_rdf::NoContexts)
        .map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
    if let Some(error) = &parsed.error {
        return Err(io::Error::other(format!("{}: {error}", path.display())));
    }
    Ok(parsed.graph)
}

fn diff_captures(args: &DiffArgs) -> io::Result<bool> {
    let (url, old_date) = split_target("URL@DATE1", &args.old)?;
    let old_date = old_date.ok_or_else(|| invalid(format!("{}: expected URL@DATE", args.old)))?;
    let (new_url, new_date) = match split_target("[URL@]DATE2", &args.new)? {
        (url_or_date, None) => (
            url.clone(),
            super::dates::at("[URL@]DATE2", &url_or_date).map_err(invalid)?,
        ),
        (new_url, Some(date)) if new_url.is_empty() => (url.clone(), date),
        (new_url, Some(date)) => (new_url, date),
    };
    let archive = args.root.open()?;
    let old = archive.document(&url, &old_date, Pick::Before)?;
    let new = archive.document(&new_url, &new_date, Pick::Before)?;
    for (label, document) in [("old", &old), ("new", &new)] {
        let capture = &document.resolution.capture;
        tracing::info!(
            target: super::logging::NOTICE_TARGET, "{label}: {} captured {} [{} offset {}]",
            capture.url,
            capture.timestamp,
            file_of(&archive, &capture.filename),
            capture.offset
        );
        report_parse(&archive, document);
    }
    print_graph_diff(&old.parsed.graph, &new.parsed.graph, args)
}

/// Whether any document changed, and how many could not be read.
fn diff_dates(args: &DiffArgs) -> io::Result<(bool, u64)> {
    let first = super::dates::at("@DATE1", &args.old).map_err(invalid)?;
    let second = super::dates::at("@DATE2", &args.new).map_err(invalid)?;
    let archive = args.root.open()?;
    let mut out = output::stdout();
    let mut failure: Option<io::Error> = None;
    let progress = output::for_data_on_stdout(|| output::counter("documents compared"));
    let mut visit = |document: &DocumentDiff| {
        progress.inc(1);
        if failure.is_none()
            && let Err(e) = print_document_diff(&mut out, document, args)
        {
            failure = Some(e);
        }
    };
    let summary = diff_dataset(&archive, &args.scope.scope(), &first, &second, &mut visit)?;
    progress.finish_and_clear();
    if let Some(error) = failure {
        return Err(error);
    }
    if args.is_json() {
        writeln!(out, "{}", serde_json::json!({ "summary": summary }))?;
    } else {
        writeln!(
            out,
            "{} added, {} removed, {} changed, {} unchanged, {} failed documents; +{} -{} statements ({} → {})",
            summary.added,
            summary.removed,
            summary.changed,
            summary.unchanged,
            summary.failed,
            summary.statements_added,
            summary.statements_removed,
            first.timestamp(),
            second.timestamp()
        )?;
    }
    out.flush()?;
    Ok((
        summary.added + summary.removed + summary.changed > 0,
        summary.failed as u64,
    ))
}

fn print_document_diff(
    out: &mut dyn Write,
    document: &DocumentDiff,
    args: &DiffArgs,
) -> io::Result<()> {
    if document.change == DocumentChange::Unchanged && !args.all {
        return Ok(());
    }
    let (added, removed) = document
        .diff
        .as_ref()
        .map_or((0, 0), |d| (d.added_count(), d.removed_count()));
    if args.is_json() {
        let object = serde_json::json!({
            "url": document.url,
            "change": document.change.label(),
            "old": document.old.as_ref().map(|c| &c.timestamp),
            "new": document.new.as_ref().map(|c| &c.timestamp),
            "added": added,
            "removed": removed,
            "reason": match &document.change { DocumentChange::Failed(r) => Some(r), _ => None },
        });
        return writeln!(out, "{object}");
    }
    let reason = match &document.change {
        DocumentChange::Failed(reason) => format!("  ({reason})"),
        _ => String::new(),
    };
    writeln!(
        out,
        "{:<9} +{added} -{removed}  {}{reason}",
        document.change.label(),
        document.url
    )?;
    if args.triples
        && let Some(difference) = &document.diff
        && !difference.is_empty()
    {
        difference.write(args.statement_format(), out)?;
    }
    Ok(())
}

/// `ldwarc replay`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const REPLAY_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc replay http://example.org/data@2024-03-15",
            "the graph as it was that day, N-Triples",
        ),
        (
            "ldwarc replay --format ttl http://example.org/data@20240315120000",
            "as Turtle",
        ),
        (
            "ldwarc replay --raw http://example.org/data",
            "the latest capture's bytes as served",
        ),
    ],
    exit_status: &[(
        "1",
        "a graph was printed but is partial, the payload does not match its recorded \
         digest, or the revisit record cited is gone (each reported)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc history`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const HISTORY_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc history http://example.org/data",
            "every capture and whether the graph changed",
        ),
        (
            "ldwarc history --format json http://example.org/data",
            "as JSON lines",
        ),
    ],
    exit_status: &[(
        "1",
        "a capture's record could not be read (a damaged or missing WARC file) or its graph \
         is partial (each reported)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc snapshot`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const SNAPSHOT_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc snapshot @2024-03-15 -o dataset.nq",
            "the dataset that day, N-Quads",
        ),
        (
            "ldwarc snapshot @2024 --domain example.org --format trig",
            "one domain at the end of 2024, TriG",
        ),
        (
            "ldwarc snapshot @2024-03-15 --format hdt -o dataset.hdt",
            "the distinct triples that day as HDT (no named graphs: not which document said what)",
        ),
        (
            "ldwarc snapshot @2024-03-15 --format nq.gz -o - | ssh host 'cat > dataset.nq.gz'",
            "gzip N-Quads down a pipe (binary formats are not written to a terminal)",
        ),
    ],
    exit_status: &[(
        "1",
        "a document could not be read or parsed (each is reported)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc diff`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const DIFF_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc diff http://example.org/data@2024-01 2024-06",
            "statements added and removed",
        ),
        (
            "ldwarc diff @2024-01 @2024-06 --domain example.org",
            "every document of a domain",
        ),
        (
            "ldwarc diff --format json old.ttl new.ttl",
            "two local files, as JSON",
        ),
    ],
    exit_status: &[(
        "1",
        "with --exit-code: the graphs differ; and for dates, whenever a document could \
         not be read (reported)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn split(target: &str) -> (String, Option<String>) {
        let (url, date) = split_target("URL@DATE", target).unwrap();
        (url, date.map(|d| d.timestamp()))
    }

    #[test]
    fn a_path_segment_starting_with_at_is_part_of_the_url() {
        let url = "https://social.example/@alice";
        assert_eq!(split(url), (url.to_string(), None));
        assert_eq!(
            split(&format!("{url}@2024-03-15")),
            (url.to_string(), Some("20240315235959".to_string()))
        );
        assert_eq!(
            split("https://social.example/@alice/1234"),
            ("https://social.example/@alice/1234".to_string(), None)
        );
        assert_eq!(
            split("http://example.org/doc@2024"),
            (
                "http://example.org/doc".to_string(),
                Some("20241231235959".to_string())
            )
        );
        let error = split_target("URL@DATE", "http://example.org/doc@yesterday").unwrap_err();
        assert!(
            error.to_string().contains("\"yesterday\" is not a date"),
            "{error}"
        );
    }
}
