//! Differences between two versions of an RDF graph ([`diff`]) and their serialisations:
//! RDF Patch, N-Triples with `+`/`-` prefixes, and SPARQL Update ([`DiffFormat`]).
//!
//! Ground statements (no blank node) are compared directly, by spelling, as sets. Statements
//! with blank nodes are compared per blank-node structure (see [`super::canon`]): a structure
//! whose canonical form also occurs in the other version is unchanged, however its blank
//! nodes are labelled; any other structure is removed or added as a whole. This keeps the
//! diff minimal: adding one structure never makes the others show up as removed and re-added,
//! as happens when two whole-graph canonical labellings are compared (adding a blank node
//! shifts every canonical label after it).
//!
//! The price of comparing whole structures: a one-literal edit inside a structure removes and
//! re-adds that structure (all its statements), since its blank nodes cannot be identified
//! across the versions otherwise.
//!
//! The RDF Patch and `+`/`-` outputs name removed blank nodes by the old graph's labels, as a
//! store holding the old capture knows them. SPARQL Update cannot name a stored blank node, so
//! each removed structure becomes a `DELETE … WHERE` pattern with one variable per blank node,
//! guarded so that it matches only a whole structure of exactly that shape (blank nodes,
//! pairwise distinct up to 16 of them, no statement beyond the pattern's); kept structures
//! isomorphic to a removed one also match, so they are deleted and inserted again. Limits:
//! the guards read the default graph as not being the union of the named graphs; a blank node
//! naming a graph is not guarded; and matching a structure with many interchangeable blank
//! nodes (a node with seven identical blank leaves) is a subgraph search engines do by
//! enumeration, which can take very long.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::str::FromStr;

use super::canon::{
    BlankStructures, Canonicalizer, DisjointSets, FormMethod, StructureForm, fingerprint,
};
use super::graph::{DEFAULT_GRAPH, Graph, TermId, TermSort, term_sort};

/// One statement of a diff, with its terms in N-Triples spelling.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DiffQuad {
    /// The subject.
    pub subject: String,
    /// The predicate.
    pub predicate: String,
    /// The object.
    pub object: String,
    /// The graph name, `None` for the default graph.
    pub graph: Option<String>,
}

impl DiffQuad {
    /// The terms in N-Quads order (the graph only when named).
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        [
            Some(self.subject.as_str()),
            Some(self.predicate.as_str()),
            Some(self.object.as_str()),
            self.graph.as_deref(),
        ]
        .into_iter()
        .flatten()
    }

    /// Appends the statement as an N-Quads line without its final ` .` and newline.
    fn push_terms(&self, out: &mut String) {
        for (position, term) in self.terms().enumerate() {
            if position > 0 {
                out.push(' ');
            }
            out.push_str(term);
        }
    }

    fn has_blank(&self) -> bool {
        self.terms().any(is_blank_spelling)
    }
}

impl fmt::Display for DiffQuad {
    /// The statement as an N-Quads line without the newline (`s p o [g] .`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = String::new();
        self.push_terms(&mut line);
        write!(f, "{line} .")
    }
}

/// What changed from one version of a graph to the next.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphDiff {
    /// Statements of the old version that are not in the new one, in the old document's
    /// order, spelled with the old graph's blank-node labels (as `ldwarc replay --format nt`
    /// prints the old capture).
    pub removed: Vec<DiffQuad>,
    /// Statements of the new version that are not in the old one, in the new document's order,
    /// with blank nodes relabelled `_:n0`, `_:n1`, … (a prefix chosen so that no label clashes
    /// with the old graph's).
    pub added: Vec<DiffQuad>,
    /// Statements in both versions (counted in the old one).
    pub unchanged: usize,
    /// True when some blank-node structure could only be compared approximately (RDFC-1.0
    /// refused it as toxic): two such structures colour refinement cannot tell apart were
    /// taken as equal.
    pub approximate: bool,
    /// Why the comparison was approximate.
    pub approximate_reason: Option<String>,
    /// For the SPARQL writer: the statements of kept blank-node structures isomorphic to a
    /// removed one (fresh labels). A SPARQL pattern cannot tell such twins apart, so the
    /// `DELETE` of the removed copy deletes them too and `INSERT DATA` puts them back.
    restore: Vec<DiffQuad>,
}

