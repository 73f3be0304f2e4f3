//! The archive-facing side of web dynamics (`ldwarc stats`): every document URL in a scope,
//! read back from the capture index and the WARC files through the replay API, turned into
//! the observations the estimators of this module take, and summarised per URL, per
//! pay-level domain and per snapshot (crawl), with the Weibull fit of paper 003 §5.
//!
//! What counts:
//!
//! - an **observation** of a URL is one of its captures whose payload is an RDF graph (a
//!   successful answer that parses: the `first`/`changed`/`same-graph`/`unchanged` entries of
//!   [`crate::replay::history`]); redirects, error statuses, payloads that are not RDF and
//!   robots.txt files are not observations, and URLs without any are not documents;
//! - a **change** is detected at an observation when its graph differs from the previous
//!   observation's by RDFC-1.0 canonical hash (RDF level), or when its payload digest differs
//!   (byte level: a re-serialisation is a byte change but not an RDF one);
//! - the **Last-Modified** of an observation is the one in the capture's own HTTP head (for a
//!   revisit, the revisit record's head, falling back to its original's);
//! - the **size** of an observation is its payload's length as archived (what a re-crawl
//!   downloads).
//!
//! Times are days since the Unix epoch (UTC), so every rate is per day.

use ldwarc_warc::RecordType;
use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, NaiveDateTime, Utc};
use ldwarc_archive::parallel::parallel_map;
use ldwarc_archive::stable_hash::fnv1a_64;
use serde::Serialize;

use super::archive_fit::{HierarchicalStats, WeibullModel, hierarchical_stats};
use crate::replay::{
    HistoryChange, MAX_PAYLOAD_BYTES, ReplayArchive, ReplayError, Scope, history, is_replayable,
    read_response,
};
use ldwarc_archive::index::Capture;
use ldwarc_dynamics::adaptive::UrlLoad;
use ldwarc_dynamics::duration::DAY;
use ldwarc_dynamics::lifetimes::{FitMethod, SpanDistribution, fit_observed_lifetimes};
use ldwarc_dynamics::snapshots::{CrawlWindow, snapshot_of, snapshot_starts};
use ldwarc_dynamics::truth::{EstimatesPerDay, median};
use ldwarc_dynamics::weibull::Weibull;
use ldwarc_dynamics::{
    ChangeEstimates, LastModified, Visit, ages, last_modified_rate, observed_lifetimes,
};
use ldwarc_warc::http::HttpHead;

/// Microseconds in a day.
const MICROS_PER_DAY: f64 = 86_400e6;

/// URLs handed to the worker threads at once.
const BATCH: usize = 64;

/// Fewer lifetimes than this from Last-Modified, and the fit uses change detection instead.
const MIN_LIFETIMES: usize = 10;

/// Lifetimes shorter than this many crawl intervals count as aliased.
const ALIASING_INTERVALS: f64 = 8.0;

/// Above this share of aliased lifetimes, the outputs warn that the Weibull fit is unreliable.
pub const ALIASING_WARNING: f64 = 0.5;

/// What [`archive_stats`] looks at and how.
#[derive(Debug, Clone)]
pub struct StatsOptions {
    /// Which URLs.
    pub scope: Scope,
    /// The longest pause (days) between two captures of one snapshot.
    pub snapshot_gap_days: f64,
    /// Crawl runs from the crawl log, in days since the epoch (may be empty).
    pub crawls: Vec<CrawlWindow>,
    /// The criterion of the pooled-lifetime Weibull fit.
    pub fit_method: FitMethod,
    /// Which Weibull fit is the archive's answer (both are computed).
    pub model: WeibullModel,
}

/// One observation of a URL (a capture with a graph).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    /// Capture time, days since the epoch.
    pub at: f64,
    /// The first 64 bits of the graph's canonical hash.
    pub graph: u64,
    /// A 64-bit key of the payload digest (0 when the capture has none).
    pub digest: u64,
    /// The graph differs from the previous observation's.
    pub rdf_changed: bool,
    /// The payload bytes differ from the previous observation's.
    pub bytes_changed: bool,
    /// The capture's `Last-Modified`, days since the epoch.
    pub last_modified: Option<f64>,
    /// Payload bytes.
    pub payload_bytes: Option<u64>,
}

/// What the `Last-Modified` headers of one URL say.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LastModifiedStats {
    /// Observations that carried a usable `Last-Modified`.
    pub observations: usize,
    /// The maximum-likelihood rate ([`ldwarc_dynamics::last_modified_rate`]), per day.
    pub rate_per_day: Option<f64>,
    /// Modification times seen.
    pub changes: usize,
    /// Change-free time known, days.
    pub exposure_days: f64,
    /// Observations whose Last-Modified contradicts the others (skipped).
    pub discarded: usize,
    /// Mean age at the observations (observation time − Last-Modified), days.
    pub mean_age_days: Option<f64>,
    /// Median age, days.
    pub median_age_days: Option<f64>,
}

