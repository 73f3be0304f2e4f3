//! `ldwarc export --wacz` and `ldwarc import`: WACZ packages, see [`ldwarc_timetravel::replay::wacz`].

use std::io;
use std::path::PathBuf;

use clap::Args;

use super::RootArg;
use super::RootsArg;
use super::dates::{Bound, cdx_bound};
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
    pub(super) roots: RootsArg,
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
    pub(super) root: RootArg,
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
            .map(|v| cdx_bound(flag, v, bound))
            .transpose()
    };
    let (from, to) = match (
        bound(&args.from, "--from", Bound::From),
        bound(&args.to, "--to", Bound::To),
    ) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(error), _) | (_, Err(error)) => {
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
            return Ok(2);
        }
    };
    let archive = match ReplayArchive::open_many(&args.roots.roots) {
        Ok(archive) => archive,
        Err(error) => {
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
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
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
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
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
            return Ok(2);
        }
        Err(error) => return Err(error),
    };
    if let Some(signature) = &imported.signature {
        tracing::info!(target: super::logging::NOTICE_TARGET, "{}: {signature}", args.package.display());
    }
    let archive = Archive::new(&args.root.root);
    let run = update_index(&archive, &IndexOptions::default(), &|_, _| {})?;
    for (file, error) in &run.errors {
        tracing::error!(target: super::logging::NOTICE_TARGET, "warc/{file}: {error}");
    }
    println!(
        "imported {} WARC files from {}: {} captures added",
        imported.files.len(),
        args.package.display(),
        run.captures_added
    );
    Ok(0)
}

/// `ldwarc export`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const EXPORT_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc export --wacz ld.wacz --root /data/ld",
            "the whole archive as a WACZ package",
        ),
        (
            "ldwarc export --wacz org.wacz --domain example.org --from 2024 --to 2024",
            "one domain's captures of 2024",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: &[
        (
            "FILE.wacz",
            "WACZ 1.1.1: archive/ (WARC files), indexes/index.cdx.gz and index.idx, pages/pages.jsonl, datapackage.json, datapackage-digest.json",
        ),
        ("<root>/warc/", "the WARC files copied into the package"),
    ],
};

/// `ldwarc import`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const IMPORT_HELP: super::help::Sections = super::help::Sections {
    examples: &[(
        "ldwarc import --root /data/ld crawl.wacz",
        "bring a WACZ package's WARC files into the archive and index them",
    )],
    exit_status: &[(
        "2",
        "the package is refused (a size or hash does not verify, a file is not WARC, \
         an unsafe entry name, a zip bomb, or its WARC files are in the archive \
         already); the archive is left as it was",
    )],
    environment: &[],
    files: &[
        ("<root>/warc/", "where the package's WARC files are copied"),
        ("<root>/index/", "updated with the imported captures"),
    ],
};
