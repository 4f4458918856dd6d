# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the bench scripts that are not what a guest sees: run
# directories (begun, resumed, ended), sub-studies, the statistics tools
# and gnuplot. Not a run input: a change here leaves every rep's guest as
# it was. Sourced after scripts/lib.sh, never run.

# stats_tool OUT CMD...: run a statistics tool (slb-stats, slb-summary)
# into OUT. Its exit 1 with OUT written means some reps were unusable: say
# which (its warnings) and go on. Anything else without output fails.
stats_tool() {
	local out=$1 rc
	shift
	"$@" >"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" = 1 ] && [ -s "$out" ]; then
		sed 's/^/  /' "$out.err" >&2
		say "warning: ${1##*/} found unusable reps; they are left out of $out"
		rc=0
	elif [ "$rc" != 0 ]; then
		cat "$out.err" >&2
	fi
	rm -f "$out.err"
	return "$rc"
}

# require_run_dir DIR: a usage error unless DIR is a study run directory.
require_run_dir() {
	[ -n "${1:-}" ] || usage_error "usage: $SLB_PROG RUNDIR"
	[ -f "$1/scenarios.list" ] || usage_error "'$1' is not a study run directory (no scenarios.list)"
}

# draw_plot SCRIPT OUTBASE VARS LOG: run plots/SCRIPT with the gnuplot
# assignments VARS (plus out and fmt) for PNG and SVG, errors to LOG; stop
# unless both OUTBASE.png and OUTBASE.svg were written.
draw_plot() {
	local script=$1 outbase=$2 vars=$3 log=$4 fmt
	for fmt in png svg; do
		(cd "$SLB_ROOT" && gnuplot -e "$vars; out='$outbase'; fmt='$fmt'" "plots/$script") 2>>"$log" ||
			die "gnuplot $script failed (log: $log)"
		[ -s "$outbase.$fmt" ] || die "gnuplot wrote no $outbase.$fmt"
	done
}

# check_run_id RESULTS ID [NOUN]: a usage error unless ID is a run id
# (letters, digits, . _ -, not starting with .) that RESULTS does not hold
# yet (NOUN, default "run", says what it would be in the message).
check_run_id() {
	case $2 in '' | .* | */* | *[!A-Za-z0-9._-]*) usage_error "--id '$2' must be letters, digits, . _ - and not start with ." ;; esac
	[ ! -e "$1/$2" ] || usage_error "${3:-run} '$2' exists in $1; refusing to overwrite it"
}

# begin_run_dir RESULTS ID STALE WHAT: a run is written into
# RESULTS/.incomplete-ID (its path in RUN_TMP, this shell's PID in its
# .pid) and renamed by end_run_dir, so that Ctrl-C or a failure leaves no
# half run. First the RESULTS/.incomplete-STALE directories that a run
# killed outright (SIGKILL, power loss) left, once their process is gone,
# are removed ("left by WHAT that did not finish"), but for a study or a
# sweep that can be resumed (its study.args or sweep.args: bench/study.sh
# or bench/experiment/sweep.sh --resume), which is named and kept; a run handed to Slurm (bench/runner/slurm.sh: the job ids in
# its .slurm-jobs) lives while Slurm still queues or runs one of its jobs.
begin_run_dir() {
	local results=$1 id=$2 glob=$3 what=$4 stale
	mkdir -p "$results" || die "cannot create $results"
	for stale in "$results"/.incomplete-$glob; do
		[ -d "$stale" ] && run_dir_dead "$stale" || continue
		if [ -f "$stale/study.args" ]; then
			say "keeping $stale: an interrupted study; 'make bench RESUME=${stale##*/.incomplete-}' finishes it (or remove it)"
			continue
		elif [ -f "$stale/sweep.args" ]; then
			say "keeping $stale: an interrupted sweep; 'make bench-sweep RESUME=${stale##*/.incomplete-}' finishes it (or remove it)"
			continue
		fi
		say "removing $stale, left by $what that did not finish"
		rm -rf "$stale"
	done
	RUN_TMP=$results/.incomplete-$id
	rm -rf "$RUN_TMP"
	# The directory appears with its .pid in it (made under a name the
	# scan above does not match, then renamed): a run starting beside this
	# one (a sweep's studies on Slurm, all at once) took a directory made
	# but not yet given its .pid for one left by a dead run, and removed it.
	local new=$results/.starting-$id.$$
	rm -rf "$new"
	{ mkdir -p "$new" && echo $$ >"$new/.pid" && mv -T "$new" "$RUN_TMP"; } || die "cannot create $RUN_TMP"
}

