# SPDX-License-Identifier: GPL-2.0-only
# netstacklat build. Intermediates go to .output/, the tool to ./netstacklat.
# `make V=1` shows full commands.

OUTPUT   := .output
ARCH     ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CLANG    ?= clang
BPFTOOL  ?= bpftool
CC       ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX   ?= /usr/local

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

INCLUDES := -Iinclude -Isrc -I$(OUTPUT)
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -MMD -MP $(INCLUDES)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -Ivmlinux/$(ARCH) -Iinclude -Ibpf -MMD -MP
LIBBPF_LIBS = $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz
# the /metrics server (src/http.c): a thread of ours, driving libmicrohttpd,
# which it loads with dlopen() when --listen asks for it (built against its
# header, from libmicrohttpd-dev)
HTTP_LIBS := -ldl -lpthread

# Pure userspace code: no libbpf, unit-tested on the host.
CORE_SRCS := src/hooks.c src/options.c src/stats.c src/format.c src/prom.c src/httproute.c
# Code that talks to the kernel.
APP_SRCS  := src/main.c src/loader.c src/reader.c src/sysinfo.c src/nflink.c src/bpfstats.c src/privs.c src/http.c
CORE_OBJS := $(CORE_SRCS:src/%.c=$(OUTPUT)/%.o)
APP_OBJS  := $(APP_SRCS:src/%.c=$(OUTPUT)/%.o)

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
TEST_TOOLS := $(OUTPUT)/tests/trafficgen $(OUTPUT)/tests/tunwire $(OUTPUT)/tests/settai
TEST_TOOLS += $(OUTPUT)/testbed/dropper.bpf.o
# the userspace under ASan+UBSan and the option fuzzer (see the end)
TEST_TOOLS += $(OUTPUT)/asan/netstacklat $(OUTPUT)/fuzz/fuzz_options

.PHONY: all clean run test test-unit test-integration test-vm deps deps-test install

all: netstacklat

$(OUTPUT) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

# A fresh machine: `make` installs what building needs first (once per
# change of the list; scripts/install-deps says what is missing otherwise).
DEPS_STAMP := $(OUTPUT)/deps-build.stamp
$(DEPS_STAMP): scripts/install-deps | $(OUTPUT)
	$(Q)scripts/install-deps build && touch $@

# bpftool gen object links the object and drops its DWARF (BTF stays):
# 870 KB -> 160 KB embedded in the skeleton and the binary.
$(OUTPUT)/netstacklat.bpf.o: bpf/netstacklat.bpf.c | $(OUTPUT) $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)

$(OUTPUT)/netstacklat.skel.h: $(OUTPUT)/netstacklat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# Objects that include the skeleton must wait for it.
$(OUTPUT)/loader.o $(OUTPUT)/reader.o $(OUTPUT)/main.o $(OUTPUT)/bpfstats.o: $(OUTPUT)/netstacklat.skel.h

$(OUTPUT)/%.o: src/%.c | $(OUTPUT) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

netstacklat: $(CORE_OBJS) $(APP_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBBPF_LIBS) $(HTTP_LIBS) -o $@

