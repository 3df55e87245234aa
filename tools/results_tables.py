# SPDX-License-Identifier: MIT
"""Markdown tables of stored benchmark records, for tools/results_pages.py.

Kinds (options besides the record filters of results_pages.py):
  list       one row per configuration: cols=FIELD,... (row columns), extra=FIELD,... (values
             of the forward record, e.g. error, exchange_bytes); forward and inverse median ms
             (times=off leaves them out)
  reference  dfft against its single-device rows (serial FFTW on CPU, cuFFT on one GPU), by=FIELD,...
  peer       dfft against FFTW-MPI (fftw-mpi-bench records), per size and rank count
  (reference and peer: directions=on adds each direction on its own, the fastest forward and the
  fastest inverse of either side, which need not come from one configuration, and their ratios)
  scaling    strong scaling: best time per size and rank count, and the speed-up over the
             smallest rank count; library=dfft (default) or fftw-mpi
  halo       halo-bench records (test=halo): dfft::Halo (p2p-type, p2p-sync) against the
             hand-written MPI_Sendrecv exchange, one row per size, ranks, blocks, width and
             corners (the latest record)
  halo-gpu   gpu-halo-bench records (test=halo-gpu): dfft::Halo on device arrays (nccl,
             p2p-sync) against a hand-written NCCL exchange, rows as for halo
  column-fft column-fft-bench records (test=column-fft): dfft's column FFT kernel against cuFFT
             with and without its store callback, one row per machine, length and precision (the
             latest record)
  defaults   what a user gets without options, from the defaults-python suite: per rank count, dfft's
             Python Plan (library dfft-python), dfft bench's C++ plan, mpi4py-fft and serial FFTW
             (the single-device rows of 1-rank jobs); the median over the processes of each
             process's median, the max/min over the processes, and the ratios to mpi4py-fft and
             to serial FFTW. Only the latest runner invocation (run.series) of each row counts.
  automatic the automatic choice (cases-file test "automatic") against the fastest configuration
             of the same job (every other test), per machine, backend, staging, precision, size and
             rank count: forward+inverse times, their ratio, and the geometric mean of the ratios;
             where the runner repeated the job in several processes, each time is the median over
             them.
  library    dfft's libfftw3_mpi (library dfft-fftw-mpi) against FFTW-MPI (fftw-mpi), both timed by
             fftw-mpi-bench: per machine, size, transform, backend and rank count, each direction's
             time on either side and their ratio, and the planning times; a dfft row on the GPU
             (backend cuda) is set against FFTW-MPI's fastest rank count of the same size
             (all=on does that for every row)
  fftw-auto  dfft's automatic plan (as it is, and with destroy_input) and its libfftw3_mpi against
             FFTW-MPI in the same jobs, per size and rank count, over the runner's processes: each
             ratio with its spread over the processes; target=R counts the cells at or below R
  crossover  slab-2d1d against pencil per machine, rank count and size: the fastest of each
             decomposition (forward+inverse, over its methods and variants), the planes per rank
             of the slab (the first axis over the ranks), pencil / slab, and where the job timed
             the automatic choice (test "automatic"), what it chose and its time over the faster
             of the two
stat=min (any kind) uses the fastest repetition instead of the median, which a loaded machine
disturbs less. A configuration's time is its forward plus inverse median (one round trip); "best" is the
fastest configuration of those selected. Several records of one configuration (repeated runs):
the latest counts.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records as bench_records  # noqa: E402  (functions here name their record lists `records`)


class SpecError(Exception):
    pass


# The statistic of time_ms that every table of one render() call reads; set by render().
STAT = {"name": "median"}


SHAPES = ("size", "grid")


def text(field, value):
    if isinstance(value, list):
        return ("x" if field in SHAPES else "+").join(str(v) for v in value) or "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "-"
    if isinstance(value, float):
        return "%.2e" % value if value and not 1e-2 <= abs(value) < 1e5 else "%.3g" % value
    return str(value)


def field(rec, name):
    if name in ("machine", "suite", "date"):
        return rec.get("run", {}).get(name)
    if name == "day":  # the UTC date of the run: one run's records where a file holds several
        return (rec.get("run", {}).get("date") or "")[:10] or None
    if name == "series":  # one runner invocation, where a day holds several
        return rec.get("run", {}).get("series")
    return rec.get(name)


def select(records, filters):
    def ok(rec):
        return all(text(k, field(rec, k)) in v.split(",") for k, v in filters.items())
    return [r for r in records if ok(r)]


def ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.1f" % v if v < 1000 else "%.0f" % v)


def config_name(rec):
    if "library" in rec:
        return (rec["library"] + (" (%s)" % rec["harness"] if rec.get("harness") else "") +
                (" transposed" if rec.get("transposed_out") else "") +
                (" in place" if rec.get("in_place") else ""))
    parts = [rec.get("decomposition"), rec.get("variant"), text("methods", rec.get("methods"))]
    if rec.get("codec") not in (None, "none"):
        parts.append("codec " + rec["codec"])
    if rec.get("transposed_out"):
        parts.append("transposed out")
    if rec.get("in_place"):
        parts.append("in place")
    if rec.get("overlap", 1) not in (None, 1):
        parts.append("overlap %s" % rec["overlap"])
    if rec.get("staging") not in (None, "auto"):
        parts.append(rec["staging"] + " staging")
    return " ".join(p for p in parts if p and p != "-")


# A configuration: who ran it where on what, and every plan option the option table
# (tools/option_fields.json) marks as configuration; the others say how the plan was found or
# where its files lie, not what it computes or how. Records that differ in any other option (chunks, steps in flight,
# batch, axes, padding, adapt, tolerance, ...) are other configurations; an option a record leaves
# out is at its default.
RUN_IDENTITY = ("library", "harness", "machine", "precision", "size", "ranks")
HOW_FOUND = tuple(f["name"] for f in bench_records.OPTION_FIELDS if not f["configuration"])
IDENTITY = RUN_IDENTITY + tuple(f["name"] for f in bench_records.OPTION_FIELDS if f["configuration"])


def identity_field(rec, name):
    """A field of a configuration's identity: a plan option the record leaves out is its default."""
    return bench_records.option(rec, name) if name in bench_records.OPTIONS else field(rec, name)


