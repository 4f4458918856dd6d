#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host orchestrator of the study (make bench): runs every scenario of
# rt-config/scenarios.conf x REPS on a target, reps interleaved (A B A B,
# so host noise spreads over all scenarios), JOBS at a time, and keeps
# every result in results/<run-id>/. A run is written into
# results/.incomplete-<run-id> and renamed at the end: Ctrl-C or a failure
# leaves no half run and never touches an earlier one. A rep that hangs,
# panics or loses its connection is recorded with why (outcome.json
# "reason", its stderr in stderr.txt) and the matrix goes on. Before the
# first rep the target checks what every rep would be refused for (the
# guest: QEMU builds each scenario's machine, paused).
#
# Ctrl-C keeps the reps that finished in results/.incomplete-<run-id>
# (none finished: nothing is kept); --resume ID runs the reps that are
# missing or failed there and finishes the run, refusing (exit 2) if the
# tree's run inputs, the parameters, the bus-lock model or the scenario
# file differ from the run's.
#
# Where a rep runs is one choice, --target, behind one interface
# (bench/target/<kind>.sh, sourced here; the functions are listed there):
# guest (the emulator, default; --clock virtual or wall), native (this
# machine's running kernel) and ssh:[user@]host[:port] (another machine's).
# A target may skip a scenario it cannot run as written (a native kernel
# in another split-lock mode): the run records why (skipped.txt).
#
# Who dispatches the reps is one choice too, --runner, behind one
# interface (bench/runner/<kind>.sh, sourced here; the functions are
# listed in bench/runner/local.sh): local (a pool of JOBS on this machine,
# default) and slurm (one Slurm job array; its tasks and the job that
# finishes the run call this script with --task and --finish). Both run a
# rep through rep_run and rep_record below, and end with study_finish.
#
# Exit status: 0 matrix complete (reps may have failed: see summary; with
# --no-wait: submitted), 1 failure: the run could not start or finish,
# its report failed, or it measured nothing where it had to (no usable
# rep at all, or none in a scenario that a comparison needs: named; the
# run is kept), 2 usage error (nothing started), 130 interrupted (the
# finished reps kept for --resume).
set -uo pipefail
SLB_PROG=study
. "$(dirname "$0")/../scripts/lib.sh"
. "$SLB_ROOT/bench/lib/job.sh"
. "$SLB_ROOT/scripts/lib-run.sh"
. "$SLB_ROOT/bench/scenarios.sh"
. "$SLB_ROOT/rt-config/defaults.conf"

SCENARIO_FILE=${SLB_SCENARIO_FILE:-$SLB_ROOT/rt-config/scenarios.conf}
scenarios= duration=$DURATION_DEFAULT reps=$REPS_DEFAULT vcpus=$VCPUS_DEFAULT interval=$INTERVAL_DEFAULT
warmup=$WARMUP_DEFAULT jobs=$JOBS_DEFAULT clock=${SLB_CLOCK:-$CLOCK_DEFAULT}
bus_lock_ns=$BUS_LOCK_NS_DEFAULT quantum_ns=$QUANTUM_NS_DEFAULT bus_lock_ns_given=0
bus_model=${SLB_BUS_LOCK_MODEL:-$BUS_LOCK_MODEL_DEFAULT} calibration=${SLB_CALIBRATION:-$SLB_ROOT/$CALIBRATION_DEFAULT}
results=$SLB_ROOT/results id= json=0 validate=0 resume=
target=${SLB_TARGET:-guest} measure_cpu= load_cpus= load_rate=0 measure=$MEASURE_DEFAULT
runner=${SLB_RUNNER:-local} no_wait=0 task= finish= trace=0

