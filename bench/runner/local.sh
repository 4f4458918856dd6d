# SPDX-License-Identifier: GPL-2.0-or-later
# Study runner "local" (the default): the reps run on this machine, JOBS
# at a time, in the study's order, with a progress line (k/N, ETA) as each
# ends. Sourced by bench/study.sh after its option checks; it reads the
# study's variables (jobs, reps, total, start, tmp).
#
# The interface every runner (bench/runner/<kind>.sh) provides:
#   runner_check            check runner options (usage_error); no side
#                           effects: runs for --validate too
#   runner_describe         words for the first progress line
#   runner_manifest_args    key=value words for bench/manifest.sh
#   runner_run              run every rep still to do, rep_at I for each
#                           I of the study's todo array (all of 0 to
#                           rep_total - 1 for a new run; total of them),
#                           each through rep_run and then rep_record, and
#                           end the run with study_finish (here or
#                           elsewhere; with --no-wait it may return before)
#   runner_abort            Ctrl-C: stop every rep started (the study then
#                           keeps the recorded reps for --resume)
# and, for a runner whose reps run elsewhere (bench/study.sh --task,
# --finish):
#   runner_task_begin S REP  a task is about to run rep REP of S here
#   runner_settle           before study_finish: record each rep that
#                           ended without rep_record (why, from the runner)
# The study provides rep_total, rep_at I, rep_run S REP (in a subshell),
# rep_record S REP (prints the outcome), rep_reason S REP, study_finish,
# room_left (the run's directory has room for more) and stop_run WHY
# STATUS (end the study, keeping the recorded reps).

runner_describe() { echo "$jobs at a time"; }
runner_manifest_args() { echo runner=local; }
runner_task_begin() { :; }
runner_settle() { :; }

runner_check() {
	check_number JOBS "$jobs" 1 16
	[ "$no_wait" = 0 ] || usage_error "--no-wait is for RUNNER=slurm: the local runner is the waiting command itself"
	[ -z "$task$finish" ] || usage_error "--task and --finish are for RUNNER=slurm's jobs"
}

declare -A running=()

# local_finish PID: wait for one rep and record it.
local_finish() {
	local pid=$1 s rep outcome now eta
	wait "$pid"
	read -r s rep <<<"${running[$pid]}"
	unset "running[$pid]"
	outcome=$(rep_record "$s" "$rep")
	done_n=$((done_n + 1))
	now=$(date +%s)
	eta=$(((now - start) * (total - done_n) / done_n))
	say "[$done_n/$total] $s rep $rep: $outcome; elapsed $(((now - start) / 60))m$(((now - start) % 60))s, ETA $((eta / 60))m$((eta % 60))s"
	[ "$outcome" = ok ] && return
	room_left || stop_run "stopped: $results has no room left (a rep needs a few MiB; free some)" 1
	say "  $s rep $rep: $(target_noun) run ended '$outcome': $(rep_reason "$s" "$rep") (recorded; the matrix goes on)"
}

# local_wait_any: finish whichever running rep ends first.
local_wait_any() {
	local pid
	while :; do
		for pid in "${!running[@]}"; do
			kill -0 "$pid" 2>/dev/null || { local_finish "$pid"; return; }
		done
		sleep 0.5
	done
}

runner_run() {
	local i s rep
	done_n=0
	for i in "${todo[@]}"; do
		read -r s rep <<<"$(rep_at "$i")"
		while [ "${#running[@]}" -ge "$jobs" ]; do local_wait_any; done
		say "starting $s rep $rep/$reps"
		rep_run "$s" "$rep" &
		running[$!]="$s $rep"
	done
	while [ "${#running[@]}" -gt 0 ]; do local_wait_any; done
	study_finish
}

runner_abort() {
	local pid
	for pid in "${!running[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	wait 2>/dev/null
}
