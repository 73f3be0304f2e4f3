//! The archive as a dataset at a date: every document in a scope (a URL prefix, a host, a
//! pay-level domain, or everything) as it stood then, streamed as N-Quads or TriG with one
//! named graph per document (as DyLDO publishes its snapshots), and per-document diffs
//! between two dates.
//!
//! A URL is a document at a date when its latest capture at or before the date is a
//! successful RDF answer. A URL whose capture then was a redirect is not a document itself
//! (its target is, under its own URL); one whose capture was an error status was gone;
//! robots.txt files and payloads that are not RDF (by type or content) are not documents.

use std::io::Write;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::query::{MatchType, key_range, key_range_for_prefix};
use ldwarc_rdf::{
    Graph, GraphDiff, HdtDocument, HdtSummary, HdtWriter, OutputFormat, SNIFF_LEN, Syntax,
    choose_syntaxes, diff,
};

use super::date::ReplayDate;
use super::error::ReplayError;
use super::record::OpenWarcFiles;
use super::resolve::{
    Pick, ReplayArchive, is_replayable, pick_capture, redirect_target, sort_by_time,
};
use ldwarc_archive::parallel::{ordered_pipeline, parallel_map};

/// Documents handed to the worker threads at once; bounds memory while keeping cores busy.
const BATCH: usize = 256;

/// Which URLs a dataset operation covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every URL in the archive.
    All,
    /// URLs starting with this prefix (compared by SURT, as `ldwarc cdx` does).
    Prefix(String),
    /// URLs on exactly this host.
    Host(String),
    /// URLs on this domain and its subdomains (e.g. a pay-level domain).
    Domain(String),
}

impl Scope {
    /// The `[start, end)` range of index keys the scope covers.
    pub(crate) fn key_range(&self) -> (String, Option<String>) {
        match self {
            Scope::All => (String::new(), None),
            Scope::Prefix(prefix) => key_range_for_prefix(prefix),
            Scope::Host(host) => {
                let (start, end) = key_range(&format!("http://{host}/"), MatchType::Host);
                (start, Some(end))
            }
            Scope::Domain(domain) => {
                let (start, end) = key_range(&format!("http://{domain}/"), MatchType::Domain);
                (start, Some(end))
            }
        }
    }
}

/// The output syntax of a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SnapshotFormat {
    /// N-Quads, the document URL as graph name of its triples.
    #[default]
    NQuads,
    /// N-Quads compressed with gzip (one member, the whole stream).
    NQuadsGzip,
    /// TriG, one `<document> { … }` block per document.
    TriG,
    /// JSON Lines for scripts: one object per document, `{"document": URL, "graph": …}`, the
    /// graph in expanded JSON-LD (blank node labels are scoped to their line, as JSON-LD scopes
    /// them to a document).
    JsonLines,
    /// HDT 1.0 (binary): the distinct triples of every document, whatever graph they were
    /// in (HDT has no named graphs). Written once the last document is read, since HDT's
    /// dictionary is sorted: memory holds every distinct term once and three numbers per
    /// statement.
    Hdt,
}

/// What a snapshot wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotSummary {
    /// Documents written.
    pub documents: u64,
    /// Statements written.
    pub statements: u64,
    /// URLs that were not documents at the date (redirects, error statuses).
    pub not_documents: u64,
    /// Documents left out because they could not be read or parsed (each reported).
    pub failed: u64,
    /// Documents whose graph is partial (a parse error after some statements, or in HDT
    /// statements it cannot hold; reported).
    pub partial: u64,
    /// For HDT, what the file holds (distinct triples, terms).
    pub hdt: Option<HdtSummary>,
}

/// One document made ready for the output on a worker thread.
enum Rendered {
    /// Text to append.
    Text(String),
    /// Statements for the HDT writer.
    Hdt(HdtDocument),
}

/// Calls `visit` with each URL in `scope` and its replayable captures (oldest first), in
/// SURT order.
pub(crate) fn scan_urls(
    archive: &ReplayArchive,
    scope: &Scope,
    mut visit: impl FnMut(&str, &[Capture]),
) -> Result<(), ReplayError> {
    let (start, end) = scope.key_range();
    let mut group: Vec<Capture> = Vec::new();
    let mut flush = |group: &mut Vec<Capture>| {
        // One key can hold URLs differing only in case: split them.
        group.sort_by(|a, b| a.url.cmp(&b.url));
        for same_url in group.chunk_by_mut(|a, b| a.url == b.url) {
            sort_by_time(same_url);
            visit(&same_url[0].url.clone(), same_url);
        }
        group.clear();
    };
    archive
        .merged_index()
        .scan_range(&start, end.as_deref(), |capture| {
            if !is_replayable(&capture) || capture.url.ends_with("/robots.txt") {
                return;
            }
            if group
                .last()
                .is_some_and(|last| last.urlkey != capture.urlkey)
            {
                flush(&mut group);
            }
            group.push(capture);
        })
        .map_err(ReplayError::io)?;
    flush(&mut group);
    Ok(())
}

