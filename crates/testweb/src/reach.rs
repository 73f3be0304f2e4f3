//! What a hop-limited crawl of a web should fetch: a breadth-first walk from the seeds where
//! every IRI in a document (any triple position) is a link one hop further, redirect targets
//! stay at the same hop, and robots.txt-disallowed URLs are neither fetched nor expanded.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use super::model::{Resource, Robots, Web, document_url, split_url};

/// The user agent whose robots.txt rules the walk obeys (groups for `*` apply too).
pub const REACH_USER_AGENT: &str = "ldwarc";

/// The outcome of a hop-limited walk of a web.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Every URL a crawler requests (robots.txt allowing), with the fewest hops it is reached
    /// in: documents, redirecting URLs, hostile and missing ones alike.
    pub hops: BTreeMap<String, usize>,
    /// URLs within the hop limit that robots.txt disallows (never requested).
    pub disallowed: BTreeSet<String>,
    /// The URLs among `hops` that answer with an RDF document (`Resource::Document`).
    pub documents: BTreeSet<String>,
}

impl Reach {
    /// The URLs first reached at exactly `hop`.
    pub fn at_hop(&self, hop: usize) -> BTreeSet<String> {
        self.hops
            .iter()
            .filter(|(_, h)| **h == hop)
            .map(|(url, _)| url.clone())
            .collect()
    }
}

/// Whether robots.txt lets the walk fetch a URL, per host.
enum HostPolicy {
    AllowAll,
    DisallowAll,
    Rules(texting_robots::Robot),
}

impl HostPolicy {
    fn of(robots: &Robots) -> HostPolicy {
        match robots {
            // Unreachable robots.txt (server error, no answer) means stay away.
            Robots::Status(status) if *status >= 500 => HostPolicy::DisallowAll,
            Robots::Hang => HostPolicy::DisallowAll,
            Robots::Text(text) => texting_robots::Robot::new(REACH_USER_AGENT, text.as_bytes())
                .map_or(HostPolicy::AllowAll, HostPolicy::Rules),
            // A redirect chain that never reaches a robots.txt counts as unavailable (RFC 9309
            // §2.3.1.2); the fixtures' redirects only loop.
            Robots::None | Robots::Status(_) | Robots::Huge(_) | Robots::Redirect(_) => {
                HostPolicy::AllowAll
            }
        }
    }

    fn allows(&self, url: &str) -> bool {
        match self {
            HostPolicy::AllowAll => true,
            HostPolicy::DisallowAll => false,
            HostPolicy::Rules(robot) => robot.allowed(url),
        }
    }
}

struct Walk<'a> {
    web: &'a Web,
    epoch: usize,
    policies: HashMap<&'a str, HostPolicy>,
    reach: Reach,
    queue: VecDeque<(String, usize)>,
}

impl<'a> Walk<'a> {
    fn allowed(&self, host: &str, url: &str) -> bool {
        self.policies.get(host).is_none_or(|p| p.allows(url))
    }

    /// The next URLs from a fetched one: redirect targets at the same hop (queued first),
    /// links of a document one hop further.
    fn expand(
        &mut self,
        url: &str,
        host: &str,
        resource: Option<&'a Resource>,
        hop: usize,
        limit: usize,
    ) {
        match resource {
            Some(Resource::SeeOther(target) | Resource::Redirect(_, target)) => {
                let absolute = super::respond::absolute_location(host, target);
                if let Some(next) = document_url(&absolute) {
                    self.queue.push_front((next, hop));
                }
            }
            Some(Resource::Document(doc)) => {
                self.reach.documents.insert(url.to_string());
                if hop < limit {
                    let links = doc.graph(self.epoch).iter().flat_map(|t| t.iris());
                    for next in links.filter_map(document_url) {
                        self.queue.push_back((next, hop + 1));
                    }
                }
            }
            // Static files are documents whose links the model does not know.
            Some(Resource::Static(_)) => {
                self.reach.documents.insert(url.to_string());
            }
            // Hostile and missing resources are fetched but yield nothing to follow.
            Some(Resource::Hostile(_)) | None => {}
        }
    }

    fn run(mut self, limit: usize) -> Reach {
        while let Some((url, hop)) = self.queue.pop_front() {
            if self.reach.hops.contains_key(&url) || self.reach.disallowed.contains(&url) {
                continue;
            }
            let Some((host, path)) = split_url(&url) else {
                continue;
            };
            if !self.allowed(&host, &url) {
                self.reach.disallowed.insert(url);
                continue;
            }
            self.reach.hops.insert(url.clone(), hop);
            let resource = self
                .web
                .hosts
                .get(&host)
                .and_then(|h| h.resources.get(&path));
            self.expand(&url, &host, resource, hop, limit);
        }
        self.reach
    }
}

impl Web {
    /// Walks the web from `seeds` as a crawler with hop limit `hops` would in `epoch`: seeds
    /// are hop 0, a document at hop h < `hops` adds every IRI it mentions (fragment dropped)
    /// at hop h + 1, 303s and redirects pass their target on at the same hop, robots.txt
    /// (agent [`REACH_USER_AGENT`]; a 5xx or hanging robots.txt disallows the whole host)
    /// excludes URLs without expanding them. Hostile resources are leaves.
    pub fn reach<S: AsRef<str>>(&self, seeds: &[S], hops: usize, epoch: usize) -> Reach {
        let policies = self
            .hosts
            .iter()
            .map(|(name, host)| (name.as_str(), HostPolicy::of(&host.robots)))
            .collect();
        let queue = seeds
            .iter()
            .filter_map(|s| document_url(s.as_ref()))
            .map(|url| (url, 0))
            .collect();
        // Redirect targets go to the front of the queue, so hops come out in order (0-1 BFS).
        let walk = Walk {
            web: self,
            epoch,
            policies,
            reach: Reach::default(),
            queue,
        };
        walk.run(hops)
    }

