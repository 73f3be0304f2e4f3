#!/usr/bin/env bash
# Installs the tools the interop tests compare ldwarc against: a Python venv at .venv with
# warcio, fastwarc, cdxj-indexer, surt, rdflib, pyoxigraph, cdx-toolkit, pyRdfa3 and extruct from PyPI,
# microdata-rdf-streaming-parser, n3 and hdt (hdt-cpp) from npm at .npm-tools, and the pywb 2.10.0
# sample archive (from the pywb wheel) under .ci/cache, and pywb 2.10.0 itself in a second venv
# at .venv-pywb, with py-wacz 0.6.0 (the `wacz` validator, which depends on pywb), and Comunica
# 1.22.3 from npm under .npm-tools. Idempotent.
#
# pywb gets its own venv because it conflicts with fastwarc: pywb requires `brotlipy`, fastwarc
# requires Google's `brotli`, and both install a top-level module named `brotli` (with different
# APIs), so whichever is installed last breaks the other's users.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/pip install --quiet --disable-pip-version-check \
  'warcio==1.8.1' 'fastwarc==2.0.1' 'cdxj-indexer==1.5.0' 'surt==0.3.1' 'rdflib==7.6.0' 'pyoxigraph==0.5.13' \
  'cdx-toolkit==0.9.39' 'pyRdfa3==3.6.5' 'extruct==0.18.0' \
  'pyarrow==26.0.1' 'duckdb==2.0.0' 'pyspark==4.3.0' 'pyshacl==0.40.1'
# moto's S3 server (moto_server) and boto3 for the object-storage tests (tests/object_store.rs).
.venv/bin/pip install --quiet --disable-pip-version-check 'moto[server]==5.2.5'

if [ ! -x .venv-pywb/bin/python ]; then
  "$PYTHON" -m venv .venv-pywb
fi
.venv-pywb/bin/pip install --quiet --disable-pip-version-check 'pywb==2.10.0' 'wacz==0.6.0' 'cryptography==47.0.0'

sample=.ci/cache/pywb-2.10.0/sample_archive/warcs
if [ ! -d "$sample" ]; then
  tmp=$(mktemp -d)
  .venv/bin/pip download --quiet --disable-pip-version-check --no-deps -d "$tmp" 'pywb==2.10.0'
  mkdir -p .ci/cache/pywb-2.10.0
  .venv/bin/python - "$tmp"/pywb-2.10.0-*.whl .ci/cache/pywb-2.10.0 <<'PY'
import sys, zipfile, pathlib
wheel, dest = sys.argv[1], pathlib.Path(sys.argv[2])
prefix = "pywb-2.10.0.data/data/sample_archive/"
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = dest / "sample_archive" / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))
PY
  rm -rf "$tmp"
fi
# npm tools, pinned, in a folder of the checkout: the Microdata processor the embedded-data
# interop test compares against (with the N-Quads writer its runner script uses), and Comunica
# 1.22.3, the last release whose default config includes the Memento actor, for the Triple
# Pattern Fragments test (`comunica-sparql URL -d DATE QUERY`).
if [ ! -d .npm-tools/node_modules/microdata-rdf-streaming-parser ] \
  || [ ! -x .npm-tools/node_modules/.bin/comunica-sparql ]; then
  mkdir -p .npm-tools
  npm install --prefix .npm-tools --no-audit --no-fund --silent \
    'microdata-rdf-streaming-parser@3.0.0' 'n3@1.17.4' '@comunica/actor-init-sparql@1.22.3'
fi
# hdt-cpp through its Node.js binding, the npm `hdt` package (3.3.1 builds hdt-cpp from its C++
# source with node-gyp: g++, make and python3, which tools/setup-tests.sh installs; 8 minutes
# on a loaded two-core machine), the HDT reader `ldwarc snapshot --format hdt` is tested with.
if [ ! -f .npm-tools/node_modules/hdt/build/Release/hdt.node ]; then
  mkdir -p .npm-tools
  npm install --prefix .npm-tools --no-audit --no-fund --silent 'hdt@3.3.1'
fi

# The TREEcg LDES client 0.3.0 that replicates `ldwarc serve`'s /ldes in the publishing test,
# in a folder of its own so that its dependencies (n3, rdf-dereference) do not move the ones
# above.
if [ ! -x .npm-tools/ldes/node_modules/.bin/ldes-client ]; then
  mkdir -p .npm-tools/ldes
  npm install --prefix .npm-tools/ldes --no-audit --no-fund --silent 'ldes-client@0.3.0'
fi

echo "interop tools ready: $(.venv/bin/python -c 'from importlib.metadata import version as v; print(", ".join(f"{p} {v(p)}" for p in ("warcio", "fastwarc", "cdxj-indexer", "surt", "rdflib", "pyoxigraph", "cdx-toolkit", "pyRdfa3", "extruct", "pyarrow", "duckdb", "pyspark", "pyshacl")))')"
echo "comunica ready:$(.npm-tools/node_modules/.bin/comunica-sparql --version 2>&1 | grep -m1 'Init Actor' | tr -s ' |' ' ')"
echo "pywb ready: $(.venv-pywb/bin/python -c 'import pywb; from importlib.metadata import version; print("pywb", pywb.__version__, "wacz", version("wacz"))')"
