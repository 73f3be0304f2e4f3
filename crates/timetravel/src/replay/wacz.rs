//! WACZ 1.1.1 packages (Web Archive Collection Zipped): an archive, or a selection of it,
//! as one file ReplayWeb.page opens, and WACZ files made elsewhere (browsertrix-crawler,
//! py-wacz) brought into an archive.
//!
//! A package holds `archive/` (the WARC files, stored uncompressed in the zip: they are
//! gzip already), `indexes/index.cdx.gz` and `indexes/index.idx` (the selected captures'
//! CDXJ lines, file names relative to `archive/`, in gzip blocks with a block index, as
//! py-wacz and browsertrix-crawler write them and pywb's `wb-manager add --unpack-wacz` and
//! ReplayWeb.page read them), `pages/pages.jsonl` (one line per captured document, titled from its graph
//! where it has a title), `datapackage.json` (every file with its size and SHA-256) and
//! `datapackage-digest.json` (the SHA-256 of `datapackage.json`). WARC files keep their
//! names; each resource of a WARC file also records its path under the archive's `warc/`
//! (`ldwarcPath`), so importing a package ldwarc wrote puts every file back where it was
//! and the imported archive's index equals the original's.

use ldwarc_warc::RecordType;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::Path;

use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::cdxj::cdxj_line;
use ldwarc_archive::index::query::{CdxQuery, MatchType, run_query};
use ldwarc_warc::time::parse_wayback_timestamp;

use super::{Pick, ReplayArchive, ReplayDate, is_replayable};

/// The WACZ version written.
pub const WACZ_VERSION: &str = "1.1.1";

/// CDXJ lines per gzip block of `indexes/index.cdx.gz` (py-wacz's block size).
const INDEX_BLOCK_LINES: usize = 1024;

/// Predicates whose literal names a document in `pages.jsonl`, most specific first.
const TITLE_PREDICATES: &[&str] = &[
    "<http://purl.org/dc/terms/title>",
    "<http://purl.org/dc/elements/1.1/title>",
    "<https://schema.org/name>",
    "<http://schema.org/name>",
    "<http://www.w3.org/2004/02/skos/core#prefLabel>",
    "<http://xmlns.com/foaf/0.1/name>",
    "<http://www.w3.org/2000/01/rdf-schema#label>",
];

/// What a package holds.
#[derive(Debug, Clone, Default)]
pub struct WaczSelection {
    /// A URL pattern as `ldwarc query` takes it (`example.org/*`, `*.example.org`, or one
    /// URL); `None`: every capture.
    pub url: Option<String>,
    /// How `url` matches (as `ldwarc query --match`); `None`: from the pattern's form.
    pub match_type: Option<MatchType>,
    /// Captures at or after this timestamp (1–14 digits, padded as pywb pads).
    pub from: Option<String>,
    /// Captures at or before this timestamp.
    pub to: Option<String>,
}

/// What [`export_wacz`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaczSummary {
    /// Captures in the package's index.
    pub captures: usize,
    /// WARC files copied.
    pub files: usize,
    /// Lines of `pages.jsonl` after its header (captured documents).
    pub pages: usize,
}

/// Writes the selected captures of `archive`, with the WARC files holding them (and the
/// originals of their revisits), as a WACZ package at `out` (written beside it, then
/// renamed: nothing is left behind on failure).
pub fn export_wacz(
    archive: &ReplayArchive,
    selection: &WaczSelection,
    out: &Path,
) -> io::Result<WaczSummary> {
    let captures = selected(archive, selection)?;
    if captures.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no capture matches the selection: nothing to package",
        ));
    }
    let originals = outside_originals(archive, &captures)?;
    let files = files_of(&captures);
    let names = zip_names(&files);
    let partial = out.with_extension("wacz.partial");
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", out.display()));
    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::metadata(dir)
        .map_err(|e| named(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))))?;
    let result = write_package(archive, &captures, &originals, &files, &names, &partial);
    match result {
        Ok(pages) => {
            fs::rename(&partial, out).map_err(named)?;
            Ok(WaczSummary {
                captures: captures.len(),
                files: files.len(),
                pages,
            })
        }
        Err(error) => {
            let _ = fs::remove_file(&partial);
            Err(error)
        }
    }
}

