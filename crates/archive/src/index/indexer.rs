//! `ldwarc index`: brings the capture index up to date with the WARC tree, incrementally
//! (new files, and files that grew since the last run) or from scratch on all cores.

use ldwarc_warc::RecordType;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::capture::{Capture, RecordLocation, read_captures};
use super::merged::CaptureSource;
use super::store::{CaptureIndex, Checkpoint, DocumentBuilder, FileMark, IndexBatch, Snapshot};
use crate::archive::{Archive, walk_warc_files};
use ldwarc_surt::surt;
use ldwarc_warc::ReadError;
use tantivy::TantivyDocument;

/// Commit at least this often (captures), so a killed run loses little work.
const COMMIT_EVERY_CAPTURES: usize = 200_000;
/// Environment variable overriding `COMMIT_EVERY_CAPTURES` (a positive number of
/// captures). Meant for tests that kill runs between commits; the default suits real use.
pub const COMMIT_EVERY_ENV: &str = "LDWARC_INDEX_COMMIT_EVERY";
/// …or this often (time).
const COMMIT_EVERY: Duration = Duration::from_secs(30);
/// Captures a reading thread hands over at a time.
const CHUNK: usize = 1024;
/// Chunks all reading threads together may have waiting (about 140 MB of captures): bounds
/// memory whatever the file sizes. Files are consumed in order, so a thread reading ahead
/// keeps working only while it can buffer its file; this lets every thread buffer a whole
/// file of up to 256k captures / threads.
const CHUNKS_IN_FLIGHT: usize = 256;

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

/// What a reading thread hands the writer, in file order.
enum Piece {
    /// The next captures of the file.
    Captures(Vec<Prepared>),
    /// The file is done: where its indexed part ends, and the damage found.
    End { end: u64, errors: Vec<ReadError> },
    /// The file could not be read.
    Failed(io::Error),
}

impl Piece {
    /// How far into `file` this piece reaches, for progress.
    fn reached(&self, file: &FileWork) -> Option<u64> {
        match self {
            Piece::Captures(captures) => captures.last().map(|last| match last {
                Prepared::Ready { original, .. } => original.offset + original.length,
                Prepared::Revisit(capture) => capture.offset + capture.length,
            }),
            Piece::End { .. } => Some(file.size),
            Piece::Failed(_) => None,
        }
    }
}

/// A capture made ready by a reading thread.
enum Prepared {
    /// Not a revisit: its document, and what makes it a candidate original.
    Ready {
        document: TantivyDocument,
        original: Candidate,
    },
    /// A revisit: resolved (which needs every capture before it) and encoded in order.
    Revisit(Box<Capture>),
}

/// A non-revisit capture as a candidate original of later revisits.
struct Candidate {
    /// Key of (urlkey, payload digest), if there is a digest.
    by_digest: Option<u128>,
    /// Key of (exact URL, timestamp).
    by_time: u128,
    /// Whether it can be an original at all ([`holds_payload`]).
    holds_payload: bool,
    timestamp: Timestamp,
    time_micros: i64,
    offset: u64,
    length: u64,
}

/// Whether a revisit may refer to this capture's payload: a response or a resource record
/// (not a request or metadata record, which may share the URL and second of a response).
fn holds_payload(capture: &Capture) -> bool {
    matches!(
        capture.record_type,
        RecordType::Response | RecordType::Resource
    )
}

impl Candidate {
    fn of(capture: &Capture) -> Self {
        Self {
            holds_payload: holds_payload(capture),
            by_digest: capture
                .digest
                .as_deref()
                .map(|digest| key(&capture.urlkey, digest)),
            by_time: key(&capture.url, &capture.timestamp),
            timestamp: Timestamp::new(&capture.timestamp),
            time_micros: capture.time_micros,
            offset: capture.offset,
            length: capture.length,
        }
    }
}

/// A timestamp held inline (up to 16 bytes, zero-padded, so it compares as the string does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Timestamp([u8; 16]);

impl Timestamp {
    fn new(text: &str) -> Self {
        let mut bytes = [0; 16];
        let n = text.len().min(16);
        bytes[..n].copy_from_slice(&text.as_bytes()[..n]);
        Self(bytes)
    }
}

