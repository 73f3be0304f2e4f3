//! Writer round trip: records with varied headers and bodies written by `WarcWriter` read
//! back identical (header order and repeats, bodies byte for byte), at the offsets and
//! lengths the writer returned, sequentially and by random access; `ldwarc check` finds
//! nothing wrong with the files.

use crate::common;

use std::fs::{self, File};
use std::io::{BufWriter, Cursor, Read, Write};
use std::path::Path;

use chrono::{TimeZone, Utc};
use ldwarc_warc::{
    Block, BlockBuilder, PayloadKind, WarcHeader, WarcReader, WarcWriter, WrittenRecord, profiles,
    record_header, warcinfo_record,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use common::{ldwarc, run};

/// One record to write: its header, its block bytes, and how to build the block.
struct Input {
    header: WarcHeader,
    body: Vec<u8>,
    kind: PayloadKind,
    /// Build the block through a `BlockBuilder` spilling past this many bytes, written in
    /// chunks of `chunk` bytes.
    spill: Option<(usize, usize)>,
}

impl Input {
    fn block(&self) -> Block {
        match self.spill {
            None => Block::from_bytes(self.body.clone(), self.kind).expect("block"),
            Some((threshold, chunk)) => {
                let mut builder = BlockBuilder::with_spill(self.kind, threshold);
                for part in self.body.chunks(chunk.max(1)) {
                    builder.write_all(part).expect("write to block builder");
                }
                assert_eq!(builder.len(), self.body.len() as u64);
                builder.finish().expect("spilled block")
            }
        }
    }
}

fn http_response(status: &str, body: &[u8], extra: &str) -> Vec<u8> {
    let mut block = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/turtle; charset=utf-8\r\n{extra}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    block.extend_from_slice(body);
    block
}

fn random_bytes(rng: &mut impl Rng, len: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; len];
    rng.fill(&mut bytes[..]);
    bytes
}

