//! Leases on pay-level domains, so that many crawler nodes can share one frontier: a node
//! contacts a PLD only while it holds that PLD's lease ([`PldLeases`]), and its writes about a
//! URL commit only if it still holds the lease then ([`FencedTransaction`]). In PostgreSQL the
//! leases are rows of `pld_leases`, claimed with `FOR UPDATE SKIP LOCKED` and expiring by the
//! database's clock; the embedded SQLite store belongs to one process, which trivially holds
//! every lease.

use std::time::Duration;

use super::backend::{BackendError, BackendResult, BackendTransaction, InvalidValue};
use super::backend::{SqliteTransaction, StateBackend};
use super::postgres::{PgStateStore, PgTransaction, column, frontier_row_with_id};
use super::{CrawlRun, FetchLogEntry, FrontierEntry, StateStore};

use ldwarc_surt::pld_of_url;

/// Claiming, renewing and releasing PLD leases of a crawl.
pub trait PldLeases {
    /// Claims up to `max` PLDs of `crawl` that have queued frontier URLs and whose lease is
    /// free or expired (a lease released with a cool-down is free once the cool-down ends), for `ttl`; PLDs with the most queued URLs first. Returns the PLDs
    /// now held by `node` (possibly none: other nodes hold the rest).
    fn claim_plds(
        &mut self,
        node: &str,
        crawl: i64,
        max: usize,
        ttl: Duration,
    ) -> BackendResult<Vec<String>>;
    /// Extends `node`'s leases on `plds` by `ttl` from now. Returns the PLDs still held; the
    /// others were taken over by another node and must no longer be contacted.
    fn renew(
        &mut self,
        node: &str,
        crawl: i64,
        plds: &[String],
        ttl: Duration,
    ) -> BackendResult<Vec<String>>;
    /// Gives up `node`'s leases on `plds` (those it does not hold are left alone).
    fn release(&mut self, node: &str, crawl: i64, plds: &[String]) -> BackendResult<()>;
}

/// Writes that commit only while the writing node holds the URL's PLD lease.
pub trait FencedTransaction: BackendTransaction {
    /// Checks that `node` is the holder of the lease on the PLD of `url` (expired or not: no
    /// other node claimed it since) and keeps it locked until this transaction ends, so no
    /// other node can take it over before the commit.
    /// Fails with [`BackendError::LeaseLost`] otherwise; the caller then returns that error
    /// from the transaction, which rolls back everything it wrote.
    fn fence(&mut self, node: &str, crawl: i64, url: &str) -> BackendResult<()>;

    /// [`BackendTransaction::log_fetch`] behind [`FencedTransaction::fence`].
    fn log_fetch_fenced(
        &mut self,
        node: &str,
        crawl: i64,
        entry: &FetchLogEntry,
    ) -> BackendResult<()> {
        self.fence(node, crawl, &entry.url)?;
        self.log_fetch(crawl, entry)
    }

    /// [`BackendTransaction::mark_done`] behind [`FencedTransaction::fence`].
    fn mark_done_fenced(&mut self, node: &str, crawl: i64, url: &str) -> BackendResult<()> {
        self.fence(node, crawl, url)?;
        self.mark_done(crawl, url)
    }
}

/// A PLD lease just claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The pay-level domain.
    pub pld: String,
    /// Whether the previous lease on it ran out while held instead of being released.
    pub lapsed: bool,
}

/// Frontier rows read for the PLDs a node holds ([`PgStateStore::frontier_of_plds`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontierRows {
    /// Entries not yet fetched.
    pub queued: Vec<FrontierEntry>,
    /// Entries done (by any node), with the hops they were last reached by.
    pub done: Vec<FrontierEntry>,
    /// The highest row id read (the `after` given when none was).
    pub last_id: i64,
}

/// One row of `pld_leases`, for monitoring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PldLease {
    /// The pay-level domain.
    pub pld: String,
    /// The node holding (or last holding) it; `None` when free.
    pub holder: Option<String>,
    /// Whether the lease is held and not expired, by the database's clock.
    pub live: bool,
}

/// The TTL in seconds, as `make_interval(secs => …)` takes it.
fn seconds(ttl: Duration) -> f64 {
    ttl.as_secs_f64()
}

