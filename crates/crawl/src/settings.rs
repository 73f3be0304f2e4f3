//! The crawl options a user sets, defined once: the same struct is the command-line flags of
//! `crawl` and `monitor` (with the `cli` feature, through `clap`) and the `[crawl]` table of
//! `<root>/ldwarc.toml` (through `serde`), each option under the same name. Every field is
//! optional; [`CrawlSettings::overlay`] puts one source over another (defaults <
//! `ldwarc.toml` < flags) and [`CrawlSettings::apply_to`] resolves the result into the
//! [`CrawlOptions`] the crawler runs with.
//!
//! Options that only make sense for one run stay flags of their command: `--resume`,
//! `--join`, `--crawl-id` and `--force` of `crawl`; `monitor`'s own cycle options.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};

use crate::http::TrustRoots;
use crate::options::{CrawlOptions, check_node_name, seconds};

/// A crawl delay, timeout or wait: with units (`250ms`, `2s`, `36h`, `1d12h`), at most a
/// year. A flag may still give a bare number of seconds (deprecated, see
/// [`CrawlDuration::unitless`]); in `ldwarc.toml` a number is a number of seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlDuration {
    duration: Duration,
    unitless: Option<String>,
}

impl CrawlDuration {
    /// The duration.
    pub fn get(&self) -> Duration {
        self.duration
    }

    /// The flag's text when it was a bare number without a unit (a deprecated spelling).
    pub fn unitless(&self) -> Option<&str> {
        self.unitless.as_deref()
    }
}

impl From<Duration> for CrawlDuration {
    fn from(duration: Duration) -> Self {
        Self {
            duration,
            unitless: None,
        }
    }
}

impl FromStr for CrawlDuration {
    type Err = String;

    /// The command line's syntax: units, or a bare number of seconds.
    fn from_str(text: &str) -> Result<Self, String> {
        let (value, bare) =
            ldwarc_dynamics::parse_flag_duration(text, 1.0).map_err(|e| e.to_string())?;
        Ok(Self {
            duration: seconds(value)?,
            unitless: bare.then(|| text.to_string()),
        })
    }
}

impl<'de> Deserialize<'de> for CrawlDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DurationVisitor)
    }
}

struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = CrawlDuration;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number of seconds or a duration like \"250ms\", \"2s\" or \"36h\"")
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<CrawlDuration, E> {
        seconds(value).map(CrawlDuration::from).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<CrawlDuration, E> {
        self.visit_f64(value as f64)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<CrawlDuration, E> {
        self.visit_f64(value as f64)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<CrawlDuration, E> {
        // In the file a bare number in a string is seconds too, as a bare number is.
        let (value, _) = ldwarc_dynamics::parse_flag_duration(text, 1.0).map_err(E::custom)?;
        seconds(value).map(CrawlDuration::from).map_err(E::custom)
    }
}

/// A size in bytes: a number, optionally with a unit (`50MB`, `64MiB`, `1.5GB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        ldwarc_archive::size::parse_size(text).map(ByteSize)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SizeVisitor)
    }
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = ByteSize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number of bytes or a size like \"50MB\" or \"64MiB\"")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<ByteSize, E> {
        Ok(ByteSize(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<ByteSize, E> {
        u64::try_from(value)
            .map(ByteSize)
            .map_err(|_| E::custom(format!("{value} is not a size")))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<ByteSize, E> {
        text.parse().map_err(E::custom)
    }
}

/// A value `ldwarc.toml` gives as text and the flag parses the same way (`tls-roots`).
fn from_text<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let text = String::deserialize(deserializer)?;
    text.parse().map(Some).map_err(de::Error::custom)
}

#[cfg(feature = "cli")]
use ldwarc_archive::arguments::{existing_file, non_empty};

/// How the crawler fetches and writes: the options `crawl` and `monitor` share, as flags and
/// as keys of `[crawl]` in `ldwarc.toml`.
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FetchSettings {
    /// Minimum time between two requests to one pay-level domain [default: 2s].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub delay: Option<CrawlDuration>,
    /// Requests in flight at most, one per pay-level domain [default: 64].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub concurrency: Option<usize>,
    /// Time allowed for a whole fetch; connecting has the same limit unless
    /// --connect-timeout is given [default: 120s].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub timeout: Option<CrawlDuration>,
    /// Time allowed to connect (TCP and TLS handshake) [default: --timeout].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub connect_timeout: Option<CrawlDuration>,
    /// Largest robots.txt Crawl-delay honoured [default: 60s].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub max_crawl_delay: Option<CrawlDuration>,
    /// Longest wait honoured from a 429/503 answer's Retry-After [default: 1h].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub max_retry_after: Option<CrawlDuration>,
    /// User-Agent, with a contact URL or address for real crawls.
    #[cfg_attr(feature = "cli", arg(long, value_name = "UA", value_parser = non_empty))]
    pub user_agent: Option<String>,
    /// Accept header [default: the six RDF syntaxes, q-weighted].
    #[cfg_attr(feature = "cli", arg(long, value_name = "ACCEPT", value_parser = non_empty))]
    pub accept: Option<String>,
    /// Accept-Encoding header; payloads are archived as received [default: gzip, deflate, br].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "ENCODINGS", value_parser = non_empty)
    )]
    pub accept_encoding: Option<String>,
    /// Follow only objects of this predicate (repeatable; default: every IRI is a link).
    #[cfg_attr(feature = "cli", arg(long, value_name = "IRI", value_parser = non_empty))]
    pub follow_predicate: Option<Vec<String>>,
    /// HTTP(S) proxy for all requests (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL", value_parser = non_empty))]
    pub proxy: Option<String>,
    /// Connect to ADDR (IP or IP:PORT) for HOST; HOST may be *.domain (repeatable).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "HOST=ADDR", value_parser = non_empty)
    )]
    pub resolve: Option<Vec<String>>,
    /// Also trust the CA certificates in this PEM file for HTTPS (repeatable; in ldwarc.toml
    /// relative to the archive root).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", value_parser = existing_file())
    )]
    pub ca_file: Option<Vec<PathBuf>>,
    /// Base set of trusted CAs: the bundled Mozilla roots (plus SSL_CERT_FILE and
    /// SSL_CERT_DIR when set) or the operating system's store [default: bundled].
    #[cfg_attr(feature = "cli", arg(long, value_name = "bundled|system"))]
    #[serde(default, deserialize_with = "from_text")]
    pub tls_roots: Option<TrustRoots>,
    /// Longest body archived; longer bodies are cut and marked WARC-Truncated [default: 50MB].
    #[cfg_attr(feature = "cli", arg(long, value_name = "SIZE"))]
    pub max_body: Option<ByteSize>,
    /// Most payload bytes parsed for links [default: 16MiB].
    #[cfg_attr(feature = "cli", arg(long, value_name = "SIZE"))]
    pub max_parse: Option<ByteSize>,
    /// Most bytes a compressed payload may inflate to for link extraction [default: 64MiB].
    #[cfg_attr(feature = "cli", arg(long, value_name = "SIZE"))]
    pub max_decoded: Option<ByteSize>,
    /// Redirects followed from one URL [default: 5].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_redirects: Option<u32>,
    /// Do not send If-None-Match / If-Modified-Since from earlier captures.
    #[cfg_attr(
        feature = "cli",
        arg(long, num_args = 0, default_missing_value = "true")
    )]
    pub no_conditional: Option<bool>,
    /// Close a WARC file when it reaches this size [default: 1GB].
    #[cfg_attr(feature = "cli", arg(long, value_name = "SIZE"))]
    pub max_file_bytes: Option<ByteSize>,
    /// gzip level of WARC records, 0 (fastest) to 9 (smallest) [default: 6].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub gzip_level: Option<u32>,
    /// Who runs the crawl: the operator field of every WARC file's warcinfo record.
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME", value_parser = non_empty))]
    pub operator: Option<String>,
    /// Keep the frontier, crawl log and URL state (and a monitor's schedule, observations and
    /// cycles) in this shared PostgreSQL database (postgres://user:password@host:port/db)
    /// instead of under the root: several nodes crawl together, each holding leases on the
    /// pay-level domains it fetches; monitors on several nodes share one schedule and take
    /// turns, one cycle at a time.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "POSTGRES-URL", value_parser = non_empty)
    )]
    pub state: Option<String>,
    /// This node's name, in every WARC file name and on its leases [default: the host name].
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub node: Option<String>,
    /// With --state: pay-level domain leases held at most at once; a node holds no more than
    /// its fair share (domains with queued URLs / live nodes) [default: --concurrency].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_plds: Option<usize>,
    /// With --state: how long a lease lasts unless renewed; a dead node's domains are taken
    /// over after this [default: 30s].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION", hide = true))]
    pub lease_ttl: Option<CrawlDuration>,
}

