//! The versioned triple index: every document's graph over time, derived from the capture
//! index and the WARC files like the capture index is, and rebuildable from them at any time.
//!
//! Per document URL the index keeps the sequence of its captures (the versions) and, per
//! statement the document ever held, the versions at which the statement appeared and
//! disappeared: the delta of each capture against the document's previous capture, stored
//! transposed per statement (as OSTRICH stores its deltas with version annotations). Terms
//! are numbered once in a dictionary shared by all documents. This answers, without
//! rebuilding a snapshot:
//!
//! - a triple pattern at a date (version materialisation, [`TripleIndex::at`]),
//! - the statements added and removed between two dates (delta materialisation,
//!   [`TripleIndex::changes`]),
//! - the intervals during which the statements matching a pattern held (version query,
//!   [`TripleIndex::intervals`]).
//!
//! A document holds at a date what its latest capture at or before the date held, as
//! `ldwarc snapshot` decides: a redirect, an error status, a payload that is not RDF or
//! cannot be parsed hold nothing. Statements are kept as triples of the document: the
//! graph name a TriG or N-Quads document gives its own statements is not kept. Blank nodes
//! are scoped to their document (`_:d<document number>_<label>`); served, they become skolem
//! IRIs naming their capture (see [`TripleIndex::at_skolemised`]).
//!
//! The index lives in `<root>/triples/`; `ldwarc index` (and a crawl or monitor cycle at its
//! end) builds or extends it (new captures add versions; a capture inserted before the ones
//! indexed makes its document be re-read), read commands only open it. It records the state of the capture index it was
//! built from, so readers can tell when it no longer covers every capture.

mod build;
mod codec;
mod currency;
mod merge;
mod pattern;
mod query;
mod skolem;
mod store;

pub use build::{TripleIndexRun, update_triple_index};
pub use currency::{
    Currency, RootUnavailable, Unavailable, capture_stamp, open_current, triple_index_currency,
};
pub use merge::intervals_across;
pub use pattern::{PatternTerm, TriplePattern};
pub use query::{Changes, Interval, Match, TripleHistory};
pub use skolem::GENID_PATH;
pub use store::{
    DocumentVersions, TripleIndex, UnreadableTripleIndex, Version, VersionState, index_path,
};

#[cfg(test)]
mod tests;
