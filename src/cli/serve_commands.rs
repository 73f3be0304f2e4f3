//! `ldwarc serve`: argument parsing for the HTTP server in [`ldwarc_serve`].

use std::net::{SocketAddr, ToSocketAddrs};

use clap::Args;

use std::time::Duration;

use super::{RootsArg, flags};
use ldwarc_serve::{Limits, ServeConfig, run};

/// Arguments of `ldwarc serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub(super) roots: RootsArg,
    /// Address to listen on (port 0 picks a free port; the address is printed). Binding to a
    /// non-loopback address needs --token, or --public.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    bind: String,
    /// Secret every request must carry: `Authorization: Bearer <token>`, or `?token=<token>`
    /// once (a cookie then keeps it). Required for non-loopback binds.
    #[arg(
        long,
        env = "LDWARC_SERVE_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,
    /// Time a request may compute before it is answered 503.
    #[arg(long, default_value = "20s", value_name = "DURATION", value_parser = flags::positive_duration_seconds)]
    request_timeout: Duration,
    /// Time a connection may take to send a request head (from its accept or from the last
    /// answer): slower or idle clients are disconnected.
    #[arg(long, default_value = "20s", value_name = "DURATION", value_parser = flags::positive_duration_seconds)]
    head_timeout: Duration,
    /// Most captures a CDX query may hold in memory before it is refused (403): one URL's
    /// captures, or the whole answer for sort=reverse, closest= and limit=-N (answers in
    /// index order stream, whatever their size).
    #[arg(long, default_value_t = 250_000, value_name = "N", value_parser = flags::positive_count)]
    max_cdx_rows: usize,
    /// Memory the requests in flight may hold together (rows of CDX queries answered in
    /// another order than the index's, pieces of answers waiting for their clients, and a
    /// quarter for each of the at most 2 SPARQL queries evaluated at once, stopped past it);
    /// a request that would need more is answered 503 with Retry-After. The default, 320MiB,
    /// keeps a server under a burst of queries within half of a 1 GB machine; at least 2MiB.
    #[arg(long, value_name = "SIZE", value_parser = flags::size)]
    memory_budget: Option<u64>,
    /// Answer CDX queries from this ZipNum index (a directory holding index.idx, or the .idx
    /// file; `ldwarc cdx --zipnum DIR` writes one) instead of the capture index, with pywb's
    /// pagination: page, pageSize, showNumPages, showPagedIndex. Replay still uses the
    /// capture index.
    #[arg(long, value_name = "PATH")]
    zipnum: Option<std::path::PathBuf>,
    /// Without --zipnum, CDX pages (page, pageSize, showNumPages) are cut from the capture
    /// index in blocks of this many captures, as a ZipNum index is; a page is pageSize blocks.
    #[arg(long, default_value_t = 3000, value_name = "N", value_parser = flags::positive_count)]
    cdx_block_captures: usize,
    /// Public read-only mode: serve the Wayback, CDX and Memento routes and the pages to
    /// anyone, on any address, without a token; every other endpoint is refused.
    #[arg(long, conflicts_with = "token")]
    public: bool,
}

/// `ldwarc serve`: runs until killed. Exit status 2 for a configuration the server refuses.
pub fn serve(args: ServeArgs) -> std::io::Result<i32> {
    crate::allocator::configure_for_server();
    let bind = match resolve_bind(&args.bind) {
        Ok(bind) => bind,
        Err(message) => {
            tracing::error!(target: super::logging::CLI_TARGET, "{message}");
            return Ok(2);
        }
    };
    let limits = Limits {
        request_time: args.request_timeout.max(Duration::from_millis(100)),
        head_time: args.head_timeout.max(Duration::from_millis(100)),
        max_cdx_rows: args.max_cdx_rows,
        memory_budget: args
            .memory_budget
            .map_or(ldwarc_serve::DEFAULT_MEMORY_BUDGET, |bytes| {
                usize::try_from(bytes).unwrap_or(usize::MAX)
            }),
        cdx_block_captures: args.cdx_block_captures.max(1),
        ..Limits::default()
    };
    let config = ServeConfig {
        roots: args.roots.roots,
        bind,
        token: args.token,
        limits,
        zipnum: args.zipnum,
        public: args.public,
        // `/sparql` queries run in workers of this same program (`ldwarc sparql --worker`).
        sparql_worker: ldwarc_timetravel::sparql::worker::this_program().ok(),
    };
    match run(config, super::output::print_listening) {
        Ok(()) => Ok(0),
        Err(error) => {
            tracing::error!(target: super::logging::CLI_TARGET, "{error}");
            Ok(2)
        }
    }
}

fn resolve_bind(text: &str) -> Result<SocketAddr, String> {
    text.to_socket_addrs()
        .map_err(|e| format!("--bind {text}: {e}"))?
        .next()
        .ok_or_else(|| format!("--bind {text}: no address"))
}

/// `ldwarc serve`'s EXAMPLES, EXIT STATUS, ENVIRONMENT and FILES (help and man page).
pub(super) const SERVE_HELP: super::help::Sections = super::help::Sections {
    examples: &[
        (
            "ldwarc serve --root /data/ld",
            "CDX API, Memento and pages on http://127.0.0.1:8080/",
        ),
        (
            "ldwarc serve --bind 0.0.0.0:8080 --token s3cret",
            "on every interface, token required",
        ),
    ],
    exit_status: &[("2", "the configuration is refused (bind address, token)")],
    environment: &[("LDWARC_SERVE_TOKEN", "the token, instead of --token")],
    files: super::help::ROOT_FILES,
};
