//! `ldwarc crawl`: flags, the config file, progress on a terminal, and the summary.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::{flags, output};
use ldwarc_crawl::failures::FailureReport;
use ldwarc_crawl::{CrawlOptions, CrawlProgress, CrawlSettings, CrawlSummary, JoinCrawl, crawl};

/// Arguments of `ldwarc crawl`: the crawl settings (also the keys of `[crawl]` in
/// ldwarc.toml) and the flags of one run.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    #[command(flatten)]
    root: super::RootArg,
    /// Seed URLs, or @FILE with one URL per line (# starts a comment; @- reads stdin).
    #[arg(value_name = "SEED-URL | @FILE", value_parser = super::flags::non_empty)]
    seeds: Vec<String>,
    #[command(flatten)]
    settings: CrawlSettings,
    /// Continue the last interrupted crawl where it stopped.
    #[arg(long)]
    resume: bool,
    /// With --state: work on the latest unfinished crawl instead of starting one.
    #[arg(long, conflicts_with = "crawl_id")]
    join: bool,
    /// With --state: work on this crawl.
    #[arg(long, value_name = "ID")]
    crawl_id: Option<i64>,
    /// With --state: start a new crawl even while another one is running in the database.
    #[arg(long)]
    force: bool,
    /// Leave the versioned triple index as it is at the end (by default the crawl brings it
    /// up to date with the captures it made).
    #[arg(long)]
    no_triples: bool,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// Runs `ldwarc crawl`.
pub fn crawl_command(args: CrawlArgs) -> io::Result<i32> {
    let options = options_from(args.root.root.clone(), &args).map_err(io::Error::other)?;
    if !options.resume && options.join == JoinCrawl::New {
        require_usable_seed(&options.seeds)?;
    }
    let bar = output::spinner("crawl");
    let shown = bar.clone();
    let result = crawl(options, &move |progress: &CrawlProgress| {
        shown.set_message(describe(progress));
    });
    bar.finish_and_clear();
    let summary = result.map_err(io::Error::other)?;
    let triples_ok = args.no_triples || super::when_command::follow_captures(&args.root.root);
    print_summary(&summary, args.output.is_json())?;
    print_failures(&summary.failures);
    if summary.failures.no_seed_fetched() {
        tracing::error!(target: super::logging::NOTICE_TARGET, "no seed could be fetched");
        return Ok(1);
    }
    Ok(if triples_ok { 0 } else { 1 })
}

/// Refuses a new crawl none of whose seeds can be fetched (no http(s) URL among them), before
/// anything is created: `example.org` without a scheme would otherwise start a crawl of
/// nothing. Unusable seeds beside a usable one are skipped with a warning by the crawl.
fn require_usable_seed(seeds: &[String]) -> io::Result<()> {
    if seeds
        .iter()
        .any(|seed| ldwarc_crawl::normalize(seed).is_some())
    {
        return Ok(());
    }
    let message = match seeds {
        [] => "no seed URLs given (pass URLs, @FILE, or seeds in ldwarc.toml)".to_string(),
        [seed, ..] => {
            let hint = if seed.contains("://") {
                String::new()
            } else {
                format!(" (write http://{seed} or https://{seed})")
            };
            let which = match seeds.len() {
                1 => String::new(),
                count => format!(" none of the {count} seeds is an http(s) URL; the first,"),
            };
            format!("no usable seed:{which} {seed:?} is not an http(s) URL{hint}")
        }
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, message))
}

fn options_from(root: PathBuf, args: &CrawlArgs) -> Result<CrawlOptions, String> {
    check_flags(args.settings.check(), &args.settings.unitless_durations())?;
    let mut flags = args.settings.clone();
    if !args.seeds.is_empty() {
        flags.seeds = Some(read_seeds(&args.seeds)?);
    }
    let mut options = CrawlOptions::new(&root);
    CrawlSettings::load(&root)?
        .overlay(flags)
        .apply_to(&mut options);
    options.resume = args.resume;
    options.force_new = args.force;
    options.join = match (args.join, args.crawl_id) {
        (_, Some(id)) => JoinCrawl::Id(id),
        (true, None) => JoinCrawl::Latest,
        (false, None) => JoinCrawl::New,
    };
    if options.state.is_none() && options.join != JoinCrawl::New {
        return Err("--join and --crawl-id need --state postgres://…".into());
    }
    options.check_lease_ttl()?;
    Ok(options)
}

/// Refuses settings of the command line out of range, naming the flag, and notes each
/// duration written without a unit.
pub(super) fn check_flags(
    checked: Result<(), ldwarc_crawl::SettingError>,
    unitless: &[&str],
) -> Result<(), String> {
    checked.map_err(|e| e.as_flag())?;
    for text in unitless {
        flags::deprecated(&flags::bare_duration_note(text, "seconds"));
    }
    Ok(())
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
        tracing::warn!(
            target: super::logging::NOTICE_TARGET, "failed ({}): {} {}: {}",
            failed.cause, failed.kind, failed.url, failed.error
        );
    }
    let unlisted = failures
        .total()
        .saturating_sub(failures.listed.len() as u64);
    if unlisted > 0 {
        tracing::warn!(target: super::logging::NOTICE_TARGET, "… and {unlisted} more failed fetches (see the crawl log)");
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
    tracing::info!(
        target: super::logging::NOTICE_TARGET, "crawl {}{} done in {:.1} s: {}, {} ({}), {}, {} excluded by robots.txt, {} received, {} written, {}",
        summary.crawl,
        if summary.resumed { " (resumed)" } else { "" },
        summary.seconds,
        output::count(summary.requests, "request"),
        output::count(summary.captures, "capture"),
        output::count(summary.revisits, "revisit"),
        failed_by_cause(&summary.failures),
        summary.excluded,
        human_bytes(summary.payload_bytes),
        human_bytes(summary.warc_bytes),
        output::count(summary.rounds + 1, "round"),
    );
    let dropped = &summary.dropped;
    if dropped.total() > 0 {
        tracing::info!(
            target: super::logging::NOTICE_TARGET, "{} URLs left out of the frontier: {} over --max-links, {} over \
             --max-frontier-per-pld, {} over --max-frontier",
            dropped.total(),
            dropped.over_max_links,
            dropped.over_max_frontier_per_pld,
            dropped.over_max_frontier
        );
    }
    Ok(())
}

/// `ldwarc crawl`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const CRAWL_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc crawl --root /data/ld http://dbpedia.org/resource/Berlin",
            "crawl two hops from a seed",
        ),
        (
            "ldwarc crawl --hops 0 --delay 5s @seeds.txt",
            "fetch only the seeds, one request per domain every 5 s",
        ),
        (
            "ldwarc crawl --resume",
            "continue a crawl that was interrupted",
        ),
        (
            "ldwarc crawl --state postgres://db/ld --node n1 @seeds.txt",
            "one node of a shared crawl",
        ),
    ],
    exit_status: &[
        (
            "1",
            "no seed could be fetched (each failure is listed on stderr; the crawl log has them)",
        ),
        (
            "2",
            "bad arguments or input, or no usable seed (none is an http(s) URL): nothing is \
             created",
        ),
    ],
    environment: super::help::NETWORK_ENVIRONMENT,
    files: super::help::CRAWL_FILES,
};

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
