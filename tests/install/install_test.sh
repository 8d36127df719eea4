#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds programs against it the two ways users do
# (CMake's find_package and pkg-config, from C++ and from C), then runs them under the installed
# rmplrun. Then the MPI layer as MPI users use it: programs built with the installed mpicc and
# mpicxx, and by a CMake project through FindMPI, run with the installed mpirun and mpiexec; and
# the installation moved elsewhere still works. Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here/consumer" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
c++ -std=c++20 "$here/consumer/consumer.cpp" $(pkg-config --cflags --libs rmpl) -o "$work/pc_cxx"
cc "$here/consumer/consumer.c" $(pkg-config --cflags --libs rmpl) -o "$work/pc_c"
for program in "$work/cmake/consumer_cxx" "$work/pc_cxx" "$work/pc_c"; do
  for n in 1 3; do
    "$work/prefix/bin/rmplrun" -n "$n" --timeout 60 "$program"
    echo "ok - $(basename "$program") with $n ranks"
  done
done

# ---- the MPI layer: mpicc, mpicxx, mpirun, mpiexec ----
prefix="$work/prefix"
mpi_programs="$here/../mpi/wrappers"
# The wrappers' default compilers are under test, not ones the caller's environment chooses.
unset MPICH_CC MPICH_CXX OMPI_CC OMPI_CXX
fail() {
  echo "not ok - $*" >&2
  exit 1
}
# expect_hello N OUTPUT: OUTPUT is hello.c's, from N ranks.
expect_hello() {
  local i expected
  expected=$(for ((i = 0; i < $1; i++)); do
    echo "hello from rank $i of $1, sum $(($1 * ($1 + 1) / 2))"
  done)
  [[ $(sort <<<"$2") == "$expected" ]] || fail "hello.c with $1 ranks printed: $2"
}
for alias in mpirun mpiexec; do
  [[ $(readlink "$prefix/bin/$alias") == rmplrun ]] || fail "$alias is not a link to rmplrun"
done
libmpi=$(find "$prefix" -name 'libmpi.so.*' -type f)
libdir=$(dirname "$libmpi")
[[ $("$prefix/bin/mpicc" -showme:incdirs) == "$prefix/include" && -f $prefix/include/mpi.h ]] ||
  fail "the installed mpicc's include dir: $("$prefix/bin/mpicc" -showme:incdirs)"
[[ $("$prefix/bin/mpicc" -showme:libdirs) == "$libdir" ]] ||
  fail "the installed mpicc's library dir: $("$prefix/bin/mpicc" -showme:libdirs), not $libdir"
echo "ok - the installed mpicc points at the installed mpi.h and libmpi.so"

"$prefix/bin/mpicc" "$mpi_programs/hello.c" -o "$work/hello_c"
"$prefix/bin/mpicxx" "$mpi_programs/hello.cpp" -o "$work/hello_cxx"
# The programs use the installed libmpi.so, found through the rpath, nothing of the build tree.
# ldd's output is taken whole first: under pipefail, `ldd | grep -q` fails whenever grep's early
# exit makes ldd die of SIGPIPE before it has written everything.
libs=$(ldd "$work/hello_c")
grep -q "libmpi.so.[0-9]* => $libdir/libmpi.so" <<<"$libs" ||
  fail "ldd does not show the installed libmpi.so: $(ldd "$work/hello_c")"
if readelf -d "$work/hello_c" "$work/hello_cxx" | grep -F "$(realpath "$build")"; then
  fail "a program built by the installed wrappers refers to the build tree"
fi
echo "ok - the installed mpicc and mpicxx build programs linked to the installed libmpi.so"
for n in 1 3; do
  expect_hello $n "$("$prefix/bin/mpirun" -n $n --timeout 60 "$work/hello_c")"
  echo "ok - mpicc's program under the installed mpirun with $n ranks"
done
out=$("$prefix/bin/mpiexec" -np 2 --oversubscribe --timeout 60 "$work/hello_cxx")
[[ $out == "$(for i in 0 1; do echo "hello++ from rank $i of 2, largest rank 1"; done)" ]] ||
  fail "hello.cpp under mpiexec printed: $out"
echo "ok - mpicxx's program under the installed mpiexec"

# CMake's FindMPI, finding the installed mpicc first in PATH (a system MPI may be installed too).
PATH="$prefix/bin:$PATH" cmake -S "$here/mpi_consumer" -B "$work/findmpi" -G Ninja >/dev/null
if ! grep -qFx "MPI_C_LIBRARIES=$libdir/libmpi.so" "$work/findmpi/found.txt" ||
  ! grep -qFx "MPIEXEC_EXECUTABLE=$prefix/bin/mpiexec" "$work/findmpi/found.txt"; then
  fail "FindMPI found another MPI: $(cat "$work/findmpi/found.txt")"
fi
cmake --build "$work/findmpi" >/dev/null
expect_hello 3 "$("$prefix/bin/mpiexec" -n 3 --timeout 60 "$work/findmpi/hello_findmpi")"
echo "ok - a CMake project finds the installed MPI with FindMPI, and its program runs"

# The installation moved as a whole: the wrappers find their headers and library from where they
# are now, also when started through a link from elsewhere.
mv "$prefix" "$work/moved"
mkdir "$work/links"
ln -s "$work/moved/bin/mpicc" "$work/links/mpicc"
[[ $("$work/links/mpicc" -showme:incdirs) == "$work/moved/include" ]] ||
  fail "the moved mpicc's include dir: $("$work/links/mpicc" -showme:incdirs)"
"$work/links/mpicc" "$mpi_programs/hello.c" -o "$work/hello_moved"
libs=$(ldd "$work/hello_moved")
grep -q "=> $work/moved/" <<<"$libs" || fail "the moved libmpi.so is not used"
expect_hello 2 "$("$work/moved/bin/mpirun" -n 2 --timeout 60 "$work/hello_moved")"
echo "ok - a moved installation's mpicc (through a link) and mpirun still work"
