//! RDF: parsing by media type with sniffing, `Content-Encoding` decoding, and link
//! extraction for the crawler; the graph model ([`Graph`]) with canonical hashing, serialisation
//! and diffs for replay.
//!
//! The crawler's path through this module: send [`DEFAULT_ACCEPT`]; undo the response's
//! `Content-Encoding` with [`decode_content`] (capped); pick candidate parsers with
//! [`choose_syntaxes`] from the `Content-Type` and the first [`SNIFF_LEN`] bytes; then
//! [`extract_links`]. Everything here is synchronous and CPU-bound: async callers should run it
//! under `spawn_blocking`.

#![warn(missing_docs)]

mod canon;
mod decode;
mod diff;
mod graph;
mod hdt;
mod html;
mod jsonld;
mod jsonld_base;
mod jsonld_ids;
mod links;
mod parse;
mod pipeline;
mod serialize;
mod syntax;
mod turtle_cut;
mod turtle_fast;
mod turtle_prep;
#[cfg(test)]
mod turtle_tests;
mod xml_c14n;
mod xml_guard;

pub use canon::{
    BlankStructures, CanonError, Canonicalizer, FormMethod, GraphHash, HashMethod, StructureForm,
    canonical_hash, canonical_nquads,
};
pub use decode::{DecodeError, decode_content};
pub use diff::{DiffFormat, DiffQuad, GraphDiff, UnknownDiffFormat, diff};
pub use graph::{
    DEFAULT_GRAPH, Graph, ParsedGraph, Quad, TermId, TermSort, parse_graph, parse_graph_with,
    spell_term, term_sort,
};
pub use hdt::{HdtDocument, HdtSummary, HdtWriter};
pub use html::{
    EmbeddedReport, EmbeddedSyntaxes, MicrodataRegistry, PageError, PageOptions, RdfaGraph,
    RegistryError, UnknownEmbeddedSyntax, UnknownRdfaGraph, charset_parameter, parse_page,
    parse_page_with,
};
pub use jsonld::{BundledContexts, ContextSource, NoContexts, context_problem};
pub use links::{DEFAULT_MAX_LINKS, Extracted, LinkOptions, RdfError, extract_links};
pub use parse::{ParserPanic, parser_panicked};
pub use serialize::{OutputFormat, SerializeError, write_graph};
pub use syntax::{
    DEFAULT_ACCEPT, SNIFF_LEN, Syntax, UnknownSyntax, choose_syntaxes, mislabelled, sniff,
    strict_syntax,
};
pub use xml_c14n::canonical_xml_literal;
