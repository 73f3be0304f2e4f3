//! `ldwarc simulate` (replay change histories against re-crawl strategies) and
//! `ldwarc plan crawl-time` (how long the next crawl will take): argument parsing and output
//! over `ldwarc_archive::schedule`.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use clap::{ArgGroup, Args};
use serde::{Deserialize, Serialize};

use super::{RootArg, flags, output};
use ldwarc_dynamics::Weibull;
use ldwarc_dynamics::duration::{DAY, format_duration, format_number};
use ldwarc_dynamics::schedule::crawl_time::{DEFAULT_FETCH_TIME, PaperEstimate};
use ldwarc_dynamics::schedule::history::Band;
use ldwarc_dynamics::schedule::nodes::{ClusterEstimate, NodePlan, estimate_on_nodes, plan_nodes};
use ldwarc_dynamics::schedule::strategy::DEFAULT_MARKOV_PRIOR;
use ldwarc_dynamics::schedule::synthetic::default_mean_change_times;
use ldwarc_dynamics::schedule::{
    ChangeHistory, PldWorkload, Policy, SimulationOptions, SimulationReport, Strategy,
    StrategyOutcome, SyntheticModel, SyntheticSpec, Tally, estimate_crawl_rounds, generate,
    read_histories, simulate as run_simulation, write_histories,
};
use ldwarc_state::{Change, FetchLogEntry, StateStore};

/// A year as `--years` counts it: 365 days.
const YEAR: f64 = 365.0 * DAY;

/// Arguments of `ldwarc simulate`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["histories", "synthetic"])))]
pub struct SimulateArgs {
    /// Change histories, one JSON object per line: {"url", "start", "end", "changes": [...]},
    /// instants as RFC 3339 or epoch seconds (see docs/scheduling.md); `-` reads stdin.
    #[arg(long, value_name = "FILE", value_parser = super::flags::existing_file_or_stdin())]
    histories: Option<PathBuf>,
    /// Generate histories instead: poisson, bursty, periodic or mixture.
    #[arg(long, value_name = "MODEL", value_parser = parse_model)]
    synthetic: Option<SyntheticModel>,
    /// Synthetic documents.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    documents: usize,
    /// Seed of the synthetic model.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Distribution of synthetic mean change times: SHAPE,SCALE (default 0.8,100d).
    #[arg(long, value_name = "SHAPE,SCALE", value_parser = flags::weibull)]
    weibull: Option<Weibull>,
    /// Strategies, comma-separated: fix, dyn, window, state-1, state-2, week, gold, freshness,
    /// dyldo.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "fix,dyn,window,state-1,state-2,week,gold,freshness,dyldo",
        value_parser = parse_strategy
    )]
    strategies: Vec<Strategy>,
    /// Years simulated (365 days each): synthetic histories are this long, given histories
    /// are cut to it. Default: 3 for synthetic models, whole histories otherwise.
    #[arg(long, value_name = "N")]
    years: Option<f64>,
    /// The scheduler's cycle: downloads happen on this grid.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = flags::duration_days)]
    cycle: f64,
    /// Shortest re-crawl interval.
    #[arg(long, value_name = "DURATION", default_value = "1d", value_parser = flags::duration_days)]
    min_interval: f64,
    /// Longest re-crawl interval.
    #[arg(long, value_name = "DURATION", default_value = "180d", value_parser = flags::duration_days)]
    max_interval: f64,
    /// Interval of a URL with no history.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = flags::duration_days)]
    initial_interval: f64,
    /// The fixed interval of the `week` strategy.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = flags::duration_days)]
    week: f64,
    /// state-1/state-2: pseudo-count added to each Markov count before the change probability
    /// is read (0: the paper's bare counts).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MARKOV_PRIOR)]
    markov_prior: f64,
    /// `freshness`: downloads per cycle for the whole collection (default: as many in all
    /// as `gold` makes).
    #[arg(long, value_name = "N")]
    budget: Option<f64>,
    /// Rows of the over-time tables, every N months.
    #[arg(long, value_name = "MONTHS", default_value_t = 6)]
    every: usize,
    /// With --format json, also one object per strategy and month (cumulative, all documents).
    #[arg(long)]
    over_time: bool,
    #[command(flatten)]
    output: super::flags::TextFormat,
    /// Also write the histories simulated (e.g. a synthetic model's) to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    write_histories: Option<PathBuf>,
}

