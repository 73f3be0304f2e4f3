//! The archive as Linked Data about itself: `ldwarc describe` (VoID + DCAT 3), serve's
//! `/.well-known/void`, `/download/…` and `/ldes`. A TREE walker written here replicates the
//! event stream and its members are compared with what `ldwarc history` reports; every
//! dataset version's download is fetched and its statements counted against `void:triples`;
//! pySHACL validates the description against shapes written for this test.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::io::Read;
use std::path::Path;

use ldwarc_rdf::{Graph, NoContexts, Syntax, parse_graph};

use crate::common::{ldwarc, manifest_dir, run, stdout_ok, venv_bin};
use crate::serve_server::LdwarcServer;
use crate::warc_fixture::{Exchange, write_archive};

const TREE: &str = "https://w3id.org/tree#";
const PROV_TIME: &str = "<http://www.w3.org/ns/prov#generatedAtTime>";
const IS_VERSION_OF: &str = "<http://purl.org/dc/terms/isVersionOf>";
const RDF_TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
const DELETE: &str = "<https://www.w3.org/ns/activitystreams#Delete>";
const VOID: &str = "http://rdfs.org/ns/void#";
const DCAT: &str = "http://www.w3.org/ns/dcat#";

const ALICE_V1: &str = "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n\
    <http://a.example.org/alice> a foaf:Person ; foaf:name \"Alice\" ; foaf:knows <http://a.example.org/bob> .\n\
    <http://a.example.org/bob> a foaf:Person ; foaf:name \"Bob\" .\n";
const ALICE_V2: &str = "@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n\
    <http://a.example.org/alice> a foaf:Person ; foaf:name \"Alice A.\" .\n";
const THING: &str = "<http://b.example.org/thing> <http://purl.org/dc/terms/creator> _:c .\n\
    _:c <http://xmlns.com/foaf/0.1/name> \"Carol\" .\n";
const THING_RELABELLED: &str = "_:x <http://xmlns.com/foaf/0.1/name> \"Carol\" .\n\
    <http://b.example.org/thing> <http://purl.org/dc/terms/creator> _:x .\n";

/// Generated documents beyond the hand-made ones: enough members for three pages of 100.
const GENERATED: usize = 230;

fn status(url: &str, date: &str, code: u16, headers: &[(&str, &str)]) -> Exchange {
    Exchange {
        status: code,
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        ..Exchange::ok(url, date, "text/html", b"gone")
    }
}

/// The archive: a document that changes, is unchanged, is removed (404) and comes back; one
/// re-serialised without change (same graph); one that turns into a redirect; and
/// [`GENERATED`] documents of another domain, one capture each, a second apart.
fn write_publish_archive(root: &Path) -> Vec<String> {
    let doc1 = "http://a.example.org/doc1";
    let doc2 = "http://b.example.org/doc2";
    let doc3 = "http://data.example.net/x";
    let mut exchanges = vec![
        Exchange::ok(
            doc1,
            "2024-03-01T10:00:00Z",
            "text/turtle",
            ALICE_V1.as_bytes(),
        ),
        Exchange::ok(
            doc2,
            "2024-03-01T11:00:00Z",
            "application/n-triples",
            THING.as_bytes(),
        ),
        Exchange::ok(
            doc1,
            "2024-03-02T10:00:00Z",
            "text/turtle",
            ALICE_V1.as_bytes(),
        ),
        Exchange::ok(
            doc3,
            "2024-03-02T12:00:00Z",
            "text/turtle",
            ALICE_V2.as_bytes(),
        ),
        Exchange::ok(
            doc1,
            "2024-03-03T10:00:00Z",
            "text/turtle",
            ALICE_V2.as_bytes(),
        ),
        Exchange::ok(
            doc2,
            "2024-03-03T11:00:00Z",
            "application/n-triples",
            THING_RELABELLED.as_bytes(),
        ),
        status(
            doc3,
            "2024-03-03T12:00:00Z",
            301,
            &[("Location", "http://data.example.net/y")],
        ),
        status(
            doc1,
            "2024-03-04T10:00:00Z",
            404,
            &[("Content-Type", "text/html")],
        ),
        Exchange::ok(
            doc1,
            "2024-03-05T10:00:00Z",
            "text/turtle",
            ALICE_V2.as_bytes(),
        ),
    ];
    let mut urls = vec![doc1.to_string(), doc2.to_string(), doc3.to_string()];
    for i in 0..GENERATED {
        let url = format!("http://gen.example.com/d{i}");
        let body = format!(
            "<http://gen.example.com/d{i}#it> <http://schema.org/position> \"{i}\" .\n\
             <http://gen.example.com/d{i}#it> <http://schema.org/name> \"item {i}\" .\n"
        );
        let date = format!("2024-03-02T13:{:02}:{:02}Z", i / 60, i % 60);
        exchanges.push(Exchange::ok(
            &url,
            &date,
            "application/n-triples",
            body.as_bytes(),
        ));
        urls.push(url);
    }
    write_archive(root, &exchanges);
    urls
}

