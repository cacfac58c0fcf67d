# shellcheck shell=bash
# tests/integration/runtimes.sh - the frames of interpreters, named as their programs know them (sourced by tests/integration.sh)

# the CPython interpreters to try: Debian's (scripts/install-deps.sh's
# python3), and pyenv's 3.11 and 3.12 where the machine has them
python_interpreters() {
	local p
	[ -x /usr/bin/python3.11 ] && echo /usr/bin/python3.11
	for p in /root/.pyenv/versions/3.11.*/bin/python3.11 /root/.pyenv/versions/3.12.*/bin/python3.12; do
		[ -x "$p" ] && echo "$p"
	done
}

# go tool pprof -raw, nothing fetched
gopprof_raw() {
	env HOME="$T_DIR" GOTOOLCHAIN=local GOPROXY=off GOFLAGS= GOCACHE="$T_DIR/gocache" \
		PPROF_TMPDIR="$T_DIR/pprof" timeout 60 go tool pprof -symbolize=none -raw "$1"
}

# py_sum FOLDED FN: the value of the stacks whose innermost Python frame is
# FN at the bytearray's allocation (PyByteArray_Resize under it)
py_sum() {
	FN=$2 awk '
		{
			if (!match($0, / [0-9]+$/)) next
			val = substr($0, RSTART + 1) + 0
			if (index($0, ";" ENVIRON["FN"] ";") && index($0, "PyByteArray_Resize")) s += val
		}
		END { printf "%.0f\n", s }' "$1"
}

# py_ledger_check NAME WHAT: tracelloc's NAME.fg (-m allocated) and NAME-c.fg
# (-m count) against the ledger the program printed in NAME.out
py_ledger_check() {
	local name=$1 what=$2 fn bytes count line depth
	while read -r _ fn bytes count line; do
		assert_eq "$(py_sum "$T_DIR/$name.fg" "$fn")" "$bytes" "$what: bytes allocated in $fn"
		[ -f "$T_DIR/$name-c.fg" ] &&
			assert_eq "$(py_sum "$T_DIR/$name-c.fg" "$fn")" "$count" "$what: calls in $fn"
	done < <(grep '^LEDGER ' "$T_DIR/$name.out")
	[ "$(grep -c '^LEDGER ' "$T_DIR/$name.out")" = 4 ] || fail "$what: the program printed no ledger"
	# the Python frames stand in order, from the module to the function
	assert_grep "$T_DIR/$name.fg" '(^|;)<module>;main;small_blocks;' "$what: <module>;main;small_blocks in order"
	assert_grep "$T_DIR/$name.fg" '(^|;)<module>;main;Cache\.fill;' "$what: a method by its qualified name (Cache.fill)"
	# 151 frames of recurse: deeper than a native stack's 127
	depth=$(awk '/PyByteArray_Resize/ && /;recurse;/ { n = gsub(/;recurse;/, ";recurse;"); c = split($0, f, ";"); k = 0; for (i = 1; i <= c; i++) if (f[i] == "recurse") k++; print k; exit }' "$T_DIR/$name.fg")
	assert_eq "$depth" 151 "$what: every frame of a recursion 151 deep"
}

# py_pymalloc_check NAME PY WHAT: the objects pymalloc serves from its pools
# are allocations (exact) where its entry points are the way in: a
# libpython.so's; where its callers inline it (Debian's LTO build of
# /usr/bin/python3.11), the attach line says so
py_pymalloc_check() {
	local name=$1 py=$2 what=$3 fn bytes count
	read -r _ fn bytes count _ < <(grep '^PYMALLOC ' "$T_DIR/$name.out")
	[ -n "$fn" ] || {
		fail "$what: the program printed no PYMALLOC line"
		return
	}
	if [ "$py" = /usr/bin/python3.11 ]; then
		assert_grep "$T_DIR/$name.err" "pymalloc inlined in python3\.11 .*PYTHONMALLOC=malloc" \
			"$what: the attach line says pymalloc is inlined, and what to do"
		return
	fi
	assert_grep "$T_DIR/$name.err" "pymalloc in libpython3\.[0-9]+\.so[.0-9]* \(${PY_PYMALLOC_FNS:-4} functions\)" \
		"$what: pymalloc probed, in libpython"
	assert_eq "$(py_sum "$T_DIR/$name.fg" "$fn")" "$bytes" "$what: bytes pymalloc served in $fn"
	[ -f "$T_DIR/$name-c.fg" ] &&
		assert_eq "$(py_sum "$T_DIR/$name-c.fg" "$fn")" "$count" "$what: pymalloc's calls in $fn"
	# its large blocks go back to malloc through its free: one free, not two
	assert_grep "$T_DIR/$name.out" "^ +unknown frees: 0 " "$what: no free seen twice"
}

