//! Revisits read before their original (the pywb sample's dupes.warc.gz sorts before the
//! files holding its originals) are stored with their original once the run has read
//! everything, whatever the order of the files.

use crate::common;

use ldwarc_core::archive::Archive;
use ldwarc_core::index::{CaptureIndex, IndexOptions, update_index};

#[test]
fn every_revisit_is_stored_with_its_original() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let target = root.join("warc/sample");
    std::fs::create_dir_all(&target).expect("warc dir");
    for name in ["dupes.warc.gz", "iana.warc.gz", "example.warc.gz"] {
        std::fs::copy(common::pywb_sample_warcs().join(name), target.join(name))
            .expect("copy sample");
    }
    let archive = Archive::new(&root);
    let run = update_index(&archive, &IndexOptions::default(), &|_, _| {}).expect("index");
    assert_eq!(run.unresolved_revisits, 0, "{run:?}");

    let index = CaptureIndex::open(&archive.index_dir()).expect("open index");
    let mut revisits = 0;
    let mut captures = Vec::new();
    index
        .scan_range("", None, |c| captures.push(c))
        .expect("scan");
    for revisit in captures.iter().filter(|c| c.record_type == "revisit") {
        revisits += 1;
        let original = revisit.original.as_ref().unwrap_or_else(|| {
            panic!(
                "revisit at {}:{} has no original",
                revisit.filename, revisit.offset
            )
        });
        let target = captures
            .iter()
            .find(|c| c.filename == original.filename && c.offset == original.offset)
            .expect("the original is an indexed capture");
        assert_ne!(target.record_type, "revisit");
        assert_eq!(target.digest, revisit.digest, "same payload");
        assert_eq!(target.urlkey, revisit.urlkey);
    }
    assert!(
        revisits >= 9,
        "dupes.warc.gz alone holds 9 revisits, saw {revisits}"
    );
    let dupes_first = captures.iter().any(|c| {
        c.record_type == "revisit"
            && c.filename == "sample/dupes.warc.gz"
            && c.original
                .as_ref()
                .is_some_and(|o| o.filename != "sample/dupes.warc.gz")
    });
    assert!(
        dupes_first,
        "a revisit in dupes.warc.gz resolves into a file read after it"
    );

    // A second run has nothing left to do.
    let again = update_index(&archive, &IndexOptions::default(), &|_, _| {}).expect("index again");
    assert_eq!((again.captures_added, again.unresolved_revisits), (0, 0));
}
