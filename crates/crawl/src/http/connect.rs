//! Opening the connection for one fetch: choosing origin or proxy, `--resolve` or DNS, TCP to
//! each address in turn, a `CONNECT` tunnel through an HTTP proxy for `https:`, and TLS
//! (rustls with the ring provider and the trust anchors of `trust`).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout, timeout_at};
use tokio_rustls::TlsConnector;
use url::{Host, Url};

use super::config::NetConfig;
use super::error::FetchError;
use super::head::parse_head;
use super::request::{authority, connect_request, proxy_authorization};
use super::wire::{HeadError, Incoming, read_head};

/// A byte stream to the server: plain TCP or TLS.
pub(crate) trait Connection: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Connection for T {}

/// The rustls client configuration: ring, safe default protocol versions, the trust anchors
/// `roots`, no client certificate, ALPN `http/1.1`.
pub(crate) fn tls_config(roots: rustls::RootCertStore) -> Result<ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// An HTTP proxy on the way to the origin.
#[derive(Debug, Clone)]
pub(crate) struct ProxyHop {
    host: Host<String>,
    port: u16,
    /// `host:port`, for messages (never the credentials).
    pub label: String,
    /// The `Proxy-Authorization` value from the proxy URL's user information.
    pub credentials: Option<String>,
}

/// How one URL is reached.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    host: Host<String>,
    port: u16,
    /// `host:port` of the origin (the `CONNECT` target).
    pub authority: String,
    pub tls: bool,
    pub proxy: Option<ProxyHop>,
}

impl Route {
    /// The route to `url`, through the proxy `proxy` when given.
    pub fn new(url: &Url, proxy: Option<&Url>) -> Result<Route, FetchError> {
        let unsupported = || FetchError::UnsupportedScheme {
            url: url.to_string(),
        };
        let tls = match url.scheme() {
            "http" => false,
            "https" => true,
            _ => return Err(unsupported()),
        };
        let host = url.host().ok_or_else(unsupported)?.to_owned();
        let port = url.port_or_known_default().ok_or_else(unsupported)?;
        let proxy = proxy.map(|proxy| proxy_hop(url, proxy)).transpose()?;
        Ok(Route {
            host,
            port,
            authority: authority(url),
            tls,
            proxy,
        })
    }

    /// Whether the request line must carry the absolute URL (plain HTTP through a proxy).
    pub fn absolute_form(&self) -> bool {
        self.proxy.is_some() && !self.tls
    }
}

fn proxy_hop(url: &Url, proxy: &Url) -> Result<ProxyHop, FetchError> {
    let host = proxy.host().map(|host| host.to_owned());
    let port = proxy.port_or_known_default();
    match (proxy.scheme(), host, port) {
        ("http", Some(host), Some(port)) => Ok(ProxyHop {
            label: format!("{host}:{port}"),
            host,
            port,
            credentials: proxy_authorization(proxy),
        }),
        (_, host, port) => Err(FetchError::UnsupportedProxy {
            url: url.to_string(),
            proxy: format!(
                "{}://{}:{}",
                proxy.scheme(),
                host.map(|h| h.to_string()).unwrap_or_default(),
                port.unwrap_or_default()
            ),
        }),
    }
}

/// Connection set-up for one fetch, all of it bounded by `deadline`.
pub(crate) struct Opener<'a> {
    pub config: &'a NetConfig,
    pub tls: &'a Arc<ClientConfig>,
    pub deadline: Instant,
}

