//! Crawling on many nodes over one PostgreSQL frontier: choosing the crawl a node works on
//! ([`open_shared_crawl`]) and the lease thread ([`LeaseKeeper`]) that claims PLDs for this
//! node, renews its leases every third of their lifetime, reports leases lost, and brings in
//! the URLs other nodes queue for the PLDs it holds. The crawl loop only ever queues URLs of
//! PLDs this thread reported held; releases go through the archiver (after the PLD's last
//! write) and are told to this thread with [`LeaseKeeper::forget`].

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio::sync::mpsc::UnboundedSender;

use super::crawler::CrawlError;
use super::lease_deadline::LeaseDeadlines;
use super::options::{CrawlOptions, JoinCrawl, check_node_name};
use ldwarc_state::{
    BackendError, FrontierEntry, FrontierRows, PgStateStore, PldLeases, StateBackend,
};

/// What the lease thread tells the crawl loop.
#[derive(Debug)]
pub enum LeaseEvent {
    /// Frontier rows from the shared store: of PLDs just claimed (`claimed`), or new rows of
    /// PLDs already held.
    Rows {
        /// PLDs now held by this node.
        claimed: Vec<String>,
        /// Those of `claimed` whose previous lease ran out while held: their previous holder
        /// may have sent a request just before, so the first request waits a delay.
        lapsed: Vec<String>,
        /// URLs queued and not yet done.
        queued: Vec<FrontierEntry>,
        /// URLs done (by any node), with the hops they were last reached by.
        done: Vec<FrontierEntry>,
    },
    /// Leases this node no longer holds: their URLs must not be fetched here any more.
    Lost(Vec<String>),
    /// This node's fair share of PLDs fell below what it holds (more nodes joined): it gives
    /// up PLDs with no request in flight until it holds this many.
    Share(usize),
}

/// Messages from the crawl loop to the lease thread.
enum LeaseCommand {
    /// The crawl loop gave these PLDs up (the archiver releases them): stop renewing.
    Forget(Vec<String>),
}

/// How a node takes part in a shared crawl.
#[derive(Debug, Clone)]
pub struct SharedSettings {
    /// The PostgreSQL URL.
    pub database: String,
    /// This node's name.
    pub node: String,
    /// The crawl's id.
    pub crawl: i64,
    /// Lease lifetime.
    pub ttl: Duration,
    /// Leases held at once.
    pub max_plds: usize,
}

/// The node's name: `--node`, else the host name; checked to fit in file names.
pub fn node_name(options: &CrawlOptions) -> Result<String, CrawlError> {
    let name = match &options.node {
        Some(name) => name.clone(),
        None => gethostname::gethostname().to_string_lossy().into_owned(),
    };
    check_node_name(&name).map_err(CrawlError::Options)?;
    Ok(name)
}

/// Starts or joins the crawl this node works on; returns its id, round and whether it
/// joined an existing crawl. Joining never finishes other crawls: nodes of other crawls may
/// be running.
pub fn open_shared_crawl(
    store: &mut PgStateStore,
    options: &CrawlOptions,
    described: &str,
) -> Result<(i64, u32, bool), CrawlError> {
    let join = match options.join {
        JoinCrawl::New if options.resume => JoinCrawl::Latest,
        join => join,
    };
    let database = store.database().to_string();
    let run = match join {
        JoinCrawl::New => {
            if options.seeds.is_empty() {
                return Err(CrawlError::Options(
                    "no seed URLs given (pass URLs, @FILE, or --join to work on a running crawl)"
                        .into(),
                ));
            }
            if !options.force_new {
                refuse_second_crawl(store)?;
            }
            let id = store
                .start_crawl(Utc::now(), described)
                .map_err(store_error)?;
            return Ok((id, 0, false));
        }
        JoinCrawl::Latest => wait_for_crawl(store, options.join_wait)?,
        JoinCrawl::Id(id) => store
            .crawl_by_id(id)
            .map_err(store_error)?
            .ok_or_else(|| CrawlError::Options(format!("{database}: no crawl {id}")))?,
    };
    if let Some(finished) = &run.finished {
        return Err(CrawlError::Options(format!(
            "{database}: crawl {} finished at {finished}; start a new one",
            run.id
        )));
    }
    Ok((run.id, 0, true))
}

