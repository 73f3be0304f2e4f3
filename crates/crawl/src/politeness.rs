//! Politeness that outlives a crawl. Every request is in the crawl log (its time and
//! duration) and every robots.txt answer is in the archive, so a crawl starting after another
//! one — the next monitor cycle, `crawl --resume`, another node on a shared store — reads back
//! when each pay-level domain was last contacted and which robots.txt answers are still fresh
//! (their `Cache-Control` lifetime, at most 24 hours), instead of starting from nothing: its
//! first request to a host still waits the delay after the last one, and robots.txt is
//! fetched once per cache lifetime, not once per crawl.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use url::Url;

use super::options::CrawlOptions;
use super::robots::{MAX_ROBOTS_BYTES, ROBOTS_TTL, RobotsPolicy, cache_lifetime, product_token};
use ldwarc_state::{
    BackendResult, FetchLogEntry, PgStateStore, StateBackend, StateStore, StoreError, UrlState,
};

/// A robots.txt answer of an earlier crawl that is still fresh.
pub struct RememberedRobots {
    /// The robots.txt URL (its origin is the policy's).
    pub url: Url,
    /// What it allows.
    pub policy: RobotsPolicy,
    /// When it stops being fresh.
    pub expires: DateTime<Utc>,
}

/// What earlier crawls leave for the next one.
#[derive(Default)]
pub struct Remembered {
    /// Per pay-level domain, when the last request to it ended.
    pub contacts: HashMap<String, DateTime<Utc>>,
    /// Fresh robots.txt answers.
    pub robots: Vec<RememberedRobots>,
}

/// How far back last contacts matter: no PLD waits longer than this between requests.
pub fn contact_window(delay: Duration, max_crawl_delay: Duration) -> Duration {
    delay.max(max_crawl_delay)
}

/// How far back robots.txt answers can still be fresh.
pub fn robots_window() -> Duration {
    ROBOTS_TTL
}

/// The last contact per PLD in `rows` (crawl-log rows): the end of each request that was
/// attempted (rows of URLs never requested, such as robots.txt exclusions, have no duration).
pub fn last_contacts(rows: &[FetchLogEntry]) -> HashMap<String, DateTime<Utc>> {
    let mut contacts: HashMap<String, DateTime<Utc>> = HashMap::new();
    for row in rows {
        let Some(duration) = row.duration else {
            continue;
        };
        let Ok(duration) = chrono::Duration::from_std(duration) else {
            continue;
        };
        let ended = row.time + duration;
        let pld = ldwarc_surt::pld_of_url(&row.url);
        if pld.is_empty() {
            continue;
        }
        let last = contacts.entry(pld).or_insert(ended);
        *last = (*last).max(ended);
    }
    contacts
}

/// The robots.txt answers among `rows` (robots crawl-log rows, oldest first) that are still
/// fresh at `now`: per robots.txt URL the latest answer, if it was a 2xx whose body
/// `read_body` can give back (with its `Cache-Control`), or a 4xx other than 429 (allow all).
/// Failures, 5xx, 429 and redirects are never remembered: the next crawl asks again.
pub fn fresh_robots(
    rows: &[FetchLogEntry],
    now: DateTime<Utc>,
    agent: &str,
    mut read_body: impl FnMut(&FetchLogEntry) -> Option<(Option<String>, Vec<u8>)>,
) -> Vec<RememberedRobots> {
    let mut latest: HashMap<&str, &FetchLogEntry> = HashMap::new();
    for row in rows {
        latest.insert(row.url.as_str(), row);
    }
    let mut fresh = Vec::new();
    for row in latest.into_values() {
        let Ok(url) = Url::parse(&row.url) else {
            continue;
        };
        if url.path() != "/robots.txt" {
            continue;
        }
        let (policy, lifetime) = match row.status {
            Some(status @ 200..=299) => match read_body(row) {
                Some((cache_control, body)) => (
                    RobotsPolicy::from_response(Some(status), &body, agent),
                    cache_lifetime(cache_control.as_deref()),
                ),
                None => continue,
            },
            Some(status @ 400..=499) if status != 429 => (RobotsPolicy::AllowAll, ROBOTS_TTL),
            _ => continue,
        };
        let Ok(lifetime) = chrono::Duration::from_std(lifetime) else {
            continue;
        };
        let expires = row.time + lifetime;
        if expires > now {
            fresh.push(RememberedRobots {
                url,
                policy,
                expires,
            });
        }
    }
    fresh
}

/// The body and `Cache-Control` of the robots.txt answer `row` logged, read from the
/// archive under `root` through the URL's latest payload capture `state` (when it is the
/// same payload); `None` when it cannot be read here (e.g. another node's archive).
pub fn archived_robots(
    root: &Path,
    row: &FetchLogEntry,
    state: Option<UrlState>,
    max_decoded: usize,
) -> Option<(Option<String>, Vec<u8>)> {
    let state = state?;
    if row.digest.is_some() && state.digest.is_some() && row.digest != state.digest {
        return None;
    }
    let record = state.record?;
    let (head, raw) = super::archived::payload_prefix(root, &record, MAX_ROBOTS_BYTES).ok()?;
    let encoding = head.header("Content-Encoding").map(str::to_string);
    let limit = max_decoded.min(MAX_ROBOTS_BYTES * 4);
    let body = ldwarc_rdf::decode_content(encoding.as_deref(), &raw, limit).ok()?;
    Some((head.header("Cache-Control").map(str::to_string), body))
}

