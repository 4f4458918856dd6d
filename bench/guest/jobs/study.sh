# SPDX-License-Identifier: GPL-2.0-or-later
# Study job: one scenario x rep. bench/study.sh ships a prelude that sets
# SLB_DURATION (s), SLB_WARMUP (s), SLB_INTERVAL (us), SLB_LOAD and
# SLB_SYSCTLS, then sources this file. The load starts first on every
# housekeeping vCPU (rt-slb-load: on the isolated one, as an RT task);
# after the warm-up cyclictest (or rtla timerlat: SLB_MEASURE) measures
# the isolated vCPU(s) while the load goes on. Left in ./ for the host: facts, sysctls,
# interrupts before and after, cyclictest histogram and JSON, the load's
# output and fate, the kernel's split-lock counters.
# Natively (SLB_NATIVE=1, bench/target/rep.sh: SLB_LIB, SLB_SEED, the CPUs
# from SLB_MEASURE_CPUS / SLB_LOAD_CPUS) it changes nothing in the kernel:
# the sysctls are only read (the study ran it only where they already
# hold), the counters not reset; a killed cyclictest ends the rep at once.
# SLB_LOAD_RATE (ops/s per load thread, 0 = flat out) bounds slb-load.
# SLB_MEASURE (study.sh --measure): cyclictest (unset), timerlat (rtla
# timerlat hist instead: timerlat.txt, timerlat-irq.txt, timerlat-thread.txt)
# or both: cyclictest, then timerlat, SLB_DURATION each, never at once (two
# SCHED_FIFO 95 threads woken by two timers on one CPU would delay each
# other's wake-ups: each would measure the other), the load running through
# both. cyclictest goes first, so that it starts where it does alone.
# SLB_TRACE=1 traces cyclictest's wake-up path from before the load starts
# to cyclictest's end (slb_trace_start: a tracefs instance of its own;
# slb-load marks its locking loop there) and leaves its summary:
# trace-summary.json and .txt, trace-worst.txt, trace-facts.txt, or
# trace-skipped.txt saying why it could not trace.
. "${SLB_LIB:-/lib/slb-lib.sh}"
: "${SLB_DURATION:?}" "${SLB_WARMUP:?}" "${SLB_INTERVAL:?}" "${SLB_LOAD:?}"

for s in $SLB_SYSCTLS; do
	if [ -n "${SLB_NATIVE:-}" ]; then
		echo "${s%%=*} = $(sysctl -n "${s%%=*}" 2>&1) (read, not set: native)" >>sysctls.txt
	else
		sysctl -w "$s" >>sysctls.txt 2>&1 || echo "failed: $s" >>sysctls.txt
	fi
done
[ -n "${SLB_NATIVE:-}" ] || slb_sld_reset
slb_facts >facts.txt
cat /proc/interrupts >interrupts.before

hk=$(slb_housekeeping_cpus)
# one load thread per housekeeping CPU (a list may hold ranges: 1-2)
nhk=$(slb_cpulist_expand "$hk" | wc -w)
echo "housekeeping=$hk" >>facts.txt
echo "measured=$(slb_measured_cpus)" >>facts.txt
rate=${SLB_LOAD_RATE:-0}
measure=${SLB_MEASURE:-cyclictest}
case $measure in
cyclictest | timerlat) phases=1 ;;
both) phases=2 ;;
*) echo "unknown measure '$measure' (allowed: cyclictest timerlat both)" >&2; exit 2 ;;
esac
echo "measure=$measure" >>facts.txt
mark=
if [ "${SLB_TRACE:-0}" = 1 ] && slb_trace_start "$(slb_measured_cpus)" "$SLB_DURATION" "$SLB_INTERVAL"; then
	mark="--mark $SLB_TRACE_MARKER"
fi

