#!/bin/sh
# Install the Debian 12 packages tracelloc needs to build, test and demo.
# Idempotent: does nothing when everything is present.
set -eu

PKGS="clang llvm make gcc g++ pkg-config libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libiberty-dev libcapstone-dev protobuf-c-compiler libprotobuf-c-dev libmicrohttpd-dev libxml2-utils curl iproute2"
# make lint (part of make test); clang's fuzzer runtime (make fuzz, make fuzz-regress)
PKGS="$PKGS cppcheck libclang-rt-14-dev"
# glibc's own debug info: the reports name frames inside libc (__libc_start_call_main)
PKGS="$PKGS libc6-dbg"
# the allocator families' tests: jemalloc, tcmalloc, mimalloc (musl-gcc for
# musl), and Debian's Redis (redis-tools holds the server binary; the
# redis-server package would also start a system service)
PKGS="$PKGS libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev musl-tools redis-tools"
# heaptrack: the oracle the perl unwinding test compares stacks with
PKGS="$PKGS heaptrack"
# the leak check's peer: valgrind's memcheck on the same target (tests/integration.sh)
PKGS="$PKGS valgrind"
# programs' own allocators nobody here wrote: APR's pools, talloc (--alloc-fn)
PKGS="$PKGS libapr1-dev libtalloc-dev"
# a stripped target's debug info served on loopback (tests/integration.sh's
# debuginfod test: Debian's package ships the server alone, no service)
PKGS="$PKGS debuginfod"
# the endpoint test's slow clients (tests/slow_clients.py)
PKGS="$PKGS python3"
# make install's test renders the man page
PKGS="$PKGS groff-base"
# --tui, and its test through tmux
PKGS="$PKGS libncurses-dev tmux"
# a forking server nobody here wrote, traced while clients come and go
# (tests/servers.sh, bench/soak.sh): Debian's PostgreSQL, its pgbench and
# psql; runuser starts it as its own user
PKGS="$PKGS postgresql-15 postgresql-client-15 util-linux"
# --follow-forks of a tracer nobody here wrote (strace -f seizes its child
# while tracelloc holds it)
PKGS="$PKGS strace"
# a cgo test target (Go's runtime switches stacks under C code), and the
# pprof test's `go tool pprof`
PKGS="$PKGS golang-go"
# node, whose JIT frames the runtimes tests name from its perf map: Debian's,
# unless one is already there
if ! command -v node >/dev/null 2>&1; then
	PKGS="$PKGS nodejs"
fi

# the Rust test targets need rustc: Debian's, unless one is already there (rustup)
if ! command -v rustc >/dev/null 2>&1 && [ ! -x "${HOME:-/root}/.cargo/bin/rustc" ]; then
	PKGS="$PKGS rustc"
fi

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# no service starts from an install (PostgreSQL's would take port 5432):
# the tests start their own servers; a policy of our own only while we install
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
