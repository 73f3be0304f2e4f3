//! What the server refuses before any handler runs: methods other than GET/HEAD and request
//! bodies (but the SPARQL Protocol's `POST /sparql`, whose body is a query), over-long targets
//! and heads, absolute-form targets naming another host (proxy requests to the live web),
//! and — when a token is set — requests without it. Also the per-request time limit and the
//! query-cost limit the handlers apply, and the head time the connections apply ([`super::listener`]).

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::text_response;

/// Request size, time and query-cost limits.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Longest request target (path and query), in bytes: longer is 414.
    pub max_target_bytes: usize,
    /// Largest request head (all header fields), in bytes: larger is 431.
    pub max_header_bytes: usize,
    /// Most header fields: more is 431.
    pub max_header_count: usize,
    /// Longest a request may compute before it is answered 503 (for streamed answers: until
    /// the first piece; later, longest a client may accept nothing before it is given up).
    pub request_time: Duration,
    /// Longest a connection may take to deliver a request head, counted from its accept or
    /// from the server's last write to it (slow or idle clients are disconnected).
    pub head_time: Duration,
    /// Most captures a CDX query may hold in memory before it is refused: one URL's
    /// captures, or the whole selection of orders other than the index's (`sort=reverse`,
    /// `closest`, `limit=-N`). Answers in the index's order stream whatever their size.
    pub max_cdx_rows: usize,
    /// Bytes the requests in flight may hold together (buffered rows and answer pieces):
    /// a request that would go beyond is answered 503 with `Retry-After`.
    pub memory_budget: usize,
    /// Captures per block when CDX pages are cut from the capture index (a server without
    /// a ZipNum index): a page is `pageSize` such blocks, as a ZipNum page is of its blocks.
    pub cdx_block_captures: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_target_bytes: 8 * 1024,
            max_header_bytes: 16 * 1024,
            max_header_count: 64,
            request_time: Duration::from_secs(20),
            head_time: Duration::from_secs(20),
            max_cdx_rows: 250_000,
            memory_budget: super::budget::DEFAULT_MEMORY_BUDGET,
            cdx_block_captures: ldwarc_archive::index::zipnum::DEFAULT_LINES_PER_BLOCK,
        }
    }
}

/// Applies the limits and the token rule to every request.
pub(crate) async fn guard(
    State(state): State<super::State>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refusal) = refuse(&state.limits, &request) {
        return refusal;
    }
    if state.public
        && let Some(refusal) = super::public::refuse(&request)
    {
        return refusal;
    }
    let mut set_cookie = None;
    if let Some(token) = &state.token {
        match token_check(token, &request) {
            TokenCheck::Valid => {}
            TokenCheck::FromQuery => set_cookie = Some(token.clone()),
            TokenCheck::Missing => {
                let mut response = text_response(
                    StatusCode::UNAUTHORIZED,
                    "this server needs a token: Authorization: Bearer <token>, or ?token=<token>\n",
                );
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"ldwarc\""),
                );
                return response;
            }
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Some(token) = set_cookie
        && let Ok(cookie) = HeaderValue::from_str(&format!(
            "ldwarc_token={token}; HttpOnly; SameSite=Strict; Path=/"
        ))
    {
        headers.insert(header::SET_COOKIE, cookie);
    }
    response
}

/// The refusal of a request the server will not handle, if it is one.
fn refuse(limits: &Limits, request: &Request<Body>) -> Option<Response> {
    let uri = request.uri();
    let target_len = uri.path_and_query().map_or(0, |p| p.as_str().len());
    if target_len > limits.max_target_bytes {
        return Some(text_response(
            StatusCode::URI_TOO_LONG,
            &format!(
                "request target longer than {} bytes\n",
                limits.max_target_bytes
            ),
        ));
    }
    let headers = request.headers();
    let head_bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if headers.len() > limits.max_header_count || head_bytes > limits.max_header_bytes {
        return Some(text_response(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "request head too large\n",
        ));
    }
    // RFC 9112 §3.2: a request with more than one Host field is answered 400.
    if headers.get_all(header::HOST).iter().count() > 1 {
        return Some(text_response(
            StatusCode::BAD_REQUEST,
            "more than one Host header field\n",
        ));
    }
    // The SPARQL Protocol's POST carries a query, not a change to the archive.
    let sparql_post = request.method() == Method::POST && uri.path() == "/sparql";
    if !sparql_post && request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = text_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "this archive is read-only: GET and HEAD only\n",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(response);
    }
    if !sparql_post && has_body(request) {
        return Some(text_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            "GET and HEAD requests take no body\n",
        ));
    }
    if uri.authority().is_some() || uri.scheme().is_some() {
        // An absolute-form target is a proxy request: this server never fetches the web.
        return Some(text_response(
            StatusCode::BAD_REQUEST,
            "absolute-form request targets are refused: this server is not a proxy\n",
        ));
    }
    None
}

