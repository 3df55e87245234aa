# SPDX-License-Identifier: MIT
"""`dfft model check`: each result record is predicted with the method it was measured with.

A calibration whose per-method links differ by 100x (a2a-sync slow, p2p-sync and cuda-ipc fast)
and records of one slab transform on 2 ranks, measured with each method: the analytic column must
follow the record's method (a record measured with p2p-sync predicted with the a2a-sync link was
a real bug: Options starts with a2a-sync and the record's methods were appended to it). The
expected times come from the model's own arithmetic: bytes to the peer / link bandwidth.
"""
import json
import os
import sys

from dfft_runner import Checks, Runner, parse_args


def link(method, bandwidth):
    return {"method": method, "size": 2, "latency_s": 0.0, "bandwidth_Bps": bandwidth}


def calibration(backend):
    rate = {"contiguous": 1e15, "middle": 1e15, "strided": 1e15}  # FFTs cost nothing
    return {"ranks": 2, "backend": backend, "device": "test", "host": "test", "measured": True,
            "timestamp": "2026-01-01T00:00:00Z", "pack_Bps": 1e15,
            "fft_flops": {"double": rate, "float": rate},
            "pingpong": {"size": 2, "latency_s": 0.0, "bandwidth_Bps": 1e9},
            "alltoall": [{"size": 2, "latency_s": 0.0, "bandwidth_Bps": 1e9}],
            "method_links": [link("a2a-sync", 1e9), link("p2p-sync", 1e11), link("cuda-ipc", 1e11)]}


def record(method, backend, direction):
    return {"backend": backend, "decomposition": "slab-2d1d", "variant": "default", "methods": [method],
            "grid": [2], "precision": "double", "transform": "r2c", "size": [64, 64, 64], "ranks": 2,
            "direction": direction, "time_ms": {"median": 1.0}, "codec": "none", "overlap": 1}


def main():
    args = parse_args()
    run, c = Runner(args), Checks()
    cal = os.path.join(args.workdir, "cal.json")
    with open(cal, "w") as f:
        json.dump({"dfft_wisdom": 1, "entries": [], "calibrations": [calibration("cpu"), calibration("cuda")]}, f)
    # Bytes from one rank to the other: a quarter of the 64 x 64 x 33 complex double grid.
    peer_ms = 64 * 64 * 33 * 16 / 4 / 1e9 * 1e3
    cases = [("a2a-sync", "cpu", peer_ms), ("p2p-sync", "cpu", peer_ms / 100), ("cuda-ipc", "cuda", peer_ms / 100)]
    res = os.path.join(args.workdir, "results.jsonl")
    with open(res, "w") as f:
        for m, b, _ in cases:
            f.write(json.dumps(record(m, b, "forward")) + "\n")
    p = run.dfft("model", "check", res, "--calibration", cal, np=1)
    c.check(p.returncode == 0, f"model check exit {p.returncode}: {p.stderr[-500:]}")
    rows = [line for line in p.stdout.splitlines() if line.startswith("| 64x64x64")]
    c.check(len(rows) == len(cases), f"{len(rows)} rows for {len(cases)} records:\n{p.stdout}")
    for m, b, want in cases:
        mine = [r for r in rows if f" {m} {b} " in r]
        c.check(len(mine) == 1, f"one row for {m} ({b}): {mine}")
        if len(mine) != 1:
            continue
        cells = [x.strip() for x in mine[0].strip().strip("|").split("|")]
        try:
            got = float(cells[3])
        except ValueError:
            c.check(False, f"{m}: analytic cell '{cells[3]}'")
            continue
        # The comm phase is the whole prediction here; the local block's copy and the FFTs are free.
        c.check(abs(got - want) <= 0.05 * want + 0.002, f"{m} ({b}): analytic {got} ms, expected {want:.4f}")
    return c.finish("test_model_check")


if __name__ == "__main__":
    sys.exit(main())