def configurations(records):
    """{identity: {"forward": rec, "inverse": rec}} in first-seen order, the latest record winning."""
    out = {}
    for rec in records:
        key = tuple(text(k, identity_field(rec, k)) for k in IDENTITY)
        slot = out.setdefault(key, {})
        old = slot.get(rec.get("direction"))
        if old is None or field(rec, "date") >= field(old, "date"):
            slot[rec.get("direction")] = rec
    return out


def round_trip(pair):
    try:
        return pair["forward"]["time_ms"][STAT["name"]] + pair["inverse"]["time_ms"][STAT["name"]]
    except (KeyError, TypeError):
        return None


def best(pairs):
    timed = [(round_trip(p), p) for p in pairs if round_trip(p) is not None]
    return min(timed, key=lambda t: t[0]) if timed else (None, None)


def unit():
    return "ms" if STAT["name"] == "median" else STAT["name"] + " ms"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def opt_list(spec, key, default):
    v = spec.pop(key, None)
    return v.split(",") if v else list(default)


def used(pairs):
    return [r for p in pairs for r in p.values()]


def kind_list(spec, records):
    cols = opt_list(spec, "cols", ["decomposition", "variant", "methods", "size", "ranks"])
    extra = opt_list(spec, "extra", [])
    times = spec.pop("times", "on") != "off"
    rows = []
    pairs = list(configurations(select(records, spec)).values())
    for pair in pairs:
        first = pair.get("forward") or pair.get("inverse")
        fwd, inv = (pair.get(d, {}).get("time_ms", {}).get(STAT["name"]) for d in ("forward", "inverse"))
        rows.append([text(c, field(first, c)) for c in cols] + ([ms(fwd), ms(inv)] if times else [])
                    + [text(e, field(pair.get("forward", first), e)) for e in extra])
    header = cols + (["fwd " + unit(), "inv " + unit()] if times else []) + extra
    return table(header, rows), rows, used(pairs)


def per_machine(pairs, keys):
    """keys, led by "machine" when the pairs come from several machines (never mixed in one row)."""
    machines = {field(p.get("forward") or p.get("inverse"), "machine") for p in pairs}
    return (["machine"] if len(machines) > 1 and "machine" not in keys else []) + keys


def grouped(pairs, keys):
    groups = {}
    for pair in pairs:
        rec = pair.get("forward") or pair.get("inverse")
        groups.setdefault(tuple(text(k, field(rec, k)) for k in keys), []).append(pair)
    return groups


def is_dfft(pair):
    rec = pair.get("forward") or pair.get("inverse")
    return "library" not in rec and rec.get("decomposition") != "single-device"


def fastest(pairs, direction):
    """The fastest record of one direction among the pairs, or None."""
    timed = [p[direction] for p in pairs if p.get(direction) and p[direction].get("time_ms")]
    return min(timed, key=lambda r: r["time_ms"][STAT["name"]]) if timed else None


def direction_cells(ours, theirs):
    """Per direction: theirs / ours ms and the ratio (forward, then inverse), and the records."""
    cells, kept = [], []
    for d in ("forward", "inverse"):
        a, b = fastest(theirs, d), fastest(ours, d)
        if a is None or b is None:
            cells += ["-", "-"]
            continue
        ta, tb = a["time_ms"][STAT["name"]], b["time_ms"][STAT["name"]]
        cells += ["%s / %s" % (ms(ta), ms(tb)), "%.3g" % (tb / ta)]
        kept += [a, b]
    return cells, kept


