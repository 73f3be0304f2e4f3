//! A linear pre-scan of an XML document (RDF/XML, XHTML) that refuses the two shapes an XML
//! parser pays for far beyond the document's size:
//!
//! - internal entities that expand to much more than they take ("billion laughs": ten nested
//!   entity definitions of ten references each make 941 bytes expand to gigabytes). Real
//!   RDF/XML uses internal entities to abbreviate namespace IRIs (`<!ENTITY rdf "http://…#">`,
//!   `rdf:about="&rdf;type"`), which expands a document a few times at most, so the total
//!   expansion is bounded by [`max_entity_expansion`]: 1 MiB plus ten times the document;
//! - elements nested deeper than [`MAX_XML_DEPTH`]: the RDF/XML parser looks up the language
//!   and base of each element by walking every open element, so its cost grows with the
//!   square of the depth (100,000 levels took minutes).
//!
//! The scan reads each byte a bounded number of times and allocates only the entity table.

use std::collections::HashMap;

/// Elements nested deeper than this are refused. The depth libxml2 allows with its "huge"
/// option; the W3C RDF/XML tests and real documents stay far below it (nested `rdf:rest` lists
/// written out by hand are the deepest, two levels per item).
pub(crate) const MAX_XML_DEPTH: usize = 2048;

/// The most bytes internal entity references may add to a document of `len` bytes, counting
/// every entity definition (the parser expands each as it is declared) and every reference.
pub(crate) fn max_entity_expansion(len: usize) -> u64 {
    (1u64 << 20).saturating_add((len as u64).saturating_mul(10))
}

/// Checks `body` before an XML parser sees it; the error names the byte offset and the bound.
pub(crate) fn check(body: &[u8]) -> Result<(), String> {
    let limit = max_entity_expansion(body.len());
    let mut scan = Scan {
        body,
        entities: HashMap::new(),
        expanded: 0,
        limit,
    };
    scan.run()
}

struct Scan<'b> {
    body: &'b [u8],
    /// Internal entities by name, with the size of their expanded value.
    entities: HashMap<&'b [u8], u64>,
    /// Bytes expanded so far (definitions and references).
    expanded: u64,
    limit: u64,
}

impl<'b> Scan<'b> {
    fn run(&mut self) -> Result<(), String> {
        let body = self.body;
        let mut depth = 0usize;
        let mut at = 0;
        while let Some(found) = memchr::memchr2(b'<', b'&', &body[at..]) {
            let start = at + found;
            if body[start] == b'&' {
                at = self.reference(start)?;
                continue;
            }
            let rest = &body[start..];
            at = if rest.starts_with(b"<!--") {
                skip_past(body, start + 4, b"-->")
            } else if rest.starts_with(b"<![CDATA[") {
                skip_past(body, start + 9, b"]]>")
            } else if rest.starts_with(b"<?") {
                skip_past(body, start + 2, b"?>")
            } else if starts_with_ignore_case(rest, b"<!DOCTYPE") {
                self.doctype(start)?
            } else if rest.starts_with(b"</") {
                depth = depth.saturating_sub(1);
                tag_end(body, start + 2)
            } else {
                let end = tag_end(body, start + 1);
                // Attribute values expand entity references as text does.
                self.references_in(start + 1, end)?;
                let empty = end >= 2 && body[end - 2] == b'/' && end - 2 > start;
                if !empty && rest.len() > 1 && is_name_start(rest[1]) {
                    depth += 1;
                    if depth > MAX_XML_DEPTH {
                        return Err(format!(
                            "XML elements nested deeper than {MAX_XML_DEPTH} levels at byte \
                             {start}: refused"
                        ));
                    }
                }
                end
            };
        }
        Ok(())
    }

    /// A reference `&name;` at `start` (in text, in an attribute value, or in an entity
    /// value): counts its expansion. Returns where scanning goes on.
    fn reference(&mut self, start: usize) -> Result<usize, String> {
        let body = self.body;
        let name_end = body[start + 1..]
            .iter()
            .position(|&byte| !is_name_byte(byte))
            .map_or(body.len(), |offset| start + 1 + offset);
        if body.get(name_end) == Some(&b';')
            && let Some(&size) = self.entities.get(&body[start + 1..name_end])
        {
            self.add(size, start)?;
        }
        Ok(name_end.max(start + 1))
    }

    /// Counts every reference between `from` and `to` (a start tag's attribute values).
    fn references_in(&mut self, from: usize, to: usize) -> Result<(), String> {
        let mut at = from;
        while at < to {
            let Some(found) = memchr::memchr(b'&', &self.body[at..to]) else {
                break;
            };
            at = self.reference(at + found)?;
        }
        Ok(())
    }

