//! Graph diff benchmark (issue #5).
//!
//! Generates two versions of a graph (default 10,000 triples each, `LDWARC_BENCH_DIFF_TRIPLES`)
//! of which 20% mention blank nodes (nested structures, RDF lists, reifications, shared and
//! symmetric blank nodes), the second version shuffled, relabelled and changed (ground
//! triples and whole structures removed, added and edited), and writes both as N-Triples in a
//! temp dir. On those files it then times, in the same run:
//! - ldwarc: parse both (`parse_graph`) and diff them (`diff`), and parse alone;
//! - rdflib: parse, `to_isomorphic` both, `graph_diff` (target: ldwarc at least 100x faster,
//!   with the same removed/added counts);
//! - pyoxigraph: parse into `Dataset`s, `canonicalize(RDFC_1_0)` both, compare the quad sets
//!   (target: ldwarc faster);
//! - parse throughput: ldwarc vs pyoxigraph `Dataset(parse(...))` and `Store.bulk_load`
//!   (target: ldwarc faster than the former).
//!
//! Then the same for two large versions (default 1,000,000 triples, `LDWARC_BENCH_DIFF_LARGE`,
//! 0 to skip): ldwarc parse + diff (target: under 10 s and 2 GB peak RSS), and pyoxigraph's
//! parse; pyoxigraph's canonicalisation too with `LDWARC_BENCH_DIFF_LARGE_PEERS=1` (slow).
//!
//! Every measurement runs in a process of its own (ldwarc's in a re-run of this binary), so
//! each peak RSS printed is that measurement's alone.
//!
//! Other knobs: `LDWARC_BENCH_DIFF_DIR=DIR` writes the generated files to DIR (kept) instead of
//! a temp dir; `LDWARC_BENCH_DIFF_PEERS=0` times ldwarc alone; `LDWARC_BENCH_DIFF_SYMMETRIC=1`
//! adds automorphic structures (a blank node with two identical blank leaves, which colour
//! refinement cannot split and RDFC-1.0 labels). They are off by default because rdflib's
//! canonicalisation degrades badly on them (a 10,000-triple run did not finish in 45 minutes),
//! and its `graph_diff` then reports unchanged lists as changed.
//!
//! Run with `cargo bench --bench rdf_diff`. Needs `.venv` from `.ci/setup-interop.sh`.

#[allow(dead_code)]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ldwarc_rdf::{DiffQuad, Graph, NoContexts, Syntax, diff, parse_graph};
use ldwarc_testweb::SplitMix64;
use support::venv_bin;

