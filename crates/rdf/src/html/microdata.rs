//! Microdata to RDF, as the W3C Interest Group Note "Microdata to RDF" (second edition)
//! defines it: items become subjects (`itemid` or a blank node), `itemtype`s become
//! `rdf:type`s and set the vocabulary, property names become IRIs in that vocabulary (or
//! fragments of the page when the item has no type), values follow the element rules of
//! HTML, and a vocabulary registry adds `subPropertyOf`/`equivalentProperty` expansions.
//! The experimental `itemprop-reverse` is supported.

use std::collections::{HashMap, HashSet};

use super::dom::Element;
use super::{Emitter, RDF, Term, XSD, datetime_datatype};

/// The registry shipped with the crate: the W3C Microdata vocabulary registry
/// (`http://www.w3.org/ns/md`): schema.org's `additionalType` is a sub-property of
/// `rdf:type`.
const DEFAULT_REGISTRY: &str = r#"{
  "http://schema.org/": {"properties": {"additionalType": {"subPropertyOf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}}},
  "https://schema.org/": {"properties": {"additionalType": {"subPropertyOf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}}},
  "http://microformats.org/profile/hcard": {}
}"#;

/// A Microdata registry that cannot be read. The caller names the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Not JSON (serde's message, with its line and column).
    #[error("invalid registry: {0}")]
    Json(String),
    /// JSON, but not an object of vocabularies.
    #[error("invalid registry: not a JSON object")]
    NotAnObject,
}

/// Vocabulary registry entries: per vocabulary IRI (a prefix of item types), the properties
/// that imply others.
#[derive(Clone, Debug)]
pub struct MicrodataRegistry {
    vocabularies: Vec<(String, HashMap<String, Vec<String>>)>,
}

impl Default for MicrodataRegistry {
    fn default() -> Self {
        Self::from_json(DEFAULT_REGISTRY).unwrap_or(MicrodataRegistry {
            vocabularies: Vec::new(),
        })
    }
}

impl MicrodataRegistry {
    /// The registry shipped with ldwarc, parsed once.
    pub fn shipped() -> &'static MicrodataRegistry {
        static SHIPPED: std::sync::LazyLock<MicrodataRegistry> =
            std::sync::LazyLock::new(MicrodataRegistry::default);
        &SHIPPED
    }

    /// Reads a registry in the JSON form of the note (`{vocabulary: {"properties": {name:
    /// {"subPropertyOf": iri, "equivalentProperty": iri}}}}`); members starting with `@` are
    /// comments.
    pub fn from_json(text: &str) -> Result<Self, RegistryError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|err| RegistryError::Json(err.to_string()))?;
        let object = value.as_object().ok_or(RegistryError::NotAnObject)?;
        let mut vocabularies = Vec::new();
        for (vocabulary, entry) in object.iter().filter(|(key, _)| !key.starts_with('@')) {
            let mut implied: HashMap<String, Vec<String>> = HashMap::new();
            let properties = entry.get("properties").and_then(|p| p.as_object());
            for (name, definition) in properties.into_iter().flatten() {
                for key in ["subPropertyOf", "equivalentProperty"] {
                    let targets = match definition.get(key) {
                        Some(serde_json::Value::String(iri)) => vec![iri.clone()],
                        Some(serde_json::Value::Array(items)) => items
                            .iter()
                            .filter_map(|item| item.as_str().map(str::to_string))
                            .collect(),
                        _ => Vec::new(),
                    };
                    implied.entry(name.clone()).or_default().extend(targets);
                }
            }
            vocabularies.push((vocabulary.clone(), implied));
        }
        Ok(MicrodataRegistry { vocabularies })
    }

    /// This registry with the entries of `other` added (`other` wins on a shared vocabulary).
    pub fn merged(mut self, other: MicrodataRegistry) -> Self {
        for (vocabulary, implied) in other.vocabularies {
            self.vocabularies.retain(|(known, _)| *known != vocabulary);
            self.vocabularies.push((vocabulary, implied));
        }
        self
    }

    /// The registered vocabulary a type belongs to (the longest matching prefix).
    fn vocabulary_of(&self, item_type: &str) -> Option<&str> {
        self.vocabularies
            .iter()
            .map(|(vocabulary, _)| vocabulary.as_str())
            .filter(|vocabulary| item_type.starts_with(vocabulary))
            .max_by_key(|vocabulary| vocabulary.len())
    }

    fn implied(&self, vocabulary: &str, name: &str) -> &[String] {
        self.vocabularies
            .iter()
            .find(|(known, _)| known == vocabulary)
            .and_then(|(_, implied)| implied.get(name))
            .map_or(&[], Vec::as_slice)
    }
}

/// Where an element sits: its rank in document order and its language.
struct Place {
    order: usize,
    language: Option<String>,
}

struct Extractor<'d, 'e> {
    base: String,
    registry: &'d MicrodataRegistry,
    by_id: HashMap<&'d str, &'d Element>,
    places: HashMap<*const Element, Place>,
    subjects: HashMap<*const Element, Term>,
    in_progress: HashSet<*const Element>,
    emitter: &'e mut Emitter,
    errors: Vec<String>,
    /// `itemref` cycles, which make the page invalid Microdata.
    cycles: Vec<String>,
}

/// The vocabulary in force while generating an item's triples.
#[derive(Clone, Default)]
struct Scope {
    vocabulary: Option<String>,
}

/// Extracts every Microdata item under `root` into `emitter`; returns the problems found
/// (items nested too deep) and the `itemref` cycles, which do not stop the extraction but
/// make the page invalid.
pub(crate) fn extract(
    root: &Element,
    base: &str,
    registry: &MicrodataRegistry,
    emitter: &mut Emitter,
) -> (Vec<String>, Vec<String>) {
    let mut extractor = Extractor {
        base: base.to_string(),
        registry,
        by_id: HashMap::new(),
        places: HashMap::new(),
        subjects: HashMap::new(),
        in_progress: HashSet::new(),
        emitter,
        errors: Vec::new(),
        cycles: Vec::new(),
    };
    let mut top_level = Vec::new();
    extractor.index(root, None, &mut top_level);
    for item in top_level {
        extractor.item(item, &Scope::default());
    }
    (extractor.errors, extractor.cycles)
}

impl<'d> Extractor<'d, '_> {
    /// Records ids, document order and languages, and collects the top-level items.
    fn index(
        &mut self,
        root: &'d Element,
        language: Option<String>,
        top_level: &mut Vec<&'d Element>,
    ) {
        let mut stack = vec![(root, language)];
        while let Some((element, inherited)) = stack.pop() {
            let language = match element.attr("lang").or(element.attr("xml:lang")) {
                Some(tag) if tag.trim().is_empty() => None,
                Some(tag) => Some(tag.trim().to_string()),
                None => inherited,
            };
            if let Some(id) = element.attr("id") {
                self.by_id.entry(id).or_insert(element);
            }
            let order = self.places.len();
            self.places.insert(
                element as *const Element,
                Place {
                    order,
                    language: language.clone(),
                },
            );
            if element.has("itemscope")
                && !element.has("itemprop")
                && !element.has("itemprop-reverse")
            {
                top_level.push(element);
            }
            let children: Vec<&Element> = element.elements().collect();
            for child in children.into_iter().rev() {
                stack.push((child, language.clone()));
            }
        }
    }

    /// Generates an item's triples and returns its subject.
    fn item(&mut self, item: &'d Element, scope: &Scope) -> Term {
        let key = item as *const Element;
        let subject = match self.subjects.get(&key) {
            Some(subject) => subject.clone(),
            None => {
                let subject = item
                    .attr("itemid")
                    .and_then(|id| super::resolve(&self.base, id.trim()))
                    .map_or_else(|| self.emitter.fresh_blank(), Term::Iri);
                self.subjects.insert(key, subject.clone());
                subject
            }
        };
        if self.in_progress.len() >= super::dom::MAX_DEPTH {
            self.errors
                .push("microdata: items nested (through itemref) too deep".to_string());
            return subject;
        }
        if !self.in_progress.insert(key) {
            self.cycles
                .push("microdata: an item is its own property through itemref".to_string());
            return subject;
        }
        let types: Vec<String> = item
            .attr("itemtype")
            .unwrap_or("")
            .split_ascii_whitespace()
            .filter(|value| oxiri::Iri::parse(*value).is_ok())
            .map(str::to_string)
            .collect();
        for item_type in &types {
            self.emitter.triple(
                subject.clone(),
                Term::Iri(format!("{RDF}type")),
                Term::Iri(item_type.clone()),
            );
        }
        let scope = match types.first() {
            Some(first) => Scope {
                vocabulary: Some(self.vocabulary_of(first)),
            },
            None => scope.clone(),
        };
        for property in self.properties(item) {
            self.property(&subject, property, &scope);
        }
        self.in_progress.remove(&key);
        subject
    }

    fn vocabulary_of(&self, item_type: &str) -> String {
        if let Some(vocabulary) = self.registry.vocabulary_of(item_type) {
            return vocabulary.to_string();
        }
        match item_type.rfind(['#', '/']) {
            Some(index) => item_type[..=index].to_string(),
            None => item_type.to_string(),
        }
    }

    /// The HTML "properties of an item" crawl: children and `itemref`ed elements, not
    /// descending into nested items, in document order.
    fn properties(&mut self, item: &'d Element) -> Vec<&'d Element> {
        let mut pending: Vec<&'d Element> = item.elements().collect();
        for id in item.attr("itemref").unwrap_or("").split_ascii_whitespace() {
            if let Some(element) = self.by_id.get(id) {
                pending.push(element);
            }
        }
        let mut seen: HashSet<*const Element> = HashSet::from([item as *const Element]);
        let mut results = Vec::new();
        while let Some(current) = pending.pop() {
            if !seen.insert(current as *const Element) {
                continue;
            }
            if !current.has("itemscope") {
                pending.extend(current.elements());
            }
            if current.has("itemprop") || current.has("itemprop-reverse") {
                results.push(current);
            }
        }
        results.sort_by_key(|element| self.order(element));
        results
    }

    fn order(&self, element: &Element) -> usize {
        self.places
            .get(&(element as *const Element))
            .map_or(usize::MAX, |place| place.order)
    }

    fn property(&mut self, subject: &Term, element: &'d Element, scope: &Scope) {
        let value = self.value(element, scope);
        let mut names: Vec<&str> = Vec::new();
        for name in element
            .attr("itemprop")
            .unwrap_or("")
            .split_ascii_whitespace()
        {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for name in names {
            let predicate = self.predicate(name, scope);
            self.emitter
                .triple(subject.clone(), Term::Iri(predicate), value.clone());
            for implied in self.implied(name, scope) {
                self.emitter
                    .triple(subject.clone(), Term::Iri(implied), value.clone());
            }
        }
        if matches!(value, Term::Literal { .. }) {
            return;
        }
        let reverse = element.attr("itemprop-reverse").unwrap_or("");
        for name in reverse.split_ascii_whitespace() {
            let predicate = self.predicate(name, scope);
            self.emitter
                .triple(value.clone(), Term::Iri(predicate), subject.clone());
        }
    }

    /// A property name as an IRI: absolute names as they are, others in the vocabulary, or
    /// as a fragment of the page when no type set a vocabulary.
    fn predicate(&self, name: &str, scope: &Scope) -> String {
        if name.contains(':') && oxiri::Iri::parse(name).is_ok() {
            return name.to_string();
        }
        match &scope.vocabulary {
            Some(vocabulary) => format!("{vocabulary}{name}"),
            None => super::resolve(&self.base, &format!("#{name}")).unwrap_or(name.to_string()),
        }
    }

    fn implied(&self, name: &str, scope: &Scope) -> Vec<String> {
        match &scope.vocabulary {
            Some(vocabulary) => self.registry.implied(vocabulary, name).to_vec(),
            None => Vec::new(),
        }
    }

    /// An element's property value, by the rules of the W3C Microdata note (§6 "Values"): an
    /// item, else the `content` attribute on any element (schema.org pages write
    /// `<span itemprop="price" content="13.00">$13.00</span>`), else the rule for the element.
    fn value(&mut self, element: &'d Element, scope: &Scope) -> Term {
        if element.has("itemscope") {
            return self.item(element, scope);
        }
        if let Some(content) = element.attr("content") {
            return self.literal(element, content.to_string());
        }
        let url = |attribute: &str| {
            let value = element.attr(attribute).unwrap_or("").trim();
            super::resolve(&self.base, value).map(Term::Iri)
        };
        let resource = match element.name.as_str() {
            "audio" | "embed" | "iframe" | "img" | "source" | "track" | "video" => url("src"),
            "a" | "area" | "link" => url("href"),
            "object" => url("data"),
            _ => None,
        };
        if let Some(resource) = resource {
            return resource;
        }
        match element.name.as_str() {
            // A `meta` without `content` (one with it was handled above).
            "meta" => self.literal(element, String::new()),
            "data" | "meter" => number(element.attr("value").unwrap_or("")).unwrap_or_else(|| {
                self.literal(element, element.attr("value").unwrap_or("").into())
            }),
            "time" => {
                let text = element
                    .attr("datetime")
                    .map_or_else(|| element.text_content(), str::to_string);
                match datetime_datatype(&text) {
                    Some(datatype) => Term::typed(text, format!("{XSD}{datatype}")),
                    None => self.literal(element, text),
                }
            }
            _ => self.literal(element, element.text_content()),
        }
    }

    fn literal(&self, element: &Element, lexical: String) -> Term {
        let language = self
            .places
            .get(&(element as *const Element))
            .and_then(|place| place.language.clone());
        Term::Literal {
            lexical,
            datatype: None,
            language,
        }
    }
}

/// `data`/`meter` values that are numbers are typed as `xsd:integer` or `xsd:double`.
fn number(value: &str) -> Option<Term> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if value.parse::<i128>().is_ok() {
        return Some(Term::typed(value.to_string(), format!("{XSD}integer")));
    }
    let numeric = value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    (numeric && value.parse::<f64>().is_ok())
        .then(|| Term::typed(value.to_string(), format!("{XSD}double")))
}
