//! The monitor's tables in the state store (`<root>/state/state.sqlite`, beside the crawl
//! log): the schedule of every monitored URL (its [`ScheduleState`] as JSON, its place in the
//! kernel or the segment, its latest digest, graph hash and links), one row per observation,
//! and one row per cycle. Opened on its own connection so the crawler's store stays as it is.
//!
//! Everything a cycle learns is written in one transaction at its end ([`MonitorTable::commit_cycle`]):
//! a cycle killed before that leaves the previous state intact, and its URLs are still due.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::MonitorError;
use ldwarc_dynamics::schedule::ScheduleState;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS monitor_schedule (
    url TEXT PRIMARY KEY,
    kernel INTEGER NOT NULL,
    hops INTEGER NOT NULL,
    active INTEGER NOT NULL,
    state_json TEXT NOT NULL,
    next_due REAL,
    digest TEXT,
    graph_hash TEXT,
    links_json TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS monitor_observations (
    id INTEGER PRIMARY KEY,
    cycle INTEGER NOT NULL,
    url TEXT NOT NULL,
    at REAL NOT NULL,
    first INTEGER NOT NULL,
    byte_changed INTEGER NOT NULL,
    graph_changed INTEGER,
    changed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS monitor_observations_url ON monitor_observations(url, at);
CREATE TABLE IF NOT EXISTS monitor_cycles (
    cycle INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    clock TEXT NOT NULL,
    strategy TEXT NOT NULL,
    urls INTEGER NOT NULL,
    model_s REAL NOT NULL,
    estimate_s REAL NOT NULL,
    paper_s REAL NOT NULL,
    actual_s REAL,
    cycle_s REAL,
    fetched INTEGER,
    changed INTEGER,
    crawl INTEGER,
    finished TEXT
);
";

/// One monitored URL as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The URL.
    pub url: String,
    /// In the kernel (a seed, always monitored) rather than the segment.
    pub kernel: bool,
    /// Hops from the kernel (0 for the kernel).
    pub hops: u32,
    /// Monitored now (segment URLs no longer reachable are kept, inactive).
    pub active: bool,
    /// Its schedule.
    pub state: ScheduleState,
    /// Payload digest of the latest capture the monitor compared.
    pub digest: Option<String>,
    /// Canonical hash of that capture's graph (hex), when it parsed as RDF.
    pub graph_hash: Option<String>,
    /// Its links (http(s) IRIs of that graph), for discovering the segment.
    pub links: Vec<String>,
}

/// One observation: a download of a URL in a cycle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    /// The cycle.
    pub cycle: i64,
    /// The URL.
    pub url: String,
    /// The cycle's clock, seconds since the epoch.
    pub at: f64,
    /// The URL's first download (compared with nothing).
    pub first: bool,
    /// The payload bytes differ from the previous download's.
    pub byte_changed: bool,
    /// The canonical graph differs (`None`: a graph was missing on either side).
    pub graph_changed: Option<bool>,
    /// What the strategy was told: the graph verdict, else the bytes'.
    pub changed: bool,
}

/// One cycle's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CycleRow {
    /// The cycle number (1, 2, …).
    pub cycle: i64,
    /// When it started (wall clock, RFC 3339 UTC).
    pub started: String,
    /// The cycle's clock (`--now`, or the wall clock), RFC 3339 UTC.
    pub clock: String,
    /// The strategy.
    pub strategy: String,
    /// URLs picked.
    pub urls: u64,
    /// The politeness simulation of the picked URLs, seconds.
    pub model_s: f64,
    /// The estimate: the model plus the observed start-up overhead, seconds.
    pub estimate_s: f64,
    /// The paper's first-fit estimate, seconds.
    pub paper_s: f64,
    /// The crawl's wall time, seconds (`None` while running or when killed).
    pub actual_s: Option<f64>,
    /// The whole cycle's wall time, seconds.
    pub cycle_s: Option<f64>,
    /// URLs downloaded.
    pub fetched: Option<u64>,
    /// Of which changed.
    pub changed: Option<u64>,
    /// The crawl's id in the crawl log.
    pub crawl: Option<i64>,
    /// When it finished (wall clock), `None` for a cycle that did not.
    pub finished: Option<String>,
}