/// A 128-bit key of two strings (two SipHash passes): the in-run maps hold keys instead of
/// strings, which keeps a rebuild's memory and hashing small; a false match would need a
/// 128-bit collision.
fn key(a: &str, b: &str) -> u128 {
    let mut first = DefaultHasher::new();
    (0u8, a, b).hash(&mut first);
    let mut second = DefaultHasher::new();
    (1u8, a, b).hash(&mut second);
    (u128::from(first.finish()) << 64) | u128::from(second.finish())
}

/// Hashes the (already random) 128-bit keys by folding them.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u128(&mut self, value: u128) {
        self.0 = (value as u64) ^ ((value >> 64) as u64);
    }
}

type KeyMap = HashMap<u128, usize, BuildHasherDefault<KeyHasher>>;

const NO_ENTRY: usize = usize::MAX;

/// One candidate original recorded in this run.
struct Entry {
    timestamp: Timestamp,
    time_micros: i64,
    offset: u64,
    length: u64,
    /// Position of its file in the run's work list.
    file: usize,
    /// The previous entry with the same (urlkey, digest) key.
    next: usize,
}

/// The non-revisit captures of this run, as candidate originals.
#[derive(Default)]
struct Originals {
    /// (urlkey, digest) key → latest entry recorded; entries chain to earlier ones.
    by_digest: KeyMap,
    /// (URL, timestamp) key → best-ranked entry.
    by_time: KeyMap,
    entries: Vec<Entry>,
}

