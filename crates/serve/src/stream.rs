//! Answers produced by blocking work (index scans) and sent while they are being produced.
//! The work runs on a blocking thread and hands the body over in pieces through a bounded
//! channel, so an answer of any size holds a bounded amount of memory: at most
//! [`CHANNEL_PIECES`] pieces of about [`PIECE_BYTES`] each wait for a slow client. An answer
//! that ends before its first piece fills is sent whole, with a `Content-Length`; a failure
//! before anything was sent becomes its own answer (403, 500, …), a failure after it cuts the
//! chunked body short so the client sees an incomplete answer rather than a wrong one.
//!
//! Small bounded work (an exact-URL query) may first run on the connection's own thread
//! ([`small_inline_or_streamed`]): handing it to a blocking thread and back costs two thread
//! wake-ups, more than the work itself. Such an attempt gives up as soon as its answer fills
//! a piece, and the request is then answered streamed as above.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::runtime::Handle;
use tokio::sync::mpsc;

use ldwarc_timetravel::sparql::worker::AbandonedProbe;

use super::budget::{self, Reservation};
use super::{State, text_response};

/// Bytes gathered before a piece is handed to the connection.
pub(crate) const PIECE_BYTES: usize = 64 * 1024;

/// Pieces that may wait in the channel for the client.
pub(crate) const CHANNEL_PIECES: usize = 4;

/// What the producing thread hands to the connection.
enum Piece {
    /// The whole body: the answer ended before its first piece filled.
    Whole(Bytes),
    /// The next piece of a streamed body.
    Data(Bytes),
    /// The streamed body is complete.
    End,
    /// The work failed: answered so, if nothing was sent yet; else the body is cut.
    Failed(Failure),
}

/// Why the work behind a streamed answer failed: the status and the message to answer with
/// when nothing was sent yet.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The status of the answer.
    pub(crate) status: StatusCode,
    /// One line saying why (the answer's body).
    pub(crate) message: String,
    /// The memory budget was spent: answered 503 with `Retry-After`.
    pub(crate) over_budget: bool,
    /// The server is busy, not the request wrong: the answer carries `Retry-After`.
    pub(crate) retry: bool,
}

impl Failure {
    /// A failure with `status` and `message`.
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            over_budget: false,
            retry: false,
        }
    }

    /// A failure with `status` and `message` whose answer asks the client to retry later.
    pub(crate) fn retry_later(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            retry: true,
            ..Self::new(status, message)
        }
    }

    /// The failure of a request whose rows do not fit in the memory budget.
    pub(crate) fn over_budget() -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: String::new(),
            over_budget: true,
            retry: true,
        }
    }

    /// The answer telling the client.
    fn answer(&self) -> Response {
        if self.over_budget {
            return budget::refusal();
        }
        if self.retry {
            let mut response = budget::refusal_saying(&self.message);
            *response.status_mut() = self.status;
            return response;
        }
        text_response(self.status, &self.message)
    }
}

/// Budget bytes a streamed answer holds from its start: the pieces that may wait in the
/// channel, the one being written and the one the connection is sending.
pub(crate) const BASE_COST: usize = (CHANNEL_PIECES + 2) * (PIECE_BYTES + PIECE_BYTES / 4);

// The smallest budget accepted admits one streamed answer.
const _: () = assert!(BASE_COST <= super::budget::MIN_MEMORY_BUDGET);

/// How often a producer whose answer has started retries a reservation that did not fit.
const BUDGET_RETRY: Duration = Duration::from_millis(20);

/// The producing side of a streamed answer: the body is written into [`buffer`](Self::buffer)
/// and handed over piece by piece with [`flush_if_full`](Self::flush_if_full).
pub(crate) struct BodyWriter {
    /// None for an inline attempt, which never hands pieces over.
    sender: Option<mpsc::Sender<Piece>>,
    runtime: Handle,
    buffer: Vec<u8>,
    /// Longest the producer waits for room in the channel before it gives the client up.
    stall: Duration,
    sent_any: bool,
    gone: bool,
    /// An inline attempt whose answer filled a piece: it must be answered streamed.
    overflowed: bool,
    /// What this answer holds of the server's memory budget.
    reservation: Reservation,
    /// Of which bytes reserved for rows.
    row_bytes: usize,
}

