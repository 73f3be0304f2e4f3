//! The per-URL schedule state and the re-scheduling strategies of Umbrich, Mrzelj & Polleres
//! (`shared/papers/001_…` §4.1): `fix`, `dyn`, `window`, `state-1`, `state-2`, `week`, `gold`;
//! the adaptive scheme of the DyLDO observatory (Käfer et al., `shared/papers/000_…` §6),
//! `dyldo`; and the hook for our own budgeted `freshness` strategy (its planner is in
//! [`super::freshness`]).
//!
//! The paper speaks of a "crawl frequency" but gives it in time units ("higher than 1 month");
//! it is the re-crawl *interval* throughout, and "increasing the frequency" means shortening
//! the interval. Every decision is a pure function of the [`ScheduleState`] so that the
//! monitor, the simulator and the tests share one implementation. The choices made where the
//! paper leaves room are listed in `docs/scheduling.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{MONTH, ScheduleError};
use crate::bias_reduced_rate;
use crate::duration::{DAY, WEEK};

/// How many of the latest observed states a [`ScheduleState`] keeps (the `window` strategy
/// needs 10, `dyn` 4, `state-2` 2).
pub const HISTORY_LIMIT: usize = 32;

/// A re-scheduling strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Strategy {
    /// §4.1 `fix`: adapt after the last 2 snapshots at the current interval agree.
    #[serde(rename = "fix")]
    Fix,
    /// §4.1 `dyn`: like `fix`, with 1–4 snapshots depending on the interval.
    #[serde(rename = "dyn")]
    Dyn,
    /// §4.1 `window`: the share of changed snapshots in a window sets the factor.
    #[serde(rename = "window")]
    Window,
    /// §4.1 `state-1`: a first-order Markov chain of changed/unchanged per interval.
    #[serde(rename = "state-1")]
    State1,
    /// §4.1 `state-2`: a second-order Markov chain of changed/unchanged per interval.
    #[serde(rename = "state-2")]
    State2,
    /// §4.1 `week`: a fixed interval ([`Policy::fixed_interval`], one week by default).
    #[serde(rename = "week")]
    Week,
    /// §4.1 `gold`: the interval is the known mean time between changes (simulation only).
    #[serde(rename = "gold")]
    Gold,
    /// Ours: bias-reduced rate estimates and a freshness-optimal budget allocation.
    #[serde(rename = "freshness")]
    Freshness,
    /// DyLDO §6: within the weekly snapshot, 2, 4, 8, up to 16 snapshots a week for a
    /// document that changed in two consecutive snapshots of its current interval.
    #[serde(rename = "dyldo")]
    Dyldo,
}

