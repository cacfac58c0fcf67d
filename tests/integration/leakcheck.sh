# shellcheck shell=bash
# tests/integration/leakcheck.sh - the leak check: snapshots, stopped scans, classes, roots (sourced by tests/integration.sh)

# leak_totals FILE: "CLASS BYTES BLOCKS" per class of the leak check's section
leak_totals() {
	awk '/^leak check of pid/ { on = 1; next }
	     on && /^ +(definitely lost|indirectly lost|possibly lost|still reachable): / {
		sub(/^ +/, ""); split($0, h, ":"); split(h[2], w, " "); gsub(",", "", w[1])
		sub(/ lost$/, "", h[1]); sub(/^still /, "", h[1]); print h[1], w[1], w[4] }' "$1"
}

# leak_sites FILE SITE: "BYTES CLASS BLOCKS" for each lost stack through SITE
leak_sites() {
	awk -v site="$2" '
		/^    [0-9,]+ bytes (definitely|indirectly) lost in [0-9]+ blocks/ { head = $0; next }
		!/^        / { head = ""; next }
		head != "" && index($0, " " site "+") {
			split(head, w, " "); gsub(",", "", w[1]); print w[1], w[3], w[6]; head = "" }
	' "$1" | sort
}

# leak_check_expect NAME WHAT HOW: the classes of tests/targets/lost.c,
# exactly, found by HOW (snapshot, stopped scan)
leak_check_expect() {
	local f=$T_DIR/$1.last what=$2 how=$3
	# the last check's section, to the summary
	awk '/^leak check of pid/ { n++ } { line[NR] = $0; sec[NR] = n }
	     END { for (i = 1; i <= NR; i++) if (sec[i] == n && n) print line[i] }' \
		"$T_DIR/$1.out" | sed '/^==> summary/,$d' >"$f"
	assert_eq "$(leak_totals "$f" | grep '^definitely ')" "definitely 1612 4" "$what: definitely lost"
	assert_eq "$(leak_totals "$f" | grep '^indirectly ')" "indirectly 176 3" "$what: indirectly lost"
	# the interior pointer, and glibc's DTV of the blocked thread (its TCB
	# points one entry into it: valgrind says possibly lost too)
	assert_eq "$(leak_totals "$f" | grep '^possibly ')" "possibly 688 2" "$what: possibly lost"
	# global, chain (2), __thread (main's and a thread's), a blocked thread's local, inside an mmap
	assert_eq "$(leak_totals "$f" | grep '^reachable ')" "reachable 3600 7" "$what: still reachable"
	assert_eq "$(leak_sites "$f" site_dropped)" "1000 definitely 1" "$what: the dropped pointer"
	assert_eq "$(leak_sites "$f" site_xor)" "500 definitely 1" "$what: kept only xor-ed"
	assert_eq "$(leak_sites "$f" site_list_head)" "64 definitely 1" "$what: the lost list's head"
	assert_eq "$(leak_sites "$f" site_list_node | tr '\n' ' ')" "64 indirectly 1 64 indirectly 1 " \
		"$what: its nodes"
	assert_eq "$(leak_sites "$f" site_cycle | tr '\n' ' ')" "48 definitely 1 48 indirectly 1 " \
		"$what: the lost cycle"
	assert_grep "$T_DIR/$1.out" '^    leak check: definitely lost 1612 bytes in 4 blocks, indirectly 176 in 3, possibly 688 in 2 \(target stopped for [0-9.]+ ms at most, '"$how"'\)$' \
		"$what: the summary's line"
	local site
	for site in site_global site_chain site_tls site_thread_tls site_thread_stack site_in_mmap \
		site_interior site_freed; do
		assert_eq "$(leak_sites "$f" "$site")" "" "$what: nothing lost through $site"
	done
}

test_leak_check_launch() { # --leak-check at the end of a command's trace: each class exact per site; the target goes on (SIGTERM after)
	need_target lost || return
	TL_ENV=(TL_READY="$T_DIR/lost.ready")
	tl_bg lc --leak-check -i 0 -t 20 -- "$TB/lost"
	if ! wait_for_grep "$T_DIR/lost.ready" '^ready [0-9]+$' 20 "$TL_PID"; then
		fail "lost: not ready"
		return
	fi
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "lost: tracelloc did not end"
	assert_eq "$WAIT_RC" 0 "lost: tracelloc's exit status"
	assert_grep "$T_DIR/lc.out" "^leak check of pid [0-9]+ \(snapshot: the target was stopped [0-9.]+ ms, [0-9.]+ [KMG]?i?B read in [0-9.]+ ms\):$" \
		"lost: the section's header"
	leak_check_expect lc "lost (launch)" snapshot
	assert_no_grep "$T_DIR/lc.out" "blocks from before the attach" "lost (launch): every block known"
	# --error-exitcode: the same, as a CI gate
	TL_ENV=(TL_READY="$T_DIR/lost2.ready")
	tl_bg lc2 --leak-check --error-exitcode 7 -i 0 -t 0 -- "$TB/lost"
	wait_for_grep "$T_DIR/lost2.ready" '^ready [0-9]+$' 20 "$TL_PID" || fail "lost: not ready (2)"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30
	assert_eq "$WAIT_RC" 7 "lost: --error-exitcode 7 when something is lost"
}

test_leak_check_streamed() { # --leak-check on a snapshot of blocks of a page or more: the copy streams them (one larger than a batch, a pointer in a block's last page), each class exact; the same read from /proc/PID/mem
	need_target lostbig || return
	local run f streamed read
	for run in stream nostream; do
		TL_ENV=(TL_READY="$T_DIR/big-$run.ready")
		[ "$run" = nostream ] && TL_ENV+=(TRACELLOC_NO_STREAM=1)
		tl_bg "lb-$run" --leak-check -v -i 0 -t 20 -- "$TB/lostbig"
		if ! wait_for_grep "$T_DIR/big-$run.ready" '^ready [0-9]+$' 20 "$TL_PID"; then
			fail "lostbig ($run): not ready"
			return
		fi
		kill -INT "$TL_PID"
		wait_pid "$TL_PID" 30 || fail "lostbig ($run): tracelloc did not end"
		assert_eq "$WAIT_RC" 0 "lostbig ($run): tracelloc's exit status"
		f=$T_DIR/lb-$run.last
		sed '/^==> summary/,$d' "$T_DIR/lb-$run.out" >"$f"
		assert_grep "$f" '^leak check of pid [0-9]+ \(snapshot: ' "lostbig ($run): a snapshot"
		assert_eq "$(leak_totals "$f" | sort | tr '\n' ' ')" \
			"definitely 40960 1 indirectly 8192 1 possibly 315440 3 reachable 1114112 2 " \
			"lostbig ($run): the classes"
		assert_eq "$(leak_sites "$f" site_big_dropped)" "40960 definitely 1" "lostbig ($run): the dropped block"
		assert_eq "$(leak_sites "$f" site_big_child)" "8192 indirectly 1" "lostbig ($run): what it pointed at"
		streamed=$(sed -n 's/^tracelloc: leak check of pid [0-9]*: \([0-9]*\) of \([0-9]*\) bytes read were streamed by the snapshot itself$/\1/p' "$T_DIR/lb-$run.err")
		read=$(sed -n 's/^tracelloc: leak check of pid [0-9]*: \([0-9]*\) of \([0-9]*\) bytes read were streamed by the snapshot itself$/\2/p' "$T_DIR/lb-$run.err")
		if [ "$run" = stream ]; then
			# every block of a page or more, once: 1478656 bytes
			assert_eq "${streamed:-none}" 1478656 "lostbig: the big blocks streamed by the copy, each once"
			assert_int_ge "${read:-0}" 1478656 "lostbig: bytes read in all"
		else
			assert_eq "${streamed:-none}" 0 "lostbig (TRACELLOC_NO_STREAM): nothing streamed"
		fi
	done
}

