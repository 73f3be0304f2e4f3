//! Work nobody waits for any more stops. A handler's blocking work cannot be cancelled from
//! outside (dropping the future that waits for it leaves the thread running), so each
//! [`blocking`](super::blocking) call lends its thread a flag, raised when the answer is given
//! up — it timed out (503) or the client went away — and long loops ask [`abandoned`]
//! between steps.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// The flag of the answer this blocking thread is working for, if any.
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Raises its flag when dropped: held by the future that waits for the work, so that
/// whatever ends the wait early (timeout, disconnect) abandons the work.
pub(crate) struct AbandonOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` with `flag` as this thread's abandonment flag (taken back however `work`
/// ends, a panic too: the thread goes on to other work).
pub(crate) fn with_flag<T>(flag: Arc<AtomicBool>, work: impl FnOnce() -> T) -> T {
    struct Lent;
    impl Drop for Lent {
        fn drop(&mut self) {
            CURRENT.with(|current| *current.borrow_mut() = None);
        }
    }
    CURRENT.with(|current| *current.borrow_mut() = Some(flag));
    let _lent = Lent;
    work()
}

/// Whether the answer the current thread works for was given up: its work should stop.
/// False outside [`with_flag`] (inline work is never abandoned).
pub(crate) fn abandoned() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_raised_by_the_guard_and_seen_only_inside() {
        let flag = Arc::new(AtomicBool::new(false));
        let guard = AbandonOnDrop(Arc::clone(&flag));
        assert!(!with_flag(Arc::clone(&flag), abandoned));
        drop(guard);
        assert!(with_flag(Arc::clone(&flag), abandoned));
        assert!(!abandoned(), "the flag is not left on the thread");
        let panicked = std::panic::catch_unwind(|| with_flag(flag, || panic!("a bug")));
        assert!(panicked.is_err());
        assert!(!abandoned(), "nor after a panic");
    }
}
