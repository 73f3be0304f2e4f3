#!/bin/sh
# Multi-node crawl throughput: 1, 2 and 4 `ldwarc crawl --state postgres://…` nodes (processes
# on this machine) over a generated loopback test web with latency, next to the politeness
# bound (all documents / (biggest PLD's documents × delay)), with PostgreSQL transactions
# (pg_stat_database.xact_commit deltas) and statements (pg_stat_statements calls, BEGIN and
# COMMIT included) per document, printed as a Markdown table. Release
# build by default (PROFILE=dev for a quick debug run). Sizes: LDWARC_BENCH_PLDS (300),
# LDWARC_BENCH_DOCS (documents of the biggest PLD, 900: some 20,000 in all),
# LDWARC_BENCH_LATENCY_MS (20), LDWARC_BENCH_DELAY (seconds, 0.25); per node
# LDWARC_BENCH_CONCURRENCY (64) and LDWARC_BENCH_MAX_PLDS (8: one node holds 8 PLDs at a time,
# about a third of the bound, so the table shows what more nodes add); LDWARC_BENCH_NODES
# (node counts, default 1,2,4). Needs the PostgreSQL server binaries (Debian package
# postgresql), like the tests.
set -eu
cd "$(dirname "$0")/.."
profile="${PROFILE:-release}"
exec cargo test --quiet --profile "$profile" --test integration \
    multi_node::benchmark_multi_node_throughput -- --ignored --nocapture --test-threads 1 "$@"