impl GraphDiff {
    /// True when the versions are isomorphic (up to the approximation, if any).
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.added.is_empty()
    }

    /// Number of statements removed.
    pub fn removed_count(&self) -> usize {
        self.removed.len()
    }

    /// Number of statements added.
    pub fn added_count(&self) -> usize {
        self.added.len()
    }

    /// Why the comparison was approximate, when it was (see [`GraphDiff::approximate`]).
    pub fn approximation(&self) -> Option<&str> {
        self.approximate_reason.as_deref()
    }

    /// Writes the diff in `format`.
    pub fn write(&self, format: DiffFormat, out: &mut dyn Write) -> io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 16, out);
        match format {
            DiffFormat::Patch => self.write_patch(&mut out)?,
            DiffFormat::NTriples => self.write_signed(&mut out)?,
            DiffFormat::Sparql => self.write_sparql(&mut out)?,
        }
        out.flush()
    }

    /// The diff as text in `format`.
    pub fn to_text(&self, format: DiffFormat) -> String {
        let mut out = Vec::new();
        // Writing to memory cannot fail.
        let _ = self.write(format, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// RDF Patch: one transaction, `D` rows (removals) before `A` rows (additions). Applying
    /// it to a store holding the old version with its labels gives the new version.
    fn write_patch(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(b"TX .\n")?;
        write_rows(out, "D ", &self.removed)?;
        write_rows(out, "A ", &self.added)?;
        out.write_all(b"TC .\n")
    }

    /// N-Triples (N-Quads for named graphs) lines prefixed `- ` (removed) or `+ ` (added).
    fn write_signed(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write_approximation_comment(out)?;
        write_rows(out, "- ", &self.removed)?;
        write_rows(out, "+ ", &self.added)
    }

    fn write_approximation_comment(&self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(reason) = &self.approximate_reason {
            let reason = reason.replace(['\n', '\r'], " ");
            writeln!(out, "# approximate diff: {reason}")?;
        }
        Ok(())
    }

    /// SPARQL 1.1 Update: `DELETE DATA` for removed ground statements; one guarded
    /// `DELETE … WHERE` per removed blank-node structure (SPARQL cannot name a stored blank
    /// node, so the structure is matched by shape); `INSERT DATA` for everything added.
    fn write_sparql(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write_approximation_comment(out)?;
        let mut operations = Operations::default();
        let (blank, ground): (Vec<&DiffQuad>, Vec<&DiffQuad>) =
            self.removed.iter().partition(|quad| quad.has_blank());
        if !ground.is_empty() {
            operations.start(out)?;
            write_data_block(out, "DELETE DATA", &ground)?;
        }
        for structure in group_structures(&blank) {
            operations.start(out)?;
            write_structure_delete(out, &structure)?;
        }
        if !self.added.is_empty() || !self.restore.is_empty() {
            operations.start(out)?;
            let added: Vec<&DiffQuad> = self.added.iter().chain(&self.restore).collect();
            write_data_block(out, "INSERT DATA", &added)?;
        }
        if operations.count == 0 {
            out.write_all(b"# no change\n")?;
        }
        Ok(())
    }
}

fn write_rows(out: &mut dyn Write, prefix: &str, quads: &[DiffQuad]) -> io::Result<()> {
    let mut line = String::new();
    for quad in quads {
        line.clear();
        line.push_str(prefix);
        quad.push_terms(&mut line);
        line.push_str(" .\n");
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Separates SPARQL Update operations with ` ;`.
#[derive(Default)]
struct Operations {
    count: usize,
}

impl Operations {
    fn start(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.count > 0 {
            out.write_all(b";\n")?;
        }
        self.count += 1;
        Ok(())
    }
}

/// `KEYWORD { triples GRAPH <g> { triples } … }`, the default graph first, then each named
/// graph in order of first appearance.
fn write_data_block(out: &mut dyn Write, keyword: &str, quads: &[&DiffQuad]) -> io::Result<()> {
    writeln!(out, "{keyword} {{")?;
    for (graph, members) in group_by_graph(quads) {
        let indent = if graph.is_some() { "    " } else { "  " };
        if let Some(graph) = graph {
            writeln!(out, "  GRAPH {graph} {{")?;
        }
        for quad in members {
            writeln!(
                out,
                "{indent}{} {} {} .",
                quad.subject, quad.predicate, quad.object
            )?;
        }
        if graph.is_some() {
            out.write_all(b"  }\n")?;
        }
    }
    out.write_all(b"}\n")
}

fn group_by_graph<'q>(quads: &[&'q DiffQuad]) -> Vec<(Option<&'q str>, Vec<&'q DiffQuad>)> {
    let mut groups: Vec<(Option<&str>, Vec<&DiffQuad>)> = vec![(None, Vec::new())];
    let mut index_of: HashMap<&str, usize> = HashMap::new();
    for &quad in quads {
        let slot = match quad.graph.as_deref() {
            None => 0,
            Some(graph) => *index_of.entry(graph).or_insert_with(|| {
                groups.push((Some(graph), Vec::new()));
                groups.len() - 1
            }),
        };
        groups[slot].1.push(quad);
    }
    groups.retain(|(_, members)| !members.is_empty());
    groups
}

/// Splits removed statements with blank nodes into their structures (connected through
/// shared labels), each in document order.
fn group_structures<'q>(quads: &[&'q DiffQuad]) -> Vec<Vec<&'q DiffQuad>> {
    let mut sets = DisjointSets::default();
    let mut node_of: HashMap<&str, u32> = HashMap::new();
    let mut first_node = Vec::with_capacity(quads.len());
    for quad in quads {
        let mut first = None;
        for label in quad.terms().filter(|term| is_blank_spelling(term)) {
            let node = *node_of.entry(label).or_insert_with(|| sets.add());
            match first {
                None => first = Some(node),
                Some(first) => sets.union(first, node),
            }
        }
        first_node.push(first.unwrap_or(0));
    }
    let mut group_of_root: HashMap<u32, usize> = HashMap::new();
    let mut groups: Vec<Vec<&DiffQuad>> = Vec::new();
    for (quad, node) in quads.iter().zip(first_node) {
        let root = sets.find(node);
        let group = *group_of_root.entry(root).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(quad);
    }
    groups
}

