//! Web dynamics: how often sources change, and how often to re-crawl them to stay current.
//!
//! This crate owns the science of Brewington & Cybenko ("How dynamic is the Web?", in
//! `shared/papers/003_…`) and Cho & Garcia-Molina, as pure functions over numbers, with no I/O:
//!
//! - [`estimators`]: per-source change-rate estimates from visits (naive X/T, Cho &
//!   Garcia-Molina's bias-reduced estimator for regular visits, the maximum-likelihood
//!   estimator for irregular ones) and from Last-Modified times (ages, observed lifetimes, the
//!   unaliased rate);
//! - [`weibull`]: the Weibull distribution of mean change times and its maximum-likelihood fit;
//! - [`lifetimes`]: the fit of that Weibull to observed lifetimes with the observation-span
//!   bias correction of §5 (the paper's method);
//! - [`hierarchical`]: the fit of that Weibull to every document's own observation sequence
//!   (a marginal likelihood over the Weibull), right however the archive was sampled;
//! - [`currency`]: (α, β)-currency (eq. 24): the re-indexing period for a wanted α, α for a
//!   given period, and the bandwidth a uniform re-indexing needs;
//! - [`adaptive`]: the same for adaptive schedules, each URL at its own interval;
//! - [`duration`]: durations written `1d`, `12h`, `8.58d`;
//! - [`snapshots`]: which crawl (snapshot) a capture belongs to;
//! - [`truth`]: known change rates and the median relative error of the estimates;
//! - [`schedule`]: re-crawl scheduling built on these estimates (strategies, freshness,
//!   simulation, crawl-time estimation).
//!
//! Times are `f64` in one unit chosen by the caller (rates come back per that unit); the
//! command line works in seconds and prints days. The archive-facing side, the one part
//! with I/O (statistics read back from an archive, and their figures), lives in
//! `ldwarc-timetravel`, which feeds an archive's documents to these functions. See
//! `docs/dynamics.md` for the formulas and the choices made where the papers leave room.

#![warn(missing_docs)]

pub mod adaptive;
pub mod currency;
pub mod duration;
pub mod estimators;
pub mod hierarchical;
pub mod lifetimes;
mod numeric;
pub mod schedule;
pub mod snapshots;
pub mod truth;
pub mod weibull;

pub use adaptive::{
    AdaptiveLoad, IntervalBounds, UrlLoad, budget_schedule, page_period, per_url_schedule,
};
pub use currency::{Bandwidth, bandwidth, currency_probability, page_currency, reindexing_period};
pub use duration::{format_duration, parse_duration, parse_flag_duration};
pub use estimators::{
    ChangeEstimates, Interval, LastModified, LastModifiedEstimate, RateEstimate, Visit, ages,
    bias_reduced_rate, bias_reduced_ratio, irregular_rate_mle, last_modified_rate, naive_rate,
    observed_lifetimes,
};
pub use hierarchical::{DocumentEvidence, HierarchicalFit, Sighting, fit_hierarchical};
pub use lifetimes::{
    FitMethod, LifetimeFit, ObservedLifetimes, SpanDistribution, fit_observed_lifetimes,
};
pub use snapshots::CrawlWindow;
pub use truth::{TruthComparison, TruthRates, compare_with_truth, parse_truth};
pub use weibull::Weibull;

/// Invalid input to a dynamics computation, as one line for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DynamicsError {
    /// A duration that does not parse.
    #[error("invalid duration '{text}': {why}")]
    Duration {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A bare number that is no duration (negative, or not finite).
    #[error("'{text}' is not a duration like 250ms, 2s, 36h or 2w")]
    NotADuration {
        /// The text as given.
        text: String,
    },
    /// A duration beyond [`duration::MAX_FLAG_SECONDS`], where timers and dates overflow.
    #[error("'{text}' is longer than 100 years")]
    DurationTooLong {
        /// The text as given.
        text: String,
    },
    /// A parameter outside its domain.
    #[error("{0}")]
    Parameter(String),
    /// Data a fit or an estimate cannot use.
    #[error("{0}")]
    Data(String),
}
