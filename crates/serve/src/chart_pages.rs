//! The pages drawn from the archive's change figures ([`super::aggregates`]): the overview's
//! charts (captures and graph changes per week per pay-level domain, the distribution of the
//! documents' mean change times with the fitted Weibull and its 95% interval, the crawls), a
//! pay-level domain's page (its documents' change rates and the re-crawl interval the planner
//! would give) and the dataset at a date (documents, statements, changes since the previous
//! crawl). While the figures are being computed the pages say so and show the rest.

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;

use ldwarc_dynamics::duration::format_duration;
use ldwarc_timetravel::replay::ReplayDate;
use ldwarc_warc::time::parse_wayback_timestamp;

use super::aggregates::{
    ALPHA, Aggregates, BETA_SECONDS, Status, current, recrawl_interval, week_start_day,
};
use super::memento::http_date;
use super::pages::{PAGE_ROWS, capture_href, error_page, page};
use super::replay::encode_component;
use super::svg::{Bar, Chart, Layer, Mark, date_ticks};
use super::{State as AppStateRef, inline};

/// Pay-level domains given a weekly chart on the overview (the largest by captures).
pub(crate) const CHARTED_PLDS: usize = 8;

/// Width of a bin of the change-time histogram, in decades.
const BIN_DECADES: f64 = 0.25;

/// What the pages say while the figures are not there.
fn waiting(status: &Status) -> Option<Markup> {
    match status {
        Status::Computing => Some(html! {
            p class="computing" role="status" {
                "The change figures are being computed from every document of the archive; "
                "reload this page in a moment to see the charts."
            }
        }),
        Status::Failed(message) => Some(html! {
            p class="warning" { "The change figures could not be computed: " (message) }
        }),
        Status::Ready(_) | Status::Refreshing(_) => None,
    }
}

fn figures(status: &Status) -> Option<(&Aggregates, bool)> {
    match status {
        Status::Ready(figures) => Some((figures, false)),
        Status::Refreshing(figures) => Some((figures, true)),
        Status::Computing | Status::Failed(_) => None,
    }
}

/// The overview's charts: weekly captures and changes per PLD, the change-time distribution
/// and the crawls.
pub(crate) fn overview_charts(status: &Status) -> Markup {
    if let Some(message) = waiting(status) {
        return message;
    }
    let Some((figures, refreshing)) = figures(status) else {
        return html! {};
    };
    let mut plds: Vec<(&String, usize)> = figures
        .weeks
        .iter()
        .map(|(pld, weeks)| (pld, weeks.values().map(|w| w.captures).sum()))
        .collect();
    plds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    html! {
        @if refreshing {
            p class="computing" role="status" {
                "The index changed: these figures are being brought up to date."
            }
        }
        h2 { "Captures and graph changes per week" }
        @if plds.len() > CHARTED_PLDS {
            p { "The " (CHARTED_PLDS) " pay-level domains with the most captures." }
        }
        @for (n, (pld, _)) in plds.iter().take(CHARTED_PLDS).enumerate() {
            h3 { a href={ "/pld?name=" (encode_component(pld)) } { (pld) } }
            (weekly_chart(&format!("weeks-{n}"), pld, &figures.weeks[*pld]))
        }
        h2 { "Change rates" }
        (rate_distribution(figures))
        h2 { "Crawls" }
        (crawl_table(figures))
        p class="computed" {
            "These figures were computed from " (figures.docs.len()) " documents in "
            (format!("{:.1}", figures.took.as_secs_f64())) " s and are kept until the index changes."
        }
    }
}

/// Bars of captures per week, with the weeks' graph changes as darker bars over them.
fn weekly_chart(id: &str, pld: &str, weeks: &BTreeMap<i64, super::aggregates::Week>) -> Markup {
    let day = |week: i64| week_start_day(week) as f64;
    let bar = |week: i64, value: usize, what: &str| Bar {
        x0: day(week) + 0.5,
        x1: day(week) + 6.5,
        y: value as f64,
        title: format!("week of {}: {value} {what}", date_label(day(week))),
    };
    let captures: Vec<Bar> = weeks
        .iter()
        .map(|(week, w)| bar(*week, w.captures, "captures"))
        .collect();
    let changes: Vec<Bar> = weeks
        .iter()
        .filter(|(_, w)| w.changes > 0)
        .map(|(week, w)| bar(*week, w.changes, "graph changes"))
        .collect();
    let mut chart = Chart::new(
        id,
        &format!("{pld}: captures and graph changes per week"),
        "week (UTC)",
        "per week",
    );
    chart.description = format!(
        "{} weeks with captures, {} with graph changes; light bars are captures, dark bars changes.",
        captures.len(),
        changes.len()
    );
    chart.fit_x(
        weeks
            .keys()
            .flat_map(|w| [day(*w), day(*w) + 7.0])
            .collect::<Vec<_>>(),
    );
    chart.fit_y_from_zero(weeks.values().map(|w| w.captures as f64));
    chart.x_ticks = date_ticks(chart.x_range, 5);
    chart.layers.push(Layer::Bars("captures", captures));
    chart.layers.push(Layer::Bars("changes", changes));
    chart.render()
}

