//! The dataset at a date in memory: every document's graph as a named graph (its URL), built
//! from the archive on each run (derived data only; nothing is written).

use std::ops::ControlFlow;
use std::sync::Arc;

use ldwarc_rdf::{DEFAULT_GRAPH, Graph, TermId};
use oxigraph::model::{BlankNode, GraphName, NamedNode, NamedOrBlankNode, Quad, Term};
use oxigraph::sparql::CancellationToken;
use oxigraph::store::Store;

use super::SparqlError;
use crate::replay::{ReplayArchive, ReplayDate, Scope, SnapshotSummary, visit_documents};

/// Bounds on building a dataset (the server's budgets; the command line sets none).
#[derive(Clone, Default)]
pub struct LoadLimits {
    /// Most statements the dataset may hold: more is [`SparqlError::TooLarge`].
    pub max_statements: Option<u64>,
    /// Stops the build when cancelled (a request past its time limit).
    pub cancel: Option<CancellationToken>,
    /// Reserves memory for statements before they are loaded (a server's memory budget); a
    /// refusal stops the build with [`SparqlError::OverBudget`].
    pub budget: Option<Arc<dyn StatementBudget>>,
}

/// Memory reserved for a dataset's statements before they are loaded, held until the
/// dataset is dropped with whatever holds the reservation.
pub trait StatementBudget: Send + Sync {
    /// Reserves room for `statements` more statements; false (nothing reserved) when they
    /// do not fit.
    fn reserve(&self, statements: u64) -> bool;
}

/// What a dataset was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatasetSource {
    /// The versioned triple index (version materialisation).
    TripleIndex,
    /// The WARC files, replayed.
    Replay,
}

/// The archive's dataset as of a date, ready to be queried (in oxigraph's in-memory store).
pub struct ArchiveDataset {
    pub(super) store: Store,
    statements: u64,
    /// Statements reserved in the limits' budget so far.
    reserved: u64,
    /// What it was built from.
    pub source: DatasetSource,
    /// What the selection found: documents, statements, URLs that were not documents, and
    /// documents left out.
    pub summary: SnapshotSummary,
    /// Statements left out because a term has no SPARQL 1.1 form (RDF 1.2 triple terms).
    pub skipped_statements: u64,
}

impl ArchiveDataset {
    pub(super) fn new(store: Store, source: DatasetSource) -> ArchiveDataset {
        ArchiveDataset {
            store,
            statements: 0,
            reserved: 0,
            source,
            summary: SnapshotSummary::default(),
            skipped_statements: 0,
        }
    }

    /// Makes sure the dataset may hold `total` statements: refuses past the limit or when the
    /// budget has no room for them (reserving what is not reserved yet).
    pub(super) fn reserve_up_to(
        &mut self,
        total: u64,
        limits: &LoadLimits,
    ) -> Result<(), SparqlError> {
        if let Some(max) = limits.max_statements
            && total > max
        {
            return Err(SparqlError::TooLarge(max));
        }
        if total > self.reserved {
            if let Some(budget) = &limits.budget
                && !budget.reserve(total - self.reserved)
            {
                return Err(SparqlError::OverBudget);
            }
            self.reserved = total;
        }
        Ok(())
    }

    /// Adds quads (after reserving room for them), then refuses when the work was cancelled.
    pub(super) fn add(&mut self, quads: Vec<Quad>, limits: &LoadLimits) -> Result<(), SparqlError> {
        self.reserve_up_to(self.statements + quads.len() as u64, limits)?;
        self.statements += quads.len() as u64;
        self.store
            .extend(quads)
            .map_err(|error| SparqlError::Evaluation(error.to_string()))?;
        if limits.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            return Err(SparqlError::Cancelled);
        }
        Ok(())
    }

    /// Statements loaded.
    pub fn len(&self) -> u64 {
        self.statements
    }

    /// True when no document had a statement at the date.
    pub fn is_empty(&self) -> bool {
        self.statements == 0
    }
}

