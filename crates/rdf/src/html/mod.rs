//! Linked Data embedded in HTML and XHTML pages: RDFa 1.1, Microdata (mapped to RDF as the
//! W3C Microdata to RDF note says), and RDF in `<script>` blocks (JSON-LD, Turtle,
//! N-Triples, N-Quads, TriG).
//!
//! Pages are parsed with html5ever (WHATWG HTML parsing, as browsers do) or, for XHTML, with
//! an XML parser (falling back to HTML parsing when the page is not well-formed). Every
//! syntax contributes to one graph; [`EmbeddedReport`] says which found what, so callers can
//! tell an RDFa page from a JSON-LD one.

mod dom;
mod microdata;
mod rdfa;
mod scripts;
mod vocab;

use std::collections::HashMap;

use sophia::api::term::SimpleTerm;
use sophia::api::term::{BnodeId, IriRef, LanguageTag};

pub use microdata::{MicrodataRegistry, RegistryError};

use super::graph::{Graph, GraphBuilder};
use super::jsonld::ContextSource;
use super::parse::{ParserPanic, StatementSink, inject_panic, isolated};
use super::syntax::Syntax;

pub(crate) const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
pub(crate) const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// Pages larger than this are not searched for embedded data (html5ever builds the whole
/// tree in memory).
pub const MAX_HTML_BYTES: usize = 64 << 20;

/// What each embedded syntax contributed to a page's graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmbeddedReport {
    /// Triples from RDFa attributes.
    pub rdfa: u64,
    /// Triples from Microdata items.
    pub microdata: u64,
    /// `<script type="application/ld+json">` blocks found (parsed or not).
    pub json_ld_blocks: u32,
    /// Statements from JSON-LD blocks.
    pub json_ld: u64,
    /// Script blocks in the Turtle family (`text/turtle`, N-Triples, N-Quads, TriG).
    pub turtle_blocks: u32,
    /// Statements from those blocks.
    pub turtle: u64,
    /// One line per problem that cost some data but not the rest of the page: a script block
    /// that could not be (wholly) parsed, named by its position among the page's data blocks
    /// (the other blocks are kept); a Microdata `itemref` cycle; elements nested too deep.
    pub errors: Vec<String>,
    /// Links that announce an RDF version of the page (`<link rel="alternate">` with an RDF
    /// media type), resolved against the base.
    pub alternates: Vec<String>,
    /// JSON-LD blocks: every remote `@context` referenced.
    pub remote_contexts: Vec<String>,
    /// JSON-LD blocks: the remote contexts no source had.
    pub missing_contexts: Vec<String>,
    /// Errors a conforming processor must reject the page for (a Microdata `itemref`
    /// cycle, as the Microdata to RDF tests require); the rest of the data is still read.
    pub rejected: Vec<String>,
}

impl EmbeddedReport {
    /// All statements found, every syntax together.
    pub fn total(&self) -> u64 {
        self.rdfa + self.microdata + self.json_ld + self.turtle
    }

    /// A one-line summary, e.g. `rdfa 12, microdata 0, json-ld 7 (2 blocks), turtle 0`.
    pub fn summary(&self) -> String {
        format!(
            "rdfa {}, microdata {}, json-ld {} ({} blocks), turtle {} ({} blocks)",
            self.rdfa,
            self.microdata,
            self.json_ld,
            self.json_ld_blocks,
            self.turtle,
            self.turtle_blocks
        )
    }
}

/// Which RDFa graph a page yields (RDFa Core 1.1 §7.6): the output graph (the data), the
/// processor graph (the problems met, as `rdfa:Error`/`rdfa:Warning` resources), or both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RdfaGraph {
    /// The data only (the default).
    #[default]
    Output,
    /// The processor graph only: none of the page's data.
    Processor,
    /// The data and the processor graph together.
    Both,
}

/// An RDFa graph name that is not one of `output`, `processor`, `both`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown RDFa graph {0:?} (expected output, processor or both)")]
pub struct UnknownRdfaGraph(pub String);

