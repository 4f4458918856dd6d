#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make calibrate (issue 20): slb-calibrate's command-line contract (bad
# input exits 2 naming the value; a CPU that does not exist; one CPU named;
# a machine with one CPU, simulated with taskset; a plan over the
# split-lock budget), working sets derived from the caches (a fake sysfs),
# and bench/experiment/calibrate.sh end to end on a tiny plan: the run directory, the
# JSON's keys and sanity, machine facts, plots, the wake-up probes (timer
# and futex: their shape, and none when not asked for); Ctrl-C leaves
# nothing.
# No timing thresholds, except one huge hardware fact: a split LOCKed
# operation costs its issuer more than twice an aligned one (hundreds to
# tens of thousands of times on the machines seen).
# This machine is shared and native split locks slow all of it: the runs
# here plan about 0.4 s of split locks in all (tiny sizes, durations and
# issuer budgets, the victim's load rate-limited), and the tool's own
# budget check (--max-split-s 1) holds each run to that.
# t-serial: native split locks, and the issuer's cost against an aligned one on the host
. "$(dirname "$0")/lib.sh"
cal=$GUESTBIN/slb-calibrate
script=$T_ROOT/bench/experiment/calibrate.sh

t_ok "slb-calibrate --help exits 0" "$cal" --help
t_ok "slb-calibrate --no-such-option exits 2" t_expect_code 2 "$cal" --no-such-option
t_ok "--duration 0 is refused, named" t_refuses "duration '0'" "$cal" --validate --duration 0
t_ok "--reps 0 is refused, named" t_refuses "reps '0'" "$cal" --validate --reps 0
t_ok "--sizes with a bad size names it" t_refuses "'12Q'" "$cal" --validate --sizes 16K,12Q
t_ok "--sizes past 64 GiB is refused" t_refuses "'65G'" "$cal" --validate --sizes 65G
t_ok "--sizes not in whole lines is refused" t_refuses "'1100'" "$cal" --validate --sizes 1100
t_ok "--sizes naming a size twice is refused" t_refuses "16K" "$cal" --validate --sizes 16K,16384
t_ok "--forms bogus is refused, named" t_refuses "'bogus'" "$cal" --validate --forms add32,bogus
t_ok "--load-form cmpxchg16b (no split form) is refused" t_refuses "cmpxchg16b" "$cal" --validate --load-form cmpxchg16b
t_ok "--load-rate -1 is refused" t_refuses "load-rate '-1'" "$cal" --validate --load-rate -1
t_ok "--max-split-s 0 is refused" t_refuses "max-split-s '0'" "$cal" --validate --max-split-s 0
t_ok "--wakeup bogus is refused, named with what is allowed" t_refuses "'bogus' is not a probe (allowed: timer, futex, all, none)" \
	"$cal" --validate --wakeup timer,bogus
t_ok "--wakeup naming a probe twice is refused" t_refuses "names timer twice" "$cal" --validate --wakeup timer,timer
t_ok "--wakeup-interval 10 (under 50 us) is refused, named" t_refuses "wakeup-interval '10'" "$cal" --validate --wakeup-interval 10
t_ok "--wakeup-duration 0 is refused, named" t_refuses "wakeup-duration '0'" "$cal" --validate --wakeup-duration 0
t_ok "calibrate.sh passes a bad --wakeup on: exit 2 naming it" t_refuses "'bogus' is not a probe" "$script" --validate --wakeup bogus
t_ok "calibrate.sh passes bad input on: exit 2 naming it" t_refuses "reps 'x'" "$script" --validate --reps x
t_ok "calibrate.sh: a bad --id is refused" t_refuses "'../x'" "$script" --validate --id ../x

# A machine with one CPU, simulated: this process may use CPU 0 only.
one_cpu() {
	local err
	err=$(taskset -c 0 "$@" 2>&1 >/dev/null)
	[ $? = 1 ] || { echo "exit $?, expected 1: $err"; return 1; }
	echo "$err" | grep -q 'needs 2 CPUs.* only 1 is available' || { echo "said: $err"; return 1; }
}
if [ "$(nproc)" -lt 2 ]; then
	t_skip "the CPU checks and the runs" "this machine has fewer than 2 CPUs"
	exit 0
fi
t_ok "a machine with one CPU (taskset -c 0): a clear refusal, exit 1" one_cpu "$cal" --validate
t_ok "... and calibrate.sh refuses too, with nothing created" sh -c "
	taskset -c 0 '$script' -o '$T_TMP/one' --id x >/dev/null 2>&1; [ \$? = 1 ] && [ ! -e '$T_TMP/one' ]"
