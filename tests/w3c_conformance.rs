//! The W3C conformance suites for embedded data, run through `ldwarc parse`: the RDFa 1.1
//! test suite (each test's graph against its SPARQL ASK query and expected result, evaluated
//! by pyoxigraph from the interop venv) and the Microdata to RDF tests (each graph isomorphic
//! to the expected Turtle, compared by canonical hash). The suites are read from
//! `../shared/conformance` (W3C test-suite licence); a missing suite fails the test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use ldwarc_rdf::{NoContexts, Syntax, canonical_hash, canonical_xml_literal, parse_graph};
use serde_json::Value;

use crate::common::{ldwarc, manifest_dir, run, venv_bin};

const RDFA_BASE: &str = "http://rdfa.info/test-suite/test-cases";
/// The suite's expected graphs were made with the `http` location (an absolute path in one
/// page resolves to `http://w3c.github.io/...`), so pages and expectations both use it.
const MICRODATA_BASE: &str = "http://w3c.github.io/microdata-rdf/tests";

/// The RDFa suites: version, host language, and how many of its tests must pass (all of
/// html5, xhtml5, lite, vocab, role and proc; the invalid ones may not regress below what
/// passes today). Tests with `rdfagraph=processor` are run with `--rdfa-graph processor`;
/// vocabulary expansion (`vocab_expansion=true`) gets the suite's vocabulary from a fixture
/// with `--document`. Invalid 0226 wants a list on the object of a chained `@rel`, against
/// the processing steps.
const RDFA_SUITES: &[(&str, &str, usize)] = &[
    ("rdfa1.1", "html5", 170),
    ("rdfa1.1", "xhtml5", 177),
    ("rdfa1.1", "html5-invalid", 27),
    ("rdfa1.1", "xhtml5-invalid", 22),
    ("rdfa1.1-lite", "html5", 54),
    ("rdfa1.1-vocab", "html5", 6),
    ("rdfa1.1-role", "html5", 3),
    ("rdfa1.1-proc", "html5", 4),
];

/// Where the suite's vocabulary (`@vocab` of the expansion tests) is published.
const RDFA_TEST_VOCABULARY: &str = "http://rdfa.info/vocabs/rdfa-test";

fn conformance_dir() -> PathBuf {
    let dir = manifest_dir().join("../shared/conformance");
    assert!(
        dir.join("rdfa/manifest.jsonld").exists(),
        "the W3C suites are missing from {}",
        dir.display()
    );
    dir
}

const XML_LITERAL_SUFFIX: &str = "^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral>";

/// The suite's ASK queries with their `rdf:XMLLiteral` values exclusive-canonicalised: the
/// suite only asks for a graph equivalent to the expected one ("Some parsers may generate
/// XML Literals that differ from the ones shown below", 0196), and an XML literal's value is
/// its canonical form, which is what the parser produces; the queries spell some of them in
/// another attribute order (0198). Only short `"..."` strings hold markup in the suite.
fn canonical_xml_literals(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    while let Some(end) = rest.find(XML_LITERAL_SUFFIX) {
        let (before, after) = rest.split_at(end);
        match short_string_start(before) {
            Some(start) => {
                let lexical = sparql_unescape(&before[start + 1..before.len() - 1]);
                let canonical = canonical_xml_literal(&lexical).unwrap_or(lexical);
                out.push_str(&before[..start]);
                out.push('"');
                let escaped = canonical.replace('\\', "\\\\").replace('"', "\\\"");
                out.push_str(&escaped.replace('\n', "\\n").replace('\r', "\\r"));
                out.push('"');
            }
            None => out.push_str(before),
        }
        out.push_str(XML_LITERAL_SUFFIX);
        rest = &after[XML_LITERAL_SUFFIX.len()..];
    }
    out.push_str(rest);
    out
}

/// Where the short string literal that `text` ends with opens, if it ends with one.
fn short_string_start(text: &str) -> Option<usize> {
    if !text.ends_with('"') || text.ends_with("\"\"\"") {
        return None;
    }
    let bytes = text.as_bytes();
    let mut index = bytes.len() - 1;
    while index > 0 {
        index -= 1;
        let escaped = bytes[..index]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count()
            % 2
            == 1;
        if bytes[index] == b'"' && !escaped {
            return Some(index);
        }
    }
    None
}

fn sparql_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// One RDFa test of one suite.
struct RdfaCase {
    suite: String,
    num: String,
    input: PathBuf,
    base: String,
    media_type: &'static str,
    query: PathBuf,
    expected: bool,
    processor_graph: bool,
}

