#!/usr/bin/env bash
# rmpl programs across hosts, started by Open MPI's mpirun (which serves PMIx): hosts made by
# scripts/hosts (network and UTS namespaces joined by veth links), mpirun run on the first of them
# with tests/cluster/hosts_agent.sh as its launch agent, UCX over TCP between hosts and shared
# memory within each. Mappings: 2 hosts x 2 ranks, and 3 hosts x 1, 2 and 3 ranks (uneven).
# Programs: an MPI program as users write them (hello_hosts.c: collective, ring, a rendezvous-sized
# exchange; prints each rank's host), and rmpl's own multi-process test programs named on the
# command line (point-to-point, collectives), which must pass whole.
#
# Usage: mpirun_hosts_test.sh MPIRUN HELLO_HOSTS [TEST_PROGRAM...]
# Exit 0: passed; 1: a check failed (each failure is printed); 77: skipped (not root, no
# namespaces here, no mpirun).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts="$here/../../scripts/hosts"
agent="$here/hosts_agent.sh"
mpirun=${1:?usage: mpirun_hosts_test.sh MPIRUN HELLO_HOSTS [TEST_PROGRAM...]}
hello=${2:?usage: mpirun_hosts_test.sh MPIRUN HELLO_HOSTS [TEST_PROGRAM...]}
shift 2
programs=("$@")
failures=0

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

[[ $(id -u) -eq 0 ]] || skip "needs root to make network and UTS namespaces"
command -v "$mpirun" >/dev/null || skip "no mpirun at '$mpirun'"
for tool in ip nsenter unshare timeout; do
  command -v "$tool" >/dev/null || skip "needs '$tool', which is not on PATH"
done
unshare --net --uts true 2>/dev/null || skip "cannot make network and UTS namespaces here"

# The PID makes the prefix unique among concurrent runs; the trailing '-' keeps one run's host names
# from being another prefix's.
export RMPL_HOSTS_PREFIX="rmplm$$-"
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

# run_job LABEL HOSTLIST NRANKS PROGRAM [ARGS...]: mpirun on the first host; output in $tmp/LABEL.
run_job() {
  local label=$1 hostlist=$2 n=$3
  shift 3
  timeout 300 bash "$hosts" run "${p}1" "$mpirun" --allow-run-as-root --oversubscribe \
    --mca plm_rsh_agent "$agent" -x RMPL_HOSTS_PREFIX -x UCX_TLS -x RMPL_TEST_LARGE \
    --host "$hostlist" -n "$n" "$@" >"$tmp/$label.out" 2>&1
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
  # Each rank on the host mpirun put it on (by slot order), named by its own hostname.
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

if ((failures > 0)); then
  echo "mpirun_hosts_test: $failures check(s) failed"
  exit 1
fi
echo "mpirun_hosts_test: all checks passed"
cat "$tmp"/hello_*.out
