#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tsc-crystal (patch/qemu 0014) fills CPUID[0x15], an Intel leaf, and
# raises the CPUID level to reach it. Only an Intel model's level goes up
# (patch/qemu 0018, as QEMU does for CPUID[0x1F]): an AMD model (qemu64,
# AuthenticAMD) keeps its own level, 0xd, where before 0018 it was raised
# to 0x15 (21); Snowridge (Intel, level 0x1b) is unchanged. Read with QMP's
# query-cpu-model-expansion, no guest booted.
. "$(dirname "$0")/lib.sh"
t_require_guest "CPUID level tests"

# level MODEL: the CPUID level QEMU gives MODEL with tsc-crystal on
level() {
	printf '%s\n' '{"execute":"qmp_capabilities"}' \
		"{\"execute\":\"query-cpu-model-expansion\",\"arguments\":{\"type\":\"full\",\"model\":{\"name\":\"$1\",\"props\":{\"tsc-crystal\":true}}}}" \
		'{"execute":"quit"}' |
		timeout 30 "${SLB_QEMU:-qemu-system-x86_64}" -machine none -display none -accel tcg -icount shift=0 -qmp stdio 2>&1 |
		sed -n 's/.*"level": \([0-9]*\).*/\1/p' | head -n 1
}
is() { [ "$1" = "$2" ] || { echo "level '$1', expected $2"; return 1; }; }
t_ok "tsc-crystal on qemu64 (AMD) keeps its CPUID level 0xd" is "$(level qemu64)" 13
t_ok "tsc-crystal on Snowridge (Intel) keeps 0x1b (above 0x15)" is "$(level Snowridge)" 27
t_ok "tsc-crystal on Conroe (Intel, level 0xa) raises it to 0x15" is "$(level Conroe)" 21
