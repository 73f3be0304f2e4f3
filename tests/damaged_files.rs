//! Damaged WARC files: files written by ldwarc's own writer (one gzip member per record, and
//! plain `.warc`), then damaged on purpose. Both the library reader and the real binary
//! (`ldwarc check`, `ldwarc ls`) must name the file and the offset of the damage, and still
//! read every intact record before and after it.

use crate::common;

use std::fs;
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use ldwarc_warc::{
    Block, PayloadKind, ReadError, WarcHeader, WarcReader, WarcWriter, record_header,
    warcinfo_record,
};

use common::{ldwarc, run};

/// One record as the writer placed it.
#[derive(Debug, Clone)]
struct Placed {
    id: String,
    offset: u64,
    length: u64,
}

/// A file written by the library writer, kept in memory.
struct Sample {
    gzip: bool,
    bytes: Vec<u8>,
    records: Vec<Placed>,
}

impl Sample {
    fn new(gzip: bool) -> Self {
        let mut bytes = Vec::new();
        let mut writer = WarcWriter::new(&mut bytes, 0);
        if !gzip {
            writer = writer.with_compression(None);
        }
        let mut records = Vec::new();
        for (header, block) in sample_records() {
            let written = writer
                .write_record(header, block)
                .expect("writing to memory succeeds");
            records.push(Placed {
                id: written
                    .header
                    .record_id()
                    .expect("writer sets WARC-Record-ID")
                    .to_string(),
                offset: written.offset,
                length: written.length,
            });
        }
        Self {
            gzip,
            bytes,
            records,
        }
    }

    fn extension(&self) -> &'static str {
        if self.gzip { "warc.gz" } else { "warc" }
    }

    /// The bytes of record `index` (its gzip member, or header + block + trailer).
    fn range(&self, index: usize) -> Range<usize> {
        let start = self.records[index].offset as usize;
        let end = self
            .records
            .get(index + 1)
            .map_or(self.bytes.len(), |r| r.offset as usize);
        start..end
    }

    /// The uncompressed bytes of record `index`.
    fn record_bytes(&self, index: usize) -> Vec<u8> {
        let raw = &self.bytes[self.range(index)];
        if !self.gzip {
            return raw.to_vec();
        }
        let mut out = Vec::new();
        GzDecoder::new(raw)
            .read_to_end(&mut out)
            .expect("sample member decompresses");
        out
    }

    /// Replaces record `index` with `record` (uncompressed; re-compressed as its own gzip
    /// member in gzip files).
    fn replace_record(&self, index: usize, record: &[u8]) -> Vec<u8> {
        let encoded = if self.gzip {
            let mut encoder = GzEncoder::new(Vec::new(), Compression::new(6));
            encoder.write_all(record).expect("compress to memory");
            encoder.finish().expect("compress to memory")
        } else {
            record.to_vec()
        };
        splice(&self.bytes, self.range(index), &encoded)
    }

    /// The records as a reader of a damaged copy should find them: every record except
    /// those in `lost`, offsets from `damage_at` on moved by `shift`.
    fn expected(&self, lost: &[usize], damage_at: u64, shift: i64) -> Vec<Seen> {
        self.records
            .iter()
            .enumerate()
            .filter(|(i, _)| !lost.contains(i))
            .map(|(_, r)| Seen {
                id: Some(r.id.clone()),
                offset: if r.offset >= damage_at {
                    r.offset
                        .checked_add_signed(shift)
                        .expect("offset stays >= 0")
                } else {
                    r.offset
                },
            })
            .collect()
    }
}

/// Deterministic bytes that do not compress (xorshift).
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn turtle(len: usize) -> Vec<u8> {
    let mut text = String::from("@prefix ex: <http://example.org/> .\n");
    let mut i = 0u64;
    while text.len() < len {
        text.push_str(&format!(
            "ex:s{i} ex:p{} \"value {}\" .\n",
            i % 17,
            i * 7919 % 104_729
        ));
        i += 1;
    }
    text.truncate(len);
    text.into_bytes()
}

