//! A URL's history: every capture with its status and digest, and whether the RDF graph
//! changed, judged by the RDFC-1.0 canonical hash so that a re-serialisation or blank-node
//! relabelling is not a change while any change of the bytes is still shown.

use std::collections::HashMap;

use ldwarc_archive::index::Capture;
use ldwarc_rdf::{GraphHash, canonical_hash};

use super::error::ReplayError;
use super::resolve::{ReplayArchive, redirect_target};

/// How one capture relates to the document's previous graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryChange {
    /// The first capture with a graph.
    First,
    /// The graph differs from the previous capture's graph.
    Changed,
    /// The payload bytes differ, the graph is the same (canonically equal).
    SameGraph,
    /// The payload is byte for byte the previous one.
    Unchanged,
    /// An archived redirect to this URL.
    Redirect(String),
    /// Not a document: an error status or a payload that is not RDF (the reason).
    NoGraph(String),
    /// The capture's record could not be read: a damaged or missing file, or a parser that
    /// broke down on its payload (the error).
    Unreadable(String),
}

impl HistoryChange {
    /// A short word for tables.
    pub fn label(&self) -> &'static str {
        match self {
            HistoryChange::First => "first",
            HistoryChange::Changed => "changed",
            HistoryChange::SameGraph => "same-graph",
            HistoryChange::Unchanged => "unchanged",
            HistoryChange::Redirect(_) => "redirect",
            HistoryChange::NoGraph(_) => "no-graph",
            HistoryChange::Unreadable(_) => "unreadable",
        }
    }
}

/// One capture in a URL's history.
#[derive(Clone, Debug)]
pub struct HistoryEntry {
    /// The capture.
    pub capture: Capture,
    /// Statements in its graph, when it has one.
    pub statements: Option<usize>,
    /// The graph's canonical hash, when it has one.
    pub graph_hash: Option<GraphHash>,
    /// How it relates to the previous graph.
    pub change: HistoryChange,
    /// The parse error that cut its graph short, when the graph is partial.
    pub partial: Option<String>,
}

/// Every capture of `url`, oldest first, each compared with the last capture before it that
/// had a graph. Graphs are parsed once per distinct payload digest.
pub fn history(archive: &ReplayArchive, url: &str) -> Result<Vec<HistoryEntry>, ReplayError> {
    history_until(archive, url, &|| false)
}

/// [`history`], ending early once `stop` says so (asked before each capture is read): the
/// entries of the captures read until then. For servers whose answer may be given up.
pub fn history_until(
    archive: &ReplayArchive,
    url: &str,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<HistoryEntry>, ReplayError> {
    let captures = archive.captures(url)?;
    if captures.is_empty() {
        // Reuse the "never captured" error with its list of nearby URLs.
        archive.pick(
            url,
            &super::ReplayDate::from_instant(chrono::Utc::now()),
            super::Pick::Before,
        )?;
    }
    let mut by_digest: HashMap<String, Result<GraphSummary, NoSummary>> = HashMap::new();
    let mut previous: Option<PreviousGraph> = None;
    let mut entries = Vec::with_capacity(captures.len());
    for capture in captures {
        if stop() {
            break;
        }
        if let Some(target) = redirect_target(&capture) {
            entries.push(HistoryEntry {
                capture,
                statements: None,
                graph_hash: None,
                change: HistoryChange::Redirect(target),
                partial: None,
            });
            continue;
        }
        let key = capture
            .digest
            .clone()
            .unwrap_or_else(|| capture.timestamp.clone());
        let graph = match by_digest.get(&key) {
            Some(known) => known.clone(),
            None => {
                let computed = graph_summary(archive, &capture);
                // Another record of the same payload may be readable where this one is not.
                if !matches!(computed, Err(NoSummary::Unreadable(_))) {
                    by_digest.insert(key, computed.clone());
                }
                computed
            }
        };
        let entry = match graph {
            Err(why) => HistoryEntry {
                capture,
                statements: None,
                graph_hash: None,
                change: match why {
                    NoSummary::NotDocument(reason) => HistoryChange::NoGraph(reason),
                    NoSummary::Unreadable(error) => HistoryChange::Unreadable(error),
                },
                partial: None,
            },
            Ok((statements, hash, partial)) => {
                // A revisit's payload is its original's: one that points where the previous
                // payload lies (a 304 without a digest, say) repeats it byte for byte.
                let payload_at = archive
                    .response_location(&capture)
                    .ok()
                    .map(|(filename, offset, _)| (filename, offset));
                let change = match &previous {
                    None => HistoryChange::First,
                    Some((digest, _, _)) if digest.is_some() && *digest == capture.digest => {
                        HistoryChange::Unchanged
                    }
                    Some((_, at, _)) if at.is_some() && *at == payload_at => {
                        HistoryChange::Unchanged
                    }
                    Some((_, _, earlier)) if earlier.hex == hash.hex => HistoryChange::SameGraph,
                    Some(_) => HistoryChange::Changed,
                };
                previous = Some((capture.digest.clone(), payload_at, hash.clone()));
                HistoryEntry {
                    capture,
                    statements: Some(statements),
                    graph_hash: Some(hash),
                    change,
                    partial,
                }
            }
        };
        entries.push(entry);
    }
    Ok(entries)
}

/// The capture of the previous graph: its payload digest, where its payload lies (file and
/// offset), and the graph's hash.
type PreviousGraph = (Option<String>, Option<(String, u64)>, GraphHash);

/// A graph's statement count, canonical hash, and the error that cut it short if any.
type GraphSummary = (usize, GraphHash, Option<String>);

/// Why a capture has no graph summary.
#[derive(Clone)]
enum NoSummary {
    /// An error status or a payload that is not RDF.
    NotDocument(String),
    /// The record could not be read.
    Unreadable(String),
}

/// The statement count and canonical hash of a capture's graph, or why it has none.
fn graph_summary(archive: &ReplayArchive, capture: &Capture) -> Result<GraphSummary, NoSummary> {
    let response = archive.response(capture).map_err(|error| match error {
        ReplayError::Io(_) => NoSummary::Unreadable(error.to_string()),
        // A revisit of a payload outside the archive, say: no damage, just no graph.
        other => NoSummary::NotDocument(other.to_string()),
    })?;
    let status = response.head.status.or(capture.status);
    if !status.is_some_and(|s| (200..300).contains(&s)) {
        return Err(NoSummary::NotDocument(format!(
            "HTTP {}",
            status.map_or("status unknown".to_string(), |s| s.to_string())
        )));
    }
    let parsed = archive.parse(capture, &response).map_err(|e| {
        let error = e.to_string();
        // A parser that broke down on the payload failed it: reported, not "no graph".
        if ldwarc_rdf::parser_panicked(&error) {
            NoSummary::Unreadable(error)
        } else {
            NoSummary::NotDocument(error)
        }
    })?;
    Ok((
        parsed.graph.len(),
        canonical_hash(&parsed.graph),
        parsed.error.clone(),
    ))
}
