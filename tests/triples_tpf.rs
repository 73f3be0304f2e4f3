//! The versioned triple index from the command line and over HTTP: `ldwarc index --triples`,
//! `ldwarc when` against the generator's own record of who worked where when, `/tpf`
//! Triple Pattern Fragments with their Memento TimeGate and paging, and Comunica 1.22.3
//! querying `/tpf` at a date against pyoxigraph querying `ldwarc snapshot` of that date.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};

use crate::common::{ldwarc, manifest_dir, run, stdout_ok, venv_bin};
use crate::serve_server::LdwarcServer;
use crate::versioned_people::{
    Generated, SCHEMA, Spec, base_time, document_url, employer_iri, generate, generate_versions,
    generate_with_heights, person_iri,
};

fn small_spec() -> Spec {
    Spec {
        documents: 6,
        people_per_document: 25,
        versions: 5,
        changed_documents: 0.6,
        changed_people: 0.2,
        employers: 6,
        seed: 21,
    }
}

fn indexed(root: &Path, spec: &Spec) -> Generated {
    let generated = generate(root, spec);
    let output = run(ldwarc().args(["index", "--triples", "--root"]).arg(root));
    stdout_ok(&output, "ldwarc index --triples");
    generated
}

fn iso(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The version of document `d` at `date` (its latest capture at or before, by the second).
fn version_at(generated: &Generated, d: usize, date: DateTime<Utc>) -> Option<usize> {
    (0..generated.capture_times.len())
        .rev()
        .find(|&v| generated.capture_times[v][d].timestamp() <= date.timestamp())
}

/// `(person, employer)` of everyone at `date`.
fn employments_at(
    generated: &Generated,
    spec: &Spec,
    date: DateTime<Utc>,
) -> BTreeSet<(String, String)> {
    let mut rows = BTreeSet::new();
    for d in 0..spec.documents {
        if let Some(v) = version_at(generated, d, date) {
            for p in 0..spec.people_per_document {
                rows.insert((person_iri(d, p), employer_iri(generated.employer[v][d][p])));
            }
        }
    }
    rows
}

/// A date in the evening of crawl `version`'s day (after all its captures).
fn evening(version: i64) -> DateTime<Utc> {
    base_time() + TimeDelta::days(version) + TimeDelta::hours(22)
}

#[test]
fn when_gives_every_employment_interval() {
    let dir = tempfile::tempdir().unwrap();
    let spec = small_spec();
    let generated = indexed(dir.path(), &spec);
    // The person whose employer changed most often, for a telling history.
    let (d, p) = (0..spec.documents)
        .flat_map(|d| (0..spec.people_per_document).map(move |p| (d, p)))
        .max_by_key(|&(d, p)| {
            (1..spec.versions)
                .filter(|&v| generated.employer[v][d][p] != generated.employer[v - 1][d][p])
                .count()
        })
        .unwrap();
    let mut expected: Vec<(String, String, Option<String>)> = Vec::new();
    for v in 0..spec.versions {
        let employer = employer_iri(generated.employer[v][d][p]);
        let at = iso(generated.capture_times[v][d]);
        if expected.last().is_none_or(|(e, _, _)| *e != employer) {
            if let Some(last) = expected.last_mut() {
                last.2 = Some(at.clone());
            }
            expected.push((employer, at, None));
        }
    }
    assert!(
        expected.len() >= 3,
        "the chosen person should have changed employer twice"
    );
    let pattern = format!("<{}> <{SCHEMA}worksFor> ?employer", person_iri(d, p));
    let output = run(ldwarc()
        .args(["when", "--format", "json", "--root"])
        .arg(dir.path())
        .arg(&pattern));
    let text = stdout_ok(&output, "ldwarc when");
    let mut got: Vec<(String, String, Option<String>)> = Vec::new();
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["document"], document_url(d));
        let object = value["object"]
            .as_str()
            .unwrap()
            .trim_matches(['<', '>'])
            .to_string();
        for interval in value["intervals"].as_array().unwrap() {
            got.push((
                object.clone(),
                interval["from"].as_str().unwrap().to_string(),
                interval["until"].as_str().map(String::from),
            ));
        }
    }
    got.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(got, expected);

    // A window keeps the intervals overlapping it.
    let (from, to) = (evening(1), evening(2));
    let output = run(ldwarc()
        .args(["when", "--root"])
        .arg(dir.path())
        .args(["--from", &iso(from), "--to", &iso(to)])
        .arg(&pattern));
    let text = stdout_ok(&output, "ldwarc when --from --to");
    let overlapping = expected
        .iter()
        .filter(|(_, start, end)| {
            *start <= iso(to) && end.as_ref().is_none_or(|end| *end > iso(from))
        })
        .count();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("  ")).count(),
        overlapping,
        "{text}"
    );
    assert!(text.contains(&format!("in {}", document_url(d))));

    // Bad input: exit 2 with the reason, on one line.
    for (args, needle) in [
        (vec!["when", "<http://e.org/s> ?p"], "three terms"),
        (vec!["when", "?s ?p ?o", "--from", "yesterday"], "--from"),
    ] {
        let output = run(ldwarc().args(&args).arg("--root").arg(dir.path()));
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(needle) && stderr.trim().lines().count() == 1,
            "{stderr}"
        );
    }
    let empty = tempfile::tempdir().unwrap();
    generate(
        empty.path(),
        &Spec {
            documents: 1,
            versions: 1,
            ..small_spec()
        },
    );
    run(ldwarc()
        .args(["index", "--no-triples", "--root"])
        .arg(empty.path()));
    let output = run(ldwarc()
        .args(["when", "?s ?p ?o", "--root"])
        .arg(empty.path()));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.trim().lines().count() == 1
            && stderr.trim().ends_with(&format!(
                "{root}: no triple index was built for this archive; run `ldwarc index --root {root}`",
                root = empty.path().display()
            )),
        "{stderr}"
    );
    assert!(
        !empty.path().join("triples").exists(),
        "a read command wrote the triple index"
    );
    // `ldwarc index` alone builds it: `when` and `/tpf` answer with no separate step.
    let output = run(ldwarc().args(["index", "--root"]).arg(empty.path()));
    stdout_ok(&output, "ldwarc index");
    let output = run(ldwarc()
        .args(["when", "?s a <http://schema.org/Person>", "--root"])
        .arg(empty.path()));
    assert_eq!(
        stdout_ok(&output, "ldwarc when")
            .lines()
            .filter(|l| l.contains("schema.org/Person"))
            .count(),
        small_spec().people_per_document,
    );
}

