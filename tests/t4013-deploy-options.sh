#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The settings RT deployments use, as a scenario's guest options (column 8
# of a scenario file; bench/study.sh): interval=US, isolated=N,
# kernel=hz250, offender=housekeeping|timekeeper|other and the isolation
# words (isolcpus_nohz, nohz_full without isolcpus). Their checks (exit 2
# naming the value and what is allowed), the guest command line and the
# job each one gives, the committed study's scenario file, and one short
# guest study whose rep measures 2 isolated vCPUs: per-CPU figures and the
# worst CPU.
. "$(dirname "$0")/lib.sh"
# Its guests run the all-stall model (no modelled cache to look up): what
# is checked is the options' command lines, jobs and per-CPU figures, which no figure of the
# calibrated model changes, and a calibrated guest costs x1.7 the host time.
export SLB_BUS_LOCK_MODEL=all
ST=$T_ROOT/bench/study.sh
GC=$T_ROOT/rt-config/guest-cmdline.sh

# A scenario file with baseline's guest column set to $1 (and its load to $2).
guest_conf() {
	sed "s/^baseline  *| *\([^|]*\)| *[^|]*|\(.*\)\$/baseline | \1| ${2:-slb-load:aligned} |\2 | $1/" \
		"$T_ROOT/rt-config/scenarios.conf" >"$T_TMP/g.conf"
}
grefuses() { guest_conf "$1" "${3:-}"; SLB_SCENARIO_FILE=$T_TMP/g.conf t_refuses "$2" "$ST" --validate --results "$T_TMP/res" --scenarios baseline; }
gvalid() { guest_conf "$1"; SLB_SCENARIO_FILE=$T_TMP/g.conf "$ST" --validate --results "$T_TMP/res" --scenarios baseline; }

# --- the checks
t_ok "interval=50" grefuses interval=50 "scenario baseline: interval=50 is out of range (allowed: 100 to 100000)"
t_ok "interval=abc" grefuses interval=abc "scenario baseline: interval 'abc' is not a whole number"
t_ok "isolated=0" grefuses isolated=0 "scenario baseline: isolated=0 is out of range (allowed: 1 to 7)"
t_ok "isolated=2 of 2 vCPUs leaves no housekeeping vCPU" grefuses isolated=2 \
	"scenario baseline: isolated=2 leaves no housekeeping vCPU of 2 (allowed: 1 to 1)"
t_ok "offender=foo" grefuses offender=foo \
	"scenario baseline: offender 'foo' is not allowed (allowed: housekeeping timekeeper other)"
t_ok "offender=other on 2 vCPUs: no housekeeping vCPU besides CPU 0" grefuses offender=other \
	"scenario baseline: offender=other needs a housekeeping vCPU besides CPU 0, the timekeeper: vcpus=2 with isolated=1 has none (allowed: vcpus >= 3)"
t_ok "offender=other, vcpus=4 with isolated=3" grefuses vcpus=4,isolated=3,offender=other \
	"allowed: vcpus >= 5"
t_ok "offender=timekeeper with no housekeeping load" grefuses offender=timekeeper \
	"scenario baseline: offender=timekeeper places the housekeeping load, and its load is 'none' (allowed with slb-load:... or stress-ng:...)" none
t_ok "isolation=isolcpus_nohz+bogus" grefuses isolation=isolcpus_nohz+bogus \
	"scenario baseline: 'isolation=isolcpus_nohz+bogus' is not isolation=all, none, or isolcpus, isolcpus_nohz, nohz_full, rcu_nocbs, irqaffinity joined by +"
t_ok "kernel=hz100 lists the variants, hz250 among them" grefuses kernel=hz100 \
	"scenario baseline: kernel 'hz100' is not a kernel variant (allowed: nofix defwarn hz250)"
t_ok "an unknown option lists the options" grefuses foo=1 \
	"scenario baseline: guest option 'foo=1' is unknown (allowed: vcpus=N, kernel=VARIANT, cpuflag=+FLAG or -FLAG, isolation=I, interval=US, isolated=N, offender=P, trace)"
t_ok "interval=100,vcpus=4,isolated=2,offender=other,kernel=hz250 validates" \
	gvalid interval=100,vcpus=4,isolated=2,offender=other,kernel=hz250
t_ok "isolation=nohz_full+rcu_nocbs (no isolcpus) validates" gvalid isolation=nohz_full+rcu_nocbs
t_ok "isolation=isolcpus_nohz+rcu_nocbs+irqaffinity validates" gvalid isolation=isolcpus_nohz+rcu_nocbs+irqaffinity
t_ok "run-guest refuses an isolation word it does not know" t_refuses "--isolation 'isolcpus_foo' is not allowed" \
	"$T_ROOT/bench/target/run-guest.sh" --preflight --isolation isolcpus_foo -n study
