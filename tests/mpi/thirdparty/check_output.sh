#!/usr/bin/env bash
# Runs a vendored MPI program under rmpl's mpirun and judges it by its output, as the programs'
# own projects do (they print " No Errors", "PASSED", pi's error... rather than set exit codes).
#
# Usage: check_output.sh MPIRUN RANKS TIMEOUT [CHECK...] -- PROGRAM [ARG...]
#   --expect REGEX       some line of stdout+stderr matches REGEX (grep -E)
#   --expect-lines N REGEX   exactly N lines match REGEX (one per rank, for instance)
#   --forbid REGEX       no line matches REGEX
# The run must also exit with status 0. Prints the program's output, then "not ok - ..." for
# each failed check; exits non-zero if any failed.
set -uo pipefail

mpirun=$1 ranks=$2 timeout=$3
shift 3
checks=()
while (($# > 0)) && [[ $1 != -- ]]; do
  case $1 in
    --expect | --forbid) checks+=("$1" "$2" ""); shift 2 ;;
    --expect-lines) checks+=("$1" "$3" "$2"); shift 3 ;;
    *) echo "check_output.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if (($# < 2)) || [[ $1 != -- ]]; then
  echo "check_output.sh: no program after --" >&2
  exit 2
fi
shift

output=$(mktemp)
trap 'rm -f "$output"' EXIT
status=0
"$mpirun" -n "$ranks" --timeout "$timeout" "$@" >"$output" 2>&1 </dev/null || status=$?
cat "$output"

failures=0
fail() {
  echo "not ok - $1"
  failures=$((failures + 1))
}
if ((status != 0)); then
  fail "mpirun -n $ranks $(basename "$1") exited with status $status"
fi
for ((i = 0; i < ${#checks[@]}; i += 3)); do
  kind=${checks[i]} regex=${checks[i + 1]} expected=${checks[i + 2]}
  matches=$(grep -cE -- "$regex" "$output")
  case $kind in
    --expect) ((matches > 0)) || fail "no line matches /$regex/" ;;
    --forbid) ((matches == 0)) || fail "$matches line(s) match the forbidden /$regex/" ;;
    --expect-lines)
      ((matches == expected)) || fail "$matches line(s) match /$regex/, expected $expected" ;;
  esac
done
((failures == 0))
