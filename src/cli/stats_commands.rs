//! `ldwarc stats`: argument parsing and output over [`ldwarc_timetravel::stats::archive_stats`] (change
//! statistics of the archive's documents), [`ldwarc_timetravel::stats::plots`] (`--plot`) and
//! [`ldwarc_dynamics::truth`] (`--truth`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::replay_commands::ScopeArgs;
use super::{RootsArg, flags, output};
use ldwarc_dynamics::duration::{DAY, format_number};
use ldwarc_dynamics::{
    CrawlWindow, FitMethod, TruthComparison, compare_with_truth, format_duration, parse_truth,
};
use ldwarc_state::StateStore;
use ldwarc_timetravel::replay::{ReplayArchive, Scope};
use ldwarc_timetravel::stats::archive_stats::{ArchiveStats, PldStats, SnapshotStats, UrlStats};
use ldwarc_timetravel::stats::{
    HierarchicalStats, StatsOptions, WeibullModel, archive_stats, write_plots,
};

/// Arguments of `ldwarc stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub(super) root: RootsArg,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Output: text tables, one JSON object, or one CSV table (see --table).
    #[arg(long, default_value = "text", value_name = "text|json|csv")]
    format: StatsFormat,
    /// The table --format csv prints.
    #[arg(long, default_value = "urls", value_name = "urls|plds|snapshots")]
    table: CsvTable,
    /// Also write the figures (SVG) into DIR: age CDF, lifetime CDF with the fitted model,
    /// change-rate histogram per PLD, changes per snapshot.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Known change rates per day (a JSON object URL → rate, or CSV lines URL,rate): also
    /// print the median relative error of each estimator against them (- reads stdin).
    #[arg(long, value_name = "FILE", value_parser = super::flags::existing_file_or_stdin())]
    truth: Option<PathBuf>,
    /// URLs with fewer observations are not compared with --truth.
    #[arg(long, default_value_t = 10, value_name = "N")]
    min_observations: usize,
    /// The longest pause between two captures of one snapshot (a crawl in the crawl log is
    /// never split).
    #[arg(long, default_value = "1h", value_name = "DURATION", value_parser = flags::duration_days)]
    snapshot_gap: f64,
    /// The Weibull of mean change times: fitted to every document's own visits
    /// (hierarchical, with 95% intervals), or as the paper does to pooled Last-Modified
    /// lifetimes with the span correction (pooled-lifetimes: maximum likelihood;
    /// pooled-lifetimes-cdf: the paper's CDF least squares, eq. 16). `ml` and `cdf` are
    /// the old names of the two pooled fits.
    #[arg(
        long,
        default_value = "hierarchical",
        value_name = "hierarchical|pooled-lifetimes|pooled-lifetimes-cdf"
    )]
    fit: FitArg,
}

/// Output format of `ldwarc stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StatsFormat {
    Text,
    Json,
    Csv,
}

/// The table `--format csv` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CsvTable {
    Urls,
    Plds,
    Snapshots,
}

/// Which Weibull fit, and the pooled fit's criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FitArg {
    Hierarchical,
    #[value(alias = "ml")]
    PooledLifetimes,
    #[value(alias = "cdf")]
    PooledLifetimesCdf,
}

impl FitArg {
    /// The model the figures use and the pooled fit's criterion.
    pub(crate) fn choice(self) -> (WeibullModel, FitMethod) {
        match self {
            FitArg::Hierarchical => (WeibullModel::Hierarchical, FitMethod::MaximumLikelihood),
            FitArg::PooledLifetimes => {
                (WeibullModel::PooledLifetimes, FitMethod::MaximumLikelihood)
            }
            FitArg::PooledLifetimesCdf => {
                (WeibullModel::PooledLifetimes, FitMethod::CdfLeastSquares)
            }
        }
    }
}

/// The JSON document of `--format json`.
#[derive(Serialize)]
struct JsonReport<'a> {
    scope: String,
    #[serde(flatten)]
    stats: &'a ArchiveStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    truth: Option<&'a TruthComparison>,
}