/// Updates the index of `archive`. `progress` is called as captures are added, with
/// (bytes read, bytes to read) over the parts of the files this run reads.
pub fn update_index(
    archive: &Archive,
    options: &IndexOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> io::Result<IndexRun> {
    // Indexing adds to an archive; it never creates one where a root was mistyped.
    crate::archive::require_root(archive.root())?;
    if options.rebuild {
        CaptureIndex::discard_if_unsorted(&archive.index_dir())?;
    }
    let index = CaptureIndex::open(&archive.index_dir())?;
    if !options.rebuild && !index.is_sorted_by_key() {
        tracing::info!(
            "this index keeps captures in indexing order (an earlier version made it); \
             a rebuild sorts it by key, which makes exports faster"
        );
    }
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
    let files_seen = files.len();
    let mut work = Vec::new();
    let mut restarted = Vec::new();
    for path in files {
        let name = relative_name(&warc_dir, &path);
        let meta = std::fs::metadata(&path)?;
        let len = meta.len();
        let start = match checkpoint.files.get(&name) {
            None => 0,
            Some(mark) if is_rewritten(&path, &meta, mark) => {
                // Revisits in other files may point into it: only reading everything again
                // puts them right.
                tracing::warn!(
                    "warc/{name} changed since it was indexed (rewritten or cut, not appended \
                     to): rebuilding the index"
                );
                drop(index);
                let rebuild = IndexOptions {
                    rebuild: true,
                    ..options.clone()
                };
                return update_index(archive, &rebuild, progress);
            }
            Some(mark) if mark.size == len => continue,
            // Bytes after the indexed end (a record the file cut short, indexed with the
            // bytes it had, or damage) may now be a complete record: read the file again
            // from its start, replacing what was indexed of it.
            Some(mark) if mark.end < mark.size => {
                restarted.push(name.clone());
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
    let mut batch = index.batch()?;
    if options.rebuild {
        batch.remove_all()?;
    }
    for name in &restarted {
        batch.remove_file(name);
    }
    let mut run = IndexRun {
        files_seen,
        ..IndexRun::default()
    };
    run.files_indexed = work.len();
    for file in &work {
        tracing::debug!(file = %file.name, offset = file.start, size = file.size, "indexing");
    }
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let builder = index.document_builder();
    let mut adder = Adder {
        batch,
        builder,
        scratch: Vec::with_capacity(1024),
        checkpoint,
        commit_every: commit_every(),
        pending: 0,
        last_commit: Instant::now(),
        files: work.iter().map(|w| w.name.clone()).collect(),
        originals: Originals::default(),
        // Revisits resolve against this run's captures and the index as it was when the run
        // started (what this run commits is in its own maps already). A rebuild must not
        // look at the index it replaces: that holds files this run has not read yet, which
        // an uninterrupted run from scratch would not know.
        committed: Some(index.snapshot()).filter(|s| !options.rebuild && !s.is_empty()),
        committed_originals: CommittedOriginals::default(),
    };
    let to_read: u64 = work.iter().map(|w| w.size.saturating_sub(w.start)).sum();
    let mut files_read = 0u64;
    read_files_in_order(&work, threads, builder, |file, piece| {
        let reached = piece.reached(&work[file]);
        let done = matches!(piece, Piece::End { .. });
        adder.add(file, &work[file], piece, &mut run)?;
        if let Some(reached) = reached {
            let in_file = reached.saturating_sub(work[file].start);
            progress(files_read + in_file, to_read);
        }
        if done {
            files_read += work[file].size.saturating_sub(work[file].start);
        }
        Ok(())
    })?;
    adder.commit()?;
    let mut batch = adder.batch;
    run.unresolved_revisits = resolve_late_originals(&index, &mut batch, &adder.checkpoint)?;
    batch.finish()?;
    tracing::info!(
        files = run.files_indexed,
        captures = run.captures_added,
        unresolved_revisits = run.unresolved_revisits,
        "index updated"
    );
    Ok(run)
}

/// Revisits read before their original (its file sorts later, or was added later) were
/// stored unresolved; now that every file is indexed, resolve them against the whole index
/// and store them again. Returns how many remain unresolved. A run killed here leaves them
/// marked, and the next run finishes the job.
fn resolve_late_originals(
    index: &CaptureIndex,
    batch: &mut IndexBatch<'_>,
    checkpoint: &Checkpoint,
) -> io::Result<u64> {
    let mut remaining = 0;
    let mut replaced = 0;
    for mut revisit in index.unresolved_revisits()? {
        revisit.original = original_in_index(index, &revisit)?;
        if revisit.original.is_some() {
            batch.replace_unresolved(&revisit)?;
            replaced += 1;
        } else {
            remaining += 1;
        }
    }
    if replaced > 0 {
        batch.commit(checkpoint)?;
    }
    Ok(remaining)
}

/// The original of a revisit looked up in the committed index alone, by the rules of
/// `Adder::resolve_original`.
pub fn original_in_index(
    index: &(impl CaptureSource + ?Sized),
    revisit: &Capture,
) -> io::Result<Option<RecordLocation>> {
    match &revisit.digest {
        Some(digest) => {
            let url = revisit.refers_to_url.as_deref().unwrap_or(&revisit.url);
            let limit = revisit
                .refers_to_timestamp
                .as_deref()
                .unwrap_or(&revisit.timestamp);
            find_original(index, url, digest, limit)
        }
        None => match (&revisit.refers_to_url, &revisit.refers_to_timestamp) {
            (Some(url), Some(timestamp)) => find_original_at(index, url, timestamp),
            _ => Ok(None),
        },
    }
}

/// Bytes before a file's indexed end that [`tail_fingerprint`] covers.
const TAIL_BYTES: u64 = 4096;

/// A fingerprint of the (up to) 4 KiB of `path` just before `end`: appending leaves them as
/// they were, rewriting the file (recompressed, replaced) almost surely does not.
pub(crate) fn tail_fingerprint(path: &Path, end: u64) -> io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let start = end.saturating_sub(TAIL_BYTES);
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((end - start) as usize);
    file.take(end - start).read_to_end(&mut bytes)?;
    Ok(crate::stable_hash::fnv1a_64_bytes(&bytes))
}

/// Whether the file at `path` (`meta` its metadata now) is no longer what `mark` says was
/// indexed: smaller than when it was read, or larger, or of the same size but modified
/// since, with the bytes before its indexed end changed. A file whose bytes cannot be read
/// now is not taken for rewritten (reading it will report that).
fn is_rewritten(path: &Path, meta: &std::fs::Metadata, mark: &FileMark) -> bool {
    let len = meta.len();
    let tail_changed =
        |tail: u64| len < mark.end || tail_fingerprint(path, mark.end).is_ok_and(|now| now != tail);
    match (len.cmp(&mark.size), mark.tail) {
        (std::cmp::Ordering::Less, _) => true,
        (std::cmp::Ordering::Greater, Some(tail)) => tail_changed(tail),
        (std::cmp::Ordering::Equal, Some(tail)) => {
            let modified = super::store::modified_nanos(meta);
            mark.modified.is_some() && modified != mark.modified && tail_changed(tail)
        }
        (_, None) => false,
    }
}

/// Captures between commits: [`COMMIT_EVERY_ENV`] if set to a positive number, else the default.
fn commit_every() -> usize {
    std::env::var(COMMIT_EVERY_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(COMMIT_EVERY_CAPTURES)
}

fn relative_name(warc_dir: &Path, path: &Path) -> String {
    Archive::new(warc_dir).relative(path)
}

/// Reads files on `threads` workers and hands what they read to `consume` in file order,
/// in chunks, as (position in `work`, piece). File `i` is read by worker `i % threads`, each
/// worker with its own bounded channel, so memory stays bounded however large the files are.
fn read_files_in_order(
    work: &[FileWork],
    threads: usize,
    builder: DocumentBuilder,
    mut consume: impl FnMut(usize, Piece) -> io::Result<()>,
) -> io::Result<()> {
    let threads = threads.min(work.len()).max(1);
    std::thread::scope(|scope| {
        let mut receivers = Vec::with_capacity(threads);
        for worker in 0..threads {
            let (sender, receiver) = mpsc::sync_channel((CHUNKS_IN_FLIGHT / threads).max(8));
            receivers.push(receiver);
            scope.spawn(move || {
                for item in work.iter().skip(worker).step_by(threads) {
                    if !read_file(item, builder, &sender) {
                        break;
                    }
                }
            });
        }
        // Returning early drops the receivers, which stops the workers.
        for (i, _) in work.iter().enumerate() {
            loop {
                let piece = receivers[i % threads]
                    .recv()
                    .map_err(|_| io::Error::other("a reading thread stopped unexpectedly"))?;
                let last = !matches!(piece, Piece::Captures(_));
                consume(i, piece)?;
                if last {
                    break;
                }
            }
        }
        Ok(())
    })
}

/// Reads one file and sends its pieces; false when the receiving side is gone.
fn read_file(item: &FileWork, builder: DocumentBuilder, sender: &mpsc::SyncSender<Piece>) -> bool {
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut scratch = Vec::with_capacity(1024);
    let mut errors = Vec::new();
    let mut gone = false;
    let result = read_captures(
        &item.path,
        &item.name,
        item.start,
        |capture| {
            if gone {
                return;
            }
            chunk.push(if capture.record_type == RecordType::Revisit {
                Prepared::Revisit(Box::new(capture))
            } else {
                Prepared::Ready {
                    original: Candidate::of(&capture),
                    document: builder.build(&capture, &mut scratch),
                }
            });
            if chunk.len() == CHUNK {
                let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                gone = sender.send(Piece::Captures(full)).is_err();
            }
        },
        |e| errors.push(e),
    );
    if gone {
        return false;
    }
    let last = match result {
        Ok(end) => {
            if !chunk.is_empty() && sender.send(Piece::Captures(chunk)).is_err() {
                return false;
            }
            Piece::End { end, errors }
        }
        Err(e) => Piece::Failed(io::Error::new(
            e.kind(),
            format!("{}: {e}", item.path.display()),
        )),
    };
    sender.send(last).is_ok()
}

struct Adder<'a> {
    batch: IndexBatch<'a>,
    builder: DocumentBuilder,
    scratch: Vec<u8>,
    checkpoint: Checkpoint,
    commit_every: usize,
    pending: usize,
    last_commit: Instant,
    /// The names of the files of this run, by position in the work list.
    files: Vec<String>,
    /// Non-revisit captures seen in this run, as candidate originals.
    originals: Originals,
    /// The index as committed before this run, where originals are also looked up (none
    /// when rebuilding or when it was empty).
    committed: Option<Snapshot<'a>>,
    /// The committed index's candidate originals (its non-revisit captures) per URL key,
    /// searched once per key and run: an update's revisits mostly revisit the URLs of the
    /// previous crawls, each many times over, and one search per revisit made an update
    /// cost tens of times a full build per capture.
    committed_originals: CommittedOriginals,
}

/// Candidate originals of the committed index by URL key, as searched (see
/// [`Adder::committed_originals`]), bounded in size.
#[derive(Default)]
struct CommittedOriginals {
    by_key: HashMap<String, Vec<Capture>>,
    captures: usize,
}

/// Captures kept in [`CommittedOriginals`] at most; past it the memo starts afresh (a few
/// hundred bytes each: tens of megabytes).
const COMMITTED_ORIGINALS_LIMIT: usize = 200_000;

impl CommittedOriginals {
    /// The non-revisit captures under `urlkey` in `committed`, searched when first asked for.
    fn get(&mut self, committed: &Snapshot<'_>, urlkey: &str) -> io::Result<&[Capture]> {
        if !self.by_key.contains_key(urlkey) {
            let mut found = committed.lookup(urlkey)?;
            found.retain(|c| c.record_type != RecordType::Revisit);
            if self.captures + found.len() > COMMITTED_ORIGINALS_LIMIT {
                self.by_key.clear();
                self.captures = 0;
            }
            self.captures += found.len();
            self.by_key.insert(urlkey.to_string(), found);
        }
        Ok(self.by_key.get(urlkey).map_or(&[], Vec::as_slice))
    }
}

/// How candidate originals rank: the latest time wins, then file name and offset. A total
/// order, so the choice depends neither on the order files are read in nor on which run
/// (killed, resumed, uninterrupted) read them.
fn rank((time_micros, location): &(i64, RecordLocation)) -> (i64, &str, u64) {
    (*time_micros, location.filename.as_str(), location.offset)
}

/// The better-ranked of two candidate originals.
fn better(
    a: Option<(i64, RecordLocation)>,
    b: Option<(i64, RecordLocation)>,
) -> Option<RecordLocation> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if rank(&b) > rank(&a) { b.1 } else { a.1 }),
        (a, b) => a.or(b).map(|(_, location)| location),
    }
}

