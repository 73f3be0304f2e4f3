//! Files written whole or not at all: through a temporary file next to the target, renamed
//! over it when complete, so a failed or interrupted run never leaves half a file under the
//! target's name.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// A temporary file in `dir` created with the process's usual mode (the umask's), not the
/// owner-only mode temporary files get: an archive read by another user (a web server's
/// account) must be able to read what is renamed from it.
pub fn shared_temp_file(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| {
        // tempfile's message names the random temporary name; the directory is what to fix.
        let cause = match fs::metadata(dir) {
            Err(missing) => missing.to_string(),
            Ok(_) => io::Error::from(e.kind()).to_string(),
        };
        io::Error::new(e.kind(), format!("{}: {cause}", dir.display()))
    })
}

/// Writes `path` through a buffered temporary file next to it (mode as the umask allows),
/// renamed over `path` only when `write` succeeded.
pub fn write_replacing<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let temporary = shared_temp_file(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let mut out = io::BufWriter::with_capacity(1 << 20, temporary);
    let value = write(&mut out)?;
    let temporary = out.into_inner().map_err(|e| e.into_error())?;
    temporary
        .persist(path)
        .map_err(|e| io::Error::new(e.error.kind(), format!("{}: {}", path.display(), e.error)))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_file_gets_the_umask_mode_and_appears_only_when_complete() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.nq");
        let failed = write_replacing(&path, |out| {
            out.write_all(b"half")?;
            Err::<(), _>(io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert!(!path.exists());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);

        write_replacing(&path, |out| out.write_all(b"whole")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"whole");
        let plain = dir.path().join("plain");
        fs::File::create(&plain).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&plain), "the mode a plain file gets");
    }

    #[test]
    fn a_missing_directory_is_named_not_a_temporary_file() {
        let error = write_replacing(Path::new("/nonexistent-ldwarc/dir/x.nq"), |out| {
            out.write_all(b"x")
        })
        .unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("/nonexistent-ldwarc/dir/x.nq: "),
            "{message}"
        );
        assert!(!message.contains(".tmp"), "{message}");
    }
}
