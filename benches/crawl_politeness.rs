//! Crawl politeness benchmark.
//!
//! Serves a generated Linked Data web on loopback (`ldwarc_testweb`): at least 500 pay-level
//! domains (default 600) with a power-law number of documents each (the largest 400,
//! exponent 1.0), a server latency (default 2 ms) and a scaled-down per-PLD delay d (default
//! 0.1 s). Every PLD's index document links all of its documents, so `--hops 1` from the
//! index documents covers the web. Then, in the same run on the same web, it prints:
//! - `ldwarc crawl` (the bench-profile binary, `--resolve '*.example=127.0.0.1:PORT' --delay d
//!   --hops 1 --concurrency 64`): wall time over the politeness lower bound, the largest
//!   number of requests any PLD received (robots.txt included, from the server's log) times
//!   d (target <= 1.15), and over the bound that also counts the latency, requests x (d +
//!   latency); documents/s; peak RSS (from its `--json` summary). It must capture every
//!   document and keep d between requests to one PLD by the server's clock;
//! - `wget --recursive --level=1 --span-hosts --wait=d --warc-file` (sequential, robots.txt
//!   obeyed) through the server's proxy, the same figures, its peak RSS polled from
//!   `/proc/<pid>/status` (VmHWM), and how many documents its WARC holds;
//! - the memory of a `Frontier` of 1,000,000 URLs (67 bytes on average, 10,000 PLDs,
//!   Zipf-distributed), plus 700,000 in-link updates (500,000 while the URLs wait for the
//!   next round, 200,000 once they are in the current round's ordered queues): growth of this
//!   process's resident set at its peak (target <= 500 MB). Measured first, while the
//!   process is small.
//!
//! Exits non-zero when ldwarc's ratio exceeds 1.15, it misses a document, sends anything
//! twice or breaks the delay, or the frontier exceeds 500 MB. Run with
//! `cargo bench --bench crawl_politeness` (about 3.5 minutes, most of it wget). Knobs:
//! `LDWARC_BENCH_PLDS`, `LDWARC_BENCH_MAX_DOCS`, `LDWARC_BENCH_EXPONENT`,
//! `LDWARC_BENCH_DELAY` (seconds), `LDWARC_BENCH_LATENCY_MS`, `LDWARC_BENCH_CONCURRENCY`,
//! `LDWARC_BENCH_FRONTIER_URLS`; `LDWARC_BENCH_SKIP_PEERS=1` skips wget; `LDWARC_WGET` names
//! the wget to run (a missing wget fails the bench); `LDWARC_BENCH_LOG=DIR` writes the
//! server's log of each crawl to `DIR/ldwarc.tsv` and `DIR/wget.tsv`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ldwarc_crawl::frontier::{Frontier, NewUrl, UrlKind};
use ldwarc_surt::pay_level_domain;
use ldwarc_testweb::{GenSpec, LoggedRequest, SplitMix64, TestWebServer, Web};
use ldwarc_warc::WarcReader;

/// Largest crawl time over the politeness lower bound that passes.
const RATIO_TARGET: f64 = 1.15;
/// Largest frontier growth of the resident set, in bytes, that passes.
const FRONTIER_TARGET: u64 = 500_000_000;
const MB: f64 = 1e6;

/// The parameters of one run, from the environment or the defaults.
#[derive(Debug, Clone)]
struct Params {
    plds: usize,
    max_docs: usize,
    exponent: f64,
    delay: f64,
    latency: Duration,
    concurrency: usize,
    frontier_urls: usize,
    frontier_plds: usize,
}

fn env_value<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl Params {
    fn from_env() -> Params {
        Params {
            plds: env_value("LDWARC_BENCH_PLDS", 600),
            max_docs: env_value("LDWARC_BENCH_MAX_DOCS", 400),
            exponent: env_value("LDWARC_BENCH_EXPONENT", 1.0),
            delay: env_value("LDWARC_BENCH_DELAY", 0.1),
            latency: Duration::from_secs_f64(env_value("LDWARC_BENCH_LATENCY_MS", 2.0) / 1e3),
            concurrency: env_value("LDWARC_BENCH_CONCURRENCY", 64),
            frontier_urls: env_value("LDWARC_BENCH_FRONTIER_URLS", 1_000_000),
            frontier_plds: 10_000,
        }
    }
}

