//! `ldwarc monitor`: flags, then one cycle (`--once`) or the loop, printing each cycle's
//! summary (and crawl-time estimate against actual) on stderr, or as JSON on stdout, and the
//! recall and precision against `--truth`. With `--state postgres://…` the schedule is shared
//! by the monitors of several nodes (`--node`), whose cycles take turns.

use std::io::{self, BufReader, Write};
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::Args;

use super::logging::NOTICE_TARGET;
use super::{flags, output};
use ldwarc_crawl::monitor::{
    CycleReport, MonitorEvent, MonitorOptions, TruthScore, run_cycle, run_loop, score_truth,
};
use ldwarc_crawl::{CrawlOptions, CrawlSettings, FetchSettings};
use ldwarc_dynamics::schedule::{ChangeHistory, Policy, Strategy, read_histories};

/// Arguments of `ldwarc monitor`.
#[derive(Debug, Args)]
pub struct MonitorArgs {
    #[command(flatten)]
    root: super::RootArg,
    /// Kernel URLs to add (stored in the state store once and kept), or @FILE (@- reads stdin).
    #[arg(value_name = "SEED-URL | @FILE", value_parser = super::flags::non_empty)]
    seeds: Vec<String>,
    /// Also add the kernel URLs in FILE (one per line, # starts a comment; - reads stdin).
    #[arg(long = "seeds", value_name = "FILE", value_parser = super::flags::existing_file_or_stdin())]
    seeds_file: Option<PathBuf>,
    /// Run one cycle and exit (for cron); otherwise run a cycle every --every.
    #[arg(long)]
    once: bool,
    /// Re-crawl strategy: fix, dyn, window, state-1, state-2, week, freshness, dyldo (the
    /// week (--initial-interval) divided by 1, 2, 4, 8 or 16; --min/--max-interval do not apply).
    #[arg(long, default_value = "dyn", value_name = "S", value_parser = parse_strategy)]
    strategy: Strategy,
    /// Downloads per cycle at most; the freshness strategy shares this budget out.
    #[arg(long, value_name = "N")]
    budget: Option<usize>,
    /// The segment: documents within N links of the kernel (0: the kernel only).
    #[arg(long, default_value_t = 2, value_name = "N")]
    hops: u32,
    /// Time between cycles (30m, 1h, 1d).
    #[arg(long, default_value = "1h", value_name = "DURATION", value_parser = parse_every)]
    every: f64,
    /// Shortest re-crawl interval.
    #[arg(long, default_value = "1d", value_name = "DURATION", value_parser = flags::duration_days)]
    min_interval: f64,
    /// Longest re-crawl interval.
    #[arg(long, default_value = "180d", value_name = "DURATION", value_parser = flags::duration_days)]
    max_interval: f64,
    /// Interval of a URL not seen before, and the week strategy's.
    #[arg(long, default_value = "7d", value_name = "DURATION", value_parser = flags::duration_days)]
    initial_interval: f64,
    /// Ground truth: per URL its change times (the simulate --histories format); prints
    /// recall and precision after each cycle; - reads stdin.
    #[arg(long, value_name = "FILE", value_parser = super::flags::existing_file_or_stdin())]
    truth: Option<PathBuf>,
    #[command(flatten)]
    output: super::flags::TextFormat,
    #[command(flatten)]
    fetch: FetchSettings,
    /// Leave the versioned triple index as it is after each cycle (by default each cycle
    /// brings it up to date with the captures it made).
    #[arg(long)]
    no_triples: bool,
    /// Fix the cycle's clock (RFC 3339, UTC), for tests and replays.
    #[arg(long, hide = true, value_name = "RFC3339", requires = "once", value_parser = parse_now)]
    now: Option<DateTime<Utc>>,
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    let strategy: Strategy = text
        .parse()
        .map_err(|e: ldwarc_dynamics::schedule::ScheduleError| e.to_string())?;
    if strategy == Strategy::Gold {
        return Err("gold needs the true change rates: it is for `ldwarc simulate` only".into());
    }
    Ok(strategy)
}

fn parse_every(text: &str) -> Result<f64, String> {
    let seconds = flags::seconds_f64(text)?;
    if seconds > 0.0 {
        Ok(seconds)
    } else {
        Err(format!("{text}: must be longer than zero"))
    }
}