/// Everything `ldwarc stats` says about one URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UrlStats {
    /// The document URL.
    pub url: String,
    /// Its pay-level domain.
    pub pld: String,
    /// Observations (captures with a graph).
    pub observations: usize,
    /// First and last observation, RFC 3339 UTC.
    pub first: String,
    /// The last observation, RFC 3339 UTC.
    pub last: String,
    /// First to last observation, days.
    pub span_days: f64,
    /// Changes detected at the RDF level (canonical graph hash).
    pub rdf_changes: usize,
    /// Changes detected at the byte level (payload digest).
    pub byte_changes: usize,
    /// RDF changes per day watched (`X / T`).
    pub naive_per_day: Option<f64>,
    /// Cho & Garcia-Molina's bias-reduced rate from the RDF changes, per day.
    pub bias_reduced_per_day: Option<f64>,
    /// The irregular-interval maximum-likelihood rate, per day (`None` also when every
    /// interval showed a change: then it is unbounded).
    pub mle_per_day: Option<f64>,
    /// The bias-reduced rate from the byte changes, per day.
    pub byte_bias_reduced_per_day: Option<f64>,
    /// From the `Last-Modified` headers, when the server sent them.
    pub last_modified: Option<LastModifiedStats>,
    /// Differences between successive distinct Last-Modified times, days.
    pub last_modified_lifetimes_days: Vec<f64>,
    /// Times between successive observations that detected an RDF change, days.
    pub detected_lifetimes_days: Vec<f64>,
    /// Mean payload size over the observations, bytes.
    pub mean_payload_bytes: Option<f64>,
    /// Ages at every observation with a Last-Modified, days (for the plots).
    #[serde(skip)]
    pub ages_days: Vec<f64>,
}

impl UrlStats {
    /// The estimates [`ldwarc_dynamics::truth::compare_with_truth`] compares.
    pub fn estimates(&self) -> EstimatesPerDay {
        EstimatesPerDay {
            observations: self.observations,
            naive: self.naive_per_day,
            bias_reduced: self.bias_reduced_per_day,
            mle: self.mle_per_day,
            last_modified: self.last_modified.as_ref().and_then(|lm| lm.rate_per_day),
        }
    }
}

/// Aggregates over the URLs of one pay-level domain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PldStats {
    /// The pay-level domain.
    pub pld: String,
    /// Document URLs.
    pub urls: usize,
    /// Observations of its URLs (captures with a graph).
    pub observations: usize,
    /// Changes detected at the RDF level over its URLs (canonical graph hash).
    pub rdf_changes: usize,
    /// Changes detected at the byte level over its URLs (payload digest).
    pub byte_changes: usize,
    /// URLs with at least one RDF change.
    pub changed_urls: usize,
    /// URLs that sent Last-Modified.
    pub last_modified_urls: usize,
    /// RDF changes per day watched, over all its URLs (`Σ X / Σ T`).
    pub pooled_naive_per_day: Option<f64>,
    /// Median and mean of the URLs' bias-reduced rates, per day.
    pub median_bias_reduced_per_day: Option<f64>,
    /// The mean of the URLs' bias-reduced rates, per day.
    pub mean_bias_reduced_per_day: Option<f64>,
}

/// One snapshot (crawl) and how its documents changed since the previous snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotStats {
    /// 0-based, in time order.
    pub index: usize,
    /// First and last observation in it, RFC 3339 UTC.
    pub start: String,
    /// The last observation in it, RFC 3339 UTC.
    pub end: String,
    /// Start, days since the epoch (for plots).
    #[serde(skip)]
    pub start_days: f64,
    /// URLs observed in it.
    pub documents: usize,
    /// Of those, URLs also observed in the previous snapshot.
    pub compared: usize,
    /// Of the compared, those whose graph (the last one in each snapshot) differs.
    pub rdf_changed: usize,
    /// Of the compared, those whose payload differs.
    pub byte_changed: usize,
    /// `rdf_changed / compared`.
    pub rdf_changed_fraction: Option<f64>,
    /// `byte_changed / compared`.
    pub byte_changed_fraction: Option<f64>,
}

/// Where the lifetimes of the Weibull fit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LifetimeSource {
    /// Differences between successive distinct Last-Modified times (the paper's).
    LastModified,
    /// Times between successive detected changes (when too few servers send
    /// Last-Modified): aliased by the crawl interval.
    ChangeDetection,
}

