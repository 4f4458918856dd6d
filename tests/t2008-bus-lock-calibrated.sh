#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The calibrated bus-lock model (issue 21, patch/qemu 0008-0009): a split
# lock costs its issuer what the native calibration measured (here the
# xeon-trap calibration's 57 us, a hypervisor trap: its long hold against
# the quantum is what the lost-hold checks need), holds the bus for less
# (bus-hold-ns), and delays another vCPU only at its data accesses that
# miss a modelled cache (bus-cache-kb: the caches the calibration found a
# split load does not slow). Against the worst case (BUS_LOCK_MODEL=all,
# which stalls every vCPU that meets a split lock):
#   - the emulator refuses model properties that make no sense;
#   - make validate-model's guest runs (small working sets, short): an
#     arithmetic-only victim and one whose chase fits the cache are not
#     slowed by the calibrated model, and are by the all-stall one; a
#     victim whose chase misses the cache is; every level's model/native
#     ratio is within x2 and the issuer's cost within x1.5 (issue 21's
#     targets) for the calibrated model;
#   - a victim that misses on every access loses the whole hold (7034 ns)
#     per split lock, at a 10 us and a 100 us quantum (before: 2.5 us at
#     10 us, where the issuer's next lock, a quantum after its last window,
#     went unguarded, and 49 us at 100 us, where a miss after a wait that
#     did not fit the budget was charged the same lock again);
#   - determinism: the same seed gives byte-identical histograms, whatever
#     ran beside it (JOBS), and the report names the model.
. "$(dirname "$0")/lib.sh"
t_require_guest "calibrated bus-lock model tests"

Q=("${T_PC[@]}" -accel tcg,thread=single -icount shift=0)
t_ok "QEMU: bus-hold-ns more than bus-lock-ns is refused" \
	t_qemu_refuses "bus-hold-ns=2000 is more than bus-lock-ns=1000" "${Q[@]}" -cpu Snowridge,bus-lock-ns=1000,bus-hold-ns=2000
t_ok "QEMU: bus-cache-kb without bus-lock-ns is refused" \
	t_qemu_refuses "bus-cache-kb needs bus-lock-ns" "${Q[@]}" -cpu Snowridge,bus-cache-kb=32
t_ok "QEMU: a way count that gives no power of two of sets is refused" \
	t_qemu_refuses "bus-cache-ways=7 does not fit bus-cache-kb=48" "${Q[@]}" -cpu Snowridge,bus-lock-ns=1000,bus-cache-kb=48,bus-cache-ways=7
t_ok "QEMU: bus-cache-kb=100000 is refused" \
	t_qemu_refuses "bus-cache-kb=100000 is out of range" "${Q[@]}" -cpu Snowridge,bus-lock-ns=1000,bus-cache-kb=100000

# Validation runs, both models at once (about 13 s of host CPU each): the
# native levels' working sets shrunk to 16 KiB (inside the 48 KiB cache)
# and 1, 2 and 4 MiB (outside it), 5 ms a level and rep (10 ms took x2.2
# the host time and gave the same figures within 1 %: L2 x1.138 against
# x1.137, 7014 against 6968 ns lost per split lock).
for m in calibrated all calibrated-q100; do
	"$T_ROOT/bench/experiment/validate-model.sh" --native xeon-trap --bus-lock-model "${m%-q100}" --sizes 16K,1M,2M,4M --duration 0.005 --reps 4 \
		$([ "$m" = "${m%-q100}" ] || echo --quantum-ns 100000) --results "$T_TMP" --id "$m" >"$T_TMP/$m.out" 2>&1 &
done
wait
V=$T_TMP/calibrated/validation.json A=$T_TMP/all/validation.json
t_ok "validate-model runs the calibrated and the all-stall model" \
	sh -c "jq -e '.model.bus_lock_model == \"calibrated\" and .model.bus_cache_kb == 48' '$V' >/dev/null &&
		jq -e '.model.bus_lock_model == \"all\"' '$A' >/dev/null || { tail -n 5 '$T_TMP/calibrated.out' '$T_TMP/all.out'; exit 1; }"
