//! pywb 2.10.0 serving a ZipNum index written by `ldwarc cdx --zipnum` (20 lines per block,
//! 4 blocks per shard: many blocks, several shards) over a generated archive
//! (`common/generated.rs`), configured as `index: <dir>/index.idx` with the WARC tree as
//! `archive_paths`:
//! - the CDX API answers fixed and generated queries exactly as `ldwarc query` does (pywb is
//!   asked with a `pageSize` covering every block: without one it answers only the first
//!   page of 10 blocks), and ldwarc's own ZipNum reader (`index::zipnum::run_query`) answers
//!   them the same; without `pageSize`, pywb's first page equals the reader's page 0 of
//!   [`zipnum::DEFAULT_PAGE_SIZE`] blocks;
//! - pagination: `showNumPages=true` gives the page count pywb computes and ldwarc's reader
//!   computes the same; walking `page=0..pages` with several `pageSize`s returns every line of
//!   the range exactly once, page by page equal to ldwarc's reader, and `showPagedIndex=true`
//!   lists the same `.idx` lines as the reader's `page_entries` (asked with `output=text`:
//!   pywb cannot render `.idx` lines as CDXJ, its `/cdx` default);
//! - `id_` replay of several captures is byte-for-byte the archived payload.

use crate::cdx_queries;
use crate::common;
use crate::serve_server::LdwarcServer;

use std::path::Path;

use cdx_queries::{Query, Row, fixed_queries, generate_query, parse_answer};
use common::generated::{GenCapture, Rng};
use common::{Pywb, PywbCollection, ldwarc, query_encode, run, stdout_ok};
use ldwarc_archive::index::query::{
    CdxQuery, Filter, MatchType, QueryOutput, SortOrder, key_range, render,
};
use ldwarc_archive::index::zipnum::{self, PageRequest, ZipNumIndex};
use serde_json::Value;

/// Generated queries compared on top of the fixed ones.
const QUERIES: usize = 120;
/// Lines per block: small, so the index has many blocks.
const LINES_PER_BLOCK: usize = 20;
/// A page size that covers every block of the test index.
const ALL_BLOCKS: usize = 100_000;

/// The test's query as the library's `CdxQuery`.
fn cdx_query(query: &Query) -> CdxQuery {
    let match_type = query.match_type.map(|m| match m {
        "exact" => MatchType::Exact,
        "prefix" => MatchType::Prefix,
        "host" => MatchType::Host,
        "domain" => MatchType::Domain,
        other => panic!("unknown match type {other}"),
    });
    CdxQuery {
        url: query.url.clone(),
        match_type,
        from: query.from.clone(),
        to: query.to.clone(),
        closest: query.closest.clone(),
        sort: if query.reverse {
            SortOrder::Reverse
        } else {
            SortOrder::Ascending
        },
        limit: query.limit,
        filters: query
            .filters
            .iter()
            .map(|f| Filter::parse(f).expect("valid filter"))
            .collect(),
        collapse_time: None,
    }
}

/// ldwarc's ZipNum reader's answer to `query`, rendered as `ldwarc query` renders it.
fn reader_answer(index: &ZipNumIndex, query: &Query, page: Option<PageRequest>) -> String {
    let captures = zipnum::run_query(index, &cdx_query(query), page).expect("zipnum query");
    let output = if query.cdxj {
        QueryOutput::Cdxj
    } else {
        QueryOutput::Json
    };
    let fields: Option<Vec<String>> = query
        .fields
        .as_ref()
        .map(|f| f.iter().map(|s| s.to_string()).collect());
    captures
        .iter()
        .map(|c| render(c, output, fields.as_deref()) + "\n")
        .collect()
}

