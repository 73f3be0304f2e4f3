//! The PostgreSQL state store ([`PgStateStore`]): the same crawls, crawl log, per-URL state and
//! frontier as the embedded SQLite store, in a database many crawler nodes share. Times are
//! kept as the same RFC 3339 text the SQLite store writes, so both backends read back equal
//! values; the frontier also stores each URL's pay-level domain, which the leases in
//! `lease.rs` are keyed on.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use postgres::{Client, NoTls, Row};

use super::backend::{BackendError, BackendResult, BackendTransaction, InvalidValue, StateBackend};
use super::schema::{Dialect, schema};
use super::{Change, CrawlRun, FetchLogEntry, FrontierEntry, RecordRef, UrlState};

/// Serialises concurrent schema creation by several nodes (`CREATE TABLE IF NOT EXISTS` is
/// not safe against itself in PostgreSQL); any constant works, this one spells "ldwarc".
const SCHEMA_LOCK: i64 = 0x6c64_7761_7263;

/// The state store in a PostgreSQL database.
pub struct PgStateStore {
    pub(super) database: String,
    pub(super) client: Client,
    /// The crawl's hop limit, when set: enqueuing a shorter path to a fetched document then
    /// follows its stored links again ([`PgStateStore::follow_shorter_paths`]).
    pub(super) hop_limit: Option<u32>,
    /// The connection string, for reconnecting after the server went away.
    url: String,
}

