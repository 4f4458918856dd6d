# SPDX-License-Identifier: GPL-2.0-or-later
# Guest-side helpers shared by /init and the jobs. Output goes to the host
# through slb-frame (QEMU isa-debugcon port 0xe9, a host file), framed so
# that the host can tell complete output from truncated output; the format
# is in bench/lib/frame.h. The study job also runs natively (bench/target/
# rep.sh, on the running kernel or over ssh): there SLB_NATIVE=1,
# SLB_MEASURE_CPUS and SLB_LOAD_CPUS choose the CPUs (instead of the
# isolated / housekeeping ones), SLB_TMP a private scratch directory and
# SLB_CYCLICTEST the cyclictest binary and SLB_RTLA the rtla binary.

# slb_cmdline_arg KEY: the value of KEY=value on the kernel command line.
slb_cmdline_arg() {
	for w in $(cat /proc/cmdline); do
		case $w in "$1="*) echo "${w#*=}" ;; esac
	done
}

# slb_emit FILE [NAME]: send FILE to the host under NAME (default: basename).
slb_emit() {
	slb-frame "$1${2:+:$2}"
}

# slb_emit_all DIR: send every regular file in DIR (not recursive).
slb_emit_all() {
	for f in "$1"/*; do
		[ -f "$f" ] && slb_emit "$f"
	done
}

# slb_done STATUS: tell the host the job finished with STATUS.
slb_done() {
	slb-frame --done "$1"
}

# slb_mul32 A B: A * B mod 2^32 (A, B < 2^32), in halves so that no product
# passes the shell's signed 64-bit arithmetic.
slb_mul32() {
	echo $((($1 * ($2 & 65535) + ((($1 * ($2 >> 16)) & 65535) << 16)) & 4294967295))
}

# slb_seed_offset_us SEED RANGE: the rep's start offset in us, 0 to RANGE-1,
# from a 32-bit mixing hash of SEED (murmur3's finaliser). Successive seeds
# must give independent offsets: a linear SEED * C mod RANGE moved each rep's
# phase against the 1 ms tick and cyclictest's period by the same step, so
# the reps sampled one narrow band of phases, and an unrelated change of the
# guest (boot a few us longer) moved the whole band and the results with it.
slb_seed_offset_us() {
	h=$(($1 & 4294967295))
	h=$((h ^ (h >> 16)))
	h=$(slb_mul32 "$h" 2246822507)
	h=$((h ^ (h >> 13)))
	h=$(slb_mul32 "$h" 3266489909)
	h=$((h ^ (h >> 16)))
	echo $((h % $2))
}

# slb_isolated_cpus: the kernel's isolated CPU list (empty if none).
slb_isolated_cpus() {
	cat /sys/devices/system/cpu/isolated 2>/dev/null
}

# slb_cpulist_expand LIST: "0-2,5" -> "0 1 2 5".
slb_cpulist_expand() {
	for r in $(echo "$1" | tr ',' ' '); do
		case $r in
		*-*) seq "${r%-*}" "${r#*-}" ;;
		*) echo "$r" ;;
		esac
	done | tr '\n' ' '
}

# slb_measured_cpus: the CPU(s) cyclictest measures: SLB_MEASURE_CPUS, else
# the kernel's isolated ones.
slb_measured_cpus() {
	echo "${SLB_MEASURE_CPUS:-$(slb_isolated_cpus)}"
}

# slb_housekeeping_cpus: SLB_LOAD_CPUS, else online CPUs that are not
# isolated, comma-separated.
slb_housekeeping_cpus() {
	[ -z "${SLB_LOAD_CPUS:-}" ] || { echo "$SLB_LOAD_CPUS"; return; }
	iso=" $(slb_cpulist_expand "$(slb_isolated_cpus)") "
	hk=
	for c in $(slb_cpulist_expand "$(cat /sys/devices/system/cpu/online)"); do
		case $iso in *" $c "*) ;; *) hk=${hk:+$hk,}$c ;; esac
	done
	echo "$hk"
}

# slb_facts: key=value lines describing the running guest.
slb_facts() {
	echo "kernel_release=$(uname -r)"
	echo "kernel_version=$(uname -v)"
	case $(uname -v) in
	*PREEMPT_RT*) echo "preempt_rt=yes" ;;
	*) echo "preempt_rt=no" ;;
	esac
	echo "cpus_online=$(grep -c '^processor' /proc/cpuinfo)"
	echo "cpus_isolated=$(slb_isolated_cpus)"
	echo "nohz_full=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "cpu_model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cpu_flags_split_lock_detect=$(grep -qw split_lock_detect /proc/cpuinfo && echo yes || echo no)"
}

# slb_unmeasured_cpus CPUS: the online CPUs not in CPUS, comma-separated.
slb_unmeasured_cpus() {
	m=" $(slb_cpulist_expand "$1") "
	u=
	for c in $(slb_cpulist_expand "$(cat /sys/devices/system/cpu/online)"); do
		case $m in *" $c "*) ;; *) u=${u:+$u,}$c ;; esac
	done
	echo "$u"
}

# slb_cyclictest SECONDS [INTERVAL_US [HIST_US]]: cyclictest, one thread
# pinned to each measured CPU (CPU 0 when none), output in ./cyclictest.json
# and ./hist.txt (one column per thread; slb-hist pools them). Its main
# thread (SCHED_OTHER, which starts the threads and sleeps 10 ms at a
# time with interrupts briefly off) runs on the other CPUs
# (--mainaffinity, as rteval runs it): on a measured CPU it delays the
# measured thread's wake-ups, a tail of cyclictest's own making.
# cyclictest_mainaffinity= in ./facts.txt says where it ran.
slb_cyclictest() {
	cpus=$(slb_measured_cpus)
	[ -n "$cpus" ] || cpus=0
	n=$(slb_cpulist_expand "$cpus" | wc -w)
	main=$(slb_unmeasured_cpus "$cpus")
	echo "cyclictest_mainaffinity=${main:-none}" >>facts.txt
	"${SLB_CYCLICTEST:-cyclictest}" -m -q -p 95 -t "$n" -a "$cpus" ${main:+--mainaffinity="$main"} \
		-i "${2:-1000}" -D "$1" -h "${3:-20000}" --histfile=hist.txt --json=cyclictest.json \
		>cyclictest.out 2>&1
	rc=$?
	# cyclictest writes every bucket, mostly zeros: keep the others and
	# the summary lines (lossless, and 1.4 MB becomes a few kB).
	slb-histcompact hist.txt >hist.nz && mv hist.nz hist.txt
	return $rc
}

# slb_timerlat SECONDS [INTERVAL_US [HIST_US]]: rtla timerlat hist on the
# measured CPU(s) (CPU 0 when none), as cyclictest measures them: a timer
# every INTERVAL_US, the thread it wakes at SCHED_FIFO 95, 1 us buckets up
# to HIST_US. rtla's output in ./timerlat.txt; its IRQ and thread latency
# as cyclictest histograms (slb-timerlat) in ./timerlat-irq.txt and
# ./timerlat-thread.txt; rtla's and slb-timerlat's complaints, if any, in
# ./timerlat.err. SLB_RTLA names the rtla binary. Status: rtla's.
slb_timerlat() {
	cpus=$(slb_measured_cpus)
	[ -n "$cpus" ] || cpus=0
	"${SLB_RTLA:-rtla}" timerlat hist -c "$cpus" -d "$1" -p "${2:-1000}" -P f:95 -b 1 -E "${3:-20000}" \
		>timerlat.txt 2>timerlat.err
	rc=$?
	for c in irq thread; do
		slb-timerlat --context "$c" timerlat.txt >"timerlat-$c.txt" 2>>timerlat.err || rm -f "timerlat-$c.txt"
	done
	[ -s timerlat.err ] || rm -f timerlat.err
	return $rc
}

# slb_sld_counters FILE: the kernel's split-lock trap counters (patch/linux
# 0005) as key=value lines: traps, sigbus, resumed (#AC), buslock (#DB bus
# lock traps; not written by kernels without that counter), cpuN (#AC
# traps on CPU N) and last; "absent=1" without them.
slb_sld_counters() {
	d=/sys/kernel/debug/x86/split_lock
	if [ -d "$d" ]; then
		for k in traps sigbus resumed; do echo "$k=$(cat "$d/$k")"; done
		[ ! -f "$d/buslock" ] || echo "buslock=$(cat "$d/buslock")"
		while read -r c n; do echo "cpu$c=$n"; done <"$d/cpus"
		echo "last=$(cat "$d/last")"
	else
		echo "absent=1"
	fi >"$1"
}

# slb_sld_reset: zero the split-lock trap counters at once, if present.
slb_sld_reset() {
	[ -d /sys/kernel/debug/x86/split_lock ] || return 0
	echo 0 >/sys/kernel/debug/x86/split_lock/reset
}

# slb_run_load NAME ARGS...: run slb-load ARGS, recording NAME.json (its
# output), NAME.report.json (progress, also after a SIGBUS) and NAME.fate:
# "completed", "sigbus" (killed by SIGBUS, as detection intends) or
# "exit N".
slb_run_load() {
	n=$1
	shift
	slb-load --json --stats "${SLB_TMP:-/tmp}/$n.stats" "$@" >"$n.json" 2>"$n.err"
	rc=$?
	case $rc in
	0) echo completed ;;
	135) echo sigbus ;;
	*) echo "exit $rc" ;;
	esac >"$n.fate"
	slb-load --json --report "${SLB_TMP:-/tmp}/$n.stats" >"$n.report.json" 2>>"$n.err"
	return 0
}

# slb_trace_start MEASURED_CPUS SECONDS INTERVAL_US: trace cyclictest's
# wake-up path (slb-trace reads it) in a tracefs instance of its own, so
# that natively nothing of the machine's own tracing changes: the sleep's
# hrtimer (hrtimer_wakeup) armed and fired, cyclictest's wake-ups and
# switches, IPIs, IPI and irq entries (the local timer's on the measured
# CPUs only), slb-load's markers. Per-CPU buffer: room for about eight
# events per wake-up; the clock is mono, that of the timers' expiry. Sets
# SLB_TRACE_DIR (and the marker file in SLB_TRACE_MARKER); 1 with the
# reason in ./trace-skipped.txt when tracing cannot be had here.
slb_trace_start() {
	SLB_TRACE_DIR= SLB_TRACE_MARKER= SLB_TRACE_CPUS=${1:-0}
	# The guest mounts tracefs; natively only a mounted one is used (the
	# machine's mounts are not the rep's to change).
	t=/sys/kernel/tracing
	[ -d "$t/instances" ] || [ -n "${SLB_NATIVE:-}" ] || mount -t tracefs nodev "$t" 2>/dev/null
	[ -d "$t/instances" ] || [ ! -d /sys/kernel/debug/tracing/instances ] || t=/sys/kernel/debug/tracing
	if [ ! -d "$t/instances" ]; then
		if [ -n "${SLB_NATIVE:-}" ]; then
			echo "no tracefs mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing (natively the rep mounts nothing; mount tracefs as root to trace)" >trace-skipped.txt
		else
			echo "no tracefs at $t (a kernel without tracing?)" >trace-skipped.txt
		fi
		return 1
	fi
	i=$t/instances/slb-rep-$$
	if ! mkdir "$i" 2>/dev/null; then
		echo "cannot make a tracing instance $i (not root, or tracefs read-only)" >trace-skipped.txt
		return 1
	fi
	kb=$(awk -v s="$2" -v i="$3" 'BEGIN { k = int((s + 1) * 1e6 / i * 8 * 48 / 1024) + 256; if (k > 32768) k = 32768; print k }')
	cpuf=
	for c in $(slb_cpulist_expand "$SLB_TRACE_CPUS"); do cpuf="${cpuf:+$cpuf || }common_cpu == $c"; done
	echo "$kb" >"$i/buffer_size_kb" && echo mono >"$i/trace_clock" || {
		echo "cannot size the trace buffer ($kb KiB per CPU) or set its clock" >trace-skipped.txt
		rmdir "$i"
		return 1
	}
	missing=
	while read -r ev filter; do
		[ -d "$i/events/$ev" ] || { missing="$missing $ev"; continue; }
		[ -z "$filter" ] || echo "$filter" >"$i/events/$ev/filter" 2>/dev/null ||
			echo "filter refused: $ev: $filter" >>trace-facts.txt
		echo 1 >"$i/events/$ev/enable"
	done <<EVENTS
timer/hrtimer_start function.function == hrtimer_wakeup
timer/hrtimer_expire_entry function.function == hrtimer_wakeup
sched/sched_wakeup comm == "cyclictest"
sched/sched_switch prev_comm == "cyclictest" || next_comm == "cyclictest"
ipi/ipi_send_cpu
ipi/ipi_send_cpumask
irq_vectors/reschedule_entry
irq_vectors/call_function_entry
irq_vectors/call_function_single_entry
irq_vectors/local_timer_entry $cpuf
irq/irq_handler_entry
EVENTS
	for ev in timer/hrtimer_start timer/hrtimer_expire_entry sched/sched_wakeup sched/sched_switch; do
		case " $missing " in *" $ev "*)
			echo "the kernel lacks the event $ev" >trace-skipped.txt
			rmdir "$i" 2>/dev/null
			return 1 ;;
		esac
	done
	{
		echo "buffer_kb_per_cpu=$kb"
		echo "clock=mono"
		[ -z "$missing" ] || echo "events_missing=${missing# }"
	} >>trace-facts.txt
	echo 1 >"$i/tracing_on"
	SLB_TRACE_DIR=$i SLB_TRACE_MARKER=$i/trace_marker
	return 0
}

# slb_trace_off: stop recording (the trace stays for slb_trace_stop).
slb_trace_off() {
	[ -z "${SLB_TRACE_DIR:-}" ] || echo 0 >"$SLB_TRACE_DIR/tracing_on"
}

# slb_trace_stop: stop the trace of slb_trace_start, summarise it
# (./trace-summary.json and .txt, the worst wake-ups' raw lines in
# ./trace-worst.txt) and remove the instance; the raw trace goes.
slb_trace_stop() {
	[ -n "${SLB_TRACE_DIR:-}" ] || return 0
	echo 0 >"$SLB_TRACE_DIR/tracing_on"
	raw=${SLB_TMP:-/tmp}/trace.raw
	cat "$SLB_TRACE_DIR/trace" >"$raw"
	for s in "$SLB_TRACE_DIR"/per_cpu/cpu*/stats; do
		c=${s%/stats}
		echo "${c##*/}_overrun=$(sed -n 's/^overrun: //p' "$s")"
	done >>trace-facts.txt
	echo "raw_bytes=$(wc -c <"$raw")" >>trace-facts.txt
	# Only PREEMPT_RT marks an RT task's sleep HARD; a native kernel
	# without it marks none (its sleeps still expire in hard irq).
	soft=
	[ -e /sys/kernel/realtime ] || soft=--soft
	slb-trace --cpus "$SLB_TRACE_CPUS" $soft --json --text trace-summary.txt --excerpt trace-worst.txt "$raw" >trace-summary.json 2>trace-summary.err
	[ -s trace-summary.err ] || rm -f trace-summary.err
	rm -f "$raw"
	echo 0 >"$SLB_TRACE_DIR/events/enable"
	rmdir "$SLB_TRACE_DIR" 2>/dev/null
	SLB_TRACE_DIR=
	return 0
}
