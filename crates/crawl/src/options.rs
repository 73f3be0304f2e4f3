//! Crawl options: every one has a default, can be set in `<root>/ldwarc.toml` under
//! `[crawl]`, and can be overridden by a command-line flag.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

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
}

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

/// A duration in `ldwarc.toml`: a number of seconds (`2`, `0.5`) or a duration with units
/// (`"250ms"`, `"2s"`, `"36h"`), the command line's syntax.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ConfigDuration {
    /// Seconds.
    Seconds(f64),
    /// With units.
    Text(String),
}

impl ConfigDuration {
    fn seconds(&self) -> Result<Duration, String> {
        match self {
            ConfigDuration::Seconds(value) => seconds(*value),
            ConfigDuration::Text(text) => {
                let value = ldwarc_core::dynamics::duration::parse_duration(text, Some(1.0))
                    .map_err(|e| e.to_string())?;
                seconds(value)
            }
        }
    }
}

/// The `[crawl]` table of `ldwarc.toml`: any option, by its flag's name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CrawlConfig {
    /// Seeds.
    pub seeds: Option<Vec<String>>,
    /// Hop limit.
    pub hops: Option<u32>,
    /// Per-PLD delay in seconds.
    pub delay: Option<ConfigDuration>,
    /// Largest `Crawl-delay` honoured, seconds.
    pub max_crawl_delay: Option<ConfigDuration>,
    /// Requests in flight.
    pub concurrency: Option<usize>,
    /// Connect timeout, seconds.
    pub connect_timeout: Option<ConfigDuration>,
    /// Fetch timeout, seconds.
    pub timeout: Option<ConfigDuration>,
    /// Longest body.
    pub max_body: Option<u64>,
    /// Most bytes parsed.
    pub max_parse: Option<usize>,
    /// Most bytes inflated.
    pub max_decoded: Option<usize>,
    /// User-Agent.
    pub user_agent: Option<String>,
    /// Accept.
    pub accept: Option<String>,
    /// Accept-Encoding.
    pub accept_encoding: Option<String>,
    /// Predicates to follow.
    pub follow_predicates: Option<Vec<String>>,
    /// Proxy URL.
    pub proxy: Option<String>,
    /// Resolve overrides.
    pub resolve: Option<Vec<String>>,
    /// Trusted roots: `bundled` or `system`.
    pub tls_roots: Option<String>,
    /// CA certificate files (relative paths are relative to the archive root).
    pub ca_files: Option<Vec<PathBuf>>,
    /// Redirect limit.
    pub max_redirects: Option<u32>,
    /// Conditional requests.
    pub conditional: Option<bool>,
    /// Longest Retry-After honoured, seconds.
    pub max_retry_after: Option<ConfigDuration>,
    /// WARC file size limit.
    pub max_file_bytes: Option<u64>,
    /// gzip level.
    pub gzip_level: Option<u32>,
    /// Operator.
    pub operator: Option<String>,
    /// Shared state store (`postgres://…`).
    pub state: Option<String>,
    /// Node name.
    pub node: Option<String>,
    /// PLD lease lifetime, seconds.
    pub lease_ttl: Option<ConfigDuration>,
    /// PLD leases held at once.
    pub max_plds: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    crawl: Option<CrawlConfig>,
}

impl CrawlConfig {
    /// Reads the `[crawl]` table of `<root>/ldwarc.toml` (empty when the file is absent).
    pub fn load(root: &Path) -> Result<Self, String> {
        let path = root.join("ldwarc.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let file: ConfigFile =
            toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
        Ok(file.crawl.unwrap_or_default())
    }

    /// Applies the file's values to `options` (flags are applied after this, and win).
    pub fn apply(self, options: &mut CrawlOptions) -> Result<(), String> {
        let secs = |name: &str, value: ConfigDuration| {
            value
                .seconds()
                .map_err(|e| format!("ldwarc.toml: {}: {e}", name.replace('_', "-")))
        };
        macro_rules! set {
            ($field:ident) => {
                if let Some(value) = self.$field {
                    options.$field = value;
                }
            };
            ($field:ident, secs) => {
                if let Some(value) = self.$field {
                    options.$field = secs(stringify!($field), value)?;
                }
            };
        }
        set!(seeds);
        set!(hops);
        set!(delay, secs);
        set!(max_crawl_delay, secs);
        set!(concurrency);
        set!(connect_timeout, secs);
        set!(timeout, secs);
        set!(max_body);
        set!(max_parse);
        set!(max_decoded);
        set!(user_agent);
        set!(accept);
        set!(accept_encoding);
        set!(follow_predicates);
        set!(resolve);
        set!(max_redirects);
        set!(conditional);
        set!(max_retry_after, secs);
        set!(max_file_bytes);
        set!(gzip_level);
        set!(lease_ttl, secs);
        for (field, value) in [
            (&mut options.state, self.state),
            (&mut options.node, self.node),
        ] {
            if value.is_some() {
                *field = value;
            }
        }
        if self.max_plds.is_some() {
            options.max_plds = self.max_plds;
        }
        if let Some(roots) = self.tls_roots {
            options.tls_roots = roots
                .parse()
                .map_err(|e| format!("ldwarc.toml: tls-roots: {e}"))?;
        }
        if let Some(files) = self.ca_files {
            options.ca_files = files.into_iter().map(|f| options.root.join(f)).collect();
        }
        if self.proxy.is_some() {
            options.proxy = self.proxy;
        }
        if self.operator.is_some() {
            options.operator = self.operator;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_sets_options_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("ldwarc.toml"),
            "[crawl]\nhops = 1\ndelay = 0.5\nresolve = [\"*.example=127.0.0.1:8080\"]\n",
        )
        .unwrap();
        let mut options = CrawlOptions::new(dir.path());
        CrawlConfig::load(dir.path())
            .unwrap()
            .apply(&mut options)
            .unwrap();
        assert_eq!(options.hops, 1);
        assert_eq!(options.delay, Duration::from_millis(500));
        assert_eq!(
            options.resolve,
            vec!["*.example=127.0.0.1:8080".to_string()]
        );
        assert_eq!(options.concurrency, 64);
        assert_eq!(options.state, None);
        std::fs::write(dir.path().join("ldwarc.toml"), "[crawl]\nhopz = 1\n").unwrap();
        let error = CrawlConfig::load(dir.path()).unwrap_err();
        assert!(
            error.contains("ldwarc.toml") && error.contains("hopz"),
            "{error}"
        );
    }
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