/// The records of the round trip, in file order. Ids of earlier records are referred to by
/// later ones (concurrent-to, refers-to), so the revisits are built from written headers.
fn inputs(rng: &mut impl Rng) -> Vec<Input> {
    let date = Utc
        .with_ymd_and_hms(2025, 6, 7, 8, 9, 10)
        .single()
        .expect("valid date");
    let mut inputs = Vec::new();
    let (info_header, _) = warcinfo_record(
        "roundtrip.warc.gz",
        date,
        &[("software", "ldwarc-test".to_string())],
    )
    .expect("warcinfo");
    inputs.push(Input {
        header: info_header,
        body: b"software: ldwarc-test\r\nformat: WARC File Format 1.1\r\n".to_vec(),
        kind: PayloadKind::None,
        spill: None,
    });

    // A request with fields in an unusual order, repeated WARC-Concurrent-To, extension
    // fields (repeated too), a non-ASCII IRI, a misplaced stale Content-Length the writer
    // must correct in place.
    let mut request = WarcHeader::new("1.1");
    request.push(
        "WARC-Target-URI",
        "http://例え.jp/パス/ressource?q=été&x=%C3%A9",
    );
    request.push("Content-Length", "999999");
    request.push("WARC-Type", "request");
    request.push("X-Crawler-Note", "a: b  c (internal spacing kept)");
    request.push(
        "WARC-Concurrent-To",
        "<urn:uuid:00000000-0000-4000-8000-000000000001>",
    );
    request.push("WARC-Date", "2025-06-07T08:09:10Z");
    request.push(
        "WARC-Concurrent-To",
        "<urn:uuid:00000000-0000-4000-8000-000000000002>",
    );
    request.push("X-Tag", "first");
    request.push(
        "WARC-Record-ID",
        "<urn:uuid:00000000-0000-4000-8000-0000000000aa>",
    );
    request.push("x-tag", "second, différent");
    request.push("Content-Type", "application/http;msgtype=request");
    request.push(
        "WARC-Concurrent-To",
        "<urn:uuid:00000000-0000-4000-8000-000000000003>",
    );
    request.push("WARC-X-Extension-Field", "unknown but kept");
    inputs.push(Input {
        header: request,
        body: "GET /パス/ressource?q=été HTTP/1.1\r\nHost: xn--r8jz45g.jp\r\nAccept: text/turtle\r\n\r\n"
            .as_bytes()
            .to_vec(),
        kind: PayloadKind::Http,
        spill: None,
    });

    // Responses: empty body, 1 byte, 100 KB (in memory and spilled), 1 MB spilled in odd
    // chunks.
    type Spill = Option<(usize, usize)>;
    let bodies: Vec<(Vec<u8>, Spill)> = vec![
        (Vec::new(), None),
        (b"x".to_vec(), None),
        (b"y".to_vec(), Some((0, 1))),
        (random_bytes(rng, 100 * 1024), None),
        (random_bytes(rng, 100 * 1024), Some((4096, 1000))),
        (
            "<http://example.org/s> <http://example.org/p> \"ö\" .\n"
                .repeat(20_000)
                .into_bytes(),
            Some((64 * 1024, 7919)),
        ),
    ];
    for (i, (body, spill)) in bodies.into_iter().enumerate() {
        let uri = if i % 2 == 0 {
            format!("https://data.example.org/ダタ/{i}")
        } else {
            format!("http://data.example.org/resource/{i}")
        };
        let mut response = record_header("response", date, Some(&uri));
        response.push("Content-Type", "application/http;msgtype=response");
        response.push("WARC-IP-Address", "192.0.2.7");
        response.push(
            "WARC-Concurrent-To",
            "<urn:uuid:00000000-0000-4000-8000-0000000000aa>",
        );
        inputs.push(Input {
            header: response,
            body: http_response("200 OK", &body, "X-Powered-By: tests\r\n"),
            kind: PayloadKind::Http,
            spill,
        });
    }

    // A resource with an empty block and no Content-Type; a resource spilled.
    inputs.push(Input {
        header: record_header("resource", date, Some("urn:x-test:empty")),
        body: Vec::new(),
        kind: PayloadKind::WholeBlock,
        spill: None,
    });
    let mut resource = record_header("resource", date, Some("file:///données/graph.nt"));
    resource.push("Content-Type", "application/n-triples");
    inputs.push(Input {
        header: resource,
        body: random_bytes(rng, 50_000),
        kind: PayloadKind::WholeBlock,
        spill: Some((1000, 333)),
    });

    // Metadata with a warc-fields body.
    let mut metadata = record_header("metadata", date, Some("http://data.example.org/resource/1"));
    metadata.push(
        "WARC-Concurrent-To",
        "<urn:uuid:00000000-0000-4000-8000-0000000000aa>",
    );
    metadata.push("Content-Type", "application/warc-fields");
    inputs.push(Input {
        header: metadata,
        body: b"fetchTimeMs: 42\r\nvia: http://example.org/\r\n".to_vec(),
        kind: PayloadKind::None,
        spill: None,
    });
    inputs
}

/// Revisits of both profiles pointing at `original` (a written response).
fn revisits(original: &WrittenRecord) -> Vec<Input> {
    let date = Utc
        .with_ymd_and_hms(2025, 6, 8, 0, 0, 0)
        .single()
        .expect("valid date");
    let target = original.header.target_uri().expect("target").to_string();
    let original_id = original.header.record_id().expect("id").to_string();
    let original_date = original.header.date().expect("date").to_string();

    let mut identical = record_header("revisit", date, Some(&target));
    identical.push("WARC-Profile", profiles::IDENTICAL_PAYLOAD_DIGEST);
    identical.push("WARC-Refers-To", original_id.clone());
    identical.push("WARC-Refers-To-Target-URI", target.clone());
    identical.push("WARC-Refers-To-Date", original_date.clone());
    identical.push(
        "WARC-Payload-Digest",
        original
            .header
            .get("WARC-Payload-Digest")
            .expect("original payload digest"),
    );
    identical.push("Content-Type", "application/http;msgtype=response");

    let mut not_modified = record_header("revisit", date, Some(&target));
    not_modified.push("WARC-Profile", profiles::SERVER_NOT_MODIFIED);
    not_modified.push("WARC-Refers-To", original_id);
    not_modified.push("WARC-Refers-To-Target-URI", target);
    not_modified.push("WARC-Refers-To-Date", original_date);
    not_modified.push("Content-Type", "application/http;msgtype=response");

    vec![
        Input {
            header: identical,
            body: b"HTTP/1.1 200 OK\r\nContent-Type: text/turtle; charset=utf-8\r\nContent-Length: 102400\r\n\r\n"
                .to_vec(),
            kind: PayloadKind::None,
            spill: None,
        },
        Input {
            header: not_modified,
            body: b"HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n\r\n".to_vec(),
            kind: PayloadKind::None,
            spill: Some((8, 5)),
        },
    ]
}

