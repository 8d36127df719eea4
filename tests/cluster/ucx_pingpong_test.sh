#!/usr/bin/env bash
# Test of the UCX reference benchmark (bench/reference/ucx_pingpong.cpp) between two hosts made by
# scripts/hosts: the server on host 1, the client on host 2, UCX over TCP on the veth link between
# them, the address exchange through a directory both see. A short run (sizes 0, 4 KiB and 1 MiB,
# eager and rendezvous alike, a few iterations) that must print a line per size and end with both
# processes exiting 0; the numbers themselves are not judged.
# Usage: ucx_pingpong_test.sh [path/to/rmpl-bench-ucx-pingpong [path/to/scripts/hosts]]
# Exit 0: passed; 1: a check failed (each failure is printed); 77: skipped (not root, no namespaces
# here, or no benchmark binary: it is built only where UCX is installed).
#
# Not 'set -e': a failed check is reported and counted, and the remaining checks still run.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench=${1:-$here/../../build/release/bench/rmpl-bench-ucx-pingpong}
hosts=${2:-$here/../../scripts/hosts}
failures=0

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
fatal() { echo "FAIL: $*" >&2; echo "FAIL: stopping: the remaining checks depend on that one" >&2; exit 1; }

[[ -f $hosts ]] || fatal "no harness script at '$hosts'"
[[ -x $bench ]] || skip "no benchmark at '$bench' (rmpl-bench-ucx-pingpong is built only where pkg-config finds UCX)"
[[ $(id -u) -eq 0 ]] || skip "needs root to make network and UTS namespaces"
for tool in ip nsenter unshare flock timeout; do
  command -v "$tool" >/dev/null || skip "needs '$tool', which is not on PATH"
done
unshare --net --uts true 2>/dev/null || skip "cannot make network and UTS namespaces here (unshare --net --uts failed)"

# The PID makes the prefix unique among concurrent runs; the trailing '-' keeps this run's host
# names (rmplu<pid>-1) from being another prefix's (rmplu<pid>1 would be rmplu<pid>'s host 1).
export RMPL_HOSTS_PREFIX="rmplu$$-"
prefix=$RMPL_HOSTS_PREFIX
server_host=${prefix}1
client_host=${prefix}2
tmp=$(mktemp -d)
server=""

cleanup() {
  if [[ -n $server ]]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  bash "$hosts" down >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! up_out=$(bash "$hosts" up 2 2>&1); then
  fatal "'hosts up 2' failed: $up_out"
fi

# UCX_TLS=tcp: the hosts share one kernel, so UCX would otherwise be free to take shared memory
# between them (it does with --error-handling none), and the test is of the network path. Every
# wait in the benchmark gives up after --timeout; 'timeout' bounds the processes even so.
export UCX_TLS=tcp
mkdir "$tmp/rendezvous"
args=(--rendezvous "$tmp/rendezvous" --sizes 0,4096,1048576 --iterations 20 --warmup 2 --windows 2
      --timeout 30)
timeout 90 bash "$hosts" run "$server_host" "$bench" --role server "${args[@]}" \
  >"$tmp/server.out" 2>"$tmp/server.err" &
server=$!
timeout 90 bash "$hosts" run "$client_host" "$bench" --role client --verbose "${args[@]}" \
  >"$tmp/client.out" 2>"$tmp/client.err"
client_rc=$?
wait "$server"
server_rc=$?
server=""

show() { printf -- '--- %s ---\n%s\n' "$1" "$(cat "$2")"; }
[[ $client_rc -eq 0 ]] ||
  fail "the client (in $client_host) exited $client_rc"$'\n'"$(show stdout "$tmp/client.out")"$'\n'"$(show stderr "$tmp/client.err")"
[[ $server_rc -eq 0 ]] ||
  fail "the server (in $server_host) exited $server_rc"$'\n'"$(show stdout "$tmp/server.out")"$'\n'"$(show stderr "$tmp/server.err")"
[[ $client_rc -eq 0 ]] || fatal "the client failed, so its output says nothing more"

out=$(cat "$tmp/client.out")
grep -qE "^# rmpl-bench-ucx-pingpong: UCX [0-9]+\.[0-9]+[^,]*, transports tcp, .*client on $client_host;" <<<"$out" ||
  fail "the client's header does not name the UCX version, transports tcp and host $client_host: $out"
grep -qx '# size latency_us bandwidth_MBps' <<<"$out" || fail "the client printed no column header: $out"
for size in 0 4096 1048576; do
  lines=$(grep -cE "^$size [0-9]+\.[0-9]+ [0-9]+\.[0-9]+$" <<<"$out")
  [[ $lines -eq 1 ]] || fail "expected one line 'size latency_us bandwidth_MBps' for $size bytes, found $lines: $out"
done
# Sizes with a payload moved data, so their bandwidth is above zero; latencies always are.
awk '/^[0-9]/ && ($2 <= 0 || ($1 > 0 && $3 <= 0)) { bad = 1 } END { exit bad }' <<<"$out" ||
  fail "a latency or a bandwidth is not positive: $out"
lines=$(grep -cv '^#' "$tmp/client.out")
[[ $lines -eq 3 ]] || fail "expected 3 result lines, found $lines: $out"

# The endpoint's lane (printed by --verbose) shows the traffic took the hosts' link, not loopback.
grep -q 'tcp/eth0' "$tmp/client.err" ||
  fail "the client's endpoint does not use tcp on eth0:"$'\n'"$(show stderr "$tmp/client.err")"
grep -q '^# server: .* done$' "$tmp/server.out" ||
  fail "the server did not report the client's goodbye: $(cat "$tmp/server.out")"
left=$(ls -A "$tmp/rendezvous")
[[ -z $left ]] || fail "address files left in the rendezvous directory: $left"

if (( failures > 0 )); then
  echo "ucx_pingpong_test: $failures check(s) failed"
  exit 1
fi
echo "ucx_pingpong_test: all checks passed"
cat "$tmp/client.out"
