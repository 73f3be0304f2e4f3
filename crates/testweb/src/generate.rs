//! Deterministic synthetic webs for benchmarks: a Zipf-like number of documents per PLD,
//! an index document per PLD linking to all of its documents, and documents linking to
//! others on the same and on other PLDs.

use std::time::Duration;

pub use ldwarc_dynamics::schedule::SplitMix64;

use super::model::{Doc, Host, Resource, Robots, Term, Triple, Web};

/// The shape of a generated web.
#[derive(Debug, Clone, PartialEq)]
pub struct GenSpec {
    /// Number of pay-level domains (one host each, `pld0000.example`, ...).
    pub plds: usize,
    /// Documents (index included) of the largest PLD; the PLD of rank r gets
    /// `max_docs_per_pld / r^power_law_exponent`, at least 1.
    pub max_docs_per_pld: usize,
    /// The Zipf exponent of documents per PLD (1.0 is classic Zipf).
    pub power_law_exponent: f64,
    /// Links from each non-index document to other documents.
    pub links_per_doc: usize,
    /// Server latency of every host.
    pub latency: Duration,
    /// Seed of the pseudo-random generator: the same spec gives the same web.
    pub seed: u64,
}

impl Default for GenSpec {
    fn default() -> GenSpec {
        GenSpec {
            plds: 50,
            max_docs_per_pld: 200,
            power_law_exponent: 1.0,
            links_per_doc: 4,
            latency: Duration::ZERO,
            seed: 1,
        }
    }
}

/// Documents per PLD by rank, largest first.
fn sizes_by_rank(spec: &GenSpec) -> Vec<usize> {
    (1..=spec.plds)
        .map(|rank| {
            let size = spec.max_docs_per_pld as f64 / (rank as f64).powf(spec.power_law_exponent);
            (size.round() as usize).max(1)
        })
        .collect()
}

fn host_name(pld: usize) -> String {
    format!("pld{pld:04}.example")
}

/// The URL of document `doc` of `pld`; document 0 is the index, `/`.
fn doc_url(pld: usize, doc: usize) -> String {
    match doc {
        0 => format!("http://{}/", host_name(pld)),
        n => format!("http://{}/doc/{n}", host_name(pld)),
    }
}

fn term(pld: usize, name: &str) -> Term {
    Term::iri(format!("http://{}/#{name}", host_name(pld)))
}

fn index_doc(pld: usize, size: usize) -> Doc {
    let site = term(pld, "site");
    let mut triples = vec![Triple::new(
        site.clone(),
        term(pld, "title"),
        Term::literal(host_name(pld)),
    )];
    for doc in 1..size {
        let member = Term::iri(format!("{}#it", doc_url(pld, doc)));
        triples.push(Triple::new(site.clone(), term(pld, "hasDocument"), member));
    }
    Doc::new(triples)
}

struct Generator<'a> {
    spec: &'a GenSpec,
    sizes: Vec<usize>,
    all_docs: Vec<(usize, usize)>,
    rng: SplitMix64,
}

impl Generator<'_> {
    /// A link target: half the time another document of the same PLD, otherwise any document
    /// of the web (so larger PLDs attract more links).
    fn link_target(&mut self, pld: usize, doc: usize) -> (usize, usize) {
        let size = self.sizes[pld];
        if size > 1 && self.rng.below(2) == 0 {
            let other = 1 + self.rng.below(size - 1);
            return (pld, if other == doc { 0 } else { other });
        }
        self.all_docs[self.rng.below(self.all_docs.len())]
    }

    fn document(&mut self, pld: usize, doc: usize) -> Doc {
        let url = doc_url(pld, doc);
        let it = Term::iri(format!("{url}#it"));
        let title = format!("Document {doc} of {}", host_name(pld));
        let mut triples = vec![
            Triple::new(it.clone(), term(pld, "title"), Term::literal(title)),
            Triple::new(it.clone(), term(pld, "partOf"), term(pld, "site")),
        ];
        for _ in 0..self.spec.links_per_doc {
            let (target_pld, target_doc) = self.link_target(pld, doc);
            let target = Term::iri(format!("{}#it", doc_url(target_pld, target_doc)));
            triples.push(Triple::new(it.clone(), term(pld, "linksTo"), target));
        }
        Doc::new(triples)
    }

    fn host(&mut self, pld: usize) -> Host {
        let size = self.sizes[pld];
        let mut host = Host {
            robots: Robots::Text("User-agent: *\nDisallow: /private/\n".to_string()),
            latency: self.spec.latency,
            ..Host::default()
        };
        host.resources
            .insert("/".to_string(), Resource::Document(index_doc(pld, size)));
        for doc in 1..size {
            let resource = Resource::Document(self.document(pld, doc));
            host.resources.insert(format!("/doc/{doc}"), resource);
        }
        host
    }
}

