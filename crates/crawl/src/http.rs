//! HTTP/1.1 fetching for archiving: one `GET` per connection (`Connection: close`), the request
//! bytes exactly as sent and the response head exactly as received (so both can go into WARC
//! records), bodies de-chunked but never content-decoded, and every limit (connect time, total
//! time, head size, body size) ending the fetch cleanly.
//!
//! Submodules: `config` (settings, `--resolve`, proxies), `connect` (DNS, TCP, CONNECT, TLS),
//! `request` (request bytes), `wire` (reading head and body), `head` (parsing heads), `body`
//! (bounded-memory bodies), `error` (failures), `trust` (CA roots and files).

mod body;
mod config;
mod connect;
mod error;
mod head;
mod request;
mod trust;
mod wire;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::io::AsyncWriteExt;
use tokio::time::{Instant, sleep_until, timeout_at};
use url::Url;

pub use body::{BODY_MEMORY_LIMIT, Body};
pub use config::{InvalidResolveRule, NetConfig, ProxyConfig, ResolveRule};
pub use error::FetchError;
pub use trust::{TrustConfig, TrustError, TrustRoots};

use connect::{Connection, Opener, Route};
use head::Framing;
use wire::{HeadError, Incoming};

/// Interim (1xx) responses skipped before giving up on a final one.
const MAX_INTERIM_RESPONSES: usize = 32;

/// How a body was cut short; the value of `WARC-Truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// The body reached `max_body`.
    Length,
    /// The total timeout passed while the body was arriving.
    Time,
    /// The connection closed or failed before the body's declared end.
    Disconnect,
}

impl Truncation {
    /// The `WARC-Truncated` field value.
    pub fn as_warc(&self) -> &'static str {
        match self {
            Truncation::Length => "length",
            Truncation::Time => "time",
            Truncation::Disconnect => "disconnect",
        }
    }
}

/// A final response.
#[derive(Debug)]
pub struct Response {
    /// Status code of the final (non-1xx) response.
    pub status: u16,
    /// Status line and header lines as received, with the closing empty line; the only change
    /// is that the `chunked` coding is taken out of `Transfer-Encoding` (the line dropped when
    /// nothing else is left) when the body was de-chunked.
    pub head: Vec<u8>,
    /// Header fields in order, repeats kept; non-UTF-8 bytes decoded lossily.
    pub headers: Vec<(String, String)>,
    /// The body de-chunked, `Content-Encoding` not decoded.
    pub body: Body,
    /// Set when the body is incomplete.
    pub truncated: Option<Truncation>,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        ldwarc_warc::http::header_value(&self.headers, name)
    }
}

/// Everything known about one fetch, whether or not a response came.
#[derive(Debug)]
pub struct Fetch {
    /// The request head exactly as written, less any `Proxy-Authorization` line; empty when
    /// nothing was sent.
    pub request: Vec<u8>,
    /// When writing the request began (UTC, and the monotonic instant).
    pub sent_at: Option<(DateTime<Utc>, Instant)>,
    /// The peer actually connected to: the proxy when proxied, else the origin.
    pub remote_addr: Option<SocketAddr>,
    /// The response, or why there is none.
    pub outcome: Result<Response, FetchError>,
    /// From the start of sending to the end of the body (from the call when nothing was sent).
    pub duration: Duration,
}

/// What is learned before the outcome is known.
#[derive(Default)]
struct Progress {
    request: Vec<u8>,
    sent_at: Option<(DateTime<Utc>, Instant)>,
    remote_addr: Option<SocketAddr>,
}

/// The TLS client configuration could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot set up TLS: {0}")]
pub struct TlsSetupError(String);

/// An archival HTTP/1.1 client; cheap to clone, safe to share between tasks.
#[derive(Clone)]
pub struct HttpClient {
    config: Arc<NetConfig>,
    tls: Arc<rustls::ClientConfig>,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client with `config`, trusting the CAs of `config.trust`.
    pub fn new(config: NetConfig) -> Result<Self, TlsSetupError> {
        let roots = config
            .trust
            .root_store()
            .map_err(|error| TlsSetupError(error.to_string()))?;
        let tls = connect::tls_config(roots).map_err(|error| TlsSetupError(error.to_string()))?;
        Ok(HttpClient {
            config: Arc::new(config),
            tls: Arc::new(tls),
        })
    }

