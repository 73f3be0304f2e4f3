//! Public read-only serving (`ldwarc serve --public`): the read-only Wayback most archives
//! run, open to anyone on any address without a token. Every route the server answers in
//! this mode is on [`PUBLIC_ROUTES`]; anything else (every admin or write endpoint, present
//! or added later, and every method but `GET`/`HEAD`) is refused before a handler runs, so a
//! new endpoint is private until it is deliberately listed here.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::Response;

use super::text_response;

/// The path prefixes served in public mode: the CDX APIs, replay, TimeMaps and the pages,
/// all of which only read the archive.
pub const PUBLIC_ROUTES: &[&str] = &[
    "/cdx",
    "/web/",
    "/timemap/",
    "/search",
    "/favicon.ico",
    "/timeline",
    "/calendar",
    "/capture",
    "/diff",
    "/overview",
    "/pld",
    "/dataset",
    "/render",
    "/tpf",
    "/.well-known/void",
    "/download/",
    "/ldes",
];

/// Whether `path` is served in public mode (`/` or under a [`PUBLIC_ROUTES`] prefix).
pub fn is_public(path: &str) -> bool {
    path == "/"
        || PUBLIC_ROUTES.iter().any(|prefix| {
            path.strip_prefix(prefix).is_some_and(|rest| {
                prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/')
            })
        })
}

/// The refusal of a request public mode does not serve.
pub(crate) fn refuse(request: &Request<Body>) -> Option<Response> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return Some(text_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "this public archive is read-only: GET and HEAD only\n",
        ));
    }
    (!is_public(request.uri().path())).then(|| {
        text_response(
            StatusCode::FORBIDDEN,
            "not served by this public, read-only archive\n",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_read_only_routes_are_public() {
        for path in [
            "/",
            "/cdx",
            "/cdx/search/cdx",
            "/web/2024id_/http://e.org/",
            "/timemap/link/http://e.org/",
            "/timeline",
            "/render",
            "/calendar",
            "/pld",
            "/dataset",
            "/favicon.ico",
            "/.well-known/void",
            "/download/20240301/example.org.nq.gz",
            "/ldes",
            "/ldes/0",
        ] {
            assert!(is_public(path), "{path}");
        }
        for path in [
            "/admin",
            "/admin/reindex",
            "/cdxfoo",
            "/timelines",
            "/sparql",
            "/calendars",
            "/index",
            "/web",
            "/ldesx",
            "/download",
        ] {
            assert!(!is_public(path), "{path}");
        }
    }
}
