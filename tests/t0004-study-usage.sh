#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/study.sh refuses bad input with exit 2 and one line naming the
# value and what is allowed, before starting anything.
. "$(dirname "$0")/lib.sh"
ST=$T_ROOT/bench/study.sh

refuses() { # refuses WORD ARGS...: the study exits 2 with one line naming WORD
	local word=$1
	shift
	t_refuses "$word" "$ST" --validate --results "$T_TMP/res" "$@"
}
t_ok "study --help exits 0" "$ST" --help
t_ok "valid arguments validate" "$ST" --validate --results "$T_TMP/res" --scenarios baseline,split-on --duration 5 --reps 2
t_ok "unknown scenario" refuses "unknown scenario 'nosuch' (allowed: baseline" --scenarios baseline,nosuch
t_ok "DURATION=abc" refuses "DURATION 'abc' is not a whole number" --duration abc
t_ok "DURATION=2 (too short)" refuses "DURATION=2 is out of range (allowed: 3 to 3600)" --duration 2
t_ok "REPS=0" refuses "REPS=0" --reps 0
# test(1) reads 010 as ten, the shell's arithmetic as eight, and 08 not
# at all: a leading zero is refused (scripts/lib.sh check_number).
t_ok "REPS=010 (a leading zero)" refuses "REPS '010'" --reps 010
t_ok "DURATION=08 (a leading zero)" refuses "DURATION '08'" --duration 08
t_ok "VCPUS=1: nothing to isolate" refuses "VCPUS=1 leaves nothing to isolate" --vcpus 1
t_ok "INTERVAL=50" refuses "INTERVAL=50" --interval 50
t_ok "bad run id" refuses "--id '../x'" --id ../x
mkdir -p "$T_TMP/res/taken"
t_ok "an existing run is never overwritten" refuses "run 'taken' exists" --id taken
t_ok "nothing was started (no run directory created)" test ! -e "$T_TMP/res/.incomplete-taken"
t_ok "CLOCK=foo" refuses "CLOCK 'foo' is not allowed (allowed: virtual wall)" --clock foo
t_ok "JOBS=0" refuses "JOBS=0 is out of range (allowed: 1 to 16)" --jobs 0
t_ok "BUS_LOCK_NS=-5" refuses "BUS_LOCK_NS '-5' is not a whole number" --bus-lock-ns -5
t_ok "BUS_LOCK_NS=99999999 (absurd)" refuses "BUS_LOCK_NS=99999999 is out of range (allowed: 0 to 1000000)" --bus-lock-model all --bus-lock-ns 99999999
make -s -C "$T_ROOT" bench CLOCK=foo >"$T_TMP/make.out" 2>&1
t_ok "make bench CLOCK=foo stops with exit 2 before building" sh -c "[ $? = 2 ] && grep -q \"CLOCK 'foo' is not allowed\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"
t_ok "--resume of a run that is not there names the runs there are" refuses "--resume 'nosuch': no interrupted run of that id in $T_TMP/res (allowed: none)" --resume nosuch
make -s -C "$T_ROOT" bench RESUME=nosuch >"$T_TMP/make.out" 2>&1
t_ok "make bench RESUME=nosuch stops with exit 2 before building" sh -c "[ $? = 2 ] && grep -q -e \"--resume 'nosuch': no interrupted run\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"
# A scenario's guest column (8): vcpus=N and kernel=VARIANT, checked too.
guest_conf() { sed "s/^baseline  *|\(.*\)\$/baseline |\1 | $1/" "$T_ROOT/rt-config/scenarios.conf" >"$T_TMP/g.conf"; }
grefuses() { guest_conf "$1"; SLB_SCENARIO_FILE=$T_TMP/g.conf refuses "$2" --scenarios baseline; }
t_ok "scenario guest vcpus=9" grefuses vcpus=9 "scenario baseline: vcpus=9 is out of range (allowed: 2 to 8)"
t_ok "scenario guest kernel=bogus lists the variants" grefuses kernel=bogus "scenario baseline: kernel 'bogus' is not a kernel variant (allowed: nofix defwarn hz250)"
t_ok "scenario guest option foo=1" grefuses foo=1 "scenario baseline: guest option 'foo=1' is unknown (allowed: vcpus=N, kernel=VARIANT, cpuflag=+FLAG or -FLAG, isolation=I, interval=US, isolated=N, offender=P, trace)"
t_ok "scenario guest cpuflag without a sign" grefuses cpuflag=bus-lock-detect "scenario baseline: 'cpuflag=bus-lock-detect' is not cpuflag=+FLAG or cpuflag=-FLAG (a QEMU CPU property name)"
t_ok "scenario guest cpuflag with a comma or space" grefuses 'cpuflag=+a;b' "scenario baseline: 'cpuflag=+a;b' is not cpuflag=+FLAG or cpuflag=-FLAG (a QEMU CPU property name)"
gvalid() { guest_conf vcpus=3,kernel=nofix,cpuflag=+bus-lock-detect; SLB_SCENARIO_FILE=$T_TMP/g.conf "$ST" --validate --results "$T_TMP/res" --scenarios baseline; }
t_ok "scenario guest vcpus=3,kernel=nofix,cpuflag=+bus-lock-detect validates" gvalid
SW=$T_ROOT/bench/experiment/sweep.sh
t_ok "sweep --help exits 0" "$SW" --help
t_ok "sweep: one cost is no sweep" t_refuses "a sweep needs at least two costs" "$SW" --validate --costs 1000
t_ok "sweep: cost 0" t_refuses "bus-lock cost=0 is out of range" "$SW" --validate --costs "0 100"
t_ok "sweep: cost abc" t_refuses "bus-lock cost 'abc'" "$SW" --validate --costs "100,abc"
t_ok "sweep: bad reps reach the study's check" t_refuses "REPS=0" "$SW" --validate --reps 0
t_ok "sweep: --load-rate abc" t_refuses "--load-rate 'abc' is not a whole number (allowed: 0 to 100000000)" "$SW" --validate --load-rate abc
t_ok "sweep: the calibrated model on its default costs validates" "$SW" --validate
t_ok "sweep: the all-stall model on its default costs validates" "$SW" --validate --bus-lock-model all
t_ok "sweep: BUS_LOCK_MODEL=foo" t_refuses "BUS_LOCK_MODEL 'foo' is not allowed (allowed: calibrated all)" "$SW" --validate --bus-lock-model foo
t_ok "sweep: cost 'cal' is the calibrated model's" \
	t_refuses "bus-lock cost 'cal' (the calibration's own) is for BUS_LOCK_MODEL=calibrated (allowed: 1 to 1000000)" "$SW" --validate --bus-lock-model all --costs "cal 100"