/// The monitor's tables, wherever they are kept: the embedded [`MonitorTable`] of one
/// archive, or [`PgMonitorTable`](super::PgMonitorTable) shared by the monitors of several
/// nodes. A cycle reads and writes them only through this trait.
pub trait MonitorTables {
    /// Adds kernel URLs not yet stored (a stored URL is made kernel and active, its
    /// schedule kept). Returns how many were new.
    fn add_kernel(&mut self, urls: &[String], fresh: &ScheduleState)
    -> Result<usize, MonitorError>;
    /// Every stored URL, kernel first, then by URL.
    fn members(&mut self) -> Result<Vec<Member>, MonitorError>;
    /// The next cycle's number.
    fn next_cycle(&mut self) -> Result<i64, MonitorError>;
    /// Records a cycle as started (committed at once, so a killed cycle stays visible).
    fn start_cycle(&mut self, row: &CycleRow) -> Result<(), MonitorError>;
    /// Writes everything a cycle learned in one transaction: the members' new state, the
    /// observations, and the cycle's end.
    fn commit_cycle(
        &mut self,
        members: &[&Member],
        observations: &[Observation],
        row: &CycleRow,
    ) -> Result<(), MonitorError>;
    /// Every cycle, oldest first.
    fn cycles(&mut self) -> Result<Vec<CycleRow>, MonitorError>;
    /// Every observation, oldest first.
    fn observations(&mut self) -> Result<Vec<Observation>, MonitorError>;
    /// Timed document and robots.txt fetches of the latest `recent` crawls of the crawl log
    /// beside these tables.
    fn timed_fetches(&mut self, recent: i64) -> Result<Vec<TimedFetch>, MonitorError>;
}

impl MonitorTables for MonitorTable {
    fn add_kernel(
        &mut self,
        urls: &[String],
        fresh: &ScheduleState,
    ) -> Result<usize, MonitorError> {
        MonitorTable::add_kernel(self, urls, fresh)
    }

    fn members(&mut self) -> Result<Vec<Member>, MonitorError> {
        MonitorTable::members(self)
    }

    fn next_cycle(&mut self) -> Result<i64, MonitorError> {
        MonitorTable::next_cycle(self)
    }

    fn start_cycle(&mut self, row: &CycleRow) -> Result<(), MonitorError> {
        MonitorTable::start_cycle(self, row)
    }

    fn commit_cycle(
        &mut self,
        members: &[&Member],
        observations: &[Observation],
        row: &CycleRow,
    ) -> Result<(), MonitorError> {
        MonitorTable::commit_cycle(self, members, observations, row)
    }

    fn cycles(&mut self) -> Result<Vec<CycleRow>, MonitorError> {
        MonitorTable::cycles(self)
    }

    fn observations(&mut self) -> Result<Vec<Observation>, MonitorError> {
        MonitorTable::observations(self)
    }

    fn timed_fetches(&mut self, recent: i64) -> Result<Vec<TimedFetch>, MonitorError> {
        MonitorTable::timed_fetches(self, recent)
    }
}

/// The monitor's tables.
pub struct MonitorTable {
    path: PathBuf,
    connection: Connection,
}

impl MonitorTable {
    /// Opens (creating if needed) the tables in `state_dir/state.sqlite`.
    pub fn open(state_dir: &Path) -> Result<MonitorTable, MonitorError> {
        let path = state_dir.join("state.sqlite");
        std::fs::create_dir_all(state_dir)
            .map_err(|e| MonitorError::Io(format!("{}: {e}", state_dir.display())))?;
        let connection = Connection::open(&path).map_err(|e| sql(&path, e))?;
        connection
            .busy_timeout(Duration::from_secs(30))
            .map_err(|e| sql(&path, e))?;
        connection
            .execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .map_err(|e| sql(&path, e))?;
        connection
            .execute_batch(SCHEMA)
            .map_err(|e| sql(&path, e))?;
        Ok(MonitorTable { path, connection })
    }

