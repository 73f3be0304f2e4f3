//! Canonical forms of RDF graphs, which tell a real change from a re-serialisation or a
//! blank-node relabelling: the whole-graph RDFC-1.0 hash behind `history`
//! ([`canonical_hash`]), and the canonical form of each blank-node structure behind diffs
//! ([`BlankStructures`], [`Canonicalizer`]).
//!
//! A *blank-node structure* is a connected component of the statements that mention a blank
//! node, two statements being connected when they share a blank node. Two graphs are
//! isomorphic exactly when their ground statements are equal and their structures are
//! pairwise isomorphic, so structures can be compared one by one: that is what keeps a diff
//! minimal when one structure changes.
//!
//! A structure's canonical form is its statements spelled with canonical blank-node labels,
//! sorted. The labels come from, in order:
//!
//! 1. **colour refinement** (1-dimensional Weisfeiler–Leman): every blank node starts with
//!    one colour; each round a node's new colour hashes its old colour with the sorted
//!    multiset of its statements, spelled with ground terms hashed by spelling and other
//!    blank nodes by their colour; rounds stop when the number of colours stops growing.
//!    Colours are isomorphism-invariant, so when all blank nodes end with distinct colours,
//!    labelling them `_:c0`, `_:c1`, … in colour order is an exact canonical labelling;
//! 2. otherwise (symmetric structures) **RDFC-1.0** by sophia on the structure alone, with its
//!    default toxic-graph guard, labels `_:c14n0`, …;
//! 3. when RDFC-1.0 gives up (a toxic structure), an **approximate** form: every blank node
//!    spelled by its colour. Isomorphic structures still get equal forms, but some
//!    non-isomorphic ones colour refinement cannot tell apart (regular structures) may too;
//!    such a form says so ([`FormMethod::Approximate`]).
//!
//! Colour hashes only decide which method applies and in which order labels are issued; the
//! forms compared are full text, so a hash collision can cost a fallback, never a wrong
//! "equal" in the exact methods.

use std::collections::HashSet;
use std::fmt::Write as _;

use data_encoding::HEXLOWER;
use sha2::{Digest, Sha256};
use sophia::api::quad::Spog;
use sophia::api::source::QuadSource;
use sophia::api::term::SimpleTerm;
use sophia::c14n::{C14nError, rdfc10};
use sophia::turtle::parser::nq;

use super::graph::{Graph, Quad, TermId};

/// How a [`GraphHash`] was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashMethod {
    /// SHA-256 of the RDFC-1.0 canonical N-Quads (the W3C standard hash).
    Rdfc10,
    /// RDFC-1.0 refused the graph (toxic or unsupported): SHA-256 of the sorted ground
    /// statements followed by the sorted canonical forms of its blank-node structures.
    StructureForms,
}

/// A graph's canonical hash: equal for isomorphic graphs, different otherwise (when `exact`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphHash {
    /// 64 lower-case hex digits of a SHA-256.
    pub hex: String,
    /// False when some blank-node structure only has an approximate form: isomorphic graphs
    /// still hash equal, but two non-isomorphic ones might too.
    pub exact: bool,
    /// What was hashed.
    pub method: HashMethod,
    /// Why RDFC-1.0 was not used, when it was not.
    pub note: Option<String>,
}

/// Why RDFC-1.0 could not canonicalise a graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("RDFC-1.0 cannot canonicalise this graph: {reason}")]
pub struct CanonError {
    /// The guard or limitation that stopped it (sophia's message).
    pub reason: String,
}

/// The RDFC-1.0 canonical N-Quads of a graph (SHA-256, sophia's default toxic-graph guard:
/// [`rdfc10::DEFAULT_DEPTH_FACTOR`], [`rdfc10::DEFAULT_PERMUTATION_LIMIT`]).
pub fn canonical_nquads(graph: &Graph) -> Result<String, CanonError> {
    if !graph.quads().iter().any(|quad| graph.has_blank(quad)) {
        // Without blank nodes the canonical form is the sorted lines (the spellings are
        // already those of canonical N-Quads); no need to round-trip through sophia.
        let lines = sorted_lines(graph, graph.quads());
        return Ok(lines.concat());
    }
    let dataset = sophia_dataset(&graph.to_nquads())?;
    let mut out = Vec::new();
    rdfc10::normalize(&dataset, &mut out).map_err(|err| CanonError {
        reason: c14n_reason(&err),
    })?;
    String::from_utf8(out).map_err(|err| CanonError {
        reason: format!("canonical N-Quads are not UTF-8: {err}"),
    })
}

