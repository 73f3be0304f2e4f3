//! Parse cost of deep nesting (issue #38): HTML nested `div`s, RDF/XML nested node and
//! property elements and JSON-LD nested node objects, at 1,000, 10,000 and 100,000 levels
//! (`LDWARC_BENCH_NESTING_LEVELS=1000,10000,…` for others), each level repeated side by side
//! until the document is about 4 MB (`LDWARC_BENCH_NESTING_MB`), so that every row parses the
//! same amount of text. Prints the time per MB, the statements found and the first error, which
//! is where a bound refused or cut the document (HTML beyond 1,024 levels, RDF/XML beyond 2,048,
//! JSON-LD beyond 256): time per MB that stays flat from row to row is linear parsing.
//!
//! Run with `cargo bench --bench nesting`.

use std::time::Instant;

use ldwarc_rdf::{NoContexts, Syntax, parse_graph};

fn main() {
    let levels: Vec<usize> = std::env::var("LDWARC_BENCH_NESTING_LEVELS")
        .ok()
        .map(|list| {
            list.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let megabytes: usize = std::env::var("LDWARC_BENCH_NESTING_MB")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    println!(
        "{:<8} {:>8} {:>9} {:>10} {:>11}  first error",
        "syntax", "levels", "MB", "ms/MB", "statements"
    );
    for syntax in [Syntax::Html, Syntax::RdfXml, Syntax::JsonLd] {
        for &depth in &levels {
            let document = generate(syntax, depth, megabytes << 20);
            let started = Instant::now();
            let parsed = parse_graph(
                document.as_bytes(),
                &[syntax],
                "http://example.org/",
                &NoContexts,
            );
            let seconds = started.elapsed().as_secs_f64();
            let size = document.len() as f64 / f64::from(1u32 << 20);
            let (statements, error) = match &parsed {
                Ok(parsed) => (
                    parsed.graph.len(),
                    parsed
                        .error
                        .clone()
                        .or_else(|| parsed.embedded.as_ref()?.errors.first().cloned())
                        .unwrap_or_default(),
                ),
                Err(error) => (0, error.to_string()),
            };
            let error: String = error.chars().take(90).collect();
            println!(
                "{:<8} {depth:>8} {size:>9.1} {:>10.1} {statements:>11}  {error}",
                syntax.name(),
                seconds * 1000.0 / size
            );
        }
    }
}

/// A document of about `bytes` bytes: nests of `depth` levels, side by side.
fn generate(syntax: Syntax, depth: usize, bytes: usize) -> String {
    let (head, open, middle, close, tail) = match syntax {
        Syntax::Html => (
            "<!DOCTYPE html><html><body>",
            "<div property=\"http://example.org/p\">",
            "x",
            "</div>",
            "</body></html>",
        ),
        Syntax::RdfXml => (
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
             xmlns:ex=\"http://example.org/\">",
            "<rdf:Description><ex:p>",
            "x",
            "</ex:p></rdf:Description>",
            "</rdf:RDF>",
        ),
        _ => ("[", "{\"http://example.org/p\": ", "\"x\"", "}", "]"),
    };
    let nest = format!("{}{middle}{}", open.repeat(depth), close.repeat(depth));
    let copies = (bytes / nest.len()).max(1);
    let separator = if syntax == Syntax::JsonLd { "," } else { "" };
    let mut document = String::with_capacity(bytes + nest.len());
    document.push_str(head);
    for copy in 0..copies {
        if copy > 0 {
            document.push_str(separator);
        }
        document.push_str(&nest);
    }
    document.push_str(tail);
    document
}
