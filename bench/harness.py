"""What bench/run-pingpong, bench/run-collectives and bench/rmpl-bench share: building rmpl's targets
and the MPI programs (with each peer, and against rmpl's own MPI layer, libmpi.so; one compiler per
CPU at once, an up-to-date executable kept), launching a program under rmplrun / Open MPI / MPICH,
running a command with a timeout, progress with the time left, sampling how busy the machine is,
the vCPU placement probe and the judging of a 2-rank bar within each placement class
(judge_by_placement), statistics and formatting, and writing a section of docs/benchmarks.md
between markers.

Standard library only. The scripts set `PROG` (the prefix of the messages on stderr) before calling.
`python3 bench/harness.py` runs the examples in the docstrings (judge_by_placement's on synthetic
runs, split_placements') as tests; exit status 1 if one fails.
"""

import glob
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG = "bench"  # set by the calling script: the prefix of its messages

# The libraries measured, in the order each round runs them and the tables show them: rmpl's native
# API (the one the bars judge), the same MPI program as the peers' built against rmpl's MPI layer
# (libmpi.so, run under rmplrun), then the peers.
LIBS = ["rmpl", "rmpl-mpi", "ompi", "mpich"]
LIB_NAMES = {"rmpl": "rmpl", "rmpl-mpi": "rmpl (MPI layer)", "ompi": "Open MPI", "mpich": "MPICH",
             "put": "raw put (fabric)"}
PEERS = ["ompi", "mpich"]
# The libraries launched with rmplrun ("put": bench/reference/raw_put.cpp, rmpl's fabric layer alone).
RMPLRUN_LIBS = ("rmpl", "rmpl-mpi", "put")
MPI_LIBS = ("rmpl-mpi", "ompi", "mpich")  # the builds of one MPI program (see build_mpi_programs)
PEER_CC = {"ompi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
# How build_mpi built each MPI flavour (lib: a short description for the report).
BUILT_WITH = {}
BUSY_SAMPLE = 0.25  # seconds of /proc/stat sampling before each run
# A cache line crosses between two cores in well under half a microsecond (this VM: 0.06-0.26 µs;
# across sockets ~0.1-0.2 µs). A probe reports a mean over 20 ms, so one above this was descheduled
# (the machine busy with other work) and says nothing about the placement.
PROBE_MAX_US = 0.5
PROBE_TRIES = 3  # probes per placement reading (about 30 ms each): descheduling only adds time, keep the least
PROBE_RE = re.compile(r"^reference,2,64,cacheline_latency_us,([-+0-9.eE]+|nan|inf)\s*$")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fmt_size(n):
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} B"


def fmt_val(v):
    if v is None:
        return "n/a"
    if v >= 1000:
        return f"{v:.0f}"
    if v >= 100:
        return f"{v:.1f}"
    if v >= 10:
        return f"{v:.2f}"
    return f"{v:.3f}"


def capture(cmd):
    """A command's output (stdout and stderr), or None."""
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        return out.stdout
    except (OSError, subprocess.SubprocessError):
        return None


