# SPDX-License-Identifier: MIT
"""Shared command-line handling of the tests/app scripts: how to start the dfft program under MPI."""
import argparse
import contextlib
import os
import subprocess
import tempfile
import time

# A command that takes longer than this is named in the test's output.
SLOW_SECONDS = float(os.environ.get("DFFT_TEST_SLOW_SECONDS", "3"))


@contextlib.contextmanager
def small_tmpfs(work, kib):
    """A tmpfs of `kib` KiB mounted in a new folder of `work` (a full file system for the write
    failure tests), or None with the reason printed where this process may not mount one."""
    mnt = tempfile.mkdtemp(dir=work, prefix="tmpfs-")
    try:
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk" % kib, "tmpfs", mnt],
                           capture_output=True, text=True)
    except OSError as e:
        m = subprocess.CompletedProcess([], 1, "", str(e))
    if m.returncode != 0:
        print(f"  tmpfs check: skipped (cannot mount a tmpfs: {m.stderr.strip() or m.returncode})", flush=True)
        os.rmdir(mnt)
        yield None
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", mnt])
        os.rmdir(mnt)


def fill_disk(folder):
    """Writes one file in `folder` until its file system is full."""
    try:
        with open(os.path.join(folder, "filler"), "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
    except OSError:  # full
        pass


def parse_args(extra=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dfft", required=True, help="path of the dfft program")
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n")
    p.add_argument("--preflags", default="", help="mpiexec flags, separated by '|'")
    p.add_argument("--np", type=int, default=1)
    p.add_argument("--workdir", required=True)
    if extra:
        extra(p)
    args = p.parse_args()
    args.dfft = os.path.abspath(args.dfft)
    args.workdir = os.path.abspath(args.workdir)
    os.makedirs(args.workdir, exist_ok=True)
    return args


class Runner:
    def __init__(self, args):
        self.args = args
        self.prefix = [args.mpiexec, args.np_flag, str(args.np)] + [f for f in args.preflags.split("|") if f]

    def dfft(self, *argv, np=None, timeout=300, env=None, stderr=None):
        """Runs `mpiexec -n NP dfft ARGV...` in the work directory; returns CompletedProcess.
        `env`: variables to set on top; `stderr`: an open file to send stderr to instead."""
        prefix = list(self.prefix)
        if np is not None:
            prefix[2] = str(np)
        t0 = time.monotonic()
        # The machine's default wisdom and calibration go to a folder of the test's own, so that
        # what earlier runs left in the user's folder cannot change what the commands print.
        home = os.path.join(self.args.workdir, "wisdom-dir")
        os.makedirs(home, exist_ok=True)
        # DFFT_WISDOM (which the test environment turns off) is left to each test to set.
        environ = {k: v for k, v in os.environ.items() if k != "DFFT_WISDOM"}
        environ.update(DFFT_WISDOM_DIR=home, **(env or {}))
        run = subprocess.run(prefix + [self.args.dfft] + [str(a) for a in argv], cwd=self.args.workdir,
                             stdout=subprocess.PIPE, stderr=stderr or subprocess.PIPE, text=True,
                             timeout=timeout, env=environ)
        took = time.monotonic() - t0
        if took > SLOW_SECONDS:  # where a test's time goes, for keeping the suite short
            print(f"  slow command ({took:.1f} s): dfft {' '.join(str(a) for a in argv)}", flush=True)
        return run


class Checks:
    """Collects failures so that one run reports all of them."""

    def __init__(self):
        self.failures = []
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what, flush=True)

    def finish(self, name):
        print(f"{name}: {self.passed} checks passed, {len(self.failures)} failed")
        return 1 if self.failures else 0
