//! The Turtle family (N-Triples, N-Quads, Turtle, TriG) read with oxttl, whose parsers are
//! several times faster than sophia's; each statement is handed to the [`StatementSink`] as
//! sophia terms borrowing oxttl's, so the sinks see the same terms whichever parser ran.

use oxrdf::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Triple};
use oxttl::TextPosition;
use oxttl::{NQuadsParser, NTriplesParser, TriGParser, TurtleParser, TurtleSyntaxError};
use sophia::api::MownStr;
use sophia::api::term::{BaseDirection, BnodeId, IriRef, LanguageTag, SimpleTerm};
use std::ops::Range;

use super::parse::{StatementSink, sophia_turtle_family};

/// The syntaxes read here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TurtleFamily {
    NTriples,
    NQuads,
    Turtle,
    TriG,
}

/// Parses `body` as `syntax`, relative IRIs of Turtle and TriG resolved against `base` (when
/// it is an absolute IRI), streaming statements into `sink` up to the first error, which is
/// returned on one line with its 1-based line and column. N-Triples and N-Quads are read
/// strictly: no relative IRIs, nothing of Turtle's.
pub(crate) fn parse_turtle_family<S: StatementSink>(
    body: &[u8],
    syntax: TurtleFamily,
    base: &str,
    sink: &mut S,
) -> Result<(), String> {
    match syntax {
        TurtleFamily::NTriples => {
            deliver_triples(NTriplesParser::new().for_slice(body), body, sink)
        }
        TurtleFamily::NQuads => deliver_quads(NQuadsParser::new().for_slice(body), body, sink),
        TurtleFamily::Turtle | TurtleFamily::TriG if nests(body) => {
            sophia_turtle_family(body, syntax, base, sink)
        }
        TurtleFamily::Turtle => {
            let parser = TurtleParser::new();
            let parser = parser.clone().with_base_iri(base).unwrap_or(parser);
            deliver_triples(parser.for_slice(body), body, sink)
        }
        TurtleFamily::TriG => {
            let parser = TriGParser::new();
            let parser = parser.clone().with_base_iri(base).unwrap_or(parser);
            deliver_quads(parser.for_slice(body), body, sink)
        }
    }
}

/// Whether a Turtle or TriG document nests statements (blank node property lists `[`,
/// collections `(`, reified triples `<<` (not triple terms `<<(`), annotations `{|` and reifiers `~`), for which oxttl
/// gives the statements in another order than sophia (the inner ones first), and so would
/// number the blank nodes differently. Only syntax counts: IRIs, strings, comments and
/// escaped characters of prefixed names are skipped.
fn nests(body: &[u8]) -> bool {
    let mut rest = body;
    while let Some(&byte) = rest.first() {
        rest = match byte {
            b'[' | b'(' | b'~' => return true,
            b'<' if rest.starts_with(b"<<(") => &rest[3..],
            b'<' if rest.get(1) == Some(&b'<') => return true,
            b'{' if rest.get(1) == Some(&b'|') => return true,
            b'<' => after(rest, b'>'),
            b'#' => after(rest, b'\n'),
            b'"' | b'\'' => after_string(rest),
            b'\\' => rest.get(2..).unwrap_or_default(),
            _ => &rest[1..],
        };
    }
    false
}

/// What follows the first `end` after the opening byte of `text`, or nothing.
fn after(text: &[u8], end: u8) -> &[u8] {
    match memchr::memchr(end, &text[1..]) {
        Some(at) => &text[at + 2..],
        None => &[],
    }
}

/// What follows the string `text` starts with (short or long, either quote), or nothing when
/// it does not end.
fn after_string(text: &[u8]) -> &[u8] {
    let quote = text[0];
    let long = text.len() >= 3 && text[1] == quote && text[2] == quote;
    let mut at = if long { 3 } else { 1 };
    while let Some(&byte) = text.get(at) {
        if byte == b'\\' {
            at += 2;
        } else if byte != quote {
            at += 1;
        } else if !long {
            return &text[at + 1..];
        } else if text.get(at + 1) == Some(&quote) && text.get(at + 2) == Some(&quote) {
            return &text[at + 3..];
        } else {
            at += 1;
        }
    }
    &[]
}

