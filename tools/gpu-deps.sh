#!/usr/bin/env bash
# Debian packages the GPU machine lacks (it cannot download): fetched here into .deps/
# (git-ignored), unpacked there by tools/gpu-final.sh. Today: pybind11 headers for the binding.
set -euo pipefail
cd "$(dirname "$0")/.." && mkdir -p .deps && cd .deps
apt-get download pybind11-dev
