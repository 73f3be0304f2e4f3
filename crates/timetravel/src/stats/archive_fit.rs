//! The Weibull of mean change times of an archive by the hierarchical fit
//! ([`ldwarc_dynamics::hierarchical`]): every document's observations as `ldwarc stats` reads them,
//! turned into evidence and fitted, with 95% profile-likelihood intervals. Also which fit the
//! archive's figures use ([`WeibullModel`]): this one, or the paper's pooled-lifetime fit
//! ([`super::archive_stats::WeibullStats`]).

use serde::Serialize;

use super::archive_stats::Observation;
use ldwarc_dynamics::hierarchical::{
    DocumentEvidence, HierarchicalFit, Sighting, fit_hierarchical,
};
use ldwarc_dynamics::weibull::Weibull;

/// Which fit of the Weibull of mean change times an archive's figures use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WeibullModel {
    /// Every document's own observation sequence, marginalised over the Weibull
    /// ([`ldwarc_dynamics::hierarchical`]): right however the archive was sampled.
    #[default]
    Hierarchical,
    /// The paper's §5 fit to pooled observed lifetimes with the span correction
    /// ([`ldwarc_dynamics::lifetimes`]), for reproducing the paper.
    PooledLifetimes,
}

/// The confidence level of the intervals reported.
pub const CONFIDENCE: f64 = 0.95;

/// The hierarchical fit of an archive, in days.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HierarchicalStats {
    /// Documents whose observations say something about their rate (two observations, or
    /// one with Last-Modified).
    pub documents: usize,
    /// Of those, documents with at least one change timed by Last-Modified.
    pub last_modified_documents: usize,
    /// Changes whose time Last-Modified gave (the first visit's age included).
    pub timed_changes: u64,
    /// Intervals between visits that saw an RDF change at an unknown time.
    pub untimed_changes: u64,
    /// The fitted shape `k`.
    pub shape: f64,
    /// 95% profile-likelihood interval (`null` for an end the data do not bound).
    pub shape_interval: [f64; 2],
    /// The fitted scale `θ`, days.
    pub scale_days: f64,
    /// Its 95% profile-likelihood interval, days.
    pub scale_interval_days: [f64; 2],
    /// The mean of the fitted Weibull (the mean change time of a typical document), days.
    pub mean_days: f64,
    /// Its 95% profile-likelihood interval, days.
    pub mean_interval_days: [f64; 2],
    /// The median of the fitted Weibull, days.
    pub median_days: f64,
    /// Its 95% profile-likelihood interval, days.
    pub median_interval_days: [f64; 2],
    /// The level of the intervals (0.95).
    pub confidence: f64,
    /// Whether the maximisation met its tolerance.
    pub converged: bool,
    /// The fit itself, scale in days.
    #[serde(skip)]
    pub fit: HierarchicalFit,
}

impl HierarchicalStats {
    /// The fitted Weibull, scale in days.
    pub fn weibull(&self) -> Weibull {
        self.fit.weibull
    }
}

/// The sightings of one document's observations (RDF-level changes).
pub fn sightings(observations: &[Observation]) -> Vec<Sighting> {
    observations
        .iter()
        .map(|o| Sighting {
            at: o.at,
            changed: o.rdf_changed,
            last_modified: o.last_modified,
        })
        .collect()
}

/// Fits the Weibull of mean change times to every document's observations (days).
pub fn hierarchical_stats(
    observed: &[(String, Vec<Observation>)],
) -> Result<HierarchicalStats, String> {
    let evidence: Vec<DocumentEvidence> = observed
        .iter()
        .map(|(_, observations)| DocumentEvidence::from_sightings(&sightings(observations)))
        .collect();
    let fit = fit_hierarchical(&evidence).map_err(|e| e.to_string())?;
    let pair = |(lo, hi): (f64, f64)| [lo, hi];
    Ok(HierarchicalStats {
        documents: fit.documents,
        last_modified_documents: evidence.iter().filter(|e| e.exact_changes > 0).count(),
        timed_changes: fit.exact_changes,
        untimed_changes: fit.changed_intervals,
        shape: fit.weibull.shape,
        shape_interval: pair(fit.shape_interval),
        scale_days: fit.weibull.scale,
        scale_interval_days: pair(fit.scale_interval),
        mean_days: fit.weibull.mean(),
        mean_interval_days: pair(fit.interval_of(|w| w.mean())),
        median_days: fit.weibull.median(),
        median_interval_days: pair(fit.interval_of(|w| w.median())),
        confidence: CONFIDENCE,
        converged: fit.converged,
        fit,
    })
}

impl super::archive_stats::ArchiveStats {
    /// The Weibull of mean change times (scale in days) of the chosen fit, or why there is
    /// none.
    pub fn mean_change_times(&self) -> Result<Weibull, String> {
        match self.model {
            WeibullModel::Hierarchical => match (&self.hierarchical, &self.hierarchical_error) {
                (Some(fit), _) => Ok(fit.weibull()),
                (None, why) => Err(why.clone().unwrap_or_else(|| "no documents".to_string())),
            },
            WeibullModel::PooledLifetimes => match (&self.weibull, &self.weibull_error) {
                (Some(fit), _) => Ok(fit.weibull),
                (None, why) => Err(why.clone().unwrap_or_else(|| "no documents".to_string())),
            },
        }
    }
}