fn parse_now(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| format!("{text}: not an RFC 3339 time ({e})"))
}

/// Runs `ldwarc monitor`.
pub fn monitor(args: MonitorArgs) -> io::Result<i32> {
    let options = monitor_options(&args).map_err(io::Error::other)?;
    let truth = args.truth.as_deref().map(load_truth).transpose()?;
    let json = args.output.is_json();
    if args.once {
        let report = run_cycle(&options).map_err(io::Error::other)?;
        let triples_ok = args.no_triples || super::when_command::follow_captures(&args.root.root);
        print_cycle(&report, json)?;
        if let Some(truth) = &truth {
            print_truth(&options, truth, options.now.unwrap_or_else(Utc::now), json)?;
        }
        return Ok(if triples_ok { 0 } else { 1 });
    }
    let mut failure: Option<io::Error> = None;
    let result = run_loop(&options, &mut |event| {
        let printed = match event {
            MonitorEvent::Cycle(report) => {
                if !args.no_triples {
                    super::when_command::follow_captures(&args.root.root);
                }
                print_cycle(report, json).and_then(|()| match &truth {
                    Some(truth) => print_truth(&options, truth, Utc::now(), json),
                    None => Ok(()),
                })
            }
            MonitorEvent::Failed(error) => {
                tracing::error!(%error, "monitor cycle failed: {error}");
                Ok(())
            }
            MonitorEvent::Sleeping(until) => {
                let at = until.format("%Y-%m-%dT%H:%M:%SZ");
                tracing::info!(target: NOTICE_TARGET, next_cycle = %at, "next monitor cycle at {at}");
                Ok(())
            }
        };
        if let Err(error) = printed {
            failure.get_or_insert(error);
        }
    });
    result.map_err(io::Error::other)?;
    failure.map_or(Ok(0), Err)
}

fn monitor_options(args: &MonitorArgs) -> Result<MonitorOptions, String> {
    let root = args.root.root.clone();
    super::crawl_commands::check_flags(args.fetch.check(), &args.fetch.unitless_durations())?;
    let mut crawl = CrawlOptions::new(&root);
    // The file's crawl-only keys (hops, join-wait, seeds) are not the monitor's: it has its
    // own segment hops and kernel.
    CrawlSettings::load(&root)?
        .fetch
        .overlay(args.fetch.clone())
        .apply_to(&mut crawl);
    crawl.check_lease_ttl()?;
    let mut kernel = super::crawl_commands::read_seeds(&args.seeds)?;
    if let Some(file) = &args.seeds_file {
        kernel.extend(super::crawl_commands::read_seed_file(file)?);
    }
    // Refused here, before the cycle opens (and creates) the root and its state.
    if let Some(bad) = kernel
        .iter()
        .find(|seed| ldwarc_crawl::normalize(seed).is_none())
    {
        return Err(format!("seed {bad}: not an http(s) URL"));
    }
    let policy = Policy {
        min_interval: args.min_interval,
        max_interval: args.max_interval,
        initial_interval: args.initial_interval,
        fixed_interval: args.initial_interval,
        ..Policy::new(args.strategy)
    };
    policy.validate().map_err(|e| e.to_string())?;
    Ok(MonitorOptions {
        crawl,
        kernel,
        policy,
        budget: args.budget,
        hops: args.hops,
        every: args.every,
        now: args.now,
    })
}

