# shellcheck shell=bash
# shellcheck disable=SC2034 # the tables and variables here are used by reports.sh
# tests/reports_lib.sh - helpers for tests/reports.sh (sourced after
# tests/lib.sh): the report's parser, the names the new targets' frames must
# have, and ledgers whose keys are ids mapped to those names.

# ---------------------------------------------------------------- names

# symbols.cpp: ledger id -> the demangled name of the site's frame
declare -A CXX_NAME=(
	[shelf_long]='zoo::Shelf<long>::stock()'
	[shelf_short]='zoo::Shelf<short>::stock()'
	[many_double]='double* zoo::util::make_many<double>(unsigned long)'
	[many_int]='int* zoo::util::make_many<int>(unsigned long)'
	[restock]='zoo::Pantry::restock(int)'
	[lambda]='zoo::feed(int)::{lambda(unsigned long)#1}::operator()(unsigned long) const'
	[pack_int]='zoo::pack(int)'
	[pack_double]='zoo::pack(double)'
	[pack_str]='zoo::pack(char const*)'
)
CXX_IDS="shelf_long shelf_short many_double many_int restock lambda pack_int pack_double pack_str"
# the frames from main to the allocator's caller, outermost first, as in a
# folded line (inlined frames with "_[i]")
declare -A CXX_TAIL=(
	[shelf_long]='main;zoo::Shelf<long>::stock()'
	[shelf_short]='main;zoo::Shelf<short>::stock()'
	[many_double]='main;double* zoo::util::make_many<double>(unsigned long)'
	[many_int]='main;int* zoo::util::make_many<int>(unsigned long)'
	[restock]='main;zoo::Pantry::restock(int);zoo::grab(unsigned long)_[i]'
	[lambda]='main;zoo::feed(int);zoo::feed(int)::{lambda(unsigned long)#1}::operator()(unsigned long) const'
	[pack_int]='main;zoo::pack(int)'
	[pack_double]='main;zoo::pack(double)'
	[pack_str]='main;zoo::pack(char const*)'
)

# leaky.rs: ledger id -> frame name, with the legacy mangling (rustc's
# default: no generic arguments, so both leak_boxed instances are one name)
# and with v0
declare -A RUST_LEGACY=(
	[exact_vec]='leaky::zoo::exact_vec'
	[keeper]='leaky::zoo::Keeper::new'
	[boxed_u64]='leaky::gen::leak_boxed'
	[boxed_arr]='leaky::gen::leak_boxed'
	[grow]='leaky::zoo::grow'
	[greeting]='leaky::text::greeting'
	[zeroed]='leaky::zoo::zeroed'
	[churn]='leaky::zoo::churn'
	[closure]='leaky::main::{{closure}}'
	[boxed_work]='leaky::shims::boxed_work'
	[caught_work]='leaky::shims::caught_work'
	[thread_work]='leaky::shims::thread_work'
)
declare -A RUST_V0=(
	[exact_vec]='leaky::zoo::exact_vec'
	[keeper]='<leaky::zoo::Keeper>::new'
	[boxed_u64]='leaky::gen::leak_boxed::<u64>'
	[boxed_arr]='leaky::gen::leak_boxed::<[u16; 3]>'
	[grow]='leaky::zoo::grow'
	[greeting]='leaky::text::greeting'
	[zeroed]='leaky::zoo::zeroed'
	[churn]='leaky::zoo::churn'
	[closure]='leaky::main::{closure#0}'
	[boxed_work]='leaky::shims::boxed_work'
	[caught_work]='leaky::shims::caught_work'
	[thread_work]='leaky::shims::thread_work'
)
RUST_IDS="exact_vec keeper boxed_u64 boxed_arr grow greeting zeroed churn closure boxed_work caught_work thread_work"

