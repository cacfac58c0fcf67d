# shellcheck shell=bash
# tests/integration/families.sh - each allocator family and the program's own allocators (sourced by tests/integration.sh)

# family_test TARGET FAMILY MODULE: tests/targets/family.c as built into
# TARGET (family_NAME: linked against NAME's library); the attached line
# names FAMILY in MODULE, the ledger is exact
family_test() {
	local target=$1 family=$2 module=$3 m
	METRICS="live count" ledger_test "$target"
	for m in live count; do
		[ -f "$T_DIR/$m.err" ] || continue
		assert_grep "$T_DIR/$m.err" "^tracelloc: attached to pid [0-9]+: .*$family in $module[^ ]* \([0-9]+ functions\)" \
			"$target -m $m: the attached line names $family in $module"
	done
}

test_family_glibc() { # the standard API under glibc: the attached line says glibc in libc.so.6
	family_test family glibc libc.so.6
}

test_family_jemalloc() { # linked with Debian's libjemalloc.so.2, which replaces malloc: exact ledger
	family_test family_jemalloc jemalloc libjemalloc.so.2
}

test_family_tcmalloc() { # linked with gperftools' libtcmalloc.so.4: exact ledger, each delete sent once
	family_test family_tcmalloc tcmalloc libtcmalloc.so.4
}

test_family_tcmalloc_minimal() { # linked with libtcmalloc_minimal.so.4: exact ledger
	family_test family_tcmalloc_minimal tcmalloc libtcmalloc_minimal.so.4
}

test_family_mimalloc() { # linked with libmimalloc.so.2, which replaces malloc: exact ledger, its malloc, calloc and realloc probed where they moved their arguments
	TL_ARGS="-v" family_test family_mimalloc mimalloc libmimalloc.so.2
	# each reads its heap into rdi before its first branch, the arguments
	# moved aside: probed at that branch (emulated), not single-stepped at
	# the entry; the exact ledger says the sizes were read where they went
	assert_grep "$T_DIR/live.err" '^tracelloc: malloc probed at \+[0-9]+ \(an instruction the kernel emulates\), its size read from rsi$' \
		"family_mimalloc -v: malloc's size read from rsi"
	assert_grep "$T_DIR/live.err" '^tracelloc: calloc probed at \+[0-9]+ \(an instruction the kernel emulates\), its count read from rax$' \
		"family_mimalloc -v: calloc's count read from rax"
	assert_grep "$T_DIR/live.err" '^tracelloc: realloc probed at \+[0-9]+ \(an instruction the kernel emulates\), its size read from rdx, its pointer read from rsi$' \
		"family_mimalloc -v: realloc's arguments read from rdx and rsi"
}

test_family_cxx() { # operator new/new[] and delete/delete[] (sized too) of jemalloc, tcmalloc, mimalloc: each delete once
	local lib
	for lib in jemalloc tcmalloc mimalloc; do
		METRICS="live count" ledger_test "family_cxx_$lib"
	done
}

test_family_threads() { # threads.c under jemalloc, tcmalloc, mimalloc: 5 threads, cross-thread frees, exact ledgers
	local lib
	for lib in jemalloc tcmalloc mimalloc; do
		METRICS="live count" ledger_test "threads_$lib"
	done
}

test_family_musl() { # musl-gcc, dynamic: the loader is musl's libc; exact ledger
	family_test family_musl musl "libc.so"
}

test_family_musl_static() { # musl-gcc -static: the allocator linked into the executable; exact ledger
	family_test family_musl_static musl family_musl_static
}

test_family_glibc_static() { # gcc -static: glibc's allocator found by the executable's .symtab; exact ledger
	family_test family_static glibc family_static
}

test_bad_stripped_static() { # a static binary stripped of its symbols: refused with one line saying so
	need_target family_static || return
	cp "$TB/family_static" "$T_DIR/stripped" && strip "$T_DIR/stripped" || { fail "strip failed"; return; }
	bad_input "stripped static" -- "$T_DIR/stripped"
	assert_grep "$T_DIR/bad.err" "^tracelloc: pid [0-9]+ runs a static binary without a symbol table \(stripped\)" \
		"stripped static: the line says why"
}

