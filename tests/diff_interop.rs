//! `ldwarc diff` on files against rdflib: for generated version pairs (ground-only and
//! blank-node-heavy: lists, nested structures, reifications, shared blank nodes, symmetric
//! and toxic structures, named graphs), the RDF Patch, SPARQL Update and `+`/`-` N-Triples
//! outputs applied to the old graph by rdflib give a graph isomorphic to the new one
//! (`rdflib.compare.isomorphic`); without blank nodes the added/removed counts equal
//! `rdflib.compare.graph_diff`'s; and adding one blank-node structure yields a patch of exactly
//! that structure.
//!
//! The old files are written with the labels `parse_graph` gives (`_:b0`, `_:b1`, … by first
//! appearance), which is what `ldwarc replay --format nt` prints for a capture; `D` rows must
//! name blank nodes by those labels. rdflib's RDF Patch parser takes `_:label` as the blank
//! node's identity, so the old graph is loaded keeping its labels.
//!
//! Python is `$LDWARC_VENV/bin/python`, else `<crate>/.venv/bin/python`; the test fails (never
//! skips) when it or rdflib is missing.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{ldwarc, run, stdout_ok, venv_bin};
use ldwarc_testweb::SplitMix64;

const EX: &str = "http://example.org/";
const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

/// Applies each case's three diffs to its old graph and compares the result with the new
/// graph: the RDF Patch with rdflib's patch parser, the `+`/`-` lines with rdflib, the SPARQL
/// Update with pyoxigraph (every case) and rdflib (triples only: rdflib's `INSERT DATA` into a
/// dataset's default graph is broken). Graphs are compared by `rdflib.compare.isomorphic`, or,
/// for cases whose symmetric blank-node structures rdflib's canonicalisation cannot handle in
/// reasonable time (minutes to hours), by pyoxigraph's RDFC-1.0 canonical forms.
const PY_CHECK: &str = r##"
import json, sys, time, warnings
from urllib.parse import quote
warnings.simplefilter("ignore")
import pyoxigraph as ox
from rdflib import BNode, Dataset, Graph, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

class KeepLabels(dict):
    """A bnode_context that keeps each label as the blank node's identity."""
    def get(self, key, default=None):
        return BNode(key)

def load(path, fmt):
    ds = Dataset()
    if fmt == "nt":
        ds.default_graph.parse(path, format="nt", bnode_context=KeepLabels())
    else:
        ds.parse(path, format="nquads", bnode_context=KeepLabels())
    return ds

def load_text(text, fmt):
    ds = Dataset()
    if text.strip():
        if fmt == "nt":
            ds.default_graph.parse(data=text, format="nt", bnode_context=KeepLabels())
        else:
            ds.parse(data=text, format="nquads", bnode_context=KeepLabels())
    return ds

def is_default(name):
    return name is None or str(name) == "urn:x-rdflib:default"

def flat_rdflib(ds):
    """N-Triples of a dataset with each named graph's name folded into the predicate: dataset
    isomorphism (IRI graph names) becomes graph isomorphism."""
    lines = []
    if isinstance(ds, Dataset):
        quads = ((s, p, o, c.identifier if hasattr(c, "identifier") else c)
                 for s, p, o, c in ds.quads((None, None, None, None)))
    else:
        quads = ((s, p, o, None) for s, p, o in ds)
    for s, p, o, name in quads:
        if not is_default(name):
            p = URIRef(str(p) + "-in-" + quote(str(name), safe=""))
        lines.append("%s %s %s ." % (s.n3(), p.n3(), o.n3()))
    return "\n".join(lines) + "\n"

def flat_oxigraph(store):
    lines = []
    for q in store:
        p = q.predicate
        if not isinstance(q.graph_name, ox.DefaultGraph):
            p = ox.NamedNode(p.value + "-in-" + quote(q.graph_name.value, safe=""))
        lines.append("%s %s %s ." % (q.subject, p, q.object))
    return "\n".join(lines) + "\n"

class Reference:
    """The new graph, compared with candidates by the case's oracle (canonicalised once)."""
    def __init__(self, text, oracle):
        self.oracle = oracle
        if oracle == "rdflib":
            self.graph = Graph().parse(data=text, format="nt")
        else:
            self.quads = canonical(text)

    def matches(self, text):
        if self.oracle == "rdflib":
            return isomorphic(Graph().parse(data=text, format="nt"), self.graph)
        return canonical(text) == self.quads

