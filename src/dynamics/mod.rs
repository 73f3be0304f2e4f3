//! Web dynamics: how often sources change, and how often to re-crawl them to stay current.
//!
//! This module owns the science of Brewington & Cybenko ("How dynamic is the Web?", in
//! `shared/papers/003_…`) and Cho & Garcia-Molina, as pure functions over numbers, with no I/O:
//!
//! - [`estimators`]: per-source change-rate estimates from visits (naive X/T, Cho &
//!   Garcia-Molina's bias-reduced estimator for regular visits, the maximum-likelihood
//!   estimator for irregular ones) and from Last-Modified times (ages, observed lifetimes, the
//!   unaliased rate);
//! - [`weibull`]: the Weibull distribution of mean change times and its maximum-likelihood fit;
//! - [`lifetimes`]: the fit of that Weibull to observed lifetimes with the observation-span
//!   bias correction of §5;
//! - [`currency`]: (α, β)-currency (eq. 24): the re-indexing period for a wanted α, α for a
//!   given period, and the bandwidth a uniform re-indexing needs;
//! - [`duration`]: durations written `1d`, `12h`, `8.58d`.
//!
//! Times are `f64` in one unit chosen by the caller (rates come back per that unit); the
//! command line works in seconds and prints days. The archive-facing side (reading the crawl
//! log and the index to feed these functions, `ldwarc stats`) builds on this module. See
//! `docs/dynamics.md` for the formulas and the choices made where the papers leave room.

pub mod currency;
pub mod duration;
pub mod estimators;
pub mod lifetimes;
mod numeric;
pub mod weibull;

pub use currency::{Bandwidth, bandwidth, currency_probability, page_currency, reindexing_period};
pub use duration::{format_duration, parse_duration};
pub use estimators::{
    ChangeEstimates, Interval, LastModified, LastModifiedEstimate, RateEstimate, Visit, ages,
    bias_reduced_rate, bias_reduced_ratio, irregular_rate_mle, last_modified_rate, naive_rate,
    observed_lifetimes,
};
pub use lifetimes::{
    FitMethod, LifetimeFit, ObservedLifetimes, SpanDistribution, fit_observed_lifetimes,
};
pub use weibull::Weibull;

/// Invalid input to a dynamics computation, as one line for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DynamicsError {
    /// A duration that does not parse.
    #[error("invalid duration '{text}': {why}")]
    Duration { text: String, why: String },
    /// A parameter outside its domain.
    #[error("{0}")]
    Parameter(String),
    /// Data a fit or an estimate cannot use.
    #[error("{0}")]
    Data(String),
}