t_ok "--cpus may name an online CPU outside the affinity (as the guest's isolated vCPU is)" \
	t_expect_code 0 taskset -c 0 "$cal" --validate --cpus 1,0
t_ok "--cpus naming one CPU is refused: the calibration needs two" t_refuses "'0' names 1 CPU" "$cal" --validate --cpus 0
t_ok "--cpus naming the same CPU twice is refused" t_refuses "two different CPUs" "$cal" --validate --cpus 1,1
nope=$(getconf _NPROCESSORS_CONF)
t_ok "--cpus naming a CPU that does not exist is refused, named" t_refuses "CPU $nope does not exist" "$cal" --validate --cpus "0,$nope"
t_ok "make calibrate CAL_CPUS=<no such CPU> exits 2" t_expect_code 2 make -s -C "$T_ROOT" calibrate CAL_CPUS="$nope,0"
t_ok "a plan over the split-lock budget is refused before anything runs" \
	t_refuses "more than --max-split-s 2" "$cal" --validate --reps 6 --duration 1 --max-split-s 2
# 1 point x 4 reps x 0.01 s and 4 ms of issuer, but 2 probes x 4 reps x 1 s under the split load
small=(--validate --cpus 1,0 --sizes 16K --reps 4 --duration 0.01 --issuer-ms 1 --forms add32 --max-split-s 2)
t_ok "the wake-up probes' split-load seconds count in the plan: 8 s of them are refused" \
	t_refuses "plan holds 8.1 s of split locks, more than --max-split-s 2" "$cal" "${small[@]}" --wakeup-duration 1
t_ok "... and without the probes the same plan passes" t_expect_code 0 "$cal" "${small[@]}" --wakeup-duration 1 --wakeup none
t_ok "the plan names the wake-up probes" sh -c "
	'$cal' ${small[*]} 2>&1 | grep -q 'wake-up 2 probes x 3 loads x 4 reps x 0.01 s every 1000 us'"

# A fake sysfs: L1d 32 KiB (and an L1i, left out), L2 256 KiB, L3 1 MiB.
sys=$T_TMP/sys
i=0
for c in "1 Data 32K" "1 Instruction 32K" "2 Unified 256K" "3 Unified 1024K"; do
	d=$sys/devices/system/cpu/cpu1/cache/index$i
	mkdir -p "$d"
	set -- $c
	echo "$1" >"$d/level"; echo "$2" >"$d/type"; echo "$3" >"$d/size"; echo 1 >"$d/shared_cpu_list"
	i=$((i + 1))
done
t_ok "auto sizes from the caches: 4 KiB x4 up to twice the last-level cache" sh -c "
	'$cal' --validate --cpus 1,0 --sysfs '$sys' 2>&1 | grep -q 'arith + 6 working sets (4 KiB to 4 MiB)'"

# End to end, tiny: 4 points x 4 reps x 20 ms under a load of 2000 ops/s,
# 3 split forms x 4 reps x 2 ms for the issuer, 2 wake-up probes x 4 reps
# x 50 ms every 1 ms.
res=$T_TMP/results
run=$res/c1
args=(--cpus 1,0 --sysfs "$sys" --sizes 16K,128K,2M --reps 4 --duration 0.02 --issuer-ms 2
	--forms add32,xchg64,cmpxchg8b,cmpxchg16b --load-rate 2000 --wakeup-duration 0.05 --max-split-s 1 -o "$res")
"$script" "${args[@]}" --id c1 >"$T_TMP/c1.out" 2>"$T_TMP/c1.err"
rc=$?
t_ok "calibrate.sh completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/c1.err'; exit 1; }"
t_ok "the run directory holds the JSON, table, machine facts, log, data and plots" sh -c "cd '$run' &&
	ls calibration.json calibration.txt machine.json progress.log victim.dat slowdown.dat \
	victim.png victim.svg slowdown.png slowdown.svg wakeup.dat wakeup.png wakeup.svg >/dev/null"
t_ok "no .incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"
t_ok "progress went to the terminal, named per point" grep -q '\[4/4\] chase 2 MiB in DRAM' "$T_TMP/c1.err"
t_ok "the table is printed at the end" grep -q '^Victim: ns per step on CPU 1 under a load on CPU 0' "$T_TMP/c1.out"
j=$run/calibration.json
t_ok "calibration.json: tool, schema and every section" jq -e '.tool == "slb-calibrate" and .schema == 1 and
	([keys[]] | contains(["machine", "params", "split_lock_s", "issuer", "victim", "levels", "wakeup", "notes"]))' "$j"
