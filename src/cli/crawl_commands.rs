//! `ldwarc crawl`: flags, the config file, progress on a terminal, and the summary.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{flags, output};
use ldwarc_crawl::failures::FailureReport;
use ldwarc_crawl::{
    CrawlConfig, CrawlOptions, CrawlProgress, CrawlSummary, JoinCrawl, check_node_name, crawl,
};

/// How the crawler fetches: the flags `crawl` and `monitor` share.
#[derive(Debug, Args)]
pub(super) struct FetchArgs {
    /// Minimum time between two requests to one pay-level domain [default: 2s].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration)]
    delay: Option<Duration>,
    /// Requests in flight at most, one per pay-level domain [default: 64].
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Time allowed for a whole fetch; connecting has the same limit [default: 120s].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration)]
    timeout: Option<Duration>,
    /// User-Agent, with a contact URL or address for real crawls.
    #[arg(long, value_name = "UA", value_parser = flags::non_empty)]
    user_agent: Option<String>,
    /// Follow only objects of this predicate (repeatable; default: every IRI is a link).
    #[arg(long = "follow-predicate", value_name = "IRI", value_parser = flags::non_empty)]
    follow_predicates: Vec<String>,
    /// HTTP(S) proxy for all requests (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
    #[arg(long, value_name = "URL", value_parser = flags::non_empty)]
    proxy: Option<String>,
    /// Connect to ADDR (IP or IP:PORT) for HOST; HOST may be *.domain (repeatable).
    #[arg(long, value_name = "HOST=ADDR", value_parser = flags::non_empty)]
    resolve: Vec<String>,
    /// Also trust the CA certificates in this PEM file for HTTPS (repeatable).
    #[arg(long = "ca-file", value_name = "FILE", value_parser = super::flags::existing_file())]
    ca_files: Vec<PathBuf>,
    /// Base set of trusted CAs: the bundled Mozilla roots (plus SSL_CERT_FILE and
    /// SSL_CERT_DIR when set) or the operating system's store [default: bundled].
    #[arg(long, value_name = "bundled|system")]
    tls_roots: Option<ldwarc_crawl::http::TrustRoots>,
}

impl FetchArgs {
    /// Sets the options these flags give; the others keep their configured values.
    pub(super) fn apply(&self, options: &mut CrawlOptions) -> Result<(), String> {
        if let Some(delay) = self.delay {
            options.delay = delay;
        }
        if let Some(concurrency) = self.concurrency {
            if concurrency == 0 {
                return Err("--concurrency must be at least 1".into());
            }
            options.concurrency = concurrency;
        }
        if let Some(timeout) = self.timeout {
            options.timeout = timeout;
            options.connect_timeout = timeout;
        }
        if let Some(agent) = &self.user_agent {
            options.user_agent = agent.clone();
        }
        if !self.follow_predicates.is_empty() {
            options.follow_predicates = self.follow_predicates.clone();
        }
        if self.proxy.is_some() {
            options.proxy = self.proxy.clone();
        }
        if !self.resolve.is_empty() {
            options.resolve = self.resolve.clone();
        }
        if !self.ca_files.is_empty() {
            options.ca_files = self.ca_files.clone();
        }
        if let Some(roots) = self.tls_roots {
            options.tls_roots = roots;
        }
        Ok(())
    }
}

