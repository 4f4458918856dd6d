#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rtla timerlat as a second measurement (study.sh --measure, make bench
# MEASURE=): bad values refused with exit 2; rtla's histogram output
# (a committed sample, tests/data/) converted exactly into cyclictest's
# format by slb-timerlat, which slb-hist reads; a native target without
# rtla or the timerlat tracer skips with why; a short guest rep with
# MEASURE=timerlat leaves IRQ and thread histograms that the statistics,
# the summary and the report read.
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up): what
# is checked is timerlat's histograms and how they are read, which no figure of the
# calibrated model changes, and a calibrated guest costs x1.7 the host time.
export SLB_BUS_LOCK_MODEL=all
ST=$T_ROOT/bench/study.sh
TL=$GUESTBIN/slb-timerlat
DATA=$T_ROOT/tests/data

t_ok "study --measure bogus: exit 2 naming it and what is allowed" \
	t_refuses "MEASURE 'bogus' is not allowed (allowed: cyclictest timerlat both)" "$ST" --validate --results "$T_TMP/res" --measure bogus
for m in cyclictest timerlat both; do
	t_ok "study --measure $m validates" "$ST" --validate --results "$T_TMP/res" --scenarios baseline --measure "$m"
done
make -s -C "$T_ROOT" bench MEASURE=bogus >"$T_TMP/make.out" 2>&1
t_ok "make bench MEASURE=bogus stops with exit 2 before building" sh -c "[ $? = 2 ] && grep -q \"MEASURE 'bogus' is not allowed\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"
t_ok "make help names MEASURE" sh -c "make -s -C '$T_ROOT' help | grep -q 'MEASURE=cyclictest (cyclictest|timerlat|both'"
t_ok "slb-summary --measure bogus: exit 2" t_refuses "measure 'bogus' is not allowed (allowed: cyclictest timerlat-irq timerlat-thread)" "$HOSTBIN/slb-summary" --measure bogus "$T_TMP"
t_ok "slb-stats --measure bogus: exit 2" t_refuses "measure 'bogus' is not allowed (allowed: cyclictest timerlat-irq timerlat-thread)" "$HOSTBIN/slb-stats" --measure bogus "$T_TMP"

# The converter, on rtla's own output (a guest's rtla timerlat hist).
t_ok "slb-timerlat --context bogus: exit 2" t_refuses "context 'bogus' is not allowed (allowed: irq thread)" "$TL" --context bogus "$DATA/timerlat-hist.txt"
t_ok "slb-timerlat without --context: exit 2" t_refuses "--context is required" "$TL" "$DATA/timerlat-hist.txt"
for c in irq thread; do
	t_ok "rtla's output to a cyclictest histogram: $c latency, exact" \
		sh -c "'$TL' --context $c '$DATA/timerlat-hist.txt' | diff - '$DATA/timerlat-hist.$c.txt'"
done
hist_same() { # the converted histogram's figures are rtla's own summary lines'
	local c=$1 col=$2 j
	j=$("$HOSTBIN/slb-hist" --json "$DATA/timerlat-hist.$c.txt") || return 1
	jq -e --argjson cnt "$(awk -v k=$col '$1 == "count:" { print $k }' "$DATA/timerlat-hist.txt")" \
		--argjson max "$(awk -v k=$col '$1 == "max:" { print $k }' "$DATA/timerlat-hist.txt")" \
		'.histograms[0] | .samples + .overflows == $cnt and .max_us == $max' <<<"$j"
}
t_ok "... slb-hist reads the IRQ histogram: rtla's count and max" hist_same irq 2
t_ok "... and the thread histogram" hist_same thread 3
# Two CPUs: one column each; a truncated output is refused, not half read.
t_ok "two CPUs: a column per CPU, the other context left out" \
	sh -c "'$TL' --context thread '$DATA/timerlat-hist-2cpu.txt' | diff - '$DATA/timerlat-hist-2cpu.thread.txt'"
sed 's/^over:\( *\)0/over:\17/' "$DATA/timerlat-hist.txt" >"$T_TMP/bad.txt"
refused() { # refused FILE WORDS: slb-timerlat exits 1 saying WORDS, writing nothing
	"$TL" --context irq "$1" >"$T_TMP/r.out" 2>"$T_TMP/r.err"
	[ $? = 1 ] && [ ! -s "$T_TMP/r.out" ] && grep -q -- "$2" "$T_TMP/r.err" || { cat "$T_TMP/r.err"; return 1; }
}
t_ok "counts that disagree with the buckets are refused" refused "$T_TMP/bad.txt" "but its buckets hold"
sed 's/microseconds (us)/nanoseconds (ns)/' "$DATA/timerlat-hist.txt" >"$T_TMP/ns.txt"
t_ok "nanoseconds (rtla -n) are refused" refused "$T_TMP/ns.txt" "nanoseconds"
head -n -5 "$DATA/timerlat-hist.txt" >"$T_TMP/cut.txt"
t_ok "an output cut before its summary is refused" refused "$T_TMP/cut.txt" "no 'Index' header or no 'count:' line"

