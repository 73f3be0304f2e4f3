//! (α, β)-currency for adaptive schedules: what re-crawling costs when every URL gets its own
//! interval from its own estimated change rate, instead of the single period of eq. 24.
//!
//! Two schedules, both held within the monitor's interval bounds:
//!
//! - **per URL** ([`per_url_schedule`]): each URL is re-crawled at the longest interval that
//!   keeps *it* β-current with probability α (eq. 22 solved for T); the collection is then
//!   (α, β)-current too. Slow URLs cost little, fast ones a lot.
//! - **budgeted** ([`budget_schedule`]): the monitor's `freshness` strategy shares a download
//!   budget among the URLs by Cho & Garcia-Molina's freshness-optimal allocation (passed in as
//!   a function, so that this module does not depend on `schedule`); the smallest budget whose
//!   allocation makes the collection (α, β)-current is found by bisection. The allocation
//!   favours the URLs that are cheap to keep current, so it needs fewer downloads than the
//!   per-URL schedule for the same α.
//!
//! Everything is in seconds: rates per second, intervals in seconds, sizes in bytes.

use serde::Serialize;

use super::DynamicsError;
use super::currency::page_currency;
use super::numeric::bisect;

/// One URL to keep current.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UrlLoad {
    /// Estimated change rate, per second (0: never seen to change).
    pub rate: f64,
    /// Bytes one download costs.
    pub bytes: f64,
}

/// The shortest and longest re-crawl interval the monitor allows, seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalBounds {
    /// The shortest interval, seconds.
    pub min: f64,
    /// The longest interval, seconds.
    pub max: f64,
}

/// What an adaptive schedule costs and achieves.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AdaptiveLoad {
    /// URLs scheduled.
    pub urls: usize,
    /// Downloads per day over all URLs.
    pub downloads_per_day: f64,
    /// Bandwidth, bits per second (`8 · Σ bytes_i / interval_i`).
    pub bits_per_second: f64,
    /// The α the schedule achieves: the mean over URLs of eq. 22 at their intervals.
    pub achieved_alpha: f64,
    /// URLs held at the shortest interval (they would need a shorter one).
    pub at_min_interval: usize,
    /// URLs held at the longest interval.
    pub at_max_interval: usize,
    /// The median interval, seconds.
    pub median_interval: f64,
}

/// The longest re-crawl interval that keeps a page of change rate `rate` (per second)
/// `grace`-current with probability `alpha` (eq. 22 solved for T; it falls strictly with T
/// from 1 at `T = β`, so the root is unique). Infinite for a page that never changes.
pub fn page_period(rate: f64, alpha: f64, grace: f64) -> Result<f64, DynamicsError> {
    check_target(alpha, grace)?;
    if !(rate.is_finite() && rate >= 0.0) {
        return Err(DynamicsError::Parameter(format!(
            "a change rate must be finite and not negative, got {rate}"
        )));
    }
    if rate == 0.0 {
        return Ok(f64::INFINITY);
    }
    if alpha == 1.0 {
        return Ok(grace);
    }
    let lo = if grace > 0.0 { grace } else { 1e-9 / rate };
    let mut hi = lo.max(1.0 / rate) * 2.0;
    while page_currency(rate, hi, grace) > alpha {
        hi *= 16.0;
        if !hi.is_finite() {
            return Ok(f64::INFINITY);
        }
    }
    let ln_period = bisect(
        |ln_t| page_currency(rate, ln_t.exp(), grace) - alpha,
        lo.ln(),
        hi.ln(),
        1e-12,
    )
    .ok_or_else(|| DynamicsError::Parameter(format!("no interval reaches α = {alpha}")))?;
    Ok(ln_period.exp())
}

/// Every URL at its own [`page_period`], held within `bounds`.
pub fn per_url_schedule(
    loads: &[UrlLoad],
    alpha: f64,
    grace: f64,
    bounds: IntervalBounds,
) -> Result<AdaptiveLoad, DynamicsError> {
    check_bounds(bounds)?;
    let intervals = loads
        .iter()
        .map(|load| page_period(load.rate, alpha, grace).map(|t| t.clamp(bounds.min, bounds.max)))
        .collect::<Result<Vec<f64>, DynamicsError>>()?;
    Ok(load_of(loads, &intervals, grace, bounds))
}

