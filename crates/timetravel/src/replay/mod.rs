//! Replay: which capture answers for a URL and a date (revisits resolved to their original
//! payload, archived redirects followed), the graph of that capture, a URL's history of graph
//! changes, dataset snapshots as of a date, and diffs between dates. The CLI and `serve` call
//! these.

pub(crate) mod dataset;
mod date;
mod error;
mod history;
mod record;
mod resolve;
mod twins;
pub mod wacz;
mod wacz_import;

pub use dataset::{
    DatasetDiffSummary, DocumentChange, DocumentDiff, Scope, SnapshotFormat, SnapshotSummary,
    diff_dataset, snapshot, visit_documents,
};
pub use date::ReplayDate;
pub use error::ReplayError;
pub use history::{HistoryChange, HistoryEntry, history, history_until};
pub use record::{ArchivedResponse, OpenWarcFiles, read_response, record_type_at, warc_path};
pub use resolve::{
    Document, MAX_PAYLOAD_BYTES, MAX_REDIRECTS, Pick, ReplayArchive, Resolution, is_replayable,
    pick_capture, redirect_target, sort_by_time,
};
pub use twins::own_captures;
