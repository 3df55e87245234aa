# SPDX-License-Identifier: MIT
"""dfft's Python Plan and mpi4py-fft's PFFT, both as a new user gets them (default arguments),
timed in one MPI job: double real-to-complex forward and backward (docs/results/defaults.md).

    mpirun -np 2 python3 benchmarks/python/defaults_vs_mpi4pyfft.py [--size 256 256 256]
        [--warmup 2] [--reps 12] [--libraries dfft,mpi4py-fft] [--json FILE] [--build DIR]

What each library is given:
- dfft: `dfft.Plan(comm, shape)`; `plan.forward(u, out=uk)`, `plan.inverse(uk, out=v)`. Its norm
  is "backward": the forward is unscaled, the inverse scales by 1/N.
- mpi4py-fft: `PFFT(comm, shape, dtype=float)` (FFTW_MEASURE, one thread, the decomposition
  its default grid gives); `fft.forward(u, uk)`, `fft.backward(uk, v)` with arrays from
  `newDistArray`, as its documentation writes a time step. Its forward scales by 1/N (the
  default `normalize=True`), and that multiplication is part of its time: it is what its user gets.

The libraries alternate inside every repetition (dfft forward, dfft inverse, mpi4py-fft forward,
mpi4py-fft backward), so both see the same state of the machine. Every call is timed between
barriers, the time of a repetition is the largest over the ranks, and each record holds the
median, min and max over the repetitions after the warm-up. Plan construction is timed once
(`plan_ms`, largest over ranks). The results are checked before timing: the round trip of each
library, and dfft's forward against N times mpi4py-fft's where both hold the same global box.

One JSON line per library and direction (`--json`, written by rank 0, the file truncated first),
through tools/records.py: a peer library's record of docs/results-format.md (library `dfft-python`
or `mpi4py-fft`, direction, size, ranks, time_ms with its statistics, samples_ms, noisy, plan_ms,
warmup, reps, roundtrip_error (relative L2; also `error` on the inverse record), ...), plus
defaults, agreement (dfft vs mpi4py-fft, relative max; null where the boxes differ), options (what
the plan chose) and machine. Exit status 1 when a check fails.
"""

import argparse
import json
import os
import pathlib
import platform
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, nargs=3, default=[256, 256, 256], metavar="N")
    ap.add_argument("--warmup", type=int, default=2, help="untimed calls per direction (default 2)")
    ap.add_argument("--reps", type=int, default=12, help="timed calls per direction (default 12)")
    ap.add_argument("--libraries", default="dfft,mpi4py-fft",
                    help="comma-separated: dfft, mpi4py-fft (default both)")
    ap.add_argument("--json", help="write the records to this file (JSON lines, truncated first)")
    ap.add_argument("--build", help="build directory holding python/dfft (default build/)")
    args = ap.parse_args(argv)
    args.libraries = [s for s in args.libraries.split(",") if s]
    unknown = set(args.libraries) - {"dfft", "mpi4py-fft"}
    if unknown or not args.libraries:
        ap.error("--libraries: unknown %s; allowed: dfft, mpi4py-fft" % sorted(unknown))
    if args.reps < 1 or args.warmup < 0 or min(args.size) < 2:
        ap.error("--reps >= 1, --warmup >= 0, sizes >= 2")
    return args


ARGS = parse_args(sys.argv[1:])
if ARGS.build:
    os.environ["DFFT_BUILD_DIR"] = os.path.abspath(ARGS.build)
# The examples' start-up: finds build/python and reruns this script with the interpreter of the
# binding when the python3 that started it lacks numpy or mpi4py.
sys.path.insert(0, str(HERE.parents[1] / "examples" / "python"))
import example_env  # noqa: E402
sys.path.insert(0, str(HERE.parents[1] / "tools"))
import records as records_io  # noqa: E402  (the record writer and its statistics)

example_env.bootstrap()

import dfft  # noqa: E402  (first: it loads the MPI library it was linked with before mpi4py)
import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402


def timed(comm, call):
    """Seconds of one collective call: between barriers, the largest over the ranks."""
    comm.Barrier()
    t0 = time.perf_counter()
    call()
    t = time.perf_counter() - t0
    return comm.allreduce(t, op=MPI.MAX)


class DfftCase:
    name = "dfft-python"

    def __init__(self, comm, shape, u_global):
        self.plan = dfft.Plan(comm, shape)
        self.u = self.plan.local_input(u_global)
        self.uk = np.empty(self.plan.output_shape, np.complex128)
        self.v = np.empty_like(self.u)
        self.norm = str(self.plan.options["norm"])

    def forward(self):
        self.plan.forward(self.u, out=self.uk)

    def inverse(self):
        self.plan.inverse(self.uk, out=self.v)

    def spectrum_box(self):
        """(lo, hi) of the local spectrum in global axis order, and the array in that order."""
        order = self.plan.output_order
        return self.plan.output_box, np.transpose(self.uk, np.argsort(order))

    def options(self):
        keep = ("decomposition", "variant", "methods", "effort", "threads", "fftw_wisdom")
        chosen = {k: v for k, v in self.plan.options.items() if k in keep}
        return json.loads(json.dumps(dict(chosen, grid=list(self.plan.grid)), default=str))


