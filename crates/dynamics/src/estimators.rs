//! Change-rate estimators for one source, and the Last-Modified based ages and lifetimes.
//!
//! Every page is modelled as changing by a Poisson process of rate λ (Brewington & Cybenko,
//! "How dynamic is the Web?", §3; Cho & Garcia-Molina). Times are plain `f64` in one unit of
//! the caller's choice (seconds, days, …); rates come back per that unit.
//!
//! Two kinds of evidence:
//!
//! - **change detection** ([`Visit`]): at each visit we only know whether the content differs
//!   from the previous visit. Several changes between two visits look like one, so the naive
//!   rate X/T underestimates fast sources; the Cho & Garcia-Molina estimators correct for that.
//! - **Last-Modified** ([`LastModified`]): the server tells when the current version was made.
//!   Ages (visit time − Last-Modified) are exponential with the change rate itself for a
//!   memoryless page (paper 003 eq. 2), and are not aliased the way change detection is.

/// One visit to a source: when, and whether its content differed from the previous visit
/// (`changed` of the first visit is ignored: there is nothing to compare it with).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Visit {
    /// When the visit was made.
    pub at: f64,
    /// Whether the content differed from the previous visit's.
    pub changed: bool,
}

/// The interval between two consecutive visits, and whether a change was detected across it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The time between the two visits.
    pub length: f64,
    /// Whether the second visit saw different content.
    pub changed: bool,
}

/// The intervals between consecutive visits (sorted by time first; visits at the same instant
/// give zero-length intervals, which are dropped).
pub fn intervals(visits: &[Visit]) -> Vec<Interval> {
    let mut sorted = visits.to_vec();
    sorted.sort_by(|a, b| a.at.total_cmp(&b.at));
    sorted
        .windows(2)
        .filter(|w| w[1].at > w[0].at)
        .map(|w| Interval {
            length: w[1].at - w[0].at,
            changed: w[1].changed,
        })
        .collect()
}

/// The naive estimate: changes detected per unit of time, `X / T`, where T is the time the
/// source was watched. `None` when `elapsed` is not positive.
pub fn naive_rate(changes: u64, elapsed: f64) -> Option<f64> {
    (elapsed > 0.0).then(|| changes as f64 / elapsed)
}

/// Cho & Garcia-Molina's bias-reduced estimate of the change frequency ratio `r = λ·I` for `n`
/// visits at a regular interval `I` that detected `X` changes:
///
/// `r̂ = −ln((n − X + 0.5) / (n + 0.5))`
///
/// (their improved estimator; unlike the maximum-likelihood `−ln(1 − X/n)` it stays finite
/// when every visit detects a change, and its bias is small for all r). `n` counts the
/// comparisons, i.e. the visits after the first. `None` when `n = 0` or `X > n`.
pub fn bias_reduced_ratio(intervals: u64, changes: u64) -> Option<f64> {
    if intervals == 0 || changes > intervals {
        return None;
    }
    let n = intervals as f64;
    let x = changes as f64;
    // `+ 0.0` turns the −0 of `−ln 1` (no change) into 0, which prints as `0`, not `-0.0`.
    Some(-((n - x + 0.5) / (n + 0.5)).ln() + 0.0)
}

/// The bias-reduced change rate per unit of time: [`bias_reduced_ratio`] divided by the
/// visiting interval. `None` as for the ratio, or when `interval` is not positive.
pub fn bias_reduced_rate(intervals: u64, changes: u64, interval: f64) -> Option<f64> {
    if interval <= 0.0 {
        return None;
    }
    bias_reduced_ratio(intervals, changes).map(|r| r / interval)
}

/// A change-rate estimate that may be unbounded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RateEstimate {
    /// A finite rate per unit of time (0 when no change was ever detected).
    Rate(f64),
    /// Every interval showed a change: the data only say the rate is much larger than
    /// one per interval (the likelihood grows without bound).
    Unbounded,
    /// No interval to estimate from.
    NoData,
}

impl RateEstimate {
    /// The rate, when finite.
    pub fn rate(self) -> Option<f64> {
        match self {
            RateEstimate::Rate(rate) => Some(rate),
            _ => None,
        }
    }
}

