//! `ldwarc import`: bringing the WARC files of a WACZ package into an archive, all or nothing.
//!
//! A package comes from someone else, so every part of it is checked before the archive
//! changes: entry names (no `..`, absolute paths, backslashes, drive letters or symbolic
//! links), `datapackage.json` against `datapackage-digest.json`, each WARC resource's declared
//! size and SHA-256 (enforced while it is extracted: reading stops one byte past the declared
//! size, and an entry that would inflate more than [`MAX_INFLATION`] times its stored size is
//! refused before a byte is written), its WARC framing (it must read as WARC records to its
//! end), and whether its content is in the archive already under any name. Resources are
//! extracted to a staging directory of their own inside the archive's folder (same file
//! system, one file per resource) and renamed into `warc/` only once the whole package passed;
//! a refused package leaves the archive as it was.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read};
use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use ldwarc_warc::{FileFormat, WarcReader};

use super::wacz::{Hashing, SUPPORTED_VERSIONS, check_signature, sha256_hex};

/// The most a WARC resource may inflate: its size over its stored (compressed) size in the
/// zip. WARC files are stored gzipped (ratio 1) and plain WARC text deflates about 3 to 10
/// times; zip bombs reach a thousand times and more.
pub const MAX_INFLATION: u64 = 100;

/// The largest `datapackage.json` or `datapackage-digest.json` read.
const MAX_METADATA_BYTES: u64 = 64 << 20;

/// What [`import_wacz`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaczImport {
    /// WARC files written, as paths under the archive's `warc/`.
    pub files: Vec<String>,
    /// What the package's signature says (see [`check_signature`]); `None` if unsigned.
    pub signature: Option<String>,
}

/// One WARC resource of the package, and where it goes.
#[derive(Debug, Clone)]
struct Planned {
    /// Its entry in the zip (`archive/NAME.warc.gz`).
    path: String,
    /// Its declared SHA-256, `sha256:` and lower-case hex.
    hash: String,
    /// Its declared size.
    bytes: u64,
    /// Its destination under `warc/`.
    target: String,
}

/// Why a package cannot be imported: the package and what is wrong with it (exit status 2).
fn invalid(package: &Path, message: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {message}", package.display()),
    )
}

/// An I/O error with the path it happened on (a bare `os error 2` says nothing).
fn at(path: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |e| io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Copies the WARC files of the WACZ package at `package` into the archive at `root`
/// (`warc/`). A file goes back to its `ldwarcPath` when the package names one, else to
/// `warc/imported/<package name>/`. The package is refused (an `InvalidData` error naming it
/// and the resource) when any check of the module documentation fails, when a destination
/// exists, or when a WARC file's content is in the archive already; nothing is then left in
/// the archive (a root that did not exist is not created). The caller indexes the archive
/// afterwards.
pub fn import_wacz(package: &Path, root: &Path) -> io::Result<WaczImport> {
    let file = File::open(package).map_err(at(package))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file))
        .map_err(|e| invalid(package, format!("not a zip file ({e})")))?;
    check_entry_names(&zip).map_err(|e| invalid(package, e))?;
    let (plan, signature) = plan(package, &mut zip)?;
    let warc_dir = root.join("warc");
    refuse_present(package, &plan, &warc_dir)?;
    let mut staging = Staging::new(root)?;
    for (number, item) in plan.iter().enumerate() {
        let temporary = staging.dir().join(format!("{number}.warc-part"));
        extract(&mut zip, item, &temporary).map_err(|e| invalid(package, e))?;
        check_framing(&temporary)
            .map_err(|e| invalid(package, format!("{}: not a WARC file: {e}", item.path)))?;
        staging.files.push((temporary, warc_dir.join(&item.target)));
    }
    staging.commit()?;
    Ok(WaczImport {
        files: plan.into_iter().map(|item| item.target).collect(),
        signature,
    })
}

/// A zip entry name that stays inside the folder it is extracted to: relative, no `..`, no
/// backslash (a separator on Windows), no drive letter, no NUL.
fn safe_entry_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    !name.is_empty()
        && !drive
        && !name.contains('\\')
        && !name.contains('\0')
        && !name.starts_with('/')
        && name.split('/').all(|part| part != ".." && part != ".")
}

