//! One monitor cycle, and the long-lived loop of them.
//!
//! A cycle: take the lock; add new kernel URLs; pick the due URLs (the strategy's due times,
//! most overdue first, at most `--budget`; the `freshness` strategy first shares the budget
//! out and then spends it); estimate the crawl time and record the cycle as started; crawl
//! the due URLs as seeds with no link following (hops 0), so politeness, robots.txt, WARC
//! output and the crawl log are the crawler's own; compare each download with the previous
//! one; let the strategy set the next interval; recompute the segment; commit everything in
//! one transaction. A cycle killed anywhere before that commit leaves the schedule as it was:
//! its URLs are still due and are fetched again by the next cycle, and the crawler recovers
//! the WARC file it left open.
//!
//! With `--state postgres://…` the tables are [`PgMonitorTable`]'s, shared by the monitors
//! of every node, and each cycle also holds the cycle lock shared by every node: cycles never
//! overlap anywhere, so every due URL is fetched once per cycle, by the node that runs it,
//! through the crawler on the same shared store, into that node's root. The lock is kept a
//! politeness delay past the crawl, so the next node's first request to a PLD comes at least
//! that long after this node's last one.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::Instant;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use super::MonitorError;
use super::detect::{Seen, Verdict, look, verdict};
use super::estimate::{
    CarriedOver, CycleEstimate, FetchHistory, estimate_cycle, observed_overhead,
};
use super::lock::CycleLock;
use super::pg_table::PgMonitorTable;
use super::segment::reachable;
use super::table::{CycleRow, Member, MonitorTable, MonitorTables, Observation};
use super::truth::{TruthScore, score};
use crate::failures::FailureReport;
use crate::{CrawlOptions, JoinCrawl, check_node_name, crawl, normalize};
use ldwarc_dynamics::schedule::{
    ChangeHistory, Policy, ScheduleState, allocate_budget, plan_budget_cycle, plan_cycle,
};
use ldwarc_state::{Change, FetchLogEntry, PgStateStore, StateBackend, StateStore};
use ldwarc_timetravel::replay::ReplayArchive;

/// Crawls of the log whose fetch times feed the estimate.
const RECENT_CRAWLS: i64 = 20;

/// How the monitor runs.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// The crawler's options: root, politeness, network (its seeds and hops are replaced).
    pub crawl: CrawlOptions,
    /// Kernel URLs to add (stored once, kept for good).
    pub kernel: Vec<String>,
    /// The strategy and its interval bounds.
    pub policy: Policy,
    /// Downloads per cycle: a cap for every strategy, the budget `freshness` shares out.
    pub budget: Option<usize>,
    /// Hop limit of the segment from the kernel (0: the kernel only).
    pub hops: u32,
    /// Seconds between cycles (the loop's period; `freshness` turns the budget per cycle into
    /// a rate with it).
    pub every: f64,
    /// The cycle's clock (`None`: the wall clock).
    pub now: Option<DateTime<Utc>>,
}

/// What happened to one URL in a cycle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UrlReport {
    /// The URL.
    pub url: String,
    /// Kernel or segment.
    pub kernel: bool,
    /// Downloaded successfully.
    pub fetched: bool,
    /// The first download of the URL.
    pub first: bool,
    /// The bytes changed.
    pub byte_changed: bool,
    /// The graph changed (`None`: no graph to compare).
    pub graph_changed: Option<bool>,
    /// What the strategy was told.
    pub changed: bool,
    /// The interval now, seconds.
    pub interval: f64,
    /// When it is due next, RFC 3339.
    pub next_due: Option<String>,
    /// Why a download could not be read back from the archive (the URL is then tried again
    /// one interval later, and nothing is learnt).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a cycle did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CycleReport {
    /// The cycle's number.
    pub cycle: i64,
    /// The cycle's clock, RFC 3339.
    pub clock: String,
    /// The strategy.
    pub strategy: String,
    /// Kernel URLs.
    pub kernel: usize,
    /// Active segment URLs (after the cycle).
    pub segment: usize,
    /// Segment URLs that joined / left in this cycle.
    pub joined: usize,
    /// See `joined`.
    pub left: usize,
    /// URLs picked as due.
    pub due: usize,
    /// Of which downloaded.
    pub fetched: usize,
    /// Of which changed (what the strategies were told).
    pub changed: usize,
    /// Of which had new bytes.
    pub byte_changed: usize,
    /// The crawl-time estimate made before the crawl.
    pub estimate: CycleEstimate,
    /// The crawl's wall time, seconds.
    pub actual_s: f64,
    /// `(estimate − actual) / actual` (`None` when nothing was crawled).
    pub estimate_error: Option<f64>,
    /// The whole cycle's wall time, seconds.
    pub cycle_s: f64,
    /// The crawl's id in the crawl log.
    pub crawl: Option<i64>,
    /// The due URLs.
    pub urls: Vec<UrlReport>,
    /// The crawl's failed fetches by cause, robots.txt included.
    pub failures: FailureReport,
}

