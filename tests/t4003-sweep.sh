#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The split-lock cost sweep end to end on tiny grids (2 costs, 1 rep of
# 3 s), under both bus-lock models. The calibrated model (the default) is
# swept as its calibration scaled to each cost ("cal": the calibration's
# own): the sub-studies' manifests and reports, the table, JSON, report
# and plot name the model and the scaled hold (1000 ns: 123 ns of the
# calibration's 7034 per 57283), and the guest got those figures. The
# all-stall model: the aligned control runs once, split-off once per cost,
# and a larger cost hurts more (1000 against 3000 ns: with a debt cap of
# one quantum, patch/qemu 0004's first version, 3000 came out below 1000).
# The Slurm runner passes the scaled cost to its tasks (study.args; a stub
# sbatch, no guest).
. "$(dirname "$0")/lib.sh"
t_require_guest "sweep tests"
res=$T_TMP/results

# The calibrated sweep: 1000 ns (scaled) and the calibration's own cost
# (xeon-trap's, whose figures are checked).
"$T_ROOT/bench/experiment/sweep.sh" --calibration xeon-trap --costs "cal,1000" --duration 3 --reps 1 --results "$res" --id c >"$T_TMP/c.out" 2>&1
rc=$?
sw=$res/c
t_ok "the calibrated sweep completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/c.out'; exit 1; }"
t_ok "progress names the scaled hold" grep -q '\[2/3\] split-off at a bus-lock cost of 1000 ns (calibrated, scaled: hold 123 ns)' "$T_TMP/c.out"
t_ok "... and the calibrated point" grep -q '\[3/3\] split-off at a bus-lock cost of 57283 ns (calibrated: hold 7034 ns)' "$T_TMP/c.out"
t_ok "the 1000 ns study's manifest: calibrated, scaled to 1000 ns, hold 123 ns" \
	jq -e '.params | .bus_lock_model == "calibrated" and .bus_lock_ns == 1000 and .bus_hold_ns == 123
		and .calibrated_cost_ns == 57283 and .calibrated_hold_ns == 7034 and .bus_cache_kb == 48' "$sw/ns1000/manifest.json"
t_ok "the calibrated point's manifest: the calibration itself, not scaled" \
	jq -e '.params | .bus_lock_model == "calibrated" and .bus_lock_ns == 57283 and .bus_hold_ns == 7034
		and (has("calibrated_cost_ns") | not)' "$sw/ns57283/manifest.json"
ran_cpu() { # ran_cpu QEMU-CMD PROPS: the guest's -cpu had PROPS (qemu-cmd escapes its commas)
	tr -d '\\' <"$1" | grep -q -- "$2" || { echo "$1 lacks $2:"; tr ' ' '\n' <"$1" | grep -- bus-; return 1; }
}
t_ok "the guest ran the scaled model (-cpu bus-lock-ns=1000,bus-hold-ns=123)" \
	ran_cpu "$sw/ns1000/split-off/rep1/qemu-cmd" 'bus-lock-ns=1000,bus-hold-ns=123,bus-cache-kb=48,bus-cache-ways=12'
t_ok "the 1000 ns study's report says it is scaled" \
	grep -q 'bus-lock model calibrated, scaled to cost 1000 ns: hold 123 ns' "$sw/ns1000/report.md"
