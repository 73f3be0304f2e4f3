//! `ldwarc index` and `ldwarc cdx`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::RootArg;
use super::output;
use super::replay_commands::RootsArg;
use crate::archive::Archive;
use crate::index::export::{CdxFormat, export};
use crate::index::query::{
    CdxQuery, Filter, MatchType, QueryOutput, SortOrder, key_range_for_prefix, render, run_query,
};
use crate::index::query_check::{check_closest, check_fields};
use crate::index::zipnum::{
    DEFAULT_BLOCKS_PER_SHARD, DEFAULT_LINES_PER_BLOCK, ZipNumOptions, ZipNumWriter,
};
use crate::index::{CaptureIndex, IndexOptions, MergedIndex, update_index};

/// Arguments of `ldwarc index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    root: RootArg,
    /// Drop the index and rebuild it from every WARC file, on all cores.
    #[arg(long)]
    rebuild: bool,
    /// Reading threads (default: all cores).
    #[arg(long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// Prove the index and the files agree: every record indexed, every revisit resolved.
    #[arg(long, conflicts_with = "rebuild")]
    verify: bool,
}

/// Arguments of `ldwarc cdx`.
#[derive(Debug, Args)]
pub struct CdxArgs {
    #[command(flatten)]
    root: RootArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "cdxj")]
    format: CdxFormat,
    /// Only captures whose URL starts with this prefix (compared by SURT).
    #[arg(value_name = "URL-PREFIX")]
    prefix: Option<String>,
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
}

/// `ldwarc index`.
pub fn index(args: IndexArgs) -> io::Result<i32> {
    let archive = Archive::open_existing(&args.root.root)?;
    if args.verify {
        return super::verify::verify(&archive);
    }
    let progress = output::progress(0, "files");
    let options = IndexOptions {
        rebuild: args.rebuild,
        threads: args.threads,
    };
    let run = update_index(&archive, &options, &|done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    })?;
    progress.finish_and_clear();
    for (file, error) in &run.errors {
        eprintln!("ldwarc: warc/{file}: {error}");
    }
    println!(
        "indexed {} of {} files: {} captures added, {} revisits unresolved, {} damaged places",
        run.files_indexed,
        run.files_seen,
        run.captures_added,
        run.unresolved_revisits,
        run.errors.len()
    );
    Ok(0)
}

/// `ldwarc cdx`.
pub fn cdx(args: CdxArgs) -> io::Result<i32> {
    let archive = Archive::open_existing(&args.root.root)?;
    let index = CaptureIndex::open_read_only(&archive.index_dir())?;
    let (start, end) = match &args.prefix {
        Some(prefix) => key_range_for_prefix(prefix),
        None => (String::new(), None),
    };
    if let Some(dir) = &args.zipnum {
        return cdx_zipnum(&index, dir, &args, &start, end.as_deref());
    }
    let mut out = output::stdout();
    export(&index, args.format, &start, end.as_deref(), &mut out)?;
    out.flush()?;
    Ok(0)
}

/// `ldwarc cdx --zipnum DIR`: the CDXJ export streamed into a ZipNum index.
fn cdx_zipnum(
    index: &CaptureIndex,
    dir: &Path,
    args: &CdxArgs,
    start: &str,
    end: Option<&str>,
) -> io::Result<i32> {
    if args.format != CdxFormat::Cdxj {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--zipnum writes CDXJ lines only (drop --format cdx11)",
        ));
    }
    let options = ZipNumOptions {
        lines_per_block: args.lines_per_block,
        blocks_per_shard: args.blocks_per_shard,
        ..ZipNumOptions::default()
    };
    let mut writer = ZipNumWriter::create(dir, options)?;
    export(index, CdxFormat::Cdxj, start, end, &mut writer)?;
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

/// Arguments of `ldwarc query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The URL; `*.host` means --match domain and `prefix*` means --match prefix.
    #[arg(value_name = "URL")]
    url: String,
    #[command(flatten)]
    root: RootsArg,
    /// How the URL selects captures (default: exact, or inferred from `*.host` / `prefix*`).
    #[arg(long = "match", value_enum, value_name = "TYPE")]
    match_type: Option<MatchType>,
    /// Earliest timestamp, 1–14 digits (padded down: 2014 = 20140101000000).
    #[arg(long, value_name = "TS")]
    from: Option<String>,
    /// Latest timestamp, 1–14 digits (padded up: 2014 = 20141231235959).
    #[arg(long, value_name = "TS")]
    to: Option<String>,
    /// Order by distance to this timestamp (partial timestamps mean the end of their period;
    /// on equal distance the earlier capture comes first).
    #[arg(long, value_name = "TS")]
    closest: Option<String>,
    /// Result order (closest is implied by --closest).
    #[arg(long, value_enum, default_value = "ascending")]
    sort: SortOrder,
    /// At most N results.
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
    #[arg(long, value_enum, default_value = "cdxj")]
    output: QueryOutput,
}

/// `ldwarc query`.
pub fn query(args: QueryArgs) -> io::Result<i32> {
    let invalid = |e: String| io::Error::new(io::ErrorKind::InvalidInput, e);
    if let Some(closest) = &args.closest {
        check_closest(closest).map_err(|e| invalid(format!("--{e}")))?;
    }
    if let Some(fields) = &args.fields {
        check_fields(fields).map_err(|e| invalid(format!("--fields: {e}")))?;
    }
    let filters = args
        .filter
        .iter()
        .map(|f| Filter::parse(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let index = MergedIndex::open(&args.root.roots)?;
    let query = CdxQuery {
        url: args.url,
        match_type: args.match_type,
        from: args.from,
        to: args.to,
        closest: args.closest,
        sort: args.sort,
        limit: args.limit,
        filters,
        collapse_time: None,
    };
    let captures = run_query(&index, &query)?;
    let mut out = output::stdout();
    for capture in &captures {
        writeln!(
            out,
            "{}",
            render(capture, args.output, args.fields.as_deref())
        )?;
    }
    out.flush()?;
    Ok(0)
}
