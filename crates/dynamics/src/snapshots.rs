//! Snapshots: which crawl of the archive a capture belongs to, so that consecutive crawls can
//! be compared ("the fraction of documents changed between consecutive snapshots", DyLDO's
//! weekly snapshots in `shared/papers/000_…` §2).
//!
//! A snapshot is a maximal run of capture times in which no two neighbours are further apart
//! than a gap, with two corrections from the crawl log when there is one: a crawl that started
//! between two captures always begins a new snapshot, and two captures inside the same crawl
//! run are never split, however long the crawl paused. Times are `f64` in one unit of the
//! caller's choice (days since the Unix epoch for `ldwarc stats`).

/// A crawl run from the crawl log: when it started and, if it did, when it finished.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrawlWindow {
    /// Start of the crawl.
    pub started: f64,
    /// End of the crawl; `None` for a crawl that never finished (it then lasts until the next
    /// crawl starts).
    pub finished: Option<f64>,
}

/// The start time of every snapshot of `times` (which need not be sorted): the first capture
/// time of each, increasing. `gap` is the longest pause inside one snapshot.
pub fn snapshot_starts(times: &[f64], crawls: &[CrawlWindow], gap: f64) -> Vec<f64> {
    let mut sorted: Vec<f64> = times.iter().copied().filter(|t| t.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let mut windows = crawls.to_vec();
    windows.sort_by(|a, b| a.started.total_cmp(&b.started));
    let mut starts: Vec<f64> = Vec::new();
    let mut previous: Option<f64> = None;
    for t in sorted {
        let new = match previous {
            None => true,
            Some(p) => {
                crawl_started_between(&windows, p, t)
                    || (t - p > gap && !same_crawl(&windows, p, t))
            }
        };
        if new {
            starts.push(t);
        }
        previous = Some(t);
    }
    starts
}

/// The index of the snapshot holding time `t`, given the starts from [`snapshot_starts`]
/// (times before the first start belong to snapshot 0).
pub fn snapshot_of(starts: &[f64], t: f64) -> usize {
    starts.partition_point(|&s| s <= t).saturating_sub(1)
}

/// Whether a crawl started in `(earlier, later]`.
fn crawl_started_between(windows: &[CrawlWindow], earlier: f64, later: f64) -> bool {
    windows
        .iter()
        .any(|w| w.started > earlier && w.started <= later)
}

/// Whether one crawl run covers both times. A run without an end lasts until the next run
/// starts.
fn same_crawl(windows: &[CrawlWindow], earlier: f64, later: f64) -> bool {
    windows.iter().enumerate().any(|(i, w)| {
        let end = w
            .finished
            .or_else(|| windows.get(i + 1).map(|next| next.started))
            .unwrap_or(f64::INFINITY);
        w.started <= earlier && later <= end
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_split_snapshots() {
        // Three daily crawls of a few captures each, unsorted.
        let times = [2.01, 0.0, 0.01, 1.0, 1.02, 2.0, 0.02];
        let starts = snapshot_starts(&times, &[], 0.25);
        assert_eq!(starts, vec![0.0, 1.0, 2.0]);
        assert_eq!(snapshot_of(&starts, 0.02), 0);
        assert_eq!(snapshot_of(&starts, 1.02), 1);
        assert_eq!(snapshot_of(&starts, 2.01), 2);
        assert_eq!(snapshot_of(&starts, -5.0), 0);
        assert!(snapshot_starts(&[], &[], 1.0).is_empty());
    }

    #[test]
    fn crawl_runs_override_gaps() {
        // One crawl from 0 to 3 that paused for two days, then a crawl starting at 3.5 whose
        // first capture comes only 0.01 after the previous crawl's last one.
        let crawls = [
            CrawlWindow {
                started: 0.0,
                finished: Some(3.49),
            },
            CrawlWindow {
                started: 3.5,
                finished: None,
            },
        ];
        let times = [0.1, 0.2, 2.5, 3.49, 3.5, 3.6, 9.0];
        let starts = snapshot_starts(&times, &crawls, 0.25);
        // 2.5 stays in the first crawl; 3.5 starts the second; the unfinished second crawl
        // lasts for ever, so 9.0 stays in it.
        assert_eq!(starts, vec![0.1, 3.5]);
        // Without the crawl log, gaps decide.
        assert_eq!(
            snapshot_starts(&times, &[], 0.25),
            vec![0.1, 2.5, 3.49, 9.0]
        );
    }
}