impl std::str::FromStr for RdfaGraph {
    type Err = UnknownRdfaGraph;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "output" => Ok(RdfaGraph::Output),
            "processor" => Ok(RdfaGraph::Processor),
            "both" => Ok(RdfaGraph::Both),
            _ => Err(UnknownRdfaGraph(value.to_string())),
        }
    }
}

/// How a page is read: everything beyond its bytes and base.
#[derive(Clone, Debug, Default)]
pub struct PageOptions {
    /// Served as XHTML (parsed as XML when well-formed).
    pub xhtml: bool,
    /// The `charset` parameter of the HTTP `Content-Type`, which takes precedence over what
    /// the page declares (a byte order mark still wins, as in browsers).
    pub charset: Option<String>,
    /// The RDFa graph wanted.
    pub rdfa_graph: RdfaGraph,
    /// The embedded syntaxes read; the others are skipped (and count 0 in the report).
    pub syntaxes: EmbeddedSyntaxes,
}

/// A choice of embedded syntaxes, e.g. from `--syntax rdfa,jsonld`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddedSyntaxes {
    /// RDFa attributes.
    pub rdfa: bool,
    /// Microdata items.
    pub microdata: bool,
    /// `<script type="application/ld+json">` blocks.
    pub json_ld: bool,
    /// Turtle-family script blocks (Turtle, N-Triples, N-Quads, TriG).
    pub turtle: bool,
}

impl Default for EmbeddedSyntaxes {
    fn default() -> Self {
        EmbeddedSyntaxes {
            rdfa: true,
            microdata: true,
            json_ld: true,
            turtle: true,
        }
    }
}

/// A name in a list of embedded syntaxes that is not `rdfa`, `microdata`, `jsonld` or
/// `turtle` (the name as written, trimmed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown embedded syntax {0:?} (expected rdfa, microdata, jsonld or turtle)")]
pub struct UnknownEmbeddedSyntax(pub String);

impl std::str::FromStr for EmbeddedSyntaxes {
    type Err = UnknownEmbeddedSyntax;

    /// A comma-separated list of `rdfa`, `microdata`, `jsonld` (or `json-ld`), `turtle`.
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let mut chosen = EmbeddedSyntaxes {
            rdfa: false,
            microdata: false,
            json_ld: false,
            turtle: false,
        };
        for name in value.split(',').map(str::trim) {
            match name.to_ascii_lowercase().as_str() {
                "rdfa" => chosen.rdfa = true,
                "microdata" => chosen.microdata = true,
                "jsonld" | "json-ld" => chosen.json_ld = true,
                "turtle" => chosen.turtle = true,
                _ => return Err(UnknownEmbeddedSyntax(name.to_string())),
            }
        }
        Ok(chosen)
    }
}

const RDFA_NS: &str = "http://www.w3.org/ns/rdfa#";
const DC_DESCRIPTION: &str = "http://purl.org/dc/terms/description";

/// An RDF term as the processors build it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Term {
    Iri(String),
    Blank(String),
    Literal {
        lexical: String,
        datatype: Option<String>,
        language: Option<String>,
    },
}

impl Term {
    pub(crate) fn typed(lexical: String, datatype: String) -> Term {
        Term::Literal {
            lexical,
            datatype: Some(datatype),
            language: None,
        }
    }

    fn to_sophia(&self) -> SimpleTerm<'static> {
        match self {
            Term::Iri(iri) => SimpleTerm::Iri(IriRef::new_unchecked(iri.clone().into())),
            Term::Blank(label) => {
                SimpleTerm::BlankNode(BnodeId::new_unchecked(label.clone().into()))
            }
            Term::Literal {
                lexical,
                language: Some(language),
                ..
            } => SimpleTerm::LiteralLanguage(
                lexical.clone().into(),
                LanguageTag::new_unchecked(language.clone().into()),
                None,
            ),
            Term::Literal {
                lexical, datatype, ..
            } => SimpleTerm::LiteralDatatype(
                lexical.clone().into(),
                IriRef::new_unchecked(datatype.clone().unwrap_or(format!("{XSD}string")).into()),
            ),
        }
    }
}

