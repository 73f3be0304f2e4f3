//! `ldwarc plan currency` reproduces Brewington & Cybenko's planning numbers ("How dynamic is
//! the Web?", §6): with mean change times Weibull(1.4, 152.2 days), (0.95, 1 day)-currency
//! needs re-indexing every 8.58 days and (0.95, 1 week)-currency every 18.49 days (the paper
//! reads 8.5 and 18 off its Fig. 19); 800 million pages of 12 KB every 8.5 days need about
//! 104 Mbit/s.

use crate::common;

use std::process::Output;

fn plan(args: &[&str]) -> Output {
    common::run(common::ldwarc().arg("plan").arg("currency").args(args))
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let output = plan(&all);
    let text = common::stdout_ok(&output, &format!("ldwarc plan currency {all:?}"));
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn number(value: &serde_json::Value, path: &[&str]) -> f64 {
    let mut v = value;
    for key in path {
        v = &v[*key];
    }
    v.as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number in {value}"))
}

/// The value printed after `label` on its own line of the text output.
fn field<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|line| line.strip_prefix(label))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{text}"))
}

#[test]
fn reindexing_periods_match_the_paper() {
    let output = plan(&["--alpha", "0.95", "--beta", "1d"]);
    let text = common::stdout_ok(&output, "plan currency --beta 1d");
    assert_eq!(field(&text, "re-indexing period"), "8.58d", "{text}");
    assert_eq!(field(&text, "grace period β"), "1d", "{text}");
    assert_eq!(field(&text, "probability α"), "0.95", "{text}");
    assert!(
        field(&text, "mean change times").starts_with("Weibull shape 1.4, scale 152.2d"),
        "{text}"
    );

    let output = plan(&["--alpha", "0.95", "--beta", "7d"]);
    let text = common::stdout_ok(&output, "plan currency --beta 7d");
    assert_eq!(field(&text, "re-indexing period"), "18.49d", "{text}");

    // The same in JSON, with the paper's parameters spelled out.
    let report = json(&["--alpha", "0.95", "--beta", "1w", "--weibull", "1.4,152.2d"]);
    assert_eq!(report["solved_for"], "period");
    let period = number(&report, &["period_days"]);
    assert!((period - 18.488).abs() < 0.001, "{report}");
    assert_eq!(number(&report, &["beta_days"]), 7.0);
    // Fig. 15: mean about 138 days, median 117.
    assert!((number(&report, &["weibull", "mean_days"]) - 138.72).abs() < 0.01);
    assert!((number(&report, &["weibull", "median_days"]) - 117.14).abs() < 0.01);
    assert!(report.get("bandwidth").is_none(), "{report}");
}

#[test]
fn alpha_for_a_period_inverts_the_period_for_an_alpha() {
    let report = json(&["--alpha", "0.9", "--beta", "12h", "--weibull", "0.78,651.1"]);
    let period = number(&report, &["period_days"]);
    let back = json(&[
        "--period",
        &format!("{period}d"),
        "--beta",
        "12h",
        "--weibull",
        "0.78,651.1",
    ]);
    assert_eq!(back["solved_for"], "alpha");
    assert!((number(&back, &["alpha"]) - 0.9).abs() < 1e-6, "{back}");
    // A period within the grace period is always current.
    let always = json(&["--period", "12h", "--beta", "1d"]);
    assert_eq!(number(&always, &["alpha"]), 1.0);
}

#[test]
fn bandwidth_matches_the_paper() {
    // "800 × 10⁶ pages / 8.5 days × 12 kilobytes / page = 104 Mbits/s", 94 million pages a day.
    let output = plan(&[
        "--period",
        "8.5d",
        "--beta",
        "1d",
        "--documents",
        "800000000",
        "--mean-size",
        "12KB",
    ]);
    let text = common::stdout_ok(&output, "plan currency --period 8.5d");
    assert_eq!(field(&text, "bandwidth"), "104.6 Mbit/s", "{text}");
    assert_eq!(
        field(&text, "re-indexing rate"),
        "94117647 documents/day",
        "{text}"
    );
    // 8.5 days is a little shorter than the 8.58 days (0.95, 1 day) needs.
    let alpha: f64 = field(&text, "probability α").parse().expect("a number");
    assert!(alpha > 0.95 && alpha < 0.951, "{text}");

    let report = json(&[
        "--alpha",
        "0.95",
        "--beta",
        "1d",
        "--documents",
        "800000000",
        "--mean-size",
        "12000",
    ]);
    let bits = number(&report, &["bandwidth", "bits_per_second"]);
    // At the exact 8.58-day period: 103.6 Mbit/s.
    assert!((bits / 1e6 - 103.59).abs() < 0.01, "{report}");
    assert_eq!(number(&report, &["bandwidth", "documents"]), 800e6);
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for args in [
        &["--alpha", "1.5", "--beta", "1d"][..],
        &["--alpha", "0", "--beta", "1d"],
        &["--alpha", "0.95", "--beta", "1x"],
        &["--alpha", "0.95", "--beta", "-1d"],
        &["--alpha", "0.95", "--beta", "1d", "--weibull", "1.4"],
        &["--alpha", "0.95", "--beta", "1d", "--weibull", "-1,3d"],
        &["--beta", "1d"],
        &["--alpha", "0.95", "--period", "3d", "--beta", "1d"],
        &["--alpha", "0.95", "--beta", "1d", "--documents", "10"],
        &[
            "--alpha",
            "0.95",
            "--beta",
            "1d",
            "--documents",
            "10",
            "--mean-size",
            "3XB",
        ],
        &["--period", "0d", "--beta", "1d"],
        &["--alpha", "1", "--beta", "0d"],
    ] {
        let output = plan(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
