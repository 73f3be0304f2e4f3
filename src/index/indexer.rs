//! `ldwarc index`: brings the capture index up to date with the WARC tree, incrementally
//! (new files, and files that grew since the last run) or from scratch on all cores.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::capture::{Capture, RecordLocation, read_captures};
use super::store::{CaptureIndex, Checkpoint, FileMark, IndexBatch};
use super::surt::surt;
use crate::archive::{Archive, walk_warc_files};
use crate::warc::ReadError;

/// Commit at least this often (captures), so a killed run loses little work.
const COMMIT_EVERY_CAPTURES: usize = 200_000;
/// …or this often (time).
const COMMIT_EVERY: Duration = Duration::from_secs(30);

/// What `ldwarc index` should do.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Drop the index and rebuild it from every file.
    pub rebuild: bool,
    /// Worker threads reading WARC files (0: all cores).
    pub threads: usize,
}

/// What an indexing run did.
#[derive(Debug, Clone, Default)]
pub struct IndexRun {
    /// WARC files found under `warc/`.
    pub files_seen: usize,
    /// Files read in this run (new, grown, or all when rebuilding).
    pub files_indexed: usize,
    /// Captures added.
    pub captures_added: u64,
    /// Revisits whose original could not be found (yet).
    pub unresolved_revisits: u64,
    /// Damage found while reading: file (relative to `warc/`) and the error.
    pub errors: Vec<(String, ReadError)>,
}

struct FileWork {
    path: PathBuf,
    name: String,
    start: u64,
    size: u64,
}

struct FileResult {
    name: String,
    size: u64,
    captures: Vec<Capture>,
    end: u64,
    errors: Vec<ReadError>,
}

/// Updates the index of `archive`. `progress` is called after each file with
/// (files done, files to do).
pub fn update_index(
    archive: &Archive,
    options: &IndexOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<IndexRun> {
    let index = CaptureIndex::open(&archive.index_dir())?;
    let mut checkpoint = if options.rebuild {
        Checkpoint::default()
    } else {
        index.checkpoint()?
    };
    checkpoint.version = 1;
    let warc_dir = archive.warc_dir();
    let files = if warc_dir.exists() {
        walk_warc_files(&warc_dir)?
    } else {
        Vec::new()
    };
    let mut batch = index.batch()?;
    if options.rebuild {
        batch.remove_all()?;
    }
    let mut run = IndexRun {
        files_seen: files.len(),
        ..IndexRun::default()
    };
    let mut work = Vec::new();
    for path in files {
        let name = relative_name(&warc_dir, &path);
        let len = std::fs::metadata(&path)?.len();
        let start = match checkpoint.files.get(&name) {
            None => 0,
            Some(mark) if mark.size == len => continue,
            Some(mark) if mark.size > len => {
                // The file shrank (replaced or truncated): index it again from the start.
                batch.remove_file(&name);
                0
            }
            Some(mark) => mark.end,
        };
        work.push(FileWork {
            path,
            name,
            start,
            size: len,
        });
    }
    run.files_indexed = work.len();
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let mut adder = Adder {
        index: &index,
        batch,
        checkpoint,
        pending: 0,
        last_commit: Instant::now(),
        originals: HashMap::new(),
    };
    read_files_in_order(&work, threads, |done, result| {
        progress(done, work.len());
        let result = result?;
        adder.add_file(result, &mut run)
    })?;
    adder.commit()?;
    adder.batch.finish()?;
    Ok(run)
}

fn relative_name(warc_dir: &Path, path: &Path) -> String {
    Archive::new(warc_dir).relative(path)
}

/// Reads files on `threads` workers and hands their results to `consume` in file order.
fn read_files_in_order(
    work: &[FileWork],
    threads: usize,
    mut consume: impl FnMut(usize, io::Result<FileResult>) -> io::Result<()>,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    // A bounded channel keeps memory in check when readers outpace the index writer.
    let (sender, receiver) = mpsc::sync_channel(threads * 2);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(work.len()).max(1) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = work.get(i) else { break };
                    if sender.send((i, read_file(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = std::collections::BTreeMap::new();
        let mut expected = 0;
        for (i, result) in receiver {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&expected) {
                expected += 1;
                consume(expected, result)?;
            }
        }
        Ok(())
    })
}

fn read_file(item: &FileWork) -> io::Result<FileResult> {
    let mut captures = Vec::new();
    let mut errors = Vec::new();
    let end = read_captures(
        &item.path,
        &item.name,
        item.start,
        |c| captures.push(c),
        |e| errors.push(e),
    )
    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", item.path.display())))?;
    Ok(FileResult {
        name: item.name.clone(),
        size: item.size,
        captures,
        end,
        errors,
    })
}

struct Adder<'a> {
    index: &'a CaptureIndex,
    batch: IndexBatch<'a>,
    checkpoint: Checkpoint,
    pending: usize,
    last_commit: Instant,
    /// Originals seen in this run, by (urlkey, digest): (timestamp, location), latest last.
    originals: HashMap<(String, String), Vec<(String, RecordLocation)>>,
}