def canonical(text):
    dataset = ox.Dataset(ox.parse(text, format=ox.RdfFormat.N_TRIPLES))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return set(dataset)

def apply_signed(ds, path, fmt):
    minus, plus = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("- "):
                minus.append(line[2:])
            elif line.startswith("+ "):
                plus.append(line[2:])
            elif line.strip() and not line.startswith("#"):
                raise ValueError("unexpected line " + repr(line))
    for text, remove in (("".join(minus), True), ("".join(plus), False)):
        for s, p, o, c in load_text(text, fmt).quads((None, None, None, None)):
            name = c.identifier if hasattr(c, "identifier") else c
            target = ds.default_graph if is_default(name) else ds.graph(name)
            if remove:
                if (s, p, o) not in target:
                    raise ValueError("'-' statement not in the old graph: %r" % ((s, p, o, name),))
                target.remove((s, p, o))
            else:
                target.add((s, p, o))

def oxigraph_store(path, fmt):
    store = ox.Store()
    store.load(path=path, format=ox.RdfFormat.N_TRIPLES if fmt == "nt" else ox.RdfFormat.N_QUADS)
    return store

results = []
for case in json.load(open(sys.argv[1])):
    started = time.perf_counter()
    fmt, oracle = case["format"], case["oracle"]
    new = flat_rdflib(load(case["new"], fmt))
    reference = Reference(new, oracle)
    same = lambda text: reference.matches(text)
    result = {"name": case["name"]}
    ds = load(case["old"], fmt)
    ds.parse(case["patch"], format="patch")
    result["patch"] = same(flat_rdflib(ds))
    ds = load(case["old"], fmt)
    apply_signed(ds, case["signed"], fmt)
    result["signed"] = same(flat_rdflib(ds))
    with open(case["sparql_file"], encoding="utf-8") as f:
        update = f.read()
    if case["sparql"] is not None:
        store = oxigraph_store(case["old"], fmt)
        store.update(update)
        result["sparql"] = same(flat_oxigraph(store))
    # rdflib's query planner joins the patterns of a list of repeated items as a cross
    # product: only the cases rdflib can canonicalise are given to it.
    if fmt == "nt" and oracle == "rdflib":
        g = Graph().parse(case["old"], format="nt")
        g.update(update)
        result["sparql-rdflib"] = same(flat_rdflib(g))
    if case["ground"]:
        old_g = Graph().parse(data=flat_rdflib(load(case["old"], fmt)), format="nt")
        new_g = Graph().parse(data=new, format="nt")
        _, in_old, in_new = graph_diff(to_isomorphic(old_g), to_isomorphic(new_g))
        result["graph_diff"] = [len(in_old), len(in_new)]
    result["seconds"] = round(time.perf_counter() - started, 2)
    print(result, file=sys.stderr)
    results.append(result)
print(json.dumps(results))
"##;

/// One generated version pair on disk.
struct Case {
    name: String,
    old: PathBuf,
    new: PathBuf,
    nquads: bool,
    ground: bool,
    oracle: &'static str,
    /// Whether to apply the SPARQL Update (see [`Spec::sparql`]).
    sparql: bool,
}

/// The three outputs of `ldwarc diff` for a case.
struct Outputs {
    patch: String,
    sparql: String,
    signed: String,
}

fn ldwarc_diff(case: &Case, format: &str) -> String {
    let output = run(ldwarc()
        .args(["diff", "--format", format])
        .arg(&case.old)
        .arg(&case.new));
    stdout_ok(
        &output,
        &format!("ldwarc diff --format {format} ({})", case.name),
    )
}

