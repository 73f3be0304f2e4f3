//! Shared helpers for the integration tests: the real binary, the interop tools (which must
//! be installed: a missing tool fails the test loudly, it never skips), and fixtures.
#![allow(dead_code)]

pub mod generated;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The crate root.
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `--resolve` arguments that send every `*.example` host to a loopback test server on
/// `port`: the test webs name their hosts `.example`, and the crawler must reach them without DNS.
pub fn loopback_resolve(port: u16) -> [String; 2] {
    [
        "--resolve".to_string(),
        format!("*.example=127.0.0.1:{port}"),
    ]
}

/// A command running the real `ldwarc` binary.
pub fn ldwarc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ldwarc"))
}

/// Runs a command, returning its output; panics with the command line if it cannot start.
pub fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// A program from the interop venv (`$LDWARC_VENV`, else `<crate>/.venv`).
/// Panics when it is missing: interop tests must never skip silently.
pub fn venv_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("LDWARC_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".venv"));
    let path = venv.join("bin").join(name);
    assert!(
        path.exists(),
        "interop tool {} is missing; run `bash .ci/setup-interop.sh` (or set LDWARC_VENV)",
        path.display()
    );
    path
}

/// A program from the pywb venv (`$LDWARC_PYWB_VENV`, else `<crate>/.venv-pywb`). pywb has a
/// venv of its own because its `brotlipy` and fastwarc's `brotli` both install a module named
/// `brotli`. Panics when it is missing: interop tests must never skip silently.
pub fn pywb_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("LDWARC_PYWB_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".venv-pywb"));
    let path = venv.join("bin").join(name);
    assert!(
        path.exists(),
        "pywb program {} is missing; run `bash .ci/setup-interop.sh` (or set LDWARC_PYWB_VENV)",
        path.display()
    );
    path
}

/// The WARC/ARC files of the pywb 2.10.0 sample archive, installed by `.ci/setup-interop.sh`.
pub fn pywb_sample_warcs() -> PathBuf {
    let dir = std::env::var_os("LDWARC_PYWB_SAMPLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".ci/cache/pywb-2.10.0/sample_archive/warcs"));
    assert!(
        dir.is_dir(),
        "pywb sample archive {} is missing; run `bash .ci/setup-interop.sh`",
        dir.display()
    );
    dir
}

/// A file under `fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    manifest_dir().join("fixtures").join(relative)
}

/// Standard output as text, asserting the command succeeded.
pub fn stdout_ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether `path` exists, for readable assertions.
pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// One collection of a pywb server: a CDX/CDXJ index file and the directory its `filename`s
/// are relative to.
pub struct PywbCollection<'a> {
    /// Collection name (the first path segment of its routes).
    pub name: &'a str,
    /// The sorted index file (`.cdxj` or `.cdx`).
    pub index: &'a Path,
    /// Directory the index's file names are relative to.
    pub archive_dir: &'a Path,
}

