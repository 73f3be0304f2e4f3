use super::*;
use crate::{NoContexts, Syntax, choose_syntaxes, extract_links, parse_graph};

const PAGE_URL: &str = "http://example.org/dir/page.html";

fn page_graph(page: &str) -> (Graph, EmbeddedReport) {
    parse_page(
        page.as_bytes(),
        false,
        PAGE_URL,
        &NoContexts,
        MicrodataRegistry::shipped(),
    )
    .unwrap()
}

#[test]
fn every_json_ld_block_counts_and_a_broken_one_is_reported_alone() {
    let page = r#"<!DOCTYPE html><html><head>
<base href="http://base.example/sub/">
<script type="application/ld+json">{"@id": "a", "http://ex.org/p": {"@id": "_:x"}}</script>
<script type="application/ld+json">{ not json</script>
<script type="application/ld+json; charset=utf-8">
  {"@id": "_:x", "http://ex.org/q": "two"}
</script>
<script type="text/javascript">var x = {"@id": "nope"};</script>
</head><body></body></html>"#;
    let (graph, report) = page_graph(page);
    assert_eq!(report.json_ld_blocks, 3);
    assert_eq!(report.json_ld, 2);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert!(report.errors[0].starts_with("script block 2 (application/ld+json)"));
    let nquads = graph.to_nquads();
    assert!(
        nquads.contains("<http://base.example/sub/a> <http://ex.org/p> _:b0"),
        "the <base> resolves the block's @id: {nquads}"
    );
    assert!(
        nquads.contains("_:b1 <http://ex.org/q> \"two\""),
        "_:x of two blocks are two nodes: {nquads}"
    );
}

#[test]
fn turtle_blocks_rdfa_and_microdata_are_reported_per_syntax() {
    let page = r##"<html prefix="ex: http://ex.org/"><head>
<script type="text/turtle">@prefix ex: <http://ex.org/> . <#t> ex:p ex:o , ex:o2 .</script>
<link rel="alternate" type="text/turtle" href="page.ttl">
<link rel="alternate" type="text/html" href="other.html">
<link rel="stylesheet" type="text/turtle" href="not-an-alternate.ttl">
</head><body>
<p about="#r" property="ex:name" lang="fr">Bonjour</p>
<div itemscope itemtype="http://schema.org/Person"><span itemprop="name">Ann</span></div>
</body></html>"##;
    let (graph, report) = page_graph(page);
    assert_eq!((report.rdfa, report.microdata, report.turtle), (1, 2, 2));
    assert_eq!(report.turtle_blocks, 1);
    assert_eq!(report.total(), graph.len() as u64);
    assert_eq!(report.alternates, vec!["http://example.org/dir/page.ttl"]);
    let nquads = graph.to_nquads();
    assert!(
        nquads
            .contains("<http://example.org/dir/page.html#r> <http://ex.org/name> \"Bonjour\"@fr .")
    );
    assert!(nquads.contains("<http://schema.org/name> \"Ann\""));
    assert!(
        nquads
            .contains("<http://example.org/dir/page.html#t> <http://ex.org/p> <http://ex.org/o2>")
    );
}

#[test]
fn pages_parse_through_the_common_path_and_alternates_are_links() {
    let page = br#"<!DOCTYPE html><html><head>
<link rel="alternate" type="application/rdf+xml" href="/data.rdf"></head>
<body vocab="http://schema.org/"><a property="knows" href="http://other.example/bob">Bob</a></body></html>"#;
    let syntaxes = choose_syntaxes(Some("text/html; charset=utf-8"), page);
    assert_eq!(syntaxes, vec![Syntax::Html]);
    let parsed = parse_graph(page, &syntaxes, PAGE_URL, &NoContexts).unwrap();
    assert_eq!(parsed.syntax, Syntax::Html);
    assert_eq!(parsed.embedded.as_ref().map(|r| r.rdfa), Some(2));
    let extracted = extract_links(page, &syntaxes, PAGE_URL, &Default::default()).unwrap();
    assert!(
        extracted
            .links
            .contains(&"http://other.example/bob".to_string())
    );
    assert!(
        extracted
            .links
            .contains(&"http://example.org/data.rdf".to_string())
    );
}

#[test]
fn a_page_without_data_has_an_empty_graph_but_is_no_rdf_document() {
    let (graph, report) = page_graph("<p>Nothing to see</p>");
    assert!(graph.is_empty());
    assert_eq!(report, EmbeddedReport::default());
    let err = parse_graph(b"<p>Nothing</p>", &[Syntax::Html], PAGE_URL, &NoContexts).unwrap_err();
    assert!(err.to_string().contains("no embedded RDF"), "{err}");
}

#[test]
fn datetime_values_are_typed_by_their_form() {
    for (text, expected) in [
        ("2012-03-18", Some("date")),
        ("2012-03-18T10:11:12Z", Some("dateTime")),
        ("10:11", Some("time")),
        ("2012-03", Some("gYearMonth")),
        ("2012", Some("gYear")),
        ("P2DT3H", Some("duration")),
        ("PT", None),
        ("P", None),
        ("next week", None),
    ] {
        assert_eq!(datetime_datatype(text), expected, "{text}");
    }
}

#[test]
fn resolution_keeps_iris_as_written_and_repairs_invalid_references() {
    assert_eq!(
        resolve("http://www.example.org", "").as_deref(),
        Some("http://www.example.org")
    );
    assert_eq!(
        resolve("http://a.example/x/y", "../z?q#f").as_deref(),
        Some("http://a.example/z?q#f")
    );
    assert_eq!(
        resolve("http://a.example/", "a b").as_deref(),
        Some("http://a.example/a%20b")
    );
}

#[test]
fn long_itemref_chains_and_deep_pages_end_with_an_error_not_a_crash() {
    let mut page = String::from("<div itemscope itemref=\"i0\"></div>");
    for index in 0..5000 {
        let next = index + 1;
        page.push_str(&format!(
            "<div id=\"i{index}\" itemprop=\"next\" itemscope itemref=\"i{next}\"></div>"
        ));
    }
    let (graph, report) = page_graph(&page);
    assert!(graph.len() > 300, "{}", graph.len());
    assert!(
        report.errors.iter().any(|e| e.contains("too deep")),
        "{:?}",
        report.errors
    );
    let deep = "<div property=\"http://ex.org/p\" typeof=\"http://ex.org/C\">".repeat(20_000);
    let (_, report) = page_graph(&deep);
    assert!(report.errors.iter().any(|e| e.contains("nested deeper")));
}

#[test]
fn legacy_encodings_are_decoded_as_declared() {
    let mut page = b"<html><head><meta charset=\"windows-1252\"></head><body>\
<p about=\"#x\" property=\"http://ex.org/n\">Caf"
        .to_vec();
    page.push(0xE9);
    page.extend_from_slice(b"</p></body></html>");
    let (graph, _) = parse_page(
        &page,
        false,
        PAGE_URL,
        &NoContexts,
        MicrodataRegistry::shipped(),
    )
    .unwrap();
    assert!(
        graph.to_nquads().contains("\"Caf\u{e9}\""),
        "{}",
        graph.to_nquads()
    );
    let utf8 = "<p about=\"#x\" property=\"http://ex.org/n\">Caf\u{e9}</p>";
    let (graph, _) = page_graph(utf8);
    assert!(graph.to_nquads().contains("\"Caf\u{e9}\""));
}

/// One document, as an archive or `parse --document` would supply it.
struct OneDocument(&'static str, &'static str);

impl crate::ContextSource for OneDocument {
    fn context(&self, url: &str) -> Option<Vec<u8>> {
        (url == self.0).then(|| self.1.as_bytes().to_vec())
    }
}

#[test]
fn vocabulary_expansion_follows_chains_of_sub_properties_and_classes() {
    let vocabulary = OneDocument(
        "http://v.example/ns",
        "@prefix v: <http://v.example/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
v:a rdfs:subPropertyOf v:b . v:b owl:equivalentProperty v:c .
v:K rdfs:subClassOf v:L . v:L rdfs:subClassOf v:M .",
    );
    let page = r#"<html><body vocab="http://v.example/ns#">
<p about="/x" typeof="K"><span property="a">one</span></p></body></html>"#;
    let options = PageOptions::default();
    let expand = |documents: &dyn crate::ContextSource| {
        let registry = MicrodataRegistry::shipped();
        parse_page_with(page.as_bytes(), &options, PAGE_URL, documents, registry)
            .unwrap()
            .0
            .to_nquads()
    };
    let expanded = expand(&vocabulary);
    for expected in [
        "<http://example.org/x> <http://v.example/ns#b> \"one\"",
        "<http://example.org/x> <http://v.example/ns#c> \"one\"",
        "<http://example.org/x> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://v.example/ns#M>",
    ] {
        assert!(
            expanded.contains(expected),
            "{expected} missing: {expanded}"
        );
    }
    let plain = expand(&NoContexts);
    assert_eq!(
        plain.lines().count(),
        3,
        "no document, no expansion: {plain}"
    );
}

#[test]
fn processor_graph_names_each_problem_and_drops_the_data() {
    let page = r#"<html><body prefix="dc: http://example.org/other#">
<p property="undefinedterm">x</p><p about="[nope:x]" property="dc:title">y</p></body></html>"#;
    let options = PageOptions {
        rdfa_graph: RdfaGraph::Processor,
        ..PageOptions::default()
    };
    let registry = MicrodataRegistry::shipped();
    let (graph, _) =
        parse_page_with(page.as_bytes(), &options, PAGE_URL, &NoContexts, registry).unwrap();
    let nquads = graph.to_nquads();
    for class in ["UnresolvedTerm", "UnresolvedCURIE", "PrefixRedefinition"] {
        assert!(
            nquads.contains(&format!("<http://www.w3.org/ns/rdfa#{class}>")),
            "{class}: {nquads}"
        );
    }
    assert!(
        !nquads.contains("\"y\""),
        "data in the processor graph: {nquads}"
    );
}

#[test]
fn microdata_content_attribute_gives_the_value_on_any_element() {
    let page = r#"<div itemscope itemtype="http://schema.org/Offer">
<span itemprop="price" content="13.00">$13.00</span>
<a itemprop="url" href="http://shop.example/lamp" content="lamp">Lamp</a>
<time itemprop="validFrom" datetime="2024-05-01" content="1 May">May</time>
<meta itemprop="sku">
<span itemprop="name">Lamp</span>
</div>"#;
    let (graph, _) = page_graph(page);
    let mut lines: Vec<&str> = Vec::new();
    let nquads = graph.to_nquads();
    for line in nquads.lines() {
        lines.push(line.split_once(' ').unwrap().1);
    }
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "<http://schema.org/name> \"Lamp\" .",
            "<http://schema.org/price> \"13.00\" .",
            "<http://schema.org/sku> \"\" .",
            "<http://schema.org/url> \"lamp\" .",
            "<http://schema.org/validFrom> \"1 May\" .",
            "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Offer> .",
        ]
    );
}

