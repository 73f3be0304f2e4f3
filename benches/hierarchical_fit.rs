//! How long the hierarchical fit of the Weibull of mean change times takes
//! (`ldwarc_dynamics::fit_hierarchical`): 100,000 synthetic documents from Weibull(1.4,
//! 152.2 days) under each sampling of the validation tests, with and without Last-Modified.
//! Prints, per case, the time to turn the observations into evidence and the time of the fit
//! (maximum and both 95% profile-likelihood intervals), and the fit itself.
//!
//! `cargo bench --bench hierarchical_fit` (set `LDWARC_FIT_DOCUMENTS` for another size).

#[path = "../tests/support/change_population.rs"]
mod change_population;

use std::time::Instant;

use change_population::{Sampling, population};
use ldwarc_dynamics::{DocumentEvidence, fit_hierarchical};

fn main() {
    let documents: usize = std::env::var("LDWARC_FIT_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("hierarchical fit, {documents} documents, Weibull(1.4, 152.2 d), {threads} threads");
    let mut slowest: f64 = 0.0;
    for sampling in [
        Sampling::WeeklyTwoYearsStaggered,
        Sampling::DailyFourMonths,
        Sampling::MonthlyFiveYears,
    ] {
        let population = population(7, 1.4, 152.2, documents, sampling);
        for last_modified in [false, true] {
            let start = Instant::now();
            let evidence: Vec<DocumentEvidence> = population
                .iter()
                .map(|d| DocumentEvidence::from_sightings(&d.sightings(last_modified)))
                .collect();
            let prepared = start.elapsed().as_secs_f64();
            let fit = fit_hierarchical(&evidence).expect("fit");
            let total = start.elapsed().as_secs_f64();
            slowest = slowest.max(total);
            println!(
                "{:<38} LM {:<5}  evidence {:>6.3} s  fit {:>6.3} s  total {:>6.3} s  \
                 shape {:.4} [{:.4}, {:.4}]  scale {:.2} d [{:.2}, {:.2}]  ({} evaluations, \
                 grid step {})",
                sampling.name(),
                last_modified,
                prepared,
                total - prepared,
                total,
                fit.weibull.shape,
                fit.shape_interval.0,
                fit.shape_interval.1,
                fit.weibull.scale,
                fit.scale_interval.0,
                fit.scale_interval.1,
                fit.evaluations,
                fit.grid_step
            );
        }
    }
    println!("slowest case: {slowest:.3} s");
}