# The frames that addr2line -f -i -C (and llvm-symbolizer) show between the
# program's functions (rustc 1.95, opt-level=1), outermost first; the closures
# of leaky.rs are inlined into their callers:
#   main (C) ; std::rt::lang_start_internal ; 8 inlined frames of std (two
#     catch_unwind harnesses, lang_start_internal::{closure#0}, a call through
#     &dyn Fn) ; std::rt::lang_start::{closure} ; __rust_begin_short_backtrace ;
#     FnOnce::call_once [inlined] ; leaky::main
#   leaky::shims::run_boxed ; <Box<..> as FnOnce<..>>::call_once [inlined] ;
#     the closure's vtable shim ; run_boxed::{closure} [inlined] ; boxed_work
#   leaky::shims::run_caught ; std::panic::catch_unwind [inlined] ;
#     std::panicking::catch_unwind [inlined] ; its do_call [inlined] ;
#     run_caught::{closure} [inlined] ; caught_work
#   thread_start ; <Box<dyn FnOnce> ..>::call_once [inlined] ; the vtable shim
#     of spawn_unchecked's closure ; that closure [inlined] ; the catch_unwind
#     harness and AssertUnwindSafe's call_once [inlined, 4 frames] ; its inner
#     closure [inlined] ; __rust_begin_short_backtrace ;
#     run_thread::{closure} [inlined] ; thread_work
# Per mangling (the key of these tables: legacy, v0):
# the closure shim between run_boxed and run_boxed's closure
declare -A RUST_SHIM=(
	[legacy]='core::ops::function::FnOnce::call_once{{vtable.shim}}'
	[v0]='<leaky::shims::run_boxed::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}'
)
# the call of leaky::main by __rust_begin_short_backtrace (inlined into it)
declare -A RUST_MAIN_CALL=(
	[legacy]='core::ops::function::FnOnce::call_once'
	[v0]='<fn() as core::ops::function::FnOnce<()>>::call_once'
)
# the frames of leaky::main's caller and of the closure of std::rt::lang_start
declare -A RUST_BEGIN_SHORT=(
	[legacy]='std::sys::backtrace::__rust_begin_short_backtrace'
	[v0]='std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>'
)
declare -A RUST_LANG_START_CLOSURE=(
	[legacy]='std::rt::lang_start::{{closure}}'
	[v0]='std::rt::lang_start::<()>::{closure#0}'
)
# a closure's name as a regular expression, and the end of a closure shim's
declare -A RUST_CLOSURE_RE=(
	[legacy]='\{\{closure\}\}'
	[v0]='\{closure#[0-9]+\}'
)
declare -A RUST_SHIM_END_RE=(
	[legacy]='::call_once\{\{vtable\.shim\}\}'
	[v0]='::call_once::\{shim:vtable#0\}'
)
# the name maps above, per mangling
declare -A RUST_NAMES=([legacy]=RUST_LEGACY [v0]=RUST_V0)

# The frames of the Rust runtime that the default filters hide, spelled out
# here on their own (src/model/filter.c's default_excludes is what is tested): future
# polling, tokio, the panic harness (std::panicking, catch_unwind, __rust_try),
# calls through the Fn traits (core::ops::function, "<X as
# core::ops::function::FnOnce<..>>::call_once"), closure shims, LocalKey::with,
# and the start of main and of a thread.  Closures ("{{closure}}",
# "{closure#0}") are the program's code: none of these matches one.  Inlined
# frames are matched without their folded "_[i]" suffix (rust_noise).
RUST_NOISE_PATTERNS=(
	'^<.* as core::future::future::Future>::poll$'
	'^core::future::'
	'^futures(_util|_core)?::.*::poll'
	'^tokio::(runtime|task|loom)::'
	'^std::panicking::'
	'^std::panic::catch_unwind'
	'^__rust_try$'
	'^core::ops::function::'
	'^<.* as core::ops::function::Fn(Once|Mut)?<.*>>::call(_once|_mut)?$'
	'\{\{vtable\.shim\}\}$'
	'\{shim:vtable#[0-9]+\}$'
	'^std::thread::local::LocalKey<.*>::(try_)?with'
	'^std::sys(_common)?::backtrace::__rust_begin_short_backtrace'
	'^std::rt::lang_start'
)
RUST_NOISE_RE=$(
	IFS='|'
	printf '%s' "${RUST_NOISE_PATTERNS[*]}"
)

# rust_noise FRAME: FRAME (a function, or a folded frame) is a runtime frame
rust_noise() {
	local f=${1%_\[i\]}
	[[ $f =~ $RUST_NOISE_RE ]]
}

# rust_noise_filter: the lines (frames) on stdin that are runtime frames
rust_noise_filter() {
	local f
	while IFS= read -r f; do
		rust_noise "$f" && printf '%s\n' "$f"
	done
	return 0
}

