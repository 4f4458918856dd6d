#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Trace evidence per rep (issue 35): slb-trace's summary of a committed
# sample trace is exact (text, JSON and the worst wake-ups' raw lines) and
# its usage errors exit 2; a traced study rep (--trace) leaves a summary
# with the expected keys and consistent counts, keeps no raw trace, and its
# report shows the traced wake-up path.
. "$(dirname "$0")/lib.sh"
TR=$GUESTBIN/slb-trace
[ -x "$TR" ] || make -s -C "$T_ROOT" all >/dev/null
D=$T_ROOT/tests/data

# The sample: cpu1 measured, slb-load on cpu0; one local expiry, two
# reschedule IPIs from cpu0 (one while the load marked its split-lock loop,
# one behind a serial interrupt), one remote wake-up without an IPI, one
# sleep the trace ends in, another task's sleep to ignore, and a sleep of
# cyclictest's main thread on cpu0 (a soft hrtimer) that only --soft and
# no --cpus count. The IPI of the second wake-up comes before its
# sched_wakeup, as the kernel sends it (wakeup_preempt).
t_ok "the sample's text summary is the committed one" \
	sh -c '"$1" -c 1 -n 3 "$2/trace-sample.txt" | diff "$2/trace-sample.summary.txt" -' sh "$TR" "$D"
t_ok "its JSON summary and worst wake-ups' raw lines are the committed ones" \
	sh -c '"$1" -c 1 -j -n 3 -e "$3/w" "$2/trace-sample.txt" | diff "$2/trace-sample.summary.json" - &&
		diff "$2/trace-sample.worst.txt" "$3/w"' sh "$TR" "$D" "$T_TMP"
t_ok "the sample's counts: 4 wake-ups, 1 local, 2 by IPI from cpu0, 1 in a split lock" jq -e '
	.wakeups == 4 and .incomplete == 1 and .armed_on == {"1": 4} and .fired_on == {"0": 3, "1": 1} and
	.woken == {local: 1, ipi: 2, remote: 1} and .ipi_from == {"0": 2} and
	.remote_interrupting_load == 2 and .remote_in_split_lock == 1 and
	.worst[0].latency_us == 33 and .worst[0].in_split_lock and .worst[0].ipi_callsite == "wakeup_preempt"' \
	"$D/trace-sample.summary.json"
t_ok "--json --text FILE writes both from one read" \
	sh -c '"$1" -c 1 -j -n 3 -t "$3/t" "$2/trace-sample.txt" >/dev/null && diff "$2/trace-sample.summary.txt" "$3/t"' sh "$TR" "$D" "$T_TMP"
t_ok "standard input without TRACE" sh -c '"$1" -c 1 -n 3 <"$2/trace-sample.txt" | diff "$2/trace-sample.summary.txt" -' sh "$TR" "$D"
t_ok "only HARD sleeps by default: the main thread's soft one on cpu0 does not count" sh -c 'out=$("$1" -j "$2/trace-sample.txt") && [ -n "$out" ] && printf "%s\n" "$out" |
	jq -e ".wakeups == 4 and .armed_on == {\"1\": 4}"' sh "$TR" "$D"
t_ok "with --soft and without --cpus the main thread's sleep on cpu0 counts too" sh -c 'out=$("$1" --soft -j "$2/trace-sample.txt") && [ -n "$out" ] && printf "%s\n" "$out" |
	jq -e ".wakeups == 5 and .armed_on == {\"0\": 1, \"1\": 4}"' sh "$TR" "$D"
t_ok "--help exits 0 and names the events" sh -c '"$1" --help | grep -q hrtimer_expire_entry' sh "$TR"
t_ok "--worst 1001: usage error naming it" t_refuses "--worst" "$TR" --worst 1001 "$D/trace-sample.txt"
t_ok "--worst x: usage error naming it" t_refuses "--worst" "$TR" --worst x "$D/trace-sample.txt"
t_ok "--cpus x: usage error naming it" t_refuses "--cpus" "$TR" --cpus x "$D/trace-sample.txt"
t_ok "--text without --json: usage error" t_refuses "--text" "$TR" --text "$T_TMP/x" "$D/trace-sample.txt"
t_ok "two traces: usage error" t_refuses "unexpected argument" "$TR" "$D/trace-sample.txt" "$D/trace-sample.txt"
t_ok "an unknown option exits 2" t_expect_code 2 "$TR" --bogus
printf '# tracer: nop\n   sh-1 [000] ..... 1.000000: sched_switch: prev_comm=sh prev_pid=1 ==> next_comm=x next_pid=2\n' >"$T_TMP/none.txt"
t_ok "a trace without a wake-up of the task exits 1 saying so" sh -c '"$1" "$2" 2>&1 | grep -q "no complete wake-up"; "$1" "$2" 2>/dev/null; [ $? = 1 ]' sh "$TR" "$T_TMP/none.txt"
t_ok "a trace that cannot be read exits 1" t_expect_code 1 "$TR" "$T_TMP/does-not-exist"

