//! The figures behind the chart pages (`/overview`'s charts, `/pld`, `/dataset`): every
//! document's graph history read once (the same [`history`] `ldwarc stats` and the timeline
//! read: RDF changes by canonical hash), summed per week and pay-level domain, each
//! document's change rate, the hierarchical Weibull fit of the archive's mean change times
//! with its 95% interval, and the crawls (snapshots) with their datasets.
//!
//! Reading every document parses every distinct payload, far more than a request may take on
//! a large archive, so it runs on a thread of its own: the first page that asks starts it and
//! says so; later pages draw from the finished figures in a few milliseconds. The figures are
//! keyed by the number of captures in the index: when the index grows (the server reloads it
//! every 30 s), the next page that asks starts a new computation and shows the old figures,
//! marked as being refreshed, until it ends.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ldwarc_dynamics::schedule::strategy::{Policy, Strategy};
use ldwarc_dynamics::snapshots::{snapshot_of, snapshot_starts};
use ldwarc_dynamics::{ChangeEstimates, Visit, page_period};
use ldwarc_surt::pay_level_domain;
use ldwarc_timetravel::replay::{HistoryChange, history, is_replayable};
use ldwarc_timetravel::stats::archive_fit::HierarchicalStats;
use ldwarc_timetravel::stats::archive_fit::hierarchical_stats;
use ldwarc_timetravel::stats::archive_stats::Observation;

use super::{AppState, State};

/// Microseconds in a day.
const MICROS_PER_DAY: f64 = 86_400e6;
/// Seconds in a day.
const DAY_SECONDS: f64 = 86_400.0;

/// The longest pause between two captures of one crawl, days (as `ldwarc stats` cuts
/// snapshots by default: one hour).
pub(crate) const SNAPSHOT_GAP_DAYS: f64 = 1.0 / 24.0;

/// The currency target of the re-crawl intervals shown: a document is kept current with
/// probability α, a change up to β old not counting as stale (`ldwarc plan currency`'s
/// terms).
pub(crate) const ALPHA: f64 = 0.9;
/// β, seconds (one day).
pub(crate) const BETA_SECONDS: f64 = DAY_SECONDS;

/// One capture of a document with a graph.
#[derive(Debug, Clone)]
pub(crate) struct Sight {
    pub(crate) micros: i64,
    pub(crate) timestamp: String,
    pub(crate) statements: usize,
    /// The first 64 bits of the graph's canonical hash.
    pub(crate) graph: u64,
    /// The graph differs from the previous sight's.
    pub(crate) changed: bool,
}

/// A document: a URL with at least one graph.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    pub(crate) url: String,
    pub(crate) pld: String,
    /// Its captures with a graph, oldest first.
    pub(crate) sights: Vec<Sight>,
    /// Cho & Garcia-Molina's bias-reduced change rate, per day (two sights or more).
    pub(crate) rate_per_day: Option<f64>,
    /// The re-crawl interval the planner would give it ([`recrawl_interval`]), seconds:
    /// computed once here, as it is a root search.
    pub(crate) interval_seconds: Option<f64>,
}

impl Doc {
    /// Its latest sight at or before `micros`.
    pub(crate) fn at(&self, micros: i64) -> Option<&Sight> {
        let n = self.sights.partition_point(|s| s.micros <= micros);
        n.checked_sub(1).map(|i| &self.sights[i])
    }

    /// RDF changes seen.
    pub(crate) fn changes(&self) -> usize {
        self.sights.iter().skip(1).filter(|s| s.changed).count()
    }

    /// First to last sight, days.
    pub(crate) fn span_days(&self) -> f64 {
        match (self.sights.first(), self.sights.last()) {
            (Some(a), Some(b)) => (b.micros - a.micros) as f64 / MICROS_PER_DAY,
            _ => 0.0,
        }
    }
}

/// Captures and graph changes of one week.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Week {
    pub(crate) captures: usize,
    pub(crate) changes: usize,
}

/// A crawl: a run of captures with no pause longer than [`SNAPSHOT_GAP_DAYS`].
#[derive(Debug, Clone)]
pub(crate) struct Crawl {
    pub(crate) start_micros: i64,
    pub(crate) end_micros: i64,
    /// The last capture's timestamp: the dataset "at" this crawl.
    pub(crate) end_timestamp: String,
    /// Documents captured in it.
    pub(crate) captured: usize,
}

/// The dataset at a date: every document's latest graph until then.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DatasetAt {
    pub(crate) documents: usize,
    pub(crate) statements: usize,
    /// Documents first seen since the previous crawl.
    pub(crate) new: usize,
    /// Documents whose graph differs from the one they had at the end of the previous crawl.
    pub(crate) changed: usize,
    /// Whether there is a previous crawl to compare with.
    pub(crate) has_previous: bool,
}

