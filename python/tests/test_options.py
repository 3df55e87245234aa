# SPDX-License-Identifier: MIT
"""Every C++ Options field reaches a dfft.Plan from Python, and the plans it makes compute the
right transform (numpy.fft on odd sizes, 1-4 ranks under mpirun)."""

import inspect
import os
import re

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
SHAPE = (9, 6, 5)
HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "dfft", "types.hpp")
FAST = dict(effort="estimate", fftw_wisdom=False)


def cpp_option_fields():
    """Field names of struct Options in the C++ header: the fields of the option groups it
    derives from (struct Options : ProblemOptions, ... { ... })."""
    text = open(HEADER).read()
    bases = re.search(r"struct Options\s*:([^{]*)\{", text).group(1)
    body = ""
    for group in re.findall(r"\w+", bases):
        body += re.search(r"struct " + group + r" \{(.*?)\n\};", text, re.S).group(1)
    fields = []
    for line in body.splitlines():
        line = line.split("//")[0].strip()
        m = re.match(r"[\w:<>,*& ]+?\s*[\s*](\w+)\s*(\{[^}]*\})?\s*(=[^;]*)?;$", line)
        if m:
            fields.append(m.group(1))
    return fields


def test_every_cpp_option_has_a_python_keyword():
    fields = cpp_option_fields()
    assert len(fields) >= 30, fields  # the parser found the struct
    missing = [f for f in fields if f not in dfft.OPTION_KEYWORDS]
    assert not missing, f"C++ Options fields without a dfft.Plan keyword: {missing}"
    params = inspect.signature(dfft.Plan.__init__).parameters
    unknown = [k for k in set(dfft.OPTION_KEYWORDS.values()) if k not in params]
    assert not unknown, f"OPTION_KEYWORDS names keywords dfft.Plan lacks: {unknown}"
    stale = [k for k in dfft.OPTION_KEYWORDS if k not in fields]
    assert not stale, f"OPTION_KEYWORDS names fields the C++ Options lack: {stale}"


def test_plan_options_report_every_field():
    plan = dfft.Plan(COMM, SHAPE, **FAST)
    assert sorted(plan.options) == sorted(cpp_option_fields())


# keyword arguments -> what plan.options must then hold
REACHES = [
    (dict(codec="fp16"), dict(codec="fp16")),
    (dict(tolerance=1e-3), dict(tolerance=1e-3)),
    (dict(overlap=2), dict(overlap=2)),
    (dict(adapt=True), dict(adapt=True)),
    (dict(threads=2), dict(threads=2)),
    (dict(methods="p2p-pipelined", chunks=3, in_flight=3), dict(chunks=3, in_flight=3)),
    (dict(methods="onesided", onesided_sync="flush"), dict(onesided_sync="flush")),
    (dict(max_message_bytes=4096), dict(max_message_bytes=4096)),
    (dict(staging="host"), dict(staging="host")),
    (dict(batch=2), dict(batch=2)),
    (dict(batches=[3]), dict(batches=[3])),
    (dict(in_place=True), dict(in_place=True)),
    (dict(transposed_out=True), dict(transposed_out=True)),
    (dict(tune="heuristic"), dict(tune="heuristic")),
    (dict(tune_budget_s=0.5), dict(tune_budget_s=0.5)),
    (dict(ranks_per_node=[1]), dict(ranks_per_node=[1])),
    (dict(memory_limit_bytes=1 << 40), dict(memory_limit_bytes=1 << 40)),
    (dict(stream=4096), dict(stream=4096)),
    (dict(norm="ortho"), dict(norm="ortho")),
    (dict(effort="measure", fftw_wisdom="/tmp"), dict(effort="measure", fftw_wisdom=True,
                                                      fftw_wisdom_dir="/tmp")),
    (dict(fftw_wisdom=False), dict(fftw_wisdom=False)),
    (dict(decomposition="pencil", variant="realigned"),
     dict(decomposition="pencil", variant="realigned")),
    (dict(transform="c2c", precision="float"), dict(transform="c2c")),
    (dict(grid=[COMM.size]), dict(grid=[COMM.size])),
    (dict(device=0), dict(device=0)),
    (dict(backend="cpu"), dict(backend="cpu")),
    (dict(transform="r2r", r2r=["dct2", "dst2", "dct2"]), dict(r2r=["dct2", "dst2", "dct2"])),
    (dict(methods="node-ring"), dict(methods=["node-ring"])),
    (dict(axes=[2, -3]), dict(axes=[2, -3])),
    (dict(transform="c2c", axes=[0, 2], padding=1.5), dict(padding=[1.5, 1.0, 1.5])),
]


