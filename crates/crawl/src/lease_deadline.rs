//! The local deadline of each PLD lease, on this process's monotonic clock: a node sends a
//! request to a PLD only before `last successful claim or renewal + TTL − margin`, checked
//! right before the request goes out. The lease in the database lapses no earlier (its
//! expiry is computed by the database after the claim or renewal was sent), so whatever
//! happened meanwhile (a database connection that hangs, a process stopped and resumed, a
//! renewal that failed) this node's last request to a PLD precedes the moment another node
//! may take it over.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Deadlines by PLD name, shared by the lease thread (which extends them) and the fetches
/// (which check them).
#[derive(Debug, Default)]
pub struct LeaseDeadlines {
    by_pld: Mutex<HashMap<String, Instant>>,
}

/// The part of the lease lifetime a node leaves unused: time for the request checked just
/// before the deadline to reach the server, and for clocks that do not run at quite the
/// same rate.
pub fn margin(ttl: Duration) -> Duration {
    ttl / 4
}

impl LeaseDeadlines {
    /// The leases on `plds` were claimed or renewed by a statement sent at `sent`.
    pub fn extend(&self, plds: &[String], sent: Instant, ttl: Duration) {
        let deadline = sent + ttl.saturating_sub(margin(ttl));
        let mut by_pld = self.lock();
        for pld in plds {
            by_pld.insert(pld.clone(), deadline);
        }
    }

    /// The leases on `plds` are gone (lost, released or given up).
    pub fn end(&self, plds: &[String]) {
        let mut by_pld = self.lock();
        for pld in plds {
            by_pld.remove(pld);
        }
    }

    /// Whether a request to `pld` may be sent at `now`.
    pub fn allows(&self, pld: &str, now: Instant) -> bool {
        self.lock().get(pld).is_some_and(|deadline| now < *deadline)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        // The map stays consistent whatever a panicking holder did: every update is one insert
        // or remove.
        self.by_pld
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_allows_requests_only_until_its_deadline() {
        let deadlines = LeaseDeadlines::default();
        let ttl = Duration::from_secs(4);
        let sent = Instant::now();
        assert!(!deadlines.allows("a.example", sent), "never claimed");
        deadlines.extend(&["a.example".to_string()], sent, ttl);
        assert!(deadlines.allows("a.example", sent + Duration::from_millis(2999)));
        assert!(!deadlines.allows("a.example", sent + Duration::from_secs(3)));
        // A renewal moves the deadline on; ending the lease closes it at once.
        deadlines.extend(
            &["a.example".to_string()],
            sent + Duration::from_secs(2),
            ttl,
        );
        assert!(deadlines.allows("a.example", sent + Duration::from_secs(4)));
        deadlines.end(&["a.example".to_string()]);
        assert!(!deadlines.allows("a.example", sent + Duration::from_secs(4)));
    }
}

/// The check a fetch makes right before its request goes out (shared crawls only).
#[derive(Debug, Clone)]
pub struct RequestGate {
    deadlines: std::sync::Arc<LeaseDeadlines>,
    pld: String,
}

impl RequestGate {
    /// The gate of requests to `pld`.
    pub fn new(deadlines: std::sync::Arc<LeaseDeadlines>, pld: &str) -> Self {
        Self {
            deadlines,
            pld: pld.to_string(),
        }
    }

    /// Waits until `not_before`, then tells whether the lease still allows the request: the
    /// check comes after the wait, so a process stopped or slowed during it finds out here.
    pub async fn open_at(&self, not_before: tokio::time::Instant) -> bool {
        tokio::time::sleep_until(not_before).await;
        self.deadlines.allows(&self.pld, Instant::now())
    }
}
