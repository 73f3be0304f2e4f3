//! The archiver: the one thread that writes. For every fetch it builds the records
//! (`request` + `response` or `revisit` + `metadata`), writes them, indexes them, and commits
//! the crawl log, the URL state and the frontier changes in one transaction after the WARC
//! bytes reached the operating system. A crawl killed at any point loses at most the fetch
//! in flight, and a fetch in the log is always in the archive.
//!
//! With a shared PostgreSQL store ([`CommitStore::Shared`]) every crawl-log and frontier
//! write is fenced by this node's PLD lease: a write about a PLD the node no longer holds is
//! rolled back ([`ldwarc_state::BackendError::LeaseLost`]), its WARC records staying in the
//! archive as an extra capture, and the new holder fetches the URL again. Lease releases go
//! through this thread too, so a PLD is released only after its last write committed.

mod outage;

use ldwarc_warc::RecordType;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::http::{Fetch, Response};
use ldwarc_archive::archive::{
    Archive, ArchiveWriter, ArchiveWriterOptions, OPEN_SUFFIX, StoredRecord,
};
use ldwarc_archive::index::capture::{RecordLocation, read_captures};
use ldwarc_archive::index::store::{CaptureIndex, Checkpoint, FileMark, IndexBatch};
use ldwarc_state::{
    BackendError, BackendResult, BackendTransaction, Change, FencedTransaction, FetchLogEntry,
    FrontierEntry, PgStateStore, RecordRef, StateBackend, StateStore, StoreError, UrlState,
};
use ldwarc_warc::time::format_warc_date;
use ldwarc_warc::writer::new_record_id;
use ldwarc_warc::{Block, BlockBuilder, PayloadKind, WarcHeader, profiles, record_header};

/// How often the index is committed while a crawl runs.
const INDEX_COMMIT_INTERVAL: Duration = Duration::from_secs(2);

/// Work for the archiver.
pub enum ArchiveJob {
    /// URLs to add to the crawl's frontier (seeds).
    Enqueue(Vec<FrontierEntry>),
    /// A fetch to archive and log.
    Capture(Box<CaptureJob>),
    /// A URL not fetched (robots.txt, a failure before sending): log it only.
    LogOnly {
        /// The log row.
        entry: Box<FetchLogEntry>,
        /// Mark the URL done in the frontier.
        done: bool,
    },
    /// The crawl entered a round.
    Round(u32),
    /// Shared store: give up these PLD leases, each kept from other nodes for its delay.
    Release(Vec<(String, Duration)>),
    /// Shared store: how many URLs of the crawl are queued on any node, counted after
    /// everything sent before this job committed.
    CountQueued(tokio::sync::oneshot::Sender<BackendResult<u64>>),
}

/// Where the archiver commits.
pub enum CommitStore {
    /// The embedded store of this archive (this process holds every PLD).
    Local(StateStore),
    /// A PostgreSQL store shared by many nodes; writes are fenced by `node`'s leases.
    Shared {
        /// The store (boxed: a client is much larger than the embedded store's handle).
        store: Box<PgStateStore>,
        /// This node's name, as on its leases.
        node: String,
    },
}

/// The node name fenced writes carry in the embedded store (which ignores it).
const LOCAL_NODE: &str = "local";

/// Runs `$body` with `$s` bound to the store (either kind) and `$node` to the node name.
macro_rules! on_store {
    ($store:expr, $node:ident, $s:ident => $body:expr) => {
        match $store {
            CommitStore::Local($s) => {
                let $node = LOCAL_NODE;
                $body
            }
            CommitStore::Shared { store, node } => {
                let $s: &mut PgStateStore = store;
                let $node = node.as_str();
                $body
            }
        }
    };
}

