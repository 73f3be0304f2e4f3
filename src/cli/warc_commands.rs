//! `ldwarc check`, `ldwarc ls`, `ldwarc recover`.

use std::io::{self, Read, Seek, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::RootArg;
use super::output;
use ldwarc_archive::archive::{self, Archive};
use ldwarc_warc::summary::{RecordSummary, summarize_all};
use ldwarc_warc::validate::{FileReport, Rules, Severity, check_paths, check_reader_with};
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
    /// Report as warnings, not errors, the defects widely used tools write into otherwise
    /// sound files: WARC-Warcinfo-ID in a warcinfo record (wpull), WARC-Payload-Digest in a
    /// metadata record (warcio.js; still verified), a request line without an HTTP version
    /// (`GET /path`, ArchiveWeb.page). Every other rule stays as it is.
    #[arg(long)]
    lenient: bool,
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
    let (paths, open_files) = split_open_only(&args.paths)?;
    let open_files = if args.paths.is_empty() {
        archive::find_open_files(&Archive::open_existing(&args.root.root)?.warc_dir())
    } else {
        open_files
    };
    let inputs = if paths.is_empty() && !args.paths.is_empty() {
        Vec::new()
    } else {
        input_files(&paths, &args.root)?
    };
    let files: Vec<PathBuf> = inputs
        .iter()
        .filter_map(|input| match input {
            Input::File(path) => Some(path.clone()),
            Input::Stdin => None,
        })
        .collect();
    let mut out = output::stdout();
    let progress = output::progress(inputs.len() as u64, "files");
    let rules = if args.lenient {
        Rules::Lenient
    } else {
        Rules::Standard
    };
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
        let report = stdin_reader().map(|mut reader| check_reader_with(&mut reader, rules));
        on_report("-".to_string(), report);
    }
    check_paths(&files, rules, |index, report| {
        on_report(files[index].display().to_string(), report)
    });
    progress.finish_and_clear();
    if let Some(error) = write_error {
        return Err(error);
    }
    // No other command reads an unfinished file, so a check that passed over it in silence
    // would call an archive with the captures of a killed crawl complete.
    let recover = recover_command(&args.paths, &args.root);
    for path in &open_files {
        if args.quiet {
            break;
        }
        let message = format!(
            "unfinished WARC file (its writer is still running, or was killed); `{recover}` \
             keeps its complete records and cuts the rest"
        );
        if json {
            let line = serde_json::json!({
                "file": path.display().to_string(), "offset": 0,
                "severity": Severity::Warning, "message": message,
            });
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{}:0: warning: {message}", path.display())?;
        }
    }
    warnings += open_files.len();
    let failed = unreadable > 0 || errors > 0 || (threshold == Severity::Warning && warnings > 0);
    if json {
        let line = serde_json::json!({
            "summary": true, "files": inputs.len(), "records": records, "digests_checked": digests,
            "errors": errors, "warnings": warnings, "unreadable": unreadable,
            "open": open_files.len(), "ok": !failed,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "checked {} files, {records} records, {digests} digests: {errors} errors, {warnings} warnings{}{}",
            inputs.len(),
            if unreadable > 0 {
                format!(", {unreadable} unreadable")
            } else {
                String::new()
            },
            if open_files.is_empty() {
                String::new()
            } else {
                format!(", {} unfinished (.open) files", open_files.len())
            }
        )?;
    }
    out.flush()?;
    Ok(if failed { 1 } else { 0 })
}

/// The paths `check` reads as WARC files, and the `.open` files below the directories among
/// them; a directory holding `.open` files and no WARC file is left out of the first (it is
/// not an error: its open files are reported).
fn split_open_only(paths: &[PathBuf]) -> io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut kept = Vec::new();
    let mut open = Vec::new();
    for path in paths {
        let found = archive::find_open_files(path);
        let open_only = !found.is_empty() && archive::walk_warc_files(path)?.is_empty();
        open.extend(found);
        if !open_only {
            kept.push(path.clone());
        }
    }
    Ok((kept, open))
}

