//! The frontier: every URL of a crawl, per-PLD queues ordered by in-links, breadth-first
//! rounds that end as DyLDO ends them, and per-PLD politeness timers.
//!
//! The delay counts from the end of one answer to the start of the next request, the
//! conservative reading of DyLDO's "not the same PLD twice within the delay": it holds by the
//! server's clock too, whatever the network latency.
//!
//! A PLD is in exactly one place at a time: busy (one request in flight), waiting for its
//! delay to pass, ready, or idle with nothing queued. When more PLDs are ready than there
//! are free connections, the one with the most queued URLs goes first: the crawl cannot end
//! before its biggest PLD is drained at one request per delay, so that PLD must never wait
//! for a free connection.

use std::cmp::Reverse;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::hash::{Hash, Hasher};
use std::time::Duration;

use tokio::time::Instant;

/// Index of a URL in the frontier.
pub type UrlId = u32;
/// Index of a PLD in the frontier.
pub type PldId = u32;

/// Why a URL is in the frontier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlKind {
    /// A seed or a link.
    Link,
    /// The target of a redirect: followed in the same round, first in its PLD's queue.
    Redirect,
    /// A JSON-LD context a document needs: fetched in the same round, like a redirect.
    Context,
}

/// Where a URL stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlState {
    /// Waiting in its PLD's queue for the given round.
    Queued,
    /// Being fetched.
    InFlight,
    /// Fetched, failed for good, or excluded.
    Done,
    /// Queued in the shared frontier, but its PLD's lease is not (or no longer) this node's:
    /// queued again when the PLD is claimed again.
    Released,
}

/// One URL of the crawl.
#[derive(Debug, Clone)]
pub struct UrlEntry {
    /// The URL.
    pub url: Box<str>,
    /// Its PLD.
    pub pld: PldId,
    /// Hops from the nearest seed.
    pub hops: u32,
    /// Redirects followed to reach it.
    pub redirects: u32,
    /// Links to it found so far.
    pub inlinks: u32,
    /// Where it was found.
    pub via: Option<UrlId>,
    /// Discovery path (`L` link, `R` redirect, `X` context).
    pub path: Box<str>,
    /// Why it is here.
    pub kind: UrlKind,
    /// Where it stands.
    pub state: UrlState,
    /// Retries left after a 429/503.
    pub retries_left: u8,
    /// The round it was queued for (leftovers of a round that ended early keep it).
    pub round: u32,
    /// The priority key it is queued under in the current round.
    queued_key: Option<(Reverse<u32>, u64)>,
}

struct PldQueue {
    name: Box<str>,
    current: BTreeSet<(Reverse<u32>, u64, UrlId)>,
    next: Vec<UrlId>,
    busy: bool,
    /// In the timer heap or the ready heap.
    scheduled: bool,
    next_allowed: Instant,
    delay: Duration,
    /// Consecutive 429/503 answers.
    backoff: u32,
    /// URLs of this PLD in the frontier, in any state.
    known: usize,
}

/// A URL to add.
#[derive(Debug, Clone)]
pub struct NewUrl {
    /// The URL (normalised).
    pub url: String,
    /// Its PLD.
    pub pld: String,
    /// Hops from the nearest seed.
    pub hops: u32,
    /// Redirects followed to reach it.
    pub redirects: u32,
    /// Where it was found.
    pub via: Option<UrlId>,
    /// Discovery path.
    pub path: String,
    /// Why it is added.
    pub kind: UrlKind,
    /// The round it belongs to (the current round for redirects and contexts, the next for
    /// links; a resumed crawl gives the stored round).
    pub round: u32,
    /// In-links already known (a resumed crawl).
    pub inlinks: u32,
}

/// What [`Frontier::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// A new URL, queued.
    New(UrlId),
    /// Known already: its in-link count was raised.
    Known(UrlId),
}

