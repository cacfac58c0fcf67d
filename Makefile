# tracelloc: make builds ./tracelloc; make test / make demo also install what is missing.
CLANG ?= clang
CC ?= gcc
CXX ?= g++
BPFTOOL ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)

OUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
CPPFLAGS += -Iinclude -Isrc -I$(OUT)
LDLIBS := -lbpf -lelf -ldw -liberty -lcapstone -lz -lm

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Ivmlinux/$(ARCH) -Wall

SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,$(OUT)/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUT)/main.o,$(OBJS))

# test targets: tests/targets/NAME.c[pp] -> build/tests/NAME
TARGET_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread
TARGET_C := $(filter-out tests/targets/nolibc.c tests/targets/plugin.c,$(wildcard tests/targets/*.c))
TARGET_CXX := $(wildcard tests/targets/*.cpp)
TEST_TARGETS := $(patsubst tests/targets/%.c,$(OUT)/tests/%,$(TARGET_C)) \
		$(patsubst tests/targets/%.cpp,$(OUT)/tests/%,$(TARGET_CXX)) \
		$(if $(wildcard tests/targets/nolibc.c),$(OUT)/tests/nolibc) \
		$(if $(wildcard tests/targets/plugin.c),$(OUT)/tests/libplugin.so)
UNIT_SRCS := $(wildcard tests/unit/*.c)

.PHONY: all clean deps test unit-test demo targets bench longrun browser-test
.DELETE_ON_ERROR:

all: tracelloc

$(OUT) $(OUT)/tests:
	mkdir -p $@

$(OUT)/tracelloc.bpf.o: bpf/tracelloc.bpf.c include/tracelloc.h | $(OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/tracelloc.skel.h: $(OUT)/tracelloc.bpf.o
	$(BPFTOOL) gen skeleton $< name tracelloc_bpf > $@

$(OUT)/%.o: src/%.c $(OUT)/tracelloc.skel.h | $(OUT)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

tracelloc: $(OBJS)
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

$(OUT)/tests/unit: $(UNIT_SRCS) $(wildcard tests/unit/*.h) $(LIB_OBJS) | $(OUT)/tests
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -o $@ $(UNIT_SRCS) $(LIB_OBJS) $(LDLIBS)

targets: $(TEST_TARGETS) $(RUST_TARGETS) $(OUT)/demo

$(OUT)/demo: scripts/demo.c | $(OUT)
	$(CC) $(TARGET_CFLAGS) -o $@ $<

deps:
	@scripts/install-deps.sh

unit-test: $(OUT)/tests/unit
	$(OUT)/tests/unit

test: deps
	$(MAKE) all targets $(OUT)/tests/unit
	tests/run.sh

demo: deps
	$(MAKE) all $(OUT)/demo
	scripts/demo.sh

browser-test: all $(OUT)/demo
	tests/svg_browser.sh

bench: deps
	$(MAKE) all
	bench/run.sh

# ten minutes of a 2-thread target at full speed: daemon memory and losses
longrun: deps
	$(MAKE) all
	bench/longrun.sh

clean:
	rm -rf $(OUT) tracelloc
