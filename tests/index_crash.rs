//! Killing `ldwarc index` with SIGKILL at random points never corrupts or loses anything: after
//! the kills and a final complete run, the index equals the one an uninterrupted run builds
//! over identical files.
//!
//! The test generates a synthetic archive of 301 WARC files (30,000 captures, with requests,
//! revisits whose originals lie in the previous hour's partition, and revisits whose
//! originals lie in a plain `.warc` that sorts after them), copies it to a second
//! root and indexes that one without interruption, timing the run. Then it runs
//! `ldwarc index` on the first root over and over and kills it (`Child::kill` is SIGKILL on
//! Unix) after a random delay drawn from a seeded RNG (`LDWARC_CRASH_SEED` to replay one),
//! with `LDWARC_INDEX_COMMIT_EVERY` set low so that runs commit many times and kills land
//! between, during and after commits. Some runs are `--rebuild`s, and when a run happens to
//! finish before it is killed the next one is a `--rebuild`, so there is always work left to
//! interrupt. After every kill the index must open, and it must hold exactly the captures of
//! the files its checkpoint lists, no more and no fewer. At the end:
//! - `ldwarc cdx` (CDXJ and CDX-11) is byte-for-byte the reference root's;
//! - every stored capture, including revisit originals and record ids, equals the reference's;
//! - `ldwarc index --verify` exits 0, and one more run adds nothing.

