#!/usr/bin/env bash
# Tests of the launcher, rmplrun, with plain programs (sh, sleep, awk) as ranks: no rmpl library needed.
# Usage: launcher_test.sh path/to/rmplrun
# Prints "ok - ..." or "not ok - ..." per check; exits non-zero if any check failed.
# Checks are bash expressions evaluated later by check(), hence single quotes and "unused" variables.
# shellcheck disable=SC2016,SC2034
set -euo pipefail

RMPLRUN=$(realpath "$1")
tmp=$(mktemp -d)
failures=0
ulimit -c 0  # the ranks killed by SIGSEGV or SIGABRT must not leave core files behind
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
shm_before=$(ls -A /dev/shm | sort)

# ---- helpers ----

# run ARGS...: runs rmplrun; sets rc, out, err and ms (elapsed milliseconds).
run() {
  local t0 t1
  t0=$(date +%s%N)
  rc=0
  "$RMPLRUN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000000))
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# check DESCRIPTION EXPRESSION: EXPRESSION is bash code (usually [[ ... ]]) over rc, out, err, ms.
check() {
  if eval "$2"; then
    echo "ok - $1"
  else
    echo "not ok - $1"
    echo "#   failed: $2"
    echo "#   rc=$rc ms=$ms"
    sed 's/^/#   stdout: /' <<<"${out:0:2000}"
    sed 's/^/#   stderr: /' <<<"${err:0:2000}"
    failures=$((failures + 1))
  fi
}
rc=0 ms=0 out='' err=''

# The sorted list "0 1 ... n-1".
ranks_upto() { seq 0 $(($1 - 1)) | tr '\n' ' ' | sed 's/ $//'; }

# A number that appears in no other process's arguments, to find the job's processes with pgrep.
marker() { echo $((7000000 + RANDOM * 32 + RANDOM % 32)); }

# wait_count PATTERN N: waits (up to 5 s) until N processes have exactly PATTERN as command line.
wait_count() {
  local i
  for ((i = 0; i < 100; i++)); do
    [[ $(pgrep -cfx "$1" || true) -ge $2 ]] && return 0
    sleep 0.05
  done
  return 1
}

# gone PATTERN: true when no process has PATTERN in its command line (waiting up to 2 s for the
# SIGKILLed ones to finish dying).
gone() {
  local i
  for ((i = 0; i < 40; i++)); do
    pgrep -f "$1" >/dev/null || return 0
    sleep 0.05
  done
  pgrep -af "$1" | sed 's/^/#   left behind: /'
  return 1
}

# "0-2,5" -> "0 1 2 5"
expand_cpus() {
  local parts part c list=()
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then
      for ((c = ${part%-*}; c <= ${part#*-}; c++)); do list+=("$c"); done
    else
      list+=("$part")
    fi
  done
  echo "${list[*]}"
}

# ---- environment of the ranks ----

for n in 1 2 3 4 5 8; do
  run -n $n sh -c 'echo "$RMPL_RANK $RMPL_SIZE $RMPL_LAUNCHER $(readlink /proc/self/fd/$RMPL_SHM_FD)"'
  ranks=$(cut -d' ' -f1 <<<"$out" | sort -n | tr '\n' ' ' | sed 's/ $//')
  check "-n $n: each rank 0..$((n - 1)) runs exactly once" \
    '[[ $rc -eq 0 && $ranks == "$(ranks_upto $n)" ]]'
  check "-n $n: RMPL_SIZE=$n, RMPL_LAUNCHER=rmplrun and RMPL_SHM_FD names the job's memfd" \
    '[[ $(grep -cE "^[0-9]+ $n rmplrun /memfd:" <<<"$out") -eq $n ]]'
done

run -np 3 sh -c 'echo "$RMPL_RANK $RMPL_SIZE"'
check "-np is -n" '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 3,1 3,2 3," ]]'

run -n 1 sh -c 'printf "<%s>" "$@"' prog -n 5 --foo -- --tag-output
check "the program's arguments are passed untouched" '[[ $out == "<-n><5><--foo><--><--tag-output>" ]]'

run -n 1 -- sh -c 'echo fine'
check "-- ends rmplrun's options" '[[ $rc -eq 0 && $out == fine ]]'

export RMPLRUN_TEST_INHERITED=inherited
run -x RMPLRUN_TEST_VALUE=a=b -x RMPLRUN_TEST_INHERITED -n 2 \
  sh -c 'echo "$RMPL_RANK $RMPLRUN_TEST_VALUE $RMPLRUN_TEST_INHERITED"'
unset RMPLRUN_TEST_INHERITED
check "-x VAR=value and -x VAR reach every rank" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 a=b inherited,1 a=b inherited," ]]'

rc=0
out=$(echo hello | "$RMPLRUN" -n 2 sh -c 'read -r line || true; echo "$RMPL_RANK:$line"' 2>&1 | sort | tr '\n' ,) || rc=$?
check "rank 0 reads rmplrun's stdin, the other ranks /dev/null" '[[ $rc -eq 0 && $out == "0:hello,1:," ]]'

# ---- exit status ----

run -n 3 true
check "all ranks exit 0: status 0, nothing on stderr" '[[ $rc -eq 0 && -z $err ]]'

run -n 3 false
check "all ranks exit 1: status 1" '[[ $rc -eq 1 ]]'

m=$(marker)
run -n 4 sh -c "[ \$RMPL_RANK = 2 ] && exit 3; sleep $m"
check "a rank's exit code is rmplrun's status" '[[ $rc -eq 3 ]]'
check "... with a message naming the rank and its status" \
  '[[ $err == *"rmplrun: rank 2 (pid "[0-9]*") exited with status 3"* ]]'
check "... and the sleeping ranks are ended promptly" '[[ $ms -lt 5000 ]]'
check "... and no process is left behind" 'gone "sleep $m"'

for case in "SEGV 11 Segmentation fault" "KILL 9 Killed" "ABRT 6 Aborted"; do
  read -r name num text <<<"$case"
  m=$(marker)
  run -n 4 sh -c "[ \$RMPL_RANK = 3 ] && kill -$name \$\$; sleep $m"
  check "a rank killed by SIG$name: status $((128 + num))" '[[ $rc -eq $((128 + num)) ]]'
  check "... with a message naming the rank and the signal" \
    '[[ $err == *"rmplrun: rank 3 (pid "[0-9]*") was killed by signal $num ($text)"* ]]'
  check "... and the other ranks are ended promptly, leaving nothing behind" \
    '[[ $ms -lt 5000 ]] && gone "sleep $m"'
done

# ---- timeout ----

m=$(marker)
run --timeout 1 -n 2 sh -c "trap '' TERM; sleep $m; true"
check "--timeout ends a hung job (ignoring SIGTERM) with status 124" '[[ $rc -eq 124 ]]'
check "... saying so" '[[ $err == *"rmplrun: timeout after 1 s; ending the job"* ]]'
check "... after the timeout plus the grace period" '[[ $ms -ge 900 && $ms -lt 5000 ]]'
check "... leaving nothing behind" 'gone "sleep $m"'

run --timeout 5 -n 2 true
check "--timeout does not touch a job that ends in time" '[[ $rc -eq 0 && $ms -lt 3000 ]]'

# MPIEXEC_TIMEOUT, which mpiexec users and test harnesses set: seconds, as --timeout.
# (A rank that would end by itself after 6 s, so that a launcher ignoring the variable fails here
# rather than hanging the test.)
m=$(marker)
MPIEXEC_TIMEOUT=1 run -n 2 sh -c "trap '' TERM; sleep 6.$m; true"
check "MPIEXEC_TIMEOUT=1 ends a hung job with status 124" '[[ $rc -eq 124 ]]'
check "... saying so, naming the variable" \
  '[[ $err == *"rmplrun: timeout after 1 s (MPIEXEC_TIMEOUT=1); ending the job"* ]]'
check "... after the timeout plus the grace period, leaving nothing behind" \
  '[[ $ms -ge 900 && $ms -lt 5000 ]] && gone "sleep 6.$m"'
MPIEXEC_TIMEOUT=0.5 run -n 1 sleep 3
check "MPIEXEC_TIMEOUT takes fractions of a second, as --timeout does" \
  '[[ $rc -eq 124 && $ms -lt 2500 ]]'
MPIEXEC_TIMEOUT=1 run --timeout 30 -n 2 sleep 2
check "--timeout wins over MPIEXEC_TIMEOUT" '[[ $rc -eq 0 && $ms -ge 1900 ]]'
MPIEXEC_TIMEOUT=30 run --timeout 1 -n 1 sleep 5
check "... both ways" '[[ $rc -eq 124 && $err == *"timeout after 1 s; ending the job"* ]]'
MPIEXEC_TIMEOUT=soon run --timeout 5 -n 1 true
check "... and a bad MPIEXEC_TIMEOUT does not matter when --timeout is given" '[[ $rc -eq 0 ]]'
for value in 0 ''; do
  MPIEXEC_TIMEOUT=$value run -n 1 sleep 1.2
  check "MPIEXEC_TIMEOUT='$value' sets no limit (as with the peers' mpiexec)" \
    '[[ $rc -eq 0 && -z $err ]]'
done
for value in soon -5 1e99 nan 5x ' 5'; do
  MPIEXEC_TIMEOUT=$value run -n 2 true
  check "MPIEXEC_TIMEOUT='$value': status 2, named, starts nothing" \
    '[[ $rc -eq 2 && $err == "rmplrun: MPIEXEC_TIMEOUT '"'"'$value'"'"': expected"*"seconds"* &&
       -z $out ]]'
done

# ---- output ----

run -n 2 sh -c 'echo "out $RMPL_RANK"; echo "err $RMPL_RANK" >&2'
check "without --tag-output, output is passed through as is" \
  '[[ $(sort <<<"$out" | tr "\n" ,) == "out 0,out 1," && $(sort <<<"$err" | tr "\n" ,) == "err 0,err 1," ]]'

run --tag-output -n 3 sh -c 'echo "out $RMPL_RANK"; echo "err $RMPL_RANK" >&2; printf "no newline"'
check "--tag-output prefixes stdout lines with [rank]" \
  '[[ $(grep "out" <<<"$out" | sort | tr "\n" ,) == "[0] out 0,[1] out 1,[2] out 2," ]]'
check "--tag-output prefixes stderr lines with [rank], on stderr" \
  '[[ $(sort <<<"$err" | tr "\n" ,) == "[0] err 0,[1] err 1,[2] err 2," ]]'
check "--tag-output ends a last line that has no newline" \
  '[[ $(grep -c "^\[[0-2]\] no newline$" <<<"$out") -eq 3 ]]'

# 4 ranks each print 200 lines of 3000 copies of their rank digit, through awk's buffered output, so
# lines reach rmplrun in pieces and concurrently.
run --tag-output -n 4 awk 'BEGIN { r = ENVIRON["RMPL_RANK"]; s = "";
  for (j = 0; j < 3000; j++) s = s r; for (i = 0; i < 200; i++) print s }'
bad=$(awk '{
    if (!match($0, /^\[[0-9]+\] /)) { bad++; next }
    r = substr($0, 2, RLENGTH - 3); body = substr($0, RLENGTH + 1)
    if (length(body) != 3000) bad++
    gsub(r, "", body); if (body != "") bad++
    count[r]++
  } END { for (r = 0; r < 4; r++) if (count[r] != 200) bad++; print bad + 0 }' <<<"$out")
check "--tag-output keeps long lines whole (800 lines of 3000 bytes from 4 ranks)" '[[ $rc -eq 0 && $bad -eq 0 ]]'

# ---- signals sent to rmplrun ----

for sig in TERM INT HUP; do
  m=$(marker)
  rc=0 ms=0 out=''
  # Started without job control, a background command would ignore SIGINT: give it the default back.
  env --default-signal=INT "$RMPLRUN" -n 3 sh -c "sleep $m; true" >/dev/null 2>"$tmp/err" </dev/null &
  pid=$!
  if wait_count "sleep $m" 3; then
    kill -s $sig $pid
    wait $pid || rc=$?
    err=$(cat "$tmp/err")
    num=$(kill -l $sig)
    check "SIG$sig to rmplrun ends the job with status $((128 + num))" '[[ $rc -eq $((128 + num)) ]]'
    check "... leaving no rank or child of a rank behind" 'gone "sleep $m"'
  else
    check "SIG$sig test: the ranks started" false
    kill -KILL $pid || true
  fi
done

m=$(marker)
rc=0 ms=0 out='' err=''
"$RMPLRUN" -n 3 sh -c "sleep $m; true" >/dev/null 2>&1 </dev/null &
pid=$!
if wait_count "sleep $m" 3; then
  kill -KILL $pid
  wait $pid 2>/dev/null || true
  check "rmplrun killed by SIGKILL: its ranks and their children die too" 'gone "sleep $m"'
else
  check "SIGKILL test: the ranks started" false
  kill -KILL $pid || true
fi

# ---- binding ----

allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
read -ra cpus <<<"$(expand_cpus "$allowed")"
ncpus=${#cpus[@]}
rank_cpus='echo "$RMPL_RANK $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"'
if ((ncpus >= 2)); then
  run -n 2 sh -c "$rank_cpus"
  check "-n 2: rank i is bound to the i-th allowed CPU (${cpus[0]}, ${cpus[1]})" \
    '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 ${cpus[0]},1 ${cpus[1]}," ]]'
else
  echo "ok - # SKIP binding needs 2 CPUs, this machine allows $ncpus"
fi
run --bind none -n 2 sh -c "$rank_cpus"
check "--bind none: every rank may use all of rmplrun's CPUs ($allowed)" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 $allowed,1 $allowed," ]]'
n=$((ncpus < 8 ? 8 : ncpus + 1))
run -n $n sh -c "$rank_cpus"
check "-n $n (more ranks than CPUs): no binding" \
  '[[ $rc -eq 0 && $(cut -d" " -f2 <<<"$out" | sort -u) == "$allowed" && $(wc -l <<<"$out") -eq $n ]]'
run --bind=core -n 1 true
check "--bind=core is accepted" '[[ $rc -eq 0 ]]'

# ---- the flags and names of Open MPI's and MPICH's launchers ----

run --oversubscribe -n 3 sh -c 'echo "$RMPL_RANK"'
check "--oversubscribe is accepted (and changes nothing)" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0,1,2," ]]'
run -oversubscribe --allow-run-as-root -np 2 true
check "-oversubscribe and --allow-run-as-root are accepted" '[[ $rc -eq 0 && -z $err ]]'
run --bind-to none -n 2 sh -c "$rank_cpus"
check "--bind-to none is --bind none" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 $allowed,1 $allowed," ]]'
if ((ncpus >= 2)); then
  run -bind-to core -n 2 sh -c "$rank_cpus"
  check "-bind-to core is --bind core" \
    '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 ${cpus[0]},1 ${cpus[1]}," ]]'
fi
run -genv RMPLRUN_TEST_A "x y" -env RMPLRUN_TEST_B '' -n 2 \
  sh -c 'echo "$RMPL_RANK <$RMPLRUN_TEST_A> <${RMPLRUN_TEST_B-unset}>"'
check "-genv VAR value and -env VAR value reach every rank" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 <x y> <>,1 <x y> <>," ]]'
# Started under the names it is installed as (links to rmplrun), it is the same launcher.
for alias in mpirun mpiexec; do
  ln -sf "$RMPLRUN" "$tmp/$alias"
  rc=0
  out=$("$tmp/$alias" -np 2 --oversubscribe sh -c 'echo "$RMPL_RANK $RMPL_SIZE"' 2>&1 |
    sort | tr '\n' ,) || rc=$?
  check "started as $alias: the same launcher" '[[ $rc -eq 0 && $out == "0 2,1 2," ]]'
done

# ---- bad usage: status 2, a message naming the problem, no rank started ----

touch "$tmp/not-executable"
bad_usage() {  # bad_usage EXPECTED-TEXT ARGS...
  local text=$1
  shift
  run "$@"
  check "bad usage ($*): status 2, says '$text', starts nothing" \
    '[[ $rc -eq 2 && $err == "rmplrun: "*"$text"* && $err != *"rank "[0-9]* && -z $out ]]'
}
bad_usage "missing -n"
bad_usage "missing -n" true
bad_usage "missing the program" -n 2
bad_usage "needs a value" -n
bad_usage "at least 1 rank" -n 0 true
bad_usage "at least 1 rank" -n -3 true
bad_usage "at most 4096 ranks" -n 4097 true
bad_usage "at most 4096 ranks" -n 99999999999999999999 true
bad_usage "whole number" -n abc true
bad_usage "whole number" -np 2x true
bad_usage "unknown option '--bogus'" --bogus -n 2 true
bad_usage "expected core or none" --bind socket -n 2 true
bad_usage "--bind-to 'socket': expected core or none" --bind-to socket -n 2 true
bad_usage "unknown option '--oversubscribe=yes'" --oversubscribe=yes -n 2 true
bad_usage "option -genv needs a value" -n 2 -genv RMPLRUN_TEST_A
bad_usage "expected -genv VAR value" -genv A=1 -n 2 true
bad_usage "-env: the variable name is empty" -env '' 1 -n 2 true
bad_usage "positive number of seconds" --timeout -5 -n 2 true
bad_usage "positive number of seconds" --timeout soon -n 2 true
bad_usage "the variable name is empty" -x =1 -n 2 true
bad_usage "No such file or directory" -n 2 ./no-such-program
bad_usage "not found in PATH" -n 2 rmplrun-no-such-program
bad_usage "is not executable" -n 2 "$tmp/not-executable"
bad_usage "is a directory" -n 2 "$tmp"

# The job segment cannot be made (RMPL_RING_CELLS must be a power of two): status 1, no rank.
RMPL_RING_CELLS=3 run -n 2 sh -c 'echo started'
check "a failure to create the job segment: status 1, the library's message, no rank started" \
  '[[ $rc -eq 1 && $err == "rmplrun: "*RMPL_RING_CELLS* && -z $out ]]'

run --help
check "--help prints the usage and exits 0" '[[ $rc -eq 0 && $out == *"Usage: rmplrun -n N"* ]]'
run --version
check "--version prints the version and exits 0" '[[ $rc -eq 0 && $out == "rmplrun (rmpl) "[0-9]* ]]'

# ---- -H and --hostfile, on this host (started without a launch agent) ----

run -H localhost:3 sh -c 'echo "$RMPL_RANK $RMPL_SIZE $RMPL_HOSTS $RMPL_HOST"'
check "-H localhost:3 runs 3 ranks (-n defaults to the slots), told their hosts" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 3 localhost:3 0,1 3 localhost:3 0,2 3 localhost:3 0," ]]'
run -H localhost:3 -n 2 --tag-output sh -c 'printf "a\nb"; echo err >&2'
check "-n below the slots, and the output relayed byte for byte (tagged: [rank] per line)" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "[0] a,[0] b,[1] a,[1] b," && $(sort <<<"$err" | tr "\n" ,) == "[0] err,[1] err," ]]'
run -H localhost:1 sh -c 'printf "no newline"'
check "untagged output comes back unchanged" '[[ $rc -eq 0 && $out == "no newline" ]]'
out=$(printf 'hello\n' | "$RMPLRUN" -H localhost:2 sh -c 'echo "$RMPL_RANK:$(cat)"' 2>&1) && rc=0 || rc=$?
check "-H: rank 0 reads rmplrun's standard input through its host's rmplrun, the others nothing" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0:hello,1:," ]]'
out=$(head -c 5000000 /dev/zero | "$RMPLRUN" -H localhost:1 sh -c 'wc -c' 2>&1) && rc=0 || rc=$?
check "-H: 5 MB of standard input reach rank 0 whole (a window at a time)" \
  '[[ $rc -eq 0 && $out == 5000000 ]]'
