# SPDX-License-Identifier: GPL-2.0-or-later
# Study target "guest" (the default): each rep boots the emulated guest
# (bench/target/run-guest.sh: QEMU TCG, --clock virtual or wall) with the
# scenario's kernel options and the built-in study job. Sourced by
# bench/study.sh after its option checks; it reads the study's variables
# (list, clock, s_vcpus, s_variant, s_cpu, ...).
#
# The interface every target (bench/target/<kind>.sh) provides:
#   target_check            check target options (usage_error); no side
#                           effects: runs for --validate too
#   target_ready            the prerequisites of a real run (usage_error)
#   target_prepare DIR      get ready; may write DIR/target.txt (facts);
#                           1 when it cannot (said why)
#   target_skip S           why scenario S cannot run here, as "reason<TAB>
#                           what would run it" (nothing: it runs)
#   target_manifest_args    key=value words for bench/manifest.sh
#   target_limit            wall-clock seconds one rep may take
#   target_job_env S REP    more job variable lines (shell) for the rep
#   target_start S REP DIR JOB LIMIT
#                           run one rep (the study puts it in the
#                           background): DIR/outcome.json and DIR/files/,
#                           the outcome word on stdout, exit 0 for ok
#   target_cleanup          remove what target_prepare made (idempotent)
#   target_noun, target_describe   words for the progress lines

target_noun() { echo guest; }
target_describe() { echo "clock $clock (emulated; QEMU TCG)"; }

target_check() {
	[ -z "$measure_cpu$load_cpus" ] ||
		usage_error "--measure-cpu/--load-cpus are for TARGET=native or ssh: the guest measures its last vCPU (set VCPUS)"
}

declare -A s_kernel=()
variant_dirs=() kernel_default=
target_ready() {
	local s v kdir
	# the series' kernel, found once (run-guest would hash its inputs again
	# for every rep)
	kernel_default=$("$SLB_ROOT/scripts/build-kernel.sh" --path)/build/arch/x86/boot/bzImage
	[ -n "${SLB_INITRD:-}" ] && [ -f "$SLB_INITRD" ] || usage_error "SLB_INITRD is not set to an initramfs (use make bench)"
	command -v "${SLB_QEMU:-qemu-system-x86_64}" >/dev/null ||
		usage_error "SLB_QEMU '${SLB_QEMU:-qemu-system-x86_64}' is not an executable (run 'make qemu', or use make bench)"
	for s in "${list[@]}"; do
		v=${s_variant[$s]}
		[ -n "$v" ] || continue
		kdir=$("$SLB_ROOT/scripts/build-kernel.sh" --path --variant "$v")
		s_kernel[$s]=$kdir/build/arch/x86/boot/bzImage
		[ -f "${s_kernel[$s]}" ] || usage_error "scenario $s needs the '$v' kernel: run 'make kernel-$v'"
		variant_dirs+=("kernel_$v=$kdir")
	done
	[ "$clock" = virtual ] || [ "$jobs" = 1 ] ||
		say "warning: JOBS=$jobs with CLOCK=wall: the guests compete for the host and the figures carry it"
	guest_preflight
}

# guest_preflight: what every rep of a scenario would be refused for stops
# the study before its first rep: run-guest --preflight (its own checks,
# then QEMU builds the machine, paused) once per guest the scenarios use.
# A refusal (a model parameter, a CPU model or property) is a usage error
# naming it; an emulator that does not run is a failure.
guest_preflight() {
	local s key out rc args
	declare -A seen=()
	[ -z "$task$finish" ] || return 0 # (a runner's task: the study checked)
	for s in "${list[@]}"; do
		key="${s_vcpus[$s]} ${s_isolated[$s]} ${s_iso[$s]} ${s_cpu[$s]} ${s_kernel[$s]:-} $(guest_bus_args "$s" | tr '\n' ' ')"
		[ -z "${seen[$key]:-}" ] || continue
		seen[$key]=1
		mapfile -t args < <(guest_args "$s" 1 60)
		out=$("$SLB_ROOT/bench/target/run-guest.sh" --preflight "${args[@]}" 2>&1)
		rc=$?
		out=$(printf '%s\n' "$out" | grep . | tail -n 1 | sed 's/^run-guest: \(error: \)\{0,1\}//')
		case $rc in
		0) ;;
		2) usage_error "scenario $s: its guest is refused, so every rep would be: $out" ;;
		*) die "scenario $s: its guest cannot start, so no rep could: $out" ;;
		esac
	done
}

# guest_bus_args S: the bus-lock model's options for scenario S's guest.
# A guest in which no split lock completes leaves the model nothing to do:
# no lock ever holds the bus, so no vCPU waits, and the model's cache,
# which only decides who waits, decides nothing. Such a guest runs without
# the cache, its cost and hold kept: the all-stall form, with no lock to
# stall on. It is the same guest instruction for instruction, its
# histogram and dmesg byte for byte (tests/t2008-bus-lock-calibrated.sh),
# for about three quarters of the host time of an aligned rep, whose every
# access the cache looked up. No split lock completes where the load
# issues none (none, or slb-load's aligned and inline modes), or where
# detection is fatal (guest_sld_fatal). Were a lock taken after all (the
# kernel's own; none is: with detection on, aligned-on's guest would
# panic), every vCPU would stall for its hold: seen in the figures, not
# hidden.
guest_bus_args() {
	local load mode=
	load=$(field "$1" 3)
	case $load in *slb-load:*) mode=${load#*slb-load:} mode=${mode%%:*} ;; esac
	if [ "$load" = none ] || [ "$mode" = aligned ] || [ "$mode" = inline ] || guest_sld_fatal "$1"; then
		printf '%s\n' --bus-lock-ns "$bus_lock_ns" --bus-hold-ns "$bus_hold_ns"
	else
		# shellcheck disable=SC2046
		printf '%s\n' $(bus_model_args)
	fi
}

