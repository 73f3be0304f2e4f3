//! A small read-only document tree that both the HTML parser (html5ever)
//! and the XML parser (for XHTML) are converted into, so that each processor of embedded data
//! is written once.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};

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
    /// HTML only: where the parser stopped reading, having met elements nested deeper than
    /// [`MAX_PARSE_DEPTH`] (the rest of the page is not in the tree).
    pub(crate) cut_at: Option<usize>,
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

/// The HTML parser stops reading a page where its elements nest deeper than this. Its tree
/// builder searches the stack of open elements for each new element, so nesting costs the
/// square of the depth (50,000 nested `div`s took 7.6 s); elements deeper than [`MAX_DEPTH`]
/// are dropped anyway, so nothing a page can mean is lost before this depth.
pub(crate) const MAX_PARSE_DEPTH: u32 = 1024;

/// The HTML parser is fed this many bytes at a time, and the depth is checked between pieces:
/// a piece can nest at most a third of this deeper than [`MAX_PARSE_DEPTH`].
const PARSE_PIECE: usize = 4096;

fn parse_html(text: &str) -> Document {
    let (sink, cut_at) = parse_html_bounded(text);
    let mut nodes = sink.nodes.into_inner();
    let mut truncated = false;
    let first = nodes.first().and_then(|document| {
        document
            .children
            .iter()
            .copied()
            .find(|&child| matches!(nodes[child].data, Data::Element))
    });
    let root = first
        .map(|first| convert_html(&mut nodes, first, 0, &mut truncated))
        .unwrap_or_default();
    Document {
        root,
        xml: false,
        truncated,
        cut_at,
    }
}

/// Parses `text` piece by piece with html5ever into an [`ArenaSink`], stopping after the
/// piece in which an element nested deeper than [`MAX_PARSE_DEPTH`]; returns the tree and,
/// when it stopped, the offset of the first byte not read.
fn parse_html_bounded(text: &str) -> (ArenaSink, Option<usize>) {
    use html5ever::tendril::TendrilSink;
    let deepest = Rc::new(Cell::new(0));
    let sink = ArenaSink::new(Rc::clone(&deepest));
    let mut parser = html5ever::parse_document(sink, html5ever::ParseOpts::default());
    let mut read = 0;
    while read < text.len() {
        let mut end = (read + PARSE_PIECE).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&text[read..end]));
        read = end;
        if deepest.get() > MAX_PARSE_DEPTH && read < text.len() {
            return (parser.finish(), Some(read));
        }
    }
    (parser.finish(), None)
}

/// What a node of the parser's tree is: only elements and text are kept in the end.
enum Data {
    Document,
    Element,
    Text(String),
    /// Comments, processing instructions, template contents.
    Other,
}

/// One node of the parser's tree, in an arena indexed by creation order.
struct ArenaNode {
    /// The element's name (empty for other nodes: the parser asks only elements for theirs).
    name: QualName,
    /// Attributes by local name, as written (`xml:lang`, `xmlns:ex` included), value.
    attrs: Vec<(String, String)>,
    parent: Option<usize>,
    children: Vec<usize>,
    data: Data,
    /// `<template>`: the node holding its contents.
    contents: Option<usize>,
    /// How deep the node was placed (by the parent it was appended to: moves by the adoption
    /// agency are not followed, which is close enough for a bound).
    depth: u32,
}

/// The tree html5ever builds, kept as plain strings so that converting it to [`Element`]s
/// moves them instead of copying (the page's tree is the peak of its memory).
struct ArenaSink {
    nodes: RefCell<Vec<ArenaNode>>,
    deepest: Rc<Cell<u32>>,
}

impl ArenaSink {
    fn new(deepest: Rc<Cell<u32>>) -> Self {
        let sink = ArenaSink {
            nodes: RefCell::new(Vec::new()),
            deepest,
        };
        sink.push(Data::Document, None, Vec::new());
        sink
    }

    fn push(&self, data: Data, name: Option<QualName>, attrs: Vec<(String, String)>) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(ArenaNode {
            name: name.unwrap_or_else(|| QualName::new(None, "".into(), "".into())),
            attrs,
            parent: None,
            children: Vec::new(),
            data,
            contents: None,
            depth: 0,
        });
        nodes.len() - 1
    }

    /// Places `child` among the children of `parent` at `index` (the end when `None`); text
    /// next to text is merged, as the DOM does.
    fn place(&self, parent: usize, index: Option<usize>, child: NodeOrText<usize>) {
        let mut nodes = self.nodes.borrow_mut();
        let index = index.unwrap_or(nodes[parent].children.len());
        match child {
            NodeOrText::AppendText(text) => {
                if let Some(&before) = index
                    .checked_sub(1)
                    .and_then(|i| nodes[parent].children.get(i))
                    && let Data::Text(existing) = &mut nodes[before].data
                {
                    existing.push_str(&text);
                    return;
                }
                drop(nodes);
                let node = self.push(Data::Text(text.to_string()), None, Vec::new());
                let mut nodes = self.nodes.borrow_mut();
                nodes[node].parent = Some(parent);
                nodes[parent].children.insert(index, node);
            }
            NodeOrText::AppendNode(node) => {
                if let Some(old) = nodes[node].parent.take()
                    && let Some(at) = nodes[old].children.iter().position(|&c| c == node)
                {
                    nodes[old].children.remove(at);
                }
                let index = index.min(nodes[parent].children.len());
                nodes[node].parent = Some(parent);
                nodes[parent].children.insert(index, node);
                let depth = nodes[parent].depth.saturating_add(1);
                nodes[node].depth = depth;
                if depth > self.deepest.get() {
                    self.deepest.set(depth);
                }
            }
        }
    }
}

