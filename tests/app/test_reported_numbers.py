# SPDX-License-Identifier: MIT
"""The numbers `dfft bench --accuracy` prints and `dfft bench` records: round-trip errors at the level of
the working precision and wire format, records that name the wire format the plan ran (not the
one asked for), one field set for every record writer, and statistics that tools/records.py
computes exactly as the C++ writer does."""
import json
import math
import os
import re
import subprocess
import sys

from dfft_runner import Checks, Runner, parse_args

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import records  # noqa: E402  (the one Python writer and reader of bench records)

U = {"none": 0.0, "fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8}


def accuracy(c, r, np_):
    """Every row's round trip is near its precision: the inverse already scales by 1/N."""
    run = r.dfft("bench", "--accuracy", "--size", "16", "12", "10", np=np_)
    c.check(run.returncode == 0, f"accuracy on {np_} ranks: exit {run.returncode}: {run.stderr[-300:]}")
    c.check(re.search(r"^accuracy: size 16 12 10, %d ranks?, pencil, a2a-sync, backend cpu;" % np_, run.stdout, re.M),
            f"accuracy on {np_} ranks: not the pencil a2a-sync table of 16x12x10:\n{run.stdout[:400]}")
    rows = re.findall(r"^\| (random|smooth) \| (\S+) \| (\S+) \| (\S+) \|$", run.stdout, re.M)
    c.check(len(rows) == 14, f"accuracy on {np_} ranks: {len(rows)} rows, expected 14:\n{run.stdout[-800:]}")
    for data, fmt, _, rt in rows:
        work, wire = (fmt.split("->") + ["none"])[:2]
        base = 1e-12 if work == "FP64" else 1e-5
        codec = wire.lower()
        # At most the two exchanges of a pencil, each way: 2 * (2 u sqrt(4/3)) (docs/compression.md).
        limit = base + (0 if np_ == 1 else 4 * U[codec] * math.sqrt(4 / 3))
        c.check(float(rt) <= limit, f"accuracy on {np_} ranks, {data} {fmt}: round trip {rt} > {limit:.1e}")
        print(f"  {np_} ranks {data} {fmt}: round trip {rt}", flush=True)


def bench_json(c, r, work, name, *argv, np_=2):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    run = r.dfft("bench", "--size", "32", "30", "28", "--decomp", "pencil", "--variant", "default", "--method",
                 "a2a-sync", "--json", path, *argv, np=np_)
    c.check(run.returncode == 0, f"bench {' '.join(argv)}: exit {run.returncode}: {run.stdout[-500:]} {run.stderr[-300:]}")
    return run, [json.loads(line) for line in open(path)] if os.path.exists(path) else []


def tolerance_records(c, r, work):
    """--tolerance picks a lossy wire format; table and records name it, and its bytes show it."""
    _, plain = bench_json(c, r, work, "plain.jsonl", "--reps", "2", "--warmup", "0")
    for tol, codec, share in (("1e-3", "fp16", 0.25), ("1e-6", "fp32", 0.5)):
        run, recs = bench_json(c, r, work, f"tol{tol}.jsonl", "--tolerance", tol, "--validate", "--reps", "2",
                               "--warmup", "0")
        got = [x.get("codec") for x in recs]
        c.check(len(recs) == 2 and got == [codec, codec], f"--tolerance {tol}: records name codec {got}, ran {codec}")
        rows = [l for l in run.stdout.splitlines() if re.match(r"pencil\s", l)]
        c.check(len(rows) == 2 and all(f" {codec} " in l for l in rows), f"--tolerance {tol}: table rows {rows}")
        if recs and plain:
            ratio = recs[0]["exchange_bytes"][0] / plain[0]["exchange_bytes"][0]
            c.check(abs(ratio - share) < 0.05, f"--tolerance {tol}: exchange bytes x{ratio:.3f}, {codec} sends x{share}")
        c.check(all(x.get("validation") == "pass" for x in recs), f"--tolerance {tol}: validation {[x.get('validation') for x in recs]}")


def field_sets(c, r, work):
    """Every writer writes the same common fields: dfft bench (C++), fftw-mpi-bench (the same C++
    writer) and tools/records.py (Python)."""
    _, recs = bench_json(c, r, work, "fields.jsonl", "--reps", "9", "--warmup", "0")
    for rec in recs:
        missing = [k for k in records.COMMON + records.PLAN if k not in rec]
        c.check(not missing, f"dfft bench record lacks {missing}")
        records.check(rec, "dfft bench record")
    peer = records.peer_record("x", "forward", [4, 4, 4], 1, [1.0, 1.1, 1.2])
    missing = [k for k in records.COMMON + records.PEER if k not in peer]
    c.check(not missing, f"tools/records.py peer record lacks {missing}")
    fftw = os.path.join(os.path.dirname(r.args.dfft), "fftw-mpi-bench")
    if os.path.exists(fftw):
        path = os.path.join(work, "fftw.jsonl")
        run = subprocess.run(r.prefix + [fftw, "--size", "16", "12", "10", "--reps", "3", "--warmup", "0",
                                         "--json", path], capture_output=True, text=True, timeout=120)
        c.check(run.returncode == 0, f"fftw-mpi-bench: exit {run.returncode}: {run.stderr[-300:]}")
        for rec in (records.read(path) if run.returncode == 0 else []):
            missing = [k for k in records.COMMON + records.PEER if k not in rec]
            c.check(not missing, f"fftw-mpi-bench record lacks {missing}")
        # Each direction's pieces, in place: both records carry three stages, the inverse's in
        # its own order, and the printed sums follow the whole times.
        staged = os.path.join(work, "fftw-staged.jsonl")
        run = subprocess.run(r.prefix + [fftw, "--size", "16", "12", "10", "--reps", "2", "--warmup", "0",
                                         "--transposed", "--stages", "--in-place", "--json", staged],
                             capture_output=True, text=True, timeout=120)
        c.check(run.returncode == 0, f"fftw-mpi-bench --stages --in-place: exit {run.returncode}: {run.stderr[-300:]}")
        got = records.read(staged) if run.returncode == 0 else []
        names = {x.get("direction"): [st.get("name") for st in x.get("stages_ms", [])] for x in got}
        c.check(names == {"forward": ["fft(1,2)", "transpose", "fft(0)"], "inverse": ["fft(0)", "transpose", "fft(1,2)"]},
                f"fftw-mpi-bench --stages --in-place: stages {names}")
        c.check(len(got) == 2 and all(x.get("in_place") for x in got), "fftw-mpi-bench --stages --in-place: records not in place")
        c.check("inverse from FFTW's pieces (each after a barrier, in place)" in run.stdout,
                f"fftw-mpi-bench --stages --in-place: {run.stdout[-400:]}")
    else:
        print("  fftw-mpi-bench: not built, its record not checked")
    return recs


def same_statistics(c, recs):
    """tools/records.py's statistics of samples_ms are the C++ writer's, field for field."""
    c.check(bool(recs), "no records to compare statistics on")
    for rec in recs:
        py = records.time_fields(rec["samples_ms"])
        t, p = rec["time_ms"], py["time_ms"]
        for k in ("min", "median", "max", "mean", "stddev", "n"):
            c.check(math.isclose(t[k], p[k], rel_tol=1e-12), f"time_ms.{k}: C++ {t[k]}, Python {p[k]}")
        c.check(t.get("median_ci99") is not None and p["median_ci99"] is not None
                and all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(t["median_ci99"], p["median_ci99"])),
                f"median_ci99: C++ {t.get('median_ci99')}, Python {p['median_ci99']}")
        c.check(t.get("median_ci99") is not None and t["median_ci99"][0] >= t["min"] > 0,
                f"the 99% interval of the median leaves the samples: {t.get('median_ci99')} vs min {t['min']}")
        c.check(rec["noisy"] == py["noisy"], f"noisy: C++ {rec['noisy']}, Python {py['noisy']}")
        c.check("ci99" not in t, "time_ms.ci99 (Student's t of the mean, may go below zero) is still written")


def main():
    args = parse_args(lambda p: p.add_argument("--source", required=True))
    r, c = Runner(args), Checks()
    for np_ in (1, 2):
        accuracy(c, r, np_)
    tolerance_records(c, r, args.workdir)
    same_statistics(c, field_sets(c, r, args.workdir))
    return c.finish("reported numbers")


if __name__ == "__main__":
    sys.exit(main())