/// All URLs of a crawl and the per-PLD queues.
pub struct Frontier {
    urls: Vec<UrlEntry>,
    by_hash: HashMap<u64, UrlId>,
    /// URLs whose 64-bit hash collided with another URL's.
    collided: HashMap<Box<str>, UrlId>,
    plds: Vec<PldQueue>,
    pld_ids: HashMap<Box<str>, PldId>,
    timers: BinaryHeap<Reverse<(Instant, PldId)>>,
    ready: BinaryHeap<(usize, Reverse<PldId>)>,
    round: u32,
    seq: u64,
    default_delay: Duration,
    queued_current: usize,
    queued_next: usize,
    /// Redirect and context URLs queued or in flight (a round waits for them).
    urgent_open: usize,
    in_flight: usize,
    /// PLDs with queued work in this round or a request in flight.
    active: usize,
}

impl Frontier {
    /// An empty frontier at `round` with the given per-PLD delay.
    pub fn new(round: u32, default_delay: Duration) -> Self {
        Self {
            urls: Vec::new(),
            by_hash: HashMap::new(),
            collided: HashMap::new(),
            plds: Vec::new(),
            pld_ids: HashMap::new(),
            timers: BinaryHeap::new(),
            ready: BinaryHeap::new(),
            round,
            seq: 0,
            default_delay,
            queued_current: 0,
            queued_next: 0,
            urgent_open: 0,
            in_flight: 0,
            active: 0,
        }
    }

    /// The current round.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The URL entry of `id`.
    pub fn entry(&self, id: UrlId) -> &UrlEntry {
        &self.urls[id as usize]
    }

    /// The id of a known URL.
    pub fn find(&self, url: &str) -> Option<UrlId> {
        let id = *self.by_hash.get(&hash_url(url))?;
        if &*self.urls[id as usize].url == url {
            Some(id)
        } else {
            self.collided.get(url).copied()
        }
    }

