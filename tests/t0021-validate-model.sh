#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-model (issue 21): bench/experiment/validate-model.sh's command-line
# contract (bad input exits 2 naming the value; a native or model
# calibration.json that is missing, not JSON or lacks fields exits 2
# naming the file), the comparison on two hand-made calibration.json files
# (--model: no guest), whose ratios are known, the run directory and its
# tables and plot; the wake-up probes' rows (when both have them, none
# with a note when one lacks them); with a guest, one short real run in
# which the model's issuer pays about bus-lock-ns per split lock (within
# 20 %) and the guest runs the wake-up probes the native file has.
# No native split locks are run here: the native side is always a file.
. "$(dirname "$0")/lib.sh"
script=$T_ROOT/bench/experiment/validate-model.sh
res=$T_TMP/results

# cal_json FILE SPLIT-NS RATIOS RATE: a calibration.json by hand: the
# issuer's add32 costs 5 ns aligned, SPLIT-NS ns split; victim points
# arith, 16 KiB (L1), 1 MiB (L2), 64 MiB (L3), 1 GiB (DRAM) with
# split/aligned RATIOS (5 numbers, intervals of +-10 %) under a split load
# of RATE LOCKs per second; levels naming one point each.
cal_json() {
	jq -n --argjson split "$2" --argjson r "[$3]" --argjson rate "$4" '
		def est(v): {ratio: v, ci95: [v * 0.9, v * 1.1]};
		def ns(v): {ns_per_step: v, ci95: [v, v], reps: [v, v, v, v]};
		[[null, "-"], [16384, "L1"], [1048576, "L2"], [67108864, "L3"], [1073741824, "DRAM"]] as $pts |
		{tool: "slb-calibrate", schema: 1,
		 machine: {cpu_model: "Hand \"Made\" CPU", hypervisor: false, kernel: "test", caches: [
			{level: 1, type: "Data", bytes: 32768}, {level: 2, type: "Unified", bytes: 2097152},
			{level: 3, type: "Unified", bytes: 134217728}]},
		 params: {victim_cpu: 1, load_cpu: 0, reps: 4, duration_s: 0.1, load_form: "add32", load_rate: 0,
			sizes: [$pts[1:][][0]]},
		 issuer: [{form: "add32", aligned: {ns_per_op: 5, ci95: [4, 6]},
			split: {ns_per_op: $split, ci95: [$split * 0.9, $split * 1.1]}}],
		 victim: [range(5) as $i | {task: (if $i == 0 then "arith" else "chase" end), bytes: $pts[$i][0],
			level: $pts[$i][1], none: ns(2), aligned: ns(2), split: ns(2 * $r[$i]),
			load_ops_per_s: {aligned: 1e8, split: $rate}, aligned_over_none: est(1), split_over_aligned: est($r[$i])}],
		 levels: [range(5) as $i | {level: (if $i == 0 then "arith" else $pts[$i][1] end),
			task: (if $i == 0 then "arith" else "chase" end), bytes: $pts[$i][0],
			split_over_aligned: est($r[$i])}],
		 notes: []}' >"$1"
}
# cal_add_wakeup FILE RATIOS NS: FILE with wake-up probes timer and futex
# (interval 1000 us, 0.5 s) whose split/aligned at p50, p99 and max are
# RATIOS (3 numbers, intervals of +-10 %), ns late NS (p50; p99 and max 2
# and 4 times it) under no and aligned load, RATIOS times that split.
cal_add_wakeup() {
	jq --argjson r "[$2]" --argjson ns "$3" '
		def m(v): {ns: v, ci95: [v, v], reps: [v, v, v, v]};
		def est(v): {ratio: v, ci95: [v * 0.9, v * 1.1]};
		def load(k): {wakeups: 500, p50: m($ns * k[0]), p99: m(2 * $ns * k[1]), max: m(4 * $ns * k[2])};
		.wakeup = {interval_us: 1000, duration_s: 0.5, sched: "SCHED_FIFO 95", mlocked: true,
		  probes: [("timer", "futex") as $p | {probe: $p, what: "by hand", none: load([1, 1, 1]), aligned: load([1, 1, 1]),
		    split: load($r), load_ops_per_s: {aligned: 1e8, split: 1e6},
		    aligned_over_none: {p50: est(1), p99: est(1), max: est(1)},
		    split_over_aligned: {p50: est($r[0]), p99: est($r[1]), max: est($r[2])},
		    split_over_none: {p50: est($r[0]), p99: est($r[1]), max: est($r[2])}, missed: 0, timeouts: 0}]}' \
		"$1" >"$1.w" && mv "$1.w" "$1"
}
native=$T_TMP/native.json model=$T_TMP/model.json
cal_json "$native" 50000 "1, 1.25, 2, 4, 5" 10000
cal_json "$model" 1000 "10, 10, 10, 10, 10" 100000
# The model's working sets past a 512 MB guest, as a guest run has them.
jq '.victim |= map(if .bytes == 67108864 then .bytes = 16777216 elif .bytes == 1073741824 then .bytes = 67108864 else . end)' \
	"$model" >"$T_TMP/m" && mv "$T_TMP/m" "$model"

