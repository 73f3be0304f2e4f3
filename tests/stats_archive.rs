//! `ldwarc stats` recovers known change rates from an archive (issue #8): documents change by
//! Poisson processes of known rates spread from 0.2 to 3 changes a day and are captured
//! daily for 120 days, written as WARC records (responses, and revisits when unchanged) with
//! `ArchiveWriter`; after `ldwarc index`, `ldwarc stats --truth` prints the median relative
//! error of Cho & Garcia-Molina's bias-reduced estimate, which must be at most 15% for the
//! URLs with at least 10 observations. Also checked: RDF- versus byte-level changes, the
//! Last-Modified estimate, snapshots, what is not a document, the CSV and text outputs, the
//! figures (one rendered to pixels with resvg), and `ldwarc plan currency --from-archive`.
//!
//! Set `LDWARC_STATS_PLOTS_TO=DIR` to keep the figures of the run (docs/img/ holds a copy),
//! `LDWARC_STATS_KEEP=1` to keep the archive and the truth file.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{Block, PayloadKind, WarcHeader, profiles, record_header, sha1_digest};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

/// Daily captures: day 0 to day `DAYS`.
const DAYS: i64 = 120;
/// Documents per pay-level domain observed every day.
const DOCUMENTS_PER_PLD: usize = 20;
const PLDS: [&str; 3] = ["lod-alpha.org", "lod-beta.net", "lod-gamma.com"];
/// Documents observed on the first `SHORT_DAYS + 1` days only (fewer than 10 observations).
const SHORT_DOCUMENTS: usize = 3;
const SHORT_DAYS: i64 = 4;

fn base_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 1, 0, 0, 0).single().unwrap()
}

/// One synthetic document: its URL, its true rate (changes per day) and its change times
/// (days after `base_time`, from 30 days before the first capture).
struct Document {
    url: String,
    host: String,
    rate: f64,
    changes: Vec<f64>,
    /// Captured on days `0..=last_day`.
    last_day: i64,
    /// Re-serialised (new bytes, same graph) on some unchanged days.
    reserialises: bool,
}

impl Document {
    /// How many changes happened by `day`, and when the latest happened.
    fn version_at(&self, day: f64) -> (usize, f64) {
        let version = self.changes.partition_point(|&c| c <= day);
        let last = if version == 0 {
            -30.0
        } else {
            self.changes[version - 1]
        };
        (version, last)
    }
}

fn documents() -> Vec<Document> {
    let mut rng = StdRng::seed_from_u64(20_250_301);
    let mut documents = Vec::new();
    for (p, pld) in PLDS.iter().enumerate() {
        let count = DOCUMENTS_PER_PLD + if p == 0 { SHORT_DOCUMENTS } else { 0 };
        for i in 0..count {
            // Log-uniform rates from 0.2 to 3 changes a day.
            let rate = 0.2 * 15f64.powf(rng.random::<f64>());
            let mut changes = Vec::new();
            let mut t = -30.0;
            loop {
                t += -(1.0 - rng.random::<f64>()).ln() / rate;
                if t > DAYS as f64 + 1.0 {
                    break;
                }
                changes.push(t);
            }
            let host = format!("data.{pld}");
            documents.push(Document {
                url: format!("http://{host}/resource/Doc{i}"),
                host,
                rate,
                changes,
                last_day: if i >= DOCUMENTS_PER_PLD {
                    SHORT_DAYS
                } else {
                    DAYS
                },
                reserialises: p == 2,
            });
        }
    }
    documents
}

/// A Turtle body of the document's version; `comment` changes the bytes, not the graph.
fn body(url: &str, version: usize, comment: Option<i64>) -> Vec<u8> {
    let mut text = format!(
        "@prefix ex: <http://example.org/ns#> .\n<{url}> ex:version \"{version}\" ;\n  \
         ex:label \"Document version {version}\"@en ;\n  ex:seeAlso <{url}/v{version}> .\n"
    );
    if let Some(day) = comment {
        text.push_str(&format!("# served on day {day}\n"));
    }
    text.into_bytes()
}

fn http_date(time: DateTime<Utc>) -> String {
    time.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn http_head(status: &str, headers: &[(&str, String)], length: usize) -> String {
    let mut head = format!("HTTP/1.1 {status}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {length}\r\n\r\n"));
    head
}

