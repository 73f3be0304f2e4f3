//! The syntaxes the test web serves a graph in (Turtle, N-Triples, N-Quads, expanded JSON-LD,
//! RDF/XML, and an HTML page of links), with small serializers written for it alone.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::model::{Term, Triple};

/// A representation a document can be served in, in the server's order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// `text/html`: a page listing the triples with a link to every IRI.
    Html,
    /// `text/turtle`.
    Turtle,
    /// `application/n-triples`.
    NTriples,
    /// `application/n-quads` (triples in the default graph).
    NQuads,
    /// `application/ld+json`, expanded form.
    JsonLd,
    /// `application/rdf+xml`.
    RdfXml,
}

impl Syntax {
    /// Every syntax, in the server's order of preference (HTML first, as for browsers).
    pub const ALL: [Syntax; 6] = [
        Syntax::Html,
        Syntax::Turtle,
        Syntax::NTriples,
        Syntax::NQuads,
        Syntax::JsonLd,
        Syntax::RdfXml,
    ];

    /// The bare media type, e.g. `text/turtle`.
    pub fn media_type(self) -> &'static str {
        match self {
            Syntax::Html => "text/html",
            Syntax::Turtle => "text/turtle",
            Syntax::NTriples => "application/n-triples",
            Syntax::NQuads => "application/n-quads",
            Syntax::JsonLd => "application/ld+json",
            Syntax::RdfXml => "application/rdf+xml",
        }
    }

    /// The `Content-Type` header value.
    pub fn content_type(self) -> &'static str {
        match self {
            Syntax::Html => "text/html; charset=utf-8",
            Syntax::Turtle => "text/turtle; charset=utf-8",
            other => other.media_type(),
        }
    }

    /// Serializes `graph` (the document at `doc_url`); `None` when this syntax cannot express
    /// it (RDF/XML needs every predicate to end in an XML name).
    pub fn serialize(self, graph: &[Triple], doc_url: &str) -> Option<Vec<u8>> {
        let text = match self {
            Syntax::Html => to_html(graph, doc_url),
            Syntax::Turtle => to_turtle(graph),
            Syntax::NTriples | Syntax::NQuads => to_ntriples(graph),
            Syntax::JsonLd => to_jsonld(graph),
            Syntax::RdfXml => to_rdfxml(graph)?,
        };
        Some(text.into_bytes())
    }
}

/// A blank node label every syntax accepts (an XML NCName and an N-Triples label).
fn blank_label(raw: &str) -> String {
    let mut label: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !label.starts_with(|c: char| c.is_ascii_alphabetic()) {
        label.insert(0, 'b');
    }
    label
}

fn nt_iri(iri: &str) -> String {
    let mut out = String::with_capacity(iri.len() + 2);
    out.push('<');
    for c in iri.chars() {
        if c <= ' ' || "<>\"{}|^`\\".contains(c) {
            let _ = write!(out, "\\u{:04X}", c as u32);
        } else {
            out.push(c);
        }
    }
    out.push('>');
    out
}

fn nt_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn nt_term(term: &Term) -> String {
    match term {
        Term::Iri(iri) => nt_iri(iri),
        Term::Literal(text) => nt_literal(text),
        Term::Blank(label) => format!("_:{}", blank_label(label)),
    }
}

/// N-Triples (also valid N-Quads: every triple in the default graph).
pub fn to_ntriples(graph: &[Triple]) -> String {
    let mut out = String::new();
    for t in graph {
        let _ = writeln!(
            out,
            "{} {} {} .",
            nt_term(&t.s),
            nt_term(&t.p),
            nt_term(&t.o)
        );
    }
    out
}

/// Triples grouped by subject, subjects and predicates in order of first appearance.
fn group_by_subject(graph: &[Triple]) -> Vec<(&Term, Vec<(&Term, &Term)>)> {
    let mut groups: Vec<(&Term, Vec<(&Term, &Term)>)> = Vec::new();
    let mut position: HashMap<&Term, usize> = HashMap::new();
    for t in graph {
        let at = *position.entry(&t.s).or_insert_with(|| {
            groups.push((&t.s, Vec::new()));
            groups.len() - 1
        });
        groups[at].1.push((&t.p, &t.o));
    }
    groups
}

