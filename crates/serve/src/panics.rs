//! A panic in one request never ends the server nor goes unexplained: every request runs
//! inside [`catch_panics`], which answers 500 for a handler that panicked on its connection's
//! thread and logs the panic with the request; work handed to blocking threads
//! ([`super::blocking`], [`super::stream`]) catches its own panics and logs them the same way,
//! with the request it was doing ([`current_request`]).

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use super::text_response;

tokio::task_local! {
    /// The request the current task answers (`GET /path`), for the log of a panic.
    static REQUEST: Arc<str>;
}

/// Runs the rest of the request's handling, answering 500 (and logging) if it panics.
pub(crate) async fn catch_panics(request: Request, next: Next) -> Response {
    // The path only: a query may carry the token.
    let what: Arc<str> = format!("{} {}", request.method(), request.uri().path()).into();
    let answer = REQUEST.scope(what.clone(), CatchUnwind(Box::pin(next.run(request))));
    match answer.await {
        Ok(response) => response,
        Err(panic) => {
            log(&what, panic.as_ref());
            internal_error()
        }
    }
}

/// The request the current task answers, for work handed elsewhere to log with.
pub(crate) fn current_request() -> Arc<str> {
    REQUEST
        .try_with(Arc::clone)
        .unwrap_or_else(|_| Arc::from("(no request)"))
}

/// Runs `work`, turning a panic into `None` after logging it with `request`.
pub(crate) fn caught<T>(request: &str, work: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(value) => Some(value),
        Err(panic) => {
            log(request, panic.as_ref());
            None
        }
    }
}

/// The answer to a request whose handling panicked.
pub(crate) fn internal_error() -> Response {
    text_response(StatusCode::INTERNAL_SERVER_ERROR, "internal error\n")
}

/// Logs a panic with the request it ended.
fn log(request: &str, panic: &(dyn Any + Send)) {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    tracing::error!(%request, panic = %message, "a request panicked; answered 500");
}

/// A future whose panics come out as `Err` instead of unwinding through its poller.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(context))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The status line and the body of `GET path`.
    async fn fetch(port: u16, path: &str) -> (String, String) {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer).to_string();
        let status = answer.lines().next().unwrap_or("").to_string();
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
        (status, body.to_string())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_handler_is_answered_500_and_the_server_goes_on() {
        async fn boom() -> Response {
            panic!("a bug in a handler")
        }
        async fn seen() -> Response {
            text_response(StatusCode::OK, &current_request())
        }
        async fn boom_elsewhere() -> Response {
            let request = current_request();
            tokio::task::spawn_blocking(move || {
                caught(&request, || -> Response {
                    panic!("a bug in blocking work")
                })
                .unwrap_or_else(internal_error)
            })
            .await
            .unwrap()
        }
        let router = Router::new()
            .route("/boom", get(boom))
            .route("/seen", get(seen))
            .route("/elsewhere", get(boom_elsewhere))
            .layer(axum::middleware::from_fn(catch_panics));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, router).await });
        let failed = (
            "HTTP/1.1 500 Internal Server Error".to_string(),
            "internal error\n".to_string(),
        );
        for _ in 0..3 {
            assert_eq!(fetch(port, "/boom").await, failed);
            assert_eq!(fetch(port, "/elsewhere").await, failed);
            let seen = ("HTTP/1.1 200 OK".to_string(), "GET /seen".to_string());
            assert_eq!(fetch(port, "/seen?token=secret").await, seen);
        }
        assert_eq!(
            &*tokio::task::spawn_blocking(current_request).await.unwrap(),
            "(no request)"
        );
    }
}
