#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-study (bench/experiment/validate-study.sh): bad input refused before
# anything starts (a plan with more native split-lock seconds than
# --max-split-s among it); the guest's isolation read from the native
# facts (simulated); model / native computed right from known inputs (two
# synthetic studies, tests/fake-run.sh: every latency one value, so each
# ratio is exact), with and without enough reps for an interval; and the
# emulated side for real but short (2 scenarios x 1 rep of 3 s) against a
# synthetic native study on a machine without isolation: a guest with a
# plain command line, measuring its last vCPU, the load on the other. No
# native split lock is taken here (the native side is synthetic).
. "$(dirname "$0")/lib.sh"
VS=$T_ROOT/bench/experiment/validate-study.sh
FAKE=$T_ROOT/tests/fake-run.sh
res=$T_TMP/results

# The command line a guest gets for each isolation (guest-cmdline.sh).
gc() { "$T_ROOT/rt-config/guest-cmdline.sh" "$@"; }
t_ok "guest command line: all is the default, as before" sh -c "[ \"\$('$T_ROOT/rt-config/guest-cmdline.sh' 2)\" = \"\$('$T_ROOT/rt-config/guest-cmdline.sh' 2 1 all)\" ] &&
	'$T_ROOT/rt-config/guest-cmdline.sh' 2 | grep -q 'isolcpus=nohz,domain,managed_irq,1 nohz_full=1 rcu_nocbs=1 irqaffinity=0\$'"
t_ok "... none: no isolation at all" sh -c "[ \"\$('$T_ROOT/rt-config/guest-cmdline.sh' 2 1 none)\" = 'console=ttyS0 panic=-1 tsc=reliable idle=halt retain_initrd' ]"
t_ok "... some: those only, for the last vCPUs" sh -c "'$T_ROOT/rt-config/guest-cmdline.sh' 4 2 nohz_full+rcu_nocbs | grep -q 'retain_initrd nohz_full=2-3 rcu_nocbs=2-3\$'"
t_ok "... isolcpus without nohz_full: no nohz flag (it would stop the tick)" sh -c "'$T_ROOT/rt-config/guest-cmdline.sh' 2 1 isolcpus | grep -q 'retain_initrd isolcpus=domain,managed_irq,1\$' &&
	'$T_ROOT/rt-config/guest-cmdline.sh' 2 1 isolcpus+nohz_full | grep -q 'retain_initrd isolcpus=nohz,domain,managed_irq,1 nohz_full=1\$'"
t_ok "... a word that is no isolation option: exit 2" t_expect_code 2 gc 2 1 isolcpus+nohz

# Synthetic studies: "native" (a native run: target.txt, manifest.json)
# and "model", every latency one value (exponential scale 0).
fake_native() { # fake_native DIR FACTS-LINE... (after the defaults: the last wins)
	"$FAKE" "$1" baseline:10:0:"$reps":none aligned:10:0:"$reps":completed split-off:100:0:"$reps":completed >/dev/null
	printf '%s\n' hostname=fakehost 'cpu_model=Fake CPU' kernel_release=6.0-fake preempt_rt=no cpus_online_list=0-1 \
		cpus_isolated= nohz_full= 'cmdline=console=ttyS0' flag_hypervisor=no measure_cpu=1 load_cpus=0 sld_mode=off "${@:2}" >"$1/target.txt"
	echo '{"params": {"duration_s": 3, "reps": 4, "interval_us": 1000, "warmup_s": 1, "load_rate": 2000}}' >"$1/manifest.json"
}
fake_model() {
	"$FAKE" "$1" baseline:5:0:"$reps":none aligned:5:0:"$reps":completed split-off:20:0:"$reps":completed >/dev/null
	echo '{"params": {"duration_s": 3, "reps": 4, "interval_us": 1000, "warmup_s": 1, "load_rate": 2000, "vcpus": 2,
		"bus_lock_ns": 1008, "bus_hold_ns": 928, "bus_cache_kb": 32, "bus_cache_ways": 8, "quantum_ns": 10000,
		"clock": "virtual", "calibration": "fake/calibration.json"}}' >"$1/manifest.json"
}
reps=4
fake_native "$T_TMP/nat"
fake_model "$T_TMP/mod"

