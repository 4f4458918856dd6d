# SPDX-License-Identifier: GPL-2.0-or-later
# splitlock-bench: build the PREEMPT_RT guest and patched QEMU (cached
# outside the repo), run the split-lock latency study, test everything.
# `make help` lists the targets. V=1 shows full build commands.

SHELL := /bin/bash
.DEFAULT_GOAL := all

CC      ?= gcc
CFLAGS  ?= -O2
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
LDLIBS  += -lm -lpthread

# One place for the defaults (shell and make read the same file).
include rt-config/defaults.conf
VCPUS       ?= $(VCPUS_DEFAULT)
CLOCK       ?= $(CLOCK_DEFAULT)
# BUS_LOCK_NS: the all-stall model's cost (BUS_LOCK_MODEL=all), or for a
# study under the calibrated model the cost its calibration is scaled to
# (the hold in proportion); unset, the default for a guest run and, for a
# study, the calibrated model's own.
BUS_LOCK_NS ?=
BUS_LOCK_MODEL ?= $(BUS_LOCK_MODEL_DEFAULT)
CALIBRATION ?=
QUANTUM_NS  ?= $(QUANTUM_NS_DEFAULT)
JOBS        ?= $(JOBS_DEFAULT)
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

# One program per .c file: bench/host/ runs on the host, bench/guest/ in
# the guest (static), both link the shared bench/lib/.
HOST_TOOLS  := $(patsubst bench/host/%.c,$(HOSTBIN)/%,$(wildcard bench/host/*.c))
GUEST_PROGS := $(patsubst bench/guest/%.c,$(GUESTBIN)/%,$(wildcard bench/guest/*.c))
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(HOSTBIN)/%,$(wildcard tests/unit/test-*.c))

LIB_SRCS := $(wildcard bench/lib/*.c)

.PHONY: all help deps bench bench-sweep bench-qemu bench-model bench-boot bench-image calibrate wakeup-native validate-model checkpatch plots report compare kernel kernel-nofix kernel-defwarn kernel-hz250 kmod qemu initramfs \
	shell smoke test unit-test clean

all: $(HOST_TOOLS) $(GUEST_PROGS)

help:
	@echo "make deps       install the Debian packages (root)"
	@echo "make kernel     build the PREEMPT_RT guest kernel (cached)"
	@echo "make kernel-nofix  the same without patch 0007 (the upstream warn-mode bug)"
	@echo "make kernel-defwarn  the same with the build-time default mode warn"
	@echo "make kernel-hz250  the same with CONFIG_HZ=250 (the main kernel has 1000)"
	@echo "make qemu       build the patched QEMU (cached)"
	@echo "make initramfs  build the guest initramfs (cached)"
	@echo "make smoke      boot, print guest facts, cyclictest 2 s"
	@echo "make shell      boot into an interactive guest shell"
	@echo "make test       host unit tests and guest tests (TAP): TESTS= (default all) JOBS=$(JOBS) scripts at once"
	@echo "make report RUN=<id>, make plots RUN=<id>   redo a stored run's report and plots"
	@echo "make compare A=<id> B=<id>   per-scenario ratios B/A, significance, overlays"
	@echo "make checkpatch style-check the kernel and QEMU series"
	@echo "make bench-qemu benchmark: patched vs stock QEMU, emulated split-lock cost"
	@echo "make bench-model benchmark: host time of the bus-lock model (REPS_MODEL=6; SLB_QEMU_BASE= an earlier build)"
	@echo "make bench-boot  benchmark: host time of a guest boot, RAM in a memfd vs huge pages (REPS_BOOT=6; SLB_QEMU_BASE=)"
	@echo "make bench-image does an unused file in the guest image move the results? IMAGE_SCENARIOS= IMAGE_PAD= REPS="
	@echo "make bench      the study: SCENARIOS= DURATION=$(DURATION) REPS=$(REPS) INTERVAL=$(INTERVAL) JOBS=$(JOBS) SCENARIO_FILE="
	@echo "                RESUME=<id>: finish an interrupted study (results/.incomplete-<id>) with its own parameters"
	@echo "                TARGET=$(TARGET) (guest|native|ssh:[user@]host[:port]) MEASURE_CPU= LOAD_CPUS= LOAD_RATE=$(LOAD_RATE)"
	@echo "                MEASURE=$(MEASURE) (cyclictest|timerlat|both: rtla timerlat hist, IRQ and thread latency)"
	@echo "                RUNNER=$(RUNNER) (local|slurm: a Slurm job array, JOBS tasks at once; NO_WAIT=1 submits and returns)"
	@echo "make bench-sweep  split-off against the split-lock cost under BUS_LOCK_MODEL=$(BUS_LOCK_MODEL): $(if $(filter all,$(BUS_LOCK_MODEL)),SWEEP_NS=\"$(or $(SWEEP_NS),$(SWEEP_NS_ALL_DEFAULT))\",SWEEP_CALIBRATIONS=\"$(or $(SWEEP_CALIBRATIONS),$(SWEEP_CALIBRATIONS_DEFAULT))\" (or SWEEP_NS=: CALIBRATION scaled)) LOAD_RATE=$(LOAD_RATE)"
	@echo "make calibrate  this machine's split-lock costs, no emulator: CAL_DURATION=$(CAL_DURATION) CAL_REPS=$(CAL_REPS)"
	@echo "                CAL_SIZES=$(CAL_SIZES) CAL_CPUS=VICTIM,LOAD CAL_LOAD_RATE=$(CAL_LOAD_RATE) CAL_MAX_SPLIT_S=$(CAL_MAX_SPLIT_S)"
	@echo "make wakeup-native  cyclictest natively (root) under an aligned and a split load, the victim CPU idle or kept busy:"
	@echo "                WN_REPS= WN_DURATION= WN_VICTIM=idle,busy WN_CPUS=VICTIM,LOAD WN_LOAD_RATE= WN_MAX_SPLIT_S="
	@echo "make validate-model  the bus-lock model (slb-calibrate in the guest) beside a native calibration, per level:"
	@echo "                VAL_NATIVE=<calibration.json> BUS_LOCK_NS=$(BUS_LOCK_NS) QUANTUM_NS=$(QUANTUM_NS) VAL_DURATION= VAL_REPS= VAL_SIZES="
	@echo "make validate-study  the same scenarios natively (root) and in the model, model/native at p50/p99/p99.9:"
	@echo "                VS_SCENARIOS= VS_DURATION= VS_REPS= VS_LOAD_RATE= VS_MAX_SPLIT_S= VS_CALIBRATION= VS_ISOLATION= VS_NATIVE_RUN="
	@echo "variables: CLOCK=$(CLOCK) (virtual|wall) BUS_LOCK_MODEL=$(BUS_LOCK_MODEL) (calibrated|all) CALIBRATION=<calibration.json>"
	@echo "           BUS_LOCK_NS=<ns: model all, or calibrated scaled to it> QUANTUM_NS=$(QUANTUM_NS)"
	@echo "           VCPUS=$(VCPUS) SLB_CPU=... V=1"

deps:
	$(Q)scripts/deps.sh

$(HOSTBIN)/%: bench/host/%.c $(LIB_SRCS) bench/lib/*.h | $(HOSTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(HOSTBIN)/test-%: tests/unit/test-%.c $(LIB_SRCS) bench/lib/*.h | $(HOSTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@"
	$(Q)$(CC) $(CFLAGS) -Ibench -Itests/unit -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(GUESTBIN)/%: bench/guest/%.c $(LIB_SRCS) bench/lib/*.h | $(GUESTBIN)
	@[ "$(V)" = 1 ] || echo "  CC      $@ (static, guest)"
	$(Q)$(CC) $(CFLAGS) -static -o $@ $< $(LIB_SRCS) $(LDLIBS)

$(HOSTBIN) $(GUESTBIN):
	$(Q)mkdir -p $@

kernel:
	$(Q)scripts/build-kernel.sh >/dev/null

# Kernel variants (scripts/build-kernel.sh --variant) for the tests and
# scenarios that show what a patch or a build choice does: nofix is the
# series without 0007, defwarn has the build-time default mode warn.
# They build after the main kernel, from a copy of its object tree
# (scripts/build-kernel.sh): only what they change is compiled.
kernel-nofix: kernel
	$(Q)scripts/build-kernel.sh --variant nofix >/dev/null

kernel-defwarn: kernel
	$(Q)scripts/build-kernel.sh --variant defwarn >/dev/null

kernel-hz250: kernel
	$(Q)scripts/build-kernel.sh --variant hz250 >/dev/null

qemu:
	$(Q)scripts/build-qemu.sh >/dev/null

# The kernel-mode split-lock test module, built against the cached kernel.
KMOD := $(BUILD)/modules/slb_ksplit.ko
kmod: kernel
	$(Q)$(MAKE) --no-print-directory $(KMOD) KERNEL_STAMP=$(KERNEL_DIR)/.done

$(KMOD): tests/kmod/slb_ksplit.c tests/kmod/Kbuild $(KERNEL_STAMP)
	@[ "$(V)" = 1 ] || echo "  KMOD    $@"
	$(Q)rm -rf $(BUILD)/kmod && mkdir -p $(BUILD)/kmod $(BUILD)/modules && cp tests/kmod/* $(BUILD)/kmod/
	$(Q)$(MAKE) -s -C $(KERNEL_DIR)/build M=$(abspath $(BUILD)/kmod) modules $(if $(filter 1,$(V)),,>$(BUILD)/kmod/build.log 2>&1) || { cat $(BUILD)/kmod/build.log; exit 1; }
	$(Q)cp $(BUILD)/kmod/slb_ksplit.ko $@

# The initramfs path goes into build/initramfs.path for the run targets.
initramfs: $(GUEST_PROGS) kmod | $(GUESTBIN)
	$(Q)scripts/build-initramfs.sh $(GUESTBIN) $(BUILD)/modules >$(BUILD)/initramfs.path

# What the guest runs need, built with what does not depend on each other
# overlapping (make -j): the host and guest tools and QEMU beside the
# kernel, the variants and the initramfs (its module) once the kernel is
# there. The kernel's and QEMU's own builds are parallel (-j$(nproc) each),
# so two of them at once run twice as many compilers as CPUs for a while;
# that costs little next to the steps of each that use one CPU (extracting
# the source, configuring, linking).
BUILD_PAR = $(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) -j$$(nproc)

CLOCK_ARGS = --clock "$(CLOCK)" --bus-lock-ns "$(or $(BUS_LOCK_NS),$(BUS_LOCK_NS_DEFAULT))" --quantum-ns "$(QUANTUM_NS)"
RUN_GUEST = SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$(INITRD) bench/target/run-guest.sh --smp $(VCPUS) $(CLOCK_ARGS)
# A study's: the bus-lock model (calibrated from CALIBRATION, or all).
MODEL_ARGS = --clock "$(CLOCK)" --quantum-ns "$(QUANTUM_NS)" --bus-lock-model "$(BUS_LOCK_MODEL)" \
	$(if $(BUS_LOCK_NS),--bus-lock-ns "$(BUS_LOCK_NS)") $(if $(CALIBRATION),--calibration "$(CALIBRATION)")

smoke: all kernel qemu initramfs
	$(Q)d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	$(RUN_GUEST) -n smoke -t 300 -o "$$d/run" >/dev/null; rc=$$?; \
	bench/report/smoke-report.sh "$$d/run"; exit $$rc

shell: all kernel qemu initramfs
	$(Q)d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; \
	$(RUN_GUEST) -n shell -i -o "$$d/run"

# The study (defaults in rt-config/defaults.conf; docs/development.md says
# how long it takes).
SCENARIOS ?=
DURATION  ?= $(DURATION_DEFAULT)
REPS      ?= $(REPS_DEFAULT)
REPS_MODEL ?= 6
REPS_BOOT  ?= 6
INTERVAL  ?= $(INTERVAL_DEFAULT)
# TARGET: guest (the emulator), native (this machine's running kernel, as
# root) or ssh:[user@]host[:port]; MEASURE_CPU, LOAD_CPUS for the last two.
TARGET    ?= guest
# MEASURE: cyclictest, timerlat (rtla timerlat hist) or both (one after
# the other in each rep).
MEASURE   ?= $(MEASURE_DEFAULT)
LOAD_RATE ?= 0
# TRACE=1: trace cyclictest's wake-up path in every rep (bench/study.sh --trace 1)
TRACE     ?=
# RUNNER: local (this machine) or slurm (a Slurm job array; docs/targets.md:
# SLB_CACHE and the checkout on shared storage, SLB_SBATCH_OPTS).
RUNNER    ?= local
# SCENARIO_FILE: the study's scenarios (default rt-config/scenarios.conf;
# e.g. rt-config/scenarios-deploy.conf); the kernel variants its
# scenarios name (kernel=VARIANT) are built before it runs.
SCENARIO_FILE ?= rt-config/scenarios.conf
BENCH_VARIANTS = $(filter-out kernel-nofix,$(sort $(patsubst kernel=%,kernel-%,$(shell sed '/^\#/d' $(SCENARIO_FILE) 2>/dev/null | grep -o 'kernel=[a-z0-9][a-z0-9]*'))))
STUDY_ARGS = --runner "$(RUNNER)" $(if $(NO_WAIT),--no-wait) --target "$(TARGET)" --scenarios "$(SCENARIOS)" --duration "$(DURATION)" --reps "$(REPS)" \
	--vcpus "$(VCPUS)" --interval "$(INTERVAL)" --jobs "$(JOBS)" $(MODEL_ARGS) --load-rate "$(LOAD_RATE)" \
	--measure "$(MEASURE)" $(if $(MEASURE_CPU),--measure-cpu "$(MEASURE_CPU)") $(if $(LOAD_CPUS),--load-cpus "$(LOAD_CPUS)") \
	$(if $(TRACE),--trace "$(TRACE)")
# make bench RESUME=<id>: finish the interrupted run results/.incomplete-<id>
# with its own parameters; a variable also given on this command line
# must equal the run's (bench/study.sh --resume refuses otherwise).
RESUME ?=
given = $(if $(filter command line,$(origin $(1))),$(2) "$($(1))")
RESUME_ARGS = --resume "$(RESUME)" $(call given,RUNNER,--runner) $(if $(NO_WAIT),--no-wait) $(call given,TARGET,--target) \
	$(call given,SCENARIOS,--scenarios) $(call given,DURATION,--duration) $(call given,REPS,--reps) \
	$(call given,VCPUS,--vcpus) $(call given,INTERVAL,--interval) $(call given,JOBS,--jobs) $(call given,CLOCK,--clock) \
	$(call given,BUS_LOCK_MODEL,--bus-lock-model) $(call given,BUS_LOCK_NS,--bus-lock-ns) $(call given,CALIBRATION,--calibration) \
	$(call given,QUANTUM_NS,--quantum-ns) $(call given,LOAD_RATE,--load-rate) $(call given,MEASURE_CPU,--measure-cpu) \
	$(call given,LOAD_CPUS,--load-cpus) $(call given,MEASURE,--measure) $(call given,TRACE,--trace)
# the target a resumed run ran on (its study.args)
BENCH_TARGET = $(if $(RESUME),$$(sed -n '/^--target$$/{n;p;q}' $(RESULTS)/.incomplete-$(RESUME)/study.args 2>/dev/null),$(TARGET))
bench: export SLB_SCENARIO_FILE = $(abspath $(SCENARIO_FILE))
bench:
	$(Q)bench/study.sh --validate $(if $(RESUME),$(RESUME_ARGS),$(STUDY_ARGS))
	$(Q)if [ "$(BENCH_TARGET)" = guest ]; then $(BUILD_PAR) all kernel kernel-nofix $(BENCH_VARIANTS) qemu initramfs; \
	else $(MAKE) --no-print-directory all; fi
	$(Q)if [ "$(BENCH_TARGET)" = guest ]; then export SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path); fi; \
	bench/study.sh $(if $(RESUME),$(RESUME_ARGS),$(STUDY_ARGS))

# The bus-lock cost sweep: split-off (and its aligned control) for each
# point, virtual clock, under BUS_LOCK_MODEL (calibrated: each calibration
# in SWEEP_CALIBRATIONS at its own cost, or with SWEEP_NS CALIBRATION
# scaled to each cost; all: the all-stall model's costs, SWEEP_NS); plots
# p99 / p99.9 / max against the cost. Unset: the model's default.
SWEEP_NS       ?=
SWEEP_CALIBRATIONS ?=
SWEEP_DURATION ?= $(SWEEP_DURATION_DEFAULT)
SWEEP_REPS     ?= $(SWEEP_REPS_DEFAULT)
SWEEP_ARGS = --runner "$(RUNNER)" $(if $(SWEEP_NS),--costs "$(SWEEP_NS)") $(if $(SWEEP_CALIBRATIONS),--calibrations "$(SWEEP_CALIBRATIONS)") --duration "$(SWEEP_DURATION)" --reps "$(SWEEP_REPS)" \
	--vcpus "$(VCPUS)" --jobs "$(JOBS)" --quantum-ns "$(QUANTUM_NS)" --bus-lock-model "$(BUS_LOCK_MODEL)" --load-rate "$(LOAD_RATE)" \
	$(if $(CALIBRATION),--calibration "$(CALIBRATION)")
# make bench-sweep RESUME=<id>: finish an interrupted sweep with its own
# options (JOBS and RUNNER may differ).
SWEEP_RUN_ARGS = $(if $(RESUME),--resume "$(RESUME)" --jobs "$(JOBS)" --runner "$(RUNNER)",$(SWEEP_ARGS))
bench-sweep:
	$(Q)bench/experiment/sweep.sh --validate $(SWEEP_RUN_ARGS)
	$(Q)$(BUILD_PAR) all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/experiment/sweep.sh $(SWEEP_RUN_ARGS)

# This machine's own split-lock costs, no emulator (bench/experiment/calibrate.sh):
# the issuer's cost per LOCKed form, a victim on another CPU under no,
# aligned and split load. Split locks slow the whole machine: the tool
# refuses a plan past CAL_MAX_SPLIT_S seconds of them.
CAL_DURATION    ?= $(CAL_DURATION_DEFAULT)
CAL_REPS        ?= $(CAL_REPS_DEFAULT)
CAL_SIZES       ?= $(CAL_SIZES_DEFAULT)
CAL_ISSUER_MS   ?= $(CAL_ISSUER_MS_DEFAULT)
CAL_LOAD_RATE   ?= $(CAL_LOAD_RATE_DEFAULT)
CAL_MAX_SPLIT_S ?= $(CAL_MAX_SPLIT_S_DEFAULT)
CAL_CPUS        ?=
CAL_ARGS = --duration "$(CAL_DURATION)" --reps "$(CAL_REPS)" --sizes "$(CAL_SIZES)" \
	--issuer-ms "$(CAL_ISSUER_MS)" --load-rate "$(CAL_LOAD_RATE)" --max-split-s "$(CAL_MAX_SPLIT_S)" \
	$(if $(CAL_CPUS),--cpus "$(CAL_CPUS)")
calibrate: $(GUESTBIN)/slb-calibrate
	$(Q)bench/experiment/calibrate.sh $(CAL_ARGS)

# Where a native wake-up loses its time to split locks (bench/experiment/wakeup-native.sh):
# cyclictest on the victim CPU under an aligned and a split load, the
# victim CPU idle between wake-ups or kept busy (no idle exit). Split locks
# slow the whole machine: the tool refuses a plan past WN_MAX_SPLIT_S.
WN_ARGS = $(if $(WN_REPS),--reps "$(WN_REPS)") $(if $(WN_DURATION),--duration "$(WN_DURATION)") \
	$(if $(WN_VICTIM),--victim "$(WN_VICTIM)") $(if $(WN_CPUS),--cpus "$(WN_CPUS)") \
	$(if $(WN_LOAD_RATE),--load-rate "$(WN_LOAD_RATE)") $(if $(WN_MAX_SPLIT_S),--max-split-s "$(WN_MAX_SPLIT_S)")
wakeup-native: $(GUESTBIN)/slb-load $(HOSTBIN)/slb-hist $(HOSTBIN)/slb-ratio
	$(Q)bench/experiment/wakeup-native.sh $(WN_ARGS)

# The bus-lock model against the machine (bench/experiment/validate-model.sh): the
# calibration's victim and issuer in the guest (virtual clock, BUS_LOCK_NS)
# beside a native calibration.json (VAL_NATIVE; default the newest
# results/calibrate-*, else the committed example), per level.
VAL_NATIVE   ?=
VAL_DURATION ?=
VAL_REPS     ?=
VAL_SIZES    ?=
VAL_ARGS = --bus-lock-model "$(BUS_LOCK_MODEL)" $(if $(BUS_LOCK_NS),--bus-lock-ns "$(BUS_LOCK_NS)") --quantum-ns "$(QUANTUM_NS)" $(if $(VAL_NATIVE),--native "$(VAL_NATIVE)") \
	$(if $(VAL_DURATION),--duration "$(VAL_DURATION)") $(if $(VAL_REPS),--reps "$(VAL_REPS)") $(if $(VAL_SIZES),--sizes "$(VAL_SIZES)")
validate-model:
	$(Q)bench/experiment/validate-model.sh --validate $(VAL_ARGS)
	$(Q)$(BUILD_PAR) all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/experiment/validate-model.sh $(VAL_ARGS)

# The bus-lock model at the level users decide on (bench/experiment/validate-study.sh):
# the same scenarios (VS_SCENARIOS, default baseline, aligned, split-off) as
# a native study (as root: real split locks, at most VS_MAX_SPLIT_S seconds
# of them) and an emulated one with this machine's calibration
# (VS_CALIBRATION, else CALIBRATION, else the newest results/calibrate-*),
# the guest isolated as the native CPU is (VS_ISOLATION=auto); model /
# native per scenario and comparison. VS_NATIVE_RUN: a native study made
# before instead of a new one.
VS_SCENARIOS   ?=
VS_DURATION    ?=
VS_REPS        ?=
VS_LOAD_RATE   ?=
VS_MAX_SPLIT_S ?=
VS_CALIBRATION ?= $(CALIBRATION)
VS_ISOLATION   ?=
VS_NATIVE_RUN  ?=
VS_ARGS = --quantum-ns "$(QUANTUM_NS)" --jobs "$(JOBS)" $(if $(VS_SCENARIOS),--scenarios "$(VS_SCENARIOS)") \
	$(if $(VS_DURATION),--duration "$(VS_DURATION)") $(if $(VS_REPS),--reps "$(VS_REPS)") \
	$(if $(VS_LOAD_RATE),--load-rate "$(VS_LOAD_RATE)") $(if $(VS_MAX_SPLIT_S),--max-split-s "$(VS_MAX_SPLIT_S)") \
	$(if $(VS_CALIBRATION),--calibration "$(VS_CALIBRATION)") $(if $(VS_ISOLATION),--isolation "$(VS_ISOLATION)") \
	$(if $(VS_NATIVE_RUN),--native-run "$(VS_NATIVE_RUN)") $(if $(MEASURE_CPU),--measure-cpu "$(MEASURE_CPU)") \
	$(if $(LOAD_CPUS),--load-cpus "$(LOAD_CPUS)")
.PHONY: validate-study
validate-study:
	$(Q)bench/experiment/validate-study.sh --validate $(VS_ARGS)
	$(Q)$(BUILD_PAR) all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/experiment/validate-study.sh $(VS_ARGS)

# Redo the statistics, plots and report of a stored run; compare two runs.
RESULTS := results
run_dir = $(if $(wildcard $(1)/scenarios.list),$(1),$(RESULTS)/$(1))
plots: all
	$(Q)[ -n "$(RUN)" ] || { echo "make plots: RUN=<run-id> is required" >&2; exit 2; }
	$(Q)bench/report/plots.sh $(call run_dir,$(RUN))
report: all
	$(Q)[ -n "$(RUN)" ] || { echo "make report: RUN=<run-id> is required" >&2; exit 2; }
	$(Q)bench/report/report.sh $(call run_dir,$(RUN))
# The tail threshold of the statistics (plots, report, and the study's
# report): samples above DEADLINE_US us per rep; 0 = the control's maximum.
DEADLINE_US ?= $(DEADLINE_US_DEFAULT)
export DEADLINE_US
compare: all
	$(Q)bench/experiment/compare.sh "$(A)" "$(B)"

# Benchmark: patched vs unpatched (same build) and stock QEMU when detection
# is unused; the emulated split-lock cost. Builds the unpatched QEMU once.
bench-qemu: all kernel qemu initramfs
	$(Q)scripts/build-qemu.sh --unpatched >/dev/null
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_QEMU_UNPATCHED=$$(scripts/build-qemu.sh --unpatched --path) \
		SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/cost/qemu-cost.sh $(REPS)

# What the bus-lock model costs in host time: split-off's guest run with
# the model and without (BUS_LOCK_NS 0), and under SLB_QEMU_BASE (an earlier
# build) if set, interleaved (bench/cost/model-cost.sh).
bench-model: all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/cost/model-cost.sh $(REPS_MODEL)

bench-boot: all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/cost/boot-cost.sh $(REPS_BOOT)

# Does an unrelated change of the guest image (an unused file) move the
# study's results more than its intervals say? (bench/experiment/image-change.sh)
IMAGE_SCENARIOS ?= baseline,aligned,split-off,split-warn
IMAGE_PAD       ?= 1000003
IMAGE_ARGS = --scenarios "$(IMAGE_SCENARIOS)" --pad "$(IMAGE_PAD)" --duration "$(DURATION)" --reps "$(REPS)" \
	--jobs "$(JOBS)" --bus-lock-model "$(BUS_LOCK_MODEL)" $(if $(CALIBRATION),--calibration "$(CALIBRATION)")
bench-image:
	$(Q)bench/experiment/image-change.sh --validate $(IMAGE_ARGS)
	$(Q)$(BUILD_PAR) all kernel qemu initramfs
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) bench/experiment/image-change.sh $(IMAGE_ARGS)

unit-test: $(HOST_TOOLS) $(UNIT_TESTS)

# The tests: the runner's arguments checked first (JOBS=x stops before
# anything is built), then what the tests boot, then the scripts (TESTS=,
# default all) JOBS at a time, one TAP stream (tests/run-tests.sh; those
# marked "# t-serial" run alone).
TESTS ?=
test:
	$(Q)tests/run-tests.sh --validate -j "$(JOBS)" $(TESTS)
	$(Q)$(BUILD_PAR) all kernel kernel-nofix kernel-defwarn qemu initramfs $(UNIT_TESTS)
	$(Q)SLB_QEMU=$(QEMU_BIN) SLB_INITRD=$$(cat $(BUILD)/initramfs.path) tests/run-tests.sh -j "$(JOBS)" $(TESTS)

checkpatch: kernel qemu
	$(Q)scripts/checkpatch.sh

clean:
	rm -rf $(BUILD)
