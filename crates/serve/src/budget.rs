//! The server's memory budget: one count of the bytes that requests hold, shared by every
//! request. A request is admitted only when its base cost fits (the pieces of its answer
//! that may wait for the client), and a query that buffers rows (`sort=reverse`,
//! `closest=`, `limit=-N`, one URL's captures) reserves each row's estimated size before it
//! keeps the row. A reservation that does not fit ends the request with 503 and
//! `Retry-After`; whatever was reserved is returned when the request ends, however it ends.
//!
//! When the last reservation is returned after a burst, the allocator is asked to give its
//! free pages back to the system (glibc's `malloc_trim`): glibc keeps freed memory in its
//! per-thread arenas, and without the trim a server stays at its peak size after one burst.

use ldwarc_warc::RecordType;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use ldwarc_archive::index::Capture;

use super::text_response;

/// The default budget: room for one domain-wide selection of about 250,000 captures (the
/// default `--max-cdx-rows`), while a server under a burst, with its own code, the mapped
/// index and the allocator's overhead, stays within half of a 1 GB machine.
pub const DEFAULT_MEMORY_BUDGET: usize = 320 * 1024 * 1024;

/// The smallest budget accepted: one streamed answer's pieces
/// ([`crate::stream`]'s base cost), rounded up to a whole MiB.
pub const MIN_MEMORY_BUDGET: usize = 2 * 1024 * 1024;

/// Seconds a client refused for lack of memory is asked to wait (`Retry-After`).
pub const RETRY_AFTER_SECONDS: u64 = 2;

/// Bytes returned to the budget since the last trim after which an idle server trims.
const TRIM_AFTER_BYTES: usize = 8 * 1024 * 1024;

/// Bytes held by requests, out of a limit.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: usize,
    used: AtomicUsize,
    /// Bytes returned since the allocator was last trimmed.
    returned: AtomicUsize,
    /// Held by the one unbounded multi-URL selection allowed at a time.
    selection: Mutex<()>,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            used: AtomicUsize::new(0),
            returned: AtomicUsize::new(0),
            selection: Mutex::new(()),
        })
    }

    /// The turn of an unbounded selection over many URLs (`sort=reverse` or `closest` over a
    /// prefix, host or domain), or none while another one runs. Two such selections would
    /// each take part of the budget and, growing together, could both fail; one at a time,
    /// it has the budget to itself, and the others are refused at once (503) instead of
    /// after holding rows.
    pub fn selection_turn(&self) -> Option<MutexGuard<'_, ()>> {
        match self.selection.try_lock() {
            Ok(turn) => Some(turn),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// The limit, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes reserved now.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    /// A reservation of `bytes`, or none when they do not fit in what is left.
    pub fn reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        let mut reservation = Reservation {
            budget: self.clone(),
            bytes: 0,
        };
        reservation.grow(bytes).then_some(reservation)
    }

    fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let before = self.used.fetch_sub(bytes, Ordering::AcqRel);
        let returned = self.returned.fetch_add(bytes, Ordering::AcqRel) + bytes;
        if before == bytes && returned >= TRIM_AFTER_BYTES {
            self.returned.store(0, Ordering::Release);
            release_free_memory();
        }
    }
}

/// Bytes a request holds in the budget, returned when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: usize,
}

impl Reservation {
    /// Reserves `bytes` more; false (and nothing reserved) when they do not fit.
    pub fn grow(&mut self, bytes: usize) -> bool {
        if self.budget.take(bytes) {
            self.bytes += bytes;
            true
        } else {
            false
        }
    }

    /// Returns `bytes` of this reservation to the budget (rows dropped before the end).
    pub fn shrink(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        self.budget.give_back(bytes);
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
    }
}

/// What one buffered capture costs in memory, estimated: the struct, its strings with the
/// allocator's overhead for each, and the sort line a group of captures is ordered by
/// (about as long as the capture's strings together).
pub fn capture_cost(capture: &Capture) -> usize {
    const PER_ALLOCATION: usize = 16;
    let strings = [
        Some(&capture.urlkey),
        Some(&capture.timestamp),
        Some(&capture.url),
        capture.mime.as_ref(),
        capture.digest.as_ref(),
        Some(&capture.filename),
        // A standard record type is a variant without a heap string of its own.
        match &capture.record_type {
            RecordType::Unknown(name) => Some(name),
            _ => None,
        },
        capture.redirect.as_ref(),
        capture.record_id.as_ref(),
        capture.refers_to_url.as_ref(),
        capture.refers_to_timestamp.as_ref(),
        capture.original.as_ref().map(|o| &o.filename),
    ];
    let text: usize = strings
        .iter()
        .flatten()
        .map(|s| s.len() + PER_ALLOCATION)
        .sum();
    std::mem::size_of::<Capture>() + 2 * text + 64
}

/// The answer to a request refused because the memory budget is spent.
pub(crate) fn refusal() -> Response {
    refusal_saying(
        "the server's memory budget is spent by other requests: retry later, or narrow the \
         query (from/to, a filter, a limit)\n",
    )
}

/// A 503 with `Retry-After` and this message.
pub(crate) fn refusal_saying(message: &str) -> Response {
    let mut response = text_response(StatusCode::SERVICE_UNAVAILABLE, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// Hands the allocator's free pages back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_memory() {
    // SAFETY: malloc_trim only walks glibc's own arenas; it is safe to call at any time.
    let released = unsafe { libc::malloc_trim(0) };
    tracing::debug!(released, "returned free memory to the system");
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_fit_the_limit_and_return_on_drop() {
        let budget = MemoryBudget::new(1000);
        let mut first = budget.reserve(600).expect("fits");
        assert!(budget.reserve(500).is_none(), "600 + 500 > 1000");
        assert!(!first.grow(401));
        assert!(first.grow(400));
        assert_eq!(budget.used(), 1000);
        first.shrink(100);
        assert_eq!(budget.used(), 900);
        drop(first);
        assert_eq!(budget.used(), 0);
        assert!(budget.reserve(1000).is_some());
        assert!(budget.reserve(usize::MAX).is_none(), "no overflow");
    }

    #[test]
    fn refusals_say_when_to_retry() {
        let response = refusal();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
    }
}
