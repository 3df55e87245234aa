# SPDX-License-Identifier: MIT
"""dfft.Halo against numpy.pad: mode="wrap" along periodic axes, the caller's fill (untouched)
beyond the ends of non-periodic axes and, without corners, in the edges and corners."""

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
SHAPE = (17, 12, 10)
FAST = dict(effort="estimate", fftw_wisdom=False)
FILL = -7.5


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def reference(g, lo, hi, wlo, whi, periodic, corners):
    """This rank's halo'd block (natural axis order) from the global array g, by numpy.pad."""
    d = g.ndim
    wrap = [(wlo[a], whi[a]) if periodic[a] else (0, 0) for a in range(d)]
    fill = [(0, 0) if periodic[a] else (wlo[a], whi[a]) for a in range(d)]
    padded = np.pad(np.pad(g, wrap, mode="wrap"), fill, mode="constant", constant_values=FILL)
    block = padded[tuple(slice(lo[a], hi[a] + wlo[a] + whi[a]) for a in range(d))].copy()
    if not corners:
        idx = np.indices(block.shape)
        outside = sum(((idx[a] < wlo[a]) | (idx[a] >= wlo[a] + hi[a] - lo[a])).astype(int) for a in range(d))
        block[outside > 1] = FILL
    return block


def check(halo, g, lo, hi, wlo, whi, periodic, corners):
    """Interior from g, halo filled with FILL, exchange, compare with numpy.pad."""
    empty = any(h <= l for l, h in zip(lo, hi))
    u = np.full(halo.shape, FILL, halo.dtype)
    order = halo.order
    if not empty:
        u[halo.interior] = g[tuple(slice(l, h) for l, h in zip(lo, hi))].transpose(order)
    halo.exchange(u)
    if empty:
        assert u.size == 0
        return True
    want = reference(g, lo, hi, wlo, whi, periodic, corners).transpose(order)
    return np.array_equal(u, want.astype(halo.dtype))


def cases(d):
    out = []
    for corners in (False, True):
        out.append(([1] * d, None, [True] * d, corners))
        out.append(([2] * d, None, [False] * d, corners))
        out.append(([1 + a % 2 for a in range(d)], [2 - a % 2 for a in range(d)],
                    [a % 2 == 0 for a in range(d)], corners))
    return out


def global_array(shape, dtype, seed=1):
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        g = g + 1j * rng.standard_normal(shape)
    return g.astype(dtype)


@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
@pytest.mark.parametrize("side", ["input", "output"])
def test_plan_blocks_match_numpy_pad(decomposition, side):
    plan = dfft.Plan(COMM, SHAPE, decomposition=decomposition, **FAST)
    s = plan._in if side == "input" else plan._out
    gshape = SHAPE if side == "input" else plan.spectral_shape
    g = global_array(gshape, s.dtype)
    for wlo, whi, periodic, corners in cases(3):
        halo = plan.halo(wlo, whi, periodic, corners, side=side)
        assert halo.global_shape == tuple(gshape)
        ok = check(halo, g, s.lo, s.hi, wlo, whi or wlo, periodic, corners)
        assert all_ranks(ok), (wlo, whi, periodic, corners)


