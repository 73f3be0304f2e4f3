//! Bounds on the server's time limits. A limit is added to the current instant for every
//! request, and a sum beyond what an instant holds panics; no request should be waited for
//! longer than a day anyway, so a larger limit is refused before the server starts.

use std::time::Duration;

use super::limits::Limits;

/// The longest request or head time limit accepted.
pub const MAX_TIME_LIMIT: Duration = Duration::from_secs(86_400);

/// Why `limits` cannot be served with, naming the limit.
pub(crate) fn check_limits(limits: &Limits) -> Result<(), String> {
    for (name, value) in [
        ("request time limit", limits.request_time),
        ("head time limit", limits.head_time),
    ] {
        if value > MAX_TIME_LIMIT {
            return Err(format!(
                "{name} of {} s is more than the largest accepted, {} s",
                value.as_secs(),
                MAX_TIME_LIMIT.as_secs()
            ));
        }
    }
    if limits.memory_budget < super::budget::MIN_MEMORY_BUDGET {
        return Err(format!(
            "memory budget of {} bytes is less than the smallest accepted, {} bytes (2MiB): \
             one streamed answer holds that much",
            limits.memory_budget,
            super::budget::MIN_MEMORY_BUDGET
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_longer_than_a_day_are_refused() {
        assert!(check_limits(&Limits::default()).is_ok());
        let limits = Limits {
            head_time: Duration::from_secs(u64::MAX),
            ..Limits::default()
        };
        let error = check_limits(&limits).unwrap_err();
        assert!(error.contains("head time limit"), "{error}");
        let tiny = Limits {
            memory_budget: 1024,
            ..Limits::default()
        };
        let error = check_limits(&tiny).unwrap_err();
        assert!(error.contains("memory budget of 1024 bytes"), "{error}");
    }
}
