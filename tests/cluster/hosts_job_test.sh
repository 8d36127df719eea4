#!/usr/bin/env bash
# rmpl programs across hosts, started by Open MPI's mpirun (which serves PMIx) or by rmplrun -H:
# hosts made by scripts/hosts (network and UTS namespaces joined by veth links), the launcher run
# on the first of them with tests/cluster/hosts_agent.sh as its launch agent (rmplrun starts the
# first host's ranks itself), UCX over TCP between hosts and shared memory within each. Mappings:
# 2 hosts x 2 ranks, and 3 hosts x 1, 2 and 3 ranks (uneven). Programs: an MPI program as users
# write them (hello_hosts.c: collective, ring, a rendezvous-sized exchange; prints each rank's
# host), and rmpl's own multi-process test programs named on the command line (point-to-point,
# collectives), which must pass whole.
# With rmplrun, failures too (DEAD_PEER names tests/death/dead_peer): a rank killed on another
# host is reported by every survivor within a second, naming the rank and its host; a host lost
# (its rmplrun killed) ends the job naming the host; Ctrl-C of rmplrun and a kill -9 of it leave
# no process of the job on any host; too few slots and a launch agent that fails are clear errors.
#
# Usage: hosts_job_test.sh mpirun|rmplrun LAUNCHER HELLO_HOSTS [TEST_PROGRAM...]
# Exit 0: passed; 1: a check failed (each failure is printed); 77: skipped (not root, no
# namespaces here, no launcher).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts="$here/../../scripts/hosts"
agent="$here/hosts_agent.sh"
usage="usage: hosts_job_test.sh mpirun|rmplrun LAUNCHER HELLO_HOSTS [TEST_PROGRAM...]"
kind=${1:?$usage}
launcher=${2:?$usage}
hello=${3:?$usage}
shift 3
[[ $kind == mpirun || $kind == rmplrun ]] || { echo "$usage" >&2; exit 2; }
programs=("$@")
failures=0

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

[[ $(id -u) -eq 0 ]] || skip "needs root to make network and UTS namespaces"
command -v "$launcher" >/dev/null || skip "no $kind at '$launcher'"
for tool in ip nsenter unshare timeout; do
  command -v "$tool" >/dev/null || skip "needs '$tool', which is not on PATH"
done
unshare --net --uts true 2>/dev/null || skip "cannot make network and UTS namespaces here"

