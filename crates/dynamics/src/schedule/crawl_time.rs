//! Crawl-time estimation: how long fetching a set of URLs will take, given each pay-level
//! domain's politeness delay, the expected fetch time of each URL and a number of
//! connections.
//!
//! Three answers:
//!
//! - [`first_fit_estimate`]: the paper's heuristic (`shared/papers/001_…` §5): per domain,
//!   `threads = c/d` (mean fetch time over delay) and `time = docs·c/threads + d·(threads − 1)`;
//!   domains, most threads first, are packed first-fit into bins as long as the longest
//!   domain; the threads needed are the sum over bins of their largest domain's threads;
//!   while that exceeds the connections the per-domain thread cap is lowered and everything
//!   repacked. The estimate is the bin size.
//! - [`lower_bound`]: no crawl can be faster than its slowest domain crawled one request at a
//!   time (`Σ fetch + (n − 1)·delay`, ldwarc's politeness: the next request `delay` after the
//!   previous answer) nor than the total fetch time spread over all connections.
//! - [`simulate_politeness`]: replays ldwarc's frontier rules (one request per domain in
//!   flight, the next `delay` after the answer, a free connection takes the ready domain with
//!   most queued URLs) with the given fetch times; this is the estimate we use.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use serde::Serialize;

/// The paper's default fetch time of a URL with no history, seconds.
pub const DEFAULT_FETCH_TIME: f64 = 2.0;

/// The paper's default domain crawl delay, seconds.
pub const DEFAULT_DELAY: f64 = 1.0;

/// The work of one pay-level domain.
#[derive(Debug, Clone, PartialEq)]
pub struct PldWorkload {
    /// The pay-level domain.
    pub pld: String,
    /// Seconds between an answer and the next request to the domain.
    pub delay: f64,
    /// Expected fetch time of each URL, seconds, in crawl order.
    pub fetch_times: Vec<f64>,
}

impl PldWorkload {
    /// Mean fetch time (the paper's `c`), the default when there are no URLs.
    pub fn mean_fetch_time(&self) -> f64 {
        if self.fetch_times.is_empty() {
            DEFAULT_FETCH_TIME
        } else {
            self.fetch_times.iter().sum::<f64>() / self.fetch_times.len() as f64
        }
    }

    /// Time to fetch every URL one after another: `Σ fetch + (n − 1)·delay`.
    pub fn serial_time(&self) -> f64 {
        let n = self.fetch_times.len();
        if n == 0 {
            return 0.0;
        }
        self.fetch_times.iter().sum::<f64>() + (n - 1) as f64 * self.delay.max(0.0)
    }
}

/// The result of the paper's heuristic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PaperEstimate {
    /// The estimated crawl time (the bin size), seconds.
    pub seconds: f64,
    /// Threads the packing needs.
    pub threads: usize,
    /// Bins used.
    pub bins: usize,
    /// The per-domain thread cap the packing ended with.
    pub thread_cap: usize,
}

/// All three estimates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CrawlTimeEstimate {
    /// The paper's first-fit bin packing.
    pub paper: PaperEstimate,
    /// The lower bound, seconds.
    pub lower_bound: f64,
    /// The politeness simulation, seconds: the estimate to use.
    pub simulated: f64,
}

/// All three estimates for `workloads` over `connections` connections.
pub fn estimate_crawl_time(workloads: &[PldWorkload], connections: usize) -> CrawlTimeEstimate {
    CrawlTimeEstimate {
        paper: first_fit_estimate(workloads, connections),
        lower_bound: lower_bound(workloads, connections),
        simulated: simulate_politeness(workloads, connections),
    }
}

/// One domain in the paper's model: its threads and crawl time under a thread cap.
#[derive(Debug, Clone, Copy)]
struct Domain {
    threads: usize,
    time: f64,
}

fn paper_domain(workload: &PldWorkload, cap: usize) -> Domain {
    let docs = workload.fetch_times.len();
    let c = workload.mean_fetch_time();
    let d = workload.delay.max(0.0);
    // threads = c / d, whole threads (Fig. 7: c a bit over 3d gives 3), at least 1, at most
    // one per document and the cap.
    let wanted = if d > 0.0 {
        (c / d).floor() as usize
    } else {
        docs
    };
    let threads = wanted.clamp(1, docs.max(1)).min(cap.max(1));
    let time = docs as f64 * c / threads as f64 + d * (threads - 1) as f64;
    Domain { threads, time }
}

