//! Embedded-data extraction benchmark: ldwarc against pyRdfa3 and extruct on the same pages.
//!
//! Generates a corpus of real-world-shaped HTML pages (default 10,000,
//! `LDWARC_BENCH_HTML_PAGES`), 10–200 KB each: navigation, product grids, tables, article
//! text, inline CSS and JavaScript around the data, which is a schema.org JSON-LD block on
//! every page, Microdata on about half and RDFa Lite on about a third (the shares of the
//! Web Data Commons extractions, rounded). Then, in the same run, extracts every page:
//! - ldwarc: `parse_page` (RDFa, Microdata and script blocks together) on one thread per
//!   core, each page read from disk in the timed part;
//! - pyRdfa3 and extruct (`benches/html_extract_peers.py`), each with as many worker
//!   processes as ldwarc has threads, on the first `LDWARC_BENCH_HTML_PEER_PAGES` pages
//!   (default: all of them);
//!
//! and prints pages/s and MB/s side by side with the ratio to each peer (target: ldwarc at
//! least 20x pyRdfa3). `LDWARC_BENCH_HTML_PEERS=0` times ldwarc alone;
//! `LDWARC_BENCH_HTML_DIR=DIR` keeps the pages in DIR.
//!
//! Run with `cargo bench --bench html_extract`. Needs `.venv` from `.ci/setup-interop.sh`.

#[allow(dead_code)]
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ldwarc_rdf::{MicrodataRegistry, NoContexts, parse_page};
use ldwarc_testweb::SplitMix64;
use support::venv_bin;

