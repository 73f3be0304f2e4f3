//! `ldwarc serve` for the serve tests: started on a free loopback port (it prints the address
//! it bound), killed when dropped; and raw HTTP/1.1 requests with any method, headers and
//! target, read back into [`HttpResponse`]s. Included by path (`#[path = …] mod …`) next to
//! `mod common;`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

pub use crate::common::parse_response;
use crate::common::{HttpResponse, ldwarc};

/// A running `ldwarc serve`.
pub struct LdwarcServer {
    child: Child,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
}

impl LdwarcServer {
    /// Starts `ldwarc serve --root ROOT --bind 127.0.0.1:0 EXTRA…` and waits for its address.
    pub fn start(root: &Path, extra: &[&str]) -> Self {
        let mut child = ldwarc()
            .arg("serve")
            .arg("--root")
            .arg(root)
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start ldwarc serve");
        let port = read_listening_port(&mut child);
        Self { child, port }
    }

    /// `GET path` with extra header fields.
    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
        get_with(self.port, path, headers)
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> HttpResponse {
        self.get_with(path, &[])
    }

    /// The server's process id (for reading its memory use under /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends raw bytes and reads the answer (the connection is closed after it).
    pub fn send(&self, request: &[u8]) -> std::io::Result<HttpResponse> {
        send_raw(self.port, request)
    }
}

impl Drop for LdwarcServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port a started `ldwarc serve` (stdout piped) prints that it listens on.
pub fn read_listening_port(child: &mut Child) -> u16 {
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the listening line");
    line.split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("ldwarc serve did not print its address: {line:?}"))
}

/// `GET path` with extra header fields from 127.0.0.1:`port`, panicking on I/O errors.
pub fn get_with(port: u16, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Accept-Encoding: identity\r\nConnection: close\r\n\r\n");
    send_raw(port, head.as_bytes()).unwrap_or_else(|e| panic!("GET {path} failed: {e}"))
}

/// Sends `request` to 127.0.0.1:`port` and parses the response (Content-Length or chunked
/// or until close).
pub fn send_raw(port: u16, request: &[u8]) -> std::io::Result<HttpResponse> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    stream.write_all(request)?;
    stream.flush()?;
    let mut raw = Vec::new();
    let mut buffer = [0u8; 65536];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
            // A server that answers and closes before reading all we sent resets.
            Err(e) if !raw.is_empty() && e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => return Err(e),
        }
        if complete(&raw) {
            break;
        }
    }
    parse_response(&raw)
}

fn head_end(raw: &[u8]) -> Option<usize> {
    raw.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Whether `raw` holds a whole response by its Content-Length.
fn complete(raw: &[u8]) -> bool {
    let Some(end) = head_end(raw) else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    length.is_some_and(|n| raw.len() >= end + 4 + n)
}

/// The `(rel, uri, datetime)` triples of a `Link` header or link-format body.
pub fn parse_links(text: &str) -> Vec<(String, String, Option<String>)> {
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let uri = rest[start + 1..start + end].to_string();
        let after = &rest[start + end + 1..];
        let next = after
            .find(",\n")
            .or_else(|| after.find(", <"))
            .unwrap_or(after.len());
        let params = &after[..next];
        let value = |name: &str| {
            params
                .split(';')
                .filter_map(|p| p.trim().strip_prefix(&format!("{name}=")))
                .map(|v| v.trim_matches('"').to_string())
                .next()
        };
        links.push((value("rel").unwrap_or_default(), uri, value("datetime")));
        rest = &after[next..];
    }
    links
}