class Mpi4pyFftCase:
    name = "mpi4py-fft"
    norm = "forward"  # PFFT.forward scales by 1/N unless normalize=False is passed

    def __init__(self, comm, shape, u_global):
        from mpi4py_fft import PFFT, newDistArray
        self.fft = PFFT(comm, shape, dtype=float)
        self.u = newDistArray(self.fft, False)
        self.u[...] = u_global[self.fft.local_slice(False)]
        self.uk = newDistArray(self.fft, True)
        self.v = newDistArray(self.fft, False)

    def forward(self):
        self.fft.forward(self.u, self.uk)

    def inverse(self):
        self.fft.backward(self.uk, self.v)

    def spectrum_box(self):
        s = self.fft.local_slice(True)
        return (tuple(x.start for x in s), tuple(x.stop for x in s)), np.asarray(self.uk)

    def options(self):
        import mpi4py_fft
        return {"version": mpi4py_fft.__version__,
                "grid": [self.fft.subcomm[i].Get_size() for i in range(len(self.fft.subcomm))],
                "planner_effort": "FFTW_MEASURE"}


def fftw_threads_first():
    """mpi4py-fft calls fftw_plan_with_nthreads before each plan; while FFTW's threads are not
    initialised, FFTW (3.3.9 and later) answers that with fftw_cleanup() and then
    fftw_init_threads(), and fftw_cleanup() leaves every plan made before it undefined: dfft's
    plans crashed in fftw_destroy_plan at exit. A throwaway plan of mpi4py-fft's, made before
    any dfft plan, takes that step while no other plan exists (in any order of the libraries)."""
    from mpi4py_fft.fftw.factory import get_planned_FFT
    from mpi4py_fft.fftw.utilities import FFTW_ESTIMATE
    get_planned_FFT(np.zeros(4), np.zeros(3, np.complex128), flags=(FFTW_ESTIMATE,))


def relative_l2(comm, a, b):
    num = comm.allreduce(float(np.sum(np.abs(a - b) ** 2)), op=MPI.SUM)
    den = comm.allreduce(float(np.sum(np.abs(b) ** 2)), op=MPI.SUM)
    return (num / den) ** 0.5 if den else num ** 0.5


def agreement(comm, cases, n_total):
    """max |dfft - N * mpi4py-fft| / max |dfft| over the ranks, when every rank holds the same
    global box in both; None otherwise (the layouts differ: nothing to compare in place)."""
    by = {c.name: c for c in cases}
    if len(by) < 2:
        return None
    (box_d, d), (box_m, m) = by["dfft-python"].spectrum_box(), by["mpi4py-fft"].spectrum_box()
    same = tuple(map(tuple, box_d)) == tuple(map(tuple, box_m)) and d.shape == m.shape
    if not comm.allreduce(same, op=MPI.LAND):
        return None
    diff = comm.allreduce(float(np.max(np.abs(d - n_total * m))) if d.size else 0.0, op=MPI.MAX)
    scale = comm.allreduce(float(np.max(np.abs(d))) if d.size else 0.0, op=MPI.MAX)
    return diff / scale if scale else diff


def machine_info():
    info = {"host": platform.node(), "python": platform.python_version(), "numpy": np.__version__,
            "mpi_library": MPI.Get_library_version().splitlines()[0].strip(), "cpu_cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu_model"] = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return info


def main():
    comm = MPI.COMM_WORLD
    shape = tuple(ARGS.size)
    n_total = int(np.prod(shape))
    # The same global field on every rank (each cuts its block): a fixed seed.
    u_global = np.random.default_rng(2026).random(shape)
    makers = {"dfft": DfftCase, "mpi4py-fft": Mpi4pyFftCase}
    if "mpi4py-fft" in ARGS.libraries:
        fftw_threads_first()
    cases, plan_ms = [], {}
    for lib in ARGS.libraries:
        comm.Barrier()
        t0 = time.perf_counter()
        case = makers[lib](comm, shape, u_global)
        plan_ms[case.name] = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX) * 1e3
        cases.append(case)
    del u_global

    # Checks first (they also warm up): the round trip of each library, then the two spectra.
    errors, ok = {}, True
    for c in cases:
        c.forward()
        c.inverse()
        errors[c.name] = relative_l2(comm, c.v, c.u)
        ok &= errors[c.name] < 1e-12
    agree = agreement(comm, cases, n_total)
    ok &= agree is None or agree < 1e-12

    for _ in range(ARGS.warmup):
        for c in cases:
            c.forward()
            c.inverse()
    times = {(c.name, d): [] for c in cases for d in ("forward", "inverse")}
    for _ in range(ARGS.reps):
        for c in cases:
            times[(c.name, "forward")].append(timed(comm, c.forward))
            times[(c.name, "inverse")].append(timed(comm, c.inverse))

    if comm.rank != 0:
        return 0 if ok else 1
    mach = machine_info()
    records = []
    for c in cases:
        for d in ("forward", "inverse"):
            t = np.array(times[(c.name, d)]) * 1e3
            records.append(records_io.peer_record(
                c.name, d, shape, comm.size, [float(x) for x in t], norm=c.norm, defaults=True,
                plan_ms=plan_ms[c.name], warmup=ARGS.warmup, reps=ARGS.reps, roundtrip_error=errors[c.name],
                error=errors[c.name] if d == "inverse" else None, agreement=agree, options=c.options(),
                machine=mach))
            print("%-12s %-8s %s on %d rank%s: median %8.2f ms (min %.2f, max %.2f), plan %.0f ms, "
                  "round trip %.1e" % (c.name, d, "x".join(map(str, shape)), comm.size,
                                       "s" if comm.size > 1 else "", np.median(t),
                                       t.min(), t.max(), plan_ms[c.name], errors[c.name]))
    print("agreement dfft vs N * mpi4py-fft: %s" % ("%.1e" % agree if agree is not None else
                                                    "not compared (different boxes)"))
    if ARGS.json:
        with open(ARGS.json, "w") as f:
            for r in records:
                f.write(records_io.line(r))
    if not ok:
        print("defaults_vs_mpi4pyfft: a check failed (round trip above 1e-12 or the spectra differ)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