/// The capture holding the URL's document at `date`, or `None` when it had none then (no
/// capture yet, a redirect, or an error status).
pub(crate) fn document_at(captures: &[Capture], date: &ReplayDate) -> Option<Capture> {
    pick_capture(captures, date, Pick::Before)
        .filter(|capture| {
            redirect_target(capture).is_none()
                && capture
                    .status
                    .is_none_or(|s| (200..300).contains(&s) || s == 304)
        })
        .cloned()
}

/// Why a capture contributes no graph to a dataset.
pub(crate) enum NoGraph {
    /// It is not a document: an error status, or a payload neither labelled nor sniffed as
    /// RDF (a robots.txt, an HTML page).
    NotDocument,
    /// It should have been one but could not be read or parsed (the reason, for the report).
    Failed(String),
}

/// One document's graph (and the parse error if it is partial), or why there is none.
pub(crate) fn graph_of(
    archive: &ReplayArchive,
    files: &OpenWarcFiles,
    capture: &Capture,
) -> Result<(Graph, Option<String>), NoGraph> {
    let failed = |e: ReplayError| NoGraph::Failed(e.to_string());
    let response = archive.response_in(files, capture).map_err(failed)?;
    let status = response.head.status.or(capture.status);
    if !status.is_some_and(|s| (200..300).contains(&s)) {
        return Err(NoGraph::NotDocument);
    }
    let labelled_rdf = response
        .head
        .header("content-type")
        .and_then(Syntax::from_media_type)
        .is_some_and(|syntax| !syntax.is_page());
    match archive.parse(capture, &response) {
        Ok(parsed) => Ok((parsed.graph, parsed.error)),
        Err(ReplayError::NotRdf { .. }) => Err(NoGraph::NotDocument),
        Err(_) if !labelled_rdf => Err(NoGraph::NotDocument),
        Err(error) => Err(failed(error)),
    }
}

/// Whether a capture is a successful answer whose type or first bytes are RDF; `None` when
/// it cannot be read.
fn looks_like_document(
    archive: &ReplayArchive,
    files: &OpenWarcFiles,
    capture: &Capture,
) -> Option<bool> {
    let response = archive.response_in(files, capture).ok()?;
    let status = response.head.status.or(capture.status);
    let prefix = &response.payload[..response.payload.len().min(SNIFF_LEN)];
    Some(
        status.is_some_and(|s| (200..300).contains(&s))
            && (response.head.header("content-encoding").is_some()
                || !choose_syntaxes(response.head.header("content-type"), prefix).is_empty()),
    )
}