/// Above this many blank nodes in one removed structure, the SPARQL pattern does not demand
/// that they match distinct nodes (the guard is quadratic).
const MAX_DISTINCTNESS_GUARD: usize = 16;

/// A removed blank-node structure as `DELETE { P } WHERE { P guards }`, blank nodes becoming
/// variables `?v0`, `?v1`, …. The guards make the pattern match only a whole structure of the
/// same shape: each variable is a blank node, variables are distinct (up to
/// [`MAX_DISTINCTNESS_GUARD`] of them), and a matched node has no statement beyond the
/// pattern's (so a kept structure that merely contains this shape is left alone).
fn write_structure_delete(out: &mut dyn Write, quads: &[&DiffQuad]) -> io::Result<()> {
    let mut variables: HashMap<&str, String> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for label in quads
        .iter()
        .flat_map(|q| q.terms())
        .filter(|t| is_blank_spelling(t))
    {
        variables.entry(label).or_insert_with(|| {
            order.push(label);
            format!("?v{}", order.len() - 1)
        });
    }
    let term = |spelling: &str| -> String {
        variables
            .get(spelling)
            .cloned()
            .unwrap_or_else(|| spelling.to_string())
    };
    let mut pattern = String::new();
    for quad in quads {
        let triple = format!(
            "{} {} {} .",
            term(&quad.subject),
            term(&quad.predicate),
            term(&quad.object)
        );
        match &quad.graph {
            Some(graph) => pattern.push_str(&format!("  GRAPH {} {{ {triple} }}\n", term(graph))),
            None => pattern.push_str(&format!("  {triple}\n")),
        }
    }
    write!(out, "DELETE {{\n{pattern}}}\nWHERE {{\n{pattern}")?;
    let names: Vec<&String> = order
        .iter()
        .filter_map(|label| variables.get(label))
        .collect();
    let blank_tests: Vec<String> = names.iter().map(|v| format!("isBlank({v})")).collect();
    writeln!(out, "  FILTER ({})", blank_tests.join(" && "))?;
    if names.len() > 1 && names.len() <= MAX_DISTINCTNESS_GUARD {
        let mut tests = Vec::new();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                tests.push(format!("!sameTerm({a}, {b})"));
            }
        }
        writeln!(out, "  FILTER ({})", tests.join(" && "))?;
    }
    for label in &order {
        write_neighbourhood_guards(out, quads, label, &term)?;
    }
    out.write_all(b"}\n")
}

/// `FILTER NOT EXISTS` guards saying the node bound to `label`'s variable has no statement
/// (as subject or object, in the default graph or a named one) other than the pattern's.
fn write_neighbourhood_guards(
    out: &mut dyn Write,
    quads: &[&DiffQuad],
    label: &str,
    term: &dyn Fn(&str) -> String,
) -> io::Result<()> {
    let variable = term(label);
    for named in [false, true] {
        let in_scope: Vec<&&DiffQuad> = quads
            .iter()
            .filter(|quad| quad.graph.is_some() == named)
            .collect();
        if in_scope.is_empty() {
            continue;
        }
        for as_subject in [true, false] {
            let alternatives: Vec<String> = in_scope
                .iter()
                .filter(|quad| {
                    let end = if as_subject {
                        &quad.subject
                    } else {
                        &quad.object
                    };
                    end == label
                })
                .map(|quad| {
                    let mut tests = vec![format!("sameTerm(?xp, {})", term(&quad.predicate))];
                    let other = if as_subject {
                        &quad.object
                    } else {
                        &quad.subject
                    };
                    let other_var = if as_subject { "?xo" } else { "?xs" };
                    tests.push(format!("sameTerm({other_var}, {})", term(other)));
                    if let Some(graph) = &quad.graph {
                        tests.push(format!("sameTerm(?xg, {})", term(graph)));
                    }
                    format!("({})", tests.join(" && "))
                })
                .collect();
            let triple = if as_subject {
                format!("{variable} ?xp ?xo")
            } else {
                format!("?xs ?xp {variable}")
            };
            let scoped = if named {
                format!("GRAPH ?xg {{ {triple} }}")
            } else {
                format!("{triple} .")
            };
            if alternatives.is_empty() {
                writeln!(out, "  FILTER NOT EXISTS {{ {scoped} }}")?;
            } else {
                writeln!(
                    out,
                    "  FILTER NOT EXISTS {{ {scoped} FILTER (!({})) }}",
                    alternatives.join(" || ")
                )?;
            }
        }
    }
    Ok(())
}

