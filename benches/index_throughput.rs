//! Capture index benchmark (issue #3).
//!
//! Generates an archive of at least 1,000,000 captures (default 1,000,000;
//! `LDWARC_BENCH_CAPTURES`): 40 files in the `warc/YYYY/MM/DD/HH/<pld>/` layout (10 hours × 4
//! pay-level domains), `response` records with small Turtle bodies and about 22% `revisit`s
//! whose originals lie in the previous hour. Then it prints, measured in the same run on the
//! same files, each figure next to its target:
//! - indexing throughput (captures/s): `ldwarc index --rebuild` end to end (the bench-profile
//!   binary, all cores), `cdxj-indexer --dir-root` and `fastwarc index` (both from `.venv`,
//!   both single-process; fastwarc only extracts fields: no SURT, no sorting, no index).
//!   Targets: ldwarc >= 10x cdxj-indexer, and faster than fastwarc. ldwarc and fastwarc are
//!   timed twice (best run counts); cdxj-indexer once, and when the whole archive would take
//!   it more than 7 minutes it is timed on the first files only and its rate extrapolated
//!   (printed as such);
//! - index size: bytes of `<root>/index` per capture (target <= 150);
//! - lookup latency in-process, `CaptureIndex::open` once, then `run_query` for 10,000
//!   random captured URLs (`LDWARC_BENCH_LOOKUPS`), exact and with `closest`, p50/p99
//!   (target p99 < 1 ms), after 1,000 warm-up lookups;
//! - `ldwarc query` end to end (process start to exit), 200 invocations, p50/p99.
//!
//! `LDWARC_BENCH_SKIP_PEERS=1` skips cdxj-indexer and fastwarc (for quick iterations).
//! `LDWARC_BENCH_DIR=DIR` keeps the archive in DIR and reuses it on the next run when it was
//! generated with the same parameters. Run with `cargo bench --bench index_throughput`; needs
//! `.venv` from `.ci/setup-interop.sh` (or `LDWARC_VENV`).

#[path = "../tests/support/synthetic_archive.rs"]
mod synthetic_archive;

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::TimeDelta;
use ldwarc_archive::index::CaptureIndex;
use ldwarc_archive::index::query::{CdxQuery, run_query};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use support::{bench_root, env_or, time_command, venv_bin};
use synthetic_archive::{Spec, base_time, generate, slot_url};

/// Longest time cdxj-indexer may take over the whole archive before it is timed on a subset.
const CDXJ_BUDGET: Duration = Duration::from_secs(420);