/// Every crawl option of `ldwarc crawl` and of the `[crawl]` table: the shared
/// [`FetchSettings`], and those of a crawl that follows links from seeds.
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CrawlSettings {
    /// The options `monitor` shares.
    #[cfg_attr(feature = "cli", command(flatten))]
    #[serde(skip)]
    pub fetch: FetchSettings,
    /// Follow links up to this many hops from the seeds [default: 2].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub hops: Option<u32>,
    /// With --state: how long --join waits for the crawl to appear [default: 60s].
    #[cfg_attr(feature = "cli", arg(long, value_name = "DURATION"))]
    pub join_wait: Option<CrawlDuration>,
    /// URLs the crawl keeps in its frontier at most, queued and fetched; new URLs beyond are
    /// dropped and counted in the crawl report [default: 1000000].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_frontier: Option<usize>,
    /// URLs of one pay-level domain the frontier keeps at most; new ones beyond are dropped
    /// and counted [default: 100000].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_frontier_per_pld: Option<usize>,
    /// New links taken from one document at most (in document order); the rest are dropped
    /// and counted [default: 10000].
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_links: Option<usize>,
    /// Seed URLs (on the command line: the positional arguments).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub seeds: Option<Vec<String>>,
}

/// An option whose value is out of its range: the option's name and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    /// The option (`concurrency`), as flag and key.
    pub name: &'static str,
    /// What is wrong, said after the name (`must be at least 1`).
    pub problem: String,
}

impl SettingError {
    fn new(name: &'static str, problem: impl Into<String>) -> Self {
        Self {
            name,
            problem: problem.into(),
        }
    }

    /// The error as a flag's: `--concurrency must be at least 1`.
    pub fn as_flag(&self) -> String {
        format!("--{} {}", self.name, self.problem)
    }

    /// The error as a key of the file at `path`: `…/ldwarc.toml: concurrency must be …`.
    pub fn in_file(&self, path: &Path) -> String {
        format!("{}: {} {}", path.display(), self.name, self.problem)
    }
}

/// The first of two values: the one put over the other.
macro_rules! over {
    ($top:ident, $base:ident; $($field:ident),* $(,)?) => {
        Self { $($field: $top.$field.or($base.$field)),* }
    };
}

impl FetchSettings {
    /// These settings with `top`'s put over them: each option `top` gives wins.
    pub fn overlay(self, top: Self) -> Self {
        over!(top, self;
            delay, concurrency, timeout, connect_timeout, max_crawl_delay, max_retry_after,
            user_agent, accept, accept_encoding, follow_predicate, proxy, resolve, ca_file,
            tls_roots, max_body, max_parse, max_decoded, max_redirects, no_conditional,
            max_file_bytes, gzip_level, operator, state, node, max_plds, lease_ttl)
    }

    /// Checks the values no parser bounds: counts of at least one, the gzip level, the node
    /// name.
    pub fn check(&self) -> Result<(), SettingError> {
        for (name, value) in [
            ("concurrency", self.concurrency),
            ("max-plds", self.max_plds),
        ] {
            if value == Some(0) {
                return Err(SettingError::new(name, "must be at least 1"));
            }
        }
        if self.gzip_level.is_some_and(|level| level > 9) {
            return Err(SettingError::new("gzip-level", "must be 0 to 9"));
        }
        if let Some(node) = &self.node {
            check_node_name(node).map_err(|e| SettingError::new("node", e))?;
        }
        Ok(())
    }