/// What the server's log says about one crawl.
#[derive(Debug, Default)]
struct LogSummary {
    requests: usize,
    /// The PLD that received the most requests, and how many.
    busiest: (String, usize),
    /// Smallest interval between two requests to one PLD, by the server's clock.
    min_gap: Option<Duration>,
    /// Intervals between consecutive requests to the busiest PLD, in the order sent.
    busiest_gaps: Vec<Duration>,
    /// When the busiest PLD's first and last requests arrived, from the first request of all.
    busiest_span: (f64, f64),
    /// When the first and the last request arrived.
    first: Option<Instant>,
    last: Option<Instant>,
    /// Document URLs answered 200.
    documents: BTreeSet<String>,
}

/// One tool's crawl of the web.
#[derive(Debug)]
struct ToolRun {
    tool: String,
    wall: f64,
    /// Documents (not robots.txt) the tool archived.
    archived: usize,
    peak_rss: Option<u64>,
    /// User plus system CPU seconds.
    cpu: Option<f64>,
    /// Seconds from the start to the first request, and from the last request to the exit.
    idle: (f64, f64),
    log: LogSummary,
}

/// Seconds from a process's start to the first request it sent, and from its last request
/// to its exit.
fn idle_ends(run: &Measured, log: &LogSummary) -> (f64, f64) {
    let ended = run.started + Duration::from_secs_f64(run.wall);
    let since = |a: Instant, b: Instant| b.saturating_duration_since(a).as_secs_f64();
    (
        log.first.map_or(0.0, |first| since(run.started, first)),
        log.last.map_or(0.0, |last| since(last, ended)),
    )
}

fn main() {
    let params = Params::from_env();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("parameters: {params:?}, {cores} cores");
    let mut failures = Vec::new();

    // The frontier first, while the process is small and its heap holds nothing freed.
    let frontier_growth = measure_frontier(params.frontier_urls, params.frontier_plds);
    if frontier_growth > FRONTIER_TARGET {
        failures.push(format!(
            "frontier of {} URLs grew the resident set by {:.1} MB (target <= {:.0} MB)",
            params.frontier_urls,
            frontier_growth as f64 / MB,
            FRONTIER_TARGET as f64 / MB
        ));
    }

    let web = Web::generate(GenSpec {
        plds: params.plds,
        max_docs_per_pld: params.max_docs,
        power_law_exponent: params.exponent,
        links_per_doc: 4,
        latency: params.latency,
        seed: 42,
    });
    let documents = web.document_urls();
    assert_eq!(
        web.urls_within_hops(&web.seeds, 1, 0),
        documents,
        "one hop from the index documents must reach the whole generated web"
    );
    let largest = web.hosts.values().map(|h| h.resources.len()).max();
    println!(
        "web: {} PLDs, {} documents, largest PLD {} documents, latency {:.1} ms, delay {:.3} s",
        web.hosts.len(),
        documents.len(),
        largest.unwrap_or(0),
        params.latency.as_secs_f64() * 1e3,
        params.delay
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let seeds_file = dir.path().join("seeds.txt");
    std::fs::write(&seeds_file, web.seeds.join("\n") + "\n").expect("write seeds.txt");
    let server = TestWebServer::start(web).expect("start the test web server");

    let ours = crawl_with_ldwarc(&server, &params, dir.path(), &seeds_file, &documents);
    check_ldwarc(&ours, &params, &documents, &mut failures);
    let mut runs = vec![ours];
    if std::env::var_os("LDWARC_BENCH_SKIP_PEERS").is_none() {
        server.clear_log();
        runs.push(crawl_with_wget(&server, &params, dir.path(), &seeds_file));
    } else {
        println!("(wget skipped: LDWARC_BENCH_SKIP_PEERS is set)");
    }
    print_table(&runs, &params, documents.len());

    if failures.is_empty() {
        println!("all targets met");
    } else {
        for failure in &failures {
            eprintln!("FAILED: {failure}");
        }
        std::process::exit(1);
    }
}

/// Runs `ldwarc crawl` over the web and summarises it.
fn crawl_with_ldwarc(
    server: &TestWebServer,
    params: &Params,
    dir: &Path,
    seeds_file: &Path,
    documents: &BTreeSet<String>,
) -> ToolRun {
    let root = dir.join("ldwarc-root");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ldwarc"));
    command
        .arg("crawl")
        .arg("--root")
        .arg(&root)
        .arg("--resolve")
        .arg(format!("*.example=127.0.0.1:{}", server.port()))
        .args(["--delay", &format!("{}s", params.delay)])
        .args(["--hops", "1", "--timeout", "30s", "--format", "json"])
        .args(["--concurrency", &params.concurrency.to_string()])
        .arg(format!("@{}", seeds_file.display()));
    let run = run_measured(&mut command);
    assert!(
        run.code == Some(0),
        "ldwarc crawl failed ({:?}): {}",
        run.code,
        run.stderr
    );
    let text = run.stdout.trim();
    let summary: serde_json::Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("ldwarc crawl --json printed {text:?}: {e}"));
    println!("ldwarc summary: {text}");
    let field = |name: &str| summary[name].as_u64().unwrap_or(0);
    // Captures count robots.txt answers too: one per PLD.
    let robots = server.web().hosts.len() as u64;
    let archived = field("captures").saturating_sub(robots) as usize;
    let log = summarise_log(&logged(server, "ldwarc"));
    if log.documents != *documents {
        let missing: Vec<_> = documents.difference(&log.documents).take(5).collect();
        println!(
            "ldwarc: {} of {} documents answered 200, missing e.g. {missing:?}",
            log.documents.len(),
            documents.len()
        );
    }
    ToolRun {
        tool: format!("ldwarc crawl (--concurrency {})", params.concurrency),
        wall: run.wall,
        archived,
        peak_rss: summary["peak_rss_bytes"].as_u64(),
        cpu: run.cpu,
        idle: idle_ends(&run, &log),
        log,
    }
}

