//! Exact hop counts on the shared frontier. Nodes run their own rounds, so a URL may be
//! queued first by a longer path than its shortest; a later, shorter path lowers its row's
//! hop count (whichever node finds it). If the URL was already fetched, possibly by a node
//! that has since given its PLD up, its stored links are followed again from the lower count
//! in the same transaction: links now within the hop limit are queued, rows reached with more
//! hops are lowered in turn.

use super::FrontierEntry;
use super::backend::{BackendResult, InvalidValue};
use super::enqueue_batch::EnqueueBatch;
use super::postgres::{PgStateStore, PgTransaction, column};
use super::sqlite_links::links_text;

/// The most rounds of following links again in one transaction: each round lowers hop
/// counts, which cannot go below zero, so a graph needs at most its hop limit of them; this
/// bounds a transaction whatever the data says.
const MAX_ROUNDS: u32 = 64;

impl PgStateStore {
    /// Makes enqueuing follow the stored links of a fetched document again when a shorter
    /// path to it lowers its hop count, within `hop_limit` hops (a crawl's `--hops`).
    pub fn follow_shorter_paths(&mut self, hop_limit: u32) {
        self.hop_limit = Some(hop_limit);
    }
}

/// A row an enqueue inserted or lowered.
struct Touched {
    url: String,
    hops: u32,
    round: u32,
    path: String,
    done: bool,
    links: Option<String>,
}

impl PgTransaction<'_> {
    /// Inserts `entries` (one statement), lowering the hop count of URLs known with more;
    /// then, with a hop limit set, follows the links of fetched documents just lowered.
    pub(super) fn enqueue_exact(
        &mut self,
        crawl: i64,
        entries: &[FrontierEntry],
    ) -> BackendResult<()> {
        let mut batch = entries.to_vec();
        for _ in 0..MAX_ROUNDS {
            if batch.is_empty() {
                return Ok(());
            }
            let touched = self.upsert(crawl, &batch)?;
            batch = match self.hop_limit {
                Some(limit) => touched
                    .iter()
                    .filter(|row| row.done)
                    .flat_map(|row| followed(row, limit))
                    .collect(),
                None => Vec::new(),
            };
        }
        Ok(())
    }

    /// The links of the fetched document `url`, one `L`/`R`/`X` and URL per line.
    pub(super) fn store_links(
        &mut self,
        crawl: i64,
        url: &str,
        links: &[(String, char)],
    ) -> BackendResult<()> {
        if links.is_empty() {
            return Ok(());
        }
        let text = links_text(links);
        self.execute(
            "UPDATE frontier SET links = $3 WHERE crawl = $1 AND url = $2",
            &[&crawl, &url, &text],
        )?;
        Ok(())
    }

    /// One batched insert; returns the rows inserted or lowered (a URL known with as few
    /// hops or fewer is left alone and not returned).
    fn upsert(&mut self, crawl: i64, entries: &[FrontierEntry]) -> BackendResult<Vec<Touched>> {
        let batch = EnqueueBatch::of(entries);
        // A lowered row takes a new id, so nodes reading rows after the last id they saw
        // learn of it. Links to URLs already known with as few hops (most links) are left
        // out before inserting: `ON CONFLICT` would lock those rows, and wait for any other
        // transaction holding them, even though it changes nothing.
        let rows = self.query(
            "INSERT INTO frontier (crawl, url, pld, hops, round, inlinks, via, path, redirects)
             SELECT $1, u.url, u.pld, u.hops, u.round, u.inlinks, u.via, u.path, u.redirects
             FROM unnest($2::TEXT[], $3::TEXT[], $4::BIGINT[], $5::BIGINT[], $6::BIGINT[],
                         $7::TEXT[], $8::TEXT[], $9::BIGINT[])
                  AS u(url, pld, hops, round, inlinks, via, path, redirects)
             WHERE NOT EXISTS (SELECT 1 FROM frontier f
                               WHERE f.crawl = $1 AND f.url = u.url AND f.hops <= u.hops)
             ON CONFLICT (crawl, url) DO UPDATE SET hops = EXCLUDED.hops, via = EXCLUDED.via,
                path = EXCLUDED.path, redirects = EXCLUDED.redirects,
                id = nextval(pg_get_serial_sequence('frontier', 'id'))
             WHERE frontier.hops > EXCLUDED.hops
             RETURNING url, hops, round, path, done, links",
            &[
                &crawl,
                &batch.urls,
                &batch.plds,
                &batch.hops,
                &batch.rounds,
                &batch.inlinks,
                &batch.vias,
                &batch.paths,
                &batch.redirects,
            ],
        )?;
        // Every PLD with queued URLs has a (free) lease row, so claims can lock it. Rows
        // that exist are left out before inserting: `ON CONFLICT` alone would wait for a
        // lease renewal updating such a row, while that renewal may wait for this
        // transaction's fence lock (a deadlock PostgreSQL breaks by aborting one of them).
        self.execute(
            "INSERT INTO pld_leases (crawl, pld)
             SELECT $1, p FROM unnest($2::TEXT[]) AS p
             WHERE NOT EXISTS (SELECT 1 FROM pld_leases l WHERE l.crawl = $1 AND l.pld = p)
             ON CONFLICT DO NOTHING",
            &[&crawl, &batch.distinct_plds],
        )?;
        rows.iter()
            .map(|row| touched(row).map_err(|problem| self.invalid(problem)))
            .collect()
    }
}

