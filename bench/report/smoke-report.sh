#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Print what `make smoke` found: the guest's facts and cyclictest's figures
# from a bench/target/run-guest.sh results directory.
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
dir=${1:?usage: smoke-report.sh RUNDIR}
outcome=$(jq -r .outcome "$dir/outcome.json" 2>/dev/null || echo missing)
echo "guest run: $outcome (boot + job took $(jq -r .elapsed_s "$dir/outcome.json" 2>/dev/null) s)"
if [ "$outcome" != ok ]; then
	echo "console (last lines):"
	tail -n 25 "$dir/console.log" 2>/dev/null | sed 's/^/  /'
	exit 1
fi
boot=$(grep -m1 'slb-init: running job' "$dir/console.log" | tr -d '\r')
sed -n 's/^\(kernel_release\|kernel_version\|preempt_rt\|cpus_online\|cpus_isolated\|nohz_full\|cpu_model\)=/  \1: /p' "$dir/files/facts.txt"
echo "  boot to init: $(grep -m1 -o '^\[ *[0-9.]*\] Run /init' "$dir/console.log" | grep -o '[0-9.]*' | head -1) s (guest clock)"
[ -n "$boot" ] || echo "  (init did not report)"
echo "cyclictest on the isolated vCPU (emulated time under QEMU TCG, not hardware us):"
"$SLB_ROOT/build/host/slb-hist" "$dir/files/hist.txt" | sed 's/^/  /'
