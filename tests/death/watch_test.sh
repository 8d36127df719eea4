#!/usr/bin/env bash
# Liveness that does not depend on the launcher (issue 22 item 23): the ranks of a host watch each
# other, and the launcher, themselves.
#
# 1. rmplrun is stopped (SIGSTOP, as a debugger stops it), then a rank is killed (SIGKILL) while
#    the others are blocked in a receive from it or in a collective with it. rmplrun can neither
#    reap the victim nor mark it dead: each survivor must still report errc::dead_rank naming the
#    victim and its signal, within a few seconds, while rmplrun is still stopped. Then rmplrun
#    resumes (SIGCONT) and must end the job as usual (status 137, nothing left behind).
# 2. rmplrun itself is killed (SIGKILL) while the ranks (2, 3, 4, 5, 8) wait for a peer that never
#    sends: each rank blocked in rmpl must end with a message saying the launcher is gone, and no
#    process of the job (its pids taken before the kill) may outlive it by more than a few seconds.
# 3. As 1 through the MPI layer (MPI_ERRORS_RETURN), the survivors in loops that never sleep
#    (MPI_Test, MPI_Iprobe, MPI_Testall) as well as in MPI_Recv: MPI_ERR_PROC_FAILED naming the
#    victim and its signal.
#
# Usage: watch_test.sh path/to/rmplrun path/to/dead_peer [path/to/dead_peer_mpi]
#   WATCH_SECTIONS="1 3"   runs only those parts (default: 1 2 3)
#   WATCH_REPORT=file   appends "case op ranks worst-survivor-ms" per case of 1 and "case op ranks
#                       all-reported-ms all-gone-ms" per case of 2 to file
# Prints "ok - ..." or "not ok - ..." per case; exits non-zero if any failed.
# shellcheck disable=SC2016
set -euo pipefail

