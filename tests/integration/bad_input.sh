# shellcheck shell=bash
# tests/integration/bad_input.sh - bad input: one line, a non-zero exit, nothing run (sourced by tests/integration.sh)

# a command that leaves a marker file if it is run at all
marker_cmd() {
	MARKER=$T_DIR/marker
	rm -f "$MARKER"
	TL_ENV=(TL_EXPECT="$MARKER")
}

test_bad_no_such_pid() { # -p PID of no process
	local pid
	pid=$(sh -c 'echo $$')
	kill -0 "$pid" 2>/dev/null && {
		fail "pid $pid unexpectedly exists"
		return
	}
	bad_input "-p $pid (no such process)" -p "$pid"
}

test_bad_kernel_thread() { # -p 2 (kthreadd, a kernel thread)
	assert_eq "$(cat /proc/2/comm 2>/dev/null)" kthreadd "pid 2 is kthreadd"
	bad_input "-p 2 (kthreadd)" -p 2
}

test_bad_not_root() { # run as uid 65534 without capabilities (launch and -p)
	need_target exitcode || return
	command -v setpriv >/dev/null || {
		fail "setpriv (util-linux) not found"
		return
	}
	# copies in a directory the unprivileged user can reach (the checkout
	# may not be), which it can write to so that the marker would appear if
	# the command ran
	local d=$T_DIR/nobody
	mkdir -p "$d" && chmod 1777 "$d"
	if ! { cp "$TL" "$d/tracelloc" && cp "$TB/exitcode" "$d/exitcode" &&
		chmod 755 "$d/tracelloc" "$d/exitcode"; }; then
		fail "cannot copy tracelloc and the target to $d"
		return
	fi
	MARKER=$d/marker
	timeout -k 5 "$TL_TIMEOUT" env TL_EXPECT="$MARKER" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$d/tracelloc" -- "$d/exitcode" 0 >"$T_DIR/bad.out" 2>"$T_DIR/bad.err" </dev/null
	TL_RC=$?
	bad_input_check "not root"
	# and -p as well
	timeout -k 5 "$TL_TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$d/tracelloc" -p $$ >"$T_DIR/bad.out" 2>"$T_DIR/bad.err" </dev/null
	TL_RC=$?
	bad_input_check "not root, -p"
}

test_bad_unwritable_flamegraph() { # -f under /proc/nonexistent, under a file, naming a directory, in /sys
	need_target exitcode || return
	marker_cmd
	bad_input "-f /proc/nonexistent/x.fg" -f /proc/nonexistent/x.fg -- "$TB/exitcode" 0
	marker_cmd
	touch "$T_DIR/afile"
	bad_input "-f under a regular file" -f "$T_DIR/afile/x.fg" -- "$TB/exitcode" 0
	marker_cmd
	mkdir -p "$T_DIR/adir"
	bad_input "-f naming a directory" -f "$T_DIR/adir" -- "$TB/exitcode" 0
	marker_cmd
	bad_input "-f in read-only sysfs" -f /sys/tracelloc-test.fg -- "$TB/exitcode" 0
	[ ! -e /sys/tracelloc-test.fg ] || fail "a file appeared in /sys"
}

test_bad_foreign_symlink() { # -f through another user's symlink in a sticky world-writable dir: refused with one line, nothing written
	need_target exitcode || return
	local d=$T_DIR/sticky
	mkdir -p "$d" && chmod 1777 "$d"
	echo "precious" >"$T_DIR/victim"
	if ! { ln -s "$T_DIR/victim" "$d/out.fg" && ln -s "$T_DIR/new-file" "$d/new.fg" &&
		chown -h 65534 "$d/out.fg" "$d/new.fg"; }; then
		fail "foreign symlink: setup"
		return
	fi
	marker_cmd
	bad_input "-f through another user's symlink in a sticky dir" -f "$d/out.fg" -- "$TB/exitcode" 0
	assert_grep "$T_DIR/bad.err" "^tracelloc: will not follow $d/out.fg: " "foreign symlink: the line names the link"
	assert_eq "$(cat "$T_DIR/victim")" precious "foreign symlink: its target untouched"
	[ -L "$d/out.fg" ] || fail "foreign symlink: no longer a symlink"
	marker_cmd
	bad_input "--pprof through another user's dangling symlink" --pprof "$d/new.fg" -- "$TB/exitcode" 0
	[ ! -e "$T_DIR/new-file" ] || fail "foreign symlink: a file was created where it points"
}

