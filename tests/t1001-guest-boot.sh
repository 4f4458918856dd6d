#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The guest boots PREEMPT_RT with the asked vCPU count and isolation, runs
# cyclictest on the isolated vCPU, and its histogram and JSON come back
# complete and parse.
. "$(dirname "$0")/lib.sh"
t_require_guest "guest boot tests"

d=$T_TMP/smoke
t_boot "$d" -n smoke -t 300
t_ok "smoke job boots and finishes (outcome ok)" t_outcome "$d" ok
t_ok "uname -v says PREEMPT_RT" t_fact "$d" preempt_rt yes
t_ok "2 vCPUs online" t_fact "$d" cpus_online 2
t_ok "vCPU 1 isolated" t_fact "$d" cpus_isolated 1
t_ok "vCPU 1 is nohz_full" t_fact "$d" nohz_full 1
t_ok "console shows the boot to init" grep -q "slb-init: running job" "$d/console.log"
t_ok "histogram parses" "$HOSTBIN/slb-hist" --json "$d/files/hist.txt"
"$HOSTBIN/slb-hist" --json "$d/files/hist.txt" >"$T_TMP/h.json" 2>&1
samples() { jq -e '.histograms[0].samples > 1000' "$T_TMP/h.json"; }
t_ok "histogram holds over 1000 samples (2 s at 1 ms)" samples
json_cpu() { jq -e '.thread["0"].cpu == 1' "$d/files/cyclictest.json"; }
t_ok "cyclictest JSON parses and says it ran on CPU 1" json_cpu
consistent() {
	local n
	n=$(jq '.thread["0"].cycles' "$d/files/cyclictest.json")
	jq -e --argjson n "$n" '.histograms[0].samples + .histograms[0].overflows == $n' "$T_TMP/h.json"
}
t_ok "histogram samples + overflows equal cyclictest's cycle count" consistent

d=$T_TMP/smp3
t_boot "$d" -n smoke -t 300 --smp 3 --isolate 2
t_ok "3 vCPUs with 2 isolated boots" t_outcome "$d" ok
t_ok "3 vCPUs online" t_fact "$d" cpus_online 3
t_ok "vCPUs 1-2 isolated" t_fact "$d" cpus_isolated 1-2

# The emulator's devices (rt-config/qemu-devices.mak, a build without
# QEMU's default devices): the guest's machine (-machine pc -nodefaults,
# pvpanic, isa-debugcon, a serial port) has every device a default build
# gives it, each type as many times: the device tree of the default build.
devices() {
	printf 'info qtree\nquit\n' | timeout 60 "${SLB_QEMU:-qemu-system-x86_64}" "${T_PC[@]}" -bios qboot.rom -display none -S \
		-accel tcg,thread=single -icount shift=0 -cpu Snowridge -smp 2 -m 512 \
		-device pvpanic -chardev null,id=o -device isa-debugcon,iobase=0xe9,chardev=o -serial null -monitor stdio 2>&1 |
		sed -n 's/^ *dev: \([^,]*\),.*/\1/p' | LC_ALL=C sort | uniq -c | awk '{ printf "%s %s\n", $2, $1 }' | tr '\n' ' '
}
want='PIIX3 1 PIIX4_PM 1 fw_cfg_io 1 hpet 1 i440FX 1 i440FX-pcihost 1 i8042 1 i8257 2 ioapic 1 isa-debugcon 1 isa-fdc 1 isa-i8259 2 isa-pcspk 1 isa-pit 1 isa-serial 1 kvmvapic 1 mc146818rtc 1 piix3-ide 1 port92 1 ps2-kbd 1 ps2-mouse 1 pvpanic 1 smbus-eeprom 8 vmmouse 1 vmport 1 '
same_devices() { local got; got=$(devices); [ "$got" = "$want" ] || { echo "got:  $got"; echo "want: $want"; return 1; }; }
t_ok "the guest's machine has a default build's devices, each as many times" same_devices