fn response(time: DateTime<Utc>, url: &str, head: String, body: &[u8]) -> (WarcHeader, Block) {
    let mut header = record_header("response", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    (header, Block::from_bytes(bytes, PayloadKind::Http).unwrap())
}

fn revisit(
    time: DateTime<Utc>,
    url: &str,
    head: String,
    body: &[u8],
    original: DateTime<Utc>,
) -> (WarcHeader, Block) {
    let mut header = record_header("revisit", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
    header.push("WARC-Refers-To-Target-URI", url);
    header.push("WARC-Refers-To-Date", format_warc_date(original));
    header.push("WARC-Payload-Digest", sha1_digest(body));
    header.push("WARC-Truncated", "length");
    (
        header,
        Block::from_bytes(head.into_bytes(), PayloadKind::None).unwrap(),
    )
}

/// Writes the archive: every document daily (a response when its bytes changed since its
/// previous capture, else a revisit), and per PLD a robots.txt, an HTML page and a redirect.
fn write_archive(root: &Path, documents: &[Document]) {
    let (mut writer, _) = ArchiveWriter::open(root, ArchiveWriterOptions::default()).unwrap();
    // The first capture of each document's current bytes: (digest, time).
    let mut originals: HashMap<String, (String, DateTime<Utc>)> = HashMap::new();
    for day in 0..=DAYS {
        let morning = base_time() + TimeDelta::days(day);
        for (p, pld) in PLDS.iter().enumerate() {
            write_non_documents(&mut writer, pld, morning + TimeDelta::seconds(p as i64));
        }
        for (i, document) in documents.iter().enumerate() {
            if day > document.last_day {
                continue;
            }
            let time = morning + TimeDelta::minutes(1 + i as i64) + TimeDelta::milliseconds(1);
            let at = (time - base_time()).num_milliseconds() as f64 / 86_400_000.0;
            let (version, changed_at) = document.version_at(at);
            let comment = (document.reserialises && day % 7 == 3).then_some(day);
            let content = body(&document.url, version, comment);
            let last_modified =
                base_time() + TimeDelta::milliseconds((changed_at * 86_400_000.0) as i64);
            let head = http_head(
                "200 OK",
                &[
                    ("Content-Type", "text/turtle; charset=utf-8".to_string()),
                    ("Last-Modified", http_date(last_modified)),
                    ("Date", http_date(time)),
                ],
                content.len(),
            );
            let digest = sha1_digest(&content);
            let record = match originals.get(&document.url) {
                Some((known, original)) if *known == digest => {
                    revisit(time, &document.url, head, &content, *original)
                }
                _ => {
                    originals.insert(document.url.clone(), (digest, time));
                    response(time, &document.url, head, &content)
                }
            };
            writer.write_capture(&document.host, vec![record]).unwrap();
        }
    }
    writer.close().unwrap();
}

/// A robots.txt, an HTML page and a redirect: captured, but not documents.
fn write_non_documents(writer: &mut ArchiveWriter, pld: &str, time: DateTime<Utc>) {
    let host = format!("data.{pld}");
    let robots = b"User-agent: *\nDisallow:\n";
    let html = b"<!doctype html><title>Home</title><p>Hello</p>";
    let records = [
        (
            format!("http://{host}/robots.txt"),
            http_head(
                "200 OK",
                &[("Content-Type", "text/plain".into())],
                robots.len(),
            ),
            &robots[..],
        ),
        (
            format!("http://{host}/index.html"),
            http_head(
                "200 OK",
                &[("Content-Type", "text/html".into())],
                html.len(),
            ),
            &html[..],
        ),
        (
            format!("http://{host}/old"),
            http_head(
                "301 Moved Permanently",
                &[("Location", format!("http://{host}/resource/Doc0"))],
                0,
            ),
            &b""[..],
        ),
    ];
    for (url, head, content) in records {
        let record = response(time, &url, head, content);
        writer.write_capture(&host, vec![record]).unwrap();
    }
}

fn stats_json(root: &Path, extra: &[&str]) -> Value {
    let output = common::run(
        common::ldwarc()
            .arg("stats")
            .arg("--root")
            .arg(root)
            .args(["--format", "json"])
            .args(extra),
    );
    let text = common::stdout_ok(&output, "ldwarc stats --format json");
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    assert!(n > 0);
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// (all pixels, pixels that are not white, pixels with colour) of an SVG rendered by resvg.
fn rendered_pixels(svg: &str) -> (usize, usize, usize) {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default()).unwrap();
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    let pixels = pixmap.pixels();
    let not_white = pixels
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) != (255, 255, 255))
        .count();
    let coloured = pixels
        .iter()
        .filter(|p| p.red().abs_diff(p.green()) > 40 || p.green().abs_diff(p.blue()) > 40)
        .count();
    (pixels.len(), not_white, coloured)
}

