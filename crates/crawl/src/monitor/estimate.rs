//! Crawl-time estimate of a cycle, before it runs: the due URLs grouped by pay-level domain,
//! each domain's robots.txt request first unless an earlier crawl's answer is still fresh
//! ([`CarriedOver`]), and the wait for the domain's delay after its last contact, expected
//! fetch times from the crawl log (the URL's own mean, else its domain's, else the paper's
//! default), the domain's delay (the larger of the configured one and the gap the log shows
//! between an answer and the next request, which catches robots.txt `Crawl-delay` and the
//! crawler's dispatch latency), fed to the politeness simulation
//! ([`ldwarc_dynamics::schedule::simulate_politeness`]); plus the start-up overhead of a crawl (opening
//! the store and index, committing at the end), learnt as the median of actual minus
//! simulated time over the latest finished cycles. The paper's first-fit estimate is kept
//! beside it for comparison.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::table::{CycleRow, TimedFetch};
use ldwarc_dynamics::schedule::crawl_time::DEFAULT_FETCH_TIME;
use ldwarc_dynamics::schedule::{PldWorkload, estimate_crawl_time};
use ldwarc_dynamics::truth::median;

/// Latest finished cycles whose overhead is averaged.
pub const OVERHEAD_CYCLES: usize = 10;

/// What the crawl log says about fetch times and delays.
#[derive(Debug, Clone, Default)]
pub struct FetchHistory {
    by_url: BTreeMap<String, Mean>,
    by_pld: BTreeMap<String, Mean>,
    robots_by_pld: BTreeMap<String, Mean>,
    gaps_by_pld: BTreeMap<String, Vec<f64>>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Mean {
    sum: f64,
    count: usize,
}

impl Mean {
    fn add(&mut self, value: f64) {
        self.sum += value;
        self.count += 1;
    }

