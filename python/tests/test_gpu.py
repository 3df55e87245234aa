# SPDX-License-Identifier: MIT
"""The binding on the CUDA backend (docs/python.md, "GPU arrays"): cupy arrays in and out, numpy
arrays copied through the plan, against numpy.fft. Skipped (on every rank alike) when dfft was
built without CUDA, when no GPU is visible, and for the cupy tests when cupy is missing.

    PYTHONPATH=build/python mpirun -np 2 python3 -m pytest -q python/tests/test_gpu.py
"""

import numpy as np
import pytest
from mpi4py import MPI

import dfft
from dfft import _dfft

COMM = MPI.COMM_WORLD
TOL = {"double": 1e-11, "float": 2e-5}


def _everywhere(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def _cupy_or_none():
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, or no usable driver/device
        return None


GPUS = _dfft.cuda_device_count() if dfft.has_cuda else 0
HAVE_GPU = _everywhere(GPUS > 0)
HAVE_CUPY = HAVE_GPU and _everywhere(_cupy_or_none() is not None)

needs_gpu = pytest.mark.skipif(not HAVE_GPU, reason="dfft built without CUDA, or no CUDA device")


@pytest.fixture
def cp():
    """cupy, when importable and every rank sees a GPU (the decision is the same on all ranks)."""
    if not HAVE_GPU:
        pytest.skip("dfft built without CUDA, or no CUDA device")
    if not HAVE_CUPY:
        pytest.skip("cupy is not importable (or sees no GPU) on every rank")
    return pytest.importorskip("cupy")


def max_rel(got, want):
    """Largest |got - want| over the largest |want|, over all ranks (host arrays)."""
    num = float(np.max(np.abs(got - want))) if got.size else 0.0
    den = float(np.max(np.abs(want))) if want.size else 0.0
    num = COMM.allreduce(num, op=MPI.MAX)
    den = COMM.allreduce(den, op=MPI.MAX)
    return num / (den or 1.0)


def global_array(shape, complex_values=False, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if complex_values:
        a = a + 1j * rng.standard_normal(shape)
    return a


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
def test_cupy_r2c_matches_numpy(cp, decomposition, precision):
    shape = (9, 7, 6)
    g = global_array(shape)
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, precision=precision,
                     backend="cuda")
    assert plan.device >= 0
    with cp.cuda.Device(plan.device):
        u = cp.asarray(plan.local_input(g).astype(plan.input_dtype))
        uk = plan.forward(u)
        assert isinstance(uk, cp.ndarray) and uk.device.id == plan.device
        assert uk.shape == plan.output_shape and uk.dtype == plan.output_dtype
        assert max_rel(cp.asnumpy(uk), plan.local_output(np.fft.rfftn(g))) < TOL[precision]
        back = plan.inverse(uk)
        assert isinstance(back, cp.ndarray) and back.dtype == plan.input_dtype
        assert max_rel(cp.asnumpy(back), plan.local_input(g)) < TOL[precision]


def test_cupy_c2c_out_and_batch(cp):
    shape = (5, 8, 7)
    g = [global_array(shape, complex_values=True, seed=s) for s in (1, 2)]
    plan = dfft.Plan(COMM, shape, decomposition="pencil", transform="c2c", methods="p2p-sync",
                     backend="cuda")
    with cp.cuda.Device(plan.device):
        u = cp.asarray(plan.local_input(g[0]))
        out = cp.empty(plan.output_shape, plan.output_dtype)
        assert plan.forward(u, out=out) is out
        assert max_rel(cp.asnumpy(out), plan.local_output(np.fft.fftn(g[0]))) < TOL["double"]
        # A leading batch axis: one exchange per stage for both arrays.
        batch = cp.asarray(np.stack([plan.local_input(x) for x in g]))
        plan.prepare_batch(2)
        got = cp.asnumpy(plan.forward(batch))
    want = np.stack([plan.local_output(np.fft.fftn(x)) for x in g])
    assert got.shape == (2,) + plan.output_shape
    assert max_rel(got, want) < TOL["double"]


def test_cupy_r2r(cp):
    shape = (7, 5, 9)
    g = global_array(shape, seed=5)
    plan = dfft.Plan(COMM, shape, decomposition="pencil", transform="r2r",
                     r2r=["dct2", "dst2", "dct2"], backend="cuda")

    def along(a, axis, kind):  # FFTW's REDFT10 / RODFT10 as a matrix product
        n = a.shape[axis]
        j, k = np.arange(n), np.arange(n)[:, None]
        m = (2 * np.cos(np.pi * (j + 0.5) * k / n) if kind == "dct2"
             else 2 * np.sin(np.pi * (j + 0.5) * (k + 1) / n))
        return np.moveaxis(np.tensordot(m, np.moveaxis(a, axis, 0), axes=1), 0, axis)

    want = along(along(along(g, 0, "dct2"), 1, "dst2"), 2, "dct2")
    with cp.cuda.Device(plan.device):
        y = plan.forward(cp.asarray(plan.local_input(g)))
        assert max_rel(cp.asnumpy(y), plan.local_output(want)) < TOL["double"]
        assert max_rel(cp.asnumpy(plan.inverse(y)), plan.local_input(g)) < TOL["double"]


@pytest.mark.parametrize("transform,kinds", [("r2r", ["dct1", "dst4", "dst1"]),
                                              ("r2c", ["dct4", ("dst", 3), None]),
                                              ("c2c", [None, "dct1", "dst4"])])
def test_cupy_r2r_kinds(cp, transform, kinds):
    # Types I and IV (their own cuFFT paths) and r2c mixing, against scipy.fft (test_dfft.py).
    from test_dfft import scipy_forward
    shape = (7, 6, 9)
    g = global_array(shape, complex_values=transform == "c2c", seed=8)
    plan = dfft.Plan(COMM, shape, decomposition="pencil", transform=transform, r2r=kinds,
                     norm="ortho", backend="cuda")
    want = scipy_forward(g, transform, kinds, "ortho")
    with cp.cuda.Device(plan.device):
        y = plan.forward(cp.asarray(plan.local_input(g)))
        assert max_rel(cp.asnumpy(y), plan.local_output(want)) < TOL["double"]
        assert max_rel(cp.asnumpy(plan.inverse(y)), plan.local_input(g)) < TOL["double"]


def test_cupy_argument_checks(cp):
    shape = (6, 5, 4)
    plan = dfft.Plan(COMM, shape, backend="cuda")
    g = global_array(shape, seed=3)
    with cp.cuda.Device(plan.device):
        u = cp.asarray(plan.local_input(g))
        # Another real dtype is converted on the GPU, as numpy inputs are on the CPU.
        u32 = u.astype(cp.float32)
        assert max_rel(cp.asnumpy(plan.forward(u32)),
                       cp.asnumpy(plan.forward(u32.astype(cp.float64)))) == 0.0
        with pytest.raises(TypeError):
            plan.forward(u + 1j)  # r2c takes real input
        with pytest.raises(TypeError):
            plan.forward(u, out=np.empty(plan.output_shape, plan.output_dtype))  # host out
        with pytest.raises(ValueError):
            plan.forward(u, out=cp.empty(plan.output_shape, cp.complex64))  # wrong dtype
    if GPUS >= 2:  # the same on every rank (one node)
        with cp.cuda.Device((plan.device + 1) % GPUS):
            elsewhere = cp.asarray(plan.local_input(g))
        with pytest.raises(ValueError, match="GPU"):
            plan.forward(elsewhere)


@needs_gpu
@pytest.mark.parametrize("transform", ["r2c", "c2c"])
def test_numpy_through_a_cuda_plan(transform):
    """numpy arrays on a cuda plan are uploaded, transformed and downloaded: numpy out."""
    shape = (9, 6, 5)
    g = global_array(shape, complex_values=transform == "c2c", seed=4)
    plan = dfft.Plan(COMM, shape, decomposition="pencil", transform=transform, backend="cuda")
    ref = np.fft.rfftn(g) if transform == "r2c" else np.fft.fftn(g)
    uk = plan.forward(plan.local_input(g))
    assert isinstance(uk, np.ndarray) and uk.shape == plan.output_shape
    assert max_rel(uk, plan.local_output(ref)) < TOL["double"]
    back = plan.inverse(uk)
    assert isinstance(back, np.ndarray)
    assert max_rel(back, plan.local_input(g)) < TOL["double"]  # the inverse applies 1/N (norm "backward")
    batch = np.stack([plan.local_input(g)] * 3)
    plan.prepare_batch(3)
    assert max_rel(plan.forward(batch), np.stack([uk] * 3)) < 1e-12


def test_without_cuda_the_cuda_backend_is_refused():
    if dfft.has_cuda:
        pytest.skip("dfft was built with CUDA")
    with pytest.raises(dfft.Error):
        dfft.Plan(COMM, (8, 8, 8), backend="cuda")


def test_cupy_halo_matches_numpy_pad(cp):
    # plan.halo on a cuda plan exchanges device arrays (p2p-sync on the GPU), against numpy.pad.
    from test_halo import FILL, reference
    shape = (17, 12, 10)
    g = global_array(shape, complex_values=True, seed=11)
    plan = dfft.Plan(COMM, shape, decomposition="pencil", transform="c2c", backend="cuda",
                     effort="estimate", fftw_wisdom=False)
    lo, hi, order = plan._in.lo, plan._in.hi, plan._in.order
    for wlo, whi, periodic, corners in [([1, 2, 1], [2, 1, 3], [True, False, True], True),
                                        ([3, 1, 2], None, [True, True, True], False)]:
        halo = plan.halo(wlo, whi, periodic, corners)
        assert halo.staging in ("host", "cuda-aware")
        whi_ = whi or wlo
        with cp.cuda.Device(plan.device):
            u = halo.empty()
            assert isinstance(u, cp.ndarray)
            u.fill(FILL)
            u[halo.interior] = cp.asarray(g[tuple(slice(a, b) for a, b in zip(lo, hi))].transpose(order))
            halo.exchange(u)
            got = cp.asnumpy(u)
        want = reference(g, lo, hi, wlo, whi_, periodic, corners).transpose(order).astype(halo.dtype)
        assert _everywhere(np.array_equal(got, want))
        # A host array on a cuda halo is refused on every rank before anything is written.
        with pytest.raises(dfft.InvalidArgument, match="device array"):
            halo.exchange(np.zeros(halo.shape, halo.dtype))
    plan.close()
