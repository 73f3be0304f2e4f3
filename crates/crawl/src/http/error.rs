//! Why a fetch got no response: one variant per way it can fail, each a one-line message
//! naming the URL or host (never proxy credentials).

use std::time::Duration;

/// A fetch that produced no response. Messages are one line and name the URL, host or proxy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL is not `http:` or `https:`, or has no host.
    #[error("cannot fetch {url}: only http and https URLs with a host are supported")]
    UnsupportedScheme { url: String },
    /// The configured proxy is not an `http://` proxy.
    #[error("cannot fetch {url} through proxy {proxy}: only http:// proxies are supported")]
    UnsupportedProxy { url: String, proxy: String },
    /// The host name did not resolve to any address.
    #[error("cannot resolve {host}: {reason}")]
    Dns { host: String, reason: String },
    /// Every address of the host refused or failed the TCP connection.
    #[error("cannot connect to {host} at {addr}: {reason}")]
    Connect {
        host: String,
        addr: String,
        reason: String,
    },
    /// Setting up the connection (lookup, TCP, proxy CONNECT, TLS) took too long.
    #[error("connecting to {host} timed out after {after:?}")]
    ConnectTimeout { host: String, after: Duration },
    /// The TLS handshake failed (certificate, protocol, name).
    #[error("TLS with {host} failed: {reason}")]
    Tls { host: String, reason: String },
    /// The proxy answered `CONNECT` with a non-2xx status.
    #[error("proxy {proxy} refused CONNECT to {target} with status {status}")]
    ProxyRefused {
        proxy: String,
        target: String,
        status: u16,
    },
    /// The proxy's answer to `CONNECT` was not a usable HTTP response.
    #[error("proxy {proxy} failed CONNECT to {target}: {reason}")]
    ProxyFailed {
        proxy: String,
        target: String,
        reason: String,
    },
    /// Writing the request or reading the head failed, or the body could not be stored.
    #[error("I/O error fetching {url}: {reason}")]
    Io { url: String, reason: String },
    /// No complete response head before the total timeout.
    #[error("no complete response from {url} within {after:?}")]
    Timeout { url: String, after: Duration },
    /// The server closed the connection without sending a byte.
    #[error("{url}: the server closed the connection without a response")]
    NoResponse { url: String },
    /// The response head was longer than allowed.
    #[error("response head from {url} is longer than {limit} bytes")]
    HeadTooLarge { url: String, limit: usize },
    /// The response was not HTTP/1.x or could not be framed.
    #[error("malformed response from {url}: {reason}")]
    MalformedResponse { url: String, reason: String },
}

impl FetchError {
    /// A short stable name for logs and statistics (`dns`, `connect`, `timeout`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::UnsupportedScheme { .. } => "unsupported-scheme",
            FetchError::UnsupportedProxy { .. } => "unsupported-proxy",
            FetchError::Dns { .. } => "dns",
            FetchError::Connect { .. } => "connect",
            FetchError::ConnectTimeout { .. } => "connect-timeout",
            FetchError::Tls { .. } => "tls",
            FetchError::ProxyRefused { .. } => "proxy-refused",
            FetchError::ProxyFailed { .. } => "proxy-failed",
            FetchError::Io { .. } => "io",
            FetchError::Timeout { .. } => "timeout",
            FetchError::NoResponse { .. } => "no-response",
            FetchError::HeadTooLarge { .. } => "head-too-large",
            FetchError::MalformedResponse { .. } => "malformed-response",
        }
    }
}
