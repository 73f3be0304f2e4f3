//! A fast reading of the plainest Turtle documents, with sophia's parser as the authority.
//!
//! Most Linked Data documents are written in a small part of Turtle: `@prefix` lines, then
//! statements of absolute IRIs, prefixed names, blank node labels, plain strings, integers
//! and booleans. Sophia's parser checks every IRI with a regular expression and resolves
//! it against the base; for documents of ten statements that is most of the time a dataset
//! snapshot spends. This module reads that small part directly and gives up (`None`) on
//! anything else, before delivering a single statement: the caller then parses the whole
//! document with sophia. What it accepts, it reads as sophia does (the tests compare the
//! two on generated and mutated documents); what it is unsure of, it leaves to sophia:
//!
//! - IRIs: ASCII, absolute, no dot segments (which resolution would remove), no user
//!   information or bracketed hosts; relative references are left to sophia.
//! - Prefixed names and blank node labels of letters, digits, `_` and `-` only.
//! - Strings in double quotes without escapes or line breaks; language tags of the forms
//!   `en`, `en-gb`, `en-latn`, `es-419` (lower case); datatypes by IRI or prefixed name.
//! - Integers, decimals written with digits on both sides of the point, `true`, `false`.
//! - No `@base`, `BASE`, `PREFIX`, `VERSION`, `[ ]`, collections, triple terms, long or
//!   single-quoted strings, or doubles.

use std::collections::HashMap;

use sophia::api::MownStr;
use sophia::api::term::{BnodeId, IriRef, LanguageTag, SimpleTerm};

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
const XSD_DECIMAL: &str = "http://www.w3.org/2001/XMLSchema#decimal";
const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";
const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
const RDF_DIR_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

/// A statement of the document, its terms borrowed from the document where they can be.
pub(crate) type FastTriple<'a> = [SimpleTerm<'a>; 3];

/// The statements of `body` in document order, or `None` if it is not (entirely) in the
/// part of Turtle this module reads.
pub(crate) fn parse(body: &[u8]) -> Option<Vec<FastTriple<'_>>> {
    let text = std::str::from_utf8(body).ok()?;
    let mut reader = Reader {
        text,
        at: 0,
        prefixes: HashMap::new(),
        triples: Vec::new(),
        last_plain: None,
    };
    reader.document()?;
    Some(reader.triples)
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    /// Each prefix's namespace, and whether name characters appended to it always give
    /// an IRI of the plain kind (they do unless it ends in its authority).
    prefixes: HashMap<&'a str, (&'a str, bool)>,
    triples: Vec<FastTriple<'a>>,
    /// The last IRI found plain: documents repeat their subject statement after statement.
    /// (None at first: `<>`, the empty reference, is not plain.)
    last_plain: Option<&'a str>,
}

