#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds programs against it the two ways users do
# (CMake's find_package and pkg-config, from C++ and from C), then runs them under the installed
# rmplrun. Usage: install_test.sh BUILD_DIR
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
