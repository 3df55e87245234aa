# SPDX-License-Identifier: MIT
"""`dfft tune` as a user meets it: the wisdom it writes is found by `dfft bench --tune measure`,
by default in the machine's wisdom file (DFFT_WISDOM names another or turns it off), a wisdom
path that is not a regular file is refused at once, tune prints progress lines unless stderr is a
file (bench and model calibrate only when asked for on a pipe), a plan that does not fit in
memory exits 1 and a failed --validate 4, and --mode heuristic prints the analytic model's
ranking and stores nothing."""
import os
import re
import subprocess
import time

from dfft_runner import Checks, Runner, parse_args

SIZE = ("--size", "12", "10", "8")
QUICK_TUNE = ("--reps", "2", "--warmup", "0", "--final-reps", "2")


def wisdom_shared(c, r, work):
    path = os.path.join(work, "w.json")
    if os.path.exists(path):
        os.remove(path)
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--wisdom", path, np=2)
    c.check(run.returncode == 0 and "wisdom written" in run.stdout, f"tune: exit {run.returncode}: {run.stderr[-300:]}")
    chosen = re.search(r"; chose (.+?) \(", run.stdout)
    run = r.dfft("bench", *SIZE, "--tune=measure", "--wisdom", path, "--reps", "2", "--warmup", "0",
                 "--no-validate", "--no-reference", np=2)
    out = run.stdout + run.stderr
    c.check(run.returncode == 0, f"bench --tune measure: exit {run.returncode}: {run.stderr[-300:]}")
    c.check("wisdom hit" in out and "none of the" not in out,
            f"bench --tune measure does not find the wisdom tune wrote: {out[-600:]}")
    c.check(bool(chosen) and chosen.group(1) in out, f"bench did not run the plan tune chose ({chosen and chosen.group(1)})")


def wisdom_not_a_file(c, r, work):
    for path in ("/dev/full", work):
        t0 = time.time()
        try:
            run = r.dfft("tune", "--size", "8", "8", "8", "--reps", "1", "--wisdom", path, np=2, timeout=60)
        except subprocess.TimeoutExpired:
            c.check(False, f"tune --wisdom {path} still runs after 60 s")
            continue
        c.check(run.returncode != 0 and ("not a regular file" in run.stderr or "is a directory" in run.stderr),
                f"tune --wisdom {path}: exit {run.returncode}: {run.stderr[-300:]}")
        c.check(time.time() - t0 < 30, f"tune --wisdom {path} took {time.time() - t0:.0f} s to refuse")


def progress(c, r, work):
    def lines(text, who):
        return [l for l in text.splitlines() if l.startswith(who + ":") and "elapsed" in l]

    # Under mpirun a rank's stderr is a pipe whether or not a person watches: tune (minutes of
    # work) prints progress there by default, and not when stderr is a file or --no-progress.
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--no-wisdom", np=2)
    got = lines(run.stderr, "dfft tune")
    c.check(run.returncode == 0 and got and all("%" in l and ("left" in l or "done" in l) for l in got),
            f"tune prints no progress line on a pipe by default: {run.stderr[-300:]}")
    c.check(not lines(run.stdout, "dfft tune"), "progress lines belong on stderr")
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--no-wisdom", "--no-progress", np=2)
    c.check(run.returncode == 0 and not lines(run.stderr, "dfft tune"),
            f"tune --no-progress prints progress: {run.stderr[-300:]}")
    log = os.path.join(work, "tune-stderr.txt")
    with open(log, "w") as f:  # one rank without mpirun: its stderr is the file itself
        run = subprocess.run([r.args.dfft, "tune", *SIZE, *QUICK_TUNE, "--no-wisdom"], cwd=work, stderr=f,
                             stdout=subprocess.PIPE, text=True, timeout=120,
                             env={k: v for k, v in os.environ.items() if k != "DFFT_WISDOM"})
    c.check(run.returncode == 0 and not lines(open(log).read(), "dfft tune"),
            f"tune prints progress into a file unasked: {open(log).read()[-300:]}")
    sweep = ("bench", *SIZE, "--decomp", "slab-2d1d,pencil", "--method", "a2a-sync,p2p-sync,a2a-type",
             "--variant", "default,realigned", "--reps", "1", "--warmup", "0", "--no-validate", "--no-reference")
    run = r.dfft(*sweep, np=2)  # 12 configurations
    c.check(run.returncode == 0 and not lines(run.stderr, "dfft bench"),
            f"bench prints progress on a pipe unasked: {run.stderr[-300:]}")
    run = r.dfft(*sweep, "--progress", np=2)
    c.check(run.returncode == 0 and any("[12/12]" in l for l in lines(run.stderr, "dfft bench")),
            f"bench --progress: {run.stderr[-300:]}")
    cal = os.path.join(work, "cal.json")
    run = r.dfft("model", "calibrate", "--reps", "1", "--fft-n", "8", "--file", cal, "--progress", np=2)
    c.check(run.returncode == 0 and lines(run.stderr, "dfft model calibrate"),
            f"model calibrate --progress: {run.stderr[-300:]}")
    run = r.dfft("model", "calibrate", "--reps", "1", "--fft-n", "8", "--file", cal, np=2)
    c.check(run.returncode == 0 and not lines(run.stderr, "dfft model calibrate"),
            f"model calibrate prints progress on a pipe unasked: {run.stderr[-300:]}")


