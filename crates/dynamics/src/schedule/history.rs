//! Change histories (per URL, the instants its content changed within an observed span), the
//! JSON-lines format `ldwarc simulate --histories` reads, and the change-rate bands of the
//! paper's Table 2.
//!
//! One JSON object per line:
//!
//! ```text
//! {"url": "http://example.org/a", "start": "2020-01-01T00:00:00Z", "end": 1672531200,
//!  "changes": ["2020-01-03T10:00:00Z", 1578300000.5]}
//! ```
//!
//! Instants are RFC 3339 strings or numbers of seconds since the Unix epoch (UTC). Changes
//! outside `(start, end]` are ignored (a change at `start` is already in the first download).
//! Blank lines and lines starting with `#` are skipped.

use std::io::{self, BufRead, Write};

use serde::{Deserialize, Serialize};

use super::{MONTH, ScheduleError};
use crate::duration::DAY;

/// The changes of one URL over an observed span.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeHistory {
    /// The URL (or any name).
    pub url: String,
    /// Start of the span, seconds since the epoch: the first download happens here.
    pub start: f64,
    /// End of the span.
    pub end: f64,
    /// Change instants in `(start, end]`, sorted.
    pub changes: Vec<f64>,
}

impl ChangeHistory {
    /// A history; changes are sorted and those outside `(start, end]` dropped. Errors when
    /// the span is empty or not finite.
    pub fn new(
        url: impl Into<String>,
        start: f64,
        end: f64,
        mut changes: Vec<f64>,
    ) -> Result<Self, ScheduleError> {
        let url = url.into();
        if !(start.is_finite() && end.is_finite() && end > start) {
            return Err(ScheduleError::Parameter(format!(
                "{url}: the span must end after it starts (start {start}, end {end})"
            )));
        }
        changes.retain(|&t| t > start && t <= end);
        changes.sort_by(f64::total_cmp);
        Ok(Self {
            url,
            start,
            end,
            changes,
        })
    }

    /// Length of the span, seconds.
    pub fn span(&self) -> f64 {
        self.end - self.start
    }

    /// The same history cut at `end` (when earlier than its own end).
    pub fn truncated(&self, end: f64) -> ChangeHistory {
        let end = end.min(self.end);
        ChangeHistory {
            url: self.url.clone(),
            start: self.start,
            end,
            changes: self.changes.iter().copied().filter(|&t| t <= end).collect(),
        }
    }

    /// Changes in `(after, up_to]`.
    pub fn changes_between(&self, after: f64, up_to: f64) -> usize {
        if up_to <= after {
            return 0;
        }
        let from = self.changes.partition_point(|&t| t <= after);
        let to = self.changes.partition_point(|&t| t <= up_to);
        to - from
    }

    /// The first change after `after`, if any.
    pub fn next_change(&self, after: f64) -> Option<f64> {
        let index = self.changes.partition_point(|&t| t <= after);
        self.changes.get(index).copied()
    }

    /// How long a copy downloaded at `from` stays current before `to`: until the next change
    /// or `to`, whichever comes first.
    pub fn fresh_time(&self, from: f64, to: f64) -> f64 {
        let until = self.next_change(from).map_or(to, |c| c.min(to));
        (until - from).max(0.0)
    }

    /// The average change rate (changes per second over the span), as the paper computes it:
    /// "the number of revisions divided by the history time".
    pub fn rate(&self) -> f64 {
        self.changes.len() as f64 / self.span()
    }

    /// The average time between changes (infinite without changes).
    pub fn mean_change_interval(&self) -> f64 {
        if self.changes.is_empty() {
            f64::INFINITY
        } else {
            self.span() / self.changes.len() as f64
        }
    }

    /// The Table 2 band of its average time between changes.
    pub fn band(&self) -> Band {
        Band::of(self.mean_change_interval())
    }
}

/// Bands of the average time between changes (the paper's Table 2, with the sixth band read
/// as 4–6 months as its Fig. 6 has it, and a band below 2 days the paper's corpus lacked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Band {
    /// Under 2 days.
    Under2Days,
    /// 2 days to 1 week.
    Days2To7,
    /// 1 to 2 weeks.
    Days7To14,
    /// 2 weeks to 1 month.
    Days14ToMonth,
    /// 1 to 2 months.
    Months1To2,
    /// 2 to 4 months.
    Months2To4,
    /// 4 to 6 months.
    Months4To6,
    /// Over 6 months (and no change at all).
    Over6Months,
}

