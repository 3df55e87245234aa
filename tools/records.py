# SPDX-License-Identifier: MIT
"""Bench records (docs/results-format.md) for the Python tools: the one reader of JSON-lines
result files, the one Python writer, and the statistics of a record's repetitions.

The C++ writer (apps/dfft/report.cpp, used by `dfft bench` and fftw-mpi-bench) computes the
statistics of apps/dfft/stats.cpp; the functions here are the same definitions, for records that
Python programs write (the Python peers of benchmarks/python), and a test compares the two on
real `dfft bench` output (tests/app/test_reported_numbers.py).
"""
import json
import math
import os
import socket
import time

# The plan options, one row per dfft::Options field (include/dfft/option_fields.hpp), as
# tools/option_fields.json holds them (tests/unit/option_fields_test.cpp writes that file from the
# table and fails when they differ).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "option_fields.json")) as _f:
    OPTION_FIELDS = json.load(_f)["fields"]
OPTIONS = {f["name"]: f for f in OPTION_FIELDS}

# Fields every record has (dfft's own and a peer library's), and those of dfft's plans only: the
# measurement's by name, the plan options' as the table's "record" column says.
COMMON = tuple(f["name"] for f in OPTION_FIELDS if f["record"] == "every") + (
    "precision", "size", "ranks", "direction", "time_ms", "noisy", "phases_ms", "gflops", "error",
    "roundtrip_error", "warmup", "reps", "timestamp", "host", "test")
PEER = ("library", "plan_ms")
PLAN = tuple(f["name"] for f in OPTION_FIELDS if f["record"] == "plan") + (
    "reference_error", "laplacian_error", "validation", "exchange_bytes", "memory_host_bytes",
    "memory_device_bytes", "intra_node_messages", "intra_node_bytes", "inter_node_messages",
    "inter_node_bytes")


def option_value(f, text):
    """An option's text as a record holds it (apps/dfft/option_json.cpp): numbers and booleans
    typed, lists as lists ('auto' and '' as empty ones)."""
    def item(t, s):
        if t in ("int", "int64", "pointer"):
            return int(s)
        if t == "number":
            return float(s)
        if t == "bool":
            return s == "true"
        return s
    t = f["type"]
    if not t.startswith("list of "):
        return item(t, text)
    if text == "" or (f["empty_is_auto"] and text == "auto"):
        return []
    return [item(t[len("list of "):], s) for s in text.split(f["separator"])]


def peer_value(f):
    """What a peer library's record holds for option row `f` where the peer does not set it (the
    table's "peer" column: empty, the default; "null", None; else that text)."""
    if f["peer"] == "null":
        return None
    return option_value(f, f["peer"] or f["default"])


def option(rec, name):
    """Plan option `name` of a record: its value, or the table's default where the record leaves
    it out (the writer leaves out options at their defaults)."""
    return rec[name] if name in rec else option_value(OPTIONS[name], OPTIONS[name]["default"])


NOISE_RATIO = 2.0  # apps/dfft/stats.hpp kNoiseRatio
LEVEL = 0.99


class RecordError(Exception):
    """A result file that cannot be read, or a line that is not a bench record."""


# ---- statistics (apps/dfft/stats.cpp) ----

def median(v):
    s = sorted(v)
    n = len(s)
    if n == 0:
        return 0.0
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def _binomial_half_cdf(n, k):
    return min(1.0, sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2.0 ** n)


def median_interval(v, level=LEVEL):
    """(lo, hi, coverage): the order-statistic interval of the median, as stats.cpp."""
    x = sorted(v)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    j, coverage = 1, 1 - 2 * _binomial_half_cdf(n, 0)
    while 2 * (j + 1) <= n + 1:
        nxt = 1 - 2 * _binomial_half_cdf(n, j)
        if nxt < level:
            break
        j, coverage = j + 1, nxt
    return (x[j - 1], x[n - j], coverage)


def spread(tmin, tmed, tmax):
    if not (tmin and tmin > 0 and tmed and tmed > 0):
        return math.nan
    return max(tmax / tmed, tmed / tmin)


def is_noisy(tmin, tmed, tmax):
    s = spread(tmin, tmed, tmax)
    return not math.isnan(s) and s > NOISE_RATIO


def time_fields(samples_ms):
    """time_ms, noisy and samples_ms of a record from its repetition times (ms)."""
    n = len(samples_ms)
    t = {"min": min(samples_ms), "median": median(samples_ms), "max": max(samples_ms), "n": n,
         "mean": sum(samples_ms) / n}
    t["stddev"] = (math.sqrt(sum((x - t["mean"]) ** 2 for x in samples_ms) / (n - 1)) if n > 1 else None)
    lo, hi, coverage = median_interval(samples_ms)
    t["median_ci99"] = [lo, hi] if coverage >= LEVEL else None
    return {"time_ms": t, "noisy": is_noisy(t["min"], t["median"], t["max"]),
            "samples_ms": list(samples_ms)}


