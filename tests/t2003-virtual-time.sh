#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The virtual clock mode (patch/qemu 0004-0005: icount, lock-step rounds,
# bus-lock cost): a microsecond floor, byte-identical runs for one seed and
# different runs for another, the same study whatever JOBS, vCPUs that run
# in parallel in virtual time, an aligned load that leaves the isolated
# vCPU alone, split locks that cost what bus-lock-ns says, detection that
# kills the offender, and QEMU refusing the options where they mean
# nothing.
. "$(dirname "$0")/lib.sh"
t_require_guest "virtual-time tests"

# vboot NAME LOAD [RUN-GUEST ARGS]: a virtual-clock study run of LOAD.
vboot() {
	local name=$1 load=$2
	shift 2
	t_boot "$T_TMP/$name" -j "$(t_study_job "$load" "$name")" --clock virtual -a split_lock_detect=off -t 600 "$@"
}
# pct NAME FIELD: FIELD (p99_us, p999_us, max_us, samples) of NAME's histogram.
pct() { "$HOSTBIN/slb-hist" --json "$T_TMP/$1/files/hist.txt" | jq -r ".histograms[0].$2"; }
# ratio_at_most A B X: A / B <= X
ratio_at_most() { awk -v a="$1" -v b="$2" -v x="$3" 'BEGIN { if (b <= 0 || a / b > x) { printf "%s / %s > %s\n", a, b, x; exit 1 } }'; }
ratio_at_least() { awk -v a="$1" -v b="$2" -v x="$3" 'BEGIN { if (b <= 0 || a / b < x) { printf "%s / %s < %s\n", a, b, x; exit 1 } }'; }

vboot base none
vboot aligned slb-load:aligned
vboot split slb-load:split
vboot split-seed2 slb-load:split --seed 2
vboot split-free slb-load:split --bus-lock-ns 0
t_ok "virtual baseline boots and runs cyclictest" t_outcome "$T_TMP/base" ok
t_ok "virtual baseline: every period measured (3000 samples)" test "$(pct base samples)" = 3000
t_ok "virtual baseline: p99 <= 20 us" test "$(pct base p99_us)" -le 20
# patch/qemu 0014, run-guest.sh: CPUID[0x15] gives the 1 GHz TSC and APIC
# timer, so the guest does not spend 100 ms of emulated time (0.27 s of
# host time a boot) measuring its APIC timer; it measured 1000.007 MHz.
t_ok "the guest takes its TSC rate from CPUID: 1000.000 MHz" grep -q 'tsc: Detected 1000.000 MHz TSC' "$T_TMP/base/files/dmesg.txt"
t_ok "... and does not calibrate its APIC timer (it reaches init in < 0.2 s of guest time: 0.10 s, 0.31 s when it did)" \
	awk -F'[][]' '/Run \/init as init process/ { found = 1; if ($2 + 0 >= 0.2) { print "init at " $2 " s"; exit 1 } } END { exit !found }' "$T_TMP/base/files/dmesg.txt"
t_ok "outcome.json records clock, seed, bus-lock cost and quantum" \
	jq -e '.clock == "virtual" and .seed == 1 and .bus_lock_ns == 1000 and .quantum_ns == 10000' "$T_TMP/base/outcome.json"
t_ok "another seed moves the load and changes the histogram" sh -c "! cmp -s '$T_TMP/split/files/hist.txt' '$T_TMP/split-seed2/files/hist.txt'"
# One rep's p99.9 at a 3 us floor moves by whole 1 us bins with the
# image's timing (6 us with the reproducible initramfs of 2026-12-05):
# x1.5 is not resolvable there. The defect this guards, aligned LOCKs
# charged as bus locks, makes aligned as slow as split: x10 and more.
t_ok "an aligned load leaves the isolated vCPU alone: aligned / baseline p99.9 <= 3" \
	ratio_at_most "$(pct aligned p999_us)" "$(pct base p999_us)" 3
t_ok "split locks at the default cost: split / aligned p99.9 >= 10" \
	ratio_at_least "$(pct split p999_us)" "$(pct aligned p999_us)" 10
t_ok "with bus-lock-ns=0 split locks cost nothing: split / aligned p99.9 <= 1.5" \
	ratio_at_most "$(pct split-free p999_us)" "$(pct aligned p999_us)" 1.5
t_ok "the offender pays its own bus locks: ~1000 ns per split lock" \
	jq -e '.ns_per_op > 900 and .ns_per_op < 1300' "$T_TMP/split/files/load.json"