/// Turtle: one block per subject with `;` between predicate-object pairs.
pub fn to_turtle(graph: &[Triple]) -> String {
    let mut out = String::new();
    for (subject, pairs) in group_by_subject(graph) {
        let _ = write!(out, "{}", nt_term(subject));
        for (i, (p, o)) in pairs.iter().enumerate() {
            let separator = if i == 0 { " " } else { " ;\n    " };
            let _ = write!(out, "{separator}{} {}", nt_term(p), nt_term(o));
        }
        out.push_str(" .\n\n");
    }
    out
}

fn jsonld_node_id(term: &Term) -> String {
    match term {
        Term::Blank(label) => format!("_:{}", blank_label(label)),
        Term::Iri(iri) | Term::Literal(iri) => iri.clone(),
    }
}

fn jsonld_value(term: &Term) -> serde_json::Value {
    match term {
        Term::Literal(text) => serde_json::json!({ "@value": text }),
        other => serde_json::json!({ "@id": jsonld_node_id(other) }),
    }
}

/// Expanded JSON-LD: an array of node objects.
pub fn to_jsonld(graph: &[Triple]) -> String {
    let nodes: Vec<serde_json::Value> = group_by_subject(graph)
        .into_iter()
        .map(|(subject, pairs)| {
            let mut node = serde_json::Map::new();
            node.insert("@id".into(), jsonld_node_id(subject).into());
            for (p, o) in pairs {
                let key = p.as_iri().unwrap_or_default().to_string();
                let values = node.entry(key).or_insert_with(|| serde_json::json!([]));
                if let serde_json::Value::Array(values) = values {
                    values.push(jsonld_value(o));
                }
            }
            serde_json::Value::Object(node)
        })
        .collect();
    let mut text = serde_json::Value::Array(nodes).to_string();
    text.push('\n');
    text
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Splits a predicate IRI into an XML namespace and a local name, the local name being the
/// longest NCName suffix; `None` when the IRI does not end in one.
fn split_predicate(iri: &str) -> Option<(&str, &str)> {
    let tail_start = iri
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_name_char(*c))
        .last()
        .map(|(i, _)| i)?;
    let local_start = tail_start + iri[tail_start..].find(is_name_start)?;
    (local_start > 0).then(|| iri.split_at(local_start))
}

/// Escapes text for XML and HTML content and attribute values.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn rdfxml_subject(term: &Term) -> String {
    match term {
        Term::Blank(label) => format!("rdf:nodeID=\"{}\"", blank_label(label)),
        other => format!("rdf:about=\"{}\"", xml_escape(&jsonld_node_id(other))),
    }
}

fn rdfxml_property(predicate: &Term, object: &Term) -> Option<String> {
    let (namespace, local) = split_predicate(predicate.as_iri()?)?;
    let open = format!("ns:{local} xmlns:ns=\"{}\"", xml_escape(namespace));
    Some(match object {
        Term::Iri(iri) => format!("<{open} rdf:resource=\"{}\"/>", xml_escape(iri)),
        Term::Blank(label) => format!("<{open} rdf:nodeID=\"{}\"/>", blank_label(label)),
        Term::Literal(text) => format!("<{open}>{}</ns:{local}>", xml_escape(text)),
    })
}

/// RDF/XML, one `rdf:Description` per subject; `None` if a predicate has no XML local name.
pub fn to_rdfxml(graph: &[Triple]) -> Option<String> {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n",
    );
    for (subject, pairs) in group_by_subject(graph) {
        let _ = writeln!(out, "  <rdf:Description {}>", rdfxml_subject(subject));
        for (p, o) in pairs {
            let _ = writeln!(out, "    {}", rdfxml_property(p, o)?);
        }
        out.push_str("  </rdf:Description>\n");
    }
    out.push_str("</rdf:RDF>\n");
    Some(out)
}