t_ok "--help exits 0" "$script" --help
t_ok "--no-such-option exits 2" t_expect_code 2 "$script" --no-such-option
t_ok "--reps 3 is refused (intervals need 4), named" t_refuses "reps=3" "$script" --validate --native "$native" --reps 3
t_ok "--reps x is refused, named" t_refuses "reps 'x'" "$script" --validate --native "$native" --reps x
t_ok "--duration 0 is refused, named" t_refuses "duration '0'" "$script" --validate --native "$native" --duration 0
t_ok "--duration abc is refused, named" t_refuses "duration 'abc'" "$script" --validate --native "$native" --duration abc
t_ok "--bus-lock-ns -1 is refused, named" t_refuses "bus-lock-ns '-1'" "$script" --validate --native "$native" --bus-lock-ns -1
t_ok "--quantum-ns 10 is refused, named" t_refuses "quantum-ns=10" "$script" --validate --native "$native" --quantum-ns 10
t_ok "--memory 64 is refused, named" t_refuses "memory=64" "$script" --validate --native "$native" --memory 64
t_ok "--wakeup-duration 0 is refused, named" t_refuses "wakeup-duration '0'" "$script" --validate --native "$native" --wakeup-duration 0
t_ok "a bad --id is refused, named" t_refuses "'../x'" "$script" --validate --native "$native" --id ../x
t_ok "--sizes with too few sets is refused, naming the levels" t_refuses "L1 L2 L3 DRAM" \
	"$script" --validate --native "$native" --sizes 16K,1M
t_ok "--sizes with a bad size names it" t_refuses "'12Q'" "$script" --validate --native "$native" --sizes 16K,12Q,16M,64M
t_ok "--sizes past the guest's RAM names it" t_refuses "'1G'" "$script" --validate --native "$native" --sizes 16K,1M,16M,1G
t_ok "--sizes not growing names it" t_refuses "'1M'" "$script" --validate --native "$native" --sizes 16K,4M,1M,64M
t_ok "an unexpected argument is refused" t_refuses "'extra'" "$script" --validate --native "$native" extra
t_ok "a native file that does not exist is refused, named" t_refuses "$T_TMP/nope.json" \
	"$script" --validate --native "$T_TMP/nope.json"
echo 'garbage {' >"$T_TMP/garbage.json"
t_ok "a native file that is not JSON is refused, named" t_refuses "garbage.json' is not JSON" \
	"$script" --validate --native "$T_TMP/garbage.json"
echo '{"tool": "slb-calibrate", "params": {}}' >"$T_TMP/thin.json"
t_ok "a native file without the fields is refused, named, saying what lacks" t_refuses "thin.json' .*params.load_form" \
	"$script" --validate --native "$T_TMP/thin.json"
jq '.wakeup = {probes: [{probe: "timer"}]}' "$native" >"$T_TMP/badwake.json"
t_ok "a native file with wake-up probes lacking their figures is refused, named" t_refuses "badwake.json' .*wake-up figures" \
	"$script" --validate --native "$T_TMP/badwake.json"
