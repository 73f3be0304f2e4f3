//! Time travel over an ldwarc archive: what the archived Linked Data said at a date.
//!
//! Everything here reads an archive (its WARC files and capture index, from
//! `ldwarc-archive`) to answer for a date or between dates:
//!
//! - [`replay`]: which capture answers for a URL and a date, the graph it held, a URL's
//!   history of graph changes, dataset snapshots and diffs, WACZ export and import;
//! - [`triples`]: the versioned triple index, every document's statements over time;
//! - [`sparql`]: SPARQL queries over the dataset as it stood at a date;
//! - [`publish`]: the archive as Linked Data: VoID + DCAT 3 description, LDES;
//! - [`stats`]: change statistics of an archive's documents, fed to the estimators of
//!   `ldwarc-dynamics`, and their figures.

#![warn(missing_docs)]

pub mod publish;
pub mod replay;
pub mod sparql;
pub mod stats;
pub mod triples;
