# SPDX-License-Identifier: GPL-2.0-or-later
# Study runner "slurm": each rep of the matrix is a task of one Slurm job
# array (sbatch --array=0-(N-1)%JOBS; task I runs rep_at I), and a job that
# depends on it (--dependency=afterany) finishes the run: what Slurm says
# of each task that left no record (state, reason, exit code: that rep is
# recorded as failed, outcome slurm-<state>), the statistics, plots and
# report, the rename into place. Both are bench/runner/slurm-task.sh,
# which calls bench/study.sh with the run's options (RUNDIR/study.args)
# and environment (RUNDIR/slurm/study.env) and --task RUNDIR:I or
# --finish RUNDIR: a rep runs through the same code as
# under the local runner. The study waits, printing the tasks pending,
# running, done and failed, unless --no-wait; Ctrl-C cancels both jobs
# (scancel) and keeps the recorded reps for --resume, which submits an
# array of the reps still to do. The manifest records the job ids and each
# rep's node, state and reason (.runner).
# The run directory (RESULTS/.incomplete-ID), this checkout and the build
# cache (SLB_CACHE) must be at the same paths on every node (shared
# storage). SLB_SBATCH_OPTS: more sbatch options for both jobs (a
# partition, an account), after the study's own; SLB_SLURM_POLL_S (default
# 5): seconds between polls of the queue; SLB_SLURM_CANCEL_S (default 60,
# 0 to 3600): how long an interrupted study waits for its cancelled jobs
# to leave the queue. Guest target only.
# Sourced by bench/study.sh; the interface is in bench/runner/local.sh.

slurm_array= slurm_finish= slurm_poller=

runner_describe() { echo "as Slurm tasks, $jobs at a time"; }
runner_manifest_args() { echo runner=slurm; }

runner_check() {
	local c
	check_number JOBS "$jobs" 1 10000
	[ "$target" = guest ] ||
		usage_error "RUNNER=slurm runs TARGET=guest only, not '$target' (a native rep measures the machine it runs on)"
	check_number SLB_SLURM_CANCEL_S "${SLB_SLURM_CANCEL_S:-60}" 0 3600
	for c in sbatch squeue scancel scontrol; do
		command -v "$c" >/dev/null ||
			usage_error "RUNNER=slurm needs Slurm's $c, which is not on PATH (Debian slurm-client, or make deps)"
	done
	# The nodes find the run by its path.
	results=$(realpath -m "$results")
}

# slurm_jq FILTER ARG...: rewrite the run's manifest.json through jq.
slurm_jq() {
	jq "${@:2}" "$1" "$tmp/manifest.json" >"$tmp/manifest.json.new" && mv "$tmp/manifest.json.new" "$tmp/manifest.json"
}

# slurm_sbatch MODE WHAT SBATCH-OPTION...: submit bench/runner/slurm-task.sh
# MODE for this run, print the job id; stop naming WHAT if sbatch refuses.
slurm_sbatch() {
	local mode=$1 what=$2 out opts=()
	shift 2
	read -r -a opts <<<"${SLB_SBATCH_OPTS:-}"
	out=$(sbatch --parsable "$@" "${opts[@]}" "$SLB_ROOT/bench/runner/slurm-task.sh" "$mode" "$tmp" 2>&1) &&
		[[ ${out%%;*} =~ ^[0-9]+$ ]] || die "sbatch refused the $what: $out"
	echo "${out%%;*}"
}

# slurm_drop: nothing was submitted: a new run goes, a resumed one stays.
slurm_drop() {
	if [ -n "$resume" ]; then rm -f "$tmp/.pid"; else rm -rf "$tmp"; fi
}

