//! Change detection for one download: at the byte level (the payload digest against the
//! digest of the capture the monitor last compared) and at the RDF level (the RDFC-1.0
//! canonical hash of the new capture's graph against the last one's). The strategy is told
//! the RDF verdict, so a re-serialisation or a blank-node relabelling is not a change; the
//! bytes' verdict stands in when either side has no graph (not RDF, unparseable).
//!
//! The monitor compares with what *it* committed, not with the crawler's per-URL state: a
//! cycle killed after fetching a changed document but before committing would otherwise make
//! the next cycle's download look unchanged and lose the change.

use ldwarc_rdf::{Graph, TermSort, canonical_hash};
use ldwarc_timetravel::replay::{Pick, ReplayArchive, ReplayDate, ReplayError};

/// What the archive holds of a URL after a download.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Seen {
    /// Payload digest of the capture that answered (redirects followed).
    pub digest: Option<String>,
    /// Canonical hash of its graph, when it parsed; `None` also when not parsed because the
    /// digest was the known one (see `parsed`).
    pub graph_hash: Option<String>,
    /// Its links, when parsed.
    pub links: Option<Vec<String>>,
    /// Whether the payload was parsed (only payloads with a new digest are).
    pub parsed: bool,
}

/// The verdict on one download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The URL's first download: nothing to compare with.
    pub first: bool,
    /// The payload bytes differ.
    pub byte_changed: bool,
    /// The graph differs (`None`: no graph on one side).
    pub graph_changed: Option<bool>,
    /// What the strategy is told.
    pub changed: bool,
}

/// Looks up the capture that answers for `url` now and, when its digest is not
/// `known_digest`, parses it for its graph hash and links.
pub fn look(
    archive: &ReplayArchive,
    url: &str,
    known_digest: Option<&str>,
    follow_predicates: &[String],
) -> Result<Seen, String> {
    let date = ReplayDate::from_instant(chrono::Utc::now());
    let resolution = archive
        .resolve(url, &date, Pick::Before)
        .map_err(|e| e.to_string())?;
    let digest = resolution.capture.digest.clone();
    if digest.is_some() && digest.as_deref() == known_digest {
        return Ok(Seen {
            digest,
            ..Seen::default()
        });
    }
    let (graph_hash, links) = match archive.document_of(resolution) {
        Ok(document) => {
            let graph = &document.parsed.graph;
            (
                Some(canonical_hash(graph).hex),
                Some(links_of(graph, follow_predicates)),
            )
        }
        // The archive could not be read: what the monitor knew of the URL stays as it was.
        Err(error @ (ReplayError::Io(_) | ReplayError::UnresolvedRevisit { .. })) => {
            return Err(error.to_string());
        }
        // The document is no RDF graph now (not RDF, undecodable, an error status): it has
        // no graph and links to nothing.
        Err(_) => (None, Some(Vec::new())),
    };
    Ok(Seen {
        digest,
        graph_hash,
        links,
        parsed: true,
    })
}

/// Compares a download with the previous one the monitor committed.
pub fn verdict(
    first: bool,
    previous_digest: Option<&str>,
    previous_graph: Option<&str>,
    seen: &Seen,
) -> Verdict {
    if first {
        return Verdict {
            first: true,
            byte_changed: false,
            graph_changed: None,
            changed: false,
        };
    }
    let byte_changed = seen.digest.is_none() || seen.digest.as_deref() != previous_digest;
    let graph_changed = if !byte_changed {
        Some(false)
    } else {
        match (previous_graph, seen.graph_hash.as_deref()) {
            (Some(old), Some(new)) => Some(old != new),
            _ => None,
        }
    };
    Verdict {
        first: false,
        byte_changed,
        graph_changed,
        changed: graph_changed.unwrap_or(byte_changed),
    }
}

/// The http(s) IRIs of a graph as document URLs (fragment dropped), first seen first: every
/// IRI in any position, or with `follow_predicates` only the objects of those predicates
/// (the crawler's link rules).
pub fn links_of(graph: &Graph, follow_predicates: &[String]) -> Vec<String> {
    let mut links: Vec<String> = Vec::new();
    let mut add = |id| {
        if graph.sort(id) != TermSort::Iri {
            return;
        }
        let spelled = graph.term(id);
        let iri = spelled.trim_start_matches('<').trim_end_matches('>');
        if let Some(url) = crate::normalize(iri)
            && !links.contains(&url)
        {
            links.push(url);
        }
    };
    for quad in graph.quads() {
        if follow_predicates.is_empty() {
            quad.terms().for_each(&mut add);
        } else {
            let predicate = graph.term(quad.predicate);
            let predicate = predicate.trim_start_matches('<').trim_end_matches('>');
            if follow_predicates.iter().any(|p| p == predicate) {
                add(quad.object);
            }
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(digest: &str, graph: Option<&str>) -> Seen {
        Seen {
            digest: Some(digest.into()),
            graph_hash: graph.map(str::to_string),
            links: None,
            parsed: graph.is_some(),
        }
    }

    #[test]
    fn the_graph_decides_and_the_bytes_stand_in() {
        let first = verdict(true, None, None, &seen("A", Some("g1")));
        assert!(first.first && !first.changed);
        // Same bytes: unchanged at both levels.
        let same = verdict(false, Some("A"), Some("g1"), &seen("A", None));
        assert_eq!(
            (same.byte_changed, same.graph_changed, same.changed),
            (false, Some(false), false)
        );
        // New bytes, same graph (a re-serialisation): not a change.
        let reserialised = verdict(false, Some("A"), Some("g1"), &seen("B", Some("g1")));
        assert_eq!(
            (
                reserialised.byte_changed,
                reserialised.graph_changed,
                reserialised.changed
            ),
            (true, Some(false), false)
        );
        // New graph: a change.
        let changed = verdict(false, Some("A"), Some("g1"), &seen("B", Some("g2")));
        assert!(changed.changed && changed.graph_changed == Some(true));
        // Not RDF on one side: the bytes decide.
        let bytes = verdict(false, Some("A"), None, &seen("B", None));
        assert_eq!((bytes.graph_changed, bytes.changed), (None, true));
    }

    #[test]
    fn links_are_document_urls_of_iris_or_of_followed_objects() {
        let mut graph = Graph::new();
        graph.insert_spelled(
            "<http://a.example/s#it>",
            "<http://a.example/vocab#knows>",
            "<http://b.example/x#me>",
            None,
        );
        graph.insert_spelled(
            "<http://a.example/s>",
            "<http://a.example/vocab#name>",
            "\"A\"",
            None,
        );
        assert_eq!(
            links_of(&graph, &[]),
            vec![
                "http://a.example/s",
                "http://a.example/vocab",
                "http://b.example/x"
            ]
        );
        assert_eq!(
            links_of(&graph, &["http://a.example/vocab#knows".to_string()]),
            vec!["http://b.example/x"]
        );
    }
}