# folded_name NAME: how to find the frame NAME in a folded file with
# fold_sum: NAME itself, or, when NAME has a ';' (which separates frames, so
# the folded output must write something else there: tracelloc writes ':'),
# a fold_sum regular expression ("~^...$") with any one character there
folded_name() {
	local re
	if [[ $1 == *';'* ]]; then
		re=$(printf '%s' "$1" | sed -E 's/[][\.^$*+?(){}|/]/\\&/g; s/;/[^;]/g')
		printf '~^%s$\n' "$re"
	else
		printf '%s\n' "$1"
	fi
}

# ---------------------------------------------------------------- ledgers with ids

# named_ledger EXPECT MAP OUT: the expect file's "METRIC ID VALUE" lines as
# "METRIC<TAB>NAME<TAB>VALUE" with NAME = MAP[ID] (MAP: the name of an
# associative array), the values of ids that share a name added up.  Ids
# missing from MAP are reported as "missing<TAB>ID".
named_ledger() {
	local exp=$1 out=$3 m id v
	local -n map=$2
	: >"$out.tmp"
	while read -r m id v; do
		case $m in
		live | live-count | allocated | count) ;;
		*) continue ;;
		esac
		if [ -z "${map[$id]+x}" ]; then
			printf 'missing\t%s\n' "$id" >>"$out.tmp"
			continue
		fi
		printf '%s\t%s\t%s\n' "$m" "${map[$id]}" "$v" >>"$out.tmp"
	done <"$exp"
	awk -F'\t' '
		$1 == "missing" { print; next }
		{ k = $1 "\t" $2; if (!(k in sum)) order[n++] = k; sum[k] += $3 }
		END { for (i = 0; i < n; i++) print order[i] "\t" sum[order[i]] }' "$out.tmp" >"$out"
	rm -f "$out.tmp"
}

# check_named_ledger LEDGER FOLDED METRIC WHAT: every "METRIC<TAB>NAME<TAB>N"
# line of a named ledger equals fold_sum(FOLDED, NAME); fails on ids with no
# name and when no line is non-zero
check_named_ledger() {
	local led=$1 fg=$2 metric=$3 what=$4 m name want got n=0 nonzero=0
	while IFS=$'\t' read -r m name want; do
		if [ "$m" = missing ]; then
			fail "$what: the target booked id '$name', which has no frame name in reports_lib.sh"
			continue
		fi
		[ "$m" = "$metric" ] || continue
		n=$((n + 1))
		[ "$want" != 0 ] && nonzero=1
		got=$(fold_sum "$fg" "$(folded_name "$name")")
		if ! assert_eq "$got" "$want" "$what: $metric of '$name'"; then
			fold_lines "$fg" "$(folded_name "$name")" | head -5 | cut -c1-300 | sed 's/^/      | /'
		fi
	done <"$led"
	[ "$n" -gt 0 ] || fail "$what: no '$metric' line in the ledger"
	[ "$nonzero" = 1 ] || fail "$what: no non-zero '$metric' line in the ledger"
}

# ledger_value EXPECT METRIC ID: a value of the target's own expect file
ledger_value() {
	expect_value "$1" "$2" "$3"
}

# line_of EXPECT KEY: the "line KEY N" of an expect file
line_of() {
	expect_value "$1" line "$2"
}

# ---------------------------------------------------------------- folded files

# fold_tail_sum FILE TAIL: sum of the lines whose stack ends with the frames
# TAIL (';'-separated, outermost first), as whole frames
fold_tail_sum() {
	[ -f "$1" ] || {
		echo 0
		return
	}
	FOLD_TAIL=$2 awk '
		BEGIN { tail = ENVIRON["FOLD_TAIL"]; s = 0 }
		{
			if (!match($0, / [0-9]+$/))
				next
			stack = substr($0, 1, RSTART - 1)
			val = substr($0, RSTART + 1) + 0
			if (stack == tail ||
			    (length(stack) > length(tail) &&
			     substr(stack, length(stack) - length(tail)) == ";" tail))
				s += val
		}
		END { printf "%.0f\n", s }' "$1"
}

# fold_frames FILE: every frame of every line, one per line
fold_frames() {
	awk '{ if (match($0, / [0-9]+$/)) { n = split(substr($0, 1, RSTART - 1), fr, ";"); for (i = 1; i <= n; i++) print fr[i] } }' "$1"
}

# ---------------------------------------------------------------- the report

