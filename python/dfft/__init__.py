# SPDX-License-Identifier: MIT
"""dfft: distributed multidimensional FFTs over MPI (docs/python.md).

    from mpi4py import MPI
    import dfft
    plan = dfft.Plan(MPI.COMM_WORLD, (64, 64, 64), decomposition="pencil")
    u = np.random.rand(*plan.input_shape)      # this rank's block, global box plan.input_box
    uk = plan.forward(u)                       # this rank's block of rfftn(u_global)
    u2 = plan.inverse(uk) / np.prod(plan.shape)

Every call is collective over the plan's communicator. Local arrays are C-contiguous, in the
memory order of the plan's layout (``input_order``/``output_order``: global axes, slowest
first); with the default variant that is the natural order.
"""

import inspect as _inspect
import sys as _sys

import numpy as np


def _preload_mpi():
    """Put the MPI library that dfft links into the process's global symbol scope.

    mpi4py's binary wheels pick an MPI library when ``mpi4py.MPI`` is first imported: one whose
    symbols are already global, else the first of libmpi.so, libmpi.so.12 (MPICH) and
    libmpi.so.40 (Open MPI) that loads. Loading dfft's own library first makes that choice agree
    with dfft. When mpi4py was imported earlier this cannot help; the extension then checks that
    both use the same library and raises ImportError if not.
    """
    if "mpi4py.MPI" in _sys.modules:
        return
    try:
        from ._mpi_library import MPI_LIBRARY
    except ImportError:  # a package tree without the generated file
        return
    import ctypes
    import os

    if MPI_LIBRARY and os.path.exists(MPI_LIBRARY):
        try:
            ctypes.CDLL(MPI_LIBRARY, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        except OSError:
            pass  # the extension's own import reports what is wrong


_preload_mpi()

from ._dfft import (Error, InvalidArgument, LibraryError, MpiError, OutOfMemory,  # noqa: E402
                    Unsupported, _Plan, has_cuda)
from . import _dfft  # noqa: E402
from . import _options  # noqa: E402
from ._options import OPTION_KEYWORDS  # noqa: E402
from . import io  # noqa: E402,F401  (dfft.io: parallel .npy files)

__all__ = ["Plan", "Error", "InvalidArgument", "Unsupported", "OutOfMemory", "MpiError",
           "LibraryError", "has_cuda", "OPTION_KEYWORDS", "DistArray", "Halo"]

_REAL = {"double": np.dtype(np.float64), "float": np.dtype(np.float32)}
_COMPLEX = {"double": np.dtype(np.complex128), "float": np.dtype(np.complex64)}


def _layout_arg(layout, name):
    """(lo, hi) or (lo, hi, order) -> the extension's (lo, hi, order) tuple."""
    if layout is None:
        return None
    if len(layout) not in (2, 3):
        raise ValueError(f"{name} must be (lo, hi) or (lo, hi, order), got {layout!r}")
    lo, hi = (tuple(int(v) for v in x) for x in layout[:2])
    order = tuple(int(v) for v in layout[2]) if len(layout) == 3 else ()
    return (lo, hi, order)


class _Side:
    """One side (input or output) of a plan: box, memory order, local shape, dtype."""

    def __init__(self, info, dtype):
        self.lo = tuple(info["lo"])
        self.hi = tuple(info["hi"])
        self.order = tuple(info["order"])
        # Allocated extents (padding included); an empty box has no padding to allocate.
        empty = any(h <= l for l, h in zip(self.lo, self.hi))
        extent = [h - l for l, h in zip(self.lo, self.hi)] if empty else info["alloc"]
        self.shape = tuple(extent[a] for a in self.order)
        # The box inside the local array (a halo below it: offset), in memory order.
        offset = [0] * len(self.lo) if empty else info["offset"]
        self.interior = tuple(slice(offset[a], offset[a] + self.hi[a] - self.lo[a]) for a in self.order)
        self.dtype = dtype


def _r2r_kind(k):
    """One axis's r2r kind as dfft names it: None -> 'none', ('dct', 2) -> 'dct2'."""
    if k is None:
        return "none"
    if isinstance(k, (tuple, list)):
        if len(k) != 2 or k[0] not in ("dct", "dst") or k[1] not in (1, 2, 3, 4):
            raise ValueError(f"an r2r kind pair is ('dct' or 'dst', type 1..4), got {k!r}")
        return f"{k[0]}{int(k[1])}"
    return str(k)


class Plan:
    """A distributed FFT plan (collective to build and to execute).

    shape: global array shape (axis 0 slowest). decomposition, variant, methods, grid, chunks and
    overlap left at their defaults are chosen when the plan is made (docs/results/defaults.md;
    ``plan.describe()`` says what and why). decomposition: 'auto', 'slab-2d1d', 'slab-1d2d' or
    'pencil'; variant: 'auto', 'default' or 'realigned'; methods: None (automatic), one name or one per exchange
    ('a2a-sync', 'a2a-type', 'p2p-sync', 'p2p-type', 'onesided', 'p2p-pipelined', 'node-ring',
    'hierarchical', 'per-peer'; on the cuda backend also 'p2p-streams', 'nccl', 'cuda-ipc'); transform: 'r2c' (inverse c2r),
    'c2c' or 'r2r'; precision: 'double' or 'float'; grid: process grid or None (automatic);
    norm: 'backward' (inverse scaled by 1/N), 'ortho' (both by 1/sqrt(N)) or 'forward' (forward
    scaled by 1/N), as numpy.fft's norm, or 'none' (neither scaled: FFTW's convention) (on a DCT/DST axis N is scipy.fft.dctn's logical size:
    2(n-1) for type 1 DCT, 2(n+1) for type 1 DST, 2n otherwise; 'ortho' there matches
    dctn(norm='ortho', orthogonalize=False)); effort: FFTW planning,
    'measure', 'estimate' or 'wisdom-only' (from FFTW wisdom the process has, else
    dfft.Unsupported); fftw_wisdom: True (FFTW wisdom kept in the default directory),
    False (none) or a directory; r2r: one kind per axis, the DCT/DST the forward applies
    ('dct1'..'dct4', 'dst1'..'dst4', or scipy.fft's names as a pair such as ('dct', 1); FFTW's
    'r2hc', 'hc2r', 'dht' with transform 'r2r' on the cpu backend; 'none' or
    None for a periodic axis of a c2c or r2c plan; r2c needs the last axis periodic); the inverse
    applies the inverse kind (types 1 and 4 self-inverse, 2 and 3 each other's); input_layout and
    output_layout: this rank's (lo, hi) or (lo, hi, order) boxes (the box API: any tiling, empty
    boxes allowed); backend: 'cpu' (numpy arrays) or 'cuda' (__cuda_array_interface__ arrays
    such as cupy's, on the plan's GPU; numpy arrays are copied to the GPU and back);
    memory_limit_bytes: refuse (OutOfMemory) a plan needing more host or GPU memory per rank
    (0: the available memory); user_workspace: the plan holds no work buffers and every
    forward/inverse takes `work=`, an array of at least `workspace_bytes` bytes (numpy on the cpu
    backend, a device array on cuda), whose contents do not matter; axes: the axes to transform,
    in order, as numpy.fft.fftn's (None: all; negative ones count from the end; for r2c the last
    listed is halved, as numpy.fft.rfftn); padding: None, one factor for every
    transformed axis, or one per axis (1: not padded; 1.5: the 3/2 rule): `shape` is then the
    spectral grid, the physical grid (physical_shape) has floor(n * factor) points on a padded
    axis; forward truncates the padded grid's spectrum to numpy's frequencies of an n-point FFT,
    inverse zero-pads (an even n's Nyquist mode split in halves between +n/2 and -n/2); norm
    counts the padded sizes (docs/axes.md). input_halo and output_halo: ghost cells or padding
    around this rank's box in the local input and output arrays (docs/boxes.md): one width for
    every axis and side, one per axis, or (below, above) per axis; input_shape and output_shape
    are then the halo'd arrays' shapes, input_interior and output_interior index the box in them,
    and forward and inverse never touch a halo cell (cpu backend; an array of plan.halo(...)
    with the same widths is such an array).

    The other keywords are the C++ Options fields of the same name (docs/python.md lists them;
    None keeps dfft's default): codec ('none', 'fp32', 'fp16', 'bf16') or tolerance (pick the
    cheapest codec within this relative error), overlap (FFT/exchange overlap slices), adapt,
    threads (per rank; 0, the default: the rank's share of its cores), chunks, in_flight, onesided_sync ('fence',
    'flush'), max_message_bytes, staging ('auto', 'host', 'cuda-aware'), batch (the plan's own
    batch: local arrays get a leading axis of this size) and batches (batched plans made now),
    in_place (r2c on one buffer: see inplace_buffer), destroy_input (the inverse may overwrite
    its input spectrum, as FFTW's c2r), directions ('both', 'forward' or 'inverse': a plan for
    one direction plans about half as long; the other direction raises), transposed_out (the spectrum in the last
    stage's memory order, e.g. (y, x, z) for slab-2d1d and pencil; output_layout says it), tune ('none', 'heuristic', 'measure'),
    wisdom_file, tune_budget_s, ranks_per_node (e.g. [2] or [3, 1]) and stream (a
    cudaStream_t as int). ``plan.options`` reads them all back from the built plan.

    The options also come by group, a dict per group name (docs/options.md lists the groups):
    ``dfft.Plan(comm, shape, exchange=dict(methods=["nccl"], codec="fp16"),
    device=dict(backend="cuda"))``. problem, exchange, tuning and memory take only a dict;
    decomposition, overlap and device take their option's value or their group's dict. A key
    outside its group is refused (ValueError naming the group and the key).

    Failures raise dfft.Error or one of its subclasses: InvalidArgument (bad argument),
    Unsupported (not possible with this build, backend or method), OutOfMemory, MpiError and
    LibraryError (FFTW, CUDA, cuFFT, NCCL).
    """

    def __init__(self, comm, shape, decomposition="auto", variant="auto",
                 methods=None, transform="r2c", precision="double", grid=None,
                 norm="backward", r2r=None, input_layout=None, output_layout=None,
                 backend="cpu", effort="measure", fftw_wisdom=True, device=-1, memory_limit_bytes=0,
                 codec=None, tolerance=None, overlap=None, adapt=None, threads=None,
                 chunks=None, in_flight=None, onesided_sync=None, max_message_bytes=None,
                 staging=None, batch=None, batches=None, in_place=None, destroy_input=None, directions=None,
                 transposed_out=None,
                 tune=None, wisdom_file=None, tune_budget_s=None, ranks_per_node=None, stream=None,
                 user_workspace=None, axes=None, padding=None, input_halo=None, output_halo=None,
                 problem=None, exchange=None,
                 tuning=None, memory=None):
        given = dict(locals())
        del given["self"]
        if any(isinstance(given[g], dict) for g in _options.GROUPS):
            self.__init__(**_options.grouped(given, _PLAN_DEFAULTS))
            return
        if methods is None or methods == "auto":
            methods = []
        elif isinstance(methods, str):
            methods = [methods]
        kinds = [_r2r_kind(k) for k in (r2r or [])]
        extra = {name: given[_options.OPTION_KEYWORDS[name]] for name in _options.EXTRA_FIELDS}
        extra.update(padding=_options.padding_per_axis(padding, len(shape), axes),
                     input_halo=_options.halo_per_axis(input_halo, len(shape)),
                     output_halo=_options.halo_per_axis(output_halo, len(shape)))
        if precision not in _REAL:
            raise ValueError(f"precision must be 'double' or 'float', got {precision!r}")
        self._impl = _Plan(comm, [int(n) for n in shape], decomposition, variant, list(methods),
                           transform, precision, list(grid or []), str(norm), kinds,
                           backend, effort,
                           None if fftw_wisdom is False else ("" if fftw_wisdom is True else str(fftw_wisdom)),
                           int(device),
                           _layout_arg(input_layout, "input_layout"),
                           _layout_arg(output_layout, "output_layout"), int(memory_limit_bytes),
                           _options.extra(**extra))
        self._batch = self._impl.options()["batch"]
        self._comm = comm
        self.transform = transform
        self.precision = precision
        self.backend = backend
        real, cplx = _REAL[precision], _COMPLEX[precision]
        in_dtype = cplx if transform == "c2c" else real
        out_dtype = real if transform == "r2r" else cplx
        self._in = _Side(self._impl.input_layout(), in_dtype)
        self._out = _Side(self._impl.output_layout(), out_dtype)

    @property
    def comm(self):
        """The mpi4py communicator the plan was made with."""
        return self._comm

    def halo(self, width, width_hi=None, periodic=True, corners=False, side="input", dtype=None,
             method=None):
        """A dfft.Halo on this rank's input (or output) box and memory order: width cells below
        and width_hi (None: width) above the box per axis, periodic axes, corners; dtype: the
        side's (None) or another; method 'p2p-type' or 'p2p-sync' (None: p2p-type on the cpu,
        p2p-sync on cuda, where the arrays are device arrays). Collective (docs/halo.md)."""
        from .halo import plan_halo
        return plan_halo(self, width, width_hi, periodic, corners, side, dtype, method)

    @property
    def memory(self):
        """(host_bytes, device_bytes) this plan holds on this rank (FFT libraries' own work
        areas not counted)."""
        return tuple(self._impl.memory())

    @property
    def workspace_bytes(self):
        """Bytes of the `work=` array one forward/inverse needs (user_workspace plans)."""
        return int(self._impl.workspace_bytes())

    # Geometry -----------------------------------------------------------------------------
    @property
    def shape(self):
        """Global shape the plan was made for (with padding: the spectral grid; physical_shape is
        the real-space one)."""
        return tuple(self._impl.shape())

    @property
    def spectral_shape(self):
        """Global shape of the forward output (the halved axis n//2+1 for r2c)."""
        return tuple(self._impl.spectral_shape())

    @property
    def physical_shape(self):
        """Global shape of the forward input: `shape` with `padding` applied."""
        return tuple(self._impl.physical_shape())

    @property
    def input_box(self):
        """This rank's input box as (lo, hi) tuples of global indices (hi exclusive)."""
        return (self._in.lo, self._in.hi)

    @property
    def output_box(self):
        return (self._out.lo, self._out.hi)

    @property
    def input_order(self):
        """Global axes of the local input array, slowest first."""
        return self._in.order

    @property
    def output_order(self):
        return self._out.order

    @property
    def input_interior(self):
        """Index of this rank's input box in the local input array: u[plan.input_interior] is
        the block (all of u without input_halo)."""
        return self._in.interior

    @property
    def output_interior(self):
        """Index of this rank's output box in the local output array (output_halo)."""
        return self._out.interior

    @property
    def input_shape(self):
        """Shape of this rank's local input array (memory order)."""
        return self._in.shape

    @property
    def output_shape(self):
        return self._out.shape

    @property
    def input_dtype(self):
        return self._in.dtype

    @property
    def output_dtype(self):
        return self._out.dtype

    @property
    def input_slices(self):
        """Slices (global axis order) that cut this rank's input box out of a global array."""
        return tuple(slice(l, h) for l, h in zip(self._in.lo, self._in.hi))

    @property
    def output_slices(self):
        return tuple(slice(l, h) for l, h in zip(self._out.lo, self._out.hi))

    @property
    def grid(self):
        return tuple(self._impl.grid())

    @property
    def device(self):
        """CUDA device ordinal of a cuda plan (-1 on the cpu backend)."""
        return self._impl.device()

    @property
    def timings(self):
        """Per-stage phase times (seconds, this rank) of the last forward/inverse."""
        return self._impl.timings()

    def close(self):
        """Free the plan now; collective, call it on every rank. A plan whose exchanges hold MPI
        windows (onesided) or NCCL communicators frees them collectively, and Python's garbage
        collector may drop a plan at different moments on different ranks (a traceback or a
        reference cycle keeping it alive on one rank): close such plans, or make them in a
        `with` block, rather than leaving them to the collector. Using a closed plan raises
        ValueError; closing twice does nothing."""
        self._impl.close()

    @property
    def closed(self):
        return self._impl.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def describe(self):
        return self._impl.describe()

    @property
    def options(self):
        """Every option of the built plan (the C++ Options fields by name; with tune, the
        options the tuner chose)."""
        return self._impl.options()

    @property
    def info(self):
        """What the plan chose and reports: codec, overlap_slices, chunks, in_flight, adapting,
        exchange_bytes (per exchange, from this rank), node_traffic (all ranks) and
        tune_report (None without tuning)."""
        return self._impl.info()

    @property
    def codec(self):
        """Wire format of the exchanges in use (forced, or chosen by tolerance)."""
        return self._impl.info()["codec"]

    @property
    def tune_report(self):
        return self._impl.info()["tune_report"]

    def inplace_buffer(self):
        """A buffer for in-place transforms (in_place=True r2c plans, or c2c): hand
        ``input_view(buf)`` to forward with ``out=output_view(buf)`` and back."""
        nbytes = max(_nbytes(self._in), _nbytes(self._out))
        return np.empty(nbytes // self._in.dtype.itemsize, self._in.dtype).view(np.uint8)

    def input_view(self, buf):
        """The local input array over an inplace_buffer."""
        return _view(buf, self._in)

    def output_view(self, buf):
        return _view(buf, self._out)

    def local_input(self, global_array):
        """This rank's input block cut from a global array, in the plan's memory order."""
        return np.ascontiguousarray(np.transpose(global_array[self.input_slices], self._in.order))

    def local_output(self, global_array):
        return np.ascontiguousarray(np.transpose(global_array[self.output_slices], self._out.order))

    # Execution ----------------------------------------------------------------------------
    def prepare_batch(self, batch):
        """Make (collectively) the batched plan that forward/inverse of a (batch,) + shape array
        run; without it they raise InvalidArgument."""
        self._impl.prepare_batch(int(batch))

    def forward(self, a, out=None, work=None):
        """Forward transform of this rank's input block; returns the output block (new array,
        or `out`). A leading extra axis is a batch: (batch,) + input_shape. work: a workspace
        (see user_workspace) used instead of the plan's own buffers."""
        return self._execute(True, a, out, self._in, self._out, work)

    def inverse(self, b, out=None, work=None):
        """Inverse transform (scaled as `norm` says: by 1/N for the default "backward")."""
        return self._execute(False, b, out, self._out, self._in, work)

    def _execute(self, forward, a, out, src, dst, work=None):
        on_device = self.backend == "cuda"
        work = _work_arg(work, on_device, self.device)
        if on_device and not _is_device_array(a):
            return self._execute_staged(forward, a, out, src, dst, work)
        if on_device:
            a = _device_convert(a, src.dtype)
        a, batch = self._source(a, src, on_device)
        shape = dst.shape if batch is None else (batch,) + dst.shape
        if out is None and on_device:
            out = _device_empty(shape, dst.dtype, self.device)
        elif out is None:
            out = np.empty(shape, dst.dtype)
        out_ptr = _address(out, shape, dst.dtype, on_device, "out")
        in_ptr = _address(a, a.shape, src.dtype, on_device, "input")
        if on_device:
            # Wrong GPU and pending producer work are checked before anything collective.
            for arr, ptr, what in ((a, in_ptr, "input"), (out, out_ptr, "out")):
                _device_ready(arr, ptr, self.device, what)
        self._impl.execute(forward, in_ptr, out_ptr, batch or self._batch, *work)
        return out

    def _execute_staged(self, forward, a, out, src, dst, work):
        """numpy arrays on a cuda plan: copied into plan-allocated GPU memory and back."""
        a, batch = self._source(a, src, False)
        shape = dst.shape if batch is None else (batch,) + dst.shape
        if out is None:
            out = np.empty(shape, dst.dtype)
        elif _is_device_array(out):
            raise TypeError("out: a numpy input on the cuda backend returns a numpy array; pass "
                            "a device input to get a device output")
        out_ptr = _address(out, shape, dst.dtype, False, "out")
        in_ptr = _address(a, a.shape, src.dtype, False, "input")
        dev_in = self._impl.allocate(a.nbytes)
        try:
            dev_out = self._impl.allocate(out.nbytes)
            try:
                if a.nbytes:
                    self._impl.upload(dev_in, in_ptr, a.nbytes)
                self._impl.execute(forward, dev_in, dev_out, batch or self._batch, *work)
                if out.nbytes:
                    self._impl.download(out_ptr, dev_out, out.nbytes)
            finally:
                self._impl.deallocate(dev_out)
        finally:
            self._impl.deallocate(dev_in)
        return out

    def _source(self, a, side, on_device):
        if not on_device:
            if np.iscomplexobj(a) and side.dtype.kind != "c":
                raise TypeError(f"expected a real array ({side.dtype}), got {np.asarray(a).dtype}")
            a = np.ascontiguousarray(a, dtype=side.dtype)
        shape = tuple(a.shape)
        if shape == side.shape:
            return a, None
        if (len(shape) == len(side.shape) + 1 and shape[1:] == side.shape and shape[0] >= 1
                and self._batch == 1):
            return a, shape[0]
        raise ValueError(f"expected a local array of shape {side.shape} (or (batch,) + that), "
                         f"got {shape}")


# dfft.Plan's keyword defaults: a group keyword's fields given flat as well must agree with them.
_PLAN_DEFAULTS = {k: p.default for k, p in _inspect.signature(Plan.__init__).parameters.items()
                  if p.default is not _inspect.Parameter.empty}


def _nbytes(side):
    return int(np.prod(side.shape, dtype=np.int64)) * side.dtype.itemsize


def _view(buf, side):
    return buf[:_nbytes(side)].view(side.dtype).reshape(side.shape)


def _work_arg(work, on_device, device):
    """(address, bytes) of a workspace array, (0, 0) for None."""
    if work is None:
        return 0, 0
    if on_device:
        cai = getattr(work, "__cuda_array_interface__", None)
        if cai is None:
            raise TypeError("work: the cuda backend takes a device array (__cuda_array_interface__), "
                            "got " + type(work).__name__)
        ptr = int(cai["data"][0])
        nbytes = int(np.prod(cai["shape"], dtype=np.int64)) * np.dtype(cai["typestr"]).itemsize
        if cai.get("strides") is not None and nbytes and not work.flags.c_contiguous:
            raise ValueError("work: the workspace must be one contiguous array")
        _device_ready(work, ptr, device, "work")
        return ptr, nbytes
    if not isinstance(work, np.ndarray) or not work.flags.c_contiguous or not work.flags.writeable:
        raise TypeError("work: the cpu backend takes a writeable C-contiguous numpy array")
    return int(work.ctypes.data), int(work.nbytes)


def _address(a, shape, dtype, on_device, what):
    """Data address of a C-contiguous array of exactly this shape and dtype."""
    if on_device:
        cai = getattr(a, "__cuda_array_interface__", None)
        if cai is None:
            raise TypeError(f"{what}: the cuda backend takes device arrays "
                            "(__cuda_array_interface__, e.g. cupy), got " + type(a).__name__)
        if tuple(cai["shape"]) != tuple(shape) or np.dtype(cai["typestr"]) != dtype:
            raise ValueError(f"{what}: expected shape {tuple(shape)} and dtype {dtype}, got "
                             f"{tuple(cai['shape'])} and {np.dtype(cai['typestr'])}")
        if cai.get("strides") not in (None, _c_strides(shape, dtype)):
            raise ValueError(f"{what}: the device array must be C-contiguous")
        return int(cai["data"][0])
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{what}: expected a numpy array, got {type(a).__name__}")
    if a.shape != tuple(shape) or a.dtype != dtype:
        raise ValueError(f"{what}: expected shape {tuple(shape)} and dtype {dtype}, got "
                         f"{a.shape} and {a.dtype}")
    if not a.flags.c_contiguous:
        raise ValueError(f"{what}: the array must be C-contiguous")
    if what == "out" and not a.flags.writeable:
        raise ValueError("out: the array must be writeable")
    return a.ctypes.data


def _c_strides(shape, dtype):
    strides, step = [], dtype.itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _is_device_array(a):
    return hasattr(a, "__cuda_array_interface__")


def _cupy():
    """The cupy module when it is importable (looked up at call time), else None."""
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def _device_convert(a, dtype):
    """cupy arrays of another dtype or memory layout are converted on their GPU (as numpy inputs
    are); complex data for a real input are rejected."""
    cupy = _cupy()
    if cupy is None or not isinstance(a, cupy.ndarray):
        return a
    if a.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"expected a real array ({dtype}), got {a.dtype}")
    if a.dtype == dtype and a.flags.c_contiguous:
        return a
    with a.device:
        return cupy.ascontiguousarray(a, dtype=dtype)


def _device_ready(a, ptr, device, what):
    """The array is on the plan's GPU, and work queued on its stream (__cuda_array_interface__
    version 3 'stream') is done before dfft's own streams touch it."""
    cai = a.__cuda_array_interface__
    if 0 in tuple(cai["shape"]):
        return  # an empty box: no data, possibly no pointer
    where = _dfft.pointer_device(ptr)
    if where != device:
        raise ValueError(f"{what}: the array is on GPU {where}, the plan runs on GPU {device}")
    stream = cai.get("stream")
    if stream is not None:
        _dfft.stream_synchronize(int(stream), where)


def _device_empty(shape, dtype, device):
    cupy = _cupy()
    if cupy is None:
        raise RuntimeError("the cuda backend allocates its results with cupy; install cupy or "
                           "pass out=")
    with cupy.cuda.Device(device):
        return cupy.empty(shape, dtype)


from .distarray import DistArray  # noqa: E402,F401
from .halo import Halo  # noqa: E402,F401
