//! Runs the `read_warc` example program on a file written by this crate.

#[allow(dead_code)]
#[path = "../examples/read_warc.rs"]
mod read_warc;

use ldwarc_warc::{Block, PayloadKind, WarcWriter, record_header, warcinfo_record};

#[test]
fn example_lists_every_record_with_status_and_payload_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.warc.gz");
    let date = chrono::DateTime::parse_from_rfc3339("2024-03-15T10:00:00Z")
        .expect("date")
        .to_utc();
    let mut writer = WarcWriter::new(std::fs::File::create(&path).expect("create"), 0);
    let (info, block) =
        warcinfo_record("t.warc.gz", date, &[("software", "test".into())]).expect("warcinfo");
    let first = writer.write_record(info, block).expect("write");
    let mut header = record_header("response", date, Some("http://example.org/a"));
    header.push("Content-Type", "application/http; msgtype=response");
    let http = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\ngone".to_vec();
    let second = writer
        .write_record(
            header,
            Block::from_bytes(http, PayloadKind::Http).expect("block"),
        )
        .expect("write");
    let mut header = record_header("resource", date, Some("urn:x:1"));
    header.push("Content-Type", "text/plain");
    let third = writer
        .write_record(
            header,
            Block::from_bytes(b"12345".to_vec(), PayloadKind::WholeBlock).expect("block"),
        )
        .expect("write");
    writer.flush().expect("flush");
    drop(writer);

    let mut out = Vec::new();
    read_warc::run(&path, &mut out).expect("example runs");
    let expected = format!(
        "{}\t{}\twarcinfo\t-\t16\t-\n{}\t{}\tresponse\t404\t4\thttp://example.org/a\n{}\t{}\tresource\t-\t5\turn:x:1\n",
        first.offset, first.length, second.offset, second.length, third.offset, third.length
    );
    assert_eq!(String::from_utf8(out).expect("utf-8"), expected);
}
