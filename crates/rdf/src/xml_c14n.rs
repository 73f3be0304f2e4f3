//! Exclusive XML Canonicalization 1.0 (without comments) of `rdf:XMLLiteral` lexical forms,
//! so that the same XML written twice (attributes in another order, `<br/>` or `<br></br>`,
//! `&#34;` or `"`) is the same literal, as RDF/XML (§7.2.17) and RDFa (§7.5) require.
//!
//! The readers hand over a fragment (elements and text) whose top-level elements declare
//! every namespace in scope where the literal was written. Those prefixes form the
//! `InclusiveNamespaces PrefixList`: they are rendered on the top-level elements (the literal
//! stays self-contained, as both suites expect), while a namespace declared deeper inside
//! the literal is rendered only where it is visibly utilized, as exclusive canonicalization
//! does.

use roxmltree::{Document, Node, ParsingOptions};

/// The element the fragment is wrapped in to be parsed as one document.
const WRAPPER: &str = "ldwarc-xml-literal";

/// The `xml` prefix is bound by definition and never declared.
const XML_PREFIX: &str = "xml";

/// The exclusive canonical form of an `rdf:XMLLiteral` lexical form (elements and text whose
/// top-level elements declare the namespaces in scope), or `None` when it is not well-formed
/// XML (a literal is then kept as written). The RDF/XML and RDFa readers apply it to every
/// XML literal they produce.
pub fn canonical_xml_literal(fragment: &str) -> Option<String> {
    let wrapped = format!("<{WRAPPER}>{fragment}</{WRAPPER}>");
    let options = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    let document = Document::parse_with_options(&wrapped, options).ok()?;
    let wrapper = document.root_element();
    let inclusive = inclusive_prefixes(wrapper, &wrapped);
    let mut writer = Writer {
        source: &wrapped,
        inclusive: &inclusive,
        rendered: Vec::new(),
        marks: Vec::new(),
        out: String::with_capacity(fragment.len()),
    };
    // Walked without recursion: a literal may nest as deep as its document did.
    let mut next = wrapper.first_child();
    while let Some(node) = next {
        writer.open(node);
        next = node.first_child();
        let mut done = node;
        while next.is_none() {
            writer.close(done);
            next = done.next_sibling();
            if next.is_none() {
                match done.parent() {
                    Some(parent) if parent != wrapper => done = parent,
                    _ => break,
                }
            }
        }
    }
    Some(writer.out)
}

/// The prefixes (`""` for the default namespace) declared on the fragment's top-level
/// elements.
fn inclusive_prefixes(wrapper: Node<'_, '_>, source: &str) -> Vec<String> {
    let mut prefixes: Vec<String> = wrapper
        .children()
        .filter(Node::is_element)
        .flat_map(|element| declared_prefixes(element, source))
        .collect();
    prefixes.sort();
    prefixes.dedup();
    prefixes
}

/// The prefixes an element's start tag declares (`xmlns` gives `""`), read from its source
/// since the parsed tree keeps only the namespaces in scope.
fn declared_prefixes(element: Node<'_, '_>, source: &str) -> Vec<String> {
    let tag = &source[element.range()];
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    let mut prefixes = Vec::new();
    for (index, _) in tag.match_indices("xmlns") {
        let before = tag[..index].chars().last();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = &tag[index + 5..];
        let name_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        match rest[..name_end].strip_prefix(':') {
            Some(prefix) => prefixes.push(prefix.to_string()),
            None if name_end == 0 => prefixes.push(String::new()),
            None => {}
        }
    }
    prefixes
}

struct Writer<'s> {
    source: &'s str,
    inclusive: &'s [String],
    /// Namespace declarations rendered by the open output ancestors, innermost last.
    rendered: Vec<(String, String)>,
    /// How many of `rendered` each open element found.
    marks: Vec<usize>,
    out: String,
}