impl PgStateStore {
    /// [`PldLeases::claim_plds`], telling for each PLD claimed whether its previous lease
    /// ran out while held (a node stopped, hung or lost the database) rather than being
    /// released: the previous holder may have sent a request up to the moment it lapsed, so
    /// the new holder waits a politeness delay before its first request.
    pub fn claim_leases(
        &mut self,
        node: &str,
        crawl: i64,
        max: usize,
        ttl: Duration,
    ) -> BackendResult<Vec<Claim>> {
        let limit = i64::try_from(max).unwrap_or(i64::MAX);
        // SKIP LOCKED: rows another node is claiming or fencing right now are passed over
        // instead of waited for; the lock taken here lasts until the update commits, and a row
        // updated since this statement's snapshot is re-checked against the WHERE clause.
        let rows = self.query(
            "WITH candidates AS (
                SELECT l.pld, l.holder FROM pld_leases l
                WHERE l.crawl = $1
                  AND (l.expires_at IS NULL OR l.expires_at <= now())
                  AND EXISTS (SELECT 1 FROM frontier f
                              WHERE f.crawl = l.crawl AND f.pld = l.pld AND NOT f.done)
                ORDER BY (SELECT count(*) FROM frontier f
                          WHERE f.crawl = l.crawl AND f.pld = l.pld AND NOT f.done) DESC, l.pld
                LIMIT $3
                FOR UPDATE SKIP LOCKED
             )
             UPDATE pld_leases l SET holder = $2, expires_at = now() + make_interval(secs => $4)
             FROM candidates c WHERE l.crawl = $1 AND l.pld = c.pld
             RETURNING l.pld, c.holder IS NOT NULL",
            &[&crawl, &node, &limit, &seconds(ttl)],
        )?;
        let claim = |row: &postgres::Row| -> Result<Claim, InvalidValue> {
            Ok(Claim {
                pld: column(row, 0)?,
                lapsed: column(row, 1)?,
            })
        };
        rows.iter()
            .map(|row| claim(row).map_err(|problem| self.invalid(problem)))
            .collect()
    }
}

impl PldLeases for PgStateStore {
    fn claim_plds(
        &mut self,
        node: &str,
        crawl: i64,
        max: usize,
        ttl: Duration,
    ) -> BackendResult<Vec<String>> {
        let claims = self.claim_leases(node, crawl, max, ttl)?;
        Ok(claims.into_iter().map(|claim| claim.pld).collect())
    }

    fn renew(
        &mut self,
        node: &str,
        crawl: i64,
        plds: &[String],
        ttl: Duration,
    ) -> BackendResult<Vec<String>> {
        // A lapsed lease nobody claimed since is still safe to extend: any other node would
        // have had to claim it (changing the holder) before contacting the PLD.
        let rows = self.query(
            "UPDATE pld_leases
             SET expires_at = clock_timestamp() + make_interval(secs => $4)
             WHERE crawl = $1 AND holder = $2 AND pld = ANY($3)
             RETURNING pld",
            &[&crawl, &node, &plds, &seconds(ttl)],
        )?;
        self.plds(&rows)
    }

    fn release(&mut self, node: &str, crawl: i64, plds: &[String]) -> BackendResult<()> {
        self.query(
            "UPDATE pld_leases SET holder = NULL, expires_at = NULL
             WHERE crawl = $1 AND holder = $2 AND pld = ANY($3)
             RETURNING pld",
            &[&crawl, &node, &plds],
        )?;
        Ok(())
    }
}

impl PgStateStore {
    /// Gives up `node`'s leases on `plds`, but keeps each from being claimed for its
    /// `cooldown` (the PLD's politeness delay): the next holder's first request then comes at
    /// least that long after this node's last answer, whatever the nodes' clocks say.
    pub fn release_after(
        &mut self,
        node: &str,
        crawl: i64,
        plds: &[(String, Duration)],
    ) -> BackendResult<()> {
        for (pld, cooldown) in plds {
            self.query(
                "UPDATE pld_leases
                 SET holder = NULL, expires_at = clock_timestamp() + make_interval(secs => $4)
                 WHERE crawl = $1 AND holder = $2 AND pld = $3
                 RETURNING pld",
                &[&crawl, &node, pld, &seconds(*cooldown)],
            )?;
        }
        Ok(())
    }

    /// The frontier rows of `plds` in `crawl` with an id above `after` (0 for all): entries
    /// not yet fetched and entries done, in id order (enqueue order, a row lowered by a
    /// shorter path moving to the end), and the highest id read.
    pub fn frontier_of_plds(
        &mut self,
        crawl: i64,
        plds: &[String],
        after: i64,
    ) -> BackendResult<FrontierRows> {
        let rows = self.query(
            "SELECT url, hops, round, inlinks, via, path, redirects, done, id FROM frontier
             WHERE crawl = $1 AND pld = ANY($2) AND id > $3 ORDER BY id",
            &[&crawl, &plds, &after],
        )?;
        let mut read = FrontierRows {
            last_id: after,
            ..FrontierRows::default()
        };
        for row in &rows {
            let (entry, done, id) =
                frontier_row_with_id(row).map_err(|problem| self.invalid(problem))?;
            read.last_id = read.last_id.max(id);
            if done {
                read.done.push(entry);
            } else {
                read.queued.push(entry);
            }
        }
        Ok(read)
    }

