//! ZipNum sharded indexes, the layout pywb (`ZipNumIndexSource`) and the Wayback Machine serve
//! archives of billions of captures from: byte-sorted CDXJ lines cut into blocks of N lines,
//! each block an independent gzip member, the members concatenated into shard files; a
//! `.idx` summary with one line per block (`<urlkey> <timestamp>\t<part>\t<offset>\t<length>\t
//! <block number>`, block numbers from 1); and a `.loc` file mapping each part name to its
//! shard path(s) (`<part>\t<path>…`, paths relative to the `.loc` file).
//!
//! The writer streams sorted lines in and writes every file under a temporary name, renaming
//! them into place only when complete; shard names carry a digest of their content, so a new
//! index never overwrites the shards an old `.idx` still points at. The reader binary-searches
//! the `.idx` file on disk (it is never loaded whole), decompresses only the blocks a key range
//! needs, and pages through blocks exactly as pywb computes pages (`page`, `pageSize`,
//! `showNumPages`, `showPagedIndex`).

use ldwarc_warc::RecordType;
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde_json::Value;
use sha1::{Digest as _, Sha1};

use super::capture::Capture;
use super::query::{CdxQuery, MatchType, apply, case_sensitive_key, key_range};
use ldwarc_warc::time::parse_wayback_timestamp;

/// The most a block may inflate to: far above 3000 CDXJ lines (~1 MB), far below what a
/// corrupt or crafted block could make a server allocate.
const MAX_BLOCK_BYTES: u64 = 256 * 1024 * 1024;

/// Lines per block when not configured (pywb's and the Wayback Machine's usual size).
pub const DEFAULT_LINES_PER_BLOCK: usize = 3000;
/// Blocks per shard file when not configured (30 million lines at the default block size).
pub const DEFAULT_BLOCKS_PER_SHARD: usize = 10_000;
/// Blocks per page when a request gives no `pageSize` (pywb's `max_blocks`).
pub const DEFAULT_PAGE_SIZE: usize = 10;
/// Base name of the files of an index when not configured (`index.idx`, `index.loc`, …).
pub const DEFAULT_NAME: &str = "index";
/// File name suffix of shard files.
pub const SHARD_SUFFIX: &str = ".cdxj.gz";

/// How a ZipNum index is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipNumOptions {
    /// Base name: the index is `<name>.idx`, `<name>.loc` and `<name>-<digest>-<n>.cdxj.gz`.
    pub name: String,
    /// CDXJ lines per gzip block (at least 1).
    pub lines_per_block: usize,
    /// Blocks per shard file (at least 1).
    pub blocks_per_shard: usize,
}

impl Default for ZipNumOptions {
    fn default() -> Self {
        Self {
            name: DEFAULT_NAME.to_string(),
            lines_per_block: DEFAULT_LINES_PER_BLOCK,
            blocks_per_shard: DEFAULT_BLOCKS_PER_SHARD,
        }
    }
}

