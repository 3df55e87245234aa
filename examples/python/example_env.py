# SPDX-License-Identifier: MIT
"""Start-up shared by the Python examples: find the dfft package of a build tree."""

import os
import pathlib
import sys


def bootstrap():
    """Make `python3 examples/python/<example>.py` work from a checkout: find the package in
    build/python (or $DFFT_BUILD_DIR/python) when PYTHONPATH does not name it, and, when this
    python3 lacks numpy or mpi4py (say a pyenv or venv python first in PATH), rerun the script
    with the interpreter the build was configured with. Nothing of MPI has started yet here."""
    build = pathlib.Path(os.environ.get("DFFT_BUILD_DIR",
                                        pathlib.Path(__file__).resolve().parents[2] / "build"))
    pkg = build / "python"
    if pkg.is_dir() and str(pkg) not in sys.path:
        sys.path.append(str(pkg))
    try:
        import mpi4py  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        recorded = pkg / "python-interpreter.txt"
        exe = recorded.read_text().strip() if recorded.is_file() else ""
        if exe and os.path.realpath(exe) != os.path.realpath(sys.executable):
            os.execv(exe, [exe] + sys.argv)
        raise
