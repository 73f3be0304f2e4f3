//! The man pages and shell completions in `man/` are generated from the CLI definition;
//! this fails when they are stale. Regenerate with `cargo run -- gen-docs --out man`.

use crate::common;

use std::fs;
use std::path::Path;

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walkdir(dir)
        .into_iter()
        .map(|p| {
            p.strip_prefix(dir)
                .expect("below dir")
                .display()
                .to_string()
        })
        .collect();
    names.sort();
    names
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn man_pages_and_completions_are_current() {
    let generated = tempfile::tempdir().expect("temp dir");
    let output = common::run(
        common::ldwarc()
            .args(["gen-docs", "--out"])
            .arg(generated.path()),
    );
    common::stdout_ok(&output, "ldwarc gen-docs");
    let committed = common::manifest_dir().join("man");
    let generated_files = files(generated.path());
    assert!(
        generated_files.iter().any(|f| f == "ldwarc-check.1"),
        "{generated_files:?}"
    );
    assert!(
        generated_files
            .iter()
            .any(|f| f == "completions/ldwarc.bash"),
        "{generated_files:?}"
    );
    assert_eq!(
        files(&committed),
        generated_files,
        "man/ has other files than gen-docs writes: run `cargo run -- gen-docs --out man`"
    );
    for name in generated_files {
        let fresh = fs::read(generated.path().join(&name)).expect("generated file");
        let current = fs::read(committed.join(&name)).expect("committed file");
        assert!(
            fresh == current,
            "man/{name} is stale: run `cargo run -- gen-docs --out man`"
        );
    }
}