test_family_jemalloc_api() { # jemalloc's mallocx, rallocx, xallocx, sdallocx, dallocx: exact ledger per site; -v lists them
	TL_ARGS="-v" family_test api_jemalloc jemalloc libjemalloc.so.2
	local fn
	for fn in malloc mallocx rallocx xallocx sdallocx dallocx; do
		assert_grep "$T_DIR/live.err" "^tracelloc: probe $fn \(jemalloc, libjemalloc\.so\.2\) at offset 0x[0-9a-f]+, entry" \
			"api_jemalloc -v: $fn listed"
	done
	# its free looks the thread's cache up before its first branch: probed
	# there, an instruction the kernel emulates, not single-stepped at the entry
	assert_eq "$(grep -cE '^tracelloc: free probed at \+[0-9]+ \(an instruction the kernel emulates\)$' "$T_DIR/live.err")" 2 \
		"api_jemalloc -v: jemalloc's free probed past its entry, as glibc's"
}

test_family_mimalloc_api() { # mimalloc's mi_malloc, mi_zalloc, the _aligned variants, mi_realloc_aligned, mi_free; each probed where it moved its arguments
	TL_ARGS="-v" family_test api_mimalloc mimalloc libmimalloc.so.2
	assert_grep "$T_DIR/live.err" '^tracelloc: mi_calloc_aligned probed at \+[0-9]+ \(an instruction the kernel emulates\), its size read from rdx, its count read from rsi$' \
		"api_mimalloc -v: mi_calloc_aligned's arguments read where it moved them"
	assert_eq "$(grep -cE '^tracelloc: (mi_zalloc|mi_malloc_aligned|mi_zalloc_aligned|mi_realloc_aligned) probed at \+[0-9]+ \(an instruction the kernel emulates\), its size read from (rsi|rdx)' "$T_DIR/live.err")" 4 \
		"api_mimalloc -v: the others' sizes read where they went"
	assert_no_grep "$T_DIR/live.out" "unknown frees: [1-9]" "api_mimalloc: each mi_free sent once"
}

test_family_rust_rjem() { # a Rust #[global_allocator] over jemalloc's _rjem_-prefixed API (tikv-jemallocator's names): exact ledger, also when the nested free comes late
	need_target rjem_global || return
	family_test rjem_global jemalloc librjem_shim.so
	assert_grep "$T_DIR/live.fg" "^$START;main;rjem_global::main;rjem_global::keep 900\$" \
		"rjem_global: the kept vectors under main"
	# the free that the shim's free calls comes 2 ms after it, as after a
	# wait for a CPU on a busy host: still one free, not an unknown one
	METRICS="live" ledger_test rjem_global RJEM_SLOW_FREE=1
}

test_dlopen_allocator() { # an allocator library loaded with dlopen after attach (mimalloc): probed when ld.so says so, its calls exact
	METRICS="live count" ledger_test dlalloc
	assert_grep "$T_DIR/live.err" "^tracelloc: pid [0-9]+: probing as well: mimalloc in libmimalloc\.so\.2[^ ]* \([0-9]+ functions\)\$" \
		"dlalloc: the newly probed library is told"
}

test_static_two_families() { # a static executable with a _rjem_-prefixed jemalloc and its libc's malloc linked in: both probed, exact ledger
	family_test static_two_musl jemalloc static_two_musl
	assert_grep "$T_DIR/live.err" "^tracelloc: attached to pid [0-9]+: .*musl in static_two_musl \([0-9]+ functions\)" \
		"static_two_musl: musl probed as well"
	family_test static_two_glibc jemalloc static_two_glibc
	assert_grep "$T_DIR/live.err" "^tracelloc: attached to pid [0-9]+: .*glibc in static_two_glibc \([0-9]+ functions\)" \
		"static_two_glibc: glibc probed as well"
}

