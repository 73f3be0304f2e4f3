//! Several archive roots answered as one archive: one capture index per root, lookups and
//! key-range scans merged by (urlkey, timestamp, then root order), the same capture held by
//! two roots counted once, and for every WARC file name the root whose `warc/` holds it.
//!
//! Rules (documented for users in docs/guide.md, "Several roots"):
//!
//! - **Order.** Captures come out in urlkey order; within one urlkey by timestamp (then the
//!   full-precision time), captures with equal times in the order of the roots given.
//! - **Duplicates.** Two captures of different roots are the same capture when they have the
//!   same `WARC-Record-ID`, or (records without one, such as ARC records) the same record
//!   type, URL, full-precision time and payload digest. The first root given keeps it; the
//!   later roots' copies are dropped. Duplicates inside one root are left as they are, so one
//!   root answers exactly as it always did.
//! - **File names.** Capture file names are relative to their root's `warc/`. Every file an
//!   index covers is listed in its checkpoint, so the file → root map is built from the
//!   checkpoints. A name in two roots must be the same file (same size and bytes, e.g. a
//!   copied file), and is then read from the first root; different content is an error naming
//!   both roots, because a capture naming that file would be ambiguous.

use ldwarc_warc::RecordType;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;
use std::sync::mpsc::{Receiver, sync_channel};

use super::capture::Capture;
use super::store::CaptureIndex;

/// Anything captures can be scanned from by urlkey range and looked up by urlkey: one
/// index, or several merged.
pub trait CaptureSource {
    /// The captures stored under exactly `urlkey`.
    fn lookup_captures(&self, urlkey: &str) -> io::Result<Vec<Capture>>;

    /// Every capture whose urlkey lies in `[start, end)` (`end` = `None`: no upper bound),
    /// handed to `visit` in urlkey order.
    fn scan_captures(
        &self,
        start: &str,
        end: Option<&str>,
        visit: &mut dyn FnMut(Capture),
    ) -> io::Result<()>;

    /// The one index behind this source, when there is exactly one: bulk readers (the
    /// export) then read its doc store in document order instead of capture by capture.
    fn single_index(&self) -> Option<&CaptureIndex> {
        None
    }
}

impl CaptureSource for CaptureIndex {
    fn lookup_captures(&self, urlkey: &str) -> io::Result<Vec<Capture>> {
        self.lookup(urlkey)
    }

    fn scan_captures(
        &self,
        start: &str,
        end: Option<&str>,
        visit: &mut dyn FnMut(Capture),
    ) -> io::Result<()> {
        self.scan_range(start, end, visit)
    }

    fn single_index(&self) -> Option<&CaptureIndex> {
        Some(self)
    }
}

impl CaptureSource for MergedIndex {
    fn lookup_captures(&self, urlkey: &str) -> io::Result<Vec<Capture>> {
        self.lookup(urlkey)
    }

    fn scan_captures(
        &self,
        start: &str,
        end: Option<&str>,
        visit: &mut dyn FnMut(Capture),
    ) -> io::Result<()> {
        self.scan_range(start, end, visit)
    }

    fn single_index(&self) -> Option<&CaptureIndex> {
        (self.parts.len() == 1).then(|| &self.parts[0].index)
    }
}

/// One archive root and its capture index.
struct RootIndex {
    root: PathBuf,
    index: CaptureIndex,
}

/// Which root holds each WARC file name (only built for two roots or more).
#[derive(Default)]
struct FileRoots {
    /// File name (relative to `warc/`) → position of its root.
    by_name: HashMap<String, usize>,
    /// Names found in two roots and proven identical, with the size they had then (so a
    /// reload compares their bytes again only when a size changed).
    identical: HashMap<String, u64>,
}

/// The capture indexes of several archive roots, answering as one.
pub struct MergedIndex {
    parts: Vec<RootIndex>,
    files: RwLock<FileRoots>,
}