t_ok "params echo the plan" jq -e '.params | .victim_cpu == 1 and .load_cpu == 0 and .reps == 4 and
	.duration_s == 0.02 and .load_rate == 2000 and .sizes == [16384, 131072, 2097152] and .load_form == "add32"' "$j"
t_ok "reps interleaved: each runs none, aligned and split, the order rotated by one per rep" jq -e '.params.load_order ==
	[["none", "aligned", "split"], ["aligned", "split", "none"], ["split", "none", "aligned"], ["none", "aligned", "split"]]' "$j"
t_ok "the plan held under a second of split locks" jq -e '.split_lock_s.planned <= 1 and .split_lock_s.total > 0' "$j"
t_ok "issuer: the forms asked for, each with 4 reps of aligned ns per op > 0" jq -e '
	[.issuer[].form] == ["add32", "xchg64", "cmpxchg8b", "cmpxchg16b"] and
	all(.issuer[]; .aligned.ns_per_op > 0 and (.aligned.reps | length) == 4 and all(.aligned.reps[]; . > 0))' "$j"
t_ok "issuer: a split LOCK costs more than twice an aligned one, with an interval, every form that splits" jq -e '
	[.issuer[] | select(.split != null)] | length == 3 and
	all(.[]; .split.ns_per_op > 2 * .aligned.ns_per_op and .split_over_aligned.ratio > 2 and
	    (.split_over_aligned.ci95 | length) == 2)' "$j"
t_ok "issuer: cmpxchg16b has no split form, and says why" jq -e '
	.issuer[3] | .split == null and .split_over_aligned == null and (.note | test("#GP"))' "$j"
t_ok "victim: arith and the three sets, levels from the caches" jq -e '
	[.victim[] | [.task, .bytes, .level]] == [["arith", null, "-"], ["chase", 16384, "L1"], ["chase", 131072, "L2"], ["chase", 2097152, "DRAM"]]' "$j"
t_ok "victim: ns per step > 0 in 4 reps under each load" jq -e '
	all(.victim[]; all(.none, .aligned, .split; .ns_per_step > 0 and (.reps | length) == 4 and all(.reps[]; . > 0)))' "$j"
t_ok "victim: ratios with 95 % intervals around them (4 vs 4 reps)" jq -e '
	all(.victim[]; all(.aligned_over_none, .split_over_aligned, .split_over_none;
	    .ratio > 0 and .ci95[0] <= .ratio and .ratio <= .ci95[1]))' "$j"
t_ok "victim: the load kept its rate limit (2000 ops/s)" jq -e '
	all(.victim[]; .load_ops_per_s.split > 0 and .load_ops_per_s.split < 3000 and .load_ops_per_s.aligned < 3000)' "$j"
t_ok "levels: arith, L1, L2 and DRAM (no set fell in L3)" jq -e '[.levels[].level] == ["arith", "L1", "L2", "DRAM"]' "$j"
t_ok "wake-up: both probes, timer and futex, every 1000 us for 0.05 s" jq -e '
	.wakeup.interval_us == 1000 and .wakeup.duration_s == 0.05 and [.wakeup.probes[].probe] == ["timer", "futex"]' "$j"
if [ "$(id -u)" = 0 ]; then
	t_ok "wake-up: as root the probes ran SCHED_FIFO 95, memory locked" jq -e '
		.wakeup.sched == "SCHED_FIFO 95" and .wakeup.mlocked == true' "$j"
else
	t_ok "wake-up: not root, the probes ran SCHED_OTHER, and a note says so" jq -e '
		.wakeup.sched == "SCHED_OTHER" and any(.notes[]; test("SCHED_OTHER"))' "$j"
fi
t_ok "wake-up: p50, p99 and max ns late in 4 reps under each load, p50 <= p99 <= max in each rep" jq -e '
	all(.wakeup.probes[]; all(.none, .aligned, .split; .wakeups >= 10 and .wakeups <= 51 and
	    all(.p50, .p99, .max; .ns > 0 and (.reps | length) == 4) and
	    ([.p50.reps, .p99.reps, .max.reps] | transpose | all(.[]; .[0] <= .[1] and .[1] <= .[2]))))' "$j"
t_ok "wake-up: the three ratios per statistic with 95 % intervals around them" jq -e '
	all(.wakeup.probes[]; all(.aligned_over_none, .split_over_aligned, .split_over_none; all(.p50, .p99, .max;
	    .ratio > 0 and .ci95[0] <= .ratio and .ratio <= .ci95[1])))' "$j"
t_ok "wake-up: the load kept its rate limit, no waiter timed out" jq -e '
	all(.wakeup.probes[]; .load_ops_per_s.split > 0 and .load_ops_per_s.split < 3000 and .timeouts == 0)' "$j"