fn parse_quads(body: &[u8]) -> Graph {
    parse_graph(body, &[Syntax::NQuads], "http://base.invalid/", &NoContexts)
        .expect("N-Quads")
        .graph
}

/// Subject, predicate, object, graph spellings of every statement.
fn statements(graph: &Graph) -> Vec<[String; 4]> {
    graph
        .quads()
        .iter()
        .map(|q| {
            [
                graph.term(q.subject).to_string(),
                graph.term(q.predicate).to_string(),
                graph.term(q.object).to_string(),
                if q.graph == ldwarc_rdf::DEFAULT_GRAPH {
                    String::new()
                } else {
                    graph.term(q.graph).to_string()
                },
            ]
        })
        .collect()
}

fn objects(statements: &[[String; 4]], subject: &str, predicate: &str) -> Vec<String> {
    statements
        .iter()
        .filter(|s| s[0] == subject && s[1] == predicate && s[3].is_empty())
        .map(|s| s[2].clone())
        .collect()
}

fn unbracket(iri: &str) -> &str {
    iri.trim_start_matches('<').trim_end_matches('>')
}

fn literal_value(literal: &str) -> &str {
    literal[1..].split('"').next().expect("literal")
}

/// One replicated member: (URL, 14-digit timestamp, tombstone?, statements in its graph).
type Replicated = (String, String, bool, usize);