impl Strategy {
    /// Every strategy, in the order reports list them.
    pub const ALL: [Strategy; 9] = [
        Strategy::Fix,
        Strategy::Dyn,
        Strategy::Window,
        Strategy::State1,
        Strategy::State2,
        Strategy::Week,
        Strategy::Gold,
        Strategy::Freshness,
        Strategy::Dyldo,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Fix => "fix",
            Strategy::Dyn => "dyn",
            Strategy::Window => "window",
            Strategy::State1 => "state-1",
            Strategy::State2 => "state-2",
            Strategy::Week => "week",
            Strategy::Gold => "gold",
            Strategy::Freshness => "freshness",
            Strategy::Dyldo => "dyldo",
        }
    }

    /// Whether the strategy needs the collection-level planner (a budget shared by all URLs)
    /// rather than deciding each URL's interval on its own.
    pub fn is_budgeted(self) -> bool {
        self == Strategy::Freshness
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = ScheduleError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase();
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == wanted || s.name().replace('-', "") == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                ScheduleError::Parameter(format!(
                    "unknown strategy '{text}' (use one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// A strategy with its bounds: what the monitor (or the simulator) applies to every URL.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// The strategy.
    pub strategy: Strategy,
    /// Shortest interval, seconds (paper: 1 day).
    pub min_interval: f64,
    /// Longest interval, seconds (paper: 6 months = 180 days).
    pub max_interval: f64,
    /// Interval of a URL with no history yet, seconds (our choice: 1 week).
    pub initial_interval: f64,
    /// The interval of `week`, seconds (1 week).
    pub fixed_interval: f64,
    /// `state-1`/`state-2`: pseudo-count added to each cell of a row of the Markov counts
    /// before the change probability is read from it (the paper says nothing of empty or
    /// thin rows). `0` is the paper's bare counting; see [`DEFAULT_MARKOV_PRIOR`].
    #[serde(default = "default_markov_prior")]
    pub markov_prior: f64,
}

/// The default [`Policy::markov_prior`]: add-one (Laplace) smoothing. One transition seen at
/// an interval then moves the interval by 1.5 instead of 3; `docs/scheduling.md` shows how
/// the choice moves recall and precision.
pub const DEFAULT_MARKOV_PRIOR: f64 = 1.0;

fn default_markov_prior() -> f64 {
    DEFAULT_MARKOV_PRIOR
}

impl Policy {
    /// The paper's bounds (1 day, 6 months), a one-week start and a one-week `week`.
    pub fn new(strategy: Strategy) -> Self {
        Self {
            strategy,
            min_interval: DAY,
            max_interval: 6.0 * MONTH,
            initial_interval: WEEK,
            fixed_interval: WEEK,
            markov_prior: DEFAULT_MARKOV_PRIOR,
        }
    }

    /// Checks that the intervals are positive and ordered.
    pub fn validate(&self) -> Result<(), ScheduleError> {
        let all = [
            ("minimum interval", self.min_interval),
            ("maximum interval", self.max_interval),
            ("initial interval", self.initial_interval),
            ("week interval", self.fixed_interval),
        ];
        if let Some((name, value)) = all.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
            return Err(ScheduleError::Parameter(format!(
                "the {name} must be positive, got {value} s"
            )));
        }
        if !(self.markov_prior.is_finite() && self.markov_prior >= 0.0) {
            return Err(ScheduleError::Parameter(format!(
                "the Markov prior must be zero or positive, got {}",
                self.markov_prior
            )));
        }
        if self.min_interval > self.max_interval {
            return Err(ScheduleError::Parameter(format!(
                "the minimum interval ({} s) exceeds the maximum ({} s)",
                self.min_interval, self.max_interval
            )));
        }
        Ok(())
    }

    /// `interval` held within the bounds ("the crawl frequency for all strategies is fixed
    /// between a minimum and maximum value").
    pub fn clamp(&self, interval: f64) -> f64 {
        interval.clamp(self.min_interval, self.max_interval)
    }

    /// `interval` within the bounds the strategy obeys: `dyldo` keeps DyLDO's own levels (the
    /// week down to a sixteenth of it), whatever the minimum and maximum; the others are
    /// [`Policy::clamp`]ed.
    pub fn bound(&self, interval: f64) -> f64 {
        if self.strategy == Strategy::Dyldo {
            interval
        } else {
            self.clamp(interval)
        }
    }

    /// The interval the strategy proposes after the latest observation in `state` (before
    /// clamping). Strategies that need more evidence return the current interval.
    pub fn proposed_interval(&self, state: &ScheduleState) -> f64 {
        let current = state.interval;
        match self.strategy {
            Strategy::Fix => fixed_snapshots_interval(state, 2),
            Strategy::Dyn => fixed_snapshots_interval(state, dyn_snapshots(current)),
            Strategy::Window => window_interval(state),
            Strategy::State1 => markov_interval(state, 1, self.markov_prior),
            Strategy::State2 => markov_interval(state, 2, self.markov_prior),
            Strategy::Week => self.fixed_interval,
            Strategy::Gold => match state.known_rate {
                Some(rate) if rate > 0.0 => 1.0 / rate,
                _ => self.max_interval,
            },
            // The collection-level planner sets it (`freshness::allocate_budget`).
            Strategy::Freshness => current,
            Strategy::Dyldo => dyldo_interval(self.fixed_interval, state),
        }
    }
}

/// The sequence of states observed at one interval (`0` unchanged, `1` changed) and its
/// counts: the "knowledge base" of the Markov strategies (paper Table 1), kept "for each
/// crawl frequency" separately. A transition is counted between two states observed at the
/// same interval, whatever was observed at other intervals in between.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitionCounts {
    /// `first[previous][next]`: how often `next` followed `previous` (state-1).
    pub first: [[u32; 2]; 2],
    /// `second[before_previous][previous][next]` (state-2).
    pub second: [[[u32; 2]; 2]; 2],
    /// The latest (at most two) states observed at this interval, oldest first.
    #[serde(default)]
    pub recent: String,
}

impl TransitionCounts {
    /// The latest `count` (at most two) states observed at this interval, oldest first.
    pub fn latest(&self, count: usize) -> Vec<bool> {
        let skip = self.recent.len().saturating_sub(count);
        self.recent.bytes().skip(skip).map(|b| b == b'1').collect()
    }

    /// Counts `changed` after the states seen before at this interval and appends it.
    fn push(&mut self, changed: bool) {
        let before = self.latest(2);
        let next = usize::from(changed);
        if let Some(&previous) = before.last() {
            self.first[usize::from(previous)][next] += 1;
        }
        if let [before_previous, previous] = before[..] {
            self.second[usize::from(before_previous)][usize::from(previous)][next] += 1;
        }
        self.recent.push(if changed { '1' } else { '0' });
        if self.recent.len() > 2 {
            self.recent.remove(0);
        }
    }
}

