#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make validate-study (issue 33): the bus-lock model checked at the level
# users decide on. The same scenarios (default baseline, aligned,
# split-off) run as two whole studies (bench/study.sh): natively on this
# machine's running kernel (--target native, as root: real split locks)
# and in the emulator (--target guest, virtual clock, the calibrated model
# of --calibration: by default this machine's newest make calibrate). The
# guest is set up as close to the native machine as the project can: the
# native CPUs' count (the measured one and its load CPUs), and on the
# guest's command line the isolation the native kernel gives the measured
# CPU (isolcpus, nohz_full, rcu_nocbs, irqaffinity: read from the native
# facts, bench/target/detect.sh), none where the native kernel has none
# (the guest option isolation= of the scenarios' column 8, which the guest
# study's copy of the scenario file carries).
#
# Per scenario and quantile (p50, p99, p99.9 of each rep, corrected for
# coordinated omission: slb-stats): the median over reps on each side and
# model / native (Hodges-Lehmann over reps on the logs, unpaired, its 95 %
# interval: slb-ratio). Per comparison (each scenario over its control,
# its control's control and so on, those run: split-off / aligned,
# split-off / baseline, aligned / baseline by default): the ratio within each
# side (the same estimate) and model / native, with bounds (the quotients
# of the two intervals' ends: conservative, not an interval of its own).
# Where either side has too few reps for an interval (4 and 4 at least),
# the estimate stands alone and its interval is null.
#
# Native split locks slow every CPU of this machine: the plan says up front
# how many seconds of them the native study holds (the scenarios with a
# split-lock load only: reps x their load's run) and a plan over
# --max-split-s is refused; --load-rate bounds them further (both studies
# run the same rate). --native-run and --model-run take a study already
# made instead of running one (its directory is linked, not copied).
#
# Results in RESULTS/validate-study-<id>/ (written as .incomplete-<id> and
# renamed at the end: Ctrl-C or a failure leaves nothing half-done):
#   validation.json, validation.txt, validation.md   the comparison
#   ratios.{png,svg}, ratios.dat   model / native per row and quantile
#   native/, model/   the two studies (or links to those given)
#   native.log, model.log   their progress; native.stats.json,
#                    model.stats.json   their statistics (slb-stats)
#   native.facts     what the native facts said (the guest's isolation)
#   model-scenarios.conf   the guest study's scenario file
#
# Exit status: 0 done, 1 failure (a study failed, a tool failed), 2 usage
# error (nothing started): bad options, a plan over --max-split-s, a run
# given that is no study of the right kind, a study's own refusal.
set -uo pipefail
SLB_PROG=validate-study
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/bench/scenarios.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

SCENARIO_FILE=${SLB_SCENARIO_FILE:-$SLB_ROOT/rt-config/scenarios.conf}
STUDY=$SLB_ROOT/bench/study.sh
scenarios=baseline,aligned,split-off duration=$DURATION_DEFAULT reps=$REPS_DEFAULT interval=$INTERVAL_DEFAULT
warmup=$WARMUP_DEFAULT load_rate=0 jobs=$JOBS_DEFAULT quantum_ns=$QUANTUM_NS_DEFAULT max_split_s=120
calibration= isolation=auto native_run= model_run= measure_cpu= load_cpus=
results=$SLB_ROOT/results id= validate=0
declare -A given=()

usage() {
	cat <<USAGE
Usage: validate-study.sh [options]
The same scenarios as a native study and an emulated one (the calibrated
bus-lock model), model / native per scenario and comparison at p50, p99
and p99.9; results in RESULTS/validate-study-<id>/.

  -s, --scenarios LIST  comma- or space-separated (default $scenarios)
  -d, --duration S      cyclictest seconds per rep, 3 to 3600 (default $duration)
  -r, --reps N          reps per scenario and side, 1 to 100 (default $reps;
                        an interval needs 4)
  -i, --interval US     cyclictest interval, 100 to 100000 (default $interval)
      --load-rate N     slb-load ops per second per thread on both sides, 0 =
                        flat out, to 100000000 (default $load_rate)
      --max-split-s S   refuse a plan with more seconds of native split
                        locks, 1 to 3600 (default $max_split_s)
      --calibration C   the model's native calibration.json (a file, its run
                        directory or a committed calibration's name; default
                        the newest RESULTS/calibrate-*/calibration.json, else
                        the study's default, $CALIBRATION_DEFAULT)
      --isolation I     the guest's isolation of its measured vCPU: auto (what
                        the native kernel gives the measured CPU), none, all, or
                        a +-separated list of isolcpus, nohz_full, rcu_nocbs,
                        irqaffinity (default $isolation)
      --measure-cpu N   native: the CPU cyclictest measures (default the last)
      --load-cpus LIST  native: the load's CPUs (default all others)
  -j, --jobs N          guests at once, 1 to 16 (default $jobs)
      --quantum-ns N    lock-step quantum, 1000 to 10000000 (default $quantum_ns)
      --native-run DIR  a native study already made (no native run here; its
                        duration, interval, warm-up and load rate are taken,
                        and its reps unless --reps is given)
      --model-run DIR   an emulated study already made (no guest booted)
  -o, --results DIR     where the run goes (default results/)
      --id ID           run id (default: validate-study-date-time)
      --validate        check the arguments, print the plan and exit (0 good, 2 bad)
  -h, --help            this text