#[test]
fn diffs_applied_by_rdflib_give_the_new_graph() {
    let temp = tempfile::tempdir().unwrap();
    // LDWARC_DIFF_INTEROP_DIR keeps the cases, diffs and checker for a closer look.
    let kept = std::env::var_os("LDWARC_DIFF_INTEROP_DIR").map(PathBuf::from);
    let dir = kept.as_deref().unwrap_or(temp.path());
    std::fs::create_dir_all(dir).unwrap();
    let mut cases = Vec::new();
    for (index, spec) in case_specs().into_iter().enumerate() {
        cases.push(write_case(dir, index, &spec));
    }
    let mut manifest = Vec::new();
    let mut counts = HashMap::new();
    for case in &cases {
        let outputs = Outputs {
            patch: ldwarc_diff(case, "patch"),
            sparql: ldwarc_diff(case, "sparql"),
            signed: ldwarc_diff(case, "nt"),
        };
        check_patch_shape(case, &outputs.patch);
        if case.name == "toxic" {
            // The edited toxic structure is in the diff (compared approximately).
            assert!(
                outputs.patch.contains("<http://example.org/leaf>"),
                "{}",
                outputs.patch
            );
        }
        let removed = outputs
            .patch
            .lines()
            .filter(|l| l.starts_with("D "))
            .count();
        let added = outputs
            .patch
            .lines()
            .filter(|l| l.starts_with("A "))
            .count();
        counts.insert(case.name.clone(), (removed, added));
        let stem = dir.join(&case.name);
        let files = [
            ("patch", "rp", &outputs.patch),
            ("sparql_file", "ru", &outputs.sparql),
            ("signed", "txt", &outputs.signed),
        ];
        let mut entry = serde_json::json!({
            "name": case.name,
            "old": case.old,
            "new": case.new,
            "format": if case.nquads { "nq" } else { "nt" },
            "ground": case.ground,
            "oracle": case.oracle,
            // null: no SPARQL engine can apply this case's update in reasonable time.
            "sparql": if case.sparql { serde_json::json!(true) } else { serde_json::Value::Null },
        });
        for (key, extension, text) in files {
            let path = stem.with_extension(extension);
            std::fs::write(&path, text).unwrap();
            entry[key] = serde_json::json!(path);
        }
        manifest.push(entry);
    }
    let manifest_path = dir.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_string(&manifest).unwrap()).unwrap();
    let results = run_python(dir, &manifest_path);
    assert_eq!(results.len(), cases.len());
    let mut ground_cases = 0;
    for result in &results {
        let name = result["name"].as_str().unwrap();
        for key in ["patch", "sparql", "signed", "sparql-rdflib"] {
            if result.get(key).is_none() && key != "patch" && key != "signed" {
                continue;
            }
            assert_eq!(
                result[key].as_bool(),
                Some(true),
                "{name}: the {key} diff applied to the old graph is not isomorphic to the new one"
            );
        }
        if let Some(graph_diff) = result.get("graph_diff") {
            ground_cases += 1;
            let expected = (
                graph_diff[0].as_u64().unwrap() as usize,
                graph_diff[1].as_u64().unwrap() as usize,
            );
            assert_eq!(
                counts[name], expected,
                "{name}: removed/added vs rdflib graph_diff"
            );
            assert!(expected.0 > 0 && expected.1 > 0, "{name}: a real change");
        }
    }
    assert!(ground_cases >= 2);
}

/// RDF Patch shape: one transaction, D rows before A rows, D rows naming blank nodes exactly
/// as the old file (parse_graph's labels) does, A rows with labels the old file never uses.
fn check_patch_shape(case: &Case, patch: &str) {
    let lines: Vec<&str> = patch.lines().collect();
    assert_eq!(lines.first(), Some(&"TX ."), "{}: {patch}", case.name);
    assert_eq!(lines.last(), Some(&"TC ."), "{}: {patch}", case.name);
    let last_d = lines.iter().rposition(|l| l.starts_with("D "));
    let first_a = lines.iter().position(|l| l.starts_with("A "));
    if let (Some(d), Some(a)) = (last_d, first_a) {
        assert!(d < a, "{}: D rows come before A rows", case.name);
    }
    let old = std::fs::read_to_string(&case.old).unwrap();
    let old_lines: std::collections::HashSet<&str> = old.lines().collect();
    for row in lines.iter().filter_map(|l| l.strip_prefix("D ")) {
        assert!(
            old_lines.contains(row),
            "{}: D row not in the old file: {row}",
            case.name
        );
    }
    for row in lines.iter().filter_map(|l| l.strip_prefix("A ")) {
        for token in row.split(' ').filter(|t| t.starts_with("_:")) {
            assert!(
                !old.contains(&format!("{token} ")),
                "{}: A label {token} clashes",
                case.name
            );
        }
    }
}

fn run_python(dir: &Path, manifest: &Path) -> Vec<serde_json::Value> {
    let script = dir.join("check.py");
    std::fs::write(&script, PY_CHECK).unwrap();
    let python = venv_bin("python");
    let output = run(Command::new(&python).arg(&script).arg(manifest));
    let text = stdout_ok(&output, "rdflib check (is rdflib installed in the venv?)");
    serde_json::from_str::<serde_json::Value>(text.trim())
        .unwrap_or_else(|e| panic!("rdflib check output {text:?}: {e}"))
        .as_array()
        .cloned()
        .unwrap()
}