fn date_label(day: f64) -> String {
    chrono::DateTime::from_timestamp((day * 86_400.0) as i64, 0)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// Days in people's words (`3.5 days`, `2.1 hours`, `unbounded`).
fn days_text(days: f64) -> String {
    if days.is_finite() {
        format_duration(days * 86_400.0)
    } else {
        "unbounded".to_string()
    }
}

/// The histogram of the documents' mean change times (1 / their rate, log scale) with the
/// fitted Weibull's density over it and its mean's 95% interval shaded.
fn rate_distribution(figures: &Aggregates) -> Markup {
    let times: Vec<f64> = figures
        .docs
        .iter()
        .filter_map(|d| d.rate_per_day)
        .filter(|r| *r > 0.0 && r.is_finite())
        .map(|r| (1.0 / r).log10())
        .collect();
    let rated = figures
        .docs
        .iter()
        .filter(|d| d.rate_per_day.is_some())
        .count();
    let fit_text = match &figures.fit {
        Ok(fit) => html! {
            p class="fit" {
                "Hierarchical Weibull fit of the mean change times over " (fit.documents)
                " documents: shape " (format!("{:.2}", fit.shape)) " ("
                (format!("{:.2}–{:.2}", fit.shape_interval[0], fit.shape_interval[1]))
                "), mean " (days_text(fit.mean_days)) " (95% interval "
                (days_text(fit.mean_interval_days[0])) " to " (days_text(fit.mean_interval_days[1]))
                "), median " (days_text(fit.median_days)) "."
            }
        },
        Err(why) => html! { p class="fit" { "No Weibull fit: " (why) "." } },
    };
    if times.is_empty() {
        return html! {
            p { (rated) " documents were captured twice or more; none was seen to change." }
            (fit_text)
        };
    }
    // The range of the times, widened to the fit's 1% and 99% quantiles (so its curve
    // shows), within a thousandth of a day and 100,000 days; on the grid of the bins.
    let (mut low, mut high) = times
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
            (lo.min(*t), hi.max(*t))
        });
    if let Ok(fit) = &figures.fit {
        let weibull = fit.weibull();
        let (first, last) = (
            weibull.quantile(0.01).log10(),
            weibull.quantile(0.99).log10(),
        );
        if first.is_finite() && last.is_finite() {
            low = low.min(first);
            high = high.max(last);
        }
    }
    let lo = (low.max(-3.0) / BIN_DECADES).floor() * BIN_DECADES;
    let hi = ((high.min(5.0) / BIN_DECADES + 1e-9).floor() + 1.0) * BIN_DECADES;
    let bins = ((hi - lo) / BIN_DECADES).round().max(1.0) as usize;
    let mut counts = vec![0usize; bins];
    for t in &times {
        let bin = (((t - lo) / BIN_DECADES).floor().max(0.0) as usize).min(bins - 1);
        counts[bin] += 1;
    }
    let mut chart = Chart::new(
        "rates-chart",
        "Mean change times of the documents",
        "mean time between changes (days, log scale)",
        "documents",
    );
    chart.x_range = (lo, hi);
    let bars: Vec<Bar> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(n, c)| {
            let x0 = lo + n as f64 * BIN_DECADES;
            Bar {
                x0,
                x1: x0 + BIN_DECADES,
                y: *c as f64,
                title: format!(
                    "{c} documents changing every {} to {}",
                    days_text(10f64.powf(x0)),
                    days_text(10f64.powf(x0 + BIN_DECADES))
                ),
            }
        })
        .collect();
    let mut top = counts.iter().copied().max().unwrap_or(1) as f64;
    let mut curve = Vec::new();
    if let Ok(fit) = &figures.fit {
        let weibull = fit.weibull();
        // The density of log10 T is f(t)·t·ln 10; scaled to counts per bin.
        let scale = times.len() as f64 * BIN_DECADES * std::f64::consts::LN_10;
        for step in 0..=120 {
            let x = lo + (hi - lo) * step as f64 / 120.0;
            let t = 10f64.powf(x);
            let y = weibull.pdf(t) * t * scale;
            if y.is_finite() {
                top = top.max(y);
                curve.push((x, y));
            }
        }
        let [from, to] = fit.mean_interval_days;
        if from > 0.0 && to.is_finite() && to > from {
            chart.layers.push(Layer::Band {
                from: from.log10().max(lo),
                to: to.log10().min(hi),
                title: format!(
                    "95% interval of the fitted mean: {} to {}",
                    days_text(from),
                    days_text(to)
                ),
            });
        }
    }
    chart.y_range = (0.0, top * 1.1);
    chart.x_ticks = (lo.ceil() as i64..=hi.floor() as i64)
        .map(|p| (p as f64, days_text(10f64.powi(p as i32))))
        .collect();
    chart.description = format!(
        "{} documents seen to change, in {} bins of a quarter decade; the curve is the fitted \
         Weibull, the shaded band the 95% interval of its mean.",
        times.len(),
        bars.len()
    );
    chart.layers.push(Layer::Bars("rates", bars));
    if !curve.is_empty() {
        chart.layers.push(Layer::Line("fit", curve));
    }
    html! {
        p {
            (rated) " documents captured twice or more; " (times.len()) " seen to change, "
            (rated - times.len()) " never."
        }
        (chart.render())
        (fit_text)
    }
}

