//! `ldwarc index` and `ldwarc cdx`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::RootArg;
use super::RootsArg;
use super::dates::{Bound, cdx_bound};
use super::output;
use ldwarc_archive::archive::{Archive, require_index};
use ldwarc_archive::index::export::{CdxFormat, export};
use ldwarc_archive::index::parquet::{
    ParquetCompression, ParquetOptions, check_crawl_name, export_parquet,
};
use ldwarc_archive::index::query::{
    CdxQuery, Filter, MatchType, QueryOutput, SortOrder, key_range_for_prefix, render, run_query,
};
use ldwarc_archive::index::query_check::check_fields;
use ldwarc_archive::index::zipnum::{
    DEFAULT_BLOCKS_PER_SHARD, DEFAULT_LINES_PER_BLOCK, ZipNumOptions, ZipNumWriter,
};
use ldwarc_archive::index::{IndexOptions, MergedIndex, update_index};

/// Arguments of `ldwarc index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    pub(super) root: RootArg,
    /// Drop the index and rebuild it from every WARC file, on all cores.
    #[arg(long)]
    rebuild: bool,
    /// Reading threads (default: all cores).
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// Prove the index and the files agree: every record indexed, every revisit resolved.
    #[arg(long, conflicts_with = "rebuild")]
    verify: bool,
    /// Bring the versioned triple index under <root>/triples up to date too (every new
    /// capture parsed as a version of its document; with --rebuild, rebuilt from all). This
    /// is the default; the flag says it explicitly.
    #[arg(long, conflicts_with = "verify")]
    triples: bool,
    /// Leave the versioned triple index as it is (`when`, `/tpf` then refuse until it is
    /// updated, and `sparql` replays the WARC files).
    #[arg(long, conflicts_with_all = ["verify", "triples"])]
    no_triples: bool,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// Arguments of `ldwarc cdx`.
#[derive(Debug, Args)]
pub struct CdxArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// Output format: CDXJ, CDX-11, or json (one object per capture: the CDXJ line's urlkey
    /// and timestamp with its JSON fields, in the same order).
    #[arg(long, value_enum, default_value = "cdxj")]
    format: CdxOutput,
    /// Only captures whose URL starts with this prefix (compared by SURT).
    #[arg(value_name = "URL-PREFIX")]
    prefix: Option<String>,
    /// Only captures at or after this date (any date form; a partial date: from the start of
    /// its period).
    #[arg(long, value_name = "DATE", conflicts_with = "zipnum")]
    from: Option<String>,
    /// Only captures at or before this date (a partial date: to the end of its period).
    #[arg(long, value_name = "DATE", conflicts_with = "zipnum")]
    to: Option<String>,
    /// Write a ZipNum sharded index into DIR instead of printing: gzip blocks of CDXJ lines
    /// in `index-*.cdxj.gz` shards, the `index.idx` summary and the `index.loc` file (give
    /// pywb `DIR/index.idx` as a collection's index). Files are renamed into place when
    /// complete; the shards of an index written there before are removed.
    #[arg(long, value_name = "DIR")]
    zipnum: Option<PathBuf>,
    /// CDXJ lines per gzip block of a ZipNum index.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_LINES_PER_BLOCK, requires = "zipnum")]
    lines_per_block: usize,
    /// Blocks per shard file of a ZipNum index.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BLOCKS_PER_SHARD, requires = "zipnum")]
    blocks_per_shard: usize,
    /// With --format parquet: the folder the Parquet index goes into (Common Crawl's
    /// cc-index-table layout, DIR/crawl=NAME/subset=…/part-*.parquet). Exporting again adds
    /// the captures not exported yet, in new files; the old ones are never rewritten.
    #[arg(long, value_name = "DIR", conflicts_with = "zipnum")]
    output: Option<PathBuf>,
    /// With --format parquet: the crawl= partition the new files go into
    /// (default: LDWARC-<UTC time of the export, YYYYMMDDhhmmss>).
    #[arg(long, value_name = "NAME", requires = "output")]
    crawl: Option<String>,
    /// With --format parquet: compression of the Parquet files.
    #[arg(long, value_enum, default_value = "zstd", requires = "output")]
    compression: ParquetCompression,
}