    /// Number of URLs known.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no URL is known.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    /// URLs queued in the current and the next round.
    pub fn queued(&self) -> (usize, usize) {
        (self.queued_current, self.queued_next)
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The name of a PLD.
    pub fn pld_name(&self, pld: PldId) -> &str {
        &self.plds[pld as usize].name
    }

    /// The id of a PLD, created if new.
    pub fn pld(&mut self, name: &str) -> PldId {
        if let Some(&id) = self.pld_ids.get(name) {
            return id;
        }
        let id = self.plds.len() as PldId;
        self.plds.push(PldQueue {
            name: name.into(),
            current: BTreeSet::new(),
            next: Vec::new(),
            busy: false,
            scheduled: false,
            next_allowed: Instant::now(),
            delay: self.default_delay,
            backoff: 0,
            known: 0,
        });
        self.pld_ids.insert(name.into(), id);
        id
    }

    /// URLs of the PLD `name` in the frontier, in any state (0 for a PLD not seen yet).
    pub fn pld_len(&self, name: &str) -> usize {
        self.pld_ids
            .get(name)
            .map_or(0, |&id| self.plds[id as usize].known)
    }

    /// PLDs with queued work in this round or a request in flight.
    pub fn active_plds(&self) -> usize {
        self.active
    }

    /// Adds a URL, or raises the in-link count of a known one.
    pub fn add(&mut self, new: NewUrl) -> Added {
        if let Some(id) = self.find(&new.url) {
            if self.urls[id as usize].state == UrlState::Released {
                self.requeue_released(id, new.round);
            } else {
                self.add_inlink(id);
            }
            return Added::Known(id);
        }
        let id = self.urls.len() as UrlId;
        self.index_url(&new.url, id);
        let pld = self.pld(&new.pld);
        self.plds[pld as usize].known += 1;
        let urgent = new.kind != UrlKind::Link;
        self.urls.push(UrlEntry {
            url: new.url.into(),
            pld,
            hops: new.hops,
            redirects: new.redirects,
            inlinks: new.inlinks.max(u32::from(!urgent && new.via.is_some())),
            via: new.via,
            path: new.path.into(),
            kind: new.kind,
            state: UrlState::Queued,
            retries_left: 2,
            round: new.round,
            queued_key: None,
        });
        if urgent {
            self.urgent_open += 1;
        }
        self.enqueue(id, new.round.max(self.round));
        Added::New(id)
    }

    /// Adds a URL a resumed crawl fetched before it stopped, with the hop count and path it
    /// was reached by (a shorter path found later lowers them); never queued again.
    pub fn add_fetched(&mut self, new: NewUrl) -> UrlId {
        if let Some(id) = self.find(&new.url) {
            self.add_done(&new.url, &new.pld);
            return id;
        }
        let id = self.urls.len() as UrlId;
        self.index_url(&new.url, id);
        let pld = self.pld(&new.pld);
        self.plds[pld as usize].known += 1;
        self.urls.push(UrlEntry {
            url: new.url.into(),
            pld,
            hops: new.hops,
            redirects: new.redirects,
            inlinks: new.inlinks,
            via: new.via,
            path: new.path.into(),
            kind: new.kind,
            state: UrlState::Done,
            retries_left: 0,
            round: new.round,
            queued_key: None,
        });
        id
    }

    /// Adds a URL that is already done (a resumed crawl), so it is never queued again.
    pub fn add_done(&mut self, url: &str, pld: &str) {
        if let Some(id) = self.find(url) {
            let entry = &mut self.urls[id as usize];
            if entry.state == UrlState::Released {
                entry.state = UrlState::Done;
            }
            return;
        }
        let id = self.urls.len() as UrlId;
        self.index_url(url, id);
        let pld = self.pld(pld);
        self.plds[pld as usize].known += 1;
        self.urls.push(UrlEntry {
            url: url.into(),
            pld,
            hops: 0,
            redirects: 0,
            inlinks: 0,
            via: None,
            path: "".into(),
            kind: UrlKind::Link,
            state: UrlState::Done,
            retries_left: 0,
            round: self.round,
            queued_key: None,
        });
    }

    /// A fetched URL whose commit a fence refused (its PLD was taken over): it is queued
    /// again if this node holds the PLD (`held`: claimed back since), and otherwise released,
    /// to be queued when the PLD is claimed again.
    pub fn not_committed(&mut self, id: UrlId, held: bool) {
        if self.urls[id as usize].state != UrlState::Done {
            return;
        }
        self.urls[id as usize].state = UrlState::Released;
        if held {
            let round = self.urls[id as usize].round;
            self.requeue_released(id, round);
        }
    }

    /// Queues a released URL again (its PLD's lease is this node's again).
    fn requeue_released(&mut self, id: UrlId, round: u32) {
        if self.urls[id as usize].kind != UrlKind::Link {
            self.urgent_open += 1;
        }
        self.enqueue(id, round.max(self.round));
    }

    /// The id of a known PLD.
    pub fn find_pld(&self, name: &str) -> Option<PldId> {
        self.pld_ids.get(name).copied()
    }

    /// Whether a PLD has nothing queued (this round or the next) and no request in flight.
    pub fn pld_idle(&self, pld_id: PldId) -> bool {
        let pld = &self.plds[pld_id as usize];
        !pld.busy && pld.current.is_empty() && pld.next.is_empty()
    }

    /// Whether a request to a PLD is in flight.
    pub fn pld_busy(&self, pld_id: PldId) -> bool {
        self.plds[pld_id as usize].busy
    }

    /// Of `held`, up to `count` PLDs to hand over to other nodes: none with a request in
    /// flight, those with the least work queued first. A PLD with a long queue is the
    /// crawl's critical path (its delay bounds the crawl), and handing it over costs it a
    /// cool-down and a claim on the other node.
    pub fn plds_to_hand_over(
        &self,
        held: impl IntoIterator<Item = PldId>,
        count: usize,
    ) -> Vec<PldId> {
        let mut spare: Vec<PldId> = held
            .into_iter()
            .filter(|&id| !self.plds[id as usize].busy)
            .collect();
        spare.sort_by_key(|&id| {
            let pld = &self.plds[id as usize];
            pld.current.len() + pld.next.len()
        });
        spare.truncate(count);
        spare
    }

    /// Takes every queued URL of a PLD out of the queues, marked
    /// [`UrlState::Released`]: another node holds (or will hold) the PLD's lease. A request
    /// in flight is left to finish.
    pub fn drop_pld(&mut self, pld_id: PldId) {
        let pld = &mut self.plds[pld_id as usize];
        let current: Vec<UrlId> = std::mem::take(&mut pld.current)
            .into_iter()
            .map(|(_, _, id)| id)
            .collect();
        let next = std::mem::take(&mut pld.next);
        if !pld.busy && !current.is_empty() {
            self.active -= 1;
        }
        self.queued_current -= current.len();
        self.queued_next -= next.len();
        for id in current.into_iter().chain(next) {
            let entry = &mut self.urls[id as usize];
            if entry.kind != UrlKind::Link {
                self.urgent_open -= 1;
            }
            entry.state = UrlState::Released;
            entry.queued_key = None;
        }
    }

    /// Makes a new URL findable by [`Frontier::find`].
    fn index_url(&mut self, url: &str, id: UrlId) {
        match self.by_hash.entry(hash_url(url)) {
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(url.into(), id);
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
            }
        }
    }