#[test]
fn pywb_serves_ldwarc_zipnum_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let (archive, export) = common::generate_indexed(&root, 0x21_9E_4A);
    let zipnum_dir = dir.path().join("zipnum");
    let report = stdout_ok(
        &run(ldwarc()
            .arg("cdx")
            .arg("--root")
            .arg(&root)
            .arg("--zipnum")
            .arg(&zipnum_dir)
            .arg(format!("--lines-per-block={LINES_PER_BLOCK}"))
            .arg("--blocks-per-shard=4")),
        "ldwarc cdx --zipnum",
    );
    let lines: Vec<&str> = export.lines().collect();
    let blocks = lines.len().div_ceil(LINES_PER_BLOCK);
    assert!(blocks >= 12, "only {blocks} blocks: the test wants many");
    assert!(
        report.starts_with(&format!(
            "wrote {} lines in {blocks} blocks and",
            lines.len()
        )),
        "{report}"
    );
    let idx_path = zipnum_dir.join("index.idx");
    let index = ZipNumIndex::open(&idx_path).expect("open the ZipNum index");
    let mut everything = Vec::new();
    index
        .scan_lines("", None, |l| everything.push(l.to_string()))
        .expect("read the ZipNum index");
    assert_eq!(everything, lines, "the ZipNum index holds the export");

    let warc_dir = root.join("warc");
    let pywb = Pywb::start(&[PywbCollection {
        name: "zip",
        index: &idx_path,
        archive_dir: &warc_dir,
    }]);

    compare_queries(&pywb, &index, &root, &cdx_queries::rows_of_export(&export));
    let zipnum_arg = idx_path.display().to_string();
    let server = LdwarcServer::start(&root, &["--zipnum", &zipnum_arg]);
    compare_pages(&pywb, &server, &index, &lines);
    compare_replay(&pywb, &archive.captures);
}

/// Fixed and generated queries: pywb over the ZipNum index = `ldwarc query` = the reader.
fn compare_queries(pywb: &Pywb, index: &ZipNumIndex, root: &Path, rows: &[Row]) {
    let by_url = cdx_queries::web_timestamps_by_url(rows);
    let mut rng = Rng::new(0x219E_5EED);
    let queries: Vec<Query> = fixed_queries()
        .into_iter()
        .chain((0..QUERIES).map(|_| generate_query(&mut rng, rows, &by_url)))
        .collect();
    let mut mismatches = Vec::new();
    let mut nonempty = 0;
    let mut truncated = 0;
    for (n, query) in queries.iter().enumerate() {
        let path = format!("{}&pageSize={ALL_BLOCKS}", query.path("/zip/cdx"));
        let response = pywb.get(&path);
        assert_eq!(response.status, 200, "pywb: {path}: {}", response.text());
        let theirs = parse_answer(&response.text(), query.cdxj, false, "pywb");
        let ours = parse_answer(
            &stdout_ok(&run(ldwarc().args(query.ldwarc_args(root))), "ldwarc query"),
            query.cdxj,
            true,
            "ldwarc query",
        );
        let reader = parse_answer(
            &reader_answer(index, query, None),
            query.cdxj,
            true,
            "reader",
        );
        if ours != theirs || reader != theirs {
            mismatches.push(format!(
                "query {n}: {query:?}\n  pywb {}: {:?}\n  ldwarc query {}, reader {}",
                theirs.len(),
                theirs.iter().take(3).collect::<Vec<_>>(),
                ours.len(),
                reader.len()
            ));
        }
        nonempty += usize::from(!theirs.is_empty());
        // Without pageSize pywb answers the first page of 10 blocks: so does the reader.
        let first_page = pywb.get(&query.path("/zip/cdx"));
        let theirs = parse_answer(&first_page.text(), query.cdxj, false, "pywb");
        let request = PageRequest {
            page: 0,
            page_size: zipnum::DEFAULT_PAGE_SIZE,
        };
        let reader = parse_answer(
            &reader_answer(index, query, Some(request)),
            query.cdxj,
            true,
            "reader",
        );
        if reader != theirs {
            mismatches.push(format!(
                "query {n} (first page): {query:?}\n  pywb {}, reader {}",
                theirs.len(),
                reader.len()
            ));
        }
        truncated += usize::from(theirs.len() < ours.len());
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} queries differ:\n{}",
        mismatches.len(),
        queries.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    assert!(
        truncated >= 2,
        "only {truncated} queries reach past the first page"
    );
    assert!(
        nonempty >= queries.len() / 2,
        "only {nonempty} queries found captures"
    );
}

