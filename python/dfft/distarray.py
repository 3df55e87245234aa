# SPDX-License-Identifier: MIT
"""dfft.DistArray: a distributed array that knows its layout (docs/python.md, "DistArray").

Each rank holds one box of a global array, stored C-contiguously in the box's memory order
(the layouts of dfft plans and of the box API). A leading component axis makes vector fields:
components=(3,) gives local arrays of shape (3,) + local shape, the layout applying to the
trailing axes. Redistribution between layouts runs dfft's Reshape; files are written and read
in parallel (HDF5 through h5py built with MPI, .npy through dfft.io, MPI-IO).

Named as mpi4py-fft's DistArray, which it replaces for dfft users; unlike that one it is not a
numpy subclass: ``arr.local`` is the plain numpy array, and indexing a DistArray uses global
indices.
"""

import numpy as np

from . import _dfft


class DistArray:
    """This rank's part of a distributed array.

    DistArray(plan, side="input"): the layout of one side of a plan ("input": real space,
    "output": spectral space). DistArray.from_box(comm, shape, lo, hi, order=None, dtype=...):
    any layout (this rank's box; the boxes of all ranks tile the global array).
    components: leading axes in front of the distributed ones (e.g. (3,) for a vector field).
    """

    def __init__(self, plan, side="input", components=(), dtype=None):
        if side not in ("input", "output"):
            raise ValueError(f"side must be 'input' or 'output', got {side!r}")
        s = plan._in if side == "input" else plan._out
        if plan.options["batch"] != 1:
            raise ValueError("DistArray takes plans without a batch; use components= for "
                             "several fields")
        shape = plan.shape if side == "input" else plan.spectral_shape
        self._init(plan._comm, shape, s.lo, s.hi, s.order, dtype or s.dtype, components)

    @classmethod
    def from_box(cls, comm, shape, lo, hi, order=None, dtype=np.float64, components=()):
        self = cls.__new__(cls)
        self._init(comm, shape, lo, hi, order, dtype, components)
        return self

    def _init(self, comm, shape, lo, hi, order, dtype, components):
        self.comm = comm
        self.global_shape = tuple(int(n) for n in shape)
        d = len(self.global_shape)
        self.lo, self.hi = tuple(int(v) for v in lo), tuple(int(v) for v in hi)
        self.order = tuple(range(d)) if order is None or len(order) == 0 else tuple(order)
        if len(self.lo) != d or len(self.hi) != d or sorted(self.order) != list(range(d)):
            raise ValueError(f"box ({self.lo}, {self.hi}) with order {self.order} does not "
                             f"fit a {d}-dimensional array")
        self.components = tuple(int(c) for c in components)
        extent = [max(h - l, 0) for l, h in zip(self.lo, self.hi)]
        self.local = np.zeros(self.components + tuple(extent[a] for a in self.order), dtype)

    # Geometry ---------------------------------------------------------------------------
    @property
    def dtype(self):
        return self.local.dtype

    @property
    def global_slices(self):
        """Slices (global axis order, components excluded) of this rank's box."""
        return tuple(slice(l, h) for l, h in zip(self.lo, self.hi))

    @property
    def layout(self):
        """(lo, hi, order) of this rank: the box API's layout (dfft.Plan input_layout=...)."""
        return (self.lo, self.hi, self.order)

    def global_view(self):
        """The local data as a view in global axis order: components + box extents."""
        nc = len(self.components)
        axes = list(range(nc)) + [nc + self.order.index(g) for g in range(len(self.order))]
        return self.local.transpose(axes)

    def _local_index(self, key):
        """Global index (components first, then the distributed axes) -> index of global_view.
        Slices select the owned part of their range (possibly empty); an integer index of a
        distributed axis that this rank does not own raises IndexError."""
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            fill = len(self.components) + len(self.global_shape) - (len(key) - 1)
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        nc = len(self.components)
        out = list(key[:nc])
        for a, k in enumerate(key[nc:]):
            lo, hi, n = self.lo[a], self.hi[a], self.global_shape[a]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step < 0:
                    raise ValueError("DistArray: negative slice steps are not supported")
                first = start if start >= lo else start + -(-(lo - start) // step) * step
                last = min(stop, hi)
                out.append(slice(first - lo, max(last - lo, first - lo), step))
            else:
                i = int(k) + (n if int(k) < 0 else 0)
                if not lo <= i < hi:
                    raise IndexError(f"global index {int(k)} of axis {a} is not on this rank "
                                     f"(it holds [{lo}, {hi}))")
                out.append(i - lo)
        return tuple(out)

    def __getitem__(self, key):
        return self.global_view()[self._local_index(key)]

    def __setitem__(self, key, value):
        self.global_view()[self._local_index(key)] = value

    def fill_from_global(self, fn):
        """Set the local data from fn(*global index grids) (each grid broadcastable over the
        box, global axis order); fn returns components + box shape, or box shape when there
        are no components."""
        grids = np.ix_(*[np.arange(l, h) for l, h in zip(self.lo, self.hi)])
        self.global_view()[...] = fn(*grids)
        return self

    def copy_empty(self, dtype=None):
        """A new zero DistArray on the same layout."""
        return DistArray.from_box(self.comm, self.global_shape, self.lo, self.hi, self.order,
                                  dtype or self.dtype, self.components)

    # Redistribution ---------------------------------------------------------------------
    def redistribute(self, to, side="input", method="a2a-sync"):
        """This array moved to another layout (collective): `to` is a DistArray (filled and
        returned), a dfft.Plan (its `side`) or this rank's (lo, hi) or (lo, hi, order)."""
        if isinstance(to, DistArray):
            out = to
        elif hasattr(to, "_in") and hasattr(to, "_out"):
            out = DistArray(to, side, self.components, self.dtype)
        else:
            out = DistArray.from_box(self.comm, self.global_shape, to[0], to[1],
                                     to[2] if len(to) > 2 else None, self.dtype, self.components)
        if out.global_shape != self.global_shape or out.components != self.components:
            raise ValueError(f"redistribute: shapes differ ({self.components}+"
                             f"{self.global_shape} vs {out.components}+{out.global_shape})")
        if out.dtype != self.dtype:
            raise ValueError(f"redistribute: dtypes differ ({self.dtype} vs {out.dtype})")
        r = _dfft._Reshape(self.comm, self.layout, out.layout, self.dtype.name, method)
        src, dst = self._fields(), out._fields()
        for c in range(src.shape[0]):
            r.execute(src[c].ctypes.data, dst[c].ctypes.data)
        return out

    # Transforms -------------------------------------------------------------------------
    def forward(self, plan, out=None):
        """plan.forward of every component: a DistArray on the plan's output side."""
        return self._transform(plan, True, out)

    def inverse(self, plan, out=None):
        return self._transform(plan, False, out)

    def _transform(self, plan, forward, out):
        src, dst = ("input", "output") if forward else ("output", "input")
        side = plan._in if forward else plan._out
        fits = self.layout == (side.lo, side.hi, side.order) and self.local.shape[
            len(self.components):] == side.shape
        if not self.comm.allreduce(fits, op=_mpi().LAND):
            raise ValueError(f"this array is not on the plan's {src} layout on every rank; "
                             f"redistribute(plan, '{src}') first")
        if out is None:
            out = DistArray(plan, dst, self.components)
        a, b = self._fields(), out._fields()
        run = plan.forward if forward else plan.inverse
        for c in range(a.shape[0]):
            run(a[c], out=b[c])
        return out

    # Files ------------------------------------------------------------------------------
    def write_hdf5(self, path, name, mode="a"):
        """Write the global array to dataset `name` of HDF5 file `path` (collective; h5py
        built with MPI). The dataset has shape components + global shape."""
        h5py = _h5py()
        with h5py.File(path, mode, driver="mpio", comm=self.comm) as f:
            if name in f:
                del f[name]
            d = f.create_dataset(name, self.components + self.global_shape, self.dtype)
            if self.local.size:
                d[self._file_index()] = self.global_view()

    def read_hdf5(self, path, name):
        """Fill this array from dataset `name` (any rank count and layout may have written it)."""
        h5py = _h5py()
        with h5py.File(path, "r", driver="mpio", comm=self.comm) as f:
            d = f[name]
            want = self.components + self.global_shape
            if tuple(d.shape) != want:
                raise ValueError(f"{path}:{name} has shape {d.shape}, this array {want}")
            if self.local.size:
                self.global_view()[...] = d[self._file_index()]
        return self

    def write_npy(self, path):
        """Write the global array as one .npy file (collective, MPI-IO)."""
        _write_npy(self, path)

    def read_npy(self, path):
        """Fill this array from a .npy file of its global shape (collective, MPI-IO)."""
        _read_npy(self, path)
        return self

    def _fields(self):
        """The local data as (number of components,) + local shape: one field per row."""
        n = int(np.prod(self.components, dtype=np.int64))
        return self.local.reshape((n,) + self.local.shape[len(self.components):])

    def _file_index(self):
        return tuple(slice(None) for _ in self.components) + self.global_slices


def _mpi():
    from mpi4py import MPI
    return MPI


def _h5py():
    import os
    import sys
    if "h5py" not in sys.modules:
        # Debian's h5py loads its MPI build only under mpirun (it looks for OMPI_COMM_WORLD_SIZE
        # or MPI_LOCALNRANKS) unless told to always: a 1-process run started without mpirun
        # would otherwise get the serial build.
        os.environ.setdefault("H5PY_ALWAYS_USE_MPI", "1")
    try:
        import h5py
    except ImportError as e:
        raise ImportError("DistArray HDF5 files need h5py built with MPI (Debian: "
                          "python3-h5py-mpi; scripts/install-deps.sh installs it)") from e
    if not h5py.get_config().mpi:
        raise ImportError("this h5py is its serial build; parallel HDF5 needs h5py built with "
                          "MPI (Debian: python3-h5py-mpi, which a process started without "
                          "mpirun loads when H5PY_ALWAYS_USE_MPI is set before h5py is imported)")
    return h5py


# .npy through dfft.io (docs/io.md): the components are the file's leading axes.
def _npy_layout(arr):
    nc = len(arr.components)
    box = ((0,) * nc + tuple(arr.lo), tuple(arr.components) + tuple(arr.hi))
    return box, tuple(range(nc)) + tuple(nc + a for a in arr.order)


def _write_npy(arr, path):
    from . import io
    box, order = _npy_layout(arr)
    io.write_npy(arr.comm, path, arr.local, shape=arr.components + arr.global_shape, box=box, order=order)


def _read_npy(arr, path):
    from . import io
    h = io.read_npy_header(arr.comm, path)  # the same on every rank
    want = arr.components + arr.global_shape
    if h.shape != want or h.dtype != arr.dtype:
        raise ValueError(f"{path} holds {h.dtype} {h.shape}; this array is {arr.dtype} {want}")
    box, order = _npy_layout(arr)
    io.read_npy(arr.comm, path, box=box, order=order, out=arr.local)
