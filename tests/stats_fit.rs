//! The Weibull of mean change times that `ldwarc stats` and `ldwarc plan currency
//! --from-archive` report is right on archives sampled the way crawls sample the web.
//!
//! Each test draws documents from a known Weibull population of mean change times (each
//! document a Poisson process at its own rate, `tests/support/change_population.rs`), writes
//! what a crawler would have archived with `ArchiveWriter` (a response when the document
//! changed since the previous visit, else an identical-payload revisit; half of the documents
//! on a domain whose server sends `Last-Modified`, half on one that does not), indexes it, and
//! requires the default (hierarchical) fit to recover shape and scale within 10%, for each
//! domain alone (`--domain`) and for the whole archive, with 95% intervals that hold the fit
//! and span less than a factor 1.5, and the re-indexing period of `plan currency --alpha 0.95
//! --beta 7d --from-archive` within 10% of the truth's, inside its reported interval. The paper's pooled-lifetime fit
//! (`--fit pooled-lifetimes`) is printed beside it for the record (docs/dynamics.md).
//!
//! `LDWARC_FIT_DOCUMENTS=N` changes the documents per domain (default 1,500, i.e. 3,000 per
//! archive).

use crate::change_population::{Sampling, SyntheticDocument, population};
use crate::common;

use std::path::Path;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};
use ldwarc_dynamics::{Weibull, reindexing_period};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::{Block, PayloadKind, profiles, record_header, sha1_digest};
use serde_json::Value;

/// The domain whose server sends Last-Modified, and the one whose server does not.
const WITH_LM: &str = "lm-yes.example";
const WITHOUT_LM: &str = "lm-no.example";

fn base_time() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2023, 1, 2, 0, 0, 0).single().unwrap()
}

fn at(days: f64) -> DateTime<Utc> {
    base_time() + TimeDelta::milliseconds((days * 86_400_000.0).round() as i64)
}