/// The `ldwarc recover` command for the archive the checked files are in: `--root` given
/// or implied when no path was, else the folder above the `warc` directory of the first path
/// that has one.
fn recover_command(paths: &[PathBuf], root: &RootArg) -> String {
    let root = if paths.is_empty() {
        Some(root.root.clone())
    } else {
        paths.iter().find_map(|path| {
            let absolute = std::path::absolute(path).ok()?;
            absolute
                .ancestors()
                .find(|dir| dir.file_name().is_some_and(|name| name == "warc"))
                .and_then(|warc| warc.parent())
                .map(std::path::Path::to_path_buf)
        })
    };
    match root {
        Some(root) => format!("ldwarc recover --root {}", root.display()),
        None => "ldwarc recover --root ARCHIVE".into(),
    }
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
    let files: Option<Vec<PathBuf>> = inputs
        .iter()
        .map(|input| match input {
            Input::File(path) => Some(path.clone()),
            Input::Stdin => None,
        })
        .collect();
    if let Some(files) = files.filter(|files| files.len() > 1) {
        list_in_parallel(&files, &columns, &mut out, &mut damaged, &progress)?;
        progress.finish_and_clear();
        out.flush()?;
        return Ok(if damaged { 1 } else { 0 });
    }
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
            tracing::warn!(
                target: super::logging::CLI_TARGET, "{name}: gzipped as a whole; offsets are positions in the decompressed stream"
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
            tracing::error!(target: super::logging::NOTICE_TARGET, "{name}: {error}");
        },
    );
    write_result?;
    Ok(reader.is_whole_file_gzip())
}

/// A piece of one file's listing, as a worker hands it to the thread writing the output.
enum Listed {
    /// Output lines, and the offset in the file they reach.
    Lines(Vec<u8>, u64),
    /// A damaged place, for standard error.
    Damage(String),
    /// The file is done: whether it is gzipped as a whole, or why it could not be opened.
    Done(io::Result<bool>),
}

/// Bytes of output a worker gathers before handing them on.
const LISTED_CHUNK: usize = 256 * 1024;

/// Chunks buffered per file ahead of the output: bounds memory when a worker runs ahead.
const CHUNKS_PER_FILE: usize = 64;

/// `ls` of several files on all cores: each worker lists whole files into chunks, and the
/// output is written file by file in the order given, exactly as one thread writes it.
fn list_in_parallel(
    files: &[PathBuf],
    columns: &Columns,
    out: &mut impl Write,
    damaged: &mut bool,
    progress: &indicatif::ProgressBar,
) -> io::Result<()> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc::sync_channel;

    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len());
    let (senders, receivers): (Vec<_>, Vec<_>) = files
        .iter()
        .map(|_| sync_channel::<Listed>(CHUNKS_PER_FILE))
        .unzip();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (senders, next, stop) = (&senders, &next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(path), Some(sender)) = (files.get(index), senders.get(index)) else {
                        break;
                    };
                    if !list_to_channel(path, columns, sender) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
        let outcome = write_listed(files, receivers, out, damaged, progress);
        // Receivers are gone now: workers still sending stop at their next send.
        stop.store(true, Ordering::Relaxed);
        outcome
    })
}

