#!/usr/bin/env bash
# A rank dies (segfault, abort, exit 0 without finalizing, exit 3, SIGKILL) while the others are
# blocked in an operation (each point-to-point wait and each collective) or at start-up. Checks, for
# every case: each survivor reports errc::dead_rank with a message naming the dead rank and how it
# died, within 1 s of the death; rmplrun exits with the victim's status and a message naming it
# and its exit status or signal; no process of the job, no file in /dev/shm and no holder of the
# job's memfd is left. Then: SIGINT to rmplrun, its terminal hanging up (SIGHUP), a rank killed
# from outside, and a segment too large for memory (refused before any rank starts).
#
# Usage: death_test.sh path/to/rmplrun path/to/dead_peer [path/to/dead_peer_mpi
#                      [path/to/vanished_sender_mpi]]
#   DEATH_FULL=1   every case at every rank count from 2 to 8 (about 10 minutes), instead of each
#                  case at one rank count, cycling through 2, 3, 4, 5 and 8 (under a minute)
#   DEATH_REPORT=file   appends "death op ranks rmplrun-ms worst-peer-ms" per case to file
# Prints "ok - ..." or "not ok - ..." per case; exits non-zero if any failed.
# shellcheck disable=SC2016
set -euo pipefail

# marker, now_ms, verdict (sourced before any cd: the script's path may be relative)
# shellcheck source=tests/death/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RMPLRUN=$(realpath "$1")
PEER=$(realpath "$2")
MPI_PEER=${3:+$(realpath "$3")}
VANISHED_SENDER=${4:+$(realpath "$4")}
tmp=$(mktemp -d)
failures=0
ulimit -c 0  # the victims must not leave core files behind
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
shm_before=$(ls -A /dev/shm | sort)
# Under AddressSanitizer a segfault would become ASan's report and exit status 1: let the signal
# kill the victim as it would in any other build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_abort=0"

ops=(recv irecv probe ssend sendrecv barrier broadcast reduce allreduce alltoall gather scatter
     allgather scan reduce_scatter finalize startup)
deaths=(segv abort exit0 exit3 sigkill)


# leftovers MARKER INODE: prints what of a job is still there (nothing, if all is well): processes
# with MARKER in their arguments, processes holding or mapping the memfd with inode INODE. Waits up
# to 2 s for SIGKILLed processes to finish dying.
leftovers() {
  local m=$1 ino=$2 i found
  for ((i = 0; i < 40; i++)); do
    found=$(
      pgrep -af -- "$m" | sed 's/^/process: /' || true
      if [[ -n $ino ]]; then
        # An inode number is unique on its file system only: the name says it is a memfd of ours.
        find -L /proc/[0-9]*/fd -maxdepth 1 -inum "$ino" 2>/dev/null | while read -r f; do
          [[ $(readlink "$f") == /memfd:rmpl-job* ]] && echo "holds the segment: $f"
        done || true
        grep -lsE " $ino +/memfd:rmpl-job" /proc/[0-9]*/maps | sed 's/^/maps the segment: /' || true
      fi
    )
    [[ -z $found ]] && return 0
    sleep 0.05
  done
  echo "$found"
}

# expect_of DEATH: sets status (rmplrun's expected exit status) and cause (the regex that the
# launcher's message and the survivors' errors must contain after "rank V ").
expect_of() {
  case $1 in
    segv) status=139 cause='was killed by signal 11 \(Segmentation fault\)' ;;
    abort) status=134 cause='was killed by signal 6 \(Aborted\)' ;;
    exit0) status=1 cause='exited with status 0' ;;
    exit3) status=3 cause='exited with status 3' ;;
    sigkill | hang) status=137 cause='was killed by signal 9 \(Killed\)' ;;
  esac
}

report_line() { [[ -n ${DEATH_REPORT:-} ]] && echo "$*" >>"$DEATH_REPORT" || true; }