# slowdown FILE LEVEL: the model's split/aligned at LEVEL
slowdown() { jq -r --arg l "$2" '.levels[] | select(.level == $l) | .model.value' "$1"; }
# cmp_num A OP B: awk's verdict on A OP B, saying the figures if false
cmp_num() {
	[[ $1 =~ ^[0-9.]+$ ]] || { echo "no figure ('$1')"; return 1; }
	awk -v a="$1" -v b="$3" "BEGIN { if (!(a $2 b)) { print \"\" a \" $2 \" b \" is false\"; exit 1 } }"
}
t_ok "calibrated: an arithmetic-only victim is not slowed (split/aligned <= 1.01)" cmp_num "$(slowdown "$V" arith)" "<=" 1.01
t_ok "calibrated: a chase that fits the modelled cache is not slowed (<= 1.01)" cmp_num "$(slowdown "$V" L1)" "<=" 1.01
t_ok "calibrated: a chase that misses it is (L2's 1 MiB: >= 1.02)" cmp_num "$(slowdown "$V" L2)" ">=" 1.02
t_ok "all-stall: the arithmetic-only victim is slowed (>= 5)" cmp_num "$(slowdown "$A" arith)" ">=" 5
t_ok "all-stall: so is the chase that fits the cache (>= 5)" cmp_num "$(slowdown "$A" L1)" ">=" 5
within2() { jq -e '[.levels[].model_over_native] | all(. != null and . >= 0.5 and . <= 2)' "$V" >/dev/null || { jq -c '[.levels[] | {level, model_over_native}]' "$V"; return 1; }; }
t_ok "calibrated: every level's model/native slowdown within x2" within2
lost() { # lost FILE: the L2 victim's ns lost per split lock is the hold (7034) within 10 %
	local l
	l=$(jq -r '.levels[] | select(.level == "L2") | .victim_ns_lost_per_split_lock.model' "$1")
	cmp_num "$l" ">=" 6330 && cmp_num "$l" "<=" 7740
}
t_ok "calibrated, 10 us quantum: a victim missing every access loses the hold per split lock" lost "$V"
t_ok "calibrated, 100 us quantum: the same" lost "$T_TMP/calibrated-q100/validation.json"
t_ok "calibrated: the issuer's cost per split lock within x1.5 of native" \
	jq -e '.issuer.model_over_native >= 0.667 and .issuer.model_over_native <= 1.5' "$V"

# Determinism: split-off's rep 1 alone, and beside baseline with JOBS=2.
# Another guest at once is what is checked; a busy one (aligned) costs x5
# the host time of an idle one. t1003 keeps a guest beside busy loops.
ST=("$T_ROOT/bench/study.sh" --duration 3 --reps 1 --clock virtual --calibration xeon-trap --results "$T_TMP")
"${ST[@]}" --scenarios split-off --jobs 1 --id one >"$T_TMP/one.out" 2>&1 &
"${ST[@]}" --scenarios split-off,baseline,split-on --jobs 2 --id two >"$T_TMP/two.out" 2>&1 &
wait
t_ok "calibrated: the same seed gives byte-identical histograms, alone or beside another guest" \
	cmp "$T_TMP/one/split-off/rep1/files/hist.txt" "$T_TMP/two/split-off/rep1/files/hist.txt"
t_ok "the manifest records the model and the calibration it came from" \
	jq -e '.params.bus_lock_model == "calibrated" and .params.bus_hold_ns == 7034 and .params.bus_cache_kb == 48
		and (.params.calibration | test("^results/example-calibrate-.*/calibration.json$"))' "$T_TMP/one/manifest.json"
t_ok "the report names the model" grep -q 'bus-lock model calibrated: a split lock costs its issuer 57283 ns' "$T_TMP/one/report.md"
t_ok "... and its caveats say how: by physical line, fetches and walks, coherent" sh -c "
	grep -q 'LRU, by physical line; data, instruction fetches and page walks; kept' '$T_TMP/one/report.md' &&
	! grep -q 'by linear address' '$T_TMP/one/report.md'"