    fn get(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

fn origin_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

impl FetchHistory {
    /// Learns from timed requests of the crawl log, in log order.
    pub fn from_log(fetches: &[TimedFetch]) -> FetchHistory {
        let mut history = FetchHistory::default();
        // (crawl, pld) → requests (start, seconds), for the gaps.
        let mut sequences: BTreeMap<(i64, String), Vec<(f64, f64)>> = BTreeMap::new();
        for fetch in fetches {
            let pld = ldwarc_surt::pld_of_url(&fetch.url);
            if fetch.robots {
                history
                    .robots_by_pld
                    .entry(pld.clone())
                    .or_default()
                    .add(fetch.seconds);
            } else {
                history
                    .by_url
                    .entry(fetch.url.clone())
                    .or_default()
                    .add(fetch.seconds);
                history
                    .by_pld
                    .entry(pld.clone())
                    .or_default()
                    .add(fetch.seconds);
            }
            if fetch.started.is_finite() {
                sequences
                    .entry((fetch.crawl, pld))
                    .or_default()
                    .push((fetch.started, fetch.seconds));
            }
        }
        for ((_, pld), mut requests) in sequences {
            requests.sort_by(|a, b| a.0.total_cmp(&b.0));
            let gaps = history.gaps_by_pld.entry(pld).or_default();
            for pair in requests.windows(2) {
                gaps.push((pair[1].0 - (pair[0].0 + pair[0].1)).max(0.0));
            }
        }
        history
    }

    /// Expected time of a document fetch.
    pub fn fetch_time(&self, url: &str, pld: &str) -> f64 {
        self.by_url
            .get(url)
            .and_then(Mean::get)
            .or_else(|| self.by_pld.get(pld).and_then(Mean::get))
            .unwrap_or(DEFAULT_FETCH_TIME)
    }

    /// Expected time of a robots.txt fetch on the domain.
    pub fn robots_time(&self, pld: &str) -> f64 {
        self.robots_by_pld
            .get(pld)
            .and_then(Mean::get)
            .or_else(|| self.by_pld.get(pld).and_then(Mean::get))
            .unwrap_or(DEFAULT_FETCH_TIME)
    }

    /// The domain's delay: the median observed gap, at least `configured`.
    pub fn delay(&self, pld: &str, configured: f64) -> f64 {
        match self.gaps_by_pld.get(pld) {
            Some(gaps) if !gaps.is_empty() => median(gaps).unwrap_or(0.0).max(configured),
            _ => configured,
        }
    }
}

/// A cycle's crawl-time estimate, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CycleEstimate {
    /// The politeness simulation.
    pub model: f64,
    /// The learnt start-up overhead added to it.
    pub overhead: f64,
    /// `model + overhead`: the estimate.
    pub estimate: f64,
    /// The paper's first-fit bin packing (§5), for comparison.
    pub paper: f64,
    /// No schedule can be faster.
    pub lower_bound: f64,
}

/// What a crawl takes over from earlier ones that changes its time.
#[derive(Debug, Clone, Default)]
pub struct CarriedOver {
    /// Origins (`scheme://host[:port]`) whose robots.txt answer is still fresh: not asked.
    pub fresh_robots: BTreeSet<String>,
    /// Per pay-level domain, seconds until its delay after the last contact has passed.
    pub waits: BTreeMap<String, f64>,
}

/// The workload of crawling `urls` once: per domain, one robots.txt request per origin
/// (unless its answer is fresh), then the documents; the first request of a domain that must
/// still wait for its delay takes that much longer.
pub fn workloads(
    urls: &[String],
    history: &FetchHistory,
    delay: f64,
    carried: &CarriedOver,
) -> Vec<PldWorkload> {
    let mut by_pld: BTreeMap<String, (Vec<String>, Vec<f64>)> = BTreeMap::new();
    for url in urls {
        let pld = ldwarc_surt::pld_of_url(url);
        let (origins, times) = by_pld.entry(pld.clone()).or_default();
        let origin = origin_of(url);
        if !origins.contains(&origin) {
            if !carried.fresh_robots.contains(&origin) {
                times.insert(0, history.robots_time(&pld));
            }
            origins.push(origin);
        }
        times.push(history.fetch_time(url, &pld));
    }
    by_pld
        .into_iter()
        .map(|(pld, (_, mut fetch_times))| {
            if let (Some(wait), Some(first)) = (carried.waits.get(&pld), fetch_times.first_mut()) {
                *first += wait;
            }
            PldWorkload {
                delay: history.delay(&pld, delay),
                pld,
                fetch_times,
            }
        })
        .collect()
}

/// The estimate for crawling `urls` over `connections`, starting from `carried`, with
/// `overhead` seconds added.
pub fn estimate_cycle(
    urls: &[String],
    history: &FetchHistory,
    delay: f64,
    connections: usize,
    overhead: f64,
    carried: &CarriedOver,
) -> CycleEstimate {
    if urls.is_empty() {
        return CycleEstimate {
            model: 0.0,
            overhead: 0.0,
            estimate: 0.0,
            paper: 0.0,
            lower_bound: 0.0,
        };
    }
    let estimate = estimate_crawl_time(&workloads(urls, history, delay, carried), connections);
    CycleEstimate {
        model: estimate.simulated,
        overhead,
        estimate: estimate.simulated + overhead,
        paper: estimate.paper.seconds + overhead,
        lower_bound: estimate.lower_bound,
    }
}

/// The start-up overhead: the median of actual minus modelled time over the latest
/// [`OVERHEAD_CYCLES`] finished cycles that crawled something (0 before there is one).
pub fn observed_overhead(cycles: &[CycleRow]) -> f64 {
    let residuals: Vec<f64> = cycles
        .iter()
        .rev()
        .filter(|c| c.urls > 0)
        .filter_map(|c| c.actual_s.map(|actual| actual - c.model_s))
        .take(OVERHEAD_CYCLES)
        .collect();
    median(&residuals).unwrap_or(0.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetch(crawl: i64, url: &str, robots: bool, started: f64, seconds: f64) -> TimedFetch {
        TimedFetch {
            crawl,
            url: url.into(),
            robots,
            started,
            seconds,
        }
    }

    #[test]
    fn history_learns_fetch_times_and_the_effective_delay() {
        // One domain: robots (0.1 s), then two documents 0.5 s after each answer.
        let log = vec![
            fetch(1, "http://a.example/robots.txt", true, 0.0, 0.1),
            fetch(1, "http://a.example/x", false, 0.6, 0.2),
            fetch(1, "http://a.example/y", false, 1.3, 0.4),
        ];
        let history = FetchHistory::from_log(&log);
        assert!((history.fetch_time("http://a.example/x", "a.example") - 0.2).abs() < 1e-12);
        assert!((history.fetch_time("http://a.example/new", "a.example") - 0.3).abs() < 1e-12);
        assert_eq!(
            history.fetch_time("http://b.example/", "b.example"),
            DEFAULT_FETCH_TIME
        );
        assert!((history.robots_time("a.example") - 0.1).abs() < 1e-12);
        assert!((history.delay("a.example", 0.2) - 0.5).abs() < 1e-12);
        assert_eq!(
            history.delay("a.example", 0.9),
            0.9,
            "never below the configured delay"
        );
        assert_eq!(history.delay("b.example", 0.3), 0.3);
    }

    #[test]
    fn the_estimate_puts_robots_first_and_adds_the_overhead() {
        let log = vec![
            fetch(1, "http://a.example/robots.txt", true, 0.0, 0.1),
            fetch(1, "http://a.example/x", false, 0.6, 0.2),
            fetch(1, "http://a.example/y", false, 1.3, 0.2),
        ];
        let history = FetchHistory::from_log(&log);
        let urls = vec![
            "http://a.example/x".to_string(),
            "http://a.example/y".to_string(),
        ];
        let none = CarriedOver::default();
        let w = workloads(&urls, &history, 0.5, &none);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].fetch_times, vec![0.1, 0.2, 0.2]);
        // 0.1 + 0.5 + 0.2 + 0.5 + 0.2 = 1.5, plus 0.25 overhead.
        let e = estimate_cycle(&urls, &history, 0.5, 8, 0.25, &none);
        assert!((e.model - 1.5).abs() < 1e-9, "{e:?}");
        assert!((e.estimate - 1.75).abs() < 1e-9);
        assert_eq!(
            estimate_cycle(&[], &history, 0.5, 8, 0.25, &none).estimate,
            0.0
        );
        // robots.txt still fresh, and 0.3 s left of the delay after the last contact.
        let carried = CarriedOver {
            fresh_robots: ["http://a.example".to_string()].into(),
            waits: [("a.example".to_string(), 0.3)].into(),
        };
        let w = workloads(&urls, &history, 0.5, &carried);
        assert_eq!(w[0].fetch_times, vec![0.5, 0.2]);
        let e = estimate_cycle(&urls, &history, 0.5, 8, 0.0, &carried);
        assert!((e.model - 1.2).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn overhead_is_the_median_residual_of_recent_cycles() {
        let row = |urls: u64, model: f64, actual: Option<f64>| CycleRow {
            cycle: 0,
            started: String::new(),
            clock: String::new(),
            strategy: String::new(),
            urls,
            model_s: model,
            estimate_s: model,
            paper_s: model,
            actual_s: actual,
            cycle_s: None,
            fetched: None,
            changed: None,
            crawl: None,
            finished: None,
        };
        assert_eq!(observed_overhead(&[]), 0.0);
        let cycles = vec![
            row(3, 1.0, Some(1.2)),
            row(0, 0.0, Some(0.1)), // nothing crawled: ignored
            row(3, 1.0, None),      // killed: ignored
            row(3, 2.0, Some(2.3)),
            row(3, 1.0, Some(1.25)),
        ];
        assert!((observed_overhead(&cycles) - 0.25).abs() < 1e-9);
    }
}