def run_cmd(cmd, timeout, env=None):
    """Runs cmd in its own process group; returns (rc or None on timeout, stdout, stderr, seconds).
    On a timeout the whole group is killed and what it printed until then is returned."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
    except OSError as e:
        return -1, "", str(e), 0.0
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, time.monotonic() - t0
    except KeyboardInterrupt:
        # The run is in its own session, so the terminal's Ctrl-C did not reach it: end it too.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=3)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        raise
    except subprocess.TimeoutExpired:
        out, err = "", ""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                out, err = proc.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        return None, out or "", err or "", time.monotonic() - t0


def ensure_peers(no_install):
    have = {k: shutil.which(f"mpicc.{k}") is not None and shutil.which(f"mpirun.{k}") is not None
            for k in ("openmpi", "mpich")}
    if all(have.values()) or no_install:
        return
    cmd = ["apt-get", "install", "-y", "openmpi-bin", "libopenmpi-dev", "mpich", "libmpich-dev"]
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            log(f"{PROG}: the peers are missing and I am not root; install them with: " + shlex.join(cmd))
            return
        cmd = ["sudo"] + cmd
    log(f"{PROG}: installing the peers: " + shlex.join(cmd))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    rc, out, err, _ = run_cmd(cmd, 1800, env)
    if rc != 0:
        log(f"{PROG}: apt-get install failed:\n" + (err or out)[-2000:])


def build_targets(build_dir):
    """The targets the build system of build_dir knows (from `cmake --build --target help`), or None."""
    rc, out, _, _ = run_cmd(["cmake", "--build", build_dir, "--target", "help"], 120)
    if rc != 0:
        return None
    names = set()
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("... "):  # Makefiles: "... name (the description)"
            names.add(line[4:].split()[0])
        elif ":" in line:  # Ninja: "name: phony"
            names.add(line.split(":", 1)[0].strip())
    return names


def build_rmpl(build_dir, targets, problems, optional=()):
    """Configures build_dir (a Release build) if needed and builds `targets` there, then those of
    `optional` that the build system has (a target that does not exist, or fails, is only logged)."""
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        cmd = ["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"]
        if shutil.which("ninja"):
            cmd += ["-G", "Ninja"]
        log(f"{PROG}: configuring: " + shlex.join(cmd))
        rc, out, err, _ = run_cmd(cmd, 600)
        if rc != 0:
            problems.append(f"CMake configure of {build_dir} failed: {(err or out).strip()[-500:]}")
            return
    for t in targets:
        log(f"{PROG}: building {t}")
        rc, out, err, _ = run_cmd(["cmake", "--build", build_dir, "--target", t], 1800)
        if rc != 0:
            problems.append(f"building {t} failed: {(out + err).strip()[-800:]}")
    if optional:
        known = build_targets(build_dir)
        for t in optional:
            if known is not None and t not in known:
                log(f"{PROG}: {build_dir} has no target {t}; skipped")
                continue
            log(f"{PROG}: building {t}")
            rc, out, err, _ = run_cmd(["cmake", "--build", build_dir, "--target", t], 1800)
            if rc != 0:
                log(f"{PROG}: building {t} failed (going on without it): {(out + err).strip()[-800:]}")


def rmpl_mpi_compile(build_dir, src, exe, extra=()):
    """(command, description) that builds `src` into `exe` against rmpl's MPI layer of build_dir:
    the build's own compiler wrapper <build_dir>/bin/mpicc when there is one, else the C compiler with
    what that wrapper adds (mpi.h from the source tree, libmpi.so from <build_dir>/src/mpi, an rpath);
    or (None, why not) when the build has no libmpi.so. `extra`: arguments after the source (libraries)."""
    mpicc = os.path.join(build_dir, "bin", "mpicc")
    if os.access(mpicc, os.X_OK):
        return [mpicc, "-O3", "-o", exe, src] + list(extra), "the build's `bin/mpicc -O3`"
    libdir = os.path.join(build_dir, "src", "mpi")
    if not os.path.exists(os.path.join(libdir, "libmpi.so")):
        return None, f"neither {mpicc} nor {os.path.join(libdir, 'libmpi.so')} exists"
    cc = os.environ.get("CC") or "cc"
    cmd = shlex.split(cc) + ["-O3", "-I" + os.path.join(REPO, "include"), "-o", exe, src] + list(extra) + [
        "-L" + libdir, "-Wl,-rpath," + libdir, "-lmpi"]
    return cmd, f"`{os.path.basename(shlex.split(cc)[0])} -O3 -I include ... -lmpi` (the build has no bin/mpicc)"


def _newest_mtime(paths):
    """The newest modification time among `paths` (files, or directories searched recursively)."""
    newest = 0.0
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in files:
                    try:
                        newest = max(newest, os.path.getmtime(os.path.join(root, f)))
                    except OSError:
                        pass
        else:
            try:
                newest = max(newest, os.path.getmtime(p))
            except OSError:
                pass
    return newest


def build_mpi_programs(build_dir, programs, problems, libs=MPI_LIBS, jobs=None):
    """Builds MPI programs with each peer's mpicc -O3 and against rmpl's MPI layer (libmpi.so of
    build_dir), into <build_dir>/bench/mpi/<name>-<lib>, up to `jobs` compilers at once (default: one
    per CPU). programs: [(name, source, extra arguments after the source, e.g. ["-lpng", "-lm"])].
    An executable newer than its source, the headers beside it, its compiler and (for rmpl) libmpi.so
    and include/ is kept.
    Returns {name: {lib: executable}}; what cannot be built is reported in `problems` and left out."""
    outdir = os.path.join(build_dir, "bench", "mpi")
    os.makedirs(outdir, exist_ok=True)
    result = {name: {} for name, _, _ in programs}
    missing = [(name, src) for name, src, _ in programs if not os.path.exists(src)]
    for name, src in missing:
        problems.append(f"{os.path.relpath(src, REPO)} does not exist: {name} not measured")
    programs = [p for p in programs if os.path.exists(p[1])]
    todo = []  # (name, lib, exe, cmd)
    for lib in libs:
        if lib == "rmpl-mpi":
            deps = [os.path.join(build_dir, "bin", "mpicc"), os.path.join(build_dir, "src", "mpi", "libmpi.so"),
                    os.path.join(REPO, "include")]
        else:
            cc = shutil.which(PEER_CC[lib])
            if cc is None:
                problems.append(f"{PEER_CC[lib]} not found: {LIB_NAMES[lib]} not measured")
                continue
            deps = [os.path.realpath(cc)]
        for name, src, extra in programs:
            exe = os.path.join(outdir, f"{name}-{lib}")
            if lib == "rmpl-mpi":
                cmd, how = rmpl_mpi_compile(build_dir, src, exe, extra)
                if cmd is None:
                    problems.append(f"rmpl's MPI layer not built ({how}): {name} not measured with "
                                    f"{LIB_NAMES['rmpl-mpi']}")
                    continue
                BUILT_WITH["rmpl-mpi"] = how
            else:
                cmd = [PEER_CC[lib], "-O3", "-o", exe, src] + list(extra)
            headers = glob.glob(os.path.join(os.path.dirname(src), "*.h"))  # e.g. bench/mpi/ranks.h
            if os.path.exists(exe) and os.path.getmtime(exe) > _newest_mtime([src] + headers + deps):
                log(f"{PROG}: {os.path.relpath(exe)} is up to date")
                result[name][lib] = exe
                continue
            todo.append((name, lib, exe, cmd))
    jobs = max(1, jobs or os.cpu_count() or 1)
    running = []  # (name, lib, exe, cmd, Popen)

    def reap(entry):
        name, lib, exe, cmd, proc = entry
        try:
            out, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            proc.returncode = -1
        if proc.returncode != 0:
            problems.append(f"{shlex.join(cmd)} failed: {(out or '').strip()[-800:]}; {name} not measured "
                            f"with {LIB_NAMES[lib]}")
            if os.path.exists(exe):
                os.unlink(exe)  # a stale one would otherwise look up to date next time
        else:
            result[name][lib] = exe

    for name, lib, exe, cmd in todo:
        if len(running) >= jobs:
            reap(running.pop(0))
        log(f"{PROG}: " + shlex.join(cmd))
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    stdin=subprocess.DEVNULL)
        except OSError as e:
            problems.append(f"{shlex.join(cmd)} failed: {e}; {name} not measured with {LIB_NAMES[lib]}")
            continue
        running.append((name, lib, exe, cmd, proc))
    for entry in running:
        reap(entry)
    return result


def build_mpi(build_dir, name, problems):
    """Builds bench/mpi/<name>.c with each peer, and against rmpl's MPI layer (libmpi.so of
    build_dir), into <build_dir>/bench/mpi/<name>-<lib>; returns {lib: executable}. A flavour that
    cannot be built is reported in `problems` and left out."""
    src = os.path.join(REPO, "bench", "mpi", f"{name}.c")
    return build_mpi_programs(build_dir, [(name, src, [])], problems)[name]


def rmplrun_path(build_dir):
    return os.path.join(build_dir, "tools", "rmplrun", "rmplrun")


def launch_cmd(lib, ranks, exe, build_dir, prog_args):
    """The command that runs `exe` with `ranks` ranks under lib's launcher, default placement."""
    if lib in RMPLRUN_LIBS:
        return [rmplrun_path(build_dir), "-n", str(ranks), exe] + prog_args
    if lib == "ompi":
        cmd = ["mpirun.openmpi"]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        cmd += ["--mca", "btl", "self,vader"]
        if ranks > (os.cpu_count() or 1):
            cmd.append("--oversubscribe")
        return cmd + ["-n", str(ranks), exe] + prog_args
    if lib == "mpich":
        return ["mpirun.mpich", "-n", str(ranks), exe] + prog_args
    raise ValueError(lib)