fn invalid(message: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_string())
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    text.parse()
        .map_err(|e: ldwarc_dynamics::schedule::ScheduleError| e.to_string())
}

fn parse_model(text: &str) -> Result<SyntheticModel, String> {
    text.parse()
        .map_err(|e: ldwarc_dynamics::schedule::ScheduleError| e.to_string())
}

/// Where the histories came from, for the report header.
fn load_histories(args: &SimulateArgs) -> io::Result<(Vec<ChangeHistory>, String)> {
    if let Some(model) = args.synthetic {
        let span = args.years.unwrap_or(3.0) * YEAR;
        let spec = SyntheticSpec {
            mean_change_times: args.weibull.unwrap_or_else(default_mean_change_times),
            ..SyntheticSpec::new(model, args.documents, span, args.seed)
        };
        let histories = generate(&spec).map_err(invalid)?;
        return Ok((histories, format!("synthetic {model}, seed {}", args.seed)));
    }
    let path = args.histories.as_deref().unwrap_or(Path::new("-"));
    let name = path.display().to_string();
    let histories = if name == "-" {
        read_histories(io::stdin().lock(), "stdin")
    } else {
        let file =
            File::open(path).map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        read_histories(BufReader::new(file), &name)
    }
    .map_err(invalid)?;
    Ok((histories, name))
}

/// `ldwarc simulate`.
pub fn simulate(args: SimulateArgs) -> io::Result<i32> {
    if args.strategies.is_empty() {
        return Err(invalid("give at least one strategy"));
    }
    if let Some(years) = args.years
        && !(years.is_finite() && years > 0.0)
    {
        return Err(invalid(format!("--years must be positive, got {years}")));
    }
    let (histories, source) = load_histories(&args)?;
    if let Some(path) = &args.write_histories {
        let file = File::create(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut writer = io::BufWriter::new(file);
        write_histories(&mut writer, &histories)?;
        writer.flush()?;
    }
    let mut options = SimulationOptions::new(args.strategies.clone());
    options.policy = Policy {
        min_interval: args.min_interval,
        max_interval: args.max_interval,
        initial_interval: args.initial_interval,
        fixed_interval: args.week,
        markov_prior: args.markov_prior,
        ..Policy::new(Strategy::Fix)
    };
    options.cycle = args.cycle;
    options.span = args.years.map(|y| y * YEAR);
    options.budget = args.budget;
    let report = run_simulation(&histories, &options).map_err(invalid)?;
    let mut out = output::stdout();
    if args.output.is_json() {
        write_json(&mut out, &report, args.over_time)?;
    } else {
        write_header(&mut out, &report, &source, &options)?;
        write_band_table(&mut out, &report)?;
        write_over_time(&mut out, &report, args.every.max(1))?;
    }
    out.flush()?;
    Ok(0)
}

/// One line of `--format json`.
#[derive(Debug, Serialize)]
struct JsonRow<'a> {
    strategy: &'a str,
    band: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    month: Option<usize>,
    documents: u64,
    changes: u64,
    downloads: u64,
    captured: u64,
    recall: Option<f64>,
    precision: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_recall: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_precision: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    freshness: Option<f64>,
}

impl<'a> JsonRow<'a> {
    fn new(strategy: &'a str, band: &'a str, tally: &Tally) -> Self {
        Self {
            strategy,
            band,
            month: None,
            documents: tally.documents,
            changes: tally.changes,
            downloads: tally.downloads,
            captured: tally.captured,
            recall: tally.recall(),
            precision: tally.precision(),
            mean_recall: tally.mean_recall(),
            mean_precision: tally.mean_precision(),
            freshness: tally.freshness(),
        }
    }
}

