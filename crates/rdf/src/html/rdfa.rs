//! RDFa 1.1 (Core, HTML+RDFa, XHTML+RDFa, Lite) following the processing sequence of RDFa
//! Core 1.1 §7.5, with the host-language rules of HTML+RDFa 1.1 (`<head>`/`<body>` as
//! subjects, `@rel` terms ignored beside `@property`, `<time>`/`@datetime` typing) and the
//! Role Attribute (`@role`); and RDFa 1.0 for pages whose `<html version>` declares it.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::dom::{Document, Element, XHTML_NS, inner_markup};
use super::{Emitter, RDF, Term, XSD, datetime_datatype, vocab};
use crate::jsonld::ContextSource;

const XHV: &str = "http://www.w3.org/1999/xhtml/vocab#";
const RDFA_USES_VOCABULARY: &str = "http://www.w3.org/ns/rdfa#usesVocabulary";

/// The prefixes of the RDFa Core 1.1 initial context.
const INITIAL_PREFIXES: &[(&str, &str)] = &[
    ("as", "https://www.w3.org/ns/activitystreams#"),
    ("cc", "http://creativecommons.org/ns#"),
    ("csvw", "http://www.w3.org/ns/csvw#"),
    ("ctag", "http://commontag.org/ns#"),
    ("dc", "http://purl.org/dc/terms/"),
    ("dc11", "http://purl.org/dc/elements/1.1/"),
    ("dcat", "http://www.w3.org/ns/dcat#"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("dqv", "http://www.w3.org/ns/dqv#"),
    ("duv", "https://www.w3.org/ns/duv#"),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("gr", "http://purl.org/goodrelations/v1#"),
    ("grddl", "http://www.w3.org/2003/g/data-view#"),
    ("ical", "http://www.w3.org/2002/12/cal/icaltzd#"),
    ("jsonld", "http://www.w3.org/ns/json-ld#"),
    ("ldp", "http://www.w3.org/ns/ldp#"),
    ("ma", "http://www.w3.org/ns/ma-ont#"),
    ("oa", "http://www.w3.org/ns/oa#"),
    ("odrl", "http://www.w3.org/ns/odrl/2/"),
    ("og", "http://ogp.me/ns#"),
    ("org", "http://www.w3.org/ns/org#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("qb", "http://purl.org/linked-data/cube#"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfa", "http://www.w3.org/ns/rdfa#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("rev", "http://purl.org/stuff/rev#"),
    ("rif", "http://www.w3.org/2007/rif#"),
    ("rr", "http://www.w3.org/ns/r2rml#"),
    ("schema", "http://schema.org/"),
    ("sd", "http://www.w3.org/ns/sparql-service-description#"),
    ("sioc", "http://rdfs.org/sioc/ns#"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("skosxl", "http://www.w3.org/2008/05/skos-xl#"),
    ("sosa", "http://www.w3.org/ns/sosa/"),
    ("ssn", "http://www.w3.org/ns/ssn/"),
    ("time", "http://www.w3.org/2006/time#"),
    ("v", "http://rdf.data-vocabulary.org/#"),
    ("vcard", "http://www.w3.org/2006/vcard/ns#"),
    ("void", "http://rdfs.org/ns/void#"),
    ("wdr", "http://www.w3.org/2007/05/powder#"),
    ("wdrs", "http://www.w3.org/2007/05/powder-s#"),
    ("xhv", "http://www.w3.org/1999/xhtml/vocab#"),
    ("xml", "http://www.w3.org/XML/1998/namespace"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
];

/// The terms of the RDFa Core 1.1 initial context.
const CORE_TERMS: &[(&str, &str)] = &[
    (
        "describedby",
        "http://www.w3.org/2007/05/powder-s#describedby",
    ),
    ("license", "http://www.w3.org/1999/xhtml/vocab#license"),
    ("role", "http://www.w3.org/1999/xhtml/vocab#role"),
];

/// The link types XHTML+RDFa 1.1 adds as terms (in the `xhv:` vocabulary).
const XHTML_TERMS: &[&str] = &[
    "alternate",
    "appendix",
    "bookmark",
    "cite",
    "chapter",
    "contents",
    "copyright",
    "first",
    "glossary",
    "help",
    "icon",
    "index",
    "last",
    "meta",
    "next",
    "p3pv1",
    "prev",
    "previous",
    "section",
    "start",
    "stylesheet",
    "subsection",
    "top",
    "up",
];

/// The link types RDFa 1.0 reads as terms (in the `xhv:` vocabulary), for `@rel`, `@rev` and
/// the other attributes that take terms, as pyRdfa has them.
const RDFA_1_0_TERMS: &[&str] = &[
    "alternate",
    "appendix",
    "cite",
    "bookmark",
    "chapter",
    "contents",
    "copyright",
    "glossary",
    "help",
    "icon",
    "index",
    "meta",
    "next",
    "p3pv1",
    "prev",
    "previous",
    "role",
    "section",
    "subsection",
    "start",
    "license",
    "up",
    "last",
    "stylesheet",
    "first",
    "top",
];

/// The attributes that make an element take part in RDFa 1.0 processing.
const RDFA_1_0_ATTRIBUTES: &[&str] = &[
    "href", "resource", "about", "property", "rel", "rev", "typeof", "src",
];

type List = Rc<RefCell<Vec<Term>>>;

/// The lists started on one subject, by predicate, in order of appearance.
#[derive(Default)]
struct ListMapping {
    entries: Vec<(String, List)>,
}

impl ListMapping {
    fn get_or_create(&mut self, predicate: &str) -> List {
        if let Some((_, list)) = self.entries.iter().find(|(key, _)| key == predicate) {
            return list.clone();
        }
        let list = List::default();
        self.entries.push((predicate.to_string(), list.clone()));
        list
    }
}

/// A predicate waiting for the subject of a descendant to become its object.
#[derive(Clone)]
enum Incomplete {
    Forward(String),
    Backward(String),
    List(List),
}

/// The evaluation context of §7.1.
#[derive(Clone)]
struct Context {
    parent_subject: Term,
    parent_object: Option<Term>,
    prefixes: Rc<HashMap<String, String>>,
    /// The prefixes the page itself declared in scope (for XML literals).
    declared: Rc<HashMap<String, String>>,
    vocabulary: Option<String>,
    language: Option<String>,
    incomplete: Rc<Vec<Incomplete>>,
    lists: Rc<RefCell<ListMapping>>,
}

struct Processor<'e> {
    base: String,
    url: String,
    /// Whether XML literals declare the XHTML namespace as their default: always in RDFa 1.1;
    /// in RDFa 1.0 (as pyRdfa writes them) only when the page declares it.
    default_namespace: bool,
    terms: HashMap<String, String>,
    emitter: &'e mut Emitter,
    problems: Vec<Problem>,
}

/// A problem for the processor graph (RDFa Core 1.1 §7.6): the `rdfa:` class naming its
/// kind (`UnresolvedTerm`, `UnresolvedCURIE`, `PrefixRedefinition`) and a description.
pub(crate) type Problem = (&'static str, String);

/// Extracts the RDFa of a page whose base is `base` into `emitter`, expanded by the
/// vocabularies `documents` has (§10), and returns the problems met.
pub(crate) fn extract(
    document: &Document,
    base: &str,
    url: &str,
    documents: &dyn ContextSource,
    emitter: &mut Emitter,
) -> Vec<Problem> {
    // A page that declares RDFa 1.0 (`<html version="XHTML+RDFa 1.0">`) is read by the rules of
    // RDFa 1.0, as pyRdfa reads it: the version changes what the same markup means.
    let version_1_0 = document
        .root
        .attr("version")
        .is_some_and(|version| version.contains("RDFa 1.0") || version.contains("RDFa1.0"));
    if version_1_0 {
        let terms = RDFA_1_0_TERMS
            .iter()
            .map(|term| (term.to_string(), format!("{XHV}{term}")))
            .collect();
        let mut processor = Processor {
            base: base.to_string(),
            url: url.to_string(),
            default_namespace: document.root.has("xmlns"),
            terms,
            emitter,
            problems: Vec::new(),
        };
        let context = Context {
            parent_subject: Term::Iri(base.to_string()),
            parent_object: None,
            prefixes: Rc::default(),
            declared: Rc::default(),
            vocabulary: None,
            language: None,
            incomplete: Rc::new(Vec::new()),
            lists: Rc::default(),
        };
        processor.element_1_0(&document.root, &context);
        return processor.problems;
    }
    let mut terms: HashMap<String, String> = CORE_TERMS
        .iter()
        .map(|(term, iri)| (term.to_string(), iri.to_string()))
        .collect();
    if document.xml {
        for term in XHTML_TERMS {
            terms.insert(term.to_string(), format!("{XHV}{term}"));
        }
    }
    let mut processor = Processor {
        base: base.to_string(),
        url: url.to_string(),
        default_namespace: true,
        terms,
        emitter,
        problems: Vec::new(),
    };
    let context = Context {
        parent_subject: Term::Iri(base.to_string()),
        parent_object: None,
        prefixes: Rc::new(
            INITIAL_PREFIXES
                .iter()
                .map(|(prefix, iri)| (prefix.to_string(), iri.to_string()))
                .collect(),
        ),
        declared: Rc::default(),
        vocabulary: None,
        language: None,
        incomplete: Rc::new(Vec::new()),
        lists: Rc::default(),
    };
    processor.element(&document.root, &context, true);
    let problems = processor.problems;
    copy_properties(emitter);
    let entailments = vocab::entailments(&emitter.statements, RDFA_USES_VOCABULARY, documents);
    vocab::expand(&mut emitter.statements, &entailments);
    problems
}

/// HTML+RDFa property copying: a resource that `rdfa:copy`s an `rdfa:Pattern` gets the
/// pattern's statements; patterns and the copy statements are then dropped.
fn copy_properties(emitter: &mut Emitter) {
    let copy = Term::Iri("http://www.w3.org/ns/rdfa#copy".to_string());
    let rdf_type = Term::Iri(RDF_TYPE.to_string());
    let pattern_class = Term::Iri("http://www.w3.org/ns/rdfa#Pattern".to_string());
    let is_marker = |p: &Term, o: &Term| *p == rdf_type && *o == pattern_class;
    let mut properties: HashMap<Term, Vec<(Term, Term)>> = emitter
        .statements
        .iter()
        .filter(|[_, p, o, _]| is_marker(p, o))
        .map(|[s, ..]| (s.clone(), Vec::new()))
        .collect();
    if properties.is_empty() {
        return;
    }
    for [s, p, o, _] in &emitter.statements {
        if let Some(list) = properties.get_mut(s)
            && !is_marker(p, o)
        {
            list.push((p.clone(), o.clone()));
        }
    }
    let copies: Vec<[Term; 3]> = emitter
        .statements
        .iter()
        .filter(|[_, p, o, _]| *p == copy && properties.contains_key(o))
        .map(|[s, _, o, g]| [s.clone(), o.clone(), g.clone()])
        .collect();
    let mut known: HashSet<[Term; 4]> = emitter.statements.iter().cloned().collect();
    // A pattern may copy another: repeat until nothing new is copied.
    loop {
        let mut changed = false;
        for [subject, pattern, graph] in &copies {
            let copied = properties.get(pattern).cloned().unwrap_or_default();
            for (p, o) in copied {
                let statement = [subject.clone(), p.clone(), o.clone(), graph.clone()];
                if known.insert(statement.clone()) {
                    emitter.statements.push(statement);
                    if let Some(list) = properties.get_mut(subject) {
                        list.push((p, o));
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let referenced: HashSet<&Term> = copies.iter().map(|[_, pattern, _]| pattern).collect();
    emitter
        .statements
        .retain(|[s, p, o, _]| !(referenced.contains(s) || *p == copy && referenced.contains(o)));
}

/// What steps 5 and 6 decide about an element's resources.
#[derive(Default)]
struct Resources {
    new_subject: Option<Term>,
    current_object: Option<Term>,
    typed: Option<Term>,
    skip: bool,
}

impl Processor<'_> {
    /// Processes one element and its descendants (§7.5 steps 1–14).
    fn element(&mut self, element: &Element, parent: &Context, root: bool) {
        let mut prefixes = parent.prefixes.clone();
        let mut declared = parent.declared.clone();
        self.update_prefixes(element, &mut prefixes, &mut declared);
        let vocabulary = self.vocabulary(element, parent);
        let language = self.language(element, parent);
        let local = Context {
            prefixes,
            declared,
            vocabulary,
            language,
            ..parent.clone()
        };
        self.role(element, &local);

        let rel_rev = self.rel_rev(element, &local);
        let has_rel_rev = rel_rev.is_some();
        let (rels, revs) = rel_rev.unwrap_or_default();
        let resources = if has_rel_rev {
            self.chaining_resources(element, &local, root)
        } else {
            self.plain_resources(element, &local, root)
        };

        if let Some(typed) = &resources.typed {
            for value in split(element.attr("typeof")) {
                if let Some(kind) = self.term_curie_or_iri(value, &local, true) {
                    self.emit(typed.clone(), RDF_TYPE, kind);
                }
            }
        }

        let lists = match &resources.new_subject {
            Some(subject) if Some(subject) != parent.parent_object.as_ref() => {
                Rc::new(RefCell::new(ListMapping::default()))
            }
            _ => parent.lists.clone(),
        };
        let owns_lists = !Rc::ptr_eq(&lists, &parent.lists);
        let subject = resources.new_subject.clone();
        let inlist = element.has("inlist");

        let mut incomplete = Vec::new();
        let mut current_object = resources.current_object.clone();
        if let (Some(object), Some(subject)) = (&current_object, &subject) {
            for predicate in &rels {
                if inlist {
                    lists
                        .borrow_mut()
                        .get_or_create(predicate)
                        .borrow_mut()
                        .push(object.clone());
                } else {
                    self.emit(subject.clone(), predicate, object.clone());
                }
            }
            for predicate in &revs {
                self.emit(object.clone(), predicate, subject.clone());
            }
        } else if has_rel_rev {
            for predicate in &rels {
                if inlist {
                    let list = lists.borrow_mut().get_or_create(predicate);
                    incomplete.push(Incomplete::List(list));
                } else {
                    incomplete.push(Incomplete::Forward(predicate.clone()));
                }
            }
            for predicate in &revs {
                incomplete.push(Incomplete::Backward(predicate.clone()));
            }
            current_object = Some(self.emitter.fresh_blank());
        }

        if let Some(subject) = &subject {
            let lists = &lists;
            self.properties(element, &local, subject, &resources, lists, has_rel_rev);
        }

        if !resources.skip
            && let Some(subject) = &subject
        {
            self.complete(parent, subject);
        }

        let child_context = if resources.skip {
            local.clone()
        } else {
            Context {
                parent_subject: subject.clone().unwrap_or(parent.parent_subject.clone()),
                parent_object: current_object
                    .clone()
                    .or(subject.clone())
                    .or(Some(parent.parent_subject.clone())),
                incomplete: Rc::new(incomplete),
                lists: lists.clone(),
                ..local.clone()
            }
        };
        for child in element.elements() {
            self.element(child, &child_context, false);
        }

        if owns_lists && let Some(subject) = &subject {
            let entries = std::mem::take(&mut lists.borrow_mut().entries);
            for (predicate, list) in entries {
                let items = list.borrow().clone();
                self.emit_list(subject.clone(), &predicate, items);
            }
        }
    }

    /// One element and its descendants by the rules of RDFa 1.0 (XHTML+RDFa 1.0 §5.5, as
    /// pyRdfa applies them): prefixes only from `xmlns:`, no `@vocab`, `@prefix` or `@inlist`;
    /// `@src`, and without `@rel`/`@rev` also `@resource` and `@href`, name the subject;
    /// `@property` always gives a literal, an XML literal when the element has child elements.
    fn element_1_0(&mut self, element: &Element, parent: &Context) {
        let mut prefixes = parent.prefixes.clone();
        let mut declared = parent.declared.clone();
        for (name, value) in &element.attrs {
            if let Some(prefix) = name.strip_prefix("xmlns:")
                && prefix != "_"
                && !value.is_empty()
            {
                let iri = super::resolve(&self.url, value).unwrap_or(value.to_string());
                Rc::make_mut(&mut prefixes).insert(prefix.to_string(), iri.clone());
                Rc::make_mut(&mut declared).insert(prefix.to_string(), iri);
            }
        }
        let language = self.language(element, parent);
        let local = Context {
            prefixes,
            declared,
            language,
            ..parent.clone()
        };
        self.role(element, &local);
        if !RDFA_1_0_ATTRIBUTES.iter().any(|name| element.has(name)) {
            for child in element.elements() {
                self.element_1_0(child, &local);
            }
            return;
        }

        let parent_object = parent
            .parent_object
            .clone()
            .unwrap_or_else(|| parent.parent_subject.clone());
        let has_rel_rev = element.has("rel") || element.has("rev");
        let named = if has_rel_rev {
            self.resource_1_0(element, &["about", "src"], &local)
        } else {
            self.resource_1_0(element, &["about", "src", "resource", "href"], &local)
        };
        let subject = match named {
            Some(subject) => subject,
            None if element.has("typeof") => self.emitter.fresh_blank(),
            None => parent_object,
        };
        let object = if has_rel_rev {
            self.resource_1_0(element, &["resource", "href"], &local)
        } else {
            Some(subject.clone())
        };

        for value in split(element.attr("typeof")) {
            if let Some(kind) = self.term_or_curie_1_0(value, &local) {
                self.emit(subject.clone(), RDF_TYPE, kind);
            }
        }
        let mut incomplete = Vec::new();
        for (attribute, forward) in [("rel", true), ("rev", false)] {
            for value in split(element.attr(attribute)) {
                let Some(Term::Iri(predicate)) = self.term_or_curie_1_0(value, &local) else {
                    continue;
                };
                match (&object, forward) {
                    (Some(object), true) => self.emit(subject.clone(), &predicate, object.clone()),
                    (Some(object), false) => self.emit(object.clone(), &predicate, subject.clone()),
                    (None, true) => incomplete.push(Incomplete::Forward(predicate)),
                    (None, false) => incomplete.push(Incomplete::Backward(predicate)),
                }
            }
        }
        if element.has("property") {
            let value = self.literal_1_0(element, &local);
            for name in split(element.attr("property")) {
                if let Some(Term::Iri(predicate)) = self.term_or_curie_1_0(name, &local) {
                    self.emit(subject.clone(), &predicate, value.clone());
                }
            }
        }

        let child_object = object.unwrap_or_else(|| self.emitter.fresh_blank());
        let child_context = Context {
            parent_subject: subject.clone(),
            parent_object: Some(child_object),
            incomplete: Rc::new(incomplete),
            ..local
        };
        for child in element.elements() {
            self.element_1_0(child, &child_context);
        }
        self.complete(parent, &subject);
    }

    /// The first of `attributes` that names a resource: `@about` and `@resource` take an IRI
    /// or a safe CURIE (`[prefix:name]`), `@href` and `@src` an IRI.
    fn resource_1_0(
        &mut self,
        element: &Element,
        attributes: &[&str],
        local: &Context,
    ) -> Option<Term> {
        attributes.iter().find_map(|&name| {
            let value = element.attr(name)?.trim();
            if matches!(name, "about" | "resource")
                && let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']'))
            {
                return self.curie_1_0(inner, local);
            }
            self.resolve(value).map(Term::Iri)
        })
    }

    /// A defined term (exactly, else in lower case), or a problem reported.
    fn defined_term(&mut self, value: &str) -> Option<Term> {
        let term = self
            .terms
            .get(value)
            .or_else(|| self.terms.get(&value.to_ascii_lowercase()))
            .map(|iri| Term::Iri(iri.clone()));
        if term.is_none() {
            self.problems
                .push(("UnresolvedTerm", format!("term {value} is not defined")));
        }
        term
    }

    /// A term of RDFa 1.0 or a CURIE; RDFa 1.0 has no absolute IRIs in these attributes.
    fn term_or_curie_1_0(&mut self, value: &str, local: &Context) -> Option<Term> {
        if !value.contains(':') {
            return self.defined_term(value);
        }
        self.curie_1_0(value, local)
    }

    /// A CURIE of RDFa 1.0: prefixes are case-sensitive; `_:` names a blank node and `:` the
    /// XHTML vocabulary.
    fn curie_1_0(&mut self, value: &str, local: &Context) -> Option<Term> {
        let (prefix, reference) = value.split_once(':')?;
        if prefix == "_" {
            return Some(self.emitter.named_blank(reference));
        }
        if prefix.is_empty() {
            return Some(Term::Iri(format!("{XHV}{reference}")));
        }
        let Some(namespace) = local.prefixes.get(prefix) else {
            self.problems.push((
                "UnresolvedCURIE",
                format!("CURIE {value}: undefined prefix"),
            ));
            return None;
        };
        Some(Term::Iri(format!("{namespace}{reference}")))
    }

    /// The value of `@property` in RDFa 1.0: `@content`, else the element's text, typed by
    /// `@datatype`; with no `@datatype`, an element with child elements gives an XML literal.
    fn literal_1_0(&mut self, element: &Element, local: &Context) -> Term {
        let datatype = match element.attr("datatype").map(str::trim) {
            None => None,
            Some("") => Some(None),
            Some(value) => Some(match self.term_or_curie_1_0(value, local) {
                Some(Term::Iri(iri)) => Some(iri),
                _ => None,
            }),
        };
        let xml_literal = format!("{RDF}XMLLiteral");
        let html_literal = format!("{RDF}HTML");
        let lexical = match (element.attr("content"), &datatype) {
            (Some(content), _) => content.to_string(),
            (None, Some(Some(datatype)))
                if *datatype == xml_literal || *datatype == html_literal =>
            {
                return self.typed_value(element, datatype.clone(), String::new(), local);
            }
            (None, Some(_)) => element.text_content(),
            (None, None) => {
                if element.elements().next().is_some() {
                    return self.typed_value(element, xml_literal, String::new(), local);
                }
                element.text_content()
            }
        };
        match datatype {
            Some(Some(datatype)) => Term::typed(lexical, datatype),
            _ => self.plain(lexical, local),
        }
    }

    /// Step 5: no `@rel`/`@rev`.
    fn plain_resources(&mut self, element: &Element, local: &Context, root: bool) -> Resources {
        let mut found = Resources::default();
        let about = self.about(element, local);
        let has_typeof = element.has("typeof");
        if element.has("property") && !element.has("content") && !element.has("datatype") {
            found.new_subject = about.clone();
            if found.new_subject.is_none() {
                found.new_subject = if root {
                    Some(self.base_term())
                } else {
                    local.parent_object.clone()
                };
            }
            if has_typeof {
                if about.is_some() {
                    found.typed = about;
                } else if root {
                    found.typed = Some(self.base_term());
                } else {
                    let object = self
                        .object_attribute(element, local)
                        .unwrap_or_else(|| self.emitter.fresh_blank());
                    found.typed = Some(object.clone());
                    found.current_object = Some(object);
                }
            }
            return found;
        }
        found.new_subject = about
            .or_else(|| self.resource(element, local))
            .or_else(|| self.href_or_src(element));
        if found.new_subject.is_none() {
            if root {
                found.new_subject = Some(self.base_term());
            } else if has_typeof {
                found.new_subject = Some(self.emitter.fresh_blank());
            } else if let Some(object) = &local.parent_object {
                found.new_subject = Some(object.clone());
                found.skip = !element.has("property");
            }
        }
        if has_typeof {
            found.typed = found.new_subject.clone();
        }
        found
    }

    /// Step 6: `@rel` or `@rev` present.
    fn chaining_resources(&mut self, element: &Element, local: &Context, root: bool) -> Resources {
        let mut found = Resources::default();
        let about = self.about(element, local);
        let has_typeof = element.has("typeof");
        if about.is_some() {
            found.new_subject = about.clone();
            if has_typeof {
                found.typed = about.clone();
            }
        } else if root {
            found.new_subject = Some(self.base_term());
        } else {
            found.new_subject = local.parent_object.clone();
        }
        found.current_object = self.object_attribute(element, local);
        if found.current_object.is_none() && has_typeof && about.is_none() {
            found.current_object = Some(self.emitter.fresh_blank());
        }
        if has_typeof && about.is_none() {
            found.typed = found.current_object.clone();
        }
        found
    }

    /// Step 11: the values of `@property`.
    fn properties(
        &mut self,
        element: &Element,
        local: &Context,
        subject: &Term,
        resources: &Resources,
        lists: &Rc<RefCell<ListMapping>>,
        has_rel_rev: bool,
    ) {
        let inlist = element.has("inlist");
        let predicates: Vec<String> = split(element.attr("property"))
            .filter_map(|value| self.predicate(value, local))
            .collect();
        if predicates.is_empty() {
            return;
        }
        let value = self.property_value(element, local, resources, has_rel_rev);
        for predicate in predicates {
            if inlist {
                lists
                    .borrow_mut()
                    .get_or_create(&predicate)
                    .borrow_mut()
                    .push(value.clone());
            } else {
                self.emit(subject.clone(), &predicate, value.clone());
            }
        }
    }

    fn property_value(
        &mut self,
        element: &Element,
        local: &Context,
        found: &Resources,
        has_rel_rev: bool,
    ) -> Term {
        let datatype = element.attr("datatype").map(str::trim);
        let lexical = || {
            element
                .attr("content")
                .or(element.attr("datetime"))
                .map_or_else(|| element.text_content(), str::to_string)
        };
        match datatype {
            Some("") => return self.plain(lexical(), local),
            Some(datatype) => {
                if let Some(Term::Iri(datatype)) = self.term_curie_or_iri(datatype, local, false) {
                    return self.typed_value(element, datatype, lexical(), local);
                }
            }
            None => {}
        }
        if let Some(content) = element.attr("content") {
            return self.plain(content.to_string(), local);
        }
        if let Some(datetime) = element.attr("datetime") {
            return self.inferred(datetime.to_string(), local);
        }
        if element.name == "time" {
            return self.inferred(element.text_content(), local);
        }
        if !has_rel_rev {
            let object = self
                .resource(element, local)
                .or_else(|| self.href_or_src(element));
            if let Some(object) = object {
                return object;
            }
        }
        if element.has("typeof")
            && !element.has("about")
            && let Some(typed) = &found.typed
        {
            return typed.clone();
        }
        self.plain(element.text_content(), local)
    }

    fn typed_value(
        &mut self,
        element: &Element,
        datatype: String,
        lexical: String,
        local: &Context,
    ) -> Term {
        let xml_literal = format!("{RDF}XMLLiteral");
        let html_literal = format!("{RDF}HTML");
        if datatype == xml_literal {
            let namespaces = self.literal_namespaces(local);
            let markup = inner_markup(element, &namespaces);
            let canonical = crate::xml_c14n::canonical_xml_literal(&markup).unwrap_or(markup);
            return Term::typed(canonical, datatype);
        }
        if datatype == html_literal {
            return Term::typed(inner_markup(element, &[]), datatype);
        }
        Term::typed(lexical, datatype)
    }

    /// The namespace declarations an XML literal carries: the default namespace and every
    /// prefix the page declared in scope, in name order.
    fn literal_namespaces(&self, local: &Context) -> Vec<(String, String)> {
        let mut namespaces = Vec::new();
        if self.default_namespace {
            namespaces.push(("xmlns".to_string(), XHTML_NS.to_string()));
        }
        let mut declared: Vec<(String, String)> = local
            .declared
            .iter()
            .map(|(prefix, iri)| (format!("xmlns:{prefix}"), iri.clone()))
            .collect();
        declared.sort();
        namespaces.extend(declared);
        namespaces
    }

    fn plain(&self, lexical: String, local: &Context) -> Term {
        Term::Literal {
            lexical,
            datatype: None,
            language: local.language.clone(),
        }
    }

    /// HTML+RDFa: a date or time value is typed by its lexical form.
    fn inferred(&self, lexical: String, local: &Context) -> Term {
        match datetime_datatype(&lexical) {
            Some(datatype) => Term::typed(lexical, format!("{XSD}{datatype}")),
            None => self.plain(lexical, local),
        }
    }

    /// Step 12: the parent's pending predicates get this subject as object.
    fn complete(&mut self, parent: &Context, subject: &Term) {
        for pending in parent.incomplete.iter() {
            match pending {
                Incomplete::Forward(predicate) => {
                    self.emit(parent.parent_subject.clone(), predicate, subject.clone());
                }
                Incomplete::Backward(predicate) => {
                    self.emit(subject.clone(), predicate, parent.parent_subject.clone());
                }
                Incomplete::List(list) => list.borrow_mut().push(subject.clone()),
            }
        }
    }

    fn emit_list(&mut self, subject: Term, predicate: &str, items: Vec<Term>) {
        let nil = Term::Iri(format!("{RDF}nil"));
        if items.is_empty() {
            self.emit(subject, predicate, nil);
            return;
        }
        let nodes: Vec<Term> = items.iter().map(|_| self.emitter.fresh_blank()).collect();
        self.emit(subject, predicate, nodes[0].clone());
        for (index, item) in items.into_iter().enumerate() {
            let node = nodes[index].clone();
            self.emit(node.clone(), &format!("{RDF}first"), item);
            let rest = nodes.get(index + 1).cloned().unwrap_or(nil.clone());
            self.emit(node, &format!("{RDF}rest"), rest);
        }
    }

    /// The Role Attribute: `@role` values typed by the XHTML vocabulary.
    fn role(&mut self, element: &Element, local: &Context) {
        let Some(roles) = element.attr("role") else {
            return;
        };
        let mut subject = None;
        for value in split(Some(roles)) {
            let role = if value.contains(':') {
                self.term_curie_or_iri(value, local, false)
            } else {
                Some(Term::Iri(format!("{XHV}{value}")))
            };
            let Some(role) = role else { continue };
            let subject = subject
                .get_or_insert_with(|| match element.attr("id") {
                    Some(id) => self.resolve(&format!("#{id}")).map(Term::Iri),
                    None => None,
                })
                .clone()
                .unwrap_or_else(|| self.emitter.fresh_blank());
            self.emit(subject, &format!("{XHV}role"), role);
        }
    }

    /// Adds the prefixes of `xmlns:` and `@prefix` (relative IRIs resolved against the page
    /// URL, not `<base>`, as the RDFa test suite expects).
    fn update_prefixes(
        &mut self,
        element: &Element,
        prefixes: &mut Rc<HashMap<String, String>>,
        declared: &mut Rc<HashMap<String, String>>,
    ) {
        let url = &self.url;
        let problems = &mut self.problems;
        let mut declare = |prefix: String, iri: &str| {
            let iri = super::resolve(url, iri).unwrap_or(iri.to_string());
            if let Some(before) = prefixes.get(&prefix)
                && *before != iri
            {
                problems.push((
                    "PrefixRedefinition",
                    format!("prefix {prefix}: redefined from <{before}> to <{iri}>"),
                ));
            }
            Rc::make_mut(prefixes).insert(prefix.clone(), iri.clone());
            Rc::make_mut(declared).insert(prefix, iri);
        };
        for (name, value) in &element.attrs {
            if let Some(prefix) = name.strip_prefix("xmlns:") {
                let prefix = prefix.to_ascii_lowercase();
                if prefix != "_" && !value.is_empty() {
                    declare(prefix, value);
                }
            }
        }
        let Some(declared) = element.attr("prefix") else {
            return;
        };
        let mut tokens = declared.split_ascii_whitespace();
        while let Some(token) = tokens.next() {
            let Some(prefix) = token.strip_suffix(':') else {
                continue;
            };
            let Some(iri) = tokens.next() else { break };
            let prefix = prefix.to_ascii_lowercase();
            if prefix.is_empty() || prefix == "_" || !is_ncname(&prefix) {
                continue;
            }
            declare(prefix, iri);
        }
    }

    fn vocabulary(&mut self, element: &Element, parent: &Context) -> Option<String> {
        let Some(value) = element.attr("vocab") else {
            return parent.vocabulary.clone();
        };
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        let vocabulary = self.resolve(value)?;
        let base = self.base_term();
        self.emit(
            base,
            RDFA_USES_VOCABULARY,
            Term::Iri(vocabulary.to_string()),
        );
        Some(vocabulary)
    }

    fn language(&self, element: &Element, parent: &Context) -> Option<String> {
        let value = element
            .attr("xml:lang")
            .or_else(|| element.attr("lang"))
            .map(str::trim);
        match value {
            None => parent.language.clone(),
            Some("") => None,
            Some(tag) => Some(tag.to_string()),
        }
    }

    /// `@rel` and `@rev` predicates, or `None` when neither is (effectively) present. Beside
    /// `@property`, HTML link types (bare terms) are not RDFa and are dropped.
    fn rel_rev(
        &mut self,
        element: &Element,
        local: &Context,
    ) -> Option<(Vec<String>, Vec<String>)> {
        let with_property = element.has("property");
        let keep = |name: &str| {
            let value = element.attr(name)?;
            let tokens: Vec<&str> = split(Some(value))
                .filter(|token| !with_property || token.contains(':'))
                .collect();
            (!tokens.is_empty() || !with_property).then_some(tokens)
        };
        let rel = keep("rel");
        let rev = keep("rev");
        if rel.is_none() && rev.is_none() {
            return None;
        }
        let mut resolve = |tokens: Option<Vec<&str>>| -> Vec<String> {
            tokens
                .unwrap_or_default()
                .into_iter()
                .filter_map(|token| self.predicate(token, local))
                .collect()
        };
        let rels = resolve(rel);
        let revs = resolve(rev);
        Some((rels, revs))
    }

    /// `@about`; a typed `<head>` or `<body>` that names no resource types its parent's
    /// object (HTML+RDFa), not a new blank node.
    fn about(&mut self, element: &Element, local: &Context) -> Option<Term> {
        if let Some(value) = element.attr("about") {
            return self.safe_curie_or_iri(value, local);
        }
        let head_or_body = matches!(element.name.as_str(), "head" | "body");
        let names_resource = ["resource", "href", "src"].iter().any(|a| element.has(a));
        if head_or_body && element.has("typeof") && !names_resource {
            return local.parent_object.clone();
        }
        None
    }

    fn resource(&mut self, element: &Element, local: &Context) -> Option<Term> {
        element
            .attr("resource")
            .and_then(|value| self.safe_curie_or_iri(value, local))
    }

    fn href_or_src(&self, element: &Element) -> Option<Term> {
        ["href", "src"]
            .iter()
            .find_map(|name| element.attr(name))
            .and_then(|value| self.resolve(value.trim()))
            .map(Term::Iri)
    }

    fn object_attribute(&mut self, element: &Element, local: &Context) -> Option<Term> {
        self.resource(element, local)
            .or_else(|| self.href_or_src(element))
    }

    fn base_term(&self) -> Term {
        Term::Iri(self.base.clone())
    }

    /// A SafeCURIEorCURIEorIRI (`@about`, `@resource`).
    fn safe_curie_or_iri(&mut self, value: &str, local: &Context) -> Option<Term> {
        let value = value.trim();
        if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            let curie = self.curie(inner, local);
            if curie.is_none() {
                self.problems.push((
                    "UnresolvedCURIE",
                    format!("safe CURIE [{inner}]: undefined prefix"),
                ));
            }
            return curie;
        }
        if let Some(term) = self.curie(value, local) {
            return Some(term);
        }
        self.resolve(value).map(Term::Iri)
    }

    /// A CURIE with a declared prefix (or `_:` for a blank node, `:` for the XHTML vocabulary).
    fn curie(&mut self, value: &str, local: &Context) -> Option<Term> {
        let (prefix, reference) = value.split_once(':')?;
        if reference.starts_with("//") {
            return None;
        }
        if prefix == "_" {
            return Some(self.emitter.named_blank(reference));
        }
        if prefix.is_empty() {
            return Some(Term::Iri(format!("{XHV}{reference}")));
        }
        let namespace = local.prefixes.get(&prefix.to_ascii_lowercase())?;
        Some(Term::Iri(format!("{namespace}{reference}")))
    }

    /// A TERMorCURIEorAbsIRI (`@typeof`, `@property`, `@rel`, `@rev`, `@datatype`).
    fn term_curie_or_iri(&mut self, value: &str, local: &Context, blank: bool) -> Option<Term> {
        if value.contains(':') {
            if let Some(term) = self.curie(value, local) {
                return (blank || matches!(term, Term::Iri(_))).then_some(term);
            }
            return oxiri::Iri::parse(value.to_string())
                .ok()
                .map(|iri| Term::Iri(iri.into_inner()));
        }
        if let Some(vocabulary) = &local.vocabulary {
            return Some(Term::Iri(format!("{vocabulary}{value}")));
        }
        self.defined_term(value)
    }

    fn predicate(&mut self, value: &str, local: &Context) -> Option<String> {
        match self.term_curie_or_iri(value, local, false)? {
            Term::Iri(iri) => Some(iri),
            _ => None,
        }
    }

    /// Resolves a reference against the base, as RFC 3986 says (no normalisation).
    fn resolve(&self, reference: &str) -> Option<String> {
        super::resolve(&self.base, reference)
    }

    fn emit(&mut self, subject: Term, predicate: &str, object: Term) {
        self.emitter
            .triple(subject, Term::Iri(predicate.to_string()), object);
    }
}

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

fn split(value: Option<&str>) -> impl Iterator<Item = &str> {
    value.unwrap_or("").split_ascii_whitespace()
}

fn is_ncname(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}
