//! The two ways `ldwarc sparql --at` builds its dataset, timed on one generated archive:
//! replaying the WARC files (parse every document's capture at the date) and materialising
//! the version from the versioned triple index. Both must load the same statements; the run
//! prints the time of each per date, and the heap the loaded store holds per statement (what
//! `/sparql` reserves in the server's memory budget per statement), from glibc's allocator
//! statistics.
//!
//! Size: `LDWARC_SPARQL_DOCUMENTS` (default 200) × `LDWARC_SPARQL_PEOPLE` (default 100)
//! people of four statements, over `LDWARC_SPARQL_VERSIONS` (default 10) daily crawls.
//! `LDWARC_BENCH_DIR` keeps the archive.

#[allow(dead_code)]
mod support;
#[path = "../tests/support/versioned_people.rs"]
mod versioned_people;

use std::time::{Duration, Instant};
use support::{bench_root, env_or};

use chrono::TimeDelta;
use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::{IndexOptions, update_index};
use ldwarc_timetravel::replay::{ReplayArchive, ReplayDate, Scope};
use ldwarc_timetravel::sparql::{
    ArchiveDataset, DefaultGraph, GraphSyntax, LoadLimits, OutputChoice, ResultsFormat,
    SparqlQuery, answer, load_dataset, load_dataset_from_index,
};
use ldwarc_timetravel::triples::{TripleIndex, update_triple_index};
use versioned_people::{Spec, base_time, generate};

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// Heap bytes in use (all of glibc's arenas and its mmapped blocks); 0 elsewhere.
fn heap_bytes() -> u64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's own statistics.
        let info = unsafe { libc::mallinfo2() };
        (info.uordblks + info.hblkhd) as u64
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    0
}

/// Builds a dataset with `load`, the best of three runs; the dataset of the last run and the
/// heap the first run's dataset held (what dropping it freed).
fn timed_load(mut load: impl FnMut() -> ArchiveDataset) -> (ArchiveDataset, Duration, u64) {
    let started = Instant::now();
    let mut dataset = load();
    let mut best = started.elapsed();
    let with_dataset = heap_bytes();
    drop(dataset);
    let held = with_dataset.saturating_sub(heap_bytes());
    dataset = load();
    for _ in 0..2 {
        drop(dataset);
        let started = Instant::now();
        dataset = load();
        best = best.min(started.elapsed());
    }
    (dataset, best, held)
}

/// The answer to a query over `dataset`, as SPARQL results JSON.
fn answer_json(dataset: &ArchiveDataset, query: &SparqlQuery) -> String {
    let mut out = Vec::new();
    let output = OutputChoice {
        results: ResultsFormat::Json,
        graph: GraphSyntax::NTriples,
    };
    answer(
        query,
        dataset,
        DefaultGraph::Union,
        output,
        None,
        None,
        &mut out,
    )
    .expect("answer");
    String::from_utf8(out).expect("UTF-8")
}

fn main() {
    let spec = Spec {
        documents: env_or("LDWARC_SPARQL_DOCUMENTS", 200),
        people_per_document: env_or("LDWARC_SPARQL_PEOPLE", 100),
        versions: env_or("LDWARC_SPARQL_VERSIONS", 10),
        changed_documents: 0.2,
        changed_people: 0.1,
        employers: 50,
        seed: 2026,
    };
    let (_temp, root) = bench_root();
    println!(
        "sparql dataset build: {} documents × {} people × 4 = {} statements per version, {} versions",
        spec.documents,
        spec.people_per_document,
        spec.documents * spec.people_per_document * 4,
        spec.versions
    );
    generate(&root, &spec);
    let options = IndexOptions {
        rebuild: true,
        threads: 0,
    };
    update_index(&Archive::new(&root), &options, &|_, _| {}).expect("capture index");
    let started = Instant::now();
    update_triple_index(&root, true, &|_, _| {}).expect("triple index");
    println!(
        "triple index built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let archive = ReplayArchive::open(&root).expect("archive");
    let started = Instant::now();
    let index = TripleIndex::open(&root).expect("triple index");
    println!("triple index opened in {}", ms(started.elapsed()));
    let count = SparqlQuery::parse(
        "SELECT ?org (COUNT(*) AS ?n) WHERE { ?p <http://schema.org/worksFor> ?org } GROUP BY ?org ORDER BY ?org",
        None,
    )
    .expect("query");
    let limits = LoadLimits::default();
    println!("date | statements | replaying the WARC files | from the triple index | speed-up");
    for day in [0, spec.versions as i64 / 2, spec.versions as i64 - 1] {
        let date =
            ReplayDate::from_instant(base_time() + TimeDelta::days(day) + TimeDelta::hours(22));
        let (replayed, replay_time, replay_grown) = timed_load(|| {
            load_dataset(&archive, &Scope::All, &date, &limits, &mut |_| {}).expect("replay")
        });
        let replay_answer = answer_json(&replayed, &count);
        let statements = replayed.len();
        drop(replayed);
        let (indexed, index_time, index_grown) = timed_load(|| {
            load_dataset_from_index(&index, &archive, &Scope::All, &date, &limits, &mut |_| {})
                .expect("from the index")
        });
        assert_eq!(
            indexed.len(),
            statements,
            "the two paths load different datasets"
        );
        assert_eq!(
            answer_json(&indexed, &count),
            replay_answer,
            "the two paths answer differently"
        );
        println!(
            "{} | {statements} | {} | {} | {:.1}×",
            date.timestamp(),
            ms(replay_time),
            ms(index_time),
            replay_time.as_secs_f64() / index_time.as_secs_f64()
        );
        let per_statement = |grown: u64| grown as f64 / statements.max(1) as f64;
        println!(
            "  heap held by the loaded dataset: {:.0} bytes/statement (replayed), {:.0} bytes/statement (from the index)",
            per_statement(replay_grown),
            per_statement(index_grown)
        );
    }
}