/// Everything the chart pages draw.
#[derive(Debug)]
pub(crate) struct Aggregates {
    /// Captures in the index when computed (the key of the cache).
    pub(crate) key: u64,
    /// Documents in URL order.
    pub(crate) docs: Vec<Doc>,
    /// PLD → week (Monday-based, counted from the epoch) → captures and changes.
    pub(crate) weeks: BTreeMap<String, BTreeMap<i64, Week>>,
    /// The hierarchical Weibull fit of mean change times (days), or why there is none.
    pub(crate) fit: Result<HierarchicalStats, String>,
    /// Crawls in time order.
    pub(crate) crawls: Vec<Crawl>,
    /// How long the computation took.
    pub(crate) took: Duration,
}

/// The week (Monday-based, 0 = the week of 1970-01-01) of a time in microseconds.
pub(crate) fn week_of(micros: i64) -> i64 {
    // 1970-01-01 was a Thursday: three days after a Monday.
    (micros.div_euclid(86_400_000_000) + 3).div_euclid(7)
}

/// The first day of week `week`, days since the epoch.
pub(crate) fn week_start_day(week: i64) -> i64 {
    week * 7 - 3
}

/// The re-crawl interval the planner would give a document changing `rate_per_day` (None:
/// unknown) in seconds: the longest interval keeping it [`ALPHA`]-current with grace
/// [`BETA_SECONDS`], held within the monitor's bounds (1 day to 6 months).
pub(crate) fn recrawl_interval(rate_per_day: f64) -> f64 {
    let policy = Policy::new(Strategy::Freshness);
    let period = page_period(rate_per_day.max(0.0) / DAY_SECONDS, ALPHA, BETA_SECONDS)
        .unwrap_or(policy.max_interval);
    policy.clamp(period)
}

impl Aggregates {
    /// Reads every document of the archive, on up to 4 threads.
    pub(crate) fn compute(state: &AppState) -> std::io::Result<Aggregates> {
        let started = Instant::now();
        let key = state.archive.merged_index().len();
        let mut urls: Vec<(String, String)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        state
            .archive
            .merged_index()
            .scan_range("", None, |capture| {
                if is_replayable(&capture)
                    && !capture.url.ends_with("/robots.txt")
                    && seen.insert(capture.url.clone())
                {
                    urls.push((capture.urlkey, capture.url));
                }
            })?;
        drop(seen);
        urls.sort_unstable();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        let chunk = urls.len().div_ceil(threads).max(1);
        let read: Vec<Vec<(String, DocRead)>> = std::thread::scope(|scope| {
            let workers: Vec<_> = urls
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|(_, url)| (url.clone(), read_doc(state, url)))
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|_| {
                        tracing::error!(
                            "page figures: a reader panicked; its documents are left out"
                        );
                        Vec::new()
                    })
                })
                .collect()
        });
        let mut docs = Vec::new();
        let mut weeks: BTreeMap<String, BTreeMap<i64, Week>> = BTreeMap::new();
        for (url, doc) in read.into_iter().flatten() {
            let pld = url::Url::parse(&url)
                .ok()
                .and_then(|u| u.host_str().map(pay_level_domain))
                .unwrap_or_default();
            let per_week = weeks.entry(pld.clone()).or_default();
            for (micros, changed) in &doc.captures {
                let week = per_week.entry(week_of(*micros)).or_default();
                week.captures += 1;
                week.changes += usize::from(*changed);
            }
            if doc.sights.is_empty() {
                continue;
            }
            let visits: Vec<Visit> = doc
                .sights
                .iter()
                .map(|s| Visit {
                    at: s.micros as f64 / MICROS_PER_DAY,
                    changed: s.changed,
                })
                .collect();
            let rate_per_day = ChangeEstimates::from_visits(&visits).bias_reduced;
            docs.push(Doc {
                url,
                pld,
                sights: doc.sights,
                rate_per_day,
                interval_seconds: rate_per_day.map(recrawl_interval),
            });
        }
        let observed: Vec<(String, Vec<Observation>)> = docs
            .iter()
            .map(|doc| {
                let observations = doc
                    .sights
                    .iter()
                    .enumerate()
                    .map(|(n, s)| Observation {
                        at: s.micros as f64 / MICROS_PER_DAY,
                        graph: s.graph,
                        digest: 0,
                        rdf_changed: n > 0 && s.changed,
                        bytes_changed: false,
                        last_modified: None,
                        payload_bytes: None,
                    })
                    .collect();
                (doc.url.clone(), observations)
            })
            .collect();
        let fit = hierarchical_stats(&observed);
        drop(observed);
        let crawls = crawls_of(&docs);
        let took = started.elapsed();
        tracing::info!(
            documents = docs.len(),
            crawls = crawls.len(),
            seconds = took.as_secs_f64(),
            "page figures computed"
        );
        Ok(Aggregates {
            key,
            docs,
            weeks,
            fit,
            crawls,
            took,
        })
    }

    /// The dataset at `micros`, compared with the end of the crawl before the one `micros`
    /// falls in.
    pub(crate) fn dataset_at(&self, micros: i64) -> DatasetAt {
        let crawl = self
            .crawls
            .partition_point(|c| c.start_micros <= micros)
            .checked_sub(1);
        let previous_end = crawl
            .and_then(|k| k.checked_sub(1))
            .map(|k| self.crawls[k].end_micros);
        let mut at = DatasetAt {
            has_previous: previous_end.is_some(),
            ..DatasetAt::default()
        };
        for doc in &self.docs {
            let Some(now) = doc.at(micros) else { continue };
            at.documents += 1;
            at.statements += now.statements;
            if let Some(end) = previous_end {
                match doc.at(end) {
                    None => at.new += 1,
                    Some(before) if before.graph != now.graph => at.changed += 1,
                    Some(_) => {}
                }
            }
        }
        at
    }

    /// The end of the crawl before the one holding `micros`, when there is one.
    pub(crate) fn previous_crawl_end(&self, micros: i64) -> Option<&Crawl> {
        let k = self
            .crawls
            .partition_point(|c| c.start_micros <= micros)
            .checked_sub(1)?;
        self.crawls.get(k.checked_sub(1)?)
    }
}

