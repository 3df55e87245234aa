#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch.fft on one GPU as a peer of dfft's one-GPU runs: rfftn and irfftn over every axis of an
n^3 real array (irfftn normalised by 1/N, torch's default "backward", as dfft's default inverse),
timed with CUDA events after warm-up runs; one peer record (records.peer_record) per direction,
size and precision to --json.

    python3 tools/torch_fft_peer.py --size 1024 --precision float double --json out.jsonl
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402


def times_ms(torch, fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, nargs="+", required=True, help="n of each n^3 array")
    ap.add_argument("--precision", nargs="+", default=["float"], choices=("float", "double"))
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", required=True)
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("torch_fft_peer: torch sees no GPU")
    gpu = torch.cuda.get_device_name(0)
    recs = []
    for n in a.size:
        for prec in a.precision:
            dtype = torch.float32 if prec == "float" else torch.float64
            x = torch.rand((n, n, n), dtype=dtype, device="cuda")
            spectrum = torch.fft.rfftn(x)
            fwd = times_ms(torch, lambda: torch.fft.rfftn(x), a.warmup, a.reps)
            inv = times_ms(torch, lambda: torch.fft.irfftn(spectrum, s=(n, n, n)), a.warmup, a.reps)
            err = (torch.fft.irfftn(spectrum, s=(n, n, n)) - x).abs().max().item() / x.abs().max().item()
            for direction, samples in (("forward", fwd), ("inverse", inv)):
                recs.append(records.peer_record("torch.fft", direction, [n, n, n], 1, samples, precision=prec,
                                                backend="cuda", norm="backward", warmup=a.warmup,
                                                roundtrip_error=err, harness="torch", gpu=gpu,
                                                library_version=torch.__version__))
                print("torch.fft %s %d^3 %s: median %.3f ms" % (direction, n, prec, records.median(samples)), flush=True)
            del x, spectrum
            torch.cuda.empty_cache()
    records.write_records(a.json, recs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