    /// The texts of durations given as bare numbers (a deprecated spelling of the flags).
    pub fn unitless_durations(&self) -> Vec<&str> {
        [
            &self.delay,
            &self.timeout,
            &self.connect_timeout,
            &self.max_crawl_delay,
            &self.max_retry_after,
            &self.lease_ttl,
        ]
        .into_iter()
        .filter_map(|d| d.as_ref().and_then(CrawlDuration::unitless))
        .collect()
    }

    /// Sets the options these settings give; the others keep their values.
    pub fn apply_to(self, options: &mut CrawlOptions) {
        let Self {
            delay,
            concurrency,
            timeout,
            connect_timeout,
            max_crawl_delay,
            max_retry_after,
            user_agent,
            accept,
            accept_encoding,
            follow_predicate,
            proxy,
            resolve,
            ca_file,
            tls_roots,
            max_body,
            max_parse,
            max_decoded,
            max_redirects,
            no_conditional,
            max_file_bytes,
            gzip_level,
            operator,
            state,
            node,
            max_plds,
            lease_ttl,
        } = self;
        let duration = |value: Option<CrawlDuration>, field: &mut Duration| {
            if let Some(value) = value {
                *field = value.get();
            }
        };
        duration(delay, &mut options.delay);
        // A whole fetch's limit also bounds connecting, unless that has its own.
        duration(timeout.clone(), &mut options.connect_timeout);
        duration(timeout, &mut options.timeout);
        duration(connect_timeout, &mut options.connect_timeout);
        duration(max_crawl_delay, &mut options.max_crawl_delay);
        duration(max_retry_after, &mut options.max_retry_after);
        duration(lease_ttl, &mut options.lease_ttl);
        set(concurrency, &mut options.concurrency);
        set(user_agent, &mut options.user_agent);
        set(accept, &mut options.accept);
        set(accept_encoding, &mut options.accept_encoding);
        set(follow_predicate, &mut options.follow_predicates);
        set(resolve, &mut options.resolve);
        set(ca_file, &mut options.ca_files);
        set(tls_roots, &mut options.tls_roots);
        set(max_body.map(|s| s.0), &mut options.max_body);
        set(max_parse.map(|s| usize_of(s.0)), &mut options.max_parse);
        set(max_decoded.map(|s| usize_of(s.0)), &mut options.max_decoded);
        set(max_redirects, &mut options.max_redirects);
        set(no_conditional.map(|no| !no), &mut options.conditional);
        set(max_file_bytes.map(|s| s.0), &mut options.max_file_bytes);
        set(gzip_level, &mut options.gzip_level);
        for (value, field) in [
            (proxy, &mut options.proxy),
            (operator, &mut options.operator),
            (state, &mut options.state),
            (node, &mut options.node),
        ] {
            if value.is_some() {
                *field = value;
            }
        }
        if max_plds.is_some() {
            options.max_plds = max_plds;
        }
    }

    /// Makes the CA file paths of `ldwarc.toml` relative to the archive root.
    fn resolve_paths(&mut self, root: &Path) {
        if let Some(files) = &mut self.ca_file {
            for file in files {
                *file = root.join(&*file);
            }
        }
    }
}

fn set<T>(value: Option<T>, field: &mut T) {
    if let Some(value) = value {
        *field = value;
    }
}

fn usize_of(bytes: u64) -> usize {
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// Keys of `ldwarc.toml` renamed to their flag's name: the old key still works, with a
/// deprecation note. `conditional = false` is now `no-conditional = true`.
const RENAMED_KEYS: [(&str, &str); 3] = [
    ("ca-files", "ca-file"),
    ("follow-predicates", "follow-predicate"),
    ("conditional", "no-conditional"),
];

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    crawl: Option<toml::Table>,
}