def kind_compare(spec, records, against, label, same_ranks):
    """Rows of `by` groups and dfft rank counts: the best `against` pair (at the same rank count
    when same_ranks), the best dfft pair, their ratio; with directions=on also each direction's
    fastest on either side and their ratio."""
    by = opt_list(spec, "by", ["size", "precision"])
    directions = spec.pop("directions", "off") == "on"
    pairs = list(configurations(select(records, spec)).values())
    by = per_machine(pairs, by)
    rows, kept, kept_records = [], [], []
    for key, group in grouped(pairs, by).items():
        for (ranks,), ours in sorted(grouped([p for p in group if is_dfft(p)], ["ranks"]).items(),
                                     key=lambda kv: int(kv[0][0])):
            theirs = [p for p in group if against(p) and (not same_ranks or rank_text(p) == ranks)]
            ref_t, ref = best(theirs)
            ours_t, our = best(ours)
            if ref_t is None or ours_t is None:
                continue
            kept += [ref, our]
            row = list(key) + [ranks, ms(ref_t), ms(ours_t), config_name(our["forward"]), "%.3g" % (ours_t / ref_t)]
            if directions:
                cells, records_used = direction_cells(ours, theirs)
                row += cells
                kept_records.extend(records_used)
            rows.append(row)
    header = by + ["ranks", label + " " + unit(), "dfft " + unit(), "fastest dfft configuration", "dfft / " + label]
    if directions:
        header += ["fwd %s / dfft %s" % (label, unit()), "fwd ratio", "inv %s / dfft %s" % (label, unit()), "inv ratio"]
    source = used(kept)
    listed = {id(r) for r in source}
    for rec in kept_records:  # each record once in the provenance count
        if id(rec) not in listed:
            listed.add(id(rec))
            source.append(rec)
    return table(header, rows), rows, source


def rank_text(pair):
    return text("ranks", (pair.get("forward") or pair.get("inverse")).get("ranks"))


def single_device(pair):
    return (pair.get("forward") or pair.get("inverse")).get("decomposition") == "single-device"


def peer(pair):
    return "library" in (pair.get("forward") or pair.get("inverse"))


def kind_scaling(spec, records):
    lib = spec.pop("library", "dfft")
    pairs = [p for p in configurations(select(records, spec)).values()
             if (is_dfft(p) if lib == "dfft" else (p.get("forward") or p.get("inverse")).get("library") == lib)]
    keys = per_machine(pairs, ["size"])
    groups = grouped(pairs, keys + ["ranks"])
    sizes = list(dict.fromkeys(k[:-1] for k in groups))
    ranks = sorted({int(k[-1]) for k in groups})
    rows = []
    for s in sizes:
        base, row = None, list(s)
        for r in ranks:
            t, _ = best(groups.get(s + (str(r),), []))
            base = t if base is None else base
            row.append("-" if t is None else "%s (%.2fx)" % (ms(t), base / t))
        rows.append(row)
    return table(keys + ["%d rank%s" % (r, "s" if r > 1 else "") for r in ranks], rows), rows, used(pairs)


def latest_by(records, spec, test, keys):
    """The latest record (by run date) of `test` for each value of `keys`, as a dict."""
    latest = {}
    for rec in select(records, dict(spec, test=test)):
        key = tuple(text(k, field(rec, k)) for k in keys)
        if key not in latest or field(rec, "date") >= field(latest[key], "date"):
            latest[key] = rec
    return latest


def halo_rows(spec, records, test, times, ratio, extra=()):
    """Rows of halo-bench (test=halo) or gpu-halo-bench (test=halo-gpu) records, the latest per
    machine, size, ranks, blocks, width and corners: `times` the time_us keys in column order,
    `ratio` the pair (numerator, denominator) of them, `extra` more record fields after them."""
    latest = latest_by(records, spec, test, ("machine", "size", "ranks", "blocks", "width", "corners"))
    rows = []
    for rec in latest.values():
        t = rec.get("time_us", {})
        num, den = t.get(ratio[0]), t.get(ratio[1])
        rows.append([text(k, field(rec, k)) for k in ("size", "ranks", "blocks", "grid", "width")]
                    + ["yes" if rec.get("corners") else "no", text("size", rec.get("local_box")),
                       text("cells", rec.get("cells"))]
                    + ["-" if t.get(k) is None else "%.1f" % t[k] for k in times]
                    + [str(rec.get(k, "-")) for k in extra]
                    + ["%.2f" % (num / den) if num is not None and den else "-", "yes" if rec.get("same") else "NO"])
    return rows, list(latest.values())


HALO_HEADER = ["size", "ranks", "blocks", "grid", "width", "corners", "local box", "cells moved/rank"]


