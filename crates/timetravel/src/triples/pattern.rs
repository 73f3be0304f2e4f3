//! Triple patterns as users write them (`<s> <p> ?o`, Turtle terms) and as Triple Pattern
//! Fragments clients send them (`subject=http://…`, `object="v"^^http://…`), both turned
//! into the canonical N-Triples spellings the index stores.

use ldwarc_rdf::{NoContexts, Syntax, parse_graph};

/// One position of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternTerm {
    /// Matches any term; the name is kept for display.
    Variable(String),
    /// Matches exactly this term (canonical N-Triples spelling).
    Bound(String),
}

impl PatternTerm {
    /// The term, when bound.
    pub fn bound(&self) -> Option<&str> {
        match self {
            PatternTerm::Bound(term) => Some(term),
            PatternTerm::Variable(_) => None,
        }
    }
}

/// A triple pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriplePattern {
    /// The subject position.
    pub subject: PatternTerm,
    /// The predicate position.
    pub predicate: PatternTerm,
    /// The object position.
    pub object: PatternTerm,
}

/// Stands for a variable while the bound terms are parsed.
const PLACEHOLDER: &str = "<urn:ldwarc:pattern-variable>";

impl TriplePattern {
    /// The pattern matching every triple.
    pub fn any() -> TriplePattern {
        let var = |name: &str| PatternTerm::Variable(name.to_string());
        TriplePattern {
            subject: var("s"),
            predicate: var("p"),
            object: var("o"),
        }
    }

    /// Parses three terms in Turtle syntax (IRIs in angle brackets, literals, `a`, numbers,
    /// booleans, blank node labels) or variables (`?name`, `$name`); a final `.` is allowed.
    pub fn parse(text: &str) -> Result<TriplePattern, String> {
        let mut tokens = tokenize(text)?;
        if tokens.last().is_some_and(|t| t == ".") {
            tokens.pop();
        }
        let [s, p, o]: [String; 3] = tokens.try_into().map_err(|tokens: Vec<String>| {
            format!(
                "{text:?}: a triple pattern has three terms (e.g. '<http://example.org/s> <http://example.org/p> ?o'), this has {}",
                tokens.len()
            )
        })?;
        let terms = [s, p, o].map(|token| match token.strip_prefix(['?', '$']) {
            Some(name) if !name.is_empty() => PatternTerm::Variable(name.to_string()),
            _ => PatternTerm::Bound(token),
        });
        canonical(text, terms)
    }

    /// Builds a pattern from the `subject`, `predicate` and `object` parameters of a Triple
    /// Pattern Fragments request: absent, empty or `?name` is a variable, an IRI is written
    /// bare, a literal as `"value"`, `"value"@lang` or `"value"^^datatype-IRI`.
    pub fn from_fragment_parameters(
        subject: Option<&str>,
        predicate: Option<&str>,
        object: Option<&str>,
    ) -> Result<TriplePattern, String> {
        let term = |value: Option<&str>, name: &str| match value.map(str::trim) {
            None | Some("") => PatternTerm::Variable(name.to_string()),
            Some(v) if v.starts_with('?') => PatternTerm::Variable(v[1..].to_string()),
            Some(v) => PatternTerm::Bound(fragment_term_as_turtle(v)),
        };
        let terms = [term(subject, "s"), term(predicate, "p"), term(object, "o")];
        canonical("the fragment's parameters", terms)
    }

    /// The pattern in the spelling of [`TriplePattern::parse`].
    pub fn to_text(&self) -> String {
        [&self.subject, &self.predicate, &self.object]
            .map(|t| match t {
                PatternTerm::Variable(name) => format!("?{name}"),
                PatternTerm::Bound(term) => term.clone(),
            })
            .join(" ")
    }
}

/// The Turtle spelling of a term in the Linked Data Fragments parameter form.
fn fragment_term_as_turtle(value: &str) -> String {
    if let Some(rest) = value.strip_prefix('"') {
        let Some(close) = rest.rfind('"') else {
            return value.to_string(); // unparsable: the Turtle parser reports it
        };
        let (lexical, suffix) = (&rest[..close], &rest[close + 1..]);
        let mut out = String::from("\"");
        for c in lexical.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        out.push('"');
        match suffix.strip_prefix("^^") {
            Some(datatype) if !datatype.starts_with('<') => {
                out.push_str("^^<");
                out.push_str(datatype);
                out.push('>');
            }
            _ => out.push_str(suffix),
        }
        out
    } else if value.starts_with("_:") || value.starts_with('<') {
        value.to_string()
    } else {
        format!("<{value}>")
    }
}

