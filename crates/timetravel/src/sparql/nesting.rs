//! How deeply a query nests, measured on its text before it is parsed. The SPARQL parser, the
//! algebra built from a query, its optimiser and its evaluator all recurse once per level of
//! nesting, and a few kilobytes of text can nest thousands of levels deep (`((((…`, sub-selects,
//! `!!!!…`, a path of thousands of `/` steps): deep enough to overflow any thread's stack,
//! which aborts the process (a stack overflow is not a panic, it cannot be caught). A cheap
//! scan of the text refuses such queries first; the parser and evaluator then run on a thread
//! whose stack is sized for what the scan lets through ([`super::QUERY_STACK_BYTES`]).
//!
//! The scan skips strings, IRIs and comments and counts, for each open bracket (`(`, `{`, `[`),
//! one level plus one for each item inside it that the algebra chains into a nested tree:
//! operators (`||`, `&&`, `+`, `-`, `*`, `/`, `|`, `^`, `!`), the keywords that combine
//! patterns (`UNION`, `OPTIONAL`, `MINUS`, `SELECT`), groups side by side (`{…} {…}`, joined
//! two by two) and triple pattern separators (`.`, `;`, `,` outside argument lists: see
//! [`TRIPLE_PATTERN_WEIGHT`]). What looks like an IRI (`<…>`) is skipped, but the brackets
//! and negations inside it count, since the parser may read its `<` as a comparison. A query's nesting is the largest
//! sum of those counts over the brackets open at any point; [`MAX_QUERY_NESTING`] bounds it.

/// The deepest nesting a query may have (see the module documentation for how it is
/// counted). Real queries stay far below: a query of ten triple patterns, two OPTIONALs and a
/// FILTER of five comparisons nests a few dozen levels.
pub const MAX_QUERY_NESTING: usize = 256;

/// What one separator of triple patterns (`.`, `;`, `,`) counts. One, as a level of the
/// join tree: the time a large group of patterns takes to plan is bounded by the request's
/// deadline (the server) or is the user's own (`ldwarc sparql`), and a worker process that
/// overflows its stack takes no other query down.
const TRIPLE_PATTERN_WEIGHT: usize = 1;

/// Where a query first nests deeper than [`MAX_QUERY_NESTING`]: its 1-based line and column
/// (in characters), or none when it stays within the limit.
pub fn too_deep_at(text: &str) -> Option<(usize, usize)> {
    let offset = first_offset_past(text.as_bytes(), MAX_QUERY_NESTING)?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Some((line, column))
}