#[test]
fn json_ld_blocks_with_comments_control_characters_and_trailing_commas_are_recovered() {
    let page = "<html><head><script type=\"application/ld+json\">\n\
// Structured data for the product page\n\
{\n\
  \"@context\": {\"@vocab\": \"http://schema.org/\"}, /* inline context */\n\
  \"@id\": \"http://shop.example/lamp\",\n\
  \"url\": \"http://shop.example/a//b/*c*/\", // the page\n\
  \"description\": \"two\tcolumns\nand a line\",\n\
  \"offers\": [{\"price\": \"13.00\",},],\n\
}\n\
</script><script type=\"application/ld+json\"><!-- hidden from old browsers -->\n\
{\"@id\": \"http://shop.example/b\", \"http://schema.org/name\": \"B\"}\n\
</script><script type=\"application/ld+json\">{\"@id\": \"http://shop.example/c\" nope}</script>\
</head></html>";
    let (graph, report) = page_graph(page);
    assert_eq!(report.json_ld_blocks, 3);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    assert!(
        report.errors[0].starts_with("script block 3 "),
        "{:?}",
        report.errors
    );
    let mut lines: Vec<String> = graph
        .to_nquads()
        .lines()
        .map(|line| {
            // The one blank node, whatever its label.
            let words = line.split(' ').map(|word| {
                if word.starts_with("_:") {
                    "_:offer"
                } else {
                    word
                }
            });
            words.collect::<Vec<_>>().join(" ")
        })
        .collect();
    lines.sort_unstable();
    let lamp = "<http://shop.example/lamp>";
    assert_eq!(
        lines,
        [
            "<http://shop.example/b> <http://schema.org/name> \"B\" .".to_string(),
            format!("{lamp} <http://schema.org/description> \"two\\tcolumns\\nand a line\" ."),
            format!("{lamp} <http://schema.org/offers> _:offer ."),
            format!("{lamp} <http://schema.org/url> \"http://shop.example/a//b/*c*/\" ."),
            "_:offer <http://schema.org/price> \"13.00\" .".to_string(),
        ]
    );
}