fn documents_per_domain() -> usize {
    std::env::var("LDWARC_FIT_DOCUMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

fn body(url: &str, version: u32) -> Vec<u8> {
    format!("<{url}> <http://example.org/ns#version> \"{version}\" .\n").into_bytes()
}

fn head(length: usize, last_modified: Option<DateTime<Utc>>) -> String {
    let mut head = String::from("HTTP/1.1 200 OK\r\nContent-Type: application/n-triples\r\n");
    if let Some(time) = last_modified {
        head.push_str(&format!(
            "Last-Modified: {}\r\n",
            time.format("%a, %d %b %Y %H:%M:%S GMT")
        ));
    }
    head.push_str(&format!("Content-Length: {length}\r\n\r\n"));
    head
}

/// Writes every visit of every document: (domain, documents) pairs.
fn write_archive(root: &Path, domains: &[(&str, &[SyntheticDocument])]) {
    let options = ArchiveWriterOptions {
        gzip_level: 1,
        ..ArchiveWriterOptions::default()
    };
    let (mut writer, _) = ArchiveWriter::open(root, options).unwrap();
    // (time in days, domain, document, visit), in time order.
    let mut visits: Vec<(f64, usize, usize, usize)> = Vec::new();
    for (d, (_, documents)) in domains.iter().enumerate() {
        for (i, document) in documents.iter().enumerate() {
            visits.extend((0..document.visits.len()).map(|v| (document.visits[v].at, d, i, v)));
        }
    }
    visits.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut hour = None;
    for (days, d, i, v) in visits {
        let (domain, documents) = domains[d];
        let document = &documents[i];
        let visit = document.visits[v];
        let time = at(days);
        if hour != Some(time.timestamp() / 3600) {
            writer.close_stale(time).unwrap();
            hour = Some(time.timestamp() / 3600);
        }
        let url = format!("http://data.{domain}/resource/D{i}");
        let content = body(&url, visit.version);
        let last_modified = (domain == WITH_LM).then(|| at(visit.last_modified));
        let head = head(content.len(), last_modified);
        // The first capture of this version (visits since the last change are revisits).
        let original = (0..=v)
            .rev()
            .find(|&j| j == 0 || document.visits[j].changed)
            .unwrap();
        let record = if original == v {
            let mut header = record_header("response", time, Some(&url));
            header.push("Content-Type", "application/http; msgtype=response");
            let mut bytes = head.into_bytes();
            bytes.extend_from_slice(&content);
            (header, Block::from_bytes(bytes, PayloadKind::Http).unwrap())
        } else {
            let mut header = record_header("revisit", time, Some(&url));
            header.push("Content-Type", "application/http; msgtype=response");
            header.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
            header.push("WARC-Refers-To-Target-URI", url.as_str());
            header.push(
                "WARC-Refers-To-Date",
                format_warc_date(at(document.visits[original].at)),
            );
            header.push("WARC-Payload-Digest", sha1_digest(&content));
            header.push("WARC-Truncated", "length");
            (
                header,
                Block::from_bytes(head.into_bytes(), PayloadKind::None).unwrap(),
            )
        };
        writer
            .write_capture(&format!("data.{domain}"), vec![record])
            .unwrap();
    }
    writer.close().unwrap();
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
    let text = common::stdout_ok(&output, &format!("ldwarc stats {extra:?}"));
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn within(value: f64, truth: f64, tolerance: f64) -> bool {
    (value / truth - 1.0).abs() <= tolerance
}

/// Generates, indexes and checks one archive.
fn check_recovery(sampling: Sampling, shape: f64, scale: f64, seed: u64) {
    let n = documents_per_domain();
    let with_lm = population(seed, shape, scale, n, sampling);
    let without_lm = population(seed + 1, shape, scale, n, sampling);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    write_archive(&root, &[(WITH_LM, &with_lm), (WITHOUT_LM, &without_lm)]);
    let index = common::run(common::ldwarc().arg("index").arg("--root").arg(&root));
    common::stdout_ok(&index, "ldwarc index");

    let what = format!("Weibull({shape}, {scale} d), {}", sampling.name());
    for (label, scope) in [
        ("with Last-Modified", vec!["--domain", WITH_LM]),
        ("without Last-Modified", vec!["--domain", WITHOUT_LM]),
        ("both domains", vec![]),
    ] {
        let report = stats_json(&root, &scope);
        assert_eq!(report["model"], "hierarchical", "{}", report["model"]);
        let fit = &report["hierarchical"];
        let pooled = &report["weibull"];
        eprintln!(
            "{what}, {label}: hierarchical shape {} {} scale {} {}; pooled lifetimes \
             ({}) shape {} scale {}",
            fit["shape"],
            fit["shape_interval"],
            fit["scale_days"],
            fit["scale_interval_days"],
            pooled["source"],
            pooled["shape"],
            pooled["scale_days"]
        );
        let fitted_shape = fit["shape"].as_f64().unwrap_or(f64::NAN);
        let fitted_scale = fit["scale_days"].as_f64().unwrap_or(f64::NAN);
        assert!(
            within(fitted_shape, shape, 0.10) && within(fitted_scale, scale, 0.10),
            "{what}, {label}: {fit}"
        );
        // The intervals are about the sampling error: they hold the fit and are not wide.
        for (key, value) in [
            ("shape_interval", fitted_shape),
            ("scale_interval_days", fitted_scale),
        ] {
            let lo = fit[key][0].as_f64().unwrap();
            let hi = fit[key][1].as_f64().unwrap();
            assert!(
                lo < value && value < hi && hi / lo < 1.5,
                "{what}, {label}: {fit}"
            );
        }
    }

    let truth = Weibull::new(shape, scale * 86_400.0).unwrap();
    let expected = reindexing_period(truth, 0.95, 7.0 * 86_400.0).unwrap() / 86_400.0;
    let output = common::run(
        common::ldwarc()
            .args(["plan", "currency", "--from-archive", "--root"])
            .arg(&root)
            .args(["--alpha", "0.95", "--beta", "7d", "--json"]),
    );
    let text = common::stdout_ok(&output, "ldwarc plan currency --from-archive");
    let plan: Value = serde_json::from_str(text.trim()).unwrap();
    let period = plan["period_days"].as_f64().unwrap();
    let ends = &plan["archive"]["period_interval_days"];
    eprintln!("{what}: T(0.95, 7d) = {period:.2} d {ends}, truth {expected:.2} d");
    assert!(within(period, expected, 0.10), "{what}: {plan}");
    let (lo, hi) = (ends[0].as_f64().unwrap(), ends[1].as_f64().unwrap());
    assert!(lo < period && period < hi, "{what}: {plan}");
}

#[test]
fn weekly_staggered_visits_recover_the_papers_weibull() {
    check_recovery(Sampling::WeeklyTwoYearsStaggered, 1.4, 152.2, 11);
}

#[test]
fn weekly_staggered_visits_recover_a_slow_heavy_tailed_weibull() {
    check_recovery(Sampling::WeeklyTwoYearsStaggered, 0.78, 651.1, 21);
}

#[test]
fn daily_visits_for_four_months_recover_the_papers_weibull() {
    check_recovery(Sampling::DailyFourMonths, 1.4, 152.2, 31);
}

#[test]
fn monthly_visits_for_five_years_recover_the_papers_weibull() {
    check_recovery(Sampling::MonthlyFiveYears, 1.4, 152.2, 41);
}
