//! BEAR-style benchmark of the versioned triple index: a generated archive of people and
//! their employers (`tests/support/versioned_people.rs`) crawled many times, indexed, then
//! version materialisation (VM: a pattern at a date), delta materialisation (DM: what a
//! pattern gained and lost between two dates) and version queries (VQ: when each match
//! held), timed for a set of triple patterns. Prints the index size next to the gzipped WARC
//! files, and, in the same run, pyoxigraph loading the snapshot of the VM date and answering
//! the same patterns (the counts must agree).
//!
//! Size: `LDWARC_BEAR_DOCUMENTS` (default 1000) × `LDWARC_BEAR_PEOPLE` (default 250) people
//! of four statements = 1 M triples, over `LDWARC_BEAR_VERSIONS` (default 50) crawls;
//! `LDWARC_BEAR_CHANGED` (default 0.2) of the documents change per crawl. Python is
//! `$LDWARC_VENV/bin/python`, else `.venv/bin/python` (see `.ci/setup-interop.sh`).
//! `LDWARC_BENCH_DIR` keeps the archive.

#[allow(dead_code)]
mod support;
#[path = "../tests/support/versioned_people.rs"]
mod versioned_people;

use std::io::BufWriter;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{bench_root, env_or, venv_bin};

use chrono::TimeDelta;
use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::{IndexOptions, update_index};
use ldwarc_timetravel::replay::{ReplayArchive, ReplayDate, Scope, SnapshotFormat, snapshot};
use ldwarc_timetravel::triples::{TripleIndex, TriplePattern, update_triple_index};
use versioned_people::{SCHEMA, Spec, base_time, employer_iri, generate, person_iri};

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// Runs `work` `runs` times; returns its last result and the median time.
fn timed<T>(runs: usize, mut work: impl FnMut() -> T) -> (T, Duration) {
    let mut times = Vec::with_capacity(runs);
    let mut result = None;
    for _ in 0..runs {
        let started = Instant::now();
        result = Some(work());
        times.push(started.elapsed());
    }
    times.sort();
    (result.expect("at least one run"), times[times.len() / 2])
}

/// pyoxigraph: load the snapshot, then each pattern as a SELECT; prints one line per step.
const PYOXIGRAPH: &str = r#"
import sys, time
import pyoxigraph as ox
started = time.perf_counter()
store = ox.Store()
store.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS)
print(f"load {time.perf_counter() - started:.3f}", flush=True)
for pattern in sys.argv[2:]:
    started = time.perf_counter()
    count = sum(1 for _ in store.query(f"SELECT * WHERE {{ {pattern} }}", use_default_graph_as_union=True))
    print(f"query {count} {time.perf_counter() - started:.4f}", flush=True)
"#;

