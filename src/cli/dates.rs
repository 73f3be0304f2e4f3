//! The one date syntax of the command line, read here for every dated command: `URL@DATE`,
//! `@DATE`, `--at DATE`, `--from`/`--to` and `--closest` all take the same forms (a 1-14
//! digit Wayback timestamp, ISO 8601, or `now`; a leading `@` is allowed wherever a date
//! stands alone). A date that cannot be read is an error naming the argument it came from,
//! never taken for part of a URL or for a query that finds nothing.

use ldwarc_archive::index::query_check::is_time_bound;
use ldwarc_timetravel::replay::ReplayDate;

/// The present second: what a command without a date answers for.
pub fn now() -> ReplayDate {
    ReplayDate::from_instant(chrono::Utc::now())
}

/// A date as the archive stood by then (a partial date means the end of its period);
/// `argument` names where it was given (`--at`, `@DATE`, …) in the error.
pub fn at(argument: &str, text: &str) -> Result<ReplayDate, String> {
    ReplayDate::parse(bare(text)).map_err(|error| format!("{argument}: {error}"))
}

/// A lower bound (`--from`): a partial date means the start of its period.
pub fn from(argument: &str, text: &str) -> Result<ReplayDate, String> {
    ReplayDate::parse_start(bare(text)).map_err(|error| format!("{argument}: {error}"))
}

/// The date without the `@` that may mark it.
fn bare(text: &str) -> &str {
    text.strip_prefix('@').unwrap_or(text)
}

/// Splits `URL@DATE` at its last `@` (dates never hold one; URLs may). The `@` belongs to the
/// URL, and there is no date, when it starts a path segment (`https://social.example/@alice`)
/// or marks user information (`http://user@host/`), or when what follows it is path text
/// (`/a@b/c`) rather than something meant as a date; anything else after the last `@` must
/// be a date, and one that cannot be read is an error naming `argument`.
pub fn split_url(argument: &str, target: &str) -> Result<(String, Option<ReplayDate>), String> {
    let Some((url, date)) = target.rsplit_once('@') else {
        return Ok((target.to_string(), None));
    };
    if let Ok(parsed) = ReplayDate::parse(date) {
        return Ok((url.to_string(), Some(parsed)));
    }
    let in_authority = url
        .split_once("://")
        .is_some_and(|(_, rest)| !rest.contains('/'));
    let meant_as_date = date.is_empty() || date.starts_with(|c: char| c.is_ascii_digit());
    if url.ends_with('/') || in_authority || (date.contains('/') && !meant_as_date) {
        return Ok((target.to_string(), None));
    }
    at(argument, date).map(|parsed| (url.to_string(), Some(parsed)))
}

/// Which end of a CDX time range a `--from`/`--to` value is.
#[derive(Clone, Copy)]
pub enum Bound {
    /// The first second of its period counts.
    From,
    /// The last second of its period counts.
    To,
}

/// A `--from`/`--to` bound as CDX queries compare it: digits as given (up to 14, and a
/// fraction of a second, as the CDX server takes them), or any other date form as the Wayback
/// timestamp of the first (`From`) or last (`To`) second of its period.
pub fn cdx_bound(flag: &str, value: &str, bound: Bound) -> Result<String, String> {
    let text = bare(value);
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) && is_time_bound(text) {
        return Ok(text.to_string());
    }
    match bound {
        Bound::From => from(flag, text),
        Bound::To => at(flag, text),
    }
    .map(|date| date.timestamp())
}

/// A `--closest` date as CDX queries take it: Wayback digits as given (a partial timestamp
/// means the end of its period there too), any other form as its 14-digit timestamp.
pub fn closest(flag: &str, value: &str) -> Result<String, String> {
    let text = bare(value);
    if !text.is_empty() && text.len() <= 14 && text.bytes().all(|b| b.is_ascii_digit()) {
        // Checked as a date (a 1-3 digit "year" is not one), kept as written.
        at(flag, text)?;
        return Ok(text.to_string());
    }
    at(flag, text).map(|date| date.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_the_same_instant() {
        let expected = "20240315235959";
        for text in ["20240315", "@20240315", "2024-03-15", "@2024-03-15"] {
            assert_eq!(at("--at", text).unwrap().timestamp(), expected, "{text}");
        }
        assert_eq!(
            from("--from", "2024-03").unwrap().timestamp(),
            "20240301000000"
        );
        assert!(at("--at", "now").is_ok());
        assert!(at("--at", "@now").is_ok());
    }

    #[test]
    fn unreadable_dates_name_their_argument() {
        let error = at("--at", "15/03/2024").unwrap_err();
        assert!(
            error.starts_with("--at: \"15/03/2024\" is not a date"),
            "{error}"
        );
        let error = split_url("URL@DATE", "http://a.example/x@15/03/2024").unwrap_err();
        assert!(
            error.starts_with("URL@DATE: \"15/03/2024\" is not a date"),
            "{error}"
        );
        assert!(split_url("URL@DATE", "http://a.example/x@garbage").is_err());
        assert!(split_url("URL@DATE", "http://a.example/x@").is_err());
        assert!(cdx_bound("--from", "15/03/2024", Bound::From).is_err());
        assert!(closest("--closest", "15/03/2024").is_err());
        assert!(closest("--closest", "123").is_err());
    }

    #[test]
    fn urls_keep_their_own_at_signs() {
        let plain = |target: &str| split_url("URL@DATE", target).unwrap();
        assert_eq!(
            plain("https://social.example/@alice"),
            (String::from("https://social.example/@alice"), None)
        );
        assert_eq!(
            plain("http://user@host.example"),
            (String::from("http://user@host.example"), None)
        );
        assert_eq!(
            plain("http://a.example/x@b/c"),
            (String::from("http://a.example/x@b/c"), None)
        );
        let (url, date) = plain("https://social.example/@alice@2024");
        assert_eq!(url, "https://social.example/@alice");
        assert_eq!(date.unwrap().timestamp(), "20241231235959");
        let (url, date) = plain("http://a.example/x@now");
        assert_eq!(url, "http://a.example/x");
        assert!(date.is_some());
    }

    #[test]
    fn cdx_bounds_keep_digits_and_convert_other_forms() {
        assert_eq!(cdx_bound("--from", "2024", Bound::From).unwrap(), "2024");
        assert_eq!(
            cdx_bound("--from", "2024-03", Bound::From).unwrap(),
            "20240301000000"
        );
        assert_eq!(
            cdx_bound("--to", "@2024-03", Bound::To).unwrap(),
            "20240331235959"
        );
        assert_eq!(closest("--closest", "@2024").unwrap(), "2024");
        assert_eq!(
            closest("--closest", "2024-03-15T12:00:00+02:00").unwrap(),
            "20240315100000"
        );
        assert_eq!(closest("--closest", "now").unwrap().len(), 14);
    }
}