fn is_blank_spelling(spelling: &str) -> bool {
    term_sort(spelling) == TermSort::Blank
}

/// How to write a [`GraphDiff`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// RDF Patch (`TX .`, `D …`, `A …`, `TC .`), <https://afs.github.io/rdf-delta/rdf-patch.html>.
    Patch,
    /// N-Triples/N-Quads lines prefixed with `- ` or `+ `.
    NTriples,
    /// SPARQL 1.1 Update (`DELETE DATA`, `DELETE … WHERE`, `INSERT DATA`).
    Sparql,
}

impl DiffFormat {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DiffFormat::Patch => "patch",
            DiffFormat::NTriples => "nt",
            DiffFormat::Sparql => "sparql",
        }
    }
}

impl fmt::Display for DiffFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A diff format name that is not one of `patch`, `nt`, `sparql`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown diff format {0:?} (expected patch, nt or sparql)")]
pub struct UnknownDiffFormat(pub String);

impl FromStr for DiffFormat {
    type Err = UnknownDiffFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.to_ascii_lowercase().as_str() {
            "patch" | "rdf-patch" | "rdfpatch" => Ok(DiffFormat::Patch),
            "nt" | "ntriples" | "n-triples" => Ok(DiffFormat::NTriples),
            "sparql" | "sparql-update" | "ru" => Ok(DiffFormat::Sparql),
            _ => Err(UnknownDiffFormat(name.to_string())),
        }
    }
}

/// Above this many statements in the two versions together, the two versions are worked on
/// in two threads.
const PARALLEL_MIN_QUADS: usize = 20_000;

/// Runs `a` and `b`, in parallel when `parallel`.
fn both<A: Send, B: Send>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if !parallel {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let b = scope.spawn(b);
        let a = a();
        let b = b
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

/// The difference from `old` to `new` (see the module documentation for what "unchanged"
/// means for blank nodes).
pub fn diff(old: &Graph, new: &Graph) -> GraphDiff {
    let parallel = old.len() + new.len() >= PARALLEL_MIN_QUADS;
    let (mut old_side, mut new_side) = both(parallel, || Side::analyse(old), || Side::analyse(new));
    mark_shared_ground(&mut old_side, &mut new_side, parallel);
    let (old_kept, new_kept) = match_structures(&old_side.forms, &new_side.forms);
    let removed = old_side.changed(&old_kept, |id| old.term(id).to_string());
    let mut labels = FreshLabels::new(old);
    let added = new_side.changed(&new_kept, |id| {
        let spelling = new.term(id);
        if term_sort(spelling) == TermSort::Blank {
            labels.label(id)
        } else {
            spelling.to_string()
        }
    });
    let approximate_reason = approximation(&old_side.forms, &new_side.forms);
    GraphDiff {
        unchanged: old.len() - removed.len(),
        removed,
        added,
        approximate: approximate_reason.is_some(),
        approximate_reason,
        restore: old_side.twins_of_removed(&old_kept),
    }
}

/// One version's part in a diff.
struct Side<'g> {
    graph: &'g Graph,
    structures: BlankStructures,
    forms: Vec<StructureForm>,
    /// Every term's spelling fingerprint with its id, sorted (to match terms across versions).
    fingerprints: Vec<(u128, TermId)>,
    /// By statement index: true for a ground statement the other version also has.
    ground_shared: Vec<bool>,
}

impl<'g> Side<'g> {
    fn analyse(graph: &'g Graph) -> Self {
        let structures = BlankStructures::of(graph);
        let mut canonicalizer = Canonicalizer::new(graph);
        let all = graph.quads();
        let mut members = Vec::new();
        let forms = (0..structures.len())
            .map(|structure| {
                members.clear();
                members.extend(
                    structures
                        .members(structure)
                        .iter()
                        .map(|&index| all[index as usize]),
                );
                canonicalizer.form(&members)
            })
            .collect();
        let mut fingerprints: Vec<(u128, TermId)> = (0..graph.term_count() as TermId)
            .map(|id| (fingerprint(graph.term(id).as_bytes()), id))
            .collect();
        fingerprints.sort_unstable();
        Self {
            graph,
            structures,
            forms,
            fingerprints,
            ground_shared: vec![false; all.len()],
        }
    }

