# SPDX-License-Identifier: MIT
"""The rough edges of the `dfft` command line: output targets of `dfft transform`, validation limits
of compressed exchanges, what `dfft bench` prints, how `dfft tune` ranks and decides, bad sizes and
ranges, one exit status per kind of error (docs/cli.md), and numbers the docs state."""
import json
import math
import os
import re
import stat
import sys

import numpy as np

from dfft_runner import Checks, Runner, parse_args

USAGE, INPUT, VALIDATION = 2, 3, 4


def first_line(text):
    text = text.strip()
    return text.splitlines()[0] if text else "(nothing)"


def output_targets(c, r, work):
    """OUT that is not a new or regular file, or is the input, is refused before any work."""
    src = os.path.join(work, "in.npy")
    a = np.random.default_rng(3).standard_normal((9, 8, 6))
    np.save(src, a)
    fifo = os.path.join(work, "fifo.npy")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    targets = [("a FIFO", fifo, stat.S_ISFIFO, "not a regular file")]
    node = os.path.join(work, "null-node")
    if os.path.lexists(node):
        os.remove(node)
    try:  # a character device of our own (the null device's numbers), never a real /dev entry
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append(("a device node", node, stat.S_ISCHR, "not a regular file"))
    except (PermissionError, OSError) as e:
        print(f"  device node: skipped ({e})")
    target = os.path.join(work, "target.npy")
    np.save(target, np.zeros(3))
    link = os.path.join(work, "link.npy")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)
    targets.append(("a symbolic link", link, stat.S_ISLNK, "symbolic link"))
    same = os.path.join(work, "sub", "..", "in.npy")
    os.makedirs(os.path.join(work, "sub"), exist_ok=True)
    hard = os.path.join(work, "hard.npy")
    if os.path.lexists(hard):
        os.remove(hard)
    os.link(src, hard)
    targets += [("the input itself", src, stat.S_ISREG, "is the input file"),
                ("the input by another path", same, stat.S_ISREG, "is the input file"),
                ("a hard link to the input", hard, stat.S_ISREG, "is the input file")]
    before = open(src, "rb").read()
    for what, out, kind, phrase in targets:
        run = r.dfft("transform", src, out, timeout=60)
        c.check(run.returncode == USAGE, f"transform to {what}: exit {run.returncode}, expected {USAGE}")
        c.check(phrase in run.stderr and run.stderr.startswith("dfft transform:"),
                f"transform to {what}: message lacks '{phrase}': {run.stderr.strip()[:300]}")
        c.check(kind(os.lstat(out).st_mode), f"transform to {what}: the target was replaced")
        c.check(not os.path.exists(out + ".dfft-tmp"), f"transform to {what}: temporary file left")
        print(f"  {what}: {first_line(run.stderr)}", flush=True)
    c.check(open(src, "rb").read() == before, "the input file changed")
    c.check(np.array_equal(np.load(target), np.zeros(3)), "the symlink's target changed")
    # --in-place rewrites an existing regular file itself: same inode, correct content.
    out = os.path.join(work, "inplace.npy")
    np.save(out, np.zeros(2))
    ino = os.stat(out).st_ino
    run = r.dfft("transform", src, out, "--in-place", "--quiet")
    c.check(run.returncode == 0, f"--in-place: exit {run.returncode}: {run.stderr[-300:]}")
    if run.returncode == 0:
        c.check(os.stat(out).st_ino == ino, "--in-place: the file was replaced, not rewritten")
        got = np.load(out)
        c.check(got.shape == (9, 8, 4) and np.allclose(got, np.fft.rfftn(a), rtol=0, atol=1e-10), "--in-place: wrong result")
    run = r.dfft("transform", src, os.path.join(work, "absent.npy"), "--in-place")
    c.check(run.returncode == USAGE and "existing regular file" in run.stderr, f"--in-place on a new file: {run.stderr[-300:]}")