impl BodyWriter {
    /// The body written so far and not yet handed over.
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buffer
    }

    /// Hands the buffer over once it holds a piece's worth. False once the client is gone
    /// (disconnected, or accepted nothing for the stall limit): the producer should stop.
    pub(crate) fn flush_if_full(&mut self) -> bool {
        if self.buffer.len() >= PIECE_BYTES && !self.gone {
            if self.sender.is_none() {
                self.overflowed = true;
                self.gone = true;
                return false;
            }
            let piece = Bytes::from(std::mem::replace(
                &mut self.buffer,
                Vec::with_capacity(PIECE_BYTES + PIECE_BYTES / 4),
            ));
            self.sent_any = true;
            self.send(Piece::Data(piece));
        }
        !self.gone
    }

    /// Whether the client went away (nothing more will be sent).
    pub(crate) fn is_gone(&self) -> bool {
        self.gone
    }

    /// A probe another thread can ask whether the client went away (the answer's receiver is
    /// dropped): a worker that computes long before writing is stopped then. Always false
    /// for an inline attempt, which has no receiver yet.
    pub(crate) fn abandoned_probe(&self) -> AbandonedProbe {
        let sender = self.sender.clone();
        AbandonedProbe(std::sync::Arc::new(move || {
            sender.as_ref().is_some_and(mpsc::Sender::is_closed)
        }))
    }

    /// Whether nobody waits for this answer any more: the client went away, or the answer
    /// timed out (its receiver is dropped). The producer should stop at once.
    pub(crate) fn cancelled(&self) -> bool {
        self.gone || self.sender.as_ref().is_some_and(|s| s.is_closed())
    }

    /// Reserves `bytes` of the memory budget for rows about to be kept. A reservation that
    /// does not fit fails at once (the answer becomes 503), unless the answer has started (a
    /// cut body would be a wrong answer) or `bounded` says the request holds a bounded number
    /// of rows: those wait, as long as a stalled client is waited for, for the unbounded
    /// requests, which fail at once, to return memory.
    pub(crate) fn reserve(&mut self, bytes: usize, bounded: bool) -> bool {
        if self.reservation.grow(bytes) {
            self.row_bytes += bytes;
            return true;
        }
        if !self.sent_any && !bounded {
            return false;
        }
        let deadline = std::time::Instant::now() + self.stall;
        while std::time::Instant::now() < deadline && !self.cancelled() {
            std::thread::sleep(BUDGET_RETRY);
            if self.reservation.grow(bytes) {
                self.row_bytes += bytes;
                return true;
            }
        }
        false
    }

    /// Returns `bytes` reserved with [`reserve`](Self::reserve) (rows dropped).
    pub(crate) fn release(&mut self, bytes: usize) {
        let bytes = bytes.min(self.row_bytes);
        self.row_bytes -= bytes;
        self.reservation.shrink(bytes);
    }

    /// Ends the answer: the rest of the body, or the whole body when nothing was sent yet.
    fn finish(mut self) {
        let rest = Bytes::from(std::mem::take(&mut self.buffer));
        if !self.sent_any {
            self.send(Piece::Whole(rest));
            return;
        }
        if !rest.is_empty() {
            self.send(Piece::Data(rest));
        }
        self.send(Piece::End);
    }

    /// Ends the answer with a failure.
    fn fail(mut self, failure: Failure) {
        self.send(Piece::Failed(failure));
    }

    /// Hands a piece over, waiting (at most the stall limit) only when the channel is full.
    fn send(&mut self, piece: Piece) {
        let Some(sender) = self.sender.as_ref().filter(|_| !self.gone) else {
            return;
        };
        let piece = match sender.try_send(piece) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.gone = true;
                return;
            }
            Err(mpsc::error::TrySendError::Full(piece)) => piece,
        };
        let sent = self
            .runtime
            .block_on(sender.send_timeout(piece, self.stall));
        self.gone = sent.is_err();
    }
}

