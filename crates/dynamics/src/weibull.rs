//! The Weibull distribution Brewington & Cybenko use for the mean change times `t̄ = 1/λ` of a
//! collection of pages (paper 003 eq. 10 and 23):
//!
//! `w(t̄) = (k/θ) (t̄/θ)^{k−1} e^{−(t̄/θ)^k}`, shape `k > 0`, scale `θ > 0`,
//!
//! and its maximum-likelihood fit to a sample of values (used directly on per-source mean
//! change times; the paper's §5 fit to observed lifetimes is in [`super::lifetimes`]).

use super::DynamicsError;
use super::numeric::{bisect, gamma};

/// A Weibull distribution of shape `k` and scale `θ` (in the caller's time unit).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Weibull {
    /// The shape `k`.
    pub shape: f64,
    /// The scale `θ`.
    pub scale: f64,
}

impl Weibull {
    /// A Weibull distribution; both parameters must be finite and positive.
    pub fn new(shape: f64, scale: f64) -> Result<Self, DynamicsError> {
        if !(shape.is_finite() && shape > 0.0) {
            return Err(DynamicsError::Parameter(format!(
                "Weibull shape must be positive, got {shape}"
            )));
        }
        if !(scale.is_finite() && scale > 0.0) {
            return Err(DynamicsError::Parameter(format!(
                "Weibull scale must be positive, got {scale}"
            )));
        }
        Ok(Weibull { shape, scale })
    }

    /// The density `w(t)` (eq. 10); 0 for `t < 0`.
    pub fn pdf(&self, t: f64) -> f64 {
        if t < 0.0 {
            return 0.0;
        }
        let z = t / self.scale;
        self.shape / self.scale * z.powf(self.shape - 1.0) * (-z.powf(self.shape)).exp()
    }

    /// `P(X ≤ t) = 1 − e^{−(t/θ)^k}`.
    pub fn cdf(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        -(-(t / self.scale).powf(self.shape)).exp_m1()
    }

    /// The value below which a fraction `p ∈ [0, 1)` of the mass lies: `θ (−ln(1 − p))^{1/k}`.
    pub fn quantile(&self, p: f64) -> f64 {
        self.scale * (-(-p).ln_1p()).powf(1.0 / self.shape)
    }

    /// `θ Γ(1 + 1/k)`.
    pub fn mean(&self) -> f64 {
        self.scale * gamma(1.0 + 1.0 / self.shape)
    }

    /// `θ (ln 2)^{1/k}`.
    pub fn median(&self) -> f64 {
        self.quantile(0.5)
    }

    /// The most likely value: `θ ((k − 1)/k)^{1/k}` for `k > 1`, else 0.
    pub fn mode(&self) -> f64 {
        if self.shape <= 1.0 {
            0.0
        } else {
            self.scale * ((self.shape - 1.0) / self.shape).powf(1.0 / self.shape)
        }
    }

    /// The maximum-likelihood Weibull for a sample of positive values.
    ///
    /// The shape solves the profile equation
    /// `Σ x^k ln x / Σ x^k − 1/k − mean(ln x) = 0` (its left side increases with k, so the root
    /// is unique and found by bisection on ln k), then `θ = (Σ x^k / n)^{1/k}`. Needs at least
    /// two distinct positive finite values.
    pub fn fit_mle(samples: &[f64]) -> Result<Self, DynamicsError> {
        if let Some(bad) = samples.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
            return Err(DynamicsError::Data(format!(
                "Weibull fit needs positive finite values, got {bad}"
            )));
        }
        let n = samples.len();
        let first = samples.first().copied().unwrap_or(0.0);
        if n < 2 || samples.iter().all(|&x| x == first) {
            return Err(DynamicsError::Data(
                "Weibull fit needs at least two distinct values".to_string(),
            ));
        }
        // Work with x / max for numerical range (x^k for large k).
        let max = samples.iter().copied().fold(0.0, f64::max);
        let logs: Vec<f64> = samples.iter().map(|x| (x / max).ln()).collect();
        let mean_log = logs.iter().sum::<f64>() / n as f64;
        let profile = |ln_k: f64| {
            let k = ln_k.exp();
            let mut sum = 0.0;
            let mut weighted = 0.0;
            for &l in &logs {
                let p = (k * l).exp();
                sum += p;
                weighted += p * l;
            }
            weighted / sum - 1.0 / k - mean_log
        };
        let ln_k = bisect(profile, (1e-3f64).ln(), (1e3f64).ln(), 1e-12).ok_or_else(|| {
            DynamicsError::Data("Weibull fit: shape outside [0.001, 1000]".to_string())
        })?;
        let shape = ln_k.exp();
        let mean_power = logs.iter().map(|&l| (shape * l).exp()).sum::<f64>() / n as f64;
        let scale = max * mean_power.powf(1.0 / shape);
        Weibull::new(shape, scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn reproduces_the_papers_mean_lifetime_summary() {
        // Paper 003 Fig. 15, for the lifetime-based fit (shape 1.4, scale 152.2 days):
        // "the average is around 138 days, the most likely value is 62 days, and the median
        // is 117 days".
        let w = Weibull::new(1.4, 152.2).expect("valid");
        assert!((w.mean() - 138.72).abs() < 0.01, "{}", w.mean());
        assert!((w.mode() - 62.2).abs() < 0.1, "{}", w.mode());
        assert!((w.median() - 117.1).abs() < 0.1, "{}", w.median());
        assert!((w.cdf(w.median()) - 0.5).abs() < 1e-12);
        assert!((w.cdf(w.quantile(0.9)) - 0.9).abs() < 1e-12);
        // The density integrates to the CDF (midpoint rule).
        let steps = 20_000;
        let upper = 300.0;
        let h = upper / steps as f64;
        let integral: f64 = (0..steps).map(|i| w.pdf((i as f64 + 0.5) * h) * h).sum();
        assert!((integral - w.cdf(upper)).abs() < 1e-6);
    }

    #[test]
    fn rejects_bad_parameters_and_samples() {
        assert!(Weibull::new(0.0, 1.0).is_err());
        assert!(Weibull::new(1.0, -1.0).is_err());
        assert!(Weibull::new(f64::NAN, 1.0).is_err());
        assert!(Weibull::fit_mle(&[1.0]).is_err());
        assert!(Weibull::fit_mle(&[2.0, 2.0, 2.0]).is_err());
        assert!(Weibull::fit_mle(&[1.0, 0.0, 3.0]).is_err());
        assert!(Weibull::fit_mle(&[1.0, f64::INFINITY]).is_err());
    }

    #[test]
    fn mle_recovers_known_parameters() {
        for (seed, shape, scale) in [(1, 1.4, 152.2), (2, 0.78, 651.1), (3, 3.0, 2.5)] {
            let truth = Weibull::new(shape, scale).expect("valid");
            let mut rng = StdRng::seed_from_u64(seed);
            let samples: Vec<f64> = (0..5_000)
                .map(|_| truth.quantile(rng.random::<f64>()))
                .collect();
            let fit = Weibull::fit_mle(&samples).expect("fit");
            assert!(
                (fit.shape - shape).abs() / shape < 0.05,
                "shape {} vs {shape}",
                fit.shape
            );
            assert!(
                (fit.scale - scale).abs() / scale < 0.05,
                "scale {} vs {scale}",
                fit.scale
            );
        }
    }
}