# The report on stdout, as the README shows it:
#   ==> N top allocations out of M for a total of X
#       0xADDR: SIZE, AGE s old
#           0x%016x FUNCTION+0xOFF (MODULE) FILE:LINE
#                              [inlined] FUNCTION (MODULE) FILE:LINE
#            (N filtered out)
#   ==> N top allocators out of M for a total of X
#        1: SIZE live in N allocations, N allocation calls
#           frames...
# The parser below reads the LAST report of a file (the final one, above the
# summary; the first one with RP_WHICH=first), and writes each frame normalized as
#   FUNCTION (MODULE) BASENAME:LINE             address frame ("+0xOFF" dropped)
#   [inlined] FUNCTION (MODULE) BASENAME:LINE   inlined frame
#   (N filtered out)
# (" BASENAME:LINE" only when the frame has one; "?" + the raw line when a
# frame line has none of these shapes).

# shellcheck disable=SC2016 # an awk program
_RP_AWK='
function norm(line,   rest, fn, mod, fl, inl, parts, n) {
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	if (line ~ /^\([0-9]+ filtered out\)$/)
		return line
	inl = 0
	if (substr(line, 1, 10) == "[inlined] ") {
		inl = 1
		rest = substr(line, 11)
	} else if (match(line, /^0x[0-9a-fA-F]+ /)) {
		rest = substr(line, RLENGTH + 1)
	} else {
		return "?" line
	}
	fl = ""
	if (match(rest, / [^ ]+:[0-9]+$/)) {
		fl = substr(rest, RSTART + 1)
		rest = substr(rest, 1, RSTART - 1)
	}
	mod = ""
	if (match(rest, / \([^ ()]+\)$/)) {
		mod = substr(rest, RSTART + 2, RLENGTH - 3)
		rest = substr(rest, 1, RSTART - 1)
	}
	fn = rest
	if (!inl)
		sub(/\+0x[0-9a-fA-F]+$/, "", fn)
	if (fl != "") {
		n = split(fl, parts, "/")
		fl = parts[n]
	}
	FN = fn
	return (inl ? "[inlined] " : "") fn " (" mod ")" (fl != "" ? " " fl : "")
}
# norm also sets FN, the function of the frame ("" for other lines)
{ lines[NR] = $0 }
END {
	# the last report, or with RP_WHICH=first the first one
	which = ENVIRON["RP_WHICH"]
	start = 0
	for (i = 1; i <= NR; i++) {
		if (lines[i] ~ /^==> [0-9]+ top allocations /) {
			start = i
			if (which == "first")
				break
		}
	}
	if (!start)
		exit
	section = ""
	nent = 0
	for (i = start; i <= NR; i++) {
		l = lines[i]
		if (l ~ /^==> summary/ || (i > start && l ~ /^==> [0-9]+ top allocations /) || l ~ /^\[ *[0-9.]+s\] /)
			break
		if (l ~ /^==> [0-9]+ top allocations /) { section = "allocations"; nent = 0; print "H\tallocations\t" l; continue }
		if (l ~ /^==> [0-9]+ top allocators /) { section = "allocators"; nent = 0; print "H\tallocators\t" l; continue }
		if (section == "allocations" && match(l, /^ +0x[0-9a-fA-F]+: .*, [0-9.]+ s old$/)) {
			nent++
			h = l
			sub(/^ +0x[0-9a-fA-F]+: /, "", h)
			age = h
			sub(/ s old$/, "", age)
			sub(/^.*, /, "", age)
			size = h
			sub(/, [0-9.]+ s old$/, "", size)
			print "E\t" section "\t" nent "\t" size "\t" age
			continue
		}
		if (section == "allocators" && l ~ /^ +[0-9]+: .* live in [0-9]+ allocations, [0-9]+ allocation calls$/) {
			nent++
			h = l
			sub(/^ +/, "", h)
			rank = h
			sub(/:.*/, "", rank)
			sub(/^[0-9]+: /, "", h)
			size = h
			sub(/ live in .*/, "", size)
			cnt = h
			sub(/^.* live in /, "", cnt)
			sub(/ allocations,.*/, "", cnt)
			calls = h
			sub(/^.* allocations, /, "", calls)
			sub(/ allocation calls$/, "", calls)
			print "E\t" section "\t" nent "\t" size "\t" cnt "\t" calls "\t" rank
			continue
		}
		if (section != "" && nent > 0 && l ~ /^ +/) {
			FN = ""
			f = norm(l)
			print "F\t" section "\t" nent "\t" f "\t" FN
			continue
		}
		if (section != "")
			print "X\t" section "\t" l
	}
}'

