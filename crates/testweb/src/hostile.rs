//! Hostile server behaviours: hangs, endless and trickling bodies, a gzip bomb, redirect
//! loops, broken Turtle, connection resets, non-HTTP bytes, a huge head and rate limiting.

use std::fmt::Write as _;
use std::io;
use std::sync::OnceLock;
use std::time::Duration;

use flate2::{Compress, Compression, FlushCompress};

use super::model::{Doc, Hostile, Resource, Term, Triple};
use super::respond::{self, absolute_location};
use super::server::Exchange;

/// The size the gzip bomb inflates to: 1 GiB of spaces (valid, empty Turtle).
pub const GZIP_BOMB_INFLATED_SIZE: u64 = 1 << 30;

const TURTLE: &str = "text/turtle; charset=utf-8";

/// Answers with the hostile behaviour.
pub(crate) async fn serve(mut exchange: Exchange, behaviour: &Hostile) -> io::Result<()> {
    match behaviour {
        Hostile::HangBeforeHead => {
            exchange.wait_for_client_close().await;
            Ok(())
        }
        Hostile::HangAfterHead => hang_after_head(&mut exchange).await,
        Hostile::EndlessBody => endless_body(&mut exchange).await,
        Hostile::Trickle { bytes_per_sec } => trickle(&mut exchange, *bytes_per_sec).await,
        Hostile::GzipBomb => gzip_bomb_response(&mut exchange).await,
        Hostile::RedirectLoop => {
            let location = absolute_location(&exchange.host, &exchange.path);
            let headers = [("Location", location)];
            exchange.respond(302, &headers, b"again\n").await
        }
        Hostile::InvalidUtf8 => {
            let body = invalid_utf8_body(&exchange);
            exchange
                .respond(200, &[("Content-Type", TURTLE.into())], &body)
                .await
        }
        Hostile::MalformedRdf => {
            let body = malformed_body(&exchange);
            exchange
                .respond(200, &[("Content-Type", TURTLE.into())], &body)
                .await
        }
        Hostile::Reset => {
            exchange.reset();
            Ok(())
        }
        Hostile::ResetMidBody => reset_mid_body(exchange).await,
        Hostile::Garbage => garbage(&mut exchange).await,
        Hostile::HugeHead => huge_head(&mut exchange).await,
        Hostile::TooManyRequests { retry_after_secs } => {
            too_many_requests(&mut exchange, *retry_after_secs).await
        }
    }
}

async fn hang_after_head(exchange: &mut Exchange) -> io::Result<()> {
    let headers = [
        ("Content-Type", TURTLE.to_string()),
        ("Content-Length", "1000".to_string()),
    ];
    exchange.send_head(200, &headers).await?;
    exchange.wait_for_client_close().await;
    Ok(())
}

/// Valid Turtle lines about fragments of `url`, lines `first..` until at least `size` bytes.
fn filler_turtle(url: &str, first: u64, size: usize) -> (String, u64) {
    let mut text = String::with_capacity(size + 256);
    let mut line = first;
    while text.len() < size {
        let _ = writeln!(text, "<{url}#n{line}> <{url}#next> <{url}#n{}> .", line + 1);
        line += 1;
    }
    (text, line)
}

async fn endless_body(exchange: &mut Exchange) -> io::Result<()> {
    let headers = [
        ("Content-Type", TURTLE.to_string()),
        ("Transfer-Encoding", "chunked".to_string()),
    ];
    exchange.send_head(200, &headers).await?;
    if exchange.is_head() {
        return exchange.finish().await;
    }
    let url = exchange.url();
    let mut line = 0;
    loop {
        let (text, next) = filler_turtle(&url, line, 64 * 1024);
        line = next;
        let mut chunk = format!("{:x}\r\n", text.len()).into_bytes();
        chunk.extend_from_slice(text.as_bytes());
        chunk.extend_from_slice(b"\r\n");
        exchange.send(&chunk).await?;
    }
}

/// How many bytes to send per step, and the pause between steps, for a rate.
fn trickle_step(bytes_per_sec: u64) -> (usize, Duration) {
    let rate = bytes_per_sec.max(1);
    let step = (rate / 10).max(1);
    let pause = Duration::from_secs_f64(step as f64 / rate as f64);
    (usize::try_from(step).unwrap_or(usize::MAX), pause)
}