t_ok "wake-up: its split-load seconds are counted" jq -e '.split_lock_s.wakeup > 0.1 and
	(.split_lock_s.total - (.split_lock_s.victim + .split_lock_s.issuer + .split_lock_s.wakeup) | fabs) < 0.001' "$j"
t_ok "wake-up: calibration.jq reads it (cal_wakeup_check, 6 rows beside itself)" sh -c "
	jq -e -L '$T_ROOT/bench/lib' 'include \"calibration\"; cal_check | cal_wakeup_check | [cal_wakeup_rows(.)] | length == 6' '$j'"
t_ok "wake-up: the table shows a row per probe and statistic" sh -c "
	grep -q '^Wake-up: ns late, a SCHED_[A-Z]* .*thread on CPU 1 woken every 1000 us' '$run/calibration.txt' &&
	[ \$(grep -cE '^(timer|futex) +(p50|p99|max) ' '$run/calibration.txt') = 6 ]"
t_ok "wakeup.dat: a block of 3 loads per probe and statistic" sh -c "[ \$(grep -cE '^(timer|futex) (p50|p99|max) (none|aligned|split) [012] ' '$run/wakeup.dat') = 18 ]"
t_ok "the wake-up plot is a PNG and an SVG" sh -c "head -c 4 '$run/wakeup.png' | grep -q PNG && grep -q '</svg>' '$run/wakeup.svg'"
m=$run/machine.json
model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
if grep -qw hypervisor /proc/cpuinfo; then vm=true; else vm=false; fi
t_ok "machine.json: CPU model, kernel, /proc/cmdline" jq -e --arg model "$model" --arg k "$(uname -r)" \
	--arg cmdline "$(cat /proc/cmdline)" '.cpu_model == $model and .kernel == $k and .cmdline == $cmdline' "$m"
t_ok "machine.json: the caches it used" jq -e '[.caches[] | [.level, .bytes]] == [[1, 32768], [2, 262144], [3, 1048576]]' "$m"
t_ok "machine.json: a VM is recorded as one (hypervisor flag: $vm)" jq -e --argjson vm "$vm" '
	.hypervisor == $vm and .vm == $vm and (.note | test("virtual machine") == $vm)' "$m"
t_ok "victim.dat: a header and a row per set" t_line_count 4 "$run/victim.dat"
t_ok "the victim plot is a PNG" t_is_png "$run/victim.png" 5000
t_ok "... and an SVG" t_is_svg "$run/victim.svg"
t_ok "the slowdown plot is a PNG and an SVG" sh -c "head -c 4 '$run/slowdown.png' | grep -q PNG && grep -q '</svg>' '$run/slowdown.svg'"
t_ok "an existing run id is refused, named" t_refuses "'c1' exists" "$script" "${args[@]}" --id c1

# --wakeup none: no probe, "wakeup": null, no plot, and the readers take it.
"$script" --cpus 1,0 --sysfs "$sys" --sizes 16K --reps 2 --duration 0.01 --issuer-ms 1 --forms add32 --load-rate 2000 \
	--wakeup none --max-split-s 1 -o "$res" --id c3 >"$T_TMP/c3.out" 2>"$T_TMP/c3.err"
rc=$?
t_ok "--wakeup none: completes, \"wakeup\": null, no wake-up split locks, no wake-up table or plot" sh -c "[ $rc = 0 ] &&
	jq -e '.wakeup == null and .split_lock_s.wakeup == 0' '$res/c3/calibration.json' &&
	! grep -q '^Wake-up' '$res/c3/calibration.txt' && [ ! -e '$res/c3/wakeup.png' ] && [ ! -e '$res/c3/wakeup.dat' ]"

# Ctrl-C in the middle: nothing kept, the tool ended.
code=$(t_interrupt "$T_TMP/c2.out" "issuer rep 4/4" 0.3 "$script" --cpus 1,0 --sizes 16K --reps 4 --duration 0.5 \
	--issuer-ms 1 --forms add32 --load-rate 500 --wakeup none --max-split-s 5 -o "$res" --id c2)
t_ok "Ctrl-C: exit 130" sh -c "[ '$code' = 130 ] || { echo 'exit $code'; tail -5 '$T_TMP/c2.out'; exit 1; }"
t_ok "Ctrl-C: neither the run nor its .incomplete directory is left" sh -c "[ ! -e '$res/c2' ] && [ ! -e '$res/.incomplete-c2' ]"
# (its command line names the run's .incomplete directory, and nothing else's does)
tool_gone() { sleep 0.2; ! pgrep -f "json-out $res/.incomplete-c2" >/dev/null; }
t_ok "Ctrl-C: the tool is gone" tool_gone
