# SPDX-License-Identifier: GPL-2.0-or-later
# Study targets "native" (this machine's running kernel) and
# "ssh:[user@]host[:port]" (another machine's, over ssh): each rep runs
# the guest's study job (bench/guest/jobs/study.sh) through
# bench/target/run-native.sh on the running kernel, cyclictest on the
# measured CPU (--measure-cpu, default the last online), slb-load on the
# load CPUs (--load-cpus, default all others). Nothing in the kernel is
# changed or loaded: the machine's split-lock detection state is read
# (bench/target/detect.sh: CPU flags, command line, kernel log, sysctls)
# and a scenario whose kernel options, sysctls or machine (column 8) do
# not match it is skipped with the reason and what would run it (another
# boot, a sysctl, another CPU). Sourced by bench/study.sh; the interface
# is documented in bench/target/guest.sh.
# ssh: the tools (static slb-load and slb-histcompact, slb-lib.sh, the job,
# rep.sh, detect.sh)
# go to a mktemp directory there (under SLB_REMOTE_TMPDIR, a directory on
# the target, default /tmp), are
# removed at the end and on Ctrl-C; cyclictest must be installed there.
# SLB_CYCLICTEST names the cyclictest binary on the target (default:
# cyclictest from PATH), SLB_RTLA the rtla binary (--measure timerlat or
# both; default rtla from PATH).

ssh_dest= ssh_port= remote_dir= stage=
declare -A tf=()

target_noun() { echo "$target"; }
target_describe() { echo "on the running kernel of $(tf_get hostname) (real time, no emulator)"; }

# ssh_cmd ARGS...: ssh to the target, batch mode (no password prompts).
ssh_cmd() {
	# shellcheck disable=SC2086 # SLB_SSH_OPTS is a list of options
	ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=3 \
		${ssh_port:+-p "$ssh_port"} ${SLB_SSH_OPTS:-} "$ssh_dest" "$@"
}

# on_target SHELL-COMMAND: run a command on the target (sh -c there).
on_target() {
	if [ -n "$ssh_dest" ]; then ssh_cmd "$1"; else sh -c "$1"; fi
}

tf_get() { echo "${tf[$1]:-}"; }

target_check() {
	local hp
	if [[ $target == ssh:* ]]; then
		hp=${target#ssh:}
		[[ $hp =~ ^([A-Za-z0-9._-]+@)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]+)?$ ]] ||
			usage_error "TARGET '$target' is not ssh:[user@]host[:port]"
		ssh_dest=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
		ssh_dest=${ssh_dest/[/} ssh_dest=${ssh_dest/]/}
		ssh_port=${BASH_REMATCH[3]#:}
		[ -z "$ssh_port" ] || check_number "TARGET ssh port" "$ssh_port" 1 65535
		command -v ssh >/dev/null || usage_error "TARGET=$target needs ssh (Debian openssh-client: make deps)"
	fi
	[ -z "$measure_cpu" ] || check_number MEASURE_CPU "$measure_cpu" 0 4095
	[ -z "$load_cpus" ] || [[ $load_cpus =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
		usage_error "LOAD_CPUS '$load_cpus' is not a CPU list (e.g. 0 or 0,2 or 0-2)"
	# One rep at a time: two on one machine would measure each other.
	jobs=1
	[ -n "$ssh_dest" ] || [ "$(id -u)" = 0 ] ||
		usage_error "TARGET=native needs root: cyclictest runs SCHED_FIFO 95 with mlockall (run make bench as root)"
}

# The static tools (build/guest) a native rep runs: found there locally,
# copied to an ssh target.
NATIVE_TOOLS=(slb-load slb-histcompact slb-timerlat slb-trace)

target_ready() {
	local p
	for p in "${NATIVE_TOOLS[@]}"; do
		[ -x "$SLB_ROOT/build/guest/$p" ] || usage_error "$SLB_ROOT/build/guest/$p missing (run make)"
	done
}

# cpus_expand LIST: "0-2,5" -> "0 1 2 5"
cpus_expand() {
	local r
	for r in ${1//,/ }; do
		if [[ $r == *-* ]]; then seq "${r%-*}" "${r#*-}"; else echo "$r"; fi
	done | tr '\n' ' '
}

# The mode the kernel runs split-lock detection in (off, warn, fatal,
# ratelimit:N, unknown) and where that was read, from the facts.
sld_mode= sld_source=
derive_mode() {
	local line=${tf[dmesg_split_lock]:-} opt=${tf[cmdline_split_lock_detect]:-none}
	if [ "$(tf_get flag_split_lock_detect)" = no ] && [ "$(tf_get flag_bus_lock_detect)" = no ]; then
		sld_mode=off sld_source="this CPU has no split-lock detection (neither split_lock_detect nor bus_lock_detect in /proc/cpuinfo)"
	elif [ -n "$line" ]; then
		sld_source="kernel log: $line"
		case $line in
		*"enabled, mode "*) sld_mode=${line#*enabled, mode }; sld_mode=${sld_mode%%|*} ;;
		disabled*) sld_mode=off ;;
		*"sending SIGBUS"*) sld_mode=fatal ;;
		*"warning on user-space"*) sld_mode=warn ;;
		*"rate limit to "*) sld_mode=ratelimit:${line##*rate limit to }; sld_mode=${sld_mode%%|*} ;;
		*) sld_mode=unknown ;;
		esac
	else
		case $opt in
		none) sld_mode=warn sld_source="no split_lock_detect= on the command line: the kernel's default (warn upstream; the kernel log was not readable)" ;;
		bare) sld_mode=unknown sld_source="a bare split_lock_detect on the command line (fatal with this project's series, ignored upstream) and no readable kernel log" ;;
		*) sld_mode=$opt sld_source="command line: split_lock_detect=$opt (kernel log not readable)" ;;
		esac
	fi
}