impl<'a> Reader<'a> {
    fn document(&mut self) -> Option<()> {
        loop {
            self.skip_space();
            match self.peek() {
                None => return Some(()),
                Some(b'@') => self.prefix_directive()?,
                Some(_) => self.statement()?,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn rest(&self) -> &'a [u8] {
        &self.text.as_bytes()[self.at..]
    }

    /// Skips white space and comments.
    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&byte) = bytes.get(self.at) {
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'#' => {
                    self.at = memchr::memchr2(b'\n', b'\r', &bytes[self.at..])
                        .map_or(bytes.len(), |end| self.at + end);
                }
                _ => break,
            }
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    /// `@prefix name: <iri> .`
    fn prefix_directive(&mut self) -> Option<()> {
        let rest = self.rest();
        if !rest.starts_with(b"@prefix") || !rest.get(7).is_some_and(|b| is_space(*b)) {
            return None;
        }
        self.at += 7;
        self.skip_space();
        let name = self.name_chars();
        let name = &self.text[name];
        if !name.is_empty() && !name.as_bytes()[0].is_ascii_alphabetic() {
            return None;
        }
        self.expect(b':')?;
        self.skip_space();
        let iri = self.iri_ref()?;
        self.skip_space();
        self.end_of_statement()?;
        self.prefixes.insert(name, (iri, appendable(iri)));
        Some(())
    }

    /// The `.` ending a statement, which must be followed by white space, a comment or the
    /// end: `ex:a.b` is one prefixed name to Turtle, where this reader would see two.
    fn end_of_statement(&mut self) -> Option<()> {
        self.expect(b'.')?;
        self.space_follows().then_some(())
    }

    /// Whether white space, a comment or the end of the document comes next.
    fn space_follows(&self) -> bool {
        self.peek().is_none_or(|b| is_space(b) || b == b'#')
    }

    fn statement(&mut self) -> Option<()> {
        let subject = match self.peek()? {
            b'_' => self.blank_node()?,
            b'<' => iri_term(MownStr::from(self.iri_ref()?)),
            _ => self.prefixed_name()?,
        };
        // Terms run together (`<a><b>`, `ex:a:b`) are left to sophia.
        if !self.space_follows() {
            return None;
        }
        self.skip_space();
        loop {
            let predicate = self.verb()?;
            if !self.space_follows() {
                return None;
            }
            self.skip_space();
            loop {
                let object = self.object()?;
                self.triples
                    .push([subject.clone(), predicate.clone(), object]);
                self.skip_space();
                if self.expect(b',').is_none() {
                    break;
                }
                self.skip_space();
            }
            // `;` may repeat, and may end the predicate list.
            let mut separated = false;
            while self.expect(b';').is_some() {
                separated = true;
                self.skip_space();
            }
            if self.peek() == Some(b'.') {
                return self.end_of_statement();
            }
            if !separated {
                return None;
            }
        }
    }

    fn verb(&mut self) -> Option<SimpleTerm<'a>> {
        let rest = self.rest();
        if rest.first() == Some(&b'a') && rest.get(1).is_some_and(|b| is_space(*b)) {
            self.at += 1;
            return Some(iri_term(MownStr::from(RDF_TYPE)));
        }
        match self.peek()? {
            b'<' => Some(iri_term(MownStr::from(self.iri_ref()?))),
            _ => self.prefixed_name(),
        }
    }