/// What one URL's history gives.
#[derive(Debug, Default)]
struct DocRead {
    /// Every replayable capture: its time, and whether its graph changed.
    captures: Vec<(i64, bool)>,
    sights: Vec<Sight>,
}

fn read_doc(state: &AppState, url: &str) -> DocRead {
    let mut read = DocRead::default();
    let entries = match history(&state.archive, url) {
        Ok(entries) => entries,
        Err(error) => {
            tracing::warn!(url, %error, "page figures: could not read the history");
            return read;
        }
    };
    for entry in entries {
        let changed = entry.change == HistoryChange::Changed;
        read.captures.push((entry.capture.time_micros, changed));
        if let Some(hash) = &entry.graph_hash {
            read.sights.push(Sight {
                micros: entry.capture.time_micros,
                timestamp: entry.capture.timestamp.clone(),
                statements: entry.statements.unwrap_or(0),
                graph: u64::from_str_radix(hash.hex.get(..16).unwrap_or("0"), 16).unwrap_or(0),
                changed,
            });
        }
    }
    read
}

/// The crawls of the documents' sights.
fn crawls_of(docs: &[Doc]) -> Vec<Crawl> {
    let times: Vec<f64> = docs
        .iter()
        .flat_map(|d| d.sights.iter().map(|s| s.micros as f64 / MICROS_PER_DAY))
        .collect();
    let starts = snapshot_starts(&times, &[], SNAPSHOT_GAP_DAYS);
    let mut crawls: Vec<Crawl> = starts
        .iter()
        .map(|s| Crawl {
            start_micros: (s * MICROS_PER_DAY).round() as i64,
            end_micros: i64::MIN,
            end_timestamp: String::new(),
            captured: 0,
        })
        .collect();
    for doc in docs {
        let mut counted: Option<usize> = None;
        for sight in &doc.sights {
            let k = snapshot_of(&starts, sight.micros as f64 / MICROS_PER_DAY);
            let Some(crawl) = crawls.get_mut(k) else {
                continue;
            };
            if sight.micros >= crawl.end_micros {
                crawl.end_micros = sight.micros;
                crawl.end_timestamp = sight.timestamp.clone();
            }
            crawl.start_micros = crawl.start_micros.min(sight.micros);
            if counted != Some(k) {
                crawl.captured += 1;
                counted = Some(k);
            }
        }
    }
    crawls
}

/// Where the figures stand.
pub(crate) enum Status {
    /// Figures of the index as it is.
    Ready(Arc<Aggregates>),
    /// Figures of an older index; new ones are being computed.
    Refreshing(Arc<Aggregates>),
    /// None yet; they are being computed.
    Computing,
    /// The last computation failed (the message).
    Failed(String),
}