usage() {
	cat <<USAGE
Usage: study.sh [options]
Run the split-lock latency matrix; results in RESULTS/<run-id>/.

  -T, --target T        where reps run: guest (the emulator; default, or
                        \$SLB_TARGET), native (this machine's running kernel,
                        as root) or ssh:[user@]host[:port] (another machine's)
  -s, --scenarios LIST  comma- or space-separated names (default: all in
                        rt-config/scenarios.conf: $(all_scenarios | tr '\n' ' '))
  -d, --duration S      cyclictest seconds per run, 3 to 3600 (1 to 3600 natively;
                        default $DURATION_DEFAULT)
  -r, --reps N          repetitions, 1 to 100 (default $REPS_DEFAULT)
  -v, --vcpus N         guest vCPUs, 2 to 8; the last one is isolated (default
                        $VCPUS_DEFAULT; a scenario's vcpus=N in column 8 wins)
  -i, --interval US     cyclictest interval, 100 to 100000 us (default $INTERVAL_DEFAULT;
                        a scenario's interval=US in column 8 wins)
  -w, --warmup S        seconds the load runs before cyclictest starts (default $WARMUP_DEFAULT)
  -M, --measure M       what measures the latency: cyclictest (default), timerlat
                        (rtla timerlat hist: IRQ and thread latency, its timer
                        pinned to the measured CPU) or both (one after the
                        other in each rep, DURATION each, under the same load)
  -c, --clock MODE      virtual or wall (default \$SLB_CLOCK or $CLOCK_DEFAULT)
      --bus-lock-model M  virtual: calibrated (a split lock costs its issuer,
                        holds the bus and delays others' cache misses as
                        CALIBRATION says) or all (every vCPU that meets it
                        waits --bus-lock-ns: the worst case); default
                        \$SLB_BUS_LOCK_MODEL or $BUS_LOCK_MODEL_DEFAULT
      --calibration FILE  a native calibration.json (make calibrate) for
                        the calibrated model (default \$SLB_CALIBRATION or
                        $CALIBRATION_DEFAULT)
      --bus-lock-ns N   virtual, model all: ns one split lock holds the bus,
                        0 to 1000000 (default $BUS_LOCK_NS_DEFAULT); model
                        calibrated: the calibration scaled to a split lock
                        of N ns, 1 to 1000000 (the hold in proportion, the
                        cache unchanged; default the calibration's cost)
      --quantum-ns N    virtual: lock-step quantum, 1000 to 10000000 (default $QUANTUM_NS_DEFAULT)
  -j, --jobs N          guests run at once, 1 to 16 (default $JOBS_DEFAULT); in the
                        virtual mode results do not depend on it; native: 1;
                        slurm: tasks of the job array at once (%N), 1 to 10000
  -R, --runner R        who dispatches reps: local (this machine, JOBS at a
                        time; default, or \$SLB_RUNNER) or slurm (a Slurm job
                        array and a job that finishes the run; README)
      --no-wait         slurm: submit and return; the run becomes RESULTS/ID
                        when its finishing job ends
      --measure-cpu N   native/ssh: the CPU cyclictest measures (default the last)
      --load-cpus LIST  native/ssh: the load's CPUs (default all others)
      --load-rate N     slb-load ops per second per thread, 0 = flat out
                        (default 0); bounds the split locks of a shared machine
      --trace 0|1       1: trace cyclictest's wake-up path in every rep (a
                        scenario's guest option trace does it for its reps):
                        trace-summary.json/.txt and trace-worst.txt per rep;
                        tracing is work on the path it traces (default 0)
  -o, --results DIR     where runs go (default results/)
      --id ID           run id (default: date-time)
      --resume ID       finish the interrupted run ID (RESULTS/.incomplete-ID):
                        run its missing and failed reps, then the statistics,
                        plots and report; its parameters are the run's (an
                        option given too must equal the run's)
      --json            print the run directory as JSON at the end
      --validate        check the arguments and exit (0 good, 2 bad)
  -h, --help            this text
Internal (bench/runner/slurm-task.sh): --task RUNDIR:I runs rep I of the
run being written in RUNDIR, --finish RUNDIR finishes it.
Environment: SLB_QEMU, SLB_INITRD (set by make bench); SLB_BUS_LOCK_MODEL,
SLB_CALIBRATION (as the options); SLB_SCENARIO_FILE
to use another scenario file than rt-config/scenarios.conf; SLB_SSH_OPTS
(more ssh options, e.g. -F FILE) for ssh targets; SLB_SBATCH_OPTS (more
sbatch options: partition, account) and SLB_CACHE (the build cache, on
storage the nodes share) for RUNNER=slurm.
USAGE
}

all_scenarios() { scenario_names "$SCENARIO_FILE"; }
field() { scenario_field "$SCENARIO_FILE" "$@"; }

# study_getopt ARG...: getopt over ARG with the study's options.
study_getopt() {
	getopt -n study -o T:R:s:d:r:v:i:w:c:j:o:M:h -l scenarios:,duration:,reps:,vcpus:,interval:,warmup:,results:,id:,json,validate,help,measure: \
		-l clock:,bus-lock-ns:,bus-lock-model:,calibration:,quantum-ns:,jobs:,target:,measure-cpu:,load-cpus:,load-rate: \
		-l runner:,no-wait,task:,finish:,resume:,trace: -- "$@"
}
opts=$(study_getopt "$@") || exit 2
eval set -- "$opts"
# parse_opts OPTION...: the options into the variables (getopt's output,
# ending in --).
parse_opts() {
while true; do
	case $1 in
	-T | --target) target=$2; shift 2 ;;
	-R | --runner) runner=$2; shift 2 ;;
	--no-wait) no_wait=1; shift ;;
	--task) task=$2; shift 2 ;;
	--finish) finish=$2; shift 2 ;;
	--measure-cpu) measure_cpu=$2; shift 2 ;;
	--load-cpus) load_cpus=$2; shift 2 ;;
	--load-rate) load_rate=$2; shift 2 ;;
	-s | --scenarios) scenarios=$2; shift 2 ;;
	-d | --duration) duration=$2; shift 2 ;;
	-r | --reps) reps=$2; shift 2 ;;
	-v | --vcpus) vcpus=$2; shift 2 ;;
	-i | --interval) interval=$2; shift 2 ;;
	-w | --warmup) warmup=$2; shift 2 ;;
	-M | --measure) measure=$2; shift 2 ;;
	-c | --clock) clock=$2; shift 2 ;;
	--bus-lock-ns) bus_lock_ns=$2 bus_lock_ns_given=1; shift 2 ;;
	--bus-lock-model) bus_model=$2; shift 2 ;;
	--calibration) calibration=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	-j | --jobs) jobs=$2; shift 2 ;;
	-o | --results) results=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--resume) resume=$2; shift 2 ;;
	--json) json=1; shift ;;
	--trace) trace=$2; shift 2 ;;
	--validate) validate=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
}
parse_opts "$@"
# --resume ID: the run's own options (RESULTS/.incomplete-ID/study.args)
# first, then those given here again, which must not change them
# (resume_check below).
if [ -n "$resume" ]; then
	case $resume in '' | .* | */* | *[!A-Za-z0-9._-]*) usage_error "--resume '$resume' is not a run id" ;; esac
	[ -z "$task$finish" ] || usage_error "--resume is not for a runner's --task or --finish"
	rdir=$results/.incomplete-$resume
	[ -f "$rdir/study.args" ] ||
		usage_error "--resume '$resume': no interrupted run of that id in $results (allowed: $(resumable_runs "$results" | tr '\n' ' ' | grep . || echo "none"))"
	mapfile -t stored <"$rdir/study.args"
	sopts=$(study_getopt "${stored[@]}") || usage_error "$rdir/study.args does not parse"
	eval set -- "$sopts"
	parse_opts "$@"
	eval set -- "$opts"
	parse_opts "$@"
	[ "$id" = "$resume" ] || usage_error "--id '$id' is not the run resumed ('$resume')"
fi
case $target in
guest) target_kind=guest ;;
native | ssh:*) target_kind=native ;;
*) usage_error "TARGET '$target' is not allowed (allowed: guest, native, ssh:[user@]host[:port])" ;;
esac
check_choice RUNNER "$runner" local slurm
check_choice TRACE "$trace" 0 1
if [ "$target_kind" = guest ]; then check_number DURATION "$duration" 3 3600; else check_number DURATION "$duration" 1 3600; fi
check_number REPS "$reps" 1 100
[ "$vcpus" != 1 ] || usage_error "VCPUS=1 leaves nothing to isolate: cyclictest needs an isolated vCPU and the load a housekeeping one (allowed: 2 to 8)"
check_number VCPUS "$vcpus" 2 8
check_number INTERVAL "$interval" 100 100000
check_number WARMUP "$warmup" 0 60
check_choice MEASURE "$measure" cyclictest timerlat both
# both: cyclictest, then rtla timerlat, DURATION each (measure_phases).
phases=$(measure_phases "$measure")
check_choice CLOCK "$clock" virtual wall
check_choice BUS_LOCK_MODEL "$bus_model" calibrated all
# The calibrated model takes a cost as a scaling of its calibration
# (bus_model_load; a split lock of 0 ns has nothing to scale).
cal_scale=
if [ "$bus_model" = all ] || [ "$bus_lock_ns_given" = 0 ]; then
	check_number BUS_LOCK_NS "$bus_lock_ns" 0 1000000
else
	[ "$bus_lock_ns" != 0 ] ||
		usage_error "BUS_LOCK_NS=0 is out of range for BUS_LOCK_MODEL=calibrated, which scales its calibration to that cost (allowed: 1 to 1000000)"
	check_number BUS_LOCK_NS "$bus_lock_ns" 1 1000000
	cal_scale=$bus_lock_ns
fi
[ "$clock" = wall ] || [ "$bus_model" = all ] || calibration=$(cal_resolve "$calibration") || exit 2
[ "$clock" = wall ] || bus_model_load "$bus_model" "$calibration" "$cal_scale"
check_number QUANTUM_NS "$quantum_ns" 1000 10000000
check_number LOAD_RATE "$load_rate" 0 100000000
[ -f "$SCENARIO_FILE" ] || usage_error "scenario file '$SCENARIO_FILE' does not exist"
[ -n "$scenarios" ] || scenarios=$(all_scenarios | tr '\n' ' ')
list=()
for s in $(echo "$scenarios" | tr ',' ' '); do
	[ -n "$(field "$s" 1)" ] || usage_error "unknown scenario '$s' (allowed: $(all_scenarios | tr '\n' ' '))"
	list+=("$s")
done
[ ${#list[@]} -gt 0 ] || usage_error "no scenario given"
# Column 8 of a scenario: its guest, "-" for the defaults, or vcpus=N
# (instead of --vcpus), kernel=VARIANT (a build-kernel.sh variant),
# cpuflag=+F / -F (appended to the -cpu model), isolation=I (run-guest
# --isolation: the options that isolate the measured vCPUs, all by
# default, none or some joined by +), interval=US (cyclictest's interval
# instead of --interval), isolated=N (the last N vCPUs isolated, each
# measured by a cyclictest thread of its own; default 1) and offender=P
# (where the housekeeping load runs: housekeeping, every housekeeping vCPU
# (default); timekeeper, CPU 0 alone, which keeps the timekeeping and the
# tick of the nohz_full CPUs; other, the housekeeping vCPUs but CPU 0)
# and trace (its reps traced as --trace does).
# Checked for every target; a native target skips a scenario whose
# machine it is not.
cpu=${SLB_CPU:-$CPU_DEFAULT}
declare -A s_vcpus=() s_variant=() s_cpu=() s_iso=() s_interval=() s_isolated=() s_offender=() s_trace=()
for s in "${list[@]}"; do
	s_vcpus[$s]=$vcpus s_variant[$s]= s_cpu[$s]=$cpu s_iso[$s]=all s_interval[$s]=$interval s_trace[$s]=$trace
	s_isolated[$s]=1 s_offender[$s]=housekeeping
	for kv in $(field "$s" 8 | tr ',' ' '); do
		case $kv in
		-) ;;
		vcpus=*) check_number "scenario $s: vcpus" "${kv#vcpus=}" 2 8; s_vcpus[$s]=${kv#vcpus=} ;;
		kernel=*)
			"$SLB_ROOT/scripts/build-kernel.sh" --path --variant "${kv#kernel=}" >/dev/null 2>&1 ||
				usage_error "scenario $s: kernel '${kv#kernel=}' is not a kernel variant (allowed: $("$SLB_ROOT/scripts/build-kernel.sh" --variants))"
			s_variant[$s]=${kv#kernel=} ;;
		cpuflag=*) [[ ${kv#cpuflag=} =~ ^[+-][a-z0-9][a-z0-9_.-]*$ ]] ||
			usage_error "scenario $s: '$kv' is not cpuflag=+FLAG or cpuflag=-FLAG (a QEMU CPU property name)"
			s_cpu[$s]+=,${kv#cpuflag=} ;;
		isolation=*) [[ ${kv#isolation=} =~ ^(all|none|[a-z_]+(\+[a-z_]+)*)$ ]] &&
			"$SLB_ROOT/rt-config/guest-cmdline.sh" 2 1 "${kv#isolation=}" >/dev/null 2>&1 ||
			usage_error "scenario $s: '$kv' is not isolation=all, none, or isolcpus, isolcpus_nohz, nohz_full, rcu_nocbs, irqaffinity joined by +"
			s_iso[$s]=${kv#isolation=} ;;
		interval=*) check_number "scenario $s: interval" "${kv#interval=}" 100 100000; s_interval[$s]=${kv#interval=} ;;
		isolated=*) check_number "scenario $s: isolated" "${kv#isolated=}" 1 7; s_isolated[$s]=${kv#isolated=} ;;
		offender=*) check_choice "scenario $s: offender" "${kv#offender=}" housekeeping timekeeper other
			s_offender[$s]=${kv#offender=} ;;
		trace) s_trace[$s]=1 ;;
		*) usage_error "scenario $s: guest option '$kv' is unknown (allowed: vcpus=N, kernel=VARIANT, cpuflag=+FLAG or -FLAG, isolation=I, interval=US, isolated=N, offender=P, trace)" ;;
		esac
	done
	# what the options say together: a housekeeping vCPU left, and one
	# beside CPU 0 for offender=other; a load that offender= can place
	[ "${s_isolated[$s]}" -lt "${s_vcpus[$s]}" ] ||
		usage_error "scenario $s: isolated=${s_isolated[$s]} leaves no housekeeping vCPU of ${s_vcpus[$s]} (allowed: 1 to $((${s_vcpus[$s]} - 1)))"
	[ "${s_offender[$s]}" != other ] || [ $((${s_vcpus[$s]} - ${s_isolated[$s]})) -ge 2 ] ||
		usage_error "scenario $s: offender=other needs a housekeeping vCPU besides CPU 0, the timekeeper: vcpus=${s_vcpus[$s]} with isolated=${s_isolated[$s]} has none (allowed: vcpus >= $((${s_isolated[$s]} + 2)))"
	case ${s_offender[$s]}:$(field "$s" 3) in
	housekeeping:* | *:slb-load:* | *:stress-ng:*) ;;
	*) usage_error "scenario $s: offender=${s_offender[$s]} places the housekeeping load, and its load is '$(field "$s" 3)' (allowed with slb-load:... or stress-ng:...)" ;;
	esac
done
. "$SLB_ROOT/bench/target/$target_kind.sh"
target_check
. "$SLB_ROOT/bench/runner/$runner.sh"
runner_check
[ -n "$id" ] || id=$(date +%Y%m%d-%H%M%S)
# study_args: the options that make this study again (one per line), for
# a runner that calls it elsewhere with --task and --finish.
study_args() {
	printf '%s\n' --target "$target" --scenarios "${list[*]}" --duration "$duration" --reps "$reps" \
		--vcpus "$vcpus" --interval "$interval" --warmup "$warmup" --measure "$measure" --clock "$clock" \
		--bus-lock-model "$bus_model" --quantum-ns "$quantum_ns" --jobs "$jobs" --load-rate "$load_rate" \
		--results "$results" --id "$id" --runner "$runner"
	[ "$trace" = 0 ] || printf '%s\n' --trace "$trace"
	# the model as given: all its cost, calibrated its file (which sets the
	# cost) and the cost it is scaled to, if one was given
	if [ "$bus_model" = all ]; then
		printf '%s\n' --bus-lock-ns "$bus_lock_ns"
	else
		printf '%s\n' --calibration "$(realpath "$calibration")"
		[ -z "$cal_scale" ] || printf '%s\n' --bus-lock-ns "$cal_scale"
	fi
}

# resume_key: what must not change under a run for it to be resumed
# (RUNDIR/resume.key): the tree's run inputs and the bus-lock model as
# run-guest gets it (a calibration's content, not only its path).
resume_key() {
	echo "run inputs digest=$(run_inputs_digest)"
	if [ "$target_kind" = guest ] && [ "$clock" = virtual ]; then echo "bus-lock model=$(bus_model_args)"; fi
}
# the options that decide what a rep measures, "OPTION VALUE" a line
# (study_args without who runs the reps and where the run is kept)
result_args() { study_args | measured_args; }
# measured_args: of "OPTION\nVALUE" lines (study_args, study.args), the
# "OPTION VALUE" pairs that decide what a rep measures.
measured_args() { paste - - | grep -v -e '^--jobs	' -e '^--runner	' -e '^--results	' -e '^--id	'; }
# resume_check: --resume ID may go on: the run is not running, not
# finished, and nothing that decides its results changed; else exit 2
# naming what.
resume_check() {
	local pid d
	pid=$(cat "$rdir/.pid" 2>/dev/null)
	[ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || usage_error "--resume '$id': the run is still running (pid $pid)"
	[ ! -e "$results/$id" ] || usage_error "--resume '$id': $results/$id exists: that run finished"
	d=$(diff <(measured_args <"$rdir/study.args") \
		<(result_args) | sed -n 's/^> //p' | head -n 1)
	[ -z "$d" ] || usage_error "--resume '$id': ${d%%	*} is '${d#*	}' here, '$(paste - - <"$rdir/study.args" | awk -F'\t' -v o="${d%%	*}" '$1 == o { print $2 }')' in the run (a resumed run keeps its parameters)"
	d=$(diff "$rdir/resume.key" <(resume_key) | sed -n 's/^> //p' | head -n 1)
	[ -z "$d" ] || usage_error "--resume '$id': the ${d%%=*} differs from the run's ($(sed -n "s/^${d%%=*}=//p" "$rdir/resume.key") then, ${d#*=} now): a resumed run would mix two trees"
	cmp -s "$SCENARIO_FILE" "$rdir/scenarios.conf" ||
		usage_error "--resume '$id': the scenario file $SCENARIO_FILE differs from the run's (scenarios.conf in $rdir)"
}
if [ -n "$resume" ]; then
	resume_check
elif [ -z "$task$finish" ]; then
	check_run_id "$results" "$id"
fi
[ "$validate" = 0 ] || exit 0
SUMMARY=$SLB_ROOT/build/host/slb-summary
[ -x "$SUMMARY" ] || usage_error "$SUMMARY missing (run make)"
target_ready

# What a runner calls. The matrix in the order reps run (interleaved:
# rep 1 of every scenario, then rep 2, ...): rep_total of them, rep_at I
# (0-based) prints "SCENARIO REP".
rep_total() { echo $((${#list[@]} * reps)); }
rep_at() { echo "${list[$1 % ${#list[@]}]} $(($1 / ${#list[@]} + 1))"; }

# rep_run S REP: write the rep's job and run it on the target: TMP/S/repREP/,
# its outcome word in TMP/S/repREP.outcome. Run it in a subshell of its own
# (rep_run ... & or (rep_run ...)): it ends in the target's exec.
rep_run() {
	local s=$1 rep=$2 dir=$tmp/$1/rep$2 env=()
	mkdir -p "$tmp/$s"
	mapfile -t env < <(target_job_env "$s" "$rep")
	# cyclictest alone (the default) writes the job it always did
	[ "$measure" = cyclictest ] || env+=("SLB_MEASURE=$measure")
	[ "${s_trace[$s]}" = 0 ] || env+=("SLB_TRACE=1")
	write_study_job "$duration" "$warmup" "${s_interval[$s]}" "$load_rate" "$(field "$s" 3)" "$(field "$s" 4)" \
		"${env[@]}" >"$dir.job"
	target_start "$s" "$rep" "$dir" "$dir.job" "$limit" >"$dir.outcome" 2>"$dir.stderr"
}

# rep_record S REP: condense the rep's results into TMP/S/repREP/rep.info
# (written whole: a rep without one was not recorded); print its outcome.
# A rep that did not end ok keeps why: the target's stderr (its last 40
# lines in stderr.txt) and a "reason" in outcome.json (the target's own,
# else the stderr's last line; a target that wrote no outcome.json did not
# start the rep: outcome not-started).
rep_record() {
	local dir=$tmp/$1/rep$2 why
	mkdir -p "$dir"
	if [ -s "$dir.stderr" ]; then tail -n 40 "$dir.stderr" >"$dir/stderr.txt"; fi
	rm -f "$dir.stderr"
	why=$(grep . "$dir/stderr.txt" 2>/dev/null | tail -n 1 | cut -c1-300)
	if [ ! -s "$dir/outcome.json" ]; then
		jq -n --arg r "${why:-the target wrote no outcome and no error}" '{outcome: "not-started", reason: $r}' >"$dir/outcome.json"
	elif ! jq -e '.outcome == "ok" or .reason != null' "$dir/outcome.json" >/dev/null 2>&1; then
		jq --arg r "${why:-no reason recorded}" '.reason = $r' "$dir/outcome.json" >"$dir/outcome.json.new" &&
			mv "$dir/outcome.json.new" "$dir/outcome.json"
	fi
	"$SLB_ROOT/bench/rep-info.sh" "$dir" "$duration" "${s_interval[$1]}" >"$dir/rep.info.tmp" &&
		mv "$dir/rep.info.tmp" "$dir/rep.info"
	sed -n 's/^outcome=//p' "$dir/rep.info"
}

# rep_reason S REP: the recorded rep's reason (empty for ok).
rep_reason() { jq -r '.reason // empty' "$tmp/$1/rep$2/outcome.json" 2>/dev/null; }

# rep_todo: the matrix indices (rep_at) still to run, in order: every one
# for a new run; on --resume those without a record or not ok (a failed
# rep's files move to failed/S-repN.K first: nothing recorded is lost).
rep_todo() {
	local i s rep dir k
	for ((i = 0; i < $(rep_total); i++)); do
		read -r s rep <<<"$(rep_at "$i")"
		dir=$tmp/$s/rep$rep
		if [ -f "$dir/rep.info" ]; then
			! grep -qx outcome=ok "$dir/rep.info" || continue
			k=1
			while [ -e "$tmp/failed/$s-rep$rep.$k" ]; do k=$((k + 1)); done
			mkdir -p "$tmp/failed" && mv "$dir" "$tmp/failed/$s-rep$rep.$k" || die "cannot move $dir aside"
		fi
		rm -rf "$dir" "$dir.job" "$dir.outcome" "$dir.stderr" "$dir.node"
		echo "$i"
	done
}


# unmeasured: the scenarios without a usable rep that the run cannot do
# without, a line each: every one if none has a usable rep, else those a
# comparison needs (one with a control in the run, or another's control).
unmeasured() {
	local s c
	jq -e '[.scenarios[] | select(.reps_ok > 0)] | length == 0' "$tmp/summary.json" >/dev/null &&
		{ echo "no scenario has a usable rep: the study measured nothing"; return; }
	for s in $(jq -r '.scenarios[] | select(.reps_ok == 0) | .name' "$tmp/summary.json"); do
		c=$(scenario_field "$tmp/scenarios.conf" "$s" 5)
		if [ -n "$c" ] && [ "$c" != - ] && grep -qx -- "$c" "$tmp/scenarios.list"; then
			echo "$s has no usable rep, and the comparison $s/$c needs it"
			continue
		fi
		for c in "${list[@]}"; do
			[ "$(scenario_field "$tmp/scenarios.conf" "$c" 5)" = "$s" ] || continue
			echo "$s has no usable rep, and the comparison $c/$s needs it"
			break
		done
	done
}

# study_finish: every rep is recorded: the target cleaned up, the
# summary, the run renamed into place, results/latest, the report. What
# went wrong (a scenario measured nothing, the report failed) goes into
# the run's problems.txt, which the study's exit status follows.
study_finish() {
	target_cleanup
	# summary.*: the run's primary measure (cyclictest, or timerlat's
	# thread latency when timerlat alone ran); summary-M.*: each other one.
	local pm m
	pm=$(primary_measure "$measure")
	stats_tool "$tmp/summary.json" "$SUMMARY" --json --measure "$pm" "$tmp" || die "summary failed (partial run kept in $tmp)"
	stats_tool "$tmp/summary.csv" "$SUMMARY" --csv --measure "$pm" "$tmp" 2>/dev/null || die "summary (CSV) failed (partial run kept in $tmp)"
	stats_tool "$tmp/summary.txt" "$SUMMARY" --measure "$pm" "$tmp" 2>/dev/null || die "summary (text) failed (partial run kept in $tmp)"
	for m in $(run_measures "$measure"); do
		[ "$m" != "$pm" ] || continue
		stats_tool "$tmp/summary-$m.json" "$SUMMARY" --json --measure "$m" "$tmp" || die "summary ($m) failed (partial run kept in $tmp)"
		stats_tool "$tmp/summary-$m.txt" "$SUMMARY" --measure "$m" "$tmp" 2>/dev/null || die "summary ($m, text) failed (partial run kept in $tmp)"
	done
	unmeasured >"$tmp/problems.txt" || die "cannot write $tmp/problems.txt"
	end_run_dir "$tmp" "$results/$id"
	ln -sfn "$id" "$results/latest"
	# report.err stays only when the report failed: a report that worked
	# leaves its progress lines there too.
	if "$SLB_ROOT/bench/report/report.sh" "$results/$id" >/dev/null 2>"$results/$id/report.err"; then
		rm -f "$results/$id/report.err"
	else
		echo "the report failed ($(grep . "$results/$id/report.err" | tail -n 1)); the results are kept: make report RUN=$id" \
			>>"$results/$id/problems.txt"
	fi
	[ -s "$results/$id/problems.txt" ] || rm -f "$results/$id/problems.txt"
}

# finish_status: 0, or 1 after saying what problems.txt holds.
finish_status() {
	[ -s "$results/$id/problems.txt" ] || return 0
	sed 's/^/  /' "$results/$id/problems.txt" >&2
	say "run $id finished with problems (above; $results/$id/problems.txt)"
	return 1
}

# A run under way elsewhere (a runner's task or finishing job): its
# directory holds the scenario list; one rep, or the end of the run.
if [ -n "$task$finish" ]; then
	tmp=${finish:-${task%:*}}
	require_run_dir "$tmp"
	mapfile -t list <"$tmp/scenarios.list"
	limit=$(target_limit)
	if [ -n "$task" ]; then
		check_number "--task index" "${task##*:}" 0 $(($(rep_total) - 1))
		read -r s rep <<<"$(rep_at "${task##*:}")"
		runner_task_begin "$s" "$rep"
		# Cancelled (SIGTERM): the task ends once the rep's guest has, so
		# that nothing of it outlives the task (a runner that tracks a
		# task by its process tree loses what the task's end orphans).
		rep_run "$s" "$rep" &
		rpid=$!
		trap 'kill -TERM "$rpid" 2>/dev/null; wait "$rpid"; say "$s rep $rep: cancelled"; exit 143' INT TERM HUP
		wait "$rpid"
		trap - INT TERM HUP
		say "$s rep $rep: $(rep_record "$s" "$rep")"
	else
		results=$(dirname "$tmp") id=$(basename "$tmp") id=${id#.incomplete-}
		runner_settle
		study_finish
		say "run $id finished: $results/$id"
		finish_status || exit 1
	fi
	exit 0
fi

# A study killed outright (SIGKILL, power loss) cannot clean up: what
# such a run left goes once its process is gone, unless it can be resumed.
if [ -n "$resume" ]; then
	tmp=$rdir
	echo $$ >"$tmp/.pid" || die "cannot write $tmp/.pid"
else
	begin_run_dir "$results" "$id" '*' "a study"
	tmp=$RUN_TMP
fi
# stop_run WHY STATUS: end the study before its matrix is done (Ctrl-C, a
# full results directory): the reps under way end and their directories
# go; the recorded ones stay for --resume (a new run with none: nothing is
# kept); exit STATUS.
stop_run() {
	local kept d
	trap '' INT TERM HUP
	runner_abort
	target_cleanup
	for d in "$tmp"/*/rep[0-9]*/; do
		d=${d%/}
		[ -f "$d/rep.info" ] || rm -rf "$d" "$d.job" "$d.outcome" "$d.stderr" "$d.node"
	done
	kept=$(find "$tmp" -mindepth 3 -maxdepth 3 -name rep.info -path "$tmp/*/rep*/rep.info" 2>/dev/null | wc -l)
	if [ "$kept" = 0 ] && [ -z "$resume" ]; then
		rm -rf "$tmp"
		say "$1: no rep had finished; nothing kept of run $id"
	else
		rm -f "$tmp/.pid"
		say "$1: $kept of $(rep_total) reps kept in $tmp; 'make bench RESUME=$id' (bench/study.sh --resume $id) runs the rest and finishes the run"
	fi
	exit "$2"
}
trap 'stop_run interrupted 130' INT TERM HUP

