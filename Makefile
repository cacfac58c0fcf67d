# tracelloc: make builds ./tracelloc; make test / make demo also install what is missing.
CLANG ?= clang
CC ?= gcc
CXX ?= g++
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)

OUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE

# make SANITIZE=1 ...: the daemon and the unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, built apart in build/sanitize (the test targets
# never are: their allocations are what gets counted)
SANITIZE_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(SANITIZE),1)
OBJ := $(OUT)/sanitize
BIN := $(OBJ)/tracelloc
CFLAGS += $(SANITIZE_FLAGS)
LDFLAGS += $(SANITIZE_FLAGS)
else
OBJ := $(OUT)
BIN := tracelloc
endif
CPPFLAGS += -Iinclude -Isrc -I$(OUT)
LDLIBS := -lbpf -lelf -ldw -liberty -lcapstone -lz -lm

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Ivmlinux/$(ARCH) -Wall

SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,$(OBJ)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OBJ)/main.o,$(OBJS))

# test targets: tests/targets/NAME.c[pp] -> build/tests/NAME
TARGET_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread
TARGET_C := $(filter-out tests/targets/nolibc.c tests/targets/plugin.c,$(wildcard tests/targets/*.c))
TARGET_CXX := $(wildcard tests/targets/*.cpp)
TEST_TARGETS := $(patsubst tests/targets/%.c,$(OUT)/tests/%,$(TARGET_C)) \
		$(patsubst tests/targets/%.cpp,$(OUT)/tests/%,$(TARGET_CXX)) \
		$(if $(wildcard tests/targets/nolibc.c),$(OUT)/tests/nolibc) \
		$(if $(wildcard tests/targets/plugin.c),$(OUT)/tests/libplugin.so)
UNIT_SRCS := $(wildcard tests/unit/*.c)

.PHONY: all clean deps test unit-test demo targets bench browser-test lint fuzz fuzz-regress
.DELETE_ON_ERROR:

# with SANITIZE=1, the unit tests too
all: $(BIN) $(if $(filter 1,$(SANITIZE)),$(OBJ)/tests/unit)

$(sort $(OUT) $(OUT)/tests $(OBJ) $(OBJ)/tests):
	mkdir -p $@

$(OUT)/tracelloc.bpf.o: bpf/tracelloc.bpf.c include/tracelloc.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/tracelloc.skel.h: $(OUT)/tracelloc.bpf.o
	$(BPFTOOL) gen skeleton $< name tracelloc_bpf > $@

$(OBJ)/%.o: src/%.c $(OUT)/tracelloc.skel.h | $(OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BIN): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(OBJS:.o=.d)

$(OUT)/tests/%: tests/targets/%.c $(wildcard tests/targets/*.h) | $(OUT)/tests
	$(CC) $(TARGET_CFLAGS) -o $@ $<

$(OUT)/tests/%: tests/targets/%.cpp $(wildcard tests/targets/*.h) | $(OUT)/tests
	$(CXX) $(TARGET_CFLAGS) -o $@ $<

# Rust test targets (std only, no cargo): tests/targets/NAME.rs -> build/tests/NAME
# (legacy symbol mangling, rustc's default) and build/tests/NAME_v0 (v0 mangling)
RUSTC ?= $(or $(shell command -v rustc 2>/dev/null),$(wildcard $(HOME)/.cargo/bin/rustc),$(wildcard /root/.cargo/bin/rustc))
RUST_TARGET_FLAGS := -C force-frame-pointers=yes -C debuginfo=2 -C opt-level=1
TARGET_RS := $(wildcard tests/targets/*.rs)
RUST_TARGETS := $(patsubst tests/targets/%.rs,$(OUT)/tests/%,$(TARGET_RS)) \
		$(patsubst tests/targets/%.rs,$(OUT)/tests/%_v0,$(TARGET_RS))

$(OUT)/tests/%: tests/targets/%.rs | $(OUT)/tests
	$(if $(RUSTC),,$(error rustc not found (needed for $@): install Rust, or make RUSTC=/path/to/rustc))
	$(RUSTC) $(RUST_TARGET_FLAGS) -o $@ $<

$(OUT)/tests/%_v0: tests/targets/%.rs | $(OUT)/tests
	$(if $(RUSTC),,$(error rustc not found (needed for $@): install Rust, or make RUSTC=/path/to/rustc))
	$(RUSTC) $(RUST_TARGET_FLAGS) -C symbol-mangling-version=v0 -o $@ $<

# a library that a target loads with dlopen after tracing began
$(OUT)/tests/libplugin.so: tests/targets/plugin.c | $(OUT)/tests
	$(CC) $(TARGET_CFLAGS) -shared -fPIC -o $@ $<

# no libc at all: a process with no allocator we recognise
$(OUT)/tests/nolibc: tests/targets/nolibc.c | $(OUT)/tests
	$(CC) -O1 -static -nostdlib -o $@ $<

$(OBJ)/tests/unit: $(UNIT_SRCS) $(wildcard tests/unit/*.h) $(LIB_OBJS) | $(OBJ)/tests
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Itests/unit -o $@ $(UNIT_SRCS) $(LIB_OBJS) $(LDLIBS)

targets: $(TEST_TARGETS) $(RUST_TARGETS) $(OUT)/demo

$(OUT)/demo: scripts/demo.c | $(OUT)
	$(CC) $(TARGET_CFLAGS) -o $@ $<

# a libFuzzer harness over what tracelloc reads from a target's files
# (tests/fuzz/fuzz_elf.c), built with clang; make fuzz builds it and its seed
# corpus and fuzzes with FUZZ_ARGS (one job); what fails lands in build/fuzz/crashes
FUZZ_FLAGS := -g -O1 -Wall -Wextra -Wno-unused-parameter -fno-omit-frame-pointer \
	-fsanitize=address,undefined
FUZZ_OBJS := $(OUT)/fuzz/maps.o $(OUT)/fuzz/table.o $(OUT)/fuzz/probesite.o
FUZZ_ARGS ?= -max_total_time=60

$(OUT)/fuzz:
	mkdir -p $@

$(OUT)/fuzz/%.o: src/%.c | $(OUT)/fuzz
	$(CLANG) $(CPPFLAGS) -std=gnu11 -D_GNU_SOURCE $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(OUT)/fuzz/fuzz_elf: tests/fuzz/fuzz_elf.c src/symbolize.c src/attach.c $(wildcard src/*.h) \
		$(OUT)/tracelloc.skel.h $(FUZZ_OBJS)
	$(CLANG) $(CPPFLAGS) -std=gnu11 -D_GNU_SOURCE $(FUZZ_FLAGS) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_OBJS) $(LDLIBS)

$(OUT)/fuzz/seeds: tests/fuzz/seeds.sh tests/fuzz/fakelibc.c $(TEST_TARGETS)
	rm -rf $@ && tests/fuzz/seeds.sh $@

fuzz: deps
	$(MAKE) $(OUT)/fuzz/fuzz_elf $(OUT)/fuzz/seeds
	mkdir -p $(OUT)/fuzz/corpus $(OUT)/fuzz/crashes
	$(OUT)/fuzz/fuzz_elf -artifact_prefix=$(OUT)/fuzz/crashes/ $(FUZZ_ARGS) \
		$(OUT)/fuzz/corpus $(OUT)/fuzz/seeds

# each seed, and each input that once failed (tests/fuzz/regress), run once
fuzz-regress: $(OUT)/fuzz/fuzz_elf $(OUT)/fuzz/seeds
	$(OUT)/fuzz/fuzz_elf -runs=0 $(OUT)/fuzz/seeds $(wildcard tests/fuzz/regress)

deps:
	@scripts/install-deps.sh

unit-test: $(OBJ)/tests/unit
	$(OBJ)/tests/unit

# make test: lint, then the whole suite twice, as built normally and under the
# sanitizers (tests/run.sh plain sanitize); make test SANITIZE=1: only the latter
TEST_PASSES := $(if $(filter 1,$(SANITIZE)),sanitize,plain sanitize)

test: deps
	$(MAKE) lint
	$(MAKE) SANITIZE= targets $(if $(filter plain,$(TEST_PASSES)),all $(OUT)/tests/unit)
	$(MAKE) SANITIZE=1 all
	$(MAKE) SANITIZE= fuzz-regress
	tests/run.sh $(TEST_PASSES)

# cppcheck over the daemon and the fuzz harness, failing on any finding.
# variableScope is off: declarations go at the top of a block, as in the
# kernel and libbpf. Other exceptions are inline (cppcheck-suppress), each
# with its reason.
CPPCHECK_FLAGS := --enable=warning,style,performance,portability --std=c11 --quiet \
	--error-exitcode=1 --inline-suppr --suppress=variableScope \
	-Iinclude -Isrc --library=tests/lint/libbpf.cfg

lint:
	cppcheck $(CPPCHECK_FLAGS) src/ tests/fuzz/

demo: deps
	$(MAKE) all $(OUT)/demo
	scripts/demo.sh

browser-test: all $(OUT)/demo
	tests/svg_browser.sh

bench: deps
	$(MAKE) all
	bench/run.sh

clean:
	rm -rf $(OUT) tracelloc
