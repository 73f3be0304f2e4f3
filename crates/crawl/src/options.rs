//! The resolved crawl options: every one has a default, which the settings of
//! `<root>/ldwarc.toml` and of the command line ([`crate::settings`]) override.

use std::path::PathBuf;
use std::time::Duration;

/// The User-Agent sent unless configured: names the tool and where to find its operator's
/// contact (set your own with a contact URL or e-mail address for real crawls).
pub const DEFAULT_USER_AGENT: &str = concat!(
    "ldwarc/",
    env!("CARGO_PKG_VERSION"),
    " (Linked Data archiver; +https://github.com/ldwarc/ldwarc)"
);

/// `Accept-Encoding` sent unless configured. Payloads are archived exactly as received.
pub const DEFAULT_ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// Everything a crawl needs to know.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// Archive root.
    pub root: PathBuf,
    /// Seed URLs.
    pub seeds: Vec<String>,
    /// Hop limit from the seeds (DyLDO: 2).
    pub hops: u32,
    /// Minimum time between two requests to one PLD (DyLDO: 2 s).
    pub delay: Duration,
    /// The largest robots.txt `Crawl-delay` honoured.
    pub max_crawl_delay: Duration,
    /// Requests in flight at most (one per PLD).
    pub concurrency: usize,
    /// TCP connect (and TLS handshake) timeout.
    pub connect_timeout: Duration,
    /// Timeout of a whole fetch.
    pub timeout: Duration,
    /// Longest body archived; longer ones are cut and marked `WARC-Truncated: length`.
    pub max_body: u64,
    /// Most payload bytes parsed for links.
    pub max_parse: usize,
    /// Most bytes a compressed payload may inflate to for link extraction.
    pub max_decoded: usize,
    /// `User-Agent` header (its first word is the robots.txt product token).
    pub user_agent: String,
    /// `Accept` header.
    pub accept: String,
    /// `Accept-Encoding` header (empty: none sent).
    pub accept_encoding: String,
    /// Follow only objects of these predicates (empty: every IRI is a link).
    pub follow_predicates: Vec<String>,
    /// HTTP(S) proxy (else `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY`).
    pub proxy: Option<String>,
    /// `HOST=ADDR` overrides of name resolution.
    pub resolve: Vec<String>,
    /// The base set of trusted certificate authorities.
    pub tls_roots: crate::http::TrustRoots,
    /// PEM files of further trusted CA certificates.
    pub ca_files: Vec<PathBuf>,
    /// Continue the last interrupted crawl.
    pub resume: bool,
    /// Redirects followed from one URL.
    pub max_redirects: u32,
    /// Send `If-None-Match`/`If-Modified-Since` from the last capture.
    pub conditional: bool,
    /// Longest wait honoured from `Retry-After`.
    pub max_retry_after: Duration,
    /// WARC files are closed at this size.
    pub max_file_bytes: u64,
    /// gzip level of WARC records.
    pub gzip_level: u32,
    /// Who runs the crawl (`operator` in `warcinfo`).
    pub operator: Option<String>,
    /// Where the frontier, crawl log and URL state live: `None` for the embedded store under
    /// the root, or a `postgres://` URL shared by many crawler nodes.
    pub state: Option<String>,
    /// This node's name: in every WARC file name and on every PLD lease (default: the host
    /// name).
    pub node: Option<String>,
    /// Which crawl of a shared store to join.
    pub join: JoinCrawl,
    /// Start a new crawl in a shared store even while another one is running there.
    pub force_new: bool,
    /// How long `--join` waits for a crawl to appear in the shared store.
    pub join_wait: Duration,
    /// How long a PLD lease lasts without renewal (renewed every third of it).
    pub lease_ttl: Duration,
    /// PLD leases held at most at once (default: `concurrency`); a node holds no more than its
    /// fair share of the crawl's PLDs either.
    pub max_plds: Option<usize>,
    /// URLs the frontier holds at most (queued and fetched): a site linking ever more new
    /// URLs cannot grow memory and the state store without bound.
    pub max_frontier: usize,
    /// URLs of one PLD the frontier holds at most: one such site cannot take the whole
    /// frontier from the others.
    pub max_frontier_per_pld: usize,
    /// New links taken from one document at most, in document order.
    pub max_links: usize,
}