test_python_frames() { # CPython 3.11 (Debian's, pyenv's) and 3.12 (pyenv's): Python function frames in place of the eval loop's, exact bytes and calls per function, lines, 151 deep; pprof's function, file and line
	local py n=0 ver
	while read -r py; do
		n=$((n + 1))
		ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
		tl_run py -i 0 -t 4 -s allocs -m allocated -f "$T_DIR/py.fg" --pprof "$T_DIR/py.pb.gz" -- "$py" "$REPO/tests/python/ledger.py" 150
		check_normal_end py '^target exited with status 0$' "python $ver ($py)" || continue
		tl_run py-c -i 0 -t 0 -m count -f "$T_DIR/py-c.fg" -- "$py" "$REPO/tests/python/ledger.py" 150
		py_ledger_check py "python $ver ($py)"
		py_pymalloc_check py "$py" "python $ver ($py)"
		assert_grep "$T_DIR/py.out" "^ +python stacks: [1-9][0-9]* \\(cut at 256 Python frames: 0, frames lost: 0," \
			"python $ver: the summary counts the stacks with Python frames, none cut or lost"
		# the report names the function and its line in the script
		line=$(awk '$2 == "small_blocks" { print $5 }' "$T_DIR/py.out")
		tl_run pyr -i 0 -t 1 -s allocs -I '^small_blocks$' -- "$py" "$REPO/tests/python/ledger.py" 150
		assert_grep "$T_DIR/pyr.out" "^ +\[python\] small_blocks .*tests/python/ledger\.py:$line\$" \
			"python $ver: the report's frame of small_blocks, at its line"
		gopprof_raw "$T_DIR/py.pb.gz" >"$T_DIR/py.raw" 2>&1 || {
			fail "python $ver: go tool pprof -raw failed"
			continue
		}
		assert_grep "$T_DIR/py.raw" " small_blocks [^ ]*tests/python/ledger\.py:$line s=" \
			"python $ver: pprof's location of small_blocks: function, script, line"
	done < <(python_interpreters)
	[ "$n" -gt 0 ] || fail "no CPython 3.11 or 3.12 here, and Debian's python3.11 cannot be installed"
}

test_python_frames_fp() { # --unwind fp through an interpreter built without frame pointers: the native stack ends early, the Python frames are whole all the same, exact
	local py
	py=$(python_interpreters | head -1)
	[ -n "$py" ] || {
		fail "no CPython 3.11 here"
		return
	}
	# --no-mmap: the interpreter's frame stack grows by mmap under recurse;
	# the bytearrays' blocks are realloc's (pymalloc's where it is probed),
	# the objects' headers and the list's growth other allocators'
	tl_run pyfp -i 0 -t 0 --unwind fp --no-mmap --allocator-frame -m allocated -f "$T_DIR/pyfp.fg" -- "$py" "$REPO/tests/python/ledger.py" 150
	check_normal_end pyfp '^target exited with status 0$' "python --unwind fp" || return
	local fn bytes
	while read -r _ fn bytes _ _; do
		assert_eq "$(awk -v fn="$fn" '{ if (!match($0, / [0-9]+$/)) next; v = substr($0, RSTART + 1); if ($0 ~ ("(^|;)<module>;main;(recurse;)*" fn ";.*;(PyObject_Realloc|realloc|malloc) [0-9]+$")) s += v } END { printf "%.0f\n", s }' "$T_DIR/pyfp.fg" | head -1)" \
			"$(( bytes ))" "python --unwind fp: bytes under <module>;main;$fn" ||
			show "$T_DIR/pyfp.fg"
	done < <(grep '^LEDGER ' "$T_DIR/pyfp.out")
}

