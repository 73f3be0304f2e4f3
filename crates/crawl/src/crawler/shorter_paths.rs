//! Exact hop counts: rounds end early (as DyLDO's do) and nodes of a shared crawl run their
//! own rounds, so a URL may first be found by a longer path than its shortest. When a shorter
//! path turns up, the URL's hop count is lowered, here and in the store, and if it was already
//! fetched its links are followed again from the lower count: those now within the limit are
//! queued, those known with more hops are lowered in turn.

use std::collections::HashMap;

use url::Url;

use super::Crawler;
use crate::frontier::{NewUrl, UrlId, UrlKind, UrlState};
use ldwarc_state::{FetchedEntry, FrontierEntry};

/// What fetched documents link to, kept to follow their links again when a shorter path to
/// a document lowers its hop count. Seeds (0 hops) cannot get shorter and are not kept.
#[derive(Default)]
pub(super) struct LinksOf(HashMap<UrlId, Box<[Link]>>);

/// A URL a document leads to, and how.
type Link = (Box<str>, UrlKind);

impl LinksOf {
    fn get(&self, id: UrlId) -> Option<&[Link]> {
        self.0.get(&id).map(|links| &**links)
    }
}

/// One URL whose hop count may drop: to `hops` through `via` (`path` the discovery path).
struct Step {
    id: UrlId,
    hops: u32,
    via: Option<UrlId>,
    path: String,
}

impl Crawler {
    /// Keeps the links, redirect target and contexts a document at `id` led to (including
    /// links not followed because it was at the hop limit).
    pub(super) fn remember_links(&mut self, id: UrlId, links: Vec<Link>) {
        if links.is_empty() || self.frontier.entry(id).hops == 0 {
            return;
        }
        let kept = &mut self.links_of.0;
        match kept.get_mut(&id) {
            // A retried fetch (after a 429/503) found its links again.
            Some(known) => {
                let mut all = known.to_vec();
                all.extend(links);
                *known = all.into_boxed_slice();
            }
            None => {
                kept.insert(id, links.into_boxed_slice());
            }
        }
    }

    /// What the store keeps of the links of `id`: for the other nodes of a shared crawl,
    /// and for this crawl once resumed.
    pub(super) fn links_to_store(&self, id: UrlId) -> Vec<(String, char)> {
        let letter = |kind| match kind {
            UrlKind::Link => 'L',
            UrlKind::Redirect => 'R',
            UrlKind::Context => 'X',
        };
        self.links_of
            .get(id)
            .unwrap_or_default()
            .iter()
            .map(|(url, kind)| (url.to_string(), letter(*kind)))
            .collect()
    }

    /// Takes back a document a resumed crawl fetched before it stopped: done, at the hop
    /// count and path its frontier row holds, with the links it led to.
    pub(super) fn add_fetched(&mut self, row: FetchedEntry) {
        let FetchedEntry { entry, links } = row;
        let id = self.frontier.add_fetched(NewUrl {
            pld: ldwarc_surt::pld_of_url(&entry.url),
            kind: kind_of_path(&entry.path),
            url: entry.url,
            hops: entry.hops,
            redirects: entry.redirects,
            via: None,
            path: entry.path,
            round: entry.round,
            inlinks: entry.inlinks,
        });
        let links = links
            .into_iter()
            .filter_map(|(url, letter)| {
                let kind = match letter {
                    'L' => UrlKind::Link,
                    'R' => UrlKind::Redirect,
                    'X' => UrlKind::Context,
                    _ => return None,
                };
                Some((url.into_boxed_str(), kind))
            })
            .collect();
        self.remember_links(id, links);
    }

    /// The known URL `id` was found again through `via` as `kind`: if that path is shorter,
    /// its hop count drops, and so do (or come within reach) the counts of what it links to.
    pub(super) fn reached_again(
        &mut self,
        id: UrlId,
        via: UrlId,
        kind: UrlKind,
        new_urls: &mut Vec<FrontierEntry>,
    ) {
        let step = self.step_from(id, via, kind);
        self.lower(step, new_urls);
    }