# ---- reading ----

def normalise(rec):
    """Older files in the current field names: an option a record held under another key (the
    table's "former_key" column, e.g. fftw-mpi-bench's `transposed`) under its own, where it
    differs from the default (as records write it); `time_ms.ci99`, Student's t interval of the
    mean (it could go below zero), is dropped."""
    for f in OPTION_FIELDS:
        if f["former_key"] and f["former_key"] in rec:
            value = rec.pop(f["former_key"])
            if value != option_value(f, f["default"]):
                rec[f["name"]] = value
    t = rec.get("time_ms")
    if isinstance(t, dict):
        t.pop("ci99", None)
    return rec


def check(rec, where):
    if not isinstance(rec, dict):
        raise RecordError("%s: not a JSON object" % where)
    # halo-bench and gpu-halo-bench: one record per exchange, times per method;
    # column-fft-bench: one per length and precision, times per FFT engine.
    own = {"halo": ("halo-bench", ("size", "ranks", "time_us")),
           "halo-gpu": ("gpu-halo-bench", ("size", "ranks", "time_us")),
           "column-fft": ("column-fft-bench", ("size", "precision", "time_ms"))}
    if rec.get("test") in own:
        tool, keys = own[rec["test"]]
        for key in keys:
            if key not in rec:
                raise RecordError("%s: not a %s record (no '%s')" % (where, tool, key))
        return
    for key in ("direction", "size", "ranks", "time_ms"):
        if key not in rec:
            raise RecordError("%s: not a bench record (no '%s')" % (where, key))
    size = rec["size"]
    if not isinstance(size, list) or not size or not all(isinstance(v, int) and v >= 1 for v in size):
        raise RecordError("%s: 'size' must be a list of positive integers" % where)
    t = rec["time_ms"]
    if not isinstance(t, dict) or not isinstance(t.get("median"), (int, float)):
        raise RecordError("%s: no number time_ms.median" % where)
    if "library" not in rec and "decomposition" not in rec:
        raise RecordError("%s: not a bench record (neither 'library' nor 'decomposition')" % where)


def read(path):
    """The records of one JSON-lines file (blank lines skipped); RecordError names the file and
    line of anything that is not a record."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RecordError("cannot read %s: %s" % (path, e.strerror or e))
    out = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = "%s:%d" % (path, no)
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise RecordError("%s: not a JSON line (%s)" % (where, e))
        check(rec, where)
        out.append(normalise(rec))
    return out


def read_tree(results, root=None):
    """Every record of RESULTS/MACHINE/SUITE*.jsonl, with run.machine, run.suite, run.date and
    run.file (relative to root) filled in."""
    import glob
    records = []
    for path in sorted(glob.glob(os.path.join(results, "*", "*.jsonl"))):
        machine = os.path.basename(os.path.dirname(path))
        suite = os.path.basename(path).split(".")[0]
        for rec in read(path):
            run = rec.setdefault("run", {})
            run.setdefault("machine", machine)
            run.setdefault("suite", suite)
            run.setdefault("date", rec.get("timestamp", "?"))
            run["file"] = os.path.relpath(path, root) if root else path
            records.append(rec)
    return records


# ---- writing ----

def replace_file(path, text):
    """The one writer of tools/ (records, wisdom, pages), as dfft's own (dfft::io::OutputFile):
    `path`.dfft-tmp beside the target, written, flushed to the disk and closed, then renamed onto
    `path`. Any failure (a full disk) raises OSError with `path` left as it was."""
    tmp = path + ".dfft-tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise

def line(rec):
    """One record as a JSON line."""
    return json.dumps(rec, sort_keys=True) + "\n"


def write_records(path, recs):
    """Records as a JSON lines file, through replace_file."""
    replace_file(path, "".join(line(rec) for rec in recs))


def peer_record(library, direction, size, ranks, samples_ms, **fields):
    """A peer library's record with the common fields (those that do not apply are null or
    empty) and the statistics of its repetitions; `fields` adds or overrides."""
    rec = {"library": library, "direction": direction, "size": list(size), "ranks": ranks,
           "precision": "double",
           "phases_ms": {"fft": None, "pack": None, "comm": None, "unpack": None}, "gflops": None,
           "error": None, "roundtrip_error": None, "warmup": None, "reps": len(samples_ms),
           "plan_ms": None, "test": None,
           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": socket.gethostname()}
    rec.update({f["name"]: peer_value(f) for f in OPTION_FIELDS if f["record"] == "every"})
    rec.update(time_fields(samples_ms))
    rec.update(fields)
    return rec