fn html_term(term: &Term) -> String {
    match term {
        Term::Iri(iri) => {
            let iri = xml_escape(iri);
            format!("<a href=\"{iri}\">{iri}</a>")
        }
        Term::Literal(text) => format!("&quot;{}&quot;", xml_escape(text)),
        Term::Blank(label) => format!("_:{}", blank_label(label)),
    }
}

/// An HTML page with one table row per triple and an `<a href>` for every IRI, so that an
/// HTML crawler (wget --recursive) follows the same link graph as an RDF crawler.
pub fn to_html(graph: &[Triple], doc_url: &str) -> String {
    let title = xml_escape(doc_url);
    let mut out = format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         </head>\n<body>\n<h1>{title}</h1>\n<table>\n"
    );
    for t in graph {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            html_term(&t.s),
            html_term(&t.p),
            html_term(&t.o)
        );
    }
    out.push_str("</table>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Triple> {
        vec![
            Triple::new(
                Term::iri("http://a.example/doc#me"),
                Term::iri("http://v.example/ns#name"),
                Term::literal("Al \"the\" <pal>\n"),
            ),
            Triple::new(
                Term::iri("http://a.example/doc#me"),
                Term::iri("http://v.example/ns#knows"),
                Term::iri("http://b.example/bob"),
            ),
            Triple::new(
                Term::blank("x-1"),
                Term::iri("http://v.example/terms/seeAlso"),
                Term::iri("http://a.example/doc#me"),
            ),
        ]
    }

    #[test]
    fn ntriples_escapes_literals_and_labels_blanks() {
        let text = to_ntriples(&sample());
        assert!(text.contains(r#""Al \"the\" <pal>\n" ."#), "{text}");
        assert!(
            text.contains("_:x_1 <http://v.example/terms/seeAlso>"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn turtle_groups_by_subject() {
        let text = to_turtle(&sample());
        assert!(text.starts_with("<http://a.example/doc#me> <http://v.example/ns#name>"));
        assert!(text.contains(" ;\n    <http://v.example/ns#knows> <http://b.example/bob> .\n"));
    }

    #[test]
    fn jsonld_is_expanded() {
        let value: serde_json::Value = serde_json::from_str(&to_jsonld(&sample())).unwrap();
        let nodes = value.as_array().unwrap();
        assert_eq!(nodes.len(), 2);
        assert_eq!(nodes[0]["@id"], "http://a.example/doc#me");
        assert_eq!(
            nodes[0]["http://v.example/ns#knows"][0]["@id"],
            "http://b.example/bob"
        );
        assert_eq!(nodes[1]["@id"], "_:x_1");
    }

    #[test]
    fn rdfxml_splits_predicates_and_refuses_unsplittable_ones() {
        assert_eq!(
            split_predicate("http://v.example/ns#name"),
            Some(("http://v.example/ns#", "name"))
        );
        assert_eq!(
            split_predicate("http://v.example/p/123abc"),
            Some(("http://v.example/p/123", "abc"))
        );
        assert_eq!(split_predicate("http://v.example/p/123"), None);
        let xml = to_rdfxml(&sample()).unwrap();
        assert!(xml.contains(
            "<ns:name xmlns:ns=\"http://v.example/ns#\">Al &quot;the&quot; &lt;pal&gt;\n</ns:name>"
        ));
        assert!(xml.contains("<rdf:Description rdf:nodeID=\"x_1\">"));
        let odd = vec![Triple::new(
            Term::iri("http://a/"),
            Term::iri("http://p/1"),
            Term::literal("x"),
        )];
        assert_eq!(Syntax::RdfXml.serialize(&odd, "http://a/"), None);
    }

    #[test]
    fn html_links_every_iri() {
        let html = to_html(&sample(), "http://a.example/doc");
        for iri in [
            "http://a.example/doc#me",
            "http://v.example/ns#knows",
            "http://b.example/bob",
            "http://v.example/terms/seeAlso",
        ] {
            assert!(html.contains(&format!("<a href=\"{iri}\">")), "{iri}");
        }
        assert!(html.contains("<title>http://a.example/doc</title>"));
    }
}