/// Everything the strategies know about one URL. Serialisable (JSON) so the monitor can
/// keep it in the state store; all strategies' statistics are maintained whichever strategy
/// is in use, so the strategy can be switched without losing knowledge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleState {
    /// The current re-crawl interval, seconds.
    pub interval: f64,
    /// When the URL is due next (seconds since the epoch); `None`: never downloaded, due now.
    pub next_due: Option<f64>,
    /// The latest download (seconds since the epoch).
    pub last_download: Option<f64>,
    /// The latest observed states, oldest first, at most [`HISTORY_LIMIT`]: `1` the download
    /// found the content changed since the previous download, `0` unchanged.
    pub history: String,
    /// Downloads compared with a previous one (all downloads but the first).
    pub observations: u64,
    /// Of those, how many found a change.
    pub changes: u64,
    /// Summed time between compared downloads, seconds.
    pub observed_seconds: f64,
    /// Observations made since the interval last changed ("snapshots with the same crawl
    /// frequency", `fix` and `dyn`).
    pub at_interval: u32,
    /// Markov knowledge per interval (whole seconds), keyed by the interval in force when
    /// the later download of a transition was scheduled.
    pub transitions: BTreeMap<u64, TransitionCounts>,
    /// The true change rate per second, when known (the `gold` strategy; simulation only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_rate: Option<f64>,
}

impl ScheduleState {
    /// A URL never downloaded: due now, at the policy's initial interval.
    pub fn new(policy: &Policy) -> Self {
        Self {
            interval: policy.clamp(policy.initial_interval),
            next_due: None,
            last_download: None,
            history: String::new(),
            observations: 0,
            changes: 0,
            observed_seconds: 0.0,
            at_interval: 0,
            transitions: BTreeMap::new(),
            known_rate: None,
        }
    }

    /// Whether the URL is due at `now` (seconds since the epoch).
    pub fn is_due(&self, now: f64) -> bool {
        self.next_due.is_none_or(|due| due <= now)
    }

    /// Records a download at `at` (seconds since the epoch) that found the content `changed`
    /// since the previous download (ignored for the first download), then lets the policy's
    /// strategy set the interval and the next due time.
    pub fn observe(&mut self, policy: &Policy, at: f64, changed: bool) {
        if let Some(previous) = self.last_download {
            self.record(at - previous, changed);
        }
        let proposed = policy.proposed_interval(self);
        self.set_interval(policy.bound(proposed));
        self.last_download = Some(at);
        self.next_due = Some(at + self.interval);
    }

    /// [`ScheduleState::observe`] with a UTC time.
    pub fn observe_at(&mut self, policy: &Policy, at: DateTime<Utc>, changed: bool) {
        self.observe(policy, seconds(at), changed);
    }

    /// Sets the interval (and the due time, if downloaded before). A real change restarts
    /// the count of snapshots at the interval.
    pub fn set_interval(&mut self, interval: f64) {
        if (interval - self.interval).abs() > 1e-9 * self.interval.max(1.0) {
            self.interval = interval;
            self.at_interval = 0;
        }
        if let Some(last) = self.last_download {
            self.next_due = Some(last + self.interval);
        }
    }

    /// The latest `count` observed states, oldest first (fewer when fewer are known).
    pub fn recent(&self, count: usize) -> Vec<bool> {
        let skip = self.history.len().saturating_sub(count);
        self.history.bytes().skip(skip).map(|b| b == b'1').collect()
    }

    /// The Markov counts at `interval`.
    pub fn transitions_at(&self, interval: f64) -> Option<&TransitionCounts> {
        self.transitions.get(&interval_key(interval))
    }

    /// Cho & Garcia-Molina's bias-reduced change rate per second from all observations,
    /// taking their mean spacing as the (regular) visiting interval. `None` before the first
    /// observation.
    pub fn estimated_rate(&self) -> Option<f64> {
        if self.observations == 0 {
            return None;
        }
        let mean_spacing = self.observed_seconds / self.observations as f64;
        bias_reduced_rate(self.observations, self.changes, mean_spacing)
    }

    fn record(&mut self, elapsed: f64, changed: bool) {
        self.transitions
            .entry(interval_key(self.interval))
            .or_default()
            .push(changed);
        self.history.push(if changed { '1' } else { '0' });
        if self.history.len() > HISTORY_LIMIT {
            self.history.remove(0);
        }
        self.observations += 1;
        self.changes += u64::from(changed);
        self.observed_seconds += elapsed.max(0.0);
        self.at_interval = self.at_interval.saturating_add(1);
    }
}

/// Seconds since the Unix epoch of a UTC time.
pub fn seconds(at: DateTime<Utc>) -> f64 {
    at.timestamp_micros() as f64 / 1e6
}

fn interval_key(interval: f64) -> u64 {
    interval.max(0.0).round() as u64
}

/// What a set of snapshots says about the interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Changed in every snapshot: crawl more often.
    Shorten,
    /// Changed in none: crawl less often.
    Lengthen,
    /// Mixed (or no snapshots): keep the interval.
    Keep,
}

/// `fix`/`dyn`: shorten when the document changed in all snapshots, lengthen when in none.
pub fn snapshot_verdict(states: &[bool]) -> Verdict {
    if states.is_empty() {
        Verdict::Keep
    } else if states.iter().all(|&c| c) {
        Verdict::Shorten
    } else if states.iter().all(|&c| !c) {
        Verdict::Lengthen
    } else {
        Verdict::Keep
    }
}

/// `dyn`: the snapshots considered at `interval`: 1 above 2 months, 2 above 1 month, 3 above
/// 1 week, 4 above 1 day; 4 also at 1 day and below (the paper stops at "higher than 1 day",
/// which is the minimum interval itself).
pub fn dyn_snapshots(interval: f64) -> usize {
    if interval > 2.0 * MONTH {
        1
    } else if interval > MONTH {
        2
    } else if interval > WEEK {
        3
    } else {
        4
    }
}

