#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host orchestrator of the study (make bench): runs every scenario of
# rt-config/scenarios.conf x REPS in the guest, reps interleaved (A B A B,
# so host noise spreads over all scenarios), and keeps every result in
# results/<run-id>/. A run is written into results/.incomplete-<run-id> and
# renamed at the end: Ctrl-C or a failure leaves no half run and never
# touches an earlier one. A guest that hangs or panics is recorded and the
# matrix goes on.
#
# Exit status: 0 matrix complete (runs may have failed: see summary), 1
# failure, 2 usage error (nothing started).
set -uo pipefail
SLB_PROG=study
. "$(dirname "$0")/../scripts/lib.sh"

SCENARIO_FILE=${SLB_SCENARIO_FILE:-$SLB_ROOT/rt-config/scenarios.conf}
scenarios= duration=15 reps=3 vcpus=2 interval=1000 warmup=1 results=$SLB_ROOT/results id= json=0 validate=0

usage() {
	cat <<USAGE
Usage: study.sh [options]
Run the split-lock latency matrix in the guest; results in RESULTS/<run-id>/.

  -s, --scenarios LIST  comma- or space-separated names (default: all in
                        rt-config/scenarios.conf: $(all_scenarios | tr '\n' ' '))
  -d, --duration S      cyclictest seconds per run, 3 to 3600 (default 15)
  -r, --reps N          repetitions, 1 to 100 (default 3)
  -v, --vcpus N         guest vCPUs, 2 to 8; the last one is isolated (default 2)
  -i, --interval US     cyclictest interval, 100 to 100000 us (default 1000)
  -w, --warmup S        seconds of cyclictest before the load starts (default 1)
  -o, --results DIR     where runs go (default results/)
      --id ID           run id (default: date-time)
      --json            print the run directory as JSON at the end
      --validate        check the arguments and exit (0 good, 2 bad)
  -h, --help            this text
Environment: SLB_QEMU, SLB_INITRD (set by make bench); SLB_SCENARIO_FILE
to use another scenario file than rt-config/scenarios.conf.
USAGE
}

all_scenarios() { sed -n 's/^\([a-z0-9][a-z0-9-]*\) *|.*/\1/p' "$SCENARIO_FILE"; }
field() { # field NAME N: column N (1-based) of scenario NAME, trimmed
	awk -F'|' -v n="$1" -v f="$2" '{ g = $1; gsub(/ /, "", g) } g == n { v = $f; gsub(/^ +| +$/, "", v); print v }' "$SCENARIO_FILE"
}

opts=$(getopt -n study -o s:d:r:v:i:w:o:h -l scenarios:,duration:,reps:,vcpus:,interval:,warmup:,results:,id:,json,validate,help -- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-s | --scenarios) scenarios=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-v | --vcpus) vcpus=$2; shift 2 ;;
	-i | --interval) interval=$2; shift 2 ;;
	-w | --warmup) warmup=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--json) json=1; shift ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
check_number DURATION "$duration" 3 3600
check_number REPS "$reps" 1 100
[ "$vcpus" != 1 ] || usage_error "VCPUS=1 leaves nothing to isolate: cyclictest needs an isolated vCPU and the load a housekeeping one (allowed: 2 to 8)"
check_number VCPUS "$vcpus" 2 8
check_number INTERVAL "$interval" 100 100000
check_number WARMUP "$warmup" 0 $((duration - 1))
[ -f "$SCENARIO_FILE" ] || usage_error "scenario file '$SCENARIO_FILE' does not exist"
[ -n "$scenarios" ] || scenarios=$(all_scenarios | tr '\n' ' ')
list=()
for s in $(echo "$scenarios" | tr ',' ' '); do
	[ -n "$(field "$s" 1)" ] || usage_error "unknown scenario '$s' (allowed: $(all_scenarios | tr '\n' ' '))"
	list+=("$s")
