#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark of tracelloc (make bench). Not a test: it prints numbers and
# PASS/FAIL against the targets, and exits 0 whenever it could run at all.
#
# 1. Cost per allocator call. bench/churn (1 and 2 threads, malloc straight
#    from the loop or through 5 frames) times its own loop, run
#      untraced | floor: tracelloc --empty-probes (the same probes, programs
#      that return at once) | tracelloc -p | tracelloc -p --sample-bytes 512K
#      | tracelloc -p --probe-at-symbol (free probed at +0, single-stepped)
#      | BCC memleak | bpftrace,
#    all variants of one config back to back, RUNS times; medians. Ratios are
#    paired: each run's own ratio (its variants ran seconds apart), then the
#    median of those, so that the VM's slow and fast spells cancel.
#    With 2 target threads at full speed (those runs, and one sustained run of
#    ~10 s, 5-deep stacks): lost events, daemon CPU.
# 2. Where full tracing's time goes: each BPF program's run time per call
#    (kernel.bpf_stats_enabled, on for those runs only).
# 3. The cost per allocator entry point (calloc, posix_memalign, ...): what a
#    probed function whose first instruction the kernel single-steps costs.
# 4. Daemon memory with 10 million live blocks (bench/holder).
# 5. Attach time: from launching tracelloc -p to the target's first traced call;
#    and on an idle target (sleep), to the "attached" line, and the end of -d 0.1.
# 6. Sampling on a large run: the holder again under --sample-bytes, its
#    estimated live bytes per call site against section 4's full trace, and
#    what sampling saved there (time to allocate, daemon memory).
# 7. Stacks without frame pointers: churn built with -fomit-frame-pointer,
#    traced by the unwind tables (the default), beside the frame-pointer
#    build traced by --unwind fp, at depths 0, 5 and 20: each against its own
#    floor (paired), the return program's run time of both, 2 threads at full
#    speed (lost events), the tables' size and build time, and the attach to
#    /usr/bin/python3.11; and what the ns added over the floor would make of
#    the ratios on a host whose traps cost 0.8 us a call (NOFP_FLOOR_NS).
#    BENCH_ONLY=7 runs this section alone.
# 8. Allocator families: churn linked against jemalloc, tcmalloc, mimalloc
#    and musl beside glibc's, each against its own floor; and what probing
#    glibc's posix_memalign past its first instruction saves. BENCH_ONLY=8.
# 9. A throttled daemon: tracelloc in a cgroup held to BENCH_THROTTLE_PCT (30)
#    percent of a CPU while the holder allocates its blocks at full speed:
#    lost events and the longest gap between two reads. BENCH_ONLY=9.
# 10. A pre-forking server: churn forks 8 workers once traced (--follow-forks),
#    traced against the floor, and with the daemon throttled. BENCH_ONLY=10.
# 11. The daemon's model per record (bench/heapcost: heap updates without BPF),
#    64 and 100,000 stacks. BENCH_ONLY=11.
# 12. The daemon's memory per traced process: forked workers (--follow-forks)
#    and separate processes (-p A,B,...), 20 and 60 of each, every stack
#    named (-m count -f): the growth of its peak RSS per process. BENCH_ONLY=12.
# 13. The host's system calls while tracing: bench/syscalls (getppid and a
#    one-byte read, a process tracelloc does not trace) untraced, while
#    tracelloc -p traces a dynamically linked sleeper (its mappings seen at
#    its libc's mmap: nothing on the system-call path), and while it traces
#    a static one (the system-call tracepoints, which every process pays);
#    rounds of the three back to back, ratios paired. BENCH_ONLY=13.
# 14. What --follow-forks adds to a fork and to a posix_spawn (bench/forks:
#    children one after the other, each waited for), traced against
#    untraced. BENCH_ONLY=14.
# 15. Naming and writing folded stacks: a generated program of 20,000 leaf
#    functions under one 30-deep chain of long names, each leaking a block
#    (bench/manynames.py), -m count -f: MB/s of the writer, names looked up
#    included. BENCH_ONLY=15.
# 16. A big binary with the default report: clang++ -c of a small C++ file
#    (libLLVM: 45,000 symbols, no frame pointers), -v: records lost and the
#    longest time the ring buffers went unread, first names of each library
#    included; the compile's time traced against untraced. BENCH_ONLY=16.
# 17. The leak check (--leak-check, three times on SIGUSR1): a target holding
#    64 MiB, 256 MiB and 1 GiB of reachable heap in 64 KiB blocks, and 1 M
#    blocks of 32 bytes, with a heartbeat thread ticking every 1 ms: how long
#    the target was stopped (the snapshot's fork), the target's own longest
#    gap, and the scan's time against the copy floor (process_vm_readv of as
#    many bytes, in the same run; medians of three); then 1 GiB with the
#    main thread parked in nanosleep, poll, epoll_wait, cond_timedwait and
#    select (another thread makes the snapshot). BENCH_ONLY=17.
# 18. The BPF programs' own cost (kernel.bpf_stats_enabled): ns per run of
#    enter_call and leave_alloc at depths 0, 5 and 20, churn without frame
#    pointers walked by the tables beside churn with them walked by --unwind
#    fp, 1 thread, the least of BENCH_PCOST_RUNS (5) runs side by side (the
#    depths: BENCH_PCOST_DEPTHS); and where
#    leave_alloc's time goes: the same with the stack walk left out (nostack)
#    and with the record built but not sent (noring; TRACELLOC_BENCH_PARTS).
#    These do not depend on the price of a trap. With BENCH_BASELINE set to
#    another tracelloc binary (an older build), its full runs are measured in
#    the same run, and the reduction is said. Then leave_alloc's cost while
#    tracing two real programs (cmake -P over a regex script, python3.11
#    writing JSON), beside the baseline's, and whether both builds found the
#    same calls on the same stacks. Side by side: two tracers attached to one
#    process at once (the build and the baseline; the tables and --unwind fp
#    over one churn with frame pointers; cmake and python3.11 attached by pid
#    while they wait), whose paired ratios hold to a few percent where this
#    host drifts 30% between runs; the verdicts read those. And what the
#    figures alone would make of section 7's ratio to the floor on a host
#    whose traps cost 0.8 us a call (PCOST_FLOOR_NS): a lower bound, as
#    tracing adds more to a call than the programs' run time. BENCH_ONLY=18.
# 19. The soak (bench/soak.sh): PostgreSQL under pgbench -C (a backend forked
#    per connection, BENCH_SOAK_CONNECTIONS: 10,000) and with 4 connections
#    kept, and a python Pool(maxtasksperchild=1), untraced and traced side by
#    side: processes served, traced, untraced, the daemon's RSS after warm-up
#    and at the end (growth per 1,000 exits), records lost, tps traced /
#    untraced, the connection time added, and each kept backend's live bytes
#    against the server's own count of its memory. BENCH_ONLY=19.
# 20. Runtimes (bench/runtimes.sh): a Python, a Go and a node workload whose
#    calls are known, counted by tracelloc against tracemalloc, Go's own heap
#    profile and heaptrack (node's native part); the share of their stacks
#    that reach the program's entry; the workload's time traced against
#    untraced and the floor. BENCH_ONLY=20.
#
# Environment: BENCH_RUNS (7), BENCH_FN_RUNS (3), BENCH_ATTACH_RUNS (5), BENCH_ITER (50000 loop
# iterations per thread when traced; untraced runs do 20 times more),
# BENCH_SUSTAIN_ITER (2000000: the sustained 2-thread runs, ~10 s traced),
# BENCH_NOFP_RUNS (3: the runs of sections 7 and 8),
# BENCH_HOLD (10000000), BENCH_SAMPLE_BYTES (524288: section 1's sampled
# rows, jemalloc's default), BENCH_SAMPLE_HOLD_BYTES (16384: section 6; its
# error shrinks with the number of samples, HOLD * 40 / N), BENCH_PEERS=0 to leave out memleak and bpftrace,
# BENCH_INSTALL=0 to install nothing. Logs of the last run: build/bench/last/.
set -u
export LC_ALL=C

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
TRACELLOC=$ROOT/tracelloc
OUT=$ROOT/build/bench
LOGS=$OUT/last
RUNS=${BENCH_RUNS:-7}
ATTACH_RUNS=${BENCH_ATTACH_RUNS:-5}
FN_RUNS=${BENCH_FN_RUNS:-3}
ITER=${BENCH_ITER:-50000}
SUSTAIN_ITER=${BENCH_SUSTAIN_ITER:-2000000}
ITER_UNTRACED=$((ITER * 20))
HOLD=${BENCH_HOLD:-10000000}
SAMPLE_BYTES=${BENCH_SAMPLE_BYTES:-524288}
SAMPLE_HOLD_BYTES=${BENCH_SAMPLE_HOLD_BYTES:-16384}
PEERS=${BENCH_PEERS:-1}
INSTALL=${BENCH_INSTALL:-1}
BENCH_START=$EPOCHREALTIME

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (BPF and uprobes)"
[ -x "$TRACELLOC" ] || die "no ./tracelloc: build it first (make bench does)"
for tool in gcc awk objdump nm ldd; do
	command -v "$tool" >/dev/null || die "needs $tool"
done

mkdir -p "$OUT" || die "cannot create $OUT"
rm -rf "$LOGS"
mkdir -p "$LOGS" || die "cannot create $LOGS"
WORK=$(mktemp -d /tmp/tracelloc-bench.XXXXXX) || die "mktemp"

# kernel.bpf_stats_enabled as it was, while section 2 has it on
BPF_STATS_OLD=""
restore_bpf_stats() {
	[ -n "$BPF_STATS_OLD" ] && echo "$BPF_STATS_OLD" 2>/dev/null >/proc/sys/kernel/bpf_stats_enabled
	BPF_STATS_OLD=""
}

# every process this script starts, so that it can end them, and only them:
# a pid is signalled only while it is still a child of this shell
STARTED=()
# alive PID: PID runs (not a zombie) and is a child of this shell
alive() {
	local st state ppid rest
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	read -r state ppid rest <<<"${st##*) }"
	[ "$state" != Z ] && [ "$ppid" = "$BASHPID" ]
}
signal_ours() {
	local sig=$1 pid
	shift
	for pid in "$@"; do
		alive "$pid" && kill "-$sig" "$pid" 2>/dev/null
	done
	return 0
}
cleanup() {
	signal_ours KILL "${STARTED[@]}"
	rm -rf "$WORK"
	restore_bpf_stats
}
trap cleanup EXIT
trap 'note interrupted; exit 1' INT TERM

TARGET_CFLAGS="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -Wall -Wextra"
gcc $TARGET_CFLAGS -o "$OUT/churn" bench/churn.c || die "cannot build bench/churn.c"
# the same churn as distributions build code: no frame pointers (section 7)
gcc ${TARGET_CFLAGS/-fno-omit-frame-pointer/-fomit-frame-pointer} -o "$OUT/churn_nofp" bench/churn.c ||
	die "cannot build bench/churn.c without frame pointers"
gcc $TARGET_CFLAGS -o "$OUT/holder" bench/holder.c || die "cannot build bench/holder.c"
# the daemon's model alone (section 11), on the objects make built
# (the Makefile's build/bench/heapcost is $OUT/heapcost)
make -s build/bench/heapcost || die "cannot build bench/heapcost.c"
# and linked against each allocator family (section 8); musl through musl-gcc
declare -A CHURN_FAMILY=([glibc]=$OUT/churn [named]=$OUT/churn)
for fam in jemalloc tcmalloc mimalloc; do
	gcc $TARGET_CFLAGS -o "$OUT/churn_$fam" bench/churn.c -l"$fam" 2>>"$LOGS/families.log" &&
		CHURN_FAMILY[$fam]=$OUT/churn_$fam
done
command -v musl-gcc >/dev/null &&
	musl-gcc ${TARGET_CFLAGS/-pthread/} -o "$OUT/churn_musl" bench/churn.c 2>>"$LOGS/families.log" &&
	CHURN_FAMILY[musl]=$OUT/churn_musl
# the processes of section 12: the test suite's own fork storm and sleeper
gcc $TARGET_CFLAGS -Itests/targets -o "$OUT/forkstorm" tests/targets/forkstorm.c ||
	die "cannot build tests/targets/forkstorm.c"
gcc $TARGET_CFLAGS -Itests/targets -o "$OUT/sleeper" tests/targets/sleeper.c ||
	die "cannot build tests/targets/sleeper.c"
# section 13: an untraced process's system calls; the sleeper linked statically
gcc -O2 -o "$OUT/syscalls" bench/syscalls.c || die "cannot build bench/syscalls.c"
gcc -O2 -g -fno-omit-frame-pointer -o "$OUT/forks" bench/forks.c || die "cannot build bench/forks.c"
gcc -O2 -g -pthread -o "$OUT/reachable" bench/reachable.c || die "cannot build bench/reachable.c"
gcc -O2 -o "$OUT/vmread" bench/vmread.c || die "cannot build bench/vmread.c"
gcc -static $TARGET_CFLAGS -Itests/targets -o "$OUT/sleeper_static" tests/targets/sleeper.c 2>/dev/null ||
	note "no static glibc: section 13 without its static row"
CHURN=$OUT/churn
CHURN_FP=$OUT/churn
CHURN_NOFP=$OUT/churn_nofp
HOLDER=$OUT/holder

# ---------------------------------------------------------------- helpers

