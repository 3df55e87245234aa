# SPDX-License-Identifier: MIT
"""Every C++ Options field reaches a dfft.Plan from Python, and the plans it makes compute the
right transform (numpy.fft on odd sizes, 1-4 ranks under mpirun)."""

import inspect
import os

import numpy as np
import pytest
from mpi4py import MPI

import dfft

COMM = MPI.COMM_WORLD
SHAPE = (9, 6, 5)
FAST = dict(effort="estimate", fftw_wisdom=False)


def table_fields():
    """Field names of dfft's option table (its C++ test checks it holds every Options field)."""
    return [f["name"] for f in dfft._dfft.option_fields()]


def test_every_option_field_has_a_python_keyword():
    fields = table_fields()
    assert len(fields) >= 30, fields
    assert sorted(dfft.OPTION_KEYWORDS) == sorted(fields)
    params = inspect.signature(dfft.Plan.__init__).parameters
    unknown = [k for k in set(dfft.OPTION_KEYWORDS.values()) if k not in params]
    assert not unknown, f"OPTION_KEYWORDS names keywords dfft.Plan lacks: {unknown}"
    groups = {f["group"] for f in dfft._dfft.option_fields()}
    assert groups == {"problem", "decomposition", "exchange", "overlap", "tuning", "device", "memory"}
    assert groups <= set(params), "every group is a keyword of dfft.Plan"


def test_plan_keywords_are_the_table_fields():
    """dfft.Plan's keywords are the table's fields, the groups and the arguments that are not
    options; every field the extension does not take on its own goes through extra()."""
    not_options = {"self", "comm", "shape", "precision", "input_layout", "output_layout"}
    params = set(inspect.signature(dfft.Plan.__init__).parameters) - not_options
    groups = {f["group"] for f in dfft._dfft.option_fields()}
    assert params == set(dfft.OPTION_KEYWORDS.values()) | groups
    positional = set(dfft._options.POSITIONAL)
    assert positional <= set(table_fields()), "POSITIONAL names a field the table lacks"
    assert set(dfft._options.EXTRA_FIELDS) | positional == set(table_fields())


def test_plan_options_report_every_field():
    plan = dfft.Plan(COMM, SHAPE, **FAST)
    assert sorted(plan.options) == sorted(table_fields())


# group keywords -> what plan.options must then hold
GROUPED = [
    (dict(exchange=dict(methods=["p2p-pipelined"], codec="fp32", chunks=3)),
     dict(methods=["p2p-pipelined"], codec="fp32", chunks=3)),
    (dict(device=dict(backend="cpu", threads=2), overlap=dict(overlap=2, adapt=False)),
     dict(backend="cpu", threads=2, overlap=2, adapt=False)),
    (dict(decomposition=dict(decomposition="pencil", variant="realigned")),
     dict(decomposition="pencil", variant="realigned")),
    (dict(problem=dict(norm="ortho", batch=2), memory=dict(memory_limit_bytes=1 << 40)),
     dict(norm="ortho", batch=2, memory_limit_bytes=1 << 40)),
    (dict(tuning=dict(tune="heuristic")), dict(tune="heuristic")),
    (dict(codec="fp16", exchange=dict(chunks=2)), dict(codec="fp16", chunks=2)),  # flat and grouped
]


@pytest.mark.parametrize("given,want", GROUPED, ids=[",".join(g) for g, _ in GROUPED])
def test_grouped_keywords_reach_the_plan(given, want):
    plan = dfft.Plan(COMM, SHAPE, **FAST, **given)
    assert {k: plan.options[k] for k in want} == want


@pytest.mark.parametrize("given,words", [
    (dict(exchange=dict(backend="cuda")), ["exchange", "backend"]),
    (dict(device=dict(codec="fp16")), ["device", "codec"]),
    (dict(problem=dict(nonsense=1)), ["problem", "nonsense"]),
    (dict(codec="fp16", exchange=dict(codec="fp32")), ["codec", "twice"]),
])
def test_grouped_keywords_refuse_a_key_outside_the_group(given, words):
    with pytest.raises(ValueError) as e:
        dfft.Plan(COMM, SHAPE, **FAST, **given)
    assert all(w in str(e.value) for w in words), str(e.value)


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
    (dict(input_halo=1), dict(input_halo=([1, 1, 1], [1, 1, 1]))),
    (dict(output_halo=[0, 1, 2]), dict(output_halo=([0, 1, 2], [0, 1, 2]))),
    (dict(input_halo=([1, 0, 0], [0, 0, 3])), dict(input_halo=([1, 0, 0], [0, 0, 3]))),
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


@pytest.mark.skipif(COMM.size < 2, reason="one rank has nothing to choose")
def test_a_plan_without_options_runs_the_tuned_plan(monkeypatch):
    """The tuner writes the machine's default wisdom file (DFFT_WISDOM names it here) without being
    given a file; a plan made without options then runs that choice and says so; with
    DFFT_WISDOM=off it runs the model's choice."""
    path = COMM.bcast(os.path.join("/tmp", f"dfft-pytest-default-wisdom-{os.getpid()}.json"))
    monkeypatch.setenv("DFFT_WISDOM", path)
    try:
        tuned = dfft.Plan(COMM, SHAPE, tune="measure", **FAST)
        assert tuned.tune_report["wisdom_written"] and tuned.tune_report["wisdom_file"] == path
        plain = dfft.Plan(COMM, SHAPE)
        assert f"from wisdom {path}" in plain.describe(), plain.describe()
        for field in ("decomposition", "variant", "methods", "grid", "chunks", "overlap"):
            assert plain.options[field] == tuned.options[field], field
        g = np.random.default_rng(3).standard_normal(SHAPE)
        assert np.allclose(plain.forward(plain.local_input(g)), plain.local_output(np.fft.rfftn(g)))
        monkeypatch.setenv("DFFT_WISDOM", "off")
        model = dfft.Plan(COMM, SHAPE)
        assert "from wisdom" not in model.describe() and "predicted by the model" in model.describe()
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