# check_job NAME N DEATH OP VICTIM RC MS M: the checks common to every death.
check_job() {
  local name=$1 n=$2 death=$3 op=$4 v=$5 rc=$6 ms=$7 m=$8
  local problems='' status cause ino worst reports named late left
  expect_of "$death"
  local launcher_cause=$cause
  if [[ $death == exit0 && $op != startup ]]; then
    launcher_cause='exited with status 0 without finalizing rmpl'
  elif [[ $death == exit0 ]]; then
    launcher_cause='exited with status 0 before every rank joined the job'
  fi
  [[ $rc -eq $status ]] || problems+="rmplrun exited with $rc, not $status"$'\n'
  grep -qE "^rmplrun: rank $v \(pid [0-9]+\) $launcher_cause" "$tmp/err" ||
    problems+="rmplrun's message does not name rank $v and '$launcher_cause'"$'\n'
  # Every survivor reports the death, naming the victim, within a second. One awk reads the
  # survivors' lines: "reports named late worst inode".
  local pattern=": rmpl: rank [0-9]+ cannot (continue|start): rank $v $cause"
  [[ $op == finalize ]] && pattern=" finalize returned"
  # (The pattern goes through the environment: awk -v would take its backslashes as escapes.)
  read -r reports named late worst ino < <(PATTERN=$pattern awk -v op="$op" '
    /^segment inode/ { ino = $3 }
    $0 ~ "^rank [0-9]+: " op " (failed|returned) " {
      reports++
      if ($0 ~ ENVIRON["PATTERN"]) named++
      t = -1
      for (i = 1; i < NF; i++) if ($(i + 1) == "ms" && $(i + 2) == "after") t = $i + 0
      if (t < 0 || t >= 1000) late++
      if (t > worst) worst = t
    }
    END { print reports + 0, named + 0, late + 0, worst + 0, ino }' "$tmp/out")
  [[ $reports -eq $((n - 1)) ]] || problems+="$((n - 1)) survivors should report, $reports did"$'\n'
  if [[ $op == finalize ]]; then
    named=$(grep -cE "rank [0-9]+ cannot continue: rank $v $cause.*\(during finalize\)" "$tmp/err" || true)
  fi
  [[ $named -eq $((n - 1)) ]] ||
    problems+="each survivor's error should name rank $v and '$cause' ($named did)"$'\n'
  [[ $late -eq 0 ]] || problems+="$late survivor(s) took 1 s or more to notice"$'\n'
  [[ -n $ino ]] || problems+="no segment inode printed"$'\n'
  left=$(leftovers "$m" "$ino")
  [[ -z $left ]] || problems+="left behind: $left"$'\n'
  report_line "$death $op $n $ms $worst"
  verdict "$name" "$problems" "rmplrun $rc in $ms ms, $((n - 1)) survivors noticed within $worst ms, nothing left"
}

# ---- every way of dying x every operation ----

ranks=(2 3 4 5 8)
i=0
for op in "${ops[@]}"; do
  for death in "${deaths[@]}"; do
    if [[ -n ${DEATH_FULL:-} ]]; then counts=(2 3 4 5 6 7 8); else counts=("${ranks[i % 5]}"); fi
    i=$((i + 1))
    for n in "${counts[@]}"; do
      v=$((n - 1))
      m=$(marker)
      rm -f "$tmp/stamp"
      t0=$(now_ms)
      rc=0
      "$RMPLRUN" -n "$n" --timeout 60 "$PEER" "$death" "$op" "$tmp/stamp" "$v" "$m" \
        >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
      ms=$(($(now_ms) - t0))
      check_job "$death while the others are in $op, -n $n" "$n" "$death" "$op" "$v" "$rc" "$ms" "$m"
    done
  done
done

# A dead root: the others wait for data that will never come.
for op in broadcast scatter reduce; do
  m=$(marker)
  rm -f "$tmp/stamp"
  t0=$(now_ms)
  rc=0
  "$RMPLRUN" -n 4 --timeout 60 "$PEER" segv "$op" "$tmp/stamp" 0 "$m" >"$tmp/out" 2>"$tmp/err" \
    </dev/null || rc=$?
  ms=$(($(now_ms) - t0))
  check_job "the root (rank 0) of $op segfaults, -n 4" 4 segv "$op" 0 "$rc" "$ms" "$m"
done

# ---- the MPI layer: MPI_ERRORS_RETURN gives MPI_ERR_PROC_FAILED and a message naming the rank ----

if [[ -n $MPI_PEER ]]; then
  i=0
  for op in recv sendrecv allreduce iprobe test testall finalize; do
    for death in exit3 sigkill; do
      n=${ranks[i % 5]}
      i=$((i + 1))
      v=$((n - 1))
      m=$(marker)
      rm -f "$tmp/stamp"
      t0=$(now_ms)
      rc=0
      "$RMPLRUN" -n "$n" --timeout 60 "$MPI_PEER" "$death" "$op" "$tmp/stamp" "$m" \
        >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
      ms=$(($(now_ms) - t0))
      expect_of "$death"
      problems=''
      [[ $rc -eq $status ]] || problems+="rmplrun exited with $rc, not $status"$'\n'
      grep -qE "^rmplrun: rank $v \(pid [0-9]+\) $cause" "$tmp/err" ||
        problems+="rmplrun's message does not name rank $v and '$cause'"$'\n'
      read -r reports named late worst < <(PATTERN="MPI_ERR_PROC_FAILED: .*cannot continue: rank $v $cause" awk '
        / failed [0-9.]+ ms after the death/ {
          reports++
          if ($0 ~ ENVIRON["PATTERN"]) named++
          t = $5 + 0
          if (t < 0 || t >= 1000) late++
          if (t > worst) worst = t
        }
        END { print reports + 0, named + 0, late + 0, worst + 0 }' "$tmp/out")
      [[ $reports -eq $((n - 1)) && $named -eq $((n - 1)) ]] ||
        problems+="each of $((n - 1)) survivors should report MPI_ERR_PROC_FAILED naming rank $v ($reports reported, $named named it)"$'\n'
      [[ $late -eq 0 ]] || problems+="$late survivor(s) took 1 s or more to notice"$'\n'
      left=$(leftovers "$m" "")
      [[ -z $left ]] || problems+="left behind: $left"$'\n'
      report_line "mpi-$death $op $n $ms $worst"
      verdict "MPI layer: $death while the others are in $op, -n $n" "$problems" \
        "rmplrun $rc in $ms ms, $((n - 1)) survivors got MPI_ERR_PROC_FAILED within $worst ms"
    done
  done
fi

# ---- a sender gone before its receivers read its message, the launcher not told yet ----
# rmplrun is stopped (SIGSTOP) while the sender is killed and the receivers read from it by single
# copy: the read finds no process (ESRCH) and the segment does not say why yet. The receivers must
# report the death (MPI_ERR_PROC_FAILED, naming the sender and its signal once rmplrun resumes),
# not "single copy ... failed: No such process" (MPI_ERR_OTHER).

if [[ -n $VANISHED_SENDER ]]; then
  for n in 2 3 5; do
    m=$(marker)
    dir=$tmp/vanished
    rm -rf "$dir"
    mkdir "$dir"
    "$RMPLRUN" -n "$n" --timeout 60 "$VANISHED_SENDER" "$dir" "$m" >"$tmp/out" 2>"$tmp/err" \
      </dev/null &
    job_pid=$!
    for ((i = 0; i < 200; i++)); do
      [[ -s $dir/ready ]] && break
      sleep 0.05
    done
    problems=''
    if [[ -s $dir/ready ]]; then
      sender=$(cat "$dir/ready")
      kill -STOP "$job_pid"
      kill -KILL "$sender"
      # SIGKILL takes effect when the victim next runs: on a loaded machine its memory could still
      # be there for the receivers' single copy (the receive then succeeded, 1 run in ~10). It is
      # gone once the victim is a zombie (which it stays: its parent, rmplrun, is stopped).
      for ((i = 0; i < 200; i++)); do
        [[ $(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$sender/stat" 2>/dev/null) == Z ]] && break
        sleep 0.01
      done
      touch "$dir/go"
      sleep 0.5  # the receivers meet the vanished process while the segment says nothing
      kill -CONT "$job_pid"
    else
      problems+="the sender never said it was ready"$'\n'
      kill -KILL "$job_pid" || true
    fi
    rc=0
    wait "$job_pid" || rc=$?
    [[ $rc -eq 137 ]] || problems+="rmplrun exited with $rc, not 137"$'\n'
    named=$(grep -cE "^rank [0-9]+: MPI_Recv returned MPI_ERR_PROC_FAILED: .*rank 0 was killed by signal 9 \(Killed\)" "$tmp/out" || true)
    [[ $named -eq $((n - 1)) ]] ||
      problems+="each of $((n - 1)) receivers should report MPI_ERR_PROC_FAILED naming rank 0 and SIGKILL ($named did)"$'\n'
    left=$(leftovers "$m" "")
    [[ -z $left ]] || problems+="left behind: $left"$'\n'
    verdict "MPI layer: the sender of a rendezvous killed before its $((n - 1)) receiver(s) read it, rmplrun stopped meanwhile, -n $n" \
      "$problems" "rmplrun $rc, $named receiver(s) got MPI_ERR_PROC_FAILED naming it"
  done
fi

# ---- a rank killed from outside (kill -9), the job started in the background ----

# start_job N DEATH OP: starts rmplrun in the background (pid in job_pid, marker in m) and waits
# until the survivors are blocked (their "blocking in" line).
start_job() {
  local n=$1 i
  m=$(marker)
  rm -f "$tmp/stamp"
  : >"$tmp/out"
  env --default-signal=INT "$RMPLRUN" -n "$n" --timeout 60 "$PEER" "$2" "$3" "$tmp/stamp" \
    $((n - 1)) "$m" >"$tmp/out" 2>"$tmp/err" </dev/null &
  job_pid=$!
  for ((i = 0; i < 200; i++)); do
    [[ $(grep -c "blocking in" "$tmp/out") -ge $((n - 1)) ]] && sleep 0.1 && return 0
    sleep 0.05
  done
  return 1
}

for op in recv allreduce; do
  n=3
  if start_job $n hang $op; then
    victim=$(awk '/victim pid/ { print $5 }' "$tmp/out")
    echo $(($(date +%s%N))) >"$tmp/stamp"
    t0=$(now_ms)
    kill -KILL "$victim"
    rc=0
    wait "$job_pid" || rc=$?
    ms=$(($(now_ms) - t0))
    check_job "rank 2 killed from outside (kill -9) while the others are in $op, -n $n" \
      $n hang $op 2 "$rc" "$ms" "$m"
  else
    verdict "kill -9 test ($op): the ranks started" "they did not" ""
    kill -KILL "$job_pid" || true
  fi
done

# ---- SIGINT to rmplrun (Ctrl-C), with every rank blocked inside rmpl ----

n=4
if start_job $n hang recv; then
  t0=$(now_ms)
  kill -INT "$job_pid"
  rc=0
  wait "$job_pid" || rc=$?
  ms=$(($(now_ms) - t0))
  ino=$(awk '/^segment inode/ { print $3 }' "$tmp/out")
  problems=''
  [[ $rc -eq 130 ]] || problems+="rmplrun exited with $rc, not 130"$'\n'
  grep -q "rmplrun: got signal 2 (Interrupt); ending the job" "$tmp/err" ||
    problems+="rmplrun did not say it got SIGINT"$'\n'
  [[ -n $ino ]] || problems+="no segment inode printed"$'\n'
  left=$(leftovers "$m" "$ino")
  [[ -z $left ]] || problems+="left behind: $left"$'\n'
  report_line "sigint-rmplrun recv $n $ms -"
  verdict "SIGINT to rmplrun, -n $n blocked in recv" "$problems" "status $rc in $ms ms, nothing left"
else
  verdict "SIGINT test: the ranks started" "they did not" ""
  kill -KILL "$job_pid" || true
fi

# ---- the terminal goes away (SIGHUP) ----

# rmplrun runs on a pseudo-terminal as its controlling terminal (python's pty.fork: rmplrun leads a
# new session); once the survivors are blocked, the terminal's master side is closed, so the kernel
# hangs it up and sends SIGHUP to rmplrun. Prints rmplrun's exit status (128 + signal if killed).
n=3
m=$(marker)
rm -f "$tmp/stamp"
t0=$(now_ms)
rc=0
hup_status=$(python3 - "$RMPLRUN" "$PEER" "$tmp/stamp" "$m" "$n" 2>"$tmp/err" <<'EOF'
import os, pty, select, sys, time
rmplrun, peer, stamp, marker, n = sys.argv[1:6]
pid, fd = pty.fork()
if pid == 0:
    os.execv(rmplrun, [rmplrun, "-n", n, "--timeout", "60", peer, "hang", "recv", stamp,
                       str(int(n) - 1), marker])
seen, deadline = b"", time.time() + 10
while seen.count(b"blocking in") < int(n) - 1 and time.time() < deadline:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            seen += os.read(fd, 4096)
        except OSError:
            break
open(sys.argv[3] + ".out", "wb").write(seen)
time.sleep(0.1)
os.close(fd)  # the terminal goes away
deadline = time.time() + 10
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        sys.exit(0)
    time.sleep(0.02)
os.kill(pid, 9)
print("hung")
EOF
) || rc=$?
ms=$(($(now_ms) - t0))
cp "$tmp/stamp.out" "$tmp/out" 2>/dev/null || : >"$tmp/out"
ino=$(awk '/^segment inode/ { print $3 }' "$tmp/out" | tr -d '\r')
problems=''
[[ $rc -eq 0 && $hup_status == 129 ]] || problems+="rmplrun ended with '$hup_status', not 129"$'\n'
[[ -n $ino ]] || problems+="no segment inode printed"$'\n'
left=$(leftovers "$m" "$ino")
[[ -z $left ]] || problems+="left behind: $left"$'\n'
report_line "sighup-terminal recv $n $ms -"
verdict "the terminal hangs up (SIGHUP) under rmplrun, -n $n blocked in recv" "$problems" \
  "rmplrun status $hup_status, nothing left"

# ---- a segment too large for memory: refused before any rank starts ----

# 64 ranks x 64 collective areas of 256 MiB, and 64 x 64 pairs of 64 bounce chunks of 16 MiB:
# about 5 TiB, more than any machine this runs on has free.
m=$(marker)
rc=0
RMPL_COLL_AREA=268435456 RMPL_COLL_SLOTS=64 RMPL_BOUNCE_CHUNKS=64 RMPL_BOUNCE_CHUNK=16777216 \
  "$RMPLRUN" -n 64 "$PEER" exit3 recv "$tmp/stamp" 1 "$m" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
problems=''
[[ $rc -eq 1 ]] || problems+="rmplrun exited with $rc, not 1"$'\n'
grep -qE "^rmplrun: rmpl: the job segment for 64 ranks needs [0-9.]+ TiB \([0-9]+ bytes\) but only .* is free \(.*\): .*collective areas [0-9.]+ TiB \(RMPL_COLL_SLOTS=64 x RMPL_COLL_AREA=268435456\)" "$tmp/err" ||
  problems+="the message should say how much is needed, how much is free and by which area"$'\n'
[[ ! -s $tmp/out ]] || problems+="a rank started"$'\n'
verdict "a segment larger than free memory (64 ranks, 5 TiB) under rmplrun" "$problems" \
  "status $rc, no rank started: $(head -c 150 "$tmp/err")..."

# The same without rmplrun: a program started alone makes its own segment (1 rank; 64 Ki eager
# slots of 16 MiB = 1 TiB).
rc=0
RMPL_EAGER_SLOTS=65536 RMPL_EAGER_MAX=16777216 "$PEER" exit3 recv "$tmp/stamp" 1 \
  >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
problems=''
[[ $rc -ne 0 ]] || problems+="the program exited 0"$'\n'
grep -qE "rmpl: the job segment for 1 ranks needs [0-9.]+ TiB .* is free .*eager pools [0-9.]+ TiB \(RMPL_EAGER_SLOTS=65536 x RMPL_EAGER_MAX=16777216\)" \
  "$tmp/err" || problems+="the message should say how much is needed and how much is free"$'\n'
verdict "a segment larger than free memory, started without rmplrun" "$problems" "status $rc"

# ---- nothing in /dev/shm ----

new_shm=$(comm -13 <(echo "$shm_before") <(ls -A /dev/shm | sort) | grep -i rmpl || true)
verdict "no rmpl file appeared in /dev/shm" "$new_shm" "none"

if ((failures > 0)); then
  echo "# $failures case(s) failed"
  exit 1
fi
echo "# all cases passed"
