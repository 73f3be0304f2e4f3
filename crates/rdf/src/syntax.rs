//! RDF concrete syntaxes: media types, the crawler's `Accept` header, content sniffing, and the
//! choice of which parsers to try for a fetched document.

use std::fmt;
use std::str::FromStr;

/// One of the RDF concrete syntaxes ldwarc can parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// Turtle (`text/turtle`); also used for N3 documents that stay within Turtle.
    Turtle,
    /// N-Triples (`application/n-triples`).
    NTriples,
    /// N-Quads (`application/n-quads`).
    NQuads,
    /// TriG (`application/trig`), a superset of Turtle with named graph blocks.
    TriG,
    /// JSON-LD (`application/ld+json`).
    JsonLd,
    /// RDF/XML (`application/rdf+xml`).
    RdfXml,
    /// An HTML page (`text/html`): its RDFa, Microdata and RDF `<script>` blocks.
    Html,
    /// An XHTML page (`application/xhtml+xml`): as [`Syntax::Html`], parsed as XML when it
    /// is well-formed.
    Xhtml,
}

/// The `Accept` header the crawler sends.
///
/// Every syntax we parse is acceptable; the weights only steer servers that offer several:
/// - Turtle first: the most widely served syntax in today's Linked Data, compact, and parsed
///   in a streaming fashion.
/// - N-Triples and N-Quads next: trivially streamable, line-oriented, so a truncated or broken
///   document still yields every line before the fault. N-Quads and TriG also carry graph names.
/// - JSON-LD below them: its meaning may depend on remote `@context` documents that we must
///   capture separately (we never fetch them while parsing), so it is the lossiest first fetch.
/// - RDF/XML below that: universally supported by older publishers (the DyLDO crawls were
///   mostly RDF/XML), but verbose; still a full-fidelity answer.
/// - `text/n3` is parsed as Turtle (most N3 in the wild is Turtle); generic XML is accepted at a
///   low weight because some servers label RDF/XML that way, and sniffing confirms it.
/// - HTML and XHTML pages last among named types: their embedded data (RDFa, Microdata,
///   JSON-LD blocks) is extracted, but a server that has an RDF document should send that.
/// - `*/*` keeps servers that cannot negotiate from answering 406; sniffing then recovers
///   mislabelled RDF, and anything else is recorded but not parsed.
pub const DEFAULT_ACCEPT: &str = "text/turtle;q=1.0, application/n-triples;q=0.95, \
application/n-quads;q=0.9, application/trig;q=0.9, application/ld+json;q=0.85, \
application/rdf+xml;q=0.8, text/n3;q=0.5, application/xml;q=0.3, \
application/xhtml+xml;q=0.2, text/html;q=0.2, */*;q=0.1";

/// How many leading bytes of a document [`sniff`] and [`choose_syntaxes`] want to see.
///
/// Shorter prefixes work but make XML sniffing less decisive.
pub const SNIFF_LEN: usize = 4096;

const ALL: [Syntax; 6] = [
    Syntax::Turtle,
    Syntax::NTriples,
    Syntax::NQuads,
    Syntax::TriG,
    Syntax::JsonLd,
    Syntax::RdfXml,
];

const RDF_NAMESPACE: &[u8] = b"http://www.w3.org/1999/02/22-rdf-syntax-ns#";

impl Syntax {
    /// Every RDF document syntax, in the order of [`DEFAULT_ACCEPT`] (the page syntaxes
    /// [`Syntax::Html`] and [`Syntax::Xhtml`] are not among them: they are not output formats).
    pub fn all() -> [Syntax; 6] {
        ALL
    }

