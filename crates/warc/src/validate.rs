//! `ldwarc check`: framing, gzip member boundaries, mandatory fields and their placement per
//! record type, digests and revisit fields, one problem per line with its offset.

use std::io::{BufRead, Read, Seek};

use serde::Serialize;

use crate::RecordType;

use super::digest::{BlockDigester, DigestValue};
use super::header::{REPEATABLE_FIELDS, WarcHeader};
use super::http;
use super::reader::{ReadError, Record, WarcReader};
use super::summary::into_read_error;
use super::time::is_valid_warc_date;

/// How serious a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Departs from a SHOULD of the standard or from ldwarc's own contracts.
    Warning,
    /// Breaks a MUST of the standard, framing, or a digest.
    Error,
}

/// One problem found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Offset of the record (or damaged bytes) the problem is about.
    pub offset: u64,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
}

/// What checking one file found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileReport {
    /// Records read.
    pub records: u64,
    /// Digests recomputed and compared.
    pub digests_checked: u64,
    /// Problems, in file order.
    pub problems: Vec<Problem>,
}

impl FileReport {
    fn error(&mut self, offset: u64, message: impl Into<String>) {
        self.problems.push(Problem {
            offset,
            severity: Severity::Error,
            message: message.into(),
        });
    }

    fn push(&mut self, severity: Severity, offset: u64, message: impl Into<String>) {
        self.problems.push(Problem {
            offset,
            severity,
            message: message.into(),
        });
    }

    fn warning(&mut self, offset: u64, message: impl Into<String>) {
        self.problems.push(Problem {
            offset,
            severity: Severity::Warning,
            message: message.into(),
        });
    }

    /// Problems of at least `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity >= severity)
            .count()
    }
}

/// Which rules `check` applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rules {
    /// Every rule of the standard, as written.
    #[default]
    Standard,
    /// The standard, except for the defects widely used tools write into otherwise sound
    /// files, which are reported as warnings instead of errors (see [`LENIENT_RULES`]).
    Lenient,
}

/// The rules [`Rules::Lenient`] relaxes (from errors to warnings), as `check --help` and
/// the guide list them: (tool known to write the defect, what it writes).
pub const LENIENT_RULES: &[(&str, &str)] = &[
    (
        "wpull",
        "WARC-Warcinfo-ID in a warcinfo record (WARC 1.1 §5.10 forbids it there)",
    ),
    (
        "warcio.js",
        "WARC-Payload-Digest in a metadata record (WARC 1.1 §5.9 forbids it there); the \
         digest is still verified",
    ),
    (
        "ArchiveWeb.page",
        "a request line without an HTTP version (`GET /path`) in a request record",
    ),
];

/// Placements [`Rules::Lenient`] accepts: (field, record type).
const LENIENT_PLACEMENTS: &[(&str, &str)] = &[
    ("WARC-Warcinfo-ID", "warcinfo"),
    ("WARC-Payload-Digest", "metadata"),
];

/// Field placement of WARC 1.1 §5: (field, record types it is mandatory in, types it must
/// not appear in). Types not listed in either may carry the field.
const PLACEMENT: &[(&str, &[&str], &[&str])] = &[
    (
        "WARC-Target-URI",
        &[
            "response",
            "resource",
            "request",
            "revisit",
            "conversion",
            "continuation",
        ],
        &["warcinfo"],
    ),
    (
        "WARC-Concurrent-To",
        &[],
        &["warcinfo", "conversion", "continuation"],
    ),
    ("WARC-Payload-Digest", &[], &["warcinfo", "metadata"]),
    (
        "WARC-IP-Address",
        &[],
        &["warcinfo", "conversion", "continuation"],
    ),
    (
        "WARC-Refers-To",
        &[],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "continuation",
        ],
    ),
    (
        "WARC-Refers-To-Target-URI",
        &[],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "conversion",
            "continuation",
        ],
    ),
    (
        "WARC-Refers-To-Date",
        &[],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "conversion",
            "continuation",
        ],
    ),
    ("WARC-Warcinfo-ID", &[], &["warcinfo"]),
    (
        "WARC-Filename",
        &[],
        &[
            "response",
            "resource",
            "request",
            "metadata",
            "revisit",
            "conversion",
            "continuation",
        ],
    ),
    (
        "WARC-Profile",
        &["revisit"],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "conversion",
            "continuation",
        ],
    ),
    (
        "WARC-Segment-Origin-ID",
        &["continuation"],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "revisit",
            "conversion",
        ],
    ),
    ("WARC-Segment-Number", &["continuation"], &[]),
    (
        "WARC-Segment-Total-Length",
        &[],
        &[
            "warcinfo",
            "response",
            "resource",
            "request",
            "metadata",
            "revisit",
            "conversion",
        ],
    ),
];

