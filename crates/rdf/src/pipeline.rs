//! Large documents parsed on more than one thread, with the graph of the sequential parse.
//!
//! Parser threads spell statements (canonical spellings, blank node labels as the parser gives
//! them, each spelling hashed with the graph's seed); the calling thread interns them in
//! document order, so that blank nodes are relabelled `b0`, `b1`, … by first appearance just
//! as one thread would. N-Triples and N-Quads are cut at line ends, Turtle at line starts
//! between statements (each piece read after the directives before it), and the pieces parsed
//! on every core; TriG, whose graph blocks the cutting does not follow, is parsed on one
//! thread while the calling thread interns.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::hash::BuildHasher as _;
use std::iter::Peekable;
use std::num::NonZero;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

use foldhash::fast::RandomState;
use hashbrown::HashTable;
use sophia::api::term::{Term, TermKind};

use super::graph::{DEFAULT_GRAPH, GraphBuilder, Quad, TermId, spell_term};
use super::html::PageOptions;
use super::jsonld::NoContexts;
use super::parse::{
    ParseError, StatementSink, catch_parser_panic, inject_panic, isolated, parse_lines,
    parse_statements, parse_turtle_piece,
};
use super::syntax::Syntax;
use super::turtle_cut::TurtleCutter;
use super::turtle_prep::for_sophia;

/// Documents smaller than this are parsed on the calling thread alone: archives parse many
/// small documents on their own threads, and a thread per document would cost more than it
/// gains.
pub(crate) const PARALLEL_MIN_LEN: usize = 1 << 20;

/// The size of the pieces documents are cut into (then extended to a line end where a piece
/// may end).
const PIECE_LEN: usize = 256 << 10;

/// Statements a TriG parser thread hands over at once (and a piece parsed again on the
/// interning thread is interned by).
const BATCH_STATEMENTS: usize = 4096;

/// Parses a large document of a syntax this module handles into `builder`, returning how
/// the parse ended, or `None` when the document is small or of another syntax (the caller
/// then parses it on its own thread).
pub(crate) fn parse_large(
    body: &[u8],
    syntax: Syntax,
    base: &str,
    builder: &mut GraphBuilder,
) -> Option<Result<(), String>> {
    if body.len() < PARALLEL_MIN_LEN {
        return None;
    }
    match syntax {
        Syntax::NTriples | Syntax::NQuads => Some(parse_on_all_cores(
            body,
            PieceSyntax::Lines(syntax),
            Cutter::Lines,
            builder,
            PIECE_LEN,
        )),
        Syntax::Turtle => Some(parse_turtle_in_pieces(body, base, builder, PIECE_LEN)),
        Syntax::TriG => Some(parse_beside(body, syntax, base, builder)),
        _ => None,
    }
}

/// A Turtle document cut into pieces of at least `piece_len` bytes, parsed on every core.
pub(crate) fn parse_turtle_in_pieces(
    body: &[u8],
    base: &str,
    builder: &mut GraphBuilder,
    piece_len: usize,
) -> Result<(), String> {
    // Rewritten once, before the cutting, so that the cutter and the pieces' parser read
    // comments and long strings alike (and as the grammar does).
    let body = for_sophia(body);
    parse_on_all_cores(
        &body,
        PieceSyntax::Turtle(base),
        Cutter::Turtle(TurtleCutter::new(&body)),
        builder,
        piece_len,
    )
}

/// Statements as spelled by a parser thread. Each distinct term is spelled once per batch
/// (a batch repeats most subjects and predicates), so the interning thread looks up each
/// once.
pub(crate) struct SpelledStatements {
    /// The distinct terms' spellings, back to back, in order of first appearance.
    text: String,
    terms: Vec<SpelledTerm>,
    /// Indexes into `terms`: subject, predicate, object, graph ([`NO_GRAPH`] for the default
    /// graph).
    statements: Vec<[u32; 4]>,
    /// Blank nodes inside triple terms, in the order they are written.
    nested: Vec<NestedBlank>,
    /// Indexes into `terms` by the spelling's hash.
    distinct: HashTable<u32>,
    hasher: RandomState,
    /// Set for a piece of a Turtle document: its rank, added to the labels the parser made
    /// up for `[]` and collections (the piece's own).
    blank_scope: Option<usize>,
}

/// A statement's graph slot in [`SpelledStatements`] when it is in the default graph.
const NO_GRAPH: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct SpelledTerm {
    /// Where the spelling ends in `text` (it starts where the previous one ends).
    end: usize,
    /// The spelling's hash, by the graph's hasher.
    hash: u64,
    /// A blank node, or a triple term with blank nodes inside (the interning thread relabels
    /// them).
    has_blank: bool,
}

/// A blank node label (`_:label`, at `start..end` of `text`) inside triple term `term`.
struct NestedBlank {
    term: usize,
    start: usize,
    end: usize,
}