impl Opener<'_> {
    /// Opens the connection along `route`, recording the peer (proxy or origin) in `remote` as
    /// soon as TCP is up, and failing with `ConnectTimeout` at the deadline.
    pub async fn open(
        &self,
        route: &Route,
        remote: &mut Option<SocketAddr>,
    ) -> Result<Box<dyn Connection>, FetchError> {
        let label = match &route.proxy {
            Some(proxy) => proxy.label.clone(),
            None => route.authority.clone(),
        };
        let steps = self.open_steps(route, &label, remote);
        match timeout_at(self.deadline, steps).await {
            Ok(opened) => opened,
            Err(_) => Err(self.timed_out(&label)),
        }
    }

    async fn open_steps(
        &self,
        route: &Route,
        label: &str,
        remote: &mut Option<SocketAddr>,
    ) -> Result<Box<dyn Connection>, FetchError> {
        let (host, port) = match &route.proxy {
            Some(proxy) => (&proxy.host, proxy.port),
            None => (&route.host, route.port),
        };
        let addresses = self.resolve(host, port).await?;
        let (mut tcp, peer) = self.connect_any(&addresses, label).await?;
        *remote = Some(peer);
        if let (Some(proxy), true) = (&route.proxy, route.tls) {
            tcp = self.tunnel(tcp, route, proxy).await?;
        }
        if route.tls {
            Ok(Box::new(self.handshake(tcp, route).await?))
        } else {
            Ok(Box::new(tcp))
        }
    }

    fn timed_out(&self, label: &str) -> FetchError {
        FetchError::ConnectTimeout {
            host: label.to_string(),
            after: self.config.connect_timeout,
        }
    }

    /// The addresses to try for `host`: a `--resolve` rule, the IP literal itself, or DNS.
    async fn resolve(&self, host: &Host<String>, port: u16) -> Result<Vec<SocketAddr>, FetchError> {
        let name = match host {
            Host::Domain(domain) => domain.clone(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        if let Some(rule) = self.config.resolve_rule_for(&name) {
            return Ok(vec![rule.target(port)]);
        }
        let domain = match host {
            Host::Domain(domain) => domain,
            Host::Ipv4(ip) => return Ok(vec![SocketAddr::new(IpAddr::V4(*ip), port)]),
            Host::Ipv6(ip) => return Ok(vec![SocketAddr::new(IpAddr::V6(*ip), port)]),
        };
        let dns_error = |reason: String| FetchError::Dns {
            host: domain.clone(),
            reason,
        };
        let found = tokio::net::lookup_host((domain.as_str(), port))
            .await
            .map_err(|error| dns_error(error.to_string()))?;
        let addresses: Vec<SocketAddr> = found.collect();
        if addresses.is_empty() {
            return Err(dns_error("no addresses".to_string()));
        }
        Ok(addresses)
    }

    /// Connects to the first address that accepts; each attempt gets an equal share of the
    /// time left, so one black-holed address cannot use up the budget of the others.
    async fn connect_any(
        &self,
        addresses: &[SocketAddr],
        label: &str,
    ) -> Result<(TcpStream, SocketAddr), FetchError> {
        let mut last_error = self.timed_out(label);
        for (tried, address) in addresses.iter().enumerate() {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let share = left / u32::try_from(addresses.len() - tried).unwrap_or(u32::MAX);
            match timeout(
                share.max(Duration::from_millis(1)),
                TcpStream::connect(address),
            )
            .await
            {
                Ok(Ok(stream)) => {
                    // Requests are written in one go; no reason to wait for more.
                    let _ = stream.set_nodelay(true);
                    return Ok((stream, *address));
                }
                Ok(Err(error)) => {
                    last_error = FetchError::Connect {
                        host: label.to_string(),
                        addr: address.to_string(),
                        reason: error.to_string(),
                    }
                }
                Err(_) => last_error = self.timed_out(label),
            }
        }
        Err(last_error)
    }

    /// Asks the proxy for a tunnel to the origin; the exchange is not archived.
    async fn tunnel(
        &self,
        mut tcp: TcpStream,
        route: &Route,
        proxy: &ProxyHop,
    ) -> Result<TcpStream, FetchError> {
        let failed = |reason: String| FetchError::ProxyFailed {
            proxy: proxy.label.clone(),
            target: route.authority.clone(),
            reason,
        };
        let request = connect_request(&route.authority, proxy.credentials.as_deref());
        tcp.write_all(&request)
            .await
            .map_err(|error| failed(error.to_string()))?;
        let mut incoming = Incoming::new(tcp, self.deadline);
        let head = match read_head(&mut incoming, self.config.max_head).await {
            Ok(head) => head,
            Err(HeadError::Timeout) => return Err(self.timed_out(&proxy.label)),
            Err(HeadError::TooLarge) => return Err(failed("response head too large".into())),
            Err(HeadError::NoResponse) => return Err(failed("closed without a response".into())),
            Err(HeadError::Malformed(reason)) => return Err(failed(reason)),
            Err(HeadError::Failed(error)) => return Err(failed(error.to_string())),
        };
        let status = parse_head(&head).map_err(failed)?.status;
        if !(200..300).contains(&status) {
            return Err(FetchError::ProxyRefused {
                proxy: proxy.label.clone(),
                target: route.authority.clone(),
                status,
            });
        }
        let (tcp, rest) = incoming.into_parts();
        if !rest.is_empty() {
            return Err(failed("data after the CONNECT response".into()));
        }
        Ok(tcp)
    }

    async fn handshake(
        &self,
        tcp: TcpStream,
        route: &Route,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, FetchError> {
        let tls_error = |reason: String| FetchError::Tls {
            host: route.authority.clone(),
            reason,
        };
        let server_name = match &route.host {
            Host::Domain(domain) => ServerName::try_from(domain.clone())
                .map_err(|error| tls_error(error.to_string()))?,
            Host::Ipv4(ip) => ServerName::from(IpAddr::V4(*ip)),
            Host::Ipv6(ip) => ServerName::from(IpAddr::V6(*ip)),
        };
        TlsConnector::from(Arc::clone(self.tls))
            .connect(server_name, tcp)
            .await
            .map_err(|error| tls_error(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_config_builds_with_roots_and_alpn() {
        let config = tls_config(
            super::super::trust::TrustConfig::default()
                .root_store()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }

    #[test]
    fn routes_pick_scheme_port_and_proxy() {
        let url = Url::parse("https://a.example/x").unwrap();
        let route = Route::new(&url, None).unwrap();
        assert!(route.tls && !route.absolute_form());
        assert_eq!(route.authority, "a.example:443");
        let proxy = Url::parse("http://u:p@proxy.example:3128").unwrap();
        let plain = Url::parse("http://a.example:8080/").unwrap();
        let proxied = Route::new(&plain, Some(&proxy)).unwrap();
        assert!(proxied.absolute_form());
        let hop = proxied.proxy.unwrap();
        assert_eq!(hop.label, "proxy.example:3128");
        assert!(hop.credentials.unwrap().starts_with("Basic "));
        let socks = Url::parse("socks5://user:secret@proxy:1080").unwrap();
        let error = Route::new(&plain, Some(&socks)).unwrap_err();
        assert_eq!(error.kind(), "unsupported-proxy");
        assert!(!error.to_string().contains("secret"), "{error}");
        for bad in [
            "ftp://a.example/",
            "file:///etc/passwd",
            "data:text/plain,x",
        ] {
            let error = Route::new(&Url::parse(bad).unwrap(), None).unwrap_err();
            assert_eq!(error.kind(), "unsupported-scheme", "{bad}");
        }
    }
}
