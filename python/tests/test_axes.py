# SPDX-License-Identifier: MIT
"""axes= and padding= against numpy.fft, run under mpirun (like test_dfft.py).

axes: numpy.fft.fftn(a, axes=...) and numpy.fft.rfftn(a, axes=...) (the last listed axis
halved). padding: forward is numpy's FFT of the padded array truncated to the frequencies of
an n-point FFT; inverse zero-pads the spectrum (an even n's Nyquist mode split in halves
between +n/2 and -n/2) and takes numpy's inverse FFT of the padded size.
"""

import numpy as np
import pytest
from mpi4py import MPI

import dfft
from test_dfft import max_rel

COMM = MPI.COMM_WORLD
TOL = {"double": 1e-11, "float": 5e-5}


def kept(n, m):
    """Indices of an m-point spectrum that an n-point spectrum keeps (numpy's frequencies)."""
    return np.r_[0:(n + 1) // 2, m - n // 2:m]


def truncate(full, shape, axes, halved=None):
    out = full
    for a in axes:
        if a == halved:
            out = np.take(out, np.arange(shape[a] // 2 + 1), axis=a)
        else:
            out = np.take(out, kept(shape[a], full.shape[a]), axis=a)
    return out


def zero_pad(spec, pshape, axes):
    """Full (not halved) spectrum of the n grid -> the padded grid's spectrum."""
    out = spec
    for a in axes:
        n, m = out.shape[a], pshape[a]
        if n == m:
            continue
        shp = list(out.shape)
        shp[a] = m
        big = np.zeros(shp, dtype=complex)
        idx = [slice(None)] * out.ndim
        src = [slice(None)] * out.ndim
        idx[a], src[a] = kept(n, m), np.arange(n)
        big[tuple(idx)] = out[tuple(src)]
        if n % 2 == 0:  # the Nyquist mode, now at m - n/2: half of it stays, half goes to +n/2
            at = [slice(None)] * out.ndim
            at[a] = m - n // 2
            half = big[tuple(at)] / 2
            big[tuple(at)] = half
            at[a] = n // 2
            big[tuple(at)] = half
        out = big
    return out


CASES = [((17, 12, 10), (1, 2)), ((16, 12, 10), (0,)), ((17, 12, 10), (2, 0)),
         ((16, 12, 10), (0, 2, 1)), ((16, 12, 10), (-1, 0))]


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "slab-1d2d", "pencil"])
@pytest.mark.parametrize("shape,axes", CASES)
def test_axes_match_numpy(shape, axes, decomposition, precision):
    rng = np.random.default_rng(3)
    g = rng.standard_normal(shape)
    c = g + 1j * rng.standard_normal(shape)
    tol = TOL[precision]
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform="c2c", axes=axes,
                     precision=precision, effort="estimate")
    uk = plan.forward(plan.local_input(c))
    assert max_rel(uk, plan.local_output(np.fft.fftn(c, axes=axes))) < tol
    assert max_rel(plan.inverse(uk), plan.local_input(c)) < tol
    r2c = dfft.Plan(COMM, shape, decomposition=decomposition, axes=axes, precision=precision,
                    effort="estimate", norm="ortho")
    want = np.fft.rfftn(g, axes=axes, norm="ortho")
    assert r2c.spectral_shape == want.shape
    uk = r2c.forward(r2c.local_input(g))
    assert max_rel(uk, r2c.local_output(want)) < tol
    assert max_rel(r2c.inverse(uk), r2c.local_input(g)) < tol


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
@pytest.mark.parametrize("shape,axes", [((17, 12, 10), (1, 2)), ((16, 12, 10), (0, 2, 1)),
                                        ((16, 12, 10), (2, 0))])
def test_padding_matches_numpy(shape, axes, decomposition, norm):
    ax = [a % len(shape) for a in axes]
    plan = dfft.Plan(COMM, shape, decomposition=decomposition, transform="c2c", axes=axes,
                     padding=1.5, norm=norm, effort="estimate")
    pshape = tuple(n * 3 // 2 if a in ax else n for a, n in enumerate(shape))
    assert plan.physical_shape == pshape and plan.shape == shape
    rng = np.random.default_rng(4)
    p = rng.standard_normal(pshape) + 1j * rng.standard_normal(pshape)
    uk = plan.forward(plan.local_input(p))
    want = truncate(np.fft.fftn(p, axes=ax, norm=norm), shape, ax)
    assert max_rel(uk, plan.local_output(want)) < 1e-11
    s = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    back = plan.inverse(plan.local_output(s))
    assert max_rel(back, plan.local_input(np.fft.ifftn(zero_pad(s, pshape, ax), axes=ax, norm=norm))) < 1e-11
    # r2c: the last listed axis halved, and padded too.
    r2c = dfft.Plan(COMM, shape, decomposition=decomposition, axes=axes, padding=1.5, norm=norm,
                    effort="estimate")
    g = p.real.copy()
    uk = r2c.forward(r2c.local_input(g))
    want = truncate(np.fft.rfftn(g, axes=ax, norm=norm), shape, ax, halved=ax[-1])
    assert max_rel(uk, r2c.local_output(want)) < 1e-11
    # Inverse of the spectrum of a real field on the n grid: its interpolation on the padded one.
    u = rng.standard_normal(shape)
    back = r2c.inverse(r2c.local_output(np.fft.rfftn(u, axes=ax)))
    full = np.fft.fftn(u, axes=ax)
    want = np.fft.ifftn(zero_pad(full, pshape, ax), axes=ax, norm=norm).real
    assert max_rel(back, r2c.local_input(want)) < 1e-11


def test_bad_axes_refused():
    with pytest.raises(ValueError):
        dfft.Plan(COMM, (9, 8, 7), axes=())
    with pytest.raises(dfft.InvalidArgument, match="listed twice"):
        dfft.Plan(COMM, (9, 8, 7), axes=(0, -3), effort="estimate")
    with pytest.raises(dfft.InvalidArgument, match="out of range"):
        dfft.Plan(COMM, (9, 8, 7), axes=(3,), effort="estimate")
    with pytest.raises(dfft.InvalidArgument, match="not transformed"):
        dfft.Plan(COMM, (9, 8, 7), axes=(1, 2), padding=(1.5, 1, 1), effort="estimate")