# marker, now_ms, verdict (sourced before any cd: the script's path may be relative)
# shellcheck source=tests/death/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RMPLRUN=$(realpath "$1")
PEER=$(realpath "$2")
MPI_PEER=${3:+$(realpath "$3")}
tmp=$(mktemp -d)
failures=0
job_pid=
ulimit -c 0
cleanup() {
  # A failed case may leave rmplrun stopped: never leave it (or its job) behind.
  if [[ -n $job_pid ]]; then
    kill -CONT "$job_pid" 2>/dev/null || true
    kill -KILL "$job_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"

# How long the survivors may take (from the death) while rmplrun is stopped: "a few seconds". The
# ranks wake to check at least every 50 ms; the bound leaves room for a loaded 2-core machine.
bound_ms=3000

report_line() { [[ -n ${WATCH_REPORT:-} ]] && echo "$*" >>"$WATCH_REPORT" || true; }

# start_job N OP [FILES [MPI [DEATH]]]: rmplrun -n N dead_peer DEATH (hang by default) OP
# (dead_peer_mpi hang OP if MPI is given) in the background (pid in job_pid, marker in m), its
# descriptor limit FILES unless empty; waits until the N-1 survivors say they are blocking and the
# victim (rank N-1) gave its pid.
start_job() {
  local n=$1 files=${3:-} i
  local program=("$PEER" "${5:-hang}" "$2" "$tmp/stamp" $((n - 1)))
  [[ -z ${4:-} ]] || program=("$MPI_PEER" hang "$2" "$tmp/stamp")
  m=$(marker)
  rm -f "$tmp/stamp"
  : >"$tmp/out"
  (
    [[ -z $files ]] || ulimit -n "$files"
    exec "$RMPLRUN" -n "$n" --timeout 60 "${program[@]}" "$m"
  ) >"$tmp/out" 2>"$tmp/err" </dev/null &
  job_pid=$!
  for ((i = 0; i < 300; i++)); do
    if [[ $(grep -c "blocking in" "$tmp/out") -ge $((n - 1)) ]] && grep -q "victim pid" "$tmp/out"; then
      sleep 0.2 # into their waits (and asleep: the spin phase is far shorter)
      return 0
    fi
    sleep 0.05
  done
  return 1
}

# reports OP: "reports named worst" over the survivors' lines of dead_peer ("rank R: OP failed
# T ms after the death ...: <error>"; dead_peer_mpi names the function as OP), where named counts
# errors matching $PATTERN.
reports() {
  PATTERN=$PATTERN awk -v op="$1" '
    $0 ~ "^rank [0-9]+: " op " failed " {
      reports++
      if ($0 ~ ENVIRON["PATTERN"]) named++
      t = -1
      for (i = 1; i < NF; i++) if ($(i + 1) == "ms" && $(i + 2) == "after") t = $i + 0
      if (t > worst) worst = t
    }
    END { printf "%d %d %d\n", reports, named, int(worst + 0.999) }' "$tmp/out"
}

# alive PIDS...: prints those of PIDS that are still running (not zombies).
alive() {
  local p state
  for p in "$@"; do
    state=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$p/stat" 2>/dev/null || true)
    [[ -n $state && $state != Z && $state != X ]] && echo "$p"
  done
  return 0
}

# ---- 1. rmplrun stopped, a rank killed ----

# stopped_case N OP FILES [MPI [DEATH]]: one case of 1 (of 3 with MPI: OP is dead_peer_mpi's). The
# victim is SIGKILLed, or with DEATH exit0_on_stamp exits 0 without finalizing: a failure all the
# same, which rmplrun must report (status 1) once it resumes although the ranks marked it first.
stopped_case() {
  local n=$1 op=$2 files=$3 mpi=${4:-} death=${5:-sigkill} v=$(($1 - 1)) what=$2 victim pidfds p
  local t0 got named worst rc problems='' left name
  local cause='was killed by signal 9 \(Killed\)' status=137 how='killed (SIGKILL)'
  local launcher_cause=$cause
  if [[ $death == exit0_on_stamp ]]; then
    cause='exited with status 0' status=1 how='exits 0 without finalizing'
    launcher_cause='exited with status 0 without finalizing rmpl'
  fi
  name="rmplrun stopped (SIGSTOP), rank $v $how while the others are in $op, -n $n"
  [[ -z $files ]] || name+=" (ulimit -n $files: /proc, no pidfds)"
  [[ -z ${DEAD_PEER_SURVIVOR_STATUS:-} ]] ||
    name+=" (the survivors then exit $DEAD_PEER_SURVIVOR_STATUS)"
  # What the survivors' lines name, and what their errors must say.
  PATTERN=": rmpl: rank [0-9]+ cannot continue: rank $v $cause"
  [[ $op != startup ]] || PATTERN=": rmpl: rank [0-9]+ cannot start: rank $v $cause before every rank joined"
  if [[ -n $mpi ]]; then
    case $op in
      recv) what=MPI_Recv ;; test) what=MPI_Test ;; testall) what=MPI_Testall ;;
      iprobe) what=MPI_Iprobe ;; allreduce) what=MPI_Allreduce ;;
    esac
    name="MPI layer: $name ($what)"
    PATTERN=": MPI_ERR_PROC_FAILED: .*cannot continue: rank $v $cause"
  fi
  # The victim waits to be killed (hang), or for the stamp (exit0_on_stamp).
  if ! start_job "$n" "$op" "$files" "$mpi" "${death/sigkill/hang}"; then
    verdict "$name" "the ranks did not start" ""
    kill -KILL "$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
    job_pid=
    return
  fi
  victim=$(awk '/victim pid/ { print $5 }' "$tmp/out")
  # Which way the ranks watch: each rank that has slept in a wait holds a pidfd per peer and one
  # for the launcher, or none at all under the descriptor limit.
  pidfds=0
  for p in $(pgrep -f -- "$m"); do
    [[ $p == "$job_pid" ]] && continue
    pidfds=$((pidfds + $(find "/proc/$p/fd" -lname '*pidfd*' 2>/dev/null | wc -l)))
  done
  kill -STOP "$job_pid"
  echo $(($(date +%s%N))) >"$tmp/stamp.tmp"
  mv "$tmp/stamp.tmp" "$tmp/stamp" # whole: exit0_on_stamp's victim exits when it appears
  [[ $death == exit0_on_stamp ]] || kill -KILL "$victim"
  # Wait (rmplrun stopped) until every survivor reported, or give up after 10 s.
  t0=$(now_ms)
  while (($(now_ms) - t0 < 10000)); do
    read -r got _ _ < <(reports "$what")
    ((got >= n - 1)) && break
    sleep 0.05
  done
  read -r got named worst < <(reports "$what")
  kill -CONT "$job_pid"
  rc=0
  wait "$job_pid" || rc=$?
  job_pid=
  if [[ -n $files ]]; then
    ((pidfds == 0)) || problems+="under ulimit -n $files the ranks should hold no pidfd ($pidfds)"$'\n'
  elif [[ -z $mpi ]]; then
    ((pidfds >= (n - 1) * n)) ||
      problems+="the $((n - 1)) survivors should hold $n pidfds each, they hold $pidfds in all"$'\n'
  fi
  ((got == n - 1)) ||
    problems+="$((n - 1)) survivors should report while rmplrun is stopped, $got did within 10 s"$'\n'
  ((named == n - 1)) ||
    problems+="each survivor's error should name rank $v and how it ended ($named did)"$'\n'
  ((worst < bound_ms)) || problems+="the slowest survivor took $worst ms (bound $bound_ms)"$'\n'
  [[ $rc -eq $status ]] || problems+="rmplrun exited with $rc, not $status (once resumed)"$'\n'
  grep -qE "^rmplrun: rank $v \(pid [0-9]+\) $launcher_cause" "$tmp/err" ||
    problems+="rmplrun's message (once resumed) does not name rank $v and how it ended"$'\n'
  sleep 0.2
  left=$(pgrep -af -- "$m" || true)
  [[ -z $left ]] || problems+="left behind: $left"$'\n'
  report_line "stopped-launcher${mpi:+-mpi}${files:+-proc}-$death $op $n $worst"
  verdict "$name" "$problems" "$((n - 1)) survivors reported within $worst ms, rmplrun $rc once resumed"
}