fn rdfa_cases(dir: &Path) -> Vec<RdfaCase> {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("rdfa/manifest.jsonld")).unwrap()).unwrap();
    let mut cases = Vec::new();
    for &(version, host, _) in RDFA_SUITES {
        let extension = if host.starts_with("xhtml") {
            "xhtml"
        } else {
            "html"
        };
        let media_type = if host.starts_with("xhtml") {
            "application/xhtml+xml"
        } else {
            "text/html"
        };
        for test in manifest["@graph"].as_array().unwrap() {
            let listed = |key: &str, value: &str| {
                test[key]
                    .as_array()
                    .is_some_and(|items| items.iter().any(|item| item == value))
            };
            if !listed("versions", version) || !listed("hostLanguages", host) {
                continue;
            }
            let num = test["num"].as_str().unwrap().to_string();
            let folder = dir.join(format!("rdfa/test-cases/{version}/{host}"));
            cases.push(RdfaCase {
                suite: format!("{version}/{host}"),
                input: folder.join(format!("{num}.{extension}")),
                base: format!("{RDFA_BASE}/{version}/{host}/{num}.{extension}"),
                media_type,
                query: folder.join(format!("{num}.sparql")),
                expected: test["expectedResults"].as_bool().unwrap_or(true),
                processor_graph: test["queryParam"]
                    .as_str()
                    .is_some_and(|param| param.contains("rdfagraph=processor")),
                num,
            });
        }
    }
    cases
}

/// Runs `ldwarc parse` on each job (two at a time), returning the outputs in order.
fn parse_all(jobs: &[Vec<String>]) -> Vec<Output> {
    let mut outputs: Vec<Option<Output>> = (0..jobs.len()).map(|_| None).collect();
    let half = jobs.len().div_ceil(2).max(1);
    std::thread::scope(|scope| {
        for (chunk, slots) in jobs.chunks(half).zip(outputs.chunks_mut(half)) {
            scope.spawn(move || {
                for (args, slot) in chunk.iter().zip(slots) {
                    *slot = Some(run(ldwarc().arg("parse").args(args)));
                }
            });
        }
    });
    outputs.into_iter().map(Option::unwrap).collect()
}

const ASK_SCRIPT: &str = r#"
import json, sys
import pyoxigraph as ox
results = {}
for job in json.load(open(sys.argv[1])):
    try:
        store = ox.Store()
        store.load(path=job["data"], format=ox.RdfFormat.N_QUADS)
        with open(job["query"], encoding="utf-8") as query:
            results[job["id"]] = bool(store.query(query.read()))
    except Exception as error:
        results[job["id"]] = "error: " + str(error).replace("\n", " ")
json.dump(results, sys.stdout)
"#;

#[test]
fn rdfa_test_suite_ask_queries() {
    let dir = conformance_dir();
    let cases = rdfa_cases(&dir);
    let work = tempfile::tempdir().unwrap();
    let vocabulary = crate::common::fixture("rdfa/rdfa-test-vocab.ttl");
    let jobs: Vec<Vec<String>> = cases
        .iter()
        .map(|case| {
            let mut args = vec![
                case.input.display().to_string(),
                "--base".into(),
                case.base.clone(),
                "--media-type".into(),
                case.media_type.into(),
                "--format".into(),
                "nq".into(),
                "--document".into(),
                format!("{RDFA_TEST_VOCABULARY}={}", vocabulary.display()),
            ];
            if case.processor_graph {
                args.extend(["--rdfa-graph".into(), "processor".into()]);
            }
            args
        })
        .collect();
    let outputs = parse_all(&jobs);
    let mut ask_jobs = Vec::new();
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (index, (case, output)) in cases.iter().zip(&outputs).enumerate() {
        if !output.status.success() {
            let error = String::from_utf8_lossy(&output.stderr).trim().to_string();
            failures
                .entry(case.suite.clone())
                .or_default()
                .push(format!("{} (parse: {error})", case.num));
            continue;
        }
        let data = work.path().join(format!("{index}.nq"));
        std::fs::write(&data, &output.stdout).unwrap();
        let query = work.path().join(format!("{index}.sparql"));
        let text = std::fs::read_to_string(&case.query).unwrap();
        std::fs::write(&query, canonical_xml_literals(&text)).unwrap();
        ask_jobs.push(serde_json::json!({
            "id": index.to_string(), "data": data, "query": query,
        }));
    }
    let jobs_file = work.path().join("jobs.json");
    std::fs::write(&jobs_file, serde_json::to_vec(&ask_jobs).unwrap()).unwrap();
    let python = venv_bin("python");
    let evaluated = run(std::process::Command::new(&python)
        .args(["-c", ASK_SCRIPT])
        .arg(&jobs_file));
    assert!(
        evaluated.status.success(),
        "pyoxigraph failed: {}",
        String::from_utf8_lossy(&evaluated.stderr)
    );
    let answers: BTreeMap<String, Value> = serde_json::from_slice(&evaluated.stdout).unwrap();
    for (index, case) in cases.iter().enumerate() {
        let Some(answer) = answers.get(&index.to_string()) else {
            continue;
        };
        if answer.as_bool() != Some(case.expected) {
            failures
                .entry(case.suite.clone())
                .or_default()
                .push(format!("{} ({answer})", case.num));
        }
    }
    let mut summary = Vec::new();
    let mut shortfalls = Vec::new();
    for &(version, host, required) in RDFA_SUITES {
        let suite = format!("{version}/{host}");
        let total = cases.iter().filter(|case| case.suite == suite).count();
        let failed = failures.get(&suite).map_or(&[][..], Vec::as_slice);
        let passed = total - failed.len();
        summary.push(format!("{suite}: {passed}/{total} pass"));
        if !failed.is_empty() {
            summary.push(format!("  failing: {}", failed.join(", ")));
        }
        if passed < required {
            shortfalls.push(format!("{suite} passes {passed}, needs {required}"));
        }
    }
    println!("{}", summary.join("\n"));
    assert!(
        shortfalls.is_empty(),
        "{}\n{}",
        shortfalls.join("; "),
        summary.join("\n")
    );
}