test_leak_check_exit() { # --leak-check holds a command at its exit: scanned while its memory is whole, each class exact; --error-exitcode gates on it
	need_target lost || return
	tl_run lx --leak-check --error-exitcode 9 -i 0 -t 20 -- "$TB/lost" exit
	assert_eq "$TL_RC" 9 "lost at exit: --error-exitcode 9"
	assert_eq "$(grep -c '^leak check of pid' "$T_DIR/lx.out")" 1 "lost at exit: one check (at the exit, none after)"
	leak_check_expect lx "lost (at exit)" "stopped scan"
	parse_summary "$T_DIR/lx.out" || return
	assert_match "$SUM_END" '^target exited with status 0$' "lost at exit: then it exited as it would"
	assert_no_grep "$T_DIR/lx.err" "unscanned" "lost at exit: scanned"
	# the folded stacks of what was lost (-m leaked): the lost sites only, by their bytes
	tl_run lf --leak-check -m leaked -f "$T_DIR/leaked.fg" -i 0 -t 0 -- "$TB/lost" exit
	assert_eq "$TL_RC" 0 "lost -m leaked: exit status"
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/leaked.fg" | sort | tr '\n' ' ')" \
		"site_cycle 96 site_dropped 1000 site_list_head 64 site_list_node 128 site_xor 500 " \
		"lost -m leaked: each lost site, definitely and indirectly, and nothing else"
	# a program that leaks nothing passes the gate
	tl_run lt --leak-check --error-exitcode 9 -i 0 -t 0 -- /bin/true
	assert_eq "$TL_RC" 0 "true: nothing lost, exit status 0"
	assert_grep "$T_DIR/lt.out" '^ +definitely lost: 0 bytes in 0 blocks$' "true: checked at its exit"
}

test_leak_check_after_handlers() { # --leak-check at a command's exit comes once its atexit handlers ran (as valgrind's): a block a handler lets go of is lost, one it frees is gone; valgrind finds the same; a posix_spawn child whose exec failed is not held
	need_target atexit_drop || return
	local cls
	tl_run ah --leak-check -m leaked -f "$T_DIR/ah.fg" -i 0 -t 0 -- "$TB/atexit_drop"
	assert_eq "$TL_RC" 0 "atexit_drop: exit status"
	for cls in 'definitely lost: 300 bytes in 1 blocks' 'indirectly lost: 0 bytes in 0 blocks' \
		   'possibly lost: 0 bytes in 0 blocks' 'still reachable: 200 bytes in 1 blocks'; do
		assert_grep "$T_DIR/ah.out" "^ +$cls\$" "atexit_drop: $cls"
	done
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/ah.fg" | tr '\n' ' ')" "site_dropped_at_exit 300 " \
		"atexit_drop -m leaked: the block the handler let go of, alone"
	if command -v valgrind >/dev/null; then
		timeout 120 valgrind --leak-check=full --show-leak-kinds=all "$TB/atexit_drop" >/dev/null 2>"$T_DIR/vg.txt"
		assert_grep "$T_DIR/vg.txt" '^==[0-9]+== +definitely lost: 300 bytes in 1 blocks$' "valgrind: the same block lost"
		assert_grep "$T_DIR/vg.txt" '^==[0-9]+== +still reachable: 200 bytes in 1 blocks$' "valgrind: the same block reachable"
	else
		fail "valgrind is missing (scripts/install-deps.sh installs it)"
	fi
	tl_run as --follow-forks --leak-check -i 0 -t 0 -- "$TB/atexit_drop" spawn
	assert_eq "$TL_RC" 0 "atexit_drop spawn: exit status"
	assert_eq "$(grep -c '^leak check of pid' "$T_DIR/as.out")" 1 "atexit_drop spawn: one check, the parent's"
	assert_grep "$T_DIR/as.out" '^ +definitely lost: 300 bytes in 1 blocks$' "atexit_drop spawn: the parent's block lost"
}

test_leak_check_sig_stacks() { # --leak-check: a block that is a live thread's alternate signal stack (sigaltstack) is held by the kernel, still reachable with no pointer in memory (valgrind calls it lost); one given up (SS_DISABLE) or of a thread that ended is lost; at the exit and on a snapshot
	need_target altstack || return
	local f
	tl_run sx --leak-check -m leaked -f "$T_DIR/sx.fg" -i 0 -t 0 -- "$TB/altstack"
	assert_eq "$TL_RC" 0 "altstack at exit: exit status"
	assert_grep "$T_DIR/sx.out" '^leak check of pid [0-9]+ \(stopped scan: ' "altstack at exit: checked at its exit"
	assert_eq "$(leak_totals "$T_DIR/sx.out" | grep -E '^(definitely|reachable) ' | tr '\n' ' ')" \
		"definitely 50000 2 reachable 90000 2 " "altstack at exit: the classes"
	assert_eq "$(leak_sites "$T_DIR/sx.out" site_disabled)" "30000 definitely 1" \
		"altstack at exit: the stack given up (SS_DISABLE) is lost"
	assert_eq "$(leak_sites "$T_DIR/sx.out" site_exited_stack)" "20000 definitely 1" \
		"altstack at exit: the stack of a thread that ended is lost"
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/sx.fg" | sort | tr '\n' ' ')" \
		"site_disabled 30000 site_exited_stack 20000 " \
		"altstack -m leaked: the two lost stacks alone, not the ones in use"
	assert_no_grep "$T_DIR/sx.err" "alternate signal stacks" "altstack at exit: the stacks were read"
	# on a snapshot: the stacks are read from the process, the copy scanned
	TL_ENV=(TL_READY="$T_DIR/altstack.ready")
	tl_bg sy --leak-check -i 0 -t 0 -- "$TB/altstack" wait
	if ! wait_for_grep "$T_DIR/altstack.ready" '^ready [0-9]+$' 20 "$TL_PID"; then
		fail "altstack wait: not ready"
		return
	fi
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "altstack wait: tracelloc did not end"
	f=$T_DIR/sy.out
	assert_grep "$f" '^leak check of pid [0-9]+ \(snapshot: ' "altstack wait: a snapshot"
	assert_eq "$(leak_totals "$f" | grep -E '^(definitely|reachable) ' | tr '\n' ' ')" \
		"definitely 50000 2 reachable 90000 2 " "altstack wait: the classes"
}

