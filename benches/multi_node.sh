#!/bin/sh
# Multi-node crawl throughput: 1, 2 and 4 `ldwarc crawl --state postgres://…` nodes over the
# generated loopback test web (16 PLDs, ~300 documents, delay 0.05 s, 4 leases per node), with
# PostgreSQL commits per fetch (pg_stat_database.xact_commit deltas), printed as a Markdown
# table. Needs the PostgreSQL server binaries (Debian package postgresql), like the tests.
set -eu
cd "$(dirname "$0")/.."
exec cargo test --quiet --test integration multi_node::benchmark_multi_node_throughput -- \
    --ignored --nocapture --test-threads 1 "$@"
