//! The `WARC-Type` of a record as an enum, unknown types kept by name.

use std::fmt;
use std::str::FromStr;

/// The type of a WARC record (`WARC-Type`), as defined by WARC 1.1 section 6.
///
/// Types the standard does not define are kept by name in [`RecordType::Unknown`], so a
/// record of a newer or private type reads and writes back unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RecordType {
    /// Describes the records that follow it in the file.
    Warcinfo,
    /// A complete scheme-specific response (for HTTP, the full HTTP response).
    Response,
    /// A resource without its protocol envelope.
    Resource,
    /// A complete scheme-specific request.
    Request,
    /// Content describing another record.
    Metadata,
    /// A revisit of content already archived (often only the HTTP head is stored).
    Revisit,
    /// An alternative version of another record's content.
    Conversion,
    /// The continuation of a record segmented over several records.
    Continuation,
    /// Any other type, as written (an empty name when the record has no `WARC-Type`).
    Unknown(String),
}

impl RecordType {
    /// The eight types WARC 1.1 defines.
    pub const STANDARD: [RecordType; 8] = [
        Self::Warcinfo,
        Self::Response,
        Self::Resource,
        Self::Request,
        Self::Metadata,
        Self::Revisit,
        Self::Conversion,
        Self::Continuation,
    ];

    /// The type named by a `WARC-Type` value; names compare case-insensitively.
    pub fn parse(name: &str) -> Self {
        Self::STANDARD
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(name.trim()))
            .unwrap_or_else(|| Self::Unknown(name.to_string()))
    }

    /// Whether `name` is spelled exactly as one of the types WARC 1.1 defines.
    pub fn is_standard_name(name: &str) -> bool {
        Self::STANDARD.iter().any(|t| t.as_str() == name)
    }

    /// The name as WARC 1.1 spells it (an unknown type as it was written).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Warcinfo => "warcinfo",
            Self::Response => "response",
            Self::Resource => "resource",
            Self::Request => "request",
            Self::Metadata => "metadata",
            Self::Revisit => "revisit",
            Self::Conversion => "conversion",
            Self::Continuation => "continuation",
            Self::Unknown(name) => name,
        }
    }

    /// Whether records of this type carry an HTTP message head in their block (for HTTP
    /// target URIs): requests, responses and revisits.
    pub fn may_hold_http(&self) -> bool {
        matches!(self, Self::Request | Self::Response | Self::Revisit)
    }
}

impl FromStr for RecordType {
    type Err = std::convert::Infallible;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Ok(Self::parse(name))
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for RecordType {
    fn from(name: &str) -> Self {
        Self::parse(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_round_trip_and_unknown_names_are_kept() {
        for name in [
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "revisit",
            "conversion",
            "continuation",
        ] {
            let parsed = RecordType::parse(name);
            assert!(!matches!(parsed, RecordType::Unknown(_)), "{name}");
            assert_eq!(parsed.to_string(), name);
        }
        assert_eq!(RecordType::parse("Response"), RecordType::Response);
        assert_eq!(
            RecordType::parse("x-private"),
            RecordType::Unknown("x-private".into())
        );
        assert_eq!(RecordType::parse("x-private").as_str(), "x-private");
        assert!(RecordType::Revisit.may_hold_http());
        assert!(!RecordType::Resource.may_hold_http());
    }
}
