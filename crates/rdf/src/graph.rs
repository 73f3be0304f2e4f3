//! The in-memory RDF graph behind replay, history, snapshots and diffs: terms interned once in
//! their canonical N-Triples spelling, statements as four term ids, duplicates dropped,
//! document order kept, blank nodes relabelled `b0`, `b1`, … by first appearance so that one
//! document always yields the same labels.

// foldhash, not SipHash: hashing terms and statements was a tenth of parsing a large file.
// Its per-map random seed keeps colliding inputs from being prepared in advance.
use foldhash::HashMap;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::fmt::Write as _;
use std::hash::BuildHasher as _;
use std::io::{self, Write};

use sophia::api::term::{Term, TermKind};

use super::html::{EmbeddedReport, PageOptions};
use super::jsonld::ContextSource;
use super::links::RdfError;
use super::parse::{ParseOutcome, StatementSink, parse_statements, parser_panicked};
use super::pipeline::parse_large;
use super::syntax::Syntax;

/// A term's number within one [`Graph`].
pub type TermId = u32;

/// The graph slot of a statement in the default graph.
pub const DEFAULT_GRAPH: TermId = TermId::MAX;

const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

/// One statement: subject, predicate, object and graph ([`DEFAULT_GRAPH`] for a triple).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quad {
    /// The subject's id.
    pub subject: TermId,
    /// The predicate's id.
    pub predicate: TermId,
    /// The object's id.
    pub object: TermId,
    /// The graph name's id, or [`DEFAULT_GRAPH`].
    pub graph: TermId,
}

impl Quad {
    /// The three or four term slots in order (the graph only when it is named).
    pub fn terms(&self) -> impl Iterator<Item = TermId> + '_ {
        [self.subject, self.predicate, self.object, self.graph]
            .into_iter()
            .filter(|&id| id != DEFAULT_GRAPH)
    }
}

/// What kind of term an id stands for (read off its spelling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermSort {
    /// `<iri>`
    Iri,
    /// `_:label`
    Blank,
    /// `"lexical form"` with optional `@lang` or `^^<datatype>`
    Literal,
    /// `<<( s p o )>>` (an RDF 1.2 triple term)
    Triple,
}