def kind_halo(spec, records):
    rows, used_recs = halo_rows(spec, records, "halo", ("dfft", "dfft_packed", "sendrecv"), ("dfft", "sendrecv"))
    header = HALO_HEADER + ["p2p-type us", "p2p-sync us", "MPI_Sendrecv us", "p2p-type/Sendrecv", "same"]
    return table(header, rows), rows, used_recs


def kind_halo_gpu(spec, records):
    rows, used_recs = halo_rows(spec, records, "halo-gpu", ("dfft_nccl", "dfft_p2p_sync", "nccl_by_hand"),
                                ("dfft_nccl", "nccl_by_hand"), extra=("p2p_sync_via",))
    header = HALO_HEADER + ["dfft nccl us", "dfft p2p-sync us", "NCCL by hand us", "p2p-sync via",
                            "nccl/by hand", "same"]
    return table(header, rows), rows, used_recs


def kind_column_fft(spec, records):
    latest = latest_by(records, spec, "column-fft", ("machine", "size", "precision"))
    rows = []
    for rec in sorted(latest.values(), key=lambda r: (r["size"][0], r["precision"] != "float")):
        t, e = rec["time_ms"], rec.get("error", {})
        kernel = [v for v in (t.get("kernel_wide"), t.get("kernel_narrow")) if v is not None]
        best = min(kernel) if kernel else None
        n = rec["size"]
        gb = n[0] * n[1] * n[2] * (16 if rec["precision"] == "double" else 8) * 2 * 1e-9
        errs = [v for v in e.values() if v is not None]
        rows.append([str(n[0]), rec["precision"], ms(t.get("cufft")), ms(t.get("cufft_callback")),
                     ms(t.get("kernel_wide")), ms(t.get("kernel_narrow")),
                     "%.2f" % (best / t["cufft"]) if best and t.get("cufft") else "-",
                     "%.0f" % (gb / (best * 1e-3)) if best else "-",
                     "%.1e" % max(errs) if errs else "-"])
    header = ["n", "precision", "cuFFT ms", "cuFFT + store callback ms", "kernel, 128-byte rows ms",
              "kernel, 64-byte rows ms", "kernel / cuFFT", "kernel GB/s", "largest error"]
    return table(header, rows), rows, list(latest.values())


def provenance(records):
    """One line per file: machine, host, CPU/GPU, dates of the records used."""
    lines = []
    for path in sorted({r["run"]["file"] for r in records}):
        recs = [r for r in records if r["run"]["file"] == path]
        dates = sorted(r["run"].get("date", "?") for r in recs)
        m = recs[0].get("machine") or {}
        what = ", ".join(v for v in (m.get("cpu_model"), m.get("gpu_model")) if v)
        lines.append("Records: `%s` (machine %s%s, %s to %s, %d records)." % (
            path, recs[0]["run"]["machine"], " - " + what if what else "", dates[0], dates[-1], len(recs)))
    return lines


DEFAULTS_ROWS = ("dfft-python", "dfft C++", "mpi4py-fft", "serial FFTW")


def defaults_row(rec):
    """The row a record belongs to, or None (single-device rows of multi-rank jobs repeat the
    1-rank ones)."""
    if "library" in rec:
        return rec["library"] if rec["library"] in DEFAULTS_ROWS else None
    if rec.get("decomposition") == "single-device":
        return "serial FFTW" if rec.get("run", {}).get("job_ranks", 1) == 1 else None
    return "dfft C++"


def series(rec):
    run = rec.get("run", {})
    return run.get("series") or run.get("date") or ""


def ratio_text(a, b):
    return "-" if a is None or b is None or not b else "%.2f" % (a / b)


def kind_defaults(spec, records):
    groups = {}
    for rec in select(records, spec):
        row = defaults_row(rec)
        if row is not None and rec.get("direction") in ("forward", "inverse"):
            groups.setdefault((field(rec, "machine"), int(rec.get("ranks", 1)), row), []).append(rec)
    cells, kept = {}, []
    for key, recs in groups.items():
        latest = max(series(r) for r in recs)
        recs = [r for r in recs if series(r) == latest]
        kept += recs
        per = {}  # direction -> one median (STAT) per process
        for r in recs:
            t = r.get("time_ms", {}).get(STAT["name"])
            if t is not None:
                per.setdefault(r["direction"], []).append(t)
        cells[key] = per

    def mid(values):
        return statistics.median(values) if values else None

    def spread(values):
        return "%.2f" % (max(values) / min(values)) if values and min(values) > 0 else "-"

    rows, machines = [], sorted({k[0] for k in cells})
    for machine, ranks, row in sorted(cells, key=lambda k: (k[0], k[1], DEFAULTS_ROWS.index(k[2]))):
        per = cells[(machine, ranks, row)]
        peer = cells.get((machine, ranks, "mpi4py-fft"), {})
        serial = cells.get((machine, 1, "serial FFTW"), {})
        f, i = mid(per.get("forward")), mid(per.get("inverse"))
        against = ["%s / %s" % (ratio_text(f, mid(ref.get("forward"))), ratio_text(i, mid(ref.get("inverse"))))
                   for ref in (peer, serial)]
        processes = max(len(per.get("forward", [])), len(per.get("inverse", [])))
        rows.append(([machine] if len(machines) > 1 else [])
                    + [str(ranks), row, str(processes), ms(f), ms(i), spread(per.get("forward")),
                       spread(per.get("inverse"))] + against)
    header = (["machine"] if len(machines) > 1 else []) + [
        "ranks", "library", "processes", "fwd " + unit(), "inv " + unit(), "fwd max/min", "inv max/min",
        "fwd / inv vs mpi4py-fft", "fwd / inv vs serial FFTW"]
    return table(header, rows), rows, kept


