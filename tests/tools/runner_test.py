#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/bench_run.py on the tiny suite: the dry run's job list, a real run on 1 and 2 ranks into
a temporary results folder (records and their run tags), and a time budget that stops it; then a
suite with a python peer (benchmarks/python/defaults_vs_mpi4pyfft.py) and "repeat", run for real.

    runner_test.py SOURCE_DIR BUILD_DIR        (exit 77 = skipped: neither fftw-mpi-bench nor the
                                                Python binding built)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SRC, BUILD = (os.path.abspath(a) for a in sys.argv[1:3])
sys.path.insert(0, os.path.join(SRC, "tools"))
import records  # noqa: E402  (the one Python reader of result files)
SUITE = os.path.join(SRC, "tests", "tools", "tiny-suite.json")
FAILURES = []


def check(ok, what):
    print(("ok:     " if ok else "FAILED: ") + what)
    if not ok:
        FAILURES.append(what)


def runner(*extra, suite=SUITE):
    cmd = [sys.executable, os.path.join(SRC, "tools", "bench_run.py"), "--machine", "dev-2core",
           "--suite", suite, "--build", BUILD] + list(extra)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    print("$ " + " ".join(cmd) + "\n" + p.stdout)
    return p.returncode, p.stdout


def dry_run():
    rc, out = runner("--dry-run")
    lines = [l for l in out.splitlines() if l.startswith("mpirun")]
    check(rc == 0, "dry run exits 0")
    check(len(lines) == 10, "dry run lists 10 jobs (dfft + 2 fftw-mpi sizes out of place and in place, on 1 and "
          "2 ranks): %d" % len(lines))
    check(any("-np 2 " in l and "dfft bench --cases" in l for l in lines), "a 2-rank dfft job")
    check(any("-np 1 " in l and "fftw-mpi-bench --size 17 12 10" in l for l in lines), "the 17x12x10 peer job")
    check(sum("fftw-mpi-bench" in l and " --in-place" in l for l in lines) == 4, "the in-place peer jobs")
    rc, out = runner("--dry-run", "--ranks", "2,9")
    check("not run: 9 ranks" in out and out.count("mpirun") == 5, "--ranks 2,9 refuses 9 (max_ranks 4)")


def real_run(results):
    rc, out = runner("--results", results)
    check(rc == 0, "real run exits 0")
    recs = {}
    for name in ("tiny-suite.jsonl", "tiny-suite.peers.jsonl"):
        path = os.path.join(results, "dev-2core", name)
        recs[name] = records.read(path) if os.path.exists(path) else []
    dfft, peers = recs["tiny-suite.jsonl"], recs["tiny-suite.peers.jsonl"]
    # Per job: 2 sizes x (1 configuration + 1 single-device row) x 2 directions = 8.
    check(len(dfft) == 16, "16 dfft records: %d" % len(dfft))
    check(len(peers) == 16, "16 fftw-mpi records (2 sizes x 2 placements x 2 directions x 2 jobs): %d" % len(peers))
    check(sum(bool(r.get("in_place")) for r in peers) == 8 and
          all(r["roundtrip_error"] < 1e-12 for r in peers), "8 in-place peer records, each round trip right")
    tags = [r.get("run", {}) for r in dfft + peers]
    check(all(t.get("machine") == "dev-2core" and t.get("suite") == "tiny-suite" for t in tags), "machine/suite tags")
    check(all(len(t.get("date", "")) == 20 and t["date"].endswith("Z") for t in tags), "UTC dates")
    check(all(len(t.get("commit", "")) >= 40 for t in tags), "commits")
    check(all(t.get("command", "").startswith("mpirun ") and "-np %d " % t["job_ranks"] in t["command"]
              for t in tags), "each record's command has its job's rank count")
    check({r["ranks"] for r in dfft if r["decomposition"] != "single-device"} == {1, 2}, "dfft ran on 1 and 2 ranks")
    check(all(r["library"] == "fftw-mpi" and r["time_ms"]["median"] > 0 for r in peers), "peer records timed")


