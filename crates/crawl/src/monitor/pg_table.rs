//! The monitor's tables in a shared PostgreSQL database (`--state postgres://…`), for
//! monitors on several nodes: the same schedule, observation and cycle tables as the embedded
//! [`MonitorTable`](super::MonitorTable), plus the node that wrote each observation and cycle,
//! and the lock that serialises cycles across every node.
//!
//! The cycle lock is a session-level advisory lock (`pg_try_advisory_lock`) on the table's own
//! connection: PostgreSQL drops it when that session ends, also when the node dies, so no
//! stale lock ever blocks the other nodes. Every write of a locked table goes through the
//! session holding the lock, and [`PgMonitorTable::commit_cycle`] checks in its transaction
//! that the lock is still held: a node whose session was lost (and with it the lock, which
//! another node may have taken since) commits nothing.

use std::str::FromStr;

use postgres::{Client, NoTls, Row};

use super::MonitorError;
use super::table::{CycleRow, Member, MonitorTables, Observation, TimedFetch};
use ldwarc_dynamics::schedule::ScheduleState;
use ldwarc_state::describe_database;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS monitor_schedule (
    url TEXT PRIMARY KEY,
    kernel BOOLEAN NOT NULL,
    hops BIGINT NOT NULL,
    active BOOLEAN NOT NULL,
    state_json TEXT NOT NULL,
    next_due DOUBLE PRECISION,
    digest TEXT,
    graph_hash TEXT,
    links_json TEXT NOT NULL DEFAULT '[]',
    node TEXT
);
CREATE TABLE IF NOT EXISTS monitor_observations (
    id BIGSERIAL PRIMARY KEY,
    cycle BIGINT NOT NULL,
    url TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    first BOOLEAN NOT NULL,
    byte_changed BOOLEAN NOT NULL,
    graph_changed BOOLEAN,
    changed BOOLEAN NOT NULL,
    node TEXT
);
CREATE INDEX IF NOT EXISTS monitor_observations_url ON monitor_observations(url, at);
CREATE TABLE IF NOT EXISTS monitor_cycles (
    cycle BIGINT PRIMARY KEY,
    started TEXT NOT NULL,
    clock TEXT NOT NULL,
    strategy TEXT NOT NULL,
    urls BIGINT NOT NULL,
    model_s DOUBLE PRECISION NOT NULL,
    estimate_s DOUBLE PRECISION NOT NULL,
    paper_s DOUBLE PRECISION NOT NULL,
    actual_s DOUBLE PRECISION,
    cycle_s DOUBLE PRECISION,
    fetched BIGINT,
    changed BIGINT,
    crawl BIGINT,
    finished TEXT,
    node TEXT
);
";

/// Serialises the schema's creation by several nodes (`CREATE TABLE IF NOT EXISTS` is not
/// safe against itself); the constant spells "ldwa" "msch".
const SCHEMA_LOCK: (i32, i32) = (0x6c64_7761, 0x6d73_6368);

/// The cycle lock's two keys (`pg_try_advisory_lock(int4, int4)`); they spell "ldwa" "moni".
pub const CYCLE_LOCK: (i32, i32) = (0x6c64_7761, 0x6d6f_6e69);

/// The monitor's tables in PostgreSQL, on one connection of this node.
pub struct PgMonitorTable {
    database: String,
    node: String,
    client: Client,
    locked: bool,
}

impl PgMonitorTable {
    /// Connects to `url` as `node` and creates the tables if they are missing. The session
    /// is named `ldwarc monitor <node> pid <pid>`, so a refused node can name the holder.
    pub fn connect(url: &str, node: &str) -> Result<PgMonitorTable, MonitorError> {
        let database = describe_database(url);
        let fail = |e: postgres::Error| MonitorError::Store(format!("{database}: {e}"));
        let mut config = postgres::Config::from_str(url).map_err(fail)?;
        config.application_name(&format!("ldwarc monitor {node} pid {}", std::process::id()));
        let client = config.connect(NoTls).map_err(fail)?;
        let mut table = PgMonitorTable {
            database,
            node: node.to_string(),
            client,
            locked: false,
        };
        table.create_schema()?;
        Ok(table)
    }

