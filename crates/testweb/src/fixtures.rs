//! Builds a [`Web`] from a fixture directory (`fixtures/` in this crate, also
//! compiled into the library so `ldwarc demo` works anywhere).
//!
//! Layout: `seeds.txt` (one URL a line), then one directory per host holding an optional
//! `_site.toml` (robots.txt, latency, 303s, redirects, hostile paths) and one `.ttl` file per
//! document: `<host>/<path>.ttl` serves `http://<host>/<path>`, `_index.ttl` stands for a path
//! ending in `/`, and `<path>.epoch<N>.ttl` is the graph from epoch N on. The `.ttl` files are
//! line-based Turtle: `@prefix` lines and one `subject predicate object .` triple a line, IRIs
//! relative to the document URL, plain literals, `_:` blank nodes, `#` comments.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use url::Url;

use super::TestWebError;
use super::model::{Doc, Host, Hostile, Resource, Robots, Term, Triple, Web, split_url};

/// `(path, contents)` of fixture files, compiled in from `fixtures/`.
macro_rules! embedded_files {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../fixtures/", $path)))),*]
    };
}

/// The fixture web's files, compiled in: (path relative to `fixtures/`, contents).
const EMBEDDED: &[(&str, &str)] = embedded_files![
    "seeds.txt",
    "beta.example/_site.toml",
    "beta.example/catalog.ttl",
    "beta.example/datasets/d1.ttl",
    "beta.example/datasets/d1.epoch1.ttl",
    "beta.example/datasets/d2.ttl",
    "beta.example/datasets/d3.ttl",
    "data.alpha.example/_site.toml",
    "data.alpha.example/doc/dataset.ttl",
    "data.alpha.example/doc/hidden.ttl",
    "data.alpha.example/doc/item1.ttl",
    "data.alpha.example/doc/item2.ttl",
    "data.alpha.example/private/secret.ttl",
    "gamma.example/_site.toml",
    "gamma.example/things/cog.ttl",
    "gamma.example/things/gadget.ttl",
    "gamma.example/things/sprocket.ttl",
    "gamma.example/things/widget.ttl",
    "mirror.gamma.example/_site.toml",
    "mirror.gamma.example/things/gadget.ttl",
    "people.delta.example/alice.ttl",
    "people.delta.example/alice.epoch1.ttl",
    "people.delta.example/alice.epoch2.ttl",
    "people.delta.example/bob.ttl",
    "people.delta.example/carol.ttl",
    "people.delta.example/carol.epoch1.ttl",
    "people.delta.example/dave.ttl",
    "people.delta.example/erin.ttl",
    "vocab.delta.example/ns.ttl",
    "vocab.delta.example/ns.epoch1.ttl",
    "www.alpha.example/_site.toml",
    "www.alpha.example/about.ttl",
    "www.alpha.example/history.ttl",
    "www.alpha.example/team.ttl",
];

/// `_site.toml`: per-host settings.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteFile {
    latency_ms: Option<u64>,
    robots: Option<String>,
    robots_status: Option<u16>,
    robots_huge_bytes: Option<usize>,
    robots_hang: Option<bool>,
    #[serde(default)]
    see_other: BTreeMap<String, String>,
    #[serde(default)]
    redirect: BTreeMap<String, RedirectEntry>,
    #[serde(default)]
    hostile: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RedirectEntry {
    status: u16,
    to: String,
}