/// A set of statements with interned terms, in the order they were first added.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Every term's spelling, back to back: one allocation, not one per term.
    text: String,
    /// Where each term's spelling ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
    /// Each term's hash, kept so that growing `ids` does not hash the spellings again.
    hashes: Vec<u64>,
    /// Term ids by the hash of their spelling: the spelling is stored once, in `text`.
    ids: HashTable<TermId>,
    quads: Vec<Quad>,
    /// Positions in `quads`, by the statement's hash.
    seen: HashTable<usize>,
    /// Seeded per graph, so that colliding terms cannot be prepared in advance.
    hasher: RandomState,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of a term given in N-Triples spelling (`<iri>`, `_:label`, `"lex"@en`,
    /// `"lex"^^<dt>`), adding it if new. The caller spells canonically (see [`spell_term`]).
    pub fn intern(&mut self, spelling: &str) -> TermId {
        let hash = self.hasher.hash_one(spelling);
        self.intern_hashed(spelling, hash)
    }

    /// The hasher [`Graph::intern_hashed`] expects term hashes from, for threads that spell
    /// terms ahead of the thread that interns them.
    pub(crate) fn term_hasher(&self) -> RandomState {
        self.hasher.clone()
    }

    /// [`Graph::intern`] of a spelling whose hash `term_hasher().hash_one(spelling)` is
    /// already known.
    pub(crate) fn intern_hashed(&mut self, spelling: &str, hash: u64) -> TermId {
        let Graph {
            text,
            ends,
            hashes,
            ids,
            ..
        } = self;
        let entry = ids.entry(
            hash,
            |&id| spelling_at(text, ends, id) == spelling,
            |&id| hashes[id as usize],
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let id = TermId::try_from(ends.len())
                    .ok()
                    .filter(|&id| id != DEFAULT_GRAPH)
                    .unwrap_or(DEFAULT_GRAPH - 1);
                text.push_str(spelling);
                ends.push(text.len());
                hashes.push(hash);
                slot.insert(id);
                id
            }
        }
    }

    /// Adds a statement; false when it was already there.
    pub fn insert(&mut self, quad: Quad) -> bool {
        let hash = self.hasher.hash_one(quad);
        let Graph {
            quads,
            seen,
            hasher,
            ..
        } = self;
        match seen.entry(
            hash,
            |&at| quads[at] == quad,
            |&at| hasher.hash_one(quads[at]),
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(quads.len());
                quads.push(quad);
                true
            }
        }
    }

    /// Adds a statement given by its terms' spellings (`graph` `None` for the default graph).
    pub fn insert_spelled(
        &mut self,
        subject: &str,
        predicate: &str,
        object: &str,
        graph: Option<&str>,
    ) -> bool {
        let quad = Quad {
            subject: self.intern(subject),
            predicate: self.intern(predicate),
            object: self.intern(object),
            graph: graph.map_or(DEFAULT_GRAPH, |g| self.intern(g)),
        };
        self.insert(quad)
    }

    /// The statements, in the order they were first added.
    pub fn quads(&self) -> &[Quad] {
        &self.quads
    }

    /// Whether the graph holds this statement.
    pub fn contains(&self, quad: &Quad) -> bool {
        self.seen
            .find(self.hasher.hash_one(quad), |&at| self.quads[at] == *quad)
            .is_some()
    }

    /// Number of statements.
    pub fn len(&self) -> usize {
        self.quads.len()
    }

    /// True when there is no statement.
    pub fn is_empty(&self) -> bool {
        self.quads.is_empty()
    }

    /// The N-Triples spelling of a term (panics on an id this graph never issued).
    pub fn term(&self, id: TermId) -> &str {
        spelling_at(&self.text, &self.ends, id)
    }

    /// The id of a spelled term, if the graph has it.
    pub fn id_of(&self, spelling: &str) -> Option<TermId> {
        self.ids
            .find(self.hasher.hash_one(spelling), |&id| {
                self.term(id) == spelling
            })
            .copied()
    }

    /// Number of distinct terms interned.
    pub fn term_count(&self) -> usize {
        self.ends.len()
    }

    /// The kind of a term.
    pub fn sort(&self, id: TermId) -> TermSort {
        term_sort(self.term(id))
    }

    /// Whether the term is a blank node.
    pub fn is_blank(&self, id: TermId) -> bool {
        id != DEFAULT_GRAPH && self.term(id).starts_with("_:")
    }

    /// Whether a statement mentions a blank node in any position.
    pub fn has_blank(&self, quad: &Quad) -> bool {
        quad.terms().any(|id| self.is_blank(id))
    }

    /// Whether any statement is in a named graph.
    pub fn has_named_graphs(&self) -> bool {
        self.quads.iter().any(|q| q.graph != DEFAULT_GRAPH)
    }

    /// Writes one statement as an N-Quads line (N-Triples when in the default graph and
    /// `graph` is `None`). `graph`, when given, replaces the default graph's name;
    /// `blank_prefix` is put before every blank node label (to keep documents apart in one
    /// file).
    pub fn spell_quad(
        &self,
        quad: &Quad,
        graph: Option<&str>,
        blank_prefix: &str,
        out: &mut String,
    ) {
        let slots = [quad.subject, quad.predicate, quad.object];
        for id in slots {
            self.push_term(id, blank_prefix, out);
            out.push(' ');
        }
        if quad.graph != DEFAULT_GRAPH {
            self.push_term(quad.graph, blank_prefix, out);
            out.push(' ');
        } else if let Some(graph) = graph {
            out.push_str(graph);
            out.push(' ');
        }
        out.push_str(".\n");
    }

    fn push_term(&self, id: TermId, blank_prefix: &str, out: &mut String) {
        let spelling = self.term(id);
        match spelling.strip_prefix("_:") {
            Some(label) if !blank_prefix.is_empty() => {
                out.push_str("_:");
                out.push_str(blank_prefix);
                out.push_str(label);
            }
            _ => out.push_str(spelling),
        }
    }

    /// Writes every statement as N-Quads (N-Triples if there is no named graph).
    pub fn write_nquads(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut line = String::new();
        for quad in &self.quads {
            line.clear();
            self.spell_quad(quad, None, "", &mut line);
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The graph as N-Quads text.
    pub fn to_nquads(&self) -> String {
        let mut text = String::new();
        for quad in &self.quads {
            self.spell_quad(quad, None, "", &mut text);
        }
        text
    }
}

/// The spelling of term `id` among spellings stored back to back in `text`, each ending at
/// its entry of `ends`.
fn spelling_at<'a>(text: &'a str, ends: &[usize], id: TermId) -> &'a str {
    let id = id as usize;
    let start = id.checked_sub(1).map_or(0, |before| ends[before]);
    &text[start..ends[id]]
}

