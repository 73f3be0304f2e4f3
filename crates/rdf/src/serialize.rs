//! Writing a [`Graph`] in ldwarc's output syntaxes (`ldwarc replay --format`, content
//! negotiation in `ldwarc serve`): the [`OutputFormat`]s, `Accept` header negotiation, and
//! [`write_graph`].
//!
//! N-Triples and N-Quads come straight from the graph's canonical spellings. Turtle and TriG are
//! pretty-printed by sophia with the common prefixes the graph actually uses; JSON-LD (expanded
//! form) and RDF/XML go through sophia's serializers after checking that the graph fits them, so
//! that nothing is dropped silently. Blank nodes keep the graph's `b0`, `b1`, … labels wherever
//! the syntax shows labels.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::str::FromStr;

use sophia::api::MownStr;
use sophia::api::prefix::{Prefix, PrefixMapPair};
use sophia::api::serializer::{QuadSerializer, TripleSerializer};
use sophia::api::source::{IntoSource, StreamError};
use sophia::api::term::{BaseDirection, BnodeId, IriRef, LanguageTag, SimpleTerm};
use sophia::iri::Iri;
use sophia::jsonld::JsonLdOptions;
use sophia::jsonld::serializer::JsonLdSerializer;
use sophia::turtle::serializer::trig::TriGSerializer;
use sophia::turtle::serializer::turtle::{TurtleConfig, TurtleSerializer};
use sophia::xml::serializer::RdfXmlSerializer;

use super::graph::{DEFAULT_GRAPH, Graph, Quad, TermId, TermSort};
use super::syntax::{Syntax, UnknownSyntax};

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const RDF_TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

/// Namespaces declared in Turtle and TriG output when the output uses them (and only then).
const COMMON_PREFIXES: &[(&str, &str)] = &[
    ("rdf", RDF),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", XSD),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("dctype", "http://purl.org/dc/dcmitype/"),
    ("schema", "http://schema.org/"),
    ("sdo", "https://schema.org/"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("void", "http://rdfs.org/ns/void#"),
    ("dcat", "http://www.w3.org/ns/dcat#"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("geo", "http://www.w3.org/2003/01/geo/wgs84_pos#"),
    ("sioc", "http://rdfs.org/sioc/ns#"),
    ("doap", "http://usefulinc.com/ns/doap#"),
    ("vcard", "http://www.w3.org/2006/vcard/ns#"),
    ("org", "http://www.w3.org/ns/org#"),
    ("time", "http://www.w3.org/2006/time#"),
    ("sh", "http://www.w3.org/ns/shacl#"),
    ("ldp", "http://www.w3.org/ns/ldp#"),
    ("as", "https://www.w3.org/ns/activitystreams#"),
    ("cc", "http://creativecommons.org/ns#"),
    ("bibo", "http://purl.org/ontology/bibo/"),
    ("gr", "http://purl.org/goodrelations/v1#"),
    ("dbo", "http://dbpedia.org/ontology/"),
    ("dbr", "http://dbpedia.org/resource/"),
    ("wd", "http://www.wikidata.org/entity/"),
    ("wdt", "http://www.wikidata.org/prop/direct/"),
];

/// RDF/XML syntax terms that cannot be written as predicates (the RDF/XML grammar reserves them).
const RDFXML_RESERVED: &[&str] = &[
    "Description",
    "li",
    "RDF",
    "ID",
    "about",
    "parseType",
    "resource",
    "nodeID",
    "datatype",
];

/// One of the syntaxes ldwarc writes graphs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    /// N-Triples (`nt`): one triple per line; no named graphs.
    NTriples,
    /// Turtle (`ttl`), pretty-printed with prefixes; no named graphs.
    Turtle,
    /// N-Quads (`nq`): one statement per line, with graph names.
    NQuads,
    /// TriG (`trig`): Turtle with `GRAPH` blocks.
    TriG,
    /// JSON-LD (`jsonld`) in expanded form (no `@context`), with named graphs.
    JsonLd,
    /// RDF/XML (`rdfxml`); no named graphs, and predicates must end in an XML name.
    RdfXml,
}

impl OutputFormat {
    /// Every format, in the server's order of preference when a client accepts several equally:
    /// the order of the crawler's [`DEFAULT_ACCEPT`](super::DEFAULT_ACCEPT).
    pub const ALL: [OutputFormat; 6] = [
        OutputFormat::Turtle,
        OutputFormat::NTriples,
        OutputFormat::NQuads,
        OutputFormat::TriG,
        OutputFormat::JsonLd,
        OutputFormat::RdfXml,
    ];

    /// The syntax of this format, e.g. to parse what was written.
    pub fn syntax(self) -> Syntax {
        match self {
            OutputFormat::NTriples => Syntax::NTriples,
            OutputFormat::Turtle => Syntax::Turtle,
            OutputFormat::NQuads => Syntax::NQuads,
            OutputFormat::TriG => Syntax::TriG,
            OutputFormat::JsonLd => Syntax::JsonLd,
            OutputFormat::RdfXml => Syntax::RdfXml,
        }
    }

    /// The command-line name: `nt`, `ttl`, `nq`, `trig`, `jsonld` or `rdfxml`.
    pub fn name(self) -> &'static str {
        self.syntax().name()
    }

    /// The registered media type, without parameters (the output is always UTF-8, so serve
    /// may add `; charset=utf-8`).
    pub fn media_type(self) -> &'static str {
        self.syntax().media_type()
    }

    /// The usual file extension, without the dot (`rdf` for RDF/XML).
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::NTriples => "nt",
            OutputFormat::Turtle => "ttl",
            OutputFormat::NQuads => "nq",
            OutputFormat::TriG => "trig",
            OutputFormat::JsonLd => "jsonld",
            OutputFormat::RdfXml => "rdf",
        }
    }

    /// Whether the format can write named graphs (N-Quads, TriG, JSON-LD).
    pub fn has_graphs(self) -> bool {
        self.syntax().has_graphs()
    }

    /// The format an `Accept` header prefers among all of ours, or `None` when it accepts
    /// none of them (answer 406). See [`OutputFormat::negotiate`].
    pub fn from_accept(accept: &str) -> Option<OutputFormat> {
        Self::negotiate(accept, &Self::ALL)
    }

    /// The format an `Accept` header prefers among `offered` (listed in the server's order of
    /// preference), or `None` when it accepts none of them.
    ///
    /// Each format takes the weight (`q`) of the most specific media range that matches one of
    /// its media types (`type/subtype` over `type/*` over `*/*`, as RFC 9110 says), so
    /// `text/turtle;q=0, */*` refuses Turtle. The highest weight wins; ties go to the format
    /// named explicitly, then to the earlier one in `offered`. Matching ignores case and media
    /// type parameters; ranges with a malformed `q` are ignored; a blank header means `*/*`.
    /// Aliases named explicitly count as the format's own types (wildcards match only the
    /// registered type): `text/n3` is Turtle, `application/json` is JSON-LD and
    /// `application/xml` or `text/xml` is RDF/XML (so a browser's `application/xml;q=0.9`
    /// picks RDF/XML: serve should look for `text/html` first).
    pub fn negotiate(accept: &str, offered: &[OutputFormat]) -> Option<OutputFormat> {
        let ranges = media_ranges(accept);
        let mut chosen: Option<(OutputFormat, (u16, u8))> = None;
        for &format in offered {
            let Some(score) = format.acceptance(&ranges) else {
                continue;
            };
            if score.0 > 0 && chosen.is_none_or(|(_, best)| score > best) {
                chosen = Some((format, score));
            }
        }
        chosen.map(|(format, _)| format)
    }

    /// Media types this format answers for in negotiation, the registered one first.
    fn media_types(self) -> &'static [&'static str] {
        match self {
            OutputFormat::NTriples => &["application/n-triples"],
            OutputFormat::Turtle => &[
                "text/turtle",
                "application/x-turtle",
                "text/n3",
                "text/rdf+n3",
            ],
            OutputFormat::NQuads => &["application/n-quads", "text/x-nquads"],
            OutputFormat::TriG => &["application/trig", "application/x-trig"],
            OutputFormat::JsonLd => &["application/ld+json", "application/json"],
            OutputFormat::RdfXml => &["application/rdf+xml", "application/xml", "text/xml"],
        }
    }

    /// (weight in thousandths, specificity) of the most specific range accepting this format.
    fn acceptance(self, ranges: &[MediaRange]) -> Option<(u16, u8)> {
        let mut best: Option<(u8, u16)> = None;
        for range in ranges {
            for (n, media_type) in self.media_types().iter().enumerate() {
                // Wildcards only match the registered type, the one the answer is labelled
                // with: `text/*` must not pick RDF/XML through `text/xml`.
                let Some(specificity) = range.specificity(media_type) else {
                    continue;
                };
                if n > 0 && specificity < 2 {
                    continue;
                }
                let better = best.is_none_or(|(kept, weight)| {
                    specificity > kept || (specificity == kept && range.weight > weight)
                });
                if better {
                    best = Some((specificity, range.weight));
                }
            }
        }
        best.map(|(specificity, weight)| (weight, specificity))
    }
}