/// What [`ZipNumWriter::finish`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipNumSummary {
    /// The `.idx` summary.
    pub idx_path: PathBuf,
    /// The `.loc` file.
    pub loc_path: PathBuf,
    /// The shard files, in key order.
    pub shards: Vec<PathBuf>,
    /// CDXJ lines written.
    pub lines: u64,
    /// Blocks written (= lines of the `.idx`).
    pub blocks: u64,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn with_path(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// The shard being filled.
struct OpenShard {
    file: BufWriter<File>,
    temp: PathBuf,
    size: u64,
    blocks: usize,
}

/// Streams byte-sorted CDXJ lines into a ZipNum index. Lines come through
/// [`push_line`](Self::push_line) or the `io::Write` implementation (whole lines, `\n`
/// terminated); nothing is visible under a final name before [`finish`](Self::finish).
/// Dropping an unfinished writer removes its temporary files.
pub struct ZipNumWriter {
    dir: PathBuf,
    options: ZipNumOptions,
    temp_tag: String,
    block: Vec<u8>,
    block_lines: usize,
    block_key: String,
    previous_line: String,
    pending: Vec<u8>,
    shard: Option<OpenShard>,
    shard_temps: Vec<PathBuf>,
    idx_raw: BufWriter<File>,
    idx_raw_path: PathBuf,
    digest: Sha1,
    lines: u64,
    blocks: u64,
    finished: bool,
}

impl ZipNumWriter {
    /// Starts an index in `dir` (created if missing).
    pub fn create(dir: &Path, options: ZipNumOptions) -> io::Result<Self> {
        if options.lines_per_block == 0 || options.blocks_per_shard == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "ZipNum lines per block and blocks per shard must be at least 1",
            ));
        }
        if options.name.is_empty() || options.name.contains(['/', '\t', '\n']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "ZipNum index name {:?} is not a plain file name",
                    options.name
                ),
            ));
        }
        fs::create_dir_all(dir).map_err(|e| with_path(dir, e))?;
        let temp_tag = format!(".{}.tmp-{}", options.name, std::process::id());
        let idx_raw_path = dir.join(format!("{temp_tag}-idx-raw"));
        let idx_raw = File::create(&idx_raw_path).map_err(|e| with_path(&idx_raw_path, e))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            options,
            temp_tag,
            block: Vec::new(),
            block_lines: 0,
            block_key: String::new(),
            previous_line: String::new(),
            pending: Vec::new(),
            shard: None,
            shard_temps: Vec::new(),
            idx_raw: BufWriter::new(idx_raw),
            idx_raw_path,
            digest: Sha1::new(),
            lines: 0,
            blocks: 0,
            finished: false,
        })
    }

    /// Adds one line (without its newline). Empty lines are skipped; a line that sorts
    /// before the previous one is an error, since pywb binary-searches the blocks.
    pub fn push_line(&mut self, line: &str) -> io::Result<()> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            return Ok(());
        }
        if line.contains('\n') {
            return Err(invalid(format!(
                "ZipNum line {} holds a newline",
                self.lines + 1
            )));
        }
        if line < self.previous_line.as_str() {
            return Err(invalid(format!(
                "ZipNum input line {} is not byte-sorted: {line:?} after {:?}",
                self.lines + 1,
                self.previous_line
            )));
        }
        if self.block_lines == 0 {
            self.block_key = block_key(line)?;
        }
        self.block.extend_from_slice(line.as_bytes());
        self.block.push(b'\n');
        self.block_lines += 1;
        self.lines += 1;
        self.previous_line.clear();
        self.previous_line.push_str(line);
        if self.block_lines == self.options.lines_per_block {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Compresses the current block as one gzip member and appends it to the shard.
    fn flush_block(&mut self) -> io::Result<()> {
        if self.block_lines == 0 {
            return Ok(());
        }
        let mut encoder = GzEncoder::new(
            Vec::with_capacity(self.block.len() / 4),
            Compression::default(),
        );
        encoder.write_all(&self.block)?;
        let member = encoder.finish()?;
        if self
            .shard
            .as_ref()
            .is_some_and(|s| s.blocks == self.options.blocks_per_shard)
        {
            self.close_shard()?;
        }
        if self.shard.is_none() {
            self.open_shard()?;
        }
        // The open shard's temporary file is the last one listed.
        let shard_number = self.shard_temps.len() - 1;
        let Some(shard) = self.shard.as_mut() else {
            return Err(invalid("ZipNum shard was not opened".into()));
        };
        shard
            .file
            .write_all(&member)
            .map_err(|e| with_path(&shard.temp, e))?;
        self.digest.update(&member);
        self.blocks += 1;
        writeln!(
            self.idx_raw,
            "{}\t{}\t{}\t{}\t{}",
            self.block_key,
            shard_number,
            shard.size,
            member.len(),
            self.blocks
        )
        .map_err(|e| with_path(&self.idx_raw_path, e))?;
        shard.size += member.len() as u64;
        shard.blocks += 1;
        self.block.clear();
        self.block_lines = 0;
        Ok(())
    }

    fn open_shard(&mut self) -> io::Result<()> {
        let temp = self
            .dir
            .join(format!("{}-{:05}", self.temp_tag, self.shard_temps.len()));
        let file = File::create(&temp).map_err(|e| with_path(&temp, e))?;
        self.shard_temps.push(temp.clone());
        self.shard = Some(OpenShard {
            file: BufWriter::new(file),
            temp,
            size: 0,
            blocks: 0,
        });
        Ok(())
    }

    fn close_shard(&mut self) -> io::Result<()> {
        if let Some(shard) = self.shard.take() {
            let file = shard
                .file
                .into_inner()
                .map_err(|e| with_path(&shard.temp, e.into_error()))?;
            file.sync_all().map_err(|e| with_path(&shard.temp, e))?;
        }
        Ok(())
    }

    /// Writes the last block and moves the index into place: shards first, then a `.loc`
    /// that knows both the old and the new parts, then the `.idx`, then the `.loc` of the new
    /// parts alone; the old index's shards are removed last. At every moment the `.idx` on
    /// disk names parts the `.loc` on disk resolves to complete files.
    pub fn finish(mut self) -> io::Result<ZipNumSummary> {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            let line = String::from_utf8(rest)
                .map_err(|_| invalid(format!("ZipNum line {} is not UTF-8", self.lines + 1)))?;
            self.push_line(&line)?;
        }
        self.flush_block()?;
        self.close_shard()?;
        self.idx_raw
            .flush()
            .map_err(|e| with_path(&self.idx_raw_path, e))?;
        let digest = self.digest.clone().finalize();
        let generation: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
        let parts: Vec<String> = (0..self.shard_temps.len())
            .map(|n| format!("{}-{generation}-{n:05}", self.options.name))
            .collect();
        let mut shards = Vec::with_capacity(parts.len());
        for (temp, part) in self.shard_temps.iter().zip(&parts) {
            let target = self.dir.join(format!("{part}{SHARD_SUFFIX}"));
            fs::rename(temp, &target).map_err(|e| with_path(&target, e))?;
            shards.push(target);
        }
        self.shard_temps.clear();
        let idx_path = self.dir.join(format!("{}.idx", self.options.name));
        let loc_path = self.dir.join(format!("{}.loc", self.options.name));
        let idx_temp = self.dir.join(format!("{}-idx", self.temp_tag));
        self.write_final_idx(&idx_temp, &parts)?;
        let old_parts = read_loc_lines(&loc_path)?;
        let new_loc: Vec<String> = parts
            .iter()
            .map(|p| format!("{p}\t{p}{SHARD_SUFFIX}"))
            .collect();
        let mut both = new_loc.clone();
        both.extend(
            old_parts
                .iter()
                .filter(|(part, _)| !parts.contains(part))
                .map(|(_, line)| line.clone()),
        );
        self.replace_file(&loc_path, &both.join("\n"))?;
        fs::rename(&idx_temp, &idx_path).map_err(|e| with_path(&idx_path, e))?;
        self.replace_file(&loc_path, &new_loc.join("\n"))?;
        self.remove_old_shards(&old_parts, &parts);
        sync_dir(&self.dir)?;
        self.finished = true;
        let _ = fs::remove_file(&self.idx_raw_path);
        Ok(ZipNumSummary {
            idx_path,
            loc_path,
            shards,
            lines: self.lines,
            blocks: self.blocks,
        })
    }

    /// The `.idx` with part names instead of the shard numbers written while streaming.
    fn write_final_idx(&self, target: &Path, parts: &[String]) -> io::Result<()> {
        let raw = File::open(&self.idx_raw_path).map_err(|e| with_path(&self.idx_raw_path, e))?;
        let mut out = BufWriter::new(File::create(target).map_err(|e| with_path(target, e))?);
        for line in BufReader::new(raw).lines() {
            let line = line.map_err(|e| with_path(&self.idx_raw_path, e))?;
            let mut fields = line.splitn(3, '\t');
            let (Some(key), Some(number), Some(rest)) =
                (fields.next(), fields.next(), fields.next())
            else {
                return Err(invalid(format!(
                    "{}: malformed line",
                    self.idx_raw_path.display()
                )));
            };
            let part = number
                .parse::<usize>()
                .ok()
                .and_then(|n| parts.get(n))
                .ok_or_else(|| {
                    invalid(format!("{}: bad shard number", self.idx_raw_path.display()))
                })?;
            writeln!(out, "{key}\t{part}\t{rest}").map_err(|e| with_path(target, e))?;
        }
        let file = out
            .into_inner()
            .map_err(|e| with_path(target, e.into_error()))?;
        file.sync_all().map_err(|e| with_path(target, e))
    }

    /// Writes `text` (plus a final newline when not empty) to a temporary file and renames
    /// it over `target`.
    fn replace_file(&self, target: &Path, text: &str) -> io::Result<()> {
        let temp = self.dir.join(format!("{}-replace", self.temp_tag));
        let mut file = File::create(&temp).map_err(|e| with_path(&temp, e))?;
        file.write_all(text.as_bytes())
            .and_then(|()| {
                if text.is_empty() {
                    Ok(())
                } else {
                    file.write_all(b"\n")
                }
            })
            .and_then(|()| file.sync_all())
            .map_err(|e| with_path(&temp, e))?;
        fs::rename(&temp, target).map_err(|e| with_path(target, e))
    }

    /// Removes the shard files of the replaced index: only plain file names in this
    /// directory that look like this index's shards.
    fn remove_old_shards(&self, old_parts: &[(String, String)], new_parts: &[String]) {
        let prefix = format!("{}-", self.options.name);
        for (part, line) in old_parts {
            if new_parts.contains(part) {
                continue;
            }
            for path in line.split('\t').skip(1) {
                let plain = !path.contains('/') && !path.contains("://");
                if plain && path.starts_with(&prefix) && path.ends_with(SHARD_SUFFIX) {
                    let _ = fs::remove_file(self.dir.join(path));
                }
            }
        }
    }
}