$(OUTPUT)/tests/test_%: tests/unit/test_%.c $(CORE_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(CORE_OBJS) -lcmocka -o $@

$(OUTPUT)/tests/%: tests/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

deps:
	$(Q)scripts/install-deps build

deps-test:
	$(Q)scripts/install-deps test

# The two commands of the README: install what is missing, build, go.
run: deps
	$(Q)$(MAKE) --no-print-directory all
	./netstacklat $(ARGS)

test: deps-test
	$(Q)$(MAKE) --no-print-directory all $(UNIT_TESTS) $(TEST_TOOLS)
	$(Q)tests/run $(TESTS)

test-unit: $(UNIT_TESTS)
	$(Q)tests/run unit

test-integration: all $(TEST_TOOLS)
	$(Q)tests/run integration

# The fentry path (and, on 6.12, the fallbacks) in Debian's 6.1 and 6.12
# cloud kernels under qemu, one after the other (also in `make test`).
test-vm: deps-test
	$(Q)$(MAKE) --no-print-directory all $(TEST_TOOLS)
	$(Q)bash tests/integration/test_vm.sh

install: netstacklat
	install -D -m 0755 netstacklat $(DESTDIR)$(PREFIX)/sbin/netstacklat
	install -D -m 0644 docs/netstacklat.8 $(DESTDIR)$(PREFIX)/share/man/man8/netstacklat.8

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) netstacklat

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/tests/*.d)

# Testbed of the HOL tests (scripts/testbed): a tc program of our own that
# drops chosen TCP segments, as these kernels have no netem.
.PHONY: testbed loss-sweep
testbed: $(OUTPUT)/testbed/dropper.bpf.o

$(OUTPUT)/testbed:
	$(Q)mkdir -p $@

$(OUTPUT)/testbed/%.bpf.o: bpf/testbed/%.bpf.c | $(OUTPUT)/testbed
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The HOL filter under 0-10 % loss, with plots for docs/hol-filter.md (slow).
loss-sweep: all testbed $(OUTPUT)/tests/trafficgen
	$(Q)scripts/loss-sweep $(ARGS)

-include $(wildcard $(OUTPUT)/testbed/*.d)

# What the tool costs here, for docs/performance.md (slow, needs root, not
# part of `make test`): make bench ARGS="--runs 7".
.PHONY: bench
bench: deps-test
	$(Q)$(MAKE) --no-print-directory all $(OUTPUT)/tests/trafficgen
	$(Q)scripts/bench $(ARGS)

# Issue #8: the userspace under ASan+UBSan (make asan: .output/asan/netstacklat,
# which tests/integration/test_sanitizers.sh runs), the option parser under
# libFuzzer (make fuzz: FUZZ_TIME seconds, new inputs in .output/fuzz/new;
# make fuzz-merge: minimize them into the committed corpus), and the static
# checkers (make check).
SAN_OUT   := $(OUTPUT)/asan
# clang: its UBSan writes to log_path like ASan (gcc 12's prints to stderr)
SAN_CC    := $(CLANG)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	     -Wno-missing-field-initializers
SAN_OBJS  := $(CORE_SRCS:src/%.c=$(SAN_OUT)/%.o) $(APP_SRCS:src/%.c=$(SAN_OUT)/%.o)
FUZZ_BIN  := $(OUTPUT)/fuzz/fuzz_options
FUZZ_CORPUS := tests/fuzz/corpus/options
FUZZ_TIME ?= 60
FUZZ_ARGS := -dict=tests/fuzz/options.dict -max_len=8192 -timeout=10 \
	     -artifact_prefix=$(OUTPUT)/fuzz/

.PHONY: asan fuzz fuzz-merge check
asan: $(SAN_OUT)/netstacklat

$(SAN_OUT) $(OUTPUT)/fuzz:
	$(Q)mkdir -p $@

$(SAN_OUT)/loader.o $(SAN_OUT)/reader.o $(SAN_OUT)/main.o $(SAN_OUT)/bpfstats.o: $(OUTPUT)/netstacklat.skel.h

$(SAN_OUT)/%.o: src/%.c | $(SAN_OUT) $(DEPS_STAMP)
	$(call msg,CC-SAN,$@)
	$(Q)$(SAN_CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(SAN_OUT)/netstacklat: $(SAN_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(SAN_CC) $(CFLAGS) $(SAN_FLAGS) $^ $(LIBBPF_LIBS) $(HTTP_LIBS) -o $@

$(FUZZ_BIN): tests/fuzz/fuzz_options.c src/options.c src/hooks.c $(wildcard src/*.h include/*.h) | $(OUTPUT)/fuzz
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CLANG) -std=gnu11 -g -O1 -Wall -Wextra -Werror $(INCLUDES) \
		-Wno-missing-field-initializers \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		$(filter %.c,$^) -o $@

fuzz: $(FUZZ_BIN)
	$(Q)mkdir -p $(OUTPUT)/fuzz/new
	$(Q)$(FUZZ_BIN) $(FUZZ_ARGS) -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
		$(OUTPUT)/fuzz/new $(FUZZ_CORPUS)

# Adds to the committed corpus (whose inputs all stay: the hand-written good
# and bad invocations first) the new inputs that reach a new edge; hit counts
# are left out, which would add ~200 files of longer lists.
fuzz-merge: $(FUZZ_BIN)
	$(Q)mkdir -p $(OUTPUT)/fuzz/new
	$(Q)$(FUZZ_BIN) $(FUZZ_ARGS) -merge=1 -use_counters=0 $(FUZZ_CORPUS) $(OUTPUT)/fuzz/new
	$(Q)echo "fuzz-merge: $$(ls $(FUZZ_CORPUS) | wc -l) inputs in $(FUZZ_CORPUS)"

check: all
	$(Q)scripts/check

-include $(wildcard $(SAN_OUT)/*.d)