/// The N-Triples lines of a body, as (subject, predicate, object) spellings.
fn triples_of(body: &str) -> Vec<(String, String, String)> {
    body.lines()
        .filter_map(|line| {
            let line = line.trim_end().strip_suffix(" .")?;
            let (s, rest) = line.split_once(' ')?;
            let (p, o) = rest.split_once(' ')?;
            Some((s.to_string(), p.to_string(), o.to_string()))
        })
        .collect()
}

const HYDRA_NEXT: &str = "<http://www.w3.org/ns/hydra/core#next>";
const HYDRA_TOTAL: &str = "<http://www.w3.org/ns/hydra/core#totalItems>";

#[test]
fn fragments_negotiate_the_date_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let spec = small_spec();
    let generated = indexed(dir.path(), &spec);
    let server = LdwarcServer::start(dir.path(), &[]);
    let works_for = format!("{SCHEMA}worksFor");
    let query = format!(
        "predicate={}",
        works_for.replace(':', "%3A").replace('/', "%2F")
    );
    let accept = ("Accept", "application/n-triples");

    // The fragment now names its TimeGate and is no memento.
    let now = server.get_with(&format!("/tpf?{query}"), &[accept]);
    assert_eq!(now.status, 200, "{}", now.text());
    assert!(now.header("memento-datetime").is_none());
    let link = now.header("link").unwrap();
    assert!(
        link.contains(&format!("/tpf/timegate?{query}>; rel=\"timegate\"")),
        "{link}"
    );

    for version in [1i64, 3] {
        let date = evening(version);
        let http_date = date.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        let gate = server.get_with(
            &format!("/tpf/timegate?{query}"),
            &[("Accept-Datetime", http_date.as_str())],
        );
        assert_eq!(gate.status, 302, "{}", gate.text());
        // The memento is dated by the last capture at or before the date.
        let last = generated.capture_times[version as usize]
            .iter()
            .max()
            .unwrap();
        let stamp = last.format("%Y%m%d%H%M%S").to_string();
        let location = gate.header("location").unwrap().to_string();
        assert!(
            location.ends_with(&format!("/tpf/{stamp}?{query}")),
            "{location}"
        );
        let path = location.split_once("127.0.0.1:").unwrap().1;
        let mut next = Some(path[path.find('/').unwrap()..].to_string());
        let mut found = BTreeSet::new();
        let mut pages = 0;
        while let Some(path) = next.take() {
            let page = server.get_with(&path, &[accept]);
            assert_eq!(page.status, 200, "{path}: {}", page.text());
            let memento_datetime = page.header("memento-datetime").unwrap();
            assert_eq!(
                memento_datetime,
                last.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
            );
            let triples = triples_of(&page.text());
            let expected_total = spec.documents * spec.people_per_document;
            assert!(triples.iter().any(
                |(_, p, o)| p == HYDRA_TOTAL && o.starts_with(&format!("\"{expected_total}\""))
            ));
            for (s, p, o) in &triples {
                if *p == format!("<{works_for}>") {
                    assert!(found.insert((
                        s.trim_matches(['<', '>']).to_string(),
                        o.trim_matches(['<', '>']).to_string()
                    )));
                }
                if *p == HYDRA_NEXT && s.ends_with(&format!("{path}>")) {
                    let target = o.trim_matches(['<', '>']);
                    let target = target.split_once("127.0.0.1:").unwrap().1;
                    next = Some(target[target.find('/').unwrap()..].to_string());
                }
            }
            pages += 1;
        }
        assert_eq!(
            pages,
            (spec.documents * spec.people_per_document).div_ceil(100)
        );
        assert_eq!(found, employments_at(&generated, &spec, date), "at {date}");
    }
    // Bad requests are refused with the reason.
    // A partial date is the end of its period, as `snapshot @2024-03` reads it.
    for (partial, full) in [
        ("2024", "20241231235959"),
        ("202403", "20240331235959"),
        ("2024-03", "20240331235959"),
        ("2024-03-02", "20240302235959"),
    ] {
        let moved = server.get(&format!("/tpf/{partial}?{query}"));
        assert_eq!(moved.status, 302, "{partial}: {}", moved.text());
        let location = moved.header("location").unwrap();
        assert!(
            location.ends_with(&format!("/tpf/{full}?{query}")),
            "{location}"
        );
    }
    assert_eq!(server.get("/tpf/someday").status, 404);
    assert_eq!(server.get("/tpf?page=0").status, 400);
    let bad_date = server.get_with("/tpf/timegate", &[("Accept-Datetime", "yesterday")]);
    assert_eq!(bad_date.status, 400);
}

