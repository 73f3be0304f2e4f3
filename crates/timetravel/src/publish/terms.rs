//! Vocabularies and N-Triples spellings shared by the description and the event stream.

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};

pub(crate) const RDF_TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
pub(crate) const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
pub(crate) const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
pub(crate) const DCAT: &str = "http://www.w3.org/ns/dcat#";
pub(crate) const DCT: &str = "http://purl.org/dc/terms/";
pub(crate) const VOID: &str = "http://rdfs.org/ns/void#";
pub(crate) const PROV: &str = "http://www.w3.org/ns/prov#";
pub(crate) const FOAF: &str = "http://xmlns.com/foaf/0.1/";
pub(crate) const LDES: &str = "https://w3id.org/ldes#";
pub(crate) const TREE: &str = "https://w3id.org/tree#";
pub(crate) const AS: &str = "https://www.w3.org/ns/activitystreams#";

/// `<namespace + local>`.
pub(crate) fn term(namespace: &str, local: &str) -> String {
    format!("<{namespace}{local}>")
}

/// `<iri>`, with the characters an IRI may not hold percent-encoded (archived URLs are taken
/// as their crawler wrote them, which need not be a valid IRI).
pub(crate) fn iri(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('<');
    for c in text.chars() {
        match c {
            '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\' | ' ' => {
                out.push_str(&format!("%{:02X}", c as u32));
            }
            c if c.is_control() => {
                let mut bytes = [0u8; 4];
                for byte in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('>');
    out
}

/// A plain string literal.
pub(crate) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An `xsd:integer` (VoID's counts are integers).
pub(crate) fn integer(value: u64) -> String {
    format!("\"{value}\"^^<{XSD}integer>")
}

/// An `xsd:dateTime` in UTC to the microsecond.
pub(crate) fn date_time(at: DateTime<Utc>) -> String {
    format!(
        "\"{}\"^^<{XSD}dateTime>",
        at.to_rfc3339_opts(SecondsFormat::Micros, true)
    )
}

/// An `xsd:date`.
pub(crate) fn date(at: DateTime<Utc>) -> String {
    format!("\"{}\"^^<{XSD}date>", at.format("%Y-%m-%d"))
}

/// The instant of a capture's `time_micros`.
pub(crate) fn instant(micros: i64) -> DateTime<Utc> {
    Utc.timestamp_micros(micros)
        .single()
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

/// A path segment: anything but unreserved characters percent-encoded.
pub(crate) fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iris_and_literals_are_escaped() {
        assert_eq!(iri("http://e.org/a b<c>"), "<http://e.org/a%20b%3Cc%3E>");
        assert_eq!(literal("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
        assert_eq!(segment("[::1]"), "%5B%3A%3A1%5D");
        assert_eq!(
            date_time(instant(1_709_251_200_000_001)),
            format!("\"2024-03-01T00:00:00.000001Z\"^^<{XSD}dateTime>")
        );
    }
}
