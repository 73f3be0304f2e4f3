//! RDF in `<script>` data blocks (RDFa 1.1 §3.4, JSON-LD 1.1 §7): every JSON-LD, Turtle,
//! N-Triples, N-Quads and TriG block of a page, each parsed on its own so one broken block
//! costs only itself; and `<link rel="alternate">` to an RDF version of the page.

use sophia::api::term::TermKind;

use super::super::jsonld::ContextSource;
use super::super::parse::{StatementSink, parse_statements};
use super::super::syntax::Syntax;
use super::dom::Element;
use super::{EmbeddedReport, Emitter, Term};

/// Parses every data block under `root` into `emitter`, counting into `report`; `(json_ld,
/// turtle)` say which kinds of block are read (blocks keep their numbers either way).
pub(crate) fn extract(
    root: &Element,
    base: &str,
    contexts: &dyn ContextSource,
    (json_ld, turtle): (bool, bool),
    report: &mut EmbeddedReport,
    emitter: &mut Emitter,
) {
    let blocks = root
        .descendants()
        .into_iter()
        .filter(|element| element.name == "script")
        .filter_map(|element| Some((block_syntax(element.attr("type")?)?, element)));
    for (number, (syntax, element)) in blocks.enumerate() {
        let wanted = if syntax == Syntax::JsonLd {
            json_ld
        } else {
            turtle
        };
        if !wanted {
            continue;
        }
        let text = element.text_content();
        let text = text.trim();
        // JSON-LD blocks are read leniently, as extruct reads them: a block that is not JSON
        // is read again without JavaScript comments and trailing commas, with control
        // characters in strings taken as written.
        let recovered = (syntax == Syntax::JsonLd
            && serde_json::from_str::<serde_json::Value>(text).is_err())
        .then(|| lenient_json(text));
        let text = recovered.as_deref().unwrap_or(text);
        let mut relabel = Relabel {
            emitter,
            scope: format!("b{number}_"),
            count: 0,
        };
        let outcome = parse_statements(
            text.as_bytes(),
            syntax,
            base,
            contexts,
            &super::PageOptions::default(),
            &mut relabel,
        );
        let count = relabel.count;
        if syntax == Syntax::JsonLd {
            report.json_ld_blocks += 1;
            report.json_ld += count;
        } else {
            report.turtle_blocks += 1;
            report.turtle += count;
        }
        for url in outcome.remote_contexts {
            if !report.remote_contexts.contains(&url) {
                report.remote_contexts.push(url);
            }
        }
        for url in outcome.missing_contexts {
            if !report.missing_contexts.contains(&url) {
                report.missing_contexts.push(url);
            }
        }
        if let Err(error) = outcome.result {
            report.errors.push(format!(
                "script block {} ({}): {error}",
                number + 1,
                syntax.media_type()
            ));
        }
    }
}

/// The text of a JSON-LD block the way extruct (through jstyleson) reads one that is not JSON:
/// a first line that is a `//` or `<!-- -->` comment dropped, `//` and `/* */` comments outside
/// strings dropped, a comma before `]` or `}` dropped, and control characters inside strings
/// (which JSON allows only escaped) escaped, so that they keep their value.
fn lenient_json(text: &str) -> String {
    let text = without_comment_line(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                '\\' => {
                    out.push(c);
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                c if u32::from(c) < 0x20 => {
                    out.push_str(&format!("\\u{:04x}", u32::from(c)));
                }
                c => out.push(c),
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut star = false;
                for skipped in chars.by_ref() {
                    if star && skipped == '/' {
                        break;
                    }
                    star = skipped == '*';
                }
                out.push(' ');
            }
            (']' | '}', _) => {
                let kept = out.trim_end().len();
                if out[..kept].ends_with(',') {
                    out.truncate(kept - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `text` without a first line that is a `//` comment or holds an `<!-- … -->` comment.
fn without_comment_line(text: &str) -> &str {
    let trimmed = text.trim_start();
    let line_end = trimmed.find('\n').unwrap_or(trimmed.len());
    let line = &trimmed[..line_end];
    if line.starts_with("//") {
        return &trimmed[line_end..];
    }
    if line.starts_with("<!--")
        && let Some(end) = line.rfind("-->")
    {
        return &trimmed[end + 3..];
    }
    text
}

/// The RDF syntax a script's `type` declares, if any (parameters and case ignored).
fn block_syntax(declared: &str) -> Option<Syntax> {
    let essence = declared.split(';').next()?.trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/ld+json" => Some(Syntax::JsonLd),
        "text/turtle" | "application/turtle" | "application/x-turtle" | "text/n3" => {
            Some(Syntax::Turtle)
        }
        "application/n-triples" => Some(Syntax::NTriples),
        "application/n-quads" => Some(Syntax::NQuads),
        "application/trig" => Some(Syntax::TriG),
        _ => None,
    }
}

/// `<link rel="alternate" type="(RDF)" href>` targets, resolved, in document order.
pub(crate) fn alternates(root: &Element, base: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for element in root.descendants() {
        if element.name != "link" && element.name != "a" {
            continue;
        }
        let alternate = element.attr("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|t| t.eq_ignore_ascii_case("alternate"))
        });
        let rdf = element.attr("type").and_then(block_syntax).is_some()
            || element
                .attr("type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/rdf+xml"));
        if !(alternate && rdf) {
            continue;
        }
        if let Some(href) = element
            .attr("href")
            .and_then(|h| super::resolve(base, h.trim()))
            && !found.contains(&href)
        {
            found.push(href);
        }
    }
    found
}

/// Takes a block's statements into the page's emitter, giving its blank nodes labels of their
/// own (two blocks both saying `_:b0` mean two nodes).
struct Relabel<'e> {
    emitter: &'e mut Emitter,
    scope: String,
    count: u64,
}

impl Relabel<'_> {
    fn convert<T: sophia::api::term::Term>(&self, term: &T) -> Term {
        match term.kind() {
            TermKind::BlankNode => Term::Blank(format!(
                "{}{}",
                self.scope,
                term.bnode_id()
                    .map(|id| id.as_str().to_string())
                    .unwrap_or_default()
            )),
            TermKind::Literal => Term::Literal {
                lexical: term
                    .lexical_form()
                    .map(|l| l.to_string())
                    .unwrap_or_default(),
                datatype: term.datatype().map(|d| d.as_str().to_string()),
                language: term.language_tag().map(|t| t.as_str().to_string()),
            },
            _ => Term::Iri(
                term.iri()
                    .map(|i| i.as_str().to_string())
                    .unwrap_or_default(),
            ),
        }
    }
}

impl StatementSink for Relabel<'_> {
    fn statement<T: sophia::api::term::Term>(
        &mut self,
        subject: T,
        predicate: T,
        object: T,
        graph: Option<T>,
    ) {
        let graph = graph.map_or(super::DEFAULT, |g| self.convert(&g));
        let statement = [
            self.convert(&subject),
            self.convert(&predicate),
            self.convert(&object),
            graph,
        ];
        self.emitter.quad(statement);
        self.count += 1;
    }
}
