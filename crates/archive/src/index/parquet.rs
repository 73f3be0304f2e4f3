//! The capture index as Parquet, in Common Crawl's cc-index-table layout: files under
//! `DIR/crawl=NAME/subset=warc|crawldiagnostics|robotstxt/`, rows in the table's flat schema
//! (its 30 columns, in its order and with its types) followed by Linked-Data columns, each
//! file sorted by `url_surtkey` so that row-group statistics let an engine read one or two
//! row groups for a lookup.
//!
//! Exports are incremental: `DIR/_ldwarc-export.json` records, per WARC file, how far its
//! captures were exported; the next export writes only captures past that into new part
//! files and never touches the old ones. `DIR/_index-table.paths` lists every part file, for
//! engines that cannot list a folder.
//!
//! Self-contained on purpose (the capture, the capture source and the PSL are all it uses),
//! so it moves with the index module.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, Int32Type, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use serde::{Deserialize, Serialize};

use super::capture::Capture;
use super::merged::CaptureSource;

/// The manifest of an export folder: which WARC captures are in it, and its part files.
/// Names starting with `_` (and temporary files starting with `.`) are what Spark, Hive,
/// pyarrow and Athena pass over when they read the folder as a table.
pub const MANIFEST_NAME: &str = "_ldwarc-export.json";
/// The plain list of part files (paths relative to the export folder), one a line.
pub const PATHS_NAME: &str = "_index-table.paths";
/// What a part file being written is called until it is complete.
const TEMP_SUFFIX: &str = ".ldwarc-tmp";
/// The manifest's format marker.
const MANIFEST_FORMAT: &str = "ldwarc-parquet-export/1";

/// Rows per row group: with rows sorted by `url_surtkey`, a lookup of one key reads the
/// one group whose min/max holds it (two when the key's captures straddle a boundary,
/// which the writer avoids up to twice this size). 100,000 rows of this schema make
/// row groups of a few MB compressed: large enough for scans, small enough that a
/// one-URL lookup in a million captures reads a tenth of it.
pub const ROW_GROUP_ROWS: usize = 100_000;

/// The columns written without a dictionary (see [`write_subset`]).
const NEARLY_DISTINCT_COLUMNS: &[&str] = &[
    "content_digest",
    "fetch_time",
    "warc_record_offset",
    "warc_record_offset_long",
    "warc_record_length",
    "warc_record_length_long",
];
/// Rows per part file before the writer starts the next part of the same subset.
pub const FILE_ROWS: usize = 4_000_000;

/// The three subsets of cc-index-table.
const SUBSETS: [&str; 3] = ["warc", "crawldiagnostics", "robotstxt"];

/// The Parquet schema: the cc-index-table flat schema's columns (without `crawl` and
/// `subset`, which are the partition folders, as Spark writes them), then ldwarc's.
const SCHEMA: &str = "message cc_index {
  required binary url_surtkey (STRING);
  required binary url (STRING);
  required binary url_host_name (STRING);
  optional binary url_host_tld (STRING);
  optional binary url_host_2nd_last_part (STRING);
  optional binary url_host_3rd_last_part (STRING);
  optional binary url_host_4th_last_part (STRING);
  optional binary url_host_5th_last_part (STRING);
  optional binary url_host_registry_suffix (STRING);
  optional binary url_host_registered_domain (STRING);
  optional binary url_host_private_suffix (STRING);
  optional binary url_host_private_domain (STRING);
  optional binary url_host_name_reversed (STRING);
  required binary url_protocol (STRING);
  optional int32 url_port;
  required binary url_path (STRING);
  optional binary url_query (STRING);
  required int64 fetch_time (TIMESTAMP(MILLIS,true));
  required int32 fetch_status (INTEGER(16,true));
  optional binary fetch_redirect (STRING);
  optional binary content_digest (STRING);
  optional binary content_mime_type (STRING);
  optional binary content_mime_detected (STRING);
  optional binary content_charset (STRING);
  optional binary content_languages (STRING);
  optional binary content_truncated (STRING);
  required binary warc_filename (STRING);
  required int32 warc_record_offset;
  required int32 warc_record_length;
  required binary warc_segment (STRING);
  required binary warc_record_type (STRING);
  optional binary rdf_syntax (STRING);
  optional int64 statement_count;
  optional binary graph_hash (STRING);
  optional int64 revisit_original_time (TIMESTAMP(MILLIS,true));
  required int64 warc_record_offset_long;
  required int64 warc_record_length_long;
}";

/// Part-file compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ParquetCompression {
    /// gzip, as Common Crawl publishes its table.
    Gzip,
    /// Zstandard (level 3), the default: smaller than gzip (a 1,000,000-capture export written
    /// with these settings by pyarrow: 34.3 MB against 37.8 MB), and every current engine
    /// reads it.
    Zstd,
}

/// What to export and how.
#[derive(Debug, Clone)]
pub struct ParquetOptions {
    /// The `crawl=` partition the new files go into.
    pub crawl: String,
    /// Part-file compression.
    pub compression: ParquetCompression,
    /// A description of the selection (URL prefix), recorded in the manifest: an export
    /// folder holds one selection, so that "exported" means the same on every run.
    pub selection: String,
    /// Rows per row group ([`ROW_GROUP_ROWS`]).
    pub row_group_rows: usize,
    /// Rows per part file ([`FILE_ROWS`]).
    pub file_rows: usize,
}

impl ParquetOptions {
    /// Options with the default sizes.
    pub fn new(crawl: String, compression: ParquetCompression, selection: String) -> Self {
        ParquetOptions {
            crawl,
            compression,
            selection,
            row_group_rows: ROW_GROUP_ROWS,
            file_rows: FILE_ROWS,
        }
    }
}

