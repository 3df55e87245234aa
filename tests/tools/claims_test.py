#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The verdicts of docs/claims.md follow the numbers: for every claim of tools/claims.py, the
stored records are altered (one quantity the claim's rule reads, scaled or replaced) and the
verdict must change to the one the rule gives for the altered numbers. A verdict written as a
fixed sentence with numbers filled in keeps its words and fails here.

    python3 tests/tools/claims_test.py [path/to/tools/claims.py]
"""
import copy
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "tools", "claims.py")

spec = importlib.util.spec_from_file_location("claims", TOOL)
claims = importlib.util.module_from_spec(spec)
spec.loader.exec_module(claims)
stored_load = claims.load
_read = {}


def stored(machine, suite):
    """The stored records, read once."""
    if (machine, suite) not in _read:
        _read[(machine, suite)] = stored_load(machine, suite)
    return _read[(machine, suite)]

H100, DEV = "gpu-h100-x1", "dev-2core"


def time(r):
    return r["time_ms"]["median"]


def set_time(r, v):
    r["time_ms"]["median"] = v


def scale_time(k):
    return lambda r: set_time(r, time(r) * k)


def scale(field, k):
    def f(r):
        v = r[field]
        r[field] = [x * k for x in v] if isinstance(v, list) else v * k
    return f


def meth(r):
    return ",".join(sorted(set(r.get("methods") or [])))


def power_law(r):
    # An exact T = A P^-0.8 through the one-rank time of the same series.
    one = [x for x in stored(H100, "claims-cpu") if x.get("test") == "power-law" and x["ranks"] == 1
           and x["size"] == r["size"] and x["decomposition"] == r["decomposition"] and x["direction"] == r["direction"]]
    set_time(r, time(one[0]) * r["ranks"] ** -0.8)


# claim -> (machine, suite, which records, how they change, the verdict the rule must give then)
CASES = {
    "claim_slab_vs_pencil": (H100, "claims-cpu",
                             lambda r: r["test"].startswith("slab-vs-pencil") and r["decomposition"] == "pencil"
                             and r["size"][0] == 64, scale_time(2.0), "refuted"),
    "claim_bytes_ratio": (H100, "claims-cpu", lambda r: r["decomposition"] == "pencil",
                          scale("exchange_bytes", 1.2), "refuted"),
    "claim_default_2d1d": (H100, "claims-cpu", lambda r: r["decomposition"] == "slab-2d1d", scale_time(2.0), "refuted"),
    "claim_all2all_many": (H100, "claims-cpu", lambda r: r["ranks"] == 16 and meth(r) in ("a2a-sync", "a2a-type"),
                           scale_time(2.0), "refuted"),
    "claim_a2a_type_vs_p2p_type": (H100, "claims-cpu", lambda r: meth(r) == "a2a-type", scale_time(1.3), "confirmed"),
    "claim_type_1d": (H100, "cuda-aware-shared", lambda r: meth(r) == "a2a-type", scale_time(0.05), "refuted"),
    "claim_realigned_inverse": (H100, "claims-cpu", lambda r: r["variant"] == "realigned" and r["direction"] == "inverse",
                                scale_time(0.8), "confirmed"),
    "claim_streams": (H100, "gpu-shared", lambda r: meth(r) == "p2p-streams", scale_time(1.5), "refuted"),
    "claim_cuda_aware": (H100, "cuda-aware-shared", lambda r: r.get("staging") == "cuda-aware", scale_time(0.5),
                         "confirmed"),
    "claim_power_law": (H100, "claims-cpu", lambda r: r["test"] == "power-law" and r["decomposition"] == "pencil",
                        power_law, "confirmed"),
    "claim_chunks": (DEV, "chunks-2core", lambda r: r["chunks"] == 1, scale_time(0.5), "refuted"),
    "claim_pipelined_staging": (H100, "gpu-shared", lambda r: meth(r) == "p2p-pipelined", scale_time(2.0), "refuted"),
    "claim_compression_rate": (H100, "codec-gpu-shared", lambda r: r["codec"] == "fp16" and r["staging"] == "host",
                               scale_time(0.7), "confirmed"),
    "claim_compression_scaling": (H100, "codec-cpu16", lambda r: r["codec"] in ("fp32", "fp16"), scale_time(0.5),
                                  "confirmed"),
    "claim_fp16_speedup": (H100, "codec-gpu-shared", lambda r: r["codec"] == "fp16" and meth(r) == "onesided",
                           scale_time(0.5), "confirmed"),
    "claim_compression_cuda_aware": (H100, "codec-gpu-shared",
                                     lambda r: r["codec"] == "fp32" and r["staging"] == "cuda-aware"
                                     and meth(r) == "p2p-pipelined", scale_time(0.4), "confirmed"),
    "claim_accuracy": (DEV, "codec-accuracy", lambda r: r["precision"] == "double" and r["codec"] == "fp32",
                       scale("reference_error", 3.0), "refuted"),
    "claim_4d": (DEV, "four-d-2core", lambda r: r["ranks"] == 2, lambda r: r.update(validation="fail"),
                 "holds in part"),
    "claim_one_gpu": (H100, "gpu-cufft", lambda r: r["decomposition"] != "single-device" and r["size"][0] == 256,
                      scale_time(0.95), "confirmed"),
    "claim_type_memory": (DEV, "memory", lambda r: meth(r) == "a2a-type", scale("memory_host_bytes", 3.0), "refuted"),
    "claim_layout_memory": (DEV, "memory", lambda r: r["variant"] == "realigned", scale("memory_host_bytes", 0.9),
                            "confirmed"),
}


def status(row):
    """The verdict's word: what precedes the first colon, without its numbers (a number filled into a
    fixed sentence is no change of verdict)."""
    return re.sub(r"[0-9][0-9.,%x^]*", "#", row["verdict"].split(":")[0]).strip()


def run(claim, change=None):
    def load(machine, suite):
        recs = list(stored(machine, suite))
        if change and (machine, suite) == change[:2]:
            hit = [i for i, r in enumerate(recs) if change[2](r)]
            assert hit, "%s: no %s/%s record matches the change" % (claim.__name__, machine, suite)
            for i in hit:
                recs[i] = copy.deepcopy(recs[i])  # the stored records stay as read
                change[3](recs[i])
        return recs
    claims.load = load
    try:
        return claim()
    finally:
        claims.load = stored_load


failures = []
names = [c.__name__ for c in claims.CLAIMS]
for name in names:
    if name not in CASES:
        failures.append("%s: no altered-numbers case (add one to CASES)" % name)
for name in CASES:
    if name not in names:
        failures.append("%s: not a claim of the tool" % name)

for claim in claims.CLAIMS:
    case = CASES.get(claim.__name__)
    if not case:
        continue
    before = run(claim)
    after = run(claim, case)
    if before["numbers"] == after["numbers"]:
        failures.append("%s: the altered records did not change the numbers" % claim.__name__)
    if status(after) == status(before) or status(after) != case[4]:
        failures.append("%s: verdict %r with the stored records, %r with altered ones (expected %r)" % (
            claim.__name__, before["verdict"], after["verdict"], case[4]))
    else:
        print("ok %s: %s -> %s" % (claim.__name__, status(before), status(after)))

for f in failures:
    print("FAIL " + f, file=sys.stderr)
print("claims_test: %d claims, %d failures" % (len(names), len(failures)))
sys.exit(1 if failures else 0)