target_prepare() {
	local dir=$1 err k v
	if [ -n "$ssh_dest" ]; then
		stage=$(mktemp -d "${TMPDIR:-/tmp}/slb-stage.XXXXXX") || return 1
		mkdir -p "$stage/bin" "$stage/jobs"
		cp "${NATIVE_TOOLS[@]/#/$SLB_ROOT/build/guest/}" "$stage/bin/" &&
			cp "$SLB_ROOT/bench/guest/slb-lib.sh" "$SLB_ROOT/bench/target/rep.sh" "$SLB_ROOT/bench/target/detect.sh" "$stage/" &&
			cp "$SLB_ROOT/bench/guest/jobs/study.sh" "$stage/jobs/" || { rm -rf "$stage"; return 1; }
		say "connecting to $ssh_dest${ssh_port:+ port $ssh_port}"
		remote_dir=$(ssh_cmd "mktemp -d '${SLB_REMOTE_TMPDIR:-/tmp}/slb-target.XXXXXX'" 2>"$dir/ssh.err" </dev/null)
		if [ -z "$remote_dir" ]; then
			err=$(grep -v '^Warning: Permanently added' "$dir/ssh.err" | tail -n 1)
			say "error: cannot reach ssh target '${target#ssh:}': ${err:-no temporary directory made there}"
			rm -rf "$stage"
			return 1
		fi
		rm -f "$dir/ssh.err"
		tar -C "$stage" -cf - . | ssh_cmd "tar -C '$remote_dir' -xf -" ||
			{ say "error: could not copy the tools to $ssh_dest:$remote_dir"; target_cleanup; return 1; }
		say "tools copied to $ssh_dest:$remote_dir (removed at the end)"
		ssh_cmd "${SLB_CYCLICTEST:+SLB_CYCLICTEST='$SLB_CYCLICTEST' }${SLB_RTLA:+SLB_RTLA='$SLB_RTLA' }sh '$remote_dir/detect.sh'" </dev/null >"$dir/target.txt" 2>/dev/null ||
			{ say "error: could not read the facts of $ssh_dest"; target_cleanup; return 1; }
		echo "machine=$(ssh_cmd 'uname -m' </dev/null)" >>"$dir/target.txt"
	else
		SLB_LIB=$SLB_ROOT/bench/guest/slb-lib.sh sh "$SLB_ROOT/bench/target/detect.sh" >"$dir/target.txt" || return 1
		echo "machine=$(uname -m)" >>"$dir/target.txt"
	fi
	# Tests stand in for another machine: SLB_TARGET_FACTS, a file of
	# key=value lines, replaces facts read (recorded as simulated).
	if [ -n "${SLB_TARGET_FACTS:-}" ]; then
		cat "$SLB_TARGET_FACTS" >>"$dir/target.txt"
		echo "simulated=$(cut -d= -f1 "$SLB_TARGET_FACTS" | paste -sd, -)" >>"$dir/target.txt"
	fi
	while IFS='=' read -r k v; do tf[$k]=$v; done <"$dir/target.txt"
	# What the target must have; a bad CPU choice is a usage error.
	local where=${ssh_dest:-this machine} online cpus=() c hk=()
	fail() { target_cleanup; rm -rf "$dir"; usage_error "$@"; }
	[ "$(tf_get machine)" = x86_64 ] || fail "TARGET=$target is $(tf_get machine), not x86_64: split locks are an x86 matter"
	[ "$(tf_get uid)" = 0 ] || fail "TARGET=$target needs root there: cyclictest runs SCHED_FIFO 95 with mlockall (log in as root)"
	[ -n "$(tf_get cyclictest)" ] ||
		fail "cyclictest ('${SLB_CYCLICTEST:-cyclictest}') is not installed on $where: install Debian rt-tests there (make deps does here)"
	online=$(tf_get cpus_online_list)
	read -r -a cpus <<<"$(cpus_expand "$online")"
	[ ${#cpus[@]} -ge 2 ] ||
		fail "$where has one CPU ($online): the study needs one CPU to measure and another for the load"
	[ -n "$measure_cpu" ] || measure_cpu=${cpus[-1]}
	[[ " ${cpus[*]} " == *" $measure_cpu "* ]] || fail "MEASURE_CPU $measure_cpu does not exist on $where (online: $online)"
	if [ -n "$load_cpus" ]; then
		for c in $(cpus_expand "$load_cpus"); do
			[[ " ${cpus[*]} " == *" $c "* ]] || fail "LOAD_CPUS '$load_cpus': CPU $c does not exist on $where (online: $online)"
			[ "$c" != "$measure_cpu" ] || fail "LOAD_CPUS '$load_cpus' includes the measured CPU $measure_cpu"
		done
	else
		for c in "${cpus[@]}"; do [ "$c" = "$measure_cpu" ] || hk+=("$c"); done
		load_cpus=$(IFS=,; echo "${hk[*]}")
	fi
	local isolated=yes
	[[ " $(cpus_expand "$(tf_get cpus_isolated)") " == *" $measure_cpu "* ]] || isolated=no
	[ "$isolated" = yes ] ||
		say "warning: the measured CPU $measure_cpu is not isolated on $where (isolcpus: '$(tf_get cpus_isolated)'): other tasks may run there, and the figures carry them"
	derive_mode
	say "$where: $(tf_get cpu_model), kernel $(tf_get kernel_release) (PREEMPT_RT $(tf_get preempt_rt)); split-lock detection: $sld_mode ($sld_source)"
	say "measuring CPU $measure_cpu, load on CPU(s) $load_cpus"
	printf 'sld_mode=%s\nsld_source=%s\nmeasure_cpu=%s\nmeasured_isolated=%s\nload_cpus=%s\ntarget=%s\n' \
		"$sld_mode" "$sld_source" "$measure_cpu" "$isolated" "$load_cpus" "$target" >>"$dir/target.txt"
	[ "$(tf_get flag_hypervisor)" = no ] ||
		say "note: $where is a virtual machine (hypervisor flag): real hardware through a hypervisor, whose scheduling of vCPUs is in the figures"
	return 0
}

# need_mode WORD: the split-lock mode a kernel option asks for.
need_mode() {
	case $1 in
	split_lock_detect) echo fatal ;; # the seed's bare switch (patch 0002)
	split_lock_detect=*) echo "${1#split_lock_detect=}" ;;
	esac
}