dep() { SLB_SCENARIO_FILE=$T_ROOT/rt-config/scenarios-deploy.conf "$ST" --validate --results "$T_TMP/res"; }
t_ok "rt-config/scenarios-deploy.conf validates" dep
mk() { make -s -C "$T_ROOT" -n bench SCENARIO_FILE=rt-config/scenarios-deploy.conf 2>&1; }
t_ok "make bench SCENARIO_FILE=...: builds the kernel variants the file names" \
	sh -c "$(declare -f mk); T_ROOT='$T_ROOT'; mk | grep -q 'all kernel kernel-nofix kernel-hz250 qemu initramfs'"
make -s -C "$T_ROOT" bench SCENARIO_FILE="$T_TMP/none.conf" >"$T_TMP/make.out" 2>&1
t_ok "make bench SCENARIO_FILE=: the study reads that file (none there: exit 2 before building)" \
	sh -c "[ $? = 2 ] && grep -q \"scenario file '$T_TMP/none.conf' does not exist\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"

# --- the command line each isolation gives (4 vCPUs, the last 2 isolated)
cl() { "$GC" 4 2 "$1" | sed 's/^.*retain_initrd//'; }
t_ok "all: isolcpus with its nohz flag, nohz_full, rcu_nocbs, irqaffinity" \
	test "$(cl all)" = " isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1"
t_ok "nohz_full+rcu_nocbs: nohz_full without domain isolation" \
	test "$(cl nohz_full+rcu_nocbs)" = " nohz_full=2-3 rcu_nocbs=2-3"
t_ok "isolcpus_nohz: isolcpus=nohz,domain without nohz_full" \
	test "$(cl isolcpus_nohz+rcu_nocbs+irqaffinity)" = " isolcpus=nohz,domain,managed_irq,2-3 rcu_nocbs=2-3 irqaffinity=0-1"
t_ok "isolcpus alone: no nohz flag" test "$(cl isolcpus)" = " isolcpus=domain,managed_irq,2-3"

# --- the job's CPUs each option gives (bench/target/guest.sh target_job_env)
env_of() { # env_of VCPUS ISOLATED ISOLATION OFFENDER: the job's CPU line
	(
		declare -A s_vcpus=([x]=$1) s_isolated=([x]=$2) s_iso=([x]=$3) s_offender=([x]=$4)
		. "$T_ROOT/bench/target/guest.sh"
		target_job_env x
	)
}
t_ok "defaults: nothing (the kernel's isolated vCPUs, the load on the others)" test -z "$(env_of 2 1 all housekeeping)"
t_ok "2 isolated under isolcpus: nothing (the kernel's isolated list is both)" test -z "$(env_of 4 2 all housekeeping)"
t_ok "offender=timekeeper: the load on CPU 0 alone" test "$(env_of 4 1 all timekeeper)" = "SLB_LOAD_CPUS=0"
t_ok "offender=other, 4 vCPUs: the load on CPUs 1-2" test "$(env_of 4 1 all other)" = "SLB_LOAD_CPUS=1-2"
t_ok "offender=other, 3 vCPUs: the load on CPU 1" test "$(env_of 3 1 all other)" = "SLB_LOAD_CPUS=1"
t_ok "nohz_full without isolcpus, 2 isolated: measured and load CPUs named" \
	test "$(env_of 4 2 nohz_full+rcu_nocbs housekeeping)" = "SLB_MEASURE_CPUS=2-3 SLB_LOAD_CPUS=0-1"
t_ok "isolcpus_nohz isolates: nothing" test -z "$(env_of 4 2 isolcpus_nohz+rcu_nocbs housekeeping)"
# The job's load threads: one per housekeeping CPU, ranges counted.
threads() { grep -o 'slb_cpulist_expand "$hk" | wc -w' "$T_ROOT/bench/guest/jobs/study.sh"; }
t_ok "the job starts a load thread per CPU of a range (1-2: two)" threads

# --- per-CPU figures from a two-column histogram (no guest)
r=$T_TMP/fake
mkdir -p "$r/s/rep1/files"
printf '%s\n' '000002 5 1' '000003 3 2' '000010 0 4' '# Total: 000000008 000000007' '# Min Latencies: 00002 00002' \
	'# Avg Latencies: 00002 00005' '# Max Latencies: 00003 00010' '# Histogram Overflows: 00000 00000' >"$r/s/rep1/files/hist.txt"
printf 'outcome=ok\nseed=1\nct_cycles=15\nct_interval_us=200\nct_cpus=2,3\n' >"$r/s/rep1/rep.info"
echo s >"$r/scenarios.list"
"$HOSTBIN/slb-summary" --json "$r" >"$T_TMP/fake.json"
t_ok "summary.json: one entry per measured CPU, the worst named" jq -e '.scenarios[0] |
	[.cpus[] | [.cpu, .samples, .p999_us, .max_us]] == [[2, 8, 3, 3], [3, 7, 10, 10]] and .worst_cpu == 3 and .pooled.samples == 15' "$T_TMP/fake.json"
"$HOSTBIN/slb-summary" "$r" >"$T_TMP/fake.txt"
t_ok "summary.txt: a row per CPU under the scenario, the worst marked" \
	sh -c "grep -q '^  cpu2 .* 3 *0\$' '$T_TMP/fake.txt' && grep -q '^  cpu3 .* 10 *0  worst CPU\$' '$T_TMP/fake.txt'"

