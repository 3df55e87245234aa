# SPDX-License-Identifier: MIT
"""Runs every `dfft ...` command shown in the code blocks of README.md and docs/*.md (results pages
excepted) so that the documentation and the program keep agreeing. Sizes are cut to at most 16 per
axis, repetitions to 2, ranks to 4; commands that need a GPU are reported as skipped when there is
none, and so are synopses with elided parts ("...") or inputs that no earlier command made."""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import numpy as np

from dfft_runner import Checks, parse_args

SUBCOMMANDS = ("bench", "tune", "transform", "model")
COMMAND = re.compile(r"^(\$ )?(mpirun\b.*?\s)?(\S*/)?dfft (" + "|".join(SUBCOMMANDS) + r")\b(?!:)")


def code_lines(path):
    """Command lines of fenced and indented code blocks, continuation lines joined."""
    out, fenced, pending = [], False, ""
    for line in open(path).read().split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            pending = ""
            continue
        text = pending + line.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        if COMMAND.match(text):
            out.append(text)
    return out


def small(argv):
    """Sizes cut to <= 16 per axis, --reps to 2, --warmup to 0."""
    out, i, in_size = [], 0, False
    for a in argv:
        if a.startswith("--"):
            in_size = a == "--size"
            if a in ("--reps", "--final-reps"):
                out.append(a)
                out.append("2")
                in_size = "skip"
                continue
            out.append(a)
            continue
        if in_size == "skip":
            in_size = False
            continue
        if in_size and re.fullmatch(r"\d+(x\d+)*", a):
            a = "x".join(str(min(int(v), 16)) for v in a.split("x"))
        out.append(a)
    return out


SOURCE = "."


def source_path(word):
    """Paths into the repository (benchmarks/cases/...) from the scratch directory."""
    return os.path.join(SOURCE, word) if word.startswith("benchmarks/") else word


def prepare(line, dfft, gpu):
    """(argv for dfft, ranks) or (None, reason to skip)."""
    line = line[2:] if line.startswith("$ ") else line
    line = re.sub(r"\s+#.*$", "", line)
    if "..." in line or "run()" in line:
        return None, "elided synopsis"
    line = re.sub(r"\[[^\]]*\]", " ", line)  # optional parts of a synopsis
    line = line.replace("$S", "16 12 10")
    if "--backend cuda" in line and not gpu:
        return None, "needs a GPU"
    if "$" in line:
        return None, "a loop's body with shell variables"
    words = shlex.split(line)
    k = next(i for i, w in enumerate(words) if w.endswith("dfft") and i + 1 < len(words) and words[i + 1] in SUBCOMMANDS)
    np_ = 1
    for i, w in enumerate(words[:k]):
        if w in ("-np", "-n") and i + 1 < k:
            np_ = min(int(words[i + 1]), 4)
    argv = [source_path(w) for w in small(words[k + 1:])]
    if argv[0] == "bench" and not {"--list", "--accuracy"} & set(argv) and "--reps" not in argv:
        argv += ["--reps", "2", "--warmup", "0"]
    # What a command prints does not depend on FFTW's planning effort, which took most of the time
    # of the documented suite runs on 4 ranks of 2 cores.
    if argv[0] in ("bench", "tune") and "--effort" not in argv and "--accuracy" not in argv:
        argv += ["--effort", "estimate"]
    return [dfft] + argv, np_


def inputs(work):
    """Files the transform examples start from."""
    rng = np.random.default_rng(5)
    np.save(os.path.join(work, "a.npy"), rng.standard_normal((17, 12, 10)))
    np.save(os.path.join(work, "z.npy"), rng.standard_normal((12, 10, 8)) + 1j * rng.standard_normal((12, 10, 8)))


def missing_input(argv, work):
    for a in argv[1:]:
        if "*" in a:
            return a
        if re.search(r"\.(npy|jsonl?)$", a) and not os.path.exists(os.path.join(work, a)):
            if argv[1] == "transform" and a == argv[2]:
                return a
            if argv[1] == "model":
                return a
    return None


def main():
    global SOURCE
    args = parse_args(lambda p: p.add_argument("--source", required=True))
    SOURCE = os.path.abspath(args.source)
    gpu = shutil.which("nvidia-smi") is not None and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    files = [os.path.join(args.source, "README.md")] + sorted(
        f for f in glob.glob(os.path.join(args.source, "docs", "*.md")) if not os.path.basename(f).startswith("results"))
    c, seen, skipped = Checks(), set(), []
    prefix = [args.mpiexec, args.np_flag]
    flags = [f for f in args.preflags.split("|") if f]
    for path in files:
        work = os.path.join(args.workdir, os.path.basename(path)[:-3])
        os.makedirs(work, exist_ok=True)
        inputs(work)
        for line in code_lines(path):
            argv, np_ = prepare(line, args.dfft, gpu)
            where = f"{os.path.relpath(path, args.source)}: {line}"
            if argv is None:
                skipped.append(f"{where} ({np_})")
                continue
            need = missing_input(argv, work)
            if need:
                skipped.append(f"{where} (needs {need})")
                continue
            key = (tuple(argv), np_)
            if key in seen:
                continue
            seen.add(key)
            cmd = prefix + [str(np_)] + flags + (["--oversubscribe"] if np_ > 2 and "--oversubscribe" not in flags else []) + argv
            t0 = time.monotonic()
            p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
            took = time.monotonic() - t0
            c.check(p.returncode == 0, f"{where}\n  ran: {' '.join(cmd[len(prefix) + 1:])}\n  exit {p.returncode}: "
                    f"{(p.stderr.strip() or p.stdout.strip())[-400:]}")
            print(f"  ran ({p.returncode}, {took:.1f} s): {where}", flush=True)
    for s in skipped:
        print(f"  skipped: {s}")
    print(f"{len(skipped)} command(s) skipped")
    return c.finish("commands of README.md and docs/*.md")


if __name__ == "__main__":
    sys.exit(main())