    /// The ground statements as packed term ids (translated by `map`, skipping statements
    /// with a term `map` does not know), with their indices, sorted.
    fn ground_keys(&self, map: impl Fn(TermId) -> Option<TermId>) -> Vec<(u128, u32)> {
        let mut keys: Vec<(u128, u32)> = self
            .graph
            .quads()
            .iter()
            .enumerate()
            .filter(|(index, _)| self.structures.structure_of(*index).is_none())
            .filter_map(|(index, quad)| {
                let key = (u128::from(map(quad.subject)?) << 96)
                    | (u128::from(map(quad.predicate)?) << 64)
                    | (u128::from(map(quad.object)?) << 32)
                    | u128::from(map(quad.graph)?);
                Some((key, index as u32))
            })
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The statements not in the other version, in document order, spelled by `spell`.
    fn changed(&self, kept: &[bool], mut spell: impl FnMut(TermId) -> String) -> Vec<DiffQuad> {
        let mut changed = Vec::new();
        for (index, quad) in self.graph.quads().iter().enumerate() {
            let is_kept = match self.structures.structure_of(index) {
                Some(structure) => kept[structure],
                None => self.ground_shared[index],
            };
            if !is_kept {
                changed.push(DiffQuad {
                    subject: spell(quad.subject),
                    predicate: spell(quad.predicate),
                    object: spell(quad.object),
                    graph: (quad.graph != DEFAULT_GRAPH).then(|| spell(quad.graph)),
                });
            }
        }
        changed
    }
}

impl Side<'_> {
    /// The statements of kept structures whose form equals a removed structure's, with blank
    /// nodes labelled `_:k0`, `_:k1`, … (see [`GraphDiff::restore`]).
    fn twins_of_removed(&self, kept: &[bool]) -> Vec<DiffQuad> {
        let removed: HashSet<&str> = self
            .forms
            .iter()
            .zip(kept)
            .filter(|(_, kept)| !**kept)
            .map(|(form, _)| form.text.as_str())
            .collect();
        let mut labels: HashMap<TermId, String> = HashMap::new();
        let mut twins = Vec::new();
        let all = self.graph.quads();
        for (structure, form) in self.forms.iter().enumerate() {
            if !kept[structure] || !removed.contains(form.text.as_str()) {
                continue;
            }
            for &index in self.structures.members(structure) {
                let quad = all[index as usize];
                let mut spell = |id: TermId| {
                    if self.graph.is_blank(id) {
                        let next = labels.len();
                        labels
                            .entry(id)
                            .or_insert_with(|| format!("_:k{next}"))
                            .clone()
                    } else {
                        self.graph.term(id).to_string()
                    }
                };
                twins.push(DiffQuad {
                    subject: spell(quad.subject),
                    predicate: spell(quad.predicate),
                    object: spell(quad.object),
                    graph: (quad.graph != DEFAULT_GRAPH).then(|| spell(quad.graph)),
                });
            }
        }
        twins
    }
}

/// Marks the ground statements both versions have. Terms are matched across the versions by
/// spelling (fingerprints sorted and merged, each match confirmed by comparing spellings);
/// statements then by their translated term ids (sorted and merged). Sorting keeps memory
/// access sequential, which matters more than hashing at a million statements.
fn mark_shared_ground(old: &mut Side<'_>, new: &mut Side<'_>, parallel: bool) {
    let map = term_map(old, new);
    let translate = |id: TermId| {
        if id == DEFAULT_GRAPH {
            return Some(DEFAULT_GRAPH);
        }
        let mapped = map[id as usize];
        (mapped != UNMAPPED).then_some(mapped)
    };
    let (old_keys, new_keys) = both(
        parallel,
        || old.ground_keys(translate),
        || new.ground_keys(Some),
    );
    let (mut i, mut j) = (0, 0);
    while i < old_keys.len() && j < new_keys.len() {
        match old_keys[i].0.cmp(&new_keys[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                old.ground_shared[old_keys[i].1 as usize] = true;
                new.ground_shared[new_keys[j].1 as usize] = true;
                i += 1;
                j += 1;
            }
        }
    }
}

const UNMAPPED: TermId = DEFAULT_GRAPH;

/// By old term id: the new graph's id for the same spelling, or [`UNMAPPED`].
fn term_map(old: &Side<'_>, new: &Side<'_>) -> Vec<TermId> {
    let mut map = vec![UNMAPPED; old.graph.term_count()];
    let (a, b) = (&old.fingerprints, &new.fingerprints);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                // A run of equal fingerprints (a collision, in practice never): match by
                // spelling within the run.
                let fingerprint = a[i].0;
                let run_end = j + b[j..].iter().take_while(|t| t.0 == fingerprint).count();
                while i < a.len() && a[i].0 == fingerprint {
                    let spelling = old.graph.term(a[i].1);
                    if let Some(&(_, id)) = b[j..run_end]
                        .iter()
                        .find(|&&(_, id)| new.graph.term(id) == spelling)
                    {
                        map[a[i].1 as usize] = id;
                    }
                    i += 1;
                }
                j = run_end;
            }
        }
    }
    map
}

/// Pairs structures with equal canonical forms (as multisets: two equal structures in the
/// old version and one in the new leave one removed); returns which are kept on each side.
fn match_structures(old: &[StructureForm], new: &[StructureForm]) -> (Vec<bool>, Vec<bool>) {
    let mut unmatched: HashMap<&str, Vec<usize>> = HashMap::with_capacity(old.len());
    // Pushed in reverse so that popping pairs the earliest old copy first.
    for (index, form) in old.iter().enumerate().rev() {
        unmatched.entry(form.text.as_str()).or_default().push(index);
    }
    let mut old_kept = vec![false; old.len()];
    let mut new_kept = vec![false; new.len()];
    for (index, form) in new.iter().enumerate() {
        if let Some(old_index) = unmatched
            .get_mut(form.text.as_str())
            .and_then(|candidates| candidates.pop())
        {
            old_kept[old_index] = true;
            new_kept[index] = true;
        }
    }
    (old_kept, new_kept)
}

