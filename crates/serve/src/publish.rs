//! The archive as Linked Data about itself: `/.well-known/void` (the VoID + DCAT 3
//! description, VoID §6's well-known location, content-negotiated Turtle, N-Triples or
//! JSON-LD), `/download/YYYYMMDD/PLD.nq.gz` (a dataset version's N-Quads, gzip) and `/ldes`,
//! `/ldes/N` (the event stream of every graph change and its pages).
//!
//! The description and the stream are computed on the first request and kept until the
//! capture index changes; downloads are made on demand and the most recent kept. All three
//! are held inside the memory budget: what does not fit is recomputed per request instead of
//! kept. A date, domain or page the archive does not have answers 404 without detail.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use flate2::Compression;
use flate2::write::GzEncoder;
use ldwarc_rdf::OutputFormat;
use ldwarc_timetravel::publish::{
    DEFAULT_PAGE_SIZE, Description, Stream, describe, stream, write_description, write_download,
    write_page, write_root,
};

use super::budget::Reservation;
use super::{
    AppState, State as AppStateRef, archive_failure, base_url, blocking, response, text_response,
};

/// Seconds a closed (immutable) page may be kept by caches: a year.
const CLOSED_MAX_AGE: u32 = 31_536_000;
/// Seconds the view, the newest page and the description may be kept: new captures change
/// them.
const OPEN_MAX_AGE: u32 = 60;

/// One computed value, for the index size it was computed at, with its share of the budget.
type Kept<T> = Option<(u64, Arc<T>, Option<Reservation>)>;

/// A kept download: (index size, pld, day), its gzip bytes and their reservation.
type KeptDownload = ((u64, String, String), Arc<Vec<u8>>, Reservation);

/// What the publishing routes keep between requests.
#[derive(Default)]
pub(crate) struct Cache {
    description: Mutex<Kept<Description>>,
    stream: Mutex<Kept<Stream>>,
    /// Recent downloads, oldest first.
    downloads: Mutex<VecDeque<KeptDownload>>,
}

/// The value in `slot` if computed at `generation`, else computed now (the lock held, so
/// that concurrent requests wait for one computation) and kept if its `bytes` fit in a
/// quarter of the budget.
fn kept<T>(
    state: &AppState,
    slot: &Mutex<Kept<T>>,
    compute: impl FnOnce() -> Result<T, String>,
    bytes: impl Fn(&T) -> usize,
) -> Result<Arc<T>, String> {
    let generation = state.archive.merged_index().len();
    let mut slot = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((at, value, _)) = slot.as_ref()
        && *at == generation
    {
        return Ok(value.clone());
    }
    *slot = None;
    let value = Arc::new(compute()?);
    let size = bytes(&value);
    if size <= state.limits.memory_budget / 4
        && let Some(reservation) = state.budget.reserve(size)
    {
        *slot = Some((generation, value.clone(), Some(reservation)));
    }
    Ok(value)
}

fn description(state: &AppState) -> Result<Arc<Description>, String> {
    kept(
        state,
        &state.publish.description,
        || {
            describe(&state.archive, &mut |line| {
                tracing::warn!("describing the archive: {line}")
            })
            .map_err(|e| e.to_string())
        },
        Description::approximate_bytes,
    )
}

fn event_stream(state: &AppState) -> Result<Arc<Stream>, String> {
    kept(
        state,
        &state.publish.stream,
        // Not given up with the request: the next request finds it done.
        || match stream(&state.archive, DEFAULT_PAGE_SIZE, &|| false) {
            Ok(Some(stream)) => Ok(stream),
            Ok(None) => Err("the event stream was not completed".to_string()),
            Err(e) => Err(e.to_string()),
        },
        Stream::approximate_bytes,
    )
}

fn not_found() -> Response {
    text_response(StatusCode::NOT_FOUND, "not found\n")
}

fn cache_control(response: &mut Response, max_age: u32, immutable: bool) {
    let value = if immutable {
        format!("public, max-age={max_age}, immutable")
    } else {
        format!("public, max-age={max_age}")
    };
    if let Ok(value) = HeaderValue::from_str(&value) {
        response.headers_mut().insert(header::CACHE_CONTROL, value);
    }
}

/// `/.well-known/void`.
pub(crate) async fn void(State(state): State<AppStateRef>, headers: HeaderMap) -> Response {
    let base = base_url(&headers, state.bind);
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let offered = [
        OutputFormat::Turtle,
        OutputFormat::NTriples,
        OutputFormat::JsonLd,
    ];
    let Some(format) = OutputFormat::negotiate(&accept, &offered) else {
        return text_response(
            StatusCode::NOT_ACCEPTABLE,
            "the description is served as text/turtle, application/n-triples or application/ld+json\n",
        );
    };
    blocking(&state, move |state| {
        let description = match description(state) {
            Ok(description) => description,
            Err(error) => {
                return archive_failure(
                    state,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "/.well-known/void",
                    &error,
                );
            }
        };
        let mut body = Vec::new();
        if let Err(error) = write_description(&description, &base, format, &mut body) {
            return archive_failure(
                state,
                StatusCode::INTERNAL_SERVER_ERROR,
                "/.well-known/void",
                &error,
            );
        }
        let mut answer = response(
            StatusCode::OK,
            &format!("{}; charset=utf-8", format.media_type()),
            body,
        );
        answer
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept"));
        cache_control(&mut answer, OPEN_MAX_AGE, false);
        answer
    })
    .await
}