/// The kind of a term from its N-Triples spelling.
pub fn term_sort(spelling: &str) -> TermSort {
    match spelling.as_bytes().first() {
        Some(b'_') => TermSort::Blank,
        Some(b'"') => TermSort::Literal,
        Some(b'<') if spelling.starts_with("<<") => TermSort::Triple,
        _ => TermSort::Iri,
    }
}

/// A parsed document.
#[derive(Clone, Debug)]
pub struct ParsedGraph {
    /// Its statements.
    pub graph: Graph,
    /// The syntax that produced them.
    pub syntax: Syntax,
    /// Set when no syntax parsed the whole document: the error of the parse kept (the one
    /// with the most statements before failing); the graph then holds what came before it.
    pub error: Option<String>,
    /// JSON-LD only: the remote contexts the document used.
    pub remote_contexts: Vec<String>,
    /// JSON-LD only: the remote contexts no source had (each treated as empty).
    pub missing_contexts: Vec<String>,
    /// Pages only: which embedded syntax found what.
    pub embedded: Option<EmbeddedReport>,
}

/// Parses a document into a [`Graph`], trying `syntaxes` in order (as
/// [`choose_syntaxes`](super::choose_syntaxes) ranks them) and keeping the first complete
/// parse, or else the partial one with the most statements. Never touches the network.
pub fn parse_graph(
    body: &[u8],
    syntaxes: &[Syntax],
    base: &str,
    contexts: &dyn ContextSource,
) -> Result<ParsedGraph, RdfError> {
    parse_graph_with(body, syntaxes, base, contexts, &PageOptions::default())
}

/// [`parse_graph`], reading HTML and XHTML pages as `page` says (the charset of the
/// `Content-Type`, the embedded syntaxes wanted, the RDFa graph).
pub fn parse_graph_with(
    body: &[u8],
    syntaxes: &[Syntax],
    base: &str,
    contexts: &dyn ContextSource,
    page: &PageOptions,
) -> Result<ParsedGraph, RdfError> {
    // oxiri's parser, not sophia's IRI check: that one compiles a large regular expression
    // on first use, a good part of a one-document command such as `ldwarc replay`.
    if oxiri::Iri::parse(base).is_err() {
        return Err(RdfError::InvalidBase {
            base: base.to_string(),
        });
    }
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut best: Option<ParsedGraph> = None;
    let mut failures = Vec::new();
    for &syntax in syntaxes {
        let mut builder = GraphBuilder::default();
        let outcome = match parse_large(body, syntax, base, &mut builder) {
            Some(result) => ParseOutcome {
                remote_contexts: Vec::new(),
                missing_contexts: Vec::new(),
                result,
                embedded: None,
            },
            None => parse_statements(body, syntax, base, contexts, page, &mut builder),
        };
        let mut error = outcome.result.err();
        if error.is_none() && syntax.is_page() && builder.graph.is_empty() {
            // A page without embedded data is a page, not an (empty) RDF document.
            error = Some("no embedded RDF (RDFa, Microdata or data blocks)".to_string());
        }
        let parsed = ParsedGraph {
            graph: builder.graph,
            syntax,
            error,
            remote_contexts: outcome.remote_contexts,
            missing_contexts: outcome.missing_contexts,
            embedded: outcome.embedded,
        };
        let Some(error) = &parsed.error else {
            return Ok(parsed);
        };
        failures.push(format!("as {} ({error})", syntax.media_type()));
        // What a parser gave before it panicked is not trusted as a partial graph: the
        // document is a failure.
        if parser_panicked(error) {
            continue;
        }
        if best
            .as_ref()
            .is_none_or(|kept| parsed.graph.len() > kept.graph.len())
        {
            best = Some(parsed);
        }
    }
    match best {
        Some(partial) if !partial.graph.is_empty() => Ok(partial),
        _ if !failures.is_empty() => Err(RdfError::Unparseable {
            base: base.to_string(),
            detail: failures.join("; "),
        }),
        _ => Err(RdfError::NoSyntax {
            base: base.to_string(),
        }),
    }
}