impl SpelledStatements {
    fn new(hasher: RandomState, blank_scope: Option<usize>) -> Self {
        SpelledStatements {
            text: String::new(),
            terms: Vec::new(),
            statements: Vec::new(),
            nested: Vec::new(),
            distinct: HashTable::new(),
            hasher,
            blank_scope,
        }
    }

    /// Empties the batch, keeping its buffers.
    fn clear(&mut self) {
        self.text.clear();
        self.terms.clear();
        self.statements.clear();
        self.nested.clear();
        self.distinct.clear();
    }

    fn len(&self) -> usize {
        self.statements.len()
    }

    fn spelling(&self, index: usize) -> &str {
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.terms[before].end);
        &self.text[start..self.terms[index].end]
    }

    /// The index of a term, spelled anew or found among the batch's.
    fn term<T: Term>(&mut self, term: &T) -> u32 {
        let start = self.text.len();
        let nested_before = self.nested.len();
        let index = self.terms.len();
        let has_blank = match term.kind() {
            TermKind::BlankNode => {
                self.spell_blank(term);
                true
            }
            TermKind::Triple => {
                self.spell_triple_term(term, index);
                self.nested.len() > nested_before
            }
            _ => {
                spell_term(term, &mut self.text);
                false
            }
        };
        let hash = self.hasher.hash_one(&self.text[start..]);
        let SpelledStatements {
            text,
            terms,
            nested,
            distinct,
            ..
        } = self;
        let spelled_at = |at: u32| {
            let at = at as usize;
            let from = at.checked_sub(1).map_or(0, |before| terms[before].end);
            &text[from..terms[at].end]
        };
        let found = distinct
            .find(hash, |&at| spelled_at(at) == &text[start..])
            .copied();
        if let Some(at) = found {
            text.truncate(start);
            nested.truncate(nested_before);
            return at;
        }
        let index = u32::try_from(index).unwrap_or(NO_GRAPH - 1);
        distinct.insert_unique(hash, index, |&at| terms[at as usize].hash);
        terms.push(SpelledTerm {
            end: text.len(),
            hash,
            has_blank,
        });
        index
    }

    /// `_:label`, with the piece's rank after a label the parser made up (`bn` and four
    /// digits or more; it adds `d` to labels of the document that look like that).
    fn spell_blank<T: Term>(&mut self, term: &T) {
        let start = self.text.len();
        spell_term(term, &mut self.text);
        let label = &self.text[start + 2..];
        let made_up = label.len() >= 6
            && label.starts_with("bn")
            && label[2..].bytes().all(|byte| byte.is_ascii_digit());
        if let Some(scope) = self.blank_scope.filter(|_| made_up) {
            // `/` cannot be in a label, so these never meet the document's own.
            let _ = write!(self.text, "/{scope}");
        }
    }

    /// [`spell_term`], noting where each blank node label is.
    fn spell_triple_term<T: Term>(&mut self, term: &T, index: usize) {
        if let Some([s, p, o]) = term.triple() {
            self.text.push_str("<<( ");
            for part in [s, p, o] {
                self.spell_triple_term(&part, index);
                self.text.push(' ');
            }
            self.text.push_str(")>>");
        } else {
            let start = self.text.len();
            if term.kind() != TermKind::BlankNode {
                spell_term(term, &mut self.text);
            } else {
                self.spell_blank(term);
                self.nested.push(NestedBlank {
                    term: index,
                    start,
                    end: self.text.len(),
                });
            }
        }
    }
}

impl StatementSink for SpelledStatements {
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        let statement = [
            self.term(&subject),
            self.term(&predicate),
            self.term(&object),
            graph.map_or(NO_GRAPH, |graph| self.term(&graph)),
        ];
        self.statements.push(statement);
    }
}

/// Interns spelled statements in their order, as [`GraphBuilder`] does parser statements:
/// the batch's terms in order of first appearance, then its statements.
fn add_spelled(builder: &mut GraphBuilder, spelled: &SpelledStatements, ids: &mut Vec<TermId>) {
    ids.clear();
    let mut nested = spelled.nested.iter().peekable();
    for (index, term) in spelled.terms.iter().enumerate() {
        let spelling = spelled.spelling(index);
        let id = if !term.has_blank {
            builder.graph.intern_hashed(spelling, term.hash)
        } else if let Some(label) = spelling.strip_prefix("_:") {
            builder.blank(label)
        } else {
            let start = term.end - spelling.len();
            relabel_triple_term(builder, &spelled.text, start..term.end, &mut nested)
        };
        ids.push(id);
    }
    let id = |at: u32| ids.get(at as usize).copied().unwrap_or(DEFAULT_GRAPH);
    for &[subject, predicate, object, graph] in &spelled.statements {
        builder.graph.insert(Quad {
            subject: id(subject),
            predicate: id(predicate),
            object: id(object),
            graph: id(graph),
        });
    }
}

