#!/usr/bin/env bash
# Liveness that does not depend on the launcher (issue 22 item 23): the ranks of a host watch each
# other, and the launcher, themselves.
#
# 1. rmplrun is stopped (SIGSTOP, as a debugger stops it), then a rank is killed (SIGKILL) while
#    the others are blocked in a receive from it or in a collective with it. rmplrun can neither
#    reap the victim nor mark it dead: each survivor must still report errc::dead_rank naming the
#    victim and its signal, within a few seconds, while rmplrun is still stopped. Then rmplrun
#    resumes (SIGCONT) and must end the job as usual (status 137, nothing left behind).
# 2. rmplrun itself is killed (SIGKILL) while the ranks wait for a peer that never sends: each rank
#    blocked in rmpl must end with a message saying the launcher is gone, and no process of the job
#    (checked by the pids each rank printed) may outlive it by more than a few seconds.
#
# Usage: watch_test.sh path/to/rmplrun path/to/dead_peer
#   WATCH_REPORT=file   appends "case op ranks worst-survivor-ms" per case of 1 and "case op ranks
#                       all-reported-ms all-gone-ms" per case of 2 to file
# Prints "ok - ..." or "not ok - ..." per case; exits non-zero if any failed.
# shellcheck disable=SC2016
set -euo pipefail

RMPLRUN=$(realpath "$1")
PEER=$(realpath "$2")
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

marker() { echo $((7000000 + RANDOM * 32 + RANDOM % 32)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
report_line() { [[ -n ${WATCH_REPORT:-} ]] && echo "$*" >>"$WATCH_REPORT" || true; }

verdict() {
  if [[ -z $2 ]]; then
    echo "ok - $1: $3"
  else
    echo "not ok - $1"
    sed 's/^/#   /' <<<"$2"
    sed 's/^/#   stdout: /' <"$tmp/out" | head -40 || true
    sed 's/^/#   stderr: /' <"$tmp/err" | head -40 || true
    failures=$((failures + 1))
  fi
}

# start_job N OP: rmplrun -n N dead_peer hang OP in the background (pid in job_pid, marker in m);
# waits until the N-1 survivors say they are blocking and the victim (rank N-1) gave its pid.
start_job() {
  local n=$1 i
  m=$(marker)
  rm -f "$tmp/stamp"
  : >"$tmp/out"
  "$RMPLRUN" -n "$n" --timeout 60 "$PEER" hang "$2" "$tmp/stamp" $((n - 1)) "$m" \
    >"$tmp/out" 2>"$tmp/err" </dev/null &
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

# reports OP V: "reports named worst" over the survivors' lines of dead_peer ("rank R: OP failed
# T ms after the death ...: <error>"), where named counts errors matching $PATTERN.
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

i=0
for n in 2 3 4 5 8; do
  for op in recv allreduce; do
    i=$((i + 1))
    name="rmplrun stopped (SIGSTOP), rank $((n - 1)) killed (SIGKILL) while the others are in $op, -n $n"
    if ! start_job "$n" "$op"; then
      verdict "$name" "the ranks did not start" ""
      kill -KILL "$job_pid" 2>/dev/null || true
      wait "$job_pid" 2>/dev/null || true
      job_pid=
      continue
    fi
    v=$((n - 1))
    victim=$(awk '/victim pid/ { print $5 }' "$tmp/out")
    kill -STOP "$job_pid"
    echo $(($(date +%s%N))) >"$tmp/stamp"
    kill -KILL "$victim"
    # Wait (rmplrun stopped) until every survivor reported, or give up after 10 s.
    PATTERN=": rmpl: rank [0-9]+ cannot continue: rank $v was killed by signal 9 \\(Killed\\)"
    t0=$(now_ms)
    while (($(now_ms) - t0 < 10000)); do
      read -r got _ _ < <(reports "$op")
      ((got >= n - 1)) && break
      sleep 0.05
    done
    read -r got named worst < <(reports "$op")
    kill -CONT "$job_pid"
    rc=0
    wait "$job_pid" || rc=$?
    job_pid=
    problems=''
    ((got == n - 1)) ||
      problems+="$((n - 1)) survivors should report while rmplrun is stopped, $got did within 10 s"$'\n'
    ((named == n - 1)) ||
      problems+="each survivor's error should name rank $v and signal 9 ($named did)"$'\n'
    ((worst < bound_ms)) || problems+="the slowest survivor took $worst ms (bound $bound_ms)"$'\n'
    [[ $rc -eq 137 ]] || problems+="rmplrun exited with $rc, not 137 (once resumed)"$'\n'
    grep -qE "^rmplrun: rank $v \(pid [0-9]+\) was killed by signal 9 \(Killed\)" "$tmp/err" ||
      problems+="rmplrun's message (once resumed) does not name rank $v and SIGKILL"$'\n'
    sleep 0.2
    left=$(pgrep -af -- "$m" || true)
    [[ -z $left ]] || problems+="left behind: $left"$'\n'
    report_line "stopped-launcher $op $n $worst"
    verdict "$name" "$problems" "$((n - 1)) survivors reported within $worst ms, rmplrun $rc once resumed"
  done
done

# ---- 2. rmplrun killed ----

for n in 2 3 5 8; do
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

if ((failures > 0)); then
  echo "# $failures case(s) failed"
  exit 1
fi
