#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bus-lock cost sweep (make bench-sweep): for each cost C, a virtual-
# clock study of split-off (bench/study.sh with --bus-lock-ns C), and once
# its aligned control (no split locks: the cost does not apply), then one
# table, plot and report of the isolated vCPU's p99 / p99.9 / max (pooled,
# corrected for coordinated omission) against C: from which split-lock
# cost does the offender break a 100 us deadline?
#
# The model is the study's (--bus-lock-model). calibrated (the default)
# sweeps the calibrations (--calibrations, default the committed ones:
# SWEEP_CALIBRATIONS_DEFAULT), each at its own cost, hold and shield
# (cal_model in bench/lib/calibration.jq through bus_model_load): the
# points are platforms that were measured, none scaled; with --costs it
# sweeps one calibration (--calibration) scaled to each cost C instead
# (the issuer pays C, the bus is held that calibration's share of it,
# the modelled cache unchanged; "cal" stands for its own cost): one
# platform's hold share carried to costs it was not measured at. all
# sweeps the all-stall model's cost (every vCPU that meets a lock waits
# for all of it: the worst case). Results in RESULTS/sweep-<id>/ (written
# as .incomplete-sweep-<id>, renamed at the end): one study run per point
# under it (ns<C>/ per cost, cal-<name>/ per calibration) and aligned/;
# sweep.dat, sweep.json, sweep.png/svg, report.md. Each study runs on the runner --runner names (local: one
# study after another; slurm: every study submitted at once, each a job
# array; bench/runner/).
#
# Ctrl-C keeps what the sweep finished (its finished studies, and the
# recorded reps of the one under way) in RESULTS/.incomplete-<id>;
# --resume ID (make bench-sweep RESUME=ID) finishes it with its own
# options, each study resumed (bench/study.sh --resume) or run.
#
# Exit status: 0 done, 1 failure, 2 usage error (nothing started), 130
# interrupted (what finished kept for --resume; nothing finished: nothing
# kept).
set -uo pipefail
SLB_PROG=sweep
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

costs= cals= cal_given=0 duration=$SWEEP_DURATION_DEFAULT reps=$SWEEP_REPS_DEFAULT vcpus=$VCPUS_DEFAULT jobs=$JOBS_DEFAULT
quantum_ns=$QUANTUM_NS_DEFAULT deadline=100 load_rate=0 results=$SLB_ROOT/results id= validate=0 runner=${SLB_RUNNER:-local}
bus_model=${SLB_BUS_LOCK_MODEL:-$BUS_LOCK_MODEL_DEFAULT} calibration=${SLB_CALIBRATION:-$SLB_ROOT/$CALIBRATION_DEFAULT}

usage() {
	cat <<USAGE
Usage: sweep.sh [options]
Run split-off and aligned for each split-lock cost (virtual clock) and plot
the isolated vCPU's latency against the cost.

      --bus-lock-model M  calibrated (calibrations, each at its own cost; or
                        with --costs one scaled to each cost: the hold in
                        proportion, the cache unchanged) or all (every vCPU
                        that meets a lock waits for all of it: the worst
                        case); default \$SLB_BUS_LOCK_MODEL or
                        $BUS_LOCK_MODEL_DEFAULT
      --calibrations LIST  calibrated: the calibrations swept, each at its
                        own cost (names, run directories or files,
                        comma-separated, at least two; default
                        "$SWEEP_CALIBRATIONS_DEFAULT")
      --calibration FILE  calibrated with --costs: the calibration scaled, a
                        calibration.json, the run directory that holds one,
                        or a committed calibration's name ($(echo "$CALIBRATION_NAMES" | sed 's/:[^,]*//g; s/,/, /g'))
                        (default \$SLB_CALIBRATION or $CALIBRATION_DEFAULT)
      --costs LIST      split-lock costs in ns, 1 to 1000000, space- or
                        comma-separated, at least two (all: default
                        "$SWEEP_NS_ALL_DEFAULT"); calibrated: --calibration
                        scaled to each, "cal" its own cost
  -d, --duration S      cyclictest seconds per run, 3 to 3600 (default $duration)
  -r, --reps N          repetitions per cost, 1 to 100 (default $reps)
  -v, --vcpus N         guest vCPUs, 2 to 8 (default $vcpus)
  -j, --jobs N          guests at once, 1 to 16 (default $jobs; slurm: tasks at
                        once, 1 to 10000)
  -R, --runner R        who dispatches each study's reps: local (default, or
                        \$SLB_RUNNER) or slurm (bench/study.sh --runner)
      --quantum-ns N    lock-step quantum, 1000 to 10000000 (default $quantum_ns)
      --deadline US     the deadline drawn and judged, 1 to 1000000 (default $deadline)
      --load-rate N     the offender's ops per second per thread, split-off's
                        and the aligned control's, 0 to 100000000 (default
                        0: flat out; bench/study.sh --load-rate)
  -o, --results DIR     where the sweep goes (default results/)
      --id ID           sweep id (default: sweep-date-time)
      --resume ID       finish the interrupted sweep ID with its own options
                        (only --results, --jobs and --runner may be given)
      --validate        check the arguments and exit (0 good, 2 bad)
  -h, --help            this text