    /// The registered media type of this syntax.
    pub fn media_type(&self) -> &'static str {
        match self {
            Syntax::Turtle => "text/turtle",
            Syntax::NTriples => "application/n-triples",
            Syntax::NQuads => "application/n-quads",
            Syntax::TriG => "application/trig",
            Syntax::JsonLd => "application/ld+json",
            Syntax::RdfXml => "application/rdf+xml",
            Syntax::Html => "text/html",
            Syntax::Xhtml => "application/xhtml+xml",
        }
    }

    /// The short name used on the command line and in logs: `ttl`, `nt`, `nq`, `trig`,
    /// `jsonld`, `rdfxml`, `html` or `xhtml`.
    pub fn name(&self) -> &'static str {
        match self {
            Syntax::Turtle => "ttl",
            Syntax::NTriples => "nt",
            Syntax::NQuads => "nq",
            Syntax::TriG => "trig",
            Syntax::JsonLd => "jsonld",
            Syntax::RdfXml => "rdfxml",
            Syntax::Html => "html",
            Syntax::Xhtml => "xhtml",
        }
    }

    /// The file name extensions of this syntax, usual one first.
    pub fn extensions(&self) -> &'static [&'static str] {
        match self {
            Syntax::Turtle => &["ttl", "turtle", "n3"],
            Syntax::NTriples => &["nt", "ntriples"],
            Syntax::NQuads => &["nq", "nquads"],
            Syntax::TriG => &["trig"],
            Syntax::JsonLd => &["jsonld", "json"],
            Syntax::RdfXml => &["rdf", "owl", "xml", "rdfxml"],
            Syntax::Html => &["html", "htm"],
            Syntax::Xhtml => &["xhtml", "xht"],
        }
    }

    /// Whether documents in this syntax can name graphs (N-Quads, TriG, JSON-LD, and pages,
    /// whose data blocks may be in any of those).
    pub fn has_graphs(&self) -> bool {
        matches!(
            self,
            Syntax::NQuads | Syntax::TriG | Syntax::JsonLd | Syntax::Html | Syntax::Xhtml
        )
    }

    /// Whether this is a page syntax whose RDF is embedded (HTML, XHTML).
    pub fn is_page(&self) -> bool {
        matches!(self, Syntax::Html | Syntax::Xhtml)
    }

    /// The syntax a `Content-Type` value declares, if it is an RDF type.
    ///
    /// Parameters (`; charset=...`) and case are ignored. Aliases: `application/x-turtle`,
    /// `application/turtle`, `text/n3`, `text/rdf+n3` and `application/n3` are Turtle (N3 is a
    /// superset, and most N3 documents are plain Turtle); `text/x-nquads` is N-Quads;
    /// `application/x-trig` is TriG; `application/activity+json` is JSON-LD;
    /// `application/xml` and `text/xml` are RDF/XML *candidates* (see [`choose_syntaxes`],
    /// which only tries them when the content looks like RDF/XML). `text/plain` and
    /// `application/json` are not RDF by label: only sniffing can make them so.
    pub fn from_media_type(content_type: &str) -> Option<Syntax> {
        let essence = media_type_essence(content_type);
        let syntax = match essence.as_str() {
            "text/turtle" | "application/x-turtle" | "application/turtle" => Syntax::Turtle,
            "text/n3" | "text/rdf+n3" | "application/n3" => Syntax::Turtle,
            "application/n-triples" | "application/ntriples" => Syntax::NTriples,
            "application/n-quads" | "text/x-nquads" | "text/nquads" => Syntax::NQuads,
            "application/trig" | "application/x-trig" => Syntax::TriG,
            "application/ld+json" | "application/activity+json" => Syntax::JsonLd,
            "application/rdf+xml" | "application/xml" | "text/xml" => Syntax::RdfXml,
            "text/html" => Syntax::Html,
            "application/xhtml+xml" => Syntax::Xhtml,
            _ => return None,
        };
        Some(syntax)
    }
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a syntax name that is none of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown RDF syntax {0:?} (expected ttl, nt, nq, trig, jsonld, rdfxml, html or xhtml)")]
pub struct UnknownSyntax(pub String);

impl FromStr for Syntax {
    type Err = UnknownSyntax;

    /// Accepts the short names of [`Syntax::name`] (any case), a few common spellings
    /// (`turtle`, `ntriples`, `nquads`, `json-ld`, `xml`, `rdf/xml`) and media types.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        let syntax = match lower.as_str() {
            "ttl" | "turtle" => Syntax::Turtle,
            "nt" | "ntriples" | "n-triples" => Syntax::NTriples,
            "nq" | "nquads" | "n-quads" => Syntax::NQuads,
            "trig" => Syntax::TriG,
            "jsonld" | "json-ld" => Syntax::JsonLd,
            "rdfxml" | "rdf/xml" | "xml" | "rdf" => Syntax::RdfXml,
            "html" | "htm" => Syntax::Html,
            "xhtml" => Syntax::Xhtml,
            other => {
                return Syntax::from_media_type(other).ok_or_else(|| UnknownSyntax(text.into()));
            }
        };
        Ok(syntax)
    }
}