/// What one export wrote.
#[derive(Debug, Clone, Default)]
pub struct ParquetSummary {
    /// Captures written.
    pub rows: u64,
    /// Captures passed over because an earlier export holds them.
    pub already_exported: u64,
    /// Part files written, relative to the export folder.
    pub files: Vec<String>,
}

/// The manifest kept in the export folder.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Manifest {
    format: String,
    /// The selection every export into this folder made.
    selection: String,
    /// The next part number.
    next_part: u64,
    /// Part files, relative to the folder, in the order they were written.
    files: Vec<String>,
    /// Per WARC file (relative to its root): the end of its last exported record.
    warc: BTreeMap<String, u64>,
}

/// A crawl name usable as a partition folder: not empty, no `/`, `\`, `=` or control
/// characters, not `.` or `..`.
pub fn check_crawl_name(name: &str) -> io::Result<()> {
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '=') || c.is_control());
    if bad {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--crawl {name:?}: a crawl name is one folder name (crawl=NAME): not empty, without '/', '\\\\' or '='"
            ),
        ));
    }
    Ok(())
}

/// Exports the captures of `index` whose urlkey lies in `[start, end)` and that no earlier
/// export into `dir` holds. Nothing is written when `dir` holds files ldwarc did not write,
/// when its manifest is of another selection, or when writing fails (what was begun is
/// removed).
pub fn export_parquet(
    index: &(impl CaptureSource + ?Sized),
    dir: &Path,
    options: &ParquetOptions,
    start: &str,
    end: Option<&str>,
) -> io::Result<ParquetSummary> {
    check_crawl_name(&options.crawl)?;
    let manifest = read_manifest(dir)?;
    if let Some(manifest) = &manifest
        && manifest.selection != options.selection
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: holds an export of {}, not of {}; export this selection into another folder",
                dir.display(),
                describe_selection(&manifest.selection),
                describe_selection(&options.selection)
            ),
        ));
    }
    check_only_ours(dir, manifest.as_ref())?;
    let mut manifest = manifest.unwrap_or_else(|| Manifest {
        format: MANIFEST_FORMAT.to_string(),
        selection: options.selection.clone(),
        ..Manifest::default()
    });
    let mut created = Created::default();
    let result = write_parts(index, dir, options, start, end, &mut manifest, &mut created);
    match result {
        Ok(summary) => {
            created.forget();
            Ok(summary)
        }
        Err(error) => {
            created.undo();
            Err(error)
        }
    }
}

fn describe_selection(selection: &str) -> String {
    if selection.is_empty() {
        "every capture".to_string()
    } else {
        format!("the URLs under {selection}")
    }
}

/// Paths an export created, removed again when it fails: files first, then the folders
/// (only when empty, newest first).
#[derive(Default)]
struct Created {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Created {
    fn dir_all(&mut self, dir: &Path) -> io::Result<()> {
        self.dirs.extend(create_missing_dirs(dir)?);
        Ok(())
    }

    fn undo(&mut self) {
        for file in self.files.drain(..).rev() {
            let _ = fs::remove_file(&file);
        }
        for dir in self.dirs.drain(..).rev() {
            let _ = fs::remove_dir(&dir);
        }
    }

    fn forget(&mut self) {
        self.files.clear();
        self.dirs.clear();
    }
}

/// Creates the missing folders of `dir`, outermost first, and returns those this call made
/// (a failed export removes only what it made). A folder made meanwhile by another writer
/// thread (each subset has its own) is not an error.
fn create_missing_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(path) = at {
        if path.as_os_str().is_empty() || path.is_dir() {
            break;
        }
        missing.push(path.to_path_buf());
        at = path.parent();
    }
    let mut made = Vec::new();
    for path in missing.into_iter().rev() {
        match fs::create_dir(&path) {
            Ok(()) => made.push(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(e) => return Err(with_path(e, &path)),
        }
    }
    Ok(made)
}

fn with_path(error: io::Error, path: &Path) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

fn read_manifest(dir: &Path) -> io::Result<Option<Manifest>> {
    let path = dir.join(MANIFEST_NAME);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(with_path(error, &path)),
    };
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not an ldwarc export manifest: {e}", path.display()),
        )
    })?;
    if manifest.format != MANIFEST_FORMAT {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: export format {:?}, this ldwarc writes {MANIFEST_FORMAT:?}",
                path.display(),
                manifest.format
            ),
        ));
    }
    Ok(Some(manifest))
}

/// Refuses a folder holding a file that no export into it wrote (a part file of a failed
/// export, named `*.ldwarc-tmp`, is ours: it is removed).
fn check_only_ours(dir: &Path, manifest: Option<&Manifest>) -> io::Result<()> {
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a folder", dir.display()),
            ));
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(with_path(error, dir)),
    }
    let listed: std::collections::HashSet<&str> = manifest
        .map(|m| m.files.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let mut leftovers = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_path_buf();
            with_path(io::Error::other(e), &path)
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let relative = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        let ours = (manifest.is_some() && (relative == MANIFEST_NAME || relative == PATHS_NAME))
            || listed.contains(relative.as_str());
        if ours {
            continue;
        }
        if manifest.is_some() && relative.ends_with(TEMP_SUFFIX) {
            leftovers.push(entry.path().to_path_buf());
            continue;
        }
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: the export folder holds files ldwarc did not write ({relative}); export into an empty or new folder",
                dir.display()
            ),
        ));
    }
    for leftover in leftovers {
        tracing::info!(path = %leftover.display(), "removing a part file a failed export left");
        fs::remove_file(&leftover).map_err(|e| with_path(e, &leftover))?;
    }
    Ok(())
}

