//! The Weibull of mean change times fitted from every document's own observations: a
//! hierarchical (random-effects) likelihood.
//!
//! Each document changes by a Poisson process of its own rate `λ = 1/t̄`, and the mean change
//! times `t̄` of the collection follow a Weibull of shape `k` and scale `θ` (Brewington &
//! Cybenko's model, paper 003 §3–5). What an archive holds about one document is its sequence
//! of observations; given `λ`, their likelihood is
//!
//! `L(λ) = λ^X e^{−λE} Π_c (1 − e^{−λ d_c})`
//!
//! where an interval of length `d` between two visits that saw no change contributes `e^{−λd}`
//! (its length goes into `E`), an interval that saw a change without knowing when contributes
//! `1 − e^{−λd}`, and a change whose time the server's `Last-Modified` gives exactly (a new
//! `Last-Modified` inside the interval) contributes `λ e^{−λ(o − m)}`: a change at `m`, none
//! from `m` to the visit `o` (what happened before `m` in the interval is unseen and
//! integrates out). The first visit's `Last-Modified` contributes the age density `λ e^{−λa}`
//! (paper 003 eq. 2). These are [`DocumentEvidence`].
//!
//! The fit maximises, over `(k, θ)`, the marginal likelihood `Π_i ∫ L_i(1/t̄) w(t̄; k, θ) dt̄`.
//! Unlike the pooled-lifetime fit of §5 ([`super::lifetimes`]) it does not matter how often
//! or how long documents were visited: every document counts once, with exactly what its
//! visits could see, so slow documents that never changed within their span, fast documents
//! that changed at every visit, and revisits all inform the fit.
//!
//! Numerics: the integral is over `s = ln t̄` on one uniform grid (step `h` = 0.1, narrower
//! when some document saw so many changes that its likelihood is narrower than that: `h` =
//! 1.2/√n for the most changes n of a document, at least 0.01), plus the two Weibull tails
//! beyond the grid. Each document's likelihood on the grid is computed
//! once, scaled by its maximum (log space: no underflow) and kept only where it is neither
//! negligible (below 1e-24 of its maximum) nor flat (within 1e-7 of it); that is possible
//! because `ln L` is concave in `λ`, hence unimodal in `s`. Evaluating the likelihood at one
//! `(k, θ)` is then one pass of multiply-adds over those windows (threads share the
//! documents), with a log-sum-exp fallback for the rare document whose marginal underflows.
//! The trapezoid rule on a uniform grid converges geometrically for the smooth, rapidly
//! decaying integrands here (for the Weibull factor in `s` the error is about
//! `e^{−π²/(k h)}`: 1e-10 for shape 4 at `h` = 0.1, 1e-4 for shape 10).
//!
//! The maximum is found by Nelder–Mead over `(ln k, ln θ)` from the best point of a coarse
//! grid; the 95% confidence intervals are profile-likelihood intervals (where the profile log
//! likelihood falls 1.92 = χ²₁(0.95)/2 below its maximum), found by secant steps from the
//! Wald interval of the numerical Hessian, each profile point maximised over the other
//! parameter by parabolic steps.

use super::DynamicsError;
use super::numeric::nelder_mead;
use super::weibull::Weibull;

/// Changed intervals whose lengths differ by less than this in `ln d` share one factor (at the
/// mean of their `ln d`; the error of that is second order, below 1e-5 per interval).
const LENGTH_BIN: f64 = 0.02;

/// The widest grid step in `ln t̄`.
const MAX_STEP: f64 = 0.1;

/// The narrowest grid step (documents with more than ~6,000 changes are integrated coarser).
const MIN_STEP: f64 = 0.01;

/// Grid margins in `ln t̄` below the fastest and above the slowest time scale of the data.
const MARGIN_BELOW: f64 = 5.0;
const MARGIN_ABOVE: f64 = 6.0;

/// The widest grid, in `ln t̄` (e^35 between its ends).
const MAX_RANGE: f64 = 35.0;

/// A document's scaled likelihood below this is taken as 0, above `1 − FLAT` as 1.
const NEGLIGIBLE: f64 = 1e-24;
const FLAT: f64 = 1e-7;

/// χ²₁(0.95) / 2: the drop of the profile log likelihood at the ends of a 95% interval.
const PROFILE_DROP: f64 = 1.920_729_4;

/// Rays traced to the boundary of the likelihood region.
const RAYS: usize = 12;

/// Shapes outside this range are refused by the optimiser.
const SHAPE_RANGE: (f64, f64) = (0.05, 50.0);

/// Shapes sampled across a shape interval when a figure's interval is taken over the box of
/// the parameters' intervals.
const SHAPE_SAMPLES: usize = 24;

/// A shape standing for "no bound above": figures of a Weibull this regular are their limit
/// as the shape grows (the mean within 1e-6 of the scale).
const SHAPE_LIMIT: f64 = 1e6;

/// Fewer documents than this per thread are not worth a thread.
const DOCUMENTS_PER_THREAD: usize = 4096;

/// One observation of a document, as the fit takes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
    /// When, in the caller's time unit.
    pub at: f64,
    /// The content differs from the previous observation's (ignored for the first).
    pub changed: bool,
    /// The server's `Last-Modified`, same unit and origin as `at`.
    pub last_modified: Option<f64>,
}

