//! The three questions of a versioned triple store (as the BEAR benchmark names them):
//! version materialisation, delta materialisation and version queries, each for one triple
//! pattern, answered from the index's sorted entries without reading any WARC file.

use std::ops::Range;

use super::pattern::TriplePattern;
use super::store::{Entry, TripleIndex};

/// One statement of one document.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match<'a> {
    /// Subject (N-Triples spelling).
    pub subject: &'a str,
    /// Predicate.
    pub predicate: &'a str,
    /// Object.
    pub object: &'a str,
    /// The URL of the document holding it.
    pub document: &'a str,
}

/// What changed between two dates for a pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes<'a> {
    /// Statements held at the second date and not the first.
    pub added: Vec<Match<'a>>,
    /// Statements held at the first date and not the second.
    pub removed: Vec<Match<'a>>,
}

/// A span of time during which a statement held: from the capture that added it to the
/// capture that removed it (exclusive), or still holding at the last capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// Time of the capture where it appeared, microseconds since the epoch (UTC).
    pub start_micros: i64,
    /// Time of the capture where it disappeared; `None` while it still holds.
    pub end_micros: Option<i64>,
}

/// A statement of a document and the intervals it held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TripleHistory<'a> {
    /// The statement and its document.
    pub triple: Match<'a>,
    /// Oldest first, none empty.
    pub intervals: Vec<Interval>,
}

impl TripleIndex {
    /// The term number of a spelling (a linear search: patterns name at most three terms).
    fn term_number(&self, spelling: &str) -> Option<u32> {
        self.terms
            .iter()
            .position(|t| &**t == spelling)
            .map(|n| n as u32)
    }

    /// The entries whose statement matches `pattern` (in one of the three sort orders).
    pub(crate) fn matching(&self, pattern: &TriplePattern) -> Vec<&Entry> {
        let resolve = |term: &super::PatternTerm| match term.bound() {
            None => Ok(None),
            Some(spelling) => self.term_number(spelling).map(Some).ok_or(()),
        };
        let (Ok(s), Ok(p), Ok(o)) = (
            resolve(&pattern.subject),
            resolve(&pattern.predicate),
            resolve(&pattern.object),
        ) else {
            return Vec::new(); // a bound term the index never saw matches nothing
        };
        let keep = |e: &&Entry| {
            s.is_none_or(|s| e.subject == s)
                && p.is_none_or(|p| e.predicate == p)
                && o.is_none_or(|o| e.object == o)
        };
        let entries = &self.entries;
        match (s, p, o) {
            (Some(s), p, _) => {
                let range = equal_range(entries.len(), |i| {
                    let e = &entries[i];
                    (e.subject, p.map(|_| e.predicate)).cmp(&(s, p))
                });
                entries[range].iter().filter(keep).collect()
            }
            (None, Some(p), o) => {
                let order = self.predicate_order();
                let range = equal_range(order.len(), |i| {
                    let e = &entries[order[i] as usize];
                    (e.predicate, o.map(|_| e.object)).cmp(&(p, o))
                });
                order[range].iter().map(|&i| &entries[i as usize]).collect()
            }
            (None, None, Some(o)) => {
                let order = self.object_order();
                let range = equal_range(order.len(), |i| entries[order[i] as usize].object.cmp(&o));
                order[range].iter().map(|&i| &entries[i as usize]).collect()
            }
            (None, None, None) => entries.iter().collect(),
        }
    }

    /// The statement of an entry, spelled, with its document.
    pub(crate) fn entry_match(&self, entry: &Entry) -> Match<'_> {
        self.as_match(entry)
    }

    fn as_match(&self, entry: &Entry) -> Match<'_> {
        Match {
            subject: &self.terms[entry.subject as usize],
            predicate: &self.terms[entry.predicate as usize],
            object: &self.terms[entry.object as usize],
            document: &self.docs[entry.doc as usize].url,
        }
    }

    /// Whether the entry's statement held at `seconds` (Unix time, UTC).
    fn holds_at(&self, entry: &Entry, seconds: i64) -> bool {
        self.docs[entry.doc as usize]
            .version_at(seconds)
            .is_some_and(|version| entry.holds_in(version))
    }

    /// Version materialisation: the statements matching `pattern` at `seconds` (Unix time,
    /// UTC), each with its document, in the order of the pattern's access path.
    pub fn at(&self, pattern: &TriplePattern, seconds: i64) -> Vec<Match<'_>> {
        self.matching(pattern)
            .into_iter()
            .filter(|e| self.holds_at(e, seconds))
            .map(|e| self.as_match(e))
            .collect()
    }

    /// How many statements match `pattern` at `seconds`, without spelling them.
    pub fn count_at(&self, pattern: &TriplePattern, seconds: i64) -> usize {
        self.matching(pattern)
            .into_iter()
            .filter(|e| self.holds_at(e, seconds))
            .count()
    }

    /// Delta materialisation: the statements matching `pattern` added and removed between
    /// `from` and `to` (Unix seconds), per document, as a dataset diff of the two dates.
    pub fn changes(&self, pattern: &TriplePattern, from: i64, to: i64) -> Changes<'_> {
        let mut changes = Changes::default();
        for entry in self.matching(pattern) {
            match (self.holds_at(entry, from), self.holds_at(entry, to)) {
                (false, true) => changes.added.push(self.as_match(entry)),
                (true, false) => changes.removed.push(self.as_match(entry)),
                _ => {}
            }
        }
        changes
    }

    /// Version query: every statement matching `pattern` with the intervals during which it
    /// held, keeping the intervals that overlap `[from, to]` (Unix seconds; `None` leaves
    /// that side open) and the statements that have any.
    pub fn intervals(
        &self,
        pattern: &TriplePattern,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Vec<TripleHistory<'_>> {
        let mut histories = Vec::new();
        for entry in self.matching(pattern) {
            let versions = &self.docs[entry.doc as usize].versions;
            let intervals: Vec<Interval> = entry
                .toggles
                .chunks(2)
                .map(|pair| Interval {
                    start_micros: versions[pair[0] as usize].time_micros,
                    end_micros: pair.get(1).map(|&end| versions[end as usize].time_micros),
                })
                .filter(|i| super::merge::overlaps(i, from, to))
                .collect();
            if !intervals.is_empty() {
                histories.push(TripleHistory {
                    triple: self.as_match(entry),
                    intervals,
                });
            }
        }
        histories
    }
}

/// The positions `0..len` where `compare` (of a sorted sequence against a key) says equal.
fn equal_range(len: usize, compare: impl Fn(usize) -> std::cmp::Ordering) -> Range<usize> {
    let start = partition_point(len, |i| compare(i).is_lt());
    let end = partition_point(len, |i| compare(i).is_le());
    start..end
}

fn partition_point(len: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}
