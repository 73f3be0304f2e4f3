//! `ldwarc plan`: capacity planning from the change models (`ldwarc plan currency`).

use std::io::{self, Write};

use clap::{ArgGroup, Args, Subcommand};
use serde::Serialize;

use super::stats_commands::{FitArg, interval};
use super::{RootArg, flags, output};
use ldwarc_dynamics::duration::{DAY, format_number};
use ldwarc_dynamics::schedule::{Policy, Strategy, optimal_frequencies};
use ldwarc_dynamics::{
    AdaptiveLoad, DynamicsError, FitMethod, HierarchicalFit, IntervalBounds, UrlLoad, Weibull,
    bandwidth, budget_schedule, currency_probability, format_duration, per_url_schedule,
    reindexing_period,
};
use ldwarc_timetravel::replay::{ReplayArchive, Scope};
use ldwarc_timetravel::stats::{
    ArchiveStats, LifetimeSource, StatsOptions, WeibullModel, archive_stats,
};

/// Arguments of `ldwarc plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    command: PlanCommand,
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// The re-indexing period that keeps an index (α, β)-current, or α for a given period.
    #[command(
        long_about = "The re-indexing period T that keeps an index (α, β)-current: a randomly \
        chosen page is β-current (unchanged between its last visit and β before now) with \
        probability α, when every page is re-indexed every T and the pages' mean change times \
        follow a Weibull distribution (Brewington & Cybenko, \"How dynamic is the Web?\", \
        eq. 24). With --period, the α that period gives instead. With --documents and \
        --mean-size, also the documents per day and the bandwidth that re-indexing needs.\n\n\
        With --from-archive, the Weibull is fitted to the archive as ldwarc stats does (by \
        default to every document's own visits, with 95% intervals that the period's \
        interval follows; --fit pooled-lifetimes for the paper's fit to Last-Modified \
        lifetimes with the observation-span correction of §5), the \
        documents and their mean size come from the archive, and the bandwidth of the \
        monitor's adaptive schedules is added: every URL at its own (α, β)-interval, and the \
        freshness strategy's budget that reaches α.\n\n\
        Durations are written like 1d, 7d, 12h, 30m, 1d12h or 2w (a bare number is days). \
        The default Weibull is the paper's lifetime-based fit: shape 1.4, scale 152.2 days. \
        See docs/dynamics.md."
    )]
    Currency(CurrencyArgs),
    /// Estimate how long the next crawl takes: politeness simulation, the paper's first-fit bin packing, a lower bound.
    CrawlTime(super::schedule_commands::CrawlTimeArgs),
}

/// Arguments of `ldwarc plan currency`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("solve").required(true).args(["alpha", "period"])))]
pub struct CurrencyArgs {
    /// Wanted probability that a random page is β-current, in (0, 1]; prints the period T.
    #[arg(long, value_name = "A", value_parser = parse_probability)]
    alpha: Option<f64>,
    /// Grace period β: changes younger than this are forgiven.
    #[arg(long, value_name = "DURATION", value_parser = flags::duration_days)]
    beta: f64,
    /// Weibull distribution of the pages' mean change times: SHAPE,SCALE (scale a duration).
    #[arg(
        long,
        value_name = "SHAPE,SCALE",
        default_value = "1.4,152.2d",
        value_parser = flags::weibull,
        conflicts_with = "from_archive"
    )]
    weibull: Weibull,
    /// Fit the Weibull to the archive at --root, take the documents and their mean size from
    /// it, and add the bandwidth of the monitor's adaptive schedules.
    #[arg(long)]
    from_archive: bool,
    /// With --from-archive: which Weibull fit (as for ldwarc stats).
    #[arg(
        long,
        default_value = "hierarchical",
        value_name = "hierarchical|pooled-lifetimes|pooled-lifetimes-cdf",
        requires = "from_archive"
    )]
    fit: super::stats_commands::FitArg,
    #[command(flatten)]
    root: RootArg,
    /// Re-indexing period T; prints the α it gives (instead of --alpha).
    #[arg(long, value_name = "DURATION", value_parser = flags::duration_days)]
    period: Option<f64>,
    /// Number of documents in the index (for the bandwidth).
    #[arg(long, value_name = "N", requires = "mean_size")]
    documents: Option<u64>,
    /// Mean document size: bytes, or with a unit (12KB = 12,000 bytes, 12KiB = 12,288).
    #[arg(
        long,
        value_name = "BYTES",
        requires = "documents",
        value_parser = parse_size_arg
    )]
    mean_size: Option<f64>,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// `ldwarc plan …`.
