#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/study.sh refuses bad input with exit 2 and one line naming the
# value and what is allowed, before starting anything.
. "$(dirname "$0")/lib.sh"
ST=$T_ROOT/bench/study.sh

refuses() { # refuses WORD ARGS...
	local word=$1 rc
	shift
	"$ST" --validate --results "$T_TMP/res" "$@" >"$T_TMP/o" 2>"$T_TMP/e"
	rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, expected 2"; cat "$T_TMP/e"; return 1; }
	grep -q -- "$word" "$T_TMP/e" || { echo "stderr does not name '$word':"; cat "$T_TMP/e"; return 1; }
	[ "$(wc -l <"$T_TMP/e")" = 1 ] || { echo "more than one line:"; cat "$T_TMP/e"; return 1; }
}
t_ok "study --help exits 0" "$ST" --help
t_ok "valid arguments validate" "$ST" --validate --results "$T_TMP/res" --scenarios baseline,split-on --duration 5 --reps 2
t_ok "unknown scenario" refuses "unknown scenario 'nosuch' (allowed: baseline" --scenarios baseline,nosuch
t_ok "DURATION=abc" refuses "DURATION 'abc' is not a whole number" --duration abc
t_ok "DURATION=2 (too short)" refuses "DURATION=2 is out of range (allowed: 3 to 3600)" --duration 2
t_ok "REPS=0" refuses "REPS=0" --reps 0
t_ok "VCPUS=1: nothing to isolate" refuses "VCPUS=1 leaves nothing to isolate" --vcpus 1
t_ok "INTERVAL=50" refuses "INTERVAL=50" --interval 50
t_ok "bad run id" refuses "--id '../x'" --id ../x
mkdir -p "$T_TMP/res/taken"
t_ok "an existing run is never overwritten" refuses "run 'taken' exists" --id taken
t_ok "nothing was started (no run directory created)" test ! -e "$T_TMP/res/.incomplete-taken"
