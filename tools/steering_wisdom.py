#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a wisdom file whose calibrations steer the automatic choice (docs/testing.md).

    tools/steering_wisdom.py STEERING FOLDER

STEERING is one of pencil, slab-1d2d, realigned, onesided; FOLDER gets dfft-wisdom-<host>.json
with calibrations for 2, 3, 4 and 8 ranks of this host (backend cpu, the device string dfft
reports, measured), in the format of src/model/calibration_json.cpp. Point DFFT_WISDOM_DIR at
FOLDER and plans that leave fields automatic get the steering's choice. The constants are not a
machine's; each only makes the model (src/model/analytic.cpp) rank the candidates differently.
"""
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402


def cpu_device():
    """The device string dfft reports for the cpu backend: "cpu: " and /proc/cpuinfo's first model name."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and ":" in line:
                    return "cpu: " + line.split(":", 1)[1].lstrip(" \t").rstrip("\n")
    except OSError:
        pass
    return "cpu: unknown cpu"


METHODS = ["a2a-sync", "a2a-type", "p2p-sync", "p2p-type", "onesided", "p2p-pipelined"]
UNIFORM = (5e-6, 2e9)  # latency s, bandwidth B/s
# What each steering makes the model rank first (32x30x28 double r2c; docs/testing.md's table):
SETTINGS = {
    # FFTs of the contiguous axis slow (a slab's 2-D block), all-to-alls of all ranks slow and of
    # smaller groups fast: a 2 x 2 pencil on 4 ranks, 1 x 3 on 3.
    "pencil": dict(fft=(1e8, 4e9, 4e9), full=(1e-6, 1e8), sub=(1e-7, 1e12)),
    # FFTs of the contiguous axis slow, links alike: slab-1d2d on 2 and 4 ranks.
    "slab-1d2d": dict(fft=(1e8, 4e9, 4e9)),
    # As pencil, with slow box copies (the default variant packs and unpacks, the realigned one
    # only unpacks): realigned pencils on 3 and 4 ranks.
    "realigned": dict(fft=(1e8, 4e9, 4e9), full=(1e-4, 1e7), sub=(1e-7, 1e12), pack=3e8),
    # The onesided method's link fast, every other method's slow.
    "onesided": dict(methods={"onesided": (1e-7, 1e12)}),
}


def link(size, latency, bandwidth):
    return {"size": size, "latency_s": latency, "bandwidth_Bps": bandwidth}


def calibration(ranks, host, device, fft=(4e9, 4e9, 4e9), full=UNIFORM, sub=None, methods=None, pack=1.2e10):
    contiguous, middle, strided = fft
    return {
        "ranks": ranks, "backend": "cpu", "device": device, "host": host,
        "timestamp": "2026-01-01T00:00:00Z", "measured": True, "pingpong": link(2, *full),
        "nodes": 1, "emulated_nodes": False, "intra_node": None, "inter_node": None,
        # all-to-all of the whole communicator and of every smaller group (pencil rows)
        "alltoall": [link(ranks, *full)] + [link(k, *(sub or full)) for k in range(2, ranks)],
        "fft_flops": {
            "double": {"contiguous": contiguous, "middle": middle, "strided": strided},
            "float": {"contiguous": 2 * contiguous, "middle": 2 * middle, "strided": 2 * strided},
        },
        "pack_Bps": pack,
        "method_links": [dict(link(ranks, *(methods or {}).get(m, full)), method=m) for m in METHODS],
    }


def write(steering, folder):
    if steering not in SETTINGS:
        sys.exit(f"unknown steering '{steering}' (known: {' '.join(SETTINGS)})")
    host, device = socket.gethostname(), cpu_device()
    doc = {"dfft_wisdom": 1, "entries": [],
           "calibrations": [calibration(r, host, device, **SETTINGS[steering]) for r in (2, 3, 4, 8)]}
    os.makedirs(folder, exist_ok=True)
    records.replace_file(os.path.join(folder, f"dfft-wisdom-{host}.json"), json.dumps(doc, indent=1))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