# report_parse FILE [first]: the parsed final report (or, with "first",
# the first one), tab-separated:
#   H SECTION HEADER-LINE
#   E allocations N SIZE AGE
#   E allocators N SIZE LIVE-COUNT CALLS RANK
#   F SECTION N NORMALIZED-FRAME FUNCTION
#   X SECTION LINE      (a line of the section the parser did not understand)
report_parse() {
	RP_WHICH=${2:-last} awk "$_RP_AWK" "$1"
}

# report_header FILE SECTION: the "==> ..." line of SECTION in the final report
report_header() {
	report_parse "$1" | awk -F'\t' -v s="$2" '$1 == "H" && $2 == s { print $3; exit }'
}

# report_nentries FILE SECTION: entries listed in SECTION of the final report
report_nentries() {
	report_parse "$1" | awk -F'\t' -v s="$2" '$1 == "E" && $2 == s { n++ } END { print n + 0 }'
}

# report_entry_frames FILE SECTION FUNCTION [N]: the normalized frames of the
# N-th (default 1st) entry of SECTION that has a frame (address or inlined)
# of exactly FUNCTION, one per line
report_entry_frames() {
	report_parse "$1" | RP_FUNC=$3 awk -F'\t' -v s="$2" -v want="${4:-1}" '
		$1 == "F" && $2 == s { fr[$3] = fr[$3] $4 "\n"; if ($5 == ENVIRON["RP_FUNC"]) has[$3] = 1; if ($3 > max) max = $3 }
		END {
			for (i = 1; i <= max; i++)
				if (has[i] && ++k == want) { printf "%s", fr[i]; exit }
		}'
}

# report_entry_line FILE SECTION FUNCTION: the parsed "E" line of the first
# entry of SECTION with a frame of exactly FUNCTION
report_entry_line() {
	report_parse "$1" | RP_FUNC=$3 awk -F'\t' -v s="$2" '
		$1 == "E" && $2 == s { e[$3] = $0 }
		$1 == "F" && $2 == s && $5 == ENVIRON["RP_FUNC"] && !(done) { print e[$3]; done = 1 }'
}

# report_functions FILE: the function of every frame of the final report
report_functions() {
	report_parse "$1" | awk -F'\t' '$1 == "F" && $5 != "" { print $5 }'
}

# upto_main: the frames read on stdin up to and including the first frame
# of function "main"
upto_main() {
	awk '{ print } /^(\[inlined\] )?main \(/ { exit }'
}

# show_text TEXT: a multi-line value, indented (for failure messages)
show_text() {
	printf '%s\n' "$1" | cut -c1-240 | sed 's/^/      | /'
}

# assert_frames GOT WANT WHAT: two multi-line frame lists are equal
assert_frames() {
	if [ "$1" != "$2" ]; then
		fail "$3: frames differ"
		echo "      want:"
		show_text "$2"
		echo "      got:"
		show_text "${1:-<no such entry>}"
		return 1
	fi
}

# human_bytes_ok TEXT BYTES: TEXT ("767 B", "2.93 KiB", "54.4 KiB", ...) is
# BYTES rounded to the digits it shows
human_bytes_ok() {
	awk -v t="$1" -v b="$2" 'BEGIN {
		if (!match(t, /^[0-9]+(\.[0-9]+)? (B|KiB|MiB|GiB|TiB)$/)) exit 1
		split(t, p, " ")
		mult = p[2] == "B" ? 1 : p[2] == "KiB" ? 1024 : p[2] == "MiB" ? 1048576 : p[2] == "GiB" ? 1073741824 : 1099511627776
		dec = index(p[1], ".") ? length(p[1]) - index(p[1], ".") : 0
		tol = (0.5 * 10 ^ -dec) * mult + 1e-9
		d = p[1] * mult - b
		if (d < 0) d = -d
		exit !(d <= tol)
	}'
}

# human_to_bytes TEXT: the approximate number of bytes of "2.93 KiB" etc.
human_to_bytes() {
	awk -v t="$1" 'BEGIN {
		split(t, p, " ")
		mult = p[2] == "B" ? 1 : p[2] == "KiB" ? 1024 : p[2] == "MiB" ? 1048576 : p[2] == "GiB" ? 1073741824 : 1099511627776
		printf "%.0f\n", p[1] * mult
	}'
}

