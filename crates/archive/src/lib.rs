//! The ldwarc archive and its capture index: the WARC files of a root and the index derived
//! from them.
//!
//! The WARC files are the source of truth; [`archive`] lays them out, writes them and
//! recovers files left open by a crash; [`index`] reads every record into the capture index
//! (tantivy, with its incremental checkpoint), merges several roots' indexes, answers CDX
//! queries and exports CDXJ, CDX-11 and ZipNum. The index can be rebuilt from the WARC files
//! at any time, and every read path opens the archive without writing to it.

#![warn(missing_docs)]

pub mod archive;
#[cfg(feature = "cli")]
pub mod arguments;
pub mod index;
pub mod output_file;
pub mod parallel;
pub mod size;
pub mod stable_hash;
