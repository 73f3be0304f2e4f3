//! Whether a triple index still answers for its archive: it records the state of the capture
//! index it was built from (the stamp), and a reader compares that with the capture index it
//! sees. New captures indexed since make the triple index stale: readers then replay the
//! WARC files (`sparql`) or refuse to answer from it (`when`, `/tpf`), never answer from it
//! silently.

use std::io;
use std::path::Path;

use ldwarc_archive::index::CaptureIndex;

use super::store::{TripleIndex, index_path};

/// The stamp of a capture index: its number of captures and, per WARC file, how far it is
/// indexed and the size it had (the commit's checkpoint). An index run that finds nothing
/// new leaves it as it was; any capture added changes it.
pub fn capture_stamp(index: &CaptureIndex) -> io::Result<String> {
    let checkpoint = index.checkpoint()?;
    let mut stamp = format!("captures={}", index.len());
    for (file, mark) in &checkpoint.files {
        stamp.push_str(&format!(";{file}@{}/{}", mark.end, mark.size));
    }
    Ok(stamp)
}

/// How a root's triple index stands against its capture index.
#[derive(Debug)]
pub enum Currency {
    /// No triple index was built.
    Missing,
    /// Built from an older state of the capture index.
    Stale(TripleIndex),
    /// Built from the capture index as it is.
    Current(TripleIndex),
}

impl Currency {
    /// The message telling why the index cannot answer and what to run, when it cannot.
    pub fn refusal(&self, root: &Path) -> Option<String> {
        let path = index_path(root);
        match self {
            Currency::Current(_) => None,
            Currency::Missing => Some(format!(
                "{}: no triple index (run `ldwarc index --triples --root {}` first)",
                path.display(),
                root.display()
            )),
            Currency::Stale(_) => Some(stale_message(root)),
        }
    }
}

/// Why a stale triple index of `root` does not answer, and what to run.
pub fn stale_message(root: &Path) -> String {
    format!(
        "{}: the triple index is older than the capture index (captures were indexed since it was built); run `ldwarc index --triples --root {}`",
        index_path(root).display(),
        root.display()
    )
}

/// Opens the triple index of `root` and compares it with `capture_index` (the root's own
/// capture index). Reads only.
pub fn triple_index_currency(root: &Path, capture_index: &CaptureIndex) -> io::Result<Currency> {
    let Some(index) = TripleIndex::open_if_built(root)? else {
        return Ok(Currency::Missing);
    };
    if index.is_current_for(capture_index)? {
        Ok(Currency::Current(index))
    } else {
        Ok(Currency::Stale(index))
    }
}

/// Opens the triple index of `root` when it is current; otherwise an error naming the file
/// and the command that builds or updates it.
pub fn open_current(root: &Path) -> io::Result<TripleIndex> {
    ldwarc_archive::archive::require_root(root)?;
    let capture_index = CaptureIndex::open_read_only(&root.join("index"))?;
    match triple_index_currency(root, &capture_index)? {
        Currency::Current(index) => Ok(index),
        other => Err(io::Error::new(
            io::ErrorKind::NotFound,
            other.refusal(root).unwrap_or_default(),
        )),
    }
}

impl TripleIndex {
    /// Whether this index was built from `capture_index` as it is now.
    pub fn is_current_for(&self, capture_index: &CaptureIndex) -> io::Result<bool> {
        Ok(self.stamp == capture_stamp(capture_index)?)
    }
}
