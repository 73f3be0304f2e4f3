//! `ldwarc cdx --format parquet`: the capture index in Common Crawl's cc-index-table layout,
//! read back by pyarrow and DuckDB (the schema equal to cc-index-table's schema JSON, one row
//! per `ldwarc cdx` line, DuckDB's lookups equal to `ldwarc query`, row groups sorted, a
//! second export only adding files), and its refusals (one line, exit 2, nothing written).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{self, ldwarc, run, stdout_ok};
use crate::synthetic_archive::{self, Spec};

/// The probe that reads an export with pyarrow and DuckDB.
fn probe(args: &[&str]) -> String {
    let script = common::manifest_dir().join("tests/support/parquet_probe.py");
    let output = run(Command::new(common::venv_bin("python"))
        .arg(script)
        .args(args));
    stdout_ok(&output, &format!("parquet_probe.py {args:?}"))
}

fn export(root: &Path, out: &Path, crawl: &str) -> String {
    stdout_ok(
        &run(ldwarc()
            .args(["cdx", "--format", "parquet", "--crawl", crawl, "--root"])
            .arg(root)
            .arg("--output")
            .arg(out)),
        "ldwarc cdx --format parquet",
    )
}

fn cdx_lines(root: &Path) -> Vec<Value> {
    let text = stdout_ok(
        &run(ldwarc()
            .args(["cdx", "--format", "json", "--root"])
            .arg(root)),
        "ldwarc cdx --format json",
    );
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn rows(out: &Path) -> Vec<Value> {
    probe(&["rows", out.to_str().unwrap()])
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON row"))
        .collect()
}

/// The type pyarrow shows for a Spark type of the schema JSON.
fn arrow_type(spark: &str) -> &'static str {
    match spark {
        "string" => "string",
        "integer" => "int32",
        "short" => "int16",
        "long" => "int64",
        "timestamp" => "timestamp[ms, tz=UTC]",
        "binary" => "binary",
        other => panic!("a type the fixture should not have: {other}"),
    }
}

/// Every file under `dir` with its bytes.
fn files_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The 14-digit UTC timestamp of milliseconds since the epoch.
fn timestamp14(millis: i64) -> String {
    chrono::DateTime::from_timestamp_millis(millis)
        .unwrap()
        .format("%Y%m%d%H%M%S")
        .to_string()
}

