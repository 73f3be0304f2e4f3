//! The loopback server: its own tokio runtime, the accept loop, one exchange per connection,
//! the request log, and the epoch switch.

use std::collections::HashSet;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

use super::http::{self, HeadRead, RequestHead};
use super::model::Web;
use super::respond;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedRequest {
    /// When the request head was complete (server clock, UTC, full precision).
    pub received_at: DateTime<Utc>,
    /// The same moment on the monotonic clock, for measuring intervals.
    pub received_instant: Instant,
    /// The client's address.
    pub peer: SocketAddr,
    /// The method (empty for an unparseable head).
    pub method: String,
    /// The request target as sent (`/path` or `http://host/path`).
    pub target: String,
    /// The host the request is for (lower case, no port).
    pub host: String,
    /// The normalised path plus query the request is for.
    pub path: String,
    /// The request header fields in the order sent.
    pub headers: Vec<(String, String)>,
    /// The response status, `None` while undecided or when no HTTP response is sent.
    pub status: Option<u16>,
    /// Bytes written to the connection so far (head and body).
    pub bytes_sent: u64,
    id: u64,
}

impl LoggedRequest {
    /// The first value of a request header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        ldwarc_warc::http::header_value(&self.headers, name)
    }

    /// The URL requested, `http://host/path`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.host, self.path)
    }
}

/// State shared by every connection of one server.
pub(crate) struct Shared {
    pub(crate) web: Web,
    epoch: AtomicUsize,
    next_id: AtomicU64,
    log: Mutex<Vec<LoggedRequest>>,
    rate_limited: Mutex<HashSet<(String, String)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn update_log(&self, id: u64, update: impl FnOnce(&mut LoggedRequest)) {
        let mut log = lock(&self.log);
        if let Some(entry) = log.iter_mut().rev().find(|e| e.id == id) {
            update(entry);
        }
    }

    /// Whether this is the first request for `host` + `path` (and remembers it).
    pub(crate) fn first_request_for(&self, host: &str, path: &str) -> bool {
        lock(&self.rate_limited).insert((host.to_string(), path.to_string()))
    }
}

/// One request and the connection to answer it on.
pub(crate) struct Exchange {
    stream: TcpStream,
    shared: Arc<Shared>,
    id: u64,
    /// The request head.
    pub head: RequestHead,
    /// The host the request is for.
    pub host: String,
    /// The path plus query the request is for.
    pub path: String,
    /// The epoch being served when the request arrived.
    pub epoch: usize,
}

impl Exchange {
    pub(crate) fn shared(&self) -> Arc<Shared> {
        Arc::clone(&self.shared)
    }

    /// Whether the method is HEAD (no body is sent).
    pub(crate) fn is_head(&self) -> bool {
        self.head.method.eq_ignore_ascii_case("HEAD")
    }

    /// The URL requested, `http://host/path`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}{}", self.host, self.path)
    }

    /// Records the status of the response in the log.
    pub(crate) fn record_status(&self, status: u16) {
        self.shared.update_log(self.id, |e| e.status = Some(status));
    }

    /// Writes bytes and counts them in the log.
    pub(crate) async fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes).await?;
        let sent = bytes.len() as u64;
        self.shared.update_log(self.id, |e| e.bytes_sent += sent);
        Ok(())
    }

    /// Sends a response head (`Date`, `Server`, `Connection: close` added).
    pub(crate) async fn send_head(
        &mut self,
        status: u16,
        headers: &[(&str, String)],
    ) -> io::Result<()> {
        self.record_status(status);
        self.send(&http::response_head(status, headers)).await
    }

    /// Sends a complete response with `Content-Length`; the body is left out for HEAD.
    pub(crate) async fn respond(
        &mut self,
        status: u16,
        headers: &[(&str, String)],
        body: &[u8],
    ) -> io::Result<()> {
        let mut all = headers.to_vec();
        all.push(("Content-Length", body.len().to_string()));
        self.send_head(status, &all).await?;
        if !self.is_head() {
            self.send(body).await?;
        }
        self.finish().await
    }

    /// A short `text/plain` response.
    pub(crate) async fn respond_text(&mut self, status: u16, text: &str) -> io::Result<()> {
        let headers = [("Content-Type", "text/plain; charset=utf-8".to_string())];
        self.respond(status, &headers, text.as_bytes()).await
    }

    /// Flushes and half-closes the connection.
    pub(crate) async fn finish(&mut self) -> io::Result<()> {
        self.stream.flush().await?;
        self.stream.shutdown().await
    }

    /// Waits until the client closes the connection, discarding whatever it sends.
    pub(crate) async fn wait_for_client_close(&mut self) {
        let mut sink = [0u8; 1024];
        while let Ok(n) = self.stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    }

    /// Resets the connection: linger zero, then close, so the client sees an RST.
    pub(crate) fn reset(self) {
        // An error here only means the socket is already gone; there is nothing to reset.
        let _ = self.stream.set_zero_linger();
        drop(self.stream);
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                tokio::spawn(serve_connection(Arc::clone(&shared), stream, peer));
            }
            // Out of descriptors or an aborted handshake: back off briefly and keep serving.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

