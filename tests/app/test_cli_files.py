# SPDX-License-Identifier: MIT
"""Files a run must never lose or misuse, and one exit status per outcome (docs/cli.md,
docs/tuning.md): a wisdom file that is not dfft wisdom is refused with exit 3 by every subcommand
that would update it and left byte for byte; output paths in a folder that does not exist are
refused before any work; a wisdom write that fails (a full tmpfs) exits 1 and
leaves the earlier file whole; entries of another key format survive a rewrite; options that
exclude each other are refused naming both; a plan that does not fit in memory exits 1."""
import json
import os
import shutil
import sys

import numpy as np

from dfft_runner import Checks, Runner, fill_disk, parse_args, small_tmpfs
from test_cli_status import FAILURE, INPUT, USAGE, expect, run

QUICK = ("--reps", "1", "--warmup", "0", "--finalists", "0")
TUNE = ("tune", "--size", "8", "6", "4") + QUICK


def updaters(work):
    """Every subcommand that updates a wisdom file, as argv for the file's path."""
    src = os.path.join(work, "in.npy")
    np.save(src, np.random.default_rng(3).standard_normal((8, 6, 4)))
    out = os.path.join(work, "out.npy")
    return [("tune --wisdom", lambda p: TUNE + ("--wisdom", p)),
            ("bench --tune=measure --wisdom", lambda p: ("bench", "--size", "8", "6", "4", "--reps", "1", "--warmup",
                                                         "0", "--tune=measure", "--wisdom", p)),
            ("transform --tune measure --wisdom", lambda p: ("transform", src, out, "--tune", "measure", "--wisdom", p)),
            ("model calibrate --file", lambda p: ("model", "calibrate", "--reps", "1", "--fft-n", "8", "--file", p))]


def foreign_wisdom(c, r, work):
    """A user's JSON and a truncated wisdom file: exit 3 on every updater, the file unchanged."""
    good = os.path.join(work, "good-wisdom.json")
    res = run(r, *TUNE, "--wisdom", good, np=2)
    c.check(res.returncode == 0 and os.path.exists(good), f"tune to a new wisdom file: exit {res.returncode}")
    truncated = open(good, "rb").read()[:-40] if os.path.exists(good) else b"{\"dfft_wisdom\": 1, \"entr"
    files = {"a user's JSON": b'{"my_project_settings": 1}\n', "a truncated wisdom file": truncated,
             "an empty file": b""}
    for what, argv in updaters(work):
        for name, content in files.items():
            path = os.path.join(work, "theirs.json")
            with open(path, "wb") as f:
                f.write(content)
            res = run(r, *argv(path), np=2)
            expect(c, res, INPUT, "theirs.json", f"{what} {name}")
            c.check(open(path, "rb").read() == content, f"{what} {name}: the file changed")
            c.check(not os.path.exists(path + ".dfft-tmp"), f"{what} {name}: temporary file left")


def outputs_checked_first(c, r, work):
    """An output in a folder that does not exist: exit 2 at once, nothing run, one message prefix."""
    nodir = os.path.join(work, "no-such-folder")
    src = os.path.join(work, "in.npy")
    cases = [("tune --wisdom", TUNE + ("--wisdom", f"{nodir}/w.json")),
             ("tune --json", TUNE + ("--no-wisdom", "--json", f"{nodir}/x.jsonl")),
             ("bench --json", ("bench", "--size", "8", "6", "4", "--reps", "1", "--json", f"{nodir}/x.jsonl")),
             ("bench --tune=measure --wisdom", ("bench", "--size", "8", "6", "4", "--tune=measure", "--wisdom",
                                                f"{nodir}/w.json")),
             ("transform OUT", ("transform", src, f"{nodir}/out.npy")),
             ("model calibrate --file", ("model", "calibrate", "--reps", "1", "--file", f"{nodir}/w.json"))]
    for what, argv in cases:
        res = run(r, *argv, np=2)
        expect(c, res, USAGE, "no-such-folder", f"{what} in a missing folder")
        c.check(res.stderr.count("cannot write") == 1, f"{what}: not one message: {res.stderr[:300]}")
        c.check(res.stdout.strip() == "" or "candidate" not in res.stdout, f"{what}: it ran first")
    c.check(not os.path.exists(nodir), "the missing folder was made")