    fn create_schema(&mut self) -> Result<(), MonitorError> {
        let database = self.database.clone();
        let fail = |e: postgres::Error| MonitorError::Store(format!("{database}: {e}"));
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute(
                "SELECT pg_advisory_xact_lock($1, $2)",
                &[&SCHEMA_LOCK.0, &SCHEMA_LOCK.1],
            )
            .map_err(fail)?;
        transaction.batch_execute(SCHEMA).map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    /// The database, as errors name it (no password).
    pub fn database(&self) -> &str {
        &self.database
    }

    /// Takes the cycle lock shared by every node, or refuses at once (no waiting) naming
    /// the session that holds it. Held until this table is dropped.
    pub fn lock(&mut self) -> Result<(), MonitorError> {
        if self.locked {
            return Ok(());
        }
        let rows = self.query(
            "SELECT pg_try_advisory_lock($1, $2)",
            &[&CYCLE_LOCK.0, &CYCLE_LOCK.1],
        )?;
        let taken = rows
            .first()
            .map(|row| self.get::<bool>(row, 0))
            .transpose()?
            .unwrap_or(false);
        if !taken {
            let holder = self.lock_holder();
            return Err(MonitorError::Locked(format!(
                "another monitor cycle is running on {} ({holder})",
                self.database
            )));
        }
        self.locked = true;
        Ok(())
    }

    /// The session holding the cycle lock, as PostgreSQL names it (best effort).
    fn lock_holder(&mut self) -> String {
        let found = self.client.query(
            "SELECT a.application_name, to_char(a.backend_start AT TIME ZONE 'UTC',
                                                  'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
               AND l.classid::bigint = $1 AND l.objid::bigint = $2",
            &[&i64::from(CYCLE_LOCK.0), &i64::from(CYCLE_LOCK.1)],
        );
        let holder = found.ok().and_then(|rows| {
            let row = rows.first()?;
            let name: Option<String> = row.try_get(0).ok()?;
            let since: Option<String> = row.try_get(1).ok()?;
            Some(format!(
                "{} since {}",
                name.filter(|n| !n.is_empty())
                    .unwrap_or_else(|| "a session".into()),
                since.unwrap_or_else(|| "?".into())
            ))
        });
        holder.unwrap_or_else(|| "another node".to_string())
    }

    fn fail(&self, error: postgres::Error) -> MonitorError {
        MonitorError::Store(format!("{}: {error}", self.database))
    }

    fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>, MonitorError> {
        match self.client.query(sql, params) {
            Ok(rows) => Ok(rows),
            Err(error) => Err(self.fail(error)),
        }
    }

    fn get<'a, T: postgres::types::FromSql<'a>>(
        &self,
        row: &'a Row,
        index: usize,
    ) -> Result<T, MonitorError> {
        row.try_get(index).map_err(|e| {
            let name = row.columns().get(index).map_or("?", |c| c.name());
            MonitorError::Store(format!("{}: column {name}: {e}", self.database))
        })
    }

    fn member(&self, row: &Row) -> Result<Member, MonitorError> {
        let url: String = self.get(row, 0)?;
        let bad = |what: &str, e: serde_json::Error| {
            MonitorError::Store(format!(
                "{}: monitor_schedule row {url}: {what}: {e}",
                self.database
            ))
        };
        let state: String = self.get(row, 4)?;
        let links: String = self.get(row, 7)?;
        Ok(Member {
            state: serde_json::from_str(&state).map_err(|e| bad("state_json", e))?,
            links: serde_json::from_str(&links).map_err(|e| bad("links_json", e))?,
            kernel: self.get(row, 1)?,
            hops: u32::try_from(self.get::<i64>(row, 2)?).unwrap_or(u32::MAX),
            active: self.get(row, 3)?,
            digest: self.get(row, 5)?,
            graph_hash: self.get(row, 6)?,
            url,
        })
    }

    fn cycle_row(&self, row: &Row) -> Result<CycleRow, MonitorError> {
        let count = |value: Option<i64>| value.map(|v| u64::try_from(v).unwrap_or(0));
        Ok(CycleRow {
            cycle: self.get(row, 0)?,
            started: self.get(row, 1)?,
            clock: self.get(row, 2)?,
            strategy: self.get(row, 3)?,
            urls: u64::try_from(self.get::<i64>(row, 4)?).unwrap_or(0),
            model_s: self.get(row, 5)?,
            estimate_s: self.get(row, 6)?,
            paper_s: self.get(row, 7)?,
            actual_s: self.get(row, 8)?,
            cycle_s: self.get(row, 9)?,
            fetched: count(self.get(row, 10)?),
            changed: count(self.get(row, 11)?),
            crawl: self.get(row, 12)?,
            finished: self.get(row, 13)?,
        })
    }

    /// Which node ran each cycle: `(cycle, node)`, oldest first.
    pub fn cycle_nodes(&mut self) -> Result<Vec<(i64, Option<String>)>, MonitorError> {
        let rows = self.query("SELECT cycle, node FROM monitor_cycles ORDER BY cycle", &[])?;
        rows.iter()
            .map(|row| -> Result<(i64, Option<String>), MonitorError> {
                Ok((self.get(row, 0)?, self.get(row, 1)?))
            })
            .collect()
    }
}

/// An unsigned count as PostgreSQL's BIGINT (saturating; counts never come near it).
fn bigint(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn json<T: serde::Serialize>(value: &T, what: &str) -> Result<String, MonitorError> {
    serde_json::to_string(value).map_err(|e| MonitorError::Store(format!("{what}: {e}")))
}

impl MonitorTables for PgMonitorTable {
    fn add_kernel(
        &mut self,
        urls: &[String],
        fresh: &ScheduleState,
    ) -> Result<usize, MonitorError> {
        let state = json(fresh, "schedule state")?;
        let database = self.database.clone();
        let fail = |e: postgres::Error| MonitorError::Store(format!("{database}: {e}"));
        let mut transaction = self.client.transaction().map_err(fail)?;
        let mut added = 0;
        for url in urls {
            // A stored URL is made kernel and active, its schedule kept.
            let rows = transaction
                .query(
                    "INSERT INTO monitor_schedule (url, kernel, hops, active, state_json)
                     VALUES ($1, TRUE, 0, TRUE, $2)
                     ON CONFLICT (url) DO UPDATE SET kernel = TRUE, hops = 0, active = TRUE
                     RETURNING (xmax = 0)",
                    &[url, &state],
                )
                .map_err(fail)?;
            let inserted = rows
                .first()
                .and_then(|row| row.try_get::<_, bool>(0).ok())
                .unwrap_or(false);
            added += usize::from(inserted);
        }
        transaction.commit().map_err(fail)?;
        Ok(added)
    }

    fn members(&mut self) -> Result<Vec<Member>, MonitorError> {
        let rows = self.query(
            "SELECT url, kernel, hops, active, state_json, digest, graph_hash, links_json
             FROM monitor_schedule ORDER BY kernel DESC, url",
            &[],
        )?;
        rows.iter().map(|row| self.member(row)).collect()
    }

    fn next_cycle(&mut self) -> Result<i64, MonitorError> {
        let rows = self.query("SELECT MAX(cycle) FROM monitor_cycles", &[])?;
        let last: Option<i64> = match rows.first() {
            Some(row) => self.get(row, 0)?,
            None => None,
        };
        Ok(last.unwrap_or(0) + 1)
    }

    fn start_cycle(&mut self, row: &CycleRow) -> Result<(), MonitorError> {
        let node = self.node.clone();
        self.query(
            "INSERT INTO monitor_cycles
                (cycle, started, clock, strategy, urls, model_s, estimate_s, paper_s, node)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (cycle) DO UPDATE SET started = $2, clock = $3, strategy = $4,
                urls = $5, model_s = $6, estimate_s = $7, paper_s = $8, node = $9
             RETURNING cycle",
            &[
                &row.cycle,
                &row.started,
                &row.clock,
                &row.strategy,
                &bigint(row.urls),
                &row.model_s,
                &row.estimate_s,
                &row.paper_s,
                &node,
            ],
        )?;
        Ok(())
    }

    fn commit_cycle(
        &mut self,
        members: &[&Member],
        observations: &[Observation],
        row: &CycleRow,
    ) -> Result<(), MonitorError> {
        let database = self.database.clone();
        let node = self.node.clone();
        let locked = self.locked;
        let fail = |e: postgres::Error| MonitorError::Store(format!("{database}: {e}"));
        let mut transaction = self.client.transaction().map_err(fail)?;
        if locked {
            let held = transaction
                .query(
                    "SELECT 1 FROM pg_locks
                     WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                       AND objsubid = 2 AND classid::bigint = $1 AND objid::bigint = $2",
                    &[&i64::from(CYCLE_LOCK.0), &i64::from(CYCLE_LOCK.1)],
                )
                .map_err(fail)?;
            if held.is_empty() {
                return Err(MonitorError::Locked(format!(
                    "{database}: node {node} lost the monitor cycle lock; cycle {} not committed",
                    row.cycle
                )));
            }
        }
        for member in members {
            transaction
                .execute(
                    "INSERT INTO monitor_schedule
                        (url, kernel, hops, active, state_json, next_due, digest, graph_hash,
                         links_json, node)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                     ON CONFLICT (url) DO UPDATE SET kernel = $2, hops = $3, active = $4,
                        state_json = $5, next_due = $6, digest = $7, graph_hash = $8,
                        links_json = $9, node = $10",
                    &[
                        &member.url,
                        &member.kernel,
                        &i64::from(member.hops),
                        &member.active,
                        &json(&member.state, "schedule state")?,
                        &member.state.next_due,
                        &member.digest,
                        &member.graph_hash,
                        &json(&member.links, "links")?,
                        &node,
                    ],
                )
                .map_err(fail)?;
        }
        for o in observations {
            transaction
                .execute(
                    "INSERT INTO monitor_observations
                        (cycle, url, at, first, byte_changed, graph_changed, changed, node)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    &[
                        &o.cycle,
                        &o.url,
                        &o.at,
                        &o.first,
                        &o.byte_changed,
                        &o.graph_changed,
                        &o.changed,
                        &node,
                    ],
                )
                .map_err(fail)?;
        }
        transaction
            .execute(
                "UPDATE monitor_cycles SET actual_s = $2, cycle_s = $3, fetched = $4,
                    changed = $5, crawl = $6, finished = $7 WHERE cycle = $1",
                &[
                    &row.cycle,
                    &row.actual_s,
                    &row.cycle_s,
                    &row.fetched.map(bigint),
                    &row.changed.map(bigint),
                    &row.crawl,
                    &row.finished,
                ],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    fn cycles(&mut self) -> Result<Vec<CycleRow>, MonitorError> {
        let rows = self.query(
            "SELECT cycle, started, clock, strategy, urls, model_s, estimate_s, paper_s,
                    actual_s, cycle_s, fetched, changed, crawl, finished
             FROM monitor_cycles ORDER BY cycle",
            &[],
        )?;
        rows.iter().map(|row| self.cycle_row(row)).collect()
    }

    fn observations(&mut self) -> Result<Vec<Observation>, MonitorError> {
        let rows = self.query(
            "SELECT cycle, url, at, first, byte_changed, graph_changed, changed
             FROM monitor_observations ORDER BY at, id",
            &[],
        )?;
        rows.iter()
            .map(|row| -> Result<Observation, MonitorError> {
                Ok(Observation {
                    cycle: self.get(row, 0)?,
                    url: self.get(row, 1)?,
                    at: self.get(row, 2)?,
                    first: self.get(row, 3)?,
                    byte_changed: self.get(row, 4)?,
                    graph_changed: self.get(row, 5)?,
                    changed: self.get(row, 6)?,
                })
            })
            .collect()
    }

    fn timed_fetches(&mut self, recent: i64) -> Result<Vec<TimedFetch>, MonitorError> {
        // The crawl log of the shared store (every node's crawls; the state store created
        // it, or there is none yet).
        let exists = self.query("SELECT to_regclass('fetches') IS NOT NULL", &[])?;
        let exists = match exists.first() {
            Some(row) => self.get::<bool>(row, 0)?,
            None => false,
        };
        if !exists {
            return Ok(Vec::new());
        }
        let rows = self.query(
            "SELECT crawl, url, kind, time, duration_ms FROM fetches
             WHERE duration_ms IS NOT NULL
               AND crawl > (SELECT COALESCE(MAX(crawl), 0) FROM fetches) - $1
             ORDER BY id",
            &[&recent],
        )?;
        rows.iter()
            .map(|row| -> Result<TimedFetch, MonitorError> {
                let time: String = self.get(row, 3)?;
                Ok(TimedFetch {
                    crawl: self.get(row, 0)?,
                    url: self.get(row, 1)?,
                    robots: self.get::<String>(row, 2)? == "robots",
                    started: chrono::DateTime::parse_from_rfc3339(&time)
                        .map(|t| t.timestamp_micros() as f64 / 1e6)
                        .unwrap_or(f64::NAN),
                    seconds: self.get::<f64>(row, 4)? / 1000.0,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::table::tests::exercise_tables;
    use ldwarc_testweb::postgres::shared_server;

    #[test]
    fn the_shared_tables_behave_like_the_embedded_ones() {
        let server = shared_server();
        let url = server.fresh_database("monitor_table");
        exercise_tables(&mut || -> Box<dyn MonitorTables> {
            Box::new(PgMonitorTable::connect(&url, "n1").unwrap())
        });
    }

    #[test]
    fn the_cycle_lock_is_one_for_all_nodes_and_dies_with_its_session() {
        let server = shared_server();
        let url = server.fresh_database("monitor_lock");
        let mut first = PgMonitorTable::connect(&url, "n1").unwrap();
        first.lock().unwrap();
        first.lock().unwrap();
        let mut second = PgMonitorTable::connect(&url, "n2").unwrap();
        let refused = second.lock().unwrap_err().to_string();
        assert!(
            refused.contains("another monitor cycle is running"),
            "{refused}"
        );
        assert!(refused.contains("ldwarc monitor n1 pid"), "{refused}");
        assert!(!refused.contains('\n'), "one line: {refused}");
        drop(first);
        // The server ends the dropped session's lock a moment after the connection closes.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while second.lock().is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the lock outlived its session"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
