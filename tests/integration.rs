//! All integration tests, one binary: each `tests/<name>.rs` is a module here, so a build
//! links the crate into one test executable instead of one per file (the CI machine's disk
//! does not hold thirty debug executables of this size). Run one file's tests with
//! `cargo test --test integration <name>::`.

#[path = "support/cdx_queries.rs"]
mod cdx_queries;
#[path = "support/change_population.rs"]
mod change_population;
#[path = "support/cluster.rs"]
mod cluster;
mod common;
#[path = "support/fault_proxy.rs"]
mod fault_proxy;
#[path = "support/serve_server.rs"]
mod serve_server;
#[path = "support/synthetic_archive.rs"]
mod synthetic_archive;
#[path = "support/versioned_people.rs"]
mod versioned_people;
#[path = "support/warc_fixture.rs"]
mod warc_fixture;

mod cli_dates;
mod cli_exit_statuses;
mod cli_logging;
mod cli_refusals;
mod cli_shapes;
mod cli_vocabulary;
mod cluster_faults;
mod cluster_operation;
mod cluster_outage;
mod cluster_share;
mod columnar;
mod crash_recovery;
mod crawl_failures;
mod crawl_hostile;
mod crawl_limits;
mod crawl_resume;
mod crawl_settings;
mod crawl_testweb;
mod crawl_tls;
mod damaged_files;
mod demo;
mod diff_interop;
mod foreign_files;
mod hop_exactness;
mod hostile_arguments;
mod hostile_documents;
mod html_interop;
mod html_options;
mod html_pages;
mod index_cdxj;
mod index_crash;
mod index_revisits;
mod input_hardening;
mod interop_pywb_sample;
mod interop_wget;
mod interop_writer;
mod jsonld_contexts;
mod jsonld_output;
mod logging_progress;
mod ls_parallel;
mod man_pages;
mod monitor_dyldo;
mod monitor_loopback;
mod monitor_nodes;
mod monitor_politeness;
mod monitor_truth_time;
mod multi_node;
mod multi_root;
mod object_store;
mod parser_isolation;
mod plan_currency;
mod plan_nodes;
mod post_captures;
mod publish;
mod publishable;
mod pywb_replay;
mod query_vs_pywb;
mod rdf_strict;
mod rdf_xml_literals;
mod read_only;
mod recover_lock;
mod replay_archive;
mod serve_attacks;
mod serve_budget;
mod serve_cdx_toolkit;
mod serve_charts;
mod serve_chromium;
mod serve_memento;
mod serve_negotiation;
mod serve_pages;
mod serve_public;
mod serve_timeouts;
mod serve_twins;
mod serve_vs_pywb;
mod simulate;
mod snapshot_hdt;
mod sparql_interop;
mod stats_archive;
mod stats_fit;
mod surt_interop;
mod triples_tpf;
mod url_forms;
mod w3c_conformance;
mod wacz_roundtrip;
mod warc_extract_stdin;
mod writer_roundtrip;
mod zipnum_pywb;