    /// The settings this client runs with.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Fetches `url` with `GET`. The request is `Host`, then `headers` in order (caller copies
    /// of `Host`, `Connection` and `Proxy-Authorization` are ignored), then
    /// `Connection: close`. The connection is opened at once but the request is written only at
    /// or after `not_before` (politeness); `sent_at` records when writing began. Never panics
    /// on anything the network does; every failure is in `outcome`.
    pub async fn fetch(
        &self,
        url: &Url,
        headers: &[(String, String)],
        not_before: Instant,
    ) -> Fetch {
        let started = Instant::now();
        let mut progress = Progress::default();
        let outcome = self
            .run(url, headers, not_before, started, &mut progress)
            .await;
        let since = progress.sent_at.map_or(started, |(_, at)| at);
        Fetch {
            request: progress.request,
            sent_at: progress.sent_at,
            remote_addr: progress.remote_addr,
            outcome,
            duration: since.elapsed(),
        }
    }

    async fn run(
        &self,
        url: &Url,
        headers: &[(String, String)],
        not_before: Instant,
        started: Instant,
        progress: &mut Progress,
    ) -> Result<Response, FetchError> {
        let config = &*self.config;
        let route = Route::new(url, config.proxy.proxy_for(url))?;
        let deadline = super::clock::later_tokio(started.max(not_before), config.total_timeout);
        let opener = Opener {
            config,
            tls: &self.tls,
            deadline: super::clock::later_tokio(started, config.connect_timeout).min(deadline),
        };
        let mut connection = opener.open(&route, &mut progress.remote_addr).await?;
        let credentials = route.proxy.as_ref().and_then(|p| p.credentials.as_deref());
        let request = request::get_request(url, headers, route.absolute_form(), credentials);
        sleep_until(not_before).await;
        progress.request = request.archived;
        progress.sent_at = Some((Utc::now(), Instant::now()));
        self.send(&mut connection, &request.sent, url, deadline)
            .await?;
        let mut incoming = Incoming::new(connection, deadline);
        let (raw_head, parsed) = self.final_head(&mut incoming, url).await?;
        let framing = head::framing(parsed.status, &parsed.headers).map_err(|reason| {
            FetchError::MalformedResponse {
                url: url.to_string(),
                reason,
            }
        })?;
        let mut body = Body::new();
        let truncated = wire::read_body(&mut incoming, framing, config.max_body, &mut body)
            .await
            .map_err(|error| io_error(url, &format!("storing the body: {error}")))?;
        let head = match framing {
            Framing::Chunked => head::without_chunked_coding(&raw_head),
            _ => raw_head,
        };
        Ok(Response {
            status: parsed.status,
            head,
            headers: parsed.headers,
            body,
            truncated,
        })
    }

    async fn send(
        &self,
        connection: &mut Box<dyn Connection>,
        request: &[u8],
        url: &Url,
        deadline: Instant,
    ) -> Result<(), FetchError> {
        let write = async {
            connection.write_all(request).await?;
            connection.flush().await
        };
        match timeout_at(deadline, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(io_error(url, &format!("sending the request: {error}"))),
            Err(_) => Err(self.timed_out(url)),
        }
    }

    /// Reads heads until a final (non-1xx, or 101) one; returns its raw bytes and parse.
    async fn final_head(
        &self,
        incoming: &mut Incoming<Box<dyn Connection>>,
        url: &Url,
    ) -> Result<(Vec<u8>, head::ParsedHead), FetchError> {
        let malformed = |reason: String| FetchError::MalformedResponse {
            url: url.to_string(),
            reason,
        };
        for _ in 0..=MAX_INTERIM_RESPONSES {
            let raw = wire::read_head(incoming, self.config.max_head)
                .await
                .map_err(|error| self.head_error(error, url))?;
            let parsed = head::parse_head(&raw).map_err(malformed)?;
            if !(100..200).contains(&parsed.status) || parsed.status == 101 {
                return Ok((raw, parsed));
            }
        }
        Err(malformed(format!(
            "more than {MAX_INTERIM_RESPONSES} interim responses"
        )))
    }

    fn head_error(&self, error: HeadError, url: &Url) -> FetchError {
        let url_text = url.to_string();
        match error {
            HeadError::Timeout => self.timed_out(url),
            HeadError::TooLarge => FetchError::HeadTooLarge {
                url: url_text,
                limit: self.config.max_head,
            },
            HeadError::NoResponse => FetchError::NoResponse { url: url_text },
            HeadError::Malformed(reason) => FetchError::MalformedResponse {
                url: url_text,
                reason,
            },
            HeadError::Failed(error) => {
                io_error(url, &format!("reading the response head: {error}"))
            }
        }
    }

    fn timed_out(&self, url: &Url) -> FetchError {
        FetchError::Timeout {
            url: url.to_string(),
            after: self.config.total_timeout,
        }
    }
}

fn io_error(url: &Url, reason: &str) -> FetchError {
    FetchError::Io {
        url: url.to_string(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests;
