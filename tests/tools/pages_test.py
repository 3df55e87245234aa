#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""results_pages.py on the fixture: page.md regenerated from fixtures/results must equal
page.expected.md, and regenerating the expected page must leave it unchanged.

    pages_test.py TOOLS/results_pages.py FIXTURES_DIR
"""
import difflib
import os
import subprocess
import sys

TOOL, FIX = (os.path.abspath(a) for a in sys.argv[1:3])


def regenerate(page):
    cmd = [sys.executable, TOOL, "--stdout", page, "--results", os.path.join(FIX, "results")]
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout


def same(got, want, what):
    if got == want:
        print("ok: " + what)
        return True
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "expected", "got"))
    print("FAILED: " + what)
    return False


def main():
    with open(os.path.join(FIX, "page.expected.md")) as f:
        want = f.read()
    ok = same(regenerate(os.path.join(FIX, "page.md")), want, "page.md regenerates to page.expected.md")
    # The page names itself in its "Regenerate:" lines.
    again = regenerate(os.path.join(FIX, "page.expected.md")).replace("page.expected.md", "page.md")
    ok &= same(again, want, "regenerating a generated page changes nothing")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
