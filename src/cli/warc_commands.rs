//! `ldwarc check`, `ldwarc ls`, `ldwarc recover`.

use std::io::{self, Read, Seek, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::RootArg;
use super::output;
use ldwarc_core::archive::{self, Archive};
use ldwarc_warc::summary::{RecordSummary, summarize_all};
use ldwarc_warc::validate::{FileReport, Severity, check_paths, check_reader};
use ldwarc_warc::{ForwardOnly, WarcReader};

/// Arguments of `ldwarc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to check (default: <root>/warc); - reads one file from stdin.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    root: RootArg,
    /// Output format: text (one line per problem, then a summary line) or json (one JSON
    /// object per problem, then one summary object).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text, value_name = "FORMAT")]
    format: CheckFormat,
    /// Deprecated spelling of --format json.
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
    /// Count warnings as failures too.
    #[arg(long)]
    strict: bool,
    /// Print only the summary line.
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `ldwarc ls`.
#[derive(Debug, Args)]
pub struct LsArgs {
    /// Files or directories to list (default: <root>/warc); - reads one file from stdin.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    root: RootArg,
    /// Output format: text (tab-separated columns) or json (one JSON object per record and
    /// line; jsonl is the same).
    #[arg(long, value_enum, default_value_t = LsFormat::Text, value_name = "FORMAT")]
    format: LsFormat,
    /// Deprecated spelling of --format json.
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
    /// Comma-separated columns to print, in this order: offset, length, type, date, status,
    /// mime, digest, uri, id (WARC-Record-ID), file. Default: offset to uri, with file first
    /// when several files are listed.
    #[arg(long, value_delimiter = ',', value_enum, value_name = "LIST")]
    fields: Vec<LsField>,
}

/// Arguments of `ldwarc recover`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    #[command(flatten)]
    root: RootArg,
}

/// Output formats of `ldwarc check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// One line per problem, then a summary line.
    Text,
    /// One JSON object per problem and line, then one summary object.
    Json,
}

/// Output formats of `ldwarc ls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LsFormat {
    /// Tab-separated columns, '-' where a value is absent.
    Text,
    /// One JSON object per record and line.
    Json,
    /// The same as json.
    Jsonl,
}

/// The columns `ldwarc ls --fields` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LsField {
    /// Offset of the record (its gzip member) in the file.
    Offset,
    /// Bytes of the record in the file.
    Length,
    /// WARC-Type.
    Type,
    /// WARC-Date.
    Date,
    /// HTTP status.
    Status,
    /// Media type.
    Mime,
    /// Payload digest.
    Digest,
    /// Target URI.
    Uri,
    /// WARC-Record-ID.
    Id,
    /// The file the record is in.
    File,
}

impl LsField {
    /// The key of the field in JSON output (as `ls --format json` names it without --fields).
    fn json_key(self) -> &'static str {
        match self {
            Self::Offset => "offset",
            Self::Length => "length",
            Self::Type => "type",
            Self::Date => "date",
            Self::Status => "status",
            Self::Mime => "mime",
            Self::Digest => "payload_digest",
            Self::Uri => "target_uri",
            Self::Id => "record_id",
            Self::File => "file",
        }
    }
}

const DEFAULT_FIELDS: [LsField; 8] = [
    LsField::Offset,
    LsField::Length,
    LsField::Type,
    LsField::Date,
    LsField::Status,
    LsField::Mime,
    LsField::Digest,
    LsField::Uri,
];

/// One input of `check` or `ls`: a file, or standard input (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Self::Stdin => "-".to_string(),
            Self::File(path) => path.display().to_string(),
        }
    }
}

fn warn_deprecated_json(json: bool) {
    if json {
        super::flags::deprecated("--json is now --format json");
    }
}

fn input_files(paths: &[PathBuf], root: &RootArg) -> io::Result<Vec<Input>> {
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "-: standard input can be read only once",
        ));
    }
    if paths.is_empty() {
        let warc_dir = Archive::open_existing(&root.root)?.warc_dir();
        if !warc_dir.exists() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: no such file or directory", warc_dir.display()),
            ));
        }
        let files = archive::walk_warc_files(&warc_dir)?;
        return Ok(files.into_iter().map(Input::File).collect());
    }
    let mut files = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            files.push(Input::Stdin);
            continue;
        }
        files.extend(
            archive::named_warc_files(path)?
                .into_iter()
                .map(Input::File),
        );
    }
    Ok(files)
}

