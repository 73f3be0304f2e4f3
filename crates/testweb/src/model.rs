//! The model of a test web: hosts with their robots.txt and latency, and the resources each
//! host serves by path (RDF documents with per-epoch graphs, redirects, hostile behaviours).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::TestWebError;

/// A whole test web: every host it serves, and the seed URLs a crawl of it starts from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Web {
    /// Hosts by lower-case name (no port), e.g. `data.alpha.example`.
    pub hosts: BTreeMap<String, Host>,
    /// Seed URLs (absolute, no port) for crawls of this web.
    pub seeds: Vec<String>,
}

/// One host: its robots.txt behaviour, its server latency and its resources.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Host {
    /// What `/robots.txt` answers.
    pub robots: Robots,
    /// How long every response on this host waits before its head is sent.
    pub latency: Duration,
    /// Resources by path plus query (`/a/b?x=1`), as a client would request them.
    pub resources: BTreeMap<String, Resource>,
}

/// The behaviour of a host's `/robots.txt`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Robots {
    /// No robots.txt: 404 (everything allowed).
    #[default]
    None,
    /// A robots.txt with this text, served as `text/plain`.
    Text(String),
    /// Answer with this status and no rules (a 5xx means the crawler must disallow the host).
    Status(u16),
    /// A robots.txt of this many bytes of valid lines that disallow nothing that exists.
    Huge(usize),
    /// Accept the request and never answer.
    Hang,
    /// `301 Moved Permanently` to this target (an absolute URL or a path on the same host;
    /// `/robots.txt` redirects robots.txt to itself).
    Redirect(String),
}

/// What one path of a host serves.
#[derive(Debug, Clone, PartialEq)]
pub enum Resource {
    /// An RDF document, content-negotiated.
    Document(Doc),
    /// `303 See Other` to this target (absolute URL or absolute path on the same host).
    SeeOther(String),
    /// A redirect with this status (301, 302, 307 or 308) to this target.
    Redirect(u16, String),
    /// A misbehaving server.
    Hostile(Hostile),
    /// Fixed bytes with a fixed `Content-Type` (e.g. a JSON-LD document with a remote
    /// context, or the same graph serialised differently in each epoch).
    Static(StaticFile),
}

/// Bytes served as they are, without content negotiation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StaticFile {
    /// The `Content-Type` header value.
    pub content_type: String,
    /// The body served in epoch `e` is `epochs[min(e, len - 1)]`.
    pub epochs: Vec<Vec<u8>>,
}

impl StaticFile {
    /// A file serving the same bytes in every epoch.
    pub fn new(content_type: &str, body: impl Into<Vec<u8>>) -> StaticFile {
        StaticFile {
            content_type: content_type.to_string(),
            epochs: vec![body.into()],
        }
    }

    /// The index into `epochs` served in `epoch`.
    pub fn served_epoch(&self, epoch: usize) -> usize {
        epoch.min(self.epochs.len().saturating_sub(1))
    }

    /// The bytes served in `epoch`.
    pub fn body(&self, epoch: usize) -> &[u8] {
        self.epochs
            .get(self.served_epoch(epoch))
            .map_or(&[], Vec::as_slice)
    }
}

/// An RDF document whose graph may change between epochs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Doc {
    /// The graph served in epoch `e` is `epochs[min(e, len - 1)]`; no epochs is an empty graph.
    pub epochs: Vec<Vec<Triple>>,
}

/// An RDF triple.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Triple {
    /// Subject.
    pub s: Term,
    /// Predicate.
    pub p: Term,
    /// Object.
    pub o: Term,
}

/// An RDF term: IRIs, plain string literals and blank nodes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Term {
    /// An absolute IRI.
    Iri(String),
    /// A plain (xsd:string) literal.
    Literal(String),
    /// A blank node with this label (without `_:`).
    Blank(String),
}

/// Server misbehaviours a robust crawler must survive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hostile {
    /// Read the request, then never answer (until the client closes).
    HangBeforeHead,
    /// Send a head announcing `Content-Length: 1000`, then nothing.
    HangAfterHead,
    /// A chunked `text/turtle` body that never ends.
    EndlessBody,
    /// A valid 64 KiB Turtle document sent at this rate.
    Trickle {
        /// Body bytes per second (at least 1).
        bytes_per_sec: u64,
    },
    /// A `Content-Encoding: gzip` Turtle body of about 1 MB that inflates to 1 GiB of spaces.
    GzipBomb,
    /// `302 Found` to itself.
    RedirectLoop,
    /// `text/turtle` with invalid UTF-8 bytes inside a literal, after a few valid link triples.
    InvalidUtf8,
    /// `text/turtle` with a few valid link triples, then a syntax error.
    MalformedRdf,
    /// Read the request, then reset the connection (RST) without answering.
    Reset,
    /// Send the head and part of the body, then reset the connection.
    ResetMidBody,
    /// Answer with bytes that are not HTTP.
    Garbage,
    /// A response head of 8 MiB of filler header lines.
    HugeHead,
    /// `429 Too Many Requests` with `Retry-After` the first time the path is asked, then 200.
    TooManyRequests {
        /// The `Retry-After` value in seconds.
        retry_after_secs: u64,
    },
}