async fn trickle(exchange: &mut Exchange, bytes_per_sec: u64) -> io::Result<()> {
    let (body, _) = filler_turtle(&exchange.url(), 0, 64 * 1024);
    let headers = [
        ("Content-Type", TURTLE.to_string()),
        ("Content-Length", body.len().to_string()),
    ];
    exchange.send_head(200, &headers).await?;
    if !exchange.is_head() {
        let (step, pause) = trickle_step(bytes_per_sec);
        for piece in body.as_bytes().chunks(step) {
            tokio::time::sleep(pause).await;
            exchange.send(piece).await?;
        }
    }
    exchange.finish().await
}

/// Raw deflate of `input` ending in a full flush: byte-aligned, not final, and independent of
/// anything before it, so copies of it can be concatenated inside one deflate stream.
fn deflate_full_flush(input: &[u8]) -> Option<Vec<u8>> {
    let mut compress = Compress::new(Compression::best(), false);
    let mut out = Vec::with_capacity(input.len() / 512 + 4096);
    loop {
        let consumed = usize::try_from(compress.total_in()).ok()?;
        compress
            .compress_vec(&input[consumed..], &mut out, FlushCompress::Full)
            .ok()?;
        let done = usize::try_from(compress.total_in()).ok()? == input.len();
        // The flush is complete once the compressor leaves output space unused.
        if done && out.len() < out.capacity() {
            return Some(out);
        }
        out.reserve(64 * 1024);
    }
}

fn build_gzip_bomb() -> Option<Vec<u8>> {
    const BLOCK: usize = 1 << 20;
    let blocks = usize::try_from(GZIP_BOMB_INFLATED_SIZE).ok()? / BLOCK;
    let spaces = vec![b' '; BLOCK];
    let deflated = deflate_full_flush(&spaces)?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&spaces);
    // Doubling the CRC 10 times covers 1024 blocks without hashing 1 GiB.
    for _ in 0..blocks.trailing_zeros() {
        let copy = crc.clone();
        crc.combine(&copy);
    }
    // Gzip header: magic, deflate, no flags, no mtime, no extra flags, unknown OS.
    let mut body = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    body.reserve(deflated.len() * blocks + 16);
    for _ in 0..blocks {
        body.extend_from_slice(&deflated);
    }
    // A final, empty block with fixed Huffman codes ends the deflate stream.
    body.extend_from_slice(&[0x03, 0x00]);
    body.extend_from_slice(&crc.finalize().to_le_bytes());
    let size_mod_32 = (GZIP_BOMB_INFLATED_SIZE & 0xffff_ffff) as u32;
    body.extend_from_slice(&size_mod_32.to_le_bytes());
    Some(body)
}

/// The gzip bomb body (about 1 MB, inflating to [`GZIP_BOMB_INFLATED_SIZE`] spaces), built
/// once per process; `None` if the compressor failed.
pub fn gzip_bomb() -> Option<&'static [u8]> {
    static BOMB: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    BOMB.get_or_init(build_gzip_bomb).as_deref()
}

async fn gzip_bomb_response(exchange: &mut Exchange) -> io::Result<()> {
    let bomb = tokio::task::spawn_blocking(gzip_bomb).await.ok().flatten();
    let Some(bomb) = bomb else {
        return exchange.respond_text(500, "gzip bomb unavailable\n").await;
    };
    let headers = [
        ("Content-Type", TURTLE.to_string()),
        ("Content-Encoding", "gzip".to_string()),
    ];
    exchange.respond(200, &headers, bomb).await
}

/// Up to three other documents of the same host, for the valid prefix of broken documents.
fn sibling_links(exchange: &Exchange) -> Vec<String> {
    let shared = exchange.shared();
    let Some(host) = shared.web.hosts.get(&exchange.host) else {
        return Vec::new();
    };
    host.resources
        .iter()
        .filter(|(path, r)| **path != exchange.path && matches!(r, Resource::Document(_)))
        .take(3)
        .map(|(path, _)| format!("http://{}{path}", exchange.host))
        .collect()
}

fn link_lines(exchange: &Exchange) -> String {
    let url = exchange.url();
    let mut text = String::new();
    for link in sibling_links(exchange) {
        let _ = writeln!(text, "<{url}#it> <{url}#seeAlso> <{link}> .");
    }
    text
}

fn invalid_utf8_body(exchange: &Exchange) -> Vec<u8> {
    let url = exchange.url();
    let mut body = link_lines(exchange).into_bytes();
    body.extend_from_slice(format!("<{url}#it> <{url}#label> \"caf").as_bytes());
    body.extend_from_slice(b"\xC3\x28 \xFF\xFE broken\" .\n");
    body
}

