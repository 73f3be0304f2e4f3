//! RDF: parsing by media type with sniffing, `Content-Encoding` decoding, and link
//! extraction for the crawler; (later) canonicalisation, snapshots and diffs.
//!
//! The crawler's path through this module: send [`DEFAULT_ACCEPT`]; undo the response's
//! `Content-Encoding` with [`decode_content`] (capped); pick candidate parsers with
//! [`choose_syntaxes`] from the `Content-Type` and the first [`SNIFF_LEN`] bytes; then
//! [`extract_links`]. Everything here is synchronous and CPU-bound: async callers should run it
//! under `spawn_blocking`.

mod decode;
mod jsonld;
mod links;
mod syntax;

pub use decode::{DecodeError, decode_content};
pub use jsonld::{BundledContexts, ContextSource, NoContexts};
pub use links::{DEFAULT_MAX_LINKS, Extracted, LinkOptions, RdfError, extract_links};
pub use syntax::{DEFAULT_ACCEPT, SNIFF_LEN, Syntax, UnknownSyntax, choose_syntaxes, sniff};