fn http_response(body: &[u8]) -> Vec<u8> {
    let mut block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    block.extend_from_slice(body);
    block
}

/// warcinfo, then request / response / metadata / resource records with bodies from 0 bytes
/// to 40 KB (incompressible and compressible).
fn sample_records() -> Vec<(WarcHeader, Block)> {
    let date = Utc
        .with_ymd_and_hms(2025, 3, 4, 5, 6, 7)
        .single()
        .expect("valid date");
    let mut records = vec![
        warcinfo_record(
            "damaged-sample.warc.gz",
            date,
            &[("software", "ldwarc-test".to_string())],
        )
        .expect("warcinfo block"),
    ];
    let bodies: [Vec<u8>; 5] = [
        noise(40_000, 0x9e37_79b9_7f4a_7c15),
        turtle(30_000),
        Vec::new(),
        b"x".to_vec(),
        turtle(5_000),
    ];
    for (i, body) in bodies.iter().enumerate() {
        let uri = format!("http://data.example.org/resource/{i}");
        let mut request = record_header("request", date, Some(&uri));
        request.push("Content-Type", "application/http;msgtype=request");
        let request_block = Block::from_bytes(
            format!("GET /resource/{i} HTTP/1.1\r\nHost: data.example.org\r\nAccept: text/turtle\r\n\r\n")
                .into_bytes(),
            PayloadKind::Http,
        )
        .expect("request block");
        let mut response = record_header("response", date, Some(&uri));
        response.push("Content-Type", "application/http;msgtype=response");
        let response_id = response.record_id().expect("id").to_string();
        request.push("WARC-Concurrent-To", response_id.clone());
        let response_block =
            Block::from_bytes(http_response(body), PayloadKind::Http).expect("response block");
        records.push((request, request_block));
        records.push((response, response_block));
        if i % 2 == 0 {
            let mut metadata = record_header("metadata", date, Some(&uri));
            metadata.push("WARC-Concurrent-To", response_id);
            metadata.push("Content-Type", "application/warc-fields");
            let block = Block::from_bytes(
                format!("fetchTimeMs: {}\r\n", 10 + i).into_bytes(),
                PayloadKind::None,
            )
            .expect("metadata block");
            records.push((metadata, block));
        }
    }
    let mut resource = record_header("resource", date, Some("urn:x-test:empty"));
    resource.push("Content-Type", "text/plain");
    records.push((
        resource,
        Block::from_bytes(Vec::new(), PayloadKind::WholeBlock).expect("empty block"),
    ));
    records
}

fn splice(bytes: &[u8], range: Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = bytes[..range.start].to_vec();
    out.extend_from_slice(with);
    out.extend_from_slice(&bytes[range.end..]);
    out
}

/// Removes the header line of field `name` from an uncompressed record.
fn without_field(record: &[u8], name: &str) -> Vec<u8> {
    let head_end = find(record, b"\r\n\r\n").expect("record has a header") + 2;
    let needle = format!("\r\n{name}: ");
    let start = find(&record[..head_end], needle.as_bytes()).expect("field present") + 2;
    let end = start + find(&record[start..], b"\r\n").expect("line ends") + 2;
    splice(record, start..end, b"")
}

/// Replaces the value of `Content-Length` in an uncompressed record.
fn with_content_length(record: &[u8], value: u64) -> Vec<u8> {
    let start = find(record, b"\r\nContent-Length: ").expect("Content-Length") + 18;
    let end = start + find(&record[start..], b"\r\n").expect("line ends");
    splice(record, start..end, value.to_string().as_bytes())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// What a reader found: one record (id and offset).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Seen {
    id: Option<String>,
    offset: u64,
}

/// What the library reader reports for a file: records it could read to their end (with
/// any damage found at their end), and every error.
struct LibraryView {
    records: Vec<Seen>,
    lengths: Vec<Option<u64>>,
    errors: Vec<ReadError>,
}

fn read_error(error: io::Error) -> ReadError {
    match error
        .into_inner()
        .map(|inner| inner.downcast::<ReadError>())
    {
        Some(Ok(error)) => *error,
        Some(Err(other)) => panic!("block read failed without a ReadError: {other}"),
        None => panic!("block read failed without a ReadError"),
    }
}

