//! The same document prints the same bytes from one process to the next: the JSON-LD
//! processor and serializer iterate hash maps whose seed changes with each process, which
//! changed the order of statements and the labels of blank nodes read from JSON-LD, and the
//! order of nodes and values written as JSON-LD.

use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};

/// A JSON-LD document with what hash order reaches: several nodes, several values per
/// property, blank nodes, a list and a named graph.
const DOCUMENT: &str = r#"{"@context": {"@vocab": "http://schema.org/"}, "@graph": [
 {"@id": "http://e.org/a", "name": "A", "knows": [{"@id": "http://e.org/b"}, {"@id": "http://e.org/c"}],
  "alt": ["x", "y", "z"], "tags": {"@list": ["3", "1", "2"]}},
 {"@id": "http://e.org/b", "name": "B", "knows": {"name": "anon", "age": 3}},
 {"@id": "_:z", "@graph": [{"@id": "http://e.org/g", "name": "in graph"}]}
]}"#;

fn print(file: &Path, format: &str) -> String {
    let output = run(ldwarc().arg("parse").arg(file).args(["--format", format]));
    stdout_ok(&output, &format!("parse --format {format}"))
}

#[test]
fn json_ld_in_and_out_is_the_same_bytes_in_every_process() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.jsonld");
    std::fs::write(&file, DOCUMENT).unwrap();
    for format in ["nq", "jsonld"] {
        let first = print(&file, format);
        for _ in 0..5 {
            assert_eq!(print(&file, format), first, "--format {format} differs");
        }
    }
    let written = print(&file, "jsonld");
    // Nodes by @id; the list keeps its order.
    let a = written.find("\"@id\": \"http://e.org/a\"").unwrap();
    let b = written.find("\"@id\": \"http://e.org/b\"").unwrap();
    assert!(a < b, "{written}");
    let list: Vec<usize> = ["\"3\"", "\"1\"", "\"2\""]
        .iter()
        .map(|value| written.find(value).unwrap())
        .collect();
    assert!(list[0] < list[1] && list[1] < list[2], "{written}");
}
