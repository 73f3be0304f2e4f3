//! Indexes of generated captures for the index module's tests.

use super::store::{Checkpoint, DocOrder, DocStoreCompression};
use super::{Capture, CaptureIndex, RecordLocation};

/// Capture `n`: several captures per key, keys not in indexing order, some awkward values.
pub(crate) fn capture(n: usize) -> Capture {
    let key = (n * 7919) % 97;
    Capture {
        urlkey: format!("org,example)/doc{key:03}%20x"),
        timestamp: format!("2026112{}1{:05}", n % 10, n),
        time_micros: n as i64,
        url: format!("http://example.org/doc{key:03}%20x?q=\u{e9}\"{n}"),
        mime: (!n.is_multiple_of(5)).then(|| "text/turtle".to_string()),
        status: (!n.is_multiple_of(7)).then_some(200 + (n % 3) as u16),
        digest: (!n.is_multiple_of(11)).then(|| format!("sha1:D{n}")),
        length: 100 + n as u64,
        offset: 1000 * n as u64,
        filename: format!("2026/11/2{}/a b\tc.warc.gz", n % 3),
        record_type: if n.is_multiple_of(4) {
            ldwarc_warc::RecordType::Revisit
        } else {
            ldwarc_warc::RecordType::Response
        },
        redirect: n
            .is_multiple_of(13)
            .then(|| format!("http://example.org/r {n}")),
        record_id: Some(format!("<urn:uuid:{n}>")),
        refers_to_url: None,
        refers_to_timestamp: None,
        original: n.is_multiple_of(4).then(|| RecordLocation {
            filename: "o.warc.gz".into(),
            offset: 1,
            length: 2,
        }),
    }
}

/// An index laid out as `compression` and `order` say, of `4 × per_part` captures
/// committed in four parts (several segments), the captures of capture 0's file deleted
/// before the last part.
pub(crate) fn index_in_four_parts(
    dir: &std::path::Path,
    compression: DocStoreCompression,
    order: DocOrder,
    per_part: usize,
) -> CaptureIndex {
    let index = CaptureIndex::open_or_create_with(dir, compression, order).unwrap();
    let mut batch = index.batch().unwrap();
    for part in 0..4 {
        if part == 3 {
            batch.remove_file(&capture(0).filename);
        }
        for n in part * per_part..(part + 1) * per_part {
            batch.add(&capture(n)).unwrap();
        }
        batch.commit(&Checkpoint::default()).unwrap();
    }
    batch.finish().unwrap();
    index.reload().unwrap();
    index
}
