# SPDX-License-Identifier: MIT
"""The Navier-Stokes example's nonlinear term against a serial numpy evaluation of another form
of it: P[u x omega] = P[-(u . grad) u] (they differ by the gradient of |u|^2/2, which the
projection removes), dealiased by the same 2/3 rule."""

import pathlib
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
import taylor_green  # noqa: E402

COMM = MPI.COMM_WORLD


def serial_convective(u, n):
    """-P[(u . grad) u] of a (3, n, n, n) field, spectral (rfftn), 2/3-dealiased."""
    k = np.meshgrid(np.fft.fftfreq(n, 1.0 / n), np.fft.fftfreq(n, 1.0 / n),
                    np.fft.rfftfreq(n, 1.0 / n), indexing="ij")
    keep = (np.abs(k[0]) < n / 3) & (np.abs(k[1]) < n / 3) & (k[2] < n / 3)
    uh = np.fft.rfftn(u, axes=(1, 2, 3)) * keep
    u = np.fft.irfftn(uh, s=(n, n, n), axes=(1, 2, 3))
    grad = [[np.fft.irfftn(1j * k[j] * uh[i], s=(n, n, n)) for j in range(3)] for i in range(3)]
    adv = np.stack([sum(u[j] * grad[i][j] for j in range(3)) for i in range(3)])
    N = -np.fft.rfftn(adv, axes=(1, 2, 3)) * keep
    k2 = np.where(k[0] ** 2 + k[1] ** 2 + k[2] ** 2 == 0, 1, k[0] ** 2 + k[1] ** 2 + k[2] ** 2)
    kn = (k[0] * N[0] + k[1] * N[1] + k[2] * N[2]) / k2
    return N - np.stack([k[0] * kn, k[1] * kn, k[2] * kn])


def test_nonlinear_term_matches_the_convective_form():
    n = 15  # odd: no Nyquist mode
    rng = np.random.default_rng(9)
    u = rng.standard_normal((3, n, n, n))
    s = taylor_green.Solver(COMM, n, 0.1)
    U = s.spec.copy_empty()
    U.global_view()[...] = np.fft.rfftn(u, axes=(1, 2, 3))[(slice(None),) + U.global_slices]
    U = U.global_view() * s.keep
    got = s.nonlinear(U)
    want = serial_convective(u, n)[(slice(None),) + s.spec.global_slices]
    err = COMM.allreduce(float(np.max(np.abs(got - want), initial=0.0)), op=MPI.MAX)
    scale = COMM.allreduce(float(np.max(np.abs(want), initial=0.0)), op=MPI.MAX)
    assert err < 1e-12 * scale