/// Checks every record of a reader.
pub fn check_reader<R: Read + Seek>(reader: &mut WarcReader<R>) -> FileReport {
    check_reader_with(reader, Rules::Standard)
}

/// Checks every record of a reader by `rules`.
pub fn check_reader_with<R: Read + Seek>(reader: &mut WarcReader<R>, rules: Rules) -> FileReport {
    let mut report = FileReport::default();
    let mut first = true;
    let mut whole_gzip_reported = false;
    while let Some(next) = reader.next_record() {
        let mut record = match next {
            Ok(record) => record,
            Err(error) => {
                report.error(error.offset, error.message);
                continue;
            }
        };
        report.records += 1;
        let offset = record.offset;
        let is_arc = record.header.version == "ARC";
        if !is_arc {
            check_header(&record.header, offset, first, rules, &mut report);
        } else if let Some(length) = record.header.get(super::arc::ARC_INVALID_LENGTH) {
            report.error(
                offset,
                format!("ARC record length {length:?} is not a number (read as 0)"),
            );
        }
        first = false;
        let digests = match check_block(&mut record, rules, &mut report) {
            Ok(digests) => digests,
            Err(error) => {
                report.error(error.offset, error.message);
                continue;
            }
        };
        report.digests_checked += digests;
        match record.finish() {
            Ok(end) => {
                if end.split_members > 0 {
                    report.warning(
                        offset,
                        format!(
                            "record is split over {} gzip members (read as one stream; WARC \
                             recommends one member per record)",
                            end.split_members + 1
                        ),
                    );
                }
                if let Some(damage) = end.damage {
                    report.error(damage.offset, damage.message);
                } else if !is_arc && end.trailer != b"\r\n\r\n" {
                    // In a gzip member per record the member still delimits the record.
                    let severity = if reader.is_gzip() {
                        Severity::Warning
                    } else {
                        Severity::Error
                    };
                    report.push(
                        severity,
                        offset,
                        format!(
                            "record does not end with CRLF CRLF (found {:?})",
                            String::from_utf8_lossy(&end.trailer)
                        ),
                    );
                }
            }
            Err(error) => report.error(error.offset, error.message),
        }
        if reader.is_whole_file_gzip() && !whole_gzip_reported {
            whole_gzip_reported = true;
            report.error(
                offset,
                "file is gzipped as a whole, not one gzip member per record: offsets are not addressable",
            );
        }
    }
    if report.records == 0 && report.problems.is_empty() {
        // Valid, but rarely meant: a writer that never wrote, a copy cut short.
        report.warning(0, "no records: the file is empty");
    }
    report
}

