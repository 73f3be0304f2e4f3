//! Synthetic change histories, deterministic by seed, for `ldwarc simulate --synthetic`.
//!
//! Every model draws each document's mean time between changes `t̄` from a Weibull
//! distribution (Brewington & Cybenko's model of a collection, `shared/papers/003_…` eq. 10),
//! truncated below 2 days as the paper's corpus is, and then places changes by its own rule:
//!
//! - `poisson`: a Poisson process of rate `1/t̄` (the classical model);
//! - `bursty`: activity periods, as Wikipedia articles are edited (the paper's corpus): active
//!   periods of a week on average with a change a day, quiet periods without changes, their
//!   lengths set so that the long-run mean is `t̄`;
//! - `periodic`: every `t̄` from a random phase, each change jittered by up to ±10 % of `t̄`;
//! - `mixture`: a static/volatile mixture: 60 % of documents never change, 40 % change by a
//!   Poisson process with `t̄` log-uniform between 1 day and 1 week.
//!
//! Document `i` draws from its own generator seeded from `(seed, i)`, so a document's
//! history does not depend on how many documents are generated.

use std::fmt;
use std::str::FromStr;

use super::ScheduleError;
use super::history::ChangeHistory;
use crate::Weibull;
use crate::duration::DAY;

/// A synthetic change model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntheticModel {
    /// Poisson changes, Weibull-distributed mean change times.
    Poisson,
    /// Changes in sessions (bursts), Weibull-distributed long-run mean change times.
    Bursty,
    /// Changes at a fixed period with jitter.
    Periodic,
    /// Static documents and volatile ones.
    Mixture,
}

impl SyntheticModel {
    /// Every model.
    pub const ALL: [SyntheticModel; 4] = [
        SyntheticModel::Poisson,
        SyntheticModel::Bursty,
        SyntheticModel::Periodic,
        SyntheticModel::Mixture,
    ];

    /// The model's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SyntheticModel::Poisson => "poisson",
            SyntheticModel::Bursty => "bursty",
            SyntheticModel::Periodic => "periodic",
            SyntheticModel::Mixture => "mixture",
        }
    }
}

impl fmt::Display for SyntheticModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SyntheticModel {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase();
        SyntheticModel::ALL
            .into_iter()
            .find(|m| m.name() == wanted)
            .ok_or_else(|| {
                ScheduleError::Parameter(format!(
                    "unknown synthetic model '{text}' (use poisson, bursty, periodic or mixture)"
                ))
            })
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticSpec {
    /// The model.
    pub model: SyntheticModel,
    /// Number of documents.
    pub documents: usize,
    /// Start of every history, seconds since the epoch.
    pub start: f64,
    /// Length of every history, seconds.
    pub span: f64,
    /// Seed of the generator.
    pub seed: u64,
    /// Distribution of the documents' mean change times, seconds (not used by `mixture`).
    pub mean_change_times: Weibull,
}

/// 2020-01-01T00:00:00Z, the default start of synthetic histories.
pub const DEFAULT_START: f64 = 1_577_836_800.0;

/// The default distribution of mean change times: Weibull shape 0.8, scale 100 days
/// (truncated below 2 days). Most documents change less often than weekly (92 % in the
/// paper's corpus, 93 % here), with a long tail of slow ones, so every Table 2 band is
/// populated.
pub fn default_mean_change_times() -> Weibull {
    Weibull {
        shape: 0.8,
        scale: 100.0 * DAY,
    }
}

impl SyntheticSpec {
    /// A spec with the default distribution, starting 2020-01-01.
    pub fn new(model: SyntheticModel, documents: usize, span: f64, seed: u64) -> Self {
        Self {
            model,
            documents,
            start: DEFAULT_START,
            span,
            seed,
            mean_change_times: default_mean_change_times(),
        }
    }
}

/// Shortest mean change time drawn: the Weibull is truncated below it, as the paper's
/// corpus has no document changing more often than every 2 days on average (Table 2).
const SHORTEST_MEAN: f64 = 2.0 * DAY;

/// Draws uniform and derived variates from [`SplitMix64`].
struct Draw(SplitMix64);

impl Draw {
    fn for_document(seed: u64, index: usize) -> Self {
        // Mix the index in so that neighbouring documents get unrelated streams.
        let mut mixer = SplitMix64::new(seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
        Draw(SplitMix64::new(mixer.next_u64()))
    }

    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (-self.uniform()).ln_1p()
    }