    fn object(&mut self) -> Option<SimpleTerm<'a>> {
        let term = match self.peek()? {
            b'<' => iri_term(MownStr::from(self.iri_ref()?)),
            b'_' => self.blank_node()?,
            b'"' => self.literal()?,
            b'0'..=b'9' | b'+' | b'-' => self.number()?,
            b't' | b'f' if self.boolean().is_some() => {
                let word = self.boolean()?;
                self.at += word.len();
                typed(MownStr::from(word), XSD_BOOLEAN)
            }
            _ => self.prefixed_name()?,
        };
        self.ends_term().then_some(term)
    }

    /// Whether what follows can follow a term: white space, a comment, a separator, or the
    /// end of the document.
    fn ends_term(&self) -> bool {
        self.peek()
            .is_none_or(|b| is_space(b) || matches!(b, b'#' | b',' | b';' | b'.'))
    }

    fn boolean(&self) -> Option<&'static str> {
        let rest = self.rest();
        ["true", "false"].into_iter().find(|word| {
            rest.starts_with(word.as_bytes())
                && rest
                    .get(word.len())
                    .is_none_or(|&b| is_space(b) || matches!(b, b'#' | b',' | b';' | b'.'))
        })
    }

    /// `<iri>`: an absolute IRI this module is sure sophia reads as written.
    fn iri_ref(&mut self) -> Option<&'a str> {
        self.expect(b'<')?;
        let start = self.at;
        let end = start + memchr::memchr(b'>', self.rest())?;
        let iri = &self.text[start..end];
        self.at = end + 1;
        if self.last_plain != Some(iri) {
            if !plain_absolute_iri(iri) {
                return None;
            }
            self.last_plain = Some(iri);
        }
        Some(iri)
    }

    /// Letters, digits, `_` and `-` from here on (a prefix or local name, a label).
    fn name_chars(&mut self) -> std::ops::Range<usize> {
        let start = self.at;
        let length = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        self.at += length;
        start..self.at
    }

    fn prefixed_name(&mut self) -> Option<SimpleTerm<'a>> {
        let prefix = self.name_chars();
        let prefix = &self.text[prefix];
        if prefix.starts_with(|c: char| !c.is_ascii_alphabetic()) {
            return None;
        }
        self.expect(b':')?;
        let local = self.name_chars();
        let local = &self.text[local];
        if local.starts_with('-') {
            return None;
        }
        let &(namespace, appendable) = self.prefixes.get(prefix)?;
        let iri = format!("{namespace}{local}");
        (appendable || plain_absolute_iri(&iri)).then(|| iri_term(MownStr::from(iri)))
    }

    fn blank_node(&mut self) -> Option<SimpleTerm<'a>> {
        if !self.rest().starts_with(b"_:") {
            return None;
        }
        self.at += 2;
        let label = self.name_chars();
        let label = &self.text[label];
        if label.is_empty() || label.starts_with('-') {
            return None;
        }
        Some(SimpleTerm::BlankNode(BnodeId::new_unchecked(
            MownStr::from(label),
        )))
    }

    /// `"lexical"`, then a language tag or a datatype, if any.
    fn literal(&mut self) -> Option<SimpleTerm<'a>> {
        self.expect(b'"')?;
        let rest = self.rest();
        let end = memchr::memchr3(b'"', b'\\', b'\n', rest)?;
        if rest[end] != b'"' || memchr::memchr(b'\r', &rest[..end]).is_some() {
            return None;
        }
        let lexical = MownStr::from(&self.text[self.at..self.at + end]);
        self.at += end + 1;
        match self.peek() {
            Some(b'@') => {
                self.at += 1;
                let tag = self.name_chars();
                let tag = &self.text[tag];
                plain_language_tag(tag).then(|| {
                    SimpleTerm::LiteralLanguage(
                        lexical,
                        LanguageTag::new_unchecked(MownStr::from(tag)),
                        None,
                    )
                })
            }
            Some(b'^') => {
                if !self.rest().starts_with(b"^^") {
                    return None;
                }
                self.at += 2;
                let datatype = match self.peek()? {
                    b'<' => MownStr::from(self.iri_ref()?),
                    _ => match self.prefixed_name()? {
                        SimpleTerm::Iri(iri) => iri.unwrap(),
                        _ => return None,
                    },
                };
                // Without a language tag (and direction) these are errors, not literals.
                if matches!(&*datatype, RDF_LANG_STRING | RDF_DIR_LANG_STRING) {
                    return None;
                }
                Some(SimpleTerm::LiteralDatatype(
                    lexical,
                    IriRef::new_unchecked(datatype),
                ))
            }
            _ => Some(typed(lexical, XSD_STRING)),
        }
    }

    /// An integer, or a decimal with digits on both sides of its point.
    fn number(&mut self) -> Option<SimpleTerm<'a>> {
        let start = self.at;
        let rest = self.rest();
        let sign = usize::from(matches!(rest.first(), Some(b'+' | b'-')));
        let digits = rest[sign..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        let mut end = sign + digits;
        let mut datatype = XSD_INTEGER;
        if rest.get(end) == Some(&b'.') && rest.get(end + 1).is_some_and(u8::is_ascii_digit) {
            let fraction = rest[end + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            end += 1 + fraction;
            datatype = XSD_DECIMAL;
        }
        if rest.get(end).is_some_and(|b| matches!(b, b'e' | b'E')) {
            return None;
        }
        self.at = start + end;
        Some(typed(MownStr::from(&self.text[start..self.at]), datatype))
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

fn iri_term(iri: MownStr<'_>) -> SimpleTerm<'_> {
    SimpleTerm::Iri(IriRef::new_unchecked(iri))
}

fn typed<'a>(lexical: MownStr<'a>, datatype: &'static str) -> SimpleTerm<'a> {
    SimpleTerm::LiteralDatatype(lexical, IriRef::new_unchecked(MownStr::from(datatype)))
}

/// `en`, `en-gb`, `en-latn`, `es-419`: lower-case tags of a primary language and at most
/// one region or script (all well-formed BCP 47, as sophia requires).
fn plain_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let language = parts.next().unwrap_or("");
    let lower = |s: &str| s.bytes().all(|b| b.is_ascii_lowercase());
    let language_ok = (2..=3).contains(&language.len()) && lower(language);
    let second_ok = match parts.next() {
        None => true,
        Some(part) => {
            (part.len() == 2 && lower(part))
                || (part.len() == 4 && lower(part))
                || (part.len() == 3 && part.bytes().all(|b| b.is_ascii_digit()))
        }
    };
    language_ok && second_ok && parts.next().is_none()
}

/// Whether letters, digits, `_` and `-` appended to the plain IRI `namespace` leave it plain:
/// true unless they would land in its host or port.
fn appendable(namespace: &str) -> bool {
    match namespace.split_once("//") {
        Some((scheme, authority_on)) if !scheme.contains(['/', '?', '#']) => {
            authority_on.contains(['/', '?', '#'])
        }
        _ => true,
    }
}

/// Characters a plain IRI may hold after its scheme (RFC 3986 unreserved, sub-delimiters,
/// `:`, `@`, `/`, `?`, `#`, `%`), the last two checked further by their position.
const IRI_CHARACTERS: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
                    | b'/'
                    | b'?'
                    | b'#'
                    | b'%'
            );
        byte += 1;
    }
    table
};

