#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A guest that panics in one scenario is recorded as such and the matrix
# goes on: the other scenario's results, the summary and the report are
# still produced.
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up): what
# is checked is the recorded panic and the matrix going on, which no figure of the
# calibrated model changes, and a calibrated guest costs x1.7 the host time.
export SLB_BUS_LOCK_MODEL=all
t_require_guest "failing-guest study test"
t_failing_scenarios "$T_TMP/scenarios.conf"
SLB_SCENARIO_FILE=$T_TMP/scenarios.conf "$T_ROOT/bench/study.sh" --scenarios broken,baseline \
	--duration 3 --reps 1 --results "$T_TMP/res" --id f >"$T_TMP/out" 2>&1
rc=$?
run=$T_TMP/res/f
t_ok "the study completes (exit 0) although one guest panicked" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/out'; exit 1; }"
t_ok "progress reports the failed run, with why, and goes on" grep -q "broken rep 1: guest run ended 'panic': Kernel panic - not syncing.* (recorded; the matrix goes on)" "$T_TMP/out"
t_ok "the panic is recorded in rep.info" grep -qx 'outcome=panic' "$run/broken/rep1/rep.info"
t_ok "the summary counts it: broken 0 of 1 reps ok" jq -e '.scenarios[] | select(.name == "broken") | .reps_ok == 0 and .reps_total == 1' "$run/summary.json"
t_ok "the other scenario still ran" jq -e '.scenarios[] | select(.name == "baseline") | .reps_ok == 1' "$run/summary.json"
t_ok "the report was still written" grep -q '^| baseline | 1/1 |' "$run/report.md"