/// Collects the statements of one processor, with blank node labels of its own so that the
/// processors (and script blocks) of one page never share a blank node by accident.
pub(crate) struct Emitter {
    scope: String,
    fresh: usize,
    named: HashMap<String, Term>,
    statements: Vec<[Term; 4]>,
}

impl Emitter {
    pub(crate) fn new(scope: &str) -> Self {
        Emitter {
            scope: scope.to_string(),
            fresh: 0,
            named: HashMap::new(),
            statements: Vec::new(),
        }
    }

    /// A new blank node.
    pub(crate) fn fresh_blank(&mut self) -> Term {
        self.fresh += 1;
        Term::Blank(format!("{}g{}", self.scope, self.fresh))
    }

    /// The blank node a document calls `label` (the same one each time).
    pub(crate) fn named_blank(&mut self, label: &str) -> Term {
        let next = self.named.len();
        let scope = &self.scope;
        self.named
            .entry(label.to_string())
            .or_insert_with(|| Term::Blank(format!("{scope}n{next}")))
            .clone()
    }

    pub(crate) fn triple(&mut self, subject: Term, predicate: Term, object: Term) {
        self.statements.push([subject, predicate, object, DEFAULT]);
    }

    fn quad(&mut self, statement: [Term; 4]) {
        self.statements.push(statement);
    }

    fn len(&self) -> u64 {
        self.statements.len() as u64
    }
}

/// Stands for the default graph in an emitted statement.
const DEFAULT: Term = Term::Iri(String::new());

/// Extracts every embedded syntax of a page (`xhtml`: served as XHTML) against `base`, the
/// page URL, into `sink`. `<base href>` overrides `base`.
pub(crate) fn extract_embedded<S: StatementSink>(
    body: &[u8],
    options: &PageOptions,
    base: &str,
    contexts: &dyn ContextSource,
    registry: &MicrodataRegistry,
    sink: &mut S,
) -> (EmbeddedReport, Result<(), PageError>) {
    let mut report = EmbeddedReport::default();
    if body.len() > MAX_HTML_BYTES {
        let error = PageError::TooLarge {
            bytes: body.len(),
            limit: MAX_HTML_BYTES,
        };
        return (report, Err(error));
    }
    let text = decode_page(body, options.charset.as_deref());
    let document = dom::parse(&text, options.xhtml);
    let url = base;
    let base = document_base(&document.root, url);

    let chosen = options.syntaxes;
    let mut rdfa_out = Emitter::new("r");
    let problems = if chosen.rdfa {
        rdfa::extract(&document, &base, url, contexts, &mut rdfa_out)
    } else {
        Vec::new()
    };
    report.rdfa = rdfa_out.len();
    if options.rdfa_graph != RdfaGraph::Output {
        let mut processor_out = Emitter::new("p");
        processor_graph(&problems, &mut processor_out);
        if options.rdfa_graph == RdfaGraph::Processor {
            deliver(processor_out, sink);
            return (report, Ok(()));
        }
        deliver(processor_out, sink);
    }
    let mut microdata_out = Emitter::new("m");
    if chosen.microdata {
        let (errors, cycles) =
            microdata::extract(&document.root, &base, registry, &mut microdata_out);
        report.errors = errors;
        report.errors.extend(cycles.iter().cloned());
        report.rejected = cycles;
    }
    report.microdata = microdata_out.len();
    let mut script_out = Emitter::new("s");
    scripts::extract(
        &document.root,
        &base,
        contexts,
        (chosen.json_ld, chosen.turtle),
        &mut report,
        &mut script_out,
    );
    report.alternates = scripts::alternates(&document.root, &base);

    for emitter in [rdfa_out, microdata_out, script_out] {
        deliver(emitter, sink);
    }
    if let Some(offset) = document.cut_at {
        let limit = dom::MAX_PARSE_DEPTH;
        report.errors.push(format!(
            "elements nested deeper than {limit}: the page after byte {offset} was not read"
        ));
    }
    if document.truncated {
        let limit = dom::MAX_DEPTH;
        report
            .errors
            .push(format!("elements nested deeper than {limit} were ignored"));
    }
    (report, Ok(()))
}

