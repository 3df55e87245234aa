# SPDX-License-Identifier: MIT
"""Every subcommand's files and exit statuses (docs/cli.md): an input that is missing or not a regular
file exits 3 at once, an output path that is a link, a device, a FIFO or a directory exits 2 before any
work and is left alone, a write that fails (a full disk) exits 1 and leaves the earlier file whole,
repeated single-shape --size and sizes out of range are refused, and library messages carry one prefix.
The full-disk checks run twice: with a file-size limit (ulimit -f, no privileges needed) and on a small
tmpfs (skipped, with the reason, where it cannot be mounted)."""
import json
import os
import re
import stat
import subprocess
import sys

import numpy as np

from dfft_runner import Checks, Runner, fill_disk, parse_args, small_tmpfs

FAILURE, USAGE, INPUT = 1, 2, 3


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else "(nothing)"


def run(r, *argv, np=1, timeout=60, limit_kib=None):
    """dfft under mpiexec; a hang counts as exit 'timeout'. `limit_kib`: largest file the dfft processes
    (not mpiexec) may write, the way a full disk stops a write; their shared-memory transport, whose
    segment files the limit forbids, is left out."""
    prefix = list(r.prefix)
    prefix[2] = str(np)
    cmd, env = [r.args.dfft], None
    if limit_kib:
        cmd = ["bash", "-c", f"trap '' XFSZ; ulimit -f {limit_kib}; exec \"$0\" \"$@\"", r.args.dfft]
        env = dict(os.environ, OMPI_MCA_btl="self,tcp")
    try:
        return subprocess.run(prefix + cmd + [str(a) for a in argv], cwd=r.args.workdir, capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, "timeout", "", "(timed out)")


def expect(c, res, status, phrase, what):
    c.check(res.returncode == status, f"{what}: exit {res.returncode}, expected {status}: {res.stderr.strip()[:300]}")
    c.check(phrase in res.stderr, f"{what}: message lacks '{phrase}': {res.stderr.strip()[:300]}")
    c.check(not re.search(r"^dfft [\w -]+: (rank \d+: )?dfft: ", res.stderr, re.M),
            f"{what}: message prefixed twice: {res.stderr.strip()[:300]}")
    print(f"  {what}: exit {res.returncode}: {first_line(res.stderr)}", flush=True)


SMALL_BENCH = ("bench", "--size", "8", "6", "4", "--decomp", "slab-2d1d", "--variant", "default", "--method",
               "a2a-sync", "--reps", "1", "--warmup", "0", "--no-validate", "--no-reference")


def special_paths(work):
    """Paths that are not regular files: a FIFO, a directory, /dev/full, a link to a file."""
    fifo = os.path.join(work, "fifo")
    if os.path.lexists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    sub = os.path.join(work, "a-directory")
    os.makedirs(sub, exist_ok=True)
    target = os.path.join(work, "link-target.json")
    with open(target, "w") as f:
        f.write("the link's target\n")
    link = os.path.join(work, "link.json")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)
    return {"a FIFO": fifo, "a directory": sub, "/dev/full": "/dev/full"}, link, target


