# SPDX-License-Identifier: MIT
"""`dfft model cluster` and `dfft model check --fit-calibration`.

cluster: the shipped DGX-A100-like description at 8 GPUs (one node: only NVLink), whose slab
row is recomputed here from the description's numbers; a slab on more GPUs than planes is refused
in the table; a malformed description is refused with exit 2.

check --fit-calibration: a 1-rank record fixes the FFT rate (its prediction is its own time) and a
2-rank c2c slab record, whose FFTs are then exactly half the 1-rank flops, fixes the pack rate and
the link from its own phases, so its prediction is 5 + 1 + 2 ms.
"""
import json
import math
import os
import sys

from dfft_runner import Checks, Runner, parse_args


def cells_of(row):
    return [x.strip() for x in row.strip().strip("|").split("|")]


def check_cluster(run, c, source):
    desc = os.path.join(source, "benchmarks", "machines", "clusters", "dgx-a100.json")
    p = run.dfft("model", "cluster", "--machine", desc, "--gpus", "8,4096", "--size", "2048", "--precision", "float",
                 "--transform", "c2c", np=1)
    c.check(p.returncode == 0, f"model cluster exit {p.returncode}: {p.stderr[-500:]}")
    c.check("PREDICTIONS" in p.stdout, "output not labelled as predictions")
    with open(desc) as f:
        d = json.load(f)
    n, gpus = 2048, 8
    ref = d["fft"]
    rate = 2.5 * ref["reference_n"] ** 3 * math.log2(ref["reference_n"] ** 3) / (ref["float_ms"] * 1e-3) * ref["scale"]
    fft = 5 * n ** 3 * math.log2(n ** 3) / gpus / rate
    D = n ** 3 * 8 / gpus  # bytes of one GPU's complex float array
    pack = 2 * D / (d["pack"]["bandwidth_GBps"] * 1e9)
    intra = d["links"]["intra_node"]
    comm = (gpus - 1) * (intra["latency_us"] * 1e-6 + D / gpus / (intra["bandwidth_GBps"] * 1e9))
    want = (fft + pack + comm) * 1e3
    rows = [cells_of(r) for r in p.stdout.splitlines() if r.startswith("| 8 | 2048^3 | float | c2c | slab |")]
    c.check(len(rows) == 1, f"one 8-GPU slab row: {rows}")
    if len(rows) == 1:
        got = float(rows[0][10])
        c.check(abs(got - want) <= 0.01, f"8-GPU slab total {got} ms, expected {want:.3f}")
    c.check("impossible: slab needs P <= N: 4096 > 2048" in p.stdout, "slab on 4096 GPUs of a 2048^3 cube not refused")
    bad = os.path.join(run.args.workdir, "bad-cluster.json")
    with open(bad, "w") as f:
        json.dump(dict(d, gpus_per_node=0), f)
    p = run.dfft("model", "cluster", "--machine", bad, np=1)
    c.check(p.returncode == 3 and "gpus_per_node" in p.stderr, f"bad description (a bad input file, status 3): exit {p.returncode}, {p.stderr[-300:]}")


def record(ranks, grid, phases, total):
    return {"backend": "cpu", "decomposition": "slab-2d1d", "variant": "default", "methods": ["a2a-sync"],
            "grid": grid, "precision": "double", "transform": "c2c", "size": [64, 64, 64], "ranks": ranks,
            "direction": "forward", "time_ms": {"median": total}, "phases_ms": phases}


def check_fit(run, c):
    res = os.path.join(run.args.workdir, "fit.jsonl")
    with open(res, "w") as f:
        f.write(json.dumps(record(1, [1], {"fft": 10.0, "pack": 0.0, "unpack": 0.0, "comm": 0.0}, 10.0)) + "\n")
        f.write(json.dumps(record(2, [2], {"fft": 4.0, "pack": 0.5, "unpack": 0.5, "comm": 2.0}, 7.0)) + "\n")
    p = run.dfft("model", "check", res, "--fit-calibration", np=1)
    c.check(p.returncode == 0, f"model check exit {p.returncode}: {p.stderr[-500:]}")
    c.check("fitted to these records" in p.stdout, "fitted parameters not printed")
    rows = {int(x[1]): x for x in (cells_of(r) for r in p.stdout.splitlines() if r.startswith("| 64x64x64"))}
    for ranks, want in ((1, 10.0), (2, 8.0)):
        if ranks not in rows:
            c.check(False, f"no row for {ranks} ranks:\n{p.stdout}")
            continue
        got = float(rows[ranks][3])
        c.check(abs(got - want) <= 1e-3, f"{ranks} ranks: fitted analytic {got} ms, expected {want}")


def main():
    args = parse_args(lambda p: p.add_argument("--source", required=True))
    run, c = Runner(args), Checks()
    check_cluster(run, c, args.source)
    check_fit(run, c)
    return c.finish("test_model_cluster")


if __name__ == "__main__":
    sys.exit(main())
