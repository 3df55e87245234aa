#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a benchmark suite on a machine and stores its records (docs/results/README.md#running).

    python3 tools/bench_run.py --machine dev-2core --suite quick-cpu [--build DIR] [--dry-run]
                               [--ranks 1,2] [--results DIR] [--budget SECONDS]
    python3 tools/bench_run.py --machine gpu-h100-x1 --configure      # build the profile's targets
    python3 tools/bench_run.py --machine gpu-h100-x1 --fetch-debs     # .debs to carry to the machine

A suite is a test-case file benchmarks/cases/SUITE.json (docs/cases.md); its optional "runner"
object names the job sizes ("ranks_per_job"), the peer libraries timed beside dfft ("peers"),
dfft bench options given to every job ("bench_args", e.g. ["--no-validate"]; plan options such as
codec are keys of the case format), how
many times every job runs, each a new process ("repeat": 5 shows how much timings vary from process
to process; "shuffle": true runs each process's configurations in another order, drawn from
its number, so that no configuration is always timed first or last), the environment of every
rank ("env", passed with mpirun -x, e.g. emulated nodes), and
the cores each rank gets ("cores_per_rank": 2 leaves a core for the overlap thread), or the cores
each job shares among its ranks as threads ("cores_per_job": 16 runs P ranks of 16/P threads each,
bound with --map-by slot:PE=16/P and passed --threads 16/P: the ranks x threads splits; docs/threads.md).
A machine is a profile benchmarks/machines/NAME.json (launcher, MPI prefix, cores, GPUs,
environment, build, time budget). Every job is one mpirun; its JSON lines are appended to
RESULTS/NAME/SUITE.jsonl (dfft) or RESULTS/NAME/SUITE.peers.jsonl (peers), each record tagged
with a "run" object: machine, date, commit, command, suite, job_ranks, series (when this runner
started: the records of one invocation) and, with "repeat", repeat (1..N).
Stdlib only, so that it runs on a machine where nothing can be installed.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# fftw-mpi: build/bin/fftw-mpi-bench. dfft-fftw-mpi: the same program with dfft's libfftw3_mpi
# (BUILD/lib/dfft-fftw-mpi) first on the ranks' load path, so that both libraries run one binary
# (docs/fftw-mpi.md). python: a script run with the interpreter of dfft's Python binding ("script",
# relative to the repository; "args"), e.g. benchmarks/python/defaults_vs_mpi4pyfft.py.
# mpi-bench: FFTW's own benchmark program ("program", built by scripts/fftw-mpi-check.sh) through
# tools/mpi_bench_peer.py, with FFTW-MPI or dfft's library ("library": fftw-mpi | dfft-fftw-mpi).
PEERS = ("fftw-mpi", "dfft-fftw-mpi", "python", "mpi-bench")
MPI_BENCH = "build/fftw-mpi-check/double/mpi-bench"


def rel(path):
    """Paths inside the repository relative to it, so that a record's command reads the same anywhere."""
    r = os.path.relpath(path, ROOT)
    return path if r.startswith("..") else r


def die(msg):
    sys.exit("bench_run: " + msg)


def expand_env(text, env):
    """$VAR, ${VAR} and ${VAR:-default}; an unset variable without default expands to ''."""
    def sub(m):
        name, default = m.group(1) or m.group(3), m.group(2)
        value = env.get(name, "")
        return value if value else (default or "")
    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)", sub, text)


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die("%s %s: %s" % (what, path, e))


def find_file(name, folder, what):
    """NAME or a path: a bare name is looked up as ROOT/folder/NAME.json."""
    if os.sep in name or name.endswith(".json"):
        path = os.path.abspath(name)
    else:
        path = os.path.join(ROOT, folder, name + ".json")
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(os.path.join(ROOT, folder)) if f.endswith(".json"))
        die("no %s '%s' (%s); known: %s" % (what, name, path, ", ".join(known)))
    return path


PROFILE_KEYS = {"name", "description", "cores", "gpus", "memory_gib", "max_ranks", "ranks_per_gpu",
                "mpi_prefix", "launcher_args", "backend_args", "env", "build", "time_budget_s",
                "carry_debs", "comment"}