@pytest.mark.parametrize("method", ["p2p-type", "p2p-sync"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_user_boxes_other_memory_order(dtype, method):
    # Axis 1 cut in COMM.size blocks (one of 12 cells each at most 4 ranks apart), memory order
    # (2, 0, 1); with 3 or more ranks the last box is empty.
    parts = max(1, COMM.size - 1) if COMM.size >= 3 else COMM.size
    r = COMM.rank
    lo, hi = [0, 0, 0], [17, 0, 10]
    if r < parts:
        lo[1], hi[1] = 12 * r // parts, 12 * (r + 1) // parts
    else:
        lo, hi = [0, 0, 0], [0, 0, 0]
    g = global_array(SHAPE, dtype, seed=2)
    for wlo, whi, periodic, corners in cases(3):
        halo = dfft.Halo(COMM, (lo, hi, (2, 0, 1)), wlo, whi, periodic, corners, dtype=dtype,
                         method=method)
        assert all_ranks(check(halo, g, lo, hi, wlo, whi or wlo, periodic, corners))


def test_wider_than_blocks_and_array():
    shape = (13, 5)
    r, p = COMM.rank, COMM.size
    lo, hi = [13 * r // p, 0], [13 * (r + 1) // p, 5]
    g = global_array(shape, np.float64, seed=3)
    for periodic in ([True, True], [False, True]):
        for corners in (False, True):
            halo = dfft.Halo(COMM, (lo, hi), [7, 11], [9, 6], periodic, corners)
            assert all_ranks(check(halo, g, lo, hi, [7, 11], [9, 6], periodic, corners))


def test_refusals_on_every_rank():
    plan = dfft.Plan(COMM, SHAPE, **FAST)
    halo = plan.halo(1)
    assert halo.staging == "host" and halo.backend == "cpu"
    last = COMM.size - 1
    # A too small array on the last rank only: every rank raises, nothing is written.
    u = np.ones(halo.shape, halo.dtype)
    a = u.reshape(-1)[:-1] if COMM.rank == last else u
    with pytest.raises(dfft.InvalidArgument) as e:
        halo.exchange(a)
    if COMM.rank == last:
        assert "elements but its box with the halo needs" in str(e.value)
    assert (u == 1).all()
    # A wrong dtype on one rank.
    b = u.astype(np.float32) if COMM.rank == last else u
    with pytest.raises(dfft.InvalidArgument) as e:
        halo.exchange(b)
    if COMM.rank == last:
        assert "dtype" in str(e.value)
    with pytest.raises(dfft.InvalidArgument, match="widths must be >= 0"):
        plan.halo([1, -1, 1])
    with pytest.raises(ValueError, match="one entry per axis"):
        plan.halo([1, 1])
    with pytest.raises(dfft.InvalidArgument, match="p2p-type, p2p-sync or nccl"):
        plan.halo(1, method="a2a-sync")
    # pytest.raises keeps the plan alive in its traceback, so the garbage collector would drop
    # it at a different moment on each rank: freed here, together.
    plan.close()


@pytest.mark.parametrize("transform", ["r2c", "c2c"])
def test_plan_transforms_the_halo_array_in_place(transform):
    """A plan with input_halo/output_halo reads the interior of an array plan.halo exchanges and
    writes the interior of its output: np.fft's spectrum of the global array, and besides the
    dense plan's results (a halo moves the values, it must not change them), every halo cell left
    as it was."""
    w_in, w_out = ([1, 2, 0], [0, 1, 2]), ([2, 0, 1], [1, 1, 0])
    dense = dfft.Plan(COMM, SHAPE, decomposition="pencil", transform=transform, **FAST)
    plan = dfft.Plan(COMM, SHAPE, decomposition="pencil", transform=transform, input_halo=w_in,
                     output_halo=w_out, **FAST)
    assert plan.options["input_halo"] == w_in and plan.options["output_halo"] == w_out
    halo = plan.halo(w_in[0], w_in[1])
    assert halo.shape == plan.input_shape
    rng = np.random.default_rng(5)  # the same global array on every rank
    g = rng.standard_normal(SHAPE)
    if transform == "c2c":
        g = g + 1j * rng.standard_normal(SHAPE)
    x = dense.local_input(g)
    u = np.full(plan.input_shape, FILL, plan.input_dtype)
    u[plan.input_interior] = x
    halo.exchange(u)
    before = u.copy()
    y = dense.forward(x)
    uk = np.full(plan.output_shape, FILL, plan.output_dtype)
    plan.forward(u, out=uk)
    want = dense.local_output(np.fft.rfftn(g) if transform == "r2c" else np.fft.fftn(g))
    scale = np.abs(want).max(initial=1)
    assert all_ranks(np.allclose(uk[plan.output_interior], want, rtol=0, atol=1e-12 * scale))
    assert all_ranks(np.allclose(uk[plan.output_interior], y, rtol=1e-12, atol=1e-12 * np.abs(y).max(initial=1)))
    assert all_ranks(np.array_equal(u, before))
    outside = np.ones(plan.output_shape, bool)
    outside[plan.output_interior] = False
    assert all_ranks(np.all(uk[outside] == FILL))
    v = np.full(plan.input_shape, FILL, plan.input_dtype)
    plan.inverse(uk, out=v)
    assert all_ranks(np.allclose(v[plan.input_interior], x, atol=1e-12))
    outside = np.ones(plan.input_shape, bool)
    outside[plan.input_interior] = False
    assert all_ranks(np.all(v[outside] == FILL))