    /// How many URLs of `crawl` are queued and not yet done, on every node together.
    pub fn queued_count(&mut self, crawl: i64) -> BackendResult<u64> {
        let rows = self.query(
            "SELECT count(*) FROM frontier WHERE crawl = $1 AND NOT done",
            &[&crawl],
        )?;
        let count: i64 = match rows.first() {
            Some(row) => column(row, 0).map_err(|problem| self.invalid(problem))?,
            None => 0,
        };
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// The crawl with id `crawl`, if there is one.
    pub fn crawl_by_id(&mut self, crawl: i64) -> BackendResult<Option<CrawlRun>> {
        let runs = StateBackend::crawls(self)?;
        Ok(runs.into_iter().find(|run| run.id == crawl))
    }

    /// Every lease row of `crawl`, by PLD.
    pub fn leases(&mut self, crawl: i64) -> BackendResult<Vec<PldLease>> {
        let rows = self.query(
            "SELECT pld, holder, COALESCE(expires_at > clock_timestamp(), FALSE)
             FROM pld_leases WHERE crawl = $1 ORDER BY pld",
            &[&crawl],
        )?;
        let lease = |row: &postgres::Row| -> Result<PldLease, InvalidValue> {
            Ok(PldLease {
                pld: column(row, 0)?,
                holder: column(row, 1)?,
                live: column(row, 2)?,
            })
        };
        rows.iter()
            .map(|row| lease(row).map_err(|problem| self.invalid(problem)))
            .collect()
    }

    /// The first column of `rows`, as PLD names.
    fn plds(&self, rows: &[postgres::Row]) -> BackendResult<Vec<String>> {
        rows.iter()
            .map(|row| column(row, 0).map_err(|problem| self.invalid(problem)))
            .collect()
    }
}

impl FencedTransaction for PgTransaction<'_> {
    fn fence(&mut self, node: &str, crawl: i64, url: &str) -> BackendResult<()> {
        let pld = pld_of_url(url);
        // The holder alone decides, not the expiry: only a claim by another node (or a
        // release) changes the holder, and only then may another node fetch the PLD's URLs.
        // A lease that lapsed unclaimed is still this node's to commit under (its local
        // deadline kept it from sending requests after the lapse); refusing that commit
        // would leave a fetched URL queued for a second fetch that no takeover explains.
        // FOR KEY SHARE (waiting, not skipping): once locked, no claim can move the lease
        // until this transaction ends (claims lock with FOR UPDATE SKIP LOCKED, which this
        // lock blocks), while this node's own renewals (updates of the expiry, not of the
        // key) go on: a commit slowed by the database must not also stall the renewal of
        // every lease the node holds.
        let rows = self.query(
            "SELECT holder = $3 FROM pld_leases
             WHERE crawl = $1 AND pld = $2 FOR KEY SHARE",
            &[&crawl, &pld, &node],
        )?;
        let held = match rows.first() {
            Some(row) => column::<Option<bool>>(row, 0)
                .map_err(|problem| self.invalid(problem))?
                .unwrap_or(false),
            None => false,
        };
        if held {
            return Ok(());
        }
        Err(BackendError::LeaseLost {
            database: self.database.to_string(),
            node: node.to_string(),
            crawl,
            pld,
            url: url.to_string(),
        })
    }
}

impl PldLeases for StateStore {
    /// The store belongs to one process (the archive lock sees to that), so every PLD with
    /// queued URLs is this node's.
    fn claim_plds(
        &mut self,
        _node: &str,
        crawl: i64,
        max: usize,
        _ttl: Duration,
    ) -> BackendResult<Vec<String>> {
        let (queued, _) = StateBackend::frontier(self, crawl)?;
        let mut plds: Vec<String> = Vec::new();
        for entry in queued {
            let pld = pld_of_url(&entry.url);
            if plds.len() == max {
                break;
            }
            if !plds.contains(&pld) {
                plds.push(pld);
            }
        }
        Ok(plds)
    }

    fn renew(
        &mut self,
        _node: &str,
        _crawl: i64,
        plds: &[String],
        _ttl: Duration,
    ) -> BackendResult<Vec<String>> {
        Ok(plds.to_vec())
    }

    fn release(&mut self, _node: &str, _crawl: i64, _plds: &[String]) -> BackendResult<()> {
        Ok(())
    }
}

impl FencedTransaction for SqliteTransaction<'_> {
    /// Nobody else writes this store: the lease always holds.
    fn fence(&mut self, _node: &str, _crawl: i64, _url: &str) -> BackendResult<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plds_are_registrable_domains_of_the_host() {
        assert_eq!(pld_of_url("http://data.Example.co.uk/a"), "example.co.uk");
        assert_eq!(pld_of_url("https://127.0.0.1:8080/x"), "127.0.0.1");
        assert_eq!(pld_of_url("urn:isbn:1"), "");
    }
}