impl From<Syntax> for OutputFormat {
    fn from(syntax: Syntax) -> Self {
        match syntax {
            Syntax::NTriples => OutputFormat::NTriples,
            Syntax::Turtle => OutputFormat::Turtle,
            Syntax::NQuads => OutputFormat::NQuads,
            Syntax::TriG => OutputFormat::TriG,
            Syntax::JsonLd => OutputFormat::JsonLd,
            Syntax::RdfXml => OutputFormat::RdfXml,
            // A page's graph may have named graphs (from its JSON-LD blocks).
            Syntax::Html | Syntax::Xhtml => OutputFormat::NQuads,
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OutputFormat {
    type Err = UnknownSyntax;

    /// Accepts the names `nt`, `ttl`, `nq`, `trig`, `jsonld`, `rdfxml` (any case), the
    /// spellings [`Syntax`] accepts, and the media types of [`OutputFormat::negotiate`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        // `json` is the command-line vocabulary's name for JSON output: here, JSON-LD.
        if text.eq_ignore_ascii_case("json") {
            return Ok(OutputFormat::JsonLd);
        }
        if let Ok(syntax) = text.parse::<Syntax>()
            && !syntax.is_page()
        {
            return Ok(syntax.into());
        }
        let essence = text.split(';').next().unwrap_or_default().trim();
        Self::ALL
            .into_iter()
            .find(|format| {
                format
                    .media_types()
                    .iter()
                    .any(|media_type| media_type.eq_ignore_ascii_case(essence))
            })
            .ok_or_else(|| UnknownSyntax(text.to_string()))
    }
}

/// Why a graph could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SerializeError {
    /// A triple-only format was asked to write a graph with named graphs.
    #[error("the graph has named graphs, which {format} cannot write: use nq, trig or jsonld")]
    NamedGraphs {
        /// The format asked for.
        format: OutputFormat,
    },
    /// The graph holds something the format has no syntax for.
    #[error("cannot write {format}: {reason}")]
    Unrepresentable {
        /// The format asked for.
        format: OutputFormat,
        /// What cannot be written, and which formats can.
        reason: String,
    },
    /// A term's spelling in the graph is not valid N-Triples: a malformed spelling, or an IRI,
    /// blank node label or language tag that is not valid RDF.
    #[error("the graph holds a term that is not valid RDF: {spelling}")]
    MalformedTerm {
        /// The offending spelling.
        spelling: String,
    },
    /// Writing to the output failed.
    #[error("writing {format} failed: {source}")]
    Io {
        /// The format being written.
        format: OutputFormat,
        /// The output's error.
        #[source]
        source: io::Error,
    },
    /// sophia's serializer failed.
    #[error("writing {format} failed: {detail}")]
    Serializer {
        /// The format being written.
        format: OutputFormat,
        /// The serializer's error, on one line.
        detail: String,
    },
}

/// Writes `graph` to `out` in `format` (buffered internally; `out` is flushed at the end).
///
/// - `nt` and `nq` are the graph's canonical spellings, one statement per line, in insertion
///   order (fast: no conversion).
/// - `ttl` and `trig` are pretty-printed (grouped subjects, `[ ]` for blank nodes used once,
///   `( )` for lists) with `PREFIX` lines for the common namespaces the graph uses. When `base`
///   is an absolute IRI, the empty prefix `:` is bound to the document's own namespace
///   (`base#` or the base's directory, whichever abbreviates more IRIs). Large graphs are
///   pretty-printed piece by piece (a piece never splits what blank nodes connect), and a
///   blank-node structure of more than 1,000 statements is written unsugared, so the cost
///   stays linear. The text is built in memory first, to declare only the prefixes it uses.
/// - `jsonld` is expanded JSON-LD (no `@context`), indented, keys sorted (built in memory);
///   RDF 1.2 triple terms are refused.
/// - `rdfxml` groups statements by subject. Refused: predicates that do not end in an XML name
///   (`http://e.org/123`) or are RDF/XML syntax terms (`rdf:about`…), literals with characters
///   XML 1.0 cannot carry (control characters other than tab, line feed, carriage return),
///   triple terms as subjects. `base` is not used (sophia's writer takes none).
///
/// The triple-only formats (`nt`, `ttl`, `rdfxml`) refuse a graph with named graphs rather
/// than drop graph names: [`SerializeError::NamedGraphs`] suggests `nq`, `trig` or `jsonld`.
pub fn write_graph(
    graph: &Graph,
    format: OutputFormat,
    base: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), SerializeError> {
    if !format.has_graphs() && graph.has_named_graphs() {
        return Err(SerializeError::NamedGraphs { format });
    }
    let io_error = |source| SerializeError::Io { format, source };
    let mut out = BufWriter::with_capacity(1 << 16, out);
    match format {
        OutputFormat::NTriples | OutputFormat::NQuads => {
            graph.write_nquads(&mut out).map_err(io_error)?;
        }
        OutputFormat::Turtle | OutputFormat::TriG => {
            let terms = sophia_terms(graph)?;
            let limits = ChunkLimits::DEFAULT;
            write_turtle_family(graph, &terms, format, base, limits, &mut out)?;
        }
        OutputFormat::JsonLd => write_jsonld(graph, &sophia_terms(graph)?, &mut out)?,
        OutputFormat::RdfXml => write_rdfxml(graph, &sophia_terms(graph)?, &mut out)?,
    }
    out.flush().map_err(io_error)
}

// ---------------------------------------------------------------------------------------------
// Graph spellings as sophia terms

/// The graph's terms as sophia terms borrowing from its spellings, indexed by [`TermId`].
fn sophia_terms(graph: &Graph) -> Result<Vec<SimpleTerm<'_>>, SerializeError> {
    (0..graph.term_count())
        .map(|index| term_from_spelling(graph.term(index as TermId)))
        .collect()
}

/// One term from its N-Triples spelling (see [`spell_term`](super::spell_term)).
fn term_from_spelling(spelling: &str) -> Result<SimpleTerm<'_>, SerializeError> {
    match parse_term(spelling) {
        Some((term, rest)) if rest.trim().is_empty() => Ok(term),
        _ => Err(SerializeError::MalformedTerm {
            spelling: spelling.to_string(),
        }),
    }
}

/// Parses the term at the start of `text`, returning it and the text after it.
fn parse_term(text: &str) -> Option<(SimpleTerm<'_>, &str)> {
    if let Some(rest) = text.strip_prefix("<<") {
        parse_triple_term(rest)
    } else if let Some(rest) = text.strip_prefix('<') {
        let (iri, rest) = parse_iri_body(rest)?;
        Some((SimpleTerm::Iri(iri), rest))
    } else if let Some(rest) = text.strip_prefix("_:") {
        let end = rest
            .find(|c: char| c.is_whitespace() || c == ')')
            .unwrap_or(rest.len());
        let label = BnodeId::new(MownStr::from(&rest[..end])).ok()?;
        Some((SimpleTerm::BlankNode(label), &rest[end..]))
    } else if let Some(rest) = text.strip_prefix('"') {
        parse_literal(rest)
    } else {
        None
    }
}

