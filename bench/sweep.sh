#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bus-lock cost sweep (make bench-sweep): for each cost C, a virtual-
# clock study of split-off (bench/study.sh with --bus-lock-ns C), and once
# its aligned control (no split locks: the cost does not apply), then one
# table and plot of the isolated vCPU's p99 / p99.9 / max (pooled,
# corrected for coordinated omission) against C: from which bus-lock cost
# does the offender break a 100 us deadline? Results in
# RESULTS/sweep-<id>/ (written as .incomplete-sweep-<id>, renamed at the
# end), one study run per cost under it (ns<C>/) and aligned/. Each study
# runs on the runner --runner names (local: one study after another; slurm:
# every study submitted at once, each a job array; bench/runner/).
#
# Exit status: 0 done, 1 failure, 2 usage error (nothing started).
set -uo pipefail
SLB_PROG=sweep
. "$(dirname "$0")/../scripts/lib.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

costs=$SWEEP_NS_DEFAULT duration=$SWEEP_DURATION_DEFAULT reps=$SWEEP_REPS_DEFAULT vcpus=$VCPUS_DEFAULT jobs=$JOBS_DEFAULT
quantum_ns=$QUANTUM_NS_DEFAULT deadline=100 results=$SLB_ROOT/results id= validate=0 runner=${SLB_RUNNER:-local}

usage() {
	cat <<USAGE
Usage: sweep.sh [options]
Run split-off and aligned for each bus-lock cost (virtual clock) and plot
the isolated vCPU's latency against the cost.

      --costs LIST      bus-lock costs in ns, 1 to 1000000, space- or
                        comma-separated, at least two (default "$costs")
  -d, --duration S      cyclictest seconds per run, 3 to 3600 (default $duration)
  -r, --reps N          repetitions per cost, 1 to 100 (default $reps)
  -v, --vcpus N         guest vCPUs, 2 to 8 (default $vcpus)
  -j, --jobs N          guests at once, 1 to 16 (default $jobs; slurm: tasks at
                        once, 1 to 10000)
  -R, --runner R        who dispatches each study's reps: local (default, or
                        \$SLB_RUNNER) or slurm (bench/study.sh --runner)
      --quantum-ns N    lock-step quantum, 1000 to 10000000 (default $quantum_ns)
      --deadline US     the deadline drawn and judged, 1 to 1000000 (default $deadline)
  -o, --results DIR     where the sweep goes (default results/)
      --id ID           sweep id (default: sweep-date-time)
      --validate        check the arguments and exit (0 good, 2 bad)
  -h, --help            this text
USAGE
}

opts=$(getopt -n sweep -o d:r:v:j:o:R:h -l costs:,duration:,reps:,vcpus:,jobs:,quantum-ns:,deadline:,results:,id:,validate,help \
	-l runner: -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	--costs) costs=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-v | --vcpus) vcpus=$2; shift 2 ;;
	-j | --jobs) jobs=$2; shift 2 ;;
	-R | --runner) runner=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
list=$(echo "$costs" | tr ',' ' ')
for c in $list; do check_number "bus-lock cost" "$c" 1 1000000; done
[ "$(echo "$list" | wc -w)" -ge 2 ] || usage_error "--costs '$costs': a sweep needs at least two costs"
check_number --deadline "$deadline" 1 1000000
[ -n "$id" ] || id=sweep-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id" sweep
study=("$SLB_ROOT/bench/study.sh" --clock virtual --bus-lock-model all --duration "$duration"
	--reps "$reps" --vcpus "$vcpus" --jobs "$jobs" --quantum-ns "$quantum_ns" --runner "$runner")
# The study checks the rest (and exits 2 naming the value).
"${study[@]}" --validate --results "$results" || exit 2
[ "$validate" = 0 ] || exit 0