@pytest.mark.parametrize("given,want", REACHES, ids=[",".join(g) for g, _ in REACHES])
def test_option_reaches_the_plan(given, want, tmp_path):
    kw = dict(FAST)
    kw.update(given)
    plan = dfft.Plan(COMM, SHAPE, **kw)
    got = {k: plan.options[k] for k in want}
    assert got == want


def test_wisdom_file_reaches_the_tuner():
    path = COMM.bcast(os.path.join("/tmp", f"dfft-pytest-wisdom-{os.getpid()}.json"))
    try:
        plan = dfft.Plan(COMM, SHAPE, tune="measure", wisdom_file=path, tune_budget_s=5, **FAST)
        assert plan.options["wisdom_file"] == path
        assert plan.tune_report["mode"] == "measure"
        assert plan.tune_report["wisdom_written"]
        again = dfft.Plan(COMM, SHAPE, tune="measure", wisdom_file=path, **FAST)
        assert again.tune_report["wisdom_hit"]
    finally:
        COMM.Barrier()
        if COMM.rank == 0 and os.path.exists(path):
            os.remove(path)


def rfftn_error(plan, g):
    """Max relative error of plan.forward against numpy, and of the round trip, all ranks."""
    out = plan.forward(plan.local_input(g))
    want = plan.local_output(np.fft.rfftn(g, axes=range(-3, 0)))
    back = plan.inverse(out)
    e1 = float(np.max(np.abs(out - want), initial=0.0))
    e2 = float(np.max(np.abs(back - plan.local_input(g)), initial=0.0))
    return COMM.allreduce(max(e1, e2), op=MPI.MAX) / np.abs(g).sum()