/// Builds a [`Graph`] from parser statements, relabelling blank nodes by first appearance.
#[derive(Default)]
pub(crate) struct GraphBuilder {
    pub(crate) graph: Graph,
    blanks: HashMap<String, TermId>,
    scratch: String,
}

impl GraphBuilder {
    fn id<T: Term>(&mut self, term: &T) -> TermId {
        if let Some(label) = term.bnode_id() {
            return self.blank(label.as_str());
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        self.spell_into(term, &mut scratch);
        let id = self.graph.intern(&scratch);
        self.scratch = scratch;
        id
    }

    /// The id of the blank node the parser labelled `label`: `_:b0`, `_:b1`, … by first
    /// appearance.
    pub(crate) fn blank(&mut self, label: &str) -> TermId {
        if let Some(&id) = self.blanks.get(label) {
            return id;
        }
        let spelling = format!("_:b{}", self.blanks.len());
        let id = self.graph.intern(&spelling);
        self.blanks.insert(label.to_string(), id);
        id
    }

    /// Like [`spell_term`], with blank nodes inside quoted triples relabelled too.
    fn spell_into<T: Term>(&mut self, term: &T, out: &mut String) {
        if term.kind() == TermKind::BlankNode {
            let id = self.id(term);
            out.push_str(self.graph.term(id));
        } else if let Some([s, p, o]) = term.triple() {
            out.push_str("<<( ");
            for part in [s, p, o] {
                self.spell_into(&part, out);
                out.push(' ');
            }
            out.push_str(")>>");
        } else {
            spell_term(term, out);
        }
    }
}

impl StatementSink for GraphBuilder {
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        let quad = Quad {
            subject: self.id(&subject),
            predicate: self.id(&predicate),
            object: self.id(&object),
            graph: graph.map_or(DEFAULT_GRAPH, |g| self.id(&g)),
        };
        self.graph.insert(quad);
    }
}

/// Appends a term's canonical N-Triples spelling: IRIs in angle brackets (characters
/// N-Triples forbids there written as `\u` escapes), literals with the escapes of canonical
/// N-Quads (RDFC-1.0), `xsd:string` left implicit, language tags lower-cased (they compare
/// case-insensitively) and followed by the base direction if any, blank nodes with the
/// parser's label.
pub fn spell_term<T: Term>(term: &T, out: &mut String) {
    match term.kind() {
        TermKind::Iri => {
            if let Some(iri) = term.iri() {
                push_iri(iri.as_str(), out);
            }
        }
        TermKind::BlankNode => {
            if let Some(label) = term.bnode_id() {
                out.push_str("_:");
                out.push_str(label.as_str());
            }
        }
        TermKind::Literal => {
            if let Some(lexical) = term.lexical_form() {
                push_literal_text(&lexical, out);
            }
            if let Some(tag) = term.language_tag() {
                out.push('@');
                out.push_str(&tag.as_str().to_ascii_lowercase());
                // RDF 1.2: `"x"@en--rtl` and `"x"@en` are two literals.
                if let Some(direction) = term.base_direction() {
                    out.push_str("--");
                    out.push_str(direction.as_str());
                }
            } else if let Some(datatype) = term.datatype()
                && datatype.as_str() != XSD_STRING
                && datatype.as_str() != RDF_LANG_STRING
            {
                out.push_str("^^");
                push_iri(datatype.as_str(), out);
            }
        }
        TermKind::Triple => {
            if let Some([s, p, o]) = term.triple() {
                out.push_str("<<( ");
                for part in [s, p, o] {
                    spell_term(&part, out);
                    out.push(' ');
                }
                out.push_str(")>>");
            }
        }
        TermKind::Variable => {
            if let Some(name) = term.variable() {
                out.push('?');
                out.push_str(name.as_str());
            }
        }
    }
}

