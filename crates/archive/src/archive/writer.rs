//! Writing captures into the partitioned tree: one open file per pay-level domain and hour,
//! rotated by size and at the hour boundary, renamed from `.open` when closed.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use chrono::{DateTime, DurationRound, TimeDelta, Utc};

use super::OPEN_SUFFIX;
use super::layout::{Archive, file_name};
use super::recover::{Recovery, recover_open_files};
use ldwarc_surt::pay_level_domain;
use ldwarc_warc::{Block, WarcHeader, WarcWriter, warcinfo_record};

/// Write buffer per open file. Every capture is flushed when written, so a bigger buffer
/// buys nothing, and a crawl keeps one file open per PLD (hundreds at once).
const FILE_BUFFER_BYTES: usize = 32 * 1024;

/// Serial numbers handed out by this process; names are also checked on disk.
static NEXT_SERIAL: AtomicU32 = AtomicU32::new(0);

/// How the archive writer names, rotates and describes its files.
#[derive(Debug, Clone)]
pub struct ArchiveWriterOptions {
    /// First part of every file name.
    pub prefix: String,
    /// A file is closed once it reaches this size (default 1 GB).
    pub max_file_bytes: u64,
    /// gzip level 0–9 (default 6).
    pub gzip_level: u32,
    /// The crawling machine's name, part of every file name.
    pub hostname: String,
    /// Who runs the crawl (`operator` in `warcinfo`).
    pub operator: Option<String>,
    /// The robots policy stated in `warcinfo`.
    pub robots_policy: String,
    /// Extra `warcinfo` fields (e.g. `http-header-user-agent`).
    pub extra_info: Vec<(String, String)>,
}

impl Default for ArchiveWriterOptions {
    fn default() -> Self {
        Self {
            prefix: "ldwarc".into(),
            max_file_bytes: 1_000_000_000,
            gzip_level: 6,
            hostname: gethostname::gethostname().to_string_lossy().into_owned(),
            operator: None,
            robots_policy: "obey".into(),
            extra_info: Vec::new(),
        }
    }
}

/// Where a record was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// The file's final path relative to the archive root (`warc/…/x.warc.gz`); while the
    /// file is open it exists with the `.open` suffix.
    pub file: String,
    /// Offset of the record's gzip member.
    pub offset: u64,
    /// Length of the record's gzip member.
    pub length: u64,
    /// The header as written.
    pub header: WarcHeader,
}

struct OpenFile {
    hour: DateTime<Utc>,
    relative: String,
    open_path: PathBuf,
    final_path: PathBuf,
    writer: WarcWriter<BufWriter<File>>,
}

/// Appends captures to the archive. Holds the archive's writer lock while it lives.
pub struct ArchiveWriter {
    archive: Archive,
    options: ArchiveWriterOptions,
    files: HashMap<String, OpenFile>,
    /// File names present in each hour directory (read once per hour: while this writer
    /// holds the lock, only it adds names).
    taken: HashMap<PathBuf, HashSet<String>>,
    _lock: File,
}

impl ArchiveWriter {
    /// Takes the writer lock of the archive at `root`, then finalises any file a crashed
    /// writer left open (returned as recoveries).
    pub fn open(
        root: impl Into<PathBuf>,
        options: ArchiveWriterOptions,
    ) -> io::Result<(Self, Vec<Recovery>)> {
        let archive = Archive::new(root);
        let lock = lock_archive(&archive)?;
        let recoveries = recover_open_files(&archive.warc_dir())?;
        Ok((
            Self {
                archive,
                options,
                files: HashMap::new(),
                taken: HashMap::new(),
                _lock: lock,
            },
            recoveries,
        ))
    }

    /// The archive being written.
    pub fn archive(&self) -> &Archive {
        &self.archive
    }

    /// Writes the records of one capture (e.g. request, response, metadata) into the open
    /// file for `host`'s pay-level domain and the hour of the first record's `WARC-Date`,
    /// then flushes them to the operating system so a killed process loses none of them.
    pub fn write_capture(
        &mut self,
        host: &str,
        records: Vec<(WarcHeader, Block)>,
    ) -> io::Result<Vec<StoredRecord>> {
        let time = records
            .first()
            .and_then(|(header, _)| header.date_time())
            .unwrap_or_else(Utc::now);
        let pld = pay_level_domain(host);
        let file = self.file_for(&pld, time)?;
        let relative = file.relative.clone();
        let mut stored = Vec::with_capacity(records.len());
        for (header, block) in records {
            let written = file.writer.write_record(header, block)?;
            stored.push(StoredRecord {
                file: relative.clone(),
                offset: written.offset,
                length: written.length,
                header: written.header,
            });
        }
        file.writer.flush()?;
        Ok(stored)
    }

    /// Closes files of hours before `now` (call periodically so idle files are finalised).
    pub fn close_stale(&mut self, now: DateTime<Utc>) -> io::Result<()> {
        let hour = truncate_hour(now);
        let stale: Vec<String> = self
            .files
            .iter()
            .filter(|(_, f)| f.hour < hour)
            .map(|(k, _)| k.clone())
            .collect();
        for key in stale {
            if let Some(file) = self.files.remove(&key) {
                finalize(file)?;
            }
        }
        Ok(())
    }