fn selected(archive: &ReplayArchive, selection: &WaczSelection) -> io::Result<Vec<Capture>> {
    let mut captures = Vec::new();
    match &selection.url {
        Some(url) => {
            let query = CdxQuery {
                from: selection.from.clone(),
                to: selection.to.clone(),
                match_type: selection.match_type,
                ..CdxQuery::new(url)
            };
            captures = run_query(archive.merged_index(), &query)?;
        }
        None => {
            let query = CdxQuery {
                from: selection.from.clone(),
                to: selection.to.clone(),
                ..CdxQuery::new("")
            };
            let mut all = Vec::new();
            archive
                .merged_index()
                .scan_range("", None, |c| all.push(c))?;
            captures.extend(ldwarc_archive::index::query::apply(all, &query));
        }
    }
    captures.sort_by_cached_key(cdxj_line);
    Ok(captures)
}

/// The captures of the originals of `captures`' revisits that are not among them (a selection
/// by time leaves out originals captured before it): replay tools find a revisit's payload
/// through the package's index, so these are indexed too (their files are packaged anyway).
fn outside_originals(archive: &ReplayArchive, captures: &[Capture]) -> io::Result<Vec<Capture>> {
    let inside: BTreeSet<(&str, u64)> = captures
        .iter()
        .map(|c| (c.filename.as_str(), c.offset))
        .collect();
    let mut wanted: BTreeMap<(String, u64), String> = BTreeMap::new();
    for capture in captures {
        if let Some(original) = &capture.original
            && !inside.contains(&(original.filename.as_str(), original.offset))
        {
            let url = capture.refers_to_url.as_deref().unwrap_or(&capture.url);
            wanted
                .entry((original.filename.clone(), original.offset))
                .or_insert_with(|| ldwarc_surt::surt(url));
        }
    }
    let mut found = Vec::new();
    let keys: BTreeSet<&String> = wanted.values().collect();
    for key in keys {
        for capture in archive.merged_index().lookup(key)? {
            if wanted.contains_key(&(capture.filename.clone(), capture.offset)) {
                found.push(capture);
            }
        }
    }
    Ok(found)
}

/// The WARC files (paths under `warc/`) the captures and their revisits' originals lie in.
fn files_of(captures: &[Capture]) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for capture in captures {
        files.insert(capture.filename.clone());
        if let Some(original) = &capture.original {
            files.insert(original.filename.clone());
        }
    }
    files
}

/// The name of each file inside `archive/`: its own name, made unique with a number when
/// two directories hold files of one name (WACZ readers expect `archive/` flat).
fn zip_names(files: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut taken = BTreeSet::new();
    let mut names = BTreeMap::new();
    for file in files {
        let base = file.rsplit('/').next().unwrap_or(file).to_string();
        let mut name = base.clone();
        let mut n = 1;
        while !taken.insert(name.clone()) {
            name = format!("{n}-{base}");
            n += 1;
        }
        names.insert(file.clone(), name);
    }
    names
}

/// One file of the package as `datapackage.json` lists it.
struct Resource {
    path: String,
    hash: String,
    bytes: u64,
    ldwarc_path: Option<String>,
}