fn write_json(out: &mut impl Write, report: &SimulationReport, over_time: bool) -> io::Result<()> {
    let mut line = |row: &JsonRow| -> io::Result<()> {
        serde_json::to_writer(&mut *out, row)?;
        writeln!(out)
    };
    for outcome in &report.outcomes {
        let name = outcome.strategy.name();
        line(&JsonRow::new(name, "all", &outcome.all))?;
        for (band, tally) in &outcome.bands {
            line(&JsonRow::new(name, band.label(), tally))?;
        }
    }
    if over_time {
        for outcome in &report.outcomes {
            for month in 1..=report.months {
                let tally = outcome.cumulative(month);
                let mut row = JsonRow::new(outcome.strategy.name(), "all", &tally);
                row.month = Some(month);
                row.documents = outcome.all.documents;
                row.freshness = None;
                row.mean_recall = None;
                row.mean_precision = None;
                line(&row)?;
            }
        }
    }
    Ok(())
}

fn write_header(
    out: &mut impl Write,
    report: &SimulationReport,
    source: &str,
    options: &SimulationOptions,
) -> io::Result<()> {
    let p = &options.policy;
    writeln!(
        out,
        "{} documents ({source}) over {} months; cycle {}; intervals {}–{}, start {}, week {}, \
         Markov prior {}",
        report.documents,
        report.months,
        format_duration(options.cycle),
        format_duration(p.min_interval),
        format_duration(p.max_interval),
        format_duration(p.initial_interval),
        format_duration(p.fixed_interval),
        format_number(p.markov_prior, 3),
    )?;
    for outcome in &report.outcomes {
        if let Some(budget) = outcome.budget {
            let how = if options.budget.is_some() {
                "given"
            } else {
                "as many downloads as gold"
            };
            writeln!(
                out,
                "{} budget: {} downloads per cycle ({how})",
                outcome.strategy,
                format_number(budget, 3)
            )?;
        }
    }
    writeln!(out)
}

fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"))
}

fn write_band_table(out: &mut impl Write, report: &SimulationReport) -> io::Result<()> {
    writeln!(
        out,
        "{:<7} {:>6} {:>8}  {:<9} {:>9} {:>8} {:>6} {:>9} {:>9} {:>9} {:>9}",
        "band",
        "docs",
        "changes",
        "strategy",
        "downloads",
        "captured",
        "recall",
        "precision",
        "doc-rec",
        "doc-prec",
        "freshness"
    )?;
    let mut rows: Vec<(String, Vec<(&StrategyOutcome, Tally)>)> = vec![(
        "all".into(),
        report.outcomes.iter().map(|o| (o, o.all)).collect(),
    )];
    for band in Band::ALL {
        let tallies: Vec<(&StrategyOutcome, Tally)> = report
            .outcomes
            .iter()
            .filter_map(|o| o.bands.get(&band).map(|t| (o, *t)))
            .collect();
        if !tallies.is_empty() {
            rows.push((band.label().to_string(), tallies));
        }
    }
    for (label, tallies) in rows {
        for (index, (outcome, tally)) in tallies.iter().enumerate() {
            let (band, docs, changes) = if index == 0 {
                (
                    label.as_str(),
                    tally.documents.to_string(),
                    tally.changes.to_string(),
                )
            } else {
                ("", String::new(), String::new())
            };
            writeln!(
                out,
                "{band:<7} {docs:>6} {changes:>8}  {:<9} {:>9} {:>8} {:>6} {:>9} {:>9} {:>9} {:>9}",
                outcome.strategy.name(),
                tally.downloads,
                tally.captured,
                ratio(tally.recall()),
                ratio(tally.precision()),
                ratio(tally.mean_recall()),
                ratio(tally.mean_precision()),
                ratio(tally.freshness()),
            )?;
        }
    }
    Ok(())
}

