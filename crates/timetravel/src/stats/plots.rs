//! The figures of `ldwarc stats --plot DIR`, as SVG drawn with plotters: the age CDF, the
//! observed-lifetime CDF with the fitted model of paper 003 eq. 15, the change-rate histogram
//! per pay-level domain, and the fraction of documents changed per snapshot over time.
//!
//! Times and rates span orders of magnitude (hours to years), so the first three use a
//! logarithmic x axis; values that cannot be placed on it (ages of zero, rates of zero) are
//! counted in the caption instead.

use std::fmt::Display;
use std::io;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::coord::combinators::WithKeyPoints;
use plotters::prelude::*;

use super::archive_stats::{ArchiveStats, SnapshotStats, format_days};
use ldwarc_dynamics::lifetimes::ObservedLifetimes;

/// Figure size in pixels.
const SIZE: (u32, u32) = (800, 500);

/// Points an empirical CDF is drawn with at most.
const CDF_POINTS: usize = 400;

/// Bins of the change-rate histogram.
const RATE_BINS: usize = 20;

/// PLDs drawn separately in the histogram; the rest are pooled as "other".
const MAX_PLD_SERIES: usize = 6;

/// The file names `write_plots` uses: the distribution of ages.
pub const AGE_CDF: &str = "ages-cdf.svg";
/// The distribution of observed lifetimes with the fitted Weibull.
pub const LIFETIME_CDF: &str = "lifetimes-cdf.svg";
/// Change rates by pay-level domain.
pub const RATE_HISTOGRAM: &str = "change-rates-by-pld.svg";
/// Changes per snapshot.
pub const SNAPSHOT_CHANGES: &str = "changes-per-snapshot.svg";