/// `fix`/`dyn`: the new interval for a verdict. Shortening divides by 1.5 above 1 month and
/// by 2 otherwise; lengthening multiplies by 1.5 below 1 month and by 2 otherwise.
pub fn fixed_snapshot_step(interval: f64, verdict: Verdict) -> f64 {
    match verdict {
        Verdict::Shorten if interval > MONTH => interval / 1.5,
        Verdict::Shorten => interval / 2.0,
        Verdict::Lengthen if interval < MONTH => interval * 1.5,
        Verdict::Lengthen => interval * 2.0,
        Verdict::Keep => interval,
    }
}

fn fixed_snapshots_interval(state: &ScheduleState, snapshots: usize) -> f64 {
    if (state.at_interval as usize) < snapshots {
        return state.interval;
    }
    fixed_snapshot_step(state.interval, snapshot_verdict(&state.recent(snapshots)))
}

/// `window`: the snapshots considered after `observations` observations: the last ten, or
/// half of those available (rounded up) while fewer than twenty are.
pub fn window_size(observations: u64) -> usize {
    observations.div_ceil(2).min(10) as usize
}

/// `window`, `state-1`, `state-2`: the factor applied to the interval for a change ratio (or
/// probability) `r`: ÷3 above 0.9, ÷2 above 0.75, ÷1.5 above 0.6; ×3 below 0.1, ×2 below 0.25,
/// ×1.5 below 0.4; unchanged otherwise.
pub fn ratio_factor(r: f64) -> f64 {
    if r > 0.9 {
        1.0 / 3.0
    } else if r > 0.75 {
        1.0 / 2.0
    } else if r > 0.6 {
        1.0 / 1.5
    } else if r < 0.1 {
        3.0
    } else if r < 0.25 {
        2.0
    } else if r < 0.4 {
        1.5
    } else {
        1.0
    }
}

fn window_interval(state: &ScheduleState) -> f64 {
    let size = window_size(state.observations);
    if size == 0 {
        return state.interval;
    }
    let window = state.recent(size);
    let changed = window.iter().filter(|&&c| c).count();
    state.interval * ratio_factor(changed as f64 / window.len() as f64)
}

/// `state-1`/`state-2`: the probability that the next download at the current interval finds
/// a change, from the counts at that interval conditioned on the latest `order` states
/// observed *at that interval*, each cell of the row raised by `prior` pseudo-counts.
/// `state-2` falls back to the `state-1` row when its own row has no count (or only one state
/// was seen at the interval); `None` when no state was seen at the interval yet, or the row
/// is empty and `prior` is 0.
pub fn change_probability(state: &ScheduleState, order: usize, prior: f64) -> Option<f64> {
    let counts = state.transitions_at(state.interval)?;
    let latest = counts.latest(order.min(2));
    let row = match latest[..] {
        [before_previous, previous] if order >= 2 => {
            let row = counts.second[usize::from(before_previous)][usize::from(previous)];
            if row[0] + row[1] > 0 {
                row
            } else {
                counts.first[usize::from(previous)]
            }
        }
        [.., previous] => counts.first[usize::from(previous)],
        [] => return None,
    };
    let total = f64::from(row[0]) + f64::from(row[1]) + 2.0 * prior;
    (total > 0.0).then(|| (f64::from(row[1]) + prior) / total)
}

fn markov_interval(state: &ScheduleState, order: usize, prior: f64) -> f64 {
    match change_probability(state, order, prior) {
        Some(p) => state.interval * ratio_factor(p),
        None => state.interval,
    }
}

/// `dyldo`: the highest level, 2⁴ = 16 snapshots a week ("we consider fixing the maximum
/// number of intervals per week to 16").
pub const DYLDO_MAX_LEVEL: u32 = 4;

/// `dyldo`: the level `k` whose interval `week / 2^k` is `interval`, if any.
pub fn dyldo_level(week: f64, interval: f64) -> Option<u32> {
    (0..=DYLDO_MAX_LEVEL).find(|&k| (interval - dyldo_step(week, k)).abs() <= 1e-6 * week)
}

/// `dyldo`: the interval of level `k`, `week / 2^k`.
pub fn dyldo_step(week: f64, level: u32) -> f64 {
    week / f64::from(1u32 << level.min(DYLDO_MAX_LEVEL))
}

