//! URL@date resolution: which capture of a URL answers for a date, revisits resolved to their
//! original payload, archived redirects followed to their target's capture for that date, and
//! the payload parsed into a graph with JSON-LD contexts taken from the archive.

use ldwarc_warc::RecordType;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ldwarc_archive::index::indexer::original_in_index;
use ldwarc_archive::index::query::{CdxQuery, MatchType, key_range, run_query};
use ldwarc_archive::index::{Capture, CaptureIndex, MergedIndex, RecordLocation};
use ldwarc_rdf::{
    ContextSource, EmbeddedSyntaxes, PageOptions, ParsedGraph, SNIFF_LEN, charset_parameter,
    choose_syntaxes, parse_graph_with,
};
use ldwarc_warc::time::parse_wayback_timestamp;

use super::date::ReplayDate;
use super::error::ReplayError;
use super::record::{ArchivedResponse, OpenWarcFiles, read_response};

/// Redirect chains longer than this are reported instead of followed.
pub const MAX_REDIRECTS: usize = 10;

/// The largest payload replay reads into memory (and the largest decoded document it parses).
pub const MAX_PAYLOAD_BYTES: usize = 1 << 30;

/// Record types whose captures stand for what a URL answered.
const REPLAYABLE_TYPES: &[RecordType] = &[
    RecordType::Response,
    RecordType::Revisit,
    RecordType::Resource,
];

/// Which capture answers for a date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pick {
    /// The latest capture at or before the date: what the archive knew then.
    #[default]
    Before,
    /// The capture nearest to the date on either side, as pywb picks (the earlier capture
    /// wins ties).
    Closest,
}

impl FromStr for Pick {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "before" => Ok(Pick::Before),
            "closest" => Ok(Pick::Closest),
            other => Err(format!("{other:?}: expected before or closest")),
        }
    }
}

/// A URL resolved for a date: the redirects followed and the capture that answered.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The archived redirects followed, in order (empty when the URL answered directly).
    pub redirects: Vec<Capture>,
    /// The capture whose payload is the document.
    pub capture: Capture,
}

/// A replayed document.
#[derive(Clone, Debug)]
pub struct Document {
    /// How the URL was resolved.
    pub resolution: Resolution,
    /// The archived response carrying the payload (for a revisit, its original's).
    pub response: ArchivedResponse,
    /// The graph parsed from the payload.
    pub parsed: ParsedGraph,
}

impl Document {
    /// The URL of the document the graph came from (the redirect target, if any).
    pub fn url(&self) -> &str {
        &self.resolution.capture.url
    }
}

/// An archive opened for replay: one root, or several roots answered as one archive (see
/// [`MergedIndex`] for how their captures merge and which root a file is read from).
pub struct ReplayArchive {
    index: MergedIndex,
    page: PageOptions,
}

impl ReplayArchive {
    /// Keeps only these embedded syntaxes of archived pages (all by default).
    pub fn with_embedded_syntaxes(mut self, syntaxes: EmbeddedSyntaxes) -> ReplayArchive {
        self.page.syntaxes = syntaxes;
        self
    }

    /// Opens the capture index under `<root>/index`.
    pub fn open(root: &Path) -> Result<ReplayArchive, ReplayError> {
        ReplayArchive::open_many(&[root.to_path_buf()])
    }

    /// Opens several roots as one archive: every root's `<root>/index`, merged by urlkey,
    /// time and then the order given (a capture held by two roots counts once, from the
    /// first). Fails when a root has no index, or when one WARC file name is in two roots
    /// with different content.
    pub fn open_many(roots: &[PathBuf]) -> Result<ReplayArchive, ReplayError> {
        for root in roots {
            ldwarc_archive::archive::require_index(root).map_err(ReplayError::from_io)?;
        }
        let index = MergedIndex::open(roots).map_err(ReplayError::io)?;
        Ok(ReplayArchive {
            index,
            page: PageOptions::default(),
        })
    }

    /// The archive root (the first one given, when there are several: see
    /// [`ReplayArchive::root_of`] for the root of a capture's file).
    pub fn root(&self) -> &Path {
        self.index.roots().next().unwrap_or(Path::new("."))
    }

