//! `ldwarc replay`, `history`, `snapshot` and `diff @D1 @D2` on an archive crawled from the
//! loopback test web in three epochs: every capture replays to a graph isomorphic (by rdflib)
//! to what the server served then, revisits, redirects and JSON-LD with a captured remote
//! context included; re-serialisations are not changes; errors name the nearest captures.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{ldwarc, run, stdout_ok, venv_bin};
use ldwarc_archive::index::Capture;
use ldwarc_testweb::{
    Doc, GenSpec, Resource, StaticFile, Syntax, Term, TestWebServer, Triple, Web,
};
use ldwarc_timetravel::replay::{ReplayArchive, is_replayable};

const VOCAB: &str = "http://vocab.example/";

fn iri(text: &str) -> Term {
    Term::iri(text)
}

/// Turtle versions of one graph: version 1 re-serialises version 0 (other order, prefixes,
/// blank node label); version 2 edits one literal.
const RESERIALISED: [&str; 3] = [
    "<http://resel.example/doc#it> <http://vocab.example/name> \"Widget\" .\n\
     <http://resel.example/doc#it> <http://vocab.example/part> _:a .\n\
     _:a <http://vocab.example/name> \"Bolt\" .\n",
    "@prefix v: <http://vocab.example/> .\n\
     # the same graph, written differently\n\
     <http://resel.example/doc#it> v:part [ v:name \"Bolt\" ] ;\n    v:name \"Widget\" .\n",
    "@prefix v: <http://vocab.example/> .\n\
     <http://resel.example/doc#it> v:part [ v:name \"Bolt\" ] ;\n    v:name \"Widget 2\" .\n",
];

const CONTEXT: &str = r#"{"@context": {"name": "http://vocab.example/name",
  "knows": {"@id": "http://vocab.example/knows", "@type": "@id"}}}"#;

fn person(name: &str) -> String {
    format!(
        r#"{{"@context": "http://ctx.example/context.jsonld", "@id": "http://ctx.example/person#me",
  "name": "{name}", "knows": "http://ctx.example/person#friend"}}"#
    )
}

fn person_ntriples(name: &str) -> String {
    format!(
        "<http://ctx.example/person#me> <http://vocab.example/name> \"{name}\" .\n\
         <http://ctx.example/person#me> <http://vocab.example/knows> <http://ctx.example/person#friend> .\n"
    )
}

/// A generated web whose documents change between epochs (blank nodes included), plus
/// redirects, a JSON-LD document with a remote context, and a re-serialised document.
fn build_web() -> Web {
    let mut web = Web::generate(GenSpec {
        plds: 3,
        max_docs_per_pld: 5,
        links_per_doc: 2,
        seed: 11,
        ..GenSpec::default()
    });
    let mut counter = 0;
    for host in web.hosts.values_mut() {
        for (path, resource) in host.resources.iter_mut() {
            let Resource::Document(doc) = resource else {
                continue;
            };
            counter += 1;
            let base = doc.graph(0).to_vec();
            let subject = base
                .first()
                .map_or(iri("http://x.example/"), |t| t.s.clone());
            let mut changed = base.clone();
            changed.push(Triple::new(
                subject.clone(),
                iri(&format!("{VOCAB}note")),
                Term::literal(format!("note {path}")),
            ));
            let mut with_blanks = changed.clone();
            with_blanks.push(Triple::new(
                subject.clone(),
                iri(&format!("{VOCAB}part")),
                Term::blank("p1"),
            ));
            with_blanks.push(Triple::new(
                Term::blank("p1"),
                iri(&format!("{VOCAB}name")),
                Term::literal("part one"),
            ));
            with_blanks.push(Triple::new(
                Term::blank("p1"),
                iri(&format!("{VOCAB}next")),
                Term::blank("p2"),
            ));
            with_blanks.push(Triple::new(
                Term::blank("p2"),
                iri(&format!("{VOCAB}name")),
                Term::literal("part two"),
            ));
            doc.epochs = match counter % 3 {
                0 => vec![base],
                1 => vec![base, changed],
                _ => vec![base, changed, with_blanks],
            };
        }
    }
    let new_doc = Doc {
        epochs: vec![
            vec![Triple::new(
                iri("http://redir.example/new#it"),
                iri(&format!("{VOCAB}name")),
                Term::literal("new"),
            )],
            vec![Triple::new(
                iri("http://redir.example/new#it"),
                iri(&format!("{VOCAB}name")),
                Term::literal("newer"),
            )],
        ],
    };
    web.insert("http://redir.example/new", Resource::Document(new_doc))
        .unwrap();
    web.insert(
        "http://redir.example/old",
        Resource::Redirect(301, "/new".into()),
    )
    .unwrap();
    web.insert(
        "http://redir.example/see",
        Resource::SeeOther("/new".into()),
    )
    .unwrap();
    web.insert(
        "http://ctx.example/context.jsonld",
        Resource::Static(StaticFile::new("application/ld+json", CONTEXT)),
    )
    .unwrap();
    web.insert(
        "http://ctx.example/person",
        Resource::Static(StaticFile {
            content_type: "application/ld+json".into(),
            epochs: vec![person("Ann").into_bytes(), person("Ann Lee").into_bytes()],
        }),
    )
    .unwrap();
    web.insert(
        "http://resel.example/doc",
        Resource::Static(StaticFile {
            content_type: "text/turtle".into(),
            epochs: RESERIALISED.iter().map(|t| t.as_bytes().to_vec()).collect(),
        }),
    )
    .unwrap();
    for seed in [
        "http://redir.example/old",
        "http://redir.example/see",
        "http://ctx.example/person",
        "http://resel.example/doc",
    ] {
        web.seeds.push(seed.to_string());
    }
    web
}

