//! One streaming parse of an RDF document in a given syntax, handing each statement to a
//! [`StatementSink`]: the single place where sophia's parsers are driven, shared by link
//! extraction and graph building.

use sophia::api::MownStr;
use sophia::api::parser::{QuadParser, TripleParser};
use sophia::api::quad::Quad;
use sophia::api::source::{QuadSource, TripleSource};
use sophia::api::term::{IriRef, SimpleTerm, Term, TermKind};
use sophia::api::triple::Triple;
use sophia::iri::Iri;
use sophia::iri::resolve::BaseIriRef;
use sophia::turtle::parser::turtle::TurtleParser;
use sophia::turtle::parser::{nq::NQuadsParser, nt::NTriplesParser, trig::TriGParser};
use sophia::xml::parser::RdfXmlParser;

use super::html::{self, EmbeddedReport, MicrodataRegistry};
use super::jsonld::{self, ContextSource};
use super::syntax::Syntax;
use super::{turtle_fast, turtle_prep};

const RDF_XML_LITERAL: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral";

/// Receives the statements of a document as the parser produces them.
pub(crate) trait StatementSink: Send {
    /// One triple (`graph` is `None`) or quad.
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>);
}

/// How one parse attempt ended.
pub(crate) struct ParseOutcome {
    /// JSON-LD only: every remote `@context` referenced, absolute.
    pub(crate) remote_contexts: Vec<String>,
    /// JSON-LD only: the remote contexts no source had (each was treated as empty).
    pub(crate) missing_contexts: Vec<String>,
    /// The parser's error, on one line with its position, if the document did not parse to
    /// the end (the statements before it were delivered).
    pub(crate) result: Result<(), String>,
    /// Pages only: what each embedded syntax found.
    pub(crate) embedded: Option<EmbeddedReport>,
}

/// Parses `body` (BOM already stripped) as `syntax` against `base`, streaming statements into
/// `sink`. Never touches the network: JSON-LD contexts come only from `contexts` and the
/// bundled set. `page` says how HTML and XHTML pages are read. A panic in a parser is this
/// document's error (see [`isolated`]), never the end of the run.
pub(crate) fn parse_statements<S: StatementSink>(
    body: &[u8],
    syntax: Syntax,
    base: &str,
    contexts: &dyn ContextSource,
    page: &html::PageOptions,
    sink: &mut S,
) -> ParseOutcome {
    isolated(syntax, base, || {
        inject_panic(body);
        parse_unisolated(body, syntax, base, contexts, page, sink)
    })
    .unwrap_or_else(|error| ParseOutcome {
        remote_contexts: Vec::new(),
        missing_contexts: Vec::new(),
        result: Err(error.to_string()),
        embedded: None,
    })
}