printf '# a comment\nlocalhost slots=2 max_slots=4\n\n  # another\n' >"$tmp/hosts"
run --hostfile "$tmp/hosts" -x RMPLRUN_TEST_VALUE=x --wdir / sh -c 'echo "$RMPL_RANK $PWD $RMPLRUN_TEST_VALUE"'
check "--hostfile (slots=N, comments), -x and --wdir" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 / x,1 / x," ]]'
run -H localhost:2 -n 3 true
check "-n above the slots: status 2, the slots named" '[[ $rc -eq 2 && $err == *"-n 3: the hosts offer 2 slots"* ]]'
run -H localhost:2 -n 3 --oversubscribe sh -c 'echo "$RMPL_RANK $RMPL_HOSTS"'
check "--oversubscribe: -n above the slots runs" \
  '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 localhost:3,1 localhost:3,2 localhost:3," ]]'
run -H localhost:0 true
check "-H host:0: status 2, the item named" '[[ $rc -eq 2 && $err == *"localhost:0"*"number of slots"* ]]'
run --hostfile "$tmp/nothing-here" true
check "a hostfile that cannot be read: status 2, named" '[[ $rc -eq 2 && $err == *"nothing-here"* ]]'
run -H localhost:2 sh -c "[ \$RMPL_RANK = 1 ] && exit 5; sleep 30"
check "a rank's failure on a host: its status, named by the host's rmplrun, the job ended" \
  '[[ $rc -eq 5 && $err == *"rmplrun on localhost: rank 1 (pid "*") exited with status 5"* && $ms -lt 10000 ]]'
