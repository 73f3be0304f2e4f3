//! The crawl log since a moment: what the crawler needs to stay polite across crawls,
//! processes and nodes (the last contact with each host, and the robots.txt answers still
//! fresh), read from either store. Rows come oldest first.

use chrono::{DateTime, SecondsFormat, Utc};

use super::{BackendResult, FetchLogEntry, PgStateStore, Result, StateStore, fetch_row};

/// The columns of a crawl-log row, as both stores' row readers expect them.
const COLUMNS: &str = "url, time, round, hops, kind, status, duration_ms, bytes, digest, change,
    error, content_type, outlinks, record_id, warc_file, warc_offset, warc_length";

/// Times are stored as RFC 3339 UTC with microseconds, so they compare as text.
fn stored_time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

impl StateStore {
    /// The crawl-log rows of fetches since `since` (of kind `kind` only, when given).
    pub fn fetches_since(
        &self,
        since: DateTime<Utc>,
        kind: Option<&str>,
    ) -> Result<Vec<FetchLogEntry>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM fetches WHERE time >= ?1 AND (?2 IS NULL OR kind = ?2)
             ORDER BY time, id"
        );
        let mut statement = self.connection.prepare(&sql).map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map(rusqlite::params![stored_time(since), kind], fetch_row)
            .map_err(|e| self.wrap(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.wrap(e))
    }
}

impl PgStateStore {
    /// The crawl-log rows of fetches since `since` (of kind `kind` only, when given), by every
    /// node of the shared store.
    pub fn fetches_since(
        &mut self,
        since: DateTime<Utc>,
        kind: Option<&str>,
    ) -> BackendResult<Vec<FetchLogEntry>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM fetches WHERE time >= $1 AND ($2::TEXT IS NULL OR kind = $2)
             ORDER BY time, id"
        );
        let rows = self.query(&sql, &[&stored_time(since), &kind])?;
        rows.iter()
            .map(|row| super::postgres::fetch_entry(row).map_err(|problem| self.invalid(problem)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BackendTransaction, Change, StateBackend, StateStore};
    use super::*;
    use std::time::Duration;

    fn row(url: &str, kind: &str, time: DateTime<Utc>) -> FetchLogEntry {
        FetchLogEntry {
            url: url.into(),
            time,
            round: 0,
            hops: 0,
            kind: kind.into(),
            status: Some(200),
            duration: Some(Duration::from_millis(5)),
            bytes: None,
            digest: None,
            change: Change::New,
            error: None,
            content_type: None,
            outlinks: None,
            record: None,
        }
    }

    /// Logs an old robots.txt fetch, a document and a fresh robots.txt fetch; returns
    /// the moment 24 hours back.
    fn log_three<B: StateBackend>(store: &mut B) -> DateTime<Utc> {
        let now = Utc::now();
        let crawl = store.start_crawl(now, "{}").unwrap();
        let old = now - chrono::Duration::hours(25);
        store
            .transaction(|t| {
                t.log_fetch(crawl, &row("http://a.example/robots.txt", "robots", old))?;
                t.log_fetch(crawl, &row("http://a.example/x", "document", now))?;
                t.log_fetch(crawl, &row("http://b.example/robots.txt", "robots", now))
            })
            .unwrap();
        now - chrono::Duration::hours(24)
    }

    fn check(all: Vec<FetchLogEntry>, robots: Vec<FetchLogEntry>) {
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].url, "http://a.example/x");
        assert_eq!(robots.len(), 1);
        assert_eq!(robots[0].url, "http://b.example/robots.txt");
    }

    #[test]
    fn rows_since_a_moment_of_one_kind_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = StateStore::open(dir.path()).unwrap();
        let since = log_three(&mut store);
        check(
            store.fetches_since(since, None).unwrap(),
            store.fetches_since(since, Some("robots")).unwrap(),
        );
    }

    #[test]
    fn rows_since_a_moment_of_one_kind_on_postgres() {
        let server = ldwarc_testweb::postgres::shared_server();
        let url = server.fresh_database("recent");
        let mut store = PgStateStore::connect(&url).unwrap();
        let since = log_three(&mut store);
        check(
            store.fetches_since(since, None).unwrap(),
            store.fetches_since(since, Some("robots")).unwrap(),
        );
    }
}
