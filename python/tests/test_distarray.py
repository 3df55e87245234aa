# SPDX-License-Identifier: MIT
"""dfft.DistArray against numpy: global indexing, redistribution, vector fields, files."""

import os

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
SHAPE = (17, 12, 10)
FAST = dict(effort="estimate", fftw_wisdom=False)


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def global_field(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def filled(arr, g):
    """arr with its box of the global array g (components first)."""
    arr.global_view()[...] = g[(Ellipsis,) + arr.global_slices]
    return arr


def shared_path(tmp_path, name):
    return COMM.bcast(str(tmp_path / name) if COMM.rank == 0 else None)


@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
@pytest.mark.parametrize("side", ["input", "output"])
def test_layout_of_plan_side(decomposition, side):
    plan = dfft.Plan(COMM, SHAPE, decomposition=decomposition, variant="realigned", **FAST)
    a = dfft.DistArray(plan, side)
    s = plan.input_slices if side == "input" else plan.output_slices
    assert a.global_slices == s
    assert a.local.shape == (plan.input_shape if side == "input" else plan.output_shape)
    assert a.dtype == (plan.input_dtype if side == "input" else plan.output_dtype)
    g = global_field(a.global_shape).astype(a.dtype)
    filled(a, g)
    want = plan.local_input(g) if side == "input" else plan.local_output(g)
    assert all_ranks(np.array_equal(a.local, want))


def test_global_indexing_owned_part():
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", **FAST)
    g = global_field(SHAPE)
    a = filled(dfft.DistArray(plan), g)
    (lo0, lo1, _), (hi0, hi1, _) = plan.input_box
    ok = True
    for key in [(slice(3, 14, 2), slice(None), 4), (Ellipsis, slice(1, 9)),
                (slice(None), slice(-5, None, 3), slice(2, 3))]:
        got = a[key]
        want = g[key]
        # the owned part: the requested global indices that fall in this rank's box
        own = [np.arange(*k.indices(n)) if isinstance(k, slice) else None
               for k, n in zip(_expand(key), SHAPE)]
        ix = [r[(r >= l) & (r < h)] for r, l, h in zip(own, (lo0, lo1), (hi0, hi1))]
        sub = want[np.ix_(*[np.searchsorted(np.arange(*k.indices(n)), i)
                            for k, n, i in zip(_expand(key)[:2], SHAPE, ix)])]
        ok &= got.shape == sub.shape and np.array_equal(got, sub)
    assert all_ranks(ok)
    if lo0 < hi0:
        a[lo0, ...] = -1.0
        assert np.all(a[lo0] == -1.0)
    if hi0 - lo0 < SHAPE[0]:  # an index of axis 0 that another rank owns
        with pytest.raises(IndexError):
            a[hi0 if hi0 < SHAPE[0] else lo0 - 1]


def _expand(key):
    key = key if isinstance(key, tuple) else (key,)
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (3 - len(key) + 1) + key[i + 1:]
    return key


@pytest.mark.parametrize("dtype,method", [(np.float32, "a2a-sync"), (np.float64, "p2p-type"),
                                          (np.complex64, "a2a-type"), (np.complex128, "p2p-sync")])
def test_redistribute_between_plans_and_boxes(dtype, method):
    g = global_field(SHAPE, 1).astype(dtype)
    slab = dfft.Plan(COMM, SHAPE, **FAST)
    pencil = dfft.Plan(COMM, SHAPE, decomposition="pencil", variant="realigned", **FAST)
    a = filled(dfft.DistArray(slab, dtype=dtype), g)
    b = a.redistribute(pencil, "input", method=method)
    assert all_ranks(np.array_equal(b.global_view(), g[b.global_slices]))
    # everything to the last rank, in reversed memory order
    last = COMM.rank == COMM.size - 1
    box = ((0, 0, 0), SHAPE if last else (0, 0, 0), (2, 1, 0))
    c = b.redistribute(box)
    assert c.local.shape == ((10, 12, 17) if last else (0, 0, 0))
    assert all_ranks(np.array_equal(c.global_view(), g[c.global_slices]))
    back = c.redistribute(a.copy_empty())
    assert all_ranks(np.array_equal(back.local, a.local))


def test_vector_field_transforms_per_component():
    g = global_field((3,) + SHAPE, 2)
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", **FAST)
    u = filled(dfft.DistArray(plan, components=(3,)), g)
    assert u.local.shape == (3,) + plan.input_shape
    uk = u.forward(plan)
    want = np.fft.rfftn(g, axes=(1, 2, 3))
    err = float(np.max(np.abs(uk.global_view() - want[(slice(None),) + uk.global_slices]),
                       initial=0.0))
    assert COMM.allreduce(err, op=MPI.MAX) < 1e-12
    back = uk.inverse(plan)
    assert all_ranks(np.allclose(back.local, u.local, atol=1e-13))
    assert all_ranks(np.array_equal(u[1, ...], g[1][u.global_slices]))


def test_transform_of_a_foreign_layout_is_refused_everywhere():
    plan = dfft.Plan(COMM, SHAPE, **FAST)
    a = dfft.DistArray.from_box(COMM, SHAPE, (0, 0, 0), SHAPE if COMM.rank == 0 else (0, 0, 0))
    if COMM.size > 1:
        with pytest.raises(ValueError):
            a.forward(plan)


@pytest.mark.parametrize("components", [(), (3,)])
def test_hdf5_round_trip(tmp_path, components):
    pytest.importorskip("h5py")
    path = shared_path(tmp_path, "field.h5")
    g = global_field(components + SHAPE, 3)
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", **FAST)
    u = filled(dfft.DistArray(plan, components=components), g)
    u.write_hdf5(path, "u", mode="w")
    u.forward(plan).write_hdf5(path, "u_hat")
    # read back on another layout (the slab plan's output side and a single-rank box)
    v = dfft.DistArray(dfft.Plan(COMM, SHAPE, **FAST), components=components)
    v.read_hdf5(path, "u")
    assert all_ranks(np.array_equal(v.global_view(), g[(Ellipsis,) + v.global_slices]))
    if COMM.rank == 0:
        import h5py
        with h5py.File(path, "r") as f:
            assert np.array_equal(f["u"][...], g)
            assert f["u_hat"].shape == components + plan.spectral_shape
    COMM.Barrier()


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_npy_round_trip(tmp_path, dtype):
    path = shared_path(tmp_path, "field.npy")
    g = global_field((2,) + SHAPE, 4).astype(dtype)
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", **FAST)
    u = filled(dfft.DistArray(plan, components=(2,), dtype=dtype), g)
    u.write_npy(path)
    ok = COMM.rank != 0 or np.array_equal(np.load(path), g)
    assert all_ranks(ok)
    v = dfft.DistArray(dfft.Plan(COMM, SHAPE, **FAST), components=(2,), dtype=dtype).read_npy(path)
    assert all_ranks(np.array_equal(v.global_view(), g[(Ellipsis,) + v.global_slices]))
    with pytest.raises(ValueError):
        dfft.DistArray(plan, dtype=dtype).read_npy(path)  # no component axis: other shape