impl Write for ZipNumWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(newline) = memchr::memchr(b'\n', rest) {
            self.pending.extend_from_slice(&rest[..newline]);
            rest = &rest[newline + 1..];
            let line = std::mem::take(&mut self.pending);
            let text = std::str::from_utf8(&line)
                .map_err(|_| invalid(format!("ZipNum line {} is not UTF-8", self.lines + 1)))?;
            self.push_line(text)?;
        }
        self.pending.extend_from_slice(rest);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for ZipNumWriter {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        for temp in &self.shard_temps {
            let _ = fs::remove_file(temp);
        }
        let _ = fs::remove_file(&self.idx_raw_path);
        let _ = fs::remove_file(self.dir.join(format!("{}-idx", self.temp_tag)));
        let _ = fs::remove_file(self.dir.join(format!("{}-replace", self.temp_tag)));
    }
}

/// The `.idx` key of a block: the first two space-separated fields of its first line.
fn block_key(line: &str) -> io::Result<String> {
    let mut fields = line.splitn(3, ' ');
    let key = match (fields.next(), fields.next()) {
        (Some(urlkey), Some(timestamp)) => format!("{urlkey} {timestamp}"),
        _ => line.to_string(),
    };
    if key.contains('\t') {
        return Err(invalid(format!(
            "ZipNum key {key:?} holds a tab, which the .idx format cannot carry"
        )));
    }
    Ok(key)
}

/// The lines of a `.loc` file as `(part, whole line)`; none when the file does not exist.
fn read_loc_lines(path: &Path) -> io::Result<Vec<(String, String)>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(with_path(path, e)),
    };
    Ok(text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let part = line.split('\t').next().unwrap_or(line).to_string();
            (part, line.to_string())
        })
        .collect())
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| with_path(dir, e))
}

/// Writes `lines` (byte-sorted CDXJ, without newlines) as a ZipNum index in `dir`.
pub fn write_zipnum<I, S>(dir: &Path, options: ZipNumOptions, lines: I) -> io::Result<ZipNumSummary>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut writer = ZipNumWriter::create(dir, options)?;
    for line in lines {
        writer.push_line(line.as_ref())?;
    }
    writer.finish()
}

/// One line of the `.idx` summary: a block and where it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdxEntry {
    /// `<urlkey> <timestamp>` of the block's first line.
    pub key: String,
    /// The part (shard) name, resolved through the `.loc` file.
    pub part: String,
    /// Offset of the gzip member in the shard.
    pub offset: u64,
    /// Length of the gzip member.
    pub length: u64,
    /// Block number (from 1).
    pub lineno: u64,
}

impl IdxEntry {
    /// Parses an `.idx` line; `path` and `at` (its byte offset) name it in errors.
    pub fn parse(line: &str, path: &Path, at: u64) -> io::Result<Self> {
        let bad = |what: &str| {
            invalid(format!(
                "{}: offset {at}: {what} in {line:?}",
                path.display()
            ))
        };
        let fields: Vec<&str> = line.trim_end_matches(['\n', '\r']).split('\t').collect();
        if fields.len() < 5 {
            return Err(bad("not 5 tab-separated fields"));
        }
        let number = |text: &str, what: &str| text.parse::<u64>().map_err(|_| bad(what));
        Ok(Self {
            key: fields[0].to_string(),
            part: fields[1].to_string(),
            offset: number(fields[2], "bad offset")?,
            length: number(fields[3], "bad length")?,
            lineno: number(fields[4], "bad block number")?,
        })
    }

    /// The `.idx` line (without newline), as pywb's `showPagedIndex` prints it.
    pub fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}",
            self.key, self.part, self.offset, self.length, self.lineno
        )
    }
}

/// pywb's answer to `showNumPages=true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageInfo {
    /// Number of pages (0 when nothing matches).
    pub pages: usize,
    /// Blocks per page.
    pub page_size: usize,
    /// Blocks the key range touches.
    pub blocks: usize,
}

impl PageInfo {
    /// The JSON pywb answers, e.g. `{"pages": 4, "pageSize": 10, "blocks": 38}`.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"pages\": {}, \"pageSize\": {}, \"blocks\": {}}}",
            self.pages, self.page_size, self.blocks
        )
    }
}

/// One page of a paged request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Page number, from 0.
    pub page: usize,
    /// Blocks per page (at least 1; pywb's default is [`DEFAULT_PAGE_SIZE`]).
    pub page_size: usize,
}

/// The blocks a key range touches: from the last block starting before the range (it may
/// hold the range's first lines) to the last block starting before its end.
struct BlockSpan {
    first: IdxEntry,
    first_at: u64,
    last: IdxEntry,
}

impl BlockSpan {
    fn blocks(&self) -> usize {
        self.last.lineno.saturating_sub(self.first.lineno) as usize
    }
}

/// A ZipNum index opened for reading: its `.idx` (searched on disk, never loaded whole) and
/// its `.loc` (read at each operation, so a rewritten index is seen at once).
#[derive(Debug, Clone)]
pub struct ZipNumIndex {
    idx_path: PathBuf,
    loc_path: PathBuf,
}