    /// Every root, in the order given.
    pub fn roots(&self) -> Vec<&Path> {
        self.index.roots().collect()
    }

    /// The root whose `warc/` holds `filename` (a capture's or a revisit original's file).
    pub fn root_of(&self, filename: &str) -> &Path {
        self.index.root_of(filename)
    }

    /// The first root's capture index (the whole archive when there is one root; use
    /// [`ReplayArchive::merged_index`] to see every root).
    pub fn index(&self) -> &CaptureIndex {
        self.index.first()
    }

    /// The captures of every root, merged.
    pub fn merged_index(&self) -> &MergedIndex {
        &self.index
    }

    /// Reloads every root's index to see its latest commit.
    pub fn reload(&self) -> Result<(), ReplayError> {
        self.index.reload().map_err(ReplayError::io)
    }

    /// The captures of exactly `url` (case-sensitive beyond the SURT) that stand for an
    /// answer (responses, revisits, resources), oldest first.
    pub fn captures(&self, url: &str) -> Result<Vec<Capture>, ReplayError> {
        let mut captures = run_query(&self.index, &CdxQuery::new(url)).map_err(ReplayError::io)?;
        captures.retain(is_replayable);
        let mut captures = super::own_captures(url, captures);
        sort_by_time(&mut captures);
        Ok(captures)
    }

    /// The capture of `url` that answers for `date`.
    pub fn pick(&self, url: &str, date: &ReplayDate, pick: Pick) -> Result<Capture, ReplayError> {
        let captures = self.captures(url)?;
        if captures.is_empty() {
            return Err(ReplayError::NeverCaptured {
                url: url.to_string(),
                nearby: self.nearby_urls(url, 5),
            });
        }
        pick_capture(&captures, date, pick)
            .cloned()
            .ok_or_else(|| ReplayError::NoCaptureAt {
                url: url.to_string(),
                date: date.timestamp(),
                first: captures
                    .iter()
                    .take(3)
                    .map(|c| c.timestamp.clone())
                    .collect(),
            })
    }

    /// Resolves `url` for `date`, following archived redirects (each hop picked for the same
    /// date) up to [`MAX_REDIRECTS`].
    pub fn resolve(
        &self,
        url: &str,
        date: &ReplayDate,
        pick: Pick,
    ) -> Result<Resolution, ReplayError> {
        let mut redirects = Vec::new();
        let mut visited = HashSet::new();
        let mut current = url.to_string();
        loop {
            if !visited.insert(current.clone()) {
                return Err(ReplayError::Redirects {
                    url: url.to_string(),
                    detail: format!("redirect cycle through {current}"),
                });
            }
            let capture = self.pick(&current, date, pick)?;
            let Some(target) = redirect_target(&capture) else {
                return Ok(Resolution { redirects, capture });
            };
            if redirects.len() >= MAX_REDIRECTS {
                return Err(ReplayError::Redirects {
                    url: url.to_string(),
                    detail: format!("more than {MAX_REDIRECTS} redirects"),
                });
            }
            redirects.push(capture);
            current = target;
        }
    }

    /// The archived response behind a capture: its own record, or for a revisit the original
    /// it refers to (whose head describes the payload bytes).
    pub fn response(&self, capture: &Capture) -> Result<ArchivedResponse, ReplayError> {
        let (filename, offset, _) = self.response_location(capture)?;
        read_response(
            self.root_of(&filename),
            &filename,
            offset,
            MAX_PAYLOAD_BYTES,
        )
        .map_err(ReplayError::io)
    }

    /// [`ReplayArchive::response`] for one of many reads in a scan, through files it keeps
    /// open.
    pub fn response_in(
        &self,
        files: &OpenWarcFiles,
        capture: &Capture,
    ) -> Result<ArchivedResponse, ReplayError> {
        let (filename, offset, length) = self.response_location(capture)?;
        files
            .read_response(
                self.root_of(&filename),
                &filename,
                (offset, length),
                MAX_PAYLOAD_BYTES,
            )
            .map_err(ReplayError::io)
    }

