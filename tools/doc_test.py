#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the command blocks of README.md and docs/*.md as written, and checks the docs' links.

    tools/doc_test.py [--source DIR] [--build DIR] [--work DIR] [--timeout S] [--list]
                      [--python PY] [FILE[:LINE] ...]

A command block is a fenced block tagged sh, bash, shell or console, or python. Every one either
runs, or carries a marker on the line just before its opening fence (docs/testing.md, "Doc
test"):

    <!-- doc-test: gpu -->            needs a GPU (the cuda backend)
    <!-- doc-test: multi-gpu -->      needs two or more GPUs
    <!-- doc-test: long -->           takes longer than CI has (full builds, installs, big sizes)
    <!-- doc-test: skip REASON -->    cannot run here for the reason given (a synopsis, a
                                      fragment of a program, a machine that is not this one)

A marked block is listed, not run. An unmarked block runs in a scratch directory (one per
document, blocks in document order, so a block may use what an earlier one wrote) that holds
links to the source tree's top-level entries and to the build directory as `build`; only
`benchmarks` is a real directory there (links to its entries), so that a command that writes
under benchmarks/NEW writes into the scratch directory. sh/bash/shell blocks run under
`bash -e -o pipefail`; in console blocks the lines after `$ ` run and the other lines (output)
are ignored; python blocks run with the interpreter that has numpy, `PYTHONPATH=build/python`.
PATH starts with the build's bin/ (so `dfft` is build/bin/dfft) and an `mpirun` that adds
--oversubscribe (and --allow-run-as-root for root) to the real one; `python` is that
interpreter. HOME, DFFT_WISDOM_DIR and XDG_CACHE_HOME point into the scratch directory.

Also checked, without running anything:
  - every relative link [text](target) of README.md and docs/**/*.md names an existing file
    (anchors ignored), and so does every docs/NAME.md mentioned in those files and in
    python/dfft/*.py;
  - no indented (unfenced) code block in README.md or docs/*.md starts with a command (it
    would escape this test);
  - a marker precedes a block, and names one of the kinds above.

Prints one line per block, FILE:LINE and its outcome (ran, failed, gpu, multi-gpu, long,
skip: REASON), then a count per outcome. Exit status 1 when a block failed or a check found
something, else 0. FILE[:LINE] arguments run only those documents or blocks; --list lists the
blocks without running any.
"""
import argparse
import ast
import glob
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

KINDS = ("gpu", "multi-gpu", "long", "skip")
SHELL_TAGS = ("sh", "bash", "shell", "console")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
# The first word of an indented block that would make it a command block.
COMMAND_START = re.compile(r"^(\$ |mpirun\b|python3?\b|bash\b|cmake\b|ctest\b|build[-\w]*/|tools/|scripts/|"
                           r"pip\b|for\b|export\b|cd\b|mkdir\b|(dfft|fftw-mpi-bench) (?!\w+:))")


class Block:
    def __init__(self, path, line, lang, text, marker):
        self.path, self.line, self.lang, self.text, self.marker = path, line, lang, text, marker

    def where(self, source):
        return f"{os.path.relpath(self.path, source)}:{self.line}"


