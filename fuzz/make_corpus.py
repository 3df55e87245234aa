#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus fuzz/corpus/<target>/ (run once; the files are committed). Seeds are
valid documents plus a few near-misses, so the fuzzer starts past the first checks."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(dict_text, major=1, minor=0, pad_to=64, data=b""):
    body = dict_text.encode()
    hlen_size = 2 if major == 1 else 4
    total = 6 + 2 + hlen_size + len(body) + 1
    body += b" " * ((-total) % pad_to) + b"\n"
    fmt = "<H" if major == 1 else "<I"
    return b"\x93NUMPY" + bytes([major, minor]) + struct.pack(fmt, len(body)) + body + data


for i, (descr, shape) in enumerate([("<f8", "(4, 3, 2)"), ("<f4", "(8,)"), ("<c16", "(2, 2)"),
                                    ("<c8", "()"), ("<i4", "(3, 5)"), (">f8", "(2, 3, 4, 5)"),
                                    ("|u1", "(0, 7)"), ("<f8", "(1, 1, 1)")]):
    put("npy", f"v1_{i}", npy("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape),
                               data=b"\0" * 16))
put("npy", "v2", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 2, 0))
put("npy", "v3", npy("{'descr': '<c16', 'fortran_order': True, 'shape': (3, 4), }", 3, 0))
put("npy", "no_space", npy("{'descr':'<f4','fortran_order':False,'shape':(6,5)}"))
put("npy", "reordered", npy("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}"))
put("npy", "big_shape", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807, 2), }"))
put("npy", "bad_magic", b"\x93NUMPZ\x01\x00\x10\x00{}              \n")
put("npy", "short", b"\x93NUMPY\x01\x00\xff\xff{'descr'")

put("cases", "minimal.json", '{"tests": [{"sizes": ["8^3"]}]}')
put("cases", "full.json", """{
  "name": "t", "description": "d", "comment": "ignored",
  "global": {"warmup": 1, "reps": 3, "precision": "double", "transform": ["r2c", "c2c"],
             "backend": "cpu", "staging": "host", "validate": true, "reference": false,
             "effort": "estimate", "ranks": [1, 2], "norm": "ortho", "max_message_bytes": 4096},
  "tests": [
    {"name": "slabs", "decomposition": ["slab-2d1d", "slab-1d2d"], "variant": "default",
     "method": ["a2a-sync", "p2p-type"], "grid": "auto", "sizes": [[17, 12, 10], "32^3", "16^2x32"]},
    {"decomposition": "pencil", "grid": ["2x1", 2], "method1": "a2a-sync", "method2": ["p2p-sync"],
     "sizes": {"from": "8^3", "to": [16, 16, 16]}, "ranks": 2, "reps": 5}
  ]
}""")
put("cases", "doubling.json", '{"tests": [{"sizes": {"from": [4, 4, 4], "to": "64^3"}, "variant": "realigned"}]}')
put("cases", "float_c2c.json", '{"global": {"precision": ["float"], "transform": "c2c"}, "tests": [{"sizes": [[8, 8]], "method": "onesided"}]}')
put("cases", "bad_key.json", '{"tests": [{"sizes": ["8^3"], "decompositon": "pencil"}]}')
put("cases", "bad_num.json", '{"tests": [{"sizes": ["8^3"], "reps": 18446744073709551615}]}')
put("cases", "deep.json", '{"tests": [{"sizes": [[[[[[8]]]]]]}]}')
for f in os.listdir(os.path.join(here, "..", "benchmarks", "cases")):
    with open(os.path.join(here, "..", "benchmarks", "cases", f), "rb") as src:
        put("cases", "bench_" + f, src.read())

key = ('{"shape": [64, 64, 64], "ranks": 4, "grid": [], "precision": "double", "transform": "r2c", '
       '"backend": "cpu", "device": "cpu: test", "effort": "estimate", "codec": "none", "batch": 1, '
       '"in_place": false, "r2r": []}')
choice = ('{"decomposition": "pencil", "variant": "realigned", "grid": [2, 2], '
          '"methods": ["a2a-sync", "p2p-type"], "chunks": 4}')
entry = '{"key": %s, "choice": %s, "seconds": 0.0123, "timestamp": "2024-01-01T00:00:00Z"}' % (key, choice)
put("wisdom", "valid.json", '{"dfft_wisdom": 1, "entries": [%s], "calibrations": []}' % entry)
put("wisdom", "two.json", '{"dfft_wisdom": 1, "entries": [%s, %s]}' % (entry, entry.replace("pencil", "slab-2d1d")))
put("wisdom", "empty.json", '{"dfft_wisdom": 1}')
put("wisdom", "bad_version.json", '{"dfft_wisdom": 2, "entries": []}')
put("wisdom", "bad_entry.json", '{"dfft_wisdom": 1, "entries": [{"key": 1}, "x", null]}')
put("wisdom", "calib.json", '{"dfft_wisdom": 1, "calibrations": [{"ranks": 2, "pack_rate": 1e9}]}')
