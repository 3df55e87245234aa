#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Random `dfft bench --validate` configurations on 1-4 CPU ranks; stops at the first failure.

Usage: tools/stress.py [SEED] [SECONDS] [DFFT_BINARY] [BACKEND]
       (defaults: 1, 600, build/bin/dfft, cpu; BACKEND cuda adds the GPU methods)

Each run draws ranks, a 2-4 dimensional shape with extents 1-13 (odd, tiny and uneven splits),
decomposition, variant, method, precision, transform and, at random, overlap slices, a codec,
chunks, a small message limit, tapered slices and normalisation. A configuration dfft refuses
with a clear message (an axis too short for the grid) counts as refused; any other non-zero exit,
a failed validation or a hang (120 s) stops the sweep and prints the command to reproduce it.
"""
import os, random, subprocess, sys, time
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
budget = float(sys.argv[2]) if len(sys.argv) > 2 else 600
dfft = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), "..", "build", "bin", "dfft")
backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
methods = ["a2a-sync", "a2a-type", "p2p-sync", "p2p-type", "onesided", "p2p-pipelined"]
if backend == "cuda":
    methods += ["p2p-streams", "nccl", "cuda-ipc"]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
t0 = time.time(); n = refused_n = 0
while time.time() - t0 < budget:
    np_ = rng.choice([1, 2, 3, 4])
    dims = rng.choice([2, 3, 3, 3, 4])
    shape = [rng.randint(1 if d > 0 else 2, 13) for d in range(dims)]
    shape[0] = max(shape[0], 2)
    dec = rng.choice(["slab-2d1d", "slab-1d2d", "pencil"])
    var = rng.choice(["default", "realigned"])
    meth = rng.choice(methods)
    prec = rng.choice(["double", "float"])
    tr = rng.choice(["r2c", "c2c"])
    args = ["--size", *map(str, shape), "--decomp", dec, "--variant", var, "--method", meth,
            "--precision", prec, "--transform", tr, "--validate", "--reps", "1", "--warmup", "0",
            "--no-progress", "--backend", backend]
    extra = {}
    if rng.random() < 0.5:
        args += ["--overlap", str(rng.choice([2, 3, 4, 7, 64]))]
    if rng.random() < 0.3 and meth not in ("a2a-type", "p2p-type", "cuda-ipc"):
        args += ["--codec", rng.choice(["fp16", "bf16"] + (["fp32"] if prec == "double" else []))]
    if meth in ("onesided", "p2p-pipelined", "nccl") and rng.random() < 0.5:
        args += ["--chunks", str(rng.choice([1, 2, 3, 5, 64]))]
    if rng.random() < 0.2:
        args += ["--max-message-bytes", str(rng.choice([64, 200, 1000]))]
    if rng.random() < 0.3:
        extra["DFFT_SLICE_TAPER"] = "1"
    if backend == "cuda" and rng.random() < 0.3:
        extra["DFFT_OVERLAP_QUEUE"] = "1"
    if meth == "nccl":
        extra["DFFT_NCCL_MIN_CHUNK"] = "0"
        if rng.random() < 0.5:
            extra["DFFT_CHUNK_TAPER"] = "1"
    if rng.random() < 0.2:
        args += ["--norm", rng.choice(["ortho", "forward"])]
    cmd = ["mpirun", "--oversubscribe", "-np", str(np_), dfft, "bench", *args]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**env, **extra})
    except subprocess.TimeoutExpired:
        print("TIMEOUT (hang?)", extra, " ".join(cmd)); sys.exit(1)
    n += 1
    ok = r.returncode == 0 and "0 failed validation -> OK" in r.stdout
    refused = r.returncode != 0 and ("  skipped: " in r.stdout or "dfft bench:" in r.stderr) and "failed validation" not in r.stdout.replace("0 failed validation", "")
    if not ok:
        if refused:
            msg = [l for l in r.stdout.splitlines() if "skipped:" in l] or [r.stderr.strip().splitlines()[0] if r.stderr.strip() else "?"]
            print("REFUSED:", msg[0][:200])
            refused_n += 1
            continue
        print("FAIL", r.returncode, extra, " ".join(cmd))
        print(r.stdout[-1500:], r.stderr[-1500:])
        sys.exit(1)
print(f"{n} random configurations in {time.time()-t0:.0f} s: {n - refused_n} passed, {refused_n} refused clearly")
