//! End-to-end tests of [`HttpClient`] against tiny raw TCP servers on 127.0.0.1.

use super::*;
use std::future::Future;
use std::io::Read;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

fn quick_config() -> NetConfig {
    NetConfig {
        connect_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(3),
        ..NetConfig::default()
    }
}

fn client(config: NetConfig) -> HttpClient {
    HttpClient::new(config).unwrap()
}

fn url(text: &str) -> Url {
    Url::parse(text).unwrap()
}

/// Reads from `stream` up to and including the first empty line.
async fn read_request(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let mut byte = [0u8; 1];
    while !received.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => received.push(byte[0]),
            _ => break,
        }
    }
    received
}

/// Accepts one connection and runs `handler` on it.
async fn serve<F, Fut, T>(handler: F) -> (SocketAddr, JoinHandle<T>)
where
    F: FnOnce(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = T> + Send,
    T: Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let handle = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        handler(stream).await
    });
    (address, handle)
}

/// Answers one request with `response`, then keeps the connection open until the client
/// closes it (so the client must stop by framing, not by EOF); yields the request received.
async fn serve_bytes(response: &'static [u8]) -> (SocketAddr, JoinHandle<Vec<u8>>) {
    serve(move |mut stream| async move {
        let request = read_request(&mut stream).await;
        stream.write_all(response).await.unwrap();
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
        request
    })
    .await
}

async fn get(client: &HttpClient, address: SocketAddr, path: &str) -> Fetch {
    let target = url(&format!("http://{address}{path}"));
    client.fetch(&target, &[], Instant::now()).await
}