fn wait_for_next_second() {
    let nanos = chrono::Utc::now().timestamp_subsec_nanos();
    std::thread::sleep(Duration::from_nanos(u64::from(
        1_000_000_010 - nanos.min(999_999_999),
    )));
}

fn crawl(root: &Path, port: u16, seeds: &[String]) {
    let output = run(ldwarc()
        .args(["crawl", "--root"])
        .arg(root)
        .args([
            "--delay",
            "0.02s",
            "--hops",
            "2",
            "--timeout",
            "10s",
            "--format",
            "json",
        ])
        .args(common::loopback_resolve(port))
        .args(seeds));
    stdout_ok(&output, "ldwarc crawl");
}

/// What the server answered for `url` in `epoch` (following its redirects): the expected
/// file's bytes and its rdflib format.
fn served(web: &Web, url: &str, epoch: usize) -> (Vec<u8>, &'static str) {
    let mut current = url.to_string();
    for _ in 0..5 {
        let (host, _) = ldwarc_testweb::split_url(&current).unwrap();
        match web.resource(&current) {
            Some(Resource::Document(doc)) => {
                return (
                    Syntax::NTriples
                        .serialize(doc.graph(epoch), &current)
                        .unwrap(),
                    "nt",
                );
            }
            Some(Resource::Static(file)) if current == "http://ctx.example/person" => {
                let name = if file.served_epoch(epoch) == 0 {
                    "Ann"
                } else {
                    "Ann Lee"
                };
                return (person_ntriples(name).into_bytes(), "nt");
            }
            Some(Resource::Static(file)) if file.content_type == "text/turtle" => {
                return (file.body(epoch).to_vec(), "turtle");
            }
            Some(Resource::Static(_)) => return (Vec::new(), "nt"),
            Some(Resource::Redirect(_, target) | Resource::SeeOther(target)) => {
                current = format!("http://{host}{target}");
            }
            other => panic!("{url}: unexpected resource {other:?}"),
        }
    }
    panic!("{url}: redirect chain too long")
}

struct Crawled {
    _dir: tempfile::TempDir,
    root: PathBuf,
    web: Web,
    /// The last second of each epoch's crawl.
    ends: Vec<String>,
}