/// Nodes of two crawls in one database would each keep their own politeness, unaware of
/// the other's requests: a new crawl is refused while an unfinished one has live leases.
fn refuse_second_crawl(store: &mut PgStateStore) -> Result<(), CrawlError> {
    let Some(running) = store.unfinished_crawl().map_err(store_error)? else {
        return Ok(());
    };
    let holders: BTreeSet<String> = store
        .leases(running.id)
        .map_err(store_error)?
        .into_iter()
        .filter(|lease| lease.live)
        .filter_map(|lease| lease.holder)
        .collect();
    if holders.is_empty() {
        return Ok(());
    }
    let nodes: Vec<String> = holders.into_iter().collect();
    Err(CrawlError::Options(format!(
        "{}: crawl {} is running (nodes {} hold leases); add --join to work on it, or --force \
         to start a second crawl beside it",
        store.database(),
        running.id,
        nodes.join(", ")
    )))
}

/// The latest unfinished crawl, waited for up to `wait`: nodes started together join the
/// crawl the first of them creates.
fn wait_for_crawl(
    store: &mut PgStateStore,
    wait: Duration,
) -> Result<ldwarc_state::CrawlRun, CrawlError> {
    let deadline = Instant::now() + wait;
    let mut told = false;
    loop {
        if let Some(run) = store.unfinished_crawl().map_err(store_error)? {
            return Ok(run);
        }
        if Instant::now() >= deadline {
            return Err(CrawlError::Options(format!(
                "{}: no unfinished crawl to join after waiting {} s; start one with seed URLs \
                 and without --join",
                store.database(),
                wait.as_secs()
            )));
        }
        if !told {
            tracing::warn!(
                "waiting up to {} s for a crawl to join in {}",
                wait.as_secs(),
                store.database()
            );
            told = true;
        }
        std::thread::sleep(JOIN_POLL.min(deadline.saturating_duration_since(Instant::now())));
    }
}

/// How often `--join` looks for the crawl it waits for.
const JOIN_POLL: Duration = Duration::from_millis(250);

/// A state-store failure as a crawl error.
pub fn store_error(error: BackendError) -> CrawlError {
    CrawlError::Archive(error.into())
}

/// The lease thread; stops (releasing whatever it still holds) when dropped.
pub struct LeaseKeeper {
    commands: Option<Sender<LeaseCommand>>,
    thread: Option<JoinHandle<()>>,
}

impl LeaseKeeper {
    /// Connects and starts the thread; `events` receives what it finds, `deadlines` the
    /// local deadline of every lease it holds.
    pub fn start(
        settings: SharedSettings,
        events: UnboundedSender<LeaseEvent>,
        deadlines: Arc<LeaseDeadlines>,
    ) -> Result<Self, CrawlError> {
        let store = PgStateStore::connect(&settings.database).map_err(store_error)?;
        let settings_max = settings.max_plds;
        let (commands, receiver) = channel();
        let thread = std::thread::Builder::new()
            .name("ldwarc-leases".into())
            .spawn(move || {
                LeaseLoop {
                    store,
                    settings,
                    held: BTreeSet::new(),
                    events,
                    deadlines,
                    seen_id: 0,
                    refreshes: 0,
                    share: settings_max,
                    claim_wait: CLAIM_INTERVAL,
                }
                .run(&receiver)
            })?;
        Ok(Self {
            commands: Some(commands),
            thread: Some(thread),
        })
    }