/// The lower-cased `type/subtype` of a media type, without parameters.
fn media_type_essence(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

/// Whether a `Content-Type` only weakly suggests RDF/XML (any XML would carry it).
fn is_generic_xml(content_type: &str) -> bool {
    matches!(
        media_type_essence(content_type).as_str(),
        "application/xml" | "text/xml"
    )
}

/// Guesses the syntax of a document from its first bytes (ideally [`SNIFF_LEN`] of them).
///
/// A UTF-8 byte order mark, whitespace and comments are skipped. Then:
/// - `{` followed by a JSON key or `}`, and `[` followed by JSON values, are JSON-LD;
/// - XML (`<?xml`, a DOCTYPE, a comment, or a start tag) is RDF/XML when the RDF namespace
///   appears in the prefix, or when the root element is not in the prefix yet; XML whose root
///   element is visible without any RDF namespace (Atom, SVG, XHTML...) is not RDF;
/// - HTML (`<!DOCTYPE html`, `<html`) is [`Syntax::Html`], or [`Syntax::Xhtml`] after an XML
///   declaration;
/// - a first statement of exactly three (four) N-Triples terms and a `.` is N-Triples
///   (N-Quads);
/// - anything else Turtle-like (directives, prefixed names, `[`, `(`) is Turtle, or TriG when
///   the prefix contains a graph block (`{` outside strings and IRIs, or `GRAPH`).
///
/// Returns `None` for anything else (binary data, plain text, UTF-16).
pub fn sniff(prefix: &[u8]) -> Option<Syntax> {
    let text = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let start = skip_hash_comments(text, 0);
    let rest = &text[start..];
    if let Some(terms) = ntriples_statement_terms(rest) {
        return Some(if terms == 4 {
            Syntax::NQuads
        } else {
            Syntax::NTriples
        });
    }
    match *rest.first()? {
        b'{' => Some(sniff_brace(rest)),
        b'[' => Some(sniff_bracket(rest)),
        b'<' => sniff_angle(text, start),
        b'_' | b'(' | b'@' | b':' => Some(sniff_turtle_family(text, start)),
        byte if byte.is_ascii_alphabetic() => sniff_word(text, start),
        _ => None,
    }
}

/// Skips whitespace and `#` comments (the Turtle family's) from `pos`.
fn skip_hash_comments(text: &[u8], mut pos: usize) -> usize {
    loop {
        pos = skip_whitespace(text, pos);
        if text.get(pos) != Some(&b'#') {
            return pos;
        }
        pos = match memchr::memchr(b'\n', &text[pos..]) {
            Some(offset) => pos + offset + 1,
            None => text.len(),
        };
    }
}

fn skip_whitespace(text: &[u8], mut pos: usize) -> usize {
    while text.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// `{` opens a JSON object (next is a key or `}`) or a TriG default-graph block.
fn sniff_brace(rest: &[u8]) -> Syntax {
    match rest.get(skip_whitespace(rest, 1)) {
        Some(b'"') | Some(b'}') | None => Syntax::JsonLd,
        _ => Syntax::TriG,
    }
}

/// `[` opens a JSON array or a Turtle blank node property list (whose first item is a
/// predicate: an IRI, a prefixed name or `a`, never a JSON value).
fn sniff_bracket(rest: &[u8]) -> Syntax {
    match rest.get(skip_whitespace(rest, 1)) {
        Some(b'{' | b'[' | b'"' | b']' | b'-' | b'0'..=b'9') | None => Syntax::JsonLd,
        Some(_) if starts_with_json_literal(&rest[skip_whitespace(rest, 1)..]) => Syntax::JsonLd,
        Some(_) => Syntax::Turtle,
    }
}

fn starts_with_json_literal(text: &[u8]) -> bool {
    [&b"true"[..], b"false", b"null"].iter().any(|word| {
        text.starts_with(word)
            && !text
                .get(word.len())
                .is_some_and(|next| next.is_ascii_alphanumeric() || *next == b':')
    })
}

/// A leading word: a SPARQL-style directive (`PREFIX`, `BASE`, `VERSION`, `GRAPH`) or a
/// prefixed name starting a Turtle statement.
fn sniff_word(text: &[u8], start: usize) -> Option<Syntax> {
    let rest = &text[start..];
    let word_len = rest
        .iter()
        .position(|byte| !(byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.')))
        .unwrap_or(rest.len());
    let word = &rest[..word_len];
    let directive = [&b"prefix"[..], b"base", b"version", b"graph"]
        .iter()
        .any(|keyword| word.eq_ignore_ascii_case(keyword));
    if directive || rest.get(word_len) == Some(&b':') {
        Some(sniff_turtle_family(text, start))
    } else {
        None
    }
}

/// `<` starts XML/HTML or an IRI of the Turtle family.
fn sniff_angle(text: &[u8], start: usize) -> Option<Syntax> {
    if looks_like_markup(&text[start..]) {
        return sniff_xml(text, start);
    }
    Some(sniff_turtle_family(text, start))
}

/// Whether `<` begins markup rather than an IRI: a declaration, processing instruction,
/// comment, or a tag whose name is followed by whitespace, `>` or `/>` and that is not
/// followed by more terms on the same line as an IRI would be.
fn looks_like_markup(rest: &[u8]) -> bool {
    match rest.get(1) {
        Some(b'?' | b'!') => return true,
        Some(byte) if byte.is_ascii_alphabetic() || *byte == b'_' => {}
        _ => return false,
    }
    let name_len = rest[1..]
        .iter()
        .position(|byte| !is_xml_name_byte(*byte))
        .map_or(rest.len() - 1, |len| len);
    match rest.get(1 + name_len) {
        Some(b' ' | b'\t' | b'\r' | b'\n') => true,
        Some(b'/') => rest.get(2 + name_len) == Some(&b'>'),
        // `<name>` is both a tag and a relative IRI; an IRI is followed by a space and more
        // terms on the same line, a tag by a newline or more markup.
        Some(b'>') => !matches!(rest.get(2 + name_len), Some(b' ' | b'\t')),
        _ => false,
    }
}

fn is_xml_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b':') || byte >= 0x80
}

/// Decides between RDF/XML and other markup.
fn sniff_xml(text: &[u8], start: usize) -> Option<Syntax> {
    let mut pos = start;
    loop {
        pos = skip_whitespace(text, pos);
        let rest = &text[pos..];
        if rest.is_empty() {
            // The root element is beyond the prefix: give XML the benefit of the doubt.
            return Some(Syntax::RdfXml);
        }
        if rest.starts_with(b"<?") {
            pos = skip_until(text, pos, b"?>");
        } else if rest.starts_with(b"<!--") {
            pos = skip_until(text, pos, b"-->");
        } else if starts_with_ignore_case(rest, b"<!doctype") {
            if starts_with_ignore_case(&rest[9..], b" html") {
                return Some(page_syntax(text));
            }
            pos = skip_doctype(text, pos);
        } else if rest.starts_with(b"<") {
            return sniff_root_element(text, rest);
        } else {
            return None;
        }
    }
}

/// Skips a DOCTYPE, including an internal subset in `[...]` (RDF/XML uses it for entities).
fn skip_doctype(text: &[u8], pos: usize) -> usize {
    let mut depth = 0usize;
    for (offset, byte) in text[pos..].iter().enumerate() {
        match byte {
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'>' if depth == 0 => return pos + offset + 1,
            _ => {}
        }
    }
    text.len()
}

fn sniff_root_element(text: &[u8], root: &[u8]) -> Option<Syntax> {
    let name_len = root[1..]
        .iter()
        .position(|byte| !is_xml_name_byte(*byte))
        .unwrap_or(root.len() - 1);
    let name = &root[1..1 + name_len];
    let local_name = name.rsplit(|byte| *byte == b':').next().unwrap_or(name);
    if local_name.eq_ignore_ascii_case(b"html") {
        return Some(page_syntax(text));
    }
    if memchr::memmem::find(text, RDF_NAMESPACE).is_some() {
        return Some(Syntax::RdfXml);
    }
    if memchr::memchr(b'>', root).is_some() {
        // The whole root tag is visible and declares no RDF namespace: some other XML.
        None
    } else {
        Some(Syntax::RdfXml)
    }
}

/// A page with an XML declaration is XHTML, any other HTML.
fn page_syntax(text: &[u8]) -> Syntax {
    let start = skip_whitespace(text, 0);
    if text[start..].starts_with(b"<?xml") {
        Syntax::Xhtml
    } else {
        Syntax::Html
    }
}

fn starts_with_ignore_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Counts the terms of the first statement if it is a plain N-Triples/N-Quads line: IRIs,
/// blank node labels and literals followed by `.`. Returns 3 or 4, or `None` for anything
/// else (Turtle punctuation, prefixed names, a line cut off by the prefix end).
fn ntriples_statement_terms(line: &[u8]) -> Option<usize> {
    let mut pos = 0;
    let mut terms = 0;
    loop {
        pos = skip_blanks(line, pos);
        match line.get(pos)? {
            b'.' if terms == 3 || terms == 4 => {
                let after = skip_blanks(line, pos + 1);
                return match line.get(after) {
                    None | Some(b'\n' | b'\r' | b'#') => Some(terms),
                    Some(_) => None,
                };
            }
            b'<' if terms < 4 => pos = skip_iri(line, pos)?,
            b'_' if terms < 4 && terms != 1 => pos = skip_bnode(line, pos)?,
            b'"' if terms == 2 => pos = skip_literal(line, pos)?,
            _ => return None,
        }
        terms += 1;
    }
}

fn skip_blanks(line: &[u8], mut pos: usize) -> usize {
    while matches!(line.get(pos), Some(b' ' | b'\t')) {
        pos += 1;
    }
    pos
}

fn skip_iri(line: &[u8], pos: usize) -> Option<usize> {
    let len = line[pos + 1..]
        .iter()
        .position(|byte| matches!(byte, b'>' | b' ' | b'\n' | b'<' | b'"'))?;
    (line[pos + 1 + len] == b'>').then_some(pos + len + 2)
}

fn skip_bnode(line: &[u8], pos: usize) -> Option<usize> {
    if line.get(pos + 1) != Some(&b':') {
        return None;
    }
    let len = line[pos + 2..]
        .iter()
        .position(|byte| byte.is_ascii_whitespace())
        .unwrap_or(line.len() - pos - 2);
    (len > 0).then_some(pos + 2 + len)
}

fn skip_literal(line: &[u8], pos: usize) -> Option<usize> {
    let mut index = pos + 1;
    loop {
        match line.get(index)? {
            b'\\' => index += 2,
            b'"' => break,
            b'\n' => return None,
            _ => index += 1,
        }
    }
    index += 1;
    match line.get(index) {
        Some(b'@') => {
            let len = line[index..]
                .iter()
                .position(|byte| byte.is_ascii_whitespace())?;
            Some(index + len)
        }
        Some(b'^') if line.get(index + 1) == Some(&b'^') => skip_iri(line, index + 2),
        _ => Some(index),
    }
}

/// Turtle or TriG: TriG when a graph block shows up in the prefix.
fn sniff_turtle_family(text: &[u8], start: usize) -> Syntax {
    if has_graph_block(&text[start..]) {
        Syntax::TriG
    } else {
        Syntax::Turtle
    }
}

/// Scans Turtle-family text for `{` (other than the `{|` of RDF 1.2 annotations) or a `GRAPH`
/// keyword outside IRIs, strings and comments.
fn has_graph_block(text: &[u8]) -> bool {
    let mut pos = 0;
    while let Some(byte) = text.get(pos) {
        pos = match byte {
            b'<' => skip_until(text, pos + 1, b">"),
            b'#' => skip_until(text, pos + 1, b"\n"),
            b'"' | b'\'' => skip_string(text, pos),
            b'{' => {
                if text.get(pos + 1) != Some(&b'|') {
                    return true;
                }
                pos + 2
            }
            b'G' | b'g' if is_graph_keyword(text, pos) => return true,
            _ => pos + 1,
        };
    }
    false
}

fn is_graph_keyword(text: &[u8], pos: usize) -> bool {
    let before_ok = pos == 0 || text[pos - 1].is_ascii_whitespace();
    let after_ok = text.get(pos + 5).is_none_or(u8::is_ascii_whitespace);
    before_ok && after_ok && starts_with_ignore_case(&text[pos..], b"graph")
}

/// The position just past the next `marker` at or after `pos`, or the end of the prefix.
fn skip_until(text: &[u8], pos: usize, marker: &[u8]) -> usize {
    match memchr::memmem::find(&text[pos.min(text.len())..], marker) {
        Some(offset) => pos + offset + marker.len(),
        None => text.len(),
    }
}

/// Skips a Turtle string: `"..."`, `'...'`, or their long triple-quoted forms.
fn skip_string(text: &[u8], pos: usize) -> usize {
    let quote = text[pos];
    let long = text.get(pos + 1) == Some(&quote) && text.get(pos + 2) == Some(&quote);
    let mut index = if long { pos + 3 } else { pos + 1 };
    while let Some(byte) = text.get(index) {
        if *byte == b'\\' {
            index += 2;
        } else if *byte == quote && (!long || text[index..].starts_with(&[quote, quote, quote])) {
            return index + if long { 3 } else { 1 };
        } else {
            index += 1;
        }
    }
    text.len()
}

/// The syntaxes to try, in order, for a document with this `Content-Type` and first bytes.
///
/// The declared syntax comes first (the server usually knows), then the sniffed one when it
/// differs, so a mislabelled document still parses. A generic XML label only counts when the
/// content sniffs as RDF/XML. Supersets follow as last resorts, because they accept
/// everything the narrower syntax does and more: Turtle after N-Triples, TriG after Turtle.
/// Pages are the exception both ways: RDF labelled as a page is parsed as RDF first, and a
/// page labelled as RDF (an error page, say) is not searched for embedded data.
/// Returns an empty list when nothing suggests RDF.
pub fn choose_syntaxes(content_type: Option<&str>, prefix: &[u8]) -> Vec<Syntax> {
    let mut sniffed = sniff(prefix);
    let declared = content_type.and_then(|value| {
        let syntax = Syntax::from_media_type(value)?;
        let weak = is_generic_xml(value) && sniffed != Some(Syntax::RdfXml);
        (!weak).then_some(syntax)
    });
    if declared.is_some_and(|syntax| !syntax.is_page()) && sniffed.is_some_and(|s| s.is_page()) {
        sniffed = None;
    }
    let mut syntaxes = Vec::with_capacity(4);
    for syntax in [declared, sniffed].into_iter().flatten() {
        push_unique(&mut syntaxes, syntax);
    }
    if syntaxes.contains(&Syntax::NTriples) {
        push_unique(&mut syntaxes, Syntax::Turtle);
    }
    if syntaxes.contains(&Syntax::Turtle) {
        push_unique(&mut syntaxes, Syntax::TriG);
    }
    // Every text parses as a page (to an empty graph at worst): try pages last.
    syntaxes.sort_by_key(Syntax::is_page);
    syntaxes
}

/// The line-based syntax a `Content-Type` declares, for readers that must not fall back:
/// N-Triples and N-Quads are strict subsets of Turtle and TriG, so a document declared as one
/// of them that only parses as Turtle is not what it says it is.
pub fn strict_syntax(content_type: &str) -> Option<Syntax> {
    Syntax::from_media_type(content_type)
        .filter(|syntax| matches!(syntax, Syntax::NTriples | Syntax::NQuads))
}

/// Why a document read by [`choose_syntaxes`]' fallbacks is not what its `Content-Type`
/// declares, if it is not: declared as one RDF syntax, it parsed as another (N-Triples that is
/// really Turtle, say). Generic XML and page labels declare nothing specific.
pub fn mislabelled(content_type: Option<&str>, parsed: Syntax) -> Option<String> {
    let value = content_type?;
    let declared = Syntax::from_media_type(value)?;
    if declared == parsed || declared.is_page() || is_generic_xml(value) {
        return None;
    }
    Some(format!(
        "declared {} but is not; read as {}",
        declared.media_type(),
        parsed.media_type()
    ))
}

fn push_unique(syntaxes: &mut Vec<Syntax>, syntax: Syntax) {
    if !syntaxes.contains(&syntax) {
        syntaxes.push(syntax);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_line_syntaxes_are_strict_and_mislabelling_is_named() {
        assert_eq!(
            strict_syntax("application/n-triples"),
            Some(Syntax::NTriples)
        );
        assert_eq!(
            strict_syntax("application/n-quads; charset=utf-8"),
            Some(Syntax::NQuads)
        );
        assert_eq!(strict_syntax("text/turtle"), None);
        assert_eq!(
            mislabelled(Some("application/n-triples"), Syntax::Turtle).as_deref(),
            Some("declared application/n-triples but is not; read as text/turtle")
        );
        assert_eq!(
            mislabelled(Some("application/n-triples"), Syntax::NTriples),
            None
        );
        assert_eq!(mislabelled(Some("application/xml"), Syntax::RdfXml), None);
        assert_eq!(mislabelled(Some("text/html"), Syntax::Turtle), None);
        assert_eq!(mislabelled(None, Syntax::Turtle), None);
    }

    #[test]
    fn media_types_round_trip_and_aliases() {
        for syntax in Syntax::all() {
            assert_eq!(Syntax::from_media_type(syntax.media_type()), Some(syntax));
            assert_eq!(syntax.name().parse::<Syntax>(), Ok(syntax));
        }
        assert_eq!(
            Syntax::from_media_type("Text/Turtle; charset=UTF-8"),
            Some(Syntax::Turtle)
        );
        assert_eq!(
            Syntax::from_media_type("application/x-turtle"),
            Some(Syntax::Turtle)
        );
        assert_eq!(Syntax::from_media_type("text/n3"), Some(Syntax::Turtle));
        assert_eq!(Syntax::from_media_type("text/xml"), Some(Syntax::RdfXml));
        assert_eq!(
            Syntax::from_media_type("application/activity+json"),
            Some(Syntax::JsonLd)
        );
        assert_eq!(Syntax::from_media_type("text/plain"), None);
        assert_eq!(Syntax::from_media_type("application/json"), None);
        assert_eq!(Syntax::from_media_type("text/html"), Some(Syntax::Html));
        assert_eq!(
            Syntax::from_media_type("application/xhtml+xml"),
            Some(Syntax::Xhtml)
        );
        assert!("owl".parse::<Syntax>().is_err());
        assert_eq!("TURTLE".parse::<Syntax>(), Ok(Syntax::Turtle));
        assert_eq!("application/n-quads".parse::<Syntax>(), Ok(Syntax::NQuads));
    }

    #[test]
    fn default_accept_names_every_syntax() {
        for syntax in Syntax::all() {
            assert!(DEFAULT_ACCEPT.contains(syntax.media_type()), "{syntax}");
        }
    }

    #[test]
    fn sniffs_json_ld() {
        assert_eq!(
            sniff(b"\xEF\xBB\xBF  {\"@id\": \"x\"}"),
            Some(Syntax::JsonLd)
        );
        assert_eq!(sniff(b"{}"), Some(Syntax::JsonLd));
        assert_eq!(sniff(b"[ {\"@id\": \"x\"} ]"), Some(Syntax::JsonLd));
        assert_eq!(sniff(b"[]"), Some(Syntax::JsonLd));
    }

    #[test]
    fn sniffs_xml_and_pages() {
        let rdf = b"<?xml version=\"1.0\"?>\n<!-- hi -->\n<!DOCTYPE rdf:RDF [ <!ENTITY x \"y\"> ]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">";
        assert_eq!(sniff(rdf), Some(Syntax::RdfXml));
        assert_eq!(
            sniff(b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"),
            Some(Syntax::RdfXml)
        );
        assert_eq!(sniff(b"<?xml version=\"1.0\"?>"), Some(Syntax::RdfXml));
        assert_eq!(sniff(b"<!DOCTYPE html>\n<html>"), Some(Syntax::Html));
        assert_eq!(sniff(b"<!doctype HTML><p>"), Some(Syntax::Html));
        assert_eq!(sniff(b"<html lang=\"en\">"), Some(Syntax::Html));
        assert_eq!(
            sniff(b"<?xml version=\"1.0\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"),
            Some(Syntax::Xhtml)
        );
        assert_eq!(
            sniff(b"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><title>"),
            None
        );
    }

    #[test]
    fn sniffs_ntriples_and_nquads() {
        assert_eq!(
            sniff(b"# c\n<http://a/s> <http://a/p> \"x\\\"y\"@en .\n"),
            Some(Syntax::NTriples)
        );
        assert_eq!(
            sniff(b"_:b1 <http://a/p> \"1\"^^<http://www.w3.org/2001/XMLSchema#int> ."),
            Some(Syntax::NTriples)
        );
        assert_eq!(
            sniff(b"<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n"),
            Some(Syntax::NQuads)
        );
        assert_eq!(
            sniff(b"<http://a/s> <http://a/p> <http://a/o> ;\n <http://a/q> 1 ."),
            Some(Syntax::Turtle)
        );
    }

    #[test]
    fn sniffs_turtle_and_trig() {
        assert_eq!(
            sniff(b"@prefix ex: <http://ex/> .\nex:a ex:b \"{not a graph}\" ."),
            Some(Syntax::Turtle)
        );
        assert_eq!(
            sniff(b"PREFIX ex: <http://ex/>\nex:a a ex:C ."),
            Some(Syntax::Turtle)
        );
        assert_eq!(sniff(b"ex:a ex:b ex:c ."), Some(Syntax::Turtle));
        assert_eq!(sniff(b"[ a <http://ex/C> ] ."), Some(Syntax::Turtle));
        assert_eq!(
            sniff(b"@prefix ex: <http://ex/> .\nex:g { ex:a ex:b ex:c }"),
            Some(Syntax::TriG)
        );
        assert_eq!(
            sniff(b"{ <http://a> <http://b> <http://c> }"),
            Some(Syntax::TriG)
        );
        assert_eq!(sniff(b"GRAPH <http://g> { }"), Some(Syntax::TriG));
    }

    #[test]
    fn sniff_rejects_text_and_binary() {
        assert_eq!(sniff(b"Hello world, this is text."), None);
        assert_eq!(sniff(b"\x1f\x8b\x08\x00"), None);
        assert_eq!(sniff(b""), None);
        assert_eq!(sniff(b"   \n# only a comment\n"), None);
    }

    #[test]
    fn choose_puts_declared_first_then_sniffed_then_supersets() {
        let turtle = b"@prefix ex: <http://ex/> .\nex:a ex:b ex:c .";
        assert_eq!(
            choose_syntaxes(Some("application/rdf+xml"), turtle),
            vec![Syntax::RdfXml, Syntax::Turtle, Syntax::TriG]
        );
        assert_eq!(
            choose_syntaxes(Some("text/plain"), turtle),
            vec![Syntax::Turtle, Syntax::TriG]
        );
        assert_eq!(
            choose_syntaxes(Some("application/n-triples"), b"<a> <b> <c> ."),
            vec![Syntax::NTriples, Syntax::Turtle, Syntax::TriG]
        );
        assert_eq!(
            choose_syntaxes(Some("application/json"), b"{\"@id\": \"x\"}"),
            vec![Syntax::JsonLd]
        );
        assert_eq!(
            choose_syntaxes(Some("text/html"), b"<!DOCTYPE html>"),
            vec![Syntax::Html]
        );
        assert_eq!(
            choose_syntaxes(
                Some("text/html"),
                b"<http://a/s> <http://a/p> <http://a/o> .\n"
            ),
            vec![Syntax::NTriples, Syntax::Turtle, Syntax::TriG, Syntax::Html]
        );
        assert_eq!(
            choose_syntaxes(Some("text/turtle"), b"<!DOCTYPE html><title>404</title>"),
            vec![Syntax::Turtle, Syntax::TriG]
        );
        assert_eq!(choose_syntaxes(None, b"binary\x00"), vec![]);
    }

    #[test]
    fn generic_xml_label_needs_rdf_content() {
        let atom = b"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\">";
        assert_eq!(choose_syntaxes(Some("application/xml"), atom), vec![]);
        let rdf = b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>";
        assert_eq!(
            choose_syntaxes(Some("text/xml; charset=utf-8"), rdf),
            vec![Syntax::RdfXml]
        );
        assert_eq!(
            choose_syntaxes(Some("application/rdf+xml"), atom),
            vec![Syntax::RdfXml]
        );
    }
}
