//! Helpers shared by the benchmarks: timing peer commands and finding the interop tools.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Runs a command to completion and returns its wall time in seconds; panics if it fails.
pub fn time_command(command: &mut Command) -> f64 {
    let start = Instant::now();
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let secs = start.elapsed().as_secs_f64();
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    secs
}

/// A program from the interop venv (`$LDWARC_VENV`, else `<crate>/.venv`); panics if missing.
pub fn venv_bin(name: &str) -> PathBuf {
    let venv = std::env::var_os("LDWARC_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv"));
    let path = venv.join("bin").join(name);
    assert!(
        path.exists(),
        "{} missing: run bash .ci/setup-interop.sh",
        path.display()
    );
    path
}

/// A setting from the environment (`LDWARC_BENCH_*` and the like), or `default` when it is
/// unset or does not parse.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Where a benchmark writes its archive: `LDWARC_BENCH_DIR` (kept), else a temporary
/// directory that lives as long as the returned guard.
pub fn bench_root() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("LDWARC_BENCH_DIR") {
        Some(dir) => (None, PathBuf::from(dir)),
        None => {
            let temp = tempfile::tempdir().expect("temp dir");
            let root = temp.path().to_path_buf();
            (Some(temp), root)
        }
    }
}