/// Comunica's `SELECT ?person ?employer` rows, or pyoxigraph's, as a set.
fn rows_of(json: &serde_json::Value) -> BTreeSet<(String, String)> {
    json["results"]["bindings"]
        .as_array()
        .expect("SPARQL JSON results")
        .iter()
        .map(|b| {
            (
                b["person"]["value"].as_str().unwrap().to_string(),
                b["employer"]["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn comunica() -> std::path::PathBuf {
    let path = manifest_dir().join(".npm-tools/node_modules/.bin/comunica-sparql");
    assert!(
        path.exists(),
        "interop tool {} is missing; run `bash .ci/setup-interop.sh`",
        path.display()
    );
    path
}

const PYOXIGRAPH_QUERY: &str = r#"
import json, sys
import pyoxigraph as ox
store = ox.Store()
store.load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS)
rows = []
for solution in store.query(sys.argv[2], use_default_graph_as_union=True):
    rows.append({"person": {"value": solution["person"].value}, "employer": {"value": solution["employer"].value}})
print(json.dumps({"results": {"bindings": rows}}))
"#;

#[test]
fn comunica_at_a_date_answers_as_pyoxigraph_over_the_snapshot() {
    let comunica = comunica();
    let python = venv_bin("python");
    let dir = tempfile::tempdir().unwrap();
    let spec = small_spec();
    let generated = indexed(dir.path(), &spec);
    let server = LdwarcServer::start(dir.path(), &[]);
    // A join over three patterns with a filter: who (older than 40) worked where.
    let query = format!(
        "SELECT ?person ?employer WHERE {{ ?person a <{SCHEMA}Person> ; <{SCHEMA}worksFor> ?employer ; <{SCHEMA}age> ?age . FILTER(?age > 40) }}"
    );
    let mut answers = Vec::new();
    for version in [0i64, 2, 4] {
        let date = evening(version);
        let snapshot = dir.path().join(format!("snapshot-{version}.nq"));
        let output = run(ldwarc()
            .args(["snapshot", "-o"])
            .arg(&snapshot)
            .arg("--root")
            .arg(dir.path())
            .arg(format!("@{}", iso(date))));
        stdout_ok(&output, "ldwarc snapshot");
        let output = run(Command::new(&python)
            .args(["-c", PYOXIGRAPH_QUERY])
            .arg(&snapshot)
            .arg(&query));
        let expected = rows_of(&serde_json::from_str(&stdout_ok(&output, "pyoxigraph")).unwrap());
        let output = run(Command::new(&comunica)
            .arg(format!("http://127.0.0.1:{}/tpf", server.port))
            .args([
                "-d",
                &iso(date),
                "-t",
                "application/sparql-results+json",
                "-q",
            ])
            .arg(&query));
        let got = rows_of(&serde_json::from_str(&stdout_ok(&output, "comunica-sparql")).unwrap());
        assert!(!expected.is_empty());
        assert_eq!(got, expected, "at {}", iso(date));
        // And both are what the generator wrote.
        let truth: BTreeSet<(String, String)> = employments_at(&generated, &spec, date);
        assert!(expected.is_subset(&truth));
        answers.push(expected);
    }
    assert!(
        answers[0] != answers[1] && answers[1] != answers[2],
        "the dates should answer differently"
    );
}

/// pyoxigraph's `SELECT ?v ?u` rows over an N-Quads snapshot, as SPARQL JSON results.
const PYOXIGRAPH_VALUES: &str = r#"
import json, sys
import pyoxigraph as ox
store = ox.Store()
store.load(path=sys.argv[1], format=ox.RdfFormat.N_QUADS)
rows = []
for solution in store.query(sys.argv[2], use_default_graph_as_union=True):
    rows.append({"v": {"value": solution["v"].value}, "u": {"value": solution["u"].value}})
print(json.dumps({"results": {"bindings": rows}}))
"#;

/// `(?v, ?u)` rows of SPARQL JSON results, as a set, and how many rows there were.
fn value_rows(json: &serde_json::Value) -> (BTreeSet<(String, String)>, usize) {
    let bindings = json["results"]["bindings"]
        .as_array()
        .expect("SPARQL JSON results");
    let rows = bindings
        .iter()
        .map(|b| {
            (
                b["v"]["value"].as_str().unwrap().to_string(),
                b["u"]["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (rows, bindings.len())
}

#[test]
fn comunica_joins_through_blank_nodes_as_pyoxigraph_over_the_snapshot() {
    let comunica = comunica();
    let python = venv_bin("python");
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        documents: 4,
        people_per_document: 20,
        versions: 3,
        changed_documents: 0.7,
        changed_people: 0.3,
        employers: 4,
        seed: 34,
    };
    generate_with_heights(dir.path(), &spec);
    let output = run(ldwarc()
        .args(["index", "--triples", "--root"])
        .arg(dir.path()));
    stdout_ok(&output, "ldwarc index --triples");
    let server = LdwarcServer::start(dir.path(), &[]);
    // Each height is a blank node: the join goes through it from one fragment to the next.
    let query = format!(
        "SELECT DISTINCT ?v ?u WHERE {{ ?s a <{SCHEMA}PropertyValue> ; <{SCHEMA}value> ?v ; <{SCHEMA}unitCode> ?u }}"
    );
    let mut answers = Vec::new();
    for version in [0i64, 2] {
        let date = evening(version);
        let snapshot = dir.path().join(format!("snapshot-{version}.nq"));
        let output = run(ldwarc()
            .args(["snapshot", "-o"])
            .arg(&snapshot)
            .arg("--root")
            .arg(dir.path())
            .arg(format!("@{}", iso(date))));
        stdout_ok(&output, "ldwarc snapshot");
        let output = run(Command::new(&python)
            .args(["-c", PYOXIGRAPH_VALUES])
            .arg(&snapshot)
            .arg(&query));
        let expected =
            value_rows(&serde_json::from_str(&stdout_ok(&output, "pyoxigraph")).unwrap());
        let output = run(Command::new(&comunica)
            .arg(format!("http://127.0.0.1:{}/tpf", server.port))
            .args([
                "-d",
                &iso(date),
                "-t",
                "application/sparql-results+json",
                "-q",
            ])
            .arg(&query));
        let got =
            value_rows(&serde_json::from_str(&stdout_ok(&output, "comunica-sparql")).unwrap());
        assert!(expected.1 > 10, "pyoxigraph found {} rows", expected.1);
        assert_eq!(got, expected, "at {}", iso(date));
        answers.push(expected.0);
    }
    assert_ne!(
        answers[0], answers[1],
        "the dates should answer differently"
    );
}

#[test]
fn a_skolem_iri_of_a_capture_not_in_force_gives_an_empty_fragment() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        documents: 1,
        people_per_document: 1,
        versions: 2,
        changed_documents: 1.0,
        changed_people: 1.0,
        employers: 2,
        seed: 3,
    };
    generate_with_heights(dir.path(), &spec);
    let output = run(ldwarc()
        .args(["index", "--triples", "--root"])
        .arg(dir.path()));
    stdout_ok(&output, "ldwarc index --triples");
    let server = LdwarcServer::start(dir.path(), &[]);
    let first = evening(0).format("%Y%m%d%H%M%S").to_string();
    let second = evening(1).format("%Y%m%d%H%M%S").to_string();
    let value = format!("{SCHEMA}value");
    let response = server.get_with(
        &format!("/tpf/{first}?predicate={}", encode(&value)),
        &[("Accept", "application/n-triples")],
    );
    assert_eq!(response.status, 200);
    let data: Vec<_> = triples_of(&response.text())
        .into_iter()
        .filter(|t| t.1 == format!("<{value}>"))
        .collect();
    assert_eq!(data.len(), 1, "{}", response.text());
    let skolem = data[0].0.trim_matches(['<', '>']).to_string();
    let prefix = format!("http://127.0.0.1:{}/.well-known/genid/", server.port);
    assert!(skolem.starts_with(&prefix), "{skolem}");
    let ask = |stamp: &str| {
        let response = server.get_with(
            &format!("/tpf/{stamp}?subject={}", encode(&skolem)),
            &[("Accept", "application/n-triples")],
        );
        assert_eq!(response.status, 200, "{}", response.text());
        triples_of(&response.text())
            .into_iter()
            .filter(|t| t.0 == format!("<{skolem}>"))
            .count()
    };
    // In force: its three statements; at the next capture (another capture of the
    // document), an empty fragment.
    assert_eq!(ask(&first), 3);
    assert_eq!(ask(&second), 0);
}

/// Percent-encodes a parameter value.
fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[test]
fn tpf_without_a_triple_index_says_so_without_server_paths() {
    let dir = tempfile::tempdir().unwrap();
    generate(
        dir.path(),
        &Spec {
            documents: 1,
            versions: 1,
            ..small_spec()
        },
    );
    let output = run(ldwarc()
        .args(["index", "--no-triples", "--root"])
        .arg(dir.path()));
    stdout_ok(&output, "ldwarc index --no-triples");
    let server = LdwarcServer::start(dir.path(), &[]);
    for path in ["/tpf", "/tpf/20240301220000", "/tpf/timegate"] {
        let response = server.get(path);
        assert_eq!(response.status, 404, "{path}");
        assert_eq!(
            response.text(),
            "no triple index was built for this archive\n",
            "{path}"
        );
    }
}

#[test]
fn indexes_updated_as_the_archive_grows_equal_a_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Spec {
        documents: 5,
        people_per_document: 4,
        versions: 14,
        changed_documents: 0.3,
        changed_people: 0.3,
        employers: 4,
        seed: 40,
    };
    // Four crawls of revisits and changes at a time, each followed by `ldwarc index`.
    let answers = |root: &Path| {
        let cdx = stdout_ok(
            &run(ldwarc().arg("cdx").arg("--root").arg(root)),
            "ldwarc cdx",
        );
        let when = stdout_ok(
            &run(ldwarc()
                .args(["when", "--format", "json", "?s ?p ?o", "--root"])
                .arg(root)),
            "ldwarc when",
        );
        // In the index's order of term numbers, which depend on the order terms were met.
        let mut when: Vec<String> = when.lines().map(String::from).collect();
        when.sort();
        (cdx, when)
    };
    for step in (0..spec.versions).step_by(4) {
        generate_versions(dir.path(), &spec, step..(step + 4).min(spec.versions));
        let output = run(ldwarc().args(["index", "--root"]).arg(dir.path()));
        stdout_ok(&output, "ldwarc index");
    }
    let grown = answers(dir.path());
    assert!(
        grown.0.contains("\"revisit\"") || grown.0.contains("warc/revisit"),
        "{}",
        grown.0
    );
    let output = run(ldwarc()
        .args(["index", "--rebuild", "--root"])
        .arg(dir.path()));
    stdout_ok(&output, "ldwarc index --rebuild");
    let rebuilt = answers(dir.path());
    assert_eq!(grown.0, rebuilt.0, "the CDXJ of the grown index");
    assert_eq!(grown.1, rebuilt.1, "the triple index's intervals");
    assert_eq!(
        grown.0.lines().count(),
        spec.documents * spec.versions,
        "every capture indexed"
    );
}

#[test]
fn a_crawl_leaves_the_triple_index_current_unless_told_not_to() {
    let web = ldwarc_testweb::Web::fixture().unwrap();
    let seeds = web.seeds.clone();
    let server = ldwarc_testweb::TestWebServer::start(web).unwrap();
    let network = crate::common::loopback_resolve(server.port());
    let when = |root: &Path| {
        run(ldwarc()
            .args(["when", "--format", "json", "?s ?p ?o", "--root"])
            .arg(root))
    };
    let crawled = |flags: &[&str]| {
        let root = tempfile::tempdir().unwrap();
        let output = run(ldwarc()
            .arg("crawl")
            .arg("--root")
            .arg(root.path())
            .args(["--delay", "0.05s", "--hops", "1", "--timeout", "10s"])
            .args(flags)
            .args(&network)
            .args(&seeds));
        stdout_ok(&output, "ldwarc crawl");
        root
    };
    // No separate step: `when` answers right after the crawl, from the crawled documents.
    let root = crawled(&[]);
    let text = stdout_ok(&when(root.path()), "ldwarc when after a crawl");
    let documents: BTreeSet<String> = text
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["document"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(
        seeds.iter().any(|seed| documents.contains(seed)),
        "{documents:?}"
    );
    // `--no-triples`: the triple index is left as it was (here: never built).
    let root = crawled(&["--no-triples"]);
    let output = when(root.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no triple index was built"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