/// Captures of one urlkey from one root, as the merging scan passes them between threads.
type KeyGroup = Vec<Capture>;

/// Key groups buffered per root during a merged scan.
const GROUPS_IN_FLIGHT: usize = 64;

impl MergedIndex {
    /// Opens `<root>/index` of every root for reading only (creating nothing, taking no
    /// writer lock: see [`CaptureIndex::open_read_only`]), in the order given; a root given
    /// twice counts once. Fails when no root is given, when a root is not an existing
    /// directory, or when one WARC file name is in two roots with different content.
    pub fn open(roots: &[PathBuf]) -> io::Result<MergedIndex> {
        let mut parts = Vec::with_capacity(roots.len());
        for root in roots {
            crate::archive::require_root(root)?;
        }
        for root in distinct_roots(roots) {
            let index = CaptureIndex::open_read_only(&root.join("index"))?;
            parts.push((root, index));
        }
        MergedIndex::from_indexes(parts)
    }

    /// Merges indexes already open, each with the root its file names are relative to.
    pub fn from_indexes(parts: Vec<(PathBuf, CaptureIndex)>) -> io::Result<MergedIndex> {
        if parts.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no archive root given",
            ));
        }
        let merged = MergedIndex {
            parts: parts
                .into_iter()
                .map(|(root, index)| RootIndex { root, index })
                .collect(),
            files: RwLock::new(FileRoots::default()),
        };
        merged.map_files()?;
        Ok(merged)
    }

    /// The roots, in the order given.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        self.parts.iter().map(|part| part.root.as_path())
    }

    /// The number of roots.
    pub fn root_count(&self) -> usize {
        self.parts.len()
    }

    /// The first root's index (the whole archive when there is one root).
    pub fn first(&self) -> &CaptureIndex {
        &self.parts[0].index
    }

    /// Every root's index, in root order.
    pub fn indexes(&self) -> impl Iterator<Item = &CaptureIndex> {
        self.parts.iter().map(|part| &part.index)
    }

    /// The root whose `warc/` holds `filename` (a capture's file name). Names not in any
    /// checkpoint (indexed after the last [`MergedIndex::reload`]) are looked for on disk;
    /// a name found nowhere gets the first root, whose read then fails naming the path.
    pub fn root_of(&self, filename: &str) -> &Path {
        if self.parts.len() == 1 {
            return &self.parts[0].root;
        }
        let known = self
            .files
            .read()
            .ok()
            .and_then(|files| files.by_name.get(filename).copied());
        let position = known
            .or_else(|| self.position_on_disk(filename))
            .unwrap_or(0);
        &self.parts[position].root
    }

    /// The first root whose `warc/` has `filename` (or its `.open` twin) on disk.
    fn position_on_disk(&self, filename: &str) -> Option<usize> {
        let relative = Path::new(filename);
        if !relative
            .components()
            .all(|part| matches!(part, Component::Normal(_)))
        {
            return None;
        }
        self.parts.iter().position(|part| {
            let path = part.root.join("warc").join(relative);
            let open = PathBuf::from(format!("{}{}", path.display(), crate::archive::OPEN_SUFFIX));
            path.exists() || open.exists()
        })
    }

    /// Every capture whose urlkey lies in `[start, end)` (`end` = `None`: no upper bound),
    /// handed to `visit` in urlkey order; within a key by time, then root order, duplicates
    /// of earlier roots dropped. Streams: each root is scanned on its own thread and at most
    /// a few dozen key groups per root are held at once.
    pub fn scan_range(
        &self,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(Capture),
    ) -> io::Result<()> {
        if self.parts.len() == 1 {
            return self.parts[0].index.scan_range(start, end, visit);
        }
        self.scan_range_until(start, end, |capture| {
            visit(capture);
            ControlFlow::Continue(())
        })
    }

    /// [`scan_range`](Self::scan_range) that ends as soon as `visit` breaks (the scanners of
    /// other roots stop at their next key group).
    pub fn scan_range_until(
        &self,
        start: &str,
        end: Option<&str>,
        mut visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> io::Result<()> {
        if self.parts.len() == 1 {
            return self.parts[0].index.scan_range_until(start, end, visit);
        }
        std::thread::scope(|scope| {
            let mut receivers = Vec::with_capacity(self.parts.len());
            let mut scanners = Vec::with_capacity(self.parts.len());
            for part in &self.parts {
                let (sender, receiver) = sync_channel::<KeyGroup>(GROUPS_IN_FLIGHT);
                receivers.push(receiver);
                scanners.push(scope.spawn(move || scan_in_groups(&part.index, start, end, sender)));
            }
            merge_groups(&receivers, &mut visit);
            // Receivers are dropped here, so a scanner still sending stops at its next send.
            drop(receivers);
            let mut outcome = Ok(());
            for scanner in scanners {
                let result = scanner
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                if outcome.is_ok() {
                    outcome = result;
                }
            }
            outcome
        })
    }

    /// The captures stored under exactly `urlkey` in any root, by time, then root order,
    /// duplicates of earlier roots dropped.
    pub fn lookup(&self, urlkey: &str) -> io::Result<Vec<Capture>> {
        if self.parts.len() == 1 {
            return self.parts[0].index.lookup(urlkey);
        }
        let mut per_root = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            per_root.push(part.index.lookup(urlkey)?);
        }
        Ok(merge_key(per_root))
    }

    /// Number of live captures over all roots (a capture held by two roots counts twice).
    pub fn len(&self) -> u64 {
        self.parts.iter().map(|part| part.index.len()).sum()
    }

    /// Whether no root holds a capture.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reloads every root's index to see its latest commit, and maps the files it covers.
    pub fn reload(&self) -> io::Result<()> {
        for part in &self.parts {
            part.index.reload()?;
        }
        self.map_files()
    }

    /// Builds the file → root map from the checkpoints, checking that a name in two roots
    /// is the same file.
    fn map_files(&self) -> io::Result<()> {
        if self.parts.len() == 1 {
            return Ok(());
        }
        let identical_before = self
            .files
            .read()
            .map(|files| files.identical.clone())
            .unwrap_or_default();
        let mut files = FileRoots::default();
        let mut sizes: HashMap<String, u64> = HashMap::new();
        for (position, part) in self.parts.iter().enumerate() {
            for (name, mark) in part.index.checkpoint()?.files {
                let Some(&first) = files.by_name.get(&name) else {
                    files.by_name.insert(name.clone(), position);
                    sizes.insert(name, mark.size);
                    continue;
                };
                let size = sizes.get(&name).copied().unwrap_or(0);
                let known = identical_before.get(&name) == Some(&size) && mark.size == size;
                if !known && !self.same_file(&name, first, position, size == mark.size)? {
                    return Err(io::Error::other(format!(
                        "warc/{name}: in both {} and {} with different content (WARC file \
                         names must be unique across roots: give every node its own name)",
                        self.parts[first].root.display(),
                        part.root.display()
                    )));
                }
                files.identical.insert(name, size);
            }
        }
        if let Ok(mut shared) = self.files.write() {
            *shared = files;
        }
        Ok(())
    }

    /// Whether `name` has the same bytes under the roots at `first` and `other` (`false`
    /// without reading when their indexed sizes differ).
    fn same_file(
        &self,
        name: &str,
        first: usize,
        other: usize,
        same_size: bool,
    ) -> io::Result<bool> {
        if !same_size {
            return Ok(false);
        }
        let path = |position: usize| self.parts[position].root.join("warc").join(name);
        same_bytes(&path(first), &path(other))
    }
}