/// A reader over standard input, which cannot seek: records are read as they stream by.
fn stdin_reader() -> io::Result<WarcReader<ForwardOnly<io::StdinLock<'static>>>> {
    WarcReader::new(ForwardOnly::new(io::stdin().lock()))
        .map_err(|e| io::Error::new(e.kind(), format!("-: {e}")))
}

/// `ldwarc check`.
pub fn check(args: CheckArgs) -> io::Result<i32> {
    warn_deprecated_json(args.json);
    let json = args.json || args.format == CheckFormat::Json;
    let inputs = input_files(&args.paths, &args.root)?;
    let files: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|input| match input {
            Input::File(path) => Some(path.clone()),
            Input::Stdin => None,
        })
        .collect();
    let mut out = output::stdout();
    let progress = output::progress(inputs.len() as u64, "files");
    let threshold = if args.strict {
        Severity::Warning
    } else {
        Severity::Error
    };
    let (mut records, mut digests, mut errors, mut warnings, mut unreadable) =
        (0u64, 0u64, 0usize, 0usize, 0usize);
    let mut write_error = None;
    let mut on_report = |path: String, report: io::Result<FileReport>| {
        progress.inc(1);
        let result = match report {
            Ok(report) => {
                records += report.records;
                digests += report.digests_checked;
                errors += report.count(Severity::Error);
                warnings += report.count(Severity::Warning) - report.count(Severity::Error);
                report
                    .problems
                    .iter()
                    .filter(|_| !args.quiet)
                    .try_for_each(|problem| {
                        if json {
                            let line = serde_json::json!({
                                "file": path, "offset": problem.offset,
                                "severity": problem.severity, "message": problem.message,
                            });
                            writeln!(out, "{line}")
                        } else {
                            let severity = match problem.severity {
                                Severity::Error => "error",
                                Severity::Warning => "warning",
                            };
                            writeln!(
                                out,
                                "{path}:{}: {severity}: {}",
                                problem.offset, problem.message
                            )
                        }
                    })
            }
            Err(error) => {
                unreadable += 1;
                writeln!(out, "{path}: error: cannot read: {error}")
            }
        };
        if let Err(error) = result {
            write_error.get_or_insert(error);
        }
    };
    if inputs.contains(&Input::Stdin) {
        let report = stdin_reader().map(|mut reader| check_reader(&mut reader));
        on_report("-".to_string(), report);
    }
    check_paths(&files, |index, report| {
        on_report(files[index].display().to_string(), report)
    });
    progress.finish_and_clear();
    if let Some(error) = write_error {
        return Err(error);
    }
    let failed = unreadable > 0 || errors > 0 || (threshold == Severity::Warning && warnings > 0);
    if json {
        let line = serde_json::json!({
            "summary": true, "files": inputs.len(), "records": records, "digests_checked": digests,
            "errors": errors, "warnings": warnings, "unreadable": unreadable, "ok": !failed,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "checked {} files, {records} records, {digests} digests: {errors} errors, {warnings} warnings{}",
            inputs.len(),
            if unreadable > 0 {
                format!(", {unreadable} unreadable")
            } else {
                String::new()
            }
        )?;
    }
    out.flush()?;
    Ok(if failed { 1 } else { 0 })
}

/// `ldwarc ls`.
pub fn ls(args: LsArgs) -> io::Result<i32> {
    warn_deprecated_json(args.json);
    let json = args.json || args.format != LsFormat::Text;
    let inputs = input_files(&args.paths, &args.root)?;
    let fields = if args.fields.is_empty() {
        let mut fields = DEFAULT_FIELDS.to_vec();
        if inputs.len() > 1 {
            fields.insert(0, LsField::File);
        }
        fields
    } else {
        args.fields.clone()
    };
    let columns = Columns {
        fields,
        json,
        explicit: !args.fields.is_empty(),
    };
    let mut out = output::stdout();
    let mut damaged = false;
    let size_of = |input: &Input| match input {
        Input::File(path) => path.metadata().map_or(0, |m| m.len()),
        Input::Stdin => 0,
    };
    let total: u64 = inputs.iter().map(size_of).sum();
    let progress = output::for_data_on_stdout(|| output::progress_bytes(total, "ls"));
    let mut listed = ListProgress {
        bar: &progress,
        before: 0,
    };
    for input in &inputs {
        let name = input.name();
        let whole_file_gzip = match input {
            Input::Stdin => list(
                &mut stdin_reader()?,
                &name,
                &columns,
                &mut out,
                &mut damaged,
                &listed,
            )?,
            Input::File(path) => {
                let mut reader = WarcReader::open(path)
                    .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
                list(
                    &mut reader,
                    &name,
                    &columns,
                    &mut out,
                    &mut damaged,
                    &listed,
                )?
            }
        };
        listed.before += size_of(input);
        if whole_file_gzip {
            eprintln!(
                "ldwarc: warning: {name}: gzipped as a whole; offsets are positions in the decompressed stream"
            );
        }
    }
    progress.finish_and_clear();
    out.flush()?;
    Ok(if damaged { 1 } else { 0 })
}

