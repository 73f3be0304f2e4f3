//! The on-disk archive: `<root>/warc/YYYY/MM/DD/HH/<pld>/<file>.warc.gz`, globally unique
//! file names, rotation by size and hour, crash recovery of files left open, and walking the
//! WARC tree in a deterministic order.

mod existing;
mod inputs;
mod layout;
mod recover;
mod writer;

pub use existing::{NoCaptureIndex, require_index, require_root};
pub use inputs::named_warc_files;
pub use layout::{Archive, file_name, is_warc_file_name, walk_warc_files};
pub use recover::{Recovery, find_open_files, recover_file, recover_open_files};
pub use writer::{ArchiveWriter, ArchiveWriterOptions, StoredRecord, lock_archive};

/// Suffix of a WARC file that is still being written.
pub const OPEN_SUFFIX: &str = ".open";