# The waits below use shell builtins only: while a target is timed, the
# script must not take CPU from it (a grep and a sleep every few ms would).
now() { echo "$EPOCHREALTIME"; }
clock_us() { local t=$EPOCHREALTIME; NOW_US=$(( ${t%.*} * 1000000 + 10#${t#*.} )); }	# no fork
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
mkfifo "$WORK/snooze" && exec {SNOOZE_FD}<>"$WORK/snooze" || die "cannot make a fifo"
snooze() { read -r -t "$1" -u "$SNOOZE_FD" _; return 0; }

# has_line FILE REGEX: a line of FILE matches
has_line() {
	local line
	[ -r "$1" ] || return 1
	while IFS= read -r line; do
		[[ $line =~ $2 ]] && return 0
	done <"$1"
	return 1
}

# wait_line FILE REGEX TIMEOUT_S [PID [POLL_S]]: until a line of FILE matches;
# fails at the timeout, or once PID (the process that should write it) is gone
wait_line() {
	local file=$1 re=$2 deadline pid=${4:-} poll=${5:-0.005}
	clock_us
	deadline=$(( NOW_US + ${3%.*} * 1000000 ))
	until has_line "$file" "$re"; do
		if [ -n "$pid" ] && ! alive "$pid"; then
			has_line "$file" "$re"
			return
		fi
		clock_us
		[ "$NOW_US" -gt "$deadline" ] && return 1
		snooze "$poll"
	done
}

# wait_exit PID TIMEOUT_S: reaps PID; kills it at the timeout (then fails)
wait_exit() {
	local pid=$1 deadline
	clock_us
	deadline=$(( NOW_US + ${2%.*} * 1000000 ))
	while alive "$pid"; do
		clock_us
		if [ "$NOW_US" -gt "$deadline" ]; then
			signal_ours KILL "$pid"
			wait "$pid" 2>/dev/null
			return 1
		fi
		snooze 0.02
	done
	wait "$pid" 2>/dev/null
	return 0
}

# CPU time a process has run, all its threads, in ns (scheduler accounting, not ticks)
cpu_ns() {
	local f ns rest total=0 any=""
	for f in /proc/"$1"/task/*/schedstat; do
		read -r ns rest 2>/dev/null <"$f" || continue
		total=$((total + ns)) any=1
	done
	[ -n "$any" ] && echo "$total"
}
field() { sed -n "s/.*[ ]$2=\([^ ]*\).*/\1/p" "$1" | tail -1; }

# median of the arguments, printed as MEDIAN_FMT (default %.1f)
median() {
	[ $# -eq 0 ] && { echo "n/a"; return; }
	printf '%s\n' "$@" | sort -g | awk -v f="${MEDIAN_FMT:-%.1f}" '{ v[NR] = $1 }
		END { printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
calc() { awk "BEGIN { x = $1; printf \"$2\", x }" 2>/dev/null || echo "n/a"; }
isnum() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
verdict() { if [ "$1" = 1 ]; then echo PASS; elif [ "$1" = 0 ]; then echo FAIL; else echo "N/A "; fi; }
le() { isnum "${1:-x}" && isnum "${2:-x}" || { echo x; return; }; awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
ge() { isnum "${1:-x}" && isnum "${2:-x}" || { echo x; return; }; awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? 1 : 0 }'; }
# paired CONFIG VARIANT REF: each run's (VARIANT - untraced) / (REF - untraced),
# over the runs that have all three (section 1's RUN_NS), in run order
paired() {
	local run u a b out=""
	for run in $(seq "$RUNS"); do
		u=${RUN_NS[$1/untraced/$run]:-} a=${RUN_NS[$1/$2/$run]:-} b=${RUN_NS[$1/$3/$run]:-}
		isnum "${u:-x}" && isnum "${a:-x}" && isnum "${b:-x}" || continue
		out="$out $(calc "($a - $u) / ($b - $u)" %.3f)"
	done
	echo "$out"
}

apt_updated=0
apt_install() {
	[ "$INSTALL" = 1 ] || return 1
	command -v apt-get >/dev/null || return 1
	note "installing $* (apt-get)"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >>"$LOGS/apt.log" 2>&1; then
		[ "$apt_updated" = 1 ] && return 1
		apt_updated=1
		apt-get update -q >>"$LOGS/apt.log" 2>&1 || return 1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >>"$LOGS/apt.log" 2>&1 || return 1
	fi
}

# ---------------------------------------------------------------- the machine

LIBC=$(ldd "$CHURN" | awk '/libc\.so/ { print $3 }')
LIBC=$(readlink -f "$LIBC")
GLIBC=$(ldd --version 2>/dev/null | head -1 | awk '{ print $NF }')
echo "== tracelloc benchmark"
echo "kernel $(uname -r), $(nproc) CPUs, glibc $GLIBC, $("$TRACELLOC" -V 2>&1 | head -1)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine shows up as noise)"
echo "runs: $RUNS per variant (per-function table: $FN_RUNS), $ITER iterations per thread" \
     "traced, $ITER_UNTRACED untraced; medians"

# ---------------------------------------------------------------- probe sites

# x86 uprobes emulate these first instructions (arch/x86/kernel/uprobes.c:
# branch_setup_xol_ops, push_setup_xol_ops): push of a register, direct
# jmp, jcc and call, and the one-byte nop. Anything else is copied out of
# line and single-stepped: a second trap per hit.
emulated_insn() {
	case "$1" in
	"push %"*|"nop") return 0 ;;
	j*\ \**|call\ \**) return 1 ;;	# indirect: single-stepped
	j*\ [0-9a-f]*|call\ [0-9a-f]*) return 0 ;;
	*) return 1 ;;
	esac
}
func_addr() {
	nm -D --defined-only "$LIBC" | awk -v f="$1" '{ n = $3; sub(/@.*/, "", n) } n == f { print $1; exit }'
}
first_insn() {
	local addr
	addr=$(func_addr "$1")
	[ -n "$addr" ] || return 1
	objdump -d --no-show-raw-insn --start-address=0x"$addr" \
		--stop-address=$(printf '0x%x' $((0x$addr + 16))) "$LIBC" |
		awk -F'\t' '/^ *[0-9a-f]+:\t/ { sub(/ +#.*/, "", $2); gsub(/  +/, " ", $2); print $2; exit }'
}

FUNCS="malloc calloc realloc reallocarray posix_memalign aligned_alloc memalign valloc pvalloc free __call_tls_dtors"
declare -A INSN SITE
# what tracelloc says of its sites (-v), on a target that waits
"$CHURN" -n 1 >"$LOGS/sites.target" 2>&1 &
pid=$!
STARTED+=("$pid")
SHIFTS=""
if wait_line "$LOGS/sites.target" '^ready' 10 "$pid"; then
	"$TRACELLOC" -v -p "$pid" -i 0 -t 0 >"$LOGS/sites.out" 2>"$LOGS/sites.err" &
	tpid=$!
	STARTED+=("$tpid")
	if wait_line "$LOGS/sites.err" 'attached to pid' 30 "$tpid"; then
		sleep 0.1
		SHIFTS=$(grep -E 'probed at \+' "$LOGS/sites.err")
		PROBES_LINE=$(grep -E 'attached to pid' "$LOGS/sites.err" | sed 's/.*: //')
		LINK_KIND=$(sed -n 's/.*attached through \(.*\) links.*/\1/p' "$LOGS/sites.err")
	fi
	signal_ours TERM "$tpid"
	wait_exit "$tpid" 20
fi
signal_ours USR1 "$pid"
wait_exit "$pid" 10

echo
echo "== probe sites in $LIBC (first instruction; tracelloc: ${PROBES_LINE:-?}, ${LINK_KIND:-?} links)"
printf '%-18s %-34s %-8s %s\n' function "first instruction" "return" "tracelloc probes at"
for f in $FUNCS; do
	insn=$(first_insn "$f") || insn="(not in libc)"
	shift_=$(echo "$SHIFTS" | sed -n "s/^tracelloc: $f probed at +\([0-9]*\).*/\1/p")
	# an alias (memalign = aligned_alloc) shares the probe tracelloc names once
	for g in $FUNCS; do
		[ -z "$shift_" ] && [ "$g" != "$f" ] && [ "$(func_addr "$g")" = "$(func_addr "$f")" ] &&
			shift_=$(echo "$SHIFTS" | sed -n "s/^tracelloc: $g probed at +\([0-9]*\).*/\1/p")
	done
	ret=yes
	case "$f" in free|__call_tls_dtors) ret=no ;; esac
	if [ -n "$shift_" ]; then
		site="+$shift_: emulated (shifted past the first instruction)"
	elif emulated_insn "$insn"; then
		site="+0: emulated"
	else
		site="+0: SINGLE-STEPPED (a second trap per call)"
	fi
	INSN[$f]=$insn
	SITE[$f]=$site
	printf '%-18s %-34s %-8s %s\n' "$f" "$insn" "$ret" "$site"
done
echo "(a function with a return probe is probed past one compare or test at most: the kernel takes the"
echo " return address from the top of the stack when the probe fires)"

# ---------------------------------------------------------------- peers

MEMLEAK_SKIP=""
BPFTRACE_SKIP=""
PEER_NS=()	# command prefix for the peers: a mount namespace with tracefs, if needed
TRACEFS_NOTE="not needed (the peers attach through the perf uprobe PMU)"
if [ "$PEERS" != 1 ]; then
	MEMLEAK_SKIP="BENCH_PEERS=0"
	BPFTRACE_SKIP="BENCH_PEERS=0"
fi

setup_memleak() {
	local arch kdir hdr common release
	if ! command -v memleak-bpfcc >/dev/null; then
		apt_install bpfcc-tools || { MEMLEAK_SKIP="bpfcc-tools not installed"; return; }
	fi
	[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import bcc' 2>/dev/null ||
		{ MEMLEAK_SKIP="python3-bpfcc not importable"; return; }
	# BCC compiles its BPF program against kernel headers. It finds none for
	# this kernel; Debian's 6.1 headers serve (memleak uses only uapi and
	# helper definitions). Debian splits them into -ARCH and -common, which
	# BCC_KERNEL_SOURCE cannot name both of: a merged tree of symlinks can.
	release=$(uname -r)
	kdir=/lib/modules/$release
	if [ -e "$kdir/build/include/linux/kconfig.h" ] || [ -e "$kdir/source/include/linux/kconfig.h" ] ||
	   [ -e /sys/kernel/kheaders.tar.xz ]; then
		BCC_HEADERS="the running kernel's"
		return
	fi
	arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	find_headers() {
		ls -d /usr/src/linux-headers-[0-9]*-"$arch" 2>/dev/null | grep -v -e cloud -e '-rt-' | sort -V | tail -1
	}
	hdr=$(find_headers)
	if [ -z "$hdr" ]; then
		apt_install "linux-headers-$arch" || { MEMLEAK_SKIP="no kernel headers for BCC (linux-headers-$arch not installed)"; return; }
		hdr=$(find_headers)
	fi
	common=${hdr%-"$arch"}-common
	if [ -z "$hdr" ] || [ ! -d "$common" ]; then
		MEMLEAK_SKIP="no kernel headers for BCC (no $common)"
		return
	fi
	mkdir -p "$WORK/kheaders"
	if ! cp -as "$common/." "$WORK/kheaders/" 2>>"$LOGS/kheaders.log" ||
	   ! cp -as --remove-destination "$hdr/." "$WORK/kheaders/" 2>>"$LOGS/kheaders.log"; then
		MEMLEAK_SKIP="could not assemble kernel headers for BCC (see $LOGS/kheaders.log)"
		return
	fi
	export BCC_KERNEL_SOURCE=$WORK/kheaders
	BCC_HEADERS="$(basename "$hdr") + -common, for kernel $release"
}

setup_bpftrace() {
	if ! command -v bpftrace >/dev/null; then
		apt_install bpftrace || { BPFTRACE_SKIP="bpftrace not installed"; return; }
	fi
}

if [ "$PEERS" = 1 ]; then
	setup_memleak
	setup_bpftrace
	# both attach uprobes through the perf uprobe PMU; without it they write
	# uprobe_events in tracefs: mount it in a mount namespace of their own
	if [ ! -e /sys/bus/event_source/devices/uprobe/type ] && [ ! -e /sys/kernel/tracing/uprobe_events ] &&
	   [ ! -e /sys/kernel/debug/tracing/uprobe_events ] && command -v unshare >/dev/null; then
		PEER_NS=(unshare -m --propagation private sh -c 'mount -t tracefs nodev /sys/kernel/tracing && exec "$0" "$@"')
		TRACEFS_NOTE="no uprobe PMU: mounted for the peers only, in a mount namespace of their own"
	fi
fi

# "what a user would write": a leak tracer in bpftrace, per-address sizes and stacks
write_bpftrace_script() {
	cat >"$WORK/leak.bt" <<EOF
BEGIN { printf("bpftrace: attached\n"); }
uprobe:$LIBC:free /pid == \$1/ { delete(@size[arg0]); delete(@stack[arg0]); }
uprobe:$LIBC:malloc /pid == \$1/ { @req[tid] = arg0; }
uretprobe:$LIBC:malloc /pid == \$1 && @req[tid]/ {
	@size[retval] = @req[tid];
	@stack[retval] = ustack;
	delete(@req[tid]);
}
END { clear(@size); clear(@stack); clear(@req); }
EOF
}
write_bpftrace_script

# ---------------------------------------------------------------- one measurement

# measure VARIANT TAG CHURN_ARGS...: runs churn under VARIANT; sets R_NS (ns per
# call), R_ITER_NS, R_WALL, R_READY (ms from launching the tracer to its ready
# line), and for tracelloc R_LOST, R_ALLOCS, R_MALLOCS, and R_CPU (full only:
# the daemon's CPU seconds from the start signal until it has drained the
# loop's records). Fails with R_WHY set.
measure() {
	local variant=$1 tag=$2 target tracer="" dpid="" t0 t1 start_ns="" prev cur i extra=()
	shift 2
	R_NS="" R_ITER_NS="" R_WALL="" R_READY="" R_LOST="" R_ALLOCS="" R_MALLOCS="" R_CPU="" R_WHY=""
	case "$variant" in
	memleak|bpftrace) extra=(-w) ;;	# and check that free() is probed
	full) extra=(-l 500) ;;		# stay half a second: the daemon is measured then
	esac
	"$CHURN" "$@" "${extra[@]}" >"$LOGS/$tag.target" 2>&1 &
	target=$!
	STARTED+=("$target")
	if ! wait_line "$LOGS/$tag.target" '^ready' 30 "$target"; then
		R_WHY="churn did not start"
		signal_ours KILL "$target"; wait_exit "$target" 5
		return 1
	fi
	t0=$(now)
	case "$variant" in
	untraced) ;;
	floor|full|fpwalk|sampled|symbol)
		local flags=()
		[ "$variant" = floor ] && flags=(--empty-probes)
		[ "$variant" = fpwalk ] && flags=(--unwind fp)
		[ "$variant" = sampled ] && flags=(--sample-bytes "$SAMPLE_BYTES")
		[ "$variant" = symbol ] && flags=(--probe-at-symbol)
		"$TRACELLOC" "${flags[@]}" "${TL_EXTRA[@]}" -p "$target" -i 0 -t 0 >"$LOGS/$tag.out" 2>"$LOGS/$tag.err" &
		dpid=$!
		STARTED+=("$dpid")
		if ! wait_line "$LOGS/$tag.err" 'attached to pid' 60 "$dpid"; then
			R_WHY="tracelloc did not attach: $(tail -1 "$LOGS/$tag.err")"
			signal_ours KILL "$target"; wait_exit "$target" 5; wait_exit "$dpid" 10
			return 1
		fi
		start_ns=$(cpu_ns "$dpid")
		;;
	memleak)
		PYTHONUNBUFFERED=1 "${PEER_NS[@]}" /usr/bin/python3 "$ROOT/bench/memleak.py" -p "$target" 3600 \
			>"$LOGS/$tag.out" 2>&1 &
		tracer=$!
		STARTED+=("$tracer")
		if ! wait_line "$LOGS/$tag.out" '^memleak: attached' 180 "$tracer"; then
			R_WHY="memleak did not attach: $(grep -v '^ ' "$LOGS/$tag.out" | tail -1)"
			signal_ours KILL "$target" "$tracer"; wait_exit "$target" 5; wait_exit "$tracer" 10
			return 1
		fi
		;;
	bpftrace)
		"${PEER_NS[@]}" bpftrace -p "$target" "$WORK/leak.bt" "$target" >"$LOGS/$tag.out" 2>&1 &
		tracer=$!
		STARTED+=("$tracer")
		if ! wait_line "$LOGS/$tag.out" '^bpftrace: attached' 120 "$tracer"; then
			R_WHY="bpftrace did not attach: $(grep -v '^ ' "$LOGS/$tag.out" | tail -1)"
			signal_ours KILL "$target" "$tracer"; wait_exit "$target" 5; wait_exit "$tracer" 10
			return 1
		fi
		;;
	esac
	t1=$(now)
	[ "$variant" != untraced ] && R_READY=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
	signal_ours USR1 "$target"
	if [ "$variant" = full ] && [ -n "$start_ns" ] &&
	   wait_line "$LOGS/$tag.target" '^churn:' 600 "$target" 0.02; then
		# the loop is over and the target lingers: until the daemon idles
		prev=$(cpu_ns "$dpid")
		for i in 1 2 3 4; do
			sleep 0.08
			cur=$(cpu_ns "$dpid")
			[ -n "$cur" ] && [ -n "$prev" ] || { cur=""; break; }
			[ $((cur - prev)) -lt 2000000 ] && break
			prev=$cur
		done
		[ -n "$cur" ] && R_CPU=$(awk -v a="$start_ns" -v b="$cur" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	fi
	if ! wait_exit "$target" 600; then
		R_WHY="churn did not finish in 600 s"
	fi
	case "$variant" in
	floor|full|fpwalk|sampled|symbol)
		wait_exit "$dpid" 120 || R_WHY="${R_WHY:-tracelloc did not end after its target}"
		R_LOST=$(sed -n 's/^ *lost events: \([0-9]*\).*/\1/p' "$LOGS/$tag.out")
		R_ALLOCS=$(sed -n 's/^ *allocation calls: \([0-9]*\).*/\1/p' "$LOGS/$tag.out")
		;;
	memleak|bpftrace)
		signal_ours INT "$tracer"
		wait_exit "$tracer" 60 || note "$variant did not stop on SIGINT; killed"
		;;
	esac
	R_NS=$(field "$LOGS/$tag.target" ns_per_call)
	R_ITER_NS=$(field "$LOGS/$tag.target" ns_per_iteration)
	R_WALL=$(field "$LOGS/$tag.target" wall_s)
	R_MALLOCS=$(field "$LOGS/$tag.target" mallocs)
	if [ -n "$R_WHY" ] || [ -z "$R_NS" ]; then
		R_WHY=${R_WHY:-"churn printed no result: $(tail -1 "$LOGS/$tag.target")"}
		return 1
	fi
	return 0
}

# ---------------------------------------------------------------- 7. without frame pointers

# prog_times TAG CHURN DEPTH [TRACELLOC FLAGS...]: 1 thread of CHURN at DEPTH under
# tracelloc -p FLAGS; writes "name runs ns-per-run" per BPF program to
# $LOGS/TAG.progs, read from the daemon's program fds while the target
# lingers (kernel.bpf_stats_enabled must be on)
prog_times() {
	local tag=$1 churn=$2 depth=$3 pid dpid fdinfo id name
	shift 3
	: >"$LOGS/$tag.progs"
	"$churn" -t 1 -d "$depth" -n "$ITER" -l 1500 >"$LOGS/$tag.target" 2>&1 &
	pid=$!
	STARTED+=("$pid")
	wait_line "$LOGS/$tag.target" '^ready' 30 "$pid" || return
	"$TRACELLOC" "$@" -p "$pid" -i 0 -t 0 >"$LOGS/$tag.out" 2>"$LOGS/$tag.err" &
	dpid=$!
	STARTED+=("$dpid")
	if wait_line "$LOGS/$tag.err" 'attached to pid' 60 "$dpid"; then
		signal_ours USR1 "$pid"
		if wait_line "$LOGS/$tag.target" '^churn:' 600 "$pid"; then
			sleep 0.3
			for fdinfo in /proc/"$dpid"/fdinfo/*; do
				grep -q '^prog_id:' "$fdinfo" 2>/dev/null || continue
				id=$(awk '/^prog_id:/ { print $2 }' "$fdinfo")
				name=$(bpftool prog show id "$id" 2>/dev/null | sed -n 's/.* name \([^ ]*\) .*/\1/p')
				awk -v n="${name:-prog $id}" '/^run_time_ns:/ { t = $2 } /^run_cnt:/ { c = $2 }
					END { if (c) printf "%s %d %.0f\n", n, c, t / c }' "$fdinfo" 2>/dev/null
			done | sort -u >"$LOGS/$tag.progs"
		fi
	fi
	wait_exit "$pid" 60
	wait_exit "$dpid" 60
}


