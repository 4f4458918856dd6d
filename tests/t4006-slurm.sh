#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# RUNNER=slurm end to end on a one-node Slurm this test starts on
# localhost (munged, slurmctld and slurmd with a throwaway munge key, their
# own ports, sockets, spool, state and pid files in the test's directory;
# stopped at the end): a 2-scenario x 2-rep study whose histograms are
# byte-identical to the local runner's, the manifest's job ids and nodes;
# a 2-cost sweep, its studies submitted at once; sbatch refusing the job;
# a panicking guest and a task killed under Slurm recorded as failed
# (with Slurm's state and reason) while the rest completes and the report
# counts them; Ctrl-C cancels the jobs and keeps nothing (and, with Slurm
# stubbed, each of 30 interrupts of the study's wait does);
# --no-wait returns at once and the run finishes in Slurm, untouched by a
# study started meanwhile.
# t-light: most of its time waits on Slurm's polling (about 35 s of CPU
# in 95 s here)
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up) and
# the offender at 1000 ops per second: what is checked is what Slurm runs
# and keeps, which no figure of the model changes, and a calibrated guest
# costs x1.7 the host time, a flat-out aligned one x5 an idle one.
export SLB_BUS_LOCK_MODEL=all
ST=$T_ROOT/bench/study.sh

