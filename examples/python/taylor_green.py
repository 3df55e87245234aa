# SPDX-License-Identifier: MIT
"""Pseudo-spectral 3-D incompressible Navier-Stokes on the periodic cube [0, 2*pi)^3 with dfft
(docs/python.md, "A pseudo-spectral solver").

    du/dt = P[u x omega] + nu laplacian(u),   omega = curl u,   div u = 0

P projects onto divergence-free fields (it takes the pressure). The product u x omega is formed on
the grid and dealiased by the 2/3 rule: spectral modes with |k_i| >= n/3 on any axis are set to
zero. Time stepping: integrating-factor RK4 (the viscous decay is exact). Velocity fields are
dfft.DistArray vector fields (a leading component axis of 3).

Two known answers are checked, and the run fails (exit status 1) when either is missed:
* 2-D Taylor-Green, u = (sin x cos y, -cos x sin y, 0): an exact solution of the nonlinear
  equations (its nonlinear term is a gradient), u(t) = u(0) exp(-2 nu t); the computed field and
  its energy E = <|u|^2>/2 against exp(-2 nu t) and E(0) exp(-4 nu t).
* 3-D Taylor-Green, u = (sin x cos y cos z, -cos x sin y cos z, 0): the nonlinear term moves
  energy between modes without changing it (its transfer sum vanishes at every stage), and the
  energy balance E(T) - E(0) = -integral of the dissipation nu <|grad u|^2> holds (Simpson's rule).

    mpirun -np 4 python3 examples/python/taylor_green.py [--n 32] [--steps 10] [--h5 tg.h5]
    mpirun -np 3 python3 examples/python/taylor_green.py --check tg.h5

--h5 writes the final 3-D velocity (dataset "u", shape (3, n, n, n)) in parallel, with the
sha256 of its bytes as an attribute; --check reads such a file on this run's rank count and
layout, and compares it bitwise with that digest and with h5py's serial read, and to round-off
with this run's own solution.
"""

import argparse
import hashlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import example_env  # noqa: E402

example_env.bootstrap()

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import dfft  # noqa: E402