# guest_sld_fatal S: scenario S's guest runs split-lock detection fatal, so
# that its split locks never complete: the #AC comes before the access, a
# user split lock is SIGBUS and a kernel one a panic. As patch/linux 0002
# reads the command line: the last split_lock_detect=VALUE decides, and a
# bare split_lock_detect (fatal) only where there is none. Only on the
# study's default CPU model, which enumerates detection (t2001), and the
# series' own kernel (a variant could drop 0002, which reads the bare word).
guest_sld_fatal() {
	local w words value= bare=
	[ "${s_cpu[$1]}" = "$CPU_DEFAULT" ] && [ -z "${s_variant[$1]}" ] || return 1
	read -r -a words <<<"$(field "$1" 2)"
	for w in "${words[@]}"; do
		case $w in
		split_lock_detect=*) value=${w#split_lock_detect=} ;;
		split_lock_detect) bare=1 ;;
		esac
	done
	[ "$value" = fatal ] || { [ -z "$value" ] && [ -n "$bare" ]; }
}

# guest_args S REP LIMIT: run-guest's options for rep REP of scenario S
# (its job, output directory and clock aside), a line each.
guest_args() {
	local s=$1
	printf '%s\n' --smp "${s_vcpus[$s]}" -c "${s_cpu[$s]}" --clock "$clock"
	[ "$clock" = wall ] || { guest_bus_args "$s"; printf '%s\n' --quantum-ns "$quantum_ns"; }
	printf '%s\n' --kernel "${s_kernel[$s]:-$kernel_default}"
	printf '%s\n' --isolate "${s_isolated[$s]:-1}" --isolation "${s_iso[$s]:-all}"
	printf '%s\n' --seed "$2" -a "$(field "$s" 2)" -t "$3"
}

target_prepare() { :; }
target_skip() { :; }
target_cleanup() { :; }
# The CPUs of a scenario's guest: the last isolated=N vCPUs measured, the
# others housekeeping. A guest whose kernel does not isolate the measured
# vCPUs (column 8's isolation= without isolcpus or isolcpus_nohz), or
# whose load sits elsewhere than on every housekeeping vCPU (offender=),
# tells the job its CPUs, as a native rep is told: SLB_MEASURE_CPUS and
# SLB_LOAD_CPUS (the offender's: CPU 0 for timekeeper, the housekeeping
# vCPUs but CPU 0 for other).
target_job_env() {
	local n=${s_vcpus[$1]} k=${s_isolated[$1]:-1} iso=${s_iso[$1]:-all} off=${s_offender[$1]:-housekeeping}
	local first hk load
	first=$((n - k))
	hk=0$([ "$first" = 1 ] || echo "-$((first - 1))")
	case $off in
	timekeeper) load=0 ;;
	other) load=1$([ "$first" = 2 ] || echo "-$((first - 1))") ;;
	*) load=$hk ;;
	esac
	if [ "$iso" != all ] && ! [[ +$iso+ =~ \+isolcpus(_nohz)?\+ ]]; then
		printf 'SLB_MEASURE_CPUS=%s SLB_LOAD_CPUS=%s\n' "$first$([ "$k" = 1 ] || echo "-$((n - 1))")" "$load"
	elif [ "$off" != housekeeping ]; then
		printf 'SLB_LOAD_CPUS=%s\n' "$load"
	fi
}

target_manifest_args() {
	echo vcpus="$vcpus" clock="$clock" cpu="$cpu"
	printf '%s\n' "${variant_dirs[@]}" | sort -u
	[ "$clock" = wall ] || echo bus_lock_model="$bus_model" bus_lock_ns="$bus_lock_ns" bus_hold_ns="$bus_hold_ns" \
		bus_cache_kb="$bus_cache_kb" bus_cache_ways="$bus_cache_ways" quantum_ns="$quantum_ns"
	[ "$clock" = wall ] || [ "$bus_model" = all ] || echo calibration="${calibration#"$SLB_ROOT"/}"
	# a calibration scaled to another cost: its own figures beside
	[ "$clock" = wall ] || [ "$bus_model" = all ] || [ "$bus_scaled" = 0 ] ||
		echo calibrated_cost_ns="$bus_cal_cost_ns" calibrated_hold_ns="$bus_cal_hold_ns"
}

# Wall-clock bound of one guest run: the virtual mode runs slower than
# real time when vCPUs are busy (all of them on one host thread).
target_limit() {
	# (MEASURE=both measures DURATION twice: phases)
	local d=$((duration * ${phases:-1}))
	if [ "$clock" = wall ]; then echo $((d + warmup + 180)); else echo $((8 * (d + warmup) + 300)); fi
}

# The seed of rep k is k.
target_start() {
	local s=$1 rep=$2 dir=$3 job=$4 limit=$5 args
	mapfile -t args < <(guest_args "$s" "$rep" "$limit")
	exec "$SLB_ROOT/bench/target/run-guest.sh" -o "$dir" -j "$job" "${args[@]}"
}