/// `ldwarc stats`. Exits 1 when some URL could not be read (each is reported on stderr).
pub fn stats(args: StatsArgs) -> io::Result<i32> {
    let truth = args.truth.as_deref().map(read_truth).transpose()?;
    let archive = ReplayArchive::open_many(&args.root.roots)?;
    let (model, fit_method) = args.fit.choice();
    let options = StatsOptions {
        scope: args.scope.scope(),
        snapshot_gap_days: args.snapshot_gap / DAY,
        crawls: args
            .root
            .roots
            .iter()
            .map(|root| crawl_windows(root))
            .collect::<io::Result<Vec<_>>>()?
            .concat(),
        fit_method,
        model,
    };
    let bar = output::progress(0, "URLs");
    let stats = archive_stats(&archive, &options, &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    for failure in &stats.failures {
        tracing::warn!(target: super::logging::NOTICE_TARGET, "{failure}");
    }
    let comparison = truth.map(|truth| {
        let estimates = stats.urls.iter().map(|u| (u.url.as_str(), u.estimates()));
        compare_with_truth(estimates, &truth, args.min_observations)
    });
    if let Some(dir) = &args.plot {
        let (written, skipped) = write_plots(&stats, dir)?;
        for path in written {
            tracing::info!(target: super::logging::NOTICE_TARGET, "wrote {}", path.display());
        }
        for reason in skipped {
            tracing::info!(target: super::logging::NOTICE_TARGET, "no figure {reason}");
        }
    }
    let mut out = output::stdout();
    let scope = describe_scope(&options.scope);
    match args.format {
        StatsFormat::Json => {
            let report = JsonReport {
                scope,
                stats: &stats,
                truth: comparison.as_ref(),
            };
            serde_json::to_writer(&mut out, &report)?;
            writeln!(out)?;
        }
        StatsFormat::Csv => write_csv(&mut out, &stats, args.table)?,
        StatsFormat::Text => write_text(&mut out, &scope, &stats, comparison.as_ref())?,
    }
    out.flush()?;
    Ok(if stats.failures.is_empty() { 0 } else { 1 })
}

fn read_truth(path: &Path) -> io::Result<ldwarc_dynamics::TruthRates> {
    let text = super::flags::read_input_text(path)?;
    parse_truth(&path.display().to_string(), &text)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The crawl runs of the archive's crawl log, in days since the epoch (none without a log).
pub(crate) fn crawl_windows(root: &Path) -> io::Result<Vec<CrawlWindow>> {
    let state_dir = root.join("state");
    if !state_dir.join("state.sqlite").exists() {
        return Ok(Vec::new());
    }
    let store = StateStore::open_read_only(&state_dir).map_err(io::Error::other)?;
    let crawls = store.crawls().map_err(io::Error::other)?;
    Ok(crawls
        .iter()
        .filter_map(|run| {
            Some(CrawlWindow {
                started: days_of(&run.started)?,
                finished: run.finished.as_deref().and_then(days_of),
            })
        })
        .collect())
}

/// An RFC 3339 time of the crawl log in days since the epoch.
fn days_of(text: &str) -> Option<f64> {
    let time: DateTime<Utc> = DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc);
    Some(time.timestamp_micros() as f64 / (DAY * 1e6))
}

fn describe_scope(scope: &Scope) -> String {
    match scope {
        Scope::All => "all".to_string(),
        Scope::Prefix(prefix) => format!("prefix {prefix}"),
        Scope::Host(host) => format!("host {host}"),
        Scope::Domain(domain) => format!("domain {domain}"),
    }
}

/// A number with up to `decimals` decimals, or `-`.
fn number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "-".to_string(), |v| format_number(v, decimals))
}

/// A rate per day with four significant digits, or `-`.
fn rate(value: Option<f64>) -> String {
    value.map_or_else(
        || "-".to_string(),
        |v| {
            if v == 0.0 {
                return "0".to_string();
            }
            let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
            format_number(v, digits)
        },
    )
}

