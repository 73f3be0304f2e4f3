//! Charts drawn on the server as inline SVG, so a page shows them without any script: a plot
//! area with axes and ticks, and layers on it (bars, lines, marked points, shaded bands).
//! Every text and link reaches the markup through maud, which escapes it. Each chart is an
//! `svg role="img"` with a `title` and a `desc` for screen readers; a marked point with a link
//! is an SVG `a`, reachable by the keyboard like any link.

use maud::{Markup, html};

/// Drawing size in SVG units (the SVG scales to its container's width).
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 240.0;
/// Room for the tick labels left and below, and a little space right and above.
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 36.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;

/// A point marked on a chart, with the text shown on hover and by screen readers.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) x: f64,
    pub(crate) y: f64,
    /// What the point stands for.
    pub(crate) title: String,
    /// Where the point leads, when it is a link.
    pub(crate) href: Option<String>,
    /// Extra class (e.g. `changed`).
    pub(crate) class: &'static str,
}

/// One bar from `x0` to `x1`, `y` high.
#[derive(Debug, Clone)]
pub(crate) struct Bar {
    pub(crate) x0: f64,
    pub(crate) x1: f64,
    pub(crate) y: f64,
    pub(crate) title: String,
}

/// What is drawn in the plot area.
#[derive(Debug, Clone)]
pub(crate) enum Layer {
    /// Bars (class `bar` and the given class).
    Bars(&'static str, Vec<Bar>),
    /// A polyline through the points, in order.
    Line(&'static str, Vec<(f64, f64)>),
    /// Marked points (class `point`).
    Points(Vec<Mark>),
    /// Marks painted again on top of everything before them (class `mark`), so that a point
    /// hidden under a later neighbour still shows and takes the click; out of the keyboard's
    /// and screen readers' way, which meet the same points once, in the `Points` layer.
    Overlay(Vec<Mark>),
    /// A shaded vertical band from `from` to `to`, with its meaning.
    Band { from: f64, to: f64, title: String },
}

/// A chart: its ranges, labels and layers.
#[derive(Debug, Clone)]
pub(crate) struct Chart {
    /// `id` of the `svg` element (tests and links find the chart by it).
    pub(crate) id: String,
    pub(crate) title: String,
    /// A sentence saying what the chart shows, for screen readers.
    pub(crate) description: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) x_range: (f64, f64),
    pub(crate) y_range: (f64, f64),
    /// Positions and labels of the ticks on the x axis.
    pub(crate) x_ticks: Vec<(f64, String)>,
    /// What is drawn, in order (later layers on top).
    pub(crate) layers: Vec<Layer>,
}

impl Chart {
    /// A chart without layers; x ticks default to none.
    pub(crate) fn new(id: &str, title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            id: id.to_string(),
            title: title.to_string(),
            description: String::new(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            x_ticks: Vec::new(),
            layers: Vec::new(),
        }
    }

    /// The x range of `values`, widened a little when it is a single value (so it has width).
    pub(crate) fn fit_x(&mut self, values: impl IntoIterator<Item = f64>) {
        self.x_range = span_of(values);
    }

    /// The y range from 0 to the largest of `values` (at least 1), with a tenth more room.
    pub(crate) fn fit_y_from_zero(&mut self, values: impl IntoIterator<Item = f64>) {
        let top = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        self.y_range = (0.0, if top > 0.0 { top * 1.1 } else { 1.0 });
    }

    fn px(&self, x: f64) -> f64 {
        let (lo, hi) = self.x_range;
        LEFT + (x - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT)
    }

    fn py(&self, y: f64) -> f64 {
        let (lo, hi) = self.y_range;
        HEIGHT - BOTTOM - (y - lo) / (hi - lo) * (HEIGHT - TOP - BOTTOM)
    }