impl ZipNumIndex {
    /// Opens the index whose summary is `path` (a `.idx`/`.summary` file, or a directory
    /// holding `index.idx`); its `.loc` is the summary's path with the extension `.loc`.
    pub fn open(path: &Path) -> io::Result<Self> {
        let idx_path = if path.is_dir() {
            path.join(format!("{DEFAULT_NAME}.idx"))
        } else {
            path.to_path_buf()
        };
        File::open(&idx_path).map_err(|e| with_path(&idx_path, e))?;
        let loc_path = idx_path.with_extension("loc");
        File::open(&loc_path).map_err(|e| with_path(&loc_path, e))?;
        Ok(Self { idx_path, loc_path })
    }

    /// The `.idx` summary file.
    pub fn idx_path(&self) -> &Path {
        &self.idx_path
    }

    /// pywb's `showNumPages=true` for the urlkey range `[start, end)`.
    pub fn page_info(&self, start: &str, end: &str, page_size: usize) -> io::Result<PageInfo> {
        let page_size = page_size.max(1);
        let nothing = PageInfo {
            pages: 0,
            page_size,
            blocks: 0,
        };
        let Some(span) = self.span(start, end)? else {
            return Ok(nothing);
        };
        let blocks = span.blocks();
        if blocks == 0 {
            // One block: pages exist only if it really holds a line of the range.
            let mut shards = ShardFiles::new(self.locations()?);
            let mut any = false;
            shards.block_lines(&span.first, |line| {
                any |= start <= line && line < end;
                Ok(!any)
            })?;
            if !any {
                return Ok(nothing);
            }
        }
        Ok(PageInfo {
            pages: blocks / page_size + 1,
            page_size,
            blocks: blocks + 1,
        })
    }

    /// The `.idx` entries of one page (pywb's `showPagedIndex=true`). A page beyond the last
    /// is an `InvalidInput` error with pywb's message.
    pub fn page_entries(
        &self,
        start: &str,
        end: &str,
        page: PageRequest,
    ) -> io::Result<Vec<IdxEntry>> {
        let page_size = page.page_size.max(1);
        let Some(span) = self.span(start, end)? else {
            return Ok(Vec::new());
        };
        let total_pages = span.blocks() / page_size + 1;
        if page.page >= total_pages {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "Page {} invalid: First Page is 0, Last Page is {}",
                    page.page,
                    total_pages - 1
                ),
            ));
        }
        let skip = page.page * page_size;
        let take = page_size.min(span.blocks() + 1 - skip);
        let mut entries = Vec::with_capacity(take);
        let mut position = 0usize;
        self.entries_from(span.first_at, |entry| {
            if position > 0 && entry.key.as_str() >= end {
                return false;
            }
            if position >= skip {
                entries.push(entry);
            }
            position += 1;
            entries.len() < take
        })?;
        Ok(entries)
    }

    /// The lines of `[start, end)` in one page's blocks, in order.
    pub fn page_lines(
        &self,
        start: &str,
        end: &str,
        page: PageRequest,
        mut visit: impl FnMut(&str),
    ) -> io::Result<()> {
        let entries = self.page_entries(start, end, page)?;
        let mut shards = ShardFiles::new(self.locations()?);
        for entry in &entries {
            let mut past_end = false;
            shards.block_lines(entry, |line| {
                past_end = line >= end;
                if start <= line && !past_end {
                    visit(line);
                }
                Ok(!past_end)
            })?;
            if past_end {
                break;
            }
        }
        Ok(())
    }

    /// Every line of `[start, end)` (no end: to the end of the index), in order, reading only
    /// the blocks that can hold them.
    pub fn scan_lines(
        &self,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(&str),
    ) -> io::Result<()> {
        let end = end.unwrap_or("\u{10FFFF}");
        let Some(span) = self.span(start, end)? else {
            return Ok(());
        };
        let mut shards = ShardFiles::new(self.locations()?);
        let mut failure = None;
        let mut first = true;
        self.entries_from(span.first_at, |entry| {
            if !first && entry.key.as_str() >= end {
                return false;
            }
            first = false;
            let mut past_end = false;
            let read = shards.block_lines(&entry, |line| {
                past_end = line >= end;
                if start <= line && !past_end {
                    visit(line);
                }
                Ok(!past_end)
            });
            if let Err(error) = read {
                failure = Some(error);
                return false;
            }
            !past_end
        })?;
        failure.map_or(Ok(()), Err)
    }

    /// Captures of `[start, end)` parsed from their lines, as `CaptureIndex::scan_range`
    /// hands them out.
    pub fn scan_range(
        &self,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(Capture),
    ) -> io::Result<()> {
        let mut failure = None;
        self.scan_lines(start, end, |line| {
            if failure.is_some() {
                return;
            }
            match parse_cdxj_line(line) {
                Ok(capture) => visit(capture),
                Err(e) => failure = Some(invalid(format!("{}: {e}", self.idx_path.display()))),
            }
        })?;
        failure.map_or(Ok(()), Err)
    }

    /// The block span of `[start, end)` as pywb's `compute_page_range` finds it, or none when
    /// the index has no block before `end`.
    fn span(&self, start: &str, end: &str) -> io::Result<Option<BlockSpan>> {
        let mut idx = IdxFile::open(&self.idx_path)?;
        let start_at = idx.first_key_at_least(start)?;
        let first_at = match idx.line_before(start_at)? {
            Some(at) => at,
            None => start_at,
        };
        let end_at = idx.first_key_at_least(end)?;
        let Some(last_at) = idx.line_before(end_at)? else {
            return Ok(None);
        };
        let Some((_, first)) = idx.entry_at(first_at)? else {
            return Ok(None);
        };
        let Some((_, last)) = idx.entry_at(last_at)? else {
            return Ok(None);
        };
        if first.key.as_str() >= end || last.lineno < first.lineno {
            return Ok(None);
        }
        Ok(Some(BlockSpan {
            first,
            first_at,
            last,
        }))
    }

    /// Hands the entries from byte offset `at` on to `visit` until it returns false.
    fn entries_from(&self, at: u64, mut visit: impl FnMut(IdxEntry) -> bool) -> io::Result<()> {
        let mut idx = IdxFile::open(&self.idx_path)?;
        idx.reader
            .seek(SeekFrom::Start(at))
            .map_err(|e| with_path(&self.idx_path, e))?;
        let mut position = at;
        let mut line = String::new();
        loop {
            line.clear();
            let read = idx
                .reader
                .read_line(&mut line)
                .map_err(|e| with_path(&self.idx_path, e))?;
            if read == 0 {
                return Ok(());
            }
            let entry = IdxEntry::parse(&line, &self.idx_path, position)?;
            position += read as u64;
            if !visit(entry) {
                return Ok(());
            }
        }
    }

    /// Part name → shard paths, from the `.loc` file.
    fn locations(&self) -> io::Result<HashMap<String, Vec<PathBuf>>> {
        let base = self.loc_path.parent().unwrap_or(Path::new("."));
        let text = fs::read_to_string(&self.loc_path).map_err(|e| with_path(&self.loc_path, e))?;
        let mut map = HashMap::new();
        for line in text.lines().map(str::trim_end).filter(|l| !l.is_empty()) {
            let mut fields = line.split('\t');
            let part = fields.next().unwrap_or_default().to_string();
            let paths = fields.map(|p| base.join(p)).collect();
            map.insert(part, paths);
        }
        Ok(map)
    }
}

