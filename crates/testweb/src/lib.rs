//! A Linked Data web on loopback for tests, benchmarks and the demo: many hosts served by one
//! HTTP server on `127.0.0.1` (reached through `--resolve` or as an HTTP proxy), content
//! negotiation over six syntaxes, 303s and redirects, robots.txt variants, documents that
//! change between epochs, hostile servers, a request log, a fixture web and generated webs.
//!
//! ```no_run
//! use ldwarc_testweb::{TestWebServer, Web};
//! let web = Web::fixture().unwrap();
//! let expected = web.urls_within_hops(&web.seeds, 2, 0);
//! let server = TestWebServer::start(web).unwrap();
//! // crawl with --proxy server.proxy_url(), then compare with `expected` and server.requests()
//! # drop((expected, server));
//! ```

#![warn(missing_docs)]

mod conneg;
mod fixtures;
mod generate;
mod hostile;
mod http;
mod model;
#[cfg(feature = "postgres")]
pub mod postgres;
mod reach;
mod respond;
mod server;
mod syntax;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use conneg::negotiate;
pub use fixtures::parse_hostile;
pub use generate::{GenSpec, SplitMix64};
pub use hostile::{GZIP_BOMB_INFLATED_SIZE, gzip_bomb};
pub use http::reason_phrase;
pub use model::{
    Doc, Host, Hostile, Resource, Robots, StaticFile, Term, Triple, Web, document_url, split_url,
};
pub use reach::{REACH_USER_AGENT, Reach};
pub use respond::{entity_tag, epoch_last_modified, huge_robots_text};
pub use server::{LoggedRequest, TestWebServer};
pub use syntax::Syntax;

/// Errors building a test web.
#[derive(Debug, thiserror::Error)]
pub enum TestWebError {
    /// A fixture file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A fixture file is wrong (line 0 when the whole file is).
    #[error("{file}:{line}: {message}")]
    Fixture {
        /// The file, relative to the fixture directory.
        file: String,
        /// The 1-based line, 0 for the whole file.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A URL given to the web is not usable.
    #[error("{url}: {message}")]
    Url {
        /// The URL.
        url: String,
        /// What is wrong.
        message: String,
    },
}
