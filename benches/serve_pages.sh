#!/usr/bin/env bash
# Server time of the pages with charts (issue #39): each page rendered in <= 50 ms once the
# figures behind its charts are computed (they are computed once per index, off the request
# threads, and the time that took is printed too).
#
# 1. The archive: LDWARC_BENCH_ROOT when given, else the peers corpus of benches/peers.sh
#    (PEERS_CAPTURES captures, default 196,000, generated and indexed by `cargo bench --bench
#    index_throughput` in $PEERS_DIR/archive, default target/peers; reused when present).
# 2. `ldwarc serve` (the release build, or LDWARC_BENCH_BINARY) on loopback; the script waits
#    until /overview shows its charts and prints how long the figures took.
# 3. The pages: /overview, /timeline and /calendar of the URL with the most captures, /pld of
#    the pay-level domain with the most captures, /dataset at the last crawl. Each is asked
#    LDWARC_BENCH_REQUESTS times (default 50) by curl, one at a time; the server time of a
#    request is curl's time to the first byte less its time to the request's start (loopback:
#    no network in it). Printed: median, p95 and max per page; the target is a median and a
#    p95 <= 50 ms. Exits non-zero when a page misses it.
#
# Run: bash benches/serve_pages.sh (LDWARC_BENCH_ROOT=DIR for an archive you have). The figures
# hold for this machine and its load at the time only.
set -euo pipefail
cd "$(dirname "$0")/.."

requests=${LDWARC_BENCH_REQUESTS:-50}
target_ms=50
captures=${PEERS_CAPTURES:-196000}
dir=${PEERS_DIR:-$PWD/target/peers}
work=$(mktemp -d)

if [ -n "${LDWARC_BENCH_ROOT:-}" ]; then
  archive=$LDWARC_BENCH_ROOT
else
  archive="$dir/archive"
  echo "== corpus: $captures captures (index_throughput)"
  LDWARC_BENCH_DIR="$archive" LDWARC_BENCH_SKIP_PEERS=1 LDWARC_BENCH_LOOKUPS=100 \
    LDWARC_BENCH_CAPTURES="$captures" cargo bench --quiet --bench index_throughput | sed 's/^/   /'
fi
if [ -n "${LDWARC_BENCH_BINARY:-}" ]; then
  ldwarc=$LDWARC_BENCH_BINARY
else
  cargo build --release --quiet --bin ldwarc
  ldwarc=${CARGO_TARGET_DIR:-$PWD/target}/release/ldwarc
fi

pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$ldwarc" serve --root "$archive" --bind 127.0.0.1:0 > "$work/serve.out" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q listening "$work/serve.out" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/serve.out" | head -1 | cut -d: -f2)
[ -n "$port" ] || { cat "$work/serve.out" >&2; echo "the server did not start" >&2; exit 1; }
base="http://127.0.0.1:$port"
echo "== serving $("$ldwarc" --version 2>/dev/null || echo ldwarc) on $base, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== waiting for the figures behind the charts"
start=$EPOCHREALTIME
while curl -sf "$base/overview" -o "$work/overview.html" && grep -q 'class="computing"' "$work/overview.html"; do
  sleep 0.5
done
grep -q 'id="rates-chart"\|id="weeks-0"' "$work/overview.html" || { echo "no charts on /overview" >&2; exit 1; }
python3 -c "print(f'   figures ready after {$EPOCHREALTIME - $start:.1f} s (first request to charts)')"
grep -o 'computed from [0-9]* documents in [0-9.]* s' "$work/overview.html" | sed 's/^/   /' || true

# The pages to time, found from the overview and the index.
python3 - "$work" "$base" <<'PY' > "$work/pages"
import re, sys, urllib.parse, urllib.request, json
work, base = sys.argv[1], sys.argv[2]
html = open(f"{work}/overview.html", encoding="utf-8").read()
pages = ["/overview"]
pld = re.search(r'href="(/pld\?name=[^"]+)"', html)
if pld:
    pages.append(pld.group(1).replace("&amp;", "&"))
    name = urllib.parse.unquote(pld.group(1).split("=", 1)[1])
    # The URL with the most captures of that PLD.
    with urllib.request.urlopen(f"{base}/cdx?url={urllib.parse.quote(name)}&matchType=domain&output=json&limit=200000") as r:
        counts = {}
        for line in r.read().decode().splitlines():
            if line.strip():
                url = json.loads(line)["url"]
                counts[url] = counts.get(url, 0) + 1
    if counts:
        url = max(counts, key=lambda u: (counts[u], u))
        q = urllib.parse.quote(url, safe="")
        pages += [f"/timeline?url={q}", f"/calendar?url={q}"]
datasets = re.findall(r'href="(/dataset\?at=\d+)"', html)
if datasets:
    pages.append(datasets[0])
print("\n".join(pages))
PY

missed=0
printf '%-70s %8s %8s %8s\n' page "median" "p95" "max"
while read -r path; do
  : > "$work/times"
  for _ in $(seq "$requests"); do
    curl -s -o /dev/null -w '%{time_pretransfer} %{time_starttransfer} %{http_code}\n' "$base$path" >> "$work/times"
  done
  read -r median p95 max bad < <(python3 - "$work/times" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ms = sorted((float(b) - float(a)) * 1000 for a, b, _ in rows)
bad = sum(1 for *_, code in rows if code != "200")
print(f"{ms[len(ms) // 2]:.1f} {ms[min(len(ms) - 1, int(len(ms) * 0.95))]:.1f} {ms[-1]:.1f} {bad}")
PY
)
  printf '%-70s %6s ms %6s ms %6s ms\n' "${path:0:70}" "$median" "$p95" "$max"
  if [ "$bad" != 0 ]; then echo "   $bad answers were not 200" >&2; missed=1; fi
  if python3 -c "import sys; sys.exit(0 if $median <= $target_ms and $p95 <= $target_ms else 1)"; then :; else missed=1; fi
done < "$work/pages"

if [ "$missed" = 1 ]; then
  echo "TARGET MISSED: a page took more than $target_ms ms (median or p95)" >&2
  exit 1
fi
echo "every page within $target_ms ms"