AUTOMATIC_TEST = "automatic"  # the cases-file test whose configuration the plan chose


def over_processes(recs):
    """The configurations' pairs. Where the runner ran the job in several processes ("repeat": N,
    run.repeat 1..N), each direction's time is the median over the processes of each process's
    time, so that a slow spell of the machine during one process moves no configuration alone."""
    procs = {}
    for rec in recs:
        procs.setdefault(rec.get("run", {}).get("repeat"), []).append(rec)
    if len(procs) <= 1:
        return list(configurations(recs).values())
    runs = {}
    for group in procs.values():
        for key, pair in configurations(group).items():
            runs.setdefault(key, []).append(pair)
    pairs = []
    for key, seen in runs.items():
        pair = {}
        for d in ("forward", "inverse"):
            times = [p[d]["time_ms"][STAT["name"]] for p in seen if d in p]
            if times:
                rec = dict(seen[-1][d])
                rec["time_ms"] = dict(rec["time_ms"], **{STAT["name"]: statistics.median(times)})
                pair[d] = rec
        pairs.append(pair)
    return pairs


def automatic_cells(records):
    """{(machine, backend, staging, precision, transform, size, ranks, suite): (automatic pair, best
    pair, sweep configurations, records)} of the latest runner invocation of each cell that timed
    both the automatic row and something to compare it with, for the automatic-choice suites (a
    suite is its own cell: 2 ranks on 2 GPUs or on one shared GPU). On one rank nothing is
    exchanged, and the comparison is the single-device transform of the same run (the reference
    row: FFTW or cuFFT alone); on several ranks that row is the peer, not a configuration."""
    groups = {}
    for rec in records:
        if rec.get("direction") not in ("forward", "inverse"):
            continue
        one_rank = int(field(rec, "ranks") or 0) == 1
        if rec.get("decomposition") == "single-device" and not one_rank:
            continue
        # Staging names how exchanges move data; one rank exchanges nothing.
        key = tuple("-" if k == "staging" and one_rank else text(k, field(rec, k)) for k in
                    ("machine", "backend", "staging", "precision", "transform", "size", "ranks", "suite"))
        groups.setdefault(key, []).append(rec)
    cells = {}
    for key, recs in groups.items():
        for run in sorted({series(r) for r in recs}, reverse=True):
            mine = [r for r in recs if series(r) == run]
            chosen = [r for r in mine if r.get("test") == AUTOMATIC_TEST and r.get("decomposition") != "single-device"]
            auto = over_processes(chosen)
            rest = over_processes([r for r in mine if not any(r is c for c in chosen)])
            if auto and rest:
                cells[key] = (best(auto), best(rest + auto), len(rest), mine)
                break
    return cells


def kind_automatic(spec, records):
    cells = automatic_cells(select(records, spec))
    machines = {k[0] for k in cells}
    rows, kept, logs = [], [], []
    for key in sorted(cells, key=lambda k: (k[0], k[1], k[2], k[3], k[4], [int(x) for x in k[5].split("x")], int(k[6]))):
        (ta, pa), (tb, pb), n, recs = cells[key]
        kept += recs
        machine, backend, staging, precision, transform, size, ranks, _ = key
        ratio = ta / tb if ta and tb else None
        if ratio:
            logs.append(math.log(ratio))
        rows.append(([machine] if len(machines) > 1 else [])
                    + [backend + ("" if staging in ("-", "auto") else " " + staging + " staging"), precision, size, ranks,
                       config_name(pa["forward"]), ms(ta), config_name(pb["forward"]), ms(tb),
                       "-" if ratio is None else "%.2f" % ratio, str(n)])
    if logs:
        rows.append(([""] if len(machines) > 1 else []) + ["geometric mean", "", "", "", "", "", "", "",
                                                            "%.2f" % math.exp(sum(logs) / len(logs)), ""])
    header = (["machine"] if len(machines) > 1 else []) + [
        "backend", "precision", "size", "ranks", "automatic choice", "fwd+inv " + unit(), "sweep's best",
        "fwd+inv " + unit(), "automatic / best", "configurations"]
    return table(header, rows), rows, kept