/// What `ls` prints of each record.
struct Columns {
    fields: Vec<LsField>,
    json: bool,
    /// Whether the fields were chosen (JSON then holds only those keys).
    explicit: bool,
}

/// The progress of `ls` over all its files: bytes of the files listed before this one.
struct ListProgress<'a> {
    bar: &'a indicatif::ProgressBar,
    before: u64,
}

/// Lists one file's records; returns whether it turned out gzipped as a whole.
fn list<R: Read + Seek>(
    reader: &mut WarcReader<R>,
    name: &str,
    columns: &Columns,
    out: &mut impl Write,
    damaged: &mut bool,
    progress: &ListProgress<'_>,
) -> io::Result<bool> {
    let mut write_result = Ok(());
    summarize_all(
        reader,
        |summary| {
            progress.bar.set_position(progress.before + summary.offset);
            if write_result.is_ok() {
                write_result = write_summary(out, &summary, name, columns);
            }
        },
        |error| {
            *damaged = true;
            output::suspend_progress(|| eprintln!("ldwarc: {name}: {error}"));
        },
    );
    write_result?;
    Ok(reader.is_whole_file_gzip())
}

fn write_summary(
    out: &mut impl Write,
    summary: &RecordSummary,
    file: &str,
    columns: &Columns,
) -> io::Result<()> {
    if columns.json {
        let mut value = serde_json::to_value(summary).map_err(io::Error::other)?;
        if let Some(object) = value.as_object_mut() {
            if columns.fields.contains(&LsField::File) {
                object.insert("file".into(), file.into());
            }
            if columns.explicit {
                let keys: Vec<&str> = columns.fields.iter().map(|f| f.json_key()).collect();
                object.retain(|key, _| keys.contains(&key.as_str()));
            }
        }
        return writeln!(out, "{value}");
    }
    let line: Vec<String> = columns
        .fields
        .iter()
        .map(|field| text_value(summary, *field, file))
        .collect();
    writeln!(out, "{}", line.join("\t"))
}

/// A column's text, '-' where the record has no value.
fn text_value(summary: &RecordSummary, field: LsField, file: &str) -> String {
    let dash = |v: Option<String>| v.filter(|v| !v.is_empty()).unwrap_or_else(|| "-".into());
    match field {
        LsField::Offset => summary.offset.to_string(),
        LsField::Length => dash(summary.length.map(|l| l.to_string())),
        LsField::Type => summary.record_type.clone(),
        LsField::Date => dash(Some(summary.date.clone())),
        LsField::Status => dash(summary.status.map(|s| s.to_string())),
        LsField::Mime => dash(summary.mime.clone()),
        LsField::Digest => dash(summary.payload_digest.clone()),
        LsField::Uri => dash(summary.target_uri.clone()),
        LsField::Id => dash(summary.record_id.clone()),
        LsField::File => file.to_string(),
    }
}

/// `ldwarc recover`.
pub fn recover(args: RecoverArgs) -> io::Result<i32> {
    let archive = Archive::open_existing(&args.root.root)?;
    // Never cut the open files of a writer that is still running.
    let _lock = archive::lock_archive(&archive)?;
    let recoveries = archive::recover_open_files(&archive.warc_dir())?;
    let mut out = output::stdout();
    for recovery in &recoveries {
        let target = recovery.path.as_ref().map_or_else(
            || "removed (no complete record)".to_string(),
            |p| p.display().to_string(),
        );
        writeln!(
            out,
            "{}: kept {} records, cut {} bytes at offset {} -> {target}",
            recovery.open_path.display(),
            recovery.records_kept,
            recovery.tail_bytes,
            recovery.tail_offset
        )?;
    }
    // The captures in the recovered files (and any a crashed writer closed but never
    // indexed) become visible to queries, replay and serve now, not at the next crawl.
    let run = ldwarc_core::index::indexer::update_index(&archive, &Default::default(), &|_, _| {})?;
    for (file, error) in &run.errors {
        writeln!(out, "{file}: indexed up to damage: {error}")?;
    }
    writeln!(
        out,
        "indexed {} captures from {} files",
        run.captures_added, run.files_indexed
    )?;
    writeln!(out, "recovered {} open files", recoveries.len())?;
    out.flush()?;
    Ok(0)
}
