//! The dataset at a date from the versioned triple index (version materialisation): every
//! statement alive at the date in the named graph of its document, without reading the WARC
//! files — except the few documents that named graphs of their own, which the index keeps
//! as plain triples and which are read from their record so the answer is the one a replay
//! gives.

use std::sync::atomic::{AtomicBool, Ordering};

use oxigraph::model::{GraphName, NamedNode, NamedOrBlankNode, Quad, Term};
use oxigraph::store::Store;

use super::SparqlError;
use super::load::{
    ArchiveDataset, DatasetSource, LoadLimits, document_quads, load_dataset, to_term,
};
use crate::replay::dataset::{NoGraph, Scope, SnapshotSummary, blank_prefix, graph_of};
use crate::replay::{OpenWarcFiles, ReplayArchive, ReplayDate};
use crate::triples::{TripleIndex, VersionState};

/// Quads handed to the store at once (and how often cancellation and the size limit are
/// checked).
const CHUNK: usize = 64 * 1024;

/// Set once the fallback to replay was logged at info level (later ones go to debug).
static FALLBACK_LOGGED: AtomicBool = AtomicBool::new(false);

/// Builds the dataset in `scope` as of `date` from `triples` when it can answer for the
/// archive — one root, and the index built from the capture index as it is now — else by
/// replaying the WARC files as [`load_dataset`] does (said once at info level, with why).
/// Both give the same dataset; the index is faster.
pub fn load_dataset_at(
    archive: &ReplayArchive,
    triples: Option<&TripleIndex>,
    scope: &Scope,
    date: &ReplayDate,
    limits: &LoadLimits,
    report: &mut dyn FnMut(&str),
) -> Result<ArchiveDataset, SparqlError> {
    match usable_index(archive, triples) {
        Ok(index) => load_dataset_from_index(index, archive, scope, date, limits, report),
        Err(why) => {
            if FALLBACK_LOGGED.swap(true, Ordering::Relaxed) {
                tracing::debug!("sparql: replaying the WARC files: {why}");
            } else {
                tracing::info!("sparql: replaying the WARC files: {why}");
            }
            load_dataset(archive, scope, date, limits, report)
        }
    }
}

/// The triple index when it answers for `archive`, else why not.
fn usable_index<'a>(
    archive: &ReplayArchive,
    triples: Option<&'a TripleIndex>,
) -> Result<&'a TripleIndex, String> {
    if archive.merged_index().root_count() != 1 {
        return Err("several roots are given and a triple index answers for one".into());
    }
    let root = archive.roots()[0].display().to_string();
    let Some(index) = triples else {
        return Err(format!("{root} has no triple index"));
    };
    match index.is_current_for(archive.index()) {
        Ok(true) => Ok(index),
        Ok(false) => Err(format!(
            "the triple index of {root} is older than its capture index"
        )),
        Err(error) => Err(format!("the capture index of {root}: {error}")),
    }
}

/// What a document contributes at the date.
enum Selected {
    /// Nothing (out of scope, no document then).
    No,
    /// The statements alive in this version, in the graph named by its URL (`None` when the
    /// URL is no IRI: counted, not loaded).
    Version(u32, Option<NamedNode>),
}

/// Builds the dataset in `scope` as of `date` from the triple index (which the caller has
/// found current): the documents and statements [`load_dataset`] would load, with the same
/// summary and report lines.
pub fn load_dataset_from_index(
    index: &TripleIndex,
    archive: &ReplayArchive,
    scope: &Scope,
    date: &ReplayDate,
    limits: &LoadLimits,
    report: &mut dyn FnMut(&str),
) -> Result<ArchiveDataset, SparqlError> {
    let store = Store::new().map_err(|e| SparqlError::Evaluation(e.to_string()))?;
    let mut loaded = ArchiveDataset::new(store, DatasetSource::TripleIndex);
    let mut summary = SnapshotSummary::default();
    let mut reread = Vec::new();
    let mut not_iris = Vec::new();
    let (start, end) = scope.key_range();
    let seconds = date.at.timestamp();
    let mut selected = Vec::with_capacity(index.document_count());
    for (number, doc) in index.documents().iter().enumerate() {
        let key = ldwarc_surt::surt(&doc.url);
        let in_scope = key >= start && end.as_ref().is_none_or(|end| key < *end);
        let version = in_scope.then(|| doc.version_at(seconds)).flatten();
        let Some(version) = version else {
            summary.not_documents += u64::from(in_scope);
            selected.push(Selected::No);
            continue;
        };
        let state = &doc.versions[version as usize];
        match &state.state {
            VersionState::NotDocument => {
                summary.not_documents += 1;
                selected.push(Selected::No);
                continue;
            }
            VersionState::Failed(reason) => {
                summary.failed += 1;
                report(&format!("left out: {reason}"));
                selected.push(Selected::No);
                continue;
            }
            VersionState::Partial(error) => {
                summary.partial += 1;
                report(&format!("{}: partial graph: {error}", doc.url));
            }
            VersionState::Document => {}
        }
        summary.documents += 1;
        let name = NamedNode::new(&doc.url).ok();
        if name.is_none() {
            not_iris.push(doc.url.clone());
        }
        if state.own_graphs && name.is_some() {
            reread.push((number, version));
            selected.push(Selected::No);
        } else {
            selected.push(Selected::Version(version, name));
        }
    }
    // Counted first so a dataset too large for the limit or the budget costs nothing.
    let alive = index
        .entries
        .iter()
        .filter(|e| match &selected[e.doc as usize] {
            Selected::Version(version, Some(_)) => e.holds_in(*version),
            _ => false,
        })
        .count();
    loaded.reserve_up_to(alive as u64, limits)?;
    load_alive(index, &selected, limits, &mut loaded, &mut summary)?;
    for (number, version) in reread {
        load_from_record(
            index,
            archive,
            number,
            version,
            limits,
            &mut loaded,
            &mut summary,
        )?;
    }
    for url in not_iris {
        report(&format!(
            "left out: {url}: the URL is not an IRI a SPARQL graph can be named by"
        ));
    }
    loaded.summary = summary;
    Ok(loaded)
}