/// The byte offset at which the nesting first exceeds `limit`, if it does. Offsets returned
/// always lie on an ASCII delimiter, so on a character boundary.
fn first_offset_past(text: &[u8], limit: usize) -> Option<usize> {
    // Per open bracket: the items chained inside it so far. `total` is the sum over the
    // stack of (1 + items): the nesting at this point.
    let mut open: Vec<usize> = Vec::new();
    // The kind of each open bracket: a `,` inside `(…)` separates arguments (a flat list).
    let mut kinds: Vec<u8> = Vec::new();
    let mut total = 0usize;
    let mut at = 0;
    // One more item in the innermost bracket (or at the top level); the offset when that
    // passes the limit.
    let chain = |open: &mut Vec<usize>, total: &mut usize, at: usize| -> Option<usize> {
        if let Some(items) = open.last_mut() {
            *items += 1;
        }
        *total += 1;
        (*total > limit).then_some(at)
    };
    while at < text.len() {
        let byte = text[at];
        match byte {
            b'#' => {
                while at < text.len() && text[at] != b'\n' && text[at] != b'\r' {
                    at += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                at = skip_string(text, at);
                // `^^` after a literal introduces its datatype: not an inverse path.
                if text[at..].starts_with(b"^^") {
                    at += 2;
                }
                continue;
            }
            b'<' => {
                if let Some(end) = iri_end(text, at) {
                    // Where the parser reads a comparison (`1<((((…>`), what looks like an
                    // IRI is code: its brackets and negations count as items, so that no
                    // reading of the `<` can hide nesting from the scan. Closing brackets
                    // inside it give nothing back.
                    for &inner in &text[at + 1..end] {
                        if matches!(inner, b'(' | b'[' | b'!')
                            && let Some(past) = chain(&mut open, &mut total, at)
                        {
                            return Some(past);
                        }
                    }
                    at = end;
                    continue;
                }
                // A comparison (`<`, `<=`): never chained.
            }
            // A variable: its name is not a keyword.
            b'?' | b'$' => {
                at = name_end(text, at + 1).max(at + 1);
                continue;
            }
            b'(' | b'{' | b'[' => {
                // Groups side by side are joined two by two: each is an item of the
                // enclosing bracket, and opens a level of its own.
                if byte == b'{'
                    && let Some(past) = chain(&mut open, &mut total, at)
                {
                    return Some(past);
                }
                open.push(0);
                kinds.push(byte);
                total += 1;
                if total > limit {
                    return Some(at);
                }
            }
            b')' | b'}' | b']' => {
                if let Some(items) = open.pop() {
                    kinds.pop();
                    total -= items + 1;
                }
            }
            b'|' | b'&' if text.get(at + 1) == Some(&byte) => {
                at += 1;
                if let Some(past) = chain(&mut open, &mut total, at) {
                    return Some(past);
                }
            }
            // `!=` is a comparison: never chained.
            b'!' if text.get(at + 1) == Some(&b'=') => at += 1,
            b'|' | b'!' | b'^' | b'/' | b'+' | b'-' | b'*' => {
                if let Some(past) = chain(&mut open, &mut total, at) {
                    return Some(past);
                }
            }
            // Arguments of a call and the members of an IN list are a flat list.
            b',' if kinds.last() == Some(&b'(') => {}
            // Triple patterns side by side: the evaluator joins them two by two.
            b'.' | b';' | b',' => {
                for _ in 0..TRIPLE_PATTERN_WEIGHT {
                    if let Some(past) = chain(&mut open, &mut total, at) {
                        return Some(past);
                    }
                }
            }
            _ if is_name_byte(byte) => {
                let end = name_end(text, at);
                let word = &text[at..end];
                let combines = ["UNION", "OPTIONAL", "MINUS", "SELECT"]
                    .iter()
                    .any(|keyword| word.eq_ignore_ascii_case(keyword.as_bytes()));
                if combines && let Some(past) = chain(&mut open, &mut total, at) {
                    return Some(past);
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// Whether the query text holds `keyword` (ASCII, any case) as a bare word: outside strings,
/// IRIs and comments, and not part of a variable or a prefixed name. In a query that parsed,
/// such a word can only be the keyword itself.
pub fn has_keyword(text: &str, keyword: &str) -> bool {
    let text = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'#' => {
                while at < text.len() && text[at] != b'\n' && text[at] != b'\r' {
                    at += 1;
                }
            }
            b'"' | b'\'' => at = skip_string(text, at),
            b'<' => at = iri_end(text, at).unwrap_or(at + 1),
            // A variable's name is not a keyword.
            b'?' | b'$' => at = name_end(text, at + 1).max(at + 1),
            byte if is_name_byte(byte) => {
                let end = name_end(text, at);
                if text[at..end].eq_ignore_ascii_case(keyword.as_bytes()) {
                    return true;
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    false
}

/// The offset just past the string literal opening at `at` (short or long form, with
/// backslash escapes), or the end of the text when it is not closed.
fn skip_string(text: &[u8], at: usize) -> usize {
    let quote = text[at];
    let long = text.get(at + 1) == Some(&quote) && text.get(at + 2) == Some(&quote);
    if text.get(at + 1) == Some(&quote) && !long {
        return at + 2; // the empty string
    }
    let mut i = if long { at + 3 } else { at + 1 };
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            byte if byte == quote => {
                if !long {
                    return i + 1;
                }
                if text.get(i + 1) == Some(&quote) && text.get(i + 2) == Some(&quote) {
                    return i + 3;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    text.len()
}

/// The offset just past the IRI reference opening at `at` (`<…>` without the characters an
/// IRI reference excludes), or none when the `<` is a comparison operator.
fn iri_end(text: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while let Some(&byte) = text.get(i) {
        match byte {
            b'>' => return Some(i + 1),
            // A backslash stays: the parser reads `\uXXXX` escapes inside IRIs.
            b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' => return None,
            byte if byte <= b' ' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Whether `byte` may start or continue a name: a keyword, a prefixed name's parts, a
/// variable's name, a number (any byte of a non-ASCII character counts).
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b':' || byte >= 0x80
}

/// The end of the name starting at `at`: name bytes, with `-`, `.` and `%` inside (prefixed
/// names and numbers hold them; a final `.` ends a triple) and backslash escapes.
fn name_end(text: &[u8], at: usize) -> usize {
    let mut i = at;
    while i < text.len() {
        let byte = text[i];
        let inside = is_name_byte(byte) || byte == b'-' || byte == b'%';
        // A final `.` ends a triple: a `.` belongs to the name only before more of it.
        let dot_inside = byte == b'.' && text.get(i + 1).is_some_and(|&next| is_name_byte(next));
        if inside || dot_inside {
            i += 1;
        } else if byte == b'\\' && i + 1 < text.len() && text[i + 1].is_ascii() {
            i += 2;
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nesting(text: &str) -> usize {
        // The smallest limit the text stays within.
        (0..=text.len() + 1)
            .find(|&limit| first_offset_past(text.as_bytes(), limit).is_none())
            .unwrap()
    }

    #[test]
    fn brackets_and_chains_count_strings_iris_and_comments_do_not() {
        assert_eq!(
            nesting("SELECT * WHERE { ?s ?p ?o }"),
            4,
            "SELECT, *, {{ and its level"
        );
        assert_eq!(nesting("ASK { ?s ?p ?o }"), 2);
        assert_eq!(nesting("ASK { ((((?s)))) }"), 2 + 4);
        assert_eq!(nesting("ASK { ?s <a:p>/<a:q>/<a:r> ?o }"), 2 + 2);
        assert_eq!(nesting("ASK { ?s !<a:p> ?o FILTER(?o != 1) }"), 2 + 1 + 1);
        assert_eq!(nesting("ASK { ?s ?p \"x\"^^<a:t> }"), 2);
        // Strings and comments hold anything; brackets inside what looks like an IRI count
        // (the parser may read its `<` as a comparison), once each.
        let hidden = "ASK { ?s ?p \"((((\\\"((((\" . ?s ?p '''{{{''' . ?s <a:((((> ?o } # ((((\n";
        assert_eq!(nesting(hidden), 2 + 2 * TRIPLE_PATTERN_WEIGHT + 4);
        // Names keep their dashes and dots; a comparison is not an IRI.
        assert_eq!(nesting("ASK { ?s ex:a-b.c 1.5e-3 FILTER(?s < ?o) }"), 2 + 1);
        // Groups side by side chain; closed brackets give their levels back.
        assert_eq!(nesting("ASK { {} {} {} }"), 2 + 3 + 1);
        assert_eq!(nesting("ASK { () () () }"), 2 + 1);
    }

    #[test]
    fn deep_queries_of_every_kind_are_refused_where_they_pass_the_limit() {
        let deep = |prefix: &str, unit: &str, suffix: &str, n: usize| {
            format!("{prefix}{}{suffix}", unit.repeat(n))
        };
        for (what, query) in [
            ("parentheses", deep("SELECT (", "(", "1", 1000)),
            ("braces", deep("ASK ", "{", "", 1000)),
            ("sub-selects", deep("ASK ", "{ SELECT * WHERE ", "", 1000)),
            ("negations", deep("ASK { FILTER(", "!", "true) }", 3000)),
            ("inverse paths", deep("ASK { ?s ", "^", "<a:p> ?o }", 3000)),
            (
                "path steps",
                deep("ASK { ?s <a:p>", "/<a:p>", " ?o }", 3000),
            ),
            ("unions", deep("ASK { {} ", "UNION {} ", "}", 3000)),
            ("a long sum", deep("ASK { FILTER(1", "+1", ") }", 3000)),
        ] {
            let (line, column) = too_deep_at(&query).unwrap_or_else(|| panic!("{what}"));
            assert_eq!(line, 1, "{what}");
            assert!(column < 20 * MAX_QUERY_NESTING, "{what}: column {column}");
        }
        assert_eq!(too_deep_at(&"(".repeat(MAX_QUERY_NESTING)), None);
        assert_eq!(
            too_deep_at(&format!("#x\n{}", "(".repeat(MAX_QUERY_NESTING + 1))),
            Some((2, 1 + MAX_QUERY_NESTING))
        );
    }

    #[test]
    fn nothing_that_looks_like_an_iri_hides_nesting() {
        let deep = "(".repeat(60_000);
        for query in [
            // `<` read as a comparison: the brackets after it are code.
            format!("ASK{{FILTER(1<{deep}>"),
            format!("ASK{{FILTER(1<{deep}2>1{})}}", ")".repeat(60_000)),
            // A `\u` escape inside an IRI: the `#` after it is part of the IRI, not a comment.
            format!(
                "ASK {{ ?s ?p <http://e.org/\\u0061#x> . FILTER({deep}true{}) }}",
                ")".repeat(60_000)
            ),
            // Closing brackets inside an IRI give no level back.
            format!("ASK {{ FILTER({}", "((<a:))))>".repeat(20_000)),
        ] {
            assert!(too_deep_at(&query).is_some(), "{}", &query[..60]);
        }
    }

    #[test]
    fn large_real_queries_stay_within_the_limit() {
        let patterns: String = (0..100)
            .map(|n| format!("  ?s <http://e.org/p{n}> ?o{n} .\n"))
            .collect();
        let query = format!("SELECT * WHERE {{\n{patterns}}}");
        assert_eq!(too_deep_at(&query), None, "100 triple patterns");
        let pairs: String = (0..100).map(|n| format!(" ex:p{n} ?o{n} ;")).collect();
        assert_eq!(
            too_deep_at(&format!("SELECT * {{ ?s{pairs} a ex:C }}")),
            None
        );
        let members: Vec<String> = (0..1000).map(|n| format!("<http://e.org/{n}>")).collect();
        let query = format!(
            "SELECT * {{ ?s ?p ?o FILTER(?o IN ({})) }}",
            members.join(", ")
        );
        assert_eq!(too_deep_at(&query), None, "an IN list of 1,000");
        let template: String = (0..100).map(|n| format!("?s ex:p{n} ?o{n} . ")).collect();
        let query = format!("CONSTRUCT {{ {template} }} WHERE {{ {patterns} }}");
        assert_eq!(too_deep_at(&query), None, "a template of 100 triples");
        // DBpedia's IRIs hold parentheses.
        let iris: String = (0..60)
            .map(|n| format!("?s ?p <http://dbpedia.org/resource/Name_(thing{n})> .\n"))
            .collect();
        assert_eq!(too_deep_at(&format!("ASK {{ {iris} }}")), None);
    }

    #[test]
    fn keywords_are_found_only_as_bare_words() {
        assert!(has_keyword(
            "SELECT * { service <a:e> { ?s ?p ?o } }",
            "SERVICE"
        ));
        for text in [
            "SELECT ?service { ?service ?p \"SERVICE\" }",
            "SELECT * { ?s ex:SERVICE <a:SERVICE> ; :SERVICE $SERVICE } # SERVICE",
            "SELECT * { ?s ?p ?o FILTER(?o = '''SERVICE''') }",
        ] {
            assert!(!has_keyword(text, "SERVICE"), "{text}");
        }
    }

    #[test]
    fn unclosed_strings_and_iris_end_the_scan_without_panicking() {
        for text in [
            "\"abc", "'''ab''", "<abc", "\\", "ex:a\\", "'\\", "é(é", "?", "$é",
        ] {
            let _ = first_offset_past(text.as_bytes(), 4);
            let _ = has_keyword(text, "SERVICE");
        }
        assert_eq!(too_deep_at("ASK { ?s ?p \"((((((((("), None);
    }
}