fn check_header(
    header: &WarcHeader,
    offset: u64,
    first: bool,
    rules: Rules,
    report: &mut FileReport,
) {
    if !matches!(header.version.as_str(), "1.0" | "1.1") {
        report.warning(
            offset,
            format!("WARC version {} is not 1.0 or 1.1", header.version),
        );
    }
    for name in ["WARC-Record-ID", "Content-Length", "WARC-Date", "WARC-Type"] {
        if header.get(name).is_none() {
            report.error(offset, format!("mandatory field {name} is missing"));
        }
    }
    check_repeats(header, offset, report);
    let record_type = header.record_type().unwrap_or("");
    // Exact spellings only: a standard name in another case is an unknown type here.
    let kind = RecordType::from_exact(record_type);
    if !record_type.is_empty() && !RecordType::is_standard_name(record_type) {
        report.warning(offset, format!("unknown record type {record_type:?}"));
    }
    if first && kind != RecordType::Warcinfo {
        report.warning(offset, "the first record is not a warcinfo record");
    }
    if let Some(id) = header.record_id()
        && !(id.starts_with('<') && id.ends_with('>') && id.len() > 2 && id[1..].contains(':'))
    {
        report.error(
            offset,
            format!("WARC-Record-ID {id:?} is not a URI in angle brackets"),
        );
    }
    if let Some(date) = header.date()
        && !is_valid_warc_date(date, &header.version)
    {
        if is_valid_warc_date(date, "1.1") {
            report.warning(
                offset,
                format!(
                    "WARC-Date {date:?} has a precision WARC/{} does not allow",
                    header.version
                ),
            );
        } else {
            report.error(
                offset,
                format!("WARC-Date {date:?} is not a UTC date in the WARC grammar"),
            );
        }
    }
    if header.content_length().is_some_and(|n| n > 0)
        && header.content_type().is_none()
        && kind != RecordType::Continuation
    {
        report.warning(offset, "block is not empty but Content-Type is missing");
    }
    if RecordType::is_standard_name(record_type) {
        check_placement(header, record_type, offset, rules, report);
    }
    if kind == RecordType::Revisit {
        check_revisit(header, offset, report);
    }
}

fn check_repeats(header: &WarcHeader, offset: u64, report: &mut FileReport) {
    let mut seen: Vec<String> = Vec::new();
    for (name, _) in &header.fields {
        let lower = name.to_ascii_lowercase();
        if seen.contains(&lower) {
            if !REPEATABLE_FIELDS
                .iter()
                .any(|r| r.eq_ignore_ascii_case(name))
                && (lower.starts_with("warc-") || lower.starts_with("content-"))
            {
                report.error(offset, format!("field {name} appears more than once"));
            }
        } else {
            seen.push(lower);
        }
    }
}

fn check_placement(
    header: &WarcHeader,
    record_type: &str,
    offset: u64,
    rules: Rules,
    report: &mut FileReport,
) {
    for (field, mandatory, forbidden) in PLACEMENT {
        let present = header.get(field).is_some();
        if !present && mandatory.contains(&record_type) {
            report.error(
                offset,
                format!("{field} is mandatory in {record_type} records"),
            );
        }
        if present && forbidden.contains(&record_type) {
            let tolerated =
                rules == Rules::Lenient && LENIENT_PLACEMENTS.contains(&(field, record_type));
            let severity = if tolerated {
                Severity::Warning
            } else {
                Severity::Error
            };
            report.push(
                severity,
                offset,
                format!("{field} must not appear in {record_type} records"),
            );
        }
    }
}

fn check_revisit(header: &WarcHeader, offset: u64, report: &mut FileReport) {
    let Some(profile) = header.get("WARC-Profile") else {
        return;
    };
    let standard = |name: &str| {
        ["0.17", "0.18", "1.0", "1.1"].iter().any(|version| {
            profile == format!("http://netpreserve.org/warc/{version}/revisit/{name}")
        })
    };
    let identical = standard("identical-payload-digest");
    let not_modified = standard("server-not-modified");
    if !identical && !not_modified {
        report.warning(
            offset,
            format!("revisit profile {profile:?} is not one of the standard profiles"),
        );
    }
    if identical && header.get("WARC-Payload-Digest").is_none() {
        report.error(
            offset,
            "identical-payload-digest revisit without WARC-Payload-Digest",
        );
    }
    if header.version == "1.1" {
        for field in ["WARC-Refers-To-Target-URI", "WARC-Refers-To-Date"] {
            if header.get(field).is_none() {
                report.warning(offset, format!("WARC/1.1 revisit without {field}"));
            }
        }
    }
    if let Some(date) = header.get("WARC-Refers-To-Date")
        && !is_valid_warc_date(date, &header.version)
    {
        report.error(
            offset,
            format!("WARC-Refers-To-Date {date:?} is not a UTC date in the WARC grammar"),
        );
    }
}