def machine_info():
    info = {"nproc": str(os.cpu_count())}
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info["cpu"] = model or platform.processor() or "unknown"
    info["kernel"] = platform.release()
    ompi = capture(["ompi_info", "--version"])
    m = re.search(r"Open MPI v?(\S+)", ompi or "")
    info["ompi"] = m.group(1) if m else "unknown"
    mpich = capture(["mpichversion"])
    m = re.search(r"MPICH Version:\s*(\S+)", mpich or "")
    dev = re.search(r"MPICH Device:\s*(\S+)", mpich or "")
    info["mpich"] = (m.group(1) if m else "unknown") + (f" ({dev.group(1)})" if dev else "")
    gcc = capture(["g++", "--version"])
    info["gcc"] = gcc.splitlines()[0] if gcc else "unknown"
    rev = capture(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    info["commit"] = rev.strip() if rev and re.fullmatch(r"[0-9a-f]+\s*", rev) else "none"
    if info["commit"] != "none":
        dirty = capture(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])
        if dirty and dirty.strip():
            info["commit"] += " (with local changes)"
    return info


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError):
        return None


def cpu_busy(seconds):
    """Fraction of all CPUs' time spent busy over the next `seconds` (from /proc/stat), or None.
    Sampled while the harness itself only sleeps, so it measures everything else on the machine."""
    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return sum(fields[:8]), idle
    try:
        t0, i0 = sample()
        time.sleep(seconds)
        t1, i1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return None if t1 == t0 else 1.0 - (i1 - i0) / (t1 - t0)