/// The maximum-likelihood change rate for visits at irregular intervals (Cho &
/// Garcia-Molina's irregular-access estimator): with `t_c` the lengths of the intervals that
/// showed a change and `t_u` those that did not, λ̂ solves
///
/// `Σ_c t_c / (e^{λ t_c} − 1) = Σ_u t_u`.
///
/// The left side falls from +∞ to 0 as λ grows, so the root is unique; it is found by
/// bisection on ln λ. For regular intervals this is `−ln(1 − X/n) / I`, the plain MLE (not the
/// bias-reduced estimator, which has no irregular-interval form).
pub fn irregular_rate_mle(intervals: &[Interval]) -> RateEstimate {
    let valid: Vec<&Interval> = intervals
        .iter()
        .filter(|i| i.length > 0.0 && i.length.is_finite())
        .collect();
    if valid.is_empty() {
        return RateEstimate::NoData;
    }
    let unchanged: f64 = valid.iter().filter(|i| !i.changed).map(|i| i.length).sum();
    let changed: Vec<f64> = valid
        .iter()
        .filter(|i| i.changed)
        .map(|i| i.length)
        .collect();
    if changed.is_empty() {
        return RateEstimate::Rate(0.0);
    }
    if unchanged == 0.0 {
        return RateEstimate::Unbounded;
    }
    let score = |ln_rate: f64| {
        let rate = ln_rate.exp();
        let lhs: f64 = changed.iter().map(|&t| t / (rate * t).exp_m1()).sum();
        lhs - unchanged
    };
    // Bracket the root: at λ = 1/(max t)·1e-12 the left side is huge, at λ = 1e3/(min t)
    // it is negligible (e^{-1000}).
    let shortest = valid.iter().map(|i| i.length).fold(f64::INFINITY, f64::min);
    let longest = valid.iter().map(|i| i.length).fold(0.0, f64::max);
    let lo = (1e-12 / longest).ln();
    let hi = (700.0 / shortest).ln();
    match super::numeric::bisect(score, lo, hi, 1e-13) {
        Some(ln_rate) => RateEstimate::Rate(ln_rate.exp()),
        None => RateEstimate::Unbounded,
    }
}

/// What the change-detection estimators say about one source's visits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangeEstimates {
    /// Visits given.
    pub visits: usize,
    /// Intervals between consecutive visits (n of the estimators).
    pub intervals: usize,
    /// Intervals across which a change was detected.
    pub changes: usize,
    /// First to last visit.
    pub span: f64,
    /// Mean interval between visits (`span / intervals`).
    pub mean_interval: f64,
    /// `X / T` ([`naive_rate`]).
    pub naive: Option<f64>,
    /// Cho & Garcia-Molina's bias-reduced rate with `I` = the mean interval
    /// ([`bias_reduced_rate`]); exact for regular visits, an approximation otherwise.
    pub bias_reduced: Option<f64>,
    /// The irregular-interval MLE ([`irregular_rate_mle`]).
    pub mle: RateEstimate,
}

impl ChangeEstimates {
    /// All change-detection estimates for one source's visits.
    pub fn from_visits(visits: &[Visit]) -> Self {
        let intervals = intervals(visits);
        let span: f64 = intervals.iter().map(|i| i.length).sum();
        let changes = intervals.iter().filter(|i| i.changed).count();
        let n = intervals.len();
        let mean_interval = if n > 0 { span / n as f64 } else { 0.0 };
        ChangeEstimates {
            visits: visits.len(),
            intervals: n,
            changes,
            span,
            mean_interval,
            naive: naive_rate(changes as u64, span),
            bias_reduced: bias_reduced_rate(n as u64, changes as u64, mean_interval),
            mle: irregular_rate_mle(&intervals),
        }
    }
}

/// One visit with the `Last-Modified` time the server reported (same time unit and origin as
/// `at`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LastModified {
    /// When the visit was made.
    pub at: f64,
    /// The `Last-Modified` time the server reported at that visit.
    pub last_modified: f64,
}

/// The ages seen at each visit, `at − last_modified` (paper 003 §2–3: the time since the most
/// recent change). Visits whose Last-Modified lies after the visit (a wrong server clock) are
/// skipped. Consecutive ages of one page are dependent samples of its age distribution.
pub fn ages(visits: &[LastModified]) -> Vec<f64> {
    let mut sorted = visits.to_vec();
    sorted.sort_by(|a, b| a.at.total_cmp(&b.at));
    sorted
        .iter()
        .filter(|v| v.last_modified <= v.at)
        .map(|v| v.at - v.last_modified)
        .collect()
}

