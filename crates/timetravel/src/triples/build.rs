//! Building and extending the triple index from the capture index: every new capture of a
//! URL becomes a version of its document, parsed (on all cores) and compared with the
//! document's previous version.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use ldwarc_rdf::{DEFAULT_GRAPH, Graph};

use crate::replay::OpenWarcFiles;
use crate::replay::dataset::{NoGraph, Scope, graph_of, scan_urls};
use crate::replay::{ReplayArchive, ReplayError, redirect_target};
use ldwarc_archive::index::Capture;
use ldwarc_archive::parallel::parallel_map;

use super::currency::capture_stamp;
use super::store::{DocumentVersions, Entry, TripleIndex, Version, VersionState};

/// Captures parsed at once: bounds memory while keeping the cores busy.
const BATCH: usize = 256;

/// What an update of the triple index did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TripleIndexRun {
    /// Documents (URLs) in the index.
    pub documents: u64,
    /// Captures added as versions.
    pub versions_added: u64,
    /// Documents re-read from their first capture (a capture older than those indexed
    /// arrived).
    pub documents_reread: u64,
    /// Captures whose payload should have been RDF but could not be read or parsed (each
    /// holds nothing; the reasons are in `failures`).
    pub failed: u64,
    /// One line per failed capture.
    pub failures: Vec<String>,
    /// Statement entries (statement, document) in the index.
    pub entries: u64,
    /// Distinct terms.
    pub terms: u64,
    /// Size of the index file in bytes.
    pub bytes: u64,
}

/// Brings the triple index of `root` up to date with its capture index (run the capture
/// index update first): captures not yet in it are added as versions. `rebuild` starts
/// from nothing. `progress` receives the number of captures read so far and the total.
pub fn update_triple_index(
    root: &Path,
    rebuild: bool,
    progress: &dyn Fn(u64, u64),
) -> Result<TripleIndexRun, ReplayError> {
    let archive = ReplayArchive::open(root)?;
    // Taken before the scan: captures indexed meanwhile leave the result stale, never
    // wrongly current.
    let stamp = capture_stamp(archive.index()).map_err(ReplayError::io)?;
    let existing = if rebuild {
        TripleIndex::default()
    } else {
        TripleIndex::open_for_update(root)
            .map_err(ReplayError::io)?
            .unwrap_or_default()
    };
    let mut builder = Builder::from_index(existing);
    let mut run = TripleIndexRun::default();
    let plan = builder.plan(&archive, &mut run)?;
    let total: u64 = plan.iter().map(|(_, captures)| captures.len() as u64).sum();
    let mut done = 0;
    progress(0, total);
    let mut batch: Vec<(u32, Capture, bool)> = Vec::with_capacity(BATCH);
    for (doc, captures) in plan {
        let mut previous: Option<&Capture> = None;
        for capture in &captures {
            let same = previous.is_some_and(|p| same_payload(p, capture));
            batch.push((doc, capture.clone(), same));
            previous = Some(capture);
        }
        if batch.len() >= BATCH {
            done += builder.apply_batch(&archive, &mut batch, &mut run);
            progress(done, total);
        }
    }
    done += builder.apply_batch(&archive, &mut batch, &mut run);
    progress(done, total);
    let mut index = builder.finish();
    index.stamp = stamp;
    run.documents = index.docs.len() as u64;
    run.entries = index.entries.len() as u64;
    run.terms = index.terms.len() as u64;
    run.bytes = index.save(root).map_err(ReplayError::io)?;
    Ok(run)
}

/// Whether two successive captures certainly hold the same graph: the same payload digest,
/// status and redirect.
fn same_payload(a: &Capture, b: &Capture) -> bool {
    a.digest.is_some() && a.digest == b.digest && a.status == b.status && a.redirect == b.redirect
}

/// The index while it grows: terms and entries keyed for updating.
struct Builder {
    terms: Vec<Box<str>>,
    term_ids: HashMap<Box<str>, u32>,
    docs: Vec<DocumentVersions>,
    doc_ids: HashMap<String, u32>,
    /// Toggles per (document, subject, predicate, object).
    entries: HashMap<(u32, u32, u32, u32), Vec<u32>>,
    /// The statements of each document's latest version.
    current: HashMap<u32, HashSet<(u32, u32, u32)>>,
    /// The statements and state of the latest version parsed in this run, for captures
    /// with the same payload.
    last_graph: HashMap<u32, Parsed>,
    /// The WARC files this run reads from, kept open.
    files: OpenWarcFiles,
}

