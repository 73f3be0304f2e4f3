//! The dates users give to replay commands: Wayback timestamps of 1 to 14 digits and ISO 8601,
//! always resolved to one UTC instant.

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

use crate::index::query::closest_seconds;
use ldwarc_warc::time::wayback_timestamp;

/// A point in time a replay asks about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayDate {
    /// What the user wrote.
    pub text: String,
    /// The instant it stands for (UTC, whole seconds). A partial date stands for the end of
    /// its period: `2024` is 2024-12-31T23:59:59Z, `2024-03-15` is 2024-03-15T23:59:59Z (the
    /// archive as it stood by the end of that day), as pywb pads partial timestamps.
    pub at: DateTime<Utc>,
}

impl ReplayDate {
    /// Parses a 1–14-digit Wayback timestamp (padded to the end of its period, out-of-range
    /// parts clamped as pywb does) or an ISO 8601 date or date-time, or a year and month
    /// (`2024-02`, the end of that month). A date-time with an offset is converted to UTC; one
    /// without an offset is taken as UTC.
    pub fn parse(text: &str) -> Result<ReplayDate, String> {
        ReplayDate::parse_padded(text, Padding::End)
    }

    /// Parses the same forms as [`ReplayDate::parse`], a partial date standing for the START
    /// of its period (`2024-02` is 2024-02-01T00:00:00Z), as a lower bound (`--from`) reads
    /// it, the way CDX queries pad `from`.
    pub fn parse_start(text: &str) -> Result<ReplayDate, String> {
        ReplayDate::parse_padded(text, Padding::Start)
    }

    fn parse_padded(text: &str, padding: Padding) -> Result<ReplayDate, String> {
        let trimmed = text.trim();
        let at = if !trimmed.is_empty()
            && trimmed.len() <= 14
            && trimmed.bytes().all(|b| b.is_ascii_digit())
        {
            wayback_instant(trimmed, padding)
        } else if let Some(digits) = year_month(trimmed) {
            wayback_instant(&digits, padding)
        } else {
            iso_instant(trimmed, padding)
        }
        .ok_or_else(|| {
            format!(
                "{text:?} is not a date: give a Wayback timestamp (1 to 14 digits, e.g. \
                 20240315 or 20240315120000) or ISO 8601 (2024-03, 2024-03-15, \
                 2024-03-15T12:00:00Z, 2024-03-15T14:00:00+02:00); dates without a zone are UTC"
            )
        })?;
        Ok(ReplayDate {
            text: text.to_string(),
            at,
        })
    }

    /// The instant as a 14-digit Wayback timestamp.
    pub fn timestamp(&self) -> String {
        wayback_timestamp(self.at)
    }

    /// A date for exactly this instant.
    pub fn from_instant(at: DateTime<Utc>) -> ReplayDate {
        ReplayDate {
            text: wayback_timestamp(at),
            at,
        }
    }
}

/// Which instant of its period a partial date stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Padding {
    /// The first second (a lower bound).
    Start,
    /// The last second (the archive as it stood by then).
    End,
}

/// `2024-02` as the Wayback digits `202402`.
fn year_month(text: &str) -> Option<String> {
    let (year, month) = text.split_once('-')?;
    let digits =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
    (digits(year, 4) && digits(month, 2) && ("01"..="12").contains(&month))
        .then(|| format!("{year}{month}"))
}

fn wayback_instant(digits: &str, padding: Padding) -> Option<DateTime<Utc>> {
    // Years before 1900 are clamped by pywb's rules; a 1-3 digit "year" makes no sense.
    if digits.len() < 4 {
        return None;
    }
    let padded;
    let digits = match padding {
        Padding::End => digits,
        Padding::Start => {
            const DOWN: &str = "10000101000000";
            padded = format!("{digits}{}", &DOWN[digits.len()..]);
            &padded
        }
    };
    let seconds = closest_seconds(digits);
    (seconds != i64::MAX)
        .then(|| Utc.timestamp_opt(seconds, 0).single())
        .flatten()
}

fn iso_instant(text: &str, padding: Padding) -> Option<DateTime<Utc>> {
    if let Ok(zoned) = DateTime::parse_from_rfc3339(text) {
        return Some(truncate(zoned.with_timezone(&Utc)));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%#z",
        "%Y-%m-%dT%H:%M%#z",
        "%Y-%m-%d %H:%M:%S%#z",
    ] {
        if let Ok(zoned) = DateTime::parse_from_str(text, format) {
            return Some(truncate(zoned.with_timezone(&Utc)));
        }
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Some(truncate(Utc.from_utc_datetime(&naive)));
        }
    }
    let (hour, minute, second) = match padding {
        Padding::Start => (0, 0, 0),
        Padding::End => (23, 59, 59),
    };
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|day| day.and_hms_opt(hour, minute, second))
        .map(|instant| Utc.from_utc_datetime(&instant))
}

fn truncate(at: DateTime<Utc>) -> DateTime<Utc> {
    Utc.timestamp_opt(at.timestamp(), 0).single().unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(text: &str) -> String {
        ReplayDate::parse(text).unwrap().timestamp()
    }

    #[test]
    fn wayback_timestamps_pad_to_the_end_of_their_period() {
        assert_eq!(stamp("20240315120000"), "20240315120000");
        assert_eq!(stamp("2024"), "20241231235959");
        assert_eq!(stamp("202402"), "20240229235959");
        assert_eq!(stamp("20240315"), "20240315235959");
        assert_eq!(stamp("2024031512"), "20240315125959");
    }

    #[test]
    fn iso_dates_convert_to_utc_and_bare_dates_are_utc() {
        assert_eq!(stamp("2024-03-15T14:00:00+02:00"), "20240315120000");
        assert_eq!(stamp("2024-03-15T12:00:00Z"), "20240315120000");
        assert_eq!(stamp("2024-03-15T12:00:00.75Z"), "20240315120000");
        assert_eq!(stamp("2024-03-15T12:00:00"), "20240315120000");
        assert_eq!(stamp("2024-03-15T12:00"), "20240315120000");
        assert_eq!(stamp("2024-03-15"), "20240315235959");
        assert_eq!(stamp("2024-03-15T12:00:00-0500"), "20240315170000");
    }

    #[test]
    fn a_year_and_month_is_the_end_of_that_month() {
        assert_eq!(stamp("2024-02"), "20240229235959");
        assert_eq!(stamp("2023-12"), "20231231235959");
        assert_eq!(stamp("2024-02"), stamp("202402"));
    }

    #[test]
    fn a_lower_bound_is_the_start_of_its_period() {
        let start = |text: &str| ReplayDate::parse_start(text).unwrap().timestamp();
        assert_eq!(start("2024"), "20240101000000");
        assert_eq!(start("2024-02"), "20240201000000");
        assert_eq!(start("202402"), "20240201000000");
        assert_eq!(start("2024-03-15"), "20240315000000");
        assert_eq!(start("2024031512"), "20240315120000");
        assert_eq!(start("2024-03-15T12:30:00Z"), "20240315123000");
        assert!(ReplayDate::parse_start("2024-13").is_err());
    }

    #[test]
    fn nonsense_is_a_clear_error() {
        for bad in [
            "",
            "yesterday",
            "12",
            "2024-13-01",
            "2024-03-15T25:00:00Z",
            "2024-13",
            "2024-2",
        ] {
            let err = ReplayDate::parse(bad).unwrap_err();
            assert!(err.contains("is not a date"), "{bad}: {err}");
        }
    }
}
