#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# wait_timeout (scripts/lib.sh), which run-guest.sh and the runners poll
# guests with: true soon after the process ends, false after SECONDS
# while it runs, and no process started while it waits (nap: it started a
# sleep ten times a second, about 1.3 ms of CPU each, all through every
# guest). Tried with PATH empty, where a sleep it ran would fail; and
# with no file descriptor left for its pipe, where it sleeps after all.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/scripts/lib.sh"

# within LO HI CMD...: CMD succeeds, taking LO to HI seconds, stderr empty
within() {
	local lo=$1 hi=$2 a b rc
	shift 2
	a=$EPOCHREALTIME
	"$@" 2>"$T_TMP/err"
	rc=$?
	b=$EPOCHREALTIME
	awk -v a="$a" -v b="$b" -v lo="$lo" -v hi="$hi" 'BEGIN { t = b - a; if (t < lo || t > hi) { printf "took %.2f s, not %s-%s\n", t, lo, hi; exit 1 } }' || return 1
	[ ! -s "$T_TMP/err" ] || { cat "$T_TMP/err"; return 1; }
	return "$rc"
}
sleep 30 &
long=$!
# The bounds are wide (a suite runs three scripts on two CPUs): the faults
# they catch end at once (0.01 s) or run to the timeout.
t_ok "a process that runs on: false after SECONDS (1 s), PATH empty" within 0.9 2.5 bash -c "! { PATH=; $(declare -f nap wait_timeout); wait_timeout $long 1; }"
sleep 0.3 &
short=$!
t_ok "a process that ends in 0.3 s: true soon after, not at the 5 s timeout, PATH empty" within 0.2 2.5 bash -c "PATH=; $(declare -f nap wait_timeout); wait_timeout $short 5"
t_ok "with no file descriptor left for its pipe, it still waits its 1 s (a sleep)" within 0.9 2.5 bash -c "ulimit -n 10; ! { $(declare -f nap wait_timeout); wait_timeout $long 1; }"
kill "$long" 2>/dev/null
