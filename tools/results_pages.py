#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates the tables of the results pages from the stored records (docs/results/README.md).

    python3 tools/results_pages.py [PAGE.md ...]      # default: every docs/results/*.md
    python3 tools/results_pages.py --check [PAGE ...]  # exit 1 if a page is not up to date
    python3 tools/results_pages.py --stdout PAGE       # print the regenerated page instead
    python3 tools/results_pages.py --lint [PAGE ...]   # exit 1 if a table is not generated

A table lives between two marker comments; everything outside them is kept as written:

    <!-- table: KIND key=value ... -->
    (generated: the table, then the records it was made from and the command that remakes it)
    <!-- end table -->

KIND is one of `list`, `peer`, `reference`, `scaling`, `defaults` (see results_tables.py); the keys select
records: any record field (`decomposition=pencil`, `test=scaling`, lists comma-separated
meaning "any of"), plus `machine` and `suite` (the runner's tag) and the options of the KIND.
Records are the JSON lines of RESULTS/<machine>/*.jsonl (tools/bench_run.py writes them; files
from `dfft bench --json` or `fftw-mpi-bench --json` dropped there are read too, with the folder
name as machine). Stdlib only.
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402
import results_tables  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RESULTS = os.path.join(ROOT, "benchmarks", "results")
BEGIN = re.compile(r"^<!-- table: (\w[\w-]*)((?: [\w.-]+=[^ ]*)*) -->$")
END = "<!-- end table -->"


def load_records(results):
    """Every record of RESULTS/*/*.jsonl, with run.machine/run.suite/run.file filled in."""
    try:
        return records.read_tree(results, ROOT)
    except records.RecordError as e:
        sys.exit("results_pages: %s" % e)


def parse_spec(text):
    spec = {}
    for item in text.split():
        key, _, value = item.partition("=")
        spec[key] = value
    return spec


def regenerate(page_path, text, records, results):
    """The page with every marked table rebuilt; raises ValueError for a malformed marker."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        out.append(lines[i])
        m = BEGIN.match(lines[i])
        if not m:
            if lines[i].startswith("<!-- table"):
                raise ValueError("%s:%d: malformed marker %r" % (page_path, i + 1, lines[i]))
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j] == END), None)
        if end is None:
            raise ValueError("%s:%d: no '%s' after the marker" % (page_path, i + 1, END))
        try:
            body = results_tables.render(m.group(1), parse_spec(m.group(2)), records)
        except results_tables.SpecError as e:
            raise ValueError("%s:%d: %s" % (page_path, i + 1, e))
        out += body + [command_line(page_path, results), END]
        i = end + 1
    return "\n".join(out)


def command_line(page_path, results):
    cmd = "python3 tools/results_pages.py " + os.path.relpath(page_path, ROOT)
    if os.path.abspath(results) != DEFAULT_RESULTS:
        cmd += " --results " + os.path.relpath(results, ROOT)
    return "Regenerate: `%s`" % cmd


TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def hand_tables(path, text):
    """Line numbers of table header rows that are not inside generator markers."""
    found, inside, lines = [], False, text.split("\n")
    for n, line in enumerate(lines):
        if BEGIN.match(line):
            inside = True
        elif line == END:
            inside = False
        elif not inside and TABLE_ROW.match(line) and n + 1 < len(lines) and TABLE_RULE.match(lines[n + 1]):
            found.append(n + 1)
    return ["%s:%d: table outside generator markers" % (path, n) for n in found]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*", help="pages (default: docs/results/*.md)")
    ap.add_argument("--results", default=DEFAULT_RESULTS, help="records folder (default benchmarks/results)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if a page would change")
    mode.add_argument("--stdout", action="store_true", help="print the regenerated pages")
    mode.add_argument("--lint", action="store_true", help="exit 1 if a table is not between markers")
    args = ap.parse_args(argv)
    pages = args.pages or sorted(glob.glob(os.path.join(ROOT, "docs", "results", "*.md")))
    stored = None if args.lint else load_records(os.path.abspath(args.results))
    status = 0
    for page in pages:
        with open(page) as f:
            text = f.read()
        if args.lint:
            problems = hand_tables(os.path.relpath(page, ROOT), text)
            for p in problems:
                print("results_pages: " + p)
            status |= bool(problems)
            continue
        try:
            new = regenerate(os.path.abspath(page), text, stored, os.path.abspath(args.results))
        except ValueError as e:
            sys.exit("results_pages: %s" % e)
        if args.stdout:
            sys.stdout.write(new)
        elif args.check:
            if new != text:
                print("results_pages: %s is not up to date" % page)
                status = 1
        elif new != text:
            records.replace_file(page, new)
            print("results_pages: wrote %s" % os.path.relpath(page, ROOT))
    return status


if __name__ == "__main__":
    sys.exit(main())
