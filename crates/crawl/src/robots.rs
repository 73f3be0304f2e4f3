//! robots.txt per RFC 9309: one policy per origin (scheme, host, port), cached for at most
//! 24 hours; 2xx is parsed (the first 500 KiB, as the RFC requires at least), 4xx means
//! everything is allowed, 5xx, 429 and network failure mean nothing is, and `Crawl-delay`
//! raises the PLD's delay up to a cap.

use std::collections::HashMap;
use std::time::Duration;

use texting_robots::Robot;
use tokio::time::Instant;
use url::Url;

/// How much of a robots.txt file is parsed (RFC 9309 §2.5: at least 500 KiB).
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// How long a policy is used before robots.txt is fetched again (RFC 9309 §2.4).
pub const ROBOTS_TTL: Duration = Duration::from_secs(24 * 3600);

/// What one origin's robots.txt allows.
pub enum RobotsPolicy {
    /// No usable robots.txt (4xx): everything is allowed.
    AllowAll,
    /// robots.txt unreachable (5xx, 429, network error): nothing is allowed.
    DisallowAll,
    /// Parsed rules.
    Rules(Box<Robot>),
}

impl RobotsPolicy {
    /// The policy for a robots.txt answer: `status` (None when no response arrived) and
    /// the body (already decoded).
    pub fn from_response(status: Option<u16>, body: &[u8], agent: &str) -> Self {
        match status {
            Some(200..=299) => {
                let body = &body[..body.len().min(MAX_ROBOTS_BYTES)];
                match Robot::new(agent, body) {
                    Ok(robot) => RobotsPolicy::Rules(Box::new(robot)),
                    // Unparseable rules are as good as none.
                    Err(_) => RobotsPolicy::AllowAll,
                }
            }
            // Redirects are followed by the caller; one still unresolved after the limit
            // counts as unavailable (RFC 9309 §2.3.1.2).
            Some(300..=399) => RobotsPolicy::AllowAll,
            Some(429) => RobotsPolicy::DisallowAll,
            Some(400..=499) => RobotsPolicy::AllowAll,
            _ => RobotsPolicy::DisallowAll,
        }
    }

    /// Whether `url` may be fetched.
    pub fn allows(&self, url: &str) -> bool {
        match self {
            RobotsPolicy::AllowAll => true,
            RobotsPolicy::DisallowAll => false,
            RobotsPolicy::Rules(robot) => robot.allowed(url),
        }
    }

    /// The `Crawl-delay` for our agent, if any.
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            RobotsPolicy::Rules(robot) => robot
                .delay
                .filter(|d| d.is_finite() && *d > 0.0)
                .map(|d| Duration::from_secs_f32(d.min(86_400.0))),
            _ => None,
        }
    }
}

/// The robots.txt URL of a URL's origin.
pub fn robots_url(url: &Url) -> Option<Url> {
    let mut robots = url.clone();
    robots.set_path("/robots.txt");
    robots.set_query(None);
    robots.set_fragment(None);
    robots.set_username("").ok()?;
    robots.set_password(None).ok()?;
    Some(robots)
}

