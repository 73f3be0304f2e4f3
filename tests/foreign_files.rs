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
    // `index` leaves the file out on purpose, and says so once; verification applies the
    // same rule: one note, no discrepancy, and it passes (run after run).
    let (code, out, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "");
    assert!(out.contains("0 captures added"), "{out}");
    for _ in 0..2 {
        let (code, out, _) = stdout(&root, &["index", "--verify"]);
        assert_eq!(code, Some(0), "{out}");
        assert_eq!(
            out.lines().collect::<Vec<_>>(),
            [
                "note: warc/whole.warc.gz: not indexed, as indexing leaves it out: \
                 gzipped as one whole stream: its records are not individually addressable, \
                 so none is indexed; recompress it with one gzip member per record (e.g. \
                 `warcio recompress`)",
                "verified 1 captures: 0 discrepancies"
            ]
        );
    }
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
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .starts_with("20240102030405  200"),
        "{out}"
    );
    let (code, json, _) = stdout(
        &root,
        &["history", "--format", "json", "http://a.example/doc"],
    );
    assert_eq!(code, Some(1));
    assert!(json.contains("\"partial\":"), "{json}");
}

/// One gzip member holding `bytes`.
fn gzip_member(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// cdxj-indexer's lines for files in `dir` (named relative to it), sorted as `ldwarc cdx`
/// sorts them.
fn cdxj_indexer_lines(dir: &Path, names: &[&str]) -> Vec<String> {
    let output = run(
        std::process::Command::new(crate::common::venv_bin("cdxj-indexer"))
            .current_dir(dir)
            .args(names),
    );
    assert!(output.status.success(), "cdxj-indexer: {output:?}");
    let mut lines: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('!'))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// A response with two Turtle statements, the second of which a cut can take off.
fn two_statements(uri: &str) -> Vec<u8> {
    let body = "<http://a.example/s> <http://a.example/p> \"first\" .\n\
                <http://a.example/s> <http://a.example/p> \"second statement\" .\n";
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n{body}");
    record(uri, "2024-01-02T03:04:05Z", &[], http.as_bytes())
}

/// The file ends inside its last record (plain and gzip): the record is indexed with the
/// bytes there are, with cdxj-indexer's line (offset, the length to the end of the file,
/// the digest of what is there), reported as truncated; replay gives what the bytes hold.
#[test]
fn a_record_cut_short_at_the_end_of_a_file_is_indexed_as_cdxj_indexer_does() {
    let dir = tempfile::tempdir().unwrap();
    let first = good("http://a.example/x");
    let cut = two_statements("http://a.example/cut");
    // Cut inside the second statement (its last 20 bytes and the record end are missing).
    let mut plain = first.clone();
    plain.extend_from_slice(&cut[..cut.len() - 24]);
    let mut gzipped = gzip_member(&first);
    let member = gzip_member(&cut);
    gzipped.extend_from_slice(&member[..member.len() - 20]);
    let root = root_with(
        dir.path(),
        &[
            ("cut.warc", plain.clone()),
            ("cut.warc.gz", gzipped.clone()),
        ],
    );
    let (code, out, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(1), "{out}{stderr}");
    for (name, offset) in [
        ("cut.warc", first.len()),
        ("cut.warc.gz", gzip_member(&first).len()),
    ] {
        assert!(
            stderr.contains(&format!(
                "ldwarc: warc/{name}: offset {offset}: record is truncated"
            )),
            "{stderr}"
        );
    }
    assert!(out.contains("4 captures added"), "{out}");
    let (code, cdx, _) = stdout(&root, &["cdx"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        sorted_lines(&cdx),
        cdxj_indexer_lines(&root.join("warc"), &["cut.warc", "cut.warc.gz"])
    );
    // Both copies are cut in the second statement: replay prints the first and says why.
    let (code, graph, stderr) = stdout(&root, &["replay", "http://a.example/cut"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("is truncated"), "{stderr}");
    assert!(stderr.contains("partial graph"), "{stderr}");
    assert_eq!(
        graph,
        "<http://a.example/s> <http://a.example/p> \"first\" .\n"
    );
    // A file completed after it was indexed: the next run indexes its whole record, once.
    let mut whole = first.clone();
    whole.extend_from_slice(&cut);
    std::fs::remove_file(root.join("warc/cut.warc.gz")).unwrap();
    let (code, _, stderr) = stdout(&root, &["index", "--rebuild"]);
    assert_eq!(code, Some(1), "{stderr}");
    std::fs::write(root.join("warc/cut.warc"), &whole).unwrap();
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    assert_eq!(
        sorted_lines(&cdx),
        cdxj_indexer_lines(&root.join("warc"), &["cut.warc"])
    );
    assert_eq!(cdx.lines().count(), 2, "{cdx}");
    let (code, out, _) = stdout(&root, &["index", "--verify"]);
    assert_eq!(code, Some(0), "{out}");
}

/// A record whose gzip is two members (cut in its WARC header, in its HTTP head, in its
/// payload) is one record spanning both members. cdxj-indexer (warcio) stops at the first
/// member and cannot read such a file, so its line for the same records written one member
/// per record is the reference, with the split record's length the sum of its members.
#[test]
fn a_record_split_over_two_gzip_members_is_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let first = good("http://a.example/x");
    let split = two_statements("http://a.example/split");
    let last = good("http://a.example/z");
    let head_end = split.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let http_end = head_end + 4 + 30;
    let reference = [gzip_member(&first), gzip_member(&split), gzip_member(&last)].concat();
    let mut files = vec![("reference.warc.gz", reference)];
    let names = [
        "split-header.warc.gz",
        "split-http.warc.gz",
        "split-payload.warc.gz",
    ];
    for (name, at) in names.iter().zip([40, http_end, split.len() - 30]) {
        let file = [
            gzip_member(&first),
            gzip_member(&split[..at]),
            gzip_member(&split[at..]),
            gzip_member(&last),
        ]
        .concat();
        files.push((*name, file));
    }
    let root = root_with(dir.path(), &files);
    let (code, out, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{out}{stderr}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    let reference = cdxj_indexer_lines(&root.join("warc"), &["reference.warc.gz"]);
    assert_eq!(reference.len(), 3);
    for (name, file) in &files[1..] {
        let at = names.iter().position(|n| n == name).unwrap();
        let cut = [40, http_end, split.len() - 30][at];
        let split_length = gzip_member(&split[..cut]).len() + gzip_member(&split[cut..]).len();
        let offsets = [
            (0, gzip_member(&first).len()),
            (gzip_member(&first).len(), split_length),
            (
                gzip_member(&first).len() + split_length,
                gzip_member(&last).len(),
            ),
        ];
        let reference_offsets = [
            0,
            gzip_member(&first).len(),
            gzip_member(&first).len() + gzip_member(&split).len(),
        ];
        let mut expected: Vec<String> = reference
            .iter()
            .map(|line| {
                let i = reference_offsets
                    .iter()
                    .position(|o| line.contains(&format!("\"offset\": \"{o}\"")))
                    .unwrap();
                let length = [
                    gzip_member(&first).len(),
                    gzip_member(&split).len(),
                    gzip_member(&last).len(),
                ][i];
                line.replace(
                    &format!(
                        "\"length\": \"{length}\", \"offset\": \"{}\"",
                        reference_offsets[i]
                    ),
                    &format!(
                        "\"length\": \"{}\", \"offset\": \"{}\"",
                        offsets[i].1, offsets[i].0
                    ),
                )
                .replace("reference.warc.gz", name)
            })
            .collect();
        expected.sort();
        let mut got: Vec<String> = cdx
            .lines()
            .filter(|line| line.contains(&format!("\"filename\": \"{name}\"")))
            .map(str::to_string)
            .collect();
        got.sort();
        assert_eq!(got, expected, "{name}");
        assert_eq!(file.len(), offsets[2].0 + offsets[2].1);
        let (code, text) = check(&root.join("warc").join(name));
        assert_eq!(code, Some(0), "{text}");
        assert!(
            text.contains(&format!(
                "{}:{}: warning: record is split over 2 gzip members",
                root.join("warc").join(name).display(),
                offsets[1].0
            )),
            "{text}"
        );
    }
    let (code, graph, stderr) = stdout(&root, &["replay", "http://a.example/split"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(graph.lines().count(), 2, "{graph}");
}

/// A space in `WARC-Target-URI` (no URI holds one, some writers leave it) is `%20` in the
/// CDXJ url, as cdxj-indexer writes it (warcio replaces spaces, and nothing else).
#[test]
fn a_space_in_the_target_uri_is_percent_encoded_as_cdxj_indexer_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = good("http://a.example/with space/x");
    file.extend(good("http://a.example/q?a=b c"));
    let root = root_with(dir.path(), &[("spaces.warc", file)]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    assert!(
        cdx.contains("\"url\": \"http://a.example/with%20space/x\""),
        "{cdx}"
    );
    assert_eq!(
        sorted_lines(&cdx),
        cdxj_indexer_lines(&root.join("warc"), &["spaces.warc"])
    );
}

/// One uncompressed record of any type with the given WARC Content-Type (none if `None`).
fn typed_record(kind: &str, uri: &str, content_type: Option<&str>, block: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:x:{kind}:{}>\r\n\
         WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: {uri}\r\n",
        uri.len()
    );
    if let Some(content_type) = content_type {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\r\n\r\n");
    bytes
}

/// One uncompressed record of any type with a WARC Content-Type and further fields.
fn typed_record_with(
    kind: &str,
    uri: &str,
    content_type: &str,
    fields: &[(&str, &str)],
    block: &[u8],
) -> Vec<u8> {
    let extra: String = fields
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let record = typed_record(kind, uri, Some(content_type), block);
    let at = record.windows(2).position(|w| w == b"\r\n").unwrap() + 2;
    [&record[..at], extra.as_bytes(), &record[at..]].concat()
}

/// `ls` shows the status `cdx` indexes: for a response whose WARC Content-Type does not say
/// application/http (302 and 200), and for no request record, whatever its block holds.
#[test]
fn ls_shows_the_status_cdx_shows() {
    let dir = tempfile::tempdir().unwrap();
    let redirect = b"HTTP/1.1 302 Found\r\nLocation: http://a.example/y\r\n\r\n";
    let records = [
        typed_record("response", "http://a.example/x", None, redirect),
        typed_record(
            "response",
            "http://a.example/y",
            Some("application/octet-stream"),
            &http_response(),
        ),
        // A head the block ends inside of.
        typed_record(
            "response",
            "http://a.example/z",
            Some("application/http; msgtype=response"),
            b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle",
        ),
        // A request whose block a tool filled with a response head.
        typed_record(
            "request",
            "http://a.example/y",
            Some("application/http; msgtype=request"),
            b"HTTP/1.1 200 OK\r\n\r\n",
        ),
    ];
    let root = root_with(dir.path(), &[("status.warc", records.concat())]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, cdx, _) = stdout(&root, &["cdx"]);
    let mut cdx_status = std::collections::BTreeMap::new();
    for line in cdx.lines() {
        let json: serde_json::Value =
            serde_json::from_str(line.splitn(3, ' ').nth(2).unwrap()).unwrap();
        let offset: u64 = json["offset"].as_str().unwrap().parse().unwrap();
        cdx_status.insert(offset, json["status"].as_str().map(str::to_string));
    }
    let output = run(ldwarc()
        .args(["ls", "--format", "json"])
        .arg(root.join("warc/status.warc")));
    assert!(output.status.success(), "{output:?}");
    let mut ls_status = std::collections::BTreeMap::new();
    let mut request_status = None;
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let json: serde_json::Value = serde_json::from_str(line).unwrap();
        let status = json["status"].as_u64().map(|s| s.to_string());
        if json["type"] == "request" {
            request_status = Some(status);
        } else {
            ls_status.insert(json["offset"].as_u64().unwrap(), status);
        }
    }
    assert_eq!(ls_status, cdx_status);
    assert_eq!(
        ls_status.values().cloned().collect::<Vec<_>>(),
        [Some("302".into()), Some("200".into()), Some("200".into())]
    );
    assert_eq!(request_status, Some(None));
}

/// `now` is a date wherever one is given: `replay URL@now`, `diff URL@DATE now`,
/// `diff @DATE @now`, as `query --closest now` already took it.
#[test]
fn now_is_a_date_for_replay_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let turtle = |value: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n\
             <http://a.example/s> <http://a.example/p> \"{value}\" .\n"
        )
        .into_bytes()
    };
    let old = record(
        "http://a.example/doc",
        "2024-01-02T03:04:05Z",
        &[],
        &turtle("old"),
    );
    let new = record(
        "http://a.example/doc",
        "2025-01-02T03:04:05Z",
        &[],
        &turtle("new"),
    );
    let root = root_with(dir.path(), &[("now.warc", [old, new].concat())]);
    let (code, _, stderr) = stdout(&root, &["index"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, graph, stderr) = stdout(&root, &["replay", "http://a.example/doc@now"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        graph,
        "<http://a.example/s> <http://a.example/p> \"new\" .\n"
    );
    for args in [
        ["diff", "--format", "nt", "http://a.example/doc@2024", "now"],
        [
            "diff",
            "--format",
            "nt",
            "http://a.example/doc@2024",
            "http://a.example/doc@NOW",
        ],
    ] {
        let (code, diff, stderr) = stdout(&root, &args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(
            diff,
            "- <http://a.example/s> <http://a.example/p> \"old\" .\n\
             + <http://a.example/s> <http://a.example/p> \"new\" .\n",
            "{args:?}"
        );
    }
    let (code, out, stderr) = stdout(&root, &["diff", "@2024", "@now"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(out.contains("changed"), "{out}");
}

/// `check --lenient` takes the defects wpull, warcio.js and ArchiveWeb.page write as
/// warnings (each in a file of its own, each an error without the flag), and nothing else.
#[test]
fn check_lenient_accepts_what_real_tools_write_and_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let fields = b"software: test\r\nformat: WARC File Format 1.0\r\n";
    let warcinfo = |extra: &str| {
        let mut bytes = format!(
            "WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Type: application/warc-fields\r\n\
             WARC-Date: 2015-03-30T23:50:45Z\r\n\
             WARC-Record-ID: <urn:uuid:af068b1e-6313-43f7-9278-e68e65528cee>\r\n{extra}\
             Content-Length: {}\r\n\r\n",
            fields.len()
        )
        .into_bytes();
        bytes.extend_from_slice(fields);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    };
    // wpull: the warcinfo record names itself.
    let wpull = warcinfo("WARC-Warcinfo-ID: <urn:uuid:af068b1e-6313-43f7-9278-e68e65528cee>\r\n");
    // warcio.js: a metadata record with a (correct) payload digest.
    let metadata_block = b"{\"pages\": 1}";
    let digest = format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&Sha1::digest(metadata_block))
    );
    let mut warciojs = warcinfo("");
    warciojs.extend(typed_record_with(
        "metadata",
        "urn:pageinfo:http://a.example/",
        "application/json",
        &[("WARC-Payload-Digest", &digest)],
        metadata_block,
    ));
    // ArchiveWeb.page: a request line without an HTTP version.
    let mut awp = warcinfo("");
    awp.extend(typed_record_with(
        "request",
        "http://a.example/x",
        "application/http; msgtype=request",
        &[],
        b"GET /x\r\nHost: a.example\r\n\r\n",
    ));
    awp.extend(good("http://a.example/x"));
    // Not in the list: a forbidden field elsewhere stays an error.
    let mut other = warcinfo("WARC-Refers-To: <urn:uuid:1>\r\n");
    other.extend(good("http://a.example/y"));
    let files = [
        (
            "wpull.warc",
            wpull,
            "WARC-Warcinfo-ID must not appear in warcinfo records",
        ),
        (
            "warciojs.warc",
            warciojs,
            "WARC-Payload-Digest must not appear in metadata records",
        ),
        (
            "awp.warc",
            awp,
            "request line \"GET /x\" has no HTTP version",
        ),
    ];
    for (name, bytes, message) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (code, text) = check(&path);
        assert_eq!(code, Some(1), "{name}: {text}");
        assert!(text.contains(": error: "), "{name}: {text}");
        let output = run(ldwarc().args(["check", "--lenient"]).arg(&path));
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{name}: {text}");
        let offset = if name.starts_with("wpull") {
            0
        } else {
            warcinfo("").len()
        };
        let problems: Vec<&str> = text
            .lines()
            .filter(|line| line.contains(": warning: ") || line.contains(": error: "))
            .collect();
        assert_eq!(
            problems,
            [format!("{}:{offset}: warning: {message}", path.display())],
            "{name}"
        );
        assert!(text.contains(" 0 errors, 1 warnings"), "{name}: {text}");
        let strict = run(ldwarc().args(["check", "--lenient", "--strict"]).arg(&path));
        assert_eq!(strict.status.code(), Some(1), "{name}");
    }
    // The file wpull wrote in pywb's sample archive: an error by the standard, a warning
    // with --lenient.
    let wpull = crate::common::pywb_sample_warcs().join("example-wpull.warc.gz");
    let (code, text) = check(&wpull);
    assert_eq!(code, Some(1), "{text}");
    let output = run(ldwarc().args(["check", "--lenient"]).arg(&wpull));
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.ends_with(": 0 errors, 1 warnings\n"), "{text}");
    let path = dir.path().join("other.warc");
    std::fs::write(&path, &other).unwrap();
    let output = run(ldwarc().args(["check", "--lenient"]).arg(&path));
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains(":0: error: WARC-Refers-To must not appear in warcinfo records"),
        "{text}"
    );
}