/// The Weibull of mean change times fitted to the archive's lifetimes (paper 003 §5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeibullStats {
    /// Where the lifetimes come from.
    pub source: LifetimeSource,
    /// Lifetimes fitted.
    pub lifetimes: usize,
    /// URLs whose observation spans make the bias correction (eq. 13).
    pub spans: usize,
    /// The fitted shape `k`.
    pub shape: f64,
    /// The fitted scale `θ`, days.
    pub scale_days: f64,
    /// The mean of the fitted Weibull, days.
    pub mean_days: f64,
    /// The median of the fitted Weibull, days.
    pub median_days: f64,
    /// How it was fitted.
    pub method: FitMethod,
    /// The criterion at the optimum (see [`ldwarc_dynamics::LifetimeFit`]).
    pub objective: f64,
    /// Whether the optimiser converged.
    pub converged: bool,
    /// The median over documents of their mean interval between observations, days.
    pub crawl_interval_days: Option<f64>,
    /// The share of the lifetimes shorter than 8 crawl intervals, where several changes
    /// between two visits look like one longer lifetime (\[BC\] Fig. 13–14: aliasing below
    /// about 8 days with daily visits). Above one half, the fit describes the crawl more than
    /// the pages ([`ALIASING_WARNING`]).
    pub aliased_fraction: f64,
    /// The fit, in days.
    #[serde(skip)]
    pub weibull: Weibull,
    /// The lifetimes fitted, days (for the plots).
    #[serde(skip)]
    pub sample: Vec<f64>,
    /// The spans of the bias correction.
    #[serde(skip)]
    pub span_distribution: Option<SpanDistribution>,
}

impl WeibullStats {
    /// A warning when most lifetimes are aliased ([`ALIASING_WARNING`]), for the outputs.
    pub fn aliasing_warning(&self) -> Option<String> {
        let interval = self.crawl_interval_days?;
        (self.aliased_fraction > ALIASING_WARNING).then(|| {
            format!(
                "{:.0}% of the lifetimes are shorter than {} crawl intervals ({:.2} days): \
                 changes hidden between visits make the fit unreliable",
                100.0 * self.aliased_fraction,
                ALIASING_INTERVALS,
                ALIASING_INTERVALS * interval
            )
        })
    }
}

/// Counts over the whole scope.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatsSummary {
    /// URLs with captures in scope (robots.txt and non-capture records aside).
    pub urls: usize,
    /// Of those, URLs with at least one observation.
    pub documents: usize,
    /// Captures of all URLs in scope.
    pub captures: usize,
    /// Observations over all documents.
    pub observations: usize,
    /// Snapshots found.
    pub snapshots: usize,
    /// Captures, or whole URLs, that could not be read (each a line of `failures`); a URL's
    /// other captures still count.
    pub failed: usize,
    /// Median over documents of the bias-reduced rate, per day.
    pub median_bias_reduced_per_day: Option<f64>,
}

/// Everything `ldwarc stats` computes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArchiveStats {
    /// Counts over the whole scope.
    pub summary: StatsSummary,
    /// Which of the two Weibull fits the figures use.
    pub model: WeibullModel,
    /// The hierarchical fit (every document's own observations).
    pub hierarchical: Option<HierarchicalStats>,
    /// Why there is no hierarchical fit, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hierarchical_error: Option<String>,
    /// The paper's pooled-lifetime fit.
    pub weibull: Option<WeibullStats>,
    /// Why there is no Weibull fit, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weibull_error: Option<String>,
    /// Per pay-level domain.
    pub plds: Vec<PldStats>,
    /// Per snapshot (crawl), in time order.
    pub snapshots: Vec<SnapshotStats>,
    /// Per document URL.
    pub urls: Vec<UrlStats>,
    /// One line per URL that could not be read.
    pub failures: Vec<String>,
}

impl ArchiveStats {
    /// The mean payload size over the documents that have one, bytes.
    pub fn mean_payload_bytes(&self) -> Option<f64> {
        mean(
            &self
                .urls
                .iter()
                .filter_map(|u| u.mean_payload_bytes)
                .collect::<Vec<_>>(),
        )
    }

    /// Every document as a load to schedule ([`ldwarc_dynamics::adaptive`]): its bias-reduced rate per
    /// second, or, with a single observation, the pooled rate of all documents (changes per
    /// time watched), as the monitor's planner does; its mean payload size, or the mean over
    /// all documents.
    pub fn url_loads(&self) -> Vec<UrlLoad> {
        let watched: f64 = self.urls.iter().map(|u| u.span_days).sum();
        let changes: usize = self.urls.iter().map(|u| u.rdf_changes).sum();
        let pooled = if watched > 0.0 {
            changes as f64 / watched
        } else {
            0.0
        };
        let mean_size = self.mean_payload_bytes().unwrap_or(0.0);
        self.urls
            .iter()
            .map(|u| UrlLoad {
                rate: u.bias_reduced_per_day.unwrap_or(pooled) / DAY,
                bytes: u.mean_payload_bytes.unwrap_or(mean_size),
            })
            .collect()
    }

    /// Every age seen, days.
    pub fn ages_days(&self) -> Vec<f64> {
        self.urls
            .iter()
            .flat_map(|u| u.ages_days.iter().copied())
            .collect()
    }
}

