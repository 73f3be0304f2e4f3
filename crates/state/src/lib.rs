//! The state store of an ldwarc archive, under `<root>/state/`: the crawl log (one row per
//! fetch), the crawl frontier (so a killed crawl resumes), and per-URL state (latest payload
//! capture, ETag, Last-Modified) that revisit detection and conditional requests need. Embedded SQLite
//! (bundled), in WAL mode so readers never block the one writer, by default; PostgreSQL
//! ([`PgStateStore`]) when several crawler nodes share one frontier, with per-PLD leases and
//! fenced commits ([`PldLeases`], [`FencedTransaction`]). [`StateBackend`] is what both offer.

#![warn(missing_docs)]

mod backend;
mod enqueue_batch;
mod lease;
mod pg_limits;
mod pg_nodes;
mod pg_shorter;
mod postgres;
mod read_only;
mod recent;
mod schema;
mod sqlite_links;
#[cfg(test)]
mod suite;

pub use backend::{
    BackendError, BackendResult, BackendTransaction, InvalidValue, SqliteTransaction, StateBackend,
};
pub use lease::{Claim, FencedTransaction, FrontierRows, PldLease, PldLeases};
pub use pg_nodes::CrawlLoad;
pub use postgres::{PgStateStore, PgTransaction, describe_database};
pub use sqlite_links::FetchedEntry;

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

/// Errors of the state store, naming the database file.
#[derive(Debug, thiserror::Error)]
#[error("state store {path}: {source}")]
pub struct StoreError {
    path: PathBuf,
    #[source]
    source: StoreFailure,
}

/// The underlying failure of a [`StoreError`].
#[derive(Debug, thiserror::Error)]
pub enum StoreFailure {
    /// SQLite refused.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The state directory could not be created.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Result of state store operations.
pub type Result<T> = std::result::Result<T, StoreError>;

/// What became of one fetch, as the crawl log records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// First capture of the URL.
    New,
    /// The payload differs from the latest capture's.
    Changed,
    /// Same payload (or 304 Not Modified): written as a revisit.
    Unchanged,
    /// No usable response (the error says why).
    Failed,
    /// Not requested: robots.txt disallows it.
    Excluded,
}

impl Change {
    /// The word stored in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Changed => "changed",
            Change::Unchanged => "unchanged",
            Change::Failed => "failed",
            Change::Excluded => "excluded",
        }
    }
}

/// One row of the crawl log.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchLogEntry {
    /// The URL requested.
    pub url: String,
    /// When the request was sent (UTC).
    pub time: DateTime<Utc>,
    /// Crawl round.
    pub round: u32,
    /// Hops from the nearest seed.
    pub hops: u32,
    /// `document`, `robots` or `context`.
    pub kind: String,
    /// HTTP status, if a response head arrived.
    pub status: Option<u16>,
    /// From sending the request to the end of the body.
    pub duration: Option<Duration>,
    /// Payload bytes received.
    pub bytes: Option<u64>,
    /// Payload digest (`sha1:` + Base32).
    pub digest: Option<String>,
    /// New, changed, unchanged, failed or excluded.
    pub change: Change,
    /// The error, for failed fetches (also set for truncated bodies).
    pub error: Option<String>,
    /// Media type of the response.
    pub content_type: Option<String>,
    /// Links found in the payload.
    pub outlinks: Option<u64>,
    /// Where the response or revisit record was written.
    pub record: Option<RecordRef>,
}

/// A record in the archive: id, file (relative to `warc/`), offset and length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    /// `WARC-Record-ID`.
    pub record_id: String,
    /// File relative to the archive's `warc/` directory.
    pub file: String,
    /// Offset of the record.
    pub offset: u64,
    /// Length of the record.
    pub length: u64,
}

/// What the archive holds of a URL: its latest payload capture and validators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlState {
    /// Payload digest of the latest capture with a payload.
    pub digest: Option<String>,
    /// `WARC-Date` of that capture.
    pub date: Option<String>,
    /// That capture's record.
    pub record: Option<RecordRef>,
    /// Its `ETag`.
    pub etag: Option<String>,
    /// Its `Last-Modified`.
    pub last_modified: Option<String>,
}