mkdir -p "$results" || die "cannot create $results"
tmp=$results/.incomplete-$id
rm -rf "$tmp"
mkdir -p "$tmp" || die "cannot create $tmp"
pids=() names=()
# sub_stop: end the studies under way (each cancels its own reps or jobs).
sub_stop() {
	[ ${#pids[@]} -eq 0 ] || kill -TERM "${pids[@]}" 2>/dev/null
	wait
}
trap 'trap "" INT TERM HUP; sub_stop; rm -rf "$tmp"; say "interrupted: nothing kept of sweep $id"; exit 130' INT TERM HUP
# sub_wait: wait for the studies started; stop at the first that fails.
sub_wait() {
	local i
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" && continue
		say "the study ${names[$i]} failed (log: $tmp/${names[$i]}.log); it ends:"
		tail -n 5 "$tmp/${names[$i]}.log" | sed 's/^/  /' >&2
		sub_stop
		exit 1
	done
	pids=() names=()
}
# sub_study NAME WHAT ARG...: a study into $tmp/NAME (log $tmp/NAME.log).
# Locally one after another; on Slurm all at once, each waiting on its own
# job array (Slurm decides what runs when).
total=$(($(echo "$list" | wc -w) + 1)) start=$(date +%s) n=0
sub_study() {
	local name=$1 what=$2
	shift 2
	n=$((n + 1))
	say "[$n/$total] $what; elapsed $(($(date +%s) - start)) s"
	"${study[@]}" "$@" --results "$tmp" --id "$name" >"$tmp/$name.log" 2>&1 &
	pids+=($!) names+=("$name")
	[ "$runner" = slurm ] || sub_wait
}
sub_study aligned "the aligned control" --scenarios aligned
for c in $list; do
	sub_study "ns$c" "split-off at a bus-lock cost of $c ns" --scenarios split-off --bus-lock-ns "$c"
done
sub_wait
# stats_json DIR: a sub-study's stats.json (its report wrote it; made here
# only if that report failed).
stats_json() {
	[ -s "$1/stats.json" ] || stats_tool "$1/stats.json" "$SLB_ROOT/build/host/slb-stats" "$1" ||
		die "no statistics for $1"
	echo "$1/stats.json"
}
aligned_p999=$(jq '.scenarios[0].corrected.p999_us' "$(stats_json "$tmp/aligned")") ||
	die "no statistics for the aligned control"
# One line per cost: C, split-off pooled p99, p99.9, max, aligned p99.9.
{
	echo "# bus_lock_ns split_p99_us split_p999_us split_max_us aligned_p999_us (split: corrected, pooled)"
	for c in $list; do
		jq -r --arg c "$c" --arg a "$aligned_p999" '.scenarios[0] |
			"\($c) \(.corrected.p99_us) \(.corrected.p999_us) \(.corrected.max_us) \($a)"' \
			"$(stats_json "$tmp/ns$c")" || die "no summary for $c ns"
	done
} >"$tmp/sweep.dat"
jq -R -s --argjson deadline "$deadline" '
	[split("\n")[] | select(length > 0 and (startswith("#") | not)) | split(" ") | map(tonumber) |
	 {bus_lock_ns: .[0], split_p99_us: .[1], split_p999_us: .[2], split_max_us: .[3], aligned_p999_us: .[4]}] as $rows |
	{unit: "us", clock: "virtual", deadline_us: $deadline, rows: $rows,
	 monotonic_p999: ([range(1; $rows | length) | $rows[.].split_p999_us >= $rows[. - 1].split_p999_us] | all),
	 first_cost_breaking_deadline_ns: ([$rows[] | select(.split_max_us > $deadline) | .bus_lock_ns] | first // null)}' \
	"$tmp/sweep.dat" >"$tmp/sweep.json" || die "could not write sweep.json"
draw_plot sweep.gp "$tmp/sweep" "datafile='$tmp/sweep.dat'; deadline=$deadline; run='$id'" "$tmp/gnuplot.log"
mv "$tmp" "$results/$id" || die "could not rename $tmp"
say "sweep $id complete in $(($(date +%s) - start)) s: $results/$id"
column -t "$results/$id/sweep.dat"
jq -r '"p99.9 monotonic in the cost: \(.monotonic_p999); first cost whose max breaks \(.deadline_us) us: \(.first_cost_breaking_deadline_ns // "none") ns"' "$results/$id/sweep.json"