fn write_text(
    out: &mut dyn Write,
    scope: &str,
    stats: &ArchiveStats,
    truth: Option<&TruthComparison>,
) -> io::Result<()> {
    write_summary(out, scope, stats)?;
    if let Some(truth) = truth {
        write_truth(out, truth)?;
    }
    writeln!(out)?;
    write_pld_table(out, &stats.plds)?;
    writeln!(out)?;
    write_snapshot_table(out, &stats.snapshots)?;
    writeln!(out)?;
    write_url_table(out, &stats.urls)
}

fn write_summary(out: &mut dyn Write, scope: &str, stats: &ArchiveStats) -> io::Result<()> {
    let s = &stats.summary;
    writeln!(out, "scope                 {scope}")?;
    writeln!(
        out,
        "documents             {} of {} URLs ({} captures, {} observations), {} snapshots",
        s.documents, s.urls, s.captures, s.observations, s.snapshots
    )?;
    writeln!(
        out,
        "median change rate    {} per day (bias-reduced)",
        rate(s.median_bias_reduced_per_day)
    )?;
    if stats.model == WeibullModel::Hierarchical {
        return match (&stats.hierarchical, &stats.hierarchical_error) {
            (Some(fit), _) => write_hierarchical(out, fit),
            (_, why) => writeln!(
                out,
                "mean change times     no Weibull fit: {}",
                why.as_deref().unwrap_or("no documents")
            ),
        };
    }
    match (&stats.weibull, &stats.weibull_error) {
        (Some(fit), _) => writeln!(
            out,
            "mean change times     Weibull shape {}, scale {} (mean {}, median {}), fitted to {} \
             {} lifetimes with the observation-span correction",
            format_number(fit.shape, 4),
            format_duration(fit.scale_days * DAY),
            format_duration(fit.mean_days * DAY),
            format_duration(fit.median_days * DAY),
            fit.lifetimes,
            match fit.source {
                ldwarc_timetravel::stats::LifetimeSource::LastModified => "Last-Modified",
                ldwarc_timetravel::stats::LifetimeSource::ChangeDetection => "change-detection",
            }
        ),
        (None, Some(why)) => writeln!(out, "mean change times     no Weibull fit: {why}"),
        (None, None) => Ok(()),
    }?;
    if let Some(warning) = stats.weibull.as_ref().and_then(|f| f.aliasing_warning()) {
        writeln!(out, "warning               {warning}")?;
    }
    Ok(())
}

/// The hierarchical fit's line: each figure with its 95% interval.
fn write_hierarchical(out: &mut dyn Write, fit: &HierarchicalStats) -> io::Result<()> {
    writeln!(
        out,
        "mean change times     Weibull shape {} {}, scale {} {} (mean {} {}, median {} {}), \
         fitted to the visits of {} documents ({} changes timed by Last-Modified, {} not)",
        format_number(fit.shape, 4),
        interval(fit.shape_interval, |v| format_number(v, 4)),
        format_duration(fit.scale_days * DAY),
        interval(fit.scale_interval_days, |v| format_duration(v * DAY)),
        format_duration(fit.mean_days * DAY),
        interval(fit.mean_interval_days, |v| format_duration(v * DAY)),
        format_duration(fit.median_days * DAY),
        interval(fit.median_interval_days, |v| format_duration(v * DAY)),
        fit.documents,
        fit.timed_changes,
        fit.untimed_changes
    )
}

/// `[lo, hi]` of a 95% interval, `∞` (or `−∞`) for an end the data do not bound, and
/// `not bounded by the data` when neither is.
pub(crate) fn interval(ends: [f64; 2], show: impl Fn(f64) -> String) -> String {
    if !ends[0].is_finite() && !ends[1].is_finite() {
        return "[95% not bounded by the data]".to_string();
    }
    let end = |v: f64| {
        if v.is_finite() {
            show(v)
        } else if v < 0.0 {
            "−∞".to_string()
        } else {
            "∞".to_string()
        }
    };
    format!("[95% {}–{}]", end(ends[0]), end(ends[1]))
}

