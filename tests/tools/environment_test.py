#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/environment.md's table names every DFFT_* environment variable that the code reads, and
only those.

    environment_test.py SOURCE_DIR

Read means: in C, C++ and Python sources under src, apps, python, tools and scripts, a string
literal that is exactly a DFFT_* name ("DFFT_SLICE_TAPER", as getenv, os.environ and the
messages that name a variable spell it); in shell scripts there, an expansion ${DFFT_X...} or
$DFFT_X. Macros such as DFFT_CUDA(...) are no string literal and do not count.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.getcwd()
DIRS = ("src", "apps", "python", "tools", "scripts")
QUOTED = re.compile(r"""["'](DFFT_[A-Z0-9_]+)["']""")
SHELL = re.compile(r"\$\{?(DFFT_[A-Z0-9_]+)")
CODE = (".c", ".h", ".cpp", ".hpp", ".cu", ".cuh", ".py")


def read_by_code():
    """{variable: [file, ...]} for every DFFT_* variable the sources read."""
    git = subprocess.run(["git", "-C", ROOT, "ls-files", "--", *DIRS], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True)
    if git.returncode == 0:
        files = git.stdout.split()
    else:  # a source tree outside git: every file below the folders
        files = [os.path.relpath(os.path.join(d, f), ROOT) for top in DIRS
                 for d, _, names in os.walk(os.path.join(ROOT, top)) for f in names]
    found = {}
    for f in files:
        pattern = QUOTED if f.endswith(CODE) else SHELL if f.endswith(".sh") else None
        if pattern is None:
            continue
        with open(os.path.join(ROOT, f), errors="replace") as src:
            for name in set(pattern.findall(src.read())):
                found.setdefault(name, []).append(f)
    return found


def in_table():
    """Variables named in the first column of the table in docs/environment.md."""
    names = set()
    with open(os.path.join(ROOT, "docs", "environment.md")) as page:
        for line in page:
            cells = line.split("|")
            if line.startswith("|") and len(cells) > 2:
                names.update(re.findall(r"`(DFFT_[A-Z0-9_]+)`", cells[1]))
    return names


def main():
    code, table = read_by_code(), in_table()
    if len(code) < 5 or not table:
        print(f"FAILED: the scan found {len(code)} variables and the table {len(table)}: is {ROOT} the source tree?")
        return 1
    ok = True
    for name in sorted(set(code) - table):
        print(f"FAILED: {name} is read by {', '.join(sorted(code[name]))} but docs/environment.md lacks it")
        ok = False
    for name in sorted(table - set(code)):
        print(f"FAILED: docs/environment.md lists {name}, which nothing reads")
        ok = False
    if ok:
        print(f"ok: the {len(table)} DFFT_* variables the code reads are all in docs/environment.md")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