impl Web {
    /// A synthetic web, the same for the same spec. Which PLD gets which rank of size is
    /// shuffled by the seed; every PLD's index document (`http://pldNNNN.example/`) is a seed.
    pub fn generate(spec: GenSpec) -> Web {
        let mut rng = SplitMix64::new(spec.seed);
        let mut sizes = sizes_by_rank(&spec);
        for i in (1..sizes.len()).rev() {
            sizes.swap(i, rng.below(i + 1));
        }
        let all_docs = sizes
            .iter()
            .enumerate()
            .flat_map(|(pld, &size)| (0..size).map(move |doc| (pld, doc)))
            .collect();
        let mut generator = Generator {
            spec: &spec,
            sizes,
            all_docs,
            rng,
        };
        let mut web = Web::new();
        for pld in 0..spec.plds {
            let host = generator.host(pld);
            web.hosts.insert(host_name(pld), host);
            web.seeds.push(doc_url(pld, 0));
        }
        web
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seed: u64) -> GenSpec {
        GenSpec {
            plds: 100,
            max_docs_per_pld: 500,
            power_law_exponent: 1.1,
            links_per_doc: 3,
            latency: Duration::from_millis(1),
            seed,
        }
    }

    fn docs_per_pld(web: &Web) -> Vec<usize> {
        let mut sizes: Vec<usize> = web.hosts.values().map(|h| h.resources.len()).collect();
        sizes.sort_unstable();
        sizes
    }

    #[test]
    fn splitmix_is_deterministic() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        let first: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..5).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first[0], SplitMix64::new(8).next_u64());
        assert!((0..1000).all(|_| a.below(10) < 10));
    }

    #[test]
    fn the_same_seed_gives_the_same_web() {
        assert_eq!(Web::generate(spec(3)), Web::generate(spec(3)));
        assert_ne!(Web::generate(spec(3)), Web::generate(spec(4)));
    }

    #[test]
    fn documents_per_pld_follow_a_power_law() {
        let web = Web::generate(spec(11));
        assert_eq!(web.hosts.len(), 100);
        let sizes = docs_per_pld(&web);
        let largest = *sizes.last().unwrap();
        let median = sizes[sizes.len() / 2];
        assert_eq!(largest, 500);
        assert!(sizes[0] >= 1);
        assert!(largest >= 20 * median, "largest {largest}, median {median}");
    }

    #[test]
    fn seeds_are_the_index_documents_and_reach_everything() {
        let web = Web::generate(spec(5));
        assert_eq!(web.seeds.len(), 100);
        assert_eq!(web.seeds[42], "http://pld0042.example/");
        let total: usize = web.hosts.values().map(|h| h.resources.len()).sum();
        // Index documents link to every document of their PLD: one hop covers the web.
        assert_eq!(web.urls_within_hops(&web.seeds, 1, 0).len(), total);
        assert_eq!(
            web.hosts["pld0007.example"].latency,
            Duration::from_millis(1)
        );
    }

    #[test]
    fn documents_link_within_and_across_plds() {
        let web = Web::generate(spec(9));
        let mut same = 0;
        let mut other = 0;
        for (name, host) in &web.hosts {
            for resource in host.resources.values() {
                let Resource::Document(doc) = resource else {
                    continue;
                };
                for t in doc
                    .graph(0)
                    .iter()
                    .filter(|t| t.p.as_iri().is_some_and(|p| p.ends_with("#linksTo")))
                {
                    let target = t.o.as_iri().unwrap();
                    if target.starts_with(&format!("http://{name}/")) {
                        same += 1;
                    } else {
                        other += 1;
                    }
                    assert!(web.resource(target).is_some(), "dangling {target}");
                }
            }
        }
        assert!(same > 100 && other > 100, "same {same}, other {other}");
    }
}
