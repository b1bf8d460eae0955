#!/usr/bin/env bash
# Opt-in, NOT for CI: installs vLLM 0.33.0's tool/reasoning parsers with the
# smallest closure that imports them on a CPU-only machine. vLLM cannot be
# imported without torch, and PyPI's torch 2.14.0 is the CUDA 13 build, which
# does not import without NVIDIA's CUDA wheels (see README.md). Cost measured
# on a 2-core machine: ~3.2 GB download, ~3 minutes, ~5.8 GB of .venv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install --no-deps -r "$here/requirements.txt"
"$here/.venv/bin/python" "$here/smoke.py"