fn fixture_error(file: &str, line: usize, message: impl Into<String>) -> TestWebError {
    TestWebError::Fixture {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

impl Web {
    /// The fixture directory of this source tree, `<crate>/fixtures`.
    pub fn fixture_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
    }

    /// The fixture web compiled into the library (the same files as [`Web::fixture_dir`]).
    pub fn fixture() -> Result<Web, TestWebError> {
        let files = EMBEDDED
            .iter()
            .map(|(path, text)| (path.to_string(), text.to_string()));
        build_web(files)
    }

    /// The seed URLs of the fixture web (`fixtures/seeds.txt`).
    pub fn fixture_seeds() -> Vec<String> {
        EMBEDDED
            .iter()
            .find(|(path, _)| *path == "seeds.txt")
            .map(|(_, text)| seed_lines(text).map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// Reads a fixture web from a directory laid out as described in this module.
    pub fn from_fixtures(dir: &Path) -> Result<Web, TestWebError> {
        build_web(read_fixture_dir(dir)?)
    }
}

/// Every file under `dir` as (relative path with `/` separators, contents).
fn read_fixture_dir(dir: &Path) -> Result<Vec<(String, String)>, TestWebError> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| TestWebError::Io {
            path: e.path().unwrap_or(dir).to_path_buf(),
            source: e.into(),
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        let text = std::fs::read_to_string(path).map_err(|source| TestWebError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let relative = path.strip_prefix(dir).unwrap_or(path);
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        files.push((parts.join("/"), text));
    }
    Ok(files)
}

fn seed_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Documents being collected: (host, path) → epoch → triples.
type DocEpochs = BTreeMap<(String, String), BTreeMap<usize, Vec<Triple>>>;

fn build_web(files: impl IntoIterator<Item = (String, String)>) -> Result<Web, TestWebError> {
    let mut web = Web::new();
    let mut documents = DocEpochs::new();
    for (path, text) in files {
        match path.split_once('/') {
            None if path == "seeds.txt" => web.seeds = parse_seeds(&path, &text)?,
            None if path.ends_with(".md") => {}
            None => {
                return Err(fixture_error(
                    &path,
                    0,
                    "unexpected file at the fixture root",
                ));
            }
            Some((host, rest)) => {
                add_host_file(&mut web, &mut documents, host, rest, &path, &text)?
            }
        }
    }
    for ((host, path), epochs) in documents {
        let doc = doc_from_epochs(&host, &path, epochs)?;
        let resources = &mut web.hosts.entry(host.clone()).or_default().resources;
        if resources
            .insert(path.clone(), Resource::Document(doc))
            .is_some()
        {
            let file = format!("{host}{path}");
            return Err(fixture_error(
                &file,
                0,
                "path is both a document and a redirect",
            ));
        }
    }
    Ok(web)
}

fn parse_seeds(file: &str, text: &str) -> Result<Vec<String>, TestWebError> {
    seed_lines(text)
        .enumerate()
        .map(|(i, line)| match split_url(line) {
            Some((host, path)) => Ok(format!("http://{host}{path}")),
            None => Err(fixture_error(
                file,
                i + 1,
                format!("not an http URL: {line}"),
            )),
        })
        .collect()
}

fn add_host_file(
    web: &mut Web,
    documents: &mut DocEpochs,
    host: &str,
    rest: &str,
    file: &str,
    text: &str,
) -> Result<(), TestWebError> {
    if host != host.to_ascii_lowercase() || split_url(&format!("http://{host}/")).is_none() {
        return Err(fixture_error(
            file,
            0,
            "host directory must be a lower-case host name",
        ));
    }
    let entry = web.hosts.entry(host.to_string()).or_default();
    if rest == "_site.toml" {
        return apply_site(entry, host, file, text);
    }
    let Some(stem) = rest.strip_suffix(".ttl") else {
        return Err(fixture_error(
            file,
            0,
            "expected a .ttl document or _site.toml",
        ));
    };
    let (stem, epoch) = split_epoch(stem);
    let path = normalise_path(host, &document_path(stem), file)?;
    let triples = parse_turtle_lines(file, text, &format!("http://{host}{path}"))?;
    let epochs = documents.entry((host.to_string(), path)).or_default();
    if epochs.insert(epoch, triples).is_some() {
        return Err(fixture_error(file, 0, "the same document and epoch twice"));
    }
    Ok(())
}

/// `a/b.epoch2` → (`a/b`, 2); anything else is epoch 0.
fn split_epoch(stem: &str) -> (&str, usize) {
    if let Some((base, suffix)) = stem.rsplit_once('.')
        && let Some(number) = suffix.strip_prefix("epoch")
        && let Ok(epoch) = number.parse::<usize>()
    {
        return (base, epoch);
    }
    (stem, 0)
}

/// The URL path of a document file stem: `_index` stands for an empty last segment.
fn document_path(stem: &str) -> String {
    match stem.strip_suffix("_index") {
        Some(dir) if dir.is_empty() || dir.ends_with('/') => format!("/{dir}"),
        _ => format!("/{stem}"),
    }
}

/// A path (plus query) as a client requests it, normalised like the server normalises.
fn normalise_path(host: &str, path: &str, file: &str) -> Result<String, TestWebError> {
    if !path.starts_with('/') {
        return Err(fixture_error(
            file,
            0,
            format!("path must start with '/': {path}"),
        ));
    }
    split_url(&format!("http://{host}{path}"))
        .map(|(_, p)| p)
        .ok_or_else(|| fixture_error(file, 0, format!("not a usable path: {path}")))
}

fn doc_from_epochs(
    host: &str,
    path: &str,
    epochs: BTreeMap<usize, Vec<Triple>>,
) -> Result<Doc, TestWebError> {
    let last = epochs.keys().next_back().copied().unwrap_or(0);
    let mut graphs: Vec<Vec<Triple>> = Vec::with_capacity(last + 1);
    for epoch in 0..=last {
        match (epochs.get(&epoch), graphs.last()) {
            (Some(graph), _) => graphs.push(graph.clone()),
            (None, Some(previous)) => graphs.push(previous.clone()),
            (None, None) => {
                let file = format!("{host}{path}");
                return Err(fixture_error(&file, 0, "a document needs an epoch-0 file"));
            }
        }
    }
    Ok(Doc { epochs: graphs })
}

fn toml_line(text: &str, error: &toml::de::Error) -> usize {
    error.span().map_or(0, |span| {
        text[..span.start.min(text.len())].lines().count().max(1)
    })
}

fn apply_site(
    host_entry: &mut Host,
    host: &str,
    file: &str,
    text: &str,
) -> Result<(), TestWebError> {
    let site: SiteFile = toml::from_str(text)
        .map_err(|e| fixture_error(file, toml_line(text, &e), e.message().to_string()))?;
    host_entry.latency = Duration::from_millis(site.latency_ms.unwrap_or(0));
    host_entry.robots = site_robots(&site).map_err(|m| fixture_error(file, 0, m))?;
    for (path, target) in &site.see_other {
        let path = normalise_path(host, path, file)?;
        insert_unique(host_entry, path, Resource::SeeOther(target.clone()), file)?;
    }
    for (path, redirect) in &site.redirect {
        if !matches!(redirect.status, 301 | 302 | 307 | 308) {
            let message = format!(
                "redirect status must be 301, 302, 307 or 308, not {}",
                redirect.status
            );
            return Err(fixture_error(file, 0, message));
        }
        let path = normalise_path(host, path, file)?;
        let resource = Resource::Redirect(redirect.status, redirect.to.clone());
        insert_unique(host_entry, path, resource, file)?;
    }
    for (path, spec) in &site.hostile {
        let behaviour = parse_hostile(spec)
            .ok_or_else(|| fixture_error(file, 0, format!("unknown hostile behaviour: {spec}")))?;
        let path = normalise_path(host, path, file)?;
        insert_unique(host_entry, path, Resource::Hostile(behaviour), file)?;
    }
    Ok(())
}

fn insert_unique(
    host: &mut Host,
    path: String,
    resource: Resource,
    file: &str,
) -> Result<(), TestWebError> {
    if host.resources.contains_key(&path) {
        return Err(fixture_error(file, 0, format!("{path} is defined twice")));
    }
    host.resources.insert(path, resource);
    Ok(())
}

fn site_robots(site: &SiteFile) -> Result<Robots, String> {
    let mut choices = Vec::new();
    if let Some(text) = &site.robots {
        choices.push(Robots::Text(text.clone()));
    }
    if let Some(status) = site.robots_status {
        choices.push(Robots::Status(status));
    }
    if let Some(size) = site.robots_huge_bytes {
        choices.push(Robots::Huge(size));
    }
    if site.robots_hang == Some(true) {
        choices.push(Robots::Hang);
    }
    match choices.len() {
        0 => Ok(Robots::None),
        1 => Ok(choices.remove(0)),
        _ => Err("set at most one of robots, robots_status, robots_huge_bytes, robots_hang".into()),
    }
}

/// `name` or `name:number`, e.g. `endless-body`, `trickle:10`, `too-many-requests:2`.
pub fn parse_hostile(spec: &str) -> Option<Hostile> {
    let (name, argument) = match spec.split_once(':') {
        Some((name, argument)) => (name.trim(), Some(argument.trim().parse::<u64>().ok()?)),
        None => (spec.trim(), None),
    };
    Some(match (name, argument) {
        ("hang-before-head", None) => Hostile::HangBeforeHead,
        ("hang-after-head", None) => Hostile::HangAfterHead,
        ("endless-body", None) => Hostile::EndlessBody,
        ("trickle", Some(bytes_per_sec)) => Hostile::Trickle { bytes_per_sec },
        ("gzip-bomb", None) => Hostile::GzipBomb,
        ("redirect-loop", None) => Hostile::RedirectLoop,
        ("invalid-utf8", None) => Hostile::InvalidUtf8,
        ("malformed-rdf", None) => Hostile::MalformedRdf,
        ("reset", None) => Hostile::Reset,
        ("reset-mid-body", None) => Hostile::ResetMidBody,
        ("garbage", None) => Hostile::Garbage,
        ("huge-head", None) => Hostile::HugeHead,
        ("too-many-requests", Some(retry_after_secs)) => {
            Hostile::TooManyRequests { retry_after_secs }
        }
        _ => return None,
    })
}

/// A token of a line of the Turtle subset.
#[derive(Debug, PartialEq)]
enum Token {
    Iri(String),
    Literal(String),
    Word(String),
}

fn read_until_close(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    close: char,
) -> Option<String> {
    let mut text = String::new();
    loop {
        match chars.next()? {
            c if c == close => return Some(text),
            '\\' if close == '"' => text.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                other => other,
            }),
            c => text.push(c),
        }
    }
}

fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '#' {
            break;
        }
        if c == '<' || c == '"' {
            chars.next();
            let close = if c == '<' { '>' } else { '"' };
            let text = read_until_close(&mut chars, close).ok_or(format!("unclosed {c}"))?;
            tokens.push(if c == '<' {
                Token::Iri(text)
            } else {
                Token::Literal(text)
            });
            continue;
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek().filter(|c| !c.is_whitespace()) {
            word.push(c);
            chars.next();
        }
        tokens.push(Token::Word(word));
    }
    Ok(tokens)
}

