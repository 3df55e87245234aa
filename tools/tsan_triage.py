#!/usr/bin/env python3
"""Classifies ThreadSanitizer reports (tools/tsan.sh, docs/hardening.md).

For every access or lock stack of a report, the first frame outside the TSan runtime says who
made the access; TSan keeps no frames for uninstrumented code except that one caller, so an
Open MPI module there means Open MPI made the access. Classes:
  mpi-internal   every access is Open MPI's (or FFTW's) and the memory is not dfft's heap;
  mpi-progress   Open MPI (its datatype engine opal_convertor_*, or the shared-memory BTL) copies a
                 message into or out of a dfft buffer in one thread and dfft code uses the buffer
                 in another: a thread progressing MPI completes another thread's request, and
                 the hand-over (request completion, then MPI_Wait returning) happens in Open
                 MPI's atomics, which TSan cannot see. TSan cannot tell this from dfft touching a
                 buffer during a transfer; the thread test's result check (equal to one thread
                 alone) is what covers that;
  dfft           anything else: a finding. Exit status 1 when there is one.
Usage: tsan_triage.py LOGFILE...
"""
import collections
import re
import sys

FRAME = re.compile(r'^\s+#\d+ (\S+).*\((\S+?)\+0x[0-9a-f]+\)\s*$')
ACCESS = re.compile(r'^\s*(Previous )?(Atomic )?(read|write|Read|Write) |acquired here|'
                    r'previously acquired')
MPI_MODULES = ('libmpi.', 'libopen-pal.', 'libopen-rte.', 'mca_', 'libpmix', 'libfftw3',
               'libevent', 'libhwloc', 'libucs', 'libucp', 'libuct')


def parse(block):
    """(kind, [(function, module) of each access stack's first frame], allocating module)."""
    kind = re.search(r'WARNING: ThreadSanitizer: ([^(]+)', block).group(1).strip()
    tops, alloc, mode, first = [], '', None, False
    for line in block.splitlines():
        m = FRAME.match(line)
        if not m:
            if line.strip():
                mode = 'access' if ACCESS.search(line) else ('alloc' if 'allocated by' in line else None)
                first = True
            continue
        fn, mod = m.group(1), m.group(2)
        if mod.startswith('libtsan') or not first:
            continue
        first = False
        if mode == 'access':
            tops.append((fn, mod))
        elif mode == 'alloc':
            alloc = mod
    return kind, tops, alloc


def classify(block):
    kind, tops, alloc = parse(block)
    mpi = [mod.startswith(MPI_MODULES) for _, mod in tops]
    alloc_mpi = alloc == '' or alloc.startswith(MPI_MODULES)
    if tops and all(mpi) and alloc_mpi:
        return 'mpi-internal', kind
    if kind == 'data race' and any(mpi) and not alloc_mpi:
        return 'mpi-progress', kind
    return 'dfft', kind


def main(paths):
    counts = collections.Counter()
    findings = []
    for path in paths:
        for block in open(path, errors='replace').read().split('==================\n'):
            if 'WARNING: ThreadSanitizer' not in block:
                continue
            cls, kind = classify(block)
            counts[(cls, kind)] += 1
            if cls == 'dfft':
                findings.append(block)
    for (cls, kind), n in sorted(counts.items()):
        print(f'tsan-triage: {n:5d}  {cls:13s} {kind}')
    for block in findings[:5]:
        print(block)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