# has_flag F: the target's CPU has flag F (/proc/cpuinfo).
has_flag() {
	if [ -n "${tf[flag_$1]+x}" ]; then [ "${tf[flag_$1]}" = yes ]; else [[ " $(tf_get cpu_flags) " == *" $1 "* ]]; fi
}

declare -A sysctl_now=()
target_skip() {
	local s=$1 w need why=() next=() kv key want have n ncpu flag
	for w in $(field "$s" 2); do
		need=$(need_mode "$w")
		if [ -z "$need" ]; then
			[[ " $(tf_get cmdline) " == *" $w "* ]] ||
				{ why+=("needs $w on the kernel command line; this kernel lacks it"); next+=("boot with $w"); }
			continue
		fi
		[ "$need" = "$sld_mode" ] && continue
		if [ "$need" != off ] && [ "$(tf_get flag_split_lock_detect)" = no ] && [ "$(tf_get flag_bus_lock_detect)" = no ]; then
			why+=("needs split_lock_detect=$need; this CPU has no split-lock detection")
			next+=("a CPU with split-lock detection")
		elif [[ $need == ratelimit:* ]] && [ "$(tf_get flag_bus_lock_detect)" = no ]; then
			why+=("needs split_lock_detect=$need, which works by bus-lock detection (#DB); this CPU has none")
			next+=("a CPU with bus_lock_detect")
		else
			why+=("needs split_lock_detect=$need; this kernel runs $sld_mode")
			next+=("boot with split_lock_detect=$need")
		fi
	done
	for kv in $(field "$s" 4); do
		key=${kv%%=*} want=${kv#*=}
		[ -n "${sysctl_now[$key]+x}" ] ||
			sysctl_now[$key]=$(on_target "cat /proc/sys/${key//.//} 2>/dev/null" </dev/null)
		have=${sysctl_now[$key]:-absent}
		[ "$have" = "$want" ] ||
			{ why+=("needs sysctl $key=$want; this kernel has $have (the study sets none natively)"); next+=("sysctl -w $key=$want"); }
	done
	# --measure timerlat or both: rtla, and tracefs with the timerlat tracer
	# (read by detect.sh; the study mounts nothing on a native target)
	if [ "$measure" != cyclictest ]; then
		[ -n "$(tf_get rtla)" ] ||
			{ why+=("MEASURE=$measure needs rtla; the target has none"); next+=("install Debian rtla there (make deps does here)"); }
		if [ -z "$(tf_get tracefs)" ]; then
			why+=("MEASURE=$measure needs tracefs, which is not mounted (or not readable) at /sys/kernel/tracing")
			next+=("mount -t tracefs nodev /sys/kernel/tracing on a kernel with CONFIG_TIMERLAT_TRACER")
		elif [ "$(tf_get timerlat_tracer)" != yes ]; then
			why+=("MEASURE=$measure needs the timerlat tracer; $(tf_get tracefs)/available_tracers lacks it")
			next+=("a kernel with CONFIG_TIMERLAT_TRACER")
		fi
	fi
	case $(field "$s" 3) in
	stress-ng:*) [ -n "$(tf_get stress_ng)" ] || { why+=("needs stress-ng; the target has none"); next+=("install stress-ng"); } ;;
	esac
	for kv in $(field "$s" 8 | tr ',' ' '); do
		case $kv in
		vcpus=*)
			n=${kv#vcpus=}
			ncpu=$(($(cpus_expand "$load_cpus" | wc -w) + 1))
			[ "$ncpu" -ge "$n" ] || { why+=("needs $n CPUs (one measured, the others loaded); this run has $ncpu"); next+=("a machine with $n CPUs"); } ;;
		kernel=*) why+=("needs the kernel variant '${kv#kernel=}', a guest build (scripts/build-kernel.sh), not this machine's kernel"); next+=("TARGET=guest") ;;
		isolated=1 | offender=housekeeping) ;;
		isolated=*) why+=("measures ${kv#isolated=} isolated CPUs; a native rep measures one (--measure-cpu)"); next+=("TARGET=guest") ;;
		offender=*) why+=("puts the load on the guest's ${kv#offender=} vCPU; natively --load-cpus places it"); next+=("TARGET=guest, or --load-cpus") ;;
		cpuflag=[+-]*)
			# QEMU's property names have dashes, /proc/cpuinfo underscores.
			flag=${kv#cpuflag=?} flag=${flag//-/_}
			if [[ $kv == cpuflag=+* ]] && ! has_flag "$flag"; then
				why+=("needs a CPU with $flag; this CPU lacks it"); next+=("a CPU with $flag")
			elif [[ $kv == cpuflag=-* ]] && has_flag "$flag"; then
				why+=("needs a CPU without $flag; this CPU has it"); next+=("a CPU without $flag")
			fi ;;
		esac
	done
	[ ${#why[@]} -eq 0 ] && return 0
	printf '%s\t%s\n' "$(printf '%s; ' "${why[@]}" | sed 's/; $//')" "$(printf '%s; ' "${next[@]}" | sed 's/; $//')"
}

target_manifest_args() {
	echo target="$target" measure_cpu="$measure_cpu" load_cpus="$load_cpus"
}

target_limit() { echo $((duration * ${phases:-1} + warmup + 60)); }

target_job_env() {
	printf 'SLB_MEASURE_CPUS=%s SLB_LOAD_CPUS=%s SLB_SEED=%s\n' "$measure_cpu" "$load_cpus" "$2"
	[ -z "${SLB_CYCLICTEST:-}" ] || printf 'SLB_CYCLICTEST=%q\n' "$SLB_CYCLICTEST"
	[ -z "${SLB_RTLA:-}" ] || printf 'SLB_RTLA=%q\n' "$SLB_RTLA"
}

target_start() {
	local s=$1 rep=$2 dir=$3 job=$4 limit=$5
	exec "$SLB_ROOT/bench/target/run-native.sh" -o "$dir" -j "$job" -t "$limit" \
		${ssh_dest:+--ssh "$ssh_dest"} ${ssh_port:+--port "$ssh_port"} ${remote_dir:+--remote-dir "$remote_dir"}
}

target_cleanup() {
	[ -z "$stage" ] || rm -rf "$stage"
	stage=
	if [ -n "$remote_dir" ]; then
		if ssh_cmd "rm -rf '$remote_dir'" </dev/null 2>/dev/null; then
			say "removed $ssh_dest:$remote_dir"
		else
			say "warning: could not remove $ssh_dest:$remote_dir (connection lost?): remove it by hand"
		fi
		remote_dir=
	fi
}
