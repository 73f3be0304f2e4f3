//! Killing a writing process with SIGKILL at random points never loses a complete record.
//!
//! `examples/write_records.rs` writes captures into one archive root in an endless loop; this
//! test kills it (`Child::kill` sends SIGKILL on Unix) after random delays, over and over on
//! the same root, recovers what it left open (`ldwarc recover`, `ArchiveWriter::open` in this
//! process, or the next writer run itself), and checks after every kill that
//! - no `.open` file is left, and each recovery reported exactly the tail it cut;
//! - every record that was complete in the file when the process died is still there, byte
//!   for byte, at the same offset; files finalised earlier are unchanged; the number of
//!   complete records never decreases;
//! - every file passes `ldwarc check` (and, at the end, `warcio check`).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Cursor;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions, OPEN_SUFFIX, walk_warc_files};
use ldwarc_warc::{ReadError, WarcReader};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sha1::{Digest, Sha1};

use common::{ldwarc, run, venv_bin};

/// Kills at least this many times…
const MIN_ITERATIONS: usize = 24;
/// …and on until recoveries have reported a few cut tails (a kill lands inside a record a
/// good part of the time, but not always), up to this many.
const MAX_ITERATIONS: usize = 80;
const WANTED_TAILS: usize = 3;

/// The example writer, built for the profile this test was built with. `cargo test` builds
/// examples before integration tests, `cargo test --test integration crash_recovery::`
/// does not: it is
/// (re)built here then, which is a no-op when it is up to date.
fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test binary");
    // target/<profile>/deps/crash_recovery-<hash>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps");
    let profile = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .expect("profile directory name");
    let target_dir = profile_dir.parent().expect("target directory");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .arg("build")
        .arg("--quiet")
        .arg("--example")
        .arg("write_records")
        .arg("--manifest-path")
        .arg(common::manifest_dir().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir);
    match profile {
        "debug" => {}
        "release" => {
            build.arg("--release");
        }
        other => {
            build.arg("--profile").arg(other);
        }
    }
    let output = run(&mut build);
    assert!(
        output.status.success(),
        "cannot build examples/write_records: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = profile_dir
        .join("examples")
        .join(format!("write_records{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// One complete record of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RecordInfo {
    id: String,
    offset: u64,
    length: u64,
    /// SHA-1 of the record's bytes in the file (its gzip member).
    sha1: Vec<u8>,
}

/// The complete records of a file (read to their end, undamaged) and the errors seen.
fn read_records(path: &Path) -> (Vec<RecordInfo>, Vec<ReadError>, u64) {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut reader = WarcReader::new(Cursor::new(&bytes[..])).expect("reader over bytes");
    let mut records = Vec::new();
    let mut errors = Vec::new();
    while let Some(next) = reader.next_record() {
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        let id = record.header.record_id().unwrap_or_default().to_string();
        let mut sink = Vec::new();
        if record.read_to_end(&mut sink).is_err() {
            // The error is reported again by the reader's next call or was already final.
            continue;
        }
        match record.finish() {
            Ok(end) if end.damage.is_none() => {
                let length = end.span.length.expect("addressable record");
                let start = end.span.offset as usize;
                records.push(RecordInfo {
                    id,
                    offset: end.span.offset,
                    length,
                    sha1: Sha1::digest(&bytes[start..start + length as usize]).to_vec(),
                });
            }
            Ok(end) => errors.extend(end.damage),
            Err(error) => errors.push(error),
        }
    }
    (records, errors, bytes.len() as u64)
}

fn end_of(records: &[RecordInfo]) -> u64 {
    records.last().map_or(0, |r| r.offset + r.length)
}

fn final_path(open: &Path) -> PathBuf {
    let name = open.to_string_lossy();
    PathBuf::from(
        name.strip_suffix(OPEN_SUFFIX)
            .expect("an .open file name")
            .to_string(),
    )
}

fn open_files(root: &Path) -> Vec<PathBuf> {
    let warc = root.join("warc");
    if !warc.exists() {
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&warc)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.to_string_lossy().ends_with(OPEN_SUFFIX))
        .collect();
    files.sort();
    files
}

fn final_files(root: &Path) -> Vec<PathBuf> {
    let warc = root.join("warc");
    if !warc.exists() {
        return Vec::new();
    }
    walk_warc_files(&warc).expect("walk the WARC tree")
}

/// What a file left open at a kill held: its complete records and its size.
struct OpenSnapshot {
    open_path: PathBuf,
    records: Vec<RecordInfo>,
    size: u64,
}

fn snapshot_open_files(root: &Path) -> Vec<OpenSnapshot> {
    open_files(root)
        .into_iter()
        .map(|open_path| {
            let (records, errors, size) = read_records(&open_path);
            // Complete records are contiguous from the start; any damage is in the tail.
            let mut expected_offset = 0;
            for record in &records {
                assert_eq!(
                    record.offset,
                    expected_offset,
                    "{}: complete records are contiguous",
                    open_path.display()
                );
                expected_offset += record.length;
            }
            let end = end_of(&records);
            for error in &errors {
                assert!(
                    error.offset >= end,
                    "{}: damage before the tail (complete records end at {end}): {error}",
                    open_path.display()
                );
            }
            OpenSnapshot {
                open_path,
                records,
                size,
            }
        })
        .collect()
}

/// The line `ldwarc recover` prints for a file.
fn recover_line(snapshot: &OpenSnapshot) -> String {
    let end = end_of(&snapshot.records);
    let target = if snapshot.records.is_empty() {
        "removed (no complete record)".to_string()
    } else {
        final_path(&snapshot.open_path).display().to_string()
    };
    format!(
        "{}: kept {} records, cut {} bytes at offset {end} -> {target}",
        snapshot.open_path.display(),
        snapshot.records.len(),
        snapshot.size - end
    )
}

#[derive(Debug, Clone, Copy)]
enum RecoveryBy {
    Cli,
    Library,
    NextWriter,
}

fn ldwarc_check(paths: &[PathBuf], what: &str) {
    if paths.is_empty() {
        return;
    }
    let output = run(ldwarc().arg("check").arg("--strict").args(paths));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.lines().count() == 1,
        "ldwarc check {what}:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.trim_end().ends_with(": 0 errors, 0 warnings"),
        "ldwarc check {what}: {stdout}"
    );
}