    /// The crawl loop gave these PLDs up: the thread stops renewing them.
    pub fn forget(&self, plds: Vec<String>) {
        if let Some(commands) = &self.commands {
            // The thread ends only when this keeper is dropped.
            let _ = commands.send(LeaseCommand::Forget(plds));
        }
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.commands.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How often held leases are renewed and their new rows fetched: a third of the lifetime,
/// so two renewals in a row may fail before a lease lapses, but at least every second.
fn renew_interval(ttl: Duration) -> Duration {
    (ttl / 3).min(Duration::from_secs(1))
}

/// How often free PLDs are looked for while this node holds fewer than it may and the last
/// look found some.
const CLAIM_INTERVAL: Duration = Duration::from_millis(200);

/// The longest wait between two looks for free PLDs: each look that finds none doubles the
/// wait up to this, so idle nodes do not poll the database five times a second, while a
/// lapsed lease is still taken over within a second of lapsing.
const MAX_CLAIM_WAIT: Duration = Duration::from_secs(1);

struct LeaseLoop {
    store: PgStateStore,
    settings: SharedSettings,
    held: BTreeSet<String>,
    events: UnboundedSender<LeaseEvent>,
    deadlines: Arc<LeaseDeadlines>,
    /// The highest frontier row id read for the held PLDs: renewals read only newer rows.
    seen_id: i64,
    /// Renewals so far; every [`FULL_READ_EVERY`]th reads the held PLDs' rows whole.
    refreshes: u32,
    /// PLDs this node may hold now: `--max-plds`, or less, its fair share.
    share: usize,
    /// The wait before the next look for free PLDs (backing off while none are found).
    claim_wait: Duration,
}

/// Every how many renewals the held PLDs' rows are read whole: a row whose id was taken by
/// a transaction that committed after a higher id had been read is found then.
const FULL_READ_EVERY: u32 = 10;

/// How many times a renewal PostgreSQL aborted to break a deadlock is sent again before
/// the leases are given up.
const RENEW_CONFLICT_RETRIES: u32 = 3;

impl LeaseLoop {
    fn run(mut self, commands: &Receiver<LeaseCommand>) {
        let mut last_renewal = Instant::now();
        let mut last_claim = Instant::now() - CLAIM_INTERVAL;
        loop {
            match commands.recv_timeout(CLAIM_INTERVAL) {
                Ok(command) => self.apply(command),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {}
            }
            while let Ok(command) = commands.try_recv() {
                self.apply(command);
            }
            if last_renewal.elapsed() >= renew_interval(self.settings.ttl) {
                last_renewal = Instant::now();
                self.heartbeat();
                self.renew_and_refresh();
            }
            if last_claim.elapsed() >= self.claim_wait {
                last_claim = Instant::now();
                self.claim();
            }
        }
        self.release_all();
    }

    fn apply(&mut self, command: LeaseCommand) {
        match command {
            LeaseCommand::Forget(plds) => {
                // Room again: look for free PLDs soon.
                self.claim_wait = CLAIM_INTERVAL;
                self.deadlines.end(&plds);
                for pld in plds {
                    self.held.remove(&pld);
                }
            }
        }
    }

    /// Tells the other nodes this one is alive and learns its fair share of PLDs; tells the
    /// crawl loop to give some up when it holds more.
    fn heartbeat(&mut self) {
        let SharedSettings {
            node,
            crawl,
            ttl,
            max_plds,
            ..
        } = &self.settings;
        match self.store.heartbeat(*crawl, node, *ttl) {
            Ok(load) => {
                self.share = load.fair_share().min(*max_plds);
                if self.held.len() > self.share {
                    self.send(LeaseEvent::Share(self.share));
                }
            }
            // The renewal that follows meets the same trouble and reports it.
            Err(error) => {
                tracing::debug!(%error, "heartbeat: {error}");
                self.reconnect_after(&error);
            }
        }
    }

    /// After the database went away, a new connection for the next attempt (a failed one
    /// is tried again at the next renewal or claim: the node waits for the database).
    fn reconnect_after(&mut self, error: &BackendError) {
        if !error.is_connection_lost() {
            return;
        }
        if let Err(error) = self.store.reconnect() {
            tracing::debug!(%error, "reconnecting: {error}");
        }
    }

    fn send(&self, event: LeaseEvent) -> bool {
        self.events.send(event).is_ok()
    }

    /// Renews every held lease; those not renewed are lost. Then brings in rows other nodes
    /// queued for the PLDs still held.
    fn renew_and_refresh(&mut self) {
        if self.held.is_empty() {
            return;
        }
        let held: Vec<String> = self.held.iter().cloned().collect();
        let SharedSettings {
            node, crawl, ttl, ..
        } = &self.settings;
        // Taken before the statement is sent: the database computes the new expiry later.
        let sent = Instant::now();
        let mut result = self.store.renew(node, *crawl, &held, *ttl);
        // A deadlock PostgreSQL broke by aborting this renewal says nothing about the
        // leases: renew again at once rather than drop them all.
        for attempt in 1..=RENEW_CONFLICT_RETRIES {
            match &result {
                Err(error) if error.is_transient_conflict() => {
                    tracing::debug!(%error, attempt, "renewal aborted by a conflict; renewing again");
                    std::thread::sleep(Duration::from_millis(5 * u64::from(attempt)));
                    result = self.store.renew(node, *crawl, &held, *ttl);
                }
                _ => break,
            }
        }
        let renewed = match result {
            Ok(renewed) => {
                self.deadlines.extend(&renewed, sent, *ttl);
                renewed.into_iter().collect::<BTreeSet<_>>()
            }
            Err(error) => {
                // Without a renewal the leases may lapse at any moment: stop using them.
                tracing::warn!(%error, "renewing PLD leases: {error}; dropping them");
                self.reconnect_after(&error);
                BTreeSet::new()
            }
        };
        let lost: Vec<String> = self.held.difference(&renewed).cloned().collect();
        self.deadlines.end(&lost);
        self.held = renewed;
        if !lost.is_empty() {
            self.send(LeaseEvent::Lost(lost));
        }
        self.refreshes = self.refreshes.wrapping_add(1);
        if self.refreshes.is_multiple_of(FULL_READ_EVERY) {
            self.seen_id = 0;
        }
        self.load_rows(Vec::new(), Vec::new());
    }

    /// Claims free PLDs up to the limit and sends their rows.
    fn claim(&mut self) {
        let room = self.share.saturating_sub(self.held.len());
        if room == 0 {
            return;
        }
        let SharedSettings {
            node, crawl, ttl, ..
        } = &self.settings;
        let sent = Instant::now();
        match self.store.claim_leases(node, *crawl, room, *ttl) {
            Ok(claims) if !claims.is_empty() => {
                let claimed: Vec<String> = claims.iter().map(|c| c.pld.clone()).collect();
                let lapsed = claims
                    .into_iter()
                    .filter(|c| c.lapsed)
                    .map(|c| c.pld)
                    .collect();
                self.deadlines.extend(&claimed, sent, *ttl);
                self.held.extend(claimed.iter().cloned());
                self.claim_wait = CLAIM_INTERVAL;
                self.load_rows(claimed, lapsed);
            }
            Ok(_) => self.claim_wait = (self.claim_wait * 2).min(MAX_CLAIM_WAIT),
            Err(error) => {
                tracing::warn!(%error, "claiming PLDs: {error}");
                self.claim_wait = (self.claim_wait * 2).min(MAX_CLAIM_WAIT);
                self.reconnect_after(&error);
            }
        }
    }

    /// Sends the frontier rows of held PLDs: all rows of those just `claimed` (`lapsed`
    /// among them were taken over from a lapsed lease), rows newer than the last read of the
    /// others.
    fn load_rows(&mut self, claimed: Vec<String>, lapsed: Vec<String>) {
        let crawl = self.settings.crawl;
        let others: Vec<String> = self
            .held
            .iter()
            .filter(|pld| !claimed.contains(pld))
            .cloned()
            .collect();
        if claimed.is_empty() && others.is_empty() {
            return;
        }
        let store = &mut self.store;
        let seen_id = self.seen_id;
        let read = (|| {
            let mut rows = FrontierRows::default();
            if !claimed.is_empty() {
                rows = store.frontier_of_plds(crawl, &claimed, 0)?;
            }
            if others.is_empty() {
                return Ok((rows, seen_id));
            }
            let newer = store.frontier_of_plds(crawl, &others, seen_id)?;
            rows.queued.extend(newer.queued);
            rows.done.extend(newer.done);
            Ok::<_, BackendError>((rows, newer.last_id))
        })();
        match read {
            Ok((rows, seen_id)) => {
                self.seen_id = seen_id;
                self.send(LeaseEvent::Rows {
                    claimed,
                    lapsed,
                    queued: rows.queued,
                    done: rows.done,
                });
            }
            Err(error) => {
                // The claimed PLDs cannot be crawled without their rows: give them back.
                let held = &self.held;
                tracing::warn!(plds = ?held, %error, "reading the frontier of {held:?}: {error}");
                if !claimed.is_empty() {
                    self.deadlines.end(&claimed);
                    for pld in &claimed {
                        self.held.remove(pld);
                    }
                    let _ = self
                        .store
                        .release(&self.settings.node, self.settings.crawl, &claimed);
                }
            }
        }
    }

    /// On the way out: whatever is still held is released, kept from others for a whole
    /// lease lifetime since this node's last request to it may have been just now.
    fn release_all(&mut self) {
        if let Err(error) = self.store.leave(self.settings.crawl, &self.settings.node) {
            tracing::debug!(%error, "leaving the crawl: {error}");
        }
        if self.held.is_empty() {
            return;
        }
        let held: Vec<String> = self.held.iter().cloned().collect();
        self.deadlines.end(&held);
        let plds: Vec<(String, Duration)> = self
            .held
            .iter()
            .map(|pld| (pld.clone(), self.settings.ttl))
            .collect();
        if let Err(error) =
            self.store
                .release_after(&self.settings.node, self.settings.crawl, &plds)
        {
            tracing::warn!(%error, "releasing PLD leases: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_are_renewed_well_before_they_lapse() {
        assert_eq!(
            renew_interval(Duration::from_secs(2)),
            Duration::from_secs(2) / 3
        );
        assert_eq!(
            renew_interval(Duration::from_secs(30)),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn node_names_default_to_the_host_name_and_are_checked() {
        let mut options = CrawlOptions::new("/tmp/x");
        options.node = Some("n1".into());
        assert_eq!(node_name(&options).unwrap(), "n1");
        options.node = Some("bad name".into());
        assert!(node_name(&options).is_err());
    }
}
