//! `ldwarc serve`: the archive over HTTP, read-only — the CDX server API (pywb's parameters
//! and the IA/OpenWayback dialect), Wayback-style replay (`id_` raw bytes, RDF in the syntax
//! the client accepts), Memento (RFC 7089) TimeGate and TimeMaps, and server-rendered pages
//! for people. Nothing here fetches the live web or writes to the archive; every WARC path
//! is resolved inside the archive root by [`ldwarc_timetravel::replay::warc_path`].
//!
//! Routes (all `GET`/`HEAD`):
//!
//! | path | what |
//! |---|---|
//! | `/cdx` | CDX server, pywb dialect |
//! | `/cdx/search/cdx` | CDX server, IA/OpenWayback dialect |
//! | `/web/{timestamp}{modifier}/{url}` | a memento (`id_`: archived bytes) |
//! | `/web/{url}` | the TimeGate (`Accept-Datetime`) |
//! | `/timemap/link/{url}`, `/timemap/json/{url}` | TimeMaps |
//! | `/`, `/search`, `/timeline`, `/calendar`, `/capture`, `/diff`, `/overview`, `/pld`, `/dataset`, `/render` | pages |
//! | `/tpf`, `/tpf/timegate`, `/tpf/{timestamp}` | Triple Pattern Fragments, with Memento |
//! | `/.well-known/void`, `/download/{day}/{pld}.nq.gz` | VoID + DCAT 3 description, dataset downloads |
//! | `/ldes`, `/ldes/{page}` | the event stream of every graph change (LDES) |
//! | `/sparql` | SPARQL 1.1 Protocol over the dataset at a date (also `POST`; not public); a query form and results table for browsers |

#![warn(missing_docs)]

mod abandon;
mod aggregates;
mod budget;
mod calendar;
mod cdx;
mod chart_pages;
mod limits;
mod limits_check;
mod listener;
mod memento;
mod pages;
mod paging;
mod panics;
mod protocol;
pub mod public;
mod publish;
mod replay;
mod rewrite;
mod sparql;
mod sparql_page;
mod stream;
mod svg;
mod tpf;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::routing::get;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::query::case_sensitive_key;
use ldwarc_archive::index::zipnum::ZipNumIndex;
use ldwarc_surt::surt;
use ldwarc_timetravel::replay::{
    ReplayArchive, ReplayError, is_replayable, own_captures, sort_by_time,
};

pub use budget::{DEFAULT_MEMORY_BUDGET, MIN_MEMORY_BUDGET};
pub use limits::Limits;

/// What `ldwarc serve` serves and how.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The archive roots (each holds `warc/` and `index/`), answered as one archive.
    pub roots: Vec<PathBuf>,
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Secret every request must carry (`Authorization: Bearer …`, the `ldwarc_token`
    /// cookie, or `?token=` once). Required when `bind` is not a loopback address.
    pub token: Option<String>,
    /// Request size, time and query-cost limits.
    pub limits: Limits,
    /// A ZipNum index to answer CDX queries from (with pagination) instead of the capture
    /// index; replay still uses the capture index.
    pub zipnum: Option<PathBuf>,
    /// Public read-only mode: any address may be bound without a token (a public Wayback),
    /// and only the read-only routes are served (see [`public`]).
    pub public: bool,
    /// The program that evaluates `/sparql` queries, run as `PROGRAM sparql --worker`
    /// (`ldwarc` itself); without one, `/sparql` answers 503.
    pub sparql_worker: Option<PathBuf>,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Refused: a non-loopback bind without a token.
    #[error(
        "{0}: not a loopback address; binding there exposes the archive to the network, so give --token (or LDWARC_SERVE_TOKEN)"
    )]
    NeedsToken(SocketAddr),
    /// Public mode serves everyone: a token would be given to no one.
    #[error("--public serves everyone read-only and takes no --token (nor LDWARC_SERVE_TOKEN)")]
    PublicWithToken,
    /// The archive could not be opened.
    #[error("{0}")]
    Archive(String),
    /// A limit out of bounds.
    #[error("{0}")]
    Limits(String),
    /// Binding or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Shared by every request.