fn load_truth(path: &std::path::Path) -> io::Result<Vec<ChangeHistory>> {
    let name = path.display().to_string();
    let bytes = flags::read_input(path)?;
    read_histories(BufReader::new(bytes.as_slice()), &name)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

fn print_cycle(report: &CycleReport, json: bool) -> io::Result<()> {
    for error in report.urls.iter().filter_map(|u| u.error.as_deref()) {
        tracing::warn!(%error, "monitor: download not read back, tried again later: {error}");
    }
    super::crawl_commands::print_failures(&report.failures);
    if json {
        let mut out = output::stdout();
        serde_json::to_writer(&mut out, report)?;
        writeln!(out)?;
        return out.flush();
    }
    let error = report
        .estimate_error
        .map(|e| format!(" ({:+.1} %)", 100.0 * e))
        .unwrap_or_default();
    tracing::info!(
        target: NOTICE_TARGET,
        cycle = report.cycle,
        "monitor cycle {} at {} ({}): {} due, {} fetched, {} changed ({} with new bytes); kernel {}, segment {} (+{} −{}); crawl time estimate {:.2} s, actual {:.2} s{error}",
        report.cycle,
        report.clock,
        report.strategy,
        report.due,
        report.fetched,
        report.changed,
        report.byte_changed,
        report.kernel,
        report.segment,
        report.joined,
        report.left,
        report.estimate.estimate,
        report.actual_s,
    );
    Ok(())
}

fn print_truth(
    options: &MonitorOptions,
    truth: &[ChangeHistory],
    now: DateTime<Utc>,
    json: bool,
) -> io::Result<()> {
    let scores = score_truth(options, truth, now).map_err(io::Error::other)?;
    let mut out = output::stdout();
    if json {
        for score in &scores {
            serde_json::to_writer(&mut out, &serde_json::json!({ "truth": score }))?;
            writeln!(out)?;
        }
        return out.flush();
    }
    writeln!(
        out,
        "{:<48} {:>7} {:>9} {:>8} {:>6} {:>9}",
        "url", "changes", "downloads", "detected", "recall", "precision"
    )?;
    for score in &scores {
        write_score(&mut out, score)?;
    }
    out.flush()
}

fn write_score(out: &mut impl Write, score: &TruthScore) -> io::Result<()> {
    let ratio = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.3}"));
    writeln!(
        out,
        "{:<48} {:>7} {:>9} {:>8} {:>6} {:>9}",
        score.url,
        score.changes,
        score.downloads,
        score.detected,
        ratio(score.recall),
        ratio(score.precision)
    )
}

/// `ldwarc monitor`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const MONITOR_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        ("ldwarc monitor --once @kernel.txt", "one cycle (for cron)"),
        (
            "ldwarc monitor --every 1d --strategy dyn @kernel.txt",
            "the observatory loop, daily",
        ),
        (
            "ldwarc monitor --every 1h --strategy dyldo @kernel.txt",
            "a weekly snapshot, up to 16 a week for documents that keep changing",
        ),
    ],
    exit_status: &[],
    environment: super::help::NETWORK_ENVIRONMENT,
    files: super::help::CRAWL_FILES,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_strategies_parse() {
        assert_eq!(parse_every("1h").unwrap(), 3600.0);
        assert_eq!(parse_every("90s").unwrap(), 90.0);
        assert!(parse_every("0s").is_err());
        assert_eq!(
            flags::duration_days("2d").unwrap(),
            2.0 * ldwarc_dynamics::duration::DAY
        );
        assert_eq!(parse_strategy("state-2").unwrap(), Strategy::State2);
        assert!(parse_strategy("gold").unwrap_err().contains("simulate"));
        assert!(parse_now("2026-01-02T00:00:00Z").is_ok());
        assert!(parse_now("yesterday").is_err());
    }

    #[derive(clap::Parser)]
    struct Line {
        #[command(flatten)]
        args: MonitorArgs,
    }

    fn options(flags: &[&str]) -> Result<MonitorOptions, String> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        let mut line = vec!["monitor", "--root", &root, "http://a.example/"];
        line.extend_from_slice(flags);
        let parsed = <Line as clap::Parser>::try_parse_from(line).map_err(|e| e.to_string())?;
        monitor_options(&parsed.args)
    }

    #[test]
    fn a_shared_state_store_and_the_node_reach_the_crawler() {
        let local = options(&[]).unwrap();
        assert_eq!((local.crawl.state, local.crawl.node), (None, None));
        let shared = options(&["--state", "postgres://u@db/ldwarc", "--node", "n2"]).unwrap();
        assert_eq!(
            shared.crawl.state.as_deref(),
            Some("postgres://u@db/ldwarc")
        );
        assert_eq!(shared.crawl.node.as_deref(), Some("n2"));
        let bad_node = options(&["--state", "postgres://u@db/x", "--node", "a b"]).unwrap_err();
        assert!(bad_node.contains("node name"), "{bad_node}");
        let short_lease = options(&[
            "--state",
            "postgres://u@db/x",
            "--delay",
            "30",
            "--lease-ttl",
            "10",
        ])
        .unwrap_err();
        assert!(short_lease.contains("--lease-ttl"), "{short_lease}");
    }
}