fn read_with_library(path: &Path) -> LibraryView {
    let mut reader = WarcReader::open(path).expect("open damaged file");
    let mut view = LibraryView {
        records: Vec::new(),
        lengths: Vec::new(),
        errors: Vec::new(),
    };
    let mut guard = 0;
    while let Some(next) = reader.next_record() {
        guard += 1;
        assert!(
            guard < 1000,
            "reader does not terminate on {}",
            path.display()
        );
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                view.errors.push(error);
                continue;
            }
        };
        let id = record.header.record_id().map(str::to_string);
        let offset = record.offset;
        let mut body = Vec::new();
        if let Err(error) = record.read_to_end(&mut body) {
            view.errors.push(read_error(error));
            continue;
        }
        match record.finish() {
            Ok(end) => {
                assert_eq!(end.span.offset, offset);
                view.records.push(Seen { id, offset });
                view.lengths.push(end.span.length);
                if let Some(damage) = end.damage {
                    view.errors.push(damage);
                }
            }
            Err(error) => view.errors.push(error),
        }
    }
    view
}

/// `ldwarc ls --json`: the records listed and what was said on stderr.
fn list_with_binary(path: &Path) -> (Vec<Seen>, String, Option<i32>) {
    let output = run(ldwarc().arg("ls").args(["--format", "json"]).arg(path));
    let stdout = String::from_utf8(output.stdout).expect("ls prints UTF-8");
    let seen = stdout
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("ls --json line {line:?} is not JSON: {e}"));
            Seen {
                id: value["record_id"].as_str().map(str::to_string),
                offset: value["offset"].as_u64().expect("offset is a number"),
            }
        })
        .collect();
    (
        seen,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code(),
    )
}

/// `ldwarc check`: stdout and exit status.
fn check_with_binary(path: &Path) -> (String, Option<i32>) {
    let output = run(ldwarc().arg("check").arg(path));
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.code(),
    )
}

struct Case {
    name: String,
    bytes: Vec<u8>,
    /// The records a reader must find, in order.
    expected: Vec<Seen>,
    /// The offset every report of the damage must name.
    damage_offset: u64,
    /// A further offset the message must mention (e.g. where garbage starts in a plain file).
    also_mentions: Option<u64>,
    /// Words the message must contain (lower case).
    message_contains: &'static str,
    /// Whether the reader itself sees the damage (a missing WARC-Record-ID is only found by
    /// `check`, the record still reads).
    reader_sees_damage: bool,
}

fn verify(dir: &Path, case: &Case) {
    let path: PathBuf = dir.join(&case.name);
    fs::write(&path, &case.bytes).expect("write damaged file");
    let shown = path.display().to_string();
    let context = || format!("case {}", case.name);

    // The library reader.
    let view = read_with_library(&path);
    assert_eq!(
        view.records,
        case.expected,
        "{}: library reader records (errors: {:?})",
        context(),
        view.errors
    );
    if case.reader_sees_damage {
        assert!(
            view.errors.iter().any(|e| e.offset == case.damage_offset),
            "{}: no reader error at offset {}: {:?}",
            context(),
            case.damage_offset,
            view.errors
        );
        assert!(
            view.errors
                .iter()
                .all(|e| e.offset == case.damage_offset || Some(e.offset) == case.also_mentions),
            "{}: reader errors at unexpected offsets (damage at {}): {:?}",
            context(),
            case.damage_offset,
            view.errors
        );
    } else {
        assert!(
            view.errors.is_empty(),
            "{}: unexpected reader errors {:?}",
            context(),
            view.errors
        );
    }

    // `ldwarc ls`.
    let (listed, stderr, status) = list_with_binary(&path);
    assert_eq!(listed, case.expected, "{}: ldwarc ls records", context());
    if case.reader_sees_damage {
        assert_eq!(status, Some(1), "{}: ldwarc ls exit status", context());
        let prefix = format!("ldwarc: {shown}: offset {}: ", case.damage_offset);
        assert!(
            stderr.lines().any(|l| l.starts_with(&prefix)),
            "{}: ldwarc ls stderr lacks {prefix:?}:\n{stderr}",
            context()
        );
    } else {
        assert_eq!(status, Some(0), "{}: ldwarc ls exit status", context());
    }

    // `ldwarc check`.
    let (stdout, status) = check_with_binary(&path);
    assert_eq!(
        status,
        Some(1),
        "{}: ldwarc check must fail:\n{stdout}",
        context()
    );
    let prefix = format!("{shown}:{}: error: ", case.damage_offset);
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert!(
        !lines.is_empty(),
        "{}: ldwarc check does not report {prefix:?}:\n{stdout}",
        context()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.to_lowercase().contains(case.message_contains)),
        "{}: no error at {} mentions {:?}:\n{stdout}",
        context(),
        case.damage_offset,
        case.message_contains
    );
    if let Some(offset) = case.also_mentions {
        assert!(
            lines.iter().any(|l| l.contains(&offset.to_string())),
            "{}: the error does not mention offset {offset}:\n{stdout}",
            context()
        );
    }
    let summary = stdout.lines().last().unwrap_or("");
    assert!(
        summary.starts_with("checked 1 files, "),
        "{}: summary line {summary:?}",
        context()
    );
}

