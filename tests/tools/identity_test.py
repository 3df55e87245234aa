#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A configuration's identity in the results tables (tools/results_tables.py) is made from the
option table (tools/option_fields.json): records that differ in one plan option only are two
configurations, records that leave an option out equal records that give its default, and the
options left out of the identity are options of the table.

    identity_test.py TOOLS_DIR
"""
import copy
import os
import sys

sys.path.insert(0, os.path.abspath(sys.argv[1]))
import records  # noqa: E402
import results_tables  # noqa: E402

FAILED = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        FAILED.append(what)


def base(direction):
    return {"decomposition": "slab-2d1d", "variant": "default", "methods": ["a2a-sync"], "grid": [2],
            "precision": "double", "transform": "r2c", "size": [16, 16, 16], "ranks": 2, "threads": 1,
            "backend": "cpu", "effort": "measure", "codec": "none", "overlap": 1, "chunks": 4,
            "in_flight": 2, "adapt": False, "direction": direction,
            "time_ms": {"min": 1.0, "median": 1.0, "max": 1.0}, "run": {"machine": "m", "date": "2025-01-01"}}


def other(name, rec):
    """A value of option `name` other than its default and than `rec`'s, as a record holds it."""
    f = records.OPTIONS[name]
    default = records.option_value(f, f["default"])
    have = (f["default"], "auto", rec.get(name))
    t = f["type"]
    item = t[len("list of "):] if t.startswith("list of ") else t
    if item == "enum":
        value = next(a for a in f["allowed"] if a not in have)
    elif item in ("int", "int64", "pointer"):
        value = 7
    elif item == "number":
        value = 1.5
    elif item == "bool":
        value = not default
    else:
        value = "1,1,1/1,1,1" if item == "halo" else "/tmp/x"
    return [value, value] if t.startswith("list of ") else value


def main():
    names = [f["name"] for f in records.OPTION_FIELDS]
    check(set(results_tables.HOW_FOUND) <= set(names), "the options left out of the identity are in the table")
    for name in names:
        if name in results_tables.HOW_FOUND:
            continue
        pairs = []
        for changed in (False, True):
            for d in ("forward", "inverse"):
                rec = base(d)
                if changed:
                    rec[name] = other(name, rec)
                pairs.append(rec)
        check(len(results_tables.configurations(pairs)) == 2, "another %s is another configuration" % name)
    # The writer leaves options at their defaults out: such a record is the one that gives them.
    full = [base("forward"), base("inverse")]
    for rec in full:
        for f in records.OPTION_FIELDS:
            rec.setdefault(f["name"], records.option_value(f, f["default"]))
    check(len(results_tables.configurations([base("forward"), base("inverse")] + copy.deepcopy(full))) == 1,
          "an option left out is its default")
    for name in ("chunks", "in_flight", "batch", "axes", "padding", "adapt", "tolerance"):
        check(name in results_tables.IDENTITY, "%s is part of a configuration" % name)
    # Every field the table marks as configuration is in the identity, and every other one says
    # how the plan was found.
    for f in records.OPTION_FIELDS:
        if f["configuration"]:
            check(f["name"] in results_tables.IDENTITY, "%s (configuration) is in the identity" % f["name"])
        else:
            check(f["name"] in results_tables.HOW_FOUND and f["name"] not in results_tables.IDENTITY,
                  "%s (not configuration) is left out of the identity" % f["name"])
    # A peer library's record has every option that every record has (the table's record
    # column), at the table's peer value, and is read back as the writer's options are.
    peer = records.peer_record("fftw-mpi", "forward", (8, 8, 8), 2, [1.0, 2.0])
    for f in records.OPTION_FIELDS:
        if f["record"] == "every":
            check(f["name"] in peer, "a peer record has %s" % f["name"])
            want = None if f["peer"] == "null" else records.option_value(f, f["peer"] or f["default"])
            check(peer.get(f["name"]) == want, "a peer record's %s is the table's peer value" % f["name"])
    for key, want in (("decomposition", "-"), ("variant", "-"), ("methods", []), ("grid", []), ("threads", 1),
                      ("transform", "r2c"), ("backend", "cpu"), ("effort", None), ("norm", None),
                      ("staging", None)):
        check(peer.get(key, "absent") == want, "a peer record's %s is %r" % (key, want))
    # A record of an older format holds an option under its former key (the table's former_key
    # column): it is read in the current name, and left out where it held the default.
    formers = [f for f in records.OPTION_FIELDS if f["former_key"]]
    check(any(f["name"] == "transposed_out" and f["former_key"] == "transposed" for f in formers),
          "transposed_out was transposed")
    for f in formers:
        value = other(f["name"], {})
        old = records.normalise(dict(base("forward"), **{f["former_key"]: value}))
        check(old.get(f["name"]) == value and f["former_key"] not in old,
              "a record's %s is read as %s" % (f["former_key"], f["name"]))
        kept = records.normalise(dict(base("forward"), **{f["former_key"]: records.option_value(f, f["default"])}))
        check(f["name"] not in kept and f["former_key"] not in kept,
              "a record's %s at the default is left out" % f["former_key"])
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
