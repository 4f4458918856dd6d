# SPDX-License-Identifier: GPL-2.0-or-later
# Study job: one scenario x rep. bench/study.sh ships a prelude that sets
# SLB_DURATION (s), SLB_WARMUP (s), SLB_INTERVAL (us), SLB_LOAD and
# SLB_SYSCTLS, then sources this file. The load starts first on every
# housekeeping vCPU (rt-slb-load: on the isolated one, as an RT task);
# after the warm-up cyclictest measures the isolated
# vCPU(s) while the load goes on. Left in ./ for the host: facts, sysctls,
# interrupts before and after, cyclictest histogram and JSON, the load's
# output and fate, the kernel's split-lock counters.
. /lib/slb-lib.sh
: "${SLB_DURATION:?}" "${SLB_WARMUP:?}" "${SLB_INTERVAL:?}" "${SLB_LOAD:?}"

for s in $SLB_SYSCTLS; do
	sysctl -w "$s" >>sysctls.txt 2>&1 || echo "failed: $s" >>sysctls.txt
done
slb_sld_reset
slb_facts >facts.txt
cat /proc/interrupts >interrupts.before

hk=$(slb_housekeeping_cpus)
nhk=$(echo "$hk" | tr ',' '\n' | grep -c .)
echo "housekeeping=$hk" >>facts.txt

# The load starts first and runs past the end of the measurement, so the
# histogram holds loaded time only. In the virtual clock mode the seed
# (slb.seed) moves the load's start by up to 100 ms: reps differ by that
# recorded offset, not by host noise.
seed=$(slb_cmdline_arg slb.seed)
offset_us=$(((${seed:-0} * 7919) % 100000))
printf 'seed=%s\nload_offset_us=%s\n' "${seed:-none}" "$offset_us" >>facts.txt
loaddur=$((SLB_DURATION + SLB_WARMUP + 1))
case $SLB_LOAD in
none)
	echo none >load.fate
	;;
slb-load:*)
	set -- $(echo "${SLB_LOAD#slb-load:}" | tr ':' ' ')
	slb_run_load load -m "$1" -o "${2:-add}" -s "${3:-4}" -t "$nhk" -c "$hk" -d "$loaddur" &
	;;
rt-slb-load:*)
	# The RT application itself: SCHED_FIFO 90 (below cyclictest's 95) on
	# the isolated vCPU(s), 1000 locked ops per second.
	set -- $(echo "${SLB_LOAD#rt-slb-load:}" | tr ':' ' ')
	iso=$(slb_cpulist_expand "$(slb_isolated_cpus)" | tr -s ' ' ',' | sed 's/,$//')
	slb_run_load load -m "$1" -o "${2:-add}" -s "${3:-4}" -c "$iso" -r 1000 --fifo 90 -d "$loaddur" &
	;;
stress-ng:lockbus)
	{
		stress-ng --lockbus "$nhk" --taskset "$hk" -t "${loaddur}s" --metrics-brief >load.out 2>&1
		rc=$?
		case $rc in 0) echo completed ;; *) echo "exit $rc" ;; esac >load.fate
	} &
	;;
*)
	echo "unknown load $SLB_LOAD" >load.fate
	;;
esac
usleep "$offset_us"
sleep "$SLB_WARMUP"
slb_cyclictest "$SLB_DURATION" "$SLB_INTERVAL" 100000
ctrc=$?
wait
cat /proc/interrupts >interrupts.after
slb_sld_counters sld_counters.txt
exit $ctrc
