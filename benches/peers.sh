#!/usr/bin/env bash
# ldwarc side by side with the tools users compare it with, on one generated corpus, in one
# run: each command timed best of 3 (slow peers that are not the fastest once), then the
# ratio table. Exits non-zero when a target is missed.
#
# 1. Corpus: PEERS_CAPTURES captures (default 196,000) generated and indexed by
#    `cargo bench --bench index_throughput` (40 files in the archive layout, Turtle bodies,
#    about 22% revisits) in $PEERS_DIR/archive (default target/peers; reused when it was
#    generated with the same parameters).
# 2. Rows (ldwarc = the release binary, all cores; ratio = ldwarc time / fastest peer time):
#    index    `ldwarc index --rebuild`   vs `fastwarc index` (and cdxj-indexer, once)
#    cdx      `ldwarc cdx` (CDXJ)         vs `LC_ALL=C sort` of that same output
#    check    `ldwarc check`              vs FastWARC iterating with both digests verified
#                                            (and `warcio check`, once)
#    ls       `ldwarc ls --format json`   vs FastWARC iterating with HTTP headers parsed
#    snapshot `ldwarc snapshot @DATE`     vs pyoxigraph parsing that N-Quads output
#    parse-nt `ldwarc parse` N-Triples    vs pyoxigraph's streaming parse of the same file
#    parse-ttl `ldwarc parse` Turtle      vs pyoxigraph's streaming parse of the same file
#    Targets: ratio <= 1 (cdx: <= 2, the tolerance the targets allow for noise at 0.1 s).
# 3. Serve: benches/serve_load.sh on the same archive (wrk, pywb 2.10; PEERS_SERVE_SECONDS
#    per case, default 10; PEERS_SKIP_SERVE=1 skips it). Targets: >= 20x pywb, p99 < 5 ms,
#    0 errors.
#
# Run: bash benches/peers.sh (PEERS_CAPTURES=20000 for a quick run; PEERS_ROWS="index cdx" runs
# only the rows named, default all: index cdx check ls snapshot parse; parse needs snapshot). Needs .venv and
# .venv-pywb (bash tools/setup-tests.sh) and wrk. Every tool shares this machine's cores:
# the figures hold for this machine and its load at the time only.
set -euo pipefail
cd "$(dirname "$0")/.."

captures=${PEERS_CAPTURES:-196000}
dir=${PEERS_DIR:-$PWD/target/peers}
venv=${LDWARC_VENV:-$PWD/.venv}
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
archive="$dir/archive"
mkdir -p "$dir"

for tool in fastwarc cdxj-indexer warcio python; do
  [ -x "$venv/bin/$tool" ] || { echo "$venv/bin/$tool is missing: bash tools/setup-tests.sh" >&2; exit 1; }
done
py="$venv/bin/python"

echo "== corpus: $captures captures (index_throughput)"
LDWARC_BENCH_DIR="$archive" LDWARC_BENCH_SKIP_PEERS=1 LDWARC_BENCH_LOOKUPS=100 \
  LDWARC_BENCH_CAPTURES="$captures" cargo bench --quiet --bench index_throughput | sed 's/^/   /'
cargo build --release --quiet --bin ldwarc
ldwarc="$target_dir/release/ldwarc"
mapfile -t files < <(find "$archive/warc" -name '*.warc.gz' | sort)
echo "   ${#files[@]} files, $(du -sm "$archive/warc" | cut -f1) MB, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# best RUNS COMMAND: the shortest wall time (seconds) of RUNS runs of the shell COMMAND.
best() {
  local runs=$1 command=$2 best_time="" start elapsed
  for _ in $(seq "$runs"); do
    start=$EPOCHREALTIME
    bash -c "$command" || { echo "failed: $command" >&2; exit 1; }
    elapsed=$(python3 -c "print(f'{$EPOCHREALTIME - $start:.3f}')")
    if [ -z "$best_time" ] || python3 -c "import sys; sys.exit(0 if $elapsed < $best_time else 1)"; then
      best_time=$elapsed
    fi
  done
  echo "$best_time"
}