/// A URL in a crawl's frontier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontierEntry {
    /// The URL (normalised, no fragment).
    pub url: String,
    /// Hops from the nearest seed (redirects and JSON-LD contexts add none).
    pub hops: u32,
    /// The round it is queued for.
    pub round: u32,
    /// Links to it found so far.
    pub inlinks: u32,
    /// The URL it was found in, or redirected from.
    pub via: Option<String>,
    /// How it was reached from its seed: `L` per link, `R` per redirect, `X` per context
    /// (Heritrix's notation), empty for seeds.
    pub path: String,
    /// Redirects followed to reach it.
    pub redirects: u32,
}

/// A crawl recorded in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlRun {
    /// Its id.
    pub id: i64,
    /// When it started.
    pub started: String,
    /// When it finished, if it did.
    pub finished: Option<String>,
    /// The round it was in.
    pub round: u32,
    /// Its options as JSON.
    pub options: String,
}

/// The state store: one writer connection (the crawl's archiver) and any number of readers.
pub struct StateStore {
    path: PathBuf,
    connection: Connection,
}

impl StateStore {
    /// Opens (creating if needed) the store in `state_dir`.
    pub fn open(state_dir: &Path) -> Result<Self> {
        let path = state_dir.join("state.sqlite");
        let wrap = |source: rusqlite::Error| StoreError {
            path: path.clone(),
            source: source.into(),
        };
        std::fs::create_dir_all(state_dir).map_err(|e| StoreError {
            path: path.clone(),
            source: e.into(),
        })?;
        let connection = Connection::open(&path).map_err(wrap)?;
        connection
            .busy_timeout(Duration::from_secs(30))
            .map_err(wrap)?;
        connection
            .execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .map_err(wrap)?;
        connection
            .execute_batch(&schema::schema(schema::Dialect::Sqlite))
            .map_err(wrap)?;
        sqlite_links::add_links_column(&connection).map_err(wrap)?;
        Ok(Self { path, connection })
    }

    fn wrap(&self, source: rusqlite::Error) -> StoreError {
        StoreError {
            path: self.path.clone(),
            source: source.into(),
        }
    }