/// Arguments of `ldwarc crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    #[command(flatten)]
    root: super::RootArg,
    /// Seed URLs, or @FILE with one URL per line (# starts a comment; @- reads stdin).
    #[arg(value_name = "SEED-URL | @FILE", value_parser = super::flags::non_empty)]
    seeds: Vec<String>,
    #[command(flatten)]
    fetch: FetchArgs,
    /// Follow links up to this many hops from the seeds [default: 2].
    #[arg(long, value_name = "N")]
    hops: Option<u32>,
    /// Largest robots.txt Crawl-delay honoured [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration)]
    max_crawl_delay: Option<Duration>,
    /// Longest wait honoured from a 429/503 answer's Retry-After [default: 1h].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration)]
    max_retry_after: Option<Duration>,
    /// Longest body archived; longer bodies are cut and marked WARC-Truncated [default: 50MB].
    #[arg(long, value_name = "SIZE", value_parser = flags::size)]
    max_body: Option<u64>,
    /// Accept header [default: the six RDF syntaxes, q-weighted].
    #[arg(long, value_name = "ACCEPT", value_parser = flags::non_empty)]
    accept: Option<String>,
    /// Continue the last interrupted crawl where it stopped.
    #[arg(long)]
    resume: bool,
    /// Do not send If-None-Match / If-Modified-Since from earlier captures.
    #[arg(long)]
    no_conditional: bool,
    /// Keep the frontier, crawl log and URL state in this shared PostgreSQL database
    /// (postgres://user:password@host:port/db) instead of under the root: several nodes
    /// crawl together, each holding leases on the pay-level domains it fetches.
    #[arg(long, value_name = "POSTGRES-URL", value_parser = flags::non_empty)]
    state: Option<String>,
    /// This node's name, in every WARC file name and on its leases [default: the host name].
    #[arg(long, value_name = "NAME")]
    node: Option<String>,
    /// With --state: work on the latest unfinished crawl instead of starting one.
    #[arg(long, conflicts_with = "crawl_id")]
    join: bool,
    /// With --state: work on this crawl.
    #[arg(long, value_name = "ID")]
    crawl_id: Option<i64>,
    /// With --state: how long --join waits for the crawl to appear [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration)]
    join_wait: Option<Duration>,
    /// With --state: start a new crawl even while another one is running in the database.
    #[arg(long)]
    force: bool,
    /// With --state: pay-level domain leases held at most at once; a node holds no more than
    /// its fair share (domains with queued URLs / live nodes) [default: --concurrency].
    #[arg(long, value_name = "N")]
    max_plds: Option<usize>,
    /// With --state: how long a lease lasts unless renewed; a dead node's domains are taken
    /// over after this [default: 30].
    #[arg(long, value_name = "DURATION", value_parser = flags::crawl_duration, hide = true)]
    lease_ttl: Option<Duration>,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// Runs `ldwarc crawl`.
pub fn crawl_command(args: CrawlArgs) -> io::Result<i32> {
    let options = options_from(args.root.root.clone(), &args).map_err(io::Error::other)?;
    let bar = output::spinner("crawl");
    let shown = bar.clone();
    let result = crawl(options, &move |progress: &CrawlProgress| {
        shown.set_message(describe(progress));
    });
    bar.finish_and_clear();
    let summary = result.map_err(io::Error::other)?;
    print_summary(&summary, args.output.is_json())?;
    print_failures(&summary.failures);
    if summary.failures.no_seed_fetched() {
        eprintln!("ldwarc: no seed could be fetched");
        return Ok(1);
    }
    Ok(0)
}

fn options_from(root: PathBuf, args: &CrawlArgs) -> Result<CrawlOptions, String> {
    let mut options = CrawlOptions::new(&root);
    CrawlConfig::load(&root)?.apply(&mut options)?;
    if !args.seeds.is_empty() {
        options.seeds = read_seeds(&args.seeds)?;
    }
    if let Some(hops) = args.hops {
        options.hops = hops;
    }
    args.fetch.apply(&mut options)?;
    if let Some(delay) = args.max_crawl_delay {
        options.max_crawl_delay = delay;
    }
    if let Some(wait) = args.max_retry_after {
        options.max_retry_after = wait;
    }
    if let Some(max_body) = args.max_body {
        options.max_body = max_body;
    }
    if let Some(accept) = &args.accept {
        options.accept = accept.clone();
    }
    options.resume = args.resume;
    shared_options(args, &mut options)?;
    if args.no_conditional {
        options.conditional = false;
    }
    Ok(options)
}