use crate::common;
use crate::synthetic_archive;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ldwarc_archive::index::{Capture, CaptureIndex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::{ldwarc, run, stdout_ok};
use synthetic_archive::{Spec, generate};

/// Kills that must land while `ldwarc index` is running.
const MIN_KILLS: usize = 12;
/// Of which at least this many must leave a partly built index (resumed by the next run).
const MIN_PARTIAL: usize = 4;
/// Gives up after this many runs.
const MAX_RUNS: usize = 80;
/// Captures between commits in the killed runs.
const COMMIT_EVERY: usize = 1_500;
const DEFAULT_SEED: u64 = 0x1D3A_2C00;

fn spec() -> Spec {
    Spec {
        hours: 30,
        plds: 10,
        captures_per_file: 100,
        hot_documents: 5,
        requests: true,
        imported: true,
        gzip_level: 6,
        threads: 2,
    }
}

fn index_command(root: &Path, rebuild: bool) -> Command {
    let mut command = ldwarc();
    // The capture index's crash safety: the kills are timed against its work alone (the
    // triple index that `index` updates after it is written to a new file and renamed).
    command
        .arg("index")
        .arg("--root")
        .arg(root)
        .arg("--no-triples");
    if rebuild {
        command.arg("--rebuild");
    }
    command.env("LDWARC_INDEX_COMMIT_EVERY", COMMIT_EVERY.to_string());
    command
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walk(from) {
        let target = to.join(entry.strip_prefix(from).expect("below source"));
        fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        fs::copy(&entry, &target).expect("copy file");
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every capture in the index, sorted by file and offset.
fn dump(root: &Path) -> Vec<Capture> {
    let index = CaptureIndex::open(&root.join("index"))
        .unwrap_or_else(|e| panic!("index of {} does not open: {e}", root.display()));
    let mut captures = Vec::new();
    index
        .scan_range("", None, |c| captures.push(c))
        .expect("index scans");
    captures.sort_by(|a, b| (&a.filename, a.offset).cmp(&(&b.filename, b.offset)));
    captures
}

fn cdx(root: &Path, format: &str) -> String {
    let output = run(ldwarc()
        .arg("cdx")
        .arg("--root")
        .arg(root)
        .arg("--format")
        .arg(format));
    stdout_ok(&output, &format!("ldwarc cdx --format {format}"))
}

#[test]
fn index_survives_sigkill_at_random_points() {
    let seed = std::env::var("LDWARC_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    eprintln!("LDWARC_CRASH_SEED={seed}");
    let mut rng = StdRng::seed_from_u64(seed);

    let temp = tempfile::tempdir().expect("temp dir");
    let killed_root = temp.path().join("killed");
    let reference_root = temp.path().join("reference");
    let generated = generate(&killed_root, &spec()).expect("generate archive");
    assert_eq!(generated.files.len(), 301);
    assert!(generated.revisits > 1_000, "{generated:?}");
    copy_tree(&killed_root.join("warc"), &reference_root.join("warc"));

    // The reference: one uninterrupted run.
    let started = Instant::now();
    let output = run(&mut index_command(&reference_root, false));
    let full_run = started.elapsed();
    let summary = stdout_ok(&output, "uninterrupted ldwarc index");
    eprintln!("uninterrupted run: {full_run:?}: {summary}");
    let reference = dump(&reference_root);
    assert_eq!(reference.len() as u64, generated.captures);
    let mut per_file: BTreeMap<String, u64> = BTreeMap::new();
    for capture in &reference {
        *per_file.entry(capture.filename.clone()).or_default() += 1;
    }
    assert_eq!(per_file.len(), generated.files.len());

    // Kill, check, run again.
    let full_ms = full_run.as_millis().max(50) as u64;
    let (mut kills, mut partial, mut runs) = (0usize, 0usize, 0usize);
    let mut rebuild_next = false;
    let total = reference.len() as u64;
    let mut done_before = 0u64;
    let mut log = Vec::new();
    while kills < MIN_KILLS {
        runs += 1;
        assert!(
            runs <= MAX_RUNS,
            "only {kills} kills landed in {MAX_RUNS} runs (full run {full_ms} ms): {log:#?}"
        );
        let rebuild = rebuild_next || rng.random_bool(0.15);
        // Kills anywhere from process start-up to about the expected end of the run (a
        // resumed run has only the rest to do, plus its start-up): some land in the final
        // commit, and a run that is faster than expected finishes.
        let left = if rebuild {
            1.0
        } else {
            0.1 + (total - done_before) as f64 / total as f64
        };
        let longest = ((full_ms as f64 * left) as u64).max(full_ms / 10);
        let delay = Duration::from_millis(rng.random_range(full_ms / 50..=longest));
        let mut child = index_command(&killed_root, rebuild)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ldwarc index");
        let started = Instant::now();
        let killed = loop {
            if child.try_wait().expect("poll child").is_some() {
                break false;
            }
            if started.elapsed() >= delay {
                child.kill().expect("SIGKILL");
                break true;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let ran = started.elapsed();
        let output = child.wait_with_output().expect("reap child");
        if killed {
            kills += 1;
        } else {
            assert!(
                output.status.success(),
                "ldwarc index failed on its own: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        // The index opens and holds exactly the captures of the files its checkpoint lists.
        let index = CaptureIndex::open(&killed_root.join("index"))
            .unwrap_or_else(|e| panic!("run {runs}: index does not open after the kill: {e}"));
        let checkpoint = index
            .checkpoint()
            .unwrap_or_else(|e| panic!("run {runs}: checkpoint unreadable: {e}"));
        let expected: u64 = checkpoint
            .files
            .keys()
            .map(|f| {
                *per_file
                    .get(f)
                    .unwrap_or_else(|| panic!("run {runs}: checkpoint lists unknown file {f}"))
            })
            .sum();
        assert_eq!(
            index.len(),
            expected,
            "run {runs}: captures in the index vs in the {} checkpointed files",
            checkpoint.files.len()
        );
        let done = checkpoint.files.len();
        if killed && done > 0 && done < per_file.len() {
            partial += 1;
        }
        // A run that finished leaves nothing to interrupt: rebuild next time.
        rebuild_next = done == per_file.len();
        done_before = index.len();
        log.push(format!(
            "run {runs}: {}, {} after {ran:?}, files checkpointed: {done}, captures: {}",
            if rebuild { "--rebuild" } else { "incremental" },
            if killed { "killed" } else { "finished" },
            index.len()
        ));
    }
    eprintln!("{}", log.join("\n"));
    assert!(
        partial >= MIN_PARTIAL,
        "only {partial} kills left a partial index: {log:#?}"
    );

    // The final complete run.
    let summary = stdout_ok(
        &run(&mut index_command(&killed_root, false)),
        "final ldwarc index",
    );
    eprintln!("final run: {summary}");

    assert!(
        cdx(&killed_root, "cdxj") == cdx(&reference_root, "cdxj"),
        "CDXJ of the killed root differs from the reference"
    );
    assert!(
        cdx(&killed_root, "cdx11") == cdx(&reference_root, "cdx11"),
        "CDX-11 of the killed root differs from the reference"
    );
    let after = dump(&killed_root);
    assert_eq!(after.len(), reference.len());
    for (got, want) in after.iter().zip(&reference) {
        assert_eq!(got, want, "stored capture differs from the reference");
    }

    for root in [&killed_root, &reference_root] {
        let output = run(ldwarc()
            .arg("index")
            .arg("--verify")
            .arg("--root")
            .arg(root));
        assert_eq!(
            output.status.code(),
            Some(0),
            "ldwarc index --verify on {}: {}{}",
            root.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let again = stdout_ok(
        &run(&mut index_command(&killed_root, false)),
        "ldwarc index once more",
    );
    assert!(
        again.contains(" 0 captures added"),
        "a run over an indexed archive added captures: {again}"
    );
}
