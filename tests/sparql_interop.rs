//! `ldwarc sparql --at` against pyoxigraph over `ldwarc snapshot @DATE` loaded as a dataset
//! with the default graph as the union of the named graphs, and `/sparql` of `ldwarc serve`
//! against the command line.
//!
//! The archive is generated: people documents on three hosts, captured in three crawls a month
//! apart, between which people change employer, documents appear, disappear (404) or redirect,
//! and some are revisits of an unchanged payload; Turtle, N-Triples and JSON-LD bodies, some
//! with blank nodes. Solutions are compared as multisets, blank nodes by kind only (their
//! labels are each engine's own).
//!
//! Python is `$LDWARC_VENV/bin/python`, else `<crate>/.venv/bin/python`; the test fails (never
//! skips) when it or pyoxigraph is missing.

use crate::common;
use crate::serve_server::LdwarcServer;
use crate::warc_fixture::{Exchange, write_archive};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{ldwarc, run, stdout_ok, venv_bin};
use ldwarc_testweb::SplitMix64;

const CRAWLS: [&str; 3] = ["2024-01-10", "2024-02-10", "2024-03-10"];
const HOSTS: [&str; 3] = ["alpha.example", "beta.example", "gamma.example"];
const PEOPLE: usize = 18;
const ORGS: usize = 5;

const QUERIES: &[&str] = &[
    // BGP
    "SELECT ?p ?name WHERE { ?p <http://xmlns.com/foaf/0.1/name> ?name }",
    // join
    "SELECT ?p ?org ?label WHERE { ?p <http://schema.org/worksFor> ?org . ?org <http://www.w3.org/2000/01/rdf-schema#label> ?label }",
    // OPTIONAL and FILTER
    "SELECT ?p ?friend WHERE { ?p a <http://xmlns.com/foaf/0.1/Person> OPTIONAL { ?p <http://xmlns.com/foaf/0.1/knows> ?friend } FILTER(!CONTAINS(STR(?p), \"gamma\")) }",
    // aggregate COUNT / GROUP BY
    "SELECT ?org (COUNT(DISTINCT ?p) AS ?staff) WHERE { ?p <http://schema.org/worksFor> ?org } GROUP BY ?org",
    // GRAPH ?g
    "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
    // blank nodes (addresses)
    "SELECT ?p ?a ?city WHERE { ?p <http://schema.org/address> ?a . ?a <http://schema.org/addressLocality> ?city }",
    // ASK
    "ASK { ?p <http://schema.org/worksFor> <http://orgs.example/org/3> }",
    // every statement
    "SELECT * WHERE { ?s ?p ?o }",
];

fn person_url(i: usize) -> String {
    format!("http://{}/people/{i}", HOSTS[i % HOSTS.len()])
}

/// One person's document in crawl `c`, or `None` when it is not online then (404), with
/// the employer changing for some people between crawls.
fn person_body(i: usize, c: usize, rng: &mut SplitMix64) -> (String, &'static str) {
    let me = person_url(i);
    let org = (i + c * (i % 3)) % ORGS;
    let friend = person_url((i + 1 + c) % PEOPLE);
    let with_address = i.is_multiple_of(4);
    let style = rng.below(3);
    match style {
        0 => {
            let mut body = format!(
                "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n@prefix schema: <http://schema.org/> .\n\
                 <{me}> a foaf:Person ; foaf:name \"Person {i}\"@en ; schema:worksFor <http://orgs.example/org/{org}> ;\n  foaf:knows <{friend}>"
            );
            if with_address {
                body.push_str(&format!(
                    " ;\n  schema:address [ schema:addressLocality \"City {}\" ]",
                    (i + c) % 4
                ));
            }
            body.push_str(" .\n<http://orgs.example/org/");
            body.push_str(&format!(
                "{org}> <http://www.w3.org/2000/01/rdf-schema#label> \"Org {org}\" .\n"
            ));
            (body, "text/turtle")
        }
        1 => {
            let mut body = format!(
                "<{me}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .\n\
                 <{me}> <http://xmlns.com/foaf/0.1/name> \"Person {i}\" .\n\
                 <{me}> <http://schema.org/worksFor> <http://orgs.example/org/{org}> .\n"
            );
            if with_address {
                body.push_str(&format!(
                    "<{me}> <http://schema.org/address> _:a .\n_:a <http://schema.org/addressLocality> \"City {}\" .\n",
                    (i + c) % 4
                ));
            }
            (body, "application/n-triples")
        }
        _ => {
            let body = format!(
                r#"{{"@id": "{me}", "@type": "http://xmlns.com/foaf/0.1/Person",
  "http://xmlns.com/foaf/0.1/name": "Person {i}",
  "http://xmlns.com/foaf/0.1/age": {age},
  "http://schema.org/worksFor": {{"@id": "http://orgs.example/org/{org}"}},
  "http://xmlns.com/foaf/0.1/knows": {{"@id": "{friend}"}}}}"#,
                age = 20 + i + c
            );
            (body, "application/ld+json")
        }
    }
}