fn write_truth(out: &mut dyn Write, truth: &TruthComparison) -> io::Result<()> {
    let e = &truth.median_relative_error;
    writeln!(
        out,
        "median relative error {} (bias-reduced) over {} URLs with at least {} observations; \
         naive {}, MLE {}, Last-Modified {}",
        number(e.bias_reduced, 4),
        truth.urls,
        truth.min_observations,
        number(e.naive, 4),
        number(e.mle, 4),
        number(e.last_modified, 4)
    )?;
    if truth.excluded > 0 {
        writeln!(
            out,
            "                      {} of them left out: some estimator has no finite estimate",
            truth.excluded
        )?;
    }
    if truth.missing > 0 {
        writeln!(
            out,
            "                      {} URLs of the truth file are not in the statistics",
            truth.missing
        )?;
    }
    Ok(())
}

fn write_pld_table(out: &mut dyn Write, plds: &[PldStats]) -> io::Result<()> {
    writeln!(
        out,
        "{:>6} {:>8} {:>8} {:>8} {:>8} {:>6} {:>11} {:>11}  pay-level domain",
        "urls", "obs", "rdf-chg", "byte-chg", "changed", "lm", "pooled/d", "median/d"
    )?;
    for p in plds {
        writeln!(
            out,
            "{:>6} {:>8} {:>8} {:>8} {:>8} {:>6} {:>11} {:>11}  {}",
            p.urls,
            p.observations,
            p.rdf_changes,
            p.byte_changes,
            p.changed_urls,
            p.last_modified_urls,
            rate(p.pooled_naive_per_day),
            rate(p.median_bias_reduced_per_day),
            p.pld
        )?;
    }
    Ok(())
}

fn write_snapshot_table(out: &mut dyn Write, snapshots: &[SnapshotStats]) -> io::Result<()> {
    writeln!(
        out,
        "{:>5} {:<20} {:>9} {:>9} {:>8} {:>8} {:>8}",
        "snap", "start", "documents", "compared", "rdf-chg", "byte-chg", "fraction"
    )?;
    for s in snapshots {
        writeln!(
            out,
            "{:>5} {:<20} {:>9} {:>9} {:>8} {:>8} {:>8}",
            s.index,
            s.start,
            s.documents,
            s.compared,
            s.rdf_changed,
            s.byte_changed,
            number(s.rdf_changed_fraction, 3)
        )?;
    }
    Ok(())
}

fn write_url_table(out: &mut dyn Write, urls: &[UrlStats]) -> io::Result<()> {
    writeln!(
        out,
        "{:>5} {:>8} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5}  url",
        "obs", "span-d", "rdf", "bytes", "naive/d", "reduced/d", "mle/d", "lm/d", "age-d", "life"
    )?;
    for u in urls {
        let lm = u.last_modified.as_ref();
        writeln!(
            out,
            "{:>5} {:>8} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5}  {}",
            u.observations,
            format_number(u.span_days, 2),
            u.rdf_changes,
            u.byte_changes,
            rate(u.naive_per_day),
            rate(u.bias_reduced_per_day),
            rate(u.mle_per_day),
            rate(lm.and_then(|l| l.rate_per_day)),
            number(lm.and_then(|l| l.median_age_days), 2),
            u.last_modified_lifetimes_days.len(),
            u.url
        )?;
    }
    Ok(())
}

/// A CSV field, quoted when it needs to be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// An optional number for CSV: empty when absent.
fn csv_number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

fn write_csv(out: &mut dyn Write, stats: &ArchiveStats, table: CsvTable) -> io::Result<()> {
    match table {
        CsvTable::Urls => write_url_csv(out, &stats.urls),
        CsvTable::Plds => write_pld_csv(out, &stats.plds),
        CsvTable::Snapshots => write_snapshot_csv(out, &stats.snapshots),
    }
}