# assert_human TEXT BYTES WHAT
assert_human() {
	if ! human_bytes_ok "$1" "$2"; then
		fail "$3: '$1' is not $2 bytes as the report shows sizes"
		return 1
	fi
}

# ---------------------------------------------------------------- runs

# need_rust NAME: a Rust target exists (built by the Makefile with rustc)
need_rust() {
	if [ ! -x "$TB/$1" ]; then
		fail "Rust target $TB/$1 is missing (make targets builds it with rustc; is rustc on PATH or in ~/.cargo/bin?)"
		return 1
	fi
}

# run_ok NAME WHAT: after tl_run, the run ended normally with its target
# exiting 0, lost nothing, and the target's self-checks passed (if it wrote
# $T_DIR/NAME.exp)
run_ok() {
	local name=$1 what=$2
	check_normal_end "$name" '^target exited with status 0$' "$what" || return 1
	assert_eq "$SUM_LOST" 0 "$what: lost events" || return 1
	assert_eq "$SUM_FAILED" 0 "$what: failed stacks"
	if [ -e "$T_DIR/$name.exp" ] || [ -n "${EXPECT_NEEDED:-}" ]; then
		check_expect_file "$T_DIR/$name.exp" "$what" || return 1
	fi
	return 0
}

# traced NAME TARGET [TRACELLOC ARGS...] [-- TARGET ARGS]: run TARGET under
# tracelloc with TL_EXPECT=$T_DIR/NAME.exp and the given options (-i 0 unless
# given), folded output to $T_DIR/NAME.fg when -f is not given
traced() {
	local name=$1 target=$2
	shift 2
	local opts=() targs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	targs=("$@")
	case " ${opts[*]} " in
	*" -i "* | *" --interval "*) ;;
	*) opts=(-i 0 "${opts[@]}") ;;
	esac
	case " ${opts[*]} " in
	*" -f "* | *" --flamegraph "*) ;;
	*) opts+=(-f "$T_DIR/$name.fg") ;;
	esac
	TL_ENV=(TL_EXPECT="$T_DIR/$name.exp")
	tl_run "$name" "${opts[@]}" -- "$TB/$target" "${targs[@]}"
}

# fold_leaf_sum FILE FRAME LEAF: sum of the lines that have FRAME (a whole
# frame) and whose last frame is LEAF
fold_leaf_sum() {
	[ -f "$1" ] || {
		echo 0
		return
	}
	FOLD_WANT=$2 FOLD_LEAF=$3 awk '
		BEGIN { want = ENVIRON["FOLD_WANT"]; leaf = ENVIRON["FOLD_LEAF"]; s = 0 }
		{
			if (!match($0, / [0-9]+$/))
				next
			val = substr($0, RSTART + 1) + 0
			n = split(substr($0, 1, RSTART - 1), fr, ";")
			if (fr[n] != leaf)
				next
			for (i = 1; i <= n; i++)
				if (fr[i] == want) {
					s += val
					break
				}
		}
		END { printf "%.0f\n", s }' "$1"
}

# fold_parents FILE FRAME [K]: the distinct frames found K (default 1)
# places before FRAME (its caller, ...) on the lines that have it, sorted;
# "<none>" when FRAME is the outermost frame
fold_parents() {
	FOLD_WANT=$2 awk -v k="${3:-1}" '
		BEGIN { want = ENVIRON["FOLD_WANT"] }
		{
			if (!match($0, / [0-9]+$/))
				next
			n = split(substr($0, 1, RSTART - 1), fr, ";")
			for (i = 1; i <= n; i++)
				if (fr[i] == want)
					print (i > k ? fr[i - k] : "<none>")
		}' "$1" | sort -u
}

# frame_pair FUNCTION: from normalized frames on stdin, the frame of
# FUNCTION (exact) and the frame after it, each on a line
frame_pair() {
	RP_FUNC=$1 awk '
		BEGIN { f = ENVIRON["RP_FUNC"] }
		found { print; exit }
		{
			l = $0
			sub(/^\[inlined\] /, "", l)
			if (substr(l, 1, length(f) + 2) == f " (") { print; found = 1 }
		}'
}

# ---------------------------------------------------------------- stacks, frame by frame

