//! RDFa vocabulary expansion (RDFa Core 1.1 §10): when a page names a vocabulary with
//! `@vocab` and that vocabulary's document is at hand, the output graph gains what the
//! sub-property, equivalent-property, sub-class and equivalent-class statements of the
//! vocabulary entail (OWL 2 RL rules prp-spo1, prp-eqp1, prp-eqp2, cax-sco, cax-eqc1,
//! cax-eqc2). The vocabulary document comes from the same source as JSON-LD contexts: the
//! archive at replay, files named on the command line for `ldwarc parse`; it is never
//! fetched from here.

use std::collections::{HashMap, HashSet};

use super::{RDF, Term};
use crate::jsonld::{ContextSource, NoContexts};

const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const OWL: &str = "http://www.w3.org/2002/07/owl#";

/// What a vocabulary entails: for each property the properties it implies, for each class
/// the classes it implies (not yet closed transitively; [`expand`] iterates to a fixpoint).
#[derive(Default)]
pub(crate) struct Entailments {
    properties: HashMap<String, HashSet<String>>,
    classes: HashMap<String, HashSet<String>>,
}

impl Entailments {
    fn is_empty(&self) -> bool {
        self.properties.is_empty() && self.classes.is_empty()
    }

    /// Reads the four kinds of statements from a vocabulary graph.
    fn add_graph(&mut self, graph: &crate::Graph) {
        let iri = |spelled: &str| {
            spelled
                .strip_prefix('<')
                .and_then(|rest| rest.strip_suffix('>'))
                .map(str::to_string)
        };
        let sub_property = format!("<{RDFS}subPropertyOf>");
        let equivalent_property = format!("<{OWL}equivalentProperty>");
        let sub_class = format!("<{RDFS}subClassOf>");
        let equivalent_class = format!("<{OWL}equivalentClass>");
        for quad in graph.quads() {
            let predicate = graph.term(quad.predicate);
            let (Some(s), Some(o)) = (iri(graph.term(quad.subject)), iri(graph.term(quad.object)))
            else {
                continue;
            };
            let implies = |map: &mut HashMap<String, HashSet<String>>, a: &str, b: &str| {
                map.entry(a.to_string()).or_default().insert(b.to_string());
            };
            if predicate == sub_property {
                implies(&mut self.properties, &s, &o);
            } else if predicate == equivalent_property {
                implies(&mut self.properties, &s, &o);
                implies(&mut self.properties, &o, &s);
            } else if predicate == sub_class {
                implies(&mut self.classes, &s, &o);
            } else if predicate == equivalent_class {
                implies(&mut self.classes, &s, &o);
                implies(&mut self.classes, &o, &s);
            }
        }
    }
}

/// The entailments of every vocabulary the statements say the page uses (objects of
/// `rdfa:usesVocabulary`) whose document `documents` has.
pub(crate) fn entailments(
    statements: &[[Term; 4]],
    uses_vocabulary: &str,
    documents: &dyn ContextSource,
) -> Entailments {
    let mut found = Entailments::default();
    let mut seen = HashSet::new();
    for [_, predicate, object, _] in statements {
        let (Term::Iri(predicate), Term::Iri(vocabulary)) = (predicate, object) else {
            continue;
        };
        if predicate != uses_vocabulary || !seen.insert(vocabulary.clone()) {
            continue;
        }
        if let Some(graph) = load(vocabulary, documents) {
            found.add_graph(&graph);
        }
    }
    found
}

/// The graph of a vocabulary document (its IRI without the fragment, normalised as the
/// document sources expect), in whatever RDF syntax it is written.
fn load(vocabulary: &str, documents: &dyn ContextSource) -> Option<crate::Graph> {
    let mut url = url::Url::parse(vocabulary).ok()?;
    url.set_fragment(None);
    let body = documents.context(url.as_str())?;
    let syntaxes = crate::choose_syntaxes(None, &body[..body.len().min(crate::SNIFF_LEN)]);
    let syntaxes = if syntaxes.is_empty() {
        vec![crate::Syntax::Turtle]
    } else {
        syntaxes
    };
    // An unreadable vocabulary document entails nothing, as an absent one does.
    crate::parse_graph(&body, &syntaxes, url.as_str(), &NoContexts)
        .ok()
        .map(|parsed| parsed.graph)
}

/// Adds to `statements` (default graph only) what `entailments` derive, until nothing new
/// follows.
pub(crate) fn expand(statements: &mut Vec<[Term; 4]>, entailments: &Entailments) {
    if entailments.is_empty() {
        return;
    }
    let rdf_type = format!("{RDF}type");
    let mut known: HashSet<[Term; 4]> = statements.iter().cloned().collect();
    let mut pending: Vec<[Term; 4]> = statements.clone();
    while let Some([s, p, o, g]) = pending.pop() {
        let Term::Iri(predicate) = &p else { continue };
        let mut derived = Vec::new();
        for implied in entailments.properties.get(predicate).into_iter().flatten() {
            derived.push([s.clone(), Term::Iri(implied.clone()), o.clone(), g.clone()]);
        }
        if *predicate == rdf_type
            && let Term::Iri(class) = &o
        {
            for implied in entailments.classes.get(class).into_iter().flatten() {
                derived.push([s.clone(), p.clone(), Term::Iri(implied.clone()), g.clone()]);
            }
        }
        for statement in derived {
            if known.insert(statement.clone()) {
                statements.push(statement.clone());
                pending.push(statement);
            }
        }
    }
}
