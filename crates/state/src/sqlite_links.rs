//! What fetched documents link to, kept in the embedded store so that a resumed crawl can
//! still follow a shorter path: the crawler keeps a fetched document's links in memory to
//! follow them again when its hop count drops, and a restart loses that memory. The frontier
//! row of each fetched document holds its links (one `L`/`R`/`X` and URL per line, as on
//! PostgreSQL), and a resumed crawl reads them back with the row's hop count and path.

use rusqlite::{Connection, params};

use super::{FrontierEntry, Result, StateStore, StoreTransaction};

/// A fetched document of a crawl's frontier, as a resumed crawl needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedEntry {
    /// Its frontier row: the (lowest) hop count, path and redirects it was reached with.
    pub entry: FrontierEntry,
    /// What it leads to: the URL and `L` (link), `R` (redirect target) or `X` (context),
    /// including links not followed because it was at the hop limit.
    pub links: Vec<(String, char)>,
}

/// Adds the `links` column to a frontier table created before it existed.
pub(super) fn add_links_column(connection: &Connection) -> rusqlite::Result<()> {
    let present: bool = connection.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('frontier') WHERE name = 'links')",
        [],
        |row| row.get(0),
    )?;
    if !present {
        connection.execute_batch("ALTER TABLE frontier ADD COLUMN links TEXT")?;
    }
    Ok(())
}

impl StateStore {
    /// The fetched (done) documents of a crawl with their hop counts and stored links.
    pub fn fetched(&self, crawl: i64) -> Result<Vec<FetchedEntry>> {
        let mut statement = self
            .connection
            .prepare(
                "SELECT url, hops, round, inlinks, via, path, redirects, links FROM frontier
                 WHERE crawl = ?1 AND done = 1 ORDER BY rowid",
            )
            .map_err(|e| self.wrap(e))?;
        let rows = statement
            .query_map([crawl], |row| {
                let links: Option<String> = row.get(7)?;
                Ok(FetchedEntry {
                    entry: FrontierEntry {
                        url: row.get(0)?,
                        hops: row.get(1)?,
                        round: row.get(2)?,
                        inlinks: row.get(3)?,
                        via: row.get(4)?,
                        path: row.get(5)?,
                        redirects: row.get(6)?,
                    },
                    links: links.as_deref().map(parse_links).unwrap_or_default(),
                })
            })
            .map_err(|e| self.wrap(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.wrap(e))
    }
}

impl StoreTransaction<'_> {
    /// Records what the fetched document `url` leads to.
    pub fn record_links(&self, crawl: i64, url: &str, links: &[(String, char)]) -> Result<()> {
        if links.is_empty() {
            return Ok(());
        }
        let text = links_text(links);
        self.transaction
            .prepare_cached("UPDATE frontier SET links = ?3 WHERE crawl = ?1 AND url = ?2")
            .and_then(|mut statement| statement.execute(params![crawl, url, text]))
            .map_err(|e| self.wrap(e))?;
        Ok(())
    }
}

/// Links as stored, by both stores: one `L`/`R`/`X`, a space and the URL per line.
pub(super) fn links_text(links: &[(String, char)]) -> String {
    links
        .iter()
        .map(|(link, kind)| format!("{kind} {link}\n"))
        .collect()
}

/// Stored links back as URL and kind; a line of another form (none is written) is skipped.
fn parse_links(text: &str) -> Vec<(String, char)> {
    text.lines()
        .filter_map(|line| {
            let (kind, url) = line.split_once(' ')?;
            let kind = match kind {
                "L" => 'L',
                "R" => 'R',
                "X" => 'X',
                _ => return None,
            };
            Some((url.to_string(), kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::enqueue_batch::tests::entry;
    use super::*;

    #[test]
    fn fetched_documents_come_back_with_their_links_and_lowest_hops() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = StateStore::open(dir.path()).unwrap();
        let crawl = store.start_crawl(chrono::Utc::now(), "{}").unwrap();
        let links = vec![
            ("http://b.example/1".to_string(), 'L'),
            ("http://a.example/r".to_string(), 'R'),
            ("http://c.example/ctx".to_string(), 'X'),
        ];
        store
            .transaction(|t| {
                t.enqueue(
                    crawl,
                    &[
                        entry("http://a.example/d", 4),
                        entry("http://q.example/", 2),
                    ],
                )?;
                t.mark_done(crawl, "http://a.example/d")?;
                t.record_links(crawl, "http://a.example/d", &links)?;
                t.enqueue(crawl, &[entry("http://a.example/d", 2)])
            })
            .unwrap();
        drop(store);
        let reopened = StateStore::open(dir.path()).unwrap();
        let fetched = reopened.fetched(crawl).unwrap();
        // A shorter path takes the hops and path; the round stays the one queued for.
        let lowered = FrontierEntry {
            round: 4,
            ..entry("http://a.example/d", 2)
        };
        assert_eq!(
            fetched,
            [FetchedEntry {
                entry: lowered,
                links
            }]
        );
    }

    #[test]
    fn a_store_from_before_links_gains_the_column_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.sqlite");
        let old = Connection::open(&path).unwrap();
        // The schema as it was: the column comes from `add_links_column` only.
        old.execute_batch(&crate::schema::schema(crate::schema::Dialect::Sqlite))
            .unwrap();
        let columns: i64 = old
            .query_row(
                "SELECT count(*) FROM pragma_table_info('frontier') WHERE name = 'links'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(columns, 0);
        old.execute_batch(
            "INSERT INTO crawls (id, started, options) VALUES (1, '2026-01-01T00:00:00Z', '{}');
             INSERT INTO frontier (crawl, url, hops, round, inlinks, path, done)
                 VALUES (1, 'http://a.example/', 1, 1, 1, 'L', 1);",
        )
        .unwrap();
        drop(old);
        let store = StateStore::open(dir.path()).unwrap();
        let fetched = store.fetched(1).unwrap();
        assert_eq!(fetched.len(), 1);
        assert_eq!(fetched[0].entry.hops, 1);
        assert!(fetched[0].links.is_empty());
    }
}
