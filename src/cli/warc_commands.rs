//! `ldwarc check`, `ldwarc ls`, `ldwarc recover`.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::RootArg;
use super::output;
use crate::archive::{self, Archive};
use crate::warc::WarcReader;
use crate::warc::summary::{RecordSummary, summarize_all};
use crate::warc::validate::{Severity, check_paths};

/// Arguments of `ldwarc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to check (default: <root>/warc).
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    root: RootArg,
    /// One JSON object per problem, then one summary object.
    #[arg(long)]
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
    /// Files or directories to list (default: <root>/warc).
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    root: RootArg,
    /// One JSON object per record.
    #[arg(long)]
    json: bool,
}

/// Arguments of `ldwarc recover`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    #[command(flatten)]
    root: RootArg,
}

fn input_files(paths: &[PathBuf], root: &RootArg) -> io::Result<Vec<PathBuf>> {
    if !paths.is_empty() {
        let mut files = Vec::new();
        for path in paths {
            files.extend(archive::named_warc_files(path)?);
        }
        return Ok(files);
    }
    let warc_dir = Archive::open_existing(&root.root)?.warc_dir();
    if !warc_dir.exists() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: no such file or directory", warc_dir.display()),
        ));
    }
    archive::walk_warc_files(&warc_dir)
}

/// `ldwarc check`.
pub fn check(args: CheckArgs) -> io::Result<i32> {
    let files = input_files(&args.paths, &args.root)?;
    let mut out = output::stdout();
    let progress = output::progress(files.len() as u64, "files");
    let threshold = if args.strict {
        Severity::Warning
    } else {
        Severity::Error
    };
    let (mut records, mut digests, mut errors, mut warnings, mut unreadable) =
        (0u64, 0u64, 0usize, 0usize, 0usize);
    let mut write_error = None;
    check_paths(&files, |index, report| {
        progress.inc(1);
        let path = files[index].display().to_string();
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
                        if args.json {
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
    });
    progress.finish_and_clear();
    if let Some(error) = write_error {
        return Err(error);
    }
    let failed = unreadable > 0 || errors > 0 || (threshold == Severity::Warning && warnings > 0);
    if args.json {
        let line = serde_json::json!({
            "summary": true, "files": files.len(), "records": records, "digests_checked": digests,
            "errors": errors, "warnings": warnings, "unreadable": unreadable, "ok": !failed,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "checked {} files, {records} records, {digests} digests: {errors} errors, {warnings} warnings{}",
            files.len(),
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
    let files = input_files(&args.paths, &args.root)?;
    let with_file = files.len() > 1;
    let mut out = output::stdout();
    let mut damaged = false;
    for path in &files {
        let mut reader = WarcReader::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let name = path.display().to_string();
        let mut write_result = Ok(());
        summarize_all(
            &mut reader,
            |summary| {
                if write_result.is_ok() {
                    write_result = write_summary(
                        &mut out,
                        &summary,
                        with_file.then_some(name.as_str()),
                        args.json,
                    );
                }
            },
            |error| {
                damaged = true;
                eprintln!("ldwarc: {name}: {error}");
            },
        );
        write_result?;
        if reader.is_whole_file_gzip() {
            eprintln!(
                "ldwarc: warning: {name}: gzipped as a whole; offsets are positions in the decompressed stream"
            );
        }
    }
    out.flush()?;
    Ok(if damaged { 1 } else { 0 })
}

fn write_summary(
    out: &mut impl Write,
    summary: &RecordSummary,
    file: Option<&str>,
    json: bool,
) -> io::Result<()> {
    if json {
        let mut value = serde_json::to_value(summary).map_err(io::Error::other)?;
        if let (Some(file), Some(object)) = (file, value.as_object_mut()) {
            object.insert("file".into(), file.into());
        }
        return writeln!(out, "{value}");
    }
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    if let Some(file) = file {
        write!(out, "{file}\t")?;
    }
    writeln!(
        out,
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        summary.offset,
        dash(summary.length.map(|l| l.to_string())),
        summary.record_type,
        if summary.date.is_empty() {
            "-"
        } else {
            &summary.date
        },
        dash(summary.status.map(|s| s.to_string())),
        dash(summary.mime.clone()),
        dash(summary.payload_digest.clone()),
        dash(summary.target_uri.clone()),
    )
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
    writeln!(out, "recovered {} open files", recoveries.len())?;
    out.flush()?;
    Ok(0)
}