fn run_cases(cases: Vec<Case>) {
    let dir = tempfile::tempdir().expect("temp dir");
    for case in &cases {
        verify(dir.path(), case);
    }
}

/// Both samples are sane to begin with: readers see every record, check passes.
#[test]
fn undamaged_samples_read_completely() {
    let dir = tempfile::tempdir().expect("temp dir");
    for gzip in [true, false] {
        let sample = Sample::new(gzip);
        let path = dir.path().join(format!("intact.{}", sample.extension()));
        fs::write(&path, &sample.bytes).expect("write sample");
        let view = read_with_library(&path);
        assert!(view.errors.is_empty(), "{:?}", view.errors);
        assert_eq!(view.records, sample.expected(&[], 0, 0));
        let lengths: Vec<Option<u64>> = sample.records.iter().map(|r| Some(r.length)).collect();
        assert_eq!(view.lengths, lengths, "reader lengths equal writer lengths");
        let (listed, stderr, status) = list_with_binary(&path);
        assert_eq!(listed, sample.expected(&[], 0, 0));
        assert_eq!(status, Some(0), "{stderr}");
        let output = run(ldwarc().arg("check").arg("--strict").arg(&path));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}");
        assert!(stdout.contains(": 0 errors, 0 warnings"), "{stdout}");
    }
}

/// (a) Bytes cut out of the middle of one gzip member: the member is reported at its
/// offset, everything before and after it is read.
#[test]
fn truncated_gzip_member_in_the_middle() {
    let sample = Sample::new(true);
    let mut cases = Vec::new();
    // Record 2 has an incompressible 40 KB body (stored deflate blocks), record 5 a
    // compressible one (Huffman-coded blocks); cut at different depths.
    for (index, fraction, cut) in [(2, 2, 100), (2, 4, 3000), (5, 2, 50), (5, 3, 1), (7, 2, 20)] {
        let range = sample.range(index);
        let start = range.start + (range.end - range.start) / fraction;
        let bytes = splice(&sample.bytes, start..start + cut, b"");
        cases.push(Case {
            name: format!("cut-member-{index}-{fraction}-{cut}.warc.gz"),
            bytes,
            expected: sample.expected(&[index], range.end as u64, -(cut as i64)),
            damage_offset: range.start as u64,
            also_mentions: None,
            message_contains: "gzip member",
            reader_sees_damage: true,
        });
    }
    // A cut from the middle of one member into the middle of the next loses both.
    let (first, second) = (sample.range(2), sample.range(3));
    let (from, to) = (
        first.start + (first.end - first.start) / 2,
        second.start + (second.end - second.start) / 2,
    );
    cases.push(Case {
        name: "cut-across-members-2-3.warc.gz".into(),
        bytes: splice(&sample.bytes, from..to, b""),
        expected: sample.expected(&[2, 3], second.end as u64, -((to - from) as i64)),
        damage_offset: first.start as u64,
        also_mentions: None,
        message_contains: "gzip member",
        reader_sees_damage: true,
    });
    run_cases(cases);
}

