//! An ldwarc archive root that is a folder or an `s3://BUCKET/PREFIX` URL.
//!
//! An object-store archive keeps its WARC files under `PREFIX/warc/` in the bucket, in the same
//! layout as a folder's `warc/`. Commands that read an archive are given a local folder that
//! stands for it: a cache directory (see [`cache_dir`]) whose `warc/` mirrors the bucket's,
//! fetched with ranged GETs of [`CHUNK`] bytes, each pinned to the object's ETag (an object
//! replaced under the reader fails the read rather than mixing two versions), with retries and
//! back-off on 5xx, throttling and timeouts. The capture index is built in that folder's
//! `index/` by the ordinary code, so every reader works on it unchanged. A listing that differs
//! from the one the cache was filled from (an object added, replaced or removed) refreshes the
//! cache before the command reads it.
//!
//! Credentials, region and endpoint come from the standard places, read in this order: the
//! variables `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`
//! (or `AWS_DEFAULT_REGION`), `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`), then the profile
//! `AWS_PROFILE` (default `default`) of `~/.aws/credentials` and `~/.aws/config` (or the files
//! named by `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE`).

mod profile;
mod url;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectStore, RetryConfig};
use serde::{Deserialize, Serialize};

pub use crate::url::S3Url;

/// The size of one ranged GET when a WARC file is fetched: large enough that neighbouring
/// records come in one request, small enough that a retried request repeats little.
pub const CHUNK: u64 = 8 * 1024 * 1024;

/// How many times one ranged GET is tried again when its body breaks off part-way (the client
/// itself retries failed requests; a body that stops after its headers is retried here).
const BODY_RETRIES: usize = 3;

/// The file in a cache directory that records which object versions its `warc/` holds.
const MANIFEST: &str = "s3-objects.json";

/// A failure to reach or read an object-store archive, as one line naming the URL (and, for a
/// missing setting, the variables that were read).
#[derive(Debug)]
pub struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(error: Error) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, error.0)
    }
}

/// Whether a `--root` argument names an object-store archive rather than a folder.
pub fn is_object_root(root: &Path) -> bool {
    root.to_str().is_some_and(|text| text.starts_with("s3://"))
}

/// The connection settings of one bucket, gathered from the environment and profile files.
#[derive(Debug, Clone)]
struct Settings {
    access_key_id: String,
    secret_access_key: String,
    session_token: Option<String>,
    region: String,
    endpoint: Option<String>,
    timeout: Duration,
}

/// The variables and files the settings are read from, for error messages.
const CREDENTIAL_SOURCES: &str = "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or \
     aws_access_key_id and aws_secret_access_key in the AWS_PROFILE profile of \
     ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE)";

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

impl Settings {
    /// Reads the settings: variables first, then the profile files.
    fn read(url: &S3Url) -> Result<Settings, Error> {
        let profile = profile::Profile::read().map_err(|e| Error(format!("{url}: {e}")))?;
        let access_key_id = env("AWS_ACCESS_KEY_ID").or_else(|| profile.get("aws_access_key_id"));
        let secret_access_key =
            env("AWS_SECRET_ACCESS_KEY").or_else(|| profile.get("aws_secret_access_key"));
        let (Some(access_key_id), Some(secret_access_key)) = (access_key_id, secret_access_key)
        else {
            return Err(Error(format!(
                "{url}: no credentials: set {CREDENTIAL_SOURCES} (profile {:?} read)",
                profile.name
            )));
        };
        let session_token = env("AWS_SESSION_TOKEN").or_else(|| profile.get("aws_session_token"));
        let region = env("AWS_REGION")
            .or_else(|| env("AWS_DEFAULT_REGION"))
            .or_else(|| profile.get("region"))
            .unwrap_or_else(|| "us-east-1".to_string());
        let endpoint = env("AWS_ENDPOINT_URL_S3")
            .or_else(|| env("AWS_ENDPOINT_URL"))
            .or_else(|| profile.get("endpoint_url"));
        if let Some(endpoint) = &endpoint
            && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
        {
            return Err(Error(format!(
                "{url}: endpoint {endpoint:?} (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL) is not an \
                 http:// or https:// URL"
            )));
        }
        let timeout = match env("LDWARC_S3_TIMEOUT") {
            None => Duration::from_secs(30),
            Some(text) => match text.trim().parse::<f64>() {
                Ok(seconds) if seconds > 0.0 && seconds.is_finite() => {
                    Duration::from_secs_f64(seconds)
                }
                _ => {
                    return Err(Error(format!(
                        "LDWARC_S3_TIMEOUT={text:?}: expected a number of seconds above 0"
                    )));
                }
            },
        };
        Ok(Settings {
            access_key_id,
            secret_access_key,
            session_token,
            region,
            endpoint,
            timeout,
        })
    }