def codec_validation(c, r):
    """Every codec passes where its error is within docs/compression.md's expectation."""
    run = r.dfft("bench", "--size", "64", "64", "64", "--decomp", "pencil", "--variant", "default", "--method",
                 "a2a-sync", "--codec", "none,fp32,fp16,bf16", "--validate", "--reps", "2", "--warmup", "1", np=2)
    c.check(run.returncode == 0, f"bench --codec none,fp32,fp16,bf16 --validate: exit {run.returncode}:\n{run.stdout[-1500:]}")
    header = next((l for l in run.stdout.splitlines() if l.startswith("decomp")), "")
    c.check(" codec " in f" {header} ", f"no codec column in the table header: {header}")
    for codec in ("fp32", "fp16", "bf16"):
        rows = [l for l in run.stdout.splitlines()
                if re.search(rf"\s{codec}\s", l) and l.split()[:1] in (["slab-2d1d"], ["slab-1d2d"], ["pencil"])]
        c.check(len(rows) == 2 and all(l.rstrip().endswith("pass") for l in rows), f"{codec} rows: {rows}")


def bench_output(c, r, work):
    run = r.dfft("bench", "--help", np=1)
    for word in ("ovl", "rt/lap", "error", "check", "GF/s", "fastest", "noisy", "max/median"):
        c.check(word in run.stdout, f"bench --help does not explain '{word}'")
    run = r.dfft("bench", "--size", "12", "10", "8", "--size", "9x8x6", "--decomp", "slab-2d1d,pencil",
                 "--method", "a2a-sync,p2p-sync", "--variant", "default", "--reps", "2", "--warmup", "0",
                 "--progress", np=2)
    out = run.stdout.splitlines()
    c.check(run.returncode == 0, f"bench sweep: exit {run.returncode}: {run.stderr[-300:]}")
    c.check(not any("elapsed" in l for l in out) and any("elapsed" in l for l in run.stderr.splitlines()),
            "progress lines belong on stderr, not in the table on stdout")
    fastest = [l for l in out if re.match(r"\s+(12x10x8|9x8x6) double r2c: ", l)]
    c.check(len(fastest) == 2, f"no fastest configuration per size at the end: {out[-6:]}")
    # One rank: the decompositions and methods are all the same local transform.
    run = r.dfft("bench", "--size", "12", "10", "8", "--reps", "2", "--warmup", "0", np=1)
    c.check(run.returncode == 0 and "dfft bench: 1 configuration:" in run.stdout and "same local transform" in run.stderr,
            f"one rank runs one configuration per size: {run.stdout[-300:]} {run.stderr[-300:]}")
    # The summary counts every record the JSON file holds (single-device rows included).
    path = os.path.join(work, "ref.jsonl")
    run = r.dfft("bench", "--size", "12", "10", "8", "--decomp", "pencil", "--method", "a2a-sync", "--variant",
                 "default", "--reference", "--reps", "2", "--warmup", "0", "--json", path, np=2)
    lines = sum(1 for _ in open(path)) if os.path.exists(path) else -1
    m = re.search(r"\((\d+) records(?: \+ (\d+) single-device)?\)", run.stdout)
    total = int(m.group(1)) + int(m.group(2) or 0) if m else -2
    c.check(total == lines, f"summary counts {total} records, the file holds {lines}")


def records_of(path):
    return [json.loads(l) for l in open(path)] if os.path.exists(path) else []