t_ok "a model file that is not JSON is refused, named" t_refuses "--model '$T_TMP/garbage.json'" \
	"$script" --validate --native "$native" --model "$T_TMP/garbage.json"
t_ok "without a guest (no SLB_INITRD) a real run is refused before anything starts" sh -c "
	SLB_INITRD= '$script' --native '$native' -o '$res' --id x 2>&1 >/dev/null | grep -q SLB_INITRD && [ ! -e '$res' ]"
t_ok "--validate prints the plan: the native levels, the guest's sizes shrunk to fit 512 MB" sh -c "
	'$script' --validate --native '$native' 2>&1 | grep -q '16384,1048576,16777216,67108864 bytes.*levels L1 L2 L3 DRAM'"
t_ok "--validate: a native file without wake-up probes plans none in the guest" sh -c "
	'$script' --validate --native '$native' 2>&1 | grep -q 'no wake-up probe (the native calibration has none)'"
t_ok "--validate: a larger guest keeps more of the native sizes" sh -c "
	'$script' --validate --native '$native' --memory 2048 2>&1 | grep -q '16384,1048576,67108864,268435456 bytes'"

# The table builder on the two hand-made files.
"$script" --bus-lock-model all --native "$native" --model "$model" -o "$res" --id v1 >"$T_TMP/v1.out" 2>"$T_TMP/v1.err"
rc=$?
t_ok "--model: completes without a guest (exit 0)" sh -c "[ $rc = 0 ] || { cat '$T_TMP/v1.err'; exit 1; }"
run=$res/v1 j=$res/v1/validation.json
t_ok "the run directory holds the tables, both calibrations, data and plot" sh -c "cd '$run' &&
	ls validation.json validation.txt validation.md model.calibration.json native.calibration.json \
	model.dat native.dat slowdown.png slowdown.svg >/dev/null"
t_ok "no .incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"
t_ok "the native calibration is a copy, its source named" sh -c "cmp '$native' '$run/native.calibration.json' &&
	jq -e --arg n '$native' '.native.source == \$n' '$j'"
t_ok "levels: the native's, in order, with their working sets in both" jq -e '
	[.levels[] | [.level, .native_bytes, .model_bytes, .shrunk]] ==
	[["arith", null, null, false], ["L1", 16384, 16384, false], ["L2", 1048576, 1048576, false],
	 ["L3", 67108864, 16777216, true], ["DRAM", 1073741824, 67108864, true]]' "$j"
t_ok "levels: model/native = 10 / the native ratio" jq -e '
	[.levels[].model_over_native] == [10, 8, 5, 2.5, 2]' "$j"
t_ok "levels: both ratios with their intervals" jq -e '
	.levels[2] | .native.value == 2 and (.native.ci95 | map(. * 100 | round)) == [180, 220] and .model.value == 10'  "$j"
t_ok "levels: bounds from the intervals' ends, overlap said" jq -e '
	.levels[4] | (.bounds | map(. * 1000 | round)) == [1636, 2444] and .intervals_overlap == false' "$j"
t_ok "levels: the victim's ns lost per split lock, (1 - 1/ratio) / split LOCKs per s" jq -e '
	[.levels[].victim_ns_lost_per_split_lock | [.native, .model] | map(round)] ==
	[[0, 9000], [20000, 9000], [50000, 9000], [75000, 9000], [80000, 9000]]' "$j"
t_ok "wake-up: no rows, and a note why, when the native file has no probes" jq -e '
	.wakeup == [] and any(.notes[]; test("wake-up probes: none \\(the native calibration has none"))' "$j"
t_ok "issuer: model / native and model / bus-lock-ns" jq -e '
	.issuer | .form == "add32" and .native_ns_per_split_lock.value == 50000 and .model_ns_per_split_lock.value == 1000 and
	.model_over_native == 0.02 and .model_over_bus_lock_ns == 1' "$j"