t_ok "sweep.dat names the model and has one row per cost, cost then hold" \
	sh -c "grep -q '^# model: calibrated (.*7034 ns), scaled to each cost' '$sw/sweep.dat' &&
		[ \"\$(grep -v '^#' '$sw/sweep.dat' | awk '{ print \$1 \":\" \$6 }' | tr '\n' ' ')\" = '1000:123 57283:7034 ' ]"
t_ok "sweep.json: the calibrated model, its figures, the hold per cost" \
	jq -e '.model.name == "calibrated" and .model.calibrated_cost_ns == 57283 and .model.calibrated_hold_ns == 7034
		and .model.cache_kb == 48 and ([.rows[] | [.bus_lock_ns, .bus_hold_ns, .calibrated_point]] == [[1000, 123, false], [57283, 7034, true]])' "$sw/sweep.json"
t_ok "the calibrated cost hurts more than 1000 ns (p99.9)" jq -e '.rows[1].split_p999_us > .rows[0].split_p999_us and .monotonic_p999' "$sw/sweep.json"
t_ok "the sweep's report names the model and marks the calibrated point" \
	sh -c "grep -q '^Bus-lock model: calibrated' '$sw/report.md' && grep -q '^| 1000 | 123 |' '$sw/report.md' &&
		grep -q '^| 57283 (calibrated) | 7034 |' '$sw/report.md' && grep -q 'Emulated' '$sw/report.md'"
t_ok "the plot names the model" grep -q 'calibrated model scaled to each cost' "$sw/sweep.svg"
t_ok "the plot is a PNG" t_is_png "$sw/sweep.png" 5000

# The all-stall sweep (BUS_LOCK_MODEL=all), today's worst case.
"$T_ROOT/bench/experiment/sweep.sh" --bus-lock-model all --costs "1000 3000" --duration 3 --reps 1 --results "$res" --id s >"$T_TMP/sweep.out" 2>&1
rc=$?
sw=$res/s
t_ok "the all-stall sweep completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/sweep.out'; exit 1; }"
t_ok "progress names each step" grep -q '\[3/3\] split-off at a bus-lock cost of 3000 ns (all-stall)' "$T_TMP/sweep.out"
t_ok "one aligned control and one study per cost" sh -c "[ -s '$sw/aligned/summary.json' ] && [ -s '$sw/ns1000/summary.json' ] && [ -s '$sw/ns3000/summary.json' ]"
t_ok "sweep.dat has the model, a header and one row per cost" t_line_count 4 "$sw/sweep.dat"
t_ok "sweep.json parses, in us, with both costs, the all-stall model" \
	jq -e '.unit == "us" and ([.rows[].bus_lock_ns] == [1000, 3000]) and .model.name == "all"' "$sw/sweep.json"
t_ok "the studies ran the all-stall model" jq -e '.params.bus_lock_model == "all" and .params.bus_lock_ns == 3000' "$sw/ns3000/manifest.json"
t_ok "3000 ns per bus lock hurts more than 1000 ns (p99.9)" jq -e '.rows[1].split_p999_us > .rows[0].split_p999_us and .monotonic_p999' "$sw/sweep.json"
t_ok "the aligned control is the same on every row" jq -e '[.rows[].aligned_p999_us] | unique | length == 1' "$sw/sweep.json"
t_ok "the plot is a PNG" t_is_png "$sw/sweep.png" 5000
t_ok "... and an SVG naming the all-stall model" sh -c "t_is_svg() { grep -q '<svg' \"\$1\" && grep -q '</svg>' \"\$1\"; }; t_is_svg '$sw/sweep.svg' && grep -q 'all-stall model' '$sw/sweep.svg'"
t_ok "no incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"

# The Slurm runner's tasks call the study with the options it saves
# (study_args, study.args): they carry the cost the calibration is
# scaled to. A stub sbatch keeps study.args and refuses the job (no guest
# starts; the study stops with exit 1 and keeps nothing).
mkdir -p "$T_TMP/slurmbin"
cat >"$T_TMP/slurmbin/sbatch" <<STUB
#!/bin/sh
for a; do d=\$a; done
cp "\$d/study.args" "$T_TMP/study.args"
echo "stub sbatch: not submitted"
STUB
for c in squeue scancel scontrol; do printf '#!/bin/sh\nexit 1\n' >"$T_TMP/slurmbin/$c"; done
chmod +x "$T_TMP"/slurmbin/*
PATH=$T_TMP/slurmbin:$PATH "$T_ROOT/bench/study.sh" --runner slurm --calibration xeon-trap --scenarios split-off --bus-lock-ns 1000 --duration 3 --reps 1 \
	--results "$res" --id sl >"$T_TMP/sl.out" 2>&1
slurm_args() {
	local a
	a=$(tr '\n' ' ' <"$T_TMP/study.args" 2>/dev/null)
	case $a in *"--bus-lock-model calibrated "*"--calibration $T_ROOT/results/example-calibrate-"*"/calibration.json --bus-lock-ns 1000 "*) return 0 ;; esac
	echo "study.args: '$a'"; tail -3 "$T_TMP/sl.out"; return 1
}
t_ok "the Slurm tasks' options carry the scaled calibration (study.args: --calibration, --bus-lock-ns 1000)" slurm_args
t_ok "... the stub's refusal kept nothing" sh -c "grep -q 'sbatch refused the job array' '$T_TMP/sl.out' && ! ls -d '$res'/.incomplete-* '$res/sl' 2>/dev/null"
