//! (α, β)-currency planning (Brewington & Cybenko §6, paper 003 eq. 19–24).
//!
//! An index entry is β-current if the page has not changed between the last visit and β time
//! units before now (β is the grace period); an index is (α, β)-current if a randomly chosen
//! page is β-current with probability at least α. For a page changing at rate λ and re-visited
//! every T, averaging over the time of the question within one period (eq. 19–22):
//!
//! `P(β-current | λ, T) = β/T + (1 − e^{−λ(T−β)}) / (λT)` for `T > β`, and 1 for `T ≤ β`.
//!
//! With the mean change times `t̄ = 1/λ` Weibull-distributed (eq. 23), the probability of the
//! collection is (eq. 24):
//!
//! `α(T, β) = ∫₀^∞ w(t̄) [β/T + (t̄/T)(1 − e^{−(T−β)/t̄})] dt̄`.
//!
//! α falls strictly from 1 (at `T = β`) towards 0 as T grows, so the re-indexing period for a
//! wanted α is the unique root of `α(T, β) = α`, found by bisection on ln T. Times are in one
//! unit of the caller's choice (the scale's).

use super::DynamicsError;
use super::numeric::{WeibullQuadrature, bisect};
use super::weibull::Weibull;

/// Eq. 22: the probability that a page of change rate `rate`, re-visited every `period`, is
/// `grace`-current at a uniformly random moment.
pub fn page_currency(rate: f64, period: f64, grace: f64) -> f64 {
    if period <= grace {
        return 1.0;
    }
    if rate <= 0.0 {
        return 1.0;
    }
    grace / period + -(-rate * (period - grace)).exp_m1() / (rate * period)
}

/// Eq. 24: α, the probability that a random page of a collection whose mean change times
/// follow `weibull` is `grace`-current when every page is re-indexed every `period`.
pub fn currency_probability(weibull: Weibull, period: f64, grace: f64) -> f64 {
    if period <= grace {
        return 1.0;
    }
    let quadrature = WeibullQuadrature::new(weibull.shape, weibull.scale);
    quadrature
        .expectation(|mean_change_time| page_currency(1.0 / mean_change_time, period, grace))
        .clamp(0.0, 1.0)
}

/// The longest re-indexing period T that keeps the collection (α, β)-current: the root of
/// `α(T, β) = alpha` (eq. 24). `alpha` must lie in (0, 1] and `grace` must not be negative;
/// `alpha = 1` gives `T = β`, and is refused when `β = 0` (it would need `T = 0`).
pub fn reindexing_period(weibull: Weibull, alpha: f64, grace: f64) -> Result<f64, DynamicsError> {
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
    if alpha == 1.0 {
        if grace == 0.0 {
            return Err(DynamicsError::Parameter(
                "α = 1 with β = 0 needs continuous re-indexing (T = 0)".to_string(),
            ));
        }
        return Ok(grace);
    }
    let quadrature = WeibullQuadrature::new(weibull.shape, weibull.scale);
    let alpha_of = |period: f64| {
        quadrature
            .expectation(|mean_change_time| page_currency(1.0 / mean_change_time, period, grace))
    };
    // Bracket in ln T: from just above β (or a tiny fraction of the scale when β = 0), where
    // α ≈ 1, outwards until α falls below the target.
    let lo = if grace > 0.0 {
        grace
    } else {
        weibull.scale * 1e-12
    };
    let mut hi = lo.max(weibull.scale) * 2.0;
    let mut tries = 0;
    while alpha_of(hi) > alpha {
        hi *= 16.0;
        tries += 1;
        if tries > 60 || !hi.is_finite() {
            return Err(DynamicsError::Parameter(format!(
                "no re-indexing period reaches α = {alpha}"
            )));
        }
    }
    let ln_period = bisect(|ln_t| alpha_of(ln_t.exp()) - alpha, lo.ln(), hi.ln(), 1e-12)
        .ok_or_else(|| {
            DynamicsError::Parameter(format!("no re-indexing period reaches α = {alpha}"))
        })?;
    Ok(ln_period.exp())
}

/// The re-indexing load of `documents` pages of mean size `mean_size` bytes, each re-indexed
/// every `period` seconds (paper 003 §6: "800 million pages / 8.5 days × 12 kilobytes").
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bandwidth {
    /// Pages re-indexed per day.
    pub documents_per_day: f64,
    /// Bytes downloaded per second.
    pub bytes_per_second: f64,
    /// The same in bits per second.
    pub bits_per_second: f64,
}