pub fn plan(args: PlanArgs) -> io::Result<i32> {
    match args.command {
        PlanCommand::Currency(args) => currency(args),
        PlanCommand::CrawlTime(args) => super::schedule_commands::crawl_time(args),
    }
}

/// The plan as printed with `--format json`; times in days.
#[derive(Debug, Serialize)]
struct CurrencyReport {
    /// `period` (α was given) or `alpha` (the period was given).
    solved_for: &'static str,
    alpha: f64,
    beta_days: f64,
    period_days: f64,
    weibull: WeibullReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    bandwidth: Option<BandwidthReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    archive: Option<ArchiveReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    adaptive: Option<AdaptiveReport>,
}

#[derive(Debug, Serialize)]
struct WeibullReport {
    shape: f64,
    scale_days: f64,
    mean_days: f64,
    median_days: f64,
}

#[derive(Debug, Serialize)]
struct BandwidthReport {
    documents: u64,
    mean_size_bytes: f64,
    documents_per_day: f64,
    bits_per_second: f64,
}

/// What `--from-archive` took from the archive.
#[derive(Debug, Serialize)]
struct ArchiveReport {
    documents: u64,
    mean_size_bytes: Option<f64>,
    /// Which Weibull fit.
    model: WeibullModel,
    /// Pooled fit only: lifetimes fitted, their source, the criterion.
    #[serde(skip_serializing_if = "Option::is_none")]
    lifetimes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lifetime_source: Option<LifetimeSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fit_method: Option<FitMethod>,
    /// Hierarchical fit only: 95% profile-likelihood intervals, and that of the solved
    /// figure (the period in days, or α).
    #[serde(skip_serializing_if = "Option::is_none")]
    shape_interval: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scale_interval_days: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    period_interval_days: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha_interval: Option<[f64; 2]>,
    converged: bool,
}

/// The adaptive schedules of `--from-archive`, within the monitor's interval bounds.
#[derive(Debug, Serialize)]
struct AdaptiveReport {
    min_interval_days: f64,
    max_interval_days: f64,
    /// Every URL at its own (α, β)-interval.
    per_url: LoadReport,
    /// The monitor's `freshness` strategy with the smallest budget that reaches α.
    freshness: LoadReport,
}

#[derive(Debug, Serialize)]
struct LoadReport {
    urls: usize,
    downloads_per_day: f64,
    bits_per_second: f64,
    achieved_alpha: f64,
    at_min_interval: usize,
    at_max_interval: usize,
    median_interval_days: f64,
}

impl From<AdaptiveLoad> for LoadReport {
    fn from(load: AdaptiveLoad) -> Self {
        LoadReport {
            urls: load.urls,
            downloads_per_day: load.downloads_per_day,
            bits_per_second: load.bits_per_second,
            achieved_alpha: load.achieved_alpha,
            at_min_interval: load.at_min_interval,
            at_max_interval: load.at_max_interval,
            median_interval_days: load.median_interval / DAY,
        }
    }
}

/// What the archive says for `--from-archive`.
struct ArchiveFacts {
    /// The fitted Weibull, scale in seconds.
    weibull: Weibull,
    /// The hierarchical fit (scale in days), for the intervals.
    hierarchical: Option<HierarchicalFit>,
    report: ArchiveReport,
    loads: Vec<UrlLoad>,
}

fn invalid(error: DynamicsError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, error)
}