# slb-load marks its locking loop in a trace_marker (any writable file).
t_ok "slb-load --mark marks its loop on and off" sh -c ': >"$2/m" && "$1" -m aligned -d 0.15 --mark "$2/m" >/dev/null &&
	grep -qx "slb-load: aligned on" "$2/m" && tail -n 1 "$2/m" | grep -qx "slb-load: aligned off"' sh "$GUESTBIN/slb-load" "$T_TMP"
t_ok "the study's guest option trace is allowed, trace=x is not" sh -c '
	f=$1/s.conf; sed "s/^\(split-off  *|.*|  *split locks, detection off: what bus locks do to latency\)$/\1 | trace/" "$2/rt-config/scenarios.conf" >"$f"
	grep -q "| trace$" "$f" && SLB_SCENARIO_FILE=$f "$2/bench/study.sh" --validate --scenarios split-off &&
	sed -i "s/| trace$/| trace=x/" "$f" && ! SLB_SCENARIO_FILE=$f "$2/bench/study.sh" --validate --scenarios split-off 2>/dev/null' sh "$T_TMP" "$T_ROOT"

# The report's section from the reps' summaries (a synthetic run: the
# sample's summary in rep 1 of split-off and split-off-tm0, a rep that
# could not trace in split-off rep 2).
fr=$T_TMP/fake
"$T_ROOT/tests/fake-run.sh" "$fr" split-off:20:5:2:completed split-off-tm0:10:3:2:completed >/dev/null 2>&1
for s in split-off split-off-tm0; do mkdir -p "$fr/$s/rep1/files" && cp "$D/trace-sample.summary.json" "$fr/$s/rep1/files/trace-summary.json"; done
mkdir -p "$fr/split-off/rep2/files" && echo "no tracefs here" >"$fr/split-off/rep2/files/trace-skipped.txt"
"$T_ROOT/bench/report/report.sh" "$fr" >/dev/null 2>"$T_TMP/report.err"
t_ok "trace.json pools the reps' summaries per scenario, and says why a rep was not traced" jq -e '
	(.scenarios | map(.name)) == ["split-off", "split-off-tm0"] and
	(.scenarios[0] | .reps_traced == 1 and .wakeups == 4 and .fired_on == {"0": 3, "1": 1} and
	 .woken == {local: 1, ipi: 2, remote: 1} and .remote_in_split_lock == 1 and .latency_us.ipi.mean == 25.5 and
	 .skipped == [{rep: 2, reason: "no tracefs here"}] and (.worst | length) == 3 and .worst[0].rep == 1)' "$fr/trace.json"
t_ok "the report shows the traced wake-up path: counts and the worst wake-ups" sh -c '
	sed -n "/^## Traced wake-up path/,/^## /p" "$1/report.md" >"$1/sec" &&
	grep -qx "| split-off | 1 | 4 | cpu1 4 | cpu0 3, cpu1 1 | 1 / 2 (from cpu0 2) / 1 | 2 (1) | 9 / 25.5 | 6 |" "$1/sec" &&
	grep -qx "| split-off-tm0 | 1 | 33 | cpu0 | 12 | reschedule IPI from cpu0 | slb-load, in its split-lock loop | cpu1:reschedule |" "$1/sec" &&
	grep -q "split-off: not traced in 1 rep(s): no tracefs here" "$1/sec" && grep -q "Traced wake-up path" "$1/report.html"' sh "$fr"
rm -rf "$fr/split-off/rep1/files/trace-summary.json" "$fr/split-off-tm0/rep1/files/trace-summary.json" "$fr/split-off/rep2/files/trace-skipped.txt"
"$T_ROOT/bench/report/report.sh" "$fr" >/dev/null 2>&1
t_ok "a run without traces has no such section and no trace.json" sh -c '! grep -q "Traced wake-up" "$1/report.md" && [ ! -e "$1/trace.json" ]' sh "$fr"

t_ok "--trace 2: usage error naming TRACE" t_refuses TRACE "$T_ROOT/bench/study.sh" --validate --trace 2
t_ok "make bench TRACE=yes stops with a usage error" t_expect_code 2 make -s -C "$T_ROOT" bench TRACE=yes