fn write_over_time(
    out: &mut impl Write,
    report: &SimulationReport,
    every: usize,
) -> io::Result<()> {
    let mut months: Vec<usize> = (every..=report.months).step_by(every).collect();
    if months.last() != Some(&report.months) && report.months > 0 {
        months.push(report.months);
    }
    for (title, pick) in [
        ("recall", Tally::recall as fn(&Tally) -> Option<f64>),
        ("precision", Tally::precision as fn(&Tally) -> Option<f64>),
    ] {
        writeln!(out)?;
        writeln!(out, "{title} over time (all documents, cumulative)")?;
        write!(out, "{:<6}", "month")?;
        for outcome in &report.outcomes {
            write!(out, " {:>9}", outcome.strategy.name())?;
        }
        writeln!(out)?;
        for &month in &months {
            write!(out, "{month:<6}")?;
            for outcome in &report.outcomes {
                write!(out, " {:>9}", ratio(pick(&outcome.cumulative(month))))?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// Arguments of `ldwarc plan crawl-time`.
#[derive(Debug, Args)]
pub struct CrawlTimeArgs {
    #[command(flatten)]
    root: RootArg,
    /// Read the workload from FILE instead of the crawl log: one JSON object per line,
    /// {"pld", "delay", "fetch_times": [...]} or {"pld", "delay", "urls", "fetch_time"},
    /// optionally "round" (see docs/scheduling.md); `-` reads stdin.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["crawl", "backtest"],
        value_parser = super::flags::existing_file_or_stdin()
    )]
    plds: Option<PathBuf>,
    /// The logged crawl whose URLs make the workload (default: the last finished one).
    #[arg(long, value_name = "ID")]
    crawl: Option<i64>,
    /// For every finished crawl: estimate from the fetch times of earlier crawls, and
    /// compare with the time it took.
    #[arg(long)]
    backtest: bool,
    /// Connections (default: the crawl's concurrency, else 64).
    #[arg(long, value_name = "N")]
    connections: Option<usize>,
    /// Per-PLD delay (default: the crawl's, else 2s; a --plds line's own delay wins).
    #[arg(long, value_name = "DURATION", value_parser = flags::duration_days)]
    delay: Option<f64>,
    /// Estimate the cycle on N crawler nodes sharing one frontier, --connections each
    /// (domains leased to free nodes, and partitioned by rendezvous hashing).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    nodes: Option<u64>,
    /// Print how many nodes (of --connections each) crawl the workload within DURATION,
    /// or why no number of nodes can.
    #[arg(long, value_name = "DURATION", value_parser = flags::duration_days)]
    cycle: Option<f64>,
    /// The largest cluster --cycle considers.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_nodes: usize,
    #[command(flatten)]
    output: super::flags::TextFormat,
}

/// What is asked about clusters of nodes, if anything.
#[derive(Debug, Clone, Copy)]
struct ClusterQuestion {
    nodes: Option<usize>,
    cycle: Option<f64>,
    max_nodes: usize,
}

impl ClusterQuestion {
    fn of(args: &CrawlTimeArgs) -> ClusterQuestion {
        ClusterQuestion {
            nodes: args.nodes.map(|n| n as usize),
            cycle: args.cycle,
            max_nodes: args.max_nodes,
        }
    }
}

/// The ldwarc crawler's defaults, for crawls that did not record their options.
const DEFAULT_CONNECTIONS: usize = 64;
const DEFAULT_CRAWL_DELAY: f64 = 2.0;

/// A workload split by crawl round (rounds run one after another).
type Rounds = BTreeMap<u32, Vec<PldWorkload>>;

/// One estimate as printed.
#[derive(Debug, Serialize)]
struct CrawlTimeReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    crawl: Option<i64>,
    fetches: usize,
    plds: usize,
    rounds: usize,
    connections: usize,
    estimate_seconds: f64,
    lower_bound_seconds: f64,
    paper_seconds: f64,
    paper: PaperEstimate,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<ClusterEstimate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_plan: Option<NodePlan>,
}

fn estimate_rounds(
    rounds: &Rounds,
    connections: usize,
    crawl: Option<i64>,
    actual: Option<f64>,
    cluster: ClusterQuestion,
) -> CrawlTimeReport {
    let ordered: Vec<Vec<PldWorkload>> = rounds.values().cloned().collect();
    let estimate = estimate_crawl_rounds(&ordered, connections);
    let cluster_estimate = cluster
        .nodes
        .map(|nodes| estimate_on_nodes(&ordered, nodes, connections));
    let node_plan = cluster
        .cycle
        .map(|cycle| plan_nodes(&ordered, connections, cycle, cluster.max_nodes));
    let plds: std::collections::BTreeSet<&str> =
        ordered.iter().flatten().map(|w| w.pld.as_str()).collect();
    let fetches = ordered.iter().flatten().map(|w| w.fetch_times.len()).sum();
    CrawlTimeReport {
        crawl,
        fetches,
        plds: plds.len(),
        rounds: rounds.len(),
        connections,
        estimate_seconds: estimate.simulated,
        lower_bound_seconds: estimate.lower_bound,
        paper_seconds: estimate.paper.seconds,
        paper: estimate.paper,
        actual_seconds: actual,
        error: actual
            .filter(|a| *a > 0.0)
            .map(|a| (estimate.simulated - a) / a),
        cluster: cluster_estimate,
        node_plan,
    }
}

/// `ldwarc plan crawl-time`.
pub fn crawl_time(args: CrawlTimeArgs) -> io::Result<i32> {
    let reports = match &args.plds {
        Some(path) => {
            let rounds = read_plds(path, args.delay)?;
            let connections = args.connections.unwrap_or(DEFAULT_CONNECTIONS);
            vec![estimate_rounds(
                &rounds,
                connections,
                None,
                None,
                ClusterQuestion::of(&args),
            )]
        }
        None => from_crawl_log(&args)?,
    };
    let mut out = output::stdout();
    if args.output.is_json() {
        for report in &reports {
            serde_json::to_writer(&mut out, report)?;
            writeln!(out)?;
        }
    } else if args.backtest {
        write_backtest(&mut out, &reports)?;
    } else if let Some(report) = reports.first() {
        write_estimate(&mut out, report)?;
    }
    out.flush()?;
    Ok(0)
}

fn write_estimate(out: &mut impl Write, r: &CrawlTimeReport) -> io::Result<()> {
    let crawl = r
        .crawl
        .map(|id| format!("crawl {id}: "))
        .unwrap_or_default();
    writeln!(
        out,
        "workload        {crawl}{} fetches, {} PLDs, {} round(s), {} connections",
        r.fetches, r.plds, r.rounds, r.connections
    )?;
    writeln!(
        out,
        "estimate        {}  (politeness simulation)",
        format_duration(r.estimate_seconds)
    )?;
    writeln!(
        out,
        "lower bound     {}",
        format_duration(r.lower_bound_seconds)
    )?;
    writeln!(
        out,
        "paper estimate  {}  (first-fit bin packing: {} bins, {} threads, cap {})",
        format_duration(r.paper_seconds),
        r.paper.bins,
        r.paper.threads,
        r.paper.thread_cap
    )?;
    if let Some(actual) = r.actual_seconds {
        let error = r
            .error
            .map(|e| format!("  (estimate {:+.1} %)", 100.0 * e))
            .unwrap_or_default();
        writeln!(out, "actual          {}{error}", format_duration(actual))?;
    }
    if let Some(cluster) = &r.cluster {
        write_cluster(out, cluster)?;
    }
    if let Some(plan) = &r.node_plan {
        write_node_plan(out, plan)?;
    }
    Ok(())
}

fn write_cluster(out: &mut impl Write, c: &ClusterEstimate) -> io::Result<()> {
    writeln!(
        out,
        "on {} nodes      {}  (domains leased to free nodes, {} connections each)",
        c.nodes,
        format_duration(c.leased_seconds),
        c.connections_per_node
    )?;
    writeln!(
        out,
        "                {}  (domains partitioned by rendezvous hashing)",
        format_duration(c.partitioned_seconds)
    )
}

fn write_node_plan(out: &mut impl Write, plan: &NodePlan) -> io::Result<()> {
    match (&plan.fits, &plan.reason) {
        (Some(fits), _) => writeln!(
            out,
            "nodes needed    {} for a {} cycle  (estimate {}, {} connections each; \
             politeness floor {})",
            fits.nodes,
            format_duration(plan.cycle_seconds),
            format_duration(fits.leased_seconds),
            fits.connections_per_node,
            format_duration(plan.floor_seconds)
        ),
        (None, reason) => writeln!(
            out,
            "nodes needed    none fits a {} cycle: {}",
            format_duration(plan.cycle_seconds),
            reason.as_deref().unwrap_or("no cluster fits")
        ),
    }
}

fn write_backtest(out: &mut impl Write, reports: &[CrawlTimeReport]) -> io::Result<()> {
    writeln!(
        out,
        "{:>6} {:>8} {:>5} {:>10} {:>10} {:>10} {:>8}",
        "crawl", "fetches", "plds", "estimate", "paper", "actual", "error"
    )?;
    let mut within = 0;
    let mut compared = 0;
    for r in reports {
        let error = r
            .error
            .map_or("-".to_string(), |e| format!("{:+.1}%", 100.0 * e));
        if let Some(e) = r.error {
            compared += 1;
            within += usize::from(e.abs() <= 0.2);
        }
        writeln!(
            out,
            "{:>6} {:>8} {:>5} {:>10} {:>10} {:>10} {:>8}",
            r.crawl.map_or("-".to_string(), |c| c.to_string()),
            r.fetches,
            r.plds,
            format_duration(r.estimate_seconds),
            format_duration(r.paper_seconds),
            r.actual_seconds.map_or("-".to_string(), format_duration),
            error
        )?;
    }
    writeln!(out, "within ±20 %: {within} of {compared} crawls")
}

/// The most URLs one `--plds` line may count: the estimate models every URL, so a count
/// beyond what any crawl cycle holds would only exhaust memory.
const MAX_URLS_PER_PLD_LINE: usize = 100_000_000;

/// A line of `--plds`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PldLine {
    pld: String,
    delay: Option<f64>,
    fetch_times: Option<Vec<f64>>,
    urls: Option<usize>,
    fetch_time: Option<f64>,
    #[serde(default)]
    round: u32,
}