/// A pywb 2.10.0 `wayback` server on a free loopback port, started from a generated
/// `config.yaml`, killed when dropped.
pub struct Pywb {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// How long pywb may take to answer its first request.
const PYWB_STARTUP: Duration = Duration::from_secs(30);

impl Pywb {
    /// Starts `wayback` serving `collections` and waits until it answers. Panics (never skips)
    /// when pywb is not installed, dies, or does not answer within 30 s.
    pub fn start(collections: &[PywbCollection<'_>]) -> Self {
        let wayback = pywb_bin("wayback");
        let mut dir = tempfile::tempdir().expect("temp dir for the pywb config");
        let mut config = String::from("collections:\n");
        for collection in collections {
            // pywb prepends archive_paths to each file name verbatim: it must end in '/'.
            let mut archive = collection.archive_dir.display().to_string();
            if !archive.ends_with('/') {
                archive.push('/');
            }
            // JSON strings are valid YAML flow scalars.
            config.push_str(&format!(
                "  {}:\n    index: {}\n    archive_paths: {}\n",
                collection.name,
                serde_json::Value::from(collection.index.display().to_string()),
                serde_json::Value::from(archive)
            ));
        }
        std::fs::write(dir.path().join("config.yaml"), &config).expect("write config.yaml");
        let started = Instant::now();
        // A free port can be taken by another process before pywb binds it: then try another.
        for _attempt in 0..5 {
            let port = free_port();
            let log = std::fs::File::create(dir.path().join("pywb.log")).expect("pywb log");
            let child = Command::new(&wayback)
                .args(["-b", "127.0.0.1", "-p", &port.to_string()])
                .current_dir(dir.path())
                .env("PYWB_CONFIG_FILE", dir.path().join("config.yaml"))
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("pywb log"))
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", wayback.display()));
            let mut pywb = Self { child, port, dir };
            loop {
                if let Some(status) = pywb.child.try_wait().expect("pywb status") {
                    let log = pywb.log();
                    assert!(
                        log.contains("Address already in use"),
                        "pywb exited ({status}) before answering:\n{log}"
                    );
                    break;
                }
                // If another process answered, ours will fail to bind and exit.
                if http_get(port, "/").is_ok() && listens_on(pywb.child.id(), port) {
                    return pywb;
                }
                assert!(
                    started.elapsed() < PYWB_STARTUP,
                    "pywb did not answer on port {port} within {PYWB_STARTUP:?}:\n{}",
                    pywb.log()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            dir = std::mem::replace(&mut pywb.dir, tempfile::tempdir().expect("temp dir"));
        }
        panic!("pywb could not get a free port in 5 attempts");
    }

    /// The port pywb listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `GET path` (path and query, already encoded), panicking on I/O errors.
    pub fn get(&self, path: &str) -> HttpResponse {
        http_get(self.port, path)
            .unwrap_or_else(|e| panic!("GET {path} from pywb failed: {e}\n{}", self.log()))
    }

    /// Everything pywb has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("pywb.log")).unwrap_or_default()
    }
}

impl Drop for Pywb {
    fn drop(&mut self) {
        // SIGKILL: SIGTERM makes gevent wait ~1.5 s for its stop timeout.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port` (Linux: by the
/// socket inodes of `/proc/net/tcp` and the process's descriptors; elsewhere assumed).
fn listens_on(pid: u32, port: u16) -> bool {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return true;
    };
    let local = format!("0100007F:{port:04X}");
    let inodes: Vec<String> = table
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() > 9 && f[1] == local && f[3] == "0A")
        .map(|f| format!("socket:[{}]", f[9]))
        .collect();
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path())
            .is_ok_and(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
    })
}

/// A port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free loopback port")
}

/// An HTTP response as read off the wire.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Header fields in order, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked if it was chunked.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        ldwarc_warc::http::header_value(&self.headers, name)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A generated archive (`generated::generate`) in `root`, indexed by `ldwarc index`, with
/// its CDXJ export from `ldwarc cdx`.
pub fn generate_indexed(root: &Path, seed: u64) -> (generated::GeneratedArchive, String) {
    let archive = generated::generate(root, seed);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(root)),
        "ldwarc index",
    );
    let export = stdout_ok(
        &run(ldwarc().arg("cdx").arg("--root").arg(root)),
        "ldwarc cdx",
    );
    (archive, export)
}

/// A minimal HTTP/1.0 `GET` on 127.0.0.1 (the server closes the connection after answering).
pub fn http_get(port: u16, path: &str) -> std::io::Result<HttpResponse> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n"
    )?;
    stream.flush()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse_response(&raw)
}

/// Parses an HTTP/1.x response: status, header fields, and the body (de-chunked).
pub fn parse_response(raw: &[u8]) -> std::io::Result<HttpResponse> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of the HTTP head"))?;
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[head_end + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body).ok_or_else(|| bad("bad chunked body"))?;
    }
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// Percent-encodes a query-string value (everything but unreserved characters).
pub fn query_encode(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Asserts that `warcio check` and `ldwarc check` both pass on `files`.
pub fn assert_warcs_valid(files: &[PathBuf]) {
    let output = run(Command::new(venv_bin("warcio")).arg("check").args(files));
    assert!(
        output.status.success(),
        "warcio check: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let output = run(ldwarc().arg("check").args(files));
    assert!(
        output.status.success(),
        "ldwarc check: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}