fn parse_unisolated<S: StatementSink>(
    body: &[u8],
    syntax: Syntax,
    base: &str,
    contexts: &dyn ContextSource,
    page: &html::PageOptions,
    sink: &mut S,
) -> ParseOutcome {
    let mut remote_contexts = Vec::new();
    let mut missing_contexts = Vec::new();
    let mut embedded = None;
    let result = match syntax {
        Syntax::Turtle => match turtle_fast::parse(body) {
            Some(triples) => {
                for [subject, predicate, object] in triples {
                    sink.statement(subject, predicate, object, None);
                }
                Ok(())
            }
            None => parse_turtle(body, base, sink),
        },
        Syntax::TriG => {
            let body = turtle_prep::for_sophia(body);
            let checks = Checks::for_text(&body, base);
            let parser = TriGParser::new().with_base(turtle_base(base));
            let mut source = parser.parse(&body[..]);
            source
                .try_for_each_quad(|q| checks.checked(sink, q.s(), q.p(), q.o(), q.g()))
                .map_err(|err| checked_error(err, |err| turtle_error(err, &body)))
        }
        Syntax::NTriples => NTriplesParser::new()
            .parse(body)
            .for_each_triple(|t| sink.statement(t.s(), t.p(), t.o(), None))
            .map_err(|err| turtle_error(&err, body)),
        Syntax::NQuads => NQuadsParser::new()
            .parse(body)
            .for_each_quad(|q| sink.statement(q.s(), q.p(), q.o(), q.g()))
            .map_err(|err| turtle_error(&err, body)),
        // Entity bombs and hostile nesting are refused before the parser pays for them.
        Syntax::RdfXml => super::xml_guard::check(body).and_then(|()| {
            let parser = RdfXmlParser {
                base: Iri::new(base.to_string()).ok(),
            };
            let mut source = parser.parse(body);
            source
                .for_each_triple(|t| match canonical_xml_literal(&t.o()) {
                    Some(literal) => {
                        sink.statement(t.s().as_simple(), t.p().as_simple(), literal, None);
                    }
                    None => sink.statement(t.s(), t.p(), t.o(), None),
                })
                .map_err(|err| one_line(&err.to_string()))
        }),
        Syntax::JsonLd => match std::str::from_utf8(body) {
            Err(err) => Err(utf8_error(body, &err)),
            Ok(text) => {
                let (report, result) = jsonld::parse_json_ld(text, base, contexts, |quad| {
                    sink.statement(quad.s(), quad.p(), quad.o(), quad.g());
                });
                remote_contexts = report.remote;
                missing_contexts = report.missing;
                result
            }
        },
        Syntax::Html | Syntax::Xhtml => {
            let options = html::PageOptions {
                xhtml: syntax == Syntax::Xhtml,
                ..page.clone()
            };
            let registry = MicrodataRegistry::shipped();
            let (report, result) =
                html::extract_embedded(body, &options, base, contexts, registry, sink);
            let result = result.map_err(|error| error.to_string());
            remote_contexts.clone_from(&report.remote_contexts);
            missing_contexts.clone_from(&report.missing_contexts);
            let result = match report.rejected.first() {
                Some(rejected) if result.is_ok() => Err(rejected.clone()),
                _ => result,
            };
            embedded = Some(report);
            result
        }
    };
    ParseOutcome {
        remote_contexts,
        missing_contexts,
        result,
        embedded,
    }
}

thread_local! {
    /// Set while this thread runs a parser under [`isolated`]: its panics are reported as the
    /// document's error, so the panic hook stays quiet about them.
    static ISOLATED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last quiet panic on this thread happened.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// What a parse error says after the syntax when its parser panicked.
const PANICKED: &str = " parser panicked: ";

/// Whether a parse error (or a message that quotes one) is a parser's panic: a failed
/// document, not a document of another kind, and no partial graph to keep.
pub fn parser_panicked(error: &str) -> bool {
    error.contains(PANICKED)
}

/// A parser that panicked on a document (a parser bug, such as sophia slicing inside a
/// character): the document's error, `<media type> parser panicked: <message>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{media_type} parser panicked: {message}")]
pub struct ParserPanic {
    /// The media type of the syntax being parsed.
    pub media_type: &'static str,
    /// The panic's message, on one line.
    pub message: String,
}

/// Runs `parse`, one parser over one document: a panic inside it (a parser bug, such as
/// sophia slicing inside a character) becomes the document's error, `<media type> parser
/// panicked: <message>`, logged with the document, and the run goes on with the next
/// document. This needs unwinding panics, which every profile of the workspace keeps.
pub(crate) fn isolated<T>(
    syntax: Syntax,
    base: &str,
    parse: impl FnOnce() -> T,
) -> Result<T, ParserPanic> {
    catch_parser_panic(parse).map_err(|(message, at)| {
        let error = ParserPanic {
            media_type: syntax.media_type(),
            message,
        };
        // The caller reports the document's error; this adds where the parser broke.
        tracing::info!(document = base, panic_at = %at, "{error}");
        error
    })
}

/// Runs `parse`, returning its panic's message (on one line) and place instead of
/// unwinding further; the panic hook says nothing of it (the caller reports it).
pub(crate) fn catch_parser_panic<T>(parse: impl FnOnce() -> T) -> Result<T, (String, String)> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ISOLATED.with(std::cell::Cell::get) {
                let at = info.location().map(ToString::to_string);
                PANIC_AT.with(|slot| *slot.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    let outer = ISOLATED.with(|flag| flag.replace(true));
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse));
    ISOLATED.with(|flag| flag.set(outer));
    caught.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".to_string());
        let at = PANIC_AT
            .with(|slot| slot.borrow_mut().take())
            .unwrap_or_default();
        (one_line(&message), at)
    })
}

