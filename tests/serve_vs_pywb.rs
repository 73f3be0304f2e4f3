//! `ldwarc serve` against pywb 2.10.0 on the same archive: a generated archive
//! (`common/generated.rs`), pywb over ldwarc's CDXJ export and the WARC tree, both servers
//! started by the test on loopback.
//!
//! - CDX API: the 285 queries of `tests/query_vs_pywb.rs` (hand-picked and generated) asked of
//!   `/cdx` and of pywb's `/<coll>/cdx`, answers compared parsed (with the documented pywb
//!   quoting of non-ASCII `url`s, see that test); plus `output=text` and `output=link`
//!   compared byte for byte on ASCII answers.
//! - `id_` replay: every response/revisit of a plain URL (ASCII, no query: pywb redirects
//!   others to its canonical form) alone in its second: same status, same body bytes (which
//!   are the archived payload), same `Memento-Datetime`. Not compared, by design: archived
//!   redirects to the same SURT (`http:` → `https:`), which pywb skips to serve another
//!   capture, while ldwarc serves the redirect that was archived; and the bodies of revisits
//!   of redirects, which pywb leaves empty (it resolves no 3xx revisit) while ldwarc serves
//!   the original's payload (status and datetime are still compared).
//! - TimeGate: for every plain URL and dates at, between, before and after its captures,
//!   the memento chosen (pywb's `Link` `rel="memento"`, ldwarc's 302 `Location`) has the
//!   same datetime, except where ldwarc chooses a self-redirect pywb skips (above).
//! - TimeMaps: for every plain URL, link and JSON TimeMaps list the same memento datetimes
//!   (one per second: pywb lists every CDX line, including a `metadata` record sharing its
//!   response's second; ldwarc one memento per second of replayable records).
//!
//! pywb is always asked with `nosource=true` and `allowFuzzy=0` (see `query_vs_pywb.rs`).

use crate::cdx_queries;
use crate::common;
use crate::serve_server;

use std::collections::{BTreeMap, BTreeSet};

use cdx_queries::{Row, fixed_queries, generate_query, parse_answer, seconds, timestamp_of};
use common::generated::{self, GenCapture, Rng};
use common::{Pywb, PywbCollection};
use serde_json::Value;
use serve_server::{LdwarcServer, get_with, parse_links};

const QUERIES: usize = 260;

