//! Whether a triple index still answers for its archive: it records the state of the capture
//! index it was built from (the stamp), and a reader compares that with the capture index it
//! sees. New captures indexed since make the triple index stale: readers then replay the
//! WARC files (`sparql`) or refuse to answer from it (`when`, `/tpf`), never answer from it
//! silently.

use std::io;
use std::path::Path;

use ldwarc_archive::index::CaptureIndex;

use super::store::TripleIndex;

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
    /// Why the index cannot answer, when it cannot (see [`Unavailable`]).
    pub fn refusal(&self) -> Option<Unavailable> {
        match self {
            Currency::Current(_) => None,
            Currency::Missing => Some(Unavailable::Missing),
            Currency::Stale(_) => Some(Unavailable::Stale),
        }
    }
}

/// Why a root's triple index cannot answer. The message says what is missing and names
/// no file and no command: a server shows it to its clients as it is, and the command line
/// adds the root and the command that builds the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// No triple index was built.
    Missing,
    /// Captures were indexed since the triple index was built: it would miss them.
    Stale,
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unavailable::Missing => "no triple index was built for this archive",
            Unavailable::Stale => {
                "the triple index is older than the capture index (captures were indexed since it was built)"
            }
        })
    }
}

impl std::error::Error for Unavailable {}

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

/// Opens the triple index of `root` when it is current; otherwise an error of kind
/// `NotFound` whose inner error is a [`RootUnavailable`] (the message names the root, not
/// the command that builds the index: callers add that).
pub fn open_current(root: &Path) -> io::Result<TripleIndex> {
    ldwarc_archive::archive::require_root(root)?;
    let capture_index = CaptureIndex::open_read_only(&root.join("index"))?;
    let currency = triple_index_currency(root, &capture_index)?;
    let reason = match currency {
        Currency::Current(index) => return Ok(index),
        Currency::Missing => Unavailable::Missing,
        Currency::Stale(_) => Unavailable::Stale,
    };
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        RootUnavailable {
            root: root.display().to_string(),
            reason,
        },
    ))
}

/// A root whose triple index cannot answer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootUnavailable {
    /// The root as given.
    pub root: String,
    /// Why.
    pub reason: Unavailable,
}

impl std::fmt::Display for RootUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.root, self.reason)
    }
}

impl std::error::Error for RootUnavailable {}

impl TripleIndex {
    /// Whether this index was built from `capture_index` as it is now.
    pub fn is_current_for(&self, capture_index: &CaptureIndex) -> io::Result<bool> {
        Ok(self.stamp == capture_stamp(capture_index)?)
    }
}