    /// A shorter path to a known URL: its hop count, discovery path and referrer become
    /// those of the shorter path. Returns false (and changes nothing) unless `hops` is lower.
    pub fn lower_hops(&mut self, id: UrlId, hops: u32, via: Option<UrlId>, path: String) -> bool {
        let entry = &mut self.urls[id as usize];
        if entry.hops <= hops {
            return false;
        }
        entry.hops = hops;
        if via.is_some() {
            entry.via = via;
        }
        entry.path = path.into();
        true
    }

    /// Counts one more link to a known URL (its place in its PLD's queue moves up).
    pub fn add_inlink(&mut self, id: UrlId) {
        let entry = &mut self.urls[id as usize];
        entry.inlinks = entry.inlinks.saturating_add(1);
        if let Some(old) = entry.queued_key {
            let key = (Reverse(priority(entry)), old.1);
            if key != old {
                entry.queued_key = Some(key);
                let pld = &mut self.plds[entry.pld as usize];
                pld.current.remove(&(old.0, old.1, id));
                pld.current.insert((key.0, key.1, id));
            }
        }
    }

    fn enqueue(&mut self, id: UrlId, round: u32) {
        let entry = &mut self.urls[id as usize];
        entry.state = UrlState::Queued;
        entry.round = round;
        let pld_id = entry.pld;
        if round <= self.round {
            self.seq += 1;
            let key = (Reverse(priority(entry)), self.seq);
            entry.queued_key = Some(key);
            let pld = &mut self.plds[pld_id as usize];
            if !pld.busy && pld.current.is_empty() {
                self.active += 1;
            }
            pld.current.insert((key.0, key.1, id));
            self.queued_current += 1;
            self.schedule(pld_id);
        } else {
            entry.queued_key = None;
            self.plds[pld_id as usize].next.push(id);
            self.queued_next += 1;
        }
    }

    /// Puts a PLD with queued work and no request in flight on the timer heap.
    fn schedule(&mut self, pld_id: PldId) {
        let pld = &mut self.plds[pld_id as usize];
        if pld.busy || pld.scheduled || pld.current.is_empty() {
            return;
        }
        pld.scheduled = true;
        self.timers.push(Reverse((pld.next_allowed, pld_id)));
    }

    /// The next PLD whose delay has passed, the one with most queued URLs first.
    pub fn next_ready_pld(&mut self, now: Instant) -> Option<PldId> {
        while let Some(&Reverse((time, pld_id))) = self.timers.peek() {
            if time > now {
                break;
            }
            self.timers.pop();
            let pld = &self.plds[pld_id as usize];
            self.ready.push((pld.current.len(), Reverse(pld_id)));
        }
        while let Some((_, Reverse(pld_id))) = self.ready.pop() {
            let pld = &mut self.plds[pld_id as usize];
            pld.scheduled = false;
            if !pld.busy && !pld.current.is_empty() {
                return Some(pld_id);
            }
        }
        None
    }