METHODS = ["a2a-sync", "a2a-type", "p2p-sync", "p2p-type", "onesided", "p2p-pipelined",
           "node-ring", "hierarchical", "per-peer"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("decomposition", ["slab-2d1d", "pencil"])
def test_every_exchange_method(method, decomposition):
    g = np.random.default_rng(3).standard_normal((17, 12, 10))
    plan = dfft.Plan(COMM, g.shape, decomposition=decomposition, methods=method, **FAST)
    assert plan.options["methods"] == [method] * len(plan.options["methods"])
    assert rfftn_error(plan, g) < 1e-14


@pytest.mark.parametrize("kw", [dict(threads=2), dict(overlap=2), dict(adapt=True),
                                dict(methods="p2p-pipelined", chunks=2, in_flight=1),
                                dict(max_message_bytes=256), dict(tune="heuristic"),
                                dict(ranks_per_node=[1])],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_options_compute_the_transform(kw):
    g = np.random.default_rng(4).standard_normal((17, 12, 10))
    plan = dfft.Plan(COMM, g.shape, decomposition="pencil", **FAST, **kw)
    for _ in range(3):  # adapt tries settings over the first executions
        assert rfftn_error(plan, g) < 1e-14


@pytest.mark.parametrize("codec,tol", [("fp32", 1e-6), ("bf16", 2e-2)])
def test_codec_is_used_and_bounded(codec, tol):
    g = np.random.default_rng(5).standard_normal((17, 12, 10))
    plan = dfft.Plan(COMM, g.shape, codec=codec, **FAST)
    assert plan.codec == codec
    err = rfftn_error(plan, g) * np.abs(g).sum() / np.abs(np.fft.rfftn(g)).max()
    assert err < tol
    if COMM.size > 1:
        assert err > 0  # the exchange really was coded


def test_overlap_timings_report_slices():
    g = np.random.default_rng(10).standard_normal((17, 12, 10))
    plan = dfft.Plan(COMM, g.shape, decomposition="pencil", overlap=2, **FAST)
    plan.forward(plan.local_input(g))
    t = plan.timings
    assert all({"wall", "slices"} <= set(x) for x in t)
    if COMM.size > 1:
        assert plan.info["overlap_slices"] == 2
        assert max(x["slices"] for x in t) == 2


def test_tolerance_picks_a_codec():
    plan = dfft.Plan(COMM, SHAPE, tolerance=1e-2, **FAST)
    assert plan.codec != "none"


def test_batch_option():
    g = np.random.default_rng(6).standard_normal((2, 9, 6, 5))
    plan = dfft.Plan(COMM, SHAPE, batch=2, **FAST)
    assert plan.input_shape[0] == 2 and len(plan.input_box[0]) == 4
    assert rfftn_error(plan, g) < 1e-14
    with pytest.raises(ValueError):
        plan.forward(np.zeros(plan.input_shape[1:]))


def test_batches_are_prepared():
    g = np.random.default_rng(7).standard_normal((3,) + SHAPE)
    plan = dfft.Plan(COMM, SHAPE, batches=[3], **FAST)
    out = plan.forward(np.stack([plan.local_input(x) for x in g]))
    want = [plan.local_output(np.fft.rfftn(x)) for x in g]
    err = max(float(np.max(np.abs(o - w), initial=0.0)) for o, w in zip(out, want))
    assert COMM.allreduce(err, op=MPI.MAX) < 1e-12


def test_in_place():
    g = np.random.default_rng(8).standard_normal((17, 12, 10))
    plan = dfft.Plan(COMM, g.shape, in_place=True, **FAST)
    n = g.shape[-1]
    assert plan.input_shape[-1] == 2 * (n // 2 + 1)  # FFTW's padded real layout
    buf = plan.inplace_buffer()
    x = plan.input_view(buf)
    x[..., :n] = plan.local_input(g)
    plan.forward(x, out=plan.output_view(buf))
    want = plan.local_output(np.fft.rfftn(g))
    err = float(np.max(np.abs(plan.output_view(buf) - want), initial=0.0))
    assert COMM.allreduce(err, op=MPI.MAX) < 1e-12
    plan.inverse(plan.output_view(buf), out=plan.input_view(buf))
    err = float(np.max(np.abs(plan.input_view(buf)[..., :n] - plan.local_input(g)), initial=0.0))
    assert COMM.allreduce(err, op=MPI.MAX) < 1e-12


def test_info_reports_exchanges():
    plan = dfft.Plan(COMM, (17, 12, 10), decomposition="pencil", **FAST)
    info = plan.info
    assert set(info) >= {"codec", "overlap_slices", "chunks", "in_flight", "adapting",
                         "exchange_bytes", "node_traffic", "tune_report"}
    sent = COMM.allreduce(sum(info["exchange_bytes"]), op=MPI.SUM)
    t = info["node_traffic"]
    assert sent == t["intra_node_bytes"] + t["inter_node_bytes"]


@pytest.mark.parametrize("kw,error", [(dict(codec="fp8"), dfft.Error),
                                      (dict(threads="two"), ValueError),
                                      (dict(staging="nowhere"), dfft.Error),
                                      (dict(batch=0), dfft.Error)])
def test_bad_option_values_are_refused(kw, error):
    with pytest.raises(error):
        dfft.Plan(COMM, SHAPE, **FAST, **kw)