test_two_families() { # glibc's malloc and mimalloc's mi_malloc in one process: both probed, each block freed by its own
	family_test two_families mimalloc libmimalloc.so.2
	assert_grep "$T_DIR/live.err" "^tracelloc: attached to pid [0-9]+: .*glibc in libc\.so\.6 " \
		"two_families: glibc probed as well"
}

test_mmap_not_the_programs() { # glibc's arenas, thread stacks and the loader's .bss of a dlopen'ed library are not the program's mappings
	need_target threads || return
	need_target dlopen || return
	need_target family || return
	TL_ENV=(TL_EXPECT="$T_DIR/t.exp")
	tl_run t -i 0 -t 0 --allocator-frame -m count -f "$T_DIR/t.fg" -- "$TB/threads"
	check_normal_end t '^target exited with status 0$' "threads" || return
	assert_no_grep "$T_DIR/t.fg" ';mmap [0-9]+$' "threads: no mmap counted (arenas, thread stacks)"
	check_ledger "$T_DIR/t.exp" "$T_DIR/t.fg" count "threads --allocator-frame"
	TL_ENV=(TL_EXPECT="$T_DIR/d.exp")
	tl_run d -i 0 -t 0 --allocator-frame -f "$T_DIR/d.fg" -- "$TB/dlopen" "$TB/libplugin.so"
	check_normal_end d '^target exited with status 0$' "dlopen" || return
	assert_no_grep "$T_DIR/d.fg" ';mmap [0-9]+$' "dlopen: the loader's mapping of a 1 MiB .bss is not counted"
	check_ledger "$T_DIR/d.exp" "$T_DIR/d.fg" live "dlopen --allocator-frame"
	# the same check sees the program's own mappings (else it proves nothing)
	TL_ENV=(TL_EXPECT="$T_DIR/f.exp")
	tl_run f -i 0 -t 0 --allocator-frame -f "$T_DIR/f.fg" -- "$TB/family"
	assert_grep "$T_DIR/f.fg" ';map_keep;mmap 20480$' "family: map_keep's pages under mmap"
	assert_grep "$T_DIR/f.fg" ';remap_grow;mremap 24576$' "family: remap_grow's pages under mremap"
}

test_big_mappings() { # the program's mappings of 1 MiB or more count by their pages in memory, measured while it lives: exact ledger, the summary's line
	METRICS="live allocated live-count" ledger_test bigmap
	assert_grep "$T_DIR/live.out" "^    of which the program's mappings of 1 MiB or more: 3, 25\.0 MiB mapped, counted by their pages in memory when last measured: 4\.00 MiB\$" \
		"bigmap: the summary tells mapped from in memory"
}