    /// When a PLD may next be sent a request.
    pub fn next_allowed(&self, pld_id: PldId) -> Instant {
        self.plds[pld_id as usize].next_allowed
    }

    /// When the next waiting PLD's delay passes.
    pub fn next_wakeup(&self) -> Option<Instant> {
        if !self.ready.is_empty() {
            return Some(Instant::now());
        }
        self.timers.peek().map(|Reverse((time, _))| *time)
    }

    /// Takes the best URL of a ready PLD (marking it in flight); the PLD is busy until
    /// [`Frontier::release`].
    pub fn take(&mut self, pld_id: PldId) -> Option<UrlId> {
        let pld = &mut self.plds[pld_id as usize];
        let (_, _, id) = pld.current.pop_first()?;
        self.queued_current -= 1;
        pld.busy = true;
        self.in_flight += 1;
        let entry = &mut self.urls[id as usize];
        entry.queued_key = None;
        entry.state = UrlState::InFlight;
        Some(id)
    }

    /// Puts a URL back at the head of its PLD's queue (e.g. robots.txt must come first).
    pub fn put_back(&mut self, id: UrlId) {
        self.in_flight -= 1;
        let entry = &mut self.urls[id as usize];
        entry.state = UrlState::Queued;
        let pld_id = entry.pld;
        let key = (Reverse(u32::MAX), 0);
        entry.queued_key = Some(key);
        self.plds[pld_id as usize]
            .current
            .insert((key.0, key.1, id));
        self.queued_current += 1;
    }

    /// Marks a PLD busy for a request that is not a frontier URL (robots.txt).
    pub fn occupy(&mut self, pld_id: PldId) {
        self.plds[pld_id as usize].busy = true;
        self.in_flight += 1;
    }

    /// Ends a request to a PLD: the next may be sent `delay` after `finished_at` (when the
    /// answer was complete; `None` when no request reached the server).
    pub fn release(&mut self, pld_id: PldId, finished_at: Option<Instant>) {
        let pld = &mut self.plds[pld_id as usize];
        pld.busy = false;
        self.in_flight -= 1;
        if pld.current.is_empty() {
            self.active -= 1;
        }
        if let Some(finished) = finished_at {
            pld.next_allowed = pld
                .next_allowed
                .max(super::clock::later_tokio(finished, pld.delay));
        }
        self.schedule(pld_id);
    }

    /// A request that was not sent (the PLD's lease ran out before it could go): the URL goes
    /// back to the head of its PLD's queue and the PLD is free again, with no politeness
    /// wait since nothing reached the server.
    pub fn unsent(&mut self, id: UrlId) {
        let pld_id = self.urls[id as usize].pld;
        self.put_back(id);
        self.plds[pld_id as usize].busy = false;
        self.schedule(pld_id);
    }

    /// Keeps a PLD from being sent a request before `at` (another node may have sent one
    /// just before this node took its lease over).
    pub fn hold_until(&mut self, pld_id: PldId, at: Instant) {
        let pld = &mut self.plds[pld_id as usize];
        pld.next_allowed = pld.next_allowed.max(at);
    }

    /// Raises a PLD's delay (robots.txt `Crawl-delay`).
    pub fn raise_delay(&mut self, pld_id: PldId, delay: Duration) {
        let pld = &mut self.plds[pld_id as usize];
        pld.delay = pld.delay.max(delay);
    }

    /// The delay of a PLD.
    pub fn delay(&self, pld_id: PldId) -> Duration {
        self.plds[pld_id as usize].delay
    }