t_ok "sweep: 'cal' and its cost are one cost (the default calibration's 1008 ns)" t_refuses "a sweep needs at least two costs" "$SW" --validate --costs "1008 cal"
t_ok "sweep: a calibration that is not there" t_refuses "CALIBRATION '$T_TMP/none.json' is not a readable file" "$SW" --validate --calibration "$T_TMP/none.json" --costs 1000,2000
# A rep cannot start without the emulator: refused before any rep (the
# matrix used to run with every rep failing at once, its outcome empty).
: >"$T_TMP/initrd"
SLB_QEMU=$T_TMP/no-qemu SLB_INITRD=$T_TMP/initrd "$ST" --results "$T_TMP/res" --id noqemu --scenarios baseline \
	--reps 1 >"$T_TMP/noqemu.out" 2>&1
t_ok "an emulator that is not there: exit 2 naming it, no run directory" \
	sh -c "[ $? = 2 ] && grep -q \"SLB_QEMU '$T_TMP/no-qemu' is not an executable\" '$T_TMP/noqemu.out' &&
		[ ! -e '$T_TMP/res/noqemu' ] && [ ! -e '$T_TMP/res/.incomplete-noqemu' ]"
# The bus-lock model and its calibration (issue 21): a file that cannot
# give the calibrated model is refused naming it, before anything starts.
# The trapping VM's calibration (xeon-trap), whose figures are checked below.
CAL=$T_ROOT/results/example-calibrate-20261204-192922/calibration.json
t_ok "BUS_LOCK_MODEL=foo" refuses "BUS_LOCK_MODEL 'foo' is not allowed (allowed: calibrated all)" --bus-lock-model foo
# BUS_LOCK_NS with the calibrated model scales its calibration to that
# cost (the sweep's use): a whole number of 1 to 1000000 ns.
t_ok "BUS_LOCK_NS with the calibrated model validates (a scaled calibration)" "$ST" --validate --results "$T_TMP/res" --bus-lock-ns 500
t_ok "BUS_LOCK_NS=0 with the calibrated model" \
	refuses "BUS_LOCK_NS=0 is out of range for BUS_LOCK_MODEL=calibrated, which scales its calibration to that cost (allowed: 1 to 1000000)" --bus-lock-ns 0
