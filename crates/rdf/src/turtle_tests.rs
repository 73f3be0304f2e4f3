//! Turtle read every way ldwarc reads it (the fast reader, sophia on the whole document,
//! pieces on every core), each compared with the answer of the reference parser, pyoxigraph
//! 0.5.13 (written out in the regression tests, asked live by the differential test).

use crate::graph::GraphBuilder;
use crate::html::PageOptions;
use crate::jsonld::NoContexts;
use crate::parse::{StatementSink, parse_statements, parse_turtle};
use crate::pipeline::parse_turtle_in_pieces;
use crate::syntax::Syntax;
use crate::turtle_fast;

pub(crate) const BASE: &str = "http://example.org/doc";

/// The graph (canonical N-Quads, blank nodes by first appearance) or the error.
pub(crate) type Reading = Result<String, String>;

/// The fast reader's graph, or `None` when it leaves the document to sophia.
pub(crate) fn fast(document: &[u8]) -> Option<String> {
    let triples = turtle_fast::parse(document)?;
    let mut builder = GraphBuilder::default();
    for [s, p, o] in triples {
        builder.statement(s, p, o, None);
    }
    Some(builder.graph.to_nquads())
}

/// Sophia's reading of the whole document.
pub(crate) fn sophia(document: &[u8]) -> Reading {
    let mut builder = GraphBuilder::default();
    parse_turtle(document, BASE, &mut builder)?;
    Ok(builder.graph.to_nquads())
}

/// The reading in pieces of at least `piece_len` bytes, on every core.
pub(crate) fn pieces(document: &[u8], piece_len: usize) -> Reading {
    let mut builder = GraphBuilder::default();
    parse_turtle_in_pieces(document, BASE, &mut builder, piece_len)?;
    Ok(builder.graph.to_nquads())
}

/// What ldwarc gives for a document of any size read on one thread (the fast reader, else
/// sophia), panics included.
pub(crate) fn one_thread(document: &[u8]) -> Reading {
    let mut builder = GraphBuilder::default();
    let outcome = parse_statements(
        document,
        Syntax::Turtle,
        BASE,
        &NoContexts,
        &PageOptions::default(),
        &mut builder,
    );
    outcome.result?;
    Ok(builder.graph.to_nquads())
}

/// Every way gives `expected` (the fast reader may leave the document to sophia, and must,
/// when `expected` is an error).
fn all_paths_give(document: &str, expected: &Result<&str, ()>) {
    let bytes = document.as_bytes();
    let as_expected = |reading: &Reading| match (reading, expected) {
        (Ok(graph), Ok(expected)) => graph == expected,
        (Err(_), Err(())) => true,
        _ => false,
    };
    if let Some(graph) = fast(bytes) {
        assert!(
            as_expected(&Ok(graph.clone())),
            "fast reader: {graph:?}\n{document:?}"
        );
    }
    for (way, reading) in [
        ("one thread", one_thread(bytes)),
        ("sophia", sophia(bytes)),
        ("pieces of 1 byte", pieces(bytes, 1)),
        ("pieces of 40 bytes", pieces(bytes, 40)),
    ] {
        assert!(
            as_expected(&reading),
            "{way}: {reading:?}, expected {expected:?}\n{document:?}"
        );
    }
}

#[test]
fn a_quote_before_a_non_ascii_character_in_a_long_string_is_read_not_a_panic() {
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> \"\"\"x\"é\"\"\", '''y'ü''', \"\"\"a\"\\tb\"\"\", \"\"\"q\"\"é\"\"\" .\n",
        &Ok(concat!(
            "<http://a.example/s> <http://a.example/p> \"x\\\"é\" .\n",
            "<http://a.example/s> <http://a.example/p> \"y'ü\" .\n",
            "<http://a.example/s> <http://a.example/p> \"a\\\"\\tb\" .\n",
            "<http://a.example/s> <http://a.example/p> \"q\\\"\\\"é\" .\n",
        )),
    );
}

#[test]
fn a_blank_node_label_with_two_dots_in_a_row_is_read_not_a_panic() {
    all_paths_give(
        "_:b..2 <http://a.example/p> _:b.2, _:b..2 .\n",
        &Ok(concat!(
            "_:b0 <http://a.example/p> _:b1 .\n",
            "_:b0 <http://a.example/p> _:b0 .\n",
        )),
    );
}

