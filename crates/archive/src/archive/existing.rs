//! Opening an archive that must already exist: commands that read (and `index`, which
//! only adds to an archive) never create a root, so a mistyped `--root` is an error naming
//! the path instead of a new empty archive.

use std::io;
use std::path::{Path, PathBuf};

use super::layout::Archive;

impl Archive {
    /// The archive at `root`, which must be an existing directory. Creates nothing.
    pub fn open_existing(root: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        require_root(&root)?;
        Ok(Self::new(root))
    }
}

/// Fails unless `root` is an existing directory, with an error naming it.
pub fn require_root(root: &Path) -> io::Result<()> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("archive root {}: not a directory", root.display()),
        )),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("archive root {}: no such directory", root.display()),
        )),
        Err(error) => Err(io::Error::new(
            error.kind(),
            format!("archive root {}: {error}", root.display()),
        )),
    }
}

/// An archive root without a capture index (`<root>/index`), carried inside the
/// [`io::Error`] of [`require_index`] so that a caller can say how to build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoCaptureIndex {
    /// The archive root.
    pub root: PathBuf,
}

impl std::fmt::Display for NoCaptureIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: no capture index", self.root.display())
    }
}

impl std::error::Error for NoCaptureIndex {}

/// Fails unless `root` is an existing directory with a capture index (`<root>/index`), with
/// a [`NoCaptureIndex`] error naming the root: reading an archive never indexed, or a
/// directory that is not an archive, is a mistake, not an empty answer.
pub fn require_index(root: &Path) -> io::Result<()> {
    require_root(root)?;
    if root.join("index").is_dir() {
        Ok(())
    } else {
        let root = root.to_path_buf();
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            NoCaptureIndex { root },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_root_is_an_error_naming_it_and_nothing_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/root");
        let error = Archive::open_existing(&missing).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(error.to_string().contains(&missing.display().to_string()));
        assert!(!dir.path().join("no").exists());

        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let error = Archive::open_existing(&file).unwrap_err();
        assert!(error.to_string().contains("not a directory"), "{error}");

        let archive = Archive::open_existing(dir.path()).unwrap();
        assert_eq!(archive.root(), dir.path());
    }

    #[test]
    fn a_root_without_index_is_a_typed_error_naming_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let error = require_index(dir.path()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            error.to_string(),
            format!("{}: no capture index", dir.path().display())
        );
        let typed = error
            .get_ref()
            .and_then(|e| e.downcast_ref::<NoCaptureIndex>());
        assert_eq!(
            typed,
            Some(&NoCaptureIndex {
                root: dir.path().to_path_buf()
            })
        );
        assert!(!dir.path().join("index").exists());
    }
}
