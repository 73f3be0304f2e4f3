//! The listening socket and the connections it accepts: `TCP_NODELAY` on each, and a deadline
//! for request heads, which `axum::serve` does not set (it gives hyper no timer, so hyper's
//! own header-read timeout never runs). A connection must deliver each request head within
//! the head time counted from when it was accepted or from the server's last write to it:
//! a client trickling a head byte by byte (slowloris), or idling between requests, is
//! disconnected. Between the end of a head and the server's answer there is no deadline (the
//! request time limit covers that), and every write moves the deadline on, so a long
//! streamed answer is never cut while the client keeps reading it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

/// A TCP listener whose connections carry a request-head deadline.
pub(crate) struct GuardedListener {
    inner: TcpListener,
    head_time: Duration,
}

impl GuardedListener {
    /// Wraps a bound listener; each request head must arrive within `head_time`.
    pub(crate) fn new(inner: TcpListener, head_time: Duration) -> Self {
        Self { inner, head_time }
    }
}

impl axum::serve::Listener for GuardedListener {
    type Io = HeadDeadline<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, address)) => {
                    // Answers are written whole: waiting to coalesce them only adds latency.
                    let _ = stream.set_nodelay(true);
                    return (HeadDeadline::new(stream, self.head_time), address);
                }
                Err(error) => pause_after_accept_error(&error).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection that failed before it was accepted is simply gone; anything else (out of
/// file descriptors) is given a moment to clear instead of spinning.
async fn pause_after_accept_error(error: &io::Error) {
    let per_connection = matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    );
    if !per_connection {
        tracing::error!(%error, "accepting a connection failed: {error}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A stream whose reads fail with `TimedOut` when a request head is awaited for longer than
/// the head time.
pub(crate) struct HeadDeadline<S> {
    inner: S,
    head_time: Duration,
    /// When the connection was accepted or last written to: a head is awaited from then.
    since: Instant,
    /// False between the end of a head and the next write.
    awaiting_head: bool,
    /// How much of a blank line (`\n\n` or `\n\r\n`) the bytes read so far end with.
    blank_line: u8,
    timer: Pin<Box<Sleep>>,
    /// Bytes taken from the writer but not yet written: an answer of hyper's own, given its
    /// reason ([`super::protocol::explained`]).
    pending: Vec<u8>,
}

impl<S> HeadDeadline<S> {
    /// Wraps a freshly accepted stream: its first head is awaited from now.
    pub(crate) fn new(inner: S, head_time: Duration) -> Self {
        let since = Instant::now();
        Self {
            inner,
            head_time,
            since,
            awaiting_head: true,
            blank_line: 0,
            timer: Box::pin(tokio::time::sleep_until(since + head_time)),
            pending: Vec::new(),
        }
    }

    /// Follows the bytes read for the blank line ending a head.
    fn scan(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.blank_line = match (self.blank_line, byte) {
                (1 | 2, b'\n') => {
                    self.awaiting_head = false;
                    0
                }
                (_, b'\n') => 1,
                (1, b'\r') => 2,
                _ => 0,
            };
        }
    }

    /// After a write the next head is awaited from now. The first write after a head also
    /// registers the deadline: hyper may have polled its read before this write, while no
    /// head was awaited, and would not poll it again before the client sends something. A
    /// deadline registered earlier that fires early just makes the next read re-arm it.
    fn wrote(&mut self, written: usize, context: &mut Context<'_>) {
        if written == 0 {
            return;
        }
        self.since = Instant::now();
        if !self.awaiting_head {
            self.awaiting_head = true;
            let _ = self.poll_deadline(context);
        }
    }

    /// Ready with `TimedOut` once the awaited head is late; else registers for the deadline.
    fn poll_deadline(&mut self, context: &mut Context<'_>) -> Poll<io::Error> {
        let deadline = self.since + self.head_time;
        if self.timer.deadline() != deadline {
            self.timer.as_mut().reset(deadline);
        }
        match self.timer.as_mut().poll(context) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "no complete request head within {} s",
                    self.head_time.as_secs_f64()
                ),
            )),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buffer.filled().len();
        match Pin::new(&mut this.inner).poll_read(context, buffer) {
            Poll::Ready(Ok(())) => {
                this.scan(&buffer.filled()[before..]);
                Poll::Ready(Ok(()))
            }
            Poll::Pending if this.awaiting_head => this.poll_deadline(context).map(Err),
            other => other,
        }
    }
}

