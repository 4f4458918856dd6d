#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host runner: boot the study guest in QEMU TCG, run one job, collect its
# framed output, and classify the run. A watchdog bounds every boot; on
# timeout or Ctrl-C it kills its own QEMU by PID.
#
# Clock modes (--clock):
#   wall     multi-threaded TCG: each vCPU a host thread, guest time is
#            host time; a split lock stops the world (the emulated bus
#            lock). Figures carry host noise (millisecond floor).
#   virtual  single-threaded TCG with icount (1 instruction = 1 ns) and
#            lock-step quanta (--quantum-ns), so that vCPUs run as if in
#            parallel; a split lock costs its issuer --bus-lock-ns and
#            holds the bus that long (--bus-hold-ns if less): every vCPU
#            that runs into it waits, or with --bus-cache-kb only a data
#            access that misses that modelled cache (patch/qemu 0008-0009).
#            Deterministic: the same inputs and --seed give the same run.
#            With --snapshot on a guest boots once to /init and is kept;
#            runs start from it (bench/target/snapshot.sh).
#
# Outcomes (outcome.json "outcome", and the one line printed on stdout):
#   ok          the job ran, all output arrived, job exit status 0
#   job-failed  all output arrived, but the job exited non-zero
#   panic       the guest kernel panicked (console shows "Kernel panic")
#   timeout     the watchdog fired; QEMU was killed
#   truncated   output missing, cut short or corrupt (length or cksum)
#   qemu-failed QEMU itself could not start
# Any outcome but ok comes with a "reason" in outcome.json: the panic
# line, QEMU's exit (or the signal that ended it) and the last line it
# wrote, the job's exit status.
# --preflight checks the arguments and whether QEMU accepts them (it
# builds the machine, paused, and quits): no guest runs, nothing is
# written but a message on stderr.
# Exit status: 0 for ok (--preflight: accepted), 1 for any other outcome
# (--preflight: the emulator does not run), 2 for a usage error
# (--preflight: QEMU refused the arguments).
set -uo pipefail
SLB_PROG=run-guest
. "$(dirname "$0")/../../scripts/lib.sh"

usage() {
	cat <<USAGE
Usage: run-guest.sh -o DIR (-j FILE | -n NAME) [options]
Boot the guest, run one job, write DIR/{console.log,files/,outcome.json}
(and output.raw, the undecoded channel, when its output was incomplete).

  -o, --outdir DIR      results directory; must not exist yet
  -j, --job FILE        shell script to run in the guest (passed via fw_cfg)
  -n, --job-name NAME   built-in guest job (bench/guest/jobs/NAME.sh)
  -a, --append ARGS     extra kernel command line
  -s, --smp N           vCPUs, 2 to 8 (default ${SMP_DEFAULT})
      --isolate N       vCPUs isolated for measurement (default 1)
      --isolation I     the options that isolate them: all (isolcpus, nohz_full,
                        rcu_nocbs, irqaffinity; default), none (a plain command
                        line), or some of those and isolcpus_nohz (isolcpus'
                        nohz flag without nohz_full) joined by + (guest-cmdline.sh)
      --threads N       SMT threads per core: 1 or 2 (default 1)
  -m, --memory MB       guest memory (default ${MEM_DEFAULT})
      --ram KIND        what holds it on the host: memfd (4 KiB pages) or
                        anon (QEMU's default, transparent huge pages where
                        the host has them; make bench-boot) (default memfd)
  -c, --cpu MODEL       QEMU -cpu value (default \$SLB_CPU or ${CPU_DEFAULT})
      --clock MODE      wall or virtual (default \$SLB_CLOCK or ${CLOCK_DEFAULT})
      --bus-lock-ns N   virtual: ns a split lock costs its issuer (and holds
                        the bus), 0 to 1000000 (default ${BUS_LOCK_NS_DEFAULT})
      --bus-hold-ns N   virtual: ns it holds the bus if less, 0 (= the cost)
                        to --bus-lock-ns (default 0)
      --bus-cache-kb N  virtual: a vCPU waits for another's split lock only
                        at its data accesses that miss a cache of N KiB, 0
                        (waits wherever it meets one) to 65536 (default 0)
      --bus-cache-ways N  that cache's ways, 1 to 32, or 0 with no cache
                        (--bus-cache-kb 0) (default 8)
      --tsc-crystal on|off  virtual: CPUID tells the guest its TSC and APIC
                        timer rates (patch/qemu 0014; off: it measures them,
                        as with a QEMU without 0014) (default on)
      --quantum-ns N    virtual: lock-step quantum, 1000 to 10000000 ns, or 0
                        for plain icount (vCPUs one after another; tests)
                        (default ${QUANTUM_NS_DEFAULT})
      --seed N          virtual: guest RNG and slb.seed=N (with --snapshot
                        on: SLB_SEED=N in the job), 0 to 4294967295
                        (default 1)
      --snapshot on|off virtual: start from this guest booted to /init and
                        kept in the cache, booting it first if it is not
                        (on, bench/target/snapshot.sh), or boot it (off);
                        on needs no --qemu-arg and a job of at most 16 KiB,
                        else it boots (default \$SLB_SNAPSHOT or on)
  -t, --timeout SEC     watchdog for the whole boot, 0 = none (default ${TIMEOUT_DEFAULT})
      --kernel FILE     bzImage (default: the cached build)
      --initrd FILE     initramfs (default: \$SLB_INITRD)
      --qemu FILE       emulator (default \$SLB_QEMU or qemu-system-x86_64)
      --qemu-arg ARG    one more QEMU argument, repeatable (tests: -monitor,
                        -incoming to resume a migrated guest)
  -i, --interactive     console on this terminal, no watchdog (make shell)
      --json            print outcome.json instead of the outcome word
      --preflight       check the arguments and that QEMU accepts them, run
                        nothing (no --outdir needed); the study's check
                        before its first rep
  -h, --help            this text
USAGE
}

