//! Files other tools wrote, each defect on a small generated file: an ARC URL with spaces,
//! a WARC gzipped as one whole stream, a repeated `WARC-Protocol`, malformed and Base64
//! payload digests, an LZ4-compressed WARC, an unparseable `WARC-Date`, and a redirect with
//! an empty `Location` that `index --verify` must not count as a discrepancy.

use std::io::Write;
use std::path::Path;

use data_encoding::BASE64;
use sha1::{Digest, Sha1};

use crate::common::{ldwarc, run};

const BODY: &[u8] = b"<http://a.example/x> <http://a.example/p> \"v\" .\n";

/// The HTTP response holding [`BODY`].
fn http_response() -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/n-triples\r\nContent-Length: {}\r\n\r\n",
        BODY.len()
    )
    .into_bytes();
    bytes.extend_from_slice(BODY);
    bytes
}

/// One uncompressed WARC response record for `uri` with extra header fields.
fn record(uri: &str, date: &str, fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let id = format!(
        "{:x}",
        Sha1::digest(format!("{uri}{date}{fields:?}").as_bytes())
    );
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:sha1:{id}>\r\n\
         WARC-Date: {date}\r\nWARC-Target-URI: {uri}\r\n"
    );
    for (name, value) in fields {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\r\n\r\n");
    bytes
}

fn good(uri: &str) -> Vec<u8> {
    record(uri, "2024-01-02T03:04:05Z", &[], &http_response())
}

fn check(path: &Path) -> (Option<i32>, String) {
    let output = run(ldwarc().arg("check").arg(path));
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

/// An archive root whose `warc/` holds the given files.
fn root_with(dir: &Path, files: &[(&str, Vec<u8>)]) -> std::path::PathBuf {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("warc")).unwrap();
    for (name, bytes) in files {
        std::fs::write(root.join("warc").join(name), bytes).unwrap();
    }
    root
}

fn stdout(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = run(ldwarc().args(args).arg("--root").arg(root));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn an_arc_url_with_spaces_does_not_stop_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let line = |url: &str, date: &str, content: &[u8]| {
        let mut bytes =
            format!("{url} 127.0.0.1 {date} text/html {}\n", content.len()).into_bytes();
        bytes.extend_from_slice(content);
        bytes.push(b'\n');
        bytes
    };
    let mut arc = line(
        "filedesc://test.arc",
        "20240102030405",
        b"1 0 test\nURL IP-address Archive-date Content-type Archive-length\n",
    );
    arc.extend(line(
        "http://a.example/with space/x",
        "20240102030405",
        b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nhello",
    ));
    arc.extend(line(
        "http://a.example/after",
        "20240102030406",
        b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nworld",
    ));
    let root = root_with(dir.path(), &[("spaces.arc", arc)]);
    let (code, text) = check(&root.join("warc/spaces.arc"));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("3 records"), "{text}");
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    assert!(
        cdx.contains("\"url\": \"http://a.example/with%20space/x\""),
        "{cdx}"
    );
    assert!(cdx.contains("\"url\": \"http://a.example/after\""), "{cdx}");
}

#[test]
fn a_warc_gzipped_as_one_stream_is_not_indexed_and_verify_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = good("http://a.example/x");
    plain.extend(good("http://a.example/y"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let whole = gz.finish().unwrap();
    let root = root_with(
        dir.path(),
        &[
            ("whole.warc.gz", whole),
            ("fine.warc", good("http://a.example/z")),
        ],
    );
    let (code, out, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("whole.warc.gz") && stderr.contains("not individually addressable"),
        "{stderr}"
    );
    assert!(out.contains("1 captures added"), "{out}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    assert!(!cdx.contains("whole.warc.gz"), "{cdx}");
    assert!(cdx.contains("fine.warc"), "{cdx}");
    let (code, out, _) = stdout(&root, &["index", "--verify"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("warc/whole.warc.gz: gzipped as one whole stream"),
        "{out}"
    );
}

#[test]
fn a_repeated_warc_protocol_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("protocol.warc");
    let fields = [("WARC-Protocol", "h2"), ("WARC-Protocol", "tls/1.3")];
    std::fs::write(
        &path,
        record(
            "http://a.example/x",
            "2024-01-02T03:04:05Z",
            &fields,
            &http_response(),
        ),
    )
    .unwrap();
    let (code, text) = check(&path);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("more than once"), "{text}");
}

#[test]
fn payload_digests_malformed_are_errors_and_base64_ones_are_verified() {
    let dir = tempfile::tempdir().unwrap();
    let digest = Sha1::digest(BODY);
    let other = Sha1::digest(b"something else");
    let cases = [
        (
            "padded-ok.warc",
            format!("sha1:{}", BASE64.encode(&digest)),
            Some(0),
            "1 digests",
        ),
        (
            "unpadded-ok.warc",
            format!("sha1:{}", BASE64.encode(&digest).trim_end_matches('=')),
            Some(0),
            "1 digests",
        ),
        (
            "mismatch.warc",
            format!("sha1:{}", BASE64.encode(&other)),
            Some(1),
            "mismatch",
        ),
        (
            "malformed.warc",
            "sha1:not-a-digest!".to_string(),
            Some(1),
            "is malformed",
        ),
    ];
    for (name, value, want, says) in cases {
        let path = dir.path().join(name);
        let fields = [("WARC-Payload-Digest", value.as_str())];
        std::fs::write(
            &path,
            record(
                "http://a.example/x",
                "2024-01-02T03:04:05Z",
                &fields,
                &http_response(),
            ),
        )
        .unwrap();
        let (code, text) = check(&path);
        assert_eq!(code, want, "{name}: {text}");
        assert!(text.contains(says), "{name}: {text}");
    }
    // An algorithm ldwarc does not compute stays a warning.
    let path = dir.path().join("unknown.warc");
    let fields = [("WARC-Payload-Digest", "blake3:abcd")];
    let block = http_response();
    std::fs::write(
        &path,
        record(
            "http://a.example/x",
            "2024-01-02T03:04:05Z",
            &fields,
            &block,
        ),
    )
    .unwrap();
    let (code, text) = check(&path);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("not a digest ldwarc can verify"), "{text}");
}