/// One fetch and what the crawler made of it.
pub struct CaptureJob {
    /// The URL requested.
    pub url: String,
    /// Its host (the archive partition's PLD comes from it).
    pub host: String,
    /// `document`, `robots` or `context`.
    pub kind: String,
    /// Crawl round.
    pub round: u32,
    /// Hops from the nearest seed.
    pub hops: u32,
    /// Where it was found.
    pub via: Option<String>,
    /// Discovery path.
    pub path: String,
    /// The fetch.
    pub fetch: Fetch,
    /// Whether the request carried `If-None-Match`/`If-Modified-Since` from this state.
    pub conditional_on: Option<UrlState>,
    /// What parsing found: syntax, triples, links.
    pub parse: Option<ParseSummary>,
    /// New URLs found in it (already deduplicated by the frontier), and known URLs it gives
    /// a shorter path to.
    pub new_urls: Vec<FrontierEntry>,
    /// Everything it leads to (`L` link, `R` redirect, `X` context, and the URL), beyond the
    /// hop limit too: a shared store keeps them for shorter paths found later.
    pub links: Vec<(String, char)>,
    /// Whether the URL is done (false when it will be retried).
    pub done: bool,
    /// An error to log besides the fetch's own (e.g. a redirect loop).
    pub note: Option<String>,
    /// Told once the capture's commit is over (or the job is dropped): a shared crawl sends
    /// no further request to the PLD before, so a hung or lost database leaves at most one
    /// fetch per PLD uncommitted for the next holder to repeat.
    pub committed: Option<CommitAck>,
}

/// Runs its action when dropped, i.e. when the archiver is done with the job whatever became
/// of it: committed, refused by a fence, failed, or never handled. The action learns whether
/// a fence refused the commit.
pub struct CommitAck {
    action: Option<Box<dyn FnOnce(bool) + Send>>,
    refused: bool,
}

impl CommitAck {
    /// An acknowledgement running `action` (given whether the commit was refused).
    pub fn new(action: impl FnOnce(bool) + Send + 'static) -> Self {
        Self {
            action: Some(Box::new(action)),
            refused: false,
        }
    }

    /// Records that a fence refused the commit: the URL is still queued in the shared
    /// frontier, for whichever node holds its PLD.
    pub fn refuse(&mut self) {
        self.refused = true;
    }
}

impl Drop for CommitAck {
    fn drop(&mut self) {
        if let Some(action) = self.action.take() {
            action(self.refused);
        }
    }
}

/// What link extraction found in a payload.
#[derive(Debug, Clone, Default)]
pub struct ParseSummary {
    /// Media type of the syntax used.
    pub syntax: Option<String>,
    /// Triples read.
    pub triples: u64,
    /// Links found.
    pub outlinks: u64,
    /// Why parsing failed or stopped.
    pub error: Option<String>,
    /// Pages only: statements per embedded syntax, e.g. `rdfa 3, microdata 0, json-ld 7 (2
    /// blocks), turtle 0 (0 blocks)`.
    pub embedded: Option<String>,
}

/// Counters the archiver keeps for progress and the summary.
#[derive(Debug, Default, Clone)]
pub struct ArchiverStats {
    /// Captures written.
    pub captures: u64,
    /// Of which revisits.
    pub revisits: u64,
    /// Payload bytes received.
    pub payload_bytes: u64,
    /// Bytes written to WARC files.
    pub warc_bytes: u64,
    /// Fetches logged as failed.
    pub failed: u64,
    /// URLs excluded by robots.txt.
    pub excluded: u64,
    /// Fetches whose log rows were refused because the PLD's lease was lost meanwhile.
    pub lease_lost: u64,
}

/// Options of the archiver.
pub struct ArchiverOptions {
    /// The archive root.
    pub root: PathBuf,
    /// WARC file naming and rotation.
    pub writer: ArchiveWriterOptions,
    /// The crawl's id in the state store.
    pub crawl: i64,
}

/// The archiver: the capture index and everything else it writes.
pub struct Archiver {
    index: CaptureIndex,
    state: ArchiverState,
}

/// The archiver's state while it runs.
struct ArchiverState {
    archive: Archive,
    writer: ArchiveWriter,
    store: CommitStore,
    checkpoint: Checkpoint,
    crawl: i64,
    pending_index: usize,
    last_commit: Instant,
    stats: ArchiverStats,
}

