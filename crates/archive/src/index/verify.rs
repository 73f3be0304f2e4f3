//! `ldwarc index --verify`: proves the index and the WARC files agree.

use ldwarc_warc::RecordType;
use std::collections::BTreeMap;
use std::io;

use super::capture::{Capture, read_captures};
use super::store::CaptureIndex;
use crate::archive::{Archive, walk_warc_files};

/// One disagreement between the index and the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discrepancy {
    /// A capture in the files that the index lacks.
    Missing {
        /// The WARC file, relative to the archive's `warc/` folder.
        filename: String,
        /// The record's byte offset in the file.
        offset: u64,
        /// The captured URL.
        url: String,
    },
    /// An index entry with no such record in the files.
    Stale {
        /// The WARC file, relative to the archive's `warc/` folder.
        filename: String,
        /// The record's byte offset in the file.
        offset: u64,
        /// The captured URL.
        url: String,
    },
    /// An index entry whose fields differ from the record's.
    Different {
        /// The WARC file, relative to the archive's `warc/` folder.
        filename: String,
        /// The record's byte offset in the file.
        offset: u64,
        /// The captured URL.
        url: String,
    },
    /// A revisit whose original is not found.
    UnresolvedRevisit {
        /// The WARC file, relative to the archive's `warc/` folder.
        filename: String,
        /// The record's byte offset in the file.
        offset: u64,
        /// The captured URL.
        url: String,
    },
    /// A file whose records cannot be addressed (gzipped as one whole stream), so none of
    /// them is in the index: `ldwarc index` skips it on purpose, so this is a note, not a
    /// disagreement ([`Discrepancy::is_note`]).
    NotAddressable {
        /// The WARC file, relative to the archive's `warc/` folder.
        filename: String,
    },
}

impl Discrepancy {
    /// Whether this is a note about what `ldwarc index` leaves out on purpose (by the same
    /// rule verification applies) rather than a disagreement: it does not fail the check.
    pub fn is_note(&self) -> bool {
        matches!(self, Self::NotAddressable { .. })
    }
}

impl std::fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing {
                filename,
                offset,
                url,
            } => write!(f, "warc/{filename}:{offset}: not in the index: {url}"),
            Self::Stale {
                filename,
                offset,
                url,
            } => write!(
                f,
                "warc/{filename}:{offset}: indexed but no such record: {url}"
            ),
            Self::Different {
                filename,
                offset,
                url,
            } => write!(
                f,
                "warc/{filename}:{offset}: index entry differs from the record: {url}"
            ),
            Self::NotAddressable { filename } => write!(
                f,
                "note: warc/{filename}: not indexed, as indexing leaves it out: {}",
                super::unaddressable::whole_stream_error().message
            ),
            Self::UnresolvedRevisit {
                filename,
                offset,
                url,
            } => {
                write!(
                    f,
                    "warc/{filename}:{offset}: revisit of {url} has no original in the archive"
                )
            }
        }
    }
}

/// Compares every capture in the files with the index.
pub fn verify_index(archive: &Archive) -> io::Result<(u64, Vec<Discrepancy>)> {
    let index = CaptureIndex::open_read_only(&archive.index_dir())?;
    let mut indexed: BTreeMap<(String, u64), Capture> = BTreeMap::new();
    index.scan_range("", None, |capture| {
        indexed.insert((capture.filename.clone(), capture.offset), capture);
    })?;
    let warc_dir = archive.warc_dir();
    let files = if warc_dir.exists() {
        walk_warc_files(&warc_dir)?
    } else {
        Vec::new()
    };
    let mut problems = Vec::new();
    let mut checked = 0u64;
    for path in files {
        let name = Archive::new(&warc_dir).relative(&path);
        let mut in_file = Vec::new();
        let mut whole_stream = false;
        read_captures(
            &path,
            &name,
            0,
            |c| in_file.push(c),
            |e| whole_stream |= super::unaddressable::is_whole_stream_error(&e),
        )?;
        if whole_stream {
            problems.push(Discrepancy::NotAddressable {
                filename: name.clone(),
            });
        }
        for capture in in_file {
            checked += 1;
            let key = (capture.filename.clone(), capture.offset);
            match indexed.remove(&key) {
                None => problems.push(Discrepancy::Missing {
                    filename: key.0,
                    offset: key.1,
                    url: capture.url,
                }),
                Some(entry) => {
                    let mut comparable = entry.clone();
                    comparable.original = None;
                    if comparable != capture {
                        problems.push(Discrepancy::Different {
                            filename: key.0,
                            offset: key.1,
                            url: capture.url,
                        });
                    } else if entry.record_type == RecordType::Revisit
                        && !original_exists(&index, &entry)?
                    {
                        problems.push(Discrepancy::UnresolvedRevisit {
                            filename: key.0,
                            offset: key.1,
                            url: entry.url,
                        });
                    }
                }
            }
        }
    }
    for ((filename, offset), capture) in indexed {
        problems.push(Discrepancy::Stale {
            filename,
            offset,
            url: capture.url,
        });
    }
    Ok((checked, problems))
}

/// Whether a revisit's original resolves to an indexed non-revisit capture (looked up again
/// if the index was built before the original was).
fn original_exists(index: &CaptureIndex, revisit: &Capture) -> io::Result<bool> {
    if let Some(original) = &revisit.original {
        let url = revisit.refers_to_url.as_deref().unwrap_or(&revisit.url);
        let found = index.lookup(&ldwarc_surt::surt(url))?.into_iter().any(|c| {
            c.filename == original.filename
                && c.offset == original.offset
                && c.record_type != RecordType::Revisit
        });
        return Ok(found);
    }
    let (Some(digest), url) = (
        &revisit.digest,
        revisit.refers_to_url.as_deref().unwrap_or(&revisit.url),
    ) else {
        // No payload digest: the original is named by Refers-To-Target-URI and -Date.
        return match (&revisit.refers_to_url, &revisit.refers_to_timestamp) {
            (Some(url), Some(timestamp)) => {
                Ok(super::indexer::find_original_at(index, url, timestamp)?.is_some())
            }
            _ => Ok(false),
        };
    };
    let limit = revisit
        .refers_to_timestamp
        .as_deref()
        .unwrap_or(&revisit.timestamp);
    Ok(super::indexer::find_original(index, url, digest, limit)?.is_some())
}
