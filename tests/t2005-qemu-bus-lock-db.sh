#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bus-lock detection (#DB, patch/qemu 0006/0007) where it meets the rest
# of the debug architecture and the MSR's other bits, seen from the guest
# on a vCPU with #DB and without #AC, bus locks fatal:
#  - a single step (TF) or a data breakpoint on the operand of a split
#    lock gives one #DB with both conditions, after the instruction
#    (slb-busdb: SIGTRAP and the bus-lock SIGBUS at the next instruction);
#  - LOCK CMPXCHG16B on device memory is a bus lock, a misaligned one is
#    #GP and leaves no bus lock behind (slb-trapmatrix --mmio);
#  - DEBUGCTL: reserved bits are #GP, BTF is kept.
# The step, breakpoint (the guest hung), aligned CMPXCHG16B and reserved
# bit checks fail on the QEMU before the fix; without 0007's early return
# for a misaligned CMPXCHG16B and 0006's clearing of a stale bus lock, the
# bus lock marked before its #GP traps later and the matrix hangs (at the
# split CMPXCHG16B case; see patch/README.md).
. "$(dirname "$0")/lib.sh"
t_require_guest "bus-lock #DB tests"

d=$T_TMP/busdb
t_boot "$d" -c Snowridge,-hypervisor,-split-lock-detect,+bus-lock-detect \
	--qemu-arg -device --qemu-arg edu -j "$(t_job busdb <<'JOB'
edu=
for dev in /sys/bus/pci/devices/*; do
	[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = 0x1234:0x11e8 ] && edu=$dev/resource0
done
slb-msr read 0 0x1d9 >debugctl 2>&1
slb-msr write 0 0x1d9 0xc 2>reserved.err; echo $? >reserved.rc
slb-msr write 0 0x1d9 0x6 2>btf.err; echo $? >btf.rc
slb-msr read 0 0x1d9 >debugctl_btf 2>&1
slb-msr write 0 0x1d9 0x4
slb-trapmatrix --detect bus-lock --mmio "$edu" >matrix.txt
# last, and on the console too: a QEMU that raises a second #DB inside
# the first one's entry hangs the guest here
slb-busdb 2>&1 | tee busdb.txt >/dev/ttyS0
JOB
)" -a split_lock_detect=fatal -t 150
t_ok "#DB-only CPU, fatal: boots" t_outcome "$d" ok
t_ok "DEBUGCTL reads 0x4 (BUS_LOCK_DETECT, set by the kernel)" t_file_has "$d" debugctl '^0x4$'
t_ok "DEBUGCTL: a reserved bit (3) is #GP (EIO)" t_file_has "$d" reserved.rc '^1$'
btf_kept() { t_file_has "$d" btf.rc '^0$' && t_file_has "$d" debugctl_btf '^0x6$'; }
t_ok "DEBUGCTL: BTF with BUS_LOCK_DETECT is accepted and reads back (0x6)" btf_kept
no_unchecked() { ! grep -i 'unchecked MSR access error' "$d/files/dmesg.txt"; }
t_ok "the kernel's own DEBUGCTL writes do not fault" no_unchecked
t_unit_file "$d/files/busdb.txt"
mmio_cases() { grep -i 'device memory\|after that #GP' "$d/files/matrix.txt"; }
cmpxchg16b_checked() { grep -q '^ok - lock cmpxchg16b size 16 aligned on device memory' "$d/files/matrix.txt" || mmio_cases; }
t_ok "trap matrix: LOCK CMPXCHG16B on device memory takes the bus-lock #DB" cmpxchg16b_checked
t_unit_file "$d/files/matrix.txt"