fn body_bytes(response: &mut Response) -> Vec<u8> {
    let mut bytes = Vec::new();
    response
        .body
        .reader()
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

#[tokio::test]
async fn request_bytes_are_exactly_what_the_server_received() {
    let (address, server) = serve_bytes(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: 5\r\n\r\nhello",
    )
    .await;
    let headers = vec![
        ("User-Agent".to_string(), "ldwarc-test".to_string()),
        ("Accept".to_string(), "text/turtle".to_string()),
    ];
    let target = url(&format!("http://{address}/path?x=1#fragment"));
    let fetch = client(quick_config())
        .fetch(&target, &headers, Instant::now())
        .await;
    let received = server.await.unwrap();
    assert_eq!(fetch.request, received);
    assert_eq!(
        String::from_utf8(received).unwrap(),
        format!(
            "GET /path?x=1 HTTP/1.1\r\nHost: {address}\r\nUser-Agent: ldwarc-test\r\n\
             Accept: text/turtle\r\nConnection: close\r\n\r\n"
        )
    );
    assert_eq!(fetch.remote_addr, Some(address));
    assert!(fetch.sent_at.is_some());
    let mut response = fetch.outcome.unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/turtle"));
    assert_eq!(
        response.head,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: 5\r\n\r\n"
    );
    assert_eq!(body_bytes(&mut response), b"hello");
    assert_eq!(response.truncated, None);
}

#[tokio::test]
async fn chunked_bodies_are_stored_de_chunked_without_transfer_encoding() {
    let (address, _server) = serve_bytes(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-After: 1\r\n\r\n\
          5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
    )
    .await;
    let mut response = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap();
    assert_eq!(response.head, b"HTTP/1.1 200 OK\r\nX-After: 1\r\n\r\n");
    assert_eq!(body_bytes(&mut response), b"hello world");
    assert_eq!(response.truncated, None);
}

/// Writes the head, then `piece` over and over (bounded) until the client goes away.
async fn endless(mut stream: TcpStream, head: &'static [u8], piece: Vec<u8>, pause: Duration) {
    read_request(&mut stream).await;
    if stream.write_all(head).await.is_err() {
        return;
    }
    for _ in 0..20_000 {
        if stream.write_all(&piece).await.is_err() {
            return;
        }
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

#[tokio::test]
async fn endless_bodies_stop_at_max_body_and_spool_to_disk() {
    let (address, _server) = serve(|stream| {
        endless(
            stream,
            b"HTTP/1.1 200 OK\r\n\r\n",
            vec![b'x'; 65_536],
            Duration::ZERO,
        )
    })
    .await;
    let config = NetConfig {
        max_body: 9_000_000,
        ..quick_config()
    };
    let mut response = get(&client(config), address, "/").await.outcome.unwrap();
    assert_eq!(response.truncated, Some(Truncation::Length));
    assert_eq!(response.body.len(), 9_000_000);
    assert!(response.body.is_spooled(), "over 8 MiB goes to disk");
    let bytes = body_bytes(&mut response);
    assert_eq!(bytes.len(), 9_000_000);
    assert!(bytes.iter().all(|&b| b == b'x'));
}

#[tokio::test]
async fn declared_length_over_max_body_is_cut() {
    let (address, _server) =
        serve_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789").await;
    let config = NetConfig {
        max_body: 4,
        ..quick_config()
    };
    let mut response = get(&client(config), address, "/").await.outcome.unwrap();
    assert_eq!(body_bytes(&mut response), b"0123");
    assert_eq!(response.truncated, Some(Truncation::Length));
    assert_eq!(Truncation::Length.as_warc(), "length");
}

#[tokio::test]
async fn trickling_bodies_stop_at_the_total_timeout() {
    let (address, _server) = serve(|stream| {
        endless(
            stream,
            b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n",
            b"z".to_vec(),
            Duration::from_millis(20),
        )
    })
    .await;
    let config = NetConfig {
        total_timeout: Duration::from_millis(300),
        ..quick_config()
    };
    let started = Instant::now();
    let fetch = get(&client(config), address, "/").await;
    assert!(started.elapsed() < Duration::from_secs(2));
    let response = fetch.outcome.unwrap();
    assert_eq!(response.truncated, Some(Truncation::Time));
    assert!(!response.body.is_empty() && response.body.len() < 100);
    assert_eq!(Truncation::Time.as_warc(), "time");
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        stream.write_all(b"HTTP/1.1 200 OK\r\nX: ").await.unwrap();
        tokio::time::sleep(Duration::from_secs(10)).await;
    })
    .await;
    let config = NetConfig {
        total_timeout: Duration::from_millis(200),
        ..quick_config()
    };
    let fetch = get(&client(config), address, "/").await;
    let error = fetch.outcome.unwrap_err();
    assert_eq!(error.kind(), "timeout", "{error}");
    assert!(error.to_string().contains(&address.to_string()), "{error}");
    assert!(!fetch.request.is_empty(), "the request was sent");
}

#[tokio::test]
async fn a_reset_mid_body_is_a_disconnect() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        stream.set_zero_linger().unwrap();
    })
    .await;
    let response = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap();
    assert_eq!(response.truncated, Some(Truncation::Disconnect));
    assert!(response.body.len() <= 10);
    assert_eq!(Truncation::Disconnect.as_warc(), "disconnect");
}

#[tokio::test]
async fn an_early_close_keeps_what_arrived() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
            .await
            .unwrap();
    })
    .await;
    let mut response = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap();
    assert_eq!(response.truncated, Some(Truncation::Disconnect));
    assert_eq!(body_bytes(&mut response), b"0123456789");
}

#[tokio::test]
async fn the_request_waits_for_not_before_but_the_connection_does_not() {
    let (address, server) = serve(|mut stream| async move {
        let accepted = Instant::now();
        let mut first = [0u8; 1];
        stream.read_exact(&mut first).await.unwrap();
        let first_byte = Instant::now();
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .await
            .unwrap();
        (accepted, first_byte)
    })
    .await;
    let not_before = Instant::now() + Duration::from_millis(500);
    let target = url(&format!("http://{address}/"));
    let fetch = client(quick_config()).fetch(&target, &[], not_before).await;
    let (accepted, first_byte) = server.await.unwrap();
    assert!(
        accepted < not_before,
        "connected before the politeness wait ended"
    );
    assert!(first_byte >= not_before);
    assert!(fetch.sent_at.unwrap().1 >= not_before);
    assert_eq!(fetch.outcome.unwrap().status, 204);
}