test_leak_check_families() { # tests/targets/lost.c under jemalloc, tcmalloc, mimalloc, musl and static builds: the same lost blocks, site by site (their metadata hides none, invents none), at exit and on a snapshot
	local fam f want site
	for fam in jemalloc tcmalloc mimalloc musl musl_static static; do
		need_target "lost_$fam" || continue
		tl_run lf_$fam --leak-check -i 0 -t 20 -- "$TB/lost_$fam" exit
		assert_eq "$TL_RC" 0 "lost_$fam at exit: exit status"
		f=$T_DIR/lf_$fam.out
		# tcmalloc's own start-up loses one object for good (InitModule's
		# MallocExtension, replaced by Register): a real leak, found
		want="definitely 1612 4"
		[ "$fam" = tcmalloc ] && want="definitely 1620 5"
		assert_eq "$(leak_totals "$f" | grep '^definitely ')" "$want" "lost_$fam: definitely lost"
		assert_eq "$(leak_totals "$f" | grep '^indirectly ')" "indirectly 176 3" "lost_$fam: indirectly lost"
		assert_eq "$(leak_sites "$f" site_dropped)" "1000 definitely 1" "lost_$fam: the dropped pointer"
		assert_eq "$(leak_sites "$f" site_xor)" "500 definitely 1" "lost_$fam: kept only xor-ed"
		assert_eq "$(leak_sites "$f" site_list_head)" "64 definitely 1" "lost_$fam: the lost list's head"
		assert_eq "$(leak_sites "$f" site_list_node | tr '\n' ' ')" "64 indirectly 1 64 indirectly 1 " "lost_$fam: its nodes"
		assert_eq "$(leak_sites "$f" site_cycle | tr '\n' ' ')" "48 definitely 1 48 indirectly 1 " "lost_$fam: the lost cycle"
		[ "$fam" = tcmalloc ] && assert_eq "$(leak_sites "$f" 'MallocExtension::Register(MallocExtension*)')" \
			"8 definitely 1" "lost_tcmalloc: tcmalloc's own lost object"
		for site in site_global site_chain site_tls site_thread_tls site_thread_stack site_in_mmap \
			site_interior site_freed; do
			assert_eq "$(leak_sites "$f" "$site")" "" "lost_$fam: nothing lost through $site"
		done
	done
	# and alive, on a snapshot (musl_static has no "syscall; ret" to make one with)
	for fam in jemalloc musl static musl_static; do
		need_target "lost_$fam" || continue
		rm -f "$T_DIR/ls_$fam.ready"
		TL_ENV=(TL_READY="$T_DIR/ls_$fam.ready")
		tl_bg ls_$fam --leak-check -i 0 -t 0 -- "$TB/lost_$fam"
		wait_for_grep "$T_DIR/ls_$fam.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "lost_$fam: not ready"; continue; }
		kill -INT "$TL_PID"
		wait_pid "$TL_PID" 30 || fail "lost_$fam: tracelloc did not end"
		f=$T_DIR/ls_$fam.out
		if [ "$fam" = musl_static ]; then
			assert_grep "$f" '^leak check of pid [0-9]+ \(stopped scan: no snapshot, its code has no system-call return sequence to use: ' \
				"lost_musl_static alive: a stopped scan, and why"
		else
			assert_grep "$f" '^leak check of pid [0-9]+ \(snapshot: ' "lost_$fam alive: a snapshot"
		fi
		assert_eq "$(leak_totals "$f" | grep -E '^(definitely|indirectly) ' | tr '\n' ' ')" \
			"definitely 1612 4 indirectly 176 3 " "lost_$fam alive: the same lost blocks"
	done
}

POOL_SPECS="--alloc-fn pool_alloc:size=arg2,pool=arg1 --alloc-fn pool_calloc:count=arg2,size=arg3,pool=arg1 --realloc-fn pool_realloc:ptr=arg2,size=arg4 --free-fn pool_free:ptr=arg2"

# named_own FILE: "BYTES PIECES" of the summary's line on the named allocators' own memory
named_own() {
	sed -nE "s/^    held by named allocators' own memory: ([0-9]+) bytes \(.*\) in ([0-9]+) pieces?$/\1 \2/p" "$1"
}

test_named_pool() { # --alloc-fn (count= too), --realloc-fn, --free-fn, --pool-destroy-fn on a pool allocator of the program's: each caller's blocks exact (kept, freed, grown, zeroed by count, destroyed with their pool, a block where its slab starts), the slabs apart as the pools' own memory; the same with the pool's destruction seen only as its slabs' free, and by LIB:NAME
	local m own
	# shellcheck disable=SC2086 # the specs have no spaces
	METRICS="live count" TL_ARGS="$POOL_SPECS --pool-destroy-fn pool_destroy:pool=arg1" ledger_test pooled
	for m in live count; do
		own=$(expect_value "$T_DIR/$m.exp" own-bytes)" "$(expect_value "$T_DIR/$m.exp" own-count)
		assert_eq "$(named_own "$T_DIR/$m.out")" "$own" "-m $m: the pools' own memory, as the program counts it"
	done
	assert_no_grep "$T_DIR/live.fg" 'pool_alloc' "no slab at the allocator's own stack"
	# no --pool-destroy-fn: the blocks go with the slabs they were carved from
	METRICS="live" TL_ARGS="$POOL_SPECS" ledger_test pooled
	# LIB:NAME, the executable's name
	METRICS="count" TL_ARGS="--alloc-fn pooled:pool_alloc:size=arg2,pool=arg1 --realloc-fn pooled:pool_realloc:ptr=arg2,size=arg4 --free-fn pooled:pool_free:ptr=arg2" ledger_test pooled
}

test_named_wrappers() { # a wrapper allocator of the program's (xmalloc, xrealloc, xfree over malloc's): each caller exact, and no free unknown where xrealloc reallocs the block's own memory
	METRICS="live count allocated" TL_ARGS="--alloc-fn xmalloc:size=arg1 --realloc-fn xrealloc:ptr=arg1,size=arg2 --free-fn xfree:ptr=arg1" ledger_test named_wrappers
}

test_named_pool_attach() { # the program's own allocator under -p: the same blocks and own memory as in launch mode, exact; -v lists the named probes
	need_target pooled || return
	local tpid own
	TGT_ENV=(TL_EXPECT="$T_DIR/np.exp")
	start_target pooled || return
	tpid=$TGT_PID
	# shellcheck disable=SC2086 # the specs have no spaces
	tl_bg np -v -i 0 -t 0 -m live -f "$T_DIR/np.fg" -p "$tpid" $POOL_SPECS --pool-destroy-fn pool_destroy:pool=arg1
	wait_for_grep "$T_DIR/np.err" '^tracelloc: attached to pid [0-9]+: named in pooled \(5 functions\)' 20 "$TL_PID" ||
		{ fail "-p: not attached"; show "$T_DIR/np.err"; return; }
	kill -USR1 "$tpid"
	wait_pid "$TL_PID" 30 || { fail "-p: tracelloc did not end with its target"; return; }
	check_expect_file "$T_DIR/np.exp" "pooled -p" || return
	check_ledger "$T_DIR/np.exp" "$T_DIR/np.fg" live "pooled -p"
	own=$(expect_value "$T_DIR/np.exp" own-bytes)" "$(expect_value "$T_DIR/np.exp" own-count)
	assert_eq "$(named_own "$T_DIR/np.out")" "$own" "-p: the pools' own memory"
	assert_grep "$T_DIR/np.err" '^tracelloc: probe pool_realloc \(named, pooled\) at offset 0x[0-9a-f]+, entry and return$' "-v: a named probe listed"
	assert_grep "$T_DIR/np.err" '^tracelloc: probe pool_destroy \(named, pooled\) at offset 0x[0-9a-f]+, entry$' "-v: a named entry probe listed"
}