/// The origin key of a URL (scheme, host, port).
pub fn origin_key(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// The robots.txt product token of a User-Agent: its first word before `/`.
pub fn product_token(user_agent: &str) -> &str {
    user_agent
        .split(|c: char| c == '/' || c.is_whitespace())
        .next()
        .filter(|t| !t.is_empty())
        .unwrap_or("ldwarc")
}

/// Policies per origin, with the time each stops being fresh.
#[derive(Default)]
pub struct RobotsCache {
    policies: HashMap<String, (RobotsPolicy, Instant)>,
}

impl RobotsCache {
    /// The cached, still fresh policy of `url`'s origin.
    pub fn policy(&self, url: &Url, now: Instant) -> Option<&RobotsPolicy> {
        self.policies
            .get(&origin_key(url))
            .filter(|(_, expires)| now < *expires)
            .map(|(policy, _)| policy)
    }

    /// Stores the policy of `url`'s origin, fetched `now`.
    pub fn insert(&mut self, url: &Url, policy: RobotsPolicy, now: Instant) {
        self.insert_until(url, policy, now + ROBOTS_TTL);
    }

    /// Stores the policy of `url`'s origin, fresh until `expires` (a policy fetched before
    /// this crawl, by an earlier one or another node).
    pub fn insert_until(&mut self, url: &Url, policy: RobotsPolicy, expires: Instant) {
        self.policies.insert(origin_key(url), (policy, expires));
    }
}

/// How long a robots.txt answer may be used: its `Cache-Control` `max-age` when given (and
/// `no-store`/`no-cache` as 0), at most 24 hours (RFC 9309 §2.4).
pub fn cache_lifetime(cache_control: Option<&str>) -> Duration {
    let Some(value) = cache_control else {
        return ROBOTS_TTL;
    };
    let mut lifetime = ROBOTS_TTL;
    for directive in value.split(',').map(|d| d.trim().to_ascii_lowercase()) {
        if directive == "no-store" || directive == "no-cache" {
            return Duration::ZERO;
        }
        if let Some(seconds) = directive.strip_prefix("max-age=")
            && let Ok(seconds) = seconds.trim_matches('"').parse::<u64>()
        {
            lifetime = lifetime.min(Duration::from_secs(seconds));
        }
    }
    lifetime
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_map_as_rfc_9309_says() {
        let agent = "ldwarc";
        assert!(RobotsPolicy::from_response(Some(404), b"", agent).allows("http://a/x"));
        assert!(!RobotsPolicy::from_response(Some(503), b"", agent).allows("http://a/x"));
        assert!(!RobotsPolicy::from_response(Some(429), b"", agent).allows("http://a/x"));
        assert!(!RobotsPolicy::from_response(None, b"", agent).allows("http://a/x"));
        let rules = RobotsPolicy::from_response(
            Some(200),
            b"User-agent: *\nDisallow: /private/\nCrawl-delay: 3\n",
            agent,
        );
        assert!(rules.allows("http://a.example/public"));
        assert!(!rules.allows("http://a.example/private/x"));
        assert_eq!(rules.crawl_delay(), Some(Duration::from_secs(3)));
    }

    #[test]
    fn agent_specific_groups_apply_to_our_token() {
        let body = b"User-agent: ldwarc\nDisallow: /\n\nUser-agent: *\nAllow: /\n";
        let policy = RobotsPolicy::from_response(Some(200), body, product_token("ldwarc/0.1 (+x)"));
        assert!(!policy.allows("http://a.example/x"));
    }

    #[test]
    fn cache_lifetimes_follow_cache_control_up_to_a_day() {
        assert_eq!(cache_lifetime(None), ROBOTS_TTL);
        assert_eq!(
            cache_lifetime(Some("public, max-age=600")),
            Duration::from_secs(600)
        );
        assert_eq!(cache_lifetime(Some("max-age=999999")), ROBOTS_TTL);
        assert_eq!(cache_lifetime(Some("no-cache")), Duration::ZERO);
        assert_eq!(cache_lifetime(Some("max-age=soon")), ROBOTS_TTL);
        let mut cache = RobotsCache::default();
        let url = Url::parse("http://a.example/x").unwrap();
        let now = Instant::now();
        cache.insert_until(&url, RobotsPolicy::AllowAll, now + Duration::from_secs(5));
        assert!(cache.policy(&url, now).is_some());
        assert!(cache.policy(&url, now + Duration::from_secs(5)).is_none());
    }

    #[test]
    fn robots_url_and_origin() {
        let url = Url::parse("https://u:p@a.example:8443/x/y?q#f").unwrap();
        assert_eq!(
            robots_url(&url).unwrap().as_str(),
            "https://a.example:8443/robots.txt"
        );
        assert_eq!(origin_key(&url), "https://a.example:8443");
    }
}