test_go_within_rss() { # Debian's Go toolchain (go version): its arenas, mapped large and touched little, count what is in memory: live and peak within 2x its RSS
	need_go || {
		fail "go is missing and cannot be installed"
		return
	}
	local rss_kib live peak
	rss_kib=$(python3 -c 'import resource, subprocess
subprocess.run(["go", "version"], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)')
	# go version lives ~30 ms: on a busy host it may end before the daemon
	# measured its mappings, which then count whole (the summary says so, a
	# limit the README states); a run that measured them is what is judged
	local try
	for try in 1 2 3; do
		TL_ENV=(HOME="$T_DIR" GOTOOLCHAIN=local GOFLAGS=)
		tl_run g -i 0 -t 0 -- go version
		check_normal_end g '^target exited with status 0$' "go version" || return
		grep -q '^    mappings counted whole: ' "$T_DIR/g.out" || break
		note "go version: run $try ended before its mappings were measured"
	done
	assert_no_grep "$T_DIR/g.out" '^    mappings counted whole: ' \
		"go version: its mappings measured before it ended, in one of 3 runs"
	live=$(sed -n 's/^    live allocations: [0-9]* (\([0-9]*\) bytes.*/\1/p' "$T_DIR/g.out")
	peak=$(sed -n 's/^    peak: [0-9]* live allocations (\([0-9]*\) bytes.*/\1/p' "$T_DIR/g.out")
	assert_int_le "$live" "$((2 * rss_kib * 1024))" "go version: live bytes within 2x its RSS ($rss_kib KiB)"
	assert_int_le "$peak" "$((2 * rss_kib * 1024))" "go version: peak within 2x its RSS ($rss_kib KiB)"
	assert_grep "$T_DIR/g.out" "^    of which the program's mappings of 1 MiB or more: [0-9]+, " \
		"go version: its big mappings are weighed"
}

test_no_mmap() { # --no-mmap: the program's own mappings are left out, its allocations exact
	need_target family || return
	TL_ENV=(TL_EXPECT="$T_DIR/n.exp")
	tl_run n -i 0 -t 0 --no-mmap -f "$T_DIR/n.fg" -- "$TB/family"
	check_normal_end n '^target exited with status 0$' "--no-mmap" || return
	assert_eq "$(fold_sum "$T_DIR/n.fg" map_keep)" 0 "--no-mmap: map_keep"
	assert_eq "$(fold_sum "$T_DIR/n.fg" remap_grow)" 0 "--no-mmap: remap_grow"
	assert_eq "$(fold_sum "$T_DIR/n.fg" fam_malloc)" 300 "--no-mmap: fam_malloc"
	assert_eq "$(fold_sum "$T_DIR/n.fg" map_big_malloc)" 1048576 "--no-mmap: map_big_malloc"
}

test_free_first_not_mapping() { # a thread whose first call is free: the arena glibc makes inside it is not the program's mapping, under every family; exact ledger
	local t m
	for t in freefirst freefirst_jemalloc freefirst_mimalloc freefirst_tcmalloc; do
		METRICS="live count" TL_ARGS="--allocator-frame" ledger_test "$t"
		for m in live count; do
			[ -f "$T_DIR/$m.fg" ] || continue
			assert_no_grep "$T_DIR/$m.fg" ';mmap [0-9]+$' "$t -m $m: no mmap counted (the allocator's, inside free)"
		done
	done
}

# the system-call tracepoints attached on the host now (BPF raw tracepoint links)
syscall_links() {
	bpftool link show 2>/dev/null | grep -Ec "tp 'sys_(enter|exit)'"
}

test_big_library_report() { # clang++ (libLLVM, 45,000 symbols, no frame pointers) with the default report: nothing lost, libLLVM's frames named as its symbol table says
	local llvm clangxx frame fn
	clangxx=$(command -v clang++) || { fail "clang++ is missing (make deps)"; return; }
	llvm=$(ldd "$(readlink -f "$clangxx")" | sed -n 's/.*=> \(.*libLLVM[^ ]*\) .*/\1/p' | head -n 1)
	[ -n "$llvm" ] || { fail "clang++ links no libLLVM"; return; }
	printf '#include <string>\n#include <vector>\nstd::string f(std::vector<int> &v) { std::string s; for (int x : v) s += std::to_string(x); return s; }\n' >"$T_DIR/tiny.cpp"
	# a live line every 0.2 s: the compile takes under a second on a fast host
	tl_run big -i 0.2 -- "$clangxx" -O2 -c "$T_DIR/tiny.cpp" -o "$T_DIR/tiny.o"
	assert_eq "$TL_RC" 0 "tracelloc -- clang++: exit status"
	assert_grep "$T_DIR/big.out" '^\[ +[0-9.]+s\] live' "a periodic report was printed while it ran"
	assert_grep "$T_DIR/big.out" '^    lost events: 0 ' "no record lost"
	frame=$(grep -m 1 -E '^ +0x[0-9a-f]+ llvm::[^ ]*.*\+0x[0-9a-f]+ \(libLLVM' "$T_DIR/big.out")
	assert_match "${frame:-none}" 'libLLVM' "a frame in libLLVM, named"
	# the name is one of libLLVM's symbols (demangled as nm does)
	fn=$(sed -E 's/^ +0x[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(libLLVM.*/\1/' <<<"$frame")
	if [ -n "$frame" ] && ! nm -DC --defined-only "$llvm" | grep -qF " $fn"; then
		fail "libLLVM frame named '$fn': no such symbol in $llvm"
	fi
}

test_nofp_gap() { # code with no CFI in a program with tables (V8's builtins in node): walked by its frame pointer to main; a junk rbp there ends the stack, counted, no frame made up
	need_target nofp_gap || return
	TL_ENV=(TL_EXPECT="$T_DIR/g.exp")
	tl_run g -i 0 -t 0 -f "$T_DIR/g.fg" -- "$TB/nofp_gap"
	check_normal_end g '^target exited with status 0$' "nofp_gap" || return
	check_expect_file "$T_DIR/g.exp" "nofp_gap" || return
	check_ledger "$T_DIR/g.exp" "$T_DIR/g.fg" live "nofp_gap"
	assert_grep "$T_DIR/g.fg" '^_start;.*;main;gap_framed;site_gap 4096$' \
		"nofp_gap: through the framed gap to main and _start"
	assert_grep "$T_DIR/g.fg" '^gap_junk;site_junk 2048$' \
		"nofp_gap: a junk rbp in the gap ends the stack there"
	assert_grep "$T_DIR/g.out" '^    stacks cut short: 1 \(no table 1, ' "nofp_gap: that one counted cut short"
}

test_far_code_segment() { # a code segment of its own past the .bss (the hot text of BOLT-optimised libraries: rustc's LLVM): its frames named, its stacks whole
	need_target farcode || return
	TL_ENV=(TL_EXPECT="$T_DIR/f.exp")
	tl_run f -i 0 -t 0 -f "$T_DIR/f.fg" -- "$TB/farcode"
	check_normal_end f '^target exited with status 0$' "farcode" || return
	check_expect_file "$T_DIR/f.exp" "farcode" || return
	check_ledger "$T_DIR/f.exp" "$T_DIR/f.fg" live "farcode"
	assert_grep "$T_DIR/f.fg" '^_start;.*;main;far_caller;site_far 777$' "farcode: the stack named whole, to _start"
}

test_mixed_units() { # units of two compilers (clang's without .debug_aranges, inside a gcc unit's ranges): each frame has its own file and line
	METRICS="live" TL_ARGS="-i 0 -t 5" ledger_test mixed_units
	local src=tests/targets/mixed_units.c fn line
	for fn in site_clang clang_caller; do
		line=$(grep -n "LINE: $fn\b" "$src" | cut -d: -f1)
		assert_grep "$T_DIR/live.out" " $fn\+0x[0-9a-f]+ \(mixed_units\) .*$src:$line\$" \
			"mixed_units: $fn at its line of the clang unit"
	done
	assert_grep "$T_DIR/live.out" ' gcc_last\+0x[0-9a-f]+ \(mixed_units\) .*mixed_units_gcc\.c:[0-9]+$' \
		"mixed_units: the gcc unit's frame at its own file"
	assert_no_grep "$T_DIR/live.out" ' (site_clang|clang_caller|main)\+0x[0-9a-f]+ \(mixed_units\)( .*mixed_units_gcc\.c.*)?$' \
		"mixed_units: no clang frame without a line, or at the gcc unit's"
}

test_cgo_stacks() { # C's malloc called from Go through cgo (the runtime's asmcgocall switches stacks, with no CFI): stacks whole, from the C function to runtime.goexit, exact
	need_target cgo_stacks || return
	local m fg fn='main\._Cfunc_site_cgo(\.abi0)?;runtime\.asmcgocall(\.abi0)?;_cgo_[0-9a-f]+_Cfunc_site_cgo;site_cgo'
	for m in live count; do
		tl_run "$m" -i 0 -t 0 -m "$m" -f "$T_DIR/$m.fg" -- "$TB/cgo_stacks"
		check_normal_end "$m" '^target exited with status 0$' "cgo_stacks -m $m" || return
	done
	assert_grep "$T_DIR/live.fg" "^runtime\.goexit(\.abi0)?;runtime\.main;main\.main;main\.grow;$fn 300000\$" \
		"cgo_stacks: the main goroutine's kept blocks, whole"
	assert_grep "$T_DIR/live.fg" "^runtime\.goexit(\.abi0)?;main\.main\.func1;$fn 32000\$" \
		"cgo_stacks: the other goroutine's kept blocks, whole"
	assert_grep "$T_DIR/count.fg" "^runtime\.goexit(\.abi0)?;main\.main\.func1;$fn 1000\$" \
		"cgo_stacks: the other goroutine's calls, whole"
	assert_eq "$(grep -c 'site_cgo ' "$T_DIR/count.fg")" 2 "cgo_stacks: two stacks of site_cgo, none cut short"
}

test_cgo_stacks_stripped() { # the same program stripped (-ldflags='-s -w': no symbol table, no DWARF): its Go frames named from .gopclntab, walked across Go's stack switches, exact
	need_target cgo_stacks_stripped || return
	local m fn='main\._Cfunc_site_cgo;runtime\.asmcgocall;_cgo_[0-9a-f]+_Cfunc_site_cgo;\[unknown\]'
	for m in live count; do
		tl_run "s$m" -i 0 -t 0 -m "$m" -f "$T_DIR/s$m.fg" -- "$TB/cgo_stacks_stripped"
		check_normal_end "s$m" '^target exited with status 0$' "cgo_stacks_stripped -m $m" || return
	done
	# site_cgo, a static C function, has no name left: [unknown]
	assert_grep "$T_DIR/slive.fg" "^runtime\.goexit;runtime\.main;main\.main;main\.grow;$fn 300000\$" \
		"cgo_stacks_stripped: the main goroutine's kept blocks, named, whole"
	assert_grep "$T_DIR/slive.fg" "^runtime\.goexit;main\.main\.func1;$fn 32000\$" \
		"cgo_stacks_stripped: the other goroutine's kept blocks, named, whole"
	assert_grep "$T_DIR/scount.fg" "^runtime\.goexit;main\.main\.func1;$fn 1000\$" \
		"cgo_stacks_stripped: the other goroutine's calls"
	assert_no_grep "$T_DIR/slive.out" "^    stacks cut short: " "cgo_stacks_stripped: no stack cut short"
}

test_go_heap() { # a static, stripped Go program: Go's heap traced at runtime.mallocgc (allocations only), exact bytes and calls per Go function against its ledger and Go's own heap profile; the runtime's mappings held, no allocation calls
	need_target go_ledger || return
	local m fn bytes count objects
	for m in allocated count; do
		tl_run "g$m" -i 0 -t 0 -m "$m" -f "$T_DIR/g$m.fg" -- "$TB/go_ledger" -memprofile
		check_normal_end "g$m" '^target exited with status 0$' "go_ledger -m $m" || return
	done
	assert_grep "$T_DIR/gallocated.err" "^tracelloc: attached to pid [0-9]+: Go in go_ledger \\(1 functions\\)" \
		"go_ledger: the attach line names Go's heap"
	while read -r _ fn bytes count; do
		assert_grep "$T_DIR/gallocated.fg" "^runtime\\.goexit;runtime\\.main;main\\.main;${fn//./\\.};runtime\\.makeslice $bytes\$" \
			"go_ledger: bytes allocated in $fn, the stack named from .gopclntab"
		assert_grep "$T_DIR/gcount.fg" "^runtime\\.goexit;runtime\\.main;main\\.main;${fn//./\\.};runtime\\.makeslice $count\$" \
			"go_ledger: calls in $fn"
		objects=$(awk -v fn="$fn" '$1 == "MEMPROFILE" && $2 == fn { print $3 }' "$T_DIR/gcount.out")
		assert_eq "$count" "$objects" "go_ledger: $fn's calls, as Go's own heap profile counts them"
	done < <(grep '^LEDGER ' "$T_DIR/gcount.out")
	[ "$(grep -c '^LEDGER ' "$T_DIR/gcount.out")" = 2 ] || fail "go_ledger printed no ledger"
	assert_grep "$T_DIR/gcount.out" "^    of the allocation calls, Go's: [0-9]+ .* at runtime\\.mallocgc, allocations only" \
		"go_ledger: the summary says Go's calls are allocations only"
	# the runtime's mappings: held by their pages, none an allocation call
	assert_eq "$(sed -n 's/^    allocation calls: \([0-9]*\) .*/\1/p' "$T_DIR/gcount.out")" \
		"$(sed -n "s/^    of the allocation calls, Go's: \([0-9]*\) .*/\1/p" "$T_DIR/gcount.out")" \
		"go_ledger: every allocation call is Go's, no mapping among them"
	assert_no_grep "$T_DIR/gcount.out" "^    stacks cut short: " "go_ledger: no stack cut short"
}

test_remapped_code() { # code mapped a second time with no ld.so hook (node maps V8's builtins again as it starts): its tables come once stacks are cut there, not at the next tick; its frames named as the file's own
	need_target remap || return
	local how whole cut
	for how in segment page; do
		TL_ENV=(TL_EXPECT="$T_DIR/r-$how.exp")
		tl_run "r-$how" -i 0 -t 0 -f "$T_DIR/r-$how.fg" -- "$TB/remap" 100 10 "$how"
		check_normal_end "r-$how" '^target exited with status 0$' "remap ($how)" || return
		check_expect_file "$T_DIR/r-$how.exp" "remap ($how)" || return
		# site_remapped runs in the copy: named there as in its file
		check_ledger "$T_DIR/r-$how.exp" "$T_DIR/r-$how.fg" live "remap ($how)"
		whole=$(awk '/^_start;.*;main;site_remapped [0-9]+$/ { s += $NF } END { print s + 0 }' "$T_DIR/r-$how.fg")
		cut=$(sed -n 's/^    stacks cut short: \([0-9]*\) (no table \([0-9]*\),.*/\2/p' "$T_DIR/r-$how.out")
		assert_eq "$((whole + ${cut:-0} * 512))" 51200 "remap ($how): each call whole or counted cut short"
		# the calls of the first 50 ms or so are cut; at the next tick (1 s) it would be all of them
		if [ "${cut:-0}" -gt 30 ]; then
			fail "remap ($how): $cut of 100 stacks cut short: the copy's tables came late"
		fi
	done
	# the copy unmapped before the end, the maps read again after: its
	# frames still named, their stacks still whole
	TL_ENV=(TL_EXPECT="$T_DIR/r-gone.exp")
	tl_run r-gone -i 0 -t 0 -f "$T_DIR/r-gone.fg" -- "$TB/remap" 20 10 page gone
	check_normal_end r-gone '^target exited with status 0$' "remap, the copy gone" || return
	check_expect_file "$T_DIR/r-gone.exp" "remap, the copy gone" || return
	check_ledger "$T_DIR/r-gone.exp" "$T_DIR/r-gone.fg" live "remap, the copy gone"
	assert_no_grep "$T_DIR/r-gone.fg" 'unknown' "remap, the copy gone: no frame unknown"
}

test_big_fde() { # gcc's cc1 (no frame pointers, a generated function of 122 KiB whose CFI has 6,300 rows): its stacks whole, none cut by a rule left unread
	local cc1
	cc1=$(gcc -print-prog-name=cc1 2>/dev/null)
	[ -x "$cc1" ] || { fail "gcc's cc1 is missing"; return; }
	printf 'int f(int x) { return x + 1; }\n' >"$T_DIR/small.c"
	tl_run cc1 -i 0 -t 1 -- "$cc1" -quiet "$T_DIR/small.c" -O2 -o "$T_DIR/small.s"
	assert_eq "$TL_RC" 0 "cc1: tracelloc exit status"
	assert_grep "$T_DIR/cc1.out" '^    failed stacks: 0$' "cc1: no stack failed"
	# (82 stacks of this compile pass through that function: they reach main)
	assert_no_grep "$T_DIR/cc1.out" '^    stacks cut short: .* rule [1-9]' "cc1: no stack cut short by a rule"
}