#[test]
fn adding_one_blank_node_structure_patches_only_that_structure() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(42);
    let mut units: Vec<Unit> = Vec::new();
    for kind in [
        Kind::Nested,
        Kind::List,
        Kind::Reification,
        Kind::Shared,
        Kind::Symmetric,
        Kind::Nested,
        Kind::List,
    ] {
        units.push(structure(kind, units.len(), &mut rng));
        units.push(ground(units.len(), &mut rng));
    }
    let old_order: Vec<usize> = (0..units.len()).collect();
    let old = relabel_first_appearance(&render(&units, &old_order, "o"));
    let added = Unit {
        lines: vec![
            format!("<{EX}r1> <{EX}contact> {{B}}0 ."),
            format!("{{B}}0 <{EX}name> \"Newcomer\" ."),
        ],
    };
    units.push(added);
    let mut new_order: Vec<usize> = (0..units.len()).collect();
    shuffle(&mut new_order, &mut rng);
    let new = render(&units, &new_order, "q");
    let (old_path, new_path) = (dir.path().join("old.nt"), dir.path().join("new.nt"));
    std::fs::write(&old_path, &old).unwrap();
    std::fs::write(&new_path, &new).unwrap();
    let output = run(ldwarc()
        .args(["diff", "--format", "patch"])
        .arg(&old_path)
        .arg(&new_path));
    let patch = stdout_ok(&output, "ldwarc diff");
    assert_eq!(
        patch,
        format!("TX .\nA <{EX}r1> <{EX}contact> _:n0 .\nA _:n0 <{EX}name> \"Newcomer\" .\nTC .\n"),
        "only the new structure, none of the other blank-node structures"
    );
}

// ---------------------------------------------------------------------------------------
// Generation

/// What a case is made of.
struct Spec {
    name: &'static str,
    seed: u64,
    ground: usize,
    structures: Vec<Kind>,
    nquads: bool,
    /// Only relabel and shuffle: the diff must be empty.
    identical: bool,
    /// Who decides isomorphism: rdflib, or pyoxigraph's RDFC-1.0 for structures rdflib's
    /// canonicalisation is too slow on (automorphic blank nodes, lists of repeated items).
    oracle: &'static str,
    /// False when the SPARQL Update cannot be applied in reasonable time: removing a
    /// structure with many interchangeable blank nodes is a subgraph-matching problem the
    /// engine solves by enumerating (8 identical leaves: 8^8 bindings per hub).
    sparql: bool,
    /// Always edit the first structure (so that a rare kind surely changes).
    edit_first_structure: bool,
}

fn case_specs() -> Vec<Spec> {
    use Kind::*;
    let spec = |name, seed, ground, structures: Vec<Kind>, nquads, oracle| Spec {
        name,
        seed,
        ground,
        structures,
        nquads,
        identical: false,
        oracle,
        sparql: true,
        edit_first_structure: false,
    };
    let plain = [Nested, Sequence, Reification, Shared, Chain];
    let mixed = [
        Nested,
        List,
        Reification,
        Shared,
        Network,
        Chain,
        Symmetric,
        Cycle,
    ];
    let mut specs = vec![
        spec("ground-small", 1, 300, vec![], false, "rdflib"),
        spec("ground-large", 2, 3000, vec![], false, "rdflib"),
        spec("ground-quads", 3, 500, vec![], true, "rdflib"),
        spec(
            "nested-and-reified",
            4,
            100,
            [Nested, Reification].repeat(40),
            false,
            "rdflib",
        ),
        spec("plain-a", 5, 150, plain.repeat(12), false, "rdflib"),
        spec("plain-b", 6, 150, plain.repeat(12), false, "rdflib"),
        spec("plain-quads", 7, 100, plain.repeat(8), true, "rdflib"),
        spec("lists", 8, 50, [List; 60].to_vec(), false, "pyoxigraph"),
        spec(
            "shared-blank-nodes",
            9,
            80,
            [Shared, Network, Chain].repeat(20),
            false,
            "pyoxigraph",
        ),
        spec(
            "symmetric",
            10,
            40,
            [Symmetric, Cycle].repeat(12),
            false,
            "pyoxigraph",
        ),
        Spec {
            sparql: false,
            edit_first_structure: true,
            ..spec(
                "toxic",
                17,
                40,
                [Toxic, Symmetric].repeat(3),
                false,
                "pyoxigraph",
            )
        },
        spec("mixed-quads", 11, 100, mixed.repeat(8), true, "pyoxigraph"),
        Spec {
            identical: true,
            ..spec(
                "relabelled-only",
                12,
                100,
                mixed.repeat(5),
                false,
                "pyoxigraph",
            )
        },
    ];
    for (seed, name) in [
        (13, "mixed-a"),
        (14, "mixed-b"),
        (15, "mixed-c"),
        (16, "mixed-d"),
    ] {
        specs.push(spec(name, seed, 200, mixed.repeat(6), false, "pyoxigraph"));
    }
    specs
}

