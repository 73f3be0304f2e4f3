//! Registered domains by the Public Suffix List: the pay-level domain (PLD) of a host or a
//! URL, the unit of politeness, leases, archive partitions and per-domain statistics.

use std::net::IpAddr;

/// The pay-level domain of a host by the Public Suffix List, lower-cased. IP literals and
/// hosts that are themselves public suffixes (or unknown single labels) are kept whole.
pub fn pay_level_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.parse::<IpAddr>().is_ok() {
        return bare.to_string();
    }
    match psl::domain_str(&host) {
        Some(domain) => domain.to_string(),
        None => host,
    }
}

/// The pay-level domain of a URL's host (empty when the URL has no host or does not parse):
/// the unit of politeness, leases and per-domain statistics.
pub fn pld_of_url(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(pay_level_domain))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pay_level_domains() {
        assert_eq!(pay_level_domain("dbpedia.org"), "dbpedia.org");
        assert_eq!(pay_level_domain("Data.Example.CO.UK."), "example.co.uk");
        assert_eq!(pay_level_domain("127.0.0.1"), "127.0.0.1");
        assert_eq!(pay_level_domain("[::1]"), "::1");
        assert_eq!(pay_level_domain("github.io"), "github.io");
        assert_eq!(pay_level_domain("user.github.io"), "user.github.io");
        assert_eq!(pay_level_domain("localhost"), "localhost");
    }
}
