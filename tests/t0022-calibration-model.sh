#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every calibration gives a running model (issue 33, item 1): cal_model
# (bench/lib/calibration.jq) decides the shield by the jump, so that a real
# bus lock's calibration (../shared/calibrations/amd-epyc-kvm-20261206, as
# make calibrate wrote it: L1 x1.09 [1.02-1.51], L2 x11, L3 x12.6, DRAM
# x7.6) gives shield L1 and a hold of about 928 of its 1008 ns, and
# bus_model_load and bench/target/run-guest.sh take it; a calibration where even
# L1 misses are slowed gives a model without a shield (cache_kb 0,
# cache_ways 0) that run-guest takes too (it refused ways 0); caches the
# emulator cannot model as they are (past 64 MiB, odd sizes) give the
# nearest it can. The committed calibrations by their short names
# (bench/lib/job.sh cal_resolve) in every tool that takes one; the default
# is a real bus lock. The sweep's calibrations, each at its own cost: its
# command line. No guest: run-guest's arguments are checked with a
# stand-in emulator (/bin/true) and read back from its qemu-cmd.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/rt-config/defaults.conf"
AMD=$T_ROOT/../shared/calibrations/amd-epyc-kvm-20261206/calibration.json
AMD_EX=$T_ROOT/results/example-calibrate-amd-epyc-kvm-20261206/calibration.json
XEON=$T_ROOT/results/example-calibrate-20261204-192922/calibration.json

# model FILE: cal_model's figures for FILE, one line.
model() {
	jq -L "$T_ROOT/bench/lib" -r 'include "calibration"; cal_model |
		"\(.shield) \(.cache_kb) \(.cache_ways) \(.cost_ns) \(.hold_ns) \(.slowed | join(","))"' "$1" 2>&1
}
# model_is FILE WANT: cal_model gives WANT (model's line) for FILE
model_is() {
	local got
	got=$(model "$1")
	[ "$got" = "$2" ] || { echo "cal_model gives '$got', not '$2'"; return 1; }
}
# runs FILE PATTERN...: bus_model_load takes FILE and bench/target/run-guest.sh
# takes the arguments it gives (a stand-in emulator runs: exit 1, not 2),
# and the emulator's -cpu has each PATTERN (grep -E; !PATTERN: has not).
runs() {
	local f=$1 d args rc p cpu
	shift
	d=$(mktemp -d "$T_TMP/rg.XXXXXX")
	args=$(. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && bus_model_load calibrated "$f" && bus_model_args) || { echo "bus_model_load refuses $f"; return 1; }
	: >"$d/kernel"; : >"$d/initrd"
	# shellcheck disable=SC2086 # the model's arguments, one word each
	SLB_UNFRAME=/bin/true "$T_ROOT/bench/target/run-guest.sh" -o "$d/run" -n smoke --clock virtual $args -t 20 \
		--kernel "$d/kernel" --initrd "$d/initrd" --qemu /bin/true >"$d/out" 2>&1
	rc=$?
	[ "$rc" != 2 ] || { echo "run-guest refuses the model ($args):"; cat "$d/out"; return 1; }
	# (qemu-cmd is printf %q: a comma comes as \,)
	cpu=$(grep -o -- '-cpu [^ ]*' "$d/run/qemu-cmd" | tr -d '\\') || { echo "no qemu-cmd"; cat "$d/out"; return 1; }
	for p; do
		if [ "${p#!}" != "$p" ]; then
			! echo "$cpu" | grep -Eq -- "${p#!}" || { echo "$cpu has ${p#!}"; return 1; }
		else
			echo "$cpu" | grep -Eq -- "$p" || { echo "$cpu lacks $p"; return 1; }
		fi
	done
}

