#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Trace evidence per rep (issue 35): slb-trace's summary of a committed
# sample trace is exact (text, JSON and the worst wake-ups' raw lines) and
# its usage errors exit 2; slb-load marks its locking loop.
. "$(dirname "$0")/lib.sh"
TR=$GUESTBIN/slb-trace
[ -x "$TR" ] || make -s -C "$T_ROOT" all >/dev/null
D=$T_ROOT/tests/data

# The sample: cpu1 measured, slb-load on cpu0; one local expiry, two
# reschedule IPIs from cpu0 (one while the load marked its split-lock loop,
# one behind a serial interrupt), one remote wake-up without an IPI, one
# sleep the trace ends in, another task's sleep to ignore, and a sleep of
# cyclictest's main thread on cpu0 that --cpus 1 leaves out.
t_ok "the sample's text summary is the committed one" \
	sh -c '"$1" -c 1 -n 3 "$2/trace-sample.txt" | diff "$2/trace-sample.summary.txt" -' sh "$TR" "$D"
t_ok "its JSON summary and worst wake-ups' raw lines are the committed ones" \
	sh -c '"$1" -c 1 -j -n 3 -e "$3/w" "$2/trace-sample.txt" | diff "$2/trace-sample.summary.json" - &&
		diff "$2/trace-sample.worst.txt" "$3/w"' sh "$TR" "$D" "$T_TMP"
t_ok "the sample's counts: 4 wake-ups, 1 local, 2 by IPI from cpu0, 1 in a split lock" jq -e '
	.wakeups == 4 and .incomplete == 1 and .armed_on == {"1": 4} and .fired_on == {"0": 3, "1": 1} and
	.woken == {local: 1, ipi: 2, remote: 1} and .ipi_from == {"0": 2} and
	.remote_interrupting_load == 2 and .remote_in_split_lock == 1 and
	.worst[0].latency_us == 33 and .worst[0].in_split_lock and .worst[0].ipi_callsite == "resched_curr"' \
	"$D/trace-sample.summary.json"
t_ok "--json --text FILE writes both from one read" \
	sh -c '"$1" -c 1 -j -n 3 -t "$3/t" "$2/trace-sample.txt" >/dev/null && diff "$2/trace-sample.summary.txt" "$3/t"' sh "$TR" "$D" "$T_TMP"
t_ok "standard input without TRACE" sh -c '"$1" -c 1 -n 3 <"$2/trace-sample.txt" | diff "$2/trace-sample.summary.txt" -' sh "$TR" "$D"
t_ok "without --cpus the main thread's sleep on cpu0 counts too" sh -c '"$1" -j "$2/trace-sample.txt" |
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
