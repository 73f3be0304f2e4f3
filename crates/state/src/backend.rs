//! The state-store abstraction: [`StateBackend`] (crawls, frontier, crawl log, per-URL state)
//! and [`BackendTransaction`] (the writes that commit together), implemented by the embedded
//! SQLite [`StateStore`] here and by the PostgreSQL store in `postgres.rs`, plus the one error
//! type both report ([`BackendError`]).

use chrono::{DateTime, Utc};

use super::{
    CrawlRun, FetchLogEntry, FrontierEntry, StateStore, StoreError, StoreTransaction, UrlState,
};

/// Errors of a state-store backend: one line naming the database (never its password).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The embedded SQLite store failed.
    #[error(transparent)]
    Sqlite(#[from] StoreError),
    /// PostgreSQL refused or the connection broke.
    #[error("state store {database}: {}", describe_postgres_error(source))]
    Postgres {
        /// The database, without password.
        database: String,
        /// What the client reported.
        #[source]
        source: postgres::Error,
    },
    /// A value read back or about to be written does not fit its column.
    #[error("state store {database}: {problem}")]
    Invalid {
        /// The database, without password.
        database: String,
        /// What is wrong, naming the column.
        problem: InvalidValue,
    },
    /// A fenced write found that `node` no longer holds the lease on `pld`: another node may
    /// have taken the domain over, so nothing of this transaction is committed.
    #[error(
        "state store {database}: node {node} lost its lease on {pld} (crawl {crawl}); not writing {url}"
    )]
    LeaseLost {
        /// The database, without password.
        database: String,
        /// The node that tried to write.
        node: String,
        /// The crawl.
        crawl: i64,
        /// The pay-level domain whose lease was lost.
        pld: String,
        /// The URL being written.
        url: String,
    },
    /// The caller's work gave up on the transaction (everything it wrote is rolled back).
    #[error("state store transaction aborted: {0}")]
    Aborted(String),
}

/// A value read back from the database, or about to be written to it, that does not fit:
/// odd data is an error naming the column, never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidValue {
    /// A column that cannot be read as the field's type (NULL, or another SQL type).
    #[error("column {column}: {detail}")]
    Column {
        /// The column's name.
        column: String,
        /// What the client reported.
        detail: String,
    },
    /// A number outside the range of its field (a negative count, say).
    #[error("{column} holds {value}, out of range")]
    OutOfRange {
        /// The table and column, `table.column`.
        column: String,
        /// The value read.
        value: i64,
    },
    /// A number too large for its BIGINT column.
    #[error("{column} {value} is too large")]
    TooLarge {
        /// The column.
        column: String,
        /// The value to be written.
        value: u64,
    },
    /// A statement that always returns a row returned none.
    #[error("{0} returned no row")]
    NoRow(&'static str),
}

impl BackendError {
    /// Whether this is a [`BackendError::LeaseLost`].
    pub fn is_lease_lost(&self) -> bool {
        matches!(self, BackendError::LeaseLost { .. })
    }

    /// Whether PostgreSQL rolled the transaction back to break a deadlock (40P01) or a
    /// serialization conflict (40001) with another node's transaction: the same work
    /// succeeds when tried again, in a new transaction.
    pub fn is_transient_conflict(&self) -> bool {
        let BackendError::Postgres { source, .. } = self else {
            return false;
        };
        source
            .code()
            .is_some_and(|code| matches!(code.code(), "40P01" | "40001"))
    }

    /// Whether the PostgreSQL server could not be reached or went away (it stopped or
    /// restarted, the network failed, a timeout cut the connection): worth reconnecting and
    /// trying again, unlike an error in what was asked.
    pub fn is_connection_lost(&self) -> bool {
        let BackendError::Postgres { source, .. } = self else {
            return false;
        };
        if source.is_closed() {
            return true;
        }
        match source.code() {
            // Class 08 (connection exception), 57P01-57P03 (shutdown, crash, cannot connect
            // now), 57014 (statement timeout on a stalled server).
            Some(code) => {
                let code = code.code();
                code.starts_with("08") || code.starts_with("57P") || code == "57014"
            }
            // No SQLSTATE: the client's own I/O or connect failure (not a value it could not
            // convert, which trying again would not mend).
            None => {
                let mut cause = std::error::Error::source(source);
                while let Some(error) = cause {
                    if error.is::<std::io::Error>() {
                        return true;
                    }
                    cause = error.source();
                }
                false
            }
        }
    }
}

/// A PostgreSQL error in one line: the server's message and SQLSTATE when it sent one (the
/// client's own text is only "db error" then).
fn describe_postgres_error(error: &postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} {} ({})", db.severity(), db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// Result of backend operations.
pub type BackendResult<T> = std::result::Result<T, BackendError>;

/// A state store: where the crawls, their frontier, the crawl log and per-URL state live.
pub trait StateBackend {
    /// The writes of one transaction.
    type Transaction<'t>: BackendTransaction
    where
        Self: 't;