fn location_of(capture: &Capture) -> (i64, RecordLocation) {
    (
        capture.time_micros,
        RecordLocation {
            filename: capture.filename.clone(),
            offset: capture.offset,
            length: capture.length,
        },
    )
}

impl Adder<'_> {
    /// Adds a piece of `file`, whose position in the work list is `file_number`.
    fn add(
        &mut self,
        file_number: usize,
        file: &FileWork,
        piece: Piece,
        run: &mut IndexRun,
    ) -> io::Result<()> {
        match piece {
            Piece::Captures(captures) => {
                for prepared in captures {
                    let document = match prepared {
                        Prepared::Ready { document, original } => {
                            self.record(original, file_number);
                            document
                        }
                        Prepared::Revisit(mut capture) => {
                            capture.original = self.resolve_original(&capture)?;
                            self.builder.build(&capture, &mut self.scratch)
                        }
                    };
                    self.batch.add_document(document)?;
                    run.captures_added += 1;
                    self.pending += 1;
                }
            }
            Piece::End { end, errors } => {
                run.errors
                    .extend(errors.into_iter().map(|e| (file.name.clone(), e)));
                self.checkpoint.files.insert(
                    file.name.clone(),
                    FileMark::of_file(&file.path, end, file.size),
                );
                // Commits happen only here, between files, so a commit never holds part of
                // a file.
                if self.pending >= self.commit_every || self.last_commit.elapsed() >= COMMIT_EVERY {
                    self.commit()?;
                }
            }
            Piece::Failed(error) => return Err(error),
        }
        Ok(())
    }

    fn commit(&mut self) -> io::Result<()> {
        self.batch.commit(&self.checkpoint)?;
        self.pending = 0;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// Records a non-revisit capture as a candidate original.
    fn record(&mut self, candidate: Candidate, file: usize) {
        if !candidate.holds_payload {
            return;
        }
        let entry = self.originals.entries.len();
        let next = match candidate.by_digest {
            Some(key) => self
                .originals
                .by_digest
                .insert(key, entry)
                .unwrap_or(NO_ENTRY),
            None => NO_ENTRY,
        };
        self.originals.entries.push(Entry {
            timestamp: candidate.timestamp,
            time_micros: candidate.time_micros,
            offset: candidate.offset,
            length: candidate.length,
            file,
            next,
        });
        let best = *self
            .originals
            .by_time
            .entry(candidate.by_time)
            .or_insert(entry);
        if best != entry && self.entry_rank(entry) > self.entry_rank(best) {
            self.originals.by_time.insert(candidate.by_time, entry);
        }
    }

    fn entry_rank(&self, entry: usize) -> (i64, &str, u64) {
        let entry = &self.originals.entries[entry];
        let file = self.files.get(entry.file).map_or("", String::as_str);
        (entry.time_micros, file, entry.offset)
    }

    fn candidate(&self, entry: usize) -> (i64, RecordLocation) {
        let found = &self.originals.entries[entry];
        (
            found.time_micros,
            RecordLocation {
                filename: self.files.get(found.file).cloned().unwrap_or_default(),
                offset: found.offset,
                length: found.length,
            },
        )
    }

    /// The original of a revisit: the latest non-revisit capture under the referred-to URL's
    /// key with the same payload digest, at or before the referred-to date (or the revisit's
    /// own date). Keys, not exact URLs, are compared, as pywb does: an `https` revisit of an
    /// `http` original resolves. A revisit without a payload digest (`server-not-modified`)
    /// resolves by `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`: the non-revisit
    /// capture of exactly that URL at that timestamp. Candidates are those of this run and of
    /// the committed index (everything read before); the best by [`rank`] wins.
    fn resolve_original(&mut self, revisit: &Capture) -> io::Result<Option<RecordLocation>> {
        let Some(digest) = &revisit.digest else {
            let (Some(url), Some(timestamp)) =
                (&revisit.refers_to_url, &revisit.refers_to_timestamp)
            else {
                return Ok(None);
            };
            let in_run = self
                .originals
                .by_time
                .get(&key(url, timestamp))
                .map(|&entry| self.candidate(entry));
            let in_index = match &self.committed {
                Some(committed) => {
                    best_of(self.committed_originals.get(committed, &surt(url))?, |c| {
                        c.url == *url && c.timestamp == *timestamp
                    })
                }
                None => None,
            };
            return Ok(better(in_run, in_index));
        };
        let url = revisit.refers_to_url.as_deref().unwrap_or(&revisit.url);
        let limit = revisit
            .refers_to_timestamp
            .as_deref()
            .unwrap_or(&revisit.timestamp);
        let limit_key = Timestamp::new(limit);
        let mut best: Option<usize> = None;
        let mut at = self
            .originals
            .by_digest
            .get(&key(&surt(url), digest))
            .copied()
            .unwrap_or(NO_ENTRY);
        while at != NO_ENTRY {
            let entry = &self.originals.entries[at];
            if entry.timestamp <= limit_key
                && best.is_none_or(|b| self.entry_rank(at) > self.entry_rank(b))
            {
                best = Some(at);
            }
            at = entry.next;
        }
        let in_run = best.map(|entry| self.candidate(entry));
        let in_index = match &self.committed {
            Some(committed) => best_of(self.committed_originals.get(committed, &surt(url))?, |c| {
                is_original(c, digest, limit)
            }),
            None => None,
        };
        Ok(better(in_run, in_index))
    }
}

