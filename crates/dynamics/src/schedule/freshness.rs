//! Our own strategy, `freshness`: estimate each URL's change rate with Cho & Garcia-Molina's
//! bias-reduced estimator, then share a download budget among the URLs so that the expected
//! freshness of the archive (the time-averaged share of URLs whose latest capture is still
//! current) is as high as it can be, by Cho & Garcia-Molina's Lagrange-multiplier solution.
//! Plus [`plan_cycle`], the per-cycle pick of due URLs under a cap, which any strategy can
//! use, and [`plan_budget_cycle`], which spends a budget in full.
//!
//! For a page changing by a Poisson process of rate λ and downloaded every `1/f`, the expected
//! freshness is `F(λ, f) = (f/λ)(1 − e^{−λ/f})`. Maximising `Σ F(λ_i, f_i)` subject to
//! `Σ f_i = B` gives `∂F/∂f_i = μ` for every page that gets downloads, i.e. with `x = λ/f`
//!
//! `g(x) = 1 − (1 + x) e^{−x} = μ λ_i`,
//!
//! and `f_i = 0` when `μ λ_i ≥ 1` (the page changes too often to be worth chasing). `g` rises
//! from 0 to 1, so each `f_i(μ)` falls as μ grows and μ is found by bisection on `Σ f_i = B`.
//! With the interval bounds, `f_i` is clamped to `[1/max, 1/min]` (the KKT solution of the
//! bounded problem). `docs/scheduling.md` has the derivation.

use super::strategy::{Policy, ScheduleState};

/// Observations a URL needs before its own rate estimate is used; until then it gets the
/// collection's pooled rate.
pub const MIN_OBSERVATIONS: u64 = 2;

/// Expected freshness `F(λ, f) = (f/λ)(1 − e^{−λ/f})` of a page with change rate `rate`
/// downloaded at `frequency` (same time unit): 1 for a page that never changes, 0 for one
/// never downloaded.
pub fn expected_freshness(rate: f64, frequency: f64) -> f64 {
    if rate <= 0.0 {
        return 1.0;
    }
    if frequency <= 0.0 {
        return 0.0;
    }
    let x = rate / frequency;
    -(-x).exp_m1() / x
}

/// Solves `1 − (1 + x) e^{−x} = y` for `x > 0`, `0 < y < 1`: Newton's method on
/// `h(x) = ln(1 + x) − x − ln(1 − y)`, which is concave and falling, started from a lower
/// bound of the root (after one step the iterates approach it monotonically from above).
fn inverse_marginal(y: f64) -> f64 {
    let target = -(-y).ln_1p(); // −ln(1 − y) > 0
    let mut x = (2.0 * y).sqrt().max(target);
    for _ in 0..60 {
        let h = x.ln_1p() - x + target;
        let slope = -x / (1.0 + x);
        let step = h / slope;
        x -= step;
        if step.abs() <= 1e-13 * (1.0 + x) {
            break;
        }
    }
    x
}

/// The frequency of a page of rate `rate` for the multiplier `mu`, clamped to the bounds.
fn frequency_for(rate: f64, mu: f64, min_frequency: f64, max_frequency: f64) -> f64 {
    if rate <= 0.0 {
        return min_frequency;
    }
    let y = mu * rate;
    if y >= 1.0 {
        return min_frequency;
    }
    if y <= 0.0 {
        return max_frequency;
    }
    (rate / inverse_marginal(y)).clamp(min_frequency, max_frequency)
}

/// The freshness-optimal download frequencies for pages of the given change `rates` sharing
/// `total` downloads per unit of time, each within `[min_frequency, max_frequency]`. When
/// even the minimum frequencies exceed the budget every page gets the minimum; when the
/// maxima fit, every changing page gets the maximum.
pub fn optimal_frequencies(
    rates: &[f64],
    total: f64,
    min_frequency: f64,
    max_frequency: f64,
) -> Vec<f64> {
    let sum = |mu: f64| -> f64 {
        rates
            .iter()
            .map(|&r| frequency_for(r, mu, min_frequency, max_frequency))
            .sum()
    };
    let at = |mu: f64| -> Vec<f64> {
        rates
            .iter()
            .map(|&r| frequency_for(r, mu, min_frequency, max_frequency))
            .collect()
    };
    let n = rates.len() as f64;
    if rates.is_empty() || total <= n * min_frequency {
        return vec![min_frequency; rates.len()];
    }
    let fastest = rates.iter().copied().fold(0.0_f64, f64::max);
    let slowest = rates
        .iter()
        .copied()
        .filter(|&r| r > 0.0)
        .fold(f64::INFINITY, f64::min);
    if fastest <= 0.0 {
        return vec![min_frequency; rates.len()];
    }
    // At μ = 1/slowest every page is at the minimum (below the budget, checked above).
    let mut high = 1.0 / slowest;
    let mut low = high;
    for _ in 0..40 {
        low /= 1e3;
        if sum(low) >= total {
            break;
        }
    }
    if sum(low) < total {
        return at(low); // every page at its maximum: the budget cannot be spent
    }
    // Bisection on ln μ: Σ f(low) ≥ total > Σ f(high).
    for _ in 0..80 {
        let mid = (low * high).sqrt();
        if sum(mid) >= total {
            low = mid;
        } else {
            high = mid;
        }
        if high / low < 1.0 + 1e-9 {
            break;
        }
    }
    at(high)
}