/// Interns a triple term with the blank nodes inside it relabelled (they are interned first,
/// left to right, as the sequential parse does).
fn relabel_triple_term<'a>(
    builder: &mut GraphBuilder,
    text: &str,
    span: std::ops::Range<usize>,
    nested: &mut Peekable<impl Iterator<Item = &'a NestedBlank>>,
) -> TermId {
    let index = nested.peek().map_or(0, |blank| blank.term);
    let mut spelling = String::with_capacity(span.len());
    let mut at = span.start;
    while let Some(blank) = nested.next_if(|blank| blank.term == index) {
        spelling.push_str(&text[at..blank.start]);
        let id = builder.blank(&text[blank.start + 2..blank.end]);
        spelling.push_str(builder.graph.term(id));
        at = blank.end;
    }
    spelling.push_str(&text[at..span.end]);
    builder.graph.intern(&spelling)
}

/// A piece of a document, parsed on a parser thread.
#[derive(Clone)]
struct Piece {
    /// Its rank in the document.
    index: usize,
    start: usize,
    end: usize,
    /// Turtle: the directives before the piece, parsed first.
    prelude: Arc<[u8]>,
    /// The lines `prelude` takes.
    prelude_lines: usize,
}

/// How pieces are parsed.
#[derive(Clone, Copy)]
enum PieceSyntax<'a> {
    /// N-Triples or N-Quads.
    Lines(Syntax),
    /// Turtle, against this base IRI.
    Turtle(&'a str),
}

impl<'a> PieceSyntax<'a> {
    /// The syntax, and the base IRI (empty for N-Triples and N-Quads, which need none).
    fn kind(self) -> (Syntax, &'a str) {
        match self {
            PieceSyntax::Lines(syntax) => (syntax, ""),
            PieceSyntax::Turtle(base) => (Syntax::Turtle, base),
        }
    }

    fn parse<S: StatementSink>(
        self,
        body: &[u8],
        piece: &Piece,
        sink: &mut S,
    ) -> Result<(), ParseError> {
        let text = &body[piece.start..piece.end];
        inject_panic(text);
        match self {
            PieceSyntax::Lines(syntax) => parse_lines(text, syntax, sink),
            PieceSyntax::Turtle(base) => parse_turtle_piece(&piece.prelude, text, base, sink),
        }
    }

    /// Statements of `piece`, to be spelled. A Turtle parser numbers the blank nodes of `[]`
    /// and collections from 1 in each piece, so these are told apart by the piece's rank.
    fn spelled(self, piece: &Piece, hasher: &RandomState) -> SpelledStatements {
        let scope = match self {
            PieceSyntax::Lines(_) => None,
            PieceSyntax::Turtle(_) => Some(piece.index),
        };
        SpelledStatements::new(hasher.clone(), scope)
    }
}

/// Where pieces end.
enum Cutter<'a> {
    /// After the first line end at least so far on.
    Lines,
    /// At a line start between statements.
    Turtle(TurtleCutter<'a>),
}

impl Cutter<'_> {
    fn piece(&mut self, body: &[u8], index: usize, start: usize, len: usize) -> Piece {
        let (end, prelude, prelude_lines) = match self {
            Cutter::Lines => (line_cut(body, start, len), Arc::from(&[][..]), 0),
            Cutter::Turtle(cutter) => {
                let (prelude, lines) = cutter.prelude();
                (cutter.cut(start, len), prelude, lines)
            }
        };
        Piece {
            index,
            start,
            end,
            prelude,
            prelude_lines,
        }
    }
}

/// A piece's statements, and whether it failed to parse to its end (the statements then go
/// unused: the piece is parsed again, see [`parse_on_all_cores`]).
struct ParsedPiece {
    statements: SpelledStatements,
    failed: bool,
}

/// One piece to parse, and where its statements go.
struct Job {
    piece: Piece,
    reply: mpsc::SyncSender<ParsedPiece>,
}

/// Pieces are parsed on every core and interned here in document order. A piece that does
/// not parse to its end is parsed again, with the rest of the document, on this thread: the
/// statements before its error are kept, later pieces dropped, and the error is the one of
/// the whole document.
fn parse_on_all_cores(
    body: &[u8],
    syntax: PieceSyntax<'_>,
    cutter: Cutter<'_>,
    builder: &mut GraphBuilder,
    piece_len: usize,
) -> Result<(), String> {
    let workers = thread::available_parallelism().map_or(1, NonZero::get);
    let hasher = builder.graph.term_hasher();
    let (jobs, queue) = mpsc::channel::<Job>();
    let queue = Mutex::new(queue);
    let stopped = AtomicBool::new(false);
    let parsed = thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| parse_pieces(body, syntax, &queue, &stopped, &hasher));
        }
        let pieces = Pieces {
            body,
            cutter,
            piece_len,
            jobs,
            in_flight: 2 * workers + 1,
        };
        let failed = pieces.intern_in_order(builder);
        stopped.store(true, Ordering::Relaxed);
        failed
    });
    match parsed {
        None => Ok(()),
        Some(piece) => parse_rest_here(body, syntax, piece, builder),
    }
}