runner_run() {
	local minutes
	mkdir -p "$tmp/slurm"
	{
		printf 'export SLB_QEMU=%q SLB_INITRD=%q SLB_CACHE=%q SLB_CPU=%q SLB_SCENARIO_FILE=%q\n' \
			"$(realpath "$(command -v "${SLB_QEMU:-qemu-system-x86_64}")")" "$(realpath "$SLB_INITRD")" "$SLB_CACHE" "$cpu" \
			"$tmp/scenarios.conf"
		[ -z "${DEADLINE_US:-}" ] || printf 'export DEADLINE_US=%q\n' "$DEADLINE_US"
		printf 'slb_root=%q\n' "$SLB_ROOT"
	} >"$tmp/slurm/study.env"
	# A task's time: the rep's own bound, plus the boot and the record.
	minutes=$(((limit + 300 + 59) / 60))
	# Held until the ids are recorded, so that the finishing job finds them.
	slurm_array=$(slurm_sbatch task "job array" --hold --job-name "slb-$id" --array "$(IFS=,; echo "${todo[*]}")%$jobs" \
		--time "$minutes" --output "$tmp/slurm/task-%a.log") || { slurm_drop; exit 1; }
	slurm_finish=$(slurm_sbatch finish "finishing job" --job-name "slb-$id-finish" \
		--dependency "afterany:$slurm_array" --time 60 --output "$tmp/slurm/finish.log") ||
		{ scancel "$slurm_array"; slurm_drop; exit 1; }
	echo "$slurm_array $slurm_finish" >"$tmp/.slurm-jobs"
	slurm_jq '.runner = {kind: "slurm", array_job: $a, finish_job: $f, sbatch_opts: $o, reps: []}' \
		--arg a "$slurm_array" --arg f "$slurm_finish" --arg o "${SLB_SBATCH_OPTS:-}"
	scontrol release "$slurm_array" ||
		{ scancel "$slurm_array" "$slurm_finish"; slurm_drop; die "could not release job $slurm_array"; }
	say "submitted job array $slurm_array ($total tasks, $jobs at a time) and job $slurm_finish, which finishes the run after it"
	if [ "$no_wait" = 1 ]; then
		say "not waiting: the run becomes $results/$id when job $slurm_finish ends (squeue -j $slurm_array,$slurm_finish)"
		return 0
	fi
	slurm_wait
}

# slurm_gone JOB: Slurm no longer queues or runs JOB.
slurm_gone() {
	local out
	out=$(squeue -h -j "$1" -o %T 2>&1) && [ -z "$out" ] && return 0
	[[ $out == *"Invalid job id"* ]]
}

# slurm_wait: print the tasks pending / running / done / failed as they
# change until the finishing job has ended. The polling runs in a child
# (slurm_poll) that this shell waits for: bash 5.2 runs a pending trap
# from inside the parser it re-enters to expand each $( ), where the
# trap's text fails to parse ("interrupt trap: line 2: unexpected EOF
# while looking for matching `)'") and the shell goes on polling without
# it; a Ctrl-C that comes during `wait` runs the trap whole.
slurm_wait() {
	local rc
	slurm_poll &
	slurm_poller=$!
	wait "$slurm_poller"
	rc=$?
	slurm_poller=
	[ "$rc" = 0 ] ||
		die "lost track of jobs $slurm_array and $slurm_finish (the wait for them ended with exit $rc); they go on in Slurm: squeue -j $slurm_array,$slurm_finish"
	[ -d "$results/$id" ] ||
		die "job $slurm_finish ended without finishing the run (log: $tmp/slurm/finish.log; the reps are in $tmp)"
}

# slurm_poll: slurm_wait's loop (in a child: it ignores SIGINT, as an
# asynchronous command does; runner_abort ends it, and it ends when the
# study, $$, is gone).
slurm_poll() {
	local q p r rec ok lost line last= now dir end=0
	while kill -0 $$ 2>/dev/null; do
		slurm_gone "$slurm_finish" && end=1
		q=$(squeue -h -r -j "$slurm_array" -o %T 2>/dev/null)
		p=$(grep -c '^PENDING' <<<"$q") r=$(grep -c -e '^RUNNING' -e '^COMPLETING' -e '^CONFIGURING' <<<"$q")
		dir=$tmp
		[ -d "$dir" ] || dir=$results/$id # the finishing job renamed it
		rec=$(find "$dir" -mindepth 3 -maxdepth 3 -name rep.info | wc -l)
		ok=$(find "$dir" -mindepth 3 -maxdepth 3 -name rep.info -exec grep -lx outcome=ok {} + | wc -l)
		lost=$(($(rep_total) - rec - p - r))
		[ "$lost" -ge 0 ] || lost=0
		line="$p pending, $r running, $ok done, $((rec - ok + lost)) failed"
		if [ "$line" != "$last" ]; then
			now=$(($(date +%s) - start))
			say "job $slurm_array: $total tasks: $line; elapsed $((now / 60))m$((now % 60))s"
			last=$line
		fi
		[ "$end" = 0 ] || break
		sleep "${SLB_SLURM_POLL_S:-5}"
	done
}