fn main() {
    let pages = env_usize("LDWARC_BENCH_HTML_PAGES", 10_000).max(1);
    let peer_pages = env_usize("LDWARC_BENCH_HTML_PEER_PAGES", pages).clamp(1, pages);
    let peers = std::env::var("LDWARC_BENCH_HTML_PEERS").map_or(true, |v| v != "0");
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = std::env::var_os("LDWARC_BENCH_HTML_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().to_path_buf());
    std::fs::create_dir_all(&dir).expect("page dir");
    let corpus = generate(&dir, pages);
    println!(
        "corpus: {} pages, {:.1} MB ({} KB to {} KB), {threads} threads/workers",
        corpus.len(),
        mb(corpus.iter().map(|page| page.bytes).sum()),
        corpus.iter().map(|page| page.bytes).min().unwrap_or(0) / 1024,
        corpus.iter().map(|page| page.bytes).max().unwrap_or(0) / 1024,
    );

    let mut rows = vec![measure_ldwarc(&corpus, threads)];
    if peers {
        let sample = &corpus[..peer_pages];
        let listing = dir.join("pages.txt");
        let mut text = String::new();
        for page in sample {
            let _ = writeln!(text, "{}\t{}", page.path.display(), page.url);
        }
        std::fs::write(&listing, text).expect("page list");
        for mode in ["pyrdfa", "extruct"] {
            rows.push(measure_peer(mode, &listing, threads));
        }
    }
    print_table(&rows);
}

/// One generated page.
struct Page {
    path: PathBuf,
    url: String,
    bytes: u64,
}

/// One tool's timing.
struct Row {
    tool: &'static str,
    pages: usize,
    bytes: u64,
    seconds: f64,
    found: u64,
}

fn measure_ldwarc(corpus: &[Page], threads: usize) -> Row {
    let registry = MicrodataRegistry::shipped();
    let chunk = corpus.len().div_ceil(threads);
    let start = Instant::now();
    let found: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = corpus
            .chunks(chunk)
            .map(|pages| {
                scope.spawn(move || {
                    pages
                        .iter()
                        .map(|page| {
                            let body = std::fs::read(&page.path).expect("page");
                            let (graph, _) =
                                parse_page(&body, false, &page.url, &NoContexts, registry)
                                    .expect("page extracts");
                            graph.len() as u64
                        })
                        .sum::<u64>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("worker")).sum()
    });
    Row {
        tool: "ldwarc",
        pages: corpus.len(),
        bytes: corpus.iter().map(|page| page.bytes).sum(),
        seconds: start.elapsed().as_secs_f64(),
        found,
    }
}

fn measure_peer(mode: &'static str, listing: &Path, workers: usize) -> Row {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/html_extract_peers.py");
    let output = Command::new(venv_bin("python"))
        .arg(script)
        .arg(mode)
        .arg(listing)
        .arg(workers.to_string())
        .output()
        .expect("run html_extract_peers.py");
    assert!(
        output.status.success(),
        "html_extract_peers.py {mode} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("peer prints JSON");
    Row {
        tool: if mode == "pyrdfa" {
            "pyRdfa3"
        } else {
            "extruct"
        },
        pages: result["pages"].as_u64().unwrap_or(0) as usize,
        bytes: result["bytes"].as_u64().unwrap_or(0),
        seconds: result["seconds"].as_f64().unwrap_or(f64::NAN),
        found: result["found"].as_u64().unwrap_or(0),
    }
}

fn print_table(rows: &[Row]) {
    let ours = &rows[0];
    let rate = |row: &Row| row.pages as f64 / row.seconds;
    println!("| tool | pages | MB | seconds | pages/s | MB/s | ldwarc is | found |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.1} | {:.2} | {} | {} |",
            row.tool,
            row.pages,
            mb(row.bytes),
            row.seconds,
            rate(row),
            mb(row.bytes) / row.seconds,
            if row.tool == ours.tool {
                "—".to_string()
            } else {
                format!("{:.1}x faster", rate(ours) / rate(row))
            },
            row.found,
        );
    }
    println!(
        "(found: statements for ldwarc and pyRdfa3 (RDFa + embedded Turtle only), items for extruct)"
    );
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes `count` pages into `dir`.
fn generate(dir: &Path, count: usize) -> Vec<Page> {
    let mut rng = SplitMix64::new(0x4854_4d4c);
    (0..count)
        .map(|index| {
            let url = format!("http://shop{}.example/item/{index}", index % 97);
            let target = 10 * 1024 + rng.below(190 * 1024);
            let body = page(&mut rng, index, &url, target);
            let path = dir.join(format!("{index:05}.html"));
            std::fs::write(&path, &body).expect("write page");
            Page {
                path,
                url,
                bytes: body.len() as u64,
            }
        })
        .collect()
}

const WORDS: &[&str] = &[
    "archive", "linked", "data", "lamp", "bright", "shipping", "free", "review", "colour", "steel",
    "oak", "warranty", "delivery", "customer", "order", "size", "weight", "classic", "modern",
    "the", "and", "with", "for", "a", "of", "in", "our", "new", "best", "price",
];

fn words(rng: &mut SplitMix64, n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(WORDS[rng.below(WORDS.len())]);
    }
    text
}

/// One page of about `target` bytes: the data near the top, ordinary markup filling the rest.
fn page(rng: &mut SplitMix64, index: usize, url: &str, target: usize) -> String {
    let mut html = String::with_capacity(target + 4096);
    let name = words(rng, 3);
    let price = format!("{}.{:02}", 5 + rng.below(500), rng.below(100));
    let _ = write!(
        html,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{name} | Shop {index}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"><link rel="canonical" href="{url}">
<style>body{{font-family:sans-serif;margin:0}} .grid{{display:grid;grid-template-columns:repeat(4,1fr)}} .card{{padding:8px;border:1px solid #ddd}}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments)}}gtag('js',new Date());gtag('config','G-{index}');</script>
<script type="application/ld+json">
{{"@context":{{"@vocab":"http://schema.org/"}},"@graph":[
 {{"@type":"Organization","@id":"{url}#org","name":"Shop {index}","url":"{url}","logo":"{url}/logo.png",
   "sameAs":["http://social.example/shop{index}","http://video.example/shop{index}"]}},
 {{"@type":"BreadcrumbList","itemListElement":[
   {{"@type":"ListItem","position":1,"name":"Home","item":"{url}/.."}},
   {{"@type":"ListItem","position":2,"name":"{name}","item":"{url}"}}]}},
 {{"@type":"Product","@id":"{url}#product","name":"{name}","sku":"SKU-{index}",
   "description":"{desc}","brand":{{"@type":"Brand","name":"Brand {brand}"}},
   "offers":{{"@type":"Offer","price":"{price}","priceCurrency":"EUR","availability":"http://schema.org/InStock","seller":{{"@id":"{url}#org"}}}},
   "aggregateRating":{{"@type":"AggregateRating","ratingValue":"{rating}","reviewCount":{reviews}}}}}]}}
</script>
</head><body>
"#,
        desc = words(rng, 20),
        brand = rng.below(50),
        rating = 1 + rng.below(5),
        reviews = rng.below(900),
    );
    html.push_str("<header><nav><ul class=\"menu\">");
    for i in 0..30 {
        let _ = write!(
            html,
            "<li class=\"menu-item\"><a href=\"/category/{i}\">{}</a></li>",
            words(rng, 2)
        );
    }
    html.push_str("</ul></nav></header>\n<main>\n");
    if index.is_multiple_of(3) {
        rdfa_lite(rng, &mut html, url, &name, &price);
    }
    if index.is_multiple_of(2) {
        microdata(rng, &mut html, url);
    }
    filler(rng, &mut html, target);
    html.push_str("</main><footer><p>&copy; 2026 Shop</p></footer></body></html>\n");
    html
}

fn rdfa_lite(rng: &mut SplitMix64, html: &mut String, url: &str, name: &str, price: &str) {
    let _ = write!(
        html,
        r#"<section vocab="http://schema.org/" typeof="Product" resource="{url}#rdfa">
<h1 property="name">{name}</h1><img property="image" src="/img/main.jpg" alt="{name}">
<div class="desc" property="description"><p>{}</p><p>{}</p></div>
<div property="offers" typeof="Offer"><span property="price" content="{price}">&euro;{price}</span>
<meta property="priceCurrency" content="EUR"><link property="availability" href="http://schema.org/InStock">In stock</div>
<div property="brand" typeof="Brand"><span property="name">Brand {}</span></div>
</section>
"#,
        words(rng, 40),
        words(rng, 30),
        rng.below(50),
    );
}

fn microdata(rng: &mut SplitMix64, html: &mut String, url: &str) {
    html.push_str("<section class=\"reviews\"><h2>Reviews</h2>\n");
    for i in 0..1 + rng.below(6) {
        let _ = write!(
            html,
            r#"<div itemscope itemtype="http://schema.org/Review" itemid="{url}#review{i}">
<span itemprop="name">{}</span> by <span itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">{}</span></span>
<div itemprop="reviewRating" itemscope itemtype="http://schema.org/Rating"><meta itemprop="worstRating" content="1"><span itemprop="ratingValue">{}</span>/<span itemprop="bestRating">5</span></div>
<time itemprop="datePublished" datetime="2026-0{}-1{}">recently</time>
<p itemprop="reviewBody">{}</p><link itemprop="url" href="{url}/reviews/{i}"></div>
"#,
            words(rng, 4),
            words(rng, 2),
            1 + rng.below(5),
            1 + rng.below(9),
            rng.below(10),
            words(rng, 25),
        );
    }
    html.push_str("</section>\n");
}

/// Ordinary markup until the page reaches `target` bytes: product grids, spec tables, text.
fn filler(rng: &mut SplitMix64, html: &mut String, target: usize) {
    while html.len() < target {
        match rng.below(3) {
            0 => {
                html.push_str("<div class=\"grid\">");
                for i in 0..8 {
                    let _ = write!(
                        html,
                        "<div class=\"card\" data-id=\"{}\"><a href=\"/item/{i}\"><img src=\"/img/{i}.jpg\" alt=\"\" loading=\"lazy\"></a><h3>{}</h3><p class=\"price\">&euro;{}</p><button type=\"button\" onclick=\"add({i})\">Add</button></div>",
                        rng.below(100_000),
                        words(rng, 3),
                        rng.below(300)
                    );
                }
                html.push_str("</div>\n");
            }
            1 => {
                html.push_str("<table class=\"specs\"><tbody>");
                for _ in 0..10 {
                    let _ = write!(
                        html,
                        "<tr><th>{}</th><td>{}</td></tr>",
                        words(rng, 1),
                        words(rng, 3)
                    );
                }
                html.push_str("</tbody></table>\n");
            }
            _ => {
                let _ = writeln!(
                    html,
                    "<article><h2>{}</h2><p>{} <strong>{}</strong> {}</p><p>{}</p></article>",
                    words(rng, 5),
                    words(rng, 60),
                    words(rng, 3),
                    words(rng, 40),
                    words(rng, 50)
                );
            }
        }
    }
}
