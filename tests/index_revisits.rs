//! Revisits read before their original (the pywb sample's dupes.warc.gz sorts before the
//! files holding its originals) are stored with their original once the run has read
//! everything, whatever the order of the files.

use crate::common;

use ldwarc_archive::archive::Archive;
use ldwarc_archive::index::{CaptureIndex, IndexOptions, update_index};
use ldwarc_warc::RecordType;

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
    for revisit in captures
        .iter()
        .filter(|c| c.record_type == RecordType::Revisit)
    {
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
        assert_ne!(target.record_type, RecordType::Revisit);
        assert_eq!(target.digest, revisit.digest, "same payload");
        assert_eq!(target.urlkey, revisit.urlkey);
    }
    assert!(
        revisits >= 9,
        "dupes.warc.gz alone holds 9 revisits, saw {revisits}"
    );
    let dupes_first = captures.iter().any(|c| {
        c.record_type == RecordType::Revisit
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

/// A file rewritten after it was indexed (here: another record put before the original, so
/// every offset moved and the file grew) is not taken for a file that was appended to: the
/// index is rebuilt, and the revisit in another file finds its original at its new offset.
#[test]
fn a_rewritten_file_rebuilds_the_index_and_revisits_elsewhere_follow() {
    use crate::common::{ldwarc, run};
    use crate::warc_fixture::{Exchange, write_warc_file};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let url = "http://people.example/carol";
    let body = b"<http://people.example/carol#me> <http://xmlns.com/foaf/0.1/name> \"Carol\" .\n";
    let digest = crate::warc_fixture::sha1_payload_digest(body);
    let original = Exchange {
        payload_digest: Some(digest.clone()),
        ..Exchange::ok(url, "2026-01-01T00:00:00Z", "text/turtle", body)
    };
    let revisit = Exchange {
        body: Vec::new(),
        revisit_of: Some((url.to_string(), "2026-01-01T00:00:00Z".to_string())),
        payload_digest: Some(digest),
        ..Exchange::ok(url, "2026-01-02T00:00:00Z", "text/turtle", b"")
    };
    write_warc_file(root, "a.warc", std::slice::from_ref(&original));
    write_warc_file(root, "b.warc", &[revisit]);
    let index = |extra: &[&str]| run(ldwarc().arg("index").args(extra).arg("--root").arg(root));
    assert_eq!(index(&[]).status.code(), Some(0));
    let replay = || {
        run(ldwarc()
            .args(["replay", &format!("{url}@20260102"), "--root"])
            .arg(root))
    };
    assert_eq!(replay().status.code(), Some(0));

    let other = Exchange::ok(
        "http://people.example/dave",
        "2025-12-31T00:00:00Z",
        "text/turtle",
        b"<http://people.example/dave#me> <http://xmlns.com/foaf/0.1/name> \"Dave\" .\n",
    );
    write_warc_file(root, "a.warc", &[other, original]);
    let again = index(&[]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warc/a.warc changed") && stderr.contains("rebuilding"),
        "{stderr}"
    );
    let verify = index(&["--verify"]);
    assert_eq!(
        verify.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let replayed = replay();
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    assert!(String::from_utf8_lossy(&replayed.stdout).contains("\"Carol\""));
    let dave = run(ldwarc()
        .args(["replay", "http://people.example/dave", "--root"])
        .arg(root));
    assert_eq!(dave.status.code(), Some(0));

    // A copy of the same size put in its place (restored from a backup, say), with the
    // revisit's date changed: noticed too.
    let b = root.join("warc/b.warc");
    let before = std::fs::read(&b).unwrap();
    let text = String::from_utf8(before.clone()).unwrap();
    let changed = text.replace("WARC-Date: 2026-01-02", "WARC-Date: 2026-01-03");
    assert_eq!(changed.len(), before.len());
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&b, changed).unwrap();
    let third = index(&[]);
    let stderr = String::from_utf8_lossy(&third.stderr);
    assert!(stderr.contains("warc/b.warc changed"), "{stderr}");
    let history = run(ldwarc().args(["query", url, "--root"]).arg(root));
    let stamps = String::from_utf8_lossy(&history.stdout).into_owned();
    assert!(
        stamps.contains(" 20260103000000 ") && !stamps.contains(" 20260102000000 "),
        "{stamps}"
    );
    assert_eq!(index(&["--verify"]).status.code(), Some(0));
}

/// One WARC record, uncompressed, with `fields` after the version line.
fn plain_record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut head = String::from("WARC/1.1\r\n");
    for (name, value) in fields {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(block);
    bytes.extend_from_slice(b"\r\n\r\n");
    bytes
}

/// A `metadata` record of the same URL and second as a response (crawlers write them beside
/// each fetch) is not the payload a later 304 revisit refers to; a `resource` record is
/// replayed as the document it holds.
#[test]
fn revisits_resolve_to_payload_records_and_resources_replay() {
    use crate::common::{ldwarc, run, stdout_ok};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("warc")).unwrap();
    let url = "http://data.example/doc.ttl";
    let date = "2026-01-01T00:00:00Z";
    let body = "<http://data.example/doc> <http://purl.org/dc/terms/title> \"Doc\" .\n";
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let id = |n: u32| format!("<urn:uuid:00000000-0000-4000-8000-{n:012}>");
    let mut file = plain_record(
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", &id(1)),
            ("WARC-Date", date),
            ("WARC-Target-URI", url),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        response.as_bytes(),
    );
    file.extend(plain_record(
        &[
            ("WARC-Type", "metadata"),
            ("WARC-Record-ID", &id(2)),
            ("WARC-Date", date),
            ("WARC-Target-URI", url),
            ("WARC-Concurrent-To", &id(1)),
            ("Content-Type", "application/json"),
        ],
        b"{\"fetchTimeMs\": 12}",
    ));
    file.extend(plain_record(
        &[
            ("WARC-Type", "revisit"),
            ("WARC-Record-ID", &id(3)),
            ("WARC-Date", "2026-01-02T00:00:00Z"),
            ("WARC-Target-URI", url),
            (
                "WARC-Profile",
                "http://netpreserve.org/warc/1.1/revisit/server-not-modified",
            ),
            ("WARC-Refers-To-Target-URI", url),
            ("WARC-Refers-To-Date", date),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        b"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n",
    ));
    let void = "<http://data.example/void#ds> <http://rdfs.org/ns/void#triples> \"100\" .\n";
    file.extend(plain_record(
        &[
            ("WARC-Type", "resource"),
            ("WARC-Record-ID", &id(4)),
            ("WARC-Date", date),
            ("WARC-Target-URI", "http://data.example/void.nt"),
            ("Content-Type", "application/n-triples"),
        ],
        void.as_bytes(),
    ));
    std::fs::write(root.join("warc/mixed.warc"), file).unwrap();
    stdout_ok(&run(ldwarc().arg("index").arg("--root").arg(root)), "index");

    let replay = |target: &str| {
        stdout_ok(
            &run(ldwarc().args(["replay", target, "--root"]).arg(root)),
            &format!("replay {target}"),
        )
    };
    assert_eq!(
        replay(&format!("{url}@20260102")),
        "<http://data.example/doc> <http://purl.org/dc/terms/title> \"Doc\" .\n"
    );
    assert_eq!(replay("http://data.example/void.nt"), void);
    let history = stdout_ok(
        &run(ldwarc().args(["history", url, "--root"]).arg(root)),
        "history",
    );
    let changes: Vec<&str> = history
        .lines()
        .skip(1) // the header row
        .map(|line| line.split_whitespace().nth(6).unwrap_or(""))
        .collect();
    assert_eq!(changes, ["first", "unchanged"], "{history}");
}