/// The key ranges paged through: domains, a host, a prefix and an exact URL.
const PAGED: &[(&str, &str)] = &[
    ("example.org", "domain"),
    ("org", "domain"),
    ("com", "domain"),
    ("http://example.org/", "host"),
    ("http://example.org/resource/", "prefix"),
    ("http://example.org/resource/Berlin", "exact"),
    ("nowhere.invalid", "domain"),
];

/// `showNumPages`, `showPagedIndex` and every page, against the reader and the export, and
/// `ldwarc serve --zipnum` against pywb.
fn compare_pages(pywb: &Pywb, server: &LdwarcServer, index: &ZipNumIndex, lines: &[&str]) {
    let mut multi_page = 0;
    for &(url, match_type) in PAGED {
        let base = format!(
            "/zip/cdx?url={}&matchType={match_type}&nosource=true&allowFuzzy=0",
            query_encode(url)
        );
        let match_enum = match match_type {
            "exact" => MatchType::Exact,
            "prefix" => MatchType::Prefix,
            "host" => MatchType::Host,
            _ => MatchType::Domain,
        };
        let (start, end) = key_range(url, match_enum);
        let in_range: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| *l >= start.as_str() && *l < end.as_str())
            .collect();
        for page_size in [None, Some(1), Some(2), Some(3), Some(7)] {
            let size_param = page_size.map_or(String::new(), |s| format!("&pageSize={s}"));
            let size = page_size.unwrap_or(zipnum::DEFAULT_PAGE_SIZE);
            let what = format!("{url} ({match_type}) pageSize {page_size:?}");
            let info = index.page_info(&start, &end, size).expect("page info");
            let answer = pywb.get(&format!("{base}{size_param}&showNumPages=true"));
            assert_eq!(answer.status, 200, "{what}: {}", answer.text());
            let theirs: Value = serde_json::from_str(answer.text().trim())
                .unwrap_or_else(|e| panic!("{what}: showNumPages {:?}: {e}", answer.text()));
            let ours: Value = serde_json::from_str(&info.to_json()).expect("page info JSON");
            assert_eq!(theirs, ours, "{what}: showNumPages");
            let served = server.get(&format!(
                "{}{size_param}&showNumPages=true",
                serve_path(&base)
            ));
            assert_eq!(served.status, 200, "{what}: serve: {}", served.text());
            let served: Value = serde_json::from_str(served.text().trim())
                .unwrap_or_else(|e| panic!("{what}: serve showNumPages {:?}: {e}", served.text()));
            assert_eq!(served, theirs, "{what}: serve showNumPages");
            if info.pages > 1 {
                multi_page += 1;
            }
            let mut walked: Vec<String> = Vec::new();
            for page in 0..info.pages {
                let request = PageRequest {
                    page,
                    page_size: size,
                };
                let page_path = format!("{base}{size_param}&page={page}&output=cdxj");
                let theirs = pywb.get(&page_path);
                assert_eq!(theirs.status, 200, "{what} page {page}: {}", theirs.text());
                let mut ours = Vec::new();
                index
                    .page_lines(&start, &end, request, |l| ours.push(l.to_string()))
                    .expect("page lines");
                let theirs_rows = parse_answer(&theirs.text(), true, false, "pywb page");
                let ours_text: String = ours.iter().map(|l| format!("{l}\n")).collect();
                // pywb renders the stored line with its own JSON spelling: compare parsed.
                let ours_rows = parse_answer(&ours_text, true, true, "reader page");
                // pywb matches exact URLs by SURT only; the reader's lines are the raw range.
                assert_eq!(theirs_rows, ours_rows, "{what} page {page}");
                walked.extend(ours);
                let served_page = server.get(&serve_path(&page_path));
                assert_eq!(served_page.status, 200, "{what} page {page}: serve");
                // The server applies the exact-URL check pywb's SURT match does not: compare
                // with pywb's rows for ranges wider than one URL, and contain them otherwise.
                let served_rows = parse_answer(&served_page.text(), true, true, "serve page");
                if match_type == "exact" {
                    assert!(
                        served_rows.iter().all(|row| theirs_rows.contains(row)),
                        "{what} page {page}: serve"
                    );
                } else {
                    assert_eq!(served_rows, theirs_rows, "{what} page {page}: serve");
                }

                let paged_index = pywb.get(&format!(
                    "{base}{size_param}&page={page}&showPagedIndex=true&output=text"
                ));
                let entries = index
                    .page_entries(&start, &end, request)
                    .expect("page entries");
                let expected: Vec<String> = entries.iter().map(|e| e.to_line()).collect();
                let got: Vec<String> = paged_index
                    .text()
                    .lines()
                    .map(|l| l.trim_end().to_string())
                    .collect();
                assert_eq!(got, expected, "{what} page {page}: showPagedIndex");
                let served_index = server.get(&format!(
                    "{}{size_param}&page={page}&showPagedIndex=true",
                    serve_path(&base)
                ));
                let served_lines: Vec<String> =
                    served_index.text().lines().map(str::to_string).collect();
                assert_eq!(
                    served_lines, expected,
                    "{what} page {page}: serve showPagedIndex"
                );
            }
            assert_eq!(walked, in_range, "{what}: pages cover the range once");
            // One page too far: pywb refuses it, and so does the reader.
            if info.pages > 0 {
                let beyond = pywb.get(&format!("{base}{size_param}&page={}", info.pages));
                assert_ne!(beyond.status, 200, "{what}: page {} exists", info.pages);
                let served_beyond = server.get(&format!(
                    "{}{size_param}&page={}",
                    serve_path(&base),
                    info.pages
                ));
                assert_eq!(
                    served_beyond.status, 400,
                    "{what}: serve page {}",
                    info.pages
                );
                assert!(
                    served_beyond.text().contains("invalid"),
                    "{}",
                    served_beyond.text()
                );
                let request = PageRequest {
                    page: info.pages,
                    page_size: size,
                };
                assert!(index.page_entries(&start, &end, request).is_err());
            }
        }
    }
    assert!(multi_page >= 8, "only {multi_page} multi-page walks");
}