test_named_apr() { # Debian's APR pools (libapr-1) named on the command line: every caller's blocks exact against the driver's ledger (requests' pools destroyed, a subpool with its parent, a pool cleared), apr_pstrdup's block at its caller, APR's nodes apart as its own memory and nowhere in the stacks
	local own
	METRICS="live count" TL_ARGS="--alloc-fn apr_palloc:size=arg2,pool=arg1 --pool-destroy-fn apr_pool_destroy:pool=arg1 --pool-destroy-fn libapr-1:apr_pool_clear:pool=arg1 --pool-create-fn apr_pool_create_ex" ledger_test named_apr
	own=$(named_own "$T_DIR/live.out")
	assert_int_ge "${own% *}" 8192 "APR's nodes: its own memory, at least a node"
	assert_no_grep "$T_DIR/live.fg" 'apr_pool_create_ex|apr_palloc|allocator_alloc' "no node of APR's in a stack: counted once"
	# the leak check at its exit: the dropped block alone is lost; what only
	# APR's own memory points at (a cleanup and its data) is reachable
	tl_run al --leak-check -i 0 -t 0 -m leaked -f "$T_DIR/al.fg" --alloc-fn apr_palloc:size=arg2,pool=arg1 \
		--pool-destroy-fn apr_pool_destroy:pool=arg1 --pool-destroy-fn apr_pool_clear:pool=arg1 \
		--pool-create-fn apr_pool_create_ex -- "$TB/named_apr"
	assert_eq "$TL_RC" 0 "--leak-check: exit status"
	assert_eq "$(leak_totals "$T_DIR/al.out" | grep -E '^(definitely|indirectly|possibly) ' | tr '\n' ' ')" \
		"definitely 1000 1 indirectly 0 0 possibly 0 0 " "--leak-check: only the dropped block lost" || show "$T_DIR/al.out" 20
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/al.fg" | tr '\n' ' ')" "site_dropped 1000 " "-m leaked: at its caller"
}

test_named_talloc() { # Debian's talloc named on the command line (every block a malloc chunk of its own, a block's descendants freed inside talloc through free() alone): every caller exact against the driver's ledger, the kept blocks' bytes what talloc_total_size says, the chunks' headers apart as its own memory
	local own
	METRICS="live count" TL_ARGS="--alloc-fn talloc_named_const:size=arg2 --free-fn libtalloc:_talloc_free:ptr=arg1" ledger_test named_talloc
	assert_eq "$(fold_sum "$T_DIR/live.fg" site_keep)" "$(expect_value "$T_DIR/live.exp" talloc-total-size)" \
		"talloc's own count of the bytes under its root"
	own=$(named_own "$T_DIR/live.out")
	assert_int_ge "${own% *}" 1 "the chunks' headers: talloc's own memory"
	assert_eq "${own#* }" "$(($(expect_value "$T_DIR/live.exp" talloc-total-blocks) + 0))" \
		"a chunk per live block: the root and the kept ones"
}

test_bad_named_fns() { # --alloc-fn and the rest: a malformed spec, an argument out of range, a key the kind does not take, a function the target does not have: one line, non-zero exit, nothing run
	need_target pooled || return
	local spec
	for spec in "--alloc-fn pool_alloc:size=arg7" "--alloc-fn pool_alloc:ptr=arg1" "--free-fn pool_free" \
		"--realloc-fn pool_realloc:ptr=arg2" "--alloc-fn pool_alloc:size=arg2,size=arg1" "--alloc-fn :pool_alloc:size=arg2" \
		"--alloc-fn pool-alloc:size=arg1" "--pool-create-fn pool_new:pool=arg1"; do
		marker_cmd
		# shellcheck disable=SC2086 # the spec is two words
		bad_input "$spec" $spec -- "$TB/pooled"
	done
	marker_cmd
	tl_run bad --alloc-fn nosuch_alloc:size=arg1 -- "$TB/pooled"
	bad_input_check "a function the target lacks"
	assert_grep "$T_DIR/bad.err" "^tracelloc: --alloc-fn 'nosuch_alloc:size=arg1': pid [0-9]+ has no function nosuch_alloc$" "the missing function named"
	marker_cmd
	tl_run bad --alloc-fn libnosuch:pool_alloc:size=arg2 -- "$TB/pooled"
	bad_input_check "a function in a library the target lacks"
	# a function of an allocator tracelloc knows: the rule said, not "no function"
	marker_cmd
	tl_run bad --free-fn free:ptr=arg1 -- "$TB/pooled"
	bad_input_check "--free-fn free"
	assert_grep "$T_DIR/bad.err" "^tracelloc: --free-fn 'free:ptr=arg1': free is glibc's, which tracelloc traces already as that; --free-fn names a function of the program's own \\(a pool's, an arena's\\)$" \
		"--free-fn free: glibc's, traced already"
	marker_cmd
	tl_run bad --alloc-fn malloc:size=arg1 -- "$TB/pooled"
	bad_input_check "--alloc-fn malloc"
	assert_grep "$T_DIR/bad.err" "^tracelloc: --alloc-fn 'malloc:size=arg1': malloc is glibc's" "--alloc-fn malloc: glibc's"
	# what a name holds reaches the terminal escaped, and a long one by its ends
	marker_cmd
	tl_run bad --alloc-fn "$(printf 'my\033[31m\npool:size=arg1')" -- "$TB/pooled"
	bad_input_check "--alloc-fn with an escape and a newline"
	assert_no_grep "$T_DIR/bad.err" "$(printf '\033')" "--alloc-fn: no escape character reaches stderr"
	assert_grep "$T_DIR/bad.err" "'my\\\\x1b\\[31m\\\\x0apool:size=arg1'" "--alloc-fn: the escape and the newline shown as \\xNN"
	marker_cmd
	tl_run bad --alloc-fn "$(head -c 100000 /dev/zero | tr '\0' a):size=arg1" -- "$TB/pooled"
	bad_input_check "--alloc-fn of a 100,000-byte name"
	assert_eq "$(awk '{ print (length($0) < 1000) }' "$T_DIR/bad.err")" 1 "--alloc-fn of a 100,000-byte name: one short line"
	assert_grep "$T_DIR/bad.err" '\[\.\.\. [0-9]+ more bytes \.\.\.\]' "--alloc-fn of a 100,000-byte name: shown by its ends"
}

test_bad_suppressions_file() { # --suppressions naming a FIFO (no writer), a directory, a device: refused at once with what it is, nothing run, nothing waits
	need_target lost || return
	local f
	mkfifo "$T_DIR/fifo"
	mkdir "$T_DIR/dir"
	for f in "$T_DIR/fifo:a FIFO" "$T_DIR/dir:a directory" "/dev/zero:a device" "/dev/null:a device"; do
		marker_cmd
		TL_TIMEOUT=10 tl_run bad --suppressions "${f%%:*}" -- "$TB/lost" exit
		bad_input_check "--suppressions ${f#*:}"
		assert_grep "$T_DIR/bad.err" "^tracelloc: --suppressions ${f%%:*}: ${f#*:}, not a file of rules$" \
			"--suppressions ${f#*:}: said what it is"
	done
}

