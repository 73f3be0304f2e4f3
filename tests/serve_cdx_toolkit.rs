//! cdx-toolkit (the Python client most scripts page through CDX servers with) against `ldwarc
//! serve` without a ZipNum index: `iter()` over a host prefix asks for `page=0`, `page=1`, …
//! until a 400 and must yield every capture `ldwarc query` lists, on both CDX dialects, when
//! the answer spans one page and when it spans many; `get()` returns the same captures; the
//! size estimate (`showNumPages`) is within cdx-toolkit's resolution of one block of 3,000
//! captures.

use crate::common;
use crate::serve_server;

use std::collections::BTreeMap;

use common::{generate_indexed, ldwarc, run, stdout_ok, venv_bin};
use serde_json::Value;
use serve_server::LdwarcServer;

const PREFIX: &str = "example.org/*";

/// What cdx-toolkit makes of one CDX endpoint: `[url, timestamp]` rows of `iter()` and
/// `get()`, the size estimate and the page count (`showNumPages`).
const CLIENT: &str = r#"
import json, sys
import cdx_toolkit
endpoint, url = sys.argv[1], sys.argv[2]
cdx = cdx_toolkit.CDXFetcher(source=endpoint)
rows = [[c["url"], c["timestamp"]] for c in cdx.iter(url)]
got = [[c["url"], c["timestamp"]] for c in cdx.get(url, limit=1000000)]
print(json.dumps({
    "iter": rows,
    "get": got,
    "estimate": cdx.get_size_estimate(url),
    "pages": cdx.get_size_estimate(url, as_pages=True),
}))
"#;

/// A multiset of `[url, timestamp]` rows.
fn counted(rows: &Value) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for row in rows.as_array().expect("rows") {
        let key = (
            row[0].as_str().expect("url").to_string(),
            row[1].as_str().expect("timestamp").to_string(),
        );
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

fn client(endpoint: &str) -> Value {
    let output = run(std::process::Command::new(venv_bin("python"))
        .args(["-c", CLIENT, endpoint, PREFIX])
        // cdx-toolkit waits 3 s between requests to one host unless told otherwise.
        .env("CDXT_DEFAULT_MIN_RETRY_INTERVAL", "0"));
    let text = stdout_ok(&output, &format!("cdx-toolkit against {endpoint}"));
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn cdx_toolkit_pages_through_the_capture_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("archive");
    generate_indexed(&root, 0xCD7);
    let listed = stdout_ok(
        &run(ldwarc()
            .args(["query", PREFIX, "--output=json", "--root"])
            .arg(&root)),
        "ldwarc query",
    );
    let expected: Vec<Value> = listed
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).expect("JSON line");
            serde_json::json!([row["url"], row["timestamp"]])
        })
        .collect();
    let expected = counted(&Value::Array(expected));
    let total: usize = expected.values().sum();
    assert!(
        total > 80,
        "the prefix needs captures for many pages: {total}"
    );

    // One page (blocks of 3,000 captures), then blocks of 4: 10 blocks a page, several pages.
    for (extra, min_pages) in [(&[][..], 1), (&["--cdx-block-captures", "4"][..], 3)] {
        let server = LdwarcServer::start(&root, extra);
        for path in ["/cdx", "/cdx/search/cdx"] {
            let endpoint = format!("http://127.0.0.1:{}{path}", server.port);
            let answer = client(&endpoint);
            let what = format!("{endpoint} {extra:?}");
            assert_eq!(counted(&answer["iter"]), expected, "iter() of {what}");
            assert_eq!(counted(&answer["get"]), expected, "get() of {what}");
            let pages = answer["pages"].as_u64().expect("pages") as usize;
            assert!(pages >= min_pages, "{what}: {pages} pages");
            if extra.is_empty() {
                let estimate = answer["estimate"].as_i64().expect("estimate");
                assert!(
                    estimate > 0 && (estimate - total as i64).abs() <= 3000,
                    "{what}: estimate {estimate} for {total} captures"
                );
            }
        }
        // Past the last page: pywb's 400, which tells cdx-toolkit to stop.
        let past = server.get(&format!("/cdx?url={PREFIX}&page=999"));
        assert_eq!(past.status, 400, "{}", past.text());
        assert!(
            past.text().starts_with("Page 999 invalid"),
            "{}",
            past.text()
        );
    }
}