pub(crate) struct AppState {
    pub(crate) archive: ReplayArchive,
    pub(crate) zipnum: Option<ZipNumIndex>,
    pub(crate) token: Option<String>,
    /// Public read-only mode ([`public`]).
    pub(crate) public: bool,
    pub(crate) limits: Limits,
    /// Bytes held by requests, out of `limits.memory_budget`.
    pub(crate) budget: Arc<budget::MemoryBudget>,
    pub(crate) bind: SocketAddr,
    /// The overview's tables, with the index size they were computed for.
    pub(crate) overview: std::sync::Mutex<Option<Arc<pages::Overview>>>,
    /// The figures behind the charts, computed off the request threads.
    pub(crate) aggregates: aggregates::Cache,
    /// The versioned triple indexes behind `/tpf`.
    pub(crate) triples: tpf::TripleIndexes,
    /// The archive roots served (handed to `/sparql`'s workers).
    pub(crate) roots: Vec<PathBuf>,
    /// The program `/sparql` runs its queries with ([`ServeConfig::sparql_worker`]).
    pub(crate) sparql_worker: Option<PathBuf>,
    /// `/sparql` workers running now, at most [`sparql::MAX_WORKERS`].
    pub(crate) sparql_workers: std::sync::atomic::AtomicUsize,
    /// The description, event stream and downloads of [`publish`].
    pub(crate) publish: publish::Cache,
}

/// The state handed to handlers.
pub(crate) type State = Arc<AppState>;

impl AppState {
    /// The replayable captures of exactly `url` (case-sensitive beyond the SURT; of twins,
    /// those spelled as `url`), oldest first: what `ReplayArchive::captures` answers, found by one term lookup instead of a
    /// range scan over every segment's term stream (the urlkey of one URL is one term).
    pub(crate) fn captures(&self, url: &str) -> Result<Vec<Capture>, ReplayError> {
        let mut captures = self
            .archive
            .merged_index()
            .lookup(&surt(url))
            .map_err(ReplayError::io)?;
        let exact = ExactUrl::new(url);
        captures.retain(|c| is_replayable(c) && exact.matches(c));
        let mut captures = own_captures(url, captures);
        sort_by_time(&mut captures);
        Ok(captures)
    }
}

/// One URL as an exact match sees it: captures whose URL has its case-sensitive SURT.
pub(crate) struct ExactUrl {
    url: String,
    key: String,
}

impl ExactUrl {
    /// The exact match of `url`.
    pub(crate) fn new(url: &str) -> Self {
        Self {
            url: url.to_string(),
            key: case_sensitive_key(url),
        }
    }

    /// Whether `capture` is of this URL (the same string needs no SURT).
    pub(crate) fn matches(&self, capture: &Capture) -> bool {
        capture.url == self.url || case_sensitive_key(&capture.url) == self.key
    }
}

/// Opens the archive and checks the configuration (the token rule) without binding.
fn prepare(config: &ServeConfig) -> Result<State, ServeError> {
    limits_check::check_limits(&config.limits).map_err(ServeError::Limits)?;
    let token_given = config.token.as_deref().is_some_and(|t| !t.is_empty());
    if config.public && token_given {
        return Err(ServeError::PublicWithToken);
    }
    if !config.public && !config.bind.ip().is_loopback() && !token_given {
        return Err(ServeError::NeedsToken(config.bind));
    }
    let archive =
        ReplayArchive::open_many(&config.roots).map_err(|e| ServeError::Archive(e.to_string()))?;
    let zipnum = match &config.zipnum {
        Some(path) => {
            Some(ZipNumIndex::open(path).map_err(|e| ServeError::Archive(e.to_string()))?)
        }
        None => None,
    };
    Ok(Arc::new(AppState {
        archive,
        zipnum,
        token: config.token.clone().filter(|_| !config.public),
        public: config.public,
        limits: config.limits.clone(),
        budget: budget::MemoryBudget::new(config.limits.memory_budget),
        bind: config.bind,
        overview: std::sync::Mutex::new(None),
        aggregates: aggregates::Cache::default(),
        triples: tpf::TripleIndexes::new(config.roots.clone()),
        roots: config.roots.clone(),
        sparql_worker: config.sparql_worker.clone(),
        sparql_workers: std::sync::atomic::AtomicUsize::new(0),
        publish: publish::Cache::default(),
    }))
}