fn currency(args: CurrencyArgs) -> io::Result<i32> {
    let mut facts = if args.from_archive {
        Some(archive_facts(&args.root.root, args.fit)?)
    } else {
        None
    };
    let weibull = facts.as_ref().map_or(args.weibull, |f| f.weibull);
    let (solved_for, alpha, period) = solve(&args, weibull)?;
    if let Some(facts) = facts.as_mut() {
        add_intervals(facts, &args, solved_for);
    }
    let documents = args
        .documents
        .or(facts.as_ref().map(|f| f.report.documents));
    let mean_size = args
        .mean_size
        .or(facts.as_ref().and_then(|f| f.report.mean_size_bytes));
    let load = match (documents, mean_size) {
        (Some(documents), Some(size)) => Some((
            documents,
            size,
            bandwidth(documents as f64, size, period).map_err(invalid)?,
        )),
        _ => None,
    };
    let adaptive = facts
        .as_ref()
        .map(|f| adaptive_report(&f.loads, alpha, args.beta))
        .transpose()?;
    let report = CurrencyReport {
        solved_for,
        alpha,
        beta_days: args.beta / DAY,
        period_days: period / DAY,
        weibull: WeibullReport {
            shape: weibull.shape,
            scale_days: weibull.scale / DAY,
            mean_days: weibull.mean() / DAY,
            median_days: weibull.median() / DAY,
        },
        bandwidth: load.map(|(documents, size, b)| BandwidthReport {
            documents,
            mean_size_bytes: size,
            documents_per_day: b.documents_per_day,
            bits_per_second: b.bits_per_second,
        }),
        archive: facts.map(|f| f.report),
        adaptive,
    };
    let mut out = output::stdout();
    if args.output.is_json() {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_currency_text(&mut out, &report)?;
    }
    out.flush()?;
    Ok(0)
}

/// The period for the given α, or α for the given period: (solved for, α, period seconds).
fn solve(args: &CurrencyArgs, weibull: Weibull) -> io::Result<(&'static str, f64, f64)> {
    match (args.alpha, args.period) {
        (_, Some(period)) => {
            if period <= 0.0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the re-indexing period must be positive",
                ));
            }
            Ok((
                "alpha",
                currency_probability(weibull, period, args.beta),
                period,
            ))
        }
        (Some(alpha), None) => {
            let period = reindexing_period(weibull, alpha, args.beta).map_err(invalid)?;
            Ok(("period", alpha, period))
        }
        (None, None) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "give --alpha or --period",
        )),
    }
}

/// The 95% interval of the solved figure, from the hierarchical fit's likelihood region.
fn add_intervals(facts: &mut ArchiveFacts, args: &CurrencyArgs, solved_for: &str) {
    let Some(fit) = &facts.hierarchical else {
        return;
    };
    let in_seconds = |w: Weibull| Weibull {
        shape: w.shape,
        scale: w.scale * DAY,
    };
    let (lo, hi) = match (solved_for, args.alpha, args.period) {
        ("period", Some(alpha), _) => fit.interval_of(|w| {
            reindexing_period(in_seconds(w), alpha, args.beta).map_or(f64::NAN, |t| t / DAY)
        }),
        (_, _, Some(period)) => {
            let (lo, hi) =
                fit.interval_of(|w| currency_probability(in_seconds(w), period, args.beta));
            facts.report.alpha_interval = Some([lo, hi]);
            return;
        }
        _ => return,
    };
    facts.report.period_interval_days = Some([lo, hi]);
}

