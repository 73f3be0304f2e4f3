//! ldwarc reads a WARC written by `wget --warc-file` from a local HTTP server: offsets equal
//! `warcio index`, `ldwarc check` finds no digest error, and the Turtle capture is listed
//! with its status and target URI (wget ≥ 1.21.3 wraps target URIs in `<>`; ldwarc strips
//! them).

use crate::common;

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{ldwarc, run, stdout_ok, venv_bin};
use ldwarc_warc::WarcReader;
use serde_json::Value;

const TURTLE: &str = "@prefix ex: <http://example.org/ns#> .\n\
                      ex:alice ex:knows ex:bob ;\n    ex:name \"Alice\"@en .\n";
const NON_ASCII_NAME: &str = "données-日本.ttl";
const NON_ASCII_TURTLE: &str = "<http://example.org/é> <http://example.org/p> \"日本\" .\n";

/// wget: `$LDWARC_WGET`, else /usr/bin/wget, else the first on PATH. Missing wget fails
/// the test: this interop contract is never skipped.
fn wget() -> PathBuf {
    if let Some(path) = std::env::var_os("LDWARC_WGET") {
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "$LDWARC_WGET names {}, which does not exist",
            path.display()
        );
        return path;
    }
    let standard = PathBuf::from("/usr/bin/wget");
    if standard.exists() {
        return standard;
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("wget"))
        .find(|path| path.exists())
        .unwrap_or_else(|| {
            panic!(
                "wget is not installed (looked for $LDWARC_WGET, /usr/bin/wget and PATH); \
                 install it (apt-get install wget) — this interop test must not be skipped"
            )
        })
}

/// A python `http.server` on 127.0.0.1 with an ephemeral port, killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(root: &Path) -> Self {
        let mut child = Command::new(venv_bin("python"))
            .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
            .arg("--directory")
            .arg(root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start python http.server: {e}"));
        let stdout = child.stdout.take().expect("server stdout");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = sender.send(line);
            }
            // Keep draining so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let mut server = Self { child, port: 0 };
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("python http.server did not report its port in 30 s"));
        // "Serving HTTP on 127.0.0.1 port 40173 (http://127.0.0.1:40173/) ..."
        server.port = line
            .split_once(" port ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("cannot read the port from {line:?}"));
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_lines(text: &str, what: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l:?}")))
        .collect()
}