/// The rate the planner uses for `state`: its bias-reduced estimate once it has
/// [`MIN_OBSERVATIONS`], else `prior`.
pub fn planning_rate(state: &ScheduleState, prior: f64) -> f64 {
    if state.observations >= MIN_OBSERVATIONS {
        state.estimated_rate().unwrap_or(prior)
    } else {
        prior
    }
}

/// The pooled change rate of a collection (changes detected per second watched), the prior
/// of URLs with too little history; `1 / initial interval` before anything was observed.
pub fn pooled_rate(states: &[&mut ScheduleState], policy: &Policy) -> f64 {
    let changes: u64 = states.iter().map(|s| s.changes).sum();
    let watched: f64 = states.iter().map(|s| s.observed_seconds).sum();
    if watched > 0.0 && changes > 0 {
        changes as f64 / watched
    } else {
        1.0 / policy.initial_interval
    }
}

/// Sets every state's interval to its freshness-optimal value for a budget of
/// `downloads_per_second` shared by all of `states` (and their due times accordingly).
pub fn allocate_budget<'a>(
    states: impl IntoIterator<Item = &'a mut ScheduleState>,
    policy: &Policy,
    downloads_per_second: f64,
) {
    let mut states: Vec<&mut ScheduleState> = states.into_iter().collect();
    let prior = pooled_rate(&states, policy);
    let rates: Vec<f64> = states.iter().map(|s| planning_rate(s, prior)).collect();
    let frequencies = optimal_frequencies(
        &rates,
        downloads_per_second,
        1.0 / policy.max_interval,
        1.0 / policy.min_interval,
    );
    for (state, frequency) in states.iter_mut().zip(frequencies) {
        // The bounds exactly (1/(1/x) can miss x by a rounding step).
        let interval = if frequency * policy.max_interval <= 1.0 {
            policy.max_interval
        } else if frequency * policy.min_interval >= 1.0 {
            policy.min_interval
        } else {
            1.0 / frequency
        };
        state.set_interval(policy.clamp(interval));
    }
}

/// The URLs (indices into `states`) to download in the cycle at `now`: those due, most
/// overdue first (never downloaded, then by time since the last download over the interval),
/// at most `budget` of them. For a cap on any strategy's downloads.
pub fn plan_cycle(states: &[ScheduleState], budget: usize, now: f64) -> Vec<usize> {
    plan_cycle_where(states, budget, now, false, |_| true)
}

/// Like [`plan_cycle`], but spends the whole budget: when fewer than `budget` URLs are due,
/// the rest goes to those closest to being due. The `freshness` strategy's planner: its
/// allocation assumes the budget is spent, and a download a little early is never worse for
/// freshness than no download.
pub fn plan_budget_cycle(states: &[ScheduleState], budget: usize, now: f64) -> Vec<usize> {
    plan_cycle_where(states, budget, now, true, |_| true)
}

/// [`plan_cycle`] (or, with `fill`, [`plan_budget_cycle`]) among the indices `eligible`
/// accepts.
pub fn plan_cycle_where(
    states: &[ScheduleState],
    budget: usize,
    now: f64,
    fill: bool,
    eligible: impl Fn(usize) -> bool,
) -> Vec<usize> {
    if budget == 0 {
        return Vec::new();
    }
    let mut ranked: Vec<(f64, usize)> = states
        .iter()
        .enumerate()
        .filter(|&(i, s)| (fill || s.is_due(now)) && eligible(i))
        .map(|(i, s)| (overdue_ratio(s, now), i))
        .collect();
    // Only the best `budget` need sorting.
    let by_rank = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if ranked.len() > budget {
        ranked.select_nth_unstable_by(budget - 1, by_rank);
        ranked.truncate(budget);
    }
    ranked.sort_by(by_rank);
    ranked.into_iter().map(|(_, i)| i).collect()
}