/// Writes the chunks of every file in order; ends at the first file that cannot be opened.
fn write_listed(
    files: &[PathBuf],
    receivers: Vec<std::sync::mpsc::Receiver<Listed>>,
    out: &mut impl Write,
    damaged: &mut bool,
    progress: &indicatif::ProgressBar,
) -> io::Result<()> {
    let mut before = 0;
    for (path, receiver) in files.iter().zip(receivers) {
        let name = path.display().to_string();
        loop {
            match receiver.recv() {
                Ok(Listed::Lines(bytes, offset)) => {
                    out.write_all(&bytes)?;
                    progress.set_position(before + offset);
                }
                Ok(Listed::Damage(message)) => {
                    *damaged = true;
                    tracing::error!(target: super::logging::NOTICE_TARGET, "{name}: {message}");
                }
                Ok(Listed::Done(Ok(whole_file_gzip))) => {
                    if whole_file_gzip {
                        tracing::warn!(
                            target: super::logging::CLI_TARGET, "{name}: gzipped as a whole; offsets are positions in the decompressed stream"
                        );
                    }
                    break;
                }
                Ok(Listed::Done(Err(error))) => return Err(error),
                Err(_) => return Err(io::Error::other(format!("{name}: listing stopped"))),
            }
        }
        before += path.metadata().map_or(0, |m| m.len());
    }
    Ok(())
}

/// Lists one file into `sender`; `false` when the receiving side is gone.
fn list_to_channel(
    path: &std::path::Path,
    columns: &Columns,
    sender: &std::sync::mpsc::SyncSender<Listed>,
) -> bool {
    let name = path.display().to_string();
    let mut reader = match WarcReader::open(path) {
        Ok(reader) => reader,
        Err(e) => {
            let error = io::Error::new(e.kind(), format!("{name}: {e}"));
            return sender.send(Listed::Done(Err(error))).is_ok();
        }
    };
    let state = std::cell::RefCell::new(ChunkSender {
        sender,
        buffer: Vec::with_capacity(LISTED_CHUNK + 4096),
        reached: 0,
        alive: true,
    });
    let mut failure: Option<io::Error> = None;
    summarize_all(
        &mut reader,
        |summary| {
            let mut state = state.borrow_mut();
            if !state.alive || failure.is_some() {
                return;
            }
            state.reached = summary.offset;
            if let Err(error) = write_summary(&mut state.buffer, &summary, &name, columns) {
                failure = Some(error);
            } else if state.buffer.len() >= LISTED_CHUNK {
                state.send_lines();
            }
        },
        |error| {
            let mut state = state.borrow_mut();
            if state.send_lines() {
                state.alive = state.sender.send(Listed::Damage(error.to_string())).is_ok();
            }
        },
    );
    let done = match failure {
        Some(error) => Err(error),
        None => Ok(reader.is_whole_file_gzip()),
    };
    let mut state = state.into_inner();
    state.send_lines() && state.sender.send(Listed::Done(done)).is_ok()
}

/// A worker's side of one file's listing.
struct ChunkSender<'a> {
    sender: &'a std::sync::mpsc::SyncSender<Listed>,
    buffer: Vec<u8>,
    /// Offset of the last record listed.
    reached: u64,
    /// Whether the receiving side is still there.
    alive: bool,
}

impl ChunkSender<'_> {
    /// Hands on the lines gathered so far; `false` when the receiving side is gone.
    fn send_lines(&mut self) -> bool {
        if self.alive && !self.buffer.is_empty() {
            let lines =
                std::mem::replace(&mut self.buffer, Vec::with_capacity(LISTED_CHUNK + 4096));
            self.alive = self.sender.send(Listed::Lines(lines, self.reached)).is_ok();
        }
        self.alive
    }
}

