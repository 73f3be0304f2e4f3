//! ARC (v1 and v2) record headers, mapped onto WARC-style fields so that the rest of ldwarc
//! lists and indexes ARC captures like WARC ones.

use super::header::WarcHeader;
use super::time::wayback_to_iso;

/// Header field holding the ARC line's own content type (the WARC-style `Content-Type` says
/// how the block is framed, as for WARC records).
pub const ARC_CONTENT_TYPE: &str = "ARC-Content-Type";

/// Header field recording an ARC length that was not a number (read as 0).
pub const ARC_INVALID_LENGTH: &str = "ARC-Invalid-Length";

/// An ARC record header line that cannot be read. The reader adds the line's offset (see
/// [`crate::ReadError`]); the line itself is all this error knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArcHeaderError {
    /// Fewer than the five fields every ARC version has.
    #[error("ARC header line has {fields} fields, expected at least 5: {line:?}")]
    TooFewFields {
        /// How many space-separated fields the line has.
        fields: usize,
        /// The line's first 80 characters (for the message).
        line: String,
    },
    /// The date field is not a 14-digit (or shorter Wayback) timestamp.
    #[error("ARC header date is not a timestamp: {date:?}")]
    BadDate {
        /// The date field as written.
        date: String,
    },
}

/// Parses an ARC record header line (`URL IP DATE MIME [v2 fields…] LENGTH`).
///
/// The `filedesc://` record becomes a `warcinfo`; every other record a `response` whose
/// block is the HTTP response (for http/https URLs) or the raw resource.
pub fn parse_arc_header_line(line: &[u8]) -> Result<WarcHeader, ArcHeaderError> {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\r', '\n']);
    let parts: Vec<&str> = text.split(' ').filter(|p| !p.is_empty()).collect();
    if parts.len() < 5 {
        return Err(ArcHeaderError::TooFewFields {
            fields: parts.len(),
            line: text.chars().take(80).collect(),
        });
    }
    // Like warcio, an unreadable length counts as an empty record; the damage is noted.
    let length_text = parts[parts.len() - 1];
    let length = length_text.parse::<u64>().ok();
    let at = super::arc_url::date_position(&parts);
    let url = super::arc_url::url_of(&parts[..at - 1]);
    let (url, ip, date, mime) = (url.as_str(), parts[at - 1], parts[at], parts[at + 1]);
    let iso = wayback_to_iso(date).ok_or_else(|| ArcHeaderError::BadDate {
        date: date.to_string(),
    })?;
    let is_filedesc = url.starts_with("filedesc:");
    let is_http = url.starts_with("http:") || url.starts_with("https:");
    let mut header = WarcHeader::new("ARC");
    header.push(
        "WARC-Type",
        if is_filedesc { "warcinfo" } else { "response" },
    );
    header.push("WARC-Target-URI", url);
    header.push("WARC-Date", iso);
    header.push("WARC-IP-Address", ip);
    header.push(ARC_CONTENT_TYPE, mime);
    let content_type = if is_http && !is_filedesc {
        "application/http; msgtype=response".to_string()
    } else {
        mime.to_string()
    };
    header.push("Content-Type", content_type);
    header.push("Content-Length", length.unwrap_or(0).to_string());
    if length.is_none() {
        header.push(ARC_INVALID_LENGTH, length_text);
    }
    Ok(header)
}

/// Whether a line looks like an ARC record header: a URL with a scheme, an address, a date
/// of at least 12 digits, a type and a length.
pub fn looks_like_arc_header(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let parts: Vec<&str> = text.split_whitespace().collect();
    let at = super::arc_url::date_position(&parts);
    parts.len() >= 5
        && parts[0].contains(':')
        && parts[at].len() >= 12
        && parts[at].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_response_line() {
        let header = parse_arc_header_line(
            b"http://example.com/ 93.184.216.119 20140216050323 text/html 1591\n",
        )
        .expect("valid line");
        assert_eq!(header.record_type(), Some("response"));
        assert_eq!(header.date(), Some("2014-02-16T05:03:23Z"));
        assert_eq!(header.content_length(), Some(1591));
        assert_eq!(header.get(ARC_CONTENT_TYPE), Some("text/html"));
    }

    #[test]
    fn filedesc_is_warcinfo_and_bad_lines_are_errors() {
        let header =
            parse_arc_header_line(b"filedesc://x.arc 127.0.0.1 20140216050323 text/plain 75\n")
                .expect("valid line");
        assert_eq!(header.record_type(), Some("warcinfo"));
        assert_eq!(
            parse_arc_header_line(b"garbage\n")
                .expect_err("one field")
                .to_string(),
            "ARC header line has 1 fields, expected at least 5: \"garbage\""
        );
        let bad_length =
            parse_arc_header_line(b"http://a/ 1.2.3.4 2014 text/html -1\n").expect("lenient");
        assert_eq!(bad_length.content_length(), Some(0));
        assert_eq!(bad_length.get(ARC_INVALID_LENGTH), Some("-1"));
    }

    #[test]
    fn a_date_that_is_no_timestamp_is_named() {
        let error = parse_arc_header_line(b"http://a/ 1.2.3.4 2014x text/html 5\n")
            .expect_err("the date has a letter");
        assert_eq!(
            error,
            ArcHeaderError::BadDate {
                date: "2014x".to_string()
            }
        );
        assert_eq!(
            error.to_string(),
            "ARC header date is not a timestamp: \"2014x\""
        );
    }
}
