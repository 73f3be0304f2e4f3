//! `ldwarc ls` over several files lists them on all cores: its output must be exactly the
//! listings of each file, in the order given, as if listed one by one (including damaged
//! files, whose problems go to standard error and set exit status 1).

use std::path::PathBuf;

use crate::common;

/// The pywb sample WARCs (some damaged) and the project's sample archive files.
fn inputs() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(common::pywb_sample_warcs())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().contains(".warc"))
        .collect();
    files.sort();
    files.push(common::fixture(
        "sample-archive/warc/2026/11/21/10/example.org/ldwarc-20261121100000-00000-sample.warc.gz",
    ));
    files.push(common::fixture(
        "sample-archive/warc/2026/11/21/10/example.net/ldwarc-20261121100004-00001-sample.warc.gz",
    ));
    assert!(files.len() >= 8, "{files:?}");
    files
}

fn ls(args: &[&str], files: &[PathBuf]) -> (i32, String, String) {
    let output = common::run(common::ldwarc().arg("ls").args(args).args(files));
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn several_files_list_as_each_file_one_by_one_in_order() {
    let files = inputs();
    for format in ["text", "json"] {
        let (status, together, _) = ls(&["--format", format], &files);
        let mut expected = String::new();
        let mut damaged = false;
        for file in &files {
            let (file_status, alone, _) = ls(&["--format", format], std::slice::from_ref(file));
            damaged |= file_status == 1;
            let name = file.display().to_string();
            for line in alone.lines() {
                if format == "text" {
                    // Several files add the file as first column.
                    expected.push_str(&format!("{name}\t{line}\n"));
                } else {
                    let mut object: serde_json::Map<String, serde_json::Value> =
                        serde_json::from_str(line).unwrap();
                    object.insert("file".into(), name.clone().into());
                    expected.push_str(&format!("{}\n", serde_json::Value::Object(object)));
                }
            }
        }
        assert!(damaged, "the pywb sample holds damaged files");
        assert_eq!(status, 1, "{format}: damaged files make exit status 1");
        assert!(together.lines().count() > 100, "{format}: {together}");
        assert_eq!(together, expected, "{format}");
    }
}

#[test]
fn a_missing_file_among_several_is_exit_2_naming_it_before_anything_is_listed() {
    let mut files = inputs();
    files.insert(2, PathBuf::from("/nonexistent/x.warc.gz"));
    let (status, out, err) = ls(&["--format", "json"], &files);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("/nonexistent/x.warc.gz"), "{err}");
    assert_eq!(out, "");
}
