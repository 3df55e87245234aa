#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`dfft transform` against numpy.fft as the independent reference.

Random arrays of odd shapes in all four dtypes are written with numpy.save, transformed by
`mpiexec -n NP dfft transform`, and compared with numpy.fft.rfftn / irfftn / fftn / ifftn; the
inverse must recover the input; --axes against numpy's axes=; --r2r (DCT/DST types I-IV per axis,
alone and mixed with Fourier axes) against scipy.fft.dct/dst/idct/idst. Malformed, truncated,
wrong-dtype and unwritable cases must fail with a clear message and leave no output file behind.
"""
import os
import sys

import numpy as np

from dfft_runner import Checks, Runner, parse_args

TOL = {np.float64: 1e-12, np.complex128: 1e-12, np.float32: 2e-5, np.complex64: 2e-5}

# (shape, dtype, decomposition, variant): real cases run r2c then c2r, complex ones c2c both ways.
CASES = [
    ((17, 12, 10), np.float64, "slab-2d1d", "default"),
    ((9, 7, 5), np.float64, "pencil", "realigned"),
    ((11, 13, 9), np.float64, "slab-1d2d", "realigned"),
    ((13, 9), np.float64, "slab-2d1d", "default"),
    ((5, 6, 7, 3), np.float32, "pencil", "default"),
    ((11, 10, 9), np.float32, "slab-1d2d", "default"),
    ((9, 7, 5), np.complex128, "slab-2d1d", "realigned"),
    ((6, 5, 4, 3), np.complex128, "pencil", "realigned"),
    ((7, 6, 11), np.complex64, "pencil", "default"),
]


def rel_err(got, ref):
    return float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-300))


def random_array(shape, dtype, rng):
    a = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def compare(c, run, ref_fn, path, ref_input, expect_dtype, tol, what):
    """run: CompletedProcess of dfft; the output file `path` must equal ref_fn(ref_input)."""
    c.check(run.returncode == 0, f"{what}: exit {run.returncode}: {run.stderr.strip()[:400]}")
    if run.returncode != 0:
        return None
    got = np.load(path)
    ref = ref_fn(ref_input.astype(np.complex128 if np.iscomplexobj(ref_input) else np.float64))
    c.check(got.dtype == expect_dtype, f"{what}: dtype {got.dtype}, expected {expect_dtype}")
    c.check(got.shape == ref.shape, f"{what}: shape {got.shape}, expected {ref.shape}")
    if got.shape == ref.shape:
        err = rel_err(got, ref)
        c.check(err <= tol, f"{what}: relative error {err:.2e} > {tol:.0e}")
        print(f"  {what}: relative error {err:.2e}", flush=True)
    return got


def real_case(c, r, work, shape, dtype, decomp, variant, rng):
    tag = f"{'x'.join(map(str, shape))}_{np.dtype(dtype).name}_{decomp}_{variant}"
    a = random_array(shape, dtype, rng)
    src, spec, back = (os.path.join(work, f"{tag}_{s}.npy") for s in ("a", "rfft", "back"))
    np.save(src, a)
    cdt = np.complex128 if dtype == np.float64 else np.complex64
    flags = ["--decomp", decomp, "--variant", variant, "--quiet"]
    run = r.dfft("transform", src, spec, "--transform", "r2c", *flags)
    compare(c, run, np.fft.rfftn, spec, a, cdt, TOL[dtype], f"r2c {tag} vs numpy.fft.rfftn")
    run = r.dfft("transform", spec, back, "--transform", "c2r", "--last-n", shape[-1], *flags)
    compare(c, run, lambda x: x, back, a, dtype, TOL[dtype], f"c2r(r2c(a)) {tag} recovers a")
    # numpy's own spectrum back through dfft: irfftn with the default (even) last axis.
    ref_spec = os.path.join(work, f"{tag}_np_rfft.npy")
    np.save(ref_spec, np.fft.rfftn(a.astype(np.float64)).astype(cdt))
    out = os.path.join(work, f"{tag}_irfft.npy")
    run = r.dfft("transform", ref_spec, out, "--transform", "c2r", *flags)
    spec_in = np.load(ref_spec)
    compare(c, run, np.fft.irfftn, out, spec_in, dtype, TOL[dtype], f"c2r {tag} vs numpy.fft.irfftn")


def complex_case(c, r, work, shape, dtype, decomp, variant, rng):
    tag = f"{'x'.join(map(str, shape))}_{np.dtype(dtype).name}_{decomp}_{variant}"
    a = random_array(shape, dtype, rng)
    src, spec, back = (os.path.join(work, f"{tag}_{s}.npy") for s in ("a", "fft", "back"))
    np.save(src, a)
    flags = ["--decomp", decomp, "--variant", variant, "--quiet"]
    run = r.dfft("transform", src, spec, "--transform", "c2c", *flags)
    compare(c, run, np.fft.fftn, spec, a, dtype, TOL[dtype], f"c2c {tag} vs numpy.fft.fftn")
    run = r.dfft("transform", spec, back, "--transform", "c2c", "--inverse", *flags)
    compare(c, run, lambda x: x, back, a, dtype, TOL[dtype], f"c2c inverse {tag} recovers a")
    ortho = os.path.join(work, f"{tag}_ortho.npy")
    run = r.dfft("transform", src, ortho, "--transform", "c2c", "--inverse", "--norm", "ortho", *flags)
    compare(c, run, lambda x: np.fft.ifftn(x, norm="ortho"), ortho, a, dtype, TOL[dtype],
            f"c2c inverse --norm ortho {tag} vs numpy.fft.ifftn(norm='ortho')")


# (transform, per-axis kinds, dtype, decomposition): every DCT/DST type on some axis, alone and
# mixed with Fourier axes (r2c halves the last periodic axis).
R2R_CASES = [
    ("r2r", ["dct1", "dst2", "dct3"], np.float64, "pencil"),
    ("r2r", ["dct4", "dst1", "dst3"], np.float64, "slab-2d1d"),
    ("r2r", ["dst4", "dct2", "dst2"], np.float32, "slab-1d2d"),
    ("r2c", ["dct2", "dst3", "none"], np.float64, "pencil"),
    ("c2c", ["none", "dct4", "dst1"], np.complex128, "slab-2d1d"),
]


def scipy_r2r(x, kinds, inverse, rfft_last):
    """scipy.fft's dct/dst (idct/idst for the inverse, norm="backward") along the DCT/DST axes, numpy.fft
    along the periodic ones; complex data by real and imaginary parts."""
    from scipy import fft as sfft
    for axis, k in enumerate(kinds):
        if k == "none":
            continue
        f = {(False, "dct"): sfft.dct, (False, "dst"): sfft.dst, (True, "dct"): sfft.idct, (True, "dst"): sfft.idst}[
            (inverse, k[:3])]
        run = lambda v: f(v, type=int(k[3]), axis=axis, norm="backward")  # noqa: E731
        x = run(x.real) + 1j * run(x.imag) if np.iscomplexobj(x) else run(x)
    periodic = [a for a, k in enumerate(kinds) if k == "none"]
    if rfft_last:
        x = np.fft.rfft(x, axis=periodic[-1])
        periodic = periodic[:-1]
    if not periodic:
        return x
    return np.fft.ifftn(x, axes=periodic) if inverse else np.fft.fftn(x, axes=periodic)


def r2r_case(c, r, work, rng):
    """--r2r: DCT/DST types I-IV per axis against scipy.fft.dct/dst (and idct/idst for r2r --inverse)."""
    try:
        import scipy.fft  # noqa: F401
    except ImportError:
        c.check(False, "scipy is needed for the DCT/DST reference (python3-scipy)")
        return
    shape = (9, 7, 6)
    for transform, kinds, dtype, decomp in R2R_CASES:
        tag = f"{transform}_{'_'.join(kinds)}_{np.dtype(dtype).name}_{decomp}"
        a = random_array(shape, dtype, rng)
        src, out, back = (os.path.join(work, f"{tag}_{s}.npy") for s in ("a", "out", "back"))
        np.save(src, a)
        flags = ["--transform", transform, "--r2r", ",".join(kinds), "--decomp", decomp, "--quiet"]
        out_dtype = np.complex128 if dtype == np.float64 and transform == "r2c" else dtype
        run = r.dfft("transform", src, out, *flags)
        compare(c, run, lambda x: scipy_r2r(x, kinds, False, transform == "r2c"), out, a, out_dtype, TOL[dtype],
                f"{transform} --r2r {','.join(kinds)} {np.dtype(dtype).name} {decomp} vs scipy.fft")
        if transform == "r2c":
            continue
        run = r.dfft("transform", out, back, *flags, "--inverse")
        compare(c, run, lambda x: scipy_r2r(x, kinds, True, False), back, np.load(out) if run.returncode == 0 else a,
                dtype, TOL[dtype], f"{transform} --r2r {','.join(kinds)} --inverse vs scipy.fft.idct/idst")
        if run.returncode == 0:
            err = rel_err(np.load(back), a)
            c.check(err <= TOL[dtype], f"{tag}: the inverse does not recover the input ({err:.2e})")


def axes_case(c, r, work, rng):
    """--axes: numpy.fft.rfftn / irfftn / fftn with axes=, the halved axis the last listed."""
    a = random_array((17, 12, 10), np.float64, rng)
    src = os.path.join(work, "axes_a.npy")
    np.save(src, a)
    for axes, decomp in [((2, 1), "slab-2d1d"), ((0,), "pencil"), ((1, 0), "slab-1d2d")]:
        tag = "axes" + "".join(map(str, axes)) + "_" + decomp
        spec, back = os.path.join(work, f"{tag}_rfft.npy"), os.path.join(work, f"{tag}_back.npy")
        flags = ["--decomp", decomp, "--axes", ",".join(map(str, axes)), "--quiet"]
        run = r.dfft("transform", src, spec, "--transform", "r2c", *flags)
        compare(c, run, lambda x: np.fft.rfftn(x, axes=axes), spec, a, np.complex128, 1e-12,
                f"r2c {tag} vs numpy.fft.rfftn(axes={axes})")
        run = r.dfft("transform", spec, back, "--transform", "c2r", "--last-n", a.shape[axes[-1]], *flags)
        compare(c, run, lambda x: x, back, a, np.float64, 1e-12, f"c2r(r2c(a)) {tag} recovers a")
        z = random_array((17, 12, 10), np.complex128, rng)
        zsrc, zout = os.path.join(work, f"{tag}_z.npy"), os.path.join(work, f"{tag}_zfft.npy")
        np.save(zsrc, z)
        run = r.dfft("transform", zsrc, zout, "--transform", "c2c", "--norm", "ortho", *flags)
        compare(c, run, lambda x: np.fft.fftn(x, axes=axes, norm="ortho"), zout, z, np.complex128, 1e-12,
                f"c2c {tag} vs numpy.fft.fftn(axes={axes}, norm='ortho')")


def write_bad_files(work, rng):
    """Files that must be refused, with the phrase the error message must contain."""
    a = rng.standard_normal((9, 7, 5))
    good = os.path.join(work, "good.npy")
    np.save(good, a)
    raw = open(good, "rb").read()
    bad = {}

    def put(name, data, phrase, transform="r2c"):
        p = os.path.join(work, name)
        with open(p, "wb") as f:
            f.write(data)
        bad[name] = (phrase, transform)

    put("bad_magic.npy", b"NOTNPY" + raw[6:], "not a .npy file")
    put("bad_version.npy", raw[:6] + b"\x09\x00" + raw[8:], "unsupported format version")
    put("bad_key.npy", raw.replace(b"'shape'", b"'shapf'"), "unexpected key 'shapf'")
    put("bad_shape.npy", raw.replace(b"(9, 7, 5)", b"(9, x, 5)"), "malformed .npy header")
    put("bad_length.npy", raw[:8] + b"\xff\x7f" + raw[10:200], "header says")
    put("empty.npy", b"", "not a .npy file")
    put("truncated.npy", raw[:-17], "truncated")
    put("trailing.npy", raw + b"\0" * 8, "unexpected bytes after the array data")
    np.save(os.path.join(work, "int32.npy"), np.arange(60, dtype=np.int32).reshape(3, 4, 5))
    bad["int32.npy"] = ("unsupported dtype '<i4'", "r2c")
    np.save(os.path.join(work, "bigendian.npy"), a.astype(">f8"))
    bad["bigendian.npy"] = ("big endian", "r2c")
    np.save(os.path.join(work, "complex.npy"), a.astype(np.complex128))
    bad["complex.npy"] = ("wrong dtype: --transform r2c needs float32 or float64", "r2c")
    bad["good.npy"] = ("wrong dtype: --transform c2c needs complex64 or complex128", "c2c")
    return bad


def fortran_case(c, r, work, rng):
    """numpy writes F-contiguous arrays (np.fft.rfftn of a 2-D array is one) in Fortran order."""
    for shape, dtype, transform, ref in [((9, 7, 5), np.float64, "r2c", np.fft.rfftn),
                                         ((13, 9), np.complex128, "c2c", np.fft.fftn)]:
        a = np.asfortranarray(random_array(shape, dtype, rng))
        src, out = os.path.join(work, f"fortran_{transform}.npy"), os.path.join(work, f"fortran_{transform}_out.npy")
        np.save(src, a)
        cdt = np.complex128
        run = r.dfft("transform", src, out, "--transform", transform, "--decomp", "pencil" if len(shape) > 2 else
                     "slab-2d1d", "--quiet")
        compare(c, run, ref, out, np.ascontiguousarray(a), cdt, 1e-12, f"{transform} of a Fortran-order {shape} file")


def error_cases(c, r, work, rng):
    for name, (phrase, transform) in write_bad_files(work, rng).items():
        out = os.path.join(work, "out_" + name)
        run = r.dfft("transform", os.path.join(work, name), out, "--transform", transform)
        what = f"{name} ({transform})"
        c.check(run.returncode == 3, f"{what}: exit {run.returncode}, expected 3 (bad input file)")
        c.check(phrase in run.stderr, f"{what}: message lacks '{phrase}': {run.stderr.strip()[:300]}")
        c.check(not os.path.exists(out) and not os.path.exists(out + ".dfft-tmp"), f"{what}: output file left behind")
        print(f"  {what}: {run.stderr.strip().splitlines()[0] if run.stderr.strip() else '(no message)'}", flush=True)
    good = os.path.join(work, "good.npy")
    spec = os.path.join(work, "good_spec.npy")
    np.save(spec, np.fft.rfftn(np.load(good)))
    others = [
        ("missing input", [os.path.join(work, "no_such.npy"), os.path.join(work, "o1.npy")], "cannot open", 3),
        ("output in a missing directory", [good, os.path.join(work, "no_dir", "o.npy")], "there is no folder", 2),
        ("output is a directory", [good, work], "is a directory", 2),
        ("c2r with a wrong --last-n", [spec, os.path.join(work, "o2.npy"), "--transform", "c2r", "--last-n", "7"],
         "does not match the halved axis", 3),
        ("unknown decomposition", [good, os.path.join(work, "o3.npy"), "--decomp", "cube"], "unknown decomposition", 2),
        ("--inverse with r2c", [good, os.path.join(work, "o4.npy"), "--inverse"], "--inverse applies to c2c", 2),
    ]
    for what, argv, phrase, code in others:
        run = r.dfft("transform", *argv)
        out = argv[1]
        c.check(run.returncode == code, f"{what}: exit {run.returncode}, expected {code}")
        c.check(phrase in run.stderr, f"{what}: message lacks '{phrase}': {run.stderr.strip()[:300]}")
        if not os.path.isdir(out):
            c.check(not os.path.exists(out) and not os.path.exists(out + ".dfft-tmp"), f"{what}: output left behind")
        c.check(not os.path.exists(out.rstrip("/") + ".dfft-tmp"), f"{what}: temporary file left behind")
        print(f"  {what}: {run.stderr.strip().splitlines()[0] if run.stderr.strip() else '(no message)'}", flush=True)


def main():
    args = parse_args(lambda p: p.add_argument(
        "--transform-flags", default="", help="extra dfft transform options, separated by '|' (e.g. --backend|cuda)"))
    r, c = Runner(args), Checks()
    extra = [f for f in args.transform_flags.split("|") if f]
    plain = r.dfft
    r.dfft = lambda *argv, **kw: plain(*argv, *extra, **kw) if argv and argv[0] == "transform" else plain(*argv, **kw)
    rng = np.random.default_rng(20240607)
    for shape, dtype, decomp, variant in CASES:
        if args.np > 1 and decomp == "pencil" and min(shape[:-1]) < 2:
            continue
        fn = complex_case if np.issubdtype(dtype, np.complexfloating) else real_case
        fn(c, r, args.workdir, shape, dtype, decomp, variant, rng)
    fortran_case(c, r, args.workdir, rng)
    axes_case(c, r, args.workdir, rng)
    r2r_case(c, r, args.workdir, rng)
    error_cases(c, r, args.workdir, rng)
    return c.finish(f"dfft transform on {args.np} rank(s)")


if __name__ == "__main__":
    sys.exit(main())
