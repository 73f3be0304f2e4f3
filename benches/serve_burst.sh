#!/usr/bin/env bash
# Burst benchmark of `ldwarc serve`'s memory budget: 48 concurrent domain-wide CDX queries
# that buffer their rows (sort=reverse, sort=closest, limit=-N) against an archive of at
# least 200,000 captures.
#
# 1. The archive: generated and indexed by `cargo bench --bench index_throughput` (as
#    benches/serve_load.sh does) in $LDWARC_BENCH_DIR/archive (default target/serve-burst;
#    reused when present), LDWARC_BENCH_CAPTURES captures (default 200,000). Or an indexed
#    archive of your own: LDWARC_BENCH_ARCHIVE=DIR (its domain: LDWARC_BENCH_DOMAIN).
# 2. For each allocator in LDWARC_BENCH_ALLOCATORS (default "glibc jemalloc mimalloc"; the
#    others are loaded with LD_PRELOAD from Debian's libjemalloc2 and libmimalloc2.0 and
#    skipped with a note when absent), a fresh `ldwarc serve` (release build, or
#    LDWARC_BIN) with its default budget (or LDWARC_BENCH_BUDGET=SIZE):
#    - idle RSS after a warm-up query;
#    - 48 concurrent queries (LDWARC_BENCH_CLIENTS), a third each sort=reverse,
#      closest=…&sort=closest and limit=-1000, while /proc/PID/status is sampled every 20 ms;
#    - peak RSS (the samples' maximum and the kernel's VmHWM), RSS 5 s after the burst;
#    - answers: 200 and complete (every row; a cut body fails the read) or 503 (with
#      Retry-After when the budget was spent, without when the answer was not ready within
#      --request-timeout); anything else counts as wrong;
#    - the server answers an exact query afterwards.
#    Targets: peak < 512 MB, after-burst RSS within 128 MB of idle, no wrong answers.
#
# Run: bash benches/serve_burst.sh. The figures are for this machine and its load only.
set -euo pipefail
cd "$(dirname "$0")/.."

captures=${LDWARC_BENCH_CAPTURES:-200000}
dir=${LDWARC_BENCH_DIR:-$PWD/target/serve-burst}
clients=${LDWARC_BENCH_CLIENTS:-48}
allocators=${LDWARC_BENCH_ALLOCATORS:-glibc jemalloc mimalloc}
domain=${LDWARC_BENCH_DOMAIN:-example.org}
mkdir -p "$dir"

archive=${LDWARC_BENCH_ARCHIVE:-$dir/archive}
if [ -z "${LDWARC_BENCH_ARCHIVE:-}" ] && { [ ! -d "$archive/index" ] || [ ! -f "$archive/bench-archive.txt" ]; }; then
  echo "== generating and indexing $captures captures (index_throughput)"
  LDWARC_BENCH_DIR="$archive" LDWARC_BENCH_SKIP_PEERS=1 LDWARC_BENCH_LOOKUPS=100 \
    LDWARC_BENCH_CAPTURES="$captures" cargo bench --bench index_throughput
fi
if [ -z "${LDWARC_BIN:-}" ]; then
  cargo build --release --quiet --bin ldwarc
  target=${CARGO_TARGET_DIR:-$PWD/target}
  LDWARC_BIN=$target/release/ldwarc
fi
echo "== $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GB", $2/1048576}' /proc/meminfo) memory, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== binary $LDWARC_BIN"

preload_of() {
  case "$1" in
    glibc) echo "" ;;
    jemalloc) ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 2>/dev/null || echo missing ;;
    mimalloc) ls /usr/lib/x86_64-linux-gnu/libmimalloc.so.2* 2>/dev/null | head -1 || echo missing ;;
    *) echo missing ;;
  esac
}

pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; }
trap cleanup EXIT

