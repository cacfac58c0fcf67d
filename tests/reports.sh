#!/bin/bash
# tests/reports.sh - tests of the report, symbolization and filters
# (--top, --sort, --min-age, --exclude, --include,
# --no-default-filters, --allocator-frame, demangled names, file:line,
# inlined frames) against targets that know their own ledgers and lines:
#
#   symbols   (tests/targets/symbols.cpp)  C++ namespaces, templates, a lambda,
#             overloads, an always_inline helper
#   inline    (tests/targets/inline.c)     malloc in always_inline helpers two deep
#   leaky     (tests/targets/leaky.rs)     Rust, legacy mangling; leaky_v0: v0 mangling
#   ranks     (tests/targets/ranks.c)      allocators that each --sort key orders differently
#   aging     (tests/targets/aging.c)      blocks allocated 1.5 s apart
#   sleeper   (tests/targets/sleeper.c)    runs for a while (periodic output)
#
#   tests/reports.sh            run every test
#   tests/reports.sh REGEX      run the tests whose name matches REGEX
#   tests/reports.sh -l         list the tests
#   TL_KEEP=1 tests/reports.sh  keep every run's output (path printed)
#
# Needs root, $REPO/tracelloc and $REPO/build/tests/* (make tracelloc targets;
# the Rust targets need rustc).  Ends with the line "N passed, N failed"
# (tests, not assertions) and exits non-zero if a test failed.

cd "$(dirname "$0")/.." || exit 2
# shellcheck source=tests/lib.sh
. tests/lib.sh
# shellcheck source=tests/reports_lib.sh
. tests/reports_lib.sh

# ================================================================ names

test_cxx_names() { # demangled C++ names (namespace, class template, template fn, lambda, overloads) in folded and report; no _Z left
	need_target symbols || return
	traced n symbols -t 20 -m count
	run_ok n "symbols" || return
	local id name tail want got bad
	for id in $CXX_IDS; do
		name=${CXX_NAME[$id]}
		tail=${CXX_TAIL[$id]}
		want=$(ledger_value "$T_DIR/n.exp" count "$id")
		got=$(fold_tail_sum "$T_DIR/n.fg" "$tail")
		if ! assert_eq "$got" "$want" "symbols: folded count of the stacks ending in '$tail'"; then
			fold_lines "$T_DIR/n.fg" main | head -12 | cut -c1-200 | sed 's/^/      | /'
		fi
		# the report shows the function as "NAME+0xOFF (symbols)"
		grep -qF -- " $name+0x" "$T_DIR/n.out" ||
			fail "symbols: no frame '$name+0x...' in the report"
		report_functions "$T_DIR/n.out" | grep -qxF -- "$name" ||
			fail "symbols: no frame of function '$name' in the final report"
	done
	# two instantiations, two names; each overload its own name
	assert_ne "$(fold_sum "$T_DIR/n.fg" 'zoo::Shelf<long>::stock()')" \
		"$(fold_sum "$T_DIR/n.fg" 'zoo::Shelf<short>::stock()')" "symbols: Shelf<long> and Shelf<short> told apart"
	bad=$(fold_frames "$T_DIR/n.fg" | grep -E '^_Z' | sort -u | head -5 | tr '\n' ' ')
	assert_eq "$bad" "" "symbols: mangled frames left in the folded output"
	bad=$(report_functions "$T_DIR/n.out" | grep -E '^_Z' | sort -u | head -5 | tr '\n' ' ')
	assert_eq "$bad" "" "symbols: mangled frames left in the report"
	bad=$(grep -oE '(^|[ ;])_Z[A-Za-z0-9_]+' "$T_DIR/n.out" | head -3 | tr '\n' ' ')
	assert_eq "$bad" "" "symbols: mangled names anywhere on stdout"
}