    /// A 429/503 answer: the PLD waits `retry_after`, or longer while such answers continue
    /// (its delay doubled per answer in a row), but never more than `cap`.
    pub fn back_off(
        &mut self,
        pld_id: PldId,
        retry_after: Option<Duration>,
        cap: Duration,
        now: Instant,
    ) {
        let pld = &mut self.plds[pld_id as usize];
        pld.backoff = (pld.backoff + 1).min(16);
        let exponential = pld.delay.saturating_mul(1 << pld.backoff);
        let wait = retry_after.unwrap_or_default().max(exponential).min(cap);
        pld.next_allowed = pld.next_allowed.max(super::clock::later_tokio(now, wait));
    }

    /// A normal answer ends a PLD's backoff.
    pub fn reset_backoff(&mut self, pld_id: PldId) {
        self.plds[pld_id as usize].backoff = 0;
    }

    /// A fetched URL is done.
    pub fn done(&mut self, id: UrlId) {
        let entry = &mut self.urls[id as usize];
        if entry.kind != UrlKind::Link && entry.state != UrlState::Done {
            self.urgent_open -= 1;
        }
        entry.state = UrlState::Done;
    }

    /// A URL to fetch again later in this round (after a 429/503): it goes back to the end
    /// of its PLD's queue. Returns false when it has no retries left.
    pub fn retry(&mut self, id: UrlId) -> bool {
        let entry = &mut self.urls[id as usize];
        if entry.retries_left == 0 {
            return false;
        }
        entry.retries_left -= 1;
        let round = self.round;
        self.enqueue(id, round);
        true
    }

    /// Whether the current round is over: round 0 (the seeds) runs to the end; later rounds
    /// end, as DyLDO's do, once no redirect is open and fewer PLDs than `concurrency` are
    /// active, provided the next round has something to add.
    pub fn round_over(&self, concurrency: usize) -> bool {
        if self.queued_current == 0 {
            return (self.queued_next > 0 && self.urgent_open == 0) || self.in_flight == 0;
        }
        self.round > 0
            && self.urgent_open == 0
            && self.queued_next > 0
            && self.active_plds() < concurrency
    }

    /// Starts the next round: leftovers of this round keep their priority and join the URLs
    /// found for the next one. Returns false when there is nothing left to crawl.
    pub fn advance_round(&mut self) -> bool {
        if self.queued_current == 0 && self.queued_next == 0 {
            return false;
        }
        self.round += 1;
        let round = self.round;
        for pld_id in 0..self.plds.len() as PldId {
            let next = std::mem::take(&mut self.plds[pld_id as usize].next);
            self.queued_next -= next.len();
            for id in next {
                self.enqueue(id, round);
            }
        }
        true
    }

    /// Whether nothing is queued or in flight.
    pub fn finished(&self) -> bool {
        self.queued_current == 0 && self.queued_next == 0 && self.in_flight == 0
    }
}

/// Queue priority: redirects and contexts before everything, then most in-links.
fn priority(entry: &UrlEntry) -> u32 {
    match entry.kind {
        UrlKind::Link => entry.inlinks,
        UrlKind::Redirect | UrlKind::Context => u32::MAX - 1,
    }
}