/// Runs `work` on a blocking thread and answers with what it writes: `200` with
/// `content_type`, sent whole when it is small and streamed when it is not. When `work`
/// fails before the first piece is sent, the failure is the answer.
/// The first piece must come within the request time limit (else 503); later pieces have no
/// time limit, but a client that accepts nothing for that long is given up.
pub(crate) async fn streamed(
    state: &State,
    content_type: &'static str,
    work: impl FnOnce(&super::AppState, &mut BodyWriter) -> Result<(), Failure> + Send + 'static,
) -> Response {
    let Some(reservation) = state.budget.reserve(BASE_COST) else {
        return budget::refusal();
    };
    let limit = state.limits.request_time;
    let (sender, mut receiver) = mpsc::channel(CHANNEL_PIECES);
    let mut writer = BodyWriter {
        sender: Some(sender),
        runtime: Handle::current(),
        buffer: Vec::new(),
        stall: limit,
        sent_any: false,
        gone: false,
        overflowed: false,
        reservation,
        row_bytes: 0,
    };
    let state = state.clone();
    let request = super::panics::current_request();
    drop(tokio::task::spawn_blocking(move || {
        // A panic (logged) is a failure: 500, or a cut body once the answer has started.
        match super::panics::caught(&request, || work(&state, &mut writer)) {
            Some(Ok(())) => writer.finish(),
            Some(Err(failure)) => writer.fail(failure),
            None => writer.fail(Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error\n",
            )),
        }
    }));
    let first = match tokio::time::timeout(limit, receiver.recv()).await {
        Ok(Some(piece)) => piece,
        Ok(None) => return text_response(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n"),
        // Dropping the receiver stops the producer at its next piece.
        Err(_elapsed) => return super::too_slow(limit),
    };
    let body = match first {
        Piece::Whole(bytes) => Body::from(bytes),
        Piece::Data(bytes) => Body::from_stream(PieceStream {
            first: Some(bytes),
            receiver,
            ended: false,
        }),
        Piece::Failed(failure) => return failure.answer(),
        Piece::End => Body::empty(),
    };
    with_content_type(Response::new(body), content_type)
}