runner_abort() {
	local j end
	[ -z "$slurm_poller" ] || { kill "$slurm_poller" 2>/dev/null; wait "$slurm_poller" 2>/dev/null; }
	[ -n "$slurm_array" ] || return 0
	say "cancelling jobs $slurm_array and $slurm_finish"
	scancel "$slurm_array" $slurm_finish 2>/dev/null
	# Its tasks write into the run: wait until they are gone, at most
	# SLB_SLURM_CANCEL_S (default 60) seconds, polling every 0.5 s.
	end=$((${EPOCHREALTIME//[!0-9]/} + ${SLB_SLURM_CANCEL_S:-60} * 1000000))
	while :; do
		for j in $slurm_array $slurm_finish; do
			slurm_gone "$j" && continue
			[ "${EPOCHREALTIME//[!0-9]/}" -lt "$end" ] || break 2
			sleep 0.5
			continue 2
		done
		return 0
	done
	say "warning: jobs $slurm_array and $slurm_finish still in Slurm's queue ${SLB_SLURM_CANCEL_S:-60} s after scancel; their tasks may still write into $tmp"
}

# In a task: where it runs (the manifest's node, should Slurm forget it).
runner_task_begin() {
	mkdir -p "$tmp/$1" && echo "${SLURMD_NODENAME:-$(uname -n)}" >"$tmp/$1/rep$2.node"
}

# slurm_tasks: one line per task of the array, "I STATE REASON EXIT NODE",
# from the controller (scontrol), else from accounting (sacct).
slurm_tasks() {
	local a=$1
	scontrol show job -o "$a" 2>/dev/null | awk '{
		delete f
		for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
		if (f["ArrayTaskId"] ~ /^[0-9]+$/) print f["ArrayTaskId"], f["JobState"], f["Reason"], f["ExitCode"], f["NodeList"]
	}'
	sacct -n -P -X -j "$a" -o JobID,State,Reason,ExitCode,NodeList 2>/dev/null |
		awk -F'|' '$1 ~ /_[0-9]+$/ { sub(/.*_/, "", $1); sub(/ .*/, "", $2); print $1, $2, ($3 == "" ? "None" : $3), $4, $5 }'
}

# In the finishing job: a rep that left no rep.info failed as a Slurm task
# (cancelled, timed out, its node lost, killed): record what Slurm says.
# Every rep's task, node, state and reason go into the manifest.
runner_settle() {
	local a i s rep dir st reason code node
	read -r a _ <"$tmp/.slurm-jobs" || die "$tmp/.slurm-jobs missing: not a run of RUNNER=slurm"
	slurm_array=$a
	slurm_tasks "$a" | sort -n -s -k1,1 -u >"$tmp/slurm/tasks.txt"
	for ((i = 0; i < $(rep_total); i++)); do
		read -r s rep <<<"$(rep_at "$i")"
		dir=$tmp/$s/rep$rep st= reason= code= node=
		read -r _ st reason code node < <(awk -v i="$i" '$1 == i' "$tmp/slurm/tasks.txt")
		[ -n "$node" ] && [ "$node" != "(null)" ] || node=$(cat "$dir.node" 2>/dev/null)
		if [ ! -f "$dir/rep.info" ]; then
			mkdir -p "$dir"
			jq -n --arg st "${st:-UNKNOWN}" --arg r "${reason:-unknown}" --arg c "${code:-}" --arg n "${node:-}" \
				--arg t "${a}_$i" --slurpfile g <(cat "$dir/outcome.json" 2>/dev/null) \
				'{outcome: ("slurm-" + ($st | ascii_downcase)), slurm: {task: $t, state: $st, reason: $r, exit_code: $c, node: $n},
				  guest: ($g[0] // null)}' >"$dir/outcome.json.new" && mv "$dir/outcome.json.new" "$dir/outcome.json"
			say "$s rep $rep: Slurm task ${a}_$i ended ${st:-UNKNOWN} (reason ${reason:-unknown}, exit ${code:-?}${node:+, node $node}): recorded as failed"
			rep_record "$s" "$rep" >/dev/null
		fi
		jq -n --arg s "$s" --argjson r "$rep" --arg t "${a}_$i" --arg n "${node:-}" --arg st "${st:-UNKNOWN}" \
			--arg re "${reason:-}" --arg c "${code:-}" --arg o "$(sed -n 's/^outcome=//p' "$dir/rep.info")" \
			'{scenario: $s, rep: $r, task: $t, node: $n, state: $st, reason: $re, exit_code: $c, outcome: $o}'
	done | jq -s . >"$tmp/slurm/reps.json"
	slurm_jq '.runner.reps = $r[0]' --slurpfile r "$tmp/slurm/reps.json"
}