/// Writes the dataset in `scope` as of `date` to `out`, one named graph per document
/// (the document URL), blank nodes kept apart per document. Streams: memory holds one batch
/// of documents, never the whole snapshot. `report` receives one line per document left out
/// or partial.
pub fn snapshot(
    archive: &ReplayArchive,
    scope: &Scope,
    date: &ReplayDate,
    format: SnapshotFormat,
    out: &mut dyn Write,
    report: &mut dyn FnMut(&str),
) -> Result<SnapshotSummary, ReplayError> {
    if format == SnapshotFormat::NQuadsGzip {
        let mut compressed = flate2::write::GzEncoder::new(out, flate2::Compression::default());
        let summary = snapshot(
            archive,
            scope,
            date,
            SnapshotFormat::NQuads,
            &mut compressed,
            report,
        )?;
        compressed
            .finish()
            .map_err(|e| ReplayError::io(format!("writing the snapshot: {e}")))?;
        return Ok(summary);
    }
    let mut summary = SnapshotSummary::default();
    let mut failure: Option<std::io::Error> = None;
    let mut hdt = (format == SnapshotFormat::Hdt).then(HdtWriter::new);
    let files = OpenWarcFiles::for_scan();
    let scanned = ordered_pipeline(
        |emit| scan_documents(archive, scope, date, emit),
        |capture| {
            graph_of(archive, &files, capture).map(|(graph, error)| {
                let prefix = blank_prefix(capture);
                let rendered = match format {
                    SnapshotFormat::Hdt => Rendered::Hdt(HdtDocument::from_graph(&graph, &prefix)),
                    _ => Rendered::Text(render_document(&graph, &capture.url, format, &prefix)),
                };
                (graph.len(), rendered, error)
            })
        },
        |captures, rendered| {
            for (capture, result) in captures.iter().zip(rendered) {
                match result {
                    Ok((statements, rendered, error)) => {
                        match rendered {
                            Rendered::Text(text) => {
                                if failure.is_none()
                                    && let Err(e) = out.write_all(text.as_bytes())
                                {
                                    failure = Some(e);
                                }
                            }
                            Rendered::Hdt(document) => {
                                if let Some(writer) = hdt.as_mut() {
                                    writer.add_document(&document);
                                }
                                if document.left_out() > 0 {
                                    // Counted once with a parse error's partial graph.
                                    summary.partial += u64::from(error.is_none());
                                    report(&format!(
                                        "{}: {} statements left out of the HDT file (RDF 1.2 \
                                         triple terms or NUL characters, which HDT cannot hold)",
                                        capture.url,
                                        document.left_out()
                                    ));
                                }
                            }
                        }
                        summary.documents += 1;
                        summary.statements += statements as u64;
                        if let Some(error) = error {
                            summary.partial += 1;
                            report(&format!("{}: partial graph: {error}", capture.url));
                        }
                    }
                    Err(NoGraph::NotDocument) => summary.not_documents += 1,
                    Err(NoGraph::Failed(reason)) => {
                        summary.failed += 1;
                        report(&format!("left out: {reason}"));
                    }
                }
            }
        },
    );
    summary.not_documents += scanned?;
    if let Some(writer) = hdt
        && failure.is_none()
    {
        let base = format!("urn:ldwarc:snapshot:{}", date.timestamp());
        let started = std::time::Instant::now();
        match writer.write(&base, out) {
            Ok(written) => {
                // The part of the time HDT adds to reading the documents: sorting and writing.
                tracing::debug!(
                    "HDT dictionary and triples ({} distinct triples) written in {:.2} s",
                    written.triples,
                    started.elapsed().as_secs_f64()
                );
                summary.hdt = Some(written);
            }
            Err(e) => failure = Some(e),
        }
    }
    match failure {
        Some(error) => Err(ReplayError::io(format!("writing the snapshot: {error}"))),
        None => Ok(summary),
    }
}

/// Emits, in batches of [`BATCH`] in SURT order, the capture holding each URL's document
/// in `scope` at `date`; returns how many URLs had none then.
fn scan_documents(
    archive: &ReplayArchive,
    scope: &Scope,
    date: &ReplayDate,
    emit: &mut dyn FnMut(Vec<Capture>),
) -> Result<u64, ReplayError> {
    let mut not_documents = 0u64;
    let mut batch: Vec<Capture> = Vec::with_capacity(BATCH);
    scan_urls(archive, scope, |_, captures| {
        match document_at(captures, date) {
            None => not_documents += 1,
            Some(capture) => {
                batch.push(capture);
                if batch.len() >= BATCH {
                    emit(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                }
            }
        }
    })?;
    emit(batch);
    Ok(not_documents)
}

/// The prefix of a capture's blank node labels: unique per record (its file, by a stable
/// hash of the name, and its offset), so that no two documents of one output share a blank
/// node, even captures of the same second at the same offset of two files.
pub(crate) fn blank_prefix(capture: &Capture) -> String {
    format!(
        "t{}f{:016x}o{}",
        capture.time_micros,
        ldwarc_archive::stable_hash::fnv1a_64(&capture.filename),
        capture.offset
    )
}

fn render_document(graph: &Graph, url: &str, format: SnapshotFormat, blank_prefix: &str) -> String {
    let name = format!("<{url}>");
    let mut text = String::new();
    match format {
        SnapshotFormat::NQuads | SnapshotFormat::NQuadsGzip => {
            for quad in graph.quads() {
                graph.spell_quad(quad, Some(&name), blank_prefix, &mut text);
            }
        }
        SnapshotFormat::TriG => {
            // Statements the document put in its own named graphs keep them.
            let (default, named): (Vec<_>, Vec<_>) = graph
                .quads()
                .iter()
                .partition(|q| q.graph == ldwarc_rdf::DEFAULT_GRAPH);
            text.push_str(&name);
            text.push_str(" {\n");
            for quad in default {
                graph.spell_quad(quad, None, blank_prefix, &mut text);
            }
            text.push_str("}\n");
            for quad in named {
                graph.spell_quad(quad, None, blank_prefix, &mut text);
            }
        }
        SnapshotFormat::JsonLines => render_json_line(graph, url, &mut text),
        // The HDT writer takes the statements themselves.
        SnapshotFormat::Hdt => {}
    }
    text
}

fn render_json_line(graph: &Graph, url: &str, text: &mut String) {
    let mut jsonld = Vec::new();
    let graph_value = match ldwarc_rdf::write_graph(graph, OutputFormat::JsonLd, None, &mut jsonld)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            serde_json::from_slice::<serde_json::Value>(&jsonld).map_err(|e| e.to_string())
        }) {
        Ok(value) => value,
        // A graph JSON-LD cannot carry (RDF 1.2 triple terms) is reported in the line itself.
        Err(error) => serde_json::json!({ "error": error }),
    };
    let line = serde_json::json!({ "document": url, "graph": graph_value });
    text.push_str(&line.to_string());
    text.push('\n');
}

