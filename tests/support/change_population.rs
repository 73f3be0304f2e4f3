//! Synthetic documents drawn from a known Weibull population of mean change times, seen under
//! a crawl's sampling: for the validation tests of the Weibull fits (`tests/stats_fit.rs`) and
//! the fit benchmark (`benches/hierarchical_fit.rs`, which includes this file by path).
//!
//! Every document gets a mean change time `t̄` from Weibull(shape, scale) and changes by a
//! stationary Poisson process of rate `1/t̄`. Only what a crawler sees is drawn: per interval
//! between two visits, whether a change happened (probability `1 − e^{−d/t̄}`) and, if so, the
//! time of the latest one (the server's `Last-Modified`); at the first visit, the age of the
//! current version (exponential with mean `t̄`). That is exact for a Poisson process and costs
//! nothing for documents that change far faster than they are visited.
#![allow(dead_code)]

use ldwarc_dynamics::Sighting;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// How the crawler visits, in days from the first crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Every day for 4 months (121 visits), all documents from the first day.
    DailyFourMonths,
    /// Every week for 2 years; each document's first visit falls in one of the first 78
    /// weeks (a growing crawl), so spans run from 26 weeks to 2 years.
    WeeklyTwoYearsStaggered,
    /// Every 30 days for 5 years (61 visits).
    MonthlyFiveYears,
}

impl Sampling {
    pub fn name(self) -> &'static str {
        match self {
            Sampling::DailyFourMonths => "daily for 4 months",
            Sampling::WeeklyTwoYearsStaggered => "weekly for 2 years, staggered starts",
            Sampling::MonthlyFiveYears => "monthly for 5 years",
        }
    }

    /// The visit times (days) of one document: whole days of the schedule, plus the
    /// document's place in the crawl (the same minute offset at every visit).
    pub fn visits(self, rng: &mut StdRng, offset_days: f64) -> Vec<f64> {
        let (interval, count, first) = match self {
            Sampling::DailyFourMonths => (1.0, 121, 0),
            Sampling::WeeklyTwoYearsStaggered => {
                let first = rng.random_range(0..78);
                (7.0, 105 - first, first)
            }
            Sampling::MonthlyFiveYears => (30.0, 61, 0),
        };
        (0..count)
            .map(|i| interval * (first + i) as f64 + offset_days)
            .collect()
    }
}

/// One visit of a synthetic document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticVisit {
    /// Days from the first crawl.
    pub at: f64,
    /// A change happened since the previous visit.
    pub changed: bool,
    /// Changes seen so far (the version served).
    pub version: u32,
    /// The latest change before the visit, days (what Last-Modified says).
    pub last_modified: f64,
}

/// One synthetic document.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticDocument {
    /// Its true mean change time, days.
    pub mean_days: f64,
    pub visits: Vec<SyntheticVisit>,
}

impl SyntheticDocument {
    /// What the fits take, with or without Last-Modified.
    pub fn sightings(&self, with_last_modified: bool) -> Vec<Sighting> {
        self.visits
            .iter()
            .map(|v| Sighting {
                at: v.at,
                changed: v.changed,
                last_modified: with_last_modified.then_some(v.last_modified),
            })
            .collect()
    }
}

/// `documents` documents from Weibull(shape, scale days) under `sampling`, reproducibly.
pub fn population(
    seed: u64,
    shape: f64,
    scale: f64,
    documents: usize,
    sampling: Sampling,
) -> Vec<SyntheticDocument> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..documents)
        .map(|i| {
            let u: f64 = rng.random();
            let mean = scale * (-(1.0 - u).ln()).powf(1.0 / shape);
            // Documents are fetched one after the other through the crawl's first hours.
            let offset = (i % 1440) as f64 / 1440.0 * 0.25;
            let times = sampling.visits(&mut rng, offset);
            SyntheticDocument {
                mean_days: mean,
                visits: observe(&mut rng, mean, &times),
            }
        })
        .collect()
}

fn observe(rng: &mut StdRng, mean: f64, times: &[f64]) -> Vec<SyntheticVisit> {
    let rate = 1.0 / mean;
    let mut latest = times[0] + (1.0 - rng.random::<f64>()).ln() * mean;
    let mut version = 0;
    let mut visits = Vec::with_capacity(times.len());
    for (j, &at) in times.iter().enumerate() {
        let mut changed = false;
        if j > 0 {
            let none = (-rate * (at - times[j - 1])).exp();
            if rng.random::<f64>() >= none {
                changed = true;
                version += 1;
                let u: f64 = rng.random();
                latest = at + (1.0 - u * (1.0 - none)).ln() * mean;
            }
        }
        visits.push(SyntheticVisit {
            at,
            changed,
            version,
            last_modified: latest,
        });
    }
    visits
}
