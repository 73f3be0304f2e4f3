//! `ldwarc snapshot --format hdt` and `--format nq.gz`: hdt-cpp (the npm `hdt` package) reads
//! the HDT file and finds exactly the distinct triples of the N-Quads snapshot of the same
//! date, every triple found again by its terms; Python's gzip and pyoxigraph read the nq.gz
//! file as the N-Quads snapshot. Binary output is refused without `-o`, and a bad `-o` leaves
//! nothing behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{ldwarc, manifest_dir, run, stdout_ok, venv_bin};
use crate::warc_fixture::{Exchange, write_archive};

const EX: &str = "http://data.example/vocabulary/with/a/rather/long/shared/prefix/";

/// The Node.js packages `.ci/setup-interop.sh` installs, with hdt-cpp built.
fn npm_tools() -> PathBuf {
    let dir = std::env::var_os("LDWARC_NPM_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join(".npm-tools"));
    assert!(
        dir.join("node_modules/hdt/build/Release/hdt.node")
            .is_file()
            && dir.join("node_modules/n3").is_dir(),
        "the npm hdt package (hdt-cpp) is missing from {}: run `bash .ci/setup-interop.sh`",
        dir.display()
    );
    dir
}

/// The sorted, distinct triples `tests/support/hdt_triples.js` lists (`mode` hdt or nq).
fn listed_triples(mode: &str, file: &Path) -> Vec<String> {
    let tools = npm_tools();
    let output = run(Command::new("node")
        .arg(manifest_dir().join("tests/support/hdt_triples.js"))
        .arg(mode)
        .arg(file)
        .env("LDWARC_NPM_TOOLS", &tools));
    stdout_ok(&output, &format!("hdt_triples.js {mode}"))
        .lines()
        .map(str::to_string)
        .collect()
}

/// Documents whose statements try HDT's corners: language tags and datatypes, unicode, a
/// long literal, quotes and newlines in literals, blank nodes (one both subject and object),
/// terms both subject and object (the shared section), a predicate also a subject, IRIs
/// sharing long prefixes over several front-coding blocks (and one a prefix of another), the
/// same triple in two documents and twice in one, an `xsd:string` literal.
fn adversarial_archive(root: &Path) {
    let long = "0123456789abcdef".repeat(400);
    let first = format!(
        "@prefix ex: <{EX}> .\n\
         ex:alice ex:knows ex:bob ;\n\
           ex:name \"Alice\"@en, \"Alïce ünïcödé 日本語 🎉\"@de-AT, \"Alice\" ;\n\
           ex:age \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> ;\n\
           ex:note \"\"\"line one\nline \"two\" \\\\ and\ta tab\"\"\" ;\n\
           ex:long \"{long}\" ;\n\
           ex:friend _:f .\n\
         _:f ex:knows ex:alice ; ex:knows _:g .\n\
         _:g ex:name \"G\"^^<http://www.w3.org/2001/XMLSchema#string> .\n\
         ex:bob ex:knows ex:alice .\n\
         ex:alice ex:name \"Alice\"@en .\n"
    );
    let mut second = format!(
        "<{EX}bob> <{EX}knows> <{EX}alice> .\n\
         <{EX}knows> <{EX}label> \"knows\"@en .\n\
         <{EX}x> <{EX}label> \"x\" .\n\
         <{EX}xy> <{EX}label> \"xy\" .\n\
         <http://other.example/é/ü> <{EX}label> \"é\" .\n"
    );
    for n in 0..40 {
        second.push_str(&format!(
            "<{EX}item/{n:03}> <{EX}next> <{EX}item/{:03}> .\n",
            n + 1
        ));
    }
    write_archive(
        root,
        &[
            Exchange::ok(
                "http://data.example/first",
                "2024-03-01T10:00:00Z",
                "text/turtle",
                first.as_bytes(),
            ),
            Exchange::ok(
                "http://data.example/second",
                "2024-03-01T11:00:00Z",
                "application/n-triples",
                second.as_bytes(),
            ),
        ],
    );
}

fn snapshot(root: &Path, args: &[&str]) -> Output {
    run(ldwarc().arg("snapshot").arg("--root").arg(root).args(args))
}

fn one_line_error(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn hdt_cpp_reads_the_snapshots_distinct_triples() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    adversarial_archive(&root);
    let nq = dir.path().join("snapshot.nq");
    let hdt = dir.path().join("snapshot.hdt");
    let ok = |args: &[&str]| stdout_ok(&snapshot(&root, args), "ldwarc snapshot");
    ok(&["@2024-03-02", "-o", nq.to_str().unwrap()]);
    ok(&[
        "@2024-03-02",
        "--format",
        "hdt",
        "-o",
        hdt.to_str().unwrap(),
    ]);

    let expected = listed_triples("nq", &nq);
    let read = listed_triples("hdt", &hdt);
    assert_eq!(read, expected);
    // The N-Quads hold the triple both documents say twice; HDT holds it once. The first
    // document says `ex:alice ex:name "Alice"@en` twice, which its graph already holds once.
    let nq_text = std::fs::read_to_string(&nq).unwrap();
    assert_eq!(nq_text.lines().count(), expected.len() + 1);
    for triple in [
        format!("<{EX}alice> <{EX}name> \"Alïce ünïcödé 日本語 🎉\"@de-at ."),
        format!("<{EX}alice> <{EX}age> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> ."),
        format!("<{EX}alice> <{EX}note> \"line one\\nline \\\"two\\\" \\\\ and\\ta tab\" ."),
        format!("<{EX}alice> <{EX}name> \"Alice\" ."),
        format!("<{EX}knows> <{EX}label> \"knows\"@en ."),
        format!("<{EX}xy> <{EX}label> \"xy\" ."),
        format!("<http://other.example/é/ü> <{EX}label> \"é\" ."),
        format!("<{EX}item/039> <{EX}next> <{EX}item/040> ."),
    ] {
        assert!(read.contains(&triple), "{triple} not in {read:#?}");
    }
    assert!(read.iter().any(
        |t| t.starts_with(&format!("<{EX}alice> <{EX}long> \"0123456789abcdef")) && t.len() > 6400
    ));
    // The blank node both subject and object, under the snapshot's per-document label.
    let friend = read
        .iter()
        .find(|t| t.starts_with(&format!("<{EX}alice> <{EX}friend> _:")))
        .expect("alice's friend");
    let label = friend.split(' ').nth(2).unwrap();
    assert!(read.contains(&format!("{label} <{EX}knows> <{EX}alice> .")));

    // The same bytes down a pipe with `-o -`, and again: the file is a function of the date.
    let piped = snapshot(&root, &["@2024-03-02", "--format", "hdt", "-o", "-"]);
    stdout_ok(&piped, "ldwarc snapshot -o -");
    assert_eq!(piped.stdout, std::fs::read(&hdt).unwrap());
}

#[test]
fn an_empty_snapshot_is_an_hdt_file_with_no_triple() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    adversarial_archive(&root);
    let hdt = dir.path().join("empty.hdt");
    let output = snapshot(
        &root,
        &["@2024-02", "--format", "hdt", "-o", hdt.to_str().unwrap()],
    );
    stdout_ok(&output, "ldwarc snapshot @2024-02");
    assert_eq!(listed_triples("hdt", &hdt), Vec::<String>::new());
}

