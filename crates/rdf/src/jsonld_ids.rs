//! Node identifiers that have the form of a keyword (`"@id": "@ignoreMe"`). JSON-LD 1.1
//! (IRI expansion, step 2) expands such a value to null with a warning, so the node it names
//! is no IRI and no statement about it or pointing to it is produced. The JSON-LD processor
//! we drive mints a blank node for it instead; so before processing, such identifiers are
//! replaced by a stand-in IRI, and every statement mentioning the stand-in is dropped.

use serde_json::Value;
use sophia::api::quad::{Quad, Spog};
use sophia::api::term::Term;
use sophia::jsonld::RdfTerm;

/// Replaces keyword-like node identifiers; never a valid identifier of real data.
pub(crate) const IGNORED_ID: &str = "urn:x-ldwarc:keyword-like-id";

/// The JSON-LD 1.1 keywords: these are not "keyword-like", they are keywords.
const KEYWORDS: &[&str] = &[
    "@base",
    "@container",
    "@context",
    "@direction",
    "@graph",
    "@id",
    "@import",
    "@included",
    "@index",
    "@json",
    "@language",
    "@list",
    "@nest",
    "@none",
    "@prefix",
    "@propagate",
    "@protected",
    "@reverse",
    "@set",
    "@type",
    "@value",
    "@version",
    "@vocab",
];

/// Whether a string has the form of a keyword (`@` and letters) without being one.
fn keyword_like(text: &str) -> bool {
    text.len() > 1
        && text.starts_with('@')
        && text[1..].bytes().all(|byte| byte.is_ascii_alphabetic())
        && !KEYWORDS.contains(&text)
}

/// The document with its keyword-like `@id` values (outside contexts) replaced by
/// [`IGNORED_ID`], or `None` when it has none (the usual case, found without parsing).
pub(crate) fn without_keyword_like_ids(text: &str) -> Option<String> {
    if !mentions_keyword_like_string(text) {
        return None;
    }
    let mut document: Value = serde_json::from_str(text).ok()?;
    let mut replaced = false;
    let mut stack = vec![&mut document];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(members) => {
                for (key, member) in members.iter_mut() {
                    if key == "@context" {
                        continue;
                    }
                    if key == "@id" && member.as_str().is_some_and(keyword_like) {
                        *member = Value::String(IGNORED_ID.to_string());
                        replaced = true;
                    } else {
                        stack.push(member);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    replaced.then(|| document.to_string())
}

/// A quick scan for a JSON string `"@letters"` that is not a keyword.
fn mentions_keyword_like_string(text: &str) -> bool {
    text.match_indices("\"@").any(|(start, _)| {
        let rest = &text[start + 1..];
        rest[1..]
            .find('"')
            .is_some_and(|end| keyword_like(&rest[..=end]))
    })
}

/// Whether a statement names the stand-in of a keyword-like identifier.
pub(crate) fn mentions_ignored(quad: &Spog<RdfTerm>) -> bool {
    let ignored = |term: &RdfTerm| term.iri().is_some_and(|iri| iri.as_str() == IGNORED_ID);
    ignored(quad.s()) || ignored(quad.o()) || quad.g().is_some_and(ignored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_keyword_like_identifiers_outside_contexts_are_replaced() {
        let text = r#"{"@context": {"x": {"@id": "@ignoreMe"}}, "@id": "http://e/",
            "http://e/p": [{"@id": "@"}, {"@id": "@foo.bar"}, {"@id": "@ignoreMe"}]}"#;
        let rewritten: Value =
            serde_json::from_str(&without_keyword_like_ids(text).unwrap()).unwrap();
        assert_eq!(rewritten["@context"]["x"]["@id"], "@ignoreMe");
        let ids: Vec<&str> = rewritten["http://e/p"]
            .as_array()
            .unwrap()
            .iter()
            .map(|node| node["@id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["@", "@foo.bar", IGNORED_ID]);
        assert_eq!(
            without_keyword_like_ids(r#"{"@id": "http://e/", "@type": "@id"}"#),
            None
        );
    }
}