fn crawled_archive() -> Crawled {
    let web = build_web();
    let seeds = web.seeds.clone();
    let server = TestWebServer::start(web.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let mut ends = Vec::new();
    for epoch in 0..3 {
        server.set_epoch(epoch);
        wait_for_next_second();
        crawl(&root, server.port(), &seeds);
        ends.push(chrono::Utc::now().format("%Y%m%d%H%M%S").to_string());
    }
    Crawled {
        _dir: dir,
        root,
        web,
        ends,
    }
}

fn all_captures(root: &Path) -> Vec<Capture> {
    let archive = ReplayArchive::open(root).unwrap();
    let mut captures = Vec::new();
    archive
        .index()
        .scan_range("", None, |c| captures.push(c))
        .unwrap();
    captures.retain(is_replayable);
    captures
}

fn epoch_of(ends: &[String], timestamp: &str) -> usize {
    ends.iter()
        .position(|end| timestamp <= end.as_str())
        .expect("capture after the last crawl")
}

fn replay(root: &Path, target: &str, extra: &[&str]) -> std::process::Output {
    run(ldwarc()
        .args(["replay", "--root"])
        .arg(root)
        .arg(target)
        .args(extra))
}

fn check_isomorphic(pairs: &[serde_json::Value], work: &Path) {
    let list = work.join("pairs.json");
    std::fs::write(&list, serde_json::to_vec(pairs).unwrap()).unwrap();
    let script = common::manifest_dir().join("tests/support/isomorphic.py");
    let output = run(std::process::Command::new(venv_bin("python"))
        .arg(script)
        .arg(&list));
    let text = stdout_ok(&output, "isomorphic.py (rdflib)");
    assert_eq!(text.trim(), format!("ok {}", pairs.len()));
}

#[test]
fn replay_history_snapshot_and_dataset_diff_match_what_was_served() {
    let crawled = crawled_archive();
    let root = &crawled.root;
    let work = tempfile::tempdir().unwrap();
    let captures = all_captures(root);

    // Every capture of a document or redirect replays to what the server served then.
    let mut pairs = Vec::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (n, capture) in captures.iter().enumerate() {
        if capture.url.ends_with("/robots.txt") {
            continue;
        }
        let target = format!("{}@{}", capture.url, capture.timestamp);
        if let Some(status) = capture.status.filter(|s| *s >= 400) {
            let output = replay(root, &target, &[]);
            let message = String::from_utf8_lossy(&output.stderr);
            assert!(
                message.contains(&format!("is HTTP {status}, not a document")),
                "{message}"
            );
            *kinds.entry("error status").or_default() += 1;
            continue;
        }
        let epoch = epoch_of(&crawled.ends, &capture.timestamp);
        let (expected, format) = served(&crawled.web, &capture.url, epoch);
        let output = replay(root, &target, &["--format", "nt"]);
        let actual = stdout_ok(&output, &format!("ldwarc replay {target}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("captured"),
            "{target}: stderr names the capture: {stderr}"
        );
        *kinds.entry(capture.record_type.as_str()).or_default() += 1;
        if capture
            .status
            .is_some_and(|s| (300..400).contains(&s) && s != 304)
        {
            *kinds.entry("redirect").or_default() += 1;
            assert!(stderr.contains("redirected"), "{target}: {stderr}");
        }
        if capture.url.starts_with("http://ctx.example/person") {
            *kinds.entry("json-ld with archived context").or_default() += 1;
            assert!(!stderr.contains("not in the archive"), "{target}: {stderr}");
        }
        let expected_path = work.path().join(format!("{n}.expected"));
        let actual_path = work.path().join(format!("{n}.nt"));
        std::fs::write(&expected_path, expected).unwrap();
        std::fs::write(&actual_path, actual).unwrap();
        pairs.push(serde_json::json!({
            "name": target,
            "expected": expected_path, "expected_format": format,
            "actual": actual_path, "actual_format": "nt",
        }));
    }
    for kind in [
        "response",
        "revisit",
        "redirect",
        "json-ld with archived context",
    ] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} replayed: {kinds:?}"
        );
    }
    assert!(pairs.len() > 40, "{} captures replayed", pairs.len());

    // The dataset as of the last crawl: one named graph per document, each as served then.
    let snapshot_path = work.path().join("snapshot.nq");
    let output = run(ldwarc()
        .args(["snapshot", "--root"])
        .arg(root)
        .arg(format!("@{}", crawled.ends[2]))
        .arg("-o")
        .arg(&snapshot_path));
    stdout_ok(&output, "ldwarc snapshot");
    let documents: Vec<String> = crawled
        .web
        .document_urls()
        .into_iter()
        .filter(|url| captures.iter().any(|c| &c.url == url))
        .collect();
    assert!(documents.len() > 10);
    let mut snapshot_pairs = Vec::new();
    for (n, url) in documents.iter().enumerate() {
        let (expected, format) = served(&crawled.web, url, 2);
        let expected_path = work.path().join(format!("snap{n}.expected"));
        std::fs::write(&expected_path, expected).unwrap();
        snapshot_pairs.push(serde_json::json!({
            "name": format!("snapshot graph {url}"),
            "expected": expected_path, "expected_format": format,
            "actual": snapshot_path, "actual_format": "nquads", "actual_graph": url,
        }));
    }
    pairs.extend(snapshot_pairs);
    check_isomorphic(&pairs, work.path());

    // History: a pure re-serialisation is not a change, a one-literal edit is.
    let output = run(ldwarc()
        .args(["history", "--format", "json", "--root"])
        .arg(root)
        .arg("http://resel.example/doc"));
    let lines: Vec<serde_json::Value> = stdout_ok(&output, "ldwarc history")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let changes: Vec<&str> = lines
        .iter()
        .map(|l| l["change"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["first", "same-graph", "changed"], "{lines:?}");
    assert_ne!(
        lines[0]["digest"], lines[1]["digest"],
        "the bytes did change"
    );
    assert_eq!(lines[0]["graph_hash"], lines[1]["graph_hash"]);

    // --raw: the archived bytes exactly as served.
    let output = replay(
        root,
        &format!("http://resel.example/doc@{}", crawled.ends[1]),
        &["--raw"],
    );
    assert_eq!(output.stdout, RESERIALISED[1].as_bytes());

    // ISO 8601 with an offset means the same instant in UTC.
    let end = chrono::NaiveDateTime::parse_from_str(&crawled.ends[0], "%Y%m%d%H%M%S").unwrap();
    let iso = (end + chrono::Duration::hours(2))
        .format("%Y-%m-%dT%H:%M:%S+02:00")
        .to_string();
    let by_iso = replay(root, &format!("http://resel.example/doc@{iso}"), &["--raw"]);
    assert_eq!(by_iso.stdout, RESERIALISED[0].as_bytes());

    // Before the first capture: an error listing the first captures; --pick closest answers.
    let early = replay(root, "http://resel.example/doc@2001", &[]);
    assert_eq!(early.status.code(), Some(2));
    let message = String::from_utf8_lossy(&early.stderr);
    assert!(
        message.contains("no capture at or before 20011231235959; the first captures are"),
        "{message}"
    );
    let closest = replay(
        root,
        "http://resel.example/doc@2001",
        &["--pick", "closest", "--raw"],
    );
    assert_eq!(closest.stdout, RESERIALISED[0].as_bytes());
    let never = replay(root, "http://resel.example/nothing@2030", &[]);
    let message = String::from_utf8_lossy(&never.stderr);
    assert!(
        message.contains("never captured; captured URLs nearby: http://resel.example/doc"),
        "{message}"
    );

    // Dataset diff between the first and the last crawl: the changed documents are exactly
    // those whose served graph changed.
    let output = run(ldwarc()
        .args(["diff", "--format", "json", "--root"])
        .arg(root)
        .arg(format!("@{}", crawled.ends[0]))
        .arg(format!("@{}", crawled.ends[2])));
    let text = stdout_ok(&output, "ldwarc diff @ @");
    let mut changed: Vec<String> = Vec::new();
    for line in text.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value["change"] == "changed" {
            changed.push(value["url"].as_str().unwrap().to_string());
        }
    }
    changed.sort();
    let mut expected_changed: Vec<String> = documents
        .iter()
        .filter(|url| served(&crawled.web, url, 0) != served(&crawled.web, url, 2))
        .cloned()
        .collect();
    expected_changed.sort();
    assert_eq!(changed, expected_changed);
}