#[tokio::test]
async fn resolve_rules_route_wildcard_hosts_to_a_port() {
    let (address, server) = serve_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").await;
    let rule = format!("*.test.example=127.0.0.1:{}", address.port());
    let config = NetConfig {
        resolve: vec![rule.parse().unwrap()],
        ..quick_config()
    };
    let target = url("http://x.test.example/doc");
    let fetch = client(config).fetch(&target, &[], Instant::now()).await;
    let received = String::from_utf8(server.await.unwrap()).unwrap();
    assert!(
        received.starts_with("GET /doc HTTP/1.1\r\nHost: x.test.example\r\n"),
        "{received}"
    );
    assert_eq!(fetch.remote_addr, Some(address));
    assert_eq!(fetch.outcome.unwrap().status, 200);
}

#[tokio::test]
async fn plain_http_through_a_proxy_uses_absolute_form_and_hides_credentials() {
    let (address, server) = serve_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").await;
    let proxy = url(&format!("http://user:pw@{address}"));
    let config = NetConfig {
        proxy: ProxyConfig::none().with_override(Some(proxy)),
        ..quick_config()
    };
    let target = url("http://origin.example:8080/p?q=1#frag");
    let fetch = client(config).fetch(&target, &[], Instant::now()).await;
    let received = String::from_utf8(server.await.unwrap()).unwrap();
    assert_eq!(
        received,
        "GET http://origin.example:8080/p?q=1 HTTP/1.1\r\nHost: origin.example:8080\r\n\
         Proxy-Authorization: Basic dXNlcjpwdw==\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(
        String::from_utf8(fetch.request).unwrap(),
        received.replace("Proxy-Authorization: Basic dXNlcjpwdw==\r\n", "")
    );
    assert_eq!(fetch.remote_addr, Some(address));
    assert_eq!(fetch.outcome.unwrap().status, 200);
}

#[tokio::test]
async fn https_through_a_proxy_sends_connect_first() {
    let (address, server) = serve(|mut stream| async move {
        let connect = read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        connect
    })
    .await;
    let config = NetConfig {
        proxy: ProxyConfig::none().with_override(Some(url(&format!("http://u:secret@{address}")))),
        ..quick_config()
    };
    let fetch = client(config)
        .fetch(&url("https://origin.example/x"), &[], Instant::now())
        .await;
    let connect = String::from_utf8(server.await.unwrap()).unwrap();
    assert_eq!(
        connect,
        "CONNECT origin.example:443 HTTP/1.1\r\nHost: origin.example:443\r\n\
         Proxy-Authorization: Basic dTpzZWNyZXQ=\r\n\r\n"
    );
    let error = fetch.outcome.unwrap_err();
    assert_eq!(
        error,
        FetchError::ProxyRefused {
            proxy: address.to_string(),
            target: "origin.example:443".to_string(),
            status: 407
        }
    );
    assert!(
        fetch.request.is_empty(),
        "the CONNECT exchange is not the archived request"
    );
}

#[tokio::test]
async fn after_connect_succeeds_tls_starts_in_the_tunnel() {
    let (address, server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .unwrap();
        let mut record_type = [0u8; 1];
        stream.read_exact(&mut record_type).await.unwrap();
        record_type[0]
    })
    .await;
    let config = NetConfig {
        proxy: ProxyConfig::none().with_override(Some(url(&format!("http://{address}")))),
        ..quick_config()
    };
    let fetch = client(config)
        .fetch(&url("https://origin.example/x"), &[], Instant::now())
        .await;
    assert_eq!(server.await.unwrap(), 0x16, "a TLS handshake record");
    assert_eq!(fetch.outcome.unwrap_err().kind(), "tls");
}