    /// The client for one bucket: path-style requests to a custom endpoint (most
    /// S3-compatible servers do not resolve bucket host names), plain HTTP only when the
    /// endpoint says `http://`.
    fn client(&self, url: &S3Url) -> Result<Arc<dyn ObjectStore>, Error> {
        // HTTPS through rustls with ring, the crawler's provider (reqwest is built without
        // one of its own); an error only means a provider is installed already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut options = ClientOptions::new()
            .with_timeout(self.timeout)
            .with_connect_timeout(self.timeout.min(Duration::from_secs(10)));
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&url.bucket)
            .with_region(&self.region)
            .with_access_key_id(&self.access_key_id)
            .with_secret_access_key(&self.secret_access_key)
            .with_retry(RetryConfig {
                backoff: BackoffConfig {
                    init_backoff: Duration::from_millis(100),
                    max_backoff: Duration::from_secs(5),
                    base: 2.0,
                },
                max_retries: 6,
                retry_timeout: Duration::from_secs(120),
            });
        if let Some(token) = &self.session_token {
            builder = builder.with_token(token);
        }
        if let Some(endpoint) = &self.endpoint {
            options = options.with_allow_http(endpoint.starts_with("http://"));
            builder = builder
                .with_endpoint(endpoint.trim_end_matches('/'))
                .with_virtual_hosted_style_request(false);
        }
        builder
            .with_client_options(options)
            .build()
            .map(|store| Arc::new(store) as Arc<dyn ObjectStore>)
            .map_err(|e| Error(format!("{url}: {}", one_line(&e.to_string()))))
    }
}

/// An error text on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The version of one object the cache holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Held {
    size: u64,
    etag: Option<String>,
}

/// What a cache directory's `warc/` holds: object key (below the prefix) to version.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    url: String,
    objects: BTreeMap<String, Held>,
}

/// The cache directory of an object-store archive: `LDWARC_S3_CACHE` if set, else
/// `$XDG_CACHE_HOME/ldwarc/s3` (`~/.cache/ldwarc/s3`), then `BUCKET/HASH` where HASH names the
/// endpoint and prefix (two servers' buckets of one name never share a cache).
pub fn cache_dir(url: &S3Url) -> Result<PathBuf, Error> {
    let base = if let Some(dir) = env("LDWARC_S3_CACHE") {
        PathBuf::from(dir)
    } else if let Some(dir) = env("XDG_CACHE_HOME") {
        PathBuf::from(dir).join("ldwarc").join("s3")
    } else if let Some(home) = env("HOME") {
        PathBuf::from(home).join(".cache").join("ldwarc").join("s3")
    } else {
        return Err(Error(format!(
            "{url}: no cache directory: set LDWARC_S3_CACHE, XDG_CACHE_HOME or HOME"
        )));
    };
    let endpoint = env("AWS_ENDPOINT_URL_S3")
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .unwrap_or_default();
    let hash = <sha1::Sha1 as sha1::Digest>::digest(format!("{endpoint}\n{}", url.prefix));
    let name = data_encoding::HEXLOWER.encode(&hash[..8]);
    Ok(base.join(&url.bucket).join(name))
}

