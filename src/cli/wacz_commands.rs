//! `ldwarc export --wacz` and `ldwarc import`: WACZ packages, see [`ldwarc_timetravel::replay::wacz`].

use std::io;
use std::path::PathBuf;

use clap::Args;

use super::RootArg;
use super::RootsArg;
use super::flags::{TimeBound, time_bound};
use super::replay_commands::ScopeArgs;
use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::indexer::{IndexOptions, update_index};
use ldwarc_archive::index::query::MatchType;
use ldwarc_timetravel::replay::ReplayArchive;
use ldwarc_timetravel::replay::Scope;
use ldwarc_timetravel::replay::wacz::{WaczSelection, export_wacz, import_wacz};

/// Arguments of `ldwarc export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    roots: RootsArg,
    /// Write a WACZ 1.1.1 package here (WARC files, CDXJ index, pages, datapackage).
    #[arg(long, value_name = "FILE")]
    wacz: PathBuf,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Only captures of this URL (or a pattern as `ldwarc query` takes it: a prefix ending
    /// in `*`, or `*.domain`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["prefix", "host", "domain"])]
    url: Option<String>,
    /// Only captures at or after this timestamp (1-14 digits, or ISO 8601: from the first
    /// second of its period).
    #[arg(long, value_name = "TIMESTAMP")]
    from: Option<String>,
    /// Only captures at or before this timestamp (1-14 digits, or ISO 8601: to the last
    /// second of its period).
    #[arg(long, value_name = "TIMESTAMP")]
    to: Option<String>,
}

/// Arguments of `ldwarc import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(flatten)]
    root: RootArg,
    /// The WACZ package to bring into the archive (its WARC files are copied into warc/ and
    /// indexed).
    #[arg(value_name = "FILE.wacz", value_parser = super::flags::existing_file())]
    package: PathBuf,
}

/// `ldwarc export --wacz FILE`.
pub fn export(args: ExportArgs) -> io::Result<i32> {
    let bound = |value: &Option<String>, flag, bound| {
        value
            .as_deref()
            .map(|v| time_bound(v, flag, bound))
            .transpose()
    };
    let (from, to) = match (
        bound(&args.from, "--from", TimeBound::From),
        bound(&args.to, "--to", TimeBound::To),
    ) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(error), _) | (_, Err(error)) => {
            eprintln!("ldwarc: error: {error}");
            return Ok(2);
        }
    };
    let archive = match ReplayArchive::open_many(&args.roots.roots) {
        Ok(archive) => archive,
        Err(error) => {
            eprintln!("ldwarc: error: {error}");
            return Ok(2);
        }
    };
    let (url, match_type) = match (args.url, args.scope.scope()) {
        (Some(url), _) => (Some(url), None),
        (None, Scope::All) => (None, None),
        (None, Scope::Prefix(prefix)) => (Some(prefix), Some(MatchType::Prefix)),
        (None, Scope::Host(host)) => (Some(host), Some(MatchType::Host)),
        (None, Scope::Domain(domain)) => (Some(domain), Some(MatchType::Domain)),
    };
    let selection = WaczSelection {
        url,
        match_type,
        from,
        to,
    };
    match export_wacz(&archive, &selection, &args.wacz) {
        Ok(summary) => {
            println!(
                "wrote {}: {} captures, {} WARC files, {} pages",
                args.wacz.display(),
                summary.captures,
                summary.files,
                summary.pages
            );
            Ok(0)
        }
        Err(error) if error.kind() == io::ErrorKind::InvalidInput => {
            eprintln!("ldwarc: error: {error}");
            Ok(2)
        }
        Err(error) => Err(error),
    }
}

/// `ldwarc import FILE.wacz`.
pub fn import(args: ImportArgs) -> io::Result<i32> {
    let imported = match import_wacz(&args.package, &args.root.root) {
        Ok(imported) => imported,
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::InvalidData | io::ErrorKind::NotFound
            ) =>
        {
            eprintln!("ldwarc: error: {error}");
            return Ok(2);
        }
        Err(error) => return Err(error),
    };
    if let Some(signature) = &imported.signature {
        eprintln!("ldwarc: {}: {signature}", args.package.display());
    }
    let archive = Archive::new(&args.root.root);
    let run = update_index(&archive, &IndexOptions::default(), &|_, _| {})?;
    for (file, error) in &run.errors {
        eprintln!("ldwarc: warc/{file}: {error}");
    }
    println!(
        "imported {} WARC files from {}: {} captures added",
        imported.files.len(),
        args.package.display(),
        run.captures_added
    );
    Ok(0)
}