fn write_parts(
    index: &(impl CaptureSource + ?Sized),
    dir: &Path,
    options: &ParquetOptions,
    start: &str,
    end: Option<&str>,
    manifest: &mut Manifest,
    created: &mut Created,
) -> io::Result<ParquetSummary> {
    created.dir_all(dir)?;
    // A test write first: an unwritable folder fails here, naming it, before any scan.
    let probe = dir.join(format!(".probe{TEMP_SUFFIX}"));
    File::create(&probe).map_err(|e| with_path(e, dir))?;
    let _ = fs::remove_file(&probe);

    let export_id = format!(
        "{:016x}",
        chrono::Utc::now().timestamp_micros().max(0) as u64
    );
    let crawl = options.crawl.clone();
    let previous = manifest.warc.clone();
    let mut summary = ParquetSummary::default();
    let mut new_ends: BTreeMap<String, u64> = BTreeMap::new();
    let next_part = std::sync::atomic::AtomicU64::new(manifest.next_part);

    let outcome: io::Result<Vec<Vec<PartFile>>> = std::thread::scope(|scope| {
        let mut senders: Vec<SyncSender<Vec<Row>>> = Vec::new();
        let mut writers = Vec::new();
        for subset in SUBSETS {
            let (sender, receiver) = sync_channel::<Vec<Row>>(2);
            senders.push(sender);
            let folder = dir
                .join(format!("crawl={crawl}"))
                .join(format!("subset={subset}"));
            let next_part = &next_part;
            let export_id = &export_id;
            writers.push(
                scope.spawn(move || write_subset(receiver, &folder, options, next_part, export_id)),
            );
        }
        let mut batches: Vec<Vec<Row>> = (0..SUBSETS.len()).map(|_| Vec::new()).collect();
        let mut group: Vec<Capture> = Vec::new();
        let mut failed = false;
        let route = |group: &mut Vec<Capture>, batches: &mut Vec<Vec<Row>>| -> bool {
            group.sort_by(|a, b| {
                (a.time_micros, &a.filename, a.offset).cmp(&(b.time_micros, &b.filename, b.offset))
            });
            let key_ends_batch = |batch: &Vec<Row>| batch.len() >= 256;
            for capture in group.drain(..) {
                let row = Row::of(&capture);
                let subset = row.subset;
                batches[subset].push(row);
            }
            // Batches are handed over at key boundaries, so a key is never split between
            // two hand-overs (the writer cuts row groups only between hand-overs).
            for (subset, batch) in batches.iter_mut().enumerate() {
                if key_ends_batch(batch) && senders[subset].send(std::mem::take(batch)).is_err() {
                    return false;
                }
            }
            true
        };
        let scanned = index.scan_captures(start, end, &mut |capture| {
            if failed {
                return;
            }
            let exported_end = previous.get(&capture.filename).copied().unwrap_or(0);
            if capture.offset < exported_end {
                summary.already_exported += 1;
                return;
            }
            let record_end = capture.offset + capture.length;
            let known = new_ends.entry(capture.filename.clone()).or_insert(0);
            *known = (*known).max(record_end);
            if group
                .first()
                .is_some_and(|first| first.urlkey != capture.urlkey)
                && !route(&mut group, &mut batches)
            {
                failed = true;
            }
            summary.rows += 1;
            group.push(capture);
        });
        if !failed && !group.is_empty() {
            route(&mut group, &mut batches);
        }
        for (subset, batch) in batches.into_iter().enumerate() {
            if !batch.is_empty() {
                let _ = senders[subset].send(batch);
            }
        }
        drop(senders);
        let mut parts = Vec::new();
        let mut first_error: Option<io::Error> = None;
        for writer in writers {
            match writer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            {
                Ok(files) => parts.push(files),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        scanned?;
        match first_error {
            Some(error) => Err(error),
            None => Ok(parts),
        }
    });
    // Every temporary file is registered before anything can fail on, so a failure removes
    // them all.
    let parts = match outcome {
        Ok(parts) => parts,
        Err(error) => {
            remove_temporaries(dir, &crawl, &export_id);
            return Err(error);
        }
    };
    let mut finished: Vec<&PartFile> = parts.iter().flatten().collect();
    finished.sort_by_key(|part| part.number);
    for part in &finished {
        created.files.push(part.temp.clone());
    }
    for part in &finished {
        for dir_made in &part.dirs_made {
            if !created.dirs.contains(dir_made) {
                created.dirs.push(dir_made.clone());
            }
        }
    }
    if finished.is_empty() {
        return Ok(summary);
    }
    for part in &finished {
        fs::rename(&part.temp, &part.path).map_err(|e| with_path(e, &part.path))?;
        created.files.push(part.path.clone());
        let relative = part
            .path
            .strip_prefix(dir)
            .unwrap_or(&part.path)
            .to_string_lossy()
            .replace('\\', "/");
        manifest.files.push(relative.clone());
        summary.files.push(relative);
    }
    manifest.next_part = next_part.load(std::sync::atomic::Ordering::SeqCst);
    for (file, end) in new_ends {
        let entry = manifest.warc.entry(file).or_insert(0);
        *entry = (*entry).max(end);
    }
    let mut paths = String::new();
    for file in &manifest.files {
        paths.push_str(file);
        paths.push('\n');
    }
    let manifest_text = serde_json::to_string_pretty(&*manifest).map_err(io::Error::other)?;
    replace_file(&dir.join(PATHS_NAME), paths.as_bytes(), created)?;
    replace_file(&dir.join(MANIFEST_NAME), manifest_text.as_bytes(), created)?;
    Ok(summary)
}

/// Removes the temporary part files an export with this id left (a writer that failed
/// after creating its file).
fn remove_temporaries(dir: &Path, crawl: &str, export_id: &str) {
    for subset in SUBSETS {
        let folder = dir
            .join(format!("crawl={crawl}"))
            .join(format!("subset={subset}"));
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.contains(export_id) && name.ends_with(TEMP_SUFFIX) {
                let _ = fs::remove_file(entry.path());
            }
        }
        let _ = fs::remove_dir(&folder);
        let _ = fs::remove_dir(folder.parent().unwrap_or(dir));
    }
}

/// Writes `bytes` to `path` through a temporary file renamed over it.
fn replace_file(path: &Path, bytes: &[u8], created: &mut Created) -> io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = path.with_file_name(format!(".{name}{TEMP_SUFFIX}"));
    created.files.push(temp.clone());
    let mut file = File::create(&temp).map_err(|e| with_path(e, &temp))?;
    file.write_all(bytes).map_err(|e| with_path(e, &temp))?;
    file.sync_all().map_err(|e| with_path(e, &temp))?;
    fs::rename(&temp, path).map_err(|e| with_path(e, path))
}