/// Builds the dataset in `scope` as of `date`: the documents `snapshot` selects, each one's
/// statements in the named graph of its URL (statements a document put in its own named
/// graphs keep those), blank nodes kept apart per document. `report` receives one line per
/// document left out or partial.
pub fn load_dataset(
    archive: &ReplayArchive,
    scope: &Scope,
    date: &ReplayDate,
    limits: &LoadLimits,
    report: &mut dyn FnMut(&str),
) -> Result<ArchiveDataset, SparqlError> {
    let store = Store::new().map_err(|e| SparqlError::Evaluation(e.to_string()))?;
    let mut loaded = ArchiveDataset::new(store, DatasetSource::Replay);
    let mut refusal = None;
    let mut not_iris = Vec::new();
    let summary = visit_documents(
        archive,
        scope,
        date,
        &mut |capture, graph, blank_prefix| {
            if limits.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
                refusal = Some(SparqlError::Cancelled);
                return ControlFlow::Break(());
            }
            let Ok(name) = NamedNode::new(&capture.url) else {
                not_iris.push(capture.url.clone());
                return ControlFlow::Continue(());
            };
            let (quads, skipped) = document_quads(graph, name, blank_prefix);
            loaded.skipped_statements += skipped;
            match loaded.add(quads, limits) {
                Ok(()) => ControlFlow::Continue(()),
                Err(error) => {
                    refusal = Some(error);
                    ControlFlow::Break(())
                }
            }
        },
        report,
    )?;
    for url in not_iris {
        report(&format!(
            "left out: {url}: the URL is not an IRI a SPARQL graph can be named by"
        ));
    }
    if let Some(refusal) = refusal {
        return Err(refusal);
    }
    loaded.summary = summary;
    Ok(loaded)
}

/// One document's statements as quads, and how many were left out (no SPARQL form).
pub(super) fn document_quads(
    graph: &Graph,
    name: NamedNode,
    blank_prefix: &str,
) -> (Vec<Quad>, u64) {
    // Each term is converted once per document, however many statements use it.
    let mut terms: Vec<Option<Option<Term>>> = vec![None; graph.term_count()];
    let mut term = |id: TermId| -> Option<Term> {
        terms[id as usize]
            .get_or_insert_with(|| to_term(graph.term(id), blank_prefix))
            .clone()
    };
    let mut skipped = 0;
    let mut quads = Vec::with_capacity(graph.len());
    for quad in graph.quads() {
        let graph_name = if quad.graph == DEFAULT_GRAPH {
            Some(GraphName::NamedNode(name.clone()))
        } else {
            match term(quad.graph) {
                Some(Term::NamedNode(node)) => Some(GraphName::NamedNode(node)),
                Some(Term::BlankNode(node)) => Some(GraphName::BlankNode(node)),
                _ => None,
            }
        };
        let subject = match term(quad.subject) {
            Some(Term::NamedNode(node)) => Some(NamedOrBlankNode::NamedNode(node)),
            Some(Term::BlankNode(node)) => Some(NamedOrBlankNode::BlankNode(node)),
            _ => None,
        };
        let predicate = match term(quad.predicate) {
            Some(Term::NamedNode(node)) => Some(node),
            _ => None,
        };
        match (subject, predicate, term(quad.object), graph_name) {
            (Some(s), Some(p), Some(o), Some(g)) => quads.push(Quad::new(s, p, o, g)),
            _ => skipped += 1,
        }
    }
    (quads, skipped)
}

/// The term an N-Triples spelling stands for; blank node labels get the document's prefix.
pub(super) fn to_term(spelling: &str, blank_prefix: &str) -> Option<Term> {
    if let Some(label) = spelling.strip_prefix("_:") {
        return BlankNode::new(format!("{blank_prefix}{label}"))
            .ok()
            .map(Term::from);
    }
    spelling.parse::<Term>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_become_named_graphs_with_their_blank_nodes_apart() {
        let mut graph = Graph::new();
        graph.insert_spelled("_:b0", "<http://ex.org/p>", "\"a \\\"q\\\"\"@en", None);
        graph.insert_spelled(
            "<http://ex.org/s>",
            "<http://ex.org/p>",
            "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            Some("<http://ex.org/own>"),
        );
        let doc = NamedNode::new("http://ex.org/doc").unwrap();
        let (mut quads, skipped) = document_quads(&graph, doc.clone(), "d1");
        assert_eq!(skipped, 0);
        quads.extend(document_quads(&graph, doc, "d2").0);
        let mut lines: Vec<String> = quads.iter().map(|q| q.to_string()).collect();
        lines.sort();
        lines.dedup();
        assert_eq!(
            lines,
            [
                "<http://ex.org/s> <http://ex.org/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/own>",
                "_:d1b0 <http://ex.org/p> \"a \\\"q\\\"\"@en <http://ex.org/doc>",
                "_:d2b0 <http://ex.org/p> \"a \\\"q\\\"\"@en <http://ex.org/doc>",
            ]
        );
    }
}
