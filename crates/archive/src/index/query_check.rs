//! Validation of CDX query parameters that the query itself would otherwise read
//! leniently: a `closest` timestamp and the names of the fields to show. A mistyped value
//! is an error naming it, not an answer in some other order or with fields missing.

use super::query::{CdxQuery, DEFAULT_FIELDS, canonical_field};

/// Whether captures have a field of this name (after resolving pywb's aliases): the fields
/// printed by default, and `redirect`.
fn is_known_field(name: &str) -> bool {
    name == "redirect" || DEFAULT_FIELDS.contains(&name)
}

/// Checks a `closest` value: `now`, or a timestamp of 1–14 digits.
pub fn check_closest(value: &str) -> Result<(), String> {
    if value == "now" || is_timestamp(value) {
        Ok(())
    } else {
        Err(format!(
            "closest {value:?}: expected a timestamp of 1 to 14 digits (or \"now\")"
        ))
    }
}

/// Checks the names of fields to show (pywb's aliases such as `original` or `mimetype`
/// included).
pub fn check_fields(fields: &[String]) -> Result<(), String> {
    match fields
        .iter()
        .find(|name| !is_known_field(canonical_field(name)))
    {
        None => Ok(()),
        Some(unknown) => Err(format!(
            "unknown field {unknown:?}: the fields are {},redirect",
            DEFAULT_FIELDS.join(",")
        )),
    }
}

/// Checks what [`CdxQuery`] would read leniently (its `closest`).
pub fn check_query(query: &CdxQuery) -> Result<(), String> {
    match &query.closest {
        Some(closest) => check_closest(closest),
        None => Ok(()),
    }
}

/// Longest `from`/`to` bound taken as digits: 14 and a fraction of a second to nanoseconds.
pub const MAX_TIME_BOUND_DIGITS: usize = 23;

/// Whether `value` is a `from`/`to` bound as CDX servers take it: up to
/// [`MAX_TIME_BOUND_DIGITS`] digits, compared with the captures' timestamps as text (padded
/// to 14 digits when shorter, so a longer one with a fraction of a second works too).
pub fn is_time_bound(value: &str) -> bool {
    value.len() <= MAX_TIME_BOUND_DIGITS && value.bytes().all(|b| b.is_ascii_digit())
}

fn is_timestamp(value: &str) -> bool {
    (1..=14).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_must_be_digits_or_now() {
        assert!(check_closest("2014").is_ok());
        assert!(check_closest("20140101123456").is_ok());
        assert!(check_closest("now").is_ok());
        for bad in ["garbage", "", "2014abc", "201401011234567", "-1"] {
            let error = check_closest(bad).unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn fields_must_exist_aliases_included() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_fields(&names(&["url", "original", "mimetype", "s", "redirect"])).is_ok());
        let error = check_fields(&names(&["url", "nosuch"])).unwrap_err();
        assert!(error.contains("\"nosuch\""), "{error}");
    }
}