    /// The document URLs a crawl with hop limit `hops` from `seeds` fetches in `epoch`
    /// (`Reach::documents` of [`Web::reach`]).
    pub fn urls_within_hops<S: AsRef<str>>(
        &self,
        seeds: &[S],
        hops: usize,
        epoch: usize,
    ) -> BTreeSet<String> {
        self.reach(seeds, hops, epoch).documents
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(urls: &[&str]) -> BTreeSet<String> {
        urls.iter().map(|u| u.to_string()).collect()
    }

    fn fixture() -> (Web, Vec<String>) {
        let web = Web::fixture().unwrap();
        let seeds = web.seeds.clone();
        (web, seeds)
    }

    #[test]
    fn seeds_and_their_303_targets_are_hop_zero() {
        let (web, seeds) = fixture();
        let reach = web.reach(&seeds, 0, 0);
        assert_eq!(
            reach.at_hop(0),
            set(&[
                "http://beta.example/catalog",
                "http://data.alpha.example/doc/dataset",
                "http://data.alpha.example/resource/dataset",
                "http://people.delta.example/alice",
            ])
        );
        assert_eq!(
            reach.documents,
            set(&[
                "http://beta.example/catalog",
                "http://data.alpha.example/doc/dataset",
                "http://people.delta.example/alice",
            ])
        );
    }

    #[test]
    fn two_hops_of_the_fixture_web() {
        let (web, seeds) = fixture();
        let reach = web.reach(&seeds, 2, 0);
        let documents_at = |hop: usize| -> BTreeSet<String> {
            reach
                .at_hop(hop)
                .intersection(&reach.documents)
                .cloned()
                .collect()
        };
        assert_eq!(
            documents_at(1),
            set(&[
                "http://beta.example/datasets/d1",
                "http://beta.example/datasets/d2",
                "http://data.alpha.example/doc/item1",
                "http://data.alpha.example/doc/item2",
                "http://gamma.example/things/gadget",
                "http://people.delta.example/bob",
                "http://people.delta.example/carol",
                "http://vocab.delta.example/ns",
                "http://www.alpha.example/about",
            ])
        );
        assert_eq!(
            documents_at(2),
            set(&[
                "http://gamma.example/things/sprocket",
                "http://gamma.example/things/widget",
                "http://people.delta.example/dave",
                "http://www.alpha.example/team",
            ])
        );
        // The 2-hop chain and the 301 are fetched at the hop of the link to them.
        assert_eq!(reach.hops["http://data.alpha.example/resource/item2"], 1);
        assert_eq!(reach.hops["http://data.alpha.example/alias/item2"], 1);
        assert_eq!(reach.hops["http://beta.example/old/d2"], 1);
        assert_eq!(reach.hops["http://beta.example/datasets/removed"], 1);
        assert_eq!(
            reach.disallowed,
            set(&[
                "http://data.alpha.example/private/secret",
                "http://mirror.gamma.example/things/gadget",
            ])
        );
        assert!(
            !reach
                .hops
                .contains_key("http://data.alpha.example/doc/hidden")
        );
        assert!(!reach.hops.contains_key("http://www.alpha.example/history"));
        assert_eq!(web.urls_within_hops(&seeds, 2, 0), reach.documents);
        assert_eq!(reach.documents.len(), 16);
    }

    #[test]
    fn deeper_limits_and_later_epochs_reach_more() {
        let (web, seeds) = fixture();
        let three = web.urls_within_hops(&seeds, 3, 0);
        for url in [
            "http://www.alpha.example/history",
            "http://people.delta.example/erin",
            "http://gamma.example/things/cog",
        ] {
            assert!(three.contains(url), "{url}");
        }
        assert!(!three.contains("http://data.alpha.example/doc/hidden"));
        let epoch1 = web.reach(&seeds, 2, 1);
        assert_eq!(epoch1.hops["http://beta.example/datasets/d3"], 2);
        assert!(
            !web.reach(&seeds, 2, 0)
                .hops
                .contains_key("http://beta.example/datasets/d3")
        );
        let epoch2 = web.reach(&seeds, 2, 2);
        assert_eq!(epoch2.hops["http://people.delta.example/dave"], 1);
        assert_eq!(epoch2.hops["http://people.delta.example/erin"], 2);
    }

    #[test]
    fn robots_variants_decide_the_walk() {
        let doc = |link: &str| {
            Resource::Document(super::super::Doc::new(vec![super::super::Triple::new(
                super::super::Term::iri("http://a.example/#it"),
                super::super::Term::iri("http://a.example/#p"),
                super::super::Term::iri(link),
            )]))
        };
        for (robots, allowed) in [
            (Robots::None, true),
            (Robots::Status(404), true),
            (Robots::Status(503), false),
            (Robots::Hang, false),
            (Robots::Huge(10_000), true),
            (
                Robots::Text("User-agent: ldwarc\nDisallow: /\n".into()),
                false,
            ),
            (
                Robots::Text("User-agent: otherbot\nDisallow: /\n".into()),
                true,
            ),
        ] {
            let mut web = Web::new();
            web.insert("http://a.example/", doc("http://b.example/x"))
                .unwrap();
            web.insert("http://b.example/x", doc("http://a.example/"))
                .unwrap();
            web.hosts.get_mut("b.example").unwrap().robots = robots.clone();
            let reach = web.reach(&["http://a.example/"], 5, 0);
            assert_eq!(
                reach.documents.contains("http://b.example/x"),
                allowed,
                "{robots:?}"
            );
            assert_eq!(
                reach.disallowed.contains("http://b.example/x"),
                !allowed,
                "{robots:?}"
            );
        }
    }
}
