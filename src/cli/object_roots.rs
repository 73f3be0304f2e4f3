//! `--root s3://BUCKET/PREFIX`: an archive in S3-compatible object storage. A command that
//! reads an archive is handed the local folder that stands for it (ldwarc-objects keeps it
//! current: WARC files fetched by ranged GETs, the capture index built beside them); the
//! commands that write an archive refuse such a root until they can write to a bucket.

use std::io;
use std::path::PathBuf;

use super::Command;

/// Replaces every `s3://` root of a reading command by its current local cache folder, and
/// refuses an `s3://` root given to any other command (before anything is created locally).
pub(super) fn resolve(command: &mut Command, matches: &clap::ArgMatches) -> io::Result<()> {
    let roots: &mut [PathBuf] = match command {
        Command::Index(args) => std::slice::from_mut(&mut args.root.root),
        Command::Cdx(args) => &mut args.root.roots,
        Command::Query(args) => &mut args.root.roots,
        Command::Replay(args) => &mut args.root.roots,
        Command::History(args) => &mut args.root.roots,
        Command::Snapshot(args) => &mut args.root.roots,
        Command::Diff(args) => &mut args.root.roots,
        Command::When(args) => &mut args.root.roots,
        Command::Sparql(args) => &mut args.root.roots,
        Command::Stats(args) => &mut args.root.roots,
        Command::Serve(args) => &mut args.roots.roots,
        Command::Export(args) => &mut args.roots.roots,
        _ => return refuse_writes(matches),
    };
    for root in roots.iter_mut() {
        if ldwarc_objects::is_object_root(root) {
            *root = open(root)?;
        }
    }
    Ok(())
}

/// The local folder for one `s3://` root, made current.
fn open(root: &std::path::Path) -> io::Result<PathBuf> {
    let url = ldwarc_objects::S3Url::from_root(root)?;
    tracing::info!(%url, "reading the archive from object storage");
    Ok(ldwarc_objects::open_root(&url)?)
}

/// Refuses an `s3://` `--root` (or `LDWARC_ROOT`) given to a command that writes or keeps
/// state in its root.
fn refuse_writes(matches: &clap::ArgMatches) -> io::Result<()> {
    let Some((name, sub)) = matches.subcommand() else {
        return Ok(());
    };
    let has_root = sub.ids().any(|id| id.as_str() == "root");
    if !has_root {
        return Ok(());
    }
    let Ok(Some(values)) = sub.try_get_many::<PathBuf>("root") else {
        return Ok(());
    };
    for root in values {
        if ldwarc_objects::is_object_root(root) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "archive root {}: `ldwarc {name}` works on a local folder only; s3:// roots \
                     are read by index, cdx, query, replay, history, snapshot, diff, when, \
                     sparql, stats, serve and export",
                    root.display()
                ),
            ));
        }
    }
    Ok(())
}