t_ok "BUS_LOCK_NS=2000000 with the calibrated model" refuses "BUS_LOCK_NS=2000000 is out of range (allowed: 1 to 1000000)" --bus-lock-ns 2000000
t_ok "BUS_LOCK_NS=1e3 with the calibrated model" refuses "BUS_LOCK_NS '1e3' is not a whole number (allowed: 1 to 1000000)" --bus-lock-ns 1e3
t_ok "BUS_LOCK_NS with BUS_LOCK_MODEL=all validates" "$ST" --validate --results "$T_TMP/res" --bus-lock-model all --bus-lock-ns 500
t_ok "the committed calibration gives the calibrated model" "$ST" --validate --results "$T_TMP/res" --calibration "$CAL"
t_ok "CALIBRATION missing" refuses "CALIBRATION '$T_TMP/none.json' is not a readable file" --calibration "$T_TMP/none.json"
t_ok "CALIBRATION a directory" refuses "CALIBRATION '$T_TMP' is not a readable file" --calibration "$T_TMP"
printf 'not json' >"$T_TMP/nj.json"
t_ok "CALIBRATION not JSON" refuses "CALIBRATION '$T_TMP/nj.json' gives no bus-lock model: not JSON" --calibration "$T_TMP/nj.json"
jq 'del(.issuer)' "$CAL" >"$T_TMP/noissuer.json"
t_ok "CALIBRATION without the issuer" refuses "CALIBRATION '$T_TMP/noissuer.json' gives no bus-lock model: no issuer forms" --calibration "$T_TMP/noissuer.json"
jq '(.issuer[] | select(.form == "add32") | .split.ns_per_op) = 5e6' "$CAL" >"$T_TMP/big.json"
t_ok "CALIBRATION with a split lock of 5 ms (out of range)" \
	refuses "CALIBRATION '$T_TMP/big.json' gives no bus-lock model: the issuer's split-lock cost, 5000000 ns, is out of range (1 to 1000000 ns)" \
	--calibration "$T_TMP/big.json"
jq '.machine.caches |= map(select(.level != 1))' "$CAL" >"$T_TMP/nol1.json"
t_ok "CALIBRATION without the size of the shielding cache" \
	refuses "CALIBRATION '$T_TMP/nol1.json' gives no bus-lock model: no size for cache level L1" --calibration "$T_TMP/nol1.json"