/// Percent-encodes a path segment as Python's `urllib.parse.quote` does for http.server's
/// directory listing (which wget then follows).
fn quote(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The block of the record at `offset`, read through the library's random access.
fn block_at(path: &Path, offset: u64) -> Vec<u8> {
    let file = File::open(path).expect("open WARC");
    let mut reader = WarcReader::at_offset(file, offset).expect("reader at offset");
    let mut record = reader
        .next_record()
        .expect("a record at the offset")
        .expect("readable record");
    let mut block = Vec::new();
    record.read_to_end(&mut block).expect("block");
    block
}

#[test]
fn wget_warc_reads_like_warcio_and_checks_clean() {
    let wget = wget();
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    fs::create_dir(&site).expect("site dir");
    fs::write(site.join("data.ttl"), TURTLE).expect("write data.ttl");
    fs::write(site.join(NON_ASCII_NAME), NON_ASCII_TURTLE).expect("write non-ASCII file");
    fs::write(site.join("notes.txt"), "plain text\n").expect("write notes.txt");
    fs::write(
        site.join("page.html"),
        "<!doctype html><title>p</title><a href=\"data.ttl\">data</a>\n",
    )
    .expect("write page.html");

    let server = Server::start(&site);
    let base = format!("http://127.0.0.1:{}/", server.port);
    let warc_prefix = dir.path().join("x");
    let output = run(Command::new(&wget)
        .args(["--no-config", "--no-proxy", "--tries=1", "--timeout=20"])
        .arg(format!("--warc-file={}", warc_prefix.display()))
        .args(["--no-verbose", "-r", "-l1", "-P"])
        .arg(dir.path().join("download"))
        .arg(&base)
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("no_proxy")
        .current_dir(dir.path()));
    drop(server);
    let wget_log = String::from_utf8_lossy(&output.stderr).into_owned();
    // wget exits 8 when the server answered an error (robots.txt is 404 here).
    assert!(
        matches!(output.status.code(), Some(0 | 8)),
        "wget failed ({}):\n{wget_log}",
        output.status
    );
    let warc = dir.path().join("x.warc.gz");
    assert!(
        warc.exists(),
        "wget wrote no {}:\n{wget_log}",
        warc.display()
    );

    // Offsets (and lengths and types) equal warcio index.
    let listed = json_lines(
        &stdout_ok(
            &run(ldwarc().arg("ls").args(["--format", "json"]).arg(&warc)),
            "ldwarc ls",
        ),
        "ldwarc ls --json",
    );
    let ours: Vec<(u64, u64, String)> = listed
        .iter()
        .map(|r| {
            (
                r["offset"].as_u64().expect("offset"),
                r["length"].as_u64().expect("length"),
                r["type"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let index = stdout_ok(
        &run(Command::new(venv_bin("warcio"))
            .args(["index", "-f", "offset,length,warc-type"])
            .arg(&warc)),
        "warcio index",
    );
    let theirs: Vec<(u64, u64, String)> = json_lines(&index, "warcio index")
        .iter()
        .map(|r| {
            let number = |key: &str| -> u64 {
                r[key]
                    .as_str()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("warcio index: {key} in {r}"))
            };
            (
                number("offset"),
                number("length"),
                r["warc-type"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert!(ours.len() >= 8, "too few records: {ours:?}\n{wget_log}");
    assert_eq!(ours, theirs, "ldwarc ls (left) vs warcio index (right)");

    // No digest error (and no error at all) in ldwarc check.
    let check = run(ldwarc().arg("check").args(["--format", "json"]).arg(&warc));
    let check_out = String::from_utf8_lossy(&check.stdout).into_owned();
    let lines = json_lines(&check_out, "ldwarc check --json");
    let digest_problems: Vec<&Value> = lines
        .iter()
        .filter(|l| {
            l["message"]
                .as_str()
                .is_some_and(|m| m.to_ascii_lowercase().contains("digest"))
        })
        .collect();
    assert!(
        digest_problems.is_empty(),
        "ldwarc check reports digest problems in wget's WARC:\n{check_out}"
    );
    let summary = lines.last().expect("summary line");
    assert_eq!(summary["errors"], 0, "ldwarc check:\n{check_out}");
    assert!(check.status.success(), "ldwarc check:\n{check_out}");
    assert!(
        summary["digests_checked"].as_u64().unwrap_or(0) >= 8,
        "ldwarc check verified too few digests: {summary}"
    );

    // The Turtle capture: a 200 response listed under its plain target URI (wget wrote
    // `<…>` around it), whose block ends with the file served.
    let raw_header_has_brackets = {
        let mut bytes = Vec::new();
        flate2::read::MultiGzDecoder::new(File::open(&warc).expect("open"))
            .read_to_end(&mut bytes)
            .expect("decompress");
        String::from_utf8_lossy(&bytes).contains("WARC-Target-URI: <http")
    };
    for (name, content) in [("data.ttl", TURTLE), (NON_ASCII_NAME, NON_ASCII_TURTLE)] {
        let uri = format!("{base}{}", quote(name));
        let response = listed
            .iter()
            .find(|r| r["type"] == "response" && r["target_uri"].as_str() == Some(uri.as_str()))
            .unwrap_or_else(|| {
                panic!("no response for {uri} (brackets in file: {raw_header_has_brackets}):\n{listed:#?}")
            });
        assert_eq!(response["status"], 200, "{response}");
        assert!(
            response["payload_digest"]
                .as_str()
                .is_some_and(|d| d.starts_with("sha1:")),
            "{response}"
        );
        let block = block_at(&warc, response["offset"].as_u64().expect("offset"));
        assert!(
            block.ends_with(content.as_bytes()),
            "the block of {uri} does not end with the served file:\n{}",
            String::from_utf8_lossy(&block)
        );
        let request = listed
            .iter()
            .find(|r| r["type"] == "request" && r["target_uri"].as_str() == Some(uri.as_str()));
        assert!(request.is_some(), "no request record for {uri}");
    }
    assert!(
        listed.iter().all(|r| !r["target_uri"]
            .as_str()
            .is_some_and(|u| u.starts_with('<') || u.ends_with('>'))),
        "ldwarc ls left angle brackets on a target URI"
    );
}
