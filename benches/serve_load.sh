#!/usr/bin/env bash
# Load benchmark of `ldwarc serve` against pywb 2.10.0 (issue #6), with wrk (Debian `wrk`).
#
# 1. An archive of at least 1,000,000 captures (LDWARC_BENCH_CAPTURES, default 1,000,000),
#    generated and indexed by `cargo bench --bench index_throughput` in
#    $LDWARC_BENCH_DIR/archive (default target/serve-bench; reused when present).
# 2. `ldwarc cdx` exports its CDXJ; pywb (`wayback` from .venv-pywb) serves that export over
#    the WARC tree, `ldwarc serve` (release build) serves the archive; both on loopback.
# 3. 2,000 random captures of the export become request lists: exact CDX queries
#    (`/cdx?url=…` and pywb's `/bench/cdx?url=…`) and `id_` replays of the capture's exact
#    timestamp (`/web/{ts}id_/{url}`, pywb `/bench/{ts}id_/{url}`). Captures whose URL has a
#    `#fragment` (the generator archives some) are skipped: a fragment cannot be sent in a
#    request target, and pywb answers those replays 404, which would count as its errors.
# 4. wrk runs LDWARC_BENCH_SECONDS (default 30) per case with LDWARC_BENCH_CONNECTIONS
#    (default 8) connections, with keep-alive and with `Connection: close`, for both servers,
#    and the script prints requests/s, p99 latency and errors side by side with the ratio.
#    Targets: ldwarc >= 20x pywb's requests/s, p99 < 5 ms at 8 connections, zero errors.
#    pywb answers `Connection: close` requests without `Connection: close`, so wrk tries to
#    reuse each connection and counts a read error when it finds it closed: those "errors"
#    are complete answers. Last, for scale, the rate at which ldwarc answers a 404 (routing
#    only, no archive work), which bounds what wrk and the kernel allow on this machine.
#
# Run: bash benches/serve_load.sh. Needs wrk and .venv-pywb (bash .ci/setup-interop.sh).
# wrk, both servers and the archive share this machine's cores: the figures are for this
# machine only.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${LDWARC_BENCH_SECONDS:-30}
connections=${LDWARC_BENCH_CONNECTIONS:-8}
captures=${LDWARC_BENCH_CAPTURES:-1000000}
# The corpus size the targets are stated for (benches/peers.sh runs this on its own corpus).
min_captures=${LDWARC_BENCH_MIN_CAPTURES:-1000000}
dir=${LDWARC_BENCH_DIR:-$PWD/target/serve-bench}
pywb_venv=${LDWARC_PYWB_VENV:-$PWD/.venv-pywb}
threads=$(( $(nproc) < connections ? $(nproc) : connections ))

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
[ -x "$pywb_venv/bin/wayback" ] || { echo "pywb is missing: bash .ci/setup-interop.sh" >&2; exit 1; }
mkdir -p "$dir"
archive="$dir/archive"

if [ ! -d "$archive/index" ] || [ ! -f "$archive/bench-archive.txt" ]; then
  echo "== generating and indexing $captures captures (index_throughput)"
  LDWARC_BENCH_DIR="$archive" LDWARC_BENCH_SKIP_PEERS=1 LDWARC_BENCH_LOOKUPS=100 \
    LDWARC_BENCH_CAPTURES="$captures" cargo bench --bench index_throughput
fi
cargo build --release --quiet
ldwarc=${CARGO_TARGET_DIR:-$PWD/target}/release/ldwarc

echo "== exporting CDXJ"
"$ldwarc" cdx --root "$archive" > "$dir/bench.cdxj"
total=$(wc -l < "$dir/bench.cdxj")
echo "   $total captures"
[ "$total" -ge "$min_captures" ] || echo "   WARNING: fewer than 1,000,000 captures: the issue's targets need at least that many"

echo "== request lists"
python3 - "$dir" <<'PY'
import json, random, sys, urllib.parse
d = sys.argv[1]
lines = open(f"{d}/bench.cdxj", encoding="utf-8").read().splitlines()
random.seed(6)
rows = []
while len(rows) < 2000:
    line = lines[random.randrange(len(lines))]
    if "#" not in json.loads(line.split(" ", 2)[2])["url"]:
        rows.append(line)
lists = {name: [] for name in ("ours-cdx", "pywb-cdx", "ours-id", "pywb-id")}
for line in rows:
    urlkey, ts, js = line.split(" ", 2)
    url = json.loads(js)["url"]
    q = urllib.parse.quote(url, safe="")
    lists["ours-cdx"].append(f"/cdx?url={q}")
    lists["pywb-cdx"].append(f"/bench/cdx?url={q}")
    lists["ours-id"].append(f"/web/{ts}id_/{url}")
    lists["pywb-id"].append(f"/bench/{ts}id_/{url}")
