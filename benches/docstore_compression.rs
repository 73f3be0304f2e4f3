//! Doc-store compression of the capture index: LZ4 against Zstandard on the same archive.
//!
//! Generates an archive of `LDWARC_BENCH_CAPTURES` captures (default 100,000; the layout of
//! `benches/index_throughput.rs`), then for each compressor, in the same run on the same
//! files:
//! - builds the index in-process (`update_index` into an index created with that
//!   compressor), best of 2;
//! - prints its size in bytes per capture;
//! - times `LDWARC_BENCH_LOOKUPS` (default 20,000) exact lookups of random captured URLs
//!   through one open index (`CaptureIndex::lookup`, the path the replay server's exact CDX
//!   and `id_` requests take), p50/p99 and the rate, twice over the same URLs, with
//!   tantivy's default doc-store cache (100 blocks per segment) and with ldwarc's
//!   (`DOC_STORE_CACHE_BYTES`);
//! - times a whole CDXJ export to a sink (`export`, the path of `ldwarc cdx`), best of 3.
//!
//! Both compressors answer the same: the bench asserts equal exports.
//! Run with `cargo bench --bench docstore_compression`.

#[allow(dead_code)]
mod support;
#[path = "../tests/support/synthetic_archive.rs"]
mod synthetic_archive;

use std::path::Path;
use std::time::{Duration, Instant};

use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::export::{CdxFormat, export};
use ldwarc_archive::index::query::{MatchType, key_range};
use ldwarc_archive::index::store::{DocOrder, DocStoreCompression};
use ldwarc_archive::index::{CaptureIndex, IndexOptions, update_index};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use support::env_or;
use synthetic_archive::{Spec, generate, slot_url};

fn main() {
    let wanted = env_or("LDWARC_BENCH_CAPTURES", 100_000);
    let lookups = env_or("LDWARC_BENCH_LOOKUPS", 20_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let spec = Spec::index_benchmark(wanted, cores);
    let temp = tempfile::tempdir().expect("temp dir");
    let root = temp.path();
    let generated = generate(root, &spec).expect("generate archive");
    println!(
        "archive: {} captures in {} files, {:.1} MB gzip, {cores} cores",
        generated.captures,
        generated.files.len(),
        generated.bytes as f64 / 1e6
    );
    let mut rng = StdRng::seed_from_u64(7);
    let urls: Vec<String> = (0..lookups)
        .map(|_| {
            slot_url(
                &spec,
                rng.random_range(0..spec.plds),
                rng.random_range(0..spec.hours),
                rng.random_range(0..spec.captures_per_file),
            )
        })
        .collect();
    let keys: Vec<String> = urls
        .iter()
        .map(|url| key_range(url, MatchType::Exact).0)
        .collect();
    let mut exports = Vec::new();
    for compression in [DocStoreCompression::Zstd, DocStoreCompression::Lz4] {
        exports.push(measure(root, compression, generated.captures, &keys));
    }
    assert!(
        exports.windows(2).all(|pair| pair[0] == pair[1]),
        "both compressors export the same lines"
    );
}

/// Builds, sizes and times one compressor; returns the export's bytes.
fn measure(
    root: &Path,
    compression: DocStoreCompression,
    captures: u64,
    keys: &[String],
) -> Vec<u8> {
    let name = compression.name();
    let archive = Archive::new(root);
    let index_dir = archive.index_dir();
    let build = best_of(2, || {
        let _ = std::fs::remove_dir_all(&index_dir);
        drop(
            CaptureIndex::open_or_create_with(&index_dir, compression, DocOrder::ByKey)
                .expect("create index"),
        );
        let start = Instant::now();
        let run = update_index(&archive, &IndexOptions::default(), &|_, _| {}).expect("index");
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(run.captures_added, captures, "every capture indexed");
        secs
    });
    let bytes = dir_bytes(&index_dir);
    println!(
        "{name:<4}  build {build:>6.2} s ({:>7.0} captures/s)   size {:>6.1} MB = {:>5.1} bytes/capture",
        captures as f64 / build,
        bytes as f64 / 1e6,
        bytes as f64 / captures as f64
    );

    let mut index = CaptureIndex::open_read_only(&index_dir).expect("open index");
    for (cache, cache_bytes) in [
        ("100 blocks/segment", 0),
        (
            "32 MiB",
            ldwarc_archive::index::store::DOC_STORE_CACHE_BYTES,
        ),
    ] {
        index.set_doc_store_cache(cache_bytes).expect("reader");
        for pass in ["first", "second"] {
            lookup_pass(
                &index,
                keys,
                &format!("{name:<4}  lookup cache {cache:<18} {pass:<6}"),
            );
        }
    }

    let mut lines = Vec::new();
    let export_secs = best_of(3, || {
        lines.clear();
        let start = Instant::now();
        let written = export(&index, CdxFormat::Cdxj, "", None, &mut lines).expect("export");
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(written, captures, "every capture exported");
        secs
    });
    println!(
        "{name:<4}  export cdxj {export_secs:>6.2} s ({:>8.0} captures/s)",
        captures as f64 / export_secs
    );
    lines
}

/// Looks every key up through `index` and prints the latencies.
fn lookup_pass(index: &CaptureIndex, keys: &[String], label: &str) {
    let mut times = Vec::with_capacity(keys.len());
    let mut found = 0usize;
    let all = Instant::now();
    for key in keys {
        let start = Instant::now();
        let captures = index.lookup(key).expect("lookup");
        times.push(start.elapsed());
        assert!(!captures.is_empty(), "no capture under {key}");
        found += captures.len();
    }
    let total = all.elapsed();
    times.sort();
    println!(
        "{label} p50 {:>7.3} ms  p99 {:>7.3} ms  {:>8.0} lookups/s  ({} lookups, {:.1} captures each)",
        quantile(&times, 0.50),
        quantile(&times, 0.99),
        keys.len() as f64 / total.as_secs_f64(),
        keys.len(),
        found as f64 / keys.len() as f64
    );
}

fn quantile(sorted: &[Duration], q: f64) -> f64 {
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1e3
}

fn best_of(runs: usize, mut time: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| time()).fold(f64::INFINITY, f64::min)
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("readable index dir")
        .map(|entry| entry.expect("dir entry").path())
        .map(|path| {
            if path.is_dir() {
                dir_bytes(&path)
            } else {
                std::fs::metadata(&path).map_or(0, |m| m.len())
            }
        })
        .sum()
}