fn parse_pld_line(text: &str, default_delay: f64) -> Result<(u32, PldWorkload), String> {
    let line: PldLine = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let fetch_times = match (line.fetch_times, line.urls) {
        (Some(times), None) => times,
        (None, Some(urls)) if urls > MAX_URLS_PER_PLD_LINE => {
            return Err(format!(
                "\"urls\": {urls} is more than {MAX_URLS_PER_PLD_LINE} per line; split the \
                 domain's work into rounds"
            ));
        }
        (None, Some(urls)) => vec![line.fetch_time.unwrap_or(DEFAULT_FETCH_TIME); urls],
        _ => return Err("give either \"fetch_times\" or \"urls\" (with \"fetch_time\")".into()),
    };
    if let Some(bad) = fetch_times.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
        return Err(format!("fetch time {bad} is not a non-negative number"));
    }
    let delay = line.delay.unwrap_or(default_delay);
    if !(delay.is_finite() && delay >= 0.0) {
        return Err(format!("delay {delay} is not a non-negative number"));
    }
    Ok((
        line.round,
        PldWorkload {
            pld: line.pld,
            delay,
            fetch_times,
        },
    ))
}

fn read_plds(path: &Path, delay: Option<f64>) -> io::Result<Rounds> {
    let name = path.display().to_string();
    let reader: Box<dyn BufRead> = if name == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file =
            File::open(path).map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        Box::new(BufReader::new(file))
    };
    let mut rounds = Rounds::new();
    for (index, line) in reader.lines().enumerate() {
        let line =
            line.map_err(|e| io::Error::new(e.kind(), format!("{name}:{}: {e}", index + 1)))?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (round, workload) = parse_pld_line(trimmed, delay.unwrap_or(DEFAULT_CRAWL_DELAY))
            .map_err(|why| invalid(format!("{name}:{}: {why}", index + 1)))?;
        rounds.entry(round).or_default().push(workload);
    }
    Ok(rounds)
}