/// Fields the writer fills in itself.
fn writer_owned(name: &str, input: &WarcHeader) -> bool {
    name.eq_ignore_ascii_case("Content-Length")
        || name.eq_ignore_ascii_case("WARC-Block-Digest")
        || (name.eq_ignore_ascii_case("WARC-Payload-Digest")
            && input.get("WARC-Payload-Digest").is_none())
}

fn user_fields(header: &WarcHeader, input: &WarcHeader) -> Vec<(String, String)> {
    header
        .fields
        .iter()
        .filter(|(name, _)| !writer_owned(name, input))
        .cloned()
        .collect()
}

/// Writes every input to `path`; returns the inputs with what the writer returned.
fn write_file(path: &Path, compression: Option<u32>, seed: u64) -> Vec<(Input, WrittenRecord)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let file = File::create(path).expect("create WARC file");
    let mut writer = WarcWriter::new(BufWriter::new(file), 0).with_compression(compression);
    let mut written = Vec::new();
    let mut pending = inputs(&mut rng);
    let mut revisits_added = false;
    while !pending.is_empty() {
        let input = pending.remove(0);
        let record = writer
            .write_record(input.header.clone(), input.block())
            .expect("write record");
        assert_eq!(record.header.version, "1.1");
        assert_eq!(
            user_fields(&record.header, &input.header),
            user_fields(&input.header, &input.header),
            "the writer keeps the given fields in order"
        );
        // Content-Length is corrected where it stood, not moved.
        if let Some(at) = input
            .header
            .fields
            .iter()
            .position(|(n, _)| n == "Content-Length")
        {
            assert_eq!(record.header.fields[at].0, "Content-Length");
        }
        assert_eq!(
            record.header.content_length(),
            Some(input.body.len() as u64)
        );
        let is_big_response = input.header.record_type() == Some("response")
            && input.body.len() > 100 * 1024
            && input.spill.is_none();
        let response = record.clone();
        written.push((input, record));
        if is_big_response && !revisits_added {
            revisits_added = true;
            pending.splice(0..0, revisits(&response));
        }
    }
    assert!(revisits_added);
    let position = writer.position();
    let mut out = writer.into_inner();
    out.flush().expect("flush");
    drop(out);
    assert_eq!(
        fs::metadata(path).expect("metadata").len(),
        position,
        "writer position is the file size"
    );
    written
}

fn read_back(path: &Path, written: &[(Input, WrittenRecord)]) {
    let mut reader = WarcReader::open(path).expect("open");
    let mut index = 0;
    while let Some(next) = reader.next_record() {
        let mut record = next.unwrap_or_else(|e| panic!("record {index}: {e}"));
        let (input, expected) = written
            .get(index)
            .unwrap_or_else(|| panic!("more records read than written ({index})"));
        assert_eq!(
            record.header, expected.header,
            "record {index}: header reads back as written"
        );
        assert_eq!(record.offset, expected.offset, "record {index}: offset");
        let mut body = Vec::new();
        record.read_to_end(&mut body).expect("read block");
        assert!(
            body == input.body,
            "record {index}: body differs ({} bytes read, {} written)",
            body.len(),
            input.body.len()
        );
        let end = record.finish().expect("finish record");
        assert!(end.damage.is_none(), "record {index}: {:?}", end.damage);
        assert_eq!(end.trailer, b"\r\n\r\n");
        assert_eq!(end.span.offset, expected.offset, "record {index}: offset");
        assert_eq!(
            end.span.length,
            Some(expected.length),
            "record {index}: length"
        );
        index += 1;
    }
    assert_eq!(index, written.len(), "every record read back");
    assert!(!reader.is_whole_file_gzip());
}