Environment: SLB_QEMU, SLB_INITRD (set by make validate-study);
SLB_SCENARIO_FILE (another scenario file); SLB_TARGET_FACTS (tests: facts
that stand in for the native machine's, as for the native study).
USAGE
}

opts=$(getopt -n validate-study -o s:d:r:i:j:o:h \
	-l scenarios:,duration:,reps:,interval:,load-rate:,max-split-s:,calibration:,isolation:,measure-cpu:,load-cpus: \
	-l jobs:,quantum-ns:,native-run:,model-run:,results:,id:,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-s | --scenarios) scenarios=$2; shift 2 ;;
	-d | --duration) duration=$2 given[duration]=1; shift 2 ;;
	-r | --reps) reps=$2 given[reps]=1; shift 2 ;;
	-i | --interval) interval=$2 given[interval]=1; shift 2 ;;
	--load-rate) load_rate=$2 given[load_rate]=1; shift 2 ;;
	--max-split-s) max_split_s=$2; shift 2 ;;
	--calibration) calibration=$2; shift 2 ;;
	--isolation) isolation=$2; shift 2 ;;
	--measure-cpu) measure_cpu=$2; shift 2 ;;
	--load-cpus) load_cpus=$2; shift 2 ;;
	-j | --jobs) jobs=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	--native-run) native_run=$2; shift 2 ;;
	--model-run) model_run=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