for allocator in $allocators; do
  preload=$(preload_of "$allocator")
  if [ "$preload" = missing ] || { [ "$allocator" != glibc ] && [ -z "$preload" ]; }; then
    echo "== $allocator: library not installed (apt-get install libjemalloc2 libmimalloc2.0), skipped"
    continue
  fi
  budget_args=()
  [ -n "${LDWARC_BENCH_BUDGET:-}" ] && budget_args=(--memory-budget "$LDWARC_BENCH_BUDGET")
  # Extra serve flags, e.g. a longer --request-timeout on a loaded machine or a debug build.
  read -r -a extra_args <<< "${LDWARC_BENCH_SERVE_ARGS:-}"
  LD_PRELOAD="$preload" "$LDWARC_BIN" serve --root "$archive" --bind 127.0.0.1:0 \
    "${budget_args[@]}" "${extra_args[@]}" > "$dir/serve-$allocator.out" 2> "$dir/serve-$allocator.err" &
  pid=$!
  for _ in $(seq 1200); do grep -q listening "$dir/serve-$allocator.out" && break; sleep 0.1; done
  port=$(grep -o '127.0.0.1:[0-9]*' "$dir/serve-$allocator.out" | head -1 | cut -d: -f2)
  echo "== $allocator${preload:+ ($preload)}, budget ${LDWARC_BENCH_BUDGET:-default} ${LDWARC_BENCH_SERVE_ARGS:-}"
  python3 - "$pid" "$port" "$clients" "$domain" <<'PY'
import http.client, sys, threading, time

pid, port, clients, domain = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def rss_mb(field="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field}")

def get(path, timeout=300):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()  # raises IncompleteRead on a cut chunked body
    conn.close()
    return response.status, response.getheader("Retry-After"), body

base = f"/cdx?url={domain}&matchType=domain"
status, _, body = get(base + "&fl=timestamp")
assert status == 200, status
total = body.count(b"\n")
print(f"   selection: {total} captures")
get(f"/cdx?url=http://{domain}/nothing")
time.sleep(1)
idle = rss_mb()

queries = []
for i in range(clients):
    kind = i % 3
    if kind == 0:
        queries.append(("reverse", base + "&sort=reverse", total))
    elif kind == 1:
        queries.append(("closest", base + "&closest=20260101050000&sort=closest", total))
    else:
        queries.append(("last-1000", base + "&limit=-1000", min(1000, total)))

samples, done = [], threading.Event()
def sample():
    while not done.is_set():
        samples.append(rss_mb())
        time.sleep(0.02)
sampler = threading.Thread(target=sample)
sampler.start()

results = [None] * clients
def client(i):
    name, path, expected = queries[i]
    try:
        status, retry, body = get(path)
        rows = body.count(b"\n")
        if status == 200 and rows == expected:
            results[i] = (name, "complete")
        elif status == 503:
            # Retry-After: the budget was spent; without: the answer timed out.
            results[i] = (name, "503" if retry else "503 timeout")
        else:
            results[i] = (name, f"wrong: {status}, {rows} rows of {expected}")
    except Exception as error:
        results[i] = (name, f"wrong: {error!r}")

started = time.monotonic()
threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.monotonic() - started
done.set(); sampler.join()
peak = max(max(samples), rss_mb("VmHWM"))
time.sleep(5)
after = rss_mb()
status, _, _ = get(f"/cdx?url=http://{domain}/nothing")

for name in ("reverse", "closest", "last-1000"):
    mine = [r for n, r in results if n == name]
    print(f"   {name:10} complete {mine.count('complete'):3}  503 budget {mine.count('503'):3}  503 timeout {mine.count('503 timeout'):3}  wrong {sum(r.startswith('wrong') for r in mine)}")
for n, r in results:
    if r.startswith("wrong"):
        print(f"   {n}: {r}")
wrong = sum(r.startswith("wrong") for _, r in results)
print(f"   burst {elapsed:.1f} s; RSS idle {idle:.0f} MB, peak {peak:.0f} MB, 5 s after {after:.0f} MB ({after - idle:+.0f} MB)")
print(f"   answers afterwards: {status}")
ok = peak < 512 and after - idle <= 128 and wrong == 0 and status == 200
print("   targets (peak < 512 MB, after within 128 MB of idle, no wrong answer, answers after):", "met" if ok else "MISSED")
PY
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
done