# rust_names BUILD MAP: Rust names demangled, no hash, mangling-specific names
rust_names() {
	local bin=$1 what=$1 id name got bad
	local -n map=$2
	need_rust "$bin" || return
	traced n "$bin" -t 40 -m live
	run_ok n "$what" || return
	for id in $RUST_IDS; do
		name=${map[$id]}
		got=$(fold_sum "$T_DIR/n.fg" "$(folded_name "$name")")
		assert_int_ge "$got" 1 "$what: live bytes under the frame '$(folded_name "$name")' in the folded output"
		report_functions "$T_DIR/n.out" | grep -qxF -- "$name" ||
			fail "$what: no frame of function '$name' in the final report"
	done
	# sites called by main itself have leaky::main as their caller
	for id in exact_vec keeper boxed_u64 grow greeting zeroed churn closure; do
		name=$(folded_name "${map[$id]}")
		assert_eq "$(fold_parents "$T_DIR/n.fg" "$name" | tr '\n' ' ')" "leaky::main " "$what: caller of '$name'"
	done
	# the sites of leaky::shims are called by a closure, inlined into its
	# caller (the Box<dyn FnOnce>'s vtable shim, catch_unwind's harness, the
	# thread's start; addr2line -i shows it): the closure is their caller,
	# and with the runtime frames hidden the function of the closure is above it
	local clo=${map[closure]##*::} s
	for s in boxed caught thread; do
		assert_eq "$(fold_parents "$T_DIR/n.fg" "leaky::shims::${s}_work" | tr '\n' ' ')" "leaky::shims::run_$s::${clo}_[i] " \
			"$what: caller of leaky::shims::${s}_work (its closure, inlined)"
		report_functions "$T_DIR/n.out" | grep -qxF -- "leaky::shims::run_$s::$clo" ||
			fail "$what: no frame of function 'leaky::shims::run_$s::$clo' in the final report"
	done
	for s in boxed caught; do
		assert_eq "$(fold_parents "$T_DIR/n.fg" "leaky::shims::${s}_work" 2 | tr '\n' ' ')" "leaky::shims::run_$s " \
			"$what: 2nd frame above leaky::shims::${s}_work (the closure's caller, runtime frames hidden)"
	done
	# no hash suffix, no crate disambiguator, nothing left mangled
	bad=$(grep -oE '::h[0-9a-f]{16}' "$T_DIR/n.fg" "$T_DIR/n.out" | head -3 | tr '\n' ' ')
	assert_eq "$bad" "" "$what: '::h<hash>' suffixes"
	bad=$(grep -oE '\[[0-9a-f]{16}\]' "$T_DIR/n.fg" "$T_DIR/n.out" | head -3 | tr '\n' ' ')
	assert_eq "$bad" "" "$what: v0 crate disambiguators '[<hash>]'"
	bad=$({
		fold_frames "$T_DIR/n.fg"
		report_functions "$T_DIR/n.out"
	} | grep -E '^_(ZN|R)[0-9A-Za-z_]' | sort -u | head -3 | tr '\n' ' ')
	assert_eq "$bad" "" "$what: mangled frames"
}

test_rust_names_legacy() { # Rust (legacy mangling): names demangled without ::h<hash> in folded and report
	rust_names leaky RUST_LEGACY
}

test_rust_names_v0() { # Rust (v0 mangling): <Keeper>::new, leak_boxed::<u64>, {closure#0}, [u16; 3] in the report
	rust_names leaky_v0 RUST_V0
	# the array type keeps its ';' in the report (the folded format writes ':')
	[ -f "$T_DIR/n.out" ] || return
	grep -qF -- ' leaky::gen::leak_boxed::<[u16; 3]>+0x' "$T_DIR/n.out" ||
		fail "leaky_v0: no frame 'leaky::gen::leak_boxed::<[u16; 3]>+0x...' in the report"
}

# ================================================================ ledgers

# rust_ledger BUILD MAP: every metric, every site, exact
rust_ledger() {
	local bin=$1 m what
	need_rust "$bin" || return
	for m in $ALL_METRICS; do
		what="$bin -m $m"
		traced "$m" "$bin" -m "$m"
		run_ok "$m" "$what" || continue
		named_ledger "$T_DIR/$m.exp" "$2" "$T_DIR/$m.led"
		check_named_ledger "$T_DIR/$m.led" "$T_DIR/$m.fg" "$m" "$what"
		assert_eq "$SUM_UNKNOWN" 0 "$what: unknown frees"
		check_invariant "$what"
		assert_eq "$(fold_total "$T_DIR/$m.fg")" "$(summary_for_metric "$m")" \
			"$what: total of the folded file = the summary's $m"
	done
	# the growth really went through reallocs, the Box / forget / leak sites
	# are there
	[ -f "$T_DIR/count.exp" ] || return
	assert_int_ge "$(ledger_value "$T_DIR/count.exp" count grow)" 3 "$bin: allocation calls of the growing Vec"
	assert_eq "$(ledger_value "$T_DIR/count.exp" live-count grow)" 1 "$bin: live blocks of the growing Vec"
	assert_eq "$(ledger_value "$T_DIR/count.exp" live exact_vec)" 1600 "$bin: live bytes of exact_vec (2 x 100 x u64)"
}

test_rust_ledger_legacy() { # leaky: per-function live/live-count/allocated/count exact (Vec growth, Box::leak, forget, String, closure, thread)
	rust_ledger leaky RUST_LEGACY
}

test_rust_ledger_v0() { # leaky_v0: the same ledger under the v0 names
	rust_ledger leaky_v0 RUST_V0
}

test_metrics_new_targets() { # each --flamegraph-metric on symbols, inline, ranks: ledgers exact, plus hand-written values
	need_target symbols || return
	need_target inline || return
	need_target ranks || return
	local t m what
	for t in symbols inline ranks; do
		for m in $ALL_METRICS; do
			what="$t -m $m"
			traced "$t-$m" "$t" --flamegraph-metric "$m"
			run_ok "$t-$m" "$what" || continue
			if [ "$t" = symbols ]; then
				named_ledger "$T_DIR/$t-$m.exp" CXX_NAME "$T_DIR/$t-$m.led"
				check_named_ledger "$T_DIR/$t-$m.led" "$T_DIR/$t-$m.fg" "$m" "$what"
			else
				check_ledger "$T_DIR/$t-$m.exp" "$T_DIR/$t-$m.fg" "$m" "$what"
			fi
			check_invariant "$what"
			assert_eq "$(fold_total "$T_DIR/$t-$m.fg")" "$(summary_for_metric "$m")" \
				"$what: total of the folded file = the summary's $m"
		done
	done
	# written here by hand, not taken from the targets' ledgers:
	# restock: 2 x malloc(100) through the inlined grab, one freed
	assert_eq "$(fold_sum "$T_DIR/symbols-live.fg" 'zoo::Pantry::restock(int)')" 100 "symbols live: restock"
	assert_eq "$(fold_sum "$T_DIR/symbols-live-count.fg" 'zoo::Pantry::restock(int)')" 1 "symbols live-count: restock"
	assert_eq "$(fold_sum "$T_DIR/symbols-allocated.fg" 'zoo::Pantry::restock(int)')" 200 "symbols allocated: restock"
	assert_eq "$(fold_sum "$T_DIR/symbols-count.fg" 'zoo::Pantry::restock(int)')" 2 "symbols count: restock"
	# pack(const char *): malloc(4) then realloc to 11 bytes
	assert_eq "$(fold_sum "$T_DIR/symbols-live.fg" 'zoo::pack(char const*)')" 11 "symbols live: pack(char const*)"
	assert_eq "$(fold_sum "$T_DIR/symbols-allocated.fg" 'zoo::pack(char const*)')" 15 "symbols allocated: pack(char const*)"
	assert_eq "$(fold_sum "$T_DIR/symbols-count.fg" 'zoo::pack(char const*)')" 2 "symbols count: pack(char const*)"
	# Shelf<long>: 2 x new long[16], one deleted
	assert_eq "$(fold_sum "$T_DIR/symbols-allocated.fg" 'zoo::Shelf<long>::stock()')" 256 "symbols allocated: Shelf<long>::stock()"
	# inline chain: 3 x malloc(64 + 16), one freed
	assert_eq "$(fold_sum "$T_DIR/inline-live.fg" site_inline_chain)" 160 "inline live: site_inline_chain"
	assert_eq "$(fold_sum "$T_DIR/inline-live-count.fg" site_inline_chain)" 2 "inline live-count: site_inline_chain"
	assert_eq "$(fold_sum "$T_DIR/inline-allocated.fg" site_inline_chain)" 240 "inline allocated: site_inline_chain"
	assert_eq "$(fold_sum "$T_DIR/inline-count.fg" site_inline_chain)" 3 "inline count: site_inline_chain"
	# churny: 200 x malloc(64), all but the last freed
	assert_eq "$(fold_sum "$T_DIR/ranks-live.fg" site_rank_churny)" 64 "ranks live: site_rank_churny"
	assert_eq "$(fold_sum "$T_DIR/ranks-live-count.fg" site_rank_churny)" 1 "ranks live-count: site_rank_churny"
	assert_eq "$(fold_sum "$T_DIR/ranks-allocated.fg" site_rank_churny)" 12800 "ranks allocated: site_rank_churny"
	assert_eq "$(fold_sum "$T_DIR/ranks-count.fg" site_rank_churny)" 200 "ranks count: site_rank_churny"
}

# ================================================================ file:line

test_cxx_lines() { # file:line of every frame (site, inlined helper, lambda, caller in main) = the lines symbols.cpp recorded
	need_target symbols || return
	traced l symbols -t 20
	run_ok l "symbols" || return
	local e=$T_DIR/l.exp id name want got sec
	L() { line_of "$e" "$1"; }
	declare -A want_of=(
		[shelf_long]="zoo::Shelf<long>::stock() (symbols) symbols.cpp:$(L stock)
main (symbols) symbols.cpp:$(L main_shelf_long)"
		[shelf_short]="zoo::Shelf<short>::stock() (symbols) symbols.cpp:$(L stock)
main (symbols) symbols.cpp:$(L main_shelf_short)"
		[many_double]="double* zoo::util::make_many<double>(unsigned long) (symbols) symbols.cpp:$(L make_many)
main (symbols) symbols.cpp:$(L main_many_double)"
		[many_int]="int* zoo::util::make_many<int>(unsigned long) (symbols) symbols.cpp:$(L make_many)
main (symbols) symbols.cpp:$(L main_many_int)"
		[restock]="[inlined] zoo::grab(unsigned long) (symbols) symbols.cpp:$(L grab)
zoo::Pantry::restock(int) (symbols) symbols.cpp:$(L restock_grab)
main (symbols) symbols.cpp:$(L main_restock)"
		[lambda]="zoo::feed(int)::{lambda(unsigned long)#1}::operator()(unsigned long) const (symbols) symbols.cpp:$(L lambda)
zoo::feed(int) (symbols) symbols.cpp:$(L feed_lambda)
main (symbols) symbols.cpp:$(L main_feed)"
		[pack_int]="zoo::pack(int) (symbols) symbols.cpp:$(L pack_int)
main (symbols) symbols.cpp:$(L main_pack_int)"
		[pack_double]="zoo::pack(double) (symbols) symbols.cpp:$(L pack_double)
main (symbols) symbols.cpp:$(L main_pack_double)"
		[pack_str]="zoo::pack(char const*) (symbols) symbols.cpp:$(L pack_str_realloc)
main (symbols) symbols.cpp:$(L main_pack_str)"
	)
	for id in $CXX_IDS; do
		name=${CXX_NAME[$id]}
		for sec in allocators allocations; do
			got=$(report_entry_frames "$T_DIR/l.out" "$sec" "$name" | upto_main)
			assert_frames "$got" "${want_of[$id]}" "symbols, $sec section: frames of the $name entry, up to main"
		done
	done
}

test_rust_lines() { # Rust: the frames of the site, the closure and main show the leaky.rs lines of their calls
	need_rust leaky || return
	traced l leaky -t 40
	run_ok l "leaky" || return
	local e=$T_DIR/l.exp got
	got=$(report_entry_frames "$T_DIR/l.out" allocators leaky::zoo::exact_vec | frame_pair leaky::zoo::exact_vec)
	assert_frames "$got" "leaky::zoo::exact_vec (leaky) leaky.rs:$(line_of "$e" exact_vec)
leaky::main (leaky) leaky.rs:$(line_of "$e" main_exact_vec)" \
		"leaky: exact_vec's frame (the Vec::with_capacity line) and main's (the exact_vec() line)"
	got=$(report_entry_frames "$T_DIR/l.out" allocators 'leaky::main::{{closure}}' | frame_pair 'leaky::main::{{closure}}' | head -n1)
	assert_frames "$got" "leaky::main::{{closure}} (leaky) leaky.rs:$(line_of "$e" closure)" \
		"leaky: the closure's frame (its Vec::with_capacity line)"
}

# ================================================================ inlined frames

test_inline_report() { # the report lists [inlined] helper_inner / helper_outer with their lines, inner first, before the site
	need_target inline || return
	traced r inline -t 10
	run_ok r "inline" || return
	local e=$T_DIR/r.exp sec got
	L() { line_of "$e" "$1"; }
	for sec in allocators allocations; do
		got=$(report_entry_frames "$T_DIR/r.out" "$sec" site_inline_chain | upto_main)
		assert_frames "$got" "[inlined] helper_inner (inline) inline.c:$(L inner_malloc)
[inlined] helper_outer (inline) inline.c:$(L outer_inner)
site_inline_chain (inline) inline.c:$(L chain_outer)
main (inline) inline.c:$(L main_chain)" "inline, $sec: chain entry (two inlined frames)"
		got=$(report_entry_frames "$T_DIR/r.out" "$sec" site_inline_single | upto_main)
		assert_frames "$got" "[inlined] helper_inner (inline) inline.c:$(L inner_malloc)
site_inline_single (inline) inline.c:$(L single_inner)
main (inline) inline.c:$(L main_single)" "inline, $sec: single entry (one inlined frame)"
		got=$(report_entry_frames "$T_DIR/r.out" "$sec" site_inline_none | upto_main)
		assert_frames "$got" "site_inline_none (inline) inline.c:$(L none_malloc)
main (inline) inline.c:$(L main_none)" "inline, $sec: entry with no inlined frame"
	done
	# an inlined frame has no address: the line starts with "[inlined]"
	assert_grep "$T_DIR/r.out" '^ +\[inlined\] helper_outer \(inline\) ([^ ]*/)?inline\.c:[0-9]+$' \
		"inline: '[inlined] helper_outer (inline) FILE:LINE' line"
	assert_no_grep "$T_DIR/r.out" '0x[0-9a-f]+ +\[inlined\]|0x[0-9a-f]+ helper_(inner|outer)' \
		"inline: an inlined frame shown with an address"
}

test_inline_folded() { # folded: main;site;helper_outer_[i];helper_inner_[i] in that order, values exact
	need_target inline || return
	traced f inline -m count
	run_ok f "inline" || return
	local e=$T_DIR/f.exp
	assert_eq "$(fold_tail_sum "$T_DIR/f.fg" 'main;site_inline_chain;helper_outer_[i];helper_inner_[i]')" \
		"$(ledger_value "$e" count site_inline_chain)" "inline: count of the stacks ending main;site_inline_chain;helper_outer_[i];helper_inner_[i]"
	assert_eq "$(fold_tail_sum "$T_DIR/f.fg" 'main;site_inline_single;helper_inner_[i]')" \
		"$(ledger_value "$e" count site_inline_single)" "inline: count of the stacks ending main;site_inline_single;helper_inner_[i]"
	assert_eq "$(fold_tail_sum "$T_DIR/f.fg" 'main;site_inline_none')" \
		"$(ledger_value "$e" count site_inline_none)" "inline: count of the stacks ending main;site_inline_none"
	# every stack of a site has that shape (no other order, no bare helper)
	assert_eq "$(fold_sum "$T_DIR/f.fg" site_inline_chain)" "$(ledger_value "$e" count site_inline_chain)" \
		"inline: count of all stacks through site_inline_chain"
	assert_eq "$(fold_sum "$T_DIR/f.fg" '~^helper_(inner|outer)$')" 0 "inline: helper frames without the _[i] mark"
	if ! assert_int_ge "$(fold_sum "$T_DIR/f.fg" 'helper_inner_[i]')" 1 "inline: helper_inner_[i] frames"; then
		show "$T_DIR/f.fg"
	fi
}

# ================================================================ filters

test_filter_exclude() { # --exclude hides a frame (also an inlined one) in folded and report, "(N filtered out)", totals kept
	need_target symbols || return
	need_target inline || return
	local e got grab='zoo::grab(unsigned long)'
	traced base symbols -t 20 -m count
	run_ok base "symbols" || return
	traced one symbols -t 20 -m count -e '^zoo::Pantry::restock\(int\)$'
	run_ok one "symbols -e restock" || return
	traced two symbols -t 20 -m count --exclude '^zoo::Pantry::restock' --exclude '^main$'
	run_ok two "symbols --exclude restock --exclude main" || return
	e=$T_DIR/one.exp
	# without the filter the frame is there
	assert_eq "$(fold_tail_sum "$T_DIR/base.fg" "main;zoo::Pantry::restock(int);$grab""_[i]")" 2 \
		"symbols, no filter: stacks main;restock;grab_[i]"
	# hidden: the frame goes, the stack and its value stay
	assert_eq "$(fold_sum "$T_DIR/one.fg" 'zoo::Pantry::restock(int)')" 0 "symbols -e restock: value under the hidden frame"
	assert_eq "$(fold_tail_sum "$T_DIR/one.fg" "__libc_start_call_main;main;$grab""_[i]")" 2 \
		"symbols -e restock: stacks __libc_start_call_main;main;grab_[i]"
	assert_eq "$(fold_total "$T_DIR/one.fg")" "$(fold_total "$T_DIR/base.fg")" "symbols -e restock: folded total unchanged"
	assert_eq "$(fold_sum "$T_DIR/one.fg" 'zoo::Shelf<long>::stock()')" 2 "symbols -e restock: other sites unchanged"
	if report_functions "$T_DIR/one.out" | grep -qxF 'zoo::Pantry::restock(int)'; then
		fail "symbols -e restock: the report still shows the hidden frame"
	fi
	got=$(report_entry_frames "$T_DIR/one.out" allocators "$grab" | upto_main)
	assert_frames "$got" "[inlined] $grab (symbols) symbols.cpp:$(line_of "$e" grab)
(1 filtered out)
main (symbols) symbols.cpp:$(line_of "$e" main_restock)" "symbols -e restock: report entry of grab"
	# two patterns, two adjacent hidden frames: one "(2 filtered out)"
	assert_eq "$(fold_tail_sum "$T_DIR/two.fg" "__libc_start_call_main;$grab""_[i]")" 2 \
		"symbols -e restock -e main: stacks __libc_start_call_main;grab_[i]"
	assert_eq "$(fold_sum "$T_DIR/two.fg" main)" 0 "symbols -e restock -e main: value under main"
	assert_eq "$(fold_total "$T_DIR/two.fg")" "$(fold_total "$T_DIR/base.fg")" "symbols -e restock -e main: folded total unchanged"
	got=$(report_entry_frames "$T_DIR/two.out" allocators "$grab" | head -n 3 | sed 's/ (libc\.so\.6) .*/ (libc.so.6)/')
	assert_frames "$got" "[inlined] $grab (symbols) symbols.cpp:$(line_of "$e" grab)
(2 filtered out)
__libc_start_call_main (libc.so.6)" "symbols -e restock -e main: report entry of grab"
	# an inlined frame hidden between two shown ones
	traced in inline -t 10 -m count -e '^helper_outer$'
	run_ok in "inline -e helper_outer" || return
	e=$T_DIR/in.exp
	assert_eq "$(fold_tail_sum "$T_DIR/in.fg" 'main;site_inline_chain;helper_inner_[i]')" 3 \
		"inline -e helper_outer: stacks main;site_inline_chain;helper_inner_[i]"
	assert_eq "$(fold_sum "$T_DIR/in.fg" 'helper_outer_[i]')" 0 "inline -e helper_outer: value under helper_outer_[i]"
	got=$(report_entry_frames "$T_DIR/in.out" allocators site_inline_chain | upto_main)
	assert_frames "$got" "[inlined] helper_inner (inline) inline.c:$(line_of "$e" inner_malloc)
(1 filtered out)
site_inline_chain (inline) inline.c:$(line_of "$e" chain_outer)
main (inline) inline.c:$(line_of "$e" main_chain)" "inline -e helper_outer: report entry of the chain"
}

test_filter_include() { # --include keeps only the stacks with a matching frame (also inlined); exact totals of what remains
	need_target symbols || return
	need_target inline || return
	local e bad
	traced a symbols -t 20 -m count -I '^zoo::pack\('
	run_ok a "symbols -I pack" || return
	e=$T_DIR/a.exp
	assert_eq "$(fold_total "$T_DIR/a.fg")" \
		"$(($(ledger_value "$e" count pack_int) + $(ledger_value "$e" count pack_double) + $(ledger_value "$e" count pack_str)))" \
		"symbols -I '^zoo::pack\\(': folded total (allocation calls of the three pack overloads)"
	bad=$(awk '!/(^|;)zoo::pack\(/' "$T_DIR/a.fg" | head -3)
	assert_eq "$bad" "" "symbols -I pack: folded lines without a pack frame"
	# in the report: the 4 live blocks of the pack sites, and only them
	assert_eq "$(report_nentries "$T_DIR/a.out" allocations)" \
		"$(($(ledger_value "$e" live-count pack_int) + $(ledger_value "$e" live-count pack_double) + $(ledger_value "$e" live-count pack_str)))" \
		"symbols -I pack: entries of the allocations section (-t 20)"
	bad=$(report_parse "$T_DIR/a.out" | awk -F'\t' '
		$1 == "E" { k = $2 " " $3; ent[k] = 1 }
		$1 == "F" && $5 ~ /^zoo::pack\(/ { ok[$2 " " $3] = 1 }
		END { for (k in ent) if (!ok[k]) print k }')
	assert_eq "$bad" "" "symbols -I pack: report entries without a pack frame"
	# repeatable: either pattern
	traced b symbols -t 20 -m live -I '^zoo::pack\(int\)$' --include 'make_many'
	run_ok b "symbols -I pack(int) -I make_many" || return
	e=$T_DIR/b.exp
	assert_eq "$(fold_total "$T_DIR/b.fg")" \
		"$(($(ledger_value "$e" live pack_int) + $(ledger_value "$e" live many_double) + $(ledger_value "$e" live many_int)))" \
		"symbols -I pack(int) -I make_many: folded total (live bytes)"
	# an inlined frame is a frame to match
	traced c symbols -t 20 -m count -I '^zoo::grab'
	run_ok c "symbols -I grab" || return
	assert_eq "$(fold_total "$T_DIR/c.fg")" "$(ledger_value "$T_DIR/c.exp" count restock)" \
		"symbols -I '^zoo::grab' (an inlined frame): folded total"
	# nothing matches: nothing left
	traced d inline -t 10 -m count -I '^no_such_function_xyz$'
	run_ok d "inline -I no match" || return
	assert_eq "$(fold_total "$T_DIR/d.fg")" 0 "inline -I (no match): folded total"
	assert_eq "$(report_nentries "$T_DIR/d.out" allocators)" 0 "inline -I (no match): allocator entries"
}

test_filter_bad_regex() { # --exclude '(' / --include '[z-a]': bad input, one line on stderr, the command not run
	need_target inline || return
	MARKER=$T_DIR/marker
	rm -f "$MARKER"
	TL_ENV=(TL_EXPECT="$MARKER")
	bad_input "--exclude '('" --exclude '(' -- "$TB/inline"
	rm -f "$MARKER"
	TL_ENV=(TL_EXPECT="$MARKER")
	bad_input "-I '[z-a]'" -I '[z-a]' -- "$TB/inline"
}

# rust_filters BUILD MANGLING: default filters on / off on the Rust target
# (MANGLING: legacy or v0, the key of the RUST_* tables of reports_lib.sh,
# where the stacks addr2line shows are described)
rust_filters() {
	local bin=$1 mg=$2 what=$1 bad got want nmain site id
	local -n names=${RUST_NAMES[$mg]}
	local shim=${RUST_SHIM[$mg]} clo=${RUST_CLOSURE_RE[$mg]} shim_end=${RUST_SHIM_END_RE[$mg]}
	local cname=${names[closure]##*::}
	local d=$T_DIR/d n=$T_DIR/n
	need_rust "$bin" || return
	traced d "$bin" -t 40 -m allocated
	run_ok d "$bin" || return
	traced n "$bin" -t 40 -m allocated --no-default-filters
	run_ok n "$bin --no-default-filters" || return
	# the harness of catch_unwind, inlined (std's generic arguments in v0)
	local harness=('std::panic::catch_unwind(::<.*>)?_\[i\]' 'std::panicking::catch_unwind(::<.*>)?_\[i\]'
		'std::panicking::catch_unwind::do_call(::<.*>)?_\[i\]')

	# ---- --no-default-filters: the runtime frames are where addr2line -i puts them
	assert_chain "$(fold_segment "$n.fg" main leaky::main)" "$what --no-default-filters: frames from main to leaky::main" \
		main 'std::rt::lang_start_internal' "${harness[@]}" 'std::rt::lang_start_internal::\{closure#0\}_\[i\]' \
		"${harness[@]}" '<&dyn core::ops::function::Fn<.* as core::ops::function::FnOnce<\(\)>>::call_once_\[i\]' \
		"$(re_quote "${RUST_LANG_START_CLOSURE[$mg]}")" "$(re_quote "${RUST_BEGIN_SHORT[$mg]}")" \
		"$(re_quote "${RUST_MAIN_CALL[$mg]}")_\[i\]" leaky::main
	assert_chain "$(fold_segment "$n.fg" leaky::main leaky::shims::boxed_work)" \
		"$what --no-default-filters: frames from leaky::main to boxed_work (Box's call_once, the closure's vtable shim, the closure)" \
		leaky::main leaky::shims::run_boxed '<alloc::boxed::Box<.*> as core::ops::function::FnOnce<.*>>::call_once_\[i\]' \
		"$(re_quote "$shim")" "leaky::shims::run_boxed::${clo}_\[i\]" leaky::shims::boxed_work
	assert_chain "$(fold_segment "$n.fg" leaky::main leaky::shims::caught_work)" \
		"$what --no-default-filters: frames from leaky::main to caught_work (catch_unwind's harness, the closure)" \
		leaky::main leaky::shims::run_caught "${harness[@]}" "leaky::shims::run_caught::${clo}_\[i\]" leaky::shims::caught_work
	assert_chain "$(fold_segment "$n.fg" start_thread leaky::shims::thread_work)" \
		"$what --no-default-filters: frames from the thread's start to thread_work" \
		start_thread '.*::thread_start' \
		'<alloc::boxed::Box<dyn core::ops::function::FnOnce<.*> as core::ops::function::FnOnce<\(\)>>::call_once_\[i\]' \
		".*$shim_end" "std::thread::.*::${clo}_\[i\]" "${harness[@]}" \
		'<core::panic::unwind_safe::AssertUnwindSafe<.*> as core::ops::function::FnOnce<\(\)>>::call_once_\[i\]' \
		"std::thread::.*::$clo::${clo}_\[i\]" 'std::sys(_common)?::backtrace::__rust_begin_short_backtrace(::<.*>)?' \
		"leaky::shims::run_thread::${clo}_\[i\]" leaky::shims::thread_work
	assert_eq "$(fold_segment "$n.fg" leaky::main "${names[closure]}")" "leaky::main;${names[closure]}" \
		"$what --no-default-filters: frames from leaky::main to its closure (called through &dyn Fn, nothing between)"

	# ---- default filters: the program's frames, in order, and no runtime frame
	bad=$(grep -E '(^|;)<?leaky::' "$d.fg" | fold_frames /dev/stdin | sort -u | rust_noise_filter | head -4)
	if [ -n "$bad" ]; then
		fail "$what (default filters): runtime frames left on the program's stacks in the folded output"
		show_text "$bad"
	fi
	for site in exact_vec grow churn; do
		assert_eq "$(fold_segment "$d.fg" main "leaky::zoo::$site")" "main;leaky::main;leaky::zoo::$site" \
			"$what (default filters): frames from main to leaky::zoo::$site"
	done
	assert_eq "$(fold_segment "$d.fg" main "${names[closure]}")" "main;leaky::main;${names[closure]}" \
		"$what (default filters): frames from main to main's closure"
	for site in boxed caught; do
		assert_eq "$(fold_segment "$d.fg" main "leaky::shims::${site}_work")" \
			"main;leaky::main;leaky::shims::run_$site;leaky::shims::run_$site::${cname}_[i];leaky::shims::${site}_work" \
			"$what (default filters): frames from main to ${site}_work (the closure kept, the runtime frames around it hidden)"
	done
	# a thread: std's own closures are code too, they stay
	assert_chain "$(fold_segment "$d.fg" start_thread leaky::shims::thread_work)" \
		"$what (default filters): frames from the thread's start to thread_work" \
		start_thread '.*::thread_start' "std::thread::.*::${clo}_\[i\]" "std::thread::.*::$clo::${clo}_\[i\]" \
		"leaky::shims::run_thread::${clo}_\[i\]" leaky::shims::thread_work
	# exactly the runtime frames are gone: the program's stacks with the
	# default filters are the stacks without them, minus the runtime frames
	fold_frames "$n.fg" | sort -u | rust_noise_filter >"$T_DIR/noise.list"
	assert_int_ge "$(grep -c . "$T_DIR/noise.list")" 10 "$what --no-default-filters: distinct runtime frames in the folded output"
	fold_program "$n.fg" "$T_DIR/noise.list" >"$T_DIR/n.prog"
	fold_program "$d.fg" >"$T_DIR/d.prog"
	if ! cmp -s "$T_DIR/n.prog" "$T_DIR/d.prog"; then
		fail "$what: the program's folded stacks with the default filters are not those of --no-default-filters without the runtime frames"
		show_text "$(diff "$T_DIR/n.prog" "$T_DIR/d.prog" | grep '^[<>]' | head -6)"
	fi
	assert_int_ge "$(grep -c . "$T_DIR/d.prog")" 12 "$what (default filters): the program's stacks compared"
	# filters hide frames, never bytes
	assert_eq "$(fold_total "$d.fg")" "$(fold_total "$n.fg")" "$what: folded totals with and without the default filters"
	assert_eq "$(fold_sum "$d.fg" leaky::zoo::exact_vec)" "$(fold_sum "$n.fg" leaky::zoo::exact_vec)" \
		"$what: exact_vec's bytes with and without the default filters"

	# ---- the report: the hidden frames are counted where they were
	bad=$(report_functions "$d.out" | sort -u | rust_noise_filter | head -4)
	if [ -n "$bad" ]; then
		fail "$what (default filters): runtime frames in the report"
		show_text "$bad"
	fi
	assert_no_grep "$n.out" 'filtered out' "$what --no-default-filters: '(N filtered out)' in the report"
	# each entry: the frames of --no-default-filters, each run of runtime
	# frames one "(N filtered out)"
	for id in exact_vec closure boxed_work caught_work thread_work; do
		site=${names[$id]}
		want=$(report_entry_frames "$n.out" allocators "$site" | rust_collapse)
		got=$(report_entry_frames "$d.out" allocators "$site")
		assert_int_ge "$(grep -c 'filtered out' <<<"$want")" 1 "$what --no-default-filters: runs of runtime frames in the entry of '$site'" &&
			assert_frames "$got" "$want" "$what (default filters): the entry of '$site' = its frames without the default filters, runtime frames counted"
	done
	# the runtime frames between leaky::main and main: the 3 concrete ones
	# (__rust_begin_short_backtrace, lang_start's closure, lang_start_internal)
	# and the frames inlined into them
	nmain=$(report_entry_names "$n.out" allocators leaky::zoo::exact_vec | sed -n '/^leaky::main$/,/^main$/p' | sed '1d;$d' | grep -c .)
	assert_int_ge "$nmain" 3 "$what --no-default-filters: frames between leaky::main and main in the report"
	got=$(report_entry_frames "$n.out" allocators leaky::zoo::exact_vec | frame_pair leaky::main | tail -n1 | report_names)
	assert_eq "$got" "[inlined] ${RUST_MAIN_CALL[$mg]}" "$what --no-default-filters: frame after leaky::main in the report"
	got=$(report_entry_names "$d.out" allocators leaky::zoo::exact_vec | sed -n '/^leaky::zoo::exact_vec$/,/^main$/p')
	assert_frames "$got" "leaky::zoo::exact_vec
leaky::main
($nmain filtered out)
main" "$what (default filters): exact_vec's entry from the site to main"
	got=$(report_entry_names "$d.out" allocators leaky::shims::boxed_work | sed -n '/^leaky::shims::boxed_work$/,/^main$/p')
	assert_frames "$got" "leaky::shims::boxed_work
[inlined] leaky::shims::run_boxed::$cname
(2 filtered out)
leaky::shims::run_boxed
leaky::main
($nmain filtered out)
main" "$what (default filters): boxed_work's entry from the site to main (the shim and Box's call_once hidden)"
	got=$(report_entry_names "$d.out" allocators leaky::shims::caught_work | sed -n '/^leaky::shims::caught_work$/,/^main$/p')
	assert_frames "$got" "leaky::shims::caught_work
[inlined] leaky::shims::run_caught::$cname
(3 filtered out)
leaky::shims::run_caught
leaky::main
($nmain filtered out)
main" "$what (default filters): caught_work's entry from the site to main (catch_unwind's harness hidden)"
	got=$(report_entry_names "$d.out" allocators leaky::shims::thread_work | sed -n '/^leaky::shims::thread_work$/,$p' | head -n3)
	assert_frames "$got" "leaky::shims::thread_work
[inlined] leaky::shims::run_thread::$cname
(1 filtered out)" "$what (default filters): thread_work's entry (__rust_begin_short_backtrace hidden)"
	got=$(report_entry_frames "$n.out" allocators leaky::shims::boxed_work | frame_pair "leaky::shims::run_boxed::$cname" | tail -n1 | report_names)
	assert_eq "$got" "$shim" "$what --no-default-filters: frame after boxed_work's closure in the report"
}

test_rust_default_filters_legacy() { # Rust legacy: lang_start, __rust_begin_short_backtrace, vtable shims, catch_unwind hidden by default (closures kept), shown with --no-default-filters
	rust_filters leaky legacy
}

test_rust_default_filters_v0() { # Rust v0: the same, with v0 names ({shim:vtable#0}, lang_start::<()>::{closure#0})
	rust_filters leaky_v0 v0
}

# ================================================================ --allocator-frame

test_allocator_frame() { # --allocator-frame: leaf frames malloc, calloc, realloc, operator new, operator new[] exactly where expected
	need_target symbols || return
	need_target inline || return
	need_rust leaky || return
	local e id tail bad
	traced s symbols -m count --allocator-frame
	run_ok s "symbols --allocator-frame" || return
	traced p symbols -m count
	run_ok p "symbols" || return
	e=$T_DIR/s.exp
	declare -A leaf=(
		[shelf_long]='operator new[]' [shelf_short]='operator new[]'
		[many_double]=calloc [many_int]=calloc
		[restock]=malloc [lambda]='operator new' [pack_int]='operator new' [pack_double]=malloc
	)
	for id in "${!leaf[@]}"; do
		tail="${CXX_TAIL[$id]};${leaf[$id]}"
		assert_eq "$(fold_tail_sum "$T_DIR/s.fg" "$tail")" "$(ledger_value "$e" count "$id")" \
			"symbols --allocator-frame: count of the stacks ending '$tail'"
	done
	assert_eq "$(fold_tail_sum "$T_DIR/s.fg" "${CXX_TAIL[pack_str]};malloc")" 1 \
		"symbols --allocator-frame: pack(char const*) ... ;malloc"
	assert_eq "$(fold_tail_sum "$T_DIR/s.fg" "${CXX_TAIL[pack_str]};realloc")" 1 \
		"symbols --allocator-frame: pack(char const*) ... ;realloc"
	assert_eq "$(fold_total "$T_DIR/s.fg")" "$(fold_total "$T_DIR/p.fg")" "symbols: folded totals with and without --allocator-frame"
	# without the option no stack ends in an allocator
	bad=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, fr, ";"); if (fr[n] ~ /^(malloc|calloc|realloc|operator new(\[\])?)$/) print }' "$T_DIR/p.fg" | head -3)
	assert_eq "$bad" "" "symbols without --allocator-frame: stacks ending in an allocator frame"
	traced i inline -m count --allocator-frame
	run_ok i "inline --allocator-frame" || return
	assert_eq "$(fold_tail_sum "$T_DIR/i.fg" 'main;site_inline_chain;helper_outer_[i];helper_inner_[i];malloc')" 3 \
		"inline --allocator-frame: ...;helper_outer_[i];helper_inner_[i];malloc"
	assert_eq "$(fold_tail_sum "$T_DIR/i.fg" 'main;site_inline_none;malloc')" 1 "inline --allocator-frame: main;site_inline_none;malloc"
	# Rust: Vec::with_capacity / Box -> malloc, vec![0; n] -> calloc, growth -> realloc
	traced r leaky -m count --allocator-frame
	run_ok r "leaky --allocator-frame" || return
	e=$T_DIR/r.exp
	assert_eq "$(fold_leaf_sum "$T_DIR/r.fg" leaky::zoo::exact_vec malloc)" "$(ledger_value "$e" count exact_vec)" \
		"leaky --allocator-frame: exact_vec's stacks ending in malloc"
	assert_eq "$(fold_leaf_sum "$T_DIR/r.fg" leaky::zoo::zeroed calloc)" "$(ledger_value "$e" count zeroed)" \
		"leaky --allocator-frame: zeroed's stacks ending in calloc"
	assert_eq "$(fold_leaf_sum "$T_DIR/r.fg" leaky::gen::leak_boxed malloc)" \
		"$(($(ledger_value "$e" count boxed_u64) + $(ledger_value "$e" count boxed_arr)))" \
		"leaky --allocator-frame: leak_boxed's stacks ending in malloc"
	assert_eq "$(fold_leaf_sum "$T_DIR/r.fg" leaky::zoo::grow malloc)" 1 "leaky --allocator-frame: grow's first block (malloc)"
	assert_eq "$(fold_leaf_sum "$T_DIR/r.fg" leaky::zoo::grow realloc)" "$(($(ledger_value "$e" count grow) - 1))" \
		"leaky --allocator-frame: grow's reallocs"
}