/// ldwarc must capture every document, exactly once each, and keep the delay.
fn check_ldwarc(
    run: &ToolRun,
    params: &Params,
    documents: &BTreeSet<String>,
    failures: &mut Vec<String>,
) {
    let bound = run.log.busiest.1 as f64 * params.delay;
    let ratio = run.wall / bound;
    if ratio > RATIO_TARGET {
        failures.push(format!(
            "ldwarc took {:.2} s, {ratio:.3}x the politeness lower bound {bound:.2} s (target <= {RATIO_TARGET})",
            run.wall
        ));
    }
    if run.archived != documents.len() || run.log.documents != *documents {
        failures.push(format!(
            "ldwarc archived {} documents and the server answered {} of the web's {}",
            run.archived,
            run.log.documents.len(),
            documents.len()
        ));
    }
    let expected_requests = documents.len() + params.plds;
    if run.log.requests != expected_requests {
        failures.push(format!(
            "ldwarc sent {} requests, expected {expected_requests} (every document and robots.txt once)",
            run.log.requests
        ));
    }
    if let Some(gap) = run.log.min_gap
        && gap.as_secs_f64() < params.delay
    {
        failures.push(format!(
            "ldwarc sent two requests to one PLD {:.1} ms apart (delay {:.0} ms)",
            gap.as_secs_f64() * 1e3,
            params.delay * 1e3
        ));
    }
}

/// wget: `$LDWARC_WGET`, else `/usr/bin/wget`, else the first on PATH; missing wget panics.
fn wget() -> PathBuf {
    if let Some(path) = std::env::var_os("LDWARC_WGET") {
        return PathBuf::from(path);
    }
    let candidates = std::iter::once(PathBuf::from("/usr/bin/wget")).chain(
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
            .map(|dir| dir.join("wget")),
    );
    candidates
        .into_iter()
        .find(|path| path.exists())
        .unwrap_or_else(|| {
            panic!("wget is not installed (apt-get install wget): the bench compares against it")
        })
}