#[test]
fn gzip_nquads_read_by_python_as_the_nquads_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    adversarial_archive(&root);
    let nq = dir.path().join("snapshot.nq");
    let gz = dir.path().join("snapshot.nq.gz");
    let ok = |args: &[&str]| stdout_ok(&snapshot(&root, args), "ldwarc snapshot");
    ok(&["@2024-03-02", "-o", nq.to_str().unwrap()]);
    ok(&[
        "@2024-03-02",
        "--format",
        "nq.gz",
        "-o",
        gz.to_str().unwrap(),
    ]);
    let script = r#"
import gzip, sys
import pyoxigraph as ox
plain = open(sys.argv[1], "rb").read()
unzipped = gzip.open(sys.argv[2]).read()
assert unzipped == plain, "gunzipped bytes differ from the N-Quads snapshot"
quads = set(ox.parse(unzipped, format=ox.RdfFormat.N_QUADS))
graphs = {str(q.graph_name) for q in quads}
print(len(quads), " ".join(sorted(graphs)))
"#;
    let output = run(Command::new(venv_bin("python"))
        .arg("-c")
        .arg(script)
        .arg(&nq)
        .arg(&gz));
    let printed = stdout_ok(&output, "pyoxigraph");
    let lines = std::fs::read_to_string(&nq).unwrap().lines().count();
    assert_eq!(
        printed.trim(),
        format!("{lines} <http://data.example/first> <http://data.example/second>")
    );
}

#[test]
fn binary_formats_want_a_file_and_a_bad_one_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    adversarial_archive(&root);
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    for format in ["hdt", "nq.gz"] {
        let output = run(ldwarc()
            .current_dir(&work)
            .args(["snapshot", "@2024-03-02", "--format", format, "--root"])
            .arg(&root));
        let stderr = one_line_error(&output);
        assert!(
            stderr.contains(&format!("--format {format} is binary: give -o FILE")),
            "{stderr}"
        );
        assert!(output.stdout.is_empty());

        let missing = work.join("no/such/dir/out.bin");
        let output = snapshot(
            &root,
            &[
                "@2024-03-02",
                "--format",
                format,
                "-o",
                missing.to_str().unwrap(),
            ],
        );
        let stderr = one_line_error(&output);
        assert!(stderr.contains(missing.to_str().unwrap()), "{stderr}");
        let output = snapshot(
            &root,
            &[
                "@2024-03-02",
                "--format",
                format,
                "-o",
                work.to_str().unwrap(),
            ],
        );
        let stderr = one_line_error(&output);
        assert!(stderr.contains(work.to_str().unwrap()), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "left behind");
    let mut beside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    beside.sort();
    assert_eq!(beside, ["archive", "work"], "a temporary file left behind");

    // To a terminal (a pseudo-terminal from util-linux `script`) `-o -` is refused too.
    let command = format!(
        "{} snapshot @2024-03-02 --format hdt -o - --root {}",
        env!("CARGO_BIN_EXE_ldwarc"),
        root.display()
    );
    let output = run(Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(&work));
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("--format hdt is binary: not written to a terminal"),
        "{text}"
    );
    assert!(!text.contains("$HDT"), "{text}");
}

#[test]
fn statements_hdt_cannot_hold_are_left_out_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("archive");
    let body = format!(
        "@prefix ex: <{EX}> .\n\
         ex:claim ex:states <<( ex:s ex:p ex:o )>> .\n\
         ex:claim ex:label \"kept\" .\n"
    );
    write_archive(
        &root,
        &[Exchange::ok(
            "http://data.example/rdf12",
            "2024-03-01T10:00:00Z",
            "text/turtle",
            body.as_bytes(),
        )],
    );
    let hdt = dir.path().join("snapshot.hdt");
    let output = snapshot(
        &root,
        &[
            "@2024-03-02",
            "--format",
            "hdt",
            "-o",
            hdt.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "http://data.example/rdf12: 1 statements left out of the HDT file (RDF 1.2 triple terms"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("1 partial"), "{stderr}");
    assert_eq!(
        listed_triples("hdt", &hdt),
        [format!("<{EX}claim> <{EX}label> \"kept\" .")]
    );
}
