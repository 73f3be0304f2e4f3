//! The dates users give to replay commands: Wayback timestamps of 1 to 14 digits and ISO 8601,
//! always resolved to one UTC instant.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use ldwarc_archive::index::query::closest_seconds;
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
    /// (`2024-02`, the end of that month), or `now` (the present second, as CDX queries'
    /// `closest=now`). A date-time with an offset is converted to UTC; one without an offset
    /// is taken as UTC.
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
        let at = if trimmed.eq_ignore_ascii_case("now") {
            // The present, to the second: the archive as it stands (as `--closest now`).
            Utc.timestamp_opt(Utc::now().timestamp(), 0).single()
        } else if !trimmed.is_empty()
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
                 2024-03-15T12:00:00Z, 2024-03-15T14:00:00+02:00), or now; dates without a \
                 zone are UTC"
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

/// An ISO 8601 date (`2024-03-15`) or date-time to the hour, minute or second
/// (`2024-03-15T12`, `…T12:30`, `…T12:30:05`, a fraction of a second ignored), `T` or a space
/// between date and time, then optionally `Z` or an offset (`+02:00`, `+0200`, `+02`): the
/// first or last second of the period written, converted to UTC.
fn iso_instant(text: &str, padding: Padding) -> Option<DateTime<Utc>> {
    let date = text.get(..10)?;
    if !date.bytes().enumerate().all(|(i, b)| match i {
        4 | 7 => b == b'-',
        _ => b.is_ascii_digit(),
    }) {
        return None;
    }
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    let rest = &text[10..];
    if rest.is_empty() {
        let instant = match padding {
            Padding::Start => day.and_hms_opt(0, 0, 0),
            Padding::End => day.and_hms_opt(23, 59, 59),
        }?;
        return Some(Utc.from_utc_datetime(&instant));
    }
    let pad = |part: Option<u32>| {
        part.unwrap_or(match padding {
            Padding::Start => 0,
            Padding::End => 59,
        })
    };
    let rest = rest
        .strip_prefix(['T', 't', ' '])
        .filter(|clock| !clock.is_empty())?;
    let (clock, offset_seconds) = split_zone(rest)?;
    let (hour, minute, second) = clock_parts(clock)?;
    let instant = day.and_hms_opt(hour, pad(minute), pad(second))?;
    let utc = Utc.from_utc_datetime(&instant) - chrono::Duration::seconds(offset_seconds);
    Some(utc)
}

/// Splits `12:30:05+02:00` into the clock and the zone's offset from UTC in seconds (no
/// zone: UTC).
fn split_zone(text: &str) -> Option<(&str, i64)> {
    if let Some(clock) = text.strip_suffix(['Z', 'z']) {
        return Some((clock, 0));
    }
    let Some(at) = text.find(['+', '-']) else {
        return Some((text, 0));
    };
    let (clock, zone) = text.split_at(at);
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let zone = &zone[1..];
    // Digits and one colon only, so that the splits below fall between characters.
    if !zone.bytes().all(|b| b.is_ascii_digit() || b == b':') {
        return None;
    }
    let (hours, minutes) = match zone.len() {
        2 => (zone, "00"),
        4 => zone.split_at(2),
        5 if zone.as_bytes()[2] == b':' => (&zone[..2], &zone[3..]),
        _ => return None,
    };
    let hours = two_digits(hours).filter(|h| *h <= 23)?;
    let minutes = two_digits(minutes).filter(|m| *m <= 59)?;
    Some((clock, sign * i64::from(hours * 3600 + minutes * 60)))
}

/// `HH`, `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction`: the hour, and the minute and second
/// when written.
fn clock_parts(clock: &str) -> Option<(u32, Option<u32>, Option<u32>)> {
    let mut parts = clock.split(':');
    let hour = two_digits(parts.next()?).filter(|h| *h <= 23)?;
    let minute = match parts.next() {
        None => return Some((hour, None, None)),
        Some(minute) => two_digits(minute).filter(|m| *m <= 59)?,
    };
    let second = match parts.next() {
        None => return Some((hour, Some(minute), None)),
        Some(second) => {
            let (whole, fraction) = second.split_once(['.', ',']).unwrap_or((second, "0"));
            if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            two_digits(whole).filter(|s| *s <= 59)?
        }
    };
    parts
        .next()
        .is_none()
        .then_some((hour, Some(minute), Some(second)))
}

fn two_digits(text: &str) -> Option<u32> {
    (text.len() == 2 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(text: &str) -> String {
        ReplayDate::parse(text).unwrap().timestamp()
    }

    #[test]
    fn now_is_the_present_second_for_either_bound() {
        for parse in [ReplayDate::parse, ReplayDate::parse_start] {
            let before = Utc::now().timestamp();
            let date = parse(" NOW ").unwrap();
            let after = Utc::now().timestamp();
            assert!((before..=after).contains(&date.at.timestamp()), "{date:?}");
            assert_eq!(date.at.timestamp_subsec_nanos(), 0);
            assert_eq!(date.text, " NOW ");
        }
        assert!(ReplayDate::parse("nowish").is_err());
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
        assert_eq!(stamp("2024-03-15T12:00:00,5Z"), "20240315120000");
        assert_eq!(stamp("2024-03-15 12:00:00"), "20240315120000");
        assert_eq!(stamp("2024-03-15"), "20240315235959");
        assert_eq!(stamp("2024-03-15T12:00:00-0500"), "20240315170000");
        assert_eq!(stamp("2024-03-15T12:00:00-05"), "20240315170000");
    }

    #[test]
    fn an_iso_date_time_without_seconds_is_its_whole_minute_or_hour() {
        assert_eq!(stamp("2024-03-15T12:00"), "20240315120059");
        assert_eq!(stamp("2024-03-15T12:00"), stamp("202403151200"));
        assert_eq!(stamp("2024-03-15T12"), "20240315125959");
        assert_eq!(stamp("2024-03-15T12"), stamp("2024031512"));
        assert_eq!(stamp("2024-03-15T12:00Z"), "20240315120059");
        assert_eq!(stamp("2024-03-15T12:00+02:00"), "20240315100059");
        assert_eq!(stamp("2024-03-15 12:30"), "20240315123059");
        let start = |text: &str| ReplayDate::parse_start(text).unwrap().timestamp();
        assert_eq!(start("2024-03-15T12"), "20240315120000");
        assert_eq!(start("2024-03-15T12:30+01:00"), "20240315113000");
        assert_eq!(start("2024-03-15T00:00+02:00"), "20240314220000");
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
            "2024-03-15T",
            "2024-03-15T1",
            "2024-03-15T12:5",
            "2024-03-15T12:00:00:00",
            "2024-03-15T12:00:00.",
            "2024-03-15T12:00+2",
            "2024-03-15T12:00+02:60",
            "2024-03-15x12:00",
            "2024-3-15",
            "+2024-03-15",
            "2024-03-15T12+1\u{e9}1",
            "2024-03-15T12+0\u{a0}1",
            "2024-03-15T1\u{e9}",
            "2024-03-1\u{e9}",
        ] {
            let err = ReplayDate::parse(bad).unwrap_err();
            assert!(err.contains("is not a date"), "{bad}: {err}");
        }
    }
}
