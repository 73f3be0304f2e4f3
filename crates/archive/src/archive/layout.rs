//! Paths of the archive: root, partitions, file names, pay-level domains.

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

/// An archive root directory.
#[derive(Debug, Clone)]
pub struct Archive {
    root: PathBuf,
}

impl Archive {
    /// The archive at `root` (nothing is created until something is written).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/warc`.
    pub fn warc_dir(&self) -> PathBuf {
        self.root.join("warc")
    }

    /// `<root>/index`.
    pub fn index_dir(&self) -> PathBuf {
        self.root.join("index")
    }

    /// `<root>/state`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join("state")
    }

    /// The partition directory for captures of `pld` in the UTC hour of `time`; the PLD's
    /// name is made portable by `partition_name`.
    pub fn partition_dir(&self, time: DateTime<Utc>, pld: &str) -> PathBuf {
        self.warc_dir()
            .join(time.format("%Y/%m/%d/%H").to_string())
            .join(partition_name(pld))
    }

    /// A path relative to the root, with `/` separators (as indexes store it).
    pub fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// A PLD as a directory name every file system accepts: an IPv6 address (`::1`) has its
/// colons turned into `-` (`--1`), as has any other character that Windows or macOS refuse.
pub fn partition_name(pld: &str) -> String {
    let name: String = pld
        .chars()
        .map(|c| match c {
            ':' | '/' | '\\' | '<' | '>' | '"' | '|' | '?' | '*' => '-',
            c if c.is_control() => '-',
            c => c,
        })
        .collect();
    match name.as_str() {
        "" | "." | ".." => "_".to_string(),
        _ => name,
    }
}

/// `<prefix>-<14-digit UTC>-<serial>-<host>.warc.gz`.
pub fn file_name(prefix: &str, time: DateTime<Utc>, serial: u32, host: &str) -> String {
    format!(
        "{}-{}-{serial:05}-{}.warc.gz",
        sanitize(prefix),
        time.format("%Y%m%d%H%M%S"),
        sanitize(host)
    )
}

fn sanitize(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "unknown".into()
    } else {
        cleaned
    }
}

/// Whether a file name looks like a WARC or ARC file (optionally gzipped).
pub fn is_warc_file_name(name: &str) -> bool {
    [".warc", ".warc.gz", ".arc", ".arc.gz"]
        .iter()
        .any(|suffix| name.len() > suffix.len() && name.to_ascii_lowercase().ends_with(suffix))
}

/// Every WARC/ARC file below `dir` (or `dir` itself if it is a file), sorted by path so the
/// order is the same on every run. Files still being written (`.open`) are not included.
pub fn walk_warc_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    if dir.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let path = e
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            io::Error::other(format!("{path}: {e}"))
        })?;
        if entry.file_type().is_file() && is_warc_file_name(&entry.file_name().to_string_lossy()) {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use ldwarc_surt::pay_level_domain;

    #[test]
    fn names_and_partitions() {
        let time = Utc
            .with_ymd_and_hms(2026, 11, 21, 8, 5, 9)
            .single()
            .expect("valid time");
        assert_eq!(
            file_name("ldwarc", time, 7, "crawl host/1"),
            "ldwarc-20261121080509-00007-crawl-host-1.warc.gz"
        );
        let archive = Archive::new("/a");
        assert_eq!(
            archive.partition_dir(time, "example.org"),
            PathBuf::from("/a/warc/2026/11/21/08/example.org")
        );
        assert_eq!(
            archive.partition_dir(time, &pay_level_domain("[::1]")),
            PathBuf::from("/a/warc/2026/11/21/08/--1")
        );
        assert_eq!(partition_name("fe80::1"), "fe80--1");
        assert_eq!(partition_name(""), "_");
        assert!(is_warc_file_name("x.WARC.GZ"));
        assert!(!is_warc_file_name("x.warc.gz.open"));
    }
}