    /// The chart as an inline `svg` element.
    pub(crate) fn render(&self) -> Markup {
        let title_id = format!("{}-title", self.id);
        let desc_id = format!("{}-desc", self.id);
        let y_ticks = nice_ticks(self.y_range.0, self.y_range.1, 5);
        let bottom = HEIGHT - BOTTOM;
        html! {
            figure class="chart" {
                svg id=(self.id) class="chart" role="img" viewBox={ "0 0 " (WIDTH) " " (HEIGHT) }
                    aria-labelledby={ (title_id) " " (desc_id) } xmlns="http://www.w3.org/2000/svg" {
                    title id=(title_id) { (self.title) }
                    desc id=(desc_id) { (self.description) }
                    line class="axis" x1=(LEFT) y1=(bottom) x2=(WIDTH - RIGHT) y2=(bottom) {}
                    line class="axis" x1=(LEFT) y1=(TOP) x2=(LEFT) y2=(bottom) {}
                    @for tick in &y_ticks {
                        line class="grid" x1=(LEFT) x2=(WIDTH - RIGHT) y1=(r(self.py(*tick))) y2=(r(self.py(*tick))) {}
                        text class="tick" x=(LEFT - 4.0) y=(r(self.py(*tick) + 4.0)) text-anchor="end" {
                            (tick_label(*tick))
                        }
                    }
                    @for (x, label) in &self.x_ticks {
                        text class="tick" x=(r(self.px(*x))) y=(bottom + 14.0) text-anchor="middle" { (label) }
                    }
                    text class="label" x=(r((LEFT + WIDTH - RIGHT) / 2.0)) y=(HEIGHT - 4.0) text-anchor="middle" {
                        (self.x_label)
                    }
                    text class="label" x="12" y=(r((TOP + bottom) / 2.0)) text-anchor="middle"
                        transform={ "rotate(-90 12 " (r((TOP + bottom) / 2.0)) ")" } { (self.y_label) }
                    @for layer in &self.layers { (self.layer(layer)) }
                }
                figcaption { (self.title) }
            }
        }
    }

    fn layer(&self, layer: &Layer) -> Markup {
        let bottom = HEIGHT - BOTTOM;
        match layer {
            Layer::Bars(class, bars) => html! {
                @for bar in bars {
                    @let (x0, x1) = (self.px(bar.x0), self.px(bar.x1));
                    @let top = self.py(bar.y);
                    rect class={ "bar " (class) } x=(r(x0)) y=(r(top)) width=(r((x1 - x0).max(1.0)))
                        height=(r((bottom - top).max(0.0))) { title { (bar.title) } }
                }
            },
            Layer::Line(class, points) => {
                let path: Vec<String> = points
                    .iter()
                    .filter(|(x, y)| x.is_finite() && y.is_finite())
                    .map(|(x, y)| format!("{},{}", r(self.px(*x)), r(self.py(*y))))
                    .collect();
                html! { polyline class={ "line " (class) } points=(path.join(" ")) {} }
            }
            Layer::Points(marks) => html! {
                @for mark in marks {
                    @let circle = html! {
                        circle class={ "point " (mark.class) } cx=(r(self.px(mark.x))) cy=(r(self.py(mark.y))) r="4" {
                            title { (mark.title) }
                        }
                    };
                    @if let Some(href) = &mark.href {
                        a href=(href) aria-label=(mark.title) { (circle) }
                    } @else {
                        (circle)
                    }
                }
            },
            Layer::Overlay(marks) => html! {
                @for mark in marks {
                    @let circle = html! {
                        circle class={ "mark " (mark.class) } cx=(r(self.px(mark.x))) cy=(r(self.py(mark.y))) r="4" {}
                    };
                    @if let Some(href) = &mark.href {
                        a href=(href) tabindex="-1" aria-hidden="true" { (circle) }
                    } @else {
                        g aria-hidden="true" { (circle) }
                    }
                }
            },
            Layer::Band { from, to, title } => {
                let (x0, x1) = (self.px(*from), self.px(*to));
                html! {
                    rect class="band" x=(r(x0)) y=(TOP) width=(r((x1 - x0).max(1.0))) height=(bottom - TOP) {
                        title { (title) }
                    }
                }
            }
        }
    }
}

/// About `count` ticks over a range of days since the Unix epoch, labelled as dates: years
/// over a long range, months over a season, days otherwise (UTC).
pub(crate) fn date_ticks(range: (f64, f64), count: usize) -> Vec<(f64, String)> {
    let (lo, hi) = range;
    if !(lo.is_finite() && hi.is_finite() && hi > lo) || count == 0 {
        return Vec::new();
    }
    let format = if hi - lo > 3.0 * 365.0 {
        "%Y"
    } else if hi - lo > 90.0 {
        "%Y-%m"
    } else {
        "%Y-%m-%d"
    };
    let step = (hi - lo) / count as f64;
    let mut ticks: Vec<(f64, String)> = Vec::new();
    for n in 0..count {
        let day = lo + step * (n as f64 + 0.5);
        let Some(at) = chrono::DateTime::from_timestamp((day * 86_400.0) as i64, 0) else {
            continue;
        };
        let label = at.format(format).to_string();
        if ticks.last().is_none_or(|(_, last)| *last != label) {
            ticks.push((day, label));
        }
    }
    ticks
}

/// A number rounded to a tenth, for coordinates (short markup).
fn r(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// The range of `values`, or (0, 1) for none; a single value gets ±1 around it.
pub(crate) fn span_of(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 1.0, hi + 1.0)
    } else {
        let pad = (hi - lo) * 0.03;
        (lo - pad, hi + pad)
    }
}

