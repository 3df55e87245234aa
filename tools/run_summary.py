# SPDX-License-Identifier: MIT
"""The closing table of scripts/run.sh: per size, the plan dfft made by itself against FFTW-MPI
and against the fastest configuration of the `dfft bench` sweep, from the records run.sh left in
DIR (auto-N.jsonl, fftw-mpi-N.jsonl, sweep-N.jsonl), with what to do about it.

    python3 tools/run_summary.py build/run 64 128
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402

# Closer than this the two are not told apart: on the 2-core machine one configuration timed twice
# in one run.sh (its own plan and its sweep row) differed by 10-15%.
SAME = 0.10


def by_config(recs):
    """{configuration text: {direction: median ms}} of one file's records."""
    out = {}
    for r in recs:
        if r.get("decomposition") == "single-device":
            continue
        c = out.setdefault(config_text(r), {"noisy": False})
        c[r["direction"]] = r["time_ms"]["median"]
        c["noisy"] = c["noisy"] or bool(r.get("noisy"))
    return {k: v for k, v in out.items() if "forward" in v and "inverse" in v}


def ranks_of(path):
    return records.read(path)[0]["ranks"]


def config_text(r):
    if "library" in r:
        return r["library"]
    parts = [r["decomposition"]]
    if r["decomposition"] == "pencil" and r.get("grid"):
        parts.append("x".join(str(g) for g in r["grid"]))
    parts += [r["variant"], "+".join(r["methods"])]
    return " ".join(parts)


def bench_flags(text):
    """The dfft bench flags that run the configuration `text` (config_text) again."""
    flag = {name: records.OPTIONS[name]["flag"] for name in ("decomposition", "grid", "variant", "methods")}
    p = text.split()
    flags = [flag["decomposition"], p[0]]
    if p[0] == "pencil" and len(p) == 4:
        flags += [flag["grid"], p[1]]
        p = p[:1] + p[2:]
    methods = p[2].split("+")
    flags += [flag["variant"], p[1]]
    # bench sweeps the items of --method: one method per exchange goes by the item flags
    items = records.OPTIONS["methods"]["item_flags"].split("|")
    flags += [flag["methods"], methods[0]] if len(methods) == 1 else [x for f, m in zip(items, methods) for x in (f, m)]
    return " ".join(flags)


def one(path):
    """The single configuration of a file, or None where the file is missing or empty."""
    if not os.path.exists(path):
        return None
    c = by_config(records.read(path))
    return next(((k, v, ranks_of(path)) for k, v in c.items()), None)


def times(t):
    """'fwd / inv' of one configuration, starred where a direction was noisy."""
    return "%6.2f / %6.2f%s" % (t["forward"], t["inverse"], "*" if t["noisy"] else " ")


def total(t):
    return t["forward"] + t["inverse"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, sizes = sys.argv[1], sys.argv[2:]
    rows, notes = [], []
    for n in sizes:
        own = one(os.path.join(d, "auto-%s.jsonl" % n))
        fftw = one(os.path.join(d, "fftw-mpi-%s.jsonl" % n))
        sweep = by_config(records.read(os.path.join(d, "sweep-%s.jsonl" % n)))
        if own is None or not sweep:
            sys.exit("run_summary: no records of the %s^3 runs in %s" % (n, d))
        best = min(sweep.items(), key=lambda kv: total(kv[1]))
        rows.append(("%s^3" % n, own, fftw, best, len(sweep)))
        ranks = own[2]
        r = total(own[1]) / total(best[1])
        if r <= 1 + SAME:
            what = "dfft's own plan is as fast as the sweep's best (x%.2f): make plans without options" % r
        else:
            what = ("the sweep's best is x%.2f faster than dfft's own plan: pin it (dfft bench %s; the same "
                    "Options fields), or let plans time their candidates (tune = measure, docs/tuning.md)"
                    % (r, bench_flags(best[0])))
        if fftw is not None:
            f = total(fftw[1]) / total(own[1])
            what += "; FFTW-MPI takes x%.2f dfft's own time" % f
        if any(t and t[1]["noisy"] for t in (own, fftw, best)):
            what += " (* noisy: the machine was busy, rerun before acting on it)"
        notes.append("%s^3: %s." % (n, what))

    own_w = max(len("dfft's own plan"), *(len(row[1][0]) for row in rows))
    best_cells = ["%s (%d)" % (row[3][0], row[4]) for row in rows]
    best_w = max(len("sweep's best (of N)"), *(len(c) for c in best_cells))
    print("%d ranks, double r2c, median ms forward / inverse; FFTW_MEASURE planning everywhere:" % ranks)
    head = "%-6s  %-*s  %16s  %16s  %-*s  %16s" % ("size", own_w, "dfft's own plan", "fwd / inv", "FFTW-MPI",
                                                  best_w, "sweep's best (of N)", "fwd / inv")
    print(head)
    print("-" * len(head))
    for (size, own, fftw, best, _), cell in zip(rows, best_cells):
        print("%-6s  %-*s  %16s  %16s  %-*s  %16s" % (
            size, own_w, own[0], times(own[1]), times(fftw[1]) if fftw else "not built", best_w, cell,
            times(best[1])))
    print()
    for line in notes:
        print(line)


if __name__ == "__main__":
    main()
