//! JSON-LD without the network: discovery of remote `@context` references, a document loader
//! fed only by a [`ContextSource`] and the bundled contexts, and a synchronous driver for
//! sophia's asynchronous JSON-LD processor.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use sophia::api::quad::Spog;
use sophia::api::source::QuadSource;
use sophia::iri::Iri;
use sophia::jsonld::loader::{BoxFuture, ClosureLoader};
use sophia::jsonld::{JsonLdError, JsonLdOptions, JsonLdParser, RdfTerm};

/// Where JSON-LD remote contexts come from: a copy captured in the archive, or one fetched
/// earlier by the crawler. Never the live Web: parsing must not cause network traffic.
pub trait ContextSource {
    /// The bytes of the context document published at `url` (an absolute URL as normalised by
    /// the `url` crate), or `None` when no copy is at hand.
    fn context(&self, url: &str) -> Option<Vec<u8>>;
}

/// A [`ContextSource`] that has nothing (the bundled contexts still apply).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoContexts;

impl ContextSource for NoContexts {
    fn context(&self, _url: &str) -> Option<Vec<u8>> {
        None
    }
}

/// The small set of contexts shipped inside ldwarc (see `contexts/README.md` for
/// their provenance): currently the ActivityStreams 2.0 context.
#[derive(Clone, Copy, Debug, Default)]
pub struct BundledContexts;

const ACTIVITYSTREAMS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/contexts/activitystreams.jsonld"
));

impl BundledContexts {
    /// The URLs this source answers for.
    pub fn urls() -> &'static [&'static str] {
        &[
            "https://www.w3.org/ns/activitystreams",
            "http://www.w3.org/ns/activitystreams",
            "https://www.w3.org/ns/activitystreams.jsonld",
            "http://www.w3.org/ns/activitystreams.jsonld",
        ]
    }
}

impl ContextSource for BundledContexts {
    fn context(&self, url: &str) -> Option<Vec<u8>> {
        Self::urls()
            .contains(&url)
            .then(|| ACTIVITYSTREAMS.to_vec())
    }
}

/// What stands in for a context nobody has: it defines nothing, so terms that needed it are
/// dropped, while absolute IRIs and `@id`s still come through.
const EMPTY_CONTEXT: &str = r#"{"@context": {}}"#;

/// At most this many remote contexts are resolved for one document (contexts may import
/// others; this bounds the work a hostile chain can cause).
const MAX_REMOTE_CONTEXTS: usize = 64;

/// JSON nested deeper than this is refused before parsing: the JSON-LD processor recurses
/// once per level, and a deep document must not exhaust the stack.
const MAX_JSON_DEPTH: usize = 256;

/// The stack of the thread that runs the JSON-LD processor. Expansion takes about 130 KiB of
/// stack per nesting level (measured with sophia 0.10 / json-ld 0.15), so the usual 2 MiB
/// thread stack overflows at about 15 levels, which real documents reach. 64 MiB holds
/// [`MAX_JSON_DEPTH`] levels with a margin of two; it is reserved address space, and only the
/// pages a document actually needs are ever touched.
const JSONLD_STACK_BYTES: usize = 64 << 20;

/// The poll budget of the synchronous driver. Our loader answers at once, so the processor
/// completes on its first poll; the budget only guards against a future that never does.
const MAX_POLLS: usize = 1000;

/// Which remote contexts a JSON-LD document used, and which of them had no copy.
#[derive(Debug, Default)]
pub(crate) struct ContextReport {
    /// Every remote context referenced (by the document or by contexts it loads), absolute,
    /// in first-seen order.
    pub(crate) remote: Vec<String>,
    /// The referenced contexts neither source had (or had in unusable form); each was
    /// replaced by an empty context.
    pub(crate) missing: Vec<String>,
}