fn crawl_table(figures: &Aggregates) -> Markup {
    let rows = figures.crawls.len();
    html! {
        p { (rows) " crawls (runs of captures with no pause over an hour)." }
        table id="crawls" {
            tr { th { "crawl" } th { "from" } th { "to" } th { "documents" } th { "dataset" } }
            @for (n, crawl) in figures.crawls.iter().enumerate().rev().take(PAGE_ROWS) {
                tr {
                    td { (n + 1) }
                    td { (micros_date(crawl.start_micros)) }
                    td { (http_date(&crawl.end_timestamp)) }
                    td { (crawl.captured) }
                    td { a href={ "/dataset?at=" (crawl.end_timestamp) } { "dataset" } }
                }
            }
        }
    }
}

fn micros_date(micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(micros)
        .map(|t| t.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
        .unwrap_or_default()
}

/// The parameters of `/pld` and `/dataset`.
#[derive(Debug, Deserialize)]
pub(crate) struct FigureParams {
    name: Option<String>,
    at: Option<String>,
}

/// `GET /pld?name=…`: a pay-level domain's documents, their change rates and re-crawl
/// intervals.
pub(crate) async fn pld(
    State(state): State<AppStateRef>,
    Query(params): Query<FigureParams>,
) -> Response {
    let Some(name) = params.name.filter(|n| !n.trim().is_empty()) else {
        return error_page(StatusCode::BAD_REQUEST, "give name= (a pay-level domain)");
    };
    let status = current(&state);
    inline(&state, move |_| pld_page(&status, name.trim()))
}

fn pld_page(status: &Status, name: &str) -> Response {
    let title = format!("Pay-level domain {name}");
    if let Some(message) = waiting(status) {
        return page(&title, message);
    }
    let Some((figures, _)) = figures(status) else {
        return error_page(StatusCode::INTERNAL_SERVER_ERROR, "no figures");
    };
    let docs: Vec<&super::aggregates::Doc> =
        figures.docs.iter().filter(|d| d.pld == name).collect();
    if docs.is_empty() {
        return error_page(
            StatusCode::NOT_FOUND,
            &format!("no document of the pay-level domain {name} is in the archive"),
        );
    }
    let changes: usize = docs.iter().map(|d| d.changes()).sum();
    let watched: f64 = docs.iter().map(|d| d.span_days()).sum();
    let pooled = if watched > 0.0 {
        changes as f64 / watched
    } else {
        0.0
    };
    let interval = recrawl_interval(pooled);
    let mut rated: Vec<(&super::aggregates::Doc, f64)> = docs
        .iter()
        .filter_map(|d| d.rate_per_day.map(|r| (*d, r)))
        .collect();
    rated.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.url.cmp(&b.0.url)));
    let chart = (!rated.is_empty()).then(|| {
        let mut chart = Chart::new(
            "pld-rates-chart",
            &format!("{name}: change rates of its documents"),
            "documents, fastest first",
            "changes per day",
        );
        let marks: Vec<Mark> = rated
            .iter()
            .take(PAGE_ROWS)
            .enumerate()
            .map(|(n, (doc, rate))| Mark {
                x: n as f64 + 1.0,
                y: *rate,
                title: format!(
                    "{}: {rate:.4} changes per day, re-crawl every {}",
                    doc.url,
                    doc.interval_seconds.map_or("-".into(), format_duration)
                ),
                href: Some(format!("/timeline?url={}", encode_component(&doc.url))),
                class: "",
            })
            .collect();
        chart.description = format!(
            "{} documents' bias-reduced change rates, fastest first; each links to its timeline.",
            marks.len()
        );
        chart.fit_x(marks.iter().map(|m| m.x));
        chart.fit_y_from_zero(marks.iter().map(|m| m.y));
        chart.layers.push(Layer::Points(marks));
        chart.render()
    });
    page(
        &title,
        html! {
            p class="summary" {
                (docs.len()) " documents, " (changes) " graph changes seen over "
                (days_text(watched)) " watched: " (format!("{pooled:.4}")) " changes per day."
            }
            p class="interval" {
                "Re-crawl interval the planner would give its documents at that rate: "
                strong { (format_duration(interval)) }
                " (kept current with probability " (ALPHA) ", a change up to "
                (format_duration(BETA_SECONDS)) " old not counting, within 1 day and 180 days)."
            }
            @if let Some(chart) = chart {
                h2 { "Change rates" }
                (chart)
            }
            h2 { "Documents" }
            table id="documents" {
                tr {
                    th { "URL" } th { "captures with a graph" } th { "changes" }
                    th { "changes per day" } th { "re-crawl interval" }
                }
                @for doc in docs.iter().take(PAGE_ROWS) {
                    tr {
                        td class="term" {
                            a href={ "/timeline?url=" (encode_component(&doc.url)) } { (doc.url) }
                        }
                        td { (doc.sights.len()) }
                        td { (doc.changes()) }
                        td { (doc.rate_per_day.map_or("-".into(), |r| format!("{r:.4}"))) }
                        td { (doc.interval_seconds.map_or("-".into(), format_duration)) }
                    }
                }
            }
        },
    )
}