test_suppressions() { # --suppressions FILE (leak:PATTERN): the stacks matched leave the report, the folded stacks and the leak check's classes; the summary says what; a bad file: FILE:LINE and exit 1, before tracing
	need_target lost || return
	local supp=$T_DIR/lost.supp f
	printf '# what we know about\nleak:site_xor\n\n  leak:^site_cycle$\n' >"$supp"
	tl_run su --leak-check -i 0 -t 20 --suppressions "$supp" -m leaked -f "$T_DIR/su.fg" -- "$TB/lost" exit
	assert_eq "$TL_RC" 0 "suppressions: exit status"
	f=$T_DIR/su.out
	assert_eq "$(leak_totals "$f" | grep -E '^(definitely|indirectly) ' | tr '\n' ' ')" \
		"definitely 1064 2 indirectly 128 2 " "suppressions: xor-ed and the cycle in no class"
	assert_grep "$f" '^ +suppressed: 596 bytes in 3 blocks, in no class$' "suppressions: the check says what it left out"
	assert_eq "$(leak_sites "$f" site_xor)$(leak_sites "$f" site_cycle)" "" "suppressions: no lost stack of theirs"
	assert_eq "$(leak_sites "$f" site_dropped)" "1000 definitely 1" "suppressions: the others as they were"
	assert_no_grep "$f" ' site_(xor|cycle)\+' "suppressions: no stack of theirs in the report"
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/su.fg" | sort | tr '\n' ' ')" \
		"site_dropped 1000 site_list_head 64 site_list_node 128 " "suppressions: -m leaked without them"
	assert_grep "$f" '^    suppressed: 596 bytes in 3 allocations, 3 stacks, by 3 rules$' "suppressions: the summary says what was left out"
	# bad files: one line, the file and the line, nothing run
	printf 'leak:ok\nrace:foo\n' >"$T_DIR/bad.supp"
	tl_run sb --suppressions "$T_DIR/bad.supp" -- "$TB/lost" exit
	assert_eq "$TL_RC" 1 "a bad suppressions file: exit status"
	assert_grep "$T_DIR/sb.err" "^tracelloc: $T_DIR/bad.supp:2: expected leak:PATTERN \\(only leak suppressions are known\\)$" \
		"a bad suppressions file: its name and line"
	assert_no_grep "$T_DIR/sb.err" 'attached' "a bad suppressions file: nothing traced"
	tl_run sm --suppressions "$T_DIR/none.supp" -- "$TB/lost" exit
	assert_eq "$TL_RC" 1 "a missing suppressions file: exit status"
	assert_grep "$T_DIR/sm.err" "^tracelloc: cannot read the suppressions $T_DIR/none.supp: No such file or directory$" \
		"a missing suppressions file: one line"
	# the live line and the TUI's header are the views' numbers too (the
	# stacks decided at the last report): the last line's blocks are the summary's
	local last
	rm -f "$T_DIR/lw.ready"
	TL_ENV=(TL_READY="$T_DIR/lw.ready")
	tl_bg lw -i 0.3 -t 1 --suppressions "$supp" -- "$TB/lost"
	wait_for_grep "$T_DIR/lw.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "lost: not ready"; return; }
	sleep 1.2
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "live line: tracelloc did not end"
	parse_summary "$T_DIR/lw.out" || return
	last=$(sed -n 's/^\[ *[0-9.]*s\] live: \([0-9]*\) allocations.*/\1/p' "$T_DIR/lw.out" | tail -1)
	assert_eq "$last" "$SUM_LIVE" "the live line leaves out what the suppressions left out of the report"
	kill "$(awk '{ print $2 }' "$T_DIR/lw.ready")" 2>/dev/null
	# built in: libstdc++'s emergency exception pool (a stack of the runtimes' frames
	# only) leaves the views, and the summary's numbers are the views'
	need_target cxx || return
	local pool
	tl_run sx -i 0 -t 0 -f "$T_DIR/sx.fg" -- "$TB/cxx"
	parse_summary "$T_DIR/sx.out" || return
	assert_grep "$T_DIR/sx.out" '^    suppressed: [0-9]+ bytes in 1 allocations, 1 stack, by 1 rule$' \
		"built in: the pool, said apart"
	assert_no_grep "$T_DIR/sx.fg" 'libstdc' "built in: not in the folded stacks"
	assert_eq "$(fold_total "$T_DIR/sx.fg")" "$SUM_LIVE_BYTES" "built in: the folded total = the summary's live bytes"
	pool=$(sed -n 's/^    suppressed: \([0-9]*\) bytes.*/\1/p' "$T_DIR/sx.out")
	tl_run sy -i 0 -t 0 --no-default-suppressions -f "$T_DIR/sy.fg" -- "$TB/cxx"
	assert_no_grep "$T_DIR/sy.out" 'suppressed:' "--no-default-suppressions: nothing left out"
	assert_eq "$(fold_total "$T_DIR/sy.fg")" "$((SUM_LIVE_BYTES + pool))" \
		"--no-default-suppressions: the pool back in the views"
}

test_leak_check_valgrind() { # the peer: valgrind's memcheck on the same target at its exit finds the same four classes, to the byte
	need_target lost || return
	command -v valgrind >/dev/null || { fail "valgrind is missing (scripts/install-deps.sh installs it)"; return; }
	local vg=$T_DIR/vg.txt
	timeout 120 valgrind --leak-check=full --show-leak-kinds=all --error-exitcode=0 \
		"$TB/lost" exit >"$T_DIR/vg.out" 2>"$vg"
	# "==PID==    definitely lost: 2,312 bytes in 5 blocks" -> "definitely 2312 5"
	vg_class() {
		sed -n "s/^==[0-9]*== *$1 lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/$1 \1 \2/p" "$vg" | tr -d ,
	}
	vg_reachable() {
		sed -n "s/^==[0-9]*== *still reachable: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/reachable \1 \2/p" "$vg" | tr -d ,
	}
	# what tracelloc finds (leak_check_expect)
	assert_eq "$(vg_class definitely)" "definitely 1612 4" "valgrind: definitely lost, as ours"
	assert_eq "$(vg_class indirectly)" "indirectly 176 3" "valgrind: indirectly lost, as ours"
	assert_eq "$(vg_class possibly)" "possibly 688 2" "valgrind: possibly lost, as ours (the DTV too)"
	assert_eq "$(vg_reachable)" "reachable 3600 7" "valgrind: still reachable, as ours (both __thread blocks)"
}

test_leak_check_attach() { # --leak-check -p: the same classes of the blocks made after the attach; SIGUSR1 checks meanwhile; the target runs on, not stopped
	need_target lost || return
	local tpid st
	start_target lost wait || return
	tpid=$TGT_PID
	tl_bg lp --leak-check -i 0 -t 20 -p "$tpid"
	if ! wait_for_grep "$T_DIR/lp.err" "^tracelloc: attached to pid $tpid([^0-9]|$)" 30 "$TL_PID"; then
		fail "lost -p: not attached"
		return
	fi
	rm -f "$T_DIR/lost.ready"
	kill -USR1 "$tpid"
	wait_for_grep "$T_DIR/lost.ready" '^ready [0-9]+$' 20 "$tpid" || fail "lost -p: not ready after SIGUSR1"
	# a check on SIGUSR1, while the trace goes on
	kill -USR1 "$TL_PID"
	wait_for_grep "$T_DIR/lp.out" '^ +still reachable: ' 20 "$TL_PID" || fail "lost -p: no check on SIGUSR1"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "lost -p: tracelloc did not end"
	assert_eq "$WAIT_RC" 0 "lost -p: tracelloc's exit status"
	assert_eq "$(grep -c '^leak check of pid' "$T_DIR/lp.out")" 2 "lost -p: a check on SIGUSR1 and one at the end"
	leak_check_expect lp "lost (-p)" snapshot
	assert_grep "$T_DIR/lp.out" "blocks from before the attach are unknown" "lost (-p): says the older blocks are unknown"
	st=$(awk '{ print $3 }' "/proc/$tpid/stat" 2>/dev/null)
	assert_eq "$st" S "lost -p: the target sleeps on (not stopped, not traced)"
	assert_eq "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tpid/status")" 0 "lost -p: no tracer left on it"
	kill "$tpid"
}

