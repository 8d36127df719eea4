#!/usr/bin/env bash
# Test of scripts/hosts, the harness that makes "hosts" on one machine (network + UTS namespaces on
# a private bridge) for the cluster tests. Usage: hosts_test.sh [path/to/scripts/hosts]
# Exit 0: passed; 1: a check failed (each failure is printed); 77: skipped (not root, or no
# namespaces here), so that ctest reports it as skipped rather than passed.
#
# Not 'set -e': a failed check is reported and counted, and the remaining checks still run, so one
# run shows everything that is wrong. Checks whose failure makes the rest meaningless stop the test.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
hosts=${1:-$here/../../scripts/hosts}
failures=0

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
fatal() { echo "FAIL: $*" >&2; echo "FAIL: stopping: the remaining checks depend on that one" >&2; exit 1; }

[[ -x $hosts || -f $hosts ]] || fatal "no harness script at '$hosts'"
[[ $(id -u) -eq 0 ]] || skip "needs root to make network and UTS namespaces"
for tool in ip nsenter unshare flock python3 timeout; do
  command -v "$tool" >/dev/null || skip "needs '$tool', which is not on PATH"
done
# Kernel support and permission (a container may forbid unshare even to root), probed without
# leaving anything behind.
unshare --net --uts true 2>/dev/null || skip "cannot make network and UTS namespaces here (unshare --net --uts failed)"

# The PID makes the prefix unique among concurrent runs, and the trailing '-' keeps this run's host
# names (rmplt<pid>-1, ...) from being another prefix's (rmplt<pid>1 would be rmplt<pid>'s host 1).
export RMPL_HOSTS_PREFIX="rmplt$$-"
export RMPL_HOSTS_SUBNET=10.231.0
prefix=$RMPL_HOSTS_PREFIX
h=("" "${prefix}1" "${prefix}2" "${prefix}3")  # h[i]: host i's name, 1-based as the harness counts
addr=("" 10.231.0.1 10.231.0.2 10.231.0.3)
port=7411
tmp=$(mktemp -d)
listeners=()

