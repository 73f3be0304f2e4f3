//! Snapshot and dataset-diff throughput: a synthetic archive of about 20,000 Linked Data
//! documents (Turtle responses and revisits over several hours, see
//! `tests/support/synthetic_archive.rs`) is indexed, then `ldwarc_timetravel::replay::snapshot` writes the
//! whole dataset as of the last hour, then writes it again as HDT (`--format hdt`: the
//! distinct triples, dictionary and BitmapTriples) and prints its time next to the N-Quads
//! time (target: HDT within 2x of N-Quads), and `diff_dataset` compares the first and last
//! hours. Prints documents, statements, statements per second and peak RSS.
//!
//! Knobs: `LDWARC_BENCH_SNAPSHOT_DOCS` (default 20000), `LDWARC_BENCH_DIR` (keep the archive).

#[allow(dead_code)]
mod support;
#[path = "../tests/support/synthetic_archive.rs"]
mod synthetic_archive;

use std::io::{self, Write};
use std::time::Instant;
use support::bench_root;

use chrono::TimeDelta;
use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::{IndexOptions, update_index};
use ldwarc_timetravel::replay::{
    ReplayArchive, ReplayDate, Scope, SnapshotFormat, diff_dataset, snapshot,
};
use synthetic_archive::{Spec, base_time, generate};

const PLDS: usize = 40;
const HOURS: usize = 8;

/// Counts bytes and lines written, keeping none.
#[derive(Default)]
struct Counter {
    bytes: u64,
    lines: u64,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        self.lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn main() {
    let documents: usize = std::env::var("LDWARC_BENCH_SNAPSHOT_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Each cold document is captured in two consecutive hours: documents ≈ captures / 2.
    let spec = Spec {
        hours: HOURS,
        plds: PLDS,
        captures_per_file: (documents * 2).div_ceil(HOURS * PLDS),
        hot_documents: 5,
        requests: false,
        imported: false,
        gzip_level: 6,
        threads: cores,
    };
    let (_temp, root) = bench_root();
    let generated = generate(&root, &spec).expect("generate the archive");
    let archive = Archive::new(&root);
    let started = Instant::now();
    update_index(
        &archive,
        &IndexOptions {
            rebuild: true,
            threads: 0,
        },
        &|_, _| {},
    )
    .expect("index");
    println!(
        "archive: {} captures ({} revisits), {:.1} MB, indexed in {:.2} s, {cores} cores",
        generated.captures,
        generated.revisits,
        generated.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    let replay = ReplayArchive::open(&root).expect("open for replay");
    let end = ReplayDate::from_instant(base_time() + TimeDelta::hours(HOURS as i64));
    let mut sink = Counter::default();
    let started = Instant::now();
    let summary = snapshot(
        &replay,
        &Scope::All,
        &end,
        SnapshotFormat::NQuads,
        &mut sink,
        &mut |line| eprintln!("{line}"),
    )
    .expect("snapshot");
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(
        sink.lines, summary.statements,
        "one N-Quads line per statement"
    );
    println!(
        "snapshot  {} documents, {} statements, {:.1} MB of N-Quads in {seconds:.2} s: \
         {:.0} statements/s, {:.0} documents/s",
        summary.documents,
        summary.statements,
        sink.bytes as f64 / 1e6,
        summary.statements as f64 / seconds,
        summary.documents as f64 / seconds
    );

    let nquads_seconds = seconds;
    let mut hdt_sink = Counter::default();
    let started = Instant::now();
    let hdt = snapshot(
        &replay,
        &Scope::All,
        &end,
        SnapshotFormat::Hdt,
        &mut hdt_sink,
        &mut |line| eprintln!("{line}"),
    )
    .expect("HDT snapshot");
    let seconds = started.elapsed().as_secs_f64();
    let written = hdt.hdt.expect("an HDT summary");
    let ratio = seconds / nquads_seconds;
    println!(
        "snapshot --format hdt  {} distinct triples ({} subjects, {} predicates, {} objects), \
         {:.1} MB in {seconds:.2} s: {ratio:.2}x the N-Quads time (target <= 2x: {})",
        written.triples,
        written.subjects,
        written.predicates,
        written.objects,
        hdt_sink.bytes as f64 / 1e6,
        if ratio <= 2.0 { "met" } else { "MISSED" }
    );

    let first = ReplayDate::from_instant(base_time() + TimeDelta::minutes(59));
    let started = Instant::now();
    let diffed = diff_dataset(&replay, &Scope::All, &first, &end, &mut |_| {}).expect("diff");
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "diff @first-hour @end  {} added, {} removed, {} changed, {} unchanged documents \
         (+{} -{} statements) in {seconds:.2} s",
        diffed.added,
        diffed.removed,
        diffed.changed,
        diffed.unchanged,
        diffed.statements_added,
        diffed.statements_removed
    );
    match ldwarc_crawl::peak_rss() {
        Some(bytes) => println!("peak RSS {:.0} MB", bytes as f64 / 1e6),
        None => println!("peak RSS unknown"),
    }
}