impl Band {
    /// Every band, fastest first.
    pub const ALL: [Band; 8] = [
        Band::Under2Days,
        Band::Days2To7,
        Band::Days7To14,
        Band::Days14ToMonth,
        Band::Months1To2,
        Band::Months2To4,
        Band::Months4To6,
        Band::Over6Months,
    ];

    /// The band of an average time between changes (seconds; a boundary value belongs to
    /// the slower band).
    pub fn of(mean_interval: f64) -> Band {
        let bounds = [
            (2.0 * DAY, Band::Under2Days),
            (7.0 * DAY, Band::Days2To7),
            (14.0 * DAY, Band::Days7To14),
            (MONTH, Band::Days14ToMonth),
            (2.0 * MONTH, Band::Months1To2),
            (4.0 * MONTH, Band::Months2To4),
            (6.0 * MONTH, Band::Months4To6),
        ];
        bounds
            .iter()
            .find(|(upper, _)| mean_interval < *upper)
            .map_or(Band::Over6Months, |&(_, band)| band)
    }

    /// The label used in reports.
    pub fn label(self) -> &'static str {
        match self {
            Band::Under2Days => "<2d",
            Band::Days2To7 => "2d-7d",
            Band::Days7To14 => "7d-14d",
            Band::Days14ToMonth => "14d-1m",
            Band::Months1To2 => "1m-2m",
            Band::Months2To4 => "2m-4m",
            Band::Months4To6 => "4m-6m",
            Band::Over6Months => ">6m",
        }
    }
}

/// An instant as written in a history line: seconds or RFC 3339.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum Instant {
    Seconds(f64),
    Text(String),
}

impl Instant {
    fn seconds(&self) -> Result<f64, String> {
        match self {
            Instant::Seconds(s) if s.is_finite() => Ok(*s),
            Instant::Seconds(s) => Err(format!("instant {s} is not finite")),
            Instant::Text(text) => chrono::DateTime::parse_from_rfc3339(text)
                .map(|t| t.timestamp_micros() as f64 / 1e6)
                .map_err(|e| format!("instant '{text}' is not RFC 3339 ({e})")),
        }
    }
}

/// Other fields of a line (a rate, a label a generator added) are ignored, so that files
/// written by other tools can be read.
#[derive(Debug, Deserialize, Serialize)]
struct HistoryLine {
    url: String,
    start: Instant,
    end: Instant,
    changes: Vec<Instant>,
}

fn parse_line(text: &str) -> Result<ChangeHistory, String> {
    let line: HistoryLine = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let changes = line
        .changes
        .iter()
        .map(Instant::seconds)
        .collect::<Result<Vec<_>, _>>()?;
    ChangeHistory::new(
        line.url,
        line.start.seconds()?,
        line.end.seconds()?,
        changes,
    )
    .map_err(|e| e.to_string())
}

/// Reads change histories in the JSON-lines format; `file` names the input in errors
/// (`file:line: why`).
pub fn read_histories(
    reader: impl BufRead,
    file: &str,
) -> Result<Vec<ChangeHistory>, ScheduleError> {
    let mut histories = Vec::new();
    for (index, line) in reader.lines().enumerate() {
        let error = |why: String| ScheduleError::Input {
            file: file.to_string(),
            line: index + 1,
            why,
        };
        let line = line.map_err(|e| error(e.to_string()))?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        histories.push(parse_line(trimmed).map_err(error)?);
    }
    Ok(histories)
}