# Parallel virtual time: two busy vCPUs each run at full speed. One aligned
# thread on vCPU 0 against two on vCPUs 0 and 1 of a 3-vCPU guest, one
# after the other in one guest, 0.5 s each (some 10^7 ops a thread, 5 10^4
# quanta): the per-thread rate must not halve (plain icount runs them one
# after another: x2 at any length).
t_boot "$T_TMP/par" -j "$(t_job par <<'JOB'
slb-load -m aligned -t 1 -c 0,1 -d 0.5 --json >load1.json
slb-load -m aligned -t 2 -c 0,1 -d 0.5 --json >load2.json
JOB
)" --smp 3 --clock virtual -t 600
t_ok "two busy vCPUs run in parallel: per-thread ns/op with 2 threads <= 1.2 x with 1" \
	ratio_at_most "$(jq .ns_per_op "$T_TMP/par/files/load2.json")" "$(jq .ns_per_op "$T_TMP/par/files/load1.json")" 1.2

# Detection on in the virtual mode: the offender dies at its first split lock.
t_boot "$T_TMP/on" -j "$(t_study_job slb-load:split on)" --clock virtual -a split_lock_detect -t 600
t_ok "split_lock_detect in the virtual mode: the offender dies of SIGBUS" grep -qx sigbus "$T_TMP/on/files/load.fate"
t_ok "... after 0 split locks" jq -e '.ops == 0' "$T_TMP/on/files/load.report.json"
# 1 us bins at a 3 us floor: "as baseline" means within one bin.
t_ok "... and the isolated vCPU's p99.9 stays within one 1 us bin of baseline's" \
	ratio_at_most "$(pct on p999_us)" "$(($(pct base p999_us) + 1))" 1

# JOBS: two guests at once give the same histograms as one at a time.
# baseline beside split-off: both boot at once and run side by side on the
# host, as aligned and split-off did (aligned, an emulated vCPU busy flat
# out for 3 s, only added host time).
for j in 1 2; do
	"$T_ROOT/bench/study.sh" --scenarios baseline,split-off --duration 3 --reps 1 --clock virtual \
		--jobs "$j" --results "$T_TMP/jobs$j" --id j >"$T_TMP/jobs$j.out" 2>&1
done
# same_hist S: scenario S's histogram is the same in both studies.
same_hist() { cmp "$T_TMP/jobs1/j/$1/rep1/files/hist.txt" "$T_TMP/jobs2/j/$1/rep1/files/hist.txt"; }
t_ok "JOBS=1 and JOBS=2 studies both complete" sh -c "[ -s '$T_TMP/jobs1/j/summary.json' ] && [ -s '$T_TMP/jobs2/j/summary.json' ]"
# The baseline guest, run twice (a boot of its own did this before).
t_ok "same inputs, same seed: byte-identical histograms (baseline, in both studies)" same_hist baseline
t_ok "JOBS=1 and JOBS=2 give byte-identical histograms (split-off, beside baseline at JOBS=2)" same_hist split-off
t_ok "the manifest records the clock mode, jobs and the bus-lock model (calibrated: its cost and hold)" \
	jq -e '.params.clock == "virtual" and .params.jobs == 2 and .params.bus_lock_model == "calibrated"
		and .params.bus_lock_ns == 1008 and .params.bus_hold_ns == 928' "$T_TMP/jobs2/j/manifest.json"

# QEMU refuses what the model cannot do.
t_ok "QEMU: bus-lock-ns without -icount is refused" t_qemu_refuses "bus-lock-ns needs TCG with -icount" \
	"${T_PC[@]}" -accel tcg -cpu Snowridge,bus-lock-ns=1000
t_ok "QEMU: bus-lock-ns=2000000 is refused" t_qemu_refuses "bus-lock-ns=2000000 is out of range" \
	"${T_PC[@]}" -accel tcg,thread=single -icount shift=0 -cpu Snowridge,bus-lock-ns=2000000
t_ok "QEMU: tsc-crystal without -icount is refused" t_qemu_refuses "tsc-crystal needs -icount" \
	"${T_PC[@]}" -accel tcg -cpu Snowridge,tsc-crystal=on
t_ok "QEMU: tsc-crystal on a CPUID level below 0x15 is refused" t_qemu_refuses "tsc-crystal needs CPUID level 0x15" \
	"${T_PC[@]}" -accel tcg,thread=single -icount shift=0 -cpu Snowridge,tsc-crystal=on,level=13
t_ok "QEMU: lockstep without -icount is refused" t_qemu_refuses "lockstep=10000 needs -icount" -accel tcg,lockstep=10000
t_ok "QEMU: lockstep=10 is refused" t_qemu_refuses "lockstep=10 is out of range" -icount shift=0 -accel tcg,lockstep=10