# ================================================================ report structure

# entries_summary FILE SECTION: one line per entry: "SITE SIZE COUNT CALLS"
# (allocators) or "SITE SIZE AGE" (allocations), SITE the first site_* frame
# of the entry ("-" if none)
entries_summary() {
	report_parse "$1" | awk -F'\t' -v s="$2" '
		$1 == "E" && $2 == s { n = $3; e[n] = ($2 == "allocators") ? $4 "\t" $5 "\t" $6 : $4 "\t" $5; if (n > max) max = n }
		$1 == "F" && $2 == s && $5 ~ /^site_/ && !(($3) in site) { site[$3] = $5 }
		END { for (i = 1; i <= max; i++) print ((i in site) ? site[i] : "-") "\t" e[i] }'
}

# check_entries FILE SECTION WHAT SPEC...: the entries of SECTION of the
# final report, in order, are the SPECs: "SITE BYTES" (allocations) or
# "SITE BYTES LIVE-COUNT CALLS" (allocators); sizes compared as shown
# (rounded to the digits printed)
check_entries() {
	local f=$1 sec=$2 what=$3 spec wsite wbytes wrest site size c3 c4 i=0
	shift 3
	local got=()
	mapfile -t got < <(entries_summary "$f" "$sec")
	if ! assert_eq "${#got[@]}" "$#" "$what: number of entries in the $sec section"; then
		printf '%s\n' "${got[@]}" | sed 's/^/      | /'
	fi
	for spec in "$@"; do
		read -r wsite wbytes wrest <<<"$spec"
		IFS=$'\t' read -r site size c3 c4 <<<"${got[i]:-}"
		i=$((i + 1))
		assert_eq "$site" "$wsite" "$what: site of $sec entry $i"
		assert_human "$size" "$wbytes" "$what: size of $sec entry $i"
		[ "$sec" = allocators ] && assert_eq "$c3 $c4" "$wrest" "$what: live allocations and allocation calls of allocator $i"
	done
}