/// First-fit packing of `domains` (already ordered) into bins of `size`: returns the threads
/// needed (Σ over bins of the largest thread count) and the bins.
fn first_fit(domains: &[Domain], size: f64) -> (usize, usize) {
    let tolerance = 1e-9 * size.max(1.0);
    let mut bins: Vec<(f64, usize)> = Vec::new();
    for domain in domains {
        match bins
            .iter_mut()
            .find(|(fill, _)| *fill + domain.time <= size + tolerance)
        {
            Some((fill, threads)) => {
                *fill += domain.time;
                *threads = (*threads).max(domain.threads);
            }
            None => bins.push((domain.time, domain.threads)),
        }
    }
    (bins.iter().map(|(_, t)| t).sum(), bins.len())
}

/// The paper's estimate (§5). When even one thread per domain needs more threads than
/// `connections` (more long domains than connections), the paper stops short; we then grow
/// the bin size (by bisection) until the packing fits.
pub fn first_fit_estimate(workloads: &[PldWorkload], connections: usize) -> PaperEstimate {
    let connections = connections.max(1);
    let busy: Vec<&PldWorkload> = workloads
        .iter()
        .filter(|w| !w.fetch_times.is_empty())
        .collect();
    if busy.is_empty() {
        return PaperEstimate {
            seconds: 0.0,
            threads: 0,
            bins: 0,
            thread_cap: 0,
        };
    }
    let pack = |cap: usize| -> (Vec<Domain>, f64) {
        let mut domains: Vec<Domain> = busy.iter().map(|w| paper_domain(w, cap)).collect();
        // "In descending order by the number of threads"; longer first among equals.
        domains.sort_by(|a, b| {
            b.threads
                .cmp(&a.threads)
                .then(b.time.partial_cmp(&a.time).unwrap_or(Ordering::Equal))
        });
        let size = domains.iter().map(|d| d.time).fold(0.0, f64::max);
        (domains, size)
    };
    let top_cap = busy
        .iter()
        .map(|w| paper_domain(w, usize::MAX).threads)
        .max()
        .unwrap_or(1);
    for cap in (1..=top_cap).rev() {
        let (domains, size) = pack(cap);
        let (threads, bins) = first_fit(&domains, size);
        if threads <= connections {
            return PaperEstimate {
                seconds: size,
                threads,
                bins,
                thread_cap: cap,
            };
        }
    }
    // One thread per domain and still too many bins: the smallest bin size that fits.
    let (domains, mut low) = pack(1);
    let mut high: f64 = domains.iter().map(|d| d.time).sum();
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if first_fit(&domains, mid).0 <= connections {
            high = mid;
        } else {
            low = mid;
        }
        if high - low <= 1e-6 * high {
            break;
        }
    }
    let (threads, bins) = first_fit(&domains, high);
    PaperEstimate {
        seconds: high,
        threads,
        bins,
        thread_cap: 1,
    }
}

/// The longer of the slowest domain's serial time and the total fetch time over all
/// connections: no schedule under ldwarc's politeness can beat it.
pub fn lower_bound(workloads: &[PldWorkload], connections: usize) -> f64 {
    let slowest = workloads
        .iter()
        .map(PldWorkload::serial_time)
        .fold(0.0, f64::max);
    let work: f64 = workloads.iter().flat_map(|w| &w.fetch_times).sum();
    slowest.max(work / connections.max(1) as f64)
}

/// A time with a total order (for the event heaps).
#[derive(Debug, Clone, Copy, PartialEq)]
struct At(f64);

impl Eq for At {}

