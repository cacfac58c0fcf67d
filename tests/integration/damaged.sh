# shellcheck shell=bash
# tests/integration/damaged.sh - files that are damaged, stripped or changed under tracelloc (sourced by tests/integration.sh)

# The target's files are untrusted: truncated, rewritten, deleted or stripped,
# they cost names (frames read [unknown]) and never bytes or the daemon.

# tamper_copy: copies of the tamper target and of libplugin.so in $T_DIR/bin
tamper_copy() {
	need_target tamper || return 1
	need_target libplugin.so || return 1
	mkdir -p "$T_DIR/bin" &&
		cp "$TB/tamper" "$TB/libplugin.so" "$T_DIR/bin/" || {
		fail "cannot copy the tamper target"
		return 1
	}
}

# tamper_step WORD: send SIGUSR1 to the tamper target $TAMPER_PID and wait
# for its "WORD PID" line in $TAMPER_READY
tamper_step() {
	kill -USR1 "$TAMPER_PID"
	wait_for_grep "$TAMPER_READY" "^$1 " 10 "$TL_PID" || {
		fail "tamper target did not say '$1'"
		return 1
	}
}

# daemon_has_open PID FILE SECS: wait until process PID holds FILE open
daemon_has_open() {
	local pid=$1 file end fd
	file=$(realpath "$2")
	end=$(($(date +%s%N) + $3 * 1000000000))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		for fd in /proc/"$pid"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "$file" ] && return 0
		done
		sleep 0.05
	done
	fail "tracelloc never opened $file"
	return 1
}

# tamper_launch: tracelloc runs the copy of the tamper target, which says
# ready and allocates; sets TL_PID and TAMPER_PID
tamper_launch() {
	TAMPER_READY=$T_DIR/t.ready
	TL_ENV=(TL_EXPECT="$T_DIR/t.exp" TL_READY="$TAMPER_READY")
	tl_bg t -i 0 -f "$T_DIR/t.fg" -- "$T_DIR/bin/tamper" "$T_DIR/bin/libplugin.so"
	wait_for_grep "$TAMPER_READY" '^ready [0-9]+$' 10 "$TL_PID" || {
		fail "tamper target not ready"
		show "$T_DIR/t.err"
		return 1
	}
	TAMPER_PID=$(awk '{ print $2 }' "$TAMPER_READY")
	tamper_step allocated
}

# tamper_end WHAT [END_RE]: let the target leave, wait for tracelloc, check the run
tamper_end() {
	kill -USR1 "$TAMPER_PID"
	wait_pid "$TL_PID" 30 || fail "$1: tracelloc did not end"
	TL_RC=$WAIT_RC
	check_normal_end t "${2:-^target exited with status 0\$}" "$1" || return 1
	assert_eq "$SUM_LOST" 0 "$1: lost events"
	check_expect_file "$T_DIR/t.exp" "$1" || return 1
	assert_eq "$(fold_total "$T_DIR/t.fg")" "$SUM_LIVE_BYTES" "$1: total of the folded file = the summary's live bytes"
}

test_damaged_library() { # a library truncated or rewritten after it was read: [unknown] frames, exact bytes, no crash
	local how
	for how in truncated rewritten; do
		(
			T_DIR=$T_DIR/$how
			mkdir -p "$T_DIR"
			trap kill_registered EXIT
			tamper_copy || exit
			tamper_launch || exit
			# libdw reads the file lazily, through a mapping of it
			daemon_has_open "$TL_PID" "$T_DIR/bin/libplugin.so" 10 || exit
			if [ "$how" = truncated ]; then
				truncate -s 4096 "$T_DIR/bin/libplugin.so"
			else
				dd if=/dev/zero of="$T_DIR/bin/libplugin.so" bs=4096 conv=notrunc status=none \
					count=$(($(stat -c %s "$T_DIR/bin/libplugin.so") / 4096))
			fi
			tamper_end "$how library" || exit
			assert_eq "$(grep -cE '(^|;)main;\[unknown\] 2331$' "$T_DIR/t.fg")" 1 \
				"$how library: one folded line main;[unknown] 2331 (the 3 plugin_alloc blocks)"
			assert_eq "$(fold_sum "$T_DIR/t.fg" plugin_alloc)" 0 "$how library: plugin_alloc is not named"
			assert_eq "$(fold_sum "$T_DIR/t.fg" site_tamper_alloc)" 1110 \
				"$how library: live bytes of site_tamper_alloc, in the intact binary"
			assert_grep "$T_DIR/t.out" ' \[unknown\] \(libplugin\.so\)$' \
				"$how library: the report keeps the module of the [unknown] frame"
			[ "$T_FAILS" = 0 ] || show "$T_DIR/t.fg"
			exit $((T_FAILS > 0))
		) || T_FAILS=$((T_FAILS + 1))
	done
}