/// Every route, with the limits and the token check in front.
pub(crate) fn router(state: State) -> Router {
    Router::new()
        .route("/", get(pages::home))
        .route("/favicon.ico", get(pages::favicon))
        .route("/cdx", get(cdx::pywb_endpoint))
        .route("/cdx/search/cdx", get(cdx::ia_endpoint))
        .route("/web/{*rest}", get(replay::web))
        .route("/timemap/{*rest}", get(memento::timemap))
        .route("/search", get(pages::search))
        .route("/timeline", get(pages::timeline))
        .route("/calendar", get(calendar::calendar))
        .route("/pld", get(chart_pages::pld))
        .route("/dataset", get(chart_pages::dataset))
        .route("/capture", get(pages::capture))
        .route("/diff", get(pages::diff))
        .route("/overview", get(pages::overview))
        .route("/render", get(pages::render))
        .route("/tpf", get(tpf::fragment))
        .route("/tpf/{*rest}", get(tpf::dated))
        .route("/.well-known/void", get(publish::void))
        .route("/download/{day}/{file}", get(publish::download))
        .route("/ldes", get(publish::ldes_root))
        .route("/ldes/{page}", get(publish::ldes_page))
        .route(
            "/sparql",
            get(sparql::get_endpoint).post(sparql::post_endpoint),
        )
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            limits::guard,
        ))
        .layer(axum::middleware::from_fn(panics::catch_panics))
        .with_state(state)
}

async fn not_found() -> Response {
    text_response(StatusCode::NOT_FOUND, "not found\n")
}

/// Where a started server listens, handed to the caller of [`run`] once the socket is bound.
#[derive(Debug, Clone)]
pub struct Listening {
    /// The bound address (the actual port when `bind` asked for port 0).
    pub address: SocketAddr,
    /// The archive roots served.
    pub roots: Vec<PathBuf>,
    /// Captures in the merged index at start.
    pub captures: u64,
    /// Whether the server runs in public, read-only mode.
    pub public: bool,
}

/// Runs the server until the process is killed: calls `on_listening` once the socket is
/// bound (so the caller can tell clients the address), then serves on a multi-threaded
/// runtime.
pub fn run(
    config: ServeConfig,
    on_listening: impl FnOnce(&Listening) -> std::io::Result<()>,
) -> Result<(), ServeError> {
    let state = prepare(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ldwarc-serve")
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| std::io::Error::new(e.kind(), format!("--bind {}: {e}", config.bind)))?;
        let listening = Listening {
            address: listener.local_addr()?,
            roots: config.roots.clone(),
            captures: state.archive.merged_index().len(),
            public: state.public,
        };
        tracing::info!(address = %listening.address, captures = listening.captures, "listening");
        state.triples.log_sizes();
        on_listening(&listening)?;
        spawn_index_reloader(state.clone());
        let head_time = state.limits.head_time;
        axum::serve(
            listener::GuardedListener::new(listener, head_time),
            router(state),
        )
        .await?;
        Ok(())
    })
}

/// Picks up index commits made while the server runs (`ldwarc index` in another process).
fn spawn_index_reloader(state: State) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(30)).await;
            let state = state.clone();
            let _ = tokio::task::spawn_blocking(move || state.archive.reload()).await;
        }
    });
}

/// Runs blocking archive work off the async threads, within the request time limit. A panic
/// answers 500 and is logged with the request.
pub(crate) async fn blocking(
    state: &State,
    work: impl FnOnce(&AppState) -> Response + Send + 'static,
) -> Response {
    // Pages and replays hold a record or a page at a time: admitted for a few pieces' worth.
    let Some(reservation) = state.budget.reserve(4 * stream::PIECE_BYTES) else {
        return budget::refusal();
    };
    let state = state.clone();
    let limit = state.limits.request_time;
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Dropped when this wait ends, however: an answer given up abandons its work.
    let _abandon = abandon::AbandonOnDrop(Arc::clone(&flag));
    let request = panics::current_request();
    let task = tokio::task::spawn_blocking(move || {
        let answer = panics::caught(&request, || abandon::with_flag(flag, || work(&state)))
            .unwrap_or_else(panics::internal_error);
        drop(reservation);
        answer
    });
    match tokio::time::timeout(limit, task).await {
        Ok(Ok(response)) => response,
        Ok(Err(_cancelled)) => panics::internal_error(),
        Err(_elapsed) => too_slow(limit),
    }
}