# room_left: the run's directory takes another MiB (a rep that failed for
# want of room fails every rep after it: the study stops instead).
room_left() {
	head -c 1048576 /dev/zero >"$tmp/.room" 2>/dev/null
	local rc=$?
	rm -f "$tmp/.room"
	return "$rc"
}

# The target gets ready (a remote copy, the machine's facts) and says
# which scenarios it cannot run as written, and why.
target_prepare "$tmp" || { [ -n "$resume" ] || rm -rf "$tmp"; exit 1; }
run_list=()
: >"$tmp/skipped.txt.new"
for s in "${list[@]}"; do
	why=$(target_skip "$s")
	if [ -n "$why" ]; then
		printf '%s\t%s\n' "$s" "$why" >>"$tmp/skipped.txt.new"
		say "skipping $s: ${why%%$'\t'*}"
	else
		run_list+=("$s")
	fi
done
if [ -n "$resume" ]; then
	# The run's own scenarios (those its target skipped then are skipped now).
	rm -f "$tmp/skipped.txt.new"
	[ "$(printf '%s\n' "${run_list[@]}")" = "$(cat "$tmp/scenarios.list")" ] ||
		{ target_cleanup; rm -f "$tmp/.pid"; die "--resume '$id': $target now runs $(echo "${run_list[@]}" | tr ' ' ,), the run ran $(paste -sd, "$tmp/scenarios.list")"; }
	mapfile -t list <"$tmp/scenarios.list"
