//! Opening the capture index without writing: archives live on read-only mounts, on
//! replicas and under other users' ownership, and reading them must create no file, no
//! directory and no lock. Writers alone take tantivy's writer lock.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::{Index, TantivyError};

/// A tantivy directory that reads through memory maps and refuses every write.
///
/// Tantivy's reader takes the meta lock while it opens segment files, so that a writer of
/// another process does not garbage-collect them meanwhile. The lock is taken when its
/// file already exists and can be opened for writing (a writer created it); on a read-only
/// mount or a root owned by someone else it cannot be, and no writer of ours can run
/// there either, so reading goes on without it. The lock file is never created.
#[derive(Clone)]
pub(crate) struct ReadOnlyDirectory {
    path: PathBuf,
    inner: MmapDirectory,
}

impl fmt::Debug for ReadOnlyDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReadOnlyDirectory({})", self.path.display())
    }
}

impl ReadOnlyDirectory {
    /// The index directory `path`, which must exist.
    pub(crate) fn open(path: &Path) -> io::Result<Self> {
        let inner = MmapDirectory::open(path)
            .map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
        Ok(Self {
            path: path.to_path_buf(),
            inner,
        })
    }

    fn refused(&self, path: &Path) -> io::Error {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{}: the index is open read-only",
                self.path.join(path).display()
            ),
        )
    }
}

/// A lock that holds nothing (the index is only read).
struct NoLock;

impl Directory for ReadOnlyDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(self.refused(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::wrap_io_error(
            self.refused(path),
            path.to_path_buf(),
        ))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, _data: &[u8]) -> io::Result<()> {
        Err(self.refused(path))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        if !self.path.join(&lock.filepath).is_file() {
            return Ok(DirectoryLock::from(Box::new(NoLock)));
        }
        match self.inner.acquire_lock(lock) {
            Ok(held) => Ok(held),
            // Not ours to open for writing: no writer of ours can run here either.
            Err(LockError::IoError(_)) => Ok(DirectoryLock::from(Box::new(NoLock))),
            Err(busy) => Err(busy),
        }
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

/// Opens the tantivy index in `dir` for reading only: `None` when `dir` holds no index
/// (absent, or without `meta.json`).
pub(crate) fn open_index(dir: &Path) -> io::Result<Option<Index>> {
    if !dir.join("meta.json").is_file() {
        if dir.exists() && !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a directory", dir.display()),
            ));
        }
        return Ok(None);
    }
    let directory = ReadOnlyDirectory::open(dir)?;
    Index::open(directory)
        .map(Some)
        .map_err(|e| io::Error::other(format!("{}: {}", dir.display(), describe(&e))))
}

/// A tantivy error as one line for users: a writer lock held elsewhere is named as such
/// (tantivy's own text for it is a debug dump).
pub(crate) fn describe(error: &TantivyError) -> String {
    match error {
        TantivyError::LockFailure(LockError::LockBusy, _) => {
            "another process holds the index writer (an index, crawl or monitor run on this \
             archive); try again when it has finished"
                .to_string()
        }
        TantivyError::LockFailure(LockError::IoError(io), _) => {
            format!("cannot take the index writer lock: {io}")
        }
        other => other.to_string(),
    }
}

/// The error of a failed index operation, naming the index directory.
pub(crate) fn index_error(dir: &Path, error: &TantivyError) -> io::Error {
    let kind = match error {
        TantivyError::LockFailure(LockError::LockBusy, _) => io::ErrorKind::WouldBlock,
        TantivyError::LockFailure(LockError::IoError(io), _) => io.kind(),
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, format!("{}: {}", dir.display(), describe(error)))
}