/// The options a crawl recorded (see `crawl::crawler`), where present.
#[derive(Debug, Default, Deserialize)]
struct RecordedOptions {
    delay: Option<f64>,
    concurrency: Option<usize>,
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn from_crawl_log(args: &CrawlTimeArgs) -> io::Result<Vec<CrawlTimeReport>> {
    let state_dir = args.root.root.join("state");
    let database = state_dir.join("state.sqlite");
    if !database.exists() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{}: no crawl log (crawl first, or give --plds FILE)",
                database.display()
            ),
        ));
    }
    let store = StateStore::open_read_only(&state_dir).map_err(io::Error::other)?;
    let crawls = store.crawls().map_err(io::Error::other)?;
    let mut by_crawl: BTreeMap<i64, Vec<FetchLogEntry>> = BTreeMap::new();
    for run in &crawls {
        let fetches = store.fetch_log(Some(run.id)).map_err(io::Error::other)?;
        if !fetches.is_empty() {
            by_crawl.insert(run.id, fetches);
        }
    }
    let finished: Vec<_> = crawls
        .iter()
        .filter(|c| c.finished.is_some() && by_crawl.contains_key(&c.id))
        .collect();
    let chosen: Vec<_> = if args.backtest {
        finished.clone()
    } else {
        let pick = match args.crawl {
            Some(id) => crawls.iter().find(|c| c.id == id),
            None => finished.last().copied(),
        };
        let run = pick.ok_or_else(|| {
            invalid(match args.crawl {
                Some(id) => format!("{}: no crawl {id} in the log", database.display()),
                None => format!("{}: no finished crawl in the log", database.display()),
            })
        })?;
        vec![run]
    };
    let mut reports = Vec::new();
    for run in chosen {
        let recorded: RecordedOptions = serde_json::from_str(&run.options).unwrap_or_default();
        let delay = args.delay.or(recorded.delay).unwrap_or(DEFAULT_CRAWL_DELAY);
        let connections = args
            .connections
            .or(recorded.concurrency)
            .unwrap_or(DEFAULT_CONNECTIONS);
        let fetches = by_crawl.get(&run.id).map(Vec::as_slice).unwrap_or(&[]);
        let history: Vec<&FetchLogEntry> = if args.backtest {
            // Out of sample: only what earlier crawls observed.
            by_crawl
                .range(..run.id)
                .flat_map(|(_, entries)| entries)
                .collect()
        } else {
            fetches.iter().collect()
        };
        let times = FetchTimes::new(&history);
        let rounds = crawl_rounds(fetches, &times, delay);
        let actual = match (
            parse_time(&run.started),
            run.finished.as_deref().and_then(parse_time),
        ) {
            (Some(start), Some(end)) => Some((end - start).as_seconds_f64()),
            _ => None,
        };
        reports.push(estimate_rounds(
            &rounds,
            connections,
            Some(run.id),
            actual,
            ClusterQuestion::of(args),
        ));
    }
    Ok(reports)
}