export LDWARC=$ldwarc ARCHIVE=$archive DIR=$dir PY=$py VENV=$venv
export FILES="${files[*]}"

# The peers' Python programs.
cat > "$dir/fastwarc_verify.py" <<'PY'
import sys
from fastwarc.warc import ArchiveIterator
bad = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for record in ArchiveIterator(f, parse_http=False):
            if not record.verify_block_digest(consume=False):
                bad += 1
            # As `ldwarc check`: a revisit's payload digest names the original's payload, and
            # warcinfo records carry none; FastWARC reports both as failures.
            if record.headers.get("WARC-Type") == "revisit" or not record.headers.get("WARC-Payload-Digest"):
                continue
            record.parse_http()
            if not record.verify_payload_digest(consume=True):
                bad += 1
sys.exit(1 if bad else 0)
PY
cat > "$dir/fastwarc_iterate.py" <<'PY'
import sys
from fastwarc.warc import ArchiveIterator
n = 0
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for record in ArchiveIterator(f, parse_http=True):
            n += len(record.headers) + (len(record.http_headers) if record.http_headers else 0)
print(n, file=sys.stderr)
PY
cat > "$dir/pyoxigraph_parse.py" <<'PY'
import sys
import pyoxigraph
formats = {"nq": pyoxigraph.RdfFormat.N_QUADS, "nt": pyoxigraph.RdfFormat.N_TRIPLES,
           "ttl": pyoxigraph.RdfFormat.TURTLE}
path = sys.argv[1]
n = 0
with open(path, "rb") as f:
    for _ in pyoxigraph.parse(f, format=formats[path.rsplit(".", 1)[1]]):
        n += 1
print(n, file=sys.stderr)
PY

rows=()
missed=0
selected=" ${PEERS_ROWS:-index cdx check ls snapshot parse} "
# wanted NAME: whether the row NAME is to be measured.
wanted() { [[ "$selected" == *" $1 "* ]]; }

# row NAME LDWARC_SECONDS PEER_NAME PEER_SECONDS LIMIT
row() {
  local ratio
  ratio=$(python3 -c "print(f'{$2 / max($4, 0.001):.2f}')")
  local verdict=ok
  python3 -c "import sys; sys.exit(0 if $ratio <= $5 else 1)" || { verdict=MISSED; missed=1; }
  rows+=("$(printf '%-10s %10s s   %-34s %10s s  %7sx  (target <= %sx) %s' "$1" "$2" "$3" "$4" "$ratio" "$5" "$verdict")")
}

if wanted index; then
echo "== index"
t_index=$(best 3 '"$LDWARC" index --root "$ARCHIVE" --rebuild > /dev/null')
t_fw_index=$(best 3 '"$VENV/bin/fastwarc" index $FILES > /dev/null')
t_cdxj_indexer=$(best 1 '"$VENV/bin/cdxj-indexer" -s --dir-root "$ARCHIVE/warc" "$ARCHIVE/warc" > /dev/null')
echo "   ldwarc $t_index s, fastwarc index $t_fw_index s, cdxj-indexer $t_cdxj_indexer s"
row index "$t_index" "fastwarc index" "$t_fw_index" 1
fi

if wanted cdx; then
echo "== cdx"
t_cdx=$(best 3 '"$LDWARC" cdx --root "$ARCHIVE" > "$DIR/export.cdxj"')
LC_ALL=C sort -c "$dir/export.cdxj" || { echo "ldwarc cdx output is not byte-sorted" >&2; exit 1; }
t_sort=$(best 3 'LC_ALL=C sort "$DIR/export.cdxj" > /dev/null')
echo "   $(wc -l < "$dir/export.cdxj") lines"
row cdx "$t_cdx" "LC_ALL=C sort of its output" "$t_sort" 2
fi