/// (b) Content-Length too small and too large, in gzip and plain files.
#[test]
fn wrong_content_length() {
    let mut cases = Vec::new();
    for gzip in [true, false] {
        let sample = Sample::new(gzip);
        let ext = sample.extension();
        // Record 5: a response with a 30 KB body; record 8: 1-byte body.
        for index in [5usize, 8] {
            let record = sample.record_bytes(index);
            let declared = record_content_length(&record);
            let range = sample.range(index);
            let offset = range.start as u64;
            for (label, value) in [
                ("small", declared / 2),
                ("small1", declared - 1),
                ("large1", declared + 1),
                ("large10", declared + 10),
                ("huge", declared + 10_000_000),
            ] {
                let damaged = with_content_length(&record, value);
                let bytes = sample.replace_record(index, &damaged);
                let shift = bytes.len() as i64 - sample.bytes.len() as i64;
                // A record whose block is cut short by its member (gzip), or runs past the
                // end of the file, cannot be read to its end; a plain record whose block
                // is too short, or runs a few bytes into the next record, reads as declared
                // and the damage is found at its end.
                // One byte too many takes a byte of the CRLF CRLF after the block: the
                // record still reads (readers accept a short record end, as other writers
                // leave them), and only `check` finds the damage, by the block digest.
                let record_survives = matches!(
                    (gzip, label),
                    (_, "small" | "small1" | "large1") | (false, "large10")
                );
                // Likewise a plain record one byte short whose last block byte is a line
                // end: that byte reads as part of a (long) record end.
                let head_len = find(&record, b"\r\n\r\n").expect("header") + 4;
                let last_block_byte = record[head_len + declared as usize - 1];
                let newline_cut = !gzip && label == "small1" && last_block_byte == b'\n';
                let reader_sees_damage = label != "large1" && !newline_cut;
                let lost: &[usize] = if record_survives { &[] } else { &[index] };
                let expected = sample.expected(lost, range.end as u64, shift);
                cases.push(Case {
                    name: format!("content-length-{label}-{index}.{ext}"),
                    bytes,
                    expected,
                    damage_offset: offset,
                    also_mentions: None,
                    message_contains: if !reader_sees_damage {
                        "block-digest mismatch"
                    } else if record_survives {
                        if gzip {
                            "content-length too small"
                        } else {
                            "content-length wrong"
                        }
                    } else {
                        "before its content-length"
                    },
                    reader_sees_damage,
                });
            }
        }
    }
    run_cases(cases);
}

fn record_content_length(record: &[u8]) -> u64 {
    let start = find(record, b"\r\nContent-Length: ").expect("Content-Length") + 18;
    let end = start + find(&record[start..], b"\r\n").expect("line ends");
    std::str::from_utf8(&record[start..end])
        .expect("ASCII")
        .parse()
        .expect("a number")
}

/// (c) Garbage between two records.
#[test]
fn garbage_between_records() {
    let mut cases = Vec::new();
    let garbages: [(&str, Vec<u8>); 4] = [
        ("text", b"this is not a WARC record at all\r\n".to_vec()),
        ("binary", noise(5000, 42)),
        // Starts like a gzip member but is not one.
        ("fake-gzip", {
            let mut bytes = vec![0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0xff];
            bytes.extend(noise(300, 7));
            bytes
        }),
        // A gzip member that holds no WARC record.
        ("foreign-member", {
            let mut encoder = GzEncoder::new(Vec::new(), Compression::new(6));
            encoder
                .write_all(b"HTTP/1.1 200 OK\r\n\r\nhello")
                .expect("compress");
            encoder.finish().expect("compress")
        }),
    ];
    for gzip in [true, false] {
        let sample = Sample::new(gzip);
        let ext = sample.extension();
        for index in [1usize, 4, 9] {
            for (label, garbage) in &garbages {
                let at = sample.range(index).start;
                let bytes = splice(&sample.bytes, at..at, garbage);
                let (damage_offset, also_mentions) = if gzip {
                    (at as u64, None)
                } else {
                    // In a plain file the record before the garbage is reported (its end
                    // is not followed by a record), naming where the garbage starts.
                    (sample.records[index - 1].offset, Some(at as u64))
                };
                cases.push(Case {
                    name: format!("garbage-{label}-before-{index}.{ext}"),
                    bytes,
                    expected: sample.expected(&[], at as u64, garbage.len() as i64),
                    damage_offset,
                    also_mentions,
                    message_contains: if gzip {
                        "resuming at offset"
                    } else {
                        "garbage"
                    },
                    reader_sees_damage: true,
                });
            }
        }
    }
    run_cases(cases);
}