# A guest in which no split lock completes leaves the model nothing to do:
# the study runs it without the model's cache (bench/target/guest.sh
# guest_bus_args), for less host time. Which guests get it, and the claim
# it rests on: an aligned load's guest and a split load's under fatal
# detection (1 s, the default calibration) are the same, histogram and
# dmesg byte for byte, with the cache and without.
t_ok "the study runs split-off's guest with the model's cache, baseline's (no split lock) without" sh -c "
	grep -q 'bus-cache-kb=48' '$T_TMP/two/split-off/rep1/qemu-cmd' &&
	grep -q 'bus-lock-ns=57283[^ ]*bus-hold-ns=7034' '$T_TMP/two/baseline/rep1/qemu-cmd' &&
	! grep -q bus-cache-kb '$T_TMP/two/baseline/rep1/qemu-cmd'"
t_ok "... and split-on's (detection fatal: the offender dies at its first) without" sh -c "
	grep -qx outcome=ok '$T_TMP/two/split-on/rep1/rep.info' && grep -qx load_fate=sigbus '$T_TMP/two/split-on/rep1/rep.info' &&
	grep -q 'bus-lock-ns=57283[^ ]*bus-hold-ns=7034' '$T_TMP/two/split-on/rep1/qemu-cmd' &&
	! grep -q bus-cache-kb '$T_TMP/two/split-on/rep1/qemu-cmd'"
al_job=$(t_study_job slb-load:aligned al 1)
mapfile -t M < <(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && . "$T_ROOT/rt-config/defaults.conf" &&
	bus_model_load calibrated "$T_ROOT/$CALIBRATION_DEFAULT" && bus_model_args | tr ' ' '\n')
t_boot "$T_TMP/al-cache" --clock virtual "${M[@]}" -j "$al_job" -a split_lock_detect=off -t 600 &
t_boot "$T_TMP/al-none" --clock virtual "${M[@]:0:4}" -j "$al_job" -a split_lock_detect=off -t 600 &
wait
on_job=$(t_study_job slb-load:split on 1)
t_boot "$T_TMP/on-cache" --clock virtual "${M[@]}" -j "$on_job" -a split_lock_detect -t 600 &
t_boot "$T_TMP/on-none" --clock virtual "${M[@]:0:4}" -j "$on_job" -a split_lock_detect -t 600 &
wait
t_ok "an aligned load's guest: the same histogram and dmesg with the model's cache as without" sh -c "
	grep -q bus-cache-kb '$T_TMP/al-cache/qemu-cmd' && ! grep -q bus-cache-kb '$T_TMP/al-none/qemu-cmd' &&
	[ -s '$T_TMP/al-cache/files/load.report.json' ] &&
	jq -e '.mode == \"aligned\" and .ops > 1000000' '$T_TMP/al-cache/files/load.report.json' >/dev/null &&
	[ -s '$T_TMP/al-cache/files/hist.txt' ] && cmp '$T_TMP/al-cache/files/hist.txt' '$T_TMP/al-none/files/hist.txt' &&
	cmp '$T_TMP/al-cache/files/dmesg.txt' '$T_TMP/al-none/files/dmesg.txt'"
t_ok "a split load's guest, detection fatal: the same histogram and dmesg with the model's cache as without" sh -c "
	grep -q bus-cache-kb '$T_TMP/on-cache/qemu-cmd' && ! grep -q bus-cache-kb '$T_TMP/on-none/qemu-cmd' &&
	grep -qx sigbus '$T_TMP/on-cache/files/load.fate' &&
	[ -s '$T_TMP/on-cache/files/hist.txt' ] && cmp '$T_TMP/on-cache/files/hist.txt' '$T_TMP/on-none/files/hist.txt' &&
	cmp '$T_TMP/on-cache/files/dmesg.txt' '$T_TMP/on-none/files/dmesg.txt'"