class Solver:
    def __init__(self, comm, n, nu):
        self.comm, self.n, self.nu = comm, n, nu
        self.plan = dfft.Plan(comm, (n, n, n), decomposition="pencil")
        self.phys = dfft.DistArray(self.plan, "input", components=(3,))
        self.spec = dfft.DistArray(self.plan, "output", components=(3,))
        lo, hi = self.spec.lo, self.spec.hi
        full, half = np.fft.fftfreq(n, 1.0 / n), np.fft.rfftfreq(n, 1.0 / n)
        self.k = np.ix_(full[lo[0]:hi[0]], full[lo[1]:hi[1]], half[lo[2]:hi[2]])
        kx, ky, kz = self.k
        self.k2 = kx ** 2 + ky ** 2 + kz ** 2
        self.keep = (np.abs(kx) < n / 3) & (np.abs(ky) < n / 3) & (kz < n / 3)
        # The r2c half spectrum holds every mode with 0 < kz < n/2 for itself and its conjugate.
        self.weight = np.where((kz == 0) | (kz == n // 2), 1.0, 2.0)

    def field(self, f):
        """Spectral (3,) + box array of the velocity f(x, y, z) -> (ux, uy, uz)."""
        h = 2 * np.pi / self.n
        u = self.phys.copy_empty().fill_from_global(
            lambda i, j, k: np.stack(np.broadcast_arrays(*f(i * h, j * h, k * h))))
        return u.forward(self.plan).global_view() * self.keep

    def physical(self, U):
        s = self.spec.copy_empty()
        s.global_view()[...] = U
        return s.inverse(self.plan)

    def nonlinear(self, U):
        """P[u x omega], dealiased."""
        kx, ky, kz = self.k
        W = 1j * np.stack([ky * U[2] - kz * U[1], kz * U[0] - kx * U[2], kx * U[1] - ky * U[0]])
        c = self.phys.copy_empty()
        c.global_view()[...] = np.cross(self.physical(U).global_view(),
                                        self.physical(W).global_view(), axis=0)
        N = c.forward(self.plan).global_view() * self.keep
        kn = (kx * N[0] + ky * N[1] + kz * N[2]) / np.where(self.k2 == 0, 1.0, self.k2)
        return N - np.stack(np.broadcast_arrays(kx * kn, ky * kn, kz * kn))

    def sum(self, a):
        """Sum over the global spectrum of a per-mode quantity, both halves counted."""
        return self.comm.allreduce(float(np.sum(self.weight * a)), op=MPI.SUM) / self.n ** 6

    def energy(self, U):
        return 0.5 * self.sum(np.sum(np.abs(U) ** 2, axis=0))

    def dissipation(self, U):
        return self.nu * self.sum(self.k2 * np.sum(np.abs(U) ** 2, axis=0))

    def transfer(self, U, N):
        """Energy the nonlinear term adds, relative to the largest it could (0 when conserved)."""
        t = self.sum(np.real(np.sum(np.conj(U) * N, axis=0)))
        return abs(t) / np.sqrt(2 * self.energy(U) * 2 * self.energy(N) + 1e-300)

    def step(self, U, dt):
        """One integrating-factor RK4 step; returns the new field and the largest transfer."""
        e = np.exp(-self.nu * self.k2 * dt / 2)
        a = dt * self.nonlinear(U)
        b = dt * self.nonlinear(e * (U + a / 2))
        c = dt * self.nonlinear(e * U + b / 2)
        d = dt * self.nonlinear(e * e * U + e * c)
        t = max(self.transfer(U, a), self.transfer(e * U + b / 2, c))
        return e * e * U + (e * e * a + 2 * e * (b + c) + d) / 6, t


def run_taylor_green_2d(s, steps, dt):
    U0 = s.field(lambda x, y, z: (np.sin(x) * np.cos(y), -np.cos(x) * np.sin(y), 0 * z))
    U = U0
    for _ in range(steps):
        U, _ = s.step(U, dt)
    T = steps * dt
    err = np.max(np.abs(U - U0 * np.exp(-2 * s.nu * T)), initial=0.0)
    err = s.comm.allreduce(float(err), op=MPI.MAX) / (s.n ** 3 / 8)  # |U0| peaks at n^3/8
    e_err = abs(s.energy(U) / (s.energy(U0) * np.exp(-4 * s.nu * T)) - 1)
    return err, e_err


def run_taylor_green_3d(s, steps, dt):
    U = s.field(lambda x, y, z: (np.sin(x) * np.cos(y) * np.cos(z),
                                 -np.cos(x) * np.sin(y) * np.cos(z), 0 * z))
    energy, dissipation, transfer = [s.energy(U)], [s.dissipation(U)], 0.0
    for _ in range(steps):
        U, t = s.step(U, dt)
        energy.append(s.energy(U))
        dissipation.append(s.dissipation(U))
        transfer = max(transfer, t)
    w = np.ones(steps + 1)
    w[1:-1:2], w[2:-1:2] = 4, 2  # Simpson's rule (steps even)
    dissipated = dt / 3 * float(np.dot(w, dissipation))
    balance = abs((energy[0] - energy[-1]) / dissipated - 1)
    return U, energy, transfer, balance


def write(s, U, path):
    """The physical velocity to dataset "u" of `path`, with the sha256 of its bytes."""
    u = s.physical(U)
    u.write_hdf5(path, "u", mode="w")
    digest = s.comm.bcast(sha256(s, u))
    h5py = dfft.distarray._h5py()
    with h5py.File(path, "a", driver="mpio", comm=s.comm) as f:
        f["u"].attrs["sha256"] = digest  # attributes are written collectively, same value
    return u


def sha256(s, u):
    """Digest of the global array's bytes (C order) on rank 0, None elsewhere."""
    n = s.n
    whole = u.redistribute(((0, 0, 0), (n, n, n) if s.comm.rank == 0 else (0, 0, 0)))
    return hashlib.sha256(whole.local.tobytes()).hexdigest() if s.comm.rank == 0 else None


def check(s, U, path):
    """Read `path` on this layout: bitwise equal to its digest and to h5py's serial read, and
    to round-off equal to this run's field. Returns the failures."""
    h5py = dfft.distarray._h5py()
    mine = s.physical(U)
    u = mine.copy_empty().read_hdf5(path, "u")
    failures = []
    with h5py.File(path, "r", driver="mpio", comm=s.comm) as f:
        written = f["u"].attrs["sha256"]
    if s.comm.bcast(sha256(s, u)) != written:
        failures.append("digest of the parallel read differs from the writer's")
    serial = None
    if s.comm.rank == 0:
        with h5py.File(path, "r") as f:
            serial = f["u"][...]
    whole = u.redistribute(((0, 0, 0), (s.n,) * 3 if s.comm.rank == 0 else (0, 0, 0)))
    if not s.comm.bcast(s.comm.rank != 0 or np.array_equal(whole.local, serial)):
        failures.append("parallel read differs from h5py's serial read")
    diff = s.comm.allreduce(float(np.max(np.abs(u.local - mine.local), initial=0.0)), op=MPI.MAX)
    if diff > 1e-12:
        failures.append(f"file differs from this run's solution by {diff:.2e}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--steps", type=int, default=10, help="even (Simpson's rule)")
    ap.add_argument("--dt", type=float, default=0.05)
    ap.add_argument("--nu", type=float, default=0.1)
    ap.add_argument("--h5", help="write the final 3-D velocity here")
    ap.add_argument("--check", help="read this file and compare it (see above)")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    s = Solver(comm, args.n, args.nu)
    steps = args.steps + args.steps % 2
    err2d, e2d = run_taylor_green_2d(s, steps, args.dt)
    U, energy, transfer, balance = run_taylor_green_3d(s, steps, args.dt)
    failures = [f"{what} {v:.2e} above {bound:.0e}" for what, v, bound in
                [("2-D Taylor-Green field error", err2d, 1e-12),
                 ("2-D Taylor-Green energy error", e2d, 1e-12),
                 ("3-D nonlinear energy transfer", transfer, 1e-12),
                 ("3-D energy balance error", balance, 1e-6)] if not v < bound]
    if args.h5:
        write(s, U, args.h5)
    if args.check:
        failures += check(s, U, args.check)
    if comm.rank == 0:
        print(f"taylor_green: n={args.n}^3 on {comm.size} ranks (grid {s.plan.grid}), "
              f"{steps} steps of {args.dt}, nu={args.nu}")
        print(f"  2-D exact solution: field error {err2d:.2e}, energy error {e2d:.2e}")
        print(f"  3-D: energy {energy[0]:.6f} -> {energy[-1]:.6f}, largest nonlinear transfer "
              f"{transfer:.2e}, energy balance error {balance:.2e}")
        for f in failures:
            print("  FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