impl CrawlSettings {
    /// These settings with `top`'s put over them: each option `top` gives wins.
    pub fn overlay(self, top: Self) -> Self {
        Self {
            fetch: self.fetch.overlay(top.fetch),
            hops: top.hops.or(self.hops),
            join_wait: top.join_wait.or(self.join_wait),
            max_frontier: top.max_frontier.or(self.max_frontier),
            max_frontier_per_pld: top.max_frontier_per_pld.or(self.max_frontier_per_pld),
            max_links: top.max_links.or(self.max_links),
            seeds: top.seeds.or(self.seeds),
        }
    }

    /// Checks the values no parser bounds (see [`FetchSettings::check`]); a frontier must
    /// hold at least one URL (the seed).
    pub fn check(&self) -> Result<(), SettingError> {
        for (name, value) in [
            ("max-frontier", self.max_frontier),
            ("max-frontier-per-pld", self.max_frontier_per_pld),
        ] {
            if value == Some(0) {
                return Err(SettingError::new(name, "must be at least 1"));
            }
        }
        self.fetch.check()
    }

    /// The texts of durations given as bare numbers (a deprecated spelling of the flags).
    pub fn unitless_durations(&self) -> Vec<&str> {
        let mut texts = self.fetch.unitless_durations();
        texts.extend(self.join_wait.as_ref().and_then(CrawlDuration::unitless));
        texts
    }

    /// Sets the options these settings give; the others keep their values.
    pub fn apply_to(self, options: &mut CrawlOptions) {
        let Self {
            fetch,
            hops,
            join_wait,
            max_frontier,
            max_frontier_per_pld,
            max_links,
            seeds,
        } = self;
        fetch.apply_to(options);
        set(hops, &mut options.hops);
        set(join_wait.map(|d| d.get()), &mut options.join_wait);
        set(max_frontier, &mut options.max_frontier);
        set(max_frontier_per_pld, &mut options.max_frontier_per_pld);
        set(max_links, &mut options.max_links);
        set(seeds, &mut options.seeds);
    }

    /// Every key of the `[crawl]` table, which are the flags' names (and `seeds`).
    pub fn keys() -> Vec<&'static str> {
        let mut keys = field_names::<FetchSettings>().to_vec();
        keys.extend_from_slice(field_names::<CrawlSettings>());
        keys
    }

    /// Reads the `[crawl]` table of `<root>/ldwarc.toml` (nothing set when the file is
    /// absent). An error names the file and the key.
    pub fn load(root: &Path) -> Result<Self, String> {
        let path = root.join("ldwarc.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let file: ConfigFile = toml::from_str(&text).map_err(|e| {
            let line = e.span().map_or(1, |span| {
                1 + text.as_bytes()[..span.start.min(text.len())]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count()
            });
            format!("{}: line {line}: {}", path.display(), e.message())
        })?;
        let mut settings = Self::default();
        let mut seen = Vec::new();
        for (key, value) in file.crawl.unwrap_or_default() {
            let (key, value) = current_spelling(&path, key, value)?;
            if seen.contains(&key) {
                return Err(format!("{}: {key} is given twice", path.display()));
            }
            let one = Self::from_key(&key, value)
                .map_err(|e| format!("{}: {key}: {e}", path.display()))?;
            settings = settings.overlay(one);
            seen.push(key);
        }
        settings.fetch.resolve_paths(root);
        settings.check().map_err(|e| e.in_file(&path))?;
        Ok(settings)
    }

    /// The settings of one key of the table.
    fn from_key(key: &str, value: toml::Value) -> Result<Self, String> {
        let table = toml::Value::Table(toml::Table::from_iter([(key.to_string(), value)]));
        if field_names::<FetchSettings>().contains(&key) {
            let fetch = table
                .try_into()
                .map_err(|e: toml::de::Error| e.message().to_string())?;
            return Ok(Self {
                fetch,
                ..Self::default()
            });
        }
        if field_names::<CrawlSettings>().contains(&key) {
            return table
                .try_into()
                .map_err(|e: toml::de::Error| e.message().to_string());
        }
        Err(format!(
            "unknown key in [crawl] (known keys: {})",
            Self::keys().join(", ")
        ))
    }
}