fn main() {
    let spec = Spec {
        documents: env_or("LDWARC_BEAR_DOCUMENTS", 1000),
        people_per_document: env_or("LDWARC_BEAR_PEOPLE", 250),
        versions: env_or("LDWARC_BEAR_VERSIONS", 50),
        changed_documents: env_or("LDWARC_BEAR_CHANGED", 0.2),
        changed_people: 0.1,
        employers: 50,
        seed: 2026,
    };
    let (_temp, root) = bench_root();
    let triples = spec.documents * spec.people_per_document * 4;
    println!(
        "BEAR-style benchmark: {} documents × {} people = {triples} triples per version, {} versions, {:.0}% of documents changing per version",
        spec.documents,
        spec.people_per_document,
        spec.versions,
        spec.changed_documents * 100.0
    );
    let started = Instant::now();
    let generated = generate(&root, &spec);
    println!(
        "generated the WARC files in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let options = IndexOptions {
        rebuild: true,
        threads: 0,
    };
    update_index(&Archive::new(&root), &options, &|_, _| {}).expect("capture index");
    println!(
        "capture index built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let run = update_triple_index(&root, true, &|_, _| {}).expect("triple index");
    println!(
        "triple index built in {:.1} s: {} versions, {} entries, {} terms",
        started.elapsed().as_secs_f64(),
        run.versions_added,
        run.entries,
        run.terms
    );
    println!(
        "sizes: gzipped WARC files {} bytes, triple index {} bytes ({:.2}× the WARC files)",
        generated.warc_bytes,
        run.bytes,
        run.bytes as f64 / generated.warc_bytes as f64
    );
    let (index, open_time) = timed(1, || TripleIndex::open(&root).expect("open the index"));
    println!("opening the triple index: {}", ms(open_time));

    let patterns = [
        format!("<{}> ?p ?o", person_iri(0, 0)),
        format!("?s <{SCHEMA}worksFor> <{}>", employer_iri(7)),
        "?s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ?o".to_string(),
        format!("?s <{SCHEMA}age> ?o"),
    ];
    let middle = (spec.versions / 2) as i64;
    let vm_date = base_time() + TimeDelta::days(middle) + TimeDelta::hours(22);
    let first = (base_time() + TimeDelta::hours(22)).timestamp();
    let last = (base_time() + TimeDelta::days(spec.versions as i64 - 1) + TimeDelta::hours(22))
        .timestamp();
    let mut vm_counts = Vec::new();
    println!(
        "\npattern | VM (middle version) | DM (first→last) | DM (consecutive) | VQ (all intervals)"
    );
    for text in &patterns {
        let pattern = TriplePattern::parse(text).expect("pattern");
        let (vm, vm_time) = timed(5, || index.at(&pattern, vm_date.timestamp()).len());
        let (dm, dm_time) = timed(5, || {
            let changes = index.changes(&pattern, first, last);
            (changes.added.len(), changes.removed.len())
        });
        let one_day = 86_400;
        let (dm1, dm1_time) = timed(5, || {
            let changes =
                index.changes(&pattern, vm_date.timestamp() - one_day, vm_date.timestamp());
            (changes.added.len(), changes.removed.len())
        });
        let (vq, vq_time) = timed(5, || {
            index
                .intervals(&pattern, None, None)
                .iter()
                .map(|h| h.intervals.len())
                .sum::<usize>()
        });
        println!(
            "{text} | {vm} triples in {} | +{} −{} in {} | +{} −{} in {} | {vq} intervals in {}",
            ms(vm_time),
            dm.0,
            dm.1,
            ms(dm_time),
            dm1.0,
            dm1.1,
            ms(dm1_time),
            ms(vq_time)
        );
        vm_counts.push(vm);
    }

    // pyoxigraph on the snapshot of the VM date, in the same run.
    let snapshot_path = root.join("bear-snapshot.nq");
    let started = Instant::now();
    {
        let archive = ReplayArchive::open(&root).expect("open the archive");
        let file = std::fs::File::create(&snapshot_path).expect("snapshot file");
        let mut out = BufWriter::new(file);
        snapshot(
            &archive,
            &Scope::All,
            &ReplayDate::from_instant(vm_date),
            SnapshotFormat::NQuads,
            &mut out,
            &mut |line| eprintln!("{line}"),
        )
        .expect("snapshot");
    }
    println!(
        "\nldwarc snapshot of the middle version written in {:.2} s ({} bytes)",
        started.elapsed().as_secs_f64(),
        std::fs::metadata(&snapshot_path).map_or(0, |m| m.len())
    );
    let output = Command::new(venv_bin("python"))
        .args(["-c", PYOXIGRAPH])
        .arg(&snapshot_path)
        .args(&patterns)
        .output()
        .expect("run pyoxigraph");
    assert!(
        output.status.success(),
        "pyoxigraph failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    let load: f64 = lines
        .next()
        .and_then(|l| l.strip_prefix("load "))
        .and_then(|s| s.parse().ok())
        .expect("pyoxigraph load time");
    println!("pyoxigraph: loading the snapshot {:.2} ms", load * 1000.0);
    for ((line, pattern), ldwarc_count) in lines.zip(&patterns).zip(&vm_counts) {
        // A one-off question: open the index, answer once (sorting an access order if the
        // pattern needs one).
        let parsed = TriplePattern::parse(pattern).expect("pattern");
        let (_, cold) = timed(1, || {
            let index = TripleIndex::open(&root).expect("open the index");
            index.at(&parsed, vm_date.timestamp()).len()
        });
        let mut parts = line.split_whitespace().skip(1);
        let count: usize = parts.next().and_then(|c| c.parse().ok()).expect("count");
        let seconds: f64 = parts.next().and_then(|s| s.parse().ok()).expect("time");
        println!(
            "pyoxigraph: {pattern} | {count} rows in {:.2} ms; load + query {:.2} ms vs ldwarc open + VM {}{}",
            seconds * 1000.0,
            (load + seconds) * 1000.0,
            ms(cold),
            if count == *ldwarc_count {
                ""
            } else {
                "  ← DIFFERS from ldwarc's VM"
            }
        );
        assert_eq!(
            count, *ldwarc_count,
            "{pattern}: pyoxigraph and ldwarc disagree"
        );
    }
    let _ = std::fs::remove_file(Path::new(&snapshot_path));
}
