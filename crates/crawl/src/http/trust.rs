//! Which certificate authorities HTTPS servers are checked against: the bundled Mozilla roots
//! or the operating system's store, plus any CA files (`--ca-file`) and, with the bundled
//! roots, the `SSL_CERT_FILE`/`SSL_CERT_DIR` locations that OpenSSL-based tools read. Private
//! CAs (intranet and institutional Linked Data) are trusted by adding them here.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

/// The base set of trust anchors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TrustRoots {
    /// The Mozilla roots compiled into the program (the same on every machine).
    #[default]
    Bundled,
    /// The operating system's certificate store. On Unix, `SSL_CERT_FILE`/`SSL_CERT_DIR`
    /// replace it when set, as in OpenSSL.
    System,
}

impl FromStr for TrustRoots {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "bundled" => Ok(TrustRoots::Bundled),
            "system" => Ok(TrustRoots::System),
            other => Err(format!(
                "unknown trust roots {other:?} (expected bundled or system)"
            )),
        }
    }
}

impl fmt::Display for TrustRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrustRoots::Bundled => "bundled",
            TrustRoots::System => "system",
        })
    }
}

/// Everything that decides which server certificates are accepted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrustConfig {
    /// The base set of roots.
    pub roots: TrustRoots,
    /// PEM files of further CA certificates, trusted besides the roots.
    pub ca_files: Vec<PathBuf>,
    /// `SSL_CERT_FILE`, added to the bundled roots (read by the system store itself).
    pub env_file: Option<PathBuf>,
    /// The directories of `SSL_CERT_DIR` (`:`-separated), added to the bundled roots.
    pub env_dirs: Vec<PathBuf>,
}

/// The trust anchors could not be loaded; the message names the file and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TrustError(String);

impl TrustConfig {
    /// `roots` and `ca_files`, with `SSL_CERT_FILE`/`SSL_CERT_DIR` read through `var`.
    pub fn with_env(
        roots: TrustRoots,
        ca_files: Vec<PathBuf>,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Self {
        let non_empty = |name: &str| var(name).filter(|value| !value.is_empty());
        TrustConfig {
            roots,
            ca_files,
            env_file: non_empty("SSL_CERT_FILE").map(PathBuf::from),
            env_dirs: non_empty("SSL_CERT_DIR")
                .map(|dirs| std::env::split_paths(&dirs).collect())
                .unwrap_or_default(),
        }
    }

    /// The root store this configuration describes. A CA file or `SSL_CERT_FILE` that cannot
    /// be read or holds no certificate is an error; in `SSL_CERT_DIR` only files that parse
    /// as PEM certificates count (such directories hold other files too).
    pub fn root_store(&self) -> Result<RootCertStore, TrustError> {
        let mut store = RootCertStore::empty();
        match self.roots {
            TrustRoots::Bundled => {
                store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
                if let Some(file) = &self.env_file {
                    store.add_parsable_certificates(read_pem_file(file, "SSL_CERT_FILE")?);
                }
                for dir in &self.env_dirs {
                    add_dir(&mut store, dir)?;
                }
            }
            TrustRoots::System => add_system(&mut store)?,
        }
        for file in &self.ca_files {
            let certs = read_pem_file(file, "--ca-file")?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(TrustError(format!(
                    "--ca-file {}: no usable CA certificate in it",
                    file.display()
                )));
            }
        }
        Ok(store)
    }
}

/// Every PEM certificate in `file`; an error naming `what` and the file when it cannot be
/// read or holds none.
fn read_pem_file(file: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, TrustError> {
    let failed = |reason: String| TrustError(format!("{what} {}: {reason}", file.display()));
    let bytes = std::fs::read(file).map_err(|error| failed(error.to_string()))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| failed(format!("not a PEM certificate file ({error})")))?;
    if certs.is_empty() {
        return Err(failed("no PEM certificate in it".into()));
    }
    Ok(certs)
}

/// The certificates of every readable PEM file in `dir`.
fn add_dir(store: &mut RootCertStore, dir: &Path) -> Result<(), TrustError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|error| TrustError(format!("SSL_CERT_DIR {}: {error}", dir.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let certs: Vec<_> = CertificateDer::pem_slice_iter(&bytes)
            .filter_map(Result::ok)
            .collect();
        store.add_parsable_certificates(certs);
    }
    Ok(())
}

/// The operating system's store; an error when it yields no certificate at all.
fn add_system(store: &mut RootCertStore) -> Result<(), TrustError> {
    let found = rustls_native_certs::load_native_certs();
    let (added, _) = store.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found
            .errors
            .first()
            .map(|error| format!(": {error}"))
            .unwrap_or_default();
        return Err(TrustError(format!(
            "--tls-roots system: no certificate found in the operating system's store{why}"
        )));
    }
    // Errors beside found certificates are unreadable extra files; the store is usable.
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ca_pem() -> String {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.self_signed(&key).unwrap().pem()
    }

    fn bundled_count() -> usize {
        webpki_roots::TLS_SERVER_ROOTS.len()
    }

    #[test]
    fn ca_files_and_ssl_cert_file_add_to_the_bundled_roots() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, ca_pem()).unwrap();
        let other = dir.path().join("other.pem");
        std::fs::write(&other, ca_pem()).unwrap();
        let env = |name: &str| (name == "SSL_CERT_FILE").then(|| other.clone().into_os_string());
        let config = TrustConfig::with_env(TrustRoots::Bundled, vec![ca.clone()], env);
        assert_eq!(config.env_file.as_deref(), Some(other.as_path()));
        let store = config.root_store().unwrap();
        assert_eq!(store.len(), bundled_count() + 2);
    }

    #[test]
    fn ssl_cert_dir_adds_the_certificates_among_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.pem"), ca_pem()).unwrap();
        std::fs::write(dir.path().join("README"), "not a certificate").unwrap();
        let dirs = std::env::join_paths([dir.path(), Path::new("/nonexistent-ldwarc-dir")]);
        let dirs = dirs.unwrap();
        let env = |name: &str| (name == "SSL_CERT_DIR").then(|| dirs.clone());
        let config = TrustConfig::with_env(TrustRoots::Bundled, Vec::new(), env);
        assert_eq!(config.env_dirs.len(), 2);
        let error = config.root_store().unwrap_err().to_string();
        assert!(error.contains("/nonexistent-ldwarc-dir"), "{error}");
        let config = TrustConfig {
            env_dirs: vec![dir.path().to_path_buf()],
            ..config
        };
        assert_eq!(config.root_store().unwrap().len(), bundled_count() + 1);
    }

    #[test]
    fn unusable_ca_files_are_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "hello\n").unwrap();
        for file in [missing, empty] {
            let config = TrustConfig {
                ca_files: vec![file.clone()],
                ..TrustConfig::default()
            };
            let error = config.root_store().unwrap_err().to_string();
            assert!(
                error.starts_with("--ca-file") && error.contains(&*file.to_string_lossy()),
                "{error}"
            );
        }
    }

    #[test]
    fn trust_roots_parse_by_name() {
        assert_eq!("system".parse::<TrustRoots>(), Ok(TrustRoots::System));
        assert_eq!("bundled".parse::<TrustRoots>(), Ok(TrustRoots::Bundled));
        assert!("os".parse::<TrustRoots>().unwrap_err().contains("bundled"));
    }
}
