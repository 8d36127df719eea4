# What the death tests (death_test.sh, watch_test.sh) share; sourced by each, after it set `tmp`
# (its scratch directory, holding each case's out and err) and `failures` (its count of failed
# cases).

# A number that appears in no other process's arguments, to find a job's processes with pgrep.
marker() { echo $((7000000 + RANDOM * 32 + RANDOM % 32)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# verdict NAME PROBLEMS SUMMARY: one ok / not ok line for a case, with the case's output when
# PROBLEMS is not empty.
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