impl Adder<'_> {
    fn add_file(&mut self, result: FileResult, run: &mut IndexRun) -> io::Result<()> {
        for mut capture in result.captures {
            if capture.record_type == "revisit" {
                capture.original = self.resolve_original(&capture)?;
                if capture.original.is_none() {
                    run.unresolved_revisits += 1;
                }
            } else if let Some(digest) = &capture.digest {
                self.originals
                    .entry((capture.urlkey.clone(), digest.clone()))
                    .or_default()
                    .push((
                        capture.timestamp.clone(),
                        RecordLocation {
                            filename: capture.filename.clone(),
                            offset: capture.offset,
                            length: capture.length,
                        },
                    ));
            }
            self.batch.add(&capture)?;
            run.captures_added += 1;
            self.pending += 1;
        }
        run.errors
            .extend(result.errors.into_iter().map(|e| (result.name.clone(), e)));
        self.checkpoint.files.insert(
            result.name,
            FileMark {
                end: result.end,
                size: result.size,
            },
        );
        if self.pending >= COMMIT_EVERY_CAPTURES || self.last_commit.elapsed() >= COMMIT_EVERY {
            self.commit()?;
        }
        Ok(())
    }

    fn commit(&mut self) -> io::Result<()> {
        self.batch.commit(&self.checkpoint)?;
        self.pending = 0;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// The original of a revisit: the latest non-revisit capture under the referred-to URL's
    /// key with the same payload digest, at or before the referred-to date (or the revisit's
    /// own date). Keys, not exact URLs, are compared, as pywb does: an `https` revisit of an
    /// `http` original resolves.
    fn resolve_original(&self, revisit: &Capture) -> io::Result<Option<RecordLocation>> {
        let Some(digest) = &revisit.digest else {
            return Ok(None);
        };
        let url = revisit.refers_to_url.as_deref().unwrap_or(&revisit.url);
        let limit = revisit
            .refers_to_timestamp
            .as_deref()
            .unwrap_or(&revisit.timestamp);
        let in_run = self
            .originals
            .get(&(surt(url), digest.clone()))
            .and_then(|found| found.iter().rev().find(|(ts, _)| ts.as_str() <= limit))
            .map(|(_, location)| location.clone());
        if in_run.is_some() {
            return Ok(in_run);
        }
        find_original(self.index, url, digest, limit)
    }
}

/// Looks up the original of a revisit in the committed index.
pub fn find_original(
    index: &CaptureIndex,
    url: &str,
    digest: &str,
    limit: &str,
) -> io::Result<Option<RecordLocation>> {
    let candidates = index.lookup(&surt(url))?;
    Ok(candidates
        .into_iter()
        .filter(|c| c.record_type != "revisit" && c.digest.as_deref() == Some(digest))
        .filter(|c| c.timestamp.as_str() <= limit)
        .max_by(|a, b| a.time_micros.cmp(&b.time_micros))
        .map(|c| RecordLocation {
            filename: c.filename,
            offset: c.offset,
            length: c.length,
        }))
}
