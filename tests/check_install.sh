#!/usr/bin/env bash
# The installed tree works from anywhere: install into a temporary prefix, move it (so
# nothing may point at where it was installed, nor at this build), then build and run
# examples/consumer against it through find_package (shared and static) and pkg-config.
# usage: check_install.sh <build dir> <source dir> <C compiler>
set -euo pipefail
build=$1 src=$2 cc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/installed" >"$tmp/install.log"
mv "$tmp/installed" "$tmp/moved"
prefix=$tmp/moved
pc=$(find "$prefix" -name resident.pc)
[ -n "$pc" ] || { echo "no resident.pc installed"; exit 1; }
echo "== $pc"; cat "$pc"
# Relocatable: no absolute path of this machine in the file, no -L in Libs.private.
if grep -nE "$tmp|$build|$src|/usr/local" "$pc" || grep -nE '^Libs.private:.*-L' "$pc"; then
  echo "resident.pc names a folder of the build machine"; exit 1
fi
export RESIDENT_BACKEND=sim RESIDENT_SIM_DEVICE_MEMORY=256MiB

echo "== find_package(resident CONFIG)"
cmake -S "$src/examples/consumer" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/cmake-build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/cmake-build/consumer"
"$tmp/cmake-build/consumer_static"
# the shared one really is the installed libresident.so
# (ldd's output kept first: grep -q leaving the pipe early would fail it under pipefail)
libs=$(ldd "$tmp/cmake-build/consumer")
grep -q "$prefix/.*libresident.so" <<<"$libs" ||
  { echo "consumer does not load the installed libresident.so"; echo "$libs"; exit 1; }

echo "== pkg-config"
PKG_CONFIG_PATH="$(dirname "$pc")" make -s -C "$src/examples/consumer" CC="$cc" OUT="$tmp"
"$tmp/consumer_pc"
echo "install check: ok"
