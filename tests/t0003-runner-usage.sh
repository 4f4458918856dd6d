#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/target/run-guest.sh refuses bad input with exit 2 and a message naming the
# bad value, before starting anything; it never reuses an existing outdir.
. "$(dirname "$0")/lib.sh"
RG=$T_ROOT/bench/target/run-guest.sh

refuses() { # refuses WORD ARGS...: the runner exits 2 naming WORD
	local word=$1
	shift
	SLB_INITRD=/dev/null t_refuses "$word" "$RG" "$@"
}

t_ok "--help exits 0" "$RG" --help
t_ok "missing --outdir" refuses outdir -n smoke
t_ok "--smp 1 (nothing to isolate)" refuses "--smp=1 is out of range" -o "$T_TMP/a" -n smoke --smp 1
t_ok "--memory 128 (the initramfs would not unpack)" refuses "--memory=128 is out of range" -o "$T_TMP/a" -n smoke --memory 128
t_ok "--smp abc" refuses abc -o "$T_TMP/a" -n smoke --smp abc
t_ok "--isolate 2 with --smp 2" refuses "--isolate=2 is out of range" -o "$T_TMP/a" -n smoke --smp 2 --isolate 2
t_ok "--timeout -5" refuses -- -5 -o "$T_TMP/a" -n smoke -t -5
t_ok "unknown built-in job" refuses nosuchjob -o "$T_TMP/a" -n nosuchjob
t_ok "job file that does not exist" refuses "$T_TMP/nojob" -o "$T_TMP/a" -j "$T_TMP/nojob"
mkdir "$T_TMP/exists"
t_ok "existing outdir is not overwritten" refuses exists -o "$T_TMP/exists" -n smoke
t_ok "refused runs created no outdir" test ! -e "$T_TMP/a"
t_ok "--clock foo" refuses "--clock 'foo' is not allowed (allowed: wall virtual)" -o "$T_TMP/a" -n smoke --clock foo
t_ok "--bus-lock-ns -1" refuses "--bus-lock-ns '-1'" -o "$T_TMP/a" -n smoke --bus-lock-ns -1
t_ok "--bus-lock-ns 5000000 (absurd)" refuses "--bus-lock-ns=5000000 is out of range (allowed: 0 to 1000000)" -o "$T_TMP/a" -n smoke --bus-lock-ns 5000000
t_ok "--quantum-ns 10" refuses "--quantum-ns=10 is out of range" -o "$T_TMP/a" -n smoke --quantum-ns 10
t_ok "--seed x" refuses "--seed 'x'" -o "$T_TMP/a" -n smoke --seed x
t_ok "--ram hugetlb" refuses "--ram 'hugetlb' is not allowed (allowed: memfd anon)" -o "$T_TMP/a" -n smoke --ram hugetlb
# The emulator benchmarks refuse bad input before booting anything.
MC=$T_ROOT/bench/cost/model-cost.sh
t_ok "model-cost: REPS=2 (an interval needs 4)" t_refuses "REPS 2 is out of range (allowed: 4 to 100" env SLB_QEMU=/bin/true "$MC" 2
t_ok "model-cost: REPS=abc" t_refuses "REPS 'abc' is not a whole number" env SLB_QEMU=/bin/true "$MC" abc
t_ok "model-cost: an emulator that is not there" t_refuses "SLB_QEMU '$T_TMP/none' is not an executable" \
	env SLB_QEMU="$T_TMP/none" "$MC" 4
t_ok "model-cost: a base emulator that is not there" t_refuses "SLB_QEMU_BASE '$T_TMP/none' is not an executable" \
	env SLB_QEMU=/bin/true SLB_QEMU_BASE="$T_TMP/none" "$MC" 4
BC=$T_ROOT/bench/cost/boot-cost.sh
t_ok "boot-cost: REPS=101" t_refuses "REPS 101 is out of range (allowed: 4 to 100" env SLB_QEMU=/bin/true "$BC" 101
t_ok "boot-cost: no emulator given" t_refuses "set SLB_QEMU (make bench-boot)" env -u SLB_QEMU "$BC" 4
t_ok "boot-cost: a base emulator that is not there" t_refuses "SLB_QEMU_BASE '$T_TMP/none' is not an executable" \
	env SLB_QEMU=/bin/true SLB_QEMU_BASE="$T_TMP/none" "$BC" 4

# Every short option a tool's --help lists is one its getopt takes (a second
# "-o" given to util-linux getopt replaces the first, which once left the
# study refusing -s, -j and -o).
short_opts_taken() { # short_opts_taken TOOL: none of --help's -X is refused
	local o bad=
	for o in $("$1" --help 2>&1 | sed -n 's/^ *-\([A-Za-z]\), --.*/\1/p'); do
		# alone, each option either needs an argument, prints help or
		# stops at a missing required one; the timeout guards the rest
		timeout 20 "$1" "-$o" 2>&1 </dev/null | grep -q "invalid option -- '$o'" && bad="$bad -$o"
	done
	[ -z "$bad" ] || { echo "$(basename "$1") --help lists$bad, its getopt refuses them"; return 1; }
}
for tool in study experiment/sweep experiment/calibrate experiment/validate-model experiment/image-change target/run-guest target/run-native; do
	t_ok "$tool: the short options of --help are taken" short_opts_taken "$T_ROOT/bench/$tool.sh"
done