# The study's wait, interrupted, with Slurm stubbed by shell functions
# (no cluster needed): bash 5.2 runs a trap that comes while it expands a
# $( ) from inside its parser, where the trap's text fails to parse and
# the shell goes on polling. An unprotected wait missed about 1 interrupt
# in 7 here, so 30 in a row, at random moments, must each cancel and exit
# 130 (bench/runner/slurm.sh, slurm_wait).
cat >"$T_TMP/wait.sh" <<'EOF'
SLB_ROOT=$1 tmp=$2 stuck=${3:-} results=$2/results id=w start=$(date +%s) total=2
. "$SLB_ROOT/scripts/lib.sh"
. "$SLB_ROOT/bench/runner/slurm.sh"
rep_total() { echo 2; }
squeue() { [ -e "$tmp/cancelled" ] && [ -z "$stuck" ] || echo PENDING; }
scancel() { : >"$tmp/cancelled"; }
slurm_array=11 slurm_finish=12
trap 'runner_abort; echo "wait.sh: interrupted"; exit 130' INT
echo "wait.sh: waiting"
SLB_SLURM_POLL_S=0 slurm_wait
EOF
wait_interrupted() {
	local i rc bad=0
	for i in $(seq 1 30); do
		mkdir -p "$T_TMP/w$i"
		rc=$(T_INTERRUPT_GRACE=2 t_interrupt "$T_TMP/w$i.out" 'wait.sh: waiting' 0.0$((RANDOM % 10)) \
			bash "$T_TMP/wait.sh" "$T_ROOT" "$T_TMP/w$i")
		[ "$rc" = 130 ] && grep -q 'cancelling jobs 11 and 12' "$T_TMP/w$i.out" ||
			{ echo "interrupt $i: exit $rc"; cat "$T_TMP/w$i.out"; bad=1; }
	done
	return "$bad"
}
t_ok "the study's wait for Slurm ends at each of 30 interrupts, cancelling the jobs (Slurm stubbed)" wait_interrupted
# Jobs that Slurm never lets go: the study waits SLB_SLURM_CANCEL_S for
# them (their tasks write into the run it is about to clear), then says so.
stuck() {
	local t0=${EPOCHREALTIME//[!0-9]/} rc ms
	mkdir -p "$T_TMP/stuck"
	rc=$(T_INTERRUPT_GRACE=10 t_interrupt "$T_TMP/stuck.out" 'wait.sh: waiting' 0 \
		env SLB_SLURM_CANCEL_S=2 bash "$T_TMP/wait.sh" "$T_ROOT" "$T_TMP/stuck" stuck)
	ms=$(((${EPOCHREALTIME//[!0-9]/} - t0) / 1000))
	[ "$rc" = 130 ] && [ "$ms" -ge 2000 ] &&
		grep -q "warning: jobs 11 and 12 still in Slurm's queue 2 s after scancel" "$T_TMP/stuck.out" ||
		{ echo "exit $rc after $ms ms"; cat "$T_TMP/stuck.out"; return 1; }
}
t_ok "... jobs still queued: it waits SLB_SLURM_CANCEL_S (2 s) for them, then warns" stuck

for c in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
	command -v "$c" >/dev/null || PATH=$PATH:/usr/sbin command -v "$c" >/dev/null || {
		t_skip "Slurm runner tests" "no $c (Debian slurm-wlm and munge: make deps)"
		exit 0
	}
done
[ "$(id -u)" = 0 ] || { t_skip "Slurm runner tests" "needs root (slurmd starts the tasks)"; exit 0; }
t_require_guest "Slurm runner tests"
PATH=$PATH:/usr/sbin

# The one-node cluster.
k=$T_TMP/slurm
mkdir -p "$k/spool" "$k/state"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
node=$(hostname -s)
head -c 1024 /dev/urandom >"$k/munge.key"
chmod 0600 "$k/munge.key"
cat >"$k/slurm.conf" <<CONF
ClusterName=slbtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$k/munge.sock
CredType=cred/munge
StateSaveLocation=$k/state
SlurmdSpoolDir=$k/spool
SlurmctldPidFile=$k/slurmctld.pid
SlurmdPidFile=$k/slurmd.pid
SlurmctldLogFile=$k/slurmctld.log
SlurmdLogFile=$k/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$k/slurm.conf SLB_SLURM_POLL_S=1
# stop_cluster: cancel whatever is left (tasks outlive slurmd), then stop
# the daemons this test started, by their pid files.
stop_cluster() {
	local d
	squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
	for _ in $(seq 1 60); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
	for d in slurmd slurmctld munged; do
		[ -s "$k/$d.pid" ] && kill -TERM "$(cat "$k/$d.pid")" 2>/dev/null
	done
	sleep 1
}
trap 'stop_cluster; rm -rf "$T_TMP"' EXIT
munged --force --socket="$k/munge.sock" --key-file="$k/munge.key" --pid-file="$k/munged.pid" \
	--seed-file="$k/munge.seed" --log-file="$k/munged.log" &&
	slurmctld -i && slurmd
up() { for _ in $(seq 1 60); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && return 0; sleep 0.5; done; tail -n 5 "$k"/*.log; return 1; }
t_ok "a one-node Slurm ($node, 2 CPUs) runs on localhost" up

res=$T_TMP/results
# sbatch refusing the job (a partition that does not exist): exit 1 with
# sbatch's words, nothing kept, nothing queued.
SLB_SBATCH_OPTS=--partition=nosuch "$ST" --runner slurm --scenarios baseline --duration 3 --reps 1 \
	--results "$res" --id np >"$T_TMP/np.out" 2>&1
t_ok "sbatch refusing the job array: exit 1 with its reason, nothing kept or queued" sh -c "[ $? = 1 ] &&
	grep -q 'sbatch refused the job array: sbatch: error: .*[Pp]artition' '$T_TMP/np.out' &&
	[ ! -e '$res/np' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null && [ -z \"\$(squeue -h -o %i)\" ] || { cat '$T_TMP/np.out'; exit 1; }"
# same_hist A B: every rep's hist.txt of run A is byte-identical to B's.
same_hist() {
	local f n=0
	for f in "$1"/*/rep*/files/hist.txt; do
		cmp "$f" "$2/${f#"$1"/}" || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "no histograms in $1"; return 1; }
	echo "$n histograms"
}

# The same study on both runners: baseline and split-off under the
# all-stall model at 1000 ns, the same guest as the sweep's 1000 ns study
# below (its histogram is compared to this one), where a bus-lock model the
# runner lost would show. It was baseline,aligned: aligned, busy flat out
# for 3 s, in 5 guests of this script, cost host time, and without split
# locks no figure of it sees the model.
SW=(--bus-lock-model all --bus-lock-ns 1000 --load-rate 1000)
"$ST" "${SW[@]}" --scenarios baseline,split-off --duration 3 --reps 2 --results "$res" --id loc >"$T_TMP/loc.out" 2>&1
t_ok "the local reference run completes" sh -c "[ $? = 0 ] || { tail '$T_TMP/loc.out'; exit 1; }"
"$ST" "${SW[@]}" --runner slurm --scenarios baseline,split-off --duration 3 --reps 2 --results "$res" --id sl >"$T_TMP/sl.out" 2>&1
rc=$?
run=$res/sl
t_ok "RUNNER=slurm: 2 scenarios x 2 reps complete (exit 0)" sh -c "[ $rc = 0 ] || { tail -20 '$T_TMP/sl.out'; cat '$res'/.incomplete-sl/slurm/*.log; exit 1; }"
t_ok "... as one job array of 4 tasks, 2 at a time, and a job after it" grep -q "submitted job array [0-9]* (4 tasks, 2 at a time) and job [0-9]*, which finishes the run after it" "$T_TMP/sl.out"
t_ok "... progress counts tasks pending, running, done and failed" sh -c "grep -q ' running, ' '$T_TMP/sl.out' && grep -q 'tasks: 0 pending, 0 running, 4 done, 0 failed' '$T_TMP/sl.out'"
t_ok "... every hist.txt byte-identical to the local runner's" same_hist "$res/loc" "$run"
t_ok "... the manifest records the runner, the job ids and each rep's node" jq -e --arg n "$node" '.params.runner == "slurm" and
	(.runner.array_job | test("^[0-9]+$")) and (.runner.finish_job | test("^[0-9]+$")) and
	([.runner.reps[] | [.node, .state, .outcome]] | unique == [[$n, "COMPLETED", "ok"]]) and (.runner.reps | length) == 4' "$run/manifest.json"
t_ok "... the local run's manifest says local" jq -e '.params.runner == "local" and .runner == null' "$res/loc/manifest.json"
t_ok "... summary, statistics and report, written by the job after the array" sh -c "[ -s '$run/stats.json' ] && grep -q '^| split-off | 2/2 |' '$run/report.md' &&
	grep -q '^- runner: Slurm, job array' '$run/report.md' && grep -q 'run sl finished' '$run/slurm/finish.log'"
t_ok "... no incomplete directory is left" sh -c "! ls -d '$res'/.incomplete-* 2>/dev/null"

# A sweep of two costs: each study a job array, all submitted at once.
"$T_ROOT/bench/experiment/sweep.sh" --runner slurm --bus-lock-model all --costs "1000 3000" --load-rate 1000 --duration 3 --reps 1 --results "$res" --id sw >"$T_TMP/sw.out" 2>&1
t_ok "RUNNER=slurm sweep of 2 costs completes" sh -c "[ $? = 0 ] && jq -e '[.rows[].bus_lock_ns] == [1000, 3000]' '$res/sw/sweep.json' >/dev/null || { tail '$T_TMP/sw.out'; exit 1; }"
t_ok "... each of its studies ran on Slurm" jq -s -e 'length == 3 and all(.[]; .runner.kind == "slurm")' "$res/sw/aligned/manifest.json" "$res/sw/ns1000/manifest.json" "$res/sw/ns3000/manifest.json"
at_once() { # submitted within 15 s (one after another: 20 s or more each)
	jq -e -s '[.[].date | fromdateiso8601] | max - min < 15' "$res"/sw/{aligned,ns1000,ns3000}/manifest.json ||
		jq -r .date "$res"/sw/{aligned,ns1000,ns3000}/manifest.json
}
t_ok "... its 3 studies were submitted at once, not one after another" at_once
t_ok "... its split-off study at 1000 ns gives the local study's histogram" cmp "$res/sw/ns1000/split-off/rep1/files/hist.txt" "$res/loc/split-off/rep1/files/hist.txt"

# A guest that panics (t4002's broken scenario), and a task killed under
# Slurm (its study process, as a crash or a lost node would end it): both
# recorded as failed, the rest goes on, the report counts them.
t_failing_scenarios "$T_TMP/f.conf"
SLB_SCENARIO_FILE=$T_TMP/f.conf "$ST" --runner slurm --scenarios broken,baseline --duration 3 --reps 2 \
	--results "$res" --id f >"$T_TMP/f.out" 2>&1 &
stpid=$!
# task 3 is baseline rep 2: kill its study process once it runs
killed=0
for _ in $(seq 1 600); do
	p=$(pgrep -f -- "--task $res/.incomplete-f:3\$" | head -n 1)
	[ -n "$p" ] && { kill -KILL "$p" && killed=1; break; }
	sleep 0.2
done
wait "$stpid"
rc=$?
f=$res/f
t_ok "failing tasks: the study completes (exit 0)" sh -c "[ $rc = 0 ] && [ $killed = 1 ] || { echo 'killed=$killed'; tail -20 '$T_TMP/f.out'; exit 1; }"
t_ok "... the panicking guest is recorded (outcome panic, both reps)" sh -c "grep -qx outcome=panic '$f/broken/rep1/rep.info' && grep -qx outcome=panic '$f/broken/rep2/rep.info'"
killed_task() {
	jq -e '.outcome == "slurm-failed" and .slurm.state == "FAILED" and
		(.slurm.reason | length) > 0 and (.slurm.exit_code | length) > 0' "$f/baseline/rep2/outcome.json" >/dev/null ||
		{ cat "$f/baseline/rep2/outcome.json" "$f/slurm/tasks.txt"; return 1; }
}
t_ok "... the killed task is recorded as failed with Slurm's state and reason" killed_task
t_ok "... in rep.info, the manifest and the finishing job's log" sh -c "grep -qx outcome=slurm-failed '$f/baseline/rep2/rep.info' &&
	jq -e '.runner.reps[3] | .scenario == \"baseline\" and .rep == 2 and .state == \"FAILED\"' '$f/manifest.json' >/dev/null &&
	grep -q 'baseline rep 2: Slurm task [0-9_]* ended FAILED (reason ' '$f/slurm/finish.log'"
t_ok "... the rest completed: baseline rep 1 ok" grep -qx outcome=ok "$f/baseline/rep1/rep.info"
t_ok "... progress counted 1 done, 3 failed" grep -q 'tasks: 0 pending, 0 running, 1 done, 3 failed' "$T_TMP/f.out"
t_ok "... the summary and report count them (baseline 1/2, broken 0/2)" sh -c "jq -e '[.scenarios[] | .reps_ok] == [0, 1]' '$f/summary.json' >/dev/null &&
	grep -q '^| baseline | 1/2 |' '$f/report.md' && grep -q 'baseline rep 2 (task [0-9_]* on $node): FAILED, reason' '$f/report.md'"

# Ctrl-C: the jobs are cancelled, nothing is kept, no guest is left.
rc=$(t_interrupt "$T_TMP/int.out" 'submitted job array' 4 "$ST" --runner slurm --scenarios baseline \
	--duration 30 --reps 2 --results "$res" --id int)
t_ok "an interrupted Slurm study exits 130 and cancels its jobs" sh -c "[ $rc = 130 ] && grep -q 'cancelling jobs' '$T_TMP/int.out' || { cat '$T_TMP/int.out'; exit 1; }"
t_ok "... no job is left in Slurm" test -z "$(squeue -h -o %i)"
t_ok "... nothing kept, no incomplete directory" sh -c "[ ! -e '$res/int' ] && ! ls -d '$res'/.incomplete-* 2>/dev/null"
no_qemu() { ! pgrep -f -- "$res/.incomplete-int" >/dev/null; }
t_ok "... and no QEMU of its own" no_qemu

# --no-wait: the command returns at once; a study started meanwhile leaves
# the run alone (its submitting process is gone, its jobs are not).
"$ST" --runner slurm --no-wait --scenarios baseline --duration 3 --reps 1 --results "$res" --id nw >"$T_TMP/nw.out" 2>&1
rc=$?
t_ok "--no-wait returns at once (exit 0), naming the jobs" sh -c "[ $rc = 0 ] && grep -q 'not waiting: the run becomes $res/nw when job [0-9]* ends' '$T_TMP/nw.out' && [ -d '$res/.incomplete-nw' ]"
(SLB_PROG=probe; . "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/scripts/lib-run.sh" && begin_run_dir "$res" probe '*' "a study" && rm -rf "$RUN_TMP") 2>"$T_TMP/probe.err"
t_ok "... a study started meanwhile does not remove the run in Slurm" sh -c "[ -d '$res/.incomplete-nw' ] || { cat '$T_TMP/probe.err'; exit 1; }"
finished() {
	for _ in $(seq 1 300); do [ -s "$res/nw/report.md" ] && [ -z "$(squeue -h -o %i)" ] && return 0; sleep 0.5; done
	echo "not finished: $(ls -a "$res")"; return 1
}
t_ok "... the run finishes in Slurm" finished