struct TurtleLines {
    base: Url,
    prefixes: HashMap<String, String>,
}

impl TurtleLines {
    fn resolve(&self, iri: &str) -> Result<Term, String> {
        let resolved = self
            .base
            .join(iri)
            .map_err(|e| format!("bad IRI <{iri}>: {e}"))?;
        Ok(Term::Iri(resolved.to_string()))
    }

    fn term(&self, token: &Token) -> Result<Term, String> {
        match token {
            Token::Iri(iri) => self.resolve(iri),
            Token::Literal(text) => Ok(Term::Literal(text.clone())),
            Token::Word(word) if word.starts_with("_:") => Ok(Term::Blank(word[2..].to_string())),
            Token::Word(word) => {
                let (prefix, local) = word.split_once(':').ok_or(format!("not a term: {word}"))?;
                let namespace = self
                    .prefixes
                    .get(prefix)
                    .ok_or(format!("undeclared prefix {prefix}:"))?;
                Ok(Term::Iri(format!("{namespace}{local}")))
            }
        }
    }

    fn line(&mut self, line: &str) -> Result<Option<Triple>, String> {
        let tokens = tokenize(line)?;
        match tokens.as_slice() {
            [] => Ok(None),
            [
                Token::Word(at),
                Token::Word(name),
                Token::Iri(iri),
                Token::Word(dot),
            ] if at == "@prefix" && dot == "." => {
                let prefix = name.strip_suffix(':').ok_or("a prefix name ends in ':'")?;
                let Term::Iri(namespace) = self.resolve(iri)? else {
                    return Err("prefix must be an IRI".into());
                };
                self.prefixes.insert(prefix.to_string(), namespace);
                Ok(None)
            }
            [s, p, o, Token::Word(dot)] if dot == "." => {
                let subject = self.term(s)?;
                let predicate = self.term(p)?;
                if matches!(subject, Term::Literal(_)) || !matches!(predicate, Term::Iri(_)) {
                    return Err("subject must not be a literal, predicate must be an IRI".into());
                }
                Ok(Some(Triple::new(subject, predicate, self.term(o)?)))
            }
            _ => Err("expected `subject predicate object .` or `@prefix p: <iri> .`".into()),
        }
    }
}