sections=" ${WATCH_SECTIONS:-1 2 3} "

if [[ $sections == *" 1 "* ]]; then
  for n in 2 3 4 5 8; do
    stopped_case "$n" recv ""
    stopped_case "$n" allreduce ""
  done
  # The victim killed before it joins, the others in the start-up barrier: they watch it by the
  # pid rmplrun wrote at the fork.
  stopped_case 3 startup ""
  stopped_case 8 startup ""
  # With a limit of 32 descriptors, 8 ranks' pidfds would take more than a quarter of it, so the
  # ranks watch through /proc/<pid>/stat instead (the way for kernels without pidfds).
  stopped_case 8 recv 32
  stopped_case 8 allreduce 32
  # An exit 0 without finalizing: the ranks mark it; rmplrun, resumed, must still fail the job.
  stopped_case 3 recv "" "" exit0_on_stamp
  stopped_case 5 allreduce "" "" exit0_on_stamp
  # Survivors that end with an error status of their own once they have reported the death (as
  # most programs do): rmplrun, resumed, finds them gone with the dead rank and must still name
  # the dead rank, not the first survivor it reaps.
  DEAD_PEER_SURVIVOR_STATUS=5 stopped_case 4 recv ""
  DEAD_PEER_SURVIVOR_STATUS=5 stopped_case 3 recv "" "" exit0_on_stamp
fi

# ---- 2. rmplrun killed ----

for n in 2 3 4 5 8; do
  [[ $sections == *" 2 "* ]] || break
  name="rmplrun killed (SIGKILL) while $((n - 1)) ranks wait in recv, -n $n"
  if ! start_job "$n" recv; then
    verdict "$name" "the ranks did not start" ""
    kill -KILL "$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
    job_pid=
    continue
  fi
  # Every process of the job: the ranks and the launcher's stand-in group leader.
  read -ra pids <<<"$(pgrep -f -- "$m" | tr '\n' ' ')"
  launcher=$job_pid
  kill -KILL "$job_pid"
  wait "$job_pid" 2>/dev/null || true
  job_pid=
  t0=$(now_ms)
  PATTERN=": rmpl: rank [0-9]+ cannot continue: the job's launcher \\(rmplrun, pid $launcher\\) is gone"
  reported_ms=-
  while (($(now_ms) - t0 < 10000)); do
    if [[ $reported_ms == - ]]; then
      read -r got _ _ < <(reports recv)
      ((got < n - 1)) || reported_ms=$(($(now_ms) - t0))
    fi
    [[ -z $(alive "${pids[@]}") ]] && break
    sleep 0.05
  done
  ms=$(($(now_ms) - t0))
  read -r got named _ < <(reports recv)
  problems=''
  left=$(alive "${pids[@]}")
  ((${#pids[@]} >= n)) || problems+="found ${#pids[@]} processes of the job, expected at least $n"$'\n'
  [[ -z $left ]] || problems+="still running 10 s after rmplrun died: $(tr '\n' ' ' <<<"$left")"$'\n'
  ((got == n - 1)) || problems+="$((n - 1)) waiting ranks should report, $got did"$'\n'
  ((named == n - 1)) ||
    problems+="each waiting rank's error should say that rmplrun (pid $launcher) is gone ($named did)"$'\n'
  report_line "killed-launcher recv $n $reported_ms $ms"
  verdict "$name" "$problems" \
    "$((n - 1)) ranks reported it within $reported_ms ms, every process gone within $ms ms"
done

# ---- 3. the MPI layer, rmplrun stopped: loops that never sleep, and a blocking receive ----

if [[ -n $MPI_PEER && $sections == *" 3 "* ]]; then
  stopped_case 2 test "" mpi
  stopped_case 3 iprobe "" mpi
  stopped_case 4 recv "" mpi
  stopped_case 5 testall "" mpi
  stopped_case 8 test "" mpi
fi

if ((failures > 0)); then
  echo "# $failures case(s) failed"
  exit 1
fi