    /// Starts a new crawl; returns its id.
    pub fn start_crawl(&self, started: DateTime<Utc>, options: &str) -> Result<i64> {
        self.connection
            .execute(
                "INSERT INTO crawls (started, options) VALUES (?1, ?2)",
                params![started.to_rfc3339(), options],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(self.connection.last_insert_rowid())
    }

    /// The latest crawl that did not finish, if any.
    pub fn unfinished_crawl(&self) -> Result<Option<CrawlRun>> {
        self.connection
            .query_row(
                "SELECT id, started, finished, round, options FROM crawls
                 WHERE finished IS NULL ORDER BY id DESC LIMIT 1",
                [],
                crawl_run,
            )
            .optional()
            .map_err(|e| self.wrap(e))
    }

    /// Every crawl, oldest first.
    pub fn crawls(&self) -> Result<Vec<CrawlRun>> {
        let mut statement = self
            .connection
            .prepare("SELECT id, started, finished, round, options FROM crawls ORDER BY id")
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([], crawl_run)
            .map_err(|e| self.wrap(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.wrap(e))
    }

    /// Records the round a crawl is in.
    pub fn set_round(&self, crawl: i64, round: u32) -> Result<()> {
        self.connection
            .execute(
                "UPDATE crawls SET round = ?2 WHERE id = ?1",
                params![crawl, round],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Marks a crawl finished.
    pub fn finish_crawl(&self, crawl: i64, finished: DateTime<Utc>) -> Result<()> {
        self.connection
            .execute(
                "UPDATE crawls SET finished = ?2 WHERE id = ?1",
                params![crawl, finished.to_rfc3339()],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Marks every unfinished crawl but `keep` as finished now (abandoned by a new crawl).
    pub fn abandon_unfinished(&self, keep: i64, now: DateTime<Utc>) -> Result<()> {
        self.connection
            .execute(
                "UPDATE crawls SET finished = ?2 WHERE finished IS NULL AND id != ?1",
                params![keep, now.to_rfc3339()],
            )
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Runs `work` in one transaction: everything it records commits together or not at all.
    pub fn transaction<T>(
        &mut self,
        work: impl FnOnce(&StoreTransaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let path = self.path.clone();
        let transaction = self.connection.transaction().map_err(|source| StoreError {
            path: path.clone(),
            source: source.into(),
        })?;
        let value = work(&StoreTransaction {
            path: &path,
            transaction: &transaction,
        })?;
        transaction.commit().map_err(|source| StoreError {
            path,
            source: source.into(),
        })?;
        Ok(value)
    }

    /// The frontier of a crawl: entries not yet fetched, and URLs already done.
    pub fn frontier(&self, crawl: i64) -> Result<(Vec<FrontierEntry>, Vec<String>)> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT url, hops, round, inlinks, via, path, redirects, done FROM frontier
                 WHERE crawl = ?1 ORDER BY rowid",
            )
            .map_err(|e| self.wrap(e))?;
        let mut queued = Vec::new();
        let mut done = Vec::new();
        let mut rows = statement.query([crawl]).map_err(|e| self.wrap(e))?;
        while let Some(row) = rows.next().map_err(|e| self.wrap(e))? {
            let entry = FrontierEntry {
                url: row.get(0).map_err(|e| self.wrap(e))?,
                hops: row.get(1).map_err(|e| self.wrap(e))?,
                round: row.get(2).map_err(|e| self.wrap(e))?,
                inlinks: row.get(3).map_err(|e| self.wrap(e))?,
                via: row.get(4).map_err(|e| self.wrap(e))?,
                path: row.get(5).map_err(|e| self.wrap(e))?,
                redirects: row.get(6).map_err(|e| self.wrap(e))?,
            };
            let is_done: bool = row.get(7).map_err(|e| self.wrap(e))?;
            if is_done {
                done.push(entry.url);
            } else {
                queued.push(entry);
            }
        }
        Ok((queued, done))
    }

    /// The crawl log, oldest first; only `crawl`'s fetches when given.
    pub fn fetch_log(&self, crawl: Option<i64>) -> Result<Vec<FetchLogEntry>> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT url, time, round, hops, kind, status, duration_ms, bytes, digest, change,
                        error, content_type, outlinks, record_id, warc_file, warc_offset, warc_length
                 FROM fetches WHERE (?1 IS NULL OR crawl = ?1) ORDER BY id",
            )
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([crawl], fetch_row)
            .map_err(|e| self.wrap(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.wrap(e))
    }

    /// What the archive holds of `url`.
    pub fn url_state(&self, url: &str) -> Result<Option<UrlState>> {
        url_state(&self.connection, url).map_err(|e| self.wrap(e))
    }
}

/// A read-only view of the store for the crawl's scheduler, beside the writing archiver.
pub struct StateReader {
    path: PathBuf,
    connection: Connection,
}

impl StateReader {
    /// Opens the store in `state_dir` for reading (it must exist: open a [`StateStore`] first).
    pub fn open(state_dir: &Path) -> Result<Self> {
        let path = state_dir.join("state.sqlite");
        let connection = Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|source| StoreError {
            path: path.clone(),
            source: source.into(),
        })?;
        connection
            .busy_timeout(Duration::from_secs(30))
            .map_err(|source| StoreError {
                path: path.clone(),
                source: source.into(),
            })?;
        Ok(Self { path, connection })
    }

    /// What the archive holds of `url`.
    pub fn url_state(&self, url: &str) -> Result<Option<UrlState>> {
        url_state(&self.connection, url).map_err(|source| StoreError {
            path: self.path.clone(),
            source: source.into(),
        })
    }
}

/// Writes inside one transaction of [`StateStore::transaction`].
pub struct StoreTransaction<'a> {
    path: &'a Path,
    transaction: &'a rusqlite::Transaction<'a>,
}

impl StoreTransaction<'_> {
    fn wrap(&self, source: rusqlite::Error) -> StoreError {
        StoreError {
            path: self.path.to_path_buf(),
            source: source.into(),
        }
    }

    /// Appends a row to the crawl log.
    pub fn log_fetch(&self, crawl: i64, entry: &FetchLogEntry) -> Result<()> {
        let record = entry.record.as_ref();
        self.transaction
            .prepare_cached(
                "INSERT INTO fetches (crawl, url, time, round, hops, kind, status, duration_ms,
                    bytes, digest, change, error, content_type, outlinks, record_id, warc_file,
                    warc_offset, warc_length)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                    ?17, ?18)",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    crawl,
                    entry.url,
                    entry
                        .time
                        .to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
                    entry.round,
                    entry.hops,
                    entry.kind,
                    entry.status,
                    entry.duration.map(|d| d.as_secs_f64() * 1000.0),
                    entry.bytes,
                    entry.digest,
                    entry.change.as_str(),
                    entry.error,
                    entry.content_type,
                    entry.outlinks,
                    record.map(|r| r.record_id.as_str()),
                    record.map(|r| r.file.as_str()),
                    record.map(|r| r.offset),
                    record.map(|r| r.length),
                ])
            })
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// Records the latest payload capture and validators of a URL.
    pub fn set_url_state(&self, url: &str, state: &UrlState) -> Result<()> {
        let record = state.record.as_ref();
        self.transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO url_state
                    (url, digest, date, record_id, warc_file, warc_offset, warc_length, etag,
                     last_modified)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    url,
                    state.digest,
                    state.date,
                    record.map(|r| r.record_id.as_str()),
                    record.map(|r| r.file.as_str()),
                    record.map(|r| r.offset),
                    record.map(|r| r.length),
                    state.etag,
                    state.last_modified,
                ])
            })
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }

    /// What the archive holds of `url`, as this transaction sees it.
    pub fn url_state(&self, url: &str) -> Result<Option<UrlState>> {
        url_state(self.transaction, url).map_err(|e| self.wrap(e))
    }

    /// Adds URLs to a crawl's frontier; a URL already there only takes the hops, path and
    /// referrer of a shorter path.
    pub fn enqueue(&self, crawl: i64, entries: &[FrontierEntry]) -> Result<()> {
        let mut statement = self
            .transaction
            .prepare_cached(
                "INSERT INTO frontier (crawl, url, hops, round, inlinks, via, path, redirects)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (crawl, url) DO UPDATE SET hops = excluded.hops,
                    via = excluded.via, path = excluded.path, redirects = excluded.redirects
                 WHERE excluded.hops < frontier.hops",
            )
            .map_err(|e| self.wrap(e))?;
        for entry in entries {
            statement
                .execute(params![
                    crawl,
                    entry.url,
                    entry.hops,
                    entry.round,
                    entry.inlinks,
                    entry.via,
                    entry.path,
                    entry.redirects,
                ])
                .map_err(|e| self.wrap(e))?;
        }
        Ok(())
    }

    /// Marks a frontier URL as fetched (or given up on).
    pub fn mark_done(&self, crawl: i64, url: &str) -> Result<()> {
        self.transaction
            .prepare_cached("UPDATE frontier SET done = 1 WHERE crawl = ?1 AND url = ?2")
            .and_then(|mut statement| statement.execute(params![crawl, url]))
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }
}