/// Parses a JSON-LD document, handing each quad to `sink`; returns the context report and
/// the processor's error, if any. Quads are only produced when the whole document expands:
/// JSON-LD has no partial results.
pub(crate) fn parse_json_ld(
    text: &str,
    base: &str,
    contexts: &dyn ContextSource,
    sink: impl FnMut(&Spog<RdfTerm>) + Send,
) -> (ContextReport, Result<(), String>) {
    if let Some(offset) = nesting_exceeds(text.as_bytes(), MAX_JSON_DEPTH) {
        let message = format!("JSON nested deeper than {MAX_JSON_DEPTH} levels at byte {offset}");
        return (ContextReport::default(), Err(message));
    }
    let base_iri = match Iri::new(Arc::<str>::from(base)) {
        Ok(iri) => iri,
        Err(err) => {
            return (
                ContextReport::default(),
                Err(format!("invalid base IRI: {err}")),
            );
        }
    };
    let rewritten = super::jsonld_ids::without_keyword_like_ids(text);
    let text = rewritten.as_deref().unwrap_or(text);
    let rebased = super::jsonld_base::without_invalid_bases(text, base);
    let text = match &rebased {
        Some((text, ignored)) => {
            for value in ignored {
                tracing::warn!(
                    "{base}: JSON-LD @base {value:?} is not an IRI; ignored, so statements \
                     with IRIs relative to it are dropped"
                );
            }
            text.as_str()
        }
        None => text,
    };
    // Contexts are looked up here, on the caller's thread, so `ContextSource` need not be Sync.
    let preloaded = preload_contexts(text, base, contexts);
    let shared = Arc::new(SharedContexts::new(preloaded.documents));
    let loader_contexts = Arc::clone(&shared);
    let result = on_large_stack(move || expand(text, base_iri, loader_contexts, sink));
    let report = finish_report(preloaded.remote, preloaded.missing, &shared);
    (report, result)
}

/// Runs the JSON-LD processor over `text` and hands each quad to `sink`.
fn expand(
    text: &str,
    base: Iri<Arc<str>>,
    contexts: Arc<SharedContexts>,
    mut sink: impl FnMut(&Spog<RdfTerm>),
) -> Result<(), String> {
    // Ordered: the processor otherwise walks maps in hash order, which changes with each
    // process, and so would the order of the statements and the labels of blank nodes.
    let options = JsonLdOptions::new()
        .with_ordered(true)
        .with_base(base)
        .with_document_loader_closure(move || {
            let contexts = Arc::clone(&contexts);
            ClosureLoader::new(move |url: Iri<String>| contexts.load(url.as_str()))
        });
    let parser = JsonLdParser::new_with_options(options);
    match block_on(parser.async_parse_str(text)) {
        Some(mut quads) => {
            // The processor lists nodes in hash order, which changes with each process: the
            // quads are delivered sorted, so that a document always gives the same graph in
            // the same order (and its blank nodes the same labels).
            let mut kept = Vec::new();
            quads
                .for_each_quad(|quad| {
                    if !super::jsonld_ids::mentions_ignored(&quad) {
                        kept.push(quad);
                    }
                })
                .map_err(|err| describe_error(&err, text))?;
            kept.sort_by_cached_key(|([s, p, o], g)| {
                (
                    g.as_ref().map(term_key),
                    term_key(s),
                    term_key(p),
                    term_key(o),
                )
            });
            for quad in &kept {
                sink(quad);
            }
            Ok(())
        }
        None => Err("JSON-LD processing did not complete".to_string()),
    }
}

/// A term's kind and spelling, as a sort key.
fn term_key(term: &RdfTerm) -> (u8, String) {
    use sophia::api::term::{Term, TermKind};
    match term.kind() {
        TermKind::Iri => (
            0,
            term.iri()
                .map(|iri| iri.as_str().to_string())
                .unwrap_or_default(),
        ),
        TermKind::BlankNode => (
            1,
            term.bnode_id()
                .map(|id| id.as_str().to_string())
                .unwrap_or_default(),
        ),
        _ => (
            2,
            format!(
                "{}\u{0}{}\u{0}{}",
                term.lexical_form().as_deref().unwrap_or_default(),
                term.datatype()
                    .map(|d| d.as_str().to_string())
                    .unwrap_or_default(),
                term.language_tag()
                    .map(|t| t.as_str().to_string())
                    .unwrap_or_default()
            ),
        ),
    }
}

/// Runs `work` on a scoped thread with a [`JSONLD_STACK_BYTES`] stack; a panic in the
/// processor becomes an error instead of taking the caller down.
fn on_large_stack(work: impl FnOnce() -> Result<(), String> + Send) -> Result<(), String> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("ldwarc-jsonld".to_string())
            .stack_size(JSONLD_STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|err| format!("cannot start the JSON-LD thread: {err}"))?;
        handle
            .join()
            .unwrap_or_else(|_| Err("the JSON-LD processor panicked".to_string()))
    })
}

/// The remote contexts found by walking the document, and the copies we have of them.
struct Preloaded {
    remote: Vec<String>,
    missing: Vec<String>,
    documents: HashMap<String, String>,
}

