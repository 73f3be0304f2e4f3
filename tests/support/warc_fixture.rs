//! Small hand-made archives for the serve tests: HTTP exchanges written as plain WARC/1.1
//! `response` (or `revisit`) records into `<root>/warc/fixture.warc`, then indexed by `ldwarc
//! index`, so a test controls every URL, second and byte. Included by path next to `mod common;`.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};

/// One archived exchange.
pub struct Exchange {
    /// `WARC-Target-URI`.
    pub url: String,
    /// `WARC-Date` (`2024-01-01T00:00:00.100000Z`).
    pub date: String,
    /// The HTTP status line's code.
    pub status: u16,
    /// Header fields of the archived answer (besides `Content-Length`).
    pub headers: Vec<(String, String)>,
    /// The payload.
    pub body: Vec<u8>,
    /// A revisit of this earlier capture (URL, `WARC-Date`): server-not-modified when the
    /// status is `304`, else identical-payload-digest.
    pub revisit_of: Option<(String, String)>,
    /// `WARC-Payload-Digest`, when given.
    pub payload_digest: Option<String>,
}

impl Exchange {
    /// A `200` answer of `content_type` captured at `date`.
    pub fn ok(url: &str, date: &str, content_type: &str, body: &[u8]) -> Self {
        Self {
            url: url.into(),
            date: date.into(),
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.to_vec(),
            revisit_of: None,
            payload_digest: None,
        }
    }

    /// A `304` server-not-modified revisit at `date` of the capture of `url` at `original`.
    pub fn not_modified(url: &str, date: &str, original: &str) -> Self {
        Self {
            status: 304,
            headers: Vec::new(),
            body: Vec::new(),
            revisit_of: Some((url.into(), original.into())),
            ..Self::ok(url, date, "text/turtle", b"")
        }
    }

    fn block(&self) -> Vec<u8> {
        let reason = match self.status {
            200 => "OK",
            304 => "Not Modified",
            _ => "Status",
        };
        let mut head = format!("HTTP/1.1 {} {reason}\r\n", self.status);
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if self.revisit_of.is_none() {
            head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        }
        head.push_str("\r\n");
        let mut block = head.into_bytes();
        block.extend_from_slice(&self.body);
        block
    }
}

/// The `WARC-Payload-Digest` of `body` (SHA-1, Base32), as crawlers write it.
pub fn sha1_payload_digest(body: &[u8]) -> String {
    use sha1::Digest;
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&sha1::Sha1::digest(body))
    )
}

/// The `n`th capture of `url` (oldest first) as `ldwarc query` lists it: its offset in its
/// file and its timestamp.
pub fn nth_capture(root: &Path, url: &str, n: usize) -> (usize, String) {
    let lines = stdout_ok(
        &run(ldwarc()
            .args(["query", url, "--format", "json", "--root"])
            .arg(root)),
        "ldwarc query",
    );
    let capture: serde_json::Value =
        serde_json::from_str(lines.lines().nth(n).expect("that many captures")).expect("JSON");
    (
        capture["offset"].as_u64().unwrap() as usize,
        capture["timestamp"].as_str().unwrap().to_string(),
    )
}

/// Writes `exchanges` as `<root>/warc/fixture.warc` and indexes the archive (the capture
/// index only: tests build the triple index when they need it).
pub fn write_archive(root: &Path, exchanges: &[Exchange]) {
    write_warc_file(root, "fixture.warc", exchanges);
    stdout_ok(
        &run(ldwarc().args(["index", "--no-triples", "--root"]).arg(root)),
        "ldwarc index --no-triples",
    );
}

/// Writes `exchanges` as `<root>/warc/<name>`, first record at offset 0 (not indexed).
pub fn write_warc_file(root: &Path, name: &str, exchanges: &[Exchange]) {
    let dir = root.join("warc");
    std::fs::create_dir_all(&dir).expect("warc dir");
    let mut file = std::fs::File::create(dir.join(name)).expect("WARC file");
    // Record ids unique across files: the name's bytes summed, then the record's position.
    let file_number = name.bytes().map(u64::from).sum::<u64>() % 0x1_0000;
    for (index, exchange) in exchanges.iter().enumerate() {
        let block = exchange.block();
        let mut header = format!(
            "WARC/1.1\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{file_number:04x}{index:08}>\r\n\
             WARC-Date: {}\r\nWARC-Target-URI: {}\r\nContent-Type: application/http; msgtype=response\r\n",
            exchange.date, exchange.url
        );
        match &exchange.revisit_of {
            Some((url, date)) => {
                let profile = if exchange.status == 304 {
                    "server-not-modified"
                } else {
                    "identical-payload-digest"
                };
                header.push_str(&format!(
                    "WARC-Type: revisit\r\nWARC-Profile: http://netpreserve.org/warc/1.1/revisit/{profile}\r\n\
                     WARC-Refers-To-Target-URI: {url}\r\nWARC-Refers-To-Date: {date}\r\n"
                ))
            }
            None => header.push_str("WARC-Type: response\r\n"),
        }
        if let Some(digest) = &exchange.payload_digest {
            header.push_str(&format!("WARC-Payload-Digest: {digest}\r\n"));
        }
        header.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
        file.write_all(header.as_bytes()).expect("write");
        file.write_all(&block).expect("write");
        file.write_all(b"\r\n\r\n").expect("write");
    }
}
