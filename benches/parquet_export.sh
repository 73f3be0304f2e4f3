#!/usr/bin/env bash
# The Parquet export of the capture index against the CDXJ export, on the peers corpus, and
# DuckDB's profile of a one-URL lookup (docs/columnar.md). A benchmark, not a test: it prints
# figures and the targets, and exits non-zero when a target is missed.
#
# 1. Corpus: PEERS_CAPTURES captures (default 196,000), generated and indexed as
#    benches/peers.sh does (`cargo bench --bench index_throughput`), in $PEERS_DIR/archive
#    (default target/peers; reused when it was generated with the same parameters).
# 2. Times, best of 3, release binary on all cores:
#    `ldwarc cdx` (CDXJ to a file)  vs  `ldwarc cdx --format parquet --output DIR`.
#    Targets: parquet time <= 1.5x the CDXJ time; parquet bytes <= the CDXJ text gzipped.
# 3. A lookup of one URL by url_surtkey in DuckDB: EXPLAIN ANALYZE's profile and the row
#    groups it read (its "Row Groups Scanned": min/max and bloom filters applied).
#    Target: at most 2 row groups (meaningful from 1M captures: PEERS_CAPTURES=1000000).
#
# Run: bash benches/parquet_export.sh (PEERS_CAPTURES=20000 for a quick run). Needs .venv with
# duckdb (bash .ci/setup-interop.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

captures=${PEERS_CAPTURES:-196000}
dir=${PEERS_DIR:-$PWD/target/peers}
venv=${LDWARC_VENV:-$PWD/.venv}
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
archive="$dir/archive"
py="$venv/bin/python"
"$py" -c 'import duckdb' || { echo "duckdb is missing from $venv: bash .ci/setup-interop.sh" >&2; exit 1; }
mkdir -p "$dir"

echo "== corpus: $captures captures (index_throughput)"
LDWARC_BENCH_DIR="$archive" LDWARC_BENCH_SKIP_PEERS=1 LDWARC_BENCH_LOOKUPS=100 \
  LDWARC_BENCH_CAPTURES="$captures" cargo bench --quiet --bench index_throughput | sed 's/^/   /'
cargo build --release --quiet --bin ldwarc
ldwarc="$target_dir/release/ldwarc"
echo "   $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# best COMMAND: the shortest wall time (seconds) of 3 runs of the shell COMMAND.
best() {
  local command=$1 best_time="" start elapsed
  for _ in 1 2 3; do
    start=$EPOCHREALTIME
    bash -c "$command" || { echo "failed: $command" >&2; exit 1; }
    elapsed=$(python3 -c "print(f'{$EPOCHREALTIME - $start:.3f}')")
    if [ -z "$best_time" ] || python3 -c "import sys; sys.exit(0 if $elapsed < $best_time else 1)"; then
      best_time=$elapsed
    fi
  done
  echo "$best_time"
}

out="$dir/parquet"
cdxj="$dir/export.cdxj"
t_cdx=$(best "'$ldwarc' cdx --root '$archive' > '$cdxj'")
t_parquet=$(best "rm -rf '$out' && '$ldwarc' cdx --root '$archive' --format parquet --output '$out' --crawl BENCH > /dev/null")
cdxj_gz=$(gzip -c "$cdxj" | wc -c)
parquet_bytes=$(find "$out" -name '*.parquet' -printf '%s\n' | awk '{s += $1} END {print s}')
lines=$(wc -l < "$cdxj")
status=0
ratio=$(python3 -c "print(f'{$t_parquet / $t_cdx:.2f}')")
echo "== export of $lines captures"
printf '   %-28s %8s s\n' "ldwarc cdx (CDXJ)" "$t_cdx" "ldwarc cdx --format parquet" "$t_parquet"
echo "   time ratio parquet/cdxj: $ratio (target <= 1.5)"
echo "   bytes: parquet $parquet_bytes, CDXJ gzipped $cdxj_gz (target: parquet <= CDXJ gzipped)"
python3 -c "import sys; sys.exit(0 if $ratio <= 1.5 else 1)" || { echo "   MISSED: time"; status=1; }
[ "$parquet_bytes" -le "$cdxj_gz" ] || { echo "   MISSED: size"; status=1; }

# The key of the capture in the middle of the export: a lookup inside the table, not at an end.
key=$(sed -n "$((lines / 2 + 1))p" "$cdxj" | cut -d' ' -f1)
echo "== DuckDB lookup of $key"
"$py" - "$out" "$key" <<'PY' || status=1
import re
import sys
import duckdb

table, key = sys.argv[1], sys.argv[2]
files = f"{table}/crawl=*/subset=*/*.parquet"
con = duckdb.connect()
profile = "\n".join(
    row[1]
    for row in con.execute(
        "EXPLAIN ANALYZE SELECT fetch_time, url, warc_filename, warc_record_offset "
        "FROM read_parquet(?, hive_partitioning = true) WHERE url_surtkey = ?",
        [files, key],
    ).fetchall()
)
print(profile)
scanned = re.search(r"Row Groups Scanned: (\d+) / (\d+)", profile)
if not scanned:
    sys.exit("   DuckDB's profile shows no 'Row Groups Scanned' line")
read, total = int(scanned.group(1)), int(scanned.group(2))
print(f"   row groups read: {read} of {total} (target <= 2)")
sys.exit(0 if read <= 2 else 1)
PY
exit $status