/// Walks the document (and every context we have a copy of) for remote context references,
/// and fetches each from the sources, breadth first, up to [`MAX_REMOTE_CONTEXTS`].
fn preload_contexts(text: &str, base: &str, contexts: &dyn ContextSource) -> Preloaded {
    let mut preloaded = Preloaded {
        remote: Vec::new(),
        missing: Vec::new(),
        documents: HashMap::new(),
    };
    let Ok(document) = serde_json::from_str::<Value>(text) else {
        // The processor will report the syntax error with its position.
        return preloaded;
    };
    let mut queue: VecDeque<String> = remote_context_refs(&document, base).into();
    let mut seen = HashSet::new();
    while let Some(url) = queue.pop_front() {
        if !seen.insert(url.clone()) || seen.len() > MAX_REMOTE_CONTEXTS {
            continue;
        }
        preloaded.remote.push(url.clone());
        match usable_context(&url, contexts) {
            Some((text, value)) => {
                queue.extend(remote_context_refs(&value, &url));
                preloaded.documents.insert(url, text);
            }
            None => preloaded.missing.push(url),
        }
    }
    preloaded
}

/// A context document from the caller's source, else the bundled set, provided it is UTF-8
/// JSON with an `@context` member (anything else would make the whole document fail).
fn usable_context(url: &str, contexts: &dyn ContextSource) -> Option<(String, Value)> {
    let bytes = contexts
        .context(url)
        .or_else(|| BundledContexts.context(url))?;
    read_context(bytes).ok()
}

/// A context document's text and JSON, or why it cannot serve as one.
fn read_context(bytes: Vec<u8>) -> Result<(String, Value), String> {
    let text = String::from_utf8(bytes).map_err(|err| {
        let valid = err.utf8_error().valid_up_to();
        format!("not UTF-8 (invalid byte at offset {valid})")
    })?;
    if let Some(offset) = nesting_exceeds(text.as_bytes(), MAX_JSON_DEPTH) {
        return Err(format!(
            "JSON nested deeper than {MAX_JSON_DEPTH} levels at byte {offset}"
        ));
    }
    let value: Value = serde_json::from_str(&text).map_err(|err| format!("not JSON: {err}"))?;
    if value.get("@context").is_none() {
        return Err("JSON without an @context member".to_string());
    }
    Ok((text, value))
}

/// Why a copy of a remote JSON-LD context cannot be used (`not JSON: …`, `not UTF-8 …`,
/// `JSON without an @context member`), or `None` when it can: the same test the parser
/// applies before it treats a context as missing.
pub fn context_problem(bytes: &[u8]) -> Option<String> {
    read_context(bytes.to_vec()).err()
}

/// Every remote context reference in a JSON value, resolved against `base`: string values of
/// `@context` (alone or in arrays) and of `@import`, at any depth.
pub(crate) fn remote_context_refs(value: &Value, base: &str) -> Vec<String> {
    let base = url::Url::parse(base).ok();
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(members) => {
                for (key, member) in members.iter().rev() {
                    if key == "@context" || key == "@import" {
                        collect_refs(member, base.as_ref(), &mut found);
                    }
                    stack.push(member);
                }
            }
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    let mut seen = HashSet::new();
    found.retain(|url| seen.insert(url.clone()));
    found
}

fn collect_refs(value: &Value, base: Option<&url::Url>, found: &mut Vec<String>) {
    let strings: Vec<&str> = match value {
        Value::String(reference) => vec![reference.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for reference in strings {
        let resolved = match base {
            Some(base) => base.join(reference),
            None => url::Url::parse(reference),
        };
        if let Ok(url) = resolved {
            found.push(url.to_string());
        }
    }
}

/// The contexts the loader serves, and the URLs it was asked for that we had no copy of
/// (the processor may find references our walk did not, e.g. in unusual places).
struct SharedContexts {
    documents: HashMap<String, String>,
    unexpected: Mutex<Vec<String>>,
}

impl SharedContexts {
    fn new(documents: HashMap<String, String>) -> Self {
        SharedContexts {
            documents,
            unexpected: Mutex::new(Vec::new()),
        }
    }

    /// The loader: a preloaded copy, or the empty context (never the network).
    fn load(&self, url: &str) -> BoxFuture<'static, Result<String, String>> {
        let key = normalise_url(url);
        let text = match self.documents.get(&key) {
            Some(text) => text.clone(),
            None => {
                if let Ok(mut unexpected) = self.unexpected.lock() {
                    unexpected.push(key);
                }
                EMPTY_CONTEXT.to_string()
            }
        };
        Box::pin(std::future::ready(Ok(text)))
    }
}

/// The URL as the `url` crate writes it, so `http://Example.org` and `http://example.org/`
/// find the same copy.
fn normalise_url(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_string(), |parsed| parsed.to_string())
}

