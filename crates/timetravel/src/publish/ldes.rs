//! The archive's history as a Linked Data Event Stream (LDES on TREE).
//!
//! A *member* is a capture whose graph changed, as `ldwarc history` classifies captures
//! ([`member_kinds`]): a URL's first graph, each changed graph, and a graph that comes back
//! after a removal are *versions*; the first capture after a graph that has none (an error
//! status, a redirect, a payload that is not RDF) is a *tombstone* (`as:Delete`). The member's
//! IRI is its memento URI (`/web/TIMESTAMP/URL`), its `prov:generatedAtTime` the capture
//! time, its `dct:isVersionOf` the URL; a version's statements are in the named graph of the
//! member IRI.
//!
//! Members are ordered by capture time and cut into pages of about [`DEFAULT_PAGE_SIZE`]
//! (never splitting one instant over two pages). The view, `/ldes`, relates each page by
//! `tree:GreaterThanOrEqualToRelation` (its first instant) and, except the newest,
//! `tree:LessThanRelation` (the next page's first instant) on `prov:generatedAtTime`; pages
//! have no relations of their own, so everything reachable from a relation satisfies it.
//! Nothing is ever removed from the stream: the archive keeps every capture.

use std::io::Write;
use std::ops::Range;

use ldwarc_archive::index::Capture;
use ldwarc_rdf::{DEFAULT_GRAPH, Quad};

use super::terms::{
    AS, DCT, LDES, PROV, RDF_TYPE, RDFS, TREE, date_time, instant, iri, literal, term,
};
use crate::replay::dataset::{NoGraph, blank_prefix, graph_of, scan_urls};
use crate::replay::{
    HistoryChange, HistoryEntry, OpenWarcFiles, ReplayArchive, ReplayError, Scope,
};

/// Members per page, unless more share one instant.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// What a member says of its URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    /// A new graph (the first, a changed one, or one back after a removal).
    Version,
    /// The graph is gone (an error status, a redirect, a payload that is not RDF).
    Tombstone,
}

/// One member of the stream.
#[derive(Clone, Debug)]
pub struct Member {
    /// The URL it is a version of.
    pub url: String,
    /// The capture.
    pub capture: Capture,
    /// Version or tombstone.
    pub kind: MemberKind,
}

/// Which of a URL's history entries are members, and of which kind: entries `first` and
/// `changed` are versions; `same-graph` and `unchanged` are versions only when the graph had
/// been removed before them; `redirect` and `no-graph` after a graph are tombstones;
/// unreadable captures are nothing (the next readable one decides).
pub fn member_kinds(entries: &[HistoryEntry]) -> Vec<(usize, MemberKind)> {
    let mut live = false;
    let mut members = Vec::new();
    for (at, entry) in entries.iter().enumerate() {
        match &entry.change {
            HistoryChange::First | HistoryChange::Changed => {
                members.push((at, MemberKind::Version));
                live = true;
            }
            HistoryChange::SameGraph | HistoryChange::Unchanged => {
                if !live {
                    members.push((at, MemberKind::Version));
                }
                live = true;
            }
            HistoryChange::Redirect(_) | HistoryChange::NoGraph(_) => {
                if live {
                    members.push((at, MemberKind::Tombstone));
                }
                live = false;
            }
            HistoryChange::Unreadable(_) => {}
        }
    }
    members
}

/// The stream: its members in time order and its pages.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// Members, ordered by capture time, then URL.
    pub members: Vec<Member>,
    /// Each page's range of `members`, oldest first.
    pub pages: Vec<Range<usize>>,
}

impl Stream {
    /// Bytes held, roughly (for the server's memory accounting).
    pub fn approximate_bytes(&self) -> usize {
        self.members
            .iter()
            .map(|m| 320 + 2 * m.url.len() + m.capture.filename.len() + m.capture.urlkey.len())
            .sum::<usize>()
            + self.pages.len() * 16
    }
}

