//! A Turtle or TriG document rewritten, without changing its statements, where sophia's
//! line-oriented reader departs from the grammar:
//!
//! - A comment ends at a line feed or a carriage return (`COMMENT ::= '#' [^#xA#xD]*`);
//!   sophia reads on to the next line feed, so a lone CR ending a comment hid the rest of
//!   that "line" (a statement, a `@prefix`) from it. Such a CR becomes a line feed (both are
//!   white space outside the comment).
//! - In a long string (`"""…"""`, `'''…'''`), a quote or two followed by a non-ASCII
//!   character made sophia slice inside that character (a panic), and followed by a
//!   backslash made it copy the escape unread (`"\t` stayed a backslash and a `t`). Such
//!   quotes are written as the escapes `\"` / `\'`, which mean the same.
//!
//! - A blank node label with two dots in a row (`_:b..2`, which the grammar allows) made sophia
//!   panic building the term. Labels with a `.` or a `·` are written with each `.` as `.·`
//!   and each `·` as `··`: still labels, and still one per original label (a document's labels
//!   are relabelled `b0`, `b1`, … by first appearance anyway).
//!
//! The rewrite follows strings, IRIs, comments and local-name escapes just far enough to
//! know which of these it is in; where it meets something the grammar does not allow there
//! (an unterminated string or IRI) it copies the rest unchanged, for the parser to report.

use std::borrow::Cow;

/// `body` as sophia reads it the way the grammar does (borrowed when nothing needed a
/// change, as for most documents).
pub(crate) fn for_sophia(body: &[u8]) -> Cow<'_, [u8]> {
    if !may_change(body) {
        return Cow::Borrowed(body);
    }
    rewritten(body)
}

/// [`for_sophia`] without the quick passes that skip it.
fn rewritten(body: &[u8]) -> Cow<'_, [u8]> {
    let mut rewrite = Rewrite {
        body,
        out: Vec::new(),
        copied: 0,
    };
    let mut at = 0;
    while let Some(&byte) = body.get(at) {
        let next = match byte {
            b'#' => match memchr::memchr2(b'\n', b'\r', &body[at..]) {
                None => break,
                Some(length) => {
                    let end = at + length;
                    if body[end] == b'\r' && body.get(end + 1) != Some(&b'\n') {
                        rewrite.replace(end..end + 1, b"\n");
                    }
                    Some(end + 1)
                }
            },
            b'"' | b'\'' if body[at..].starts_with(&[byte; 3]) => rewrite.long_string(at + 3, byte),
            b'"' | b'\'' => short_string_end(body, at + 1, byte),
            b'<' if body.get(at + 1) == Some(&b'<') => Some(at + 2),
            b'<' => iri_end(body, at + 1),
            // An escape in a local name (`ex:a\#b`): the escaped character is not a comment.
            b'\\' => Some(at + 2),
            // A blank node label, unless inside a name (`ex:a_:b` is one local name).
            b'_' if body.get(at + 1) == Some(&b':') && label_starts(body, at) => {
                let end = label_end(body, at + 2);
                if dotted_label(body, at + 2) {
                    let mut label = Vec::with_capacity(2 * (end - at));
                    for &byte in &body[at + 2..end] {
                        label.push(byte);
                        match byte {
                            b'.' => label.extend_from_slice("·".as_bytes()),
                            // The second byte of `·` (U+00B7 is C2 B7).
                            0xB7 if label.len() >= 2 && label[label.len() - 2] == 0xC2 => {
                                label.extend_from_slice("·".as_bytes())
                            }
                            _ => {}
                        }
                    }
                    rewrite.replace(at + 2..end, &label);
                }
                Some(end)
            }
            _ => Some(at + 1),
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    rewrite.finish()
}

/// Whether the rewrite could change `body`, found by a few quick passes for the bytes each
/// change needs (most documents need none, and the rewrite reads every byte): a carriage
/// return; a quote followed by a backslash or a non-ASCII character, in a document with a
/// long string; a label with a dot.
fn may_change(body: &[u8]) -> bool {
    if memchr::memchr(b'\r', body).is_some() {
        return true;
    }
    let long_strings = memchr::memmem::find(body, b"\"\"\"").is_some()
        || memchr::memmem::find(body, b"'''").is_some();
    if long_strings
        && (memchr::memmem::find(body, b"\"\\").is_some()
            || memchr::memmem::find(body, b"'\\").is_some()
            || (!body.is_ascii()
                && memchr::memchr2_iter(b'"', b'\'', body)
                    .any(|at| body.get(at + 1).is_some_and(|&next| next >= 0x80))))
    {
        return true;
    }
    memchr::memmem::find_iter(body, b"_:").any(|at| dotted_label(body, at + 2))
}

/// The rewritten document, built only once a change is needed.
struct Rewrite<'a> {
    body: &'a [u8],
    out: Vec<u8>,
    /// `body[..copied]` is in `out` (rewritten).
    copied: usize,
}