test_report_header() { # "==> N top allocations out of M for a total of X", same for allocators; entries; once, above the summary
	need_target ranks || return
	traced h ranks
	run_ok h "ranks" || return
	local hdr n m x n_allocs n_allocators
	assert_eq "$(grep -cE '^==> [0-9]+ top allocations ' "$T_DIR/h.out")" 1 "ranks -i 0: number of 'top allocations' sections"
	assert_eq "$(grep -cE '^==> [0-9]+ top allocators ' "$T_DIR/h.out")" 1 "ranks -i 0: number of 'top allocators' sections"
	# allocations, then allocators, then the summary
	assert_eq "$(grep -E '^==> ' "$T_DIR/h.out" | sed -E 's/^==> ([0-9]+ )?//; s/ .*//' | tr '\n' ' ')" \
		"top top summary: " "ranks: order of the '==>' lines"
	hdr=$(report_header "$T_DIR/h.out" allocations)
	if assert_match "$hdr" '^==> ([0-9]+) top allocations out of ([0-9]+) for a total of ([0-9.]+ [KMGT]?i?B)$' "ranks: allocations header"; then
		[[ $hdr =~ ^==\>\ ([0-9]+)\ top\ allocations\ out\ of\ ([0-9]+)\ for\ a\ total\ of\ (.+)$ ]]
		n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} x=${BASH_REMATCH[3]}
		assert_eq "$n" 3 "ranks: N of the allocations header (default --top 3)"
		assert_eq "$m" "$SUM_LIVE" "ranks: M of the allocations header = live allocations"
		assert_human "$x" "$SUM_LIVE_BYTES" "ranks: total of the allocations header = live bytes"
	fi
	hdr=$(report_header "$T_DIR/h.out" allocators)
	if assert_match "$hdr" '^==> ([0-9]+) top allocators out of ([0-9]+) for a total of ([0-9.]+ [KMGT]?i?B)$' "ranks: allocators header"; then
		[[ $hdr =~ ^==\>\ ([0-9]+)\ top\ allocators\ out\ of\ ([0-9]+)\ for\ a\ total\ of\ (.+)$ ]]
		n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} x=${BASH_REMATCH[3]}
		assert_eq "$n" 3 "ranks: N of the allocators header"
		assert_int_ge "$m" 4 "ranks: M of the allocators header (4 sites hold memory)"
		assert_human "$x" "$SUM_LIVE_BYTES" "ranks: total of the allocators header = live bytes"
	fi
	n_allocs=$(report_nentries "$T_DIR/h.out" allocations)
	n_allocators=$(report_nentries "$T_DIR/h.out" allocators)
	assert_eq "$n_allocs" 3 "ranks: entries in the allocations section"
	assert_eq "$n_allocators" 3 "ranks: entries in the allocators section"
	# the largest blocks, largest first: 50000, then two of the 1000-byte ones
	local age
	check_entries "$T_DIR/h.out" allocations "ranks" "site_rank_big 50000" "site_rank_mid 1000" "site_rank_mid 1000"
	for age in $(report_parse "$T_DIR/h.out" | awk -F'\t' '$1 == "E" && $2 == "allocations" { print $5 }'); do
		assert_between "$age" 0 5 "ranks: age of an allocation (s)"
	done
	# allocator entries: live bytes, live allocations, allocation calls
	check_entries "$T_DIR/h.out" allocators "ranks" "site_rank_big 50000 1 1" "site_rank_mid 5000 5 10" "site_rank_many 640 40 40"
	# no unparsed line in the report
	assert_eq "$(report_parse "$T_DIR/h.out" | awk -F'\t' '$1 == "X" || ($1 == "F" && $4 ~ /^\?/)' | head -3)" "" \
		"ranks: report lines that are neither a header, an entry nor a frame"
}