# Bad input: exit 2, one line naming the value, nothing started.
refuses() { local w=$1; shift; t_refuses "$w" "$VS" --results "$res" "$@"; }
t_ok "--help: exit 0, the options" sh -c "'$VS' --help | grep -q -- '--max-split-s S'"
t_ok "--reps 0" refuses "--reps=0 is out of range (allowed: 1 to 100)" --validate --reps 0
t_ok "--duration 2 (the guest needs 3)" refuses "--duration=2 is out of range (allowed: 3 to 3600)" --validate --duration 2
t_ok "--load-rate x" refuses "--load-rate 'x' is not a whole number" --validate --load-rate x
t_ok "--max-split-s 0" refuses "--max-split-s=0 is out of range (allowed: 1 to 3600)" --validate --max-split-s 0
t_ok "an unknown scenario" refuses "--scenarios: unknown scenario 'nosuch'" --validate --scenarios baseline,nosuch
t_ok "an isolation word that is none" refuses "--isolation 'nohz_full+bogus': 'bogus' is not allowed" --validate --isolation nohz_full+bogus
t_ok "a plan over --max-split-s: refused, saying how many seconds and where" refuses \
	"the plan holds 43.0 s of native split locks (split-off: 10 reps x 4.3 s each), more than --max-split-s 40" \
	--validate --reps 10 --duration 3 --max-split-s 40
t_ok "... the split-lock seconds count the split-lock scenarios only" refuses "the plan holds 86.0 s of native split locks (split-off lockbus-off: 10 reps" \
	--validate --scenarios baseline,aligned,split-off,lockbus-off --reps 10 --duration 3 --max-split-s 80
t_ok "--native-run that is no study" refuses "--native-run '$T_TMP' is not a study run directory" --native-run "$T_TMP" --model-run "$T_TMP/mod"
t_ok "--native-run that is an emulated study" refuses "--native-run '$T_TMP/mod' is not a native study (no target.txt" --native-run "$T_TMP/mod" --model-run "$T_TMP/mod"
t_ok "--model-run that is a native study" refuses "--model-run '$T_TMP/nat' is a native study" --native-run "$T_TMP/nat" --model-run "$T_TMP/nat"
t_ok "a scenario the run given lacks" refuses "--native-run '$T_TMP/nat' has no scenario 'split-warn'" --native-run "$T_TMP/nat" --model-run "$T_TMP/mod" --scenarios baseline,split-warn
t_ok "a duration other than the native run's" refuses "--duration 5 differs from the --native-run study's 3" --native-run "$T_TMP/nat" --model-run "$T_TMP/mod" --duration 5
t_ok "a calibration that is none" refuses "CALIBRATION" --validate --native-run "$T_TMP/nat" --calibration "$T_TMP/nat/manifest.json"
t_ok "--native-run: its reps and duration are the guest study's (the plan)" sh -c "
	'$VS' --validate --native-run '$T_TMP/nat' --results '$res' 2>&1 | grep -q 'native: the study given .*; model: .* 3 scenarios x 4 reps x 3 s of virtual time'"
t_ok "nothing was started by the refused runs" sh -c "! ls -d '$res'/* '$res'/.incomplete-* 2>/dev/null"

# The plan: the native split-lock seconds and the guest's isolation, from
# the native facts (SLB_TARGET_FACTS stands in for this machine's; the
# native study checks its own arguments, which needs root).
if [ "$(id -u)" = 0 ]; then
	# plan FACT...: the plan with those facts, in $T_TMP/plan
	plan() {
		printf '%s\n' "$@" >"$T_TMP/facts"
		SLB_TARGET_FACTS=$T_TMP/facts "$VS" --validate --reps 2 --duration 3 ${iso:+--isolation "$iso"} --results "$res" >"$T_TMP/plan" 2>&1
	}
	said() { grep -q -- "$1" "$T_TMP/plan" || { echo "wanted: $1"; cat "$T_TMP/plan"; return 1; }; }
	iso=
	plan cpus_online_list=0-1 cpus_isolated= nohz_full= 'cmdline=console=ttyS0 quiet'
	t_ok "plan: split locks in split-off only, 2 reps x 4.3 s (3 s, the warm-up, 0.3 s)" said 'split locks in split-off: 1 x 2 reps x 4.3 s = 8.6 s (cap --max-split-s 120)'
	t_ok "... no isolation natively: a plain guest" said 'guest isolation none (native: none)'
	plan cpus_online_list=0-3 cpus_isolated=2-3 nohz_full=3 'cmdline=quiet isolcpus=domain,2-3 nohz_full=3 rcu_nocbs=1-3 irqaffinity=0-1'
	t_ok "... isolcpus, nohz_full, rcu_nocbs and irqaffinity of CPU 3: the guest has them all (its default), and 4 vCPUs" \
		said 'model: 4 vCPUs, .*guest isolation all (native: isolcpus+nohz_full+rcu_nocbs+irqaffinity)'
	plan cpus_online_list=0-1 cpus_isolated= nohz_full=1 'cmdline=nohz_full=1'
	t_ok "... nohz_full alone: that alone" said 'guest isolation nohz_full (native: nohz_full)'
	iso=none
	plan cpus_online_list=0-1 cpus_isolated= nohz_full=1 'cmdline=nohz_full=1'
	t_ok "... --isolation overrides it" said 'guest isolation none (native: nohz_full)'
