# SPDX-License-Identifier: GPL-2.0-or-later
# The emulator's devices (scripts/build-qemu.sh: --without-default-devices,
# this file as configs/devices/x86_64-softmmu/slb.mak): the i440FX pc
# machine and what the guest and the tests add to it. The machine keeps
# every device a default build gives it (t1001 holds its device types to
# a default build's list), so the guest sees the same machine; what is
# left out is the devices no run creates (network, USB, display, storage,
# audio...), and the time a cold build spends compiling them.
CONFIG_I440FX=y
# implied by the pc machine in a default build: the guest has them
CONFIG_HPET=y
CONFIG_VMPORT=y
CONFIG_VMMOUSE=y
# -device pvpanic (a kept guest's stop) and isa-debugcon (the output channel)
CONFIG_PVPANIC_ISA=y
CONFIG_ISA_DEBUG=y
# -device edu: device memory for the tests (t2001, t2005)
CONFIG_EDU=y
