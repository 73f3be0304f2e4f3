//! `rdf:XMLLiteral` values are exclusive-canonicalised, from RDF/XML (`parseType="Literal"`,
//! as the W3C RDF/XML tests `xml-canon/test001` and the `rdfms-xml-literal-namespaces` cases
//! write them) and from RDFa (`datatype="rdf:XMLLiteral"`): empty elements expanded,
//! attributes in canonical order after the namespace declarations, characters escaped as
//! canonical XML does, inner namespaces declared only where used.

use std::path::Path;

use crate::common::{ldwarc, run, stdout_ok};

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

fn parse(path: &Path) -> String {
    stdout_ok(&run(ldwarc().arg("parse").arg(path)), "parse")
}

#[test]
fn rdf_xml_parse_type_literal_is_canonical() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("literal.rdf");
    let document = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:eg="http://example.org/">
  <rdf:Description rdf:about="http://www.example.org/a">
    <eg:prop rdf:parseType="Literal"><br /></eg:prop>
    <eg:more rdf:parseType="Literal"><p b='2' a="1" xml:lang="en">x &amp; y &gt; z<q xmlns:n="http://n/"><n:i/></q></p></eg:more>
  </rdf:Description>
</rdf:RDF>
"#
    );
    std::fs::write(&file, document).unwrap();
    let ambient = format!(r#"xmlns:eg=\"http://example.org/\" xmlns:rdf=\"{RDF}\""#);
    let expected = [
        format!(
            "<http://www.example.org/a> <http://example.org/prop> \"<br {ambient}></br>\"^^<{RDF}XMLLiteral> ."
        ),
        format!(
            "<http://www.example.org/a> <http://example.org/more> \"<p {ambient} a=\\\"1\\\" b=\\\"2\\\" xml:lang=\\\"en\\\">x &amp; y &gt; z<q><n:i xmlns:n=\\\"http://n/\\\"></n:i></q></p>\"^^<{RDF}XMLLiteral> ."
        ),
    ];
    let printed = parse(&file);
    let mut lines: Vec<&str> = printed.lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(lines, expected);
}

#[test]
fn rdfa_xml_literal_is_canonical() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("page.xhtml");
    let page = r#"<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ex="http://example.org/">
<head><title>t</title></head>
<body about="http://example.org/s">
<div property="ex:lit" datatype="rdf:XMLLiteral"><img src="a.png" alt="a"/><span title="1" class="c">E = mc<sup>2</sup></span></div>
</body>
</html>
"#;
    std::fs::write(&file, page).unwrap();
    let printed = parse(&file);
    let line = printed
        .lines()
        .find(|line| line.contains("<http://example.org/lit>"))
        .unwrap_or_else(|| panic!("no literal in {printed}"));
    let ambient = r#"xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:ex=\"http://example.org/\""#;
    assert_eq!(
        line,
        format!(
            "<http://example.org/s> <http://example.org/lit> \"<img {ambient} alt=\\\"a\\\" src=\\\"a.png\\\"></img><span {ambient} class=\\\"c\\\" title=\\\"1\\\">E = mc<sup>2</sup></span>\"^^<{RDF}XMLLiteral> ."
        )
    );
}