fn crawl_run(row: &rusqlite::Row<'_>) -> rusqlite::Result<CrawlRun> {
    Ok(CrawlRun {
        id: row.get(0)?,
        started: row.get(1)?,
        finished: row.get(2)?,
        round: row.get(3)?,
        options: row.get(4)?,
    })
}

fn fetch_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<FetchLogEntry> {
    let time: String = row.get(1)?;
    let change: String = row.get(9)?;
    let record_id: Option<String> = row.get(13)?;
    let file: Option<String> = row.get(14)?;
    let record = match (record_id, file) {
        (Some(record_id), Some(file)) => Some(RecordRef {
            record_id,
            file,
            offset: row.get(15)?,
            length: row.get(16)?,
        }),
        _ => None,
    };
    Ok(FetchLogEntry {
        url: row.get(0)?,
        time: DateTime::parse_from_rfc3339(&time)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
        round: row.get(2)?,
        hops: row.get(3)?,
        kind: row.get(4)?,
        status: row.get(5)?,
        duration: row
            .get::<_, Option<f64>>(6)?
            .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1000.0)),
        bytes: row.get(7)?,
        digest: row.get(8)?,
        change: match change.as_str() {
            "new" => Change::New,
            "changed" => Change::Changed,
            "unchanged" => Change::Unchanged,
            "excluded" => Change::Excluded,
            _ => Change::Failed,
        },
        error: row.get(10)?,
        content_type: row.get(11)?,
        outlinks: row.get(12)?,
        record,
    })
}

