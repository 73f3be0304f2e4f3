//! The ldwarc archive: everything derived from the WARC files of a root, and the state that
//! drives re-crawling.
//!
//! The WARC files are the source of truth; the capture index, snapshots, statistics and
//! schedules are derived from them and can be rebuilt at any time. Every read path opens the
//! archive without writing to it.

pub mod archive;
pub mod arguments;
pub mod index;
pub mod output_file;
pub mod parallel;
pub mod size;
pub mod stable_hash;
