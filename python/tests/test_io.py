# SPDX-License-Identifier: MIT
"""dfft.io against numpy: files written by dfft from every rank's block load in numpy.load as
the global array, numpy.save files (C and Fortran order) read back into plan and box layouts,
and refusals reach every rank."""

import os
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import dfft
import dfft.io

COMM = MPI.COMM_WORLD
SHAPE = (17, 12, 10)


@pytest.fixture(scope="module")
def work():
    d = tempfile.mkdtemp(prefix="dfft-io-") if COMM.rank == 0 else None
    return COMM.bcast(d)


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def shared(make):
    """An array made on rank 0 and sent to all ranks."""
    return COMM.bcast(make() if COMM.rank == 0 else None)


def global_arrays():
    rng = np.random.default_rng(7)
    real = rng.standard_normal(SHAPE)
    spec = rng.standard_normal((17, 12, 6)) + 1j * rng.standard_normal((17, 12, 6))
    return real, spec


@pytest.mark.parametrize("decomposition,variant", [("slab-2d1d", "default"), ("pencil", "realigned"),
                                                   ("slab-1d2d", "realigned")])
def test_plan_sides_write_what_numpy_loads(work, decomposition, variant):
    real, spec = shared(global_arrays)
    plan = dfft.Plan(COMM, SHAPE, decomposition=decomposition, variant=variant, effort="estimate",
                     fftw_wisdom=False)
    a, b = (os.path.join(work, f"{decomposition}_{variant}_{s}.npy") for s in ("in", "out"))
    dfft.io.write_npy(plan, a, plan.local_input(real))
    dfft.io.write_npy(plan, b, plan.local_output(spec), side="output")
    COMM.Barrier()
    ok = True
    if COMM.rank == 0:
        ok = np.array_equal(np.load(a), real) and np.array_equal(np.load(b), spec)
        ok = ok and np.load(b).dtype == np.complex128 and not os.path.exists(b + ".dfft-tmp")
    assert all_ranks(COMM.bcast(ok))
    # Read back by the plan, into new arrays and into out=.
    assert all_ranks(np.array_equal(dfft.io.read_npy(plan, a), plan.local_input(real)))
    out = np.empty(plan.output_shape, plan.output_dtype)
    got = dfft.io.read_npy(plan, b, side="output", out=out)
    assert got is out and all_ranks(np.array_equal(out, plan.local_output(spec)))


def test_plan_with_halo_writes_and_reads_the_interior(work):
    """A plan with input_halo: the files hold the boxes only, and reading leaves the halo alone."""
    real, _ = shared(global_arrays)
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", input_halo=([1, 2, 0], [0, 1, 2]),
                     effort="estimate", fftw_wisdom=False)
    u = np.full(plan.input_shape, -7.5)
    u[plan.input_interior] = plan.local_input(real)
    a = os.path.join(work, "halo_in.npy")
    dfft.io.write_npy(plan, a, u)
    COMM.Barrier()
    ok = True
    if COMM.rank == 0:
        ok = np.array_equal(np.load(a), real)
    assert all_ranks(COMM.bcast(ok))
    v = np.full(plan.input_shape, -7.5)
    dfft.io.read_npy(plan, a, out=v)
    assert all_ranks(np.array_equal(v, u))


