//! Known change rates ("truth") and how far the estimates are from them: `ldwarc stats
//! --truth FILE` reads the true rate of each URL (from a simulation, or a source whose
//! changes are known) and reports the median relative error of every estimator.
//!
//! The file is either a JSON object `{"<url>": <changes per day>, …}` or CSV lines
//! `<url>,<changes per day>` (a header line whose second field is not a number is skipped;
//! blank lines and lines starting with `#` too).

use std::collections::HashMap;

use serde::Serialize;

use super::DynamicsError;

/// True change rates per day, by URL.
pub type TruthRates = HashMap<String, f64>;

/// Parses a truth file's text (JSON object or CSV, see the module documentation). `name`
/// names the file in errors.
pub fn parse_truth(name: &str, text: &str) -> Result<TruthRates, DynamicsError> {
    let rates = if text.trim_start().starts_with('{') {
        parse_json(name, text)?
    } else {
        parse_csv(name, text)?
    };
    if rates.is_empty() {
        return Err(DynamicsError::Data(format!("{name}: no URL with a rate")));
    }
    if let Some((url, rate)) = rates.iter().find(|(_, r)| !(r.is_finite() && **r >= 0.0)) {
        return Err(DynamicsError::Data(format!(
            "{name}: the rate of {url} must be a finite number ≥ 0, got {rate}"
        )));
    }
    Ok(rates)
}

fn parse_json(name: &str, text: &str) -> Result<TruthRates, DynamicsError> {
    let value: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)
        .map_err(|e| DynamicsError::Data(format!("{name}: not a JSON object of rates: {e}")))?;
    value
        .into_iter()
        .map(|(url, rate)| match rate.as_f64() {
            Some(rate) => Ok((url, rate)),
            None => Err(DynamicsError::Data(format!(
                "{name}: the rate of {url} is not a number: {rate}"
            ))),
        })
        .collect()
}

fn parse_csv(name: &str, text: &str) -> Result<TruthRates, DynamicsError> {
    let mut rates = TruthRates::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // URLs may contain commas; the rate is after the last one.
        let Some((url, rate)) = line.rsplit_once(',') else {
            return Err(DynamicsError::Data(format!(
                "{name}:{}: expected <url>,<changes per day>",
                number + 1
            )));
        };
        match rate.trim().parse::<f64>() {
            Ok(rate) => {
                rates.insert(url.trim().to_string(), rate);
            }
            Err(_) if rates.is_empty() && number == first_content_line(text) => {} // header
            Err(_) => {
                return Err(DynamicsError::Data(format!(
                    "{name}:{}: '{}' is not a number",
                    number + 1,
                    rate.trim()
                )));
            }
        }
    }
    Ok(rates)
}

/// The index of the first line that is neither blank nor a comment.
fn first_content_line(text: &str) -> usize {
    text.lines()
        .position(|l| !(l.trim().is_empty() || l.trim().starts_with('#')))
        .unwrap_or(0)
}

/// One URL's estimates, as [`compare_with_truth`] needs them (rates per day).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EstimatesPerDay {
    /// Document captures of the URL.
    pub observations: usize,
    /// The naive estimate X/T ([`crate::naive_rate`]).
    pub naive: Option<f64>,
    /// Cho & Garcia-Molina's bias-reduced estimate ([`crate::bias_reduced_rate`]).
    pub bias_reduced: Option<f64>,
    /// The maximum-likelihood estimate for irregular visits ([`crate::irregular_rate_mle`]).
    pub mle: Option<f64>,
    /// The estimate from Last-Modified times ([`crate::last_modified_rate`]).
    pub last_modified: Option<f64>,
}

/// The median relative error `|estimate − truth| / truth` of each estimator.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MedianRelativeErrors {
    /// Of the naive estimates.
    pub naive: Option<f64>,
    /// Of the bias-reduced estimates.
    pub bias_reduced: Option<f64>,
    /// Of the maximum-likelihood estimates.
    pub mle: Option<f64>,
    /// Of the Last-Modified estimates.
    pub last_modified: Option<f64>,
}

/// How the estimates compare with the truth.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TruthComparison {
    /// URLs compared: in the truth with a positive rate, and observed at least
    /// `min_observations` times.
    pub urls: usize,
    /// The observation threshold.
    pub min_observations: usize,
    /// URLs of the truth file the statistics do not have.
    pub missing: usize,
    /// Compared URLs left out because some estimator has no finite estimate for them (the
    /// MLE when every interval showed a change; Last-Modified when the server did not send
    /// it, unless no compared URL has one).
    pub excluded: usize,
    /// Per estimator, over the same URLs: those with every estimate (`urls` − `excluded`).
    pub median_relative_error: MedianRelativeErrors,
}