/// A part file written under its temporary name.
struct PartFile {
    number: u64,
    temp: PathBuf,
    path: PathBuf,
    dirs_made: Vec<PathBuf>,
}

/// Writes the rows of one subset, in the order received, into part files of at most
/// `file_rows` rows, cutting row groups at hand-over boundaries once `row_group_rows` are
/// buffered (or at twice that, inside a hand-over).
fn write_subset(
    receiver: Receiver<Vec<Row>>,
    folder: &Path,
    options: &ParquetOptions,
    next_part: &std::sync::atomic::AtomicU64,
    export_id: &str,
) -> io::Result<Vec<PartFile>> {
    let schema = Arc::new(parse_message_type(SCHEMA).map_err(io::Error::other)?);
    let compression = match options.compression {
        ParquetCompression::Gzip => Compression::GZIP(GzipLevel::default()),
        ParquetCompression::Zstd => {
            Compression::ZSTD(ZstdLevel::try_new(3).map_err(io::Error::other)?)
        }
    };
    let mut properties = WriterProperties::builder()
        .set_compression(compression)
        .set_dictionary_enabled(true)
        .set_statistics_enabled(EnabledStatistics::Page)
        // Exact min/max: a truncated max of one group can pass the next group's min
        // when URLs share a long prefix, which breaks the sorted-groups check.
        .set_statistics_truncate_length(None)
        .set_column_index_truncate_length(None)
        // A bloom filter on the sort key: a lookup also meets the one row group of each
        // other subset whose min/max span holds the key, and skips it by the filter.
        .set_column_bloom_filter_enabled(ColumnPath::from("url_surtkey"), true)
        .set_column_bloom_filter_fpp(ColumnPath::from("url_surtkey"), 0.01)
        .set_column_bloom_filter_max_ndv(
            ColumnPath::from("url_surtkey"),
            2 * options.row_group_rows.max(1) as u64,
        )
        .set_created_by(format!("ldwarc {}", env!("CARGO_PKG_VERSION")));
    // Columns whose values are nearly all distinct: a dictionary only adds its pages (a
    // 1,000,000-capture export rewritten by pyarrow, gzip: 42.9 MB with dictionaries on these
    // columns, 37.8 MB without).
    for column in NEARLY_DISTINCT_COLUMNS {
        properties = properties.set_column_dictionary_enabled(ColumnPath::from(*column), false);
    }
    let properties = Arc::new(properties.build());
    let mut parts: Vec<PartFile> = Vec::new();
    let mut writer: Option<(SerializedFileWriter<BufWriter<File>>, usize)> = None;
    let mut buffer: Vec<Row> = Vec::new();
    let mut failure: Option<io::Error> = None;
    let max_group = options.row_group_rows.max(1);
    for batch in receiver {
        if failure.is_some() {
            continue;
        }
        buffer.extend(batch);
        let step = (|| -> io::Result<()> {
            while buffer.len() >= max_group {
                // At a hand-over boundary: the whole buffer, up to twice the target;
                // beyond that, the target (a key may then straddle two groups).
                let take = if buffer.len() <= 2 * max_group {
                    buffer.len()
                } else {
                    max_group
                };
                let rows: Vec<Row> = buffer.drain(..take).collect();
                write_group(
                    &mut writer,
                    &mut parts,
                    &rows,
                    folder,
                    options,
                    &schema,
                    &properties,
                    next_part,
                    export_id,
                )?;
            }
            Ok(())
        })();
        if let Err(error) = step {
            failure = Some(error);
        }
    }
    if failure.is_none() && !buffer.is_empty() {
        let rows = std::mem::take(&mut buffer);
        if let Err(error) = write_group(
            &mut writer,
            &mut parts,
            &rows,
            folder,
            options,
            &schema,
            &properties,
            next_part,
            export_id,
        ) {
            failure = Some(error);
        }
    }
    if failure.is_none()
        && let Some((open, _)) = writer.take()
    {
        let path = parts.last().map(|p| p.temp.clone()).unwrap_or_default();
        if let Err(error) = close_file(open, &path) {
            failure = Some(error);
        }
    }
    match failure {
        Some(error) => {
            drop(writer);
            for part in &parts {
                let _ = fs::remove_file(&part.temp);
            }
            for part in parts.iter().rev() {
                for dir in part.dirs_made.iter().rev() {
                    let _ = fs::remove_dir(dir);
                }
            }
            Err(error)
        }
        None => Ok(parts),
    }
}

