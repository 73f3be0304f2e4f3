//! Reading the SQLite state store of an archive that may be on a read-only mount or owned
//! by another user: nothing is created (no directory, no database, no `-wal`/`-shm` file)
//! and no schema statement runs.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{Result, StateStore, StoreError};

impl StateStore {
    /// Opens the store in `state_dir` for reading only; the database must exist.
    ///
    /// A database whose writer is gone has no `-wal` file: it is then opened immutable,
    /// which reads it without the shared-memory file that SQLite's WAL mode would otherwise
    /// create beside it (impossible on a read-only mount). With a `-wal` file present a
    /// writer may be running, and the store is opened read-only through the WAL as usual.
    pub fn open_read_only(state_dir: &Path) -> Result<Self> {
        let path = state_dir.join("state.sqlite");
        let wrap = |source: rusqlite::Error| StoreError {
            path: path.clone(),
            source: source.into(),
        };
        if !path.is_file() {
            return Err(wrap(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some("no such database".into()),
            )));
        }
        let wal_present = state_dir.join("state.sqlite-wal").exists();
        let mode = if wal_present {
            "mode=ro"
        } else {
            "immutable=1"
        };
        let uri = format!("file:{}?{mode}", uri_path(&path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let connection = Connection::open_with_flags(&uri, flags).map_err(wrap)?;
        connection
            .busy_timeout(Duration::from_secs(30))
            .map_err(wrap)?;
        Ok(Self { path, connection })
    }
}

/// A path as the path part of an SQLite `file:` URI: the characters URIs reserve there,
/// and every byte outside ASCII, percent-encoded.
fn uri_path(path: &Path) -> String {
    let mut encoded = String::new();
    for &byte in path.as_os_str().as_encoded_bytes() {
        if byte.is_ascii() && !matches!(byte, b'%' | b'?' | b'#') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}