/// Why a page gave no graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    /// The page is larger than [`MAX_HTML_BYTES`]; its embedded data is not read.
    #[error("page larger than {limit} bytes: embedded data not read")]
    TooLarge {
        /// The page's size in bytes.
        bytes: usize,
        /// The largest page read.
        limit: usize,
    },
    /// One of the page's parsers panicked (a parser bug, isolated to this page).
    #[error(transparent)]
    Panicked(#[from] ParserPanic),
}

/// Parses a page into a graph with a Microdata registry of the caller's choosing (parsing as
/// [`Syntax::Html`](super::Syntax::Html) uses the registry shipped with ldwarc). Blank nodes are
/// labelled as [`parse_graph`](super::parse_graph) labels them. Never touches the network.
pub fn parse_page(
    body: &[u8],
    xhtml: bool,
    base: &str,
    contexts: &dyn ContextSource,
    registry: &MicrodataRegistry,
) -> Result<(Graph, EmbeddedReport), PageError> {
    let options = PageOptions {
        xhtml,
        ..PageOptions::default()
    };
    parse_page_with(body, &options, base, contexts, registry)
}

/// [`parse_page`] with every option. `documents` supplies JSON-LD contexts and the RDFa
/// vocabulary documents that vocabulary expansion needs (expansion happens when it has
/// them).
pub fn parse_page_with(
    body: &[u8],
    options: &PageOptions,
    base: &str,
    documents: &dyn ContextSource,
    registry: &MicrodataRegistry,
) -> Result<(Graph, EmbeddedReport), PageError> {
    let mut builder = GraphBuilder::default();
    let syntax = if options.xhtml {
        Syntax::Xhtml
    } else {
        Syntax::Html
    };
    // A panic in one of the page's parsers is the page's error, as for every document.
    let (report, result) = isolated(syntax, base, || {
        inject_panic(body);
        extract_embedded(body, options, base, documents, registry, &mut builder)
    })?;
    result.map(|()| (builder.graph, report))
}

/// The RDFa processor graph: one resource per problem, typed with its `rdfa:` class.
fn processor_graph(problems: &[rdfa::Problem], out: &mut Emitter) {
    for (class, description) in problems {
        let node = out.fresh_blank();
        out.triple(
            node.clone(),
            Term::Iri(format!("{RDF}type")),
            Term::Iri(format!("{RDFA_NS}{class}")),
        );
        out.triple(
            node,
            Term::Iri(DC_DESCRIPTION.to_string()),
            Term::Literal {
                lexical: description.clone(),
                datatype: None,
                language: None,
            },
        );
    }
}

fn deliver<S: StatementSink>(emitter: Emitter, sink: &mut S) {
    for [subject, predicate, object, graph] in emitter.statements {
        let graph = (graph != DEFAULT).then(|| graph.to_sophia());
        sink.statement(
            subject.to_sophia(),
            predicate.to_sophia(),
            object.to_sophia(),
            graph,
        );
    }
}

