#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A CUDA-aware Open MPI from Debian's source package, for machines whose MPI is not built with CUDA
# (MPI then reads and writes device memory directly: dfft's --staging cuda-aware).
#
#   scripts/build-cuda-aware-mpi.sh fetch              # where Debian's archive is reachable:
#                                                      #   source package into .deps/openmpi-src/
#   scripts/build-cuda-aware-mpi.sh build PREFIX [SRC] # configure --with-cuda, make, install into PREFIX
#
# The two steps are separate because GPU machines often reach no package archive: fetch where one is
# reachable, carry .deps/openmpi-src/ (about 7 MB) and build there (about 5 minutes with 16 cores; the
# installed prefix is about 15 MB). Then build dfft against it with
#   cmake -DMPI_C_COMPILER=PREFIX/bin/mpicc -DMPI_CXX_COMPILER=PREFIX/bin/mpicxx ...
# and run with PREFIX/bin/mpirun. Nothing is downloaded from outside Debian's archive.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRCDIR="$ROOT/.deps/openmpi-src"
cmd=${1:?usage: build-cuda-aware-mpi.sh fetch | build PREFIX [SRCDIR]}

case $cmd in
fetch)
  list=/etc/apt/sources.list.d/dfft-debian-src.sources
  if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$codename" > "$list"
    echo "build-cuda-aware-mpi: added $list (deb-src for $codename main)"
  fi
  apt-get update -qq
  mkdir -p "$SRCDIR" && cd "$SRCDIR"
  apt-get source --download-only openmpi
  ls -l "$SRCDIR"
  ;;
build)
  PREFIX=$(realpath -m "${2:?prefix}")
  SRC=${3:-$SRCDIR}
  CUDA=${CUDA_HOME:-/usr/local/cuda}
  [ -x "$CUDA/bin/nvcc" ] || { echo "build-cuda-aware-mpi: no CUDA toolkit at $CUDA (set CUDA_HOME)" >&2; exit 1; }
  orig=$(ls "$SRC"/openmpi_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$orig" ] || { echo "build-cuda-aware-mpi: no openmpi_*.orig.tar.* in $SRC (run the fetch step)" >&2; exit 1; }
  work=$(mktemp -d)
  tar xf "$orig" -C "$work"
  cd "$work"/openmpi-*
  # Fortran bindings, OpenSHMEM and UCX are not needed by dfft and would lengthen the build. The
  # bundled hwloc, libevent and PMIx keep the prefix free of the build machine's versions of them, so
  # that it can be built on one machine and carried (as a tarball) to another with the same CUDA.
  ./configure --prefix="$PREFIX" --with-cuda="$CUDA" --disable-mpi-fortran --disable-oshmem \
    --without-ucx --enable-mca-no-build=btl-uct --with-hwloc=internal --with-libevent=internal \
    --with-pmix=internal > "$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log"; exit 1; }
  make -j"$(nproc)" > "$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
  make install > "$work/install.log" 2>&1 || { tail -20 "$work/install.log"; exit 1; }
  rm -rf "$work"
  "$PREFIX/bin/ompi_info" --parsable --all | grep 'mpi_built_with_cuda_support:value' ||
    { echo "build-cuda-aware-mpi: built, but ompi_info reports no CUDA support" >&2; exit 1; }
  ;;
*) echo "usage: build-cuda-aware-mpi.sh fetch | build PREFIX [SRCDIR]" >&2; exit 2 ;;
esac
