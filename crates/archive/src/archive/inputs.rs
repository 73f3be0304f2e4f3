//! The WARC/ARC files a user names on the command line. A path that holds none is an
//! error, not an empty success: `check` on a FIFO or on the wrong directory must not
//! report "0 files, no errors".

use std::io;
use std::path::{Path, PathBuf};

use super::layout::walk_warc_files;

/// The files `path` names: a regular file as it is (whatever its name), a directory for
/// the WARC/ARC files below it. A FIFO, device or socket is an error, and so is a
/// directory without any WARC or ARC file; errors name the path.
pub fn named_warc_files(path: &Path) -> io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: not a regular file or directory (a FIFO, device or socket cannot be \
                 read as WARC)",
                path.display()
            ),
        ));
    }
    let files = walk_warc_files(path)?;
    if files.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: no WARC or ARC file in this directory (*.warc, *.warc.gz, *.arc, *.arc.gz)",
                path.display()
            ),
        ));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_and_directories_without_warcs_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let error = named_warc_files(dir.path()).unwrap_err();
        assert!(error.to_string().contains("no WARC or ARC file"), "{error}");

        let fifo = dir.path().join("pipe.warc");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo runs");
        let error = named_warc_files(&fifo).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(error.to_string().contains("pipe.warc"), "{error}");

        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(named_warc_files(&file).unwrap(), vec![file.clone()]);
        std::fs::remove_file(&fifo).unwrap();
        let warc = dir.path().join("a.warc");
        std::fs::write(&warc, "").unwrap();
        assert_eq!(named_warc_files(dir.path()).unwrap(), vec![warc]);
    }
}
