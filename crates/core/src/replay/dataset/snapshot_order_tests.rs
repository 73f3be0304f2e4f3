//! A snapshot written through the pipeline is byte for byte what rendering its documents one
//! after another in scan order gives, reports included.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ldwarc_warc::{Block, PayloadKind, WarcHeader, record_header};

use super::*;
use crate::archive::{Archive, ArchiveWriter, ArchiveWriterOptions};
use crate::index::{IndexOptions, update_index};
use crate::replay::ReplayArchive;

/// Documents: several pipeline batches per core on any machine.
const DOCUMENTS: usize = 700;

fn response(time: DateTime<Utc>, url: &str, status: &str, body: &[u8]) -> (WarcHeader, Block) {
    let mut header = record_header("response", time, Some(url));
    header.push("Content-Type", "application/http; msgtype=response");
    let mut bytes = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    (header, Block::from_bytes(bytes, PayloadKind::Http).unwrap())
}

/// Turtle whose size varies a lot between documents (so workers finish out of order), with
/// blank nodes, a parse error every 97th document and a 404 every 89th.
fn write_archive(root: &std::path::Path) {
    let (mut writer, _) = ArchiveWriter::open(root, ArchiveWriterOptions::default()).unwrap();
    let time = Utc.with_ymd_and_hms(2024, 3, 1, 6, 0, 0).unwrap();
    for n in 0..DOCUMENTS {
        let url = format!("http://data.example.org/d/{n:04}");
        let mut body = String::from("@prefix ex: <http://example.org/> .\n");
        for k in 0..(n * 37 % 60) + 1 {
            body.push_str(&format!(
                "<#t{k}> ex:value {k} ; ex:node [ ex:label \"n{n} k{k}\"@en ] .\n"
            ));
        }
        if n % 97 == 5 {
            body.push_str("<#broken> ex:p \"unterminated .\n");
        }
        let status = if n % 89 == 3 {
            "404 Not Found"
        } else {
            "200 OK"
        };
        let record = response(
            time + TimeDelta::seconds(n as i64),
            &url,
            status,
            body.as_bytes(),
        );
        writer
            .write_capture("data.example.org", vec![record])
            .unwrap();
    }
    writer.close().unwrap();
    update_index(&Archive::new(root), &IndexOptions::default(), &|_, _| {}).unwrap();
}

/// The snapshot as the documents render one by one, in scan order, with its report lines.
fn sequential(archive: &ReplayArchive, date: &ReplayDate) -> (Vec<u8>, Vec<String>) {
    let mut out = Vec::new();
    let mut reports = Vec::new();
    scan_urls(archive, &Scope::All, |_, captures| {
        let Some(capture) = document_at(captures, date) else {
            return;
        };
        match graph_of(archive, &capture) {
            Ok((graph, error)) => {
                let text = render_document(
                    &graph,
                    &capture.url,
                    SnapshotFormat::NQuads,
                    &blank_prefix(&capture),
                );
                out.extend_from_slice(text.as_bytes());
                if let Some(error) = error {
                    reports.push(format!("{}: partial graph: {error}", capture.url));
                }
            }
            Err(NoGraph::NotDocument) => {}
            Err(NoGraph::Failed(reason)) => reports.push(format!("left out: {reason}")),
        }
    })
    .unwrap();
    (out, reports)
}

#[test]
fn the_pipelined_snapshot_equals_the_sequential_rendering() {
    let dir = tempfile::tempdir().unwrap();
    write_archive(dir.path());
    let archive = ReplayArchive::open(dir.path()).unwrap();
    let date = ReplayDate::from_instant(Utc.with_ymd_and_hms(2024, 3, 2, 0, 0, 0).unwrap());
    let (expected, expected_reports) = sequential(&archive, &date);
    let mut out = Vec::new();
    let mut reports = Vec::new();
    let summary = snapshot(
        &archive,
        &Scope::All,
        &date,
        SnapshotFormat::NQuads,
        &mut out,
        &mut |line| reports.push(line.to_string()),
    )
    .unwrap();
    assert!(expected.len() > 100_000, "a snapshot of many batches");
    assert!(
        out == expected,
        "the pipelined snapshot differs from the sequential one"
    );
    assert_eq!(reports, expected_reports);
    let not_found = (0..DOCUMENTS).filter(|n| n % 89 == 3).count() as u64;
    let partial = (0..DOCUMENTS)
        .filter(|n| n % 97 == 5 && n % 89 != 3)
        .count() as u64;
    assert_eq!(summary.documents, DOCUMENTS as u64 - not_found);
    assert_eq!(summary.not_documents, not_found);
    assert_eq!(summary.partial, partial);
    assert!(partial > 0 && not_found > 0);
    assert_eq!(summary.failed, 0);
}