#[tokio::test]
async fn no_proxy_hosts_connect_directly() {
    let (address, _server) = serve_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").await;
    let unused = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_proxy = url(&format!("http://{}", unused.local_addr().unwrap()));
    drop(unused);
    let config = NetConfig {
        proxy: ProxyConfig::none()
            .with_override(Some(dead_proxy))
            .with_no_proxy(".direct.example"),
        resolve: vec![format!("*=127.0.0.1:{}", address.port()).parse().unwrap()],
        ..quick_config()
    };
    let fetch = client(config)
        .fetch(&url("http://www.direct.example/"), &[], Instant::now())
        .await;
    assert_eq!(fetch.outcome.unwrap().status, 200);
    assert!(fetch.request.starts_with(b"GET / HTTP/1.1\r\n"));
}

#[tokio::test]
async fn interim_responses_are_skipped() {
    let (address, _server) = serve_bytes(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n\
          HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    )
    .await;
    let mut response = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(
        response.head,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
    );
    assert_eq!(body_bytes(&mut response), b"ok");
}

#[tokio::test]
async fn lenient_heads_and_close_delimited_bodies() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.0 200 OK\nX-Folded: a\n  b\nX-Raw: \xff\n\nuntil close")
            .await
            .unwrap();
    })
    .await;
    let mut response = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap();
    assert_eq!(
        response.head,
        b"HTTP/1.0 200 OK\nX-Folded: a\n  b\nX-Raw: \xff\n\n"
    );
    assert_eq!(response.header("x-folded"), Some("a b"));
    assert_eq!(response.header("x-raw"), Some("\u{fffd}"));
    assert_eq!(body_bytes(&mut response), b"until close");
    assert_eq!(response.truncated, None);
}

#[tokio::test]
async fn garbage_is_a_malformed_response() {
    let (address, _server) = serve_bytes(b"<html>not http at all").await;
    let error = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap_err();
    assert_eq!(error.kind(), "malformed-response", "{error}");
    assert!(error.to_string().contains("<html>"), "{error}");
}

#[tokio::test]
async fn conflicting_content_lengths_are_malformed() {
    let (address, _server) =
        serve_bytes(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc").await;
    let error = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap_err();
    assert_eq!(error.kind(), "malformed-response", "{error}");
}

#[tokio::test]
async fn a_head_longer_than_max_head_is_an_error() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n").await;
        for _ in 0..1000 {
            if stream
                .write_all(b"X-Filler: aaaaaaaaaaaaaaaaaaaaaaaa\r\n")
                .await
                .is_err()
            {
                return;
            }
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let config = NetConfig {
        max_head: 1024,
        ..quick_config()
    };
    let error = get(&client(config), address, "/")
        .await
        .outcome
        .unwrap_err();
    assert_eq!(
        error,
        FetchError::HeadTooLarge {
            url: format!("http://{address}/"),
            limit: 1024
        }
    );
}

#[tokio::test]
async fn a_silent_close_is_no_response() {
    let (address, _server) = serve(|mut stream| async move {
        read_request(&mut stream).await;
    })
    .await;
    let error = get(&client(quick_config()), address, "/")
        .await
        .outcome
        .unwrap_err();
    assert_eq!(error.kind(), "no-response", "{error}");
}

#[tokio::test]
async fn refused_connections_and_bad_schemes_fail_cleanly() {
    let unused = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = unused.local_addr().unwrap();
    drop(unused);
    let fetch = get(&client(quick_config()), address, "/").await;
    let error = fetch.outcome.unwrap_err();
    assert_eq!(error.kind(), "connect", "{error}");
    assert!(error.to_string().contains(&address.to_string()), "{error}");
    assert!(fetch.request.is_empty() && fetch.sent_at.is_none());

    let fetch = client(quick_config())
        .fetch(&url("ftp://a.example/"), &[], Instant::now())
        .await;
    assert_eq!(fetch.outcome.unwrap_err().kind(), "unsupported-scheme");
}

#[test]
fn fetch_futures_can_be_spawned() {
    fn assert_send<T: Send>(_: &T) {}
    let client = client(NetConfig::default());
    let target = url("http://a.example/");
    let future = client.fetch(&target, &[], Instant::now());
    assert_send(&future);
    let _cheap_copy = client.clone();
}