/// The flags of a crawl over a shared PostgreSQL store.
fn shared_options(args: &CrawlArgs, options: &mut CrawlOptions) -> Result<(), String> {
    if args.state.is_some() {
        options.state = args.state.clone();
    }
    if let Some(node) = &args.node {
        check_node_name(node)?;
        options.node = Some(node.clone());
    }
    if let Some(ttl) = args.lease_ttl {
        options.lease_ttl = ttl;
    }
    if let Some(max) = args.max_plds {
        if max == 0 {
            return Err("--max-plds must be at least 1".into());
        }
        options.max_plds = Some(max);
    }
    if let Some(wait) = args.join_wait {
        options.join_wait = wait;
    }
    options.force_new = args.force;
    options.join = match (args.join, args.crawl_id) {
        (_, Some(id)) => JoinCrawl::Id(id),
        (true, None) => JoinCrawl::Latest,
        (false, None) => JoinCrawl::New,
    };
    if options.state.is_none() && options.join != JoinCrawl::New {
        return Err("--join and --crawl-id need --state postgres://…".into());
    }
    options.check_lease_ttl()
}

/// Seeds from the command line: URLs, and `@FILE` lists.
pub(super) fn read_seeds(arguments: &[String]) -> Result<Vec<String>, String> {
    let mut seeds = Vec::new();
    for argument in arguments {
        match argument.strip_prefix('@') {
            Some(path) => seeds.extend(read_seed_file(std::path::Path::new(path))?),
            None => seeds.push(argument.clone()),
        }
    }
    Ok(seeds)
}

/// The URLs of a seed file (`-`: standard input): one per line, blank lines and `#` comments
/// skipped.
pub(super) fn read_seed_file(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = flags::read_input_text(path).map_err(|e| e.to_string())?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

fn describe(progress: &CrawlProgress) -> String {
    let archived = &progress.archived;
    format!(
        "round {} · {} documents ({} unchanged) · PLDs: {} fetching, {} waiting · {} queued · {} · {:.1} docs/s · {} failed, {} excluded",
        progress.round,
        archived.captures,
        archived.revisits,
        progress.in_flight,
        progress.active_plds.saturating_sub(progress.in_flight),
        progress.queued.0 + progress.queued.1,
        human_bytes(archived.payload_bytes),
        archived.captures as f64 / progress.seconds.max(1e-9),
        archived.failed,
        archived.excluded,
    )
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// One line per listed failed fetch on stderr, then how many more there were.
pub(super) fn print_failures(failures: &FailureReport) {
    for failed in &failures.listed {
        eprintln!(
            "ldwarc: failed ({}): {} {}: {}",
            failed.cause, failed.kind, failed.url, failed.error
        );
    }
    let unlisted = failures
        .total()
        .saturating_sub(failures.listed.len() as u64);
    if unlisted > 0 {
        eprintln!("ldwarc: … and {unlisted} more failed fetches (see the crawl log)");
    }
}

/// `3 failed (2 tls, 1 dns)`, or `0 failed`.
fn failed_by_cause(failures: &FailureReport) -> String {
    if failures.by_cause.is_empty() {
        return "0 failed".into();
    }
    let causes: Vec<String> = failures
        .by_cause
        .iter()
        .map(|(cause, count)| format!("{count} {cause}"))
        .collect();
    format!("{} failed ({})", failures.total(), causes.join(", "))
}

fn print_summary(summary: &CrawlSummary, json: bool) -> io::Result<()> {
    if json {
        let mut out = output::stdout();
        serde_json::to_writer(&mut out, summary)?;
        writeln!(out)?;
        return out.flush();
    }
    eprintln!(
        "ldwarc: crawl {}{} done in {:.1} s: {} requests, {} captures ({} revisits), {}, {} excluded by robots.txt, {} received, {} written, {} rounds",
        summary.crawl,
        if summary.resumed { " (resumed)" } else { "" },
        summary.seconds,
        summary.requests,
        summary.captures,
        summary.revisits,
        failed_by_cause(&summary.failures),
        summary.excluded,
        human_bytes(summary.payload_bytes),
        human_bytes(summary.warc_bytes),
        summary.rounds + 1,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_files_skip_comments_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("seeds.txt");
        std::fs::write(
            &file,
            "# seeds\nhttp://a.example/\n\n  http://b.example/x  \n",
        )
        .unwrap();
        let seeds =
            read_seeds(&["http://c.example/".into(), format!("@{}", file.display())]).unwrap();
        assert_eq!(
            seeds,
            vec![
                "http://c.example/",
                "http://a.example/",
                "http://b.example/x"
            ]
        );
    }
}
