//! Re-crawl scheduling: when to download each URL again, how well a strategy would have done
//! on known change histories, and how long a crawl of a set of URLs will take.
//!
//! Pure computation over numbers, no I/O (the `ldwarc monitor` loop stores [`ScheduleState`]
//! as JSON in the state store and calls in here):
//!
//! - [`strategy`]: the per-URL [`ScheduleState`] and the re-scheduling strategies of Umbrich,
//!   Mrzelj & Polleres §4.1 (`fix`, `dyn`, `window`, `state-1`, `state-2`, `week`, `gold`) and
//!   the adaptive scheme of the DyLDO observatory §6 (`dyldo`);
//! - [`freshness`]: our own strategy, Cho & Garcia-Molina's bias-reduced change-rate estimate
//!   per URL and the freshness-optimal allocation of a download budget, plus the per-cycle
//!   planner [`plan_cycle`];
//! - [`history`]: change histories (the `--histories` JSON-lines format) and the change-rate
//!   bands of the paper's Table 2;
//! - [`synthetic`]: change histories drawn from models, deterministic by seed;
//! - [`simulate`](mod@simulate): replays histories against strategies and measures recall, precision and
//!   freshness per band and over time;
//! - [`crawl_time`]: crawl-time estimation, the paper's first-fit bin packing (§5) and a
//!   simulation of our crawler's politeness rules;
//! - [`nodes`]: the same across crawler nodes (leased or rendezvous-partitioned domains)
//!   and how many nodes a cycle needs.
//!
//! Times are `f64` seconds (instants: since the Unix epoch, UTC). See `docs/scheduling.md`
//! for the rules, the formulas and the choices made where the papers leave room.

pub mod crawl_time;
pub mod freshness;
pub mod history;
pub mod nodes;
pub mod simulate;
pub mod strategy;
pub mod synthetic;

pub use crawl_time::{
    CrawlTimeEstimate, PaperEstimate, PldWorkload, estimate_crawl_rounds, estimate_crawl_time,
    first_fit_estimate, lower_bound, simulate_politeness, simulate_rounds,
};
pub use freshness::{allocate_budget, optimal_frequencies, plan_budget_cycle, plan_cycle};
pub use history::{Band, ChangeHistory, read_histories, write_histories};
pub use nodes::{ClusterEstimate, NodePlan, estimate_on_nodes, plan_nodes, rendezvous_owners};
pub use simulate::{SimulationOptions, SimulationReport, StrategyOutcome, Tally, simulate};
pub use strategy::{Policy, ScheduleState, Strategy};
pub use synthetic::{SplitMix64, SyntheticModel, SyntheticSpec, generate};

use crate::duration::DAY;

/// A month as the strategies count it: 30 days.
pub const MONTH: f64 = 30.0 * DAY;

/// Invalid input to a scheduling computation, as one line for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScheduleError {
    /// A parameter outside its domain (a name the user can act on is in the message).
    #[error("{0}")]
    Parameter(String),
    /// A change history (or PLD workload) line that cannot be read: `file:line: why`.
    #[error("{file}:{line}: {why}")]
    Input {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
}