# --- one short guest study: 3 vCPUs, 2 isolated and measured at -i200
# (isolcpus=nohz, no nohz_full); 3 vCPUs with the load on CPU 1 alone and
# nohz_full without isolcpus. The aligned load at 1000 ops/s.
t_require_guest "guest study with the deployment options"
grep '^#' "$T_ROOT/rt-config/scenarios.conf" >"$T_TMP/d.conf"
echo 'two | split_lock_detect=off | slb-load:aligned | | - | none | two isolated | vcpus=3,isolated=2,interval=200,isolation=isolcpus_nohz+rcu_nocbs+irqaffinity' >>"$T_TMP/d.conf"
echo 'oth | split_lock_detect=off | slb-load:aligned | | - | none | offender other | vcpus=3,offender=other,isolation=nohz_full+rcu_nocbs+irqaffinity' >>"$T_TMP/d.conf"
SLB_SCENARIO_FILE=$T_TMP/d.conf "$ST" --scenarios two,oth --duration 3 --reps 1 --load-rate 1000 --jobs 2 \
	--results "$T_TMP/res" --id d >"$T_TMP/d.out" 2>&1
run=$T_TMP/res/d
t_ok "the study completes" sh -c "grep -q 'two rep 1: ok' '$T_TMP/d.out' && grep -q 'oth rep 1: ok' '$T_TMP/d.out' || { tail '$T_TMP/d.out'; exit 1; }"
t_ok "isolated=2: run-guest isolates 2 vCPUs" jq -e '.smp == 3 and .isolate == 2' "$run/two/rep1/outcome.json"
t_ok "... isolcpus=nohz,domain without nohz_full on the command line" \
	sh -c "grep -q 'isolcpus=nohz,domain,managed_irq,1-2 rcu_nocbs=1-2 irqaffinity=0' '$run/two/rep1/cmdline' && ! grep -q nohz_full= '$run/two/rep1/cmdline'"
t_ok "... the kernel isolates 1-2, cyclictest measures both, the load on CPU 0" \
	sh -c "grep -qx cpus_isolated=1-2 '$run/two/rep1/files/facts.txt' && grep -qx measured=1-2 '$run/two/rep1/files/facts.txt' && grep -qx housekeeping=0 '$run/two/rep1/files/facts.txt'"
t_ok "interval=200: the job's SLB_INTERVAL and cyclictest's" \
	sh -c "grep -q 'SLB_INTERVAL=200 ' '$run/two/rep1.job' && grep -qx ct_interval_us=200 '$run/two/rep1/rep.info'"
t_ok "... one cyclictest thread per isolated vCPU, on CPUs 1 and 2" \
	jq -e '[.thread | to_entries[] | .value.cpu] == [1, 2]' "$run/two/rep1/files/cyclictest.json"
t_ok "rep.info: both threads' periods and CPUs" sh -c "grep -qx ct_expected=30000 '$run/two/rep1/rep.info' && grep -qx ct_cpus=1,2 '$run/two/rep1/rep.info'"
t_ok "summary.json: the rep pooled, per-CPU figures and the worst CPU" jq -e '.scenarios[] | select(.name == "two") |
	.reps_ok == 1 and ([.cpus[].cpu] == [1, 2]) and (.worst_cpu == 1 or .worst_cpu == 2) and
	([.cpus[].samples] | add) == .pooled.samples and .pooled.samples > 20000' "$run/summary.json"
t_ok "summary.txt: a row per measured CPU" sh -c "grep -q '^  cpu1 ' '$run/summary.txt' && grep -q '^  cpu2 ' '$run/summary.txt'"
t_ok "report.md: the per-CPU table" grep -q '^| two | 2 | ' "$run/report.md"
t_ok "report.md: each scenario's own command line (isolcpus=nohz for two, nohz_full alone for oth), no seed" \
	sh -c "grep -q '^- two: \`.*isolcpus=nohz,domain,managed_irq,1-2 ' '$run/report.md' && grep -q '^- oth: \`.*nohz_full=2 ' '$run/report.md' && ! grep -q '^- two: .*slb.seed' '$run/report.md'"
t_ok "offender=other: the load on CPU 1 alone, CPU 2 measured" \
	sh -c "grep -qx housekeeping=1 '$run/oth/rep1/files/facts.txt' && grep -qx measured=2 '$run/oth/rep1/files/facts.txt' && [ -s '$run/oth/rep1/files/load.json' ] && jq -e '.threads == 1' '$run/oth/rep1/files/load.json'"
t_ok "nohz_full without isolcpus: no isolcpus, nohz_full=2" \
	sh -c "grep -q 'nohz_full=2 rcu_nocbs=2 irqaffinity=0-1' '$run/oth/rep1/cmdline' && ! grep -q isolcpus '$run/oth/rep1/cmdline' && grep -qx nohz_full=2 '$run/oth/rep1/files/facts.txt'"
t_ok "a single measured CPU has no per-CPU rows" jq -e '.scenarios[] | select(.name == "oth") | .cpus == null' "$run/summary.json"
