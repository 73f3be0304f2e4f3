//! Where a Turtle document can be cut into pieces that parse alone: line starts between two
//! statements, outside any string, IRI, comment or bracket, each piece read after the
//! directives (`@prefix`, `@base`, `@version`) that came before it.
//!
//! The scan follows only what it must to find statement ends; whatever it does not follow
//! (SPARQL-style directives, a string or IRI cut by a line end, unbalanced brackets, many
//! directives) ends the cutting, and the rest of the document is one piece.

use std::sync::Arc;

/// Directives repeated before each piece, beyond which the rest is left in one piece.
const MAX_PRELUDE_LEN: usize = 64 << 10;

/// Cuts one Turtle document, piece after piece.
pub(crate) struct TurtleCutter<'a> {
    body: &'a [u8],
    /// The directives met so far, each on its own line.
    prelude: Vec<u8>,
    /// `prelude` as handed to parser threads (renewed when a directive is added).
    shared: Arc<[u8]>,
    prelude_lines: usize,
    gave_up: bool,
}

impl<'a> TurtleCutter<'a> {
    /// A cutter for `body`, before its first piece.
    pub(crate) fn new(body: &'a [u8]) -> Self {
        TurtleCutter {
            body,
            prelude: Vec::new(),
            shared: Arc::from(&[][..]),
            prelude_lines: 0,
            gave_up: false,
        }
    }

    /// The directives before the next piece, and how many lines they take.
    pub(crate) fn prelude(&self) -> (Arc<[u8]>, usize) {
        (Arc::clone(&self.shared), self.prelude_lines)
    }

    /// The end of the piece starting at `start` (a line start between statements): the first
    /// line start between statements at least `min_len` bytes on, or the end of the document.
    pub(crate) fn cut(&mut self, start: usize, min_len: usize) -> usize {
        let body = self.body;
        if self.gave_up {
            return body.len();
        }
        let target = start.saturating_add(min_len);
        let mut scan = Scan {
            at: start,
            depth: 0,
            in_statement: false,
            directive: None,
            closed: true,
            token: Token::Name,
        };
        while let Some(&byte) = body.get(scan.at) {
            match scan.step(body, byte) {
                Step::Go => {}
                Step::LineStart if scan.at >= target => return scan.at,
                Step::LineStart => {}
                Step::Directive(range) => {
                    self.prelude.extend_from_slice(&body[range]);
                    self.prelude.push(b'\n');
                    self.prelude_lines = memchr::memchr_iter(b'\n', &self.prelude).count();
                    self.shared = Arc::from(&self.prelude[..]);
                    if self.prelude.len() > MAX_PRELUDE_LEN {
                        return self.give_up();
                    }
                }
                Step::Lost => return self.give_up(),
            }
        }
        body.len()
    }

    fn give_up(&mut self) -> usize {
        self.gave_up = true;
        self.body.len()
    }
}

/// Where the scan is within one piece.
struct Scan {
    at: usize,
    /// Open `[`, `(`, `{` and `<<`.
    depth: usize,
    /// Inside a statement (or directive) not yet ended by its `.`.
    in_statement: bool,
    /// Where the current statement started, when it is an `@` directive.
    directive: Option<usize>,
    /// The last thing read was white space, a comment, or a token that ends on its own (an
    /// IRI, a string, a closing bracket): a `.` after it cannot be inside a name or number.
    closed: bool,
    /// What the current name, number or keyword token is, by its first character.
    token: Token,
}

/// A token whose end a `.` after it may or may not be.
#[derive(Clone, Copy)]
enum Token {
    /// A prefixed name, blank node label or keyword.
    Name,
    /// Started with a digit, a sign or a `.`.
    Number,
    /// A language tag (after its string's `@`), which never holds a `.`.
    LanguageTag,
}

/// What one step of the scan found.
enum Step {
    Go,
    /// Just after a newline between statements.
    LineStart,
    /// A directive just ended (its text, with its `.`).
    Directive(std::ops::Range<usize>),
    /// Something the scan does not follow.
    Lost,
}