/// The roots in order, a root given twice (by any spelling of its path) kept once.
pub fn distinct_roots(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let mut distinct = Vec::with_capacity(roots.len());
    for root in roots {
        let identity = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        if seen.insert(identity) {
            distinct.push(root.clone());
        }
    }
    distinct
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    let open = |path: &Path| {
        File::open(path).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))
    };
    let (mut left, mut right) = (open(a)?, open(b)?);
    let mut left_buffer = vec![0u8; 64 * 1024];
    let mut right_buffer = vec![0u8; 64 * 1024];
    loop {
        let read = read_full(&mut left, &mut left_buffer)
            .map_err(|e| io::Error::other(format!("{}: {e}", a.display())))?;
        let other = read_full(&mut right, &mut right_buffer)
            .map_err(|e| io::Error::other(format!("{}: {e}", b.display())))?;
        if read != other || left_buffer[..read] != right_buffer[..other] {
            return Ok(false);
        }
        if read == 0 {
            return Ok(true);
        }
    }
}

/// Fills `buffer` as far as the reader goes; the count is short only at the end.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Scans one index, sending its captures one urlkey group at a time (a scan hands every
/// capture of one key before the next key). Stops sending once the receiver is gone.
fn scan_in_groups(
    index: &CaptureIndex,
    start: &str,
    end: Option<&str>,
    sender: std::sync::mpsc::SyncSender<KeyGroup>,
) -> io::Result<()> {
    let mut group: KeyGroup = Vec::new();
    let mut receiver_gone = false;
    index.scan_range_until(start, end, |capture| {
        if group
            .last()
            .is_some_and(|last| last.urlkey != capture.urlkey)
        {
            receiver_gone = sender.send(std::mem::take(&mut group)).is_err();
            if receiver_gone {
                return ControlFlow::Break(());
            }
        }
        group.push(capture);
        ControlFlow::Continue(())
    })?;
    if !group.is_empty() && !receiver_gone {
        // A receiver gone by now has taken everything it wanted.
        let _ = sender.send(group);
    }
    Ok(())
}