#[derive(Default)]
struct Slot {
    ready: Option<Arc<Aggregates>>,
    /// The index size being computed for, while a computation runs.
    computing: Option<u64>,
    failed: Option<(u64, String)>,
}

/// The figures, shared by the pages.
#[derive(Default)]
pub(crate) struct Cache {
    slot: Mutex<Slot>,
}

/// The figures for the index as it is now, starting their computation when there are none or
/// they are older than the index.
pub(crate) fn current(state: &State) -> Status {
    let key = state.archive.merged_index().len();
    let mut slot = match state.aggregates.slot.lock() {
        Ok(slot) => slot,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(ready) = slot.ready.as_ref().filter(|r| r.key == key) {
        return Status::Ready(ready.clone());
    }
    if let Some((failed_key, message)) = &slot.failed
        && *failed_key == key
        && slot.computing.is_none()
    {
        return Status::Failed(message.clone());
    }
    if slot.computing.is_none() {
        slot.computing = Some(key);
        let state = state.clone();
        let spawned = std::thread::Builder::new()
            .name("ldwarc-page-figures".into())
            .spawn(move || {
                let result = Aggregates::compute(&state);
                let mut slot = match state.aggregates.slot.lock() {
                    Ok(slot) => slot,
                    Err(poisoned) => poisoned.into_inner(),
                };
                slot.computing = None;
                match result {
                    Ok(figures) => {
                        slot.failed = None;
                        slot.ready = Some(Arc::new(figures));
                    }
                    Err(error) => {
                        tracing::warn!(%error, "page figures: could not read the index");
                        slot.failed = Some((key, error.to_string()));
                    }
                }
            });
        if let Err(error) = spawned {
            slot.computing = None;
            return Status::Failed(error.to_string());
        }
    }
    match &slot.ready {
        Some(old) => Status::Refreshing(old.clone()),
        None => Status::Computing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_start_on_monday() {
        // 1970-01-05 was a Monday, 1970-01-04 a Sunday.
        let day = 86_400_000_000i64;
        assert_eq!(week_of(4 * day), 1);
        assert_eq!(week_of(3 * day + day - 1), 0);
        assert_eq!(week_start_day(1), 4);
        // 2024-01-01 was a Monday (day 19723).
        assert_eq!(week_start_day(week_of(19_723 * day + 5)), 19_723);
        assert_eq!(week_of(-1), 0);
    }

    fn sight(day: i64, graph: u64, changed: bool) -> Sight {
        Sight {
            micros: day * 86_400_000_000,
            timestamp: format!("{day}"),
            statements: graph as usize,
            graph,
            changed,
        }
    }

    #[test]
    fn the_dataset_at_a_date_compares_with_the_previous_crawl() {
        let docs = vec![
            Doc {
                url: "a".into(),
                pld: "e.org".into(),
                sights: vec![sight(10, 1, false), sight(20, 2, true), sight(30, 2, false)],
                rate_per_day: None,
                interval_seconds: None,
            },
            Doc {
                url: "b".into(),
                pld: "e.org".into(),
                sights: vec![sight(20, 5, false)],
                rate_per_day: None,
                interval_seconds: None,
            },
        ];
        let crawls = crawls_of(&docs);
        assert_eq!(crawls.len(), 3);
        assert_eq!(crawls[1].captured, 2);
        let figures = Aggregates {
            key: 0,
            docs,
            weeks: BTreeMap::new(),
            fit: Err("none".into()),
            crawls,
            took: Duration::ZERO,
        };
        let day = 86_400_000_000i64;
        assert_eq!(
            figures.dataset_at(20 * day),
            DatasetAt {
                documents: 2,
                statements: 7,
                new: 1,
                changed: 1,
                has_previous: true
            }
        );
        assert_eq!(
            figures.dataset_at(30 * day),
            DatasetAt {
                documents: 2,
                statements: 7,
                new: 0,
                changed: 0,
                has_previous: true
            }
        );
        assert!(!figures.dataset_at(10 * day).has_previous);
        assert_eq!(figures.dataset_at(9 * day).documents, 0);
    }

    #[test]
    fn faster_documents_get_shorter_intervals_within_the_bounds() {
        let slow = recrawl_interval(0.01);
        let fast = recrawl_interval(1.0);
        assert!(fast < slow, "{fast} {slow}");
        assert_eq!(recrawl_interval(0.0), 180.0 * DAY_SECONDS);
        // A document changing all the time is due again soon after the grace day.
        let fastest = recrawl_interval(1000.0);
        assert!(
            (DAY_SECONDS..1.2 * DAY_SECONDS).contains(&fastest),
            "{fastest}"
        );
    }
}