/// The sufficient statistics of one document's likelihood `λ^X e^{−λE} Π_c (1 − e^{−λ d_c})`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentEvidence {
    /// `X`: changes whose time is known (from `Last-Modified`).
    pub exact_changes: u32,
    /// `E`: time known to be free of changes.
    pub exposure: f64,
    /// Intervals that saw a change at an unknown time: (length, how many), lengths binned.
    pub changed_intervals: Vec<(f64, u32)>,
}

impl DocumentEvidence {
    /// The evidence of one document's observations (any order; same-instant duplicates
    /// dropped). An interval counts as an exactly timed change when the content changed and
    /// the new `Last-Modified` lies inside the interval; otherwise the change flag decides
    /// (a `Last-Modified` that contradicts the content, or lies after its visit, is not used).
    pub fn from_sightings(sightings: &[Sighting]) -> Self {
        let mut sorted: Vec<Sighting> = sightings
            .iter()
            .filter(|s| s.at.is_finite())
            .copied()
            .collect();
        sorted.sort_by(|a, b| a.at.total_cmp(&b.at));
        let usable = |s: &Sighting| s.last_modified.filter(|m| m.is_finite() && *m <= s.at);
        let mut evidence = DocumentEvidence::default();
        let mut lengths = Vec::new();
        if let Some(first) = sorted.first()
            && let Some(m) = usable(first)
        {
            evidence.exact_changes += 1;
            evidence.exposure += first.at - m;
        }
        for pair in sorted.windows(2) {
            let (previous, current) = (&pair[0], &pair[1]);
            let length = current.at - previous.at;
            if length <= 0.0 {
                continue;
            }
            match usable(current) {
                Some(m) if current.changed && m > previous.at => {
                    evidence.exact_changes += 1;
                    evidence.exposure += current.at - m;
                }
                _ if current.changed => lengths.push(length),
                _ => evidence.exposure += length,
            }
        }
        evidence.changed_intervals = bin_lengths(lengths);
        evidence
    }

    /// Whether the observations say anything about λ (a single visit without
    /// `Last-Modified` does not).
    pub fn is_informative(&self) -> bool {
        self.exact_changes > 0 || self.exposure > 0.0 || !self.changed_intervals.is_empty()
    }

    /// `ln L(λ)`.
    pub fn log_likelihood(&self, rate: f64) -> f64 {
        let mut value = -rate * self.exposure;
        if self.exact_changes > 0 {
            value += f64::from(self.exact_changes) * rate.ln();
        }
        for &(length, count) in &self.changed_intervals {
            value += f64::from(count) * (-(-rate * length).exp_m1()).ln();
        }
        value
    }

    /// `ln L` at `s = ln t̄`, i.e. `λ = e^{−s}` (`X ln λ = −X s` needs no logarithm).
    fn log_likelihood_at(&self, s: f64) -> f64 {
        let rate = (-s).exp();
        let mut value = -rate * self.exposure - f64::from(self.exact_changes) * s;
        for &(length, count) in &self.changed_intervals {
            value += f64::from(count) * (-(-rate * length).exp_m1()).ln();
        }
        value
    }

    /// Changes seen, timed or not.
    fn changes(&self) -> u64 {
        u64::from(self.exact_changes)
            + self
                .changed_intervals
                .iter()
                .map(|&(_, n)| u64::from(n))
                .sum::<u64>()
    }

    /// The shortest and longest time scales the document can resolve: its shortest changed
    /// interval or its watched time per change (not a single short age, which says little),
    /// and its watched time.
    fn time_scales(&self) -> (f64, f64) {
        let watched = self.exposure
            + self
                .changed_intervals
                .iter()
                .map(|&(d, n)| d * f64::from(n))
                .sum::<f64>();
        let changes = self.changes();
        let mut shortest = if changes > 0 {
            watched / changes as f64
        } else {
            f64::INFINITY
        };
        for &(length, _) in &self.changed_intervals {
            shortest = shortest.min(length);
        }
        (shortest, watched)
    }
}

/// Lengths grouped into bins of [`LENGTH_BIN`] in `ln d`, each at its geometric mean.
fn bin_lengths(mut lengths: Vec<f64>) -> Vec<(f64, u32)> {
    lengths.sort_by(f64::total_cmp);
    let mut bins: Vec<(f64, u32)> = Vec::new();
    let mut start = 0.0;
    let mut sum_ln = 0.0;
    let mut count = 0u32;
    for length in lengths {
        let ln = length.ln();
        if count > 0 && ln - start >= LENGTH_BIN {
            bins.push(((sum_ln / f64::from(count)).exp(), count));
            count = 0;
            sum_ln = 0.0;
        }
        if count == 0 {
            start = ln;
        }
        sum_ln += ln;
        count += 1;
    }
    if count > 0 {
        bins.push(((sum_ln / f64::from(count)).exp(), count));
    }
    bins
}

/// The fitted Weibull of mean change times and how sure the archive makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct HierarchicalFit {
    /// The maximum-likelihood Weibull, scale in the caller's time unit.
    pub weibull: Weibull,
    /// 95% profile-likelihood interval of the shape (an end is infinite when the profile does
    /// not fall far enough within the shapes searched).
    pub shape_interval: (f64, f64),
    /// 95% profile-likelihood interval of the scale.
    pub scale_interval: (f64, f64),
    /// The maximised log likelihood (documents' constant factors included).
    pub log_likelihood: f64,
    /// Documents whose observations say something about their rate.
    pub documents: usize,
    /// Changes with a known time, over all documents.
    pub exact_changes: u64,
    /// Intervals that saw a change at an unknown time.
    pub changed_intervals: u64,
    /// Whether Nelder–Mead met its tolerance.
    pub converged: bool,
    /// Likelihood evaluations spent (fit and intervals).
    pub evaluations: usize,
    /// The grid step in `ln t̄`.
    pub grid_step: f64,
    /// Points on the boundary of the 95% profile-likelihood region `{(k, θ): ln L ≥ max −
    /// 1.92}`, in 12 directions around the maximum; empty when the region is not bounded
    /// within the shapes and scales searched. See [`HierarchicalFit::interval_of`].
    pub region: Vec<Weibull>,
}