test_bad_block_device() { # -f naming a block device: refused with one line
	need_target exitcode || return
	# local major 240: no driver, nothing to harm even if it were opened
	mknod "$T_DIR/disk" b 240 0 || {
		fail "block device: mknod"
		return
	}
	marker_cmd
	bad_input "-f a block device" -f "$T_DIR/disk" -- "$TB/exitcode" 0
	assert_grep "$T_DIR/bad.err" "block device" "block device: the line says why"
	assert_eq "$(stat -c %F "$T_DIR/disk")" "block special file" "block device: still one"
}

test_bad_two_stdout() { # two outputs to standard output (-f - --svg /dev/stdout): refused with one line
	need_target exitcode || return
	marker_cmd
	bad_input "-f - --svg /dev/stdout" -f - --svg /dev/stdout -- "$TB/exitcode" 0
	assert_grep "$T_DIR/bad.err" 'standard output' "two to stdout: the line says why"
}

test_bad_interval() { # -i abc, -i -1
	marker_cmd
	bad_input "-i abc" -i abc -- "$TB/exitcode" 0
	marker_cmd
	bad_input "-i -1" -i -1 -- "$TB/exitcode" 0
}

test_bad_duration() { # -d -1, -d abc
	marker_cmd
	bad_input "-d -1" -d -1 -- "$TB/exitcode" 0
	marker_cmd
	bad_input "-d abc" -d abc -- "$TB/exitcode" 0
}

test_bad_pid_zero() { # -p 0
	bad_input "-p 0" -p 0
}

test_bad_pid_text() { # -p abc, -p 12abc
	bad_input "-p abc" -p abc
	bad_input "-p 12abc" -p 12abc
}

test_bad_pid_and_command() { # -p PID together with a command
	marker_cmd
	bad_input "-p PID -- COMMAND" -p $$ -- "$TB/exitcode" 0
}

test_bad_unknown_flag() { # --no-such-flag, -Z
	marker_cmd
	bad_input "--no-such-flag" --no-such-flag -- "$TB/exitcode" 0
	marker_cmd
	bad_input "-Z" -Z -- "$TB/exitcode" 0
}

test_bad_metric() { # -m bogus
	marker_cmd
	bad_input "-m bogus" -m bogus -f "$T_DIR/x.fg" -- "$TB/exitcode" 0
}

test_bad_ringbuf_size() { # -b abc, -b 3000
	marker_cmd
	bad_input "-b abc" -b abc -- "$TB/exitcode" 0
	marker_cmd
	bad_input "-b 3000 (not a power of two)" -b 3000 -- "$TB/exitcode" 0
}

test_bad_no_target() { # neither -p nor a command
	bad_input "no -p and no command"
}

test_bad_command_not_found() { # a command that does not exist / is not executable
	bad_input "-- /nonexistent/command" -- /nonexistent/command
	: >"$T_DIR/not-executable"
	chmod 644 "$T_DIR/not-executable"
	bad_input "-- a file that is not executable" -- "$T_DIR/not-executable"
}

test_bad_other_allocator() { # a process whose malloc comes from another library (LD_PRELOAD): refused with one line
	need_target sleeper || return
	cat >"$T_DIR/bump.c" <<'EOF_C'
#include <stddef.h>
#include <string.h>
static char arena[1 << 22];
static size_t used;
void *malloc(size_t n) { void *p = arena + used; used += (n + 15) & ~(size_t)15; return used <= sizeof(arena) ? p : NULL; }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) { void *p = malloc(a * b); if (p) memset(p, 0, a * b); return p; }
void *realloc(void *old, size_t n) { void *p = malloc(n); if (p && old) memcpy(p, old, n); return p; }
EOF_C
	gcc -shared -fPIC -O1 -o "$T_DIR/libbump.so" "$T_DIR/bump.c" 2>"$T_DIR/gcc.err" ||
		{ fail "other allocator: cannot build libbump.so"; show "$T_DIR/gcc.err"; return; }
	TGT_ENV=(LD_PRELOAD="$T_DIR/libbump.so")
	start_target sleeper 20 || return
	bad_input "-p PID of a process whose malloc is libbump.so" -p "$TGT_PID"
	assert_grep "$T_DIR/bad.err" 'libbump\.so' "other allocator: the line names the library"
	pid_alive "$TGT_PID" || fail "other allocator: the target died"
	kill -KILL "$TGT_PID" 2>/dev/null
	wait "$TGT_PID" 2>/dev/null
}

test_bad_nolibc() { # a process with no allocator tracelloc could recognise
	need_target nolibc || return
	"$TB/nolibc" </dev/null >/dev/null 2>&1 &
	local pid=$!
	register_pid "$pid"
	sleep 0.1
	pid_alive "$pid" || {
		fail "nolibc target did not start"
		return
	}
	bad_input "-p PID of a program without libc" -p "$pid"
	pid_alive "$pid" || fail "nolibc target died"
}