/// `ldwarc index`.
pub fn index(args: IndexArgs) -> io::Result<i32> {
    let archive = Archive::open_existing(&args.root.root)?;
    if args.verify {
        require_index(&args.root.root)?;
        return super::verify::verify(&archive);
    }
    let progress = output::progress_bytes(0, "index");
    let options = IndexOptions {
        rebuild: args.rebuild,
        threads: args.threads,
    };
    let run = update_index(&archive, &options, &|done, total| {
        progress.set_length(total);
        progress.set_position(done);
    })?;
    progress.finish_and_clear();
    for (file, error) in &run.errors {
        tracing::error!(target: super::logging::NOTICE_TARGET, "warc/{file}: {error}");
    }
    // The triple index follows the capture index unless asked not to, so `when`, `/tpf`
    // and `sparql` answer from it with no separate step. Its failure leaves the capture
    // index updated and reported, and makes the exit status 1.
    let triples = if args.no_triples {
        None
    } else {
        match super::when_command::update_triples(&args.root.root, args.rebuild) {
            Ok(triples) => Some(Ok(triples)),
            Err(error) => {
                tracing::error!(
                    target: super::logging::NOTICE_TARGET,
                    "the triple index was not updated: {error}"
                );
                Some(Err(error))
            }
        }
    };
    let triples_failed = matches!(triples, Some(Err(_)));
    let triples = triples.and_then(Result::ok);
    if args.output.is_json() {
        let summary = serde_json::json!({
            "files_indexed": run.files_indexed,
            "files_seen": run.files_seen,
            "captures_added": run.captures_added,
            "unresolved_revisits": run.unresolved_revisits,
            "damaged": run.errors.iter()
                .map(|(file, error)| serde_json::json!({ "file": format!("warc/{file}"), "error": error.to_string() }))
                .collect::<Vec<_>>(),
            "triples": triples,
        });
        println!("{summary}");
    } else {
        println!(
            "indexed {} of {} files: {} captures added, {} revisits unresolved, {} damaged places",
            run.files_indexed,
            run.files_seen,
            run.captures_added,
            run.unresolved_revisits,
            run.errors.len()
        );
        // The triple index's summary is part of the command's answer, as in its JSON.
        if let Some(triples) = &triples {
            println!(
                "triple index: {} versions added, {} documents, {} statement entries, {} terms, {} bytes",
                triples["versions_added"],
                triples["documents"],
                triples["entries"],
                triples["terms"],
                triples["bytes"]
            );
        }
    }
    // Everything readable is indexed; damage is reported, and scripts must be able to tell.
    Ok(if run.errors.is_empty() && !triples_failed {
        0
    } else {
        1
    })
}

/// `ldwarc cdx`.
pub fn cdx(args: CdxArgs) -> io::Result<i32> {
    // Arguments first: a refused command line reads no index.
    match (&args.format, &args.output) {
        (CdxOutput::Parquet, None) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--format parquet writes files: give the folder with --output DIR",
            ));
        }
        (CdxOutput::Parquet, Some(_)) => {
            if args.from.is_some() || args.to.is_some() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "--from/--to select lines of the text formats; a Parquet export holds \
                     every capture (select by fetch_time in SQL)",
                ));
            }
            if let Some(crawl) = &args.crawl {
                check_crawl_name(crawl)?;
            }
        }
        (_, Some(_)) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--output DIR is for --format parquet (the text formats are printed)",
            ));
        }
        (_, None) => {}
    }
    let invalid = |e: String| io::Error::new(io::ErrorKind::InvalidInput, e);
    let range = TimeRange {
        from: args
            .from
            .as_deref()
            .map(|text| super::dates::from("--from", text).map(|d| d.timestamp()))
            .transpose()
            .map_err(invalid)?,
        to: args
            .to
            .as_deref()
            .map(|text| super::dates::at("--to", text).map(|d| d.timestamp()))
            .transpose()
            .map_err(invalid)?,
    };
    let index = open_indexes(&args.root.roots)?;
    let (start, end) = match &args.prefix {
        Some(prefix) => key_range_for_prefix(prefix),
        None => (String::new(), None),
    };
    if let Some(dir) = &args.zipnum {
        return cdx_zipnum(&index, dir, &args, &start, end.as_deref());
    }
    if args.format == CdxOutput::Parquet {
        return cdx_parquet(&index, &args, &start, end.as_deref());
    }
    let progress = output::for_data_on_stdout(|| export_progress(&index, &args));
    let mut out = output::CountingWriter::new(output::stdout(), progress.clone());
    match args.format {
        CdxOutput::Cdxj | CdxOutput::Cdx11 => {
            let format = if args.format == CdxOutput::Cdxj {
                CdxFormat::Cdxj
            } else {
                CdxFormat::Cdx11
            };
            let mut within = InRange::new(&mut out, &range);
            export(&index, format, &start, end.as_deref(), &mut within)?;
            within.flush()?;
        }
        CdxOutput::Json => {
            let mut json = CdxjAsJson::new(&mut out);
            let mut within = InRange::new(&mut json, &range);
            export(&index, CdxFormat::Cdxj, &start, end.as_deref(), &mut within)?;
            within.flush()?;
            drop(within);
            json.flush()?;
        }
        CdxOutput::Parquet => unreachable!("written by cdx_parquet"),
    };
    progress.finish_and_clear();
    out.flush()?;
    Ok(0)
}