fn finish_report(
    mut remote: Vec<String>,
    mut missing: Vec<String>,
    shared: &SharedContexts,
) -> ContextReport {
    let unexpected = shared
        .unexpected
        .lock()
        .map(|list| list.clone())
        .unwrap_or_default();
    for url in unexpected {
        if !remote.contains(&url) {
            remote.push(url.clone());
        }
        if !missing.contains(&url) {
            missing.push(url);
        }
    }
    ContextReport { remote, missing }
}

/// Runs a future that never waits on I/O to completion on the current thread. Unlike
/// sophia's own synchronous path, this needs no Tokio runtime, so it is safe to call from
/// inside one (though, being CPU-bound, callers in async code should use `spawn_blocking`).
fn block_on<F: Future>(future: F) -> Option<F::Output> {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    for _ in 0..MAX_POLLS {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return Some(output);
        }
    }
    None
}

/// The byte offset where JSON nesting first exceeds `limit` (strings are skipped).
fn nesting_exceeds(json: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (offset, byte) in json.iter().enumerate() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some(offset);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// One line: JSON syntax errors with line and column, others as the processor says them.
fn describe_error(err: &JsonLdError, text: &str) -> String {
    let message = match err {
        JsonLdError::InvalidJson { error, location } => {
            let (line, column) = line_column(text, location.span().start());
            format!("invalid JSON at line {line}, column {column}: {error}")
        }
        other => other.to_string(),
    };
    message.replace(['\n', '\r'], " ")
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|byte| **byte == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |index| index + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sophia::api::quad::Quad;
    use sophia::api::term::Term;

    struct OneContext(&'static str, &'static str);

    impl ContextSource for OneContext {
        fn context(&self, url: &str) -> Option<Vec<u8>> {
            (url == self.0).then(|| self.1.as_bytes().to_vec())
        }
    }

    fn subjects_and_objects(
        text: &str,
        source: &dyn ContextSource,
    ) -> (Vec<String>, ContextReport) {
        let mut iris = Vec::new();
        let (report, result) = parse_json_ld(text, "http://example.org/doc", source, |quad| {
            for term in [quad.s(), quad.o()] {
                if let Some(iri) = term.iri() {
                    iris.push(iri.as_str().to_string());
                }
            }
        });
        result.unwrap();
        (iris, report)
    }

    #[test]
    fn finds_context_references_at_any_depth() {
        let document: Value = serde_json::from_str(
            r#"{"@context": ["ctx/a.jsonld", {"@import": "http://other.example/b"}],
                "@graph": [{"@context": "https://third.example/c#frag", "@id": "x"}],
                "again": {"@context": "ctx/a.jsonld"}}"#,
        )
        .unwrap();
        assert_eq!(
            remote_context_refs(&document, "http://example.org/dir/doc"),
            vec![
                "http://example.org/dir/ctx/a.jsonld",
                "http://other.example/b",
                "https://third.example/c#frag",
            ]
        );
    }

    #[test]
    fn a_served_context_defines_terms() {
        let context = r#"{"@context": {"knows": {"@id": "http://xmlns.com/foaf/0.1/knows", "@type": "@id"}}}"#;
        let source = OneContext("http://example.org/ctx", context);
        let text = r##"{"@context": "/ctx", "@id": "#me", "knows": "bob"}"##;
        let (iris, report) = subjects_and_objects(text, &source);
        assert_eq!(
            iris,
            vec!["http://example.org/doc#me", "http://example.org/bob"]
        );
        assert_eq!(report.remote, vec!["http://example.org/ctx"]);
        assert!(report.missing.is_empty());
    }

    #[test]
    fn a_missing_context_is_empty_and_reported() {
        let text = r##"{"@context": "/ctx", "@id": "#me", "knows": "bob",
                       "http://xmlns.com/foaf/0.1/page": {"@id": "page"}}"##;
        let (iris, report) = subjects_and_objects(text, &NoContexts);
        assert_eq!(
            iris,
            vec!["http://example.org/doc#me", "http://example.org/page"]
        );
        assert_eq!(report.missing, vec!["http://example.org/ctx"]);
    }

    #[test]
    fn nested_context_imports_are_followed() {
        struct Chain;
        impl ContextSource for Chain {
            fn context(&self, url: &str) -> Option<Vec<u8>> {
                let text = match url {
                    "http://example.org/outer" => r#"{"@context": ["inner"]}"#,
                    "http://example.org/inner" => {
                        r#"{"@context": {"seeAlso": {"@id": "http://www.w3.org/2000/01/rdf-schema#seeAlso", "@type": "@id"}}}"#
                    }
                    _ => return None,
                };
                Some(text.as_bytes().to_vec())
            }
        }
        let text = r#"{"@context": "/outer", "@id": "/a", "seeAlso": "/b"}"#;
        let (iris, report) = subjects_and_objects(text, &Chain);
        assert_eq!(iris, vec!["http://example.org/a", "http://example.org/b"]);
        assert_eq!(
            report.remote,
            vec!["http://example.org/outer", "http://example.org/inner"]
        );
        assert!(report.missing.is_empty());
    }

    #[test]
    fn bundled_activitystreams_context_is_used() {
        let text = r#"{"@context": "https://www.w3.org/ns/activitystreams",
                       "id": "https://social.example/notes/1", "type": "Note",
                       "attributedTo": "https://social.example/users/alice"}"#;
        let (iris, report) = subjects_and_objects(text, &NoContexts);
        assert!(iris.contains(&"https://social.example/users/alice".to_string()));
        assert!(iris.contains(&"http://www.w3.org/ns/activitystreams#Note".to_string()));
        assert!(report.missing.is_empty());
        assert_eq!(report.remote, vec!["https://www.w3.org/ns/activitystreams"]);
    }

    #[test]
    fn an_unusable_context_copy_counts_as_missing() {
        let source = OneContext("http://example.org/ctx", "<html>not json</html>");
        let text = r#"{"@context": "/ctx", "@id": "/a", "http://ex/p": {"@id": "/b"}}"#;
        let (iris, report) = subjects_and_objects(text, &source);
        assert_eq!(iris, vec!["http://example.org/a", "http://example.org/b"]);
        assert_eq!(report.missing, vec!["http://example.org/ctx"]);
    }

    #[test]
    fn deep_nesting_is_refused_and_moderate_nesting_parses() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let (_, result) = parse_json_ld(&deep, "http://example.org/", &NoContexts, |_| {});
        assert!(result.unwrap_err().contains("nested deeper"));
        let lists = r#"{"@id": "/a", "http://ex/p": "#.to_string()
            + &"[".repeat(120)
            + r#"{"@id": "/b"}"#
            + &"]".repeat(120)
            + "}";
        let (iris, _) = subjects_and_objects(&lists, &NoContexts);
        assert!(iris.contains(&"http://example.org/b".to_string()));
        // Node objects nested right up to the limit (the costliest case) fit the stack.
        let mut nodes = String::from(r#"{"@id": "/leaf"}"#);
        for _ in 1..MAX_JSON_DEPTH {
            nodes = format!(r#"{{"@id": "/n", "http://ex/p": {nodes}}}"#);
        }
        let (iris, _) = subjects_and_objects(&nodes, &NoContexts);
        assert!(iris.contains(&"http://example.org/leaf".to_string()));
    }

    #[test]
    fn invalid_json_reports_line_and_column() {
        let (_, result) = parse_json_ld(
            "{\n  \"@id\": ,\n}",
            "http://example.org/",
            &NoContexts,
            |_| {},
        );
        let message = result.unwrap_err();
        assert!(message.contains("line 2"), "{message}");
    }

    #[test]
    fn runs_inside_a_tokio_runtime() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let count = runtime.block_on(async {
            let mut count = 0;
            let (_, result) = parse_json_ld(
                r#"{"@id": "http://a.example/", "http://ex/p": {"@id": "http://b.example/"}}"#,
                "http://example.org/",
                &NoContexts,
                |_| count += 1,
            );
            result.unwrap();
            count
        });
        assert_eq!(count, 1);
    }

    #[test]
    fn line_column_counts_characters() {
        assert_eq!(line_column("ab\ncé\nx", 0), (1, 1));
        assert_eq!(line_column("ab\ncé\nx", 3), (2, 1));
        assert_eq!(line_column("ab\ncé\nx", 7), (3, 1));
        assert_eq!(line_column("ab\ncé\nx", 6), (2, 3));
    }
}
