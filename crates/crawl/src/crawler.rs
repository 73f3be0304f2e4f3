//! The crawl loop: takes URLs from ready PLDs, checks robots.txt (fetching it first when
//! unknown), fetches, extracts links on a blocking thread, follows redirects in the same
//! round, backs off on 429/503, and hands every fetch to the archiver thread.

mod shorter_paths;

use shorter_paths::SentElsewhere;

use std::collections::{HashMap, HashSet};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;
use url::Url;

use super::archived;
use super::archiver::{
    ArchiveJob, Archiver, ArchiverOptions, ArchiverStats, CaptureJob, CommitAck, CommitStore,
    ParseSummary,
};
use super::failures::FailureReport;
use super::frontier::{
    Added, Frontier, NewUrl, PldId, UrlId, UrlKind, UrlState as FrontierUrlState,
};
use super::http::{Fetch, HttpClient, NetConfig, ProxyConfig, ResolveRule, TrustConfig};
use super::lease_deadline::{LeaseDeadlines, RequestGate};
use super::options::CrawlOptions;
use super::politeness::{Remembered, remember_local, remember_shared};
use super::robots::{RobotsCache, RobotsPolicy, origin_key, product_token, robots_url};
use super::shared::{self, LeaseEvent, LeaseKeeper, SharedSettings};
use ldwarc_archive::archive::ArchiveWriterOptions;
use ldwarc_rdf::{ContextSource, LinkOptions};
use ldwarc_state::{
    BackendResult, Change, FetchLogEntry, FetchedEntry, FrontierEntry, PgStateStore, StateBackend,
    StateReader, StateStore, UrlState,
};
use ldwarc_surt::pay_level_domain;

/// How a crawl went.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CrawlSummary {
    /// The crawl's id in the state store.
    pub crawl: i64,
    /// Whether it continued an interrupted crawl.
    pub resumed: bool,
    /// The last round.
    pub rounds: u32,
    /// Requests sent (documents, robots.txt, redirects).
    pub requests: u64,
    /// Captures written.
    pub captures: u64,
    /// Of which revisits.
    pub revisits: u64,
    /// Failed fetches.
    pub failed: u64,
    /// URLs excluded by robots.txt.
    pub excluded: u64,
    /// Fetches not logged because this node had lost the PLD's lease (shared store).
    pub lease_lost: u64,
    /// Payload bytes received.
    pub payload_bytes: u64,
    /// Bytes written to WARC files.
    pub warc_bytes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Documents (captures) per second.
    pub documents_per_second: f64,
    /// Peak resident memory of the process, when the system tells.
    pub peak_rss_bytes: Option<u64>,
    /// Files a crash had left open, recovered at the start.
    pub recovered_files: usize,
    /// Failed fetches by cause, the first ones with their message, and how many seeds
    /// could be fetched.
    pub failures: FailureReport,
    /// URLs found but not taken into the frontier, by the bound that left them out.
    pub dropped: DroppedUrls,
}

/// URLs found in documents (links, redirect targets, JSON-LD contexts) that the crawl did not
/// take into its frontier, by the bound that left them out: a site linking ever more new URLs
/// costs bounded memory and state, and the report says what was left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DroppedUrls {
    /// New links of one document beyond `--max-links`.
    pub over_max_links: u64,
    /// New URLs of a PLD that had `--max-frontier-per-pld` URLs already.
    pub over_max_frontier_per_pld: u64,
    /// New URLs while the frontier had `--max-frontier` URLs already.
    pub over_max_frontier: u64,
}

impl DroppedUrls {
    /// All URLs dropped.
    pub fn total(&self) -> u64 {
        self.over_max_links + self.over_max_frontier_per_pld + self.over_max_frontier
    }
}

/// What the progress display shows.
#[derive(Debug, Clone, Default)]
pub struct CrawlProgress {
    /// Current round.
    pub round: u32,
    /// Requests sent.
    pub requests: u64,
    /// What the archiver counted.
    pub archived: ArchiverStats,
    /// Requests in flight.
    pub in_flight: usize,
    /// PLDs with queued work or a request in flight.
    pub active_plds: usize,
    /// URLs queued (this round, next round).
    pub queued: (usize, usize),
    /// Seconds since the start.
    pub seconds: f64,
}