    fn add(&mut self, size: u64, at: usize) -> Result<(), String> {
        self.expanded = self.expanded.saturating_add(size);
        if self.expanded > self.limit {
            return Err(format!(
                "XML entity references at byte {at} expand beyond {} bytes (1 MiB plus ten \
                 times the document): refused",
                self.limit
            ));
        }
        Ok(())
    }

    /// A `<!DOCTYPE …>` at `start`: records its internal entities (`<!ENTITY name "value">`,
    /// parameter entities alike, as the RDF/XML parser reads them) with their expanded sizes.
    /// Returns the offset after the declaration.
    fn doctype(&mut self, start: usize) -> Result<usize, String> {
        let body = self.body;
        let mut at = start + 9;
        // Up to the internal subset or the end of the declaration, skipping quoted IDs.
        loop {
            match body.get(at) {
                None => return Ok(body.len()),
                Some(b'>') => return Ok(at + 1),
                Some(b'[') => break,
                Some(&quote @ (b'"' | b'\'')) => at = skip_past(body, at + 1, &[quote]),
                Some(_) => at += 1,
            }
        }
        at += 1;
        loop {
            let Some(offset) = body[at..]
                .iter()
                .position(|&byte| matches!(byte, b'<' | b']' | b'"' | b'\''))
            else {
                return Ok(body.len());
            };
            at += offset;
            let rest = &body[at..];
            if rest[0] == b']' {
                return Ok(tag_end(body, at + 1));
            }
            if rest[0] != b'<' {
                at = skip_past(body, at + 1, &[rest[0]]);
            } else if rest.starts_with(b"<!--") {
                at = skip_past(body, at + 4, b"-->");
            } else if rest.starts_with(b"<!ENTITY") {
                at = self.entity(at + 8)?;
            } else {
                at = tag_end(body, at + 1);
            }
        }
    }

    /// The rest of an entity declaration after `<!ENTITY`; returns the offset after it.
    fn entity(&mut self, mut at: usize) -> Result<usize, String> {
        let body = self.body;
        at = skip_spaces(body, at);
        if body.get(at) == Some(&b'%') {
            at = skip_spaces(body, at + 1);
        }
        let name_start = at;
        while body.get(at).is_some_and(|&byte| is_name_byte(byte)) {
            at += 1;
        }
        let name = &body[name_start..at];
        at = skip_spaces(body, at);
        let Some(&quote @ (b'"' | b'\'')) = body.get(at) else {
            // An external entity (SYSTEM/PUBLIC): never fetched, so it expands to nothing.
            return Ok(tag_end(body, at));
        };
        let value_start = at + 1;
        let value_end = memchr::memchr(quote, &body[value_start..])
            .map_or(body.len(), |offset| value_start + offset);
        let value = &body[value_start..value_end];
        // The value's own length, plus what its references expand to, minus their spelling.
        let mut size = value.len() as u64;
        let mut from = 0;
        while let Some(offset) = memchr::memchr(b'&', &value[from..]) {
            let reference = from + offset;
            let name_end = value[reference + 1..]
                .iter()
                .position(|&byte| !is_name_byte(byte))
                .map_or(value.len(), |end| reference + 1 + end);
            if value.get(name_end) == Some(&b';')
                && let Some(&inner) = self.entities.get(&value[reference + 1..name_end])
            {
                size = size.saturating_add(inner);
            }
            from = name_end.max(reference + 1);
        }
        // The parser keeps the last definition of a name; keep the larger to be safe.
        let entry = self.entities.entry(name).or_insert(0);
        *entry = (*entry).max(size);
        self.add(size, name_start)?;
        Ok(tag_end(body, value_end + 1))
    }
}

/// The offset after the first `needle` at or after `from` (the end when there is none).
fn skip_past(body: &[u8], from: usize, needle: &[u8]) -> usize {
    if from >= body.len() {
        return body.len();
    }
    memchr::memmem::find(&body[from..], needle)
        .map_or(body.len(), |offset| from + offset + needle.len())
}

/// The offset after the `>` that ends a tag starting before `from`, skipping quoted values.
fn tag_end(body: &[u8], mut from: usize) -> usize {
    while from < body.len() {
        match body[from] {
            b'>' => return from + 1,
            quote @ (b'"' | b'\'') => from = skip_past(body, from + 1, &[quote]),
            _ => from += 1,
        }
    }
    body.len()
}