/// An archiver failure: the crawl cannot go on without archiving.
#[derive(Debug, thiserror::Error)]
pub enum ArchiverError {
    /// Writing WARC files failed.
    #[error("writing the archive: {0}")]
    Io(#[from] io::Error),
    /// The state store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The state store (either kind) failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
}

impl Archiver {
    /// Opens the writer (recovering files a crash left open), brings the index up to date,
    /// and opens the state store.
    pub fn open(
        options: ArchiverOptions,
        store: CommitStore,
    ) -> Result<(Self, Vec<ldwarc_archive::archive::Recovery>), ArchiverError> {
        let (writer, recoveries) = ArchiveWriter::open(&options.root, options.writer)?;
        let archive = Archive::new(&options.root);
        ldwarc_archive::index::indexer::update_index(&archive, &Default::default(), &|_, _| {})?;
        let index = CaptureIndex::open(&archive.index_dir())?;
        let checkpoint = index.checkpoint()?;
        Ok((
            Self {
                index,
                state: ArchiverState {
                    archive,
                    writer,
                    store,
                    checkpoint,
                    crawl: options.crawl,
                    pending_index: 0,
                    last_commit: Instant::now(),
                    stats: ArchiverStats::default(),
                },
            },
            recoveries,
        ))
    }

    /// Runs until the job channel closes; `on_stats` sees the counters after every job.
    /// Returns the final counters after closing every file and committing the index.
    pub fn run(
        self,
        jobs: Receiver<ArchiveJob>,
        on_stats: &dyn Fn(&ArchiverStats),
    ) -> Result<ArchiverStats, ArchiverError> {
        let Archiver { index, mut state } = self;
        let mut batch = index.batch()?;
        loop {
            match jobs.recv_timeout(INDEX_COMMIT_INTERVAL) {
                Ok(job) => {
                    state.handle(job, &mut batch)?;
                    on_stats(&state.stats);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if state.pending_index > 0 && state.last_commit.elapsed() >= INDEX_COMMIT_INTERVAL {
                state.commit_index(&mut batch)?;
            }
            state.writer.close_stale(Utc::now())?;
        }
        state.commit_index(&mut batch)?;
        batch.finish()?;
        state.writer.close()?;
        Ok(state.stats)
    }
}

impl ArchiverState {
    fn commit_index(&mut self, batch: &mut IndexBatch<'_>) -> io::Result<()> {
        batch.commit(&self.checkpoint)?;
        self.pending_index = 0;
        self.last_commit = Instant::now();
        Ok(())
    }

    fn handle(&mut self, job: ArchiveJob, batch: &mut IndexBatch<'_>) -> Result<(), ArchiverError> {
        let crawl = self.crawl;
        match job {
            ArchiveJob::Enqueue(entries) => {
                outage::retrying(&mut self.store, |store| {
                    on_store!(store, _node, s => StateBackend::transaction(s, |t| {
                        t.enqueue(crawl, &entries)
                    }))
                })?;
            }
            ArchiveJob::Round(round) => {
                // Nodes of a shared crawl each run their own rounds over their PLDs.
                if let CommitStore::Local(store) = &mut self.store {
                    store.set_round(crawl, round)?;
                }
            }
            ArchiveJob::LogOnly { entry, done } => {
                match entry.change {
                    Change::Excluded => self.stats.excluded += 1,
                    Change::Failed => self.stats.failed += 1,
                    _ => {}
                }
                let result = outage::retrying(&mut self.store, |store| {
                    on_store!(store, node, s => StateBackend::transaction(s, |t| {
                        t.log_fetch_fenced(node, crawl, &entry)?;
                        if done {
                            t.mark_done_fenced(node, crawl, &entry.url)?;
                        }
                        Ok(())
                    }))
                });
                self.lease_checked(result, None)?;
            }
            ArchiveJob::Capture(job) => self.capture(*job, batch)?,
            ArchiveJob::Release(plds) => {
                outage::retrying(&mut self.store, |store| match store {
                    CommitStore::Shared { store, node } => store.release_after(node, crawl, &plds),
                    CommitStore::Local(_) => Ok(()),
                })?;
            }
            ArchiveJob::CountQueued(reply) => {
                let count = outage::retrying(&mut self.store, |store| match store {
                    CommitStore::Shared { store, .. } => store.queued_count(crawl),
                    CommitStore::Local(store) => {
                        StateBackend::frontier(store, crawl).map(|(queued, _)| queued.len() as u64)
                    }
                });
                // The crawler may have stopped waiting; nothing to do then.
                let _ = reply.send(count);
            }
        }
        Ok(())
    }

    /// A lost lease is no failure of the crawl: the writes were rolled back, the other node
    /// fetches the URL again, and records already written (`written`) stay as an extra
    /// capture. Any other error is.
    fn lease_checked(
        &mut self,
        result: BackendResult<()>,
        written: Option<&str>,
    ) -> Result<(), ArchiverError> {
        match result {
            Err(error) if error.is_lease_lost() => {
                self.stats.lease_lost += 1;
                match written {
                    Some(file) => {
                        tracing::warn!(%error, file, "{error}; its records stay in {file}")
                    }
                    None => tracing::warn!(%error, "{error}"),
                }
                Ok(())
            }
            other => Ok(other?),
        }
    }

    fn capture(
        &mut self,
        mut job: CaptureJob,
        batch: &mut IndexBatch<'_>,
    ) -> Result<(), ArchiverError> {
        let crawl = self.crawl;
        let date = job
            .fetch
            .sent_at
            .map(|(time, _)| time)
            .unwrap_or_else(Utc::now);
        let mut entry = FetchLogEntry {
            url: job.url.clone(),
            time: date,
            round: job.round,
            hops: job.hops,
            kind: job.kind.clone(),
            status: None,
            duration: Some(job.fetch.duration),
            bytes: None,
            digest: None,
            change: Change::Failed,
            error: job.note.clone(),
            content_type: None,
            outlinks: job.parse.as_ref().map(|p| p.outlinks),
            record: None,
        };
        let mut new_state = None;
        let previous = outage::retrying(
            &mut self.store,
            |store| on_store!(store, _node, s => StateBackend::url_state(s, &job.url)),
        )?;
        let main_id = new_record_id();
        let companions = Companions {
            request: (!job.fetch.request.is_empty())
                .then(|| request_record(&job, date, &main_id))
                .transpose()?,
            metadata: metadata_record(&job, date, &main_id)?,
        };
        let ip = job.fetch.remote_addr.map(|a| a.ip().to_string());
        let conditional = job.conditional_on.is_some();
        if let Ok(response) = &mut job.fetch.outcome {
            let main = MainRecord {
                url: &job.url,
                id: main_id,
                ip,
                conditional,
                date,
            };
            let mut built = build_records(main, companions, response, previous.as_ref())?;
            let records = std::mem::take(&mut built.records);
            let stored = self.writer.write_capture(&job.host, records)?;
            self.index_stored(&stored, built.original.as_ref(), batch)?;
            let main = &stored[built.main];
            let record = RecordRef {
                record_id: main.header.record_id().unwrap_or_default().to_string(),
                file: strip_warc_dir(&main.file).to_string(),
                offset: main.offset,
                length: main.length,
            };
            self.stats.captures += 1;
            self.stats.payload_bytes += response.body.len();
            self.stats.warc_bytes += stored.iter().map(|s| s.length).sum::<u64>();
            entry.status = Some(response.status);
            entry.bytes = Some(response.body.len());
            entry.digest = Some(built.payload_digest.clone());
            entry.content_type = response.header("Content-Type").map(str::to_string);
            entry.change = built.change;
            if built.change == Change::Unchanged {
                self.stats.revisits += 1;
            }
            let mut problems: Vec<String> = entry.error.take().into_iter().collect();
            if let Some(truncated) = &response.truncated {
                problems.push(format!("body truncated ({})", truncated.as_warc()));
            }
            problems.extend(job.parse.as_ref().and_then(|p| p.error.clone()));
            entry.error = (!problems.is_empty()).then(|| problems.join("; "));
            entry.record = Some(record.clone());
            new_state = Some(next_url_state(
                response,
                previous,
                &built,
                record,
                &format_warc_date(date),
            ));
        } else if let Err(error) = &job.fetch.outcome {
            entry.error = Some(match &job.note {
                Some(note) => format!("{error}; {note}"),
                None => error.to_string(),
            });
            self.stats.failed += 1;
        }
        let result = outage::retrying(&mut self.store, |store| {
            on_store!(store, node, s => StateBackend::transaction(s, |t| {
                t.log_fetch_fenced(node, crawl, &entry)?;
                if let Some(state) = &new_state {
                    t.set_url_state(&job.url, state)?;
                }
                t.enqueue(crawl, &job.new_urls)?;
                if job.done {
                    t.record_links(crawl, &job.url, &job.links)?;
                    t.mark_done_fenced(node, crawl, &job.url)?;
                }
                Ok(())
            }))
        });
        if result.as_ref().is_err_and(|error| error.is_lease_lost())
            && let Some(ack) = &mut job.committed
        {
            ack.refuse();
        }
        let written = entry.record.as_ref().map(|r| r.file.clone());
        self.lease_checked(result, written.as_deref())
    }

    /// Reads the records just written back from their file, as `ldwarc index` would, and
    /// adds them to the index; the checkpoint then covers the file up to here.
    fn index_stored(
        &mut self,
        stored: &[StoredRecord],
        original: Option<&RecordLocation>,
        batch: &mut IndexBatch<'_>,
    ) -> io::Result<()> {
        let Some(first) = stored.first() else {
            return Ok(());
        };
        let open_path = self
            .archive
            .root()
            .join(format!("{}{OPEN_SUFFIX}", first.file));
        let filename = strip_warc_dir(&first.file).to_string();
        let mut captures = Vec::new();
        let mut damage = None;
        let end = read_captures(
            &open_path,
            &filename,
            first.offset,
            |capture| captures.push(capture),
            |error| damage = Some(error),
        )?;
        if let Some(error) = damage {
            return Err(io::Error::other(format!(
                "{}: reading back what was just written: {error}",
                open_path.display()
            )));
        }
        for mut capture in captures {
            if capture.record_type == RecordType::Revisit {
                capture.original = original.cloned();
            }
            batch.add(&capture)?;
            self.pending_index += 1;
        }
        self.checkpoint.version = 1;
        self.checkpoint
            .files
            .insert(filename, FileMark::of_file(&open_path, end, end));
        Ok(())
    }
}

/// The records of one fetch, which of them is the response/revisit, and what it means.
struct BuiltRecords {
    records: Vec<(WarcHeader, Block)>,
    main: usize,
    payload_digest: String,
    change: Change,
    /// For a revisit: where its original payload lies.
    original: Option<RecordLocation>,
}

/// What the response or revisit record of a fetch is made from.
struct MainRecord<'a> {
    url: &'a str,
    id: String,
    ip: Option<String>,
    conditional: bool,
    date: DateTime<Utc>,
}

/// The records written around the response: request and metadata.
struct Companions {
    request: Option<(WarcHeader, Block)>,
    metadata: (WarcHeader, Block),
}

fn build_records(
    main: MainRecord<'_>,
    companions: Companions,
    response: &mut Response,
    previous: Option<&UrlState>,
) -> io::Result<BuiltRecords> {
    let MainRecord {
        url,
        id,
        ip,
        conditional,
        date,
    } = main;
    let mut response_block = BlockBuilder::new(PayloadKind::Http);
    response_block.write_all(&response.head)?;
    io::copy(&mut response.body.reader()?, &mut response_block)?;
    let block = response_block.finish()?;
    let payload_digest = block
        .digests()
        .payload
        .as_ref()
        .map(|d| d.to_canonical())
        .unwrap_or_default();
    let previous_capture = previous.and_then(|p| Some((p, p.record.as_ref()?)));
    let not_modified = response.status == 304 && conditional;
    let same_payload = !response.body.is_empty()
        && previous.and_then(|p| p.digest.as_deref()) == Some(payload_digest.as_str());
    let (main_header, main_block, change, original, digest) = match previous_capture {
        Some((state, record)) if not_modified || same_payload => {
            let profile = if not_modified {
                profiles::SERVER_NOT_MODIFIED
            } else {
                profiles::IDENTICAL_PAYLOAD_DIGEST
            };
            let digest = state.digest.clone().unwrap_or_default();
            let mut header = record_header("revisit", date, Some(url));
            header.set("WARC-Record-ID", id.as_str());
            header.push("WARC-Profile", profile);
            header.push("WARC-Refers-To-Target-URI", url);
            if let Some(refers_date) = &state.date {
                header.push("WARC-Refers-To-Date", refers_date.as_str());
            }
            header.push("WARC-Refers-To", record.record_id.as_str());
            if let Some(ip) = &ip {
                header.push("WARC-IP-Address", ip.as_str());
            }
            header.push("Content-Type", "application/http;msgtype=response");
            if !digest.is_empty() {
                header.push("WARC-Payload-Digest", digest.as_str());
            }
            let block = Block::from_bytes(response.head.clone(), PayloadKind::None)?;
            let original = RecordLocation {
                filename: record.file.clone(),
                offset: record.offset,
                length: record.length,
            };
            (header, block, Change::Unchanged, Some(original), digest)
        }
        _ => {
            let mut header = record_header("response", date, Some(url));
            header.set("WARC-Record-ID", id.as_str());
            if let Some(ip) = &ip {
                header.push("WARC-IP-Address", ip.as_str());
            }
            header.push("Content-Type", "application/http;msgtype=response");
            if let Some(truncated) = &response.truncated {
                header.push("WARC-Truncated", truncated.as_warc());
            }
            let change = if previous.and_then(|p| p.digest.as_ref()).is_some() {
                Change::Changed
            } else {
                Change::New
            };
            (header, block, change, None, payload_digest)
        }
    };
    let mut records = Vec::with_capacity(3);
    records.extend(companions.request);
    let main = records.len();
    records.push((main_header, main_block));
    records.push(companions.metadata);
    Ok(BuiltRecords {
        records,
        main,
        payload_digest: digest,
        change,
        original,
    })
}

/// The `request` record of a fetch: the request bytes exactly as sent.
fn request_record(
    job: &CaptureJob,
    date: DateTime<Utc>,
    concurrent_to: &str,
) -> io::Result<(WarcHeader, Block)> {
    let mut header = record_header("request", date, Some(&job.url));
    header.push("WARC-Concurrent-To", concurrent_to);
    header.push("Content-Type", "application/http;msgtype=request");
    Ok((
        header,
        Block::from_bytes(job.fetch.request.clone(), PayloadKind::None)?,
    ))
}

/// The `metadata` record of a fetch: how it was reached and what was found in it.
fn metadata_record(
    job: &CaptureJob,
    date: DateTime<Utc>,
    concurrent_to: &str,
) -> io::Result<(WarcHeader, Block)> {
    let mut header = record_header("metadata", date, Some(&job.url));
    header.push("WARC-Concurrent-To", concurrent_to);
    header.push("Content-Type", "application/warc-fields");
    let mut fields = String::new();
    let mut field = |name: &str, value: &dyn std::fmt::Display| {
        fields.push_str(name);
        fields.push_str(": ");
        fields.push_str(&value.to_string().replace(['\r', '\n'], " "));
        fields.push_str("\r\n");
    };
    if let Some(via) = &job.via {
        field("via", via);
    }
    field("hops", &job.hops);
    field("discovery-path", &job.path);
    field("round", &job.round);
    field(
        "fetch-duration-ms",
        &format!("{:.3}", job.fetch.duration.as_secs_f64() * 1000.0),
    );
    if let Some(parse) = &job.parse {
        field("outlinks", &parse.outlinks);
        if let Some(syntax) = &parse.syntax {
            field("rdf-syntax", syntax);
            field("rdf-triples", &parse.triples);
        }
        if let Some(embedded) = &parse.embedded {
            field("rdf-embedded", embedded);
        }
        if let Some(error) = &parse.error {
            field("rdf-error", error);
        }
    }
    Ok((
        header,
        Block::from_bytes(fields.into_bytes(), PayloadKind::None)?,
    ))
}

fn next_url_state(
    response: &Response,
    previous: Option<UrlState>,
    built: &BuiltRecords,
    record: RecordRef,
    date: &str,
) -> UrlState {
    let etag = response.header("ETag").map(str::to_string);
    let last_modified = response.header("Last-Modified").map(str::to_string);
    match (built.change, previous) {
        // A revisit keeps pointing at the original payload; fresh validators are kept.
        (Change::Unchanged, Some(previous)) => UrlState {
            etag: etag.or(previous.etag.clone()),
            last_modified: last_modified.or(previous.last_modified.clone()),
            ..previous
        },
        _ => UrlState {
            digest: Some(built.payload_digest.clone()).filter(|_| !response.body.is_empty()),
            date: Some(date.to_string()),
            record: Some(record),
            etag,
            last_modified,
        },
    }
}

fn strip_warc_dir(file: &str) -> &str {
    file.strip_prefix("warc/").unwrap_or(file)
}