fn malformed_body(exchange: &Exchange) -> Vec<u8> {
    let url = exchange.url();
    let mut body = link_lines(exchange);
    let _ = writeln!(body, "<{url}#it> <{url}#label> \"never closed .");
    let _ = writeln!(body, "<{url}#broken> <<< this is not Turtle {{ ;;");
    body.into_bytes()
}

async fn reset_mid_body(mut exchange: Exchange) -> io::Result<()> {
    let (body, _) = filler_turtle(&exchange.url(), 0, 10_000);
    let headers = [
        ("Content-Type", TURTLE.to_string()),
        ("Content-Length", "100000".to_string()),
    ];
    exchange.send_head(200, &headers).await?;
    exchange.send(body.as_bytes()).await?;
    // Give the client a moment to read what was sent before the reset discards it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    exchange.reset();
    Ok(())
}

async fn garbage(exchange: &mut Exchange) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(4096);
    while bytes.len() < 4096 {
        bytes.extend_from_slice(b"\x00\xff\xfe\x16\x03\x01 this is not HTTP \x1b[31m\xc0\xc1 ");
    }
    exchange.send(&bytes).await?;
    exchange.finish().await
}

async fn huge_head(exchange: &mut Exchange) -> io::Result<()> {
    const HEAD_SIZE: usize = 8 << 20;
    exchange.record_status(200);
    exchange.send(b"HTTP/1.1 200 OK\r\n").await?;
    let filler = "a".repeat(1000);
    let mut chunk = String::with_capacity(70 * 1024);
    let mut sent = 0;
    let mut line = 0;
    while sent < HEAD_SIZE {
        let _ = write!(chunk, "X-Filler-{line:06}: {filler}\r\n");
        line += 1;
        if chunk.len() >= 64 * 1024 {
            sent += chunk.len();
            exchange.send(chunk.as_bytes()).await?;
            chunk.clear();
        }
    }
    let body = format!(
        "<{}#it> <{}#label> \"huge head\" .\n",
        exchange.url(),
        exchange.url()
    );
    let tail = format!(
        "{chunk}Content-Type: {TURTLE}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange.send(tail.as_bytes()).await?;
    exchange.finish().await
}

async fn too_many_requests(exchange: &mut Exchange, retry_after_secs: u64) -> io::Result<()> {
    let shared = exchange.shared();
    if shared.first_request_for(&exchange.host, &exchange.path) {
        let headers = [("Retry-After", retry_after_secs.to_string())];
        return exchange.respond(429, &headers, b"slow down\n").await;
    }
    let url = exchange.url();
    let doc = Doc::new(vec![Triple::new(
        Term::iri(format!("{url}#it")),
        Term::iri(format!("{url}#status")),
        Term::literal("served after 429"),
    )]);
    respond::serve_document(exchange, &doc).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn trickle_steps_match_the_rate() {
        assert_eq!(trickle_step(10), (1, Duration::from_millis(100)));
        assert_eq!(trickle_step(1000), (100, Duration::from_millis(100)));
        assert_eq!(trickle_step(0), (1, Duration::from_secs(1)));
    }

    #[test]
    fn filler_is_valid_turtle_lines() {
        let (text, next) = filler_turtle("http://h.example/x", 5, 100);
        assert!(text.len() >= 100);
        assert!(text.starts_with(
            "<http://h.example/x#n5> <http://h.example/x#next> <http://h.example/x#n6> .\n"
        ));
        assert_eq!(next as usize, 5 + text.lines().count());
    }

    #[test]
    fn gzip_bomb_is_small_and_inflates_to_one_gib_with_a_valid_crc() {
        let bomb = gzip_bomb().unwrap();
        assert!(bomb.len() < 4 << 20, "compressed size {}", bomb.len());
        let mut decoder = flate2::read::GzDecoder::new(bomb);
        let mut buffer = vec![0u8; 1 << 20];
        let spaces = vec![b' '; 1 << 20];
        let mut total = 0u64;
        loop {
            // GzDecoder checks the CRC and size trailer at the end: an error fails here.
            let n = decoder.read(&mut buffer).unwrap();
            if n == 0 {
                break;
            }
            assert!(buffer[..n] == spaces[..n]);
            total += n as u64;
        }
        assert_eq!(total, GZIP_BOMB_INFLATED_SIZE);
    }
}
