#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configuring dfft where the development files of a dependency are missing stops with a message
# naming the package to install (what `pip install .` shows too). FFTW is hidden from pkg-config
# (an empty search directory), MPI from find_package (CMAKE_DISABLE_FIND_PACKAGE_MPI).
# Usage: missing_deps_test.sh SOURCE_DIR CMAKE
set -euo pipefail
src=$1
cmake=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/no-pc"
# Only the dependency checks run: the configuration stops at them.
args=(-DDFFT_CUDA=OFF -DDFFT_PYTHON=OFF -DDFFT_TESTS=OFF -DDFFT_APPS=OFF)

expect() {  # expect NAME MESSAGE COMMAND...: the command fails and prints MESSAGE
  local name=$1 message=$2
  shift 2
  if "$@" >"$tmp/$name.log" 2>&1; then
    echo "FAIL $name: configured without it"
    return 1
  fi
  # CMake wraps long messages: compare with the whitespace squeezed.
  if ! tr -s ' \n' '  ' <"$tmp/$name.log" | grep -qF "$message"; then
    echo "FAIL $name: no '$message' in:"
    cat "$tmp/$name.log"
    return 1
  fi
  echo "ok $name: $message"
}

expect fftw "FFTW 3 development files not found: install libfftw3-dev (Debian/Ubuntu) or fftw (conda)" \
  env PKG_CONFIG_LIBDIR="$tmp/no-pc" PKG_CONFIG_PATH= "$cmake" -S "$src" -B "$tmp/fftw" "${args[@]}"
expect mpi "MPI development files (C++) not found: install libopenmpi-dev (Debian/Ubuntu) or openmpi or mpich (conda)" \
  "$cmake" -S "$src" -B "$tmp/mpi" -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON "${args[@]}"