/// Two documents captured in the same second at offset 0 of two files, each with a blank
/// node: the snapshot gives them two blank nodes, and a query joining through a blank node
/// stays inside each document.
#[test]
fn documents_of_the_same_second_and_offset_in_two_files_share_no_blank_node() {
    use crate::warc_fixture::{Exchange, write_warc_file};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (name, host) in [("a.warc", "one"), ("b.warc", "two")] {
        let body = format!("<#x> <http://ex.org/p> _:b .\n_:b <http://ex.org/q> \"{host}\" .\n");
        let url = format!("http://{host}.example/doc");
        let exchange = Exchange::ok(&url, "2026-01-01T00:00:00Z", "text/turtle", body.as_bytes());
        write_warc_file(root, name, &[exchange]);
    }
    stdout_ok(&run(ldwarc().arg("index").arg("--root").arg(root)), "index");

    let nquads = stdout_ok(
        &run(ldwarc().args(["snapshot", "@2026"]).arg("--root").arg(root)),
        "snapshot",
    );
    let mut graphs_of_label: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in nquads.lines() {
        let terms: Vec<&str> = line.split(' ').collect();
        let graph = terms[terms.len() - 2].to_string();
        for term in terms.iter().filter(|t| t.starts_with("_:")) {
            graphs_of_label
                .entry(term.to_string())
                .or_default()
                .push(graph.clone());
        }
    }
    assert_eq!(graphs_of_label.len(), 2, "{nquads}");
    for (label, graphs) in &graphs_of_label {
        assert!(
            graphs.iter().all(|g| g == &graphs[0]),
            "{label} in {graphs:?}"
        );
    }

    let query = "SELECT ?x ?v WHERE { GRAPH ?g1 { ?x <http://ex.org/p> ?b } \
                 GRAPH ?g2 { ?b <http://ex.org/q> ?v } } ORDER BY ?x";
    let csv = stdout_ok(
        &run(ldwarc()
            .args(["sparql", "--at", "2026", "--format", "csv", query])
            .arg("--root")
            .arg(root)),
        "sparql",
    );
    assert_eq!(
        csv.replace("\r\n", "\n"),
        "x,v\nhttp://one.example/doc#x,one\nhttp://two.example/doc#x,two\n"
    );
}