test_report_top() { # -t 1 / --top 5: that many entries per section (fewer if there are fewer)
	need_target ranks || return
	local hdr m
	traced one ranks -t 1
	run_ok one "ranks -t 1" || return
	assert_eq "$(report_nentries "$T_DIR/one.out" allocations)" 1 "ranks -t 1: allocation entries"
	assert_eq "$(report_nentries "$T_DIR/one.out" allocators)" 1 "ranks -t 1: allocator entries"
	assert_match "$(report_header "$T_DIR/one.out" allocations)" '^==> 1 top allocations ' "ranks -t 1: allocations header"
	assert_match "$(report_header "$T_DIR/one.out" allocators)" '^==> 1 top allocators ' "ranks -t 1: allocators header"
	assert_eq "$(entries_summary "$T_DIR/one.out" allocators | cut -f1)" site_rank_big "ranks -t 1: the top allocator"
	traced five ranks --top 5
	run_ok five "ranks --top 5" || return
	assert_eq "$(report_nentries "$T_DIR/five.out" allocations)" 5 "ranks --top 5: allocation entries"
	assert_match "$(report_header "$T_DIR/five.out" allocations)" '^==> 5 top allocations out of ' "ranks --top 5: allocations header"
	hdr=$(report_header "$T_DIR/five.out" allocators)
	m=$(sed -nE 's/^==> [0-9]+ top allocators out of ([0-9]+) .*/\1/p' <<<"$hdr")
	_is_int "$m" || m=5
	[ "$m" -gt 5 ] && m=5
	assert_eq "$(report_nentries "$T_DIR/five.out" allocators)" "$m" "ranks --top 5: allocator entries (min(5, allocators))"
	assert_match "$hdr" "^==> $m top allocators " "ranks --top 5: allocators header"
	assert_eq "$(entries_summary "$T_DIR/five.out" allocators | cut -f1 | grep -c '^site_rank_')" 4 \
		"ranks --top 5: the 4 sites among the allocators"
}

