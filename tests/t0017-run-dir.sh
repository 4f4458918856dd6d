#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# begin_run_dir (scripts/lib-run.sh) beside another run starting in the same
# results directory: the other's scan for directories left by dead runs
# (no live .pid) must never see this run's directory before its .pid is
# in it. A sweep on Slurm starts its studies at once, and one of them once
# removed another's fresh directory (t4006: "scenarios.list: No such
# file"). Made deterministic here: mkdir is wrapped so that, right after
# each directory is made, a second run's begin_run_dir scans.
. "$(dirname "$0")/lib.sh"
r=$T_TMP/results
run() {
	bash -c '
		. "$0/scripts/lib.sh"; . "$0/scripts/lib-run.sh"
		R=$1
		mkdir() { command mkdir "$@" || return; [ -n "${INNER:-}" ] || (INNER=1 begin_run_dir "$R" other "*" "a study"); }
		begin_run_dir "$R" mine "*" "a study" && test -f "$RUN_TMP/.pid" && test "$(cat "$RUN_TMP/.pid")" = $$' "$T_ROOT" "$r"
}
t_ok "a run starting beside it does not remove a new run's directory" run
t_ok "... which holds its .pid" test -s "$r/.incomplete-mine/.pid"
t_ok "... and leaves no directory under another name" sh -c "! ls -a '$r' | grep -q starting"
