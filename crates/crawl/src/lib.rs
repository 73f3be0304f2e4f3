//! The crawler and the observatory: frontier, per-PLD queues, rounds, robots.txt, politeness, the HTTP
//! fetcher, and the archiver that turns every fetch into WARC records, index entries and
//! crawl-log rows.

pub mod archived;
pub mod archiver;
mod clock;
mod crawler;
pub mod failures;
pub mod frontier;
pub mod http;
mod lease_deadline;
pub mod monitor;
mod options;
pub mod politeness;
pub mod robots;
mod robots_hops;
pub mod settings;
mod shared;

pub use crawler::{
    CrawlError, CrawlProgress, CrawlSummary, DroppedUrls, archiver_queue_len, crawl, normalize,
    peak_rss,
};
pub use options::{
    CrawlOptions, DEFAULT_ACCEPT_ENCODING, DEFAULT_USER_AGENT, JoinCrawl, MAX_SECONDS,
    check_node_name, seconds,
};
pub use settings::{ByteSize, CrawlDuration, CrawlSettings, FetchSettings, SettingError};