/// Walks the stream from `/ldes` following `tree:relation`s, checking each page's members
/// against the relations that led to it and each page's caching; returns the members.
fn walk(server: &LdwarcServer) -> Vec<Replicated> {
    let base = format!("http://127.0.0.1:{}", server.port);
    let relation = format!("<{TREE}relation>");
    let mut queue: VecDeque<(String, Vec<(String, String)>)> =
        VecDeque::from([(format!("<{base}/ldes>"), Vec::new())]);
    let mut visited: HashSet<String> = HashSet::new();
    let mut members = Vec::new();
    let mut pages = Vec::new();
    while let Some((node, conditions)) = queue.pop_front() {
        if !visited.insert(node.clone()) {
            continue;
        }
        let path = unbracket(&node)
            .strip_prefix(&base)
            .expect("a node of this server");
        let answer = server.get(path);
        assert_eq!(answer.status, 200, "{path}");
        let graph = parse_quads(&answer.body);
        let all = statements(&graph);
        if path != "/ldes" {
            pages.push((
                path.to_string(),
                answer.header("cache-control").unwrap_or("").to_string(),
                answer.header("content-type").unwrap_or("").to_string(),
            ));
        } else {
            let stream = format!("<{base}/ldes#stream>");
            assert_eq!(
                objects(&all, &stream, "<https://w3id.org/ldes#timestampPath>"),
                [PROV_TIME]
            );
            assert_eq!(
                objects(&all, &stream, "<https://w3id.org/ldes#versionOfPath>"),
                [IS_VERSION_OF]
            );
        }
        // Relations of this node: the conditions every member under them must meet.
        let mut targets: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for r in objects(&all, &node, &relation) {
            let target = objects(&all, &r, &format!("<{TREE}node>")).remove(0);
            let kind = objects(&all, &r, RDF_TYPE).remove(0);
            let value = objects(&all, &r, &format!("<{TREE}value>")).remove(0);
            assert_eq!(objects(&all, &r, &format!("<{TREE}path>")), [PROV_TIME]);
            targets
                .entry(target)
                .or_default()
                .push((kind, literal_value(&value).to_string()));
        }
        for (target, conditions) in targets {
            queue.push_back((target, conditions));
        }
        for member in objects(
            &all,
            &format!("<{base}/ldes#stream>"),
            &format!("<{TREE}member>"),
        ) {
            let time = objects(&all, &member, PROV_TIME).remove(0);
            let time = literal_value(&time).to_string();
            for (kind, value) in &conditions {
                // RFC 3339 in UTC to the microsecond: text order is time order.
                match kind.as_str() {
                    k if k == format!("<{TREE}GreaterThanOrEqualToRelation>") => {
                        assert!(time.as_str() >= value.as_str(), "{member} {time} < {value}")
                    }
                    k if k == format!("<{TREE}LessThanRelation>") => {
                        assert!(time.as_str() < value.as_str(), "{member} {time} >= {value}")
                    }
                    other => panic!("unexpected relation {other}"),
                }
            }
            let url = unbracket(&objects(&all, &member, IS_VERSION_OF).remove(0)).to_string();
            let timestamp = unbracket(&member)
                .strip_prefix(&format!("{base}/web/"))
                .and_then(|rest| rest.strip_suffix(&format!("/{url}")))
                .expect("the member IRI is its memento URI")
                .to_string();
            let tombstone = objects(&all, &member, RDF_TYPE).contains(&DELETE.to_string());
            let in_graph = all.iter().filter(|s| s[3] == member).count();
            members.push((url, timestamp, tombstone, in_graph));
        }
    }
    // Three pages of about 100; closed ones immutable, the newest short-lived.
    pages.sort_by_key(|(path, _, _)| path.clone());
    assert_eq!(pages.len(), 3, "{pages:?}");
    for (at, (path, cache, content_type)) in pages.iter().enumerate() {
        assert!(
            content_type.starts_with("application/n-quads"),
            "{path}: {content_type}"
        );
        if at + 1 < pages.len() {
            assert_eq!(cache, "public, max-age=31536000, immutable", "{path}");
        } else {
            assert_eq!(cache, "public, max-age=60", "{path}");
        }
    }
    members
}

/// The members `ldwarc history --format json` implies for `url`: first and changed graphs,
/// graphs back after a removal, and removals after a graph (tombstones).
fn members_from_history(root: &Path, url: &str) -> Vec<Replicated> {
    let output = run(ldwarc()
        .args(["history", "--format", "json", "--root"])
        .arg(root)
        .arg(url));
    let text = stdout_ok(&output, "ldwarc history");
    let mut live = false;
    let mut members = Vec::new();
    for line in text.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let timestamp = entry["timestamp"].as_str().expect("timestamp").to_string();
        let statements = entry["statements"].as_u64().unwrap_or(0) as usize;
        match entry["change"].as_str().expect("change") {
            "first" | "changed" => {
                members.push((url.to_string(), timestamp, false, statements));
                live = true;
            }
            "same-graph" | "unchanged" => {
                if !live {
                    members.push((url.to_string(), timestamp, false, statements));
                }
                live = true;
            }
            "redirect" | "no-graph" => {
                if live {
                    members.push((url.to_string(), timestamp, true, 0));
                }
                live = false;
            }
            _ => {}
        }
    }
    members
}