/// The canonical hash of a whole graph: SHA-256 of its RDFC-1.0 canonical N-Quads; when
/// RDFC-1.0 refuses the graph, the hash of its structure forms instead (see [`HashMethod`]).
pub fn canonical_hash(graph: &Graph) -> GraphHash {
    match canonical_nquads(graph) {
        Ok(text) => GraphHash {
            hex: sha256_hex(text.as_bytes()),
            exact: true,
            method: HashMethod::Rdfc10,
            note: None,
        },
        Err(err) => structure_hash(graph, err.reason),
    }
}

fn structure_hash(graph: &Graph, why: String) -> GraphHash {
    let structures = BlankStructures::of(graph);
    let ground: Vec<Quad> = graph
        .quads()
        .iter()
        .filter(|quad| !graph.has_blank(quad))
        .copied()
        .collect();
    let mut canonicalizer = Canonicalizer::new(graph);
    let mut forms: Vec<StructureForm> = (0..structures.len())
        .map(|index| canonicalizer.form(&structures.quads(graph, index)))
        .collect();
    forms.sort_unstable_by(|a, b| a.text.cmp(&b.text));
    let mut hasher = Sha256::new();
    hasher.update(b"ground\n");
    for line in sorted_lines(graph, &ground) {
        hasher.update(line.as_bytes());
    }
    hasher.update(b"structures\n");
    for form in &forms {
        hasher.update(form.text.as_bytes());
        hasher.update(b"\n");
    }
    let exact = forms.iter().all(StructureForm::is_exact);
    GraphHash {
        hex: HEXLOWER.encode(&hasher.finalize()),
        exact,
        method: HashMethod::StructureForms,
        note: Some(format!("{why}; hashed blank-node structures one by one")),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    HEXLOWER.encode(&Sha256::digest(bytes))
}

fn sorted_lines(graph: &Graph, quads: &[Quad]) -> Vec<String> {
    let mut lines: Vec<String> = quads
        .iter()
        .map(|quad| {
            let mut line = String::new();
            graph.spell_quad(quad, None, "", &mut line);
            line
        })
        .collect();
    lines.sort_unstable();
    lines
}

type SophiaDataset = HashSet<Spog<SimpleTerm<'static>>>;

fn sophia_dataset(nquads: &str) -> Result<SophiaDataset, CanonError> {
    nq::parse_str(nquads)
        .collect_quads()
        .map_err(|err| CanonError {
            reason: format!("sophia cannot read the statements back: {err}"),
        })
}

fn c14n_reason<E: std::error::Error + Send + Sync + 'static>(err: &C14nError<E>) -> String {
    match err {
        C14nError::ToxicGraph(detail) => format!("toxic graph ({detail})"),
        C14nError::Unsupported(detail) => format!("unsupported ({detail})"),
        other => other.to_string(),
    }
}

/// Marks a quad that mentions no blank node in [`BlankStructures`].
const NO_STRUCTURE: u32 = u32::MAX;

/// The blank-node structures of a graph (connected components of its statements that mention
/// blank nodes), numbered by first appearance, each listing its statements in document order.
#[derive(Clone, Debug, Default)]
pub struct BlankStructures {
    of_quad: Vec<u32>,
    starts: Vec<u32>,
    members: Vec<u32>,
}