def wait_idle(limit):
    """Waits up to `limit` seconds for a second in which the CPUs are less than 10% busy."""
    deadline = time.monotonic() + limit
    while True:
        b = cpu_busy(1.0)
        if b is None or b < 0.10:
            return
        if time.monotonic() >= deadline:
            log(f"{PROG}: the machine is still {b:.0%} busy; going on")
            return
        log(f"{PROG}: the machine is {b:.0%} busy; waiting for it to calm down")


def probe_placement(cacheline_exe):
    """Which vCPU placement the next run is likely to land in: the least one-way time in µs of
    PROBE_TRIES 20 ms cache-line ping-pongs between two CPUs, or None. A probe that shares the CPUs
    with other work only reads slower (its mean includes the time it was descheduled), so the least
    of a few back to back is the placement's; it may still exceed PROBE_MAX_US on a busy machine."""
    if not os.access(cacheline_exe, os.X_OK):
        return None
    values = []
    for _ in range(PROBE_TRIES):
        _, out, _, _ = run_cmd([cacheline_exe, "--time", "0.02"], 30)
        for line in out.splitlines():
            m = PROBE_RE.match(line.strip())
            if m:
                values.append(float(m.group(1)))
    return min(values) if values else None


def split_placements(probes):
    """The cache-line time that separates fast from slow vCPU placements, or None if one class.

    On a VM the two CPUs move between host placements in which a cache line crosses at very different
    speeds (this VM: ~0.06-0.09 µs close, ~0.2-0.26 µs far), and each run lands in one of them. The
    sorted probes are cut where the two sides are best separated on a log scale (the most variance
    between the sides, Otsu's threshold); the cut holds when the far side's median is at least twice
    the close side's. (A gap of 2x between neighbours would do on a quiet machine, but one probe read
    a little slow closes it: 0.07, 0.10, 0.20 is still two placements.) Probes above PROBE_MAX_US were
    descheduled: left out.

    >>> round(split_placements([0.07, 0.21, 0.08, 6000.0, 0.23, 575.7, None]), 3)
    0.13
    >>> split_placements([0.07, 0.09, 0.08]) is None
    True

    Probes of a loaded machine (bench/rmpl-bench, 2 ranks, 4 rounds; 3 more were above 0.5 µs):
    >>> loaded = [0.2177, 0.0703, 0.0478, 0.2469, 0.2202, 0.1007, 0.2282, 0.1994, 0.2382, 0.2207,
    ...           0.2242, 0.2041, 0.0689, 0.209, 0.3838, 0.2737, 0.2269]
    >>> round(split_placements(loaded), 3)
    0.142

    One far placement with slow readings, and one close run among far ones:
    >>> split_placements([0.20, 0.21, 0.22, 0.23, 0.25, 0.26, 0.30, 0.35]) is None
    True
    >>> round(split_placements([0.07] + [0.20, 0.21, 0.22, 0.23, 0.25, 0.26, 0.30]), 3)
    0.118
    """
    vals = sorted(v for v in probes if v is not None and 0 < v <= PROBE_MAX_US)
    if vals:  # a probe that was itself descheduled says nothing about placement
        typical = statistics.median(vals)
        vals = [v for v in vals if v <= 4 * typical]
    logs = [math.log(v) for v in vals]
    best, cut = 0.0, None
    for i in range(1, len(vals)):
        if vals[i] == vals[i - 1]:
            continue
        lo, hi = logs[:i], logs[i:]
        between = len(lo) * len(hi) * (statistics.fmean(hi) - statistics.fmean(lo)) ** 2
        if between > best:
            best, cut = between, i
    if cut is None or statistics.median(vals[cut:]) < 2 * statistics.median(vals[:cut]):
        return None
    return (vals[cut - 1] * vals[cut]) ** 0.5