/// The effective bandwidth for a uniform re-indexing of `documents` pages of `mean_size`
/// bytes every `period_seconds`: `N · S · 8 / T` bits per second.
pub fn bandwidth(
    documents: f64,
    mean_size: f64,
    period_seconds: f64,
) -> Result<Bandwidth, DynamicsError> {
    if !(documents.is_finite() && documents >= 0.0 && mean_size.is_finite() && mean_size >= 0.0) {
        return Err(DynamicsError::Parameter(
            "documents and mean size must be finite and not negative".to_string(),
        ));
    }
    if !(period_seconds.is_finite() && period_seconds > 0.0) {
        return Err(DynamicsError::Parameter(format!(
            "the re-indexing period must be positive, got {period_seconds} s"
        )));
    }
    let bytes_per_second = documents * mean_size / period_seconds;
    Ok(Bandwidth {
        documents_per_day: documents * super::duration::DAY / period_seconds,
        bytes_per_second,
        bits_per_second: 8.0 * bytes_per_second,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duration::DAY;

    fn paper() -> Weibull {
        // The lifetime-based fit of paper 003 §5 (Fig. 12): shape 1.4, scale 152.2 days.
        Weibull::new(1.4, 152.2).expect("valid")
    }

    /// α by a different method: the midpoint rule on the Weibull CDF scale
    /// (t̄ = θ(−ln(1 − u))^{1/k}, u uniform on (0, 1)).
    fn alpha_by_midpoints(w: Weibull, period: f64, grace: f64) -> f64 {
        let steps = 200_000;
        (0..steps)
            .map(|i| {
                let t = w.quantile((i as f64 + 0.5) / steps as f64);
                page_currency(1.0 / t, period, grace)
            })
            .sum::<f64>()
            / steps as f64
    }

    #[test]
    fn page_currency_limits() {
        // Sampled much faster than it changes: current with probability → 1.
        assert!((page_currency(1e-6, 10.0, 1.0) - 1.0).abs() < 1e-5);
        // Sampled much slower: → β/T (the changes that fall in the grace period).
        assert!((page_currency(1e6, 10.0, 1.0) - 0.1).abs() < 1e-5);
        assert_eq!(page_currency(5.0, 1.0, 2.0), 1.0);
        assert_eq!(page_currency(0.0, 10.0, 1.0), 1.0);
    }

    #[test]
    fn reproduces_the_papers_reindexing_periods() {
        let w = paper();
        let one_day = reindexing_period(w, 0.95, 1.0).expect("solvable");
        let one_week = reindexing_period(w, 0.95, 7.0).expect("solvable");
        // The paper reads 8.5 and 18 days off its Fig. 19.
        assert_eq!(format!("{one_day:.2}"), "8.58", "{one_day}");
        assert_eq!(format!("{one_week:.2}"), "18.49", "{one_week}");
        // References: the same root with α integrated by a 400,000-point midpoint rule.
        assert!((one_day - 8.580_991_6).abs() < 1e-6, "{one_day}");
        assert!((one_week - 18.488_082).abs() < 1e-5, "{one_week}");
        // The inverse gives α back.
        assert!((currency_probability(w, one_day, 1.0) - 0.95).abs() < 1e-9);
        assert!((currency_probability(w, one_week, 7.0) - 0.95).abs() < 1e-9);
        // Units do not matter: the same in seconds.
        let w_seconds = Weibull::new(1.4, 152.2 * DAY).expect("valid");
        let seconds = reindexing_period(w_seconds, 0.95, DAY).expect("solvable");
        assert!((seconds / DAY - one_day).abs() < 1e-6);
    }

    #[test]
    fn quadrature_agrees_with_an_independent_integration() {
        for (w, period, grace) in [
            (paper(), 8.5, 1.0),
            (paper(), 18.0, 7.0),
            (paper(), 100.0, 0.0),
            (Weibull::new(0.78, 651.1).expect("valid"), 30.0, 2.0),
            (Weibull::new(3.0, 2.0).expect("valid"), 1.0, 0.25),
        ] {
            let fast = currency_probability(w, period, grace);
            let slow = alpha_by_midpoints(w, period, grace);
            assert!(
                (fast - slow).abs() < 1e-5,
                "{w:?} T={period}: {fast} vs {slow}"
            );
        }
    }

    #[test]
    fn alpha_falls_with_the_period_and_rises_with_the_grace() {
        let w = paper();
        let mut previous = 1.0;
        for period in [1.5, 2.0, 5.0, 10.0, 50.0, 500.0, 5_000.0] {
            let alpha = currency_probability(w, period, 1.0);
            assert!(alpha < previous, "α({period}) = {alpha}");
            previous = alpha;
        }
        assert!(currency_probability(w, 10.0, 3.0) > currency_probability(w, 10.0, 1.0));
        assert_eq!(currency_probability(w, 1.0, 1.0), 1.0);
        assert_eq!(reindexing_period(w, 1.0, 1.0).ok(), Some(1.0));
        // β = 0 still has a period for α < 1.
        let t = reindexing_period(w, 0.9, 0.0).expect("solvable");
        assert!((currency_probability(w, t, 0.0) - 0.9).abs() < 1e-9);
        // A tiny α needs a very long period, but one exists.
        let t = reindexing_period(w, 0.01, 1.0).expect("solvable");
        assert!((currency_probability(w, t, 1.0) - 0.01).abs() < 1e-9);
    }

    #[test]
    fn rejects_bad_parameters() {
        let w = paper();
        for alpha in [0.0, -0.5, 1.5, f64::NAN] {
            assert!(reindexing_period(w, alpha, 1.0).is_err(), "α = {alpha}");
        }
        assert!(reindexing_period(w, 0.9, -1.0).is_err());
        assert!(reindexing_period(w, 1.0, 0.0).is_err());
        assert!(bandwidth(1.0, 1.0, 0.0).is_err());
        assert!(bandwidth(-1.0, 1.0, 1.0).is_err());
    }

    #[test]
    fn reproduces_the_papers_bandwidths() {
        // 800 million pages of 12 KB every 8.5 days: "104 Mbits/s", 94 million pages a day.
        let b = bandwidth(800e6, 12_000.0, 8.5 * DAY).expect("valid");
        assert!((b.bits_per_second / 1e6 - 104.58).abs() < 0.01, "{b:?}");
        assert!((b.documents_per_day / 1e6 - 94.12).abs() < 0.01, "{b:?}");
        // Every 18 days: 45 million pages a day, about 50 Mbit/s.
        let b = bandwidth(800e6, 12_000.0, 18.0 * DAY).expect("valid");
        assert!((b.documents_per_day / 1e6 - 44.44).abs() < 0.01, "{b:?}");
        assert!((b.bits_per_second / 1e6 - 49.38).abs() < 0.01, "{b:?}");
    }
}