def outputs_refused(c, r, work):
    """Output paths that are not new or regular files: exit 2 before anything runs; nothing replaced."""
    special, link, target = special_paths(work)
    cases = [(name, path) for name, path in special.items()] + [("a symbolic link", link)]
    phrases = {"a directory": "directory", "a symbolic link": "symbolic link"}
    for name, path in cases:
        res = run(r, *SMALL_BENCH, "--json", path, np=2)
        expect(c, res, USAGE, phrases.get(name, "not a regular file"), f"bench --json to {name}")
        c.check("dfft bench: 1 configuration" not in res.stdout, f"bench --json to {name}: it ran first")
    # The other writers share the refusal: one case each.
    others = [("bench --csv", SMALL_BENCH + ("--csv",), link, "symbolic link"),
              ("bench --csv", SMALL_BENCH + ("--csv",), special["a FIFO"], "not a regular file"),
              ("model calibrate --file", ("model", "calibrate", "--reps", "1", "--fft-n", "8", "--file"), "/dev/full",
               "not a regular file")]
    records = os.path.join(work, "two-records.json")
    res = run(r, *SMALL_BENCH, "--json", records, np=2)
    c.check(res.returncode == 0, f"bench --json to a new file: exit {res.returncode}: {res.stderr[-300:]}")
    for what, argv, path, phrase in others:
        res = run(r, *[records if a == "RESULTS" else a for a in argv], path, np=1)
        expect(c, res, USAGE, phrase, f"{what} to {path}")
    c.check(os.path.islink(link) and open(target).read() == "the link's target\n",
            "a link given as output was replaced or followed")
    c.check(stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is no longer a device")
    c.check(stat.S_ISFIFO(os.lstat(special["a FIFO"]).st_mode), "the FIFO was replaced")
    c.check(not any(os.path.exists(p + ".dfft-tmp") for p in [link] + list(special.values()) if p != "/dev/full"),
            "a temporary file was left")


def inputs_refused(c, r, work):
    """A missing input file, or one that is not a regular file, exits 3 at once on every subcommand."""
    special, _, _ = special_paths(work)
    missing = os.path.join(work, "no-such-file.json")
    garbage = os.path.join(work, "garbage.jsonl")
    with open(garbage, "w") as f:
        f.write("this is not json\n{\"neither\": \"is this a record\"}\n")
    commands = [
        ("bench --cases", lambda p: ("bench", "--cases", p)),
        ("model fit", lambda p: ("model", "fit", p)),
        ("model check", lambda p: ("model", "check", p)),
        ("model cluster", lambda p: ("model", "cluster", "--machine", p)),
        ("model check --calibration", lambda p: ("model", "check", garbage, "--calibration", p)),
    ]
    kinds = list(special.items())
    for i, (what, argv) in enumerate(commands):
        res = run(r, *argv(missing), np=2)
        expect(c, res, INPUT, "no-such-file.json", f"{what} with a missing file")
        c.check("placeholder" not in res.stdout + res.stderr, f"{what}: went on with placeholder constants")
        name, path = kinds[i % len(kinds)]  # every kind on two or three of the readers
        res = run(r, *argv(path), np=2)
        expect(c, res, INPUT, "directory" if name == "a directory" else "not a regular file", f"{what} with {name}")
    for what, argv in commands[1:3]:
        res = run(r, *argv(garbage), np=1)
        expect(c, res, INPUT, "garbage.jsonl", f"{what} with a file of no records")


def sizes(c, r):
    """A single-shape --size given twice is refused; a size beyond 64 bits is out of range."""
    for sub in (("tune", "--no-wisdom"), ("tune", "--mode", "heuristic", "--no-wisdom")):
        res = run(r, *sub, "--size", "8", "8", "8", "--size", "6", "6", "6", np=1)
        expect(c, res, USAGE, "more than once", f"{sub[0]} --size twice")
        c.check(res.stdout.strip() == "", f"{sub[0]} --size twice: it ran: {res.stdout[:200]}")
    huge = "99999999999999999999"
    for sub in (("bench",), ("tune", "--no-wisdom"), ("bench", "--accuracy"), ("tune", "--mode", "heuristic")):
        res = run(r, *sub, "--size", huge, "8", "8", np=1)
        expect(c, res, USAGE, "out of range", f"{sub[0]} --size {huge}")
        c.check("whole number" not in res.stderr, f"{sub[0]} --size {huge}: called not a whole number")
    res = run(r, "bench", "--size", "8", "8", "--grid", huge, np=1)
    expect(c, res, USAGE, "out of range", f"bench --grid {huge}")


def one_prefix(c, r, work):
    """Library errors reach the user with the subcommand's prefix alone."""
    src = os.path.join(work, "in.npy")
    np.save(src, np.random.default_rng(1).standard_normal((4, 4, 4)))
    res = run(r, "transform", src, os.path.join(work, "out.npy"), "--decomp", "pencil", "--grid", "3x3", np=2)
    expect(c, res, USAGE, "dfft transform: ", "transform with a grid the ranks cannot fill")
    res = run(r, "bench", "--accuracy", "--size", "8", "8", "8", "--method", "carrier-pigeon", np=1)
    expect(c, res, USAGE, "carrier-pigeon", "bench --accuracy --method carrier-pigeon")


def bench_records(r, path, limit_kib=None):
    return run(r, *SMALL_BENCH, "--size", "9", "8", "6", "--decomp", "pencil", "--json", path, np=2, limit_kib=limit_kib)


def full_disk(c, r, work, outdir, limit_kib=None, fill=False, label=""):
    """Writes that fail part way: exit 1, the earlier file unchanged, no temporary file left. `fill`: fill
    `outdir` up before the records are written (they are smaller than what is left of a small tmpfs)."""
    big = os.path.join(work, "big.npy")
    np.save(big, np.random.default_rng(2).standard_normal((40, 40, 40)))  # the result takes 525 KiB
    out = os.path.join(outdir, "out.npy")
    np.save(out, np.arange(5.0))
    before = open(out, "rb").read()
    res = run(r, "transform", big, out, np=2, limit_kib=limit_kib, timeout=120)
    expect(c, res, FAILURE, "out.npy", f"{label}transform to a full disk")
    c.check(open(out, "rb").read() == before, f"{label}transform to a full disk: the earlier out.npy changed")
    c.check(not os.path.exists(out + ".dfft-tmp"), f"{label}transform to a full disk: temporary file left")
    c.check("->" not in res.stdout, f"{label}transform to a full disk: printed its success line")
    records = os.path.join(outdir, "records.json")
    with open(records, "w") as f:
        f.write("earlier records\n")
    if fill:
        fill_disk(outdir)
    res = bench_records(r, records, limit_kib)
    expect(c, res, FAILURE, "records.json", f"{label}bench --json to a full disk")
    c.check(open(records).read() == "earlier records\n", f"{label}bench --json to a full disk: earlier records changed")
    c.check(not os.path.exists(records + ".dfft-tmp"), f"{label}bench --json to a full disk: temporary file left")


def fsize_limit(c, r, work):
    """The full disk as a file-size limit of 4 KiB: the .npy (525 KiB) and the 8 records (some KiB) exceed
    it. The records are written without a limit first, so that a run the limit breaks elsewhere is told
    apart."""
    records = os.path.join(work, "unlimited.json")
    res = bench_records(r, records)
    recs = [json.loads(l) for l in open(records)] if os.path.exists(records) else []
    c.check(res.returncode == 0 and len(recs) == 8 and os.path.getsize(records) > 4096,
            f"bench --json without a limit: exit {res.returncode}, {len(recs)} records")
    full_disk(c, r, work, work, limit_kib=4, label="file-size limit: ")


def tmpfs(c, r, work):
    """The issue's own case: a 128 KiB tmpfs. Needs the right to mount; skipped with the reason without it."""
    with small_tmpfs(work, 128) as mnt:
        if mnt:
            full_disk(c, r, work, mnt, fill=True, label="128 KiB tmpfs: ")


def docs(c, source):
    text = open(os.path.join(source, "docs", "cli.md")).read()
    for phrase in ("symbolic link", "full disk", "more than once", "out of range"):
        c.check(phrase in text, f"docs/cli.md does not mention '{phrase}'")


def main():
    args = parse_args(lambda p: p.add_argument("--source", required=True))
    r, c = Runner(args), Checks()
    outputs_refused(c, r, args.workdir)
    inputs_refused(c, r, args.workdir)
    sizes(c, r)
    one_prefix(c, r, args.workdir)
    fsize_limit(c, r, args.workdir)
    tmpfs(c, r, args.workdir)
    docs(c, args.source)
    return c.finish("dfft files and exit statuses")


if __name__ == "__main__":
    sys.exit(main())