#[test]
fn stats_recover_known_change_rates() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let documents = documents();
    write_archive(&root, &documents);
    let index = common::run(common::ldwarc().arg("index").arg("--root").arg(&root));
    common::stdout_ok(&index, "ldwarc index");

    let truth: serde_json::Map<String, Value> = documents
        .iter()
        .map(|d| (d.url.clone(), Value::from(d.rate)))
        .collect();
    let truth_path = dir.path().join("truth.json");
    std::fs::write(&truth_path, Value::Object(truth).to_string()).unwrap();
    let plots = dir.path().join("plots");
    let report = stats_json(
        &root,
        &[
            "--truth",
            truth_path.to_str().unwrap(),
            "--plot",
            plots.to_str().unwrap(),
        ],
    );

    check_documents(&report, &documents);
    check_rates(&report, &documents);
    check_snapshots(&report, &documents);
    check_text_and_csv(&root, &truth_path);
    check_plots(&plots);
    check_plan_from_archive(&root);
    if std::env::var_os("LDWARC_STATS_KEEP").is_some() {
        eprintln!("archive kept in {}", dir.keep().display());
    }
}

/// Documents, observations, RDF and byte changes, and what is left out.
fn check_documents(report: &Value, documents: &[Document]) {
    let summary = &report["summary"];
    assert_eq!(summary["documents"], documents.len(), "{summary}");
    // Every host also has a robots.txt (not counted), an HTML page and a redirect.
    assert_eq!(
        summary["urls"],
        documents.len() + 2 * PLDS.len(),
        "{summary}"
    );
    assert_eq!(summary["snapshots"], DAYS + 1, "{summary}");
    assert_eq!(summary["failed"], 0);
    let urls = report["urls"].as_array().unwrap();
    let mut reserialised = 0;
    for url in urls {
        let name = url["url"].as_str().unwrap();
        assert!(name.contains("/resource/Doc"), "not a document: {name}");
        let document = documents.iter().find(|d| d.url == name).unwrap();
        assert_eq!(url["observations"], document.last_day + 1, "{name}");
        let (rdf, bytes) = (&url["rdf_changes"], &url["byte_changes"]);
        if document.reserialises {
            // More byte changes, unless a real change fell on every re-serialisation day.
            assert!(bytes.as_u64() >= rdf.as_u64(), "{name}: {rdf} vs {bytes}");
            reserialised += bytes.as_u64().unwrap() - rdf.as_u64().unwrap();
        } else {
            assert_eq!(rdf, bytes, "{name}");
        }
        assert_eq!(
            url["pld"],
            name.split('/').nth(2).unwrap().trim_start_matches("data.")
        );
        let lifetimes = url["last_modified_lifetimes_days"].as_array().unwrap();
        if document.last_day == DAYS {
            assert!(
                lifetimes.len() > 10,
                "{name}: {} lifetimes",
                lifetimes.len()
            );
        }
    }
    assert!(reserialised > 10, "{reserialised} byte-only changes");
    let plds = report["plds"].as_array().unwrap();
    assert_eq!(plds.len(), PLDS.len());
    let weibull = &report["weibull"];
    assert_eq!(weibull["source"], "last-modified", "{weibull}");
    // Every page changes about as often as it is crawled: the lifetimes are aliased, and the
    // outputs say so.
    assert!(
        weibull["aliased_fraction"].as_f64().unwrap() > 0.5,
        "{weibull}"
    );
    assert_eq!(
        weibull["crawl_interval_days"].as_f64().map(f64::round),
        Some(1.0)
    );
    assert!(weibull["shape"].as_f64().unwrap() > 0.0, "{weibull}");
}

