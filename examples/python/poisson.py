# SPDX-License-Identifier: MIT
"""Spectral Poisson solver on the periodic cube [0, 2*pi)^3 with dfft (docs/python.md).

Solves laplacian(u) = f for f = -(1 + 4 + 9) * sin(x) cos(2y) sin(3z), whose zero-mean solution
is u = sin(x) cos(2y) sin(3z): forward r2c transform of f, divide by -|k|^2 (the k = 0 mode set
to 0), inverse transform, and print the largest error against u over all ranks.

    cmake -S . -B build && cmake --build build      # builds build/python/dfft
    mpirun -np 4 python3 examples/python/poisson.py [n]

Exits with status 1 when the error is above 1e-10 (so ctest can run it).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import example_env  # noqa: E402

example_env.bootstrap()

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import dfft  # noqa: E402


def local_grid(n, box, order):
    """Coordinates (global axis order) of this rank's box, arrays shaped in memory order."""
    lo, hi = box
    axes = [2 * np.pi * np.arange(lo[a], hi[a]) / n for a in range(3)]
    return [np.transpose(c, order) for c in np.meshgrid(*axes, indexing="ij")]


def main():
    comm = MPI.COMM_WORLD
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    plan = dfft.Plan(comm, (n, n, n), decomposition="pencil")

    x, y, z = local_grid(n, plan.input_box, plan.input_order)
    exact = np.sin(x) * np.cos(2 * y) * np.sin(3 * z)
    f = -14.0 * exact

    # Wave numbers of this rank's spectral box: full axes use fftfreq, the halved last axis
    # rfftfreq (integers, since the box is 2*pi long).
    lo, hi = plan.output_box
    k = [np.fft.fftfreq(n, 1.0 / n), np.fft.fftfreq(n, 1.0 / n), np.fft.rfftfreq(n, 1.0 / n)]
    kk = np.meshgrid(*(k[a][lo[a]:hi[a]] for a in range(3)), indexing="ij")
    k2 = np.transpose(kk[0] ** 2 + kk[1] ** 2 + kk[2] ** 2, plan.output_order)

    fk = plan.forward(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        uk = np.where(k2 > 0, -fk / k2, 0.0)
    u = plan.inverse(uk)

    local = float(np.max(np.abs(u - exact))) if u.size else 0.0
    err = comm.allreduce(local, op=MPI.MAX)
    if comm.rank == 0:
        print(f"poisson: n={n}^3 on {comm.size} ranks, grid {plan.grid}, max error {err:.3e}")
    return 0 if err < 1e-10 else 1


if __name__ == "__main__":
    sys.exit(main())