/// What `ldwarc cdx` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CdxOutput {
    /// `urlkey timestamp {json}` as cdxj-indexer writes it.
    Cdxj,
    /// Space-separated CDX with the ` CDX N b a m s k r M S V g` legend.
    Cdx11,
    /// One JSON object per capture.
    #[value(alias = "jsonl")]
    Json,
    /// Parquet files in Common Crawl's cc-index-table layout, into --output DIR.
    Parquet,
}

/// `ldwarc cdx --format parquet --output DIR`: the capture index as a columnar table.
fn cdx_parquet(
    index: &MergedIndex,
    args: &CdxArgs,
    start: &str,
    end: Option<&str>,
) -> io::Result<i32> {
    let dir = args.output.as_deref().expect("checked: --output is given");
    let crawl = args
        .crawl
        .clone()
        .unwrap_or_else(|| format!("LDWARC-{}", chrono::Utc::now().format("%Y%m%d%H%M%S")));
    let options = ParquetOptions::new(
        crawl,
        args.compression,
        args.prefix.clone().unwrap_or_default(),
    );
    let summary = export_parquet(index, dir, &options, start, end)?;
    if summary.files.is_empty() {
        println!(
            "nothing new to export: {} captures are in {} already",
            summary.already_exported,
            dir.display()
        );
    } else {
        println!(
            "wrote {} captures in {} files under {} ({} exported before)",
            summary.rows,
            summary.files.len(),
            dir.display(),
            summary.already_exported
        );
    }
    Ok(0)
}

/// The capture times `cdx --from/--to` keep, as 14-digit timestamps (inclusive).
struct TimeRange {
    from: Option<String>,
    to: Option<String>,
}

/// Passes on the lines written into it whose capture time (a CDXJ or CDX-11 line's second
/// field, 14 digits) is within the range; lines without one (CDX-11's legend) pass as they are.
struct InRange<'a, W: Write> {
    out: &'a mut W,
    range: &'a TimeRange,
    line: Vec<u8>,
}

impl<'a, W: Write> InRange<'a, W> {
    fn new(out: &'a mut W, range: &'a TimeRange) -> Self {
        InRange {
            out,
            range,
            line: Vec::with_capacity(512),
        }
    }

    fn keeps(&self, line: &[u8]) -> bool {
        let Some(at) = line.split(|&b| b == b' ').nth(1) else {
            return true;
        };
        if at.len() != 14 || !at.iter().all(u8::is_ascii_digit) {
            return true;
        }
        // 14 digits each: their order as text is their order in time.
        self.range
            .from
            .as_deref()
            .is_none_or(|from| at >= from.as_bytes())
            && self
                .range
                .to
                .as_deref()
                .is_none_or(|to| at <= to.as_bytes())
    }
}

impl<W: Write> Write for InRange<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.range.from.is_none() && self.range.to.is_none() {
            return self.out.write_all(buf).map(|()| buf.len());
        }
        for chunk in buf.split_inclusive(|&b| b == b'\n') {
            self.line.extend_from_slice(chunk);
            if chunk.ends_with(b"\n") {
                if self.keeps(&self.line) {
                    self.out.write_all(&self.line)?;
                }
                self.line.clear();
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() && self.keeps(&self.line) {
            self.out.write_all(&self.line)?;
        }
        self.line.clear();
        self.out.flush()
    }
}

/// Turns the CDXJ lines written into it into JSON lines: `urlkey timestamp {fields}` becomes
/// `{"urlkey": …, "timestamp": …, fields…}`.
struct CdxjAsJson<'a, W: Write> {
    out: &'a mut W,
    line: Vec<u8>,
}

impl<'a, W: Write> CdxjAsJson<'a, W> {
    fn new(out: &'a mut W) -> Self {
        CdxjAsJson {
            out,
            line: Vec::with_capacity(512),
        }
    }