    /// The file, offset and stored length (0 if not known) of the record holding a
    /// capture's response (a revisit's original).
    pub(crate) fn response_location(
        &self,
        capture: &Capture,
    ) -> Result<(String, u64, u64), ReplayError> {
        let location = if capture.record_type == RecordType::Revisit {
            self.original_location(capture)?
        } else {
            RecordLocation {
                filename: capture.filename.clone(),
                offset: capture.offset,
                length: capture.length,
            }
        };
        Ok((location.filename, location.offset, location.length))
    }

    /// The document `url` was at `date`: resolved, checked to be a successful answer, parsed.
    pub fn document(
        &self,
        url: &str,
        date: &ReplayDate,
        pick: Pick,
    ) -> Result<Document, ReplayError> {
        let resolution = self.resolve(url, date, pick)?;
        self.document_of(resolution)
    }

    /// The document of a resolved capture.
    pub fn document_of(&self, resolution: Resolution) -> Result<Document, ReplayError> {
        let capture = &resolution.capture;
        let response = self.response(capture)?;
        let status = response.head.status.or(capture.status);
        if !status.is_some_and(|s| (200..300).contains(&s)) {
            return Err(ReplayError::Status {
                url: capture.url.clone(),
                timestamp: capture.timestamp.clone(),
                status,
            });
        }
        let parsed = self.parse(capture, &response)?;
        Ok(Document {
            resolution,
            response,
            parsed,
        })
    }

    /// Parses an archived payload by its `Content-Type` (sniffing when that is missing or
    /// generic), with JSON-LD contexts from the archive as of the capture's time.
    pub fn parse(
        &self,
        capture: &Capture,
        response: &ArchivedResponse,
    ) -> Result<ParsedGraph, ReplayError> {
        let body = decoded_payload(capture, response)?;
        let content_type = response.head.header("content-type");
        let prefix = &body[..body.len().min(SNIFF_LEN)];
        let syntaxes = choose_syntaxes(content_type, prefix);
        if syntaxes.is_empty() {
            return Err(ReplayError::NotRdf {
                url: capture.url.clone(),
                timestamp: capture.timestamp.clone(),
                content_type: content_type.unwrap_or("none").to_string(),
            });
        }
        let at = parse_wayback_timestamp(&capture.timestamp)
            .map(ReplayDate::from_instant)
            .ok_or_else(|| ReplayError::io(format!("bad capture time {}", capture.timestamp)))?;
        let contexts = ArchiveContexts {
            archive: self,
            date: at,
        };
        // A page is decoded by the charset its Content-Type names, before what it declares.
        let page = PageOptions {
            charset: content_type.and_then(charset_parameter),
            ..self.page.clone()
        };
        parse_graph_with(&body, &syntaxes, &capture.url, &contexts, &page).map_err(ReplayError::Rdf)
    }

    /// Why the JSON-LD context at `url` did not serve the document captured as `document`
    /// (it was treated as empty), as a phrase for messages: `is not in the archive`, or what
    /// the copy that parsing used was (`was captured at … but is not JSON: …`).
    pub fn context_trouble(&self, url: &str, document: &Capture) -> String {
        let missing = || "is not in the archive".to_string();
        let Some(at) = parse_wayback_timestamp(&document.timestamp) else {
            return missing();
        };
        let date = ReplayDate::from_instant(at);
        let Ok(resolution) = self
            .resolve(url, &date, Pick::Before)
            .or_else(|_| self.resolve(url, &date, Pick::Closest))
        else {
            return missing();
        };
        let capture = &resolution.capture;
        let captured = parse_wayback_timestamp(&capture.timestamp).map_or_else(
            || capture.timestamp.clone(),
            |time| time.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        );
        let response = match self.response(capture) {
            Ok(response) => response,
            Err(error) => return format!("was captured at {captured} but cannot be read: {error}"),
        };
        match response.head.status {
            Some(status) if !(200..300).contains(&status) => {
                return format!("was captured at {captured} with status {status}, not a context");
            }
            _ => {}
        }
        let problem = match decoded_payload(capture, &response) {
            Ok(bytes) => ldwarc_rdf::context_problem(&bytes),
            Err(error) => Some(format!("not decodable: {error}")),
        };
        match problem {
            Some(problem) => format!("was captured at {captured} but is {problem}"),
            None => format!("was captured at {captured} but could not be used"),
        }
    }

