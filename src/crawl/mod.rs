//! The crawler: frontier, per-PLD queues, rounds, robots.txt, politeness, the HTTP
//! fetcher, and the archiver that turns every fetch into WARC records, index entries and
//! crawl-log rows.

pub mod archived;
pub mod archiver;
mod clock;
mod crawler;
pub mod frontier;
pub mod http;
mod options;
pub mod robots;
mod robots_hops;
mod shared;

pub use crawler::{CrawlError, CrawlProgress, CrawlSummary, crawl, normalize, peak_rss};
pub use options::{
    CrawlConfig, CrawlOptions, DEFAULT_ACCEPT_ENCODING, DEFAULT_USER_AGENT, JoinCrawl,
    check_node_name, parse_seconds, seconds,
};
