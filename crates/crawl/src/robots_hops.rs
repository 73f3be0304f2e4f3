//! Following redirects of robots.txt (RFC 9309 §2.3.1.2): at least five in a row are
//! followed, and a chain that comes back to a URL already fetched ends there, so a
//! robots.txt redirecting to itself is fetched once, not six times.

use url::Url;

/// Redirects of robots.txt followed in a row (RFC 9309 §2.3.1.2: at least five).
pub const MAX_ROBOTS_REDIRECTS: usize = 5;

/// Where to fetch robots.txt next after an answer with `status` and `location`, given the
/// URLs fetched so far (the answer's own URL last); `None` ends the chain with this answer
/// (a redirect still unresolved then counts as robots.txt unavailable).
pub fn next_robots_hop(
    status: Option<u16>,
    location: Option<Url>,
    fetched: &[&Url],
) -> Option<Url> {
    let next = match (status, location) {
        (Some(301 | 302 | 303 | 307 | 308), Some(next)) => next,
        _ => return None,
    };
    let redirects_so_far = fetched.len();
    if redirects_so_far > MAX_ROBOTS_REDIRECTS || fetched.iter().any(|url| **url == next) {
        return None;
    }
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_robots_txt_redirecting_to_itself_is_fetched_once() {
        let robots = url("http://a.example/robots.txt");
        assert_eq!(
            next_robots_hop(Some(301), Some(robots.clone()), &[&robots]),
            None
        );
        // A two-step loop ends when it comes back.
        let other = url("http://b.example/robots.txt");
        assert_eq!(
            next_robots_hop(Some(302), Some(other.clone()), &[&robots]),
            Some(other.clone())
        );
        assert_eq!(
            next_robots_hop(Some(302), Some(robots.clone()), &[&robots, &other]),
            None
        );
    }

    #[test]
    fn five_redirects_are_followed_then_the_chain_ends() {
        let hops: Vec<Url> = (0..8)
            .map(|i| url(&format!("http://h{i}.example/robots.txt")))
            .collect();
        for fetched in 1..=MAX_ROBOTS_REDIRECTS {
            let seen: Vec<&Url> = hops[..fetched].iter().collect();
            assert_eq!(
                next_robots_hop(Some(307), Some(hops[fetched].clone()), &seen),
                Some(hops[fetched].clone()),
                "redirect {fetched}"
            );
        }
        let seen: Vec<&Url> = hops[..=MAX_ROBOTS_REDIRECTS].iter().collect();
        assert_eq!(
            next_robots_hop(Some(307), Some(hops[6].clone()), &seen),
            None
        );
        assert_eq!(
            next_robots_hop(Some(200), Some(hops[1].clone()), &[&hops[0]]),
            None
        );
        assert_eq!(next_robots_hop(Some(301), None, &[&hops[0]]), None);
    }
}
