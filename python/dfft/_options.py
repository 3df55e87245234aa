# SPDX-License-Identifier: MIT
"""The keywords of dfft.Plan that map onto dfft::Options fields, read from the library's option
table (dfft._dfft.option_fields()): OPTION_KEYWORDS names, for every C++ Options field, the
dfft.Plan keyword that sets it; grouped() turns the group keywords (exchange=dict(codec="fp16"))
into those keywords.
"""

from . import _dfft

# The rows of dfft's option table (include/dfft/option_fields.hpp; docs/options.md), by field.
FIELDS = {f["name"]: f for f in _dfft.option_fields()}
GROUPS = tuple(dict.fromkeys(f["group"] for f in FIELDS.values()))

# Both FFTW wisdom fields come from one keyword: True / False / a directory.
OPTION_KEYWORDS = {name: "fftw_wisdom" if name == "fftw_wisdom_dir" else name for name in FIELDS}

# The fields dfft.Plan hands the extension as arguments of their own; every other field of the
# table travels in the dict of extra(), taken from the table, so a new field needs no line there.
POSITIONAL = ("decomposition", "variant", "methods", "transform", "grid", "norm", "r2r", "backend",
              "effort", "fftw_wisdom", "fftw_wisdom_dir", "device", "memory_limit_bytes")
EXTRA_FIELDS = tuple(name for name in FIELDS if name not in POSITIONAL)


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


_SCALAR = {"int": int, "int64": int, "pointer": int, "number": float, "bool": bool, "text": str,
           "enum": str, "halo": tuple}


def _convert(name, value):
    """A keyword's value as the extension takes it, by the field's type in the table."""
    if name == "axes":
        return axes_list(value)
    kind = FIELDS[name]["type"]
    if kind.startswith("list of "):
        one = _SCALAR[kind[len("list of "):]]
        if isinstance(value, (str, int, float)):
            value = [value]
        return [one(v) for v in value]
    return _SCALAR[kind](value)


def extra(**given):
    """The given (not None) keywords as the extension's dict of Options fields."""
    return {k: _convert(k, v) for k, v in given.items() if v is not None}


def grouped(keywords, defaults):
    """The keywords of dfft.Plan with the group keywords (a dict per group name: problem=,
    decomposition=, exchange=, overlap=, tuning=, device=, memory=) spread into the flat ones.

    `keywords`: every keyword as given; `defaults`: dfft.Plan's defaults. A key outside its group,
    or a field given both flat and in its group with different values, is refused."""
    out = dict(keywords)
    for group in GROUPS:
        options = keywords.get(group)
        if not isinstance(options, dict):
            continue
        # decomposition, overlap and device are fields as well as groups: the dict is the group.
        out[group] = defaults.get(group)
        for key, value in options.items():
            if FIELDS.get(key, {}).get("group") != group:
                members = ", ".join(n for n, f in FIELDS.items() if f["group"] == group)
                raise ValueError(f"dfft.Plan: {group}= has no option {key!r}; the {group} options are: "
                                 f"{members}")
            keyword = OPTION_KEYWORDS[key]
            flat = keywords.get(keyword, defaults.get(keyword)) if keyword != group else defaults.get(keyword)
            if flat != defaults.get(keyword) and flat != value:
                raise ValueError(f"dfft.Plan: {key} given twice, as {keyword}={flat!r} and in {group}=")
            out[keyword] = value
    return out
