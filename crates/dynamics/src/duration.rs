//! Durations written the way people plan crawls: `1d`, `7d`, `12h`, `8.58d`, `1d12h`, `2w`,
//! `250ms`.
//!
//! Units: `ms` milliseconds, `s` seconds, `m` minutes, `h` hours, `d` days, `w` weeks. A duration is one or more
//! `<number><unit>` terms, added up (`1d12h` = 36 hours); numbers are plain decimals (no sign,
//! no exponent). [`parse_duration`] also accepts a bare number, read in a default unit the
//! caller names (the planning commands use days, the unit of the papers). Values are in
//! seconds, as `f64`.

use super::DynamicsError;

/// Seconds in a minute, hour, day, week.
pub const MINUTE: f64 = 60.0;
/// Seconds in an hour.
pub const HOUR: f64 = 3_600.0;
/// Seconds in a day.
pub const DAY: f64 = 86_400.0;
/// Seconds in a week.
pub const WEEK: f64 = 7.0 * DAY;

fn unit_seconds(unit: char) -> Option<f64> {
    match unit {
        's' => Some(1.0),
        'm' => Some(MINUTE),
        'h' => Some(HOUR),
        'd' => Some(DAY),
        'w' => Some(WEEK),
        _ => None,
    }
}

/// Parses a duration into seconds. `bare_unit` is the unit of a number written without one
/// (`Some(DAY)` reads `8.5` as 8.5 days); `None` makes a unit mandatory.
pub fn parse_duration(text: &str, bare_unit: Option<f64>) -> Result<f64, DynamicsError> {
    let invalid = |why: &str| DynamicsError::Duration {
        text: text.to_string(),
        why: why.to_string(),
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(invalid("empty"));
    }
    let mut total = 0.0;
    let mut rest = trimmed;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(number_len);
        if number.is_empty() || number == "." {
            return Err(invalid("expected a number like 1, 12 or 8.5"));
        }
        let value: f64 = number
            .parse()
            .map_err(|_| invalid("expected a number like 1, 12 or 8.5"))?;
        let mut chars = after.chars();
        match chars.next() {
            None => {
                let unit = match bare_unit {
                    Some(unit) if rest.len() == trimmed.len() => unit,
                    _ => return Err(invalid("missing unit (ms, s, m, h, d or w)")),
                };
                total += value * unit;
                rest = "";
            }
            Some('m') if after.starts_with("ms") => {
                total += value / 1_000.0;
                rest = &after[2..];
            }
            Some(c) => {
                let unit = unit_seconds(c).ok_or_else(|| {
                    invalid(&format!("unknown unit '{c}' (use ms, s, m, h, d or w)"))
                })?;
                total += value * unit;
                rest = chars.as_str();
            }
        }
    }
    if !total.is_finite() {
        return Err(invalid("too large"));
    }
    Ok(total)
}

/// The longest duration a flag or setting accepts: beyond it, timers and dates overflow.
pub const MAX_FLAG_SECONDS: f64 = 100.0 * 365.25 * DAY;

/// A duration as the command line writes it: with units (`250ms`, `36h`), or a bare number
/// read in `bare_unit` (the option's historical unit). Returns the seconds and whether the
/// number was bare, so that the caller can note that spelling as deprecated. At most
/// [`MAX_FLAG_SECONDS`].
pub fn parse_flag_duration(text: &str, bare_unit: f64) -> Result<(f64, bool), DynamicsError> {
    let (seconds, bare) = match parse_duration(text, None) {
        Ok(seconds) => (seconds, false),
        Err(with_unit) => {
            let bare: f64 = text.trim().parse().map_err(|_| with_unit)?;
            if !(bare.is_finite() && bare >= 0.0) {
                return Err(DynamicsError::NotADuration {
                    text: text.to_string(),
                });
            }
            (bare * bare_unit, true)
        }
    };
    if seconds > MAX_FLAG_SECONDS {
        return Err(DynamicsError::DurationTooLong {
            text: text.to_string(),
        });
    }
    Ok((seconds, bare))
}