def option_table(c, r, work):
    """The plan options of the library's table: --help sections per group, flags made from the
    table, cases-file keys that sweep, records that name the options by field."""
    groups = ("problem", "decomposition", "exchange", "overlap", "tuning", "device", "memory")
    for sub in ("bench", "tune", "transform"):
        run = r.dfft(sub, "--help", np=1)
        heads = [l.rstrip(":") for l in run.stdout.splitlines() if re.fullmatch(r"[a-z]+:", l.strip())]
        c.check(all(g in heads for g in groups), f"{sub} --help sections {heads}, expected the groups {groups}")
    run = r.dfft("bench", "--help", np=1)
    for flag in ("--codec", "--chunks", "--memory-limit-bytes", "--r2r", "--batch", "--no-fftw-wisdom"):
        c.check(flag in run.stdout, f"bench --help lacks {flag}")
    cases = os.path.join(work, "option-keys.json")
    with open(cases, "w") as f:
        json.dump({"global": {"codec": ["none", "fp16"], "memory_limit_bytes": 1 << 40, "reps": 1, "warmup": 0},
                   "tests": [{"sizes": ["12x10x8"], "decomposition": "pencil", "variant": "default",
                              "method": "a2a-sync", "onesided_sync": "flush"}]}, f)
    out = os.path.join(work, "option-keys.jsonl")
    run = r.dfft("bench", "--cases", cases, "--json", out, np=2)
    recs = records_of(out)
    c.check(run.returncode == 0 and len(recs) == 4, f"cases keys: exit {run.returncode}, {len(recs)} records: "
                                                    f"{run.stdout[-400:]}{run.stderr[-400:]}")
    c.check(sorted({x["codec"] for x in recs}) == ["fp16", "none"], f"codec key: {[x['codec'] for x in recs]}")
    c.check(all(x.get("memory_limit_bytes") == 1 << 40 and x.get("onesided_sync") == "flush" for x in recs),
            f"option keys in the records: {[(x.get('memory_limit_bytes'), x.get('onesided_sync')) for x in recs]}")
    run = r.dfft("bench", "--cases", cases, "--codec", "bf16", "--json", out, np=2)  # the command line wins
    c.check(sorted({x["codec"] for x in records_of(out)}) == ["bf16"], f"--codec over the file: {run.stdout[-300:]}")
    run = r.dfft("bench", "--size", "12", "10", "8", "--decomp", "pencil", "--variant", "default", "--method",
                 "a2a-sync", "--reps", "1", "--warmup", "0", "--batch", "1,2", "--validate", "--json", out, np=2)
    batches = sorted(x.get("batch", 1) for x in records_of(out))
    c.check(run.returncode == 0 and batches == [1, 1, 2, 2], f"--batch 1,2 sweeps: {batches} {run.stderr[-300:]}")
    # Validation checks every member of a batch against the one serial reference (it read the
    # batch axis as the first array axis and failed every batched plan).
    c.check(all(x.get("validation") == "pass" for x in records_of(out)),
            f"batched plans validate: {[(x.get('batch', 1), x.get('validation')) for x in records_of(out)]}")
    # A batch of 2 does twice the flops of one array in its time, and the table tells the rows apart.
    n = 12 * 10 * 8
    for x in records_of(out):
        want = x.get("batch", 1) * 2.5 * n * math.log2(n) / (x["time_ms"]["median"] * 1e-3) / 1e9
        c.check(abs(x["gflops"] - want) <= 1e-9 * want, f"batch {x.get('batch', 1)}: GF/s {x['gflops']} != {want}")
    c.check("12x10x8 batch 2" in run.stdout and run.stdout.count("12x10x8 double r2c") == 1,
            f"batched rows and their own fastest line: {run.stdout[-900:]}")
    # Real DCT/DST plans (--transform r2r) run the round trip; the serial reference and the
    # Laplacian are periodic FFTs and are left out for plans with DCT/DST axes, r2c and c2c ones too
    # (they called the complex overloads on r2r plans, and failed the mixed ones against an FFT).
    for tr, kinds in (("r2r", "dct1,dst2,dct4"), ("r2c", "dst3,dct2,none"), ("c2c", "none,dct3,dst1")):
        run = r.dfft("bench", "--size", "12", "10", "9", "--decomp", "pencil", "--variant", "default", "--method",
                     "a2a-sync", "--reps", "1", "--warmup", "0", "--transform", tr, "--r2r", kinds, "--validate",
                     "--json", out, np=2)
        recs = records_of(out)
        c.check(run.returncode == 0 and recs and all(x.get("validation") == "pass" for x in recs),
                f"{tr} --r2r {kinds} validates: {[x.get('validation') for x in recs]} {run.stderr[-300:]}")
        c.check(all(x.get("roundtrip_error") is not None and x["roundtrip_error"] < 1e-12 for x in recs
                    if x.get("direction") == "inverse"), f"{tr} --r2r {kinds}: round trip error missing or large")
    run = r.dfft("bench", "--size", "12", "10", "8", "--batch", "two", np=1)
    c.check(run.returncode == USAGE and "batch" in run.stderr, f"--batch two: exit {run.returncode} {run.stderr[-300:]}")