fn approximation(old: &[StructureForm], new: &[StructureForm]) -> Option<String> {
    let approximate: Vec<&StructureForm> = old
        .iter()
        .chain(new)
        .filter(|form| form.method == FormMethod::Approximate)
        .collect();
    let first = approximate.first()?;
    Some(format!(
        "{} blank-node structure(s) compared approximately, e.g. {}",
        approximate.len(),
        first.note.as_deref().unwrap_or("a toxic structure")
    ))
}

/// Issues `_:n0`, `_:n1`, … for the new version's blank nodes, with a prefix (`n`, `nn`, …)
/// no blank-node label of the old version starts with followed by digits.
struct FreshLabels {
    prefix: String,
    issued: HashMap<TermId, String>,
}

impl FreshLabels {
    fn new(old: &Graph) -> Self {
        let mut prefix = String::from("n");
        while (0..old.term_count()).any(|id| clashes(old.term(id as TermId), &prefix)) {
            prefix.push('n');
        }
        Self {
            prefix,
            issued: HashMap::new(),
        }
    }

    fn label(&mut self, id: TermId) -> String {
        let next = self.issued.len();
        self.issued
            .entry(id)
            .or_insert_with(|| format!("_:{}{next}", self.prefix))
            .clone()
    }
}

fn clashes(spelling: &str, prefix: &str) -> bool {
    spelling
        .strip_prefix("_:")
        .and_then(|label| label.strip_prefix(prefix))
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoContexts, Syntax, parse_graph};

    fn parse(body: &str, syntax: Syntax) -> Graph {
        parse_graph(body.as_bytes(), &[syntax], "http://e.org/", &NoContexts)
            .unwrap()
            .graph
    }

    fn turtle(body: &str) -> Graph {
        parse(
            &format!("@prefix e: <http://e.org/> .\n{body}"),
            Syntax::Turtle,
        )
    }

    /// Applies a patch to `old` at the line level (labels as `old` spells them) and returns
    /// the resulting N-Quads text.
    fn apply_patch(old: &Graph, patch: &str) -> String {
        let mut lines: Vec<String> = old.to_nquads().lines().map(str::to_string).collect();
        let mut present: HashSet<String> = lines.iter().cloned().collect();
        for row in patch.lines() {
            if let Some(quad) = row.strip_prefix("D ") {
                assert!(present.remove(quad), "D row not in the old graph: {quad}");
                lines.retain(|line| line != quad);
            } else if let Some(quad) = row.strip_prefix("A ") {
                assert!(
                    present.insert(quad.to_string()),
                    "A row already there: {quad}"
                );
                lines.push(quad.to_string());
            } else {
                assert!(row == "TX ." || row == "TC .", "unexpected row {row}");
            }
        }
        lines.iter().map(|line| format!("{line}\n")).collect()
    }

    fn assert_isomorphic(a: &Graph, b: &Graph) {
        let d = diff(a, b);
        assert!(
            d.is_empty(),
            "not isomorphic:\n{}",
            d.to_text(DiffFormat::NTriples)
        );
    }

    const OLD: &str = "e:s e:p \"1\" ; e:q [ e:a \"x\" ; e:b ( 1 2 ) ] .
