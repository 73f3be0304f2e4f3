//! Link extraction: parse a fetched RDF document (trying candidate syntaxes in order) as a
//! stream and collect the http(s) IRIs the crawler may follow.

use std::collections::HashSet;

use sophia::api::term::{Term, TermKind};
use sophia::iri::Iri;
use sophia::iri::resolve::BaseIriRef;

use super::html::EmbeddedReport;
use super::jsonld::{ContextSource, NoContexts};
use super::parse::{StatementSink, parse_statements};
use super::syntax::Syntax;

/// The default cap on links kept per document.
pub const DEFAULT_MAX_LINKS: usize = 100_000;

/// How links are chosen from a document.
#[derive(Clone, Copy)]
pub struct LinkOptions<'a> {
    /// When set, only the objects of triples whose predicate IRI is exactly one of these are
    /// links (subjects, predicates and graph names are then ignored: they name what the
    /// document describes, not where to go next). When `None`, every http(s) IRI in any
    /// position is a link.
    pub follow_predicates: Option<&'a [String]>,
    /// At most this many links are kept (the first ones seen); parsing still runs to the end
    /// to count triples and find errors.
    pub max_links: usize,
    /// Where JSON-LD remote contexts come from (the bundled contexts are the fallback).
    pub contexts: &'a dyn ContextSource,
}

impl Default for LinkOptions<'static> {
    fn default() -> Self {
        LinkOptions {
            follow_predicates: None,
            max_links: DEFAULT_MAX_LINKS,
            contexts: &NoContexts,
        }
    }
}

impl std::fmt::Debug for LinkOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkOptions")
            .field("follow_predicates", &self.follow_predicates)
            .field("max_links", &self.max_links)
            .finish_non_exhaustive()
    }
}

/// What a document yielded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted {
    /// The syntax whose parse produced this result.
    pub syntax: Syntax,
    /// Triples (or quads) parsed, including those before an error.
    pub triples: u64,
    /// http(s) links: resolved against the base, normalised as URLs (lower-case scheme and
    /// host, default port dropped, non-ASCII percent-encoded), fragment removed, without
    /// duplicates, in first-seen order, at most `max_links` of them.
    pub links: Vec<String>,
    /// JSON-LD only: every remote `@context` referenced, absolute.
    pub remote_contexts: Vec<String>,
    /// JSON-LD only: the remote contexts no [`ContextSource`] had; each was treated as empty,
    /// so terms defined there were lost. Capture them and parse again for the full graph.
    pub missing_contexts: Vec<String>,
    /// Set when no syntax parsed the whole document: the error of the parse kept here, which
    /// is the one that yielded the most triples before failing.
    pub error: Option<String>,
    /// Pages only: which embedded syntax found what. The page's `<link rel="alternate">`
    /// RDF versions are among [`Extracted::links`] too.
    pub embedded: Option<Box<EmbeddedReport>>,
}

/// Why no links could be extracted at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RdfError {
    /// Every candidate syntax failed before yielding a single triple.
    #[error("{base}: not parseable as RDF: {detail}")]
    Unparseable {
        /// The document's URL.
        base: String,
        /// Each syntax tried and its error, on one line.
        detail: String,
    },
    /// The base is not an absolute IRI, so relative references could not be resolved.
    #[error("{base}: not an absolute IRI to resolve the document against")]
    InvalidBase {
        /// The rejected base.
        base: String,
    },
    /// The caller offered no syntax to try.
    #[error("{base}: no RDF syntax to try (content type and content are not RDF)")]
    NoSyntax {
        /// The document's URL.
        base: String,
    },
}

/// Parses `body` with each of `syntaxes` in turn (as chosen by
/// [`choose_syntaxes`](super::choose_syntaxes)) and returns the links of the first parse that
/// succeeds.
///
/// If every parse fails, the one that yielded the most triples before failing is returned
/// with [`Extracted::error`] set (the links of a broken document are still worth crawling);
/// if none yielded a triple, the result is an [`RdfError`] naming `base` and each parser's
/// error (with line and column where the parser gives them).
///
/// Text syntaxes are parsed as a stream: memory grows with the number of distinct IRIs, not
/// with the document. JSON-LD is the exception: the processor expands the whole document
/// before the first quad (the caller has capped the input size). Invalid UTF-8 is a parse
/// error, never a panic. Parsing never touches the network.
pub fn extract_links(
    body: &[u8],
    syntaxes: &[Syntax],
    base: &str,
    options: &LinkOptions,
) -> Result<Extracted, RdfError> {
    if Iri::new(base).is_err() || BaseIriRef::new(base).is_err() {
        return Err(RdfError::InvalidBase {
            base: base.to_string(),
        });
    }
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut best: Option<Extracted> = None;
    let mut failures = Vec::new();
    for &syntax in syntaxes {
        let attempt = parse_one(body, syntax, base, options);
        let Some(error) = &attempt.error else {
            return Ok(attempt);
        };
        failures.push(format!("as {} ({error})", syntax.media_type()));
        if best
            .as_ref()
            .is_none_or(|kept| attempt.triples > kept.triples)
        {
            best = Some(attempt);
        }
    }
    match best {
        Some(partial) if partial.triples > 0 => Ok(partial),
        Some(_) => Err(RdfError::Unparseable {
            base: base.to_string(),
            detail: failures.join("; "),
        }),
        None => Err(RdfError::NoSyntax {
            base: base.to_string(),
        }),
    }
}