/// How a document differs between two dates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocumentChange {
    /// A document at the second date only.
    Added,
    /// A document at the first date only.
    Removed,
    /// A document at both dates with different graphs.
    Changed,
    /// A document at both dates with the same graph.
    Unchanged,
    /// One of the two could not be read or parsed (the reason).
    Failed(String),
}

impl DocumentChange {
    /// A short word for tables.
    pub fn label(&self) -> &'static str {
        match self {
            DocumentChange::Added => "added",
            DocumentChange::Removed => "removed",
            DocumentChange::Changed => "changed",
            DocumentChange::Unchanged => "unchanged",
            DocumentChange::Failed(_) => "failed",
        }
    }
}

/// One document's difference between two dates.
#[derive(Clone, Debug)]
pub struct DocumentDiff {
    /// The document URL.
    pub url: String,
    /// What happened to it.
    pub change: DocumentChange,
    /// Its capture at the first date, if it was a document then.
    pub old: Option<Capture>,
    /// Its capture at the second date, if it is a document then.
    pub new: Option<Capture>,
    /// The statement-level difference (for added/removed documents, everything is
    /// added/removed); `None` when both captures have the same payload digest.
    pub diff: Option<GraphDiff>,
}

/// Counts of a dataset diff.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DatasetDiffSummary {
    /// Documents only at the second date.
    pub added: u64,
    /// Documents only at the first date.
    pub removed: u64,
    /// Documents whose graph changed.
    pub changed: u64,
    /// Documents whose graph did not change.
    pub unchanged: u64,
    /// Documents that could not be compared.
    pub failed: u64,
    /// Statements added over all documents.
    pub statements_added: u64,
    /// Statements removed over all documents.
    pub statements_removed: u64,
}

