# SPDX-License-Identifier: GPL-2.0-or-later
# splitlock-bench: build the PREEMPT_RT guest and patched QEMU (cached
# outside the repo), run the split-lock latency study, test everything.
# `make help` lists the targets. V=1 shows full build commands.

SHELL := /bin/bash
.DEFAULT_GOAL := all

CC      ?= gcc
CFLAGS  ?= -O2
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
LDLIBS  += -lm

VCPUS   ?= 2
BUILD   := build
HOSTBIN := $(BUILD)/host
GUESTBIN:= $(BUILD)/guest

ifeq ($(V),1)
Q :=
else
Q := @
endif
export V

# Paths of cached artefacts; computed by the build scripts from input hashes.
KERNEL_DIR = $(shell scripts/build-kernel.sh --path)
QEMU_BIN   = $(shell scripts/build-qemu.sh --path)
INITRD     = $(shell cat $(BUILD)/initramfs.path 2>/dev/null)

HOST_TOOLS  := $(HOSTBIN)/slb-unframe $(HOSTBIN)/slb-hist
GUEST_PROGS := $(GUESTBIN)/slb-frame
UNIT_TESTS  := $(HOSTBIN)/test-frame $(HOSTBIN)/test-hist

LIB_SRCS := bench/lib/frame.c bench/lib/hist.c

.PHONY: all help deps kernel qemu initramfs shell smoke test unit-test guest-test bench clean

all: $(HOST_TOOLS) $(GUEST_PROGS)

help:
	@echo "make deps       install the Debian packages (root)"
	@echo "make kernel     build the PREEMPT_RT guest kernel (cached)"
	@echo "make qemu       build the patched QEMU (cached)"
	@echo "make initramfs  build the guest initramfs (cached)"
	@echo "make smoke      boot, print guest facts, cyclictest 2 s"
	@echo "make shell      boot into an interactive guest shell"
	@echo "make test       host unit tests and guest tests (TAP)"
	@echo "make bench      the study (see README.md)"
	@echo "variables: VCPUS=$(VCPUS) SLB_CPU=... V=1"

deps:
	$(Q)scripts/deps.sh

$(HOSTBIN)/%: bench/%.c $(LIB_SRCS) bench/lib/*.h | $(HOSTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(HOSTBIN)/test-%: tests/unit/test-%.c $(LIB_SRCS) bench/lib/*.h | $(HOSTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Ibench -Itests/unit -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(GUESTBIN)/%: bench/%.c $(LIB_SRCS) bench/lib/*.h | $(GUESTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@ (static, guest)"
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(HOSTBIN) $(GUESTBIN):
	$(Q)mkdir -p $@

kernel:
	$(Q)scripts/build-kernel.sh >/dev/null

qemu:
	$(Q)scripts/build-qemu.sh >/dev/null

# The initramfs path goes into build/initramfs.path for the run targets.
initramfs: $(GUEST_PROGS) | $(GUESTBIN)
	$(Q)scripts/build-initramfs.sh $(GUESTBIN) >$(BUILD)/initramfs.path

RUN_GUEST = SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$(INITRD) bench/run-guest.sh --smp $(VCPUS)

smoke: all kernel qemu initramfs
	$(Q)d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	$(RUN_GUEST) -n smoke -t 300 -o "$$d/run" >/dev/null; rc=$$?; \
	scripts/smoke-report.sh "$$d/run"; exit $$rc

shell: all kernel qemu initramfs
	$(Q)d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	$(RUN_GUEST) -n shell -i -o "$$d/run"

unit-test: $(HOST_TOOLS) $(UNIT_TESTS)

test: all kernel qemu initramfs $(UNIT_TESTS)
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$(INITRD) tests/run-tests.sh

clean:
	rm -rf $(BUILD)
