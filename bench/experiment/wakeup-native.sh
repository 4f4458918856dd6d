#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make wakeup-native: where a native wake-up loses its time to split locks,
# no emulator. cyclictest (SCHED_FIFO 95, one thread, memory locked; it
# holds /dev/cpu_dma_latency at 0 as in a study) on the victim CPU while
# slb-load runs an aligned or a split LOCK add on the load CPU, with the
# victim CPU idle between wake-ups or kept busy by a nice-19 spinner
# pinned to it (a CPU that never idles takes no idle exit: on a VM, no
# halt and wake of its vCPU). Reps interleave every victim and load.
# Keeps in RESULTS/wakeup-native-<id>/ (written as .incomplete-<id>,
# renamed at the end):
#   runs/VICTIM-LOAD-REP.hist   each run's cyclictest histogram (1 us)
#   runs.dat      "VICTIM-LOAD-STAT value" lines, one per run and statistic
#                 (a busy victim's spinner: spin_cpu_s, the CPU time it
#                 ran, and spin_last_cpu, the CPU it ran on last)
#   wakeup.json   per victim and load: each run's p50, p99, p99.9 and max
#                 (slb-hist); per victim split/aligned and per load
#                 busy/idle of each statistic (slb-ratio: Hodges-Lehmann
#                 on logs with its 95 % interval); the machine
#   wakeup.txt    the same as a table
#   progress.log  what ran when
# Split locks natively slow every CPU of the machine: the tool refuses a
# plan with more split-lock seconds than --max-split-s.
#
# Exit status: 0 done, 1 failure (also: not root, fewer than 2 CPUs), 2
# usage error (nothing started).
set -uo pipefail
SLB_PROG=wakeup-native
. "$(dirname "$0")/../../scripts/lib.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

load_tool=${SLB_LOAD:-$SLB_ROOT/build/guest/slb-load}
cyclictest=${SLB_CYCLICTEST:-cyclictest}
reps=4 duration=5 cpus= victims=idle,busy interval=$INTERVAL_DEFAULT load_rate=0
max_split_s=60 results=$SLB_ROOT/results id= validate=0

usage() {
	cat <<USAGE
Usage: wakeup-native.sh [options]
cyclictest on this machine's victim CPU under an aligned and a split load
on another, the victim CPU idle or kept busy; results in
RESULTS/wakeup-native-<id>/.

  -r, --reps N          reps, 4 to 50 (4 at least for a 95 % interval) (default $reps)
  -d, --duration S      seconds per run, 1 to 60 (default $duration)
  -c, --cpus V,L        victim and load CPU (default: the last and the first)
      --victim LIST     idle, busy or idle,busy (default $victims)
  -i, --interval US     cyclictest's interval, 100 to 100000 (default $interval)
      --load-rate OPS   LOCKed ops/s of the load, 0 = flat out (default $load_rate)
      --max-split-s S   refuse a plan with more split-lock seconds (default $max_split_s)
  -o, --results DIR     where the run goes (default results/)
      --id ID           run id (default: wakeup-native-date-time)
      --validate        check the arguments, print the plan and exit (0 good, 2 bad)
  -h, --help            this text

Exit status: 0 done, 1 failure (not root, fewer than 2 CPUs), 2 usage error.
USAGE
}

opts=$(getopt -n wakeup-native -o r:d:c:i:o:h \
	-l reps:,duration:,cpus:,victim:,interval:,load-rate:,max-split-s:,results:,id:,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-r | --reps) reps=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-c | --cpus) cpus=$2; shift 2 ;;
	--victim) victims=$2; shift 2 ;;
	-i | --interval) interval=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	--max-split-s) max_split_s=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
check_number --reps "$reps" 4 50
check_number --duration "$duration" 1 60
check_number --interval "$interval" 100 100000
check_number --load-rate "$load_rate" 0 100000000
check_number --max-split-s "$max_split_s" 1 3600
case $victims in
idle | busy | idle,busy) ;;
busy,idle) victims=idle,busy ;;
*) usage_error "--victim '$victims' is not idle, busy or idle,busy" ;;
esac
ncpu=$(nproc)
if [ -z "$cpus" ]; then
	cpus=$((ncpu - 1)),0
fi
[[ $cpus =~ ^([0-9]+),([0-9]+)$ ]] || usage_error "--cpus '$cpus' is not VICTIM,LOAD (two CPU numbers)"
vcpu=${BASH_REMATCH[1]} lcpu=${BASH_REMATCH[2]}
[ "$vcpu" != "$lcpu" ] || usage_error "--cpus '$cpus' names one CPU twice (allowed: two different CPUs below $ncpu)"
[ "$ncpu" -ge 2 ] || die "this machine has $ncpu CPU available; the tool needs 2"
[ "$vcpu" -lt "$ncpu" ] && [ "$lcpu" -lt "$ncpu" ] ||
	usage_error "--cpus '$cpus' names a CPU this machine does not have (allowed: 0 to $((ncpu - 1)))"