    /// A Weibull variate conditioned on being at least `floor` (inverse transform on the
    /// upper part of the distribution).
    fn weibull_above(&mut self, w: Weibull, floor: f64) -> f64 {
        let low = w.cdf(floor);
        w.quantile(low + (1.0 - low) * self.uniform()).max(floor)
    }
}

/// Generates `spec.documents` histories named `synthetic:<model>/<i>`.
pub fn generate(spec: &SyntheticSpec) -> Result<Vec<ChangeHistory>, ScheduleError> {
    if !(spec.span.is_finite() && spec.span > 0.0) {
        return Err(ScheduleError::Parameter(format!(
            "the span of synthetic histories must be positive, got {} s",
            spec.span
        )));
    }
    (0..spec.documents)
        .map(|i| {
            let mut draw = Draw::for_document(spec.seed, i);
            let changes = document_changes(spec, &mut draw);
            ChangeHistory::new(
                format!("synthetic:{}/{i}", spec.model),
                spec.start,
                spec.start + spec.span,
                changes,
            )
        })
        .collect()
}

fn document_changes(spec: &SyntheticSpec, draw: &mut Draw) -> Vec<f64> {
    let (start, end) = (spec.start, spec.start + spec.span);
    match spec.model {
        SyntheticModel::Poisson => {
            let mean = draw.weibull_above(spec.mean_change_times, SHORTEST_MEAN);
            poisson(draw, start, end, mean)
        }
        SyntheticModel::Bursty => {
            let mean = draw.weibull_above(spec.mean_change_times, SHORTEST_MEAN);
            bursty(draw, start, end, mean)
        }
        SyntheticModel::Periodic => {
            let period = draw.weibull_above(spec.mean_change_times, SHORTEST_MEAN);
            periodic(draw, start, end, period)
        }
        SyntheticModel::Mixture => {
            if draw.uniform() < 0.6 {
                Vec::new()
            } else {
                let mean = DAY * 7.0f64.powf(draw.uniform());
                poisson(draw, start, end, mean)
            }
        }
    }
}

fn poisson(draw: &mut Draw, start: f64, end: f64, mean: f64) -> Vec<f64> {
    let mut changes = Vec::new();
    let mut t = start + draw.exponential(mean);
    while t <= end {
        changes.push(t);
        t += draw.exponential(mean);
    }
    changes
}

/// Change rate of the bursty model while a document is active: one a day.
const ACTIVE_RATE: f64 = 1.0 / DAY;

/// Mean length of an active period of the bursty model.
const ACTIVE_PERIOD: f64 = 7.0 * DAY;

/// Activity periods (a two-state Markov-modulated Poisson process): active periods of mean
/// one week with a change a day on average, quiet periods with none, their lengths chosen so
/// that the long-run mean time between changes is `mean`. A document whose mean is under a
/// day is always active, at its own rate.
fn bursty(draw: &mut Draw, start: f64, end: f64, mean: f64) -> Vec<f64> {
    let active_share = (1.0 / (mean * ACTIVE_RATE)).min(1.0);
    if active_share >= 1.0 {
        return poisson(draw, start, end, mean);
    }
    let quiet_period = ACTIVE_PERIOD * (1.0 - active_share) / active_share;
    let mut changes = Vec::new();
    // Start in either state with its long-run probability (both are memoryless).
    let mut active = draw.uniform() < active_share;
    let mut t = start;
    while t <= end {
        let length = draw.exponential(if active { ACTIVE_PERIOD } else { quiet_period });
        let period_end = (t + length).min(end);
        if active {
            let mut change = t + draw.exponential(1.0 / ACTIVE_RATE);
            while change <= period_end {
                changes.push(change);
                change += draw.exponential(1.0 / ACTIVE_RATE);
            }
        }
        t += length;
        active = !active;
    }
    changes
}

fn periodic(draw: &mut Draw, start: f64, end: f64, period: f64) -> Vec<f64> {
    let mut changes = Vec::new();
    let mut slot = start + draw.uniform() * period;
    while slot <= end + period {
        let t = slot + (draw.uniform() - 0.5) * 0.2 * period;
        if t > start && t <= end {
            changes.push(t);
        }
        slot += period;
    }
    changes
}

/// splitmix64: a tiny, good-enough deterministic generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            return 0;
        }
        // The modulo bias is irrelevant at these sizes.
        (self.next_u64() % bound as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::history::Band;

    const YEAR: f64 = 365.0 * DAY;

    #[test]
    fn generation_is_deterministic_by_seed_and_independent_of_count() {
        for model in SyntheticModel::ALL {
            let a = generate(&SyntheticSpec::new(model, 20, YEAR, 7)).unwrap();
            let b = generate(&SyntheticSpec::new(model, 20, YEAR, 7)).unwrap();
            let c = generate(&SyntheticSpec::new(model, 5, YEAR, 7)).unwrap();
            let d = generate(&SyntheticSpec::new(model, 20, YEAR, 8)).unwrap();
            assert_eq!(a, b, "{model}");
            assert_eq!(a[..5], c[..], "{model}");
            assert_ne!(a, d, "{model}");
            for h in &a {
                assert!(h.changes.windows(2).all(|w| w[0] <= w[1]));
                assert!(h.changes.iter().all(|&t| t > h.start && t <= h.end));
            }
        }
    }

    #[test]
    fn poisson_mean_rates_follow_the_weibull() {
        let spec = SyntheticSpec {
            mean_change_times: Weibull {
                shape: 2.0,
                scale: 10.0 * DAY,
            },
            ..SyntheticSpec::new(SyntheticModel::Poisson, 400, 3.0 * YEAR, 1)
        };
        let histories = generate(&spec).unwrap();
        let changes: usize = histories.iter().map(|h| h.changes.len()).sum();
        // Expected changes: span × E[1/t̄] over the Weibull truncated below 2 days.
        let w = spec.mean_change_times;
        let (low, high, steps) = (SHORTEST_MEAN, 20.0 * w.scale, 200_000);
        let step = (high - low) / steps as f64;
        let integral: f64 = (0..steps)
            .map(|i| {
                let t = low + (i as f64 + 0.5) * step;
                w.pdf(t) / t * step
            })
            .sum();
        let mean_rate = integral / (1.0 - w.cdf(low));
        let expected = 400.0 * 3.0 * YEAR * mean_rate;
        let ratio = changes as f64 / expected;
        assert!((0.93..1.07).contains(&ratio), "{changes} vs {expected}");
    }

    #[test]
    fn bursty_keeps_the_mean_and_clusters_changes() {
        let spec = SyntheticSpec {
            mean_change_times: Weibull {
                shape: 50.0,
                scale: 20.0 * DAY,
            },
            ..SyntheticSpec::new(SyntheticModel::Bursty, 100, 3.0 * YEAR, 3)
        };
        let histories = generate(&spec).unwrap();
        let changes: usize = histories.iter().map(|h| h.changes.len()).sum();
        let expected = 100.0 * 3.0 * YEAR / (20.0 * DAY);
        let ratio = changes as f64 / expected;
        assert!((0.85..1.15).contains(&ratio), "{changes} vs {expected}");
        // Most gaps are within an active period (a day on average), far below 20 days.
        let gaps: Vec<f64> = histories
            .iter()
            .flat_map(|h| {
                h.changes
                    .windows(2)
                    .map(|w| w[1] - w[0])
                    .collect::<Vec<_>>()
            })
            .collect();
        let short = gaps.iter().filter(|&&g| g < 3.0 * DAY).count();
        assert!(
            short as f64 > 0.7 * gaps.len() as f64,
            "{short}/{}",
            gaps.len()
        );
    }

    #[test]
    fn periodic_and_mixture_shapes() {
        let spec = SyntheticSpec {
            mean_change_times: Weibull {
                shape: 50.0,
                scale: 10.0 * DAY,
            },
            ..SyntheticSpec::new(SyntheticModel::Periodic, 10, YEAR, 5)
        };
        for h in generate(&spec).unwrap() {
            let gaps: Vec<f64> = h.changes.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(
                gaps.iter().all(|&g| g > 7.0 * DAY && g < 13.0 * DAY),
                "{gaps:?}"
            );
        }
        let mixture = generate(&SyntheticSpec::new(SyntheticModel::Mixture, 500, YEAR, 9)).unwrap();
        let static_docs = mixture.iter().filter(|h| h.changes.is_empty()).count();
        assert!((250..350).contains(&static_docs), "{static_docs}");
        assert!(
            mixture
                .iter()
                .filter(|h| !h.changes.is_empty())
                .all(|h| matches!(
                    h.band(),
                    Band::Under2Days | Band::Days2To7 | Band::Days7To14
                ))
        );
    }

    #[test]
    fn default_population_spreads_over_the_bands() {
        let histories = generate(&SyntheticSpec::new(
            SyntheticModel::Poisson,
            2000,
            3.0 * YEAR,
            1,
        ))
        .unwrap();
        let faster_than_weekly = histories
            .iter()
            .filter(|h| h.mean_change_interval() < 7.0 * DAY)
            .count();
        let share = faster_than_weekly as f64 / histories.len() as f64;
        assert!((0.04..0.12).contains(&share), "{share}");
        for band in &Band::ALL[1..] {
            assert!(
                histories.iter().any(|h| h.band() == *band),
                "empty band {}",
                band.label()
            );
        }
        // No document is drawn faster than every 2 days.
        let fastest = histories
            .iter()
            .map(|h| h.mean_change_interval())
            .fold(f64::INFINITY, f64::min);
        assert!(fastest > DAY, "{fastest}");
    }

    #[test]
    fn names_parse() {
        for m in SyntheticModel::ALL {
            assert_eq!(m.name().parse::<SyntheticModel>().unwrap(), m);
        }
        assert!("wiki".parse::<SyntheticModel>().is_err());
    }
}