/// The median relative errors printed, recomputed from the per-URL estimates.
fn check_rates(report: &Value, documents: &[Document]) {
    let truth = &report["truth"];
    assert_eq!(truth["urls"], PLDS.len() * DOCUMENTS_PER_PLD, "{truth}");
    assert_eq!(truth["min_observations"], 10);
    assert_eq!(truth["missing"], 0);
    let printed = truth["median_relative_error"]["bias_reduced"]
        .as_f64()
        .unwrap();
    let mut errors = Vec::new();
    let mut naive_errors = Vec::new();
    let mut last_modified_errors = Vec::new();
    for url in report["urls"].as_array().unwrap() {
        let document = documents.iter().find(|d| d.url == url["url"]).unwrap();
        if url["observations"].as_u64().unwrap() < 10 {
            continue;
        }
        let relative =
            |value: &Value| (value.as_f64().unwrap() - document.rate).abs() / document.rate;
        errors.push(relative(&url["bias_reduced_per_day"]));
        naive_errors.push(relative(&url["naive_per_day"]));
        last_modified_errors.push(relative(&url["last_modified"]["rate_per_day"]));
    }
    let recomputed = median(errors);
    assert!(
        (printed - recomputed).abs() < 1e-12,
        "{printed} vs {recomputed}"
    );
    eprintln!(
        "median relative error: bias-reduced {recomputed:.4}, naive {:.4}, Last-Modified {:.4}",
        median(naive_errors.clone()),
        median(last_modified_errors.clone())
    );
    assert!(
        recomputed <= 0.15,
        "bias-reduced median relative error {recomputed}"
    );
    // Daily visits hide changes: the naive estimate is biased low and much worse.
    assert!(median(naive_errors) > 2.0 * recomputed);
    // Last-Modified sees every change time it is shown: no aliasing.
    assert!(median(last_modified_errors) <= 0.15);
}

/// The fraction of documents changed between consecutive daily snapshots is about the mean
/// of `1 − e^{−λ}` over the documents.
fn check_snapshots(report: &Value, documents: &[Document]) {
    let snapshots = report["snapshots"].as_array().unwrap();
    assert_eq!(snapshots[0]["compared"], 0);
    let late: Vec<f64> = snapshots[(SHORT_DAYS as usize + 2)..]
        .iter()
        .map(|s| s["rdf_changed_fraction"].as_f64().unwrap())
        .collect();
    let observed = late.iter().sum::<f64>() / late.len() as f64;
    let daily: Vec<&Document> = documents.iter().filter(|d| d.last_day == DAYS).collect();
    let expected = daily.iter().map(|d| 1.0 - (-d.rate).exp()).sum::<f64>() / daily.len() as f64;
    assert!(
        (observed - expected).abs() < 0.03,
        "{observed} vs {expected}"
    );
    for s in &snapshots[(SHORT_DAYS as usize + 2)..] {
        assert_eq!(s["documents"], daily.len());
        assert_eq!(s["compared"], daily.len());
    }
}