/// `/download/{day}/{file}`: `file` is `PLD.nq.gz` of a version the description lists.
pub(crate) async fn download(
    State(state): State<AppStateRef>,
    Path((day, file)): Path<(String, String)>,
) -> Response {
    blocking(&state, move |state| {
        let Some(pld) = file.strip_suffix(".nq.gz") else {
            return not_found();
        };
        let description = match description(state) {
            Ok(description) => description,
            Err(error) => {
                return archive_failure(
                    state,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "download",
                    &error,
                );
            }
        };
        if description.version(pld, &day).is_none() {
            return not_found();
        }
        let generation = state.archive.merged_index().len();
        let key = (generation, pld.to_string(), day.clone());
        let mut downloads = state
            .publish
            .downloads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let found = downloads
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, bytes, _)| bytes.clone());
        let bytes = match found {
            Some(bytes) => bytes,
            None => {
                let mut gzip = GzEncoder::new(Vec::new(), Compression::default());
                let written = write_download(&state.archive, pld, &day, &mut gzip, &mut |line| {
                    tracing::warn!("download {pld} {day}: {line}")
                });
                let bytes = match written
                    .map_err(|e| e.to_string())
                    .and_then(|_| gzip.finish().map_err(|e| e.to_string()))
                {
                    Ok(bytes) => Arc::new(bytes),
                    Err(error) => {
                        return archive_failure(
                            state,
                            StatusCode::INTERNAL_SERVER_ERROR,
                            "download",
                            &error,
                        );
                    }
                };
                downloads.retain(|(k, _, _)| k.0 == generation);
                // The newest kept, the oldest dropped, all within an eighth of the budget.
                let share = state.limits.memory_budget / 8;
                while !downloads.is_empty()
                    && downloads.iter().map(|(_, b, _)| b.len()).sum::<usize>() + bytes.len()
                        > share
                {
                    downloads.pop_front();
                }
                if bytes.len() <= share
                    && let Some(reservation) = state.budget.reserve(bytes.len())
                {
                    downloads.push_back((key, bytes.clone(), reservation));
                }
                bytes
            }
        };
        drop(downloads);
        let mut answer = response(StatusCode::OK, "application/gzip", bytes.to_vec());
        cache_control(&mut answer, OPEN_MAX_AGE, false);
        answer
    })
    .await
}

/// `/ldes`: the view.
pub(crate) async fn ldes_root(State(state): State<AppStateRef>, headers: HeaderMap) -> Response {
    let base = base_url(&headers, state.bind);
    let trig = wants_trig(&headers);
    blocking(&state, move |state| {
        let stream = match event_stream(state) {
            Ok(stream) => stream,
            Err(error) => {
                return archive_failure(state, StatusCode::INTERNAL_SERVER_ERROR, "/ldes", &error);
            }
        };
        let mut body = Vec::new();
        if let Err(error) = write_root(&stream, &base, &mut body) {
            return archive_failure(state, StatusCode::INTERNAL_SERVER_ERROR, "/ldes", &error);
        }
        let mut answer = response(StatusCode::OK, quads_type(trig), body);
        cache_control(&mut answer, OPEN_MAX_AGE, false);
        answer
    })
    .await
}

/// `/ldes/{page}`: a page; every page but the newest is closed and immutable.
pub(crate) async fn ldes_page(
    State(state): State<AppStateRef>,
    Path(page): Path<String>,
    headers: HeaderMap,
) -> Response {
    let base = base_url(&headers, state.bind);
    let trig = wants_trig(&headers);
    // Digits only, no sign or leading zero: one spelling per page.
    let number = (!page.is_empty()
        && page.len() <= 12
        && page.bytes().all(|b| b.is_ascii_digit())
        && (page == "0" || !page.starts_with('0')))
    .then(|| page.parse::<usize>().ok())
    .flatten();
    let Some(number) = number else {
        return not_found();
    };
    blocking(&state, move |state| {
        let stream = match event_stream(state) {
            Ok(stream) => stream,
            Err(error) => {
                return archive_failure(state, StatusCode::INTERNAL_SERVER_ERROR, "/ldes", &error);
            }
        };
        if number >= stream.pages.len() {
            return not_found();
        }
        let mut body = Vec::new();
        if let Err(error) = write_page(&state.archive, &stream, &base, number, &mut body)
            .and_then(|()| body.flush())
        {
            return archive_failure(state, StatusCode::INTERNAL_SERVER_ERROR, "/ldes", &error);
        }
        let mut answer = response(StatusCode::OK, quads_type(trig), body);
        if number + 1 < stream.pages.len() {
            cache_control(&mut answer, CLOSED_MAX_AGE, true);
        } else {
            cache_control(&mut answer, OPEN_MAX_AGE, false);
        }
        answer
    })
    .await
}

/// Whether the client prefers TriG to N-Quads (the same bytes: N-Quads is a subset of TriG).
fn wants_trig(headers: &HeaderMap) -> bool {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    OutputFormat::negotiate(accept, &[OutputFormat::NQuads, OutputFormat::TriG])
        == Some(OutputFormat::TriG)
}

fn quads_type(trig: bool) -> &'static str {
    if trig {
        "application/trig; charset=utf-8"
    } else {
        "application/n-quads; charset=utf-8"
    }
}
