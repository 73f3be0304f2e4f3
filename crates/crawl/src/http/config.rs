//! Network settings of the fetcher: timeouts and size limits, `--resolve` overrides, and the
//! choice of proxy (`--proxy`, `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY`, `NO_PROXY` as curl reads them).

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use url::{Host, Url};

/// Timeouts, limits, address overrides and proxies used by [`HttpClient`](super::HttpClient).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetConfig {
    /// Limit on setting up a connection: name lookup, TCP connect, proxy `CONNECT` and TLS
    /// handshake together.
    pub connect_timeout: Duration,
    /// Limit on the whole fetch, body included, counted from the later of the call to
    /// [`fetch`](super::HttpClient::fetch) and its `not_before` instant (so a politeness wait is
    /// not charged to the server).
    pub total_timeout: Duration,
    /// Bodies longer than this many bytes are cut here and marked truncated (`length`).
    pub max_body: u64,
    /// A response head longer than this many bytes is an error.
    pub max_head: usize,
    /// `--resolve` overrides, consulted before DNS for the host we connect to.
    pub resolve: Vec<ResolveRule>,
    /// Which proxy, if any, each URL goes through.
    pub proxy: ProxyConfig,
    /// Which certificate authorities HTTPS servers are checked against.
    pub trust: super::trust::TrustConfig,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            connect_timeout: Duration::from_secs(120),
            total_timeout: Duration::from_secs(120),
            max_body: 50_000_000,
            max_head: 64 * 1024,
            resolve: Vec::new(),
            proxy: ProxyConfig::default(),
            trust: super::trust::TrustConfig::default(),
        }
    }
}

impl NetConfig {
    /// The `--resolve` rule that applies to `host`, if any: an exact host rule wins over
    /// wildcards, a longer wildcard suffix over a shorter one, and `*` comes last; among equals
    /// the first given wins.
    pub fn resolve_rule_for(&self, host: &str) -> Option<&ResolveRule> {
        let host = normalize_host(host);
        let mut best: Option<(&ResolveRule, usize)> = None;
        for rule in &self.resolve {
            if let Some(rank) = rule.pattern.rank(&host)
                && best.is_none_or(|(_, best_rank)| rank > best_rank)
            {
                best = Some((rule, rank));
            }
        }
        best.map(|(rule, _)| rule)
    }
}

/// Lower-cases a host name and drops IPv6 brackets and a trailing root dot, so that rule and
/// URL host spellings compare equal.
fn normalize_host(host: &str) -> String {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Which host names a [`ResolveRule`] applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    /// Exactly this host.
    Exact(String),
    /// Any subdomain of this name (`*.example`), not the name itself.
    Subdomains(String),
    /// Every host (`*`).
    Any,
}

impl HostPattern {
    /// How specific the match is (higher wins), or `None` when `host` (normalized) does not match.
    fn rank(&self, host: &str) -> Option<usize> {
        match self {
            HostPattern::Exact(name) => (name == host).then_some(usize::MAX),
            HostPattern::Subdomains(suffix) => {
                let matches = host.len() > suffix.len() + 1
                    && host.ends_with(suffix.as_str())
                    && host.as_bytes()[host.len() - suffix.len() - 1] == b'.';
                matches.then_some(suffix.len() + 1)
            }
            HostPattern::Any => Some(0),
        }
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostPattern::Exact(name) => f.write_str(name),
            HostPattern::Subdomains(suffix) => write!(f, "*.{suffix}"),
            HostPattern::Any => f.write_str("*"),
        }
    }
}

/// A `--resolve HOST=ADDR` override: connections to HOST go to ADDR instead of what DNS says.
///
/// HOST is a host name, `*.example` (any subdomain of `example`, not `example` itself) or `*`
/// (every host). ADDR is an IP address (the URL's port is kept), `IP:PORT` or `[v6]:PORT`; with
/// a port, the connection goes to that port whatever the URL's port is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveRule {
    pattern: HostPattern,
    ip: IpAddr,
    port: Option<u16>,
}

impl ResolveRule {
    /// Whether this rule applies to `host` (ignoring whether a more specific rule exists).
    pub fn matches(&self, host: &str) -> bool {
        self.pattern.rank(&normalize_host(host)).is_some()
    }

    /// Where a connection meant for port `url_port` goes under this rule.
    pub fn target(&self, url_port: u16) -> SocketAddr {
        SocketAddr::new(self.ip, self.port.unwrap_or(url_port))
    }
}

/// A `--resolve` rule that could not be parsed; the message quotes the rule and says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid resolve rule '{rule}': {reason} (expected HOST=ADDR, e.g. *.example=127.0.0.1:8080)"
)]
pub struct InvalidResolveRule {
    rule: String,
    reason: &'static str,
}