/// An absolute IRI of ASCII characters that needs no resolution: scheme, then (after `//`)
/// a host of name characters and an optional port, then path, query and fragment of the
/// characters RFC 3986 allows there, with `%` only before two hex digits, and no `.` or
/// `..` path segment.
///
/// Every IRI of a Turtle document parsed by sophia goes through this (see
/// `parse::check_iri`), so it reads each byte once, with one table lookup for the bytes that
/// need no further thought.
pub(crate) fn plain_absolute_iri(iri: &str) -> bool {
    let bytes = iri.as_bytes();
    // Scheme: a letter, then letters, digits, `+`, `-`, `.`, up to the first `:`.
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let mut at = 1;
    loop {
        match bytes.get(at) {
            Some(b':') => break,
            Some(&b) if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') => at += 1,
            _ => return false,
        }
    }
    at += 1;
    if bytes[at..].starts_with(b"//") {
        at += 2;
        // Host, up to the authority's end or the port's `:`.
        let mut port = false;
        while let Some(&b) = bytes.get(at) {
            if matches!(b, b'/' | b'?' | b'#') {
                break;
            }
            let ok = if port {
                b.is_ascii_digit()
            } else if b == b':' {
                port = true;
                true
            } else {
                b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
            };
            if !ok {
                return false;
            }
            at += 1;
        }
    }
    let rest = &bytes[at..];
    let mut in_path = true;
    let mut segment_start = 0;
    let mut fragment = false;
    for (i, &b) in rest.iter().enumerate() {
        match IRI_BYTE_CLASS[usize::from(b)] {
            PLAIN => continue,
            INVALID => return false,
            _ => {}
        }
        match b {
            b'%' => {
                let hex = rest.get(i + 1..i + 3);
                if !hex.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
            }
            b'/' if in_path => {
                if dot_segment(&rest[segment_start..i]) {
                    return false;
                }
                segment_start = i + 1;
            }
            b'?' | b'#' => {
                if in_path && dot_segment(&rest[segment_start..i]) {
                    return false;
                }
                in_path = false;
                if b == b'#' {
                    if fragment {
                        return false;
                    }
                    fragment = true;
                }
            }
            _ => {}
        }
    }
    !(in_path && dot_segment(&rest[segment_start..]))
}