/// A key under its current name, noting a renamed one as deprecated.
fn current_spelling(
    path: &Path,
    key: String,
    value: toml::Value,
) -> Result<(String, toml::Value), String> {
    let Some((old, new)) = RENAMED_KEYS.into_iter().find(|(old, _)| *old == key) else {
        return Ok((key, value));
    };
    tracing::warn!("deprecated: {}: the key {old} is now {new}", path.display());
    let value = match (new, value) {
        ("no-conditional", toml::Value::Boolean(conditional)) => toml::Value::Boolean(!conditional),
        ("no-conditional", _) => {
            return Err(format!("{}: {old}: not true or false", path.display()));
        }
        (_, value) => value,
    };
    Ok((new.to_string(), value))
}

/// The field names a derived `Deserialize` of a struct reads (its keys, `skip`ped fields
/// left out), as serde hands them to the deserializer.
fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Names<'a>(&'a mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only the field names were wanted"))
        }

        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut names));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_with(config: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ldwarc.toml"), config).unwrap();
        dir
    }

    fn resolved(dir: &Path, top: CrawlSettings) -> Result<CrawlOptions, String> {
        let mut options = CrawlOptions::new(dir);
        CrawlSettings::load(dir)?
            .overlay(top)
            .apply_to(&mut options);
        Ok(options)
    }

    #[test]
    fn the_config_file_sets_options_and_rejects_unknown_keys() {
        let dir = root_with(
            "[crawl]\nhops = 1\ndelay = 0.5\nmax-body = \"64MiB\"\nmax-file-bytes = 2000\n\
             resolve = [\"*.example=127.0.0.1:8080\"]\ntls-roots = \"system\"\n",
        );
        let options = resolved(dir.path(), CrawlSettings::default()).unwrap();
        assert_eq!(options.hops, 1);
        assert_eq!(options.delay, Duration::from_millis(500));
        assert_eq!(options.max_body, 64 * 1024 * 1024);
        assert_eq!(options.max_file_bytes, 2000);
        assert_eq!(options.resolve, vec!["*.example=127.0.0.1:8080"]);
        assert_eq!(options.tls_roots, TrustRoots::System);
        assert_eq!(options.concurrency, 64);
        assert_eq!(options.state, None);
        std::fs::write(dir.path().join("ldwarc.toml"), "[crawl]\nhopz = 1\n").unwrap();
        let error = CrawlSettings::load(dir.path()).unwrap_err();
        assert!(error.contains("ldwarc.toml: hopz: unknown key"), "{error}");
    }

    #[test]
    fn bad_values_in_the_file_name_the_file_and_the_key() {
        for (config, key, why) in [
            ("delay = \"5 parsecs\"", "delay", "unknown unit"),
            ("delay = -1", "delay", "not a non-negative number"),
            ("timeout = \"400d\"", "timeout", "365 days"),
            ("max-body = \"12XB\"", "max-body", "unknown size unit"),
            ("max-body = -3", "max-body", "not a size"),
            ("tls-roots = \"nope\"", "tls-roots", "nope"),
            ("concurrency = 0", "concurrency", "at least 1"),
            ("max-frontier = 0", "max-frontier", "at least 1"),
            (
                "max-frontier-per-pld = 0",
                "max-frontier-per-pld",
                "at least 1",
            ),
            ("gzip-level = 12", "gzip-level", "0 to 9"),
            ("node = \"a b\"", "node", "node name"),
            ("hops = \"two\"", "hops", "invalid type"),
            ("hops = 1\nhops = 2", "line 3", "duplicate key"),
        ] {
            let dir = root_with(&format!("[crawl]\n{config}\n"));
            let error = CrawlSettings::load(dir.path()).unwrap_err();
            assert!(
                error.contains("ldwarc.toml") && error.contains(key) && error.contains(why),
                "{config}: {error}"
            );
        }
    }

    #[test]
    fn flags_win_over_the_file_and_the_file_over_the_defaults() {
        let dir = root_with(
            "[crawl]\ndelay = \"5s\"\nhops = 3\ntimeout = 30\nuser-agent = \"file-agent\"\n\
             no-conditional = true\n",
        );
        let flags = CrawlSettings {
            fetch: FetchSettings {
                delay: Some(Duration::from_millis(250).into()),
                concurrency: Some(8),
                connect_timeout: Some(Duration::from_secs(4).into()),
                ..FetchSettings::default()
            },
            hops: Some(0),
            ..CrawlSettings::default()
        };
        let options = resolved(dir.path(), flags).unwrap();
        // Flags over the file.
        assert_eq!(options.delay, Duration::from_millis(250));
        assert_eq!(options.hops, 0);
        assert_eq!(options.connect_timeout, Duration::from_secs(4));
        // The file over the defaults.
        assert_eq!(options.timeout, Duration::from_secs(30));
        assert_eq!(options.user_agent, "file-agent");
        assert!(!options.conditional);
        // The defaults where neither says anything.
        let defaults = CrawlOptions::new(dir.path());
        assert_eq!(options.concurrency, 8);
        assert_eq!(options.max_body, defaults.max_body);
        assert_eq!(options.accept, defaults.accept);
        assert_eq!(options.max_redirects, defaults.max_redirects);
    }

    #[test]
    fn a_timeout_also_bounds_connecting_unless_that_is_set() {
        let dir = root_with("[crawl]\ntimeout = \"10s\"\n");
        let options = resolved(dir.path(), CrawlSettings::default()).unwrap();
        assert_eq!(options.connect_timeout, Duration::from_secs(10));
        std::fs::write(
            dir.path().join("ldwarc.toml"),
            "[crawl]\ntimeout = \"10s\"\nconnect-timeout = \"3s\"\n",
        )
        .unwrap();
        let options = resolved(dir.path(), CrawlSettings::default()).unwrap();
        assert_eq!(options.timeout, Duration::from_secs(10));
        assert_eq!(options.connect_timeout, Duration::from_secs(3));
    }

    #[test]
    fn renamed_keys_still_work() {
        let dir = root_with(
            "[crawl]\nca-files = [\"ca.pem\"]\nfollow-predicates = [\"http://p.example/\"]\n\
             conditional = false\n",
        );
        let options = resolved(dir.path(), CrawlSettings::default()).unwrap();
        assert_eq!(options.ca_files, vec![dir.path().join("ca.pem")]);
        assert_eq!(options.follow_predicates, vec!["http://p.example/"]);
        assert!(!options.conditional);
        std::fs::write(
            dir.path().join("ldwarc.toml"),
            "[crawl]\nca-files = [\"a.pem\"]\nca-file = [\"b.pem\"]\n",
        )
        .unwrap();
        let error = CrawlSettings::load(dir.path()).unwrap_err();
        assert!(error.contains("ca-file is given twice"), "{error}");
    }

    #[test]
    fn durations_and_sizes_read_as_flags_and_as_file_values() {
        let flag: CrawlDuration = "1m30s".parse().unwrap();
        assert_eq!(
            (flag.get(), flag.unitless()),
            (Duration::from_secs(90), None)
        );
        let bare: CrawlDuration = "1.5".parse().unwrap();
        assert_eq!(bare.get(), Duration::from_millis(1500));
        assert_eq!(bare.unitless(), Some("1.5"));
        for bad in ["-1", "-5s", "1e30", "1e30s", "400d", "NaN", "", "2 parsecs"] {
            assert!(bad.parse::<CrawlDuration>().is_err(), "{bad:?} accepted");
        }
        let size: ByteSize = "50MB".parse().unwrap();
        assert_eq!(size, ByteSize(50_000_000));
        let dir = root_with("[crawl]\ndelay = \"250ms\"\nmax-parse = \"1KiB\"\nmax-decoded = 7\n");
        let settings = CrawlSettings::load(dir.path()).unwrap();
        assert_eq!(
            settings.fetch.delay.as_ref().map(CrawlDuration::get),
            Some(Duration::from_millis(250))
        );
        assert_eq!(settings.fetch.max_parse, Some(ByteSize(1024)));
        assert_eq!(settings.fetch.max_decoded, Some(ByteSize(7)));
        assert!(settings.unitless_durations().is_empty());
    }

    /// A value of each key for a file that sets them all.
    fn sample(key: &str) -> &'static str {
        match key {
            "delay" | "timeout" | "connect-timeout" | "max-crawl-delay" | "max-retry-after"
            | "lease-ttl" | "join-wait" => "\"90s\"",
            "concurrency"
            | "max-plds"
            | "max-redirects"
            | "hops"
            | "gzip-level"
            | "max-frontier"
            | "max-frontier-per-pld"
            | "max-links" => "3",
            "max-body" | "max-parse" | "max-decoded" | "max-file-bytes" => "\"2KiB\"",
            "follow-predicate" | "resolve" | "ca-file" | "seeds" => "[\"x.example\"]",
            "tls-roots" => "\"system\"",
            "no-conditional" => "true",
            "user-agent" | "accept" | "accept-encoding" | "proxy" | "operator" | "state"
            | "node" => "\"n1\"",
            other => panic!("no sample value for the key {other}: add one here"),
        }
    }

    #[test]
    fn every_key_is_read_and_set() {
        let keys = CrawlSettings::keys();
        let mut config = String::from("[crawl]\n");
        for key in &keys {
            config.push_str(&format!("{key} = {}\n", sample(key)));
        }
        let dir = root_with(&config);
        let settings = CrawlSettings::load(dir.path()).unwrap();
        // Every key reached its field: no field is left unset.
        let debug = format!("{settings:?}").replace("unitless: None", "");
        assert!(!debug.contains("None"), "a key set nothing: {debug}");
        assert_eq!(keys.len(), 32, "{keys:?}");
    }

    #[cfg(feature = "cli")]
    mod cli {
        use super::*;
        use clap::{Args, Parser};

        #[derive(Parser)]
        struct Line {
            #[command(flatten)]
            settings: CrawlSettings,
        }

        #[test]
        fn the_flags_and_the_file_keys_are_the_same_names() {
            let command = CrawlSettings::augment_args(clap::Command::new("crawl"));
            let mut flags: Vec<&str> = command
                .get_arguments()
                .filter_map(|arg| arg.get_long())
                .collect();
            // Seeds are the command's positional arguments.
            flags.push("seeds");
            flags.sort_unstable();
            let mut keys = CrawlSettings::keys();
            keys.sort_unstable();
            assert_eq!(flags, keys);
            let monitor = FetchSettings::augment_args(clap::Command::new("monitor"));
            let mut shared: Vec<&str> = monitor
                .get_arguments()
                .filter_map(|arg| arg.get_long())
                .collect();
            shared.sort_unstable();
            let mut fetch_keys = field_names::<FetchSettings>().to_vec();
            fetch_keys.sort_unstable();
            assert_eq!(shared, fetch_keys);
        }

        #[test]
        fn parsed_flags_win_over_the_file() {
            let dir = root_with("[crawl]\ndelay = \"5s\"\nmax-body = 100\nhops = 4\n");
            let line = Line::try_parse_from([
                "crawl",
                "--delay",
                "3",
                "--max-body",
                "1KB",
                "--no-conditional",
                "--resolve",
                "a.example=127.0.0.1",
                "--resolve",
                "b.example=127.0.0.1",
            ])
            .unwrap();
            assert_eq!(line.settings.unitless_durations(), vec!["3"]);
            let options = resolved(dir.path(), line.settings).unwrap();
            assert_eq!(options.delay, Duration::from_secs(3));
            assert_eq!(options.max_body, 1000);
            assert_eq!(options.hops, 4);
            assert!(!options.conditional);
            assert_eq!(options.resolve.len(), 2);
            let unset = Line::try_parse_from(["crawl"]).unwrap();
            assert_eq!(unset.settings, CrawlSettings::default());
            for bad in [
                ["crawl", "--delay", "1e30s"],
                ["crawl", "--max-body", "12XB"],
                ["crawl", "--user-agent", ""],
            ] {
                assert!(Line::try_parse_from(bad).is_err(), "{bad:?} accepted");
            }
        }
    }
}
