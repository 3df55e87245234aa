#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian/Ubuntu packages dfft needs to build, test and plot. Idempotent: when every
# package is already installed it returns at once without touching apt (no network, no root).
# CUDA is deliberately absent: it is optional and CMake detects it (DFFT_CUDA=AUTO).
#   bash scripts/install-deps.sh              # the packages below
#   bash scripts/install-deps.sh PKG ...      # these instead (scripts/install-peers.sh)
set -euo pipefail

PACKAGES=(
  build-essential     # C++20 compiler (g++ 12 on Debian 12) and make
  gfortran            # the Fortran interface's test (include/dfft/dfft.f90); optional for the library
  cmake               # build system (>= 3.20)
  pkg-config          # locates FFTW
  libopenmpi-dev      # MPI headers and libraries
  openmpi-bin         # mpirun, used by the tests and benchmarks
  libfftw3-dev        # local FFTs, double and float (libfftw3 + libfftw3f)
  libfftw3-mpi-dev    # FFTW's MPI header (dfft's libfftw3_mpi is built against it) and FFTW's own
                      #   MPI transform, the comparison benchmark's and the conformance tests' reference
  dpkg-dev            # apt-get source: FFTW's MPI test programs (scripts/fftw-mpi-check.sh)
  mpb-mpi             # a real FFTW-MPI application, run on dfft's libfftw3_mpi (scripts/mpb-check.sh)
  nlohmann-json3-dev  # JSON output of dfft bench
  libcli11-dev        # command-line parsing
  libgtest-dev        # unit and MPI tests
  python3             # plotting / result tools
  python3-numpy
  python3-scipy       #   scipy.fft.dctn/dstn: reference of the Python r2r norm tests
  python3-matplotlib
  python3-dev         # Python binding (python/): headers
  pybind11-dev        #   C++ <-> Python glue
  python3-mpi4py      #   communicators
  python3-pytest      #   its tests (ctest label python)
  python3-h5py-mpi    #   parallel HDF5 of dfft.DistArray (h5py on the system Open MPI and mpi4py)
  clang               # libFuzzer targets (fuzz/run.sh)
  libclang-rt-14-dev  #   their fuzzer/sanitizer runtimes
)

if [ $# -gt 0 ]; then
  PACKAGES=("$@")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  # dpkg -s succeeds for removed-but-not-purged packages too; check the status line.
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: apt-get not found; install the equivalents of: ${missing[*]}" >&2
  exit 1
fi
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: not root and no sudo; run as root or install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done"
