//! A loopback HTTP proxy between ldwarc and an S3 server that injects faults into the ranged
//! GETs (requests carrying a `Range` header): one fault per such request, in the order given,
//! then plain forwarding. Each connection carries one request (the answer says
//! `Connection: close`), so a fault never leaks into the next request.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy does to one ranged GET.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answers `500 Internal Server Error`.
    Status500,
    /// Answers `503 Slow Down` with S3's `SlowDown` error body (throttling).
    SlowDown,
    /// Reads the request, then says nothing for this long and closes.
    Stall(Duration),
    /// Closes the connection without an answer.
    Drop,
    /// Sends the server's answer head and half its body, then closes.
    HalfBody,
}

/// A running fault proxy.
pub struct FaultProxy {
    port: u16,
    stop: Arc<AtomicBool>,
    faults: Arc<Mutex<Vec<Fault>>>,
    ranged_gets: Arc<Mutex<usize>>,
}

impl FaultProxy {
    /// Starts a proxy to `127.0.0.1:upstream` applying `faults` to the first ranged GETs;
    /// `repeat` keeps applying the last fault to every later one.
    pub fn start(upstream: u16, faults: Vec<Fault>, repeat: bool) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fault proxy");
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let faults = Arc::new(Mutex::new(faults));
        let ranged_gets = Arc::new(Mutex::new(0usize));
        let (stop2, faults2, count2) = (stop.clone(), faults.clone(), ranged_gets.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (faults, count) = (faults2.clone(), count2.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, upstream, &faults, &count, repeat);
                });
            }
        });
        FaultProxy {
            port,
            stop,
            faults,
            ranged_gets,
        }
    }

    /// The proxy's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// How many ranged GETs reached the proxy.
    pub fn ranged_gets(&self) -> usize {
        *self.ranged_gets.lock().unwrap()
    }

    /// How many faults are still to be applied.
    pub fn faults_left(&self) -> usize {
        self.faults.lock().unwrap().len()
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one HTTP request (head and `Content-Length` body).
fn read_request(stream: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        raw.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&raw).into_owned();
    let length = header(&head, "content-length")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok((head, body))
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then_some(value.trim())
    })
}

/// The request head with `Connection: close` in place of any connection header.
fn closing(head: &str) -> String {
    let mut out = String::new();
    for line in head.trim_end().lines() {
        if line
            .split_once(':')
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("connection"))
        {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    out
}

/// Sends a request to the server and returns its whole answer.
fn forward(upstream: u16, head: &str, body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut server = TcpStream::connect(("127.0.0.1", upstream))?;
    server.write_all(closing(head).as_bytes())?;
    server.write_all(body)?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer)?;
    Ok(answer)
}

/// The answer with `Connection: close` after its status line.
fn closing_answer(answer: &[u8]) -> Vec<u8> {
    match answer.windows(2).position(|w| w == b"\r\n") {
        Some(end) => {
            let mut out = answer[..end + 2].to_vec();
            out.extend_from_slice(b"Connection: close\r\n");
            out.extend_from_slice(&answer[end + 2..]);
            out
        }
        None => answer.to_vec(),
    }
}

fn serve(
    mut client: TcpStream,
    upstream: u16,
    faults: &Mutex<Vec<Fault>>,
    count: &Mutex<usize>,
    repeat: bool,
) -> std::io::Result<()> {
    let (head, body) = read_request(&mut client)?;
    let ranged = head.starts_with("GET ") && header(&head, "range").is_some();
    let fault = if ranged {
        *count.lock().unwrap() += 1;
        let mut faults = faults.lock().unwrap();
        match faults.len() {
            0 => None,
            1 if repeat => faults.first().cloned(),
            _ => Some(faults.remove(0)),
        }
    } else {
        None
    };
    let simple = |status: &str, text: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        )
    };
    match fault {
        Some(Fault::Status500) => client.write_all(
            simple(
                "500 Internal Server Error",
                "<Error><Code>InternalError</Code></Error>",
            )
            .as_bytes(),
        ),
        Some(Fault::SlowDown) => client.write_all(
            simple(
                "503 Slow Down",
                "<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>",
            )
            .as_bytes(),
        ),
        Some(Fault::Stall(time)) => {
            std::thread::sleep(time);
            Ok(())
        }
        Some(Fault::Drop) => Ok(()),
        Some(Fault::HalfBody) => {
            let answer = forward(upstream, &head, &body)?;
            let cut = answer
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map_or(answer.len(), |end| end + 4 + (answer.len() - end - 4) / 2);
            client.write_all(&closing_answer(&answer[..cut]))
        }
        None => client.write_all(&closing_answer(&forward(upstream, &head, &body)?)),
    }
}