impl Term {
    /// An IRI term.
    pub fn iri(iri: impl Into<String>) -> Term {
        Term::Iri(iri.into())
    }

    /// A plain literal term.
    pub fn literal(text: impl Into<String>) -> Term {
        Term::Literal(text.into())
    }

    /// A blank node term.
    pub fn blank(label: impl Into<String>) -> Term {
        Term::Blank(label.into())
    }

    /// The IRI, when this term is one.
    pub fn as_iri(&self) -> Option<&str> {
        match self {
            Term::Iri(iri) => Some(iri),
            _ => None,
        }
    }
}

impl Triple {
    /// A triple from its three terms.
    pub fn new(s: Term, p: Term, o: Term) -> Triple {
        Triple { s, p, o }
    }

    /// The IRIs of this triple in subject, predicate, object order: every one is a link.
    pub fn iris(&self) -> impl Iterator<Item = &str> {
        [&self.s, &self.p, &self.o]
            .into_iter()
            .filter_map(Term::as_iri)
    }
}

impl Doc {
    /// A document that serves the same graph in every epoch.
    pub fn new(triples: Vec<Triple>) -> Doc {
        Doc {
            epochs: vec![triples],
        }
    }

    /// The index into `epochs` served in `epoch` (0 when there are no epochs).
    pub fn served_epoch(&self, epoch: usize) -> usize {
        epoch.min(self.epochs.len().saturating_sub(1))
    }

    /// The graph served in `epoch`.
    pub fn graph(&self, epoch: usize) -> &[Triple] {
        self.epochs
            .get(self.served_epoch(epoch))
            .map_or(&[], Vec::as_slice)
    }
}

impl Web {
    /// An empty web.
    pub fn new() -> Web {
        Web::default()
    }

    /// The seed URLs of this web.
    pub fn seeds(&self) -> &[String] {
        &self.seeds
    }

    /// Adds (or replaces) the resource at an absolute `http://` URL, creating its host if needed.
    pub fn insert(&mut self, url: &str, resource: Resource) -> Result<(), TestWebError> {
        let (host, path) = split_url(url).ok_or_else(|| TestWebError::Url {
            url: url.to_string(),
            message: "not an absolute http URL with a host".to_string(),
        })?;
        self.hosts
            .entry(host)
            .or_default()
            .resources
            .insert(path, resource);
        Ok(())
    }

    /// The resource at an absolute URL (fragment ignored), if the web has one.
    pub fn resource(&self, url: &str) -> Option<&Resource> {
        let (host, path) = split_url(url)?;
        self.hosts.get(&host)?.resources.get(&path)
    }

    /// The URLs of every `Resource::Document` in the web.
    pub fn document_urls(&self) -> BTreeSet<String> {
        let mut urls = BTreeSet::new();
        for (name, host) in &self.hosts {
            for (path, resource) in &host.resources {
                if matches!(resource, Resource::Document(_) | Resource::Static(_)) {
                    urls.insert(format!("http://{name}{path}"));
                }
            }
        }
        urls
    }
}

/// Splits an absolute http(s) URL into its lower-case host and its normalised path plus query,
/// dropping port and fragment; `None` for anything else.
pub fn split_url(url: &str) -> Option<(String, String)> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed
        .host_str()?
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let path = match parsed.query() {
        Some(query) => format!("{}?{query}", parsed.path()),
        None => parsed.path().to_string(),
    };
    Some((host, path))
}

/// The document URL an IRI dereferences to: `http://host/path?query`, no port, no fragment.
pub fn document_url(iri: &str) -> Option<String> {
    let (host, path) = split_url(iri)?;
    Some(format!("http://{host}{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_of_later_epochs_is_the_last_one() {
        let t = |o: &str| {
            Triple::new(
                Term::iri("http://a/"),
                Term::iri("http://p/"),
                Term::literal(o),
            )
        };
        let doc = Doc {
            epochs: vec![vec![t("0")], vec![t("1")]],
        };
        assert_eq!(doc.graph(0), &[t("0")]);
        assert_eq!(doc.graph(1), &[t("1")]);
        assert_eq!(doc.graph(7), &[t("1")]);
        assert_eq!(doc.served_epoch(7), 1);
        assert!(Doc::default().graph(3).is_empty());
    }

    #[test]
    fn urls_split_into_host_and_path_without_port_or_fragment() {
        assert_eq!(
            split_url("http://Data.Example:8080/a/b?x=1#frag"),
            Some(("data.example".to_string(), "/a/b?x=1".to_string()))
        );
        assert_eq!(
            document_url("http://a.example#me").as_deref(),
            Some("http://a.example/")
        );
        assert_eq!(split_url("urn:isbn:123"), None);
        assert_eq!(split_url("mailto:x@example.org"), None);
    }

    #[test]
    fn insert_creates_hosts_and_resource_finds_them() {
        let mut web = Web::new();
        web.insert("http://a.example/x#it", Resource::SeeOther("/y".into()))
            .unwrap();
        assert_eq!(
            web.resource("http://a.example/x"),
            Some(&Resource::SeeOther("/y".into()))
        );
        assert!(
            web.insert("not a url", Resource::SeeOther("/".into()))
                .is_err()
        );
        assert!(web.document_urls().is_empty());
    }
}
