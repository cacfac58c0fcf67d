# shellcheck shell=bash
# tests/integration/ledgers.sh - exact bytes and counts per stack, from the targets' own ledgers (sourced by tests/integration.sh)

# Each ledger test runs the target once per metric (-m live, live-count,
# allocated, count) in launch mode and compares every call site exactly; see
# ledger_test in lib.sh for everything checked on each run.

test_ledger_basic() { # malloc/calloc/free, malloc(0), free(NULL), mmap'd blocks
	ledger_test basic
}

test_ledger_realloc() { # grow/shrink/same/moved/realloc(p,0)/realloc(NULL)/failed realloc/reallocarray
	ledger_test realloc
	local m
	for m in $METRICS; do
		[ -f "$T_DIR/$m.exp" ] || continue
		assert_eq "$(expect_value "$T_DIR/$m.exp" grow_moved)" 1 "realloc -m $m: the grow case really moved"
		assert_eq "$(expect_value "$T_DIR/$m.exp" shrink_inplace)" 1 "realloc -m $m: the shrink case stayed in place"
	done
}

test_stack_windows() { # whole stacks through a frame larger than the BPF walker's window, and across windows
	METRICS="count live" ledger_test frames
	local mid="" i
	for i in $(seq 40); do mid+="mid_recurse;"; done
	assert_grep "$T_DIR/count.fg" "^$START;main;big_frame;site_after_big 3\$" \
		"frames: the stack through an 8 KiB frame is whole"
	assert_grep "$T_DIR/count.fg" "^$START;main;${mid}site_after_mid 2\$" \
		"frames: the stack through 40 frames of 200 bytes is whole"
}

test_stack_windows_fp() { # the same whole stacks by frame pointers alone (--unwind fp), up to libc's frame
	local mid="" i
	for i in $(seq 40); do mid+="mid_recurse;"; done
	METRICS="count" TL_ARGS="--unwind fp" ledger_test frames
	assert_grep "$T_DIR/count.fg" "^__libc_start_call_main;main;big_frame;site_after_big 3\$" \
		"frames --unwind fp: the stack through an 8 KiB frame is whole"
	assert_grep "$T_DIR/count.fg" "^__libc_start_call_main;main;${mid}site_after_mid 2\$" \
		"frames --unwind fp: the stack through 40 frames of 200 bytes is whole"
}

# a stack unwound by the tables down to the program's entry point
START='_start;__libc_start_main[^;]*;__libc_start_call_main'
CHAIN='chain1;chain2;chain3;chain4;chain5'

# nofp_chain's whole stacks, by the unwind tables, in the runs of ledger_test
check_nofp_stacks() {
	local what=$1 m want
	for m in $METRICS; do
		[ -f "$T_DIR/$m.fg" ] || continue
		want=120
		[ "$m" = count ] && want=3
		assert_grep "$T_DIR/$m.fg" "^$START;main;$CHAIN $want\$" \
			"$what -m $m: main's 5-deep chain without frame pointers is whole"
		want=110
		[ "$m" = count ] && want=2
		assert_grep "$T_DIR/$m.fg" "^__clone3;start_thread;worker;$CHAIN $want\$" \
			"$what -m $m: a thread's chain is whole"
		want=60
		[ "$m" = count ] && want=2
		assert_grep "$T_DIR/$m.fg" "^$START;main;dup_site;__strdup $want\$" \
			"$what -m $m: strdup's caller is found though __strdup uses rbp for data"
		assert_no_grep "$T_DIR/$m.out" "stacks cut short" "$what -m $m: no stack ended early"
	done
}

test_nofp_unwind_auto() { # code without frame pointers: whole stacks by the unwind tables (the default)
	METRICS="live count" ledger_test nofp_chain
	check_nofp_stacks "nofp_chain"
}

test_nofp_unwind_dwarf() { # the same with --unwind dwarf: tables only
	METRICS="live count" TL_ARGS="--unwind dwarf" ledger_test nofp_chain
	check_nofp_stacks "nofp_chain --unwind dwarf"
}

test_nofp_unwind_signal() { # an allocation in a signal handler: unwound through the signal frame to main
	METRICS="live" ledger_test nofp_signal
	assert_grep "$T_DIR/live.fg" "^$START;main;interrupted;raise;[^ ]*;on_usr1;in_handler 96\$" \
		"nofp_signal: the handler's stack goes on through the interrupted code to main"
	assert_no_grep "$T_DIR/live.out" "stacks cut short" "nofp_signal: no stack ended early"
}

