#!/usr/bin/env bash
# Creates .venv with everything the lesson needs. Called by `make lesson` / `make test` on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

# pycairo and manimpango build from source on Linux: they need Pango/Cairo headers.
if ! pkg-config --exists pangocairo 2>/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "setup: installing libpango1.0-dev (needed to build pycairo and manimpango)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpango1.0-dev pkg-config >/dev/null
  else
    echo "setup: Pango/Cairo headers are missing; run: sudo apt-get install -y libpango1.0-dev pkg-config" >&2
    exit 1
  fi
fi
# manim-voiceover imports pysox, which looks for the sox program at import and complains on every
# render without it; the lesson does not use sox (Piper writes the WAVs), so it is only installed
# where that is cheap (root with apt), and its absence is never an error.
if ! command -v sox >/dev/null && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sox >/dev/null 2>&1 \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sox >/dev/null 2>&1; } || true
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch is pinned to 2.13.0 in pyproject.toml: the CPU build, no multi-GB CUDA download.
.venv/bin/python -m pip install -q -e '.[dev]'
touch .venv/.installed
echo "setup: .venv ready"