test_report_sort() { # -s live|allocs|count (and --sort, default live): allocators ordered by the key, non-increasing
	need_target ranks || return
	local key name col order
	for key in default live allocs count; do
		name=s-$key
		case $key in
		default) traced "$name" ranks -t 4 ;;
		allocs) traced "$name" ranks -t 4 --sort allocs ;;
		*) traced "$name" ranks -t 4 -s "$key" ;;
		esac
		run_ok "$name" "ranks -s $key" || continue
		assert_eq "$(report_nentries "$T_DIR/$name.out" allocators)" 4 "ranks -s $key: allocator entries"
		# the sort key of each entry, in order: must never increase
		case $key in
		default | live) col=bytes ;;
		allocs) col=calls ;;
		count) col=count ;;
		esac
		order=$(report_parse "$T_DIR/$name.out" | awk -F'\t' -v col="$col" '
			function bytes(t,   p, m) { split(t, p, " "); m = p[2] == "B" ? 1 : p[2] == "KiB" ? 1024 : p[2] == "MiB" ? 1048576 : 1073741824; return p[1] * m }
			$1 == "E" && $2 == "allocators" { v = col == "bytes" ? bytes($4) : col == "count" ? $5 : $6; printf "%s ", v; if (n++ && v > prev) bad = 1; prev = v }
			END { print bad ? "INCREASES" : "ok" }')
		assert_match "$order" ' ok$' "ranks -s $key: $col of the allocators in order ($order)"
		case $key in
		default | live) assert_eq "$(entries_summary "$T_DIR/$name.out" allocators | cut -f1 | tr '\n' ' ')" \
			"site_rank_big site_rank_mid site_rank_many site_rank_churny " "ranks -s $key: order of the allocators" ;;
		allocs) assert_eq "$(entries_summary "$T_DIR/$name.out" allocators | cut -f1 | head -n3 | tr '\n' ' ')" \
			"site_rank_churny site_rank_many site_rank_mid " "ranks -s allocs: first 3 allocators" ;;
		count) assert_eq "$(entries_summary "$T_DIR/$name.out" allocators | cut -f1 | head -n2 | tr '\n' ' ')" \
			"site_rank_many site_rank_mid " "ranks -s count: first 2 allocators" ;;
		esac
	done
	# a key that is none of the three is bad input
	tl_run bad -s bogus -- "$TB/ranks"
	bad_input_check "-s bogus"
}