fn overdue_ratio(state: &ScheduleState, now: f64) -> f64 {
    match state.last_download {
        None => f64::INFINITY,
        Some(last) => (now - last) / state.interval,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duration::DAY;
    use crate::schedule::strategy::Strategy;

    fn marginal(x: f64) -> f64 {
        1.0 - (1.0 + x) * (-x).exp()
    }

    #[test]
    fn the_marginal_inverts() {
        for y in [1e-10, 1e-6, 0.01, 0.3, 0.5, 0.9, 0.999, 1.0 - 1e-9] {
            let x = inverse_marginal(y);
            assert!(
                (marginal(x) - y).abs() <= 1e-9 * y.max(1e-3),
                "y {y}: x {x}, g {}",
                marginal(x)
            );
        }
    }

    #[test]
    fn freshness_formula_limits() {
        assert_eq!(expected_freshness(0.0, 1.0), 1.0);
        assert_eq!(expected_freshness(1.0, 0.0), 0.0);
        // Downloading once per mean lifetime: 1 − 1/e.
        assert!((expected_freshness(1.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
        assert!(expected_freshness(1.0, 1000.0) > 0.999);
    }

    /// Σ F for the given frequencies.
    fn total_freshness(rates: &[f64], frequencies: &[f64]) -> f64 {
        rates
            .iter()
            .zip(frequencies)
            .map(|(&r, &f)| expected_freshness(r, f))
            .sum()
    }

    #[test]
    fn allocation_spends_the_budget_and_beats_uniform_and_proportional() {
        let rates = [0.05, 0.2, 0.5, 1.0, 3.0, 9.0];
        let budget = 3.0;
        let f = optimal_frequencies(&rates, budget, 1e-6, 1e6);
        assert!((f.iter().sum::<f64>() - budget).abs() < 1e-6, "{f:?}");
        let best = total_freshness(&rates, &f);
        let uniform = total_freshness(&rates, &[budget / 6.0; 6]);
        let total_rate: f64 = rates.iter().sum();
        let proportional: Vec<f64> = rates.iter().map(|r| budget * r / total_rate).collect();
        assert!(best > uniform && best > total_freshness(&rates, &proportional));
        // Cho & Garcia-Molina's shape: the fastest page gets (almost) nothing, the
        // frequency rises then falls with the rate.
        assert!(f[5] < f[3], "{f:?}");
        assert_eq!(f[5], 1e-6, "{f:?}");
        // Optimality: no small transfer between two funded pages improves Σ F.
        for (i, j) in [(0, 1), (2, 3), (1, 4)] {
            let mut g = f.clone();
            g[i] += 1e-3;
            g[j] -= 1e-3;
            assert!(total_freshness(&rates, &g) <= best + 1e-9);
        }
    }

    #[test]
    fn allocation_respects_bounds_and_small_budgets() {
        let rates = [0.0, 1.0, 2.0];
        assert_eq!(optimal_frequencies(&rates, 0.1, 0.1, 10.0), vec![0.1; 3]);
        // A huge budget: changing pages at the maximum, the static one at the minimum.
        assert_eq!(
            optimal_frequencies(&rates, 1e9, 0.1, 10.0),
            vec![0.1, 10.0, 10.0]
        );
        let f = optimal_frequencies(&rates, 2.0, 0.1, 10.0);
        assert_eq!(f[0], 0.1);
        assert!((f.iter().sum::<f64>() - 2.0).abs() < 1e-6);
    }

    #[test]
    fn planner_sets_intervals_and_picks_the_most_overdue() {
        let policy = Policy::new(Strategy::Freshness);
        let t0 = 1_000_000.0;
        let mut states: Vec<ScheduleState> = (0..3).map(|_| ScheduleState::new(&policy)).collect();
        for s in &mut states {
            s.observe(&policy, t0, false);
        }
        // URL 0 changed at every one of 4 daily looks, URL 1 never, URL 2 half the time.
        for (i, pattern) in ["1111", "0000", "1010"].iter().enumerate() {
            for (k, c) in pattern.chars().enumerate() {
                states[i].observe(&policy, t0 + (k + 1) as f64 * DAY, c == '1');
            }
        }
        allocate_budget(states.iter_mut(), &policy, 1.0 / DAY);
        let intervals: Vec<f64> = states.iter().map(|s| s.interval / DAY).collect();
        assert_eq!(
            intervals[1], 180.0,
            "a page seen static goes to the maximum"
        );
        assert!(intervals[0] > 1.0 && intervals[2] > 1.0, "{intervals:?}");
        let total: f64 = states.iter().map(|s| DAY / s.interval).sum();
        assert!(
            (total - 1.0).abs() < 1e-6,
            "one download a day in all: {total}"
        );
        // Due times follow the intervals; the planner picks due URLs, most overdue first.
        let now = t0 + 4.0 * DAY + 10.0 * DAY;
        let picked = plan_cycle(&states, 5, now);
        let mut expected: Vec<usize> = (0..3).filter(|&i| states[i].is_due(now)).collect();
        expected.sort_by(|&a, &b| {
            let ra = (now - states[a].last_download.unwrap()) / states[a].interval;
            let rb = (now - states[b].last_download.unwrap()) / states[b].interval;
            rb.total_cmp(&ra)
        });
        assert_eq!(picked, expected);
        assert_eq!(plan_cycle(&states, 0, now), Vec::<usize>::new());
        // Spending the budget in full adds the not-yet-due, closest to due first.
        let soon = t0 + 4.0 * DAY + 1.0;
        assert!(plan_cycle(&states, 3, soon).is_empty());
        let filled = plan_budget_cycle(&states, 2, soon);
        let mut by_ratio: Vec<usize> = (0..3).collect();
        by_ratio.sort_by(|&a, &b| states[a].interval.total_cmp(&states[b].interval));
        assert_eq!(filled, by_ratio[..2]);
        let fresh = ScheduleState::new(&policy);
        let mut with_new = states.clone();
        with_new.push(fresh);
        assert_eq!(
            plan_cycle(&with_new, 1, t0)[0],
            3,
            "never downloaded comes first"
        );
    }
}