check_number --duration "$duration" 3 3600
check_number --reps "$reps" 1 100
check_number --interval "$interval" 100 100000
check_number --load-rate "$load_rate" 0 100000000
check_number --max-split-s "$max_split_s" 1 3600
check_number --jobs "$jobs" 1 16
check_number --quantum-ns "$quantum_ns" 1000 10000000
[ -z "$measure_cpu" ] || check_number --measure-cpu "$measure_cpu" 0 4095
[ -z "$load_cpus" ] || [[ $load_cpus =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
	usage_error "--load-cpus '$load_cpus' is not a CPU list (e.g. 0 or 0,2 or 0-2)"
ISOLATION_WORDS="isolcpus nohz_full rcu_nocbs irqaffinity"
case $isolation in
auto | none | all) ;;
*)
	for w in ${isolation//+/ }; do
		[[ " $ISOLATION_WORDS " == *" $w "* ]] ||
			usage_error "--isolation '$isolation': '$w' is not allowed (allowed: auto, none, all, or isolcpus, nohz_full, rcu_nocbs, irqaffinity joined by +)"
	done ;;
esac
[ -f "$SCENARIO_FILE" ] || usage_error "scenario file '$SCENARIO_FILE' does not exist"
field() { scenario_field "$SCENARIO_FILE" "$@"; }
list=()
for s in ${scenarios//,/ }; do
	[ -n "$(field "$s" 1)" ] || usage_error "--scenarios: unknown scenario '$s' (allowed: $(scenario_names "$SCENARIO_FILE" | tr '\n' ' '))"
	[[ " ${list[*]} " == *" $s "* ]] || list+=("$s")
done
[ ${#list[@]} -gt 0 ] || usage_error "--scenarios '$scenarios' names no scenario"
[ -n "$id" ] || id=validate-study-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id" "a study validation"

# A study given instead of run: its directory, a native one with the
# machine's facts (target.txt) or an emulated one (none), holding every
# scenario asked for.
check_run() { # check_run OPTION DIR KIND
	local s
	[ -f "$2/scenarios.list" ] || usage_error "$1 '$2' is not a study run directory (no scenarios.list)"
	if [ "$3" = native ]; then
		[ -f "$2/target.txt" ] || usage_error "$1 '$2' is not a native study (no target.txt: an emulated one?)"
		[ -f "$2/manifest.json" ] && jq -e '.params.duration_s' "$2/manifest.json" >/dev/null 2>&1 ||
			usage_error "$1 '$2' has no manifest.json with its parameters"
	else
		[ ! -f "$2/target.txt" ] || usage_error "$1 '$2' is a native study (target.txt), not an emulated one"
	fi
	for s in "${list[@]}"; do
		grep -qx "$s" "$2/scenarios.list" || usage_error "$1 '$2' has no scenario '$s' (it has: $(tr '\n' ' ' <"$2/scenarios.list"))"
	done
}
if [ -n "$native_run" ]; then
	check_run --native-run "$native_run" native
	# Its parameters are the guest study's; one given that differs is an error.
	for p in duration:duration_s interval:interval_us load_rate:load_rate warmup:warmup_s; do
		opt=${p%%:*}
		v=$(jq -r ".params.${p#*:} // empty" "$native_run/manifest.json")
		[ -n "$v" ] || continue
		[ -z "${given[$opt]:-}" ] || [ "${!opt}" = "$v" ] ||
			usage_error "--${opt//_/-} ${!opt} differs from the --native-run study's $v (its parameters are the guest study's)"
		printf -v "$opt" %s "$v"
	done
	check_number "--native-run's duration" "$duration" 3 3600
	# its reps too, unless given (the model may take more or fewer)
	[ -n "${given[reps]:-}" ] || reps=$(jq -r ".params.reps // $reps" "$native_run/manifest.json")
fi
[ -z "$model_run" ] || check_run --model-run "$model_run" guest

# The model: a calibration (a file, a run directory or, once scripts/lib.sh
# resolves them, a committed calibration's short name).
if [ -z "$calibration" ]; then
	calibration=$(ls -1t "$results"/calibrate-*/calibration.json 2>/dev/null | head -n 1)
	[ -n "$calibration" ] || calibration=$SLB_ROOT/$CALIBRATION_DEFAULT
fi
if declare -F cal_resolve >/dev/null; then
	calibration=$(cal_resolve "$calibration" --calibration) || exit 2
elif [ -d "$calibration" ] && [ -f "$calibration/calibration.json" ]; then
	calibration=${calibration%/}/calibration.json
fi
bus_model_load calibrated "$calibration"
if [ -n "$model_run" ]; then
	model_words="the study given ($model_run)"
else
	model_words="calibrated model ${calibration#"$SLB_ROOT"/}: a split lock costs $bus_lock_ns ns, holds the bus $bus_hold_ns ns"
	[ "$bus_cache_kb" = 0 ] || model_words+=", delays misses of a $bus_cache_kb KiB cache"
fi

# The native machine's facts: the run given's, else read now as the native
# study will (bench/target/detect.sh; SLB_TARGET_FACTS stands in for them).
declare -A nf=()
facts=$(mktemp "${TMPDIR:-/tmp}/slb-vs-facts.XXXXXX") || die "cannot create a temporary file"
trap 'rm -f "$facts"' EXIT
if [ -n "$native_run" ]; then
	cp "$native_run/target.txt" "$facts"
else
	SLB_LIB=$SLB_ROOT/bench/guest/slb-lib.sh sh "$SLB_ROOT/bench/target/detect.sh" >"$facts" 2>/dev/null ||
		die "could not read this machine's facts (bench/target/detect.sh)"
	[ -z "${SLB_TARGET_FACTS:-}" ] || cat "$SLB_TARGET_FACTS" >>"$facts"
fi
while IFS='=' read -r k v; do [ -z "$k" ] || nf[$k]=$v; done <"$facts"
cpus_expand() { # "0-2,5" -> "0 1 2 5"; words that are no CPU (isolcpus' flags) left out
	local r
	for r in ${1//,/ }; do
		case $r in '' | *[!0-9-]*) continue ;; *-*) seq "${r%-*}" "${r#*-}" ;; *) echo "$r" ;; esac
	done | tr '\n' ' '
}
cpu_in() { [[ " $(cpus_expand "$1") " == *" $2 "* ]]; }
cmdline_arg() { # the value of the native command line's last KEY=value
	local w v=
	for w in ${nf[cmdline]:-}; do case $w in "$1="*) v=${w#*=} ;; esac; done
	echo "$v"
}
online=$(cpus_expand "${nf[cpus_online_list]:-}")
online=${online% }
[ -n "$measure_cpu" ] || measure_cpu=${nf[measure_cpu]:-}
[ -n "$measure_cpu" ] || measure_cpu=${online##* }
[ -n "$measure_cpu" ] || usage_error "the native facts name no online CPU (cpus_online_list '${nf[cpus_online_list]:-}')"
if [ -z "$load_cpus" ]; then
	load_cpus=${nf[load_cpus]:-}
	[ -n "$load_cpus" ] || load_cpus=$(for c in $online; do [ "$c" = "$measure_cpu" ] || echo "$c"; done | paste -sd, -)
fi
# The isolation the native kernel gives the measured CPU, word by word.
native_iso=()
{ cpu_in "${nf[cpus_isolated]:-}" "$measure_cpu" || cpu_in "$(cmdline_arg isolcpus)" "$measure_cpu"; } && native_iso+=(isolcpus)
{ cpu_in "${nf[nohz_full]:-}" "$measure_cpu" || cpu_in "$(cmdline_arg nohz_full)" "$measure_cpu"; } && native_iso+=(nohz_full)
cpu_in "$(cmdline_arg rcu_nocbs)" "$measure_cpu" && native_iso+=(rcu_nocbs)
a=$(cmdline_arg irqaffinity)
[ -z "$a" ] || cpu_in "$a" "$measure_cpu" || native_iso+=(irqaffinity)
native_iso_words=$(IFS=+; echo "${native_iso[*]}")
native_iso_words=${native_iso_words:-none}
case $isolation in
auto) guest_iso=$native_iso_words ;;
all) guest_iso=${ISOLATION_WORDS// /+} ;;
*) guest_iso=$isolation ;;
esac
[ "$guest_iso" != "${ISOLATION_WORDS// /+}" ] || guest_iso=all
# The guest's vCPUs: the native run's CPUs (measured and loaded), 2 to 8.
vcpus=$((1 + $(cpus_expand "$load_cpus" | wc -w)))
[ "$vcpus" -ge 2 ] || vcpus=2
[ "$vcpus" -le 8 ] || vcpus=8

# The plan: native split-lock seconds (scenarios whose load takes split
# locks: the load runs warm-up, up to 0.1 s of seed offset, the duration
# and 0.2 s more in each rep), the guest's virtual seconds.
split_scen=()
for s in "${list[@]}"; do
	case $(field "$s" 3) in *slb-load:split* | stress-ng:lockbus) split_scen+=("$s") ;; esac