/// A parser thread: parses the pieces it is given until there are no more.
fn parse_pieces(
    body: &[u8],
    syntax: PieceSyntax<'_>,
    queue: &Mutex<mpsc::Receiver<Job>>,
    stopped: &AtomicBool,
    hasher: &RandomState,
) {
    loop {
        let job = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        if stopped.load(Ordering::Relaxed) {
            return;
        }
        let mut statements = syntax.spelled(&job.piece, hasher);
        // A parser's panic fails the piece: it is parsed again on the interning thread,
        // which reports it.
        let parsed = catch_parser_panic(|| syntax.parse(body, &job.piece, &mut statements));
        let failed = !matches!(parsed, Ok(Ok(())));
        // The receiver is gone only when an earlier piece failed.
        let _ = job.reply.send(ParsedPiece { statements, failed });
    }
}

/// The cutting of a document and the pieces handed out.
struct Pieces<'a> {
    body: &'a [u8],
    cutter: Cutter<'a>,
    piece_len: usize,
    jobs: mpsc::Sender<Job>,
    /// Pieces handed out at most ahead of the one being interned.
    in_flight: usize,
}

impl Pieces<'_> {
    /// Hands out the pieces and interns them in document order; the first piece that failed,
    /// if one did. Dropping `jobs` on return lets the parser threads end.
    fn intern_in_order(mut self, builder: &mut GraphBuilder) -> Option<Piece> {
        let mut pending = VecDeque::with_capacity(self.in_flight);
        let mut ids = Vec::new();
        let mut next = 0;
        let mut index = 0;
        loop {
            while pending.len() < self.in_flight && next < self.body.len() {
                let piece = self.cutter.piece(self.body, index, next, self.piece_len);
                index += 1;
                let (reply, parsed) = mpsc::sync_channel(1);
                next = piece.end;
                if self
                    .jobs
                    .send(Job {
                        piece: piece.clone(),
                        reply,
                    })
                    .is_err()
                {
                    break;
                }
                pending.push_back((piece, parsed));
            }
            let (piece, parsed) = pending.pop_front()?;
            // A parser thread that panicked dropped its reply; the scope re-raises the panic.
            let parsed = parsed.recv().ok()?;
            if parsed.failed {
                return Some(piece);
            }
            add_spelled(builder, &parsed.statements, &mut ids);
        }
    }
}

/// Parses from `piece` to the end of the document on this thread.
fn parse_rest_here(
    body: &[u8],
    syntax: PieceSyntax<'_>,
    piece: Piece,
    builder: &mut GraphBuilder,
) -> Result<(), String> {
    let rest = Piece {
        end: body.len(),
        ..piece
    };
    let hasher = builder.graph.term_hasher();
    let mut sink = InterningSink {
        batch: syntax.spelled(&rest, &hasher),
        ids: Vec::new(),
        builder,
    };
    let (kind, base) = syntax.kind();
    let result = isolated(kind, base, || syntax.parse(body, &rest, &mut sink));
    sink.flush();
    let lines_before = memchr::memchr_iter(b'\n', &body[..rest.start]).count();
    result
        .map_err(|error| error.to_string())?
        .map_err(|error| error.moved(lines_before, rest.prelude_lines).to_string())
}

/// Spells statements and interns them, batch after batch, on the parsing thread.
struct InterningSink<'a> {
    batch: SpelledStatements,
    ids: Vec<TermId>,
    builder: &'a mut GraphBuilder,
}

impl InterningSink<'_> {
    fn flush(&mut self) {
        add_spelled(self.builder, &self.batch, &mut self.ids);
        self.batch.clear();
    }
}

impl StatementSink for InterningSink<'_> {
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        self.batch.statement(subject, predicate, object, graph);
        if self.batch.len() >= BATCH_STATEMENTS {
            self.flush();
        }
    }
}

/// Where the piece starting at `start` ends: just after the first newline at least `len`
/// bytes on, or at the end of the document.
fn line_cut(body: &[u8], start: usize, len: usize) -> usize {
    let from = start.saturating_add(len.max(1));
    if from >= body.len() {
        return body.len();
    }
    memchr::memchr(b'\n', &body[from..]).map_or(body.len(), |at| from + at + 1)
}

