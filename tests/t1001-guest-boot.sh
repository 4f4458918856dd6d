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