fn skip_spaces(body: &[u8], mut at: usize) -> usize {
    while body.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

fn starts_with_ignore_case(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b':' || byte >= 0x80
}

fn is_name_byte(byte: u8) -> bool {
    is_name_start(byte) || byte.is_ascii_digit() || byte == b'-' || byte == b'.'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classic document: ten levels of ten references each.
    fn billion_laughs() -> String {
        let mut doc = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n");
        doc.push_str("  <!ENTITY lol \"lol\">\n");
        for level in 1..10 {
            let previous = if level == 1 {
                "lol".to_string()
            } else {
                format!("lol{}", level - 1)
            };
            let value = format!("&{previous};").repeat(10);
            doc.push_str(&format!("  <!ENTITY lol{level} \"{value}\">\n"));
        }
        doc.push_str(
            "]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
             xmlns:ex=\"http://example.org/\">\n<rdf:Description rdf:about=\"http://example.org/s\">\
             <ex:p>&lol9;</ex:p></rdf:Description>\n</rdf:RDF>\n",
        );
        doc
    }

    #[test]
    fn nested_entities_beyond_the_bound_are_refused_at_their_definition() {
        let doc = billion_laughs();
        let error = check(doc.as_bytes()).unwrap_err();
        let limit = max_entity_expansion(doc.len());
        assert!(
            error.contains(&format!("expand beyond {limit} bytes")),
            "{error}"
        );
        // Refused at a definition, before any reference in the body.
        let at: usize = error
            .split("at byte ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|number| number.parse().ok())
            .unwrap();
        assert!(at < doc.find("]>").unwrap(), "{error}");
    }

    #[test]
    fn namespace_abbreviations_and_many_small_references_pass() {
        let mut doc = String::from(
            "<!DOCTYPE rdf:RDF [ <!ENTITY rdf 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\n\
             <!ENTITY ex \"http://example.org/&rdf;\"> ]>\n<rdf:RDF xmlns:rdf=\"&rdf;\">\n",
        );
        for index in 0..20_000 {
            doc.push_str(&format!(
                "<rdf:Description rdf:about=\"&ex;{index}\"><rdf:value>&ex;</rdf:value>\
                 </rdf:Description>\n"
            ));
        }
        doc.push_str("</rdf:RDF>\n");
        assert_eq!(check(doc.as_bytes()), Ok(()));
    }

    #[test]
    fn references_in_the_body_count_against_the_bound() {
        // One 1000-byte entity referenced 2000 times: 2 MB from a 10 KB document.
        let mut doc = format!("<!DOCTYPE r [<!ENTITY big \"{}\">]><r>", "x".repeat(1000));
        doc.push_str(&"&big;".repeat(2000));
        doc.push_str("</r>");
        let error = check(doc.as_bytes()).unwrap_err();
        assert!(error.contains("entity references at byte"), "{error}");
        // Without the DOCTYPE the same references are not entities of ours to expand.
        let plain = doc.split_once("]>").unwrap().1;
        assert_eq!(check(plain.as_bytes()), Ok(()));
    }

    #[test]
    fn references_in_attribute_values_count_against_the_bound() {
        // The parser expands references in attribute values too: 2,000 references to a
        // 1,000-byte entity in one attribute are 2 MB from a 10 KB document.
        let references = "&big;".repeat(2000);
        for tag in [
            format!("<r a=\"{references}\"/>"),
            format!("<r a='{references}'></r>"),
        ] {
            let doc = format!("<!DOCTYPE r [<!ENTITY big \"{}\">]>{tag}", "x".repeat(1000));
            let error = check(doc.as_bytes()).unwrap_err();
            assert!(error.contains("entity references at byte"), "{error}");
        }
    }

    #[test]
    fn depth_is_counted_through_empty_elements_comments_and_quoted_markup() {
        let inside = "<a x=\"<b>\" y='>'><c/><!-- <d> --><![CDATA[<e>]]><?pi <f>?></a>";
        let deep = format!(
            "{}{inside}{}",
            "<n>".repeat(MAX_XML_DEPTH - 1),
            "</n>".repeat(MAX_XML_DEPTH - 1)
        );
        assert_eq!(check(deep.as_bytes()), Ok(()));
        let deeper = format!("<n>{deep}</n>");
        let error = check(deeper.as_bytes()).unwrap_err();
        assert_eq!(
            error,
            format!(
                "XML elements nested deeper than {MAX_XML_DEPTH} levels at byte {}: refused",
                3 * MAX_XML_DEPTH
            )
        );
    }
}