else
	t_skip "the plan's split-lock seconds and isolation" "the native study's own check needs root"
fi

# Known inputs: native 10, 10, 100 us, model 5, 5, 20 at every quantile.
"$VS" --native-run "$T_TMP/nat" --model-run "$T_TMP/mod" --results "$res" --id k >"$T_TMP/k.out" 2>&1
rc=$?
k=$res/k
t_ok "two studies given: done (exit 0), the run renamed into place" sh -c "[ $rc = 0 ] && [ -d '$k' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null || { tail -20 '$T_TMP/k.out'; exit 1; }"
t_ok "... its files, and links to the two studies" sh -c "for f in validation.json validation.txt validation.md ratios.dat ratios.png ratios.svg native.stats.json model.stats.json native.facts model-scenarios.conf; do
	[ -s '$k'/\$f ] || { echo \"missing \$f\"; exit 1; }; done; [ -L '$k/native' ] && [ -L '$k/model' ] && [ -f '$k/native/scenarios.list' ]"
shape() {
	jq -e '.tool == "validate-study" and .schema == 1 and .quantiles == ["p50", "p99", "p99.9"] and
		([.scenarios[].name] == ["baseline", "aligned", "split-off"]) and
		([.comparisons[].name] == ["aligned / baseline", "split-off / aligned", "split-off / baseline"]) and
		([.scenarios[].quantiles | keys] | unique == [["p50", "p99", "p99.9"]]) and
		([.comparisons[].quantiles[] | (.native | has("ratio") and has("ci95")) and (.model | has("ratio")) and (.model_over_native | has("ratio") and has("bounds"))] | all) and
		.native.hostname == "fakehost" and .native.isolation == "none" and .model.isolation == "none" and .model.bus_lock_ns == 1008' "$k/validation.json"
}
t_ok "validation.json: its shape (scenarios and comparisons in order, three quantiles each)" shape
sc() { jq -e --arg s "$1" ".scenarios[] | select(.name == \$s) | [.quantiles[] | $2] | all" "$k/validation.json"; }
cmp_() { jq -e --arg s "$1" ".comparisons[] | select(.name == \$s) | [.quantiles[] | $2] | all" "$k/validation.json"; }
t_ok "baseline: native 10 us, model 5: model/native x0.5, its interval [0.5, 0.5] (4 reps a side)" \
	sc baseline '.native.median_us == 10 and .model.median_us == 5 and .model_over_native.ratio == 0.5 and .model_over_native.ci95 == [0.5, 0.5]'
t_ok "split-off: 100 us against 20: x0.2" sc split-off '.model_over_native.ratio == 0.2 and .native.values_us == [100, 100, 100, 100]'
t_ok "split-off / aligned: native x10, model x4, model/native x0.4 within bounds [0.4, 0.4]" \
	cmp_ "split-off / aligned" '.native.ratio == 10 and .native.ci95 == [10, 10] and .model.ratio == 4 and .model_over_native.ratio == 0.4 and .model_over_native.bounds == [0.4, 0.4]'
t_ok "split-off / baseline: x0.4 as well; aligned / baseline x1" sh -c "$(declare -f cmp_); k='$k'; cmp_ 'split-off / baseline' '.model_over_native.ratio == 0.4' && cmp_ 'aligned / baseline' '.native.ratio == 1 and .model_over_native.ratio == 1'"
t_ok "the text table: a row per scenario and quantile, then per comparison" sh -c "
	grep -Eq '^split-off +p99\.9 +100 +20 +x0\.2 \[0\.2-0\.2\]\$' '$k/validation.txt' &&
	grep -Eq '^split-off / aligned +p50 +x10 \[10-10\] +x4 \[4-4\] +x0\.4 \[0\.4-0\.4\]\$' '$k/validation.txt' &&
	[ \$(grep -Ec '^(baseline|aligned|split-off) +p' '$k/validation.txt') = 9 ] && [ \$(grep -Ec ' / .* +p[0-9.]+ +x' '$k/validation.txt') = 9 ]"
t_ok "the Markdown table: the same rows" sh -c "grep -qx '| split-off | p50 | 100 | 20 | x0.2 \[0.2-0.2\] |' '$k/validation.md' &&
	grep -qx '| split-off / baseline | p99 | x10 \[10-10\] | x4 \[4-4\] | x0.4 \[0.4-0.4\] |' '$k/validation.md'"
t_ok "the plot's data: a row each, the ratios at p50, p99, p99.9 with their intervals" sh -c "
	[ \$(wc -l <'$k/ratios.dat') = 6 ] && grep -qx '2 \"split-off\" 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2' '$k/ratios.dat'"

# Too few reps for an interval (3 a side): the estimate alone.
reps=3
fake_native "$T_TMP/nat3"
fake_model "$T_TMP/mod3"
"$VS" --native-run "$T_TMP/nat3" --model-run "$T_TMP/mod3" --results "$res" --id few >"$T_TMP/few.out" 2>&1
t_ok "3 reps a side: model/native x0.5 without an interval, and no bounds" sh -c "
	jq -e '(.scenarios[0].quantiles.p50.model_over_native | .ratio == 0.5 and .ci95 == null) and
		(.comparisons[1].quantiles.p99.model_over_native | .ratio == 0.4 and .bounds == null)' '$res/few/validation.json' &&
	grep -Eq '^baseline +p50 +10 +5 +x0\.5\$' '$res/few/validation.txt'" 

# The emulated side for real, against a synthetic native study of a
# machine without isolation: the guest's command line is plain, its job
# measures the last vCPU and loads the other.
t_require_guest "validate-study's emulated side"
reps=1
fake_native "$T_TMP/nat1"
"$VS" --native-run "$T_TMP/nat1" --scenarios baseline,split-off --reps 1 --results "$res" --id g >"$T_TMP/g.out" 2>&1
rc=$?
g=$res/g
t_ok "a real emulated study against a synthetic native one: done (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/g.out'; exit 1; }"
t_ok "... its study is kept, 1 rep of each scenario ok" jq -e '[.scenarios[] | .reps_ok] == [1, 1]' "$g/model/summary.json"
t_ok "... the guest study's scenario file gives them isolation=none" sh -c "
	grep -Eq '^split-off +\|.*\| isolation=none\$' '$g/model-scenarios.conf' && grep -Eq '^baseline +\|.*\| isolation=none\$' '$g/model-scenarios.conf'"
t_ok "... the guest's command line has no isolation" sh -c "c=\$(cat '$g/model/split-off/rep1/cmdline') || exit 1; case \$c in *isolcpus*|*nohz_full*|*rcu_nocbs*|*irqaffinity*) echo \"\$c\"; exit 1 ;; esac"
t_ok "... its job measured vCPU 1 and loaded vCPU 0" sh -c "grep -qx measured=1 '$g/model/split-off/rep1/files/facts.txt' && grep -qx housekeeping=0 '$g/model/split-off/rep1/files/facts.txt'"
t_ok "... and the kernel isolated nothing" grep -qx cpus_isolated= "$g/model/split-off/rep1/files/facts.txt"
ratio_right() { # 1 rep a side: model/native is the model's value over the native one
	local s q want got
	for s in baseline split-off; do
		for q in p50:co_p50_us p99:co_p99_us p99.9:co_p999_us; do
			want=$(jq -r --arg s "$s" --arg k "${q#*:}" '.scenarios[] | select(.name == $s) | .per_rep[0][$k] | if . < 1 then 1 else . end' "$g/model.stats.json")
			want=$(awk -v m="$want" -v n="$([ $s = baseline ] && echo 10 || echo 100)" 'BEGIN { printf "%.4f", m / n }')
			got=$(jq -r --arg s "$s" --arg q "${q%%:*}" '.scenarios[] | select(.name == $s) | .quantiles[$q].model_over_native.ratio' "$g/validation.json")
			awk -v a="$got" -v b="$want" 'BEGIN { exit !(a == b) }' || { echo "$s ${q%%:*}: $got, want $want"; return 1; }
		done
	done
}
t_ok "... model/native: the guest's per-rep quantiles over the native ones" ratio_right
t_ok "... and the comparison's: split-off / baseline of each side, one over the other" jq -e '
	.comparisons[] | select(.name == "split-off / baseline") | .quantiles.p99 |
	(.native.ratio == 10) and ((.model_over_native.ratio - .model.ratio / 10) | fabs < 0.001)' "$g/validation.json"