# Section 7, run after section 6 (or alone: BENCH_ONLY=7). churn built
# without frame pointers, traced by the unwind tables (the default, --unwind
# auto), beside the frame-pointer build traced by --unwind fp, each against
# its own floor; paired ratios as in section 1, over BENCH_NOFP_RUNS runs.
NOFP_RUNS=${BENCH_NOFP_RUNS:-3}
NOFP_DEPTHS="0 5 20"
declare -A NOFP_RATIO NOFP_PROG NOFP_PROJ RUN_NS
NOFP_LOST="" NOFP_SEEN="" NOFP_TABLES="" PY_ATTACH_MS=""

# nofp_paired KEY VARIANT: each run's (VARIANT - untraced) / (floor - untraced)
nofp_paired() {
	local run u a b out=""
	for run in $(seq "$NOFP_RUNS"); do
		u=${RUN_NS[$1/untraced/$run]:-} a=${RUN_NS[$1/$2/$run]:-} b=${RUN_NS[$1/floor/$run]:-}
		isnum "${u:-x}" && isnum "${a:-x}" && isnum "${b:-x}" || continue
		out="$out $(calc "($a - $u) / ($b - $u)" %.3f)"
	done
	echo "$out"
}

# nofp_added KEY VARIANT: each run's VARIANT - floor, ns a call: what the
# programs add to the traps, with all they cost around their own run time
nofp_added() {
	local run a b out=""
	for run in $(seq "$NOFP_RUNS"); do
		a=${RUN_NS[$1/$2/$run]:-} b=${RUN_NS[$1/floor/$run]:-}
		isnum "${a:-x}" && isnum "${b:-x}" || continue
		out="$out $(calc "$a - $b" %.0f)"
	done
	echo "$out"
}

section_nofp() {
	local depth run build v traced iter line ratios r fp nofp i t0 l
	echo
	echo "== 7. stacks without frame pointers: churn -fomit-frame-pointer under the unwind tables"
	echo "   (--unwind auto, the default) beside churn -fno-omit-frame-pointer under --unwind fp;"
	echo "   1 thread, $NOFP_RUNS runs (progress: ns per call)"
	for depth in $NOFP_DEPTHS; do
		for run in $(seq "$NOFP_RUNS"); do
			line="  depth=$depth run $run:"
			for build in nofp fp; do
				CHURN=$CHURN_NOFP traced=full
				[ "$build" = fp ] && CHURN=$CHURN_FP traced=fpwalk
				for v in untraced floor "$traced"; do
					iter=$ITER
					[ "$v" = untraced ] && iter=$ITER_UNTRACED
					if measure "$v" "nofp-$build-d$depth-$v-$run" -t 1 -d "$depth" -n "$iter"; then
						RUN_NS[$build:$depth/$v/$run]=$R_NS
						line="$line $build/$v=$R_NS"
					else
						line="$line $build/$v=FAILED"
						note "section 7, $build $v depth $depth: $R_WHY"
					fi
				done
			done
			echo "$line"
		done
	done
	CHURN=$CHURN_NOFP
	echo "  2 threads, depth 5, no frame pointers, $SUSTAIN_ITER iterations each, under tracelloc -p"
	if measure full "nofp-t2" -t 2 -d 5 -n "$SUSTAIN_ITER"; then
		NOFP_LOST=${R_LOST:-?}
		NOFP_SEEN="${R_ALLOCS:-?}/$R_MALLOCS"
		echo "    $R_NS ns per call over $R_WALL s; lost events: $NOFP_LOST; allocation calls seen/made: $NOFP_SEEN"
	else
		note "section 7, 2 threads: $R_WHY"
	fi
	CHURN=$CHURN_FP

	echo "  return program (leave_alloc) per call, kernel.bpf_stats_enabled:"
	if read -r old 2>/dev/null </proc/sys/kernel/bpf_stats_enabled &&
	   echo 1 2>/dev/null >/proc/sys/kernel/bpf_stats_enabled; then
		BPF_STATS_OLD=$old
		for depth in $NOFP_DEPTHS; do
			# medians of runs side by side: a preempted program's run time counts its wait
			nofp=() fp=()
			for run in $(seq "$NOFP_RUNS"); do
				prog_times "nofp-progs-d$depth-$run" "$CHURN_NOFP" "$depth" -v
				prog_times "fp-progs-d$depth-$run" "$CHURN_FP" "$depth" --unwind fp
				nofp+=($(awk '$1 == "leave_alloc" { print $3 }' "$LOGS/nofp-progs-d$depth-$run.progs"))
				fp+=($(awk '$1 == "leave_alloc" { print $3 }' "$LOGS/fp-progs-d$depth-$run.progs"))
			done
			r=$(MEDIAN_FMT=%.0f median "${nofp[@]}") l=$(MEDIAN_FMT=%.0f median "${fp[@]}")
			NOFP_PROG[$depth]=$(isnum "$r" && isnum "$l" && calc "$r / $l" %.2f)
			echo "    depth $depth: tables $r ns (${nofp[*]}), frame pointers $l ns (${fp[*]}):" \
			     "${NOFP_PROG[$depth]:-n/a}x"
		done
		restore_bpf_stats
		NOFP_TABLES=$(sed -n 's/^tracelloc: \(unwind tables of .*\)/\1/p' "$LOGS/nofp-progs-d5-1.err" | head -1)
	else
		echo "    kernel.bpf_stats_enabled cannot be set: skipped"
	fi
	echo "  tables of churn (no frame pointers, -v): ${NOFP_TABLES:-n/a}"

	# launch mode: probes and tables are in before python runs past ld.so
	l=()
	for i in 1 2 3; do
		t0=$EPOCHREALTIME
		"$TRACELLOC" -i 0 -t 0 -- /usr/bin/python3.11 -c pass >"$LOGS/py-$i.out" \
			2> >(while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done >"$LOGS/py-$i.err")
		sleep 0.05
		r=$(awk '/attached to pid/ { print $1; exit }' "$LOGS/py-$i.err")
		[ -n "$r" ] && l+=("$(calc "($r - $t0) * 1000" %.1f)")
	done
	[ -x /usr/bin/python3.11 ] && PY_ATTACH_MS=$(median "${l[@]}")
	echo "  tracelloc -- /usr/bin/python3.11: launch to the \"attached\" line: ${l[*]:-n/a} ms"

	echo
	echo "  ratio to the floor, median of each run's own (added / floor's added):"
	printf '  %-8s %-34s %-34s\n' depth "no frame pointers, tables" "frame pointers, --unwind fp"
	for depth in $NOFP_DEPTHS; do
		ratios=$(nofp_paired "nofp:$depth" full)
		NOFP_RATIO[nofp:$depth]=$(MEDIAN_FMT=%.3f median $ratios)
		r=$(nofp_paired "fp:$depth" fpwalk)
		NOFP_RATIO[fp:$depth]=$(MEDIAN_FMT=%.3f median $r)
		printf '  %-8s %-34s %-34s\n' "$depth" "${NOFP_RATIO[nofp:$depth]}x ($(echo $ratios))" \
		       "${NOFP_RATIO[fp:$depth]}x ($(echo $r))"
	done
	# the traps' price differs 5x between hosts, what the programs add
	# much less: the same added ns over a cheaper floor
	echo "  on a host whose floor is ${NOFP_FLOOR_NS:-800} ns a call, the ns added here over the floor"
	echo "  (median of the runs) would make:"
	for depth in $NOFP_DEPTHS; do
		line="    depth $depth:"
		for build in nofp fp; do
			v=full
			[ "$build" = fp ] && v=fpwalk
			# shellcheck disable=SC2046 # the runs are words
			r=$(MEDIAN_FMT=%.0f median $(nofp_added "$build:$depth" "$v"))
			if isnum "${r:-x}"; then
				NOFP_PROJ[$build:$depth]=$(calc "1 + $r / ${NOFP_FLOOR_NS:-800}" %.2f)
				line="$line $build +$r ns: ${NOFP_PROJ[$build:$depth]}x;"
			else
				line="$line $build n/a;"
			fi
		done
		echo "$line"
	done
}

nofp_verdicts() {
	local v worst="" d
	v=$(le "${NOFP_RATIO[nofp:5]:-x}" 1.5)
	echo "$(verdict "$v") no frame pointers, depth 5, by the tables: <= 1.5x the floor: ${NOFP_RATIO[nofp:5]:-n/a}x" \
	     "(frame pointers by rbp: ${NOFP_RATIO[fp:5]:-n/a}x)"
	v=$(le "${NOFP_RATIO[nofp:20]:-x}" 2)
	echo "$(verdict "$v") no frame pointers, depth 20, by the tables: <= 2x the floor: ${NOFP_RATIO[nofp:20]:-n/a}x" \
	     "(frame pointers by rbp: ${NOFP_RATIO[fp:20]:-n/a}x)"
	for d in $NOFP_DEPTHS; do
		isnum "${NOFP_PROG[$d]:-x}" || continue
		[ -z "$worst" ] || [ "$(ge "${NOFP_PROG[$d]}" "$worst")" = 1 ] && worst=${NOFP_PROG[$d]}
	done
	v=$(le "${worst:-x}" 1.3)
	echo "$(verdict "$v") return program by the tables <= 1.3x the frame-pointer walk at the same depth:" \
	     "worst ${worst:-n/a}x (depth 0: ${NOFP_PROG[0]:-n/a}x, 5: ${NOFP_PROG[5]:-n/a}x, 20: ${NOFP_PROG[20]:-n/a}x)"
	if isnum "${NOFP_LOST:-x}"; then v=$([ "$NOFP_LOST" = 0 ] && echo 1 || echo 0); else v=x; fi
	echo "$(verdict "$v") no frame pointers, 2 threads at full speed: zero lost events: ${NOFP_LOST:-n/a}" \
	     "(allocation calls seen/made: ${NOFP_SEEN:-n/a})"
	v=$(le "${PY_ATTACH_MS:-x}" 500)
	echo "$(verdict "$v") attach to /usr/bin/python3.11 (launch mode) < 500 ms: median ${PY_ATTACH_MS:-n/a} ms"
	v=$(le "${NOFP_PROJ[nofp:5]:-x}" 1.5)
	[ "$v" = 1 ] && v=$(le "${NOFP_PROJ[nofp:20]:-x}" 2)
	echo "$(verdict "$v") the same targets on a host whose floor is ${NOFP_FLOOR_NS:-800} ns a call" \
	     "(this host's added ns): depth 5 by the tables <= 1.5x: ${NOFP_PROJ[nofp:5]:-n/a}x;" \
	     "depth 20 <= 2x: ${NOFP_PROJ[nofp:20]:-n/a}x"
}

if [ "${BENCH_ONLY:-}" = 7 ]; then
	section_nofp
	echo
	echo "================================================================ targets (section 7 alone)"
	nofp_verdicts
	exit 0
fi

# ---------------------------------------------------------------- 8. allocator families

# Section 8, after section 7 (or alone: BENCH_ONLY=8): churn linked against
# each allocator family, 1 thread, malloc 5 frames below the loop, traced
# against its own floor; paired ratios over BENCH_NOFP_RUNS runs. "named":
# churn's own pool allocator (-f pool, one frame below the loop), named with
# --alloc-fn and --free-fn, its floor the same probes doing nothing.
FAMILIES="glibc jemalloc tcmalloc mimalloc musl named"
declare -A FAMILY_RATIO

section_families() {
	local fam run v iter line ratios
	echo
	echo "== 8. allocator families: churn linked against each, 1 thread, depth 5, $NOFP_RUNS runs"
	echo "   (progress: ns per call)"
	local cargs
	for fam in $FAMILIES; do
		if [ -z "${CHURN_FAMILY[$fam]:-}" ]; then
			echo "  $fam: not built (see $LOGS/families.log)"
			continue
		fi
		CHURN=${CHURN_FAMILY[$fam]}
		cargs=() TL_EXTRA=()
		if [ "$fam" = named ]; then
			cargs=(-f pool)
			TL_EXTRA=(--alloc-fn churn:pool_alloc:size=arg1 --free-fn churn:pool_free:ptr=arg1)
		fi
		for run in $(seq "$NOFP_RUNS"); do
			line="  $fam run $run:"
			for v in untraced floor full; do
				iter=$ITER
				[ "$v" = untraced ] && iter=$ITER_UNTRACED
				if measure "$v" "family-$fam-$v-$run" -t 1 -d 5 -n "$iter" "${cargs[@]}"; then
					RUN_NS[family:$fam/$v/$run]=$R_NS
					line="$line $v=$R_NS lost=${R_LOST:-0}"
				else
					line="$line $v=FAILED"
					note "section 8, $fam $v: $R_WHY"
				fi
			done
			echo "$line"
		done
		ratios=$(nofp_paired "family:$fam" full)
		FAMILY_RATIO[$fam]=$(MEDIAN_FMT=%.3f median $ratios)
		echo "  $fam: ${FAMILY_RATIO[$fam]}x the floor ($(echo $ratios));" \
		     "attached: $(sed -n 's/^tracelloc: attached to pid [0-9]*: //p' "$LOGS/family-$fam-full-1.err")"
	done
	TL_EXTRA=()
	CHURN=$CHURN_FP
	aligned_row
}

# glibc's posix_memalign starts with a RIP-relative cmpb, which the kernel
# single-steps: the return probe goes past it. What that bought, per call.
aligned_row() {
	local v line
	declare -A ALIGNED_NS
	line="  posix_memalign (glibc, depth 5):"
	for v in untraced full symbol; do
		if measure "$v" "aligned-$v" -t 1 -d 5 -n "$ITER" -f posix_memalign; then
			ALIGNED_NS[$v]=$R_NS
			line="$line $v=$R_NS"
		else
			line="$line $v=FAILED"
			note "section 8, posix_memalign $v: $R_WHY"
		fi
	done
	echo "$line"
	if isnum "${ALIGNED_NS[untraced]:-x}" && isnum "${ALIGNED_NS[full]:-x}" && isnum "${ALIGNED_NS[symbol]:-x}"; then
		awk -v u="${ALIGNED_NS[untraced]}" -v f="${ALIGNED_NS[full]}" -v s="${ALIGNED_NS[symbol]}" 'BEGIN {
			printf "  posix_memalign: traced %.0f ns per call added, %.0f with its probes at the symbol" \
			       " (--probe-at-symbol): the probe placement saves %.2fx\n", f - u, s - u, (s - u) / (f - u) }'
	fi
}

families_verdict() {
	local fam worst="" which="" r
	for fam in $FAMILIES; do
		r=${FAMILY_RATIO[$fam]:-}
		isnum "${r:-x}" || continue
		if [ -z "$worst" ] || [ "$(ge "$r" "$worst")" = 1 ]; then
			worst=$r which=$fam
		fi
	done
	v=$(le "${worst:-x}" 1.5)
	echo "$(verdict "$v") every allocator family within 1.5x its floor (depth 5): worst ${worst:-n/a}x ($which);" \
	     "$(for fam in $FAMILIES; do printf '%s %s ' "$fam" "${FAMILY_RATIO[$fam]:-n/a}"; done)"
}

if [ "${BENCH_ONLY:-}" = 8 ]; then
	section_families
	echo
	echo "================================================================ targets (section 8 alone)"
	families_verdict
	exit 0
fi


# Section 9 (or alone: BENCH_ONLY=9): the daemon held to a share of one CPU
# (a cgroup's CPU quota on tracelloc alone) while the target allocates at full
# speed: the rings must absorb its longest pause at any number of live
# blocks. A slower host, or a busy one, is such a daemon.
THROTTLE_QUOTA_PCT=${BENCH_THROTTLE_PCT:-30}

# makes a cgroup that holds its tasks to QUOTA percent of a CPU; prints the
# file to write a pid into to put it there
throttle_cgroup() {
	local pct=$1 dir
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		dir=/sys/fs/cgroup/tracelloc-bench
		mkdir -p "$dir" 2>/dev/null && echo "$((pct * 1000)) 100000" >"$dir/cpu.max" 2>/dev/null || return 1
	elif [ -d /sys/fs/cgroup/cpu ]; then
		dir=/sys/fs/cgroup/cpu/tracelloc-bench
		mkdir -p "$dir" 2>/dev/null && echo 100000 >"$dir/cpu.cfs_period_us" &&
			echo "$((pct * 1000))" >"$dir/cpu.cfs_quota_us" 2>/dev/null || return 1
	else
		return 1
	fi
	echo "$dir/cgroup.procs"
}

