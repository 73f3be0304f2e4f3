//! JSON-LD output is the same bytes from one process to the next (the serializer's hash order
//! changes with each process's hash seed): nodes by `@id`, values in a fixed order, lists in
//! list order.

use crate::common::{ldwarc, run, stdout_ok};

#[test]
fn json_ld_output_is_the_same_bytes_in_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.ttl");
    let mut turtle = String::from("@prefix ex: <http://example.org/> .\n");
    for subject in 0..30 {
        for predicate in 0..4 {
            turtle.push_str(&format!(
                "ex:s{subject} ex:p{predicate} ex:o{}, \"v{}\", [ ex:q {subject} ] .\n",
                subject * 7 % 11,
                predicate * 13 % 5
            ));
        }
    }
    turtle.push_str("ex:s0 ex:list (ex:c ex:a ex:b) .\n");
    std::fs::write(&file, turtle).unwrap();
    let write = || {
        let output = run(ldwarc()
            .arg("parse")
            .arg(&file)
            .args(["--format", "jsonld"]));
        stdout_ok(&output, "parse --format jsonld")
    };
    let first = write();
    for _ in 0..3 {
        assert_eq!(write(), first, "JSON-LD output differs between runs");
    }
    // Nodes by @id; the list keeps its order.
    let s0 = first.find("\"@id\": \"http://example.org/s0\"").unwrap();
    let s1 = first.find("\"@id\": \"http://example.org/s1\"").unwrap();
    assert!(s0 < s1);
    let c = first.find("\"http://example.org/c\"").unwrap();
    let a = first.find("\"http://example.org/a\"").unwrap();
    assert!(c < a, "the list's order changed");
}