/// Writes every figure the statistics have data for into `dir` (created if needed). Returns
/// the files written and, for each figure left out, why.
pub fn write_plots(stats: &ArchiveStats, dir: &Path) -> io::Result<(Vec<PathBuf>, Vec<String>)> {
    std::fs::create_dir_all(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    let lifetimes = stats.weibull.as_ref().map(|fit| {
        let model = ObservedLifetimes::new(fit.weibull, fit.span_distribution.as_ref());
        let label = format!(
            "model F_obs, Weibull k = {:.2}, θ = {:.2} d",
            fit.shape, fit.scale_days
        );
        (fit.sample.clone(), model, label)
    });
    let figures: Vec<(&str, Option<String>)> = vec![
        (AGE_CDF, age_cdf_svg(&stats.ages_days())),
        (
            LIFETIME_CDF,
            lifetimes.as_ref().and_then(|(sample, model, label)| {
                lifetime_cdf_svg(sample, |t| model.cdf(t), label)
            }),
        ),
        (RATE_HISTOGRAM, rate_histogram_svg(&rates_by_pld(stats))),
        (SNAPSHOT_CHANGES, snapshot_changes_svg(&stats.snapshots)),
    ];
    let mut written = Vec::new();
    let mut skipped = Vec::new();
    for (name, svg) in figures {
        let path = dir.join(name);
        match svg {
            Some(svg) => {
                std::fs::write(&path, svg)
                    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
                written.push(path);
            }
            None => skipped.push(format!("{name}: no data to plot")),
        }
    }
    Ok((written, skipped))
}

/// The empirical CDF of the ages (days), or `None` without a positive age.
pub fn age_cdf_svg(ages_days: &[f64]) -> Option<String> {
    let positive: Vec<f64> = ages_days.iter().copied().filter(|&a| a > 0.0).collect();
    let points = ecdf_points(&positive);
    let (lo, hi) = log_range(&positive)?;
    let zero = ages_days.len() - positive.len();
    let caption = format!(
        "Age at capture: capture time − Last-Modified ({} ages{})",
        ages_days.len(),
        if zero > 0 {
            format!(", {zero} of 0 left out")
        } else {
            String::new()
        }
    );
    render(|area| {
        let mut chart = cdf_chart(area, &caption, lo, hi, "age (days)")?;
        draw_line(&mut chart, points, BLUE.to_rgba(), "observed ages")?;
        draw_legend(&mut chart)
    })
}

/// The empirical CDF of observed lifetimes (days) with the model CDF `model` overlaid, or
/// `None` without lifetimes.
pub fn lifetime_cdf_svg(
    lifetimes: &[f64],
    model: impl Fn(f64) -> f64,
    label: &str,
) -> Option<String> {
    let (lo, hi) = log_range(lifetimes)?;
    let observed = ecdf_points(lifetimes);
    let curve: Vec<(f64, f64)> = (0..=200)
        .map(|i| {
            let t = lo * (hi / lo).powf(i as f64 / 200.0);
            (t, model(t))
        })
        .collect();
    let caption = format!(
        "Observed lifetimes ({}) and the fitted model",
        lifetimes.len()
    );
    render(|area| {
        let mut chart = cdf_chart(area, &caption, lo, hi, "lifetime (days)")?;
        draw_line(&mut chart, observed, BLUE.to_rgba(), "observed lifetimes")?;
        draw_line(&mut chart, curve, RED.to_rgba(), label)?;
        draw_legend(&mut chart)
    })
}

/// Histograms of positive change rates (per day), one outline per group, or `None` when no
/// group has a positive rate.
pub fn rate_histogram_svg(groups: &[(String, Vec<f64>)]) -> Option<String> {
    let all: Vec<f64> = groups
        .iter()
        .flat_map(|(_, rates)| rates.iter().copied())
        .collect();
    let (lo, hi) = log_range(&all)?;
    let edges: Vec<f64> = (0..=RATE_BINS)
        .map(|i| lo * (hi / lo).powf(i as f64 / RATE_BINS as f64))
        .collect();
    let outlines: Vec<(String, Vec<(f64, f64)>)> = groups
        .iter()
        .map(|(name, rates)| {
            (
                name.clone(),
                step_outline(&edges, &bin_counts(&edges, rates)),
            )
        })
        .collect();
    let top = outlines
        .iter()
        .flat_map(|(_, points)| points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let unchanged = all.iter().filter(|&&r| r <= 0.0).count();
    let caption = format!(
        "Bias-reduced change rate per URL, by PLD{}",
        if unchanged > 0 {
            format!(" ({unchanged} never changed)")
        } else {
            String::new()
        }
    );
    render(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(&caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(log_axis(lo, hi), 0.0..top * 1.1 + 1.0)
            .map_err(failed)?;
        chart
            .configure_mesh()
            .x_desc("changes per day")
            .y_desc("URLs")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .x_label_formatter(&|v| format_axis(*v))
            .draw()
            .map_err(failed)?;
        for (i, (name, points)) in outlines.into_iter().enumerate() {
            draw_line(&mut chart, points, Palette99::pick(i).to_rgba(), &name)?;
        }
        draw_legend(&mut chart)
    })
}

/// The fraction of compared documents that changed, per snapshot over time (RDF and byte
/// level), or `None` when no snapshot was compared with a previous one.
pub fn snapshot_changes_svg(snapshots: &[SnapshotStats]) -> Option<String> {
    let series = |pick: fn(&SnapshotStats) -> Option<f64>| -> Vec<(f64, f64)> {
        snapshots
            .iter()
            .filter_map(|s| pick(s).map(|f| (s.start_days, f)))
            .collect()
    };
    let rdf = series(|s| s.rdf_changed_fraction);
    let bytes = series(|s| s.byte_changed_fraction);
    let first = rdf.first()?.0;
    let last = rdf.last().map_or(first, |p| p.0);
    let pad = ((last - first) * 0.03).max(0.5);
    let caption = format!(
        "Documents changed since the previous snapshot ({} snapshots)",
        snapshots.len()
    );
    render(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(&caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(first - pad..last + pad, 0.0..1.0)
            .map_err(failed)?;
        chart
            .configure_mesh()
            .x_desc("snapshot start (UTC)")
            .y_desc("fraction changed")
            .x_labels(6)
            .x_label_formatter(&|v| format_days(*v).chars().take(10).collect())
            .draw()
            .map_err(failed)?;
        for (points, color, label) in [
            (bytes, GREEN.to_rgba(), "byte level (payload digest)"),
            (rdf, BLUE.to_rgba(), "RDF level (canonical graph)"),
        ] {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(failed)?;
            draw_line(&mut chart, points, color, label)?;
        }
        draw_legend(&mut chart)
    })
}

/// The bias-reduced rates of the URLs grouped by PLD: the PLDs with most URLs first, the
/// rest pooled as "other".
fn rates_by_pld(stats: &ArchiveStats) -> Vec<(String, Vec<f64>)> {
    let mut plds: Vec<(String, Vec<f64>)> = stats
        .plds
        .iter()
        .map(|p| {
            let rates = stats
                .urls
                .iter()
                .filter(|u| u.pld == p.pld)
                .filter_map(|u| u.bias_reduced_per_day)
                .collect();
            (p.pld.clone(), rates)
        })
        .collect();
    plds.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    if plds.len() > MAX_PLD_SERIES {
        let rest: Vec<f64> = plds
            .drain(MAX_PLD_SERIES - 1..)
            .flat_map(|(_, rates)| rates)
            .collect();
        plds.push(("other".to_string(), rest));
    }
    plds
}

/// Renders a figure into an SVG string; `None` when plotters fails (it only fails on
/// impossible ranges, which the callers rule out).
fn render(
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> Option<String> {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        area.fill(&WHITE).ok()?;
        draw(&area).ok()?;
        area.present().ok()?;
    }
    Some(svg)
}

type LogChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<WithKeyPoints<LogCoord<f64>>, plotters::coord::types::RangedCoordf64>,
>;

/// A chart with a logarithmic x axis from `lo` to `hi` and a probability y axis.
fn cdf_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    lo: f64,
    hi: f64,
    x_desc: &str,
) -> Result<LogChart<'a, 'b>, String> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(log_axis(lo, hi), 0.0..1.0)
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("fraction ≤ x")
        .x_label_formatter(&|v| format_axis(*v))
        .draw()
        .map_err(failed)?;
    Ok(chart)
}