#[test]
fn sigkill_at_random_points_loses_no_complete_record() {
    let started = Instant::now();
    let writer = example_binary();
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let mut rng = StdRng::seed_from_u64(0x6c64_7761_7263);

    // Final files already verified: their bytes, which must never change.
    let mut finalized: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    // Complete records of every file seen (by final path) at the last look.
    let mut expected: BTreeMap<PathBuf, Vec<RecordInfo>> = BTreeMap::new();
    let mut total_before = 0usize;
    let mut tails_cut = 0usize;
    let mut recoveries = 0usize;

    let mut iteration = 0;
    while iteration < MIN_ITERATIONS || (tails_cut < WANTED_TAILS && iteration < MAX_ITERATIONS) {
        let delay = Duration::from_millis(rng.random_range(20..=300));
        let mut child = Command::new(&writer)
            .arg(&root)
            .arg(iteration.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the example writer");
        std::thread::sleep(delay);
        let early_exit = child.try_wait().expect("poll the writer");
        child.kill().expect("SIGKILL the writer");
        let output = child.wait_with_output().expect("reap the writer");
        assert!(
            early_exit.is_none(),
            "iteration {iteration}: the writer stopped by itself ({early_exit:?}): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.stdout.is_empty() && output.stderr.is_empty(),
            "iteration {iteration}: the writer printed something: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );

        // What the killed process left open, before anything touches it.
        let snapshots = snapshot_open_files(&root);
        for snapshot in &snapshots {
            let final_path = final_path(&snapshot.open_path);
            if let Some(before) = expected.get(&final_path) {
                // Left open by an earlier kill and not recovered yet: nothing lost meanwhile.
                assert!(
                    snapshot.records.starts_with(before) && snapshot.records.len() == before.len(),
                    "iteration {iteration}: {} changed while left open",
                    snapshot.open_path.display()
                );
            }
        }

        // Any iteration that may be the last recovers, so the end state is final.
        let by = match iteration % 3 {
            0 => RecoveryBy::Cli,
            1 => RecoveryBy::Library,
            _ if iteration + 1 < MIN_ITERATIONS => RecoveryBy::NextWriter,
            _ => RecoveryBy::Cli,
        };
        match by {
            RecoveryBy::Cli => {
                let output = run(ldwarc().arg("recover").arg("--root").arg(&root));
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                assert!(output.status.success(), "ldwarc recover: {stdout}");
                let lines: BTreeSet<&str> = stdout.lines().collect();
                for snapshot in &snapshots {
                    let line = recover_line(snapshot);
                    assert!(
                        lines.contains(line.as_str()),
                        "iteration {iteration}: ldwarc recover does not report {line:?}:\n{stdout}"
                    );
                }
                assert!(
                    stdout.ends_with(&format!("recovered {} open files\n", snapshots.len())),
                    "iteration {iteration}: {stdout}"
                );
            }
            RecoveryBy::Library => {
                let (writer, reports) = ArchiveWriter::open(&root, ArchiveWriterOptions::default())
                    .expect("open the archive writer");
                drop(writer);
                assert_eq!(reports.len(), snapshots.len(), "iteration {iteration}");
                for (report, snapshot) in reports.iter().zip(&snapshots) {
                    let end = end_of(&snapshot.records);
                    assert_eq!(report.open_path, snapshot.open_path);
                    assert_eq!(report.records_kept, snapshot.records.len() as u64);
                    assert_eq!(report.tail_offset, end);
                    assert_eq!(report.tail_bytes, snapshot.size - end);
                    assert_eq!(
                        report.path,
                        (!snapshot.records.is_empty()).then(|| final_path(&snapshot.open_path))
                    );
                }
            }
            RecoveryBy::NextWriter => {}
        }
        if !matches!(by, RecoveryBy::NextWriter) {
            recoveries += snapshots.len();
            tails_cut += snapshots
                .iter()
                .filter(|s| s.size > end_of(&s.records))
                .count();
            let left = open_files(&root);
            assert!(
                left.is_empty(),
                "iteration {iteration}: still open after recovery: {left:?}"
            );
            for snapshot in &snapshots {
                let final_path = final_path(&snapshot.open_path);
                if snapshot.records.is_empty() {
                    assert!(!final_path.exists() && !snapshot.open_path.exists());
                } else {
                    assert_eq!(
                        fs::metadata(&final_path)
                            .expect("recovered file exists")
                            .len(),
                        end_of(&snapshot.records),
                        "iteration {iteration}: {} cut after its last complete record",
                        final_path.display()
                    );
                }
            }
        }

        // Every file now: unchanged if seen final before; else read in full.
        let mut to_check = Vec::new();
        let finals = final_files(&root);
        let mut total = 0usize;
        for path in &finals {
            let records = if let Some(bytes) = finalized.get(path) {
                assert!(
                    fs::read(path).expect("read final file") == *bytes,
                    "iteration {iteration}: finalised file {} changed",
                    path.display()
                );
                expected[path].clone()
            } else {
                let (records, errors, size) = read_records(path);
                assert!(
                    errors.is_empty(),
                    "iteration {iteration}: {}: {errors:?}",
                    path.display()
                );
                assert_eq!(end_of(&records), size, "{}", path.display());
                if let Some(before) = expected.get(path) {
                    // Left open at an earlier kill, finalised by the next writer run.
                    assert_eq!(
                        &records,
                        before,
                        "iteration {iteration}: {} lost or changed records when the next writer recovered it",
                        path.display()
                    );
                }
                to_check.push(path.clone());
                finalized.insert(path.clone(), fs::read(path).expect("read final file"));
                records
            };
            total += records.len();
            expected.insert(path.clone(), records);
        }
        // Files recovered now hold exactly the records complete at the kill.
        let mut still_open = 0usize;
        for snapshot in &snapshots {
            let final_path = final_path(&snapshot.open_path);
            if snapshot.open_path.exists() {
                // Left for the next writer run. A file without a complete record (killed
                // between creating it and flushing its `warcinfo`, likely when the process is
                // starved of CPU) holds nothing to keep: recovery removes it, and as its name
                // then is free again, the next writer may create a new file under the same
                // name in the same second. So only files with records are expected to last.
                still_open += snapshot.records.len();
                if !snapshot.records.is_empty() {
                    expected.insert(final_path, snapshot.records.clone());
                }
            } else if snapshot.records.is_empty() {
                assert!(!final_path.exists());
            } else {
                assert_eq!(
                    expected.get(&final_path),
                    Some(&snapshot.records),
                    "iteration {iteration}: {} lost or changed records in recovery",
                    final_path.display()
                );
            }
        }
        // No file known before has vanished.
        for (path, records) in &expected {
            let open = PathBuf::from(format!("{}{OPEN_SUFFIX}", path.display()));
            assert!(
                records.is_empty() || path.exists() || open.exists(),
                "iteration {iteration}: {} vanished",
                path.display()
            );
        }
        let total = total + still_open;
        assert!(
            total >= total_before,
            "iteration {iteration}: complete records went from {total_before} to {total}"
        );
        total_before = total;
        ldwarc_check(&to_check, &format!("after iteration {iteration}"));
        iteration += 1;
    }

    assert!(
        open_files(&root).is_empty(),
        "the last recovery left files open"
    );
    assert!(
        total_before > 100,
        "the writer wrote too little to test anything ({total_before} records)"
    );
    assert!(
        recoveries >= MIN_ITERATIONS / 2,
        "too few open files were recovered ({recoveries})"
    );
    assert!(
        tails_cut > 0,
        "no kill in {iteration} landed inside a record; the test did not exercise a cut tail"
    );

    // The whole archive, by ldwarc and by warcio.
    let output = run(ldwarc()
        .arg("check")
        .arg("--strict")
        .arg("--root")
        .arg(&root));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "ldwarc check --root:\n{stdout}");
    let files = final_files(&root);
    assert!(
        stdout.starts_with(&format!(
            "checked {} files, {total_before} records, ",
            files.len()
        )) && stdout.trim_end().ends_with(": 0 errors, 0 warnings"),
        "ldwarc check --root: {stdout}"
    );
    let output = run(Command::new(venv_bin("warcio")).arg("check").args(&files));
    assert!(
        output.status.success(),
        "warcio check:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!(
        "{iteration} kills, {} files, {total_before} records, {recoveries} files recovered, {tails_cut} tails cut, {:.1} s",
        files.len(),
        started.elapsed().as_secs_f64()
    );
}