/// The `.idx` file, read line by line at byte offsets.
struct IdxFile {
    reader: BufReader<File>,
    len: u64,
    path: PathBuf,
}

impl IdxFile {
    fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path).map_err(|e| with_path(path, e))?;
        let len = file.metadata().map_err(|e| with_path(path, e))?.len();
        Ok(Self {
            reader: BufReader::with_capacity(16 * 1024, file),
            len,
            path: path.to_path_buf(),
        })
    }

    /// The first line starting at or after byte `at`, with its offset.
    fn line_at_or_after(&mut self, at: u64) -> io::Result<Option<(u64, String)>> {
        let mut start = at;
        let path = self.path.clone();
        if at > 0 {
            self.reader
                .seek(SeekFrom::Start(at - 1))
                .map_err(|e| with_path(&path, e))?;
            let mut skipped = Vec::new();
            start = at - 1
                + self
                    .reader
                    .read_until(b'\n', &mut skipped)
                    .map_err(|e| with_path(&path, e))? as u64;
        } else {
            self.reader
                .seek(SeekFrom::Start(0))
                .map_err(|e| with_path(&path, e))?;
        }
        let mut line = String::new();
        let read = self
            .reader
            .read_line(&mut line)
            .map_err(|e| invalid(format!("{}: offset {start}: {e}", path.display())))?;
        Ok((read > 0).then_some((start, line)))
    }

    fn entry_at(&mut self, at: u64) -> io::Result<Option<(u64, IdxEntry)>> {
        match self.line_at_or_after(at)? {
            Some((start, line)) => Ok(Some((start, IdxEntry::parse(&line, &self.path, start)?))),
            None => Ok(None),
        }
    }

    /// Byte offset of the first line whose key is `>= key` (the file length when none is).
    fn first_key_at_least(&mut self, key: &str) -> io::Result<u64> {
        let (mut low, mut high) = (0u64, self.len);
        while low < high {
            let middle = low + (high - low) / 2;
            let at_least = match self.line_at_or_after(middle)? {
                None => true,
                Some((_, line)) => line.split('\t').next().unwrap_or("") >= key,
            };
            if at_least {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        Ok(self
            .line_at_or_after(low)?
            .map_or(self.len, |(start, _)| start))
    }

    /// Byte offset of the line that ends just before byte `at` (a line start), if any.
    fn line_before(&mut self, at: u64) -> io::Result<Option<u64>> {
        if at == 0 {
            return Ok(None);
        }
        let mut window = 4096u64;
        loop {
            let from = at.saturating_sub(window);
            let mut bytes = vec![0u8; (at - 1 - from) as usize];
            self.reader
                .seek(SeekFrom::Start(from))
                .map_err(|e| with_path(&self.path, e))?;
            self.reader
                .read_exact(&mut bytes)
                .map_err(|e| with_path(&self.path, e))?;
            if let Some(newline) = memchr::memrchr(b'\n', &bytes) {
                return Ok(Some(from + newline as u64 + 1));
            }
            if from == 0 {
                return Ok(Some(0));
            }
            window *= 2;
        }
    }
}

/// Shard files opened as blocks need them.
struct ShardFiles {
    locations: HashMap<String, Vec<PathBuf>>,
    open: HashMap<String, (PathBuf, File)>,
}

impl ShardFiles {
    fn new(locations: HashMap<String, Vec<PathBuf>>) -> Self {
        Self {
            locations,
            open: HashMap::new(),
        }
    }

    /// Decompresses one block and hands its lines to `visit` until it returns false.
    fn block_lines(
        &mut self,
        entry: &IdxEntry,
        mut visit: impl FnMut(&str) -> io::Result<bool>,
    ) -> io::Result<()> {
        let (path, file) = self.shard(&entry.part)?;
        let at = format!(
            "{}: block {} at offset {}",
            path.display(),
            entry.lineno,
            entry.offset
        );
        file.seek(SeekFrom::Start(entry.offset))
            .map_err(|e| invalid(format!("{at}: {e}")))?;
        // The length comes from the .idx: grow with what the shard really holds.
        let mut compressed = Vec::new();
        file.take(entry.length)
            .read_to_end(&mut compressed)
            .map_err(|e| invalid(format!("{at}: {e}")))?;
        if (compressed.len() as u64) < entry.length {
            return Err(invalid(format!(
                "{at}: the file ends after {} of the block's {} bytes",
                compressed.len(),
                entry.length
            )));
        }
        let mut text = String::new();
        GzDecoder::new(compressed.as_slice())
            .take(MAX_BLOCK_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| invalid(format!("{at}: corrupt gzip block: {e}")))?;
        if text.len() as u64 > MAX_BLOCK_BYTES {
            return Err(invalid(format!(
                "{at}: the block inflates to more than {MAX_BLOCK_BYTES} bytes"
            )));
        }
        for line in text.lines() {
            if !visit(line)? {
                break;
            }
        }
        Ok(())
    }

    fn shard(&mut self, part: &str) -> io::Result<(&Path, &mut File)> {
        if !self.open.contains_key(part) {
            let paths = self
                .locations
                .get(part)
                .ok_or_else(|| invalid(format!("ZipNum part {part:?} is not in the .loc file")))?;
            let mut last_error = None;
            for path in paths {
                match File::open(path) {
                    Ok(file) => {
                        self.open.insert(part.to_string(), (path.clone(), file));
                        last_error = None;
                        break;
                    }
                    Err(e) => last_error = Some(with_path(path, e)),
                }
            }
            if let Some(error) = last_error {
                return Err(error);
            }
        }
        let (path, file) = self
            .open
            .get_mut(part)
            .ok_or_else(|| invalid(format!("ZipNum part {part:?} has no location")))?;
        Ok((path.as_path(), file))
    }
}

/// Parses a CDXJ line (`urlkey timestamp {json}`, as `cdxj-indexer` and `ldwarc cdx` write
/// it) back into a capture. Fields CDXJ does not carry are derived (`record_type` from the
/// `warc/revisit` mime, `time_micros` from the timestamp) or left empty.
pub fn parse_cdxj_line(line: &str) -> Result<Capture, String> {
    let mut parts = line.splitn(3, ' ');
    let (Some(urlkey), Some(timestamp), Some(json)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("not a CDXJ line: {line:?}"));
    };
    let object: serde_json::Map<String, Value> =
        serde_json::from_str(json).map_err(|e| format!("bad JSON in CDXJ line {line:?}: {e}"))?;
    let text = |name: &str| -> Option<String> {
        match object.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    };
    let number = |name: &str| -> Result<u64, String> {
        text(name)
            .unwrap_or_else(|| "0".into())
            .parse()
            .map_err(|_| format!("bad {name} in CDXJ line {line:?}"))
    };
    let time = parse_wayback_timestamp(timestamp)
        .ok_or_else(|| format!("bad timestamp in CDXJ line {line:?}"))?;
    let mime = text("mime");
    let record_type = match mime.as_deref() {
        Some("warc/revisit") => RecordType::Revisit,
        _ => RecordType::Response,
    };
    Ok(Capture {
        urlkey: urlkey.to_string(),
        timestamp: timestamp.to_string(),
        time_micros: time.timestamp_micros(),
        url: text("url").ok_or_else(|| format!("no url in CDXJ line {line:?}"))?,
        mime,
        status: text("status").and_then(|s| s.parse().ok()),
        digest: text("digest"),
        length: number("length")?,
        offset: number("offset")?,
        filename: text("filename").unwrap_or_default(),
        record_type,
        redirect: None,
        record_id: None,
        refers_to_url: None,
        refers_to_timestamp: None,
        original: None,
    })
}

