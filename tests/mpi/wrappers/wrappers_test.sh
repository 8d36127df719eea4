#!/usr/bin/env bash
# Tests of the build tree's MPI tools (tools/mpi-wrappers) used as users use MPICH's or Open MPI's:
# mpicc and mpicxx build the programs of this folder, mpirun and mpiexec run them.
# Usage: wrappers_test.sh BIN_DIR INCLUDE_DIR LIB_DIR C_COMPILER CXX_COMPILER
#   BIN_DIR      <build>/bin (mpicc, mpicxx, mpirun, mpiexec)
#   INCLUDE_DIR  where mpi.h is; LIB_DIR where libmpi.so is
#   C_COMPILER, CXX_COMPILER  the compilers CMake uses, which the wrappers must run by default
# In a sanitizer build, RMPL_WRAPPERS_SANITIZE holds the build's RMPL_SANITIZE: the wrappers then
# add -fsanitize=<it> to the compile and the link flags.
# Prints "ok - ..." or "not ok - ..." per check; exits non-zero if any check failed.
# Checks are bash expressions evaluated later by check(), hence single quotes.
# shellcheck disable=SC2016,SC2034
set -euo pipefail

bin=$(realpath "$1")
include_dir=$(realpath "$2")
lib_dir=$(realpath "$3")
c_compiler=$4
cxx_compiler=$5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
failures=0
# The wrappers' defaults are under test: compilers chosen by the caller's environment are not.
unset MPICH_CC MPICH_CXX OMPI_CC OMPI_CXX
sanitize=${RMPL_WRAPPERS_SANITIZE:+ -fsanitize=$RMPL_WRAPPERS_SANITIZE}
compile_flags="-I$include_dir$sanitize"
sanitize_arg=${RMPL_WRAPPERS_SANITIZE:+<-fsanitize=$RMPL_WRAPPERS_SANITIZE>}
# Starting many ranks on 2 CPUs must not take long: each run gets this many seconds.
timeout=60

# ---- helpers (as in tests/launcher/launcher_test.sh) ----

# run COMMAND...: sets rc, out and err.
run() {
  rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# check DESCRIPTION EXPRESSION: EXPRESSION is bash code (usually [[ ... ]]) over rc, out and err.
check() {
  if eval "$2"; then
    echo "ok - $1"
  else
    echo "not ok - $1"
    echo "#   failed: $2"
    echo "#   rc=$rc"
    sed 's/^/#   stdout: /' <<<"${out:0:3000}"
    sed 's/^/#   stderr: /' <<<"${err:0:3000}"
    failures=$((failures + 1))
  fi
}
rc=0 out='' err=''

# The lines "hello from rank i of n, sum s" for i = 0..n-1, sorted.
expected_hello() {
  local i
  for ((i = 0; i < $1; i++)); do echo "hello from rank $i of $1, sum $(($1 * ($1 + 1) / 2))"; done
}

# ---- what the wrappers would run ----

run "$bin/mpicc" -show hello.c -o hello
# rmpl's -L before the user's arguments, its library by full path after them (see the section
# "rmpl's library, never another MPI's" below).
link_dirs="-L$lib_dir"
libraries="$lib_dir/libmpi.so -Wl,-rpath,$lib_dir$sanitize"
link_flags="$link_dirs $libraries"
check "mpicc -show: the C compiler, -I<include>, -L<lib>, the file, then libmpi.so and -rpath" \
  '[[ $rc -eq 0 && $out == "$c_compiler $compile_flags $link_dirs hello.c -o hello $libraries"* ]]'
run "$bin/mpicc" -showme
check "mpicc -showme alone: the full command, with the link flags" \
  '[[ $rc -eq 0 && $out == "$c_compiler $compile_flags $link_flags"* ]]'
run "$bin/mpicxx" -show x.cpp
check "mpicxx -show: the C++ compiler" \
  '[[ $rc -eq 0 && $out == "$cxx_compiler -I"*" x.cpp "*/libmpi.so* ]]'
for flag in -c -S -E -M -MM -fsyntax-only; do
  run "$bin/mpicc" -show "$flag" hello.c
  check "mpicc -show $flag: compile flags only, no link flags" \
    '[[ $rc -eq 0 && $out == "$c_compiler $compile_flags $flag hello.c" ]]'
done
run "$bin/mpicc" -showme:compile
check "-showme:compile prints the compile flags" '[[ $rc -eq 0 && $out == "$compile_flags" ]]'
run "$bin/mpicc" -showme:link
check "-showme:link prints the link flags" \
  '[[ $rc -eq 0 && $out == "$link_flags"* ]]'
run "$bin/mpicc" -showme:incdirs
check "-showme:incdirs" '[[ $rc -eq 0 && $out == "$include_dir" ]]'
run "$bin/mpicc" -showme:libdirs
check "-showme:libdirs" '[[ $rc -eq 0 && $out == "$lib_dir" ]]'
run "$bin/mpicc" -showme:libs
check "-showme:libs" '[[ $rc -eq 0 && $out == mpi ]]'
run "$bin/mpicxx" -showme:command
check "mpicxx -showme:command" '[[ $rc -eq 0 && $out == "$cxx_compiler" ]]'
run "$bin/mpicc" -showme:version
check "-showme:version" '[[ $rc -eq 0 && $out == "mpicc: rmpl "[0-9]*" (Language: C)" ]]'
run "$bin/mpicc" -compile_info
check "-compile_info (MPICH): the compiler and the compile flags" \
  '[[ $rc -eq 0 && $out == "$c_compiler $compile_flags" ]]'
run "$bin/mpicc" -link-info
check "-link-info (MPICH): the compiler and the link flags" \
  '[[ $rc -eq 0 && $out == "$c_compiler $compile_flags $link_flags"* ]]'
run "$bin/mpicc" -show -v
check "mpicc -v asks the compiler about itself: no flags (libmpi.so would make it link)" \
  '[[ $rc -eq 0 && $out == "$c_compiler -v" ]]'
run "$bin/mpicc" --version
check "mpicc --version runs the compiler's" '[[ $rc -eq 0 && -n $out ]]'
run "$bin/mpicc" -showme:bogus
check "an unknown -showme: option is refused, named" \
  '[[ $rc -ne 0 && $err == *"-showme:bogus"* && -z $out ]]'
run "$bin/mpicc" -help
check "mpicc -help describes the wrapper" \
  '[[ $rc -eq 0 && $out == "mpicc: compiles and links C MPI programs"* &&
     $out == *-showme:compile* ]]'