fn write_summary(
    out: &mut impl Write,
    summary: &RecordSummary,
    file: &str,
    columns: &Columns,
) -> io::Result<()> {
    if columns.json && !columns.explicit {
        let file = columns.fields.contains(&LsField::File).then_some(file);
        return write_summary_json(out, summary, file);
    }
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

/// The JSON object of a record with every key, written directly: the same bytes as the
/// `serde_json::Value` of the summary (keys sorted, compact), without building it.
fn write_summary_json(
    out: &mut impl Write,
    summary: &RecordSummary,
    file: Option<&str>,
) -> io::Result<()> {
    fn string(out: &mut impl Write, key: &str, value: Option<&str>) -> io::Result<()> {
        write!(out, ",\"{key}\":")?;
        match value {
            Some(value) => serde_json::to_writer(&mut *out, value).map_err(io::Error::other),
            None => out.write_all(b"null"),
        }
    }
    fn number(out: &mut impl Write, key: &str, value: Option<u64>) -> io::Result<()> {
        match value {
            Some(value) => write!(out, ",\"{key}\":{value}"),
            None => write!(out, ",\"{key}\":null"),
        }
    }
    out.write_all(b"{\"date\":")?;
    serde_json::to_writer(&mut *out, &summary.date).map_err(io::Error::other)?;
    if let Some(file) = file {
        string(out, "file", Some(file))?;
    }
    number(out, "length", summary.length)?;
    string(out, "mime", summary.mime.as_deref())?;
    number(out, "offset", Some(summary.offset))?;
    string(out, "payload_digest", summary.payload_digest.as_deref())?;
    string(out, "record_id", summary.record_id.as_deref())?;
    number(out, "status", summary.status.map(u64::from))?;
    string(out, "target_uri", summary.target_uri.as_deref())?;
    string(out, "type", Some(&summary.record_type))?;
    out.write_all(b"}\n")
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
    let run =
        ldwarc_archive::index::indexer::update_index(&archive, &Default::default(), &|_, _| {})?;
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

/// `ldwarc check`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const CHECK_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc check",
            "check every WARC file of the archive in the current directory",
        ),
        (
            "ldwarc check --strict crawl.warc.gz",
            "fail on warnings too",
        ),
        (
            "ldwarc check --lenient wpull.warc.gz",
            "the defects wpull, warcio.js and ArchiveWeb.page write are warnings",
        ),
        (
            "ldwarc check --format json old/ | jq .",
            "problems as JSON lines",
        ),
    ],
    exit_status: &[(
        "1",
        "a file has an error (or a warning, with --strict: an unfinished .open file \
         is one; `ldwarc recover` finalises it)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc ls`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const LS_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        ("ldwarc ls crawl.warc.gz", "one line per record"),
        (
            "ldwarc ls --format json crawl.warc.gz",
            "one JSON object per record",
        ),
        (
            "curl -s https://example.org/a.warc.gz | ldwarc ls -",
            "list a WARC read from stdin",
        ),
    ],
    exit_status: &[(
        "1",
        "a file is damaged (the records before the damage are listed)",
    )],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc recover`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const RECOVER_HELP: super::help::Sections = super::help::Sections {
    examples: &[(
        "ldwarc recover --root /data/ld",
        "finalise the files a killed crawl left open and index them",
    )],
    exit_status: &[],
    environment: &[],
    files: super::help::CRAWL_FILES,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn value_line(summary: &RecordSummary, file: Option<&str>) -> String {
        let mut value = serde_json::to_value(summary).expect("summary serialises");
        if let (Some(file), Some(object)) = (file, value.as_object_mut()) {
            object.insert("file".into(), file.into());
        }
        format!("{value}\n")
    }

    #[test]
    fn direct_json_is_the_value_json() {
        let full = RecordSummary {
            offset: 12,
            length: Some(345),
            record_type: "response".into(),
            date: "2026-11-25T10:00:00Z".into(),
            target_uri: Some("http://example.org/\u{e9}\"\\\n\u{1F600}".into()),
            status: Some(200),
            mime: Some("text/turtle".into()),
            payload_digest: Some("sha1:ABC".into()),
            record_id: Some("<urn:uuid:1>".into()),
        };
        let bare = RecordSummary {
            length: None,
            target_uri: None,
            status: None,
            mime: None,
            payload_digest: None,
            record_id: None,
            ..full.clone()
        };
        for summary in [&full, &bare] {
            for file in [None, Some("dir/a b.warc.gz")] {
                let mut direct = Vec::new();
                write_summary_json(&mut direct, summary, file).expect("writes to memory");
                assert_eq!(
                    String::from_utf8(direct).unwrap(),
                    value_line(summary, file)
                );
            }
        }
    }
}