impl Builder {
    fn from_index(index: TripleIndex) -> Builder {
        let term_ids = index
            .terms
            .iter()
            .enumerate()
            .map(|(n, t)| (t.clone(), n as u32))
            .collect();
        let doc_ids = index
            .docs
            .iter()
            .enumerate()
            .map(|(n, d)| (d.url.clone(), n as u32))
            .collect();
        let mut current: HashMap<u32, HashSet<(u32, u32, u32)>> = HashMap::new();
        let mut entries = HashMap::with_capacity(index.entries.len());
        for entry in index.entries {
            if entry.toggles.len() % 2 == 1 {
                current.entry(entry.doc).or_default().insert((
                    entry.subject,
                    entry.predicate,
                    entry.object,
                ));
            }
            entries.insert(
                (entry.doc, entry.subject, entry.predicate, entry.object),
                entry.toggles,
            );
        }
        Builder {
            terms: index.terms,
            term_ids,
            docs: index.docs,
            doc_ids,
            entries,
            current,
            last_graph: HashMap::new(),
            files: OpenWarcFiles::for_scan(),
        }
    }

    /// For each URL with captures not yet indexed: its document number and those captures.
    /// A document whose indexed versions are no longer the first of its captures (an older
    /// capture arrived) is emptied and all its captures are planned.
    fn plan(
        &mut self,
        archive: &ReplayArchive,
        run: &mut TripleIndexRun,
    ) -> Result<Vec<(u32, Vec<Capture>)>, ReplayError> {
        let mut plan = Vec::new();
        let mut reread = HashSet::new();
        scan_urls(archive, &Scope::All, |url, captures| {
            let doc = match self.doc_ids.get(url) {
                Some(&doc) => doc,
                None => {
                    let doc = self.docs.len() as u32;
                    self.docs.push(DocumentVersions {
                        url: url.to_string(),
                        versions: Vec::new(),
                    });
                    self.doc_ids.insert(url.to_string(), doc);
                    doc
                }
            };
            let known = &self.docs[doc as usize].versions;
            let is_prefix = known.len() <= captures.len()
                && known.iter().zip(captures).all(|(v, c)| same_capture(v, c));
            let start = if is_prefix {
                known.len()
            } else {
                reread.insert(doc);
                0
            };
            if start < captures.len() {
                plan.push((doc, captures[start..].to_vec()));
            }
        })?;
        if !reread.is_empty() {
            run.documents_reread = reread.len() as u64;
            self.entries.retain(|key, _| !reread.contains(&key.0));
            for doc in reread {
                self.docs[doc as usize].versions.clear();
                self.current.remove(&doc);
            }
        }
        Ok(plan)
    }

    /// Parses the batch's captures on all cores and adds them as versions, in order.
    /// Returns how many captures it took.
    fn apply_batch(
        &mut self,
        archive: &ReplayArchive,
        batch: &mut Vec<(u32, Capture, bool)>,
        run: &mut TripleIndexRun,
    ) -> u64 {
        let graphs = parallel_map(batch, |(_, capture, same)| {
            (!same).then(|| version_graph(archive, &self.files, capture))
        });
        for ((doc, capture, _), graph) in batch.iter().zip(graphs) {
            let parsed = match graph {
                None => self.last_graph.get(doc).cloned().unwrap_or_default(),
                Some(Ok(version)) => Parsed {
                    statements: self.intern_graph(*doc, &version.graph),
                    own_graphs: version
                        .graph
                        .quads()
                        .iter()
                        .any(|q| q.graph != DEFAULT_GRAPH),
                    state: version.state,
                },
                Some(Err(reason)) => {
                    run.failed += 1;
                    run.failures.push(format!(
                        "{} at {}: {reason}",
                        capture.url, capture.timestamp
                    ));
                    Parsed {
                        statements: Vec::new(),
                        state: VersionState::Failed(reason),
                        own_graphs: false,
                    }
                }
            };
            self.add_version(*doc, capture, parsed);
            run.versions_added += 1;
        }
        let taken = batch.len() as u64;
        batch.clear();
        taken
    }