[ -n "$id" ] || id=wakeup-native-$(date +%Y%m%d-%H%M%S)
check_run_id "$results" "$id"
IFS=, read -r -a vlist <<<"$victims"
# Each run's load starts 1 s before cyclictest and ends with it.
split_s=$((reps * ${#vlist[@]} * (duration + 1)))
plan="plan: victim CPU $vcpu, load CPU $lcpu; cyclictest -i$interval x ${#vlist[@]} victims ($victims) x 2 loads (aligned, split$([ "$load_rate" = 0 ] || echo ", $load_rate ops/s")) x $reps reps x $duration s: about $((reps * ${#vlist[@]} * 2 * (duration + 1))) s, $split_s s of it under split locks"
[ "$split_s" -le "$max_split_s" ] ||
	usage_error "$plan: more than --max-split-s $max_split_s (allowed: fewer reps, a shorter --duration, or a larger --max-split-s)"
if [ "$validate" = 1 ]; then
	say "$plan"
	exit 0
fi
[ "$(id -u)" = 0 ] || die "cyclictest needs root for SCHED_FIFO and locked memory: run as root"
[ -x "$load_tool" ] || die "$load_tool is missing: run 'make all'"
command -v "$cyclictest" >/dev/null || die "cyclictest ('$cyclictest') is not installed: make deps installs Debian's rt-tests"
hist_tool=$SLB_ROOT/build/host/slb-hist ratio_tool=$SLB_ROOT/build/host/slb-ratio
[ -x "$hist_tool" ] && [ -x "$ratio_tool" ] || die "$hist_tool or $ratio_tool is missing: run 'make all'"

begin_run_dir "$results" "$id" 'wakeup-native-*' "a native wake-up run"
tmp=$RUN_TMP
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
abort() {
	stop_all
	rm -rf "$tmp"
	say "interrupted: nothing kept of $id"
	exit 130
}
trap abort INT TERM HUP
mkdir -p "$tmp/runs"
log() { say "$*" 2>&1 | tee -a "$tmp/progress.log" >&2; }
start=$(date +%s)
log "$plan"

# run_one VICTIM LOAD REP: one cyclictest run; its histogram in runs/.
run_one() {
	local victim=$1 load=$2 rep=$3 f=$tmp/runs/$1-$2-$3 spin= lp rc
	pids=()
	if [ "$victim" = busy ]; then
		taskset -c "$vcpu" nice -n 19 sh -c 'while :; do :; done' &
		spin=$!
		pids+=("$spin")
	fi
	"$load_tool" -m "$load" -c "$lcpu" -r "$load_rate" -d $((duration + 1)) >"$f.load" 2>&1 &
	lp=$!
	pids+=("$lp")
	sleep 1
	# in the background, so that a signal reaches abort at once
	"$cyclictest" -q -m -p 95 -t 1 -a "$vcpu" --mainaffinity="$lcpu" -i "$interval" \
		-D "$duration" -h 20000 >"$f.hist" 2>"$f.err" &
	pids+=($!)
	wait $!
	rc=$?
	wait "$lp" || { stop_all; die "slb-load failed in $victim-$load-$rep (exit $?): $(tail -1 "$f.load")"; }
	if [ -n "$spin" ]; then
		# what the spinner ran, and where: a busy victim that was not
		# busy would be an idle one
		read -r -a st <"/proc/$spin/stat" 2>/dev/null || st=()
		kill "$spin"
		wait "$spin" 2>/dev/null
		[ "${#st[@]}" -gt 38 ] || die "the spinner of $victim-$load-$rep was gone before the end of the run"
		awk -v t="$(getconf CLK_TCK)" -v u="${st[13]}" -v s="${st[14]}" -v k="$victim-$load" -v c="${st[38]}" \
			'BEGIN { printf "%s-spin_cpu_s %.2f\n%s-spin_last_cpu %d\n", k, (u + s) / t, k, c }' >>"$tmp/runs.dat"
	fi
	pids=()
	[ "$rc" = 0 ] || die "cyclictest failed in $victim-$load-$rep (exit $rc): $(tail -1 "$f.err")"
	rm -f "$f.load"
	[ -s "$f.err" ] || rm -f "$f.err"
}

for rep in $(seq "$reps"); do
	for victim in "${vlist[@]}"; do
		for load in aligned split; do
			run_one "$victim" "$load" "$rep"
			s=$("$hist_tool" --json "$tmp/runs/$victim-$load-$rep.hist") ||
				die "slb-hist could not read runs/$victim-$load-$rep.hist"
			jq -r --arg k "$victim-$load" '.histograms[0] |
				"\($k)-p50 \(.p50_us)", "\($k)-p99 \(.p99_us)", "\($k)-p999 \(.p999_us)", "\($k)-max \(.max_us)"' \
				<<<"$s" >>"$tmp/runs.dat"
			log "rep $rep/$reps: $victim victim, $load load: $(jq -r '.histograms[0] |
				"p50 \(.p50_us), p99 \(.p99_us), p99.9 \(.p999_us), max \(.max_us) us"' <<<"$s")"
		done
	done
done

# ratio A B: slb-ratio's JSON of the values labelled A over B, or null.
ratio() { "$ratio_tool" --json "$1" "$2" "$tmp/runs.dat" 2>/dev/null || echo null; }
{
	for victim in "${vlist[@]}"; do
		for st in p50 p99 p999 max; do
			printf '{"kind": "split_over_aligned", "victim": "%s", "stat": "%s", "r": %s}\n' \
				"$victim" "$st" "$(ratio "$victim-split-$st" "$victim-aligned-$st")"
		done
	done
	if [ "${#vlist[@]}" = 2 ]; then
		for load in aligned split; do
			for st in p50 p99 p999 max; do
				printf '{"kind": "busy_over_idle", "load": "%s", "stat": "%s", "r": %s}\n' \
					"$load" "$st" "$(ratio "busy-$load-$st" "idle-$load-$st")"
			done
		done
	fi
} >"$tmp/ratios.jsonl"
hyper=false
grep -qw hypervisor /proc/cpuinfo && hyper=true
jq -n --arg id "$id" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
	--arg kernel "$(uname -r) $(uname -v)" --arg cmdline "$(cat /proc/cmdline)" --argjson vm "$hyper" \
	--argjson reps "$reps" --argjson duration "$duration" --argjson interval "$interval" \
	--argjson vcpu "$vcpu" --argjson lcpu "$lcpu" --argjson rate "$load_rate" \
	--rawfile dat "$tmp/runs.dat" --slurpfile ratios "$tmp/ratios.jsonl" '
	($dat | split("\n") | map(select(. != "") | split(" ") | {k: .[0], v: (.[1] | tonumber)})) as $d
	| {run_id: $id, date: $date,
	   machine: {cpu_model: $model, kernel: $kernel, cmdline: $cmdline, vm: $vm,
	     note: (if $vm then "a virtual machine (CPUID hypervisor flag): real hardware seen through a hypervisor, whose own timer and interrupt path every wake-up takes" else "no hypervisor flag: bare metal as far as CPUID tells" end)},
	   params: {reps: $reps, duration_s: $duration, interval_us: $interval, victim_cpu: $vcpu, load_cpu: $lcpu,
	     load_rate: $rate, cyclictest: "-m -p 95 -t 1 -h 20000, /dev/cpu_dma_latency 0", busy: "nice 19 sh spin loop pinned to the victim CPU"},
	   runs: ($d | group_by(.k | sub("-[^-]*$"; "")) | map({key: (.[0].k | sub("-[^-]*$"; "")),
	     value: (group_by(.k | sub(".*-"; "")) | map({key: (.[0].k | sub(".*-"; "")), value: map(.v)}) | from_entries)}) | from_entries),
	   ratios: $ratios}' >"$tmp/wakeup.json" || die "could not write wakeup.json"
jq -r '
	def fmt: if . == null then "-" else "x\(.ratio * 1000 | round / 1000) [\(.ci95[0] * 1000 | round / 1000)-\(.ci95[1] * 1000 | round / 1000)]" end;
	def med: sort | .[length / 2 | floor];
	"Native wake-ups: cyclictest -i\(.params.interval_us) on CPU \(.params.victim_cpu), LOCK add on CPU \(.params.load_cpu); \(.params.reps) reps x \(.params.duration_s) s",
	"\(.machine.cpu_model), kernel \(.machine.kernel)",
	"",
	"run            stat   us per rep (median)",
	(.runs as $r | ["idle-aligned", "idle-split", "busy-aligned", "busy-split"][] as $k | select($r[$k]) | $r[$k] as $v
	 | ["p50", "p99", "p999", "max"][] | "\($k | . + " " * (14 - length)) \(. + " " * (6 - length)) \($v[.] | map(tostring) | join(" ")) (\($v[.] | med))"),
	"",
	"ratio                 stat   Hodges-Lehmann [95 % interval]",
	(.ratios[] | "\(if .kind == "split_over_aligned" then "split/aligned \(.victim)" else "busy/idle \(.load)" end | . + " " * (21 - length)) \(.stat | . + " " * (6 - length)) \(.r | fmt)"),
	"",
	"note: \(.machine.note)"' "$tmp/wakeup.json" >"$tmp/wakeup.txt" || die "could not write wakeup.txt"
rm -f "$tmp/ratios.jsonl"
end_run_dir "$tmp" "$results/$id"
say "wake-up run $id complete in $(($(date +%s) - start)) s: $results/$id"
cat "$results/$id/wakeup.txt"
