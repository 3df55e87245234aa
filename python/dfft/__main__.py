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
    FFTW wisdom (double): /home/me/.cache/dfft/fftw-host.wisdom
    FFTW wisdom (float): /home/me/.cache/dfft/fftwf-host.wisdom (not written yet)

Under mpirun only rank 0 prints.
"""

import os
import sys

from . import _dfft


def _file(path):
    if not path:
        return "none (no directory known: set DFFT_WISDOM_DIR)"
    return path if os.path.exists(path) else f"{path} (not written yet)"


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
        f"dfft wisdom and calibrations: {_file(b['wisdom_file'])}",
        f"FFTW wisdom (double): {_file(b['fftw_wisdom_file'])}",
        f"FFTW wisdom (float): {_file(b['fftwf_wisdom_file'])}",
    ]


def main():
    from mpi4py import MPI

    report = lines()
    if MPI.COMM_WORLD.rank == 0:
        print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