/// About `count` round tick values between `lo` and `hi` (steps of 1, 2 or 5 times a power of
/// ten).
pub(crate) fn nice_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && hi > lo) || count == 0 {
        return Vec::new();
    }
    let raw = (hi - lo) / count as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|n| n as f64 * step).collect()
}

/// A tick value in few characters (`1200`, `0.05`, `1.5k` for thousands, `2M` for millions).
pub(crate) fn tick_label(value: f64) -> String {
    let magnitude = value.abs();
    let trim = |text: String| {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    };
    if magnitude >= 1e6 {
        format!("{}M", trim(format!("{:.1}", value / 1e6)))
    } else if magnitude >= 1e4 {
        format!("{}k", trim(format!("{:.1}", value / 1e3)))
    } else if magnitude >= 1.0 || magnitude == 0.0 {
        trim(format!("{value:.1}"))
    } else {
        trim(format!("{value:.3}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(
            nice_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(nice_ticks(0.0, 0.9, 3), vec![0.0, 0.5]);
        assert!(nice_ticks(1.0, 1.0, 5).is_empty());
        assert_eq!(tick_label(1500.0), "1500");
        assert_eq!(tick_label(25_000.0), "25k");
        assert_eq!(tick_label(0.05), "0.05");
        assert_eq!(tick_label(3_000_000.0), "3M");
    }

    #[test]
    fn date_ticks_are_dates_in_the_range() {
        // 2024-01-01 is day 19723.
        let ticks = date_ticks((19_723.0, 19_733.0), 2);
        assert_eq!(
            ticks,
            vec![
                (19_725.5, "2024-01-03".into()),
                (19_730.5, "2024-01-08".into())
            ]
        );
        let years = date_ticks((19_723.0, 19_723.0 + 3650.0), 10);
        assert_eq!(years.first().map(|t| t.1.as_str()), Some("2024"));
        assert!(date_ticks((1.0, 1.0), 3).is_empty());
    }

    #[test]
    fn a_chart_draws_one_element_per_value_and_escapes_text() {
        let mut chart = Chart::new("c", "<b>title</b>", "x & y", "n");
        chart.fit_x([0.0, 10.0]);
        chart.fit_y_from_zero([5.0]);
        chart.layers.push(Layer::Points(vec![
            Mark {
                x: 1.0,
                y: 2.0,
                title: "one \"quoted\"".into(),
                href: Some("/diff?a=1&b=2".into()),
                class: "changed",
            },
            Mark {
                x: 3.0,
                y: 4.0,
                title: "two".into(),
                href: None,
                class: "",
            },
        ]));
        chart.layers.push(Layer::Bars(
            "captures",
            vec![Bar {
                x0: 0.0,
                x1: 1.0,
                y: 5.0,
                title: "five".into(),
            }],
        ));
        let svg = chart.render().into_string();
        assert_eq!(svg.matches("<circle class=\"point").count(), 2, "{svg}");
        assert_eq!(
            svg.matches("<rect class=\"bar captures\"").count(),
            1,
            "{svg}"
        );
        assert!(svg.contains("<a href=\"/diff?a=1&amp;b=2\""), "{svg}");
        assert!(svg.contains("&lt;b&gt;title&lt;/b&gt;"), "{svg}");
        assert!(svg.contains("x &amp; y"), "{svg}");
        assert!(!svg.contains("<b>"), "{svg}");
    }
}