/// Parses line-based Turtle (see the module comment) with IRIs relative to `base`.
fn parse_turtle_lines(file: &str, text: &str, base: &str) -> Result<Vec<Triple>, TestWebError> {
    let base = Url::parse(base).map_err(|e| fixture_error(file, 0, format!("base {base}: {e}")))?;
    let mut parser = TurtleLines {
        base,
        prefixes: HashMap::new(),
    };
    let mut triples = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if let Some(triple) = parser
            .line(line)
            .map_err(|m| fixture_error(file, number + 1, m))?
        {
            triples.push(triple);
        }
    }
    Ok(triples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_fixture_matches_the_directory() {
        let dir = Web::fixture_dir();
        let on_disk: Vec<String> = read_fixture_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|(path, _)| path)
            .filter(|path| !path.ends_with(".md"))
            .collect();
        let mut embedded: Vec<String> = EMBEDDED.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        let mut on_disk_sorted = on_disk.clone();
        on_disk_sorted.sort();
        assert_eq!(embedded, on_disk_sorted, "update EMBEDDED in fixtures.rs");
        assert_eq!(Web::from_fixtures(&dir).unwrap(), Web::fixture().unwrap());
    }

    #[test]
    fn fixture_web_has_its_hosts_seeds_and_resources() {
        let web = Web::fixture().unwrap();
        assert_eq!(web.hosts.len(), 7);
        assert_eq!(web.seeds, Web::fixture_seeds());
        assert_eq!(web.seeds.len(), 3);
        assert_eq!(
            web.resource("http://data.alpha.example/resource/item2"),
            Some(&Resource::SeeOther("/alias/item2".into()))
        );
        assert_eq!(
            web.resource("http://www.alpha.example/old-about"),
            Some(&Resource::Redirect(301, "/about".into()))
        );
        assert_eq!(
            web.hosts["mirror.gamma.example"].robots,
            Robots::Status(500)
        );
        assert!(
            matches!(web.hosts["data.alpha.example"].robots, Robots::Text(ref t) if t.contains("Disallow: /private/"))
        );
        let Some(Resource::Document(alice)) = web.resource("http://people.delta.example/alice")
        else {
            panic!("alice is a document");
        };
        assert_eq!(alice.epochs.len(), 3);
        assert_ne!(alice.graph(0), alice.graph(1));
        assert!(
            alice
                .graph(0)
                .iter()
                .any(|t| t.s == Term::iri("http://people.delta.example/alice#me")
                    && t.p == Term::iri("http://vocab.delta.example/ns#knows")
                    && t.o == Term::iri("http://people.delta.example/bob#me"))
        );
    }

    #[test]
    fn turtle_lines_resolve_prefixes_relative_iris_and_escapes() {
        let text = "@prefix v: <http://v.example/ns#> .\n# comment\n\n<#me> v:name \"A \\\"q\\\" b\" . # trailing\n_:x v:knows </bob#me> .\n";
        let triples = parse_turtle_lines("t.ttl", text, "http://h.example/alice").unwrap();
        assert_eq!(
            triples,
            vec![
                Triple::new(
                    Term::iri("http://h.example/alice#me"),
                    Term::iri("http://v.example/ns#name"),
                    Term::literal("A \"q\" b")
                ),
                Triple::new(
                    Term::blank("x"),
                    Term::iri("http://v.example/ns#knows"),
                    Term::iri("http://h.example/bob#me")
                ),
            ]
        );
    }

    #[test]
    fn turtle_line_errors_name_file_and_line() {
        let error = parse_turtle_lines("h/x.ttl", "\n<a> <b> <c>\n", "http://h/x").unwrap_err();
        assert!(error.to_string().starts_with("h/x.ttl:2: "), "{error}");
        let error = parse_turtle_lines("h/x.ttl", "<a> q:b <c> .", "http://h/x").unwrap_err();
        assert!(
            error.to_string().contains("undeclared prefix q:"),
            "{error}"
        );
    }

    #[test]
    fn paths_epochs_and_site_files_are_understood() {
        assert_eq!(split_epoch("a/b.epoch2"), ("a/b", 2));
        assert_eq!(split_epoch("a/b.v2"), ("a/b.v2", 0));
        assert_eq!(document_path("_index"), "/");
        assert_eq!(document_path("people/_index"), "/people/");
        assert_eq!(document_path("my_index"), "/my_index");
        let files = vec![
            (
                "h.example/_site.toml".to_string(),
                "latency_ms = 5\nrobots_huge_bytes = 1000\n[hostile]\n\"/slow\" = \"trickle:7\"\n\"/busy\" = \"too-many-requests:2\"\n[redirect]\n\"/r\" = { status = 307, to = \"http://g.example/\" }\n".to_string(),
            ),
            ("h.example/_index.ttl".to_string(), "<> <#p> \"x\" .\n".to_string()),
            ("h.example/_index.epoch2.ttl".to_string(), "<> <#p> \"y\" .\n".to_string()),
        ];
        let web = build_web(files).unwrap();
        let host = &web.hosts["h.example"];
        assert_eq!(host.latency, Duration::from_millis(5));
        assert_eq!(host.robots, Robots::Huge(1000));
        assert_eq!(
            host.resources["/slow"],
            Resource::Hostile(Hostile::Trickle { bytes_per_sec: 7 })
        );
        assert_eq!(
            host.resources["/busy"],
            Resource::Hostile(Hostile::TooManyRequests {
                retry_after_secs: 2
            })
        );
        assert_eq!(
            host.resources["/r"],
            Resource::Redirect(307, "http://g.example/".into())
        );
        let Resource::Document(doc) = &host.resources["/"] else {
            panic!("index is a document");
        };
        assert_eq!(doc.epochs.len(), 3);
        assert_eq!(doc.epochs[0], doc.epochs[1]);
        assert_eq!(doc.graph(5)[0].o, Term::literal("y"));
    }

    #[test]
    fn bad_site_files_are_refused() {
        let site =
            |text: &str| build_web(vec![("h.example/_site.toml".to_string(), text.to_string())]);
        assert!(site("robots = \"x\"\nrobots_status = 500\n").is_err());
        assert!(site("[redirect]\n\"/r\" = { status = 303, to = \"/\" }\n").is_err());
        assert!(site("[hostile]\n\"/x\" = \"explode\"\n").is_err());
        let error = site("unknown_key = 1\n").unwrap_err();
        assert!(
            error.to_string().starts_with("h.example/_site.toml:1: "),
            "{error}"
        );
        assert!(build_web(vec![("h.example/x.epoch1.ttl".to_string(), String::new())]).is_err());
    }
}
