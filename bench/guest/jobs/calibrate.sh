# SPDX-License-Identifier: GPL-2.0-or-later
# Calibration job (make validate-model): slb-calibrate inside the guest,
# the victim on the isolated vCPU, the load (and the issuer) on the first
# housekeeping vCPU. bench/experiment/validate-model.sh ships a prelude that sets
# SLB_CAL_ARGS (the tool's options but --cpus and the outputs) and then
# sources this file. The tool's progress lines go to the console (the
# host follows console.log); left in ./ for the host: calibration.json,
# calibration.txt, progress.log, facts.txt (with the CPUs and the caches
# as the guest sees them).
. "${SLB_LIB:-/lib/slb-lib.sh}"
: "${SLB_CAL_ARGS:?}"
slb_facts >facts.txt
victim=$(slb_cpulist_expand "$(slb_measured_cpus)" | awk '{ print $NF }')
load=$(slb_housekeeping_cpus | cut -d, -f1)
echo "victim_cpu=$victim" >>facts.txt
echo "load_cpu=$load" >>facts.txt
for d in /sys/devices/system/cpu/cpu"$victim"/cache/index*; do
	[ -d "$d" ] && echo "cache=L$(cat "$d/level") $(cat "$d/type") $(cat "$d/size")"
done >>facts.txt
echo "mem_total_kb=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)" >>facts.txt
# shellcheck disable=SC2086
slb-calibrate $SLB_CAL_ARGS --cpus "$victim,$load" --json-out calibration.json --log progress.log >calibration.txt