fn with_content_type(mut response: Response, content_type: &'static str) -> Response {
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// Like [`streamed`], for work that is small and bounded (one URL's captures): it first runs
/// on this thread, and its answer is sent whole when it ends before filling a piece. Else
/// the attempt stops there and `work` runs again, streamed from a blocking thread.
pub(crate) async fn small_inline_or_streamed<W>(
    state: &State,
    content_type: &'static str,
    work: W,
) -> Response
where
    W: Fn(&super::AppState, &mut BodyWriter) -> Result<(), Failure> + Send + Sync + 'static,
{
    let Some(reservation) = state.budget.reserve(PIECE_BYTES + PIECE_BYTES / 4) else {
        return budget::refusal();
    };
    let mut writer = BodyWriter {
        sender: None,
        runtime: Handle::current(),
        buffer: Vec::new(),
        stall: state.limits.request_time,
        sent_any: false,
        gone: false,
        overflowed: false,
        reservation,
        row_bytes: 0,
    };
    let attempt = super::panics::caught(&super::panics::current_request(), || {
        work(state, &mut writer)
    });
    match attempt {
        None => super::panics::internal_error(),
        Some(_) if writer.overflowed => {
            drop(writer);
            streamed(state, content_type, work).await
        }
        Some(Err(failure)) => failure.answer(),
        Some(Ok(())) => with_content_type(
            Response::new(Body::from(std::mem::take(&mut writer.buffer))),
            content_type,
        ),
    }
}

/// The pieces of a streamed body as the connection takes them.
struct PieceStream {
    first: Option<Bytes>,
    receiver: mpsc::Receiver<Piece>,
    ended: bool,
}

impl futures_core::Stream for PieceStream {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(first)));
        }
        if self.ended {
            return Poll::Ready(None);
        }
        let piece = match self.receiver.poll_recv(context) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(piece) => piece,
        };
        match piece {
            Some(Piece::Data(bytes) | Piece::Whole(bytes)) => Poll::Ready(Some(Ok(bytes))),
            Some(Piece::End) => {
                self.ended = true;
                Poll::Ready(None)
            }
            Some(Piece::Failed(_)) | None => {
                // Cutting the body short tells the client the answer is incomplete.
                self.ended = true;
                Poll::Ready(Some(Err(std::io::Error::other(
                    "the answer failed while it was being sent",
                ))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppState, Limits};

    fn state(root: &std::path::Path) -> State {
        std::fs::create_dir_all(root.join("index")).unwrap();
        let archive = ldwarc_timetravel::replay::ReplayArchive::open(root).unwrap();
        std::sync::Arc::new(AppState {
            archive,
            zipnum: None,
            token: None,
            public: false,
            limits: Limits {
                request_time: Duration::from_secs(2),
                ..Limits::default()
            },
            budget: crate::budget::MemoryBudget::new(crate::budget::DEFAULT_MEMORY_BUDGET),
            bind: "127.0.0.1:0".parse().unwrap(),
            overview: std::sync::Mutex::new(None),
            aggregates: crate::aggregates::Cache::default(),
            triples: crate::tpf::TripleIndexes::new(vec![root.to_path_buf()]),
            roots: vec![root.to_path_buf()],
            sparql_worker: None,
            sparql_workers: std::sync::atomic::AtomicUsize::new(0),
            publish: crate::publish::Cache::default(),
        })
    }

    async fn body_of(response: Response) -> Result<Vec<u8>, String> {
        axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .map(|bytes| bytes.to_vec())
            .map_err(|error| error.to_string())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn small_answers_are_whole_large_ones_stream() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(dir.path());
        let small = streamed(&state, "text/plain", |_, out| {
            out.buffer().extend_from_slice(b"hello\n");
            Ok(())
        })
        .await;
        assert_eq!(
            axum::body::HttpBody::size_hint(small.body()).exact(),
            Some(6)
        );
        assert_eq!(body_of(small).await.unwrap(), b"hello\n");

        let line = b"0123456789abcdef0123456789abcdef\n";
        let large = streamed(&state, "text/plain", move |_, out| {
            for _ in 0..20_000 {
                out.buffer().extend_from_slice(line);
                if !out.flush_if_full() {
                    break;
                }
            }
            Ok(())
        })
        .await;
        assert_eq!(
            axum::body::HttpBody::size_hint(large.body()).exact(),
            None,
            "streamed"
        );
        assert_eq!(body_of(large).await.unwrap().len(), 20_000 * line.len());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn inline_attempts_answer_small_work_whole_and_hand_large_work_over() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(dir.path());
        let on_this_thread = std::thread::current().id();
        let small = small_inline_or_streamed(&state, "text/plain", move |_, out| {
            assert_eq!(std::thread::current().id(), on_this_thread, "ran inline");
            out.buffer().extend_from_slice(b"one row\n");
            Ok(())
        })
        .await;
        assert_eq!(
            axum::body::HttpBody::size_hint(small.body()).exact(),
            Some(8)
        );
        assert_eq!(body_of(small).await.unwrap(), b"one row\n");

        let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = runs.clone();
        let large = small_inline_or_streamed(&state, "text/plain", move |_, out| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            for _ in 0..3 * PIECE_BYTES / 8 {
                out.buffer().extend_from_slice(b"1234567\n");
                if !out.flush_if_full() {
                    break;
                }
            }
            Ok(())
        })
        .await;
        assert_eq!(axum::body::HttpBody::size_hint(large.body()).exact(), None);
        assert_eq!(body_of(large).await.unwrap().len(), 3 * PIECE_BYTES);
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 2, "retried");

        let refused = small_inline_or_streamed(&state, "text/plain", |_, _| {
            Err(Failure::new(StatusCode::FORBIDDEN, "no\n"))
        })
        .await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let panicked = small_inline_or_streamed(&state, "text/plain", |_, _| panic!("bug")).await;
        assert_eq!(panicked.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn failures_answer_before_the_first_piece_and_cut_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(dir.path());
        let refused = streamed(&state, "text/plain", |_, out| {
            out.buffer().extend_from_slice(b"partial");
            Err(Failure::new(StatusCode::FORBIDDEN, "no\n"))
        })
        .await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);

        let cut = streamed(&state, "text/plain", |_, out| {
            out.buffer().resize(PIECE_BYTES * 2, b'x');
            out.flush_if_full();
            Err(Failure::new(StatusCode::INTERNAL_SERVER_ERROR, "disk\n"))
        })
        .await;
        assert_eq!(cut.status(), StatusCode::OK);
        assert!(body_of(cut).await.is_err(), "the body is cut short");

        let panicked = streamed(&state, "text/plain", |_, _| panic!("bug")).await;
        assert_eq!(panicked.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_that_goes_away_stops_the_producer() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(dir.path());
        let (stopped_tx, stopped_rx) = std::sync::mpsc::channel();
        let response = streamed(&state, "text/plain", move |_, out| {
            let mut pieces = 0;
            loop {
                out.buffer().resize(PIECE_BYTES, b'x');
                if !out.flush_if_full() {
                    break;
                }
                pieces += 1;
            }
            stopped_tx.send(pieces).unwrap();
            Ok(())
        })
        .await;
        drop(response);
        let pieces = tokio::task::spawn_blocking(move || {
            stopped_rx.recv_timeout(Duration::from_secs(5)).unwrap()
        })
        .await
        .unwrap();
        assert!(pieces <= CHANNEL_PIECES + 1, "{pieces} pieces produced");
    }
}