fn touched(row: &postgres::Row) -> Result<Touched, InvalidValue> {
    let count = |value: i64, name: &str| {
        u32::try_from(value).map_err(|_| InvalidValue::OutOfRange {
            column: format!("frontier.{name}"),
            value,
        })
    };
    Ok(Touched {
        url: column(row, 0)?,
        hops: count(column(row, 1)?, "hops")?,
        round: count(column(row, 2)?, "round")?,
        path: column(row, 3)?,
        done: column(row, 4)?,
        links: column(row, 5)?,
    })
}

/// The entries a fetched document's stored links give from its (lowered) hop count: links
/// one hop further while within `limit`, redirect targets and contexts at the same count.
fn followed(row: &Touched, limit: u32) -> Vec<FrontierEntry> {
    let Some(links) = &row.links else {
        return Vec::new();
    };
    links
        .lines()
        .filter_map(|line| {
            let (kind, url) = line.split_once(' ')?;
            let (hops, round) = match kind {
                "L" if row.hops < limit => (row.hops + 1, row.round + 1),
                "R" | "X" => (row.hops, row.round),
                _ => return None,
            };
            Some(FrontierEntry {
                url: url.to_string(),
                hops,
                round,
                inlinks: 1,
                via: Some(row.url.clone()),
                path: format!("{}{kind}", row.path),
                redirects: 0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_links_give_entries_within_the_limit_only() {
        let row = Touched {
            url: "http://a.example/d".into(),
            hops: 2,
            round: 3,
            path: "LL".into(),
            done: true,
            links: Some(
                "L http://b.example/1\nR http://a.example/r\nX http://c.example/ctx\n".into(),
            ),
        };
        let entries = followed(&row, 3);
        let summary: Vec<(&str, u32, &str)> = entries
            .iter()
            .map(|e| (e.url.as_str(), e.hops, e.path.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                ("http://b.example/1", 3, "LLL"),
                ("http://a.example/r", 2, "LLR"),
                ("http://c.example/ctx", 2, "LLX"),
            ]
        );
        assert!(
            entries
                .iter()
                .all(|e| e.via.as_deref() == Some("http://a.example/d"))
        );
        // At the limit: no link is followed; redirects and contexts still are.
        let at_limit = followed(&row, 2);
        assert_eq!(at_limit.len(), 2);
        assert!(at_limit.iter().all(|e| e.hops == 2));
    }
}