test_python_deep() { # a Python stack deeper than 256 frames: its innermost 256 kept, the stack counted as cut
	local py
	py=$(python_interpreters | tail -1)
	[ -n "$py" ] || {
		fail "no CPython here"
		return
	}
	tl_run pydeep -i 0 -t 0 -m allocated -f "$T_DIR/pydeep.fg" -- "$py" "$REPO/tests/python/ledger.py" 300
	check_normal_end pydeep '^target exited with status 0$' "python, 301 deep" || return
	assert_grep "$T_DIR/pydeep.out" "^ +python stacks: [1-9][0-9]* \\(cut at 256 Python frames: [1-9]" \
		"python, 301 deep: the summary counts the cut stacks"
	assert_eq "$(awk '/PyByteArray_Resize/ && /;recurse;/ { n = gsub(/;recurse/, ";recurse"); print n, $NF }' "$T_DIR/pydeep.fg")" \
		"256 $(awk '$2 == "recurse" { print $3 }' "$T_DIR/pydeep.out")" \
		"python, 301 deep: the innermost 256 frames, the bytes under them"
}

test_python_pymalloc_stripped() { # a libpython with no symbol table: pymalloc probed at its API (PyObject_Malloc, ..., PyMem_Free), exact all the same
	local py lib
	py=$(python_interpreters | grep -m1 'pyenv.*3\.11')
	lib=$(dirname "$(dirname "$py")")/lib/libpython3.11.so.1.0
	[ -f "$lib" ] || {
		fail "no pyenv CPython 3.11 with its libpython here"
		return
	}
	mkdir -p "$T_DIR/stripped"
	strip --strip-all -o "$T_DIR/stripped/libpython3.11.so.1.0" "$lib" || {
		fail "strip failed"
		return
	}
	TL_ENV=(LD_LIBRARY_PATH="$T_DIR/stripped")
	tl_run pys -i 0 -t 0 -m allocated -f "$T_DIR/pys.fg" -- "$py" "$REPO/tests/python/ledger.py" 150
	check_normal_end pys '^target exited with status 0$' "python, stripped libpython" || return
	TL_ENV=(LD_LIBRARY_PATH="$T_DIR/stripped")
	tl_run pys-c -i 0 -t 0 -m count -f "$T_DIR/pys-c.fg" -- "$py" "$REPO/tests/python/ledger.py" 150
	py_ledger_check pys "python, stripped libpython"
	PY_PYMALLOC_FNS=8 py_pymalloc_check pys "$py" "python, stripped libpython"
}

test_python_pymalloc_debug() { # CPython's debug hooks (PYTHONMALLOC=debug, -X dev) take malloc's blocks inside pymalloc's free: pymalloc left unprobed, said, no free unknown
	local py
	py=$(python_interpreters | grep -m1 pyenv)
	[ -n "$py" ] || {
		fail "no pyenv CPython here (a libpython.so whose pymalloc is probed)"
		return
	}
	TL_ENV=(PYTHONMALLOC=debug)
	tl_run pyd -i 0 -t 0 -- "$py" "$REPO/tests/python/ledger.py" 20
	check_normal_end pyd '^target exited with status 0$' "PYTHONMALLOC=debug" || return
	assert_grep "$T_DIR/pyd.err" "pymalloc behind its debug hooks in libpython3\.[0-9]+\.so" \
		"PYTHONMALLOC=debug: the attach line says why pymalloc is not probed"
	assert_grep "$T_DIR/pyd.out" "^ +unknown frees: 0 " "PYTHONMALLOC=debug: no free unknown"
	tl_run pyx -i 0 -t 0 -- "$py" -X dev "$REPO/tests/python/ledger.py" 20
	check_normal_end pyx '^target exited with status 0$' "-X dev" || return
	assert_grep "$T_DIR/pyx.err" "pymalloc behind its debug hooks" "-X dev: pymalloc not probed, said"
	assert_grep "$T_DIR/pyx.out" "^ +unknown frees: 0 " "-X dev: no free unknown"
}