impl Writer<'_> {
    fn open(&mut self, node: Node<'_, '_>) {
        if node.is_text() {
            escape_text(node.text().unwrap_or(""), &mut self.out);
        } else if let Some(pi) = node.pi() {
            self.out.push_str("<?");
            self.out.push_str(pi.target);
            if let Some(value) = pi.value.filter(|v| !v.is_empty()) {
                self.out.push(' ');
                self.out.push_str(value);
            }
            self.out.push_str("?>");
        } else if node.is_element() {
            self.start_tag(node);
        }
    }

    fn close(&mut self, node: Node<'_, '_>) {
        if !node.is_element() {
            return;
        }
        self.out.push_str("</");
        self.out.push_str(qualified_name(node, self.source));
        self.out.push('>');
        if let Some(mark) = self.marks.pop() {
            self.rendered.truncate(mark);
        }
    }

    fn start_tag(&mut self, element: Node<'_, '_>) {
        let name = qualified_name(element, self.source);
        self.marks.push(self.rendered.len());
        let declarations = self.declarations(element, name);
        self.out.push('<');
        self.out.push_str(name);
        for (prefix, uri) in declarations {
            self.out.push_str(if prefix.is_empty() {
                " xmlns"
            } else {
                " xmlns:"
            });
            self.out.push_str(&prefix);
            self.out.push_str("=\"");
            escape_attribute(&uri, &mut self.out);
            self.out.push('"');
            self.rendered.push((prefix, uri));
        }
        let mut attributes: Vec<_> = element.attributes().collect();
        attributes.sort_by(|a, b| {
            (a.namespace().unwrap_or(""), a.name()).cmp(&(b.namespace().unwrap_or(""), b.name()))
        });
        for attribute in attributes {
            self.out.push(' ');
            self.out.push_str(&self.source[attribute.range_qname()]);
            self.out.push_str("=\"");
            escape_attribute(attribute.value(), &mut self.out);
            self.out.push('"');
        }
        self.out.push('>');
    }

    /// The namespace declarations an element renders, in canonical order (default first,
    /// then by prefix): those it visibly utilizes (its own prefix, its attributes'), and the
    /// inclusive ones in scope, each unless an output ancestor rendered the same binding.
    fn declarations(&self, element: Node<'_, '_>, name: &str) -> Vec<(String, String)> {
        let mut prefixes: Vec<&str> = vec![prefix_of(name)];
        for attribute in element.attributes() {
            let qname = &self.source[attribute.range_qname()];
            if qname.contains(':') {
                prefixes.push(prefix_of(qname));
            }
        }
        prefixes.extend(self.inclusive.iter().map(String::as_str));
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes
            .into_iter()
            .filter(|prefix| *prefix != XML_PREFIX)
            .filter_map(|prefix| {
                let uri = element
                    .lookup_namespace_uri((!prefix.is_empty()).then_some(prefix))
                    .unwrap_or("");
                let ancestor = self.rendered_uri(prefix);
                let unchanged = match ancestor {
                    Some(rendered) => rendered == uri,
                    // An empty default namespace needs no undeclaring where none was rendered;
                    // a prefix not in scope (an inclusive one undeclared here) has nothing.
                    None => uri.is_empty(),
                };
                (!unchanged).then(|| (prefix.to_string(), uri.to_string()))
            })
            .collect()
    }

    fn rendered_uri(&self, prefix: &str) -> Option<&str> {
        self.rendered
            .iter()
            .rev()
            .find(|(rendered, _)| rendered == prefix)
            .map(|(_, uri)| uri.as_str())
    }
}

/// An element's name as written (`prefix:local` or `local`), from its source.
fn qualified_name<'s>(element: Node<'_, '_>, source: &'s str) -> &'s str {
    let start = element.range().start + 1;
    let rest = &source[start..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(rest.len());
    &rest[..end]
}

fn prefix_of(qualified: &str) -> &str {
    qualified.split_once(':').map_or("", |(prefix, _)| prefix)
}

fn escape_text(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
}

fn escape_attribute(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_xml_literal as c14n;

    const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

    #[test]
    fn empty_elements_are_expanded_and_ambient_namespaces_sorted() {
        // RDF/XML xml-canon test001: `<br />` in a literal whose document declared rdf and eg.
        let fragment = format!("<br xmlns:rdf=\"{RDF}\" xmlns:eg=\"http://example.org/\"/>");
        assert_eq!(
            c14n(&fragment).unwrap(),
            format!("<br xmlns:eg=\"http://example.org/\" xmlns:rdf=\"{RDF}\"></br>")
        );
    }

    #[test]
    fn attributes_in_canonical_order_after_namespaces() {
        let fragment = "<p xmlns:b=\"http://b/\" xmlns:a=\"http://a/\" z=\"1\" b:y=\"2\" a:y=\"3\" \
                        c='4'>x</p>";
        assert_eq!(
            c14n(fragment).unwrap(),
            "<p xmlns:a=\"http://a/\" xmlns:b=\"http://b/\" c=\"4\" z=\"1\" a:y=\"3\" \
             b:y=\"2\">x</p>"
        );
    }

    #[test]
    fn characters_are_escaped_as_canonical_xml_does() {
        let fragment =
            "<a t=\"&#9;&#10;&#13;&lt;&gt;&amp;&quot;'\">&lt;&gt;&amp;&#13;\"'<![CDATA[<&>]]></a>";
        assert_eq!(
            c14n(fragment).unwrap(),
            "<a t=\"&#x9;&#xA;&#xD;&lt;>&amp;&quot;'\">&lt;&gt;&amp;&#xD;\"'&lt;&amp;&gt;</a>"
        );
    }

    #[test]
    fn inner_namespaces_only_where_visibly_utilized() {
        let fragment = "<a xmlns=\"http://x/\"><b xmlns:u=\"http://u/\" xmlns:v=\"http://v/\">\
                        <u:c/><d v:e=\"1\"/></b></a>";
        assert_eq!(
            c14n(fragment).unwrap(),
            "<a xmlns=\"http://x/\"><b><u:c xmlns:u=\"http://u/\"></u:c>\
             <d xmlns:v=\"http://v/\" v:e=\"1\"></d></b></a>"
        );
        // A default namespace undeclared inside is rendered as `xmlns=""`.
        assert_eq!(
            c14n("<a xmlns=\"http://x/\"><b xmlns=\"\"/></a>").unwrap(),
            "<a xmlns=\"http://x/\"><b xmlns=\"\"></b></a>"
        );
    }

    #[test]
    fn text_comments_and_bad_xml() {
        assert_eq!(c14n("plain text").unwrap(), "plain text");
        assert_eq!(c14n("a<!-- gone --><?pi  x?>b").unwrap(), "a<?pi x?>b");
        assert_eq!(c14n("<a>unclosed"), None);
        assert_eq!(c14n("<p:a/>"), None);
    }
}