#[test]
fn an_lz4_warc_is_named_as_lz4() {
    let dir = tempfile::tempdir().unwrap();
    // An LZ4 frame: magic number, then frame descriptor and data.
    let mut lz4 = vec![0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7];
    lz4.extend_from_slice(&[0u8; 24]);
    let path = dir.path().join("x.warc");
    std::fs::write(&path, &lz4).unwrap();
    let (code, text) = check(&path);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("LZ4-compressed"), "{text}");
}

#[test]
fn an_unparseable_warc_date_is_reported_and_not_indexed_as_1970() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = record("http://a.example/x", "yesterday", &[], &http_response());
    bytes.extend(good("http://a.example/y"));
    let root = root_with(dir.path(), &[("dates.warc", bytes)]);
    let (code, out, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("WARC-Date \"yesterday\" is not a date")
            && stderr.contains("http://a.example/x"),
        "{stderr}"
    );
    assert!(out.contains("1 captures added"), "{out}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    assert!(!cdx.contains("1970"), "{cdx}");
    assert!(cdx.contains("http://a.example/y"), "{cdx}");
    let (code, out, _) = stdout(&root, &["index", "--verify"]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn verify_accepts_a_redirect_with_an_empty_location() {
    let dir = tempfile::tempdir().unwrap();
    let moved = b"HTTP/1.1 301 Moved Permanently\r\nLocation: \r\nContent-Length: 0\r\n\r\n";
    let bytes = record("http://a.example/moved", "2024-01-02T03:04:05Z", &[], moved);
    let root = root_with(dir.path(), &[("moved.warc", bytes)]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, out, _) = stdout(&root, &["index", "--verify"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("verified 1 captures: 0 discrepancies"),
        "{out}"
    );
}

#[test]
fn replay_of_a_partial_graph_prints_it_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let body = b"<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n<http://a.example/s> <http://a.example/p> @@@ garbage\n";
    let mut http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    http.extend_from_slice(body);
    let bytes = record("http://a.example/doc", "2024-01-02T03:04:05Z", &[], &http);
    let root = root_with(dir.path(), &[("partial.warc", bytes)]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, out, stderr) = stdout(&root, &["replay", "http://a.example/doc"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("partial graph"), "{stderr}");
    assert_eq!(
        out,
        "<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n"
    );
}

#[test]
fn check_on_a_fifo_or_a_directory_without_warcs_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.warc.gz");
    let made = run(std::process::Command::new("mkfifo").arg(&fifo));
    assert!(made.status.success(), "mkfifo: {made:?}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "not a WARC").unwrap();
    for (path, says) in [
        (&fifo, "not a regular file"),
        (&empty, "no WARC or ARC file"),
    ] {
        for command in ["check", "ls"] {
            let output = run(ldwarc().arg(command).arg(path));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{command} {path:?}: {stderr}"
            );
            assert!(stderr.contains(says), "{stderr}");
            assert!(stderr.contains(&path.display().to_string()), "{stderr}");
        }
    }
}

#[test]
fn history_with_a_partial_graph_says_so_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let body = b"<http://a.example/s> <http://a.example/p> <http://a.example/o> .\n@@@ garbage\n";
    let mut http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    http.extend_from_slice(body);
    let bytes = record("http://a.example/doc", "2024-01-02T03:04:05Z", &[], &http);
    let root = root_with(dir.path(), &[("partial.warc", bytes)]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, out, stderr) = stdout(&root, &["history", "http://a.example/doc"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("20240102030405: partial graph (1 statements"),
        "{stderr}"
    );
    assert!(out.starts_with("20240102030405  200"), "{out}");
    let (code, json, _) = stdout(
        &root,
        &["history", "--format", "json", "http://a.example/doc"],
    );
    assert_eq!(code, Some(1));
    assert!(json.contains("\"partial\":"), "{json}");
}