impl FromStr for ResolveRule {
    type Err = InvalidResolveRule;

    fn from_str(rule: &str) -> Result<Self, Self::Err> {
        let invalid = |reason| InvalidResolveRule {
            rule: rule.to_string(),
            reason,
        };
        let (host, addr) = rule.split_once('=').ok_or(invalid("no '='"))?;
        let pattern = parse_host_pattern(host.trim()).map_err(invalid)?;
        let (ip, port) = parse_rule_address(addr.trim()).map_err(invalid)?;
        Ok(ResolveRule { pattern, ip, port })
    }
}

impl fmt::Display for ResolveRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}={}", self.pattern, SocketAddr::new(self.ip, port)),
            None => write!(f, "{}={}", self.pattern, self.ip),
        }
    }
}

fn parse_host_pattern(host: &str) -> Result<HostPattern, &'static str> {
    if host == "*" {
        return Ok(HostPattern::Any);
    }
    let (suffix, wildcard) = match host.strip_prefix("*.") {
        Some(suffix) => (suffix, true),
        None => (host, false),
    };
    let name = normalize_host(suffix);
    if name.is_empty() {
        return Err("empty host");
    }
    if name
        .chars()
        .any(|c| c == '*' || c == '/' || c == '=' || c.is_whitespace())
    {
        return Err("host may only be a name, '*.' followed by a name, or '*'");
    }
    if name.contains(':') && name.parse::<std::net::Ipv6Addr>().is_err() {
        return Err("HOST takes no port (put the port after '=')");
    }
    Ok(if wildcard {
        HostPattern::Subdomains(name)
    } else {
        HostPattern::Exact(name)
    })
}

fn parse_rule_address(addr: &str) -> Result<(IpAddr, Option<u16>), &'static str> {
    if addr.is_empty() {
        return Err("empty address");
    }
    let (ip, port) = if let Ok(ip) = addr.parse::<IpAddr>() {
        (ip, None)
    } else if let Ok(socket) = addr.parse::<SocketAddr>() {
        (socket.ip(), Some(socket.port()))
    } else if let Some(ip) = addr.strip_prefix('[').and_then(|a| a.strip_suffix(']')) {
        let ip = ip.parse::<IpAddr>().map_err(|_| "bad IPv6 address")?;
        (ip, None)
    } else {
        return Err("address must be an IP, IP:PORT or [IPv6]:PORT");
    };
    if port == Some(0) {
        return Err("port 0");
    }
    Ok((ip, port))
}

/// One `NO_PROXY` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NoProxyEntry {
    /// `*`: no URL uses a proxy.
    All,
    /// A host (and its subdomains, when it is a name), optionally only on one port.
    Host { name: String, port: Option<u16> },
}

impl NoProxyEntry {
    fn parse(entry: &str) -> Option<NoProxyEntry> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        if entry == "*" {
            return Some(NoProxyEntry::All);
        }
        let (name, port) = split_no_proxy_port(entry);
        let name = normalize_host(name.trim_start_matches('.'));
        (!name.is_empty()).then_some(NoProxyEntry::Host { name, port })
    }

    fn matches(&self, host: &Host<&str>, port: Option<u16>) -> bool {
        let NoProxyEntry::Host { name, port: only } = self else {
            return true;
        };
        if only.is_some() && *only != port {
            return false;
        }
        match host {
            Host::Domain(domain) => {
                let domain = normalize_host(domain);
                domain == *name
                    || (domain.len() > name.len()
                        && domain.ends_with(name.as_str())
                        && domain.as_bytes()[domain.len() - name.len() - 1] == b'.')
            }
            Host::Ipv4(ip) => ip.to_string() == *name,
            Host::Ipv6(ip) => ip.to_string() == *name,
        }
    }
}

/// Splits `host:port`, `[v6]:port`, `[v6]`, `v6` or `host` into name and port.
fn split_no_proxy_port(entry: &str) -> (&str, Option<u16>) {
    if let Some(rest) = entry.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((ip, tail)) => (ip, tail.strip_prefix(':').and_then(|p| p.parse().ok())),
            None => (rest, None),
        };
    }
    match entry.split_once(':') {
        Some((name, port)) if !port.contains(':') => (name, port.parse().ok()),
        _ => (entry, None),
    }
}

/// The proxies to use for `http:` and `https:` URLs and the hosts that bypass them.
///
/// Only `http://` proxies are supported; `https:` URLs go through them with `CONNECT`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyConfig {
    http: Option<Url>,
    https: Option<Url>,
    no_proxy: Vec<NoProxyEntry>,
}