/// Makes the local folder that stands for the object-store archive `url` current and
/// returns it: lists `PREFIX/warc/`, fetches the objects the cache does not hold in that
/// version, removes the ones no longer listed. Nothing is created, locally or in the bucket,
/// when the bucket cannot be listed or holds no `warc/` objects.
pub fn open_root(url: &S3Url) -> Result<PathBuf, Error> {
    let settings = Settings::read(url)?;
    let store = settings.client(url)?;
    let cache = cache_dir(url)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error(format!("{url}: cannot start the I/O runtime: {e}")))?;
    runtime.block_on(sync(url, store.as_ref(), &cache))?;
    Ok(cache)
}

/// The key prefix of the archive's WARC files.
fn warc_prefix(url: &S3Url) -> ObjectPath {
    if url.prefix.is_empty() {
        ObjectPath::from("warc")
    } else {
        ObjectPath::from(format!("{}/warc", url.prefix))
    }
}

async fn sync(url: &S3Url, store: &dyn ObjectStore, cache: &Path) -> Result<(), Error> {
    let prefix = warc_prefix(url);
    let mut listing = store.list(Some(&prefix));
    // Local name (the key below `warc/`, as written) to version and the key as listed.
    let mut listed: BTreeMap<String, (Held, ObjectPath)> = BTreeMap::new();
    while let Some(meta) = listing.next().await {
        let meta = meta.map_err(|e| describe(url, "listing warc/", &e))?;
        let Some(relative) = meta
            .location
            .as_ref()
            .strip_prefix(prefix.as_ref())
            .and_then(|rest| rest.strip_prefix('/'))
        else {
            continue;
        };
        // The listed key is percent-encoded where S3 keys hold other characters than a path
        // does (non-ASCII host names): the local file takes the key as written.
        let relative = percent_decode(relative);
        // A key that would leave the cache folder is not an archive file.
        if relative
            .split('/')
            .any(|part| part == ".." || part.is_empty())
        {
            tracing::warn!(key = %meta.location, "object key skipped: not a relative file name");
            continue;
        }
        let held = Held {
            size: meta.size,
            etag: meta.e_tag,
        };
        listed.insert(relative, (held, meta.location));
    }
    if listed.is_empty() {
        return Err(Error(format!(
            "archive root {url}: not an archive (no objects under {prefix}/)"
        )));
    }
    let warc_dir = cache.join("warc");
    std::fs::create_dir_all(&warc_dir)
        .map_err(|e| Error(format!("cache {}: {e}", warc_dir.display())))?;
    let manifest_path = cache.join(MANIFEST);
    let mut manifest: Manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    manifest.url = url.to_string();
    // Removed or replaced objects leave the manifest before their files change, so a run
    // stopped part-way never trusts a file it was replacing.
    let stale: Vec<String> = manifest
        .objects
        .iter()
        .filter(|(key, held)| listed.get(*key).map(|(listed, _)| listed) != Some(held))
        .map(|(key, _)| key.clone())
        .collect();
    for key in &stale {
        manifest.objects.remove(key);
        if !listed.contains_key(key) {
            let file = warc_dir.join(key);
            match std::fs::remove_file(&file) {
                Ok(()) => {
                    tracing::info!(file = %file.display(), "cache: object removed from the bucket")
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error(format!("cache {}: {e}", file.display()))),
            }
        }
    }
    if !stale.is_empty() {
        write_manifest(&manifest_path, &manifest)?;
    }
    for (key, (held, location)) in &listed {
        let file = warc_dir.join(key);
        let current = manifest.objects.get(key) == Some(held)
            && std::fs::metadata(&file).is_ok_and(|m| m.len() == held.size);
        if current {
            continue;
        }
        fetch(url, store, location, held, &file).await?;
        manifest.objects.insert(key.clone(), held.clone());
        write_manifest(&manifest_path, &manifest)?;
    }
    Ok(())
}

fn write_manifest(path: &Path, manifest: &Manifest) -> Result<(), Error> {
    let bytes = serde_json::to_vec_pretty(manifest).expect("a manifest serialises");
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| Error(format!("cache {}: {e}", path.display())))
}