test_min_age() { # --min-age 1: only the blocks allocated before the 1.5 s sleep, in both sections
	need_target aging || return
	local ages
	traced m aging -t 10 --min-age 1
	run_ok m "aging --min-age 1" || return
	# the young blocks exist (the target made them and they are live)
	assert_eq "$SUM_LIVE" 5 "aging: live allocations in the summary (3 old + 2 young)"
	check_entries "$T_DIR/m.out" allocations "aging --min-age 1" "site_aging_old 1000" "site_aging_old 1000" "site_aging_old 1000"
	ages=$(report_parse "$T_DIR/m.out" | awk -F'\t' '$1 == "E" && $2 == "allocations" { print $5 }')
	for a in $ages; do
		assert_between "$a" 1 10 "aging --min-age 1: age of a listed block (s)"
	done
	check_entries "$T_DIR/m.out" allocators "aging --min-age 1" "site_aging_old 3000 3 4"
	assert_eq "$(report_parse "$T_DIR/m.out" | grep -c site_aging_young)" 0 "aging --min-age 1: frames of site_aging_young in the final report"
}

test_periodic_report() { # -i 0.5: a live line and a report every 0.5 s, then the final report above the summary
	need_target aging || return
	traced p aging -i 0.5 -t 10
	run_ok p "aging -i 0.5" || return
	local n_live n_rep stamps t prev=0 bad=0 next
	n_live=$(grep -cE '^\[ *[0-9]+\.[0-9]s\] live: ' "$T_DIR/p.out")
	assert_between "$n_live" 3 4 "aging -i 0.5 (~1.9 s): periodic '[ N.Ns] live:' lines"
	n_rep=$(grep -cE '^==> [0-9]+ top allocations ' "$T_DIR/p.out")
	assert_eq "$n_rep" "$((n_live + 1))" "aging -i 0.5: reports (one per live line, plus the final one)"
	assert_eq "$(grep -cE '^==> [0-9]+ top allocators ' "$T_DIR/p.out")" "$((n_live + 1))" "aging -i 0.5: allocator sections"
	# every 0.5 s
	stamps=$(sed -nE 's/^\[ *([0-9]+\.[0-9])s\] live: .*/\1/p' "$T_DIR/p.out")
	for t in $stamps; do
		awk -v t="$t" -v p="$prev" 'BEGIN { d = t - p; exit !(d >= 0.35 && d <= 0.65) }' || bad=1
		prev=$t
	done
	assert_eq "$bad" 0 "aging -i 0.5: time stamps of the live lines 0.5 s apart ($(tr '\n' ' ' <<<"$stamps"))"
	# each live line is followed by its report
	next=$(awk '/^\[ *[0-9]+\.[0-9]s\] live: / { getline l; print (l ~ /^==> [0-9]+ top allocations /) ? "ok" : "NOT: " l }' "$T_DIR/p.out" | sort -u | tr '\n' ' ')
	assert_eq "$next" "ok " "aging -i 0.5: line after each live line"
	# before t = 1.5 s only the 3 old blocks are live; at the end 5
	local early=() h
	mapfile -t early < <(awk '/^\[ *[0-9]+\.[0-9]s\] live: / { t = $0; gsub(/^\[ *|s\].*/, "", t); getline l; if (t + 0 < 1.3) print l }' "$T_DIR/p.out")
	assert_int_ge "${#early[@]}" 2 "aging -i 0.5: reports before t = 1.3 s"
	for h in "${early[@]}"; do
		if assert_match "$h" '^==> 3 top allocations out of 3 for a total of ' "aging -i 0.5: a report before t = 1.3 s"; then
			assert_human "${h#*for a total of }" 3000 "aging -i 0.5: total of a report before t = 1.3 s"
		fi
	done
	h=$(report_header "$T_DIR/p.out" allocations)
	if assert_match "$h" '^==> 5 top allocations out of 5 for a total of ' "aging -i 0.5: final report"; then
		assert_human "${h#*for a total of }" 11000 "aging -i 0.5: total of the final report"
	fi
	# the final report is the last thing before the summary
	assert_eq "$(awk '/^==> / { l = $0 } /^==> summary/ { print prev; exit } /^==> / { prev = l }' "$T_DIR/p.out" | sed -E 's/^==> [0-9]+ //; s/ out of.*//')" \
		"top allocators" "aging -i 0.5: the section just above the summary"
}

