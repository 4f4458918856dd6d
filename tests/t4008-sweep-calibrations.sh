#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sweep of the committed calibrations, each at its own cost, hold and
# shield (issue 33: no platform's hold share scaled to costs it was not
# measured at), end to end on a tiny grid (1 rep of 3 s): the default
# make bench-sweep sweeps amd-epyc-kvm (1008 ns, hold 928, 32 KiB shield)
# and xeon-trap (57283 ns, hold 7034, 48 KiB); each study ran its
# calibration unscaled, and the table, JSON, report and plot name them.
# The offender runs at 1000 ops per second (--load-rate, passed to each
# study and named in the report): a flat-out aligned control costs x5 the
# host time, and no check here reads a latency.
. "$(dirname "$0")/lib.sh"
t_require_guest "calibrations sweep tests"
res=$T_TMP/results

"$T_ROOT/bench/experiment/sweep.sh" --load-rate 1000 --duration 3 --reps 1 --results "$res" --id s >"$T_TMP/s.out" 2>&1
rc=$?
sw=$res/s
t_ok "the default sweep completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/s.out'; exit 1; }"
t_ok "progress names each calibration, its hold and shield" sh -c "
	grep -q '\[2/3\] split-off at a bus-lock cost of 1008 ns (calibration amd-epyc-kvm: hold 928 ns, a 32 KiB shield)' '$T_TMP/s.out' &&
	grep -q '\[3/3\] split-off at a bus-lock cost of 57283 ns (calibration xeon-trap: hold 7034 ns, a 48 KiB shield)' '$T_TMP/s.out'"
t_ok "amd-epyc-kvm's study: its own cost, hold and shield, not scaled" \
	jq -e '.params | .bus_lock_model == "calibrated" and .bus_lock_ns == 1008 and .bus_hold_ns == 928
		and .bus_cache_kb == 32 and (has("calibrated_cost_ns") | not)
		and (.calibration | test("example-calibrate-amd-epyc-kvm-"))' "$sw/cal-amd-epyc-kvm/manifest.json"
t_ok "xeon-trap's study: its own" \
	jq -e '.params | .bus_lock_ns == 57283 and .bus_hold_ns == 7034 and .bus_cache_kb == 48
		and (has("calibrated_cost_ns") | not)' "$sw/cal-xeon-trap/manifest.json"
t_ok "sweep.json: the calibrations model, a row per calibration by cost" jq -e '
	.model.name == "calibrations" and ([.model.calibrations[].name] == ["amd-epyc-kvm", "xeon-trap"])
	and ([.rows[] | [.bus_lock_ns, .bus_hold_ns, .calibration]] == [[1008, 928, "amd-epyc-kvm"], [57283, 7034, "xeon-trap"]])' \
	"$sw/sweep.json"
t_ok "sweep.dat: a row per calibration, labelled" sh -c "
	grep -q '^1008 .* 928 amd-epyc-kvm$' '$sw/sweep.dat' && grep -q '^57283 .* 7034 xeon-trap$' '$sw/sweep.dat'"
t_ok "the report says none is scaled and names each row's calibration" sh -c "
	grep -q '^Bus-lock model: calibrated, each calibration at its own cost, hold and shield, none scaled' '$sw/report.md' &&
	grep -q '^| 1008 (amd-epyc-kvm) | 928 |' '$sw/report.md' && grep -q '^| 57283 (xeon-trap) | 7034 |' '$sw/report.md'"
t_ok "--load-rate reaches every study and is named in sweep.json and the report" sh -c "
	jq -s -e 'length == 3 and all(.[]; .params.load_rate == 1000)' '$sw/aligned/manifest.json' '$sw/cal-amd-epyc-kvm/manifest.json' '$sw/cal-xeon-trap/manifest.json' >/dev/null &&
	jq -e '.load_rate == 1000' '$sw/sweep.json' >/dev/null && grep -q 'against its aligned control, both at 1000 ops per second per thread,' '$sw/report.md'"
t_ok "the plot is a PNG" t_is_png "$sw/sweep.png" 5000
t_ok "... and an SVG naming the calibrations" sh -c "grep -q 'amd-epyc-kvm' '$sw/sweep.svg' && grep -q 'xeon-trap' '$sw/sweep.svg'"
t_ok "no incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"