#[test]
fn option_names_that_are_not_known_are_typed_errors_naming_them() {
    let error = "rdfa, nquads".parse::<EmbeddedSyntaxes>().unwrap_err();
    assert_eq!(error, UnknownEmbeddedSyntax("nquads".to_string()));
    assert_eq!(
        error.to_string(),
        r#"unknown embedded syntax "nquads" (expected rdfa, microdata, jsonld or turtle)"#
    );
    let error = "Output".parse::<RdfaGraph>().unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"unknown RDFa graph "Output" (expected output, processor or both)"#
    );
}

#[test]
fn a_registry_that_is_not_an_object_of_vocabularies_is_a_typed_error() {
    assert_eq!(
        MicrodataRegistry::from_json("[1]").unwrap_err(),
        RegistryError::NotAnObject
    );
    let error = MicrodataRegistry::from_json("{\n  \"v\": ").unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid registry: EOF while parsing a value at line 2 column 7"
    );
}

#[test]
fn a_page_over_the_size_limit_is_refused_with_its_size() {
    let page = vec![b' '; MAX_HTML_BYTES + 1];
    let error = parse_page(
        &page,
        false,
        PAGE_URL,
        &NoContexts,
        MicrodataRegistry::shipped(),
    )
    .unwrap_err();
    assert_eq!(
        error,
        PageError::TooLarge {
            bytes: MAX_HTML_BYTES + 1,
            limit: MAX_HTML_BYTES
        }
    );
    assert_eq!(
        error.to_string(),
        format!("page larger than {MAX_HTML_BYTES} bytes: embedded data not read")
    );
}