fn random_access(path: &Path, written: &[(Input, WrittenRecord)], seed: u64) {
    let bytes = fs::read(path).expect("read file");
    let mut order: Vec<usize> = (0..written.len()).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    for index in order {
        let (input, expected) = &written[index];
        // From the file at the offset.
        let file = File::open(path).expect("open");
        let mut reader = WarcReader::at_offset(file, expected.offset).expect("seek");
        {
            let mut record = reader
                .next_record()
                .expect("a record at the offset")
                .expect("an intact record");
            assert_eq!(record.header, expected.header, "record {index} by offset");
            assert_eq!(record.offset, expected.offset);
            let mut body = Vec::new();
            record.read_to_end(&mut body).expect("read block");
            assert!(body == input.body, "record {index} by offset: body");
            let end = record.finish().expect("finish");
            assert_eq!(end.span.offset, expected.offset);
            assert_eq!(end.span.length, Some(expected.length));
            assert!(end.damage.is_none());
        }
        // Reading goes on with the next record.
        let next = reader.next_record().map(|r| {
            r.expect("next record intact")
                .header
                .record_id()
                .map(str::to_string)
        });
        let expected_next = written
            .get(index + 1)
            .map(|(_, w)| w.header.record_id().map(str::to_string));
        assert_eq!(next, expected_next, "record after {index}");

        // Exactly (offset, length) holds the record and nothing else.
        let start = expected.offset as usize;
        let slice = bytes[start..start + expected.length as usize].to_vec();
        let mut reader = WarcReader::new(Cursor::new(slice)).expect("slice reader");
        {
            let mut record = reader
                .next_record()
                .expect("a record in the slice")
                .expect("intact");
            assert_eq!(record.header, expected.header, "record {index} by slice");
            let mut body = Vec::new();
            record.read_to_end(&mut body).expect("read block");
            assert!(body == input.body, "record {index} by slice: body");
            let end = record.finish().expect("finish");
            assert!(end.damage.is_none(), "{:?}", end.damage);
            assert_eq!(
                end.span,
                ldwarc_warc::RecordSpan {
                    offset: 0,
                    length: Some(expected.length)
                }
            );
        }
        assert!(
            reader.next_record().is_none(),
            "record {index}: the slice holds one record"
        );
    }
}

fn check_clean(path: &Path, records: usize) {
    let output = run(ldwarc().arg("check").arg("--strict").arg(path));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "ldwarc check {}:\n{stdout}{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = stdout.lines().last().unwrap_or("");
    assert!(
        summary.starts_with(&format!("checked 1 files, {records} records, "))
            && summary.ends_with(": 0 errors, 0 warnings"),
        "ldwarc check found problems:\n{stdout}"
    );
    assert_eq!(
        stdout.lines().count(),
        1,
        "only the summary line:\n{stdout}"
    );
}

fn roundtrip(name: &str, compression: Option<u32>, seed: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    let written = write_file(&path, compression, seed);
    read_back(&path, &written);
    random_access(&path, &written, seed);
    check_clean(&path, written.len());

    // `ldwarc ls` agrees on offsets, lengths and ids.
    let output = run(ldwarc().arg("ls").args(["--format", "json"]).arg(&path));
    assert!(output.status.success());
    let listed: Vec<(u64, u64, String)> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            (
                value["offset"].as_u64().expect("offset"),
                value["length"].as_u64().expect("length"),
                value["record_id"].as_str().expect("id").to_string(),
            )
        })
        .collect();
    let expected: Vec<(u64, u64, String)> = written
        .iter()
        .map(|(_, w)| {
            (
                w.offset,
                w.length,
                w.header.record_id().expect("id").to_string(),
            )
        })
        .collect();
    assert_eq!(listed, expected);
}

#[test]
fn gzip_roundtrip() {
    roundtrip("roundtrip.warc.gz", Some(6), 1);
}

#[test]
fn gzip_fast_and_stored_roundtrip() {
    roundtrip("roundtrip-1.warc.gz", Some(1), 2);
    roundtrip("roundtrip-0.warc.gz", Some(0), 3);
}

#[test]
fn plain_roundtrip() {
    roundtrip("roundtrip.warc", None, 4);
}

/// A writer appending to a file that already holds records reports offsets from the
/// position it was given, and the reader agrees.
#[test]
fn appending_writer_reports_file_offsets() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, compression) in [("append.warc.gz", Some(6)), ("append.warc", None)] {
        let path = dir.path().join(name);
        let first = write_file(&path, compression, 5);
        let start = fs::metadata(&path).expect("metadata").len();
        let file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("append");
        let mut writer = WarcWriter::new(file, start).with_compression(compression);
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        let mut all = first;
        for input in inputs(&mut rng).into_iter().skip(1) {
            let record = writer
                .write_record(input.header.clone(), input.block())
                .expect("write");
            all.push((input, record));
        }
        writer.flush().expect("flush");
        read_back(&path, &all);
        check_clean(&path, all.len());
    }
}