# Natively: no rtla, no tracefs, no timerlat tracer: the scenario is
# skipped with why (simulated facts; nothing runs).
if [ "$(id -u)" = 0 ] && command -v cyclictest >/dev/null && [ -x "$GUESTBIN/slb-load" ]; then
	sim() {
		printf '%s\n' flag_split_lock_detect=no flag_bus_lock_detect=no "$@" >"$T_TMP/facts"
		SLB_TARGET_FACTS=$T_TMP/facts "$ST" --target native --measure timerlat --scenarios baseline --reps 1 --duration 1 \
			--results "$T_TMP/res" --id sim >"$T_TMP/sim.out" 2>&1
		echo "exit $?" >>"$T_TMP/sim.out"
	}
	said() { grep -q -- "$1" "$T_TMP/sim.out" || { echo "wanted: $1"; cat "$T_TMP/sim.out"; return 1; }; }
	sim rtla= tracefs= timerlat_tracer=no
	t_ok "native, no rtla: skipped with why" said 'skipping baseline: MEASURE=timerlat needs rtla; the target has none'
	t_ok "... no tracefs: skipped with why" said 'MEASURE=timerlat needs tracefs, which is not mounted'
	t_ok "... nothing runs (exit 1, no run kept)" sh -c "grep -q 'no scenario can run on native' '$T_TMP/sim.out' && grep -qx 'exit 1' '$T_TMP/sim.out' && [ ! -e '$T_TMP/res/sim' ]"
	sim rtla=/usr/bin/rtla tracefs=/sys/kernel/tracing timerlat_tracer=no
	t_ok "... a kernel without the timerlat tracer: skipped with why" said 'MEASURE=timerlat needs the timerlat tracer; /sys/kernel/tracing/available_tracers lacks it'
else
	t_skip "native skips (4 tests)" "needs root, cyclictest and build/guest/slb-load"
fi

# A short guest rep with MEASURE=timerlat.
t_require_guest "a guest rep with MEASURE=timerlat"
res=$T_TMP/results
"$ST" --scenarios baseline --measure timerlat --duration 3 --reps 1 --results "$res" --id tl >"$T_TMP/tl.out" 2>&1
rc=$?
run=$res/tl rep=$res/tl/baseline/rep1
t_ok "MEASURE=timerlat: the study completes (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/tl.out'; cat '$rep/files/timerlat.err' 2>/dev/null; exit 1; }"
t_ok "... rtla's output, the IRQ and the thread histogram come back" \
	sh -c "[ -s '$rep/files/timerlat.txt' ] && [ -s '$rep/files/timerlat-irq.txt' ] && [ -s '$rep/files/timerlat-thread.txt' ]"
t_ok "... and no cyclictest ran" sh -c "[ ! -e '$rep/files/hist.txt' ] && grep -qx measure=timerlat '$rep/files/facts.txt'"
about() { # about M: slb-summary --measure M reads about DURATION / INTERVAL samples
	"$HOSTBIN/slb-summary" --json --measure "$1" "$run" | jq -e --arg m "$1" \
		'.measure == $m and (.scenarios[0].pooled | .samples + .overflows >= 2900 and .samples + .overflows <= 3100 and .max_us >= .p99_us)'
}
t_ok "... slb-summary reads the IRQ histogram (about 3000 periods)" about timerlat-irq
t_ok "... and the thread histogram" about timerlat-thread
t_ok "... thread latency is at least the IRQ latency (p50)" sh -c "
	i=\$('$HOSTBIN/slb-summary' --json --measure timerlat-irq '$run' | jq '.scenarios[0].pooled.p50_us')
	t=\$('$HOSTBIN/slb-summary' --json --measure timerlat-thread '$run' | jq '.scenarios[0].pooled.p50_us')
	[ \"\$t\" -ge \"\$i\" ]"
t_ok "... the run's summary and statistics are timerlat's thread latency" \
	sh -c "jq -e '.measure == \"timerlat-thread\" and .scenarios[0].pooled.samples > 0' '$run/summary.json' && jq -e '.measure == \"timerlat-thread\"' '$run/stats.json'"
t_ok "... the IRQ latency has a summary of its own" jq -e '.measure == "timerlat-irq" and .scenarios[0].pooled.samples > 0' "$run/summary-timerlat-irq.json"
t_ok "... the manifest records the measure" jq -e '.params.measure == "timerlat"' "$run/manifest.json"
t_ok "... the report has the timerlat section" grep -q '^## cyclictest and rtla timerlat' "$run/report.md"
t_ok "... the main table's lead-in names timerlat's thread latency, not cyclictest" \
	sh -c "grep -q '^Raw: what rtla timerlat (its thread latency) recorded' '$run/report.md' && ! grep -q 'Raw: what cyclictest' '$run/report.md'"