# -show prints a line a shell reads back as the same words, whatever they hold.
run "$bin/mpicc" -show 'a b.c' "it's" '$(touch pwned)' '*' -DX='"y"'
quoted="'a b.c' 'it'\\''s' '\$(touch pwned)' '*' '-DX=\"y\"'"
check "-show quotes words with blanks, quotes and shell syntax" \
  '[[ $rc -eq 0 && $out == *" $quoted $lib_dir/libmpi.so"* ]]'
eval "words=($out)"  # the test's own eval: reading back what -show printed
read -ra before <<<"$c_compiler $compile_flags $link_dirs"
words=("${words[@]:${#before[@]}:5}")  # the arguments, after the compiler, compile flags and -L
check "... and reading the line back gives the words again" \
  '[[ ${words[0]} == "a b.c" && ${words[1]} == "it'"'"'s" && ${words[2]} == "\$(touch pwned)" &&
     ${words[3]} == "*" && ${words[4]} == "-DX=\"y\"" && ! -e pwned ]]'

# ---- the compiler chosen by the environment ----

# A "compiler" that prints its arguments one per line, in <>.
cat >"$tmp/args.sh" <<'EOF'
#!/bin/sh
printf '%s' "${ARGS_NAME:-args}:"
for a; do printf '<%s>' "$a"; done
echo
EOF
chmod +x "$tmp/args.sh"
MPICH_CC=$tmp/args.sh run "$bin/mpicc" -c 'a b.c' '$(touch pwned)' '*'
check "MPICH_CC chooses the compiler; arguments reach it untouched" \
  '[[ $rc -eq 0 && $out == "args:<-I$include_dir>$sanitize_arg<-c><a b.c><\$(touch pwned)><*>" && ! -e pwned ]]'
OMPI_CC="env ARGS_NAME=ompi $tmp/args.sh" run "$bin/mpicc" -c x.c
check "OMPI_CC chooses the compiler and may carry arguments (split at blanks)" \
  '[[ $rc -eq 0 && $out == "ompi:<-I$include_dir>$sanitize_arg<-c><x.c>" ]]'
MPICH_CC="env ARGS_NAME=mpich $tmp/args.sh" OMPI_CC=false run "$bin/mpicc" -c x.c
check "MPICH_CC wins over OMPI_CC" '[[ $rc -eq 0 && $out == mpich:* ]]'
MPICH_CC=false run "$bin/mpicc" "-cc=env ARGS_NAME=option $tmp/args.sh" -c x.c
check "-cc= wins over the environment" '[[ $rc -eq 0 && $out == option:* ]]'
OMPI_CXX="$tmp/args.sh *" run "$bin/mpicxx" -c x.cpp
check "OMPI_CXX chooses mpicxx's compiler; its words are not globbed" \
  '[[ $rc -eq 0 && $out == "args:<*><-I$include_dir>$sanitize_arg<-c><x.cpp>" ]]'