/// Compares `estimates` (by URL) with `truth`, over URLs with at least `min_observations`
/// observations and a positive true rate (a relative error needs one).
pub fn compare_with_truth<'a>(
    estimates: impl IntoIterator<Item = (&'a str, EstimatesPerDay)>,
    truth: &TruthRates,
    min_observations: usize,
) -> TruthComparison {
    let mut compared: Vec<(f64, EstimatesPerDay)> = Vec::new();
    let mut seen = 0;
    for (url, estimate) in estimates {
        let Some(&rate) = truth.get(url) else {
            continue;
        };
        seen += 1;
        if rate > 0.0 && estimate.observations >= min_observations {
            compared.push((rate, estimate));
        }
    }
    // Every estimator over the same URLs, or their medians compare different pages (the
    // fastest pages have no finite MLE, the servers without Last-Modified no such rate).
    let with_last_modified = compared.iter().any(|(_, e)| e.last_modified.is_some());
    let total = compared.len();
    compared.retain(|(_, e)| {
        e.naive.is_some()
            && e.bias_reduced.is_some()
            && e.mle.is_some()
            && (!with_last_modified || e.last_modified.is_some())
    });
    let median_error = |pick: fn(&EstimatesPerDay) -> Option<f64>| {
        let errors: Vec<f64> = compared
            .iter()
            .filter_map(|(rate, e)| pick(e).map(|x| (x - rate).abs() / rate))
            .collect();
        median(&errors)
    };
    TruthComparison {
        urls: total,
        min_observations,
        missing: truth.len() - seen,
        excluded: total - compared.len(),
        median_relative_error: MedianRelativeErrors {
            naive: median_error(|e| e.naive),
            bias_reduced: median_error(|e| e.bias_reduced),
            mle: median_error(|e| e.mle),
            last_modified: median_error(|e| e.last_modified),
        },
    }
}

/// The median of finite values (the mean of the two middle ones for an even count); `None`
/// for none.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_json_and_csv() {
        let json = parse_truth("t.json", r#"{"http://a/x": 0.5, "http://b/y": 2}"#).unwrap();
        assert_eq!(json.get("http://a/x"), Some(&0.5));
        assert_eq!(json.get("http://b/y"), Some(&2.0));
        let csv = "# rates\nurl,rate_per_day\nhttp://a/x?p=1,q=2,0.25\n\nhttp://b/y, 3\n";
        let csv = parse_truth("t.csv", csv).unwrap();
        assert_eq!(csv.len(), 2);
        assert_eq!(csv.get("http://a/x?p=1,q=2"), Some(&0.25));
        assert_eq!(csv.get("http://b/y"), Some(&3.0));
        for bad in [
            r#"{"http://a/x": "fast"}"#,
            r#"{"http://a/x": -1}"#,
            "http://a/x,1\nhttp://b/y,fast\n",
            "no comma here\n",
            "[1, 2]",
        ] {
            assert!(parse_truth("bad", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn median_relative_errors() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        let truth: TruthRates = [
            ("a", 1.0),
            ("b", 2.0),
            ("c", 1.0),
            ("d", 1.0),
            ("gone", 1.0),
            ("z", 0.0),
        ]
        .into_iter()
        .map(|(u, r)| (u.to_string(), r))
        .collect();
        let estimate = |observations, bias_reduced| EstimatesPerDay {
            observations,
            bias_reduced: Some(bias_reduced),
            naive: Some(0.5),
            mle: Some(bias_reduced),
            ..Default::default()
        };
        // Every interval changed: no finite MLE, so left out of every median (its naive
        // error of 50% would otherwise count for the naive estimator alone).
        let unbounded = EstimatesPerDay {
            mle: None,
            ..estimate(40, 3.0)
        };
        let rows = vec![
            ("a", estimate(12, 1.1)), // 10%
            ("b", estimate(20, 1.6)), // 20%
            ("c", estimate(3, 5.0)),  // too few observations
            ("d", unbounded),
            ("z", estimate(30, 1.0)),   // true rate 0: no relative error
            ("new", estimate(30, 1.0)), // not in the truth
        ];
        let comparison = compare_with_truth(rows, &truth, 10);
        assert_eq!(comparison.urls, 3);
        assert_eq!(comparison.excluded, 1);
        assert_eq!(comparison.missing, 1);
        let errors = comparison.median_relative_error;
        assert!((errors.bias_reduced.unwrap() - 0.15).abs() < 1e-12);
        assert!((errors.naive.unwrap() - 0.625).abs() < 1e-12);
        assert_eq!(errors.last_modified, None);
        assert!((errors.mle.unwrap() - 0.15).abs() < 1e-12);
        // With Last-Modified on one URL, URLs without it are left out.
        let mut with_lm = estimate(12, 1.1);
        with_lm.last_modified = Some(0.9);
        let rows = vec![("a", with_lm), ("b", estimate(20, 1.6))];
        let comparison = compare_with_truth(rows, &truth, 10);
        assert_eq!((comparison.urls, comparison.excluded), (2, 1));
        let errors = comparison.median_relative_error;
        assert!((errors.bias_reduced.unwrap() - 0.1).abs() < 1e-12);
        assert!((errors.last_modified.unwrap() - 0.1).abs() < 1e-12);
    }
}
