//! A small read-only document tree that both the HTML parser (html5ever, through `scraper`)
//! and the XML parser (for XHTML) are converted into, so that each processor of embedded data
//! is written once.

/// The XHTML namespace: elements of HTML documents are in it.
pub(crate) const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Elements nested deeper than this are dropped (with their content): the processors recurse
/// over the tree, and no real page comes near this depth.
pub(crate) const MAX_DEPTH: usize = 400;

/// One element: its local name (lower-cased for HTML), attributes in document order
/// (qualified names as written, `xml:lang` and `xmlns:p` included) and children.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
    pub(crate) children: Vec<Node>,
}

/// A child of an element.
#[derive(Debug)]
pub(crate) enum Node {
    Element(Element),
    Text(String),
}

/// A parsed page: the root element, and whether it came from the XML parser.
#[derive(Debug)]
pub(crate) struct Document {
    pub(crate) root: Element,
    pub(crate) xml: bool,
    /// Set when elements were dropped for being nested deeper than [`MAX_DEPTH`].
    pub(crate) truncated: bool,
}

impl Element {
    /// The value of an attribute, by its name as written.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether the attribute is present (even empty).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.attrs.iter().any(|(key, _)| key == name)
    }

    /// The child elements, in order.
    pub(crate) fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|child| match child {
            Node::Element(element) => Some(element),
            Node::Text(_) => None,
        })
    }

    /// The concatenated text of every descendant text node.
    pub(crate) fn text_content(&self) -> String {
        let mut out = String::new();
        self.push_text(&mut out);
        out
    }

    fn push_text(&self, out: &mut String) {
        for child in &self.children {
            match child {
                Node::Text(text) => out.push_str(text),
                Node::Element(element) => element.push_text(out),
            }
        }
    }

    /// Every element of the subtree (this one first), in document order.
    pub(crate) fn descendants(&self) -> Vec<&Element> {
        let mut found = Vec::new();
        let mut stack = vec![self];
        while let Some(element) = stack.pop() {
            found.push(element);
            let children: Vec<&Element> = element.elements().collect();
            stack.extend(children.into_iter().rev());
        }
        found
    }
}

/// Parses a page: XHTML with the XML parser when `xhtml` is set and the text is well-formed
/// XML, anything else with the WHATWG HTML parser (which never fails).
pub(crate) fn parse(text: &str, xhtml: bool) -> Document {
    if xhtml && let Some(document) = parse_xml(text) {
        return document;
    }
    parse_html(text)
}

fn parse_html(text: &str) -> Document {
    let html = scraper::Html::parse_document(text);
    let mut truncated = false;
    let root = html
        .tree
        .root()
        .children()
        .find(|node| node.value().is_element())
        .map(|node| convert_html(node, 0, &mut truncated))
        .unwrap_or_default();
    Document {
        root,
        xml: false,
        truncated,
    }
}

fn convert_html(
    node: ego_tree::NodeRef<'_, scraper::Node>,
    depth: usize,
    truncated: &mut bool,
) -> Element {
    let mut element = Element::default();
    if let scraper::Node::Element(value) = node.value() {
        element.name = value.name().to_ascii_lowercase();
        element.attrs = value
            .attrs()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
    }
    if depth >= MAX_DEPTH {
        *truncated |= node.has_children();
        return element;
    }
    for child in node.children() {
        match child.value() {
            scraper::Node::Element(_) => {
                element
                    .children
                    .push(Node::Element(convert_html(child, depth + 1, truncated)));
            }
            scraper::Node::Text(text) => push_text(&mut element.children, text),
            _ => {}
        }
    }
    element
}

fn push_text(children: &mut Vec<Node>, text: &str) {
    if let Some(Node::Text(last)) = children.last_mut() {
        last.push_str(text);
    } else {
        children.push(Node::Text(text.to_string()));
    }
}

fn parse_xml(text: &str) -> Option<Document> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let document = roxmltree::Document::parse_with_options(text, options).ok()?;
    let mut truncated = false;
    let root = convert_xml(document.root_element(), 0, &mut truncated);
    Some(Document {
        root,
        xml: true,
        truncated,
    })
}