fn check_text_and_csv(root: &Path, truth: &Path) {
    let output = common::run(
        common::ldwarc()
            .arg("stats")
            .arg("--root")
            .arg(root)
            .arg("--truth")
            .arg(truth),
    );
    let text = common::stdout_ok(&output, "ldwarc stats");
    let line = text
        .lines()
        .find(|l| l.starts_with("median relative error"))
        .unwrap_or_else(|| panic!("no median relative error in:\n{text}"));
    let value: f64 = line.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(value <= 0.15, "{line}");
    assert!(
        line.contains("over 60 URLs with at least 10 observations"),
        "{line}"
    );
    // The default fit is the hierarchical one, with its intervals, and needs no warning.
    let fit = text
        .lines()
        .find(|l| l.starts_with("mean change times"))
        .unwrap_or_else(|| panic!("no fit in:\n{text}"));
    assert!(
        fit.contains("[95% ") && fit.contains("fitted to the visits of 63 documents"),
        "{fit}"
    );
    assert!(!text.lines().any(|l| l.starts_with("warning")), "{text}");
    // The paper's pooled-lifetime fit warns that the lifetimes are aliased.
    let output = common::run(
        common::ldwarc()
            .arg("stats")
            .arg("--root")
            .arg(root)
            .args(["--fit", "pooled-lifetimes"]),
    );
    let text = common::stdout_ok(&output, "ldwarc stats --fit pooled-lifetimes");
    assert!(
        text.lines()
            .any(|l| l.starts_with("warning") && l.contains("crawl intervals")),
        "{text}"
    );

    let output = common::run(common::ldwarc().arg("stats").arg("--root").arg(root).args([
        "--format",
        "csv",
        "--domain",
        "lod-gamma.com",
    ]));
    let csv = common::stdout_ok(&output, "ldwarc stats --format csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("url,pld,observations,"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), 1 + DOCUMENTS_PER_PLD, "{csv}");
    assert!(lines[1..].iter().all(|l| l.contains(",lod-gamma.com,")));
}

fn check_plots(plots: &Path) {
    for name in [
        "ages-cdf.svg",
        "lifetimes-cdf.svg",
        "change-rates-by-pld.svg",
        "changes-per-snapshot.svg",
    ] {
        let svg = std::fs::read_to_string(plots.join(name)).unwrap();
        let (all, not_white, coloured) = rendered_pixels(&svg);
        // Axes, grid and curves, not a blank page; and the data series are drawn in colour.
        assert!(
            not_white > all / 100,
            "{name}: {not_white} of {all} pixels drawn"
        );
        assert!(coloured > 500, "{name}: {coloured} coloured pixels");
    }
    if let Some(keep) = std::env::var_os("LDWARC_STATS_PLOTS_TO") {
        std::fs::create_dir_all(&keep).unwrap();
        for entry in std::fs::read_dir(plots).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, Path::new(&keep).join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// `ldwarc plan currency --from-archive`: the period from the archive's Weibull, and the
/// adaptive schedules, each reaching α.
fn check_plan_from_archive(root: &Path) {
    let output = common::run(
        common::ldwarc()
            .args(["plan", "currency", "--from-archive", "--root"])
            .arg(root)
            .args(["--alpha", "0.95", "--beta", "12h", "--format", "json"]),
    );
    let text = common::stdout_ok(&output, "ldwarc plan currency --from-archive");
    let plan: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(plan["archive"]["documents"], 63, "{plan}");
    // By default the Weibull is the hierarchical fit, with intervals around the period.
    assert_eq!(plan["archive"]["model"], "hierarchical", "{plan}");
    assert!(plan["archive"].get("lifetime_source").is_none(), "{plan}");
    let ends = &plan["archive"]["period_interval_days"];
    let period = plan["period_days"].as_f64().unwrap();
    assert!(
        ends[0].as_f64().unwrap() < period && period < ends[1].as_f64().unwrap(),
        "{plan}"
    );
    // The paper's pooled-lifetime fit on request.
    let output = common::run(
        common::ldwarc()
            .args(["plan", "currency", "--from-archive", "--root"])
            .arg(root)
            .args(["--alpha", "0.95", "--beta", "12h", "--json"])
            .args(["--fit", "pooled-lifetimes"]),
    );
    let pooled: Value =
        serde_json::from_str(common::stdout_ok(&output, "--fit pooled-lifetimes").trim()).unwrap();
    assert_eq!(pooled["archive"]["model"], "pooled-lifetimes", "{pooled}");
    assert_eq!(
        pooled["archive"]["lifetime_source"], "last-modified",
        "{pooled}"
    );
    let period = plan["period_days"].as_f64().unwrap();
    assert!(period > 0.5 && period < 30.0, "{plan}");
    let bandwidth = &plan["bandwidth"];
    assert_eq!(bandwidth["documents"], 63, "{plan}");
    let per_url = &plan["adaptive"]["per_url"];
    let budgeted = &plan["adaptive"]["freshness"];
    assert_eq!(per_url["urls"], 63, "{plan}");
    // Fast documents need more than one download a day: held at the 1-day minimum, they
    // miss α; the budgeted schedule spends no more than the per-URL one for what it reaches.
    for load in [per_url, budgeted] {
        let alpha = load["achieved_alpha"].as_f64().unwrap();
        assert!(alpha > 0.5 && alpha <= 1.0, "{plan}");
        assert!(load["bits_per_second"].as_f64().unwrap() > 0.0, "{plan}");
    }
    assert!(
        budgeted["downloads_per_day"].as_f64().unwrap()
            <= per_url["downloads_per_day"].as_f64().unwrap() * 1.001
            || budgeted["achieved_alpha"].as_f64().unwrap()
                >= per_url["achieved_alpha"].as_f64().unwrap(),
        "{plan}"
    );
}