MPICH_CC=$tmp/args.sh run "$bin/mpicxx" -show x.cpp
check "mpicxx ignores MPICH_CC" '[[ $rc -eq 0 && $out == "$cxx_compiler "* ]]'

# ---- building and running MPI programs ----

run "$bin/mpicc" -c "$here/hello.c" -o hello.o
check "mpicc -c compiles without linking" '[[ $rc -eq 0 && -s hello.o && ! -e a.out ]]'
run "$bin/mpicc" hello.o -o hello_c
check "mpicc links an object" '[[ $rc -eq 0 && -x hello_c ]]'
run readelf -d hello_c
check "the program needs libmpi.so.N and has the rpath of the build tree's libmpi" \
  '[[ $out == *"(NEEDED)"*"[libmpi.so."[0-9]*"]"* && $out == *"R"*"PATH)"*"[$lib_dir]"* ]]'
run ldd hello_c
check "ldd finds the build tree's libmpi.so" \
  '[[ $out == *"libmpi.so."[0-9]*" => $lib_dir/libmpi.so"* ]]'

for n in 1 2 4; do
  run "$bin/mpirun" -n $n --timeout $timeout ./hello_c
  check "mpirun -n $n: every rank says hello with the right sum" \
    '[[ $rc -eq 0 && $(sort <<<"$out") == "$(expected_hello $n | sort)" ]]'
done
run "$bin/mpiexec" -np 3 --oversubscribe --timeout $timeout ./hello_c
check "mpiexec -np 3 --oversubscribe" \
  '[[ $rc -eq 0 && $(sort <<<"$out") == "$(expected_hello 3 | sort)" ]]'
run "$bin/mpirun" --oversubscribe --bind-to none -n 5 --timeout $timeout ./hello_c
check "mpirun --oversubscribe --bind-to none -n 5 (more ranks than CPUs)" \
  '[[ $rc -eq 0 && $(sort <<<"$out") == "$(expected_hello 5 | sort)" ]]'

run "$bin/mpicxx" "$here/hello.cpp" -o hello_cxx
check "mpicxx builds a C++ MPI program" '[[ $rc -eq 0 && -x hello_cxx ]]'
run "$bin/mpiexec" -np 3 --oversubscribe --timeout $timeout ./hello_cxx
expected=$(for i in 0 1 2; do echo "hello++ from rank $i of 3, largest rank 2"; done)
check "mpiexec -np 3 --oversubscribe runs it" '[[ $rc -eq 0 && $out == "$expected" ]]'
run "$bin/mpirun" -n 1 --timeout $timeout ./hello_cxx
check "... and mpirun -n 1" '[[ $rc -eq 0 && $out == "hello++ from rank 0 of 1, largest rank 0" ]]'

# Paths with blanks in them, through the wrapper and the launcher.
mkdir "$tmp/with space"
cp "$here/hello.c" "$tmp/with space/hello world.c"
run "$bin/mpicc" "$tmp/with space/hello world.c" -o "$tmp/with space/hello world"
check "mpicc builds a file whose path has blanks" \
  '[[ $rc -eq 0 && -x "$tmp/with space/hello world" ]]'
run "$bin/mpirun" -n 2 --timeout $timeout "$tmp/with space/hello world"
check "... and mpirun runs it" \
  '[[ $rc -eq 0 && $(sort <<<"$out") == "$(expected_hello 2 | sort)" ]]'

# A function the library does not have: compiles, and fails to link naming the function.
run "$bin/mpicc" -c "$here/missing.c" -o missing.o
check "a program calling MPI_Win_create compiles (mpicc -c)" '[[ $rc -eq 0 && -s missing.o ]]'
run "$bin/mpicc" missing.o -o missing
check "... and fails to link, naming MPI_Win_create" \
  '[[ $rc -ne 0 && ! -e missing && $err == *"undefined reference to"*MPI_Win_create* ]]'