/// Builds the stream of `archive`: every URL's history (graphs parsed once per payload
/// digest), its members, cut into pages of `page_size` (at least 1). `stop` is asked before
/// each URL; once it says so the work ends with `Ok(None)`.
pub fn stream(
    archive: &ReplayArchive,
    page_size: usize,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Stream>, ReplayError> {
    let mut urls: Vec<String> = Vec::new();
    scan_urls(archive, &Scope::All, |url, _| urls.push(url.to_string()))?;
    let mut members = Vec::new();
    for url in urls {
        if stop() {
            return Ok(None);
        }
        let entries = crate::replay::history_until(archive, &url, stop)?;
        for (at, kind) in member_kinds(&entries) {
            members.push(Member {
                url: url.clone(),
                capture: entries[at].capture.clone(),
                kind,
            });
        }
    }
    members.sort_by(|a, b| (a.capture.time_micros, &a.url).cmp(&(b.capture.time_micros, &b.url)));
    let page_size = page_size.max(1);
    let mut pages: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for at in 1..=members.len() {
        let full = at - start >= page_size;
        let boundary = at == members.len()
            || members[at].capture.time_micros != members[at - 1].capture.time_micros;
        if at == members.len() || (full && boundary) {
            pages.push(start..at);
            start = at;
        }
    }
    Ok(Some(Stream { members, pages }))
}

/// The memento URI of a capture under `base`: the member's IRI.
fn member_iri(base: &str, member: &Member) -> String {
    iri(&format!(
        "{base}/web/{}/{}",
        member.capture.timestamp, member.url
    ))
}

fn stream_iri(base: &str) -> String {
    iri(&format!("{base}/ldes#stream"))
}

fn page_iri(base: &str, page: usize) -> String {
    iri(&format!("{base}/ldes/{page}"))
}

fn triple(out: &mut String, s: &str, p: &str, o: &str) {
    out.push_str(s);
    out.push(' ');
    out.push_str(p);
    out.push(' ');
    out.push_str(o);
    out.push_str(" .\n");
}

/// Writes the view `/ldes` as N-Quads (all in the default graph, so also N-Triples and
/// TriG): the event stream, its paths, its retention, and a relation pair per page.
pub fn write_root(stream: &Stream, base: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let mut text = String::new();
    let events = stream_iri(base);
    let view = iri(&format!("{base}/ldes"));
    triple(&mut text, &events, RDF_TYPE, &term(LDES, "EventStream"));
    triple(
        &mut text,
        &events,
        &term(LDES, "timestampPath"),
        &term(PROV, "generatedAtTime"),
    );
    triple(
        &mut text,
        &events,
        &term(LDES, "versionOfPath"),
        &term(DCT, "isVersionOf"),
    );
    triple(&mut text, &events, &term(TREE, "view"), &view);
    triple(
        &mut text,
        &events,
        &term(RDFS, "comment"),
        &literal(
            "Every capture whose graph changed, oldest first; removals are as:Delete \
             tombstones. Retention: none applies, every member is kept (the archive never \
             deletes a capture).",
        ),
    );
    triple(&mut text, &view, RDF_TYPE, &term(TREE, "Node"));
    let path = term(PROV, "generatedAtTime");
    for (page, range) in stream.pages.iter().enumerate() {
        let node = page_iri(base, page);
        let from = instant(stream.members[range.start].capture.time_micros);
        let mut relate = |kind: &str, value: String, suffix: &str| {
            let relation = format!("_:r{page}{suffix}");
            triple(&mut text, &view, &term(TREE, "relation"), &relation);
            triple(&mut text, &relation, RDF_TYPE, &term(TREE, kind));
            triple(&mut text, &relation, &term(TREE, "node"), &node);
            triple(&mut text, &relation, &term(TREE, "path"), &path);
            triple(&mut text, &relation, &term(TREE, "value"), &value);
        };
        relate("GreaterThanOrEqualToRelation", date_time(from), "from");
        if let Some(next) = stream.pages.get(page + 1) {
            let until = instant(stream.members[next.start].capture.time_micros);
            relate("LessThanRelation", date_time(until), "until");
        }
    }
    out.write_all(text.as_bytes())
}

/// Writes page `page` (which must exist) as N-Quads: its members, each version's statements
/// in the member's named graph (read and parsed now, blank nodes kept apart per capture).
pub fn write_page(
    archive: &ReplayArchive,
    stream: &Stream,
    base: &str,
    page: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut text = String::new();
    let node = page_iri(base, page);
    let events = stream_iri(base);
    triple(&mut text, &node, RDF_TYPE, &term(TREE, "Node"));
    triple(&mut text, &node, &term(DCT, "isPartOf"), &events);
    let files = OpenWarcFiles::new(4);
    for member in &stream.members[stream.pages[page].clone()] {
        let subject = member_iri(base, member);
        triple(&mut text, &events, &term(TREE, "member"), &subject);
        triple(
            &mut text,
            &subject,
            &term(PROV, "generatedAtTime"),
            &date_time(instant(member.capture.time_micros)),
        );
        triple(
            &mut text,
            &subject,
            &term(DCT, "isVersionOf"),
            &iri(&member.url),
        );
        match member.kind {
            MemberKind::Tombstone => {
                triple(&mut text, &subject, RDF_TYPE, &term(AS, "Delete"));
            }
            MemberKind::Version => match graph_of(archive, &files, &member.capture) {
                Ok((graph, _)) => {
                    let prefix = blank_prefix(&member.capture);
                    for quad in graph.quads() {
                        // The member's graph holds all its statements, whatever graph the
                        // document put them in.
                        let quad = Quad {
                            graph: DEFAULT_GRAPH,
                            ..*quad
                        };
                        graph.spell_quad(&quad, Some(&subject), &prefix, &mut text);
                    }
                }
                Err(NoGraph::NotDocument) => {
                    tracing::warn!(url = %member.url, "an LDES member's capture has no graph now");
                }
                Err(NoGraph::Failed(reason)) => {
                    tracing::warn!(url = %member.url, %reason, "an LDES member's capture could not be read");
                }
            },
        }
    }
    out.write_all(text.as_bytes())
}