impl Scan {
    fn step(&mut self, body: &[u8], byte: u8) -> Step {
        let next = body.get(self.at + 1).copied();
        match byte {
            b'\n' => {
                self.space(1);
                if self.depth == 0 && !self.in_statement {
                    return Step::LineStart;
                }
            }
            b' ' | b'\t' | b'\r' => self.space(1),
            // A comment ends at a line feed or a carriage return (the Turtle grammar's
            // COMMENT); the document was rewritten for sophia to read it so too.
            b'#' => {
                let end = memchr::memchr2(b'\n', b'\r', &body[self.at..])
                    .map_or(body.len(), |n| self.at + n);
                self.space(end - self.at);
            }
            b'<' if next == Some(b'<') => self.open(2),
            b'<' => match iri_end(body, self.at) {
                Some(end) => self.closed_token_until(end),
                None => return Step::Lost,
            },
            b'>' if next == Some(b'>') && self.depth > 0 => {
                self.depth -= 1;
                self.closed_token_until(self.at + 2);
            }
            b'"' | b'\'' => match string_end(body, self.at) {
                Some(end) => self.closed_token_until(end),
                None => return Step::Lost,
            },
            b'[' | b'(' | b'{' => self.open(1),
            b']' | b')' | b'}' => {
                if self.depth == 0 {
                    return Step::Lost;
                }
                self.depth -= 1;
                self.closed_token_until(self.at + 1);
            }
            // A `.` before a digit starts a number (`, .5`), never follows a statement.
            b'.' if self.depth == 0
                && self.in_statement
                && !next.is_some_and(|b| b.is_ascii_digit())
                && (self.closed || self.ends_token(next)) =>
            {
                // The end of the statement, whatever follows it on the line (`<o>.@prefix`).
                self.space(1);
                self.in_statement = false;
                if let Some(from) = self.directive.take() {
                    return Step::Directive(from..self.at);
                }
            }
            // An escape in a local name (`ex:a\.b`): the escaped character is part of it.
            b'\\' => self.token_until(self.at + 2),
            b'@' if !self.in_statement => {
                self.directive = Some(self.at);
                self.token_until(self.at + 1);
            }
            _ if !self.in_statement && sparql_directive(&body[self.at..]) => return Step::Lost,
            _ => {
                if self.closed {
                    self.token = match byte {
                        b'0'..=b'9' | b'+' | b'-' | b'.' => Token::Number,
                        b'@' => Token::LanguageTag,
                        _ => Token::Name,
                    };
                }
                self.token_until(self.at + 1);
            }
        }
        Step::Go
    }

    /// Whether a `.` just after a name, number or keyword, followed by `next`, is not part of
    /// it: a `.` inside a number is followed by a digit or an exponent (`1.5`, `1.e3`), one
    /// inside a prefixed name or blank node label by another of its characters (`ex:a.b`,
    /// `_:b.1`), and a language tag holds none (`"x"@en.PREFIX`).
    fn ends_token(&self, next: Option<u8>) -> bool {
        match self.token {
            Token::LanguageTag => true,
            Token::Number => !matches!(next, Some(b'0'..=b'9' | b'e' | b'E')),
            Token::Name => !next.is_some_and(|b| {
                b.is_ascii_alphanumeric()
                    || b >= 0x80
                    || matches!(b, b'_' | b'-' | b':' | b'.' | b'%' | b'\\')
            }),
        }
    }

    fn open(&mut self, len: usize) {
        self.depth += 1;
        self.closed_token_until(self.at + len);
    }

    /// White space or a comment of `len` bytes.
    fn space(&mut self, len: usize) {
        self.at += len;
        self.closed = true;
    }

    /// A part of a name, number or keyword, up to `end`.
    fn token_until(&mut self, end: usize) {
        self.in_statement = true;
        self.closed = false;
        self.at = end;
    }

    /// A token that ends on its own (IRI, string, bracket), up to `end`.
    fn closed_token_until(&mut self, end: usize) {
        self.in_statement = true;
        self.closed = true;
        self.at = end;
    }
}

/// Just after the `>` of the IRI starting at `start`, if it ends on its line.
fn iri_end(body: &[u8], start: usize) -> Option<usize> {
    let rest = &body[start + 1..];
    let at = memchr::memchr3(b'>', b'\n', b' ', rest)?;
    (rest[at] == b'>').then_some(start + 1 + at + 1)
}

/// Just after the closing quote(s) of the string starting at `start`; short strings must end
/// on their line.
fn string_end(body: &[u8], start: usize) -> Option<usize> {
    let quote = body[start];
    let long = body[start..].starts_with(&[quote; 3]);
    let mut at = start + if long { 3 } else { 1 };
    loop {
        let found = at + memchr::memchr3(quote, b'\\', b'\n', &body[at..])?;
        match body[found] {
            b'\\' => at = found + 2,
            b'\n' if long => at = found + 1,
            b'\n' => return None,
            _ if !long => return Some(found + 1),
            _ if body[found..].starts_with(&[quote; 3]) => return Some(found + 3),
            _ => at = found + 1,
        }
        if at > body.len() {
            return None;
        }
    }
}