/// Debug builds only, for the tests of [`isolated`] and of its callers: a parser panics on a
/// document that holds the bytes `LDWARC_TEST_PARSER_PANIC` names.
pub(crate) fn inject_panic(body: &[u8]) {
    #[cfg(debug_assertions)]
    {
        static MARKER: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
        let marker = MARKER.get_or_init(|| {
            std::env::var_os("LDWARC_TEST_PARSER_PANIC")
                .filter(|marker| !marker.is_empty())
                .map(|marker| marker.into_encoded_bytes())
        });
        if let Some(marker) = marker
            && memchr::memmem::find(body, marker).is_some()
        {
            panic!("injected parser panic (LDWARC_TEST_PARSER_PANIC)");
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = body;
}

/// An `rdf:XMLLiteral` object with its lexical form exclusive-canonicalised (the RDF/XML
/// parser writes `parseType="Literal"` content as it reads it); `None` for other terms.
fn canonical_xml_literal<T: Term>(object: &T) -> Option<SimpleTerm<'static>> {
    let datatype = object.datatype()?;
    if datatype.as_str() != RDF_XML_LITERAL {
        return None;
    }
    let lexical = object.lexical_form()?;
    let canonical = crate::xml_c14n::canonical_xml_literal(&lexical)?;
    Some(SimpleTerm::LiteralDatatype(
        MownStr::from(canonical),
        IriRef::new_unchecked(MownStr::from(RDF_XML_LITERAL)),
    ))
}

/// A Turtle document through sophia's parser (rewritten first where sophia would read it
/// otherwise than the grammar, see [`turtle_prep`]).
pub(crate) fn parse_turtle<S: StatementSink>(
    body: &[u8],
    base: &str,
    sink: &mut S,
) -> Result<(), String> {
    let body = turtle_prep::for_sophia(body);
    let checks = Checks::for_text(&body, base);
    let parser = TurtleParser::new().with_base(turtle_base(base));
    let mut source = parser.parse(&body[..]);
    source
        .try_for_each_triple(|t| checks.checked(sink, t.s(), t.p(), t.o(), None))
        .map_err(|err| checked_error(err, |err| turtle_error(err, &body)))
}

/// A statement that sophia's Turtle-family parsers let through but the grammar (and the
/// reference parsers) refuse: an IRI made of a prefix and a local name that together are not
/// an IRI (`h::1st` with `h:` for `<http://host.example>`), or a literal typed
/// `rdf:langString` without a language tag or `rdf:dirLangString` without a direction.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct InvalidTerm(String);

const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
const RDF_DIR_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

/// What [`Checks::checked`] looks at in each statement of one text.
#[derive(Clone, Copy)]
pub(crate) struct Checks {
    /// Whether IRIs are checked. Sophia checks every IRI written `<…>` (against the IRI
    /// grammar, or by resolving it against an absolute base), but not those it makes by
    /// appending a local name to a namespace: only a text that declares a prefix can hold
    /// such IRIs, and only where the base is absolute are the others known to be valid.
    iris: bool,
}

impl Checks {
    /// The checks the statements sophia reads from `text` (directives included) need.
    pub(crate) fn for_text(text: &[u8], base: &str) -> Checks {
        let absolute_base = turtle_base(base).is_some_and(|base| base.is_absolute());
        Checks {
            iris: !absolute_base || declares_prefix(text),
        }
    }

    /// Hands a statement to `sink` if each of its terms is valid RDF.
    fn checked<S: StatementSink, T: Term>(
        self,
        sink: &mut S,
        subject: T,
        predicate: T,
        object: T,
        graph: Option<T>,
    ) -> Result<(), InvalidTerm> {
        self.check_term(&subject)?;
        self.check_term(&predicate)?;
        self.check_term(&object)?;
        if let Some(graph) = &graph {
            self.check_term(graph)?;
        }
        sink.statement(subject, predicate, object, graph);
        Ok(())
    }

    fn check_term<T: Term>(self, term: &T) -> Result<(), InvalidTerm> {
        match term.kind() {
            TermKind::Iri if self.iris => term.iri().map_or(Ok(()), |iri| check_iri(iri.as_str())),
            TermKind::Literal => {
                let Some(datatype) = term.datatype() else {
                    return Ok(());
                };
                let datatype = datatype.as_str();
                if self.iris {
                    check_iri(datatype)?;
                }
                if datatype == RDF_LANG_STRING && term.language_tag().is_none() {
                    return Err(InvalidTerm(
                        "a literal typed rdf:langString needs a language tag".to_string(),
                    ));
                }
                if datatype == RDF_DIR_LANG_STRING && term.base_direction().is_none() {
                    return Err(InvalidTerm(
                        "a literal typed rdf:dirLangString needs a language tag and a direction"
                            .to_string(),
                    ));
                }
                Ok(())
            }
            TermKind::Triple => match term.triple() {
                Some(parts) => parts.iter().try_for_each(|part| self.check_term(part)),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

/// Whether `text` may declare a prefix: it holds `prefix` in any case (`@prefix`, SPARQL's
/// `PREFIX`, case-insensitive), found from its `x`s. A text that only mentions the word (in
/// a string, say) is checked all the same.
fn declares_prefix(text: &[u8]) -> bool {
    memchr::memchr2_iter(b'x', b'X', text)
        .any(|at| at >= 5 && text[at - 5..at].eq_ignore_ascii_case(b"prefi"))
}

/// IRIs are checked by a quick scan, and by the IRI grammar (oxiri, as the reference
/// parsers) only when the scan is unsure.
fn check_iri(iri: &str) -> Result<(), InvalidTerm> {
    if turtle_fast::plain_absolute_iri(iri) || oxiri::Iri::parse(iri).is_ok() {
        return Ok(());
    }
    Err(InvalidTerm(format!(
        "<{}> is not a valid IRI",
        one_line(iri)
    )))
}

/// The message of a checked parse that stopped: the parser's error (through `parser`), or
/// the invalid term.
fn checked_error(
    err: sophia::api::source::StreamError<sophia::turtle::parser::Error, InvalidTerm>,
    parser: impl FnOnce(&sophia::turtle::parser::Error) -> String,
) -> String {
    match err {
        sophia::api::source::StreamError::SourceError(err) => parser(&err),
        sophia::api::source::StreamError::SinkError(invalid) => invalid.0,
    }
}

fn turtle_base(base: &str) -> Option<BaseIriRef<Box<str>>> {
    BaseIriRef::new(Box::from(base)).ok()
}

/// Parses N-Triples or N-Quads lines with their blank node labels as written (the caller
/// relabels them), so that pieces of one document parsed apart name their blank nodes alike.
/// The error's line counts from the first line of `lines`.
pub(crate) fn parse_lines<S: StatementSink>(
    lines: &[u8],
    syntax: Syntax,
    sink: &mut S,
) -> Result<(), ParseError> {
    match syntax {
        Syntax::NQuads => NQuadsParser::new()
            .with_preserve_bn_labels(true)
            .parse(lines)
            .for_each_quad(|q| sink.statement(q.s(), q.p(), q.o(), q.g()))
            .map_err(|err| turtle_error_at(&err, lines)),
        _ => NTriplesParser::new()
            .with_preserve_bn_labels(true)
            .parse(lines)
            .for_each_triple(|t| sink.statement(t.s(), t.p(), t.o(), None))
            .map_err(|err| turtle_error_at(&err, lines)),
    }
}

/// Parses a piece of a Turtle document (already rewritten by [`turtle_prep::for_sophia`])
/// that starts between two statements, after `prelude` (the directives before the piece),
/// with the blank node labels as written: the parser's own
/// (for `[]` and collections) are `bn` and four digits or more, and it adds `d` to the
/// document's labels that look like those. The error's line counts from the prelude's first.
pub(crate) fn parse_turtle_piece<S: StatementSink>(
    prelude: &[u8],
    piece: &[u8],
    base: &str,
    sink: &mut S,
) -> Result<(), ParseError> {
    let text = if prelude.is_empty() {
        std::borrow::Cow::Borrowed(piece)
    } else {
        std::borrow::Cow::Owned([prelude, piece].concat())
    };
    let checks = Checks::for_text(&text, base);
    TurtleParser::new()
        .with_base(turtle_base(base))
        .with_preserve_bn_labels(true)
        .parse(&text[..])
        .try_for_each_triple(|t| checks.checked(sink, t.s(), t.p(), t.o(), None))
        .map_err(|err| match err {
            sophia::api::source::StreamError::SourceError(err) => turtle_error_at(&err, &text),
            sophia::api::source::StreamError::SinkError(invalid) => ParseError {
                what: invalid.0,
                line: 0,
                column: 0,
            },
        })
}

/// Why and where (1-based line and column; 0 when unknown) a parse stopped.
#[derive(Debug)]
pub(crate) struct ParseError {
    what: String,
    line: usize,
    column: usize,
}

impl ParseError {
    /// The same error in a text with `added` more lines before it and `removed` fewer.
    pub(crate) fn moved(self, added: usize, removed: usize) -> ParseError {
        if self.line == 0 {
            return self;
        }
        ParseError {
            line: (self.line + added).saturating_sub(removed),
            ..self
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Line 0: an invalid term, which the parser hands over without a position.
        if self.line == 0 {
            return f.write_str(&self.what);
        }
        write!(
            f,
            "{} at line {}, column {}",
            self.what, self.line, self.column
        )
    }
}

/// The Turtle family's errors, with 1-based line and column.
fn turtle_error(err: &sophia::turtle::parser::Error, body: &[u8]) -> String {
    turtle_error_at(err, body).to_string()
}

/// The parsers report invalid UTF-8 as an I/O error without a useful position, so we locate
/// it ourselves.
fn turtle_error_at(err: &sophia::turtle::parser::Error, body: &[u8]) -> ParseError {
    if let sophia::turtle::parser::ErrorKind::IO(io) = err.kind()
        && io.kind() == std::io::ErrorKind::InvalidData
        && let Err(utf8) = std::str::from_utf8(body)
    {
        return utf8_error_at(body, &utf8);
    }
    let (line, column) = err.position();
    ParseError {
        what: one_line(&err.kind().to_string()),
        line: line + 1,
        column: column + 1,
    }
}

fn utf8_error(body: &[u8], err: &std::str::Utf8Error) -> String {
    utf8_error_at(body, err).to_string()
}

fn utf8_error_at(body: &[u8], err: &std::str::Utf8Error) -> ParseError {
    let valid = std::str::from_utf8(&body[..err.valid_up_to()]).unwrap_or_default();
    let (line, column) = jsonld::line_column(valid, valid.len());
    ParseError {
        what: "invalid UTF-8".to_string(),
        line,
        column,
    }
}

fn one_line(message: &str) -> String {
    message.replace(['\n', '\r'], " ")
}
