#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated split-lock detection of patch/qemu, seen from the guest:
# the trap matrix with detection on and off, MSR_TEST_CTRL and
# IA32_CORE_CAPABILITIES present or #GP, the unmodified 6.12 detection code
# coming up through the CORE_CAPS and model-table paths, TEST_CTRL
# shared by the SMT threads of a core, and bus-lock detection (#DB), also
# of a LOCK on device memory (the edu device's BAR).
. "$(dirname "$0")/lib.sh"
t_require_guest "emulated split-lock tests"
FATAL_MSG='x86/split lock detection: #AC: crashing the kernel on kernel split_locks and sending SIGBUS on user-space split_locks'

# The facts every boot collects: cpuinfo flag, both MSRs on CPU 0.
probe_job() {
	cat <<'JOB'
grep -qw split_lock_detect /proc/cpuinfo && echo yes >flag || echo no >flag
slb-msr read 0 0xcf >core_caps 2>&1; echo $? >core_caps.rc
slb-msr read 0 0x33 >test_ctrl 2>&1; echo $? >test_ctrl.rc
JOB
}

# The edu device's BAR 0 (device memory) in the guest: its sysfs resource file.
EDU=(--qemu-arg -device --qemu-arg edu)
edu_job() {
	cat <<'JOB'
edu=
for dev in /sys/bus/pci/devices/*; do
	[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = 0x1234:0x11e8 ] && edu=$dev/resource0
done
echo "edu BAR 0: ${edu:-not found}"
JOB
}

# 1. Detection on (upstream fatal mode), default CPU (Snowridge).
d=$T_TMP/on
t_boot "$d" "${EDU[@]}" -j "$({ probe_job; edu_job; cat <<'JOB'
slb-msr write 0 0x33 0x60000000 2>reserved.err; echo $? >reserved.rc
slb-msr write 0 0x1d9 0x4 2>debugctl_bld.err; echo $? >debugctl_bld.rc
slb-trapmatrix --detect on --mmio "$edu" >matrix.txt
JOB
} | t_job on)" -a split_lock_detect=fatal -t 300
t_ok "Snowridge guest with split_lock_detect=fatal boots" t_outcome "$d" ok
t_ok "/proc/cpuinfo shows split_lock_detect" t_file_has "$d" flag yes
t_ok "kernel announces fatal mode" t_file_has "$d" dmesg.txt "$FATAL_MSG"
t_ok "IA32_CORE_CAPABILITIES (0xCF) reads with bit 5 set" t_file_has "$d" core_caps '^0x20$'
t_ok "MSR_TEST_CTRL (0x33) reads 0x20000000 (bit 29, set by the kernel)" t_file_has "$d" test_ctrl '^0x20000000$'
t_ok "setting a reserved TEST_CTRL bit fails (#GP: EIO)" t_file_has "$d" reserved.rc '^1$'
t_unit_file "$d/files/matrix.txt"

# 2. Detection off: same CPU, nothing traps.
d=$T_TMP/off
t_boot "$d" -j "$({ probe_job; echo 'slb-trapmatrix --detect off >matrix.txt'; } | t_job off)" \
	-a split_lock_detect=off -t 300
t_ok "split_lock_detect=off boots" t_outcome "$d" ok
t_ok "MSR_TEST_CTRL stays 0 with detection off" t_file_has "$d" test_ctrl '^0x0$'
t_unit_file "$d/files/matrix.txt"

# 3. A CPU without the feature: both MSRs #GP, nothing enabled, nothing traps.
d=$T_TMP/max
t_boot "$d" -c max -j "$({ probe_job; echo 'slb-trapmatrix --detect off >matrix.txt'; } | t_job max)" \
	-a split_lock_detect=fatal -t 300
t_ok "-cpu max with split_lock_detect=fatal boots" t_outcome "$d" ok
t_ok "no split_lock_detect flag on -cpu max" t_file_has "$d" flag no
t_ok "0xCF is absent on -cpu max (read fails)" t_file_has "$d" core_caps.rc '^1$'
t_ok "0x33 is absent on -cpu max (read fails)" t_file_has "$d" test_ctrl.rc '^1$'
not_fatal() { ! grep -q "$FATAL_MSG" "$d/files/dmesg.txt"; }
t_ok "kernel does not announce detection on -cpu max" not_fatal
t_unit_file "$d/files/matrix.txt"

# 4. The unmodified enumeration paths of 6.12.
enum_boot() { # enum_boot NAME CPU
	d=$T_TMP/$1
	t_boot "$d" -c "$2" -j "$(probe_job | t_job "$1")" -a split_lock_detect=fatal -t 300
}
enum_boot caps 'Skylake-Server,-hypervisor,+core-capability,+split-lock-detect'
t_ok "CORE_CAPS path (Skylake-Server + split-lock-detect): flag shown" t_file_has "$d" flag yes
t_ok "CORE_CAPS path: kernel announces fatal mode" t_file_has "$d" dmesg.txt "$FATAL_MSG"
# QEMU's Icelake-Server reports model 134; the kernel's table has ICELAKE_X = 106.
enum_boot table 'Icelake-Server,-hypervisor,test-ctrl=on,model=106'
t_ok "model-table path (Icelake-Server model 106, test-ctrl=on): flag shown" t_file_has "$d" flag yes
t_ok "model-table path: kernel announces fatal mode" t_file_has "$d" dmesg.txt "$FATAL_MSG"
t_ok "model-table path: 0xCF absent (no core-capability)" t_file_has "$d" core_caps.rc '^1$'
enum_boot notable 'Icelake-Server,-hypervisor,model=106'
t_ok "Icelake-Server without TEST_CTRL: kernel finds no detection" t_file_has "$d" flag no

# 5. TEST_CTRL is per core: 2 threads of one core.
d=$T_TMP/smt
t_boot "$d" --threads 2 -j "$(t_job smt <<'JOB'
slb-msr write 0 0x33 0 && slb-msr read 1 0x33 >sibling_after_clear
slb-trapmatrix --cpu 1 --detect off >matrix_off.txt
slb-msr write 0 0x33 0x20000000 && slb-msr read 1 0x33 >sibling_after_set
slb-trapmatrix --cpu 1 --detect on >matrix_on.txt
JOB
)" -a split_lock_detect=fatal -t 300
t_ok "2 threads of one core boot" t_outcome "$d" ok
t_ok "clearing TEST_CTRL on thread 0 clears it on thread 1" t_file_has "$d" sibling_after_clear '^0x0$'
t_ok "setting TEST_CTRL on thread 0 sets it on thread 1" t_file_has "$d" sibling_after_set '^0x20000000$'
no_fail() { ! grep -q '^not ok' "$d/files/$1" && grep -q '^# CPU 1: ' "$d/files/$1"; }
t_ok "thread 1 traps nothing after thread 0 cleared detection" no_fail matrix_off.txt
t_ok "thread 1 traps every split lock after thread 0 set detection" no_fail matrix_on.txt

# 6. Bus-lock detection (#DB, patch/qemu 0006). On a CPU with #DB and no
# #AC, fatal mode turns DEBUGCTL.BUS_LOCK_DETECT on and answers each bus
# lock with SIGBUS after the instruction; ratelimit:10 on a CPU with both
# turns #AC off and holds an offender to about 10 bus locks per second.
d=$T_TMP/bld
t_boot "$d" -c Snowridge,-hypervisor,-split-lock-detect,+bus-lock-detect "${EDU[@]}" \
	-j "$({ edu_job; cat <<'JOB'
slb-msr read 0 0x1d9 >debugctl 2>&1
slb-trapmatrix --detect bus-lock --mmio "$edu" >matrix.txt
JOB
} | t_job bld)" -a split_lock_detect=fatal -t 300 &
rl=$T_TMP/ratelimit
t_boot "$rl" -c Snowridge,-hypervisor,+bus-lock-detect -j "$(t_job ratelimit <<'JOB'
slb-msr read 0 0x1d9 >debugctl 2>&1
slb-msr read 0 0x33 >test_ctrl 2>&1
slb-load --cpus 0 --duration 3 --json >load.json
JOB
)" -a split_lock_detect=ratelimit:10 -t 300
wait
t_ok "#DB-only CPU, fatal: the kernel sets DEBUGCTL.BUS_LOCK_DETECT (0x4)" t_file_has "$d" debugctl '^0x4$'
t_unit_file "$d/files/matrix.txt"
t_ok "ratelimit:10 boots on a CPU with #AC and #DB" t_outcome "$rl" ok
t_ok "ratelimit:10: the kernel announces the limit" t_file_has "$rl" dmesg.txt 'setting system wide bus lock rate limit to 10/sec'
ac_off_db_on() { t_file_has "$rl" test_ctrl '^0x0$' && t_file_has "$rl" debugctl '^0x4$'; }
t_ok "ratelimit:10: #AC off (TEST_CTRL 0), #DB on (DEBUGCTL 0x4)" ac_off_db_on
t_ok "ratelimit:10: the offender's bus locks trap (#DB logged)" t_file_has "$rl" dmesg.txt '#DB: slb-load/[0-9]* took a bus_lock trap'
# Unthrottled the same loop runs at tens of thousands per second.
rate_held() { jq -e '.ops_per_s >= 5 and .ops_per_s <= 15' "$rl/files/load.json" || { cat "$rl/files/load.json"; return 1; }; }
t_ok "ratelimit:10: the offender ran at 5-15 split locks per second" rate_held
t_ok "DEBUGCTL.BUS_LOCK_DETECT without the CPUID bit is #GP" t_file_has "$T_TMP/on" debugctl_bld.rc '^1$'

# test-ctrl=on only means something under TCG: another accelerator must
# refuse it, not accept it and emulate nothing (qtest stands in for one).
t_ok "QEMU: test-ctrl=on outside TCG is refused" t_qemu_refuses "test-ctrl=on needs TCG" \
	"${T_PC[@]}" -accel qtest -qtest null -cpu Icelake-Server,test-ctrl=on
# accepted: QEMU ARGS... is still running (paused, -S) after 3 s.
accepted() {
	"${SLB_QEMU:-qemu-system-x86_64}" -nodefaults -display none -S "$@" </dev/null 2>"$T_TMP/acc.err" &
	local p=$!
	sleep 3
	kill -0 $p 2>/dev/null || { tail -n 3 "$T_TMP/acc.err"; return 1; }
	kill $p
	wait $p 2>/dev/null
	return 0
}
t_ok "QEMU: ... but accepted under TCG" accepted "${T_PC[@]}" -accel tcg -cpu Icelake-Server,test-ctrl=on
