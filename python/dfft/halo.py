# SPDX-License-Identifier: MIT
"""Halo (ghost cell) exchange on the blocks of a plan or of user boxes (docs/halo.md).

    halo = plan.halo(1)                          # or dfft.Halo(comm, (lo, hi), 1, dtype=...)
    u = halo.empty()                             # this rank's box grown by the widths
    u[halo.interior] = my_block                  # the plan's input block
    halo.exchange(u)                             # fills the halo in place (collective)

Cells beyond the ends of a non-periodic axis are never written; with ``corners=False`` the edge
and corner regions (outside the box along two or more axes) are not written either. Any width
works: deeper than the neighbouring block, or than the global array (a periodic axis wraps as
numpy.pad(mode="wrap") does).
"""

import numpy as np

from . import _dfft
from ._dfft import Unsupported


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
    or 'p2p-sync' (pieces packed per peer). Widths, periodic, corners and method are the same on
    every rank. Host (numpy) arrays only.
    """

    def __init__(self, comm, box, width, width_hi=None, periodic=True, corners=False,
                 dtype=np.float64, method="p2p-type"):
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
        self._impl = _dfft._Halo(comm, (lo, hi, order), wlo, whi, per, bool(corners),
                                 self.dtype.name, str(method))
        info = self._impl.layout()
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
        """A zeroed local array of this rank's halo'd shape and dtype."""
        return np.zeros(self.shape, self.dtype)

    def exchange(self, a):
        """Fills the halo of `a` (a writeable C-contiguous numpy array of `shape` and `dtype`)
        in place and returns it. An array that does not fit on any rank is refused on every
        rank (InvalidArgument) before anything is read or written."""
        problem = ""
        if not isinstance(a, np.ndarray):
            problem = f"the array is a {type(a).__name__}, not a numpy array (host memory only)"
        elif a.dtype != self.dtype:
            problem = f"the array's dtype is {a.dtype}, the halo's {self.dtype}"
        elif not a.flags.c_contiguous or not a.flags.writeable:
            problem = "the array must be C-contiguous and writeable"
        elif a.shape != self.shape and a.size >= int(np.prod(self.shape)):
            problem = f"the array's shape is {a.shape}, the halo'd box's {self.shape}"
        address, count = (a.ctypes.data, a.size) if not problem else (0, 0)
        self._impl.exchange(address, count, problem)
        return a


def plan_halo(plan, width, width_hi=None, periodic=True, corners=False, side="input", dtype=None,
              method="p2p-type"):
    """Halo on a plan's input (real-space) or output (spectral) block (Plan.halo)."""
    if plan.backend != "cpu":
        raise Unsupported("dfft: halo exchange: device arrays are not exchanged yet; use a cpu plan")
    if side not in ("input", "output"):
        raise ValueError(f"side must be 'input' or 'output', got {side!r}")
    s = plan._in if side == "input" else plan._out
    return Halo(plan.comm, (s.lo, s.hi, s.order), width, width_hi, periodic, corners,
                s.dtype if dtype is None else dtype, method)