/// A writer that hashes and counts what passes through it.
pub(super) struct Hashing<W> {
    pub(super) inner: W,
    pub(super) hasher: Sha256,
    pub(super) bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buffer)?;
        self.hasher.update(&buffer[..written]);
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A SHA-256 digest as WACZ spells it: `sha256:` and lower-case hex.
pub(super) fn sha256_hex(digest: impl AsRef<[u8]>) -> String {
    let mut text = String::from("sha256:");
    for byte in digest.as_ref() {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

fn zip_error(error: zip::result::ZipError) -> io::Error {
    io::Error::other(error.to_string())
}

/// Writes the package; returns the number of pages.
fn write_package(
    archive: &ReplayArchive,
    captures: &[Capture],
    originals: &[Capture],
    files: &BTreeSet<String>,
    names: &BTreeMap<String, String>,
    out: &Path,
) -> io::Result<usize> {
    let file = File::create(out)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out.display())))?;
    let mut zip = zip::ZipWriter::new(BufWriter::new(file));
    let stored = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .large_file(true);
    let deflated = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut resources = Vec::new();
    for file in files {
        let name = format!("archive/{}", names[file]);
        let path = super::warc_path(archive.root_of(file), file)?;
        zip.start_file(name.clone(), stored).map_err(zip_error)?;
        let mut hashing = Hashing {
            inner: &mut zip,
            hasher: Sha256::new(),
            bytes: 0,
        };
        io::copy(&mut BufReader::new(File::open(&path)?), &mut hashing)?;
        resources.push(Resource {
            path: name,
            hash: sha256_hex(hashing.hasher.finalize()),
            bytes: hashing.bytes,
            ldwarc_path: Some(file.clone()),
        });
    }
    let mut lines: Vec<String> = captures
        .iter()
        .chain(originals)
        .map(|capture| {
            cdxj_line(&Capture {
                filename: names[&capture.filename].clone(),
                ..capture.clone()
            })
        })
        .collect();
    lines.sort_unstable();
    let (blocks, block_index) = compressed_index(&lines)?;
    let (pages, page_count) = pages_jsonl(archive, captures);
    for (name, bytes, options) in [
        // Gzip blocks are stored as they are, as WACZ readers expect (like WARC files).
        ("indexes/index.cdx.gz", blocks, stored),
        ("indexes/index.idx", block_index.into_bytes(), deflated),
        ("pages/pages.jsonl", pages.into_bytes(), deflated),
    ] {
        zip.start_file(name, options).map_err(zip_error)?;
        zip.write_all(&bytes)?;
        resources.push(Resource {
            path: name.to_string(),
            hash: sha256_hex(Sha256::digest(&bytes)),
            bytes: bytes.len() as u64,
            ldwarc_path: None,
        });
    }
    let package = datapackage(&resources);
    zip.start_file("datapackage.json", deflated)
        .map_err(zip_error)?;
    zip.write_all(package.as_bytes())?;
    let digest = json!({
        "path": "datapackage.json",
        "hash": sha256_hex(Sha256::digest(package.as_bytes())),
    });
    zip.start_file("datapackage-digest.json", deflated)
        .map_err(zip_error)?;
    zip.write_all(serde_json::to_string_pretty(&digest)?.as_bytes())?;
    zip.finish().map_err(zip_error)?.flush()?;
    Ok(page_count)
}

/// The sorted CDXJ `lines` as a compressed index: `index.cdx.gz`, a gzip member per block
/// of [`INDEX_BLOCK_LINES`] lines (read whole, it is the plain CDXJ file), and `index.idx`,
/// a `!meta` line, then per block its first line's key and time with its offset, length and
/// SHA-256 in `index.cdx.gz` (the `cdxj-gzip-1.0` layout py-wacz writes).
fn compressed_index(lines: &[String]) -> io::Result<(Vec<u8>, String)> {
    let mut blocks = Vec::new();
    let mut block_index =
        String::from("!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"index.cdx.gz\"}\n");
    for block in lines.chunks(INDEX_BLOCK_LINES) {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for line in block {
            encoder.write_all(line.as_bytes())?;
            encoder.write_all(b"\n")?;
        }
        let member = encoder.finish()?;
        let prefix = block[0].split('{').next().unwrap_or("").trim();
        block_index.push_str(&format!(
            "{prefix} {{\"offset\": {}, \"length\": {}, \"digest\": \"{}\"}}\n",
            blocks.len(),
            member.len(),
            sha256_hex(Sha256::digest(&member))
        ));
        blocks.extend_from_slice(&member);
    }
    Ok((blocks, block_index))
}