fn write_case(dir: &Path, index: usize, spec: &Spec) -> Case {
    let mut rng = SplitMix64::new(0xD1FF_0000 + spec.seed);
    let mut units = Vec::new();
    for _ in 0..spec.ground {
        units.push(ground(units.len(), &mut rng));
    }
    for &kind in &spec.structures {
        units.push(structure(kind, units.len(), &mut rng));
    }
    if spec.nquads {
        for unit in &mut units {
            put_in_graph(unit, &mut rng);
        }
    }
    let mut order: Vec<usize> = (0..units.len()).collect();
    shuffle(&mut order, &mut rng);
    let old = relabel_first_appearance(&render(&units, &order, "o"));
    let new_order = if spec.identical {
        let mut order: Vec<usize> = (0..units.len()).collect();
        shuffle(&mut order, &mut rng);
        order
    } else {
        let mut order = change(&mut units, &mut rng, spec.nquads);
        if spec.edit_first_structure {
            // Make sure the case's first structure is among the changes.
            let first = spec.ground;
            order.retain(|&index| index != first);
            let mut edited = units[first].clone();
            if let Some(line) = edited.lines.iter_mut().rev().find(|l| l.contains(" \"")) {
                edit_literal(line, 1);
            }
            units.push(edited);
            order.push(units.len() - 1);
        }
        order
    };
    let new = render(&units, &new_order, "q");
    if spec.identical {
        assert_ne!(old, new, "the relabelled version is spelled differently");
    }
    let extension = if spec.nquads { "nq" } else { "nt" };
    let old_path = dir.join(format!("{index:02}-{}-old.{extension}", spec.name));
    let new_path = dir.join(format!("{index:02}-{}-new.{extension}", spec.name));
    std::fs::write(&old_path, old).unwrap();
    std::fs::write(&new_path, new).unwrap();
    Case {
        name: spec.name.to_string(),
        old: old_path,
        new: new_path,
        nquads: spec.nquads,
        ground: spec.structures.is_empty(),
        oracle: spec.oracle,
        sparql: spec.sparql,
    }
}

/// A ground triple or a blank-node structure: N-Triples lines with `{B}` where the unit's
/// blank-node label prefix goes.
#[derive(Clone)]
struct Unit {
    lines: Vec<String>,
}

#[derive(Clone, Copy)]
enum Kind {
    Nested,
    /// An RDF list whose items repeat values (only positions tell its nodes apart).
    List,
    /// An RDF list of distinct items.
    Sequence,
    Reification,
    /// A blank node two subjects point to.
    Shared,
    /// Several people sharing one blank organisation (one larger component).
    Network,
    /// A chain of blank nodes.
    Chain,
    /// Two identical leaves under one blank node (automorphic).
    Symmetric,
    /// A cycle of blank nodes alternating two predicates.
    Cycle,
    /// Two linked hubs of seven identical leaves (beyond RDFC-1.0's guard of six).
    Toxic,
}

fn ground(id: usize, rng: &mut SplitMix64) -> Unit {
    let subject = format!("<{EX}r{}>", rng.below(id / 3 + 1));
    let line = match rng.below(3) {
        0 => format!("{subject} <{EX}p{}> \"value {id}\" .", rng.below(8)),
        1 => format!("{subject} <{EX}label> \"label {id}\"@en .",),
        _ => format!("{subject} <{EX}link{}> <{EX}t{id}> .", rng.below(4)),
    };
    Unit { lines: vec![line] }
}

