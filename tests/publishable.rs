//! Every crate of the workspace can go to crates.io: the binary depends on no crate marked
//! `publish = false`, each library crate's manifest has the fields crates.io shows, and no
//! library source reads a file outside its crate directory (a packaged crate has only its own
//! directory). `cargo package --list` per crate says the same but builds too long for a test.

use std::path::Path;

use crate::common;

/// The workspace's library crates (`crates/*`), as (directory name, manifest text).
fn library_manifests() -> Vec<(String, String)> {
    let crates = common::manifest_dir().join("crates");
    let mut manifests: Vec<(String, String)> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join("Cargo.toml").exists())
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                std::fs::read_to_string(dir.join("Cargo.toml")).unwrap(),
            )
        })
        .collect();
    manifests.sort();
    manifests
}

/// The lines of the `[section]` table of a manifest.
fn section<'a>(manifest: &'a str, name: &str) -> Vec<&'a str> {
    let header = format!("[{name}]");
    manifest
        .lines()
        .skip_while(|line| line.trim() != header)
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .collect()
}

#[test]
fn every_library_crate_has_the_fields_crates_io_shows() {
    let manifests = library_manifests();
    assert!(manifests.len() >= 10, "{manifests:?}");
    for (name, manifest) in &manifests {
        let package = section(manifest, "package");
        for field in [
            "description = \"",
            "license.workspace = true",
            "readme.workspace = true",
        ] {
            assert!(
                package.iter().any(|line| line.starts_with(field)),
                "crates/{name}/Cargo.toml has no `{field}`"
            );
        }
        assert!(
            !package.iter().any(|line| line.starts_with("publish")),
            "crates/{name} is not publishable"
        );
    }
    let root = std::fs::read_to_string(common::manifest_dir().join("Cargo.toml")).unwrap();
    let workspace = section(&root, "workspace.package");
    assert!(
        workspace.contains(&"readme = \"README.md\""),
        "{workspace:?}"
    );
    assert!(
        workspace.contains(&"license = \"Apache-2.0\""),
        "{workspace:?}"
    );
}

#[test]
fn the_binary_depends_only_on_publishable_crates() {
    let root = std::fs::read_to_string(common::manifest_dir().join("Cargo.toml")).unwrap();
    let dependencies = section(&root, "dependencies");
    for (name, manifest) in library_manifests() {
        let package = format!("ldwarc-{name}");
        let depends = dependencies
            .iter()
            .any(|line| line.split(['.', ' ']).next() == Some(package.as_str()));
        let unpublished = section(&manifest, "package")
            .iter()
            .any(|line| line.replace(' ', "") == "publish=false");
        assert!(
            !(depends && unpublished),
            "the binary depends on {package}, which is publish = false"
        );
    }
}

#[test]
fn no_library_source_reads_outside_its_crate() {
    for (name, _) in library_manifests() {
        let dir = common::manifest_dir().join("crates").join(&name);
        for entry in walkdir::WalkDir::new(dir.join("src")) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for (number, line) in text.lines().enumerate() {
                assert!(
                    !escapes_crate(line),
                    "{}:{}: reads outside crates/{name}: {line}",
                    relative(entry.path()),
                    number + 1
                );
            }
        }
    }
}

/// Whether a source line names a file above its crate directory: a path from
/// `CARGO_MANIFEST_DIR` or an `include_*!` that climbs out with `../../`. (The interop venv
/// is the exception: it is the environment, not part of the crate.)
fn escapes_crate(line: &str) -> bool {
    (line.contains("include_") || line.contains(".join("))
        && line.contains("\"../../")
        && !line.contains("../../.venv")
}

fn relative(path: &Path) -> String {
    path.strip_prefix(common::manifest_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn escapes_crate_spots_a_climb_out_of_the_crate() {
    assert!(escapes_crate(
        r#"    .join("../../tests/support/turtle_reference.py");"#
    ));
    assert!(!escapes_crate(
        r#"include_bytes!("../fixtures/repeated.nt.br");"#
    ));
    assert!(!escapes_crate(r#".join("../../.venv")"#));
    // A path a test feeds the code, not a file it reads.
    assert!(!escapes_crate(r#"bad.path = Some("../../a.warc".into());"#));
}
