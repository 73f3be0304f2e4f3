//! pywb 2.10.0, configured over ldwarc's CDXJ export and the WARC tree (`archive_paths =
//! <root>/warc/`, file names in the index relative to it), replays with `id_` (the archived
//! payload, unrewritten):
//! (a) a normal capture: the body is the archived payload;
//! (b) an identical-payload-digest revisit (with `WARC-Refers-To-Target-URI` and `-Date`)
//!     whose original lies in another hour's partition directory: the body is the original's
//!     payload, served as the revisit (its `Memento-Datetime`, not the original's);
//! (c) the same for a revisit of another URL's capture (a mirror), found by pywb through
//!     `WARC-Refers-To-Target-URI` and the digest.

use crate::common;

use common::generated::GenCapture;
use common::{Pywb, PywbCollection};
use ldwarc_warc::profiles;

/// The partition directory of a file: `warc/YYYY/MM/DD/HH/<pld>`.
fn partition(file: &str) -> &str {
    &file[..file.rfind('/').expect("file in a directory")]
}

/// The hour of a partition: `warc/YYYY/MM/DD/HH`.
fn hour(file: &str) -> &str {
    let dir = partition(file);
    &dir[..dir.rfind('/').expect("hour directory")]
}

/// A conservative stand-in for "the same SURT": scheme, `www.`, case and a trailing slash
/// ignored.
fn loose_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    rest.trim_end_matches('/').to_lowercase()
}

fn timestamp(capture: &GenCapture) -> String {
    capture.time.format("%Y%m%d%H%M%S").to_string()
}

/// Replays `capture` with `id_` and checks the body and the memento's datetime.
fn assert_replays(pywb: &Pywb, all: &[GenCapture], capture: &GenCapture, what: &str) {
    // pywb picks the capture (of the SURT) closest to the requested time: the one asked for
    // must be the only one in its second.
    let same_second = all
        .iter()
        .filter(|c| {
            loose_key(&c.url) == loose_key(&capture.url) && timestamp(c) == timestamp(capture)
        })
        .count();
    assert_eq!(same_second, 1, "{what}: ambiguous timestamp");
    let path = format!("/replay/{}id_/{}", timestamp(capture), capture.url);
    let response = pywb.get(&path);
    assert_eq!(
        response.status,
        200,
        "{what}: GET {path} answered {}:\n{}\n{}",
        response.status,
        response.text(),
        pywb.log()
    );
    let expected_date = capture.time.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    assert_eq!(
        response.header("Memento-Datetime"),
        Some(expected_date.as_str()),
        "{what}: pywb served another capture than {} ({})",
        capture.url,
        timestamp(capture)
    );
    assert!(
        response.body == capture.payload,
        "{what}: body of {path} ({} bytes) is not the archived payload ({} bytes):\n{}",
        response.body.len(),
        capture.payload.len(),
        response.text()
    );
}

#[test]
fn pywb_replays_captures_and_cross_partition_revisits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let (archive, export) = common::generate_indexed(&root, 0x7E_7A1D);
    let index_file = dir.path().join("replay.cdxj");
    std::fs::write(&index_file, export).expect("write the CDXJ export");
    let warc_dir = root.join("warc");
    let pywb = Pywb::start(&[PywbCollection {
        name: "replay",
        index: &index_file,
        archive_dir: &warc_dir,
    }]);

    let captures = &archive.captures;
    let unique_second = |c: &&GenCapture| {
        captures
            .iter()
            .filter(|o| loose_key(&o.url) == loose_key(&c.url) && timestamp(o) == timestamp(c))
            .count()
            == 1
    };
    // pywb redirects to the canonical form of URLs it would rewrite; plain ASCII URLs with
    // a path are served as asked.
    let plain = |c: &&GenCapture| c.url.is_ascii() && !c.url.contains('?');

    // (a) A normal capture.
    let normal = captures
        .iter()
        .filter(|c| c.record_type == "response" && c.status == Some(200))
        .filter(|c| c.url.ends_with("/resource/Berlin"))
        .filter(plain)
        .find(unique_second)
        .expect("a 200 response of /resource/Berlin");
    assert_replays(&pywb, captures, normal, "normal capture");

    // (b) A same-URL revisit whose original is in another hour's partition.
    let revisit_of = |cross_url: bool| {
        captures
            .iter()
            .filter(|c| {
                c.record_type == "revisit"
                    && c.profile == Some(profiles::IDENTICAL_PAYLOAD_DIGEST)
                    && c.status == Some(200)
            })
            .filter(|c| {
                let original = c.original_file.as_deref().expect("original file");
                hour(original) != hour(&c.file)
            })
            .filter(|c| {
                let (target, _) = c.refers_to.as_ref().expect("refers-to");
                (target != &c.url) == cross_url
            })
            .filter(plain)
            .find(unique_second)
    };
    let revisit = revisit_of(false).expect("a same-URL revisit across hours");
    assert!(
        revisit
            .refers_to
            .as_ref()
            .is_some_and(|(_, t)| *t < revisit.time)
    );
    assert_replays(&pywb, captures, revisit, "revisit across partitions");

    // (c) A revisit of another URL's capture, in another hour.
    let mirror = revisit_of(true).expect("a cross-URL revisit across hours");
    assert_replays(
        &pywb,
        captures,
        mirror,
        "revisit of another URL across partitions",
    );
}