fn structure(kind: Kind, id: usize, rng: &mut SplitMix64) -> Unit {
    let subject = format!("<{EX}r{}>", rng.below(id / 3 + 1));
    let mut lines = Vec::new();
    let mut push = |line: String| lines.push(line);
    match kind {
        Kind::Nested => {
            push(format!("{subject} <{EX}contact> {{B}}0 ."));
            push(format!("{{B}}0 <{EX}name> \"Person {id}\" ."));
            push(format!("{{B}}0 <{EX}address> {{B}}1 ."));
            push(format!(
                "{{B}}1 <{EX}street> \"{} Main St\" .",
                rng.below(100)
            ));
            push(format!("{{B}}1 <{EX}geo> {{B}}2 ."));
            push(format!(
                "{{B}}2 <{EX}lat> \"{}\"^^<http://www.w3.org/2001/XMLSchema#decimal> .",
                rng.below(90)
            ));
        }
        Kind::List => {
            let items = 2 + rng.below(6);
            push(format!("{subject} <{EX}list> {{B}}0 ."));
            for i in 0..items {
                // Repeated item values: only the position tells the nodes apart.
                push(format!("{{B}}{i} <{RDF}first> \"item {}\" .", rng.below(3)));
                let rest = if i + 1 == items {
                    format!("<{RDF}nil>")
                } else {
                    format!("{{B}}{}", i + 1)
                };
                push(format!("{{B}}{i} <{RDF}rest> {rest} ."));
            }
        }
        Kind::Sequence => {
            let items = 2 + rng.below(5);
            push(format!("{subject} <{EX}sequence> {{B}}0 ."));
            for i in 0..items {
                push(format!("{{B}}{i} <{RDF}first> \"entry {id}.{i}\" ."));
                let rest = if i + 1 == items {
                    format!("<{RDF}nil>")
                } else {
                    format!("{{B}}{}", i + 1)
                };
                push(format!("{{B}}{i} <{RDF}rest> {rest} ."));
            }
        }
        Kind::Reification => {
            push(format!("{{B}}0 <{RDF}type> <{RDF}Statement> ."));
            push(format!("{{B}}0 <{RDF}subject> {subject} ."));
            push(format!("{{B}}0 <{RDF}predicate> <{EX}p{}> .", rng.below(8)));
            push(format!(
                "{{B}}0 <{RDF}object> \"claim {}\" .",
                rng.below(10)
            ));
            push(format!("{{B}}0 <{EX}source> {{B}}1 ."));
            push(format!("{{B}}1 <{EX}name> \"source {}\" .", rng.below(5)));
        }
        Kind::Shared => {
            push(format!("{subject} <{EX}knows> {{B}}0 ."));
            push(format!("<{EX}r{}> <{EX}knows> {{B}}0 .", rng.below(id + 1)));
            push(format!("{{B}}0 <{EX}name> \"Friend {}\" .", rng.below(20)));
        }
        Kind::Network => {
            push(format!("{{B}}0 <{EX}name> \"Org {}\" .", rng.below(4)));
            for person in 1..=3 + rng.below(3) {
                push(format!("{{B}}{person} <{EX}worksFor> {{B}}0 ."));
                push(format!(
                    "{{B}}{person} <{EX}name> \"Member {}\" .",
                    rng.below(6)
                ));
            }
        }
        Kind::Chain => {
            let len = 3 + rng.below(5);
            push(format!("{subject} <{EX}next> {{B}}0 ."));
            for i in 0..len {
                push(format!("{{B}}{i} <{EX}next> {{B}}{} .", i + 1));
            }
            push(format!("{{B}}{len} <{EX}end> \"{}\" .", rng.below(3)));
        }
        Kind::Symmetric => {
            let value = rng.below(3);
            push(format!("{subject} <{EX}pair> {{B}}0 ."));
            push(format!("{{B}}0 <{EX}member> {{B}}1 ."));
            push(format!("{{B}}0 <{EX}member> {{B}}2 ."));
            push(format!("{{B}}1 <{EX}value> \"{value}\" ."));
            push(format!("{{B}}2 <{EX}value> \"{value}\" ."));
        }
        Kind::Cycle => {
            let len = 2 * (2 + rng.below(3));
            for i in 0..len {
                let predicate = if i % 2 == 0 { "p" } else { "q" };
                push(format!(
                    "{{B}}{i} <{EX}{predicate}> {{B}}{} .",
                    (i + 1) % len
                ));
            }
            push(format!("{subject} <{EX}cycle> {{B}}0 ."));
        }
        Kind::Toxic => {
            let value = rng.below(2);
            push(format!("{subject} <{EX}hub> {{B}}h0 ."));
            push(format!("{subject} <{EX}hub> {{B}}h1 ."));
            push(format!("{{B}}h0 <{EX}link> {{B}}h1 ."));
            push(format!("{{B}}h1 <{EX}link> {{B}}h0 ."));
            for hub in 0..2 {
                for leaf in 0..7 {
                    push(format!("{{B}}h{hub} <{EX}leaf> {{B}}l{hub}x{leaf} ."));
                    push(format!("{{B}}l{hub}x{leaf} <{EX}value> \"{value}\" ."));
                }
            }
        }
    }
    Unit { lines }
}

