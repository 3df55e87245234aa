#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the optional peer libraries that benchmarks time beside dfft (docs/benchmarks.md);
# nothing in the build or the tests needs them, so CI does not run this.
#   mpi4py-fft  PyPI, built from source against the system FFTW, for the Python interpreter of
#               dfft's binding (the defaults-python suite, benchmarks/python/defaults_vs_mpi4pyfft.py)
# FFTW-MPI (the other peer) is a Debian package that scripts/install-deps.sh already installs.
#
#   bash scripts/install-peers.sh [BUILD_DIR]     # default build/
# Environment: PYTHON (interpreter; default the one BUILD_DIR/python was built for, else
# /usr/bin/python3). Idempotent: returns at once when the pinned version already imports.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MPI4PY_FFT_VERSION=2.0.6
BUILD="${1:-build}"
if [ -z "${PYTHON:-}" ]; then
  if [ -f "$BUILD/python/python-interpreter.txt" ]; then
    PYTHON="$(cat "$BUILD/python/python-interpreter.txt")"
  else
    PYTHON=/usr/bin/python3
  fi
fi

have="$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("mpi4py-fft"))' 2>/dev/null || true)"
if [ "$have" = "$MPI4PY_FFT_VERSION" ] && "$PYTHON" -c 'import mpi4py_fft' 2>/dev/null; then
  echo "install-peers: mpi4py-fft $have already installed for $PYTHON"
  exit 0
fi

# Build dependencies from Debian, not PyPI: the extension is compiled against the numpy and mpi4py
# that dfft's binding uses (a build-isolated pip would compile against a newer numpy from PyPI,
# whose binary interface the Debian numpy does not provide).
bash scripts/install-deps.sh cython3 libfftw3-dev python3-dev python3-numpy python3-mpi4py python3-pip

# --break-system-packages: Debian 12 marks its interpreter externally managed; --no-deps keeps
# pip from replacing the Debian numpy/mpi4py.
echo "install-peers: mpi4py-fft $MPI4PY_FFT_VERSION for $PYTHON"
"$PYTHON" -m pip install --no-build-isolation --no-deps --break-system-packages \
  "mpi4py-fft==$MPI4PY_FFT_VERSION"
"$PYTHON" -c 'import mpi4py_fft; print("install-peers: mpi4py-fft", mpi4py_fft.__version__, "imports")'