# run_dir_dead DIR: the run being written in DIR (begin_run_dir) has no
# process left: its .pid is gone or dead, and Slurm queues none of its jobs.
run_dir_dead() {
	local pid
	pid=$(cat "$1/.pid" 2>/dev/null)
	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || return 1
	[ ! -s "$1/.slurm-jobs" ] || [ -z "$(squeue -h -o %i -j "$(tr ' ' , <"$1/.slurm-jobs")" 2>/dev/null)" ]
}

# resumable_runs RESULTS: the ids of the interrupted studies in RESULTS
# that bench/study.sh --resume can finish, a line each.
resumable_runs() {
	local d
	for d in "$1"/.incomplete-*; do
		[ -f "$d/study.args" ] && run_dir_dead "$d" && echo "${d##*/.incomplete-}"
	done
	return 0
}

# end_run_dir TMP DEST: the run in TMP (begin_run_dir) is complete: it
# becomes DEST.
end_run_dir() {
	rm -f "$1/.pid"
	mv "$1" "$2" || die "could not rename $1 to $2"
}

# Sub-studies: a tool that runs whole studies (bench/study.sh) as its
# steps (sweep.sh, image-change.sh) starts each with sub_start, waits with
# sub_wait and ends those under way with sub_stop (its interrupt trap).
SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
# sub_start NAME LOG CMD...: run CMD in the background, its output in LOG.
sub_start() {
	local name=$1 log=$2
	shift 2
	"$@" >"$log" 2>&1 &
	SUB_PIDS+=($!) SUB_NAMES+=("$name") SUB_LOGS+=("$log")
}

# sub_stop: end the sub-studies under way (each cancels its own reps or
# jobs) and wait for them.
sub_stop() {
	[ ${#SUB_PIDS[@]} -eq 0 ] || kill -TERM "${SUB_PIDS[@]}" 2>/dev/null || true
	wait
	SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
}

# sub_wait: wait for the sub-studies started. At the first that fails:
# "the study NAME failed (log: LOG); it ends:" and its last lines, the
# others ended, return 1.
sub_wait() {
	local i
	for i in "${!SUB_PIDS[@]}"; do
		# reaped: not signalled again by sub_stop (its PID may be reused)
		wait "${SUB_PIDS[$i]}" && { unset "SUB_PIDS[$i]"; continue; }
		unset "SUB_PIDS[$i]"
		say "the study ${SUB_NAMES[$i]} failed (log: ${SUB_LOGS[$i]}); it ends:"
		tail -n 5 "${SUB_LOGS[$i]}" | sed 's/^/  /' >&2
		sub_stop
		return 1
	done
	SUB_PIDS=() SUB_NAMES=() SUB_LOGS=()
}

# What a study measures (study.sh --measure: cyclictest, timerlat or both):
# measure_phases M: the measurements one rep runs one after the other;
# run_measures M: the histograms its reps leave (slb-summary/slb-stats
# --measure: cyclictest, timerlat-irq, timerlat-thread); primary_measure M:
# the one summary.json, stats.json, the plots and the verdicts use
# (cyclictest, or timerlat's thread latency, the same wake-up's, when
# timerlat alone ran); run_measure RUNDIR: the M a run was made with (its
# manifest; cyclictest for runs from before the option).
measure_phases() { if [ "$1" = both ]; then echo 2; else echo 1; fi; }
run_measures() {
	case $1 in
	timerlat) echo timerlat-irq timerlat-thread ;;
	both) echo cyclictest timerlat-irq timerlat-thread ;;
	*) echo cyclictest ;;
	esac
}
primary_measure() { if [ "$1" = timerlat ]; then echo timerlat-thread; else echo cyclictest; fi; }
run_measure() { jq -r '.params.measure // "cyclictest"' "$1/manifest.json" 2>/dev/null || echo cyclictest; }