impl PartialOrd for At {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for At {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Replays ldwarc's frontier: `connections` requests in flight at most, one per domain; a
/// domain may be asked again `delay` after its previous answer; a free connection serves the
/// ready domain with the most queued URLs (the lowest index among equals). Returns when the
/// last answer arrives, seconds from the start.
pub fn simulate_politeness(workloads: &[PldWorkload], connections: usize) -> f64 {
    simulate_rounds(std::slice::from_ref(&workloads.to_vec()), connections)
}

/// [`simulate_politeness`] for crawl rounds run one after another (a round starts when the
/// previous one's last answer arrives): a domain's delay runs on across a round boundary,
/// which costs up to one delay per round when the same domains appear in every round.
pub fn simulate_rounds(rounds: &[Vec<PldWorkload>], connections: usize) -> f64 {
    let mut ready_at: HashMap<&str, f64> = HashMap::new();
    let mut now = 0.0;
    for round in rounds {
        now = simulate_round(round, connections.max(1), now, &mut ready_at);
    }
    now
}

/// One round from `start`; `ready_at` holds when each domain may next be asked, and is
/// updated. Returns when the round's last answer arrives.
fn simulate_round<'a>(
    workloads: &'a [PldWorkload],
    connections: usize,
    start: f64,
    ready_at: &mut HashMap<&'a str, f64>,
) -> f64 {
    let mut next_url = vec![0usize; workloads.len()];
    // Domains waiting for their delay: (ready at, domain).
    let mut waiting: BinaryHeap<Reverse<(At, usize)>> = workloads
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.fetch_times.is_empty())
        .map(|(i, w)| {
            let ready = ready_at.get(w.pld.as_str()).copied().unwrap_or(start);
            Reverse((At(ready.max(start)), i))
        })
        .collect();
    // Domains ready now: (queued URLs, lowest index first).
    let mut ready: BinaryHeap<(usize, Reverse<usize>)> = BinaryHeap::new();
    // Requests in flight: (answer at, domain).
    let mut in_flight: BinaryHeap<Reverse<(At, usize)>> = BinaryHeap::new();
    let mut now = start;
    let mut finished = start;
    loop {
        while let Some(&Reverse((At(time), domain))) = waiting.peek() {
            if time > now {
                break;
            }
            waiting.pop();
            let queued = workloads[domain].fetch_times.len() - next_url[domain];
            ready.push((queued, Reverse(domain)));
        }
        while in_flight.len() < connections {
            let Some((_, Reverse(domain))) = ready.pop() else {
                break;
            };
            let fetch = workloads[domain].fetch_times[next_url[domain]].max(0.0);
            next_url[domain] += 1;
            in_flight.push(Reverse((At(now + fetch), domain)));
        }
        let next_answer = in_flight.peek().map(|Reverse((At(t), _))| *t);
        let next_ready = if in_flight.len() < connections {
            waiting.peek().map(|Reverse((At(t), _))| *t)
        } else {
            None
        };
        now = match (next_answer, next_ready) {
            (None, None) => break,
            (Some(a), Some(r)) => a.min(r),
            (Some(t), None) | (None, Some(t)) => t,
        };
        while let Some(&Reverse((At(time), domain))) = in_flight.peek() {
            if time > now {
                break;
            }
            in_flight.pop();
            finished = finished.max(time);
            let workload = &workloads[domain];
            let next_allowed = time + workload.delay.max(0.0);
            ready_at.insert(workload.pld.as_str(), next_allowed);
            if next_url[domain] < workload.fetch_times.len() {
                waiting.push(Reverse((At(next_allowed), domain)));
            }
        }
    }
    finished
}

/// All three estimates for a crawl in rounds: the politeness simulation runs the rounds one
/// after another ([`simulate_rounds`]); the paper's estimate and the lower bound, which know
/// no rounds, see every domain's URLs of all rounds together.
pub fn estimate_crawl_rounds(rounds: &[Vec<PldWorkload>], connections: usize) -> CrawlTimeEstimate {
    let merged = merge_rounds(rounds);
    CrawlTimeEstimate {
        paper: first_fit_estimate(&merged, connections),
        lower_bound: lower_bound(&merged, connections),
        simulated: simulate_rounds(rounds, connections),
    }
}