/// A capture whose record was damaged after indexing is reported, never silently dropped:
/// `history` lists it as unreadable and exits 1, `stats` counts it as failed (its other
/// captures still observed) and exits 1.
#[test]
fn a_damaged_record_is_reported_by_history_and_stats() {
    use crate::warc_fixture::{Exchange, write_archive};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let url = "http://data.example/doc";
    let exchanges: Vec<Exchange> = (1..=3)
        .map(|day| {
            let body = format!("<#x> <http://ex.org/version> \"{day}\" .\n");
            let date = format!("2026-01-0{day}T00:00:00Z");
            Exchange::ok(url, &date, "text/turtle", body.as_bytes())
        })
        .collect();
    write_archive(root, &exchanges);

    let (offset, damaged_at) = crate::warc_fixture::nth_capture(root, url, 1);
    let file = root.join("warc/fixture.warc");
    let mut bytes = std::fs::read(&file).unwrap();
    assert_eq!(&bytes[offset..offset + 8], b"WARC/1.1");
    bytes[offset..offset + 4].copy_from_slice(b"XXXX");
    std::fs::write(&file, &bytes).unwrap();

    let history = run(ldwarc().args(["history", url, "--root"]).arg(root));
    let stdout = String::from_utf8_lossy(&history.stdout);
    let stderr = String::from_utf8_lossy(&history.stderr);
    assert_eq!(history.status.code(), Some(1), "{stdout}{stderr}");
    let changes: Vec<&str> = stdout
        .lines()
        .skip(1) // the header row
        .map(|line| line.split_whitespace().nth(6).unwrap_or(""))
        .collect();
    assert_eq!(changes, ["first", "unreadable", "changed"], "{stdout}");
    assert!(
        stderr.contains(&damaged_at) && stderr.contains("unreadable"),
        "{stderr}"
    );

    let stats = run(ldwarc()
        .args(["stats", "--format", "json", "--root"])
        .arg(root));
    assert_eq!(
        stats.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&stats.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(report["summary"]["captures"], 3, "{report}");
    assert_eq!(report["summary"]["observations"], 2, "{report}");
    assert_eq!(report["summary"]["failed"], 1, "{report}");
    let failure = report["failures"][0].as_str().unwrap();
    assert!(
        failure.contains(url) && failure.contains(&damaged_at),
        "{failure}"
    );

    for extra in [&[][..], &["--exit-code"][..]] {
        let diff = run(ldwarc()
            .args(["diff", "@20260101", &format!("@{damaged_at}")])
            .args(extra)
            .arg("--root")
            .arg(root));
        let stdout = String::from_utf8_lossy(&diff.stdout);
        assert_eq!(diff.status.code(), Some(1), "{extra:?}: {stdout}");
        assert!(stdout.contains("1 failed documents"), "{stdout}");
    }
    let unchanged = run(ldwarc()
        .args(["diff", "@20260101", "@20260101", "--exit-code", "--root"])
        .arg(root));
    assert_eq!(unchanged.status.code(), Some(0));
}

/// A record whose payload no longer matches its recorded digest (changed after it was
/// written) is replayed with a warning and exit status 1; an intact one without.
#[test]
fn replay_warns_when_a_payload_does_not_match_its_digest() {
    use crate::warc_fixture::{Exchange, write_archive};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let url = "http://people.example/alice";
    let body =
        b"<http://people.example/alice#me> <http://xmlns.com/foaf/0.1/name> \"Alice Ames\" .\n";
    let digest = crate::warc_fixture::sha1_payload_digest(body);
    let exchange = Exchange {
        payload_digest: Some(digest.clone()),
        ..Exchange::ok(url, "2026-01-01T00:00:00Z", "text/turtle", body)
    };
    write_archive(root, &[exchange]);
    let replay = || run(ldwarc().args(["replay", url, "--root"]).arg(root));

    let intact = replay();
    assert_eq!(intact.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&intact.stderr).contains("digest"));

    let file = root.join("warc/fixture.warc");
    let bytes = std::fs::read(&file).unwrap();
    let at = bytes.windows(4).position(|w| w == b"Ames").unwrap();
    let mut altered = bytes.clone();
    altered[at + 3] = b'z';
    std::fs::write(&file, altered).unwrap();
    let output = replay();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("does not match its recorded digest") && stderr.contains(&digest),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("Alice Amez"));
}