/// The observed lifetimes: differences between successive distinct Last-Modified times (paper
/// 003 Fig. 11, "differences in successive modification timestamps"). When several changes fall
/// between two visits only the last is seen, so an observed lifetime is the sum of the hidden
/// ones: an upper bound of the true lifetime that starts at the earlier timestamp (the
/// aliasing the paper notes below about 8 days). A Last-Modified that goes backwards, or lies
/// after its visit, is skipped.
pub fn observed_lifetimes(visits: &[LastModified]) -> Vec<f64> {
    let mut sorted = visits.to_vec();
    sorted.sort_by(|a, b| a.at.total_cmp(&b.at));
    let mut lifetimes = Vec::new();
    let mut previous: Option<f64> = None;
    for v in sorted.iter().filter(|v| v.last_modified <= v.at) {
        match previous {
            Some(p) if v.last_modified > p => {
                lifetimes.push(v.last_modified - p);
                previous = Some(v.last_modified);
            }
            Some(_) => {}
            None => previous = Some(v.last_modified),
        }
    }
    lifetimes
}

/// The Last-Modified based change-rate estimate of one source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LastModifiedEstimate {
    /// `changes / exposure`, or `None` without exposure.
    pub rate: Option<f64>,
    /// Modification times seen (the first visit's, and each new one after).
    pub changes: usize,
    /// Time known to be free of changes.
    pub exposure: f64,
    /// Visits skipped: Last-Modified after the visit, or a new Last-Modified not after the
    /// previous visit (inconsistent with what that visit saw).
    pub discarded: usize,
}

