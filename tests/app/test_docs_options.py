# SPDX-License-Identifier: MIT
"""Every `--option` that README.md or docs/*.md (results pages excepted) gives to a `dfft`
subcommand is one that subcommand's `--help` lists. The help text is read now, from the program
under test, so new or renamed options need no change here.

An option belongs to a subcommand where the documentation says so:
- on a command line (`dfft bench --size 8 8 8 --json r.json`, in a code block or an inline code
  span; `dfft model fit ...` belongs to `dfft model fit`): the options after the subcommand, up
  to a pipe, `;`, `&&` or `#`;
- elsewhere, a code span that starts with the option (`--reps N`) belongs to the subcommand the
  paragraph named last before it, else to the one the page's or section's heading names
  (`# dfft bench`, `### Calibration (dfft model calibrate)`; a section about tests names none),
  unless the paragraph is about another program (tools/..., scripts/..., a test binary, mpirun).
"""
import glob
import os
import re
import subprocess
import sys

from dfft_runner import Checks, parse_args

# `accuracy` and `model predict` moved (to bench --accuracy and tune --mode heuristic): their --help
# now fails, so a page that still gives them options fails here.
SUBCOMMANDS = ("bench", "tune", "transform", "accuracy", "model")
MODEL = ("calibrate", "predict", "fit", "check", "cluster")
OPTION = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
# `dfft sub [modelsub]` as it appears on a command line or in a heading.
NAMED = re.compile(r"(?:^|[\s`/(])dfft (" + "|".join(SUBCOMMANDS) + r")\b(?: (" + "|".join(MODEL) + r")\b)?")
# What other programs' options look like when they share a paragraph with dfft's.
OTHER = re.compile(r"(tools/\w+\.py|scripts/\S+\.sh|\bmpirun\b|\bmpiexec\b|\bctest\b|\bcmake\b|_tests\b|"
                   r"\bpython3?\b|--gtest|\bpip\b|\bsrun\b)")


def commands(text):
    """(subcommand, option, line) for every option of a `dfft sub ...` command line in text."""
    out = []
    for m in NAMED.finditer(text):
        sub = m.group(1) + (" " + m.group(2) if m.group(2) else "")
        # A synopsis' alternatives ([--wisdom FILE | --no-wisdom]) are no shell pipe.
        rest = re.sub(r"\[[^\]]*\]", lambda b: b.group(0).replace("|", " "), text[m.end():])
        rest = re.split(r"\||;|&&|(?:\s#)|`|\n", rest, maxsplit=1)[0]
        for o in OPTION.finditer(rest):
            out.append((sub, o.group(1), (m.group(0) + rest).strip()))
    return out


def blocks(path):
    """The page as a list of (kind, text): 'code' for fenced/indented blocks (continuation lines
    joined, and so are the deeper-indented lines that continue a synopsis), 'heading' with its
    level, 'para' for the rest (one paragraph or table row each)."""
    out, fenced, para, indent = [], False, [], 0

    def flush():
        if para:
            out.append(("para", " ".join(para), 0))
            para.clear()

    pending = ""
    for line in open(path).read().split("\n"):
        if line.strip().startswith("```"):
            flush()
            fenced = not fenced
            continue
        if fenced or (line.startswith("    ") and not para):
            text = pending + line.strip()
            if text.endswith("\\"):
                pending = text[:-1] + " "
                continue
            pending = ""
            depth = len(line) - len(line.lstrip())
            if out and out[-1][0] == "code" and depth > indent and NAMED.search(" " + out[-1][1]):
                out[-1] = ("code", out[-1][1] + " " + text, 0)
                continue
            indent = depth
            out.append(("code", text, 0))
            continue
        pending = ""
        h = re.match(r"^(#+)\s+(.*)", line)
        if h:
            flush()
            out.append(("heading", h.group(2), len(h.group(1))))
        elif not line.strip():
            flush()
        elif line.startswith("|"):
            flush()
            out.append(("para", line, 0))
        else:
            para.append(line.strip())
    flush()
    return out


def documented(path):
    """(subcommand, option, where) for one page."""
    out = []
    scope = []  # (level, subcommand) of the headings above
    for kind, text, level in blocks(path):
        if kind == "heading":
            scope = [s for s in scope if s[0] < level]
            m = NAMED.search(" " + text)
            if m:
                scope.append((level, m.group(1) + (" " + m.group(2) if m.group(2) else "")))
            elif re.search(r"\btests?\b", text, re.I):
                scope.append((level, None))  # a section about the test programs and their options
            continue
        found = commands(text)
        out += found
        if kind != "para" or not scope or scope[-1][1] is None or OTHER.search(text):
            continue
        on_lines = {o for _, o, _ in found}
        named = [(m.start(), m.group(1) + (" " + m.group(2) if m.group(2) else "")) for m in NAMED.finditer(text)]
        for span in re.finditer(r"`([^`]+)`", text):
            if NAMED.search(" " + span.group(1)):
                continue
            o = re.match(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", span.group(1))
            if o and o.group(1) not in on_lines:
                # The subcommand the paragraph named last before the span, else the section's.
                before = [sub for at, sub in named if at < span.start()]
                out.append((before[-1] if before else scope[-1][1], o.group(1), text[:120]))
    return out


def help_options(runner, sub):
    p = runner(sub.split() + ["--help"])
    if p.returncode != 0:
        return None, (p.stderr or p.stdout)[-300:]
    # Option lines only ("  -h,--help ...", "  --validate,--no-validate{false}"), not the prose
    # below them, which may name other subcommands' options.
    have = set()
    for line in p.stdout.split("\n"):
        if re.match(r"^\s+(-\w,)?--", line):
            have |= {m.group(1) for m in OPTION.finditer(line.split()[0])}
    return have, ""


def main():
    args = parse_args(lambda p: (p.add_argument("--source", required=True),
                                 p.add_argument("--page", action="append", default=[],
                                                help="check these files instead of README.md and docs/*.md")))
    files = args.page or [os.path.join(args.source, "README.md")] + sorted(
        f for f in glob.glob(os.path.join(args.source, "docs", "*.md")) if not os.path.basename(f).startswith("results"))
    prefix = [args.mpiexec, args.np_flag, "1"] + [f for f in args.preflags.split("|") if f]

    def runner(argv):
        return subprocess.run(prefix + [args.dfft] + argv, cwd=args.workdir, capture_output=True, text=True,
                              timeout=120)

    c, helps, count = Checks(), {}, 0
    for path in files:
        for sub, opt, where in documented(path):
            if sub == "model":
                continue  # `dfft model` alone takes no option of its own: its subcommands do
            if sub not in helps:
                helps[sub] = help_options(runner, sub)
                c.check(helps[sub][0] is not None, f"dfft {sub} --help failed: {helps[sub][1]}")
            have = helps[sub][0]
            if have is None:
                continue
            count += 1
            c.check(opt in have, f"{os.path.relpath(path, args.source)}: `dfft {sub}` has no option --{opt} "
                                 f"(its --help lists {', '.join('--' + o for o in sorted(have))})\n  in: {where}")
    print(f"{count} documented options of {len(helps)} subcommands checked against --help")
    c.check(count > 0, "no documented option found")
    return c.finish("documented dfft options")


if __name__ == "__main__":
    sys.exit(main())