/// Every domain's URLs of all rounds in one workload (the largest delay seen wins).
fn merge_rounds(rounds: &[Vec<PldWorkload>]) -> Vec<PldWorkload> {
    let mut merged: Vec<PldWorkload> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for workload in rounds.iter().flatten() {
        match index.get(workload.pld.as_str()) {
            Some(&i) => {
                merged[i]
                    .fetch_times
                    .extend_from_slice(&workload.fetch_times);
                merged[i].delay = merged[i].delay.max(workload.delay);
            }
            None => {
                index.insert(workload.pld.as_str(), merged.len());
                merged.push(workload.clone());
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pld(name: &str, delay: f64, fetch_times: &[f64]) -> PldWorkload {
        PldWorkload {
            pld: name.to_string(),
            delay,
            fetch_times: fetch_times.to_vec(),
        }
    }

    #[test]
    fn paper_domain_formula_matches_figure_7() {
        // 6 documents, crawl time a bit over 3 delays: 3 threads;
        // time = 6·3.2/3 + 1·2 = 8.4.
        let w = pld("a", 1.0, &[3.2; 6]);
        let d = paper_domain(&w, usize::MAX);
        assert_eq!(d.threads, 3);
        assert!((d.time - 8.4).abs() < 1e-12);
        // A cap of 2: 6·3.2/2 + 1 = 10.6.
        let d = paper_domain(&w, 2);
        assert_eq!(d.threads, 2);
        assert!((d.time - 10.6).abs() < 1e-12);
        // Delay longer than the fetch: one thread, docs·c.
        let d = paper_domain(&pld("b", 5.0, &[2.0; 4]), usize::MAX);
        assert_eq!((d.threads, d.time), (1, 8.0));
    }

    #[test]
    fn first_fit_packs_short_domains_behind_long_ones() {
        // One long domain (20 s, 1 thread) and four of 5 s each (1 thread): bin size 20 s;
        // the long one fills a bin, the four short ones share a second: 2 threads.
        let mut workloads = vec![pld("long", 5.0, &[2.0; 10])];
        for i in 0..4 {
            workloads.push(pld(&format!("s{i}"), 5.0, &[5.0]));
        }
        let e = first_fit_estimate(&workloads, 8);
        assert_eq!(
            (e.seconds, e.threads, e.bins, e.thread_cap),
            (20.0, 2, 2, 1)
        );
        // With one connection the paper's loop cannot lower the cap further; we grow the
        // bin until it holds everything: 40 s.
        let e = first_fit_estimate(&workloads, 1);
        assert_eq!((e.threads, e.bins), (1, 1));
        assert!((e.seconds - 40.0).abs() < 1e-3, "{e:?}");
        assert_eq!(first_fit_estimate(&[], 4).seconds, 0.0);
    }

    #[test]
    fn thread_cap_drops_until_the_threads_fit() {
        // Two domains wanting 4 threads each (c = 4, d = 1, 8 docs): at cap 4 they need 8
        // threads; with 4 connections the cap drops to 2: time = 8·4/2 + 1 = 17 each, bin
        // size 17, two bins of 2 threads.
        let workloads = vec![pld("a", 1.0, &[4.0; 8]), pld("b", 1.0, &[4.0; 8])];
        let e = first_fit_estimate(&workloads, 8);
        assert_eq!((e.thread_cap, e.threads), (4, 8));
        assert!((e.seconds - 11.0).abs() < 1e-12);
        let e = first_fit_estimate(&workloads, 4);
        assert_eq!((e.thread_cap, e.threads, e.bins), (2, 4, 2));
        assert!((e.seconds - 17.0).abs() < 1e-12);
    }

    #[test]
    fn politeness_simulation_is_exact_on_small_cases() {
        // One domain: fetch, delay, fetch, delay, fetch: 3·1 + 2·2 = 7.
        let one = vec![pld("a", 2.0, &[1.0, 1.0, 1.0])];
        assert_eq!(simulate_politeness(&one, 4), 7.0);
        assert_eq!(lower_bound(&one, 4), 7.0);
        // Two domains, one connection: a's delay lets b's request go in between.
        // t=0 a(1) → 1; b has 1 queued, a 1: a waits until 3; b starts at 1 → 2; then idle
        // to 3; a at 3 → 4; b ready at 2+2 = 4 → 5.
        let two = vec![pld("a", 2.0, &[1.0, 1.0]), pld("b", 2.0, &[1.0, 1.0])];
        assert_eq!(simulate_politeness(&two, 1), 5.0);
        assert_eq!(lower_bound(&two, 1), 4.0);
        // Enough connections: the domains run side by side.
        assert_eq!(simulate_politeness(&two, 2), 4.0);
        assert_eq!(simulate_politeness(&[], 3), 0.0);
    }

    #[test]
    fn delays_run_on_across_rounds() {
        // Round 0: a(1 s); round 1: a again. The second request waits for a's delay (2 s)
        // even though round 1 starts at 1 s: 1 + 2 + 1 = 4. A new domain in round 1 starts
        // at once.
        let rounds = vec![
            vec![pld("a", 2.0, &[1.0])],
            vec![pld("a", 2.0, &[1.0]), pld("b", 2.0, &[0.5])],
        ];
        assert_eq!(simulate_rounds(&rounds, 4), 4.0);
        let e = estimate_crawl_rounds(&rounds, 4);
        assert_eq!(e.simulated, 4.0);
        assert_eq!(e.lower_bound, 4.0, "a's two fetches and one delay");
        // Rounds are barriers: b cannot start before round 0 ends.
        let rounds = vec![vec![pld("a", 0.0, &[3.0])], vec![pld("b", 0.0, &[1.0])]];
        assert_eq!(simulate_rounds(&rounds, 4), 4.0);
        assert_eq!(simulate_politeness(&merge_rounds(&rounds), 4), 3.0);
    }

    #[test]
    fn politeness_simulation_serves_the_longest_queue_first() {
        // One connection, no delays: order does not change the total, but the longest queue
        // is served first: a(3 URLs) before b(1 URL) → total 4 either way.
        let w = vec![pld("b", 0.0, &[1.0]), pld("a", 0.0, &[1.0, 1.0, 1.0])];
        assert_eq!(simulate_politeness(&w, 1), 4.0);
        // Many small domains and one big one with a delay: the estimate sits between the
        // bound and the paper's estimate, which assumes parallel threads per domain.
        let mut w = vec![pld("big", 2.0, &[0.5; 50])];
        for i in 0..40 {
            w.push(pld(&format!("d{i}"), 2.0, &[0.5; 3]));
        }
        let estimate = estimate_crawl_time(&w, 4);
        assert!(estimate.simulated >= estimate.lower_bound);
        assert!(
            estimate.simulated <= estimate.lower_bound * 1.2,
            "{estimate:?}"
        );
    }
}