t_ok "validation.txt: a row per level and the issuer" sh -c "grep -q '^L3 *64 MiB *16 MiB *x4 \[3.6-4.4\] *x10 \[9-11\] *x2.5 .* no  *75000 / 9000$' '$run/validation.txt' &&
	grep -q 'native 50000 \[45000-55000\], model 1000 \[900-1100\]: model/native x0.02 .*model/bus-lock-ns (1000) x1$' '$run/validation.txt'"
t_ok "validation.md: a Markdown table, a row per level and the issuer" sh -c "
	grep -q '^| DRAM | 1 GiB | 64 MiB | x5 \[4.5-5.5\] | x10 \[9-11\] | x2 |$' '$run/validation.md' &&
	[ \$(grep -c '^|' '$run/validation.md') = 8 ]"
t_ok "the table is printed at the end" grep -q '^Victim slowdown under a split load' "$T_TMP/v1.out"
t_ok "the plot is a PNG" t_is_png "$run/slowdown.png" 5000
t_ok "... and an SVG" t_is_svg "$run/slowdown.svg"
t_ok "an existing run id is refused, named" t_refuses "'v1' exists" "$script" --bus-lock-model all --native "$native" --model "$model" -o "$res" --id v1
t_ok "--sizes picks the model's points by size (a missing one is named)" t_refuses "no working set of 2097152 bytes" \
	"$script" --bus-lock-model all --native "$native" --model "$model" -o "$res" --id v2 --sizes 16K,2M,16M,64M
t_ok "... and the model's own sizes are used when one per level" t_expect_code 0 \
	"$script" --bus-lock-model all --native "$native" --model "$model" -o "$res" --id v3 --sizes 16K,1M,16M,64M

# The wake-up probes: native timer and futex slowed x9 (p50), x20 (p99),
# x10 (max) by the split load, the model x1, x1.5, x2.
wn=$T_TMP/native-w.json wm=$T_TMP/model-w.json
cp "$native" "$wn" && cal_add_wakeup "$wn" "9, 20, 10" 15000
cp "$model" "$wm" && cal_add_wakeup "$wm" "1, 1.5, 2" 3000
t_ok "--validate: the guest plans the native file's wake-up probes, at its interval and duration" sh -c "
	'$script' --validate --native '$wn' 2>&1 | grep -q 'wake-up timer,futex x 3 loads x 4 reps x 0.5 s every 1000 us'"
jq '.wakeup.duration_s = 5' "$wn" >"$T_TMP/long.json"
t_ok "--validate: ... at most 1 s, or --wakeup-duration" sh -c "
	'$script' --validate --native '$T_TMP/long.json' 2>&1 | grep -q 'x 4 reps x 1 s every' &&
	'$script' --validate --native '$T_TMP/long.json' --wakeup-duration 0.2 2>&1 | grep -q 'x 4 reps x 0.2 s every'"
"$script" --bus-lock-model all --native "$wn" --model "$wm" -o "$res" --id w1 >"$T_TMP/w1.out" 2>"$T_TMP/w1.err"
rc=$?
t_ok "wake-up: the comparison completes (exit 0)" sh -c "[ $rc = 0 ] || { cat '$T_TMP/w1.err'; exit 1; }"
j=$res/w1/validation.json
t_ok "wake-up: a row per probe and statistic, model/native of split/aligned" jq -e '
	[.wakeup[] | [.probe, .stat, .native.value, .model.value, (.model_over_native * 1000 | round)]] ==
	[["timer", "p50", 9, 1, 111], ["timer", "p99", 20, 1.5, 75], ["timer", "max", 10, 2, 200],
	 ["futex", "p50", 9, 1, 111], ["futex", "p99", 20, 1.5, 75], ["futex", "max", 10, 2, 200]]' "$j"
t_ok "wake-up: intervals, bounds, overlap and both sides' ns late" jq -e '
	.wakeup[1] | (.native.ci95 | map(. * 10 | round)) == [180, 220] and (.bounds | map(. * 1000 | round)) == [61, 92] and
	.intervals_overlap == false and .native_ns == {none: 30000, aligned: 30000, split: 600000} and
	.model_ns == {none: 6000, aligned: 6000, split: 9000}' "$j"