fn empty_head() -> RequestHead {
    RequestHead {
        method: String::new(),
        target: String::new(),
        headers: Vec::new(),
    }
}

async fn serve_connection(shared: Arc<Shared>, mut stream: TcpStream, peer: SocketAddr) {
    let read = tokio::time::timeout(HEAD_TIMEOUT, http::read_request_head(&mut stream)).await;
    let (head, refusal) = match read {
        Err(_) | Ok(HeadRead::Closed) => return,
        Ok(HeadRead::TooLarge) => (empty_head(), Some(431)),
        Ok(HeadRead::Malformed) => (empty_head(), Some(400)),
        Ok(HeadRead::Complete(head)) => (head, None),
    };
    let mut exchange = open_exchange(shared, stream, peer, head);
    // Write errors mean the client went away; the log already holds what was sent.
    let _ = match refusal {
        Some(status) => exchange.respond_text(status, "bad request head\n").await,
        None => respond::dispatch(exchange).await,
    };
}

fn open_exchange(
    shared: Arc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    head: RequestHead,
) -> Exchange {
    let (host, path) = head.host_and_path();
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let epoch = shared.epoch.load(Ordering::SeqCst);
    lock(&shared.log).push(LoggedRequest {
        received_at: Utc::now(),
        received_instant: Instant::now(),
        peer,
        method: head.method.clone(),
        target: head.target.clone(),
        host: host.clone(),
        path: path.clone(),
        headers: head.headers.clone(),
        status: None,
        bytes_sent: 0,
        id,
    });
    Exchange {
        stream,
        shared,
        id,
        head,
        host,
        path,
        epoch,
    }
}

/// A test web served on `127.0.0.1` by its own runtime threads; stopped on drop.
pub struct TestWebServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    runtime: Option<Runtime>,
}

impl TestWebServer {
    /// Binds `127.0.0.1:0` and starts serving `web` in epoch 0.
    pub fn start(web: Web) -> io::Result<TestWebServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ldwarc-testweb")
            .enable_io()
            .enable_time()
            .build()?;
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let listener = {
            let _context = runtime.enter();
            TcpListener::from_std(listener)?
        };
        let shared = Arc::new(Shared {
            web,
            epoch: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            rate_limited: Mutex::new(HashSet::new()),
        });
        runtime.spawn(accept_loop(listener, Arc::clone(&shared)));
        Ok(TestWebServer {
            addr,
            shared,
            runtime: Some(runtime),
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The server as an HTTP proxy URL, `http://127.0.0.1:PORT`.
    pub fn proxy_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The web being served.
    pub fn web(&self) -> &Web {
        &self.shared.web
    }

    /// Switches the epoch served to every request that arrives from now on.
    pub fn set_epoch(&self, epoch: usize) {
        self.shared.epoch.store(epoch, Ordering::SeqCst);
    }

    /// The epoch being served.
    pub fn epoch(&self) -> usize {
        self.shared.epoch.load(Ordering::SeqCst)
    }

    /// Every request logged since the start or the last [`clear_log`](Self::clear_log).
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Empties the request log.
    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// Forgets which paths already answered 429, so each answers 429 once more.
    pub fn reset_rate_limits(&self) {
        lock(&self.shared.rate_limited).clear();
    }

    /// Stops serving and closes every connection; idempotent.
    pub fn stop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Blocking to join the threads is not allowed inside another runtime.
            if tokio::runtime::Handle::try_current().is_ok() {
                runtime.shutdown_background();
            } else {
                runtime.shutdown_timeout(Duration::from_secs(2));
            }
        }
    }
}

impl Drop for TestWebServer {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for TestWebServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestWebServer")
            .field("addr", &self.addr)
            .field("epoch", &self.epoch())
            .field("running", &self.runtime.is_some())
            .finish()
    }
}
