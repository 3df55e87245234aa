# SPDX-License-Identifier: MIT
"""scripts/run.sh on a machine with the CUDA toolkit but no GPU: it leaves the CUDA backend out, says
so and how to build it, honours DFFT_CUDA, keeps CMake's choice where a GPU is, and prints each
step's time. Runs a copy of the
script in a scratch tree with stand-ins for cmake, mpirun, nvcc, nvidia-smi and install-deps.sh,
so nothing is installed, built or run."""
import argparse
import os
import shutil
import stat
import subprocess
import sys

from dfft_runner import Checks


def stub(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run(tree, bindir, gpu, env_extra):
    stub(os.path.join(bindir, "nvidia-smi"), "echo 'GPU 0: stand-in'; exit 0" if gpu else "exit 9")
    log = os.path.join(tree, "cmake.log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], CMAKE_LOG=log, **env_extra)
    p = subprocess.run(["bash", os.path.join(tree, "scripts", "run.sh"), "--size", "8", "8", "8"],
                       capture_output=True, text=True, env=env, timeout=60)
    args = open(log).read() if os.path.exists(log) else ""
    return p, args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    tree = os.path.join(a.workdir, "tree")
    bindir = os.path.join(a.workdir, "bin")
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(os.path.join(tree, "scripts"))
    os.makedirs(bindir)
    shutil.copy(os.path.join(a.source, "scripts", "run.sh"), os.path.join(tree, "scripts", "run.sh"))
    stub(os.path.join(tree, "scripts", "install-deps.sh"), "echo stand-in install-deps")
    stub(os.path.join(bindir, "cmake"), 'echo "$@" >> "$CMAKE_LOG"')
    stub(os.path.join(bindir, "mpirun"), "echo stand-in mpirun")
    stub(os.path.join(bindir, "nvcc"), "exit 0")
    c = Checks()

    p, args = run(tree, bindir, gpu=False, env_extra={})
    c.check(p.returncode == 0, f"run.sh: exit {p.returncode}: {p.stderr[-300:]}")
    c.check("no GPU" in p.stdout and "DFFT_CUDA=AUTO" in p.stdout,
            f"no word that the CUDA backend is left out without a GPU and how to build it:\n{p.stdout}")
    c.check("-DDFFT_CUDA=OFF" in args, f"without a GPU the CUDA backend must not be built: {args}")
    c.check("-DDFFT_TESTS=OFF" in args, f"the job runs no tests, so none may be built: {args}")
    c.check("configure (Release, DFFT_CUDA=OFF) took" in p.stdout and "took" in p.stdout.split("build ")[-1],
            f"no configure and build times:\n{p.stdout}")

    p, args = run(tree, bindir, gpu=False, env_extra={"DFFT_CUDA": "ON"})
    c.check("-DDFFT_CUDA=ON" in args, f"DFFT_CUDA=ON does not reach cmake: {args}")
    c.check("no GPU" not in p.stdout, "the no-GPU note shows although CUDA was asked for")

    p, args = run(tree, bindir, gpu=True, env_extra={})
    c.check(p.returncode == 0 and "no GPU" not in p.stdout, f"with a GPU there is nothing to say:\n{p.stdout}")
    c.check("-DDFFT_CUDA=AUTO" in args, f"with a GPU CMake finds the toolkit itself: {args}")
    return c.finish("scripts/run.sh")


if __name__ == "__main__":
    sys.exit(main())