done
[ ${#list[@]} -gt 0 ] || usage_error "no scenario given"
[ -n "$id" ] || id=$(date +%Y%m%d-%H%M%S)
case $id in '' | .* | */* | *[!A-Za-z0-9._-]*) usage_error "--id '$id' must be letters, digits, . _ - and not start with ." ;; esac
[ ! -e "$results/$id" ] || usage_error "run '$id' exists in $results; refusing to overwrite it"
[ "$validate" = 0 ] || exit 0
[ -n "${SLB_INITRD:-}" ] && [ -f "$SLB_INITRD" ] || usage_error "SLB_INITRD is not set to an initramfs (use make bench)"
SUMMARY=$SLB_ROOT/build/host/slb-summary
[ -x "$SUMMARY" ] || usage_error "$SUMMARY missing (run make)"

mkdir -p "$results" || die "cannot create $results"
# A study killed outright (SIGKILL, power loss) cannot clean up: remove
# what such a run left, once its process is gone.
for stale in "$results"/.incomplete-*; do
	[ -d "$stale" ] || continue
	pid=$(cat "$stale/.pid" 2>/dev/null)
	if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
		say "removing $stale, left by a study that did not finish"
		rm -rf "$stale"
	fi
done
tmp=$results/.incomplete-$id
rm -rf "$tmp"
mkdir -p "$tmp" || die "cannot create $tmp"
echo $$ >"$tmp/.pid"
rgpid=
abort() {
	[ -z "$rgpid" ] || { kill -TERM "$rgpid" 2>/dev/null; wait "$rgpid" 2>/dev/null; }
	rm -rf "$tmp"
	say "interrupted: nothing kept of run $id"
	exit 130
}
trap abort INT TERM HUP

printf '%s\n' "${list[@]}" >"$tmp/scenarios.list"
cp "$SCENARIO_FILE" "$tmp/scenarios.conf"
"$SLB_ROOT/scripts/manifest.sh" "$tmp" "$id" "$duration" "$reps" "$vcpus" "$interval" "$warmup" >"$tmp/manifest.json" 2>"$tmp/manifest.err" ||
	die "could not write the manifest: $(cat "$tmp/manifest.err")"

total=$((${#list[@]} * reps))
n=0
start=$(date +%s)
say "run $id: ${#list[@]} scenarios x $reps reps = $total guest runs of ${duration} s (emulated; QEMU TCG)"
for rep in $(seq 1 "$reps"); do
	for s in "${list[@]}"; do
		n=$((n + 1))
		dir=$tmp/$s/rep$rep
		mkdir -p "$tmp/$s"
		job=$tmp/$s/rep$rep.job
		{
			echo "SLB_DURATION=$duration SLB_WARMUP=$warmup SLB_INTERVAL=$interval"
			printf 'SLB_LOAD=%q SLB_SYSCTLS=%q\n' "$(field "$s" 3)" "$(field "$s" 4)"
			echo ". /jobs/study.sh"
		} >"$job"
		now=$(date +%s)
		if [ "$n" -gt 1 ]; then
			eta=$(((now - start) * (total - n + 1) / (n - 1)))
			eta_s="ETA $((eta / 60))m$((eta % 60))s"
		else
			eta_s="ETA ~$((total * (duration + 15) / 60))m"
		fi
		say "[$n/$total] $s rep $rep/$reps; elapsed $(((now - start) / 60))m$(((now - start) % 60))s, $eta_s"
		"$SLB_ROOT/bench/run-guest.sh" -o "$dir" -j "$job" --smp "$vcpus" \
			-a "$(field "$s" 2)" -t $((duration + 180)) >"$dir.outcome" 2>"$dir.stderr" &
		rgpid=$!
		wait "$rgpid"
		rgpid=
		"$SLB_ROOT/scripts/rep-info.sh" "$dir" >"$dir/rep.info"
		outcome=$(sed -n 's/^outcome=//p' "$dir/rep.info")
		[ "$outcome" = ok ] || say "  $s rep $rep: guest run ended '$outcome' (recorded; the matrix goes on)"
	done
done
"$SUMMARY" --json "$tmp" >"$tmp/summary.json" 2>"$tmp/summary.err" ||
	die "summary failed: $(cat "$tmp/summary.err") (partial run kept in $tmp)"
"$SUMMARY" --csv "$tmp" >"$tmp/summary.csv"
"$SUMMARY" "$tmp" >"$tmp/summary.txt"
rm -f "$tmp/.pid"
mv "$tmp" "$results/$id" || die "could not rename $tmp to $results/$id"
ln -sfn "$id" "$results/latest"
"$SLB_ROOT/bench/report.sh" "$results/$id" >/dev/null ||
	say "warning: the report of $id failed; the results are kept (make report RUN=$id)"
say "run $id complete in $((($(date +%s) - start) / 60))m$((($(date +%s) - start) % 60))s: $results/$id"
cat "$results/$id/summary.txt"
[ "$json" = 0 ] || printf '{"run_id": "%s", "dir": "%s"}\n' "$id" "$results/$id"
exit 0