fn main() {
    let wanted = env_or("LDWARC_BENCH_CAPTURES", 1_000_000);
    let lookups = env_or("LDWARC_BENCH_LOOKUPS", 10_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let spec = Spec::index_benchmark(wanted, cores);
    let (_temp, root) = bench_root();
    let (files, captures, revisits, bytes) = prepare(&root, &spec);
    println!(
        "archive: {captures} captures ({revisits} revisits) in {} files, {:.1} MB gzip, {cores} cores",
        files.len(),
        bytes as f64 / 1e6
    );

    // Indexing throughput.
    let ldwarc = env!("CARGO_BIN_EXE_ldwarc");
    let _ = std::fs::remove_dir_all(root.join("index"));
    let first = time_command(Command::new(ldwarc).args(["index", "--root"]).arg(&root));
    let ours = best_of(2, || {
        time_command(
            Command::new(ldwarc)
                .args(["index", "--rebuild", "--root"])
                .arg(&root),
        )
    });
    let index = CaptureIndex::open(&root.join("index")).expect("index opens");
    assert_eq!(index.len(), captures, "every capture indexed");
    let ours_rate = captures as f64 / ours;
    println!(
        "index  ldwarc index --rebuild   {ours_rate:>10.0} captures/s  ({ours:.2} s, end to end)"
    );
    println!(
        "index  ldwarc index (first run) {:>10.0} captures/s  ({first:.2} s, incremental into an empty index)",
        captures as f64 / first
    );

    if std::env::var_os("LDWARC_BENCH_SKIP_PEERS").is_none() {
        let fastwarc = venv_bin("fastwarc");
        let fastwarc_out = root.join("fastwarc-index.jsonl");
        let theirs = best_of(2, || {
            time_command(
                Command::new(&fastwarc)
                    .args([
                        "index",
                        "-f",
                        "offset,length,filename,warc-type,warc-target-uri,warc-date,\
                         warc-payload-digest,http:status,http:content-type",
                        "-o",
                    ])
                    .arg(&fastwarc_out)
                    .args(&files),
            )
        });
        let fastwarc_lines = count_lines(&fastwarc_out);
        let fastwarc_rate = captures as f64 / theirs;
        println!(
            "index  fastwarc index           {fastwarc_rate:>10.0} captures/s  ({theirs:.2} s, {fastwarc_lines} lines incl. warcinfo)"
        );

        let (cdxj_rate, cdxj_note) = time_cdxj_indexer(&root, &files, captures);
        println!("index  cdxj-indexer --dir-root  {cdxj_rate:>10.0} captures/s  ({cdxj_note})");
        println!(
            "index  ldwarc vs cdxj-indexer: {:.1}x (target >= 10x); vs fastwarc index: {:.2}x (target > 1x)",
            ours_rate / cdxj_rate,
            ours_rate / fastwarc_rate
        );
    } else {
        println!("index  (peers skipped: LDWARC_BENCH_SKIP_PEERS is set)");
    }

    // Size.
    let index_bytes = dir_bytes(&root.join("index"));
    println!(
        "size   index {:.1} MB = {:.1} bytes/capture (target <= 150)",
        index_bytes as f64 / 1e6,
        index_bytes as f64 / captures as f64
    );

    // In-process lookups.
    let mut rng = StdRng::seed_from_u64(3);
    let random_url = |rng: &mut StdRng| {
        slot_url(
            &spec,
            rng.random_range(0..spec.plds),
            rng.random_range(0..spec.hours),
            rng.random_range(0..spec.captures_per_file),
        )
    };
    let span_secs = (spec.hours * 3600) as i64;
    let random_ts = |rng: &mut StdRng| {
        (base_time() + TimeDelta::seconds(rng.random_range(0..span_secs)))
            .format("%Y%m%d%H%M%S")
            .to_string()
    };
    let index = CaptureIndex::open(&root.join("index")).expect("index opens");
    let mut exact = Vec::with_capacity(lookups);
    let mut closest = Vec::with_capacity(lookups);
    let mut found = 0usize;
    for round in 0..lookups + 1_000 {
        let url = random_url(&mut rng);
        let query = CdxQuery::new(&url);
        let start = Instant::now();
        let result = run_query(&index, &query).expect("exact lookup");
        let exact_time = start.elapsed();
        assert!(!result.is_empty(), "no capture of {url}");
        let mut query = CdxQuery::new(&url);
        query.closest = Some(random_ts(&mut rng));
        let start = Instant::now();
        let result = run_query(&index, &query).expect("closest lookup");
        let closest_time = start.elapsed();
        found += result.len();
        if round >= 1_000 {
            exact.push(exact_time);
            closest.push(closest_time);
        }
    }
    print_latency("lookup exact   (library)", &mut exact, Some(1.0));
    print_latency("lookup closest (library)", &mut closest, Some(1.0));
    println!(
        "       ({lookups} random captured URLs each, {:.1} captures per answer)",
        found as f64 / (lookups + 1_000) as f64
    );

    // The command end to end.
    let mut command_times = Vec::new();
    for i in 0..200 {
        let mut command = Command::new(ldwarc);
        command
            .arg("query")
            .arg(random_url(&mut rng))
            .arg("--root")
            .arg(&root);
        if i % 2 == 1 {
            command.arg("--closest").arg(random_ts(&mut rng));
        }
        let start = Instant::now();
        let status = command
            .stdout(Stdio::null())
            .status()
            .expect("run ldwarc query");
        command_times.push(start.elapsed());
        assert!(status.success(), "ldwarc query failed");
    }
    print_latency(
        "ldwarc query (process, exact + closest)",
        &mut command_times,
        None,
    );
}

/// Generates the archive under `root` unless it holds one made with the same parameters;
/// returns its files, captures, revisits and bytes.
fn prepare(root: &Path, spec: &Spec) -> (Vec<PathBuf>, u64, u64, u64) {
    let marker = root.join("bench-archive.txt");
    let description = format!("{spec:?}");
    if let Ok(text) = std::fs::read_to_string(&marker)
        && let Some((first, rest)) = text.split_once('\n')
        && first == description
        && let [captures, revisits, bytes] = rest.split_whitespace().collect::<Vec<_>>()[..]
        && let (Ok(captures), Ok(revisits), Ok(bytes)) =
            (captures.parse(), revisits.parse(), bytes.parse())
    {
        let files =
            ldwarc_archive::archive::walk_warc_files(&root.join("warc")).expect("walk archive");
        println!("reusing the archive in {}", root.display());
        return (files, captures, revisits, bytes);
    }
    let _ = std::fs::remove_dir_all(root.join("warc"));
    let start = Instant::now();
    let generated = generate(root, spec).expect("generate archive");
    println!("generated in {:.1} s", start.elapsed().as_secs_f64());
    std::fs::write(
        &marker,
        format!(
            "{description}\n{} {} {}\n",
            generated.captures, generated.revisits, generated.bytes
        ),
    )
    .expect("write marker");
    (
        generated.files,
        generated.captures,
        generated.revisits,
        generated.bytes,
    )
}

/// Times cdxj-indexer on the whole archive, or on its first files when the whole would take
/// longer than [`CDXJ_BUDGET`]; returns captures/s and how it was measured.
fn time_cdxj_indexer(root: &Path, files: &[PathBuf], captures: u64) -> (f64, String) {
    let cdxj = venv_bin("cdxj-indexer");
    let warc_dir = root.join("warc");
    let out = root.join("cdxj-indexer.cdxj");
    let run = |subset: &[PathBuf]| {
        time_command(
            Command::new(&cdxj)
                .arg("--dir-root")
                .arg(&warc_dir)
                .arg("-o")
                .arg(&out)
                .args(subset),
        )
    };
    // One file first, to see how long the whole would take.
    let first = run(&files[..1]);
    let projected = first * files.len() as f64;
    if projected <= CDXJ_BUDGET.as_secs_f64() {
        let secs = run(files);
        assert_eq!(
            count_lines(&out),
            captures,
            "cdxj-indexer indexed every capture"
        );
        return (captures as f64 / secs, format!("{secs:.1} s, all files"));
    }
    // Too slow for the whole archive: about a third of the budget on the first files.
    let subset = ((CDXJ_BUDGET.as_secs_f64() / 3.0 / first) as usize).clamp(1, files.len());
    let secs = if subset == 1 {
        first
    } else {
        run(&files[..subset])
    };
    let lines = count_lines(&out);
    let rate = lines as f64 / secs;
    (
        rate,
        format!(
            "SUBSET: timed on the first {subset} of {} files, {lines} captures in {secs:.1} s; \
             rate extrapolated, the whole archive would take ~{:.0} s",
            files.len(),
            captures as f64 / rate
        ),
    )
}

fn best_of(runs: usize, mut time: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| time()).fold(f64::INFINITY, f64::min)
}

fn count_lines(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

fn dir_bytes(dir: &Path) -> u64 {
    walkdir(dir)
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn print_latency(name: &str, times: &mut [Duration], target_ms: Option<f64>) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64() * 1e3
    };
    let target = match target_ms {
        Some(ms) => format!("   (target p99 < {ms} ms)"),
        None => String::new(),
    };
    println!(
        "latency {name:<40} p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms{target}",
        at(0.50),
        at(0.99),
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3)
    );
}
