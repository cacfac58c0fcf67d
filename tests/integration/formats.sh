# shellcheck shell=bash
# tests/integration/formats.sh - what the outputs look like (sourced by tests/integration.sh)

# check_folded_format FILE WHAT: frames outermost first joined by ';', one
# space, an integer > 0; no '+0x' offsets or addresses; no empty frames; no
# duplicate stacks; sorted by value, largest first; every site_* frame is
# the leaf (the function that called the allocator).
check_folded_format() {
	local fg=$1 what=$2 errs
	assert_file "$fg" "$what: folded file" || return
	errs=$(awk '
		function bad(msg) { if (nbad++ < 8) print "line " NR ": " msg ": " substr($0, 1, 160) }
		{
			if (!match($0, /^.+ [0-9]+$/)) { bad("not \"stack value\""); next }
			match($0, / [0-9]+$/)
			stack = substr($0, 1, RSTART - 1)
			val = substr($0, RSTART + 1) + 0
			if (val <= 0) bad("value not > 0")
			if (seen[stack]++) bad("stack appears twice")
			if (NR > 1 && val > prev) bad("not sorted by value (largest first)")
			prev = val
			if (stack ~ /^;/ || stack ~ /;$/ || stack ~ /;;/) bad("empty frame")
			n = split(stack, fr, ";")
			for (i = 1; i <= n; i++) {
				f = fr[i]
				if (f ~ /\+0x/) bad("frame with an offset \"" f "\"")
				else if (f ~ /0x[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]/ ||
					 (f ~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]+$/ && f ~ /[0-9]/))
					bad("frame with an address \"" f "\"")
				if (f ~ /^[ \t]|[ \t]$/) bad("frame with leading/trailing blanks \"" f "\"")
				if (f ~ /^site_/ && i != n) bad("site frame \"" f "\" is not the leaf")
			}
		}
		END { if (nbad) print nbad " problem(s)" }' "$fg")
	if [ -n "$errs" ]; then
		fail "$what: folded format"
		printf '%s\n' "$errs" | sed 's/^/      | /'
	fi
	# the file ends with a newline
	[ -z "$(tail -c1 "$fg")" ] || fail "$what: last line not terminated by a newline"
}

test_folded_format() { # format rules, outermost-first order, atomic write (no temp files, old file replaced)
	need_target basic || return
	need_target cxx || return
	local d=$T_DIR/outdir line
	mkdir -p "$d"
	# a previous file at the same path is replaced, not appended to
	echo "stale;old_stack 999999999" >"$d/basic.fg"
	tl_run b -m count -f "$d/basic.fg" -- "$TB/basic"
	check_normal_end b '^target exited with status 0$' "basic -m count" || return
	check_folded_format "$d/basic.fg" "basic -m count"
	assert_no_grep "$d/basic.fg" 'old_stack' "basic: the old file was replaced"
	assert_no_grep "$d/basic.fg" '^==> summary|allocation calls' "basic: no summary text in the folded file"
	# outermost first: main before the site, the site last
	line=$(grep -E '(^|;)site_malloc_leak [0-9]+$' "$d/basic.fg" | head -n1)
	assert_match "$line" '(^|;)main;site_malloc_leak 5$' "basic: stack of site_malloc_leak (outermost first, leaf last)"
	tl_run c -m allocated -f "$d/cxx.fg" -- "$TB/cxx"
	check_normal_end c '^target exited with status 0$' "cxx -m allocated" || return
	check_folded_format "$d/cxx.fg" "cxx -m allocated"
	# no temp files left behind: the directory holds exactly the two files
	local left
	left=$(cd "$d" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ')
	assert_eq "$left" "basic.fg cxx.fg " "files in the output directory"
}