/// The best-ranked of `candidates` that `keep` accepts.
fn best_of(
    candidates: &[Capture],
    keep: impl Fn(&Capture) -> bool,
) -> Option<(i64, RecordLocation)> {
    candidates
        .iter()
        .filter(|c| keep(c))
        .map(location_of)
        .max_by(|a, b| rank(a).cmp(&rank(b)))
}

/// Whether `capture` can be the original of a revisit with payload digest `digest` that
/// refers to a time at or before `limit`.
fn is_original(capture: &Capture, digest: &str, limit: &str) -> bool {
    holds_payload(capture)
        && capture.digest.as_deref() == Some(digest)
        && capture.timestamp.as_str() <= limit
}

/// Looks up the original of a revisit in the committed index.
pub fn find_original(
    index: &(impl CaptureSource + ?Sized),
    url: &str,
    digest: &str,
    limit: &str,
) -> io::Result<Option<RecordLocation>> {
    Ok(best_of(&index.lookup_captures(&surt(url))?, |c| {
        is_original(c, digest, limit)
    })
    .map(|(_, location)| location))
}

/// Looks up, in the committed index, the non-revisit capture of exactly `url` at `timestamp`
/// (the original a revisit without a payload digest refers to by URI and date).
pub fn find_original_at(
    index: &(impl CaptureSource + ?Sized),
    url: &str,
    timestamp: &str,
) -> io::Result<Option<RecordLocation>> {
    Ok(best_of(&index.lookup_captures(&surt(url))?, |c| {
        holds_payload(c) && c.url == url && c.timestamp == timestamp
    })
    .map(|(_, location)| location))
}