/// A revisit the index cites but whose record is gone (its file cut after indexing): replay
/// prints the original's graph with a warning and exit status 1.
#[test]
fn replay_of_a_revisit_whose_record_is_gone_warns() {
    use crate::warc_fixture::{Exchange, write_archive};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let url = "http://people.example/bob";
    let date = "2026-01-01T00:00:00Z";
    let body = b"<http://people.example/bob#me> <http://xmlns.com/foaf/0.1/name> \"Bob\" .\n";
    let revisit = Exchange::not_modified(url, "2026-01-02T00:00:00Z", date);
    write_archive(
        root,
        &[Exchange::ok(url, date, "text/turtle", body), revisit],
    );
    let replay = || {
        run(ldwarc()
            .args(["replay", &format!("{url}@20260102"), "--root"])
            .arg(root))
    };
    let whole = replay();
    assert_eq!(
        whole.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );

    let (offset, _) = crate::warc_fixture::nth_capture(root, url, 1);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(root.join("warc/fixture.warc"))
        .unwrap();
    file.set_len(offset as u64).unwrap();
    let cut = replay();
    let stderr = String::from_utf8_lossy(&cut.stderr);
    assert_eq!(cut.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the revisit record the index cites cannot be read"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&cut.stdout).contains("\"Bob\""));
}