fn deliver_triples<S: StatementSink>(
    triples: impl Iterator<Item = Result<Triple, TurtleSyntaxError>>,
    body: &[u8],
    sink: &mut S,
) -> Result<(), String> {
    for triple in triples {
        let triple = triple.map_err(|err| syntax_error(&err, body))?;
        let [subject, predicate, object] = triple_terms(&triple);
        sink.statement(subject, predicate, object, None);
    }
    Ok(())
}

fn deliver_quads<S: StatementSink>(
    quads: impl Iterator<Item = Result<Quad, TurtleSyntaxError>>,
    body: &[u8],
    sink: &mut S,
) -> Result<(), String> {
    for quad in quads {
        let quad = quad.map_err(|err| syntax_error(&err, body))?;
        let graph = match &quad.graph_name {
            GraphName::NamedNode(node) => Some(named_node(node)),
            GraphName::BlankNode(node) => Some(blank_node(node)),
            GraphName::DefaultGraph => None,
        };
        sink.statement(
            subject(&quad.subject),
            named_node(&quad.predicate),
            term(&quad.object),
            graph,
        );
    }
    Ok(())
}

/// The error on one line with its 1-based line and column (in characters). An error found at
/// a line's end (a missing dot) is placed there, not at the start of the next line.
fn syntax_error(err: &TurtleSyntaxError, body: &[u8]) -> String {
    let location = err.location();
    let (line, column) = match line_end_before(body, &location) {
        Some(column) => (location.start.line, column),
        None => (location.start.line + 1, location.start.column + 1),
    };
    format!("{} at line {line}, column {column}", err.message()).replace(['\n', '\r'], " ")
}

/// For an empty location just after a line break, the 1-based column of that break.
fn line_end_before(body: &[u8], location: &Range<TextPosition>) -> Option<u64> {
    let offset = usize::try_from(location.start.offset).ok()?;
    if location.start != location.end || location.start.column != 0 || offset == 0 {
        return None;
    }
    let line = body.get(..offset)?.strip_suffix(b"\n")?;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let start = memchr::memrchr(b'\n', line).map_or(0, |at| at + 1);
    let chars = String::from_utf8_lossy(&line[start..]).chars().count();
    Some(u64::try_from(chars).ok()? + 1)
}

fn triple_terms(triple: &Triple) -> [SimpleTerm<'_>; 3] {
    [
        subject(&triple.subject),
        named_node(&triple.predicate),
        term(&triple.object),
    ]
}

fn subject(node: &NamedOrBlankNode) -> SimpleTerm<'_> {
    match node {
        NamedOrBlankNode::NamedNode(node) => named_node(node),
        NamedOrBlankNode::BlankNode(node) => blank_node(node),
    }
}

fn term(term: &oxrdf::Term) -> SimpleTerm<'_> {
    match term {
        oxrdf::Term::NamedNode(node) => named_node(node),
        oxrdf::Term::BlankNode(node) => blank_node(node),
        oxrdf::Term::Literal(literal) => literal_term(literal),
        oxrdf::Term::Triple(triple) => SimpleTerm::Triple(Box::new(triple_terms(triple))),
    }
}

fn named_node(node: &NamedNode) -> SimpleTerm<'_> {
    SimpleTerm::Iri(IriRef::new_unchecked(MownStr::from(node.as_str())))
}

fn blank_node(node: &BlankNode) -> SimpleTerm<'_> {
    SimpleTerm::BlankNode(BnodeId::new_unchecked(MownStr::from(node.as_str())))
}

