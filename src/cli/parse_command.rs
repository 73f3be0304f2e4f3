//! `ldwarc parse`: local RDF documents and HTML pages to any RDF syntax, outside any archive.

use std::io::{self, Read, Write};
use std::path::Path;

use clap::Args;

use super::output;
use ldwarc_rdf::{
    ContextSource, EmbeddedSyntaxes, Graph, MicrodataRegistry, NoContexts, OutputFormat,
    PageOptions, ParsedGraph, RdfError, RdfaGraph, SNIFF_LEN, Syntax, charset_parameter,
    choose_syntaxes, parse_graph, parse_page_with, strict_syntax, write_graph,
};

/// Arguments of `ldwarc parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// RDF documents or HTML/XHTML pages; `-` reads standard input.
    #[arg(required = true, value_name = "FILE", value_parser = super::flags::input_file_or_stdin_text)]
    files: Vec<String>,
    /// Base IRI to resolve relative references against (default: each file's file:// URL;
    /// a page's <base href> still applies).
    #[arg(long, value_name = "IRI")]
    base: Option<String>,
    /// The documents' media type, as a server would send it (default: from the file name
    /// extension); the content is sniffed as well, as replay does.
    #[arg(long, value_name = "TYPE")]
    media_type: Option<String>,
    /// Output syntax (default: nt, or nq when the graph has named graphs).
    #[arg(long, value_name = "nt|ttl|nq|trig|jsonld|rdfxml")]
    format: Option<OutputFormat>,
    /// A Microdata vocabulary registry (JSON, as the W3C Microdata to RDF note defines it) to
    /// use beside the one shipped with ldwarc.
    #[arg(long, value_name = "FILE")]
    microdata_registry: Option<std::path::PathBuf>,
    /// Print on stderr, per page, how many statements each embedded syntax gave (RDFa,
    /// Microdata, JSON-LD blocks, Turtle-family blocks).
    #[arg(long)]
    report: bool,
    /// A local copy of the document published at URL: a JSON-LD context, or an RDFa
    /// vocabulary (a page whose @vocab names it gets the sub-property, sub-class and
    /// equivalence statements it entails). Repeatable; nothing is fetched.
    #[arg(long, value_name = "URL=FILE")]
    document: Vec<String>,
    /// The RDFa graph of pages: output (the data), processor (the RDFa processor graph:
    /// an rdfa:Error or rdfa:Warning per problem, and no data) or both.
    #[arg(long, value_name = "output|processor|both", default_value = "output")]
    rdfa_graph: RdfaGraph,
    /// Keep only these embedded syntaxes of pages (comma-separated).
    #[arg(
        long,
        value_name = "rdfa,microdata,jsonld,turtle",
        default_value = "rdfa,microdata,jsonld,turtle"
    )]
    syntax: EmbeddedSyntaxes,
}

/// Documents given with `--document`, by URL.
struct LocalDocuments(std::collections::HashMap<String, Vec<u8>>);

impl LocalDocuments {
    fn read(specs: &[String]) -> io::Result<LocalDocuments> {
        let mut documents = std::collections::HashMap::new();
        for spec in specs {
            let Some((url, file)) = spec.split_once('=') else {
                return Err(invalid(format!("--document {spec}: expected URL=FILE")));
            };
            let mut url = url::Url::parse(url)
                .map_err(|e| invalid(format!("--document {spec}: {url} is not a URL: {e}")))?;
            url.set_fragment(None);
            let bytes = std::fs::read(file)
                .map_err(|e| invalid(format!("--document {spec}: {file}: {e}")))?;
            documents.insert(url.to_string(), bytes);
        }
        Ok(LocalDocuments(documents))
    }
}

impl ContextSource for LocalDocuments {
    fn context(&self, url: &str) -> Option<Vec<u8>> {
        self.0.get(url).cloned()
    }
}

/// `ldwarc parse`.
pub fn parse_command(args: ParseArgs) -> io::Result<i32> {
    if let Some(base) = &args.base
        && oxiri::Iri::parse(base.as_str()).is_err()
    {
        return Err(invalid(format!("--base {base}: not an absolute IRI")));
    }
    let registry = match &args.microdata_registry {
        None => MicrodataRegistry::shipped().clone(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
            let extra = MicrodataRegistry::from_json(&text)
                .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
            MicrodataRegistry::shipped().clone().merged(extra)
        }
    };
    let documents = LocalDocuments::read(&args.document)?;
    let mut graphs = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let parsed = parse_file(file, &args, &registry, &documents)?;
        if let Some(rejected) = parsed.embedded.as_ref().and_then(|e| e.rejected.first()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{file}: {rejected}: invalid Microdata, nothing written"),
            ));
        }
        report(file, &parsed, args.report);
        graphs.push(parsed.graph);
    }
    let graph = merge(graphs);
    let format = args.format.unwrap_or(if graph.has_named_graphs() {
        OutputFormat::NQuads
    } else {
        OutputFormat::NTriples
    });
    let mut out = output::stdout();
    write_graph(&graph, format, args.base.as_deref(), &mut out)
        .map_err(|e| io::Error::other(e.to_string()))?;
    out.flush()?;
    Ok(0)
}