impl BlankStructures {
    /// Finds the structures of `graph`.
    pub fn of(graph: &Graph) -> Self {
        let quads = graph.quads();
        // One pass over the spellings (in interning order) rather than a lookup per slot.
        let blank: Vec<bool> = (0..graph.term_count())
            .map(|id| graph.term(id as TermId).starts_with("_:"))
            .collect();
        let mut sets = DisjointSets::default();
        let mut node_of_term = vec![u32::MAX; graph.term_count()];
        let mut first_node = vec![u32::MAX; quads.len()];
        for (index, quad) in quads.iter().enumerate() {
            for id in quad.terms().filter(|&id| blank[id as usize]) {
                let node = &mut node_of_term[id as usize];
                if *node == u32::MAX {
                    *node = sets.add();
                }
                if first_node[index] == u32::MAX {
                    first_node[index] = *node;
                } else {
                    sets.union(first_node[index], *node);
                }
            }
        }
        let mut number_of_root = vec![u32::MAX; sets.len()];
        let mut count = 0u32;
        let of_quad: Vec<u32> = first_node
            .iter()
            .map(|&node| {
                if node == u32::MAX {
                    return NO_STRUCTURE;
                }
                let number = &mut number_of_root[sets.find(node) as usize];
                if *number == u32::MAX {
                    *number = count;
                    count += 1;
                }
                *number
            })
            .collect();
        let (starts, members) = group_by_number(&of_quad, count as usize);
        Self {
            of_quad,
            starts,
            members,
        }
    }

    /// Number of structures.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when the graph has no blank node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The structure a statement (by its index in [`Graph::quads`]) belongs to, if it mentions
    /// a blank node.
    pub fn structure_of(&self, quad_index: usize) -> Option<usize> {
        match self.of_quad.get(quad_index) {
            Some(&number) if number != NO_STRUCTURE => Some(number as usize),
            _ => None,
        }
    }

    /// The indices (in [`Graph::quads`]) of a structure's statements, in document order.
    pub fn members(&self, structure: usize) -> &[u32] {
        let start = self.starts[structure] as usize;
        let end = self.starts[structure + 1] as usize;
        &self.members[start..end]
    }

    /// A structure's statements, in document order.
    pub fn quads(&self, graph: &Graph, structure: usize) -> Vec<Quad> {
        let all = graph.quads();
        self.members(structure)
            .iter()
            .map(|&index| all[index as usize])
            .collect()
    }
}

/// Groups item indices by their number (a counting sort), skipping [`NO_STRUCTURE`].
fn group_by_number(numbers: &[u32], count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; count + 1];
    for &number in numbers.iter().filter(|&&n| n != NO_STRUCTURE) {
        starts[number as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut members = vec![0u32; starts[count] as usize];
    for (index, &number) in numbers.iter().enumerate() {
        if number != NO_STRUCTURE {
            members[next[number as usize] as usize] = index as u32;
            next[number as usize] += 1;
        }
    }
    (starts, members)
}

/// Union–find with path halving and union by size.
#[derive(Default)]
pub(crate) struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    pub(crate) fn add(&mut self) -> u32 {
        let node = self.parent.len() as u32;
        self.parent.push(node);
        self.size.push(1);
        node
    }

    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    pub(crate) fn find(&mut self, mut node: u32) -> u32 {
        while self.parent[node as usize] != node {
            let grandparent = self.parent[self.parent[node as usize] as usize];
            self.parent[node as usize] = grandparent;
            node = grandparent;
        }
        node
    }

    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
    }
}

/// Which labelling produced a [`StructureForm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormMethod {
    /// Colour refinement gave every blank node its own colour (exact).
    Refinement,
    /// RDFC-1.0 on the structure alone (exact).
    Rdfc10,
    /// Blank nodes spelled by colour after RDFC-1.0 refused the structure (approximate).
    Approximate,
}

/// The canonical form of one blank-node structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructureForm {
    /// Its statements as N-Quads lines with canonical blank-node labels, sorted.
    pub text: String,
    /// How the labels were chosen.
    pub method: FormMethod,
    /// Why RDFC-1.0 refused the structure, for [`FormMethod::Approximate`].
    pub note: Option<String>,
}

impl StructureForm {
    /// Whether equal forms imply isomorphic structures.
    pub fn is_exact(&self) -> bool {
        self.method != FormMethod::Approximate
    }
}