/// The bytes an IRI spelling writes as `\u` escapes: those N-Triples forbids in `<…>`.
static IRI_ESCAPED: [bool; 256] = iri_escaped();

const fn iri_escaped() -> [bool; 256] {
    let mut escaped = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        escaped[byte] = byte <= b' ' as usize
            || matches!(
                byte as u8,
                b'<' | b'>' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\'
            );
        byte += 1;
    }
    escaped
}

fn push_iri(iri: &str, out: &mut String) {
    out.push('<');
    // A table rather than comparisons: spelling IRIs is a good part of parsing.
    push_escaped(
        iri,
        out,
        |byte| IRI_ESCAPED[usize::from(byte)],
        push_u_escape,
    );
    out.push('>');
}

fn push_literal_text(text: &str, out: &mut String) {
    out.push('"');
    push_escaped(
        text,
        out,
        |byte| byte < b' ' || matches!(byte, b'"' | b'\\' | 0x7f),
        |byte, out| match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            byte => push_u_escape(byte, out),
        },
    );
    out.push('"');
}

fn push_u_escape(byte: u8, out: &mut String) {
    let _ = write!(out, "\\u{byte:04X}");
}

/// Appends `text` with the characters `escaped` picks written by `escape`. Only ASCII
/// characters are ever escaped, so the text is copied in runs between them (most terms need
/// no escape at all).
fn push_escaped(
    text: &str,
    out: &mut String,
    escaped: impl Fn(u8) -> bool,
    escape: impl Fn(u8, &mut String),
) {
    let mut rest = text;
    while let Some(at) = rest.bytes().position(&escaped) {
        out.push_str(&rest[..at]);
        escape(rest.as_bytes()[at], out);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoContexts;

    const BASE: &str = "http://example.org/doc";

    fn parse(body: &str, syntax: Syntax) -> ParsedGraph {
        parse_graph(body.as_bytes(), &[syntax], BASE, &NoContexts).unwrap()
    }

    #[test]
    fn a_base_that_is_not_an_absolute_iri_is_refused() {
        for base in [
            "not a url",
            "doc",
            "/relative/path",
            "http://exa mple.org/",
            "",
        ] {
            assert!(
                matches!(
                    parse_graph(b"<#a> <#p> <#o> .", &[Syntax::Turtle], base, &NoContexts),
                    Err(RdfError::InvalidBase { .. })
                ),
                "{base:?}"
            );
        }
        for base in [
            "http://example.org/doc",
            "urn:x:y",
            "https://\u{e9}.example/d?q=\u{e9}#f",
        ] {
            let parsed = parse_graph(b"<#a> <#p> <#o> .", &[Syntax::Turtle], base, &NoContexts)
                .unwrap_or_else(|e| panic!("{base:?}: {e}"));
            assert_eq!(parsed.graph.len(), 1, "{base:?}");
        }
    }

    #[test]
    fn iris_with_ipv6_hosts_are_kept_in_every_build() {
        let body = b"@base <http://[a::1]/x/> .\n<a> <http://[2001:db8::7]/p> <../b> .";
        let parsed = parse_graph(body, &[Syntax::Turtle], BASE, &NoContexts).unwrap();
        assert_eq!(parsed.error, None);
        assert_eq!(
            parsed.graph.to_nquads(),
            "<http://[a::1]/x/a> <http://[2001:db8::7]/p> <http://[a::1]/b> .\n"
        );
        let relative = parse_graph(
            b"<#a> <#p> <b> .",
            &[Syntax::Turtle],
            "http://[a::1]:8080/d",
            &NoContexts,
        )
        .unwrap();
        assert_eq!(
            relative.graph.to_nquads(),
            "<http://[a::1]:8080/d#a> <http://[a::1]:8080/d#p> <http://[a::1]:8080/b> .\n"
        );
    }

    #[test]
    fn turtle_terms_are_spelled_canonically_and_blank_nodes_relabelled() {
        let body = r#"@prefix ex: <http://example.org/> .
<#a> ex:p "x"^^<http://www.w3.org/2001/XMLSchema#string>, "Hi"@EN-gb, "tab\there \"q\"",
        [ ex:q 42 ] ;
     ex:p "x" .
"#;
        let parsed = parse(body, Syntax::Turtle);
        assert_eq!(parsed.error, None);
        assert_eq!(
            parsed.graph.to_nquads(),
            "<http://example.org/doc#a> <http://example.org/p> \"x\" .\n\
             <http://example.org/doc#a> <http://example.org/p> \"Hi\"@en-gb .\n\
             <http://example.org/doc#a> <http://example.org/p> \"tab\\there \\\"q\\\"\" .\n\
             <http://example.org/doc#a> <http://example.org/p> _:b0 .\n\
             _:b0 <http://example.org/q> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
        );
        assert_eq!(
            parsed.graph.len(),
            5,
            "the duplicate plain/xsd:string literal is one"
        );
        assert!(parsed.graph.is_blank(parsed.graph.id_of("_:b0").unwrap()));
    }

    #[test]
    fn same_document_same_labels_and_quads_keep_their_graph() {
        let nq = "_:x <http://e.org/p> _:y <http://e.org/g> .\n_:y <http://e.org/p> \"1\" .\n";
        let first = parse(nq, Syntax::NQuads).graph.to_nquads();
        let second = parse(nq, Syntax::NQuads).graph.to_nquads();
        assert_eq!(first, second);
        assert_eq!(
            first,
            "_:b0 <http://e.org/p> _:b1 <http://e.org/g> .\n_:b1 <http://e.org/p> \"1\" .\n"
        );
    }

    #[test]
    fn broken_document_keeps_statements_before_the_error() {
        let body = "<http://e.org/s> <http://e.org/p> <http://e.org/o> .\n<http://e.org/s> oops\n";
        let parsed = parse_graph(body.as_bytes(), &[Syntax::NTriples], BASE, &NoContexts).unwrap();
        assert_eq!(parsed.graph.len(), 1);
        assert!(parsed.error.as_deref().unwrap_or("").contains("line 2"));
        let err = parse_graph(b"nonsense", &[Syntax::NTriples], BASE, &NoContexts).unwrap_err();
        assert!(err.to_string().starts_with(BASE), "{err}");
    }

    #[test]
    fn spell_quad_renames_default_graph_and_prefixes_blank_nodes() {
        let parsed = parse("_:q <http://e.org/p> \"v\" .\n", Syntax::NTriples);
        let mut line = String::new();
        parsed.graph.spell_quad(
            &parsed.graph.quads()[0],
            Some("<http://e.org/doc>"),
            "d7",
            &mut line,
        );
        assert_eq!(line, "_:d7b0 <http://e.org/p> \"v\" <http://e.org/doc> .\n");
    }

    #[test]
    fn control_characters_and_bad_iri_characters_are_escaped() {
        let mut out = String::new();
        push_literal_text("a\u{1}b\u{7f}", &mut out);
        assert_eq!(out, "\"a\\u0001b\\u007F\"");
        out.clear();
        push_iri("http://e.org/a b", &mut out);
        assert_eq!(out, "<http://e.org/a\\u0020b>");
    }

    #[test]
    fn every_escape_is_written_between_unescaped_runs() {
        let mut out = String::new();
        push_literal_text(
            "\"\u{e9}\\\n\r\t\u{8}\u{c}\u{0}\u{1f}x\u{7f}\u{1F600}\"",
            &mut out,
        );
        assert_eq!(
            out,
            "\"\\\"\u{e9}\\\\\\n\\r\\t\\b\\f\\u0000\\u001Fx\\u007F\u{1F600}\\\"\""
        );
        out.clear();
        push_iri("http://\u{e9}.org/<>\"{}|^`\\\n\u{0}a\u{7f}", &mut out);
        assert_eq!(
            out,
            "<http://\u{e9}.org/\\u003C\\u003E\\u0022\\u007B\\u007D\\u007C\\u005E\\u0060\\u005C\\u000A\\u0000a\u{7f}>"
        );
    }
}