fn url_state(connection: &Connection, url: &str) -> rusqlite::Result<Option<UrlState>> {
    connection
        .prepare_cached(
            "SELECT digest, date, record_id, warc_file, warc_offset, warc_length, etag,
                    last_modified
             FROM url_state WHERE url = ?1",
        )?
        .query_row([url], |row| {
            let record_id: Option<String> = row.get(2)?;
            let file: Option<String> = row.get(3)?;
            let record = match (record_id, file) {
                (Some(record_id), Some(file)) => Some(RecordRef {
                    record_id,
                    file,
                    offset: row.get(4)?,
                    length: row.get(5)?,
                }),
                _ => None,
            };
            Ok(UrlState {
                digest: row.get(0)?,
                date: row.get(1)?,
                record,
                etag: row.get(6)?,
                last_modified: row.get(7)?,
            })
        })
        .optional()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(url: &str) -> FrontierEntry {
        FrontierEntry {
            url: url.into(),
            hops: 1,
            round: 1,
            inlinks: 2,
            via: Some("http://a.example/".into()),
            path: "L".into(),
            redirects: 0,
        }
    }

    #[test]
    fn frontier_and_log_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let crawl;
        {
            let mut store = StateStore::open(dir.path()).unwrap();
            crawl = store.start_crawl(Utc::now(), "{}").unwrap();
            store
                .transaction(|t| {
                    t.enqueue(
                        crawl,
                        &[entry("http://a.example/x"), entry("http://a.example/y")],
                    )?;
                    t.mark_done(crawl, "http://a.example/x")?;
                    t.log_fetch(
                        crawl,
                        &FetchLogEntry {
                            url: "http://a.example/x".into(),
                            time: Utc::now(),
                            round: 1,
                            hops: 1,
                            kind: "document".into(),
                            status: Some(200),
                            duration: Some(Duration::from_millis(12)),
                            bytes: Some(100),
                            digest: Some("sha1:AAAA".into()),
                            change: Change::New,
                            error: None,
                            content_type: Some("text/turtle".into()),
                            outlinks: Some(3),
                            record: Some(RecordRef {
                                record_id: "<urn:uuid:1>".into(),
                                file: "2026/x.warc.gz".into(),
                                offset: 10,
                                length: 20,
                            }),
                        },
                    )
                })
                .unwrap();
            // A transaction that fails leaves nothing behind.
            let failed = store.transaction(|t| {
                t.enqueue(crawl, &[entry("http://a.example/z")])?;
                Err::<(), _>(t.wrap(rusqlite::Error::InvalidQuery))
            });
            assert!(failed.is_err());
        }
        let store = StateStore::open(dir.path()).unwrap();
        let (queued, done) = store.frontier(crawl).unwrap();
        assert_eq!(queued, vec![entry("http://a.example/y")]);
        assert_eq!(done, vec!["http://a.example/x".to_string()]);
        let log = store.fetch_log(Some(crawl)).unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].change, Change::New);
        assert_eq!(log[0].record.as_ref().unwrap().offset, 10);
        assert_eq!(store.unfinished_crawl().unwrap().unwrap().id, crawl);
        store.finish_crawl(crawl, Utc::now()).unwrap();
        assert!(store.unfinished_crawl().unwrap().is_none());
    }

    #[test]
    fn url_state_is_readable_beside_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = StateStore::open(dir.path()).unwrap();
        let reader = StateReader::open(dir.path()).unwrap();
        assert_eq!(reader.url_state("http://a.example/").unwrap(), None);
        let state = UrlState {
            digest: Some("sha1:X".into()),
            date: Some("2026-11-21T00:00:00Z".into()),
            record: None,
            etag: Some("\"e\"".into()),
            last_modified: None,
        };
        store
            .transaction(|t| t.set_url_state("http://a.example/", &state))
            .unwrap();
        assert_eq!(reader.url_state("http://a.example/").unwrap(), Some(state));
    }
}