/// Observed fetch times: per URL (the mean of its fetches) and per PLD.
struct FetchTimes {
    by_url: BTreeMap<String, (f64, usize)>,
    by_pld: BTreeMap<String, (f64, usize)>,
}

impl FetchTimes {
    fn new(entries: &[&FetchLogEntry]) -> Self {
        let mut by_url: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        let mut by_pld: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for entry in entries {
            let Some(duration) = entry.duration else {
                continue;
            };
            let seconds = duration.as_secs_f64();
            let url = by_url.entry(entry.url.clone()).or_default();
            url.0 += seconds;
            url.1 += 1;
            let pld = by_pld
                .entry(ldwarc_surt::pld_of_url(&entry.url))
                .or_default();
            pld.0 += seconds;
            pld.1 += 1;
        }
        Self { by_url, by_pld }
    }

    fn mean(table: &BTreeMap<String, (f64, usize)>, key: &str) -> Option<f64> {
        table
            .get(key)
            .filter(|(_, n)| *n > 0)
            .map(|(sum, n)| sum / *n as f64)
    }

    /// The URL's mean, else its PLD's, else the paper's default.
    fn expected(&self, url: &str, pld: &str) -> f64 {
        Self::mean(&self.by_url, url)
            .or_else(|| Self::mean(&self.by_pld, pld))
            .unwrap_or(DEFAULT_FETCH_TIME)
    }
}

