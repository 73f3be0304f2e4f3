//! The sections every command's help and man page has besides its options: EXAMPLES,
//! EXIT STATUS, ENVIRONMENT and FILES. Written once here; `--help` shows them as text and
//! the man pages render them as roff sections.

/// The extra help sections of one command.
pub struct Sections {
    /// `(command line, what it does)`.
    pub examples: &'static [(&'static str, &'static str)],
    /// `(status, meaning)`; the statuses every command shares are added by [`exit_status`].
    pub exit_status: &'static [(&'static str, &'static str)],
    /// `(variable, meaning)` besides those every command reads.
    pub environment: &'static [(&'static str, &'static str)],
    /// `(path, meaning)`.
    pub files: &'static [(&'static str, &'static str)],
}

/// What the commands reading the versioned triple index read.
const TRIPLE_FILES: &[(&str, &str)] = &[(
    "<root>/triples/triples.bin.gz",
    "the versioned triple index, derived from the captures (ldwarc index --triples)",
)];

const ROOT_FILES: &[(&str, &str)] = &[
    (
        "<root>/warc/YYYY/MM/DD/HH/<pld>/*.warc.gz",
        "the WARC files, the archive's source of truth",
    ),
    (
        "<root>/index/",
        "the capture index, derived from the WARC files (ldwarc index)",
    ),
    (
        "<root>/state/",
        "crawl log, frontier and schedule (SQLite), unless --state names PostgreSQL",
    ),
];

const CRAWL_FILES: &[(&str, &str)] = &[
    (
        "<root>/ldwarc.toml",
        "optional [crawl] table: any crawl option by its flag's name (flags win)",
    ),
    (
        "<root>/warc/…/*.warc.gz.open",
        "a WARC file being written; renamed when closed (ldwarc recover finalises it after a kill)",
    ),
    ("<root>/state/", "the crawl log, frontier and URL state"),
];

const NETWORK_ENVIRONMENT: &[(&str, &str)] = &[(
    "HTTP_PROXY, HTTPS_PROXY, NO_PROXY",
    "proxy for requests, unless --proxy is given",
)];