if wanted check; then
echo "== check"
t_check=$(best 3 '"$LDWARC" check --root "$ARCHIVE" --quiet > /dev/null')
t_fw_check=$(best 3 '"$PY" "$DIR/fastwarc_verify.py" $FILES')
t_warcio=$(best 1 'for f in $FILES; do "$VENV/bin/warcio" check "$f" > /dev/null || exit 1; done')
echo "   ldwarc $t_check s, fastwarc verify $t_fw_check s, warcio check $t_warcio s"
row check "$t_check" "FastWARC iterate + both digests" "$t_fw_check" 1
fi

if wanted ls; then
echo "== ls"
t_ls=$(best 3 '"$LDWARC" ls --root "$ARCHIVE" --format json > "$DIR/ls.jsonl"')
t_fw_ls=$(best 3 '"$PY" "$DIR/fastwarc_iterate.py" $FILES 2> /dev/null')
echo "   $(wc -l < "$dir/ls.jsonl") records"
row "ls --json" "$t_ls" "FastWARC iterate with HTTP headers" "$t_fw_ls" 1
fi

if wanted snapshot; then
echo "== snapshot"
t_snap=$(best 3 '"$LDWARC" snapshot --root "$ARCHIVE" @2100-01-01 > "$DIR/snapshot.nq"')
t_ox_snap=$(best 3 '"$PY" "$DIR/pyoxigraph_parse.py" "$DIR/snapshot.nq" 2> /dev/null')
echo "   $(wc -l < "$dir/snapshot.nq") statements"
row snapshot "$t_snap" "pyoxigraph parsing that output" "$t_ox_snap" 1
fi

if wanted parse; then
echo "== parse"
# The snapshot's statements as one graph, in N-Triples and Turtle.
"$py" - "$dir" <<'PY'
import sys, pyoxigraph
d = sys.argv[1]
triples = [pyoxigraph.Triple(q.subject, q.predicate, q.object)
           for q in pyoxigraph.parse(path=f"{d}/snapshot.nq", format=pyoxigraph.RdfFormat.N_QUADS)]
pyoxigraph.serialize(triples, output=f"{d}/graph.nt", format=pyoxigraph.RdfFormat.N_TRIPLES)
pyoxigraph.serialize(triples, output=f"{d}/graph.ttl", format=pyoxigraph.RdfFormat.TURTLE)
PY
t_parse_nt=$(best 3 '"$LDWARC" parse "$DIR/graph.nt" > /dev/null')
t_ox_nt=$(best 3 '"$PY" "$DIR/pyoxigraph_parse.py" "$DIR/graph.nt" 2> /dev/null')
t_parse_ttl=$(best 3 '"$LDWARC" parse "$DIR/graph.ttl" > /dev/null')
t_ox_ttl=$(best 3 '"$PY" "$DIR/pyoxigraph_parse.py" "$DIR/graph.ttl" 2> /dev/null')
echo "   $(wc -l < "$dir/graph.nt") triples"
row parse-nt "$t_parse_nt" "pyoxigraph parse (streaming)" "$t_ox_nt" 1
row parse-ttl "$t_parse_ttl" "pyoxigraph parse (streaming)" "$t_ox_ttl" 1
fi

echo
echo "== $captures captures, $(nproc) cores, best of 3 (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-10s %12s   %-34s %12s  %8s\n' command ldwarc "fastest peer" "peer" ratio
for line in "${rows[@]}"; do echo "$line"; done

if [ "${PEERS_SKIP_SERVE:-0}" != 1 ]; then
  echo
  echo "== serve (benches/serve_load.sh)"
  LDWARC_BENCH_DIR="$dir" LDWARC_BENCH_CAPTURES="$captures" LDWARC_BENCH_MIN_CAPTURES="$captures" \
    LDWARC_BENCH_SECONDS="${PEERS_SERVE_SECONDS:-10}" bash benches/serve_load.sh || missed=1
fi

if [ "$missed" = 1 ]; then
  echo "TARGETS MISSED" >&2
  exit 1
fi
echo "all targets met"