/// Whether a path segment is `.` or `..`.
fn dot_segment(segment: &[u8]) -> bool {
    matches!(segment, b"." | b"..")
}

/// [`IRI_BYTE_CLASS`]: a byte a plain IRI may not hold after its authority.
const INVALID: u8 = 0;
/// [`IRI_BYTE_CLASS`]: a byte a plain IRI may hold anywhere after its authority.
const PLAIN: u8 = 1;
/// [`IRI_BYTE_CLASS`]: `%`, `/`, `?`, `#`, which [`plain_absolute_iri`] looks at further.
const SPECIAL: u8 = 2;

/// [`IRI_CHARACTERS`] in classes, for [`plain_absolute_iri`]'s one pass.
const IRI_BYTE_CLASS: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut byte = 0;
    while byte < 256 {
        if IRI_CHARACTERS[byte] {
            table[byte] = match byte as u8 {
                b'%' | b'/' | b'?' | b'#' => SPECIAL,
                _ => PLAIN,
            };
        }
        byte += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use sophia::api::term::Term;

    use super::parse;
    use crate::graph::spell_term;
    use crate::parse::{StatementSink, parse_turtle};

    /// Statements spelled as N-Triples terms, blank nodes numbered by first appearance.
    #[derive(Default)]
    struct Spelled {
        lines: Vec<String>,
        blanks: HashMap<String, usize>,
    }

    impl StatementSink for Spelled {
        fn statement<T: Term>(&mut self, s: T, p: T, o: T, _graph: Option<T>) {
            let mut line = String::new();
            for term in [&s, &p, &o] {
                match term.bnode_id() {
                    Some(label) => {
                        let next = self.blanks.len();
                        let n = *self
                            .blanks
                            .entry(label.as_str().to_string())
                            .or_insert(next);
                        line.push_str(&format!("_:b{n}"));
                    }
                    None => spell_term(term, &mut line),
                }
                line.push(' ');
            }
            self.lines.push(line);
        }
    }

    fn fast(document: &str) -> Option<Vec<String>> {
        let triples = parse(document.as_bytes())?;
        let mut spelled = Spelled::default();
        for [s, p, o] in triples {
            spelled.statement(s, p, o, None);
        }
        Some(spelled.lines)
    }

    /// Sophia's reading.
    fn sophia(document: &str) -> Result<Vec<String>, String> {
        let mut spelled = Spelled::default();
        parse_turtle(
            document.as_bytes(),
            "http://base.example/dir/doc",
            &mut spelled,
        )?;
        Ok(spelled.lines)
    }

    /// A small random number generator (xorshift), seeded per test.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
            choices[self.below(choices.len())]
        }
    }

    const PREFIXES: &[&str] = &[
        "@prefix ex: <http://example.org/ns#> .",
        "@prefix : <http://e.example/> .",
        "@prefix foaf: <http://xmlns.com/foaf/0.1/> .",
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
        "@prefix ex: <http://example.org/other/> .",
        "@prefix d2: <http://example.org/a/../b/> .",
        "@prefix rel: <rel/> .",
        "@prefix v6: <http://[::1]/x/> .",
        "@prefix u: <http://user@host.example/> .",
        "@prefix n: <http://n.example/%zz/> .",
        "@prefix ü: <http://u.example/> .",
        "PREFIX sp: <http://sp.example/>",
        "@base <http://other.example/base/> .",
        "@prefix ex:<http://example.org/tight#>.",
        "@PREFIX ex: <http://example.org/ns#> .",
        "@prefix h: <http://host.example> .",
        "@prefix pt: <http://host.example:8> .",
        "@prefix q: <http://host.example?> .",
        "@prefix m: <mailto:> .",
    ];
    /// Subjects: the first [`PLAIN_SUBJECTS`] in the part of Turtle the fast reading takes.
    const SUBJECTS: &[&str] = &[
        "<http://example.org/s>",
        "<http://example.org/s#frag>",
        "<http://example.org:8080/s?q=1&r=2>",
        "<HTTP://EXAMPLE.ORG/S>",
        "<urn:isbn:0451450523>",
        "<http://example.org/%41%42>",
        "<file:///tmp/x>",
        "ex:s",
        ":s",
        "foaf:Person",
        "ex:",
        "ex:1st",
        "ex:a_b-c",
        "_:b1",
        "_:b2",
        "<http://example.org/a/./b>",
        "<http://example.org/a/..>",
        "<s>",
        "<#me>",
        "<>",
        "<http://example.org/ü>",
        "<http://example.org/sp ace>",
        "<http://example.org/%4>",
        "<http://a.example/x#y#z>",
        "ex:-x",
        "ex:a.b",
        "undefined:x",
        "_:1x",
        "_:-x",
        "[]",
        "\"literal subject\"",
        "sp:s",
        "h:x",
        "h:-x",
        "pt:1",
        "pt:a",
        "q:x",
        "m:someone",
    ];
    const PLAIN_SUBJECTS: usize = 15;
    const PREDICATES: &[&str] = &[
        "a",
        "ex:p",
        "foaf:name",
        "<http://example.org/p>",
        ":p",
        "ex:q",
        "<p>",
        "a:b",
        "_:b1",
    ];
    const PLAIN_PREDICATES: usize = 6;
    const OBJECTS: &[&str] = &[
        "\"plain\"",
        "\"with space and ünïcode ✓\"",
        "\"tab\there\"",
        "\"\"",
        "\"x\"@en",
        "\"x\"@en-gb",
        "\"x\"@es-419",
        "\"x\"@zh-hant",
        "\"5\"^^xsd:integer",
        "\"x\"^^<http://example.org/dt>",
        "\"x\"^^ex:dt",
        "42",
        "+5",
        "-0",
        "007",
        "1.5",
        "-1.25",
        "true",
        "false",
        "<http://example.org/o>",
        "ex:o",
        "_:b1",
        "_:b3",
        "\"esc\\\"aped\"",
        "\"back\\\\slash\"",
        "\"line\nbreak\"",
        "\"\"\"long\"\"\"",
        "'single'",
        "\"x\"@EN",
        "\"x\"@en-GB",
        "\"x\"@en-a",
        "\"x\"@e",
        "\"x\"@en-gb-oed",
        "\"x\"^^<dt>",
        "\"x\"^^undefined:dt",
        "\"x\"@en^^xsd:string",
        ".5",
        "1.",
        "1e5",
        "1.5E-3",
        "trueish",
        "TRUE",
        "<o>",
        "ex:o.x",
        "[]",
        "[ ex:p 1 ]",
        "( 1 2 )",
        "<< ex:s ex:p ex:o >>",
    ];
    const PLAIN_OBJECTS: usize = 23;
    const SPACE: &[&str] = &[" ", "  ", "\n", "\t", " # comment\n", "", "\r\n"];

    fn document(random: &mut Random) -> String {
        let mut text = String::new();
        for _ in 0..random.below(4) / 3 {
            text.push_str(random.pick(PREFIXES));
            text.push_str(random.pick(&["\n", " ", "\n# c\n"]));
        }
        // Mostly the common prefixes, so that most documents are plain.
        text.push_str("@prefix ex: <http://example.org/ns#> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n");
        text.push_str(
            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n@prefix : <http://e.example/> .\n",
        );
        for _ in 0..1 + random.below(4) {
            let plain = random.below(3) > 0;
            let term = |random: &mut Random, all: &[&'static str], common: usize| -> &'static str {
                if plain {
                    all[random.below(common)]
                } else {
                    random.pick(all)
                }
            };
            text.push_str(term(random, SUBJECTS, PLAIN_SUBJECTS));
            text.push_str(random.pick(&[" ", "\n  ", " "]));
            for predicate in 0..1 + random.below(3) {
                if predicate > 0 {
                    text.push_str(random.pick(&[" ;\n  ", ";", " ; ; ", " ;"]));
                    text.push_str(random.pick(&[" ", "\n  "]));
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
            text.push_str(random.pick(&[" .\n", ".\n", " . ", " ;\n.\n", ".", " .# end\n"]));
        }
        text
    }

    /// Deletes, inserts or doubles a few characters.
    fn mutate(random: &mut Random, text: &str) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..1 + random.below(3) {
            let at = random.below(chars.len() + 1);
            match random.below(3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 => {
                    let c = random.pick(&[
                        " ", ".", ":", "<", ">", "\"", "\\", "#", ";", ",", "@", "_", "a", "\n",
                        "/", "%", "^", "-",
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

    #[test]
    fn what_the_fast_reading_accepts_sophia_reads_the_same() {
        let mut random = Random(0x7E57_F457);
        let (mut accepted, mut left, mut rejected_by_sophia) = (0, 0, 0);
        for n in 0..20_000 {
            let original = document(&mut random);
            let text = if n % 2 == 0 {
                original
            } else {
                mutate(&mut random, &original)
            };
            let by_sophia = sophia(&text);
            match fast(&text) {
                Some(lines) => {
                    accepted += 1;
                    assert_eq!(Ok(lines), by_sophia, "document {n}:\n{text}");
                }
                None => {
                    left += 1;
                    rejected_by_sophia += usize::from(by_sophia.is_err());
                }
            }
        }
        // Both ways are taken often: the comparison covers what matters.
        assert!(
            accepted > 3_000 && left > 5_000,
            "{accepted} read, {left} left to sophia"
        );
        assert!(
            rejected_by_sophia > 1_000,
            "{rejected_by_sophia} invalid documents"
        );
    }

    #[test]
    fn plain_documents_are_read_without_sophia() {
        let document = "@prefix ex: <http://example.org/ns#> .\n\
            # a comment\n\
            <http://example.org/s> a ex:Thing ; ex:n 42, -1.5, true ;\n  ex:label \"x\"@en-gb, \"y\"^^ex:dt ;\n.\n\
            _:b ex:p _:b, <urn:x:y>, \"tab\there ✓\" .";
        let lines = fast(document).expect("a plain document");
        assert_eq!(lines, sophia(document).unwrap());
        assert_eq!(lines.len(), 9);
        // A name appended to a namespace that ends in its host, read as sophia reads it.
        let host = "@prefix h: <http://host.example> . h:x <http://a.example/p> h:y, 1 .";
        assert_eq!(fast(host).expect("plain"), sophia(host).unwrap());
        assert_eq!(
            lines[1],
            "<http://example.org/s> <http://example.org/ns#n> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> "
        );
    }

    #[test]
    fn anything_unsure_is_left_to_sophia() {
        for document in [
            "<s> <p> <o> .",
            "<http://a.example/x/../y> <http://a.example/p> 1 .",
            "@base <http://a.example/> .",
            "<http://a.example/s> <http://a.example/p> \"a\\\"b\" .",
            "<http://a.example/s> <http://a.example/p> 1e5 .",
            "<http://a.example/s> <http://a.example/p> [ <http://a.example/q> 1 ] .",
            "@prefix ex: <http://a.example/> . ex:s ex:p ex:o.ex:t ex:p ex:o .",
            "<http://a.example/s><http://a.example/p> 1 .",
            "<http://a.example/s> <http://a.example/p> \"x\"@EN .",
            "\u{FEFF}<http://a.example/s> <http://a.example/p> 1 .",
            "@prefix pt: <http://host.example:8> . pt:a <http://a.example/p> 1 .",
        ] {
            assert_eq!(fast(document), None, "{document}");
        }
    }

    /// `plain_absolute_iri` as it was written before its one-pass form (a pass per rule),
    /// kept as the specification the fast form must agree with.
    fn plain_absolute_iri_by_rules(iri: &str) -> bool {
        let bytes = iri.as_bytes();
        let Some(colon) = memchr::memchr(b':', bytes) else {
            return false;
        };
        let scheme = &bytes[..colon];
        let scheme_ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
            && scheme
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
        if !scheme_ok {
            return false;
        }
        let mut rest = &bytes[colon + 1..];
        if let Some(after) = rest.strip_prefix(b"//") {
            let end = after
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'#'))
                .unwrap_or(after.len());
            let (authority, tail) = after.split_at(end);
            let (host, port) = match memchr::memchr(b':', authority) {
                Some(at) => (&authority[..at], &authority[at + 1..]),
                None => (authority, &b""[..]),
            };
            let host_ok = host
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
            if !host_ok || !port.iter().all(u8::is_ascii_digit) {
                return false;
            }
            rest = tail;
        }
        let path_end = rest
            .iter()
            .position(|b| matches!(b, b'?' | b'#'))
            .unwrap_or(rest.len());
        let dot_segment = rest[..path_end]
            .split(|&b| b == b'/')
            .any(|segment| segment == b"." || segment == b"..");
        if dot_segment || !rest.iter().all(|&b| super::IRI_CHARACTERS[usize::from(b)]) {
            return false;
        }
        let one_fragment = memchr::memchr_iter(b'#', rest).nth(1).is_none();
        let escapes_whole = memchr::memchr_iter(b'%', rest).all(|at| {
            rest.get(at + 1..at + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
        });
        one_fragment && escapes_whole
    }

    #[test]
    fn the_one_pass_iri_check_agrees_with_the_rules_and_the_iri_grammar() {
        use super::plain_absolute_iri;
        // Pieces that meet every rule's edge: schemes, hosts, ports, dot segments, escapes,
        // fragments, characters outside the table (space, `<`, `é`).
        let pieces = [
            "http",
            "h+t-1.x",
            "1h",
            ":",
            "//",
            "/",
            "host.example",
            "a_b~c",
            ":80",
            ":8a",
            "@",
            "?",
            "#",
            "%",
            "%4",
            "%4F",
            "%zz",
            ".",
            "..",
            "./",
            "/../",
            "a",
            "Z9",
            " ",
            "<",
            "é",
            "!$&'()*+,;=",
            "-",
            "",
        ];
        let mut random = crate::turtle_tests::Random::new(0x1A1B_0C0D);
        let mut plain = 0;
        for _ in 0..200_000 {
            let mut iri = String::new();
            for _ in 0..random.below(8) {
                iri.push_str(pieces[random.below(pieces.len())]);
            }
            let fast = plain_absolute_iri(&iri);
            assert_eq!(fast, plain_absolute_iri_by_rules(&iri), "{iri:?}");
            if fast {
                plain += 1;
                assert!(oxiri::Iri::parse(iri.as_str()).is_ok(), "{iri:?}");
            }
        }
        // The generator reaches both answers often.
        assert!(plain > 1_000, "{plain}");
        for (iri, expected) in [
            ("http://host.example:8080/a/b?c=d#e", true),
            ("urn:x:y", true),
            ("http://host.example/a/./b", false),
            ("http://host.example/a/..", false),
            ("http://host.example/a?/../", true),
            ("http://host.example:1st", false),
            ("http://host.example/a#b#c", false),
            ("http://host.example/%4G", false),
        ] {
            assert_eq!(plain_absolute_iri(iri), expected, "{iri}");
        }
    }
}