test_nofp_libc_callers() { # no frame pointers: getline and qsort-comparator callers, realigned stacks (and DRAP), whole to main
	METRICS="live count" ledger_test nofp_libc
	local fg want m
	for m in live count; do
		fg=$T_DIR/$m.fg
		[ -f "$fg" ] || continue
		want=240 && [ $m = count ] && want=2
		assert_grep "$fg" "^$START;main;line_site;(getline|__getdelim) $want\$" \
			"nofp_libc -m $m: getline's allocation, through glibc, to main"
		want=216 && [ $m = count ] && want=3
		assert_grep "$fg" "^$START;main;aligned_site $want\$" \
			"nofp_libc -m $m: a function with a 64-byte aligned local"
		want=176 && [ $m = count ] && want=2
		assert_grep "$fg" "^$START;main;drap_site;drap_inner $want\$" \
			"nofp_libc -m $m: a function that realigns through DRAP (CFA read from the stack)"
		# every comparator call, however deep in glibc's merge sort, reaches main
		assert_eq "$(grep -c ';cmp_alloc ' "$fg")" "$(grep -Ec "^$START;main;sort_site;qsort(_r)?;(msort[^;]*;)+cmp_alloc " "$fg")" \
			"nofp_libc -m $m: each stack of the qsort comparator is whole"
		assert_no_grep "$T_DIR/$m.out" "stacks cut short" "nofp_libc -m $m: no stack ended early"
	done
	assert_int_ge "$(expect_value "$T_DIR/count.exp" cmp-calls)" 12 "nofp_libc: the comparator ran"
}

test_nofp_cxx() { # no frame pointers: operator new (libstdc++) called through a chain, whole to main
	METRICS="live count" ledger_test nofp_cxx
	local fg=$T_DIR/live.fg
	[ -f "$fg" ] || return
	assert_grep "$fg" "^$START;main;build_list[^;]*;grow[^;]*;make_node[^;]* 192\$" \
		"nofp_cxx: new Node through build_list and grow"
	assert_grep "$fg" "^$START;main;build_list[^;]*;make_buffer[^;]* 600\$" \
		"nofp_cxx: new char[] through build_list"
}

test_nofp_dlopen() { # no frame pointers: a library dlopen'ed after attach gets its table, its stacks are whole
	METRICS="live count" ledger_test nofp_dlopen -- "$TB/libnofp_plugin.so"
	local fg=$T_DIR/live.fg
	[ -f "$fg" ] || return
	assert_grep "$fg" "^$START;main;call_plugin;plugin_outer;plugin_inner 600\$" \
		"nofp_dlopen: the chain through the loaded library is whole"
}

test_nofp_rust_release() { # a Rust release build (rustc -O, no frame pointers): the chain to main, exact bytes
	need_target nofp_release || return
	METRICS="live count" ledger_test nofp_release
	local fg=$T_DIR/live.fg
	[ -f "$fg" ] || return
	assert_grep "$fg" "^$START;main;nofp_release::main;nofp_release::outer;nofp_release::middle;nofp_release::leaf 900\$" \
		"nofp_release: outer -> middle -> leaf under main, std's start frames hidden"
	assert_no_grep "$fg" "0xcccc" "nofp_release: no garbage frame"
}

# calls, share of them reaching main (%), mean depth below main, of a folded
# file of allocation calls (root first; heaptrack ends its lines with ';')
fold_depth() {
	awk '{
		line = $0; sub(/;? [0-9]+$/, "", line); n = $NF + 0
		k = split(line, fr, ";"); f = 0
		for (i = 1; i <= k; i++) if (fr[i] == "main") { f = i; break }
		t += n
		if (f) { m += n; d += n * (k - f) }
	} END { printf "%d %.2f %.3f\n", t, t ? 100 * m / t : 0, m ? d / m : 0 }' "$1"
}

test_perl_vs_heaptrack() { # Debian's perl (no frame pointers): stacks as whole as heaptrack's on the same run
	local prog='my %h; for my $i (1..3000) { $h{"key$i"} = "v" x ($i % 50) } my $s = join(",", sort keys %h); print length($s), "\n";'
	local tl_calls tl_main tl_depth ht_calls ht_main ht_depth
	if ! command -v heaptrack >/dev/null || ! command -v heaptrack_print >/dev/null; then
		fail "heaptrack is missing (scripts/install-deps.sh installs it)"
		return
	fi
	tl_run perl -m count -f "$T_DIR/perl.fg" -i 0 -t 0 -- /usr/bin/perl -e "$prog"
	check_normal_end perl '^target exited with status 0$' "perl" || return
	timeout 60 heaptrack -o "$T_DIR/ht" /usr/bin/perl -e "$prog" >"$T_DIR/ht.out" 2>&1 ||
		{ fail "heaptrack did not run"; show "$T_DIR/ht.out"; return; }
	timeout 60 heaptrack_print -f "$T_DIR/ht.zst" --flamegraph-cost-type allocations \
		-F "$T_DIR/ht.fg" >/dev/null 2>&1 || { fail "heaptrack_print failed"; return; }
	read -r tl_calls tl_main tl_depth < <(fold_depth "$T_DIR/perl.fg")
	read -r ht_calls ht_main ht_depth < <(fold_depth "$T_DIR/ht.fg")
	note "tracelloc: $tl_calls calls, $tl_main% reach main, mean depth below main $tl_depth"
	note "heaptrack: $ht_calls calls, $ht_main% reach main, mean depth below main $ht_depth"
	assert_eq "$(awk -v a="$tl_calls" -v b="$ht_calls" 'BEGIN { print (a - b <= b / 100 && b - a <= b / 100) }')" 1 \
		"perl: tracelloc's allocation calls within 1% of heaptrack's"
	assert_eq "$(awk -v a="$tl_main" 'BEGIN { print (a >= 95) }')" 1 "perl: at least 95% of the calls reach main"
	assert_eq "$(awk -v a="$tl_depth" -v b="$ht_depth" 'BEGIN { print (a >= 0.9 * b && b > 0) }')" 1 \
		"perl: mean depth below main at least 0.9x heaptrack's"
}