def kept_entries(c, r, work):
    """Entries this version cannot read (another key format) are ignored for lookup and kept."""
    path = os.path.join(work, "mixed.json")
    old = [{"key": {"shape": [8, 6, 4], "format": "older"}, "choice": {"decomposition": "slab"}, "n": i}
           for i in range(60)]
    with open(path, "w") as f:
        json.dump({"dfft_wisdom": 1, "entries": old, "calibrations": []}, f)
    res = run(r, *TUNE, "--wisdom", path, np=2)
    c.check(res.returncode == 0, f"tune with entries of another format: exit {res.returncode}: {res.stderr[-300:]}")
    doc = json.load(open(path))
    kept = [e for e in doc["entries"] if e.get("key", {}).get("format") == "older"]
    c.check(len(kept) == 60 and len(doc["entries"]) == 61,
            f"entries of another format were not kept: {len(kept)} of 60, {len(doc['entries'])} in all")
    c.check("wisdom hit" not in res.stdout, "an entry of another format was used")
    return path


def failed_write(c, r, work, outdir, fill=False, label=""):
    """A wisdom write that fails (the merged file is larger than what may be written): exit 1, the
    earlier file byte for byte, no temporary file."""
    path = os.path.join(outdir, "wisdom.json")
    shutil.copy(os.path.join(work, "mixed.json"), path)  # some KiB
    before = open(path, "rb").read()
    if fill:
        fill_disk(outdir)
    res = run(r, "tune", "--size", "6", "6", "6", *QUICK, "--wisdom", path, np=2)
    expect(c, res, FAILURE, "wisdom.json", f"{label}tune, wisdom write on a full disk")
    c.check(open(path, "rb").read() == before, f"{label}the earlier wisdom file changed")
    c.check(not os.path.exists(path + ".dfft-tmp"), f"{label}temporary file left")


def full_disk(c, r, work):
    with small_tmpfs(work, 64) as mnt:
        if mnt:
            failed_write(c, r, work, mnt, fill=True, label="64 KiB tmpfs: ")


def statuses(c, r, work):
    """Options that exclude each other, named both; a plan that does not fit in memory exits 1."""
    src = os.path.join(work, "in.npy")
    out = os.path.join(work, "out.npy")
    conflicts = [("transform --quiet --verbose", ("transform", src, out, "--quiet", "--verbose"), "--verbose"),
                 ("tune --wisdom --no-wisdom", TUNE + ("--wisdom", "w.json", "--no-wisdom"), "--no-wisdom"),
                 ("tune --decomp", TUNE + ("--no-wisdom", "--decomp", "pencil"), "--decomp"),
                 ("bench --tune=measure --method", ("bench", "--size", "8", "8", "--tune=measure", "--method",
                                                    "a2a-sync"), "--method"),
                 ("transform --tune measure --variant", ("transform", src, out, "--tune", "measure", "--variant",
                                                         "realigned"), "--variant")]
    for what, argv, flag in conflicts:
        res = run(r, *argv, np=2)
        expect(c, res, USAGE, flag, what)
        other = "--quiet" if flag == "--verbose" else "--wisdom" if flag == "--no-wisdom" else "--tune"
        other = "--mode" if what.startswith("tune --decomp") else other
        c.check(other in res.stderr, f"{what}: the message does not name {other}: {res.stderr[:300]}")
    limit = ("--memory-limit-bytes", "1000")
    for what, argv in [("bench", ("bench", "--size", "16", "16", "16", "--reps", "1", "--no-validate",
                                  "--no-reference") + limit),
                       ("transform", ("transform", src, out) + limit)]:
        res = run(r, *argv, np=2)
        c.check(res.returncode == FAILURE, f"{what} of a plan that does not fit: exit {res.returncode}, expected 1")


def main():
    args = parse_args()
    r, c = Runner(args), Checks()
    os.makedirs(args.workdir, exist_ok=True)
    foreign_wisdom(c, r, args.workdir)
    outputs_checked_first(c, r, args.workdir)
    kept_entries(c, r, args.workdir)
    full_disk(c, r, args.workdir)
    statuses(c, r, args.workdir)
    return c.finish("dfft wisdom files, outputs and exit statuses")


if __name__ == "__main__":
    sys.exit(main())