fn parse_file(
    file: &str,
    args: &ParseArgs,
    registry: &MicrodataRegistry,
    documents: &LocalDocuments,
) -> io::Result<ParsedGraph> {
    let (bytes, default_base) = read_input(file)?;
    let base = args.base.clone().unwrap_or(default_base);
    let content_type = args
        .media_type
        .clone()
        .or_else(|| media_type_of(Path::new(file)).map(str::to_string));
    let unreadable = |e: String| io::Error::new(io::ErrorKind::InvalidData, format!("{file}: {e}"));
    if let Some(strict) = content_type.as_deref().and_then(strict_syntax) {
        return parse_strict(&bytes, strict, &base, file);
    }
    let syntaxes = choose_syntaxes(
        content_type.as_deref(),
        &bytes[..bytes.len().min(SNIFF_LEN)],
    );
    match syntaxes.first() {
        // Asked for explicitly, a page without data is an empty graph (with a warning), not
        // an error as it is for the archive, where such a page is no RDF document.
        Some(&page) if page.is_page() => {
            let options = PageOptions {
                xhtml: page == Syntax::Xhtml,
                charset: content_type.as_deref().and_then(charset_parameter),
                syntaxes: args.syntax,
                rdfa_graph: args.rdfa_graph,
            };
            let (graph, report) = parse_page_with(&bytes, &options, &base, documents, registry)
                .map_err(|e| unreadable(e.to_string()))?;
            Ok(ParsedGraph {
                graph,
                syntax: page,
                error: None,
                remote_contexts: report.remote_contexts.clone(),
                missing_contexts: report.missing_contexts.clone(),
                embedded: Some(report),
            })
        }
        _ => {
            parse_graph(&bytes, &syntaxes, &base, documents).map_err(|e| unreadable(e.to_string()))
        }
    }
}

/// A document declared N-Triples or N-Quads is read as exactly that: no Turtle fallback, and
/// a document that does not parse to its end is an error naming the file and line, not a
/// partial graph (a negative N-Triples test is often valid Turtle).
fn parse_strict(bytes: &[u8], syntax: Syntax, base: &str, file: &str) -> io::Result<ParsedGraph> {
    let name = match syntax {
        Syntax::NQuads => "N-Quads",
        _ => "N-Triples",
    };
    let invalid = |detail: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{file}: not valid {name}: {detail}"),
        )
    };
    match parse_graph(bytes, &[syntax], base, &NoContexts) {
        Ok(parsed) => match &parsed.error {
            Some(error) => Err(invalid(error)),
            None => Ok(parsed),
        },
        Err(RdfError::Unparseable { detail, .. }) => {
            let prefix = format!("as {} (", syntax.media_type());
            let detail = detail
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(')'))
                .unwrap_or(&detail);
            Err(invalid(detail))
        }
        Err(error) => Err(invalid(&error.to_string())),
    }
}

/// The bytes of a file (or standard input) and its default base IRI.
fn read_input(file: &str) -> io::Result<(Vec<u8>, String)> {
    if file == "-" {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| io::Error::other(format!("standard input: {e}")))?;
        return Ok((bytes, "file:///dev/stdin".to_string()));
    }
    let path = Path::new(file);
    let bytes = std::fs::read(path).map_err(|e| io::Error::other(format!("{file}: {e}")))?;
    let base = std::fs::canonicalize(path)
        .ok()
        .and_then(|absolute| url::Url::from_file_path(absolute).ok())
        .map_or_else(|| "file:///".to_string(), String::from);
    Ok((bytes, base))
}

/// The media type a file name extension stands for.
fn media_type_of(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    Syntax::all()
        .into_iter()
        .chain([Syntax::Html, Syntax::Xhtml])
        .find(|syntax| syntax.extensions().contains(&extension.as_str()))
        .map(|syntax| syntax.media_type())
}

fn report(file: &str, parsed: &ParsedGraph, summary: bool) {
    if parsed.embedded.is_some() && parsed.graph.is_empty() {
        tracing::warn!(target: super::logging::CLI_TARGET, "{file}: no embedded RDF (RDFa, Microdata or data blocks)");
    }
    if let Some(error) = &parsed.error {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{file}: partial graph ({} statements before: {error})",
            parsed.graph.len()
        );
    }
    for context in &parsed.missing_contexts {
        tracing::warn!(
            target: super::logging::CLI_TARGET, "{file}: JSON-LD context {context} is not available offline; terms it defines were dropped"
        );
    }
    let Some(embedded) = &parsed.embedded else {
        return;
    };
    for problem in &embedded.errors {
        tracing::warn!(target: super::logging::CLI_TARGET, "{file}: {problem}");
    }
    if summary {
        tracing::info!(target: super::logging::NOTICE_TARGET, "{file}: {}", embedded.summary());
    }
}

/// One graph of several documents, each document's blank nodes kept apart.
fn merge(mut graphs: Vec<Graph>) -> Graph {
    if graphs.len() == 1 {
        return graphs.pop().unwrap_or_default();
    }
    let mut merged = Graph::new();
    for (index, graph) in graphs.iter().enumerate() {
        let spell = |id| {
            let term = graph.term(id);
            match term.strip_prefix("_:") {
                Some(label) => format!("_:d{index}{label}"),
                None => term.to_string(),
            }
        };
        for quad in graph.quads() {
            let name = (quad.graph != ldwarc_rdf::DEFAULT_GRAPH).then(|| spell(quad.graph));
            merged.insert_spelled(
                &spell(quad.subject),
                &spell(quad.predicate),
                &spell(quad.object),
                name.as_deref(),
            );
        }
    }
    merged
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// `ldwarc parse`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const PARSE_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc parse page.html --base https://example.org/page",
            "the RDFa, Microdata and JSON-LD of a web page, as N-Triples",
        ),
        (
            "curl -s https://example.org/data.ttl | ldwarc parse - --media-type text/turtle --format jsonld",
            "any RDF syntax to any other",
        ),
        (
            "ldwarc parse --report page.html",
            "which syntaxes found how many statements",
        ),
    ],
    exit_status: &[],
    environment: &[],
    files: &[(
        "FILE",
        "an RDF document or an HTML/XHTML page; - for standard input (.nt and .nq files are read strictly: a line that is only Turtle is an error)",
    )],
};