#[test]
fn ldes_walk_replicates_every_graph_change_of_history() {
    let dir = tempfile::tempdir().unwrap();
    let urls = write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &[]);
    let replicated: BTreeSet<Replicated> = walk(&server).into_iter().collect();
    let expected: BTreeSet<Replicated> = urls
        .iter()
        .flat_map(|url| members_from_history(dir.path(), url))
        .collect();
    assert_eq!(replicated, expected);
    // The hand-made document: first, changed, removed, back; the relabelled one: first only;
    // the redirected one: first and its removal.
    let of = |url: &str| {
        replicated
            .iter()
            .filter(|m| m.0 == url)
            .map(|m| (m.1.as_str(), m.2, m.3))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("http://a.example.org/doc1"),
        [
            ("20240301100000", false, 5),
            ("20240303100000", false, 2),
            ("20240304100000", true, 0),
            ("20240305100000", false, 2),
        ]
    );
    assert_eq!(
        of("http://b.example.org/doc2"),
        [("20240301110000", false, 2)]
    );
    assert_eq!(
        of("http://data.example.net/x"),
        [("20240302120000", false, 2), ("20240303120000", true, 0)]
    );
    assert_eq!(replicated.len(), 7 + GENERATED);
}

/// The TREEcg LDES client (npm `ldes-client`, pinned by .ci/setup-interop.sh).
fn ldes_client() -> std::path::PathBuf {
    let path = manifest_dir().join(".npm-tools/ldes/node_modules/.bin/ldes-client");
    assert!(
        path.exists(),
        "interop tool {} is missing; run `bash .ci/setup-interop.sh`",
        path.display()
    );
    path
}

#[test]
fn ldes_client_replicates_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let urls = write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &[]);
    let base = format!("http://127.0.0.1:{}", server.port);
    let output = run(std::process::Command::new(ldes_client()).arg(format!("{base}/ldes")));
    let text = stdout_ok(&output, "ldes-client");
    // The client prints each member's quads: its metadata and its named graph.
    let all = statements(&parse_quads(text.as_bytes()));
    let mut replicated = BTreeSet::new();
    for member in all
        .iter()
        .filter(|s| s[1] == PROV_TIME && s[3].is_empty())
        .map(|s| s[0].clone())
    {
        let url = unbracket(&objects(&all, &member, IS_VERSION_OF).remove(0)).to_string();
        let timestamp = unbracket(&member)
            .strip_prefix(&format!("{base}/web/"))
            .and_then(|rest| rest.strip_suffix(&format!("/{url}")))
            .expect("the member IRI is its memento URI")
            .to_string();
        let tombstone = objects(&all, &member, RDF_TYPE).contains(&DELETE.to_string());
        let in_graph = all.iter().filter(|s| s[3] == member).count();
        replicated.insert((url, timestamp, tombstone, in_graph));
    }
    let expected: BTreeSet<Replicated> = urls
        .iter()
        .flat_map(|url| members_from_history(dir.path(), url))
        .collect();
    assert_eq!(replicated, expected);
}

#[test]
fn ldes_and_void_refuse_what_does_not_exist_with_404() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &[]);
    for path in [
        "/ldes/3",
        "/ldes/99999999999",
        "/ldes/01",
        "/ldes/-1",
        "/ldes/x",
        "/download/20240306/example.org.nq.gz",
        "/download/20240301/example.net.nq.gz",
        "/download/20240301/nowhere.org.nq.gz",
        "/download/20240301/example.org.nq",
        "/download/../../etc/passwd",
    ] {
        let answer = server.get(path);
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.text(), "not found\n", "{path}");
    }
    let answer = server.get("/ldes/2");
    assert_eq!(answer.status, 200);
}

#[test]
fn public_mode_serves_the_publishing_routes() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &["--public"]);
    for path in [
        "/.well-known/void",
        "/ldes",
        "/ldes/0",
        "/download/20240301/example.org.nq.gz",
    ] {
        assert_eq!(server.get(path).status, 200, "{path}");
    }
}