#[test]
fn microdata_to_rdf_tests() {
    let dir = conformance_dir().join("microdata-rdf/tests");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.jsonld")).unwrap()).unwrap();
    let entries = manifest["@graph"][0]["entries"]
        .as_array()
        .or_else(|| manifest["@graph"].as_array())
        .unwrap()
        .clone();
    let registry = dir.join("test-registry.json");
    let kind = |entry: &Value, name: &str| {
        entry["@type"]
            .as_array()
            .is_some_and(|types| types.iter().any(|t| t == name))
    };
    let evals: Vec<&Value> = entries
        .iter()
        .filter(|entry| kind(entry, "rdft:TestMicrodataEval"))
        .collect();
    let jobs: Vec<Vec<String>> = evals
        .iter()
        .map(|entry| {
            let action = entry["action"].as_str().unwrap();
            vec![
                dir.join(action).display().to_string(),
                "--base".into(),
                format!("{MICRODATA_BASE}/{action}"),
                "--microdata-registry".into(),
                registry.display().to_string(),
                "--format".into(),
                "nq".into(),
            ]
        })
        .collect();
    let outputs = parse_all(&jobs);
    let mut failed = Vec::new();
    for (entry, output) in evals.iter().zip(&outputs) {
        let name = entry["@id"].as_str().unwrap().trim_start_matches('#');
        if !output.status.success() {
            failed.push(format!("{name} (parse failed)"));
            continue;
        }
        let result = entry["result"].as_str().unwrap();
        let expected_text = std::fs::read(dir.join(result)).unwrap();
        let expected = parse_graph(
            &expected_text,
            &[Syntax::Turtle],
            &format!("{MICRODATA_BASE}/{result}"),
            &NoContexts,
        )
        .unwrap();
        let got = parse_graph(
            &output.stdout,
            &[Syntax::NQuads],
            MICRODATA_BASE,
            &NoContexts,
        )
        .map(|parsed| parsed.graph)
        .unwrap_or_default();
        if canonical_hash(&got).hex != canonical_hash(&expected.graph).hex {
            failed.push(format!(
                "{name}\n--- got\n{}--- expected\n{}",
                got.to_nquads(),
                expected.graph.to_nquads()
            ));
        }
    }
    println!(
        "microdata-rdf eval: {}/{} pass",
        evals.len() - failed.len(),
        evals.len()
    );
    assert!(failed.is_empty(), "failing:\n{}", failed.join("\n"));

    let negatives: Vec<&Value> = entries
        .iter()
        .filter(|entry| kind(entry, "rdft:TestMicrodataNegativeSyntax"))
        .collect();
    assert_eq!(negatives.len(), 1);
    for entry in negatives {
        let action = entry["action"].as_str().unwrap();
        let output = run(ldwarc()
            .arg("parse")
            .arg(dir.join(action))
            .args(["--base", &format!("{MICRODATA_BASE}/{action}")]));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{action} was not rejected: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{action}: a graph was written");
        assert!(
            stderr.contains("itemref"),
            "{action}: the itemref cycle was not reported: {stderr}"
        );
    }
}
