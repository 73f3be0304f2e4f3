//! The CDX server API: `/cdx` with pywb's parameters and answers (`output=cdxj|json|text|
//! link`, `fl`, `filter`, `matchType`, `from`, `to`, `closest`, `sort`, `limit`,
//! `collapseTime`), and `/cdx/search/cdx` with the IA/OpenWayback dialect (text or JSON
//! arrays with a header row, IA field names, regex filters, `collapse`, negative `limit`,
//! `showResumeKey`/`resumeKey`). Both dialects accept the IA extensions.
//!
//! Selection is `ldwarc_archive::index::query`'s (checked against pywb by `tests/query_vs_pywb.rs`),
//! run group by group of one urlkey. Answers in the index's order (ascending, no `closest`,
//! no `limit=-N`) are written while the scan runs and streamed ([`super::stream`]): memory
//! holds one urlkey's captures and a few pieces of the body, whatever the answer's size.
//! Other orders need the whole selection first: it may hold at most
//! [`Limits::max_cdx_rows`](super::Limits) captures (403 beyond), as may one urlkey's group.

use std::ops::ControlFlow;

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use data_encoding::BASE64URL_NOPAD;

use ldwarc_archive::index::Capture;
use ldwarc_archive::index::cdxj::{cdxj_line, push_json_string};
use ldwarc_archive::index::merged::MergedIndex;
use ldwarc_archive::index::query::{
    CdxQuery, Filter, MatchType, QueryOutput, SortOrder, apply, field_value, key_range, render,
};
use ldwarc_archive::index::query_check::{
    MAX_TIME_BOUND_DIGITS, check_closest, check_fields, is_time_bound,
};
use ldwarc_archive::index::zipnum::{self, PageRequest, ZipNumIndex};

use super::budget::capture_cost;
use super::memento::http_date;
use super::paging;
use super::stream::{BodyWriter, Failure, small_inline_or_streamed, streamed};
use super::{AppState, ExactUrl, State as AppStateRef, text_response};

/// Which CDX server the request speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Pywb,
    Ia,
}

/// `output=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Cdxj,
    Json,
    Text,
    Link,
}

/// A CDX request parsed from the query string.
#[derive(Debug, Clone)]
pub(crate) struct CdxRequest {
    dialect: Dialect,
    query: CdxQuery,
    /// `limit=-N`: the last N.
    last: Option<usize>,
    output: Output,
    fields: Option<Vec<String>>,
    /// `collapse=field` or `collapse=field:N`.
    collapse: Vec<(String, Option<usize>)>,
    show_resume_key: bool,
    resume_after: Option<String>,
    /// ZipNum pagination: `page` and `pageSize` (blocks per page).
    page: Option<usize>,
    page_size: Option<usize>,
    /// `showNumPages=true` / `showPagedIndex=true`.
    paging_question: Option<PagingQuestion>,
}

/// A question about pages rather than rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PagingQuestion {
    /// `showNumPages=true`: `{"pages", "pageSize", "blocks"}`.
    NumPages,
    /// `showPagedIndex=true`: the `.idx` lines of the page.
    PagedIndex,
}

/// `GET /cdx`.
pub(crate) async fn pywb_endpoint(State(state): State<AppStateRef>, uri: Uri) -> Response {
    endpoint(state, uri, Dialect::Pywb).await
}

/// `GET /cdx/search/cdx`.
pub(crate) async fn ia_endpoint(State(state): State<AppStateRef>, uri: Uri) -> Response {
    endpoint(state, uri, Dialect::Ia).await
}

async fn endpoint(state: AppStateRef, uri: Uri, dialect: Dialect) -> Response {
    let request = match parse_request(uri.query().unwrap_or(""), dialect) {
        Ok(request) => request,
        Err(message) => return text_response(StatusCode::BAD_REQUEST, &format!("{message}\n")),
    };
    if let Some(question) = request.paging_question {
        let content_type = match question {
            PagingQuestion::NumPages => "application/json",
            PagingQuestion::PagedIndex => "text/plain",
        };
        return streamed(&state, content_type, move |state, out| {
            answer_paging(state, &request, question, out)
        })
        .await;
    }
    let content_type = Layout::of(&request).content_type();
    // One URL's captures are one term lookup: small enough to try on this thread.
    if request.query.effective().0 == MatchType::Exact {
        return small_inline_or_streamed(&state, content_type, move |state, out| {
            answer(state, &request, out)
        })
        .await;
    }
    streamed(&state, content_type, move |state, out| {
        answer(state, &request, out)
    })
    .await
}

/// Writes the answer to `request` into `out`: streamed in scan order when the order of the
/// rows is the index's, else selected in memory first (at most `max_cdx_rows`).
fn answer(state: &AppState, request: &CdxRequest, out: &mut BodyWriter) -> Result<(), Failure> {
    let index = CdxSource::of(state, request)?;
    let max_rows = state.limits.max_cdx_rows;
    let mut rows = RowRenderer::new(request);
    if in_scan_order(request) {
        return stream_rows(index, request, max_rows, rows, out);
    }
    let unbounded_many =
        kept_tail(request).is_none() && request.query.effective().0 != MatchType::Exact;
    let _turn = match unbounded_many {
        true => Some(
            state
                .budget
                .selection_turn()
                .ok_or_else(Failure::over_budget)?,
        ),
        false => None,
    };
    let selected = select(index, request, max_rows, out).map_err(|e| e.answer(max_rows))?;
    for capture in &selected.rows {
        rows.row(capture, out.buffer());
        if !out.flush_if_full() {
            return Ok(());
        }
    }
    rows.finish(selected.resume_key.as_deref(), out.buffer());
    Ok(())
}