USAGE
}

# sweep_getopt ARG...: the options, as getopt reads them (the command
# line's, and a resumed sweep's sweep.args).
sweep_getopt() {
	getopt -n sweep -o d:r:v:j:o:R:h -l costs:,duration:,reps:,vcpus:,jobs:,quantum-ns:,deadline:,load-rate:,results:,id:,validate,help \
		-l runner:,bus-lock-model:,calibration:,calibrations:,resume: -- "$@"
}
opts=$(sweep_getopt "$@") || exit 2
eval set -- "$opts"
resume=
# parse_opts OPTION...: the options into the variables (getopt's output).
parse_opts() {
while true; do
	case $1 in
	--costs) costs=$2; shift 2 ;;
	--bus-lock-model) bus_model=$2; shift 2 ;;
	--calibration) calibration=$2 cal_given=1; shift 2 ;;
	--calibrations) cals=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-v | --vcpus) vcpus=$2; shift 2 ;;
	-j | --jobs) jobs=$2; shift 2 ;;
	-R | --runner) runner=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--resume) resume=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
}
args=("$@")
parse_opts "$@"
# --resume ID: the sweep's own options (sweep.args), then --results,
# --jobs and --runner as given here; nothing else may be given.
if [ -n "$resume" ]; then
	case $resume in .* | */* | *[!A-Za-z0-9._-]*) usage_error "--resume '$resume' is not a sweep id" ;; esac
	rdir=$results/.incomplete-$resume
	[ -f "$rdir/sweep.args" ] || usage_error "--resume '$resume': no interrupted sweep of that id in $results"
	for a in "${args[@]}"; do
		case $a in --resume | -o | --results | -j | --jobs | -R | --runner | --validate | --) ;;
		-*) usage_error "--resume takes the sweep's own options: '$a' is not allowed beside it (allowed: --results, --jobs, --runner)" ;;
		esac
	done
	r_results=$results r_jobs=$jobs r_runner=$runner
	mapfile -t stored <"$rdir/sweep.args"
	sopts=$(sweep_getopt "${stored[@]}") || usage_error "$rdir/sweep.args does not parse"
	eval set -- "$sopts"
	parse_opts "$@"
	results=$r_results jobs=$r_jobs runner=$r_runner id=$resume
	pid=$(cat "$rdir/.pid" 2>/dev/null)
	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || usage_error "--resume '$resume': the sweep is still running (pid $pid)"
fi
check_choice BUS_LOCK_MODEL "$bus_model" calibrated all
[ "$cal_given" = 0 ] || [ -n "$costs" ] || [ "$bus_model" = all ] ||
	usage_error "--calibration '$calibration' is the calibration --costs scales; the calibrations swept each at its own cost are --calibrations"
[ "$bus_model" = all ] || calibration=$(cal_resolve "$calibration") || exit 2
[ -z "$costs" ] || [ -z "$cals" ] ||
	usage_error "--costs and --calibrations are two kinds of sweep (one calibration scaled, or each at its own cost): give one"
[ -z "$cals" ] || [ "$bus_model" = calibrated ] ||
	usage_error "--calibrations '$cals' is for BUS_LOCK_MODEL=calibrated (all: --costs)"
if [ -z "$costs" ] && [ -z "$cals" ]; then
	if [ "$bus_model" = all ]; then costs=$SWEEP_NS_ALL_DEFAULT; else cals=$SWEEP_CALIBRATIONS_DEFAULT; fi
fi
# The points, in increasing cost: list (their names: ns<C> per cost,
# cal-<name> per calibration), and per point its cost, hold, the words of
# its progress line, its label (calibrations: the name; else -) and its
# calibration file (calibrations only).
declare -A cost=() hold=() what=() plabel=() pfile=()
if [ -n "$cals" ]; then
	# Each calibration at its own cost: a committed one by its name, a run
	# by its directory's name.
	for c in $(echo "$cals" | tr ',' ' '); do
		f=$(cal_resolve "$c") || exit 2
		bus_model_load calibrated "$f"
		n=$c
		[ "$n" = "${n//\//}" ] || n=$(basename "$(dirname "$(realpath -m "$f")")")
		n=${n%.json}
		[ -z "${cost[cal-$n]:-}" ] || usage_error "--calibrations '$cals' names $n twice"
		cost[cal-$n]=$bus_lock_ns hold[cal-$n]=$bus_hold_ns plabel[cal-$n]=$n pfile[cal-$n]=$f
		what[cal-$n]="calibration $n: hold $bus_hold_ns ns, $([ "$bus_cache_kb" = 0 ] && echo "no shield" || echo "a $bus_cache_kb KiB shield")"
	done
	[ "${#cost[@]}" -ge 2 ] || usage_error "--calibrations '$cals': a sweep needs at least two calibrations"
	[ "$(printf '%s\n' "${cost[@]}" | sort -u | wc -l)" = "${#cost[@]}" ] ||
		usage_error "--calibrations '$cals': two of them cost the same, $(printf '%s\n' "${cost[@]}" | sort | uniq -d | head -n 1) ns (a sweep plots against the cost)"
	list=$(for p in "${!cost[@]}"; do echo "${cost[$p]} $p"; done | sort -n | cut -d' ' -f2 | tr '\n' ' ')
	# the aligned control (no split locks: no model acts) under the first
	calibration=${pfile[${list%% *}]}
else
	# The costs, numbers ("cal": the calibration's own); per cost the hold
	# its model gives (bus_model_load: calibrated, the calibration scaled
	# to it; all, the whole cost).
	if [ "$bus_model" = calibrated ]; then
		bus_model_load calibrated "$calibration"
		cal_cost=$bus_lock_ns
	fi
	nums=
	for c in $(echo "$costs" | tr ',' ' '); do
		if [ "$c" = cal ]; then
			[ "$bus_model" = calibrated ] ||
				usage_error "bus-lock cost 'cal' (the calibration's own) is for BUS_LOCK_MODEL=calibrated (allowed: 1 to 1000000)"
			c=$cal_cost
		fi
		check_number "bus-lock cost" "$c" 1 1000000
		nums+=" $c"
	done
	nums=$(echo $nums | tr ' ' '\n' | sort -n -u | tr '\n' ' ')
	[ "$(echo "$nums" | wc -w)" -ge 2 ] || usage_error "--costs '$costs': a sweep needs at least two costs"
	list=
	for c in $nums; do
		list+="ns$c " cost[ns$c]=$c plabel[ns$c]=-
		if [ "$bus_model" = calibrated ]; then
			bus_model_load calibrated "$calibration" "$c"
			hold[ns$c]=$bus_hold_ns
			if [ "$bus_scaled" = 1 ]; then what[ns$c]="calibrated, scaled: hold $bus_hold_ns ns"; else what[ns$c]="calibrated: hold $bus_hold_ns ns"; fi
		else
			hold[ns$c]=$c what[ns$c]="all-stall"
		fi
	done
fi
list=${list% }
check_number --deadline "$deadline" 1 1000000
check_number --load-rate "$load_rate" 0 100000000
[ -n "$id" ] || id=sweep-$(date +%Y%m%d-%H%M%S)
[ -n "$resume" ] || check_run_id "$results" "$id" sweep
model_args=(--bus-lock-model "$bus_model")
[ "$bus_model" = all ] || model_args+=(--calibration "$calibration")
study=("$SLB_ROOT/bench/study.sh" --clock virtual "${model_args[@]}" --duration "$duration"
	--reps "$reps" --vcpus "$vcpus" --jobs "$jobs" --quantum-ns "$quantum_ns" --load-rate "$load_rate" --runner "$runner")
# The study checks the rest (and exits 2 naming the value).
"${study[@]}" --validate --results "$results" || exit 2
[ "$validate" = 0 ] || exit 0

mkdir -p "$results" || die "cannot create $results"
tmp=$results/.incomplete-$id
if [ -z "$resume" ]; then
	rm -rf "$tmp"
	mkdir -p "$tmp" || die "cannot create $tmp"
	# the options that make this sweep again, for --resume
	printf '%s\n' --bus-lock-model "$bus_model" --duration "$duration" --reps "$reps" --vcpus "$vcpus" \
		--quantum-ns "$quantum_ns" --deadline "$deadline" --load-rate "$load_rate" --id "$id" >"$tmp/sweep.args"
	if [ -n "$cals" ]; then printf '%s\n' --calibrations "$cals" >>"$tmp/sweep.args"
	else printf '%s\n' --costs "$costs" >>"$tmp/sweep.args"; fi
	[ "$bus_model" = all ] || [ -z "$costs" ] || printf '%s\n' --calibration "$calibration" >>"$tmp/sweep.args"
fi
echo $$ >"$tmp/.pid"
# Ctrl-C: each study under way keeps its recorded reps (bench/study.sh);
# the sweep keeps them and its finished studies, if there are any.
stop_sweep() {
	trap '' INT TERM HUP
	sub_stop
	rm -f "$tmp/.pid"
	if [ -z "$(find "$tmp" -mindepth 3 -maxdepth 4 -name rep.info 2>/dev/null | head -n 1)" ] && [ -z "$resume" ]; then
		rm -rf "$tmp"
		say "interrupted: nothing had finished; nothing kept of sweep $id"
	else
		say "interrupted: what finished is kept in $tmp; 'make bench-sweep RESUME=$id' (bench/experiment/sweep.sh --resume $id) finishes the sweep"
	fi
	exit 130
}
trap stop_sweep INT TERM HUP
# sub_study NAME WHAT ARG...: a study into $tmp/NAME (log $tmp/NAME.log).
# Locally one after another; on Slurm all at once, each waiting on its own
# job array (Slurm decides what runs when).
total=$(($(echo "$list" | wc -w) + 1)) start=$(date +%s) n=0
# On --resume a study already done is skipped, one interrupted resumed.
sub_study() {
	local name=$1 what=$2
	shift 2
	n=$((n + 1))
	if [ -d "$tmp/$name" ]; then
		say "[$n/$total] $what: done before"
		return
	fi
	say "[$n/$total] $what; elapsed $(($(date +%s) - start)) s"
	if [ -f "$tmp/.incomplete-$name/study.args" ]; then
		sub_start "$name" "$tmp/$name.resumed.log" "$SLB_ROOT/bench/study.sh" --resume "$name" --results "$tmp" --jobs "$jobs" --runner "$runner"
	else
		sub_start "$name" "$tmp/$name.log" "${study[@]}" "$@" --results "$tmp" --id "$name"
	fi
	[ "$runner" = slurm ] || sub_wait || exit 1
}
sub_study aligned "the aligned control" --scenarios aligned
for p in $list; do
	if [ -n "$cals" ]; then set -- --calibration "${pfile[$p]}"; else set -- --bus-lock-ns "${cost[$p]}"; fi
	sub_study "$p" "split-off at a bus-lock cost of ${cost[$p]} ns (${what[$p]})" --scenarios split-off "$@"
done
sub_wait || exit 1
# stats_json DIR: a sub-study's stats.json (its report wrote it; made here
# only if that report failed).
stats_json() {
	[ -s "$1/stats.json" ] || stats_tool "$1/stats.json" "$SLB_ROOT/build/host/slb-stats" "$1" ||
		die "no statistics for $1"
	echo "$1/stats.json"
}
aligned_p999=$(jq '.scenarios[0].corrected.p999_us' "$(stats_json "$tmp/aligned")") ||
	die "no statistics for the aligned control"
# The model, as the studies ran it (their manifests): one object.
if [ -n "$cals" ]; then
	model=$(for p in $list; do jq -c --arg n "${plabel[$p]}" '.params | {name: $n, calibration, cost_ns: .bus_lock_ns,
		hold_ns: .bus_hold_ns, cache_kb: .bus_cache_kb, cache_ways: .bus_cache_ways}' "$tmp/$p/manifest.json" ||
		die "no manifest for $p"; done | jq -s -c '{name: "calibrations", calibrations: .,
		description: "calibrated, each calibration at its own cost, hold and shield, none scaled: \(map("\(.name) (\(.calibration): \(.cost_ns) ns, hold \(.hold_ns) ns, \(if .cache_kb == 0 then "no shield" else "\(.cache_kb) KiB \(.cache_ways)-way shield" end))") | join(", "))"}') ||
		die "no manifests"
else
model=$(jq -c --arg m "$bus_model" --arg cal "${calibration#"$SLB_ROOT"/}" '.params |
	if $m == "calibrated" then
		{name: "calibrated", calibration: $cal, calibrated_cost_ns: (.calibrated_cost_ns // .bus_lock_ns),
		 calibrated_hold_ns: (.calibrated_hold_ns // .bus_hold_ns), cache_kb: .bus_cache_kb, cache_ways: .bus_cache_ways}
		| . + {hold_per_cost: ((.calibrated_hold_ns / .calibrated_cost_ns * 10000 | round) / 10000),
		  description: "calibrated (\(.calibration): a split lock of \(.calibrated_cost_ns) ns holds the bus \(.calibrated_hold_ns) ns), scaled to each cost: the hold in proportion (\(.calibrated_hold_ns * 1000 / .calibrated_cost_ns | round / 10) % of the cost), a cache-missing vCPU waits, the \(.cache_kb) KiB \(.cache_ways)-way modelled cache unchanged"}
	else {name: "all", description: "all-stall: every vCPU that meets a split lock waits for all of it (the worst case)"} end' \
	"$tmp/${list%% *}/manifest.json") || die "no manifest for ${list%% *}"
fi
# One line per point: its cost C, split-off pooled p99, p99.9, max,
# aligned p99.9, the bus hold (calibrated: the study's; all: the whole
# cost), its label (the calibration's name; -: a cost).
{
	echo "# model: $(jq -r .description <<<"$model")"
	echo "# bus_lock_ns split_p99_us split_p999_us split_max_us aligned_p999_us bus_hold_ns label (split: corrected, pooled)"
	for p in $list; do
		h=${hold[$p]}
		[ "$bus_model" = all ] || h=$(jq -r '.params.bus_hold_ns' "$tmp/$p/manifest.json") || die "no manifest for $p"
		jq -r --arg c "${cost[$p]}" --arg a "$aligned_p999" --arg h "$h" --arg l "${plabel[$p]}" '.scenarios[0] |
			"\($c) \(.corrected.p99_us) \(.corrected.p999_us) \(.corrected.max_us) \($a) \($h) \($l)"' \
			"$(stats_json "$tmp/$p")" || die "no summary for $p"
	done
} >"$tmp/sweep.dat"
jq -R -s --argjson deadline "$deadline" --argjson model "$model" --arg id "$id" --argjson rate "$load_rate" '
	[split("\n")[] | select(length > 0 and (startswith("#") | not)) | split(" ") | (.[:6] | map(tonumber)) + .[6:] |
	 {bus_lock_ns: .[0], split_p99_us: .[1], split_p999_us: .[2], split_max_us: .[3], aligned_p999_us: .[4], bus_hold_ns: .[5]}
	 + (if .[6] != "-" then {calibration: .[6]} else {} end)
	 | if $model.name == "calibrated" then .calibrated_point = (.bus_lock_ns == $model.calibrated_cost_ns) else . end] as $rows |
	{sweep_id: $id, unit: "us", clock: "virtual", model: $model, deadline_us: $deadline, load_rate: $rate, rows: $rows,
	 monotonic_p999: ([range(1; $rows | length) | $rows[.].split_p999_us >= $rows[. - 1].split_p999_us] | all),
	 first_cost_breaking_deadline_ns: ([$rows[] | select(.split_max_us > $deadline) | .bus_lock_ns] | first // null),
	 first_cost_p999_breaking_deadline_ns: ([$rows[] | select(.split_p999_us > $deadline) | .bus_lock_ns] | first // null)}' \
	"$tmp/sweep.dat" >"$tmp/sweep.json" || die "could not write sweep.json"
# The plot's model line (no quotes: it is a gnuplot string) and the
# calibrated point (0: none).
label=$(jq -r '.model | if .name == "calibrated" then "calibrated model scaled to each cost: hold \(.hold_per_cost * 1000 | round / 10) % of it, \(.cache_kb) KiB \(.cache_ways)-way cache"
	elif .name == "calibrations" then "calibrated model: each calibration at its own cost, hold and shield (none scaled)"
	else "all-stall model: every vCPU waits the whole cost (worst case)" end' "$tmp/sweep.json")
calpoint=$(jq -r '.model.calibrated_cost_ns // 0' "$tmp/sweep.json")
draw_plot sweep.gp "$tmp/sweep" "datafile='$tmp/sweep.dat'; deadline=$deadline; run='$id'; model='$label'; calpoint=$calpoint; labels=$([ -n "$cals" ] && echo 1 || echo 0)" "$tmp/gnuplot.log"
# report.md: the model, the table, the deadline verdict.
jq -r '
	def verdict($f; $what): if $f then "from \($f) ns per split lock on (the first cost swept whose \($what) exceeds \(.deadline_us) us)" else "at no cost swept" end;
	"# Split-lock cost sweep \(.sweep_id)",
	"",
	"**Emulated, virtual time** (QEMU TCG, icount: 1 instruction = 1 ns, lock-step vCPUs): every latency is the guest'"'"'s; read how it grows with the cost and where it crosses the deadline, not hardware microseconds.",
	"",
	"Bus-lock model: \(.model.description).",
	"",
	"split-off (a split-lock loop on the housekeeping vCPU) against its aligned control, \(if .load_rate > 0 then "both at \(.load_rate) ops per second per thread" else "both flat out" end), cyclictest on the isolated vCPU; p99, p99.9 and max pooled over the reps, corrected for coordinated omission; one study per \(if .model.name == "calibrations" then "calibration (`cal-<name>/report.md`)" else "cost (`ns<C>/report.md`)" end), the control once (`aligned/report.md`).",
	"",
	"| split-lock cost ns | bus hold ns | p99 us | p99.9 us | max us | aligned p99.9 us |",
	"| ---: | ---: | ---: | ---: | ---: | ---: |",
	(.rows[] | "| \(.bus_lock_ns)\(if .calibrated_point then " (calibrated)" elif .calibration then " (\(.calibration))" else "" end) | \(.bus_hold_ns) | \(.split_p99_us) | \(.split_p999_us) | \(.split_max_us) | \(.aligned_p999_us) |"),
	"",
	"A \(.deadline_us) us deadline: p99.9 breaks it \(verdict(.first_cost_p999_breaking_deadline_ns; "p99.9")); the largest wake-up \(verdict(.first_cost_breaking_deadline_ns; "max")). p99.9 \(if .monotonic_p999 then "grows" else "does not grow" end) monotonically with the cost.",
	"",
	"![sweep](sweep.png) ([SVG](sweep.svg))"' "$tmp/sweep.json" >"$tmp/report.md" || die "could not write report.md"
rm -f "$tmp/.pid" "$tmp/sweep.args"
mv "$tmp" "$results/$id" || die "could not rename $tmp"
say "sweep $id complete in $(($(date +%s) - start)) s: $results/$id"
sed -n '1s/^# //p' "$results/$id/sweep.dat"
grep -v '^# model' "$results/$id/sweep.dat" | column -t
jq -r '"p99.9 monotonic in the cost: \(.monotonic_p999); first cost whose p99.9 breaks \(.deadline_us) us: \(.first_cost_p999_breaking_deadline_ns | if . then "\(.) ns" else "none" end), whose max does: \(.first_cost_breaking_deadline_ns | if . then "\(.) ns" else "none" end)"' "$results/$id/sweep.json"