/// What the loop reports.
#[derive(Debug, Clone)]
pub enum MonitorEvent {
    /// A cycle finished.
    Cycle(Box<CycleReport>),
    /// A cycle failed (the loop goes on).
    Failed(String),
    /// Sleeping until the next cycle.
    Sleeping(DateTime<Utc>),
}

/// Runs one cycle under the lock (and, with a shared state store, under the lock of every
/// node, refused at once while another node's cycle runs).
pub fn run_cycle(options: &MonitorOptions) -> Result<CycleReport, MonitorError> {
    let state_dir = state_dir(&options.crawl.root);
    let _lock = CycleLock::acquire(&state_dir)?;
    locked_cycle(options, options.now.unwrap_or_else(Utc::now))
}

/// The node's name with a shared state store: `--node`, else the host name.
fn node_name(options: &CrawlOptions) -> Result<String, MonitorError> {
    let name = match &options.node {
        Some(name) => name.clone(),
        None => gethostname::gethostname().to_string_lossy().into_owned(),
    };
    check_node_name(&name).map_err(MonitorError::Options)?;
    Ok(name)
}

/// Opens the tables: the archive's own, or the shared ones with the lock of every node.
fn open_tables(options: &MonitorOptions) -> Result<Box<dyn MonitorTables>, MonitorError> {
    match &options.crawl.state {
        None => Ok(Box::new(MonitorTable::open(&state_dir(
            &options.crawl.root,
        ))?)),
        Some(database) => {
            let mut table = PgMonitorTable::connect(database, &node_name(&options.crawl)?)?;
            table.lock()?;
            Ok(Box::new(table))
        }
    }
}

/// One cycle on the tables [`open_tables`] gives (the archive's lock is the caller's).
fn locked_cycle(
    options: &MonitorOptions,
    clock: DateTime<Utc>,
) -> Result<CycleReport, MonitorError> {
    let mut tables = open_tables(options)?;
    let report = cycle(options, clock, tables.as_mut())?;
    if options.crawl.state.is_some() && report.due > 0 {
        // Politeness across nodes: the next cycle, maybe another node's, starts a new crawl
        // with leases of its own; keeping the lock for one delay spaces its first request
        // from this crawl's last.
        std::thread::sleep(options.crawl.delay);
    }
    Ok(report)
}

/// Runs cycles every `options.every` seconds until an error that is not the cycle's own
/// (the lock, the tables). The archive's lock is held for the whole run, so no other monitor
/// runs on the archive meanwhile; a failed cycle is reported and the next one runs on time.
/// With a shared state store the lock of every node is taken per cycle: a cycle refused
/// because another node's is running is reported as failed, and the next runs on time.
pub fn run_loop(
    options: &MonitorOptions,
    on_event: &mut dyn FnMut(&MonitorEvent),
) -> Result<(), MonitorError> {
    let state_dir = state_dir(&options.crawl.root);
    let _lock = CycleLock::acquire(&state_dir)?;
    let period = chrono::Duration::milliseconds((options.every * 1000.0).round() as i64);
    let mut next = Utc::now();
    loop {
        let started = Utc::now();
        match locked_cycle(options, started) {
            Ok(report) => on_event(&MonitorEvent::Cycle(Box::new(report))),
            Err(error @ (MonitorError::Crawl(_) | MonitorError::Io(_))) => {
                on_event(&MonitorEvent::Failed(error.to_string()));
            }
            Err(error @ MonitorError::Locked(_)) if options.crawl.state.is_some() => {
                on_event(&MonitorEvent::Failed(error.to_string()));
            }
            Err(error) => return Err(error),
        }
        // A period too long to add is "never again": the loop sleeps until killed.
        next = next
            .checked_add_signed(period)
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        let now = Utc::now();
        if next < now {
            next = now; // a cycle longer than the period: start the next at once
        }
        on_event(&MonitorEvent::Sleeping(next));
        if let Ok(wait) = (next - now).to_std() {
            std::thread::sleep(wait);
        }
    }
}