/// `void:triples` etc. of dataset `subject` in N-Triples statements.
fn count(all: &[[String; 4]], subject: &str, property: &str) -> u64 {
    let values = objects(all, subject, &format!("<{VOID}{property}>"));
    assert_eq!(values.len(), 1, "{subject} {property}: {values:?}");
    literal_value(&values[0]).parse().expect("a count")
}

#[test]
fn describe_counts_what_every_download_holds() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &[]);
    let base = format!("http://127.0.0.1:{}", server.port);
    let output = run(ldwarc()
        .args(["describe", "--format", "nt", "--base", &base, "--root"])
        .arg(dir.path()));
    let text = stdout_ok(&output, "ldwarc describe");
    // The server says the same.
    let served = server.get_with("/.well-known/void", &[("Accept", "application/n-triples")]);
    assert_eq!(served.status, 200);
    assert_eq!(
        served.header("content-type"),
        Some("application/n-triples; charset=utf-8")
    );
    let mut from_server = statements(&parse_quads(&served.body));
    let graph = parse_quads(text.as_bytes());
    let mut all = statements(&graph);
    from_server.sort();
    all.sort();
    // Blank node labels are the parser's, by order of appearance: the same output parses
    // to the same statements.
    assert_eq!(from_server, all);

    let datasets = all
        .iter()
        .filter(|s| s[1] == RDF_TYPE && s[2] == format!("<{DCAT}Dataset>"))
        .map(|s| s[0].clone())
        .collect::<Vec<_>>();
    let void = format!("{base}/.well-known/void");
    let expected_days: BTreeSet<String> = [
        "example.org-20240301",
        "example.org-20240302",
        "example.org-20240303",
        "example.org-20240304",
        "example.org-20240305",
        "example.net-20240302",
        "example.net-20240303",
        "example.com-20240302",
    ]
    .iter()
    .map(|id| format!("<{void}#{id}>"))
    .collect();
    assert_eq!(
        datasets.iter().cloned().collect::<BTreeSet<_>>(),
        expected_days
    );
    for dataset in &datasets {
        let triples = count(&all, dataset, "triples");
        let distribution = objects(&all, dataset, &format!("<{DCAT}distribution>")).remove(0);
        let url = objects(&all, &distribution, &format!("<{DCAT}downloadURL>")).remove(0);
        let path = unbracket(&url)
            .strip_prefix(&base)
            .expect("a route of this server");
        let answer = server.get(path);
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("content-type"), Some("application/gzip"));
        let mut nquads = Vec::new();
        flate2::read::GzDecoder::new(&answer.body[..])
            .read_to_end(&mut nquads)
            .expect("gzip");
        let lines = nquads
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count() as u64;
        assert_eq!(lines, triples, "{dataset}");
        assert_eq!(parse_quads(&nquads).len() as u64, triples, "{dataset}");
    }
    // example.org on 1 March: doc1's first graph (5) and doc2 (2, a blank node).
    let first = format!("<{void}#example.org-20240301>");
    assert_eq!(count(&all, &first, "triples"), 7);
    assert_eq!(count(&all, &first, "entities"), 3);
    assert_eq!(count(&all, &first, "distinctSubjects"), 4);
    assert_eq!(count(&all, &first, "distinctObjects"), 6);
    assert_eq!(count(&all, &first, "properties"), 4);
    let person_partition = objects(&all, &first, &format!("<{VOID}classPartition>"))
        .into_iter()
        .find(|p| {
            objects(&all, p, &format!("<{VOID}class>")) == ["<http://xmlns.com/foaf/0.1/Person>"]
        })
        .expect("a foaf:Person partition");
    assert_eq!(count(&all, &person_partition, "entities"), 2);
    let name_partition = objects(&all, &first, &format!("<{VOID}propertyPartition>"))
        .into_iter()
        .find(|p| {
            objects(&all, p, &format!("<{VOID}property>")) == ["<http://xmlns.com/foaf/0.1/name>"]
        })
        .expect("a foaf:name partition");
    assert_eq!(count(&all, &name_partition, "triples"), 3);
    // On 4 March doc1 answered 404: only doc2 is left.
    let removed = format!("<{void}#example.org-20240304>");
    assert_eq!(count(&all, &removed, "triples"), 2);
    assert_eq!(
        objects(&all, &removed, "<http://purl.org/dc/terms/source>"),
        ["<http://b.example.org/doc2>"]
    );
    assert_eq!(
        objects(&all, &removed, "<http://www.w3.org/ns/prov#wasDerivedFrom>"),
        [format!(
            "<{base}/web/20240303110000/http://b.example.org/doc2>"
        )]
    );
    // The series links its versions in order.
    let series = format!("<{void}#example.org>");
    assert_eq!(
        objects(&all, &series, RDF_TYPE),
        [format!("<{DCAT}DatasetSeries>")]
    );
    assert_eq!(objects(&all, &series, &format!("<{DCAT}first>")), [first]);
    assert_eq!(
        objects(&all, &series, &format!("<{DCAT}last>")),
        [format!("<{void}#example.org-20240305>")]
    );
}