fn http_date_of(timestamp: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(timestamp, "%Y%m%d%H%M%S")
        .expect("14-digit timestamp")
        .and_utc()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

struct Setup {
    _dir: tempfile::TempDir,
    archive: generated::GeneratedArchive,
    rows: Vec<Row>,
    by_url: BTreeMap<String, Vec<String>>,
    pywb: Pywb,
    ours: LdwarcServer,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    let (archive, export) = common::generate_indexed(&root, 0xC0FFEE);
    let index_file = dir.path().join("gen.cdxj");
    std::fs::write(&index_file, &export).expect("write the CDXJ export");
    let rows = cdx_queries::rows_of_export(&export);
    let by_url = cdx_queries::web_timestamps_by_url(&rows);
    let warc_dir = root.join("warc");
    let pywb = Pywb::start(&[PywbCollection {
        name: "gen",
        index: &index_file,
        archive_dir: &warc_dir,
    }]);
    let ours = LdwarcServer::start(&root, &[]);
    Setup {
        _dir: dir,
        archive,
        rows,
        by_url,
        pywb,
        ours,
    }
}

#[test]
fn serve_answers_like_pywb() {
    let setup = setup();
    compare_cdx(&setup);
    compare_cdx_text_and_link(&setup);
    compare_id_replay(&setup);
    compare_timegates(&setup);
    compare_timemaps(&setup);
}

fn compare_cdx(setup: &Setup) {
    let mut rng = Rng::new(0x5EED_2026);
    let queries: Vec<_> = fixed_queries()
        .into_iter()
        .chain((0..QUERIES).map(|_| generate_query(&mut rng, &setup.rows, &setup.by_url)))
        .collect();
    assert!(queries.len() >= 200);
    let mut mismatches = Vec::new();
    let mut nonempty = 0;
    for (n, query) in queries.iter().enumerate() {
        let theirs = setup.pywb.get(&query.path("/gen/cdx"));
        let ours = setup.ours.get(&query.path("/cdx"));
        assert_eq!(theirs.status, 200, "pywb: {query:?}: {}", theirs.text());
        assert_eq!(ours.status, 200, "ldwarc: {query:?}: {}", ours.text());
        let theirs = parse_answer(&theirs.text(), query.cdxj, false, "pywb");
        let ours = parse_answer(&ours.text(), query.cdxj, true, "ldwarc serve");
        if !theirs.is_empty() {
            nonempty += 1;
        }
        if ours != theirs {
            mismatches.push(format!(
                "query {n}: {query:?}\n  ldwarc ({}): {:?}\n  pywb   ({}): {:?}",
                ours.len(),
                ours.iter().take(3).collect::<Vec<_>>(),
                theirs.len(),
                theirs.iter().take(3).collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} CDX queries differ from pywb:\n{}",
        mismatches.len(),
        queries.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    assert!(
        nonempty >= QUERIES / 2,
        "only {nonempty} queries found captures"
    );
}

/// `output=text` (with and without `fl`) and `output=link`, byte for byte, on URLs whose
/// answers are ASCII (pywb quotes non-ASCII URLs).
fn compare_cdx_text_and_link(setup: &Setup) {
    let mut compared = 0;
    for url in setup.by_url.keys().filter(|u| u.is_ascii()) {
        let encoded = common::query_encode(url);
        for params in [
            "output=text",
            // An unknown field is a 400 here (pywb accepts it): not compared.
            "output=text&fl=timestamp,status,digest",
            "output=link",
            "output=link&sort=reverse&limit=2",
            "output=json&matchType=host&limit=5",
            // pywb's boolean `reverse`, `limit=0` (no limit), `from`/`to` compared as text
            // (19 digits; month 13).
            "output=text&reverse=true",
            "output=link&reverse=1&limit=2",
            "output=text&reverse=false",
            "output=text&limit=0",
            "output=json&limit=0",
            "output=text&from=2024010100000000000",
            "output=text&from=2023130100",
            "output=text&to=20231301",
        ] {
            let path = |prefix: &str| {
                format!("{prefix}?url={encoded}&{params}&nosource=true&allowFuzzy=0")
            };
            let theirs = setup.pywb.get(&path("/gen/cdx"));
            let ours = setup.ours.get(&path("/cdx"));
            assert_eq!(
                (ours.status, ours.text()),
                (theirs.status, theirs.text()),
                "{url} {params}"
            );
            assert_eq!(
                ours.header("content-type"),
                theirs.header("content-type"),
                "{url} {params}"
            );
            compared += 1;
        }
    }
    assert!(
        compared >= 100,
        "only {compared} text/link answers compared"
    );
}

/// The second a capture was made, as a timestamp.
fn timestamp(capture: &GenCapture) -> String {
    capture.time.format("%Y%m%d%H%M%S").to_string()
}

/// ASCII, no query: pywb serves these as asked.
fn plain(url: &str) -> bool {
    url.is_ascii() && !url.contains('?') && url.starts_with("http")
}

/// SURT-equal stand-in (scheme, `www.`, case, trailing slash ignored), as pywb looks up.
fn loose_key(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    rest.trim_end_matches('/').to_lowercase()
}

fn compare_id_replay(setup: &Setup) {
    let captures = &setup.archive.captures;
    let alone = |c: &GenCapture| {
        captures
            .iter()
            .filter(|o| loose_key(&o.url) == loose_key(&c.url) && timestamp(o) == timestamp(c))
            .count()
            == 1
    };
    let mut compared = 0;
    let mut revisits = 0;
    for capture in captures
        .iter()
        .filter(|c| matches!(c.record_type, "response" | "revisit"))
        .filter(|c| plain(&c.url) && alone(c))
    {
        let path = |prefix: &str| format!("{prefix}/{}id_/{}", timestamp(capture), capture.url);
        let theirs = setup.pywb.get(&path("/gen"));
        if theirs.status >= 500 || theirs.status == 404 {
            // pywb cannot replay this record (e.g. a 304 revisit without an original):
            // nothing to compare.
            continue;
        }
        let ours = setup.ours.get(&path("/web"));
        if is_self_redirect(&ours, &capture.url) {
            // pywb skips a redirect to the same SURT (http -> https) and serves another
            // capture; ldwarc serves what was archived.
            continue;
        }
        let what = format!(
            "{} {} ({})",
            capture.url,
            timestamp(capture),
            capture.record_type
        );
        assert_eq!(ours.status, theirs.status, "{what}: status");
        let redirect_revisit =
            capture.record_type == "revisit" && (300..400).contains(&ours.status);
        assert!(
            ours.body == theirs.body || redirect_revisit,
            "{what}: bodies differ:\n{:?}\n{}\n---\n{:?}\n{}",
            ours.headers,
            ours.text(),
            theirs.headers,
            theirs.text()
        );
        assert_eq!(
            ours.header("memento-datetime"),
            theirs.header("memento-datetime"),
            "{what}"
        );
        if capture.status == Some(200) {
            assert!(
                ours.body == capture.payload,
                "{what}: not the archived payload"
            );
        }
        assert_eq!(
            ours.header("content-security-policy"),
            Some("sandbox"),
            "{what}"
        );
        compared += 1;
        if capture.record_type == "revisit" {
            revisits += 1;
        }
    }
    assert!(compared >= 30, "only {compared} id_ replays compared");
    assert!(revisits >= 5, "only {revisits} revisits compared");
}

/// Whether an `id_` answer is an archived redirect to a URL with the same SURT.
fn is_self_redirect(response: &common::HttpResponse, url: &str) -> bool {
    (300..400).contains(&response.status)
        && response
            .header("location")
            .and_then(|l| l.split("id_/").nth(1))
            .is_some_and(|target| loose_key(target) == loose_key(url))
}

/// The datetime of the memento pywb's TimeGate picks (its `Link` `rel="memento"`).
fn pywb_choice(setup: &Setup, url: &str, accept_datetime: &str) -> Option<String> {
    let response = get_with(
        setup.pywb.port(),
        &format!("/gen/id_/{url}"),
        &[("Accept-Datetime", accept_datetime)],
    );
    let link = response.header("link")?.to_string();
    parse_links(&link)
        .into_iter()
        .find(|(rel, _, _)| rel.split(' ').any(|r| r == "memento"))
        .and_then(|(_, _, datetime)| datetime)
}

/// Path and query as spelled (after scheme and host).
fn spelling(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("", |slash| &rest[slash..])
}

/// Whether another archived URL shares `url`'s SURT but is spelled differently in path or
/// query (`/resource/Berlin` and `/resource/Berlin/`): twins, which ldwarc replays each as
/// itself and pywb as one resource (a documented difference, checked by
/// `tests/serve_twins.rs`), so their TimeGates and TimeMaps are not compared.
fn has_twin(setup: &Setup, url: &str) -> bool {
    setup
        .by_url
        .keys()
        .any(|other| loose_key(other) == loose_key(url) && spelling(other) != spelling(url))
}

fn compare_timegates(setup: &Setup) {
    let mut compared = 0;
    for (url, stamps) in setup
        .by_url
        .iter()
        .filter(|(u, _)| plain(u) && !has_twin(setup, u))
    {
        let mut dates: BTreeSet<String> = BTreeSet::new();
        let first = seconds(&stamps[0]);
        let last = seconds(&stamps[stamps.len() - 1]);
        dates.insert(timestamp_of(first - 86_400 * 400));
        dates.insert(timestamp_of(last + 86_400 * 400));
        for pair in stamps.windows(2) {
            let (a, b) = (seconds(&pair[0]), seconds(&pair[1]));
            dates.insert(timestamp_of(a + (b - a) / 2));
            dates.insert(timestamp_of(a + (b - a) / 3));
        }
        dates.extend(stamps.iter().cloned());
        for date in dates {
            let accept = http_date_of(&date);
            let Some(theirs) = pywb_choice(setup, url, &accept) else {
                continue;
            };
            let ours = setup
                .ours
                .get_with(&format!("/web/{url}"), &[("Accept-Datetime", &accept)]);
            assert_eq!(ours.status, 302, "{url} @ {accept}: {}", ours.text());
            assert_eq!(ours.header("vary"), Some("accept-datetime"));
            let location = ours.header("location").expect("Location").to_string();
            let stamp = location
                .split("/web/")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .expect("timestamp in Location")
                .to_string();
            let chosen = setup.ours.get(&format!("/web/{stamp}id_/{url}"));
            if is_self_redirect(&chosen, url) {
                continue;
            }
            assert_eq!(
                http_date_of(&stamp),
                theirs,
                "{url} @ {accept}: TimeGate choice"
            );
            compared += 1;
        }
    }
    assert!(compared >= 100, "only {compared} TimeGate answers compared");
}

fn memento_dates(links: &str) -> BTreeSet<String> {
    parse_links(links)
        .into_iter()
        .filter(|(rel, _, _)| rel.split(' ').any(|r| r == "memento"))
        .filter_map(|(_, _, datetime)| datetime)
        .collect()
}

fn json_dates(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let value: Value = serde_json::from_str(l).expect("JSON TimeMap line");
            http_date_of(value["timestamp"].as_str().expect("timestamp"))
        })
        .collect()
}

fn compare_timemaps(setup: &Setup) {
    let mut compared = 0;
    for url in setup
        .by_url
        .keys()
        .filter(|u| plain(u) && !has_twin(setup, u))
    {
        let theirs = setup.pywb.get(&format!("/gen/timemap/link/{url}"));
        let ours = setup.ours.get(&format!("/timemap/link/{url}"));
        assert_eq!(theirs.status, 200, "pywb TimeMap of {url}");
        assert_eq!(ours.status, 200, "ldwarc TimeMap of {url}: {}", ours.text());
        assert_eq!(ours.header("content-type"), Some("application/link-format"));
        assert_eq!(
            memento_dates(&ours.text()),
            memento_dates(&theirs.text()),
            "link TimeMap of {url}"
        );
        let theirs = setup.pywb.get(&format!("/gen/timemap/json/{url}"));
        let ours = setup.ours.get(&format!("/timemap/json/{url}"));
        assert_eq!(
            json_dates(&ours.text()),
            json_dates(&theirs.text()),
            "JSON TimeMap of {url}"
        );
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} TimeMaps compared");
}