test_stripped_binary() { # a stripped binary and library: exported names only, no lines, exact bytes
	tamper_copy || return
	strip "$T_DIR/bin/tamper" "$T_DIR/bin/libplugin.so"
	assert_no_grep <(readelf -S "$T_DIR/bin/tamper") '\.symtab' "stripped: the binary has no symbol table"
	tamper_launch || return
	# the maps are read again at most every 10 ms: let it see the library
	daemon_has_open "$TL_PID" "$T_DIR/bin/libplugin.so" 10 || return
	tamper_end "stripped" || return
	# main and site_tamper_alloc are in no dynamic symbol table
	assert_eq "$(grep -cE '(^|;)\[unknown\];\[unknown\] 1110$' "$T_DIR/t.fg")" 1 \
		"stripped: one folded line [unknown];[unknown] 1110 (site_tamper_alloc called from main)"
	assert_eq "$(grep -cE '(^|;)\[unknown\];plugin_alloc 2331$' "$T_DIR/t.fg")" 1 \
		"stripped: one folded line [unknown];plugin_alloc 2331 (exported by the library)"
	assert_grep "$T_DIR/t.out" ' plugin_alloc\+0x[0-9a-f]+ \(libplugin\.so\)$' \
		"stripped: plugin_alloc in the report, with no line"
	assert_grep "$T_DIR/t.out" ' \[unknown\] \(tamper\)$' "stripped: [unknown] frames of the binary, module kept"
	[ "$T_FAILS" = 0 ] || show "$T_DIR/t.fg"
}

test_stripped_libc() { # a libc copy with no symbol table, debug link or known build-id: [unknown] (libc.so.6) frames, exact bytes
	need_target basic || return
	local libc
	libc=$(ldd "$TB/basic" | awk '$1 == "libc.so.6" { print $3 }')
	mkdir -p "$T_DIR/lib"
	objcopy --remove-section=.gnu_debuglink "$libc" "$T_DIR/lib/libc.so.6" || {
		fail "cannot copy $libc"
		return
	}
	# another build-id: no debug file under /usr/lib/debug/.build-id matches
	# (the id follows the note's 16-byte header: sizes, type, "GNU")
	local note
	note=$(readelf -S -W "$T_DIR/lib/libc.so.6" | awk '{ for (i = 1; i < NF; i++) if ($i == ".note.gnu.build-id") print $(i + 3) }')
	printf '\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024' |
		dd of="$T_DIR/lib/libc.so.6" bs=1 seek=$((0x$note + 16)) conv=notrunc status=none
	assert_grep <(readelf -n "$T_DIR/lib/libc.so.6") 'Build ID: 0102030405060708090a0b0c0d0e0f1011121314' "stripped libc: build-id replaced"
	assert_no_grep <(readelf -S "$T_DIR/lib/libc.so.6") '\.symtab|\.gnu_debuglink' "stripped libc: no symbol table, no debug link"
	TL_ENV=(TL_EXPECT="$T_DIR/s.exp" LD_LIBRARY_PATH="$T_DIR/lib")
	tl_run s -i 0 -f "$T_DIR/s.fg" -- "$TB/basic"
	check_normal_end s '^target exited with status 0$' "stripped libc" || return
	assert_grep <(grep -A12 'top allocators' "$T_DIR/s.out") ' \[unknown\] \(libc\.so\.6\)$' "stripped libc: [unknown] frames in libc.so.6"
	assert_no_grep "$T_DIR/s.fg" '__libc_start_call_main' "stripped libc: no name known only from debug info"
	check_expect_file "$T_DIR/s.exp" "stripped libc" || return
	check_ledger "$T_DIR/s.exp" "$T_DIR/s.fg" live "stripped libc"
	assert_eq "$(fold_total "$T_DIR/s.fg")" "$SUM_LIVE_BYTES" "stripped libc: total of the folded file = the summary's live bytes"
}