# A run's value at a point it had not printed when it was killed (judge_by_placement): the bars count
# a library that only ever timed out at a point as infinitely slow there.
TIMED_OUT = "timeout"
PLACEMENT_CLASSES = ("close", "far")


def placement_class(probe, split):
    """The vCPU placement class of a run whose cache-line probe read `probe` µs: "close" below
    `split` (split_placements of every probe of the session), "far" from split to 4 × split, None
    when the probe is missing or beyond that or PROBE_MAX_US (a probe that was itself descheduled)."""
    if split is None or probe is None or probe > PROBE_MAX_US:
        return None
    if probe < split:
        return "close"
    return "far" if probe <= 4 * split else None


def placement_class_name(cls, split):
    """"close (cache line < 0.13 µs)": a class with its bound, for the reports."""
    return f"{cls} (cache line {'<' if cls == 'close' else '≥'} {fmt_val(split)} µs)"


def run_median(vals):
    """The median of a library's values in one class (number of runs that gave one), TIMED_OUT when its
    runs there only timed out, None when it has no value there."""
    nums = [v for v in vals if v is not None and v is not TIMED_OUT]
    if nums:
        return statistics.median(nums), len(nums)
    return (TIMED_OUT, 0) if any(v is TIMED_OUT for v in vals) else (None, 0)


def beyond_reference(target, reference, higher_is_better, measured=()):
    """Whether a bar's target lies beyond a reference that bounds every library (bench/rmpl-bench: the
    fabric's raw put of the same flavour): above it for a throughput, below it for a time. False when
    the reference was not measured, or when a measured value (any library's, at the same point)
    itself passes the reference: there the reference is evidently no bound.

    >>> beyond_reference(3 * 1018, 2376, True)      # MB/s: 3x the better peer above the raw put
    True
    >>> beyond_reference(3 * 500, 2376, True)
    False
    >>> beyond_reference(1.2e-6 / 3, 0.5e-6, False)  # µs: a third of the peer's time under the raw put's
    True
    >>> beyond_reference(3 * 1018, None, True)
    False
    >>> beyond_reference(3 * 1018, 2376, True, measured=[1506, 1018, None])
    True
    >>> beyond_reference(3 * 600, 1554, True, measured=[3335, 600])  # a library beat the "bound"
    False
    """
    if reference is None:
        return False
    passes = (lambda v: v > reference) if higher_is_better else (lambda v: v < reference)
    if any(v is not None and passes(v) for v in measured):
        return False
    return passes(target)


