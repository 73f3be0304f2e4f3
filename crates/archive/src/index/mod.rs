//! The capture index: captures read from WARC records, the tantivy index under
//! `<root>/index` with its incremental checkpoint, several roots' indexes merged as one,
//! CDXJ/CDX-11 export, and CDX queries.

pub mod capture;
pub mod cdxj;
pub mod export;
pub mod indexer;
pub mod merged;
pub mod parquet;
mod pattern_cache;
mod permissions;
mod post_key;
pub mod query;
pub mod query_check;
mod read_only;
mod record_codec;
pub mod store;
#[cfg(test)]
mod test_indexes;
pub mod unaddressable;
pub mod url_form;
pub mod verify;
pub mod zipnum;

pub use capture::{Capture, RecordLocation};
pub use indexer::{IndexOptions, IndexRun, update_index};
pub use merged::{CaptureSource, MergedIndex};
pub use store::{CaptureIndex, Checkpoint};
