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
#   runs/VICTIM-LOAD-REP.hist   each run's cyclictest histogram (1 us, its
#                 empty buckets left out: slb-histcompact)
#   runs.dat      "VICTIM-LOAD-STAT value" lines, one per run and statistic
#                 (load_ops_s: the LOCKed ops per second the load ran; a
#                 busy victim's spinner: spin_cpu_s, the CPU time it ran,
#                 and spin_last_cpu, the CPU it ran on last)
#   wakeup.json   per victim and load: each run's p50, p99, p99.9 and max
#                 (slb-hist); per victim split/aligned and per load
#                 busy/idle of each statistic (slb-ratio: Hodges-Lehmann
#                 on logs with its 95 % interval); the machine, with its
#                 split-lock detection as bench/target/detect.sh reads it
#                 (a CPU that detects split locks may trap or throttle
#                 the split load: load_ops_s says how far)
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
# the rep's own helpers, as bench/target/detect.sh takes them natively
. "$SLB_ROOT/bench/guest/slb-lib.sh"

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
# The CPUs this process may run on (its affinity, as taskset and the
# pinned tools see them), not a count: ids need not be 0 to N-1.
read -r -a avail <<<"$(slb_cpulist_expand "$(taskset -cp $$ | sed 's/.*: //')")"
[ "${#avail[@]}" -ge 2 ] || die "this machine has ${#avail[@]} CPU available to this process; the tool needs 2"
[ -n "$cpus" ] || cpus=${avail[${#avail[@]} - 1]},${avail[0]}
[[ $cpus =~ ^([0-9]+),([0-9]+)$ ]] || usage_error "--cpus '$cpus' is not VICTIM,LOAD (two CPU numbers)"
vcpu=${BASH_REMATCH[1]} lcpu=${BASH_REMATCH[2]}
check_number "--cpus' victim CPU" "$vcpu" 0 4095
check_number "--cpus' load CPU" "$lcpu" 0 4095
[ "$vcpu" != "$lcpu" ] || usage_error "--cpus '$cpus' names one CPU twice (allowed: two different CPUs of ${avail[*]})"
for c in "$vcpu" "$lcpu"; do
	[[ " ${avail[*]} " == *" $c "* ]] ||
		usage_error "--cpus '$cpus' names CPU $c, which this process cannot run on (allowed: ${avail[*]})"
done
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
compact_tool=$SLB_ROOT/build/guest/slb-histcompact
for t in "$hist_tool" "$ratio_tool" "$compact_tool"; do
	[ -x "$t" ] || die "$t is missing: run 'make all'"
done

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
	trap '' INT TERM HUP
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
# The machine's split-lock detection, read (bench/target/detect.sh), not
# changed: where the CPU detects split locks the kernel may kill, trap or
# throttle the split load.
# Its facts name the machine in wakeup.json too.
facts=$(SLB_LIB="$SLB_ROOT/bench/guest/slb-lib.sh" sh "$SLB_ROOT/bench/target/detect.sh" 2>/dev/null)
fact() { printf '%s\n' "$facts" | sed -n "s/^$1=//p" | head -n 1; }
if [ "$(fact flag_split_lock_detect)" = yes ] || [ "$(fact flag_bus_lock_detect)" = yes ]; then
	log "warning: this CPU detects split locks (kernel log: '$(fact dmesg_split_lock)'; split_lock_detect on the command line: $(fact cmdline_split_lock_detect)): the split load may be trapped or throttled, and load_ops_s shows how far"
fi

# run_one VICTIM LOAD REP: one cyclictest run; its histogram in runs/.
run_one() {
	local victim=$1 load=$2 rep=$3 f=$tmp/runs/$1-$2-$3 spin= lp rc
	pids=()
	if [ "$victim" = busy ]; then
		taskset -c "$vcpu" nice -n 19 sh -c 'while :; do :; done' &
		spin=$!
		pids+=("$spin")
	fi
	"$load_tool" -j -m "$load" -c "$lcpu" -r "$load_rate" -d $((duration + 1)) >"$f.load" 2>&1 &
	lp=$!
	pids+=("$lp")
	sleep 1
	# in the background, so that a signal reaches abort at once
	"$cyclictest" -q -m -p 95 -t 1 -a "$vcpu" --mainaffinity="$lcpu" -i "$interval" \
		-D "$duration" -h 20000 >"$f.hist" 2>"$f.err" &
	pids+=($!)
	wait $!
	rc=$?
	wait "$lp" || { lrc=$?; stop_all; die "slb-load failed in $victim-$load-$rep (exit $lrc): $(tail -1 "$f.load")"; }
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
	ops=$(jq -r 'select(.ops_per_s) | .ops_per_s' "$f.load" 2>/dev/null | tail -n 1)
	[ -n "$ops" ] || die "slb-load reported no rate in $victim-$load-$rep: $(tail -1 "$f.load")"
	echo "$victim-$load-load_ops_s $ops" >>"$tmp/runs.dat"
	rm -f "$f.load"
	[ -s "$f.err" ] || rm -f "$f.err"
}

for rep in $(seq "$reps"); do
	for victim in "${vlist[@]}"; do
		for load in aligned split; do
			run_one "$victim" "$load" "$rep"
			h=$tmp/runs/$victim-$load-$rep.hist
			s=$("$hist_tool" --json "$h") || die "slb-hist could not read runs/$victim-$load-$rep.hist"
			"$compact_tool" "$h" >"$h.c" && mv "$h.c" "$h" || die "slb-histcompact could not compact runs/$victim-$load-$rep.hist"
			jq -r --arg k "$victim-$load" '.histograms[0] |
				"\($k)-p50 \(.p50_us)", "\($k)-p99 \(.p99_us)", "\($k)-p999 \(.p999_us)", "\($k)-max \(.max_us)"' \
				<<<"$s" >>"$tmp/runs.dat"
			log "rep $rep/$reps: $victim victim, $load load: $(jq -r '.histograms[0] |
				"p50 \(.p50_us), p99 \(.p99_us), p99.9 \(.p999_us), max \(.max_us) us"' <<<"$s")"
		done
	done
done

# ratio A B: slb-ratio's JSON of the values labelled A over B, or null.
ratio() {
	"$ratio_tool" --json "$1" "$2" "$tmp/runs.dat" 2>>"$tmp/ratio.err" && return
	log "warning: no ratio of $1 over $2: $(tail -n 1 "$tmp/ratio.err")"
	echo null
}
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
jq -n --arg id "$id" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	--arg model "$(fact cpu_model)" --arg kernel "$(fact kernel_release) $(fact kernel_version)" \
	--arg cmdline "$(fact cmdline)" --argjson vm "$([ "$(fact flag_hypervisor)" = yes ] && echo true || echo false)" \
	--argjson reps "$reps" --argjson duration "$duration" --argjson interval "$interval" \
	--argjson vcpu "$vcpu" --argjson lcpu "$lcpu" --argjson rate "$load_rate" \
	--arg f_sld "$(fact flag_split_lock_detect)" --arg f_bld "$(fact flag_bus_lock_detect)" \
	--arg c_sld "$(fact cmdline_split_lock_detect)" --arg d_sld "$(fact dmesg_split_lock)" \
	--arg mitigate "$(fact split_lock_mitigate)" \
	--rawfile dat "$tmp/runs.dat" --slurpfile ratios "$tmp/ratios.jsonl" '
	($dat | split("\n") | map(select(. != "") | split(" ") | {k: .[0], v: (.[1] | tonumber)})) as $d
	| {run_id: $id, date: $date,
	   machine: {cpu_model: $model, kernel: $kernel, cmdline: $cmdline, vm: $vm,
	     split_lock: {flag_split_lock_detect: $f_sld, flag_bus_lock_detect: $f_bld, cmdline: $c_sld,
	       kernel_log: $d_sld, split_lock_mitigate: $mitigate},
	     note: (if $vm then "a virtual machine (CPUID hypervisor flag): real hardware seen through a hypervisor, whose own timer and interrupt path every wake-up takes" else "no hypervisor flag: bare metal as far as CPUID tells" end)},
	   params: {reps: $reps, duration_s: $duration, interval_us: $interval, victim_cpu: $vcpu, load_cpu: $lcpu,
	     load_rate: $rate, cyclictest: "-m -p 95 -t 1 -h 20000, /dev/cpu_dma_latency 0", busy: "nice 19 sh spin loop pinned to the victim CPU"},
	   runs: ($d | group_by(.k | sub("-[^-]*$"; "")) | map({key: (.[0].k | sub("-[^-]*$"; "")),
	     value: (group_by(.k | sub(".*-"; "")) | map({key: (.[0].k | sub(".*-"; "")), value: map(.v)}) | from_entries)}) | from_entries),
	   ratios: $ratios}' >"$tmp/wakeup.json" || die "could not write wakeup.json"
jq -r '
	def fmt: if . == null then "-" else "x\(.ratio * 1000 | round / 1000) [\(.ci95[0] * 1000 | round / 1000)-\(.ci95[1] * 1000 | round / 1000)]" end;
	def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	"Native wake-ups: cyclictest -i\(.params.interval_us) on CPU \(.params.victim_cpu), LOCK add on CPU \(.params.load_cpu); \(.params.reps) reps x \(.params.duration_s) s",
	"\(.machine.cpu_model), kernel \(.machine.kernel)",
	"",
	"run            stat   per rep (median); us, load_ops_s in LOCKed ops per second",
	(.runs as $r | ["idle-aligned", "idle-split", "busy-aligned", "busy-split"][] as $k | select($r[$k]) | $r[$k] as $v
	 | ["p50", "p99", "p999", "max", "load_ops_s"][] | "\($k | . + " " * (14 - length)) \(. + " " * (6 - length)) \($v[.] | map(tostring) | join(" ")) (\($v[.] | med))"),
	"",
	"ratio                 stat   Hodges-Lehmann [95 % interval]",
	(.ratios[] | "\(if .kind == "split_over_aligned" then "split/aligned \(.victim)" else "busy/idle \(.load)" end | . + " " * (21 - length)) \(.stat | . + " " * (6 - length)) \(.r | fmt)"),
	"",
	"note: \(.machine.note)"' "$tmp/wakeup.json" >"$tmp/wakeup.txt" || die "could not write wakeup.txt"
rm -f "$tmp/ratios.jsonl" "$tmp/ratio.err"
end_run_dir "$tmp" "$results/$id"
say "wake-up run $id complete in $(($(date +%s) - start)) s: $results/$id"
cat "$results/$id/wakeup.txt"