def default_wisdom(c, r, work):
    """Without --wisdom, tune writes the machine's wisdom file (the one plans read), where
    DFFT_WISDOM points it; DFFT_WISDOM=off stores nothing."""
    path = os.path.join(work, "default-wisdom.json")
    if os.path.exists(path):
        os.remove(path)
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--no-progress", np=2, env={"DFFT_WISDOM": path})
    c.check(run.returncode == 0 and f"wisdom written to {path}" in run.stdout and os.path.exists(path),
            f"tune without --wisdom: {run.returncode} {run.stdout[-300:]}{run.stderr[-300:]}")
    run = r.dfft("bench", *SIZE, "--tune=measure", "--reps", "1", "--warmup", "0", "--no-validate",
                 "--no-reference", np=2, env={"DFFT_WISDOM": path})
    c.check(run.returncode == 0 and f"wisdom hit in {path}" in run.stdout + run.stderr,
            f"bench --tune=measure does not find the default wisdom: {(run.stdout + run.stderr)[-400:]}")
    off = os.path.join(work, "wisdom-dir")
    before = sorted(os.listdir(off))
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--no-progress", np=2, env={"DFFT_WISDOM": "off"})
    c.check(run.returncode == 0 and "wisdom written" not in run.stdout and "DFFT_WISDOM=off" in run.stderr
            and sorted(os.listdir(off)) == before,
            f"tune with DFFT_WISDOM=off: {run.returncode} {run.stdout[-300:]}{run.stderr[-300:]}")


def exit_statuses(c, r, work):
    """docs/cli.md: a plan that does not fit in memory exits 1 in tune as in bench; a --validate
    check that fails exits 4 (here a limit no transform meets), one that passes 0."""
    small = ("--size", "32", "32", "32", "--memory-limit-bytes", "4096")
    run = r.dfft("tune", *small, *QUICK_TUNE, "--no-wisdom", "--no-progress", np=2)
    bench = r.dfft("bench", *small, "--reps", "1", "--warmup", "0", "--no-validate", "--no-reference", np=2)
    c.check(run.returncode == 1 and "memory" in run.stderr,
            f"tune of a plan that does not fit in memory: exit {run.returncode}: {run.stderr[-300:]}")
    c.check(bench.returncode == run.returncode, f"bench exits {bench.returncode}, tune {run.returncode}")
    # Float against the double reference: an error of about 1e-7, never below 1e-30 (a double plan
    # of this size can match the reference bit for bit).
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--precision", "float", "--no-wisdom", "--no-progress", "--validate",
                 "--validate-limit", "1e-30", np=2)
    c.check(run.returncode == 4 and "FAIL" in run.stdout, f"tune --validate over its limit: {run.returncode} {run.stdout[-300:]}")
    run = r.dfft("tune", *SIZE, *QUICK_TUNE, "--no-wisdom", "--no-progress", "--validate", np=2)
    c.check(run.returncode == 0 and "pass" in run.stdout, f"tune --validate: {run.returncode} {run.stdout[-300:]}")


