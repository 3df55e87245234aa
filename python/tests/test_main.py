# SPDX-License-Identifier: MIT
"""``python -m dfft``: every line is there, and each says what the libraries themselves say
(mpi4py for the MPI library, FFTW's own version string read with ctypes, the top-level
CMakeLists.txt for the version, the environment for the wisdom files)."""

import ctypes
import ctypes.util
import os
import re
import socket

import pytest
from mpi4py import MPI

import dfft
import dfft.__main__ as report

NAMES = ["dfft", "backends", "MPI library", "MPI CUDA-aware", "NCCL", "FFTW", "wisdom directory",
         "dfft wisdom and calibrations", "FFTW wisdom (double)", "FFTW wisdom (float)", "FFTW-MPI interface"]
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def fields():
    out = {}
    for line in report.lines():
        name, sep, value = line.partition(": ")
        assert sep, f"not a 'name: value' line: {line!r}"
        out[name] = value
    return out


def test_every_line_in_order():
    assert [line.partition(": ")[0] for line in report.lines()] == NAMES


def test_version_is_the_projects():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        version = re.search(r"project\(dfft VERSION ([0-9.]+)", f.read()).group(1)
    assert fields()["dfft"].split(" ")[0] == version


def test_backends():
    backends = fields()["backends"]
    if dfft.has_cuda:
        assert re.fullmatch(r"cpu, cuda \(\d+ GPUs visible\)", backends)
    else:
        assert backends == "cpu (built without CUDA)"
        assert fields()["NCCL"] == "not built in"
    nccl = fields()["NCCL"]
    assert nccl == "not built in" or re.fullmatch(r"\d+\.\d+\.\d+", nccl)


def test_mpi_library_is_mpi4pys():
    theirs = MPI.Get_library_version()
    theirs = theirs[:min(i for i in (theirs.find("\n"), theirs.find("\0"), len(theirs)) if i >= 0)]
    assert fields()["MPI library"] == theirs


def test_cuda_awareness_is_the_mpi_librarys():
    from dfft._mpi_library import MPI_LIBRARY

    query = getattr(ctypes.CDLL(MPI_LIBRARY), "MPIX_Query_cuda_support", None)
    aware = query is not None and query() == 1
    assert fields()["MPI CUDA-aware"] == ("yes" if aware else "no")


def test_fftw_version_is_fftws():
    lib = ctypes.CDLL(ctypes.util.find_library("fftw3"))
    theirs = ctypes.c_char_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "fftw_version"))).value
    assert fields()["FFTW"] == theirs.decode()


def test_wisdom_files_in_dfft_wisdom_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("DFFT_WISDOM", raising=False)
    monkeypatch.setenv("DFFT_WISDOM_DIR", str(tmp_path))
    host = socket.gethostname()
    (tmp_path / f"fftw-{host}.wisdom").write_text("")
    f = fields()
    assert f["wisdom directory"] == str(tmp_path)
    assert f["dfft wisdom and calibrations"] == f"{tmp_path}/dfft-wisdom-{host}.json (not written yet)"
    assert f["FFTW wisdom (double)"] == f"{tmp_path}/fftw-{host}.wisdom"
    assert f["FFTW wisdom (float)"] == f"{tmp_path}/fftwf-{host}.wisdom (not written yet)"


def test_dfft_wisdom_names_the_file_or_turns_it_off(tmp_path, monkeypatch):
    """The one file that dfft tune, dfft bench --tune, the library and Python share."""
    monkeypatch.setenv("DFFT_WISDOM", str(tmp_path / "mine.json"))
    assert fields()["dfft wisdom and calibrations"] == f"{tmp_path}/mine.json (not written yet)"
    monkeypatch.setenv("DFFT_WISDOM", "off")
    assert fields()["dfft wisdom and calibrations"] == "none (DFFT_WISDOM=off)"


@pytest.mark.parametrize("xdg", [True, False])
def test_wisdom_dir_from_xdg_cache_home_then_home(tmp_path, monkeypatch, xdg):
    monkeypatch.delenv("DFFT_WISDOM_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    else:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    expected = str(tmp_path / "xdg" / "dfft") if xdg else str(tmp_path / "home" / ".cache" / "dfft")
    assert fields()["wisdom directory"] == expected


def test_main_prints_the_report_on_rank_0(capsys):
    assert report.main() == 0
    printed = capsys.readouterr().out
    if MPI.COMM_WORLD.rank == 0:
        assert printed.splitlines() == report.lines()
    else:
        assert printed == ""


def test_fftw_mpi_interface_line_names_a_folder_that_holds_the_library():
    f = fields()["FFTW-MPI interface"]
    folder = report.fftw_mpi_folder()
    if folder is None:
        assert f.startswith("not found")
    else:
        assert f.startswith(folder) and os.path.exists(os.path.join(folder, "libfftw3_mpi.so.3"))