fn write_url_csv(out: &mut dyn Write, urls: &[UrlStats]) -> io::Result<()> {
    writeln!(
        out,
        "url,pld,observations,first,last,span_days,rdf_changes,byte_changes,naive_per_day,\
         bias_reduced_per_day,mle_per_day,byte_bias_reduced_per_day,last_modified_rate_per_day,\
         last_modified_changes,mean_age_days,median_age_days,last_modified_lifetimes,\
         mean_last_modified_lifetime_days,mean_payload_bytes"
    )?;
    for u in urls {
        let lm = u.last_modified.as_ref();
        let lifetimes = &u.last_modified_lifetimes_days;
        let mean_lifetime =
            (!lifetimes.is_empty()).then(|| lifetimes.iter().sum::<f64>() / lifetimes.len() as f64);
        let fields = [
            csv_field(&u.url),
            csv_field(&u.pld),
            u.observations.to_string(),
            u.first.clone(),
            u.last.clone(),
            u.span_days.to_string(),
            u.rdf_changes.to_string(),
            u.byte_changes.to_string(),
            csv_number(u.naive_per_day),
            csv_number(u.bias_reduced_per_day),
            csv_number(u.mle_per_day),
            csv_number(u.byte_bias_reduced_per_day),
            csv_number(lm.and_then(|l| l.rate_per_day)),
            lm.map_or_else(String::new, |l| l.changes.to_string()),
            csv_number(lm.and_then(|l| l.mean_age_days)),
            csv_number(lm.and_then(|l| l.median_age_days)),
            lifetimes.len().to_string(),
            csv_number(mean_lifetime),
            csv_number(u.mean_payload_bytes),
        ];
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

fn write_pld_csv(out: &mut dyn Write, plds: &[PldStats]) -> io::Result<()> {
    writeln!(
        out,
        "pld,urls,observations,rdf_changes,byte_changes,changed_urls,last_modified_urls,\
         pooled_naive_per_day,median_bias_reduced_per_day,mean_bias_reduced_per_day"
    )?;
    for p in plds {
        let fields = [
            csv_field(&p.pld),
            p.urls.to_string(),
            p.observations.to_string(),
            p.rdf_changes.to_string(),
            p.byte_changes.to_string(),
            p.changed_urls.to_string(),
            p.last_modified_urls.to_string(),
            csv_number(p.pooled_naive_per_day),
            csv_number(p.median_bias_reduced_per_day),
            csv_number(p.mean_bias_reduced_per_day),
        ];
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

fn write_snapshot_csv(out: &mut dyn Write, snapshots: &[SnapshotStats]) -> io::Result<()> {
    writeln!(
        out,
        "index,start,end,documents,compared,rdf_changed,byte_changed,rdf_changed_fraction,\
         byte_changed_fraction"
    )?;
    for s in snapshots {
        let fields = [
            s.index.to_string(),
            s.start.clone(),
            s.end.clone(),
            s.documents.to_string(),
            s.compared.to_string(),
            s.rdf_changed.to_string(),
            s.byte_changed.to_string(),
            csv_number(s.rdf_changed_fraction),
            csv_number(s.byte_changed_fraction),
        ];
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

/// `ldwarc stats`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const STATS_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc stats --root /data/ld",
            "change rates, ages and the Weibull fit",
        ),
        (
            "ldwarc stats --by plds --format csv > plds.csv",
            "per pay-level domain, as CSV",
        ),
        (
            "ldwarc stats --plot plots/",
            "SVG plots of the distributions",
        ),
    ],
    exit_status: &[("1", "some captures could not be read (reported)")],
    environment: &[],
    files: super::help::ROOT_FILES,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_ends_say_which_side_is_unbounded() {
        let show = |v: f64| format!("{v}");
        assert_eq!(interval([1.0, 2.0], show), "[95% 1–2]");
        assert_eq!(interval([1.0, f64::INFINITY], show), "[95% 1–∞]");
        assert_eq!(interval([f64::NEG_INFINITY, 2.0], show), "[95% −∞–2]");
        assert_eq!(
            interval([f64::NEG_INFINITY, f64::INFINITY], show),
            "[95% not bounded by the data]"
        );
    }

    #[test]
    fn formats_rates_and_csv_fields() {
        assert_eq!(rate(Some(0.123456)), "0.1235");
        assert_eq!(rate(Some(12.3456)), "12.35");
        assert_eq!(rate(Some(0.0)), "0");
        assert_eq!(rate(None), "-");
        assert_eq!(csv_field("http://a/b"), "http://a/b");
        assert_eq!(csv_field("http://a/b?x=1,2"), "\"http://a/b?x=1,2\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(days_of("1970-01-02T12:00:00+00:00"), Some(1.5));
        assert_eq!(days_of("yesterday"), None);
    }
}
