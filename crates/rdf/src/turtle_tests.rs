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
fn a_dotted_label_right_after_a_statements_dot_is_the_same_label() {
    all_paths_give(
        "_:b.c <http://a.example/p> \"1\" .\n<http://a.example/s> <http://a.example/p> <http://a.example/o>._:b.c <http://a.example/p> \"2\" .\n",
        &Ok(concat!(
            "_:b0 <http://a.example/p> \"1\" .\n",
            "<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n",
            "_:b0 <http://a.example/p> \"2\" .\n",
        )),
    );
    all_paths_give(
        "<http://a.example/s> <http://a.example/p> 1._:b..c <http://a.example/p> _:b..c .\n",
        &Ok(concat!(
            "<http://a.example/s> <http://a.example/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
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
    // Declared SPARQL-style, in any case: the IRIs made from the prefix are checked too.
    all_paths_give(
        "PREFIX h: <http://host.example>\nh::1st <http://a.example/p> 1 .\n",
        &Err(()),
    );
    all_paths_give(
        "pReFiX ex: <http://example.org/ns#>\nex:a\\#b <http://a.example/p> 1 .\n",
        &Err(()),
    );
    all_paths_give(
        "@prefix ex: <http://e.org/> .\nex:a\\#b <http://a.example/p> 1 .\n",
        &Ok(
            "<http://e.org/a#b> <http://a.example/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
        ),
    );
}

/// A small seeded random number generator (xorshift64).
pub(crate) struct Random(u64);

impl Random {
    pub(crate) fn new(seed: u64) -> Self {
        Random(seed.max(1))
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        choices[self.below(choices.len())]
    }
}

/// Directives, each followed by what may end it.
const DIRECTIVES: &[&str] = &[
    "@prefix ex: <http://example.org/ns#> .",
    "@prefix : <http://e.example/> .",
    "PREFIX ex: <http://example.org/other/>",
    "prefix xsd: <http://www.w3.org/2001/XMLSchema#>",
    "@prefix h: <http://host.example> .",
    "@prefix rel: <rel/> .",
    "@prefix ü: <http://u.example/> .",
    "@base <http://base.example/a/b/> .",
    "BASE <../c/>",
    "@base <#frag> .",
    "base <http://other.example/>",
    "VERSION \"1.2\"",
    "@version '1.2' .",
    "@prefix ex:<http://example.org/tight#>.",
    "@PREFIX ex: <http://example.org/ns#> .",
];
/// The directives most documents start with, so that most names are defined.
const COMMON_DIRECTIVES: &str = "@prefix ex: <http://example.org/ns#> .\n@prefix : <http://e.example/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n";
/// Subjects: the first [`PLAIN_SUBJECTS`] in the part of Turtle the fast reader takes.
const SUBJECTS: &[&str] = &[
    "<http://example.org/s>",
    "ex:s",
    ":s",
    "_:b1",
    "<http://example.org/s#frag>",
    "ex:a_b-c",
    "<>",
    "<#me>",
    "<s>",
    "<../up>",
    "<http://example.org/a/./b>",
    "ex:a.b",
    "ex:a\\#b",
    "ex:a\\-b",
    "ex:a%41",
    "ex:a%zz",
    "ex:1st",
    "ex:",
    "h::1st",
    "h:x",
    "h:1",
    "rel:x",
    "ü:x",
    "_:b.2",
    "_:bn0001",
    "[]",
    "[ ex:p 1 ]",
    "( 1 ex:o )",
    "()",
    "<< ex:s ex:p ex:o >>",
    "<< ex:s ex:p ex:o ~ _:r >>",
    "<<( ex:s ex:p ex:o )>>",
    "<http://example.org/\\u00E9>",
    "<http://example.org/\\U0001F600>",
    "<http://[::1]/x>",
    "<http://example.org/sp ace>",
    "undefined:x",
    "\"literal subject\"",
];
const PLAIN_SUBJECTS: usize = 6;
const PREDICATES: &[&str] = &[
    "a",
    "ex:p",
    ":p",
    "<http://example.org/p>",
    "<p>",
    "rdf:value",
    "ex:p\\-q",
    "ex:p.q",
    "_:b1",
];
const PLAIN_PREDICATES: usize = 4;
const OBJECTS: &[&str] = &[
    "\"plain\"",
    "\"x\"@en",
    "42",
    "-1.5",
    "true",
    "ex:o",
    "<http://example.org/o>",
    "_:b1",
    "\"x\"@en-gb",
    "\"x\"^^xsd:integer",
    "\"with ünïcode ✓\"",
    "\"x\"@en-GB",
    "\"x\"@en--rtl",
    "\"x\"@en--ltr",
    "\"x\"@EN--LTR",
    "\"x\"@en--RTL",
    "\"x\"@en--",
    "\"x\"^^rdf:langString",
    "\"x\"^^rdf:dirLangString",
    "\"x\"@en^^xsd:string",
    "\"x\"^^<http://example.org/dt>",
    "\"x\"^^<dt>",
    "\"\"\"line\nbreak\"\"\"",
    "\"\"\"x\"é\"\"\"",
    "'''it's ü'''",
    "'''y'ü'''",
    "\"\"\"a\"\\tb\"\"\"",
    "\"\"\"q\"\"é\"\"\"",
    "\"\"\"ends \"\"\"",
    "\"\"\"cr\rinside\"\"\"",
    "\"\"\"# not a comment\r\"\"\"",
    "\"\\u00E9\\U0001F600\"",
    "\"\\uD800\"",
    "\"tab\\t \\\" \\\\\"",
    "'single'",
    "\"it's # not a comment\"",
    ".5",
    "1e3",
    "1.E3",
    "+1",
    "007",
    "false",
    "[]",
    "[ ex:q \"x\" ]",
    "[ ex:q [ ex:r 1 ] ; ex:s ( 1 ) ]",
    "()",
    "( 1 \"two\"@en _:b1 )",
    "<<( ex:s ex:p ex:o )>>",
    "<<( _:b1 ex:p \"x\"@en--rtl )>>",
    "<< ex:s ex:p ex:o >>",
    "\"x\" {| ex:src ex:doc |}",
    "\"x\" ~ _:r1",
    "\"x\" ~ _:r1 {| ex:src <doc> |}",
    "<o>",
    "<#o>",
    "ex:o.x",
    "ex:o\\.",
    "ex:o%2E",
    "h:y",
    "h::1st",
    "\"\\'\"",
];
const PLAIN_OBJECTS: usize = 11;
/// White space and comments between terms.
const SPACE: &[&str] = &[
    " ", "\n  ", "\t", " # c\n", " # c\r", " # c\r\n", "\r\n", "",
];
/// What ends a statement, and what comes after it.
const ENDS: &[&str] = &[
    " .\n",
    ".\n",
    " .",
    ".",
    " . # end\r",
    " . # end\r\n",
    " ;\n.\n",
    ".\r",
    " . # end\n",
];

/// A Turtle document at and beyond the part the fast reader takes: directives anywhere
/// (also right after a statement's `.`), comments ended by LF, CR or CRLF, long strings,
/// escapes, language tags with directions, datatypes, collections, blank node property
/// lists and RDF 1.2 triple terms, reifiers and annotations.
pub(crate) fn document(random: &mut Random) -> String {
    let mut text = String::new();
    // A third of the documents in the part the fast reader takes (unless mutated).
    let plain_document = random.below(3) == 0;
    if plain_document || random.below(4) > 0 {
        text.push_str(COMMON_DIRECTIVES);
    }
    for _ in 0..if plain_document { 0 } else { random.below(3) } {
        text.push_str(random.pick(DIRECTIVES));
        text.push_str(random.pick(&["\n", " ", "\n# c\r", ""]));
    }
    for _ in 0..1 + random.below(5) {
        let plain = plain_document || random.below(3) == 0;
        let term = |random: &mut Random, all: &[&'static str], common: usize| -> &'static str {
            if plain || random.below(2) == 0 {
                all[random.below(common)]
            } else {
                random.pick(all)
            }
        };
        if !plain && random.below(5) == 0 {
            text.push_str(random.pick(DIRECTIVES));
            text.push_str(random.pick(&["\n", " ", ""]));
        }
        text.push_str(term(random, SUBJECTS, PLAIN_SUBJECTS));
        text.push_str(random.pick(&[" ", "\n  ", "\t"]));
        for predicate in 0..1 + random.below(3) {
            if predicate > 0 {
                text.push_str(random.pick(&[" ;\n  ", ";", " ; ; ", " ;"]));
                text.push(' ');
            }
            text.push_str(term(random, PREDICATES, PLAIN_PREDICATES));
            text.push(' ');
            for object in 0..1 + random.below(3) {
                if object > 0 {
                    text.push_str(random.pick(&[", ", ",", " ,\n    "]));
                }
                text.push_str(term(random, OBJECTS, PLAIN_OBJECTS));
                if !plain {
                    text.push_str(random.pick(SPACE));
                }
            }
        }
        text.push_str(if plain { " .\n" } else { random.pick(ENDS) });
    }
    text
}

/// Deletes, inserts or doubles a few characters.
pub(crate) fn mutate(random: &mut Random, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + random.below(3) {
        let at = random.below(chars.len() + 1);
        match random.below(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 => {
                let c = random.pick(&[
                    " ", ".", ":", "<", ">", "\"", "'", "\\", "#", ";", ",", "@", "_", "a", "\n",
                    "\r", "/", "%", "^", "-", "é", "[", "]", "(", ")", "{", "|", "~",
                ]);
                chars.insert(at, c.chars().next().unwrap_or(' '));
            }
            _ if at < chars.len() => {
                let c = chars[at];
                chars.insert(at, c);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// The interop venv's Python (`$LDWARC_VENV`, else the workspace's `.venv`); a missing one
/// fails the test, never skips it.
fn venv_python() -> std::path::PathBuf {
    let venv = std::env::var_os("LDWARC_VENV").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv"),
        std::path::PathBuf::from,
    );
    let python = venv.join("bin/python");
    assert!(
        python.exists(),
        "{} is missing; run `bash .ci/setup-interop.sh` (or set LDWARC_VENV)",
        python.display()
    );
    python
}

/// A document for the reference: its name, its text, and ldwarc's readings by way.
type Case<'a> = (String, String, Vec<(&'a str, Reading)>);

/// Asks pyoxigraph about `cases` (name, document, ldwarc's readings by way); the wrong
/// readings, and the names of the documents pyoxigraph reads.
fn reference(cases: &[Case<'_>]) -> (Vec<String>, Vec<String>) {
    use std::io::Write as _;
    let cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|(name, turtle, readings)| {
            let readings: serde_json::Map<String, serde_json::Value> = readings
                .iter()
                .map(|(way, reading)| {
                    let value = reading.as_ref().map_or(serde_json::Value::Null, |graph| {
                        serde_json::Value::from(graph.as_str())
                    });
                    ((*way).to_string(), value)
                })
                .collect();
            serde_json::json!({"name": name, "turtle": turtle, "readings": readings})
        })
        .collect();
    let request = serde_json::json!({"base": BASE, "cases": cases});
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("support/turtle_reference.py");
    let mut child = std::process::Command::new(venv_python())
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("pyoxigraph runs");
    let mut stdin = child.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || stdin.write_all(request.to_string().as_bytes()));
    let output = child.wait_with_output().expect("pyoxigraph ends");
    writer.join().expect("writes").expect("writes");
    assert!(output.status.success(), "turtle_reference.py failed");
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let strings = |key: &str| -> Vec<String> {
        answer[key]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    (strings("wrong"), strings("valid"))
}

/// The seed of a differential or fuzz run: `LDWARC_TURTLE_SEED`, else `default`.
fn seed(default: u64) -> u64 {
    std::env::var("LDWARC_TURTLE_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(default)
}

/// Generated documents (some mutated) read every way, and one large document of the valid
/// ones read in pieces, all compared with pyoxigraph.
#[test]
fn every_way_of_reading_turtle_agrees_with_the_reference_parser() {
    let seed = seed(0x7E57_D1FF);
    let mut random = Random::new(seed);
    let mut cases = Vec::new();
    let mut fast_read = 0;
    for n in 0..1200 {
        let original = document(&mut random);
        let text = if n % 3 == 2 {
            mutate(&mut random, &original)
        } else {
            original
        };
        let bytes = text.as_bytes();
        let mut readings = Vec::new();
        if let Some(graph) = fast(bytes) {
            fast_read += 1;
            readings.push(("fast", Ok(graph)));
        }
        readings.push(("sophia", sophia(bytes)));
        readings.push(("one thread", one_thread(bytes)));
        let piece_len = 1 + random.below(64);
        readings.push(("pieces", pieces(bytes, piece_len)));
        cases.push((format!("document {n} (seed {seed})"), text, readings));
    }
    let (wrong, valid) = reference(&cases);
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Both kinds of documents, and the fast reader, are well represented.
    assert!(
        valid.len() > 300 && valid.len() < 1000 && fast_read > 150,
        "{} valid, {fast_read} read fast",
        valid.len()
    );

    // The valid documents one after the other (each from the default base), repeated past
    // the size that is parsed in pieces.
    let valid: std::collections::HashSet<&String> = valid.iter().collect();
    let mut large = String::new();
    while large.len() <= crate::pipeline::PARALLEL_MIN_LEN {
        for (name, text, _) in &cases {
            if valid.contains(name) {
                large.push_str(&format!("\n@base <{BASE}> .\n{text}\n"));
            }
        }
    }
    let parsed = crate::graph::parse_graph(large.as_bytes(), &[Syntax::Turtle], BASE, &NoContexts)
        .map_err(|error| error.to_string())
        .and_then(|parsed| match parsed.error {
            None => Ok(parsed.graph.to_nquads()),
            Some(error) => Err(error),
        });
    let readings = vec![
        ("large, in pieces", parsed),
        (
            "large, in pieces of 300 bytes",
            pieces(large.as_bytes(), 300),
        ),
    ];
    let (wrong, valid) = reference(&[("large document".to_string(), large, readings)]);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(valid.len(), 1);
}

/// What one fuzz case broke, if anything: a panic, the fast reader and sophia disagreeing,
/// or pieces and the whole document disagreeing.
fn fuzz_case(text: &str, piece_len: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let checked = std::panic::catch_unwind(|| {
        let whole = sophia(bytes);
        if let Some(graph) = fast(bytes)
            && whole.as_ref() != Ok(&graph)
        {
            return Some(format!("fast reader {graph:?}, sophia {whole:?}"));
        }
        let in_pieces = pieces(bytes, piece_len);
        let agree = match (&in_pieces, &whole) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(_)) => !a.contains("panicked"),
            _ => false,
        };
        (!agree).then(|| format!("pieces of {piece_len}: {in_pieces:?}, whole: {whole:?}"))
    });
    checked.unwrap_or_else(|_| Some("panicked".to_string()))
}

/// The fast reader and the cutter on generated documents, mutated once or more: no panic,
/// what the fast reader accepts sophia reads alike, and pieces read as the whole document.
/// A bounded pass (10 s) runs with the tests; `LDWARC_FUZZ_SECONDS` runs longer (with
/// `LDWARC_TURTLE_SEED` to vary the documents), printing what it did.
#[test]
fn fuzz_the_fast_reader_and_the_cutter() {
    let seconds = std::env::var("LDWARC_FUZZ_SECONDS")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or(10);
    let seed = seed(0x00F0_22ED);
    let mut random = Random::new(seed);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let (mut cases, mut failures) = (0u64, Vec::new());
    while std::time::Instant::now() < deadline {
        let mut text = document(&mut random);
        for _ in 0..random.below(4) {
            text = mutate(&mut random, &text);
        }
        let piece_len = 1 + random.below(80);
        cases += 1;
        if let Some(failure) = fuzz_case(&text, piece_len) {
            failures.push(format!("{failure}\n{text:?}"));
        }
    }
    eprintln!(
        "fuzz: {cases} cases in {seconds} s (seed {seed}), {} failures",
        failures.len()
    );
    assert!(cases > 500, "{cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
}

#[test]
fn without_prefixes_written_iris_are_still_checked() {
    // Sophia checks IRIs written out (a document declaring no prefix has no others), each
    // way of reading.
    for document in [
        "<http://host.example:1st/> <http://a.example/p> 1 .\n",
        "<http://a.example/a#b#c> <http://a.example/p> 1 .\n",
        "<s#a#b> <http://a.example/p> 1 .\n",
        "<http://a.example/s> <http://a.example/p> \"x\"^^<http://a.example/%zz> .\n",
        "<http://a.example/s> <http://a.example/p> \"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .\n",
    ] {
        all_paths_give(document, &Err(()));
    }
    // Against a relative base, resolution makes relative references: not IRIs.
    let mut builder = GraphBuilder::default();
    let relative = parse_turtle(b"<a> <http://a.example/p> 1 .\n", "rel/doc", &mut builder);
    assert_eq!(relative, Err("<rel/a> is not a valid IRI".to_string()));
}