#[test]
fn parquet_export_is_the_cc_index_table_as_pyarrow_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    common::generate_indexed(&root, 32);
    let out = dir.path().join("table");
    let said = export(&root, &out, "TEST-1");
    assert!(said.starts_with("wrote "), "{said}");

    // Schema: cc-index-table's flat schema (without the partition columns, as Spark writes
    // it) in its order and types, then ldwarc's columns, then crawl and subset as hive
    // partitions.
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(common::fixture("cc-index-table/cc-index-schema-flat.json"))
            .unwrap(),
    )
    .unwrap();
    let theirs: Vec<(String, String, bool)> = fixture["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                arrow_type(f["type"].as_str().unwrap()).to_string(),
                f["nullable"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(theirs.len(), 32);
    let schema: Value = serde_json::from_str(&probe(&["schema", out.to_str().unwrap()])).unwrap();
    let ours: Vec<(String, String, bool)> = schema["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["type"].as_str().unwrap().to_string(),
                f["nullable"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(ours[..30], theirs[..30], "the table's 30 file columns");
    let ld: Vec<(&str, &str, bool)> = ours[30..]
        .iter()
        .map(|(n, t, b)| (n.as_str(), t.as_str(), *b))
        .collect();
    assert_eq!(
        ld,
        [
            ("warc_record_type", "string", false),
            ("rdf_syntax", "string", true),
            ("statement_count", "int64", true),
            ("graph_hash", "string", true),
            ("revisit_original_time", "timestamp[ms, tz=UTC]", true),
            ("warc_record_offset_long", "int64", false),
            ("warc_record_length_long", "int64", false),
        ]
    );
    let dataset: Vec<&str> = schema["dataset"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(dataset[dataset.len() - 2..], ["crawl", "subset"]);

    // One row per `ldwarc cdx` line, with the line's values.
    let lines = cdx_lines(&root);
    let table = rows(&out);
    assert_eq!(table.len(), lines.len(), "one row per cdx line");
    let key = |filename: &str, offset: i64| (filename.to_string(), offset);
    let by_place: BTreeMap<(String, i64), &Value> = table
        .iter()
        .map(|row| {
            (
                key(
                    str_of(row, "warc_filename").unwrap(),
                    row["warc_record_offset"].as_i64().unwrap(),
                ),
                row,
            )
        })
        .collect();
    assert_eq!(by_place.len(), table.len(), "every record once");
    let mut subsets = BTreeSet::new();
    for line in &lines {
        let filename = format!("warc/{}", str_of(line, "filename").unwrap());
        // `cdx --format json` writes offset, length and status as numbers.
        let offset = line["offset"].as_i64().expect("offset");
        let row = by_place
            .get(&key(&filename, offset))
            .unwrap_or_else(|| panic!("no row for {line}"));
        assert_eq!(str_of(row, "url_surtkey"), str_of(line, "urlkey"), "{line}");
        assert_eq!(str_of(row, "url"), str_of(line, "url"), "{line}");
        assert_eq!(
            timestamp14(row["fetch_time"].as_i64().unwrap()),
            str_of(line, "timestamp").unwrap(),
            "{line}"
        );
        let length = line["length"].as_i64().expect("length");
        assert_eq!(row["warc_record_length"].as_i64(), Some(length));
        assert_eq!(row["warc_record_length_long"].as_i64(), Some(length));
        assert_eq!(row["warc_record_offset_long"].as_i64(), Some(offset));
        let status: Option<i64> = line["status"].as_i64();
        assert_eq!(
            row["fetch_status"].as_i64(),
            Some(status.unwrap_or(-1)),
            "{line}"
        );
        assert_eq!(
            str_of(row, "content_mime_type"),
            str_of(line, "mime"),
            "{line}"
        );
        assert_eq!(
            str_of(row, "content_digest"),
            str_of(line, "digest").map(|d| d.strip_prefix("sha1:").unwrap_or(d)),
            "{line}"
        );
        assert_eq!(str_of(row, "crawl"), Some("TEST-1"));
        let subset = match status {
            _ if str_of(row, "url_path") == Some("/robots.txt") => "robotstxt",
            Some(s) if !(200..300).contains(&s) => "crawldiagnostics",
            _ => "warc",
        };
        assert_eq!(str_of(row, "subset"), Some(subset), "{line}");
        subsets.insert(subset);
        // warc_filename + offset + length is a ranged read of the record.
        let mut file = std::fs::File::open(root.join(&filename)).unwrap();
        file.seek(SeekFrom::Start(offset as u64)).unwrap();
        let mut record = vec![0u8; length as usize];
        file.read_exact(&mut record).unwrap();
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(&record[..])
            .read_to_end(&mut text)
            .unwrap();
        let text = String::from_utf8_lossy(&text);
        assert!(text.starts_with("WARC/1."), "{filename}@{offset}");
        assert!(
            text.contains(&format!(
                "WARC-Target-URI: {}",
                str_of(line, "url").unwrap()
            )),
            "{filename}@{offset}"
        );
    }
    assert_eq!(
        subsets,
        BTreeSet::from(["warc", "crawldiagnostics"]),
        "the archive has 2xx and non-2xx captures"
    );

    // Host columns as Common Crawl derives them.
    let bbc = table
        .iter()
        .find(|r| {
            str_of(r, "url") == Some("http://www.bbc.co.uk/things/abc123.jsonld")
                && str_of(r, "warc_record_type") == Some("response")
        })
        .expect("a response of the BBC URL");
    for (column, want) in [
        ("url_host_name", Some("www.bbc.co.uk")),
        ("url_host_tld", Some("uk")),
        ("url_host_2nd_last_part", Some("co")),
        ("url_host_3rd_last_part", Some("bbc")),
        ("url_host_4th_last_part", Some("www")),
        ("url_host_5th_last_part", None),
        ("url_host_registry_suffix", Some("co.uk")),
        ("url_host_registered_domain", Some("bbc.co.uk")),
        ("url_host_private_suffix", Some("co.uk")),
        ("url_host_private_domain", Some("bbc.co.uk")),
        ("url_host_name_reversed", Some("uk.co.bbc.www")),
        ("url_protocol", Some("http")),
        ("url_path", Some("/things/abc123.jsonld")),
        ("url_query", None),
        ("rdf_syntax", Some("jsonld")),
        ("warc_segment", None),
    ] {
        if column == "warc_segment" {
            // The folder below warc/ the file lies in.
            let filename = str_of(bbc, "warc_filename").unwrap();
            let folder = filename
                .strip_prefix("warc/")
                .unwrap()
                .rsplit_once('/')
                .map_or(".", |(folder, _)| folder);
            assert_eq!(str_of(bbc, column), Some(folder));
            continue;
        }
        assert_eq!(str_of(bbc, column), want, "{column}");
    }
    assert!(bbc["url_port"].is_null());

    // Rows sorted by url_surtkey in each file; row groups' min/max increasing (Common
    // Crawl's are_part_min_max_increasing.py check).
    let groups: BTreeMap<String, Vec<(String, String, u64)>> =
        serde_json::from_str(&probe(&["rowgroups", out.to_str().unwrap()])).unwrap();
    assert_eq!(groups.len(), 2, "one part file per subset: {groups:?}");
    for (file, groups) in &groups {
        let mut previous_max: Option<&str> = None;
        for (min, max, _) in groups {
            assert!(min <= max, "{file}");
            if let Some(previous) = previous_max {
                assert!(previous <= min.as_str(), "{file}: {previous} > {min}");
            }
            previous_max = Some(max);
        }
    }
    let mut per_subset: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in &table {
        per_subset
            .entry(str_of(row, "subset").unwrap())
            .or_default()
            .push(str_of(row, "url_surtkey").unwrap());
    }
    for (subset, keys) in per_subset {
        assert!(keys.is_sorted(), "{subset}: rows not sorted by url_surtkey");
    }

    // The paths list names every part file.
    let paths = std::fs::read_to_string(out.join("_index-table.paths")).unwrap();
    let listed: BTreeSet<&str> = paths.lines().collect();
    let written: BTreeSet<&str> = groups.keys().map(String::as_str).collect();
    assert_eq!(listed, written);
}

/// A synthetic archive's hours `hours` (written in full into `staging` first) copied into
/// `root/warc`.
fn copy_hours(staging: &Path, root: &Path, hours: &[u32]) {
    for entry in walkdir::WalkDir::new(staging.join("warc")) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = entry.path().strip_prefix(staging).unwrap();
        // warc/2026/01/01/HH/<pld>/file
        let hour: u32 = relative
            .components()
            .nth(4)
            .and_then(|c| c.as_os_str().to_str())
            .and_then(|h| h.parse().ok())
            .unwrap_or_else(|| panic!("an hour folder in {}", relative.display()));
        if hours.contains(&hour) {
            let target = root.join(relative);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn duckdb_lookups_equal_ldwarc_query_and_a_second_export_only_adds_files() {
    let dir = tempfile::tempdir().unwrap();
    let staging = dir.path().join("staging");
    let spec = Spec {
        hours: 3,
        plds: 3,
        captures_per_file: 40,
        hot_documents: 4,
        requests: false,
        imported: false,
        gzip_level: 1,
        threads: 2,
    };
    synthetic_archive::generate(&staging, &spec).unwrap();
    let root = dir.path().join("archive");
    copy_hours(&staging, &root, &[0, 1]);
    stdout_ok(
        &run(ldwarc().args(["index", "--root"]).arg(&root)),
        "ldwarc index",
    );
    let out = dir.path().join("table");
    export(&root, &out, "FIRST");
    let first = files_of(&out);

    // DuckDB's lookup of each URL's SURT key equals `ldwarc query` of the URL.
    let lines = cdx_lines(&root);
    let urls: BTreeSet<&str> = lines.iter().map(|l| str_of(l, "url").unwrap()).collect();
    assert!(urls.len() >= 100, "{} URLs", urls.len());
    let mut want: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for url in &urls {
        let text = stdout_ok(
            &run(ldwarc()
                .args(["query", "--format", "json", "--root"])
                .arg(&root)
                .arg(url)),
            "ldwarc query",
        );
        for line in text.lines() {
            let capture: Value = serde_json::from_str(line).unwrap();
            let urlkey = str_of(&capture, "urlkey").unwrap().to_string();
            let entry = want.entry(urlkey).or_default();
            let filename = format!("warc/{}", str_of(&capture, "filename").unwrap());
            let offset: i64 = capture["offset"]
                .to_string()
                .trim_matches('"')
                .parse()
                .unwrap();
            let row = serde_json::json!([
                str_of(&capture, "timestamp").unwrap(),
                str_of(&capture, "url").unwrap(),
                filename,
                offset,
            ]);
            if !entry.contains(&row) {
                entry.push(row);
            }
        }
    }
    let keys_file = dir.path().join("keys.txt");
    let keys: Vec<&str> = want.keys().map(String::as_str).collect();
    std::fs::write(&keys_file, keys.join("\n")).unwrap();
    let answers: BTreeMap<String, Vec<Vec<Value>>> = serde_json::from_str(&probe(&[
        "lookup",
        out.to_str().unwrap(),
        keys_file.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(answers.len(), want.len());
    for (urlkey, captures) in &want {
        let mut got: Vec<Value> = answers[urlkey]
            .iter()
            .map(|r| serde_json::json!([timestamp14(r[0].as_i64().unwrap()), r[1], r[3], r[4]]))
            .collect();
        let mut expected = captures.clone();
        let order = |v: &Value| v.to_string();
        got.sort_by_key(order);
        expected.sort_by_key(order);
        assert_eq!(got, expected, "{urlkey}");
    }

    // Exporting again with nothing new writes nothing.
    let again = export(&root, &out, "FIRST");
    assert!(again.starts_with("nothing new to export"), "{again}");
    assert_eq!(files_of(&out), first);

    // A new crawl: the next export adds files; the first ones stay byte for byte.
    copy_hours(&staging, &root, &[2]);
    stdout_ok(
        &run(ldwarc().args(["index", "--root"]).arg(&root)),
        "ldwarc index",
    );
    export(&root, &out, "SECOND");
    let second = files_of(&out);
    for (path, bytes) in &first {
        let name = path.to_string_lossy();
        if name == "_ldwarc-export.json" || name == "_index-table.paths" {
            continue;
        }
        assert!(second.get(path) == Some(bytes), "{name} changed");
    }
    let added: Vec<String> = second
        .keys()
        .filter(|p| !first.contains_key(*p))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    assert!(!added.is_empty());
    assert!(
        added.iter().all(|p| p.starts_with("crawl=SECOND/")),
        "{added:?}"
    );
    let lines = cdx_lines(&root);
    let table = rows(&out);
    assert_eq!(
        table.len(),
        lines.len(),
        "every capture once over both exports"
    );
    let places: BTreeSet<(String, i64)> = table
        .iter()
        .map(|r| {
            (
                str_of(r, "warc_filename").unwrap().to_string(),
                r["warc_record_offset"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(places.len(), table.len(), "no capture exported twice");
    let paths = std::fs::read_to_string(out.join("_index-table.paths")).unwrap();
    let listed: BTreeSet<String> = paths.lines().map(String::from).collect();
    let parts: BTreeSet<String> = second
        .keys()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".parquet"))
        .collect();
    assert_eq!(listed, parts);
}

/// Runs ldwarc with `bind` bind-mounted read-only over itself (a private mount namespace:
/// the tests run as root, for whom permissions bind nothing).
fn ldwarc_with_read_only(bind: &Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    run(Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(r#"mount --bind -o ro "$0" "$0" && exec "$@""#)
        .arg(bind)
        .arg(env!("CARGO_BIN_EXE_ldwarc"))
        .args(args))
}

fn assert_refused(output: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
}

#[test]
fn parquet_export_refuses_bad_output_and_names_and_reads_a_read_only_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    common::generate_indexed(&root, 7);
    let out = dir.path().join("table");
    let cdx = |extra: &[&str]| {
        run(ldwarc()
            .args(["cdx", "--format", "parquet", "--root"])
            .arg(&root)
            .args(extra))
    };

    for name in ["a/b", "a=b"] {
        let output = cdx(&["--crawl", name, "--output", out.to_str().unwrap()]);
        assert_refused(&output, "--crawl");
        assert!(!out.exists(), "{name}: the folder was created");
    }
    assert_refused(&cdx(&[]), "--output DIR");
    let text = run(ldwarc()
        .args(["cdx", "--root"])
        .arg(&root)
        .arg("--output")
        .arg(&out));
    assert_refused(&text, "--format parquet");

    // A folder holding someone else's file.
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let output = cdx(&["--output", out.to_str().unwrap()]);
    assert_refused(&output, "notes.txt");
    assert_eq!(files_of(&out).len(), 1, "nothing written beside it");
    std::fs::remove_dir_all(&out).unwrap();

    // An unwritable folder.
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let inside = locked.join("table");
    let output = ldwarc_with_read_only(
        &locked,
        &[
            "cdx".as_ref(),
            "--format".as_ref(),
            "parquet".as_ref(),
            "--root".as_ref(),
            root.as_os_str(),
            "--output".as_ref(),
            inside.as_os_str(),
        ],
    );
    assert_refused(&output, &locked.display().to_string());
    assert!(!inside.exists());

    // A read-only root exports.
    let output = ldwarc_with_read_only(
        &root,
        &[
            "cdx".as_ref(),
            "--format".as_ref(),
            "parquet".as_ref(),
            "--root".as_ref(),
            root.as_os_str(),
            "--output".as_ref(),
            out.as_os_str(),
        ],
    );
    let said = stdout_ok(&output, "export from a read-only root");
    assert!(said.starts_with("wrote "), "{said}");
    assert_eq!(rows(&out).len(), cdx_lines(&root).len());
}

#[test]
fn spark_job_counts_per_host_the_statements_ldwarc_snapshot_holds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    // The demo archive: three crawls of Linked Data hosts, with 303s, 304 revisits and
    // changed documents, indexed.
    stdout_ok(&run(ldwarc().arg("demo").arg(&root)), "ldwarc demo");
    let out = dir.path().join("table");
    export(&root, &out, "SPARK");
    // After the last crawl: some documents' latest capture is a revisit.
    let date = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let date = date.as_str();
    let result = dir.path().join("per-host.json");
    let job = common::manifest_dir().join("examples/spark_statements_per_host.py");
    stdout_ok(
        &run(Command::new(common::venv_bin("python"))
            .arg(job)
            .arg("--root")
            .arg(&root)
            .arg("--table")
            .arg(&out)
            .args(["--date", date, "--output"])
            .arg(&result)),
        "the Spark job",
    );
    let spark: BTreeMap<String, u64> =
        serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();

    let snapshot = stdout_ok(
        &run(ldwarc()
            .args(["snapshot", &format!("@{date}"), "--root"])
            .arg(&root)),
        "ldwarc snapshot",
    );
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    for line in snapshot.lines().filter(|l| !l.trim().is_empty()) {
        let statement = line.trim_end().strip_suffix(" .").expect("an N-Quads line");
        let (_, graph) = statement.rsplit_once(' ').expect("a graph name");
        let url = graph.trim_start_matches('<').trim_end_matches('>');
        *ours
            .entry(common::generated::host_of(url).to_lowercase())
            .or_default() += 1;
    }
    assert!(ours.len() >= 2, "documents on several hosts: {ours:?}");
    assert_eq!(spark, ours);
}
