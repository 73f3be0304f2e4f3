//! `ldwarc recover` must not cut the open files of a writer that is still running.

use crate::common;

use ldwarc_archive::archive::{ArchiveWriter, ArchiveWriterOptions};

#[test]
fn recover_refuses_while_a_writer_holds_the_archive() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let (writer, _) =
        ArchiveWriter::open(&root, ArchiveWriterOptions::default()).expect("open the archive");

    let output = common::run(common::ldwarc().arg("recover").arg("--root").arg(&root));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "recover must refuse: {stderr}"
    );
    assert!(
        stderr.contains("another ldwarc process is writing this archive")
            && stderr.lines().count() == 1,
        "one clear line naming the archive: {stderr}"
    );

    drop(writer);
    let output = common::run(common::ldwarc().arg("recover").arg("--root").arg(&root));
    let stdout = common::stdout_ok(&output, "ldwarc recover after the writer closed");
    assert!(stdout.contains("recovered 0 open files"), "{stdout}");
}
