//! Compiled filter patterns, kept between queries: a replay server receives the same
//! `filter=~field:regex` parameters again and again, and compiling a regular expression
//! costs far more than matching a few captures against it.

use std::sync::{Mutex, PoisonError};

use regex::Regex;

/// Patterns kept; the least recently used goes first.
const CAPACITY: usize = 64;

/// Most recently used last.
static CACHE: Mutex<Vec<(String, Regex)>> = Mutex::new(Vec::new());

/// The compiled `pattern`, from the cache when it was compiled recently. A clone of a
/// cached `Regex` shares its compiled program.
pub(crate) fn compiled(pattern: &str) -> Result<Regex, regex::Error> {
    {
        let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = cache.iter().position(|(p, _)| p == pattern) {
            let entry = cache.remove(at);
            let regex = entry.1.clone();
            cache.push(entry);
            return Ok(regex);
        }
    }
    // Compiled outside the lock, so that a slow pattern holds up no other query.
    let regex = Regex::new(pattern)?;
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if !cache.iter().any(|(p, _)| p == pattern) {
        if cache.len() >= CAPACITY {
            cache.remove(0);
        }
        cache.push((pattern.to_string(), regex.clone()));
    }
    Ok(regex)
}

#[cfg(test)]
mod tests {
    use super::{CACHE, CAPACITY, compiled};

    fn cached(pattern: &str) -> bool {
        CACHE.lock().unwrap().iter().any(|(p, _)| p == pattern)
    }

    #[test]
    fn patterns_are_kept_and_the_least_recently_used_leaves_first() {
        // Patterns unique to this test, since the cache is shared by the whole process.
        let first = "^(?:pattern-cache-test-first)";
        assert!(
            compiled(first)
                .unwrap()
                .is_match("pattern-cache-test-first!")
        );
        assert!(cached(first));
        for n in 0..CAPACITY - 1 {
            compiled(&format!("^(?:pattern-cache-test-{n})")).unwrap();
            // Used again, `first` stays the most recent of the test's patterns.
            compiled(first).unwrap();
        }
        assert!(cached(first));
        for n in 0..CAPACITY {
            compiled(&format!("^(?:pattern-cache-test-again-{n})")).unwrap();
        }
        assert!(!cached(first));
        // A pattern that left is compiled again and matches the same.
        assert!(
            compiled(first)
                .unwrap()
                .is_match("pattern-cache-test-first")
        );
        assert!(!compiled(first).unwrap().is_match("x"));
    }

    #[test]
    fn an_invalid_pattern_is_an_error_and_not_kept() {
        assert!(compiled("^(?:pattern-cache-test-(").is_err());
        assert!(!cached("^(?:pattern-cache-test-("));
    }
}