/// Runs small, bounded archive work (one URL's captures, one record read) on the calling
/// async thread: a hand-over to a blocking thread and back costs two thread wake-ups, more
/// than such work. A panic answers 500 and is logged, as in [`blocking`].
pub(crate) fn inline(state: &State, work: impl FnOnce(&AppState) -> Response) -> Response {
    panics::caught(&panics::current_request(), || work(state))
        .unwrap_or_else(panics::internal_error)
}

/// The answer to a request that computed longer than the time limit.
/// Like the budget's refusals it carries `Retry-After`: the server is busy, not broken.
pub(crate) fn too_slow(limit: Duration) -> Response {
    let mut response = text_response(
        StatusCode::SERVICE_UNAVAILABLE,
        &format!(
            "the request took longer than {} s; narrow the query\n",
            limit.as_secs_f64()
        ),
    );
    response.headers_mut().insert(
        header::RETRY_AFTER,
        axum::http::HeaderValue::from(budget::RETRY_AFTER_SECONDS),
    );
    response
}

/// The answer for an archive the server could not read (a damaged or missing WARC file, an
/// unreadable index): logged with the full error for the operator; the client gets it too,
/// except from a public server, where file paths are not the public's business.
pub(crate) fn archive_failure(
    state: &AppState,
    status: StatusCode,
    what: &str,
    error: &dyn std::fmt::Display,
) -> Response {
    tracing::warn!(%what, %error, "could not read the archive");
    if state.public {
        text_response(
            status,
            &format!("{what}: the archive could not be read here\n"),
        )
    } else {
        text_response(status, &format!("{error}\n"))
    }
}

/// A plain-text response.
pub(crate) fn text_response(status: StatusCode, text: &str) -> Response {
    response(
        status,
        "text/plain; charset=utf-8",
        text.as_bytes().to_vec(),
    )
}

/// A response with a body and a content type.
pub(crate) fn response(status: StatusCode, content_type: &str, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    if let Ok(value) = content_type.parse() {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// `http://host` of the request, for absolute links (the `Host` header when it is a
/// plausible host name, else the bound address).
pub(crate) fn base_url(headers: &HeaderMap, bind: SocketAddr) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
        });
    match host {
        Some(host) => format!("http://{host}"),
        None => format!("http://{bind}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_loopback_binds_need_a_token() {
        let config = ServeConfig {
            roots: vec![PathBuf::from("/nonexistent")],
            bind: "0.0.0.0:8080".parse().unwrap(),
            token: None,
            limits: Limits::default(),
            zipnum: None,
            public: false,
            sparql_worker: None,
        };
        assert!(matches!(prepare(&config), Err(ServeError::NeedsToken(_))));
        // Public mode binds anywhere without a token (then fails on the missing archive),
        // and refuses one.
        let public = ServeConfig {
            public: true,
            ..config.clone()
        };
        assert!(matches!(prepare(&public), Err(ServeError::Archive(_))));
        let public_with_token = ServeConfig {
            token: Some("secret".into()),
            ..public
        };
        assert!(matches!(
            prepare(&public_with_token),
            Err(ServeError::PublicWithToken)
        ));
        let loopback = ServeConfig {
            bind: "127.0.0.1:8080".parse().unwrap(),
            ..config
        };
        // Passes the token rule, then fails on the missing archive.
        assert!(matches!(prepare(&loopback), Err(ServeError::Archive(_))));
    }

    #[test]
    fn base_url_uses_a_sane_host_header_only() {
        let bind: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "localhost:8080".parse().unwrap());
        assert_eq!(base_url(&headers, bind), "http://localhost:8080");
        headers.insert(header::HOST, "evil/<x>".parse().unwrap());
        assert_eq!(base_url(&headers, bind), "http://127.0.0.1:9");
    }
}