/// The smallest download budget whose allocation by `allocate` makes the collection
/// (α, β)-current, and what it costs. `allocate(rates, downloads_per_second)` returns each
/// URL's download frequency (per second) within the bounds, as the monitor's `freshness`
/// strategy would set them (`schedule::optimal_frequencies`). When even every URL at the
/// shortest interval does not reach α, that schedule is returned (its `achieved_alpha` says
/// how far it falls short).
pub fn budget_schedule(
    loads: &[UrlLoad],
    alpha: f64,
    grace: f64,
    bounds: IntervalBounds,
    allocate: impl Fn(&[f64], f64) -> Vec<f64>,
) -> Result<AdaptiveLoad, DynamicsError> {
    check_target(alpha, grace)?;
    check_bounds(bounds)?;
    let rates: Vec<f64> = loads.iter().map(|l| l.rate).collect();
    let intervals_for = |budget: f64| -> Vec<f64> {
        allocate(&rates, budget)
            .iter()
            .map(|&f| (1.0 / f).clamp(bounds.min, bounds.max))
            .collect()
    };
    let achieved = |budget: f64| mean_currency(&rates, &intervals_for(budget), grace);
    let n = loads.len() as f64;
    let (least, most) = (n / bounds.max, n / bounds.min);
    let budget = if loads.is_empty() || achieved(least) >= alpha {
        least
    } else if achieved(most) < alpha {
        most
    } else {
        // α rises with the budget: bisection on ln B to 0.01% of the budget.
        let root = bisect(
            |ln_b| achieved(ln_b.exp()) - alpha,
            least.ln(),
            most.ln(),
            1e-4,
        );
        // The upper end of the final bracket reaches α; a hair above the root is safe.
        root.map_or(most, |ln_b| (ln_b + 1e-4).exp().min(most))
    };
    Ok(load_of(loads, &intervals_for(budget), grace, bounds))
}

/// The mean over URLs of eq. 22 at the given intervals (1 for no URL).
fn mean_currency(rates: &[f64], intervals: &[f64], grace: f64) -> f64 {
    if rates.is_empty() {
        return 1.0;
    }
    rates
        .iter()
        .zip(intervals)
        .map(|(&rate, &interval)| page_currency(rate, interval, grace))
        .sum::<f64>()
        / rates.len() as f64
}

fn load_of(
    loads: &[UrlLoad],
    intervals: &[f64],
    grace: f64,
    bounds: IntervalBounds,
) -> AdaptiveLoad {
    let per_second: f64 = intervals.iter().map(|t| 1.0 / t).sum();
    let bytes_per_second: f64 = loads
        .iter()
        .zip(intervals)
        .map(|(load, t)| load.bytes / t)
        .sum();
    let rates: Vec<f64> = loads.iter().map(|l| l.rate).collect();
    let tolerance = 1e-9;
    AdaptiveLoad {
        urls: loads.len(),
        downloads_per_day: per_second * super::duration::DAY,
        bits_per_second: 8.0 * bytes_per_second,
        achieved_alpha: mean_currency(&rates, intervals, grace),
        at_min_interval: intervals
            .iter()
            .filter(|&&t| t <= bounds.min * (1.0 + tolerance))
            .count(),
        at_max_interval: intervals
            .iter()
            .filter(|&&t| t >= bounds.max * (1.0 - tolerance))
            .count(),
        median_interval: super::truth::median(intervals).unwrap_or(0.0),
    }
}

fn check_target(alpha: f64, grace: f64) -> Result<(), DynamicsError> {
    if !(alpha > 0.0 && alpha <= 1.0) {
        return Err(DynamicsError::Parameter(format!(
            "α must be in (0, 1], got {alpha}"
        )));
    }
    if !(grace.is_finite() && grace >= 0.0) {
        return Err(DynamicsError::Parameter(format!(
            "the grace period β must be finite and not negative, got {grace}"
        )));
    }
    if alpha == 1.0 && grace == 0.0 {
        return Err(DynamicsError::Parameter(
            "α = 1 with β = 0 needs continuous re-crawling (T = 0)".to_string(),
        ));
    }
    Ok(())
}

