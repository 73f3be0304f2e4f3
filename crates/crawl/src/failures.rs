//! Failed fetches by cause, for the crawl summary: every fetch that got no usable answer
//! (robots.txt included) is counted under its cause, and the first ones are kept with their
//! URL and message so that the operator sees why, not only how many.

use std::collections::BTreeMap;

use super::http::{Fetch, FetchError};

/// How many failed fetches are kept with their message; the rest are only counted.
pub const MAX_LISTED_FAILURES: usize = 200;

/// Why a fetch failed, as a short stable name.
pub fn cause_of(error: &FetchError) -> &'static str {
    match error {
        FetchError::Tls { .. } => "tls",
        FetchError::Dns { .. } => "dns",
        FetchError::Connect { .. } => "connect",
        FetchError::ConnectTimeout { .. } | FetchError::Timeout { .. } => "timeout",
        FetchError::ProxyRefused { .. } | FetchError::ProxyFailed { .. } => "proxy",
        FetchError::UnsupportedScheme { .. } | FetchError::UnsupportedProxy { .. } => "unsupported",
        FetchError::Io { .. }
        | FetchError::NoResponse { .. }
        | FetchError::HeadTooLarge { .. }
        | FetchError::MalformedResponse { .. } => "protocol",
    }
}

/// One failed fetch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FailedFetch {
    /// The URL requested.
    pub url: String,
    /// `document`, `context` or `robots`.
    pub kind: String,
    /// `tls`, `dns`, `connect`, `timeout`, `http-status`, `proxy`, `protocol` or `unsupported`.
    pub cause: String,
    /// The one-line message, with what followed from it for robots.txt.
    pub error: String,
}

/// The failures of one crawl.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FailureReport {
    /// Failed fetches by cause.
    pub by_cause: BTreeMap<String, u64>,
    /// The first [`MAX_LISTED_FAILURES`] failed fetches.
    pub listed: Vec<FailedFetch>,
    /// Seed URLs fetched this run (a response with a status below 400).
    pub seeds_fetched: u64,
    /// Seed URLs tried this run (fetched, failed, or excluded by robots.txt).
    pub seeds_tried: u64,
}

impl FailureReport {
    /// Notes a failed fetch.
    pub fn add(&mut self, url: &str, kind: &str, cause: &str, error: String) {
        *self.by_cause.entry(cause.to_string()).or_default() += 1;
        if self.listed.len() < MAX_LISTED_FAILURES {
            self.listed.push(FailedFetch {
                url: url.to_string(),
                kind: kind.to_string(),
                cause: cause.to_string(),
                error,
            });
        }
    }

    /// Failed fetches of every cause.
    pub fn total(&self) -> u64 {
        self.by_cause.values().sum()
    }

    /// Notes a document fetch that is final (not to be retried): a network failure or an
    /// HTTP status of 400 or more fails it; `seed` counts it among the seeds.
    pub fn note_document(&mut self, url: &str, kind: &str, fetch: &Fetch, seed: bool) {
        let fetched = match &fetch.outcome {
            Ok(response) if response.status >= 400 => {
                let error = format!("HTTP {} from {url}", response.status);
                self.add(url, kind, "http-status", error);
                false
            }
            Ok(_) => true,
            Err(error) => {
                self.add(url, kind, cause_of(error), error.to_string());
                false
            }
        };
        if seed {
            self.seeds_tried += 1;
            self.seeds_fetched += u64::from(fetched);
        }
    }

    /// Notes the last fetch of a robots.txt lookup when it made the origin disallowed: a
    /// network failure or a 5xx/429 answer (RFC 9309 §2.3.1.3–4). Returns the reason, for
    /// the log rows of the URLs it excludes.
    pub fn note_robots(&mut self, url: &str, fetch: &Fetch) -> Option<String> {
        let (cause, reason) = match &fetch.outcome {
            Ok(response) if response.status >= 500 || response.status == 429 => (
                "http-status",
                format!("HTTP {} from {url}", response.status),
            ),
            Ok(_) => return None,
            Err(error) => (cause_of(error), error.to_string()),
        };
        let error =
            format!("{reason}; robots.txt unavailable, so the host is treated as disallowed");
        self.add(url, "robots", cause, error);
        Some(reason)
    }

    /// A seed that was excluded (by robots.txt) counts as tried and not fetched.
    pub fn note_excluded_seed(&mut self) {
        self.seeds_tried += 1;
    }

    /// Whether the run had seeds to fetch and fetched none of them.
    pub fn no_seed_fetched(&self) -> bool {
        self.seeds_tried > 0 && self.seeds_fetched == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn failed(error: FetchError) -> Fetch {
        Fetch {
            request: Vec::new(),
            sent_at: None,
            remote_addr: None,
            outcome: Err(error),
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn failures_are_counted_by_cause_and_listed() {
        let mut report = FailureReport::default();
        let tls = FetchError::Tls {
            host: "a.example:443".into(),
            reason: "invalid peer certificate: UnknownIssuer".into(),
        };
        let reason = report.note_robots("https://a.example/robots.txt", &failed(tls));
        assert!(reason.unwrap().contains("UnknownIssuer"));
        let dns = FetchError::Dns {
            host: "b.invalid".into(),
            reason: "no addresses".into(),
        };
        report.note_document("http://b.invalid/", "document", &failed(dns), true);
        let timeout = FetchError::ConnectTimeout {
            host: "c.example:80".into(),
            after: Duration::from_secs(1),
        };
        report.note_document("http://c.example/", "document", &failed(timeout), false);
        assert_eq!(report.total(), 3);
        assert_eq!(report.by_cause["tls"], 1);
        assert_eq!(report.by_cause["dns"], 1);
        assert_eq!(report.by_cause["timeout"], 1);
        assert_eq!(report.listed[0].kind, "robots");
        assert!(report.listed[0].error.contains("treated as disallowed"));
        assert!(report.no_seed_fetched());
    }

    #[test]
    fn the_list_is_bounded_but_the_counts_are_not() {
        let mut report = FailureReport::default();
        for n in 0..MAX_LISTED_FAILURES + 5 {
            report.add(
                &format!("http://x.example/{n}"),
                "document",
                "connect",
                "x".into(),
            );
        }
        assert_eq!(report.listed.len(), MAX_LISTED_FAILURES);
        assert_eq!(report.by_cause["connect"], (MAX_LISTED_FAILURES + 5) as u64);
    }
}