fn datapackage(resources: &[Resource]) -> String {
    let resources: Vec<Value> = resources
        .iter()
        .map(|r| {
            let mut entry = json!({
                "name": r.path.rsplit('/').next().unwrap_or(&r.path).to_lowercase(),
                "path": r.path,
                "hash": r.hash,
                "bytes": r.bytes,
            });
            if let Some(path) = &r.ldwarc_path {
                entry["ldwarcPath"] = json!(path);
            }
            entry
        })
        .collect();
    let package = json!({
        "profile": "data-package",
        "resources": resources,
        "created": Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true),
        "wacz_version": WACZ_VERSION,
        "software": format!("ldwarc {}", env!("CARGO_PKG_VERSION")),
    });
    serde_json::to_string_pretty(&package).unwrap_or_default()
}

/// `pages.jsonl`: the header line, then each captured document (a URL with a successful
/// replayable capture) at its first capture, titled from its latest graph when it has one.
fn pages_jsonl(archive: &ReplayArchive, captures: &[Capture]) -> (String, usize) {
    let mut first: BTreeMap<&str, &Capture> = BTreeMap::new();
    // A revisit of a successful answer (a 304 to a conditional request) shows that document too.
    let shows_a_document = |c: &Capture| {
        is_replayable(c)
            && (c.status.is_some_and(|s| (200..300).contains(&s))
                || (c.record_type == RecordType::Revisit
                    && c.status == Some(304)
                    && c.original.is_some()))
    };
    for capture in captures.iter().filter(|c| shows_a_document(c)) {
        let entry = first.entry(capture.url.as_str()).or_insert(capture);
        if capture.timestamp < entry.timestamp {
            *entry = capture;
        }
    }
    let mut text =
        json!({"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}).to_string();
    text.push('\n');
    for (url, capture) in &first {
        let ts = parse_wayback_timestamp(&capture.timestamp)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
            .unwrap_or_default();
        // A stable id per document (WACZ pages carry one; table validators need a column
        // the header line also has).
        let id = sha256_hex(Sha256::digest(url.as_bytes()));
        let mut line = json!({"id": &id["sha256:".len()..][..32], "url": url, "ts": ts});
        if let Some(title) = title_of(archive, url) {
            line["title"] = json!(title);
        }
        text.push_str(&line.to_string());
        text.push('\n');
    }
    (text, first.len())
}

/// The title a document's latest graph gives itself (or, failing that, anything in it).
fn title_of(archive: &ReplayArchive, url: &str) -> Option<String> {
    let date = ReplayDate::parse("29991231235959").ok()?;
    let document = archive.document(url, &date, Pick::Before).ok()?;
    let graph = &document.parsed.graph;
    let subject = graph.id_of(&format!("<{url}>"));
    let mut best: Option<(bool, usize, String)> = None;
    for quad in graph.quads() {
        let Some(rank) = TITLE_PREDICATES
            .iter()
            .position(|p| graph.id_of(p) == Some(quad.predicate))
        else {
            continue;
        };
        let Some(text) = literal_text(graph.term(quad.object)) else {
            continue;
        };
        let candidate = (Some(quad.subject) != subject, rank, text);
        if best.as_ref().is_none_or(|b| candidate < *b) {
            best = Some(candidate);
        }
    }
    best.map(|(_, _, text)| text)
}

/// The lexical form of a literal in N-Triples spelling (`"…"`, `"…"@en`, `"…"^^<…>`).
fn literal_text(spelling: &str) -> Option<String> {
    let rest = spelling.strip_prefix('"')?;
    let end = rest.rfind('"')?;
    let mut text = String::new();
    let mut chars = rest[..end].chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => text.push('\n'),
            Some('t') => text.push('\t'),
            Some('r') => text.push('\r'),
            Some(other) => text.push(other),
            None => {}
        }
    }
    Some(text)
}

