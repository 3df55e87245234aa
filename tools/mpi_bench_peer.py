#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""FFTW's own MPI benchmark (mpi-bench -s, built by scripts/fftw-mpi-check.sh from FFTW's source)
as a peer of tools/bench_run.py: one job times the forward and the backward problem of one size
with whichever libfftw3_mpi the loader finds (--lib-dir first on the ranks' load path: dfft's
drop-in; none: FFTW-MPI) and writes two peer records (records.peer_record) to --json.

    python3 tools/mpi_bench_peer.py --program build/fftw-mpi-check/double/mpi-bench \
        --library dfft-fftw-mpi --lib-dir build/lib/dfft-fftw-mpi --size 256 256 256 --transposed \
        --launch "mpirun -np 4" --json out.jsonl

Problems, in mpi-bench's notation: "]orf" forward r2c out of place with FFTW_MPI_TRANSPOSED_OUT,
"[orb" backward c2r with FFTW_MPI_TRANSPOSED_IN ("ocf"/"ocb": c2c; without --transposed the
brackets are left out). mpi-bench plans with FFTW_MEASURE unless told otherwise, repeats each
measurement until it is long enough and prints min, max, avg and median of the repetitions: those
statistics are the record's time_ms (mpi-bench does not print single samples, so samples_ms is
null); its setup time is plan_ms.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402

UNITS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
TIME = r"([0-9.eE+-]+) (ns|us|ms|s)"
PROBLEM_RE = re.compile(r"Problem: (\S+), setup: %s, time: %s" % (TIME, TIME))
STATS_RE = re.compile(r"Time: min %s, max %s, avg %s, median %s" % (TIME, TIME, TIME, TIME))
COUNT_RE = re.compile(r"Took (\d+) measurements")


def ms(value, unit):
    return float(value) * UNITS[unit]


def problem(size, c2c, transposed, forward):
    dims = "x".join(str(n) for n in size)
    bracket = ("]" if forward else "[") if transposed else ""
    return "%so%s%s%s" % (bracket, "c" if c2c else "r", "f" if forward else "b", dims)


def loaded_library(program, env):
    """The libfftw3_mpi file the loader resolves for the program under env (ldd's answer)."""
    out = subprocess.run(["ldd", program], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    m = re.search(r"libfftw3f?_mpi\.so\.3 => (\S+)", out)
    return os.path.realpath(m.group(1)) if m else None


def is_dfft(path):
    """Whether a libfftw3_mpi file is dfft's (it exports dfft_fftw_mpi_marker)."""
    with open(path, "rb") as f:
        return b"dfft_fftw_mpi_marker" in f.read()


def parse(text):
    """(setup ms, {min, max, mean, median, n}) of one mpi-bench -s --verbose=1 run."""
    p, s, c = PROBLEM_RE.search(text), STATS_RE.search(text), COUNT_RE.search(text)
    if not (p and s):
        return None
    t = {"min": ms(*s.group(1, 2)), "max": ms(*s.group(3, 4)), "mean": ms(*s.group(5, 6)),
         "median": ms(*s.group(7, 8)), "n": int(c.group(1)) if c else None, "stddev": None,
         "median_ci99": None}
    return ms(*p.group(2, 3)), t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--program", required=True, help="mpi-bench built from FFTW's source")
    ap.add_argument("--library", required=True, choices=("fftw-mpi", "dfft-fftw-mpi"))
    ap.add_argument("--lib-dir", default="", help="folder put first on the ranks' LD_LIBRARY_PATH")
    ap.add_argument("--size", type=int, nargs="+", required=True)
    ap.add_argument("--precision", default="double", choices=("double", "float"))
    ap.add_argument("--c2c", action="store_true")
    ap.add_argument("--transposed", action="store_true")
    ap.add_argument("--launch", required=True, help="the launcher, e.g. 'mpirun -np 4'")
    ap.add_argument("--json", required=True)
    a = ap.parse_args(argv)

    env = dict(os.environ)
    if a.lib_dir:
        env["LD_LIBRARY_PATH"] = os.path.abspath(a.lib_dir) + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    lib = loaded_library(a.program, env)
    if lib is None or is_dfft(lib) != (a.library == "dfft-fftw-mpi"):
        sys.exit("mpi_bench_peer: %s resolves libfftw3_mpi to %s, not %s's" % (a.program, lib, a.library))
    launch = shlex.split(a.launch)
    if a.lib_dir:
        launch += ["-x", "LD_LIBRARY_PATH"]
    ranks = int(launch[launch.index("-np") + 1])
    recs = []
    for forward in (True, False):
        prob = problem(a.size, a.c2c, a.transposed, forward)
        cmd = launch + [a.program, "--verbose=1", "-s", prob]
        print("mpi_bench_peer:", " ".join(shlex.quote(c) for c in cmd), flush=True)
        run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        sys.stdout.write(run.stdout)
        got = parse(run.stdout)
        if run.returncode != 0 or got is None:
            sys.exit("mpi_bench_peer: %s failed (exit %d)" % (prob, run.returncode))
        plan_ms, t = got
        rec = records.peer_record(a.library, "forward" if forward else "inverse", a.size, ranks, [t["min"]],
                                  precision=a.precision, transform="c2c" if a.c2c else "r2c",
                                  effort="measure", norm="none", plan_ms=plan_ms,
                                  transposed_out=a.transposed, harness="mpi-bench",
                                  library_file=lib, problem=prob)
        rec.update(time_ms=t, samples_ms=None,
                   noisy=records.is_noisy(t["min"], t["median"], t["max"]))
        recs.append(rec)
    records.write_records(a.json, recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