    fn convert_line(&mut self) -> io::Result<()> {
        let text = std::str::from_utf8(&self.line).map_err(io::Error::other)?;
        let mut parts = text.splitn(3, ' ');
        let (Some(key), Some(timestamp), Some(fields)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(io::Error::other(format!("not a CDXJ line: {text}")));
        };
        let fields: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(fields).map_err(io::Error::other)?;
        let mut object = serde_json::Map::with_capacity(fields.len() + 2);
        object.insert("urlkey".into(), key.into());
        object.insert("timestamp".into(), timestamp.into());
        // The CDXJ line keeps cdxj-indexer's strings; JSON for programs carries the numbers
        // as numbers, as `query`, `history` and `ls` do.
        object.extend(fields.into_iter().map(|(name, value)| {
            let number = match (name.as_str(), &value) {
                ("status" | "length" | "offset", serde_json::Value::String(text)) => {
                    text.parse::<u64>().ok()
                }
                _ => None,
            };
            (name, number.map_or(value, serde_json::Value::from))
        }));
        serde_json::to_writer(&mut *self.out, &object)?;
        self.out.write_all(b"\n")?;
        self.line.clear();
        Ok(())
    }
}

impl<W: Write> Write for CdxjAsJson<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for chunk in buf.split_inclusive(|&b| b == b'\n') {
            match chunk.strip_suffix(b"\n") {
                Some(end) => {
                    self.line.extend_from_slice(end);
                    self.convert_line()?;
                }
                None => self.line.extend_from_slice(chunk),
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.line.is_empty() {
            self.convert_line()?;
        }
        self.out.flush()
    }
}

/// `ldwarc cdx --zipnum DIR`: the CDXJ export streamed into a ZipNum index.
fn cdx_zipnum(
    index: &MergedIndex,
    dir: &Path,
    args: &CdxArgs,
    start: &str,
    end: Option<&str>,
) -> io::Result<i32> {
    if args.format != CdxOutput::Cdxj {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--zipnum writes CDXJ lines only (drop --format)",
        ));
    }
    let options = ZipNumOptions {
        lines_per_block: args.lines_per_block,
        blocks_per_shard: args.blocks_per_shard,
        ..ZipNumOptions::default()
    };
    let mut writer = ZipNumWriter::create(dir, options)?;
    let progress = export_progress(index, args);
    export(
        index,
        CdxFormat::Cdxj,
        start,
        end,
        &mut output::CountingWriter::new(&mut writer, progress.clone()),
    )?;
    progress.finish_and_clear();
    let summary = writer.finish()?;
    println!(
        "wrote {} lines in {} blocks and {} shards: {}",
        summary.lines,
        summary.blocks,
        summary.shards.len(),
        summary.idx_path.display()
    );
    Ok(0)
}

/// Lines exported out of every capture, or a count when a prefix selects an unknown part.
fn export_progress(index: &MergedIndex, args: &CdxArgs) -> indicatif::ProgressBar {
    match &args.prefix {
        None => output::progress(index.len(), "captures exported"),
        Some(_) => output::counter("captures exported"),
    }
}

/// Arguments of `ldwarc query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The URL; `*.host` means --match domain and `prefix*` means --match prefix.
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    pub(super) root: RootsArg,
    /// How the URL selects captures (default: exact, or inferred from `*.host` / `prefix*`).
    #[arg(long = "match", value_enum, value_name = "TYPE")]
    match_type: Option<MatchType>,
    /// Earliest date: a timestamp of 1–14 digits (padded down: 2014 = 20140101000000), ISO
    /// 8601 (2014-03-15: from its first second) or now.
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Latest date: a timestamp of 1–14 digits (padded up: 2014 = 20141231235959), ISO 8601
    /// (2014-03-15: to its last second) or now.
    #[arg(long, value_name = "DATE")]
    to: Option<String>,
    /// Order by distance to this date (same forms as --from; a partial date means the end of
    /// its period; on equal distance the earlier capture comes first).
    #[arg(long, value_name = "DATE")]
    closest: Option<String>,
    /// Result order (closest is implied by --closest).
    #[arg(long, value_enum, default_value = "ascending")]
    sort: SortOrder,
    /// At most N results (0: no limit).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// `[!][=|~]field:value` (substring, exact, or regex anchored at the start; `!` negates);
    /// repeatable, all must match.
    #[arg(long, value_name = "EXPR")]
    filter: Vec<String>,
    /// Fields to print, comma-separated (urlkey,timestamp,url,mime,status,digest,length,offset,filename,redirect).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    fields: Option<Vec<String>>,
    /// Output format.
    #[arg(long = "format", value_enum, default_value = "cdxj")]
    format: QueryOutput,
    /// The former spelling of --format, noted as deprecated when used.
    #[arg(long = "output", value_enum, hide = true, conflicts_with = "format")]
    output: Option<QueryOutput>,
}