def heuristic(c, r, work):
    """--mode heuristic prints the model's ranking from the calibration it names, every candidate's
    phases adding up to its total, a slab exchange of the bytes its blocks hold, and stores nothing."""
    cal = os.path.join(work, "cal.json")
    if not os.path.exists(cal):
        r.dfft("model", "calibrate", "--reps", "1", "--fft-n", "8", "--file", cal, np=2)
    before = open(cal, "rb").read()
    run = r.dfft("tune", *SIZE, "--mode", "heuristic", "--wisdom", cal, np=2)
    out = run.stdout
    c.check(run.returncode == 0, f"tune --mode heuristic: exit {run.returncode}: {run.stderr[-300:]}")
    c.check(f"calibration of {cal}:" in out and "calibration: 2 ranks, cpu" in out and "ping-pong" in out,
            f"tune --mode heuristic does not show the calibration it used: {out[:800]}")
    c.check(open(cal, "rb").read() == before, "tune --mode heuristic changed the wisdom file")
    rows = re.findall(r"^\s*(\d+)  (\S.*?) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)  +[\d.]+x  (.*)$", out, re.M)
    c.check(len(rows) >= 8, f"{len(rows)} predicted rows: {out[-1500:]}")
    # Best first, except that predictions the model cannot tell apart (within 2%, marked "(tie)"
    # beside the chosen) keep their candidate order; the table rounds to 0.001 ms.
    totals = [float(x[6]) for x in rows]
    tied = sum(1 for x in rows if "<- chosen" in x[7] or "(tie)" in x[7])
    rest = totals[max(tied, 1):]
    c.check(rest == sorted(rest), f"predicted rows after the tied ones not fastest first: {totals}")
    c.check(all(t <= (min(totals) * 1.02 + 0.001) for t in totals[:max(tied, 1)]),
            f"rows marked tied are not within 2% of the best: {totals[:tied]} best {min(totals)}")
    c.check(tied < 2 or "the model cannot tell the first" in out,
            f"tied rows without the summary saying so: {out[-600:]}")
    for rank, label, fft, pack, comm, unpack, total, rest in rows:
        parts = float(fft) + float(pack) + float(comm) + float(unpack)
        c.check(abs(parts - float(total)) <= 0.003, f"{label}: phases add up to {parts:.3f}, total {total}")
    c.check(rows and rows[0][0] == "1" and "<- chosen" in rows[0][7], f"the first row is not the chosen one: {rows[:1]}")
    # 12x10x8 r2c on 2 slabs: each rank sends the other half of its 6x10x5 complex block, 6x5x5 x 16 B.
    slab = [x for x in rows if x[1].startswith("slab-2d1d")]
    c.check(slab and all(x[7].startswith("2400 B / 1 ") for x in slab),
            f"slab-2d1d exchange is not 2400 B to 1 peer: {slab}")
    c.check("slab vs pencil" in out and "dfft tune: heuristic:" in out and "per forward transform, predicted" in out,
            f"tune --mode heuristic: crossover or summary missing: {out[-600:]}")
    run = r.dfft("tune", *SIZE, "--mode", "heuristic", "--no-wisdom", np=2)
    c.check(run.returncode == 0 and "calibration: the placeholder constants" in run.stdout,
            f"tune --mode heuristic --no-wisdom: {run.returncode} {run.stdout[:400]}")
    missing = os.path.join(work, "no-calibration.json")
    run = r.dfft("tune", *SIZE, "--mode", "heuristic", "--wisdom", missing, np=2)
    c.check(run.returncode == 3 and "no-calibration.json: no such file" in run.stderr and not os.path.exists(missing),
            f"tune --mode heuristic with a missing --wisdom file: {run.returncode} {run.stderr[-300:]}")


def main():
    args = parse_args()
    r, c = Runner(args), Checks()
    wisdom_shared(c, r, args.workdir)
    wisdom_not_a_file(c, r, args.workdir)
    progress(c, r, args.workdir)
    default_wisdom(c, r, args.workdir)
    exit_statuses(c, r, args.workdir)
    heuristic(c, r, args.workdir)
    return c.finish("test_tune_cli")


if __name__ == "__main__":
    raise SystemExit(main())