def load_profile(name):
    path = find_file(name, os.path.join("benchmarks", "machines"), "machine profile")
    p = load_json(path, "machine profile")
    unknown = set(p) - PROFILE_KEYS
    if unknown:
        die("%s: unknown keys %s; allowed: %s" % (path, sorted(unknown), ", ".join(sorted(PROFILE_KEYS))))
    for key in ("name", "cores", "max_ranks", "time_budget_s"):
        if key not in p:
            die("%s: '%s' is required" % (path, key))
    p.setdefault("gpus", 0)
    p.setdefault("ranks_per_gpu", 1)
    p.setdefault("env", {})
    p.setdefault("launcher_args", [])
    p.setdefault("backend_args", {})
    p.setdefault("build", {})
    p.setdefault("carry_debs", [])
    return p


def load_suite(name):
    path = find_file(name, os.path.join("benchmarks", "cases"), "suite")
    s = load_json(path, "suite")
    runner = s.get("runner", {})
    allowed = {"ranks_per_job", "bench_ranks", "peers", "bench_args", "bench_args_each", "cores_per_rank", "cores_per_job",
               "env", "repeat", "shuffle", "comment"}
    if set(runner) - allowed:
        die("%s: runner: unknown keys %s; allowed: %s" % (path, sorted(set(runner) - allowed), ", ".join(sorted(allowed))))
    peers = [p if isinstance(p, dict) else {"name": p} for p in runner.get("peers", [])]
    for p in peers:
        if p.get("name") not in PEERS:
            die("%s: runner.peers: unknown peer %r; allowed: %s" % (path, p.get("name"), ", ".join(PEERS)))
        if not isinstance(p.get("env", {}), dict) or not isinstance(p.get("ranks", []), list):
            die("%s: runner.peers: %s: \"env\" is an object of variables, \"ranks\" a list of rank counts" % (path, p["name"]))
        if p["name"] == "python" and not os.path.isfile(os.path.join(ROOT, str(p.get("script", "")))):
            die("%s: runner.peers: python needs \"script\", a file of the repository: %r" % (path, p.get("script")))
    if runner.get("cores_per_job") and any(p["name"] == "python" for p in peers):
        die("%s: runner: a python peer takes no --threads, so not with cores_per_job" % path)
    repeat = runner.get("repeat", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        die("%s: runner.repeat: a positive integer, not %r" % (path, repeat))
    if not isinstance(runner.get("shuffle", False), bool):
        die("%s: runner.shuffle: true or false, not %r" % (path, runner["shuffle"]))
    name = os.path.basename(path)[:-5]
    return {"path": path, "name": name, "doc": s, "ranks_per_job": runner.get("ranks_per_job"),
            # Rank counts of the dfft bench jobs where not every job's (peers run at the others).
            "bench_ranks": runner.get("bench_ranks"),
            "peers": peers, "backend": s.get("global", {}).get("backend", "cpu"),
            "bench_args": [str(a) for a in runner.get("bench_args", [])],
            # One dfft job per entry (options the case format cannot sweep, e.g. --chunks).
            "bench_args_each": [[str(a) for a in e] for e in runner.get("bench_args_each", [[]])],
            "cores_per_rank": int(runner.get("cores_per_rank", 1)), "repeat": repeat,
            "shuffle": runner.get("shuffle", False),
            "cores_per_job": int(runner.get("cores_per_job", 0)),
            # Environment of every rank, passed with mpirun -x so that each record's command shows
            # it (e.g. DFFT_RANKS_PER_NODE: emulated nodes).
            "env": {str(k): str(v) for k, v in runner.get("env", {}).items()}}


def threads_per_rank(suite, ranks):
    """Threads of each rank in a job of `ranks` ranks: cores_per_job / ranks (1 without the key)."""
    cores = suite["cores_per_job"]
    if not cores:
        return 1
    if cores % ranks:
        die("%s: runner.cores_per_job %d is not a multiple of %d ranks" % (suite["path"], cores, ranks))
    return cores // ranks


def run_env(profile):
    env = dict(os.environ)
    for k, v in profile["env"].items():
        env[k] = expand_env(str(v), env)
    prefix = expand_env(profile.get("mpi_prefix", ""), env)
    if prefix:
        env["PATH"] = os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", "")
        env["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib") + os.pathsep + env.get("LD_LIBRARY_PATH", "")
        env["OPAL_PREFIX"] = prefix
    return env, prefix


def mpirun(profile, prefix, suite, ranks):
    exe = os.path.join(prefix, "bin", "mpirun") if prefix else "mpirun"
    args = [exe] + list(profile["launcher_args"]) + list(profile["backend_args"].get(suite["backend"], []))
    pe = suite["cores_per_rank"] * threads_per_rank(suite, ranks)
    if pe > 1 and ranks * pe <= profile["cores"]:
        args += ["--map-by", "slot:PE=%d" % pe]  # the rank's threads, or a core for the overlap thread
    if ranks * pe > profile["cores"] and "--oversubscribe" not in args:
        args.append("--oversubscribe")
    for k, v in sorted(suite["env"].items()):
        args += ["-x", "%s=%s" % (k, v)]
    return args + ["-np", str(ranks)]


def job_ranks(profile, suite, wanted):
    """Rank counts to launch, and the ones refused with the reason."""
    limit = profile["max_ranks"]
    if suite["backend"] == "cuda":
        limit = min(limit, profile["gpus"] * profile["ranks_per_gpu"])
    ranks = wanted or suite["ranks_per_job"] or [min(limit, 2)]
    keep = [r for r in ranks if 1 <= r <= limit]
    refused = ["%d ranks (machine %s allows %d for backend %s)" % (r, profile["name"], limit, suite["backend"])
               for r in ranks if r not in keep]
    return keep, refused


# A configuration of `dfft bench --list`: precision, transform, size, then what tells it apart.
SIZE_RE = re.compile(r"\b(?:double|float) \S+ (\d+(?:x\d+)+)\b")


def suite_sizes(dfft, suite, env):
    """The 3-D sizes the suite's configurations use, from `dfft bench --cases FILE --list`."""
    if not os.access(os.path.join(ROOT, dfft), os.X_OK):
        die("%s is not built (the peers' sizes come from its --list); build it, e.g. with --configure" % dfft)
    out = subprocess.run([dfft, "bench", "--cases", suite["path"], "--list"], env=env, cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if out.returncode != 0:
        die("%s --list failed:\n%s" % (suite["path"], out.stdout))
    sizes = []
    for line in out.stdout.splitlines():
        for m in SIZE_RE.findall(line):
            s = [int(v) for v in m.split("x")]
            if len(s) == 3 and s not in sizes:
                sizes.append(s)
    return sizes


def python_interpreter(build):
    """The interpreter dfft's Python binding was built for (BUILD/python/python-interpreter.txt)."""
    recorded = os.path.join(build, "python", "python-interpreter.txt")
    try:
        with open(recorded) as f:
            return f.read().strip()
    except OSError:
        die("%s is missing: the python peer needs dfft's Python binding (-DDFFT_PYTHON=ON, target dfft_python)" % recorded)


def peer_jobs(peer, sizes, glob, build, launch):
    """(label, command) for each size of one peer library at one rank count."""
    jobs = []
    effort = peer.get("effort", glob.get("effort", "estimate"))
    reps = str(peer.get("reps", glob.get("reps", 10)))
    warmup = str(peer.get("warmup", glob.get("warmup", 2)))
    if peer["name"] == "python":
        for size in sizes:
            cmd = launch + [python_interpreter(build), peer["script"], "--size"] + [str(v) for v in size]
            cmd += ["--reps", reps, "--warmup", warmup, "--build", rel(build)] + [str(a) for a in peer.get("args", [])]
            jobs.append(("python %s %s" % (os.path.basename(peer["script"]), "x".join(map(str, size))), cmd))
        return jobs
    def listed(key):
        v = peer.get(key, [False])
        return v if isinstance(v, list) else [v]
    if peer["name"] == "mpi-bench":
        lib = peer.get("library", "fftw-mpi")
        libdir = ["--lib-dir", rel(os.path.join(build, "lib", "dfft-fftw-mpi"))] if lib == "dfft-fftw-mpi" else []
        for size in sizes:
            for c2c in listed("c2c"):
                for t in listed("transposed"):
                    cmd = [sys.executable, "tools/mpi_bench_peer.py", "--program", peer.get("program", MPI_BENCH),
                           "--library", lib] + libdir + ["--size"] + [str(v) for v in size]
                    cmd += (["--c2c"] if c2c else []) + (["--transposed"] if t else [])
                    cmd += ["--launch", " ".join(shlex.quote(c) for c in launch)]
                    jobs.append(("mpi-bench %s %s%s%s" % (lib, "x".join(map(str, size)), " c2c" if c2c else "",
                                                        " transposed" if t else ""), cmd))
        return jobs
    # A peer's own variables ("env"), passed by Open MPI to every rank; for dfft-fftw-mpi also the
    # library folder of this build.
    env = dict(peer.get("env", {}))
    if peer["name"] == "dfft-fftw-mpi":
        env["LD_LIBRARY_PATH"] = rel(os.path.join(build, "lib", "dfft-fftw-mpi"))
    for k, v in sorted(env.items()):
        launch = launch[:-2] + ["-x", "%s=%s" % (k, v)] + launch[-2:]
    tag = "".join(" %s=%s" % (k, v) for k, v in sorted(peer.get("env", {}).items()))
    for size in sizes:
        for c2c in listed("c2c"):
            for t in listed("transposed"):
                for ip in listed("in_place"):
                    cmd = launch + [rel(os.path.join(build, "bin", "fftw-mpi-bench")), "--size"] + [str(v) for v in size]
                    cmd += ["--effort", effort, "--reps", reps, "--warmup", warmup]
                    cmd += (["--c2c"] if c2c else []) + (["--transposed"] if t else []) + (["--in-place"] if ip else [])
                    jobs.append(("%s %s%s%s%s%s" % (peer["name"], "x".join(map(str, size)), " c2c" if c2c else "",
                                                    " transposed" if t else "", " in place" if ip else "", tag), cmd))
    return jobs


def plan_jobs(profile, suite, args, env, prefix):
    """Every job in run order: dicts with label, ranks, kind (dfft|peer), cmd (without --json)."""
    ranks, refused = job_ranks(profile, suite, args.ranks)
    dfft = rel(os.path.join(args.build, "bin", "dfft"))
    sizes = suite_sizes(dfft, suite, env) if suite["peers"] else []
    once = []
    for r in ranks:
        launch = mpirun(profile, prefix, suite, r)
        threads = ["--threads", str(threads_per_rank(suite, r))] if suite["cores_per_job"] else []
        for each in suite["bench_args_each"] if not suite["bench_ranks"] or r in suite["bench_ranks"] else []:
            cmd = launch + [dfft, "bench", "--cases", rel(suite["path"]), "--no-progress"] + suite["bench_args"]
            cmd += each + threads
            label = "dfft %s%s" % (suite["name"], (" " + " ".join(each)) if each else "")
            once.append({"label": label, "ranks": r, "kind": "dfft", "cmd": cmd})
        for peer in suite["peers"]:
            if peer.get("ranks") and r not in peer["ranks"]:
                continue
            for label, pcmd in peer_jobs(peer, sizes, suite["doc"].get("global", {}), args.build, launch):
                once.append({"label": label, "ranks": r, "kind": "peer", "cmd": pcmd + threads})
    if suite["repeat"] == 1 and not suite["shuffle"]:
        return once, refused
    # Round after round of every job, so that a slow spell of the machine touches every library.
    jobs = [dict(j, repeat=i, label="%s (process %d/%d)" % (j["label"], i, suite["repeat"]))
            for i in range(1, suite["repeat"] + 1) for j in once]
    if suite["shuffle"]:
        for j in jobs:
            if j["kind"] == "dfft":
                j["cmd"] = j["cmd"] + ["--shuffle", str(j["repeat"])]
    return jobs, refused


def git_commit():
    def git(*a):
        return subprocess.run(["git", "-C", ROOT] + list(a), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    head = git("rev-parse", "HEAD") or "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def append_records(tmp, dest, tag):
    """Tags every complete JSON line of tmp and appends it to dest; returns the count."""
    n = 0
    try:
        with open(tmp) as f:
            lines = f.read().splitlines()
    except OSError:
        return 0
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    text = ""
    if os.path.exists(dest):
        with open(dest) as f:
            text = f.read()
    if text and not text.endswith("\n"):
        text += "\n"
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut short by a stopped job
        rec["run"] = tag
        text += records.line(rec)
        n += 1
    records.replace_file(dest, text)  # the earlier records stay whole if this write fails
    return n


PARTIAL = ".dfft-tmp"  # the suffix of bench's output while it runs (apps/dfft/output_target.cpp)


def run_job(job, env, timeout, dest, tag):
    """Runs one job with --json into a temporary file; returns (exit status, records appended)."""
    fd, tmp = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    cmd = job["cmd"] + ["--json", tmp]
    tag = dict(tag, command=" ".join(shlex.quote(c) for c in cmd), job_ranks=job["ranks"])
    if "repeat" in job:
        tag["repeat"] = job["repeat"]
    try:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, start_new_session=True)
        stopped = False
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 15)
            proc.wait()
            rc, stopped = "stopped at the time budget", True
        if stopped:
            # bench writes each configuration's records as it finishes them into PATH.dfft-tmp and
            # renames that onto PATH only at the end: a stopped job keeps what it finished.
            return rc, append_records(tmp + PARTIAL, dest, tag)
        return rc, append_records(tmp, dest, tag)
    finally:
        for path in (tmp, tmp + PARTIAL):
            if os.path.exists(path):
                os.unlink(path)


def execute(jobs, profile, suite, args, env):
    dest_dir = os.path.join(args.results, profile["name"])
    dest = {"dfft": os.path.join(dest_dir, suite["name"] + ".jsonl"),
            "peer": os.path.join(dest_dir, suite["name"] + ".peers.jsonl")}
    base = {"machine": profile["name"], "commit": git_commit(), "suite": suite["name"], "series": utc_now()}
    budget = args.budget if args.budget is not None else profile["time_budget_s"]
    t0, failed = time.time(), []
    for i, job in enumerate(jobs):
        left = budget - (time.time() - t0)
        if left <= 0:
            print("bench_run: time budget of %d s spent; not run:" % budget)
            for j in jobs[i:]:
                print("  %s, -np %d: %s" % (j["label"], j["ranks"], " ".join(j["cmd"])))
            return failed + ["%d jobs not run (budget)" % (len(jobs) - i)]
        print("bench_run: [%d/%d] %s, -np %d" % (i + 1, len(jobs), job["label"], job["ranks"]), flush=True)
        rc, n = run_job(job, env, left, dest[job["kind"]], dict(base, date=utc_now()))
        print("bench_run: exit %s, %d records -> %s" % (rc, n, rel(dest[job["kind"]])), flush=True)
        if rc != 0:
            failed.append("%s, -np %d: exit %s" % (job["label"], job["ranks"], rc))
    return failed


DEPS = os.path.join(ROOT, ".deps")


def carried_debs(profile, required=True):
    """The profile's .debs in .deps/ (none where it carries none). Where it carries some but
    .deps/ has none: dies if `required` (a build needs them), else says so and returns none."""
    if not profile["carry_debs"]:
        return []
    debs = sorted(d for d in os.listdir(DEPS) if d.endswith(".deb")) if os.path.isdir(DEPS) else []
    if not debs:
        why = "profile %s carries .debs but %s has none: run --fetch-debs where apt works" % (profile["name"], DEPS)
        if required:
            die(why)
        print("bench_run: %s (peers linked against them will not start)" % why)
    return debs


def unpack_commands(debs):
    return [["dpkg", "-x", os.path.join(DEPS, d), os.path.join(DEPS, "x")] for d in debs]


def use_carried_debs(profile, args, env):
    """Before a suite runs: the carried libraries unpacked (a device copies .deps/ afresh on
    every call, without what an earlier call unpacked there) and first on the load path, so
    that a peer linked against them (FFTW-MPI's fftw-mpi-bench) finds them on every rank."""
    debs = carried_debs(profile, required=False)
    if not debs:
        return 0
    if not os.path.isdir(os.path.join(DEPS, "x")) and run_plain(unpack_commands(debs), args.dry_run, env) != 0:
        return 1
    libs = sorted(glob.glob(os.path.join(DEPS, "x", "usr", "lib", "*-linux-gnu"))) + [os.path.join(DEPS, "x", "usr", "lib")]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(libs + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    return 0


def configure(profile, args, env):
    """Configures and builds the profile's build (build.cmake_args, build.targets)."""
    b = profile["build"]
    debs = carried_debs(profile)
    extra = ["-DCMAKE_PREFIX_PATH=" + os.path.join(DEPS, "x", "usr")] if debs else []
    build = ["cmake", "--build", args.build, "-j%d" % profile["cores"], "--target"]
    cmds = unpack_commands(debs) + [
        ["cmake", "-S", ROOT, "-B", args.build, "-DCMAKE_BUILD_TYPE=Release"] + b.get("cmake_args", []) + extra,
        build + b.get("targets", ["dfft_app"])]
    if run_plain(cmds, args.dry_run, env) != 0:
        return 1
    for target in b.get("optional_targets", []):  # e.g. fftw_mpi_bench, which needs libfftw3-mpi
        if run_plain([build + [target]], args.dry_run, env) != 0:
            print("bench_run: optional target %s not built: suites with peers that need it fail" % target)
    return 0


def fetch_debs(profile, args, env):
    """apt-get download of the profile's carry_debs into .deps/ (git-ignored; the device carries it)."""
    if not profile["carry_debs"]:
        print("bench_run: profile %s carries no .debs" % profile["name"])
        return 0
    os.makedirs(os.path.join(ROOT, ".deps"), exist_ok=True)
    cmd = ["sh", "-c", "cd %s && apt-get download %s" % (shlex.quote(os.path.join(ROOT, ".deps")),
                                                        " ".join(map(shlex.quote, profile["carry_debs"])))]
    return run_plain([cmd], args.dry_run, env)


def run_plain(cmds, dry_run, env):
    for c in cmds:
        print(" ".join(shlex.quote(x) for x in c), flush=True)
        if not dry_run and subprocess.run(c, env=env).returncode != 0:
            return 1
    return 0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine", required=True, help="profile benchmarks/machines/NAME.json (or a path)")
    ap.add_argument("--suite", help="test-case file benchmarks/cases/SUITE.json (or a path)")
    ap.add_argument("--build", help="build directory (default: the profile's build.dir, else build)")
    ap.add_argument("--ranks", type=lambda s: [int(v) for v in s.split(",")],
                    help="rank counts of the jobs, e.g. 1,2,4 (default: the suite's runner.ranks_per_job)")
    ap.add_argument("--results", default=os.path.join(ROOT, "benchmarks", "results"),
                    help="results folder (default benchmarks/results)")
    ap.add_argument("--budget", type=float, help="seconds (default: the profile's time_budget_s)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--configure", action="store_true", help="configure and build the profile's targets first")
    ap.add_argument("--fetch-debs", action="store_true", help="download the profile's carry_debs into .deps/ and stop")
    args = ap.parse_args(argv)
    if not args.suite and not (args.configure or args.fetch_debs):
        ap.error("--suite is required (unless --configure or --fetch-debs alone)")
    return args


def main(argv=None):
    args = parse_args(argv)
    profile = load_profile(args.machine)
    args.build = os.path.abspath(args.build or os.path.join(ROOT, profile["build"].get("dir", "build")))
    env, prefix = run_env(profile)
    if args.fetch_debs:
        return fetch_debs(profile, args, env)
    if args.configure and configure(profile, args, env) != 0:
        return 1
    if not args.suite:
        return 0
    suite = load_suite(args.suite)
    if use_carried_debs(profile, args, env) != 0:
        return 1
    jobs, refused = plan_jobs(profile, suite, args, env, prefix)
    for r in refused:
        print("bench_run: not run: %s" % r)
    if args.dry_run:
        for job in jobs:
            print(" ".join(shlex.quote(c) for c in job["cmd"] + ["--json", "TMP"]))
        return 0
    failed = execute(jobs, profile, suite, args, env)
    for f in failed:
        print("bench_run: FAILED: %s" % f)
    print("bench_run: %d jobs, %d failed or not run" % (len(jobs), len(failed)))
    return 1 if failed or refused and not jobs else 0


if __name__ == "__main__":
    sys.exit(main())