/// Why a crawl could not run.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// Bad options.
    #[error("{0}")]
    Options(String),
    /// The archive, index or state store failed.
    #[error(transparent)]
    Archive(#[from] super::archiver::ArchiverError),
    /// Starting the runtime failed.
    #[error("starting the crawler: {0}")]
    Io(#[from] std::io::Error),
}

/// How many finished fetches wait for the archiver at most: one per connection. What waits
/// there is fetched but not yet committed, so a kill loses it and `--resume` fetches it again;
/// a kill repeats at most the fetches in flight, these, and the one being committed. A
/// longer queue (it held 256) let a kill repeat far more than was in flight; the crawl
/// waits for the archiver instead.
pub fn archiver_queue_len(concurrency: usize) -> usize {
    concurrency.max(1)
}

/// What a crawl starts from: the store the archiver commits to, the crawl, and (embedded
/// store) the stored frontier and a reader for conditional requests.
struct Opened {
    commit: CommitStore,
    crawl: i64,
    round: u32,
    resumed: bool,
    frontier_rows: Option<(Vec<FrontierEntry>, Vec<FetchedEntry>)>,
    reader: Option<StateReader>,
    shared: Option<SharedSettings>,
    /// Last contacts and fresh robots.txt answers of earlier crawls.
    remembered: Remembered,
}

/// Runs a crawl to its end. With a shared (PostgreSQL) store this node crawls the PLDs it
/// holds leases on, and returns once no URL of the crawl is queued on any node.
pub fn crawl(
    options: CrawlOptions,
    on_progress: &(dyn Fn(&CrawlProgress) + Sync),
) -> Result<CrawlSummary, CrawlError> {
    let started = std::time::Instant::now();
    let client = http_client(&options)?;
    let opened = match &options.state {
        Some(database) => open_shared(&options, database)?,
        None => open_local(&options)?,
    };
    let (archiver, recoveries) = Archiver::open(
        ArchiverOptions {
            root: options.root.clone(),
            writer: writer_options(&options)?,
            crawl: opened.crawl,
        },
        opened.commit,
    )?;
    // The archive exists from the start, once the settings are accepted: a crawl that
    // fetches nothing still made one, which the reading commands accept as an empty archive.
    let warc_dir = options.root.join("warc");
    std::fs::create_dir_all(&warc_dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", warc_dir.display())))?;
    let (jobs, job_receiver) = sync_channel(archiver_queue_len(options.concurrency));
    let stats = Arc::new(Mutex::new(ArchiverStats::default()));
    let archiver_stats = Arc::clone(&stats);
    let archiver_thread = std::thread::Builder::new()
        .name("ldwarc-archiver".into())
        .spawn(move || {
            archiver.run(job_receiver, &|s| {
                if let Ok(mut shared) = archiver_stats.lock() {
                    *shared = s.clone();
                }
            })
        })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let shared = match &opened.shared {
        Some(settings) => Some(SharedFrontier::start(settings.clone())?),
        None => None,
    };
    let crawl_id = opened.crawl;
    tracing::info!(crawl = crawl_id, round = opened.round, "crawl started");
    let mut crawler = Crawler::new(options.clone(), client, opened.reader, jobs, opened.round);
    crawler.shared = shared;
    crawler.remember(opened.remembered);
    crawler.load(opened.frontier_rows);
    let requests = runtime.block_on(crawler.run(&stats, on_progress, started));
    let failures = std::mem::take(&mut crawler.failures);
    let dropped = crawler.dropped;
    if dropped.total() > 0 {
        tracing::warn!(
            over_max_links = dropped.over_max_links,
            over_max_frontier_per_pld = dropped.over_max_frontier_per_pld,
            over_max_frontier = dropped.over_max_frontier,
            "URLs left out of the frontier by its bounds"
        );
    }
    drop(crawler);
    drop(runtime);
    let final_stats = archiver_thread
        .join()
        .map_err(|_| CrawlError::Options("the archiver thread panicked".into()))??;
    let round = requests.1;
    finish(&options, &opened.shared, crawl_id, round)?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(CrawlSummary {
        crawl: crawl_id,
        resumed: opened.resumed,
        rounds: round,
        requests: requests.0,
        captures: final_stats.captures,
        revisits: final_stats.revisits,
        failed: final_stats.failed,
        excluded: final_stats.excluded,
        lease_lost: final_stats.lease_lost,
        payload_bytes: final_stats.payload_bytes,
        warc_bytes: final_stats.warc_bytes,
        seconds,
        documents_per_second: final_stats.captures as f64 / seconds.max(1e-9),
        peak_rss_bytes: peak_rss(),
        recovered_files: recoveries.len(),
        failures,
        dropped,
    })
}

/// The embedded store under the root: a new crawl, or the interrupted one resumed.
fn open_local(options: &CrawlOptions) -> Result<Opened, CrawlError> {
    let state_dir = ldwarc_archive::archive::Archive::new(&options.root).state_dir();
    let store = StateStore::open(&state_dir).map_err(archiver_error)?;
    let (crawl, round, resumed) = open_crawl(&store, options)?;
    let reader = StateReader::open(&state_dir).map_err(archiver_error)?;
    let frontier_rows = if resumed {
        let (queued, _) = store.frontier(crawl).map_err(archiver_error)?;
        Some((queued, store.fetched(crawl).map_err(archiver_error)?))
    } else {
        None
    };
    let remembered = remember_local(&store, options).map_err(archiver_error)?;
    Ok(Opened {
        remembered,
        commit: CommitStore::Local(store),
        crawl,
        round,
        resumed,
        frontier_rows,
        reader: Some(reader),
        shared: None,
    })
}

/// A shared PostgreSQL store: a new crawl, or one that other nodes run, joined. The
/// frontier comes in PLD by PLD as leases are claimed.
fn open_shared(options: &CrawlOptions, database: &str) -> Result<Opened, CrawlError> {
    let node = shared::node_name(options)?;
    let mut store = PgStateStore::connect(database).map_err(shared::store_error)?;
    store.follow_shorter_paths(options.hops);
    let (crawl, round, resumed) =
        shared::open_shared_crawl(&mut store, options, &describe_options(options))?;
    let remembered = remember_shared(&mut store, options).map_err(shared::store_error)?;
    Ok(Opened {
        remembered,
        commit: CommitStore::Shared {
            store: Box::new(store),
            node: node.clone(),
        },
        crawl,
        round,
        resumed,
        frontier_rows: None,
        reader: None,
        shared: Some(SharedSettings {
            database: database.to_string(),
            node,
            crawl,
            ttl: options.lease_ttl,
            max_plds: options.max_plds.unwrap_or(options.concurrency).max(1),
        }),
    })
}

/// Records the last round and marks the crawl finished (a shared crawl is finished only
/// when the crawl loop saw no URL queued on any node, which is the only way it returns).
fn finish(
    options: &CrawlOptions,
    shared: &Option<SharedSettings>,
    crawl: i64,
    round: u32,
) -> Result<(), CrawlError> {
    if let Some(settings) = shared {
        let mut store = PgStateStore::connect(&settings.database).map_err(shared::store_error)?;
        return StateBackend::finish_crawl(&mut store, crawl, Utc::now())
            .map_err(shared::store_error);
    }
    let state_dir = ldwarc_archive::archive::Archive::new(&options.root).state_dir();
    let store = StateStore::open(&state_dir).map_err(archiver_error)?;
    store.set_round(crawl, round).map_err(archiver_error)?;
    store
        .finish_crawl(crawl, Utc::now())
        .map_err(archiver_error)
}

fn archiver_error(error: ldwarc_state::StoreError) -> CrawlError {
    CrawlError::Archive(error.into())
}

/// The options a crawl row records.
fn describe_options(options: &CrawlOptions) -> String {
    serde_json::json!({
        "seeds": options.seeds.len(),
        "hops": options.hops,
        "delay": options.delay.as_secs_f64(),
        "concurrency": options.concurrency,
        "user_agent": options.user_agent,
    })
    .to_string()
}

/// Starts a new crawl, or finds the interrupted one to resume.
fn open_crawl(store: &StateStore, options: &CrawlOptions) -> Result<(i64, u32, bool), CrawlError> {
    let now = Utc::now();
    if options.resume {
        return match store.unfinished_crawl().map_err(archiver_error)? {
            Some(run) => Ok((run.id, run.round, true)),
            None => Err(CrawlError::Options(format!(
                "{}: no interrupted crawl to resume",
                options.root.display()
            ))),
        };
    }
    if options.seeds.is_empty() {
        return Err(CrawlError::Options(
            "no seed URLs given (pass URLs, @FILE, or seeds in ldwarc.toml)".into(),
        ));
    }
    let id = store
        .start_crawl(now, &describe_options(options))
        .map_err(archiver_error)?;
    store.abandon_unfinished(id, now).map_err(archiver_error)?;
    Ok((id, 0, false))
}

fn http_client(options: &CrawlOptions) -> Result<HttpClient, CrawlError> {
    let resolve = options
        .resolve
        .iter()
        .map(|rule| {
            rule.parse::<ResolveRule>()
                .map_err(|e| CrawlError::Options(format!("--resolve {rule}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let proxy = match &options.proxy {
        Some(text) => Some(
            Url::parse(text).map_err(|e| CrawlError::Options(format!("--proxy {text}: {e}")))?,
        ),
        None => None,
    };
    let config = NetConfig {
        connect_timeout: options.connect_timeout,
        total_timeout: options.timeout,
        max_body: options.max_body,
        resolve,
        proxy: ProxyConfig::from_env().with_override(proxy),
        trust: TrustConfig::with_env(options.tls_roots, options.ca_files.clone(), |name| {
            std::env::var_os(name)
        }),
        ..NetConfig::default()
    };
    HttpClient::new(config).map_err(|e| CrawlError::Options(e.to_string()))
}

fn writer_options(options: &CrawlOptions) -> Result<ArchiveWriterOptions, CrawlError> {
    let defaults = ArchiveWriterOptions::default();
    // The node's name goes into every file name, so the roots of different nodes can be
    // merged without two files of the same name.
    let hostname = match &options.node {
        Some(node) => {
            super::options::check_node_name(node).map_err(CrawlError::Options)?;
            node.clone()
        }
        None => defaults.hostname.clone(),
    };
    Ok(ArchiveWriterOptions {
        hostname,
        max_file_bytes: options.max_file_bytes,
        gzip_level: options.gzip_level,
        operator: options.operator.clone(),
        extra_info: vec![
            ("http-header-user-agent".into(), options.user_agent.clone()),
            ("http-header-accept".into(), options.accept.clone()),
        ],
        ..defaults
    })
}

/// Peak resident set size from `/proc/self/status` (Linux).
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A finished fetch coming back to the loop.
enum Done {
    /// The archiver is done with a document's capture (shared crawls): its PLD may be sent
    /// the next request.
    Committed {
        pld: PldId,
        finished_at: Option<Instant>,
        /// The URL, when a fence refused the commit (another node took the PLD over).
        refused: Option<UrlId>,
    },
    Document {
        id: UrlId,
        fetch: Box<Fetch>,
        conditional_on: Option<UrlState>,
        parse: Option<ldwarc_rdf::Extracted>,
        parse_error: Option<String>,
        /// The payload of a JSON-LD context, kept for parsing documents that use it.
        context_body: Option<Vec<u8>>,
    },
    Robots {
        pld: PldId,
        origin: Url,
        fetches: Vec<(Url, Fetch)>,
        policy: RobotsPolicy,
        /// Why the answer could not be read, logged with the last fetch.
        problem: Option<String>,
    },
    /// A request not sent: the PLD's lease ran out before it could go (shared crawls).
    Unsent {
        pld: PldId,
        /// The frontier URL, or `None` for robots.txt.
        id: Option<UrlId>,
        /// The origin whose robots.txt was to be fetched.
        origin: Option<Url>,
    },
}

/// JSON-LD contexts captured during this crawl, for parsing documents that use them.
#[derive(Default)]
struct CapturedContexts(Mutex<HashMap<String, Vec<u8>>>);

impl ContextSource for CapturedContexts {
    fn context(&self, url: &str) -> Option<Vec<u8>> {
        self.0.lock().ok()?.get(url).cloned()
    }
}

/// How early a PLD's next fetch starts before its delay ends (it sends only once it has).
const DISPATCH_LOOKAHEAD: Duration = Duration::from_millis(20);

/// Largest context kept in memory for parsing.
const MAX_CONTEXT_BYTES: usize = 1024 * 1024;

struct Crawler {
    options: Arc<CrawlOptions>,
    client: HttpClient,
    frontier: Frontier,
    robots: RobotsCache,
    robots_pending: HashSet<String>,
    /// The embedded store, for conditional requests (none with a shared store).
    reader: Option<StateReader>,
    /// This node's part of a shared frontier (none with the embedded store).
    shared: Option<SharedFrontier>,
    jobs: SyncSender<ArchiveJob>,
    done_tx: UnboundedSender<Done>,
    done_rx: UnboundedReceiver<Done>,
    contexts: Arc<CapturedContexts>,
    agent_token: String,
    requests: u64,
    failures: FailureReport,
    /// Why the robots.txt of an origin (by [`origin_key`]) could not be had.
    robots_unavailable: HashMap<String, String>,
    /// What fetched documents link to, for shorter paths found later.
    links_of: shorter_paths::LinksOf,
    /// URLs left out of the frontier by its bounds.
    dropped: DroppedUrls,
}

impl Crawler {
    fn new(
        options: CrawlOptions,
        client: HttpClient,
        reader: Option<StateReader>,
        jobs: SyncSender<ArchiveJob>,
        round: u32,
    ) -> Self {
        let (done_tx, done_rx) = unbounded_channel();
        let agent_token = product_token(&options.user_agent).to_string();
        Self {
            frontier: Frontier::new(round, options.delay),
            options: Arc::new(options),
            client,
            robots: RobotsCache::default(),
            robots_pending: HashSet::new(),
            reader,
            shared: None,
            jobs,
            done_tx,
            done_rx,
            contexts: Arc::default(),
            agent_token,
            requests: 0,
            failures: FailureReport::default(),
            robots_unavailable: HashMap::new(),
            links_of: shorter_paths::LinksOf::default(),
            dropped: DroppedUrls::default(),
        }
    }

    /// Takes over what earlier crawls left: fresh robots.txt answers (with their
    /// `Crawl-delay`), then each PLD's last contact, so that its first request in this crawl
    /// still comes its delay after the last one.
    fn remember(&mut self, remembered: Remembered) {
        let now_utc = Utc::now();
        let now = Instant::now();
        for robots in remembered.robots {
            let left = (robots.expires - now_utc).to_std().unwrap_or_default();
            if let (Some(delay), Some(host)) = (robots.policy.crawl_delay(), robots.url.host_str())
            {
                let pld = self.frontier.pld(&pay_level_domain(host));
                self.frontier
                    .raise_delay(pld, delay.min(self.options.max_crawl_delay));
            }
            self.robots
                .insert_until(&robots.url, robots.policy, now + left);
        }
        for (name, ended) in remembered.contacts {
            let pld = self.frontier.pld(&name);
            let Ok(delay) = chrono::Duration::from_std(self.frontier.delay(pld)) else {
                continue;
            };
            if let Ok(wait) = (ended + delay - now_utc).to_std() {
                self.frontier.hold_until(pld, now + wait);
            }
        }
    }

    /// Fills the frontier: the stored one of a resumed crawl (plus any new seeds), or the
    /// seeds.
    fn load(&mut self, stored: Option<(Vec<FrontierEntry>, Vec<FetchedEntry>)>) {
        if let Some((queued, fetched)) = stored {
            for row in fetched {
                self.add_fetched(row);
            }
            for entry in queued {
                self.add_stored(entry);
            }
        }
        if self.shared.is_some() {
            self.send_seeds_to_shared_frontier();
            return;
        }
        let mut seeds = Vec::new();
        for seed in self.options.seeds.clone() {
            let Some(url) = crawlable_text(&seed) else {
                tracing::warn!(%seed, "skipping seed {seed}: not an http(s) URL");
                continue;
            };
            let new = NewUrl {
                pld: url.host_str().map(pay_level_domain).unwrap_or_default(),
                url: url.into(),
                hops: 0,
                redirects: 0,
                via: None,
                path: String::new(),
                kind: UrlKind::Link,
                round: self.frontier.round(),
                inlinks: 0,
            };
            if let Added::New(id) = self.frontier.add(new) {
                seeds.push(self.frontier_entry(id));
            }
        }
        if !seeds.is_empty() {
            self.send(ArchiveJob::Enqueue(seeds));
        }
    }

    /// Queues a URL read back from the store.
    fn add_stored(&mut self, entry: FrontierEntry) {
        let kind = shorter_paths::kind_of_path(&entry.path);
        let pld = ldwarc_surt::pld_of_url(&entry.url);
        self.frontier.add(NewUrl {
            url: entry.url,
            pld,
            hops: entry.hops,
            redirects: entry.redirects,
            via: None,
            path: entry.path,
            kind,
            round: entry.round,
            inlinks: entry.inlinks,
        });
    }

    /// A shared crawl's seeds go to the shared frontier only: they come back to the node
    /// that claims their PLD.
    fn send_seeds_to_shared_frontier(&mut self) {
        let seeds: Vec<FrontierEntry> = self
            .options
            .seeds
            .iter()
            .filter_map(|seed| {
                let url = crawlable_text(seed);
                if url.is_none() {
                    tracing::warn!(%seed, "skipping seed {seed}: not an http(s) URL");
                }
                url
            })
            .map(|url| FrontierEntry {
                url: url.into(),
                hops: 0,
                round: 0,
                inlinks: 0,
                via: None,
                path: String::new(),
                redirects: 0,
            })
            .collect();
        if !seeds.is_empty() {
            self.send(ArchiveJob::Enqueue(seeds));
        }
    }

    fn frontier_entry(&self, id: UrlId) -> FrontierEntry {
        let entry = self.frontier.entry(id);
        FrontierEntry {
            url: entry.url.to_string(),
            hops: entry.hops,
            round: entry.round,
            inlinks: entry.inlinks,
            via: entry.via.map(|v| self.frontier.entry(v).url.to_string()),
            path: entry.path.to_string(),
            redirects: entry.redirects,
        }
    }

    fn send(&self, job: ArchiveJob) {
        // The archiver only stops early on a fatal error, which it reports when joined.
        let _ = self.jobs.send(job);
    }

    async fn run(
        &mut self,
        stats: &Mutex<ArchiverStats>,
        on_progress: &(dyn Fn(&CrawlProgress) + Sync),
        started: std::time::Instant,
    ) -> (u64, u32) {
        let mut last_progress = Instant::now();
        loop {
            if self.frontier.round_over(self.options.concurrency) {
                if !self.frontier.advance_round() {
                    if self.frontier.finished() && self.may_stop() {
                        break;
                    }
                } else {
                    self.send(ArchiveJob::Round(self.frontier.round()));
                }
            }
            self.dispatch();
            self.release_idle_plds();
            if self.frontier.finished() && !self.frontier.advance_round() && self.may_stop() {
                break;
            }
            let wakeup = self
                .frontier
                .next_wakeup()
                .map(|at| at.checked_sub(DISPATCH_LOOKAHEAD).unwrap_or(at))
                .unwrap_or_else(|| Instant::now() + Duration::from_millis(250))
                .min(Instant::now() + Duration::from_millis(250));
            tokio::select! {
                done = self.done_rx.recv() => {
                    if let Some(done) = done {
                        self.handle(done);
                    }
                }
                event = next_lease_event(&mut self.shared) => {
                    if let Some(event) = event {
                        self.handle_lease_event(event);
                    }
                }
                _ = tokio::time::sleep_until(wakeup) => {}
            }
            while let Ok(done) = self.done_rx.try_recv() {
                self.handle(done);
            }
            while let Some(event) = self.shared.as_mut().and_then(|s| s.events.try_recv().ok()) {
                self.handle_lease_event(event);
            }
            if last_progress.elapsed() >= Duration::from_millis(200) {
                last_progress = Instant::now();
                on_progress(&CrawlProgress {
                    round: self.frontier.round(),
                    requests: self.requests,
                    archived: stats.lock().map(|s| s.clone()).unwrap_or_default(),
                    in_flight: self.frontier.in_flight(),
                    active_plds: self.frontier.active_plds(),
                    queued: self.frontier.queued(),
                    seconds: started.elapsed().as_secs_f64(),
                });
            }
        }
        (self.requests, self.frontier.round())
    }

    /// Starts fetches on every ready PLD while connections are free.
    fn dispatch(&mut self) {
        let now = Instant::now();
        while self.frontier.in_flight() < self.options.concurrency {
            // A PLD whose delay ends within the lookahead is started now: the fetch connects
            // at once and sends at `not_before`, so connecting and waking up cost no time
            // beyond the delay.
            let Some(pld) = self.frontier.next_ready_pld(now + DISPATCH_LOOKAHEAD) else {
                break;
            };
            let not_before = self.frontier.next_allowed(pld).max(now);
            let Some(id) = self.frontier.take(pld) else {
                continue;
            };
            let url_text = self.frontier.entry(id).url.to_string();
            let Ok(url) = Url::parse(&url_text) else {
                self.frontier.done(id);
                self.frontier.release(pld, None);
                continue;
            };
            match self.robots.policy(&url, now) {
                None => {
                    self.frontier.put_back(id);
                    self.frontier.occupy(pld);
                    let origin = origin_key(&url);
                    if self.robots_pending.insert(origin) {
                        self.fetch_robots(pld, url, not_before);
                    }
                }
                Some(policy) if !policy.allows(url.as_str()) => {
                    self.exclude(id);
                    self.frontier.release(pld, None);
                }
                Some(_) => self.fetch_document(id, url, not_before),
            }
        }
    }

    fn exclude(&mut self, id: UrlId) {
        self.frontier.done(id);
        let entry = self.frontier.entry(id);
        if is_seed(entry) {
            self.failures.note_excluded_seed();
        }
        let unavailable = Url::parse(&entry.url)
            .ok()
            .and_then(|url| self.robots_unavailable.get(&origin_key(&url)));
        let error = match unavailable {
            Some(reason) => format!("disallowed: robots.txt unavailable ({reason})"),
            None => "disallowed by robots.txt".into(),
        };
        self.send(ArchiveJob::LogOnly {
            entry: Box::new(FetchLogEntry {
                url: entry.url.to_string(),
                time: Utc::now(),
                round: self.frontier.round(),
                hops: entry.hops,
                kind: "document".into(),
                status: None,
                duration: None,
                bytes: None,
                digest: None,
                change: Change::Excluded,
                error: Some(error),
                content_type: None,
                outlinks: None,
                record: None,
            }),
            done: true,
        });
    }

    fn request_headers(&self, accept: &str, state: Option<&UrlState>) -> Vec<(String, String)> {
        let mut headers = vec![
            ("User-Agent".to_string(), self.options.user_agent.clone()),
            ("Accept".to_string(), accept.to_string()),
        ];
        if !self.options.accept_encoding.is_empty() {
            headers.push((
                "Accept-Encoding".into(),
                self.options.accept_encoding.clone(),
            ));
        }
        if let Some(state) = state {
            if let Some(etag) = &state.etag {
                headers.push(("If-None-Match".into(), etag.clone()));
            }
            if let Some(modified) = &state.last_modified {
                headers.push(("If-Modified-Since".into(), modified.clone()));
            }
        }
        headers
    }

    fn fetch_document(&mut self, id: UrlId, url: Url, not_before: Instant) {
        self.requests += 1;
        let conditional_on = match (&self.reader, self.options.conditional) {
            (Some(reader), true) => reader
                .url_state(url.as_str())
                .unwrap_or_else(|error| {
                    tracing::warn!(%url, %error, "{error}; fetching {url} without validators");
                    None
                })
                .filter(|s| s.record.is_some() && (s.etag.is_some() || s.last_modified.is_some())),
            _ => None,
        };
        let headers = self.request_headers(&self.options.accept, conditional_on.as_ref());
        let client = self.client.clone();
        let options = Arc::clone(&self.options);
        let contexts = Arc::clone(&self.contexts);
        let is_context = self.frontier.entry(id).kind == UrlKind::Context;
        let pld = self.frontier.entry(id).pld;
        let gate = self.request_gate(pld);
        let done = self.done_tx.clone();
        tokio::spawn(async move {
            if let Some(gate) = gate
                && !gate.open_at(not_before).await
            {
                let _ = done.send(Done::Unsent {
                    pld,
                    id: Some(id),
                    origin: None,
                });
                return;
            }
            let mut fetch = client.fetch(&url, &headers, not_before).await;
            let context_body = match &mut fetch.outcome {
                Ok(response) if is_context && (200..300).contains(&response.status) => {
                    let encoding = response.header("Content-Encoding").map(str::to_string);
                    response
                        .body
                        .prefix(MAX_CONTEXT_BYTES)
                        .ok()
                        .and_then(|raw| {
                            ldwarc_rdf::decode_content(encoding.as_deref(), &raw, MAX_CONTEXT_BYTES)
                                .ok()
                        })
                }
                _ => None,
            };
            let payload = match &mut fetch.outcome {
                Ok(response) if (200..300).contains(&response.status) => {
                    let content_type = response.header("Content-Type").map(str::to_string);
                    let encoding = response.header("Content-Encoding").map(str::to_string);
                    Some(
                        response
                            .body
                            .prefix(options.max_parse)
                            .map(|prefix| (content_type, encoding, prefix)),
                    )
                }
                Ok(response) if response.status == 304 => {
                    // Not modified: the links are those of the archived original.
                    let original = conditional_on.as_ref().and_then(|s| s.record.clone());
                    original.map(|record| {
                        archived::payload_prefix(&options.root, &record, options.max_parse).map(
                            |(head, prefix)| {
                                let content_type = head.header("Content-Type").map(str::to_string);
                                let encoding = head.header("Content-Encoding").map(str::to_string);
                                (content_type, encoding, prefix)
                            },
                        )
                    })
                }
                _ => None,
            };
            let (parse, parse_error) = match payload {
                Some(Ok((content_type, encoding, prefix))) => {
                    let base = url.to_string();
                    let options = Arc::clone(&options);
                    let contexts = Arc::clone(&contexts);
                    tokio::task::spawn_blocking(move || {
                        extract(
                            &options,
                            &contexts,
                            &base,
                            content_type,
                            encoding,
                            prefix,
                            is_context,
                        )
                    })
                    .await
                    .unwrap_or_else(|e| (None, Some(format!("link extraction failed: {e}"))))
                }
                Some(Err(e)) => (None, Some(format!("reading the payload: {e}"))),
                None => (None, None),
            };
            let _ = done.send(Done::Document {
                id,
                fetch: Box::new(fetch),
                conditional_on,
                parse,
                parse_error,
                context_body,
            });
        });
    }

    fn fetch_robots(&mut self, pld: PldId, url: Url, not_before: Instant) {
        let Some(first) = robots_url(&url) else {
            // Only a URL without a host has no robots.txt; frontier URLs always have one.
            self.robots
                .insert(&url, RobotsPolicy::AllowAll, Instant::now());
            self.robots_pending.remove(&origin_key(&url));
            self.frontier.release(pld, None);
            return;
        };
        self.requests += 1;
        let headers = self.request_headers("text/plain, */*;q=0.1", None);
        let client = self.client.clone();
        let delay = self.frontier.delay(pld);
        let agent = self.agent_token.clone();
        let max_decoded = self.options.max_decoded;
        let done = self.done_tx.clone();
        let origin = url;
        let gate = self.request_gate(pld);
        tokio::spawn(async move {
            let mut fetches: Vec<(Url, Fetch)> = Vec::new();
            let mut target = first;
            let mut not_before = not_before;
            let mut problem = None;
            let policy = loop {
                if let Some(gate) = &gate
                    && !gate.open_at(not_before).await
                {
                    let _ = done.send(Done::Unsent {
                        pld,
                        id: None,
                        origin: Some(origin),
                    });
                    return;
                }
                let mut fetch = client.fetch(&target, &headers, not_before).await;
                not_before = super::clock::later_tokio(
                    finished_at(&fetch).unwrap_or_else(Instant::now),
                    delay,
                );
                let (status, location, body) = match &mut fetch.outcome {
                    Ok(response) => {
                        let encoding = response.header("Content-Encoding").map(str::to_string);
                        // Only a 2xx answer's rules are read (RFC 9309 §2.3.1).
                        let body = if !(200..300).contains(&response.status) {
                            Ok(Vec::new())
                        } else {
                            response
                                .body
                                .prefix(super::robots::MAX_ROBOTS_BYTES)
                                .map_err(|e| e.to_string())
                                .and_then(|raw| {
                                    ldwarc_rdf::decode_content(
                                        encoding.as_deref(),
                                        &raw,
                                        max_decoded.min(super::robots::MAX_ROBOTS_BYTES * 4),
                                    )
                                    .map_err(|e| e.to_string())
                                })
                        };
                        let body = match body {
                            Ok(body) => Some(body),
                            Err(error) => {
                                problem = Some(format!(
                                    "robots.txt unreadable ({error}): the host is treated as disallowed"
                                ));
                                None
                            }
                        };
                        let location = response
                            .header("Location")
                            .and_then(|l| target.join(l).ok());
                        (Some(response.status), location, body)
                    }
                    Err(_) => (None, None, Some(Vec::new())),
                };
                fetches.push((target.clone(), fetch));
                let seen: Vec<&Url> = fetches.iter().map(|(url, _)| url).collect();
                match super::robots_hops::next_robots_hop(status, location, &seen) {
                    Some(next) => target = next,
                    None => match body {
                        Some(body) => break RobotsPolicy::from_response(status, &body, &agent),
                        None => break RobotsPolicy::DisallowAll,
                    },
                }
            };
            let _ = done.send(Done::Robots {
                pld,
                origin,
                fetches,
                policy,
                problem,
            });
        });
    }

    fn handle(&mut self, done: Done) {
        match done {
            Done::Robots {
                pld,
                origin,
                fetches,
                policy,
                problem,
            } => self.handle_robots(pld, origin, fetches, policy, problem),
            Done::Document {
                id,
                fetch,
                conditional_on,
                parse,
                parse_error,
                context_body,
            } => {
                if let Some(body) = context_body {
                    let url = self.frontier.entry(id).url.to_string();
                    if let Ok(mut contexts) = self.contexts.0.lock() {
                        contexts.insert(url, body);
                    }
                }
                self.handle_document(id, *fetch, conditional_on, parse, parse_error)
            }
            Done::Unsent { pld, id, origin } => self.handle_unsent(pld, id, origin),
            Done::Committed {
                pld,
                finished_at,
                refused,
            } => {
                self.frontier.release(pld, finished_at);
                if let Some(id) = refused {
                    // Still queued in the shared frontier: were it left done here, this node
                    // would skip it each time it claimed the PLD again, and release the PLD
                    // as idle while the crawl waits for that URL.
                    let held = self.shared.as_ref().is_some_and(|s| s.held.contains(&pld));
                    self.frontier.not_committed(id, held);
                }
                self.drop_unless_held(pld);
            }
        }
    }

    /// Checked right before each request of a shared crawl: the PLD's lease deadline.
    fn request_gate(&self, pld: PldId) -> Option<RequestGate> {
        let shared = self.shared.as_ref()?;
        Some(RequestGate::new(
            Arc::clone(&shared.deadlines),
            self.frontier.pld_name(pld),
        ))
    }

    /// A request the lease deadline stopped: the URL is left queued (for whichever node holds
    /// the lease next) and this node gives the lease up, since it can no longer vouch for it.
    fn handle_unsent(&mut self, pld: PldId, id: Option<UrlId>, origin: Option<Url>) {
        match id {
            Some(id) => self.frontier.unsent(id),
            None => self.frontier.release(pld, None),
        }
        if let Some(origin) = origin {
            self.robots_pending.remove(&origin_key(&origin));
        }
        let name = self.frontier.pld_name(pld).to_string();
        let Some(shared) = &mut self.shared else {
            return;
        };
        if shared.held.remove(&pld) {
            tracing::warn!(
                pld = %name,
                "the lease on {name} ran out before it could be renewed; its URLs are left to the node that takes it"
            );
            shared.deadlines.end(std::slice::from_ref(&name));
            shared.keeper.forget(vec![name]);
        }
        self.frontier.drop_pld(pld);
    }

    fn handle_robots(
        &mut self,
        pld: PldId,
        origin: Url,
        fetches: Vec<(Url, Fetch)>,
        policy: RobotsPolicy,
        problem: Option<String>,
    ) {
        if let Some(delay) = policy.crawl_delay() {
            self.frontier
                .raise_delay(pld, delay.min(self.options.max_crawl_delay));
        }
        self.robots.insert(&origin, policy, Instant::now());
        self.robots_pending.remove(&origin_key(&origin));
        let mut unavailable = None;
        if let Some((url, fetch)) = fetches.last() {
            unavailable = self.failures.note_robots(url.as_str(), fetch);
            if let (None, Some(problem)) = (&unavailable, &problem) {
                // An answer whose body could not be read disallows the host too.
                self.failures
                    .add(url.as_str(), "robots", "protocol", problem.clone());
                unavailable = Some(problem.clone());
            }
        }
        match unavailable {
            Some(reason) => self.robots_unavailable.insert(origin_key(&origin), reason),
            None => self.robots_unavailable.remove(&origin_key(&origin)),
        };
        let last_finished = fetches.iter().rev().find_map(|(_, f)| finished_at(f));
        self.frontier.release(pld, last_finished);
        self.drop_unless_held(pld);
        let last = fetches.len().saturating_sub(1);
        let mut problem = problem;
        for (index, (url, fetch)) in fetches.into_iter().enumerate() {
            let note = if index == last { problem.take() } else { None };
            let job = CaptureJob {
                host: url.host_str().unwrap_or("").to_string(),
                url: url.to_string(),
                kind: "robots".into(),
                round: self.frontier.round(),
                hops: 0,
                via: None,
                path: "P".into(),
                fetch,
                conditional_on: None,
                parse: None,
                new_urls: Vec::new(),
                links: Vec::new(),
                done: false,
                note,
                committed: None,
            };
            self.send(ArchiveJob::Capture(Box::new(job)));
        }
    }

    fn handle_document(
        &mut self,
        id: UrlId,
        fetch: Fetch,
        conditional_on: Option<UrlState>,
        parse: Option<ldwarc_rdf::Extracted>,
        parse_error: Option<String>,
    ) {
        let pld = self.frontier.entry(id).pld;
        let sent = finished_at(&fetch);
        let url = self.frontier.entry(id).url.to_string();
        match &fetch.outcome {
            Ok(response) => tracing::debug!(%url, status = response.status, "fetched"),
            Err(error) => tracing::info!(%url, %error, "fetch failed"),
        }
        let mut new_urls = Vec::new();
        let mut note = None;
        let mut done = true;
        if let Ok(response) = &fetch.outcome {
            let status = response.status;
            if status == 429 || status == 503 {
                let retry_after = response.header("Retry-After").and_then(parse_retry_after);
                self.frontier.back_off(
                    pld,
                    retry_after,
                    self.options.max_retry_after,
                    Instant::now(),
                );
                if self.frontier.retry(id) {
                    done = false;
                    note = Some(format!("HTTP {status}: will retry"));
                }
            } else {
                self.frontier.reset_backoff(pld);
            }
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                note = self.follow_redirect(id, response.header("Location"), &mut new_urls);
            }
        }
        let summary = parse.as_ref().map(|p| ParseSummary {
            syntax: Some(p.syntax.media_type().to_string()),
            triples: p.triples,
            outlinks: p.links.len() as u64,
            error: p.error.clone(),
            embedded: p.embedded.as_ref().map(|report| report.summary()),
        });
        let summary = summary.or_else(|| {
            parse_error.clone().map(|error| ParseSummary {
                error: Some(error),
                ..ParseSummary::default()
            })
        });
        if let Some(parse) = &parse {
            self.add_links(id, parse, &mut new_urls);
        }
        if done {
            self.frontier.done(id);
            let entry = self.frontier.entry(id);
            let kind = match entry.kind {
                UrlKind::Context => "context",
                _ => "document",
            };
            let seed = is_seed(entry);
            self.failures.note_document(&url, kind, &fetch, seed);
        }
        let committed = if self.shared.is_some() {
            let done = self.done_tx.clone();
            Some(CommitAck::new(move |refused| {
                let _ = done.send(Done::Committed {
                    pld,
                    finished_at: sent,
                    refused: refused.then_some(id),
                });
            }))
        } else {
            self.frontier.release(pld, sent);
            self.drop_unless_held(pld);
            None
        };
        let entry = self.frontier.entry(id);
        let job = CaptureJob {
            host: Url::parse(&url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default(),
            url,
            kind: match entry.kind {
                UrlKind::Context => "context",
                _ => "document",
            }
            .into(),
            round: self.frontier.round(),
            hops: entry.hops,
            via: entry.via.map(|v| self.frontier.entry(v).url.to_string()),
            path: entry.path.to_string(),
            fetch,
            conditional_on,
            parse: summary,
            new_urls,
            links: self.links_to_store(id),
            done,
            note,
            committed,
        };
        self.send(ArchiveJob::Capture(Box::new(job)));
    }

    /// Queues a redirect's target in this round; returns a note when it is not followed.
    fn follow_redirect(
        &mut self,
        id: UrlId,
        location: Option<&str>,
        new_urls: &mut Vec<FrontierEntry>,
    ) -> Option<String> {
        let entry = self.frontier.entry(id).clone();
        let Some(location) = location else {
            return Some("redirect without Location".into());
        };
        let target = Url::parse(&entry.url)
            .ok()
            .and_then(|base| base.join(location).ok())
            .and_then(crawlable);
        let Some(target) = target else {
            return Some(format!("redirect to an unusable Location: {location}"));
        };
        if entry.redirects >= self.options.max_redirects {
            return Some(format!(
                "redirect limit ({}) reached; {target} not followed",
                self.options.max_redirects
            ));
        }
        if self.in_redirect_chain(id, target.as_str()) {
            return Some(format!("redirect cycle: {target} was already in the chain"));
        }
        self.remember_links(id, vec![(target.as_str().into(), UrlKind::Redirect)]);
        self.queue(target, id, UrlKind::Redirect, new_urls);
        None
    }

    /// Queues a URL found through `via` (a link, a redirect target or a JSON-LD context);
    /// its hops, redirects, discovery path and round follow from `via` and `kind`. A URL
    /// already known only gains an in-link.
    fn queue(&mut self, url: Url, via: UrlId, kind: UrlKind, new_urls: &mut Vec<FrontierEntry>) {
        if let Some(known) = self.frontier.find(url.as_str()) {
            self.frontier.add_inlink(known);
            self.reached_again(known, via, kind, new_urls);
            return;
        }
        let pld = url.host_str().map(pay_level_domain).unwrap_or_default();
        if !self.holds(&pld) {
            self.queue_elsewhere(url, via, kind, new_urls);
            return;
        }
        if self.frontier.len() >= self.options.max_frontier {
            self.dropped.over_max_frontier += 1;
            tracing::debug!(%url, "frontier full (--max-frontier): not queued");
            return;
        }
        if self.frontier.pld_len(&pld) >= self.options.max_frontier_per_pld {
            self.dropped.over_max_frontier_per_pld += 1;
            tracing::debug!(%url, %pld, "the PLD's share of the frontier is full (--max-frontier-per-pld): not queued");
            return;
        }
        let from = self.frontier.entry(via);
        let round = self.frontier.round();
        let (hops, redirects, step, round) = match kind {
            UrlKind::Link => (from.hops + 1, 0, 'L', round + 1),
            UrlKind::Redirect => (from.hops, from.redirects + 1, 'R', round),
            UrlKind::Context => (from.hops, 0, 'X', round),
        };
        let new = NewUrl {
            pld,
            path: format!("{}{step}", from.path),
            url: url.into(),
            hops,
            redirects,
            via: Some(via),
            kind,
            round,
            inlinks: 0,
        };
        if let Added::New(new_id) = self.frontier.add(new) {
            new_urls.push(self.frontier_entry(new_id));
        }
    }

    /// Whether this node may queue (and fetch) URLs of `pld`: always with the embedded
    /// store, only while holding its lease with a shared one.
    fn holds(&self, pld: &str) -> bool {
        let Some(shared) = &self.shared else {
            return true;
        };
        self.frontier
            .find_pld(pld)
            .is_some_and(|id| shared.held.contains(&id))
    }

    /// A URL of a PLD this node does not hold goes to the shared frontier only (with the
    /// commit of the fetch it was found in), once.
    fn queue_elsewhere(
        &mut self,
        url: Url,
        via: UrlId,
        kind: UrlKind,
        new_urls: &mut Vec<FrontierEntry>,
    ) {
        let Some(shared) = &mut self.shared else {
            return;
        };
        let from = self.frontier.entry(via);
        let round = self.frontier.round();
        let (hops, redirects, step, round) = match kind {
            UrlKind::Link => (from.hops + 1, 0, 'L', round + 1),
            UrlKind::Redirect => (from.hops, from.redirects + 1, 'R', round),
            UrlKind::Context => (from.hops, 0, 'X', round),
        };
        // Sent again only by a shorter path (the store then lowers its hop count).
        if !shared.sent_elsewhere.first_or_shorter(url.as_str(), hops) {
            return;
        }
        new_urls.push(FrontierEntry {
            url: url.into(),
            hops,
            round,
            inlinks: 1,
            via: Some(from.url.to_string()),
            path: format!("{}{step}", from.path),
            redirects,
        });
    }

    /// After a request to a PLD whose lease was lost meanwhile: anything queued for it
    /// again (a retry) leaves the queues.
    fn drop_unless_held(&mut self, pld: PldId) {
        if self.shared.is_some() && !self.holds(self.frontier.pld_name(pld)) {
            self.frontier.drop_pld(pld);
        }
    }

    /// What the lease thread found: PLDs claimed with their rows, rows other nodes queued
    /// for held PLDs, or leases lost.
    fn handle_lease_event(&mut self, event: LeaseEvent) {
        match event {
            LeaseEvent::Rows {
                claimed,
                lapsed,
                queued,
                done,
            } => {
                for name in claimed {
                    let id = self.frontier.pld(&name);
                    if let Some(shared) = &mut self.shared {
                        shared.held.insert(id);
                    }
                    if lapsed.contains(&name) {
                        let wait = self.frontier.delay(id);
                        self.frontier.hold_until(id, Instant::now() + wait);
                    }
                }
                // Rows another node reached by a shorter path lower this node's counts (and
                // may bring links of fetched documents within the limit).
                let mut new_urls = Vec::new();
                for entry in done {
                    let pld = ldwarc_surt::pld_of_url(&entry.url);
                    if self.holds(&pld) {
                        self.frontier.add_done(&entry.url, &pld);
                        self.stored_with_fewer_hops(&entry, &mut new_urls);
                    }
                }
                for entry in queued {
                    if !self.holds(&ldwarc_surt::pld_of_url(&entry.url)) {
                        continue;
                    }
                    self.stored_with_fewer_hops(&entry, &mut new_urls);
                    let known = self
                        .frontier
                        .find(&entry.url)
                        .map(|id| self.frontier.entry(id).state);
                    if matches!(known, None | Some(FrontierUrlState::Released)) {
                        self.add_stored(entry);
                    }
                }
                if !new_urls.is_empty() {
                    self.send(ArchiveJob::Enqueue(new_urls));
                }
            }
            LeaseEvent::Share(share) => self.keep_share(share),
            LeaseEvent::Lost(names) => {
                for name in names {
                    tracing::warn!(
                        pld = %name,
                        "lost the lease on {name}; its URLs are left to the node holding it"
                    );
                    let Some(id) = self.frontier.find_pld(&name) else {
                        continue;
                    };
                    if let Some(shared) = &mut self.shared {
                        shared.held.remove(&id);
                    }
                    self.frontier.drop_pld(id);
                }
            }
        }
    }

    /// Gives up the leases of held PLDs with nothing queued and nothing in flight: through
    /// the archiver, so after their last write, and kept from other nodes for the PLD's delay.
    fn release_idle_plds(&mut self) {
        let Some(shared) = &mut self.shared else {
            return;
        };
        let idle: Vec<PldId> = shared
            .held
            .iter()
            .copied()
            .filter(|&id| self.frontier.pld_idle(id))
            .collect();
        if idle.is_empty() {
            return;
        }
        let mut releases = Vec::new();
        let now = Instant::now();
        for id in idle {
            shared.held.remove(&id);
            shared.deadlines.end(std::slice::from_ref(
                &self.frontier.pld_name(id).to_string(),
            ));
            // The next node waits as long as this one would have: the delay (with any
            // robots.txt Crawl-delay), or longer while a 429/503 back-off runs.
            let backing_off = self
                .frontier
                .next_allowed(id)
                .saturating_duration_since(now);
            releases.push((
                self.frontier.pld_name(id).to_string(),
                self.frontier.delay(id).max(backing_off),
            ));
        }
        shared
            .keeper
            .forget(releases.iter().map(|(name, _)| name.clone()).collect());
        self.send(ArchiveJob::Release(releases));
    }

    /// More nodes joined: PLDs beyond this node's fair `share` with no request in flight leave
    /// its queues, and are released (after their last write, with their delay as cool-down)
    /// for the other nodes to claim.
    fn keep_share(&mut self, share: usize) {
        let Some(shared) = &self.shared else {
            return;
        };
        let surplus = shared.held.len().saturating_sub(share);
        let spare = self
            .frontier
            .plds_to_hand_over(shared.held.iter().copied(), surplus);
        for id in spare {
            self.frontier.drop_pld(id);
        }
        self.release_idle_plds();
    }

    /// Whether the crawl loop may end once this node has nothing left: always with the
    /// embedded store; with a shared one, only when no URL is queued on any node (counted
    /// by the archiver after its own pending writes, every [`COUNT_INTERVAL`]).
    fn may_stop(&mut self) -> bool {
        let Some(shared) = &mut self.shared else {
            return true;
        };
        if !shared.held.is_empty() {
            return false;
        }
        if let Some(reply) = &mut shared.counting {
            let stop = match reply.try_recv() {
                Err(tokio::sync::oneshot::error::TryRecvError::Empty) => return false,
                // The archiver stopped (it reports why when joined).
                Err(tokio::sync::oneshot::error::TryRecvError::Closed) => true,
                Ok(Ok(queued)) => queued == 0,
                Ok(Err(error)) => {
                    tracing::warn!(%error, "counting the URLs queued on all nodes: {error}");
                    false
                }
            };
            shared.counting = None;
            return stop;
        }
        if shared.last_count.elapsed() >= COUNT_INTERVAL {
            let (sender, receiver) = tokio::sync::oneshot::channel();
            shared.counting = Some(receiver);
            shared.last_count = Instant::now();
            self.send(ArchiveJob::CountQueued(sender));
        }
        false
    }

    fn in_redirect_chain(&self, id: UrlId, target: &str) -> bool {
        let mut current = Some(id);
        while let Some(at) = current {
            let entry = self.frontier.entry(at);
            if &*entry.url == target {
                return true;
            }
            current = if entry.kind == UrlKind::Redirect {
                entry.via
            } else {
                None
            };
        }
        false
    }

    fn add_links(
        &mut self,
        id: UrlId,
        parse: &ldwarc_rdf::Extracted,
        new_urls: &mut Vec<FrontierEntry>,
    ) {
        let contexts = parse.missing_contexts.iter().chain(&parse.remote_contexts);
        let contexts: Vec<Url> = contexts.filter_map(|c| crawlable_text(c)).collect();
        let entry = self.frontier.entry(id);
        let mut links: Vec<Url> = if entry.kind == UrlKind::Context {
            Vec::new()
        } else {
            parse
                .links
                .iter()
                .filter_map(|l| crawlable_text(l))
                .collect()
        };
        let follow = entry.hops < self.options.hops;
        // At most `max_links` new URLs from one document (known ones only gain an in-link);
        // the rest are not kept for shorter paths either, which would hold them in memory.
        let mut new_links = 0;
        let before = links.len();
        links.retain(|url| {
            if self.frontier.find(url.as_str()).is_some() {
                return true;
            }
            new_links += 1;
            new_links <= self.options.max_links
        });
        self.dropped.over_max_links += (before - links.len()) as u64;
        // Links beyond the limit are kept too: a shorter path may yet bring them within it.
        self.remember_links(
            id,
            contexts
                .iter()
                .map(|url| (url.as_str().into(), UrlKind::Context))
                .chain(links.iter().map(|url| (url.as_str().into(), UrlKind::Link)))
                .collect(),
        );
        for url in contexts {
            self.queue(url, id, UrlKind::Context, new_urls);
        }
        if follow {
            for url in links {
                self.queue(url, id, UrlKind::Link, new_urls);
            }
        }
    }
}

/// How often a node with nothing left asks whether any node has URLs queued.
const COUNT_INTERVAL: Duration = Duration::from_millis(250);

/// This node's part of a shared frontier: the PLDs it holds and the lease thread.
struct SharedFrontier {
    keeper: LeaseKeeper,
    events: UnboundedReceiver<LeaseEvent>,
    held: HashSet<PldId>,
    /// When each held lease stops allowing requests, by this process's clock.
    deadlines: Arc<LeaseDeadlines>,
    /// URLs of PLDs held elsewhere, already sent to the shared frontier.
    sent_elsewhere: SentElsewhere,
    /// The archiver's answer to "how many URLs are queued on any node", awaited.
    counting: Option<tokio::sync::oneshot::Receiver<BackendResult<u64>>>,
    last_count: Instant,
}

impl SharedFrontier {
    fn start(settings: SharedSettings) -> Result<Self, CrawlError> {
        let (sender, events) = unbounded_channel();
        let deadlines = Arc::new(LeaseDeadlines::default());
        let keeper = LeaseKeeper::start(settings, sender, Arc::clone(&deadlines))?;
        Ok(Self {
            keeper,
            events,
            held: HashSet::new(),
            deadlines,
            sent_elsewhere: SentElsewhere::default(),
            counting: None,
            last_count: Instant::now() - COUNT_INTERVAL,
        })
    }
}

/// The next event of the lease thread; never, with the embedded store.
async fn next_lease_event(shared: &mut Option<SharedFrontier>) -> Option<LeaseEvent> {
    match shared {
        Some(shared) => match shared.events.recv().await {
            Some(event) => Some(event),
            None => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

/// Parses a payload prefix for links (on a blocking thread).
fn extract(
    options: &CrawlOptions,
    contexts: &CapturedContexts,
    base: &str,
    content_type: Option<String>,
    encoding: Option<String>,
    prefix: Vec<u8>,
    is_context: bool,
) -> (Option<ldwarc_rdf::Extracted>, Option<String>) {
    if is_context {
        return (None, None);
    }
    let decoded =
        match ldwarc_rdf::decode_content(encoding.as_deref(), &prefix, options.max_decoded) {
            Ok(bytes) => bytes,
            Err(e) => return (None, Some(format!("decoding {base}: {e}"))),
        };
    let syntaxes = ldwarc_rdf::choose_syntaxes(content_type.as_deref(), &decoded);
    if syntaxes.is_empty() {
        return (None, None);
    }
    let link_options = LinkOptions {
        follow_predicates: if options.follow_predicates.is_empty() {
            None
        } else {
            Some(&options.follow_predicates)
        },
        max_links: ldwarc_rdf::DEFAULT_MAX_LINKS,
        contexts,
    };
    match ldwarc_rdf::extract_links(&decoded, &syntaxes, base, &link_options) {
        Ok(mut extracted) => {
            if !extracted.missing_contexts.is_empty() {
                // Without its context a JSON-LD term expands against the base into an IRI
                // nobody wrote (`"Person"` → `<base>/Person`): keep only the links that are
                // spelled out in the document; the context is captured for next time.
                extracted
                    .links
                    .retain(|link| memchr::memmem::find(&decoded, link.as_bytes()).is_some());
            }
            (Some(extracted), None)
        }
        Err(e) => (None, Some(e.to_string())),
    }
}

/// When a fetch that reached the server ended: the PLD's delay counts from here, so that
/// even by the server's clock no two requests come closer than the delay.
fn finished_at(fetch: &Fetch) -> Option<Instant> {
    fetch.sent_at.map(|(_, at)| at + fetch.duration)
}

/// Whether a frontier entry is a seed (no discovery path: not found through a link,
/// redirect or context).
fn is_seed(entry: &super::frontier::UrlEntry) -> bool {
    entry.path.is_empty()
}

/// `Retry-After` as seconds or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = date.with_timezone(&Utc) - Utc::now();
    Some(wait.to_std().unwrap_or_default())
}

/// A crawlable URL: http(s) with a host, fragment removed, as the `url` crate normalises it.
pub fn normalize(text: &str) -> Option<String> {
    crawlable_text(text).map(String::from)
}

fn crawlable_text(text: &str) -> Option<Url> {
    Url::parse(text.trim()).ok().and_then(crawlable)
}

fn crawlable(mut url: Url) -> Option<Url> {
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised_and_filtered() {
        assert_eq!(
            normalize("HTTP://Example.ORG:80/a#frag").as_deref(),
            Some("http://example.org/a")
        );
        assert_eq!(normalize("mailto:x@example.org"), None);
        assert_eq!(normalize("urn:isbn:123"), None);
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }
}