/// Loads every entry alive in its document's selected version.
fn load_alive(
    index: &TripleIndex,
    selected: &[Selected],
    limits: &LoadLimits,
    loaded: &mut ArchiveDataset,
    summary: &mut SnapshotSummary,
) -> Result<(), SparqlError> {
    // Each term is converted once, however many statements use it.
    let mut terms: Vec<Option<Option<Term>>> = vec![None; index.term_count()];
    let mut term = |id: u32| -> Option<Term> {
        terms[id as usize]
            .get_or_insert_with(|| to_term(&index.terms[id as usize], ""))
            .clone()
    };
    let mut quads = Vec::with_capacity(CHUNK);
    for entry in &index.entries {
        let Selected::Version(version, name) = &selected[entry.doc as usize] else {
            continue;
        };
        if !entry.holds_in(*version) {
            continue;
        }
        summary.statements += 1;
        let Some(name) = name else { continue };
        let subject = match term(entry.subject) {
            Some(Term::NamedNode(node)) => Some(NamedOrBlankNode::NamedNode(node)),
            Some(Term::BlankNode(node)) => Some(NamedOrBlankNode::BlankNode(node)),
            _ => None,
        };
        let predicate = match term(entry.predicate) {
            Some(Term::NamedNode(node)) => Some(node),
            _ => None,
        };
        match (subject, predicate, term(entry.object)) {
            (Some(s), Some(p), Some(o)) => {
                quads.push(Quad::new(s, p, o, GraphName::NamedNode(name.clone())))
            }
            _ => loaded.skipped_statements += 1,
        }
        if quads.len() >= CHUNK {
            loaded.add(std::mem::take(&mut quads), limits)?;
        }
    }
    loaded.add(quads, limits)
}

/// Loads one document version from its WARC record (its own graph names kept).
fn load_from_record(
    index: &TripleIndex,
    archive: &ReplayArchive,
    number: usize,
    version: u32,
    limits: &LoadLimits,
    loaded: &mut ArchiveDataset,
    summary: &mut SnapshotSummary,
) -> Result<(), SparqlError> {
    let doc = &index.documents()[number];
    let wanted = &doc.versions[version as usize];
    let capture = archive
        .captures(&doc.url)?
        .into_iter()
        .find(|c| c.filename == wanted.filename && c.offset == wanted.offset);
    let Some(capture) = capture else {
        return Err(SparqlError::Evaluation(format!(
            "{}: its capture in {} at offset {} is no longer in the capture index",
            doc.url, wanted.filename, wanted.offset
        )));
    };
    // A few documents at most are read back this way: no files kept open between them.
    let graph = match graph_of(archive, &OpenWarcFiles::new(1), &capture) {
        Ok((graph, _)) => graph,
        Err(NoGraph::NotDocument) => return Ok(()),
        Err(NoGraph::Failed(reason)) => return Err(SparqlError::Evaluation(reason)),
    };
    summary.statements += graph.len() as u64;
    let name = NamedNode::new(&doc.url).map_err(|e| SparqlError::Evaluation(e.to_string()))?;
    let (quads, skipped) = document_quads(&graph, name, &blank_prefix(&capture));
    loaded.skipped_statements += skipped;
    loaded.add(quads, limits)
}