/// `<<( s p o )>>` (RDF 1.2) or `<< s p o >>` (the graph's spelling), after the `<<`.
fn parse_triple_term(text: &str) -> Option<(SimpleTerm<'_>, &str)> {
    let text = text.strip_prefix('(').unwrap_or(text);
    let (subject, rest) = parse_term(text.trim_start())?;
    let (predicate, rest) = parse_term(rest.trim_start())?;
    let (object, rest) = parse_term(rest.trim_start())?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix(')').unwrap_or(rest);
    let rest = rest.trim_start().strip_prefix(">>")?;
    let triple = SimpleTerm::Triple(Box::new([subject, predicate, object]));
    Some((triple, rest))
}

/// An IRI after its `<`, up to and including the `>`.
fn parse_iri_body(text: &str) -> Option<(IriRef<MownStr<'_>>, &str)> {
    let end = text.find('>')?;
    // RDF IRIs are absolute.
    let iri = IriRef::new_unchecked(Iri::new(unescape(&text[..end])?).ok()?.unwrap());
    Some((iri, &text[end + 1..]))
}

/// A literal after its opening quote: lexical form, then `@tag` or `^^<datatype>`.
fn parse_literal(text: &str) -> Option<(SimpleTerm<'_>, &str)> {
    let end = closing_quote(text)?;
    let lexical = unescape(&text[..end])?;
    let rest = &text[end + 1..];
    if let Some(tagged) = rest.strip_prefix('@') {
        let tag_end = tagged
            .find(|c: char| c.is_whitespace())
            .unwrap_or(tagged.len());
        let (tag, direction) = match tagged[..tag_end].split_once("--") {
            Some((tag, "ltr")) => (tag, Some(BaseDirection::Ltr)),
            Some((tag, "rtl")) => (tag, Some(BaseDirection::Rtl)),
            _ => (&tagged[..tag_end], None),
        };
        let tag = LanguageTag::new(MownStr::from(tag)).ok()?;
        let literal = SimpleTerm::LiteralLanguage(lexical, tag, direction);
        return Some((literal, &tagged[tag_end..]));
    }
    if let Some(typed) = rest.strip_prefix("^^<") {
        let (datatype, rest) = parse_iri_body(typed)?;
        return Some((SimpleTerm::LiteralDatatype(lexical, datatype), rest));
    }
    let datatype = IriRef::new_unchecked(MownStr::from(XSD_STRING));
    Some((SimpleTerm::LiteralDatatype(lexical, datatype), rest))
}

/// The byte position of the first unescaped `"`.
fn closing_quote(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

/// Undoes N-Triples escapes; borrows when there are none (the common case).
fn unescape(text: &str) -> Option<MownStr<'_>> {
    if !text.contains('\\') {
        return Some(MownStr::from(text));
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            't' => '\t',
            'b' => '\u{8}',
            'n' => '\n',
            'r' => '\r',
            'f' => '\u{c}',
            '"' => '"',
            '\'' => '\'',
            '\\' => '\\',
            'u' => hex_char(&mut chars, 4)?,
            'U' => hex_char(&mut chars, 8)?,
            _ => return None,
        };
        out.push(decoded);
    }
    Some(MownStr::from(out))
}

fn hex_char(chars: &mut std::str::Chars<'_>, digits: usize) -> Option<char> {
    let mut value = 0u32;
    for _ in 0..digits {
        value = value * 16 + chars.next()?.to_digit(16)?;
    }
    char::from_u32(value)
}

type SophiaQuad<'t, 'g> = ([&'t SimpleTerm<'g>; 3], Option<&'t SimpleTerm<'g>>);

/// A statement as sophia terms.
fn sophia_quad<'t, 'g>(quad: &Quad, terms: &'t [SimpleTerm<'g>]) -> SophiaQuad<'t, 'g> {
    let term = |id: TermId| &terms[id as usize];
    let graph = (quad.graph != DEFAULT_GRAPH).then(|| term(quad.graph));
    (
        [term(quad.subject), term(quad.predicate), term(quad.object)],
        graph,
    )
}

/// The error of a stream whose source cannot fail.
fn sink_error<E: std::error::Error>(error: StreamError<Infallible, E>) -> E {
    match error {
        StreamError::SourceError(never) => match never {},
        StreamError::SinkError(error) => error,
    }
}

// ---------------------------------------------------------------------------------------------
// Turtle and TriG

/// How big the pieces are that Turtle and TriG are pretty-printed in. sophia's pretty printer
/// looks statements up by scanning its whole input, so its cost grows with the square of the
/// input (measured: 1,000 statements take 0.3 s, 60,000 would take 20 minutes): small pieces
/// keep it linear. Splitting loses nothing but global subject order, since a piece never
/// splits a part (see [`connected_parts`]).
#[derive(Clone, Copy, Debug)]
struct ChunkLimits {
    /// A piece is closed once it holds this many statements.
    chunk: usize,
    /// A blank-node-connected part bigger than this is written without sugar.
    pretty_max: usize,
}

impl ChunkLimits {
    const DEFAULT: ChunkLimits = ChunkLimits {
        chunk: 64,
        pretty_max: 1_000,
    };
}

/// Statements written by one call of sophia's serializer.
struct Chunk {
    quads: Vec<usize>,
    pretty: bool,
}