#[test]
fn a_panic_in_a_parser_is_the_documents_error() {
    /// A sink that fails as a parser bug would.
    struct Panicking;
    impl StatementSink for Panicking {
        fn statement<T: sophia::api::term::Term>(&mut self, _: T, _: T, _: T, _: Option<T>) {
            panic!("a parser bug");
        }
    }
    for syntax in [Syntax::Turtle, Syntax::NTriples, Syntax::RdfXml] {
        let document: &[u8] = match syntax {
            Syntax::RdfXml => b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"http://a.example/s\"><rdf:value>1</rdf:value></rdf:Description></rdf:RDF>",
            _ => b"<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n",
        };
        let outcome = parse_statements(
            document,
            syntax,
            BASE,
            &NoContexts,
            &PageOptions::default(),
            &mut Panicking,
        );
        assert_eq!(
            outcome.result,
            Err(format!(
                "{} parser panicked: a parser bug",
                syntax.media_type()
            ))
        );
    }
    // And the next document parses as ever.
    assert!(one_thread(b"<http://a.example/s> <http://a.example/p> 1 .").is_ok());
}

#[test]
fn a_comment_ends_at_a_lone_carriage_return_every_way() {
    let kept = concat!(
        "<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n",
        "<http://a.example/s> <http://a.example/p> \"kept\" .\n",
    );
    // Plain enough for the fast reader; then with a blank node list, which it leaves to
    // sophia; then with a directive after the comment.
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> <http://a.example/o> . # note\r<http://a.example/s> <http://a.example/p> \"kept\" .\n",
        &Ok(kept),
    );
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> [ <http://a.example/q> 1 ] . # note\r<http://a.example/s> <http://a.example/p> \"kept\" .\n",
        &Ok(concat!(
            "<http://a.example/s> <http://a.example/p> _:b0 .\n",
            "_:b0 <http://a.example/q> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
            "<http://a.example/s> <http://a.example/p> \"kept\" .\n",
        )),
    );
    all_paths_give(
        "@prefix ex: <http://old.example/> . # old\r@prefix ex: <http://a.example/> .\nex:s ex:p ex:o . # then\r\nex:s ex:p \"kept\" .\r\n",
        &Ok(kept),
    );
}

#[test]
fn the_empty_reference_is_resolved_first_or_later() {
    all_paths_give(
        "<> <http://a.example/p> \"Doc\" .\n",
        &Ok("<http://example.org/doc> <http://a.example/p> \"Doc\" .\n"),
    );
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> <> .\n",
        &Ok("<http://a.example/s> <http://a.example/p> <http://example.org/doc> .\n"),
    );
}

#[test]
fn lang_string_datatypes_without_a_tag_are_errors() {
    for datatype in ["rdf:langString", "rdf:dirLangString"] {
        all_paths_give(
            &format!(
                "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n<http://a.example/s> <http://a.example/p> \"x\"^^{datatype} .\n"
            ),
            &Err(()),
        );
    }
}

#[test]
fn a_base_direction_makes_another_literal() {
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> \"x\"@en--rtl, \"x\"@en, \"x\"@EN-GB--ltr .\n",
        &Ok(concat!(
            "<http://a.example/s> <http://a.example/p> \"x\"@en--rtl .\n",
            "<http://a.example/s> <http://a.example/p> \"x\"@en .\n",
            "<http://a.example/s> <http://a.example/p> \"x\"@en-gb--ltr .\n",
        )),
    );
}

#[test]
fn a_prefixed_name_must_make_a_valid_iri() {
    all_paths_give(
        "@prefix h: <http://host.example> .\nh::1st <http://a.example/p> 1 .\n",
        &Err(()),
    );
    all_paths_give(
        "@prefix ex: <http://example.org/ns#> .\nex:a\\#b <http://a.example/p> 1 .\n",
        &Err(()),
    );
    all_paths_give(
        "@prefix ex: <http://e.org/> .\nex:a\\#b <http://a.example/p> 1 .\n",
        &Ok(
            "<http://e.org/a#b> <http://a.example/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
        ),
    );
}
