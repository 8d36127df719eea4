#!/bin/bash
# The MPI layer's symbol audit: every C function of MPI 4.1 (functions.txt, "name chapter", the
# project's list, made once from the standard's function index and checked against the MPI-4.0
# and MPI-3.1 headers of MPICH and Open MPI) against what libmpi exports. A function is provided
# when both MPI_name and its profiling twin PMPI_name are defined there. What is absent must have
# a reason: a part of the standard that a later issue takes (one-sided, dynamic processes), one
# that no issue takes yet (MPI-IO, the Fortran 2008 bindings' conversions), or a line in todo.txt
# (issue 23's work still to do; it only shrinks). Fails when a function is absent without a
# reason, and when todo.txt names one that is provided (take it out).
# PROVIDED is the list the bindings generator writes from src/mpi/bindings/functions.spec: each
# of its functions must be exported with its twin, and every MPI_/PMPI_ function libmpi exports
# must be in it (no binding written by hand, outside the spec).
# Usage: audit.sh LIBMPI PROVIDED [--list]   (--list prints every function with its state)
set -euo pipefail
here=$(dirname "$0")
lib=${1:?usage: audit.sh LIBMPI PROVIDED [--list]}
provided=${2:?usage: audit.sh LIBMPI PROVIDED [--list]}
list=${3:-}
[[ -r $lib ]] || { echo "audit.sh: cannot read $lib" >&2; exit 2; }
[[ -r $provided ]] || { echo "audit.sh: cannot read $provided" >&2; exit 2; }
exported=$(mktemp)
trap 'rm -f "$exported"' EXIT
nm -D --defined-only "$lib" | awk '{print $NF, $(NF-1)}' | sort -u > "$exported"
awk -v list="$list" '
  FILENAME == ARGV[1] {
    have[$1] = 1
    if ($2 ~ /^[TtWw]$/ && $1 ~ /^P?MPI_/) function_exported[$1] = 1
    next
  }
  FILENAME == ARGV[2] { if ($1 !~ /^#/ && NF) todo[$1] = 1; next }
  FILENAME == ARGV[3] {
    spec[$1] = 1
    if (!($1 in have) || !(("P" $1) in have)) unexported[++nunexported] = $1
    next
  }
  {
    name = $1; chapter = $2; twin = "P" name
    if ((name in have) && (twin in have)) {
      state = "provided"
      if (name in todo) { stale[++nstale] = name }
    } else if ((name in have) != (twin in have)) {
      state = "MISSING (only one of " name " and " twin ")"
    } else if (chapter == "rma" || name ~ /^MPI_Win_/) {
      state = "absent: one-sided communication, issue 25"
    } else if (chapter == "dynamic") {
      state = "absent: dynamic processes, issue 26"
    } else if (chapter == "io" || name ~ /^MPI_File_/) {
      state = "absent: MPI-IO, no issue yet"
    } else if (name ~ /f08/) {
      state = "absent: Fortran 2008 bindings, no issue yet"
    } else if (name in todo) {
      state = "absent: issue 23, to do (todo.txt)"
    } else {
      state = "MISSING"
    }
    count[state]++
    if (state ~ /^MISSING/) missing[++nmissing] = name " (" chapter "): " state
    if (list != "") printf "%-40s %-9s %s\n", name, chapter, state
  }
  END {
    for (name in function_exported) {
      plain = name; sub(/^P/, "", plain)
      if (!(plain in spec)) undeclared[++nundeclared] = name
    }
    n = split("provided|absent: issue 23, to do (todo.txt)|absent: one-sided communication, issue 25|absent: dynamic processes, issue 26|absent: MPI-IO, no issue yet|absent: Fortran 2008 bindings, no issue yet", order, "|")
    for (i = 1; i <= n; ++i) printf "%5d  %s\n", count[order[i]], order[i]
    if (nmissing) printf "%5d  MISSING\n", nmissing
    for (i = 1; i <= nmissing; ++i) print "MISSING: " missing[i]
    for (i = 1; i <= nstale; ++i) print "STALE: " stale[i] " is provided: take it out of todo.txt"
    for (i = 1; i <= nunexported; ++i) print "UNEXPORTED: " unexported[i] " is in functions.spec but libmpi does not export it and its twin"
    for (i = 1; i <= nundeclared; ++i) print "UNDECLARED: libmpi exports " undeclared[i] ", which functions.spec does not declare"
    exit (nmissing + nstale + nunexported + nundeclared > 0)
  }
' "$exported" "$here/todo.txt" "$provided" "$here/functions.txt"