/// (d) A record without a mandatory header field (nothing else adjusted; gzip members are
/// re-compressed).
#[test]
fn missing_mandatory_header() {
    let mut cases = Vec::new();
    for gzip in [true, false] {
        let sample = Sample::new(gzip);
        let ext = sample.extension();
        for index in [2usize, 6] {
            let range = sample.range(index);
            for field in ["WARC-Record-ID", "WARC-Date", "WARC-Type", "Content-Length"] {
                let record = without_field(&sample.record_bytes(index), field);
                let bytes = sample.replace_record(index, &record);
                let shift = bytes.len() as i64 - sample.bytes.len() as i64;
                let mut expected = sample.expected(&[], range.end as u64, shift);
                let readable = field != "Content-Length";
                if field == "WARC-Record-ID" {
                    expected[index].id = None;
                }
                if !readable {
                    expected.remove(index);
                }
                cases.push(Case {
                    name: format!("missing-{field}-{index}.{ext}"),
                    bytes,
                    expected,
                    damage_offset: range.start as u64,
                    also_mentions: None,
                    message_contains: if readable {
                        "is missing"
                    } else {
                        "content-length"
                    },
                    reader_sees_damage: !readable,
                });
            }
        }
    }
    run_cases(cases);
}

/// (e) The file ends inside its last record. A record whose header is whole is kept with
/// the bytes there are (as warcio and cdxj-indexer keep it) and reported as truncated; one
/// cut inside its header is lost.
#[test]
fn truncated_tail() {
    let mut cases = Vec::new();
    for gzip in [true, false] {
        let sample = Sample::new(gzip);
        let ext = sample.extension();
        let last = sample.records.len() - 1;
        // And a tail cut inside the 30 KB response, losing the records after it.
        for index in [last, 5] {
            let range = sample.range(index);
            let len = range.end - range.start;
            for keep in [1, 2, 5, 9, 10, 11, 30, len / 2, len - 8, len - 3, len - 1] {
                let bytes = sample.bytes[..range.start + keep].to_vec();
                let raw = &sample.bytes[range.start..range.start + keep];
                let decoded = if gzip {
                    let mut decoded = Vec::new();
                    // What a decoder makes of the cut member, up to the cut.
                    let _ = GzDecoder::new(raw).read_to_end(&mut decoded);
                    decoded
                } else {
                    raw.to_vec()
                };
                let header_whole = find(&decoded, b"\r\n\r\n").is_some();
                // In a plain file whose cut leaves the whole block and part of the CRLF
                // CRLF, the record is read; check reports its missing end.
                let plain_block_complete = !gzip && keep >= len - 3;
                let lost: Vec<usize> = (index..sample.records.len())
                    .filter(|&i| !(i == index && header_whole))
                    .collect();
                cases.push(Case {
                    name: format!("tail-{index}-{keep}.{ext}"),
                    bytes,
                    expected: sample.expected(&lost, u64::MAX, 0),
                    damage_offset: range.start as u64,
                    also_mentions: None,
                    message_contains: if plain_block_complete {
                        "crlf crlf"
                    } else if gzip || header_whole {
                        "truncated"
                    } else {
                        ""
                    },
                    reader_sees_damage: !plain_block_complete,
                });
            }
        }
    }
    run_cases(cases);
}