/// The same request to `ldwarc serve`, whose CDX API is at `/cdx`.
fn serve_path(pywb_path: &str) -> String {
    pywb_path.replacen("/zip/cdx", "/cdx", 1)
}

/// `id_` replay through the ZipNum index returns the archived payloads.
fn compare_replay(pywb: &Pywb, captures: &[GenCapture]) {
    let timestamp = |c: &GenCapture| c.time.format("%Y%m%d%H%M%S").to_string();
    let loose = |url: &str| {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let rest = rest.strip_prefix("www.").unwrap_or(rest);
        rest.trim_end_matches('/').to_lowercase()
    };
    let unique = |c: &GenCapture| {
        captures
            .iter()
            .filter(|o| loose(&o.url) == loose(&c.url) && timestamp(o) == timestamp(c))
            .count()
            == 1
    };
    let mut chosen: Vec<&GenCapture> = Vec::new();
    for c in captures {
        let wanted = c.record_type == "response"
            && c.status == Some(200)
            && c.url.is_ascii()
            && !c.url.contains('?')
            && c.url.starts_with("http")
            && unique(c)
            && !chosen.iter().any(|o| o.url == c.url);
        if wanted {
            chosen.push(c);
        }
    }
    assert!(
        chosen.len() >= 5,
        "only {} replayable captures",
        chosen.len()
    );
    for capture in chosen.iter().step_by((chosen.len() / 8).max(1)) {
        let path = format!("/zip/{}id_/{}", timestamp(capture), capture.url);
        let response = pywb.get(&path);
        assert_eq!(
            response.status,
            200,
            "GET {path}: {}\n{}",
            response.text(),
            pywb.log()
        );
        let expected = capture.time.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        assert_eq!(
            response.header("Memento-Datetime"),
            Some(expected.as_str()),
            "{path}: another capture"
        );
        assert!(
            response.body == capture.payload,
            "{path}: body ({} bytes) is not the archived payload ({} bytes)",
            response.body.len(),
            capture.payload.len()
        );
    }
}
