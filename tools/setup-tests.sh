#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine that has only Rust:
# the Debian packages the tests run (wget, Python with venv, Chromium, wrk, PostgreSQL), then
# the Python tools the interop tests compare ldwarc against (.ci/setup-interop.sh: two venvs
# and the pywb sample archive). Idempotent: what is present is not installed again.
#
# The README's test command is `bash tools/setup-tests.sh && cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v wget >/dev/null 2>&1 || missing+=(wget)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# `python3 -m venv` needs ensurepip, which Debian ships separately.
python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# The npm `hdt` package compiles hdt-cpp (the HDT snapshot test's reader) with node-gyp.
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
# Java for the PySpark example's test (tests/columnar.rs, examples/spark_statements_per_host.py).
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
# Debian keeps initdb/pg_ctl in /usr/lib/postgresql/<version>/bin, off PATH; the tests find them.
command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null \
  || missing+=(postgresql)

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
      echo "setup-tests: need root (or sudo) to install ${missing[*]}" >&2
      exit 2
    }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

bash .ci/setup-interop.sh