def options_schema(c, r, source):
    """`dfft options` prints the option table, which the Python tools read as tools/option_fields.json."""
    run = r.dfft("options", np=1)
    with open(os.path.join(source, "tools", "option_fields.json")) as f:
        stored = f.read()
    c.check(run.returncode == 0 and run.stdout == stored,
            f"dfft options: exit {run.returncode}, output equals tools/option_fields.json: {run.stdout == stored}")
    fields = json.loads(run.stdout)["fields"] if run.returncode == 0 else []
    c.check(any(f["name"] == "tolerance" and f["wisdom_key"] for f in fields), "dfft options: tolerance in the key")


def tune_ranking(c, r, work):
    run = r.dfft("tune", "--size", "16", "12", "10", "--no-wisdom", "--reps", "3", np=2, timeout=300)
    c.check(run.returncode == 0, f"tune: exit {run.returncode}: {run.stderr[-300:]}")
    finals, medians = [], []  # after the chosen row: the finalists by final ms, then the rest by median ms
    for line in run.stdout.splitlines():
        f = line.split()
        vs = [i for i, x in enumerate(f) if re.fullmatch(r"[\d.]+x", x)]
        if len(f) > 3 and f[0].isdigit() and "measured" in line and vs and "<- chosen" not in line:
            median, final = f[vs[-1] - 5], f[vs[-1] - 3]  # median, first, final, spread, reps, "vs best"
            if final != "-":
                c.check(not medians, "a finalist is ranked below a candidate that was not timed again")
                finals.append(float(final))
            else:
                medians.append(float(median))
    c.check(finals == sorted(finals) and len(medians) >= 2 and medians == sorted(medians),
            f"tune rows are not in the tuner's order: finals {finals}, medians {medians}")
    chosen = [l for l in run.stdout.splitlines() if "<- chosen" in l]
    c.check(bool(chosen) and chosen[0].split()[0] == "1", f"the chosen row is not ranked first: {chosen}")
    f = chosen[0].split() if chosen else []
    vs = [i for i, x in enumerate(f) if re.fullmatch(r"[\d.]+x", x)]
    c.check(bool(vs) and f[vs[-1] - 3] != "-", f"the chosen row has no final-round time: {chosen}")
    c.check("certainty:" in run.stdout and "gap" in run.stdout and "spread" in run.stdout,
            "tune does not say how sure the choice is")


def sizes_and_ranges(c, r):
    bad = [(("bench", "--size", "-4", "4", "4"), ">= 1"), (("bench", "--size", "0", "8", "8"), ">= 1"),
           (("bench", "--size", "8"), "at least 2"), (("bench", "--reps", "0"), ">= 1"),
           (("bench", "--warmup", "-1"), ">= 0"), (("transform", "a.npy", "b.npy", "--last-n", "0"), ">= 1"),
           (("tune", "--size", "8x0x8"), ">= 1"), (("bench", "--accuracy", "--size", "8", "-1"), ">= 1"),
           (("bench", "--transform", "r2r"), "r2r"), (("bench", "--bogus"), "bogus"),
           (("bench", "--grid", "0x2", "--size", "8", "8"), ">= 1"),
           (("bench", "--accuracy", "--size", "8x8x8", "--decomp", "cube"), "cube"),
           (("bench", "--accuracy", "--reps", "3"), "--reps does not apply to --accuracy"),
           (("bench", "--accuracy", "--no-validate"), "does not apply to --accuracy"),
           (("tune", "--size", "8x8x8", "--grid", "3", "--no-wisdom"), "grid")]
    for argv, phrase in bad:
        run = r.dfft(*argv, np=2, timeout=60)
        sub = argv[0]
        what = " ".join(argv)
        c.check(run.returncode == USAGE, f"{what}: exit {run.returncode}, expected {USAGE}")
        c.check(run.stderr.startswith(f"dfft {sub}:") and phrase in run.stderr,
                f"{what}: message without 'dfft {sub}:' or '{phrase}': {run.stderr.strip()[:300]}")
        c.check(not re.search(r"\d{20}", run.stderr), f"{what}: a huge number in the message: {run.stderr[:300]}")
        refused_by_plan = argv[0] == "tune" and "--grid" in argv  # known only once candidates are built
        c.check("skipped" not in run.stdout and (refused_by_plan or run.stdout.strip() == ""),
                f"{what}: it ran something: {run.stdout[:300]}")
        print(f"  {what}: {first_line(run.stderr)}", flush=True)
    # One size syntax for every subcommand.
    run = r.dfft("bench", "--accuracy", "--size", "8x8x8", np=1)
    c.check(run.returncode == 0, f"bench --accuracy --size 8x8x8: exit {run.returncode}: {run.stderr[-300:]}")
    for sub in ("bench", "tune"):
        run = r.dfft(sub, "--help", np=1)
        c.check("INT x 2" not in run.stdout and "NXxNYxNZ" in run.stdout, f"{sub} --help shows another size syntax")