/// Moves every statement of a unit into one named graph, or leaves it in the default graph.
fn put_in_graph(unit: &mut Unit, rng: &mut SplitMix64) {
    let graph = rng.below(3);
    if graph == 0 {
        return;
    }
    for line in &mut unit.lines {
        let body = line.trim_end_matches(" .").to_string();
        *line = format!("{body} <{EX}graph{graph}> .");
    }
}

/// Changes the units in place for the new version and returns its unit order: about 8% of the
/// units removed, 8% edited (a literal changed, a statement added or one dropped), 8% new.
fn change(units: &mut Vec<Unit>, rng: &mut SplitMix64, nquads: bool) -> Vec<usize> {
    let mut order = Vec::new();
    let original = units.len();
    for index in 0..original {
        match rng.below(25) {
            0 | 1 => {}
            2 | 3 => {
                let edited = edit(&units[index], rng);
                units.push(edited);
                order.push(units.len() - 1);
            }
            _ => order.push(index),
        }
        if rng.below(12) == 0 {
            let mut unit = if units[index].lines.iter().any(|l| l.contains("{B}")) {
                structure(Kind::Nested, original + index, rng)
            } else {
                ground(original + index, rng)
            };
            if nquads {
                put_in_graph(&mut unit, rng);
            }
            units.push(unit);
            order.push(units.len() - 1);
        }
    }
    shuffle(&mut order, rng);
    order
}

/// Prefixes the first literal of a line with `edited <stamp> `.
fn edit_literal(line: &mut String, stamp: usize) {
    let at = line.find(" \"").map_or(0, |i| i + 2);
    line.insert_str(at, &format!("edited {stamp} "));
}

fn edit(unit: &Unit, rng: &mut SplitMix64) -> Unit {
    let mut lines = unit.lines.clone();
    let stamp = rng.below(1_000_000);
    let with_literal = lines.iter().position(|l| l.contains(" \""));
    match (rng.below(3), with_literal) {
        (0, Some(index)) => edit_literal(&mut lines[index], stamp),
        (1, _) if lines.len() > 1 => {
            lines.remove(rng.below(lines.len()));
        }
        _ => {
            let subject = lines[0].split(' ').next().unwrap_or("").to_string();
            // The unit's named graph, if put_in_graph gave it one.
            let graph = lines[0]
                .trim_end_matches(" .")
                .rsplit(' ')
                .next()
                .filter(|last| last.starts_with(&format!("<{EX}graph")))
                .map(|g| format!(" {g}"))
                .unwrap_or_default();
            lines.push(format!("{subject} <{EX}note> \"added {stamp}\"{graph} ."));
        }
    }
    Unit { lines }
}

fn shuffle(items: &mut [usize], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// The units in `order`, each unit's blank-node labels prefixed with `prefix` and its position.
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

/// Relabels blank nodes `_:b0`, `_:b1`, … by first appearance, as `parse_graph` does, so that
/// the file spells blank nodes as `ldwarc replay --format nt` would print the capture.
fn relabel_first_appearance(text: &str) -> String {
    let mut labels: HashMap<String, String> = HashMap::new();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let tokens: Vec<String> = line
            .split(' ')
            .map(|token| {
                if token.starts_with("_:") {
                    let next = labels.len();
                    labels
                        .entry(token.to_string())
                        .or_insert_with(|| format!("_:b{next}"))
                        .clone()
                } else {
                    token.to_string()
                }
            })
            .collect();
        out.push_str(&tokens.join(" "));
        out.push('\n');
    }
    out
}
