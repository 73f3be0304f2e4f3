//! Skolem IRIs for the blank nodes of the triple index, so that clients joining triple
//! patterns one fragment at a time (Triple Pattern Fragments) can ask the next pattern about
//! a blank node (RDF 1.1 § 3.5 skolemisation, as the Linked Data Fragments server does).
//!
//! A blank node belongs to one capture of one document: the index keeps it scoped to its
//! document, and a dated dataset holds, per document, the capture in force at that date. Its
//! skolem IRI names that capture and the node's label in it:
//!
//! `{prefix}{capture time, 20 digits: YYYYMMDDhhmmss + microseconds}/{document URL}/{label}`
//!
//! with the URL and the label percent-encoded (all but the unreserved characters), where
//! `prefix` is the server's `{base}/.well-known/genid/`. The IRI depends only on the archive's
//! captures (not on the index's internal numbering), so it is the same for every request,
//! after a server restart and after the index is rebuilt. Given back in a pattern, it stands
//! for that blank node while its capture is the one in force at the date asked for; at any
//! other date, or once the capture is gone, it names nothing and the pattern matches nothing.

use chrono::{DateTime, Utc};

use super::pattern::{PatternTerm, TriplePattern};
use super::store::TripleIndex;

/// The path under which a server's skolem IRIs lie (RFC 8615 well-known URI `genid`, as
/// RDF 1.1 recommends for skolem IRIs).
pub const GENID_PATH: &str = "/.well-known/genid/";

/// The 20-digit capture key of a capture time: the 14-digit timestamp and the microseconds.
fn capture_key(time_micros: i64) -> Option<String> {
    let at = DateTime::<Utc>::from_timestamp_micros(time_micros)?;
    Some(at.format("%Y%m%d%H%M%S%6f").to_string())
}

/// The capture time of a 20-digit capture key.
fn capture_time(key: &str) -> Option<i64> {
    if key.len() != 20 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let at = chrono::NaiveDateTime::parse_from_str(key, "%Y%m%d%H%M%S%6f").ok()?;
    let micros = at.and_utc().timestamp_micros();
    (capture_key(micros).as_deref() == Some(key)).then_some(micros)
}

/// Percent-encodes all but the unreserved characters, so a URL or label is one path segment.
fn encode(text: &str) -> String {
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

/// The text of a segment written by [`encode`]; `None` when it is not one.
fn decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = segment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// What a bound pattern term stands for in the index at a date.
enum Resolved {
    /// The term as it is (not one of this server's skolem IRIs).
    Unchanged,
    /// The blank node (its index spelling) the skolem IRI names.
    Blank(String),
    /// A skolem IRI naming no blank node at this date: the pattern matches nothing.
    Nothing,
}

impl TripleIndex {
    /// The document number of a URL (a linear search: a pattern names at most two).
    fn document_number(&self, url: &str) -> Option<u32> {
        self.docs
            .iter()
            .position(|d| d.url == url)
            .map(|n| n as u32)
    }

    /// The skolem IRI (N-Triples spelling) of blank node `term` (`_:d<doc>_<label>`) of
    /// document `doc`, in the capture in force at `seconds`.
    fn skolem_iri(&self, prefix: &str, doc: u32, term: &str, seconds: i64) -> Option<String> {
        let document = &self.docs[doc as usize];
        let label = term.strip_prefix(&format!("_:d{doc}_"))?;
        let version = document.version_at(seconds)?;
        let key = capture_key(document.versions[version as usize].time_micros)?;
        Some(format!(
            "<{prefix}{key}/{}/{}>",
            encode(&document.url),
            encode(label)
        ))
    }

    /// What a bound term stands for at `seconds`: a skolem IRI under `prefix` is the blank
    /// node it names when its capture is the one in force then.
    fn resolve_skolem(&self, prefix: &str, term: &PatternTerm, seconds: i64) -> Resolved {
        let Some(rest) = term
            .bound()
            .and_then(|t| t.strip_prefix('<'))
            .and_then(|t| t.strip_suffix('>'))
            .and_then(|t| t.strip_prefix(prefix))
        else {
            return Resolved::Unchanged;
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let [key, url, label] = parts[..] else {
            return Resolved::Unchanged;
        };
        let (Some(time), Some(url), Some(label)) = (capture_time(key), decode(url), decode(label))
        else {
            return Resolved::Unchanged;
        };
        let Some(doc) = self.document_number(&url) else {
            return Resolved::Nothing;
        };
        let document = &self.docs[doc as usize];
        match document.version_at(seconds) {
            Some(v) if document.versions[v as usize].time_micros == time => {
                Resolved::Blank(format!("_:d{doc}_{label}"))
            }
            _ => Resolved::Nothing,
        }
    }

    /// Version materialisation with skolemised blank nodes: the statements matching
    /// `pattern` at `seconds` (Unix time, UTC), spelled in N-Triples, each blank node as its
    /// skolem IRI under `prefix` (`{base}/.well-known/genid/`); skolem IRIs under `prefix`
    /// in the pattern's subject or object stand for their blank nodes (a skolem IRI whose
    /// capture is not in force at `seconds` matches nothing).
    pub fn at_skolemised(
        &self,
        pattern: &TriplePattern,
        seconds: i64,
        prefix: &str,
    ) -> Vec<[String; 3]> {
        let mut resolved = pattern.clone();
        for term in [&mut resolved.subject, &mut resolved.object] {
            match self.resolve_skolem(prefix, term, seconds) {
                Resolved::Unchanged => {}
                Resolved::Blank(spelling) => *term = PatternTerm::Bound(spelling),
                Resolved::Nothing => return Vec::new(),
            }
        }
        let spell = |doc: u32, term: u32| -> String {
            let spelling = &self.terms[term as usize];
            if spelling.starts_with("_:") {
                self.skolem_iri(prefix, doc, spelling, seconds)
                    .unwrap_or_else(|| spelling.to_string())
            } else {
                spelling.to_string()
            }
        };
        self.matching(&resolved)
            .into_iter()
            .filter(|e| {
                self.docs[e.doc as usize]
                    .version_at(seconds)
                    .is_some_and(|version| e.holds_in(version))
            })
            .map(|e| {
                [
                    spell(e.doc, e.subject),
                    spell(e.doc, e.predicate),
                    spell(e.doc, e.object),
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keys_round_trip_to_the_microsecond() {
        let micros = 1_709_251_200_007_123;
        let key = capture_key(micros).unwrap();
        assert_eq!(key, "20240301000000007123");
        assert_eq!(capture_time(&key), Some(micros));
        assert_eq!(capture_time("2024030100000000712"), None);
        assert_eq!(capture_time("20241301000000007123"), None);
    }

    #[test]
    fn segments_round_trip_through_percent_encoding() {
        let url = "http://e.org/a b/c?d=é";
        let segment = encode(url);
        assert!(!segment.contains('/') && !segment.contains('?'));
        assert_eq!(decode(&segment).as_deref(), Some(url));
        assert_eq!(decode("%G1"), None);
        assert_eq!(decode("%4"), None);
    }
}
