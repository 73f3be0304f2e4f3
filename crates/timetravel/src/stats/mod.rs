//! Web dynamics read from an archive: every document URL of a scope read back through the
//! replay API and fed to the estimators and fits of `ldwarc-dynamics` (`ldwarc stats`), with
//! its figures in [`plots`].

pub mod archive_fit;
pub mod archive_stats;
pub mod plots;

pub use archive_fit::{HierarchicalStats, WeibullModel};
pub use archive_stats::{
    ArchiveStats, LifetimeSource, PldStats, SnapshotStats, StatsOptions, UrlStats, WeibullStats,
    archive_stats,
};
pub use plots::write_plots;