t_ok "a wall-clock study takes no calibration" "$ST" --validate --results "$T_TMP/res" --clock wall --calibration "$T_TMP/none.json"
# cal_model's figures for the xeon-trap calibration (57 us split locks, L2
# slowed x1.14, L1 not): docs/model.md's.
calmodel() {
	local got
	got=$(jq -L "$T_ROOT/bench/lib" -c 'include "calibration"; cal_model | [.cost_ns, .hold_ns, .cache_kb, .cache_ways, .shield]' "$CAL")
	[ "$got" = '[57283,7034,48,12,"L1"]' ] || { echo "cal_model gives $got"; return 1; }
}
t_ok "cal_model: cost 57283 ns, hold 7034 ns, a 48 KiB 12-way shield (L1)" calmodel
# Scaled to another cost (cal_model($cost), through bus_model_load): the
# hold in the calibration's proportion, the shield unchanged, the
# calibration's own figures kept; its own cost is no scaling.
scaled() {
	local got
	got=$(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && bus_model_load calibrated "$CAL" "$1" &&
		echo "$bus_lock_ns $bus_hold_ns $bus_cache_kb $bus_cache_ways $bus_cal_cost_ns $bus_cal_hold_ns $bus_scaled")
	[ "$got" = "$2" ] || { echo "bus_model_load calibrated CAL $1 gives '$got', not '$2'"; return 1; }
}
t_ok "the calibration scaled to 1000 ns: hold 123 ns, the same shield" scaled 1000 "1000 123 48 12 57283 7034 1"
t_ok "... to 300 ns: hold 37 ns" scaled 300 "300 37 48 12 57283 7034 1"
t_ok "... to its own 57283 ns: the calibrated model, not scaled" scaled 57283 "57283 7034 48 12 57283 7034 0"
t_ok "... no cost: the calibrated model" scaled "" "57283 7034 48 12 57283 7034 0"
cal_bad() { jq -L "$T_ROOT/bench/lib" -n --slurpfile c "$CAL" 'include "calibration"; $c[0] | cal_model(0)' 2>&1 | grep -q "the cost to scale to, 0, is not a whole number of ns from 1 to 1000000"; }
t_ok "cal_model(0): an error naming the cost" cal_bad
# The study job's prelude has one writer, write_study_job (bench/lib/job.sh),
# for the study, the benchmarks and the tests; what it writes sets the
# job's variables in sh, a load or sysctls with spaces included.
one_writer() {
	local w
	w=$(cd "$T_ROOT" && grep -rl --include='*.sh' 'SLB_SYSCTLS=' bench scripts tests | grep -vx -e bench/lib/job.sh -e tests/t0004-study-usage.sh)
	[ -z "$w" ] || { echo "the prelude is also written in: $w"; return 1; }
}
t_ok "the study job's prelude is written in one place (write_study_job)" one_writer
mkdir -p "$T_TMP/jobs"
echo 'echo "$SLB_DURATION|$SLB_WARMUP|$SLB_INTERVAL|$SLB_LOAD_RATE|$SLB_LOAD|$SLB_SYSCTLS|$SLB_SEED"' >"$T_TMP/jobs/study.sh"
(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && write_study_job 5 1 500 7 "stress-ng:lockbus 1" "a.b=1 c.d=2" "SLB_SEED=3") >"$T_TMP/w.job"
t_ok "... and sh reads back every variable from it" test "$(SLB_JOBS=$T_TMP/jobs sh "$T_TMP/w.job")" = "5|1|500|7|stress-ng:lockbus 1|a.b=1 c.d=2|3"
# Who dispatches the reps (--runner, bench/runner/): checked before anything.
t_ok "RUNNER=foo" refuses "RUNNER 'foo' is not allowed (allowed: local slurm)" --runner foo
t_ok "--no-wait without RUNNER=slurm" refuses "--no-wait is for RUNNER=slurm" --no-wait
t_ok "JOBS=17 on the local runner" refuses "JOBS=17 is out of range (allowed: 1 to 16)" --jobs 17
# A PATH without Slurm's commands (links to everything else).
mkdir -p "$T_TMP/bin"
for f in /usr/bin/* /bin/*; do
	case ${f##*/} in sbatch | squeue | scancel | scontrol | sacct) ;; *) ln -sf "$f" "$T_TMP/bin/" 2>/dev/null ;; esac