    fn intern(&mut self, spelling: &str) -> u32 {
        if let Some(&id) = self.term_ids.get(spelling) {
            return id;
        }
        let id = self.terms.len() as u32;
        let spelling: Box<str> = spelling.into();
        self.terms.push(spelling.clone());
        self.term_ids.insert(spelling, id);
        id
    }

    /// The graph's statements as term numbers, blank nodes scoped to the document.
    fn intern_graph(&mut self, doc: u32, graph: &Graph) -> Vec<(u32, u32, u32)> {
        let mut local: HashMap<u32, u32> = HashMap::new();
        let mut statements = Vec::with_capacity(graph.len());
        for quad in graph.quads() {
            let mut number = |id| {
                if let Some(&n) = local.get(&id) {
                    return n;
                }
                let spelling = graph.term(id);
                let n = match spelling.strip_prefix("_:") {
                    Some(label) => self.intern(&format!("_:d{doc}_{label}")),
                    None => self.intern(spelling),
                };
                local.insert(id, n);
                n
            };
            statements.push((
                number(quad.subject),
                number(quad.predicate),
                number(quad.object),
            ));
        }
        statements.sort_unstable();
        statements.dedup();
        statements
    }

    /// Adds a capture as the document's next version holding what was parsed.
    fn add_version(&mut self, doc: u32, capture: &Capture, parsed: Parsed) {
        let versions = &mut self.docs[doc as usize].versions;
        let version = versions.len() as u32;
        versions.push(Version {
            time_micros: capture.time_micros,
            filename: capture.filename.clone(),
            offset: capture.offset,
            state: parsed.state.clone(),
            own_graphs: parsed.own_graphs,
        });
        let new: HashSet<(u32, u32, u32)> = parsed.statements.iter().copied().collect();
        let old = self.current.remove(&doc).unwrap_or_default();
        for &(s, p, o) in new.symmetric_difference(&old) {
            self.entries
                .entry((doc, s, p, o))
                .or_default()
                .push(version);
        }
        self.current.insert(doc, new);
        self.last_graph.insert(doc, parsed);
    }

    fn finish(self) -> TripleIndex {
        let entries = self
            .entries
            .into_iter()
            .map(|((doc, subject, predicate, object), toggles)| Entry {
                subject,
                predicate,
                object,
                doc,
                toggles,
            })
            .collect();
        let mut index = TripleIndex {
            stamp: String::new(),
            terms: self.terms,
            docs: self.docs,
            entries,
            by_predicate: Default::default(),
            by_object: Default::default(),
        };
        index.sort_orders();
        index
    }
}

fn same_capture(version: &Version, capture: &Capture) -> bool {
    version.time_micros == capture.time_micros
        && version.offset == capture.offset
        && version.filename == capture.filename
}

/// What one capture gave its document, parsed: its statements as term numbers, its state,
/// and whether it named graphs of its own.
#[derive(Clone, Debug, Default)]
struct Parsed {
    statements: Vec<(u32, u32, u32)>,
    state: VersionState,
    own_graphs: bool,
}

/// A capture's graph and what it is (a document, partial, not a document).
struct VersionGraph {
    graph: Graph,
    state: VersionState,
}

/// The graph a capture gives its document: empty for a redirect, an error status or a
/// payload that is not RDF; an error for a payload that should be RDF and is not readable.
fn version_graph(
    archive: &ReplayArchive,
    files: &OpenWarcFiles,
    capture: &Capture,
) -> Result<VersionGraph, String> {
    let document = redirect_target(capture).is_none()
        && capture
            .status
            .is_none_or(|s| (200..300).contains(&s) || s == 304);
    let nothing = || VersionGraph {
        graph: Graph::new(),
        state: VersionState::NotDocument,
    };
    if !document {
        return Ok(nothing());
    }
    match graph_of(archive, files, capture) {
        Ok((graph, None)) => Ok(VersionGraph {
            graph,
            state: VersionState::Document,
        }),
        Ok((graph, Some(error))) => Ok(VersionGraph {
            graph,
            state: VersionState::Partial(error),
        }),
        Err(NoGraph::NotDocument) => Ok(nothing()),
        Err(NoGraph::Failed(reason)) => Err(reason),
    }
}