/// One parse attempt, streamed into a [`LinkCollector`].
fn parse_one(body: &[u8], syntax: Syntax, base: &str, options: &LinkOptions) -> Extracted {
    let mut collector = LinkCollector::new(options);
    let outcome = parse_statements(
        body,
        syntax,
        base,
        options.contexts,
        &crate::html::PageOptions::default(),
        &mut collector,
    );
    if let Some(report) = &outcome.embedded {
        collector.add_alternates(&report.alternates);
    }
    Extracted {
        syntax,
        triples: collector.triples,
        links: collector.links,
        remote_contexts: outcome.remote_contexts,
        missing_contexts: outcome.missing_contexts,
        error: outcome.result.err(),
        embedded: outcome.embedded.map(Box::new),
    }
}

impl StatementSink for LinkCollector<'_> {
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        LinkCollector::statement(self, subject, predicate, object, graph);
    }
}

/// Collects links from a stream of statements.
struct LinkCollector<'a> {
    follow: Option<HashSet<&'a str>>,
    max_links: usize,
    /// Raw IRIs already looked at, so each distinct IRI is parsed as a URL once.
    considered: HashSet<Box<str>>,
    links: Vec<String>,
    kept: HashSet<String>,
    triples: u64,
}

impl<'a> LinkCollector<'a> {
    fn new(options: &LinkOptions<'a>) -> Self {
        LinkCollector {
            follow: options
                .follow_predicates
                .map(|predicates| predicates.iter().map(String::as_str).collect()),
            max_links: options.max_links,
            considered: HashSet::new(),
            links: Vec::new(),
            kept: HashSet::new(),
            triples: 0,
        }
    }

    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        self.triples += 1;
        if self.links.len() >= self.max_links {
            return;
        }
        match &self.follow {
            Some(follow) => {
                let followed = predicate
                    .iri()
                    .is_some_and(|iri| follow.contains(iri.as_str()));
                if followed {
                    self.term(&object);
                }
            }
            None => {
                self.term(&subject);
                self.term(&predicate);
                self.term(&object);
                if let Some(graph) = graph {
                    self.term(&graph);
                }
            }
        }
    }

    /// A page's RDF versions are links whatever the predicate filter says: they are the
    /// page's own data in another form.
    fn add_alternates(&mut self, alternates: &[String]) {
        for alternate in alternates {
            self.iri(alternate);
        }
    }

    /// IRIs are candidates; quoted triples (RDF 1.2) contribute their IRIs; blank nodes and
    /// literals are ignored.
    fn term<T: Term>(&mut self, term: &T) {
        if term.kind() == TermKind::Triple {
            for atom in term.atoms() {
                if let Some(iri) = atom.iri() {
                    self.iri(iri.as_str());
                }
            }
        } else if let Some(iri) = term.iri() {
            self.iri(iri.as_str());
        }
    }

    fn iri(&mut self, raw: &str) {
        let http_like = raw
            .get(..4)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http"));
        if !http_like || self.links.len() >= self.max_links || self.considered.contains(raw) {
            return;
        }
        self.considered.insert(raw.into());
        let Ok(mut url) = url::Url::parse(raw) else {
            return;
        };
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return;
        }
        url.set_fragment(None);
        let link = String::from(url);
        if self.kept.insert(link.clone()) {
            self.links.push(link);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choose_syntaxes;

    const BASE: &str = "http://example.org/data/doc";

    fn extract(body: &str, syntaxes: &[Syntax]) -> Extracted {
        extract_links(body.as_bytes(), syntaxes, BASE, &LinkOptions::default()).unwrap()
    }

    #[test]
    fn turtle_links_resolved_deduplicated_and_fragment_free() {
        let body = r#"@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<#me> foaf:knows <../people/bob#i>, <HTTP://Other.Example:80/x>, _:b ;
      foaf:name "Me" ; foaf:mbox <mailto:me@example.org> .
_:b foaf:knows <#me> ."#;
        let extracted = extract(body, &[Syntax::Turtle]);
        assert_eq!(extracted.error, None);
        assert_eq!(extracted.triples, 6);
        assert_eq!(
            extracted.links,
            vec![
                "http://example.org/data/doc",
                "http://xmlns.com/foaf/0.1/knows",
                "http://example.org/people/bob",
                "http://other.example/x",
                "http://xmlns.com/foaf/0.1/name",
                "http://xmlns.com/foaf/0.1/mbox",
            ]
        );
    }

    #[test]
    fn ntriples_and_nquads_graph_names() {
        let nt = "<http://a.example/s> <http://a.example/p> \"lit\" .\n";
        assert_eq!(
            extract(nt, &[Syntax::NTriples]).links,
            vec!["http://a.example/s", "http://a.example/p"]
        );
        let nq = "<http://a.example/s> <http://a.example/p> _:o <https://g.example/graph> .\n";
        let extracted = extract(nq, &[Syntax::NQuads]);
        assert_eq!(
            extracted.links,
            vec![
                "http://a.example/s",
                "http://a.example/p",
                "https://g.example/graph"
            ]
        );
    }

    #[test]
    fn trig_graph_names_are_links() {
        let body = "@prefix ex: <http://ex.example/> .\n\
                    ex:g1 { ex:a ex:b ex:c . }\n\
                    GRAPH <graphs/2> { ex:a ex:b \"x\" }\n";
        let extracted = extract(body, &[Syntax::TriG]);
        assert_eq!(extracted.error, None);
        assert_eq!(extracted.triples, 2);
        assert_eq!(
            extracted.links,
            vec![
                "http://ex.example/a",
                "http://ex.example/b",
                "http://ex.example/c",
                "http://ex.example/g1",
                "http://example.org/data/graphs/2",
            ]
        );
    }

    #[test]
    fn rdf_xml_about_and_resource() {
        let body = r##"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:foaf="http://xmlns.com/foaf/0.1/">
  <foaf:Person rdf:about="#alice">
    <foaf:knows rdf:resource="/people/bob"/>
    <foaf:name>Alice</foaf:name>
  </foaf:Person>
</rdf:RDF>"##;
        let extracted = extract(body, &[Syntax::RdfXml]);
        assert_eq!(extracted.error, None);
        assert_eq!(extracted.triples, 3);
        assert_eq!(
            extracted.links,
            vec![
                "http://example.org/data/doc",
                "http://www.w3.org/1999/02/22-rdf-syntax-ns",
                "http://xmlns.com/foaf/0.1/Person",
                "http://xmlns.com/foaf/0.1/knows",
                "http://example.org/people/bob",
                "http://xmlns.com/foaf/0.1/name",
            ]
        );
    }

    #[test]
    fn json_ld_ids_resolved_against_base() {
        let body = r##"{"@context": {"foaf": "http://xmlns.com/foaf/0.1/",
                        "knows": {"@id": "foaf:knows", "@type": "@id"}},
                       "@id": "#me", "knows": ["../bob", {"@id": "https://c.example/carol"}]}"##;
        let extracted = extract(body, &[Syntax::JsonLd]);
        assert_eq!(extracted.error, None);
        assert_eq!(extracted.triples, 2);
        assert_eq!(
            extracted.links,
            vec![
                "http://example.org/data/doc",
                "http://xmlns.com/foaf/0.1/knows",
                "http://example.org/bob",
                "https://c.example/carol",
            ]
        );
    }

    #[test]
    fn json_ld_context_served_versus_missing() {
        struct Archive;
        impl ContextSource for Archive {
            fn context(&self, url: &str) -> Option<Vec<u8>> {
                (url == "http://example.org/ctx.jsonld").then(|| {
                    br#"{"@context": {"seeAlso": {"@id": "http://www.w3.org/2000/01/rdf-schema#seeAlso", "@type": "@id"}}}"#.to_vec()
                })
            }
        }
        let body = r#"{"@context": "../ctx.jsonld", "@id": "/thing", "seeAlso": "/other"}"#;
        let served = LinkOptions {
            contexts: &Archive,
            ..LinkOptions::default()
        };
        let full = extract_links(body.as_bytes(), &[Syntax::JsonLd], BASE, &served).unwrap();
        assert_eq!(full.links.last().unwrap(), "http://example.org/other");
        assert_eq!(full.remote_contexts, vec!["http://example.org/ctx.jsonld"]);
        assert!(full.missing_contexts.is_empty());

        let partial = extract(body, &[Syntax::JsonLd]);
        assert_eq!(partial.error, None);
        assert_eq!(partial.triples, 0);
        assert_eq!(
            partial.missing_contexts,
            vec!["http://example.org/ctx.jsonld"]
        );
    }

    #[test]
    fn follow_predicates_restricts_to_their_objects() {
        let body = "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n\
                    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
                    <http://a.example/me> foaf:knows <http://b.example/you> ;\n\
                    rdfs:seeAlso <http://c.example/more> ; foaf:homepage <http://d.example/> .";
        let follow = vec![
            "http://www.w3.org/2000/01/rdf-schema#seeAlso".to_string(),
            "http://xmlns.com/foaf/0.1/knows".to_string(),
        ];
        let options = LinkOptions {
            follow_predicates: Some(&follow),
            ..LinkOptions::default()
        };
        let extracted = extract_links(body.as_bytes(), &[Syntax::Turtle], BASE, &options).unwrap();
        assert_eq!(
            extracted.links,
            vec!["http://b.example/you", "http://c.example/more"]
        );
        assert_eq!(extracted.triples, 3);
    }

    #[test]
    fn max_links_caps_but_counts_every_triple() {
        let body: String = (0..50)
            .map(|index| format!("<http://a.example/{index}> <http://a.example/p> \"x\" .\n"))
            .collect();
        let options = LinkOptions {
            max_links: 5,
            ..LinkOptions::default()
        };
        let extracted =
            extract_links(body.as_bytes(), &[Syntax::NTriples], BASE, &options).unwrap();
        assert_eq!(extracted.links.len(), 5);
        assert_eq!(extracted.triples, 50);
    }

    #[test]
    fn mislabelled_turtle_still_extracted() {
        let body = b"@prefix ex: <http://ex.example/> .\nex:a ex:b ex:c .\n";
        for label in ["text/plain", "application/rdf+xml", "application/ld+json"] {
            let syntaxes = choose_syntaxes(Some(label), body);
            let extracted = extract_links(body, &syntaxes, BASE, &LinkOptions::default()).unwrap();
            assert_eq!(extracted.syntax, Syntax::Turtle, "{label}");
            assert_eq!(extracted.error, None);
            assert_eq!(extracted.links.len(), 3, "{label}");
        }
    }

    #[test]
    fn malformed_turtle_gives_partial_links_and_the_error() {
        let body = "@prefix ex: <http://ex.example/> .\n\
                    ex:a ex:b ex:c .\n\
                    ex:d ex:e ex:f .\n\
                    ex:g ex:h \"unterminated .\n";
        let syntaxes = choose_syntaxes(Some("text/turtle"), body.as_bytes());
        let extracted =
            extract_links(body.as_bytes(), &syntaxes, BASE, &LinkOptions::default()).unwrap();
        assert_eq!(extracted.triples, 2);
        assert_eq!(extracted.links.len(), 6);
        let error = extracted.error.unwrap();
        assert!(error.contains("line 4"), "{error}");
    }

    #[test]
    fn nothing_parseable_is_an_error_naming_the_url() {
        let err = extract_links(
            b"<html><body>nope</body></html>",
            &[Syntax::Turtle, Syntax::RdfXml],
            BASE,
            &LinkOptions::default(),
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with(BASE), "{message}");
        assert!(message.contains("text/turtle") && message.contains("application/rdf+xml"));
        assert!(!message.contains('\n'));
        assert!(matches!(
            extract_links(b"x", &[], BASE, &LinkOptions::default()),
            Err(RdfError::NoSyntax { .. })
        ));
        assert!(matches!(
            extract_links(
                b"x",
                &[Syntax::Turtle],
                "not a url",
                &LinkOptions::default()
            ),
            Err(RdfError::InvalidBase { .. })
        ));
    }

    #[test]
    fn invalid_utf8_is_an_error_in_every_text_syntax() {
        let mut body = b"<http://a.example/s> <http://a.example/p> \"".to_vec();
        body.extend_from_slice(b"\xFF\xFE\" .\n");
        for syntax in Syntax::all() {
            let result = extract_links(&body, &[syntax], BASE, &LinkOptions::default());
            match result {
                Err(RdfError::Unparseable { detail, .. }) => {
                    if syntax != Syntax::RdfXml {
                        assert!(
                            detail.contains("invalid UTF-8 at line 1, column 44"),
                            "{detail}"
                        );
                    }
                }
                Ok(extracted) => assert!(extracted.error.is_some(), "{syntax}: {extracted:?}"),
                Err(other) => panic!("{syntax}: {other}"),
            }
        }
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let body =
            b"\xEF\xBB\xBF<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n";
        let extracted =
            extract_links(body, &[Syntax::NTriples], BASE, &LinkOptions::default()).unwrap();
        assert_eq!(extracted.links.len(), 3);
    }
}