/// A TriG document putting statements in a named graph of its own (which the triple index
/// keeps as plain triples, so a dataset built from it reads this document from its record).
fn graphs_body(c: usize) -> String {
    format!(
        "<http://alpha.example/graphs> <http://www.w3.org/2000/01/rdf-schema#label> \"crawl {c}\" .\n\
         <http://alpha.example/graphs#g{c}> {{ <http://orgs.example/org/{org}> <http://schema.org/member> <{person}> . }}\n",
        org = c % ORGS,
        person = person_url(c + 2)
    )
}

/// The archive: every person in every crawl, some missing (404) in some crawls, some
/// unchanged (a revisit), one redirecting in the last crawl; a TriG document with a named
/// graph of its own.
fn build_archive(root: &Path) {
    let mut rng = SplitMix64::new(21);
    let mut exchanges = Vec::new();
    let mut previous: BTreeMap<usize, (String, String)> = BTreeMap::new();
    for (c, day) in CRAWLS.iter().enumerate() {
        for i in 0..PEOPLE {
            let url = person_url(i);
            let date = format!("{day}T10:{:02}:{:02}Z", i / 60, i % 60);
            if (i + c) % 7 == 3 {
                let mut gone = Exchange::ok(&url, &date, "text/plain", b"not found");
                gone.status = 404;
                exchanges.push(gone);
                previous.remove(&i);
                continue;
            }
            if c == 2 && i == 5 {
                let mut moved = Exchange::ok(&url, &date, "text/plain", b"");
                moved.status = 301;
                moved.headers.push(("Location".into(), person_url(6)));
                exchanges.push(moved);
                continue;
            }
            if i % 5 == 1
                && let Some((first_date, _)) = previous.get(&i)
            {
                let mut revisit = Exchange::ok(&url, &date, "text/turtle", b"");
                revisit.status = 304;
                revisit.revisit_of = Some((url.clone(), first_date.clone()));
                exchanges.push(revisit);
                continue;
            }
            let (body, media_type) = person_body(i, c, &mut rng);
            exchanges.push(Exchange::ok(&url, &date, media_type, body.as_bytes()));
            previous.insert(i, (date, body));
        }
        exchanges.push(Exchange::ok(
            "http://alpha.example/graphs",
            &format!("{day}T11:00:00Z"),
            "application/trig",
            graphs_body(c).as_bytes(),
        ));
    }
    write_archive(root, &exchanges);
}

/// Builds the versioned triple index of `root`.
fn index_triples(root: &Path) {
    stdout_ok(
        &run(ldwarc().args(["index", "--triples", "--root"]).arg(root)),
        "ldwarc index --triples",
    );
}