    /// Where a revisit's original payload lies: as the index resolved it, else found by the
    /// indexer's rules ([`original_in_index`]) in every root, since a node's revisit may
    /// refer to a capture another node made.
    fn original_location(&self, revisit: &Capture) -> Result<RecordLocation, ReplayError> {
        if let Some(original) = &revisit.original {
            return Ok(original.clone());
        }
        let found = original_in_index(&self.index, revisit).map_err(ReplayError::io)?;
        match found {
            Some(location) => Ok(location),
            None => self.original_by_refers_to(revisit),
        }
    }

    /// The original a revisit names by `WARC-Refers-To-Target-URI`, payload digest and
    /// (when given) `WARC-Refers-To-Date` exactly.
    fn original_by_refers_to(&self, revisit: &Capture) -> Result<RecordLocation, ReplayError> {
        let unresolved = || ReplayError::UnresolvedRevisit {
            url: revisit.url.clone(),
            timestamp: revisit.timestamp.clone(),
        };
        let target = revisit.refers_to_url.as_deref().unwrap_or(&revisit.url);
        let candidates = run_query(&self.index, &CdxQuery::new(target)).map_err(ReplayError::io)?;
        candidates
            .into_iter()
            .filter(|c| c.record_type != RecordType::Revisit && c.digest == revisit.digest)
            .filter(|c| {
                revisit
                    .refers_to_timestamp
                    .as_ref()
                    .is_none_or(|t| *t == c.timestamp)
            })
            .map(|c| RecordLocation {
                filename: c.filename,
                offset: c.offset,
                length: c.length,
            })
            .next()
            .ok_or_else(unresolved)
    }

    /// Up to `limit` captured URLs on the same host as `url`, nearest in SURT order.
    fn nearby_urls(&self, url: &str, limit: usize) -> Vec<String> {
        let (start, end) = key_range(url, MatchType::Host);
        let mut urls: Vec<String> = Vec::new();
        let _ = self.index.scan_range(&start, Some(&end), |capture| {
            if urls.len() < 200 && is_replayable(&capture) && !urls.contains(&capture.url) {
                urls.push(capture.url);
            }
        });
        let key = ldwarc_surt::surt(url);
        urls.sort_by_key(|candidate| common_prefix_distance(&key, candidate));
        urls.truncate(limit);
        urls
    }
}

fn common_prefix_distance(key: &str, url: &str) -> usize {
    let other = ldwarc_surt::surt(url);
    let shared = key
        .bytes()
        .zip(other.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    usize::MAX - shared
}

/// Whether a capture stands for what its URL answered.
pub fn is_replayable(capture: &Capture) -> bool {
    REPLAYABLE_TYPES.contains(&capture.record_type)
}

/// Oldest first; within one second by the full-precision time, then by position on disk.
pub fn sort_by_time(captures: &mut [Capture]) {
    captures.sort_by(|a, b| {
        (&a.timestamp, a.time_micros, &a.filename, a.offset).cmp(&(
            &b.timestamp,
            b.time_micros,
            &b.filename,
            b.offset,
        ))
    });
}

/// The capture answering for `date` among `captures` (oldest first).
pub fn pick_capture<'a>(
    captures: &'a [Capture],
    date: &ReplayDate,
    pick: Pick,
) -> Option<&'a Capture> {
    let bound = date.timestamp();
    match pick {
        Pick::Before => captures.iter().rev().find(|c| c.timestamp <= bound),
        Pick::Closest => {
            let target = date.at.timestamp();
            captures.iter().min_by_key(|c| {
                let seconds = parse_wayback_timestamp(&c.timestamp)
                    .map_or(i64::MAX, |t| (t.timestamp() - target).abs());
                // min_by_key keeps the first of equal keys: the earlier capture wins ties.
                seconds
            })
        }
    }
}