impl PgStateStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`, or the key=value form)
    /// and creates the schema if it is missing. TLS is not used: run over loopback, a private
    /// network or a tunnel.
    pub fn connect(url: &str) -> BackendResult<Self> {
        let database = describe_database(url);
        let client = Self::open_client(url, &database)?;
        let mut store = Self {
            database,
            client,
            hop_limit: None,
            url: url.to_string(),
        };
        store.create_schema()?;
        Ok(store)
    }

    /// Replaces the connection (after the server restarted or the network failed); the
    /// schema exists already.
    pub fn reconnect(&mut self) -> BackendResult<()> {
        self.client = Self::open_client(&self.url, &self.database)?;
        Ok(())
    }

    fn open_client(url: &str, database: &str) -> BackendResult<Client> {
        let mut config =
            postgres::Config::from_str(url).map_err(|source| BackendError::Postgres {
                database: database.to_string(),
                source,
            })?;
        super::pg_limits::bound_waits(&mut config);
        config
            .connect(NoTls)
            .map_err(|source| BackendError::Postgres {
                database: database.to_string(),
                source,
            })
    }

    /// The database this store writes to, as errors name it (no password).
    pub fn database(&self) -> &str {
        &self.database
    }

    fn create_schema(&mut self) -> BackendResult<()> {
        let database = self.database.clone();
        let wrap = |source| BackendError::Postgres {
            database: database.clone(),
            source,
        };
        let mut transaction = self.client.transaction().map_err(wrap)?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
            .map_err(wrap)?;
        transaction
            .batch_execute(&schema(Dialect::Postgres))
            .map_err(wrap)?;
        transaction.commit().map_err(wrap)
    }

    pub(super) fn wrap(&self, source: postgres::Error) -> BackendError {
        BackendError::Postgres {
            database: self.database.clone(),
            source,
        }
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> BackendResult<Vec<Row>> {
        match self.client.query(sql, params) {
            Ok(rows) => Ok(rows),
            Err(source) => Err(self.wrap(source)),
        }
    }

    fn execute(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> BackendResult<u64> {
        match self.client.execute(sql, params) {
            Ok(count) => Ok(count),
            Err(source) => Err(self.wrap(source)),
        }
    }
}

/// `postgres://user@host:port/db` for errors and logs: everything but the password.
pub fn describe_database(url: &str) -> String {
    let Ok(config) = postgres::Config::from_str(url) else {
        return "(unparsable PostgreSQL connection string)".to_string();
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(index, host)| {
            let name = match host {
                postgres::config::Host::Tcp(name) => name.clone(),
                postgres::config::Host::Unix(path) => path.display().to_string(),
            };
            match config.get_ports().get(index).or(config.get_ports().first()) {
                Some(port) => format!("{name}:{port}"),
                None => name,
            }
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or(""),
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

impl StateBackend for PgStateStore {
    type Transaction<'t> = PgTransaction<'t>;

    fn start_crawl(&mut self, started: DateTime<Utc>, options: &str) -> BackendResult<i64> {
        let rows = self.query(
            "INSERT INTO crawls (started, options) VALUES ($1, $2) RETURNING id",
            &[&started.to_rfc3339(), &options],
        )?;
        rows.first()
            .ok_or(InvalidValue::NoRow("INSERT INTO crawls"))
            .and_then(|row| column::<i64>(row, 0))
            .map_err(|problem| self.invalid(problem))
    }

    fn unfinished_crawl(&mut self) -> BackendResult<Option<CrawlRun>> {
        let rows = self.query(
            "SELECT id, started, finished, round, options FROM crawls
             WHERE finished IS NULL ORDER BY id DESC LIMIT 1",
            &[],
        )?;
        rows.first().map(|row| self.crawl_run(row)).transpose()
    }

    fn crawls(&mut self) -> BackendResult<Vec<CrawlRun>> {
        let rows = self.query(
            "SELECT id, started, finished, round, options FROM crawls ORDER BY id",
            &[],
        )?;
        rows.iter().map(|row| self.crawl_run(row)).collect()
    }

    fn set_round(&mut self, crawl: i64, round: u32) -> BackendResult<()> {
        self.execute(
            "UPDATE crawls SET round = $2 WHERE id = $1",
            &[&crawl, &i64::from(round)],
        )?;
        Ok(())
    }

    fn finish_crawl(&mut self, crawl: i64, finished: DateTime<Utc>) -> BackendResult<()> {
        self.execute(
            "UPDATE crawls SET finished = $2 WHERE id = $1",
            &[&crawl, &finished.to_rfc3339()],
        )?;
        Ok(())
    }

    fn abandon_unfinished(&mut self, keep: i64, now: DateTime<Utc>) -> BackendResult<()> {
        self.execute(
            "UPDATE crawls SET finished = $2 WHERE finished IS NULL AND id != $1",
            &[&keep, &now.to_rfc3339()],
        )?;
        Ok(())
    }

    fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut PgTransaction<'_>) -> BackendResult<T>,
    ) -> BackendResult<T> {
        let database = self.database.as_str();
        let wrap = |source| BackendError::Postgres {
            database: database.to_string(),
            source,
        };
        let transaction = self.client.transaction().map_err(wrap)?;
        let mut pg = PgTransaction {
            database,
            transaction,
            hop_limit: self.hop_limit,
        };
        // On an error `pg` is dropped here, which rolls the transaction back.
        let value = work(&mut pg)?;
        pg.transaction.commit().map_err(wrap)?;
        Ok(value)
    }

    fn frontier(&mut self, crawl: i64) -> BackendResult<(Vec<FrontierEntry>, Vec<String>)> {
        let rows = self.query(
            "SELECT url, hops, round, inlinks, via, path, redirects, done FROM frontier
             WHERE crawl = $1 ORDER BY id",
            &[&crawl],
        )?;
        self.frontier_rows(&rows)
    }

    fn fetch_log(&mut self, crawl: Option<i64>) -> BackendResult<Vec<FetchLogEntry>> {
        let rows = self.query(
            "SELECT url, time, round, hops, kind, status, duration_ms, bytes, digest, change,
                    error, content_type, outlinks, record_id, warc_file, warc_offset, warc_length
             FROM fetches WHERE ($1::BIGINT IS NULL OR crawl = $1) ORDER BY id",
            &[&crawl],
        )?;
        rows.iter()
            .map(|row| fetch_entry(row).map_err(|problem| self.invalid(problem)))
            .collect()
    }

    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>> {
        let rows = self.query(URL_STATE_SELECT, &[&url])?;
        rows.first()
            .map(|row| url_state_row(row).map_err(|problem| self.invalid(problem)))
            .transpose()
    }
}

impl PgStateStore {
    /// Frontier rows (`url, hops, round, inlinks, via, path, redirects, done`) split into
    /// entries still queued and URLs done.
    pub(super) fn frontier_rows(
        &self,
        rows: &[Row],
    ) -> BackendResult<(Vec<FrontierEntry>, Vec<String>)> {
        let mut queued = Vec::new();
        let mut done = Vec::new();
        for row in rows {
            let entry = frontier_entry(row).map_err(|problem| self.invalid(problem))?;
            if column::<bool>(row, 7).map_err(|problem| self.invalid(problem))? {
                done.push(entry.url);
            } else {
                queued.push(entry);
            }
        }
        Ok((queued, done))
    }

    pub(super) fn invalid(&self, problem: InvalidValue) -> BackendError {
        BackendError::Invalid {
            database: self.database.clone(),
            problem,
        }
    }

    fn crawl_run(&self, row: &Row) -> BackendResult<CrawlRun> {
        crawl_run(row).map_err(|problem| self.invalid(problem))
    }
}

const URL_STATE_SELECT: &str = "SELECT digest, date, record_id, warc_file, warc_offset,
    warc_length, etag, last_modified FROM url_state WHERE url = $1";

/// The writes of one PostgreSQL transaction.
pub struct PgTransaction<'t> {
    pub(super) database: &'t str,
    pub(super) transaction: postgres::Transaction<'t>,
    pub(super) hop_limit: Option<u32>,
}

impl PgTransaction<'_> {
    pub(super) fn wrap(&self, source: postgres::Error) -> BackendError {
        BackendError::Postgres {
            database: self.database.to_string(),
            source,
        }
    }

    pub(super) fn invalid(&self, problem: InvalidValue) -> BackendError {
        BackendError::Invalid {
            database: self.database.to_string(),
            problem,
        }
    }

    pub(super) fn execute(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> BackendResult<u64> {
        match self.transaction.execute(sql, params) {
            Ok(count) => Ok(count),
            Err(source) => Err(self.wrap(source)),
        }
    }

    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> BackendResult<Vec<Row>> {
        match self.transaction.query(sql, params) {
            Ok(rows) => Ok(rows),
            Err(source) => Err(self.wrap(source)),
        }
    }

    fn signed(&self, value: Option<u64>, column: &str) -> BackendResult<Option<i64>> {
        value
            .map(|v| {
                i64::try_from(v).map_err(|_| {
                    self.invalid(InvalidValue::TooLarge {
                        column: column.to_string(),
                        value: v,
                    })
                })
            })
            .transpose()
    }
}

impl BackendTransaction for PgTransaction<'_> {
    fn log_fetch(&mut self, crawl: i64, entry: &FetchLogEntry) -> BackendResult<()> {
        let record = entry.record.as_ref();
        let bytes = self.signed(entry.bytes, "fetches.bytes")?;
        let outlinks = self.signed(entry.outlinks, "fetches.outlinks")?;
        let offset = self.signed(record.map(|r| r.offset), "fetches.warc_offset")?;
        let length = self.signed(record.map(|r| r.length), "fetches.warc_length")?;
        self.execute(
            "INSERT INTO fetches (crawl, url, time, round, hops, kind, status, duration_ms,
                bytes, digest, change, error, content_type, outlinks, record_id, warc_file,
                warc_offset, warc_length)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                $17, $18)",
            &[
                &crawl,
                &entry.url,
                &entry
                    .time
                    .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
                &i64::from(entry.round),
                &i64::from(entry.hops),
                &entry.kind,
                &entry.status.map(i32::from),
                &entry.duration.map(|d| d.as_secs_f64() * 1000.0),
                &bytes,
                &entry.digest,
                &entry.change.as_str(),
                &entry.error,
                &entry.content_type,
                &outlinks,
                &record.map(|r| r.record_id.as_str()),
                &record.map(|r| r.file.as_str()),
                &offset,
                &length,
            ],
        )?;
        Ok(())
    }

    fn set_url_state(&mut self, url: &str, state: &UrlState) -> BackendResult<()> {
        let record = state.record.as_ref();
        let offset = self.signed(record.map(|r| r.offset), "url_state.warc_offset")?;
        let length = self.signed(record.map(|r| r.length), "url_state.warc_length")?;
        self.execute(
            "INSERT INTO url_state (url, digest, date, record_id, warc_file, warc_offset,
                warc_length, etag, last_modified)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (url) DO UPDATE SET digest = EXCLUDED.digest, date = EXCLUDED.date,
                record_id = EXCLUDED.record_id, warc_file = EXCLUDED.warc_file,
                warc_offset = EXCLUDED.warc_offset, warc_length = EXCLUDED.warc_length,
                etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified",
            &[
                &url,
                &state.digest,
                &state.date,
                &record.map(|r| r.record_id.as_str()),
                &record.map(|r| r.file.as_str()),
                &offset,
                &length,
                &state.etag,
                &state.last_modified,
            ],
        )?;
        Ok(())
    }

    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>> {
        let rows = self.query(URL_STATE_SELECT, &[&url])?;
        rows.first()
            .map(|row| url_state_row(row).map_err(|problem| self.invalid(problem)))
            .transpose()
    }

    fn enqueue(&mut self, crawl: i64, entries: &[FrontierEntry]) -> BackendResult<()> {
        self.enqueue_exact(crawl, entries)
    }

    fn record_links(
        &mut self,
        crawl: i64,
        url: &str,
        links: &[(String, char)],
    ) -> BackendResult<()> {
        self.store_links(crawl, url, links)
    }

    fn mark_done(&mut self, crawl: i64, url: &str) -> BackendResult<()> {
        self.execute(
            "UPDATE frontier SET done = TRUE WHERE crawl = $1 AND url = $2",
            &[&crawl, &url],
        )?;
        Ok(())
    }
}