. "$SLB_ROOT/rt-config/defaults.conf"
SMP_DEFAULT=$VCPUS_DEFAULT
MEM_DEFAULT=512
TIMEOUT_DEFAULT=180

outdir= job= jobname= append= smp=$SMP_DEFAULT isolate=1 isolation=all threads=1 mem=$MEM_DEFAULT
cpu=${SLB_CPU:-$CPU_DEFAULT} timeout=$TIMEOUT_DEFAULT kernel= initrd=${SLB_INITRD:-}
qemu=${SLB_QEMU:-qemu-system-x86_64} interactive=0 json=0 extra=() preflight=0
clock=${SLB_CLOCK:-$CLOCK_DEFAULT} bus_lock_ns=$BUS_LOCK_NS_DEFAULT quantum_ns=$QUANTUM_NS_DEFAULT seed=1
bus_hold_ns=0 bus_cache_kb=0 bus_cache_ways=8 ram=memfd tsc_crystal=on snapshot=${SLB_SNAPSHOT:-on}

opts=$(getopt -n run-guest -o o:j:n:a:s:m:c:t:ih \
	-l outdir:,job:,job-name:,append:,smp:,isolate:,threads:,memory:,ram:,tsc-crystal:,cpu:,timeout:,kernel:,initrd:,qemu:,interactive,json,preflight,help \
	-l clock:,bus-lock-ns:,bus-hold-ns:,bus-cache-kb:,bus-cache-ways:,quantum-ns:,seed:,qemu-arg:,isolation:,snapshot: \
	-- "$@") || exit 2
eval set -- "$opts"
while true; do
	case $1 in
	-o | --outdir) outdir=$2; shift 2 ;;
	-j | --job) job=$2; shift 2 ;;
	-n | --job-name) jobname=$2; shift 2 ;;
	-a | --append) append=$2; shift 2 ;;
	-s | --smp) smp=$2; shift 2 ;;
	--isolate) isolate=$2; shift 2 ;;
	--isolation) isolation=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	-m | --memory) mem=$2; shift 2 ;;
	--ram) ram=$2; shift 2 ;;
	--tsc-crystal) tsc_crystal=$2; shift 2 ;;
	-c | --cpu) cpu=$2; shift 2 ;;
	-t | --timeout) timeout=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--qemu) qemu=$2; shift 2 ;;
	--qemu-arg) extra+=("$2"); shift 2 ;;
	--clock) clock=$2; shift 2 ;;
	--bus-lock-ns) bus_lock_ns=$2; shift 2 ;;
	--bus-hold-ns) bus_hold_ns=$2; shift 2 ;;
	--bus-cache-kb) bus_cache_kb=$2; shift 2 ;;
	--bus-cache-ways) bus_cache_ways=$2; shift 2 ;;
	--quantum-ns) quantum_ns=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--snapshot) snapshot=$2; shift 2 ;;
	-i | --interactive) interactive=1; shift ;;
	--json) json=1; shift ;;
	--preflight) preflight=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	esac
