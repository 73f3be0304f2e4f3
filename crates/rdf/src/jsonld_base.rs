//! A context's `@base` that is no IRI reference (`"@base": "http://example.org/a b/"`). The
//! JSON-LD processor rejects the whole document for it; a Web archive would then lose every
//! statement of a page for one bad value. Such a `@base` is set to null instead (with a
//! warning): IRIs that needed it stay relative, and JSON-LD's RDF conversion drops the
//! statements that use them, while the rest of the document comes through.

use oxiri::Iri;
use serde_json::Value;

/// The document with every invalid `@base` of its contexts set to null, and those values;
/// `None` when it has none (the usual case, found without parsing when `@base` is absent).
pub(crate) fn without_invalid_bases(
    text: &str,
    document_base: &str,
) -> Option<(String, Vec<String>)> {
    if !text.contains("\"@base\"") {
        return None;
    }
    let base = Iri::parse(document_base.to_string()).ok()?;
    let mut document: Value = serde_json::from_str(text).ok()?;
    let mut ignored = Vec::new();
    let mut stack = vec![(&mut document, false)];
    while let Some((value, in_context)) = stack.pop() {
        match value {
            Value::Object(members) => {
                for (key, member) in members.iter_mut() {
                    if in_context && key == "@base" {
                        if let Value::String(text) = member
                            && base.resolve(text).is_err()
                        {
                            ignored.push(std::mem::take(text));
                            *member = Value::Null;
                        }
                        continue;
                    }
                    stack.push((member, key == "@context"));
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|item| (item, in_context))),
            _ => {}
        }
    }
    (!ignored.is_empty()).then(|| (document.to_string(), ignored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_invalid_context_bases_are_nulled() {
        let text = r#"{"@context": [{"@base": "http://example.org/a b/"}, {"@base": "sub/"}],
                       "@id": "x", "p": {"@context": {"@base": "ok:/y"}, "@base": "not context"}}"#;
        let (rewritten, ignored) = without_invalid_bases(text, "http://example.org/doc").unwrap();
        assert_eq!(ignored, ["http://example.org/a b/"]);
        let value: Value = serde_json::from_str(&rewritten).unwrap();
        assert_eq!(value["@context"][0]["@base"], Value::Null);
        assert_eq!(value["@context"][1]["@base"], "sub/");
        assert_eq!(value["p"]["@context"]["@base"], "ok:/y");
        assert_eq!(value["p"]["@base"], "not context");
        assert!(
            without_invalid_bases(r#"{"@context": {"@base": "sub/"}}"#, "http://e.org/").is_none()
        );
        assert!(without_invalid_bases(r#"{"@id": "x"}"#, "http://e.org/").is_none());
    }
}