def test_numpy_files_read_into_boxes(work):
    real, spec = shared(global_arrays)
    c_file, f_file = os.path.join(work, "np_c.npy"), os.path.join(work, "np_f.npy")
    if COMM.rank == 0:
        np.save(c_file, spec.astype(np.complex64))
        np.save(f_file, np.asfortranarray(real.astype(np.float32)))
    COMM.Barrier()
    h = dfft.io.read_npy_header(COMM, f_file)
    assert h.shape == SHAPE and h.dtype == np.float32 and h.fortran_order
    # Slabs of axis 1, stored transposed (axes 2, 0, 1); rank 0 holds nothing when there are several.
    n, parts = COMM.size, max(1, COMM.size - 1)
    part = max(0, COMM.rank - 1)
    for path, ref in ((c_file, spec.astype(np.complex64)), (f_file, real.astype(np.float32))):
        lo = [0, ref.shape[1] * part // parts, 0]
        hi = [ref.shape[0], ref.shape[1] * (part + 1) // parts, ref.shape[2]]
        if n > 1 and COMM.rank == 0:
            hi = list(lo)
        got = dfft.io.read_npy(COMM, path, box=(lo, hi), order=(2, 0, 1))
        want = np.transpose(ref[tuple(slice(l, h) for l, h in zip(lo, hi))], (2, 0, 1))
        assert all_ranks(got.dtype == ref.dtype and np.array_equal(got, want))


def test_box_write_with_empty_box(work):
    real, _ = shared(global_arrays)
    path = os.path.join(work, "boxes.npy")
    n = COMM.size
    lo = [SHAPE[0] * COMM.rank // n, 0, 0]
    hi = [SHAPE[0] * (COMM.rank + 1) // n, SHAPE[1], SHAPE[2]]
    if n > 1:  # the last rank gives its rows to the one before and holds nothing
        if COMM.rank == n - 2:
            hi[0] = SHAPE[0]
        if COMM.rank == n - 1:
            lo[0] = hi[0] = SHAPE[0]
    block = np.ascontiguousarray(real[lo[0]:hi[0]].transpose(1, 0, 2).astype(np.float32))
    dfft.io.write_npy(COMM, path, block, shape=SHAPE, box=(lo, hi), order=(1, 0, 2))
    COMM.Barrier()
    ok = COMM.rank != 0 or np.array_equal(np.load(path), real.astype(np.float32))
    assert all_ranks(COMM.bcast(ok))


def test_refusals_on_every_rank(work):
    real, spec = shared(global_arrays)
    plan = dfft.Plan(COMM, SHAPE, effort="estimate", fftw_wisdom=False)
    path = os.path.join(work, "refusals.npy")
    dfft.io.write_npy(plan, path, plan.local_input(real))
    with pytest.raises(dfft.InvalidArgument, match=r"expected complex128 of shape \(17, 12, 6\)"):
        dfft.io.read_npy(plan, path, side="output")
    with pytest.raises(dfft.MpiError, match="MPI_File_open"):
        dfft.io.read_npy(plan, os.path.join(work, "absent.npy"))
    # A wrong local array on the last rank only is refused on every rank.
    local = plan.local_input(real)
    if COMM.rank == COMM.size - 1:
        local = np.zeros((1, 2, 3))
    with pytest.raises(ValueError, match=f"rank {COMM.size - 1}"):
        dfft.io.write_npy(plan, path, local)
    with pytest.raises(TypeError):
        dfft.io.write_npy(plan, path, plan.local_input(real).astype(np.float32))
    with pytest.raises(ValueError, match="side"):
        dfft.io.read_npy(plan, path, side="spectral")


def test_failed_write_raises_and_keeps_the_old_file(work):
    """A write that fails part way (a file-size limit stands in for a full disk: no privileges
    needed) raises dfft.Error on every rank and leaves the earlier file and no temporary one."""
    import resource
    import signal

    real, _ = shared(global_arrays)
    plan = dfft.Plan(COMM, SHAPE, effort="estimate", fftw_wisdom=False)
    path = os.path.join(work, "full.npy")
    if COMM.rank == 0:
        np.save(path, np.arange(3.0))
    before = COMM.bcast(open(path, "rb").read() if COMM.rank == 0 else None)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from the write instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, hard))  # the array takes 16 KiB
    try:
        with pytest.raises(dfft.Error, match="full.npy"):
            dfft.io.write_npy(plan, path, plan.local_input(real))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    COMM.Barrier()
    ok = COMM.rank != 0 or (open(path, "rb").read() == before and not os.path.exists(path + ".dfft-tmp"))
    assert all_ranks(COMM.bcast(ok))
    dfft.io.write_npy(plan, path, plan.local_input(real))  # the same write now succeeds
    ok = COMM.rank != 0 or np.array_equal(np.load(path), real)
    assert all_ranks(COMM.bcast(ok))


def test_links_and_devices_refused(work):
    """An output path that is a symbolic link, a FIFO or a directory is refused; the link is not
    followed."""
    real, _ = shared(global_arrays)
    plan = dfft.Plan(COMM, SHAPE, effort="estimate", fftw_wisdom=False)
    target, link, fifo = (os.path.join(work, n) for n in ("target.npy", "link.npy", "fifo.npy"))
    if COMM.rank == 0:
        np.save(target, np.arange(3.0))
        os.symlink(target, link)
        os.mkfifo(fifo)
    COMM.Barrier()
    for path, says in ((link, "symbolic link"), (fifo, "not a regular file"), (work, "directory")):
        with pytest.raises(dfft.InvalidArgument, match=says):
            dfft.io.write_npy(plan, path, plan.local_input(real))
    ok = COMM.rank != 0 or (os.path.islink(link) and np.array_equal(np.load(target), np.arange(3.0)))
    assert all_ranks(COMM.bcast(ok))


def test_full_tmpfs_raises_and_keeps_the_old_file(work):
    """A really full file system: an 8 KiB tmpfs for a 16 KiB array. MPI-IO may report such a
    write as a success having written part of it; write_npy must raise all the same. Needs the
    right to mount; skipped with the reason without it."""
    import subprocess

    mnt = os.path.join(work, "tmpfs")
    why = ""
    if COMM.rank == 0:
        os.makedirs(mnt, exist_ok=True)
        try:
            m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", mnt], capture_output=True, text=True)
            why = "" if m.returncode == 0 else (m.stderr.strip() or f"mount exit {m.returncode}")
        except OSError as e:
            why = str(e)
    why = COMM.bcast(why)
    if why:
        pytest.skip(f"cannot mount a tmpfs: {why}")
    try:
        real, _ = shared(global_arrays)
        plan = dfft.Plan(COMM, SHAPE, effort="estimate", fftw_wisdom=False)
        path = os.path.join(mnt, "x.npy")
        if COMM.rank == 0:
            np.save(path, np.arange(3.0))
        COMM.Barrier()
        with pytest.raises(dfft.Error, match="x.npy"):
            dfft.io.write_npy(plan, path, plan.local_input(real))
        ok = COMM.rank != 0 or (np.array_equal(np.load(path), np.arange(3.0)) and not os.path.exists(path + ".dfft-tmp"))
        assert all_ranks(COMM.bcast(ok))
    finally:
        COMM.Barrier()
        if COMM.rank == 0:
            subprocess.run(["umount", mnt])