def moved_commands(c, r):
    """A command that moved exits 2 at once, whatever its arguments, naming the spelling that does its
    job; the help lists it no more."""
    moved = [(("accuracy", "--size", "8", "8", "8"), "dfft bench --accuracy"), (("accuracy", "--help"), "dfft bench --accuracy"),
             (("model", "predict", "--size", "8", "8", "8", "--top", "3"), "dfft tune --mode heuristic"),
             (("model", "predict", "--help"), "dfft tune --mode heuristic")]
    for argv, now in moved:
        run = r.dfft(*argv, np=2, timeout=60)
        what = " ".join(argv)
        c.check(run.returncode == USAGE, f"{what}: exit {run.returncode}, expected {USAGE}: {run.stderr[-300:]}")
        c.check(run.stderr.startswith(f"dfft {argv[0]}:") and run.stderr.count(f"`{now}`") == 1,
                f"{what}: message without 'dfft {argv[0]}:' or `{now}` (or on every rank): {run.stderr.strip()[:300]}")
        c.check(run.stdout.strip() == "", f"{what}: it printed {run.stdout[:300]}")
        print(f"  {what}: {first_line(run.stderr)}", flush=True)
    for argv, gone in ((("--help",), "accuracy"), (("model", "--help"), "predict")):
        run = r.dfft(*argv, np=1)
        c.check(run.returncode == 0 and not re.search(rf"^\s+{gone}\b", run.stdout, re.M),
                f"dfft {' '.join(argv)} still lists {gone}: {run.stdout[-600:]}")


def docs_numbers(c, r, source):
    run = r.dfft("bench", "--list", np=2)
    m = re.search(r"dfft bench: (\d+) configurations", run.stdout)
    n = int(m.group(1)) if m else -1
    text = open(os.path.join(source, "docs", "bench.md")).read()
    para = text[text.find("**Default sweep.**"):]
    said = re.findall(r"\((\d+) configurations", para[:para.find("\n\n")])
    c.check(said and all(int(x) == n for x in said), f"docs/bench.md says the default sweep has {said}, --list gives {n}")
    table = open(os.path.join(source, "docs", "cli.md")).read() if os.path.exists(os.path.join(source, "docs", "cli.md")) else ""
    for code in range(5):
        c.check(f"| {code} |" in table, f"docs/cli.md lacks exit status {code}")


def main():
    args = parse_args(lambda p: p.add_argument("--source", required=True))
    r, c = Runner(args), Checks()
    output_targets(c, r, args.workdir)
    sizes_and_ranges(c, r)
    moved_commands(c, r)
    docs_numbers(c, r, args.source)
    bench_output(c, r, args.workdir)
    codec_validation(c, r)
    tune_ranking(c, r, args.workdir)
    option_table(c, r, args.workdir)
    options_schema(c, r, args.source)
    return c.finish("dfft command line")


if __name__ == "__main__":
    sys.exit(main())