/// Reads the archive at `root` as `ldwarc stats` does and fits the Weibull.
fn archive_facts(root: &std::path::Path, fit: FitArg) -> io::Result<ArchiveFacts> {
    let archive = ReplayArchive::open(root)?;
    let (model, fit_method) = fit.choice();
    let options = StatsOptions {
        scope: Scope::All,
        snapshot_gap_days: 1.0 / 24.0,
        crawls: Vec::new(),
        fit_method,
        model,
    };
    let stats: ArchiveStats = archive_stats(&archive, &options, &mut |_, _| {})?;
    for failure in &stats.failures {
        tracing::warn!(target: super::logging::NOTICE_TARGET, "{failure}");
    }
    let weibull = stats.mean_change_times().map_err(|why| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: no Weibull fit from the archive: {why}", root.display()),
        )
    })?;
    let pooled = stats
        .weibull
        .as_ref()
        .filter(|_| model == WeibullModel::PooledLifetimes);
    if let Some(warning) = pooled.and_then(|f| f.aliasing_warning()) {
        tracing::warn!(target: super::logging::CLI_TARGET, "{warning}");
    }
    let hierarchical = stats
        .hierarchical
        .as_ref()
        .filter(|_| model == WeibullModel::Hierarchical);
    Ok(ArchiveFacts {
        weibull: Weibull::new(weibull.shape, weibull.scale * DAY).map_err(invalid)?,
        hierarchical: hierarchical.map(|h| h.fit.clone()),
        report: ArchiveReport {
            documents: stats.urls.len() as u64,
            mean_size_bytes: stats.mean_payload_bytes(),
            model,
            lifetimes: pooled.map(|f| f.lifetimes),
            lifetime_source: pooled.map(|f| f.source),
            fit_method: pooled.map(|f| f.method),
            shape_interval: hierarchical.map(|h| h.shape_interval),
            scale_interval_days: hierarchical.map(|h| h.scale_interval_days),
            period_interval_days: None,
            alpha_interval: None,
            converged: pooled.map_or_else(
                || hierarchical.is_some_and(|h| h.converged),
                |f| f.converged,
            ),
        },
        loads: stats.url_loads(),
    })
}

/// The monitor's adaptive schedules for α and β, within the monitor's interval bounds.
fn adaptive_report(loads: &[UrlLoad], alpha: f64, beta: f64) -> io::Result<AdaptiveReport> {
    let policy = Policy::new(Strategy::Freshness);
    let bounds = IntervalBounds {
        min: policy.min_interval,
        max: policy.max_interval,
    };
    let per_url = per_url_schedule(loads, alpha, beta, bounds).map_err(invalid)?;
    let freshness = budget_schedule(loads, alpha, beta, bounds, |rates, total| {
        optimal_frequencies(rates, total, 1.0 / bounds.max, 1.0 / bounds.min)
    })
    .map_err(invalid)?;
    Ok(AdaptiveReport {
        min_interval_days: bounds.min / DAY,
        max_interval_days: bounds.max / DAY,
        per_url: per_url.into(),
        freshness: freshness.into(),
    })
}

fn write_currency_text(out: &mut dyn Write, report: &CurrencyReport) -> io::Result<()> {
    let w = &report.weibull;
    let archive = report.archive.as_ref();
    if let Some(archive) = archive {
        match (archive.lifetimes, archive.lifetime_source) {
            (Some(lifetimes), Some(source)) => writeln!(
                out,
                "archive             {} documents; Weibull fitted to {} {} lifetimes \
                 (span-corrected)",
                archive.documents,
                lifetimes,
                match source {
                    LifetimeSource::LastModified => "Last-Modified",
                    LifetimeSource::ChangeDetection => "change-detection",
                }
            )?,
            _ => writeln!(
                out,
                "archive             {} documents; Weibull fitted to every document's visits",
                archive.documents
            )?,
        }
    }
    let show = |text: String, ends: Option<[f64; 2]>, unit: fn(f64) -> String| match ends {
        Some(ends) => format!("{text} {}", interval(ends, unit)),
        None => text,
    };
    let days = |v: f64| format_duration(v * DAY);
    let plain = |v: f64| format_number(v, 4);
    writeln!(
        out,
        "mean change times   Weibull shape {}, scale {} (mean {}, median {})",
        show(
            plain(w.shape),
            archive.and_then(|a| a.shape_interval),
            plain
        ),
        show(
            days(w.scale_days),
            archive.and_then(|a| a.scale_interval_days),
            days
        ),
        format_duration(w.mean_days * DAY),
        format_duration(w.median_days * DAY)
    )?;
    writeln!(
        out,
        "grace period β      {}",
        format_duration(report.beta_days * DAY)
    )?;
    // A given α prints as given; a computed one with six decimals.
    let alpha_text = if report.solved_for == "alpha" {
        format_number(report.alpha, 6)
    } else {
        report.alpha.to_string()
    };
    let alpha_six = |v: f64| format_number(v, 6);
    writeln!(
        out,
        "probability α       {}",
        show(
            alpha_text,
            archive.and_then(|a| a.alpha_interval),
            alpha_six
        )
    )?;
    writeln!(
        out,
        "re-indexing period  {}",
        show(
            days(report.period_days),
            archive.and_then(|a| a.period_interval_days),
            days
        )
    )?;
    if let Some(b) = &report.bandwidth {
        writeln!(
            out,
            "documents           {} of {} bytes",
            b.documents,
            format_number(b.mean_size_bytes, 2)
        )?;
        writeln!(
            out,
            "re-indexing rate    {:.0} documents/day",
            b.documents_per_day
        )?;
        writeln!(
            out,
            "bandwidth           {}",
            format_bit_rate(b.bits_per_second)
        )?;
    }
    if let Some(adaptive) = &report.adaptive {
        write_adaptive_text(out, adaptive)?;
    }
    Ok(())
}

