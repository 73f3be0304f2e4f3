//! `ldwarc monitor`, the observatory loop (DyLDO §6, \[UMP\] §3–§5): a kernel of seed URLs,
//! always monitored, plus an adaptive segment of the documents within a hop limit of it; each
//! cycle downloads the URLs the re-crawl strategy says are due, through the crawler (same
//! politeness, same WARC output), detects changes by bytes and by canonical RDF graph, lets the
//! strategy set each URL's next interval, and logs the cycle's crawl-time estimate beside its
//! actual time.
//!
//! - [`cycle`]: one cycle, and the loop of cycles;
//! - [`table`]: the schedule, observation and cycle tables in the state store;
//! - [`pg_table`]: the same tables in a PostgreSQL database shared by the monitors of several
//!   nodes (`--state postgres://…`), and the cycle lock of every node;
//! - [`segment`]: the kernel's neighbourhood within the hop limit;
//! - [`detect`]: byte- and graph-level change detection;
//! - [`estimate`]: the crawl-time estimate of a cycle;
//! - [`truth`]: recall and precision against ground-truth change histories;
//! - [`lock`]: the lock that keeps cycles from overlapping.
//!
//! `docs/scheduling.md` ("Monitor") explains the choices.

pub mod cycle;
pub mod detect;
pub mod estimate;
pub mod lock;
pub mod pg_table;
pub mod segment;
pub mod table;
pub mod truth;

pub use cycle::{
    CycleReport, MonitorEvent, MonitorOptions, UrlReport, run_cycle, run_loop, score_truth,
};
pub use estimate::CycleEstimate;
pub use lock::CycleLock;
pub use pg_table::PgMonitorTable;
pub use table::{CycleRow, Member, MonitorTable, MonitorTables, Observation, TimedFetch};
pub use truth::TruthScore;

/// Why a monitor cycle could not run, as one line for the user.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MonitorError {
    /// Another cycle holds the lock (on this archive, or on the shared state store).
    #[error("{0}")]
    Locked(String),
    /// Bad options (no kernel, a budget missing).
    #[error("{0}")]
    Options(String),
    /// The monitor's tables could not be read or written.
    #[error("{0}")]
    Store(String),
    /// The crawl of the due URLs failed.
    #[error("crawl: {0}")]
    Crawl(String),
    /// A file could not be used.
    #[error("{0}")]
    Io(String),
}