for name, paths in lists.items():
    with open(f"{d}/{name}.paths", "w") as out:
        out.write("\n".join(paths) + "\n")
PY
cat > "$dir/paths.lua" <<'LUA'
-- Cycles through the request paths of PATHS_FILE, each thread from its own offset.
local paths = {}
for line in io.lines(os.getenv("PATHS_FILE")) do paths[#paths + 1] = line end
local i = 0
local close = os.getenv("CLOSE") == "1"
function init(args) i = math.random(#paths) end
function request()
  i = i % #paths + 1
  if close then
    return wrk.format("GET", paths[i], { ["Connection"] = "close" })
  end
  return wrk.format("GET", paths[i])
end
LUA

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "== starting ldwarc serve"
"$ldwarc" serve --root "$archive" --bind 127.0.0.1:0 > "$dir/serve.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$dir/serve.out" && break; sleep 0.1; done
ours_port=$(grep -o '127.0.0.1:[0-9]*' "$dir/serve.out" | head -1 | cut -d: -f2)

echo "== starting pywb"
pywb_port=$(free_port)
mkdir -p "$dir/pywb"
cat > "$dir/pywb/config.yaml" <<YAML
collections:
  bench:
    index: $dir/bench.cdxj
    archive_paths: $archive/warc/
YAML
(cd "$dir/pywb" && PYWB_CONFIG_FILE="$dir/pywb/config.yaml" exec "$pywb_venv/bin/wayback" -b 127.0.0.1 -p "$pywb_port" > "$dir/pywb/log" 2>&1) &
pids+=($!)
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$pywb_port/" >/dev/null && break; sleep 0.1; done

# Sanity: both answer the first request of each list.
for kind in cdx id; do
  for side in ours pywb; do
    port=$ours_port; [ "$side" = pywb ] && port=$pywb_port
    path=$(head -1 "$dir/$side-$kind.paths")
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
    [ "$code" = 200 ] || { echo "$side $kind: $path answered $code" >&2; exit 1; }
  done
done

# run SIDE KIND CLOSE -> "requests/s p99_ms errors"
run() {
  local side=$1 kind=$2 close=$3 port=$ours_port
  [ "$side" = pywb ] && port=$pywb_port
  local out
  out=$(PATHS_FILE="$dir/$side-$kind.paths" CLOSE=$close wrk -t"$threads" -c"$connections" \
    -d"${seconds}s" --latency -s "$dir/paths.lua" "http://127.0.0.1:$port" 2>&1)
  echo "$out" > "$dir/wrk-$side-$kind-close$close.txt"
  local rps p99 non2xx sockerr
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  sockerr=$(echo "$out" | awk '/Socket errors/ {gsub(",",""); print $4+$6+$8+$10}')
  echo "$rps ${p99:-?} $(( ${non2xx:-0} + ${sockerr:-0} ))"
}

echo "== wrk: ${seconds}s per case, $connections connections, $threads threads, $(nproc) cores"
printf '%-8s %-11s %14s %10s %7s %14s %10s %7s %8s\n' case connection "ldwarc req/s" "p99 ms" errors "pywb req/s" "p99 ms" errors ratio
missed=0
[ "$total" -ge "$min_captures" ] || missed=1
for kind in cdx id; do
  for close in 0 1; do
    read -r o_rps o_p99 o_err <<< "$(run ours $kind $close)"
    read -r p_rps p_p99 p_err <<< "$(run pywb $kind $close)"
    ratio=$(python3 -c "print(f'{$o_rps / max($p_rps, 0.001):.1f}x')")
    label=$([ "$close" = 1 ] && echo close || echo keep-alive)
    printf '%-8s %-11s %14s %10s %7s %14s %10s %7s %8s\n' "$kind" "$label" "$o_rps" "$o_p99" "$o_err" "$p_rps" "$p_p99" "$p_err" "$ratio"
    python3 -c "import sys; sys.exit(0 if $o_rps >= 20 * $p_rps and $o_p99 < 5 and $o_err == 0 else 1)" || missed=1
  done
done
echo "targets: ratio >= 20x, ldwarc p99 < 5 ms, 0 errors (raw wrk output in $dir/wrk-*.txt)"
echo /no/such/route > "$dir/ours-none.paths"
for close in 0 1; do
  read -r n_rps n_p99 _ <<< "$(run ours none $close)"
  label=$([ "$close" = 1 ] && echo close || echo keep-alive)
  echo "scale: ldwarc answering 404 (no archive work), $label: $n_rps req/s, p99 $n_p99 ms"
done
if [ "$missed" = 1 ]; then
  echo "TARGETS MISSED (see the table above)" >&2
  exit 1
fi
echo "targets met"
