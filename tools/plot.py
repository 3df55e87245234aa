#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Figures from `dfft bench --json` result files (JSON lines), in the style of the thesis (5.3).

    python3 tools/plot.py out.jsonl [more.jsonl ...] -o figs/ [--stat median|mean|min]

Writes PNG files into the output folder, one set per backend, precision, transform and rank count:
  runtime_*_npP.png   total time vs size, the best method of each decomposition and variant,
                      with the single-device reference (dashed); with --stat median, error bars
                      of the 99% interval of the median (8 or more repetitions)
  relative_*_npP.png  the same divided by the best time at each size (1 = fastest)
  methods_*_npP.png   relative runtime of every method, one panel per decomposition and variant
  phases_*_npP.png    stacked fft/pack/comm/unpack time of every configuration at the largest size
  scaling_*.png       strong scaling (time vs ranks at fixed size) and weak scaling (size grows
                      with the ranks) of the forward transform; needs several rank counts
With --automatic, --crossover, --threads or --tune, one figure of that kind instead (see --help).
Uses matplotlib only (Debian: python3-matplotlib); installs nothing. Format: docs/results-format.md.
"""
import argparse
import collections
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records as records_io  # noqa: E402

PHASES = ("fft", "pack", "comm", "unpack")
DECOMP_ORDER = {"slab-2d1d": 0, "slab-1d2d": 1, "pencil": 2}
MARKERS = {"slab-2d1d": "o", "slab-1d2d": "s", "pencil": "^", "single-device": "x"}


def save(plt, fig, out, dpi):
    # Palette PNGs are a third of the size of RGBA ones for these line plots (docs keep them small).
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    try:
        from PIL import Image
        with Image.open(out) as im:
            small = im.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        small.save(out, optimize=True)
    except (ImportError, AttributeError, OSError):
        pass  # keep the full-colour file


def load(paths):
    records = []
    for path in paths:
        try:
            records += records_io.read(path)
        except records_io.RecordError as e:
            sys.exit(f"plot.py: {e}")
    if not records:
        sys.exit("plot.py: no records in " + ", ".join(paths))
    return records


def config_key(r):
    return (r["backend"], r["precision"], r["transform"], r["direction"], r["ranks"], r["decomposition"],
            r.get("variant"), tuple(r["methods"]), tuple(r["grid"]), r.get("codec"), tuple(r["size"]))


def dedupe(records):
    """A configuration measured twice (two tests of a cases file, or several files): the later
    record wins."""
    last = {}
    for r in records:
        last[config_key(r)] = r
    if len(last) < len(records):
        print(f"plot.py: {len(records) - len(last)} records repeat an earlier configuration; using the later ones")
    return list(last.values())


def value(r, stat):
    t = r["time_ms"]
    if stat == "mean" and t.get("mean") is not None:
        return t["mean"]
    return t["median"] if stat == "mean" else t[stat]


def ci(r, stat):
    """(lower, upper) error-bar lengths: the 99% interval of the median, only for --stat median."""
    c = r["time_ms"].get("median_ci99")
    if stat != "median" or not c:
        return (0.0, 0.0)
    m = r["time_ms"]["median"]
    return (max(m - c[0], 0.0), max(c[1] - m, 0.0))


def points(size):
    return math.prod(size)


def size_label(size):
    """Thesis notation: 128^2x256."""
    parts, i = [], 0
    while i < len(size):
        j = i
        while j < len(size) and size[j] == size[i]:
            j += 1
        parts.append(f"{size[i]}" + (f"$^{j - i}$" if j - i > 1 else ""))
        i = j
    return "x".join(parts)


def method_text(r):
    m = r["methods"]
    text = "-" if not m else (m[0] if len(set(m)) == 1 else ",".join(m))
    if r.get("codec") not in (None, "none"):
        text += " " + r["codec"]  # compressed exchanges are another configuration
    return text


def family(r):
    """Decomposition and variant (and grid for pencils): the lines of the runtime figure."""
    if r["decomposition"] == "single-device":
        return "single-device"
    s = f'{r["decomposition"]} {r["variant"]}'
    if r["decomposition"] == "pencil":
        s += " " + "x".join(map(str, r["grid"]))
    return s


def family_key(name):
    return (DECOMP_ORDER.get(name.split()[0], 9), name)


def groups_by_ranks(records):
    """{(backend, precision, transform, ranks): [records]}; single-device rows join every ranks group."""
    out = collections.defaultdict(list)
    singles = []
    for r in records:
        if r["decomposition"] == "single-device":
            singles.append(r)
        else:
            out[(r["backend"], r["precision"], r["transform"], r["ranks"])].append(r)
    for key in list(out):
        out[key] += [s for s in singles if (s["backend"], s["precision"], s["transform"]) == key[:3]]
    if not out:
        for s in singles:
            out[(s["backend"], s["precision"], s["transform"], 1)].append(s)
    return out


def best_by(records, keyfn, stat):
    """{(key, size, direction): fastest record}."""
    best = {}
    for r in records:
        k = (keyfn(r), tuple(r["size"]), r["direction"])
        if k not in best or value(r, stat) < value(best[k], stat):
            best[k] = r
    return best


def sizes_of(records):
    return sorted({tuple(r["size"]) for r in records}, key=lambda s: (points(s), s))


def style(name, i, cmap):
    dec = name.split()[0]
    dashed = "realigned" in name or dec == "single-device"
    color = "black" if dec == "single-device" else cmap(i % 10)
    return dict(color=color, marker=MARKERS.get(dec, "d"), linestyle="--" if dashed else "-", markersize=5)


def title_of(key, records):
    backend, precision, transform, ranks = key
    hosts = sorted({r.get("host", "?") for r in records})
    kind = "r2c/c2r" if transform == "r2c" else transform
    return f"dfft {kind}, {precision}, {ranks} rank{'s' if ranks != 1 else ''}, backend {backend} ({', '.join(hosts)})"


def size_axis(ax, sizes):
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([size_label(s) for s in sizes], rotation=45, ha="right")
    ax.set_xlabel("global size (Nx x Ny x Nz)")


def direction_title(transform, direction):
    if transform == "r2c":
        return "forward (r2c)" if direction == "forward" else "inverse (c2r)"
    return f"{direction} ({transform})"


def plot_runtime(plt, key, records, stat, out, relative):
    sizes = sizes_of(records)
    best = best_by(records, family, stat)
    names = sorted({family(r) for r in records}, key=family_key)
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=relative)
    cmap = plt.get_cmap("tab10")
    for ax, direction in zip(axes, ("forward", "inverse")):
        top = {s: min((value(r, stat) for (n, sz, d), r in best.items() if sz == s and d == direction),
                      default=None) for s in sizes}
        for i, name in enumerate(names):
            xs, ys, err = [], [], [[], []]
            for x, s in enumerate(sizes):
                r = best.get((name, s, direction))
                if r is None:
                    continue
                v = value(r, stat)
                xs.append(x)
                ys.append(v / top[s] if relative else v)
                lo, hi = ci(r, stat)
                err[0].append(lo / top[s] if relative else lo)
                err[1].append(hi / top[s] if relative else hi)
            if xs:
                ax.errorbar(xs, ys, yerr=err if any(err[0] + err[1]) else None, label=name, capsize=2,
                            **style(name, i, cmap))
        size_axis(ax, sizes)
        ax.set_title(direction_title(key[2], direction))
        ax.grid(True, which="both", alpha=0.3)
        if relative:
            ax.set_ylabel("relative runtime (time / fastest at that size)")
            ax.axhline(1.0, color="grey", linewidth=0.8)
        else:
            ax.set_yscale("log")
            ax.set_ylabel(f"time per transform [ms] ({stat})")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8, title="best method per size")
    fig.suptitle(title_of(key, records) + ("" if not relative else " - relative runtime"), fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.83, 0.95))
    save(plt, fig, out, 90)


def plot_methods(plt, key, records, stat, out):
    """One panel per decomposition family and direction: every method relative to the family's best."""
    dist = [r for r in records if r["decomposition"] != "single-device"]
    fams = sorted({family(r) for r in dist}, key=family_key)
    if not fams:
        return False
    sizes = sizes_of(dist)
    cmap = plt.get_cmap("tab10")
    fig, axes = plt.subplots(len(fams), 2, figsize=(11, 2.3 * len(fams) + 1), squeeze=False, sharex=True)
    for row, fam in enumerate(fams):
        recs = [r for r in dist if family(r) == fam]
        best = best_by(recs, method_text, stat)
        methods = sorted({method_text(r) for r in recs})
        for col, direction in enumerate(("forward", "inverse")):
            ax = axes[row][col]
            for i, m in enumerate(methods):
                xs, ys = [], []
                for x, s in enumerate(sizes):
                    cand = [value(r, stat) for (mm, sz, d), r in best.items() if sz == s and d == direction]
                    r = best.get((m, s, direction))
                    if r is not None and cand:
                        xs.append(x)
                        ys.append(value(r, stat) / min(cand))
                if xs:
                    ax.plot(xs, ys, label=m, color=cmap(i % 10), marker="o", markersize=4)
            ax.axhline(1.0, color="grey", linewidth=0.8)
            ax.grid(True, alpha=0.3)
            ax.set_title(f"{fam}: {direction_title(key[2], direction)}", fontsize=9)
            ax.set_ylabel("relative runtime", fontsize=8)
            if row == len(fams) - 1:
                size_axis(ax, sizes)
            ax.legend(fontsize=7, loc="upper left", title="method", title_fontsize=7)
    fig.suptitle(title_of(key, records) + f" - methods relative to the best of each panel ({stat})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    save(plt, fig, out, 70)
    return True


def plot_phases(plt, key, records, out):
    dist = [r for r in records if r["decomposition"] != "single-device"]
    if not dist:
        return False
    # The largest of the sizes that most configurations ran (a scaling series may add larger ones).
    count = collections.Counter(tuple(r["size"]) for r in dist)
    size = max(count, key=lambda s: (count[s], points(s)))
    recs = [r for r in dist if tuple(r["size"]) == size]
    colors = {"fft": "#4c72b0", "pack": "#dd8452", "comm": "#c44e52", "unpack": "#55a868"}
    n = max(len([r for r in recs if r["direction"] == d]) for d in ("forward", "inverse"))
    fig, axes = plt.subplots(1, 2, figsize=(13, 1.2 + 0.28 * n), sharex=True)
    for ax, direction in zip(axes, ("forward", "inverse")):
        rows = sorted((r for r in recs if r["direction"] == direction),
                      key=lambda r: sum(r["phases_ms"][p] for p in PHASES), reverse=True)
        labels = [f"{family(r)} {method_text(r)}" for r in rows]
        left = [0.0] * len(rows)
        for p in PHASES:
            widths = [r["phases_ms"][p] for r in rows]
            ax.barh(range(len(rows)), widths, left=left, color=colors[p], label=p)
            left = [a + b for a, b in zip(left, widths)]
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_xlabel("time [ms] (per phase: median over repetitions of the max over ranks)", fontsize=8)
        ax.set_title(f"{direction_title(key[2], direction)}, size {size_label(size)}", fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", ncol=4, fontsize=8, title="phase")
    fig.suptitle(title_of(key, records) + " - phase split", fontsize=10, x=0.35)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    save(plt, fig, out, 80)
    return True


def scaling_series(records, stat):
    """{family: {size: {ranks: time}}} of the forward transform, best method per point."""
    series = collections.defaultdict(lambda: collections.defaultdict(dict))
    for r in records:
        if r["decomposition"] == "single-device" or r["direction"] != "forward":
            continue
        fam = f'{r["decomposition"]} {r["variant"]}'
        cell = series[fam][tuple(r["size"])]
        v = value(r, stat)
        if r["ranks"] not in cell or v < cell[r["ranks"]]:
            cell[r["ranks"]] = v
    return series


def plot_scaling(plt, key3, records, stat, out):
    series = scaling_series(records, stat)
    strong = {f: {s: c for s, c in sizes.items() if len(c) >= 2} for f, sizes in series.items()}
    if not any(strong.values()):
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 6.5))
    cmap = plt.get_cmap("viridis")
    all_sizes = sorted({s for f in strong.values() for s in f}, key=points)
    shade = {s: cmap(i / max(len(all_sizes) - 1, 1) * 0.9) for i, s in enumerate(all_sizes)}
    for fam in sorted(strong, key=family_key):
        for s, cell in sorted(strong[fam].items(), key=lambda kv: points(kv[0])):
            ps = sorted(cell)
            ax1.plot(ps, [cell[p] for p in ps], marker=MARKERS.get(fam.split()[0], "o"), color=shade[s],
                     label=f"{fam} {size_label(s)}")
            ax1.plot(ps, [cell[ps[0]] * ps[0] / p for p in ps], color=shade[s], linestyle=":", linewidth=0.8)
    # Weak scaling: chains where the points per rank stay constant.
    weak = 0
    for fam in sorted(series, key=family_key):
        per_rank = collections.defaultdict(dict)
        for s, cell in series[fam].items():
            for p, v in cell.items():
                per_rank[points(s) / p][p] = (v, s)
        for n, chain in sorted(per_rank.items()):
            if len(chain) < 2:
                continue
            ps = sorted(chain)
            weak += 1
            ax2.plot(ps, [chain[p][0] for p in ps], marker=MARKERS.get(fam.split()[0], "o"),
                     label=f"{fam}, {int(n)} points/rank ({size_label(chain[ps[0]][1])} on {ps[0]})")
    ranks = sorted({p for f in series.values() for c in f.values() for p in c})
    for ax, name in ((ax1, "strong scaling: fixed size (dotted: ideal T(P0) P0/P)"),
                     (ax2, "weak scaling: points per rank fixed (ideal: flat)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([str(p) for p in ranks])
        ax.set_yscale("log")
        ax.set_xlabel("ranks P")
        ax.set_ylabel(f"forward time per transform [ms] ({stat})")
        ax.set_title(name, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    if not weak:
        ax2.text(0.5, 0.5, "no size grows with the ranks in these results", ha="center", transform=ax2.transAxes)
    backend, precision, transform = key3
    hosts = sorted({r.get("host", "?") for r in records})
    fig.suptitle(f"dfft {transform}, {precision}, backend {backend} ({', '.join(hosts)}): best method per point",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    save(plt, fig, out, 90)
    return True


def plot_automatic(plt, records, out):
    """The automatic choice's forward+inverse time over the sweep's best, one bar per cell
    (results_tables.automatic_cells: the same cells and ratios as the results pages' table), one
    panel per machine, suite and staging, so that each panel reads like one table of the page."""
    import results_tables
    cells = results_tables.automatic_cells(records)
    if not cells:
        return False
    panels = {}
    for k in sorted(cells, key=lambda k: (k[0], k[7], k[2], k[1], k[3], [int(x) for x in k[5].split("x")], int(k[6]))):
        staging = {"-": "", "auto": ""}.get(k[2], k[2] + " staging")
        panels.setdefault((k[0], k[7], staging), []).append(k)
    ncols = min(3, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.2 * nrows), squeeze=False)
    top = max(1.2, max(cells[k][0][0] / cells[k][1][0] for k in cells if cells[k][0][0] and cells[k][1][0]) * 1.05)
    for ax, ((machine, suite, staging), keys) in zip(axes.flat, panels.items()):
        ratios = [cells[k][0][0] / cells[k][1][0] if cells[k][0][0] and cells[k][1][0] else float("nan") for k in keys]
        colours = ["tab:green" if r <= 1.05 else "tab:orange" if r <= 1.10 else "tab:red" for r in ratios]
        ax.bar(range(len(keys)), ratios, color=colours)
        for y, style in ((1.0, "-"), (1.10, "--")):
            ax.axhline(y, color="black", linestyle=style, linewidth=0.8)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([f"{k[5].split('x')[0]}^3\n{k[3][0]}{'64' if k[3] == 'double' else '32'} P{k[6]}" for k in keys],
                           fontsize=6.5)
        ax.set_ylim(0.9, top)
        ax.set_title(f"{machine}: {suite} {staging}".strip(), fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("automatic / best (fwd+inv)", fontsize=7)
    fig.suptitle("Automatic choice / fastest of the same job (green <= 1.05, orange <= 1.10, red above)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    save(plt, fig, out, 110)
    return True


def plot_crossover(plt, records, out):
    """Pencil over slab (forward+inverse, the fastest method of each) against the slab's planes
    per rank, one line per machine and rank count (results_tables.crossover_cells: the cells and
    ratios of the results pages' crossover table); below 1 the pencil is faster."""
    import results_tables
    cells = results_tables.crossover_cells(records)
    if not cells:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    lines = sorted({(k[0], k[1]) for k in cells})
    for i, (machine, ranks) in enumerate(lines):
        keys = sorted((k for k in cells if (k[0], k[1]) == (machine, ranks)), key=lambda k: cells[k][3])
        x = [cells[k][3] for k in keys]
        y = [cells[k][1][0] / cells[k][0][0] for k in keys]
        label = f"{ranks} ranks" + (f" ({machine})" if len({m for m, _ in lines}) > 1 else "")
        ax.plot(x, y, marker="os^vD"[i % 5], label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("planes per rank of the slab (first axis / ranks)")
    ax.set_ylabel("pencil / slab (fwd+inv)")
    ax.set_title("Slab against pencil on one node: below 1 the pencil wins", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(linewidth=0.3)
    fig.tight_layout()
    save(plt, fig, out, 110)
    return True


def plot_library(plt, records, out):
    """dfft's libfftw3_mpi over FFTW-MPI (results_tables.library_cells: the cells of the results
    pages' library table), each direction against the rank count, one line per size, transform and
    direction; below 1 dfft's library is faster."""
    import results_tables
    cells = results_tables.library_cells(records)
    cpu = {k: v for k, v in cells.items() if k[4] == "cpu"}
    if not cpu:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    series = sorted({(k[1], k[2], k[3]) for k in cpu})
    for i, (size, transform, harness) in enumerate(series):
        keys = sorted((k for k in cpu if (k[1], k[2], k[3]) == (size, transform, harness)), key=lambda k: int(k[5]))
        program = "" if harness == "-" else " " + harness
        for d, dash in (("forward", "-"), ("inverse", "--")):
            x = [int(k[5]) for k in keys]
            y = [cpu[k][0][d]["time_ms"]["median"] / cpu[k][1][d]["time_ms"]["median"] for k in keys]
            ax.plot(x, y, dash, marker="os^vD"[i % 5], color="C%d" % i,
                    label=f"{size} {transform}{program} {'fwd' if d == 'forward' else 'inv'}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.9, color="gray", linewidth=0.6, linestyle=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("dfft's libfftw3_mpi / FFTW-MPI")
    ax.set_title("One FFTW-MPI program on either library: below 1 dfft's is faster", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(linewidth=0.3)
    fig.tight_layout()
    save(plt, fig, out, 110)
    return True


def plot_fftw_auto(plt, records, out):
    """dfft's automatic plan (as it is and with destroy_input) and its libfftw3_mpi over FFTW-MPI
    in the same jobs (results_tables.fftw_auto_cells: the cells of the results pages' fftw-auto
    table), each direction against the rank count, one panel per size; each point the ratio of
    the medians over the runner's processes, its bar the lowest and highest ratio of one process."""
    import results_tables
    cells = results_tables.fftw_auto_cells(records)
    sizes = sorted({k[1] for k in cells}, key=lambda s: [int(x) for x in s.split("x")])
    if not sizes:
        return False
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.8), squeeze=False, sharey=True)
    for ax, size in zip(axes[0], sizes):
        keys = sorted((k for k in cells if k[1] == size), key=lambda k: k[2])
        for i, (side, label) in enumerate(results_tables.FFTW_AUTO_SIDES):
            for d, dash in (("forward", "-"), ("inverse", "--")):
                pts = [(k[2], results_tables.fftw_auto_ratio(cells[k], side, d)) for k in keys]
                pts = [(x, r) for x, r in pts if r is not None]
                if not pts:
                    continue
                x = [p[0] * (1 + 0.04 * (i - 1)) for p in pts]  # sides side by side at each rank count
                y = [p[1][0] for p in pts]
                err = [[p[1][0] - p[1][1] for p in pts], [p[1][2] - p[1][0] for p in pts]]
                ax.errorbar(x, y, yerr=err, fmt=dash, marker="osD"[i], color="C%d" % i, capsize=2,
                            label=f"{label} {'fwd' if d == 'forward' else 'inv'}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.85, color="gray", linewidth=0.6, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("MPI ranks (one per core)")
        ax.set_title(size + " double r2c", fontsize=9)
        ax.grid(linewidth=0.3)
    axes[0][0].set_ylabel("time / FFTW-MPI's (below 1: dfft faster)")
    axes[0][-1].legend(fontsize=6, ncol=1)
    fig.tight_layout()
    save(plt, fig, out, 110)
    return True


def plot_passes(plt, records, out):
    """Passes over device memory (memory_passes) of the single-device rows (cuFFT) and dfft's
    fastest rows, per size, precision and direction, with the two passes a 3-D r2c needs."""
    recs = [r for r in records if r.get("memory_passes") is not None]
    if not recs:
        return False
    keys = sorted({(r["size"][0], r["precision"], r["direction"]) for r in recs},
                  key=lambda k: (k[0], k[1] != "float", k[2] != "forward"))
    fig, ax = plt.subplots(figsize=(7.6, 3.6))
    width = 0.38
    for j, (name, which) in enumerate((("cuFFT (single device)", lambda r: r.get("decomposition") == "single-device"),
                                       ("dfft", lambda r: r.get("decomposition") != "single-device"))):
        y = []
        for n, prec, d in keys:
            c = [r for r in recs if which(r) and (r["size"][0], r["precision"], r["direction"]) == (n, prec, d)]
            y.append(min(r["memory_passes"] for r in c) if c else 0)
        ax.bar([i + (j - 0.5) * width for i in range(len(keys))], y, width, label=name, color="C%d" % j)
    ax.axhline(2.0, color="black", linewidth=0.8, linestyle=":", label="two passes")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(["%d^3 %s\n%s" % (n, prec, "fwd" if d == "forward" else "inv") for n, prec, d in keys], fontsize=7)
    ax.set_ylabel("passes over device memory")
    ax.set_ylim(0, 4.4)
    ax.set_title("One GPU, 3-D r2c: time over one pass at the device copy rate", fontsize=9)
    ax.legend(fontsize=7, ncol=3, loc="upper center")
    ax.grid(axis="y", linewidth=0.3)
    fig.tight_layout()
    save(plt, fig, out, 110)
    return True


def plot_threads(plt, records, out):
    """Ranks x threads on one node: forward+inverse time of dfft's fastest configuration and of
    FFTW-MPI's faster layout at each split, one panel per size, one line per library and day of
    the runs (so that a rerun shows beside the run it replaces)."""
    import results_tables as rt
    # Per day: a configuration rerun on a later day is a point of its own here, not a replacement.
    by_day = {}
    for r in records:
        by_day.setdefault(rt.field(r, "day"), []).append(r)
    pairs = [p for recs in by_day.values() for p in rt.configurations(recs).values()]
    rows = rt.grouped(pairs, ["size", "day", "ranks", "threads"])
    sizes = sorted({k[0] for k in rows}, key=lambda s: [int(x) for x in s.split("x")])
    if not sizes:
        return False
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.0 * len(sizes), 3.6), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        splits = sorted({(int(k[2]), int(k[3])) for k in rows if k[0] == size}, reverse=True)
        for day in sorted({k[1] for k in rows if k[0] == size}):
            for lib, pick, style in (("dfft", rt.is_dfft, "-o"), ("FFTW-MPI", rt.peer, "--s")):
                # A split not measured leaves a gap in its line (NaN), not a line across it.
                ys = [rt.best([p for p in rows.get((size, day, str(r), str(t)), []) if pick(p)])[0]
                      for r, t in splits]
                if any(y is not None for y in ys):
                    ax.plot(range(len(splits)), [float("nan") if y is None else y for y in ys], style,
                            label=f"{lib} {day}")
        ax.set_xticks(range(len(splits)))
        ax.set_xticklabels([f"{r}x{t}" for r, t in splits], fontsize=8)
        ax.set_xlabel("ranks x threads per rank")
        ax.set_yscale("log")
        ax.set_ylabel("ms, forward + inverse")
        ax.set_title(size, fontsize=9)
        ax.grid(linewidth=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Every split of one node's cores: dfft's fastest configuration and FFTW-MPI's faster layout",
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    save(plt, fig, out, 110)
    return True


def plot_tune(plt, records, out, top=12):
    """`dfft tune --json` records: one row per candidate (the chosen first, then the other
    finalists, then the fastest of the rest, at most `top`), every timed repetition as a dot
    (first pass hollow, final rounds filled), so that ties show as overlapping clouds."""
    cands = [r for r in records if r.get("kind") == "tune-candidate" and r.get("samples_ms")]
    if not cands:
        return False
    def rank(r):
        t = r.get("final_ms") if r.get("finalist") else r.get("median_ms")
        return (not r.get("chosen"), not r.get("finalist"), t if t is not None else float("inf"))
    cands = sorted(cands, key=rank)[:top]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(cands) + 1.6))
    for y, r in enumerate(cands):
        colour = "tab:green" if r.get("chosen") else "tab:orange" if r.get("tied") else \
            "tab:blue" if r.get("finalist") else "tab:gray"
        first, final = r.get("samples_ms") or [], r.get("final_samples_ms") or []
        jitter = [0.12 * ((i % 5) - 2) / 2 for i in range(max(len(first), len(final)))]
        ax.scatter(first, [y - 0.15 + j for j in jitter[:len(first)]], s=14, facecolors="none",
                   edgecolors=colour, linewidths=0.8)
        if final:
            ax.scatter(final, [y + 0.15 + j for j in jitter[:len(final)]], s=14, color=colour)
    ax.set_yticks(range(len(cands)))
    ax.set_yticklabels([r["label"] + (" (chosen)" if r.get("chosen") else " (tie)" if r.get("tied") else "")
                        for r in cands], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ms per forward+inverse pair (slowest rank per repetition)")
    r0 = cands[0]
    size = "x".join(str(n) for n in r0.get("size", []))
    ax.set_title(f"dfft tune {size} {r0.get('precision', '')} {r0.get('transform', '')}, {r0.get('ranks')} ranks, "
                 f"{(r0.get('machine') or {}).get('cpu_model') or (r0.get('machine') or {}).get('host', '')}: "
                 "hollow first pass, filled final rounds",
                 fontsize=9)
    ax.grid(axis="x", linewidth=0.3)
    fig.tight_layout()
    save(plt, fig, out, 110)
    return True


def system_python_or_exit():
    """matplotlib is missing for this interpreter (often a pyenv or virtualenv python3 first on
    PATH): rerun with the system one if that has it (the Debian package), else say what to install."""
    system = "/usr/bin/python3"
    if (os.environ.get("DFFT_PLOT_REEXEC") != "1" and os.path.exists(system)
            and os.path.realpath(system) != os.path.realpath(sys.executable)
            and subprocess.run([system, "-c", "import matplotlib"], capture_output=True).returncode == 0):
        print(f"plot.py: no matplotlib for {sys.executable}; using {system}", file=sys.stderr)
        os.environ["DFFT_PLOT_REEXEC"] = "1"
        os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("plot.py: matplotlib is not installed for " + sys.executable +
             " (Debian/Ubuntu: apt-get install python3-matplotlib; other systems: pip install matplotlib)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="JSON-lines result files of dfft bench --json")
    ap.add_argument("-o", "--out", required=True, help="output folder (created if missing)")
    ap.add_argument("--stat", choices=("median", "mean", "min"), default="median",
                    help="statistic per configuration (default median, with 99%% interval error bars)")
    ap.add_argument("--automatic", action="store_true",
                    help="only automatic.png: the automatic choice over the sweep's best per cell "
                         "(records of the defaults suites)")
    ap.add_argument("--crossover", action="store_true",
                    help="only crossover.png: pencil over slab against the slab's planes per rank "
                         "(records of the crossover suites)")
    ap.add_argument("--threads", action="store_true",
                    help="only threads.png: every ranks x threads split, dfft against FFTW-MPI "
                         "(records and peer records of the cpu-threads suite)")
    ap.add_argument("--library", action="store_true",
                    help="only library.png: dfft's libfftw3_mpi over FFTW-MPI per rank count "
                         "(peer records of the fftw-mpi-lib suites)")
    ap.add_argument("--fftw-auto", action="store_true",
                    help="only fftw-auto.png: dfft's automatic plan and its libfftw3_mpi over FFTW-MPI "
                         "per rank count (records and peer records of the cpu-fftw-auto suites)")
    ap.add_argument("--passes", action="store_true",
                    help="only passes.png: one GPU's transforms in passes over device memory "
                         "(records of dfft bench --backend cuda --reference)")
    ap.add_argument("--tune", action="store_true",
                    help="only tune.png: the tuner's candidates with every timed repetition "
                         "(records of dfft tune --json)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        system_python_or_exit()
    os.makedirs(args.out, exist_ok=True)
    # One figure of a kind: (plotting function, how to read the files, what is missing when it
    # draws nothing). Every record counts there (an automatic row repeats a sweep configuration).
    def tune_records(files):
        # Tuner records are not bench records (records.check would refuse them): read as they are.
        import json
        return [json.loads(x) for f in files for x in open(f) if x.strip()]
    single = {"automatic": (plot_automatic, load, "no automatic-choice cells"),
              "crossover": (plot_crossover, load, "no cell with both slab and pencil"),
              "threads": (plot_threads, load, "no records"),
              "library": (plot_library, load, "no dfft-fftw-mpi record with an FFTW-MPI record beside it"),
              "passes": (plot_passes, load, "no record with memory_passes"),
              "fftw_auto": (plot_fftw_auto, load, "no cell with FFTW-MPI beside dfft"),
              "tune": (plot_tune, tune_records, "no dfft tune --json candidate records")}
    for kind, (plot, read, missing) in single.items():
        if getattr(args, kind):
            path = os.path.join(args.out, kind.replace("_", "-") + ".png")
            if not plot(plt, read(args.files), path):
                sys.exit("plot.py: " + missing + " in " + ", ".join(args.files))
            print("wrote", path)
            return
    records = dedupe(load(args.files))
    written = []
    for key, recs in sorted(groups_by_ranks(records).items()):
        tag = f"{key[2]}_{key[1]}_{key[0]}_np{key[3]}"
        for kind, fn in (("runtime", lambda o: plot_runtime(plt, key, recs, args.stat, o, False) or True),
                         ("relative", lambda o: plot_runtime(plt, key, recs, args.stat, o, True) or True),
                         ("methods", lambda o: plot_methods(plt, key, recs, args.stat, o)),
                         ("phases", lambda o: plot_phases(plt, key, recs, o))):
            path = os.path.join(args.out, f"{kind}_{tag}.png")
            if fn(path):
                written.append(path)
    by_kind = collections.defaultdict(list)
    for r in records:
        by_kind[(r["backend"], r["precision"], r["transform"])].append(r)
    for key3, recs in sorted(by_kind.items()):
        path = os.path.join(args.out, f"scaling_{key3[2]}_{key3[1]}_{key3[0]}.png")
        if plot_scaling(plt, key3, recs, args.stat, path):
            written.append(path)
        else:
            print(f"plot.py: no scaling figure for {'/'.join(key3)}: the results hold one rank count per size "
                  "(use \"ranks\": [1, 2, 4] in a cases file, or pass results of several mpirun -np)")
    for p in written:
        print("wrote", p)


if __name__ == "__main__":
    main()
