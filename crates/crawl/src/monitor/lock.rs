//! The cycle lock: an advisory `flock` on `<root>/state/monitor.lock`, so two monitor cycles
//! on one archive never overlap. The kernel drops the lock when its holder dies, even by
//! SIGKILL, so a stale lock file never blocks the next cycle; the file holds the holder's pid
//! and start time only to name it in the refusal.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{SecondsFormat, Utc};

use super::MonitorError;

/// The lock file's name under `<root>/state/`.
pub const LOCK_FILE: &str = "monitor.lock";

/// A held cycle lock; dropping it releases the lock.
#[derive(Debug)]
pub struct CycleLock {
    file: File,
    path: PathBuf,
}

impl CycleLock {
    /// Takes the lock in `state_dir`, or refuses at once (no waiting) naming the holder.
    pub fn acquire(state_dir: &Path) -> Result<CycleLock, MonitorError> {
        let path = state_dir.join(LOCK_FILE);
        let io = |e: std::io::Error| MonitorError::Io(format!("{}: {e}", path.display()));
        std::fs::create_dir_all(state_dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                // Best effort: the holder may be rewriting the file right now.
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() {
                    "another process".to_string()
                } else {
                    holder.to_string()
                };
                return Err(MonitorError::Locked(format!(
                    "another monitor cycle is running on this archive ({holder}; lock {})",
                    path.display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let stamp = format!(
            "pid {} since {}\n",
            std::process::id(),
            Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
        );
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        file.write_all(stamp.as_bytes()).map_err(io)?;
        Ok(CycleLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for CycleLock {
    fn drop(&mut self) {
        // Closing the file releases the lock anyway; unlocking first only makes it prompt.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = CycleLock::acquire(dir.path()).unwrap();
        let refused = CycleLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            refused.contains("another monitor cycle is running"),
            "{refused}"
        );
        assert!(
            refused.contains(&format!("pid {}", std::process::id())),
            "{refused}"
        );
        assert!(!refused.contains('\n'), "one line: {refused}");
        drop(first);
        let again = CycleLock::acquire(dir.path()).unwrap();
        assert!(again.path().ends_with(LOCK_FILE));
    }
}
