# SPDX-License-Identifier: MIT
"""Tests of the dfft Python binding against numpy.fft, run under mpirun (1 and 3 ranks in ctest).

Every rank builds the same global array (same seed), transforms its own block, and compares it
with the same block of numpy's serial result; errors are reduced over ranks so that every rank
asserts the same thing (a rank-local assert would leave the others waiting in a collective).
"""

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
DECOMPOSITIONS = ["slab-2d1d", "slab-1d2d", "pencil"]
TOL = {"double": 1e-11, "float": 2e-5}


def max_rel(got, want):
    """Largest |got - want| over the largest |want|, over all ranks."""
    num = float(np.max(np.abs(got - want))) if got.size else 0.0
    den = float(np.max(np.abs(want))) if want.size else 0.0
    num = COMM.allreduce(num, op=MPI.MAX)
    den = COMM.allreduce(den, op=MPI.MAX)
    return num / (den or 1.0)


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def global_array(shape, complex_values=False, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if complex_values:
        a = a + 1j * rng.standard_normal(shape)
    return a


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("variant", ["default", "realigned"])
@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_r2c_matches_numpy(decomposition, variant, precision):
    shape = (9, 7, 6)
    g = global_array(shape)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, variant=variant,
                     precision=precision)
    assert plan.spectral_shape == (9, 7, 4)
    u = plan.local_input(g)
    assert u.shape == plan.input_shape
    uk = plan.forward(u)
    assert uk.shape == plan.output_shape and uk.dtype == plan.output_dtype
    assert max_rel(uk, plan.local_output(np.fft.rfftn(g))) < TOL[precision]
    back = plan.inverse(uk)
    assert back.dtype == plan.input_dtype
    assert max_rel(back, u) < TOL[precision]


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_c2c_matches_numpy(decomposition, precision):
    shape = (5, 8, 7)
    g = global_array(shape, complex_values=True, seed=1)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform="c2c",
                     precision=precision, methods="p2p-type")
    uk = plan.forward(plan.local_input(g))
    assert max_rel(uk, plan.local_output(np.fft.fftn(g))) < TOL[precision]
    # The default norm ("backward") scales the inverse by 1/N.
    back = plan.inverse(uk)
    assert max_rel(back, plan.local_input(g)) < TOL[precision]


def test_2d_and_4d():
    for shape in [(11, 8), (4, 5, 3, 6)]:
        g = global_array(shape, seed=2)
        plan = dfft.Plan(COMM, shape, decomposition="pencil")
        uk = plan.forward(plan.local_input(g))
        assert max_rel(uk, plan.local_output(np.fft.rfftn(g))) < TOL["double"]


def test_out_argument_and_checks():
    shape = (6, 5, 4)
    plan = dfft.Plan(COMM, shape)
    u = plan.local_input(global_array(shape, seed=3))
    out = np.empty(plan.output_shape, plan.output_dtype)
    got = plan.forward(u, out=out)
    assert got is out
    assert max_rel(out, plan.forward(u)) == 0.0
    with pytest.raises(ValueError):
        plan.forward(u, out=np.empty(plan.output_shape, np.complex64))  # wrong dtype
    with pytest.raises(ValueError):
        plan.forward(u, out=np.empty((1,) + plan.output_shape[1:], plan.output_dtype))
    with pytest.raises(ValueError):
        plan.forward(np.zeros((2, 2, 2)))  # not this rank's block
    with pytest.raises(TypeError):
        plan.forward(u + 1j)  # r2c takes real input
    # Input of another real dtype or layout is converted; the input is never modified.
    u32 = np.asfortranarray(u.astype(np.float32))
    before = u32.copy()
    assert max_rel(plan.forward(u32), plan.forward(u.astype(np.float32).astype(np.float64))) == 0.0
    assert np.array_equal(u32, before)