/// Merges the roots' key groups in urlkey order, handing each merged capture to `visit`.
fn merge_groups(
    receivers: &[Receiver<KeyGroup>],
    visit: &mut impl FnMut(Capture) -> ControlFlow<()>,
) {
    let mut heads: Vec<Option<KeyGroup>> = receivers.iter().map(|r| r.recv().ok()).collect();
    loop {
        let Some(smallest) = heads
            .iter()
            .flatten()
            .filter_map(|group| group.first().map(|c| c.urlkey.clone()))
            .min()
        else {
            return;
        };
        let mut per_root = Vec::with_capacity(heads.len());
        for (head, receiver) in heads.iter_mut().zip(receivers) {
            let this_key = head
                .as_ref()
                .and_then(|group| group.first())
                .is_some_and(|c| c.urlkey == smallest);
            if this_key {
                per_root.push(head.take().unwrap_or_default());
                *head = receiver.recv().ok();
            } else {
                per_root.push(Vec::new());
            }
        }
        for capture in merge_key(per_root) {
            if visit(capture).is_break() {
                return;
            }
        }
    }
}

/// What makes two captures of different roots the same capture.
#[derive(Hash, PartialEq, Eq)]
enum Identity {
    /// The `WARC-Record-ID`.
    RecordId(String),
    /// Record type, URL, full-precision time and payload digest (records without an id).
    Fields(RecordType, String, i64, Option<String>),
}

fn identity_of(capture: &Capture) -> Identity {
    match &capture.record_id {
        Some(id) => Identity::RecordId(id.clone()),
        None => Identity::Fields(
            capture.record_type.clone(),
            capture.url.clone(),
            capture.time_micros,
            capture.digest.clone(),
        ),
    }
}