/// Runs a CDX query against a ZipNum index, with `query::run_query`'s semantics (the
/// case-exact URL check of exact matches, then filters, time range, collapsing, order,
/// limit). With `page`, only that page's blocks are read, as pywb pages; without, all.
pub fn run_query(
    index: &ZipNumIndex,
    query: &CdxQuery,
    page: Option<PageRequest>,
) -> io::Result<Vec<Capture>> {
    let (match_type, url) = query.effective();
    let (start, end) = key_range(&url, match_type);
    let mut lines = Vec::new();
    match page {
        Some(page) => index.page_lines(&start, &end, page, |line| lines.push(line.to_string()))?,
        None => index.scan_lines(&start, Some(&end), |line| lines.push(line.to_string()))?,
    }
    let mut captures = lines
        .iter()
        .map(|line| parse_cdxj_line(line))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(format!("{}: {e}", index.idx_path.display())))?;
    if match_type == MatchType::Exact {
        // SURT folds case; Linked Data URIs are case-sensitive (as `query::run_query`).
        let identity = case_sensitive_key(&url);
        captures.retain(|c| case_sensitive_key(&c.url) == identity);
    }
    Ok(apply(captures, query))
}

/// Counts lines per shard part of an index (for reports and tests).
pub fn lines_per_part(index: &ZipNumIndex) -> io::Result<BTreeMap<String, u64>> {
    let mut counts = BTreeMap::new();
    let mut shards = ShardFiles::new(index.locations()?);
    let mut failure = None;
    index.entries_from(0, |entry| {
        let mut n = 0u64;
        if let Err(e) = shards.block_lines(&entry, |_| {
            n += 1;
            Ok(true)
        }) {
            failure = Some(e);
            return false;
        }
        *counts.entry(entry.part).or_insert(0) += n;
        true
    })?;
    failure.map_or(Ok(counts), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::cdxj::cdxj_line;

    /// A byte-sorted CDXJ line for `host`/`path` at second `n` of 2020.
    fn line(host: &str, path: &str, n: u32) -> String {
        format!(
            "org,{host})/{path} 2020010100{:02}{:02} {{\"url\": \"http://{host}.org/{path}\", \"mime\": \"text/turtle\", \"status\": \"200\", \"length\": \"{}\", \"offset\": \"{}\", \"filename\": \"a.warc.gz\"}}",
            n / 60,
            n % 60,
            100 + n,
            1000 * n
        )
    }

    /// Several hosts, some paths with many captures (so keys span blocks), sorted.
    fn sample_lines() -> Vec<String> {
        let mut lines = Vec::new();
        for host in ["alpha", "beta", "gamma"] {
            for (path, captures) in [("a", 1), ("b", 23), ("c/d", 2), ("c/e", 9), ("z", 1)] {
                for n in 0..captures {
                    lines.push(line(host, path, n));
                }
            }
        }
        lines.sort();
        lines
    }

    fn options(lines_per_block: usize, blocks_per_shard: usize) -> ZipNumOptions {
        ZipNumOptions {
            name: "test".into(),
            lines_per_block,
            blocks_per_shard,
        }
    }

    fn all_lines(index: &ZipNumIndex, start: &str, end: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        index
            .scan_lines(start, end, |l| out.push(l.to_string()))
            .unwrap();
        out
    }

    #[test]
    fn round_trip_with_many_blocks_and_shards() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let summary = write_zipnum(dir.path(), options(7, 3), &lines).unwrap();
        assert_eq!(summary.lines, lines.len() as u64);
        assert_eq!(summary.blocks, lines.len().div_ceil(7) as u64);
        assert_eq!(summary.shards.len(), lines.len().div_ceil(7 * 3));
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        assert_eq!(all_lines(&index, "", None), lines);

        // The .idx: one line per block, key = first two fields of its first line, offsets
        // restarting at 0 in each shard, block numbers from 1.
        let idx = fs::read_to_string(&summary.idx_path).unwrap();
        let entries: Vec<IdxEntry> = idx
            .lines()
            .map(|l| IdxEntry::parse(l, &summary.idx_path, 0).unwrap())
            .collect();
        assert_eq!(entries.len() as u64, summary.blocks);
        for (n, entry) in entries.iter().enumerate() {
            let first = &lines[n * 7];
            let mut fields = first.splitn(3, ' ');
            let key = format!("{} {}", fields.next().unwrap(), fields.next().unwrap());
            assert_eq!(entry.key, key);
            assert_eq!(entry.lineno, n as u64 + 1);
            assert_eq!(entry.part, format!("{}", part_of(&summary, n / 3)));
            if n % 3 == 0 {
                assert_eq!(entry.offset, 0);
            } else {
                let previous = &entries[n - 1];
                assert_eq!(entry.offset, previous.offset + previous.length);
            }
            assert_eq!(entry.to_line(), idx.lines().nth(n).unwrap());
        }
        // Each block is one gzip member holding exactly its lines.
        let shard = fs::read(&summary.shards[0]).unwrap();
        let block =
            &shard[entries[1].offset as usize..(entries[1].offset + entries[1].length) as usize];
        let mut text = String::new();
        GzDecoder::new(block).read_to_string(&mut text).unwrap();
        assert_eq!(
            text,
            lines[7..14]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        );
        // The .loc maps every part to its shard file, relative to the .loc.
        let loc = fs::read_to_string(&summary.loc_path).unwrap();
        assert_eq!(loc.lines().count(), summary.shards.len());
        for (n, shard) in summary.shards.iter().enumerate() {
            let file = shard.file_name().unwrap().to_str().unwrap();
            assert!(loc.contains(&format!("{}\t{file}\n", part_of(&summary, n))));
        }
        assert_eq!(
            lines_per_part(&index).unwrap().values().sum::<u64>(),
            lines.len() as u64
        );
        // No temporary files remain.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    }

    fn part_of(summary: &ZipNumSummary, shard: usize) -> String {
        let name = summary.shards[shard].file_name().unwrap().to_str().unwrap();
        name.strip_suffix(SHARD_SUFFIX).unwrap().to_string()
    }

    #[test]
    fn block_boundaries_leave_no_empty_block() {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = (0..14).map(|n| line("alpha", "x", n)).collect();
        let summary = write_zipnum(dir.path(), options(7, 100), &lines).unwrap();
        assert_eq!(summary.blocks, 2);
        let index = ZipNumIndex::open(dir.path().join("test.idx").as_path()).unwrap();
        assert_eq!(all_lines(&index, "", None), lines);
        let summary = write_zipnum(dir.path(), options(1, 100), &lines[..1]).unwrap();
        assert_eq!(summary.blocks, 1);
        assert_eq!(all_lines(&index, "", None), lines[..1]);
    }

    /// Every key range gives exactly the lines a filter over all lines gives, whatever the
    /// block size: keys spanning blocks, ranges starting mid-block, before and after all keys.
    #[test]
    fn key_ranges_equal_a_linear_filter() {
        let lines = sample_lines();
        let keys: Vec<&str> = vec![
            "",
            "a",
            "org,alpha)/",
            "org,alpha)/b",
            "org,alpha)/b!",
            "org,alpha)/c/",
            "org,alpha)/c0",
            "org,beta)/b 20200101000010",
            "org,beta)/z",
            "org,gamma)/c/e",
            "org,gamma)/z!",
            "org,zeta)/",
            "p",
        ];
        for per_block in [1, 2, 5, 7, 23, 500] {
            let dir = tempfile::tempdir().unwrap();
            let summary = write_zipnum(dir.path(), options(per_block, 4), &lines).unwrap();
            let index = ZipNumIndex::open(&summary.idx_path).unwrap();
            for start in &keys {
                for end in &keys {
                    let expected: Vec<String> = lines
                        .iter()
                        .filter(|l| l.as_str() >= *start && l.as_str() < *end)
                        .cloned()
                        .collect();
                    assert_eq!(
                        all_lines(&index, start, Some(end)),
                        expected,
                        "[{start}, {end}) with {per_block} lines per block"
                    );
                }
            }
        }
    }

    /// Walking every page gives each line of the range exactly once, and the page count is
    /// pywb's: (last block - first block) / pageSize + 1.
    #[test]
    fn pages_cover_the_range_once() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let summary = write_zipnum(dir.path(), options(3, 4), &lines).unwrap();
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        for (start, end) in [
            ("org,alpha)/", "org,alpha*"),
            ("org,beta)/b", "org,beta)/b!"),
            ("", "z"),
        ] {
            let expected = all_lines(&index, start, Some(end));
            for page_size in [1, 2, 3, 10, 100] {
                let info = index.page_info(start, end, page_size).unwrap();
                let mut walked = Vec::new();
                let mut blocks = 0;
                for page in 0..info.pages {
                    let request = PageRequest { page, page_size };
                    let entries = index.page_entries(start, end, request).unwrap();
                    assert!(!entries.is_empty() && entries.len() <= page_size);
                    blocks += entries.len();
                    index
                        .page_lines(start, end, request, |l| walked.push(l.to_string()))
                        .unwrap();
                }
                assert_eq!(walked, expected, "[{start}, {end}) pageSize {page_size}");
                assert_eq!(blocks, info.blocks);
                assert_eq!(info.pages, (info.blocks - 1) / page_size + 1);
                let beyond = PageRequest {
                    page: info.pages,
                    page_size,
                };
                let error = index.page_entries(start, end, beyond).unwrap_err();
                assert_eq!(
                    error.to_string(),
                    format!(
                        "Page {} invalid: First Page is 0, Last Page is {}",
                        info.pages,
                        info.pages - 1
                    )
                );
            }
        }
        // A range inside one block that holds none of it has no pages.
        let info = index
            .page_info("org,alpha)/b!", "org,alpha)/c", 10)
            .unwrap();
        assert_eq!(
            info,
            PageInfo {
                pages: 0,
                page_size: 10,
                blocks: 0
            }
        );
        assert_eq!(
            info.to_json(),
            r#"{"pages": 0, "pageSize": 10, "blocks": 0}"#
        );
        // Before every key: nothing.
        assert_eq!(index.page_info("a", "b", 10).unwrap().pages, 0);
        assert!(
            index
                .page_entries(
                    "a",
                    "b",
                    PageRequest {
                        page: 0,
                        page_size: 10
                    }
                )
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn empty_input_makes_an_empty_index() {
        let dir = tempfile::tempdir().unwrap();
        let summary = write_zipnum(dir.path(), options(5, 5), Vec::<String>::new()).unwrap();
        assert_eq!(
            (summary.lines, summary.blocks, summary.shards.len()),
            (0, 0, 0)
        );
        assert_eq!(fs::read_to_string(&summary.idx_path).unwrap(), "");
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        assert!(all_lines(&index, "", None).is_empty());
        assert_eq!(index.page_info("", "z", 10).unwrap().pages, 0);
    }

    #[test]
    fn unsorted_input_is_refused_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [line("beta", "a", 0), line("alpha", "a", 0)];
        let error = write_zipnum(dir.path(), options(5, 5), &lines).unwrap_err();
        assert!(
            error.to_string().contains("line 2 is not byte-sorted"),
            "{error}"
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn corrupted_or_truncated_blocks_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let summary = write_zipnum(dir.path(), options(10, 100), &lines).unwrap();
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        let entry = IdxEntry::parse(
            fs::read_to_string(&summary.idx_path)
                .unwrap()
                .lines()
                .nth(2)
                .unwrap(),
            &summary.idx_path,
            0,
        )
        .unwrap();
        let shard = &summary.shards[0];
        let mut bytes = fs::read(shard).unwrap();
        let middle = (entry.offset + entry.length / 2) as usize;
        bytes[middle] ^= 0xFF;
        bytes[middle + 1] ^= 0x55;
        fs::write(shard, &bytes).unwrap();
        let error = index.scan_lines("", None, |_| {}).unwrap_err();
        let message = error.to_string();
        assert!(message.contains(&shard.display().to_string()), "{message}");
        assert!(
            message.contains(&format!("block 3 at offset {}", entry.offset)),
            "{message}"
        );
        // Lines before the damaged block are still readable.
        let first_key = lines[0].split(' ').next().unwrap();
        assert_eq!(
            all_lines(&index, first_key, Some(&format!("{first_key}!"))).len(),
            1
        );

        bytes.truncate(entry.offset as usize + 5);
        fs::write(shard, &bytes).unwrap();
        let message = index.scan_lines("", None, |_| {}).unwrap_err().to_string();
        assert!(
            message.contains("the file ends after 5 of the block's"),
            "{message}"
        );

        fs::write(&summary.idx_path, "org,a)/ 2020\tpart\tx\t1\t1\n").unwrap();
        let message = index.scan_lines("", None, |_| {}).unwrap_err().to_string();
        assert!(message.contains("offset 0: bad offset"), "{message}");
    }

    #[test]
    fn rewriting_replaces_the_old_shards() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let old = write_zipnum(dir.path(), options(4, 2), &lines).unwrap();
        let new = write_zipnum(dir.path(), options(4, 2), &lines[..10]).unwrap();
        assert!(old.shards.iter().all(|s| !s.exists()));
        assert!(new.shards.iter().all(|s| s.exists()));
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2 + new.shards.len()
        );
        let index = ZipNumIndex::open(dir.path().join("test.idx").as_path()).unwrap();
        assert_eq!(all_lines(&index, "", None), lines[..10]);
        // The same content again: the same shard names, kept.
        let again = write_zipnum(dir.path(), options(4, 2), &lines[..10]).unwrap();
        assert_eq!(again.shards, new.shards);
        assert!(again.shards.iter().all(|s| s.exists()));
    }

    #[test]
    fn write_accepts_lines_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut writer = ZipNumWriter::create(dir.path(), options(6, 6)).unwrap();
        for piece in text.as_bytes().chunks(37) {
            writer.write_all(piece).unwrap();
        }
        let summary = writer.finish().unwrap();
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        assert_eq!(all_lines(&index, "", None), lines);
    }

    #[test]
    fn dropping_an_unfinished_writer_removes_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = ZipNumWriter::create(dir.path(), options(2, 2)).unwrap();
        for l in sample_lines() {
            writer.push_line(&l).unwrap();
        }
        drop(writer);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn cdxj_lines_parse_back_into_captures() {
        let capture = parse_cdxj_line(&line("alpha", "b", 61)).unwrap();
        assert_eq!(capture.urlkey, "org,alpha)/b");
        assert_eq!(capture.timestamp, "20200101000101");
        assert_eq!(capture.status, Some(200));
        assert_eq!((capture.length, capture.offset), (161, 61000));
        assert_eq!(capture.time_micros, 1_577_836_861_000_000);
        assert_eq!(cdxj_line(&capture), line("alpha", "b", 61));
        let revisit = parse_cdxj_line(
            r#"org,a)/ 20200101000000 {"url": "http://a.org/", "mime": "warc/revisit", "length": "5", "offset": "0", "filename": "f"}"#,
        )
        .unwrap();
        assert_eq!(revisit.record_type, RecordType::Revisit);
        assert!(parse_cdxj_line("org,a)/ 2020 {").is_err());
        assert!(parse_cdxj_line("org,a)/").is_err());
    }

    #[test]
    fn queries_run_like_the_capture_index() {
        let dir = tempfile::tempdir().unwrap();
        let lines = sample_lines();
        let summary = write_zipnum(dir.path(), options(3, 5), &lines).unwrap();
        let index = ZipNumIndex::open(&summary.idx_path).unwrap();
        let exact = run_query(&index, &CdxQuery::new("http://beta.org/b"), None).unwrap();
        assert_eq!(exact.len(), 23);
        let prefix = run_query(&index, &CdxQuery::new("http://gamma.org/c/*"), None).unwrap();
        assert_eq!(prefix.len(), 11);
        let limited = CdxQuery {
            limit: Some(2),
            ..CdxQuery::new("http://beta.org/b")
        };
        let page = PageRequest {
            page: 0,
            page_size: 1,
        };
        let captures = run_query(&index, &limited, Some(page)).unwrap();
        assert_eq!(captures.len(), 2);
        assert_eq!(captures[0].timestamp, "20200101000000");
    }
}