section_throttled() {
	local procs hpid dpid
	echo
	echo "== 9. a throttled daemon: tracelloc held to ${THROTTLE_QUOTA_PCT}% of a CPU, $HOLD live blocks"
	THROTTLE_LOST="" THROTTLE_GAP=""
	if ! procs=$(throttle_cgroup "$THROTTLE_QUOTA_PCT"); then
		echo "  no cgroup with a CPU quota could be made: not measured"
		return
	fi
	"$HOLDER" "$HOLD" >"$LOGS/throttled.target" 2>&1 &
	hpid=$!
	STARTED+=("$hpid")
	wait_line "$LOGS/throttled.target" '^ready' 60 "$hpid" || { note "holder did not start"; return; }
	(echo "$BASHPID" >"$procs" && exec "$TRACELLOC" -v -p "$hpid" -i 1 -t 0) \
		>"$LOGS/throttled.out" 2>"$LOGS/throttled.err" &
	dpid=$!
	STARTED+=("$dpid")
	if ! wait_line "$LOGS/throttled.err" 'attached to pid' 60 "$dpid"; then
		note "tracelloc did not attach (throttled): $(tail -1 "$LOGS/throttled.err")"
		signal_ours KILL "$hpid"
		return
	fi
	signal_ours USR1 "$hpid"
	wait_line "$LOGS/throttled.target" '^holding' 900 "$hpid" 0.2
	sleep 2
	signal_ours INT "$dpid"
	wait_exit "$dpid" 120
	signal_ours USR1 "$hpid"
	wait_exit "$hpid" 60
	THROTTLE_LOST=$(sed -n 's/^ *lost events: \([0-9]*\).*/\1/p' "$LOGS/throttled.out")
	THROTTLE_GAP=$(sed -n 's/.*ring buffer was read at least every \([0-9.]*\) ms.*/\1/p' "$LOGS/throttled.err")
	echo "  $(sed -n 's/^holding/allocated/p' "$LOGS/throttled.target") under the throttled tracer;" \
	     "lost events: ${THROTTLE_LOST:-?}; the longest gap between two reads of the rings: ${THROTTLE_GAP:-?} ms"
	rmdir "$(dirname "$procs")" 2>/dev/null
}

throttled_verdict() {
	local v=FAIL
	if ! isnum "${THROTTLE_LOST:-x}"; then
		echo "N/A  a daemon held to ${THROTTLE_QUOTA_PCT}% of a CPU loses no event at $HOLD live blocks: not measured"
		return
	fi
	[ "$THROTTLE_LOST" = 0 ] && v=PASS
	echo "$v a daemon held to ${THROTTLE_QUOTA_PCT}% of a CPU loses no event at $HOLD live blocks:" \
	     "$THROTTLE_LOST lost; longest gap between reads ${THROTTLE_GAP:-?} ms"
}

if [ "${BENCH_ONLY:-}" = 9 ]; then
	section_throttled
	echo
	echo "================================================================ targets (section 9 alone)"
	throttled_verdict
	exit 0
fi

# Section 10 (or alone: BENCH_ONLY=10): a pre-forking server. churn forks
# BENCH_FORK_WORKERS (8) workers once it is traced (--follow-forks), each
# churning at full speed, 5 frames deep: the traced cost per call against
# the floor's (empty probes on every worker), paired as in section 7; then
# the same with the daemon throttled as in section 9.
FORK_WORKERS=${BENCH_FORK_WORKERS:-8}
TL_EXTRA=()
FORK_RATIO="" FORK_LOST="" FORK_PROCS="" FORK_THROTTLE_LOST="" FORK_THROTTLE_GAP=""

section_forks() {
	local run v iter line ratios procs cpid dpid
	echo
	echo "== 10. $FORK_WORKERS forked workers (--follow-forks), depth 5, $NOFP_RUNS runs (progress: ns per call)"
	TL_EXTRA=(--follow-forks)
	for run in $(seq "$NOFP_RUNS"); do
		line="  run $run:"
		for v in untraced floor full; do
			iter=$ITER
			[ "$v" = untraced ] && iter=$ITER_UNTRACED
			if measure "$v" "forks-$v-$run" -P "$FORK_WORKERS" -d 5 -n "$iter"; then
				RUN_NS[forks/$v/$run]=$R_NS
				line="$line $v=$R_NS"
				if [ "$v" = full ]; then
					line="$line lost=${R_LOST:-?}"
					FORK_LOST="$FORK_LOST ${R_LOST:-?}"
					FORK_PROCS=$(sed -n 's/^==> summary: \([0-9]*\) processes.*/\1/p' "$LOGS/forks-full-$run.out")
				fi
			else
				line="$line $v=FAILED"
				note "section 10, $v: $R_WHY"
			fi
		done
		echo "$line"
	done
	TL_EXTRA=()
	ratios=$(nofp_paired forks full)
	FORK_RATIO=$(MEDIAN_FMT=%.3f median $ratios)
	echo "  $FORK_WORKERS workers: ${FORK_RATIO}x the floor ($(echo $ratios)); processes traced:" \
	     "${FORK_PROCS:-?}; lost events:$FORK_LOST"

	if ! procs=$(throttle_cgroup "$THROTTLE_QUOTA_PCT"); then
		echo "  throttled: no cgroup with a CPU quota could be made: not measured"
		return
	fi
	"$CHURN" -P "$FORK_WORKERS" -d 5 -n "$ITER" -l 500 >"$LOGS/forks-throttled.target" 2>&1 &
	cpid=$!
	STARTED+=("$cpid")
	wait_line "$LOGS/forks-throttled.target" '^ready' 30 "$cpid" || { note "churn -P did not start"; return; }
	(echo "$BASHPID" >"$procs" && exec "$TRACELLOC" -v --follow-forks -p "$cpid" -i 0 -t 0) \
		>"$LOGS/forks-throttled.out" 2>"$LOGS/forks-throttled.err" &
	dpid=$!
	STARTED+=("$dpid")
	if ! wait_line "$LOGS/forks-throttled.err" 'attached to pid' 60 "$dpid"; then
		note "tracelloc did not attach (throttled): $(tail -1 "$LOGS/forks-throttled.err")"
		signal_ours KILL "$cpid"
		return
	fi
	signal_ours USR1 "$cpid"
	wait_exit "$cpid" 600
	wait_exit "$dpid" 120
	FORK_THROTTLE_LOST=$(sed -n 's/^ *lost events: \([0-9]*\).*/\1/p' "$LOGS/forks-throttled.out")
	FORK_THROTTLE_GAP=$(sed -n 's/.*ring buffer was read at least every \([0-9.]*\) ms.*/\1/p' "$LOGS/forks-throttled.err")
	echo "  throttled to ${THROTTLE_QUOTA_PCT}% of a CPU: $(field "$LOGS/forks-throttled.target" calls) calls" \
	     "in $FORK_WORKERS workers; lost events: ${FORK_THROTTLE_LOST:-?}; the longest gap between two" \
	     "reads of the rings: ${FORK_THROTTLE_GAP:-?} ms"
	rmdir "$(dirname "$procs")" 2>/dev/null
}

forks_verdict() {
	local v lost=0 l
	for l in $FORK_LOST; do
		isnum "$l" && lost=$((lost + l)) || lost=x
	done
	v=$(le "${FORK_RATIO:-x}" 1.5)
	[ "$lost" != 0 ] && v=0
	echo "$(verdict "$v") $FORK_WORKERS forked workers within 1.5x the floor, nothing lost:" \
	     "${FORK_RATIO:-n/a}x; lost:${FORK_LOST:- n/a}; processes traced: ${FORK_PROCS:-?}"
	v=x
	isnum "${FORK_THROTTLE_LOST:-x}" && v=$([ "$FORK_THROTTLE_LOST" = 0 ] && echo 1 || echo 0)
	echo "$(verdict "$v") $FORK_WORKERS forked workers, the daemon held to ${THROTTLE_QUOTA_PCT}% of a CPU," \
	     "lose nothing: ${FORK_THROTTLE_LOST:-n/a} lost; longest gap between reads ${FORK_THROTTLE_GAP:-?} ms"
}

if [ "${BENCH_ONLY:-}" = 10 ]; then
	section_forks
	echo
	echo "================================================================ targets (section 10 alone)"
	forks_verdict
	exit 0
fi

# ---------------------------------------------------------------- 11. the model per record

# What the ring buffer's callback spends in the model per record (a malloc
# or a free record through src/model/heap.c: live table, stack totals, the peak,
# short-lived counts), with few stacks and with many, pinned to one CPU.
section_model() {
	local hc vals run v
	echo
	echo "== 11. the daemon's model per record: bench/heapcost, 10M records, median of 5 (ns per record)"
	for hc in "64 100000" "100000 1000000"; do
		vals=()
		for run in 1 2 3 4 5; do
			v=$(taskset -c 0 "$OUT/heapcost" $hc 10000000 2>/dev/null | sed -n 's/.*ns_per_record=//p')
			isnum "${v:-x}" && vals+=("$v")
		done
		echo "  stacks=${hc% *} live=${hc#* }: $(median "${vals[@]}") ns per record (${vals[*]})"
	done
}

if [ "${BENCH_ONLY:-}" = 11 ]; then
	section_model
	exit 0
fi

# ---------------------------------------------------------------- 12. memory per process

# peak_rss_kb LOG ARGS...: tracelloc's peak RSS (KiB) over a run of ARGS
peak_rss_kb() {
	local log=$1
	shift
	/usr/bin/time -f 'maxrss %M' "$TRACELLOC" "$@" >"$log.out" 2>"$log.err"
	sed -n 's/^maxrss //p' "$log.err"
}

# every process alive at once, every stack named at the end (-m count -f)
section_procmem() {
	local n pids i rss
	echo
	echo "== 12. the daemon's memory per traced process (peak RSS, every stack named)"
	for n in 20 60; do
		rss=$(peak_rss_kb "$LOGS/procmem-forks-$n" -i 1 -t 3 -m count -f "$LOGS/procmem-forks-$n.fg" \
			--follow-forks -- "$OUT/forkstorm" 0.1 "$n" 3000)
		PROCMEM_FORKS[$n]=$rss
		pids=""
		for i in $(seq "$n"); do
			"$OUT/sleeper" 8 >/dev/null 2>&1 &
			STARTED+=("$!")
			pids="$pids,$!"
		done
		sleep 0.5
		rss=$(peak_rss_kb "$LOGS/procmem-pids-$n" -i 1 -t 3 -m count -d 3 -f "$LOGS/procmem-pids-$n.fg" \
			-p "${pids#,}")
		PROCMEM_PIDS[$n]=$rss
		wait
		echo "  $n processes: forked workers ${PROCMEM_FORKS[$n]:-?} KiB, separate processes (-p)" \
		     "${PROCMEM_PIDS[$n]:-?} KiB"
	done
	PROCMEM_FORK_PER=$(awk -v a="${PROCMEM_FORKS[20]:-x}" -v b="${PROCMEM_FORKS[60]:-x}" \
		'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", (b - a) / 40 / 1024; else print "x" }')
	PROCMEM_PID_PER=$(awk -v a="${PROCMEM_PIDS[20]:-x}" -v b="${PROCMEM_PIDS[60]:-x}" \
		'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", (b - a) / 40 / 1024; else print "x" }')
	echo "  per process: forked workers ${PROCMEM_FORK_PER} MiB, separate processes ${PROCMEM_PID_PER} MiB"
}
declare -A PROCMEM_FORKS PROCMEM_PIDS

procmem_verdict() {
	local v
	v=$(le "${PROCMEM_FORK_PER:-x}" 1)
	echo "$(verdict "$v") a forked worker costs the daemon under 1 MiB: ${PROCMEM_FORK_PER:-n/a} MiB"
	v=$(le "${PROCMEM_PID_PER:-x}" 1)
	echo "$(verdict "$v") a separate process (-p) costs the daemon under 1 MiB: ${PROCMEM_PID_PER:-n/a} MiB"
}

if [ "${BENCH_ONLY:-}" = 12 ]; then
	section_procmem
	echo
	echo "================================================================ targets (section 12 alone)"
	procmem_verdict
	exit 0
fi

# ---------------------------------------------------------------- 13. the host's system calls

# syscall_run LOG: bench/syscalls once; "getppid NS read NS" into LOG
syscall_run() {
	"$OUT/syscalls" "${BENCH_SYSCALLS:-400000}" >"$1" 2>&1
}

# syscall_traced KIND LOG: bench/syscalls while tracelloc -p traces a sleeper
# of KIND (dynamic, static)
syscall_traced() {
	local kind=$1 log=$2 bin=$OUT/sleeper sleeper tl
	[ "$kind" = static ] && bin=$OUT/sleeper_static
	[ -x "$bin" ] || return 1
	"$bin" 30 >/dev/null 2>&1 &
	sleeper=$!
	STARTED+=("$sleeper")
	"$TRACELLOC" -i 0 -t 0 -p "$sleeper" >"$log.tl" 2>&1 &
	tl=$!
	STARTED+=("$tl")
	if wait_line "$log.tl" '^tracelloc: attached' 10 "$tl"; then
		snooze 0.2
		syscall_run "$log"
	fi
	signal_ours INT "$tl"
	wait_exit "$tl" 10
	signal_ours KILL "$sleeper"
	wait "$sleeper" 2>/dev/null
	[ -s "$log" ]
}

# "getppid NS read NS" -> "NS NS"
field_of() { awk '{ print $2, $4 }' "$1"; }
# the mean of the two calls' ratios: traced "NS NS" over untraced "NS NS"
ratio_pair() {
	awk -v t="$1" -v u="$2" 'BEGIN { split(t, a, " "); split(u, b, " ");
		if (b[1] > 0 && b[2] > 0) printf "%.3f", (a[1] / b[1] + a[2] / b[2]) / 2; else print "x" }'
}
declare -A SYSCALL_RATIO SYSCALL_NS SYSCALL_MED

section_syscalls() {
	local r kind u t
	echo
	echo "== 13. an untraced process's system calls while tracelloc runs (ns per call, fastest batch)"
	for r in $(seq "$RUNS"); do
		syscall_run "$LOGS/syscalls-untraced-$r" || continue
		u=$(field_of "$LOGS/syscalls-untraced-$r")
		SYSCALL_NS[untraced]="${SYSCALL_NS[untraced]:-} ${u% *}"
		for kind in dynamic static; do
			syscall_traced "$kind" "$LOGS/syscalls-$kind-$r" || continue
			t=$(field_of "$LOGS/syscalls-$kind-$r")
			SYSCALL_RATIO[$kind]="${SYSCALL_RATIO[$kind]:-} $(ratio_pair "$t" "$u")"
			SYSCALL_NS[$kind]="${SYSCALL_NS[$kind]:-} ${t% *}"
		done
	done
	echo "  untraced: getppid $(median ${SYSCALL_NS[untraced]:-}) ns"
	for kind in dynamic static; do
		SYSCALL_MED[$kind]=$(MEDIAN_FMT=%.3f median ${SYSCALL_RATIO[$kind]:-})
		echo "  tracing a $kind program: getppid $(median ${SYSCALL_NS[$kind]:-}) ns; the untraced" \
		     "process's calls ${SYSCALL_MED[$kind]}x (getppid and read; each round:${SYSCALL_RATIO[$kind]:- none})"
	done
}

syscalls_verdict() {
	local v
	v=$(le "${SYSCALL_MED[dynamic]:-x}" 1.02)
	echo "$(verdict "$v") tracing a dynamically linked program, an untraced process's system calls" \
	     "cost <= 1.02x: ${SYSCALL_MED[dynamic]:-n/a}x (a static one: ${SYSCALL_MED[static]:-n/a}x," \
	     "said at start)"
}

if [ "${BENCH_ONLY:-}" = 13 ]; then
	section_syscalls
	echo
	echo "================================================================ targets (section 13 alone)"
	syscalls_verdict
	exit 0
fi

# ---------------------------------------------------------------- 14. forks