def crossover_cells(records):
    """{(machine, ranks, size): (slab (time, pair), pencil (time, pair), automatic (time, pair),
    planes per rank, records)} of the cells that timed both decompositions."""
    cells = {}
    # The automatic row repeats a configuration of the sweep: kept apart, not merged with it.
    is_auto = [r.get("test") == AUTOMATIC_TEST for r in records]
    keys = ["machine", "ranks", "size"]
    autos = grouped(list(configurations([r for r, a in zip(records, is_auto) if a]).values()), keys)
    groups = grouped(list(configurations([r for r, a in zip(records, is_auto) if not a]).values()), keys)
    for (machine, ranks, size), pairs in groups.items():
        sweep = [p for p in pairs if is_dfft(p)]
        auto = autos.get((machine, ranks, size), [])
        dfft = sweep + auto
        slab = best([p for p in sweep if (p.get("forward") or p.get("inverse")).get("decomposition") == "slab-2d1d"])
        pencil = best([p for p in sweep if (p.get("forward") or p.get("inverse")).get("decomposition") == "pencil"])
        if slab[0] is None or pencil[0] is None:
            continue
        n0 = int(size.split("x")[0])
        cells[(machine, int(ranks), size)] = (slab, pencil, best(auto), n0 / int(ranks), used(dfft))
    return cells


def cell_order(key):
    return (key[0], key[1], [int(x) for x in key[2].split("x")])


def kind_crossover(spec, records):
    cells = crossover_cells(select(records, spec))
    machines = {k[0] for k in cells}
    rows, kept = [], []
    for key in sorted(cells, key=cell_order):
        (ts, ps), (tp, pp), (ta, pa), planes, recs = cells[key]
        kept += recs
        row = ([key[0]] if len(machines) > 1 else []) + [str(key[1]), key[2], "%g" % planes,
                                                        ms(ts), config_name(ps["forward"]), ms(tp),
                                                        config_name(pp["forward"]), "%.2f" % (tp / ts)]
        if ta is not None:
            row += [config_name(pa["forward"]) + " grid " + text("grid", pa["forward"].get("grid")), ms(ta),
                    "%.2f" % (ta / min(ts, tp))]
        else:
            row += ["-", "-", "-"]
        rows.append(row)
    header = (["machine"] if len(machines) > 1 else []) + [
        "ranks", "size", "planes per rank", "slab " + unit(), "fastest slab", "pencil " + unit(), "fastest pencil",
        "pencil / slab", "automatic choice", "automatic " + unit(), "automatic / faster"]
    return table(header, rows), rows, kept


def kind_r2r(spec, records):
    """DCT/DST plans beside the plain FFT (c2c, no DCT/DST axis) of the same machine, ranks,
    precision and size: each row's forward and inverse, and its forward+inverse over the FFT's."""
    pairs = [p for p in configurations(select(records, spec)).values() if round_trip(p) is not None]
    keys = per_machine(pairs, ["ranks", "precision", "size"])
    rows = []
    for key, group in grouped(pairs, keys).items():
        plain = [p for p in group if field(p["forward"], "transform") == "c2c" and not p["forward"].get("r2r")]
        base = round_trip(plain[0]) if plain else None
        for p in group:
            f = p["forward"]
            kinds = f.get("r2r") or []
            rows.append(list(key) + [field(f, "transform"), text("r2r", kinds) if kinds else "-",
                                     ms(f["time_ms"][STAT["name"]]), ms(p["inverse"]["time_ms"][STAT["name"]]),
                                     "%.2f" % (round_trip(p) / base) if base else "-"])
    header = keys + ["transform", "DCT/DST per axis", "fwd " + unit(), "inv " + unit(), "fwd+inv / c2c"]
    return table(header, rows), rows, used(pairs)


def library_cells(records, every=False):
    """{(machine, size, transform, program, backend, dfft ranks): (dfft pair, FFTW-MPI pair)} of the
    library table: dfft's libfftw3_mpi against FFTW-MPI timed by the same program (fftw-mpi-bench,
    or FFTW's mpi-bench: the records' harness) at the same rank count, or (a GPU row, or every
    row with every=True) against FFTW-MPI's fastest rank count of that size and transform."""
    pairs = [p for p in configurations(records).values()
             if (p.get("forward") or p.get("inverse")).get("library") in ("fftw-mpi", "dfft-fftw-mpi")]
    cells = {}
    for key, group in grouped(pairs, ["machine", "size", "transform", "harness"]).items():
        fftw = [p for p in group if (p.get("forward") or p.get("inverse"))["library"] == "fftw-mpi"]
        for p in group:
            f = p.get("forward") or p.get("inverse")
            if f["library"] != "dfft-fftw-mpi" or round_trip(p) is None:
                continue
            cpu = field(f, "backend") in (None, "cpu") and not every
            _, ref = best([q for q in fftw if rank_text(q) == rank_text(p)] if cpu else fftw)
            if ref is not None:
                cells[key + (text("backend", field(f, "backend")), rank_text(p))] = (p, ref)
    return cells