/// A relative path of normal components only (no `..`, no root, no empty parts).
fn safe_relative(path: &str) -> bool {
    safe_entry_name(path)
        && !path.ends_with('/')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Refuses a package with any entry whose name could point outside the folder it is read
/// into, or that is a symbolic link.
fn check_entry_names<R: Read + io::Seek>(zip: &zip::ZipArchive<R>) -> Result<(), String> {
    for name in zip.file_names() {
        let name = name.map_err(|e| format!("an entry name cannot be read ({e})"))?;
        if !safe_entry_name(&name) {
            return Err(format!(
                "unsafe entry name {name:?} (a path outside the package: `..`, an absolute \
                 path, a backslash or a drive letter)"
            ));
        }
    }
    Ok(())
}

/// Reads a small entry whole (at most [`MAX_METADATA_BYTES`]).
fn read_entry<R: Read + io::Seek>(zip: &mut zip::ZipArchive<R>, name: &str) -> io::Result<Vec<u8>> {
    let entry = zip
        .by_name(name)
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut bytes = Vec::new();
    entry.take(MAX_METADATA_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_METADATA_BYTES {
        return Err(io::Error::other(format!(
            "larger than {} MiB",
            MAX_METADATA_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// Every WARC resource of `datapackage.json` (checked against its digest and, when signed,
/// its signature), with its declared size and hash and its destination, and what the
/// signature says. Every resource under `archive/` must be a WARC file with a safe name; two
/// resources may not share a destination or a content.
fn plan<R: Read + io::Seek>(
    package: &Path,
    zip: &mut zip::ZipArchive<R>,
) -> io::Result<(Vec<Planned>, Option<String>)> {
    if zip.index_for_name("datapackage.json").is_none()
        && zip.index_for_name("webarchive.yaml").is_some()
    {
        return Err(invalid(
            package,
            format!(
                "a WACZ 0.1.0 package (webarchive.yaml, no datapackage.json), which ldwarc \
                 does not import: it imports WACZ {}",
                SUPPORTED_VERSIONS.join(", ")
            ),
        ));
    }
    let package_json = read_entry(zip, "datapackage.json")
        .map_err(|e| invalid(package, format!("datapackage.json: {e}")))?;
    let mut signature = None;
    if zip.index_for_name("datapackage-digest.json").is_some() {
        let digest = read_entry(zip, "datapackage-digest.json")
            .map_err(|e| invalid(package, format!("datapackage-digest.json: {e}")))?;
        let digest: Value = serde_json::from_slice(&digest)
            .map_err(|e| invalid(package, format!("datapackage-digest.json: {e}")))?;
        let expected = sha256_hex(Sha256::digest(&package_json));
        if digest["hash"].as_str() != Some(expected.as_str()) {
            return Err(invalid(
                package,
                "datapackage.json does not match its digest",
            ));
        }
        signature = check_signature(&digest, &expected).map_err(|e| invalid(package, e))?;
    }
    let datapackage: Value = serde_json::from_slice(&package_json)
        .map_err(|e| invalid(package, format!("datapackage.json: {e}")))?;
    match datapackage["wacz_version"].as_str() {
        Some(version) if SUPPORTED_VERSIONS.contains(&version) => {}
        version => {
            let version = version.map_or_else(
                || "no wacz_version in datapackage.json".to_string(),
                |v| format!("WACZ version {v:?}"),
            );
            return Err(invalid(
                package,
                format!(
                    "{version}: ldwarc imports WACZ {}",
                    SUPPORTED_VERSIONS.join(", ")
                ),
            ));
        }
    }
    let resources = datapackage["resources"]
        .as_array()
        .ok_or_else(|| invalid(package, "datapackage.json lists no resources"))?;
    let stem = package
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "package".into());
    let mut plan: Vec<Planned> = Vec::new();
    for resource in resources {
        let Some(path) = resource["path"].as_str() else {
            return Err(invalid(
                package,
                "a resource of datapackage.json without path",
            ));
        };
        if !safe_relative(path) {
            return Err(invalid(package, format!("unsafe resource path {path:?}")));
        }
        let Some(name) = path.strip_prefix("archive/") else {
            continue;
        };
        let refuse = |why: &str| Err(invalid(package, format!("{path}: {why}")));
        if name.contains('/') {
            return refuse("a WARC file in a subdirectory of archive/ (WACZ keeps archive/ flat)");
        }
        if !(name.ends_with(".warc") || name.ends_with(".warc.gz")) {
            return refuse("not named as a WARC file (.warc or .warc.gz)");
        }
        let Some(hash) = resource["hash"].as_str() else {
            return refuse("no hash in datapackage.json");
        };
        let hash = hash.to_ascii_lowercase();
        let hex = hash.strip_prefix("sha256:").unwrap_or("");
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return refuse(&format!("hash {hash:?} is not a sha256: hash"));
        }
        let Some(bytes) = resource["bytes"].as_u64() else {
            return refuse("no size (bytes) in datapackage.json");
        };
        // A path kept by ldwarc's export puts the file back where it was; one naming
        // another file is not followed (the file keeps its own name).
        let target = match resource["ldwarcPath"].as_str() {
            Some(kept) if !safe_relative(kept) => {
                return refuse(&format!("unsafe ldwarcPath {kept:?}"));
            }
            Some(kept) if kept.rsplit('/').next() == Some(name) => kept.to_string(),
            _ => format!("imported/{stem}/{name}"),
        };
        if !safe_relative(&target) {
            return refuse(&format!("unsafe destination {target:?}"));
        }
        if let Some(other) = plan.iter().find(|p| p.target == target) {
            return refuse(&format!("goes to warc/{target}, as {} does", other.path));
        }
        if let Some(other) = plan.iter().find(|p| p.hash == hash) {
            return refuse(&format!("has the same content as {}", other.path));
        }
        plan.push(Planned {
            path: path.to_string(),
            hash,
            bytes,
            target,
        });
    }
    if plan.is_empty() {
        return Err(invalid(package, "no WARC file under archive/"));
    }
    Ok((plan, signature))
}

/// Refuses the package when a destination exists, or when the content of one of its WARC
/// files is in the archive already under any name (a renamed package would add every
/// capture again). Only files of a planned size are hashed.
fn refuse_present(package: &Path, plan: &[Planned], warc_dir: &Path) -> io::Result<()> {
    for item in plan {
        let destination = warc_dir.join(&item.target);
        if fs::symlink_metadata(&destination).is_ok() {
            return Err(invalid(
                package,
                format!(
                    "{}: {} exists in the archive already",
                    item.path,
                    destination.display()
                ),
            ));
        }
    }
    if !warc_dir.exists() {
        return Ok(());
    }
    let mut by_size: BTreeMap<u64, Vec<&Planned>> = BTreeMap::new();
    for item in plan {
        by_size.entry(item.bytes).or_default().push(item);
    }
    for entry in walkdir::WalkDir::new(warc_dir).sort_by_file_name() {
        let entry = entry.map_err(|e| io::Error::other(format!("{}: {e}", warc_dir.display())))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let size = entry.metadata().map_err(io::Error::other)?.len();
        let Some(candidates) = by_size.get(&size) else {
            continue;
        };
        let mut hashing = Hashing {
            inner: io::sink(),
            hasher: Sha256::new(),
            bytes: 0,
        };
        let mut file = File::open(entry.path()).map_err(at(entry.path()))?;
        io::copy(&mut file, &mut hashing).map_err(at(entry.path()))?;
        let hash = sha256_hex(hashing.hasher.finalize());
        if let Some(item) = candidates.iter().find(|item| item.hash == hash) {
            let relative = entry.path().strip_prefix(warc_dir).unwrap_or(entry.path());
            return Err(invalid(
                package,
                format!(
                    "{}: already in the archive as warc/{} (same SHA-256): the package was \
                     imported before, nothing to do",
                    item.path,
                    relative.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Extracts one resource to `temporary`, enforcing its declared size (reading stops one
/// byte past it), its hash and [`MAX_INFLATION`]. The error names the resource.
fn extract<R: Read + io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    item: &Planned,
    temporary: &Path,
) -> Result<(), String> {
    let path = &item.path;
    let entry = zip
        .by_name(path)
        .map_err(|e| format!("{path}: listed in datapackage.json but not readable ({e})"))?;
    if entry.is_symlink() || !entry.is_file() {
        return Err(format!("{path}: a symbolic link or directory, not a file"));
    }
    if entry.size() != item.bytes {
        return Err(format!(
            "{path}: the zip holds {} bytes, datapackage.json declares {}",
            entry.size(),
            item.bytes
        ));
    }
    if item.bytes > entry.compressed_size().max(1).saturating_mul(MAX_INFLATION) {
        return Err(format!(
            "{path}: inflates from {} to {} bytes, more than {MAX_INFLATION} times (a zip bomb?)",
            entry.compressed_size(),
            item.bytes
        ));
    }
    let file = File::create(temporary).map_err(|e| format!("{}: {e}", temporary.display()))?;
    let mut hashing = Hashing {
        inner: BufWriter::new(file),
        hasher: Sha256::new(),
        bytes: 0,
    };
    // The zip reader checks the entry's CRC at its end, which `take` reaches only when the
    // entry is no longer than declared.
    io::copy(&mut entry.take(item.bytes.saturating_add(1)), &mut hashing)
        .map_err(|e| format!("{path}: {e}"))?;
    if hashing.bytes != item.bytes {
        return Err(format!(
            "{path}: {} than the {} bytes datapackage.json declares",
            if hashing.bytes > item.bytes {
                "longer"
            } else {
                "shorter"
            },
            item.bytes
        ));
    }
    if sha256_hex(hashing.hasher.finalize()) != item.hash {
        return Err(format!(
            "{path} does not match its hash in datapackage.json"
        ));
    }
    let file = hashing
        .inner
        .into_inner()
        .map_err(|e| format!("{}: {e}", temporary.display()))?;
    file.sync_all()
        .map_err(|e| format!("{}: {e}", temporary.display()))?;
    Ok(())
}

/// Checks that a file reads as WARC records to its end, as `ldwarc check` and the indexer
/// read it: every record intact, at least one, records addressable (not one gzip stream).
fn check_framing(file: &Path) -> Result<(), String> {
    let mut reader = WarcReader::open(file).map_err(|e| e.to_string())?;
    let mut records = 0u64;
    while let Some(next) = reader.next_record() {
        let record = next.map_err(|e| e.to_string())?;
        let end = record.finish().map_err(|e| e.to_string())?;
        if let Some(damage) = end.damage {
            return Err(damage.to_string());
        }
        records += 1;
    }
    if records == 0 {
        return Err("no WARC record in it".into());
    }
    if reader.format() != Some(FileFormat::Warc) {
        return Err("ARC records, not WARC".into());
    }
    if reader.is_whole_file_gzip() {
        return Err("gzipped as a whole, so its records cannot be addressed".into());
    }
    Ok(())
}

/// Where resources wait until the whole package passed: a directory of its own (a unique
/// name) in the archive's folder, removed with everything in it unless committed, together
/// with the folders made for it.
struct Staging {
    dir: Option<tempfile::TempDir>,
    /// Folders that did not exist (the root and its missing parents), deepest first.
    created: Vec<PathBuf>,
    /// Extracted resources and their destinations.
    files: Vec<(PathBuf, PathBuf)>,
}

impl Staging {
    fn new(root: &Path) -> io::Result<Self> {
        let mut created = Vec::new();
        let mut missing = root.to_path_buf();
        while !missing.as_os_str().is_empty() && fs::symlink_metadata(&missing).is_err() {
            created.push(missing.clone());
            match missing.parent() {
                Some(parent) => missing = parent.to_path_buf(),
                None => break,
            }
        }
        let mut staging = Self {
            dir: None,
            created,
            files: Vec::new(),
        };
        fs::create_dir_all(root).map_err(at(root))?;
        staging.dir = Some(
            tempfile::Builder::new()
                .prefix(".wacz-import-")
                .tempdir_in(root)
                .map_err(at(root))?,
        );
        Ok(staging)
    }

    fn dir(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new("."), |d| d.path())
    }

    /// Moves every resource to its destination; on a failure, those moved are moved back.
    fn commit(&mut self) -> io::Result<()> {
        let mut moved: Vec<(&PathBuf, &PathBuf)> = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        let mut outcome = Ok(());
        for (temporary, destination) in &self.files {
            let step = (|| {
                if let Some(parent) = destination.parent() {
                    let mut missing = parent.to_path_buf();
                    while fs::symlink_metadata(&missing).is_err() {
                        made.push(missing.clone());
                        match missing.parent() {
                            Some(up) => missing = up.to_path_buf(),
                            None => break,
                        }
                    }
                    fs::create_dir_all(parent).map_err(at(parent))?;
                }
                if fs::symlink_metadata(destination).is_ok() {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("{}: exists in the archive already", destination.display()),
                    ));
                }
                fs::rename(temporary, destination).map_err(at(destination))
            })();
            match step {
                Ok(()) => moved.push((temporary, destination)),
                Err(error) => {
                    outcome = Err(error);
                    break;
                }
            }
        }
        if outcome.is_err() {
            for (temporary, destination) in moved {
                let _ = fs::rename(destination, temporary);
            }
            made.sort();
            for dir in made.iter().rev() {
                let _ = fs::remove_dir(dir);
            }
            return outcome;
        }
        self.created.clear();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            if dir.close().is_err() {
                tracing::warn!(path = %path.display(), "could not remove the import's staging folder");
            }
        }
        for dir in &self.created {
            let _ = fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::io::Write;
    use zip::CompressionMethod;
    use zip::write::SimpleFileOptions;

    /// One small uncompressed WARC file of one resource record.
    fn warc(url: &str) -> Vec<u8> {
        let body = format!("<{url}> <http://purl.org/dc/terms/title> \"t\" .\n");
        format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {url}\r\n\
             Content-Type: text/turtle\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            uuid_of(url),
            body.len()
        )
        .into_bytes()
    }

    fn uuid_of(url: &str) -> String {
        let hex = hex_of(&Sha256::digest(url.as_bytes()));
        format!(
            "{}-{}-{}-{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )
    }

    fn hex_of(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// One resource of a test package: its entry name, bytes, compression, and what
    /// `datapackage.json` says of it (`None`: the truth).
    struct Part {
        path: String,
        bytes: Vec<u8>,
        deflate: bool,
        declared_bytes: Option<u64>,
        declared_hash: Option<String>,
        ldwarc_path: Option<String>,
    }

    fn part(path: &str, bytes: Vec<u8>) -> Part {
        Part {
            path: path.into(),
            bytes,
            deflate: false,
            declared_bytes: None,
            declared_hash: None,
            ldwarc_path: None,
        }
    }

    /// Writes a package of `parts` (and a correct digest of its datapackage.json), listing
    /// `extra` resources after theirs.
    fn package(path: &Path, parts: &[Part], extra: &[Value]) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        let mut resources = Vec::new();
        for part in parts {
            let method = if part.deflate {
                CompressionMethod::Deflated
            } else {
                CompressionMethod::Stored
            };
            zip.start_file(
                part.path.as_str(),
                SimpleFileOptions::default().compression_method(method),
            )
            .unwrap();
            zip.write_all(&part.bytes).unwrap();
            let mut resource = serde_json::json!({
                "path": part.path,
                "hash": part.declared_hash.clone()
                    .unwrap_or_else(|| sha256_hex(Sha256::digest(&part.bytes))),
                "bytes": part.declared_bytes.unwrap_or(part.bytes.len() as u64),
            });
            if let Some(kept) = &part.ldwarc_path {
                resource["ldwarcPath"] = serde_json::json!(kept);
            }
            resources.push(resource);
        }
        resources.extend(extra.iter().cloned());
        let json = serde_json::to_vec(
            &serde_json::json!({"wacz_version": "1.1.1", "resources": resources}),
        )
        .unwrap();
        zip.start_file("datapackage.json", SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&json).unwrap();
        zip.start_file("datapackage-digest.json", SimpleFileOptions::default())
            .unwrap();
        let digest = serde_json::json!({"path": "datapackage.json",
            "hash": sha256_hex(Sha256::digest(&json))});
        zip.write_all(digest.to_string().as_bytes()).unwrap();
        zip.finish().unwrap();
    }

    /// Every file and folder below `root` with the SHA-256 of its content.
    fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
        let mut all = BTreeMap::new();
        if !root.exists() {
            return all;
        }
        for entry in walkdir::WalkDir::new(root) {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(root).unwrap().to_path_buf();
            let hash = if entry.file_type().is_file() {
                hex_of(&Sha256::digest(fs::read(entry.path()).unwrap()))
            } else {
                "dir".into()
            };
            all.insert(relative, hash);
        }
        all
    }

    /// An archive holding one WARC file already, to refuse into.
    fn archive_with_one_file(dir: &Path) -> PathBuf {
        let root = dir.join("archive");
        fs::create_dir_all(root.join("warc/2024")).unwrap();
        fs::write(root.join("warc/2024/old.warc"), warc("http://old.example/")).unwrap();
        root
    }

    /// Imports `parts` into an archive holding one file; asserts the refusal names the
    /// package and `names`, and that the archive is byte-identical afterwards.
    fn refused(parts: &[Part], names: &str) -> String {
        refused_with(parts, &[], names)
    }

    fn refused_with(parts: &[Part], extra: &[Value], names: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let root = archive_with_one_file(dir.path());
        let wacz = dir.path().join("hostile.wacz");
        package(&wacz, parts, extra);
        let before = tree(&root);
        let error = import_wacz(&wacz, &root).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{error}");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("{}: ", wacz.display())),
            "{message}"
        );
        assert!(message.contains(names), "{message}");
        assert_eq!(tree(&root), before, "the archive changed: {message}");
        message
    }

    #[test]
    fn a_good_package_is_imported_whole_and_leaves_no_staging() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("new-archive");
        let wacz = dir.path().join("good.wacz");
        let mut kept = part("archive/b.warc", warc("http://b.example/"));
        kept.ldwarc_path = Some("2024/01/b.warc".into());
        let mut deflated = part("archive/c.warc", warc("http://c.example/"));
        deflated.deflate = true;
        package(
            &wacz,
            &[
                part("archive/a.warc", warc("http://a.example/")),
                kept,
                deflated,
            ],
            &[],
        );
        let imported = import_wacz(&wacz, &root).unwrap();
        assert_eq!(
            imported.files,
            [
                "imported/good/a.warc",
                "2024/01/b.warc",
                "imported/good/c.warc"
            ]
        );
        let files: Vec<PathBuf> = tree(&root).into_keys().collect();
        let expected: Vec<PathBuf> = [
            "",
            "warc",
            "warc/2024",
            "warc/2024/01",
            "warc/2024/01/b.warc",
            "warc/imported",
            "warc/imported/good",
            "warc/imported/good/a.warc",
            "warc/imported/good/c.warc",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(files, expected);
        assert_eq!(
            fs::read(root.join("warc/imported/good/c.warc")).unwrap(),
            warc("http://c.example/")
        );
    }

    /// The case of the report: `a.warc.gz` and `a.warc.warc` were both extracted to
    /// `a.warc.wacz-import`, so the first destination got the second one's bytes and the
    /// second rename failed with a bare "os error 2".
    #[test]
    fn resources_never_share_a_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("archive");
        let wacz = dir.path().join("p.wacz");
        let gz = warc("http://gz.example/");
        let plain = warc("http://plain.example/");
        package(
            &wacz,
            &[
                part("archive/a.warc.gz", gz.clone()),
                part("archive/a.warc.warc", plain.clone()),
            ],
            &[],
        );
        import_wacz(&wacz, &root).unwrap();
        assert_eq!(
            fs::read(root.join("warc/imported/p/a.warc.gz")).unwrap(),
            gz
        );
        assert_eq!(
            fs::read(root.join("warc/imported/p/a.warc.warc")).unwrap(),
            plain
        );
    }

    #[test]
    fn a_resource_listed_twice_is_refused() {
        let twice = serde_json::json!({"path": "archive/a.warc",
            "hash": sha256_hex(Sha256::digest(b"other")), "bytes": 5});
        refused_with(
            &[part("archive/a.warc", warc("http://a.example/"))],
            &[twice],
            "archive/a.warc: goes to warc/imported/hostile/a.warc, as archive/a.warc does",
        );
    }

    #[test]
    fn a_refusal_after_extraction_leaves_the_archive_byte_identical() {
        // The first resource passes and is extracted; the second fails its hash.
        let good = part("archive/a.warc", warc("http://a.example/"));
        let mut bad = part("archive/b.warc", warc("http://b.example/"));
        bad.declared_hash = Some(sha256_hex(Sha256::digest(warc("http://c.example/"))));
        refused(
            &[good, bad],
            "archive/b.warc does not match its hash in datapackage.json",
        );
        // And a root that did not exist is not created.
        let dir = tempfile::tempdir().unwrap();
        let wacz = dir.path().join("p.wacz");
        let mut bad = part("archive/b.warc", warc("http://b.example/"));
        bad.declared_hash = Some(sha256_hex(Sha256::digest(b"x")));
        package(
            &wacz,
            &[part("archive/a.warc", warc("http://a.example/")), bad],
            &[],
        );
        let root = dir.path().join("deep/new/archive");
        import_wacz(&wacz, &root).unwrap_err();
        assert!(!dir.path().join("deep").exists());
    }

    #[test]
    fn non_warc_payloads_are_refused() {
        let mut random = vec![0u8; 4096];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for byte in &mut random {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *byte = state as u8;
        }
        for (bytes, why) in [
            (b"just some text\n".to_vec(), "not a WARC or ARC record"),
            (
                b"<!DOCTYPE html><html><body>hi</body></html>\n".to_vec(),
                "not a WARC or ARC record",
            ),
            (random, "archive/x.warc.gz: not a WARC file"),
            (Vec::new(), "no WARC record in it"),
        ] {
            refused(&[part("archive/x.warc.gz", bytes)], why);
        }
        // A WARC file followed by anything else is not a WARC file either.
        let mut tail = warc("http://a.example/");
        tail.extend_from_slice(b"trailing text that is no record\n");
        refused(
            &[part("archive/a.warc", tail)],
            "archive/a.warc: not a WARC file: offset 0: record block is not followed by a record end",
        );
        refused(
            &[part("archive/notes.txt", b"hello".to_vec())],
            "archive/notes.txt: not named as a WARC file",
        );
    }

    #[test]
    fn symbolic_links_in_the_zip_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = archive_with_one_file(dir.path());
        let wacz = dir.path().join("link.wacz");
        let mut zip = zip::ZipWriter::new(File::create(&wacz).unwrap());
        zip.add_symlink(
            "archive/a.warc",
            "/etc/passwd",
            SimpleFileOptions::default(),
        )
        .unwrap();
        let json =
            serde_json::json!({"wacz_version": "1.1.1", "resources": [{"path": "archive/a.warc",
            "hash": sha256_hex(Sha256::digest(b"/etc/passwd")), "bytes": 11}]})
            .to_string();
        zip.start_file("datapackage.json", SimpleFileOptions::default())
            .unwrap();
        zip.write_all(json.as_bytes()).unwrap();
        zip.finish().unwrap();
        let before = tree(&root);
        let error = import_wacz(&wacz, &root).unwrap_err().to_string();
        assert!(error.contains("archive/a.warc: a symbolic link"), "{error}");
        assert_eq!(tree(&root), before);
    }

    #[test]
    fn declared_sizes_and_inflation_are_enforced() {
        // A zip bomb: 64 MiB of zeros deflate to about 64 KiB, correctly hashed and sized.
        let mut bomb = part("archive/bomb.warc", vec![0u8; 64 << 20]);
        bomb.deflate = true;
        refused(&[bomb], "archive/bomb.warc: inflates from");
        // A declared size that is not the entry's.
        let mut short = part("archive/a.warc", warc("http://a.example/"));
        short.declared_bytes = Some(10);
        refused(&[short], "datapackage.json declares 10");
        let mut missing = part("archive/a.warc", warc("http://a.example/"));
        missing.declared_bytes = Some(u64::MAX);
        refused(&[missing], "archive/a.warc: the zip holds");
    }

    #[test]
    fn unsafe_names_are_refused_naming_the_entry() {
        for name in [
            "../evil.warc",
            "/etc/evil.warc",
            "archive/..\\evil.warc",
            "C:/evil.warc",
            "archive/../../evil.warc",
        ] {
            let message = refused(
                &[part(name, warc("http://a.example/"))],
                "unsafe entry name",
            );
            assert!(message.contains(&format!("{name:?}")), "{message}");
        }
        let mut bad = part("archive/a.warc", warc("http://a.example/"));
        bad.ldwarc_path = Some("../../a.warc".into());
        refused(&[bad], "unsafe ldwarcPath");
        assert!(safe_relative("2024/01/01/00/e.org/x.warc.gz"));
        for bad in [
            "../x.warc",
            "/etc/x.warc",
            "a/../../x.warc",
            "",
            "a\\b.warc",
            "D:x.warc",
        ] {
            assert!(!safe_relative(bad), "{bad}");
        }
    }

    #[test]
    fn content_already_in_the_archive_is_refused_under_any_name() {
        // The archive's own file, packaged under another name.
        let message = refused(
            &[part("archive/renamed.warc", warc("http://old.example/"))],
            "archive/renamed.warc: already in the archive as warc/2024/old.warc",
        );
        assert!(message.contains("nothing to do"), "{message}");
    }
}