/// One line for a failed request, naming the URL and what was being done.
fn describe(url: &S3Url, doing: &str, error: &object_store::Error) -> Error {
    let text = one_line(&error.to_string());
    let hint = if text.contains("NoSuchBucket") {
        format!(" (no bucket {:?} at this endpoint)", url.bucket)
    } else if text.contains("InvalidAccessKeyId") || text.contains("SignatureDoesNotMatch") {
        " (credentials refused: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)".to_string()
    } else {
        String::new()
    };
    Error(format!("{url}: {doing}: {text}{hint}"))
}

/// Copies one object into `file` with ranged GETs of [`CHUNK`] bytes, each pinned to the
/// listed ETag; the file appears only whole (written beside it, then renamed).
async fn fetch(
    url: &S3Url,
    store: &dyn ObjectStore,
    location: &ObjectPath,
    held: &Held,
    file: &Path,
) -> Result<(), Error> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error(format!("cache {}: {e}", parent.display())))?;
    }
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("object");
    let partial = file.with_file_name(format!(".{name}.{}.part", std::process::id()));
    let result = fetch_into(url, store, location, held, &partial).await;
    match result {
        Ok(()) => std::fs::rename(&partial, file)
            .map_err(|e| Error(format!("cache {}: {e}", file.display()))),
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            Err(error)
        }
    }
}

async fn fetch_into(
    url: &S3Url,
    store: &dyn ObjectStore,
    location: &ObjectPath,
    held: &Held,
    partial: &Path,
) -> Result<(), Error> {
    let mut out = std::fs::File::create(partial)
        .map_err(|e| Error(format!("cache {}: {e}", partial.display())))?;
    let what = format!("s3://{}/{location}", url.bucket);
    let mut start = 0u64;
    tracing::debug!(object = %what, size = held.size, "fetching");
    while start < held.size {
        let end = (start + CHUNK).min(held.size);
        let bytes = get_range(url, store, location, held, start..end).await?;
        if bytes.len() as u64 != end - start {
            return Err(Error(format!(
                "{what}: bytes {start}..{end}: {} bytes came back",
                bytes.len()
            )));
        }
        out.write_all(&bytes)
            .map_err(|e| Error(format!("cache {}: {e}", partial.display())))?;
        start = end;
    }
    out.sync_all()
        .map_err(|e| Error(format!("cache {}: {e}", partial.display())))
}

/// One ranged GET pinned to the listed ETag, its body read again when it breaks off.
async fn get_range(
    url: &S3Url,
    store: &dyn ObjectStore,
    location: &ObjectPath,
    held: &Held,
    range: std::ops::Range<u64>,
) -> Result<Vec<u8>, Error> {
    let what = format!("s3://{}/{location}", url.bucket);
    let mut attempt = 0;
    loop {
        let options = GetOptions {
            if_match: held.etag.clone(),
            range: Some(GetRange::Bounded(range.clone())),
            ..GetOptions::default()
        };
        let result = match store.get_opts(location, options).await {
            Ok(result) => result,
            Err(object_store::Error::Precondition { .. }) => {
                return Err(Error(format!(
                    "{what}: the object was replaced while it was read (ETag {} no longer \
                     matches); run the command again",
                    held.etag.as_deref().unwrap_or("?")
                )));
            }
            Err(error) => {
                return Err(describe(
                    url,
                    &format!("reading {location} bytes {}..{}", range.start, range.end),
                    &error,
                ));
            }
        };
        match result.bytes().await {
            Ok(bytes) => return Ok(bytes.to_vec()),
            Err(error) if attempt < BODY_RETRIES => {
                attempt += 1;
                tracing::warn!(object = %what, %error, attempt, "body broke off; reading again");
                tokio::time::sleep(Duration::from_millis(200 * attempt as u64)).await;
            }
            Err(error) => {
                return Err(describe(
                    url,
                    &format!("reading {location} bytes {}..{}", range.start, range.end),
                    &error,
                ));
            }
        }
    }
}

/// `%XX` escapes decoded (invalid escapes kept as written; bytes that are not UTF-8 replaced).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn listed_keys_are_decoded() {
        assert_eq!(
            percent_decode("2023/%E4%BE%8B%E3%81%88.jp/a.warc.gz"),
            "2023/例え.jp/a.warc.gz"
        );
        assert_eq!(percent_decode("100%25/x%2"), "100%/x%2");
    }
}