/// `dyldo`: one level up (the interval halves) when the document changed in the last two
/// snapshots taken at its current interval, up to 16 a week; otherwise the level stays (the
/// paper defines no way down: the weekly snapshot is taken anyway). An interval off the levels
/// (a URL new to the strategy) starts at the week.
fn dyldo_interval(week: f64, state: &ScheduleState) -> f64 {
    let Some(level) = dyldo_level(week, state.interval) else {
        return week;
    };
    let changed_twice = state.at_interval >= 2 && state.recent(2) == [true, true];
    if changed_twice {
        dyldo_step(week, level + 1)
    } else {
        dyldo_step(week, level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: f64 = 1_600_000_000.0;

    /// Feeds `states` (after a first download at T0) one interval apart; returns the interval
    /// after each observation, in days.
    fn replay(policy: &Policy, state: &mut ScheduleState, states: &str) -> Vec<f64> {
        if state.last_download.is_none() {
            state.observe(policy, T0, false);
        }
        states
            .chars()
            .map(|c| {
                let at = state.next_due.unwrap();
                state.observe(policy, at, c == '1');
                state.interval / DAY
            })
            .collect()
    }

    fn policy(strategy: Strategy) -> Policy {
        Policy::new(strategy)
    }

    #[test]
    fn first_download_sets_the_initial_interval_and_due_time() {
        let p = policy(Strategy::Fix);
        let mut state = ScheduleState::new(&p);
        assert!(state.is_due(0.0));
        state.observe(&p, T0, true);
        assert_eq!(state.interval, WEEK);
        assert_eq!(state.next_due, Some(T0 + WEEK));
        assert_eq!(state.observations, 0, "the first download is no comparison");
        assert!(!state.is_due(T0 + WEEK - 1.0));
        assert!(state.is_due(T0 + WEEK));
    }

    #[test]
    fn fix_needs_two_snapshots_at_the_interval_then_halves_or_grows() {
        let p = policy(Strategy::Fix);
        let mut state = ScheduleState::new(&p);
        // 7d: one change is not enough; two in a row halve (7d ≤ 1 month): 3.5d; the count
        // restarts, so one more change keeps 3.5d; the next halves to 1.75d; then two
        // unchanged grow by 1.5 (below a month): 2.625d.
        assert_eq!(
            replay(&p, &mut state, "1111" /* */),
            vec![7.0, 3.5, 3.5, 1.75]
        );
        assert_eq!(replay(&p, &mut state, "00"), vec![1.75, 2.625]);
        // Mixed snapshots keep it.
        assert_eq!(replay(&p, &mut state, "10"), vec![2.625, 2.625]);
    }

    #[test]
    fn fix_factors_depend_on_the_month_boundary_and_bounds_clamp() {
        assert_eq!(
            fixed_snapshot_step(60.0 * DAY, Verdict::Shorten),
            40.0 * DAY
        );
        assert_eq!(
            fixed_snapshot_step(30.0 * DAY, Verdict::Shorten),
            15.0 * DAY
        );
        assert_eq!(
            fixed_snapshot_step(20.0 * DAY, Verdict::Lengthen),
            30.0 * DAY
        );
        assert_eq!(
            fixed_snapshot_step(30.0 * DAY, Verdict::Lengthen),
            60.0 * DAY
        );
        assert_eq!(fixed_snapshot_step(30.0 * DAY, Verdict::Keep), 30.0 * DAY);
        let p = policy(Strategy::Fix);
        let mut state = ScheduleState::new(&p);
        // 7 → 3.5 → 1.75 → 1 (clamped at the 1-day minimum) and it stays there.
        let days = replay(&p, &mut state, "11111111");
        assert_eq!(days, vec![7.0, 3.5, 3.5, 1.75, 1.75, 1.0, 1.0, 1.0]);
        // Unchanged: 1 → 1.5 → 2.25 → … ×1.5 below a month, ×2 from a month, up to 180d.
        let days = replay(&p, &mut state, &"0".repeat(24));
        let steps: Vec<f64> = days.iter().step_by(2).copied().collect();
        assert_eq!(steps[..4], [1.0, 1.5, 2.25, 3.375]);
        assert_eq!(*days.last().unwrap(), 180.0);
        assert!(days.windows(2).all(|w| w[1] >= w[0]));
    }

    #[test]
    fn dyn_snapshot_counts_follow_the_interval() {
        assert_eq!(dyn_snapshots(DAY), 4);
        assert_eq!(
            dyn_snapshots(7.0 * DAY),
            4,
            "exactly one week is not above it"
        );
        assert_eq!(dyn_snapshots(8.0 * DAY), 3);
        assert_eq!(dyn_snapshots(31.0 * DAY), 2);
        assert_eq!(dyn_snapshots(61.0 * DAY), 1);
        let p = policy(Strategy::Dyn);
        let mut state = ScheduleState::new(&p);
        // At 7d: 4 snapshots. Fewer than four keep it; 1,1,1,0 is mixed: kept too.
        assert_eq!(replay(&p, &mut state, "1110"), vec![7.0; 4]);
        // The last four are now 1,1,0,… mixed; four unchanged in a row grow it ×1.5.
        assert_eq!(replay(&p, &mut state, "000"), vec![7.0, 7.0, 10.5]);
        // 10.5d is above a week: 3 snapshots. Three unchanged: ×1.5 = 15.75d.
        assert_eq!(replay(&p, &mut state, "000"), vec![10.5, 10.5, 15.75]);
        // 15.75 → 23.625 → 35.4375 (above a month: 2 snapshots, ×2) → 70.875 (above two
        // months: 1 snapshot, ×2) → 141.75 → 180 (clamped).
        assert_eq!(
            replay(&p, &mut state, "000000000"),
            vec![
                15.75, 15.75, 23.625, 23.625, 23.625, 35.4375, 35.4375, 70.875, 141.75
            ]
        );
        assert_eq!(replay(&p, &mut state, "0"), vec![180.0]);
        // One change at 180d (1 snapshot, above a month): ÷1.5 = 120d.
        assert_eq!(replay(&p, &mut state, "1"), vec![120.0]);
    }

    #[test]
    fn window_uses_half_the_history_then_the_last_ten() {
        assert_eq!(window_size(0), 0);
        assert_eq!(window_size(1), 1);
        assert_eq!(window_size(3), 2);
        assert_eq!(window_size(19), 10);
        assert_eq!(window_size(500), 10);
        for (r, factor) in [
            (1.0, 1.0 / 3.0),
            (0.9, 0.5),
            (0.76, 0.5),
            (0.75, 1.0 / 1.5),
            (0.6, 1.0),
            (0.5, 1.0),
            (0.4, 1.0),
            (0.39, 1.5),
            (0.25, 1.5),
            (0.24, 2.0),
            (0.1, 2.0),
            (0.0, 3.0),
        ] {
            assert_eq!(ratio_factor(r), factor, "r = {r}");
        }
        let p = policy(Strategy::Window);
        let mut state = ScheduleState::new(&p);
        // n=1: window [1] → ÷3 = 7/3d; n=2: window [1] (last) → ÷3 = 7/9 → clamped 1d;
        // n=3: window [1,0] (r=0.5) → keep; n=4: [0,0] → ×3 = 3d.
        let days = replay(&p, &mut state, "1100");
        assert!((days[0] - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!(days[1..], [1.0, 1.0, 3.0]);
        // n=5 (window 3: 0,0,1 → 1/3 → ×1.5), n=6 (window 3: 0,1,1 → 2/3 → ÷1.5).
        let days = replay(&p, &mut state, "11");
        assert!((days[0] - 4.5).abs() < 1e-12 && (days[1] - 3.0).abs() < 1e-12);
    }

    #[test]
    fn markov_counts_are_kept_per_interval_as_in_table_1() {
        let p = policy(Strategy::Week);
        let mut state = ScheduleState::new(&p);
        let sequence = format!("0{}", "1".repeat(20));
        replay(&p, &mut state, &sequence);
        let counts = state.transitions_at(WEEK).unwrap();
        // The first state has no predecessor; then one 0→1 and nineteen 1→1.
        assert_eq!(counts.first, [[0, 1], [0, 19]]);
        assert_eq!(counts.second, [[[0, 0], [0, 1]], [[0, 0], [0, 18]]]);
        assert_eq!(counts.recent, "11");
        // Table 1: (n−1=0 → n=0) 10, (0 → 1) 40, (1 → 0) 50, (1 → 1) 10; the paper's
        // example P(1|0) = 40 / 50 is the bare count (prior 0).
        let mut table = ScheduleState::new(&p);
        table.interval = WEEK;
        table.transitions.insert(
            WEEK as u64,
            TransitionCounts {
                first: [[10, 40], [50, 10]],
                recent: "0".into(),
                ..Default::default()
            },
        );
        assert_eq!(change_probability(&table, 1, 0.0), Some(0.8));
        assert_eq!(change_probability(&table, 1, 1.0), Some(41.0 / 52.0));
        fn week_counts(t: &mut ScheduleState) -> &mut TransitionCounts {
            t.transitions.get_mut(&(WEEK as u64)).unwrap()
        }
        week_counts(&mut table).recent = "1".into();
        assert_eq!(change_probability(&table, 1, 0.0), Some(10.0 / 60.0));
        // state-2 with an empty row falls back to state-1; with counts it uses them.
        week_counts(&mut table).recent = "01".into();
        assert_eq!(change_probability(&table, 2, 0.0), Some(10.0 / 60.0));
        week_counts(&mut table).second[0][1] = [1, 3];
        assert_eq!(change_probability(&table, 2, 0.0), Some(0.75));
        assert_eq!(change_probability(&table, 2, 1.0), Some(4.0 / 6.0));
        // Another interval has its own (empty) knowledge: nothing without a prior, an even
        // chance (keep the interval) with one.
        table.interval = 2.0 * WEEK;
        assert_eq!(change_probability(&table, 1, 0.0), None);
        table.transitions.insert(
            (2.0 * WEEK) as u64,
            TransitionCounts {
                recent: "1".into(),
                ..Default::default()
            },
        );
        assert_eq!(change_probability(&table, 1, 0.0), None);
        assert_eq!(change_probability(&table, 1, 1.0), Some(0.5));
    }

    #[test]
    fn markov_sequences_do_not_cross_intervals() {
        let p = policy(Strategy::Week);
        let mut state = ScheduleState::new(&p);
        replay(&p, &mut state, "1");
        // Two observations at two weeks between the weekly ones: their states join the
        // two-week sequence only, and the weekly sequence continues from its own last state.
        state.set_interval(2.0 * WEEK);
        let at = state.next_due.unwrap();
        state.observe(&Policy::new(Strategy::Freshness), at, false);
        let at = state.next_due.unwrap();
        state.observe(&Policy::new(Strategy::Freshness), at, false);
        state.set_interval(WEEK);
        replay(&p, &mut state, "1");
        let week = state.transitions_at(WEEK).unwrap();
        assert_eq!(week.first, [[0, 0], [0, 1]], "1 → 1 at one week");
        assert_eq!(week.recent, "11");
        let fortnight = state.transitions_at(2.0 * WEEK).unwrap();
        assert_eq!(fortnight.first, [[1, 0], [0, 0]], "0 → 0 at two weeks");
        assert_eq!(fortnight.recent, "00");
        assert_eq!(
            state.history, "1001",
            "the document's own sequence is whole"
        );
    }

    #[test]
    fn state_1_without_prior_counts_as_the_paper() {
        let p = Policy {
            markov_prior: 0.0,
            ..policy(Strategy::State1)
        };
        let mut state = ScheduleState::new(&p);
        // 7d: the first state at 7d has no predecessor: keep. Second: 1→1 at 7d, P(1|1) = 1
        // → ÷3 = 7/3d. At 7/3d nothing is known: keep; then 1→1: ÷3 = 7/9d, clamped to 1d.
        let days = replay(&p, &mut state, "1111");
        assert_eq!(days[0], 7.0);
        assert!((days[1] - 7.0 / 3.0).abs() < 1e-12);
        assert!((days[2] - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!(days[3], 1.0);
        // At 1d: first state, keep; 0→0: P(1|0) = 0 → ×3.
        assert_eq!(replay(&p, &mut state, "00"), vec![1.0, 3.0]);
        // At 3d: first state, keep; 1→0 leaves the row of 0 at 3d empty: keep.
        assert_eq!(replay(&p, &mut state, "10"), vec![3.0, 3.0]);
        // Then 0→1 at 3d: the row of 1 holds the one 1→0, P(1|1) = 0 → ×3 = 9d; at 9d
        // nothing is known: keep.
        assert_eq!(replay(&p, &mut state, "11"), vec![9.0, 9.0]);
    }

    #[test]
    fn state_1_with_the_default_prior_moves_by_one_step_on_one_transition() {
        let p = policy(Strategy::State1);
        assert_eq!(p.markov_prior, DEFAULT_MARKOV_PRIOR);
        let mut state = ScheduleState::new(&p);
        // 1→1 once: (1 + 1) / (1 + 2) = 2/3 → ÷1.5; twice at one interval: 3/4 → ÷1.5; three
        // times: 4/5 → ÷2.
        let days = replay(&p, &mut state, "11");
        assert_eq!(days[0], 7.0);
        assert!((days[1] - 7.0 / 1.5).abs() < 1e-12);
        let p_week = policy(Strategy::Week);
        let mut counted = ScheduleState::new(&p_week);
        replay(&p_week, &mut counted, "1111");
        assert_eq!(change_probability(&counted, 1, 1.0), Some(4.0 / 5.0));
        assert_eq!(ratio_factor(4.0 / 5.0), 0.5);
        // 0→0 once: 1/3 → ×1.5.
        let mut state = ScheduleState::new(&p);
        let days = replay(&p, &mut state, "00");
        assert!((days[1] - 10.5).abs() < 1e-12);
    }

    #[test]
    fn state_2_conditions_on_the_last_two_states_at_the_interval() {
        let p = Policy {
            markov_prior: 0.0,
            ..policy(Strategy::Week)
        };
        let mut state = ScheduleState::new(&p);
        // At 7d: 1,1,0 then 1,1,0: the (1,1) row of state-2 holds two 1,1→0; the state-1 row
        // of 1 holds 1→1 twice and 1→0 twice.
        replay(&p, &mut state, "110110");
        let counts = state.transitions_at(WEEK).unwrap();
        assert_eq!(counts.second[1][1], [2, 0]);
        assert_eq!(counts.first[1], [2, 2]);
        // Two more changes: the latest two at 7d are 1,1. state-2 reads its (1,1) row, two
        // 1,1→0: P = 0 (×3); state-1 reads the row of 1, three 1→1 in five: P = 0.6 (keep).
        replay(&p, &mut state, "11");
        assert_eq!(change_probability(&state, 2, 0.0), Some(0.0));
        assert_eq!(change_probability(&state, 1, 0.0), Some(0.6));
        let p2 = Policy {
            markov_prior: 0.0,
            ..policy(Strategy::State2)
        };
        assert_eq!(p2.proposed_interval(&state), 3.0 * WEEK);
        let p1 = Policy {
            markov_prior: 0.0,
            ..policy(Strategy::State1)
        };
        assert_eq!(p1.proposed_interval(&state), WEEK);
    }

    #[test]
    fn dyldo_doubles_after_two_consecutive_changes_at_its_interval_up_to_16_a_week() {
        let p = policy(Strategy::Dyldo);
        let mut state = ScheduleState::new(&p);
        let week = 7.0;
        // One change is not enough; a change then none neither; two in a row: 2× a week.
        assert_eq!(
            replay(&p, &mut state, "1011"),
            vec![week, week, week, week / 2.0]
        );
        // The count restarts at the new interval: one change keeps it, the second doubles.
        assert_eq!(replay(&p, &mut state, "11"), vec![week / 2.0, week / 4.0]);
        assert_eq!(
            replay(&p, &mut state, "0110"),
            vec![week / 4.0, week / 4.0, week / 8.0, week / 8.0]
        );
        // 16 a week (10.5 h) is the top, below the policy's 1-day minimum, which dyldo
        // does not apply; more changes keep it.
        assert_eq!(replay(&p, &mut state, "11"), vec![week / 8.0, week / 16.0]);
        assert_eq!(replay(&p, &mut state, "1111"), vec![week / 16.0; 4]);
        assert_eq!(state.interval, WEEK / 16.0);
        // No way down: unchanged snapshots keep the level.
        assert_eq!(replay(&p, &mut state, "0000"), vec![week / 16.0; 4]);
        assert_eq!(dyldo_level(WEEK, state.interval), Some(DYLDO_MAX_LEVEL));
    }

    #[test]
    fn dyldo_levels_follow_the_policy_week_and_start_there() {
        let p = Policy {
            fixed_interval: 14.0 * DAY,
            initial_interval: 3.0 * DAY,
            ..policy(Strategy::Dyldo)
        };
        let mut state = ScheduleState::new(&p);
        // An initial interval off the levels: the first download sets the (two-)week level.
        assert_eq!(replay(&p, &mut state, "11"), vec![14.0, 7.0]);
        assert_eq!(dyldo_level(14.0 * DAY, 7.0 * DAY), Some(1));
        assert_eq!(dyldo_level(14.0 * DAY, 3.0 * DAY), None);
        assert_eq!(dyldo_step(WEEK, 9), WEEK / 16.0, "capped at 16 a week");
        assert_eq!("dyldo".parse::<Strategy>().unwrap(), Strategy::Dyldo);
    }

    #[test]
    fn week_and_gold_are_fixed() {
        let p = policy(Strategy::Week);
        let mut state = ScheduleState::new(&p);
        assert_eq!(replay(&p, &mut state, "1010"), vec![7.0; 4]);
        let p = Policy {
            fixed_interval: 3.0 * DAY,
            ..policy(Strategy::Week)
        };
        let mut state = ScheduleState::new(&p);
        assert_eq!(replay(&p, &mut state, "11"), vec![3.0, 3.0]);
        let p = policy(Strategy::Gold);
        let mut state = ScheduleState::new(&p);
        state.known_rate = Some(1.0 / (10.0 * DAY));
        assert_eq!(replay(&p, &mut state, "000"), vec![10.0; 3]);
        state.known_rate = Some(10.0 / DAY);
        assert_eq!(replay(&p, &mut state, "0"), vec![1.0], "clamped to 1 day");
        state.known_rate = None;
        assert_eq!(replay(&p, &mut state, "0"), vec![180.0], "never changes");
    }

    #[test]
    fn state_round_trips_through_json_and_keeps_a_bounded_history() {
        let p = policy(Strategy::State2);
        let mut state = ScheduleState::new(&p);
        replay(&p, &mut state, &"1101".repeat(20));
        assert_eq!(state.history.len(), HISTORY_LIMIT);
        assert_eq!(state.observations, 80);
        assert_eq!(state.changes, 60);
        let json = serde_json::to_string(&state).unwrap();
        let mut back: ScheduleState = serde_json::from_str(&json).unwrap();
        assert_eq!(back.history, state.history);
        assert_eq!(back.transitions, state.transitions);
        assert_eq!(
            (back.observations, back.changes, back.at_interval),
            (state.observations, state.changes, state.at_interval)
        );
        assert!((back.interval - state.interval).abs() < 1e-6);
        let due = state.next_due.unwrap();
        assert!((back.next_due.unwrap() - due).abs() < 1e-6);
        back.observe(&p, due, true);
        state.observe(&p, due, true);
        assert!((back.interval - state.interval).abs() < 1e-6);
        assert_eq!(back.history, state.history);
    }

    #[test]
    fn strategies_parse_by_name() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
        }
        assert_eq!("state1".parse::<Strategy>().unwrap(), Strategy::State1);
        let error = "daily".parse::<Strategy>().unwrap_err().to_string();
        assert!(error.contains("unknown strategy 'daily'"), "{error}");
        assert!(Policy::new(Strategy::Fix).validate().is_ok());
        let bad = Policy {
            min_interval: 10.0 * DAY,
            max_interval: DAY,
            ..Policy::new(Strategy::Fix)
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn estimated_rate_is_bias_reduced() {
        let p = policy(Strategy::Week);
        let mut state = ScheduleState::new(&p);
        assert_eq!(state.estimated_rate(), None);
        replay(&p, &mut state, "1111");
        // n = X = 4 at 7d: −ln(0.5 / 4.5) / 7d.
        let expected = (4.5f64 / 0.5).ln() / WEEK;
        assert!((state.estimated_rate().unwrap() - expected).abs() < 1e-15);
    }
}