/// Answers `showNumPages` / `showPagedIndex`, which only a ZipNum index can.
fn answer_paging(
    state: &AppState,
    request: &CdxRequest,
    question: PagingQuestion,
    out: &mut BodyWriter,
) -> Result<(), Failure> {
    let bounds = Bounds::of(request);
    let page_size = request.page_size.unwrap_or(zipnum::DEFAULT_PAGE_SIZE);
    if question == PagingQuestion::NumPages {
        let info = match &state.zipnum {
            Some(zipnum) => zipnum.page_info(&bounds.start, &bounds.end, page_size),
            None => paging::page_info(
                state.archive.merged_index(),
                &bounds.start,
                &bounds.end,
                page_size,
                state.limits.cdx_block_captures,
            ),
        }
        .map_err(paging_failure)?;
        // The IA server answers the page count alone.
        let text = match request.dialect {
            Dialect::Pywb => info.to_json(),
            Dialect::Ia => info.pages.to_string(),
        };
        out.buffer().extend_from_slice(text.as_bytes());
        out.buffer().push(b'\n');
        return Ok(());
    }
    let zipnum = state.zipnum.as_ref().ok_or_else(no_zipnum)?;
    match question {
        PagingQuestion::NumPages => {}
        PagingQuestion::PagedIndex => {
            let page = PageRequest {
                page: request.page.unwrap_or(0),
                page_size,
            };
            let entries = zipnum
                .page_entries(&bounds.start, &bounds.end, page)
                .map_err(paging_failure)?;
            for entry in entries {
                out.buffer().extend_from_slice(entry.to_line().as_bytes());
                out.buffer().push(b'\n');
                if !out.flush_if_full() {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

fn no_zipnum() -> Failure {
    Failure::new(
        StatusCode::BAD_REQUEST,
        "showPagedIndex lists the blocks of a ZipNum index, and this server was started \
         without one\n",
    )
}

/// An invalid page is the client's mistake (pywb's message); anything else is the server's.
fn paging_failure(error: std::io::Error) -> Failure {
    let status = if error.kind() == std::io::ErrorKind::InvalidInput {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    };
    Failure::new(status, format!("{error}\n"))
}

/// Where a request's rows come from: the capture index, or the ZipNum index the server was
/// given (one page of it when the request names a page or a page size).
#[derive(Clone, Copy)]
enum CdxSource<'a> {
    Index(&'a MergedIndex),
    ZipNum(&'a ZipNumIndex, Option<PageRequest>),
    /// One page of the capture index, cut in blocks of this many captures.
    IndexPage(&'a MergedIndex, PageRequest, usize),
}

impl<'a> CdxSource<'a> {
    fn of(state: &'a AppState, request: &CdxRequest) -> Result<CdxSource<'a>, Failure> {
        let paged = request.page.is_some() || request.page_size.is_some();
        match &state.zipnum {
            Some(zipnum) => Ok(CdxSource::ZipNum(
                zipnum,
                paged.then(|| PageRequest {
                    page: request.page.unwrap_or(0),
                    page_size: request.page_size.unwrap_or(zipnum::DEFAULT_PAGE_SIZE),
                }),
            )),
            None if paged => Ok(CdxSource::IndexPage(
                state.archive.merged_index(),
                PageRequest {
                    page: request.page.unwrap_or(0),
                    page_size: request.page_size.unwrap_or(paging::DEFAULT_PAGE_SIZE),
                },
                state.limits.cdx_block_captures,
            )),
            None => Ok(CdxSource::Index(state.archive.merged_index())),
        }
    }
}

/// Parses the query string of a CDX request.
pub(crate) fn parse_request(query_string: &str, dialect: Dialect) -> Result<CdxRequest, String> {
    let mut query = CdxQuery::new("");
    let mut url = None;
    let mut request = CdxRequest {
        dialect,
        query: query.clone(),
        last: None,
        output: if dialect == Dialect::Ia {
            Output::Text
        } else {
            Output::Cdxj
        },
        fields: None,
        collapse: Vec::new(),
        show_resume_key: false,
        resume_after: None,
        page: None,
        page_size: None,
        paging_question: None,
    };
    let mut sort = None;
    let mut reverse = false;
    for (name, value) in url::form_urlencoded::parse(query_string.as_bytes()) {
        let value = value.into_owned();
        match name.as_ref() {
            "url" => url = Some(value),
            "matchType" => query.match_type = Some(parse_match_type(&value)?),
            "from" => query.from = Some(digits(&value, "from")?),
            "to" => query.to = Some(digits(&value, "to")?),
            "closest" => {
                check_closest(&value)?;
                query.closest = Some(value)
            }
            "sort" => sort = Some(value),
            // pywb's boolean: anything but empty, 0, false, f or off.
            "reverse" => {
                reverse = !value.is_empty()
                    && !matches!(
                        value.to_ascii_lowercase().as_str(),
                        "0" | "false" | "f" | "off"
                    )
            }
            "limit" => parse_limit(&value, &mut query, &mut request)?,
            "output" => request.output = parse_output(&value)?,
            "fl" | "fields" => {
                let fields: Vec<String> = value
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(String::from)
                    .collect();
                check_fields(&fields).map_err(|e| format!("fl: {e}"))?;
                request.fields = Some(fields)
            }
            "filter" => query.filters.push(parse_filter(&value, dialect)?),
            "collapseTime" => query.collapse_time = Some(number(&value, "collapseTime")?),
            "collapse" => request.collapse.push(parse_collapse(&value)?),
            "showResumeKey" => request.show_resume_key = value == "true",
            "resumeKey" => request.resume_after = Some(decode_resume_key(&value)?),
            "page" => request.page = Some(number(&value, "page")?),
            "pageSize" => request.page_size = Some(number(&value, "pageSize")?.max(1)),
            "showNumPages" if value == "true" => {
                request.paging_question = Some(PagingQuestion::NumPages)
            }
            "showPagedIndex" if value == "true" => {
                request.paging_question = Some(PagingQuestion::PagedIndex)
            }
            _ => {}
        }
    }
    query.url = url
        .filter(|u| !u.is_empty())
        .ok_or("The \"url\" param is required")?;
    query.sort = match sort.as_deref() {
        Some("reverse") => SortOrder::Reverse,
        Some("closest") if query.closest.is_some() => SortOrder::Closest,
        Some("closest") => return Err("sort=closest needs a closest= timestamp".into()),
        None | Some("asc" | "ascending" | "") => SortOrder::Ascending,
        Some(other) => return Err(format!("sort={other} not supported")),
    };
    if reverse && query.sort == SortOrder::Ascending {
        query.sort = SortOrder::Reverse;
    }
    if request.resume_after.is_some()
        && (query.closest.is_some() || query.sort != SortOrder::Ascending)
    {
        return Err("resumeKey only pages results in ascending order".into());
    }
    if request.resume_after.is_some() && request.page.is_some() {
        return Err("resumeKey and page are two ways of paging: give one".into());
    }
    request.query = query;
    Ok(request)
}

fn parse_match_type(value: &str) -> Result<MatchType, String> {
    match value {
        "exact" => Ok(MatchType::Exact),
        "prefix" => Ok(MatchType::Prefix),
        "host" => Ok(MatchType::Host),
        "domain" => Ok(MatchType::Domain),
        other => Err(format!("Invalid match type: {other}")),
    }
}

fn parse_output(value: &str) -> Result<Output, String> {
    match value {
        "cdxj" => Ok(Output::Cdxj),
        "json" => Ok(Output::Json),
        "text" | "cdx" => Ok(Output::Text),
        "link" => Ok(Output::Link),
        other => Err(format!("output={other} not supported")),
    }
}

/// A `from`/`to` timestamp: digits, compared with the captures' as pywb compares them (as
/// text, padded to 14 digits when shorter), so longer ones (`from` with microseconds) work
/// and out-of-range parts (month 13) are simply later than every real date of their year.
fn digits(value: &str, name: &str) -> Result<String, String> {
    if is_time_bound(value) {
        Ok(value.to_string())
    } else {
        Err(format!(
            "{name}={value:?}: expected a timestamp of up to {MAX_TIME_BOUND_DIGITS} digits"
        ))
    }
}

fn number(value: &str, name: &str) -> Result<usize, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{name}={value:?}: expected a number"))
}

/// `limit=N`, or `limit=-N` (the last N, as the IA server answers).
fn parse_limit(value: &str, query: &mut CdxQuery, request: &mut CdxRequest) -> Result<(), String> {
    match value.trim().strip_prefix('-') {
        Some(last) => request.last = Some(number(last, "limit")?),
        // pywb reads `limit=0` as no limit.
        None => query.limit = Some(number(value, "limit")?).filter(|&limit| limit > 0),
    }
    Ok(())
}

/// pywb filters as they are; IA filters are `[!]field:regex`, matched against the whole value.
fn parse_filter(value: &str, dialect: Dialect) -> Result<Filter, String> {
    let text = match dialect {
        Dialect::Pywb => value.to_string(),
        Dialect::Ia => {
            let (negate, rest) = match value.strip_prefix('!') {
                Some(rest) => ("!", rest),
                None => ("", value),
            };
            match rest.split_once(':') {
                Some((field, regex)) => format!("{negate}~{field}:(?:{regex})$"),
                None => format!("{negate}~(?:{rest})$"),
            }
        }
    };
    Filter::parse(&text)
}

fn parse_collapse(value: &str) -> Result<(String, Option<usize>), String> {
    match value.split_once(':') {
        Some((field, n)) => Ok((field.to_string(), Some(number(n, "collapse")?))),
        None => Ok((value.to_string(), None)),
    }
}

/// A resume key is the last row's CDXJ line, base64url-encoded: rows sort by that line.
fn encode_resume_key(capture: &Capture) -> String {
    BASE64URL_NOPAD.encode(cdxj_line(capture).as_bytes())
}

fn decode_resume_key(value: &str) -> Result<String, String> {
    BASE64URL_NOPAD
        .decode(value.trim().as_bytes())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| format!("resumeKey={value:?} is not a key this server gave"))
}

/// Why a selection failed.
pub(crate) enum SelectError {
    TooMany,
    /// The rows do not fit in the server's memory budget.
    OverBudget,
    /// Nobody waits for the answer any more (the client went away, or it timed out).
    Cancelled,
    /// The request asks for something that does not exist (a page past the last).
    Invalid(String),
    Io(String),
}

impl From<std::io::Error> for SelectError {
    fn from(error: std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::InvalidInput {
            SelectError::Invalid(error.to_string())
        } else {
            SelectError::Io(error.to_string())
        }
    }
}

impl SelectError {
    /// The answer telling the client why.
    fn answer(self, max_rows: usize) -> Failure {
        match self {
            SelectError::TooMany => Failure::new(
                StatusCode::FORBIDDEN,
                format!(
                    "the query holds more than {max_rows} captures in memory (one URL's \
                     captures, or all of them for sort=reverse, closest= or limit=-N): narrow \
                     it with from/to, a filter or a limit, or page with showResumeKey=true\n"
                ),
            ),
            SelectError::OverBudget => Failure::over_budget(),
            // Nobody reads this answer.
            SelectError::Cancelled => Failure::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the request was given up\n",
            ),
            SelectError::Invalid(message) => {
                Failure::new(StatusCode::BAD_REQUEST, format!("{message}\n"))
            }
            SelectError::Io(message) => {
                Failure::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{message}\n"))
            }
        }
    }
}

/// Whether the answer's rows come in the order the index scan yields them (ascending, no
/// `closest`, no last-N): then they are written as the scan finds them.
fn in_scan_order(request: &CdxRequest) -> bool {
    request.query.closest.is_none()
        && request.query.sort == SortOrder::Ascending
        && request.last.is_none()
}

/// Where a request's captures are in the index.
struct Bounds {
    /// The urlkey range: the match type's, starting at the resume key's urlkey.
    start: String,
    end: String,
    /// The URL every capture must be of (exact matches).
    exact: Option<ExactUrl>,
}

impl Bounds {
    fn of(request: &CdxRequest) -> Bounds {
        let (match_type, url) = request.query.effective();
        let (mut start, end) = key_range(&url, match_type);
        if let Some(after) = &request.resume_after {
            let resume_urlkey = after.split(' ').next().unwrap_or("");
            if resume_urlkey > start.as_str() {
                start = resume_urlkey.to_string();
            }
        }
        let exact = (match_type == MatchType::Exact).then(|| ExactUrl::new(&url));
        Bounds { start, end, exact }
    }

    /// Hands every capture in the bounds to `visit`, urlkey by urlkey. An exact match is one
    /// urlkey (`key_range` starts the range at it, and the exact-URL check drops any other
    /// key the range holds), looked up directly instead of scanned for.
    /// The scan ends as soon as `visit` breaks.
    fn scan(
        &self,
        source: CdxSource<'_>,
        mut visit: impl FnMut(Capture) -> ControlFlow<()>,
    ) -> std::io::Result<()> {
        // Sources that cannot stop early skip the rest of their range.
        let mut stopped = false;
        let mut visit_rest = |capture| {
            if !stopped {
                stopped = visit(capture).is_break();
            }
        };
        match source {
            CdxSource::Index(index) if self.exact.is_some() => {
                index.lookup(&self.start)?.into_iter().for_each(visit_rest);
                Ok(())
            }
            CdxSource::Index(index) => index.scan_range_until(&self.start, Some(&self.end), visit),
            CdxSource::IndexPage(index, page, block) => {
                paging::scan_page(index, &self.start, &self.end, page, block, visit_rest)
            }
            CdxSource::ZipNum(zipnum, None) => {
                zipnum.scan_range(&self.start, Some(&self.end), visit_rest)
            }
            CdxSource::ZipNum(zipnum, Some(page)) => {
                let mut bad_line = None;
                zipnum.page_lines(&self.start, &self.end, page, |line| {
                    match zipnum::parse_cdxj_line(line) {
                        Ok(capture) => visit_rest(capture),
                        Err(message) => {
                            bad_line.get_or_insert(message);
                        }
                    }
                })?;
                match bad_line {
                    Some(message) => Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{}: {message}", zipnum.idx_path().display()),
                    )),
                    None => Ok(()),
                }
            }
        }
    }
}

/// The steps of a query that apply to each row alone (filters, from/to).
fn per_row_query(query: &CdxQuery) -> CdxQuery {
    CdxQuery {
        collapse_time: None,
        closest: None,
        sort: SortOrder::Ascending,
        limit: None,
        ..query.clone()
    }
}

/// One urlkey's captures, sorted as a byte-sorted CDXJ file has them, that pass the exact-URL
/// check, the resume key and the per-row steps.
fn settle_group(
    group: Vec<Capture>,
    exact: Option<&ExactUrl>,
    resume_after: Option<&str>,
    per_row: &CdxQuery,
) -> Vec<Capture> {
    let mut lines: Vec<(String, Capture)> = group
        .into_iter()
        .filter(|c| exact.is_none_or(|exact| exact.matches(c)))
        .map(|c| (cdxj_line(&c), c))
        .filter(|(line, _)| resume_after.is_none_or(|after| line.as_str() > after))
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    apply(lines.into_iter().map(|(_, c)| c).collect(), per_row)
}

/// Writes the rows of an in-scan-order request as the scan finds them: memory holds one
/// urlkey's captures (at most `max_rows`) and the pieces waiting for the client.
fn stream_rows(
    index: CdxSource<'_>,
    request: &CdxRequest,
    max_rows: usize,
    renderer: RowRenderer<'_>,
    out: &mut BodyWriter,
) -> Result<(), Failure> {
    let bounds = Bounds::of(request);
    let per_row = per_row_query(&request.query);
    let mut flow = RowFlow {
        request,
        per_row: &per_row,
        exact: bounds.exact.as_ref(),
        max_rows,
        group: Vec::new(),
        collapse: Collapse::new(request.query.collapse_time, &request.collapse),
        renderer,
        out,
        written: 0,
        last_written: None,
        resume_key: None,
        done: false,
        failed: None,
        group_cost: 0,
    };
    bounds
        .scan(index, |capture| flow.push(capture))
        .map_err(|e| SelectError::from(e).answer(max_rows))?;
    flow.end_group();
    if let Some(failure) = flow.failed {
        return Err(failure.answer(max_rows));
    }
    if !flow.out.is_gone() {
        flow.renderer
            .finish(flow.resume_key.as_deref(), flow.out.buffer());
    }
    Ok(())
}

/// The state of a streamed answer while the scan runs.
struct RowFlow<'a, 'w> {
    request: &'a CdxRequest,
    per_row: &'a CdxQuery,
    exact: Option<&'a ExactUrl>,
    max_rows: usize,
    /// The current urlkey's captures (the scan yields them unordered).
    group: Vec<Capture>,
    collapse: Collapse<'a>,
    renderer: RowRenderer<'a>,
    out: &'w mut BodyWriter,
    written: usize,
    last_written: Option<Capture>,
    resume_key: Option<String>,
    /// Nothing more to write: the limit is reached, the client is gone, or a failure.
    done: bool,
    /// Why the answer failed (too many rows in a group, the budget spent, given up).
    failed: Option<SelectError>,
    /// Budget bytes reserved for the current group.
    group_cost: usize,
}

impl RowFlow<'_, '_> {
    fn push(&mut self, capture: Capture) -> ControlFlow<()> {
        if self.done {
            return ControlFlow::Break(());
        }
        if self
            .group
            .first()
            .is_some_and(|g| g.urlkey != capture.urlkey)
        {
            self.end_group();
            if self.done {
                return ControlFlow::Break(());
            }
        }
        if self.out.cancelled() {
            return self.fail(SelectError::Cancelled);
        }
        if self.group.len() >= self.max_rows {
            return self.fail(SelectError::TooMany);
        }
        let cost = capture_cost(&capture);
        if !self.out.reserve(cost, false) {
            return self.fail(SelectError::OverBudget);
        }
        self.group_cost += cost;
        self.group.push(capture);
        ControlFlow::Continue(())
    }

    fn fail(&mut self, why: SelectError) -> ControlFlow<()> {
        self.failed = Some(why);
        self.done = true;
        self.group = Vec::new();
        self.out.release(std::mem::take(&mut self.group_cost));
        ControlFlow::Break(())
    }

    /// Writes the rows of the current urlkey's group.
    fn end_group(&mut self) {
        let group = std::mem::take(&mut self.group);
        let cost = std::mem::take(&mut self.group_cost);
        self.write_group(group);
        self.out.release(cost);
    }

    fn write_group(&mut self, group: Vec<Capture>) {
        if self.done || group.is_empty() {
            return;
        }
        let settled = settle_group(
            group,
            self.exact,
            self.request.resume_after.as_deref(),
            self.per_row,
        );
        for capture in settled {
            if !self.collapse.keep(&capture) {
                continue;
            }
            if let Some(limit) = self.request.query.limit
                && self.written >= limit
            {
                // A row beyond the limit exists: the next page starts after the last row.
                if self.request.show_resume_key {
                    self.resume_key = self.last_written.as_ref().map(encode_resume_key);
                }
                self.done = true;
                return;
            }
            self.renderer.row(&capture, self.out.buffer());
            self.written += 1;
            self.last_written = Some(capture);
            if !self.out.flush_if_full() {
                self.done = true;
                return;
            }
        }
    }
}

/// Runs the request against the index in memory (for orders other than the scan's), keeping
/// at most `max_rows` captures.
fn select(
    index: CdxSource<'_>,
    request: &CdxRequest,
    max_rows: usize,
    out: &mut BodyWriter,
) -> Result<Selected, SelectError> {
    let bounds = Bounds::of(request);
    // Per-row steps run on each urlkey's group; steps across rows run on the whole.
    let per_row = per_row_query(&request.query);
    let mut collector = Collector {
        per_row: &per_row,
        exact: bounds.exact.as_ref(),
        resume_after: request.resume_after.as_deref(),
        group: Vec::new(),
        rows: Vec::new(),
        row_costs: Vec::new(),
        group_cost: 0,
        keep_last: kept_tail(request),
        max_rows,
        out,
        failed: None,
    };
    bounds
        .scan(index, |capture| collector.push(capture))
        .map_err(SelectError::from)?;
    if let Some(why) = collector.failed {
        return Err(why);
    }
    collector.flush();
    Ok(finish(collector.rows, request))
}

/// When the answer is the last N rows of the selection in index order (`limit=-N`, or
/// `sort=reverse` with `limit=N`, without `closest` or collapsing, which look at the rows
/// before): N, and only that many rows need be kept while the scan runs.
fn kept_tail(request: &CdxRequest) -> Option<usize> {
    let query = &request.query;
    if query.closest.is_some() || query.collapse_time.is_some() || !request.collapse.is_empty() {
        return None;
    }
    match (query.sort, request.last, query.limit) {
        (SortOrder::Ascending, Some(last), _) => Some(last),
        (SortOrder::Reverse, Some(last), limit) => Some(limit.map_or(last, |l| l.min(last))),
        (SortOrder::Reverse, None, Some(limit)) => Some(limit),
        _ => None,
    }
}

/// The selected captures, and the resume key when more were left.
pub(crate) struct Selected {
    rows: Vec<Capture>,
    resume_key: Option<String>,
}

/// Gathers the selection of a request answered in another order than the index's: every
/// row is reserved in the memory budget before it is kept, and given back when dropped.
struct Collector<'a, 'w> {
    per_row: &'a CdxQuery,
    exact: Option<&'a ExactUrl>,
    resume_after: Option<&'a str>,
    group: Vec<Capture>,
    rows: Vec<Capture>,
    /// The budget bytes of each of `rows`.
    row_costs: Vec<usize>,
    /// Budget bytes of `group`.
    group_cost: usize,
    /// Only the last this many rows are needed ([`kept_tail`]).
    keep_last: Option<usize>,
    max_rows: usize,
    out: &'w mut BodyWriter,
    failed: Option<SelectError>,
}

impl Collector<'_, '_> {
    fn push(&mut self, capture: Capture) -> ControlFlow<()> {
        if self
            .group
            .first()
            .is_some_and(|g| g.urlkey != capture.urlkey)
        {
            self.flush();
        }
        if self.out.cancelled() {
            return self.fail(SelectError::Cancelled);
        }
        let cost = capture_cost(&capture);
        if !self.out.reserve(cost, self.keep_last.is_some()) {
            return self.fail(SelectError::OverBudget);
        }
        self.group_cost += cost;
        self.group.push(capture);
        // Rows before a kept tail are dropped at the next flush: they do not count.
        let needed = self
            .keep_last
            .map_or(self.rows.len(), |n| self.rows.len().min(n));
        if needed + self.group.len() > self.max_rows {
            return self.fail(SelectError::TooMany);
        }
        ControlFlow::Continue(())
    }

    /// Ends the selection: nothing kept is needed any more.
    fn fail(&mut self, why: SelectError) -> ControlFlow<()> {
        if matches!(why, SelectError::Cancelled) {
            tracing::debug!(
                kept = self.rows.len() + self.group.len(),
                "CDX query stopped: nobody waits for its answer"
            );
        }
        self.failed = Some(why);
        self.rows = Vec::new();
        self.group = Vec::new();
        let held: usize = self.row_costs.drain(..).sum::<usize>() + self.group_cost;
        self.group_cost = 0;
        self.out.release(held);
        ControlFlow::Break(())
    }

    fn flush(&mut self) {
        let group = std::mem::take(&mut self.group);
        let group_cost = std::mem::take(&mut self.group_cost);
        let settled = settle_group(group, self.exact, self.resume_after, self.per_row);
        let costs: Vec<usize> = settled.iter().map(capture_cost).collect();
        self.out
            .release(group_cost.saturating_sub(costs.iter().sum::<usize>()));
        self.rows.extend(settled);
        self.row_costs.extend(costs);
        if let Some(last) = self.keep_last
            && self.rows.len() > last.saturating_mul(2).max(1024)
        {
            let surplus = self.rows.len() - last;
            self.rows.drain(..surplus);
            let freed: usize = self.row_costs.drain(..surplus).sum();
            self.out.release(freed);
        }
    }
}

/// Steps across rows: collapsing, ordering, limits, the resume key.
fn finish(captures: Vec<Capture>, request: &CdxRequest) -> Selected {
    let query = &request.query;
    let across = CdxQuery {
        filters: Vec::new(),
        from: None,
        to: None,
        limit: None,
        ..query.clone()
    };
    let mut captures = collapse_fields(apply(captures, &across), &request.collapse);
    if let Some(last) = request.last {
        let skip = captures.len().saturating_sub(last);
        captures.drain(..skip);
    }
    let mut resume_key = None;
    if let Some(limit) = query.limit
        && captures.len() > limit
    {
        captures.truncate(limit);
        if request.show_resume_key {
            resume_key = captures.last().map(encode_resume_key);
        }
    }
    Selected {
        rows: captures,
        resume_key,
    }
}

/// `collapseTime=N` (a row whose first N timestamp digits and status equal the previous kept
/// row's) and `collapse=field[:N]` (a row whose field, or its first N characters, equals the
/// previous kept row's), applied in that order to rows in their final order.
struct Collapse<'a> {
    time_digits: Option<usize>,
    fields: &'a [(String, Option<usize>)],
    last_time: Option<(String, Option<u16>)>,
    last_fields: Option<Vec<String>>,
}

impl<'a> Collapse<'a> {
    fn new(time_digits: Option<usize>, fields: &'a [(String, Option<usize>)]) -> Self {
        Self {
            time_digits,
            fields,
            last_time: None,
            last_fields: None,
        }
    }

    /// Whether `capture` is kept (and becomes the row the next ones are compared with).
    fn keep(&mut self, capture: &Capture) -> bool {
        if let Some(digits) = self.time_digits {
            let key = (
                capture.timestamp.chars().take(digits).collect::<String>(),
                capture.status,
            );
            if self.last_time.as_ref() == Some(&key) {
                return false;
            }
            self.last_time = Some(key);
        }
        if !self.fields.is_empty() {
            let key: Vec<String> = self
                .fields
                .iter()
                .map(|(field, n)| {
                    let value = field_value(capture, field).unwrap_or_default();
                    match n {
                        Some(n) => value.chars().take(*n).collect(),
                        None => value,
                    }
                })
                .collect();
            if self.last_fields.as_ref() == Some(&key) {
                return false;
            }
            self.last_fields = Some(key);
        }
        true
    }
}

/// `collapse=field[:N]` over rows already in their final order.
fn collapse_fields(captures: Vec<Capture>, collapse: &[(String, Option<usize>)]) -> Vec<Capture> {
    if collapse.is_empty() {
        return captures;
    }
    let mut state = Collapse::new(None, collapse);
    captures.into_iter().filter(|c| state.keep(c)).collect()
}

/// How the rows of an answer are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// pywb: one row per line (CDXJ, JSON object, or text).
    Lines(QueryOutput),
    /// pywb's `output=link`: `<url>; rel="memento"; datetime="…"` rows joined by `,\n`.
    Link,
    /// IA text: the fields space-separated.
    IaText,
    /// IA JSON: an array of arrays, the first naming the fields.
    IaJson,
}

impl Layout {
    fn of(request: &CdxRequest) -> Layout {
        match (request.dialect, request.output) {
            (Dialect::Ia, Output::Json) => Layout::IaJson,
            (Dialect::Ia, Output::Text) => Layout::IaText,
            (_, Output::Link) => Layout::Link,
            (_, Output::Json) => Layout::Lines(QueryOutput::Json),
            (_, Output::Text) => Layout::Lines(QueryOutput::Text),
            (_, Output::Cdxj) => Layout::Lines(QueryOutput::Cdxj),
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Layout::IaJson => "application/json",
            Layout::IaText | Layout::Lines(QueryOutput::Text) => "text/plain",
            Layout::Link => "application/link-format",
            Layout::Lines(QueryOutput::Json) => "text/x-ndjson",
            Layout::Lines(QueryOutput::Cdxj) => "text/x-cdxj",
        }
    }
}

/// Writes rows one at a time in the request's output.
struct RowRenderer<'a> {
    layout: Layout,
    fields: Option<&'a [String]>,
    ia_fields: Vec<String>,
    /// Rows (for IA JSON: array elements) written so far.
    written: usize,
}

