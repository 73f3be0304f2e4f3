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
        // `pad`, so widths and alignment in format strings apply as they do to strings.
        f.pad(self.as_str())
    }
}

impl From<&str> for RecordType {
    fn from(name: &str) -> Self {
        Self::parse(name)
    }
}

impl RecordType {
    /// The type named exactly `name`: a standard type only when spelled as WARC 1.1 spells
    /// it, anything else kept as written. Indexes store record types this way so that a
    /// name read back is written back byte for byte.
    pub fn from_exact(name: &str) -> Self {
        if Self::is_standard_name(name) {
            Self::parse(name)
        } else {
            Self::Unknown(name.to_string())
        }
    }
}

/// Serialised as its name (a plain string), as indexes and JSON outputs always wrote it.
impl serde::Serialize for RecordType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Read from its name with [`RecordType::from_exact`], so unknown spellings survive.
impl<'de> serde::Deserialize<'de> for RecordType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::from_exact(&name))
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
        assert_eq!(format!("[{:<8}]", RecordType::Revisit), "[revisit ]");
        assert_eq!(RecordType::from_exact("revisit"), RecordType::Revisit);
        assert_eq!(
            RecordType::from_exact("Revisit"),
            RecordType::Unknown("Revisit".into())
        );
        assert!(!RecordType::Resource.may_hold_http());
    }
}