/// Recall and precision of the monitor's observations so far (of every node, with a shared
/// state store) against `histories`, up to `now` (per URL, then `"all"`).
pub fn score_truth(
    options: &MonitorOptions,
    histories: &[ChangeHistory],
    now: DateTime<Utc>,
) -> Result<Vec<TruthScore>, MonitorError> {
    let observations = match &options.crawl.state {
        None => MonitorTable::open(&state_dir(&options.crawl.root))?.observations()?,
        Some(database) => {
            PgMonitorTable::connect(database, &node_name(&options.crawl)?)?.observations()?
        }
    };
    Ok(score(histories, &observations, seconds(now)))
}

fn state_dir(root: &Path) -> std::path::PathBuf {
    ldwarc_archive::archive::Archive::new(root).state_dir()
}

fn seconds(at: DateTime<Utc>) -> f64 {
    at.timestamp_micros() as f64 / 1e6
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn instant(seconds: f64) -> Option<String> {
    DateTime::<Utc>::from_timestamp_micros((seconds * 1e6).round() as i64).map(rfc3339)
}

/// The kernel URLs given, normalised; an error names the first that is not an http(s) URL.
fn normalized_kernel(urls: &[String]) -> Result<Vec<String>, MonitorError> {
    urls.iter()
        .map(|url| {
            normalize(url)
                .ok_or_else(|| MonitorError::Options(format!("seed {url}: not an http(s) URL")))
        })
        .collect()
}

fn cycle(
    options: &MonitorOptions,
    clock: DateTime<Utc>,
    table: &mut dyn MonitorTables,
) -> Result<CycleReport, MonitorError> {
    let wall = Instant::now();
    let started = Utc::now();
    let policy = options.policy;
    policy
        .validate()
        .map_err(|e| MonitorError::Options(e.to_string()))?;
    let now = seconds(clock);
    table.add_kernel(
        &normalized_kernel(&options.kernel)?,
        &ScheduleState::new(&policy),
    )?;
    let mut members = table.members()?;
    if !members.iter().any(|m| m.kernel) {
        return Err(MonitorError::Options(format!(
            "{}: no kernel to monitor (give seed URLs or --seeds FILE)",
            options.crawl.root.display()
        )));
    }
    let mut touched: BTreeSet<usize> = BTreeSet::new();
    let due = pick_due(options, &mut members, now, &mut touched)?;
    let due_urls: Vec<String> = due.iter().map(|&i| members[i].url.clone()).collect();

    let history = FetchHistory::from_log(&table.timed_fetches(RECENT_CRAWLS)?);
    let estimate = estimate_cycle(
        &due_urls,
        &history,
        options.crawl.delay.as_secs_f64(),
        options.crawl.concurrency,
        observed_overhead(&table.cycles()?),
        &carried_over(&options.crawl),
    );
    let mut row = CycleRow {
        cycle: table.next_cycle()?,
        started: rfc3339(started),
        clock: rfc3339(clock),
        strategy: policy.strategy.name().to_string(),
        urls: due_urls.len() as u64,
        model_s: estimate.model,
        estimate_s: estimate.estimate,
        paper_s: estimate.paper,
        actual_s: None,
        cycle_s: None,
        fetched: None,
        changed: None,
        crawl: None,
        finished: None,
    };
    table.start_cycle(&row)?;

    let (crawl_id, actual, outcomes, failures) = crawl_due(options, &due_urls)?;
    let mut observations = Vec::new();
    let mut urls = Vec::new();
    let archive = if outcomes.values().any(|&(ok, _)| ok) {
        Some(
            ReplayArchive::open(&options.crawl.root)
                .map_err(|e| MonitorError::Io(e.to_string()))?,
        )
    } else {
        None
    };
    for &index in &due {
        touched.insert(index);
        let member = &mut members[index];
        let (fetched, fetched_at) = match outcomes.get(&member.url) {
            // The truth is scored at the capture's own WARC-Date, unless the clock is set.
            Some(&(ok, at)) if options.now.is_none() => (ok, seconds(at)),
            Some(&(ok, _)) => (ok, now),
            None => (false, now),
        };
        let mut error = None;
        let seen = match (&archive, fetched) {
            (Some(archive), true) => look(
                archive,
                &member.url,
                member.digest.as_deref(),
                &options.crawl.follow_predicates,
            )
            .map_err(|e| error = Some(format!("{}: {e}", member.url)))
            .ok(),
            _ => None,
        };
        let outcome = match seen {
            Some(seen) => {
                let (verdict, mut observation) = observe(member, &policy, now, row.cycle, &seen);
                observation.at = fetched_at;
                Some((verdict, observation))
            }
            None => {
                // Not downloaded: try again one interval later, learning nothing.
                member.state.next_due = Some(now + member.state.interval);
                None
            }
        };
        if let Some((_, observation)) = &outcome {
            observations.push(observation.clone());
        }
        let mut report = url_report(member, outcome.map(|(v, _)| v));
        report.error = error;
        urls.push(report);
    }
    let (joined, left) = update_segment(&mut members, options.hops, &policy, &mut touched);

    let changed = observations.iter().filter(|o| o.changed).count();
    let byte_changed = observations.iter().filter(|o| o.byte_changed).count();
    row.actual_s = Some(actual);
    row.cycle_s = Some(wall.elapsed().as_secs_f64());
    row.fetched = Some(observations.len() as u64);
    row.changed = Some(changed as u64);
    row.crawl = crawl_id;
    row.finished = Some(rfc3339(Utc::now()));
    let written: Vec<&Member> = touched.iter().map(|&i| &members[i]).collect();
    table.commit_cycle(&written, &observations, &row)?;

    Ok(CycleReport {
        cycle: row.cycle,
        clock: row.clock,
        strategy: row.strategy,
        kernel: members.iter().filter(|m| m.kernel).count(),
        segment: members.iter().filter(|m| !m.kernel && m.active).count(),
        joined,
        left,
        due: due.len(),
        fetched: observations.len(),
        changed,
        byte_changed,
        estimate,
        actual_s: actual,
        estimate_error: (!due.is_empty() && actual > 0.0)
            .then(|| (estimate.estimate - actual) / actual),
        cycle_s: wall.elapsed().as_secs_f64(),
        crawl: crawl_id,
        urls,
        failures,
    })
}

/// What the cycle's crawl will take over from earlier ones (fresh robots.txt answers, waits
/// for the delay after the last contacts); nothing when the store cannot tell, which only
/// makes the estimate longer.
fn carried_over(options: &CrawlOptions) -> CarriedOver {
    let Ok(remembered) = crate::politeness::remembered_for(options) else {
        return CarriedOver::default();
    };
    CarriedOver {
        fresh_robots: remembered
            .robots
            .iter()
            .map(|r| r.url.origin().ascii_serialization())
            .collect(),
        waits: remembered
            .waits(options.delay, Utc::now())
            .into_iter()
            .collect(),
    }
}

/// Indices into `members` of the URLs to download now.
fn pick_due(
    options: &MonitorOptions,
    members: &mut [Member],
    now: f64,
    touched: &mut BTreeSet<usize>,
) -> Result<Vec<usize>, MonitorError> {
    let active: Vec<usize> = (0..members.len()).filter(|&i| members[i].active).collect();
    let policy = &options.policy;
    if policy.strategy.is_budgeted() {
        let budget = options.budget.ok_or_else(|| {
            MonitorError::Options(format!(
                "the {} strategy needs --budget N (downloads per cycle)",
                policy.strategy
            ))
        })?;
        let mut states: Vec<&mut ScheduleState> = Vec::new();
        for (i, member) in members.iter_mut().enumerate() {
            if member.active {
                states.push(&mut member.state);
                touched.insert(i);
            }
        }
        allocate_budget(states, policy, budget as f64 / options.every.max(1.0));
        let states: Vec<ScheduleState> = active.iter().map(|&i| members[i].state.clone()).collect();
        return Ok(plan_budget_cycle(&states, budget, now)
            .into_iter()
            .map(|k| active[k])
            .collect());
    }
    let states: Vec<ScheduleState> = active.iter().map(|&i| members[i].state.clone()).collect();
    let cap = options.budget.unwrap_or(usize::MAX);
    Ok(plan_cycle(&states, cap, now)
        .into_iter()
        .map(|k| active[k])
        .collect())
}

/// A cycle's crawl: its id (none when nothing was due), its wall time in seconds, per URL
/// whether it was downloaded and when (its WARC-Date), and the failed fetches.
type CrawlOutcome = (
    Option<i64>,
    f64,
    HashMap<String, (bool, DateTime<Utc>)>,
    FailureReport,
);

/// Crawls the due URLs (hops 0); returns the crawl id, its wall time and, per URL, whether
/// the crawl log shows a download (a response, new, changed or not).
fn crawl_due(options: &MonitorOptions, urls: &[String]) -> Result<CrawlOutcome, MonitorError> {
    if urls.is_empty() {
        return Ok((None, 0.0, HashMap::new(), FailureReport::default()));
    }
    let mut crawl_options = options.crawl.clone();
    crawl_options.seeds = urls.to_vec();
    crawl_options.hops = 0;
    crawl_options.resume = false;
    crawl_options.join = JoinCrawl::New;
    let started = Instant::now();
    let summary = crawl(crawl_options, &|_| {}).map_err(|e| MonitorError::Crawl(e.to_string()))?;
    let actual = started.elapsed().as_secs_f64();
    let log = crawl_log(options, summary.crawl)?;
    let mut outcomes = HashMap::new();
    for entry in log.iter().filter(|e| e.kind == "document") {
        let ok = matches!(
            entry.change,
            Change::New | Change::Changed | Change::Unchanged
        );
        outcomes.insert(entry.url.clone(), (ok, entry.time));
    }
    Ok((Some(summary.crawl), actual, outcomes, summary.failures))
}

/// The crawl log of crawl `id`, from the store the crawler wrote it to.
fn crawl_log(options: &MonitorOptions, id: i64) -> Result<Vec<FetchLogEntry>, MonitorError> {
    let store_error = |e: ldwarc_state::BackendError| MonitorError::Store(e.to_string());
    match &options.crawl.state {
        Some(database) => PgStateStore::connect(database)
            .and_then(|mut store| store.fetch_log(Some(id)))
            .map_err(store_error),
        None => {
            let store = StateStore::open(&state_dir(&options.crawl.root))
                .map_err(|e| MonitorError::Store(e.to_string()))?;
            store
                .fetch_log(Some(id))
                .map_err(|e| MonitorError::Store(e.to_string()))
        }
    }
}

/// Records a download in the member; returns the verdict and the observation.
fn observe(
    member: &mut Member,
    policy: &Policy,
    now: f64,
    cycle: i64,
    seen: &Seen,
) -> (Verdict, Observation) {
    let first = member.state.last_download.is_none();
    let verdict = verdict(
        first,
        member.digest.as_deref(),
        member.graph_hash.as_deref(),
        seen,
    );
    member.state.observe(policy, now, verdict.changed);
    member.digest = seen.digest.clone();
    if seen.parsed {
        member.graph_hash = seen.graph_hash.clone();
        member.links = seen.links.clone().unwrap_or_default();
    }
    let observation = Observation {
        cycle,
        url: member.url.clone(),
        at: now,
        first,
        byte_changed: verdict.byte_changed,
        graph_changed: verdict.graph_changed,
        changed: verdict.changed,
    };
    (verdict, observation)
}

fn url_report(member: &Member, verdict: Option<Verdict>) -> UrlReport {
    UrlReport {
        url: member.url.clone(),
        kernel: member.kernel,
        fetched: verdict.is_some(),
        first: verdict.is_some_and(|v| v.first),
        byte_changed: verdict.is_some_and(|v| v.byte_changed),
        graph_changed: verdict.and_then(|v| v.graph_changed),
        changed: verdict.is_some_and(|v| v.changed),
        interval: member.state.interval,
        next_due: member.state.next_due.and_then(instant),
        error: None,
    }
}

/// Recomputes the segment from the members' links; new URLs join (due at once), URLs no
/// longer within reach leave. Returns (joined, left).
fn update_segment(
    members: &mut Vec<Member>,
    hops: u32,
    policy: &Policy,
    touched: &mut BTreeSet<usize>,
) -> (usize, usize) {
    let kernel: Vec<String> = members
        .iter()
        .filter(|m| m.kernel)
        .map(|m| m.url.clone())
        .collect();
    let links: BTreeMap<String, Vec<String>> = members
        .iter()
        .map(|m| (m.url.clone(), m.links.clone()))
        .collect();
    let reach = reachable(&kernel, &links, hops);
    let mut joined = 0;
    let mut left = 0;
    for (i, member) in members.iter_mut().enumerate() {
        if member.kernel {
            continue;
        }
        let now_hops = reach.get(&member.url).copied();
        let active = now_hops.is_some();
        if active != member.active || now_hops.is_some_and(|h| h != member.hops) {
            joined += usize::from(active && !member.active);
            left += usize::from(!active && member.active);
            member.active = active;
            member.hops = now_hops.unwrap_or(member.hops);
            touched.insert(i);
        }
    }
    let known: BTreeSet<String> = members.iter().map(|m| m.url.clone()).collect();
    for (url, depth) in reach {
        if !known.contains(&url) {
            touched.insert(members.len());
            members.push(Member {
                url,
                kernel: false,
                hops: depth,
                active: true,
                state: ScheduleState::new(policy),
                digest: None,
                graph_hash: None,
                links: Vec::new(),
            });
            joined += 1;
        }
    }
    (joined, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldwarc_dynamics::schedule::Strategy;

    fn member(url: &str, kernel: bool, links: &[&str]) -> Member {
        Member {
            url: url.into(),
            kernel,
            hops: 0,
            active: true,
            state: ScheduleState::new(&Policy::new(Strategy::Fix)),
            digest: None,
            graph_hash: None,
            links: links.iter().map(|l| l.to_string()).collect(),
        }
    }

    #[test]
    fn the_segment_follows_the_kernels_links() {
        let policy = Policy::new(Strategy::Fix);
        let mut members = vec![member("k", true, &["a"]), member("old", false, &[])];
        let mut touched = BTreeSet::new();
        let (joined, left) = update_segment(&mut members, 1, &policy, &mut touched);
        assert_eq!((joined, left), (1, 1));
        assert!(!members[1].active, "no longer linked: inactive, kept");
        assert_eq!(members[2].url, "a");
        assert!(members[2].active && members[2].state.is_due(0.0));
        assert_eq!(touched.into_iter().collect::<Vec<_>>(), vec![1, 2]);
        // The kernel links to "old" again: it comes back with its schedule.
        members[0].links.push("old".into());
        members[1].state.interval = 123.0;
        let mut touched = BTreeSet::new();
        assert_eq!(
            update_segment(&mut members, 1, &policy, &mut touched),
            (1, 0)
        );
        assert!(members[1].active && members[1].state.interval == 123.0);
        // Hops 0: the kernel only.
        let mut touched = BTreeSet::new();
        assert_eq!(
            update_segment(&mut members, 0, &policy, &mut touched),
            (0, 2)
        );
    }

    #[test]
    fn observing_updates_the_state_digest_and_links() {
        let policy = Policy::new(Strategy::Fix);
        let mut m = member("k", true, &[]);
        let seen = Seen {
            digest: Some("sha1:A".into()),
            graph_hash: Some("g".into()),
            links: Some(vec!["x".into()]),
            parsed: true,
        };
        let (v, o) = observe(&mut m, &policy, 100.0, 1, &seen);
        assert!(v.first && o.first && !o.changed);
        assert_eq!(m.state.last_download, Some(100.0));
        assert_eq!((m.digest.as_deref(), m.links.len()), (Some("sha1:A"), 1));
        // Same digest next time: not parsed, links and hash kept, unchanged.
        let same = Seen {
            digest: Some("sha1:A".into()),
            ..Seen::default()
        };
        let (v, _) = observe(&mut m, &policy, 200.0, 2, &same);
        assert!(!v.changed && !v.first);
        assert_eq!((m.graph_hash.as_deref(), m.links.len()), (Some("g"), 1));
        assert_eq!(m.state.observations, 1);
    }

    #[test]
    fn seeds_must_be_urls() {
        assert_eq!(
            normalized_kernel(&["http://A.example/x#f".into()]).unwrap(),
            vec!["http://a.example/x".to_string()]
        );
        let error = normalized_kernel(&["ftp://x".into()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("ftp://x"), "{error}");
    }
}
