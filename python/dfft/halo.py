# SPDX-License-Identifier: MIT
"""Halo (ghost cell) exchange on the blocks of a plan or of user boxes (docs/halo.md).

    halo = plan.halo(1)                          # or dfft.Halo(comm, (lo, hi), 1, dtype=...)
    u = halo.empty()                             # this rank's box grown by the widths
    u[halo.interior] = my_block                  # the plan's input block
    halo.exchange(u)                             # fills the halo in place (collective)

On a cuda plan (or with backend="cuda") the arrays are device arrays (cupy, or any array with
__cuda_array_interface__) on the halo's GPU: packed and unpacked there, handed to a CUDA-aware
MPI as they are, or staged through host memory (``halo.staging``).

Cells beyond the ends of a non-periodic axis are never written; with ``corners=False`` the edge
and corner regions (outside the box along two or more axes) are not written either. Any width
works: deeper than the neighbouring block, or than the global array (a periodic axis wraps as
numpy.pad(mode="wrap") does).
"""

import numpy as np

from . import _dfft


def _per_axis(v, d, name, kind=int):
    """One value for every axis, or one per axis -> a list of d values."""
    if v is None:
        return None
    if np.ndim(v) == 0:
        return [kind(v)] * d
    v = [kind(x) for x in v]
    if len(v) != d:
        raise ValueError(f"{name} needs one entry per axis ({d}), got {len(v)}")
    return v


class Halo:
    """Halo exchange on this rank's box (collective to build and to exchange).

    comm: mpi4py communicator; box: this rank's (lo, hi) or (lo, hi, order) (global axes of the
    memory order, slowest first); the boxes of all ranks tile a global array. width: cells below
    the box (one number for every axis, or one per axis); width_hi: cells above (None: as width);
    periodic: True, False or one per axis; corners: also fill the edges and corners; dtype:
    float32, float64, complex64 or complex128; method: 'p2p-type' (MPI datatypes over the array)
    or 'p2p-sync' (pieces packed per peer), 'nccl' on 'cuda' (packed, moved by NCCL; one GPU
    per rank); backend: 'cpu' (numpy arrays) or 'cuda' (device arrays on GPU `device`, -1: local
    rank modulo visible GPUs; p2p-sync, the default there, or nccl). Widths, periodic, corners,
    method and backend are the same on every rank.
    """

    def __init__(self, comm, box, width, width_hi=None, periodic=True, corners=False,
                 dtype=np.float64, method=None, backend="cpu", device=-1):
        if len(box) not in (2, 3):
            raise ValueError(f"box must be (lo, hi) or (lo, hi, order), got {box!r}")
        lo, hi = (tuple(int(v) for v in x) for x in box[:2])
        order = tuple(int(v) for v in box[2]) if len(box) == 3 else ()
        d = len(lo)
        self.dtype = np.dtype(dtype)
        self.comm = comm
        wlo = _per_axis(width, d, "width")
        whi = _per_axis(width_hi, d, "width_hi") or wlo
        per = _per_axis(periodic, d, "periodic", bool)
        self.backend = str(backend)
        if method is None:
            method = "p2p-sync" if self.backend == "cuda" else "p2p-type"
        self._impl = _dfft._Halo(comm, (lo, hi, order), wlo, whi, per, bool(corners),
                                 self.dtype.name, str(method), self.backend, int(device))
        info = self._impl.layout()
        self.staging = info["staging"]             # "cuda-aware" or "host" (docs/halo.md)
        self.lo = tuple(info["lo"])            # the grown box (lo may be negative)
        self.hi = tuple(info["hi"])
        self.order = tuple(info["order"])
        self.global_shape = tuple(info["shape"])
        self.width_lo, self.width_hi = tuple(wlo), tuple(whi)
        empty = any(h <= l for l, h in zip(lo, hi))
        ext = [0 if empty else h - l for l, h in zip(self.lo, self.hi)]
        self.shape = tuple(ext[a] for a in self.order)   # the local array, in memory order
        # The box inside the halo'd array, as slices of the local array (memory order).
        self.interior = tuple(slice(self.width_lo[a], ext[a] - self.width_hi[a]) if not empty
                              else slice(0, 0) for a in self.order)

    def empty(self):
        """A zeroed local array of this rank's halo'd shape and dtype (cupy on the cuda
        backend)."""
        if self.backend == "cuda":
            import cupy
            return cupy.zeros(self.shape, self.dtype)
        return np.zeros(self.shape, self.dtype)

    def exchange(self, a):
        """Fills the halo of `a` (a writeable C-contiguous array of `shape` and `dtype`: numpy on
        the cpu backend, a device array on cuda) in place and returns it. An array that does not
        fit on any rank is refused on every rank (InvalidArgument) before anything is read or
        written."""
        problem, address, size = _check_array(a, self.shape, self.dtype, self.backend == "cuda")
        self._impl.exchange(address if not problem else 0, size if not problem else 0, problem)
        return a


def _check_array(a, shape, dtype, on_device):
    """(why the array cannot be used or "", its data address, its element count)."""
    from . import _c_strides  # the package's check of a device array's layout
    if on_device:
        cai = getattr(a, "__cuda_array_interface__", None)
        if cai is None:
            return f"the array is a {type(a).__name__}, not a device array (__cuda_array_interface__)", 0, 0
        got_shape, got_dtype = tuple(cai["shape"]), np.dtype(cai["typestr"])
        size = int(np.prod(got_shape)) if got_shape else 1
        strides = cai.get("strides")
        contiguous = strides is None or tuple(strides) == _c_strides(got_shape, got_dtype)
        if got_dtype != dtype:
            return f"the array's dtype is {got_dtype}, the halo's {dtype}", 0, 0
        if not contiguous or cai["data"][1]:
            return "the device array must be C-contiguous and writeable", 0, 0
        if got_shape != tuple(shape) and size >= int(np.prod(shape)):
            return f"the array's shape is {got_shape}, the halo'd box's {tuple(shape)}", 0, 0
        return "", int(cai["data"][0]), size
    if not isinstance(a, np.ndarray):
        return f"the array is a {type(a).__name__}, not a numpy array (this halo is on the cpu backend)", 0, 0
    if a.dtype != dtype:
        return f"the array's dtype is {a.dtype}, the halo's {dtype}", 0, 0
    if not a.flags.c_contiguous or not a.flags.writeable:
        return "the array must be C-contiguous and writeable", 0, 0
    if a.shape != tuple(shape) and a.size >= int(np.prod(shape)):
        return f"the array's shape is {a.shape}, the halo'd box's {tuple(shape)}", 0, 0
    return "", a.ctypes.data, a.size



def plan_halo(plan, width, width_hi=None, periodic=True, corners=False, side="input", dtype=None,
              method=None):
    """Halo on a plan's input (real-space) or output (spectral) block (Plan.halo), on the plan's
    backend and GPU."""
    if side not in ("input", "output"):
        raise ValueError(f"side must be 'input' or 'output', got {side!r}")
    s = plan._in if side == "input" else plan._out
    return Halo(plan.comm, (s.lo, s.hi, s.order), width, width_hi, periodic, corners,
                s.dtype if dtype is None else dtype, method, plan.backend,
                plan.device if plan.backend == "cuda" else -1)