    /// A row of the shared frontier with fewer hops than this node knows for its URL
    /// (another node found a shorter path): the same as [`Crawler::reached_again`].
    pub(super) fn stored_with_fewer_hops(
        &mut self,
        entry: &FrontierEntry,
        new_urls: &mut Vec<FrontierEntry>,
    ) {
        let Some(id) = self.frontier.find(&entry.url) else {
            return;
        };
        let via = entry.via.as_deref().and_then(|via| self.frontier.find(via));
        let step = Step {
            id,
            hops: entry.hops,
            via,
            path: entry.path.clone(),
        };
        self.lower(step, new_urls);
    }

    fn step_from(&self, id: UrlId, via: UrlId, kind: UrlKind) -> Step {
        let from = self.frontier.entry(via);
        let (hops, letter) = match kind {
            UrlKind::Link => (from.hops + 1, 'L'),
            UrlKind::Redirect => (from.hops, 'R'),
            UrlKind::Context => (from.hops, 'X'),
        };
        Step {
            id,
            hops,
            via: Some(via),
            path: format!("{}{letter}", from.path),
        }
    }

    /// Lowers hop counts from `first` on, breadth of the link graph first; every row lowered
    /// or newly reached goes to `new_urls` for the store.
    fn lower(&mut self, first: Step, new_urls: &mut Vec<FrontierEntry>) {
        let mut work = vec![first];
        while let Some(step) = work.pop() {
            let Step {
                id,
                hops,
                via,
                path,
            } = step;
            if !self.frontier.lower_hops(id, hops, via, path) {
                continue;
            }
            new_urls.push(self.frontier_entry(id));
            // Queued or in flight: its links are followed from the new count when it is
            // fetched. Fetched: follow them again now.
            let entry = self.frontier.entry(id);
            if entry.state != UrlState::Done || entry.kind == UrlKind::Context {
                continue;
            }
            let Some(links) = self.links_of.get(id) else {
                continue;
            };
            let links = links.to_vec();
            for (link, kind) in links {
                if kind == UrlKind::Link && hops >= self.options.hops {
                    continue;
                }
                match self.frontier.find(&link) {
                    Some(known) => work.push(self.step_from(known, id, kind)),
                    None => {
                        if let Ok(url) = Url::parse(&link) {
                            self.queue(url, id, kind, new_urls);
                        }
                    }
                }
            }
        }
    }
}

/// How a URL was reached, by the last step of its discovery path.
pub(super) fn kind_of_path(path: &str) -> UrlKind {
    match path.chars().last() {
        Some('R') => UrlKind::Redirect,
        Some('X') => UrlKind::Context,
        _ => UrlKind::Link,
    }
}

/// URLs of PLDs held by other nodes already sent to the shared frontier, with the fewest
/// hops sent, so each goes to the store once per shorter path rather than once per link. It
/// only saves round trips (the store keeps the fewest hops anyway), so it is bounded: when
/// full it starts over.
pub(super) struct SentElsewhere {
    hops: HashMap<Box<str>, u32>,
    capacity: usize,
}

impl Default for SentElsewhere {
    fn default() -> Self {
        Self::with_capacity(SENT_ELSEWHERE_CAPACITY)
    }
}

/// URLs [`SentElsewhere`] remembers at most (some 100 bytes each).
const SENT_ELSEWHERE_CAPACITY: usize = 200_000;

impl SentElsewhere {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            hops: HashMap::new(),
            capacity,
        }
    }

    /// Whether `url` at `hops` is to be sent: never sent, or sent with more hops.
    pub(super) fn first_or_shorter(&mut self, url: &str, hops: u32) -> bool {
        if let Some(sent) = self.hops.get_mut(url) {
            if *sent <= hops {
                return false;
            }
            *sent = hops;
            return true;
        }
        if self.hops.len() >= self.capacity {
            self.hops.clear();
        }
        self.hops.insert(url.into(), hops);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_sent_elsewhere_go_again_only_by_a_shorter_path_and_stay_bounded() {
        let mut sent = SentElsewhere::with_capacity(2);
        assert!(sent.first_or_shorter("http://a.example/", 3));
        assert!(!sent.first_or_shorter("http://a.example/", 3));
        assert!(!sent.first_or_shorter("http://a.example/", 4));
        assert!(sent.first_or_shorter("http://a.example/", 2));
        assert!(sent.first_or_shorter("http://b.example/", 1));
        assert_eq!(sent.hops.len(), 2);
        // Full: it starts over rather than grow.
        assert!(sent.first_or_shorter("http://c.example/", 1));
        assert_eq!(sent.hops.len(), 1);
    }
}
