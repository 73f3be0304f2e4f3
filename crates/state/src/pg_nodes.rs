//! The nodes working on a shared crawl, so that each can take a fair share of its PLDs: every
//! node records a heartbeat with each lease renewal, and a node counts as live while its last
//! heartbeat is younger than the lease lifetime.

use std::time::Duration;

use super::backend::{BackendResult, InvalidValue};
use super::postgres::{PgStateStore, column};

/// What a heartbeat learns about the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrawlLoad {
    /// Nodes with a heartbeat younger than the lease lifetime, this one included.
    pub live_nodes: usize,
    /// PLDs with at least one queued URL.
    pub busy_plds: usize,
}

impl CrawlLoad {
    /// A fair share of the crawl's PLDs for one node: the PLDs with work divided among the
    /// live nodes, rounded up, at least one.
    pub fn fair_share(self) -> usize {
        self.busy_plds.div_ceil(self.live_nodes.max(1)).max(1)
    }
}

impl PgStateStore {
    /// Records that `node` works on `crawl` now; returns the live nodes (those seen within
    /// `ttl`) and the PLDs with queued URLs.
    pub fn heartbeat(&mut self, crawl: i64, node: &str, ttl: Duration) -> BackendResult<CrawlLoad> {
        // The statement's snapshot does not see its own insert: `node = $2` counts this node.
        let rows = self.query(
            "WITH beat AS (
                INSERT INTO crawl_nodes (crawl, node, seen_at)
                VALUES ($1, $2, clock_timestamp())
                ON CONFLICT (crawl, node) DO UPDATE SET seen_at = EXCLUDED.seen_at
             )
             SELECT (SELECT count(*) FROM crawl_nodes
                     WHERE crawl = $1 AND node <> $2
                       AND seen_at > clock_timestamp() - make_interval(secs => $3)) + 1,
                    (SELECT count(DISTINCT pld) FROM frontier WHERE crawl = $1 AND NOT done)",
            &[&crawl, &node, &ttl.as_secs_f64()],
        )?;
        let load = |row: &postgres::Row| -> Result<CrawlLoad, InvalidValue> {
            let nodes: i64 = column(row, 0)?;
            let plds: i64 = column(row, 1)?;
            Ok(CrawlLoad {
                live_nodes: usize::try_from(nodes).unwrap_or(1),
                busy_plds: usize::try_from(plds).unwrap_or(0),
            })
        };
        match rows.first() {
            Some(row) => load(row).map_err(|problem| self.invalid(problem)),
            None => Err(self.invalid(InvalidValue::NoRow("heartbeat"))),
        }
    }

    /// `node` stops working on `crawl`: the others' shares grow at their next heartbeat.
    pub fn leave(&mut self, crawl: i64, node: &str) -> BackendResult<()> {
        self.query(
            "DELETE FROM crawl_nodes WHERE crawl = $1 AND node = $2 RETURNING node",
            &[&crawl, &node],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_divide_the_busy_plds_among_live_nodes_rounding_up() {
        let share = |live_nodes, busy_plds| {
            CrawlLoad {
                live_nodes,
                busy_plds,
            }
            .fair_share()
        };
        assert_eq!(share(1, 40), 40);
        assert_eq!(share(3, 40), 14);
        assert_eq!(share(4, 40), 10);
        assert_eq!(share(3, 0), 1);
        assert_eq!(share(0, 5), 5);
    }
}