/// Reads the block, verifying the declared digests. Returns how many were checked.
fn check_block<R: Read + Seek>(
    record: &mut Record<'_, R>,
    rules: Rules,
    report: &mut FileReport,
) -> Result<u64, ReadError> {
    let offset = record.offset;
    let header = &record.header;
    let record_type = header.record_type().unwrap_or("").to_string();
    let kind = RecordType::from_exact(&record_type);
    let parse = |name: &str| -> Result<Option<DigestValue>, (Severity, String)> {
        match header.get(name) {
            None => Ok(None),
            Some(text) => DigestValue::parse(text).map(Some).ok_or_else(|| {
                if super::digest::has_known_algorithm(text) {
                    (Severity::Error, format!("{name} {text:?} is malformed"))
                } else {
                    (
                        Severity::Warning,
                        format!("{name} {text:?} is not a digest ldwarc can verify"),
                    )
                }
            }),
        }
    };
    let block_declared = parse("WARC-Block-Digest");
    let payload_declared = if kind == RecordType::Revisit {
        Ok(None)
    } else {
        parse("WARC-Payload-Digest")
    };
    // As warcio does: the payload of an HTTP request/response/revisit starts after its HTTP
    // head; recognised by the Content-Type or, for files that omit it, an http(s) target.
    let http_target = header
        .target_uri()
        .is_some_and(|uri| uri.starts_with("http:") || uri.starts_with("https:"));
    let is_http_message = (http::is_http_block(header.content_type()) || http_target)
        && header.content_length().is_some_and(|n| n > 0)
        && matches!(
            kind,
            RecordType::Response | RecordType::Request | RecordType::Revisit
        );
    let mut messages = Vec::new();
    let block_declared = block_declared.unwrap_or_else(|m| {
        messages.push(m);
        None
    });
    let payload_declared = payload_declared.unwrap_or_else(|m| {
        messages.push(m);
        None
    });
    for (severity, message) in messages {
        match severity {
            Severity::Error => report.error(offset, message),
            Severity::Warning => report.warning(offset, message),
        }
    }
    let block_algorithm = block_declared.as_ref().map(|d| d.algorithm);
    let payload_algorithm = payload_declared.as_ref().map(|d| d.algorithm);
    let mut digester = BlockDigester::new(
        block_algorithm.unwrap_or(super::digest::Algorithm::Sha1),
        payload_algorithm,
        is_http_message,
    );
    let mut head = Vec::new();
    loop {
        let chunk = record.fill_buf().map_err(into_read_error)?;
        if chunk.is_empty() {
            break;
        }
        if is_http_message && head.len() < 64 * 1024 {
            head.extend_from_slice(&chunk[..chunk.len().min(64 * 1024 - head.len())]);
        }
        digester.update(chunk);
        let n = chunk.len();
        record.consume(n);
    }
    if is_http_message {
        check_http_head(
            &head,
            digester.length(),
            &record_type,
            offset,
            rules,
            report,
        );
    }
    let computed = digester.finish();
    let mut checked = 0;
    if let Some(declared) = block_declared {
        checked += 1;
        if declared != computed.block {
            report.error(
                offset,
                format!(
                    "WARC-Block-Digest mismatch: header says {}, block hashes to {}",
                    declared.to_canonical(),
                    computed.block.to_canonical()
                ),
            );
        }
    }
    if let Some(declared) = payload_declared {
        checked += 1;
        let actual = if is_http_message {
            computed.payload
        } else {
            let mut whole = BlockDigester::new(declared.algorithm, None, false);
            // Without an HTTP head the payload is the whole block: its digest equals the
            // block digest when the algorithms agree.
            if Some(declared.algorithm) == block_algorithm || block_algorithm.is_none() {
                Some(computed.block.clone())
            } else {
                whole.update(&[]);
                None
            }
        };
        match actual {
            Some(actual) if actual == declared => {}
            Some(actual) => report.error(
                offset,
                format!(
                    "WARC-Payload-Digest mismatch: header says {}, payload hashes to {}",
                    declared.to_canonical(),
                    actual.to_canonical()
                ),
            ),
            None => report.warning(
                offset,
                "WARC-Payload-Digest present but the payload could not be delimited",
            ),
        }
    }
    Ok(checked)
}