test_python_attach() { # -p of a running python: its Python frames from the attach on, exact
	local py pid
	py=$(python_interpreters | tail -1)
	[ -n "$py" ] || {
		fail "no CPython here"
		return
	}
	rm -f "$T_DIR/go"
	"$py" "$REPO/tests/python/ledger.py" 150 "$T_DIR/go" >"$T_DIR/pyp.out" 2>&1 &
	pid=$!
	wait_for_grep "$T_DIR/pyp.out" '^WAITING' 10 || {
		fail "python -p: the program did not start"
		kill "$pid" 2>/dev/null
		return
	}
	( sleep 1; touch "$T_DIR/go" ) &
	tl_run pyp-t -i 0 -t 0 -m allocated -f "$T_DIR/pyp.fg" -p "$pid"
	wait "$pid"
	check_normal_end pyp-t '^target exited$' "python -p" || return
	py_ledger_check pyp "python -p ($py)"
}

# node_sum FOLDED: the value of the stacks under JavaScript's makeBuffers
# (named from node's perf map, with its script, line and column) at node's
# array buffer allocator
node_sum() {
	awk '{
		if (!match($0, / [0-9]+$/)) next
		v = substr($0, RSTART + 1)
		if ($0 ~ /;JS:[~^*+]?makeBuffers [^;]*tests\/node\/ledger\.js:[0-9]+:[0-9]+;/ && $0 ~ /AllocateUninitialized/) s += v
	} END { printf "%.0f\n", s }' "$1"
}

test_node_frames() { # node's JIT frames named from its perf map, exact bytes and calls per JavaScript function; the attach line says how to name them where node was not told
	local pid fn bytes count
	command -v node >/dev/null || {
		fail "no node here"
		return
	}
	tl_run nd -i 0 -t 0 -m allocated -f "$T_DIR/nd.fg" -- node --perf-basic-prof --interpreted-frames-native-stack "$REPO/tests/node/ledger.js"
	check_normal_end nd '^target exited with status 0$' "node" || return
	pid=$(sed -n 's/^tracelloc: attached to pid \([0-9]*\):.*/\1/p' "$T_DIR/nd.err" | head -1)
	rm -f "/tmp/perf-$pid.map"
	tl_run nd-c -i 0 -t 0 -m count -f "$T_DIR/nd-c.fg" -- node --perf-basic-prof --interpreted-frames-native-stack "$REPO/tests/node/ledger.js"
	pid=$(sed -n 's/^tracelloc: attached to pid \([0-9]*\):.*/\1/p' "$T_DIR/nd-c.err" | head -1)
	rm -f "/tmp/perf-$pid.map"
	read -r _ fn bytes count < <(grep '^LEDGER ' "$T_DIR/nd.out")
	[ -n "$fn" ] || {
		fail "node: the program printed no ledger"
		return
	}
	assert_eq "$(node_sum "$T_DIR/nd.fg")" "$bytes" "node: bytes allocated under $fn"
	assert_eq "$(node_sum "$T_DIR/nd-c.fg")" "$count" "node: calls under $fn"
	assert_grep "$T_DIR/nd.fg" ';JS:[~^*+]?handler [^;]*ledger\.js:[0-9]+:[0-9]+;JS:[~^*+]?makeBuffers ' \
		"node: the JavaScript frames in order, caller first"
	assert_grep "$T_DIR/nd.fg" '(^|;)Builtins_JSEntry;' "node: V8's builtins named"
	assert_grep "$T_DIR/nd.err" 'V8 in node \(its JIT frames named from its perf map\)' \
		"node: the attach line says where the names come from"
	# not told to write its map: the attach line says how
	tl_run nd-no -i 0 -t 0 -- node "$REPO/tests/node/ledger.js"
	assert_grep "$T_DIR/nd-no.err" 'V8 in node \(its JIT frames unnamed: start it with --perf-basic-prof --interpreted-frames-native-stack' \
		"node with no perf map: the attach line says how to name its JIT frames"
}