/// Reads every document URL in `options.scope` and computes its statistics, the per-PLD
/// aggregates, the snapshots and the Weibull fit. `progress` is called with (URLs done, URLs
/// in all) as work finishes. URLs that cannot be read are listed in `failures`; only an
/// unreadable index is an error.
pub fn archive_stats(
    archive: &ReplayArchive,
    options: &StatsOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ArchiveStats, ReplayError> {
    let (urls, captures) = urls_in_scope(archive, &options.scope)?;
    let mut observed: Vec<(String, Vec<Observation>)> = Vec::new();
    let mut failures = Vec::new();
    for (done, batch) in urls.chunks(BATCH).enumerate() {
        let results = parallel_map(batch, |url| observe_url(archive, url));
        for (url, result) in batch.iter().zip(results) {
            match result {
                Ok((observations, unreadable)) => {
                    failures.extend(unreadable);
                    if !observations.is_empty() {
                        observed.push((url.clone(), observations));
                    }
                }
                Err(error) => failures.push(format!("{url}: {error}")),
            }
        }
        progress(((done + 1) * BATCH).min(urls.len()), urls.len());
    }
    let url_stats: Vec<UrlStats> = observed
        .iter()
        .map(|(url, observations)| url_stats(url, observations))
        .collect();
    let snapshots = snapshot_stats(&observed, options);
    let (weibull, weibull_error) = match fit_weibull(&url_stats, options.fit_method) {
        Ok(fit) => (Some(fit), None),
        Err(why) => (None, Some(why)),
    };
    let (hierarchical, hierarchical_error) = match hierarchical_stats(&observed) {
        Ok(fit) => (Some(fit), None),
        Err(why) => (None, Some(why)),
    };
    let summary = StatsSummary {
        urls: urls.len(),
        documents: url_stats.len(),
        captures,
        observations: url_stats.iter().map(|u| u.observations).sum(),
        snapshots: snapshots.len(),
        failed: failures.len(),
        median_bias_reduced_per_day: median(
            &url_stats
                .iter()
                .filter_map(|u| u.bias_reduced_per_day)
                .collect::<Vec<_>>(),
        ),
    };
    Ok(ArchiveStats {
        summary,
        model: options.model,
        hierarchical,
        hierarchical_error,
        weibull,
        weibull_error,
        plds: pld_stats(&url_stats),
        snapshots,
        urls: url_stats,
        failures,
    })
}

/// The distinct URLs with replayable captures in `scope` (robots.txt files left out), in
/// SURT order (URLs of one key by their spelling), and how many such captures they have.
fn urls_in_scope(
    archive: &ReplayArchive,
    scope: &Scope,
) -> Result<(Vec<String>, usize), ReplayError> {
    let (start, end) = scope.key_range();
    let mut urls = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut captures = 0;
    archive
        .merged_index()
        .scan_range(&start, end.as_deref(), |capture| {
            if !is_replayable(&capture) || is_robots_txt(&capture.url) {
                return;
            }
            captures += 1;
            if !seen.contains(&capture.url) {
                seen.insert(capture.url.clone());
                urls.push((capture.urlkey, capture.url));
            }
        })
        .map_err(ReplayError::io)?;
    // URLs of one key (http and https, with and without www.) in one order whatever order
    // the scan met them in (it differs between one root and several).
    urls.sort_unstable();
    Ok((urls.into_iter().map(|(_, url)| url).collect(), captures))
}

fn is_robots_txt(url: &str) -> bool {
    url::Url::parse(url).map_or(url.ends_with("/robots.txt"), |u| u.path() == "/robots.txt")
}

/// The observations of one URL, oldest first, and a line for each capture whose record
/// could not be read (which is then no observation).
fn observe_url(
    archive: &ReplayArchive,
    url: &str,
) -> Result<(Vec<Observation>, Vec<String>), ReplayError> {
    let mut sizes: HashMap<String, u64> = HashMap::new();
    let mut observations = Vec::new();
    let mut unreadable = Vec::new();
    for entry in history(archive, url)? {
        if let HistoryChange::Unreadable(error) = &entry.change {
            unreadable.push(format!("{url} {}: {error}", entry.capture.timestamp));
        }
        let Some(hash) = &entry.graph_hash else {
            continue; // a redirect, not a document, or unreadable
        };
        let (last_modified, payload_bytes) = head_facts(archive, &entry.capture, &mut sizes);
        observations.push(Observation {
            at: entry.capture.time_micros as f64 / MICROS_PER_DAY,
            graph: key_of_hex(&hash.hex),
            digest: entry.capture.digest.as_deref().map_or(0, fnv1a_64),
            rdf_changed: entry.change == HistoryChange::Changed,
            bytes_changed: matches!(
                entry.change,
                HistoryChange::Changed | HistoryChange::SameGraph
            ),
            last_modified,
            payload_bytes,
        });
    }
    Ok((observations, unreadable))
}

/// A capture's own Last-Modified (days) and its payload size. Sizes are remembered by
/// digest, so a revisit costs one read of its own head.
fn head_facts(
    archive: &ReplayArchive,
    capture: &Capture,
    sizes: &mut HashMap<String, u64>,
) -> (Option<f64>, Option<u64>) {
    let remember = |sizes: &mut HashMap<String, u64>, size: u64| {
        if let Some(digest) = &capture.digest {
            sizes.insert(digest.clone(), size);
        }
    };
    if capture.record_type != RecordType::Revisit {
        let read = read_response(
            archive.root_of(&capture.filename),
            &capture.filename,
            capture.offset,
            MAX_PAYLOAD_BYTES,
        );
        return match read {
            Ok(response) => {
                let size = response.payload.len() as u64;
                remember(sizes, size);
                (last_modified_of(&response.head), Some(size))
            }
            Err(_) => (None, None),
        };
    }
    let own_head = read_response(
        archive.root_of(&capture.filename),
        &capture.filename,
        capture.offset,
        0,
    )
    .ok()
    .map(|r| r.head);
    let known = capture.digest.as_ref().and_then(|d| sizes.get(d)).copied();
    let original = if own_head.is_none() || known.is_none() {
        archive.response(capture).ok()
    } else {
        None
    };
    let last_modified = own_head
        .as_ref()
        .and_then(last_modified_of)
        .or_else(|| original.as_ref().and_then(|r| last_modified_of(&r.head)));
    let size = known.or_else(|| original.as_ref().map(|r| r.payload.len() as u64));
    if let Some(size) = size {
        remember(sizes, size);
    }
    (last_modified, size)
}

/// The `Last-Modified` of a head, days since the epoch.
fn last_modified_of(head: &HttpHead) -> Option<f64> {
    let time = parse_http_date(head.header("last-modified")?)?;
    Some(time.timestamp_micros() as f64 / MICROS_PER_DAY)
}

/// An HTTP date in any of the three forms RFC 9110 §5.6.7 says recipients must accept:
/// IMF-fixdate, RFC 850, and asctime.
pub fn parse_http_date(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc2822(text) {
        return Some(time.with_timezone(&Utc));
    }
    ["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .map(|naive| naive.and_utc())
}

/// The first 64 bits of a hex hash.
fn key_of_hex(hex: &str) -> u64 {
    u64::from_str_radix(hex.get(..16).unwrap_or(hex), 16).unwrap_or_else(|_| fnv1a_64(hex))
}

/// The statistics of one URL from its observations (oldest first).
fn url_stats(url: &str, observations: &[Observation]) -> UrlStats {
    let visits = |changed: fn(&Observation) -> bool| -> Vec<Visit> {
        observations
            .iter()
            .map(|o| Visit {
                at: o.at,
                changed: changed(o),
            })
            .collect()
    };
    let rdf = ChangeEstimates::from_visits(&visits(|o| o.rdf_changed));
    let bytes = ChangeEstimates::from_visits(&visits(|o| o.bytes_changed));
    let stamped: Vec<LastModified> = observations
        .iter()
        .filter_map(|o| {
            o.last_modified.map(|m| LastModified {
                at: o.at,
                last_modified: m,
            })
        })
        .collect();
    let change_times: Vec<f64> = observations
        .iter()
        .filter(|o| o.rdf_changed)
        .map(|o| o.at)
        .collect();
    let sizes: Vec<f64> = observations
        .iter()
        .filter_map(|o| o.payload_bytes.map(|b| b as f64))
        .collect();
    let first = observations.first().map_or(0.0, |o| o.at);
    let last = observations.last().map_or(0.0, |o| o.at);
    UrlStats {
        url: url.to_string(),
        pld: pld_of(url),
        observations: observations.len(),
        first: format_days(first),
        last: format_days(last),
        span_days: last - first,
        rdf_changes: rdf.changes,
        byte_changes: bytes.changes,
        naive_per_day: rdf.naive,
        bias_reduced_per_day: rdf.bias_reduced,
        mle_per_day: rdf.mle.rate(),
        byte_bias_reduced_per_day: bytes.bias_reduced,
        last_modified: (!stamped.is_empty()).then(|| last_modified_stats(&stamped)),
        last_modified_lifetimes_days: observed_lifetimes(&stamped),
        detected_lifetimes_days: change_times.windows(2).map(|w| w[1] - w[0]).collect(),
        mean_payload_bytes: mean(&sizes),
        ages_days: ages(&stamped),
    }
}

fn last_modified_stats(stamped: &[LastModified]) -> LastModifiedStats {
    let estimate = last_modified_rate(stamped);
    let ages = ages(stamped);
    LastModifiedStats {
        observations: stamped.len(),
        rate_per_day: estimate.rate,
        changes: estimate.changes,
        exposure_days: estimate.exposure,
        discarded: estimate.discarded,
        mean_age_days: mean(&ages),
        median_age_days: median(&ages),
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The pay-level domain of a URL's host (the URL itself when it has no host).
fn pld_of(url: &str) -> String {
    let pld = ldwarc_surt::pld_of_url(url);
    if pld.is_empty() { url.to_string() } else { pld }
}

/// RFC 3339 UTC, whole seconds, of a time in days since the epoch.
pub fn format_days(days: f64) -> String {
    DateTime::from_timestamp_micros((days * MICROS_PER_DAY).round() as i64).map_or_else(
        || format!("{days} days"),
        |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
    )
}

/// Per-PLD aggregates, PLDs in name order.
fn pld_stats(urls: &[UrlStats]) -> Vec<PldStats> {
    let mut by_pld: BTreeMap<&str, Vec<&UrlStats>> = BTreeMap::new();
    for url in urls {
        by_pld.entry(&url.pld).or_default().push(url);
    }
    by_pld
        .into_iter()
        .map(|(pld, urls)| {
            let rates: Vec<f64> = urls.iter().filter_map(|u| u.bias_reduced_per_day).collect();
            let watched: f64 = urls.iter().map(|u| u.span_days).sum();
            let rdf_changes: usize = urls.iter().map(|u| u.rdf_changes).sum();
            PldStats {
                pld: pld.to_string(),
                urls: urls.len(),
                observations: urls.iter().map(|u| u.observations).sum(),
                rdf_changes,
                byte_changes: urls.iter().map(|u| u.byte_changes).sum(),
                changed_urls: urls.iter().filter(|u| u.rdf_changes > 0).count(),
                last_modified_urls: urls.iter().filter(|u| u.last_modified.is_some()).count(),
                pooled_naive_per_day: (watched > 0.0).then(|| rdf_changes as f64 / watched),
                median_bias_reduced_per_day: median(&rates),
                mean_bias_reduced_per_day: mean(&rates),
            }
        })
        .collect()
}

/// Snapshots and the changes between consecutive ones. A URL's state in a snapshot is its
/// last observation there.
fn snapshot_stats(
    observed: &[(String, Vec<Observation>)],
    options: &StatsOptions,
) -> Vec<SnapshotStats> {
    let times: Vec<f64> = observed
        .iter()
        .flat_map(|(_, obs)| obs.iter().map(|o| o.at))
        .collect();
    let starts = snapshot_starts(&times, &options.crawls, options.snapshot_gap_days);
    let mut ends = starts.clone();
    for &t in &times {
        let i = snapshot_of(&starts, t);
        ends[i] = ends[i].max(t);
    }
    let mut counts = vec![[0usize; 4]; starts.len()]; // documents, compared, rdf, bytes
    for (_, observations) in observed {
        let mut previous: Option<(usize, &Observation)> = None;
        for (snapshot, last) in last_per_snapshot(observations, &starts) {
            counts[snapshot][0] += 1;
            if let Some((earlier, before)) = previous
                && earlier + 1 == snapshot
            {
                counts[snapshot][1] += 1;
                counts[snapshot][2] += usize::from(before.graph != last.graph);
                counts[snapshot][3] += usize::from(before.digest != last.digest);
            }
            previous = Some((snapshot, last));
        }
    }
    let fraction = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
    starts
        .iter()
        .zip(&ends)
        .zip(counts)
        .enumerate()
        .map(
            |(index, ((&start, &end), [documents, compared, rdf, bytes]))| SnapshotStats {
                index,
                start: format_days(start),
                end: format_days(end),
                start_days: start,
                documents,
                compared,
                rdf_changed: rdf,
                byte_changed: bytes,
                rdf_changed_fraction: fraction(rdf, compared),
                byte_changed_fraction: fraction(bytes, compared),
            },
        )
        .collect()
}

/// The last observation of a URL in each snapshot it appears in, in snapshot order.
fn last_per_snapshot<'a>(
    observations: &'a [Observation],
    starts: &[f64],
) -> Vec<(usize, &'a Observation)> {
    let mut result: Vec<(usize, &Observation)> = Vec::new();
    for observation in observations {
        let snapshot = snapshot_of(starts, observation.at);
        match result.last_mut() {
            Some(last) if last.0 == snapshot => last.1 = observation,
            _ => result.push((snapshot, observation)),
        }
    }
    result
}

/// The Weibull fit of §5: lifetimes from Last-Modified when there are enough, else from
/// change detection; the spans of the URLs that could have shown them make the bias
/// correction.
fn fit_weibull(urls: &[UrlStats], method: FitMethod) -> Result<WeibullStats, String> {
    if urls.is_empty() {
        return Err("no documents in scope".to_string());
    }
    let from_last_modified: Vec<f64> = urls
        .iter()
        .flat_map(|u| u.last_modified_lifetimes_days.iter().copied())
        .collect();
    let (source, sample, spans): (LifetimeSource, Vec<f64>, Vec<f64>) =
        if from_last_modified.len() >= MIN_LIFETIMES {
            let spans = urls
                .iter()
                .filter(|u| u.last_modified.is_some() && u.observations >= 2)
                .map(|u| u.span_days)
                .collect();
            (LifetimeSource::LastModified, from_last_modified, spans)
        } else {
            let sample = urls
                .iter()
                .flat_map(|u| u.detected_lifetimes_days.iter().copied())
                .collect();
            let spans = urls
                .iter()
                .filter(|u| u.observations >= 2)
                .map(|u| u.span_days)
                .collect();
            (LifetimeSource::ChangeDetection, sample, spans)
        };
    let span_count = spans.len();
    let spans = SpanDistribution::from_spans(&spans).map_err(|e| e.to_string())?;
    let fit = fit_observed_lifetimes(&sample, Some(&spans), method).map_err(|e| e.to_string())?;
    let crawl_interval = median_crawl_interval(urls);
    let short = crawl_interval.map_or(0, |interval| {
        sample
            .iter()
            .filter(|&&l| l < ALIASING_INTERVALS * interval)
            .count()
    });
    Ok(WeibullStats {
        source,
        lifetimes: sample.len(),
        spans: span_count,
        crawl_interval_days: crawl_interval,
        aliased_fraction: short as f64 / sample.len() as f64,
        shape: fit.weibull.shape,
        scale_days: fit.weibull.scale,
        mean_days: fit.weibull.mean(),
        median_days: fit.weibull.median(),
        method,
        objective: fit.objective,
        converged: fit.converged,
        weibull: fit.weibull,
        sample,
        span_distribution: Some(spans),
    })
}

/// The median over documents of their mean interval between observations, days.
fn median_crawl_interval(urls: &[UrlStats]) -> Option<f64> {
    let intervals: Vec<f64> = urls
        .iter()
        .filter(|u| u.observations >= 2 && u.span_days > 0.0)
        .map(|u| u.span_days / (u.observations - 1) as f64)
        .collect();
    median(&intervals)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(at: f64, graph: u64, digest: u64, last_modified: Option<f64>) -> Observation {
        Observation {
            at,
            graph,
            digest,
            rdf_changed: false,
            bytes_changed: false,
            last_modified,
            payload_bytes: Some(100),
        }
    }

    /// Observations from (day, graph, digest), change flags derived as history does.
    fn series(points: &[(f64, u64, u64)]) -> Vec<Observation> {
        let mut result: Vec<Observation> = Vec::new();
        for &(at, graph, digest) in points {
            let mut o = observation(at, graph, digest, None);
            if let Some(previous) = result.last() {
                o.rdf_changed = previous.graph != graph;
                o.bytes_changed = previous.digest != digest;
            }
            result.push(o);
        }
        result
    }

    #[test]
    fn parses_the_three_http_date_forms() {
        let expected = "1994-11-06T08:49:37Z";
        for text in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            let time = parse_http_date(text).expect(text);
            assert_eq!(time.format("%Y-%m-%dT%H:%M:%SZ").to_string(), expected);
        }
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn url_stats_count_rdf_and_byte_changes() {
        // Daily; day 2 re-serialises (bytes change, graph same); days 3 and 5 change.
        let observations = series(&[
            (0.0, 1, 10),
            (1.0, 1, 10),
            (2.0, 1, 11),
            (3.0, 2, 12),
            (4.0, 2, 12),
            (5.0, 3, 13),
        ]);
        let stats = url_stats("http://data.example.org/a", &observations);
        assert_eq!(stats.pld, "example.org");
        assert_eq!(stats.observations, 6);
        assert_eq!(stats.rdf_changes, 2);
        assert_eq!(stats.byte_changes, 3);
        assert_eq!(stats.span_days, 5.0);
        assert_eq!(stats.naive_per_day, Some(0.4));
        let expected = (5.5f64 / 3.5).ln(); // −ln((5 − 2 + 0.5)/(5 + 0.5)) per 1-day interval
        assert!((stats.bias_reduced_per_day.unwrap() - expected).abs() < 1e-12);
        assert_eq!(stats.detected_lifetimes_days, vec![2.0]);
        assert_eq!(stats.first, "1970-01-01T00:00:00Z");
        assert_eq!(stats.last, "1970-01-06T00:00:00Z");
        assert_eq!(stats.last_modified, None);
        assert_eq!(stats.mean_payload_bytes, Some(100.0));
    }

    #[test]
    fn url_stats_use_last_modified() {
        let observations = vec![
            observation(10.0, 1, 1, Some(8.0)),
            observation(11.0, 1, 1, Some(8.0)),
            observation(12.0, 2, 2, Some(11.5)),
        ];
        let stats = url_stats("http://example.org/b", &observations);
        let lm = stats.last_modified.expect("Last-Modified");
        assert_eq!(lm.observations, 3);
        assert_eq!(lm.changes, 2);
        assert_eq!(lm.exposure_days, 2.0 + 1.0 + 0.5);
        assert_eq!(stats.last_modified_lifetimes_days, vec![3.5]);
        assert_eq!(stats.ages_days, vec![2.0, 3.0, 0.5]);
        assert_eq!(lm.median_age_days, Some(2.0));
    }

    #[test]
    fn snapshots_compare_consecutive_crawls() {
        // Three daily crawls. a: changes between crawls 1 and 2 (twice within crawl 1: only
        // the last state counts). b: re-serialised between 0 and 1. c: only in crawls 0 and 2.
        let a = series(&[
            (0.0, 1, 1),
            (1.0, 1, 1),
            (1.01, 2, 2),
            (1.02, 1, 1),
            (2.0, 3, 3),
        ]);
        let b = series(&[(0.0, 5, 5), (1.0, 5, 6), (2.0, 5, 6)]);
        let c = series(&[(0.01, 7, 7), (2.01, 8, 8)]);
        let observed = vec![
            ("a".to_string(), a),
            ("b".to_string(), b),
            ("c".to_string(), c),
        ];
        let options = StatsOptions {
            scope: Scope::All,
            snapshot_gap_days: 0.25,
            crawls: Vec::new(),
            fit_method: FitMethod::MaximumLikelihood,
            model: WeibullModel::Hierarchical,
        };
        let snapshots = snapshot_stats(&observed, &options);
        let counts: Vec<[usize; 4]> = snapshots
            .iter()
            .map(|s| [s.documents, s.compared, s.rdf_changed, s.byte_changed])
            .collect();
        assert_eq!(counts, vec![[3, 0, 0, 0], [2, 2, 0, 1], [3, 2, 1, 1]]);
        assert_eq!(snapshots[1].rdf_changed_fraction, Some(0.0));
        assert_eq!(snapshots[2].rdf_changed_fraction, Some(0.5));
        assert_eq!(snapshots[0].rdf_changed_fraction, None);
        assert_eq!(snapshots[0].end, "1970-01-01T00:14:24Z"); // c, 0.01 days in
        assert_eq!(snapshots[1].start, "1970-01-02T00:00:00Z");
    }

    #[test]
    fn pld_aggregates_and_weibull_source() {
        let one = url_stats(
            "http://a.example.org/x",
            &series(&[(0.0, 1, 1), (1.0, 2, 2), (2.0, 2, 2)]),
        );
        let two = url_stats(
            "http://b.example.org/y",
            &series(&[(0.0, 1, 1), (1.0, 1, 1), (3.0, 1, 1)]),
        );
        assert_eq!(
            median_crawl_interval(&[one.clone(), two.clone()]),
            Some(1.25)
        );
        let plds = pld_stats(&[one.clone(), two.clone()]);
        assert_eq!(plds.len(), 1);
        let pld = &plds[0];
        assert_eq!((pld.urls, pld.observations, pld.rdf_changes), (2, 6, 1));
        assert_eq!(pld.changed_urls, 1);
        assert_eq!(pld.pooled_naive_per_day, Some(1.0 / 5.0));
        // Too few lifetimes anywhere: the fit says why.
        let error = fit_weibull(&[one, two], FitMethod::MaximumLikelihood).unwrap_err();
        assert!(error.contains("lifetimes"), "{error}");
    }

    #[test]
    fn loads_for_the_adaptive_schedules() {
        // Two days watched, one change: bias-reduced rate −ln(1.5/2.5) per day.
        let changing = url_stats(
            "http://a.example.org/x",
            &series(&[(0.0, 1, 1), (1.0, 2, 2), (2.0, 2, 2)]),
        );
        // A single observation: no estimate of its own, it gets the pooled rate (1 change
        // in 2 days watched).
        let mut single = url_stats("http://b.example.org/y", &series(&[(0.0, 1, 1)]));
        single.mean_payload_bytes = None;
        let stats = ArchiveStats {
            summary: StatsSummary::default(),
            model: WeibullModel::Hierarchical,
            hierarchical: None,
            hierarchical_error: None,
            weibull: None,
            weibull_error: None,
            plds: Vec::new(),
            snapshots: Vec::new(),
            urls: vec![changing, single],
            failures: Vec::new(),
        };
        assert_eq!(stats.mean_payload_bytes(), Some(100.0));
        let loads = stats.url_loads();
        assert!((loads[0].rate * DAY - (2.5f64 / 1.5).ln()).abs() < 1e-12);
        assert!((loads[1].rate * DAY - 0.5).abs() < 1e-12);
        assert_eq!(loads[1].bytes, 100.0);
    }

    #[test]
    fn robots_txt_and_keys() {
        assert!(is_robots_txt("http://example.org/robots.txt"));
        assert!(!is_robots_txt("http://example.org/data/robots.txt"));
        assert_eq!(key_of_hex("00000000000000ffabc"), 255);
        assert_ne!(fnv1a_64("sha1:A"), fnv1a_64("sha1:B"));
    }
}