    fn fail(&self, error: rusqlite::Error) -> MonitorError {
        sql(&self.path, error)
    }

    /// Adds kernel URLs not yet stored (a stored URL is made kernel and active, its schedule
    /// kept). Returns how many were new.
    pub fn add_kernel(
        &mut self,
        urls: &[String],
        fresh: &ScheduleState,
    ) -> Result<usize, MonitorError> {
        let json = to_json(fresh)?;
        let transaction = self
            .connection
            .transaction()
            .map_err(|e| sql(&self.path, e))?;
        let mut added = 0;
        for url in urls {
            added += transaction
                .execute(
                    "INSERT OR IGNORE INTO monitor_schedule (url, kernel, hops, active, state_json)
                     VALUES (?1, 1, 0, 1, ?2)",
                    params![url, json],
                )
                .map_err(|e| sql(&self.path, e))?;
            transaction
                .execute(
                    "UPDATE monitor_schedule SET kernel = 1, hops = 0, active = 1 WHERE url = ?1",
                    params![url],
                )
                .map_err(|e| sql(&self.path, e))?;
        }
        transaction.commit().map_err(|e| sql(&self.path, e))?;
        Ok(added)
    }

    /// Every stored URL, kernel first, then by URL.
    pub fn members(&self) -> Result<Vec<Member>, MonitorError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT url, kernel, hops, active, state_json, digest, graph_hash, links_json
                 FROM monitor_schedule ORDER BY kernel DESC, url",
            )
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, bool>(1)?,
                    row.get::<_, u32>(2)?,
                    row.get::<_, bool>(3)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, Option<String>>(6)?,
                    row.get::<_, String>(7)?,
                ))
            })
            .map_err(|e| self.fail(e))?;
        let mut members = Vec::new();
        for row in rows {
            let (url, kernel, hops, active, state, digest, graph_hash, links) =
                row.map_err(|e| self.fail(e))?;
            let bad = |what: &str, e: serde_json::Error| {
                MonitorError::Store(format!(
                    "{}: monitor_schedule row {url}: {what}: {e}",
                    self.path.display()
                ))
            };
            members.push(Member {
                state: serde_json::from_str(&state).map_err(|e| bad("state_json", e))?,
                links: serde_json::from_str(&links).map_err(|e| bad("links_json", e))?,
                url,
                kernel,
                hops,
                active,
                digest,
                graph_hash,
            });
        }
        Ok(members)
    }

    /// The next cycle's number.
    pub fn next_cycle(&self) -> Result<i64, MonitorError> {
        let last: Option<i64> = self
            .connection
            .query_row("SELECT MAX(cycle) FROM monitor_cycles", [], |row| {
                row.get(0)
            })
            .map_err(|e| self.fail(e))?;
        Ok(last.unwrap_or(0) + 1)
    }

    /// Records a cycle as started (committed at once, so a killed cycle stays visible).
    pub fn start_cycle(&self, row: &CycleRow) -> Result<(), MonitorError> {
        self.connection
            .execute(
                "INSERT OR REPLACE INTO monitor_cycles
                    (cycle, started, clock, strategy, urls, model_s, estimate_s, paper_s)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    row.cycle,
                    row.started,
                    row.clock,
                    row.strategy,
                    row.urls,
                    row.model_s,
                    row.estimate_s,
                    row.paper_s
                ],
            )
            .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// Writes everything a cycle learned in one transaction: the members' new state, the
    /// observations, and the cycle's end.
    pub fn commit_cycle(
        &mut self,
        members: &[&Member],
        observations: &[Observation],
        row: &CycleRow,
    ) -> Result<(), MonitorError> {
        let path = self.path.clone();
        let fail = |e| sql(&path, e);
        let transaction = self.connection.transaction().map_err(fail)?;
        for member in members {
            transaction
                .execute(
                    "INSERT OR REPLACE INTO monitor_schedule
                        (url, kernel, hops, active, state_json, next_due, digest, graph_hash,
                         links_json)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        member.url,
                        member.kernel,
                        member.hops,
                        member.active,
                        to_json(&member.state)?,
                        member.state.next_due,
                        member.digest,
                        member.graph_hash,
                        serde_json::to_string(&member.links)
                            .map_err(|e| MonitorError::Store(e.to_string()))?,
                    ],
                )
                .map_err(fail)?;
        }
        for o in observations {
            transaction
                .execute(
                    "INSERT INTO monitor_observations
                        (cycle, url, at, first, byte_changed, graph_changed, changed)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![
                        o.cycle,
                        o.url,
                        o.at,
                        o.first,
                        o.byte_changed,
                        o.graph_changed,
                        o.changed
                    ],
                )
                .map_err(fail)?;
        }
        transaction
            .execute(
                "UPDATE monitor_cycles SET actual_s = ?2, cycle_s = ?3, fetched = ?4,
                    changed = ?5, crawl = ?6, finished = ?7 WHERE cycle = ?1",
                params![
                    row.cycle,
                    row.actual_s,
                    row.cycle_s,
                    row.fetched,
                    row.changed,
                    row.crawl,
                    row.finished
                ],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(())
    }

    /// Every cycle, oldest first.
    pub fn cycles(&self) -> Result<Vec<CycleRow>, MonitorError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT cycle, started, clock, strategy, urls, model_s, estimate_s, paper_s,
                        actual_s, cycle_s, fetched, changed, crawl, finished
                 FROM monitor_cycles ORDER BY cycle",
            )
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok(CycleRow {
                    cycle: row.get(0)?,
                    started: row.get(1)?,
                    clock: row.get(2)?,
                    strategy: row.get(3)?,
                    urls: row.get(4)?,
                    model_s: row.get(5)?,
                    estimate_s: row.get(6)?,
                    paper_s: row.get(7)?,
                    actual_s: row.get(8)?,
                    cycle_s: row.get(9)?,
                    fetched: row.get(10)?,
                    changed: row.get(11)?,
                    crawl: row.get(12)?,
                    finished: row.get(13)?,
                })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.fail(e))
    }

    /// Every observation, oldest first.
    pub fn observations(&self) -> Result<Vec<Observation>, MonitorError> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT cycle, url, at, first, byte_changed, graph_changed, changed
                 FROM monitor_observations ORDER BY at, id",
            )
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map([], |row| {
                Ok(Observation {
                    cycle: row.get(0)?,
                    url: row.get(1)?,
                    at: row.get(2)?,
                    first: row.get(3)?,
                    byte_changed: row.get(4)?,
                    graph_changed: row.get(5)?,
                    changed: row.get(6)?,
                })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.fail(e))
    }

    /// Document fetches of the crawl log (all crawls, or the latest `recent` crawls):
    /// `(crawl, url, kind, time, seconds)` for fetches with a measured duration, in log order.
    pub fn timed_fetches(&self, recent: i64) -> Result<Vec<TimedFetch>, MonitorError> {
        let exists: Option<String> = self
            .connection
            .query_row(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'fetches'",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.fail(e))?;
        if exists.is_none() {
            return Ok(Vec::new());
        }
        let mut statement = self
            .connection
            .prepare(
                "SELECT crawl, url, kind, time, duration_ms FROM fetches
                 WHERE duration_ms IS NOT NULL
                   AND crawl > (SELECT COALESCE(MAX(crawl), 0) FROM fetches) - ?1
                 ORDER BY id",
            )
            .map_err(|e| self.fail(e))?;
        let rows = statement
            .query_map([recent], |row| {
                let time: String = row.get(3)?;
                Ok(TimedFetch {
                    crawl: row.get(0)?,
                    url: row.get(1)?,
                    robots: row.get::<_, String>(2)? == "robots",
                    started: chrono::DateTime::parse_from_rfc3339(&time)
                        .map(|t| t.timestamp_micros() as f64 / 1e6)
                        .unwrap_or(f64::NAN),
                    seconds: row.get::<_, f64>(4)? / 1000.0,
                })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.fail(e))
    }
}

/// One timed request of the crawl log.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedFetch {
    /// The crawl.
    pub crawl: i64,
    /// The URL requested.
    pub url: String,
    /// A robots.txt request.
    pub robots: bool,
    /// When it was sent, seconds since the epoch (NaN if unreadable).
    pub started: f64,
    /// How long it took, seconds.
    pub seconds: f64,
}