/// What earlier crawls on the embedded store leave: last contacts and fresh robots.txt
/// answers (their bodies read back from this archive).
pub fn remember_local(
    store: &StateStore,
    options: &CrawlOptions,
) -> Result<Remembered, StoreError> {
    let now = Utc::now();
    let window = contact_window(options.delay, options.max_crawl_delay);
    let recent = store.fetches_since(now - chrono_duration(window), None)?;
    let robots_rows =
        store.fetches_since(now - chrono_duration(robots_window()), Some("robots"))?;
    let agent = product_token(&options.user_agent);
    let robots = fresh_robots(&robots_rows, now, agent, |row| {
        let state = store.url_state(&row.url).ok().flatten();
        archived_robots(&options.root, row, state, options.max_decoded)
    });
    Ok(Remembered {
        contacts: last_contacts(&recent),
        robots,
    })
}

/// What earlier crawls on a shared store leave, by every node: last contacts, and the fresh
/// robots.txt answers whose bodies this node's archive holds.
pub fn remember_shared(
    store: &mut PgStateStore,
    options: &CrawlOptions,
) -> BackendResult<Remembered> {
    let now = Utc::now();
    let window = contact_window(options.delay, options.max_crawl_delay);
    let recent = store.fetches_since(now - chrono_duration(window), None)?;
    let robots_rows =
        store.fetches_since(now - chrono_duration(robots_window()), Some("robots"))?;
    let agent = product_token(&options.user_agent);
    let robots = fresh_robots(&robots_rows, now, agent, |row| {
        let state = StateBackend::url_state(store, &row.url).ok().flatten();
        archived_robots(&options.root, row, state, options.max_decoded)
    });
    Ok(Remembered {
        contacts: last_contacts(&recent),
        robots,
    })
}

/// What a crawl with `options` would start from, read from its store (the embedded one
/// under the root, or the shared one): for estimating a crawl before it runs.
pub fn remembered_for(options: &CrawlOptions) -> Result<Remembered, String> {
    match &options.state {
        Some(database) => PgStateStore::connect(database)
            .and_then(|mut store| remember_shared(&mut store, options))
            .map_err(|e| e.to_string()),
        None => {
            let state_dir = ldwarc_archive::archive::Archive::new(&options.root).state_dir();
            let store = StateStore::open(&state_dir).map_err(|e| e.to_string())?;
            remember_local(&store, options).map_err(|e| e.to_string())
        }
    }
}

impl Remembered {
    /// Seconds until each PLD may be sent its next request, for the PLDs that must wait.
    pub fn waits(&self, delay: Duration, now: DateTime<Utc>) -> HashMap<String, f64> {
        let delay = chrono_duration(delay);
        self.contacts
            .iter()
            .filter_map(|(pld, ended)| {
                let wait = (*ended + delay - now).to_std().ok()?;
                Some((pld.clone(), wait.as_secs_f64()))
            })
            .collect()
    }
}

fn chrono_duration(duration: Duration) -> chrono::Duration {
    chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ldwarc_state::Change;

    fn row(url: &str, status: Option<u16>, at: DateTime<Utc>, ms: Option<u64>) -> FetchLogEntry {
        FetchLogEntry {
            url: url.into(),
            time: at,
            round: 0,
            hops: 0,
            kind: "robots".into(),
            status,
            duration: ms.map(Duration::from_millis),
            bytes: None,
            digest: None,
            change: Change::New,
            error: None,
            content_type: None,
            outlinks: None,
            record: None,
        }
    }

    #[test]
    fn the_last_contact_is_the_end_of_the_latest_request_per_pld() {
        let t = Utc::now();
        let later = t + chrono::Duration::seconds(1);
        let rows = vec![
            row("http://a.example/x", Some(200), t, Some(300)),
            row("http://www.a.example/y", Some(200), later, Some(10)),
            row("http://b.example/z", None, later, None),
        ];
        let contacts = last_contacts(&rows);
        assert_eq!(
            contacts["a.example"],
            later + chrono::Duration::milliseconds(10)
        );
        assert!(!contacts.contains_key("b.example"), "never requested");
    }

    #[test]
    fn only_fresh_readable_answers_are_remembered() {
        let now = Utc::now();
        let hour = chrono::Duration::hours(1);
        let rows = vec![
            row(
                "http://ok.example/robots.txt",
                Some(200),
                now - hour,
                Some(1),
            ),
            row(
                "http://short.example/robots.txt",
                Some(200),
                now - hour,
                Some(1),
            ),
            row(
                "http://gone.example/robots.txt",
                Some(404),
                now - hour,
                Some(1),
            ),
            row(
                "http://old.example/robots.txt",
                Some(404),
                now - hour * 25,
                Some(1),
            ),
            row(
                "http://down.example/robots.txt",
                Some(503),
                now - hour,
                Some(1),
            ),
            row(
                "http://flaky.example/robots.txt",
                Some(200),
                now - hour * 2,
                Some(1),
            ),
            row("http://flaky.example/robots.txt", None, now - hour, Some(1)),
        ];
        let fresh = fresh_robots(&rows, now, "ldwarc", |row| {
            let cache_control = row.url.contains("short").then(|| "max-age=60".to_string());
            Some((
                cache_control,
                b"User-agent: *\nDisallow: /private\n".to_vec(),
            ))
        });
        let mut hosts: Vec<&str> = fresh.iter().filter_map(|r| r.url.host_str()).collect();
        hosts.sort();
        assert_eq!(hosts, vec!["gone.example", "ok.example"]);
        let ok = fresh
            .iter()
            .find(|r| r.url.as_str().contains("ok."))
            .unwrap();
        assert!(!ok.policy.allows("http://ok.example/private/x"));
        assert_eq!(ok.expires, now - hour + chrono::Duration::hours(24));
        let unreadable = fresh_robots(&rows, now, "ldwarc", |_| None);
        assert_eq!(unreadable.len(), 1, "only the 404 needs no body");
    }
}