    /// Closes every open file, renaming each to its final name; returns their paths.
    pub fn close(mut self) -> io::Result<Vec<PathBuf>> {
        let mut closed = Vec::new();
        for (_, file) in self.files.drain() {
            closed.push(finalize(file)?);
        }
        closed.sort();
        Ok(closed)
    }

    fn file_for(&mut self, pld: &str, time: DateTime<Utc>) -> io::Result<&mut OpenFile> {
        let hour = truncate_hour(time);
        let rotate = self
            .files
            .get(pld)
            .is_some_and(|f| f.hour != hour || f.writer.position() >= self.options.max_file_bytes);
        if rotate && let Some(old) = self.files.remove(pld) {
            finalize(old)?;
        }
        if !self.files.contains_key(pld) {
            let file = self.create_file(pld, time, hour)?;
            self.files.insert(pld.to_string(), file);
        }
        self.files
            .get_mut(pld)
            .ok_or_else(|| io::Error::other("open file vanished"))
    }

    fn create_file(
        &mut self,
        pld: &str,
        time: DateTime<Utc>,
        hour: DateTime<Utc>,
    ) -> io::Result<OpenFile> {
        let dir = self.archive.partition_dir(time, pld);
        fs::create_dir_all(&dir)?;
        let hour_dir = dir.parent().unwrap_or(&dir).to_path_buf();
        let taken = self
            .taken
            .entry(hour_dir.clone())
            .or_insert_with(|| names_in_hour(&hour_dir));
        loop {
            let serial = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
            let name = file_name(&self.options.prefix, time, serial, &self.options.hostname);
            if !taken.insert(name.clone()) {
                continue;
            }
            let final_path = dir.join(&name);
            let open_path = dir.join(format!("{name}{OPEN_SUFFIX}"));
            let handle = match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&open_path)
            {
                Ok(handle) => handle,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            };
            let mut writer =
                WarcWriter::new(BufWriter::with_capacity(FILE_BUFFER_BYTES, handle), 0)
                    .with_compression(Some(self.options.gzip_level));
            // The warcinfo carries the time the file's name and partition were taken from.
            let (header, block) = warcinfo_record(&name, time, &self.warcinfo_fields())?;
            writer.write_record(header, block)?;
            writer.flush()?;
            tracing::info!(file = %open_path.display(), "writing a new WARC file");
            return Ok(OpenFile {
                hour,
                relative: self.archive.relative(&final_path),
                open_path,
                final_path,
                writer,
            });
        }
    }

    fn warcinfo_fields(&self) -> Vec<(&str, String)> {
        let mut fields = vec![
            ("software", format!("ldwarc/{}", env!("CARGO_PKG_VERSION"))),
            ("format", "WARC File Format 1.1".to_string()),
            (
                "conformsTo",
                "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
                    .to_string(),
            ),
            ("hostname", self.options.hostname.clone()),
            ("robots", self.options.robots_policy.clone()),
        ];
        if let Some(operator) = &self.options.operator {
            fields.push(("operator", operator.clone()));
        }
        for (name, value) in &self.options.extra_info {
            fields.push((name.as_str(), value.clone()));
        }
        fields
    }
}

/// Takes the archive's writer lock (`state/writer.lock`), held until the file is dropped.
/// Fails at once if another process holds it.
pub fn lock_archive(archive: &Archive) -> io::Result<File> {
    fs::create_dir_all(archive.state_dir())?;
    let lock_path = archive.state_dir().join("writer.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)?;
    lock.try_lock().map_err(|_| {
        io::Error::new(
            io::ErrorKind::WouldBlock,
            format!(
                "{}: another ldwarc process is writing this archive",
                archive.root().display()
            ),
        )
    })?;
    Ok(lock)
}

impl Drop for ArchiveWriter {
    fn drop(&mut self) {
        for (_, file) in self.files.drain() {
            if let Err(error) = finalize(file) {
                tracing::error!(%error, "could not close a WARC file: {error}");
            }
        }
    }
}

fn truncate_hour(time: DateTime<Utc>) -> DateTime<Utc> {
    time.duration_trunc(TimeDelta::hours(1)).unwrap_or(time)
}

/// The WARC file names (without `.open`) in every PLD directory of an hour directory.
fn names_in_hour(hour_dir: &Path) -> HashSet<String> {
    let mut names = HashSet::new();
    let Ok(entries) = fs::read_dir(hour_dir) else {
        return names;
    };
    for pld_dir in entries.flatten() {
        let Ok(files) = fs::read_dir(pld_dir.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let name = name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name).to_string();
            names.insert(name);
        }
    }
    names
}

fn finalize(file: OpenFile) -> io::Result<PathBuf> {
    let OpenFile {
        open_path,
        final_path,
        writer,
        ..
    } = file;
    let handle = writer
        .into_inner()
        .into_inner()
        .map_err(|e| io::Error::other(format!("{}: {}", open_path.display(), e.error())))?;
    handle.sync_all()?;
    fs::rename(&open_path, &final_path)?;
    Ok(final_path)
}