/// Runs pyoxigraph over each `(N-Quads file, query)`: the answer as SPARQL results JSON (or
/// N-Triples for CONSTRUCT), one per line of the output.
const PY_ORACLE: &str = r#"
import json, sys
import pyoxigraph as ox
jobs = json.load(sys.stdin)
stores = {}
for path, query in jobs:
    if path not in stores:
        store = ox.Store()
        store.load(path=path, format=ox.RdfFormat.N_QUADS)
        stores[path] = store
    result = stores[path].query(query, use_default_graph_as_union=True)
    if isinstance(result, ox.QueryTriples):
        text = result.serialize(format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    else:
        text = result.serialize(format=ox.QueryResultsFormat.JSON).decode("utf-8")
    print(json.dumps(text))
"#;

fn oxigraph_answers(jobs: &[(String, String)]) -> Vec<String> {
    let mut child = Command::new(venv_bin("python"))
        .args(["-c", PY_ORACLE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python");
    let input = serde_json::to_vec(jobs).unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &input).unwrap();
    drop(child.stdin.take());
    let output = child.wait_with_output().unwrap();
    let text = stdout_ok(&output, "pyoxigraph oracle");
    text.lines()
        .map(|line| serde_json::from_str::<String>(line).unwrap())
        .collect()
}

/// An answer in SPARQL results JSON as a comparable value: the boolean, or the sorted
/// variables and the sorted multiset of solutions, blank nodes reduced to their kind.
fn normalised(json: &str) -> String {
    let value: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"));
    if let Some(boolean) = value.get("boolean") {
        return format!("boolean {boolean}");
    }
    let mut vars: Vec<String> = value["head"]["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    vars.sort();
    let mut rows: Vec<String> = value["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|binding| {
            let mut cells: Vec<String> = binding
                .as_object()
                .unwrap()
                .iter()
                .map(|(var, term)| {
                    let term = if term["type"] == "bnode" {
                        "bnode".to_string()
                    } else {
                        term.to_string()
                    };
                    format!("{var}={term}")
                })
                .collect();
            cells.sort();
            cells.join(" ")
        })
        .collect();
    rows.sort();
    format!("vars {vars:?}\n{}", rows.join("\n"))
}

fn sparql(root: &Path, at: &str, format: &str, query: &str) -> String {
    stdout_ok(
        &run(ldwarc()
            .arg("sparql")
            .arg("--root")
            .arg(root)
            .args(["--at", at, "--format", format, query])),
        &format!("ldwarc sparql --at {at} {query}"),
    )
}

const DATES: [&str; 4] = ["2024-01-20", "2024-02-20", "2024-03-20", "2024-01-09"];

/// Where `ldwarc sparql` says it built the dataset from (its summary line).
fn dataset_source(root: &Path, at: &str) -> String {
    let output = run(ldwarc()
        .arg("sparql")
        .arg("--root")
        .arg(root)
        .args(["--at", at, "ASK {}"]));
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    stderr
}

#[test]
fn sparql_at_dates_equals_pyoxigraph_over_the_snapshot_replaying_the_warcs() {
    sparql_at_dates_equals_pyoxigraph(false);
}

#[test]
fn sparql_at_dates_equals_pyoxigraph_over_the_snapshot_from_the_triple_index() {
    sparql_at_dates_equals_pyoxigraph(true);
}

/// The acceptance test, with the dataset built by replaying the WARC files or from the
/// versioned triple index.
fn sparql_at_dates_equals_pyoxigraph(with_triple_index: bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    build_archive(&root);
    if with_triple_index {
        index_triples(&root);
    }
    let source = dataset_source(&root, DATES[0]);
    let expected = if with_triple_index {
        "(from the triple index)"
    } else {
        "(replayed from the WARC files)"
    };
    assert!(source.contains(expected), "{source}");
    let construct = "CONSTRUCT { ?p <http://example.org/employer> ?org } WHERE { ?p <http://schema.org/worksFor> ?org }";
    let mut jobs = Vec::new();
    let mut ours = Vec::new();
    for date in DATES {
        let nq = dir.path().join(format!("{date}.nq"));
        stdout_ok(
            &run(ldwarc()
                .arg("snapshot")
                .arg("--root")
                .arg(&root)
                .arg(format!("@{date}"))
                .arg("-o")
                .arg(&nq)),
            "ldwarc snapshot",
        );
        for query in QUERIES {
            jobs.push((nq.display().to_string(), query.to_string()));
            ours.push(sparql(&root, date, "json", query));
        }
        jobs.push((nq.display().to_string(), construct.to_string()));
        ours.push(sparql(&root, date, "nt", construct));
    }
    let theirs = oxigraph_answers(&jobs);
    assert_eq!(theirs.len(), ours.len());
    let mut nonempty = 0;
    for (((_, query), ours), theirs) in jobs.iter().zip(&ours).zip(&theirs) {
        if query.starts_with("CONSTRUCT") {
            let mut a: Vec<&str> = ours.lines().collect();
            let mut b: Vec<&str> = theirs.lines().collect();
            a.sort();
            b.sort();
            assert_eq!(a, b, "CONSTRUCT answers differ");
            nonempty += usize::from(!a.is_empty());
        } else {
            let a = normalised(ours);
            assert_eq!(a, normalised(theirs), "answers differ for {query}");
            nonempty += usize::from(a.lines().count() > 1 || a.contains("true"));
        }
    }
    // The dates see different datasets: the employers' counts differ between crawls, and
    // before the first crawl there is nothing.
    let count = QUERIES[3];
    let answers: Vec<String> = DATES[..3]
        .iter()
        .map(|d| normalised(&sparql(&root, d, "json", count)))
        .collect();
    assert_ne!(answers[0], answers[1]);
    assert_ne!(answers[1], answers[2]);
    assert_eq!(
        normalised(&sparql(&root, DATES[3], "json", QUERIES[7])),
        "vars [\"o\", \"p\", \"s\"]\n"
    );
    assert!(
        nonempty >= 3 * (QUERIES.len() + 1) - 1,
        "too few answers had rows: {nonempty}"
    );
}

#[test]
fn sparql_command_reports_syntax_errors_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    build_archive(&root);
    let output = run(ldwarc().arg("sparql").arg("--root").arg(&root).args([
        "--at",
        "2024-02-20",
        "SELECT ?s\nWHERE { ?s ?p ?o ) }",
    ]));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 2, column 21"),
        "no position in: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // CSV and TSV carry the same solutions as JSON; the table has a header, a rule and a
    // line per solution; --default-graph empty leaves only GRAPH patterns matching.
    let query = "SELECT ?p ?org WHERE { ?p <http://schema.org/worksFor> ?org }";
    let json = sparql(&root, "2024-02-20", "json", query);
    let rows = normalised(&json).lines().count() - 1;
    assert!(rows > 5);
    let csv = sparql(&root, "2024-02-20", "csv", query);
    assert_eq!(csv.lines().next(), Some("p,org"));
    assert_eq!(csv.lines().count(), rows + 1);
    let tsv = sparql(&root, "2024-02-20", "tsv", query);
    assert_eq!(tsv.lines().next(), Some("?p\t?org"));
    assert_eq!(tsv.lines().count(), rows + 1);
    let table = sparql(&root, "2024-02-20", "table", query);
    assert!(table.starts_with("?p"));
    assert_eq!(table.lines().count(), rows + 2);
    let query_file = dir.path().join("q.rq");
    std::fs::write(&query_file, query).unwrap();
    let from_file = sparql(
        &root,
        "2024-02-20",
        "json",
        &format!("@{}", query_file.display()),
    );
    assert_eq!(normalised(&from_file), normalised(&json));
    let empty = stdout_ok(
        &run(ldwarc().arg("sparql").arg("--root").arg(&root).args([
            "--at",
            "2024-02-20",
            "--default-graph",
            "empty",
            "--format",
            "json",
            query,
        ])),
        "sparql --default-graph empty",
    );
    assert_eq!(normalised(&empty).lines().count(), 1);
}

fn post(
    server: &LdwarcServer,
    content_type: &str,
    accept: &str,
    body: &str,
) -> common::HttpResponse {
    let request = format!(
        "POST /sparql?at=2024-02-20 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nAccept: {accept}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    server.send(request.as_bytes()).expect("POST /sparql")
}

fn encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[test]
fn sparql_endpoint_answers_as_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    build_archive(&root);
    let server = LdwarcServer::start(&root, &["--request-timeout", "3s"]);
    let query = QUERIES[1];
    let cli = normalised(&sparql(&root, "2024-02-20", "json", query));
    let get = server.get_with(
        &format!("/sparql?query={}&at=2024-02-20", encoded(query)),
        &[("Accept", "application/sparql-results+json")],
    );
    assert_eq!(get.status, 200, "{}", get.text());
    assert_eq!(
        get.header("content-type"),
        Some("application/sparql-results+json")
    );
    assert_eq!(normalised(&get.text()), cli);
    // Accept-Datetime picks the date when at= is absent.
    let dated = server.get_with(
        &format!("/sparql?query={}", encoded(query)),
        &[
            ("Accept", "application/sparql-results+json"),
            ("Accept-Datetime", "Tue, 20 Feb 2024 12:00:00 GMT"),
        ],
    );
    assert_eq!(normalised(&dated.text()), cli);
    let january = normalised(&sparql(&root, "2024-01-20", "json", query));
    assert_ne!(
        january, cli,
        "the dates must differ for this check to mean anything"
    );
    // POST, both ways.
    let direct = post(
        &server,
        "application/sparql-query",
        "application/sparql-results+json",
        query,
    );
    assert_eq!(direct.status, 200, "{}", direct.text());
    assert_eq!(normalised(&direct.text()), cli);
    let form = post(
        &server,
        "application/x-www-form-urlencoded",
        "application/sparql-results+json",
        &format!("query={}", encoded(query)),
    );
    assert_eq!(form.status, 200, "{}", form.text());
    assert_eq!(normalised(&form.text()), cli);
    // CSV and TSV by Accept, as the command line writes them.
    for (accept, format) in [("text/csv", "csv"), ("text/tab-separated-values", "tsv")] {
        let answer = server.get_with(
            &format!("/sparql?query={}&at=2024-02-20", encoded(query)),
            &[("Accept", accept)],
        );
        assert_eq!(answer.status, 200);
        let content_type = answer.header("content-type").unwrap_or("");
        assert!(content_type.starts_with(accept), "{content_type}");
        let mut a: Vec<String> = answer.text().lines().map(String::from).collect();
        let mut b: Vec<String> = sparql(&root, "2024-02-20", format, query)
            .lines()
            .map(String::from)
            .collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{accept}");
    }
    // A syntax error is the client's: 400 with the position.
    let bad = server.get(&format!("/sparql?query={}", encoded("SELECT * WHERE {")));
    assert_eq!(bad.status, 400);
    assert!(bad.text().contains("line 1"), "{}", bad.text());
    // An answer the client cannot accept.
    let refused = server.get_with(
        &format!("/sparql?query={}", encoded(query)),
        &[("Accept", "image/png")],
    );
    assert_eq!(refused.status, 406);
    // A query past the time limit is answered 503 in time, and the server goes on answering.
    let slow = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";
    let started = std::time::Instant::now();
    let timed_out = server.get(&format!("/sparql?query={}&at=2024-03-20", encoded(slow)));
    assert_eq!(timed_out.status, 503, "{}", timed_out.text());
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let again = server.get_with(
        &format!("/sparql?query={}&at=2024-02-20", encoded(query)),
        &[("Accept", "application/sparql-results+json")],
    );
    assert_eq!(normalised(&again.text()), cli);
}

/// `when` over `root`: its exit status, standard output and standard error.
fn when(root: &Path, pattern: &str) -> (Option<i32>, String, String) {
    let output = run(ldwarc().arg("when").arg("--root").arg(root).arg(pattern));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn a_triple_index_older_than_the_capture_index_is_never_answered_from() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    build_archive(&root);
    index_triples(&root);
    let me = person_url(0);
    let pattern = format!("<{me}> <http://xmlns.com/foaf/0.1/name> ?name");
    let (status, before, _) = when(&root, &pattern);
    assert_eq!(status, Some(0));
    assert!(!before.contains("Renamed"), "{before}");
    // A later crawl renames the person: a second WARC file, indexed into the capture index
    // only (`--no-triples`).
    let later = dir.path().join("later");
    write_archive(
        &later,
        &[Exchange::ok(
            &me,
            "2024-04-10T10:00:00Z",
            "application/n-triples",
            format!("<{me}> <http://xmlns.com/foaf/0.1/name> \"Renamed\" .\n").as_bytes(),
        )],
    );
    std::fs::copy(
        later.join("warc/fixture.warc"),
        root.join("warc/later.warc"),
    )
    .unwrap();
    stdout_ok(
        &run(ldwarc()
            .args(["index", "--no-triples", "--root"])
            .arg(&root)),
        "ldwarc index --no-triples",
    );
    let triples_file = root.join("triples/triples.bin.gz");
    let stale_bytes = std::fs::read(&triples_file).unwrap();

    // `when` refuses, telling what to run; `sparql` replays the WARC files and sees the
    // new capture; `/tpf` refuses with 503; `/sparql` answers as the command line.
    let (status, out, err) = when(&root, &pattern);
    assert_eq!(status, Some(2), "{out}{err}");
    assert!(
        err.contains("older than the capture index") && err.contains("ldwarc index --root"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let query = format!("SELECT ?name WHERE {{ <{me}> <http://xmlns.com/foaf/0.1/name> ?name }}");
    let replayed = sparql(&root, "2024-04-20", "csv", &query);
    assert_eq!(replayed, "name\r\nRenamed\r\n");
    assert!(dataset_source(&root, "2024-04-20").contains("(replayed from the WARC files)"));
    {
        let server = LdwarcServer::start(&root, &[]);
        let fragment = server.get(&format!("/tpf?subject={}", encoded(&me)));
        assert_eq!(fragment.status, 503, "{}", fragment.text());
        // The refusal says what is wrong, naming no file or command of the server.
        assert_eq!(
            fragment.text(),
            "the triple index is older than the capture index (captures were indexed since it was built)\n"
        );
        let answer = server.get_with(
            &format!("/sparql?query={}&at=2024-04-20", encoded(&query)),
            &[("Accept", "text/csv")],
        );
        assert_eq!(answer.status, 200);
        assert_eq!(answer.text(), replayed);
    }
    assert_eq!(
        std::fs::read(&triples_file).unwrap(),
        stale_bytes,
        "a read path wrote the triple index"
    );

    // Brought up to date, the index answers again, with the new capture.
    index_triples(&root);
    assert!(dataset_source(&root, "2024-04-20").contains("(from the triple index)"));
    assert_eq!(sparql(&root, "2024-04-20", "csv", &query), replayed);
    let (status, out, err) = when(&root, &pattern);
    assert_eq!(status, Some(0), "{err}");
    assert!(out.contains("\"Renamed\""), "{out}");
}

#[test]
fn the_sparql_dataset_is_bounded_by_the_servers_memory_budget() {
    use crate::versioned_people::{Spec, generate};
    let dir = tempfile::tempdir().unwrap();
    // 40 documents × 25 people × 4 = 4,000 statements: more than a worker's share of the
    // smallest budget (a quarter of 2 MiB) holds, less than the default's (80 MiB).
    let spec = Spec {
        documents: 40,
        people_per_document: 25,
        versions: 1,
        changed_documents: 0.0,
        changed_people: 0.0,
        employers: 5,
        seed: 3,
    };
    generate(dir.path(), &spec);
    stdout_ok(
        &run(ldwarc().arg("index").arg("--root").arg(dir.path())),
        "ldwarc index",
    );
    let count = encoded("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
    for with_triple_index in [false, true] {
        if with_triple_index {
            index_triples(dir.path());
        }
        let small = LdwarcServer::start(dir.path(), &["--memory-budget", "2MiB"]);
        let refused = small.get(&format!("/sparql?query={count}&at=2099"));
        assert_eq!(refused.status, 403, "{}", refused.text());
        assert!(
            refused
                .text()
                .starts_with("the query needed more than 512 KiB of memory, its share of this server's memory budget"),
            "{}",
            refused.text()
        );
        let roomy = LdwarcServer::start(dir.path(), &[]);
        let answered = roomy.get_with(
            &format!("/sparql?query={count}&at=2099"),
            &[("Accept", "text/csv")],
        );
        assert_eq!(answered.status, 200, "{}", answered.text());
        assert_eq!(answered.text(), "n\r\n4000\r\n");
    }
}