/// Compares every document in `scope` between `first` and `second`, handing each document
/// that was a document at either date to `visit` in SURT order. Documents with the same
/// payload digest at both dates are unchanged without being parsed.
pub fn diff_dataset(
    archive: &ReplayArchive,
    scope: &Scope,
    first: &ReplayDate,
    second: &ReplayDate,
    visit: &mut dyn FnMut(&DocumentDiff),
) -> Result<DatasetDiffSummary, ReplayError> {
    let mut summary = DatasetDiffSummary::default();
    let files = OpenWarcFiles::for_scan();
    ordered_pipeline(
        |emit| {
            let mut batch = Vec::with_capacity(BATCH);
            scan_urls(archive, scope, |url, captures| {
                let old = document_at(captures, first);
                let new = document_at(captures, second);
                if old.is_none() && new.is_none() {
                    return;
                }
                batch.push((url.to_string(), old, new));
                if batch.len() >= BATCH {
                    emit(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                }
            })?;
            emit(batch);
            Ok::<(), ReplayError>(())
        },
        |(url, old, new)| compare(archive, &files, url, old, new),
        |_, results| {
            for result in results.into_iter().flatten() {
                summary.add(&result);
                visit(&result);
            }
        },
    )?;
    Ok(summary)
}

impl DatasetDiffSummary {
    fn add(&mut self, document: &DocumentDiff) {
        match document.change {
            DocumentChange::Added => self.added += 1,
            DocumentChange::Removed => self.removed += 1,
            DocumentChange::Changed => self.changed += 1,
            DocumentChange::Unchanged => self.unchanged += 1,
            DocumentChange::Failed(_) => self.failed += 1,
        }
        if let Some(diff) = &document.diff {
            self.statements_added += diff.added_count() as u64;
            self.statements_removed += diff.removed_count() as u64;
        }
    }
}

fn compare(
    archive: &ReplayArchive,
    files: &OpenWarcFiles,
    url: &str,
    old: &Option<Capture>,
    new: &Option<Capture>,
) -> Option<DocumentDiff> {
    let result = |change, diff| DocumentDiff {
        url: url.to_string(),
        change,
        old: old.clone(),
        new: new.clone(),
        diff,
    };
    if let (Some(a), Some(b)) = (old, new)
        && a.digest.is_some()
        && a.digest == b.digest
    {
        // The same payload: unchanged if it is a document at all, which its head and first
        // bytes tell without parsing.
        match looks_like_document(archive, files, b) {
            Some(true) => return Some(result(DocumentChange::Unchanged, None)),
            Some(false) => return None,
            None => {} // unreadable: the full comparison reports why
        }
    }
    // `None`: no document at that date.
    let graph = |capture: &Option<Capture>| -> Result<Option<Graph>, String> {
        match capture.as_ref().map(|c| graph_of(archive, files, c)) {
            None | Some(Err(NoGraph::NotDocument)) => Ok(None),
            Some(Ok((graph, _))) => Ok(Some(graph)),
            Some(Err(NoGraph::Failed(reason))) => Err(reason),
        }
    };
    let (old_graph, new_graph) = match (graph(old), graph(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(reason), _) | (_, Err(reason)) => {
            return Some(result(DocumentChange::Failed(reason), None));
        }
    };
    let change = match (&old_graph, &new_graph) {
        (None, None) => return None,
        (None, Some(_)) => DocumentChange::Added,
        (Some(_), None) => DocumentChange::Removed,
        (Some(_), Some(_)) => DocumentChange::Changed,
    };
    let difference = diff(
        old_graph.as_ref().unwrap_or(&Graph::new()),
        new_graph.as_ref().unwrap_or(&Graph::new()),
    );
    let change = if change == DocumentChange::Changed && difference.is_empty() {
        DocumentChange::Unchanged
    } else {
        change
    };
    Some(result(change, Some(difference)))
}

/// Calls `visit` with every document in `scope` as of `date` — the documents [`snapshot`]
/// writes, in the same order — with its capture, its graph and the prefix that keeps its
/// blank node labels apart from other documents'. Documents are parsed on the worker threads
/// one batch at a time; `visit` returning `Break` stops the scan (the summary then counts what
/// was visited). `report` receives one line per document left out or partial.
pub fn visit_documents(
    archive: &ReplayArchive,
    scope: &Scope,
    date: &ReplayDate,
    visit: &mut dyn FnMut(&Capture, &Graph, &str) -> std::ops::ControlFlow<()>,
    report: &mut dyn FnMut(&str),
) -> Result<SnapshotSummary, ReplayError> {
    let mut summary = SnapshotSummary::default();
    let mut batch: Vec<Capture> = Vec::with_capacity(BATCH);
    let mut stopped = false;
    let files = OpenWarcFiles::for_scan();
    let mut run_batch = |batch: &mut Vec<Capture>, summary: &mut SnapshotSummary| {
        let graphs = parallel_map(batch, |capture| graph_of(archive, &files, capture));
        for (capture, result) in batch.iter().zip(graphs) {
            if stopped {
                break;
            }
            match result {
                Ok((graph, error)) => {
                    summary.documents += 1;
                    summary.statements += graph.len() as u64;
                    if let Some(error) = error {
                        summary.partial += 1;
                        report(&format!("{}: partial graph: {error}", capture.url));
                    }
                    stopped = visit(capture, &graph, &blank_prefix(capture)).is_break();
                }
                Err(NoGraph::NotDocument) => summary.not_documents += 1,
                Err(NoGraph::Failed(reason)) => {
                    summary.failed += 1;
                    report(&format!("left out: {reason}"));
                }
            }
        }
        batch.clear();
        stopped
    };
    let mut done = false;
    scan_urls(archive, scope, |_, captures| {
        if done {
            return;
        }
        match document_at(captures, date) {
            None => summary.not_documents += 1,
            Some(capture) => {
                batch.push(capture);
                if batch.len() >= BATCH {
                    done = run_batch(&mut batch, &mut summary);
                }
            }
        }
    })?;
    if !done {
        run_batch(&mut batch, &mut summary);
    }
    Ok(summary)
}