impl<'a> Rewrite<'a> {
    fn replace(&mut self, range: std::ops::Range<usize>, with: &[u8]) {
        if self.out.is_empty() {
            self.out.reserve(self.body.len() + 64);
        }
        self.out
            .extend_from_slice(&self.body[self.copied..range.start]);
        self.out.extend_from_slice(with);
        self.copied = range.end;
    }

    /// Just after the long string whose content starts at `from`, quotes before a non-ASCII
    /// character or a backslash escaped; `None` if it does not end.
    fn long_string(&mut self, from: usize, quote: u8) -> Option<usize> {
        let body = self.body;
        let mut at = from;
        loop {
            let found = at + memchr::memchr2(quote, b'\\', &body[at..])?;
            if body[found] == b'\\' {
                at = found + 2;
                continue;
            }
            let run = body[found..].iter().take_while(|&&b| b == quote).count();
            if run >= 3 {
                return Some(found + 3);
            }
            let after = *body.get(found + run)?;
            if after >= 0x80 || after == b'\\' {
                let escaped = [b'\\', quote, b'\\', quote];
                self.replace(found..found + run, &escaped[..2 * run]);
            }
            at = found + run;
        }
    }

    /// The document with the changes made, or borrowed if there were none.
    fn finish(mut self) -> Cow<'a, [u8]> {
        if self.copied == 0 {
            return Cow::Borrowed(self.body);
        }
        self.out.extend_from_slice(&self.body[self.copied..]);
        Cow::Owned(self.out)
    }
}