/// The captures of one urlkey from every root (in root order) as one list: duplicates of an
/// earlier root's captures dropped, ordered by time with root order kept on ties.
fn merge_key(per_root: Vec<Vec<Capture>>) -> Vec<Capture> {
    let mut held_before: HashSet<Identity> = HashSet::new();
    let mut merged = Vec::new();
    for captures in per_root {
        let identities: Vec<Identity> = captures.iter().map(identity_of).collect();
        for (capture, identity) in captures.into_iter().zip(&identities) {
            if !held_before.contains(identity) {
                merged.push(capture);
            }
        }
        held_before.extend(identities);
    }
    // A stable sort: equal times keep root order.
    merged.sort_by(|a, b| (&a.timestamp, a.time_micros).cmp(&(&b.timestamp, b.time_micros)));
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store::{Checkpoint, FileMark};

    fn capture(url: &str, timestamp: &str, id: &str, filename: &str) -> Capture {
        let seconds: i64 = timestamp[8..].parse().unwrap();
        Capture {
            urlkey: ldwarc_surt::surt(url),
            timestamp: timestamp.into(),
            time_micros: seconds * 1_000_000,
            url: url.into(),
            mime: Some("text/turtle".into()),
            status: Some(200),
            digest: Some(format!("sha1:{id}")),
            length: 10,
            offset: 0,
            filename: filename.into(),
            record_type: RecordType::Response,
            redirect: None,
            record_id: Some(format!("<urn:uuid:{id}>")),
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    /// A root whose index holds `captures` and whose `warc/` holds each named file with
    /// the given content.
    fn root_with(dir: &Path, name: &str, captures: &[Capture], files: &[(&str, &str)]) -> PathBuf {
        let root = dir.join(name);
        let index = CaptureIndex::open(&root.join("index")).unwrap();
        let mut batch = index.batch().unwrap();
        for capture in captures {
            batch.add(capture).unwrap();
        }
        let mut checkpoint = Checkpoint {
            version: 1,
            ..Checkpoint::default()
        };
        for (file, content) in files {
            let path = root.join("warc").join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content).unwrap();
            let size = content.len() as u64;
            checkpoint.files.insert(
                file.to_string(),
                FileMark {
                    end: size,
                    size,
                    ..FileMark::default()
                },
            );
        }
        batch.commit(&checkpoint).unwrap();
        batch.finish().unwrap();
        root
    }

    fn keys(captures: &[Capture]) -> Vec<(String, String, String)> {
        captures
            .iter()
            .map(|c| (c.url.clone(), c.timestamp.clone(), c.filename.clone()))
            .collect()
    }

    #[test]
    fn scans_merge_by_key_then_time_then_root_and_drop_later_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let a = root_with(
            dir.path(),
            "a",
            &[
                capture("http://b.example/x", "20240101000005", "1", "a.warc.gz"),
                capture("http://a.example/x", "20240101000003", "2", "a.warc.gz"),
                capture("http://c.example/x", "20240101000001", "3", "a.warc.gz"),
            ],
            &[("a.warc.gz", "A")],
        );
        let b = root_with(
            dir.path(),
            "b",
            &[
                capture("http://b.example/x", "20240101000002", "4", "b.warc.gz"),
                // The same record as root a's first: dropped.
                capture("http://b.example/x", "20240101000005", "1", "b.warc.gz"),
                // Equal time, another record: after root a's.
                capture("http://a.example/x", "20240101000003", "5", "b.warc.gz"),
                capture("http://d.example/x", "20240101000009", "6", "b.warc.gz"),
            ],
            &[("b.warc.gz", "B")],
        );
        let merged = MergedIndex::open(&[a.clone(), b.clone()]).unwrap();
        let mut scanned = Vec::new();
        merged.scan_range("", None, |c| scanned.push(c)).unwrap();
        assert_eq!(
            keys(&scanned),
            [
                ("http://a.example/x", "20240101000003", "a.warc.gz"),
                ("http://a.example/x", "20240101000003", "b.warc.gz"),
                ("http://b.example/x", "20240101000002", "b.warc.gz"),
                ("http://b.example/x", "20240101000005", "a.warc.gz"),
                ("http://c.example/x", "20240101000001", "a.warc.gz"),
                ("http://d.example/x", "20240101000009", "b.warc.gz"),
            ]
            .map(|(u, t, f)| (u.to_string(), t.to_string(), f.to_string()))
        );
        let looked_up = merged
            .lookup(&ldwarc_surt::surt("http://b.example/x"))
            .unwrap();
        assert_eq!(keys(&looked_up), keys(&scanned[2..4]));
        let mut bounded = Vec::new();
        let (start, end) = (ldwarc_surt::surt("http://b.example/"), "example,c");
        merged
            .scan_range(&start, Some(end), |c| bounded.push(c))
            .unwrap();
        assert_eq!(keys(&bounded), keys(&scanned[2..4]));
        assert_eq!(merged.root_of("a.warc.gz"), a.as_path());
        assert_eq!(merged.root_of("b.warc.gz"), b.as_path());
        assert_eq!(merged.len(), 7);
    }

    #[test]
    fn one_root_given_twice_counts_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = root_with(
            dir.path(),
            "a",
            &[capture(
                "http://a.example/x",
                "20240101000003",
                "1",
                "a.warc.gz",
            )],
            &[("a.warc.gz", "A")],
        );
        let merged = MergedIndex::open(&[a.clone(), a.join(".")]).unwrap();
        assert_eq!(merged.root_count(), 1);
        assert_eq!(merged.len(), 1);
    }

    #[test]
    fn a_file_name_in_two_roots_must_be_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let shared = [capture(
            "http://a.example/x",
            "20240101000003",
            "1",
            "f.warc.gz",
        )];
        let a = root_with(dir.path(), "a", &shared, &[("f.warc.gz", "same")]);
        let b = root_with(dir.path(), "b", &shared, &[("f.warc.gz", "same")]);
        let c = root_with(dir.path(), "c", &shared, &[("f.warc.gz", "diff")]);
        let d = root_with(dir.path(), "d", &shared, &[("f.warc.gz", "longer")]);

        let identical = MergedIndex::open(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(identical.root_of("f.warc.gz"), a.as_path());
        let mut scanned = Vec::new();
        identical.scan_range("", None, |c| scanned.push(c)).unwrap();
        assert_eq!(scanned.len(), 1, "the copy's capture counts once");

        for other in [&c, &d] {
            let message = MergedIndex::open(&[a.clone(), other.clone()])
                .err()
                .unwrap()
                .to_string();
            assert!(message.contains("warc/f.warc.gz"), "{message}");
            assert!(message.contains(&a.display().to_string()), "{message}");
            assert!(message.contains(&other.display().to_string()), "{message}");
        }
    }

    #[test]
    fn files_indexed_after_opening_are_found_on_disk_and_by_reload() {
        let dir = tempfile::tempdir().unwrap();
        let a = root_with(dir.path(), "a", &[], &[("a.warc.gz", "A")]);
        let b = root_with(dir.path(), "b", &[], &[("b.warc.gz", "B")]);
        let merged = MergedIndex::open(&[a.clone(), b.clone()]).unwrap();
        std::fs::write(b.join("warc/late.warc.gz"), "L").unwrap();
        assert_eq!(merged.root_of("late.warc.gz"), b.as_path());
        assert_eq!(merged.root_of("nowhere.warc.gz"), a.as_path());
        assert_eq!(merged.root_of("../b/warc/late.warc.gz"), a.as_path());
        merged.reload().unwrap();
        assert!(MergedIndex::open(&[]).is_err());
    }

    #[test]
    fn records_without_an_id_are_the_same_by_type_url_time_and_digest() {
        let mut first = capture("http://a.example/x", "20240101000003", "1", "a.arc.gz");
        first.record_id = None;
        let mut copy = first.clone();
        copy.filename = "b.arc.gz".into();
        let mut other_digest = copy.clone();
        other_digest.digest = Some("sha1:OTHER".into());
        let merged = merge_key(vec![vec![first], vec![copy, other_digest]]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].filename, "a.arc.gz");
        assert_eq!(merged[1].digest.as_deref(), Some("sha1:OTHER"));
    }
}