done
[ $# -eq 0 ] || usage_error "unexpected argument '$1' (see --help)"
if [ "$preflight" = 1 ]; then
	[ -z "$outdir" ] || usage_error "--preflight writes nothing: give no --outdir"
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/slb-preflight.XXXXXX")/run || die "cannot create a temporary directory"
	pretmp=${outdir%/run}
fi
[ -n "$outdir" ] || usage_error "--outdir is required (see --help)"
[ ! -e "$outdir" ] || usage_error "--outdir '$outdir' exists; refusing to overwrite earlier results"
if [ -n "$job" ]; then
	[ -z "$jobname" ] || usage_error "give --job or --job-name, not both"
	[ -f "$job" ] || usage_error "--job '$job' is not a file"
elif [ -n "$jobname" ]; then
	[ -f "$SLB_ROOT/bench/guest/jobs/$jobname.sh" ] ||
		usage_error "--job-name '$jobname' is not a built-in job (allowed: $(cd "$SLB_ROOT/bench/guest/jobs" && ls | sed 's/\.sh$//' | tr '\n' ' '))"
fi
check_number --smp "$smp" 2 8
check_number --isolate "$isolate" 1 $((smp - 1))
iso_word='(isolcpus|isolcpus_nohz|nohz_full|rcu_nocbs|irqaffinity)'
[[ $isolation =~ ^(all|none|$iso_word(\+$iso_word)*)$ ]] ||
	usage_error "--isolation '$isolation' is not allowed (allowed: all, none, or isolcpus, isolcpus_nohz, nohz_full, rcu_nocbs, irqaffinity joined by +)"
check_number --threads "$threads" 1 2
[ $((smp % threads)) -eq 0 ] || usage_error "--smp $smp is not a multiple of --threads $threads"
# 256 MB at least: the plain 43 MB initramfs is in RAM twice while it
# unpacks (at 128 MB "Initramfs unpacking failed: write error")
check_number --memory "$mem" 256 16384
check_choice --ram "$ram" memfd anon
check_choice --tsc-crystal "$tsc_crystal" on off
check_number --timeout "$timeout" 0 86400
check_choice --clock "$clock" wall virtual
check_number --bus-lock-ns "$bus_lock_ns" 0 1000000
check_number --bus-hold-ns "$bus_hold_ns" 0 "$bus_lock_ns"
check_number --bus-cache-kb "$bus_cache_kb" 0 65536
# ways 0 only with no cache: the model without a shield, as cal_model
# (bench/lib/calibration.jq) gives it
check_number --bus-cache-ways "$bus_cache_ways" "$([ "$bus_cache_kb" = 0 ] && echo 0 || echo 1)" 32
[ "$quantum_ns" = 0 ] || check_number --quantum-ns "$quantum_ns" 1000 10000000
check_number --seed "$seed" 0 4294967295
check_choice --snapshot "$snapshot" on off
[ -n "$kernel" ] || kernel=$("$SLB_ROOT/scripts/build-kernel.sh" --path)/build/arch/x86/boot/bzImage
[ -f "$kernel" ] || usage_error "--kernel '$kernel' does not exist (run 'make kernel')"
[ -n "$initrd" ] || usage_error "--initrd is required (or set SLB_INITRD; 'make initramfs' builds one)"
[ -f "$initrd" ] || usage_error "--initrd '$initrd' does not exist (run 'make initramfs')"
command -v "$qemu" >/dev/null || usage_error "--qemu '$qemu' is not an executable (run 'make qemu' or 'make deps')"
UNFRAME=${SLB_UNFRAME:-$SLB_ROOT/build/host/slb-unframe}
[ -x "$UNFRAME" ] || usage_error "$UNFRAME missing (run 'make')"

. "$SLB_ROOT/bench/target/snapshot.sh"
# A snapshot only where nothing but the job and the seed differ from run
# to run, and the job fits the size the guest reads at the snapshot point.
[ "$clock" = virtual ] && [ "$interactive" = 0 ] && [ ${#extra[@]} = 0 ] || snapshot=off
snapdir=
trap 'rm -rf ${snapdir:+"$snapdir"} ${pretmp:+"$pretmp"}' EXIT
if [ "$snapshot" = on ]; then
	snapdir=$(mktemp -d "${TMPDIR:-/tmp}/slb-run-guest.XXXXXX") || die "cannot create a temporary directory"
	if [ -n "$jobname" ]; then
		printf '. /jobs/%s.sh\n' "$jobname" >"$snapdir/named.job"
		snap_job "$snapdir/named.job" "$seed" "$snapdir/job"
	else
		snap_job "$job" "$seed" "$snapdir/job"
	fi || snapshot=off
fi

cmdline="$("$SLB_ROOT/rt-config/guest-cmdline.sh" "$smp" "$isolate" "$isolation")" || exit 2
[ -z "$jobname" ] || cmdline="$cmdline slb.job=$jobname"
if [ "$snapshot" = on ]; then
	cmdline="$cmdline slb.snapshot=1"
elif [ "$clock" != wall ]; then
	cmdline="$cmdline slb.seed=$seed"
fi
[ -z "$append" ] || cmdline="$cmdline $append"

mkdir -p "$outdir" || die "cannot create $outdir"
qpid=
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		wait_timeout "$qpid" 3 || kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	mon_close
	rm -rf ${snapdir:+"$snapdir"}
}
trap 'cleanup; say "interrupted; QEMU killed"; exit 130' INT TERM HUP

# bus_cpu_props: the -cpu properties of the bus-lock model beyond its cost
# (patch/qemu 0008-0009); none for the all-stall model.
bus_cpu_props() {
	[ "$bus_hold_ns" = 0 ] || printf ',bus-hold-ns=%s' "$bus_hold_ns"
	[ "$bus_cache_kb" = 0 ] || printf ',bus-cache-kb=%s,bus-cache-ways=%s' "$bus_cache_kb" "$bus_cache_ways"
}

# Firmware from Debian's seabios/qemu-system-data packages: our QEMU build
# ships no blobs of its own (the dfsg source has none). qboot, a minimal
# BIOS that only loads the -kernel/-initrd from fw_cfg, starts the kernel
# sooner than SeaBIOS's POST, which would run emulated in every rep; the
# guest sees the same ACPI tables and devices (QEMU makes them).
args=(-L /usr/share/seabios -L /usr/share/qemu -machine pc -bios qboot.rom)
if [ "$clock" = wall ]; then
	args+=(-accel tcg,thread=multi -cpu "$cpu")
else
	# 1 instruction = 1 ns, no sleeping: guest time is instruction time; a
	# fixed RTC base and RNG seed leave nothing to the host. tsc-crystal
	# (patch/qemu 0014): CPUID tells the guest that its TSC and APIC timer
	# run at 1 GHz, which they do here, so that it does not spend 100
	# million instructions of every boot measuring the APIC timer.
	args+=(-accel "tcg,thread=single,lockstep=$quantum_ns" -icount shift=0,sleep=off,align=off
		-rtc clock=vm,base=2026-01-01T00:00:00
		-cpu "$cpu$([ "$tsc_crystal" = off ] || echo ,tsc-crystal=on),bus-lock-ns=$bus_lock_ns$(bus_cpu_props)")
fi
args+=(-smp "$smp,threads=$threads" -m "$mem" -nodefaults -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline")
# The seed: none under the wall clock; the kept guest's is 0, the run's
# its own from the start (or from the restore) on.
seed_args=()
[ "$clock" = wall ] || seed_args=(-seed "$seed")
# Output channel: isa-debugcon at port 0xe9 into a host file (slb-frame).
# out_args FILE
out_args() { printf '%s\n' -chardev "file,id=slbout,path=$1" -device isa-debugcon,iobase=0xe9,chardev=slbout; }
# The job; with a kept guest, the device that stops it at the snapshot
# point, where slb-pause asks (pause), or that lets it go on (none: the
# run boots). Then the output channel.
# job_args PANIC_ACTION OUTPUT_FILE
job_args() {
	if [ "$snapshot" = on ]; then
		printf '%s\n' -fw_cfg "name=opt/slb/job,file=$snapdir/job" -device pvpanic -action "panic=$1"
	elif [ -n "$job" ]; then
		printf '%s\n' -fw_cfg "name=opt/slb/job,file=$job"
	fi
	out_args "$2"
}
# Guest RAM in a memfd (shmem, 4 KiB pages) rather than anonymous memory,
# which QEMU asks to be backed by transparent huge pages: the host then
# clears each 2 MiB the guest first touches in full, a cost make
# bench-boot measures. The guest sees the same RAM either way. (A kept
# guest has its RAM in a file: bench/target/snapshot.sh.)
boot_args=(${seed_args[@]+"${seed_args[@]}"})
mapfile -t -O "${#boot_args[@]}" boot_args < <(job_args none "$outdir/output.raw")
[ "$ram" = anon ] || boot_args+=(-object "memory-backend-memfd,id=ram,size=${mem}M" -machine memory-backend=ram)
if [ "$interactive" = 1 ]; then
	boot_args+=(-serial mon:stdio)
else
	boot_args+=(-serial "file:$outdir/console.log")
fi
printf '%s\n' "$cmdline" >"$outdir/cmdline"

# --preflight: the emulator runs, and builds this machine (the CPU model
# and its properties, memory, kernel and image) paused, then quits.
# A refusal is QEMU's own message ("qemu-system-x86_64: ..."); anything
# else that fails is an emulator that does not run.
if [ "$preflight" = 1 ]; then
	out=$({ echo quit | timeout 60 "$qemu" "${args[@]}" "${boot_args[@]}" ${extra[@]+"${extra[@]}"} -S -monitor stdio >/dev/null; } 2>&1)
	rc=$?
	[ "$rc" != 124 ] || die "QEMU did not quit within 60 s of a paused start"
	[ "$rc" != 0 ] || exit 0
	refusal=$(printf '%s\n' "$out" | grep -v ': warning: ' | grep '^[^ ]*qemu[^ ]*: ' | tail -n 1)
	[ -n "$refusal" ] || die "the emulator '$qemu' does not run: it exited $rc ($(printf '%s\n' "$out" | grep . | tail -n 1 | grep . || echo "no output"))"
	usage_error "QEMU refuses this guest (-cpu $cpu...): ${refusal#*: }"
fi

# The kept guest, booted now if it is not kept yet (its key: all but the
# seed, the job's and the output's paths). Where it cannot be made (the
# guest never gets to /init: it panics, hangs or QEMU fails), the run
# boots instead, the snapshot point let through, and its outcome says why.
snap=
if [ "$snapshot" = on ]; then
	snapkey=$(snap_key "$(command -v "$qemu")" "$kernel" "$initrd" "${args[@]}" pvpanic "$SNAP_JOB_BYTES") ||
		die "cannot hash the guest's inputs"
	mapfile -t snapargs < <(job_args pause "$snapdir/boot.raw")
	snap=$(snap_get "$snapkey" "$qemu" "$([ "$timeout" -gt 0 ] && echo "$timeout" || echo 600)" "$mem" \
		"${args[@]}" -seed 0 "${snapargs[@]}" 2>"$snapdir/snap.err")
	[ -n "$snap" ] || say "no snapshot of this guest ($(tail -n 1 "$snapdir/snap.err")): booting it"
fi
if [ -n "$snap" ]; then
	cp "$snap/console.log" "$outdir/console.log" || die "cannot copy $snap/console.log"
	mon_open "$snapdir" || die "cannot make the monitor's pipes in $snapdir"
	args+=(${seed_args[@]+"${seed_args[@]}"})
	mapfile -t -O "${#args[@]}" args < <(job_args pause "$outdir/output.raw"; snap_ram "$snap/ram" "$mem" off)
	args+=(-chardev "file,id=con,path=$outdir/console.log,append=on" -serial chardev:con
		-monitor "pipe:$snapdir/mon" -incoming defer)
else
	args+=("${boot_args[@]}")
fi
args+=(${extra[@]+"${extra[@]}"})
printf '%q ' "$qemu" "${args[@]}" >"$outdir/qemu-cmd" && echo >>"$outdir/qemu-cmd"

start=$(date +%s.%N)
if [ "$interactive" = 1 ]; then
	"$qemu" "${args[@]}"
	qrc=$?
	timed_out=0
else
	"$qemu" "${args[@]}" </dev/null 2>"$outdir/qemu.stderr" &
	qpid=$!
	timed_out=0
	if [ -n "$snap" ] && ! snap_start "$snapdir" "$snap" "$qpid" 2>>"$outdir/qemu.stderr"; then
		kill -KILL "$qpid" 2>/dev/null
	fi
	limit=$timeout
	[ "$limit" -gt 0 ] || limit=$((1 << 30))
	waited=0
	# Poll in 1 s steps: stop early when the console shows a panic and QEMU
	# does not exit on its own (panic=-1 should make it exit at once).
	while ! wait_timeout "$qpid" 1; do
		waited=$((waited + 1))
		if [ "$waited" -ge "$limit" ]; then
			timed_out=1
			break
		fi
		if grep -q 'Kernel panic - not syncing' "$outdir/console.log" 2>/dev/null && ! wait_timeout "$qpid" 5; then
			break
		fi
	done
	cleanup
	wait "$qpid" 2>/dev/null
	qrc=$?
	qpid=
fi
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')

"$UNFRAME" --outdir "$outdir/files" --json "$outdir/output.raw" >"$outdir/frames.json" 2>"$outdir/frames.err"
frc=$?
job_status=$(sed -n 's/.*"job_status": *\(-\{0,1\}[0-9]*\).*/\1/p' "$outdir/frames.json")
panic_line=$(grep -a -m1 -o 'Kernel panic - not syncing.*' "$outdir/console.log" 2>/dev/null | tr -d '\000-\037')

# The raw channel is kept only where it helps: when decoding failed.
[ "$frc" -ne 0 ] || rm -f "$outdir/output.raw"

if [ "$timed_out" = 1 ]; then
	outcome=timeout
elif [ -n "$panic_line" ]; then
	outcome=panic
elif [ "$frc" -ne 0 ] && [ ! -s "$outdir/console.log" ] && [ "$interactive" = 0 ]; then
	outcome=qemu-failed
elif [ "$frc" -ne 0 ]; then
	outcome=truncated
elif [ "${job_status:-1}" != 0 ]; then
	outcome=job-failed
else
	outcome=ok
fi

# Why a run did not end ok, in one line.
last_line() { tr -d '\000-\010\016-\037' <"$1" 2>/dev/null | grep . | tail -n 1 | cut -c1-300; }
exit_words() { # exit_words STATUS: "exited N" or "was killed by SIGNAME"
	if [ "$1" -gt 128 ] && kill -l "$(($1 - 128))" >/dev/null 2>&1; then
		echo "was killed by SIG$(kill -l "$(($1 - 128))")"
	else
		echo "exited $1"
	fi
}
qemu_words="QEMU $(exit_words "$qrc")$(l=$(last_line "$outdir/qemu.stderr"); [ -z "$l" ] || echo ": $l")"
case $outcome in
ok) reason= ;;
timeout) reason="no end within the watchdog's $timeout s: QEMU was killed" ;;
panic) reason=$panic_line ;;
qemu-failed) reason="$qemu_words, before the guest wrote anything" ;;
truncated) reason="the job's output stopped short ($(last_line "$outdir/frames.err" | grep . || echo "no frame")); $qemu_words" ;;
job-failed) reason="the job exited ${job_status:-?} (its output: console.log)" ;;
esac

