# SPDX-License-Identifier: MIT
"""Parallel .npy files: every rank writes or reads its own block of a global array (docs/io.md).

    import dfft, dfft.io
    plan = dfft.Plan(comm, (64, 64, 64), decomposition="pencil")
    dfft.io.write_npy(plan, "u.npy", u_local)                         # plan.input_shape block
    dfft.io.write_npy(plan, "uk.npy", uk_local, side="output")
    uk = dfft.io.read_npy(plan, "uk.npy", side="output")              # new array, or out=
    # Without a plan: a communicator and this rank's box (lo, hi) in global indices.
    dfft.io.write_npy(comm, "a.npy", block, shape=(17, 12, 10), box=((0, 0, 0), (17, 6, 10)))
    block = dfft.io.read_npy(comm, "a.npy", box=((0, 0, 0), (17, 6, 10)))

Local arrays are C-contiguous numpy arrays in memory order `order` (global axes, slowest
first): a plan's side uses the plan's order (``plan.input_order``/``output_order``, padding
included), a box its `order` argument (default: natural). Boxes may be empty. Written files
are C-order float32/float64/complex64/complex128 .npy files that numpy.load reads; read_npy
also takes numpy's Fortran-order files. Every call is collective; a refusal or failure on any
rank raises on every rank: ValueError or TypeError for arrays that do not fit,
dfft.InvalidArgument for bad boxes or a file of another shape or dtype, dfft.MpiError for a
failed MPI-IO call (such as a file that does not exist).
"""

from collections import namedtuple

import numpy as np

from . import _dfft

__all__ = ["write_npy", "read_npy", "read_npy_header", "NpyHeader"]

_DTYPES = ("float32", "float64", "complex64", "complex128")

NpyHeader = namedtuple("NpyHeader", ["shape", "dtype", "fortran_order"])
NpyHeader.__doc__ = "A .npy file's global shape (tuple), dtype (numpy dtype) and order."


def _fortran_handle(comm):
    py2f = getattr(comm, "py2f", None)
    if py2f is None:
        raise TypeError(f"expected a dfft.Plan or an mpi4py communicator, got {type(comm).__name__}")
    return py2f()


class _Target:
    """Communicator, global shape, dtype and this rank's layout of one call."""

    def __init__(self, target, side, shape, box, order, dtype):
        impl = getattr(target, "_impl", None)
        if impl is not None:  # a dfft.Plan
            if side not in ("input", "output"):
                raise ValueError(f"side must be 'input' or 'output', got {side!r}")
            info = impl.input_layout() if side == "input" else impl.output_layout()
            self.comm = target.comm
            self.shape = tuple(target.shape if side == "input" else target.spectral_shape)
            self.dtype = target.input_dtype if side == "input" else target.output_dtype
            self.lo, self.hi, self.order = tuple(info["lo"]), tuple(info["hi"]), tuple(info["order"])
            self.padded = tuple(info["alloc"])
            # A halo'd array (input_halo): the box starts `start` elements in, where the native
            # calls, which know only the padded extents, are pointed.
            stride, self.start = 1, 0
            for a in reversed(self.order):
                self.start += info["offset"][a] * stride
                stride *= self.padded[a]
            if self.empty:
                self.start = 0
        else:
            if box is None:
                raise ValueError("with a communicator, give box=(lo, hi) (this rank's global indices)")
            self.comm = target
            self.shape = None if shape is None else tuple(int(n) for n in shape)
            self.dtype = None if dtype is None else np.dtype(dtype)
            self.lo, self.hi = (tuple(int(v) for v in x) for x in box)
            self.order = tuple(range(len(self.lo))) if order is None else tuple(int(a) for a in order)
            self.padded = ()
            self.start = 0
        self.handle = _fortran_handle(self.comm)

    @property
    def empty(self):
        return any(h <= l for l, h in zip(self.lo, self.hi))

    def local_shape(self):
        """Shape of this rank's local array: allocated extents in memory order."""
        ext = [h - l for l, h in zip(self.lo, self.hi)]
        if self.padded and not self.empty:
            ext = list(self.padded)
        try:
            return tuple(ext[a] for a in self.order)
        except IndexError:
            return None  # a bad order: the library names it

    def agree(self, problem):
        """Raise the first rank's problem on every rank (a check that failed on one rank only
        must not leave the others inside the collective call)."""
        problems = self.comm.allgather(problem)
        for rank, p in enumerate(problems):
            if p is not None:
                kind, text = p
                raise kind(f"{text} (rank {rank})")