/// Computes canonical forms of blank-node structures of one graph, reusing its buffers
/// between structures.
pub struct Canonicalizer<'g> {
    graph: &'g Graph,
    /// By term id: the term's index among the current structure's blank nodes.
    local_of: Vec<u32>,
    /// By term id: the hash of a ground term's spelling (0 = not computed yet).
    ground_hash: Vec<u64>,
    nodes: Vec<TermId>,
    slots: Vec<[Slot; 4]>,
    incidence_starts: Vec<u32>,
    incidence: Vec<u32>,
    colours: Vec<u64>,
    next: Vec<u64>,
    signatures: Vec<u64>,
    scratch: Vec<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Absent,
    Ground(u64),
    Blank(u32),
}

const UNSET: u32 = u32::MAX;

impl<'g> Canonicalizer<'g> {
    /// A canonicalizer for structures of `graph`.
    pub fn new(graph: &'g Graph) -> Self {
        Self {
            graph,
            local_of: vec![UNSET; graph.term_count()],
            ground_hash: vec![0; graph.term_count()],
            nodes: Vec::new(),
            slots: Vec::new(),
            incidence_starts: Vec::new(),
            incidence: Vec::new(),
            colours: Vec::new(),
            next: Vec::new(),
            signatures: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The canonical form of a set of statements of the graph (normally one structure; any
    /// set works, ground statements included).
    pub fn form(&mut self, quads: &[Quad]) -> StructureForm {
        self.load(quads);
        let classes = self.refine();
        let form = if classes == self.nodes.len() {
            self.refined_form(quads)
        } else {
            match rdfc_labels(self.graph, quads, &self.nodes, &self.local_of) {
                Ok(labels) => StructureForm {
                    text: spell_sorted(self.graph, quads, |id, out| {
                        out.push_str("_:");
                        out.push_str(&labels[self.local_of[id as usize] as usize]);
                    }),
                    method: FormMethod::Rdfc10,
                    note: None,
                },
                Err(err) => self.approximate_form(quads, err.reason),
            }
        };
        self.unload();
        form
    }

    fn refined_form(&self, quads: &[Quad]) -> StructureForm {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_unstable_by_key(|&node| self.colours[node as usize]);
        let mut rank = vec![0u32; order.len()];
        for (position, &node) in order.iter().enumerate() {
            rank[node as usize] = position as u32;
        }
        let text = spell_sorted(self.graph, quads, |id, out| {
            let _ = write!(out, "_:c{}", rank[self.local_of[id as usize] as usize]);
        });
        StructureForm {
            text,
            method: FormMethod::Refinement,
            note: None,
        }
    }

    fn approximate_form(&self, quads: &[Quad], why: String) -> StructureForm {
        let text = spell_sorted(self.graph, quads, |id, out| {
            let colour = self.colours[self.local_of[id as usize] as usize];
            let _ = write!(out, "_:x{colour:016x}");
        });
        StructureForm {
            text,
            method: FormMethod::Approximate,
            note: Some(format!(
                "a blank-node structure of {} statements: {why}; compared by colour refinement",
                quads.len()
            )),
        }
    }

    /// Builds the local view of a structure: its blank nodes, statement slots and, per
    /// blank node, the statements mentioning it.
    fn load(&mut self, quads: &[Quad]) {
        let graph = self.graph;
        self.nodes.clear();
        self.slots.clear();
        for quad in quads {
            let mut slots = [Slot::Absent; 4];
            for (slot, id) in slots.iter_mut().zip(quad.terms()) {
                *slot = if graph.is_blank(id) {
                    let local = &mut self.local_of[id as usize];
                    if *local == UNSET {
                        *local = self.nodes.len() as u32;
                        self.nodes.push(id);
                    }
                    Slot::Blank(*local)
                } else {
                    let hash = &mut self.ground_hash[id as usize];
                    if *hash == 0 {
                        *hash = hash_bytes(graph.term(id).as_bytes()) | 1;
                    }
                    Slot::Ground(*hash)
                };
            }
            self.slots.push(slots);
        }
        self.build_incidence();
    }

    fn build_incidence(&mut self) {
        let n = self.nodes.len();
        self.incidence_starts.clear();
        self.incidence_starts.resize(n + 1, 0);
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(self.slots.len() * 2);
        for (index, slots) in self.slots.iter().enumerate() {
            for (position, slot) in slots.iter().enumerate() {
                // A statement mentioning a node twice counts once for it.
                if let Slot::Blank(node) = *slot
                    && !slots[..position].contains(slot)
                {
                    pairs.push((node, index as u32));
                    self.incidence_starts[node as usize + 1] += 1;
                }
            }
        }
        for i in 1..=n {
            self.incidence_starts[i] += self.incidence_starts[i - 1];
        }
        let mut next = self.incidence_starts.clone();
        self.incidence.clear();
        self.incidence.resize(pairs.len(), 0);
        for (node, index) in pairs {
            self.incidence[next[node as usize] as usize] = index;
            next[node as usize] += 1;
        }
    }

    fn unload(&mut self) {
        for &id in &self.nodes {
            self.local_of[id as usize] = UNSET;
        }
    }

    /// Colour refinement to a stable partition (or a discrete one); returns the number of
    /// distinct colours.
    fn refine(&mut self) -> usize {
        let n = self.nodes.len();
        self.colours.clear();
        self.colours.resize(n, 0);
        let mut classes = 1;
        loop {
            self.refine_round();
            std::mem::swap(&mut self.colours, &mut self.next);
            let now = count_distinct(&self.colours, &mut self.scratch);
            if now >= n || now <= classes {
                return now;
            }
            classes = now;
        }
    }

    fn refine_round(&mut self) {
        let Self {
            colours,
            next,
            slots,
            incidence_starts,
            incidence,
            signatures,
            ..
        } = self;
        next.clear();
        for node in 0..colours.len() {
            signatures.clear();
            let start = incidence_starts[node] as usize;
            let end = incidence_starts[node + 1] as usize;
            for &index in &incidence[start..end] {
                let mut hash = QUAD_SEED;
                for slot in &slots[index as usize] {
                    let part = match *slot {
                        Slot::Absent => ABSENT,
                        Slot::Ground(hash) => hash,
                        Slot::Blank(other) if other as usize == node => SELF,
                        Slot::Blank(other) => mix(colours[other as usize], BLANK),
                    };
                    hash = mix(hash, part);
                }
                signatures.push(hash);
            }
            signatures.sort_unstable();
            let mut colour = mix(colours[node], signatures.len() as u64);
            for &signature in signatures.iter() {
                colour = mix(colour, signature);
            }
            next.push(colour);
        }
    }
}

fn count_distinct(values: &[u64], scratch: &mut Vec<u64>) -> usize {
    scratch.clear();
    scratch.extend_from_slice(values);
    scratch.sort_unstable();
    scratch.dedup();
    scratch.len()
}

/// Spells statements as N-Quads lines with `label` writing each blank node, sorted and joined.
fn spell_sorted(
    graph: &Graph,
    quads: &[Quad],
    mut label: impl FnMut(TermId, &mut String),
) -> String {
    let mut buffer = String::new();
    let mut ranges = Vec::with_capacity(quads.len());
    for quad in quads {
        let start = buffer.len();
        push_line(graph, quad, &mut label, &mut buffer);
        ranges.push(start..buffer.len());
    }
    ranges.sort_unstable_by(|a, b| buffer[a.clone()].cmp(&buffer[b.clone()]));
    let mut text = String::with_capacity(buffer.len());
    for range in ranges {
        text.push_str(&buffer[range]);
    }
    text
}

/// Spells statements as N-Quads lines with `label` writing each blank node, in order.
fn spell_lines(
    graph: &Graph,
    quads: &[Quad],
    mut label: impl FnMut(TermId, &mut String),
) -> String {
    let mut text = String::new();
    for quad in quads {
        push_line(graph, quad, &mut label, &mut text);
    }
    text
}

fn push_line(
    graph: &Graph,
    quad: &Quad,
    label: &mut impl FnMut(TermId, &mut String),
    out: &mut String,
) {
    for id in quad.terms() {
        if graph.is_blank(id) {
            label(id, out);
        } else {
            out.push_str(graph.term(id));
        }
        out.push(' ');
    }
    out.push_str(".\n");
}

/// RDFC-1.0 labels (without `_:`) for the blank nodes of `quads`, by term id. `local_of`
/// numbers the blank nodes: sophia's parser suffixes the labels it reads, so they are written
/// as `k<number>` and recognised by that number.
fn rdfc_labels(
    graph: &Graph,
    quads: &[Quad],
    nodes: &[TermId],
    local_of: &[u32],
) -> Result<Vec<String>, CanonError> {
    let text = spell_lines(graph, quads, |id, out| {
        let _ = write!(out, "_:k{}", local_of[id as usize]);
    });
    let dataset = sophia_dataset(&text)?;
    let (_, issued) = rdfc10::relabel(&dataset).map_err(|err| CanonError {
        reason: c14n_reason(&err),
    })?;
    let mut labels = vec![String::new(); nodes.len()];
    for (label, canonical) in &issued {
        let number = label
            .strip_prefix('k')
            .map(|rest| {
                rest.split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap_or("")
            })
            .and_then(|digits| digits.parse::<usize>().ok());
        match number.and_then(|number| labels.get_mut(number)) {
            Some(slot) => *slot = canonical.as_str().to_string(),
            None => {
                return Err(CanonError {
                    reason: format!("unexpected blank node label {label:?} from sophia"),
                });
            }
        }
    }
    if labels.iter().any(String::is_empty) {
        return Err(CanonError {
            reason: "sophia issued no label for some blank node".to_string(),
        });
    }
    Ok(labels)
}

const QUAD_SEED: u64 = 0x243F_6A88_85A3_08D3;
const ABSENT: u64 = 0x1319_8A2E_0370_7344;
const SELF: u64 = 0xA409_3822_299F_31D0;
const BLANK: u64 = 0x082E_FA98_EC4E_6C89;

/// Mixes `x` into `hash` (a wyhash-style folded multiply; order-sensitive).
fn mix(hash: u64, x: u64) -> u64 {
    let product = u128::from(hash ^ 0xA076_1D64_78BD_642F) * u128::from(x ^ 0xE703_7ED1_A0B4_28DB);
    (product as u64) ^ ((product >> 64) as u64)
}

/// A 128-bit fingerprint of a byte string (two 64-bit hashes with different seeds), the same
/// in every run and on every platform. Not cryptographic: callers confirm equal fingerprints
/// by comparing the bytes when exactness matters.
pub(crate) fn fingerprint(bytes: &[u8]) -> u128 {
    (u128::from(hash_bytes_seeded(bytes, QUAD_SEED)) << 64)
        | u128::from(hash_bytes_seeded(bytes, ABSENT))
}

/// A 64-bit hash of a byte string, the same in every run and on every platform.
fn hash_bytes(bytes: &[u8]) -> u64 {
    hash_bytes_seeded(bytes, QUAD_SEED)
}

fn hash_bytes_seeded(bytes: &[u8], seed: u64) -> u64 {
    let mut hash = mix(seed, bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        hash = mix(hash, u64::from_le_bytes(word));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        hash = mix(hash, u64::from_le_bytes(word));
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoContexts, Syntax, parse_graph};

    fn graph(nquads: &str) -> Graph {
        parse_graph(
            nquads.as_bytes(),
            &[Syntax::NQuads],
            "http://e.org/",
            &NoContexts,
        )
        .unwrap()
        .graph
    }

    fn turtle(body: &str) -> Graph {
        parse_graph(
            body.as_bytes(),
            &[Syntax::Turtle],
            "http://e.org/",
            &NoContexts,
        )
        .unwrap()
        .graph
    }

    /// Two linked blank hubs with `leaves` identical blank leaves each: refinement cannot
    /// split the leaves (they are automorphic) and more than six of them under a hub that is
    /// not unique trip RDFC-1.0's permutation guard.
    fn hubs(leaves: usize, literal: &str) -> String {
        let mut text = String::from(
            "<http://e.org/s> <http://e.org/p> _:h0 .\n<http://e.org/s> <http://e.org/p> _:h1 .\n\
             _:h0 <http://e.org/link> _:h1 .\n_:h1 <http://e.org/link> _:h0 .\n",
        );
        for hub in 0..2 {
            for i in 0..leaves {
                text.push_str(&format!(
                    "_:h{hub} <http://e.org/q> _:l{hub}x{i} .\n_:l{hub}x{i} <http://e.org/v> \"{literal}\" .\n"
                ));
            }
        }
        text
    }

    #[test]
    fn relabelled_and_reordered_graphs_hash_equal() {
        let a = turtle(
            "@prefix e: <http://e.org/> . e:s e:p [ e:q \"1\" ; e:r [ e:q \"2\" ] ] ; e:t \"x\"@EN .",
        );
        let b = graph(
            "_:z <http://e.org/q> \"2\" .\n\
             <http://e.org/s> <http://e.org/t> \"x\"@en .\n\
             _:y <http://e.org/r> _:z .\n\
             <http://e.org/s> <http://e.org/p> _:y .\n\
             _:y <http://e.org/q> \"1\" .\n",
        );
        let (ha, hb) = (canonical_hash(&a), canonical_hash(&b));
        assert_eq!(ha, hb);
        assert!(ha.exact);
        assert_eq!(ha.method, HashMethod::Rdfc10);
        assert_eq!(ha.hex.len(), 64);
    }

    #[test]
    fn one_literal_edit_changes_the_hash() {
        let a = turtle("@prefix e: <http://e.org/> . e:s e:p [ e:q \"1\" ] ; e:t \"x\" .");
        let b = turtle("@prefix e: <http://e.org/> . e:s e:p [ e:q \"1\" ] ; e:t \"y\" .");
        let c = turtle("@prefix e: <http://e.org/> . e:s e:p [ e:q \"2\" ] ; e:t \"x\" .");
        let hashes = [canonical_hash(&a), canonical_hash(&b), canonical_hash(&c)];
        assert_ne!(hashes[0].hex, hashes[1].hex);
        assert_ne!(hashes[0].hex, hashes[2].hex);
        assert_ne!(hashes[1].hex, hashes[2].hex);
    }

    #[test]
    fn canonical_nquads_match_sophia_rdfc10() {
        // The ground shortcut must produce what sophia's RDFC-1.0 produces.
        let g = graph(
            "<http://e.org/b> <http://e.org/p> \"tab\\there \\\"q\\\" \\u0001\" .\n\
             <http://e.org/a> <http://e.org/p> \"2\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
             <http://e.org/a> <http://e.org/p> \"hi\"@en-GB <http://e.org/g> .\n\
             <http://e.org/a> <http://e.org/p> \"é\" .\n",
        );
        let ours = canonical_nquads(&g).unwrap();
        let mut sophia = Vec::new();
        rdfc10::normalize(&sophia_dataset(&g.to_nquads()).unwrap(), &mut sophia).unwrap();
        assert_eq!(ours, String::from_utf8(sophia).unwrap());
        assert!(ours.starts_with("<http://e.org/a> <http://e.org/p> \"2\"^^"));
    }

    #[test]
    fn rdfc10_labels_follow_the_standard() {
        // Test vector test002 of the RDFC-1.0 suite: one blank node gets _:c14n0.
        let g = graph("_:e0 <http://example.org/vocab#p1> <http://example.org/test#o1> .\n");
        assert_eq!(
            canonical_nquads(&g).unwrap(),
            "_:c14n0 <http://example.org/vocab#p1> <http://example.org/test#o1> .\n"
        );
    }

    #[test]
    fn toxic_graph_falls_back_to_an_approximate_hash() {
        let text = hubs(8, "v");
        let hash = canonical_hash(&graph(&text));
        assert_eq!(hash.method, HashMethod::StructureForms, "{hash:?}");
        assert!(!hash.exact);
        assert!(
            hash.note.as_deref().unwrap_or("").contains("toxic"),
            "{hash:?}"
        );
        // Still invariant under relabelling and reordering.
        let mut lines: Vec<&str> = text.lines().collect();
        lines.reverse();
        let relabelled = format!("{}\n", lines.join("\n")).replace("_:l", "_:k");
        assert_eq!(canonical_hash(&graph(&relabelled)).hex, hash.hex);
        // And a literal edit still changes it.
        assert_ne!(canonical_hash(&graph(&hubs(8, "w"))).hex, hash.hex);
        assert_ne!(canonical_hash(&graph(&hubs(9, "v"))).hex, hash.hex);
    }

    #[test]
    fn structures_are_connected_components_in_document_order() {
        let g = graph(
            "<http://e.org/s> <http://e.org/p> \"ground\" .\n\
             _:a <http://e.org/p> _:b .\n\
             _:c <http://e.org/p> \"lone\" .\n\
             _:b <http://e.org/p> _:d <http://e.org/g> .\n\
             <http://e.org/s> <http://e.org/p> _:c .\n",
        );
        let structures = BlankStructures::of(&g);
        assert_eq!(structures.len(), 2);
        assert_eq!(structures.structure_of(0), None);
        assert_eq!(structures.members(0), &[1, 3]);
        assert_eq!(structures.members(1), &[2, 4]);
        assert_eq!(structures.structure_of(4), Some(1));
    }

    #[test]
    fn forms_are_equal_exactly_for_isomorphic_structures() {
        let a = turtle("@prefix e: <http://e.org/> . e:s e:p ( \"x\" \"y\" [ e:q \"z\" ] ) .");
        let b = turtle("@prefix e: <http://e.org/> . e:s e:p ( \"x\" \"y\" [ e:q \"z\" ] ) .");
        let c = turtle("@prefix e: <http://e.org/> . e:s e:p ( \"y\" \"x\" [ e:q \"z\" ] ) .");
        let form = |g: &Graph| {
            let structures = BlankStructures::of(g);
            assert_eq!(structures.len(), 1);
            Canonicalizer::new(g).form(&structures.quads(g, 0))
        };
        let (fa, fb, fc) = (form(&a), form(&b), form(&c));
        assert_eq!(fa.method, FormMethod::Refinement);
        assert_eq!(fa, fb);
        assert_ne!(fa.text, fc.text);
        assert!(fa.text.contains("_:c0") && !fa.text.contains("_:b"));
    }

    #[test]
    fn symmetric_structures_use_rdfc10_and_toxic_ones_are_approximate() {
        // Two identical leaves under one node: automorphic, so refinement cannot separate
        // them, but RDFC-1.0 can label them.
        let symmetric =
            turtle("@prefix e: <http://e.org/> . e:s e:p [ e:q [ e:v \"1\" ], [ e:v \"1\" ] ] .");
        let structures = BlankStructures::of(&symmetric);
        let form = Canonicalizer::new(&symmetric).form(&structures.quads(&symmetric, 0));
        assert_eq!(form.method, FormMethod::Rdfc10);
        assert!(form.text.contains("_:c14n0"), "{}", form.text);

        let toxic = graph(&hubs(8, "v"));
        let structures = BlankStructures::of(&toxic);
        let form = Canonicalizer::new(&toxic).form(&structures.quads(&toxic, 0));
        assert_eq!(form.method, FormMethod::Approximate);
        assert!(!form.is_exact());
        assert!(form.note.unwrap().contains("toxic"));
    }

    #[test]
    fn self_loops_and_blank_graph_names_are_handled() {
        let a = graph("_:a <http://e.org/p> _:a _:g .\n_:a <http://e.org/q> \"1\" _:g .\n");
        let b = graph("_:x <http://e.org/q> \"1\" _:y .\n_:x <http://e.org/p> _:x _:y .\n");
        let form = |g: &Graph| {
            let structures = BlankStructures::of(g);
            Canonicalizer::new(g).form(&structures.quads(g, 0))
        };
        assert_eq!(form(&a), form(&b));
        assert_eq!(canonical_hash(&a).hex, canonical_hash(&b).hex);
    }

    #[test]
    fn hash_bytes_is_stable() {
        // Forms are compared within one run only, but stability keeps test output stable.
        assert_eq!(hash_bytes(b""), hash_bytes(b""));
        assert_ne!(
            hash_bytes(b"<http://e.org/a>"),
            hash_bytes(b"<http://e.org/b>")
        );
        assert_ne!(hash_bytes(b"abcdefgh"), hash_bytes(b"abcdefgh\0"));
    }
}