/// Draws a labelled polyline.
fn draw_line<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    points: Vec<(f64, f64)>,
    color: RGBAColor,
    label: &str,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate<From = (f64, f64)>,
{
    chart
        .draw_series(LineSeries::new(points, color.stroke_width(2)))
        .map_err(failed)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    Ok(())
}

fn draw_legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(failed)
}

fn failed(error: impl Display) -> String {
    error.to_string()
}

/// The points of an empirical CDF of `values` (at most [`CDF_POINTS`] of them, evenly spaced
/// in rank, always including the largest).
fn ecdf_points(values: &[f64]) -> Vec<(f64, f64)> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let step = n.div_ceil(CDF_POINTS).max(1);
    (0..n)
        .filter(|i| i % step == 0 || i + 1 == n)
        .map(|i| (sorted[i], (i + 1) as f64 / n as f64))
        .collect()
}

/// A logarithmic axis range around the positive finite values: a little beyond the smallest
/// and the largest (a decade around a single value). `None` without a positive value.
fn log_range(values: &[f64]) -> Option<(f64, f64)> {
    let positive = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let lo = positive.clone().fold(f64::INFINITY, f64::min);
    let hi = positive.fold(0.0, f64::max);
    if !lo.is_finite() {
        return None;
    }
    if hi / lo < 10.0 {
        let middle = (lo * hi).sqrt();
        return Some((middle / 10f64.sqrt(), middle * 10f64.sqrt()));
    }
    Some((lo / 1.2, hi * 1.2))
}

/// A logarithmic axis from `lo` to `hi` labelled at 1, 2 and 5 times the powers of ten
/// (plotters alone labels only some powers of ten).
fn log_axis(lo: f64, hi: f64) -> WithKeyPoints<LogCoord<f64>> {
    (lo..hi)
        .log_scale()
        .with_key_points(nice_log_points(lo, hi))
}