/// The default of `--max-frontier`.
pub const DEFAULT_MAX_FRONTIER: usize = 1_000_000;
/// The default of `--max-frontier-per-pld`.
pub const DEFAULT_MAX_FRONTIER_PER_PLD: usize = 100_000;
/// The default of `--max-links`.
pub const DEFAULT_MAX_NEW_LINKS: usize = 10_000;

/// Which crawl of a shared (PostgreSQL) state store a node works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JoinCrawl {
    /// Start a new crawl from the seeds.
    #[default]
    New,
    /// Join the latest crawl that has not finished.
    Latest,
    /// Join the crawl with this id.
    Id(i64),
}

/// Characters allowed in a node name (it becomes part of WARC file names).
pub fn check_node_name(name: &str) -> Result<(), String> {
    let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if name.is_empty() || name.len() > 64 || !name.chars().all(fits) {
        return Err(format!(
            "node name {name:?}: use 1 to 64 letters, digits, '.', '_' or '-' (it goes into WARC file names)"
        ));
    }
    Ok(())
}

impl CrawlOptions {
    /// With a shared state, a lease must outlive 1.5 crawl delays: a dead node's last request
    /// must lie a delay back when another node takes its domains over.
    pub fn check_lease_ttl(&self) -> Result<(), String> {
        if self.state.is_some() && self.lease_ttl < self.delay.mul_f64(1.5) {
            return Err(format!(
                "--lease-ttl {:.1} s must be at least 1.5 × --delay: a dead node's last request \
                 must lie a delay back when its domains are taken over",
                self.lease_ttl.as_secs_f64()
            ));
        }
        Ok(())
    }

    /// The defaults for an archive at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            seeds: Vec::new(),
            hops: 2,
            delay: Duration::from_secs(2),
            max_crawl_delay: Duration::from_secs(60),
            concurrency: 64,
            connect_timeout: Duration::from_secs(120),
            timeout: Duration::from_secs(120),
            max_body: 50_000_000,
            max_parse: 16 * 1024 * 1024,
            max_decoded: 64 * 1024 * 1024,
            user_agent: DEFAULT_USER_AGENT.into(),
            accept: ldwarc_rdf::DEFAULT_ACCEPT.into(),
            accept_encoding: DEFAULT_ACCEPT_ENCODING.into(),
            follow_predicates: Vec::new(),
            proxy: None,
            resolve: Vec::new(),
            tls_roots: crate::http::TrustRoots::Bundled,
            ca_files: Vec::new(),
            resume: false,
            max_redirects: 5,
            conditional: true,
            max_retry_after: Duration::from_secs(3600),
            max_file_bytes: 1_000_000_000,
            gzip_level: 6,
            operator: None,
            state: None,
            node: None,
            join: JoinCrawl::New,
            force_new: false,
            join_wait: Duration::from_secs(60),
            lease_ttl: Duration::from_secs(30),
            max_plds: None,
            max_frontier: DEFAULT_MAX_FRONTIER,
            max_frontier_per_pld: DEFAULT_MAX_FRONTIER_PER_PLD,
            max_links: DEFAULT_MAX_NEW_LINKS,
        }
    }
}

/// The longest delay, timeout or wait a crawl accepts, in seconds (365 days).
pub const MAX_SECONDS: f64 = 365.0 * 86_400.0;

/// A duration given in seconds: finite, not negative, at most [`MAX_SECONDS`].
pub fn seconds(value: f64) -> Result<Duration, String> {
    if !(value.is_finite() && value >= 0.0) {
        return Err(format!("{value} is not a non-negative number of seconds"));
    }
    if value > MAX_SECONDS {
        return Err(format!(
            "{value} seconds is more than the largest accepted, {MAX_SECONDS} (365 days)"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

#[cfg(test)]
mod node_name_tests {
    use super::*;

    #[test]
    fn node_names_must_fit_in_file_names() {
        assert!(check_node_name("crawler-01.dc2").is_ok());
        assert!(check_node_name("").is_err());
        assert!(check_node_name("a/b").is_err());
        assert!(check_node_name("two words").is_err());
    }
}