pub use super::wacz_import::{MAX_INFLATION, WaczImport, import_wacz};

/// The WACZ versions [`import_wacz`] reads: all 1.x packages share the layout it reads
/// (`archive/`, and `datapackage.json` listing every file with its hash).
pub const SUPPORTED_VERSIONS: &[&str] = &["1.0.0", "1.1.0", "1.1.1"];

/// The DER prefix of a P-256 public key in SubjectPublicKeyInfo form (ecPublicKey,
/// prime256v1, a 66-byte bit string holding the 65-byte uncompressed point).
const P256_SPKI_PREFIX: &[u8] = &[
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// Checks the `signedData` of `datapackage-digest.json` (WACZ Signing and Verification
/// 0.1.0) against `hash`, the SHA-256 of `datapackage.json`. An anonymous signature (an
/// ECDSA P-256 `publicKey`) is verified: a signature that does not verify refuses the
/// package. A domain signature (`domain`, `domainCert`) is reported present but not
/// verified: ldwarc does not check certificate chains. Returns what to tell the user,
/// `None` for an unsigned package.
pub fn check_signature(digest: &Value, hash: &str) -> Result<Option<String>, String> {
    let Some(signed) = digest.get("signedData").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    if signed["hash"].as_str() != Some(hash) {
        return Err(format!(
            "the signature (signedData) is of another datapackage.json (hash {}, the package's \
             is {hash})",
            signed["hash"]
        ));
    }
    if let Some(domain) = signed["domain"].as_str() {
        return Ok(Some(format!(
            "signed for the domain {domain}: the signature is present and NOT verified (ldwarc \
             does not check domain certificate chains)"
        )));
    }
    let decode = |name: &str| {
        let text = signed[name]
            .as_str()
            .ok_or_else(|| format!("signedData has no {name}"))?;
        data_encoding::BASE64
            .decode(text.trim().as_bytes())
            .map_err(|e| format!("signedData {name} is not Base64: {e}"))
    };
    let public_key = decode("publicKey")?;
    let signature = decode("signature")?;
    let point = match public_key.strip_prefix(P256_SPKI_PREFIX) {
        Some(point) if point.len() == 65 => point,
        _ if public_key.len() == 65 && public_key[0] == 4 => &public_key[..],
        _ => return Err("signedData publicKey is not an ECDSA P-256 public key".to_string()),
    };
    // WebCrypto signs as r‖s (64 bytes); other signers write an ASN.1 DER signature.
    let algorithm = if signature.len() == 64 {
        &ring::signature::ECDSA_P256_SHA256_FIXED
    } else {
        &ring::signature::ECDSA_P256_SHA256_ASN1
    };
    ring::signature::UnparsedPublicKey::new(algorithm, point)
        .verify(hash.as_bytes(), &signature)
        .map_err(|_| {
            "the signature of datapackage.json does not verify with its publicKey".to_string()
        })?;
    let fingerprint = sha256_hex(Sha256::digest(&public_key));
    Ok(Some(format!(
        "anonymous signature verified (ECDSA P-256, public key {})",
        &fingerprint[..7 + 16]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_paths() {
        assert_eq!(literal_text("\"Berlin\"@de").as_deref(), Some("Berlin"));
        assert_eq!(
            literal_text("\"a \\\"b\\\"\"^^<http://x>").as_deref(),
            Some("a \"b\"")
        );
        assert_eq!(literal_text("<http://x>"), None);
    }

    #[test]
    fn archive_names_are_flat_and_unique() {
        let files: BTreeSet<String> = ["a/x.warc.gz", "b/x.warc.gz", "b/y.warc.gz"]
            .into_iter()
            .map(String::from)
            .collect();
        let names = zip_names(&files);
        let values: BTreeSet<&String> = names.values().collect();
        assert_eq!(values.len(), 3);
        assert!(names.values().all(|n| !n.contains('/')));
    }
}