impl ProxyConfig {
    /// No proxy for anything.
    pub fn none() -> Self {
        ProxyConfig::default()
    }

    /// Reads `http_proxy`/`HTTP_PROXY`, `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`
    /// (fallback for both) and `no_proxy`/`NO_PROXY`, lower case first as curl does. Empty and
    /// unparsable values are ignored; a value without a scheme is taken as `http://`.
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) with the variables looked up by `var` instead.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let first = |names: &[&str]| {
            names
                .iter()
                .filter_map(|name| var(name))
                .find(|value| !value.trim().is_empty())
        };
        let all = first(&["all_proxy", "ALL_PROXY"]);
        let http = first(&["http_proxy", "HTTP_PROXY"]).or_else(|| all.clone());
        let https = first(&["https_proxy", "HTTPS_PROXY"]).or(all);
        let config = ProxyConfig {
            http: http.as_deref().and_then(parse_proxy_url),
            https: https.as_deref().and_then(parse_proxy_url),
            no_proxy: Vec::new(),
        };
        match first(&["no_proxy", "NO_PROXY"]) {
            Some(list) => config.with_no_proxy(&list),
            None => config,
        }
    }

    /// With `Some(proxy)` (from `--proxy`), every URL goes through `proxy` unless `NO_PROXY`
    /// exempts it; with `None`, the configuration is kept as it is.
    pub fn with_override(self, proxy: Option<Url>) -> Self {
        match proxy {
            Some(proxy) => ProxyConfig {
                http: Some(proxy.clone()),
                https: Some(proxy),
                ..self
            },
            None => self,
        }
    }

    /// Replaces the bypass list with `list`, a `NO_PROXY` value: entries separated by commas or
    /// white space, `*` for all hosts, each entry matching that host and its subdomains (a
    /// leading dot is allowed), optionally with `:PORT`.
    pub fn with_no_proxy(self, list: &str) -> Self {
        let no_proxy = list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter_map(NoProxyEntry::parse)
            .collect();
        ProxyConfig { no_proxy, ..self }
    }

    /// The proxy `url` should go through, or `None` for a direct connection.
    pub fn proxy_for(&self, url: &Url) -> Option<&Url> {
        let proxy = match url.scheme() {
            "http" => self.http.as_ref(),
            "https" => self.https.as_ref(),
            _ => None,
        }?;
        let host = url.host()?;
        let port = url.port_or_known_default();
        let bypass = self.no_proxy.iter().any(|entry| entry.matches(&host, port));
        (!bypass).then_some(proxy)
    }
}