def _check_array(a, shape, dtype, what):
    """None, or (exception class, message) for an array that is not C-contiguous shape/dtype."""
    if not isinstance(a, np.ndarray):
        return (TypeError, f"{what}: expected a numpy array, got {type(a).__name__}")
    if shape is not None and a.shape != shape:
        return (ValueError, f"{what}: expected a local array of shape {shape}, got {a.shape}")
    if dtype is not None and a.dtype != dtype:
        return (TypeError, f"{what}: expected dtype {dtype}, got {a.dtype}")
    if not a.flags.c_contiguous:
        return (ValueError, f"{what}: the array must be C-contiguous (np.ascontiguousarray)")
    return None


def _dtype_name(dtype):
    return np.dtype(dtype).name


def read_npy_header(comm, path):
    """The header of `path` (collective; rank 0 reads it): NpyHeader(shape, dtype, fortran_order)."""
    shape, dtype, fortran = _dfft._npy_header(_fortran_handle(comm), str(path))
    return NpyHeader(tuple(shape), np.dtype(dtype), bool(fortran))


def write_npy(target, path, local, side="input", *, shape=None, box=None, order=None, atomic=True):
    """Write the global array whose block on this rank is `local` (collective).

    target: a dfft.Plan (its `side`, 'input' or 'output', gives global shape, dtype and layout)
    or an mpi4py communicator, with `shape` (global) and `box` ((lo, hi) of this rank; boxes of
    all ranks tile the array) and optionally `order`. atomic: write path + '.dfft-tmp' and rename
    it when complete (no partial file after a failure); False rewrites `path` itself.
    """
    t = _Target(target, side, shape, box, order, None)
    problem = None
    if t.shape is None:
        problem = (ValueError, "with a communicator, give shape= (the global shape)")
    else:
        dtype = t.dtype if t.dtype is not None else getattr(local, "dtype", None)
        problem = _check_array(local, t.local_shape(), dtype, "write_npy")
        if problem is None and local.dtype.name not in _DTYPES:
            problem = (TypeError, f"write_npy: dtype {local.dtype} (dfft writes {', '.join(_DTYPES)})")
    t.agree(problem)
    _dfft._npy_write(t.handle, str(path), list(t.shape), _dtype_name(local.dtype), list(t.lo), list(t.hi),
                     list(t.order), list(t.padded), local.ctypes.data + t.start * local.itemsize, bool(atomic))


def read_npy(target, path, side="input", *, box=None, order=None, out=None):
    """Read this rank's block of the global array in `path` (collective); returns `out` or a new
    array of the local shape (memory order).

    target: a dfft.Plan (the file must hold the global shape and dtype of its `side`) or an
    mpi4py communicator with `box` ((lo, hi) of this rank; any boxes) and optionally `order`;
    shape and dtype then come from the file.
    """
    t = _Target(target, side, None, box, order, None)
    if t.shape is None or t.dtype is None:
        h = read_npy_header(t.comm, path)
        t.shape, t.dtype = h.shape, h.dtype
    local_shape = t.local_shape()
    problem = None
    if out is None and local_shape is not None:
        out = np.empty(local_shape, t.dtype)
    elif out is not None:
        problem = _check_array(out, local_shape, t.dtype, "read_npy: out")
    t.agree(problem)
    data = out.ctypes.data + t.start * out.itemsize if out is not None else 0
    _dfft._npy_read(t.handle, str(path), list(t.shape), _dtype_name(t.dtype), list(t.lo), list(t.hi),
                    list(t.order), list(t.padded), data)
    return out