fn check_http_head(
    head: &[u8],
    block_len: u64,
    record_type: &str,
    offset: u64,
    rules: Rules,
    report: &mut FileReport,
) {
    let parsed = match http::parse_head(head) {
        None if rules == Rules::Lenient
            && RecordType::from_exact(record_type) == RecordType::Request =>
        {
            match request_without_version(head) {
                Some((line, parsed)) => {
                    report.warning(offset, format!("request line {line:?} has no HTTP version"));
                    Some(parsed)
                }
                None => unterminated_head(head, block_len, record_type, offset, report),
            }
        }
        Some((parsed, _)) => Some(parsed),
        None => unterminated_head(head, block_len, record_type, offset, report),
    };
    match parsed {
        None => report.error(
            offset,
            format!("{record_type} block is declared application/http but has no valid HTTP head"),
        ),
        Some(parsed) => {
            let chunked = parsed.headers.iter().any(|(n, v)| {
                n.eq_ignore_ascii_case("Transfer-Encoding")
                    && v.to_ascii_lowercase().contains("chunked")
            });
            if chunked && RecordType::from_exact(record_type) == RecordType::Response {
                report.warning(offset, "HTTP body stored with Transfer-Encoding: chunked (payload digest covers the chunked bytes)");
            }
        }
    }
}

/// A head that fills the whole block but is not ended by an empty line: read as if it
/// were, with a warning; `None` when it is no HTTP head even so.
fn unterminated_head(
    head: &[u8],
    block_len: u64,
    record_type: &str,
    offset: u64,
    report: &mut FileReport,
) -> Option<http::HttpHead> {
    if head.len() as u64 != block_len || !head.ends_with(b"\n") {
        return None;
    }
    let mut terminated = head.to_vec();
    terminated.extend_from_slice(b"\r\n");
    let parsed = http::parse_head(&terminated).map(|(parsed, _)| parsed);
    if parsed.is_some() {
        report.warning(
            offset,
            format!("{record_type} HTTP head is not ended by an empty line inside the block"),
        );
    }
    parsed
}

/// A request head whose request line has a method and a target but no HTTP version
/// (`GET /path`, as ArchiveWeb.page writes it), read as HTTP/1.1: the line and the head.
fn request_without_version(head: &[u8]) -> Option<(String, http::HttpHead)> {
    let end = memchr::memchr(b'\n', head)?;
    let line = String::from_utf8_lossy(&head[..end]);
    let line = line.trim_end_matches('\r');
    let (method, target) = line.split_once(' ')?;
    let is_method = !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase());
    if !is_method || target.is_empty() || target.contains(' ') {
        return None;
    }
    let mut mended = format!("{line} HTTP/1.1\r\n").into_bytes();
    mended.extend_from_slice(&head[end + 1..]);
    let (parsed, _) = http::parse_head(&mended)?;
    Some((line.to_string(), parsed))
}

/// Checks one file.
pub fn check_path(path: &std::path::Path) -> std::io::Result<FileReport> {
    check_path_with(path, Rules::Standard)
}

/// Checks one file by `rules`.
pub fn check_path_with(path: &std::path::Path, rules: Rules) -> std::io::Result<FileReport> {
    let mut reader = WarcReader::open(path)?;
    Ok(check_reader_with(&mut reader, rules))
}

/// Checks files on all cores; `on_report` is called once per file, in the order of `paths`.
pub fn check_paths(
    paths: &[std::path::PathBuf],
    rules: Rules,
    mut on_report: impl FnMut(usize, std::io::Result<FileReport>),
) {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len().max(1));
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(index) else { break };
                    if sender.send((index, check_path_with(path, rules))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        let mut emit = 0;
        for (index, report) in receiver {
            pending.insert(index, report);
            while let Some(report) = pending.remove(&emit) {
                on_report(emit, report);
                emit += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_records_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.warc.gz");
        std::fs::write(&empty, b"").unwrap();
        let report = check_path(&empty).unwrap();
        assert_eq!(report.records, 0);
        assert_eq!(report.count(Severity::Error), 0);
        assert_eq!(report.count(Severity::Warning), 1);
        assert!(report.problems[0].message.contains("no records"));
    }
}