def kind_library(spec, records):
    every = spec.pop("all", "off") == "on"
    cells = library_cells(select(records, spec), every)
    machines = {k[0] for k in cells}
    rows, kept = [], []
    for k in sorted(cells, key=lambda k: (k[0], k[1], k[2], k[3], k[4], int(k[5]))):
        p, ref = cells[k]
        kept += [ref, p]
        program = "fftw-mpi-bench" if k[3] == "-" else k[3]
        row = ([k[0]] if len(machines) > 1 else []) + [k[1], k[2], program, k[4], k[5], rank_text(ref)]
        for d in ("forward", "inverse"):
            a, b = ref[d]["time_ms"][STAT["name"]], p[d]["time_ms"][STAT["name"]]
            row += [ms(a), ms(b), "%.2f" % (b / a)]
        pa, pb = ref["forward"].get("plan_ms"), p["forward"].get("plan_ms")
        row += [ms(pa), ms(pb), "%.2f" % (pb / pa) if pa and pb else "-"]
        rows.append(row)
    header = (["machine"] if len(machines) > 1 else []) + [
        "size", "transform", "timed by", "dfft on", "dfft ranks", "FFTW-MPI ranks", "fwd FFTW-MPI " + unit(),
        "fwd dfft " + unit(), "fwd ratio", "inv FFTW-MPI " + unit(), "inv dfft " + unit(), "inv ratio",
        "plan FFTW-MPI ms", "plan dfft ms", "plan ratio"]
    return table(header, rows), rows, used(kept)


# Sides of the fftw-auto table: dfft's automatic plan as it is, the same with the inverse allowed
# to overwrite its input (destroy_input), and dfft's libfftw3_mpi; each against FFTW-MPI.
FFTW_AUTO_SIDES = (("auto", "automatic"), ("destroy", "automatic, destroy_input"), ("dfft-fftw-mpi", "libfftw3_mpi"))


def fftw_auto_cells(records):
    """{(machine, size, ranks): {side: {direction: {process: time}}}} for the fftw-auto table and
    figure: sides "fftw-mpi", "auto", "destroy", "dfft-fftw-mpi" (FFTW_AUTO_SIDES), one time per
    runner process (run.repeat; the latest record of a process counts)."""
    cells = {}
    for r in records:
        if r.get("direction") not in ("forward", "inverse") or r.get("decomposition") == "single-device":
            continue
        lib = r.get("library")
        if lib is None:
            side = "destroy" if r.get("destroy_input") else "auto"
        elif lib in ("fftw-mpi", "dfft-fftw-mpi"):
            side = lib
        else:
            continue
        key = (text("machine", field(r, "machine")), text("size", field(r, "size")), int(field(r, "ranks")))
        proc = r.get("run", {}).get("repeat") or 1
        cells.setdefault(key, {}).setdefault(side, {}).setdefault(r["direction"], {})[proc] = r["time_ms"][STAT["name"]]
    return cells


def fftw_auto_ratio(cell, side, direction):
    """(ratio of the medians over processes, lowest and highest ratio of one process's time to the
    same process's FFTW-MPI time) of `side` in one cell, or None where either side is missing."""
    ours = cell.get(side, {}).get(direction, {})
    ref = cell.get("fftw-mpi", {}).get(direction, {})
    if not ours or not ref:
        return None
    each = [ours[p] / ref[p] for p in ours if p in ref]
    ratio = statistics.median(ours.values()) / statistics.median(ref.values())
    return ratio, min(each or [ratio]), max(each or [ratio])


