//! Instants in the future that cannot overflow: delays, timeouts and `Retry-After` values
//! come from users and servers, and `Instant + Duration` panics when the sum does not fit.

use std::time::{Duration, Instant};

/// What "never" means for a deadline: far enough that no crawl reaches it, near enough to
/// be representable on every platform (tokio uses the same horizon).
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// `instant + wait`, or the far future when that does not fit.
pub(crate) fn later(instant: Instant, wait: Duration) -> Instant {
    instant.checked_add(wait.min(FAR_FUTURE)).unwrap_or(instant)
}

/// [`later`] for tokio's instants.
pub(crate) fn later_tokio(instant: tokio::time::Instant, wait: Duration) -> tokio::time::Instant {
    tokio::time::Instant::from_std(later(instant.into_std(), wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_waits_saturate_instead_of_panicking() {
        let now = Instant::now();
        let far = later(now, Duration::MAX);
        assert!(far > now + Duration::from_secs(86_400 * 365 * 29));
        assert_eq!(
            later(now, Duration::from_secs(5)),
            now + Duration::from_secs(5)
        );
        let tokio_now = tokio::time::Instant::now();
        assert!(later_tokio(tokio_now, Duration::MAX) > tokio_now);
    }
}
