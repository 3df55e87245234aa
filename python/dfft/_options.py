# SPDX-License-Identifier: MIT
"""The keywords of dfft.Plan that map onto dfft::Options fields (include/dfft/types.hpp).

OPTION_KEYWORDS names, for every C++ Options field, the dfft.Plan keyword that sets it;
python/tests/test_options.py fails when the header gains a field this table lacks.
"""

OPTION_KEYWORDS = {
    "decomposition": "decomposition",
    "variant": "variant",
    "transform": "transform",
    "r2r": "r2r",
    "grid": "grid",
    "methods": "methods",
    "effort": "effort",
    "fftw_wisdom": "fftw_wisdom",      # True / False / a directory: both fields from one keyword
    "fftw_wisdom_dir": "fftw_wisdom",
    "backend": "backend",
    "norm": "norm",
    "codec": "codec",
    "tolerance": "tolerance",
    "onesided_sync": "onesided_sync",
    "chunks": "chunks",
    "in_flight": "in_flight",
    "overlap": "overlap",
    "adapt": "adapt",
    "threads": "threads",
    "max_message_bytes": "max_message_bytes",
    "device": "device",
    "staging": "staging",
    "batch": "batch",
    "in_place": "in_place",
    "transposed_out": "transposed_out",
    "tune": "tune",
    "wisdom_file": "wisdom_file",
    "tune_budget_s": "tune_budget_s",
    "ranks_per_node": "ranks_per_node",
    "memory_limit_bytes": "memory_limit_bytes",
    "batches": "batches",
    "stream": "stream",
    "user_workspace": "user_workspace",
    "axes": "axes",
    "padding": "padding",
    "input_halo": "input_halo",
    "output_halo": "output_halo",
}


def axes_list(axes):
    """None: every axis (an empty list); an int or a non-empty sequence of ints otherwise."""
    if axes is None:
        return []
    if isinstance(axes, int):
        return [axes]
    axes = [int(a) for a in axes]
    if not axes:
        raise ValueError("axes must list at least one axis (None transforms every axis)")
    return axes


def padding_per_axis(padding, ndim, axes):
    """None: none; one number: that factor on every transformed axis; else one per axis."""
    if padding is None:
        return None
    if isinstance(padding, (int, float)):
        axes = axes_list(axes)
        on = set(a % ndim for a in axes) if axes else set(range(ndim))
        return [float(padding) if a in on else 1.0 for a in range(ndim)]
    return [float(f) for f in padding]

def halo_per_axis(halo, ndim):
    """None: a dense array; one int: that width below and above the box on every axis; one int
    per axis: those widths below and above; a pair of sequences: (below, above) per axis."""
    if halo is None:
        return None
    if isinstance(halo, int):
        return ([int(halo)] * ndim, [int(halo)] * ndim)
    halo = list(halo)
    if len(halo) == 2 and not isinstance(halo[0], int):
        return ([int(w) for w in halo[0]], [int(w) for w in halo[1]])
    return ([int(w) for w in halo], [int(w) for w in halo])


_CONVERT = {
    "codec": str, "tolerance": float, "overlap": int, "adapt": bool, "threads": int,
    "chunks": int, "in_flight": int, "onesided_sync": str, "max_message_bytes": int,
    "staging": str, "batch": int, "in_place": bool, "transposed_out": bool, "tune": str, "wisdom_file": str,
    "tune_budget_s": float, "stream": int, "user_workspace": bool,
    "batches": lambda v: [int(x) for x in v],
    "ranks_per_node": lambda v: [int(v)] if isinstance(v, int) else [int(x) for x in v],
    "axes": axes_list,
    "padding": lambda v: [float(f) for f in v],  # per axis: Plan expands one factor first
    "input_halo": tuple,  # (below, above) per axis: Plan expands the other forms first
    "output_halo": tuple,
}


def extra(**given):
    """The given (not None) keywords as the extension's dict of Options fields."""
    return {k: _CONVERT[k](v) for k, v in given.items() if v is not None}