# fold_segment FILE FROM TO: for every line with the frame TO, its frames from
# the nearest FROM above TO down to TO, ';'-joined (outermost first); distinct,
# sorted.  "<no FROM>;" and the frames from the root when no FROM is above TO.
fold_segment() {
	FOLD_FROM=$2 FOLD_TO=$3 awk '
		BEGIN { from = ENVIRON["FOLD_FROM"]; to = ENVIRON["FOLD_TO"] }
		{
			if (!match($0, / [0-9]+$/))
				next
			n = split(substr($0, 1, RSTART - 1), fr, ";")
			for (i = 1; i <= n; i++) {
				if (fr[i] != to)
					continue
				for (j = i; j >= 1 && fr[j] != from; j--)
					;
				s = j >= 1 ? fr[j] : "<no " from ">;" fr[1]
				for (k = (j >= 1 ? j : 1) + 1; k <= i; k++)
					s = s ";" fr[k]
				print s
				break
			}
		}' "$1" | sort -u
}

# fold_program FILE [DROP]: the lines of the program's stacks (a frame of
# leaky's own code, "leaky::..." or "<leaky::..."), without the frames listed
# in the file DROP, the values of the stacks that became one added up; sorted
fold_program() {
	awk -v drop="${2:-}" '
		BEGIN { if (drop != "") while ((getline l < drop) > 0) gone[l] = 1 }
		{
			if (!match($0, / [0-9]+$/))
				next
			val = substr($0, RSTART + 1) + 0
			n = split(substr($0, 1, RSTART - 1), fr, ";")
			prog = 0
			s = ""
			for (i = 1; i <= n; i++) {
				if (fr[i] ~ /^<?leaky::/)
					prog = 1
				if (fr[i] in gone)
					continue
				s = s (s == "" ? "" : ";") fr[i]
			}
			if (!prog)
				next
			if (!(s in sum))
				order[m++] = s
			sum[s] += val
		}
		END { for (i = 0; i < m; i++) printf "%s %.0f\n", order[i], sum[order[i]] }' "$1" | LC_ALL=C sort
}

# assert_chain GOT WHAT RE...: GOT (the output of fold_segment: one line of
# ';'-separated frames) has exactly one frame per RE, the i-th matching the
# i-th RE as a whole
assert_chain() {
	local got=$1 what=$2 i=0 bad=
	shift 2
	local -a fr
	if [ -z "$got" ] || [[ $got == *$'\n'* ]]; then
		fail "$what: want one stack, got $(printf '%s\n' "$got" | grep -c .)"
		show_text "$got"
		return 1
	fi
	IFS=';' read -r -a fr <<<"$got"
	if [ "${#fr[@]}" != $# ]; then
		bad="${#fr[@]} frames, want $#"
	else
		for re; do
			if ! [[ ${fr[i]} =~ ^($re)$ ]]; then
				bad="frame $((i + 1)) '${fr[i]}' does not match /$re/"
				break
			fi
			i=$((i + 1))
		done
	fi
	if [ -n "$bad" ]; then
		fail "$what: $bad"
		show_text "$(tr ';' '\n' <<<"$got")"
		return 1
	fi
}

# re_quote TEXT: an ERE that matches TEXT
re_quote() {
	printf '%s' "$1" | sed -E 's/[][\.^$*+?(){}|/]/\\&/g'
}

# report_entry_names FILE SECTION FUNCTION [N]: the frames of the entry (as
# report_entry_frames) as "FUNCTION" for an address frame, "[inlined]
# FUNCTION" for an inlined one and "(N filtered out)"
report_entry_names() {
	report_entry_frames "$@" | report_names
}

# report_names: normalized frames on stdin ("FUNCTION (MODULE) FILE:LINE")
# written as report_entry_names does
report_names() {
	sed -E 's/ \([^ ()]+\)( [^ ]+:[0-9]+)?$//'
}

# rust_collapse: normalized frames of an entry shown with --no-default-filters
# on stdin, written as the default filters must show them: each run of
# runtime frames (rust_noise) replaced by "(N filtered out)"
rust_collapse() {
	local fr fn n=0
	while IFS= read -r fr; do
		fn=$(printf '%s\n' "$fr" | report_names)
		fn=${fn#\[inlined\] }
		if rust_noise "$fn"; then
			n=$((n + 1))
			continue
		fi
		[ "$n" -gt 0 ] && printf '(%d filtered out)\n' "$n"
		n=0
		printf '%s\n' "$fr"
	done
	[ "$n" -gt 0 ] && printf '(%d filtered out)\n' "$n"
	return 0
}