def budget(results):
    rc, out = runner("--results", results, "--budget", "0")
    check(rc != 0 and "not run:" in out and out.count("fftw-mpi-bench --size") == 8,
          "a spent budget runs nothing, lists every job and fails")
    check(not os.path.exists(os.path.join(results, "dev-2core")), "nothing written")


def stopped(tmp):
    """A job that the budget stops keeps the records of the configurations it finished."""
    suite = os.path.join(tmp, "tiny-stopped.json")
    with open(suite, "w") as f:
        json.dump({"name": "tiny-stopped", "description": "runner_test: a small size, then one that outlasts the budget",
                   "runner": {"ranks_per_job": [1]},
                   "global": {"backend": "cpu", "warmup": 0, "reps": 2, "effort": "estimate", "validate": False,
                              "reference": False},
                   "tests": [{"name": "quick", "decomposition": "slab-2d1d", "variant": "default",
                              "method": "a2a-sync", "sizes": ["17x12x10"]},
                             {"name": "long", "decomposition": "slab-2d1d", "variant": "default",
                              "method": "a2a-sync", "sizes": ["256^3"], "reps": 2000}]}, f)
    results = os.path.join(tmp, "s")
    partial = lambda: {n for n in os.listdir(tempfile.gettempdir()) if n.endswith(".jsonl.dfft-tmp")}
    before = partial()
    rc, out = runner("--results", results, "--budget", "12", suite=suite)
    path = os.path.join(results, "dev-2core", "tiny-stopped.jsonl")
    recs = records.read(path) if os.path.exists(path) else []
    check(rc != 0 and "stopped at the time budget" in out, "the long configuration is stopped by the budget")
    check(len(recs) == 2 and {r["test"] for r in recs} == {"quick"},
          "the stopped job keeps the finished configuration's 2 records: %d" % len(recs))
    check(partial() <= before, "no partial output left behind")


def shuffled(tmp):
    """"shuffle": each process of a repeated job runs the configurations in its own order."""
    suite = os.path.join(tmp, "tiny-shuffled.json")
    with open(suite, "w") as f:
        json.dump({"name": "tiny-shuffled", "description": "runner_test: shuffled order",
                   "runner": {"ranks_per_job": [2], "repeat": 2, "shuffle": True},
                   "global": {"backend": "cpu", "warmup": 0, "reps": 1, "sizes": ["17x12x10"]},
                   "tests": [{"name": "sweep", "decomposition": ["slab-2d1d", "pencil"],
                              "variant": ["default", "realigned"], "method": ["a2a-sync", "p2p-sync"]}]}, f)
    rc, out = runner("--dry-run", suite=suite)
    lines = [l for l in out.splitlines() if l.startswith("mpirun")]
    check(rc == 0 and [l.endswith("--shuffle %d --json TMP" % i) for i, l in enumerate(lines, 1)] == [True, True],
          "each process gets its own --shuffle seed: %s" % lines)
    dfft = os.path.join(BUILD, "bin", "dfft")
    listed = {}
    for seed in ("0", "1", "2"):
        p = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", dfft, "bench", "--cases", suite, "--list",
                            "--shuffle", seed], stdout=subprocess.PIPE, universal_newlines=True)
        listed[seed] = [l.split(": ", 1)[1] for l in p.stdout.splitlines() if re.match(r"\d+: ", l)]
    check(len(listed["0"]) == 8 and all(sorted(v) == sorted(listed["0"]) for v in listed.values())
          and listed["1"] != listed["0"] and listed["2"] != listed["1"],
          "--shuffle: the same 8 configurations in other orders: %s" % listed)