def parse(path, problems, source, check_indented=True):
    """The fenced blocks of one Markdown file, and problems with markers and unfenced commands."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i, rel = [], 0, os.path.relpath(path, source)
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            body = [ln[len(indent):] if ln.startswith(indent) else ln.lstrip() for ln in lines[i + 1:j]]
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            marker = None
            mm = MARKER.match(lines[k]) if k >= 0 else None
            if mm:
                words = mm.group(1).split(None, 1)
                kind = words[0] if words else ""
                reason = words[1] if len(words) > 1 else ""
                if kind not in KINDS:
                    problems.append(f"{rel}:{k + 1}: unknown doc-test marker '{mm.group(1)}' (one of {', '.join(KINDS)})")
                elif kind == "skip" and not reason:
                    problems.append(f"{rel}:{k + 1}: 'doc-test: skip' needs a reason")
                marker = (kind, reason)
            blocks.append(Block(path, i + 1, lang, "\n".join(body), marker))
            i = j + 1
            continue
        mm = MARKER.match(lines[i])
        if mm:
            k = i + 1
            while k < len(lines) and not lines[k].strip():
                k += 1
            if k >= len(lines) or not FENCE.match(lines[k]):
                problems.append(f"{rel}:{i + 1}: doc-test marker not followed by a fenced block")
        elif (lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip())
              and check_indented and COMMAND_START.match(lines[i][4:])):
            # an indented code block (not a list's continuation: that follows a non-blank line)
            problems.append(f"{rel}:{i + 1}: command in an indented block; fence it (```sh) so the doc test sees it")
        i += 1
    return blocks


def is_command_block(b):
    return b.lang in SHELL_TAGS or b.lang == "python"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
DOC_MENTION = re.compile(r"(?<![\w/.-])(docs/[\w./-]*?\.md)\b")


def check_links(source, problems):
    docs = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "**", "*.md"), recursive=True))
    for path in docs:
        rel = os.path.relpath(path, source)
        fenced = False
        for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                file = target.split("#", 1)[0]
                full = os.path.normpath(os.path.join(os.path.dirname(path), file))
                if not os.path.exists(full):
                    problems.append(f"{rel}:{n}: link to a missing file: {target}")
            for mention in DOC_MENTION.findall(line):
                if not os.path.exists(os.path.join(source, mention)):
                    problems.append(f"{rel}:{n}: names a missing file: {mention}")
    for path in sorted(glob.glob(os.path.join(source, "python", "dfft", "*.py"))):
        rel = os.path.relpath(path, source)
        for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            for mention in DOC_MENTION.findall(line):
                if not os.path.exists(os.path.join(source, mention)):
                    problems.append(f"{rel}:{n}: names a missing file: {mention}")


def signature_defaults(args):
    """[(name, default source text or None)] of an ast.arguments."""
    pos = args.args
    defaults = [None] * (len(pos) - len(args.defaults)) + list(args.defaults)
    return [(a.arg, None if d is None else ast.unparse(d)) for a, d in zip(pos, defaults) if a.arg != "self"]


def check_python_signature(source, problems):
    """docs/python.md's `dfft.Plan(...)` synopsis against Plan.__init__ in python/dfft/__init__.py."""
    doc, code = os.path.join(source, "docs", "python.md"), os.path.join(source, "python", "dfft", "__init__.py")
    if not (os.path.exists(doc) and os.path.exists(code)):
        return
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"^`dfft\.Plan\((comm, shape,.*?)\)`", text, re.S | re.M)
    if not m:
        problems.append("docs/python.md: no `dfft.Plan(comm, shape, ...)` synopsis found")
        return
    line = text[:m.start()].count("\n") + 1
    documented = signature_defaults(ast.parse(f"def f({' '.join(m.group(1).split())}): pass").body[0].args)
    tree = ast.parse(open(code, encoding="utf-8").read())
    actual = None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Plan":
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == "__init__":
                    actual = signature_defaults(f.args)
    if actual is not None and documented != actual:
        missing = [f"{n}={d}" for n, d in actual if (n, d) not in documented]
        extra = [f"{n}={d}" for n, d in documented if (n, d) not in actual]
        problems.append(f"docs/python.md:{line}: the dfft.Plan synopsis differs from python/dfft/__init__.py: "
                        f"code has {', '.join(missing) or 'the same names in another order'}"
                        + (f"; the doc has {', '.join(extra)}" if extra else ""))


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def scratch(root, source, build, python):
    """A scratch directory that looks like the source tree with the build in build/."""
    os.makedirs(root, exist_ok=True)
    for name in os.listdir(source):
        if name in (".git", "build") or name.startswith("build-") or name.startswith("."):
            continue
        dst = os.path.join(root, name)
        if os.path.lexists(dst):
            continue
        src = os.path.join(source, name)
        if name == "benchmarks" and os.path.isdir(src):
            os.makedirs(dst)
            for entry in os.listdir(src):
                os.symlink(os.path.join(src, entry), os.path.join(dst, entry))
        else:
            os.symlink(src, dst)
    if not os.path.lexists(os.path.join(root, "build")):
        os.symlink(build, os.path.join(root, "build"))
    tools = os.path.join(root, ".doc-test-bin")
    os.makedirs(tools, exist_ok=True)
    for d in ("home", "wisdom", "cache"):
        os.makedirs(os.path.join(root, ".doc-test-" + d), exist_ok=True)
    real_mpirun = shutil.which("mpirun") or "mpirun"
    flags = ""
    try:
        version = subprocess.run([real_mpirun, "--version"], capture_output=True, text=True).stdout
    except OSError:
        version = ""
    if "Open MPI" in version or "OpenRTE" in version:
        flags = "--oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
    write_exe(os.path.join(tools, "mpirun"), f'#!/bin/sh\nexec {real_mpirun} {flags} "$@"\n')
    write_exe(os.path.join(tools, "mpiexec"), f'#!/bin/sh\nexec {real_mpirun} {flags} "$@"\n')
    write_exe(os.path.join(tools, "python"), f'#!/bin/sh\nexec {python} "$@"\n')
    write_exe(os.path.join(tools, "python3"), f'#!/bin/sh\nexec {python} "$@"\n')
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([tools, os.path.join(build, "bin"), env.get("PATH", "")])
    env["HOME"] = os.path.join(root, ".doc-test-home")
    env["DFFT_WISDOM_DIR"] = os.path.join(root, ".doc-test-wisdom")
    env["XDG_CACHE_HOME"] = os.path.join(root, ".doc-test-cache")
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.join(build, "python"), env.get("PYTHONPATH", "")] if p)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def script_of(b):
    """(argv, script file contents) that run a block."""
    if b.lang == "python":
        return "py", b.text + "\n"
    if b.lang == "console":
        cmds, pending = [], None
        for line in b.text.split("\n"):
            if pending is not None:
                pending += "\n" + line
                if not line.endswith("\\"):
                    cmds.append(pending)
                    pending = None
                continue
            if line.startswith("$ "):
                if line.endswith("\\"):
                    pending = line[2:]
                else:
                    cmds.append(line[2:])
        return "sh", "\n".join(cmds) + "\n"
    return "sh", b.text + "\n"