done
no_slurm() { PATH=$T_TMP/bin refuses "RUNNER=slurm needs Slurm's sbatch, which is not on PATH" --runner slurm; }
t_ok "RUNNER=slurm without sbatch" no_slurm
cancel_s() { SLB_SLURM_CANCEL_S=1.5 refuses "SLB_SLURM_CANCEL_S '1.5'" --runner slurm; }
t_ok "RUNNER=slurm with SLB_SLURM_CANCEL_S=1.5" cancel_s
t_ok "RUNNER=slurm with TARGET=native" refuses "RUNNER=slurm runs TARGET=guest only, not 'native'" --runner slurm --target native
t_ok "sweep: RUNNER=foo" t_refuses "RUNNER 'foo' is not allowed" "$SW" --validate --runner foo
make -s -C "$T_ROOT" bench RUNNER=foo >"$T_TMP/make.out" 2>&1
t_ok "make bench RUNNER=foo stops with exit 2 before building" sh -c "[ $? = 2 ] && grep -q \"RUNNER 'foo' is not allowed\" '$T_TMP/make.out' && ! grep -q CC '$T_TMP/make.out'"

# Which guests run without the bus-lock model's cache (bench/target/guest.sh
# guest_bus_args): those in which no split lock completes. The kernel's
# reading of split_lock_detect (patch/linux 0002: the last =VALUE decides,
# a bare word only without one), the load's mode with or without its op,
# the CPU model and kernel variant. Each line: scenario, CPU, variant (-
# for the series'), then whether its guest gets the cache (1) or not (0).
cat >"$T_TMP/rule.conf" <<'EOF2'
bare     | split_lock_detect                         | slb-load:split        | | - | none | x
fatal    | split_lock_detect=fatal                   | slb-load:split        | | - | none | x
warnlast | split_lock_detect=fatal split_lock_detect=warn | slb-load:split   | | - | none | x
warnbare | split_lock_detect=warn split_lock_detect  | slb-load:split        | | - | none | x
barefat  | split_lock_detect split_lock_detect=fatal | slb-load:split        | | - | none | x
ratelim  | split_lock_detect=ratelimit:10            | slb-load:split        | | - | none | x
off      | split_lock_detect=off                     | slb-load:split        | | - | none | x
alop     | split_lock_detect=off                     | slb-load:aligned:add:4 | | - | none | x
rtin     | split_lock_detect=off                     | rt-slb-load:inline    | | - | none | x
stress   | split_lock_detect=off                     | stress-ng:lockbus     | | - | none | x
stressf  | split_lock_detect                         | stress-ng:lockbus     | | - | none | x
none     | split_lock_detect=off                     | none                  | | - | none | x
EOF2
cat >"$T_TMP/rule.want" <<'EOF2'
bare Snowridge,-hypervisor - 0
fatal Snowridge,-hypervisor - 0
warnlast Snowridge,-hypervisor - 1
warnbare Snowridge,-hypervisor - 1
barefat Snowridge,-hypervisor - 0
ratelim Snowridge,-hypervisor - 1
off Snowridge,-hypervisor - 1
alop Snowridge,-hypervisor - 0
rtin Snowridge,-hypervisor - 0
stress Snowridge,-hypervisor - 1
stressf Snowridge,-hypervisor - 0
none Snowridge,-hypervisor - 0
bare Icelake-Server - 1
bare Snowridge,-hypervisor,-split-lock-detect - 1
fatal Snowridge,-hypervisor nofix 1
EOF2
rule() {
	(
		SLB_ROOT=$T_ROOT SCENARIO_FILE=$T_TMP/rule.conf
		. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/scenarios.sh" && . "$T_ROOT/bench/lib/job.sh" &&
			. "$T_ROOT/rt-config/defaults.conf" && . "$T_ROOT/bench/target/guest.sh" || exit 1
		field() { scenario_field "$SCENARIO_FILE" "$@"; }
		bus_lock_ns=1000 bus_hold_ns=900 bus_cache_kb=32 bus_cache_ways=8
		declare -A s_cpu=() s_variant=()
		while read -r s cpu v _; do
			s_cpu[$s]=$cpu s_variant[$s]=${v#-}
			echo "$s $cpu $v $(guest_bus_args "$s" | grep -c bus-cache-kb)"
		done <"$T_TMP/rule.want"
	) >"$T_TMP/rule.got" 2>&1
	diff "$T_TMP/rule.want" "$T_TMP/rule.got"
}
t_ok "the guests without the model's cache: no split load, or detection fatal as the kernel reads it" rule
