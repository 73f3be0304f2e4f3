//! Small numerical tools the dynamics formulas need: the log-gamma function, bisection,
//! a 2-D Nelder–Mead minimiser and the trapezoid quadrature for expectations over a
//! Weibull distribution. Hand-written (a few dozen lines each) and tested here, rather than a
//! numerical crate.

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, 9 coefficients; relative error below
/// 1e-14 over the range the Weibull moments use).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).abs().ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// Γ(x) for x > 0.
pub(crate) fn gamma(x: f64) -> f64 {
    ln_gamma(x).exp()
}

/// A root of `f` in `[lo, hi]` by bisection, given `f(lo)` and `f(hi)` of opposite signs (or
/// one of them zero). Stops when the bracket is narrower than `tolerance` (absolute) or after
/// 200 halvings; returns `None` when the bracket does not change sign.
pub(crate) fn bisect(
    mut f: impl FnMut(f64) -> f64,
    mut lo: f64,
    mut hi: f64,
    tolerance: f64,
) -> Option<f64> {
    let mut f_lo = f(lo);
    let f_hi = f(hi);
    if f_lo == 0.0 {
        return Some(lo);
    }
    if f_hi == 0.0 {
        return Some(hi);
    }
    if !(f_lo.is_finite() && f_hi.is_finite()) || f_lo.signum() == f_hi.signum() {
        return None;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if (hi - lo).abs() <= tolerance || mid == lo || mid == hi {
            return Some(mid);
        }
        let f_mid = f(mid);
        if f_mid == 0.0 {
            return Some(mid);
        }
        if f_mid.signum() == f_lo.signum() {
            lo = mid;
            f_lo = f_mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Where a Nelder–Mead minimisation ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Minimum {
    pub point: [f64; 2],
    pub value: f64,
    pub iterations: usize,
    pub converged: bool,
}

/// Minimises `f` over the plane with the Nelder–Mead simplex method (reflection 1, expansion
/// 2, contraction ½, shrink ½), starting from `start` with initial steps `step`. Converged when
/// the simplex's values and coordinates both spread less than `tolerance`. Non-finite values
/// count as +∞, so a function may refuse a region by returning NaN or ∞.
pub(crate) fn nelder_mead(
    mut f: impl FnMut([f64; 2]) -> f64,
    start: [f64; 2],
    step: [f64; 2],
    tolerance: f64,
    max_iterations: usize,
) -> Minimum {
    let mut eval = |p: [f64; 2]| {
        let v = f(p);
        if v.is_finite() { v } else { f64::INFINITY }
    };
    let mut simplex = [
        start,
        [start[0] + step[0], start[1]],
        [start[0], start[1] + step[1]],
    ];
    let mut values = simplex.map(&mut eval);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < max_iterations {
        // Order: best first.
        let mut order = [0usize, 1, 2];
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        simplex = order.map(|i| simplex[i]);
        values = order.map(|i| values[i]);
        let spread_values = (values[2] - values[0]).abs();
        let spread_points = simplex[1..]
            .iter()
            .flat_map(|p| [(p[0] - simplex[0][0]).abs(), (p[1] - simplex[0][1]).abs()])
            .fold(0.0_f64, f64::max);
        if spread_values <= tolerance * (1.0 + values[0].abs()) && spread_points <= tolerance {
            converged = true;
            break;
        }
        iterations += 1;
        let centroid = [
            0.5 * (simplex[0][0] + simplex[1][0]),
            0.5 * (simplex[0][1] + simplex[1][1]),
        ];
        let towards = |factor: f64| {
            [
                centroid[0] + factor * (simplex[2][0] - centroid[0]),
                centroid[1] + factor * (simplex[2][1] - centroid[1]),
            ]
        };
        let reflected = towards(-1.0);
        let reflected_value = eval(reflected);
        if reflected_value < values[0] {
            let expanded = towards(-2.0);
            let expanded_value = eval(expanded);
            if expanded_value < reflected_value {
                simplex[2] = expanded;
                values[2] = expanded_value;
            } else {
                simplex[2] = reflected;
                values[2] = reflected_value;
            }
            continue;
        }
        if reflected_value < values[1] {
            simplex[2] = reflected;
            values[2] = reflected_value;
            continue;
        }
        let (contracted, contracted_value) = if reflected_value < values[2] {
            let outside = towards(-0.5);
            (outside, eval(outside))
        } else {
            let inside = towards(0.5);
            (inside, eval(inside))
        };
        if contracted_value < values[2].min(reflected_value) {
            simplex[2] = contracted;
            values[2] = contracted_value;
            continue;
        }
        for i in 1..3 {
            simplex[i] = [
                simplex[0][0] + 0.5 * (simplex[i][0] - simplex[0][0]),
                simplex[0][1] + 0.5 * (simplex[i][1] - simplex[0][1]),
            ];
            values[i] = eval(simplex[i]);
        }
    }
    let best = (0..3)
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap_or(0);
    Minimum {
        point: simplex[best],
        value: values[best],
        iterations,
        converged,
    }
}

/// Nodes and weights for expectations over a Weibull distribution of shape `k` and scale `θ`:
/// `E[g(X)] ≈ Σ weight_j · g(node_j)`.
///
/// With `x = (t/θ)^k` the Weibull measure `w(t) dt` becomes `e^{−x} dx`, and with `s = ln x`
/// it becomes `e^{s − e^s} ds`, a smooth, doubly exponentially decaying weight on the real
/// line. The trapezoid rule on a uniform grid in `s` converges geometrically for such
/// integrands; the grid spans `s ∈ [−40, 4.5]` (Weibull mass outside below 1e-17) with a step
/// of `0.1·min(1, k)`, so that factors varying on the scale of `t` itself (like `e^{−c/t}`,
/// whose analyticity strip in `s` is about `kπ/2` wide) are resolved too.
#[derive(Debug, Clone)]
pub(crate) struct WeibullQuadrature {
    pub nodes: Vec<f64>,
    pub weights: Vec<f64>,
}

impl WeibullQuadrature {
    pub fn new(shape: f64, scale: f64) -> Self {
        const S_MIN: f64 = -40.0;
        const S_MAX: f64 = 4.5;
        let step = 0.1 * shape.min(1.0);
        let count = ((S_MAX - S_MIN) / step).ceil() as usize + 1;
        let mut nodes = Vec::with_capacity(count);
        let mut weights = Vec::with_capacity(count);
        for j in 0..count {
            let s = S_MIN + j as f64 * step;
            nodes.push(scale * (s / shape).exp());
            weights.push(step * (s - s.exp()).exp());
        }
        WeibullQuadrature { nodes, weights }
    }

    /// `E[g(X)]` for X Weibull-distributed.
    pub fn expectation(&self, mut g: impl FnMut(f64) -> f64) -> f64 {
        self.nodes
            .iter()
            .zip(&self.weights)
            .map(|(&t, &w)| w * g(t))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_matches_known_values() {
        let sqrt_pi = std::f64::consts::PI.sqrt();
        for (x, expected) in [
            (0.5, sqrt_pi),
            (1.0, 1.0),
            (1.5, 0.5 * sqrt_pi),
            (2.0, 1.0),
            (5.0, 24.0),
            (10.0, 362_880.0),
            (0.1, 9.513_507_698_668_732),
            (1.0 + 1.0 / 1.4, 0.911_423_339_638_174_5),
        ] {
            let got = gamma(x);
            assert!(
                ((got - expected) / expected).abs() < 1e-13,
                "Γ({x}) = {got}, expected {expected}"
            );
        }
        assert!((ln_gamma(171.0) - 706.573_062_245_787_4).abs() < 1e-9);
    }

    #[test]
    fn bisection_finds_roots_and_refuses_bad_brackets() {
        let root = bisect(|x| x * x - 2.0, 0.0, 2.0, 1e-14).expect("bracketed");
        assert!((root - 2f64.sqrt()).abs() < 1e-13);
        assert_eq!(bisect(|x| x * x + 1.0, -1.0, 1.0, 1e-9), None);
        assert_eq!(bisect(|x| x - 1.0, 1.0, 3.0, 1e-9), Some(1.0));
    }

    #[test]
    fn nelder_mead_minimises_rosenbrock() {
        let rosenbrock = |p: [f64; 2]| (1.0 - p[0]).powi(2) + 100.0 * (p[1] - p[0] * p[0]).powi(2);
        let min = nelder_mead(rosenbrock, [-1.2, 1.0], [0.5, 0.5], 1e-12, 5_000);
        assert!(min.converged, "{min:?}");
        assert!((min.point[0] - 1.0).abs() < 1e-5, "{min:?}");
        assert!((min.point[1] - 1.0).abs() < 1e-5, "{min:?}");
        // A refused region (NaN) is avoided.
        let guarded = |p: [f64; 2]| {
            if p[0] < 0.0 {
                f64::NAN
            } else {
                (p[0] - 0.5).powi(2) + p[1].powi(2)
            }
        };
        let min = nelder_mead(guarded, [2.0, 1.0], [1.0, 1.0], 1e-12, 5_000);
        assert!((min.point[0] - 0.5).abs() < 1e-5 && min.point[1].abs() < 1e-5);
    }

    #[test]
    fn weibull_quadrature_reproduces_moments() {
        for &(k, theta) in &[
            (1.4, 152.2),
            (0.5, 3.0),
            (1.0, 1.0),
            (4.0, 20.0),
            (0.25, 1e4),
        ] {
            let q = WeibullQuadrature::new(k, theta);
            let total = q.expectation(|_| 1.0);
            assert!((total - 1.0).abs() < 1e-12, "mass {total} for k={k}");
            let mean = q.expectation(|t| t);
            let expected = theta * gamma(1.0 + 1.0 / k);
            assert!(((mean - expected) / expected).abs() < 1e-10, "k={k}");
            let second = q.expectation(|t| t * t);
            let expected = theta * theta * gamma(1.0 + 2.0 / k);
            assert!(((second - expected) / expected).abs() < 1e-9, "k={k}");
            // P(X ≤ θ) = 1 − 1/e; the indicator is not smooth, so only roughly.
            let below = q.expectation(|t| if t <= theta { 1.0 } else { 0.0 });
            assert!((below - (1.0 - (-1f64).exp())).abs() < 0.05, "k={k}");
        }
    }
}