def run_block(b, root, env, python, timeout):
    kind, text = script_of(b)
    name = os.path.join(root, f".doc-test-block-{b.line}.{kind}")
    with open(name, "w") as f:
        f.write(text)
    argv = [python, name] if kind == "py" else ["bash", "-e", "-o", "pipefail", name]
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, start_new_session=True)
        rc, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode(errors="replace") + f"\n(killed after {timeout} s)"
    return rc, out, time.monotonic() - t0


def numpy_python(candidates):
    for py in candidates:
        if py and shutil.which(py):
            if subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0:
                return shutil.which(py)
    return shutil.which("python3") or sys.executable


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=here)
    ap.add_argument("--build", default=None, help="build directory (default SOURCE/build)")
    ap.add_argument("--work", default=None, help="scratch directory (default: a new temporary one, removed)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per block (default 120)")
    ap.add_argument("--python", default=None, help="interpreter for python blocks (default: one with numpy)")
    ap.add_argument("--list", action="store_true", help="list the blocks and their markers, run nothing")
    ap.add_argument("only", nargs="*", help="FILE or FILE:LINE (relative to SOURCE) to run")
    a = ap.parse_args()
    source = os.path.abspath(a.source)
    build = os.path.abspath(a.build or os.path.join(source, "build"))
    python = a.python or numpy_python([sys.executable, "/usr/bin/python3", "python3"])

    problems = []
    docs = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    blocks = [b for d in docs for b in parse(d, problems, source) if is_command_block(b)]
    for d in sorted(glob.glob(os.path.join(source, "docs", "results", "*.md"))):
        parse(d, problems, source, check_indented=False)  # markers only
    check_links(source, problems)
    check_python_signature(source, problems)

    if a.only:
        def wanted(b):
            rel = os.path.relpath(b.path, source)
            return any(o == rel or o == f"{rel}:{b.line}" for o in a.only)
        blocks = [b for b in blocks if wanted(b)]

    counts, failed = {}, []
    work = a.work or tempfile.mkdtemp(prefix="dfft-doc-test-")
    if a.work and not a.list:
        # Emptied first, so that no block sees what an earlier run left; only a folder this tool
        # made (it holds the tag file) or a new or empty one.
        tag = os.path.join(work, ".doc-test-work")
        if os.path.isdir(work) and os.listdir(work) and not os.path.exists(tag):
            print(f"doc-test: --work {work} is not empty and not made by this tool; not touching it")
            return 2
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        open(tag, "w").close()
    envs = {}
    t_all = time.monotonic()
    for b in blocks:
        where = b.where(source)
        if b.marker:
            kind, reason = b.marker
            label = f"skip: {reason}" if kind == "skip" else kind
            counts[kind] = counts.get(kind, 0) + 1
            print(f"{where}: {label}", flush=True)
            continue
        if a.list:
            counts["run"] = counts.get("run", 0) + 1
            print(f"{where}: runs ({b.lang})")
            continue
        doc = os.path.splitext(os.path.relpath(b.path, source))[0].replace(os.sep, "-")
        root = os.path.join(work, doc)
        if root not in envs:
            envs[root] = scratch(root, source, build, python)
        rc, out, took = run_block(b, root, envs[root], python, a.timeout)
        if rc == 0:
            counts["ran"] = counts.get("ran", 0) + 1
            print(f"{where}: ran ({took:.1f} s)", flush=True)
        else:
            counts["failed"] = counts.get("failed", 0) + 1
            failed.append(where)
            tail = "\n".join("    " + ln for ln in out.rstrip().split("\n")[-25:])
            print(f"{where}: FAILED (exit {rc}, {took:.1f} s)\n    block:\n"
                  + "\n".join("      " + ln for ln in b.text.split("\n")) + f"\n    output (last lines):\n{tail}",
                  flush=True)
    if not a.work and not a.list:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(p)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"doc-test: {len(blocks)} command blocks: {summary or 'none'}; {len(problems)} other problem(s); "
          f"{time.monotonic() - t_all:.1f} s")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