impl<S: AsyncWrite + Unpin> HeadDeadline<S> {
    /// Writes the pending bytes; ready once none are left.
    fn drain(&mut self, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            match Pin::new(&mut self.inner).poll_write(context, &self.pending) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(written)) => {
                    self.pending.drain(..written);
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if let Some(replacement) = super::protocol::explained(bytes) {
            // hyper's own answer: taken whole, written with its reason by `drain`.
            this.pending = replacement;
            this.wrote(bytes.len(), context);
            let _ = this.drain(context);
            return Poll::Ready(Ok(bytes.len()));
        }
        if this.drain(context)?.is_pending() {
            return Poll::Pending;
        }
        let result = Pin::new(&mut this.inner).poll_write(context, bytes);
        if let Poll::Ready(Ok(written)) = result {
            this.wrote(written, context);
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let mut filled = buffers.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next())
            && super::protocol::explained(only).is_some()
        {
            let only: &[u8] = only;
            return Pin::new(this).poll_write(context, only);
        }
        if this.drain(context)?.is_pending() {
            return Poll::Pending;
        }
        let result = Pin::new(&mut this.inner).poll_write_vectored(context, buffers);
        if let Poll::Ready(Ok(written)) = result {
            this.wrote(written, context);
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.drain(context)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_flush(context)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.drain(context)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_shutdown(context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, duplex};

    const HEAD_TIME: Duration = Duration::from_millis(200);

    fn pair() -> (HeadDeadline<DuplexStream>, DuplexStream) {
        let (server, client) = duplex(4096);
        (HeadDeadline::new(server, HEAD_TIME), client)
    }

    /// Reads until the head deadline fails the read, or gives up after `wait`.
    async fn read_outcome(
        server: &mut HeadDeadline<DuplexStream>,
        wait: Duration,
    ) -> Option<io::ErrorKind> {
        let mut buffer = [0u8; 256];
        match tokio::time::timeout(wait, server.read(&mut buffer)).await {
            Ok(Err(error)) => Some(error.kind()),
            Ok(Ok(_)) | Err(_) => None,
        }
    }

    #[tokio::test]
    async fn a_trickled_head_times_out() {
        let (mut server, mut client) = pair();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        let mut buffer = [0u8; 256];
        let n = server.read(&mut buffer).await.unwrap();
        assert!(n > 0);
        let started = std::time::Instant::now();
        let outcome = read_outcome(&mut server, Duration::from_secs(5)).await;
        assert_eq!(outcome, Some(io::ErrorKind::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn no_deadline_between_a_head_and_the_answer_then_again_after_it() {
        let (mut server, mut client) = pair();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buffer = [0u8; 256];
        let n = server.read(&mut buffer).await.unwrap();
        assert!(n > 0);
        // The head is complete: waiting (computing the answer) has no deadline.
        assert_eq!(read_outcome(&mut server, HEAD_TIME * 3).await, None);
        server.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.unwrap();
        // Answered: the next head is awaited, with a deadline.
        assert_eq!(
            read_outcome(&mut server, HEAD_TIME * 5).await,
            Some(io::ErrorKind::TimedOut)
        );
    }

    #[tokio::test]
    async fn writes_move_the_deadline_on_and_bare_newlines_end_heads() {
        let (mut server, mut client) = pair();
        for _ in 0..4 {
            tokio::time::sleep(HEAD_TIME / 2).await;
            server.write_all(b"piece").await.unwrap();
        }
        // Twice the head time since the accept, but only just since the last write.
        let mut buffer = [0u8; 256];
        let reader = server.read(&mut buffer);
        let writer = async {
            tokio::time::sleep(HEAD_TIME / 2).await;
            client.write_all(b"GET / HTTP/1.0\n\n").await.unwrap();
        };
        let (read, ()) = tokio::join!(reader, writer);
        assert!(read.is_ok(), "{read:?}");
        assert!(
            !server.awaiting_head,
            "a bare-newline blank line ends the head"
        );
    }

    #[tokio::test]
    async fn a_write_arms_the_deadline_without_another_read() {
        let (mut server, mut client) = pair();
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let mut buffer = [0u8; 256];
        let n = server.read(&mut buffer).await.unwrap();
        assert!(n > 0);
        // As hyper does: the read is polled (no head awaited yet), then the answer written;
        // only a wake-up from the deadline brings the task back to its read.
        let mut wrote = false;
        let started = std::time::Instant::now();
        let outcome = tokio::time::timeout(
            HEAD_TIME * 5,
            std::future::poll_fn(|context| {
                let mut read_buffer = ReadBuf::new(&mut buffer);
                if let Poll::Ready(result) =
                    Pin::new(&mut server).poll_read(context, &mut read_buffer)
                {
                    return Poll::Ready(result);
                }
                if !wrote {
                    wrote = true;
                    let answer =
                        Pin::new(&mut server).poll_write(context, b"HTTP/1.1 200 OK\r\n\r\n");
                    assert!(matches!(answer, Poll::Ready(Ok(_))));
                }
                Poll::Pending
            }),
        )
        .await;
        let kind = outcome.expect("an outcome").unwrap_err().kind();
        assert_eq!(kind, io::ErrorKind::TimedOut);
        assert!(
            started.elapsed() < HEAD_TIME * 3,
            "woken by the head deadline, not by the test's timeout"
        );
    }
}