impl TreeSink for ArenaSink {
    type Handle = usize;
    type Output = Self;
    type ElemName<'a>
        = std::cell::Ref<'a, QualName>
    where
        Self: 'a;

    fn finish(self) -> Self {
        self
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Self::ElemName<'a> {
        std::cell::Ref::map(self.nodes.borrow(), |nodes| &nodes[*target].name)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> usize {
        let mut attrs = attrs;
        // In name order, as the tree the processors were written against had them.
        attrs.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let attrs = attrs
            .into_iter()
            .map(|attribute| {
                (
                    attribute.name.local.to_string(),
                    attribute.value.to_string(),
                )
            })
            .collect();
        let element = self.push(Data::Element, Some(name), attrs);
        if flags.template {
            let contents = self.push(Data::Other, None, Vec::new());
            let mut nodes = self.nodes.borrow_mut();
            nodes[contents].parent = Some(element);
            nodes[element].children.push(contents);
            nodes[element].contents = Some(contents);
        }
        element
    }

    fn create_comment(&self, _text: StrTendril) -> usize {
        self.push(Data::Other, None, Vec::new())
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> usize {
        self.push(Data::Other, None, Vec::new())
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        self.place(*parent, None, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        let has_parent = self.nodes.borrow()[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        _name: StrTendril,
        _public_id: StrTendril,
        _system_id: StrTendril,
    ) {
    }

    fn get_template_contents(&self, target: &usize) -> usize {
        self.nodes.borrow()[*target].contents.unwrap_or(*target)
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &usize, new_node: NodeOrText<usize>) {
        let (parent, index) = {
            let nodes = self.nodes.borrow();
            let Some(parent) = nodes[*sibling].parent else {
                return;
            };
            let index = nodes[parent].children.iter().position(|c| c == sibling);
            (parent, index)
        };
        if let Some(index) = index {
            self.place(parent, Some(index), new_node);
        }
    }

    fn add_attrs_if_missing(&self, target: &usize, attrs: Vec<Attribute>) {
        let mut nodes = self.nodes.borrow_mut();
        let existing = &mut nodes[*target].attrs;
        for attribute in attrs {
            let name = attribute.name.local.to_string();
            if !existing.iter().any(|(key, _)| *key == name) {
                existing.push((name, attribute.value.to_string()));
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(parent) = nodes[*target].parent.take()
            && let Some(at) = nodes[parent].children.iter().position(|c| c == target)
        {
            nodes[parent].children.remove(at);
        }
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let mut nodes = self.nodes.borrow_mut();
        let children = std::mem::take(&mut nodes[*node].children);
        for &child in &children {
            nodes[child].parent = Some(*new_parent);
        }
        nodes[*new_parent].children.extend(children);
    }
}

/// Converts the arena's subtree at `id` into an [`Element`], moving its strings out.
fn convert_html(nodes: &mut [ArenaNode], id: usize, depth: usize, truncated: &mut bool) -> Element {
    let mut element = Element {
        name: nodes[id].name.local.to_string().to_ascii_lowercase(),
        attrs: std::mem::take(&mut nodes[id].attrs),
        children: Vec::new(),
    };
    let children = std::mem::take(&mut nodes[id].children);
    if depth >= MAX_DEPTH {
        *truncated |= !children.is_empty();
        return element;
    }
    for child in children {
        match &mut nodes[child].data {
            Data::Element => {
                let converted = convert_html(nodes, child, depth + 1, truncated);
                element.children.push(Node::Element(converted));
            }
            Data::Text(text) => {
                let text = std::mem::take(text);
                if let Some(Node::Text(last)) = element.children.last_mut() {
                    last.push_str(&text);
                } else {
                    element.children.push(Node::Text(text));
                }
            }
            Data::Document | Data::Other => {}
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
    // Entity bombs and hostile nesting: read as HTML instead, which expands no DTD entities.
    if let Err(error) = crate::xml_guard::check(text.as_bytes()) {
        tracing::debug!("XHTML page read as HTML: {error}");
        return None;
    }
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
        cut_at: None,
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