# The PID makes the prefix unique among concurrent runs; the trailing '-' keeps one run's host names
# from being another prefix's.
export RMPL_HOSTS_PREFIX="rmpl${kind:0:1}$$-"
p=$RMPL_HOSTS_PREFIX
tmp=$(mktemp -d)
cleanup() {
  bash "$hosts" down >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

up_out=$(bash "$hosts" up 3 2>&1) || { echo "FAIL: 'hosts up 3' failed: $up_out" >&2; exit 1; }

# UCX_TLS=tcp: the hosts share one kernel, and the test is of the network path between them.
export UCX_TLS=tcp
# Small tests: the collective programs' large cases take minutes over TCP on two cores.
export RMPL_TEST_LARGE=0

# launch HOSTLIST NRANKS PROGRAM [ARGS...]: the launcher on the first host (for 300 s at most).
launch() {
  local hostlist=$1 n=$2
  shift 2
  if [[ $kind == mpirun ]]; then
    timeout 300 bash "$hosts" run "${p}1" "$launcher" --allow-run-as-root --oversubscribe \
      --mca plm_rsh_agent "$agent" -x RMPL_HOSTS_PREFIX -x UCX_TLS -x RMPL_TEST_LARGE \
      --host "$hostlist" -n "$n" "$@"
  else  # RMPL_* and UCX_* reach the other hosts without -x
    timeout 300 bash "$hosts" run "${p}1" "$launcher" --launch-agent "$agent" -H "$hostlist" -n "$n" "$@"
  fi
}

# run_job LABEL HOSTLIST NRANKS PROGRAM [ARGS...]: output in $tmp/LABEL.out.
run_job() {
  local label=$1
  shift
  launch "$@" >"$tmp/$label.out" 2>&1
}

mappings=("2x2 ${p}1:2,${p}2:2 4" "3uneven ${p}1:1,${p}2:2,${p}3:3 6")
for m in "${mappings[@]}"; do
  read -r name hostlist n <<<"$m"
  if ! run_job "hello_$name" "$hostlist" "$n" "$hello"; then
    fail "hello_hosts on $name ($hostlist) failed:"$'\n'"$(tail -30 "$tmp/hello_$name.out")"
    continue
  fi
  out=$(cat "$tmp/hello_$name.out")
  grep -q '^hello_hosts: all checks passed$' <<<"$out" || fail "hello_hosts on $name: $out"
  # Each rank on the host the launcher put it on (by slot order), named by its own hostname.
  expected=()
  IFS=, read -ra slots <<<"$hostlist"
  for s in "${slots[@]}"; do
    for ((i = 0; i < ${s##*:}; i++)); do expected+=("${s%%:*}"); done
  done
  for ((r = 0; r < n; r++)); do
    grep -qx "rank $r of $n on ${expected[r]}" <<<"$out" ||
      fail "hello_hosts on $name: no line 'rank $r of $n on ${expected[r]}' in: $out"
  done
  for prog in "${programs[@]}"; do
    label="$(basename "$prog")_$name"
    if ! run_job "$label" "$hostlist" "$n" "$prog"; then
      fail "$(basename "$prog") on $name ($hostlist) failed:"$'\n'"$(grep -E 'FAIL|Failure|rank [0-9]|error' "$tmp/$label.out" | head -30)"
    fi
  done
done

# ---- rmplrun's failures across hosts ----
# left MARKER: the job's processes still running anywhere (every host shares this kernel; a zombie
# has no command line, so it does not count).
left() { pgrep -f "dead_peer .* $1\$" || true; }
# wait_gone MARKER SECONDS: until none is left.
wait_gone() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    [[ -z $(left "$1") ]] && return 0
    sleep 0.1
  done
  return 1
}
# wait_up MARKER N: until N processes of the job run (10 s at most).
wait_up() {
  local i
  for ((i = 0; i < 100; i++)); do
    (($(left "$1" | wc -l) >= $2)) && return 0
    sleep 0.1
  done
  return 1
}

if [[ $kind == rmplrun && -n ${DEAD_PEER-} ]]; then
  two="${p}1:2,${p}2:2"
  # A rank killed on the second host while the others wait for it in a receive.
  stamp="$tmp/stamp"
  launch "$two" 4 "$DEAD_PEER" sigkill recv "$stamp" 3 >"$tmp/death.out" 2>&1
  st=$?
  out=$(cat "$tmp/death.out")
  [[ $st -eq 137 ]] || fail "rank 3 killed on ${p}2: rmplrun exited $st, not 137: $out"
  grep -q "rmplrun on ${p}2: rank 3 (pid [0-9]*) was killed by signal 9" <<<"$out" ||
    fail "rank 3 killed on ${p}2: rmplrun did not name it and its host: $out"
  for r in 0 1 2; do
    line=$(grep "^rank $r: recv failed" <<<"$out")
    # The death itself, not a lost connection (rank 3's own, or that of a survivor that left).
    [[ $line == *"rank 3 was killed by signal 9"*"${p}2"* ]] ||
      fail "rank 3 killed: rank $r's error names not rank 3's death and ${p}2: ${line:-none}"
    ms=$(sed -n 's/.*failed \([0-9.]*\) ms after the death.*/\1/p' <<<"$line")
    [[ -n $ms ]] && awk -v ms="$ms" 'BEGIN { exit !(ms < 1000) }' ||
      fail "rank 3 killed: rank $r did not report it within 1 s: ${line:-none}"
  done

  # Ctrl-C of rmplrun, and a kill -9 of it: nothing of the job is left on any host.
  for how in INT KILL; do
    marker=$((RANDOM * 32768 + RANDOM))
    launch "$two" 4 "$DEAD_PEER" hang recv "$tmp/never" 3 "$marker" >"$tmp/$how.out" 2>&1 &
    job=$!
    wait_up "$marker" 4 || fail "SIG$how: the job's 4 ranks did not start: $(cat "$tmp/$how.out")"
    pkill "-$how" -f "^$launcher --launch-agent" || fail "SIG$how: no rmplrun to signal"
    wait "$job"
    st=$?
    [[ $how == KILL || $st -eq 130 ]] || fail "Ctrl-C: rmplrun exited $st, not 130: $(cat "$tmp/$how.out")"
    wait_gone "$marker" 5 || fail "SIG$how of rmplrun left processes running: $(left "$marker" | xargs -r ps -o pid,args -p)"
  done

  # A host lost: its rmplrun killed (the oldest process of its agent; the newer one is the job's
  # stand-in process-group leader, which goes with the host in a real loss too).
  marker=$((RANDOM * 32768 + RANDOM))
  launch "$two" 4 "$DEAD_PEER" hang recv "$tmp/never" 3 "$marker" >"$tmp/lost.out" 2>&1 &
  job=$!
  wait_up "$marker" 4 || fail "lost host: the job's 4 ranks did not start"
  pkill -KILL -o -f "^$launcher --serve-host 2 " || fail "lost host: no agent on ${p}2 to kill"
  wait "$job"
  st=$?
  out=$(cat "$tmp/lost.out")
  [[ $st -eq 1 ]] || fail "lost host: rmplrun exited $st, not 1: $out"
  grep -q "rmplrun: lost host ${p}2 (ranks 2-3)" <<<"$out" || fail "lost host: not named: $out"
  for r in 0 1; do
    grep -q "^rank $r: recv failed.*rank 2 was lost with its host.*${p}2" <<<"$out" ||
      fail "lost host: rank $r did not report rank 2 lost with ${p}2: $out"
  done
  wait_gone "$marker" 5 || fail "lost host: processes left: $(left "$marker" | xargs -r ps -o pid,args -p)"

  # The link of the second host cut mid-transfer (8 MiB exchanges around the ring, some across the
  # hosts): with RMPL_UCX_TCP_TIMEOUT=3 the ranks report the other host unreachable, naming it and
  # its ranks (or that a rank there ended so), exit 3 (stream_hosts' status on an error), and the
  # job ends.
  if [[ -n ${STREAM_HOSTS-} ]]; then
    RMPL_UCX_TCP_TIMEOUT=3 launch "$two" 4 "$STREAM_HOSTS" 60 >"$tmp/cut.out" 2>&1 &
    job=$!
    for ((i = 0; i < 100; i++)); do
      (($(grep -c "streaming$" "$tmp/cut.out") == 4)) && break
      sleep 0.1
    done
    t0=$(date +%s)
    bash "$hosts" cut "${p}2" || fail "cut: 'hosts cut ${p}2' failed"
    wait "$job"
    st=$?
    t=$(($(date +%s) - t0))
    bash "$hosts" heal "${p}2" >/dev/null 2>&1
    out=$(cat "$tmp/cut.out")
    [[ $st -eq 3 && $t -le 30 ]] || fail "link cut: rmplrun exited $st after $t s, not 3 within 30 s: $out"
    # Whichever side's timeout ends first reports the other host unreachable, naming its ranks;
    # the other side may hear first (the test's control links are not cut) that a rank there
    # ended on that error.
    grep -q "^rank [01]: exchange [0-9]* failed.*(host ${p}2) is unreachable.*(host ${p}2 runs ranks 2-3)" <<<"$out" ||
      grep -q "^rank [23]: exchange [0-9]* failed.*(host ${p}1) is unreachable.*(host ${p}1 runs ranks 0-1)" <<<"$out" ||
      fail "link cut: no rank reported the other host unreachable with its ranks: $out"
    for r in 0 1 2 3; do
      grep -q "^rank $r: exchange [0-9]* failed" <<<"$out" || fail "link cut: rank $r reported no failure: $out"
    done
    grep -q "exited with status 3" <<<"$out" && ! grep -q "signal 6\|terminate called" <<<"$out" ||
      fail "link cut: the ranks did not exit with their own status 3: $out"
  fi

  # Bad requests: more ranks than slots, and a launch agent that cannot reach the host.
  out=$(launch "$two" 5 "$hello" 2>&1)
  st=$?
  [[ $st -eq 2 && $out == *"-n 5: the hosts offer 4 slots"* ]] ||
    fail "-n 5 on 4 slots: expected status 2 and the slots named, got $st: $out"
  out=$(timeout 60 bash "$hosts" run "${p}1" "$launcher" --launch-agent false -H "${p}1:1,nowhere:1" "$hello" 2>&1)
  st=$?
  [[ $st -eq 1 && $out == *"lost host nowhere (rank 1)"* ]] ||
    fail "an agent that fails: expected status 1 and the host named, got $st: $out"
fi

if ((failures > 0)); then
  echo "hosts_job_test ($kind): $failures check(s) failed"
  exit 1
fi
echo "hosts_job_test ($kind): all checks passed"
cat "$tmp"/hello_*.out