def kind_fftw_auto(spec, records):
    """dfft's automatic plan (tests of the cases file, split by destroy_input) and dfft's
    libfftw3_mpi against FFTW-MPI timed in the same jobs, per machine, size and rank count; jobs
    the runner repeated in several processes: each side's time is the median over the processes of
    each process's median, the ratio that of those medians, and in brackets the lowest and highest
    ratio of one process's time to the same process's FFTW-MPI time. target=R adds a row counting
    the cells at or below R per column."""
    target = float(spec.pop("target", "0"))
    cells = fftw_auto_cells(select(records, spec))
    machines = {k[0] for k in cells}
    rows, kept = [], select(records, spec)
    counts = {}
    for key in sorted(cells, key=lambda k: (k[0], [int(x) for x in k[1].split("x")], k[2])):
        cell = cells[key]
        procs = len(set().union(*(set(d) for side in cell.values() for d in side.values())))
        row = ([key[0]] if len(machines) > 1 else []) + [key[1], str(key[2]), str(procs)]
        for d in ("forward", "inverse"):
            ref = cell.get("fftw-mpi", {}).get(d, {})
            row.append(ms(statistics.median(ref.values())) if ref else "-")
        for side, _ in FFTW_AUTO_SIDES:
            for d in ("forward", "inverse"):
                r = fftw_auto_ratio(cell, side, d)
                row.append("-" if r is None else "%.2f (%.2f-%.2f)" % r if procs > 1 else "%.2f" % r[0])
                if r is not None:
                    n, ok = counts.get((side, d), (0, 0))
                    counts[(side, d)] = (n + 1, ok + (r[0] <= target))
        rows.append(row)
    if target:
        rows.append(([""] if len(machines) > 1 else []) + ["at or below %.2f" % target, "", "", "", ""] +
                    ["%d of %d" % (counts[(s, d)][1], counts[(s, d)][0]) if (s, d) in counts else "-"
                     for s, _ in FFTW_AUTO_SIDES for d in ("forward", "inverse")])
    header = (["machine"] if len(machines) > 1 else []) + [
        "size", "ranks", "processes", "fwd FFTW-MPI " + unit(), "inv FFTW-MPI " + unit()]
    header += ["%s %s / FFTW-MPI" % (label, d) for _, label in FFTW_AUTO_SIDES for d in ("fwd", "inv")]
    return table(header, rows), rows, kept


def kind_passes(spec, records):
    """One GPU by size and precision: the single-device row (cuFFT's 3-D plan), dfft's fastest
    configuration and a peer library's records (torch.fft) of the selected files, each direction's
    time with its passes over device memory (memory_passes) where the record has them."""
    recs = select(records, spec)
    rows, kept = [], []
    keys = sorted({(r["size"][0], r["precision"]) for r in recs}, key=lambda k: (k[0], k[1] != "float"))
    for n, prec in keys:
        mine = [r for r in recs if r["size"][0] == n and r["precision"] == prec]
        def pick(which, direction):
            c = [r for r in mine if which(r) and r["direction"] == direction]
            return min(c, key=lambda r: r["time_ms"][STAT["name"]]) if c else None
        def cell(which):
            got = [pick(which, d) for d in ("forward", "inverse")]
            kept.extend(r for r in got if r)
            t = " / ".join(ms(r["time_ms"][STAT["name"]]) if r else "-" for r in got)
            p = [r.get("memory_passes") for r in got if r]
            return (t + (" (%s)" % " / ".join("%.2f" % v for v in p) if p and None not in p else ""), got)
        cufft, c = cell(lambda r: r.get("decomposition") == "single-device")
        dfft, d = cell(lambda r: "library" not in r and r.get("decomposition") != "single-device")
        peer_text, _ = cell(lambda r: "library" in r)
        ratio = " / ".join("%.2f" % (x["time_ms"][STAT["name"]] / y["time_ms"][STAT["name"]]) if x and y else "-"
                           for x, y in zip(d, c))
        rows.append(["%d^3 %s" % (n, prec), cufft, dfft, ratio, peer_text])
    header = ["size, precision", "cuFFT fwd / inv ms (passes)", "dfft fwd / inv ms (passes)", "dfft / cuFFT",
              "peer fwd / inv ms"]
    return table(header, rows), rows, kept


KINDS = {"list": kind_list,
         "fftw-auto": kind_fftw_auto,
         "passes": kind_passes,
         "library": kind_library,
         "automatic": kind_automatic,
         "defaults": kind_defaults,
         "reference": lambda s, r: kind_compare(s, r, single_device, "single-device", False),
         "peer": lambda s, r: kind_compare(dict(s, by=s.get("by", "size")), r, peer, "FFTW-MPI", True),
         "scaling": kind_scaling,
         "halo": kind_halo,
         "halo-gpu": kind_halo_gpu,
         "column-fft": kind_column_fft,
         "r2r": kind_r2r,
         "crossover": kind_crossover}


def render(kind, spec, records):
    if kind not in KINDS:
        raise SpecError("unknown table kind '%s'; allowed: %s" % (kind, ", ".join(sorted(KINDS))))
    spec = dict(spec)
    STAT["name"] = spec.pop("stat", "median")
    if STAT["name"] not in ("median", "min"):
        raise SpecError("stat=%s; allowed: median, min" % STAT["name"])
    filters = {k: v for k, v in spec.items() if k not in ("cols", "extra", "by", "library", "times", "directions", "all")}
    lines, rows, source = KINDS[kind](spec, records)
    if not rows:
        return ["", "No stored records match this table yet (%s)." % " ".join(
            "%s=%s" % kv for kv in sorted(filters.items())), ""]
    return [""] + lines + [""] + provenance(source)