t_ok "wake-up: the intervals the two sides woke at" jq -e '.wakeup_interval_us == {native: 1000, model: 1000}' "$j"
t_ok "validation.txt: the wake-up block, a row per probe and statistic" sh -c "
	grep -q '^Wake-up: how late a thread on the victim CPU is woken' '$res/w1/validation.txt' &&
	grep -q '^timer p99  x20 \\[18-22\\] *x1.5 \\[1.35-1.65\\] *x0.075 *\\[0.0614-0.0917\\] *no  *30000 / 30000 / 600000; 6000 / 6000 / 9000$' '$res/w1/validation.txt' &&
	[ \$(grep -cE '^(timer|futex) +(p50|p99|max) ' '$res/w1/validation.txt') = 6 ]"
t_ok "validation.md: a row per probe and statistic after the issuer" sh -c "
	grep -q '^| wake-up futex max | | | x10 \\[9-11\\] | x2 \\[1.8-2.2\\] | x0.2 |$' '$res/w1/validation.md' &&
	[ \$(grep -c '^|' '$res/w1/validation.md') = 14 ]"
"$script" --bus-lock-model all --native "$wn" --model "$model" -o "$res" --id w2 >/dev/null 2>&1
t_ok "wake-up: a model without the probes gives no rows, and a note why" jq -e '
	.wakeup == [] and any(.notes[]; test("the model calibration has none"))' "$res/w2/validation.json"

# One short real run in the guest: the model's issuer pays about
# bus-lock-ns per split lock (1 working set per level as the native file's
# levels, tiny durations); the guest runs the native file's wake-up
# probes (10 ms each, 10 wake-ups).
t_require_guest "a real model run"
bus=2000
"$script" --bus-lock-model all --native "$wn" --bus-lock-ns "$bus" --duration 0.002 --wakeup-duration 0.01 --reps 4 -o "$res" --id g1 \
	>"$T_TMP/g1.out" 2>"$T_TMP/g1.err"
rc=$?
t_ok "a real run completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/g1.err'; exit 1; }"
t_ok "the guest's progress lines reached the terminal" grep -q 'guest: \[5/5\] chase 64 MiB' "$T_TMP/g1.err"
g=$res/g1/validation.json
t_ok "the model's issuer pays bus-lock-ns ($bus) per split lock, within 20 %" jq -e --argjson b "$bus" '
	.issuer.model_ns_per_split_lock.value > 0.8 * $b and .issuer.model_ns_per_split_lock.value < 1.2 * $b and
	.issuer.model_over_bus_lock_ns > 0.8 and .issuer.model_over_bus_lock_ns < 1.2' "$g"
t_ok "the guest ran on 2 vCPUs, victim on the isolated one, with the sizes asked for" jq -e '
	.model.vcpus == 2 and .model.bus_lock_ns == 2000 and .model.params.victim_cpu == 1 and .model.params.load_cpu == 0 and
	.model.params.sizes == [16384, 1048576, 16777216, 67108864]' "$g"
t_ok "the model shows a slowdown under the split load at every level" jq -e 'all(.levels[]; .model.value > 1)' "$g"
t_ok "the guest ran both wake-up probes, SCHED_FIFO 95, at the native interval, about 10 wake-ups per run" jq -e '
	.wakeup | [.[].probe] == ["timer", "timer", "timer", "futex", "futex", "futex"] and all(.[]; .model.value > 0)' "$g"
t_ok "... as its calibration says" jq -e '.wakeup.sched == "SCHED_FIFO 95" and .wakeup.interval_us == 1000 and
	all(.wakeup.probes[]; all(.none, .aligned, .split; .wakeups >= 8 and .wakeups <= 11 and .p50.ns > 0) and .timeouts == 0)' \
	"$res/g1/model.calibration.json"
t_ok "--bus-lock-ns with the calibrated model is refused, named" t_refuses "--bus-lock-ns 2000 is for --bus-lock-model all" "$script" --validate --native "$native" --bus-lock-ns 2000
