//! Riding out a database outage: a commit to a shared PostgreSQL store that fails because the
//! server went away (stopped, restarted, unreachable) is tried again on a new connection,
//! waiting longer each time, instead of ending the crawl. The WARC records are written
//! before the commit, so nothing is lost meanwhile; the lease thread stops all requests once
//! the leases' local deadlines pass, and a commit that finally lands after a lease lapsed is
//! refused by its fence like any late write.

use std::time::{Duration, Instant};

use super::CommitStore;
use ldwarc_state::BackendResult;

/// How long the archiver waits for the database to come back before the crawl fails.
const MAX_OUTAGE: Duration = Duration::from_secs(15 * 60);

/// The first wait before trying again; doubled up to [`MAX_WAIT`].
const FIRST_WAIT: Duration = Duration::from_millis(250);
const MAX_WAIT: Duration = Duration::from_secs(5);

/// How many times a transaction PostgreSQL aborted to break a deadlock or a serialization
/// conflict is tried again before the error stands.
const MAX_CONFLICT_RETRIES: u32 = 20;

/// Runs `attempt` (one whole transaction) until it succeeds, fails for another reason than
/// a lost connection or a transient conflict with another transaction, or the database
/// stayed away for [`MAX_OUTAGE`].
pub(super) fn retrying<T>(
    store: &mut CommitStore,
    mut attempt: impl FnMut(&mut CommitStore) -> BackendResult<T>,
) -> BackendResult<T> {
    let started = Instant::now();
    let mut wait = FIRST_WAIT;
    let mut told = false;
    let mut conflicts = 0;
    loop {
        let error = match attempt(store) {
            Err(error) if error.is_transient_conflict() && conflicts < MAX_CONFLICT_RETRIES => {
                conflicts += 1;
                tracing::debug!(%error, conflicts, "transaction aborted by a conflict; trying again");
                std::thread::sleep(conflict_pause(conflicts));
                continue;
            }
            Err(error) if error.is_connection_lost() && started.elapsed() < MAX_OUTAGE => error,
            other => {
                if told {
                    tracing::warn!("the state store is back after {:?}", started.elapsed());
                }
                return other;
            }
        };
        if !told {
            tracing::warn!(%error, "{error}; waiting for the state store to come back");
            told = true;
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(MAX_WAIT);
        if let CommitStore::Shared { store, .. } = store
            && let Err(error) = store.reconnect()
        {
            tracing::debug!(%error, "reconnecting: {error}");
        }
    }
}

/// A short pause before trying a conflicting transaction again, growing with the attempts
/// and spread by the clock's nanoseconds so two nodes that collided do not meet again in
/// step.
fn conflict_pause(attempt: u32) -> Duration {
    let spread = u64::from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos()),
    ) % 20;
    Duration::from_millis(5 * u64::from(attempt.min(10)) + spread)
}