# ---- rmpl's library, never another MPI's ----
# Open MPI's library is libmpi.so too. Builds pass library directories of their own (every Python
# extension build passes -L/usr/lib/<multiarch>, where Debian's Open MPI has its libmpi.so); the
# wrappers must still link rmpl's, and an object compiled with rmpl's mpi.h must refuse to link
# with another MPI's library, naming why.
multiarch=$("$c_compiler" -print-multiarch 2>/dev/null || true)
system_dir=/usr/lib${multiarch:+/$multiarch}
foreign_dir=''  # where another MPI's libmpi.so is, if one is installed
for dir in "$system_dir" "$system_dir/openmpi/lib" /usr/lib64/openmpi/lib /usr/lib64 /usr/lib; do
  if [[ -e $dir/libmpi.so && $(realpath "$dir/libmpi.so") != "$lib_dir"/* ]]; then
    foreign_dir=$dir
    break
  fi
done
echo "# another MPI's libmpi.so: ${foreign_dir:-none found (those checks are skipped)}"
# is_ours PROGRAM: the program needs rmpl's libmpi and no other, and ldd finds the build tree's.
is_ours() {
  local needed libs
  needed=$(readelf -d "$1" | grep -F '(NEEDED)' | grep -o 'libmpi[^]]*' || true)
  libs=$(ldd "$1")
  [[ $needed == "$(basename "$(readlink -f "$lib_dir/libmpi.so")" | grep -o 'libmpi.so.[0-9]*')" &&
     $libs == *"libmpi.so."[0-9]*" => $lib_dir/libmpi.so"* ]]
}
dirs=("$system_dir")
[[ -n $foreign_dir && $foreign_dir != "$system_dir" ]] && dirs+=("$foreign_dir")
for dir in "${dirs[@]}"; do
  run "$bin/mpicc" "$here/hello.c" -L"$dir" -o hello_l
  check "mpicc hello.c -L$dir links rmpl's libmpi.so, not the one there" \
    '[[ $rc -eq 0 ]] && is_ours hello_l'
  run "$bin/mpicxx" "$here/hello.cpp" -L"$dir" -lmpi -o hello_lmpi
  check "mpicxx hello.cpp -L$dir -lmpi: the user's own -lmpi is rmpl's too" \
    '[[ $rc -eq 0 ]] && is_ours hello_lmpi'
done
# A configure script's probe for a function (AC_CHECK_FUNC declares it itself, includes no mpi.h)
# with the build's -L: it must not "find" the function in another MPI's libmpi.so.
cat >probe_win.c <<'EOF'
char MPI_Win_create(void);
int main(void) { return MPI_Win_create(); }
EOF
run "$bin/mpicc" probe_win.c -L"${foreign_dir:-$system_dir}" -o probe_win
check "a configure-style probe for MPI_Win_create with -L${foreign_dir:-$system_dir} fails to link" \
  '[[ $rc -ne 0 && ! -e probe_win && $err == *"undefined reference to"*MPI_Win_create* ]]'
LIBRARY_PATH=${foreign_dir:-$system_dir} run "$bin/mpicc" "$here/init_only.c" -o init_only_lp
check "mpicc with LIBRARY_PATH=${foreign_dir:-$system_dir} links rmpl's libmpi.so" \
  '[[ $rc -eq 0 ]] && is_ours init_only_lp'
run "$bin/mpirun" -n 2 --timeout $timeout ./hello_l
check "... and the program runs" '[[ $rc -eq 0 && $(sort <<<"$out") == "$(expected_hello 2 | sort)" ]]'

# Static linking takes rmpl's libmpi.a (not under a sanitizer: its runtime is a shared library).
run "$bin/mpicxx" -show -static x.cpp
check "mpicxx -show -static names rmpl's libmpi.a" \
  '[[ $rc -eq 0 && $out == *" $lib_dir/libmpi.a"* && $out != *libmpi.so* ]]'
if [[ -z ${RMPL_WRAPPERS_SANITIZE:-} ]]; then
  run "$bin/mpicxx" -static "$here/hello.cpp" -L"$system_dir" -o hello_static
  check "mpicxx -static builds a static program" \
    '[[ $rc -eq 0 && -x hello_static && $(file hello_static) == *"statically linked"* ]]'
  run "$bin/mpirun" -n 2 --timeout $timeout ./hello_static
  check "... which runs" '[[ $rc -eq 0 && $out == "hello++ from rank 0 of 2"* ]]'
fi

# Compiled with rmpl's mpi.h, warnings as errors, C and C++, GCC and Clang where installed: the
# reference mpi.h makes must not cost the user a warning.
strict=(-Wall -Wextra -Wpedantic -Werror -Wunused -Wunused-const-variable -Wunused-variable)
run "$bin/mpicc" "${strict[@]}" -c "$here/init_only.c" -o init_only.o
check "mpicc ${strict[*]} compiles a program without a warning" '[[ $rc -eq 0 && -z $err ]]'
run "$bin/mpicxx" "${strict[@]}" -c "$here/hello.cpp" -o hello_strict.o
check "mpicxx ${strict[*]} compiles a program without a warning" '[[ $rc -eq 0 && -z $err ]]'
for pair in clang:init_only.c:-std=c11 clang++:hello.cpp:-std=c++17; do
  IFS=: read -r compiler source standard <<<"$pair"
  command -v "$compiler" >/dev/null || continue
  # Clang's warnings that a header's file-scope object could set off.
  run "$compiler" "$standard" -I"$include_dir" "${strict[@]}" -Wused-but-marked-unused \
    -Wmissing-variable-declarations -Wglobal-constructors -Wexit-time-destructors \
    -c "$here/$source" -o "strict_$compiler.o"
  check "$compiler with those and Clang's own compiles $source without a warning" '[[ $rc -eq 0 && -z $err ]]'
done

# Compiled with rmpl's mpi.h, linked with another MPI's library: a link error that says so.
if [[ -n $foreign_dir ]]; then
  run "$bin/mpicc" -c "$here/init_only.c" -o init_only.o
  run "$c_compiler" init_only.o -L"$foreign_dir" -lmpi -o init_only_foreign
  check "MPI_Init alone, compiled with rmpl's mpi.h, fails to link with $foreign_dir/libmpi.so" \
    '[[ $rc -ne 0 && ! -e init_only_foreign &&
       $err == *"undefined reference to"*rmpl_mpi_h_needs_rmpl_libmpi* ]]'
  run "$c_compiler" init_only.o -ffunction-sections -fdata-sections -Wl,--gc-sections \
    -L"$foreign_dir" -lmpi -o init_only_foreign
  check "... with -Wl,--gc-sections too" \
    '[[ $rc -ne 0 && $err == *"undefined reference to"*rmpl_mpi_h_needs_rmpl_libmpi* ]]'
  run "$bin/mpicxx" -c "$here/hello.cpp" -o hello_cxx.o
  run "$cxx_compiler" hello_cxx.o -L"$foreign_dir" -lmpi -o hello_cxx_foreign
  check "a C++ program compiled with rmpl's mpi.h fails to link with $foreign_dir/libmpi.so" \
    '[[ $rc -ne 0 && $err == *"undefined reference to"*rmpl_mpi_h_needs_rmpl_libmpi* ]]'
else
  echo "ok - # SKIP linking with another MPI's libmpi.so: none is installed"
fi
# With rmpl's libraries, shared or static, that reference is satisfied (linked by hand, with the
# sanitizer of a sanitized build, whose libraries need its runtime).
sanitize_flags=(${RMPL_WRAPPERS_SANITIZE:+"-fsanitize=$RMPL_WRAPPERS_SANITIZE"})
run "$c_compiler" "${sanitize_flags[@]}" init_only.o -L"$lib_dir" -Wl,-rpath,"$lib_dir" -lmpi \
  -o init_only_shared
check "the same object links with rmpl's libmpi.so by hand" '[[ $rc -eq 0 ]]'
run "$cxx_compiler" "${sanitize_flags[@]}" init_only.o "$lib_dir/libmpi.a" -pthread \
  -o init_only_static
check "... and with rmpl's libmpi.a" '[[ $rc -eq 0 ]]'
run "$bin/mpirun" -n 2 --timeout $timeout ./init_only_static
check "... which runs" '[[ $rc -eq 0 ]]'

# The profiling interface: the program's MPI_Comm_size is called, and reaches PMPI_Comm_size.
run "$bin/mpicc" "$here/pmpi.c" -o pmpi
check "mpicc builds a program that defines its own MPI_Comm_size" '[[ $rc -eq 0 && -x pmpi ]]'
run "$bin/mpirun" -n 2 --timeout $timeout ./pmpi
expected=$(for i in 0 1; do echo "rank $i: size 2 (PMPI 2), 3 calls intercepted"; done)
check "... whose MPI_Comm_size replaces the library's and forwards to PMPI_Comm_size" \
  '[[ $rc -eq 0 && $(sort <<<"$out") == "$expected" ]]'

# The launcher's names: the same program as rmplrun.
run "$bin/mpirun" --version
check "mpirun --version is rmplrun's" '[[ $rc -eq 0 && $out == "rmplrun (rmpl) "[0-9]* ]]'
run "$bin/mpiexec" -n 2 -x WRAPPERS_TEST=yes --timeout $timeout \
  sh -c 'echo "$RMPL_RANK $WRAPPERS_TEST"'
check "mpiexec -x VAR=value" '[[ $rc -eq 0 && $(sort <<<"$out" | tr "\n" ,) == "0 yes,1 yes," ]]'

if ((failures > 0)); then
  echo "# $failures check(s) failed"
  exit 1
fi
echo "# all checks passed"
