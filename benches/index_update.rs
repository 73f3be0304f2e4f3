//! An archive that grows by a few crawls: the cost per capture of bringing the capture index
//! and the triple index up to date after new crawls, against the cost per capture of a full
//! build, on a BEAR-style archive (issue #34): `LDWARC_UPDATE_DOCUMENTS` (default 110)
//! documents of `LDWARC_UPDATE_PEOPLE` (default 50) people × 4 = 200 statements, crawled
//! `LDWARC_UPDATE_VERSIONS` (default 400) times with about 0.3% of the statements changing
//! per crawl (3% of the documents change, 20% of a changed document's people, two of their
//! four statements each) and unchanged documents archived as identical-payload revisits,
//! then `LDWARC_UPDATE_MORE` (default 40) more crawls. Prints, for each index, the full
//! build of the grown archive and the update after the new crawls, per capture, and their
//! ratio. `LDWARC_BENCH_DIR` keeps the archive.

#[allow(dead_code)]
mod support;
#[path = "../tests/support/versioned_people.rs"]
mod versioned_people;

use std::time::{Duration, Instant};

use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::{IndexOptions, update_index};
use ldwarc_timetravel::triples::update_triple_index;
use support::{bench_root, env_or};
use versioned_people::{Spec, generate_versions};

fn per_capture(time: Duration, captures: usize) -> String {
    format!(
        "{:.4} ms per capture ({:.2} s for {captures})",
        time.as_secs_f64() * 1000.0 / captures.max(1) as f64,
        time.as_secs_f64()
    )
}

fn capture_index(root: &std::path::Path, rebuild: bool) -> Duration {
    let started = Instant::now();
    let options = IndexOptions {
        rebuild,
        threads: 0,
    };
    let run = update_index(&Archive::new(root), &options, &|_, _| {}).expect("capture index");
    assert_eq!(run.unresolved_revisits, 0);
    started.elapsed()
}

fn triple_index(root: &std::path::Path, rebuild: bool) -> Duration {
    let started = Instant::now();
    update_triple_index(root, rebuild, &|_, _| {}).expect("triple index");
    started.elapsed()
}

fn main() {
    let before: usize = env_or("LDWARC_UPDATE_VERSIONS", 400);
    let more: usize = env_or("LDWARC_UPDATE_MORE", 40);
    let spec = Spec {
        documents: env_or("LDWARC_UPDATE_DOCUMENTS", 110),
        people_per_document: env_or("LDWARC_UPDATE_PEOPLE", 50),
        versions: before + more,
        changed_documents: 0.03,
        changed_people: 0.2,
        employers: 50,
        seed: 34,
    };
    let (_temp, root) = bench_root();
    println!(
        "index updates: {} documents × {} statements, {before} crawls then {more} more",
        spec.documents,
        spec.people_per_document * 4
    );
    generate_versions(&root, &spec, 0..before);
    let old = before * spec.documents;
    let new = more * spec.documents;
    let first_capture = capture_index(&root, false);
    let first_triples = triple_index(&root, false);
    println!(
        "first build ({before} crawls): capture index {}, triple index {}",
        per_capture(first_capture, old),
        per_capture(first_triples, old)
    );
    generate_versions(&root, &spec, before..before + more);
    let update_capture = capture_index(&root, false);
    let update_triples = triple_index(&root, false);
    let full_capture = capture_index(&root, true);
    let full_triples = triple_index(&root, true);
    let all = old + new;
    for (name, update, full) in [
        ("capture index", update_capture, full_capture),
        ("triple index", update_triples, full_triples),
    ] {
        let ratio = (update.as_secs_f64() / new as f64) / (full.as_secs_f64() / all as f64);
        println!(
            "{name}: update with {more} crawls {}; full build {}; per capture {ratio:.2}× the full build, whole update {:.2}× the full build",
            per_capture(update, new),
            per_capture(full, all),
            update.as_secs_f64() / full.as_secs_f64()
        );
    }
}