test_stack_depth_limit() { # a stack deeper than 127 frames keeps its innermost 127, counted cut short (auto and fp)
	local mode frames
	for mode in auto fp; do
		METRICS="live" TL_ARGS="--unwind $mode" ledger_test deep
		frames=$(awk -F';' '/ 64$/ { print NF }' "$T_DIR/live.fg")
		assert_eq "$frames" 127 "deep --unwind $mode: frames in the stack"
		assert_grep "$T_DIR/live.out" '^    stacks cut short: 1 \(no table 0, rule 0, unreadable 0, depth 1\)$' \
			"deep --unwind $mode: the summary counts the stack cut at the depth limit"
	done
}

test_nofp_unwind_fp() { # the same code with --unwind fp: frame pointers lose the callers
	need_target nofp_chain || return
	TL_ENV=(TL_EXPECT="$T_DIR/fp.exp")
	tl_run fp --unwind fp -m live -f "$T_DIR/fp.fg" -- "$TB/nofp_chain"
	check_normal_end fp '^target exited with status 0$' "nofp_chain --unwind fp" || return
	assert_no_grep "$T_DIR/fp.fg" ";chain4;chain5 " "--unwind fp: no whole chain without frame pointers"
	assert_grep "$T_DIR/fp.fg" "^chain5 230\$" "--unwind fp: the chain is its leaf alone"
	assert_eq "$(fold_sum "$T_DIR/fp.fg" dup_site)" 0 "--unwind fp: strdup's caller is lost"
}

test_bad_unwind_mode() { # --unwind with an unknown mode
	marker_cmd
	bad_input "--unwind frames" --unwind frames -- "$TB/basic"
	assert_grep "$T_DIR/bad.err" "expected auto, dwarf or fp" "--unwind: the line names the modes"
}

test_ledger_perf_links() { # the same exact ledger through one perf-event link per probe (kernels before 6.6)
	METRICS="live count" ledger_test basic TRACELLOC_PERF_LINKS=1
	TL_ENV=(TRACELLOC_PERF_LINKS=1)
	tl_run kind -v -i 0 -- "$TB/exitcode" 0
	assert_grep "$T_DIR/kind.err" 'probes attached through perf-event links' "perf links: the fallback is what ran"
	tl_run multi -v -i 0 -- "$TB/exitcode" 0
	assert_grep "$T_DIR/multi.err" 'probes attached through uprobe_multi links' "perf links: uprobe_multi otherwise"
}

test_ledger_failures() { # failed calls record nothing
	ledger_test failures
}

test_ledger_aligned() { # posix_memalign, aligned_alloc, memalign, valloc, pvalloc (+ nested malloc)
	ledger_test aligned
}

test_ledger_threads() { # 5 threads with their own sizes, cross-thread frees
	ledger_test threads
}

test_ledger_reuse() { # an address freed by one thread and returned to another
	ledger_test reuse GLIBC_TUNABLES=$NO_TCACHE
	local m r total=0
	for m in $METRICS; do
		r=$(expect_value "$T_DIR/$m.exp" reused)
		_is_int "$r" && total=$((total + r))
	done
	# the race must really have been exercised
	assert_int_ge "$total" 1 "reuse: times thread B got the address thread A had just freed"
}

test_ledger_ctor() { # allocations in a constructor (before main) and a destructor
	ledger_test ctor
}

test_ledger_churn() { # 3 threads cycling malloc/calloc/realloc/memalign/free, ~24000 calls
	ledger_test churn -- 4000
}

test_ledger_cxx() { # new, new[], nothrow, aligned new, delete, delete[]; Shelf<long>::stock frame
	ledger_test cxx
	# the new[] site must be the stock() frame itself, demangled or mangled
	local fg=$T_DIR/count.fg
	[ -f "$fg" ] || return
	assert_grep "$fg" '(^|;)((ns::)?Shelf<long>::stock(\(\))?|_ZN2ns5ShelfIlE5stockEv) [0-9]+$' \
		"cxx: a folded line ends with the Shelf<long>::stock frame"
}