fn write_adaptive_text(out: &mut dyn Write, adaptive: &AdaptiveReport) -> io::Result<()> {
    for (label, load) in [
        ("adaptive, per URL ", &adaptive.per_url),
        ("adaptive, budgeted", &adaptive.freshness),
    ] {
        writeln!(
            out,
            "{label}  {:.0} documents/day, {} (α {}; median interval {}; {} URLs at the {} \
             minimum, {} at the {} maximum)",
            load.downloads_per_day,
            format_bit_rate(load.bits_per_second),
            format_number(load.achieved_alpha, 4),
            format_duration(load.median_interval_days * DAY),
            load.at_min_interval,
            format_duration(adaptive.min_interval_days * DAY),
            load.at_max_interval,
            format_duration(adaptive.max_interval_days * DAY)
        )?;
    }
    Ok(())
}

/// Bits per second with an SI prefix and one decimal: `104.6 Mbit/s`.
fn format_bit_rate(bits_per_second: f64) -> String {
    let (value, unit) = if bits_per_second >= 1e9 {
        (bits_per_second / 1e9, "Gbit/s")
    } else if bits_per_second >= 1e6 {
        (bits_per_second / 1e6, "Mbit/s")
    } else if bits_per_second >= 1e3 {
        (bits_per_second / 1e3, "kbit/s")
    } else {
        (bits_per_second, "bit/s")
    };
    format!("{value:.1} {unit}")
}

fn parse_probability(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(format!("α must be in (0, 1], got {text}"))
    }
}

/// A size flag as bytes in `f64`, the unit of the planning formulas.
fn parse_size_arg(text: &str) -> Result<f64, String> {
    flags::size(text).map(|bytes| bytes as f64)
}

/// `ldwarc plan`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const PLAN_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc plan currency --alpha 0.95 --beta 7d --weibull 1.4,152.2d",
            "the re-crawl period for 95% currency within a week",
        ),
        (
            "ldwarc plan currency --alpha 0.9 --beta 1d --from-archive",
            "fitted from the archive's own captures",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: super::help::ROOT_FILES,
};

/// `ldwarc plan crawl-time`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const PLAN_CRAWL_TIME_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc plan crawl-time --crawl 3",
            "how long crawl 3 took against its estimate",
        ),
        (
            "ldwarc plan crawl-time --nodes 4",
            "the next cycle's time on four nodes",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: super::help::ROOT_FILES,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_weibull_and_probabilities() {
        let w = flags::weibull("1.4,152.2d").expect("valid");
        assert_eq!(w.shape, 1.4);
        assert!((w.scale - 152.2 * DAY).abs() < 1e-6);
        let bare = flags::weibull("2, 30").expect("valid");
        assert_eq!(bare.scale, 30.0 * DAY);
        for bad in ["1.4", "x,1d", "1.4,1q", "0,1d", "1,0d"] {
            assert!(flags::weibull(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_probability("0.95"), Ok(0.95));
        assert_eq!(parse_probability("1"), Ok(1.0));
        for bad in ["0", "1.01", "-0.5", "nan", "x"] {
            assert!(parse_probability(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn formats_bit_rates() {
        assert_eq!(format_bit_rate(104.575e6), "104.6 Mbit/s");
        assert_eq!(format_bit_rate(9.26e6), "9.3 Mbit/s");
        assert_eq!(format_bit_rate(1.5e9), "1.5 Gbit/s");
        assert_eq!(format_bit_rate(12.0), "12.0 bit/s");
    }
}