done
per_rep=$(awk -v d="$duration" -v w="$warmup" 'BEGIN { printf "%.1f", d + w + 0.3 }')
if [ -n "$native_run" ]; then
	split_s=0 native_plan="native: the study given ($native_run), no native run here"
else
	split_s=$(awk -v n=${#split_scen[@]} -v r="$reps" -v p="$per_rep" 'BEGIN { printf "%.1f", n * r * p }')
	native_plan="native: ${#list[@]} scenarios x $reps reps x $duration s on CPU $measure_cpu, load on $load_cpus"
	native_plan+="$([ "$load_rate" = 0 ] && echo " flat out" || echo " at $load_rate ops/s per thread")"
	native_plan+="; split locks in ${split_scen[*]:-no scenario}: ${#split_scen[@]} x $reps reps x $per_rep s = $split_s s (cap --max-split-s $max_split_s)"
	awk -v s="$split_s" -v m="$max_split_s" 'BEGIN { exit !(s > m) }' &&
		usage_error "the plan holds $split_s s of native split locks (${split_scen[*]}: $reps reps x $per_rep s each), more than --max-split-s $max_split_s (they slow every CPU of this machine): lower --reps or --duration, or raise --max-split-s"
fi
if [ -n "$model_run" ]; then
	model_plan="model: the study given ($model_run), no guest booted"
else
	model_plan="model: $vcpus vCPUs, $model_words, quantum $quantum_ns ns; guest isolation $guest_iso (native: $native_iso_words)"
	model_plan+="; ${#list[@]} scenarios x $reps reps x $duration s of virtual time, $jobs guests at once"
fi
plan="$native_plan; $model_plan"

# The studies check their own arguments (each exits 2 naming the value).
common=(--scenarios "${list[*]}" --duration "$duration" --reps "$reps" --interval "$interval" --warmup "$warmup"
	--load-rate "$load_rate")
native_args=(--target native "${common[@]}" --measure-cpu "$measure_cpu" --load-cpus "$load_cpus" --jobs 1)
model_args=(--target guest "${common[@]}" --vcpus "$vcpus" --jobs "$jobs" --clock virtual --bus-lock-model calibrated
	--calibration "$calibration" --quantum-ns "$quantum_ns")
if [ -z "$native_run" ]; then
	out=$("$STUDY" --validate "${native_args[@]}" --results "$results" 2>&1) ||
		usage_error "the native study refuses: $(echo "$out" | tail -n 1)"
fi
if [ -z "$model_run" ]; then
	out=$("$STUDY" --validate "${model_args[@]}" --results "$results" 2>&1) ||
		usage_error "the emulated study refuses: $(echo "$out" | tail -n 1)"
fi
STATS=$SLB_ROOT/build/host/slb-stats RATIO=$SLB_ROOT/build/host/slb-ratio
[ "$validate" = 0 ] || { say "plan: $plan"; exit 0; }
for t in "$STATS" "$RATIO"; do [ -x "$t" ] || usage_error "$t missing (run make)"; done

begin_run_dir "$results" "$id" 'validate-study-*' "a study validation"
tmp=$RUN_TMP
abort() {
	trap '' INT TERM HUP
	sub_stop
	rm -rf "$tmp"
	say "interrupted: nothing kept of $id"
	exit 130
}
trap abort INT TERM HUP
trap 'rm -f "$facts"' EXIT
start=$(date +%s) date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cp "$facts" "$tmp/native.facts"
say "validating into $tmp; $plan"

# The guest study's scenario file: the scenarios' column 8 with the
# guest's isolation (nothing added for all, the guest's default).
awk -F'|' -v OFS='|' -v iso="$guest_iso" -v names=" ${list[*]} " '
	/^#/ || NF < 7 { print; next }
	{ n = $1; gsub(/ /, "", n) }
	iso != "all" && index(names, " " n " ") {
		if (NF < 8) $8 = ""
		g = $8; gsub(/^ +| +$/, "", g)
		$8 = " " ((g == "" || g == "-") ? "" : g ",") "isolation=" iso
	}
	{ print }' "$SCENARIO_FILE" >"$tmp/model-scenarios.conf" || die "could not write model-scenarios.conf"

# One study after the other: the native one first, on a machine the guests
# do not load. run_side SIDE RUN WHAT SCENARIO-FILE ARG...: the study of
# SIDE into $tmp/SIDE, or a link to RUN, a finished one given.
run_side() {
	local side=$1 given=$2 what=$3 conf=$4
	shift 4
	if [ -n "$given" ]; then
		ln -s "$(realpath "$given")" "$tmp/$side" || die "could not link $given"
		return
	fi
	say "$what study: ${#list[@]} scenarios x $reps reps (log: $tmp/$side.log)"
	sub_start "$side" "$tmp/$side.log" env SLB_SCENARIO_FILE="$conf" "$STUDY" "$@" --results "$tmp" --id "$side"
	sub_wait || die "the $what study failed (log: $tmp/$side.log)"
}
run_side native "$native_run" native "$SCENARIO_FILE" "${native_args[@]}"
run_side model "$model_run" emulated "$tmp/model-scenarios.conf" "${model_args[@]}"
rm -f "$tmp/latest"
for side in native model; do
	stats_tool "$tmp/$side.stats.json" "$STATS" "$tmp/$side" || die "no statistics for the $side study"
done

# Ratios: values one a line (us, at least 1: the histograms' resolution),
# A over B. slb-ratio's Hodges-Lehmann estimate and 95 % interval; with too
# few reps for one, the same estimate without it.
vals() { # vals SIDE SCENARIO KEY
	jq -r --arg s "$2" --arg k "$3" '.scenarios[] | select(.name == $s) | .per_rep[] | .[$k] | if . < 1 then 1 else . end' \
		"$tmp/$1.stats.json"
}
hl() { # hl A-FILE B-FILE: {ratio, ci95, reps}
	local out
	if out=$({ sed 's/^/a /' "$1"; sed 's/^/b /' "$2"; } | "$RATIO" --json a b 2>/dev/null); then
		jq -c '{ratio, ci95, reps: [.runs_a, .runs_b]}' <<<"$out"
	else
		jq -n -c --rawfile a "$1" --rawfile b "$2" '
			def nums: split("\n") | map(select(length > 0) | tonumber);
			($a | nums) as $x | ($b | nums) as $y |
			[$x[] as $u | $y[] as $v | ($u | log) - ($v | log)] | sort | length as $n |
			{ratio: (if $n == 0 then null elif $n % 2 == 1 then .[($n - 1) / 2] | exp
				else (.[$n / 2 - 1] + .[$n / 2]) / 2 | exp end | if . == null then null else . * 10000 | round / 10000 end),
			 ci95: null, reps: [($x | length), ($y | length)]}'
	fi
}
# The comparisons: each scenario over its control, its control's control
# and so on (scenarios.conf), those of them run here.
comparisons=()
for s in "${list[@]}"; do
	c=$(field "$s" 5) seen=" $s "
	while [ -n "$c" ] && [ "$c" != - ] && [[ $seen != *" $c "* ]]; do
		[[ " ${list[*]} " != *" $c "* ]] || comparisons+=("$s:$c")
		seen+="$c "
		c=$(field "$c" 5)
	done
done
Q=(p50:co_p50_us p99:co_p99_us p99.9:co_p999_us)
w=$tmp/.vals
mkdir -p "$w"
{
	for s in "${list[@]}"; do
		for q in "${Q[@]}"; do
			vals native "$s" "${q#*:}" >"$w/n" && vals model "$s" "${q#*:}" >"$w/m" || die "no values of $s"
			jq -n -c --arg s "$s" --arg q "${q%%:*}" --rawfile n "$w/n" --rawfile m "$w/m" --argjson r "$(hl "$w/m" "$w/n")" '
				def nums: split("\n") | map(select(length > 0) | tonumber);
				def med: sort | length as $k | if $k == 0 then null elif $k % 2 == 1 then .[($k - 1) / 2] else (.[$k / 2 - 1] + .[$k / 2]) / 2 end;
				{kind: "scenario", name: $s, q: $q, native: {values_us: ($n | nums), median_us: ($n | nums | med)},
				 model: {values_us: ($m | nums), median_us: ($m | nums | med)}, model_over_native: $r}'
		done
	done
	for c in "${comparisons[@]}"; do
		a=${c%%:*} b=${c#*:}
		for q in "${Q[@]}"; do
			for side in native model; do
				vals "$side" "$a" "${q#*:}" >"$w/a.$side" && vals "$side" "$b" "${q#*:}" >"$w/b.$side" || die "no values of $c"
			done
			jq -n -c --arg a "$a" --arg b "$b" --arg q "${q%%:*}" --argjson n "$(hl "$w/a.native" "$w/b.native")" \
				--argjson m "$(hl "$w/a.model" "$w/b.model")" '
				{kind: "comparison", name: "\($a) / \($b)", a: $a, b: $b, q: $q, native: $n, model: $m,
				 model_over_native: {ratio: (if ($n.ratio // 0) > 0 and $m.ratio != null then $m.ratio / $n.ratio * 10000 | round / 10000 else null end),
				   bounds: (if $n.ci95 != null and $m.ci95 != null and $n.ci95[0] > 0
					then [$m.ci95[0] / $n.ci95[1], $m.ci95[1] / $n.ci95[0]] | map(. * 10000 | round / 10000) else null end)}}'
		done
	done
} >"$tmp/ratios.jsonl" || die "could not compute the ratios"
rm -rf "$w"

# validation.json: the two sides as their manifests and facts say, the rows.
jq -n --slurpfile rows "$tmp/ratios.jsonl" --slurpfile nm "$tmp/native/manifest.json" --slurpfile mm "$tmp/model/manifest.json" \
	--arg id "$id" --arg date "$date" --arg native_src "${native_run:-native}" --arg model_src "${model_run:-model}" \
	--arg iso "$guest_iso" --arg native_iso "$native_iso_words" --arg cal "${calibration#"$SLB_ROOT"/}" \
	--arg mcpu "$measure_cpu" --arg lcpus "$load_cpus" --argjson split_s "$split_s" --argjson max_split_s "$max_split_s" \
	--rawfile facts "$tmp/native.facts" '
	($facts | split("\n") | map(select(test("^[a-z_0-9]+=")) | capture("^(?<k>[^=]+)=(?<v>.*)$")) | map({(.k): .v}) | add // {}) as $f |
	($nm[0] // {}) as $n | ($mm[0] // {}) as $m |
	# the rows of one kind, one per name in the order they came, its
	# quantiles as keys
	def rowsof($k): [$rows[] | select(.kind == $k)] as $r |
		(reduce $r[].name as $n ([]; if any(.[]; . == $n) then . else . + [$n] end)) |
		map(. as $n | [$r[] | select(.name == $n)] | {name: $n} +
			(if .[0].kind == "comparison" then {a: .[0].a, b: .[0].b} else {} end) +
			{quantiles: map({key: .q, value: del(.kind, .name, .q, .a, .b)}) | from_entries});
	{tool: "validate-study", schema: 1, run_id: $id, date: $date,
	 quantiles: ["p50", "p99", "p99.9"],
	 params: ($m.params // $n.params // {}) | {scenarios, duration_s, reps, interval_us, warmup_s, load_rate},
	 native: {source: $native_src, hostname: $f.hostname, cpu_model: $f.cpu_model, kernel: $f.kernel_release,
	   preempt_rt: ($f.preempt_rt == "yes"), hypervisor: ($f.flag_hypervisor == "yes"), cmdline: $f.cmdline,
	   split_lock_mode: ($n.target.split_lock.mode // $f.sld_mode), measured_cpu: ($mcpu | tonumber), load_cpus: $lcpus,
	   isolation: $native_iso, params: ($n.params // null), split_lock_s_planned: $split_s, max_split_s: $max_split_s},
	 model: {source: $model_src, calibration: ($m.params.calibration // $cal), clock: ($m.params.clock // "virtual"),
	   bus_lock_ns: $m.params.bus_lock_ns, bus_hold_ns: $m.params.bus_hold_ns, bus_cache_kb: $m.params.bus_cache_kb,
	   bus_cache_ways: $m.params.bus_cache_ways, quantum_ns: $m.params.quantum_ns, vcpus: $m.params.vcpus,
	   isolation: $iso, params: ($m.params // null)},
	 scenarios: rowsof("scenario"), comparisons: rowsof("comparison"),
	 notes: ["values: each rep'"'"'s p50, p99 and p99.9 of the measured CPU, corrected for coordinated omission (slb-stats per_rep), at least 1 us",
	   "model_over_native (scenarios) and the comparisons'"'"' ratios: Hodges-Lehmann over reps on the logs, unpaired (native reps have no seeds), 95 % interval (slb-ratio); null where a side has too few reps for one",
	   "comparisons'"'"' model_over_native: the model'"'"'s ratio over the native one; bounds: the quotients of the two intervals'"'"' ends (conservative; not an interval of their own)",
	   "the model'"'"'s latencies are emulated time (QEMU TCG, virtual clock: 1 instruction = 1 ns), the native ones real time"]}' \
	>"$tmp/validation.json" 2>"$tmp/jq.err" || die "could not write validation.json: $(cat "$tmp/jq.err")"
rm -f "$tmp/jq.err" "$tmp/ratios.jsonl"

# The tables: jq gives the numbers, awk the layout (text and Markdown).
rows() {
	jq -r '(.scenarios[] | .name as $s | .quantiles | to_entries[] |
		["scenario", $s, .key, .value.native.median_us, .value.model.median_us, .value.model_over_native.ratio,
		 (.value.model_over_native.ci95 // ["nan", "nan"])[]]),
	 (.comparisons[] | .name as $s | .quantiles | to_entries[] |
		["comparison", $s, .key, .value.native.ratio, (.value.native.ci95 // ["nan", "nan"])[],
		 .value.model.ratio, (.value.model.ci95 // ["nan", "nan"])[], .value.model_over_native.ratio,
		 (.value.model_over_native.bounds // ["nan", "nan"])[]])
	 | map(. // "nan" | tostring) | join("\t")' "$tmp/validation.json"
}
table() { # table MD KIND
	rows | awk -F'\t' -v md="$1" -v kind="$2" '
	function g(x, p, a) { if (x == "nan") return "-"; a = x < 0 ? -x : x; if (a < 999.5) return sprintf("%.3g", x)
		p = 10 ^ (int(log(a) / log(10)) - 2); return sprintf("%.0f", (x < 0 ? -1 : 1) * int(a / p + 0.5) * p) }
	function ci(lo, hi) { return lo == "nan" ? "" : " [" g(lo) "-" g(hi) "]" }
	$1 != kind { next }
	$1 == "scenario" && md { printf "| %s | %s | %s | %s | x%s%s |\n", $2, $3, g($4), g($5), g($6), ci($7, $8) }
	$1 == "scenario" && !md { printf "%-22s %-6s %10s %10s   x%s%s\n", $2, $3, g($4), g($5), g($6), ci($7, $8) }
	$1 == "comparison" && md { printf "| %s | %s | x%s%s | x%s%s | x%s%s |\n", $2, $3, g($4), ci($5, $6), g($7), ci($8, $9), g($10), ci($11, $12) }
	$1 == "comparison" && !md { printf "%-22s %-6s %-22s %-22s x%s%s\n", $2, $3, "x" g($4) ci($5, $6), "x" g($7) ci($8, $9), g($10), ci($11, $12) }'
}
{
	jq -r '"Study validation \(.run_id): the bus-lock model (\(.model.calibration): \(.model.bus_lock_ns) ns per split lock, hold \(.model.bus_hold_ns) ns, cache \(.model.bus_cache_kb) KiB) against this machine",
		"native: \(.native.hostname // "?"), \(.native.cpu_model // "?")\(if .native.hypervisor then " (a VM)" else "" end), kernel \(.native.kernel // "?")\(if .native.preempt_rt then " PREEMPT_RT" else "" end), split-lock detection \(.native.split_lock_mode // "?"); CPU \(.native.measured_cpu) measured (isolation: \(.native.isolation)), load on \(.native.load_cpus)",
		"model:  QEMU TCG, virtual clock, \(.model.vcpus // "?") vCPUs, quantum \(.model.quantum_ns // "?") ns; guest isolation: \(.model.isolation)",
		"both:   \(.params.reps) reps x \(.params.duration_s) s, interval \(.params.interval_us) us, load \(if .params.load_rate == 0 then "flat out" else "\(.params.load_rate) ops/s per thread" end)",
		"",
		"Per scenario: the median over reps of each rep'"'"'s corrected quantile (us; model: emulated time), model/native (Hodges-Lehmann, 95 % CI)"' \
		"$tmp/validation.json"
	printf '%-22s %-6s %10s %10s   %s\n' scenario q native model model/native
	table 0 scenario
	echo
	echo "Per comparison: A/B within each side (Hodges-Lehmann over reps, unpaired, 95 % CI), model/native [bounds]"
	printf '%-22s %-6s %-22s %-22s %s\n' comparison q native model model/native
	table 0 comparison
	echo
	jq -r '.notes[] | "note: \(.)"' "$tmp/validation.json"
} >"$tmp/validation.txt"
{
	echo "| scenario | quantile | native us | model us | model/native (95 % CI) |"
	echo "|---|---|---|---|---|"
	table 1 scenario
	echo
	echo "| comparison | quantile | native (95 % CI) | model (95 % CI) | model/native (bounds) |"
	echo "|---|---|---|---|---|"
	table 1 comparison
} >"$tmp/validation.md"

# The plot: model / native per row (scenarios, then comparisons) and
# quantile, log scale, with its interval (or bounds) where there is one.
jq -r '
	def e($r; $i): if $r == null then "NaN NaN NaN" else "\($r) \(($i // [$r, $r])[0]) \(($i // [$r, $r])[1])" end;
	[(.scenarios[] | {name, q: .quantiles | map_values(.model_over_native | {r: .ratio, i: .ci95})}),
	 (.comparisons[] | {name, q: .quantiles | map_values(.model_over_native | {r: .ratio, i: .bounds})})] |
	to_entries[] | "\(.key) \"\(.value.name)\" \(e(.value.q.p50.r; .value.q.p50.i)) \(e(.value.q.p99.r; .value.q.p99.i)) \(e(.value.q["p99.9"].r; .value.q["p99.9"].i))"' \
	"$tmp/validation.json" >"$tmp/ratios.dat" || die "could not write ratios.dat"
nscen=$(jq '.scenarios | length' "$tmp/validation.json") nrows=$(wc -l <"$tmp/ratios.dat")
title=$(jq -r '"model (\(.model.calibration | sub("/calibration.json$"; "") | sub("^.*/"; ""))) / native (\(.native.cpu_model // "?" | gsub("[\"'"'"']"; ""))), run \(.run_id)"' "$tmp/validation.json")
draw_plot validate-study.gp "$tmp/ratios" "datafile='$tmp/ratios.dat'; nrows=$nrows; nscen=$nscen; plottitle='$title'" "$tmp/gnuplot.log"
[ -s "$tmp/gnuplot.log" ] || rm -f "$tmp/gnuplot.log"
end_run_dir "$tmp" "$results/$id"
say "study validation $id complete in $(($(date +%s) - start)) s: $results/$id"
cat "$results/$id/validation.txt"
