//! WARC dates and Wayback timestamps, always in UTC.

use chrono::{
    DateTime, Datelike, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Timelike, Utc,
};

/// Parses a `WARC-Date`: ISO 8601 in UTC with optional fractional seconds (WARC 1.1),
/// whole seconds (WARC 1.0), a zone offset (converted to UTC), or a 14-digit timestamp
/// (old writers).
pub fn parse_warc_date(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(date) = DateTime::parse_from_rfc3339(text) {
        return Some(date.with_timezone(&Utc));
    }
    if let Some(naive) = text.strip_suffix('Z') {
        for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d"] {
            if let Ok(date) = NaiveDateTime::parse_from_str(naive, format) {
                return Some(Utc.from_utc_datetime(&date));
            }
        }
    }
    parse_wayback_timestamp(text)
}

/// Whether a `WARC-Date` follows the grammar of its WARC version: exactly
/// `YYYY-MM-DDThh:mm:ssZ` for 1.0 and earlier; for 1.1 any W3C-DTF granularity in UTC
/// (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `…Thh:mmZ`, `…Thh:mm:ssZ`, `…Thh:mm:ss.fZ` with 1–9
/// fraction digits).
pub fn is_valid_warc_date(text: &str, version: &str) -> bool {
    let shape: String = text
        .chars()
        .map(|c| if c.is_ascii_digit() { 'd' } else { c })
        .collect();
    let seconds = "dddd-dd-ddTdd:dd:ddZ";
    let shape_ok = if version == "1.1" {
        let fraction = shape
            .strip_prefix("dddd-dd-ddTdd:dd:dd.")
            .and_then(|rest| rest.strip_suffix('Z'))
            .is_some_and(|digits| {
                (1..=9).contains(&digits.len()) && digits.chars().all(|c| c == 'd')
            });
        fraction
            || [
                "dddd",
                "dddd-dd",
                "dddd-dd-dd",
                "dddd-dd-ddTdd:ddZ",
                seconds,
            ]
            .contains(&shape.as_str())
    } else {
        shape == seconds
    };
    shape_ok && parse_w3c_date(text).is_some()
}

fn parse_w3c_date(text: &str) -> Option<DateTime<Utc>> {
    match text.len() {
        4 => parse_wayback_timestamp(text),
        7 => parse_wayback_timestamp(&text.replace('-', "")),
        10 => parse_wayback_timestamp(&text.replace('-', "")),
        _ => parse_warc_date(text),
    }
}