/// The text of a page: its byte order mark, else the charset of the HTTP `Content-Type`
/// (`transport`), else the charset its first 1024 bytes declare (`<meta charset>`, `<meta
/// http-equiv="Content-Type">` or the XML declaration), else UTF-8 — the order of the HTML
/// encoding sniffing algorithm. Bytes invalid in the encoding become U+FFFD, as browsers
/// show them.
fn decode_page<'b>(body: &'b [u8], transport: Option<&str>) -> std::borrow::Cow<'b, str> {
    use std::sync::LazyLock;
    static DECLARED: LazyLock<Option<regex::bytes::Regex>> = LazyLock::new(|| {
        regex::bytes::Regex::new(
            r#"(?i)(?:<meta[^>]*charset\s*=\s*["']?|<\?xml[^>]*encoding\s*=\s*["'])([a-z0-9_:.\-]+)"#,
        )
        .ok()
    });
    if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(body) {
        return encoding.decode_with_bom_removal(body).0;
    }
    if let Some(encoding) =
        transport.and_then(|label| encoding_rs::Encoding::for_label(label.trim().as_bytes()))
    {
        return encoding.decode_without_bom_handling(body).0;
    }
    let head = &body[..body.len().min(1024)];
    let declared = DECLARED
        .as_ref()
        .and_then(|regex| regex.captures(head))
        .and_then(|captures| encoding_rs::Encoding::for_label(captures.get(1)?.as_bytes()));
    match declared {
        // A page cannot really be UTF-16 if its ASCII declaration was readable.
        Some(encoding)
            if encoding != encoding_rs::UTF_16LE && encoding != encoding_rs::UTF_16BE =>
        {
            encoding.decode_without_bom_handling(body).0
        }
        _ => String::from_utf8_lossy(body),
    }
}

/// The `charset` parameter of a media type, unquoted.
pub fn charset_parameter(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_string())
    })
}

/// The base of a page: the first `<base href>`, resolved against the page URL.
fn document_base(root: &dom::Element, url: &str) -> String {
    root.descendants()
        .into_iter()
        .find(|element| element.name == "base" && element.has("href"))
        .and_then(|element| resolve(url, element.attr("href").unwrap_or("").trim()))
        .map_or_else(|| url.to_string(), strip_fragment)
}

fn strip_fragment(iri: String) -> String {
    match iri.find('#') {
        Some(index) => iri[..index].to_string(),
        None => iri,
    }
}

/// Resolves a reference against a base as RFC 3986 says, without normalising, so that a
/// page's IRIs are kept as written. References that are not valid IRIs are resolved by the
/// WHATWG URL rules instead (percent-encoding what must be), as browsers do.
pub(crate) fn resolve(base: &str, reference: &str) -> Option<String> {
    let parsed = oxiri::Iri::parse(base.to_string()).ok()?;
    if let Ok(resolved) = parsed.resolve(reference) {
        return Some(resolved.into_inner());
    }
    url::Url::parse(base)
        .ok()?
        .join(reference)
        .ok()
        .map(String::from)
}

/// The XML Schema datatype a date, time or duration is written in (HTML `<time>` rules), or
/// `None` when the text is none of them.
pub(crate) fn datetime_datatype(text: &str) -> Option<&'static str> {
    use std::sync::LazyLock;
    static PATTERNS: LazyLock<Vec<(regex::Regex, &'static str)>> = LazyLock::new(|| {
        let zone = r"(Z|[+-]\d{2}:\d{2})?";
        let time = r"\d{2}:\d{2}(:\d{2}(\.\d+)?)?";
        [
            (
                r"-?P(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?".to_string(),
                "duration",
            ),
            (
                format!(r"-?\d{{4,}}-\d{{2}}-\d{{2}}T{time}{zone}"),
                "dateTime",
            ),
            (format!(r"-?\d{{4,}}-\d{{2}}-\d{{2}}{zone}"), "date"),
            (format!(r"{time}{zone}"), "time"),
            (format!(r"-?\d{{4,}}-\d{{2}}{zone}"), "gYearMonth"),
            (format!(r"-?\d{{4,}}{zone}"), "gYear"),
        ]
        .into_iter()
        .filter_map(|(pattern, datatype)| {
            regex::Regex::new(&format!("^(?:{pattern})$"))
                .ok()
                .map(|regex| (regex, datatype))
        })
        .collect()
    });
    if text == "P" || text.ends_with('T') {
        return None;
    }
    PATTERNS
        .iter()
        .find(|(regex, _)| regex.is_match(text))
        .map(|(_, datatype)| *datatype)
}

#[cfg(test)]
mod tests;