impl<'a> RowRenderer<'a> {
    fn new(request: &'a CdxRequest) -> Self {
        let ia_fields = match &request.fields {
            Some(fields) => fields.clone(),
            None => IA_FIELDS.iter().map(|f| f.to_string()).collect(),
        };
        Self {
            layout: Layout::of(request),
            fields: request.fields.as_deref(),
            ia_fields,
            written: 0,
        }
    }

    /// Appends one row.
    fn row(&mut self, capture: &Capture, out: &mut Vec<u8>) {
        match self.layout {
            Layout::Lines(format) => {
                // pywb's text output without `fl` is the stored CDXJ line.
                let line = match (format, self.fields) {
                    (QueryOutput::Text, None) => cdxj_line(capture),
                    _ => render(capture, format, self.fields),
                };
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
            Layout::Link => {
                if self.written > 0 {
                    out.extend_from_slice(b",\n");
                }
                let link = format!(
                    "<{}>; rel=\"memento\"; datetime=\"{}\"",
                    capture.url,
                    http_date(&capture.timestamp)
                );
                out.extend_from_slice(link.as_bytes());
            }
            Layout::IaText => {
                let values: Vec<String> = self
                    .ia_fields
                    .iter()
                    .map(|f| ia_value(capture, f).replace(' ', "%20"))
                    .collect();
                out.extend_from_slice(values.join(" ").as_bytes());
                out.push(b'\n');
            }
            Layout::IaJson => {
                if self.written == 0 {
                    let header = json_array(self.ia_fields.iter().cloned());
                    self.json_element(&header, out);
                }
                let row = json_array(self.ia_fields.iter().map(|f| ia_value(capture, f)));
                self.json_element(&row, out);
            }
        }
        self.written += 1;
    }

    fn json_element(&mut self, element: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(if self.written == 0 { b"[" } else { b",\n" });
        out.extend_from_slice(element.as_bytes());
        self.written += 1;
    }

    /// Appends what follows the rows: the resume key, the end of the JSON array.
    fn finish(&mut self, resume_key: Option<&str>, out: &mut Vec<u8>) {
        match self.layout {
            Layout::Lines(_) | Layout::IaText => {
                if let Some(key) = resume_key {
                    out.push(b'\n');
                    out.extend_from_slice(key.as_bytes());
                    out.push(b'\n');
                }
            }
            Layout::Link => {
                if self.written > 0 {
                    out.push(b'\n');
                }
            }
            Layout::IaJson => {
                if let Some(key) = resume_key {
                    self.json_element("[]", out);
                    self.json_element(&json_array(std::iter::once(key.to_string())), out);
                }
                if self.written == 0 {
                    out.push(b'[');
                }
                out.extend_from_slice(b"]\n");
            }
        }
    }
}

/// The IA server's default fields.
const IA_FIELDS: &[&str] = &[
    "urlkey",
    "timestamp",
    "original",
    "mimetype",
    "statuscode",
    "digest",
    "length",
];

/// A field as the IA server shows it: digests without their `sha1:` label, `-` when absent.
fn ia_value(capture: &Capture, field: &str) -> String {
    match field_value(capture, field) {
        Some(value) if matches!(field, "digest" | "d") => value
            .strip_prefix("sha1:")
            .map_or(value.clone(), String::from),
        Some(value) if !value.is_empty() => value,
        _ => "-".to_string(),
    }
}

/// A JSON array of strings, `", "`-separated as the IA server writes it.
fn json_array(values: impl Iterator<Item = String>) -> String {
    let mut out = String::from("[");
    for (index, value) in values.enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        push_json_string(&mut out, &value);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(urlkey: &str, timestamp: &str, status: u16) -> Capture {
        Capture {
            urlkey: urlkey.into(),
            timestamp: timestamp.into(),
            time_micros: 0,
            url: "http://example.org/a".into(),
            mime: Some("text/turtle".into()),
            status: Some(status),
            digest: Some("sha1:ABC".into()),
            length: 10,
            offset: 0,
            filename: "f.warc.gz".into(),
            record_type: ldwarc_warc::RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    #[test]
    fn parses_both_dialects() {
        let request = parse_request(
            "url=example.org/*&filter=!status:200&filter=mime:ttl&limit=-3&output=json",
            Dialect::Pywb,
        )
        .unwrap();
        assert_eq!(request.query.filters.len(), 2);
        assert_eq!(request.last, Some(3));
        assert_eq!(request.output, Output::Json);
        assert!(parse_request("matchType=exact", Dialect::Pywb).is_err());
        assert!(parse_request("url=x&output=xml", Dialect::Pywb).is_err());
        let ia = parse_request("url=x&collapse=timestamp:8", Dialect::Ia).unwrap();
        assert_eq!(ia.output, Output::Text);
        assert_eq!(ia.collapse, vec![("timestamp".to_string(), Some(8))]);
    }

    #[test]
    fn ia_filters_match_whole_values() {
        let filter = parse_filter("statuscode:20", Dialect::Ia).unwrap();
        let row = capture("org,example)/a", "20240101000000", 200);
        assert!(apply(vec![row.clone()], &with_filter(filter)).is_empty());
        let filter = parse_filter("statuscode:2..", Dialect::Ia).unwrap();
        assert_eq!(apply(vec![row], &with_filter(filter)).len(), 1);
    }

    fn with_filter(filter: Filter) -> CdxQuery {
        CdxQuery {
            filters: vec![filter],
            ..CdxQuery::new("x")
        }
    }

    #[test]
    fn collapse_and_last_n_and_resume_keys() {
        let rows = vec![
            capture("a", "20240101000000", 200),
            capture("a", "20240101120000", 200),
            capture("a", "20240102000000", 200),
            capture("a", "20240103000000", 404),
        ];
        let collapsed = collapse_fields(rows.clone(), &[("timestamp".into(), Some(8))]);
        assert_eq!(collapsed.len(), 3);
        let mut request = parse_request("url=a&limit=-2", Dialect::Ia).unwrap();
        let selected = finish(rows.clone(), &request);
        assert_eq!(selected.rows[0].timestamp, "20240102000000");
        request = parse_request("url=a&limit=1&showResumeKey=true", Dialect::Ia).unwrap();
        let selected = finish(rows.clone(), &request);
        let key = selected.resume_key.expect("a resume key");
        assert_eq!(decode_resume_key(&key).unwrap(), cdxj_line(&rows[0]));
    }

    fn rendered(request: &CdxRequest, rows: &[Capture], key: Option<&str>) -> String {
        let mut renderer = RowRenderer::new(request);
        let mut out = Vec::new();
        for row in rows {
            renderer.row(row, &mut out);
        }
        renderer.finish(key, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn ia_json_has_a_header_row() {
        let request = parse_request("url=a&output=json&fl=timestamp,digest", Dialect::Ia).unwrap();
        let rows = [capture("a", "20240101000000", 200)];
        assert_eq!(
            rendered(&request, &rows, None),
            "[[\"timestamp\", \"digest\"],\n[\"20240101000000\", \"ABC\"]]\n"
        );
        assert_eq!(rendered(&request, &[], None), "[]\n");
        assert_eq!(
            rendered(&request, &rows, Some("K")),
            "[[\"timestamp\", \"digest\"],\n[\"20240101000000\", \"ABC\"],\n[],\n[\"K\"]]\n"
        );
    }

    #[test]
    fn rows_render_in_every_layout() {
        let rows = [
            capture("a", "20240101000000", 200),
            capture("a", "20240102000000", 404),
        ];
        let link = parse_request("url=a&output=link", Dialect::Pywb).unwrap();
        assert_eq!(
            rendered(&link, &rows, None),
            "<http://example.org/a>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2024 00:00:00 GMT\",\n\
             <http://example.org/a>; rel=\"memento\"; datetime=\"Tue, 02 Jan 2024 00:00:00 GMT\"\n"
        );
        assert_eq!(rendered(&link, &[], None), "");
        let text = parse_request("url=a&fl=timestamp,status", Dialect::Ia).unwrap();
        assert_eq!(
            rendered(&text, &rows, Some("K")),
            "20240101000000 200\n20240102000000 404\n\nK\n"
        );
        let cdxj = parse_request("url=a", Dialect::Pywb).unwrap();
        assert_eq!(
            rendered(&cdxj, &rows[..1], None),
            format!("{}\n", cdxj_line(&rows[0]))
        );
    }

    #[test]
    fn collapse_time_then_fields_keep_the_first_of_each_run() {
        let rows = [
            capture("a", "20240101000000", 200),
            capture("a", "20240101120000", 200),
            capture("a", "20240101130000", 404),
            capture("a", "20240102000000", 404),
        ];
        let fields = [("statuscode".to_string(), None)];
        let mut collapse = Collapse::new(Some(8), &fields);
        let kept: Vec<bool> = rows.iter().map(|r| collapse.keep(r)).collect();
        // Row 2 falls to collapseTime; row 4 passes it but repeats row 3's status.
        assert_eq!(kept, vec![true, false, true, false]);
    }

    #[test]
    fn scan_order_requests_stream() {
        let streamed = |q: &str| in_scan_order(&parse_request(q, Dialect::Ia).unwrap());
        assert!(streamed(
            "url=a/*&limit=5&showResumeKey=true&collapse=digest"
        ));
        assert!(!streamed("url=a&sort=reverse"));
        assert!(!streamed("url=a&closest=2024"));
        assert!(!streamed("url=a&limit=-3"));
    }
}