test_leak_check_two_tracers() { # two tracelloc --leak-check -p on one process, checking it at once: the second waits for the first's check (it had "traced by another tracer" and no check), at the trace's end and at the process's exit; one of them a copy under another name (known by its map of held processes)
	need_target lost || return
	need_target dlopen || return
	need_target libplugin.so || return
	local tpid k run pids tl=$TL
	cp "$TL" "$T_DIR/tl-copy" || { fail "two tracers: a renamed copy"; return; }
	for run in end exit renamed; do
		if [ "$run" != exit ]; then
			start_target lost wait || return
		else
			start_target dlopen "$TB/libplugin.so" wait || return
		fi
		tpid=$TGT_PID
		pids=()
		for k in a b; do
			[ "$run$k" = renamedb ] && TL=$T_DIR/tl-copy
			tl_bg "two_$run$k" --leak-check -i 0 -t 20 -p "$tpid"
			TL=$tl
			pids+=("$TL_PID")
			if ! wait_for_grep "$T_DIR/two_$run$k.err" "^tracelloc: attached to pid $tpid([^0-9]|$)" 30 "$TL_PID"; then
				fail "two tracers ($run): tracer $k did not attach"
				return
			fi
		done
		if [ "$run" != exit ]; then
			rm -f "$T_DIR/lost.ready"
			kill -USR1 "$tpid"
			wait_for_grep "$T_DIR/lost.ready" '^ready [0-9]+$' 20 "$tpid" || fail "two tracers: lost not ready"
			kill -INT "${pids[@]}"
		else
			# dlopen runs, then exits: each tracer checks it at its exit
			kill -USR1 "$tpid"
		fi
		for k in 0 1; do
			wait_pid "${pids[$k]}" 30 || fail "two tracers ($run): a tracer did not end"
			assert_eq "$WAIT_RC" 0 "two tracers ($run): exit status"
		done
		for k in a b; do
			assert_no_grep "$T_DIR/two_$run$k.err" "cannot be scanned" "two tracers ($run): tracer $k was not refused"
		done
		if [ "$run" != exit ]; then
			# lost.c's classes exactly, for each
			for k in a b; do
				assert_eq "$(grep -c '^leak check of pid' "$T_DIR/two_$run$k.out")" 1 "two tracers ($run): tracer $k checked"
				leak_check_expect "two_$run$k" "two tracers ($run), tracer $k" snapshot
			done
		else
			# at the exit, the last tracer to let go continues the process (one
			# SIGCONT ends both stops: the first's had the other find it gone,
			# about 1 run in 10)
			for k in a b; do
				assert_eq "$(grep -c '^leak check of pid' "$T_DIR/two_exit$k.out")" 1 "two tracers (exit): tracer $k checked"
				assert_eq "$(grep -c '^    definitely lost: 2,331 bytes in 3 blocks$' "$T_DIR/two_exit$k.out")" 1 \
					"two tracers (exit): tracer $k found plugin_alloc's 3 blocks"
				assert_no_grep "$T_DIR/two_exit$k.err" 'ended while another tracelloc checked it' \
					"two tracers (exit): tracer $k found it there"
			done
		fi
		kill "$tpid" 2>/dev/null
		wait_pid "$tpid" 10
	done
}

test_leak_check_forged_holder() { # a BPF map named as another tracelloc's map of held processes, the process in it, that no tracing program uses (what an unprivileged user can make where the kernel lets one): no holder, so the process goes on after its exit check
	need_target dlopen || return
	need_target libplugin.so || return
	need_target fakeheld || return
	local tpid
	start_target dlopen "$TB/libplugin.so" wait || return
	tpid=$TGT_PID
	start_target fakeheld "$tpid" || return
	tl_bg fh --leak-check -i 0 -t 0 -p "$tpid"
	if ! wait_for_grep "$T_DIR/fh.err" "^tracelloc: attached to pid $tpid([^0-9]|\$)" 30 "$TL_PID"; then
		fail "forged holder: tracelloc did not attach"
		return
	fi
	kill -USR1 "$tpid"
	wait_pid "$tpid" 10
	assert_eq "$WAIT_RC" 0 "forged holder: the process went on and exited (left stopped for the map's 'holder' before)"
	wait_pid "$TL_PID" 20 || fail "forged holder: tracelloc did not end"
	assert_eq "$(grep -c '^leak check of pid' "$T_DIR/fh.out")" 1 "forged holder: checked at the exit"
	assert_grep "$T_DIR/fh.out" '^    definitely lost: 2,331 bytes in 3 blocks$' "forged holder: plugin_alloc's 3 blocks"
}

# snapped_state FILE: what tests/targets/snapped.c saw, asked with SIGUSR1
snapped_state() {
	rm -f "$1.out"
	kill -USR1 "$2"
	wait_for_grep "$1.out" '^sigchld ' 10 "$2" && cat "$1.out"
}