#[test]
fn void_is_content_negotiated() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    let server = LdwarcServer::start(dir.path(), &[]);
    let turtle = server.get("/.well-known/void");
    assert_eq!(
        turtle.header("content-type"),
        Some("text/turtle; charset=utf-8")
    );
    let jsonld = server.get_with("/.well-known/void", &[("Accept", "application/ld+json")]);
    assert_eq!(
        jsonld.header("content-type"),
        Some("application/ld+json; charset=utf-8")
    );
    let ntriples = server.get_with("/.well-known/void", &[("Accept", "application/n-triples")]);
    // The three parse to the same graph.
    let reference = statements(&parse_quads(&ntriples.body)).len();
    for (answer, syntax) in [(&turtle, Syntax::Turtle), (&jsonld, Syntax::JsonLd)] {
        let parsed = parse_graph(&answer.body, &[syntax], "http://base.invalid/", &NoContexts)
            .expect("parses");
        assert!(parsed.error.is_none(), "{:?}", parsed.error);
        assert_eq!(parsed.graph.len(), reference, "{syntax:?}");
    }
    let refused = server.get_with("/.well-known/void", &[("Accept", "image/png")]);
    assert_eq!(refused.status, 406);
}

#[test]
fn describe_refuses_bad_arguments_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    for (args, message) in [
        (
            vec!["--format", "hdt"],
            "--format hdt: expected ttl, nt or jsonld",
        ),
        (
            vec!["--base", "ftp://e.org"],
            "--base ftp://e.org: expected an http(s) URL",
        ),
        (vec!["--base", "not a url"], "--base not a url: not a URL"),
    ] {
        let output = run(ldwarc()
            .arg("describe")
            .args(&args)
            .arg("--root")
            .arg(dir.path()));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(output.stdout.is_empty());
    }
    let output = run(ldwarc()
        .arg("describe")
        .arg("--root")
        .arg(dir.path().join("missing")));
    assert_eq!(output.status.code(), Some(2));
}

/// Shapes written for this test (NOT the DCAT-AP 3 shapes, which no PyPI or npm package
/// ships and CI cannot download): each property issue 36 requires of the catalogue, the
/// series, the datasets and the distributions, with its datatype.
const OUR_SHAPES: &str = r#"
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix void: <http://rdfs.org/ns/void#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://ldwarc.invalid/shapes#> .

ex:Catalog a sh:NodeShape ; sh:targetClass dcat:Catalog ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ; sh:nodeKind sh:Literal ] ;
  sh:property [ sh:path dct:description ; sh:minCount 1 ; sh:nodeKind sh:Literal ] ;
  sh:property [ sh:path dct:publisher ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path dcat:dataset ; sh:minCount 1 ;
    sh:or ( [ sh:class dcat:Dataset ] [ sh:class dcat:DatasetSeries ] ) ] .

