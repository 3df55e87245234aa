# SPDX-License-Identifier: MIT
"""``python -m dfft``: what this dfft was built with, and where it keeps the machine's wisdom.

    dfft: 0.1.0 (/path/to/site-packages/dfft)
    backends: cpu, cuda
    MPI library: Open MPI v4.1.4, package: Debian OpenMPI, ...
    MPI CUDA-aware: no
    NCCL: 2.21.5
    FFTW: fftw-3.3.10-sse2-avx
    wisdom directory: /home/me/.cache/dfft
    dfft wisdom and calibrations: /home/me/.cache/dfft/dfft-wisdom-host.json (not written yet)
                                  (the file DFFT_WISDOM names, if set; none with DFFT_WISDOM=off)
    FFTW wisdom (double): /home/me/.cache/dfft/fftw-host.wisdom
    FFTW wisdom (float): /home/me/.cache/dfft/fftwf-host.wisdom (not written yet)
    FFTW-MPI interface: /usr/local/lib/dfft-fftw-mpi (LD_LIBRARY_PATH=... runs FFTW-MPI programs on dfft)

Under mpirun only rank 0 prints.
"""

import os
import sys

from . import _dfft


def _file(path, env=None):
    if not path:
        if env and os.environ.get(env) == "off":
            return f"none ({env}=off)"
        return "none (no directory known: set DFFT_WISDOM_DIR)"
    return path if os.path.exists(path) else f"{path} (not written yet)"


def fftw_mpi_folder():
    """The folder of dfft's libfftw3_mpi.so.3 (docs/fftw-mpi.md) or None: the build tree beside
    this package (build/python/dfft -> build/lib/dfft-fftw-mpi), this environment's prefix, the
    usual install prefixes."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "..", "lib", "dfft-fftw-mpi")]
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        candidates += [os.path.join(prefix, "lib", "dfft-fftw-mpi"),
                       os.path.join(prefix, "lib", "x86_64-linux-gnu", "dfft-fftw-mpi")]
    for c in candidates:
        if os.path.exists(os.path.join(c, "libfftw3_mpi.so.3")):
            return os.path.normpath(c)
    return None


def lines():
    """The report, one ``name: value`` line each (the names are those above)."""
    b = _dfft.build_info()
    backends = "cpu, cuda" if b["cuda"] else "cpu (built without CUDA)"
    if b["cuda"]:
        backends += f" ({_dfft.cuda_device_count()} GPUs visible)"
    return [
        f"dfft: {b['version']} ({os.path.dirname(os.path.abspath(__file__))})",
        f"backends: {backends}",
        f"MPI library: {b['mpi_library']}",
        f"MPI CUDA-aware: {'yes' if b['mpi_cuda_aware'] else 'no'}",
        f"NCCL: {b['nccl_version'] if b['nccl'] else 'not built in'}",
        f"FFTW: {b['fftw_version']}",
        f"wisdom directory: {b['wisdom_dir'] or 'none (set DFFT_WISDOM_DIR)'}",
        f"dfft wisdom and calibrations: {_file(b['wisdom_file'], 'DFFT_WISDOM')}",
        f"FFTW wisdom (double): {_file(b['fftw_wisdom_file'])}",
        f"FFTW wisdom (float): {_file(b['fftwf_wisdom_file'])}",
        "FFTW-MPI interface: " + (f"{fftw_mpi_folder()} (LD_LIBRARY_PATH=<it> runs FFTW-MPI programs on dfft)"
                                  if fftw_mpi_folder() else
                                  "not found (built with dfft where FFTW's MPI header is installed: docs/fftw-mpi.md)"),
    ]


def main():
    from mpi4py import MPI

    report = lines()
    if MPI.COMM_WORLD.rank == 0:
        print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