@pytest.mark.parametrize("transform", ["r2c", "c2c"])
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
def test_user_workspace(decomposition, transform):
    """A plan without work buffers of its own: the same results from a workspace full of NaNs,
    less memory, and a missing or short workspace refused."""
    shape = (17, 12, 10)
    c2c = transform == "c2c"
    own = dfft.Plan(COMM, shape, decomposition=decomposition, transform=transform, effort="estimate")
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform=transform, effort="estimate",
                     user_workspace=True)
    size = plan.workspace_bytes
    assert size > 0 and size == own.workspace_bytes
    assert sum(own.memory) - sum(plan.memory) == size
    g = global_array(shape, complex_values=c2c, seed=5)
    u = plan.local_input(g)
    work = np.full(size // 8, np.nan)
    got = plan.forward(u, work=work)
    want = np.fft.fftn(g) if c2c else np.fft.rfftn(g)
    assert max_rel(got, plan.local_output(want)) < TOL["double"]
    assert max_rel(got, own.forward(u)) < TOL["double"]
    work[:] = np.nan
    assert max_rel(plan.inverse(got, work=work), u) < TOL["double"]
    with pytest.raises(dfft.InvalidArgument, match="workspace"):
        plan.forward(u)
    with pytest.raises(dfft.InvalidArgument, match="workspace"):
        plan.forward(u, work=np.empty(size // 8 - 1))


def test_batch_equals_single_transforms():
    shape = (7, 6, 5)
    plan = dfft.Plan(COMM, shape, decomposition="pencil")
    batch = np.stack([plan.local_input(global_array(shape, seed=s)) for s in range(4)])
    with pytest.raises(dfft.InvalidArgument, match="prepare_batch"):
        plan.forward(batch)
    plan.prepare_batch(4)
    got = plan.forward(batch)
    assert got.shape == (4,) + plan.output_shape
    want = np.stack([plan.forward(b) for b in batch])
    assert max_rel(got, want) < 1e-13
    back = plan.inverse(got)
    assert max_rel(back, batch) < TOL["double"]


def test_box_api_with_user_layouts():
    """Input split along the last axis in reversed memory order; output all on rank 0."""
    shape = (6, 5, 8)
    p, r = COMM.size, COMM.rank
    edges = np.linspace(0, shape[2], p + 1).astype(int)
    in_layout = ((0, 0, edges[r]), (6, 5, edges[r + 1]), (2, 1, 0))
    spec = (6, 5, 5)
    # Empty boxes elsewhere, with a non-zero extent on some axes.
    out_layout = ((0, 0, 0), spec if r == 0 else (6, 0, 5))
    g = global_array(shape, seed=4)
    plan = dfft.Plan(COMM, shape, input_layout=in_layout, output_layout=out_layout)
    assert plan.input_box == (in_layout[0], in_layout[1])
    assert plan.input_order == (2, 1, 0)
    u = plan.local_input(g)
    assert u.shape == (edges[r + 1] - edges[r], 5, 6)
    uk = plan.forward(u)
    assert uk.shape == (spec if r == 0 else (6, 0, 5))
    assert max_rel(uk, plan.local_output(np.fft.rfftn(g))) < TOL["double"]
    assert max_rel(plan.inverse(uk), u) < TOL["double"]


def dct2(x, axis):
    n = x.shape[axis]
    j = np.arange(n)
    m = 2 * np.cos(np.pi * np.outer(np.arange(n), j + 0.5) / n)
    return np.moveaxis(np.tensordot(m, np.moveaxis(x, axis, 0), axes=1), 0, axis)


def dst2(x, axis):
    n = x.shape[axis]
    j = np.arange(n)
    m = 2 * np.sin(np.pi * np.outer(np.arange(n) + 1, j + 0.5) / n)
    return np.moveaxis(np.tensordot(m, np.moveaxis(x, axis, 0), axes=1), 0, axis)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_norm_matches_numpy(decomposition, norm):
    shape = (7, 6, 5)
    g = global_array(shape, seed=7)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, norm=norm, effort="estimate")
    uk = plan.forward(plan.local_input(g))
    assert max_rel(uk, plan.local_output(np.fft.rfftn(g, norm=norm))) < TOL["double"]
    want = np.fft.rfftn(g)  # any spectrum: the inverse alone against numpy's
    back = plan.inverse(plan.local_output(want))
    assert max_rel(back, plan.local_input(np.fft.irfftn(want, shape, norm=norm))) < TOL["double"]
    c = global_array(shape, complex_values=True, seed=8)
    cplan = dfft.Plan(COMM, shape, decomposition=decomposition, transform="c2c", norm=norm,
                      effort="estimate")
    ck = cplan.forward(cplan.local_input(c))
    assert max_rel(ck, cplan.local_output(np.fft.fftn(c, norm=norm))) < TOL["double"]
    assert max_rel(cplan.inverse(cplan.local_output(c)),
                   cplan.local_input(np.fft.ifftn(c, norm=norm))) < TOL["double"]


R2R_CASES = [
    # (transform, kinds per axis): DCT/DST types 1-4 alone, with c2c axes, with an r2c last axis.
    ("r2r", ["dct1", "dst1", "dct4"]),
    ("r2r", ["dst3", ("dct", 3), ("dst", 4)]),
    ("r2r", ["dct2", "dst2", "dst2"]),
    ("c2c", [None, "dct1", "none"]),
    ("c2c", ["dst4", None, "dct3"]),
    ("r2c", [None, "dct1", None]),
    ("r2c", ["dst1", "dct2", None]),
]


def _scipy_kind(k):
    """('dct' or 'dst', type) of a kind as dfft.Plan takes it; None for a periodic axis."""
    if k is None or k == "none":
        return None
    return (k[0], int(k[1])) if isinstance(k, tuple) else (k[:3], int(k[3]))


def _by_parts(f, x, **kw):
    """f on the real and imaginary parts (scipy 1.10's dct/dst drop orthogonalize=False on
    complex input)."""
    if np.iscomplexobj(x):
        return f(x.real, **kw) + 1j * f(x.imag, **kw)
    return f(x, **kw)


def scipy_forward(x, transform, kinds, norm):
    """The forward transform by scipy.fft's dct/dst and numpy.fft, one axis at a time (dfft's
    ortho is scipy's orthogonalize=False form: a uniform 1/sqrt(N) per axis)."""
    sfft = pytest.importorskip("scipy.fft")
    for axis, k in enumerate(map(_scipy_kind, kinds)):
        if k is not None:
            f = sfft.dct if k[0] == "dct" else sfft.dst
            x = _by_parts(f, x, type=k[1], axis=axis, norm=norm, orthogonalize=False)
    periodic = [a for a, k in enumerate(kinds) if _scipy_kind(k) is None]
    if transform == "r2c":
        x = np.fft.rfft(x, axis=periodic[-1], norm=norm)
        periodic = periodic[:-1]
    return np.fft.fftn(x, axes=periodic, norm=norm) if periodic else x


def scipy_inverse(x, kinds, norm):
    """The inverse of a c2c or r2r plan: scipy.fft's idct/idst (the inverse kinds, scaled as
    norm says) and numpy.fft.ifftn."""
    sfft = pytest.importorskip("scipy.fft")
    for axis, k in enumerate(map(_scipy_kind, kinds)):
        if k is not None:
            f = sfft.idct if k[0] == "dct" else sfft.idst
            x = _by_parts(f, x, type=k[1], axis=axis, norm=norm, orthogonalize=False)
    periodic = [a for a, k in enumerate(kinds) if _scipy_kind(k) is None]
    return np.fft.ifftn(x, axes=periodic, norm=norm) if periodic else x


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("transform,kinds", R2R_CASES)
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
def test_r2r_kinds_match_scipy(decomposition, transform, kinds, norm):
    shape = (7, 5, 9)
    g = global_array(shape, complex_values=transform == "c2c", seed=9)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform=transform, r2r=kinds,
                     norm=norm, effort="estimate")
    want = scipy_forward(g, transform, kinds, norm)
    y = plan.forward(plan.local_input(g))
    assert max_rel(y, plan.local_output(want)) < TOL["double"]
    if transform == "r2c":  # a c2r needs a Hermitian half spectrum: that of real data
        assert max_rel(plan.inverse(plan.local_output(want)), plan.local_input(g)) < TOL["double"]
    else:
        h = global_array(shape, complex_values=transform == "c2c", seed=10)
        assert max_rel(plan.inverse(plan.local_output(h)),
                       plan.local_input(scipy_inverse(h, kinds, norm))) < TOL["double"]


def test_r2r_float_and_dctn():
    # Float plans, and scipy's n-dimensional dctn/dstn (same numbers as axis by axis).
    sfft = pytest.importorskip("scipy.fft")
    shape = (6, 9, 5)
    g = global_array(shape, seed=11)
    plan = dfft.Plan(COMM, shape, transform="r2r", r2r=["dst1", "dst1", "dst1"],
                     precision="float", norm="forward", effort="estimate")
    y = plan.forward(plan.local_input(g.astype(np.float32)))
    assert y.dtype == np.float32
    assert max_rel(y, plan.local_output(sfft.dstn(g, type=1, norm="forward"))) < TOL["float"]
    with pytest.raises(dfft.Error, match="dct1 needs at least 2"):
        dfft.Plan(COMM, (4, 1, 5), transform="c2c", r2r=[None, "dct1", None])
    with pytest.raises(ValueError, match="type 1..4"):
        dfft.Plan(COMM, shape, transform="r2r", r2r=[("dct", 5)] * 3)


@pytest.mark.parametrize("decomposition", DECOMPOSITIONS)
def test_r2r(decomposition):
    shape = (7, 5, 9)
    # Real data, DCT-II / DST-II / DCT-II.
    g = global_array(shape, seed=5)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform="r2r",
                     r2r=["dct2", "dst2", "dct2"])
    assert plan.input_dtype == np.float64 and plan.output_dtype == np.float64
    want = dct2(dst2(dct2(g, 0), 1), 2)
    y = plan.forward(plan.local_input(g))
    assert max_rel(y, plan.local_output(want)) < TOL["double"]
    assert max_rel(plan.inverse(y), plan.local_input(g)) < TOL["double"]
    # Complex data, periodic axes 0 and 2 mixed with a DCT on axis 1.
    c = global_array(shape, complex_values=True, seed=6)
    mixed = dfft.Plan(COMM, shape, decomposition=decomposition, transform="c2c",
                      r2r=[None, "dct2", "none"])
    want = np.fft.fftn(dct2(c, 1), axes=(0, 2))
    assert max_rel(mixed.forward(mixed.local_input(c)), mixed.local_output(want)) < TOL["double"]