else
	mv "$tmp/skipped.txt.new" "$tmp/skipped.txt"
	[ -s "$tmp/skipped.txt" ] || rm -f "$tmp/skipped.txt"
	if [ ${#run_list[@]} -eq 0 ]; then
		target_cleanup
		rm -rf "$tmp"
		die "no scenario can run on $target (each was skipped: see above)"
	fi
	list=("${run_list[@]}")
	printf '%s\n' "${list[@]}" >"$tmp/scenarios.list"
	cp "$SCENARIO_FILE" "$tmp/scenarios.conf"
	"$SLB_ROOT/bench/manifest.sh" "$tmp" "$id" duration_s="$duration" reps="$reps" \
		interval_us="$interval" warmup_s="$warmup" jobs="$jobs" load_rate="$load_rate" measure="$measure" trace="$trace" \
		$(target_manifest_args) $(runner_manifest_args) >"$tmp/manifest.json" 2>"$tmp/manifest.err" ||
		{ target_cleanup; die "could not write the manifest: $(cat "$tmp/manifest.err")"; }
	rm -f "$tmp/manifest.err"
	# What --resume needs: the options (which a runner's tasks use too)
	# and what must not change under the run.
	{ study_args >"$tmp/study.args" && resume_key >"$tmp/resume.key"; } ||
		{ target_cleanup; die "cannot write $tmp/study.args"; }
fi
limit=$(target_limit)

rep_todo >"$tmp/.todo" || exit 1
mapfile -t todo <"$tmp/.todo"
rm -f "$tmp/.todo"
total=${#todo[@]}
start=$(date +%s)
if [ -n "$resume" ]; then
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) resumed: $total of $(rep_total) reps to run" >>"$tmp/resumed.txt"
	say "run $id resumed: $total of $(rep_total) $(target_noun) runs of ${duration} s still to do ($((${#list[@]} * reps - total)) kept), $(runner_describe), $(target_describe)"
else
	say "run $id: ${#list[@]} scenarios x $reps reps = $total $(target_noun) runs of ${duration} s, $(runner_describe), $(target_describe)"
fi
runner_run
[ "$no_wait" = 0 ] || exit 0
say "run $id finished in $((($(date +%s) - start) / 60))m$((($(date +%s) - start) % 60))s: $results/$id"
cat "$results/$id/summary.txt"
[ "$json" = 0 ] || jq -n --arg id "$id" --arg dir "$results/$id" '{run_id: $id, dir: $dir}'
finish_status || exit 1
say "run $id complete"
exit 0