fn to_json(state: &ScheduleState) -> Result<String, MonitorError> {
    serde_json::to_string(state).map_err(|e| MonitorError::Store(format!("schedule state: {e}")))
}

fn sql(path: &Path, error: rusqlite::Error) -> MonitorError {
    MonitorError::Store(format!("{}: {error}", path.display()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ldwarc_dynamics::schedule::{Policy, Strategy};

    fn row(cycle: i64) -> CycleRow {
        CycleRow {
            cycle,
            started: "2026-01-01T00:00:00Z".into(),
            clock: "2026-01-01T00:00:00Z".into(),
            strategy: "fix".into(),
            urls: 2,
            model_s: 1.0,
            estimate_s: 1.1,
            paper_s: 2.0,
            actual_s: None,
            cycle_s: None,
            fetched: None,
            changed: None,
            crawl: None,
            finished: None,
        }
    }

    /// The behaviour every backend of [`MonitorTables`] shows; `open` opens the same
    /// (initially empty) tables again each time it is called.
    pub(crate) fn exercise_tables(open: &mut dyn FnMut() -> Box<dyn MonitorTables>) {
        let policy = Policy::new(Strategy::Fix);
        let fresh = ScheduleState::new(&policy);
        let kernel = vec![
            "http://a.example/1".to_string(),
            "http://a.example/2".to_string(),
        ];
        {
            let mut table = open();
            assert_eq!(table.add_kernel(&kernel, &fresh).unwrap(), 2);
            assert_eq!(table.add_kernel(&kernel, &fresh).unwrap(), 0, "stored once");
            assert_eq!(table.next_cycle().unwrap(), 1);
            table.start_cycle(&row(1)).unwrap();
        }
        let mut table = open();
        assert_eq!(table.next_cycle().unwrap(), 2, "a started cycle counts");
        let cycles = table.cycles().unwrap();
        assert_eq!(cycles[0].finished, None, "killed before committing");
        let mut members = table.members().unwrap();
        assert_eq!(members.len(), 2);
        assert!(members.iter().all(|m| m.kernel && m.active && m.hops == 0));
        members[0].state.observe(&policy, 1000.0, false);
        members[0].digest = Some("sha1:X".into());
        members[0].links = vec!["http://b.example/".into()];
        let observation = Observation {
            cycle: 1,
            url: members[0].url.clone(),
            at: 1000.0,
            first: true,
            byte_changed: false,
            graph_changed: None,
            changed: false,
        };
        let mut done = row(1);
        done.actual_s = Some(1.2);
        done.fetched = Some(1);
        done.finished = Some("2026-01-01T00:00:02Z".into());
        table
            .commit_cycle(&[&members[0]], std::slice::from_ref(&observation), &done)
            .unwrap();
        let stored = table.members().unwrap();
        assert_eq!(stored[0].state.last_download, Some(1000.0));
        assert_eq!(stored[0].links, vec!["http://b.example/".to_string()]);
        assert_eq!(stored[0].digest.as_deref(), Some("sha1:X"));
        assert_eq!(stored[1].state.last_download, None);
        assert_eq!(table.observations().unwrap(), vec![observation]);
        assert_eq!(table.cycles().unwrap(), vec![done]);
        assert!(
            table.timed_fetches(5).unwrap().is_empty(),
            "no crawl log yet"
        );
    }

    #[test]
    fn kernel_and_cycles_survive_reopening_and_a_cycle_commits_as_one() {
        let dir = tempfile::tempdir().unwrap();
        exercise_tables(&mut || -> Box<dyn MonitorTables> {
            Box::new(MonitorTable::open(dir.path()).unwrap())
        });
    }
}
