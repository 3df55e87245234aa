#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
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
                 alone) is what covers that. The buffer is dfft's heap, or, when Open MPI's access
                 is a memcpy/memmove: a block being freed (TSan prints no location) or the stack
                 of the thread whose dfft code made the other access (a reduction into a local);
  mpi-stack-reuse  Open MPI locks a pthread mutex (through TSan's interceptor) that lies on the
                 stack of a thread whose own dfft code wrote the same bytes earlier: a blocking
                 MPI call puts its wait object on the caller's stack, in a slot a popped dfft
                 frame used before, and initialises it in uninstrumented code; the progressing
                 thread then locks it. dfft never hands MPI a mutex, so a dfft frame and an
                 Open MPI lock on one stack slot can only be this reuse. A dfft access to another
                 thread's stack, or an Open MPI access other than a lock, stays a finding;
  dfft           anything else: a finding. Exit status 1 when there is one.
Usage: tsan_triage.py LOGFILE...
       tsan_triage.py --check DIR   every report in DIR/CLASS.NAME.txt must classify as CLASS
                                    (tests/hardening/tsan_cases: recorded and altered reports)
"""
import os
import collections
import re
import sys

FRAME = re.compile(r'^\s+#\d+ (\S+).*\((\S+?)\+0x[0-9a-f]+\)\s*$')
ACCESS = re.compile(r'^\s*(Previous )?(Atomic )?(read|write|Read|Write) |acquired here|'
                    r'previously acquired')
MPI_MODULES = ('libmpi.', 'libopen-pal.', 'libopen-rte.', 'mca_', 'libpmix', 'libfftw3',
               'libevent', 'libhwloc', 'libucs', 'libucp', 'libuct')


BY_THREAD = re.compile(r' by (thread T\d+|main thread)')
STACK_OF = re.compile(r'Location is stack of (thread T\d+|main thread)')
LOCKS = ('pthread_mutex_', 'pthread_cond_', 'pthread_spin_')
COPIES = ('memcpy', 'memmove', '__tsan_memcpy', '__tsan_memmove')
LOCATION = re.compile(r'^\s*Location is ', re.M)


def parse(block):
    """(kind, accesses, allocating module, stack owner). accesses: one dict per access stack with
    its first frame outside TSan (fn, mod), the TSan interceptor it went through (tsan_fn, or
    '') and its thread; stack owner: the thread whose stack holds the memory, or ''."""
    kind = re.search(r'WARNING: ThreadSanitizer: ([^(]+)', block).group(1).strip()
    owner = STACK_OF.search(block)
    owner = owner.group(1) if owner else ''
    tops, alloc, mode, first, tsan_fn, thread = [], '', None, False, '', ''
    for line in block.splitlines():
        m = FRAME.match(line)
        if not m:
            if line.strip():
                mode = 'access' if ACCESS.search(line) else ('alloc' if 'allocated by' in line else None)
                by = BY_THREAD.search(line)
                thread = by.group(1) if by else ''
                first, tsan_fn = True, ''
            continue
        fn, mod = m.group(1), m.group(2)
        if not first:
            continue
        if mod.startswith('libtsan'):
            tsan_fn = tsan_fn or fn
            continue
        first = False
        if mode == 'access':
            tops.append({'fn': fn, 'mod': mod, 'tsan_fn': tsan_fn, 'thread': thread})
        elif mode == 'alloc':
            alloc = mod
    return kind, tops, alloc, owner


def mpi_and_dfft(kind, tops):
    """(Open MPI's access, dfft's access) of a data race between exactly one of each made by two
    different threads; None otherwise."""
    if kind != 'data race' or len(tops) != 2:
        return None
    mpi = [t for t in tops if t['mod'].startswith(MPI_MODULES)]
    ours = [t for t in tops if not t['mod'].startswith(MPI_MODULES)]
    if len(mpi) != 1 or len(ours) != 1 or mpi[0]['thread'] == ours[0]['thread']:
        return None
    return mpi[0], ours[0]


def stack_reuse(pair, owner):
    """Open MPI locking its on-stack wait object where the owner's popped dfft frame wrote."""
    return (pair is not None and bool(owner) and pair[0]['tsan_fn'].startswith(LOCKS)
            and pair[1]['thread'] == owner)


def mpi_copy_of_own_memory(pair, owner, block):
    """Open MPI's copy (memcpy/memmove interceptor) of a message into or out of memory that TSan
    cannot attribute to an allocation: a heap block being freed (no location printed) or the
    stack of the thread whose dfft code made the other access (a reduction or a blocking call on
    a local variable that another thread's progress completed)."""
    if pair is None or not pair[0]['tsan_fn'].startswith(COPIES):
        return False
    if LOCATION.search(block) is None:
        return True
    return bool(owner) and owner == pair[1]['thread']


def classify(block):
    kind, tops, alloc, owner = parse(block)
    mpi = [t['mod'].startswith(MPI_MODULES) for t in tops]
    alloc_mpi = alloc == '' or alloc.startswith(MPI_MODULES)
    if tops and all(mpi) and alloc_mpi:
        return 'mpi-internal', kind
    pair = mpi_and_dfft(kind, tops)
    if stack_reuse(pair, owner):
        return 'mpi-stack-reuse', kind
    if kind == 'data race' and any(mpi) and not alloc_mpi:
        return 'mpi-progress', kind
    if mpi_copy_of_own_memory(pair, owner, block):
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


def check(folder):
    bad = 0
    names = sorted(n for n in os.listdir(folder) if n.endswith('.txt'))
    for name in names:
        want = name.split('.')[0]
        blocks = [b for b in open(os.path.join(folder, name)).read().split('==================\n')
                  if 'WARNING: ThreadSanitizer' in b]
        got = [classify(b)[0] for b in blocks]
        ok = bool(got) and all(g == want for g in got)
        bad += not ok
        print(f'{"ok  " if ok else "FAIL"} {name}: {got}')
    print(f'tsan-triage --check: {len(names) - bad}/{len(names)} cases classified as named')
    return 1 if bad or not names else 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['--check']:
        sys.exit(check(sys.argv[2]))
    sys.exit(main(sys.argv[1:]))
