# SPDX-License-Identifier: MIT
"""The exception classes under dfft.Error, each provoked for real on every rank, and
Plan.memory. (MPI and FFTW failures are provoked by injection in test_injected_errors.py.)"""

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD


def all_ranks(flag):
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def test_classes_derive_from_error():
    for cls in (dfft.InvalidArgument, dfft.Unsupported, dfft.OutOfMemory, dfft.MpiError,
                dfft.LibraryError):
        assert issubclass(cls, dfft.Error)
    assert issubclass(dfft.Error, RuntimeError)


def test_bad_argument_is_invalid_argument():
    with pytest.raises(dfft.InvalidArgument, match="every size must be at least 1"):
        dfft.Plan(COMM, (17, 0, 10))


def test_gpu_method_on_cpu_is_unsupported():
    with pytest.raises(dfft.Unsupported, match="needs the CUDA backend"):
        dfft.Plan(COMM, (17, 12, 10), methods="nccl")


def test_memory_limit_is_out_of_memory_on_every_rank():
    caught = ""
    try:
        dfft.Plan(COMM, (17, 12, 10), decomposition="pencil", memory_limit_bytes=1000)
    except dfft.OutOfMemory as e:
        caught = str(e)
    assert all_ranks("1000 bytes are available" in caught and "bytes of host memory" in caught)


def test_memory_reports_host_bytes():
    plan = dfft.Plan(COMM, (17, 12, 10))
    host, device = plan.memory
    assert host > 0 and device == 0
    # The work buffers alone hold two copies of this rank's spectral block (complex double).
    n = 1
    for e in plan.output_shape:
        n *= e
    assert all_ranks(host >= 2 * 16 * n)


def test_close_frees_the_plan_on_every_rank_and_refuses_later_use():
    # A onesided plan holds an MPI window, freed collectively: close() frees it on every rank at
    # the same point, whatever references the garbage collector still sees.
    with dfft.Plan(MPI.COMM_WORLD, (9, 6, 5), methods="onesided", effort="estimate", fftw_wisdom=False) as p:
        a = np.ones(p.input_shape, p.input_dtype)
        p.forward(a)
    assert p.closed
    with pytest.raises(ValueError, match="closed"):
        p.forward(a)
    with pytest.raises(ValueError, match="closed"):
        p.describe()
    p.close()  # a second close does nothing