/// Whether a statement starts with a SPARQL-style directive (`PREFIX`, `BASE`, `VERSION`,
/// any case), which ends without a `.`.
fn sparql_directive(rest: &[u8]) -> bool {
    ["prefix", "base", "version"].iter().any(|keyword| {
        rest.len() > keyword.len()
            && rest[..keyword.len()].eq_ignore_ascii_case(keyword.as_bytes())
            && matches!(
                rest[keyword.len()],
                b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'<'
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of `text` (cut at least `min_len` bytes long) and the prelude of each.
    fn pieces(text: &str, min_len: usize) -> Vec<(String, String)> {
        let mut cutter = TurtleCutter::new(text.as_bytes());
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let (prelude, lines) = cutter.prelude();
            let prelude = String::from_utf8(prelude.to_vec()).unwrap_or_default();
            assert_eq!(prelude.matches('\n').count(), lines);
            let end = cutter.cut(start, min_len);
            pieces.push((prelude, text[start..end].to_string()));
            start = end;
        }
        pieces
    }

    #[test]
    fn cuts_at_line_starts_between_statements_with_the_directives_before() {
        let text = "@prefix ex: <http://e.org/> .\nex:a ex:b ex:c .\n@base <http://b.org/> .\n<x> ex:p [ ex:q 1.5 ;\n ex:r ( 1 2 ) ] .\nex:d ex:e \"\"\"x .\n\"\"\" .\n";
        assert_eq!(
            pieces(text, 1),
            [
                ("", "@prefix ex: <http://e.org/> .\n"),
                ("@prefix ex: <http://e.org/> .\n", "ex:a ex:b ex:c .\n"),
                (
                    "@prefix ex: <http://e.org/> .\n",
                    "@base <http://b.org/> .\n"
                ),
                (
                    "@prefix ex: <http://e.org/> .\n@base <http://b.org/> .\n",
                    "<x> ex:p [ ex:q 1.5 ;\n ex:r ( 1 2 ) ] .\n"
                ),
                (
                    "@prefix ex: <http://e.org/> .\n@base <http://b.org/> .\n",
                    "ex:d ex:e \"\"\"x .\n\"\"\" .\n"
                ),
            ]
            .map(|(prelude, piece)| (prelude.to_string(), piece.to_string()))
        );
    }

    #[test]
    fn never_cuts_inside_strings_iris_comments_or_names() {
        let text = "ex:a ex:b \"\"\"long .\n\"\" .\n\"\"\" .\nex:a ex:b 'it\\'s' , \"q\\\" . \" .\nex:a ex:b ex:c # ends .\n .\nex:a ex:b ex:c\\.\n .\nex:a ex:b <<( ex:s ex:p ex:o )>> .\n";
        let cut: Vec<String> = pieces(text, 1)
            .into_iter()
            .map(|(_, piece)| piece)
            .collect();
        assert_eq!(
            cut,
            [
                "ex:a ex:b \"\"\"long .\n\"\" .\n\"\"\" .\n",
                "ex:a ex:b 'it\\'s' , \"q\\\" . \" .\n",
                "ex:a ex:b ex:c # ends .\n .\n",
                "ex:a ex:b ex:c\\.\n .\n",
                "ex:a ex:b <<( ex:s ex:p ex:o )>> .\n",
            ]
        );
    }

    #[test]
    fn what_the_scan_does_not_follow_leaves_the_rest_in_one_piece() {
        for text in [
            "ex:a ex:b ex:c .\nPREFIX ex: <http://e.org/>\nex:a ex:b ex:c .\nex:d ex:e ex:f .\n",
            "ex:a ex:b ex:c .\nex:a ex:b \"open\nex:a ex:b ex:c .\nex:d ex:e ex:f .\n",
            "ex:a ex:b ex:c .\nex:a ex:b ] .\nex:a ex:b ex:c .\nex:d ex:e ex:f .\n",
        ] {
            let cut: Vec<String> = pieces(text, 1)
                .into_iter()
                .map(|(_, piece)| piece)
                .collect();
            assert_eq!(cut, ["ex:a ex:b ex:c .\n", &text[17..]], "{text}");
        }
    }

    /// (A SPARQL-style directive, which the scan does not follow, leaves the rest in one
    /// piece.)
    #[test]
    fn a_directive_after_a_statement_on_its_line_joins_the_prelude() {
        let text = "<a> <b> <c>.@prefix ex: <http://e.org/> .\nex:a ex:b 1.5,.5, 1.e3.@base <http://b.org/> .\nex:a.b ex:b \"x\"@en.# c\r@prefix f: <http://f.org/> .\nex:a ex:b \"y\"@en-gb.PREFIX g: <http://g.org/>\nex:a ex:b ex:c .\nex:d ex:e ex:f .\n";
        let preludes: Vec<String> = pieces(text, 1)
            .into_iter()
            .map(|(prelude, _)| prelude)
            .collect();
        assert_eq!(
            preludes,
            [
                "",
                "@prefix ex: <http://e.org/> .\n",
                "@prefix ex: <http://e.org/> .\n@base <http://b.org/> .\n",
                "@prefix ex: <http://e.org/> .\n@base <http://b.org/> .\n@prefix f: <http://f.org/> .\n",
            ]
        );
    }

    #[test]
    fn pieces_are_at_least_the_length_asked() {
        let text = "<a> <b> <c> .\n".repeat(100);
        let cut = pieces(&text, 100);
        assert_eq!(cut.len(), 13);
        assert!(
            cut.iter()
                .all(|(_, piece)| piece.len() == 112 || piece.len() == 56)
        );
    }
}