/// Writes histories in the JSON-lines format (instants as seconds since the epoch).
pub fn write_histories(mut writer: impl Write, histories: &[ChangeHistory]) -> io::Result<()> {
    for history in histories {
        let line = HistoryLine {
            url: history.url.clone(),
            start: Instant::Seconds(history.start),
            end: Instant::Seconds(history.end),
            changes: history
                .changes
                .iter()
                .map(|&t| Instant::Seconds(t))
                .collect(),
        };
        serde_json::to_writer(&mut writer, &line)?;
        writer.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_seconds_and_rfc3339_and_reports_bad_lines() {
        let text = "# comment\n\n\
            {\"url\":\"a\",\"start\":\"2020-01-01T00:00:00Z\",\"end\":1578009600,\
             \"changes\":[\"2020-01-02T00:00:00Z\",1577836800,1577900000.5,1600000000]}\n";
        let histories = read_histories(text.as_bytes(), "h.jsonl").unwrap();
        assert_eq!(histories.len(), 1);
        let h = &histories[0];
        assert_eq!((h.start, h.end), (1_577_836_800.0, 1_578_009_600.0));
        // The change at the start and the one after the end are dropped; sorted.
        assert_eq!(h.changes, vec![1_577_900_000.5, 1_577_923_200.0]);
        let bad = "{\"url\":\"a\",\"start\":0,\"end\":10,\"changes\":[]}\n{\"url\":\"b\"}\n";
        let error = read_histories(bad.as_bytes(), "h.jsonl").unwrap_err();
        assert!(error.to_string().starts_with("h.jsonl:2: "), "{error}");
        let bad = "{\"url\":\"a\",\"start\":\"yesterday\",\"end\":10,\"changes\":[]}";
        let error = read_histories(bad.as_bytes(), "h.jsonl").unwrap_err();
        assert!(error.to_string().contains("not RFC 3339"), "{error}");
        let bad = "{\"url\":\"a\",\"start\":10,\"end\":10,\"changes\":[]}";
        assert!(read_histories(bad.as_bytes(), "x").is_err());
        // Extra fields are ignored.
        let extra =
            "{\"url\":\"a\",\"start\":0,\"end\":10,\"changes\":[5],\"rate\":0.1,\"tags\":[\"x\"]}";
        let histories = read_histories(extra.as_bytes(), "x").unwrap();
        assert_eq!(histories[0].changes, vec![5.0]);
    }

    #[test]
    fn writes_what_it_reads() {
        let h = ChangeHistory::new("u", 0.0, 100.0, vec![50.5, 10.0]).unwrap();
        let mut out = Vec::new();
        write_histories(&mut out, std::slice::from_ref(&h)).unwrap();
        let back = read_histories(out.as_slice(), "mem").unwrap();
        assert_eq!(back, vec![h]);
    }

    #[test]
    fn counts_changes_and_freshness_in_half_open_intervals() {
        let h = ChangeHistory::new("u", 0.0, 100.0, vec![10.0, 20.0, 30.0]).unwrap();
        assert_eq!(h.changes_between(0.0, 10.0), 1);
        assert_eq!(h.changes_between(10.0, 29.0), 1);
        assert_eq!(h.changes_between(30.0, 100.0), 0);
        assert_eq!(h.next_change(10.0), Some(20.0));
        assert_eq!(h.fresh_time(10.0, 15.0), 5.0);
        assert_eq!(h.fresh_time(10.0, 50.0), 10.0);
        assert_eq!(h.fresh_time(30.0, 100.0), 70.0);
        assert_eq!(h.truncated(25.0).changes, vec![10.0, 20.0]);
        assert!((h.rate() - 0.03).abs() < 1e-15);
    }

    #[test]
    fn bands_follow_table_2() {
        assert_eq!(Band::of(DAY), Band::Under2Days);
        assert_eq!(Band::of(2.0 * DAY), Band::Days2To7);
        assert_eq!(Band::of(10.0 * DAY), Band::Days7To14);
        assert_eq!(Band::of(20.0 * DAY), Band::Days14ToMonth);
        assert_eq!(Band::of(45.0 * DAY), Band::Months1To2);
        assert_eq!(Band::of(100.0 * DAY), Band::Months2To4);
        assert_eq!(Band::of(150.0 * DAY), Band::Months4To6);
        assert_eq!(Band::of(180.0 * DAY), Band::Over6Months);
        assert_eq!(Band::of(f64::INFINITY), Band::Over6Months);
        let h = ChangeHistory::new("u", 0.0, 30.0 * DAY, vec![DAY, 2.0 * DAY]).unwrap();
        assert_eq!(h.band(), Band::Days14ToMonth);
    }
}