test_interval_zero() { # -i 0: no periodic output, exactly one report (the final one)
	need_target sleeper || return
	tl_run z -i 0 -t 3 -- "$TB/sleeper" 1.2
	check_normal_end z '^target exited with status 0$' "sleeper -i 0" || return
	assert_eq "$(grep -cE '^\[ *[0-9.]+s\] ' "$T_DIR/z.out")" 0 "sleeper -i 0: periodic lines"
	assert_eq "$(grep -cE '^==> [0-9]+ top allocations ' "$T_DIR/z.out")" 1 "sleeper -i 0: reports"
	assert_eq "$(grep -cE '^==> [0-9]+ top allocators ' "$T_DIR/z.out")" 1 "sleeper -i 0: allocator sections"
	# the control: the same run with -i 0.3 has periodic reports
	tl_run y -i 0.3 -t 3 -- "$TB/sleeper" 1.2
	check_normal_end y '^target exited with status 0$' "sleeper -i 0.3" || return
	assert_int_ge "$(grep -cE '^==> [0-9]+ top allocations ' "$T_DIR/y.out")" 3 "sleeper -i 0.3: reports"
}

test_no_ansi() { # stdout a file or a pipe: no ANSI escape sequences in the reports
	need_target sleeper || return
	need_target symbols || return
	tl_run f -i 0.3 -t 5 -- "$TB/sleeper" 1
	check_normal_end f '^target exited with status 0$' "sleeper to a file" || return
	assert_grep "$T_DIR/f.out" '^==> [0-9]+ top allocators ' "sleeper to a file: a report"
	assert_eq "$(grep -c $'\e' "$T_DIR/f.out")" 0 "stdout a file: lines with an ESC character"
	timeout -k 5 "$TL_TIMEOUT" "$TL" -i 0.3 -t 5 -- "$TB/symbols" 2>"$T_DIR/p.err" </dev/null | cat >"$T_DIR/p.out"
	assert_grep "$T_DIR/p.out" '^==> [0-9]+ top allocators ' "symbols to a pipe: a report"
	assert_grep "$T_DIR/p.out" '\[inlined\]' "symbols to a pipe: inlined frames"
	assert_eq "$(grep -c $'\e' "$T_DIR/p.out")" 0 "stdout a pipe: lines with an ESC character"
}

# ================================================================ runner

run_suite_tests "$0" report "${1:-}"