/// Column `index` of `row`, or why it cannot be read as `T` (odd data is an error, not a
/// panic).
pub(super) fn column<'a, T: postgres::types::FromSql<'a>>(
    row: &'a Row,
    index: usize,
) -> Result<T, InvalidValue> {
    row.try_get(index).map_err(|e| InvalidValue::Column {
        column: row
            .columns()
            .get(index)
            .map_or("?", |c| c.name())
            .to_string(),
        detail: e.to_string(),
    })
}

/// A non-negative BIGINT as a Rust unsigned integer, or why not.
fn unsigned<T: TryFrom<i64>>(value: i64, column: &str) -> Result<T, InvalidValue> {
    T::try_from(value).map_err(|_| InvalidValue::OutOfRange {
        column: column.to_string(),
        value,
    })
}

fn optional_unsigned<T: TryFrom<i64>>(
    value: Option<i64>,
    column: &str,
) -> Result<Option<T>, InvalidValue> {
    value.map(|v| unsigned(v, column)).transpose()
}

fn crawl_run(row: &Row) -> Result<CrawlRun, InvalidValue> {
    Ok(CrawlRun {
        id: column(row, 0)?,
        started: column(row, 1)?,
        finished: column(row, 2)?,
        round: unsigned(column(row, 3)?, "crawls.round")?,
        options: column(row, 4)?,
    })
}