fn close_file(writer: SerializedFileWriter<BufWriter<File>>, path: &Path) -> io::Result<()> {
    let mut out = writer
        .into_inner()
        .map_err(|e| with_path(io::Error::other(e), path))?;
    out.flush().map_err(|e| with_path(e, path))?;
    out.get_ref().sync_all().map_err(|e| with_path(e, path))
}

#[allow(clippy::too_many_arguments)]
fn write_group(
    writer: &mut Option<(SerializedFileWriter<BufWriter<File>>, usize)>,
    parts: &mut Vec<PartFile>,
    rows: &[Row],
    folder: &Path,
    options: &ParquetOptions,
    schema: &Arc<parquet::schema::types::Type>,
    properties: &Arc<WriterProperties>,
    next_part: &std::sync::atomic::AtomicU64,
    export_id: &str,
) -> io::Result<()> {
    if let Some((_, written)) = writer
        && *written + rows.len() > options.file_rows.max(1)
        && *written > 0
    {
        let (open, _) = writer.take().expect("an open part");
        let path = parts.last().map(|p| p.temp.clone()).unwrap_or_default();
        close_file(open, &path)?;
    }
    if writer.is_none() {
        let dirs_made = create_missing_dirs(folder)?;
        let number = next_part.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("part-{number:05}-{export_id}.parquet");
        let path = folder.join(&name);
        let temp = folder.join(format!(".{name}{TEMP_SUFFIX}"));
        let file = File::create(&temp).map_err(|e| with_path(e, &temp))?;
        parts.push(PartFile {
            number,
            temp: temp.clone(),
            path,
            dirs_made,
        });
        let open = SerializedFileWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            schema.clone(),
            properties.clone(),
        )
        .map_err(|e| with_path(io::Error::other(e), &temp))?;
        *writer = Some((open, 0));
    }
    let path = parts.last().map(|p| p.temp.clone()).unwrap_or_default();
    let (open, written) = writer.as_mut().expect("an open part");
    write_rows(open, rows).map_err(|e| with_path(io::Error::other(e), &path))?;
    *written += rows.len();
    Ok(())
}

/// One row of the table.
struct Row {
    subset: usize,
    surtkey: String,
    url: String,
    host: HostParts,
    protocol: String,
    port: Option<i32>,
    path: String,
    query: Option<String>,
    fetch_time: i64,
    status: i32,
    redirect: Option<String>,
    digest: Option<String>,
    mime: Option<String>,
    filename: String,
    offset: u64,
    length: u64,
    segment: String,
    record_type: ldwarc_warc::RecordType,
    rdf_syntax: Option<&'static str>,
    revisit_original_time: Option<i64>,
}

impl Row {
    fn of(capture: &Capture) -> Row {
        let parts = UrlParts::of(&capture.url);
        let status = capture.status.map_or(-1, i32::from);
        let subset = subset_of(&parts.path, capture.status);
        let digest = capture
            .digest
            .as_deref()
            .map(|d| d.strip_prefix("sha1:").unwrap_or(d).to_string());
        let rdf_syntax = capture
            .mime
            .as_deref()
            .and_then(ldwarc_rdf::Syntax::from_media_type)
            .map(|s| s.name());
        let revisit_original_time = capture
            .refers_to_timestamp
            .as_deref()
            .and_then(timestamp_millis);
        Row {
            subset,
            surtkey: capture.urlkey.clone(),
            url: capture.url.clone(),
            host: HostParts::of(&parts.host),
            protocol: parts.scheme,
            port: parts.port,
            path: parts.path,
            query: parts.query,
            fetch_time: capture.time_micros.div_euclid(1000),
            status,
            redirect: capture.redirect.clone(),
            digest,
            mime: capture.mime.clone(),
            filename: format!("warc/{}", capture.filename),
            offset: capture.offset,
            length: capture.length,
            segment: segment_of(&capture.filename),
            record_type: capture.record_type.clone(),
            rdf_syntax,
            revisit_original_time,
        }
    }
}

/// The subset a capture belongs to: `robotstxt` for `/robots.txt`, `crawldiagnostics` for
/// every HTTP status outside 2xx (redirects, 303 included, and errors), `warc` for the rest
/// (2xx, and records without HTTP status: resources and metadata).
fn subset_of(path: &str, status: Option<u16>) -> usize {
    if path == "/robots.txt" {
        2
    } else if status.is_some_and(|s| !(200..300).contains(&s)) {
        1
    } else {
        0
    }
}

/// The segment of a WARC file: the folder it lies in below `warc/` (`2026/01/01/00/host`
/// for ldwarc's hourly layout), or `.` for a file directly in `warc/`.
fn segment_of(filename: &str) -> String {
    match filename.rsplit_once('/') {
        Some((folder, _)) => folder.to_string(),
        None => ".".to_string(),
    }
}