# forks_run LOG [TRACELLOC ARGS...]: bench/forks, untraced or under tracelloc
forks_run() {
	local log=$1
	shift
	if [ $# -gt 0 ]; then
		"$@" -i 0 -t 0 --follow-forks -- "$OUT/forks" "${BENCH_FORKS:-40}" >"$log" 2>"$log.err"
	else
		"$OUT/forks" "${BENCH_FORKS:-40}" >"$log" 2>&1
	fi
	grep -q '^fork ' "$log"
}

section_forks_cost() {
	local r u t
	echo
	echo "== 14. what a fork and a spawn cost a program traced with --follow-forks (ms per child, ${BENCH_FORKS:-40} of each in a row)"
	for r in $(seq "$RUNS"); do
		forks_run "$LOGS/forks-untraced-$r" || continue
		forks_run "$LOGS/forks-traced-$r" "$TRACELLOC" || continue
		u=$(awk '/^fork / { print $2, $4 }' "$LOGS/forks-untraced-$r")
		t=$(awk '/^fork / { print $2, $4 }' "$LOGS/forks-traced-$r")
		FORK_ADDED="${FORK_ADDED:-} $(awk -v t="$t" -v u="$u" 'BEGIN { split(t, a, " "); split(u, b, " "); printf "%.2f", a[1] - b[1] }')"
		SPAWN_ADDED="${SPAWN_ADDED:-} $(awk -v t="$t" -v u="$u" 'BEGIN { split(t, a, " "); split(u, b, " "); printf "%.2f", a[2] - b[2] }')"
		echo "  run $r: untraced fork, spawn: $u ms; traced: $t ms"
	done
	FORK_ADDED_MED=$(MEDIAN_FMT=%.2f median ${FORK_ADDED:-})
	SPAWN_ADDED_MED=$(MEDIAN_FMT=%.2f median ${SPAWN_ADDED:-})
	echo "  added per child, median: fork ${FORK_ADDED_MED} ms, posix_spawn ${SPAWN_ADDED_MED} ms"
	pg_connect_rows
}

# PostgreSQL forks a backend per connection: pgbench -C (a connection per
# transaction) against a fresh cluster, untraced, with the postmaster traced
# but its backends not followed (each backend inherits the breakpoints and
# pays a trap at every allocator call, while tracelloc does nothing for it:
# the floor of tracing the backend's calls), and under --follow-forks
PG_BIN=${BENCH_PG_BIN:-$(dirname "$(command -v postgres 2>/dev/null || echo /usr/lib/postgresql/15/bin/postgres)")}
pg_run() {
	local kind=$1 data=$WORK/pg-$1 port=5497 pid i
	# the postgres user reaches its directory (the socket's too) through ours
	chmod 711 "$WORK"
	rm -rf "$data" && mkdir -p "$data" && chown postgres "$data" || return 1
	su postgres -c "$PG_BIN/initdb -D $data" >"$LOGS/pg-$kind.init" 2>&1 || return 1
	if [ "$kind" != untraced ]; then
		local follow=--follow-forks
		[ "$kind" = floor ] && follow=
		"$TRACELLOC" $follow --user postgres -i 0 -t 0 -- "$PG_BIN/postgres" -D "$data" \
			-k "$data" -p "$port" -c listen_addresses= >"$LOGS/pg-$kind.tl" 2>&1 &
	else
		su postgres -c "$PG_BIN/postgres -D $data -k $data -p $port -c listen_addresses=" \
			>"$LOGS/pg-$kind.log" 2>&1 &
	fi
	pid=$!
	STARTED+=("$pid")
	for i in $(seq 100); do
		"$PG_BIN/pg_isready" -h "$data" -p "$port" -q 2>/dev/null && break
		snooze 0.1
	done
	pgbench -i -h "$data" -p "$port" -U postgres postgres >"$LOGS/pg-$kind.pgbench" 2>&1
	pgbench -C -T 5 -h "$data" -p "$port" -U postgres postgres >>"$LOGS/pg-$kind.pgbench" 2>&1
	signal_ours INT "$pid"
	wait_exit "$pid" 20
	PG_TPS[$kind]=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$LOGS/pg-$kind.pgbench" | tail -1)
	PG_CONN[$kind]=$(sed -n 's/^average connection time = \([0-9.]*\).*/\1/p' "$LOGS/pg-$kind.pgbench" | tail -1)
}
declare -A PG_TPS PG_CONN

pg_connect_rows() {
	if ! command -v pgbench >/dev/null || [ ! -x "$PG_BIN/initdb" ] || ! id postgres >/dev/null 2>&1; then
		echo "  pgbench -C: not measured (no PostgreSQL, pgbench or postgres user here)"
		return
	fi
	pg_run untraced
	pg_run floor
	pg_run traced
	echo "  pgbench -C (a backend forked per connection, 5 s): untraced ${PG_TPS[untraced]:-?} tps" \
	     "(${PG_CONN[untraced]:-?} ms a connection); backends' traps only ${PG_TPS[floor]:-?} tps" \
	     "(${PG_CONN[floor]:-?} ms); traced ${PG_TPS[traced]:-?} tps" \
	     "(${PG_CONN[traced]:-?} ms); traced/untraced $(calc "${PG_TPS[traced]:-0} / ${PG_TPS[untraced]:-1}" %.2f)x"
}
FORK_ADDED="" SPAWN_ADDED=""

forks_cost_verdict() {
	local v
	v=$(le "${FORK_ADDED_MED:-x}" 10)
	[ "$v" = 1 ] && v=$(le "${SPAWN_ADDED_MED:-x}" 10)
	echo "$(verdict "$v") --follow-forks adds at most 10 ms to a fork and to a posix_spawn:" \
	     "fork ${FORK_ADDED_MED:-n/a} ms, spawn ${SPAWN_ADDED_MED:-n/a} ms"
	if isnum "${PG_CONN[traced]:-x}" && isnum "${PG_CONN[floor]:-x}" && isnum "${PG_CONN[untraced]:-x}"; then
		v=$(le "$(calc "${PG_CONN[traced]} - ${PG_CONN[floor]}" %.1f)" 10)
		echo "$(verdict "$v") following a PostgreSQL backend adds at most 10 ms to its connection (pgbench -C)" \
		     "over the traps of its own allocator calls: $(calc "${PG_CONN[traced]} - ${PG_CONN[floor]}" %.1f) ms" \
		     "(the traps: $(calc "${PG_CONN[floor]} - ${PG_CONN[untraced]}" %.1f) ms)"
	fi
}

if [ "${BENCH_ONLY:-}" = 14 ]; then
	section_forks_cost
	echo
	echo "================================================================ targets (section 14 alone)"
	forks_cost_verdict
	exit 0
fi

# ---------------------------------------------------------------- 15. writing folded stacks

section_writer() {
	local n=${BENCH_NAMES:-20000} ms names_ms bytes
	echo
	echo "== 15. naming and writing $n distinct stacks, 31 frames of long names each (-m count -f)"
	if ! python3 bench/manynames.py "$n" 30 "$WORK/manynames.c" ||
	   ! gcc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$OUT/manynames" \
		"$WORK/manynames.c" 2>"$LOGS/manynames.build"; then
		echo "  could not build the program (see $LOGS/manynames.build)"
		return
	fi
	# the profile first: it looks the names up; the folded stacks after it find them cached
	"$TRACELLOC" -v -i 0 -t 0 -m count --pprof "$WORK/manynames.pb.gz" -f "$WORK/manynames.fg" \
		-- "$OUT/manynames" >"$LOGS/manynames.out" 2>"$LOGS/manynames.err"
	names_ms=$(sed -n 's/^tracelloc: wrote .*\.pb\.gz in \([0-9]*\) ms$/\1/p' "$LOGS/manynames.err")
	ms=$(sed -n 's/^tracelloc: wrote .*\.fg in \([0-9]*\) ms$/\1/p' "$LOGS/manynames.err")
	bytes=$(stat -c %s "$WORK/manynames.fg" 2>/dev/null)
	WRITER_MBS=$(calc "${bytes:-0} / 1048576 / (${ms:-0} / 1000)" %.1f)
	echo "  the pprof profile, every name looked up: ${names_ms:-?} ms"
	echo "  the folded stacks after it, names cached: ${bytes:-?} bytes in ${ms:-?} ms, $WRITER_MBS MB/s"
}

if [ "${BENCH_ONLY:-}" = 15 ]; then
	section_writer
	exit 0
fi

# ---------------------------------------------------------------- 16. a big binary, default report

section_big_binary() {
	local clangxx t0 t1 t2 gap lost
	echo
	echo "== 16. clang++ -c of a small file with the default report (libLLVM, no frame pointers)"
	clangxx=$(command -v clang++) || { echo "  clang++ is missing"; return; }
	printf '#include <string>\n#include <vector>\nstd::string f(std::vector<int> &v) { std::string s; for (int x : v) s += std::to_string(x); return s; }\n' >"$WORK/tiny.cpp"
	t0=$(date +%s.%N)
	"$clangxx" -O2 -c "$WORK/tiny.cpp" -o "$WORK/tiny.o"
	t1=$(date +%s.%N)
	"$TRACELLOC" -v -- "$clangxx" -O2 -c "$WORK/tiny.cpp" -o "$WORK/tiny.o" \
		>"$LOGS/bigbinary.out" 2>"$LOGS/bigbinary.err"
	t2=$(date +%s.%N)
	gap=$(sed -n 's/^tracelloc: the ring buffer was read at least every \([0-9.]*\) ms$/\1/p' "$LOGS/bigbinary.err")
	lost=$(sed -n 's/^    lost events: \([0-9]*\) .*/\1/p' "$LOGS/bigbinary.out")
	echo "  untraced $(calc "$t1 - $t0" %.2f) s, traced $(calc "$t2 - $t1" %.2f) s ($(calc "($t2 - $t1) / ($t1 - $t0)" %.1f)x)"
	echo "  records lost: ${lost:-?}; the ring buffers unread at most ${gap:-?} ms"
	if [ "${lost:-1}" = 0 ] && [ "$(calc "${gap:-1e9} < 50" %d)" = 1 ]; then
		echo "PASS the report keeps the ring buffers read (under 50 ms), first names included"
	else
		echo "FAIL the report keeps the ring buffers read (under 50 ms), first names included"
	fi
}

if [ "${BENCH_ONLY:-}" = 16 ]; then
	section_big_binary
	exit 0
fi

# ---------------------------------------------------------------- 17. the leak check

# leak_round TAG MIB BLOCK: one target, three checks; sets LC_STOP_MS and
# LC_SCAN_MS (medians), LC_HOW, LC_READ, LC_GAP_MS (the target's longest gap
# over the three), LC_FLOOR_MS (the median of three reads of the same bytes)
leak_round() {
	local tag=$1 tpid dpid i floors=()
	LC_STOP_MS='' LC_SCAN_MS='' LC_HOW='' LC_READ='' LC_GAP_MS='' LC_FLOOR_MS=''
	"$OUT/reachable" "$2" "$3" ${4:-} >"$LOGS/$tag.target" 2>&1 &
	tpid=$!
	STARTED+=("$tpid")
	wait_line "$LOGS/$tag.target" '^ready' 10 "$tpid" || return
	"$TRACELLOC" --leak-check -i 0 -t 1 -p "$tpid" >"$LOGS/$tag.out" 2>"$LOGS/$tag.err" &
	dpid=$!
	STARTED+=("$dpid")
	if wait_line "$LOGS/$tag.err" 'attached to pid' 60 "$dpid"; then
		signal_ours USR1 "$tpid"
		wait_line "$LOGS/$tag.target" '^allocated' 300 "$tpid"
		sleep 0.5
		signal_ours USR2 "$tpid"
		wait_line "$LOGS/$tag.target" '^gap' 10 "$tpid"
		for i in 1 2 3; do
			signal_ours USR1 "$dpid"
			for _ in $(seq 600); do
				[ "$(grep -c '^ *still reachable: ' "$LOGS/$tag.out")" -ge "$i" ] && break
				sleep 0.5
			done
			sleep 0.3
		done
		signal_ours USR2 "$tpid"
		sleep 0.3
		LC_STOP_MS=$(median $(sed -n 's/^leak check of pid .*stopped \([0-9.]*\) ms, .*/\1/p' "$LOGS/$tag.out"))
		LC_SCAN_MS=$(median $(sed -n 's/^leak check of pid .* read in \([0-9.]*\) ms.*/\1/p' "$LOGS/$tag.out"))
		LC_HOW=$(sed -n 's/^leak check of pid [0-9]* (\([^:]*\):.*/\1/p' "$LOGS/$tag.out" | sort -u | tr '\n' ' ' | sed 's/ $//')
		LC_READ=$(sed -n 's/^ *still reachable: \([0-9,]*\) bytes.*/\1/p' "$LOGS/$tag.out" | tail -1 | tr -d ,)
		LC_GAP_MS=$(sed -n 's/^gap \([0-9.]*\)$/\1/p' "$LOGS/$tag.target" | tail -1)
		for i in 1 2 3; do
			floors+=("$("$OUT/vmread" "$tpid" "${LC_READ:-0}" | sed -n 's/^read [0-9]* bytes in \([0-9.]*\) ms$/\1/p')")
		done
		LC_FLOOR_MS=$(median "${floors[@]}")
	fi
	signal_ours INT "$dpid"
	wait_exit "$dpid" 60 >/dev/null 2>&1
	signal_ours TERM "$tpid"
	wait_exit "$tpid" 10 >/dev/null 2>&1
}

section_leak_check() {
	local config mib block wait
	LC_WORST_GAP=''
	echo
	echo "== 17. the leak check: reachable heap, a 1 ms heartbeat in the target (a snapshot)"
	for config in ${LC_CONFIGS:-64:65536 256:65536 1024:65536 32:32}; do
		mib=${config%:*}
		block=${config#*:}
		leak_round "leak-$mib-$block" "$mib" "$block"
		echo "  ${mib} MiB in blocks of $block bytes (${LC_HOW:-?}), medians of 3 checks: stopped" \
		     "${LC_STOP_MS:-?} ms, the target's longest gap over them ${LC_GAP_MS:-?} ms; scanned in" \
		     "${LC_SCAN_MS:-?} ms, copy floor ${LC_FLOOR_MS:-?} ms for the same bytes:" \
		     "$(calc "${LC_SCAN_MS:-0} / ${LC_FLOOR_MS:-0}" %.2f)x the floor"
		case $mib in
		256) LC_256_RATIO=$(calc "${LC_SCAN_MS:-0} / ${LC_FLOOR_MS:-0}" %.2f) ;;
		1024) LC_1G_GAP=$LC_GAP_MS LC_1G_HOW=$LC_HOW ;;
		esac
	done
	# the main thread parked (a server's, while its workers work): the
	# snapshot is made by a thread that can make it
	LC_PARKED_WORST='' LC_PARKED_HOWS=''
	for wait in ${LC_WAITS:-sleep poll epoll condwait select}; do
		leak_round "leak-1024-$wait" "${LC_PARKED_MIB:-1024}" 65536 "$wait"
		echo "  ${LC_PARKED_MIB:-1024} MiB, the main thread in $wait (${LC_HOW:-?}): stopped" \
		     "${LC_STOP_MS:-?} ms, the target's longest gap ${LC_GAP_MS:-?} ms"
		[ "${LC_HOW:-}" = snapshot ] || LC_PARKED_HOWS="$LC_PARKED_HOWS $wait:${LC_HOW:-?}"
		if [ -z "$LC_PARKED_WORST" ] || [ "$(calc "${LC_GAP_MS:-1e9} > $LC_PARKED_WORST" %d)" = 1 ]; then
			LC_PARKED_WORST=${LC_GAP_MS:-1e9}
		fi
	done
}

leak_check_verdict() {
	v=$([ "${LC_1G_HOW:-}" = snapshot ] && le "${LC_1G_GAP:-x}" 50 || echo 0)
	echo "$(verdict "$v") leak check: the target's longest gap at 1 GiB < 50 ms:" \
	     "${LC_1G_GAP:-?} ms (${LC_1G_HOW:-?})"
	v=$([ -z "${LC_PARKED_HOWS:-}" ] && le "${LC_PARKED_WORST:-x}" 50 || echo 0)
	echo "$(verdict "$v") leak check with the main thread parked (nanosleep, poll, epoll_wait," \
	     "cond_timedwait, select) at 1 GiB: the longest gap < 50 ms: ${LC_PARKED_WORST:-?} ms" \
	     "${LC_PARKED_HOWS:+(not by snapshot:$LC_PARKED_HOWS)}"
	v=$(le "${LC_256_RATIO:-x}" 2)
	echo "$(verdict "$v") leak check: the scan within 2x the copy floor (256 MiB): ${LC_256_RATIO:-?}x"
}

if [ "${BENCH_ONLY:-}" = 17 ]; then
	section_leak_check
	echo "================================================================ targets (section 17 alone)"
	leak_check_verdict
	exit 0
fi

# ---------------------------------------------------------------- 18. the programs' own cost