fn has_body(request: &Request<Body>) -> bool {
    let headers = request.headers();
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim() != "0");
    length.unwrap_or(false) || headers.contains_key(header::TRANSFER_ENCODING)
}

enum TokenCheck {
    Valid,
    FromQuery,
    Missing,
}

fn token_check(token: &str, request: &Request<Body>) -> TokenCheck {
    let headers = request.headers();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().strip_prefix("ldwarc_token="))
        .any(|given| constant_time_eq(given, token));
    if bearer.is_some_and(|given| constant_time_eq(given, token)) || cookie {
        return TokenCheck::Valid;
    }
    let query = request.uri().query().unwrap_or("");
    let in_query = url::form_urlencoded::parse(query.as_bytes())
        .any(|(name, value)| name == "token" && constant_time_eq(&value, token));
    if in_query {
        TokenCheck::FromQuery
    } else {
        TokenCheck::Missing
    }
}

/// Compares secrets without an early exit on the first differing byte.
fn constant_time_eq(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let mut difference = a.len() ^ b.len();
    for (index, byte) in b.iter().enumerate() {
        difference |= usize::from(a.get(index).copied().unwrap_or(0) ^ byte);
    }
    difference == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, target: &str) -> Request<Body> {
        Request::builder()
            .method(method)
            .uri(target)
            .body(Body::empty())
            .unwrap()
    }

    #[test]
    fn refuses_writes_long_targets_bodies_and_proxy_requests() {
        let limits = Limits::default();
        let status = |r: Request<Body>| refuse(&limits, &r).map(|resp| resp.status());
        assert_eq!(status(request(Method::GET, "/cdx?url=x")), None);
        assert_eq!(
            status(request(Method::POST, "/cdx")),
            Some(StatusCode::METHOD_NOT_ALLOWED)
        );
        let long = format!("/cdx?url={}", "a".repeat(9000));
        assert_eq!(
            status(request(Method::GET, &long)),
            Some(StatusCode::URI_TOO_LONG)
        );
        assert_eq!(
            status(request(Method::GET, "http://live.example/")),
            Some(StatusCode::BAD_REQUEST)
        );
        let with_body = Request::builder()
            .uri("/")
            .header("content-length", "5")
            .body(Body::empty())
            .unwrap();
        assert_eq!(status(with_body), Some(StatusCode::PAYLOAD_TOO_LARGE));
        let two_hosts = Request::builder()
            .uri("/")
            .header("host", "a.example")
            .header("host", "b.example")
            .body(Body::empty())
            .unwrap();
        assert_eq!(status(two_hosts), Some(StatusCode::BAD_REQUEST));
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(constant_time_eq("secret", "secret"));
        assert!(!constant_time_eq("secre", "secret"));
        assert!(!constant_time_eq("secretx", "secret"));
        let with = Request::builder()
            .uri("/")
            .header("authorization", "Bearer s3")
            .body(Body::empty())
            .unwrap();
        assert!(matches!(token_check("s3", &with), TokenCheck::Valid));
        assert!(matches!(
            token_check("s3", &request(Method::GET, "/?token=s3")),
            TokenCheck::FromQuery
        ));
        assert!(matches!(
            token_check("s3", &request(Method::GET, "/")),
            TokenCheck::Missing
        ));
    }
}