/// The absolute target of an archived redirect, if the capture is one.
pub fn redirect_target(capture: &Capture) -> Option<String> {
    let status = capture.status?;
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = capture.redirect.as_deref()?;
    let base = url::Url::parse(&capture.url).ok()?;
    let mut target = base.join(location).ok()?;
    if target.fragment().is_some() {
        target.set_fragment(None);
    }
    Some(target.into())
}

/// The payload with its `Content-Encoding` undone.
fn decoded_payload(capture: &Capture, response: &ArchivedResponse) -> Result<Vec<u8>, ReplayError> {
    let encoding = response.head.header("content-encoding");
    ldwarc_rdf::decode_content(encoding, &response.payload, MAX_PAYLOAD_BYTES).map_err(|err| {
        ReplayError::Decode {
            url: capture.url.clone(),
            timestamp: capture.timestamp.clone(),
            detail: err.to_string(),
        }
    })
}

/// JSON-LD remote contexts from the archive: the context URL's capture at or before the
/// document's capture time, else the first one after it (the crawler captures a missing
/// context right after the document that needed it). Redirects are followed.
struct ArchiveContexts<'a> {
    archive: &'a ReplayArchive,
    date: ReplayDate,
}

impl ContextSource for ArchiveContexts<'_> {
    fn context(&self, url: &str) -> Option<Vec<u8>> {
        let resolution = self
            .archive
            .resolve(url, &self.date, Pick::Before)
            .or_else(|_| self.archive.resolve(url, &self.date, Pick::Closest))
            .ok()?;
        let response = self.archive.response(&resolution.capture).ok()?;
        if !response
            .head
            .status
            .is_some_and(|s| (200..300).contains(&s))
        {
            return None;
        }
        decoded_payload(&resolution.capture, &response).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(timestamp: &str, status: u16) -> Capture {
        Capture {
            urlkey: "example,)/a".into(),
            timestamp: timestamp.into(),
            time_micros: 0,
            url: "http://example/a".into(),
            mime: None,
            status: Some(status),
            digest: None,
            length: 0,
            offset: 0,
            filename: "f".into(),
            record_type: RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    fn date(text: &str) -> ReplayDate {
        ReplayDate::parse(text).unwrap()
    }

    #[test]
    fn before_takes_the_latest_at_or_before_and_closest_prefers_the_earlier_on_ties() {
        let captures = [
            capture("20240101000000", 200),
            capture("20240103000000", 200),
            capture("20240105000000", 200),
        ];
        let stamp = |c: Option<&Capture>| c.map(|c| c.timestamp.clone());
        assert_eq!(
            stamp(pick_capture(&captures, &date("20240102"), Pick::Before)),
            Some("20240101000000".into())
        );
        assert_eq!(
            stamp(pick_capture(
                &captures,
                &date("20240103000000"),
                Pick::Before
            )),
            Some("20240103000000".into())
        );
        assert_eq!(pick_capture(&captures, &date("2023"), Pick::Before), None);
        // 2024-01-02T00:00:00 lies exactly between the first two: the earlier wins.
        assert_eq!(
            stamp(pick_capture(
                &captures,
                &date("20240102000000"),
                Pick::Closest
            )),
            Some("20240101000000".into())
        );
        assert_eq!(
            stamp(pick_capture(&captures, &date("2023"), Pick::Closest)),
            Some("20240101000000".into())
        );
        assert_eq!(
            stamp(pick_capture(
                &captures,
                &date("20240104120000"),
                Pick::Closest
            )),
            Some("20240105000000".into())
        );
    }

    #[test]
    fn redirect_targets_are_absolute_and_only_for_redirect_statuses() {
        let mut redirect = capture("20240101000000", 303);
        redirect.redirect = Some("/doc/a#frag".into());
        assert_eq!(
            redirect_target(&redirect).as_deref(),
            Some("http://example/doc/a")
        );
        redirect.status = Some(200);
        assert_eq!(redirect_target(&redirect), None);
    }
}