/// Runs `wget --recursive` over the web through the server's proxy and summarises it.
fn crawl_with_wget(
    server: &TestWebServer,
    params: &Params,
    dir: &Path,
    seeds_file: &Path,
) -> ToolRun {
    let warc_prefix = dir.join("wget");
    let mut command = Command::new(wget());
    command
        .args(["--no-config", "--no-verbose", "--tries=1", "--timeout=30"])
        .args([
            "--recursive",
            "--level=1",
            "--span-hosts",
            "-e",
            "robots=on",
        ])
        .arg(format!("--wait={}", params.delay))
        .args(["-e", "use_proxy=yes", "-e"])
        .arg(format!("http_proxy={}", server.proxy_url()))
        .arg(format!("--warc-file={}", warc_prefix.display()))
        .arg("--directory-prefix")
        .arg(dir.join("wget-download"))
        .arg("--input-file")
        .arg(seeds_file)
        .env_remove("no_proxy")
        .env_remove("NO_PROXY");
    let run = run_measured(&mut command);
    // wget exits 8 when a server answered an error; the WARC tells what it fetched.
    assert!(
        matches!(run.code, Some(0 | 8)),
        "wget failed ({:?}): {}",
        run.code,
        run.stderr
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let warc = dir.join("wget.warc.gz");
    let log = summarise_log(&logged(server, "wget"));
    ToolRun {
        tool: format!("wget --recursive --wait={}", params.delay),
        wall: run.wall,
        archived: count_document_responses(&warc),
        peak_rss: run.peak_rss,
        cpu: run.cpu,
        idle: idle_ends(&run, &log),
        log,
    }
}

/// A finished child process and what it cost.
struct Measured {
    started: Instant,
    wall: f64,
    code: Option<i32>,
    /// Last `VmHWM` seen while it ran.
    peak_rss: Option<u64>,
    /// User plus system CPU seconds, last seen while it ran.
    cpu: Option<f64>,
    stdout: String,
    stderr: String,
}

/// Runs a command with piped output, polling its peak resident set (`VmHWM`) and CPU time
/// every 10 ms until it exits (no `wait4` without libc; both only grow).
fn run_measured(command: &mut Command) -> Measured {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let proc_dir = format!("/proc/{}", child.id());
    let (mut peak_rss, mut cpu) = (None, None);
    let status = loop {
        peak_rss = status_field_bytes(&format!("{proc_dir}/status"), "VmHWM:").or(peak_rss);
        cpu = cpu_seconds(&format!("{proc_dir}/stat")).or(cpu);
        match child.try_wait().expect("wait for the child") {
            Some(status) => break status,
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    Measured {
        started: start,
        wall: start.elapsed().as_secs_f64(),
        code: status.code(),
        peak_rss,
        cpu,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Reads a child's pipe to its end on a thread.
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            // A broken pipe only shortens what is shown.
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// utime + stime of a `/proc/<pid>/stat` file, in seconds (USER_HZ is 100 on Linux).
fn cpu_seconds(path: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(path).ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// A `kB` field of a `/proc/.../status` file, in bytes.
fn status_field_bytes(path: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Response records in a WARC whose target is not a robots.txt.
fn count_document_responses(warc: &Path) -> usize {
    let mut reader = WarcReader::open(warc)
        .unwrap_or_else(|e| panic!("wget wrote no readable {}: {e}", warc.display()));
    let mut count = 0;
    while let Some(record) = reader.next_record() {
        let record = record.unwrap_or_else(|e| panic!("{}: {e}", warc.display()));
        let is_document = record.header.record_type() == Some("response")
            && !record
                .header
                .target_uri()
                .is_some_and(|uri| uri.contains("/robots.txt"));
        count += usize::from(is_document);
        record
            .finish()
            .unwrap_or_else(|e| panic!("{}: {e}", warc.display()));
    }
    count
}

/// The server's log; also written to `$LDWARC_BENCH_LOG/<name>.tsv` when that is set
/// (milliseconds since the first request, host, path, status) for closer study.
fn logged(server: &TestWebServer, name: &str) -> Vec<LoggedRequest> {
    let requests = server.requests();
    if let Some(dir) = std::env::var_os("LDWARC_BENCH_LOG") {
        let first = requests.iter().map(|r| r.received_instant).min();
        let mut text = String::new();
        for r in &requests {
            let ms = first.map_or(0.0, |f| (r.received_instant - f).as_secs_f64() * 1e3);
            let status = r.status.map_or("-".to_string(), |s| s.to_string());
            text.push_str(&format!("{ms:.3}\t{}\t{}\t{status}\n", r.host, r.path));
        }
        let path = Path::new(&dir).join(format!("{name}.tsv"));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    requests
}

/// Requests per PLD, the intervals between them, and the documents answered.
fn summarise_log(requests: &[LoggedRequest]) -> LogSummary {
    let mut by_pld: BTreeMap<String, Vec<Instant>> = BTreeMap::new();
    let mut documents = BTreeSet::new();
    for request in requests {
        by_pld
            .entry(pay_level_domain(&request.host))
            .or_default()
            .push(request.received_instant);
        if request.path != "/robots.txt" && request.status == Some(200) {
            documents.insert(request.url());
        }
    }
    let first = requests.iter().map(|r| r.received_instant).min();
    let mut summary = LogSummary {
        requests: requests.len(),
        first,
        last: requests.iter().map(|r| r.received_instant).max(),
        documents,
        ..LogSummary::default()
    };
    for (pld, times) in &mut by_pld {
        times.sort();
        let gaps = times.windows(2).map(|pair| pair[1] - pair[0]);
        summary.min_gap = gaps.chain(summary.min_gap).min();
        if times.len() > summary.busiest.1 {
            summary.busiest = (pld.clone(), times.len());
            summary.busiest_gaps = times.windows(2).map(|p| p[1] - p[0]).collect();
            let offset = |t: &Instant| first.map_or(0.0, |f| (*t - f).as_secs_f64());
            summary.busiest_span = (offset(&times[0]), offset(&times[times.len() - 1]));
        }
    }
    summary
}

/// The busiest PLD's intervals: the first two (robots.txt to the index document, the index
/// document to the first of round 1), then mean, p50, p90, p99 and max of all, in ms.
fn describe_gaps(gaps: &[Duration]) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if gaps.is_empty() {
        return "no intervals".to_string();
    }
    let mut sorted = gaps.to_vec();
    sorted.sort();
    let at = |q: f64| ms(sorted[((sorted.len() - 1) as f64 * q).round() as usize]);
    let total: Duration = gaps.iter().sum();
    format!(
        "first {:.1} and {:.1}; mean {:.1}, p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
        ms(gaps[0]),
        gaps.get(1).map_or(0.0, |g| ms(*g)),
        ms(total) / gaps.len() as f64,
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

fn print_table(runs: &[ToolRun], params: &Params, documents: usize) {
    let latency = params.latency.as_secs_f64();
    println!();
    println!(
        "{:<36} {:>8} {:>9} {:>7} {:>9} {:>9} {:>8} {:>11} {:>6}",
        "tool",
        "wall s",
        "bound s",
        "ratio",
        "bound+lat",
        "ratio+lat",
        "docs/s",
        "peak RSS MB",
        "CPU s"
    );
    for run in runs {
        let requests = run.log.busiest.1 as f64;
        let bound = requests * params.delay;
        let bound_latency = requests * (params.delay + latency);
        println!(
            "{:<36} {:>8.2} {:>9.2} {:>7.3} {:>9.2} {:>9.3} {:>8.1} {:>11} {:>6}",
            run.tool,
            run.wall,
            bound,
            run.wall / bound,
            bound_latency,
            run.wall / bound_latency,
            run.archived as f64 / run.wall,
            run.peak_rss
                .map_or("?".to_string(), |b| format!("{:.1}", b as f64 / MB)),
            run.cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
        );
    }
    println!();
    println!(
        "bound = most requests to one PLD (robots.txt included, server log) x d; \
         bound+lat = the same x (d + latency); target ratio <= {RATIO_TARGET}"
    );
    for run in runs {
        let (pld, requests) = &run.log.busiest;
        println!(
            "{}: {}/{documents} documents archived, {} requests, smallest interval between \
             two requests to one PLD {:.1} ms; first request {:.2} s after the start, exit {:.2} s \
             after the last",
            run.tool,
            run.archived,
            run.log.requests,
            run.log.min_gap.map_or(0.0, |g| g.as_secs_f64() * 1e3),
            run.idle.0,
            run.idle.1,
        );
        println!(
            "  busiest PLD {pld}: {requests} requests from +{:.2} s to +{:.2} s; intervals (ms): {}",
            run.log.busiest_span.0,
            run.log.busiest_span.1,
            describe_gaps(&run.log.busiest_gaps)
        );
    }
}

/// Fills a frontier with `urls` URLs over `plds` PLDs (Zipf-distributed) for the next round
/// with `urls / 2` in-link updates among them, moves them into the current round, updates
/// `urls / 5` in-link counts there, and prints what that cost; returns the growth of the
/// resident set at its peak.
fn measure_frontier(urls: usize, plds: usize) -> u64 {
    let rss_before = own_status("VmRSS:");
    let start = Instant::now();
    let mut frontier = Frontier::new(0, Duration::from_secs(2));
    let mut rng = SplitMix64::new(7);
    let mut url_bytes = 0usize;
    for i in 0..urls {
        let new = frontier_url(i, plds);
        url_bytes += new.url.len();
        frontier.add(new);
        if i % 2 == 1 {
            let again = rng.below(i + 1);
            frontier.add(frontier_url(again, plds));
        }
    }
    let after_adds = own_status("VmRSS:");
    assert!(frontier.advance_round(), "the frontier has queued URLs");
    // In-link updates in the current round move URLs within their PLD's ordered queue.
    for _ in 0..urls / 5 {
        let again = rng.below(urls);
        frontier.add(frontier_url(again, plds));
    }
    let seconds = start.elapsed().as_secs_f64();
    let rss_after = own_status("VmRSS:");
    let peak = own_status("VmHWM:");
    assert_eq!(frontier.len(), urls, "every URL known once");
    assert_eq!(frontier.queued(), (urls, 0));
    let growth = peak.saturating_sub(rss_before);
    println!(
        "frontier: {} URLs (mean {:.0} bytes) over {plds} PLDs, {} in-link updates, {:.1} s",
        frontier.len(),
        url_bytes as f64 / urls as f64,
        urls / 2 + urls / 5,
        seconds
    );
    println!(
        "frontier: resident set +{:.1} MB after adding (next round), +{:.1} MB in the current \
         round, peak +{:.1} MB = {:.0} bytes/URL (target <= {:.0} MB)",
        after_adds.saturating_sub(rss_before) as f64 / MB,
        rss_after.saturating_sub(rss_before) as f64 / MB,
        growth as f64 / MB,
        growth as f64 / urls as f64,
        FRONTIER_TARGET as f64 / MB
    );
    drop(frontier);
    growth
}

/// A `kB` field of this process's `/proc/self/status`, in bytes (0 when unreadable).
fn own_status(field: &str) -> u64 {
    status_field_bytes("/proc/self/status", field).unwrap_or(0)
}

/// URL number `i`: a Zipf-distributed PLD and a path, about 70 bytes in all. The PLD is drawn
/// from a generator seeded by `i`, so the same `i` always gives the same URL.
fn frontier_url(i: usize, plds: usize) -> NewUrl {
    const SECTIONS: [&str; 4] = ["resource", "dataset", "ontology", "page"];
    // floor((plds + 1)^u) - 1 for uniform u: rank r drawn with probability about 1/r.
    let uniform = (SplitMix64::new(i as u64).next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let rank = ((plds as f64 + 1.0).powf(uniform) as usize).clamp(1, plds) - 1;
    let pld = format!("pld{rank:05}-linked.org");
    let section = SECTIONS[i % SECTIONS.len()];
    NewUrl {
        url: format!("http://data.{pld}/{section}/by-id/entity-{i:010}.rdf"),
        pld,
        hops: 2,
        redirects: 0,
        via: Some(0),
        path: "LL".to_string(),
        kind: UrlKind::Link,
        round: 1,
        inlinks: 0,
    }
}