e:t e:r [ e:a \"y\" ] , [ e:a \"z\" ; e:c [ e:d e:o ] ] .
e:u e:p \"gone\" .";

    #[test]
    fn relabelled_reordered_version_has_no_change() {
        let old = turtle(OLD);
        let reordered = turtle(
            "e:u e:p \"gone\" .
e:t e:r [ e:a \"z\" ; e:c [ e:d e:o ] ] , [ e:a \"y\" ] .
e:s e:q [ e:b ( 1 2 ) ; e:a \"x\" ] ; e:p \"1\" .",
        );
        let d = diff(&old, &reordered);
        assert!(d.is_empty(), "{}", d.to_text(DiffFormat::NTriples));
        assert_eq!(d.unchanged, old.len());
        assert!(!d.approximate);
    }

    #[test]
    fn adding_one_blank_node_only_adds_that_structure() {
        let old = turtle(OLD);
        let new = turtle(&format!("e:v e:p [ e:a \"new\" ] .\n{OLD}"));
        let d = diff(&old, &new);
        assert!(d.removed.is_empty(), "{}", d.to_text(DiffFormat::NTriples));
        assert_eq!(
            d.added.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "<http://e.org/v> <http://e.org/p> _:n0 .",
                "_:n0 <http://e.org/a> \"new\" ."
            ]
        );
        assert_eq!(d.unchanged, old.len());
    }

    #[test]
    fn changes_are_ground_statements_and_whole_structures() {
        let old = turtle(OLD);
        let new = turtle(
            "e:s e:p \"2\" ; e:q [ e:a \"x\" ; e:b ( 1 2 ) ] .
e:t e:r [ e:a \"y\" ] , [ e:a \"z\" ; e:c [ e:d e:other ] ] .",
        );
        let d = diff(&old, &new);
        let removed: Vec<String> = d.removed.iter().map(ToString::to_string).collect();
        // e:p "1" and e:u's statement; the edited structure (4 statements, old labels).
        assert_eq!(removed.len(), 6, "{removed:#?}");
        assert!(removed.contains(&"<http://e.org/s> <http://e.org/p> \"1\" .".to_string()));
        // Removed blank-node statements keep the old graph's labels.
        let old_line = old
            .to_nquads()
            .lines()
            .find(|line| line.ends_with("<http://e.org/d> <http://e.org/o> ."))
            .unwrap()
            .to_string();
        assert!(old_line.starts_with("_:b"));
        assert!(removed.contains(&old_line), "{removed:#?}");
        assert_eq!(d.added.len(), 5, "{:#?}", d.added);
        assert!(d.added.iter().all(|q| !q.subject.starts_with("_:b")));
        assert_eq!(d.unchanged + d.removed.len(), old.len());
    }

    #[test]
    fn patch_applied_to_old_gives_new() {
        let old = turtle(OLD);
        let new = turtle(
            "e:s e:p \"2\" ; e:q [ e:a \"x\" ; e:b ( 1 3 ) ] .
e:t e:r [ e:a \"y\" ] , [ e:a \"y\" ] , [ e:a \"z\" ; e:c [ e:d e:o ] ] .
e:w e:p [ e:c [ e:d e:o ] ] .",
        );
        let d = diff(&old, &new);
        let patch = d.to_text(DiffFormat::Patch);
        assert!(
            patch.starts_with("TX .\nD ") && patch.ends_with("TC .\n"),
            "{patch}"
        );
        let d_end = patch.rfind("\nD ").unwrap();
        assert!(patch.find("\nA ").unwrap() > d_end, "D rows come first");
        let patched = parse(&apply_patch(&old, &patch), Syntax::NQuads);
        assert_isomorphic(&patched, &new);
        assert_eq!(patched.len(), new.len());
    }

    #[test]
    fn duplicate_structures_are_a_multiset() {
        let old = turtle("e:s e:p [ e:a \"x\" ] , [ e:a \"x\" ; e:b \"1\" ] .");
        let two = parse(
            "<http://e.org/s> <http://e.org/p> _:a .\n_:a <http://e.org/a> \"x\" .\n\
             <http://e.org/s> <http://e.org/p> _:b .\n_:b <http://e.org/a> \"x\" .\n\
             <http://e.org/s> <http://e.org/p> _:c .\n_:c <http://e.org/a> \"x\" .\n\
             _:c <http://e.org/b> \"1\" .\n",
            Syntax::NQuads,
        );
        let d = diff(&old, &two);
        assert!(d.removed.is_empty());
        assert_eq!(d.added.len(), 2, "one more copy of the small structure");
        let back = diff(&two, &old);
        assert_eq!(back.removed.len(), 2);
        assert!(back.added.is_empty());
    }

    #[test]
    fn named_graphs_and_label_clashes() {
        let old = parse(
            "<http://e.org/s> <http://e.org/p> _:n0 <http://e.org/g> .\n\
             _:n0 <http://e.org/p> \"1\" <http://e.org/g> .\n",
            Syntax::NQuads,
        );
        let new = parse(
            "<http://e.org/s> <http://e.org/p> _:x <http://e.org/g> .\n\
             _:x <http://e.org/p> \"2\" <http://e.org/g> .\n",
            Syntax::NQuads,
        );
        let d = diff(&old, &new);
        assert_eq!(d.removed.len(), 2);
        assert_eq!(d.removed[0].graph.as_deref(), Some("<http://e.org/g>"));
        // parse_graph relabels to b0 anyway; a hand-built graph with _:n0 forces a new prefix.
        let mut clashing = Graph::new();
        clashing.insert_spelled("_:n0", "<http://e.org/p>", "\"1\"", None);
        let d = diff(&clashing, &new);
        assert!(
            d.added
                .iter()
                .all(|q| q.object != "_:n0" && q.subject != "_:n0")
        );
        assert!(d.added[0].object.starts_with("_:nn"), "{:?}", d.added);
    }

    #[test]
    fn toxic_structures_make_the_diff_approximate() {
        // Two linked hubs of eight identical leaves: beyond RDFC-1.0's permutation guard.
        let mut hub = String::from(
            "<http://e.org/s> <http://e.org/p> _:h0 .\n<http://e.org/s> <http://e.org/p> _:h1 .\n\
             _:h0 <http://e.org/link> _:h1 .\n_:h1 <http://e.org/link> _:h0 .\n",
        );
        for h in 0..2 {
            for i in 0..8 {
                hub.push_str(&format!(
                    "_:h{h} <http://e.org/q> _:l{h}x{i} .\n_:l{h}x{i} <http://e.org/v> \"v\" .\n"
                ));
            }
        }
        let old = parse(&hub, Syntax::NQuads);
        let new = parse(
            &format!("{hub}<http://e.org/s> <http://e.org/p> \"x\" .\n"),
            Syntax::NQuads,
        );
        let d = diff(&old, &new);
        assert!(d.approximate);
        assert!(d.approximate_reason.as_deref().unwrap().contains("toxic"));
        assert_eq!(d.added.len(), 1);
        assert!(d.removed.is_empty());
        assert!(
            d.to_text(DiffFormat::NTriples)
                .starts_with("# approximate diff: ")
        );
    }

    #[test]
    fn signed_ntriples_and_sparql_writers() {
        let old = turtle("e:s e:p \"1\" ; e:q [ e:a \"x\" ] .\ne:s e:p \"g\" .");
        let new = turtle("e:s e:p \"2\" ; e:q [ e:a \"y\" ] .\ne:s e:p \"g\" .");
        let d = diff(&old, &new);
        assert_eq!(
            d.to_text(DiffFormat::NTriples),
            "- <http://e.org/s> <http://e.org/p> \"1\" .\n\
             - <http://e.org/s> <http://e.org/q> _:b0 .\n\
             - _:b0 <http://e.org/a> \"x\" .\n\
             + <http://e.org/s> <http://e.org/p> \"2\" .\n\
             + <http://e.org/s> <http://e.org/q> _:n0 .\n\
             + _:n0 <http://e.org/a> \"y\" .\n"
        );
        let sparql = d.to_text(DiffFormat::Sparql);
        assert!(
            sparql.starts_with(
                "DELETE DATA {\n  <http://e.org/s> <http://e.org/p> \"1\" .\n}\n;\nDELETE {\n  \
                 <http://e.org/s> <http://e.org/q> ?v0 .\n  ?v0 <http://e.org/a> \"x\" .\n}\nWHERE {\n"
            ),
            "{sparql}"
        );
        assert!(sparql.contains("  FILTER (isBlank(?v0))\n"), "{sparql}");
        assert!(sparql.contains(
            "  FILTER NOT EXISTS { ?v0 ?xp ?xo . FILTER (!((sameTerm(?xp, <http://e.org/a>) && sameTerm(?xo, \"x\")))) }\n"
        ), "{sparql}");
        assert!(
            sparql.ends_with(
                ";\nINSERT DATA {\n  <http://e.org/s> <http://e.org/p> \"2\" .\n  \
             <http://e.org/s> <http://e.org/q> _:n0 .\n  _:n0 <http://e.org/a> \"y\" .\n}\n"
            ),
            "{sparql}"
        );
        assert_eq!(
            diff(&old, &old).to_text(DiffFormat::Sparql),
            "# no change\n"
        );
    }

    #[test]
    fn sparql_puts_back_kept_twins_of_a_removed_structure() {
        // Two equal structures, one removed: the DELETE pattern matches both, so the kept one
        // is inserted again.
        let old = turtle("e:s e:p [ e:a \"x\" ] , [ e:a \"x\" ] .");
        let new = turtle("e:s e:p [ e:a \"x\" ] .");
        let d = diff(&old, &new);
        assert_eq!(d.removed.len(), 2);
        assert!(
            d.to_text(DiffFormat::Patch)
                .lines()
                .all(|l| !l.contains("_:k"))
        );
        let sparql = d.to_text(DiffFormat::Sparql);
        assert!(
            sparql.ends_with(
                ";\nINSERT DATA {\n  <http://e.org/s> <http://e.org/p> _:k0 .\n  \
                 _:k0 <http://e.org/a> \"x\" .\n}\n"
            ),
            "{sparql}"
        );
    }

    #[test]
    fn format_names_parse() {
        assert_eq!("patch".parse::<DiffFormat>().unwrap(), DiffFormat::Patch);
        assert_eq!("NT".parse::<DiffFormat>().unwrap(), DiffFormat::NTriples);
        assert_eq!("sparql".parse::<DiffFormat>().unwrap(), DiffFormat::Sparql);
        let err = "ttl".parse::<DiffFormat>().unwrap_err();
        assert!(err.to_string().contains("patch, nt or sparql"));
        assert_eq!(DiffFormat::NTriples.to_string(), "nt");
    }

    #[test]
    fn large_versions_use_both_threads_and_agree() {
        let mut old = String::new();
        let mut new = String::new();
        for i in 0..12_000 {
            let line = format!(
                "<http://e.org/s{i}> <http://e.org/p> _:x{i} .\n_:x{i} <http://e.org/v> \"{i}\" .\n"
            );
            old.push_str(&line);
            if i % 1000 != 0 {
                new.push_str(&line.replace("_:x", "_:y"));
            }
        }
        let d = diff(
            &parse(&old, Syntax::NTriples),
            &parse(&new, Syntax::NTriples),
        );
        assert_eq!(d.removed.len(), 24);
        assert!(d.added.is_empty());
        assert_eq!(d.unchanged, 24_000 - 24);
    }
}