/// The maximum-likelihood change rate from Last-Modified times, for a memoryless page.
///
/// Each visit at `o_i` reporting `m_i` says: a change happened at `m_i`, none in `(m_i, o_i]`.
/// For a Poisson process of rate λ the first visit contributes `λ e^{−λ(o_1 − m_1)}` (the age
/// density of paper 003 eq. 2); a later visit with a new timestamp `m_i > o_{i−1}` contributes
/// `λ e^{−λ(o_i − m_i)}` (whatever happened in `(o_{i−1}, m_i)` is unseen and integrates out);
/// a visit with the same timestamp contributes `e^{−λ(o_i − o_{i−1})}`. So
/// `λ̂ = X / E` with X the timestamps seen and E the summed change-free time. Unlike change
/// detection this is not aliased: fast pages are not underestimated.
pub fn last_modified_rate(visits: &[LastModified]) -> LastModifiedEstimate {
    let mut sorted = visits.to_vec();
    sorted.sort_by(|a, b| a.at.total_cmp(&b.at));
    let mut changes = 0;
    let mut exposure = 0.0;
    let mut discarded = 0;
    let mut previous: Option<LastModified> = None;
    for v in sorted {
        if v.last_modified.is_nan() || v.at.is_nan() || v.last_modified > v.at {
            discarded += 1;
            continue;
        }
        match previous {
            None => {
                changes += 1;
                exposure += v.at - v.last_modified;
            }
            Some(p) if v.last_modified == p.last_modified => exposure += v.at - p.at,
            Some(p) if v.last_modified > p.at => {
                changes += 1;
                exposure += v.at - v.last_modified;
            }
            Some(_) => {
                discarded += 1;
                continue;
            }
        }
        previous = Some(v);
    }
    LastModifiedEstimate {
        rate: (exposure > 0.0).then(|| changes as f64 / exposure),
        changes,
        exposure,
        discarded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Change times of a Poisson process of rate `rate` on `[0, end]`.
    fn poisson_changes(rng: &mut StdRng, rate: f64, end: f64) -> Vec<f64> {
        let mut times = Vec::new();
        let mut t = 0.0;
        loop {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / rate;
            if t > end {
                return times;
            }
            times.push(t);
        }
    }

    #[test]
    fn bias_reduced_estimator_matches_cho_garcia_molina() {
        // 5 changes detected in 10 intervals (11 visits): −ln(5.5 / 10.5).
        let r = bias_reduced_ratio(10, 5).expect("valid");
        assert!((r - 0.6466).abs() < 5e-5, "{r}");
        assert!((r - (10.5f64 / 5.5).ln()).abs() < 1e-15);
        // Per unit of time with a 2-day interval.
        let rate = bias_reduced_rate(10, 5, 2.0).expect("valid");
        assert!((rate - r / 2.0).abs() < 1e-15);
        // Finite when every visit sees a change; zero when none does.
        assert!((bias_reduced_ratio(10, 10).expect("valid") - 21f64.ln()).abs() < 1e-12);
        assert_eq!(bias_reduced_ratio(10, 0), Some(0.0));
        assert!(bias_reduced_ratio(10, 0).unwrap().is_sign_positive());
        assert_eq!(bias_reduced_ratio(0, 0), None);
        assert_eq!(bias_reduced_ratio(3, 4), None);
        assert_eq!(bias_reduced_rate(10, 5, 0.0), None);
        // The naive estimate for the same data.
        assert_eq!(naive_rate(5, 10.0), Some(0.5));
        assert_eq!(naive_rate(5, 0.0), None);
    }

    #[test]
    fn irregular_mle_reduces_to_the_regular_mle() {
        let intervals: Vec<Interval> = (0..10)
            .map(|i| Interval {
                length: 2.0,
                changed: i % 2 == 0,
            })
            .collect();
        let rate = irregular_rate_mle(&intervals).rate().expect("finite");
        let expected = -(1.0f64 - 5.0 / 10.0).ln() / 2.0;
        assert!((rate - expected).abs() < 1e-10, "{rate} vs {expected}");
        let none = vec![
            Interval {
                length: 1.0,
                changed: false
            };
            3
        ];
        assert_eq!(irregular_rate_mle(&none), RateEstimate::Rate(0.0));
        let all = vec![
            Interval {
                length: 1.0,
                changed: true
            };
            3
        ];
        assert_eq!(irregular_rate_mle(&all), RateEstimate::Unbounded);
        assert_eq!(irregular_rate_mle(&[]), RateEstimate::NoData);
    }

    #[test]
    fn estimators_recover_a_known_rate_from_simulated_visits() {
        let mut rng = StdRng::seed_from_u64(8);
        let rate = 0.7; // changes per day, visits daily: much aliasing
        let days = 20_000.0;
        let changes = poisson_changes(&mut rng, rate, days);
        // Regular daily visits.
        let mut visits = Vec::new();
        let mut next_change = 0;
        let mut day = 0.0;
        while day <= days {
            let before = next_change;
            while next_change < changes.len() && changes[next_change] <= day {
                next_change += 1;
            }
            visits.push(Visit {
                at: day,
                changed: next_change > before,
            });
            day += 1.0;
        }
        let estimates = ChangeEstimates::from_visits(&visits);
        assert_eq!(estimates.intervals, 20_000);
        let naive = estimates.naive.expect("span");
        let reduced = estimates.bias_reduced.expect("intervals");
        let mle = estimates.mle.rate().expect("finite");
        // Naive is biased low (it sees at most one change per day: 1 − e^{−0.7} ≈ 0.50).
        assert!(naive < 0.55, "{naive}");
        assert!((reduced - rate).abs() / rate < 0.05, "{reduced}");
        assert!((mle - rate).abs() / rate < 0.05, "{mle}");

        // Irregular visits: gaps uniform in [0.2, 3] days.
        let mut visits = Vec::new();
        let mut t = 0.0;
        let mut next_change = 0;
        while t <= days {
            let before = next_change;
            while next_change < changes.len() && changes[next_change] <= t {
                next_change += 1;
            }
            visits.push(Visit {
                at: t,
                changed: next_change > before,
            });
            t += rng.random_range(0.2..3.0);
        }
        let mle = ChangeEstimates::from_visits(&visits)
            .mle
            .rate()
            .expect("finite");
        assert!((mle - rate).abs() / rate < 0.05, "{mle}");
    }

    #[test]
    fn last_modified_rate_recovers_fast_rates_without_aliasing() {
        let mut rng = StdRng::seed_from_u64(3);
        let rate = 3.0; // three changes a day, visited daily
        let days = 2_000.0;
        let changes = poisson_changes(&mut rng, rate, days);
        let mut visits = Vec::new();
        let mut last = 0;
        for day in 1..=2_000 {
            let at = day as f64;
            while last < changes.len() && changes[last] <= at {
                last += 1;
            }
            if last > 0 {
                visits.push(LastModified {
                    at,
                    last_modified: changes[last - 1],
                });
            }
        }
        let estimate = last_modified_rate(&visits);
        let got = estimate.rate.expect("exposure");
        assert!((got - rate).abs() / rate < 0.05, "{got}");
        assert_eq!(estimate.discarded, 0);
        // Ages are exponential with the change rate (eq. 2): their mean is about 1/λ.
        let ages = ages(&visits);
        let mean_age = ages.iter().sum::<f64>() / ages.len() as f64;
        assert!((mean_age * rate - 1.0).abs() < 0.05, "{mean_age}");
        // Observed lifetimes are aliased: at least as long as the true mean lifetime.
        let lifetimes = observed_lifetimes(&visits);
        let mean_lifetime = lifetimes.iter().sum::<f64>() / lifetimes.len() as f64;
        assert!(mean_lifetime > 1.0 / rate, "{mean_lifetime}");
    }

    #[test]
    fn last_modified_handles_bad_clocks_and_repeats() {
        let visits = [
            LastModified {
                at: 10.0,
                last_modified: 4.0,
            },
            LastModified {
                at: 12.0,
                last_modified: 4.0,
            },
            // From the future: skipped.
            LastModified {
                at: 13.0,
                last_modified: 20.0,
            },
            LastModified {
                at: 15.0,
                last_modified: 14.0,
            },
            // A new timestamp before the previous visit: inconsistent, skipped.
            LastModified {
                at: 18.0,
                last_modified: 11.0,
            },
        ];
        let estimate = last_modified_rate(&visits);
        assert_eq!(estimate.changes, 2);
        assert_eq!(estimate.discarded, 2);
        // (10 − 4) + (12 − 10) + (15 − 14)
        assert_eq!(estimate.exposure, 9.0);
        assert_eq!(estimate.rate, Some(2.0 / 9.0));
        assert_eq!(ages(&visits), vec![6.0, 8.0, 1.0, 7.0]);
        assert_eq!(observed_lifetimes(&visits), vec![10.0]);
        assert_eq!(last_modified_rate(&[]).rate, None);
    }
    /// When a page changes at most once per interval (a change at a time of the crawl's
    /// clock: a daily build, a weekly dump) instead of by a Poisson process, the
    /// bias-reduced estimator still adds the hidden changes a Poisson process would have:
    /// with a change in a share p of the intervals it converges to `−ln(1 − p)` per interval
    /// where the truth is p, i.e. +11.6% at p = 0.2, +27.7% at p = 0.4, +52.7% at p = 0.6.
    /// Measured here on 400,000 intervals per p (documented in docs/dynamics.md).
    #[test]
    fn bias_reduced_estimator_overestimates_at_most_one_change_per_interval() {
        let mut rng = StdRng::seed_from_u64(41);
        for p in [0.2f64, 0.4, 0.6] {
            let n = 400_000u64;
            let changes = (0..n).filter(|_| rng.random::<f64>() < p).count() as u64;
            let ratio = bias_reduced_ratio(n, changes).unwrap() / p;
            let expected = -(1.0 - p).ln() / p;
            assert!(
                (ratio / expected - 1.0).abs() < 0.02,
                "p {p}: {ratio} vs {expected}"
            );
        }
    }

    /// The Last-Modified estimator assumes a Poisson process: what happened between the
    /// previous visit and a new Last-Modified is unseen. When a page changes at most once
    /// per interval, at a uniformly random moment of it, that time was change-free, and the
    /// estimate is `1/(1 − p/2)` times the truth (+11% at p = 0.2, +33% at p = 0.5); with
    /// changes just before the crawler's visits it tends to `1/(1 − p)`.
    #[test]
    fn last_modified_estimator_overestimates_changes_on_the_crawl_clock() {
        let mut rng = StdRng::seed_from_u64(42);
        for p in [0.2f64, 0.5] {
            let mut visits = Vec::new();
            let mut modified = -0.5;
            for day in 0..20_000 {
                let at = day as f64;
                if day > 0 && rng.random::<f64>() < p {
                    modified = at - rng.random::<f64>();
                }
                visits.push(LastModified {
                    at,
                    last_modified: modified,
                });
            }
            let estimate = last_modified_rate(&visits).rate.unwrap();
            let expected = 1.0 / (1.0 - p / 2.0);
            assert!(
                (estimate / p / expected - 1.0).abs() < 0.03,
                "p {p}: {} vs {expected}",
                estimate / p
            );
        }
    }
}
