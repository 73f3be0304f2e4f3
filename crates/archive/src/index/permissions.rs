//! tantivy writes `meta.json` and `.managed.json` through temporary files, which are created
//! readable by their owner only, while every other file of the index gets the process's usual
//! mode. An archive read by another user (a web server's account, a replica's reader) must
//! be readable as a whole, so after each commit these two files are given the mode the
//! index's other files have.

use std::io;
use std::path::Path;

/// The files tantivy writes through owner-only temporary files.
const META_FILES: [&str; 2] = ["meta.json", ".managed.json"];

/// Gives the meta files of the index in `dir` the read and write bits of its writer lock
/// file (created with the process's umask, like the segment files).
pub(crate) fn share_meta_files(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::fs::{self, Permissions};
        use std::os::unix::fs::PermissionsExt;

        let Ok(reference) = fs::metadata(dir.join(".tantivy-writer.lock")) else {
            return Ok(());
        };
        let mode = reference.permissions().mode() & 0o666;
        for name in META_FILES {
            let path = dir.join(name);
            if let Ok(meta) = fs::metadata(&path)
                && meta.permissions().mode() & 0o777 != mode
            {
                fs::set_permissions(&path, Permissions::from_mode(mode))
                    .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (dir, META_FILES);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::store::{CaptureIndex, Checkpoint};

    #[cfg(unix)]
    #[test]
    fn committed_meta_files_are_as_readable_as_the_segments() {
        use std::os::unix::fs::PermissionsExt;

        let dir = tempfile::tempdir().unwrap();
        let index = CaptureIndex::open(dir.path()).unwrap();
        let mut batch = index.batch().unwrap();
        batch.commit(&Checkpoint::default()).unwrap();
        batch.finish().unwrap();
        let mode = |name: &str| {
            std::fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        let lock = mode(".tantivy-writer.lock");
        assert_ne!(lock & 0o044, 0, "the umask lets others read: {lock:o}");
        assert_eq!(mode("meta.json"), lock);
        assert_eq!(mode(".managed.json"), lock);
    }
}