/// 1, 2 and 5 times the powers of ten within `[lo, hi]` (only the powers over more than
/// four decades, where the others would crowd).
fn nice_log_points(lo: f64, hi: f64) -> Vec<f64> {
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let multiples: &[f64] = if last - first > 4 {
        &[1.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    (first..=last)
        .flat_map(|k| multiples.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|&v| v >= lo && v <= hi)
        .collect()
}

/// How many of `values` fall in each bin `[edges[i], edges[i+1])` (the last bin closed).
fn bin_counts(edges: &[f64], values: &[f64]) -> Vec<usize> {
    let bins = edges.len().saturating_sub(1);
    let mut counts = vec![0; bins];
    for &v in values {
        if bins == 0 || !(v >= edges[0] && v <= edges[bins]) {
            continue;
        }
        let i = edges
            .partition_point(|&e| e <= v)
            .saturating_sub(1)
            .min(bins - 1);
        counts[i] += 1;
    }
    counts
}

/// The outline of a histogram: up and down each bin, from and back to zero.
fn step_outline(edges: &[f64], counts: &[usize]) -> Vec<(f64, f64)> {
    let mut points = Vec::with_capacity(2 * counts.len() + 2);
    if let Some(&first) = edges.first() {
        points.push((first, 0.0));
    }
    for (i, &count) in counts.iter().enumerate() {
        points.push((edges[i], count as f64));
        points.push((edges[i + 1], count as f64));
    }
    if let Some(&last) = edges.get(counts.len()) {
        points.push((last, 0.0));
    }
    points
}

/// An axis label: whole numbers from 1 up, two significant digits below.
fn format_axis(value: f64) -> String {
    if value >= 1.0 {
        format!("{value:.0}")
    } else {
        let decimals = (-value.log10()).ceil().max(0.0) as usize + 1;
        format!("{value:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        let points = ecdf_points(&[3.0, 1.0, 2.0]);
        assert_eq!(points, vec![(1.0, 1.0 / 3.0), (2.0, 2.0 / 3.0), (3.0, 1.0)]);
        let many: Vec<f64> = (0..10_000).map(f64::from).collect();
        let points = ecdf_points(&many);
        assert!(points.len() <= CDF_POINTS + 1);
        assert_eq!(points.last(), Some(&(9_999.0, 1.0)));
        assert_eq!(log_range(&[0.0, -1.0]), None);
        let (lo, hi) = log_range(&[2.0]).unwrap();
        assert!((lo * hi - 4.0).abs() < 1e-12 && (hi / lo - 10.0).abs() < 1e-9);
        assert_eq!(
            bin_counts(&[1.0, 2.0, 4.0], &[1.0, 1.5, 2.0, 4.0, 5.0, 0.5]),
            vec![2, 2]
        );
        assert_eq!(
            step_outline(&[1.0, 2.0, 4.0], &[2, 1]),
            vec![
                (1.0, 0.0),
                (1.0, 2.0),
                (2.0, 2.0),
                (2.0, 1.0),
                (4.0, 1.0),
                (4.0, 0.0)
            ]
        );
        assert_eq!(nice_log_points(0.15, 3.5), vec![0.2, 0.5, 1.0, 2.0]);
        assert_eq!(nice_log_points(0.5e-4, 30.0).len(), 6); // 1e-4 … 10
        assert_eq!(format_axis(100.0), "100");
        assert_eq!(format_axis(0.1), "0.10");
        assert_eq!(format_axis(0.05), "0.050");
    }

    #[test]
    fn figures_render_with_data_only() {
        assert_eq!(age_cdf_svg(&[0.0]), None);
        let svg = age_cdf_svg(&[0.5, 1.0, 2.0, 30.0]).expect("svg");
        assert!(
            svg.starts_with("<svg") && svg.contains("<polyline"),
            "{svg}"
        );
        let svg =
            lifetime_cdf_svg(&[1.0, 2.0, 5.0], |t| 1.0 - (-t / 2.0).exp(), "model").expect("svg");
        // Both series are drawn, in their colours.
        assert!(svg.contains("#0000FF") && svg.contains("#FF0000"), "{svg}");
        let groups = vec![
            ("a.org".to_string(), vec![0.1, 0.2, 1.0]),
            ("b.org".to_string(), vec![0.0, 3.0]),
        ];
        let svg = rate_histogram_svg(&groups).expect("svg");
        assert!(svg.contains("a.org") && svg.contains("b.org") && svg.contains("1 never changed"));
        assert_eq!(rate_histogram_svg(&[("x".into(), vec![0.0])]), None);
        assert_eq!(snapshot_changes_svg(&[]), None);
    }
}