/// A frontier row selected as `url, hops, round, inlinks, via, path, redirects, done, id`.
pub(super) fn frontier_row_with_id(row: &Row) -> Result<(FrontierEntry, bool, i64), InvalidValue> {
    Ok((frontier_entry(row)?, column(row, 7)?, column(row, 8)?))
}

fn frontier_entry(row: &Row) -> Result<FrontierEntry, InvalidValue> {
    Ok(FrontierEntry {
        url: column(row, 0)?,
        hops: unsigned(column(row, 1)?, "frontier.hops")?,
        round: unsigned(column(row, 2)?, "frontier.round")?,
        inlinks: unsigned(column(row, 3)?, "frontier.inlinks")?,
        via: column(row, 4)?,
        path: column(row, 5)?,
        redirects: unsigned(column(row, 6)?, "frontier.redirects")?,
    })
}

fn record_ref(
    record_id: Option<String>,
    file: Option<String>,
    offset: Option<i64>,
    length: Option<i64>,
    table: &str,
) -> Result<Option<RecordRef>, InvalidValue> {
    let (Some(record_id), Some(file)) = (record_id, file) else {
        return Ok(None);
    };
    Ok(Some(RecordRef {
        record_id,
        file,
        offset: unsigned(offset.unwrap_or(0), &format!("{table}.warc_offset"))?,
        length: unsigned(length.unwrap_or(0), &format!("{table}.warc_length"))?,
    }))
}