/// Formats a time as a WARC 1.1 date with microseconds: `2026-11-21T08:00:00.123456Z`.
pub fn format_warc_date(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The 14-digit Wayback timestamp `YYYYMMDDhhmmss` of a time.
pub fn wayback_timestamp(time: DateTime<Utc>) -> String {
    // Years of other than four digits, and leap seconds, as chrono writes them.
    if !(0..=9999).contains(&time.year()) || time.nanosecond() >= 1_000_000_000 {
        return time.format("%Y%m%d%H%M%S").to_string();
    }
    // Digit by digit: replay formats one per document it reads, and `format` interprets
    // the pattern every time.
    let mut text = String::with_capacity(14);
    let parts = [
        (time.year() as u32, 4),
        (time.month(), 2),
        (time.day(), 2),
        (time.hour(), 2),
        (time.minute(), 2),
        (time.second(), 2),
    ];
    for (value, width) in parts {
        for place in (0..width).rev() {
            let digit = value / 10u32.pow(place) % 10;
            text.push(char::from(b'0' + digit as u8));
        }
    }
    text
}

/// Parses a Wayback timestamp of 4 to 14 digits; missing parts are the start of the period.
pub fn parse_wayback_timestamp(text: &str) -> Option<DateTime<Utc>> {
    if text.len() < 4 || text.len() > 14 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut padded = text.to_string();
    let filler = "00000101000000";
    padded.push_str(&filler[text.len()..]);
    let number = |range: std::ops::Range<usize>| padded[range].parse::<u32>().ok();
    let date = NaiveDate::from_ymd_opt(number(0..4)? as i32, number(4..6)?, number(6..8)?)?;
    let time = date.and_hms_opt(number(8..10)?, number(10..12)?, number(12..14)?)?;
    Some(Utc.from_utc_datetime(&time))
}

/// Converts an ARC-style timestamp (up to 14 digits, sometimes more) to a WARC 1.0 date.
pub fn wayback_to_iso(text: &str) -> Option<String> {
    let digits = if text.len() > 14 { &text[..14] } else { text };
    parse_wayback_timestamp(digits).map(|time| time.to_rfc3339_opts(SecondsFormat::Secs, true))
}

#[cfg(test)]
mod tests {

    #[test]
    fn wayback_timestamps_are_written_as_chrono_formats_them() {
        let mut instants: Vec<DateTime<Utc>> = (0..5_000i64)
            .map(|n| {
                Utc.timestamp_opt(n * 7_919_993 - 40_000_000_000, 0)
                    .single()
                    .expect("in range")
            })
            .collect();
        instants.push(Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap());
        instants.push(Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap());
        instants.push(Utc.with_ymd_and_hms(-1, 1, 1, 0, 0, 0).unwrap());
        instants.push(Utc.with_ymd_and_hms(0, 1, 1, 0, 0, 0).unwrap());
        let leap = NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|day| day.and_hms_milli_opt(23, 59, 59, 1_000))
            .expect("a leap second");
        instants.push(Utc.from_utc_datetime(&leap));
        for at in instants {
            assert_eq!(
                wayback_timestamp(at),
                at.format("%Y%m%d%H%M%S").to_string(),
                "{at:?}"
            );
        }
    }

    use super::*;

    #[test]
    fn parses_all_date_spellings_to_utc() {
        let whole = parse_warc_date("2014-01-27T17:12:42Z").expect("1.0 date");
        assert_eq!(wayback_timestamp(whole), "20140127171242");
        let fractional = parse_warc_date("2014-01-27T17:12:42.123456Z").expect("1.1 date");
        assert_eq!(format_warc_date(fractional), "2014-01-27T17:12:42.123456Z");
        let zoned = parse_warc_date("2014-01-27T18:12:42+01:00").expect("zoned");
        assert_eq!(zoned, whole);
        assert_eq!(parse_warc_date("20140127171242"), Some(whole));
        assert!(parse_warc_date("yesterday").is_none());
    }

    #[test]
    fn grammar_per_version() {
        assert!(is_valid_warc_date("2014-01-27T17:12:42Z", "1.0"));
        assert!(!is_valid_warc_date("2014-01-27T17:12:42.5Z", "1.0"));
        assert!(is_valid_warc_date("2014-01-27T17:12:42.5Z", "1.1"));
        assert!(is_valid_warc_date("2014-01-27T17:12:42.123456789Z", "1.1"));
        assert!(!is_valid_warc_date(
            "2014-01-27T17:12:42.1234567890Z",
            "1.1"
        ));
        assert!(is_valid_warc_date("2014-01", "1.1"));
        assert!(is_valid_warc_date("2014-01-27T17:12Z", "1.1"));
        assert!(!is_valid_warc_date("2014-01-27T17:12:42+00:00", "1.1"));
        assert!(!is_valid_warc_date("2014-13-27T17:12:42Z", "1.1"));
        assert!(!is_valid_warc_date("2014-01-27 17:12:42Z", "1.1"));
    }

    #[test]
    fn wayback_padding_starts_of_period() {
        assert_eq!(
            wayback_to_iso("2014").as_deref(),
            Some("2014-01-01T00:00:00Z")
        );
        assert_eq!(
            wayback_to_iso("19961104142103").as_deref(),
            Some("1996-11-04T14:21:03Z")
        );
        assert!(parse_wayback_timestamp("20141399").is_none());
    }
}