/// Just after the closing quote of the short string whose content starts at `from`; `None`
/// if a line ends first (not Turtle).
fn short_string_end(body: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut at = from;
    while let Some(&byte) = body.get(at) {
        match byte {
            b'\\' => at += 2,
            b'\n' | b'\r' => return None,
            _ if byte == quote => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

/// Whether a byte can be part of a prefixed name or label (ASCII letter or digit, `_`, `-`,
/// `:`, `.`, `%`, or any byte of a non-ASCII character).
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte >= 0x80 || matches!(byte, b'_' | b'-' | b':' | b'.' | b'%')
}

/// Whether the `_:` at `at` starts a blank node label rather than continuing a name: it
/// does after anything but a name, and after a statement's final `.` (`<o>._:b`, `1._:b`),
/// but not after a `.` inside a prefixed name or label (`ex:a._:b` is one local name).
fn label_starts(body: &[u8], at: usize) -> bool {
    let before_dots = body[..at].iter().rposition(|&byte| byte != b'.');
    if before_dots.map(|i| i + 1) == Some(at) {
        // No dot right before: a name byte there makes `_:` part of that name.
        return !is_name_byte(body[at - 1]);
    }
    let Some(last) = before_dots else {
        return true;
    };
    if !is_name_byte(body[last]) {
        return true;
    }
    // Dots after a name: inside it when the name is prefixed (`ex:a.`, `_:b.`), else they
    // end a statement after a number or a keyword.
    let token_start = body[..=last]
        .iter()
        .rposition(|&byte| !is_name_byte(byte) || byte == b'.')
        .map_or(0, |i| i + 1);
    !body[token_start..=last].contains(&b':')
}

/// The end of the blank node label starting at `from` (after `_:`): letters, digits, `_`,
/// `-`, non-ASCII characters, and dots between them (a label never ends with one).
fn label_end(body: &[u8], from: usize) -> usize {
    let mut end = from;
    let mut at = from;
    while let Some(&byte) = body.get(at) {
        if !(byte.is_ascii_alphanumeric() || byte >= 0x80 || matches!(byte, b'_' | b'-' | b'.')) {
            break;
        }
        at += 1;
        if byte != b'.' {
            end = at;
        }
    }
    end
}

/// Whether the label starting at `from` holds a `.` or a `·`.
fn dotted_label(body: &[u8], from: usize) -> bool {
    let label = &body[from..label_end(body, from)];
    // A byte test, not a substring search: this runs for every label of a document, and a
    // searcher built for each (memmem) cost about 1,000 instructions a label.
    label.contains(&b'.') || label.windows(2).any(|pair| pair == "·".as_bytes())
}

/// Just after the `>` of the IRI whose characters start at `from`; `None` if white space
/// or the end comes first (not Turtle).
fn iri_end(body: &[u8], from: usize) -> Option<usize> {
    let rest = body.get(from..)?;
    let at = rest
        .iter()
        .position(|&b| matches!(b, b'>' | b' ' | b'\t' | b'\r' | b'\n' | b'<' | b'"'))?;
    (rest[at] == b'>').then_some(from + at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(text: &str) -> String {
        String::from_utf8(for_sophia(text.as_bytes()).into_owned()).unwrap_or_default()
    }

    #[test]
    fn documents_without_a_change_are_borrowed() {
        for text in [
            "<a> <b> \"c # d\" . # e\r\n",
            "<a> <b> \"\"\"x\"y\"\"\" .",
            "<a> <b> 'x' .",
        ] {
            assert!(
                matches!(for_sophia(text.as_bytes()), Cow::Borrowed(_)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_lone_carriage_return_ending_a_comment_becomes_a_line_feed() {
        assert_eq!(
            prepared("<a> <b> <c> . # x\r<d> <e> <f> . # y\r\r\n# z\r"),
            "<a> <b> <c> . # x\n<d> <e> <f> . # y\n\r\n# z\n"
        );
        // Not in strings, IRIs or local names, where `#` starts no comment.
        for text in [
            "<a> <b> \"#\r\" .",
            "<a> <b> \"\"\"# \r\"\"\" .\r",
            "<a> <b> '''# \r''' .\r",
            "<a#x> <b> <c> .\r",
            "ex:a\\#b <b> <c> .\r",
        ] {
            assert_eq!(prepared(text), text);
        }
    }

    #[test]
    fn quotes_before_non_ascii_or_a_backslash_in_long_strings_are_escaped() {
        assert_eq!(
            prepared("<a> <b> \"\"\"x\"é\"\"é\"\\t\"a\"\"\", '''y'ü''', \"q\\\"é\" ."),
            "<a> <b> \"\"\"x\\\"é\\\"\\\"é\\\"\\t\"a\"\"\", '''y\\'ü''', \"q\\\"é\" ."
        );
        // A quote just before the closing ones is content.
        assert_eq!(
            prepared("<a> <b> \"\"\"x\"\"\"\" ."),
            "<a> <b> \"\"\"x\"\"\"\" ."
        );
    }

    #[test]
    fn labels_with_dots_are_written_so_that_sophia_takes_them() {
        assert_eq!(
            prepared("_:b..2 <p> _:a.b, _:x·y, _:x.·y, _:plain, _:end. ex:a_:b.c .\n"),
            "_:b.·.·2 <p> _:a.·b, _:x··y, _:x.···y, _:plain, _:end. ex:a_:b.c .\n"
        );
    }

    #[test]
    fn the_quick_passes_skip_only_documents_the_rewrite_leaves_alone() {
        // Each change, with what triggers it alone.
        for text in [
            "<a> <b> <c> . # x\r<d> <e> <f> .",
            "<a> <b> \"\"\"x\"é\"\"\" .",
            "<a> <b> '''x'\\t''' .",
            "<a> <b> \"\"\"x\"\\t\"\"\" .",
            "_:a.b <p> <o> .",
        ] {
            assert!(may_change(text.as_bytes()), "{text:?}");
            assert!(
                matches!(rewritten(text.as_bytes()), Cow::Owned(_)),
                "{text:?}"
            );
        }
        // Generated and damaged documents: whatever the quick passes skip, the rewrite
        // leaves as it is.
        let mut random = crate::turtle_tests::Random::new(0x9E9A_55E5);
        let mut skipped = 0;
        for _ in 0..3_000 {
            let document = crate::turtle_tests::document(&mut random);
            let document = if random.below(2) == 0 {
                crate::turtle_tests::mutate(&mut random, &document)
            } else {
                document
            };
            if !may_change(document.as_bytes()) {
                skipped += 1;
                assert!(
                    matches!(rewritten(document.as_bytes()), Cow::Borrowed(_)),
                    "{document:?}"
                );
            }
        }
        assert!(skipped > 300, "{skipped}");
    }

    #[test]
    fn what_is_not_turtle_is_left_as_it_is() {
        for text in [
            "<a> <b> \"open\n# x\r\" .",
            "<a b> # x\r",
            "<a> <b> \"\"\"never closed # x\r",
        ] {
            assert_eq!(prepared(text), text);
        }
    }
}