# The load starts first and runs past the end of the measurement, so the
# histogram holds loaded time only. In the virtual clock mode the seed
# (slb.seed) moves cyclictest's start against the load's by a hashed 0 to
# 100 ms: reps differ by that recorded offset, not by host noise, and
# their phases against the tick, the period and the offender are
# independent of one another (slb_seed_offset_us).
seed=${SLB_SEED:-$(slb_cmdline_arg slb.seed)}
offset_us=$(slb_seed_offset_us "${seed:-0}" 100000)
printf 'seed=%s\nload_offset_us=%s\n' "${seed:-none}" "$offset_us" >>facts.txt
# The load runs until 0.2 s after cyclictest's end (its start: the offset
# and the warm-up after the load's). It ran a whole second more, which the
# job waited for: 6 to 20 % of a rep's emulated time spent on a load that
# nothing measured. stress-ng takes whole seconds.
loaddur=$(awk -v d="$((SLB_DURATION * phases))" -v w="$SLB_WARMUP" -v o="$offset_us" 'BEGIN { printf "%.3f", d + w + o / 1e6 + 0.2 }')
loadsecs=$(awk -v t="$loaddur" 'BEGIN { s = int(t); if (s < t) s++; print s }')
case $SLB_LOAD in
none)
	echo none >load.fate
	;;
slb-load:*)
	set -- $(echo "${SLB_LOAD#slb-load:}" | tr ':' ' ')
	slb_run_load load -m "$1" -o "${2:-add}" -s "${3:-4}" -t "$nhk" -c "$hk" -r "$rate" -d "$loaddur" $mark &
	;;
rt-slb-load:*)
	# The RT application itself: SCHED_FIFO 90 (below cyclictest's 95) on
	# the isolated vCPU(s), 1000 locked ops per second.
	set -- $(echo "${SLB_LOAD#rt-slb-load:}" | tr ':' ' ')
	iso=$(slb_cpulist_expand "$(slb_measured_cpus)" | tr -s ' ' ',' | sed 's/,$//')
	slb_run_load load -m "$1" -o "${2:-add}" -s "${3:-4}" -c "$iso" -r 1000 --fifo 90 -d "$loaddur" $mark &
	;;
stress-ng:lockbus)
	{
		stress-ng --lockbus "$nhk" --taskset "$hk" -t "${loadsecs}s" --metrics-brief >load.out 2>&1
		rc=$?
		case $rc in 0) echo completed ;; *) echo "exit $rc" ;; esac >load.fate
	} &
	;;
*)
	echo "unknown load $SLB_LOAD" >load.fate
	;;
esac
if command -v usleep >/dev/null; then usleep "$offset_us"; else sleep "$(awk -v u="$offset_us" 'BEGIN { printf "%.6f", u / 1e6 }')"; fi
sleep "$SLB_WARMUP"
ctrc=0
# Natively a cyclictest (or rtla) killed by a signal ends the rep now: the
# runner (bench/target/rep.sh) then ends the load with the rest of the
# rep's process group. The trace covers cyclictest's wake-ups only.
if [ "$measure" != timerlat ]; then
	slb_cyclictest "$SLB_DURATION" "$SLB_INTERVAL" 100000
	ctrc=$?
	slb_trace_off
	[ -z "${SLB_NATIVE:-}" ] || [ "$ctrc" -lt 128 ] || { echo "cyclictest killed (status $ctrc)" >>facts.txt; slb_trace_stop; exit "$ctrc"; }
fi
if [ "$measure" != cyclictest ]; then
	slb_trace_off
	slb_timerlat "$SLB_DURATION" "$SLB_INTERVAL" 100000
	tlrc=$?
	[ -z "${SLB_NATIVE:-}" ] || [ "$tlrc" -lt 128 ] || { echo "rtla killed (status $tlrc)" >>facts.txt; slb_trace_stop; exit "$tlrc"; }
	[ "$ctrc" != 0 ] || ctrc=$tlrc
fi
wait
slb_trace_stop
cat /proc/interrupts >interrupts.after
# Natively the counters (if the kernel has them) were not reset: cumulative.
slb_sld_counters "sld_counters${SLB_NATIVE:+.cumulative}.txt"
exit $ctrc
