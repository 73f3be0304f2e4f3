//! Doc-store compression and cache: an index made with either compressor reads the same,
//! and the choice is the one recorded in the index's meta file.

use super::{CaptureIndex, Checkpoint, DocOrder, DocStoreCompression};
use crate::index::Capture;

fn capture(n: usize) -> Capture {
    Capture {
        urlkey: format!("org,example)/doc{:03}", n % 50),
        timestamp: format!("20261125{:06}", n),
        time_micros: n as i64,
        url: format!("http://example.org/doc{:03}", n % 50),
        mime: Some("text/turtle".into()),
        status: Some(200),
        digest: Some(format!("sha1:D{n}")),
        length: 100 + n as u64,
        offset: 1000 * n as u64,
        filename: "2026/11/25/a.warc.gz".into(),
        record_type: ldwarc_warc::RecordType::Response,
        redirect: None,
        record_id: None,
        refers_to_url: None,
        refers_to_timestamp: None,
        original: None,
    }
}

/// An index of 2,000 captures (about 120 doc-store blocks) made with `compression`.
fn build(dir: &std::path::Path, compression: DocStoreCompression) {
    let index = CaptureIndex::open_or_create_with(dir, compression, DocOrder::ByKey).unwrap();
    let mut batch = index.batch().unwrap();
    for n in 0..2000 {
        batch.add(&capture(n)).unwrap();
    }
    batch.commit(&Checkpoint::default()).unwrap();
    batch.finish().unwrap();
}

fn recorded_compressor(dir: &std::path::Path) -> String {
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    meta["index_settings"]["docstore_compression"]
        .as_str()
        .unwrap()
        .to_string()
}

fn sorted_offsets(index: &CaptureIndex, key: &str) -> Vec<u64> {
    let mut offsets: Vec<u64> = index
        .lookup(key)
        .unwrap()
        .iter()
        .map(|c| c.offset)
        .collect();
    offsets.sort_unstable();
    offsets
}

#[test]
fn a_new_index_records_the_default_compressor() {
    let dir = tempfile::tempdir().unwrap();
    drop(CaptureIndex::open(dir.path()).unwrap());
    assert_eq!(
        recorded_compressor(dir.path()),
        DocStoreCompression::default().name()
    );
}

#[test]
fn indexes_of_either_compressor_open_and_answer_the_same() {
    let mut answers = Vec::new();
    for compression in [DocStoreCompression::Lz4, DocStoreCompression::Zstd] {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), compression);
        assert_eq!(recorded_compressor(dir.path()), compression.name());
        // Opened the ordinary way (as every command opens an existing index), it keeps its
        // compressor and reads back every capture.
        let index = CaptureIndex::open(dir.path()).unwrap();
        assert_eq!(index.len(), 2000);
        let read_only = CaptureIndex::open_read_only(dir.path()).unwrap();
        let key = "org,example)/doc007";
        let offsets = sorted_offsets(&read_only, key);
        let expected: Vec<u64> = (0..2000)
            .filter(|n| n % 50 == 7)
            .map(|n| 1000 * n as u64)
            .collect();
        assert_eq!(offsets, expected);
        assert_eq!(recorded_compressor(dir.path()), compression.name());
        answers.push(offsets);
    }
    assert_eq!(answers[0], answers[1]);
}

#[test]
fn lookups_answer_the_same_through_a_small_and_a_large_cache() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), DocStoreCompression::Zstd);
    let mut index = CaptureIndex::open_read_only(dir.path()).unwrap();
    let keys: Vec<String> = (0..50).map(|n| format!("org,example)/doc{n:03}")).collect();
    let large: Vec<Vec<u64>> = keys.iter().map(|k| sorted_offsets(&index, k)).collect();
    index.set_doc_store_cache(0).unwrap();
    let small: Vec<Vec<u64>> = keys.iter().map(|k| sorted_offsets(&index, k)).collect();
    assert_eq!(large, small);
    assert!(large.iter().all(|offsets| offsets.len() == 40));
}