# Natively the rep mounts nothing: without a mounted tracefs it says why.
if [ -d /sys/kernel/tracing/instances ] || [ -d /sys/kernel/debug/tracing/instances ]; then
	t_skip "natively without tracefs the rep says why it was not traced" "tracefs is mounted here"
	# Only PREEMPT_RT marks cyclictest's sleeps HARD: on a kernel without
	# it the rep must still find its wake-ups (1 s at 1 ms, no load), each
	# fired on the measured CPU and woken there.
	if [ "$(id -u)" = 0 ] && command -v cyclictest >/dev/null && [ "$(nproc)" -ge 2 ]; then
		mkdir -p "$T_TMP/native-trace"
		t_ok "natively the rep's trace has cyclictest's wake-ups$([ -e /sys/kernel/realtime ] || echo ", none marked HARD on this kernel without PREEMPT_RT")" \
			sh -c 'cd "$2" && PATH="$3:$PATH" SLB_NATIVE=1 SLB_TMP="$2" sh -c ". \"$1/bench/guest/slb-lib.sh\"
				slb_trace_start 1 1 1000 || { cat trace-skipped.txt; exit 1; }
				cyclictest -q -m -p 95 -t 1 -a 1 -i 1000 -D 1 --mainaffinity=0 >/dev/null
				slb_trace_off; slb_trace_stop" &&
			[ -s trace-summary.json ] && jq -e ".wakeups > 900 and .fired_on == {\"1\": .wakeups} and .woken.local == .wakeups" trace-summary.json ||
			{ cat trace-summary.err 2>/dev/null; exit 1; }' sh "$T_ROOT" "$T_TMP/native-trace" "$GUESTBIN"
	else
		t_skip "natively the rep's trace has cyclictest's wake-ups" "cyclictest as root on 2 CPUs is needed"
	fi
else
	t_ok "natively without tracefs the rep says why it was not traced, and mounts nothing" sh -c 'cd "$2" &&
		SLB_NATIVE=1 sh -c ". \"$1/bench/guest/slb-lib.sh\"; slb_trace_start 1 3 1000 && exit 1; slb_trace_off; slb_trace_stop" &&
		grep -q "no tracefs mounted" trace-skipped.txt && [ ! -d /sys/kernel/tracing/instances ]' sh "$T_ROOT" "$T_TMP"
fi

t_require_guest "a traced study rep"
res=$T_TMP/results
"$T_ROOT/bench/study.sh" --scenarios split-off --duration 3 --reps 1 --trace 1 \
	--results "$res" --id t >"$T_TMP/study.out" 2>&1
rc=$?
f=$res/t/split-off/rep1/files
t_ok "a traced study rep ends ok" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/study.out'; exit 1; }"
t_ok "the run records --trace 1" sh -c "jq -e '.params.trace == 1' '$res/t/manifest.json' && grep -A1 -x -- --trace '$res/t/study.args' | grep -qx 1"
t_ok "the rep has the trace summary (JSON, text, worst) and facts" sh -c "for x in trace-summary.json trace-summary.txt trace-worst.txt trace-facts.txt; do [ -s '$f/'\$x ] || { echo \"missing \$x\"; cat '$f/trace-skipped.txt' '$f/trace-summary.err' 2>/dev/null; exit 1; }; done"
t_ok "the summary has the expected keys" jq -e 'has("wakeups") and has("armed_on") and has("fired_on") and has("woken") and
	has("ipi_from") and has("remote_in_split_lock") and has("latency_us") and (.worst | length) == 10' "$f/trace-summary.json"
t_ok "about 3000 wake-ups (3 s at 1 ms), all armed on the isolated vCPU 1" jq -e '.wakeups > 2500 and .wakeups < 3100 and .armed_on == {"1": .wakeups}' "$f/trace-summary.json"
t_ok "fired and woken counts add up to the wake-ups" jq -e '([.fired_on[]] | add) == .wakeups and ([.woken[]] | add) == .wakeups' "$f/trace-summary.json"
t_ok "split-off: the timer fires on the housekeeping vCPU and a reschedule IPI wakes cyclictest" \
	jq -e '.fired_on["0"] > 0 and .woken.ipi > 0 and .ipi_from["0"] > 0 and .markers > 0' "$f/trace-summary.json"
t_ok "the raw trace is not kept" sh -c "! ls '$f' | grep -q -e raw -e '^trace\\.txt'"
t_ok "the report shows the traced wake-up path" sh -c "grep -q '^## Traced wake-up path' '$res/t/report.md' && grep -q '^| split-off | 1 | ' '$res/t/report.md' && jq -e '.scenarios[0].name == \"split-off\"' '$res/t/trace.json'"
