//! The measurement behind the SPARQL engine of `ldwarc sparql`: oxigraph's in-memory store
//! against the `spareval` evaluator over an `oxrdf::Dataset`, on a synthetic dataset shaped like
//! an archive snapshot (one named graph per document, 30 statements each: names, employers and
//! links between documents). Prints the load time of each and the time of five queries
//! (a join, COUNT/GROUP BY, GRAPH ?g, OPTIONAL with FILTER, one subject), checking that both
//! engines give the same number of rows.
//!
//! Knob: `LDWARC_BENCH_SPARQL_DOCS` (default 20000 documents, 600,000 statements).

use std::time::Instant;

use oxigraph::store::Store;
use oxrdf::{Dataset, GraphName, Literal, NamedNode, Quad, Term};

const PER_DOCUMENT: usize = 30;

fn quads(documents: usize) -> Vec<Quad> {
    let name = NamedNode::new_unchecked("http://xmlns.com/foaf/0.1/name");
    let works_for = NamedNode::new_unchecked("http://schema.org/worksFor");
    let knows = NamedNode::new_unchecked("http://xmlns.com/foaf/0.1/knows");
    let person = |d: usize, i: usize| {
        NamedNode::new_unchecked(format!("http://ex{}.org/doc/{d}#p{i}", d % 50))
    };
    let mut out = Vec::with_capacity(documents * PER_DOCUMENT);
    for d in 0..documents {
        let graph = NamedNode::new_unchecked(format!("http://ex{}.org/doc/{d}", d % 50));
        for i in 0..PER_DOCUMENT {
            let (predicate, object): (NamedNode, Term) = match i % 3 {
                0 => (
                    name.clone(),
                    Literal::new_simple_literal(format!("Person {d} {i}")).into(),
                ),
                1 => (
                    works_for.clone(),
                    NamedNode::new_unchecked(format!("http://org.example/{}", (d * 7 + i) % 500))
                        .into(),
                ),
                _ => (knows.clone(), person((d + 1) % documents, i / 3 + 1).into()),
            };
            out.push(Quad::new(
                person(d, i / 3),
                predicate,
                object,
                GraphName::NamedNode(graph.clone()),
            ));
        }
    }
    out
}

const QUERIES: &[(&str, &str)] = &[
    (
        "join",
        "SELECT ?s ?n ?e WHERE { GRAPH ?g { ?s <http://xmlns.com/foaf/0.1/name> ?n . ?s <http://schema.org/worksFor> ?e } }",
    ),
    (
        "count/group by",
        "SELECT ?e (COUNT(?s) AS ?c) WHERE { GRAPH ?g { ?s <http://schema.org/worksFor> ?e } } GROUP BY ?e",
    ),
    (
        "graph ?g",
        "SELECT ?g (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
    ),
    (
        "optional+filter",
        "SELECT ?s ?k WHERE { GRAPH ?g { ?s <http://xmlns.com/foaf/0.1/name> ?n OPTIONAL { ?s <http://xmlns.com/foaf/0.1/knows> ?k } FILTER(STRENDS(?n, \"7\")) } }",
    ),
    (
        "one subject",
        "SELECT ?p ?o WHERE { GRAPH ?g { <http://ex7.org/doc/57#p2> ?p ?o } }",
    ),
];

fn rows_spareval(dataset: &Dataset, query: &str) -> usize {
    let query = spargebra::SparqlParser::new().parse_query(query).unwrap();
    let evaluator = spareval::QueryEvaluator::new();
    match evaluator.prepare(&query).execute(dataset).unwrap() {
        spareval::QueryResults::Solutions(solutions) => {
            solutions.collect::<Result<Vec<_>, _>>().unwrap().len()
        }
        _ => 0,
    }
}

fn rows_oxigraph(store: &Store, query: &str) -> usize {
    let prepared = oxigraph::sparql::SparqlEvaluator::new()
        .parse_query(query)
        .unwrap();
    match prepared.on_store(store).execute().unwrap() {
        oxigraph::sparql::QueryResults::Solutions(solutions) => {
            solutions.collect::<Result<Vec<_>, _>>().unwrap().len()
        }
        _ => 0,
    }
}

fn main() {
    let documents: usize = std::env::var("LDWARC_BENCH_SPARQL_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let data = quads(documents);
    println!("{} statements in {documents} named graphs", data.len());
    let started = Instant::now();
    let dataset: Dataset = data.iter().cloned().collect();
    println!(
        "load  spareval over oxrdf::Dataset  {:>10.2?}",
        started.elapsed()
    );
    let started = Instant::now();
    let store = Store::new().unwrap();
    store.extend(data.iter().cloned()).unwrap();
    println!(
        "load  oxigraph in-memory store      {:>10.2?}",
        started.elapsed()
    );
    assert_eq!(store.len().unwrap(), dataset.len());
    for (label, query) in QUERIES {
        let started = Instant::now();
        let a = rows_spareval(&dataset, query);
        let spareval_time = started.elapsed();
        let started = Instant::now();
        let b = rows_oxigraph(&store, query);
        let oxigraph_time = started.elapsed();
        assert_eq!(a, b, "{label}: the engines disagree");
        println!(
            "query {label:16} {a:>8} rows  spareval {spareval_time:>10.2?}  oxigraph {oxigraph_time:>10.2?}"
        );
    }
}
