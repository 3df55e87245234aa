#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`dfft bench` with a test-case file: --list, --json/--csv result files with their documented
fields, the progress line, errors in cases files, and tools/plot.py (when matplotlib is installed
for this interpreter)."""
import csv
import glob
import json
import os
import subprocess
import sys

from dfft_runner import Checks, Runner, parse_args

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import records  # noqa: E402  (the one Python reader of result files)

TINY = {
    "name": "tiny",
    "global": {"warmup": 1, "reps": 3, "precision": "double", "transform": "r2c", "validate": True,
               "reference": True, "backend": "cpu"},
    "tests": [
        {"name": "both", "decomposition": ["slab-2d1d", "pencil"], "variant": "default",
         "method": ["a2a-sync", "p2p-type"], "sizes": {"from": "8^3", "to": "16^3"}},
        {"name": "scaling", "decomposition": "slab-2d1d", "method": "a2a-sync", "variant": "default",
         "ranks": [1, 2], "reference": False, "validate": False, "sizes": ["8x12x10", "16x12x10"]},
    ],
}
RECORD_KEYS = ["decomposition", "variant", "methods", "precision", "transform", "size", "ranks", "grid",
               "direction", "time_ms", "phases_ms", "gflops", "error", "validation", "backend", "warmup", "reps",
               "exchange_bytes", "timestamp", "host", "dfft_version", "samples_ms", "rank_phases_ms", "staging",
               "test", "machine"]


def write(path, obj):
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj, indent=1))
    return path


def check_records(c, path, np):
    recs = records.read(path)
    dist = [r for r in recs if r["decomposition"] != "single-device"]
    # 4 sizes x 2 decompositions x 2 methods + 2 sizes x 2 rank counts configurations, 2 records each
    c.check(len(dist) == 2 * (16 + 4), f"{len(dist)} distributed records, expected 40")
    c.check(len(recs) - len(dist) == 8, f"{len(recs) - len(dist)} single-device records, expected 8 (4 sizes x 2)")
    for r in dist:
        missing = [k for k in RECORD_KEYS if k not in r]
        c.check(not missing, f"record lacks {missing}")
        t = r["time_ms"]
        c.check(t["min"] <= t["median"] <= t["max"] and t["min"] <= t["mean"] <= t["max"], f"time stats {t}")
        # Three repetitions cover the median with 75% at most: no 99% interval to give.
        c.check(t["median_ci99"] is None and "ci99" not in t and t["n"] == 3, f"median_ci99 {t}")
        c.check(len(r["samples_ms"]) == 3, "samples_ms has one entry per repetition")
        c.check(all(len(r["rank_phases_ms"][p]) == r["ranks"] for p in ("fft", "pack", "comm", "unpack")),
                "rank_phases_ms has one entry per rank")
        c.check(r["machine"]["mpi_library"] and "fftw" in r["machine"]["fftw_version"], f"machine {r['machine']}")
        c.check(r["test"] in ("both", "scaling"), f"test name {r['test']}")
        if r["test"] == "both":
            c.check(r["validation"] == "pass" and r["ranks"] == np, f"validation {r['validation']}, ranks {r['ranks']}")
    c.check(sorted({r["ranks"] for r in dist if r["test"] == "scaling"}) == [1, 2], "scaling test ran on 1 and 2 ranks")
    return recs


def suite(c, r, work, np):
    cases = write(os.path.join(work, "tiny.json"), TINY)
    run = r.dfft("bench", "--cases", cases, "--list")
    c.check(run.returncode == 0 and "dfft bench: 20 configurations" in run.stdout, f"--list: {run.stdout[-300:]}")
    c.check(", validate, reference [both]" in run.stdout, f"--list shows the file's validate/reference: {run.stdout[:300]}")
    run = r.dfft("bench", "--cases", cases, "--list", "--reps", "7", "--no-validate")
    c.check("reps 7" in run.stdout and "reps 3" not in run.stdout, "--reps on the command line overrides the file")
    c.check("validate" not in run.stdout, "--no-validate on the command line overrides the file")
    res, table = os.path.join(work, "r.jsonl"), os.path.join(work, "r.csv")
    run = r.dfft("bench", "--cases", cases, "--json", res, "--csv", table, "--progress")
    c.check(run.returncode == 0, f"bench --cases: exit {run.returncode}: {run.stderr[-500:]}")
    # A run shorter than the progress interval prints only its last line ("done").
    c.check("[20/20]" in run.stderr and ("left" in run.stderr or "done" in run.stderr),
            f"progress line: {run.stderr[-300:]}")
    if run.returncode != 0:
        return None
    recs = check_records(c, res, np)
    rows = list(csv.DictReader(open(table)))
    c.check(len(rows) == len(recs), f"CSV has {len(rows)} rows for {len(recs)} records")
    c.check(rows and float(rows[0]["time_median_ms"]) == recs[0]["time_ms"]["median"], "CSV matches the JSON")
    c.check(rows and "x" in rows[0]["size"] and rows[0]["mpi_library"], "CSV size and machine columns")
    return res


def errors(c, r, work):
    bad = [({"tests": [{"sizes": ["8^3"], "foo": 1}]}, "tests[0].foo: unknown key"),
           ({"tests": [{"sizes": ["8^3"], "method": "fast"}]}, "unknown method 'fast'"),
           ("{not json", "invalid JSON")]
    for i, (text, phrase) in enumerate(bad):
        run = r.dfft("bench", "--cases", write(os.path.join(work, f"bad{i}.json"), text), np=1)
        c.check(run.returncode == 3 and phrase in run.stderr, f"bad cases file {i}: {run.returncode} {run.stderr}")
    ok = write(os.path.join(work, "ok.json"), {"tests": [{"sizes": ["8^3"]}]})
    run = r.dfft("bench", "--cases", ok, "--size", "8", "8", "8", np=1)
    c.check(run.returncode == 2 and "cannot be combined with --cases" in run.stderr, f"--size with --cases: {run.stderr}")
    run = r.dfft("bench", "--cases", os.path.join(work, "missing.json"), np=1)
    c.check(run.returncode != 0 and "missing.json" in run.stderr, f"missing cases file: {run.stderr}")


def codec_validation(c, r, work):
    """--validate with compressed exchanges judges the error against the wire format's rounding."""
    res = os.path.join(work, "codec.jsonl")
    run = r.dfft("bench", "--size", "17", "12", "10", "--decomp", "slab-2d1d,pencil", "--method", "a2a-sync",
                 "--codec", "none,fp32,fp16,bf16", "--validate", "--reps", "1", "--warmup", "0", "--json", res)
    c.check(run.returncode == 0, f"bench --codec ... --validate: exit {run.returncode}: {run.stdout[-600:]}")
    if not os.path.exists(res):
        return
    recs = records.read(res)
    c.check(len(recs) == 32, f"{len(recs)} codec records, expected 32 (2 decompositions x 2 variants x 4 codecs x 2 directions)")
    bound = {"none": 1e-10, "fp32": 1e-6, "fp16": 1e-2, "bf16": 1e-1}
    for rec in recs:
        c.check(rec["validation"] == "pass", f"codec {rec['codec']}: validation {rec['validation']}")
        err = rec["reference_error"]
        c.check(err is not None and err <= bound[rec["codec"]], f"codec {rec['codec']}: error {err}")
        if rec["codec"] != "none":  # really compressed: more than double rounding
            c.check(err is not None and err > 1e-12, f"codec {rec['codec']}: error {err} looks uncompressed")


def plots(c, work, res, source):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib not installed for", sys.executable, "- tools/plot.py not tested")
        return
    figs = os.path.join(work, "figs")
    run = subprocess.run([sys.executable, os.path.join(source, "tools", "plot.py"), res, "-o", figs],
                         capture_output=True, text=True, timeout=300)
    c.check(run.returncode == 0, f"plot.py: {run.stderr}")
    for kind in ("runtime", "relative", "methods", "phases", "scaling"):
        found = glob.glob(os.path.join(figs, kind + "_*.png"))
        c.check(bool(found), f"plot.py wrote no {kind} figure")
        c.check(all(open(f, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for f in found), f"{kind} files are PNG")


def main():
    args = parse_args(lambda p: p.add_argument("--source", required=True, help="source tree (for tools/plot.py)"))
    r, c = Runner(args), Checks()
    res = suite(c, r, args.workdir, args.np)
    if res:
        plots(c, args.workdir, res, args.source)
    errors(c, r, args.workdir)
    codec_validation(c, r, args.workdir)
    return c.finish(f"dfft bench suite on {args.np} ranks")


if __name__ == "__main__":
    sys.exit(main())