declare -A PCOST PCOST_RUNS_OF
PCOST_DEPTHS=${BENCH_PCOST_DEPTHS:-"0 5 20"}
PCOST_RUNS=${BENCH_PCOST_RUNS:-5}
# prog_cost_run KEY CHURN DEPTH TRACELLOC FLAGS...: one run's enter_call and
# leave_alloc ns into PCOST[KEY/enter], PCOST[KEY/leave] (appended, for medians)
prog_cost_run() {
	local key=$1 churn=$2 depth=$3 tl=$4 tag
	shift 4
	tag=pcost-${key//\//-}-$RANDOM
	TRACELLOC=$tl prog_times "$tag" "$churn" "$depth" "$@"
	PCOST[$key/enter]="${PCOST[$key/enter]:-} $(awk '$1 == "enter_call" { print $3 }' "$LOGS/$tag.progs")"
	PCOST[$key/leave]="${PCOST[$key/leave]:-} $(awk '$1 == "leave_alloc" { print $3 }' "$LOGS/$tag.progs")"
}

# prog_cost_pair KEY_A KEY_B CHURN DEPTH TL_A "FLAGS_A" TL_B "FLAGS_B": both
# tracers attached to one churn at once, A first; each one's leave_alloc ns
# per run appended to PCOST[KEY/leave]. Both programs run at every return of
# the same calls, so whatever moves this host's figures from one run to the
# next (±30%) moves both: their ratio holds to a few percent. The program run
# second finds the stack warm; callers alternate the order.
prog_cost_pair() {
	local ka=$1 kb=$2 churn=$3 depth=$4 tag pid k f id v
	local -a tls=("$5" "$7") flags=("$6" "$8") keys=("$ka" "$kb") dpids=()
	tag=pcost-pair-$RANDOM
	"$churn" -t 1 -d "$depth" -n "$ITER" -l 1500 >"$LOGS/$tag.target" 2>&1 &
	pid=$!
	STARTED+=("$pid")
	wait_line "$LOGS/$tag.target" '^ready' 30 "$pid" || return
	for k in 0 1; do
		# shellcheck disable=SC2086 # the flags are words
		"${tls[$k]}" ${flags[$k]} -p "$pid" -i 0 -t 0 >"$LOGS/$tag.$k.out" 2>"$LOGS/$tag.$k.err" &
		dpids+=($!)
		STARTED+=($!)
		wait_line "$LOGS/$tag.$k.err" 'attached to pid' 60 "${dpids[$k]}" || break
	done
	if [ "${#dpids[@]}" = 2 ] && alive "${dpids[1]}"; then
		signal_ours USR1 "$pid"
		if wait_line "$LOGS/$tag.target" '^churn:' 600 "$pid"; then
			sleep 0.3
			for k in 0 1; do
				v=""
				for f in /proc/"${dpids[$k]}"/fdinfo/*; do
					grep -q '^run_cnt:' "$f" 2>/dev/null || continue
					id=$(awk '/^prog_id:/ { print $2 }' "$f" 2>/dev/null)
					bpftool prog show id "$id" 2>/dev/null | grep -q ' name leave_alloc ' || continue
					v=$(awk '/^run_time_ns:/ { t = $2 } /^run_cnt:/ { c = $2 }
						END { if (c) printf "%.0f", t / c }' "$f" 2>/dev/null)
					break
				done
				PCOST[${keys[$k]}/leave]="${PCOST[${keys[$k]}/leave]:-} ${v:-0}"
			done
		fi
	fi
	wait_exit "$pid" 60
	for k in "${dpids[@]}"; do wait_exit "$k" 60; done
}

# prog_cost_side KEY_A KEY_B CHURN DEPTH RUN TL_A "FLAGS_A" TL_B "FLAGS_B":
# prog_cost_pair with A first in odd runs, B first in even ones
prog_cost_side() {
	if [ $(($5 % 2)) = 1 ]; then
		prog_cost_pair "$1" "$2" "$3" "$4" "$6" "$7" "$8" "$9"
	else
		prog_cost_pair "$2" "$1" "$3" "$4" "$8" "$9" "$6" "$7"
	fi
}

# prog_cost_cmd KEY TRACELLOC CMD...: leave_alloc's ns per run while
# TRACELLOC launches CMD, read from its program's fdinfo until it ends (the
# last reading: the run less its last tenth of a second), into PCOST[KEY/leave];
# the calls by stack, folded, into $LOGS/pcost-KEY.folded (the last run's)
prog_cost_cmd() {
	local key=$1 tl=$2 tag dpid f info="" id v="" now
	shift 2
	tag=pcost-cmd-$RANDOM
	"$tl" -i 0 -t 0 -m count --flamegraph "$LOGS/$tag.folded" -- "$@" \
		>"$LOGS/$tag.out" 2>"$LOGS/$tag.err" &
	dpid=$!
	STARTED+=("$dpid")
	while alive "$dpid"; do
		if [ -z "$info" ]; then
			for f in /proc/"$dpid"/fdinfo/*; do
				grep -q '^run_cnt:' "$f" 2>/dev/null || continue
				id=$(awk '/^prog_id:/ { print $2 }' "$f" 2>/dev/null)
				bpftool prog show id "$id" 2>/dev/null | grep -q ' name leave_alloc ' &&
					info=$f && break
			done
		else
			# the fd found may have been closed and taken again
			now=$(awk -v id="$id" '/^prog_id:/ { p = $2 } /^run_time_ns:/ { t = $2 }
				/^run_cnt:/ { c = $2 } END { if (c && p == id) printf "%.0f", t / c }' \
				"$info" 2>/dev/null)
			if [ -n "$now" ]; then v=$now; else info=""; fi
		fi
		sleep 0.1
	done
	wait_exit "$dpid" 60
	PCOST[$key/leave]="${PCOST[$key/leave]:-} $v"
	# the first run's kept too: a program may not make the same calls
	# twice (python3.11 moves one call between two stacks in some runs)
	[ -e "$LOGS/pcost-${key//\//-}.first" ] ||
		sort "$LOGS/$tag.folded" >"$LOGS/pcost-${key//\//-}.first" 2>/dev/null
	sort "$LOGS/$tag.folded" >"$LOGS/pcost-${key//\//-}.folded" 2>/dev/null
}

# programs nobody here wrote, built without frame pointers: their stacks are
# deeper and their frames wider than churn's (cmake: 23 frames, 8 KiB of
# stack a walk), which is where the walk's reads and its row cache show
PCOST_CMAKE_SCRIPT='foreach(i RANGE 3000)
  string(REGEX REPLACE "([a-z]+)([0-9]+)" "\\2\\1" o "abc${i}def${i}")
  list(APPEND s "${o}")
endforeach()'
PCOST_PY='import json
for i in range(20000): json.dumps({"a": list(range(50))})'

# leave_alloc's ns per run in the program of the tracer whose pid is $1, or
# nothing; $2: the fdinfo file found before ("FILE ID"), read again
pcost_leave_now() {
	local f id info=$2
	if [ -z "$info" ]; then
		for f in /proc/"$1"/fdinfo/*; do
			grep -q '^run_cnt:' "$f" 2>/dev/null || continue
			id=$(awk '/^prog_id:/ { print $2 }' "$f" 2>/dev/null)
			bpftool prog show id "$id" 2>/dev/null | grep -q ' name leave_alloc ' &&
				info="$f $id" && break
		done
	fi
	[ -n "$info" ] || return 0
	set -- $info
	awk -v id="$2" -v info="$info" '/^prog_id:/ { p = $2 } /^run_time_ns:/ { t = $2 }
		/^run_cnt:/ { c = $2 } END { if (c && p == id) printf "%.0f %s\n", t / c, info }' \
		"$1" 2>/dev/null
}

# prog_cost_cmd_pair KEY_A KEY_B TL_A TL_B: the real programs as
# prog_cost_pair runs churn, both tracers attached at once (A first), from
# a point where each program waits for them; into PCOST[KEY/PROGRAM/leave]
prog_cost_cmd_pair() {
	local ka=$1 kb=$2 prog pid tag k now go
	local -a tls=("$3" "$4") keys=("$ka" "$kb") dpids info val
	for prog in cmake python; do
		tag=pcost-cpair-$RANDOM
		go=$LOGS/$tag.go
		case $prog in
		cmake)
			command -v cmake >/dev/null || continue
			printf 'while(NOT EXISTS "%s")\n  execute_process(COMMAND sleep 0.05)\nendwhile()\n%s\n' \
				"$go" "$PCOST_CMAKE_SCRIPT" >"$LOGS/$tag.cmake"
			cmake -P "$LOGS/$tag.cmake" >"$LOGS/$tag.target" 2>&1 &
			;;
		python)
			[ -x /usr/bin/python3.11 ] || continue
			PYTHONHASHSEED=0 /usr/bin/python3.11 -c "import os, time, json
while not os.path.exists('$go'): time.sleep(0.05)
$PCOST_PY" >"$LOGS/$tag.target" 2>&1 &
			;;
		esac
		pid=$!
		STARTED+=("$pid")
		dpids=() info=() val=()
		for k in 0 1; do
			"${tls[$k]}" -p "$pid" -i 0 -t 0 >"$LOGS/$tag.$k.out" 2>"$LOGS/$tag.$k.err" &
			dpids+=($!)
			STARTED+=($!)
			wait_line "$LOGS/$tag.$k.err" 'attached to pid' 60 "${dpids[$k]}" || break
		done
		: >"$go"
		while alive "$pid"; do
			for k in 0 1; do
				now=$(pcost_leave_now "${dpids[$k]:-0}" "${info[$k]:-}")
				[ -n "$now" ] || { info[$k]=""; continue; }
				val[$k]=${now%% *}
				info[$k]=${now#* }
			done
			sleep 0.1
		done
		for k in 0 1; do
			PCOST[${keys[$k]}/$prog/leave]="${PCOST[${keys[$k]}/$prog/leave]:-} ${val[$k]:-0}"
			wait_exit "${dpids[$k]:-0}" 60
		done
	done
}

# prog_cost_real KEY TRACELLOC: both programs once
prog_cost_real() {
	command -v cmake >/dev/null && prog_cost_cmd "$1/cmake" "$2" cmake -P "$LOGS/pcost.cmake"
	[ -x /usr/bin/python3.11 ] &&
		PYTHONHASHSEED=0 prog_cost_cmd "$1/python" "$2" /usr/bin/python3.11 -c "$PCOST_PY"
	return 0
}

section_prog_cost() {
	local depth run parts b key old
	echo
	echo "== 18. the BPF programs' own cost: ns per run (kernel.bpf_stats_enabled), 1 thread,"
	echo "   the least of $PCOST_RUNS runs; tables: churn without frame pointers (--unwind auto),"
	echo "   fp: churn with them (--unwind fp); nostack: no stack walked, noring: no record sent"
	if ! read -r old 2>/dev/null </proc/sys/kernel/bpf_stats_enabled ||
	   ! echo 1 2>/dev/null >/proc/sys/kernel/bpf_stats_enabled; then
		echo "  kernel.bpf_stats_enabled cannot be set: skipped"
		return
	fi
	BPF_STATS_OLD=$old
	for depth in $PCOST_DEPTHS; do
		for run in $(seq "$PCOST_RUNS"); do
			for parts in full nostack noring; do
				TRACELLOC_BENCH_PARTS=$parts prog_cost_run "tables/$parts/$depth" "$CHURN_NOFP" "$depth" "$TRACELLOC"
				TRACELLOC_BENCH_PARTS=$parts prog_cost_run "fp/$parts/$depth" "$CHURN_FP" "$depth" "$TRACELLOC" --unwind fp
			done
			# what bpf_stats and a program that does nothing cost: the
			# floor's programs (pcost_projection)
			prog_cost_run "empty/$depth" "$CHURN_NOFP" "$depth" "$TRACELLOC" --empty-probes
			if [ -n "${BENCH_BASELINE:-}" ]; then
				prog_cost_run "tables/base/$depth" "$CHURN_NOFP" "$depth" "$BENCH_BASELINE"
				prog_cost_run "fp/base/$depth" "$CHURN_FP" "$depth" "$BENCH_BASELINE" --unwind fp
				prog_cost_side "side/tables/$depth/new" "side/tables/$depth/base" "$CHURN_NOFP" \
					"$depth" "$run" "$TRACELLOC" "" "$BENCH_BASELINE" ""
				prog_cost_side "side/fp/$depth/new" "side/fp/$depth/base" "$CHURN_FP" \
					"$depth" "$run" "$TRACELLOC" "--unwind fp" "$BENCH_BASELINE" "--unwind fp"
			fi
			# the two walks over the same stacks: churn with frame pointers
			# has tables too
			prog_cost_side "side/walk/$depth/tables" "side/walk/$depth/fp" "$CHURN_FP" \
				"$depth" "$run" "$TRACELLOC" "" "$TRACELLOC" "--unwind fp"
		done
	done
	printf '%s\n' "$PCOST_CMAKE_SCRIPT" >"$LOGS/pcost.cmake"
	for run in $(seq "$PCOST_RUNS"); do
		prog_cost_real real "$TRACELLOC"
		[ -z "${BENCH_BASELINE:-}" ] || prog_cost_real base "$BENCH_BASELINE"
		if [ -n "${BENCH_BASELINE:-}" ]; then
			if [ $((run % 2)) = 1 ]; then
				prog_cost_cmd_pair side/new side/base "$TRACELLOC" "$BENCH_BASELINE"
			else
				prog_cost_cmd_pair side/base side/new "$BENCH_BASELINE" "$TRACELLOC"
			fi
		fi
	done
	restore_bpf_stats
	# the least of the runs: what disturbs a run (an interrupt, the other
	# CPU's reads of the ring) only adds to its figure; the runs themselves
	# kept for the paired ratios (prog_cost_verdict)
	for key in "${!PCOST[@]}"; do
		PCOST_RUNS_OF[$key]=${PCOST[$key]}
		PCOST[$key]=$(printf '%s\n' ${PCOST[$key]} | sort -n | head -1)
	done
	printf '  %-6s %-7s %-9s %-9s %-9s %-9s %-9s\n' depth walk leave nostack noring enter baseline
	for depth in $PCOST_DEPTHS; do
		for b in tables fp; do
			printf '  %-6s %-7s %-9s %-9s %-9s %-9s %-9s\n' "$depth" "$b" "${PCOST[$b/full/$depth/leave]:-n/a}" \
			       "${PCOST[$b/nostack/$depth/leave]:-n/a}" "${PCOST[$b/noring/$depth/leave]:-n/a}" \
			       "${PCOST[$b/full/$depth/enter]:-n/a}" "${PCOST[$b/base/$depth/leave]:--}"
		done
	done
	echo "  (a malloc/free pair runs leave_alloc once and enter_call twice)"
	pcost_projection
	echo "  side by side: two tracers attached to one churn at once, both programs run at"
	echo "  every return (medians of the runs; ratios and cuts paired within each run). The"
	echo "  walks: tables and fp over the same stacks, of churn with frame pointers:"
	printf '  %-6s %-8s %-8s %-7s %-8s %-9s %-6s %-8s %-9s %-6s\n' depth tables fp ratio \
	       "tables" baseline cut "fp" baseline cut
	for depth in $PCOST_DEPTHS; do
		printf '  %-6s %-8s %-8s %-7s %-8s %-9s %-6s %-8s %-9s %-6s\n' "$depth" \
		       "$(pcost_median "side/walk/$depth/tables")" "$(pcost_median "side/walk/$depth/fp")" \
		       "$(pcost_pair_median "side/walk/$depth/tables/leave" "side/walk/$depth/fp/leave" '$1 / $2')" \
		       "$(pcost_median "side/tables/$depth/new")" "$(pcost_median "side/tables/$depth/base")" \
		       "$(pcost_pair_median "side/tables/$depth/new/leave" "side/tables/$depth/base/leave" '1 - $1 / $2')" \
		       "$(pcost_median "side/fp/$depth/new")" "$(pcost_median "side/fp/$depth/base")" \
		       "$(pcost_pair_median "side/fp/$depth/new/leave" "side/fp/$depth/base/leave" '1 - $1 / $2')"
	done
	echo "  leave_alloc tracing real programs by the tables (least of the runs; paired cuts"
	echo "  against the baseline, median):"
	for b in cmake python; do
		printf '  %-8s %-9s baseline %-9s cut %-6s %s\n' "$b" "${PCOST[real/$b/leave]:-n/a}" \
		       "${PCOST[base/$b/leave]:--}" \
		       "$(MEDIAN_FMT=%.2f median $(pcost_paired "real/$b/leave" "base/$b/leave" '1 - $1 / $2'))" \
		       "$(pcost_same_stacks "$b")"
	done
	[ -n "${BENCH_BASELINE:-}" ] || return 0
	echo "  the same programs side by side (both tracers attached by pid at once, each"
	echo "  program waiting for them; medians, paired cuts):"
	for b in cmake python; do
		printf '  %-8s %-9s baseline %-9s cut %s\n' "$b" "$(pcost_median "side/new/$b")" \
		       "$(pcost_median "side/base/$b")" \
		       "$(pcost_pair_median "side/new/$b/leave" "side/base/$b/leave" '1 - $1 / $2')"
	done
}

# pcost_projection: what the least runs above would make of section 7's
# ratio to the floor on a host whose traps cost PCOST_FLOOR_NS a call (issue
# 28's cheap-trap host: 0.8 us). A malloc/free pair is two calls: three traps
# (the floor) and leave_alloc once, enter_call twice; what each program adds
# over the floor's own empty run (which carries bpf_stats' clock reads too).
# A lower bound: tracing adds 1.5-1.8x the programs' run time to a call
# here (section 7 measures it whole): the daemon's work on the other CPU
# and what the programs cost around their own run time
pcost_projection() {
	local floor=${PCOST_FLOOR_NS:-800} depth b e l x line
	printf "  from the programs' own ns alone, on a host whose floor is %s ns a call, traced/floor\n" "$floor"
	printf '  (section 7) would be at least (what tracing adds to a call is more: section 7):'
	for depth in $PCOST_DEPTHS; do
		line=""
		for b in tables fp; do
			e=${PCOST[$b/full/$depth/enter]:-} l=${PCOST[$b/full/$depth/leave]:-} x=${PCOST[empty/$depth/leave]:-}
			if isnum "${e:-x}" && isnum "${l:-x}" && isnum "${x:-x}" && isnum "${PCOST[empty/$depth/enter]:-x}"; then
				line="$line $b $(calc "1 + (($l - $x) + 2 * ($e - ${PCOST[empty/$depth/enter]})) / (2 * $floor)" %.2f)x"
			else
				line="$line $b n/a"
			fi
		done
		printf '\n    depth %s:%s' "$depth" "$line"
	done
	printf '\n    (an empty run, enter_call/leave_alloc, by depth:%s ns)\n' "$(for depth in $PCOST_DEPTHS; do
		printf ' %s/%s' "${PCOST[empty/$depth/enter]:-?}" "${PCOST[empty/$depth/leave]:-?}"; done)"
}

# pcost_same_stacks PROGRAM: whether both builds found the same calls on the
# same stacks (the folded counts of each build's last run): a cheaper walk
# must not be a different one
pcost_same_stacks() {
	local new=$LOGS/pcost-real-$1.folded old=$LOGS/pcost-base-$1.folded first=$LOGS/pcost-real-$1.first
	[ -n "${BENCH_BASELINE:-}" ] && [ -s "$new" ] && [ -s "$old" ] || return 0
	if cmp -s "$new" "$old"; then
		echo "stacks: the same ($(wc -l <"$new") stacks)"
	else
		echo "stacks: $(comm -3 "$new" "$old" | wc -l) lines differ (diff $new $old);" \
		     "the build's own first and last runs: $(comm -3 "$first" "$new" 2>/dev/null | wc -l)"
	fi
}

# pcost_pair_median A B EXPR: the median of pcost_paired's figures
pcost_pair_median() {
	local v
	v=$(pcost_paired "$1" "$2" "$3")
	# shellcheck disable=SC2086 # the figures are words
	MEDIAN_FMT=%.2f median $v
}

# pcost_median KEY: the median of KEY's leave_alloc runs, or -
pcost_median() {
	[ -n "${PCOST_RUNS_OF[$1/leave]:-}" ] || { echo -; return; }
	# shellcheck disable=SC2086 # the runs are words
	MEDIAN_FMT=%.0f median ${PCOST_RUNS_OF[$1/leave]}
}

# pcost_paired A B EXPR: EXPR of each run's figures of A ($1) and B ($2),
# taken in the same run one after the other
pcost_paired() {
	paste -d' ' <(printf '%s\n' ${PCOST_RUNS_OF[$1]:-}) <(printf '%s\n' ${PCOST_RUNS_OF[$2]:-}) |
		awk "NF == 2 && \$2 > 0 { printf \"%.2f \", $3 }"
}

prog_cost_verdict() {
	local d worst="" r v cut_worst="" c b ratios sep rline="" cuts line=""
	# the ratio of each run's two walks over the same stacks, attached at
	# once (prog_cost_pair): the median. The separate runs of the two churns
	# are shown beside it; this host's drift between runs is larger than
	# the margins asked for
	for d in $PCOST_DEPTHS; do
		ratios=$(pcost_paired "side/walk/$d/tables/leave" "side/walk/$d/fp/leave" '$1 / $2')
		r=$(MEDIAN_FMT=%.2f median $ratios)
		sep=$(pcost_pair_median "tables/full/$d/leave" "fp/full/$d/leave" '$1 / $2')
		rline="$rline depth $d: ${r:-n/a}x ($ratios; separate runs of the two churns: ${sep}x);"
		isnum "${r:-x}" || continue
		[ -z "$worst" ] || [ "$(ge "$r" "$worst")" = 1 ] && worst=$r
	done
	v=$(le "${worst:-x}" 1.1)
	echo "$(verdict "$v") return program by the tables within 1.1x the frame-pointer walk at every depth" \
	     "(side by side, median of the runs' ratios): worst ${worst:-n/a}x;$rline"
	[ -n "${BENCH_BASELINE:-}" ] || return 0
	# each run's new figure against the baseline's, attached at once
	for d in $PCOST_DEPTHS; do
		for b in tables fp; do
			cuts=$(pcost_paired "side/$b/$d/new/leave" "side/$b/$d/base/leave" '1 - $1 / $2')
			c=$(MEDIAN_FMT=%.2f median $cuts)
			line="$line $b depth $d: ${c:-n/a} ($cuts);"
			isnum "${c:-x}" || continue
			[ -z "$cut_worst" ] || [ "$(ge "$cut_worst" "$c")" = 1 ] && cut_worst=$c
		done
	done
	v=$(ge "${cut_worst:-x}" 0.30)
	echo "$(verdict "$v") return program at least 30% cheaper than the baseline build, both walks, every depth" \
	     "(side by side, median of the runs' paired cuts): the least ${cut_worst:-n/a};$line"
}

# ---------------------------------------------------------------- 19. soak

# script_section NAME SCRIPT [VAR=VALUE...]: a section that is a script of
# its own, run with the environment given; its table printed, its PASS, FAIL
# and N/A lines kept in $LOGS/NAME.txt for the targets (script_verdict NAME)
script_section() {
	local name=$1 script=$2
	shift 2
	echo
	env TRACELLOC="$TRACELLOC" "$@" "$script" >"$LOGS/$name.txt" 2>&1
	grep -vE '^(PASS|FAIL|N/A) ' "$LOGS/$name.txt"
}

script_verdict() {
	if grep -qE '^(PASS|FAIL|N/A) ' "$LOGS/$1.txt" 2>/dev/null; then
		grep -E '^(PASS|FAIL|N/A) ' "$LOGS/$1.txt"
	else
		echo "N/A  $1: could not run (see $LOGS/$1.txt)"
	fi
}

section_soak() {
	script_section soak "$ROOT/bench/soak.sh" SOAK_CONNECTIONS="${BENCH_SOAK_CONNECTIONS:-10000}" \
		SOAK_LOGS="$LOGS/soak"
}

soak_verdict() { script_verdict soak; }

# ---------------------------------------------------------------- 20. runtimes

section_runtimes() { script_section runtimes "$ROOT/bench/runtimes.sh" RUNTIME_LOGS="$LOGS/runtimes"; }

runtimes_verdict() { script_verdict runtimes; }

if [ "${BENCH_ONLY:-}" = 20 ]; then
	section_runtimes
	echo
	echo "================================================================ targets (section 20 alone)"
	runtimes_verdict
	exit 0
fi

if [ "${BENCH_ONLY:-}" = 19 ]; then
	section_soak
	echo
	echo "================================================================ targets (section 19 alone)"
	soak_verdict
	exit 0
fi

if [ "${BENCH_ONLY:-}" = 18 ]; then
	section_prog_cost
	echo
	echo "================================================================ targets (section 18 alone)"
	prog_cost_verdict
	exit 0
fi

# ---------------------------------------------------------------- 1. cost per call

CONFIGS="1:0 1:5 2:0 2:5"
VARIANTS="untraced floor full sampled symbol memleak bpftrace"
declare -A NS RUN_NS READY LOST ALLOCS MALLOCS CPUFRAC WHY

variant_skipped() {
	case "$1" in
	memleak) [ -n "$MEMLEAK_SKIP" ] ;;
	bpftrace) [ -n "$BPFTRACE_SKIP" ] ;;
	*) return 1 ;;
	esac
}

echo
echo "== 1. cost per allocator call (progress: ns per call, each run)"
for config in $CONFIGS; do
	threads=${config%:*}
	depth=${config#*:}
	for run in $(seq "$RUNS"); do
		line="  threads=$threads depth=$depth run $run:"
		for v in $VARIANTS; do
			variant_skipped "$v" && continue
			iter=$ITER
			[ "$v" = untraced ] && iter=$ITER_UNTRACED
			key="$config/$v"
			if measure "$v" "churn-t$threads-d$depth-$v-$run" -t "$threads" -d "$depth" -n "$iter"; then
				NS[$key]="${NS[$key]:-} $R_NS"
				RUN_NS[$key/$run]=$R_NS
				[ -n "$R_READY" ] && READY[$key]="${READY[$key]:-} $R_READY"
				if [ "$v" = full ]; then
					LOST[$key]="${LOST[$key]:-} ${R_LOST:-?}"
					ALLOCS[$key]="${ALLOCS[$key]:-} ${R_ALLOCS:-?}/$R_MALLOCS"
					isnum "${R_CPU:-x}" &&
						CPUFRAC[$key]="${CPUFRAC[$key]:-} $(calc "$R_CPU / $R_WALL" %.3f)"
				fi
				line="$line $v=$R_NS"
			else
				WHY[$key]=$R_WHY
				line="$line $v=FAILED"
				note "$v (threads=$threads depth=$depth): $R_WHY"
				# a peer that cannot attach once will not later: stop trying
				[ "$v" = memleak ] && MEMLEAK_SKIP="failed: $R_WHY"
				[ "$v" = bpftrace ] && BPFTRACE_SKIP="failed: $R_WHY"
			fi
		done
		echo "$line"
	done
done

echo "  sustained: 2 threads, depth 5, $SUSTAIN_ITER iterations each, under tracelloc -p"
if measure full "sustain" -t 2 -d 5 -n "$SUSTAIN_ITER"; then
	SUSTAIN_LOST=${R_LOST:-?}
	SUSTAIN_SEEN="${R_ALLOCS:-?}/$R_MALLOCS"
	SUSTAIN_WALL=$R_WALL
	SUSTAIN_NS=$R_NS
	isnum "${R_CPU:-x}" && SUSTAIN_CPU=$(calc "$R_CPU / $R_WALL" %.3f)
	echo "    $R_NS ns per call over $R_WALL s; lost events: ${R_LOST:-?};" \
	     "allocation calls seen/made: $SUSTAIN_SEEN; daemon: ${SUSTAIN_CPU:-n/a} of a core"
else
	note "sustained run: $R_WHY"
fi

# ---------------------------------------------------------------- 2. inside the programs

# where full tracing's time goes: the kernel's run time of each BPF program
# (kernel.bpf_stats_enabled, on for these two runs only), read from the
# daemon's program fds while the target lingers
declare -A PROG_NS
echo
echo "== 2. inside the BPF programs (kernel.bpf_stats_enabled, 1 thread)"
if read -r old 2>/dev/null </proc/sys/kernel/bpf_stats_enabled &&
   echo 1 2>/dev/null >/proc/sys/kernel/bpf_stats_enabled; then
	BPF_STATS_OLD=$old
	for depth in 0 5; do
		tag=progs-d$depth
		prog_times "$tag" "$CHURN" "$depth"
		line=""
		while read -r name cnt avg; do
			line="$line $name: $avg ns x $cnt runs;"
			PROG_NS[$depth/$name]=$avg
		done <"$LOGS/$tag.progs"
		echo "  depth $depth:${line:- no figures}"
	done
	restore_bpf_stats
else
	echo "  kernel.bpf_stats_enabled cannot be set: skipped"
fi

# ---------------------------------------------------------------- 3. per function

FN_ITER=$((ITER / 5))
FN_LIST="malloc calloc realloc reallocarray posix_memalign aligned_alloc memalign valloc pvalloc"
declare -A FN_NS
echo
echo "== 3. per allocator function (1 thread; progress: ns per iteration = one call and one free)"
for f in $FN_LIST; do
	line="  $f:"
	for run in $(seq "$FN_RUNS"); do
		for v in untraced floor full; do
			iter=$FN_ITER
			[ "$v" = untraced ] && iter=$((FN_ITER * 20))
			if measure "$v" "fn-$f-$v-$run" -f "$f" -n "$iter"; then
				FN_NS[$f/$v]="${FN_NS[$f/$v]:-} $R_ITER_NS"
				line="$line $v=$R_ITER_NS"
			else
				line="$line $v=FAILED"
				note "$f $v: $R_WHY"
			fi
		done
	done
	echo "$line"
done

# ---------------------------------------------------------------- 4. memory

# hold_blocks TAG [TRACER FLAGS...]: bench/holder with HOLD blocks, untraced
# or under tracelloc -p FLAGS; sets H_TIME (s to allocate them), and when
# traced H_BASE, H_RSS, H_HWM (KiB) and the daemon's output in $LOGS/TAG.out
hold_blocks() {
	local tag=$1 hpid dpid="" i prev cur
	shift
	H_TIME="" H_BASE="" H_RSS="" H_HWM=""
	"$HOLDER" "$HOLD" >"$LOGS/$tag.target" 2>&1 &
	hpid=$!
	STARTED+=("$hpid")
	if ! wait_line "$LOGS/$tag.target" '^ready' 60 "$hpid"; then
		note "holder did not start"
		wait_exit "$hpid" 10
		return 1
	fi
	if [ $# -gt 0 ]; then
		"$TRACELLOC" -p "$hpid" "$@" >"$LOGS/$tag.out" 2>"$LOGS/$tag.err" &
		dpid=$!
		STARTED+=("$dpid")
		if ! wait_line "$LOGS/$tag.err" 'attached to pid' 60 "$dpid"; then
			note "tracelloc did not attach to the holder: $(tail -1 "$LOGS/$tag.err")"
			signal_ours KILL "$hpid"
			wait_exit "$hpid" 10
			wait_exit "$dpid" 30
			return 1
		fi
		sleep 0.2
		H_BASE=$(awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status")
	fi
	signal_ours USR1 "$hpid"
	if wait_line "$LOGS/$tag.target" '^holding' 900 "$hpid" 0.1 && [ -n "$dpid" ]; then
		prev=$(cpu_ns "$dpid")
		for i in $(seq 60); do
			sleep 0.5
			cur=$(cpu_ns "$dpid")
			[ -n "$cur" ] && [ -n "$prev" ] || break
			[ $((cur - prev)) -lt 5000000 ] && break
			prev=$cur
		done
		H_RSS=$(awk '/^VmRSS/ { print $2 }' "/proc/$dpid/status")
		H_HWM=$(awk '/^VmHWM/ { print $2 }' "/proc/$dpid/status")
	fi
	signal_ours USR1 "$hpid"
	wait_exit "$hpid" 60
	[ -n "$dpid" ] && wait_exit "$dpid" 300
	H_TIME=$(sed -n 's/^holding [0-9]* in \([0-9.]*\) s/\1/p' "$LOGS/$tag.target")
	[ -n "$H_TIME" ]
}

echo
echo "== 4. daemon memory: $HOLD live blocks of 16..64 bytes from 4 stacks of 12 frames"
if hold_blocks holder -i 1 -t 0 -f "$WORK/holder.fg" -m live && isnum "${H_RSS:-x}"; then
	BASE_RSS=$H_BASE HOLD_RSS=$H_RSS HOLD_HWM=$H_HWM HOLD_TIME=$H_TIME
	LIVE=$(sed -n 's/^ *live allocations: \([0-9]*\).*/\1/p' "$LOGS/holder.out")
	HOLD_LOST=$(sed -n 's/^ *lost events: \([0-9]*\).*/\1/p' "$LOGS/holder.out")
	STACKS=$(wc -l <"$WORK/holder.fg" 2>/dev/null || echo "?")
	# the live line of each second: when did records start to be lost?
	LOST_AT=$(awk '/live: .* lost: [1-9]/ { print prev_live "-" $4; exit }
		/live: / { prev_live = $4 }' "$LOGS/holder.out")
	cp "$WORK/holder.fg" "$LOGS/holder.fg" 2>/dev/null
fi
if isnum "${LIVE:-x}" && [ "${LIVE:-0}" -gt 0 ]; then
	MEM_PER=$(calc "($HOLD_RSS - $BASE_RSS) * 1024 / $LIVE" %.1f)
	MEM_TOTAL_PER=$(calc "$HOLD_RSS * 1024 / $LIVE" %.1f)
	MEM_PEAK_PER=$(calc "($HOLD_HWM - $BASE_RSS) * 1024 / $LIVE" %.1f)
	echo "  allocating them took ${HOLD_TIME:-?} s traced; tracelloc holds $LIVE live allocations" \
	     "(lost events: ${HOLD_LOST:-?}) in $STACKS distinct stacks (folded output lines)"
	[ -n "${LOST_AT:-}" ] &&
		echo "  records were first lost (ring buffer full) between ${LOST_AT/-/ and } live allocations" \
		     "(see the per-second lines in $LOGS/holder.out)"
	echo "  daemon VmRSS: baseline $((BASE_RSS / 1024)) MiB after attach, $((HOLD_RSS / 1024)) MiB holding" \
	     "them, peak (VmHWM) $((HOLD_HWM / 1024)) MiB"
	echo "  per live allocation: $MEM_PER B over the baseline ($MEM_TOTAL_PER B all told), peak $MEM_PEAK_PER B"
else
	echo "  could not measure (see $LOGS/holder.*)"
fi

# ---------------------------------------------------------------- 5. attach time

echo
echo "== 5. attach time: launching tracelloc -p to the target's first traced call ($ATTACH_RUNS runs)"
ATTACH_FIRST=() ATTACH_LINE=()
for run in $(seq "$ATTACH_RUNS"); do
	"$CHURN" -a >"$LOGS/attach-$run.target" 2>&1 &
	pid=$!
	STARTED+=("$pid")
	wait_line "$LOGS/attach-$run.target" '^ready' 30 "$pid" || { note "churn -a did not start"; continue; }
	sleep 0.1
	t0=$EPOCHREALTIME
	"$TRACELLOC" -p "$pid" -i 0 -t 0 >"$LOGS/attach-$run.out" \
		2> >(while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done >"$LOGS/attach-$run.err") &
	tpid=$!
	STARTED+=("$tpid")
	wait_exit "$pid" 30
	wait_exit "$tpid" 30
	sleep 0.05
	first=$(sed -n 's/^first_traced_ns=//p' "$LOGS/attach-$run.target")
	line=$(awk '/attached to pid/ { print $1; exit }' "$LOGS/attach-$run.err")
	if [ -n "$first" ]; then
		ATTACH_FIRST+=("$(awk -v f="$first" -v t="$t0" 'BEGIN { printf "%.1f", (f / 1e9 - t) * 1000 }')")
	fi
	[ -n "$line" ] && ATTACH_LINE+=("$(awk -v l="$line" -v t="$t0" 'BEGIN { printf "%.1f", (l - t) * 1000 }')")
done
ATTACH_MS=$(median "${ATTACH_FIRST[@]}")
ATTACH_LINE_MS=$(median "${ATTACH_LINE[@]}")
echo "  first traced call: ${ATTACH_FIRST[*]:-none} ms; \"attached\" line on stderr: ${ATTACH_LINE[*]:-none} ms"
echo "  (includes process start, loading and verifying the BPF programs, reading the target's"
echo "   maps and libc's symbols, creating the uprobe links; the daemon reads the first records"
echo "   within its 20 ms poll)"

# an idle target, as -p meets a server: launch to the "attached" line, and
# from launch to exit with -d 0.1 less its 0.1 s
IDLE_LINE=() IDLE_EXIT=()
sleep 600 &
idle=$!
STARTED+=("$idle")
sleep 0.2
for run in $(seq "$ATTACH_RUNS"); do
	t0=$EPOCHREALTIME
	"$TRACELLOC" -p "$idle" -d 0.1 -i 0 -t 0 >"$LOGS/idle-$run.out" \
		2> >(while IFS= read -r l; do echo "$EPOCHREALTIME $l"; done >"$LOGS/idle-$run.err")
	t1=$EPOCHREALTIME
	sleep 0.05
	line=$(awk '/attached to pid/ { print $1; exit }' "$LOGS/idle-$run.err")
	[ -n "$line" ] && IDLE_LINE+=("$(awk -v l="$line" -v t="$t0" 'BEGIN { printf "%.1f", (l - t) * 1000 }')")
	[ -n "$line" ] && IDLE_EXIT+=("$(awk -v l="$line" -v t="$t1" 'BEGIN { printf "%.1f", (t - l) * 1000 - 100 }')")
done
kill "$idle" 2>/dev/null
IDLE_LINE_MS=$(median "${IDLE_LINE[@]}")
IDLE_EXIT_MS=$(median "${IDLE_EXIT[@]}")
echo "  an idle target (sleep), -p PID -d 0.1: \"attached\" ${IDLE_LINE[*]:-none} ms;" \
     "the end after the 0.1 s ${IDLE_EXIT[*]:-none} ms (the attach: about 30 ms of loading" \
     "the programs, 15 of unwind tables, 15 of finding the allocator, 10 of starting)"

# ---------------------------------------------------------------- 6. sampling

# site_bytes FOLDED: "site_a BYTES" per call site of bench/holder
site_bytes() {
	awk 'match($0, /site_[a-d]/) { b[substr($0, RSTART, RLENGTH)] += $NF }
	     END { for (s in b) print s, b[s] }' "$1" 2>/dev/null | sort
}

echo
echo "== 6. sampling on a large run: section 4's $HOLD blocks under --sample-bytes $SAMPLE_HOLD_BYTES"
SAMPLE_WORST=""
hold_blocks holder-untraced && HOLD_UNTRACED_TIME=$H_TIME
if hold_blocks holder-sampled -i 1 -t 0 --sample-bytes "$SAMPLE_HOLD_BYTES" \
	-f "$WORK/holder-sampled.fg" -m live; then
	cp "$WORK/holder-sampled.fg" "$LOGS/holder-sampled.fg" 2>/dev/null
	# what each site holds, from holder.c: block i, of 16 + i % 49 bytes, at site i % 4
	awk -v n="$HOLD" 'BEGIN { for (i = 0; i < n; i++) b[i % 4] += 16 + i % 49
		for (s = 0; s < 4; s++) printf "site_%c %d\n", 97 + s, b[s] }' >"$WORK/holder-exact"
	site_bytes "$LOGS/holder.fg" >"$WORK/holder-full"
	site_bytes "$LOGS/holder-sampled.fg" >"$WORK/holder-est"
	printf '  %-8s %14s %14s %18s %10s\n' site exact "full trace" "sampled estimate" "vs full"
	while read -r site exact; do
		full=$(awk -v s="$site" '$1 == s { print $2 }' "$WORK/holder-full")
		est=$(awk -v s="$site" '$1 == s { print $2 }' "$WORK/holder-est")
		err=""
		if isnum "${full:-x}" && isnum "${est:-x}" && [ "$full" -gt 0 ]; then
			err=$(calc "($est - $full) * 100 / $full" %+.2f)
			a=$(calc "($est > $full ? $est - $full : $full - $est) * 100 / $full" %.2f)
			if [ -z "$SAMPLE_WORST" ] || awk -v a="$a" -v b="$SAMPLE_WORST" 'BEGIN { exit !(a > b) }'; then
				SAMPLE_WORST=$a
			fi
		else
			SAMPLE_WORST=none
		fi
		printf '  %-8s %14s %14s %18s %10s\n' "$site" "$exact" "${full:-n/a}" "${est:-n/a}" "${err:+$err%}"
	done <"$WORK/holder-exact"
	echo "  allocating them took ${H_TIME} s sampled, ${HOLD_TIME:-?} s fully traced," \
	     "${HOLD_UNTRACED_TIME:-?} s untraced"
	if isnum "${H_RSS:-x}" && isnum "${H_HWM:-x}"; then
		echo "  daemon VmRSS: baseline $((H_BASE / 1024)) MiB after attach, $((H_RSS / 1024)) MiB holding" \
		     "the samples, peak $((H_HWM / 1024)) MiB (fully traced, section 4: peak $((${HOLD_HWM:-0} / 1024)) MiB)"
	fi
else
	echo "  could not measure (see $LOGS/holder-sampled.*)"
fi

section_nofp
section_families
section_throttled
section_forks

section_model
section_procmem
section_syscalls
section_forks_cost
section_writer
section_big_binary
section_leak_check
section_prog_cost
section_soak
section_runtimes

# ---------------------------------------------------------------- report

declare -A NAMES
NAMES[untraced]="untraced"
NAMES[floor]="floor (--empty-probes)"
NAMES[full]="tracelloc -p"
NAMES[sampled]="tracelloc --sample-bytes $SAMPLE_BYTES"
NAMES[symbol]="tracelloc --probe-at-symbol"
NAMES[memleak]="BCC memleak-bpfcc"
NAMES[bpftrace]="bpftrace"

WORST_FLOOR=""  WORST_FLOOR_CFG=""
WORST_PEER=""   WORST_PEER_CFG=""
declare -A MED ADDED RATIO_FLOOR RATIO_FULL
echo
echo "================================================================ results"
echo "ns per allocator call (malloc and free calls both counted), median of $RUNS runs;"
echo "added = minus untraced; vs floor = added / floor's added, x tracelloc = added / tracelloc -p's added:"
echo "  each the median of the runs' own ratios (a run measures its variants back to back);"
echo "ready ms = from launching the tracer to its attached line (memleak: its BPF program compiles first)"
for config in $CONFIGS; do
	threads=${config%:*}
	depth=${config#*:}
	echo
	chain="malloc straight from the loop"
	[ "$depth" -gt 0 ] && chain="malloc $depth frames below the loop"
	echo "-- $threads thread(s), $chain"
	printf '  %-31s %9s %9s %9s %15s %9s\n' variant ns/call added "vs floor" "x tracelloc" "ready ms"
	for v in $VARIANTS; do
		key="$config/$v"
		MED[$key]=$(median ${NS[$key]:-})
	done
	base=${MED[$config/untraced]}
	for v in $VARIANTS; do
		key="$config/$v"
		med=${MED[$key]}
		if [ "$med" = n/a ]; then
			reason=${WHY[$key]:-}
			[ "$v" = memleak ] && reason=${reason:-$MEMLEAK_SKIP}
			[ "$v" = bpftrace ] && reason=${reason:-$BPFTRACE_SKIP}
			printf '  %-31s skipped: %s\n' "${NAMES[$v]}" "${reason:-no result}"
			continue
		fi
		added="" vsfloor="" peer="" ready=""
		if [ "$v" != untraced ] && isnum "$base"; then
			added=$(calc "$med - $base" %.1f)
			ADDED[$key]=$added
		fi
		if [ -n "$added" ] && [ "$v" != floor ]; then
			r=$(MEDIAN_FMT=%.3f median $(paired "$config" "$v" floor))
			RATIO_FLOOR[$key]=$r
			isnum "$r" && vsfloor=$(calc "$r" %.2fx)
		fi
		if [ -n "$added" ] && { [ "$v" = memleak ] || [ "$v" = bpftrace ] || [ "$v" = symbol ] || [ "$v" = sampled ]; }; then
			r=$(MEDIAN_FMT=%.3f median $(paired "$config" "$v" full))
			RATIO_FULL[$key]=$r
			isnum "$r" && peer=$(calc "$r" %.2fx)
		fi
		[ -n "${READY[$key]:-}" ] && ready=$(median ${READY[$key]})
		printf '  %-31s %9s %9s %9s %15s %9s\n' "${NAMES[$v]}" "$med" "${added:--}" "${vsfloor:--}" \
			"${peer:--}" "${ready:--}"
	done
	# the targets, worst config
	full_added=${ADDED[$config/full]:-}
	floor_added=${ADDED[$config/floor]:-}
	r=${RATIO_FLOOR[$config/full]:-}
	if isnum "${r:-x}"; then
		if [ -z "$WORST_FLOOR" ] || awk -v a="$r" -v b="$WORST_FLOOR" 'BEGIN { exit !(a > b) }'; then
			WORST_FLOOR=$r WORST_FLOOR_CFG="$threads thread(s), depth $depth"
		fi
	fi
	r=${RATIO_FULL[$config/memleak]:-}
	if isnum "${r:-x}"; then
		if [ -z "$WORST_PEER" ] || awk -v a="$r" -v b="$WORST_PEER" 'BEGIN { exit !(a < b) }'; then
			WORST_PEER=$r WORST_PEER_CFG="$threads thread(s), depth $depth"
		fi
	fi
	echo "  tracelloc -p vs floor, each run:$(paired "$config" full floor | sed 's/ \([0-9.]*\)/ \1x/g')"
	echo "  tracelloc -p: lost events per run: ${LOST[$config/full]:-n/a};" \
	     "allocation calls seen/made: ${ALLOCS[$config/full]:-n/a}"
	echo "  daemon CPU, share of a core over the timed loop: ${CPUFRAC[$config/full]:-n/a}"
	if isnum "${full_added:-x}" && isnum "${floor_added:-x}" && isnum "${PROG_NS[$depth/leave_alloc]:-x}"; then
		echo "  full - floor per malloc+free pair: $(calc "2 * ($full_added - $floor_added)" %.0f) ns;" \
		     "BPF programs (section 2, 1 thread): leave_alloc ${PROG_NS[$depth/leave_alloc]} ns" \
		     "+ 2 x enter_call ${PROG_NS[$depth/enter_call]:-?} ns"
	fi
done

echo
echo "-- per allocator function, 1 thread, called through one frame: ns per iteration (one call"
echo "   and one free), median of $FN_RUNS runs; added = minus untraced"
printf '  %-15s %-30s %9s %11s %11s %14s\n' function "first instruction" untraced "floor added" "full added" "full - malloc's"
malloc_full=""
for f in $FN_LIST; do
	u=$(median ${FN_NS[$f/untraced]:-})
	fl=$(median ${FN_NS[$f/floor]:-})
	fu=$(median ${FN_NS[$f/full]:-})
	fa="n/a" ua="n/a" extra="-"
	isnum "$u" && isnum "$fl" && fa=$(calc "$fl - $u" %.0f)
	isnum "$u" && isnum "$fu" && ua=$(calc "$fu - $u" %.0f)
	[ "$f" = malloc ] && malloc_full=$ua
	[ "$f" != malloc ] && isnum "$ua" && isnum "${malloc_full:-x}" && extra=$(calc "$ua - $malloc_full" %+.0f)
	printf '  %-15s %-30s %9s %11s %11s %14s\n' "$f" "${INSN[$f]:-?}" "$u" "$fa" "$ua" "$extra"
done
echo "  (realloc(NULL, n) jumps to malloc and reallocarray to realloc: their inner entries trap too;"
echo "   free is probed at ${SITE[free]%%:*}; between the emulated rows, differences under ~1 us are noise)"

# ---------------------------------------------------------------- verdicts


echo
echo "================================================================ targets"
v=$(le "$WORST_FLOOR" 1.5)
echo "$(verdict "$v") full tracing with stacks adds <= 1.5x the emulated-site floor per call:" \
     "worst ${WORST_FLOOR:-n/a}x ($WORST_FLOOR_CFG)"
if [ -n "$WORST_PEER" ]; then
	v=$(ge "$WORST_PEER" 4)
	echo "$(verdict "$v") full tracing adds >= 4x less than BCC memleak per call:" \
	     "worst ${WORST_PEER}x ($WORST_PEER_CFG)"
else
	echo "N/A  full tracing adds >= 4x less than BCC memleak per call: memleak ${MEMLEAK_SKIP:-gave no result}"
fi

# 2 threads at full speed: every run of both 2-thread configs, and the sustained one
lost_all="${SUSTAIN_LOST:-}" cpu_all="${SUSTAIN_CPU:-}" seen_ok=1
for config in $CONFIGS; do
	[ "${config%:*}" = 2 ] || continue
	lost_all="$lost_all ${LOST[$config/full]:-}"
	cpu_all="$cpu_all ${CPUFRAC[$config/full]:-}"
done
for pair in ${SUSTAIN_SEEN:-} ${ALLOCS[2:0/full]:-} ${ALLOCS[2:5/full]:-}; do
	[ "${pair%/*}" = "${pair#*/}" ] || seen_ok=0
done
lost_max=$(printf '%s\n' $lost_all | grep -E '^[0-9]+$' | sort -n | tail -1)
cpu_max=$(printf '%s\n' $cpu_all | grep -E '^[0-9.]+$' | sort -g | tail -1)
if [ -n "$lost_max" ]; then v=$([ "$lost_max" = 0 ] && echo 1 || echo 0); else v=x; fi
echo "$(verdict "$v") 2 target threads at full speed: zero lost events: most lost in a run ${lost_max:-n/a}," \
     "sustained ${SUSTAIN_WALL:-?} s run: ${SUSTAIN_LOST:-n/a} (every allocation call seen: $([ "$seen_ok" = 1 ] && echo yes || echo NO))"
v=$(le "${cpu_max:-x}" 0.5)
echo "$(verdict "$v") 2 target threads at full speed: daemon <= half a core: worst ${cpu_max:-n/a} of a core"
if [ -n "${MEM_PER:-}" ]; then
	v=$(le "$MEM_PER" 64)
	echo "$(verdict "$v") daemon memory <= 64 B per live allocation: $MEM_PER B over the baseline" \
	     "($MEM_TOTAL_PER B with it; peak $MEM_PEAK_PER B), $STACKS stacks for $LIVE blocks"
else
	echo "N/A  daemon memory <= 64 B per live allocation: not measured"
fi
if isnum "${SAMPLE_WORST:-x}"; then
	v=$(le "$SAMPLE_WORST" 5)
	echo "$(verdict "$v") --sample-bytes $SAMPLE_HOLD_BYTES: live bytes per call site within 5% of the full" \
	     "trace: worst ${SAMPLE_WORST}% ($HOLD blocks)"
else
	echo "N/A  --sample-bytes: live bytes per call site within 5% of the full trace: not measured"
fi
v=$(le "$ATTACH_MS" 100)
echo "$(verdict "$v") attach (launch to first traced call) < 100 ms: median $ATTACH_MS ms" \
     "(\"attached\" line: $ATTACH_LINE_MS ms)"
v=$(le "$IDLE_LINE_MS" 100)
echo "$(verdict "$v") attach to an idle target (launch to \"attached\") < 100 ms: median $IDLE_LINE_MS ms"
v=$(le "$IDLE_EXIT_MS" 100)
echo "$(verdict "$v") the end of -d 0.1 on an idle target (after its 0.1 s) < 100 ms: median $IDLE_EXIT_MS ms"
nofp_verdicts
families_verdict
throttled_verdict
forks_verdict
procmem_verdict
syscalls_verdict
forks_cost_verdict
leak_check_verdict
prog_cost_verdict
soak_verdict
runtimes_verdict

echo
if [ -n "$MEMLEAK_SKIP" ]; then
	peer_memleak="skipped: $MEMLEAK_SKIP"
else
	peer_memleak="BCC $(dpkg-query -W -f='${Version}' bpfcc-tools 2>/dev/null), run through bench/memleak.py"
	peer_memleak="$peer_memleak (its uprobe binding fixed), headers: ${BCC_HEADERS:-?}"
fi
if [ -n "$BPFTRACE_SKIP" ]; then
	peer_bpftrace="skipped: $BPFTRACE_SKIP"
else
	peer_bpftrace="$(bpftrace --version 2>/dev/null), uprobe+uretprobe on malloc, uprobe on free, ustack per block"
fi
echo "memleak: $peer_memleak"
echo "bpftrace: $peer_bpftrace"
echo "tracefs: $TRACEFS_NOTE"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); took $(elapsed "$BENCH_START" "$(now)") s; logs in $LOGS"
exit 0