fn literal_term(literal: &Literal) -> SimpleTerm<'_> {
    let lexical = MownStr::from(literal.value());
    match literal.language() {
        Some(language) => SimpleTerm::LiteralLanguage(
            lexical,
            LanguageTag::new_unchecked(MownStr::from(language)),
            literal.direction().map(|direction| match direction {
                oxrdf::BaseDirection::Ltr => BaseDirection::Ltr,
                oxrdf::BaseDirection::Rtl => BaseDirection::Rtl,
            }),
        ),
        None => SimpleTerm::LiteralDatatype(
            lexical,
            IriRef::new_unchecked(MownStr::from(literal.datatype().as_str())),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::parse::sophia_turtle_family;

    const BASE: &str = "http://example.org/dir/doc?q#f";

    /// The graph (N-Quads, in insertion order) and error of one parse.
    fn read(
        parse: impl FnOnce(&mut GraphBuilder) -> Result<(), String>,
    ) -> (String, Option<String>) {
        let mut builder = GraphBuilder::default();
        let result = parse(&mut builder);
        (builder.graph.to_nquads(), result.err())
    }

    fn both(body: &str, syntax: TurtleFamily) -> [(String, Option<String>); 2] {
        [
            read(|b| parse_turtle_family(body.as_bytes(), syntax, BASE, b)),
            read(|b| sophia_turtle_family(body.as_bytes(), syntax, BASE, b)),
        ]
    }

    /// Documents in each syntax, valid and not, on which both parsers must give the same
    /// statements in the same order (so the same blank node numbering) and fail on the same
    /// line.
    const AWKWARD: &[(TurtleFamily, &str)] = &[
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> \"esc \\t \\u00e9 \\U0001F600 \\\" \\\\ \\n \\b \\f \\r\" .\n\
             <http://a/s> <http://a/p> \"x\"@EN-gb .\n\
             <http://a/s> <http://a/p> \"y\"@en--rtl .\n\
             <http://a/s> <http://a/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
             <http://a/s> <http://a/p> \"s\"^^<http://www.w3.org/2001/XMLSchema#string> .\n\
             # a comment\n\
             _:x <http://a/p> _:y .\n_:y <http://a/p> _:x .\n_:x.1 <http://a/p> _:z-2 .\n\
             <http://a/\\u00E9> <http://a/p> <http://a/\u{e9}t\u{e9}> .\n\
             <http://a/s> <http://a/p> <<( <http://a/s> <http://a/p> _:o )>> .\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> \"open .\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> <http://a/o2>\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <http://a/o> . <http://a/s> <http://a/p> <http://a/o> .",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <http://a/\u{f6} o> .\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> \"x\"@123 .\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <rel> .\n",
        ),
        (
            TurtleFamily::NTriples,
            "<http://a/s> <http://a/p> <http://a/o> .\n@prefix : <http://a/> .\n",
        ),
        (
            TurtleFamily::NQuads,
            "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n\
             _:g <http://a/p> _:g _:g .\n<http://a/s> <http://a/p> \"x\"@fr .\n\
             <http://a/s> <http://a/p> <<( _:g <http://a/p> \"v\" )>> _:g .\n",
        ),
        (
            TurtleFamily::NQuads,
            "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n<http://a/s> <http://a/p> 1 .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n\
             :s :p \"\"\"long\nstring \"with\" quotes\"\"\", 'single', '''x''', \"\\u0041\", :a\\~b, :ex%41 .\n\
             :s :p \"a\\u0000b\", \"\\u007f\", \"tab\tin\" , \"\\b\\f\", -5, +.5, 1.e2, true .\n\
             :s :p \"x\"@en--ltr , \"z\"@EN ; a :C ; ; :q :r .\n\
             VERSION \"1.2\"\n\
             :s :p <<( :a :b _:c )>> .\n\
             _:n :p _:m . _:m :p _:n .\n\
             @prefix p: <http://p/> . p:s.x p:p p:o.1 . p: p: p: .\n",
        ),
        (
            TurtleFamily::Turtle,
            "<#s> <p> <../up>, <//host/x>, <?q2>, <#f2>, <>, <./a/../b> .\n\
             @base <http://other/base/> .\n<s> <p> <o> .\nBASE <rel/> <s> <p> <o> .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n\
             :s :p [ :q [ :r :o ] ], ( 1 2.0 \"x\"@fr ) .\n[] :p :o .\n[ :q :o ] .\n_:n :p [] .\n\
             (:a) :p () .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n:s :p << :a :b :c >> .\n<< :a :b :c >> :p :o .\n\
             :a :b :c {| :src :x |} .\n:a :b :c ~ :r {| :src :y |} .\n:a :b :c ~ .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n:s :p :o2 , :o3 , .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n:s :p :o1, :o2, nope:x .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n:s :p \"x\"@ar--RTL .\n",
        ),
        (
            TurtleFamily::Turtle,
            "@prefix : <http://a/> .\n:s :p <http://a/\\u0020x> .\n",
        ),
        (
            TurtleFamily::TriG,
            "@prefix : <http://a/> .\n:g { :s :p :o . _:b :p _:c }\n:s :p :o .\n\
             GRAPH :h { :a :b :c }\n_:gb { :a :b :c }\n{ :x :y :z }\n",
        ),
        (
            TurtleFamily::TriG,
            "@prefix : <http://a/> .\n:g { :s :p [ :q :o ] }\n",
        ),
        (
            TurtleFamily::TriG,
            "@prefix : <http://a/> .\n:g { :s :p :o . :s :p }\n:x :y :z .\n",
        ),
    ];

    /// The 1-based line an error message names.
    fn error_line(error: &str) -> &str {
        let (_, position) = error.rsplit_once(" at line ").expect(error);
        let (line, column) = position.split_once(", column ").expect(error);
        assert!(column.parse::<u64>().is_ok(), "{error}");
        line
    }

    #[test]
    fn statements_and_errors_are_sophias() {
        for (syntax, body) in AWKWARD {
            let [(new, new_error), (old, old_error)] = both(body, *syntax);
            assert_eq!(new, old, "{syntax:?} {body}");
            match (&new_error, &old_error) {
                (None, None) => {}
                (Some(new_error), Some(old_error)) => {
                    assert_eq!(error_line(new_error), error_line(old_error), "{body}");
                    assert!(!new_error.contains('\n'), "{new_error}");
                }
                _ => panic!("{syntax:?} {body}: {new_error:?} where sophia said {old_error:?}"),
            }
        }
    }

    #[test]
    fn a_missing_dot_is_placed_at_the_end_of_its_line() {
        let body = "<http://a/s> <http://a/p> \"x\"\r\n<http://a/s> <http://a/p> <http://a/o> .\n";
        let (graph, error) =
            read(|b| parse_turtle_family(body.as_bytes(), TurtleFamily::NTriples, BASE, b));
        assert_eq!(graph, "");
        let error = error.expect("an error");
        assert!(error.ends_with(" at line 1, column 30"), "{error}");

        // Turtle's triple is complete without its dot, as sophia had it; the error names the
        // end of the line that lacks it (sophia named the start of the next).
        let body = "@prefix : <http://a/> .\n:s :p :o\n";
        let (graph, error) =
            read(|b| parse_turtle_family(body.as_bytes(), TurtleFamily::Turtle, BASE, b));
        assert_eq!(graph, "<http://a/s> <http://a/p> <http://a/o> .\n");
        let error = error.expect("an error");
        assert!(error.ends_with(" at line 2, column 9"), "{error}");
    }

    #[test]
    fn nesting_is_seen_in_syntax_only() {
        for nesting in [
            ":s :p [ :q :o ] .",
            "[] :p :o .",
            ":s :p ( :o ) .",
            ":s :p << :a :b :c >> .",
            ":a :b :c {| :q :r |} .",
            ":a :b :c ~ :r .",
            ":s :p \"x\\\"\" . :s :p [] .",
            ":s :p \"\"\"x\" \"\"\" , [] .",
        ] {
            assert!(nests(nesting.as_bytes()), "{nesting}");
        }
        for flat in [
            "<http://a/[(~)]> <http://a/p> <http://a/o{|x> .",
            ":s :p \"[ ( ~ << {|\" , '[(', \"\"\"\n[ \" ( \"\"\", '''~ ' <<''' .",
            ":s :p \"esc \\\" [\" .",
            "# a comment with [ ( ~\n:s :p :o .",
            ":s :p :a\\~b, :c\\(d\\) .",
            ":s :p <<( :a :b :c )>> .",
            ":g { :s :p :o }",
            ":s :p \"unterminated [",
        ] {
            assert!(!nests(flat.as_bytes()), "{flat}");
        }
    }
}
