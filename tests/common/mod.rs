//! Shared helpers for the integration tests: the real binary, the interop tools (which must
//! be installed: a missing tool fails the test loudly, it never skips), and fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate root.
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command running the real `ldwarc` binary.
pub fn ldwarc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ldwarc"))
}

/// Runs a command, returning its output; panics with the command line if it cannot start.
pub fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// A program from the interop venv (`$LDWARC_VENV`, else `<crate>/.venv`).
/// Panics when it is missing: interop tests must never skip silently.
pub fn venv_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("LDWARC_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".venv"));
    let path = venv.join("bin").join(name);
    assert!(
        path.exists(),
        "interop tool {} is missing; run `bash .ci/setup-interop.sh` (or set LDWARC_VENV)",
        path.display()
    );
    path
}

/// The WARC/ARC files of the pywb 2.10.0 sample archive, installed by `.ci/setup-interop.sh`.
pub fn pywb_sample_warcs() -> PathBuf {
    let dir = std::env::var_os("LDWARC_PYWB_SAMPLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".ci/cache/pywb-2.10.0/sample_archive/warcs"));
    assert!(
        dir.is_dir(),
        "pywb sample archive {} is missing; run `bash .ci/setup-interop.sh`",
        dir.display()
    );
    dir
}

/// A file under `fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    manifest_dir().join("fixtures").join(relative)
}

/// Standard output as text, asserting the command succeeded.
pub fn stdout_ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether `path` exists, for readable assertions.
pub fn exists(path: &Path) -> bool {
    path.exists()
}
