//! The archive published as Linked Data about its own history:
//!
//! - [`describe`]: a VoID + DCAT 3 description — a `dcat:Catalog` with, per archived dataset
//!   (a pay-level domain), a `dcat:DatasetSeries` holding one `dcat:Dataset` per crawl day,
//!   with VoID statistics, the documents it came from and its N-Quads download;
//! - [`ldes`]: a Linked Data Event Stream of every graph change (first graphs, changed graphs
//!   and removals as tombstones), fragmented by time with TREE relations.
//!
//! `ldwarc describe` prints the description; `ldwarc serve` answers it at
//! `/.well-known/void`, the downloads at `/download/…` and the stream at `/ldes`.

pub mod describe;
pub mod ldes;
mod terms;

pub use describe::{
    DatasetVersion, Description, VersionStats, describe, description_graph, download_path,
    write_description, write_download,
};
pub use ldes::{
    DEFAULT_PAGE_SIZE, Member, MemberKind, Stream, member_kinds, stream, write_page, write_root,
};