def python_peer(tmp):
    """Two rounds ("repeat": 2) of a dfft job and a python job on 1 and 2 ranks; mpi4py-fft joins
    the script's job where the binding's interpreter imports it (an optional peer)."""
    with open(os.path.join(BUILD, "python", "python-interpreter.txt")) as f:
        interp = f.read().strip()
    has_peer = subprocess.run([interp, "-c", "import mpi4py_fft"], stderr=subprocess.DEVNULL).returncode == 0
    libraries = "dfft,mpi4py-fft" if has_peer else "dfft"
    suite = os.path.join(tmp, "tiny-python.json")
    with open(suite, "w") as f:
        json.dump({"name": "tiny-python", "description": "runner_test: python peer, two processes per job",
                   "runner": {"ranks_per_job": [1, 2], "repeat": 2,
                              "peers": [{"name": "python", "script": "benchmarks/python/defaults_vs_mpi4pyfft.py",
                                         "args": ["--libraries", libraries]}]},
                   "global": {"backend": "cpu", "warmup": 0, "reps": 2, "reference": True, "sizes": ["17x12x10"]},
                   "tests": [{"name": "defaults", "decomposition": "slab-2d1d", "variant": "default",
                              "method": "a2a-sync"}]}, f)
    rc, out = runner("--dry-run", suite=suite)
    lines = [l for l in out.splitlines() if l.startswith("mpirun")]
    check(rc == 0 and len(lines) == 8, "python suite: 8 jobs (dfft + python, 1 and 2 ranks, 2 rounds): %d" % len(lines))
    check(all(interp in l and "--size 17 12 10" in l for l in lines if "defaults_vs_mpi4pyfft.py" in l),
          "python jobs use the binding's interpreter and the suite's size")
    results = os.path.join(tmp, "r")
    rc, out = runner("--results", results, suite=suite)
    check(rc == 0, "python suite: real run exits 0")
    path = os.path.join(results, "dev-2core", "tiny-python.peers.jsonl")
    recs = records.read(path) if os.path.exists(path) else []
    libs = libraries.split(",")
    # 2 rank counts x 2 processes x libraries x 2 directions.
    check(len(recs) == 8 * len(libs), "%d python records: %d" % (8 * len(libs), len(recs)))
    names = {"dfft": "dfft-python", "mpi4py-fft": "mpi4py-fft"}
    check({r.get("library") for r in recs} == {names[l] for l in libs}, "libraries %s" % libs)
    check(all(r["time_ms"]["median"] > 0 and r["roundtrip_error"] < 1e-12 for r in recs), "timed, round trips exact")
    check({(r["ranks"], r["run"]["repeat"]) for r in recs} == {(1, 1), (1, 2), (2, 1), (2, 2)},
          "records of both processes on 1 and 2 ranks")
    dfft_recs = records.read(os.path.join(results, "dev-2core", "tiny-python.jsonl"))
    check(len({r["run"]["series"] for r in recs + dfft_recs}) == 1, "one series for the whole invocation")
    if has_peer:
        check(all(r["agreement"] is not None and r["agreement"] < 1e-12 for r in recs if r["ranks"] == 1),
              "1 rank: dfft's spectrum is N times mpi4py-fft's")


def main():
    fftw = os.access(os.path.join(BUILD, "bin", "fftw-mpi-bench"), os.X_OK)
    binding = os.path.isfile(os.path.join(BUILD, "python", "python-interpreter.txt"))
    if not fftw and not binding:
        print("neither fftw-mpi-bench (needs libfftw3-mpi) nor the Python binding is built: skipped")
        return 77
    with tempfile.TemporaryDirectory() as d:
        if fftw:
            dry_run()
            real_run(os.path.join(d, "a"))
            budget(os.path.join(d, "b"))
        else:
            print("fftw-mpi-bench is not built (needs libfftw3-mpi): its part skipped")
        stopped(d)
        shuffled(d)
        if binding:
            python_peer(d)
        else:
            print("the Python binding is not built: the python peer's part skipped")
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