/// The sections of the command `path` (`check`, `plan currency`, …); `None` for commands
/// without their own (the top level).
pub fn sections(path: &str) -> Option<Sections> {
    let none: &'static [(&'static str, &'static str)] = &[];
    let sections = match path {
        "ldwarc" => Sections {
            examples: &[
                (
                    "ldwarc demo",
                    "the offline tour: crawl a sample Linked Data web three times, replay, diff",
                ),
                (
                    "ldwarc crawl --root /data/ld http://dbpedia.org/resource/Berlin",
                    "archive Linked Data",
                ),
                (
                    "ldwarc replay --root /data/ld http://dbpedia.org/resource/Berlin@2024-03-15",
                    "its graph on a date",
                ),
                (
                    "ldwarc serve --root /data/ld",
                    "serve the archive to Wayback and Memento tools",
                ),
            ],
            exit_status: &[("1", "the command ran and found problems (see each command)")],
            environment: none,
            files: ROOT_FILES,
        },
        "check" => Sections {
            examples: &[
                (
                    "ldwarc check",
                    "check every WARC file of the archive in the current directory",
                ),
                (
                    "ldwarc check --strict crawl.warc.gz",
                    "fail on warnings too",
                ),
                (
                    "ldwarc check --lenient wpull.warc.gz",
                    "the defects wpull, warcio.js and ArchiveWeb.page write are warnings",
                ),
                (
                    "ldwarc check --format json old/ | jq .",
                    "problems as JSON lines",
                ),
            ],
            exit_status: &[(
                "1",
                "a file has an error (or a warning, with --strict: an unfinished .open file \
                 is one; `ldwarc recover` finalises it)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "ls" => Sections {
            examples: &[
                ("ldwarc ls crawl.warc.gz", "one line per record"),
                (
                    "ldwarc ls --format json crawl.warc.gz",
                    "one JSON object per record",
                ),
                (
                    "curl -s https://example.org/a.warc.gz | ldwarc ls -",
                    "list a WARC read from stdin",
                ),
            ],
            exit_status: &[(
                "1",
                "a file is damaged (the records before the damage are listed)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "extract" => Sections {
            examples: &[
                (
                    "ldwarc extract crawl.warc.gz 1234",
                    "the record at offset 1234: WARC headers and block",
                ),
                (
                    "ldwarc extract --payload crawl.warc.gz 1234 > body",
                    "its payload only",
                ),
            ],
            exit_status: none,
            environment: none,
            files: &[("FILE", "a WARC or ARC file, gzipped per record or not")],
        },
        "export" => Sections {
            examples: &[
                (
                    "ldwarc export --wacz ld.wacz --root /data/ld",
                    "the whole archive as a WACZ package",
                ),
                (
                    "ldwarc export --wacz org.wacz --domain example.org --from 2024 --to 2024",
                    "one domain's captures of 2024",
                ),
            ],
            exit_status: none,
            environment: none,
            files: &[
                (
                    "FILE.wacz",
                    "WACZ 1.1.1: archive/ (WARC files), indexes/index.cdx.gz and index.idx, pages/pages.jsonl, datapackage.json, datapackage-digest.json",
                ),
                ("<root>/warc/", "the WARC files copied into the package"),
            ],
        },
        "import" => Sections {
            examples: &[(
                "ldwarc import --root /data/ld crawl.wacz",
                "bring a WACZ package's WARC files into the archive and index them",
            )],
            exit_status: &[(
                "2",
                "the package is refused (a size or hash does not verify, a file is not WARC, \
                 an unsafe entry name, a zip bomb, or its WARC files are in the archive \
                 already); the archive is left as it was",
            )],
            environment: none,
            files: &[
                ("<root>/warc/", "where the package's WARC files are copied"),
                ("<root>/index/", "updated with the imported captures"),
            ],
        },
        "parse" => Sections {
            examples: &[
                (
                    "ldwarc parse page.html --base https://example.org/page",
                    "the RDFa, Microdata and JSON-LD of a web page, as N-Triples",
                ),
                (
                    "curl -s https://example.org/data.ttl | ldwarc parse - --media-type text/turtle --format jsonld",
                    "any RDF syntax to any other",
                ),
                (
                    "ldwarc parse --report page.html",
                    "which syntaxes found how many statements",
                ),
            ],
            exit_status: none,
            environment: none,
            files: &[(
                "FILE",
                "an RDF document or an HTML/XHTML page; - for standard input (.nt and .nq files are read strictly: a line that is only Turtle is an error)",
            )],
        },
        "recover" => Sections {
            examples: &[(
                "ldwarc recover --root /data/ld",
                "finalise the files a killed crawl left open and index them",
            )],
            exit_status: none,
            environment: none,
            files: CRAWL_FILES,
        },
        "index" => Sections {
            examples: &[
                (
                    "ldwarc index --root /data/ld",
                    "index new and grown WARC files",
                ),
                (
                    "ldwarc index --rebuild",
                    "read every file again, on all cores",
                ),
                (
                    "ldwarc index --verify",
                    "prove the index and the files agree",
                ),
                (
                    "ldwarc index --triples",
                    "also bring the versioned triple index up to date",
                ),
            ],
            exit_status: &[(
                "1",
                "damaged places in WARC files (each reported; what could be read is indexed), or \
                 with --verify: the index and the files disagree",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "cdx" => Sections {
            examples: &[
                (
                    "ldwarc cdx > index.cdxj",
                    "the whole index as byte-sorted CDXJ",
                ),
                (
                    "ldwarc cdx --format cdx11 http://example.org/",
                    "CDX-11 of one prefix, for OpenWayback",
                ),
                (
                    "ldwarc cdx --zipnum /srv/pywb/collections/ld/indexes",
                    "a ZipNum index pywb serves",
                ),
                (
                    "ldwarc cdx --format parquet --output /srv/table --crawl LOD-2026-11",
                    "Parquet in Common Crawl's cc-index-table layout, for DuckDB and Spark",
                ),
            ],
            exit_status: none,
            environment: none,
            files: ROOT_FILES,
        },
        "query" => Sections {
            examples: &[
                (
                    "ldwarc query http://dbpedia.org/resource/Berlin",
                    "every capture of a URL",
                ),
                (
                    "ldwarc query '*.example.org' --from 2024 --to 2024",
                    "a domain's captures of 2024",
                ),
                (
                    "ldwarc query http://example.org/a --closest 20240315 --limit 1 --format json",
                    "the nearest capture as JSON",
                ),
            ],
            exit_status: none,
            environment: none,
            files: ROOT_FILES,
        },
        "crawl" => Sections {
            examples: &[
                (
                    "ldwarc crawl --root /data/ld http://dbpedia.org/resource/Berlin",
                    "crawl two hops from a seed",
                ),
                (
                    "ldwarc crawl --hops 0 --delay 5s @seeds.txt",
                    "fetch only the seeds, one request per domain every 5 s",
                ),
                (
                    "ldwarc crawl --resume",
                    "continue a crawl that was interrupted",
                ),
                (
                    "ldwarc crawl --state postgres://db/ld --node n1 @seeds.txt",
                    "one node of a shared crawl",
                ),
            ],
            exit_status: none,
            environment: NETWORK_ENVIRONMENT,
            files: CRAWL_FILES,
        },
        "monitor" => Sections {
            examples: &[
                ("ldwarc monitor --once @kernel.txt", "one cycle (for cron)"),
                (
                    "ldwarc monitor --every 1d --strategy dyn @kernel.txt",
                    "the observatory loop, daily",
                ),
                (
                    "ldwarc monitor --every 1h --strategy dyldo @kernel.txt",
                    "a weekly snapshot, up to 16 a week for documents that keep changing",
                ),
            ],
            exit_status: none,
            environment: NETWORK_ENVIRONMENT,
            files: CRAWL_FILES,
        },
        "replay" => Sections {
            examples: &[
                (
                    "ldwarc replay http://example.org/data@2024-03-15",
                    "the graph as it was that day, N-Triples",
                ),
                (
                    "ldwarc replay --format ttl http://example.org/data@20240315120000",
                    "as Turtle",
                ),
                (
                    "ldwarc replay --raw http://example.org/data",
                    "the latest capture's bytes as served",
                ),
            ],
            exit_status: &[(
                "1",
                "a graph was printed but is partial, the payload does not match its recorded \
                 digest, or the revisit record cited is gone (each reported)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "history" => Sections {
            examples: &[
                (
                    "ldwarc history http://example.org/data",
                    "every capture and whether the graph changed",
                ),
                (
                    "ldwarc history --format json http://example.org/data",
                    "as JSON lines",
                ),
            ],
            exit_status: &[(
                "1",
                "a capture's record could not be read (a damaged or missing WARC file) or its graph \
                 is partial (each reported)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "snapshot" => Sections {
            examples: &[
                (
                    "ldwarc snapshot @2024-03-15 -o dataset.nq",
                    "the dataset that day, N-Quads",
                ),
                (
                    "ldwarc snapshot @2024 --domain example.org --format trig",
                    "one domain at the end of 2024, TriG",
                ),
            ],
            exit_status: &[(
                "1",
                "a document could not be read or parsed (each is reported)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "sparql" => Sections {
            examples: &[
                (
                    "ldwarc sparql --at 2024-03-15 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'",
                    "statements in the dataset that day",
                ),
                (
                    "ldwarc sparql --at 2024 --format json @people.rq",
                    "a query from a file, W3C JSON results",
                ),
                (
                    "ldwarc sparql --at 202406 --default-graph empty 'SELECT ?g WHERE { GRAPH ?g { ?s a ?t } }'",
                    "which documents say what",
                ),
            ],
            exit_status: &[
                (
                    "1",
                    "a document could not be read or parsed (each is reported; the answer is given without it)",
                ),
                (
                    "2",
                    "bad arguments or input, a query syntax error (its line and column), or an unreadable archive",
                ),
            ],
            environment: none,
            files: ROOT_FILES,
        },
        "diff" => Sections {
            examples: &[
                (
                    "ldwarc diff http://example.org/data@2024-01 2024-06",
                    "statements added and removed",
                ),
                (
                    "ldwarc diff @2024-01 @2024-06 --domain example.org",
                    "every document of a domain",
                ),
                (
                    "ldwarc diff --format json old.ttl new.ttl",
                    "two local files, as JSON",
                ),
            ],
            exit_status: &[(
                "1",
                "with --exit-code: the graphs differ; and for dates, whenever a document could \
                 not be read (reported)",
            )],
            environment: none,
            files: ROOT_FILES,
        },
        "when" => Sections {
            examples: &[
                (
                    "ldwarc when '<http://example.org/alice> <http://schema.org/worksFor> ?o'",
                    "every employer Alice had, with the dates",
                ),
                (
                    "ldwarc when '?s a <http://schema.org/Person>' --from 2024-01-01T00:00:00Z --to 2024-06-30",
                    "who was a person in the first half of 2024",
                ),
                (
                    "ldwarc when --format json '?s <http://schema.org/name> ?o'",
                    "one JSON object per statement and document",
                ),
                (
                    "ldwarc when --root node1 --root node2 '?s ?p ?o' --from 2024-02 --to 2024-02",
                    "what held during February 2024 in two roots answering as one archive",
                ),
            ],
            exit_status: none,
            environment: none,
            files: TRIPLE_FILES,
        },
        "demo" => Sections {
            examples: &[("ldwarc demo", "the offline tour, into ./ldwarc-demo")],
            exit_status: none,
            environment: none,
            files: &[("ldwarc-demo/", "the demo's archive (replaced on each run)")],
        },
        "stats" => Sections {
            examples: &[
                (
                    "ldwarc stats --root /data/ld",
                    "change rates, ages and the Weibull fit",
                ),
                (
                    "ldwarc stats --by plds --format csv > plds.csv",
                    "per pay-level domain, as CSV",
                ),
                (
                    "ldwarc stats --plot plots/",
                    "SVG plots of the distributions",
                ),
            ],
            exit_status: &[("1", "some captures could not be read (reported)")],
            environment: none,
            files: ROOT_FILES,
        },
        "simulate" => Sections {
            examples: &[
                (
                    "ldwarc simulate --synthetic weibull",
                    "recall and precision of every strategy on a synthetic web",
                ),
                (
                    "ldwarc simulate --histories histories.jsonl --format json",
                    "on recorded change histories",
                ),
            ],
            exit_status: none,
            environment: none,
            files: &[(
                "--histories FILE",
                "change histories, one JSON object per line: url and change times",
            )],
        },
        "serve" => Sections {
            examples: &[
                (
                    "ldwarc serve --root /data/ld",
                    "CDX API, Memento and pages on http://127.0.0.1:8080/",
                ),
                (
                    "ldwarc serve --bind 0.0.0.0:8080 --token s3cret",
                    "on every interface, token required",
                ),
            ],
            exit_status: &[("2", "the configuration is refused (bind address, token)")],
            environment: &[("LDWARC_SERVE_TOKEN", "the token, instead of --token")],
            files: ROOT_FILES,
        },
        "plan" | "plan currency" => Sections {
            examples: &[
                (
                    "ldwarc plan currency --alpha 0.95 --beta 7d --weibull 1.4,152.2d",
                    "the re-crawl period for 95% currency within a week",
                ),
                (
                    "ldwarc plan currency --alpha 0.9 --beta 1d --from-archive",
                    "fitted from the archive's own captures",
                ),
            ],
            exit_status: none,
            environment: none,
            files: ROOT_FILES,
        },
        "plan crawl-time" => Sections {
            examples: &[
                (
                    "ldwarc plan crawl-time --crawl 3",
                    "how long crawl 3 took against its estimate",
                ),
                (
                    "ldwarc plan crawl-time --nodes 4",
                    "the next cycle's time on four nodes",
                ),
            ],
            exit_status: none,
            environment: none,
            files: ROOT_FILES,
        },
        _ => return None,
    };
    Some(sections)
}

/// The statuses every command shares, then the command's own.
pub fn exit_status(own: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut statuses = vec![("0", "success")];
    statuses.extend_from_slice(own);
    if !own.iter().any(|(code, _)| *code == "2") {
        statuses.push((
            "2",
            "bad arguments or input: a one-line error names the file, offset, URL or argument",
        ));
    }
    statuses
}

/// The variables every command reads, then the command's own.
pub fn environment(own: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut variables = vec![
        ("LDWARC_ROOT", "the archive root when --root is not given"),
        (
            "RUST_LOG",
            "log filter (e.g. ldwarc_crawl=debug), overriding -v/-q",
        ),
    ];
    variables.extend_from_slice(own);
    variables
}

/// The sections as plain text, for `--help`.
pub fn text(sections: &Sections) -> String {
    let mut out = String::from("EXAMPLES:\n");
    for (line, what) in sections.examples {
        out.push_str(&format!("  {line}\n      {what}\n"));
    }
    out.push_str("\nEXIT STATUS:\n");
    for (code, meaning) in exit_status(sections.exit_status) {
        out.push_str(&format!("  {code}  {meaning}\n"));
    }
    out.push_str("\nENVIRONMENT:\n");
    for (name, meaning) in environment(sections.environment) {
        out.push_str(&format!("  {name}\n      {meaning}\n"));
    }
    if !sections.files.is_empty() {
        out.push_str("\nFILES:\n");
        for (path, meaning) in sections.files {
            out.push_str(&format!("  {path}\n      {meaning}\n"));
        }
    }
    out.trim_end().to_string()
}

/// Adds the sections to every subcommand that has them, recursively.
pub fn attach(command: clap::Command) -> clap::Command {
    attach_under(command, "")
}

fn attach_under(command: clap::Command, prefix: &str) -> clap::Command {
    let path = if prefix.is_empty() {
        command.get_name().to_string()
    } else {
        format!("{prefix} {}", command.get_name())
    };
    let command = match sections(&path) {
        Some(sections) => command.after_long_help(text(&sections)),
        None => command,
    };
    let child_prefix = if prefix.is_empty() && path == "ldwarc" {
        String::new()
    } else {
        path
    };
    command.mut_subcommands(|sub| attach_under(sub, &child_prefix))
}