fn check_bounds(bounds: IntervalBounds) -> Result<(), DynamicsError> {
    if !(bounds.min > 0.0 && bounds.min <= bounds.max && bounds.max.is_finite()) {
        return Err(DynamicsError::Parameter(format!(
            "interval bounds must satisfy 0 < min ≤ max < ∞, got {} and {}",
            bounds.min, bounds.max
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duration::DAY;

    const BOUNDS: IntervalBounds = IntervalBounds {
        min: 3_600.0,
        max: 180.0 * DAY,
    };

    /// A simple allocation for the tests: frequency proportional to √rate (the
    /// square-root rule), scaled to the budget and clamped.
    fn square_root_rule(rates: &[f64], total: f64) -> Vec<f64> {
        let weights: Vec<f64> = rates.iter().map(|r| r.sqrt()).collect();
        let sum: f64 = weights.iter().sum();
        weights
            .iter()
            .map(|w| (total * w / sum).clamp(1.0 / BOUNDS.max, 1.0 / BOUNDS.min))
            .collect()
    }

    #[test]
    fn page_period_solves_eq_22() {
        let rate = 1.0 / (10.0 * DAY);
        for (alpha, grace) in [(0.95, DAY), (0.9, 0.0), (0.5, 7.0 * DAY)] {
            let t = page_period(rate, alpha, grace).unwrap();
            assert!(t > grace);
            assert!((page_currency(rate, t, grace) - alpha).abs() < 1e-9, "{t}");
        }
        // Faster pages need shorter intervals.
        let fast = page_period(10.0 * rate, 0.95, DAY).unwrap();
        let slow = page_period(rate, 0.95, DAY).unwrap();
        assert!(fast < slow);
        assert_eq!(page_period(0.0, 0.95, DAY).unwrap(), f64::INFINITY);
        assert_eq!(page_period(rate, 1.0, DAY).unwrap(), DAY);
        assert!(page_period(rate, 1.0, 0.0).is_err());
        assert!(page_period(-1.0, 0.9, DAY).is_err());
        assert!(page_period(rate, 0.0, DAY).is_err());
    }

    #[test]
    fn per_url_schedule_reaches_alpha_within_bounds() {
        let loads: Vec<UrlLoad> = [0.0, 1.0 / (5_000.0 * DAY), 1.0 / (10.0 * DAY), 1.0 / DAY]
            .iter()
            .map(|&rate| UrlLoad {
                rate,
                bytes: 10_000.0,
            })
            .collect();
        let plan = per_url_schedule(&loads, 0.9, DAY, BOUNDS).unwrap();
        assert_eq!(plan.urls, 4);
        assert_eq!(plan.at_max_interval, 2, "{plan:?}"); // the unchanging and the slowest
        assert_eq!(plan.at_min_interval, 0);
        assert!(plan.achieved_alpha >= 0.9, "{plan:?}");
        // Cost: Σ 8 · bytes / interval.
        let intervals: Vec<f64> = loads
            .iter()
            .map(|l| {
                page_period(l.rate, 0.9, DAY)
                    .unwrap()
                    .clamp(BOUNDS.min, BOUNDS.max)
            })
            .collect();
        let bits: f64 = intervals.iter().map(|t| 80_000.0 / t).sum();
        assert!((plan.bits_per_second - bits).abs() < 1e-9 * bits);
        let downloads: f64 = intervals.iter().map(|t| DAY / t).sum();
        assert!((plan.downloads_per_day - downloads).abs() < 1e-9 * downloads);
    }

    #[test]
    fn budget_schedule_finds_the_smallest_sufficient_budget() {
        let loads: Vec<UrlLoad> = (1..=50)
            .map(|i| UrlLoad {
                rate: i as f64 / (30.0 * DAY),
                bytes: 5_000.0,
            })
            .collect();
        let plan = budget_schedule(&loads, 0.9, DAY, BOUNDS, square_root_rule).unwrap();
        assert!(plan.achieved_alpha >= 0.9, "{plan:?}");
        assert!(plan.achieved_alpha < 0.901, "{plan:?}");
        // Unreachable: α just below 1 with the shortest interval allowed far above β = 0.
        let tight = IntervalBounds {
            min: 10.0 * DAY,
            max: 180.0 * DAY,
        };
        let plan = budget_schedule(&loads, 0.99, 0.0, tight, square_root_rule).unwrap();
        assert!(plan.achieved_alpha < 0.99, "{plan:?}");
        // Nothing to schedule.
        let empty = budget_schedule(&[], 0.9, DAY, BOUNDS, square_root_rule).unwrap();
        assert_eq!(empty.urls, 0);
        assert_eq!(empty.bits_per_second, 0.0);
    }
}