/// Parses a proxy setting, taking a bare `host:port` as `http://host:port`.
fn parse_proxy_url(value: &str) -> Option<Url> {
    let value = value.trim();
    let url = if value.contains("://") {
        Url::parse(value)
    } else {
        Url::parse(&format!("http://{value}"))
    };
    url.ok().filter(|url| url.host().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> ResolveRule {
        text.parse().unwrap()
    }

    #[test]
    fn resolve_rules_parse_all_address_forms() {
        let v4 = rule("a.example=10.0.0.1");
        assert_eq!(v4.target(81), "10.0.0.1:81".parse().unwrap());
        let v4_port = rule("a.example=127.0.0.1:8080");
        assert_eq!(v4_port.target(80), "127.0.0.1:8080".parse().unwrap());
        let v6_port = rule("*.example=[::1]:9000");
        assert_eq!(v6_port.target(443), "[::1]:9000".parse().unwrap());
        let v6 = rule("*=::1");
        assert_eq!(v6.target(443), "[::1]:443".parse().unwrap());
        let v6_bracketed = rule("x=[::1]");
        assert_eq!(v6_bracketed.target(80), "[::1]:80".parse().unwrap());
        assert_eq!(v6_port.to_string(), "*.example=[::1]:9000");
        assert_eq!(
            rule(" A.Example. = 10.0.0.1 ").to_string(),
            "a.example=10.0.0.1"
        );
    }

    #[test]
    fn resolve_rule_syntax_errors_say_why() {
        for bad in [
            "nohost",
            "=1.2.3.4",
            "a.example=",
            "a.example=localhost",
            "a.example=1.2.3.4:0",
            "a.example=1.2.3.4:99999",
            "a*.example=1.2.3.4",
            "*.=1.2.3.4",
            "a.example=[::1",
            "a.example:80=1.2.3.4",
        ] {
            let error = bad.parse::<ResolveRule>().unwrap_err().to_string();
            assert!(error.contains(bad), "{error}");
            assert!(error.starts_with("invalid resolve rule"), "{error}");
        }
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        let wildcard = rule("*.example=127.0.0.1");
        assert!(wildcard.matches("a.example"));
        assert!(wildcard.matches("b.a.EXAMPLE"));
        assert!(!wildcard.matches("example"));
        assert!(!wildcard.matches("aexample"));
        assert!(rule("*=127.0.0.1").matches("anything.at.all"));
        assert!(rule("::1=127.0.0.1").matches("[::1]"));
    }

    #[test]
    fn most_specific_resolve_rule_wins() {
        let config = NetConfig {
            resolve: vec![
                rule("*=10.0.0.1"),
                rule("*.example=10.0.0.2"),
                rule("*.b.example=10.0.0.3"),
                rule("a.b.example=10.0.0.4"),
                rule("*.b.example=10.0.0.5"),
            ],
            ..NetConfig::default()
        };
        let ip_for = |host: &str| config.resolve_rule_for(host).unwrap().target(80).ip();
        assert_eq!(ip_for("a.b.example"), "10.0.0.4".parse::<IpAddr>().unwrap());
        assert_eq!(ip_for("c.b.example"), "10.0.0.3".parse::<IpAddr>().unwrap());
        assert_eq!(ip_for("b.example"), "10.0.0.2".parse::<IpAddr>().unwrap());
        assert_eq!(ip_for("other.test"), "10.0.0.1".parse::<IpAddr>().unwrap());
        assert!(NetConfig::default().resolve_rule_for("a.example").is_none());
    }

    fn env(vars: &[(&str, &str)]) -> ProxyConfig {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ProxyConfig::from_vars(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    fn proxied(config: &ProxyConfig, url: &str) -> Option<String> {
        config
            .proxy_for(&Url::parse(url).unwrap())
            .map(|p| p.to_string())
    }

    #[test]
    fn proxies_come_from_the_environment() {
        let config = env(&[
            ("HTTP_PROXY", "http://upper:1"),
            ("http_proxy", "lower:3128"),
            ("HTTPS_PROXY", "http://secure:8443"),
        ]);
        assert_eq!(
            proxied(&config, "http://a.example/").unwrap(),
            "http://lower:3128/"
        );
        assert_eq!(
            proxied(&config, "https://a.example/").unwrap(),
            "http://secure:8443/"
        );
        assert_eq!(proxied(&config, "ftp://a.example/"), None);
        let fallback = env(&[("ALL_PROXY", "http://all:1")]);
        assert_eq!(
            proxied(&fallback, "https://a.example/").unwrap(),
            "http://all:1/"
        );
        assert_eq!(env(&[("http_proxy", "")]), ProxyConfig::none());
        assert_eq!(env(&[("http_proxy", "http://")]), ProxyConfig::none());
    }

    #[test]
    fn no_proxy_matches_like_curl() {
        let config = env(&[
            ("http_proxy", "http://proxy:3128"),
            (
                "NO_PROXY",
                "local.test, .internal.example,10.1.2.3 ,[::1],ported.example:8080",
            ),
        ]);
        let direct = |url: &str| proxied(&config, url).is_none();
        assert!(direct("http://local.test/"));
        assert!(direct("http://sub.local.test/"));
        assert!(!direct("http://notlocal.test/"));
        assert!(direct("http://internal.example/"));
        assert!(direct("http://x.internal.example/"));
        assert!(direct("http://10.1.2.3/"));
        assert!(!direct("http://110.1.2.3/"));
        assert!(direct("http://[::1]:8000/"));
        assert!(direct("http://ported.example:8080/"));
        assert!(!direct("http://ported.example/"));
        assert!(!direct("http://elsewhere.example/"));
        let all = env(&[("http_proxy", "http://proxy:3128"), ("no_proxy", "*")]);
        assert_eq!(proxied(&all, "http://anything.example/"), None);
    }

    #[test]
    fn override_replaces_both_proxies_and_keeps_no_proxy() {
        let override_url = Url::parse("http://cli:9000").unwrap();
        let config = env(&[
            ("https_proxy", "http://env:1"),
            ("no_proxy", "skip.example"),
        ])
        .with_override(Some(override_url));
        assert_eq!(
            proxied(&config, "http://a.example/").unwrap(),
            "http://cli:9000/"
        );
        assert_eq!(
            proxied(&config, "https://a.example/").unwrap(),
            "http://cli:9000/"
        );
        assert_eq!(proxied(&config, "https://skip.example/"), None);
        let kept = env(&[("https_proxy", "http://env:1")]).with_override(None);
        assert_eq!(
            proxied(&kept, "https://a.example/").unwrap(),
            "http://env:1/"
        );
    }
}