/// Formats seconds in the largest unit among days, hours, minutes and seconds that the value
/// reaches, with at most two decimals and no trailing zeros: `8.58d`, `7d`, `12h`, `1.5h`,
/// `30m`, `0.25s`. Infinite values print as `inf`.
pub fn format_duration(seconds: f64) -> String {
    if seconds.is_nan() {
        return "NaN".to_string();
    }
    if seconds.is_infinite() {
        return if seconds > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let magnitude = seconds.abs();
    let (unit, name) = if magnitude >= DAY {
        (DAY, 'd')
    } else if magnitude >= HOUR {
        (HOUR, 'h')
    } else if magnitude >= MINUTE {
        (MINUTE, 'm')
    } else {
        (1.0, 's')
    };
    format!("{}{name}", format_number(seconds / unit, 2))
}

/// A number with at most `decimals` decimals, trailing zeros (and a trailing dot) removed.
pub fn format_number(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    if text == "-0" { "0".to_string() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_durations_say_whether_the_number_was_bare() {
        assert_eq!(parse_flag_duration("250ms", 1.0), Ok((0.25, false)));
        assert_eq!(parse_flag_duration("7", DAY), Ok((7.0 * DAY, true)));
        let negative = parse_flag_duration("-1", 1.0).unwrap_err();
        assert_eq!(
            negative,
            DynamicsError::NotADuration {
                text: "-1".to_string()
            }
        );
        assert_eq!(
            negative.to_string(),
            "'-1' is not a duration like 250ms, 2s, 36h or 2w"
        );
        let huge = parse_flag_duration("1e30", 1.0).unwrap_err();
        assert_eq!(huge.to_string(), "'1e30' is longer than 100 years");
        assert_eq!(
            parse_flag_duration("5 parsecs", 1.0)
                .unwrap_err()
                .to_string(),
            "invalid duration '5 parsecs': unknown unit ' ' (use ms, s, m, h, d or w)"
        );
    }

    #[test]
    fn parses_units_and_sums() {
        assert_eq!(parse_duration("1d", None).ok(), Some(DAY));
        assert_eq!(parse_duration("7d", None).ok(), Some(7.0 * DAY));
        assert_eq!(parse_duration("12h", None).ok(), Some(12.0 * HOUR));
        assert_eq!(parse_duration("30m", None).ok(), Some(1_800.0));
        assert_eq!(parse_duration("45s", None).ok(), Some(45.0));
        assert_eq!(parse_duration("2w", None).ok(), Some(14.0 * DAY));
        assert_eq!(parse_duration("250ms", None).ok(), Some(0.25));
        assert_eq!(parse_duration("1m30s", None).ok(), Some(90.0));
        assert_eq!(parse_duration("1s500ms", None).ok(), Some(1.5));
        assert_eq!(parse_duration("1d12h", None).ok(), Some(36.0 * HOUR));
        assert_eq!(parse_duration(" 0.5d ", None).ok(), Some(0.5 * DAY));
        let t = parse_duration("8.58d", None).expect("valid");
        assert!((t - 8.58 * DAY).abs() < 1e-6);
        assert_eq!(parse_duration("152.2", Some(DAY)).ok(), Some(152.2 * DAY));
    }

    #[test]
    fn rejects_malformed_durations() {
        for bad in [
            "", "d", "1x", "-1d", "1e3d", "1.2.3d", "1d 2h", ".d", "1", "1d2", "abc",
        ] {
            assert!(parse_duration(bad, None).is_err(), "{bad:?} accepted");
        }
        // A bare number is only read in the default unit when it is the whole text.
        assert!(parse_duration("1d2", Some(DAY)).is_err());
        let message = parse_duration("3y", None)
            .expect_err("bad unit")
            .to_string();
        assert!(
            message.contains("3y") && message.contains("unit"),
            "{message}"
        );
    }

    #[test]
    fn formats_in_the_largest_unit() {
        assert_eq!(format_duration(DAY), "1d");
        assert_eq!(format_duration(7.0 * DAY), "7d");
        assert_eq!(format_duration(8.581_09 * DAY), "8.58d");
        assert_eq!(format_duration(18.488_14 * DAY), "18.49d");
        assert_eq!(format_duration(12.0 * HOUR), "12h");
        assert_eq!(format_duration(1.5 * HOUR), "1.5h");
        assert_eq!(format_duration(90.0), "1.5m");
        assert_eq!(format_duration(0.25), "0.25s");
        assert_eq!(format_duration(0.0), "0s");
        assert_eq!(format_duration(f64::INFINITY), "inf");
        for text in ["1d", "7d", "12h", "8.58d", "30m", "45s"] {
            let seconds = parse_duration(text, None).expect("valid");
            assert_eq!(format_duration(seconds), text);
        }
    }
}