test_leak_check_snapshot() { # --leak-check on a running target: a copy-on-write snapshot, its thread's registers and FPU whole, no SIGCHLD, nothing to wait for, no copy left; a short sleep started over; a main thread in a long nanosleep or poll: the snapshot made by another thread; a seccomp filter, or no thread that can make it: a stopped scan that says why
	need_target snapped || return
	local tpid i n st mode why
	for mode in run nap seccomp sleep poll sleepall; do
		rm -f "$T_DIR/sn$mode.ready"
		TL_ENV=(TL_READY="$T_DIR/sn$mode.ready")
		# (with --follow-forks: the snapshot's clones are no forks to follow)
		tl_bg sn$mode --leak-check $([ "$mode" = run ] && echo --follow-forks) -i 0 -t 0 -- "$TB/snapped" "$mode"
		wait_for_grep "$T_DIR/sn$mode.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "snapped $mode: not ready"; continue; }
		tpid=$(awk '{ print $2 }' "$T_DIR/sn$mode.ready")
		n=$([ "$mode" = run ] && echo 3 || echo 1)
		for i in $(seq "$n"); do
			kill -USR1 "$TL_PID"
			for _ in $(seq 80); do
				[ "$(grep -c "^leak check of pid $tpid" "$T_DIR/sn$mode.out")" -ge "$i" ] && break
				sleep 0.1
			done
		done
		# in the running target: the sums of its main thread (the one that
		# made each snapshot) right, no SIGCHLD, no child to wait for
		st=$(snapped_state "$T_DIR/sn$mode.ready" "$tpid")
		assert_match "$st" '^sigchld 0 wait 10 wall 10 errors 0 rounds [1-9][0-9]*$' "snapped $mode: the target saw nothing of it"
		assert_eq "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tpid/status")" 0 "snapped $mode: no tracer left on it"
		# the copies, orphans once their helper exits, are reaped by init
		for i in $(seq 40); do
			[ "$(pgrep -x snapped | grep -cvx "$tpid")" = 0 ] && break
			sleep 0.25
		done
		assert_eq "$(pgrep -x snapped | grep -cvx "$tpid")" 0 "snapped $mode: no copy left"
		kill -INT "$TL_PID"
		wait_pid "$TL_PID" 30 || fail "snapped $mode: tracelloc did not end"
		assert_eq "$WAIT_RC" 0 "snapped $mode: tracelloc's exit status"
		case $mode in
		run | nap | sleep | poll) why="snapshot" ;;
		seccomp) why="stopped scan: no snapshot, it runs under a seccomp filter" ;;
		sleepall) why="stopped scan: no snapshot, its main thread sleeps in a call a snapshot would cut short" ;;
		esac
		assert_eq "$(grep -c "^leak check of pid $tpid ($why: the target was stopped [0-9.]* ms" "$T_DIR/sn$mode.out")" \
			"$((n + 1))" "snapped $mode: each check by $why"
		assert_eq "$(grep -cE '^ +definitely lost: 1,000 bytes in 10 blocks$' "$T_DIR/sn$mode.out")" "$((n + 1))" \
			"snapped $mode: its 10 dropped blocks lost, at each check"
		assert_grep "$T_DIR/sn$mode.out" ' site_snapped' "snapped $mode: their stack"
		[ "$mode" = run ] && assert_grep "$T_DIR/sn$mode.out" '^==> summary: 1 processes, ' \
			"snapped --follow-forks: no snapshot followed as a process"
		[ "$mode" = nap ] && assert_no_grep "$T_DIR/sn$mode.out" 'child processes not traced' \
			"snapped $mode: a snapshot's copies are no untraced children"
	done
}

test_leak_check_unforked() { # blocks whose only pointers lie in MADV_DONTFORK and MADV_WIPEONFORK pages (which a snapshot's copy lacks or has as zeros): read from the stopped process, reachable; the 10 dropped blocks alone lost, and the header says so
	need_target unforked || return
	local tpid
	rm -f "$T_DIR/uf.ready"
	TL_ENV=(TL_READY="$T_DIR/uf.ready")
	tl_bg uf --leak-check -i 0 -t 3 -- "$TB/unforked"
	wait_for_grep "$T_DIR/uf.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "unforked: not ready"; return; }
	tpid=$(awk '{ print $2 }' "$T_DIR/uf.ready")
	kill -USR1 "$TL_PID"
	wait_for_grep "$T_DIR/uf.out" '^ +still reachable: ' 20 "$TL_PID" || fail "unforked: no check"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20
	kill "$tpid" 2>/dev/null
	assert_grep "$T_DIR/uf.out" "^leak check of pid $tpid \(snapshot, with 8 KiB a fork leaves out \(MADV_DONTFORK, MADV_WIPEONFORK\) read from the process: the target was stopped " \
		"unforked: a snapshot, and the pages read from the process said"
	assert_eq "$(grep -m1 -E '^ +definitely lost: ' "$T_DIR/uf.out" | sed 's/^ *//')" "definitely lost: 10,000 bytes in 10 blocks" \
		"unforked: the dropped blocks alone are lost"
	assert_eq "$(grep -m1 -E '^ +still reachable: ' "$T_DIR/uf.out" | sed 's/^ *//')" "still reachable: 32,000 bytes in 8 blocks" \
		"unforked: the blocks only those pages point to are reachable"
}

test_leak_check_cgroup_room() { # a target in a memory cgroup with less room than its anonymous memory: no snapshot (its copy-on-write could take the cgroup over its limit), a stopped scan that says so, the target unharmed; with room enough, a snapshot
	need_target unforked || return
	local cg tpid lim_file use_file
	if [ -d /sys/fs/cgroup/memory ]; then
		cg=/sys/fs/cgroup/memory/tl-room-$$ lim_file=memory.limit_in_bytes use_file=memory.usage_in_bytes
	elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg=/sys/fs/cgroup/tl-room-$$ lim_file=memory.max use_file=memory.current
	else
		fail "no memory cgroup controller to test with"
		return
	fi
	mkdir "$cg" || { fail "cannot make $cg"; return; }
	rm -f "$T_DIR/cr.ready"
	TL_READY="$T_DIR/cr.ready" "$TB/unforked" 64 >"$T_DIR/cr.tout" 2>&1 &
	tpid=$!
	register_pid "$tpid"
	wait_for_grep "$T_DIR/cr.ready" '^ready [0-9]+$' 20 "$tpid" || { fail "unforked 64: not ready"; rmdir "$cg"; return; }
	echo "$tpid" >"$cg/cgroup.procs"
	# room: 16 MiB over what the cgroup holds now, its 64 MiB resident elsewhere charged
	echo $(($(cat "$cg/$use_file") + (16 << 20))) >"$cg/$lim_file"
	tl_run cr1 --leak-check -i 0 -t 0 -d 0.5 -p "$tpid"
	assert_eq "$TL_RC" 0 "cgroup room: exit status"
	assert_grep "$T_DIR/cr1.out" "^leak check of pid $tpid \\(stopped scan: no snapshot, its copy-on-write could take its cgroup over its memory limit \\([0-9.]+ MiB resident, [0-9.]+ MiB free of [0-9.]+ MiB\\): the target was stopped" \
		"cgroup room: a stopped scan, and why"
	pid_alive "$tpid" || fail "cgroup room: the target died"
	echo $((4 << 30)) >"$cg/$lim_file"
	tl_run cr2 --leak-check -i 0 -t 0 -d 0.5 -p "$tpid"
	assert_grep "$T_DIR/cr2.out" "^leak check of pid $tpid \\(snapshot" "cgroup room enough: a snapshot"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	rmdir "$cg"
}

test_leak_check_fork_refused() { # a snapshot's fork refused (a cgroup's pid limit: at the helper, then at the copy): a stopped scan that says why, the target unharmed, nothing left behind
	need_target snapped || return
	local cg=/sys/fs/cgroup/pids/tl-snap-$$ tpid room st
	[ -d /sys/fs/cgroup/pids ] || { fail "no pids cgroup at /sys/fs/cgroup/pids"; return; }
	mkdir "$cg" || { fail "cannot make $cg"; return; }
	rm -f "$T_DIR/fr.ready"
	TL_READY="$T_DIR/fr.ready" "$TB/snapped" >"$T_DIR/fr.tout" 2>&1 &
	tpid=$!
	wait_for_grep "$T_DIR/fr.ready" '^ready [0-9]+$' 20 "$tpid" || { fail "snapped: not ready"; rmdir "$cg"; return; }
	echo "$tpid" >"$cg/cgroup.procs"
	# room 0: the helper's clone is refused; room 1: the helper is made, the copy is refused
	for room in 0 1; do
		echo $(($(cat "$cg/pids.current") + room)) >"$cg/pids.max"
		tl_run fr$room --leak-check -i 0 -t 0 -d 0.5 -p "$tpid"
		assert_eq "$TL_RC" 0 "pid limit +$room: exit status"
		assert_grep "$T_DIR/fr$room.out" "^leak check of pid $tpid \\(stopped scan: no snapshot, its fork failed: Resource temporarily unavailable: the target was stopped" \
			"pid limit +$room: a stopped scan, and why"
		st=$(snapped_state "$T_DIR/fr.ready" "$tpid")
		assert_match "$st" '^sigchld 0 wait 10 wall 10 errors 0 ' "pid limit +$room: the target unharmed, nothing to wait for"
		assert_eq "$(pgrep -P "$tpid" | wc -l)" 0 "pid limit +$room: no child left"
	done
	echo max >"$cg/pids.max"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	rmdir "$cg"
}