    /// Starts a new crawl; returns its id.
    fn start_crawl(&mut self, started: DateTime<Utc>, options: &str) -> BackendResult<i64>;
    /// The latest crawl that did not finish, if any.
    fn unfinished_crawl(&mut self) -> BackendResult<Option<CrawlRun>>;
    /// Every crawl, oldest first.
    fn crawls(&mut self) -> BackendResult<Vec<CrawlRun>>;
    /// Records the round a crawl is in.
    fn set_round(&mut self, crawl: i64, round: u32) -> BackendResult<()>;
    /// Marks a crawl finished.
    fn finish_crawl(&mut self, crawl: i64, finished: DateTime<Utc>) -> BackendResult<()>;
    /// Marks every unfinished crawl but `keep` as finished at `now`.
    fn abandon_unfinished(&mut self, keep: i64, now: DateTime<Utc>) -> BackendResult<()>;
    /// Runs `work` in one transaction: everything it writes commits together, or nothing
    /// does when it returns an error.
    fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut Self::Transaction<'_>) -> BackendResult<T>,
    ) -> BackendResult<T>;
    /// A crawl's frontier: entries not yet fetched (in enqueue order) and URLs done.
    fn frontier(&mut self, crawl: i64) -> BackendResult<(Vec<FrontierEntry>, Vec<String>)>;
    /// The crawl log, oldest first; only `crawl`'s fetches when given.
    fn fetch_log(&mut self, crawl: Option<i64>) -> BackendResult<Vec<FetchLogEntry>>;
    /// What the archive holds of `url`.
    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>>;
}

/// The writes inside one [`StateBackend::transaction`].
pub trait BackendTransaction {
    /// Appends a row to the crawl log.
    fn log_fetch(&mut self, crawl: i64, entry: &FetchLogEntry) -> BackendResult<()>;
    /// Records (replacing) the latest payload capture and validators of a URL.
    fn set_url_state(&mut self, url: &str, state: &UrlState) -> BackendResult<()>;
    /// What the archive holds of `url`, as this transaction sees it.
    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>>;
    /// Adds URLs to a crawl's frontier; a URL already there only takes the hops, path and
    /// referrer of an entry with fewer hops (a shorter path), nothing else.
    fn enqueue(&mut self, crawl: i64, entries: &[FrontierEntry]) -> BackendResult<()>;
    /// Marks a frontier URL as fetched (or given up on).
    fn mark_done(&mut self, crawl: i64, url: &str) -> BackendResult<()>;
    /// Records what the fetched document `url` leads to (`L` link, `R` redirect target, `X`
    /// context, with the URL), so that a shorter path to it found later by any node follows
    /// them again, or a resumed crawl does.
    fn record_links(
        &mut self,
        _crawl: i64,
        _url: &str,
        _links: &[(String, char)],
    ) -> BackendResult<()> {
        Ok(())
    }
}

/// The SQLite store's transaction seen through [`BackendTransaction`].
pub struct SqliteTransaction<'t> {
    inner: StoreTransaction<'t>,
}

impl StateBackend for StateStore {
    type Transaction<'t> = SqliteTransaction<'t>;

    fn start_crawl(&mut self, started: DateTime<Utc>, options: &str) -> BackendResult<i64> {
        Ok(StateStore::start_crawl(self, started, options)?)
    }

    fn unfinished_crawl(&mut self) -> BackendResult<Option<CrawlRun>> {
        Ok(StateStore::unfinished_crawl(self)?)
    }

    fn crawls(&mut self) -> BackendResult<Vec<CrawlRun>> {
        Ok(StateStore::crawls(self)?)
    }

    fn set_round(&mut self, crawl: i64, round: u32) -> BackendResult<()> {
        Ok(StateStore::set_round(self, crawl, round)?)
    }

    fn finish_crawl(&mut self, crawl: i64, finished: DateTime<Utc>) -> BackendResult<()> {
        Ok(StateStore::finish_crawl(self, crawl, finished)?)
    }

    fn abandon_unfinished(&mut self, keep: i64, now: DateTime<Utc>) -> BackendResult<()> {
        Ok(StateStore::abandon_unfinished(self, keep, now)?)
    }

    fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut SqliteTransaction<'_>) -> BackendResult<T>,
    ) -> BackendResult<T> {
        // Same steps as `StateStore::transaction`, but the work may fail with any
        // `BackendError` (a lost lease, an abort), which that method's error type cannot carry.
        let wrap = |source: rusqlite::Error| StoreError {
            path: self.path.clone(),
            source: source.into(),
        };
        let transaction = self.connection.transaction().map_err(wrap)?;
        let value = work(&mut SqliteTransaction {
            inner: StoreTransaction {
                path: &self.path,
                transaction: &transaction,
            },
        })?;
        transaction.commit().map_err(wrap)?;
        Ok(value)
    }

    fn frontier(&mut self, crawl: i64) -> BackendResult<(Vec<FrontierEntry>, Vec<String>)> {
        Ok(StateStore::frontier(self, crawl)?)
    }

    fn fetch_log(&mut self, crawl: Option<i64>) -> BackendResult<Vec<FetchLogEntry>> {
        Ok(StateStore::fetch_log(self, crawl)?)
    }

    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>> {
        Ok(StateStore::url_state(self, url)?)
    }
}

impl BackendTransaction for SqliteTransaction<'_> {
    fn log_fetch(&mut self, crawl: i64, entry: &FetchLogEntry) -> BackendResult<()> {
        Ok(self.inner.log_fetch(crawl, entry)?)
    }

    fn set_url_state(&mut self, url: &str, state: &UrlState) -> BackendResult<()> {
        Ok(self.inner.set_url_state(url, state)?)
    }

    fn url_state(&mut self, url: &str) -> BackendResult<Option<UrlState>> {
        Ok(self.inner.url_state(url)?)
    }

    fn enqueue(&mut self, crawl: i64, entries: &[FrontierEntry]) -> BackendResult<()> {
        Ok(self.inner.enqueue(crawl, entries)?)
    }

    fn mark_done(&mut self, crawl: i64, url: &str) -> BackendResult<()> {
        Ok(self.inner.mark_done(crawl, url)?)
    }

    fn record_links(
        &mut self,
        crawl: i64,
        url: &str,
        links: &[(String, char)],
    ) -> BackendResult<()> {
        Ok(self.inner.record_links(crawl, url, links)?)
    }
}