/// Parses the bound terms as one Turtle statement and takes their canonical spellings.
fn canonical(source: &str, terms: [PatternTerm; 3]) -> Result<TriplePattern, String> {
    let statement = terms
        .iter()
        .map(|t| t.bound().unwrap_or(PLACEHOLDER))
        .collect::<Vec<_>>()
        .join(" ");
    let parsed = parse_graph(
        format!("{statement} .\n").as_bytes(),
        &[Syntax::Turtle],
        "urn:ldwarc:pattern",
        &NoContexts,
    )
    .map_err(|e| format!("{source}: not a triple pattern: {e}"))?;
    let graph = &parsed.graph;
    let quad = match (&parsed.error, graph.quads()) {
        (None, [quad]) => *quad,
        (Some(error), _) => return Err(format!("{source}: not a triple pattern: {error}")),
        _ => return Err(format!("{source}: not a triple pattern")),
    };
    let [s, p, o] = terms;
    let spelled = |term: PatternTerm, id| match term {
        PatternTerm::Variable(name) => PatternTerm::Variable(name),
        PatternTerm::Bound(_) => PatternTerm::Bound(graph.term(id).to_string()),
    };
    Ok(TriplePattern {
        subject: spelled(s, quad.subject),
        predicate: spelled(p, quad.predicate),
        object: spelled(o, quad.object),
    })
}

/// Splits a pattern into terms, keeping IRIs and literals (with their spaces) whole.
fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        match chars[i] {
            '<' => i = close(&chars, i, '>', text)?,
            '"' | '\'' => {
                i = close(&chars, i, chars[i], text)?;
                if chars.get(i) == Some(&'^') && chars.get(i + 2) == Some(&'<') {
                    i = close(&chars, i + 2, '>', text)?;
                }
            }
            _ => {}
        }
        while i < chars.len() && !chars[i].is_whitespace() {
            i += 1;
        }
        tokens.push(chars[start..i].iter().collect());
    }
    Ok(tokens)
}

/// The position after the `end` character closing the term opened at `open`.
fn close(chars: &[char], open: usize, end: char, text: &str) -> Result<usize, String> {
    let mut i = open + 1;
    while i < chars.len() {
        if chars[i] == '\\' {
            i += 2;
            continue;
        }
        if chars[i] == end {
            return Ok(i + 1);
        }
        i += 1;
    }
    Err(format!(
        "{text:?}: unclosed {} at character {open}",
        chars[open]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(term: &str) -> PatternTerm {
        PatternTerm::Bound(term.to_string())
    }

    #[test]
    fn turtle_terms_become_canonical_spellings() {
        let pattern = TriplePattern::parse(
            r#"<http://e.org/s> a "two words"^^<http://www.w3.org/2001/XMLSchema#string>"#,
        )
        .unwrap();
        assert_eq!(pattern.subject, bound("<http://e.org/s>"));
        assert_eq!(
            pattern.predicate,
            bound("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>")
        );
        assert_eq!(pattern.object, bound("\"two words\""));
        let pattern = TriplePattern::parse("?s <http://e.org/p> 42 .").unwrap();
        assert_eq!(pattern.subject, PatternTerm::Variable("s".into()));
        assert_eq!(
            pattern.object,
            bound("\"42\"^^<http://www.w3.org/2001/XMLSchema#integer>")
        );
    }

    #[test]
    fn bad_patterns_are_refused_with_the_reason() {
        assert!(
            TriplePattern::parse("<http://e.org/s> ?p")
                .unwrap_err()
                .contains("three terms")
        );
        assert!(TriplePattern::parse("\"lit\" ?p ?o").is_err());
        assert!(
            TriplePattern::parse("<http://e.org/s ?p ?o")
                .unwrap_err()
                .contains("unclosed")
        );
    }

    #[test]
    fn fragment_parameters_use_the_ldf_spelling() {
        let pattern = TriplePattern::from_fragment_parameters(
            Some("http://e.org/s"),
            None,
            Some("\"say \"hi\"\"^^http://www.w3.org/2001/XMLSchema#integer"),
        )
        .unwrap();
        assert_eq!(pattern.subject, bound("<http://e.org/s>"));
        assert_eq!(pattern.predicate, PatternTerm::Variable("p".into()));
        assert_eq!(
            pattern.object,
            bound("\"say \\\"hi\\\"\"^^<http://www.w3.org/2001/XMLSchema#integer>")
        );
        let pattern =
            TriplePattern::from_fragment_parameters(None, None, Some("\"Chat\"@FR")).unwrap();
        assert_eq!(pattern.object, bound("\"Chat\"@fr"));
    }
}
