//! `/calendar?url=…`: a URL's captures by year, month and day, as pywb's calendar shows them:
//! every year with a capture, its twelve months as grids of weeks (Monday first), each day
//! with captures a link — to the capture's page when there is one that day, else to the list
//! of that day's captures (`&day=YYYYMMDD`).

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{Datelike, NaiveDate};
use maud::{Markup, html};

use ldwarc_archive::index::Capture;

use super::memento::http_date;
use super::pages::{PageParams, capture_href, error_page, page, url_param};
use super::replay::encode_component;
use super::{AppState, State as AppStateRef, inline};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `GET /calendar?url=…[&day=YYYYMMDD]`.
pub(crate) async fn calendar(
    State(state): State<AppStateRef>,
    Query(params): Query<PageParams>,
) -> Response {
    let url = match url_param(&params) {
        Ok(url) => url,
        Err(response) => return *response,
    };
    let day = params.day.clone();
    // One URL's captures are one term lookup: small work, answered on this thread.
    inline(&state, move |state| {
        calendar_page(state, &url, day.as_deref())
    })
}

/// Captures by day: `YYYYMMDD` → the captures of that day, oldest first.
fn by_day(captures: &[Capture]) -> BTreeMap<String, Vec<&Capture>> {
    let mut days: BTreeMap<String, Vec<&Capture>> = BTreeMap::new();
    for capture in captures {
        if let Some(day) = capture.timestamp.get(..8) {
            days.entry(day.to_string()).or_default().push(capture);
        }
    }
    days
}

fn calendar_page(state: &AppState, url: &str, day: Option<&str>) -> Response {
    let captures = match state.captures(url) {
        Ok(captures) => captures,
        Err(error) => return error_page(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()),
    };
    if captures.is_empty() {
        return error_page(StatusCode::NOT_FOUND, &format!("{url} was never captured"));
    }
    let days = by_day(&captures);
    let encoded = encode_component(url);
    if let Some(day) = day {
        return day_page(url, &encoded, day, &days);
    }
    let mut years: BTreeMap<i32, ()> = BTreeMap::new();
    for day in days.keys() {
        if let Some(year) = day.get(..4).and_then(|y| y.parse().ok()) {
            years.insert(year, ());
        }
    }
    page(
        "Calendar",
        html! {
            p class="summary" {
                code { (url) } ": " (captures.len()) " captures on " (days.len()) " days, "
                (http_date(&captures[0].timestamp)) " to "
                (http_date(&captures[captures.len() - 1].timestamp)) ". "
                a href={ "/timeline?url=" (encoded) } { "timeline" }
            }
            nav class="years" aria-label="years" {
                @for year in years.keys() { a href={ "#y" (year) } { (year) } " " }
            }
            @for year in years.keys() {
                section class="year" aria-labelledby={ "y" (year) } {
                    h2 id={ "y" (year) } { (year) }
                    div class="months" {
                        @for month in 1..=12u32 { (month_grid(*year, month, &days, &encoded, url)) }
                    }
                }
            }
        },
    )
}

/// One month as a table of weeks; days with captures are links.
fn month_grid(
    year: i32,
    month: u32,
    days: &BTreeMap<String, Vec<&Capture>>,
    encoded: &str,
    url: &str,
) -> Markup {
    let Some(first) = NaiveDate::from_ymd_opt(year, month, 1) else {
        return html! {};
    };
    let length = (28..=31)
        .rev()
        .find(|d| NaiveDate::from_ymd_opt(year, month, *d).is_some())
        .unwrap_or(28);
    let lead = first.weekday().num_days_from_monday() as usize;
    let mut cells: Vec<Option<u32>> = vec![None; lead];
    cells.extend((1..=length).map(Some));
    while !cells.len().is_multiple_of(7) {
        cells.push(None);
    }
    let month_name = MONTHS[(month - 1) as usize];
    html! {
        table class="month" {
            caption { (month_name) " " (year) }
            tr { @for d in ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"] { th scope="col" { (d) } } }
            @for week in cells.chunks(7) {
                tr {
                    @for cell in week {
                        @match cell {
                            None => td {},
                            Some(d) => {
                                @let key = format!("{year:04}{month:02}{d:02}");
                                @if let Some(captures) = days.get(&key) {
                                    @let href = if captures.len() == 1 {
                                        capture_href(url, &captures[0].timestamp)
                                    } else {
                                        format!("/calendar?url={encoded}&day={key}")
                                    };
                                    td class="captured" {
                                        a href=(href)
                                            aria-label={ (captures.len()) " captures on " (d) " " (month_name) " " (year) }
                                            title={ (captures.len()) " captures" } { (d) }
                                    }
                                } @else {
                                    td { (d) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The captures of one day, each linked to its page and its archived memento.
fn day_page(
    url: &str,
    encoded: &str,
    day: &str,
    days: &BTreeMap<String, Vec<&Capture>>,
) -> Response {
    if day.len() != 8 || !day.bytes().all(|b| b.is_ascii_digit()) {
        return error_page(StatusCode::BAD_REQUEST, "day is YYYYMMDD");
    }
    let captures = days.get(day).map(Vec::as_slice).unwrap_or(&[]);
    page(
        "Captures of a day",
        html! {
            p class="summary" {
                code { (url) } ": " (captures.len()) " captures on "
                (day.get(..4).unwrap_or("")) "-" (day.get(4..6).unwrap_or("")) "-" (day.get(6..).unwrap_or(""))
                ". " a href={ "/calendar?url=" (encoded) "#y" (day.get(..4).unwrap_or("")) } { "calendar" }
            }
            ul class="day" {
                @for capture in captures {
                    li {
                        a href=(capture_href(url, &capture.timestamp)) { (http_date(&capture.timestamp)) }
                        " (" a href={ "/web/" (capture.timestamp) "/" (url) } { "memento" } ")"
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(timestamp: &str) -> Capture {
        Capture {
            urlkey: "org,e)/".into(),
            timestamp: timestamp.to_string(),
            time_micros: 0,
            url: "http://e.org/".into(),
            mime: None,
            status: Some(200),
            digest: None,
            length: 0,
            offset: 0,
            filename: "a.warc.gz".into(),
            record_type: ldwarc_warc::RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    #[test]
    fn a_month_grid_links_each_captured_day_once() {
        let captures = [
            capture("20240229120000"),
            capture("20240229130000"),
            capture("20240205000000"),
        ];
        let days = by_day(&captures);
        let html = month_grid(2024, 2, &days, "u", "http://e.org/").into_string();
        // 2024-02-01 is a Thursday: three empty cells lead, 29 days follow.
        assert_eq!(html.matches("<td></td>").count(), 3 + 3, "{html}");
        assert_eq!(html.matches("<td class=\"captured\">").count(), 2, "{html}");
        assert!(
            html.contains("href=\"/calendar?url=u&amp;day=20240229\""),
            "{html}"
        );
        assert!(html.contains("&amp;ts=20240205000000\""), "{html}");
        assert!(html.contains(">29</a>"), "{html}");
        assert!(!html.contains(">30<"), "{html}");
    }
}
