//! Version queries over several archive roots answered as one archive: each root has its own
//! triple index, and a document captured in several roots has as its versions the captures
//! of all of them in time order (a capture held by two roots counted once, from the first
//! root given), as the merged capture index orders them.

use std::collections::BTreeMap;

use super::pattern::TriplePattern;
use super::query::{Interval, Match, TripleHistory};
use super::store::{Entry, TripleIndex};

/// One capture of a document in one root: (time, root, version number there, file, offset).
type RootVersion<'a> = (i64, usize, u32, &'a str, u64);

/// Version query over several roots: as [`TripleIndex::intervals`] over the archive the
/// roots make together. With one root it is that root's answer.
pub fn intervals_across<'a>(
    indexes: &'a [TripleIndex],
    pattern: &TriplePattern,
    from: Option<i64>,
    to: Option<i64>,
) -> Vec<TripleHistory<'a>> {
    if let [index] = indexes {
        return index.intervals(pattern, from, to);
    }
    // Statement (with its document) → the entry of each root holding it.
    let mut statements: BTreeMap<Match<'a>, Vec<(usize, &'a Entry)>> = BTreeMap::new();
    for (root, index) in indexes.iter().enumerate() {
        for entry in index.matching(pattern) {
            statements
                .entry(index.entry_match(entry))
                .or_default()
                .push((root, entry));
        }
    }
    let mut timelines: BTreeMap<&'a str, Vec<RootVersion<'a>>> = BTreeMap::new();
    let mut histories = Vec::new();
    for (statement, entries) in statements {
        let timeline = timelines
            .entry(statement.document)
            .or_insert_with(|| merged_versions(indexes, statement.document));
        let intervals: Vec<Interval> = intervals_over(timeline, &entries)
            .into_iter()
            .filter(|i| overlaps(i, from, to))
            .collect();
        if !intervals.is_empty() {
            histories.push(TripleHistory {
                triple: statement,
                intervals,
            });
        }
    }
    histories
}

/// The captures of document `url` in every root, oldest first (ties: the first root first),
/// a capture found in two roots (same time, file and offset) kept once.
fn merged_versions<'a>(indexes: &'a [TripleIndex], url: &str) -> Vec<RootVersion<'a>> {
    let mut versions: Vec<RootVersion<'a>> = Vec::new();
    for (root, index) in indexes.iter().enumerate() {
        if let Some(doc) = index.documents().iter().find(|d| d.url == url) {
            versions.extend(
                doc.versions
                    .iter()
                    .enumerate()
                    .map(|(n, v)| (v.time_micros, root, n as u32, v.filename.as_str(), v.offset)),
            );
        }
    }
    versions.sort_by_key(|&(time, root, ..)| (time, root));
    versions.dedup_by(|later, earlier| {
        (later.0, later.3, later.4) == (earlier.0, earlier.3, earlier.4)
    });
    versions
}

/// The intervals over `timeline` during which the statement held, from each root's entry
/// for it (a root without one never held it).
fn intervals_over(timeline: &[RootVersion<'_>], entries: &[(usize, &Entry)]) -> Vec<Interval> {
    let mut intervals = Vec::new();
    let mut open: Option<i64> = None;
    for &(time, root, version, ..) in timeline {
        let holds = entries
            .iter()
            .find(|(r, _)| *r == root)
            .is_some_and(|(_, entry)| entry.holds_in(version));
        match (holds, open) {
            (true, None) => open = Some(time),
            (false, Some(start)) => {
                intervals.push(Interval {
                    start_micros: start,
                    end_micros: Some(time),
                });
                open = None;
            }
            _ => {}
        }
    }
    if let Some(start) = open {
        intervals.push(Interval {
            start_micros: start,
            end_micros: None,
        });
    }
    intervals
}

/// Whether the interval overlaps `[from, to]` (Unix seconds, either side open).
pub(crate) fn overlaps(interval: &Interval, from: Option<i64>, to: Option<i64>) -> bool {
    let seconds = |micros: i64| micros.div_euclid(1_000_000);
    let (start, end) = (
        seconds(interval.start_micros),
        interval.end_micros.map(seconds),
    );
    to.is_none_or(|to| start <= to) && from.is_none_or(|from| end.is_none_or(|end| end > from))
}