test_deleted_binary() { # -p to a process whose binary was deleted, another file put in its place: [unknown] frames, exact bytes
	tamper_copy || return
	TGT_ENV=(TL_EXPECT="$T_DIR/t.exp")
	TB=$T_DIR/bin start_target tamper "$T_DIR/bin/libplugin.so" || return
	TAMPER_PID=$TGT_PID
	TAMPER_READY=$T_DIR/tamper.ready
	# a corrupt file where the binary was: what is mapped is the deleted one
	rm "$T_DIR/bin/tamper"
	head -c 20000 /dev/urandom >"$T_DIR/bin/tamper"
	assert_match "$(readlink "/proc/$TAMPER_PID/exe")" ' \(deleted\)$' "deleted: the target's binary is deleted"
	tl_bg t -i 0 -f "$T_DIR/t.fg" -p "$TAMPER_PID"
	wait_for_grep "$T_DIR/t.err" "^tracelloc: attached to pid $TAMPER_PID([^0-9]|$)" 30 "$TL_PID" || {
		fail "deleted: tracelloc did not attach"
		show "$T_DIR/t.err"
		return
	}
	tamper_step allocated || return
	tamper_end "deleted" '^target exited( with status 0)?$' || return
	assert_eq "$(grep -cE '(^|;)\[unknown\];\[unknown\] 1110$' "$T_DIR/t.fg")" 1 \
		"deleted: one folded line [unknown];[unknown] 1110 (site_tamper_alloc called from main)"
	assert_eq "$(grep -cE '(^|;)\[unknown\];plugin_alloc 2331$' "$T_DIR/t.fg")" 1 \
		"deleted: one folded line [unknown];plugin_alloc 2331 (the library is intact)"
	assert_eq "$(fold_sum "$T_DIR/t.fg" site_tamper_alloc)" 0 "deleted: site_tamper_alloc is not named"
	[ "$T_FAILS" = 0 ] || show "$T_DIR/t.fg"
}

test_sigusr1() { # SIGUSR1 writes the output files while tracing goes on
	need_target sleeper || return
	tl_bg u -i 0 -f "$T_DIR/u.fg" --svg "$T_DIR/u.svg" -- "$TB/sleeper" 8
	if ! wait_for_grep "$T_DIR/u.err" 'attached to pid' 10 "$TL_PID"; then
		fail "sigusr1: tracelloc did not attach"
		return
	fi
	assert_eq "$(ls "$T_DIR"/u.fg "$T_DIR"/u.svg 2>/dev/null | wc -l)" 0 "sigusr1: no output before the signal"
	kill -USR1 "$TL_PID"
	# written while tracing goes on: a moment, longer under the sanitizers
	for _ in $(seq 100); do
		[ -s "$T_DIR/u.fg" ] && [ -s "$T_DIR/u.svg" ] && break
		sleep 0.1
	done
	assert_file "$T_DIR/u.fg" "sigusr1: folded file written on SIGUSR1"
	assert_file "$T_DIR/u.svg" "sigusr1: SVG written on SIGUSR1"
	pid_alive "$TL_PID" || fail "sigusr1: tracelloc stopped on SIGUSR1"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20 || fail "sigusr1: tracelloc did not end on SIGINT"
	assert_eq "$WAIT_RC" 0 "sigusr1: exit status after SIGINT"
}

test_lost_events() { # a stalled consumer and a 4 KiB ring buffer: drops are counted, seen + lost = made
	need_target churn || return
	local ref lost_allocs
	# the same deterministic run with a consumer that keeps up
	tl_run ref -i 0 -- "$TB/churn" 4000
	parse_summary "$T_DIR/ref.out" || return
	ref=$SUM_CALLS
	assert_eq "$SUM_LOST" 0 "lost events: reference run"
	tl_bg lost -i 0 -b 4096 -- "$TB/churn" 4000
	if ! wait_for_grep "$T_DIR/lost.err" 'attached to pid' 10 "$TL_PID"; then
		fail "lost events: tracelloc did not attach"
		return
	fi
	# the target allocates on while the daemon cannot read: the ring overflows
	kill -STOP "$TL_PID"
	sleep 1
	kill -CONT "$TL_PID"
	if ! wait_pid "$TL_PID" 60; then
		fail "lost events: tracelloc did not end"
		return
	fi
	assert_eq "$WAIT_RC" 0 "lost events: tracelloc's exit status"
	parse_summary "$T_DIR/lost.out" || return
	assert_int_ge "$SUM_LOST" 1 "lost events: drops counted while the consumer was stopped"
	lost_allocs=$(sed -nE 's/^ *lost events: [0-9]+ \(([0-9]+) allocations.*/\1/p' "$T_DIR/lost.out")
	assert_int_ge "$lost_allocs" 1 "lost events: allocation records dropped"
	assert_eq "$((SUM_CALLS + lost_allocs))" "$ref" "lost events: allocation calls seen + lost = calls made"
}
