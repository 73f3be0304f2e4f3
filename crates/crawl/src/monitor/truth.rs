//! Recall and precision of the monitor against ground truth (per URL, its real change
//! instants, in the `ldwarc simulate --histories` format of [`ldwarc_dynamics::schedule::history`]), as
//! \[UMP\] §4.2 measures strategies: a download *detects* a change when the monitor found the
//! content changed since the previous download; recall = changes detected / real changes in
//! the monitored span (from the URL's first download to the evaluation time, within the
//! history's span), precision = changes detected / downloads after the first. Several real
//! changes between two downloads can be detected only once.

use std::collections::BTreeMap;

use serde::Serialize;

use super::table::Observation;
use ldwarc_dynamics::schedule::ChangeHistory;

/// The measures of one URL, or of all of them together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TruthScore {
    /// The URL (`"all"` for the total).
    pub url: String,
    /// Real changes in the monitored span.
    pub changes: u64,
    /// Downloads after the first.
    pub downloads: u64,
    /// Downloads that detected a change.
    pub detected: u64,
    /// Detected changes when the truth has none since the previous download (should be 0).
    pub false_detections: u64,
    /// `detected / changes` (`None` without changes).
    pub recall: Option<f64>,
    /// `detected / downloads` (`None` without downloads).
    pub precision: Option<f64>,
}

impl TruthScore {
    fn new(url: &str) -> TruthScore {
        TruthScore {
            url: url.to_string(),
            changes: 0,
            downloads: 0,
            detected: 0,
            false_detections: 0,
            recall: None,
            precision: None,
        }
    }

    fn add(&mut self, other: &TruthScore) {
        self.changes += other.changes;
        self.downloads += other.downloads;
        self.detected += other.detected;
        self.false_detections += other.false_detections;
    }

    fn finish(&mut self) {
        self.recall = (self.changes > 0).then(|| self.detected as f64 / self.changes as f64);
        self.precision = (self.downloads > 0).then(|| self.detected as f64 / self.downloads as f64);
    }
}

/// Scores every URL of `histories` that the monitor downloaded, up to `now` (seconds since
/// the epoch); the last entry is the total over them (`"all"`).
pub fn score(
    histories: &[ChangeHistory],
    observations: &[Observation],
    now: f64,
) -> Vec<TruthScore> {
    let mut by_url: BTreeMap<&str, Vec<&Observation>> = BTreeMap::new();
    for observation in observations.iter().filter(|o| o.at <= now) {
        by_url
            .entry(observation.url.as_str())
            .or_default()
            .push(observation);
    }
    let mut scores = Vec::new();
    let mut total = TruthScore::new("all");
    for history in histories {
        let Some(seen) = by_url.get(history.url.as_str()) else {
            continue;
        };
        let mut url_score = TruthScore::new(&history.url);
        let first = seen[0].at;
        url_score.changes = history.changes_between(first, now.min(history.end)) as u64;
        for pair in seen.windows(2) {
            url_score.downloads += 1;
            if pair[1].changed {
                url_score.detected += 1;
                if history.changes_between(pair[0].at, pair[1].at) == 0 {
                    url_score.false_detections += 1;
                }
            }
        }
        url_score.finish();
        total.add(&url_score);
        scores.push(url_score);
    }
    total.finish();
    scores.push(total);
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(url: &str, at: f64, changed: bool) -> Observation {
        Observation {
            cycle: 0,
            url: url.into(),
            at,
            first: false,
            byte_changed: changed,
            graph_changed: Some(changed),
            changed,
        }
    }

    #[test]
    fn recall_counts_real_changes_and_precision_downloads() {
        // Changes at 1.5, 2.5, 3.5, 6; downloads at 1, 2, 4, 5, 7 (first at 1).
        let history = ChangeHistory::new("u", 0.0, 10.0, vec![1.5, 2.5, 3.5, 6.0, 9.0]).unwrap();
        let observations = vec![
            seen("u", 1.0, false),
            seen("u", 2.0, true), // 1.5
            seen("u", 4.0, true), // 2.5 and 3.5: one detection
            seen("u", 5.0, true), // nothing changed: a false detection
            seen("u", 7.0, true), // 6
            seen("other", 1.0, false),
        ];
        let scores = score(&[history], &observations, 8.0);
        assert_eq!(scores.len(), 2);
        let u = &scores[0];
        // Real changes in (1, 8]: 1.5, 2.5, 3.5, 6 = 4; 9 is after the evaluation time.
        assert_eq!(
            (u.changes, u.downloads, u.detected, u.false_detections),
            (4, 4, 4, 1)
        );
        assert_eq!(u.recall, Some(1.0));
        assert_eq!(u.precision, Some(1.0));
        assert_eq!(scores[1].url, "all");
        assert_eq!(scores[1].detected, 4);
        // Evaluated earlier, only what had happened by then counts.
        let early = score(
            &[ChangeHistory::new("u", 0.0, 10.0, vec![1.5, 2.5, 3.5]).unwrap()],
            &observations,
            2.0,
        );
        assert_eq!(
            (early[0].changes, early[0].downloads, early[0].detected),
            (1, 1, 1)
        );
    }
}