fn hash_url(url: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    url.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(url: &str, pld: &str, round: u32) -> NewUrl {
        NewUrl {
            url: url.into(),
            pld: pld.into(),
            hops: round,
            redirects: 0,
            via: None,
            path: String::new(),
            kind: UrlKind::Link,
            round,
            inlinks: 0,
        }
    }

    #[test]
    fn most_linked_url_goes_first_within_a_pld() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 0));
        frontier.add(link("http://a.example/3", "a.example", 0));
        let pld = frontier.next_ready_pld(Instant::now()).unwrap();
        let first = frontier.take(pld).unwrap();
        assert_eq!(&*frontier.entry(first).url, "http://a.example/2");
    }

    #[test]
    fn one_request_per_pld_and_delay_between_sends() {
        let mut frontier = Frontier::new(0, Duration::from_secs(2));
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 0));
        let now = Instant::now();
        let pld = frontier.next_ready_pld(now).unwrap();
        frontier.take(pld).unwrap();
        assert_eq!(frontier.next_ready_pld(now), None, "busy PLD is not ready");
        frontier.release(pld, Some(now));
        assert_eq!(frontier.next_ready_pld(now + Duration::from_secs(1)), None);
        assert_eq!(
            frontier.next_ready_pld(now + Duration::from_secs(2)),
            Some(pld)
        );
    }

    #[test]
    fn active_plds_count_queued_work_and_requests_in_flight() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://b.example/1", "b.example", 0));
        frontier.add(link("http://c.example/1", "c.example", 1));
        assert_eq!(frontier.active_plds(), 2, "next-round work is not active");
        let now = Instant::now();
        let pld = frontier.next_ready_pld(now).unwrap();
        frontier.take(pld).unwrap();
        assert_eq!(frontier.active_plds(), 2, "in flight is active");
        frontier.release(pld, Some(now));
        assert_eq!(frontier.active_plds(), 1);
        assert!(frontier.advance_round());
        assert_eq!(frontier.active_plds(), 2);
    }

    #[test]
    fn plds_handed_over_are_those_with_the_least_work_and_none_in_flight() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        for (pld, urls) in [("big.example", 6), ("busy.example", 1), ("mid.example", 3)] {
            for i in 0..urls {
                frontier.add(link(&format!("http://{pld}/{i}"), pld, 0));
            }
        }
        frontier.add(link("http://small.example/1", "small.example", 1));
        let busy = frontier.find_pld("busy.example").unwrap();
        frontier.take(busy).unwrap();
        let held: Vec<PldId> = [
            "big.example",
            "busy.example",
            "mid.example",
            "small.example",
        ]
        .iter()
        .map(|name| frontier.find_pld(name).unwrap())
        .collect();
        let names = |ids: Vec<PldId>| -> Vec<&str> {
            ids.into_iter().map(|id| frontier.pld_name(id)).collect()
        };
        assert_eq!(
            names(frontier.plds_to_hand_over(held.clone(), 2)),
            ["small.example", "mid.example"]
        );
        assert_eq!(
            names(frontier.plds_to_hand_over(held, 9)),
            ["small.example", "mid.example", "big.example"]
        );
    }

    #[test]
    fn the_biggest_ready_pld_is_served_first() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://small.example/1", "small.example", 0));
        for i in 0..5 {
            frontier.add(link(&format!("http://big.example/{i}"), "big.example", 0));
        }
        let pld = frontier
            .next_ready_pld(Instant::now() + Duration::from_millis(1))
            .unwrap();
        assert_eq!(frontier.pld_name(pld), "big.example");
    }

    #[test]
    fn rounds_are_breadth_first_and_end_early_only_after_round_zero() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://a.example/seed", "a.example", 0));
        frontier.add(link("http://b.example/seed", "b.example", 0));
        // A link found in round 0 waits for round 1.
        frontier.add(link("http://c.example/x", "c.example", 1));
        assert_eq!(frontier.queued(), (2, 1));
        assert!(!frontier.round_over(64), "round 0 runs to its end");
        let now = Instant::now();
        for _ in 0..2 {
            let pld = frontier.next_ready_pld(now).unwrap();
            let id = frontier.take(pld).unwrap();
            frontier.release(pld, Some(now));
            frontier.done(id);
        }
        assert!(frontier.round_over(64));
        assert!(frontier.advance_round());
        assert_eq!(frontier.round(), 1);
        assert_eq!(frontier.queued(), (1, 0));
        // Round 1 with one PLD active (< concurrency) ends early once round 2 has work.
        frontier.add(link("http://a.example/more", "a.example", 1));
        frontier.add(link("http://d.example/y", "d.example", 2));
        assert!(frontier.round_over(64));
        assert!(frontier.advance_round());
        assert_eq!(
            frontier.queued(),
            (3, 0),
            "leftovers move to the next round"
        );
    }

    #[test]
    fn redirect_targets_stay_in_the_round_and_hold_it_open() {
        let mut frontier = Frontier::new(1, Duration::ZERO);
        frontier.add(link("http://a.example/1", "a.example", 1));
        frontier.add(link("http://z.example/next", "z.example", 2));
        let mut redirect = link("http://b.example/doc", "b.example", 1);
        redirect.kind = UrlKind::Redirect;
        frontier.add(redirect);
        assert_eq!(frontier.queued(), (2, 1));
        assert!(!frontier.round_over(64), "an open redirect holds the round");
    }

    #[test]
    fn dropped_plds_leave_the_queues_and_come_back_when_claimed_again() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 1));
        frontier.add(link("http://b.example/1", "b.example", 0));
        let a = frontier.find_pld("a.example").unwrap();
        assert!(!frontier.pld_idle(a));
        frontier.drop_pld(a);
        assert!(frontier.pld_idle(a));
        assert_eq!(frontier.queued(), (1, 0));
        assert_eq!(frontier.active_plds(), 1);
        let now = Instant::now();
        let ready = frontier.next_ready_pld(now).unwrap();
        assert_eq!(frontier.pld_name(ready), "b.example");
        // Claimed again: the stored rows come back, one of them done meanwhile elsewhere.
        frontier.add_done("http://a.example/2", "a.example");
        assert_eq!(
            frontier.add(link("http://a.example/1", "a.example", 0)),
            Added::Known(0)
        );
        assert_eq!(frontier.queued(), (2, 0));
        assert_eq!(frontier.entry(1).state, UrlState::Done);
    }

    #[test]
    fn a_fetch_whose_commit_was_refused_is_queued_again_when_the_pld_is_held() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 0));
        let fetch_one = |frontier: &mut Frontier| {
            let pld = frontier.next_ready_pld(Instant::now()).unwrap();
            let id = frontier.take(pld).unwrap();
            frontier.done(id);
            frontier.release(pld, Some(Instant::now()));
            (pld, id)
        };
        let (a, first) = fetch_one(&mut frontier);
        // Lost meanwhile: the PLD leaves the queues; the refusal comes after.
        frontier.drop_pld(a);
        frontier.not_committed(first, false);
        assert_eq!(frontier.entry(first).state, UrlState::Released);
        assert_eq!(frontier.queued(), (0, 0));
        // Claimed again: the shared frontier still has both queued, and so does this node.
        for url in ["http://a.example/1", "http://a.example/2"] {
            assert!(matches!(
                frontier.add(link(url, "a.example", 0)),
                Added::Known(_)
            ));
        }
        assert_eq!(frontier.entry(first).state, UrlState::Queued);
        assert_eq!(frontier.queued(), (2, 0));
        // Refused while this node holds the PLD again: queued at once.
        let (_, refused) = fetch_one(&mut frontier);
        let (_, committed) = fetch_one(&mut frontier);
        assert_eq!(frontier.queued(), (0, 0));
        frontier.not_committed(refused, true);
        assert_eq!(frontier.entry(refused).state, UrlState::Queued);
        assert_eq!(frontier.queued(), (1, 0));
        // Only a done URL goes back: one already queued again is left as it is.
        frontier.not_committed(refused, true);
        assert_eq!(frontier.queued(), (1, 0));
        assert_eq!(frontier.entry(committed).state, UrlState::Done);
    }

    #[test]
    fn urls_are_counted_per_pld() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        assert_eq!(frontier.pld_len("a.example"), 0);
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/1", "a.example", 0));
        frontier.add(link("http://a.example/2", "a.example", 0));
        frontier.add_fetched(link("http://a.example/3", "a.example", 0));
        frontier.add(link("http://b.example/1", "b.example", 0));
        assert_eq!(frontier.pld_len("a.example"), 3);
        assert_eq!(frontier.pld_len("b.example"), 1);
        assert_eq!(frontier.len(), 4);
    }

    #[test]
    fn known_urls_are_not_queued_twice() {
        let mut frontier = Frontier::new(0, Duration::ZERO);
        frontier.add_done("http://a.example/1", "a.example");
        assert_eq!(
            frontier.add(link("http://a.example/1", "a.example", 1)),
            Added::Known(0)
        );
        assert_eq!(frontier.queued(), (0, 0));
    }
}