/// A 14-digit timestamp as milliseconds since the epoch.
fn timestamp_millis(timestamp: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(timestamp, "%Y%m%d%H%M%S")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

/// A URL cut as `java.net.URL` cuts it (what Common Crawl's table holds): scheme lower
/// case, the port only when written, path and query as written (no normalisation).
#[derive(Debug, PartialEq, Eq)]
struct UrlParts {
    scheme: String,
    host: String,
    port: Option<i32>,
    path: String,
    query: Option<String>,
}

impl UrlParts {
    fn of(url: &str) -> UrlParts {
        let (scheme, rest) = match url.split_once(':') {
            Some((scheme, rest))
                if !scheme.is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
            {
                (scheme.to_ascii_lowercase(), rest)
            }
            _ => (String::new(), url),
        };
        let without_fragment = rest.split('#').next().unwrap_or(rest);
        let (before_query, query) = match without_fragment.split_once('?') {
            Some((before, query)) => (before, Some(query.to_string())),
            None => (without_fragment, None),
        };
        let (authority, path) = match before_query.strip_prefix("//") {
            Some(after) => match after.find('/') {
                Some(slash) => (Some(&after[..slash]), after[slash..].to_string()),
                None => (Some(after), String::new()),
            },
            None => (None, before_query.to_string()),
        };
        let (host, port) = match authority {
            Some(authority) => {
                let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
                split_port(host_port)
            }
            // `dns:example.org` names its host in the scheme-specific part, as Common
            // Crawl's table reads it.
            None if scheme == "dns" => (before_query.to_string(), None),
            None => (String::new(), None),
        };
        UrlParts {
            scheme,
            host: host.to_lowercase(),
            port,
            path,
            query,
        }
    }
}

/// Host and written port of an authority (`[v6]:port` included).
fn split_port(host_port: &str) -> (String, Option<i32>) {
    if host_port.starts_with('[') {
        return match host_port.find(']') {
            Some(close) => {
                let port = host_port[close + 1..]
                    .strip_prefix(':')
                    .and_then(|p| p.parse().ok());
                (host_port[..=close].to_string(), port)
            }
            None => (host_port.to_string(), None),
        };
    }
    match host_port.rsplit_once(':') {
        Some((host, port)) => (host.to_string(), port.parse().ok()),
        None => (host_port.to_string(), None),
    }
}

/// The host columns as Common Crawl derives them: the name (IP addresses canonical,
/// others in ASCII without a final dot), its labels from the right, the registry (ICANN)
/// and private suffixes of the Public Suffix List with the domains one label below them;
/// an IP address has no labels, suffixes or reversed name.
#[derive(Debug, Default, PartialEq, Eq)]
struct HostParts {
    name: String,
    labels_reversed: Vec<String>,
    registry_suffix: Option<String>,
    registered_domain: Option<String>,
    private_suffix: Option<String>,
    private_domain: Option<String>,
}

impl HostParts {
    fn of(host: &str) -> HostParts {
        if host.is_empty() {
            return HostParts::default();
        }
        let name = match url::Host::parse(host).ok() {
            Some(url::Host::Ipv4(ip)) => {
                return HostParts {
                    name: ip.to_string(),
                    ..HostParts::default()
                };
            }
            Some(url::Host::Ipv6(ip)) => {
                return HostParts {
                    name: format!("[{ip}]"),
                    ..HostParts::default()
                };
            }
            Some(url::Host::Domain(domain)) => domain,
            None => host.to_string(),
        };
        let name = name.strip_suffix('.').unwrap_or(&name).to_string();
        let labels_reversed: Vec<String> = name.split('.').rev().map(str::to_string).collect();
        let mut parts = HostParts {
            name,
            labels_reversed,
            ..HostParts::default()
        };
        let Some(private) = psl::suffix(parts.name.as_bytes()).filter(|s| s.is_known()) else {
            return parts;
        };
        let private_suffix = String::from_utf8_lossy(private.as_bytes()).into_owned();
        let private_domain = domain_below(&parts.name, &private_suffix);
        let registry_suffix = if private.typ() == Some(psl::Type::Private) {
            icann_suffix_within(&private_suffix)
        } else {
            Some(private_suffix.clone())
        };
        parts.registered_domain = registry_suffix
            .as_deref()
            .and_then(|suffix| domain_below(&parts.name, suffix));
        parts.registry_suffix = registry_suffix;
        parts.private_suffix = Some(private_suffix);
        parts.private_domain = private_domain;
        parts
    }

    fn label(&self, i: usize) -> Option<&str> {
        self.labels_reversed.get(i).map(String::as_str)
    }

    fn reversed(&self) -> Option<String> {
        (!self.labels_reversed.is_empty()).then(|| self.labels_reversed.join("."))
    }
}

/// The longest ICANN suffix inside a private suffix (`co.uk` in `blogspot.co.uk`).
fn icann_suffix_within(private_suffix: &str) -> Option<String> {
    let mut rest = private_suffix;
    while let Some((_, shorter)) = rest.split_once('.') {
        rest = shorter;
        if let Some(suffix) = psl::suffix(rest.as_bytes()).filter(|s| s.is_known())
            && suffix.typ() == Some(psl::Type::Icann)
        {
            return Some(String::from_utf8_lossy(suffix.as_bytes()).into_owned());
        }
    }
    None
}

/// The domain one label below `suffix` in `name`, or `None` when `name` is the suffix.
fn domain_below(name: &str, suffix: &str) -> Option<String> {
    let head = name.strip_suffix(suffix)?.strip_suffix('.')?;
    let label = head.rsplit('.').next().filter(|l| !l.is_empty())?;
    Some(format!("{label}.{suffix}"))
}

/// Writes one row group.
fn write_rows(
    writer: &mut SerializedFileWriter<BufWriter<File>>,
    rows: &[Row],
) -> parquet::errors::Result<()> {
    let mut group = writer.next_row_group()?;
    let mut column = 0usize;
    while let Some(mut out) = group.next_column()? {
        match column {
            0 => strings(&mut out, rows, |r| Some(r.surtkey.as_str()), true)?,
            1 => strings(&mut out, rows, |r| Some(r.url.as_str()), true)?,
            2 => strings(&mut out, rows, |r| Some(r.host.name.as_str()), true)?,
            3..=7 => {
                let i = column - 3;
                strings(&mut out, rows, |r| r.host.label(i), false)?
            }
            8 => strings(&mut out, rows, |r| r.host.registry_suffix.as_deref(), false)?,
            9 => strings(
                &mut out,
                rows,
                |r| r.host.registered_domain.as_deref(),
                false,
            )?,
            10 => strings(&mut out, rows, |r| r.host.private_suffix.as_deref(), false)?,
            11 => strings(&mut out, rows, |r| r.host.private_domain.as_deref(), false)?,
            12 => {
                let reversed: Vec<Option<String>> =
                    rows.iter().map(|r| r.host.reversed()).collect();
                let mut i = 0;
                strings(
                    &mut out,
                    rows,
                    |_| {
                        i += 1;
                        reversed[i - 1].as_deref()
                    },
                    false,
                )?
            }
            13 => strings(&mut out, rows, |r| Some(r.protocol.as_str()), true)?,
            14 => int32s(&mut out, rows, |r| r.port, false)?,
            15 => strings(&mut out, rows, |r| Some(r.path.as_str()), true)?,
            16 => strings(&mut out, rows, |r| r.query.as_deref(), false)?,
            17 => int64s(&mut out, rows, |r| Some(r.fetch_time), true)?,
            18 => int32s(&mut out, rows, |r| Some(r.status), true)?,
            19 => strings(&mut out, rows, |r| r.redirect.as_deref(), false)?,
            20 => strings(&mut out, rows, |r| r.digest.as_deref(), false)?,
            21 => strings(&mut out, rows, |r| r.mime.as_deref(), false)?,
            // Detected type, charset, languages, truncation: the capture index keeps none.
            22..=25 => strings(&mut out, rows, |_| None, false)?,
            26 => strings(&mut out, rows, |r| Some(r.filename.as_str()), true)?,
            27 => int32s(&mut out, rows, |r| Some(int32_or_minus_one(r.offset)), true)?,
            28 => int32s(&mut out, rows, |r| Some(int32_or_minus_one(r.length)), true)?,
            29 => strings(&mut out, rows, |r| Some(r.segment.as_str()), true)?,
            30 => strings(&mut out, rows, |r| Some(r.record_type.as_str()), true)?,
            31 => strings(&mut out, rows, |r| r.rdf_syntax, false)?,
            // Statement count and graph hash: not in the capture index (see docs/columnar.md).
            32 => int64s(&mut out, rows, |_| None, false)?,
            33 => strings(&mut out, rows, |_| None, false)?,
            34 => int64s(&mut out, rows, |r| r.revisit_original_time, false)?,
            35 => int64s(&mut out, rows, |r| Some(r.offset as i64), true)?,
            36 => int64s(&mut out, rows, |r| Some(r.length as i64), true)?,
            _ => unreachable!("the schema has 37 columns"),
        }
        out.close()?;
        column += 1;
    }
    group.close()?;
    Ok(())
}

/// Offsets and lengths past 2 GiB do not fit the table's 32-bit columns: they hold -1 and
/// the `_long` columns the value.
fn int32_or_minus_one(value: u64) -> i32 {
    i32::try_from(value).unwrap_or(-1)
}

/// Writes one column of a row group: the present values, and definition levels when the
/// column may be null.
fn column<T: parquet::data_type::DataType>(
    out: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    values: Vec<Option<T::T>>,
    required: bool,
) -> parquet::errors::Result<()> {
    let defs: Option<Vec<i16>> =
        (!required).then(|| values.iter().map(|v| i16::from(v.is_some())).collect());
    let data: Vec<T::T> = values.into_iter().flatten().collect();
    out.typed::<T>().write_batch(&data, defs.as_deref(), None)?;
    Ok(())
}

fn strings<'a>(
    out: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    rows: &'a [Row],
    mut value: impl FnMut(&'a Row) -> Option<&'a str>,
    required: bool,
) -> parquet::errors::Result<()> {
    let values = rows
        .iter()
        .map(|row| value(row).map(|v| ByteArray::from(v.as_bytes().to_vec())))
        .collect();
    column::<ByteArrayType>(out, values, required)
}

fn int32s(
    out: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    rows: &[Row],
    value: impl Fn(&Row) -> Option<i32>,
    required: bool,
) -> parquet::errors::Result<()> {
    column::<Int32Type>(out, rows.iter().map(value).collect(), required)
}

fn int64s(
    out: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    rows: &[Row],
    value: impl Fn(&Row) -> Option<i64>,
    required: bool,
) -> parquet::errors::Result<()> {
    column::<Int64Type>(out, rows.iter().map(value).collect(), required)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each subset is written by its own thread, and all make `crawl=NAME/` at once: the
    /// one that loses the race must not fail the export ("File exists").
    #[test]
    fn threads_making_the_same_folders_at_once_all_succeed() {
        for round in 0..50 {
            let dir = tempfile::tempdir().expect("temp dir");
            let crawl = dir.path().join("table").join(format!("crawl=C{round}"));
            let made: Vec<Vec<PathBuf>> = std::thread::scope(|scope| {
                let workers: Vec<_> = ["warc", "crawldiagnostics", "robotstxt"]
                    .iter()
                    .map(|subset| {
                        let folder = crawl.join(format!("subset={subset}"));
                        scope.spawn(move || create_missing_dirs(&folder).expect("made"))
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|w| w.join().expect("joined"))
                    .collect()
            });
            let all: Vec<&PathBuf> = made.iter().flatten().collect();
            // Every folder made exactly once, by one of the threads.
            assert_eq!(all.iter().filter(|p| ***p == crawl).count(), 1);
            assert_eq!(all.len(), 5, "{all:?}");
        }
    }

    #[test]
    fn host_parts_follow_the_public_suffix_list() {
        let www = HostParts::of("www.example.com");
        assert_eq!(www.name, "www.example.com");
        assert_eq!(www.labels_reversed, ["com", "example", "www"]);
        assert_eq!(www.registry_suffix.as_deref(), Some("com"));
        assert_eq!(www.registered_domain.as_deref(), Some("example.com"));
        assert_eq!(www.private_suffix.as_deref(), Some("com"));
        assert_eq!(www.private_domain.as_deref(), Some("example.com"));
        assert_eq!(www.reversed().as_deref(), Some("com.example.www"));

        let bbc = HostParts::of("www.bbc.co.uk");
        assert_eq!(bbc.registry_suffix.as_deref(), Some("co.uk"));
        assert_eq!(bbc.registered_domain.as_deref(), Some("bbc.co.uk"));

        // A private suffix: the registry suffix is the ICANN one inside it.
        let blog = HostParts::of("myblog.blogspot.com");
        assert_eq!(blog.private_suffix.as_deref(), Some("blogspot.com"));
        assert_eq!(blog.private_domain.as_deref(), Some("myblog.blogspot.com"));
        assert_eq!(blog.registry_suffix.as_deref(), Some("com"));
        assert_eq!(blog.registered_domain.as_deref(), Some("blogspot.com"));

        // A name that is a suffix has no domain below it; a final dot is dropped.
        let suffix = HostParts::of("co.uk.");
        assert_eq!(suffix.name, "co.uk");
        assert_eq!(suffix.registry_suffix.as_deref(), Some("co.uk"));
        assert_eq!(suffix.registered_domain, None);

        // Not in the list: labels, but no suffix or domain.
        let unknown = HostParts::of("gen.invalidtld");
        assert_eq!(unknown.labels_reversed, ["invalidtld", "gen"]);
        assert_eq!(unknown.registry_suffix, None);
        assert_eq!(unknown.private_domain, None);

        // IP addresses: canonical, no labels.
        let v4 = HostParts::of("127.1");
        assert_eq!(v4.name, "127.0.0.1");
        assert!(v4.labels_reversed.is_empty());
        assert_eq!(v4.reversed(), None);
        let v6 = HostParts::of("[0:0::1]");
        assert_eq!(v6.name, "[::1]");
        assert_eq!(v6.registry_suffix, None);

        // Internationalised names in ASCII.
        let idn = HostParts::of("bücher.example");
        assert_eq!(idn.name, "xn--bcher-kva.example");
    }

    #[test]
    fn urls_are_cut_as_java_cuts_them() {
        let parts = UrlParts::of("HTTPS://User@Data.Example.org:8443/a/b%20c?x=1&y#frag");
        assert_eq!(
            parts,
            UrlParts {
                scheme: "https".into(),
                host: "data.example.org".into(),
                port: Some(8443),
                path: "/a/b%20c".into(),
                query: Some("x=1&y".into()),
            }
        );
        let bare = UrlParts::of("http://example.org");
        assert_eq!(
            (bare.path.as_str(), bare.port, bare.query),
            ("", None, None)
        );
        let empty_query = UrlParts::of("http://example.org/?");
        assert_eq!(empty_query.query.as_deref(), Some(""));
        let v6 = UrlParts::of("http://[::1]:8080/x");
        assert_eq!((v6.host.as_str(), v6.port), ("[::1]", Some(8080)));
        let dns = UrlParts::of("dns:Example.org");
        assert_eq!(
            (dns.scheme.as_str(), dns.host.as_str()),
            ("dns", "example.org")
        );
        let urn = UrlParts::of("urn:x:1");
        assert_eq!((urn.host.as_str(), urn.path.as_str()), ("", "x:1"));
    }

    #[test]
    fn subsets_follow_status_and_robots() {
        assert_eq!(SUBSETS[subset_of("/", Some(200))], "warc");
        assert_eq!(SUBSETS[subset_of("/", None)], "warc");
        assert_eq!(SUBSETS[subset_of("/a", Some(303))], "crawldiagnostics");
        assert_eq!(SUBSETS[subset_of("/a", Some(404))], "crawldiagnostics");
        assert_eq!(SUBSETS[subset_of("/a", Some(199))], "crawldiagnostics");
        assert_eq!(SUBSETS[subset_of("/robots.txt", Some(404))], "robotstxt");
        assert_eq!(SUBSETS[subset_of("/robots.txt", Some(200))], "robotstxt");
    }

    #[test]
    fn crawl_names_are_one_folder_name() {
        for good in ["LDWARC-2026-11", "crawl 1", "a.b"] {
            assert!(check_crawl_name(good).is_ok(), "{good}");
        }
        for bad in ["", ".", "..", "a/b", "a=b", "a\\b", "a\nb"] {
            let error = check_crawl_name(bad).expect_err(bad);
            assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        }
    }

    #[test]
    fn offsets_past_two_gib_are_minus_one_in_the_32_bit_columns() {
        assert_eq!(int32_or_minus_one(0), 0);
        assert_eq!(int32_or_minus_one(i32::MAX as u64), i32::MAX);
        assert_eq!(int32_or_minus_one(i32::MAX as u64 + 1), -1);
    }
}