def judge_by_placement(runs, split, wins):
    """Judges one bar at one point like for like across the vCPU placements (2 ranks).

    runs: {lib: [(probe, value), ...]}, one pair per run of each compared library: the cache-line probe
    taken just before the run (µs, or None) and the run's value at the point (a number, TIMED_OUT, or
    None when the run gave none). split: split_placements over every probe of the session (None: one
    placement). wins({lib: median or TIMED_OUT or None}) -> True (the subject wins), False, or None
    (cannot say: a median missing) is the bar's own comparison.

    Two libraries compared on all runs can land in different placements by chance (the placement
    changes every few minutes, 3x apart for short messages), so when the probes split into classes,
    each class in which every library has at least one run is judged on its own medians, and the bar
    passes only if the subject wins in every one of them. With one placement, or no class shared by
    all libraries, the judgment is on all runs (said so in `how`).

    Returns (ok, how, classes): ok True / False / None (nothing to judge); how: "close, far", "close"
    or "far" (the classes judged), "one placement", "not probed" (no usable probe: judged on all runs)
    or "all runs" (two placements, but none with a run of every library); classes: [(class, {lib:
    (median, runs)}, True / False / None)] for each class with a run of any library (empty with one
    placement).

    A point whose all-runs medians mix the placements (rmpl's runs mostly far, the peer's mostly
    close) misses on all runs, yet rmpl wins in each placement:
    >>> lower = lambda m: None if None in m.values() else m["rmpl"] < m["ompi"]
    >>> runs = {"rmpl": [(0.07, 0.30), (0.22, 0.90), (0.23, 0.95)],
    ...         "ompi": [(0.08, 0.50), (0.06, 0.52), (0.21, 1.20)]}
    >>> split = split_placements([p for r in runs.values() for p, _ in r])
    >>> lower({lib: statistics.median(v for _, v in r) for lib, r in runs.items()})
    False
    >>> ok, how, classes = judge_by_placement(runs, split, lower)
    >>> ok, how
    (True, 'close, far')
    >>> [(c, m["rmpl"], m["ompi"], w) for c, m, w in classes]
    [('close', (0.3, 1), (0.51, 2), True), ('far', (0.925, 2), (1.2, 1), True)]

    When rmpl loses in one placement the bar misses, even though all runs pass:
    >>> runs = {"rmpl": [(0.07, 0.55), (0.08, 0.56), (0.22, 0.90)],
    ...         "ompi": [(0.07, 0.50), (0.22, 1.20), (0.23, 1.30)]}
    >>> lower({lib: statistics.median(v for _, v in r) for lib, r in runs.items()})
    True
    >>> ok, how, classes = judge_by_placement(runs, split_placements([0.07, 0.08, 0.22, 0.23]), lower)
    >>> ok, how, [w for _, _, w in classes]
    (False, 'close, far', [False, True])

    A class without a run of every library is not judged; with one placement all runs are:
    >>> runs = {"rmpl": [(0.07, 0.3), (0.22, 0.9)], "ompi": [(0.21, 1.2), (0.23, 1.1)]}
    >>> judge_by_placement(runs, 0.13, lower)[:2]
    (True, 'far')
    >>> judge_by_placement(runs, None, lower)
    (True, 'one placement', [])
    >>> judge_by_placement({"rmpl": [(0.07, 0.3)], "ompi": [(0.22, 0.2)]}, 0.13, lower)[:2]
    (False, 'all runs')
    >>> judge_by_placement({"rmpl": [(None, 0.3)], "ompi": [(4000.0, 0.2)]}, None, lower)
    (False, 'not probed', [])
    """
    everything = {lib: run_median([v for _, v in pairs])[0] for lib, pairs in runs.items()}
    if split is None:
        probed = any(p is not None and p <= PROBE_MAX_US for pairs in runs.values() for p, _ in pairs)
        return wins(everything), "one placement" if probed else "not probed", []
    classes = []
    for cls in PLACEMENT_CLASSES:
        meds = {lib: run_median([v for p, v in pairs if placement_class(p, split) == cls])
                for lib, pairs in runs.items()}
        if all(m is None for m, _ in meds.values()):
            continue
        shared = all(m is not None for m, _ in meds.values())
        classes.append((cls, meds, wins({lib: m for lib, (m, _) in meds.items()}) if shared else None))
    judged = [(cls, ok) for cls, _, ok in classes if ok is not None]
    if not judged:
        return wins(everything), "all runs", classes
    return all(ok for _, ok in judged), ", ".join(cls for cls, _ in judged), classes


