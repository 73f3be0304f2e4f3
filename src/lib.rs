//! ldwarc: archive the Web of Linked Data over time.
//!
//! The WARC files are the source of truth; everything else is derived from them. See
//! `docs/` for the user guide and the format notes.

pub mod archive;
pub mod cli;
pub mod crawl;
pub mod demo;
pub mod dynamics;
pub mod index;
pub mod monitor;
pub mod rdf;
pub mod replay;
pub mod schedule;
pub mod serve;
pub mod store;
pub mod testweb;
pub mod warc;
