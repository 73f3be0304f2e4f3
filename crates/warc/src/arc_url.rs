//! ARC header lines whose URL holds spaces: crawlers wrote such URLs unescaped, and the
//! fields after the URL are still where they belong, so the URL is every field before the
//! IP address that precedes the date (as warcio reads these lines). The spaces are kept
//! percent-encoded, the only form a URL can have them in.

/// Where the date field is in an ARC header line's fields: 2 for a regular line; further
/// right when the URL was split by spaces (the first all-digit field of 12–14 digits that
/// follows an address and leaves a content type and a length after it).
pub(crate) fn date_position(parts: &[&str]) -> usize {
    (2..parts.len().saturating_sub(2))
        .find(|&at| is_arc_date(parts[at]) && is_address(parts[at - 1]))
        .unwrap_or(2)
}

/// The URL from the fields before the address, joined by `%20`.
pub(crate) fn url_of(fields: &[&str]) -> String {
    fields.join("%20")
}

fn is_arc_date(field: &str) -> bool {
    (12..=14).contains(&field.len()) && field.bytes().all(|b| b.is_ascii_digit())
}

/// An IP address, or the placeholders crawlers wrote when there was none.
fn is_address(field: &str) -> bool {
    field.parse::<std::net::IpAddr>().is_ok() || field == "-" || field == "0"
}

#[cfg(test)]
mod tests {
    use super::super::arc::parse_arc_header_line;

    #[test]
    fn a_url_with_spaces_keeps_the_other_fields_in_place() {
        let header = parse_arc_header_line(
            b"http://a.example/with space/x y 127.0.0.1 20240102030405 text/html 52\n",
        )
        .expect("the line reads");
        assert_eq!(
            header.target_uri(),
            Some("http://a.example/with%20space/x%20y")
        );
        assert_eq!(header.date(), Some("2024-01-02T03:04:05Z"));
        assert_eq!(header.get("WARC-IP-Address"), Some("127.0.0.1"));
        assert_eq!(header.content_length(), Some(52));

        let regular =
            parse_arc_header_line(b"http://a.example/ 127.0.0.1 20240102030405 text/html 5\n")
                .expect("the line reads");
        assert_eq!(regular.target_uri(), Some("http://a.example/"));
    }
}