/// The requests of a logged crawl (robots.txt and redirects included; URLs robots.txt
/// excluded were never requested) as workloads per round.
fn crawl_rounds(fetches: &[FetchLogEntry], times: &FetchTimes, delay: f64) -> Rounds {
    let mut grouped: BTreeMap<u32, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for entry in fetches {
        if entry.change == Change::Excluded {
            continue;
        }
        let pld = ldwarc_surt::pld_of_url(&entry.url);
        let expected = times.expected(&entry.url, &pld);
        grouped
            .entry(entry.round)
            .or_default()
            .entry(pld)
            .or_default()
            .push(expected);
    }
    grouped
        .into_iter()
        .map(|(round, plds)| {
            let workloads = plds
                .into_iter()
                .map(|(pld, fetch_times)| PldWorkload {
                    pld,
                    delay,
                    fetch_times,
                })
                .collect();
            (round, workloads)
        })
        .collect()
}

/// `ldwarc simulate`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const SIMULATE_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc simulate --synthetic weibull",
            "recall and precision of every strategy on a synthetic web",
        ),
        (
            "ldwarc simulate --histories histories.jsonl --format json",
            "on recorded change histories",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: &[(
        "--histories FILE",
        "change histories, one JSON object per line: url and change times",
    )],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pld_lines_take_lists_or_counts() {
        let (round, w) = parse_pld_line(
            r#"{"pld":"a.org","delay":1.5,"fetch_times":[0.5,0.25]}"#,
            2.0,
        )
        .unwrap();
        assert_eq!((round, w.delay, w.fetch_times), (0, 1.5, vec![0.5, 0.25]));
        let (round, w) = parse_pld_line(
            r#"{"pld":"b.org","urls":3,"fetch_time":0.1,"round":2}"#,
            2.0,
        )
        .unwrap();
        assert_eq!((round, w.delay, w.fetch_times), (2, 2.0, vec![0.1; 3]));
        let (_, w) = parse_pld_line(r#"{"pld":"c.org","urls":2}"#, 2.0).unwrap();
        assert_eq!(w.fetch_times, vec![DEFAULT_FETCH_TIME; 2]);
        assert!(parse_pld_line(r#"{"pld":"d.org"}"#, 2.0).is_err());
        assert!(parse_pld_line(r#"{"pld":"d.org","fetch_times":[-1]}"#, 2.0).is_err());
        assert!(parse_pld_line(r#"{"pld":"d.org","urls":1,"speed":3}"#, 2.0).is_err());
        let huge = parse_pld_line(r#"{"pld":"e.org","urls":1000000000000}"#, 2.0);
        assert!(huge.is_err_and(|e| e.contains("more than")));
    }

    #[test]
    fn strategy_and_weibull_arguments_parse() {
        assert_eq!(parse_strategy("state-2"), Ok(Strategy::State2));
        assert!(parse_strategy("daily").is_err());
        let w = flags::weibull("0.8,100d").unwrap();
        assert_eq!((w.shape, w.scale), (0.8, 100.0 * DAY));
        assert!(flags::weibull("0.8").is_err());
        assert_eq!(parse_model("bursty"), Ok(SyntheticModel::Bursty));
    }
}