/// One capture as a JSON object of the chosen fields, in their order: the HTTP status, length
/// and offset as numbers, as `history --format json` and `ls --format json` write them (the
/// CDXJ line and the server's CDX API keep pywb's strings).
fn json_line(capture: &ldwarc_archive::index::Capture, fields: Option<&[String]>) -> String {
    use ldwarc_archive::index::query::{DEFAULT_FIELDS, canonical_field, field_value};
    let names: Vec<&str> = match fields {
        Some(fields) => fields.iter().map(String::as_str).collect(),
        None => DEFAULT_FIELDS.to_vec(),
    };
    let members: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let value = field_value(capture, name)?;
            let numeric = matches!(canonical_field(name), "status" | "length" | "offset")
                && value.parse::<u64>().is_ok();
            let value = if numeric {
                value
            } else {
                serde_json::Value::String(value).to_string()
            };
            Some(format!("{}: {value}", serde_json::Value::from(*name)))
        })
        .collect();
    format!("{{{}}}", members.join(", "))
}

/// The capture indexes of `roots`, each of which must have one.
fn open_indexes(roots: &[PathBuf]) -> io::Result<MergedIndex> {
    for root in roots {
        require_index(root)?;
    }
    MergedIndex::open(roots)
}

/// `ldwarc query`.
pub fn query(args: QueryArgs) -> io::Result<i32> {
    let invalid = |e: String| io::Error::new(io::ErrorKind::InvalidInput, e);
    let closest = args
        .closest
        .as_deref()
        .map(|closest| super::dates::closest("--closest", closest))
        .transpose()
        .map_err(invalid)?;
    if let Some(fields) = &args.fields {
        check_fields(fields).map_err(|e| invalid(format!("--fields: {e}")))?;
    }
    let filters = args
        .filter
        .iter()
        .map(|f| Filter::parse(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    if args.url.trim().is_empty() {
        return Err(invalid(
            "URL: empty (give a URL, `prefix*` or `*.host`)".into(),
        ));
    }
    let from = args
        .from
        .map(|from| cdx_bound("--from", &from, Bound::From))
        .transpose()
        .map_err(invalid)?;
    let to = args
        .to
        .map(|to| cdx_bound("--to", &to, Bound::To))
        .transpose()
        .map_err(invalid)?;
    let format = match args.output {
        Some(format) => {
            super::flags::deprecated("--output is now --format");
            format
        }
        None => args.format,
    };
    let index = open_indexes(&args.root.roots)?;
    let query = CdxQuery {
        url: args.url,
        match_type: args.match_type,
        from,
        to,
        closest,
        sort: args.sort,
        // 0 means no limit, as the server reads `limit=0`.
        limit: args.limit.filter(|&limit| limit > 0),
        filters,
        collapse_time: None,
    };
    let captures = run_query(&index, &query)?;
    let mut out = output::stdout();
    for capture in &captures {
        let line = match format {
            QueryOutput::Json => json_line(capture, args.fields.as_deref()),
            _ => render(capture, format, args.fields.as_deref()),
        };
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(0)
}

/// `ldwarc index`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const INDEX_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc index --root /data/ld",
            "index new and grown WARC files",
        ),
        (
            "ldwarc index --rebuild",
            "read every file again, on all cores",
        ),
        (
            "ldwarc index --verify",
            "prove the index and the files agree",
        ),
        (
            "ldwarc index --no-triples",
            "the capture index only, leaving the triple index as it is",
        ),
    ],
    exit_status: &[(
        "1",
        "damaged places in WARC files (each reported; what could be read is indexed), or \
         with --verify: the index and the files disagree",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc cdx`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const CDX_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc cdx > index.cdxj",
            "the whole index as byte-sorted CDXJ",
        ),
        (
            "ldwarc cdx --format cdx11 http://example.org/",
            "CDX-11 of one prefix, for OpenWayback",
        ),
        (
            "ldwarc cdx --zipnum /srv/pywb/collections/ld/indexes",
            "a ZipNum index pywb serves",
        ),
        (
            "ldwarc cdx --format parquet --output /srv/table --crawl LOD-2026-11",
            "Parquet in Common Crawl's cc-index-table layout, for DuckDB and Spark",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc query`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const QUERY_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc query http://dbpedia.org/resource/Berlin",
            "every capture of a URL",
        ),
        (
            "ldwarc query '*.example.org' --from 2024 --to 2024",
            "a domain's captures of 2024",
        ),
        (
            "ldwarc query http://example.org/a --closest 20240315 --limit 1 --format json",
            "the nearest capture as JSON",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: super::help::ROOT_FILES,
};