fn write_turtle_family(
    graph: &Graph,
    terms: &[SimpleTerm<'_>],
    format: OutputFormat,
    base: Option<&str>,
    limits: ChunkLimits,
    out: &mut dyn Write,
) -> Result<(), SerializeError> {
    let io_error = |source| SerializeError::Io { format, source };
    let offered = offered_prefixes(terms, base);
    let config = TurtleConfig::new().with_own_prefix_map(offered.clone());
    let mut body = Vec::new();
    let mut buffer = Vec::new();
    for chunk in chunks(graph, terms, limits) {
        buffer.clear();
        let config = config.clone().with_pretty(chunk.pretty);
        write_chunk(graph, terms, &chunk, format, config, &mut buffer).map_err(io_error)?;
        if !chunk.pretty {
            // Pretty output starts with a blank line; unsugared output does not.
            body.push(b'\n');
        }
        // Every call declares all the offered prefixes: only the used ones are kept, below.
        body.extend_from_slice(skip_lines(&buffer, offered.len()));
    }
    let mut declared = 0;
    for (prefix, namespace) in &offered {
        if uses_prefix(&body, prefix.as_str()) {
            writeln!(out, "PREFIX {}: <{}>", prefix.as_str(), namespace.as_str())
                .map_err(io_error)?;
            declared += 1;
        }
    }
    let body = match declared {
        0 => body.strip_prefix(b"\n").unwrap_or(&body),
        _ => &body[..],
    };
    out.write_all(body).map_err(io_error)
}

fn write_chunk(
    graph: &Graph,
    terms: &[SimpleTerm<'_>],
    chunk: &Chunk,
    format: OutputFormat,
    config: TurtleConfig,
    buffer: &mut Vec<u8>,
) -> io::Result<()> {
    let quads = graph.quads();
    let mut order = chunk.quads.clone();
    if !chunk.pretty {
        // Unsugared output only groups consecutive statements.
        order.sort_by_key(|&i| (quads[i].graph, quads[i].subject, quads[i].predicate));
    }
    let statements = order.iter().map(|&i| sophia_quad(&quads[i], terms));
    if format == OutputFormat::TriG {
        TriGSerializer::new_with_config(&mut *buffer, config)
            .serialize_quads(statements.into_source())
            .map_err(sink_error)?;
    } else {
        TurtleSerializer::new_with_config(&mut *buffer, config)
            .serialize_triples(statements.map(|(triple, _)| triple).into_source())
            .map_err(sink_error)?;
    }
    Ok(())
}

/// `text` without its first `lines` lines.
fn skip_lines(text: &[u8], lines: usize) -> &[u8] {
    let mut rest = text;
    for _ in 0..lines {
        match memchr::memchr(b'\n', rest) {
            Some(at) => rest = &rest[at + 1..],
            None => return &[],
        }
    }
    rest
}

/// Splits the statements into pieces that can be pretty-printed separately: a piece holds
/// whole parts (statements connected through blank nodes, which the printer must see together
/// to decide between `[ ]` and a label), in order of first appearance.
fn chunks(graph: &Graph, terms: &[SimpleTerm<'_>], limits: ChunkLimits) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current = Vec::new();
    for part in connected_parts(graph, terms) {
        if !current.is_empty() && current.len() + part.len() > limits.chunk {
            chunks.push(Chunk {
                quads: std::mem::take(&mut current),
                pretty: true,
            });
        }
        if part.len() > limits.pretty_max {
            chunks.push(Chunk {
                quads: part,
                pretty: false,
            });
        } else {
            current.extend(part);
        }
    }
    if !current.is_empty() {
        chunks.push(Chunk {
            quads: current,
            pretty: true,
        });
    }
    chunks
}

/// Statement indices grouped by subject and by the blank nodes that link subjects (as object,
/// graph name, or inside a triple term), each group in insertion order.
fn connected_parts(graph: &Graph, terms: &[SimpleTerm<'_>]) -> Vec<Vec<usize>> {
    let mut partition = Partition::new(graph.term_count());
    let mut labels = Vec::new();
    for quad in graph.quads() {
        if graph.is_blank(quad.object) {
            partition.union(quad.subject, quad.object);
        }
        if quad.graph != DEFAULT_GRAPH && graph.is_blank(quad.graph) {
            partition.union(quad.subject, quad.graph);
        }
        for slot in [quad.subject, quad.object] {
            labels.clear();
            blank_labels_in_triple_terms(&terms[slot as usize], &mut labels);
            for label in &labels {
                if let Some(blank) = graph.id_of(&format!("_:{label}")) {
                    partition.union(quad.subject, blank);
                }
            }
        }
    }
    let mut part_of_root: HashMap<TermId, usize> = HashMap::new();
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for (index, quad) in graph.quads().iter().enumerate() {
        let root = partition.find(quad.subject);
        let part = *part_of_root.entry(root).or_insert_with(|| {
            parts.push(Vec::new());
            parts.len() - 1
        });
        parts[part].push(index);
    }
    parts
}

/// The labels of blank nodes nested in a triple term.
fn blank_labels_in_triple_terms<'t>(term: &'t SimpleTerm<'_>, labels: &mut Vec<&'t str>) {
    if let SimpleTerm::Triple(parts) = term {
        for part in parts.iter() {
            match part {
                SimpleTerm::BlankNode(label) => labels.push(label.as_str()),
                nested => blank_labels_in_triple_terms(nested, labels),
            }
        }
    }
}

/// Union-find over term ids.
struct Partition {
    parent: Vec<TermId>,
}

impl Partition {
    fn new(size: usize) -> Self {
        Partition {
            parent: (0..size).map(|id| id as TermId).collect(),
        }
    }

    fn find(&mut self, mut id: TermId) -> TermId {
        while self.parent[id as usize] != id {
            let grandparent = self.parent[self.parent[id as usize] as usize];
            self.parent[id as usize] = grandparent;
            id = grandparent;
        }
        id
    }

    fn union(&mut self, a: TermId, b: TermId) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[b as usize] = a;
        }
    }
}

/// The prefixes sophia may use: the document's own namespace as `:` when a base is given,
/// then the common ones. Only those the output uses get declared.
fn offered_prefixes(terms: &[SimpleTerm<'_>], base: Option<&str>) -> Vec<PrefixMapPair> {
    let mut offered: Vec<(String, String)> = Vec::new();
    if let Some(namespace) = base.and_then(|base| document_namespace(base, terms)) {
        offered.push((String::new(), namespace));
    }
    for (prefix, namespace) in COMMON_PREFIXES {
        offered.push((prefix.to_string(), namespace.to_string()));
    }
    offered
        .into_iter()
        .map(|(prefix, namespace)| {
            (
                Prefix::new_unchecked(prefix.into_boxed_str()),
                Iri::new_unchecked(namespace.into_boxed_str()),
            )
        })
        .collect()
}

/// Whether Turtle text uses `prefix:` as a prefixed name: after a separator sophia writes
/// before terms. A `prefix:` inside a literal may also count (an unused declaration is
/// harmless; a missing one would not be).
fn uses_prefix(body: &[u8], prefix: &str) -> bool {
    let needle = format!("{prefix}:");
    memchr::memmem::find_iter(body, needle.as_bytes()).any(|at| {
        at == 0
            || matches!(
                body[at - 1],
                b' ' | b'\n' | b'\t' | b'(' | b'[' | b',' | b';' | b'^'
            )
    })
}

/// Whether `namespace` abbreviates `iri` the way sophia does (a non-empty Turtle local name).
fn abbreviates(namespace: &str, iri: &str) -> bool {
    iri.strip_prefix(namespace)
        .is_some_and(is_turtle_local_name)
}

/// Turtle's `PN_LOCAL` without backslash escapes (IRIs cannot contain backslashes).
fn is_turtle_local_name(local: &str) -> bool {
    let mut chars = local.chars().peekable();
    let mut last = None;
    let mut first = true;
    while let Some(c) = chars.next() {
        let ok = if c == '%' {
            let hex = [chars.next(), chars.next()];
            hex.iter().all(|h| h.is_some_and(|h| h.is_ascii_hexdigit()))
        } else if first {
            is_pn_chars_u(c) || c == ':' || c.is_ascii_digit()
        } else {
            is_pn_chars(c) || c == '.' || c == ':'
        };
        if !ok {
            return false;
        }
        first = false;
        last = Some(c);
    }
    last.is_some_and(|c| c != '.')
}

fn is_pn_chars_u(c: char) -> bool {
    c == '_'
        || c.is_ascii_alphabetic()
        || matches!(c,
            '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
            | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
            | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
            | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

fn is_pn_chars(c: char) -> bool {
    is_pn_chars_u(c)
        || c == '-'
        || c.is_ascii_digit()
        || matches!(c, '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// The namespace to bind to `:` for a document at `base`: `base#` or the base's directory,
/// whichever abbreviates more IRI terms (none when neither does, or when a common prefix
/// already names it).
fn document_namespace(base: &str, terms: &[SimpleTerm<'_>]) -> Option<String> {
    Iri::new(base).ok()?;
    let iris: Vec<&str> = terms
        .iter()
        .filter_map(|term| match term {
            SimpleTerm::Iri(iri) => Some(iri.as_str()),
            _ => None,
        })
        .collect();
    let document = base.split('#').next().unwrap_or(base);
    let mut candidates = vec![format!("{document}#")];
    let path_start = document.find("://").map_or(0, |at| at + 3);
    if let Some(slash) = document[path_start..].rfind('/') {
        candidates.push(document[..=path_start + slash].to_string());
    }
    let mut best: Option<(usize, String)> = None;
    for namespace in candidates {
        if COMMON_PREFIXES
            .iter()
            .any(|(_, common)| *common == namespace)
        {
            continue;
        }
        let uses = iris
            .iter()
            .filter(|iri| abbreviates(&namespace, iri))
            .count();
        if uses > 0 && best.as_ref().is_none_or(|(kept, _)| uses > *kept) {
            best = Some((uses, namespace));
        }
    }
    best.map(|(_, namespace)| namespace)
}

// ---------------------------------------------------------------------------------------------
// JSON-LD

fn write_jsonld(
    graph: &Graph,
    terms: &[SimpleTerm<'_>],
    out: &mut dyn Write,
) -> Result<(), SerializeError> {
    let format = OutputFormat::JsonLd;
    if let Some(id) = first_triple_term(graph) {
        return Err(SerializeError::Unrepresentable {
            format,
            reason: format!(
                "JSON-LD has no syntax for the RDF 1.2 triple term {}: use nq, trig or ttl",
                graph.term(id)
            ),
        });
    }
    let serializer_error = |detail: String| SerializeError::Serializer {
        format,
        detail: detail.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    let mut compact = Vec::new();
    let statements = graph.quads().iter().map(|q| sophia_quad(q, terms));
    JsonLdSerializer::new_with_options(&mut compact, JsonLdOptions::new())
        .serialize_quads(statements.into_source())
        .map_err(|error| serializer_error(sink_error(error).to_string()))?;
    // sophia lists nodes, properties and values in hash order, which changes from process to
    // process: sort them so the same graph always gives the same bytes.
    let document: serde_json::Value =
        serde_json::from_slice(&compact).map_err(|error| serializer_error(error.to_string()))?;
    let io_error = |source| SerializeError::Io { format, source };
    serde_json::to_writer_pretty(&mut *out, &canonical_order(document))
        .map_err(|error| io_error(error.into()))?;
    out.write_all(b"\n").map_err(io_error)
}

/// The JSON value with every object's keys in byte order and every array (nodes, values) in
/// the byte order of its items' JSON text, except `@list` arrays, whose order is data. Nodes
/// come out by `@id`, as `@id` is the first key of a node without `@graph`. (Recursive: the
/// expanded JSON-LD of a graph nests a handful of levels at most.)
fn canonical_order(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.into_iter().map(canonical_order).collect();
            items.sort_by_cached_key(Value::to_string);
            Value::Array(items)
        }
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.cmp(b));
            let ordered = entries.into_iter().map(|(key, value)| {
                let value = match value {
                    Value::Array(items) if key == "@list" => {
                        Value::Array(items.into_iter().map(canonical_order).collect())
                    }
                    value => canonical_order(value),
                };
                (key, value)
            });
            Value::Object(ordered.collect())
        }
        other => other,
    }
}

/// A triple term used in any statement.
fn first_triple_term(graph: &Graph) -> Option<TermId> {
    graph
        .quads()
        .iter()
        .flat_map(Quad::terms)
        .find(|&id| graph.sort(id) == TermSort::Triple)
}

// ---------------------------------------------------------------------------------------------
// RDF/XML

fn write_rdfxml(
    graph: &Graph,
    terms: &[SimpleTerm<'_>],
    out: &mut dyn Write,
) -> Result<(), SerializeError> {
    let format = OutputFormat::RdfXml;
    check_rdfxml(graph, terms)
        .map_err(|reason| SerializeError::Unrepresentable { format, reason })?;
    let order = rdfxml_order(graph, terms)
        .map_err(|reason| SerializeError::Unrepresentable { format, reason })?;
    let quads = graph.quads();
    let triples = order.iter().map(|&i| sophia_quad(&quads[i], terms).0);
    let mut escaped = EscapeCarriageReturns(&mut *out);
    RdfXmlSerializer::new(&mut escaped)
        .serialize_triples(triples.into_source())
        .map_err(|error| SerializeError::Io {
            format,
            source: sink_error(error),
        })?;
    out.write_all(b"\n")
        .map_err(|source| SerializeError::Io { format, source })
}

/// Refuses what sophia's RDF/XML writer would drop silently or write as broken XML.
fn check_rdfxml(graph: &Graph, terms: &[SimpleTerm<'_>]) -> Result<(), String> {
    // Each term is checked once per position it takes.
    let mut checked = vec![[false; 3]; terms.len()];
    for quad in graph.quads() {
        for (slot, id) in [(0, quad.subject), (1, quad.predicate), (2, quad.object)] {
            if std::mem::replace(&mut checked[id as usize][slot], true) {
                continue;
            }
            let term = &terms[id as usize];
            match slot {
                0 => check_rdfxml_subject(term)?,
                1 => check_rdfxml_predicate(term)?,
                _ => check_rdfxml_object(term)?,
            }
        }
    }
    Ok(())
}

fn check_rdfxml_subject(term: &SimpleTerm<'_>) -> Result<(), String> {
    match term {
        SimpleTerm::Triple(_) => {
            Err("RDF/XML cannot write a triple term as a subject: use nq, trig or ttl".to_string())
        }
        other => check_rdfxml_object(other),
    }
}

fn check_rdfxml_predicate(term: &SimpleTerm<'_>) -> Result<(), String> {
    let SimpleTerm::Iri(iri) = term else {
        return Err("RDF/XML predicates must be IRIs".to_string());
    };
    let iri = iri.as_str();
    if iri
        .strip_prefix(RDF)
        .is_some_and(|local| RDFXML_RESERVED.contains(&local))
    {
        return Err(format!(
            "<{iri}> is RDF/XML syntax and cannot be a predicate in RDF/XML: use ttl, nt or jsonld"
        ));
    }
    if xml_local_name(iri).is_empty() {
        return Err(format!(
            "the predicate <{iri}> does not end in an XML name, so RDF/XML cannot write it as an \
             element: use ttl, nt or jsonld"
        ));
    }
    Ok(())
}

fn check_rdfxml_object(term: &SimpleTerm<'_>) -> Result<(), String> {
    match term {
        SimpleTerm::BlankNode(label) if !is_xml_nc_name(label.as_str()) => Err(format!(
            "the blank node label {label:?} is not an XML name (rdf:nodeID)",
            label = label.as_str()
        )),
        SimpleTerm::LiteralDatatype(lexical, _) | SimpleTerm::LiteralLanguage(lexical, _, _) => {
            match lexical.chars().find(|&c| !is_xml_char(c)) {
                Some(bad) => Err(format!(
                    "the literal {lexical:?} holds U+{:04X}, which XML 1.0 cannot carry: use \
                     ttl, nt or jsonld",
                    bad as u32
                )),
                None => Ok(()),
            }
        }
        SimpleTerm::Triple(parts) => {
            check_rdfxml_subject(&parts[0])?;
            check_rdfxml_predicate(&parts[1])?;
            check_rdfxml_object(&parts[2])
        }
        _ => Ok(()),
    }
}

/// Statement order for RDF/XML: grouped by subject (in order of first appearance), each group
/// led by an `rdf:type` whose class can become the element name (the writer turns a subject's
/// first statement into a typed node when it is `rdf:type`, and cannot when the class does not
/// end in an XML name).
fn rdfxml_order(graph: &Graph, terms: &[SimpleTerm<'_>]) -> Result<Vec<usize>, String> {
    let quads = graph.quads();
    let rdf_type = graph.id_of(RDF_TYPE);
    let mut first_seen: HashMap<TermId, usize> = HashMap::new();
    for (index, quad) in quads.iter().enumerate() {
        first_seen.entry(quad.subject).or_insert(index);
    }
    // 0: a type that can name the element, 1: any other statement, 2: a type that cannot.
    let rank = |quad: &Quad| -> u8 {
        if Some(quad.predicate) != rdf_type {
            return 1;
        }
        match &terms[quad.object as usize] {
            SimpleTerm::Iri(class) if xml_local_name(class.as_str()).is_empty() => {
                let reserved = class
                    .as_str()
                    .strip_prefix(RDF)
                    .is_some_and(|local| RDFXML_RESERVED.contains(&local));
                if reserved { 0 } else { 2 }
            }
            SimpleTerm::Iri(_) => 0,
            _ => 1,
        }
    };
    let keys: Vec<(usize, u8)> = quads
        .iter()
        .map(|quad| (first_seen[&quad.subject], rank(quad)))
        .collect();
    let mut order: Vec<usize> = (0..quads.len()).collect();
    order.sort_by_key(|&i| keys[i]);
    let mut previous_subject = None;
    for &i in &order {
        let quad = &quads[i];
        if previous_subject != Some(quad.subject) && keys[i].1 == 2 {
            return Err(format!(
                "{} has only types that do not end in an XML name (such as {}), and the RDF/XML \
                 writer cannot type it: use ttl, nt or jsonld",
                graph.term(quad.subject),
                graph.term(quad.object)
            ));
        }
        previous_subject = Some(quad.subject);
    }
    Ok(order)
}

/// The local part of the QName the RDF/XML writer makes of `iri` (empty when it cannot).
fn xml_local_name(iri: &str) -> &str {
    let Some(boundary) = iri.rfind(|c: char| !is_xml_name_char(c) || c == ':') else {
        return "";
    };
    match iri[boundary..].find(|c: char| is_xml_name_start_char(c) && c != ':') {
        Some(start) => &iri[boundary + start..],
        None => "",
    }
}

fn is_xml_nc_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| is_xml_name_start_char(c) && c != ':')
        && chars.all(|c| is_xml_name_char(c) && c != ':')
}

fn is_xml_name_start_char(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
        | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
        | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

fn is_xml_name_char(c: char) -> bool {
    is_xml_name_start_char(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// XML 1.0 `Char` (Rust chars are never surrogates).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Writes `&#13;` for every carriage return: XML parsers turn a raw CR (and CR LF) into LF, and
/// the writer only escapes markup characters. A CR can only come from literal text here.
struct EscapeCarriageReturns<W: Write>(W);

impl<W: Write> Write for EscapeCarriageReturns<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'\r', rest) {
            self.0.write_all(&rest[..at])?;
            self.0.write_all(b"&#13;")?;
            rest = &rest[at + 1..];
        }
        self.0.write_all(rest)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

// ---------------------------------------------------------------------------------------------
// Accept headers

/// One media range of an `Accept` header, lower-cased, with its weight in thousandths.
struct MediaRange {
    range: String,
    weight: u16,
}

impl MediaRange {
    /// 2 when the range names `media_type`, 1 for `type/*`, 0 for `*/*`; `None` if it does
    /// not match.
    fn specificity(&self, media_type: &str) -> Option<u8> {
        if self.range == media_type {
            return Some(2);
        }
        if self.range == "*/*" {
            return Some(0);
        }
        let (kind, subtype) = self.range.split_once('/')?;
        let same_kind = media_type.split_once('/').is_some_and(|(k, _)| k == kind);
        (subtype == "*" && same_kind).then_some(1)
    }
}

fn media_ranges(accept: &str) -> Vec<MediaRange> {
    let accept = if accept.trim().is_empty() {
        "*/*"
    } else {
        accept
    };
    accept.split(',').filter_map(media_range).collect()
}

fn media_range(item: &str) -> Option<MediaRange> {
    let mut parts = item.split(';');
    let mut range = parts.next()?.trim().to_ascii_lowercase();
    if range == "*" {
        // Some old clients send a bare `*`.
        range = "*/*".to_string();
    }
    if !range.contains('/') {
        return None;
    }
    let mut weight = 1000;
    for parameter in parts {
        if let Some((name, value)) = parameter.split_once('=')
            && name.trim().eq_ignore_ascii_case("q")
        {
            weight = parse_qvalue(value.trim())?;
            // Parameters after `q` are accept extensions, not media type parameters.
            break;
        }
    }
    Some(MediaRange { range, weight })
}

fn parse_qvalue(text: &str) -> Option<u16> {
    let value: f64 = text.parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        .then(|| (value * 1000.0).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoContexts, parse_graph, spell_term};
    use sophia::api::parser::QuadParser;
    use sophia::api::quad::Spog;
    use sophia::api::source::QuadSource;
    use sophia::isomorphism::isomorphic_datasets;
    use sophia::turtle::parser::nq::NQuadsParser;

    const BASE: &str = "http://example.org/doc";

    /// Literals of every kind, nested and shared blank nodes, a blank cycle, lists.
    const TURTLE: &str = r#"@prefix ex: <http://example.org/vocab#> .
@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<#me> a foaf:Person, ex:Author ;
    foaf:name "Ann \"Nan\" O'Neil", "Anne"@EN-gb, "アン"@ja ;
    ex:age 42 ; ex:height 1.70 ; ex:ratio 6.02e23 ; ex:alive true ;
    ex:born "1980-01-02"^^xsd:date ; ex:custom "x y"^^ex:Custom ;
    ex:bio """Line one
Line two\twith tab\r\nand CRLF \\ backslash \u00e9 \U0001F600 'single' "double" <angle> & amp""" ;
    ex:empty "" ; ex:spaces "  padded  " ;
    ex:knows [ foaf:name "Bob" ; ex:pet [ ex:name "Rex" ] ], _:shared ;
    ex:list ( 1 "two"@en <http://example.org/three> ( "nested" ) [ ex:in "list" ] ) ;
    ex:nothing () .
<http://example.org/other> ex:knows _:shared ;
    ex:odd "0042"^^xsd:integer, "+1"^^xsd:integer, ".5"^^xsd:decimal, "1"^^xsd:boolean .
_:shared foaf:name "Shared" ; ex:self _:shared .
_:loop1 ex:next _:loop2 . _:loop2 ex:next _:loop1 .
[] ex:anonymous "subject only" .
<http://example.org/123> ex:label "digits" .
"#;

    /// Named graphs, a blank node shared across graphs, a blank graph name.
    const TRIG: &str = r#"@prefix ex: <http://example.org/vocab#> .
<#s> ex:p "default" ; ex:q [ ex:r 0 ] .
<http://example.org/g1> { <#s> ex:p "in g1"@en ; ex:q [ ex:r 1 ] . _:b ex:p ( 1 2 ) . }
_:g2 { <#s> ex:p _:b . _:b ex:p "line\nbreak" . }
<http://example.org/g3> { <http://example.org/lone> ex:p "alone" . }
"#;

    fn parse(text: &str, syntax: Syntax) -> Graph {
        let parsed = parse_graph(text.as_bytes(), &[syntax], BASE, &NoContexts).unwrap();
        assert_eq!(parsed.error, None, "parsing {syntax}:\n{text}");
        parsed.graph
    }

    fn write(graph: &Graph, format: OutputFormat, base: Option<&str>) -> String {
        let mut out = Vec::new();
        write_graph(graph, format, base, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A sophia dataset read independently of this module (from the graph's N-Quads).
    fn dataset(graph: &Graph) -> Vec<Spog<SimpleTerm<'static>>> {
        NQuadsParser::new()
            .parse_str(&graph.to_nquads())
            .collect_quads()
            .unwrap()
    }

    fn assert_isomorphic(expected: &Graph, actual: &Graph, written: &str) {
        assert_eq!(
            expected.len(),
            actual.len(),
            "statement count; written:\n{written}"
        );
        assert!(
            isomorphic_datasets(&dataset(expected), &dataset(actual)).unwrap(),
            "not isomorphic; written:\n{written}\nexpected:\n{}\nread back:\n{}",
            expected.to_nquads(),
            actual.to_nquads()
        );
    }

    fn assert_round_trip(graph: &Graph, format: OutputFormat, base: Option<&str>) -> String {
        let written = write(graph, format, base);
        let read_back = parse(&written, format.syntax());
        assert_isomorphic(graph, &read_back, &written);
        written
    }

    #[test]
    fn every_format_round_trips_a_triple_graph() {
        let graph = parse(TURTLE, Syntax::Turtle);
        assert!(graph.len() > 40);
        for format in OutputFormat::ALL {
            assert_round_trip(&graph, format, Some(BASE));
            assert_round_trip(&graph, format, None);
        }
    }

    #[test]
    fn quad_formats_round_trip_named_graphs() {
        let graph = parse(TRIG, Syntax::TriG);
        assert!(graph.has_named_graphs());
        for format in [
            OutputFormat::NQuads,
            OutputFormat::TriG,
            OutputFormat::JsonLd,
        ] {
            assert_round_trip(&graph, format, Some(BASE));
        }
    }

    #[test]
    fn triple_formats_refuse_named_graphs() {
        let graph = parse(TRIG, Syntax::TriG);
        for format in [
            OutputFormat::NTriples,
            OutputFormat::Turtle,
            OutputFormat::RdfXml,
        ] {
            let error = write_graph(&graph, format, None, &mut Vec::new()).unwrap_err();
            assert!(matches!(error, SerializeError::NamedGraphs { .. }));
            let message = error.to_string();
            assert!(message.contains("use nq, trig or jsonld"), "{message}");
            assert!(message.contains(format.name()), "{message}");
        }
    }

    #[test]
    fn ntriples_and_nquads_are_the_graph_spellings() {
        let graph = parse(TURTLE, Syntax::Turtle);
        assert_eq!(
            write(&graph, OutputFormat::NTriples, None),
            graph.to_nquads()
        );
        let quads = parse(TRIG, Syntax::TriG);
        assert_eq!(write(&quads, OutputFormat::NQuads, None), quads.to_nquads());
    }

    #[test]
    fn turtle_declares_only_the_prefixes_it_uses() {
        let graph = parse(TURTLE, Syntax::Turtle);
        let turtle = write(&graph, OutputFormat::Turtle, None);
        assert!(turtle.starts_with("PREFIX "), "{turtle}");
        for used in ["foaf", "xsd"] {
            assert!(
                turtle.contains(&format!("PREFIX {used}: ")),
                "{used}:\n{turtle}"
            );
        }
        // rdf:type is written `a`, lists `( )`: rdf is not needed.
        for unused in [
            "owl",
            "skos",
            "schema",
            "dcterms",
            "rdfs",
            "rdf",
            "PREFIX : ",
        ] {
            assert!(
                !turtle.contains(&format!("PREFIX {unused}")),
                "{unused}:\n{turtle}"
            );
        }
        assert!(turtle.contains("foaf:name"), "{turtle}");
        assert!(turtle.contains("xsd:date"), "{turtle}");
        assert!(turtle.contains(" a "), "{turtle}");
    }

    #[test]
    fn base_binds_the_empty_prefix_to_the_document_namespace() {
        // The base's directory abbreviates `other`, `123` and `three`; `base#` only `me`.
        let graph = parse(TURTLE, Syntax::Turtle);
        let turtle = write(&graph, OutputFormat::Turtle, Some(BASE));
        assert!(
            turtle.contains("PREFIX : <http://example.org/>\n"),
            "{turtle}"
        );
        assert!(turtle.contains(":other"), "{turtle}");
        let hashes = parse(
            "<#a> <#p> <#b> . <http://example.org/x> <#p> 1 .",
            Syntax::Turtle,
        );
        let turtle = write(&hashes, OutputFormat::Turtle, Some(BASE));
        assert!(
            turtle.contains("PREFIX : <http://example.org/doc#>\n"),
            "{turtle}"
        );
        assert!(turtle.contains(":a\n  :p :b."), "{turtle}");
        let turtle = write(&hashes, OutputFormat::Turtle, Some("not a base"));
        assert!(!turtle.contains("PREFIX"), "{turtle}");
    }

    #[test]
    fn jsonld_output_is_deterministic() {
        let graph = parse(TURTLE, Syntax::Turtle);
        let first = write(&graph, OutputFormat::JsonLd, None);
        for _ in 0..3 {
            assert_eq!(write(&graph, OutputFormat::JsonLd, None), first);
        }
        assert!(first.starts_with("[\n  {\n    \"@id\": "), "{first}");
    }

    #[test]
    fn prefix_use_is_found_only_where_a_term_starts() {
        assert!(uses_prefix(b"<a> foaf:name 1", "foaf"));
        assert!(uses_prefix(b"foaf:x a 1", "foaf"));
        assert!(uses_prefix(b"\"1\"^^xsd:date", "xsd"));
        assert!(uses_prefix(b"\n:me a 1", ""));
        assert!(!uses_prefix(b"<http://e.org/foaf:x>", "foaf"));
        assert!(!uses_prefix(b"<http://e.org/> sdo:x", "do"));
        assert!(!uses_prefix(b"<http://e.org/x>", ""));
    }

    #[test]
    fn xsd_is_not_declared_for_shorthand_literals_only() {
        let graph = parse(
            "<http://e.org/s> <http://e.org/p> 1, 2.5, true, \"s\" .",
            Syntax::Turtle,
        );
        let turtle = write(&graph, OutputFormat::Turtle, None);
        assert!(!turtle.contains("PREFIX"), "{turtle}");
        assert!(!turtle.starts_with('\n'), "{turtle}");
    }

    #[test]
    fn shared_blank_nodes_keep_the_graph_labels() {
        let graph = parse(TURTLE, Syntax::Turtle);
        let shared = graph
            .quads()
            .iter()
            .find(|q| graph.term(q.object) == "\"Shared\"")
            .map(|q| graph.term(q.subject).to_string())
            .unwrap();
        assert!(shared.starts_with("_:b"));
        for format in [
            OutputFormat::Turtle,
            OutputFormat::TriG,
            OutputFormat::JsonLd,
        ] {
            let written = write(&graph, format, None);
            assert!(
                written.contains(&shared),
                "{format} lost {shared}:\n{written}"
            );
        }
    }

    #[test]
    fn pretty_printing_in_pieces_round_trips_and_declares_prefixes_once() {
        let tiny = ChunkLimits {
            chunk: 4,
            pretty_max: 6,
        };
        for (text, syntax, format) in [
            (TURTLE, Syntax::Turtle, OutputFormat::Turtle),
            (TRIG, Syntax::TriG, OutputFormat::TriG),
        ] {
            let graph = parse(text, syntax);
            let terms = sophia_terms(&graph).unwrap();
            let pieces = chunks(&graph, &terms, tiny);
            assert!(pieces.iter().any(|c| c.pretty) && pieces.iter().any(|c| !c.pretty));
            for piece in &pieces {
                assert_eq!(piece.pretty, piece.quads.len() <= tiny.pretty_max);
            }
            let sizes: usize = pieces.iter().map(|c| c.quads.len()).sum();
            assert_eq!(sizes, graph.len());
            let mut out = Vec::new();
            write_turtle_family(&graph, &terms, format, Some(BASE), tiny, &mut out).unwrap();
            let written = String::from_utf8(out).unwrap();
            assert_eq!(written.matches("PREFIX : ").count(), 1, "{written}");
            assert_isomorphic(&graph, &parse(&written, syntax), &written);
        }
    }

    #[test]
    fn blank_node_structures_stay_in_one_piece() {
        let graph = parse(TURTLE, Syntax::Turtle);
        let terms = sophia_terms(&graph).unwrap();
        let parts = connected_parts(&graph, &terms);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), graph.len());
        let part_of = |id: TermId| {
            parts
                .iter()
                .position(|part| {
                    part.iter().any(|&i| {
                        let q = graph.quads()[i];
                        q.subject == id || q.object == id
                    })
                })
                .unwrap()
        };
        let me = graph.id_of("<http://example.org/doc#me>").unwrap();
        let other = graph.id_of("<http://example.org/other>").unwrap();
        assert_eq!(part_of(me), part_of(other), "linked through _:shared");
        let label = graph.id_of("<http://example.org/123>").unwrap();
        assert_ne!(part_of(me), part_of(label));
    }

    #[test]
    fn a_large_graph_is_written_quickly() {
        let mut graph = Graph::new();
        for n in 0..20_000 {
            let subject = format!("<http://example.org/item/{n}>");
            let blank = format!("_:b{n}");
            graph.insert_spelled(
                &subject,
                "<http://xmlns.com/foaf/0.1/name>",
                &format!("\"item {n}\""),
                None,
            );
            graph.insert_spelled(&subject, "<http://example.org/v#detail>", &blank, None);
            graph.insert_spelled(
                &blank,
                "<http://example.org/v#value>",
                &format!("\"{n}\"^^<http://www.w3.org/2001/XMLSchema#integer>"),
                None,
            );
        }
        let started = std::time::Instant::now();
        let turtle = write(&graph, OutputFormat::Turtle, None);
        // Unchunked, sophia's pretty printer would need minutes.
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
        assert_eq!(turtle.matches("PREFIX foaf:").count(), 1);
        let read_back = parse(&turtle, Syntax::Turtle);
        assert_eq!(read_back.len(), graph.len());
    }

    #[test]
    fn rdfxml_refuses_predicates_without_an_xml_name() {
        let graph = parse(
            "<http://e.org/s> <http://e.org/123> \"v\" .",
            Syntax::Turtle,
        );
        let error = write_graph(&graph, OutputFormat::RdfXml, None, &mut Vec::new()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, SerializeError::Unrepresentable { .. }));
        assert!(message.starts_with("cannot write rdfxml: "), "{message}");
        assert!(message.contains("<http://e.org/123>"), "{message}");
        assert!(!message.contains('\n'));
        let reserved = parse(
            "<http://e.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#about> \"v\" .",
            Syntax::Turtle,
        );
        assert!(write_graph(&reserved, OutputFormat::RdfXml, None, &mut Vec::new()).is_err());
    }

    #[test]
    fn rdfxml_refuses_characters_xml_cannot_carry() {
        let graph = parse(
            "<http://e.org/s> <http://e.org/p> \"a\\u0001b\" .",
            Syntax::NTriples,
        );
        let message = write_graph(&graph, OutputFormat::RdfXml, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(message.contains("U+0001"), "{message}");
        // Turtle and JSON-LD carry it.
        assert_round_trip(&graph, OutputFormat::Turtle, None);
        assert_round_trip(&graph, OutputFormat::JsonLd, None);
    }

    #[test]
    fn rdfxml_types_with_a_name_lead_and_others_follow() {
        let graph = parse(
            "<http://e.org/s> a <http://e.org/123>, <http://e.org/Thing> ; <http://e.org/p> 1 .\n\
             <http://e.org/t> a <http://e.org/456> ; <http://e.org/p> 2 .",
            Syntax::Turtle,
        );
        let written = assert_round_trip(&graph, OutputFormat::RdfXml, None);
        assert!(written.contains("<Thing "), "{written}");
        let untypable = parse("<http://e.org/s> a <http://e.org/123> .", Syntax::Turtle);
        let message = write_graph(&untypable, OutputFormat::RdfXml, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(message.contains("<http://e.org/123>"), "{message}");
    }

    #[test]
    fn jsonld_refuses_triple_terms() {
        let mut graph = Graph::new();
        graph.insert_spelled(
            "_:r",
            "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>",
            "<< <http://e.org/s> <http://e.org/p> \"o\" >>",
            None,
        );
        let message = write_graph(&graph, OutputFormat::JsonLd, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(message.contains("triple term"), "{message}");
        for format in [OutputFormat::Turtle, OutputFormat::TriG] {
            let written = write(&graph, format, None);
            assert_eq!(
                parse(&written, format.syntax()).to_nquads(),
                "_:b0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> \
                 <<( <http://e.org/s> <http://e.org/p> \"o\" )>> .\n",
                "{written}"
            );
        }
    }

    #[test]
    fn spellings_convert_to_the_same_terms() {
        for spelling in [
            "<http://e.org/a>",
            "_:b12",
            "\"\"",
            "\"tab\\there \\\"q\\\" \\\\ \\n\\r \\u0001 é\"",
            "\"Hi\"@en-gb",
            "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer>",
            "<<( <http://e.org/s> <http://e.org/p> \"o\"@en )>>",
            "<<( _:b0 <http://e.org/p> <<( <http://e.org/s> <http://e.org/p> _:b1 )>> )>>",
        ] {
            let term = term_from_spelling(spelling).unwrap();
            let mut respelled = String::new();
            spell_term(&term, &mut respelled);
            assert_eq!(respelled, spelling);
        }
        let older = term_from_spelling("<< _:b0 <http://e.org/p> \"o\" >>").unwrap();
        assert!(matches!(older, SimpleTerm::Triple(_)));
        let rdf12 = term_from_spelling("<<( _:b0 <http://e.org/p> \"o\" )>>").unwrap();
        assert!(matches!(rdf12, SimpleTerm::Triple(_)));
        for malformed in [
            "",
            "<unclosed",
            "\"open",
            "x",
            "\"bad\\q\"",
            "_:",
            "<http://e.org/a> trailing",
            "<http://e.org/a\\u0020b>",
            "<relative>",
            "\"x\"@",
            "\"x\"@not_a_tag",
        ] {
            assert!(term_from_spelling(malformed).is_err(), "{malformed}");
        }
    }

    #[test]
    fn malformed_spellings_are_a_clear_error() {
        let mut graph = Graph::new();
        graph.insert_spelled("<http://e.org/s>", "<http://e.org/p>", "\"open", None);
        let message = write_graph(&graph, OutputFormat::Turtle, None, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "the graph holds a term that is not valid RDF: \"open"
        );
    }

    #[test]
    fn accept_headers_pick_by_weight_then_specificity_then_preference() {
        use OutputFormat::*;
        let cases: &[(&str, Option<OutputFormat>)] = &[
            ("text/turtle", Some(Turtle)),
            ("application/ld+json;q=0.9, text/turtle;q=0.5", Some(JsonLd)),
            ("application/rdf+xml, */*;q=0.1", Some(RdfXml)),
            ("text/html", None),
            ("text/html, application/xhtml+xml", None),
            ("*/*", Some(Turtle)),
            ("", Some(Turtle)),
            ("*", Some(Turtle)),
            ("application/*", Some(NTriples)),
            ("text/turtle;q=0, */*", Some(NTriples)),
            ("application/ld+json, */*", Some(JsonLd)),
            ("*/*;q=0.5, application/n-quads;q=0.5", Some(NQuads)),
            ("APPLICATION/N-QUADS; charset=UTF-8", Some(NQuads)),
            ("application/json", Some(JsonLd)),
            ("text/n3", Some(Turtle)),
            (
                "text/turtle;q=abc, application/n-triples;q=0.2",
                Some(NTriples),
            ),
            ("text/turtle;q=1.5, application/trig;q=0.2", Some(TriG)),
            ("application/trig;q=0", None),
            ("text/*;q=0.3, application/rdf+xml;q=0.2", Some(Turtle)),
            (
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                Some(RdfXml),
            ),
        ];
        for (accept, expected) in cases {
            assert_eq!(OutputFormat::from_accept(accept), *expected, "{accept:?}");
        }
        let quads = [NQuads, TriG, JsonLd];
        assert_eq!(
            OutputFormat::negotiate("text/turtle, application/trig;q=0.5", &quads),
            Some(TriG)
        );
        assert_eq!(OutputFormat::negotiate("text/turtle", &quads), None);
        assert_eq!(OutputFormat::negotiate("*/*", &quads), Some(NQuads));
    }

    #[test]
    fn names_media_types_and_extensions() {
        use OutputFormat::*;
        for (text, format) in [
            ("nt", NTriples),
            ("TTL", Turtle),
            ("nq", NQuads),
            ("trig", TriG),
            ("jsonld", JsonLd),
            ("rdfxml", RdfXml),
            ("application/ld+json", JsonLd),
            ("text/turtle; charset=utf-8", Turtle),
            ("application/json", JsonLd),
        ] {
            assert_eq!(text.parse::<OutputFormat>().unwrap(), format, "{text}");
        }
        assert!("bogus".parse::<OutputFormat>().is_err());
        for format in OutputFormat::ALL {
            assert_eq!(format.name().parse::<OutputFormat>().unwrap(), format);
            assert_eq!(format.media_type().parse::<OutputFormat>().unwrap(), format);
            assert_eq!(OutputFormat::from(format.syntax()), format);
            assert_eq!(format.to_string(), format.name());
        }
        assert_eq!(RdfXml.extension(), "rdf");
        assert_eq!(JsonLd.media_type(), "application/ld+json");
        assert!(TriG.has_graphs() && !Turtle.has_graphs());
    }

    #[test]
    fn carriage_returns_are_escaped_for_xml() {
        let mut out = Vec::new();
        EscapeCarriageReturns(&mut out)
            .write_all(b"a\r\nb\rc")
            .unwrap();
        assert_eq!(out, b"a&#13;\nb&#13;c");
    }

    #[test]
    fn xml_local_names_follow_the_writer() {
        assert_eq!(xml_local_name("http://xmlns.com/foaf/0.1/name"), "name");
        assert_eq!(xml_local_name("http://e.org/v#p-1.x"), "p-1.x");
        assert_eq!(xml_local_name("http://e.org/123"), "");
        assert_eq!(xml_local_name("http://e.org/a/"), "");
        assert_eq!(xml_local_name("http://e.org/1abc"), "abc");
    }
}