def test_errors_are_clear():
    with pytest.raises(dfft.Error, match="allowed: slab-2d1d"):
        dfft.Plan(COMM, (8, 8, 8), decomposition="slab")
    with pytest.raises(dfft.Error, match="must be periodic"):
        dfft.Plan(COMM, (8, 8, 8), r2r=["dct2", "none", "dct2"])
    with pytest.raises(TypeError):
        dfft.Plan("not a communicator", (8, 8, 8))
    with pytest.raises(ValueError):
        dfft.Plan(COMM, (8, 8, 8), precision="half")
    assert issubclass(dfft.Error, RuntimeError)


def test_other_communicators():
    # A duplicate of the world, and (with several ranks) the halves of a split.
    shape = (6, 6, 5)
    g = global_array(shape, seed=7)
    dup = COMM.Dup()
    sub = COMM.Split(COMM.rank % 2, COMM.rank)
    try:
        for comm in (dup, sub):
            plan = dfft.Plan(comm, shape, decomposition="slab-1d2d")
            uk = plan.forward(plan.local_input(g))
            assert max_rel(uk, plan.local_output(np.fft.rfftn(g))) < TOL["double"]
    finally:
        dup.Free()
        sub.Free()


def test_describe_and_timings():
    plan = dfft.Plan(COMM, (8, 6, 4), decomposition="pencil")
    assert "r2c axes" in plan.describe()
    assert len(plan.grid) == 2 and np.prod(plan.grid) == COMM.size
    plan.forward(np.zeros(plan.input_shape))
    names = [t["name"] for t in plan.timings]
    # One FFT stage and one exchange per grid dimension of more than one rank (an exchange
    # within one rank moves nothing: the FFTs around it are one stage).
    moving = sum(g > 1 for g in plan.grid)
    assert len(names) == 2 * moving + 1 and all(t["fft"] >= 0 for t in plan.timings)
    assert all_ranks(True)