test_leak_check_refused() { # a target traced by another tracer is refused in one line; one stopped by SIGSTOP stays stopped
	need_target lost || return
	local tpid
	start_target lost || return
	tpid=$TGT_PID
	kill -STOP "$tpid"
	tl_run ls --leak-check -i 0 -t 0 -d 1 -p "$tpid"
	assert_eq "$TL_RC" 0 "lost stopped: tracelloc's exit status"
	assert_grep "$T_DIR/ls.out" '^ +definitely lost: ' "lost stopped: scanned all the same"
	assert_eq "$(awk '{ print $3 }' "/proc/$tpid/stat")" T "lost stopped: left stopped"
	kill -CONT "$tpid"
	# another tracer (as a debugger would be): PTRACE_SEIZE from python, held 4 s
	python3 -c 'import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
print("seized", libc.ptrace(0x4206, int(sys.argv[1]), 0, 0), flush=True)
time.sleep(4)' "$tpid" >"$T_DIR/seize.out" 2>&1 &
	local spid=$!
	wait_for_grep "$T_DIR/seize.out" '^seized 0$' 5 "$spid" || fail "lost: could not seize it from python"
	tl_run lg --leak-check -i 0 -t 0 -d 1 -p "$tpid"
	assert_grep "$T_DIR/lg.err" "^tracelloc: leak check: pid $tpid is traced by another tracer" \
		"lost under another tracer: refused in one line"
	wait "$spid" 2>/dev/null
	kill "$tpid"
}

test_mmap_where_made() { # a dynamic program's mappings are seen at its libc's mmap: no system-call tracepoint for the host to pay; a static one's at the tracepoints, said at start
	need_target sleeper || return
	need_target sleeper_static || return
	local kind before
	before=$(syscall_links)
	for kind in sleeper sleeper_static; do
		start_target "$kind" 8 || return
		tl_bg "$kind" -i 0 -t 0 -p "$TGT_PID"
		if ! wait_for_grep "$T_DIR/$kind.err" '^tracelloc: attached' 10 "$TL_PID"; then
			fail "$kind: tracelloc did not attach"
			show "$T_DIR/$kind.err"
			return
		fi
		if [ "$kind" = sleeper ]; then
			assert_eq "$(syscall_links)" "$before" "a dynamic program: no system-call tracepoint attached"
			assert_no_grep "$T_DIR/$kind.err" 'traced at the system calls' "a dynamic program: no cost line"
		else
			assert_eq "$(syscall_links)" "$((before + 2))" "a static program: sys_enter and sys_exit attached"
			assert_grep "$T_DIR/$kind.err" "^tracelloc: pid $TGT_PID makes its mmap calls where no probe sees them \\(a static executable\\): they are traced at the system calls, which every process on this host pays for" \
				"a static program: the cost said at start"
		fi
		kill -INT "$TL_PID"
		wait_pid "$TL_PID" 10
		kill -KILL "$TGT_PID" 2>/dev/null
		wait "$TGT_PID" 2>/dev/null
	done
	assert_eq "$(syscall_links)" "$before" "no system-call tracepoint left attached after the end"
}

# tracelloc_live_bytes from the endpoint at URL
metric_live() {
	curl -s "$URL/metrics" | awk '$1 == "tracelloc_live_bytes" { print $2 }'
}

test_redis_jemalloc() { # Debian's redis-server (jemalloc), -p: 2000 SETs of 1 KiB grow live bytes by at least 2 MB, FLUSHALL gives them back
	local sock=$T_DIR/redis.sock rpid i live0 live1 live2 written=$((2000 * 1024))
	# Debian's redis-tools ships the server binary as redis-check-rdb; it is
	# the server when called redis-server (the redis-server package, which
	# also starts a system service, adds just that link)
	if [ ! -x /usr/bin/redis-check-rdb ] || ! command -v redis-cli >/dev/null; then
		fail "redis-tools is missing (scripts/install-deps.sh installs it)"
		return
	fi
	(exec -a redis-server /usr/bin/redis-check-rdb --port 0 --unixsocket "$sock" --save '' \
		--appendonly no --daemonize no --dir "$T_DIR" --lazyfree-lazy-user-flush no) \
		>"$T_DIR/redis.log" 2>&1 &
	register_pid $!
	for i in $(seq 100); do
		[ "$(redis-cli -s "$sock" ping 2>/dev/null)" = PONG ] && break
		sleep 0.05
	done
	[ "$(redis-cli -s "$sock" ping 2>/dev/null)" = PONG ] || { fail "redis-server did not start"; show "$T_DIR/redis.log"; return; }
	# the server's own pid (a shell may stand between it and $!)
	rpid=$(redis-cli -s "$sock" info server | tr -d '\r' | awk -F: '$1 == "process_id" { print $2 }')
	register_pid "$rpid"
	tl_bg r -p "$rpid" -i 0 -t 0 --listen 0
	if ! wait_for_grep "$T_DIR/r.err" '^tracelloc: serving http://' 30 "$TL_PID"; then
		fail "redis: tracelloc did not attach"
		show "$T_DIR/r.err"
		return
	fi
	URL=$(grep -m1 -oE 'http://[^/]+' "$T_DIR/r.err")
	assert_grep "$T_DIR/r.err" "^tracelloc: attached to pid $rpid: .*jemalloc in libjemalloc\.so\.2 \([0-9]+ functions\)" \
		"redis: the attached line names jemalloc"
	sleep 0.3
	live0=$(metric_live)
	# 2000 SETs of a 1024-byte value, in one pipe (the RESP protocol)
	awk 'BEGIN { v = sprintf("%1024s", ""); gsub(/ /, "x", v)
		for (i = 0; i < 2000; i++) { k = "key:" i
			printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1024\r\n%s\r\n", length(k), k, v } }' |
		redis-cli -s "$sock" --pipe >"$T_DIR/pipe.out" 2>&1
	assert_eq "$(redis-cli -s "$sock" dbsize)" 2000 "redis: 2000 keys written"
	sleep 0.5
	live1=$(metric_live)
	redis-cli -s "$sock" flushall sync >/dev/null
	sleep 0.5
	live2=$(metric_live)
	note "redis live bytes: $live0 at attach, $live1 after 2000 x 1 KiB SETs, $live2 after FLUSHALL"
	assert_int_ge "$((live1 - live0))" "$written" "redis: live bytes grew by at least what was written"
	assert_int_ge "$((live1 - live2))" "$((written * 9 / 10))" "redis: FLUSHALL gave back at least 90% of it"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20
	assert_eq "$WAIT_RC" 0 "redis: tracelloc exit status"
	assert_grep "$T_DIR/r.out" "^ +lost events: 0 " "redis: nothing lost"
	kill "$rpid" 2>/dev/null
}