/// A parser thread spells the statements while this one interns them (for TriG, whose graph
/// blocks the cutting does not follow).
fn parse_beside(
    body: &[u8],
    syntax: Syntax,
    base: &str,
    builder: &mut GraphBuilder,
) -> Result<(), String> {
    let hasher = builder.graph.term_hasher();
    let (batches, spelled) = mpsc::sync_channel(4);
    thread::scope(|scope| {
        let parser = scope.spawn(move || {
            let mut sink = BatchSender {
                batch: SpelledStatements::new(hasher.clone(), None),
                hasher,
                batches,
            };
            let outcome = parse_statements(
                body,
                syntax,
                base,
                &NoContexts,
                &PageOptions::default(),
                &mut sink,
            );
            sink.send();
            outcome.result
        });
        let mut ids = Vec::new();
        for batch in spelled {
            add_spelled(builder, &batch, &mut ids);
        }
        parser
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Sends spelled statements in batches of [`BATCH_STATEMENTS`].
struct BatchSender {
    batch: SpelledStatements,
    hasher: RandomState,
    batches: mpsc::SyncSender<SpelledStatements>,
}

impl BatchSender {
    fn send(&mut self) {
        let full = std::mem::replace(
            &mut self.batch,
            SpelledStatements::new(self.hasher.clone(), None),
        );
        // The receiver is gone only when the interning thread panicked.
        let _ = self.batches.send(full);
    }
}

impl StatementSink for BatchSender {
    fn statement<T: Term>(&mut self, subject: T, predicate: T, object: T, graph: Option<T>) {
        self.batch.statement(subject, predicate, object, graph);
        if self.batch.len() >= BATCH_STATEMENTS {
            self.send();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "http://example.org/doc";

    /// The graph (as N-Quads) and outcome of the one-thread parse.
    fn sequential(body: &[u8], syntax: Syntax) -> (String, Result<(), String>) {
        let mut builder = GraphBuilder::default();
        let outcome = parse_statements(
            body,
            syntax,
            BASE,
            &NoContexts,
            &PageOptions::default(),
            &mut builder,
        );
        (builder.graph.to_nquads(), outcome.result)
    }

    fn on_all_cores(body: &[u8], syntax: Syntax, piece_len: usize) -> (String, Result<(), String>) {
        let mut builder = GraphBuilder::default();
        let result = match syntax {
            Syntax::Turtle => parse_turtle_in_pieces(body, BASE, &mut builder, piece_len),
            _ => parse_on_all_cores(
                body,
                PieceSyntax::Lines(syntax),
                Cutter::Lines,
                &mut builder,
                piece_len,
            ),
        };
        (builder.graph.to_nquads(), result)
    }

    /// A small deterministic sequence, so that generated documents vary without a seed
    /// to keep.
    fn numbers(count: usize) -> impl Iterator<Item = usize> {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        (0..count).map(move |_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 1000) as usize
        })
    }

    /// N-Triples (or N-Quads with `graphs`) with blank nodes used all over the document,
    /// comments, blank lines, CRLF line ends, repeated statements, escapes and language tags,
    /// and a last line without a newline.
    fn generated_lines(lines: usize, graphs: bool) -> String {
        let mut text = String::from("# generated\n\n");
        for (line, n) in numbers(lines).enumerate() {
            let subject = if n % 3 == 0 {
                format!("_:s{}", n % 40)
            } else {
                format!("<http://e.org/s{}>", n % 200)
            };
            let object = match n % 5 {
                0 => format!("_:o{}", n % 25),
                1 => format!("\"line {line}\\n\\\"q\\\" \\u00E9\"@EN-gb"),
                2 => format!("\"{n}\"^^<http://www.w3.org/2001/XMLSchema#integer>"),
                3 => format!("\"{}\"", n % 7),
                _ => format!("<http://e.org/o{}>", n % 50),
            };
            let graph = match (graphs, n % 4) {
                (false, _) | (true, 0) => String::new(),
                (true, 1) => format!(" _:g{}", n % 3),
                _ => format!(" <http://e.org/g{}>", n % 5),
            };
            let end = match n % 11 {
                0 => " # a comment\r\n",
                1 => "\r\n",
                2 => "\n\n",
                _ => "\n",
            };
            text.push_str(&format!(
                "{subject} <http://e.org/p{}>\t{object}{graph} .{end}",
                n % 9
            ));
        }
        text.push_str("<http://e.org/last> <http://e.org/p> _:s1 .");
        text
    }

    /// `text` with line `number` (1-based) replaced by `line`.
    fn with_line(text: &str, number: usize, line: &str) -> String {
        let mut lines: Vec<&str> = text.split('\n').collect();
        lines[number - 1] = line;
        lines.join("\n")
    }

    #[test]
    fn n_triples_on_all_cores_give_the_sequential_graph() {
        let text = generated_lines(3000, false);
        let (expected, result) = sequential(text.as_bytes(), Syntax::NTriples);
        assert_eq!(result, Ok(()));
        assert!(expected.contains("_:b39 ") && expected.contains("@en-gb"));
        for chunk_len in [1, 97, 4096, 1 << 20] {
            assert_eq!(
                on_all_cores(text.as_bytes(), Syntax::NTriples, chunk_len),
                (expected.clone(), Ok(())),
                "pieces of {chunk_len} bytes"
            );
        }
    }

    #[test]
    fn n_quads_on_all_cores_keep_named_and_blank_graphs() {
        let text = generated_lines(3000, true);
        let (expected, result) = sequential(text.as_bytes(), Syntax::NQuads);
        assert_eq!(result, Ok(()));
        assert!(expected.contains("<http://e.org/g4> .\n"));
        let blank_graph_after_literal = |line: &str| {
            line.contains('"')
                && line
                    .rsplit(' ')
                    .nth(1)
                    .is_some_and(|g| g.starts_with("_:b"))
        };
        assert!(expected.lines().any(blank_graph_after_literal));
        for chunk_len in [1, 301, 8192] {
            assert_eq!(
                on_all_cores(text.as_bytes(), Syntax::NQuads, chunk_len),
                (expected.clone(), Ok(())),
                "pieces of {chunk_len} bytes"
            );
        }
    }

    #[test]
    fn an_error_keeps_what_came_before_and_names_its_line_in_the_whole_document() {
        let text = generated_lines(2000, false);
        let line_count = text.split('\n').count();
        for bad_line in [3, 1000, line_count] {
            let broken = with_line(&text, bad_line, "<http://e.org/s> <http://e.org/p> oops .");
            let (expected, result) = sequential(broken.as_bytes(), Syntax::NTriples);
            let error = result.expect_err("the broken line is an error");
            assert!(
                error.contains(&format!("at line {bad_line}, column 35")),
                "{error}"
            );
            for chunk_len in [64, 5000] {
                assert_eq!(
                    on_all_cores(broken.as_bytes(), Syntax::NTriples, chunk_len),
                    (expected.clone(), Err(error.clone())),
                    "line {bad_line}, pieces of {chunk_len} bytes"
                );
            }
        }
    }

    #[test]
    fn invalid_utf8_in_a_later_piece_is_located_in_the_whole_document() {
        let text = generated_lines(1500, false);
        let mut broken =
            with_line(&text, 700, "<http://e.org/s> <http://e.org/p> \"ab\" .").into_bytes();
        let at = broken
            .windows(4)
            .position(|window| window == b"\"ab\"")
            .expect("the line is there");
        broken[at + 2] = 0xFF;
        let (expected, result) = sequential(&broken, Syntax::NTriples);
        assert_eq!(
            result,
            Err("invalid UTF-8 at line 700, column 37".to_string())
        );
        assert_eq!(
            on_all_cores(&broken, Syntax::NTriples, 100),
            (expected, result)
        );
    }

    #[test]
    fn blank_nodes_inside_triple_terms_are_relabelled_in_order() {
        let mut text = String::new();
        for n in 0..400 {
            text.push_str(&format!(
                "_:a{} <http://e.org/p> <<( _:c{} <http://e.org/q> <<( <http://e.org/x> <http://e.org/r> _:d{} )>> )>> .\n",
                n % 7,
                n % 13,
                n % 5
            ));
            text.push_str(&format!(
                "<http://e.org/s{n}> <http://e.org/p> <<( <http://e.org/x> <http://e.org/q> \"{n}\" )>> .\n"
            ));
        }
        let (expected, result) = sequential(text.as_bytes(), Syntax::NTriples);
        assert_eq!(result, Ok(()));
        assert!(
            expected.contains("_:b0 <http://e.org/p> <<( _:b1 <http://e.org/q> <<( <http://e.org/x> <http://e.org/r> _:b2 )>> )>> .\n"),
            "{}",
            &expected[..300]
        );
        assert_eq!(
            on_all_cores(text.as_bytes(), Syntax::NTriples, 500),
            (expected, Ok(()))
        );
    }

    const TURTLE_DIRECTIVES: &str = "@prefix ex: <http://e.org/> .\n@base <http://b.org/> .\n";

    /// Turtle statements (without directives) with `[]`, collections and long strings.
    fn generated_turtle(statements: usize) -> String {
        let mut text = String::new();
        for (line, n) in numbers(statements).enumerate() {
            match n % 4 {
                0 => text.push_str(&format!(
                    "ex:s{} ex:p [ ex:q {n} ; ex:r _:k{} ] .\n",
                    n % 100,
                    n % 9
                )),
                1 => text.push_str(&format!(
                    "<s{line}> ex:list ( 1 \"two\"@EN _:k{} ) .\n",
                    n % 9
                )),
                2 => text.push_str(&format!("_:k{} ex:p \"\"\"long\n{line}\"\"\" .\n", n % 9)),
                _ => text.push_str(&format!("[] ex:p ex:o{} .\n", n % 30)),
            }
        }
        text
    }

    /// Turtle whose prefix and (relative) base change along the way, with statements over
    /// several lines, labels that look like the parser's own, and relative IRIs.
    fn turtle_with_changing_directives(statements: usize) -> String {
        let mut text = format!("{TURTLE_DIRECTIVES}_:bn0001 ex:p _:bn00001 .\n");
        for (block, lines) in generated_turtle(statements)
            .split_inclusive(".\n")
            .collect::<Vec<_>>()
            .chunks(300)
            .enumerate()
        {
            text.push_str(&format!(
                "@prefix ex: <http://e{block}.org/> .\n@base <b{block}/> .\n"
            ));
            text.push_str(&format!(
                "<rel> ex:p _:bn0001, [ ex:q <rel{block}> ] ;\n  ex:r \"x\" .\n"
            ));
            text.push_str(&lines.concat());
        }
        text
    }

    #[test]
    fn turtle_on_all_cores_gives_the_sequential_graph() {
        let text = turtle_with_changing_directives(3000);
        let (expected, result) = sequential(text.as_bytes(), Syntax::Turtle);
        assert_eq!(result, Ok(()));
        assert!(expected.contains("<http://b.org/b0/b1/b2/rel> <http://e2.org/p> _:b0 .\n"));
        assert!(expected.contains("<http://e9.org/p> "));
        for piece_len in [1, 700, 20_000] {
            assert_eq!(
                on_all_cores(text.as_bytes(), Syntax::Turtle, piece_len),
                (expected.clone(), Ok(())),
                "pieces of {piece_len} bytes"
            );
        }
    }

    #[test]
    fn a_turtle_error_keeps_what_came_before_and_names_its_line_in_the_whole_document() {
        let text = turtle_with_changing_directives(2000);
        let lines: Vec<&str> = text.split('\n').collect();
        let statement_ends: Vec<usize> = (1..=lines.len())
            .filter(|&number| lines[number - 1].ends_with(" ."))
            .collect();
        let count = statement_ends.len();
        for after in [
            statement_ends[2],
            statement_ends[count / 2],
            statement_ends[count - 1],
        ] {
            let mut broken_lines = lines.clone();
            broken_lines.insert(after, "ex:a ex:b ex:c ;; oops .");
            let broken = broken_lines.join("\n");
            let bad_line = after + 1;
            let (expected, result) = sequential(broken.as_bytes(), Syntax::Turtle);
            let error = result.expect_err("the broken line is an error");
            assert!(error.contains(&format!("at line {bad_line}, ")), "{error}");
            for piece_len in [100, 5000] {
                assert_eq!(
                    on_all_cores(broken.as_bytes(), Syntax::Turtle, piece_len),
                    (expected.clone(), Err(error.clone())),
                    "line {bad_line}, pieces of {piece_len} bytes"
                );
            }
        }
    }

    /// Statements of `ex:` names, then `change` (which redefines `ex:` or the base on the
    /// line of a statement), then more: the later statements must use the new directive.
    fn directive_after_a_statement(change: &str) -> String {
        let mut text = String::from("@prefix ex: <http://old.example/> .\n");
        for n in 0..200 {
            text.push_str(&format!("ex:s{n} ex:p <rel{n}> .\n"));
        }
        text.push_str(change);
        for n in 0..200 {
            text.push_str(&format!("ex:t{n} ex:p <rel{n}> .\n"));
        }
        text
    }

    #[test]
    fn a_directive_right_after_a_statement_reaches_the_later_pieces() {
        for (change, expected) in [
            (
                "<http://a.example/s> <http://a.example/p> <http://a.example/o>.@prefix ex: <http://new.example/> .\n",
                "<http://new.example/t199> <http://new.example/p> <http://example.org/rel199> .\n",
            ),
            (
                "ex:x ex:p \"o\".@base <http://b.example/dir/> .\n",
                "<http://old.example/t199> <http://old.example/p> <http://b.example/dir/rel199> .\n",
            ),
            (
                "ex:x ex:p ex:o.@prefix ex: <http://new.example/> .\n",
                "<http://new.example/t199> <http://new.example/p> <http://example.org/rel199> .\n",
            ),
            (
                "ex:x ex:p \"o\"@en-gb.PREFIX ex: <http://new.example/>\n",
                "<http://new.example/t199> <http://new.example/p> <http://example.org/rel199> .\n",
            ),
            (
                "ex:x ex:p 1.PREFIX ex: <http://new.example/>\n",
                "<http://new.example/t199> <http://new.example/p> <http://example.org/rel199> .\n",
            ),
            (
                "ex:x ex:p [ ex:q 2 ].BASE <http://b.example/dir/>\n",
                "<http://old.example/t199> <http://old.example/p> <http://b.example/dir/rel199> .\n",
            ),
            (
                "ex:x ex:p ex:o . # a comment ended by a lone CR\r@prefix ex: <http://new.example/> .\n",
                "<http://new.example/t199> <http://new.example/p> <http://example.org/rel199> .\n",
            ),
        ] {
            let text = directive_after_a_statement(change);
            let (expected_graph, result) = sequential(text.as_bytes(), Syntax::Turtle);
            assert_eq!(result, Ok(()), "{change}");
            assert!(
                expected_graph.ends_with(expected),
                "{change}: {expected_graph}"
            );
            for piece_len in [1, 300, 5000] {
                let (graph, result) = on_all_cores(text.as_bytes(), Syntax::Turtle, piece_len);
                assert_eq!(result, Ok(()), "{change} in pieces of {piece_len} bytes");
                // The first statement that differs, not two whole graphs.
                let differs = graph
                    .lines()
                    .zip(expected_graph.lines())
                    .find(|(got, expected)| got != expected);
                assert_eq!(differs, None, "{change} in pieces of {piece_len} bytes");
                assert_eq!(
                    graph, expected_graph,
                    "{change} in pieces of {piece_len} bytes"
                );
            }
        }
    }

    #[test]
    fn a_large_document_with_a_directive_after_a_statement_parses_as_one_piece_would() {
        let mut text = String::from("@prefix ex: <http://old.example/> .\n");
        let mut n = 0;
        while text.len() < PARALLEL_MIN_LEN + PIECE_LEN {
            text.push_str(&format!(
                "ex:s{n} ex:p \"{n}\" .@prefix ex: <http://e{n}.example/> .\n"
            ));
            n += 1;
        }
        let mut builder = GraphBuilder::default();
        let outcome = parse_large(text.as_bytes(), Syntax::Turtle, BASE, &mut builder);
        assert_eq!(outcome, Some(Ok(())));
        let graph = builder.graph.to_nquads();
        let last = n - 1;
        assert!(
            graph.ends_with(&format!(
                "<http://e{}.example/s{last}> <http://e{}.example/p> \"{last}\" .\n",
                last - 1,
                last - 1
            )),
            "{}",
            &graph[graph.len() - 200..]
        );
        assert_eq!(graph, sequential(text.as_bytes(), Syntax::Turtle).0);
    }

    #[test]
    fn turtle_the_cut_does_not_follow_still_gives_the_sequential_graph() {
        let text = turtle_with_changing_directives(1000).replacen(
            "@prefix ex: <http://e1.org/> .",
            "PREFIX ex: <http://e1.org/>",
            1,
        );
        let (expected, result) = sequential(text.as_bytes(), Syntax::Turtle);
        assert_eq!(result, Ok(()));
        assert!(expected.contains("<http://e2.org/p> "));
        assert_eq!(
            on_all_cores(text.as_bytes(), Syntax::Turtle, 300),
            (expected, Ok(()))
        );
    }

    fn beside(body: &[u8], syntax: Syntax) -> (String, Result<(), String>) {
        let mut builder = GraphBuilder::default();
        let result = parse_beside(body, syntax, BASE, &mut builder);
        (builder.graph.to_nquads(), result)
    }

    #[test]
    fn turtle_spelled_beside_gives_the_sequential_graph_and_error() {
        let text = format!("{TURTLE_DIRECTIVES}{}", generated_turtle(4000));
        let (expected, result) = sequential(text.as_bytes(), Syntax::Turtle);
        assert_eq!(result, Ok(()));
        assert!(expected.len() > 100_000 && expected.contains("_:b3000 "));
        assert_eq!(beside(text.as_bytes(), Syntax::Turtle), (expected, Ok(())));

        let broken = format!("{text}ex:a ex:b ex:c ;; oops .\n");
        let (expected, result) = sequential(broken.as_bytes(), Syntax::Turtle);
        assert!(
            result.as_ref().is_err_and(|e| e.contains("at line ")),
            "{result:?}"
        );
        assert_eq!(
            beside(broken.as_bytes(), Syntax::Turtle),
            (expected, result)
        );
    }

    #[test]
    fn trig_spelled_beside_keeps_graphs() {
        let text = format!(
            "{TURTLE_DIRECTIVES}ex:g {{ {} }}\n_:h {{ ex:a ex:b [ ex:c 1 ] . }}\n",
            generated_turtle(3000)
        );
        let (expected, result) = sequential(text.as_bytes(), Syntax::TriG);
        assert_eq!(result, Ok(()));
        assert!(expected.contains("<http://e.org/g> .\n"));
        assert_eq!(beside(text.as_bytes(), Syntax::TriG), (expected, Ok(())));
    }

    #[test]
    fn small_documents_are_left_to_the_calling_thread() {
        let text = generated_lines(100, false);
        let mut builder = GraphBuilder::default();
        assert!(parse_large(text.as_bytes(), Syntax::NTriples, BASE, &mut builder).is_none());
        assert!(builder.graph.is_empty());
    }

    #[test]
    fn large_documents_parse_to_the_sequential_graph() {
        let text = generated_lines(30_000, true);
        assert!(text.len() > PARALLEL_MIN_LEN);
        let (expected, result) = sequential(text.as_bytes(), Syntax::NQuads);
        assert_eq!(result, Ok(()));
        let mut builder = GraphBuilder::default();
        let outcome = parse_large(text.as_bytes(), Syntax::NQuads, BASE, &mut builder);
        assert_eq!(outcome, Some(Ok(())));
        assert_eq!(builder.graph.to_nquads(), expected);
    }
}
