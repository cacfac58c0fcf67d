#!/bin/sh
# tests/fuzz/seeds.sh OUT_DIR: the fuzzer's seed corpus, small ELF files made
# from the test targets (make targets builds them): an executable with DWARF
# and inline chains, C++, a shared library, a static binary without libc, a
# stripped binary, one with a .gnu_debuglink, one with compressed DWARF, a
# library that calls itself libc.so.6, and two libraries with stack
# realignment and a .plt for the unwind tables (CFI in .eh_frame, in
# .debug_frame).
set -eu
cd "$(dirname "$0")/../.."
out=$1
tb=build/tests
mkdir -p "$out"
cp "$tb/inline" "$out/inline"
cp "$tb/cxx" "$out/cxx"
cp "$tb/libplugin.so" "$out/libplugin.so"
cp "$tb/nolibc" "$out/nolibc"
strip -o "$out/inline.stripped" "$tb/inline"
objcopy --strip-debug --add-gnu-debuglink="$tb/exitcode" "$tb/exitcode" "$out/exitcode.debuglink"
objcopy --compress-debug-sections=zlib "$tb/inline" "$out/inline.zdebug"
${CC:-cc} -O1 -g -shared -fPIC -nostdlib -Wl,-soname,libc.so.6 -o "$out/fakelibc.so" \
	tests/fuzz/fakelibc.c
# unwind tables: stack realignment and .plt in .eh_frame, the same in .debug_frame only
${CC:-cc} -O2 -shared -fPIC -nostdlib -o "$out/realign.so" tests/fuzz/realign.c
${CC:-cc} -O2 -g -shared -fPIC -nostdlib -fno-asynchronous-unwind-tables \
	-o "$out/realign.debugframe.so" tests/fuzz/realign.c