/// Set in the environment of the re-run that measures ldwarc in a fresh process.
const CHILD_ENV: &str = "LDWARC_BENCH_DIFF_CHILD";

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        measure_ldwarc(&spec);
        return;
    }
    let small = env_usize("LDWARC_BENCH_DIFF_TRIPLES", 10_000);
    let large = env_usize("LDWARC_BENCH_DIFF_LARGE", 1_000_000);
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let large_peers = flag("LDWARC_BENCH_DIFF_LARGE_PEERS");
    let peers = std::env::var("LDWARC_BENCH_DIFF_PEERS").map_or(true, |v| v != "0");
    let symmetric = flag("LDWARC_BENCH_DIFF_SYMMETRIC");
    let temp = tempfile::tempdir().expect("temp dir");
    // LDWARC_BENCH_DIFF_DIR keeps the generated files for a closer look.
    let dir = std::env::var_os("LDWARC_BENCH_DIFF_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&dir).expect("bench directory");

    let versions = write_versions(&dir, "small", small, 5, symmetric);
    compare_with_peers(&versions, peers, peers);
    if large > 0 {
        let versions = write_versions(&dir, "large", large, 1, symmetric);
        compare_with_peers(&versions, peers && large_peers, peers);
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// Two generated versions on disk and what their diff must be.
struct Versions {
    old: PathBuf,
    new: PathBuf,
    triples: usize,
    expected_removed: usize,
    expected_added: usize,
    /// How many times ldwarc repeats its measurement (the fastest run is kept).
    repeats: usize,
}

fn write_versions(
    dir: &Path,
    name: &str,
    triples: usize,
    repeats: usize,
    symmetric: bool,
) -> Versions {
    let start = Instant::now();
    let generated = generate(triples, 0x5eed_0005, symmetric);
    let old = dir.join(format!("{name}-old.nt"));
    let new = dir.join(format!("{name}-new.nt"));
    std::fs::write(&old, &generated.old).expect("write old version");
    std::fs::write(&new, &generated.new).expect("write new version");
    println!(
        "\n== Graph diff: two versions of {} triples ({:.1}% mention blank nodes), {:.1} MB of \
         N-Triples each; expected diff {} removed / {} added (generated in {:.1} s)",
        generated.old_triples,
        100.0 * generated.blank_triples as f64 / generated.old_triples as f64,
        generated.old.len() as f64 / 1e6,
        generated.removed,
        generated.added,
        start.elapsed().as_secs_f64()
    );
    Versions {
        old,
        new,
        triples: generated.old_triples,
        expected_removed: generated.removed,
        expected_added: generated.added,
        repeats,
    }
}

/// One measured run: seconds per phase, counts, peak RSS.
#[derive(Debug, Default)]
struct Run {
    parse_s: f64,
    diff_s: f64,
    total_s: f64,
    triples: usize,
    removed: Option<usize>,
    added: Option<usize>,
    /// Of those, the statements without blank nodes.
    removed_ground: Option<usize>,
    added_ground: Option<usize>,
    peak_rss: u64,
}

/// Times ldwarc, then the peers' diffs (`diff_peers`) and parses (`parse_peers`).
fn compare_with_peers(versions: &Versions, diff_peers: bool, parse_peers: bool) {
    let ours = run_ldwarc(versions);
    assert_eq!(
        (ours.removed, ours.added),
        (
            Some(versions.expected_removed),
            Some(versions.expected_added)
        ),
        "ldwarc's diff is the generated change"
    );
    println!(
        "{:<44} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "", "parse s", "diff s", "total s", "peak RSS", "removed", "added"
    );
    print_run("ldwarc parse_graph + diff", &ours);
    let mut rdflib = None;
    let mut oxigraph = None;
    if diff_peers {
        let run = run_peer("rdflib-diff", versions);
        print_run("rdflib to_isomorphic + graph_diff", &run);
        rdflib = Some(run);
        let run = run_peer("pyoxigraph-canon", versions);
        print_run("pyoxigraph canonicalize(RDFC_1_0) + sets", &run);
        oxigraph = Some(run);
    }
    if let Some(rdflib) = &rdflib {
        println!(
            "ldwarc vs rdflib: {:.0}x as fast in total, {:.0}x on the diff alone (target >= 100x)",
            rdflib.total_s / ours.total_s,
            rdflib.diff_s / ours.diff_s,
        );
        print_agreement(&ours, rdflib);
    }
    if let Some(oxigraph) = &oxigraph {
        println!(
            "ldwarc vs pyoxigraph canonicalisation: {:.1}x as fast in total, {:.1}x on \
             canonicalise + compare alone (target > 1x); pyoxigraph's whole-graph labels give \
             {} removed / {} added",
            oxigraph.total_s / ours.total_s,
            oxigraph.diff_s / ours.diff_s,
            oxigraph.removed.unwrap_or(0),
            oxigraph.added.unwrap_or(0)
        );
    }
    if parse_peers {
        print_parse_throughput(versions, &ours);
    }
    let large = versions.triples >= 1_000_000;
    if large {
        println!(
            "ldwarc large diff: {:.2} s parse + diff (target < 10 s), peak RSS {:.0} MB \
             (target < 2048 MB)",
            ours.total_s,
            mib(ours.peak_rss)
        );
    }
}

/// Whether ldwarc and rdflib found the same change: ground statements must agree exactly;
/// statements with blank nodes are compared per structure by ldwarc and per canonical label by
/// rdflib, so their counts can legitimately differ.
fn print_agreement(ours: &Run, rdflib: &Run) {
    let count = |n: Option<usize>| n.unwrap_or(0);
    let ground_same =
        (ours.removed_ground, ours.added_ground) == (rdflib.removed_ground, rdflib.added_ground);
    println!(
        "  ground statements: {} (ldwarc -{} +{}, rdflib -{} +{}); with blank nodes: ldwarc -{} +{} \
         (whole structures), rdflib -{} +{} (by canonical label)",
        if ground_same { "same" } else { "DIFFERENT" },
        count(ours.removed_ground),
        count(ours.added_ground),
        count(rdflib.removed_ground),
        count(rdflib.added_ground),
        count(ours.removed) - count(ours.removed_ground),
        count(ours.added) - count(ours.added_ground),
        count(rdflib.removed) - count(rdflib.removed_ground),
        count(rdflib.added) - count(rdflib.added_ground),
    );
    assert!(
        ground_same,
        "ldwarc and rdflib disagree on ground statements"
    );
}

fn print_parse_throughput(versions: &Versions, ours: &Run) {
    let rate = |run: &Run| run.triples as f64 / run.parse_s;
    let dataset = run_peer("pyoxigraph-parse", versions);
    let bulk = run_peer("pyoxigraph-bulk", versions);
    println!("parse throughput (both files, {} triples):", ours.triples);
    for (name, run) in [
        ("ldwarc parse_graph (N-Triples)", ours),
        ("pyoxigraph Dataset(parse())", &dataset),
        ("pyoxigraph Store().bulk_load()", &bulk),
    ] {
        println!(
            "  {name:<42} {:>11.0} triples/s {:>8.3} s   peak RSS {:>6.0} MB",
            rate(run),
            run.parse_s,
            mib(run.peak_rss)
        );
    }
    println!(
        "ldwarc parse vs pyoxigraph Dataset(parse()): {:.2}x as fast (target > 1x); vs bulk_load: {:.2}x",
        rate(ours) / rate(&dataset),
        rate(ours) / rate(&bulk)
    );
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

fn print_run(name: &str, run: &Run) {
    let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
    println!(
        "{name:<44} {:>9.4} {:>9.4} {:>9.4} {:>6.0} MB {:>8} {:>8}",
        run.parse_s,
        run.diff_s,
        run.total_s,
        mib(run.peak_rss),
        count(run.removed),
        count(run.added)
    );
}

/// Re-runs this binary to measure ldwarc in a fresh process.
fn run_ldwarc(versions: &Versions) -> Run {
    let exe = std::env::current_exe().expect("bench executable");
    let spec = format!(
        "{}\n{}\n{}",
        versions.repeats,
        versions.old.display(),
        versions.new.display()
    );
    let output = Command::new(exe)
        .env(CHILD_ENV, spec)
        .output()
        .expect("re-run the bench for ldwarc");
    assert!(
        output.status.success(),
        "ldwarc measurement failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    parse_run(&String::from_utf8_lossy(&output.stdout))
}

/// In the re-run: parse and diff the files `repeats` times, print the fastest figures.
fn measure_ldwarc(spec: &str) {
    let mut lines = spec.lines();
    let repeats: usize = lines.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let old_path = PathBuf::from(lines.next().expect("old path"));
    let new_path = PathBuf::from(lines.next().expect("new path"));
    let old_bytes = std::fs::read(&old_path).expect("read old version");
    let new_bytes = std::fs::read(&new_path).expect("read new version");
    let mut best = Run {
        parse_s: f64::MAX,
        diff_s: f64::MAX,
        total_s: f64::MAX,
        ..Run::default()
    };
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let old = parse(&old_bytes);
        let new = parse(&new_bytes);
        let parsed = Instant::now();
        let difference = diff(&old, &new);
        let done = Instant::now();
        best.parse_s = best.parse_s.min((parsed - start).as_secs_f64());
        best.diff_s = best.diff_s.min((done - parsed).as_secs_f64());
        best.total_s = best.total_s.min((done - start).as_secs_f64());
        best.triples = old.len() + new.len();
        best.removed = Some(difference.removed_count());
        best.added = Some(difference.added_count());
        let ground = |quads: &[DiffQuad]| {
            quads
                .iter()
                .filter(|quad| !quad.terms().any(|term| term.starts_with("_:")))
                .count()
        };
        best.removed_ground = Some(ground(&difference.removed));
        best.added_ground = Some(ground(&difference.added));
        assert!(!difference.approximate, "{:?}", difference.approximation());
        drop((old, new, difference));
    }
    best.peak_rss = ldwarc_crawl::peak_rss().unwrap_or(0);
    let json = serde_json::json!({
        "parse_s": best.parse_s,
        "diff_s": best.diff_s,
        "total_s": best.total_s,
        "triples": best.triples,
        "removed": best.removed,
        "added": best.added,
        "removed_ground": best.removed_ground,
        "added_ground": best.added_ground,
        "peak_rss": best.peak_rss,
    });
    println!("{json}");
}

fn parse(bytes: &[u8]) -> Graph {
    let parsed = parse_graph(bytes, &[Syntax::NTriples], "file:///bench.nt", &NoContexts)
        .expect("generated N-Triples parse");
    assert_eq!(parsed.error, None);
    parsed.graph
}

fn run_peer(mode: &str, versions: &Versions) -> Run {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/rdf_diff_peers.py");
    let output = Command::new(venv_bin("python"))
        .arg(&script)
        .arg(mode)
        .arg(&versions.old)
        .arg(&versions.new)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        output.status.success(),
        "{mode} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    parse_run(&String::from_utf8_lossy(&output.stdout))
}

/// Reads the one-line JSON object a measurement prints.
fn parse_run(text: &str) -> Run {
    let value: serde_json::Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("measurement output {text:?}: {e}"));
    let float = |key: &str| value.get(key).and_then(|v| v.as_f64()).unwrap_or(0.0);
    let count = |key: &str| value.get(key).and_then(|v| v.as_u64()).map(|n| n as usize);
    let parse_s = float("parse_s");
    let total_s = float("total_s");
    Run {
        parse_s,
        diff_s: float("diff_s"),
        total_s: if total_s > 0.0 { total_s } else { parse_s },
        triples: count("triples").unwrap_or(0),
        removed: count("removed"),
        added: count("added"),
        removed_ground: count("removed_ground"),
        added_ground: count("added_ground"),
        peak_rss: value.get("peak_rss").and_then(|v| v.as_u64()).unwrap_or(0),
    }
}

/// Two generated versions as N-Triples text, with the expected diff.
struct Generated {
    old: String,
    new: String,
    old_triples: usize,
    blank_triples: usize,
    removed: usize,
    added: usize,
}

/// A unit of the generated graph: one ground triple or one blank-node structure, as
/// N-Triples lines with `{B}` where a blank-node label prefix goes.
struct Unit {
    lines: Vec<String>,
    blank: bool,
}

const EX: &str = "http://example.org/";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

/// Generates the versions: 80% ground triples, 20% triples in blank-node structures; the new
/// version drops 1% of the ground triples and 1% of the structures, edits a literal in 1%
/// of each (a removal plus an addition), adds 1% new of each, and is shuffled and relabelled.
fn generate(triples: usize, seed: u64, symmetric: bool) -> Generated {
    let mut rng = SplitMix64::new(seed);
    let mut units = Vec::new();
    let mut counter = 0usize;
    let mut ground = 0usize;
    let mut blank = 0usize;
    while ground + blank < triples {
        let unit = if (blank as f64) < 0.2 * (ground + blank + 1) as f64 {
            structure(&mut rng, &mut counter, symmetric)
        } else {
            ground_triple(&mut rng, &mut counter)
        };
        if unit.blank {
            blank += unit.lines.len();
        } else {
            ground += unit.lines.len();
        }
        units.push(unit);
    }
    let mut old_units: Vec<usize> = (0..units.len()).collect();
    shuffle(&mut old_units, &mut rng);
    let old = render(&units, &old_units, "a");

    let mut new_units = Vec::with_capacity(units.len());
    let (mut removed, mut added) = (0, 0);
    let original = units.len();
    for index in 0..original {
        let roll = rng.below(100);
        let size = units[index].lines.len();
        if roll == 0 {
            removed += size;
        } else if roll == 1 {
            let edited = edit(&units[index], &mut rng);
            removed += size;
            added += size;
            units.push(edited);
            new_units.push(units.len() - 1);
        } else {
            new_units.push(index);
        }
        if rng.below(100) == 0 {
            let unit = if units[index].blank {
                structure(&mut rng, &mut counter, symmetric)
            } else {
                ground_triple(&mut rng, &mut counter)
            };
            added += unit.lines.len();
            units.push(unit);
            new_units.push(units.len() - 1);
        }
    }
    shuffle(&mut new_units, &mut rng);
    let new = render(&units, &new_units, "z");
    Generated {
        old,
        new,
        old_triples: ground + blank,
        blank_triples: blank,
        removed,
        added,
    }
}

fn shuffle(items: &mut [usize], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}

/// Writes units in `order`, blank-node labels prefixed per unit so units never share one.
fn render(units: &[Unit], order: &[usize], prefix: &str) -> String {
    let mut text = String::new();
    for (position, &index) in order.iter().enumerate() {
        let label = format!("_:{prefix}{position}x");
        for line in &units[index].lines {
            text.push_str(&line.replace("{B}", &label));
            text.push('\n');
        }
    }
    text
}

fn next_id(counter: &mut usize) -> usize {
    *counter += 1;
    *counter
}

fn ground_triple(rng: &mut SplitMix64, counter: &mut usize) -> Unit {
    let id = next_id(counter);
    let subject = format!("<{EX}r{}>", rng.below(id / 4 + 1));
    let line = if rng.below(2) == 0 {
        format!(
            "{subject} <{EX}p{}> \"value {id} with some text\"@en .",
            rng.below(20)
        )
    } else {
        // The object is unique, so that no two generated triples are equal.
        format!("{subject} <{EX}link{}> <{EX}t{id}> .", rng.below(5))
    };
    Unit {
        lines: vec![line],
        blank: false,
    }
}

/// One blank-node structure of a kind picked at random.
fn structure(rng: &mut SplitMix64, counter: &mut usize, symmetric: bool) -> Unit {
    let id = next_id(counter);
    let subject = format!("<{EX}r{}>", rng.below(id / 4 + 1));
    let mut lines = Vec::new();
    match rng.below(if symmetric { 20 } else { 18 }) {
        // A nested description: a person with an address.
        0..=5 => {
            lines.push(format!("{subject} <{EX}contact> {{B}}0 ."));
            lines.push(format!("{{B}}0 <{EX}name> \"Person {id}\" ."));
            lines.push(format!("{{B}}0 <{EX}address> {{B}}1 ."));
            lines.push(format!(
                "{{B}}1 <{EX}street> \"{} Main Street\" .",
                rng.below(999)
            ));
            lines.push(format!("{{B}}1 <{EX}zip> \"{:05}\" .", rng.below(99_999)));
        }
        // An RDF list of three to six items.
        6..=10 => {
            let items = 3 + rng.below(4);
            lines.push(format!("{subject} <{EX}list> {{B}}0 ."));
            for i in 0..items {
                // The first item is unique, so that no two lists are isomorphic.
                let item = if i == 0 { id } else { rng.below(50) };
                lines.push(format!("{{B}}{i} <{RDF}first> \"item {item}\" ."));
                let rest = if i + 1 == items {
                    format!("<{RDF}nil>")
                } else {
                    format!("{{B}}{}", i + 1)
                };
                lines.push(format!("{{B}}{i} <{RDF}rest> {rest} ."));
            }
        }
        // A reification with provenance.
        11..=14 => {
            lines.push(format!("{{B}}0 <{RDF}type> <{RDF}Statement> ."));
            lines.push(format!("{{B}}0 <{RDF}subject> {subject} ."));
            lines.push(format!(
                "{{B}}0 <{RDF}predicate> <{EX}p{}> .",
                rng.below(20)
            ));
            lines.push(format!("{{B}}0 <{RDF}object> \"claim {id}\" ."));
            lines.push(format!("{{B}}0 <{EX}source> <{EX}doc{}> .", rng.below(100)));
        }
        // A blank node shared by two subjects.
        15..=17 => {
            lines.push(format!("{subject} <{EX}knows> {{B}}0 ."));
            lines.push(format!("<{EX}r{}> <{EX}knows> {{B}}0 .", rng.below(id + 1)));
            lines.push(format!("{{B}}0 <{EX}name> \"Friend {id}\" ."));
        }
        // Symmetric: two identical leaves (colour refinement cannot split them; RDFC-1.0 does).
        _ => {
            let value = rng.below(10);
            lines.push(format!("{subject} <{EX}pair> {{B}}0 ."));
            lines.push(format!("{{B}}0 <{EX}name> \"Pair {id}\" ."));
            lines.push(format!("{{B}}0 <{EX}member> {{B}}1 ."));
            lines.push(format!("{{B}}0 <{EX}member> {{B}}2 ."));
            lines.push(format!("{{B}}1 <{EX}value> \"{value}\" ."));
            lines.push(format!("{{B}}2 <{EX}value> \"{value}\" ."));
        }
    }
    Unit { lines, blank: true }
}

/// A copy of a unit with one literal changed (for ground triples with an IRI object, the
/// object changed).
fn edit(unit: &Unit, rng: &mut SplitMix64) -> Unit {
    let mut lines = unit.lines.clone();
    let stamp = format!("edited {}", rng.next_u64() % 1_000_000);
    let literal = lines.iter().position(|line| line.contains(" \""));
    match literal {
        Some(index) => {
            let line = &mut lines[index];
            let start = line.find(" \"").map_or(0, |i| i + 2);
            line.insert_str(start, &stamp);
        }
        None => {
            let line = &mut lines[0];
            let cut = line.rfind('>').unwrap_or(line.len());
            line.insert_str(cut, &stamp.replace(' ', "-"));
        }
    }
    Unit {
        lines,
        blank: unit.blank,
    }
}