ex:Series a sh:NodeShape ; sh:targetClass dcat:DatasetSeries ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ] ;
  sh:property [ sh:path dcat:first ; sh:minCount 1 ; sh:maxCount 1 ; sh:class dcat:Dataset ] ;
  sh:property [ sh:path dcat:last ; sh:minCount 1 ; sh:maxCount 1 ; sh:class dcat:Dataset ] ;
  sh:property [ sh:path [ sh:inversePath dcat:inSeries ] ; sh:minCount 1 ] .

ex:Dataset a sh:NodeShape ; sh:targetClass dcat:Dataset ; sh:targetSubjectsOf dcat:inSeries ;
  sh:property [ sh:path dct:title ; sh:minCount 1 ] ;
  sh:property [ sh:path dct:description ; sh:minCount 1 ] ;
  sh:property [ sh:path dcat:inSeries ; sh:minCount 1 ; sh:maxCount 1 ; sh:class dcat:DatasetSeries ] ;
  sh:property [ sh:path dct:issued ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:dateTime ] ;
  sh:property [ sh:path dct:temporal ; sh:maxCount 1 ; sh:class dct:PeriodOfTime ] ;
  sh:property [ sh:path void:triples ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path void:entities ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path void:distinctSubjects ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path void:distinctObjects ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path void:properties ; sh:minCount 1 ; sh:maxCount 1 ; sh:datatype xsd:integer ] ;
  sh:property [ sh:path void:classPartition ; sh:node ex:ClassPartition ] ;
  sh:property [ sh:path void:propertyPartition ; sh:node ex:PropertyPartition ] ;
  sh:property [ sh:path dcat:distribution ; sh:minCount 1 ; sh:class dcat:Distribution ] .

ex:ClassPartition a sh:NodeShape ;
  sh:property [ sh:path void:class ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path void:entities ; sh:minCount 1 ; sh:datatype xsd:integer ] .

ex:PropertyPartition a sh:NodeShape ;
  sh:property [ sh:path void:property ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path void:triples ; sh:minCount 1 ; sh:datatype xsd:integer ] .

ex:Period a sh:NodeShape ; sh:targetClass dct:PeriodOfTime ;
  sh:property [ sh:path dcat:startDate ; sh:minCount 1 ; sh:datatype xsd:date ] ;
  sh:property [ sh:path dcat:endDate ; sh:minCount 1 ; sh:datatype xsd:date ] .

ex:Distribution a sh:NodeShape ; sh:targetClass dcat:Distribution ;
  sh:property [ sh:path dcat:accessURL ; sh:minCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path dcat:downloadURL ; sh:minCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path dcat:mediaType ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] .
"#;

#[test]
fn pyshacl_validates_the_description_against_our_shapes() {
    let dir = tempfile::tempdir().unwrap();
    write_publish_archive(dir.path());
    let description = dir.path().join("void.ttl");
    let output = run(ldwarc().arg("describe").arg("--root").arg(dir.path()));
    std::fs::write(&description, stdout_ok(&output, "ldwarc describe")).unwrap();
    let shapes = dir.path().join("shapes.ttl");
    std::fs::write(&shapes, OUR_SHAPES).unwrap();
    let pyshacl = venv_bin("pyshacl");
    let validate = |data: &Path, format: &str| {
        run(std::process::Command::new(&pyshacl)
            .args(["-s"])
            .arg(&shapes)
            .args(["-df", format, "-sf", "turtle"])
            .arg(data))
    };
    let checked = validate(&description, "turtle");
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    // The shapes can fail: a description without its statistics does not conform.
    let output = run(ldwarc()
        .args(["describe", "--format", "nt", "--root"])
        .arg(dir.path()));
    let stripped = stdout_ok(&output, "ldwarc describe").replace(
        "<http://rdfs.org/ns/void#triples>",
        "<http://ldwarc.invalid/triples>",
    );
    let broken = dir.path().join("broken.nt");
    std::fs::write(&broken, stripped).unwrap();
    assert_eq!(validate(&broken, "nt").status.code(), Some(1));
}