pub(super) fn fetch_entry(row: &Row) -> Result<FetchLogEntry, InvalidValue> {
    let time: String = column(row, 1)?;
    let change: String = column(row, 9)?;
    Ok(FetchLogEntry {
        url: column(row, 0)?,
        // Same fallback as the SQLite store: a damaged time must not hide the whole log.
        time: DateTime::parse_from_rfc3339(&time)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        round: unsigned(column(row, 2)?, "fetches.round")?,
        hops: unsigned(column(row, 3)?, "fetches.hops")?,
        kind: column(row, 4)?,
        status: column::<Option<i32>>(row, 5)?
            .map(|s| unsigned(i64::from(s), "fetches.status"))
            .transpose()?,
        duration: column::<Option<f64>>(row, 6)?
            .map(|ms| std::time::Duration::from_secs_f64(ms.max(0.0) / 1000.0)),
        bytes: optional_unsigned(column(row, 7)?, "fetches.bytes")?,
        digest: column(row, 8)?,
        change: match change.as_str() {
            "new" => Change::New,
            "changed" => Change::Changed,
            "unchanged" => Change::Unchanged,
            "excluded" => Change::Excluded,
            _ => Change::Failed,
        },
        error: column(row, 10)?,
        content_type: column(row, 11)?,
        outlinks: optional_unsigned(column(row, 12)?, "fetches.outlinks")?,
        record: record_ref(
            column(row, 13)?,
            column(row, 14)?,
            column(row, 15)?,
            column(row, 16)?,
            "fetches",
        )?,
    })
}

fn url_state_row(row: &Row) -> Result<UrlState, InvalidValue> {
    Ok(UrlState {
        digest: column(row, 0)?,
        date: column(row, 1)?,
        record: record_ref(
            column(row, 2)?,
            column(row, 3)?,
            column(row, 4)?,
            column(row, 5)?,
            "url_state",
        )?,
        etag: column(row, 6)?,
        last_modified: column(row, 7)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_count_is_a_typed_error_naming_its_column() {
        let problem = unsigned::<u32>(-3, "frontier.hops").unwrap_err();
        assert_eq!(
            problem,
            InvalidValue::OutOfRange {
                column: "frontier.hops".to_string(),
                value: -3
            }
        );
        let error = BackendError::Invalid {
            database: describe_database("postgres://u:pw@db.example/archive"),
            problem,
        };
        assert_eq!(
            error.to_string(),
            "state store postgres://u@db.example:5432/archive: frontier.hops holds -3, out of range"
        );
        let status = unsigned::<u16>(70_000, "fetches.status").unwrap_err();
        assert_eq!(
            status.to_string(),
            "fetches.status holds 70000, out of range"
        );
    }

    #[test]
    fn database_descriptions_never_show_the_password() {
        let described = describe_database("postgres://crawler:s3cret@db.example:5433/archive");
        assert_eq!(described, "postgres://crawler@db.example:5433/archive");
        let described = describe_database("host=/run/pg port=5432 user=u password=s3cret dbname=d");
        assert_eq!(described, "postgres://u@/run/pg:5432/d");
        assert!(!describe_database("postgres://u:pw@[").contains("pw"));
    }

    #[test]
    fn connection_failures_name_the_database_in_one_line() {
        // Port 1 on loopback refuses connections at once.
        let error = match PgStateStore::connect("postgres://u:s3cret@127.0.0.1:1/archive") {
            Ok(_) => panic!("connected to port 1"),
            Err(error) => error.to_string(),
        };
        assert!(
            error.starts_with("state store postgres://u@127.0.0.1:1/archive: "),
            "{error}"
        );
        assert!(
            !error.contains("s3cret") && !error.contains('\n'),
            "{error}"
        );
    }
}