def placement_note(split, probes, fell_back=False):
    """How the 2-rank bars were judged, for a bar's detail: the placement classes the session's probes
    form (split: split_placements of them); fell_back: some row was judged on all runs although there
    were two placements (judge_by_placement's "all runs")."""
    vals = sorted(p for p in probes if p is not None and p <= PROBE_MAX_US)
    bad = len(probes) - len(vals)
    bad = f"; {bad} of {len(probes)} probes failed or were descheduled (no class)" if bad else ""
    if not vals:
        return f"placement not probed{bad}: judged on all runs"
    if split is None:
        return (f"one placement (cache-line probes {fmt_val(vals[0])}–{fmt_val(vals[-1])} µs, {len(vals)} runs"
                f"{bad}): judged on all runs")
    n = {c: sum(1 for p in vals if placement_class(p, split) == c) for c in PLACEMENT_CLASSES}
    return (f"two placements (cache line split at {fmt_val(split)} µs: close {n['close']} runs, far {n['far']}"
            f"{bad}): each judged within every placement in which all compared libraries ran (the ratios per "
            "placement after its name), passing only if it passes in each"
            + ("; \"all runs\": no placement had a run of every compared library" if fell_back else ""))


def summarize(values):
    """(median, min, max, count) of the values that are not None, or None."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals), len(vals)


def cell(s):
    if s is None:
        return "n/a"
    med, lo, hi, _ = s
    return f"{fmt_val(med)} ({fmt_val(lo)}–{fmt_val(hi)})"


def ratio(a, b):
    if a is None or b is None or b[0] == 0:
        return "n/a"
    r = a[0] / b[0]
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def update_doc(path, section, begin, end):
    """Replaces the text between the markers `begin` and `end` in `path` with `section` (appends the
    marked section at the end if the markers are not there yet)."""
    block = f"{begin}\n{section}\n{end}\n"
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = "# Benchmarks\n\n"
    b, e = text.find(begin), text.find(end)
    if b != -1 and e != -1 and e > b:
        after = text[e + len(end):]
        if after.startswith("\n"):
            after = after[1:]
        text = text[:b] + block + after
    else:
        if text and not text.endswith("\n"):
            text += "\n"
        if text and not text.endswith("\n\n"):
            text += "\n"
        text += block
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def invoked_as(script_path, display):
    """How the script was invoked, for the report: `display` plus the arguments when it was run by
    its own path, else the whole command line."""
    if os.path.abspath(sys.argv[0]) == os.path.abspath(script_path):
        return shlex.join([display] + sys.argv[1:])
    return shlex.join(sys.argv)


def fmt_duration(seconds):
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Progress of a sequence of runs on stderr: which run of how many, the time so far and an
    estimate of the time left. A run's estimate is how long the same run (same key) took in an earlier
    round, else the mean of the runs so far with the same `kind`, else of all runs so far."""

    def __init__(self, total):
        self.total, self.done = total, 0
        self.t0 = time.monotonic()
        self.by_key, self.by_kind, self.all = {}, {}, []

    def estimate(self, key, kind):
        if key in self.by_key:
            return self.by_key[key]
        same = self.by_kind.get(kind)
        if same:
            return sum(same) / len(same)
        return sum(self.all) / len(self.all) if self.all else None

    def prefix(self, remaining):
        """"[run 7/45, 0:42, about 3:10 left]" for the next run; remaining: [(key, kind)] not yet run,
        the next one included."""
        est = [self.estimate(k, kind) for k, kind in remaining]
        left = "" if any(e is None for e in est) else f", about {fmt_duration(sum(est))} left"
        return f"[run {self.done + 1}/{self.total}, {fmt_duration(time.monotonic() - self.t0)}{left}]"

    def finished(self, key, kind, seconds):
        self.done += 1
        self.by_key[key] = seconds
        self.by_kind.setdefault(kind, []).append(seconds)
        self.all.append(seconds)


if __name__ == "__main__":  # python3 bench/harness.py: the examples above (judge_by_placement) as tests
    import doctest
    failures, tried = doctest.testmod()
    print(f"harness.py: {tried - failures} of {tried} examples pass")
    sys.exit(1 if failures else 0)