m=$(marker)
"$RMPLRUN" -H localhost:2 sh -c "sleep $m" >/dev/null 2>&1 </dev/null &
pid=$!
if wait_count "sleep $m" 2; then
  kill -INT $pid
  rc=0
  wait $pid || rc=$?
  check "SIGINT to rmplrun -H: status 130, no rank left" '[[ $rc -eq 130 ]] && ! wait_count "sleep $m" 1'
else
  check "SIGINT test with -H: the ranks started" false
fi
m=$(marker)
run -H "localhost:1,nowhere.invalid:1" --launch-agent false sh -c "sleep $m"
check "a launch agent that fails: status 1, the host and its ranks named, nothing left" \
  '[[ $rc -eq 1 && $err == *"lost host nowhere.invalid (rank 1)"* ]] && ! wait_count "sleep $m" 1'

# ---- nothing left in /dev/shm ----

# Other programs (an Open MPI benchmark run alongside, say) may come and go in /dev/shm meanwhile:
# only names that could be ours count, and the fd check below is exact.
new_shm=$(comm -13 <(echo "$shm_before") <(ls -A /dev/shm | sort) | grep -i rmpl || true)
check "no rmpl file appeared in /dev/shm" '[[ -z $new_shm ]]'

m=$(marker)
"$RMPLRUN" -n 2 sh -c "sleep $m; true" >/dev/null 2>&1 </dev/null &
pid=$!
if wait_count "sleep $m" 2; then
  shm_fds=$(for p in $pid $(pgrep -f "sleep $m"); do ls -l /proc/$p/fd/ 2>/dev/null; done | grep -c /dev/shm || true)
  check "neither rmplrun nor its ranks have a file of /dev/shm open" '[[ $shm_fds -eq 0 ]]'
else
  check "/dev/shm test: the ranks started" false
fi
kill -TERM $pid
wait $pid || true

if ((failures > 0)); then
  echo "# $failures check(s) failed"
  exit 1
fi
echo "# all checks passed"