fn convert_xml(node: roxmltree::Node<'_, '_>, depth: usize, truncated: &mut bool) -> Element {
    let mut element = Element {
        name: node.tag_name().name().to_string(),
        ..Element::default()
    };
    // Namespace declarations are not attributes for the XML parser; RDFa reads them as
    // `xmlns:prefix` attributes, so declare again only what differs from the parent.
    let inherited: Vec<(Option<&str>, &str)> = node
        .parent_element()
        .map(|parent| {
            parent
                .namespaces()
                .map(|ns| (ns.name(), ns.uri()))
                .collect()
        })
        .unwrap_or_default();
    for namespace in node.namespaces() {
        if inherited.contains(&(namespace.name(), namespace.uri())) {
            continue;
        }
        let name = match namespace.name() {
            Some(prefix) => format!("xmlns:{prefix}"),
            None => "xmlns".to_string(),
        };
        element.attrs.push((name, namespace.uri().to_string()));
    }
    for attribute in node.attributes() {
        let name = match attribute.namespace() {
            Some("http://www.w3.org/XML/1998/namespace") => format!("xml:{}", attribute.name()),
            Some(uri) => match node.lookup_prefix(uri) {
                Some(prefix) if !prefix.is_empty() => format!("{prefix}:{}", attribute.name()),
                _ => attribute.name().to_string(),
            },
            None => attribute.name().to_string(),
        };
        element.attrs.push((name, attribute.value().to_string()));
    }
    if depth >= MAX_DEPTH {
        *truncated |= node.has_children();
        return element;
    }
    for child in node.children() {
        if child.is_element() {
            element
                .children
                .push(Node::Element(convert_xml(child, depth + 1, truncated)));
        } else if child.is_text()
            && let Some(text) = child.text()
        {
            push_text(&mut element.children, text);
        }
    }
    element
}

/// Serialises the children of an element as markup: the lexical form of `rdf:HTML` and
/// `rdf:XMLLiteral` literals. `namespaces` are declared on each top-level child element (XML
/// literals must be self-contained).
pub(crate) fn inner_markup(element: &Element, namespaces: &[(String, String)]) -> String {
    let mut out = String::new();
    for child in &element.children {
        match child {
            Node::Text(text) => escape_into(text, false, &mut out),
            Node::Element(child) => write_element(child, namespaces, &mut out),
        }
    }
    out
}

fn write_element(element: &Element, namespaces: &[(String, String)], out: &mut String) {
    out.push('<');
    out.push_str(&element.name);
    for (name, value) in &element.attrs {
        push_attribute(name, value, out);
    }
    for (name, value) in namespaces {
        if !element.has(name) {
            push_attribute(name, value, out);
        }
    }
    if element.children.is_empty() && is_void(&element.name) {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for child in &element.children {
        match child {
            Node::Text(text) => escape_into(text, false, out),
            Node::Element(child) => write_element(child, &[], out),
        }
    }
    out.push_str("</");
    out.push_str(&element.name);
    out.push('>');
}

fn push_attribute(name: &str, value: &str, out: &mut String) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    escape_into(value, true, out);
    out.push('"');
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "source"
            | "track"
            | "wbr"
    )
}

fn escape_into(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' if !attribute => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_xhtml_give_the_same_tree_where_they_agree() {
        let page = r##"<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ex="http://e.org/"><body><p xml:lang="de" about="#a">Hi <b>you</b></p></body></html>"##;
        for xhtml in [false, true] {
            let document = parse(page, xhtml);
            assert_eq!(document.xml, xhtml);
            let body = document.root.elements().find(|e| e.name == "body").unwrap();
            let p = body.elements().next().unwrap();
            assert_eq!(p.attr("xml:lang"), Some("de"));
            assert_eq!(p.attr("about"), Some("#a"));
            assert_eq!(p.text_content(), "Hi you");
            assert!(document.root.attr("xmlns:ex").is_some());
        }
    }

    #[test]
    fn broken_xml_falls_back_to_html_and_deep_nesting_is_cut() {
        let document = parse("<html><body><p>unclosed", true);
        assert!(!document.xml);
        let deep = "<div>".repeat(MAX_DEPTH + 50);
        let document = parse(&deep, false);
        assert!(document.truncated);
    }

    #[test]
    fn inner_markup_escapes_and_declares_namespaces() {
        let document = parse("<p>a &amp; <em class=\"x\">b</em><br></p>", false);
        let body = document.root.elements().find(|e| e.name == "body").unwrap();
        let p = body.elements().next().unwrap();
        assert_eq!(inner_markup(p, &[]), "a &amp; <em class=\"x\">b</em><br/>");
        let ns = [("xmlns".to_string(), XHTML_NS.to_string())];
        assert_eq!(
            inner_markup(p, &ns),
            format!(
                "a &amp; <em class=\"x\" xmlns=\"{XHTML_NS}\">b</em><br xmlns=\"{XHTML_NS}\"/>"
            )
        );
    }
}
