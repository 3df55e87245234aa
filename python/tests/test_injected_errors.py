# SPDX-License-Identifier: MIT
"""An MPI error and a library error provoked for real through the Python interface: a failing
MPI_Alltoallv and a failing FFTW planner from tests/capi/fault_hooks.c, which the test
python_injected_errors loads into the interpreter first (LD_PRELOAD) and arms here through
ctypes. Without the hooks (the plain python tests) these are skipped, unless
DFFT_FAULT_HOOKS_REQUIRED is set, where their absence fails."""

import ctypes
import os

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
_GLOBAL = ctypes.CDLL(None)
HOOKS = hasattr(_GLOBAL, "dfft_test_fail_mpi") and hasattr(_GLOBAL, "dfft_test_fail_fftw")


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


@pytest.fixture
def hooks():
    if not HOOKS:
        if os.environ.get("DFFT_FAULT_HOOKS_REQUIRED"):
            pytest.fail("the fault hooks (libdfft_fault_hooks.so) are not loaded")
        pytest.skip("needs libdfft_fault_hooks.so loaded first (LD_PRELOAD)")
    yield _GLOBAL
    _GLOBAL.dfft_test_fail_mpi(0)
    _GLOBAL.dfft_test_fail_fftw(0)


def test_failed_mpi_call_is_mpi_error_on_every_rank(hooks):
    if COMM.size == 1:
        pytest.skip("one rank exchanges nothing through MPI")
    plan = dfft.Plan(COMM, (17, 12, 10), transform="c2c", methods="a2a-sync", effort="estimate")
    x = np.ones(plan.input_shape, dtype=np.complex128)
    caught = ""
    hooks.dfft_test_fail_mpi(1)
    try:
        plan.forward(x)
    except dfft.MpiError as e:
        caught = str(e)
    hooks.dfft_test_fail_mpi(0)
    assert all_ranks("MPI_Alltoallv" in caught), caught
    # The plan runs again once MPI does: the DC term of all ones is the element count.
    y = plan.forward(x)
    total = COMM.allreduce(float(np.abs(y).max()) if y.size else 0.0, op=MPI.MAX)
    assert total == pytest.approx(17 * 12 * 10)


def test_failed_fftw_planning_is_library_error_on_every_rank(hooks):
    caught = ""
    hooks.dfft_test_fail_fftw(1)
    try:
        dfft.Plan(COMM, (17, 12, 10), transform="c2c", effort="estimate")
    except dfft.LibraryError as e:
        caught = str(e)
    hooks.dfft_test_fail_fftw(0)
    assert all_ranks("FFTW" in caught), caught