/// `GET /dataset?at=…`: the dataset at a date.
pub(crate) async fn dataset(
    State(state): State<AppStateRef>,
    Query(params): Query<FigureParams>,
) -> Response {
    let text = params.at.unwrap_or_default();
    let date = match ReplayDate::parse(&text) {
        Ok(date) => date,
        Err(message) => return error_page(StatusCode::BAD_REQUEST, &format!("at: {message}")),
    };
    let Some(micros) = parse_wayback_timestamp(&date.timestamp()).map(|t| t.timestamp_micros())
    else {
        return error_page(StatusCode::BAD_REQUEST, "at: not a date");
    };
    let status = current(&state);
    inline(&state, move |_| dataset_page(&status, &date, micros))
}

fn dataset_page(status: &Status, date: &ReplayDate, micros: i64) -> Response {
    let stamp = date.timestamp();
    let title = "Dataset at a date";
    if let Some(message) = waiting(status) {
        return page(title, message);
    }
    let Some((figures, _)) = figures(status) else {
        return error_page(StatusCode::INTERNAL_SERVER_ERROR, "no figures");
    };
    let at = figures.dataset_at(micros);
    let previous = figures.previous_crawl_end(micros);
    let rows = figures
        .docs
        .iter()
        .filter_map(|doc| doc.at(micros).map(|sight| (doc, sight)))
        .take(PAGE_ROWS);
    page(
        title,
        html! {
            p class="summary" {
                "On " (http_date(&stamp)) ": " (at.documents) " documents, " (at.statements)
                " statements. "
                @if let Some(previous) = previous {
                    "Since the previous crawl (ended " (http_date(&previous.end_timestamp)) "): "
                    (at.changed) " documents changed, " (at.new) " new."
                } @else {
                    "No crawl before this one."
                }
            }
            p {
                a href={ "/sparql?at=" (stamp) } { "query this dataset" }
            }
            table id="dataset" {
                tr {
                    th { "URL" } th { "captured" } th { "statements" } th { "since the previous crawl" }
                }
                @for (doc, sight) in rows {
                    @let since = match previous {
                        None => "",
                        Some(p) => match doc.at(p.end_micros) {
                            None => "new",
                            Some(before) if before.graph != sight.graph => "changed",
                            Some(_) => "same",
                        },
                    };
                    tr class=(since) {
                        td class="term" { (doc.url) }
                        td { a href=(capture_href(&doc.url, &sight.timestamp)) { (http_date(&sight.timestamp)) } }
                        td { (sight.statements) }
                        td { (since) }
                    }
                }
            }
            @if at.documents > PAGE_ROWS {
                p class="cut" { "The first " (PAGE_ROWS) " of " (at.documents) " documents are shown." }
            }
        },
    )
}