cleanup() {
  local pid
  for pid in "${listeners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${listeners[@]}"; do wait "$pid" 2>/dev/null || true; done
  bash "$hosts" down >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# What the root namespace looks like, to show afterwards that the harness left it alone. Addresses
# without their lifetimes (a DHCP lease counts down on its own).
root_view() {
  ip -o link
  ip -o -4 addr | awk '{print $2, $4}'
  ip -4 route
}
root_before=$(root_view)

# A listener that answers each connection with its hostname, so a connect proves it reached the
# right host; a connector with a timeout on every step, so a cut link fails instead of hanging.
cat >"$tmp/tcp.py" <<'EOF'
import socket, sys, time

if sys.argv[1] == "listen":
    port, ready, life = int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(16)
    open(ready, "w").close()
    deadline = time.monotonic() + life  # outlives nothing, even if the test is killed hard
    while (left := deadline - time.monotonic()) > 0:
        s.settimeout(left)
        try:
            c, _ = s.accept()
        except socket.timeout:
            break
        with c:
            c.sendall(socket.gethostname().encode() + b"\n")
else:
    host, port, timeout = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    try:
        with socket.create_connection((host, port), timeout=timeout) as c:
            data = b""
            while not data.endswith(b"\n"):
                chunk = c.recv(256)
                if not chunk:
                    break
                data += chunk
    except OSError as e:
        print(f"connect {host}:{port}: {e}", file=sys.stderr)
        sys.exit(1)
    print(data.decode().strip())
EOF

# connect FROM TO TIMEOUT: prints what host TO answered; 'timeout' bounds it even if Python's own
# timeouts were somehow not applied.
connect() {
  timeout 10 bash "$hosts" run "${h[$1]}" python3 "$tmp/tcp.py" connect "${addr[$2]}" "$port" "$3"
}

# ---- up ----
if ! up_out=$(bash "$hosts" up 3 2>&1); then
  fatal "'hosts up 3' failed: $up_out"
fi
hosts_file=/run/rmpl-hosts/$prefix.hosts
grep -qxF "$hosts_file" <<<"$up_out" || fail "'up' did not print the hosts file's path $hosts_file; it said: $up_out"
expected_hosts=$(printf '10.231.0.%d %s\n' 1 "${h[1]}" 2 "${h[2]}" 3 "${h[3]}")
actual_hosts=$(grep -v '^#' "$hosts_file" 2>/dev/null)
[[ $actual_hosts == "$expected_hosts" ]] ||
  fail "hosts file $hosts_file: expected lines"$'\n'"$expected_hosts"$'\n'"got"$'\n'"$actual_hosts"

if again=$(bash "$hosts" up 3 2>&1); then
  fail "a second 'up' with the same prefix succeeded; it must refuse"
elif ! grep -q down <<<"$again"; then
  fail "a second 'up' refused without suggesting 'down': $again"
fi

list_out=$(bash "$hosts" list 2>&1)
for i in 1 2 3; do
  grep -qE "^${h[$i]} +${addr[$i]} +link up$" <<<"$list_out" ||
    fail "'list' does not show ${h[$i]} at ${addr[$i]} with its link up: $list_out"
done

# ---- each host is its own machine: hostname, interfaces ----
for i in 1 2 3; do
  name=$(bash "$hosts" run "${h[$i]}" hostname 2>&1)
  [[ $name == "${h[$i]}" ]] || fail "hostname in ${h[$i]} is '$name'"
  links=$(bash "$hosts" run "${h[$i]}" ip -o link | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | sort | tr '\n' ' ')
  [[ $links == "eth0 lo " ]] || fail "${h[$i]} has interfaces '$links', expected only eth0 and lo"
done
[[ $(hostname) != "${h[1]}" ]] || fail "the root namespace's hostname became ${h[1]}"

# ---- run as a launch agent: exit status, environment, stdin ----
bash "$hosts" run "${h[2]}" sh -c 'exit 7'
rc=$?
[[ $rc -eq 7 ]] || fail "'run' returned $rc for a command that exited 7"
got=$(RMPL_T_VAR='a b' bash "$hosts" run "${h[2]}" sh -c 'printf %s "$RMPL_T_VAR"' 2>&1)
[[ $got == 'a b' ]] || fail "'run' did not pass the environment through: got '$got'"
got=$(printf 'line1\nline2\n' | bash "$hosts" run "${h[3]}" cat 2>&1)
[[ $got == $'line1\nline2' ]] || fail "'run' did not pass stdin through: got '$got'"
bash "$hosts" run "${h[1]}" no-such-command-rmpl 2>/dev/null
rc=$?
[[ $rc -ne 0 ]] || fail "'run' of a missing command returned 0"
if bash "$hosts" run "${prefix}9" true 2>/dev/null; then fail "'run' in a host that does not exist succeeded"; fi

# ---- TCP between every pair of hosts ----
for i in 1 2 3; do
  bash "$hosts" run "${h[$i]}" python3 "$tmp/tcp.py" listen "$port" "$tmp/ready$i" 30 &
  listeners+=("$!")
done
for i in 1 2 3; do
  for _ in $(seq 50); do [[ -e $tmp/ready$i ]] && break; sleep 0.1; done
  [[ -e $tmp/ready$i ]] || fatal "the listener in ${h[$i]} did not start within 5 s"
done
for i in 1 2 3; do
  for j in 1 2 3; do
    [[ $i -ne $j ]] || continue
    got=$(connect "$i" "$j" 3 2>&1)
    [[ $got == "${h[$j]}" ]] || fail "TCP from ${h[$i]} to ${h[$j]} (${addr[$j]}:$port): expected '${h[$j]}', got '$got'"
  done
done

root_during=$(root_view)
[[ $root_during == "$root_before" ]] ||
  fail "the root namespace's links, addresses or routes changed while hosts were up:"$'\n'"$(diff <(echo "$root_before") <(echo "$root_during"))"

# ---- cut and heal ----
bash "$hosts" cut "${h[2]}" || fail "'cut ${h[2]}' failed"
grep -qE "^${h[2]} .*link cut$" <(bash "$hosts" list) || fail "'list' does not show ${h[2]}'s link as cut"
start=$EPOCHREALTIME
if got=$(connect 1 2 2 2>&1); then
  fail "TCP from ${h[1]} to ${h[2]} succeeded with ${h[2]}'s link cut (answer '$got')"
fi
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
awk -v e="$elapsed" 'BEGIN { exit !(e < 5) }' ||
  fail "TCP to a cut host took ${elapsed}s to fail; it should fail within its 2 s timeout"
got=$(connect 1 3 3 2>&1)
[[ $got == "${h[3]}" ]] || fail "cutting ${h[2]} also broke ${h[1]} -> ${h[3]}: got '$got'"

bash "$hosts" heal "${h[2]}" || fail "'heal ${h[2]}' failed"
# A healed port forwards at once (the bridge runs no STP), but give ARP a moment all the same.
healed=""
for _ in 1 2 3 4 5; do
  if got=$(connect 1 2 1 2>&1) && [[ $got == "${h[2]}" ]]; then healed=yes; break; fi
done
[[ -n $healed ]] || fail "TCP from ${h[1]} to ${h[2]} still fails after 'heal': $got"

# ---- down ----
for pid in "${listeners[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
listeners=()
down_out=$(bash "$hosts" down 2>&1) || fail "'down' failed: $down_out"
[[ $down_out != *warning* ]] || fail "'down' warned: $down_out"
left=$(ip netns list | awk '{print $1}' | grep -F "$prefix")
[[ -z $left ]] || fail "namespaces left after 'down': $left"
left=$(compgen -G "/run/rmpl-hosts/$prefix*")
[[ -z $left ]] || fail "files left in /run/rmpl-hosts after 'down': $left"
left=$(grep -F "$prefix" /proc/self/mountinfo)
[[ -z $left ]] || fail "mounts left after 'down': $left"
root_after=$(root_view)
[[ $root_after == "$root_before" ]] ||
  fail "the root namespace's links, addresses or routes differ after 'down':"$'\n'"$(diff <(echo "$root_before") <(echo "$root_after"))"
again=$(bash "$hosts" down 2>&1) || fail "'down' with nothing up failed: $again"

if (( failures > 0 )); then
  echo "hosts_test: $failures check(s) failed"
  exit 1
fi
echo "hosts_test: all checks passed"