# The real bus lock's calibration, as it is.
if [ -f "$AMD" ]; then
	t_ok "shared AMD calibration: shield L1 (32 KiB, 8 ways), cost 1008 ns, L2 L3 DRAM slowed" \
		sh -c "got=\$(jq -L '$T_ROOT/bench/lib' -r 'include \"calibration\"; cal_model |
			\"\\(.shield) \\(.cache_kb) \\(.cache_ways) \\(.cost_ns) \\(.slowed | join(\",\"))\"' '$AMD') &&
			[ \"\$got\" = 'L1 32 8 1008 L2,L3,DRAM' ] || { echo \"cal_model gives '\$got'\"; exit 1; }"
	t_ok "shared AMD calibration: the hold is most of the cost (880 to 980 ns: 1008 (1 - 1/12.6) = 928)" \
		jq -L "$T_ROOT/bench/lib" -e 'include "calibration"; cal_model | .hold_ns >= 880 and .hold_ns <= 980' "$AMD"
	t_ok "shared AMD calibration: bus_model_load and run-guest take it (-cpu bus-lock-ns=1008, hold 928, 32 KiB 8 ways)" \
		runs "$AMD" 'bus-lock-ns=1008,bus-hold-ns=928,bus-cache-kb=32,bus-cache-ways=8$'
	t_ok "the committed example is the shared calibration, byte for byte" cmp "$AMD" "$AMD_EX"
else
	t_skip "the shared AMD calibration's model" "no $AMD (CI keeps a copy of shared/ beside the clone)"
fi
t_ok "committed amd-epyc-kvm: the same model" model_is "$AMD_EX" "L1 32 8 1008 928 L2,L3,DRAM"
t_ok "committed xeon-trap (a trapping hypervisor, x1.14 at most): L1 48 KiB 12 ways, hold 7034 of 57283 ns, as before" \
	model_is "$XEON" "L1 48 12 57283 7034 L2"

# A calibration where even L1 misses are slowed (L1 x5): no shield.
jq '.levels |= map(if .level == "L1" then .split_over_aligned = {ratio: 5, ci95: [4, 6]} else . end)' "$AMD_EX" >"$T_TMP/noshield.json"
t_ok "L1 slowed x5 beside x12.6: no shield (cache_kb 0, ways 0), every level slowed" \
	model_is "$T_TMP/noshield.json" "none 0 0 1008 928 L1,L2,L3,DRAM"
t_ok "... and it runs: run-guest takes ways 0 with no cache, -cpu has the hold and no cache" \
	runs "$T_TMP/noshield.json" 'bus-lock-ns=1008,bus-hold-ns=928$' '!bus-cache'
t_ok "run-guest: ways 0 with a cache is refused, named" \
	t_refuses "bus-cache-ways=0 is out of range (allowed: 1 to 32)" env SLB_INITRD=/dev/null \
	"$T_ROOT/bench/target/run-guest.sh" -o "$T_TMP/x" -n smoke --bus-cache-kb 32 --bus-cache-ways 0
# L2 slowed a little under a jump past it: the shield is L2.
jq '.levels |= map(if .level == "L2" then .split_over_aligned = {ratio: 2, ci95: [1.8, 2.2]} else . end)' "$AMD_EX" >"$T_TMP/l2.json"
t_ok "L2 x2 under L3 x12.6 (below sqrt(12.6) = 3.55): shield L2 (512 KiB)" model_is "$T_TMP/l2.json" "L2 512 8 1008 928 L3,DRAM"
# Nothing slowed, and the last-level cache past what the emulator models.
jq '.levels |= map(.split_over_aligned = {ratio: 1.01, ci95: [0.9, 1.1]})' "$XEON" >"$T_TMP/flat.json"
t_ok "nothing slowed, a 480 MiB L3: shield L3 modelled as the largest cache the emulator takes (65536 KiB)" \
	model_is "$T_TMP/flat.json" "L3 65536 8 57283 567 "
t_ok "... and it runs" runs "$T_TMP/flat.json" 'bus-cache-kb=65536,bus-cache-ways=8$'
jq '.machine.caches[0].bytes = 23040 * 1024' "$AMD_EX" >"$T_TMP/odd.json"
t_ok "a 22.5 MiB L1 (no power of two of sets at 8 to 32 ways): the largest cache below it (22528 KiB, 11 ways)" \
	model_is "$T_TMP/odd.json" "L1 22528 11 1008 928 L2,L3,DRAM"

# Short names: one resolver for every tool.
resolve() { (. "$T_ROOT/scripts/lib.sh" && . "$T_ROOT/bench/lib/job.sh" && cal_resolve "$@"); }
t_ok "cal_resolve amd-epyc-kvm: the committed example" sh -c "[ \"\$1\" = '$AMD_EX' ]" - "$(resolve amd-epyc-kvm)"
t_ok "cal_resolve xeon-trap: the trapping VM's" sh -c "[ \"\$1\" = '$XEON' ]" - "$(resolve xeon-trap)"
t_ok "cal_resolve DIR: the calibration.json in it" sh -c "[ \"\$1\" = '$T_ROOT/results/example-calibrate-20261204-192922/calibration.json' ]" - \
	"$(resolve "$T_ROOT/results/example-calibrate-20261204-192922/")"
t_ok "cal_resolve FILE: the file as given" sh -c "[ \"\$1\" = '$T_TMP/none.json' ]" - "$(resolve "$T_TMP/none.json")"
t_ok "an unknown name: exit 2 naming it and listing the names" \
	t_refuses "CALIBRATION 'epyc' is neither a committed calibration's name nor a file (names: amd-epyc-kvm xeon-trap;" resolve epyc
every_name() { # each name gives a model
	local e
	for e in ${CALIBRATION_NAMES//,/ }; do
		[ -f "$T_ROOT/${e#*:}/calibration.json" ] || { echo "${e%%:*}: no $T_ROOT/${e#*:}/calibration.json"; return 1; }
		[ -n "$(model "$T_ROOT/${e#*:}/calibration.json")" ] || return 1
	done
}
t_ok "every name in CALIBRATION_NAMES is a committed calibration that gives a model" every_name
t_ok "the default is a real bus lock: its split lock costs under 10 us" \
	jq -L "$T_ROOT/bench/lib" -e 'include "calibration"; cal_model | .cost_ns < 10000' "$T_ROOT/$CALIBRATION_DEFAULT"
t_ok "the default is amd-epyc-kvm" sh -c "[ \"\$1\" = '$T_ROOT/$CALIBRATION_DEFAULT' ]" - "$(resolve amd-epyc-kvm)"
t_ok "study.sh --calibration xeon-trap" "$T_ROOT/bench/study.sh" --validate --results "$T_TMP/res" --calibration xeon-trap
t_ok "study.sh --calibration bogus: refused, named" \
	t_refuses "CALIBRATION 'bogus' is neither" "$T_ROOT/bench/study.sh" --validate --results "$T_TMP/res" --calibration bogus
t_ok "sweep.sh --calibration xeon-trap" "$T_ROOT/bench/experiment/sweep.sh" --validate --calibration xeon-trap --costs cal,1000
t_ok "sweep.sh --calibration bogus: refused, named" \
	t_refuses "CALIBRATION 'bogus' is neither" "$T_ROOT/bench/experiment/sweep.sh" --validate --calibration bogus --costs cal,1000
t_ok "validate-model --native amd-epyc-kvm: the plan has its model" sh -c "
	'$T_ROOT/bench/experiment/validate-model.sh' --validate --native amd-epyc-kvm --results '$T_TMP/res' 2>&1 |
		grep -q 'costs 1008 ns, holds the bus 928 ns, delays misses of a 32 KiB cache.*native: $AMD_EX'"
t_ok "validate-model --native bogus: refused, named" \
	t_refuses "--native 'bogus' is neither" "$T_ROOT/bench/experiment/validate-model.sh" --validate --native bogus
t_ok "validate-model: no calibrate run, the default calibration" sh -c "
	'$T_ROOT/bench/experiment/validate-model.sh' --validate --results '$T_TMP/res' 2>&1 | grep -q 'native: $T_ROOT/$CALIBRATION_DEFAULT'"
t_ok "validate-model --native <no shield>: the plan says every access waits" sh -c "
	'$T_ROOT/bench/experiment/validate-model.sh' --validate --native '$T_TMP/noshield.json' --results '$T_TMP/res' 2>&1 |
		grep -q 'holds the bus 928 ns, delays every access (no cache shields)'"

# The sweep of the calibrations, each at its own cost (the default), and
# of one calibration scaled to each cost (--costs).
SW=$T_ROOT/bench/experiment/sweep.sh
t_ok "sweep: the default (the committed calibrations) validates" "$SW" --validate
t_ok "sweep: --calibrations amd-epyc-kvm,<a file> validates" "$SW" --validate --calibrations "amd-epyc-kvm,$XEON"
t_ok "sweep: one calibration is no sweep" t_refuses "--calibrations 'amd-epyc-kvm': a sweep needs at least two calibrations" \
	"$SW" --validate --calibrations amd-epyc-kvm
t_ok "sweep: a calibration named twice" t_refuses "names amd-epyc-kvm twice" "$SW" --validate --calibrations amd-epyc-kvm,amd-epyc-kvm
t_ok "sweep: an unknown calibration, named" t_refuses "CALIBRATION 'bogus' is neither" "$SW" --validate --calibrations amd-epyc-kvm,bogus
t_ok "sweep: --costs and --calibrations together" t_refuses "--costs and --calibrations are two kinds of sweep" \
	"$SW" --validate --costs 1000,2000 --calibrations amd-epyc-kvm,xeon-trap
t_ok "sweep: --calibration without --costs (it is the one they scale)" \
	t_refuses "--calibration 'xeon-trap' is the calibration --costs scales" "$SW" --validate --calibration xeon-trap
t_ok "sweep: --calibration xeon-trap --costs cal,1000 (scaled) validates" "$SW" --validate --calibration xeon-trap --costs cal,1000
t_ok "sweep: --calibrations with the all-stall model" t_refuses "--calibrations 'a,b' is for BUS_LOCK_MODEL=calibrated" \
	"$SW" --validate --bus-lock-model all --calibrations a,b
t_ok "make bench-sweep's help names the calibrations it sweeps" sh -c "
	make -s -C '$T_ROOT' help 2>/dev/null | grep -q 'SWEEP_CALIBRATIONS=\"$SWEEP_CALIBRATIONS_DEFAULT\"'"