# jq writes the JSON, so a quote in a panic line or a CPU model cannot break it.
jq -n --arg outcome "$outcome" --arg reason "$reason" --arg job_status "${job_status:-}" --arg panic "$panic_line" \
	--argjson qemu_exit "$qrc" --argjson elapsed_s "$elapsed" --argjson timeout_s "$timeout" \
	--argjson smp "$smp" --argjson threads "$threads" --argjson isolate "$isolate" \
	--argjson memory_mb "$mem" --arg cpu "$cpu" --arg clock "$clock" --arg kernel "$kernel" \
	--argjson bus_lock_ns "$bus_lock_ns" --argjson quantum_ns "$quantum_ns" --argjson seed "$seed" \
	--arg snapshot "${snap:+$snapkey}" \
	'{outcome: $outcome} + (if $reason == "" then {} else {reason: $reason} end)
	 + {job_status: ($job_status | if . == "" then null else tonumber end),
	  panic: $panic, qemu_exit: $qemu_exit, elapsed_s: $elapsed_s, timeout_s: $timeout_s,
	  smp: $smp, threads: $threads, isolate: $isolate, memory_mb: $memory_mb, cpu: $cpu,
	  clock: $clock, kernel: $kernel}
	 + (if $clock == "virtual" then {bus_lock_ns: $bus_lock_ns, quantum_ns: $quantum_ns, seed: $seed,
	    snapshot: (if $snapshot == "" then null else $snapshot end)} else {} end)' \
	>"$outdir/outcome.json" || die "could not write $outdir/outcome.json"
if [ "$json" = 1 ]; then cat "$outdir/outcome.json"; else echo "$outcome"; fi
[ "$outcome" = ok ]