impl HierarchicalFit {
    /// The 95% profile-likelihood interval of a figure computed from the Weibull (a mean, a
    /// re-indexing period …): its least and greatest value over the boundary of the
    /// likelihood region (for a figure without an extremum inside the region, which the
    /// profile interval of a scalar function is).
    ///
    /// When the region is not closed because the shape is not bounded above (documents that
    /// change almost regularly), the extremes over the box of the shape's and the scale's
    /// profile intervals instead, the shape followed to its limit: that box holds the region,
    /// so the interval is at least as wide as the profile interval. Figures are taken to be
    /// monotone in the scale (a time scale: means, medians and periods grow with it).
    /// Infinite ends when the scale or the shape's lower end is not bounded either.
    pub fn interval_of(&self, figure: impl Fn(Weibull) -> f64) -> (f64, f64) {
        let centre = figure(self.weibull);
        let extremes = |values: &mut dyn Iterator<Item = f64>| {
            values.fold((centre, centre), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        if !self.region.is_empty() {
            return extremes(&mut self.region.iter().map(|&w| figure(w)));
        }
        let (shape_lo, shape_hi) = self.shape_interval;
        let (scale_lo, scale_hi) = self.scale_interval;
        // An end the profile did not reach is stored as 0 (below) or ∞ (above).
        let bounded_below = |end: f64| end > 0.0 && end.is_finite();
        if !(bounded_below(shape_lo) && bounded_below(scale_lo) && scale_hi.is_finite()) {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let shape_top = if shape_hi.is_finite() {
            shape_hi
        } else {
            SHAPE_RANGE.1
        };
        let mut shapes: Vec<f64> = (0..=SHAPE_SAMPLES)
            .map(|i| {
                let t = i as f64 / SHAPE_SAMPLES as f64;
                (shape_lo.ln() + t * (shape_top.ln() - shape_lo.ln())).exp()
            })
            .collect();
        if !shape_hi.is_finite() {
            shapes.push(SHAPE_LIMIT);
        }
        let scales = [scale_lo, self.weibull.scale, scale_hi];
        let mut values = shapes.iter().flat_map(|&shape| {
            scales
                .iter()
                .filter_map(move |&scale| Weibull::new(shape, scale).ok())
                .map(&figure)
        });
        extremes(&mut values)
    }
}

/// Fits the Weibull of mean change times to the documents' evidence by maximum marginal
/// likelihood (see the module documentation). Errors when no document is informative, when
/// no change was seen at all (the scale is then unbounded), or when the maximum lies at the
/// edge of what the data can resolve.
pub fn fit_hierarchical(documents: &[DocumentEvidence]) -> Result<HierarchicalFit, DynamicsError> {
    let informative: Vec<&DocumentEvidence> =
        documents.iter().filter(|d| d.is_informative()).collect();
    if informative.len() < 2 {
        return Err(DynamicsError::Data(format!(
            "the hierarchical fit needs at least 2 documents with two observations or a \
             Last-Modified, got {}",
            informative.len()
        )));
    }
    let exact_changes: u64 = informative.iter().map(|d| u64::from(d.exact_changes)).sum();
    let changes: u64 = informative.iter().map(|d| d.changes()).sum();
    if changes == 0 {
        return Err(DynamicsError::Data(
            "no document was seen to change: the mean change times are longer than the \
             archive can tell"
                .to_string(),
        ));
    }
    let model = MarginalModel::new(&informative)?;
    let mut fit = model.maximise()?;
    fit.exact_changes = exact_changes;
    fit.changed_intervals = changes - exact_changes;
    Ok(fit)
}

/// The grid in `s = ln t̄`: `s_g = start + g·step`, `g < len`.
#[derive(Debug, Clone, Copy)]
struct Grid {
    start: f64,
    step: f64,
    len: usize,
}

impl Grid {
    fn for_documents(documents: &[&DocumentEvidence]) -> Result<Self, DynamicsError> {
        let mut shortest = f64::INFINITY;
        let mut longest: f64 = 0.0;
        let mut most_changes = 0u64;
        for d in documents {
            let (short, long) = d.time_scales();
            if short > 0.0 {
                shortest = shortest.min(short);
            }
            longest = longest.max(long);
            most_changes = most_changes.max(d.changes());
        }
        if !(longest > 0.0 && longest.is_finite()) {
            return Err(DynamicsError::Data(
                "no document was watched for any time".to_string(),
            ));
        }
        if !shortest.is_finite() {
            shortest = longest;
        }
        let end = longest.ln() + MARGIN_ABOVE;
        let start = (shortest.ln() - MARGIN_BELOW).max(end - MAX_RANGE);
        // A document with n changes has a likelihood about σ = 1/√n wide in s; a step of
        // 1.2σ leaves a trapezoid error near 2e^{−2π²/1.44} ≈ 2e−6 on it.
        let step = (1.2 / (most_changes.max(1) as f64).sqrt()).clamp(MIN_STEP, MAX_STEP);
        let len = ((end - start) / step).ceil() as usize + 1;
        Ok(Grid { start, step, len })
    }

    fn s(&self, g: usize) -> f64 {
        self.start + g as f64 * self.step
    }

    fn end(&self) -> f64 {
        self.s(self.len - 1)
    }
}

/// One document's scaled likelihood on the grid: explicit on `[start, end)`, `low` below
/// (and in the lower tail), `high` above; `ln_max` the scale.
#[derive(Debug, Clone, Copy)]
struct Window {
    offset: usize,
    start: usize,
    end: usize,
    low: f64,
    high: f64,
    ln_max: f64,
}

/// The Weibull's weights on the grid for one `(k, θ)`.
struct Weights {
    w: Vec<f64>,
    ln_w: Vec<f64>,
    /// `below[a]` = lower tail mass + Σ_{g<a} w_g.
    below: Vec<f64>,
    /// `above[b]` = Σ_{g≥b} w_g + upper tail mass.
    above: Vec<f64>,
    ln_tail_low: f64,
    ln_tail_high: f64,
}

impl Weights {
    fn new(grid: &Grid, shape: f64, scale_ln: f64) -> Self {
        let ln_x = |s: f64| shape * (s - scale_ln);
        let ln_w: Vec<f64> = (0..grid.len)
            .map(|g| {
                let lx = ln_x(grid.s(g));
                grid.step.ln() + shape.ln() + lx - lx.exp()
            })
            .collect();
        let w: Vec<f64> = ln_w.iter().map(|l| l.exp()).collect();
        let x_low = ln_x(grid.start - 0.5 * grid.step).exp();
        let x_high = ln_x(grid.end() + 0.5 * grid.step).exp();
        let tail_low = -(-x_low).exp_m1();
        let tail_high = (-x_high).exp();
        let mut below = Vec::with_capacity(grid.len + 1);
        let mut sum = tail_low;
        below.push(sum);
        for &v in &w {
            sum += v;
            below.push(sum);
        }
        let mut above = vec![0.0; grid.len + 1];
        let mut sum = tail_high;
        above[grid.len] = sum;
        for g in (0..grid.len).rev() {
            sum += w[g];
            above[g] = sum;
        }
        Weights {
            w,
            ln_w,
            below,
            above,
            ln_tail_low: tail_low.ln(),
            ln_tail_high: -x_high,
        }
    }
}

/// Every informative document's likelihood on the grid, ready for repeated evaluation.
struct MarginalModel {
    grid: Grid,
    windows: Vec<Window>,
    values: Vec<f32>,
    evaluations: std::cell::Cell<usize>,
}

impl MarginalModel {
    fn new(documents: &[&DocumentEvidence]) -> Result<Self, DynamicsError> {
        let grid = Grid::for_documents(documents)?;
        let threads = threads_for(documents.len());
        let chunk = documents.len().div_ceil(threads).max(1);
        let parts: Vec<(Vec<Window>, Vec<f32>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = documents
                .chunks(chunk)
                .map(|part| scope.spawn(move || compile(&grid, part)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("likelihood thread"))
                .collect()
        });
        let mut windows = Vec::with_capacity(documents.len());
        let mut values = Vec::new();
        for (part_windows, part_values) in parts {
            let base = values.len();
            windows.extend(part_windows.into_iter().map(|mut w| {
                w.offset += base;
                w
            }));
            values.extend(part_values);
        }
        if windows.len() < 2 {
            return Err(DynamicsError::Data(
                "fewer than 2 documents say anything about their change rates".to_string(),
            ));
        }
        Ok(MarginalModel {
            grid,
            windows,
            values,
            evaluations: std::cell::Cell::new(0),
        })
    }

    /// The log marginal likelihood at `(ln k, ln θ)`; −∞ outside the shapes searched.
    fn log_likelihood(&self, shape_ln: f64, scale_ln: f64) -> f64 {
        let shape = shape_ln.exp();
        if !(SHAPE_RANGE.0..=SHAPE_RANGE.1).contains(&shape) || !scale_ln.is_finite() {
            return f64::NEG_INFINITY;
        }
        self.evaluations.set(self.evaluations.get() + 1);
        let weights = Weights::new(&self.grid, shape, scale_ln);
        let threads = threads_for(self.windows.len());
        let chunk = self.windows.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .windows
                .chunks(chunk)
                .map(|part| {
                    let weights = &weights;
                    let values = &self.values;
                    scope.spawn(move || {
                        part.iter()
                            .map(|w| document_log_marginal(w, values, weights))
                            .sum::<f64>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("likelihood thread"))
                .sum()
        })
    }

    fn maximise(&self) -> Result<HierarchicalFit, DynamicsError> {
        let n = self.windows.len() as f64;
        let objective = |p: [f64; 2]| -self.log_likelihood(p[0], p[1]) / n;
        let start = self.coarse_start();
        let best = nelder_mead(objective, start, [0.3, 0.5], 1e-5, 400);
        let [shape_ln, scale_ln] = best.point;
        let log_likelihood = -best.value * n;
        if !log_likelihood.is_finite() {
            return Err(DynamicsError::Data(
                "the hierarchical likelihood is not finite anywhere searched".to_string(),
            ));
        }
        // A scale near the grid's ends means the data only bound it on one side.
        if scale_ln > self.grid.end() - 2.0 || scale_ln < self.grid.start + 2.0 {
            return Err(DynamicsError::Data(format!(
                "the mean change times are not identifiable from these observations (the \
                 likelihood keeps growing towards a scale of {:.3e})",
                scale_ln.exp()
            )));
        }
        let wald = self.wald_matrix([shape_ln, scale_ln]);
        let (shape_interval, scale_interval) =
            self.profile_intervals([shape_ln, scale_ln], log_likelihood, wald);
        let region = self.region([shape_ln, scale_ln], log_likelihood, wald);
        Ok(HierarchicalFit {
            weibull: Weibull::new(shape_ln.exp(), scale_ln.exp())?,
            shape_interval: (shape_interval.0.exp(), shape_interval.1.exp()),
            scale_interval: (scale_interval.0.exp(), scale_interval.1.exp()),
            log_likelihood: log_likelihood + self.windows.iter().map(|w| w.ln_max).sum::<f64>(),
            documents: self.windows.len(),
            exact_changes: 0,
            changed_intervals: 0,
            converged: best.converged,
            evaluations: self.evaluations.get(),
            grid_step: self.grid.step,
            region,
        })
    }

    /// The best of a coarse grid of shapes and scales across the data's time scales.
    fn coarse_start(&self) -> [f64; 2] {
        let low = self.grid.start + MARGIN_BELOW - 1.0;
        let high = self.grid.end() - MARGIN_ABOVE + 2.0;
        let scales = 8;
        let mut best = ([0.0, 0.5 * (low + high)], f64::NEG_INFINITY);
        for shape in [0.6f64, 1.2, 2.5] {
            for i in 0..scales {
                let scale_ln = low + (high - low) * i as f64 / (scales - 1) as f64;
                let value = self.log_likelihood(shape.ln(), scale_ln);
                if value > best.1 {
                    best = ([shape.ln(), scale_ln], value);
                }
            }
        }
        best.0
    }

    /// 95% profile-likelihood intervals of `ln k` and `ln θ` around the maximum `at`.
    fn profile_intervals(
        &self,
        at: [f64; 2],
        maximum: f64,
        wald: [f64; 3],
    ) -> ((f64, f64), (f64, f64)) {
        let covariance = [wald[0], wald[1]];
        let target = maximum - PROFILE_DROP;
        let mut ends = [[0.0; 2]; 2];
        for (which, end) in ends.iter_mut().enumerate() {
            let sd = covariance[which].max(1e-8).sqrt();
            for (side, sign) in [-1.0f64, 1.0].into_iter().enumerate() {
                end[side] = self.profile_end(at, which, sign, sd, maximum, target);
            }
        }
        ((ends[0][0], ends[0][1]), (ends[1][0], ends[1][1]))
    }

    /// The boundary of `{ln L ≥ maximum − 1.92}` along [`RAYS`] rays from the maximum, spaced
    /// evenly in the coordinates that make the Wald ellipse a circle; empty when a ray does
    /// not reach it.
    fn region(&self, at: [f64; 2], maximum: f64, wald: [f64; 3]) -> Vec<Weibull> {
        let [vaa, vbb, vab] = wald;
        // Cholesky factor of the covariance: (la, 0; lba, lbb).
        let la = vaa.max(1e-12).sqrt();
        let lba = vab / la;
        let lbb = (vbb - lba * lba).max(1e-12).sqrt();
        let target = maximum - PROFILE_DROP;
        let mut points = Vec::new();
        for j in 0..RAYS {
            let angle = std::f64::consts::TAU * j as f64 / RAYS as f64;
            let (u, v) = (angle.cos(), angle.sin());
            let direction = [la * u, lba * u + lbb * v];
            let at_radius = |r: f64| [at[0] + r * direction[0], at[1] + r * direction[1]];
            let residual = |r: f64| {
                let p = at_radius(r);
                self.log_likelihood(p[0], p[1]) - target
            };
            let (mut r0, mut f0) = (0.0, maximum - target);
            let mut r1 = 1.96;
            let mut found = None;
            for _ in 0..10 {
                let f1 = residual(r1);
                if f1.abs() < 5e-3 {
                    found = Some(r1);
                    break;
                }
                let next = if f1.is_finite() && (f0 - f1).abs() > 1e-12 {
                    r1 - f1 * (r1 - r0) / (f1 - f0)
                } else {
                    0.5 * (r0 + r1)
                };
                (r0, f0) = (r1, f1);
                r1 = next.clamp(0.05, 20.0);
            }
            let Some(r) = found else {
                return Vec::new();
            };
            let [shape_ln, scale_ln] = at_radius(r);
            match Weibull::new(shape_ln.exp(), scale_ln.exp()) {
                Ok(w) => points.push(w),
                Err(_) => return Vec::new(),
            }
        }
        points
    }

    /// The inverse of minus the numerical Hessian of `ln L` at `at`: (var a, var b, cov).
    fn wald_matrix(&self, at: [f64; 2]) -> [f64; 3] {
        let d = 0.01;
        let f = |a: f64, b: f64| self.log_likelihood(at[0] + a, at[1] + b);
        let centre = f(0.0, 0.0);
        let haa = (f(d, 0.0) - 2.0 * centre + f(-d, 0.0)) / (d * d);
        let hbb = (f(0.0, d) - 2.0 * centre + f(0.0, -d)) / (d * d);
        let hab = (f(d, d) - f(d, -d) - f(-d, d) + f(-d, -d)) / (4.0 * d * d);
        let det = haa * hbb - hab * hab;
        if !(det > 0.0 && haa < 0.0) {
            return [1.0, 1.0, 0.0];
        }
        [-hbb / det, -haa / det, hab / det]
    }

    /// Where the profile of parameter `which` falls to `target` on the side `sign`: secant
    /// steps from the Wald end, each profile point maximised over the other parameter.
    fn profile_end(
        &self,
        at: [f64; 2],
        which: usize,
        sign: f64,
        sd: f64,
        maximum: f64,
        target: f64,
    ) -> f64 {
        let limit = if which == 0 {
            if sign > 0.0 {
                SHAPE_RANGE.1.ln()
            } else {
                SHAPE_RANGE.0.ln()
            }
        } else if sign > 0.0 {
            self.grid.end()
        } else {
            self.grid.start
        };
        let mut other = at[1 - which];
        let mut profile = |x: f64| {
            let (value, best) = self.profile_at(which, x, other);
            if value.is_finite() {
                other = best;
            }
            value - target
        };
        // Secant between (x0, r0) and (x1, r1), starting at the maximum and the Wald end.
        let (mut x0, mut r0) = (at[which], maximum - target);
        let mut x1 = at[which] + sign * 1.96 * sd;
        for _ in 0..12 {
            if sign * (x1 - limit) >= 0.0 {
                return sign * f64::INFINITY;
            }
            let r1 = profile(x1);
            if r1.abs() < 5e-3 {
                return x1;
            }
            let next = if r1.is_finite() && (r0 - r1).abs() > 1e-12 {
                x1 - r1 * (x1 - x0) / (r1 - r0)
            } else {
                0.5 * (x0 + x1)
            };
            // Stay on the right side of the maximum and move at most 2 units at once.
            let next = at[which] + sign * (sign * (next - at[which])).clamp(1e-4, 2.0);
            (x0, r0) = (x1, r1);
            x1 = next;
        }
        x1
    }

    /// The profile log likelihood with parameter `which` fixed at `x`: maximised over the
    /// other by parabolic steps from `guess`. Returns (maximum, where).
    fn profile_at(&self, which: usize, x: f64, guess: f64) -> (f64, f64) {
        let f = |y: f64| {
            if which == 0 {
                self.log_likelihood(x, y)
            } else {
                self.log_likelihood(y, x)
            }
        };
        let mut y = guess;
        let mut delta = 0.05;
        let mut centre = f(y);
        for _ in 0..10 {
            let (minus, plus) = (f(y - delta), f(y + delta));
            let curvature = plus + minus - 2.0 * centre;
            let step = if curvature < 0.0 {
                (delta * (minus - plus) / (2.0 * curvature)).clamp(-1.0, 1.0)
            } else if plus > minus {
                2.0 * delta
            } else {
                -2.0 * delta
            };
            if step.abs() < 1e-4 {
                break;
            }
            let candidate = f(y + step);
            if candidate >= centre {
                y += step;
                centre = candidate;
            }
            delta = (step.abs()).clamp(1e-3, 0.05);
        }
        (centre, y)
    }
}

fn threads_for(documents: usize) -> usize {
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    available
        .min(documents.div_ceil(DOCUMENTS_PER_THREAD))
        .clamp(1, 16)
}

/// The windows of some documents' scaled likelihoods (offsets relative to the values).
fn compile(grid: &Grid, documents: &[&DocumentEvidence]) -> (Vec<Window>, Vec<f32>) {
    let mut windows = Vec::with_capacity(documents.len());
    let mut values = Vec::new();
    let mut ln_l = vec![0.0; grid.len];
    let mut scaled = vec![0.0; grid.len];
    for document in documents {
        for (g, slot) in ln_l.iter_mut().enumerate() {
            *slot = document.log_likelihood_at(grid.s(g));
        }
        let ln_max = ln_l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !ln_max.is_finite() {
            continue;
        }
        for (p, l) in scaled.iter_mut().zip(&ln_l) {
            *p = (l - ln_max).exp();
        }
        let p = |g: usize| scaled[g];
        let (start, low) = if p(0) >= 1.0 - FLAT {
            (
                (0..grid.len)
                    .find(|&g| p(g) < 1.0 - FLAT)
                    .unwrap_or(grid.len),
                1.0,
            )
        } else {
            let start = (0..grid.len).find(|&g| p(g) >= NEGLIGIBLE).unwrap_or(0);
            (start, if start == 0 { p(0) } else { 0.0 })
        };
        let last = grid.len - 1;
        let (end, high) = if p(last) >= 1.0 - FLAT {
            let end = (0..grid.len)
                .rev()
                .find(|&g| p(g) < 1.0 - FLAT)
                .map_or(0, |g| g + 1);
            (end, 1.0)
        } else {
            let end = (0..grid.len)
                .rev()
                .find(|&g| p(g) >= NEGLIGIBLE)
                .map_or(grid.len, |g| g + 1);
            (end, if end == grid.len { p(last) } else { 0.0 })
        };
        if start > end {
            continue; // flat everywhere: no information
        }
        windows.push(Window {
            offset: values.len(),
            start,
            end,
            low,
            high,
            ln_max,
        });
        values.extend((start..end).map(|g| p(g) as f32));
    }
    (windows, values)
}

/// `Σ v_g w_g` with eight independent accumulators (a single running sum is bound by the
/// latency of each addition, and the compiler may not reorder floating-point sums itself).
fn dot(values: &[f32], weights: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let mut v_chunks = values.chunks_exact(8);
    let mut w_chunks = weights.chunks_exact(8);
    for (v, w) in (&mut v_chunks).zip(&mut w_chunks) {
        for lane in 0..8 {
            lanes[lane] += f64::from(v[lane]) * w[lane];
        }
    }
    let tail: f64 = v_chunks
        .remainder()
        .iter()
        .zip(w_chunks.remainder())
        .map(|(v, w)| f64::from(*v) * w)
        .sum();
    lanes.iter().sum::<f64>() + tail
}

/// `ln ∫ L/L_max w` of one document, in log space when the plain sum underflows.
fn document_log_marginal(window: &Window, values: &[f32], weights: &Weights) -> f64 {
    let explicit = &values[window.offset..window.offset + (window.end - window.start)];
    let mut sum =
        window.low * weights.below[window.start] + window.high * weights.above[window.end];
    sum += dot(explicit, &weights.w[window.start..window.end]);
    if sum > 1e-280 {
        return sum.ln();
    }
    // Log-sum-exp over every term.
    let mut terms: Vec<f64> = Vec::new();
    if window.low > 0.0 {
        let ln_low = window.low.ln();
        terms.push(ln_low + weights.ln_tail_low);
        terms.extend(weights.ln_w[..window.start].iter().map(|l| ln_low + l));
    }
    terms.extend(
        explicit
            .iter()
            .zip(&weights.ln_w[window.start..window.end])
            .filter(|(v, _)| **v > 0.0)
            .map(|(v, l)| f64::from(*v).ln() + l),
    );
    if window.high > 0.0 {
        let ln_high = window.high.ln();
        terms.extend(weights.ln_w[window.end..].iter().map(|l| ln_high + l));
        terms.push(ln_high + weights.ln_tail_high);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return f64::NEG_INFINITY;
    }
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A fit whose likelihood region is not closed: shape bounded below only.
    fn fit_with_open_shape(scale_interval: (f64, f64)) -> HierarchicalFit {
        HierarchicalFit {
            weibull: Weibull::new(50.0, 545.21).unwrap(),
            shape_interval: (37.86, f64::INFINITY),
            scale_interval,
            log_likelihood: -10.0,
            documents: 18,
            exact_changes: 18,
            changed_intervals: 5,
            converged: true,
            evaluations: 0,
            grid_step: 0.1,
            region: Vec::new(),
        }
    }

    #[test]
    fn a_figure_is_bounded_when_only_the_shape_is_not_bounded_above() {
        let fit = fit_with_open_shape((540.49, 550.72));
        let (lo, hi) = fit.interval_of(|w| w.mean());
        let least = Weibull::new(37.86, 540.49).unwrap().mean();
        assert!((lo - least).abs() < 1e-9, "{lo} vs {least}");
        assert!(
            (hi - 550.72).abs() < 1e-3,
            "{hi}: the mean's limit is the scale"
        );
        assert!(lo <= fit.weibull.mean() && fit.weibull.mean() <= hi);
        let (lo, hi) = fit.interval_of(|w| w.median());
        assert!(lo <= fit.weibull.median() && fit.weibull.median() <= hi && hi <= 550.72);

        let unbounded = fit_with_open_shape((540.49, f64::INFINITY));
        assert_eq!(
            unbounded.interval_of(|w| w.mean()),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
        // Ends the profile did not reach below are stored as 0.
        let scale_unbounded_below = fit_with_open_shape((0.0, 550.72));
        assert_eq!(
            scale_unbounded_below.interval_of(|w| w.mean()),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
        let mut shape_unbounded_below = fit_with_open_shape((540.49, 550.72));
        shape_unbounded_below.shape_interval = (0.0, 3.0);
        assert_eq!(
            shape_unbounded_below.interval_of(|w| w.mean()),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
    }

    /// One document of mean change time `mean` seen at `visits`: changes by a stationary
    /// Poisson process; with `last_modified`, each visit reports the latest change.
    fn observe(rng: &mut StdRng, mean: f64, visits: &[f64], last_modified: bool) -> Vec<Sighting> {
        let rate = 1.0 / mean;
        let exponential = |rng: &mut StdRng| -(1.0 - rng.random::<f64>()).ln() / rate;
        let mut latest = visits[0] - exponential(rng);
        let mut sightings = Vec::with_capacity(visits.len());
        for (j, &at) in visits.iter().enumerate() {
            let mut changed = false;
            if j > 0 {
                let length = at - visits[j - 1];
                let none = (-rate * length).exp();
                if rng.random::<f64>() >= none {
                    changed = true;
                    // The latest change's age given at least one in the interval.
                    let u: f64 = rng.random();
                    latest = at + (1.0 - u * (1.0 - none)).ln() / rate;
                }
            }
            sightings.push(Sighting {
                at,
                changed,
                last_modified: last_modified.then_some(latest),
            });
        }
        sightings
    }

    fn population(
        seed: u64,
        weibull: Weibull,
        documents: usize,
        last_modified: bool,
        visits: impl Fn(&mut StdRng) -> Vec<f64>,
    ) -> Vec<DocumentEvidence> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..documents)
            .map(|_| {
                let mean = weibull.quantile(rng.random::<f64>());
                let times = visits(&mut rng);
                DocumentEvidence::from_sightings(&observe(&mut rng, mean, &times, last_modified))
            })
            .collect()
    }

    fn assert_recovers(fit: &HierarchicalFit, truth: Weibull, tolerance: f64, what: &str) {
        let shape_error = fit.weibull.shape / truth.shape - 1.0;
        let scale_error = fit.weibull.scale / truth.scale - 1.0;
        eprintln!("{what}: {fit:?}");
        assert!(
            shape_error.abs() < tolerance && scale_error.abs() < tolerance,
            "{what}: fitted {:?}, truth {truth:?}",
            fit.weibull
        );
        let (lo, hi) = fit.shape_interval;
        assert!(lo < fit.weibull.shape && fit.weibull.shape < hi, "{fit:?}");
        let (lo, hi) = fit.scale_interval;
        assert!(lo < fit.weibull.scale && fit.weibull.scale < hi, "{fit:?}");
    }

    #[test]
    fn evidence_of_visits_and_last_modified() {
        let s = |at: f64, changed: bool, last_modified: Option<f64>| Sighting {
            at,
            changed,
            last_modified,
        };
        // Without Last-Modified: intervals of 1, 2 (changed), 2 (changed), 1.
        let plain = DocumentEvidence::from_sightings(&[
            s(0.0, false, None),
            s(1.0, false, None),
            s(3.0, true, None),
            s(5.0, true, None),
            s(6.0, false, None),
        ]);
        assert_eq!(plain.exact_changes, 0);
        assert_eq!(plain.exposure, 2.0);
        assert_eq!(plain.changed_intervals.len(), 1);
        assert_eq!(plain.changed_intervals[0].1, 2);
        assert!((plain.changed_intervals[0].0 - 2.0).abs() < 1e-12);
        let rate: f64 = 0.3;
        let expected = -rate * 2.0 + 2.0 * (1.0 - (-rate * 2.0).exp()).ln();
        assert!((plain.log_likelihood(rate) - expected).abs() < 1e-12);

        // With Last-Modified: age 2 at the first visit; a change timed at 2.5; an unchanged
        // interval; a change whose Last-Modified is not inside its interval (untimed); a
        // Last-Modified after its visit (ignored).
        let stamped = DocumentEvidence::from_sightings(&[
            s(10.0, false, Some(8.0)),
            s(11.0, false, Some(8.0)),
            s(13.0, true, Some(12.5)),
            s(14.0, false, Some(12.5)),
            s(15.0, true, Some(12.5)),
            s(16.0, true, Some(99.0)),
        ]);
        assert_eq!(stamped.exact_changes, 2);
        assert_eq!(stamped.exposure, 2.0 + 1.0 + 0.5 + 1.0);
        assert_eq!(stamped.changed_intervals, vec![(1.0, 2)]);
        assert!(!DocumentEvidence::from_sightings(&[s(1.0, false, None)]).is_informative());
    }

    #[test]
    fn lengths_within_a_bin_share_their_geometric_mean() {
        let bins = bin_lengths(vec![7.0, 7.05, 7.0, 30.0, 1.0]);
        assert_eq!(bins.len(), 3);
        assert_eq!(bins[0], (1.0, 1));
        assert_eq!(bins[1].1, 3);
        assert!((bins[1].0 - (7.0f64 * 7.0 * 7.05).cbrt()).abs() < 1e-12);
        assert_eq!(bins[2].1, 1);
        assert!((bins[2].0 - 30.0).abs() < 1e-12);
    }

    #[test]
    fn recovers_weibulls_from_weekly_visits_with_staggered_starts() {
        // Two years of weekly visits, first visits spread over the first 78 weeks.
        let weekly = |rng: &mut StdRng| {
            let first = rng.random_range(0..78) as f64;
            (0..=(104 - first as usize))
                .map(|w| 7.0 * (first + w as f64) + rng.random::<f64>() * 0.2)
                .collect::<Vec<f64>>()
        };
        for (truth, seed) in [
            (Weibull::new(1.4, 152.2).unwrap(), 1),
            (Weibull::new(0.78, 651.1).unwrap(), 2),
        ] {
            for last_modified in [false, true] {
                let documents = population(seed, truth, 3000, last_modified, weekly);
                let fit = fit_hierarchical(&documents).expect("fit");
                assert_recovers(&fit, truth, 0.10, &format!("LM {last_modified}"));
            }
        }
    }

    #[test]
    fn recovers_from_daily_and_monthly_visits() {
        let daily = |rng: &mut StdRng| {
            let offset = rng.random::<f64>() * 0.05;
            (0..=120).map(|d| d as f64 + offset).collect::<Vec<f64>>()
        };
        let monthly = |rng: &mut StdRng| {
            let offset = rng.random::<f64>() * 30.0;
            (0..=60)
                .map(|m| 30.0 * m as f64 + offset)
                .collect::<Vec<f64>>()
        };
        let truth = Weibull::new(1.4, 152.2).unwrap();
        for last_modified in [false, true] {
            let fit =
                fit_hierarchical(&population(3, truth, 3000, last_modified, daily)).expect("daily");
            assert_recovers(&fit, truth, 0.10, &format!("daily, LM {last_modified}"));
            let fit = fit_hierarchical(&population(4, truth, 3000, last_modified, monthly))
                .expect("monthly");
            assert_recovers(&fit, truth, 0.10, &format!("monthly, LM {last_modified}"));
        }
    }

    #[test]
    fn refuses_archives_that_say_nothing() {
        let unchanged = DocumentEvidence {
            exact_changes: 0,
            exposure: 10.0,
            changed_intervals: Vec::new(),
        };
        let error = fit_hierarchical(&[unchanged.clone(), unchanged.clone()]).unwrap_err();
        assert!(error.to_string().contains("no document"), "{error}");
        assert!(fit_hierarchical(&[unchanged]).is_err());
        assert!(fit_hierarchical(&[]).is_err());
    }
}
