# shellcheck shell=bash
# tests/integration/endings.sh - how a run ends: signals, durations, exits, closed outputs (sourced by tests/integration.sh)

test_exit_status() { # "target exited with status 3", tracelloc itself exits 0
	need_target exitcode || return
	TL_ENV=(TL_EXPECT="$T_DIR/e.exp")
	tl_run e -f "$T_DIR/e.fg" -- "$TB/exitcode" 3
	check_normal_end e '^target exited with status 3$' "exitcode 3" || return
	check_expect_file "$T_DIR/e.exp" "exitcode 3"
	assert_eq "$(fold_sum "$T_DIR/e.fg" site_exit_alloc)" 4444 "exitcode 3: live bytes of site_exit_alloc"
	check_invariant "exitcode 3"
}

test_killed_by_signal() { # "target killed by signal 9", folded file still written
	need_target exitcode || return
	TL_ENV=(TL_EXPECT="$T_DIR/e.exp")
	tl_run e -f "$T_DIR/e.fg" -- "$TB/exitcode" signal 9
	check_normal_end e '^target killed by signal 9$' "exitcode signal 9" || return
	check_expect_file "$T_DIR/e.exp" "exitcode signal 9"
	assert_eq "$(fold_sum "$T_DIR/e.fg" site_exit_alloc)" 4444 "exitcode signal 9: live bytes of site_exit_alloc"
}

test_output_passthrough() { # the target's stdout/stderr pass through untouched
	need_target exitcode || return
	TL_ENV=(TL_SAY="hello-from-target-$$")
	tl_run p -- "$TB/exitcode" 0
	check_normal_end p '^target exited with status 0$' "passthrough" || return
	assert_grep "$T_DIR/p.out" "^hello-from-target-$$\$" "passthrough: target's stdout line on stdout"
	assert_grep "$T_DIR/p.err" "^hello-from-target-$$ \\(stderr\\)\$" "passthrough: target's stderr line on stderr"
}

test_duration_launch() { # --duration 1 in launch mode ends after ~1 s with "duration elapsed"
	need_target sleeper || return
	local t0 el
	t0=$(now_ns)
	tl_run d --duration 1 -f "$T_DIR/d.fg" -- "$TB/sleeper" 20
	el=$(secs_since "$t0")
	check_normal_end d '^duration elapsed$' "-d 1" || return
	assert_between "$el" 0.9 8 "-d 1: wall time of the whole run (s)"
	assert_between "$SUM_TRACED" 0.9 2.5 "-d 1: 'traced S s' in the summary"
	assert_eq "$(fold_sum "$T_DIR/d.fg" site_sleeper_start)" 4096 "-d 1: live bytes of site_sleeper_start"
	check_invariant "-d 1"
	if _is_int "$SUM_PID" && pid_alive "$SUM_PID"; then
		note "the launched target was left running after --duration (killed by the test)"
		kill -KILL "$SUM_PID" 2>/dev/null
	fi
}

test_duration_attach() { # -d 1 -p PID ends after ~1 s and leaves the target running
	need_target sleeper || return
	local t0 el
	start_target sleeper 20 || return
	t0=$(now_ns)
	tl_run d -d 1 -f "$T_DIR/d.fg" -p "$TGT_PID"
	el=$(secs_since "$t0")
	check_normal_end d '^duration elapsed$' "-d 1 -p" || return
	assert_eq "$SUM_PID" "$TGT_PID" "-d 1 -p: summary pid"
	assert_between "$el" 0.9 8 "-d 1 -p: wall time of the whole run (s)"
	assert_between "$SUM_TRACED" 0.9 2.5 "-d 1 -p: 'traced S s' in the summary"
	# the sleeper allocates and frees a block every 20 ms: ~50 calls in 1 s
	assert_int_ge "$SUM_CALLS" 10 "-d 1 -p: allocation calls seen in 1 s"
	# its 4096-byte block was allocated before attach: not in the file
	assert_eq "$(fold_sum "$T_DIR/d.fg" site_sleeper_start)" 0 "-d 1 -p: pre-attach block not in the folded file"
	sleep 0.2
	pid_alive "$TGT_PID" || fail "-d 1 -p: the target died when tracelloc detached"
}

# signal_test SIG: launch the sleeper, send SIG to tracelloc once the target
# has made its first allocation; tracelloc must write the folded file and the
# summary and exit 0.
signal_test() {
	local sig=$1 what="SIG$1" ready=$T_DIR/s.ready
	need_target sleeper || return
	TL_ENV=(TL_READY="$ready")
	tl_bg s -f "$T_DIR/s.fg" -- "$TB/sleeper" 20
	if ! wait_for_grep "$ready" '^ready [0-9]+$' 20 "$TL_PID"; then
		fail "$what: the target never got ready (tracelloc ended, or 20 s passed)"
		show "$T_DIR/s.err"
		return
	fi
	sleep 0.3
	kill -"$sig" "$TL_PID"
	wait_pid "$TL_PID" 20 || fail "$what: tracelloc did not end within 20 s"
	TL_RC=$WAIT_RC
	local tpid
	tpid=$(awk '{ print $2 }' "$ready")
	check_normal_end s '^interrupted$' "$what" || return
	assert_eq "$SUM_PID" "$tpid" "$what: summary pid"
	assert_file "$T_DIR/s.fg" "$what: folded file"
	assert_eq "$(fold_sum "$T_DIR/s.fg" site_sleeper_start)" 4096 "$what: live bytes of site_sleeper_start"
	assert_int_ge "$(fold_sum "$T_DIR/s.fg" main)" 4096 "$what: live bytes under main"
	check_invariant "$what"
	if pid_alive "$tpid"; then
		kill -KILL "$tpid" 2>/dev/null
	fi
}

test_sigint() { # SIGINT: folded file + summary ("interrupted"), exit 0
	signal_test INT
}

test_sigterm() { # SIGTERM: folded file + summary ("interrupted"), exit 0
	signal_test TERM
}

# periodic_lines NAME: the periodic lines, "[  1.2s] live: ..." (the final
# report and the summary also mention live blocks, but not in that form)
periodic_lines() {
	grep -cE '^\[ *[0-9]+\.[0-9]s\] live: ' "$T_DIR/$1.out"
}

test_interval() { # -i 0.25 prints periodic lines, -i 0 none
	need_target sleeper || return
	local n
	tl_run on -i 0.25 -- "$TB/sleeper" 1.3
	check_normal_end on '^target exited with status 0$' "-i 0.25" || return
	n=$(periodic_lines on)
	assert_int_ge "$n" 3 "-i 0.25 over 1.3 s: periodic 'live' lines (stdout+stderr, before the summary)"
	tl_run off -i 0 -- "$TB/sleeper" 1.3
	check_normal_end off '^target exited with status 0$' "-i 0" || return
	n=$(periodic_lines off)
	assert_eq "$n" 0 "-i 0: periodic 'live' lines"
}
