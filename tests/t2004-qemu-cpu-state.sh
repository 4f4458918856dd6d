#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MSR_TEST_CTRL of patch/qemu stays consistent with what traps, through
# what changes a vCPU's state behind the guest's back: INIT (CPU offline
# and online), two SMT threads writing the core's register at once, and
# migration to another QEMU. Each fails on a QEMU that keeps the MSR and
# its trapping (hflags) apart. Migration also checks that DEBUGCTL (0006)
# adds a subsection only for bus-lock detection.
# t-light: half its time waits on QEMU (migration, a paused guest)
. "$(dirname "$0")/lib.sh"
t_require_guest "emulated TEST_CTRL state tests"

# 1. INIT keeps TEST_CTRL; trapping must follow it. A CPU model with the
# hypervisor bit makes Linux leave the MSR alone (it would rewrite it when
# the CPU comes back online and hide the difference); CPU 1 of 3 is not
# the isolated one, so it can go offline. With detection off in the
# kernel, a user split lock that traps is logged and resumed.
init=$T_TMP/init
t_boot "$init" -c Snowridge --smp 3 --clock wall -j "$(t_job init <<'JOB'
slb-msr write 1 0x33 0x20000000
echo 0 >/sys/devices/system/cpu/cpu1/online && echo 1 >/sys/devices/system/cpu/cpu1/online
echo $? >online.rc
slb-msr read 1 0x33 >msr_after_online
n0=$(dmesg | grep -c 'took a split_lock trap')
slb-load --cpus 1 --ops 1 >load.txt 2>&1
echo $(($(dmesg | grep -c 'took a split_lock trap') - n0)) >traps_after_online
JOB
)" -t 300 &

# 2. Threads 0 and 1 of one core write opposite values at once, 3000
# times; each time both must then read the same.
race=$T_TMP/race
t_boot "$race" --smp 2 --threads 2 --clock wall -j "$(t_job race <<'JOB'
slb-msr-race --rounds 3000 0 1 >race.txt 2>&1
echo $? >race.rc
slb-msr-race --json --rounds 100 0 1 >race.json 2>&1
JOB
)" -t 300
wait

t_ok "INIT: CPU 1 went offline and came back" t_file_has "$init" online.rc '^0$'
t_ok "INIT: TEST_CTRL keeps bit 29 through INIT" t_file_has "$init" msr_after_online '^0x20000000$'
t_ok "INIT: ... and a split lock on that CPU traps (one #AC logged)" t_file_has "$init" traps_after_online '^1$'
t_ok "siblings: 3000 concurrent writes, both threads agree each time" t_file_has "$race" race.txt ' 3000 rounds, 0 disagreements'
t_ok "siblings: slb-msr-race exits 0" t_file_has "$race" race.rc '^0$'
race_json() { jq -e '.rounds == 100 and .disagreements == 0 and .cpus == [0, 1]' "$race/files/race.json"; }
t_ok "siblings: slb-msr-race --json is parseable and agrees" race_json

# 3. Migration: the source stops at a marker, is migrated to a file and
# quits; a second QEMU resumes it from that file. Detection was on (fatal)
# before; afterwards RDMSR and trapping must still say on. Wall clock: the
# guest's 10 s sleep covers the migration.
mig=$T_TMP/mig
mig_job=$(t_job mig <<'JOB'
slb-msr write 1 0x1d9 0x2 2>btf.err; echo $? >btf.rc
echo SLB-MIGRATE-POINT >/dev/ttyS0
sleep 10
slb-msr read 0 0x33 >msr_after_migration
slb-trapmatrix --detect on >matrix.txt
JOB
)
t_ok "migration: the source reached the migration point, wrote its state and quit" \
	t_boot_migrate "$mig" 0 -j "$mig_job" -a split_lock_detect=fatal --clock wall -t 200
# DEBUGCTL travels only for bus-lock detection (bit 2): a guest that sets
# only BTF (not emulated) must still migrate to a QEMU without the
# subsection. Subsection names are plain text in the stream; TEST_CTRL's
# shows that they can be found there.
# stream_has NAME: the migration stream names subsection NAME.
stream_has() { grep -qa "$1" "$mig/state"; }
no_debugctl() { stream_has cpu/msr_test_ctrl && ! stream_has cpu/msr_debugctl; }
t_ok "migration: DEBUGCTL with only BTF (accepted) sends no cpu/msr_debugctl subsection" no_debugctl
t_boot "$mig/dst" -j "$mig_job" -a split_lock_detect=fatal --clock wall -t 200 \
	--qemu-arg -incoming --qemu-arg "exec:cat $mig/state"
t_ok "migration: the destination resumed the guest and finished the job" t_outcome "$mig/dst" ok
t_ok "migration: TEST_CTRL reads bit 29 on the destination" t_file_has "$mig/dst" msr_after_migration '^0x20000000$'
t_ok "migration: the guest's BTF write to DEBUGCTL was accepted" t_file_has "$mig/dst" btf.rc '^0$'
t_unit_file "$mig/dst/files/matrix.txt"
